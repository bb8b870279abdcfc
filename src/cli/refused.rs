//! The report of a run refused before it started, inside GitHub Actions: a usage error (an
//! input missing or malformed, clap's or [`super::UsageError`]) or a run context that cannot
//! be read. The `::error` annotation alone is easy to miss on the run's page; the job summary
//! is where people look, and later steps should see every output empty rather than a
//! leftover. Only the commands that report to Actions (`announce`, `status`) write these.

use crate::render::messages::RunWarning;
use crate::render::{self, Stage};
use crate::report::FileCommands;
use crate::support::log::Log;

/// Inside Actions, for `command` (`announce` or `status`, as typed on the command line;
/// anything else writes nothing): a job summary saying the run failed checking the inputs
/// ([`Stage::Inputs`]), the `input` at fault when known, and `message` as the `::error`
/// annotation says it (secrets hidden again here); and every output of the command, empty.
/// Best effort: a file that cannot be written is warned about, naming which, and so is a
/// `$GITHUB_OUTPUT` that is not set ([`RunWarning::OutputsNotWritten`], as a run that
/// started warns).
pub fn report_refused(command: Option<&str>, input: Option<&str>, message: &str, log: &Log) {
    let (outputs, named) = match command {
        Some("announce") => (
            crate::announce::refused_outputs(),
            &crate::announce::NAMED_OUTPUTS[..],
        ),
        Some("status") => (
            crate::status::report::unmeasured_outputs(),
            &crate::status::run::NAMED_OUTPUTS[..],
        ),
        _ => return,
    };
    if !log.in_actions() {
        return;
    }
    let files = FileCommands::from_env();
    if files.output.is_none() {
        let warning = RunWarning::OutputsNotWritten(named);
        log.warn(&warning);
    }
    let summary = render::failure_summary(&render::Failure {
        stage: Stage::Inputs,
        error: log.redact(message),
        // The input's name, as typed when clap refused an unknown one: hidden as the
        // message is, should it hold a secret.
        input: input.map(|input| log.redact(input)),
        ..render::Failure::default()
    });
    let unwritten = files.write_failure(Some(&outputs), Some(&summary));
    if let Some(warning) = unwritten.warning() {
        log.warn(&warning);
    }
}

/// [`report_refused`] for an error building `command`'s request: its input as
/// [`crate::run`] titles the annotation ([`super::bad_input`]), its message as that
/// annotation says it.
pub(super) fn report_refused_request(command: &str, err: &anyhow::Error, log: &Log) {
    report_refused(
        Some(command),
        super::bad_input(err),
        &format!("{err:#}"),
        log,
    );
}
