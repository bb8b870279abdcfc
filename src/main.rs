//! `codeq-rollout`: parse the command line, run, map the outcome to an exit code.
//!
//! Exit codes: 0 done (also when nothing changed), 1 failed, 2 bad usage (clap's own).

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = codeq_rollout::cli::Cli::parse();
    codeq_rollout::run(cli)
}
