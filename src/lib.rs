//! codeq-rollout: announce a new JupyterLab image digest to its users.
//!
//! The crate reads as the pipeline it runs (see `../README.md`):
//! [`context`] → [`digest`] → [`tier`] → [`window`] (from [`values`]) → [`render`] → [`publish`] → [`report`].
//! The stages that decide ([`tier`], [`window`], [`render`], [`sanitize`]) are pure: plain
//! structs in, values out, no I/O and no clock. The I/O lives at the edges: the registry
//! ([`digest::registry`], [`digest::layout`]), GitHub ([`github`]) and the Actions runtime
//! ([`report`]). [`announce`] wires one run together.

pub mod announce;
pub mod cli;
pub mod context;
pub mod digest;
pub mod docs;
pub mod event;
pub mod github;
pub mod publish;
pub mod pulls;
pub mod render;
pub mod report;
pub mod sanitize;
pub mod tier;
pub mod tls;
pub mod values;
pub mod window;

use std::process::ExitCode;

/// Runs one command and maps its outcome to the process exit code
/// (0 done, 1 failed; clap itself exits with 2 on bad usage).
///
/// Errors are printed once, as a `::error` workflow command when running inside
/// GitHub Actions and as plain text otherwise, with every registered secret masked.
pub fn run(cli: cli::Cli) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(err) => {
            eprintln!("error: cannot start the async runtime: {err}");
            return ExitCode::FAILURE;
        }
    };
    let log = report::Log::from_env();
    let outcome = runtime.block_on(cli::dispatch(cli, &log));
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            log.error("codeq-rollout failed", &format!("{err:#}"));
            ExitCode::FAILURE
        }
    }
}
