//! `docs` and `window`: the deployment doc's generated sections, and the window on its own.
//!
//! `CODEQ_DEPLOYMENT.md` keeps hand-written prose around generated sections delimited by
//! `<!-- BEGIN GENERATED: NAME -->` and `<!-- END GENERATED: NAME -->`. The sections are
//! rendered by the same functions as the release note and tracking issue
//! ([`render::window_section`], [`render::runbook_section`]), so the doc cannot drift.

use crate::cli::{DocsArgs, WindowArgs};
use crate::render::{self, RunbookSettings};
use crate::report::Log;
use crate::window::{self, Configured};
use anyhow::{Context, Result, bail};

/// The digest placeholder the doc's runbook shows.
pub const DOC_DIGEST: &str = "sha256:<digest from the release note or tracking issue>";

/// The generated sections for `config`: `(name, content)`.
///
/// # Errors
/// Only on a template error.
pub fn sections(config: &Configured) -> Result<Vec<(&'static str, String)>> {
    let window = window::compute(&config.settings);
    Ok(vec![
        ("window", render::window_section(&config.settings, &window)?),
        (
            "runbook",
            render::runbook_section(&RunbookSettings::default(), DOC_DIGEST)?,
        ),
    ])
}

/// Replaces each generated section's content in `doc`.
///
/// # Errors
/// A section whose BEGIN or END marker is missing or out of order.
pub fn apply(doc: &str, sections: &[(&str, String)]) -> Result<String> {
    let mut out = doc.to_string();
    for (name, content) in sections {
        let begin = format!("<!-- BEGIN GENERATED: {name} -->");
        let end = format!("<!-- END GENERATED: {name} -->");
        let start = out
            .find(&begin)
            .with_context(|| format!("the doc has no {begin} marker"))?
            + begin.len();
        let stop = out[start..]
            .find(&end)
            .with_context(|| format!("the doc has no {end} after {begin}"))?
            + start;
        out.replace_range(
            start..stop,
            &format!("\n{}", content.trim_end_matches('\n').to_owned() + "\n"),
        );
    }
    Ok(out)
}

/// A unified diff from `old` to `new`, labelled with `path`; empty when equal.
pub fn diff(path: &str, old: &str, new: &str) -> String {
    if old == new {
        return String::new();
    }
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(path, &format!("{path} (generated)"))
        .to_string()
}

/// `codeq-rollout docs --check | --write`.
///
/// # Errors
/// `--check` with stale sections (after printing the diff), an unreadable doc, or neither
/// `--check` nor `--write`.
pub fn docs_command(args: &DocsArgs, log: &Log) -> Result<()> {
    let config = args.culler.settings()?;
    let path = args.file.display().to_string();
    let doc = std::fs::read_to_string(&args.file).with_context(|| format!("cannot read {path}"))?;
    let fresh = apply(&doc, &sections(&config)?)?;
    if args.write {
        if fresh != doc {
            std::fs::write(&args.file, &fresh).with_context(|| format!("cannot write {path}"))?;
            log.info(&format!("{path}: generated sections updated"));
        } else {
            log.info(&format!("{path}: up to date"));
        }
        return Ok(());
    }
    if !args.check {
        bail!("say --check (verify the generated sections) or --write (update them)");
    }
    let d = diff(&path, &doc, &fresh);
    if d.is_empty() {
        log.info(&format!("{path}: generated sections are up to date"));
        Ok(())
    } else {
        // The doc is repository content a pull request can change: its diff must not
        // issue workflow commands.
        print!("{}", crate::report::defuse_commands(&d));
        bail!(
            "{path} is out of date with the code and culler settings: run `codeq-rollout docs --write` and commit the result"
        )
    }
}

/// `codeq-rollout window [--json]`.
///
/// # Errors
/// Malformed culler options.
pub fn window_command(args: &WindowArgs, log: &Log) -> Result<()> {
    let config = args.culler.settings()?;
    let window = window::compute(&config.settings);
    if args.json {
        let json = serde_json::json!({
            "settings": config.settings,
            "origins": config.origins,
            "idle_window_seconds": window.idle_secs,
            "active_window_seconds": window.active_secs,
            "culling_enabled": window.culling_enabled,
            "summary": window.summary(),
        });
        println!("{}", serde_json::to_string_pretty(&json)?);
    } else {
        log.info(&window.summary());
    }
    Ok(())
}
