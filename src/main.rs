//! `codeq-rollout`: parse the command line, run, map the outcome to an exit code.
//!
//! Exit codes: 0 done (also when nothing changed), 1 failed (also: `status` measured and an
//! alarm its `fail-on` lists fired), 2 bad usage.

use codeq_rollout::{Cli, Log, action_args, mask_secret_inputs};
use std::process::ExitCode;

fn main() -> ExitCode {
    let log = Log::from_env();
    let args = action_args(std::env::args_os().collect(), &log);
    let parsed = Cli::try_parse_inputs(&args, &log);
    // Where log lines go, from the parsed command: stderr when stdout carries its JSON.
    let log = match &parsed {
        Ok(cli) => cli.log(log),
        Err(_) => log,
    };
    // Before anything is printed: a usage error may quote a secret given to the wrong input.
    mask_secret_inputs(&log, &args);
    match parsed {
        Ok(cli) => codeq_rollout::run(cli, &args, &log),
        Err(err) => codeq_rollout::usage_error(err, &args, &log),
    }
}
