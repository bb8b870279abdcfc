//! `docs` and `window`: the deployment doc's generated sections, checked or written, and the
//! window on its own. The sections, the window's text and JSON and every word these commands
//! print come from [`crate::render::docs`]; this module reads and writes the doc.

use crate::render::RunbookSettings;
use crate::render::docs::{DocsNote, apply, diff, sections, window_json, window_text};
use crate::render::messages::RunWarning;
use crate::render::usage::{Problem, UsageError};
use crate::support::log::Log;
use crate::window::Configured;
use anyhow::{Result, anyhow, bail};
use std::sync::Arc;

pub use crate::render::docs::DOC_DIGEST;

/// The largest deployment doc read, in bytes (1 MiB): the committed one is under 20 KiB; a
/// larger file is not the doc, and `/dev/zero` or a FIFO is never read at all
/// (`crate::support::files::read_text`, by the command line).
pub(crate) const DOC_MAX_BYTES: u64 = 1024 * 1024;

/// The `docs` request, validated by the command line.
#[derive(Debug, Clone)]
pub(crate) struct DocsRequest {
    /// The culler settings the window section shows.
    pub(crate) culler: Configured,
    /// Where the runbook points.
    pub(crate) runbook: RunbookSettings,
    /// The deployment doc to check or write.
    pub(crate) file: std::path::PathBuf,
    /// Its text, read by the command line (a refusal is bad input).
    pub(crate) doc: String,
    /// Rewrite the generated sections (`--write`) rather than check them (`--check`).
    pub(crate) write: bool,
}

/// The `window` request, validated by the command line.
#[derive(Debug, Clone)]
pub(crate) struct WindowRequest {
    /// The culler settings.
    pub(crate) culler: Configured,
    /// Print JSON instead of text.
    pub(crate) json: bool,
}

/// `codeq-rollout docs --check | --write`, with the same culler options as `announce`
/// (values files, `--cull-*`) and the runbook's coordinates.
///
/// # Errors
/// `--check` with stale sections (after printing the diff to stdout); bad markers (a
/// [`UsageError`] naming `file`); with `--write`, a
/// read-only doc (refused before anything is written, as `scripts/pin-image` refuses one) or
/// a failed write. Each error's fix follows its cause ([`DocsNote`]).
pub(crate) fn docs(req: &DocsRequest, log: &Log) -> Result<()> {
    warn_window(&req.culler, log);
    let (path, doc) = (&req.file.display().to_string(), &req.doc);
    if req.write && read_only(&req.file) {
        bail!("{}", DocsNote::ReadOnly(path));
    }
    // Secrets the runbook's coordinates hold are masked, as in announce's bodies.
    let mut generated = sections(&req.culler, &req.runbook)?;
    generated
        .iter_mut()
        .for_each(|(_, text)| *text = log.redact(text));
    // The doc's markers are bad input naming `file` (exit code 2), as an unreadable doc is.
    let fresh = apply(doc, &generated).map_err(|e| {
        let refused = Problem::Refused(Arc::new(anyhow!("{}", DocsNote::NotPlaced(path, &e))));
        UsageError::new("file", refused)
    })?;
    if req.write {
        if fresh == *doc {
            log.info(&DocsNote::UpToDate(path).to_string());
        } else {
            std::fs::write(&req.file, &fresh)
                .map_err(|e| anyhow!("{}", DocsNote::NotWritten(path, &e)))?;
            log.info(&DocsNote::Updated(path).to_string());
        }
        return Ok(());
    }
    let d = diff(path, doc, &fresh);
    if d.is_empty() {
        log.info(&DocsNote::Current(path).to_string());
        return Ok(());
    }
    // The doc is repository content a pull request can change: its diff must not issue
    // workflow commands.
    crate::support::stdout::print(&crate::support::log::defuse_commands(&d));
    bail!("{}", DocsNote::Stale(path))
}

/// `codeq-rollout window [--json]`: the window for the culler settings, and where each
/// setting came from. With `--json`, stdout carries the JSON alone: `log` must keep stdout
/// ([`Log::keeping_stdout`]), so warnings go to stderr.
///
/// # Errors
/// Only if the JSON cannot be written.
pub(crate) fn window(req: &WindowRequest, log: &Log) -> Result<()> {
    warn_window(&req.culler, log);
    if let Some(risk) = req.culler.image.pull_risk(None) {
        log.warn(&RunWarning::PullPolicy(&risk));
    }
    if req.json {
        let json = serde_json::to_string_pretty(&window_json(&req.culler))?;
        crate::support::stdout::println(&log.redact(&json));
    } else {
        log.info(&window_text(&req.culler));
    }
    Ok(())
}

/// Whether no one may write the file at `path` (none of its write permission bits set),
/// which `--write` respects even when run by root; `false` when its metadata cannot be read
/// (the write then fails and says why).
fn read_only(path: &std::path::Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.permissions().readonly())
}

/// The window's warning ([`Configured::warning`]), also `announce`'s.
pub(crate) fn warn_window(culler: &Configured, log: &Log) {
    if let Some(warning) = culler.warning() {
        log.warn(&RunWarning::Window(&warning));
    }
}
