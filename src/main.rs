//! `codeq-rollout`: parse the command line, run, map the outcome to an exit code.
//!
//! Exit codes: 0 done (also when nothing changed), 1 failed (also: `status` measured and an
//! alarm its `fail-on` lists fired), 2 bad usage.

use codeq_rollout::{cli, report::Log};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let mut log = Log::from_env();
    if args.iter().any(|a| a == "--json" || a == "--print-context") {
        log = log.keeping_stdout();
    }
    // Before parsing: a usage error may quote a secret given to the wrong input.
    cli::mask_secret_inputs(&log, &args);
    match cli::Cli::try_parse_inputs() {
        Ok(cli) => codeq_rollout::run(cli, &log),
        Err(err) => codeq_rollout::usage_error(err, &args, &log),
    }
}
