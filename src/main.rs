//! `codeq-rollout`: parse the command line, run, map the outcome to an exit code.
//!
//! Exit codes: 0 done (also when nothing changed), 1 failed, 2 bad usage.

use std::process::ExitCode;

fn main() -> ExitCode {
    match codeq_rollout::cli::Cli::try_parse_inputs() {
        Ok(cli) => codeq_rollout::run(cli),
        Err(err) => codeq_rollout::usage_error(err),
    }
}
