//! `docs` and `window`: the deployment doc's generated sections, checked or written, and the
//! window on its own. The sections, the window's text and JSON and every word these commands
//! print come from [`crate::render::docs`]; this module reads and writes the doc.

use crate::render::RunbookSettings;
use crate::render::docs::{DocsNote, apply, diff, sections, window_json, window_text};
use crate::render::messages::RunWarning;
use crate::support::log::Log;
use crate::window::{Configured, Window};
use anyhow::{Context, Result, bail};

pub use crate::render::docs::DOC_DIGEST;

/// The `docs` request, validated by the command line.
#[derive(Debug, Clone)]
pub struct DocsRequest {
    /// The culler settings the window section shows.
    pub culler: Configured,
    /// Where the runbook points.
    pub runbook: RunbookSettings,
    /// The deployment doc to check or write.
    pub file: std::path::PathBuf,
    /// Rewrite the generated sections (`--write`) rather than check them (`--check`).
    pub write: bool,
}

/// The `window` request, validated by the command line.
#[derive(Debug, Clone)]
pub struct WindowRequest {
    /// The culler settings.
    pub culler: Configured,
    /// Print JSON instead of text.
    pub json: bool,
}

/// `codeq-rollout docs --check | --write`, with the same culler options as `announce`
/// (values files, `--cull-*`) and the runbook's coordinates.
///
/// # Errors
/// `--check` with stale sections (after printing the diff to stdout), an unreadable doc,
/// bad markers.
pub fn docs(req: &DocsRequest, log: &Log) -> Result<()> {
    warn_if_disabled(&req.culler.window(), log);
    let path = &req.file.display().to_string();
    let doc = std::fs::read_to_string(&req.file)
        .with_context(|| DocsNote::Unreadable(path).to_string())?;
    let fresh = apply(&doc, &sections(&req.culler, &req.runbook)?)
        .with_context(|| DocsNote::NotPlaced(path).to_string())?;
    if req.write {
        if fresh == doc {
            log.info(&DocsNote::UpToDate(path).to_string());
        } else {
            std::fs::write(&req.file, &fresh)
                .with_context(|| DocsNote::NotWritten(path).to_string())?;
            log.info(&DocsNote::Updated(path).to_string());
        }
        return Ok(());
    }
    let d = diff(path, &doc, &fresh);
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
pub fn window(req: &WindowRequest, log: &Log) -> Result<()> {
    let window = req.culler.window();
    warn_if_disabled(&window, log);
    if req.json {
        crate::support::stdout::println(&serde_json::to_string_pretty(&window_json(&req.culler))?);
    } else {
        log.info(&window_text(&req.culler));
    }
    Ok(())
}

fn warn_if_disabled(window: &Window, log: &Log) {
    if !window.culling_enabled {
        let warning = RunWarning::CullingDisabled;
        log.warning(warning.title(), &warning.to_string());
    }
}
