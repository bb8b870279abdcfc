//! Pure: the deployment doc's generated sections and the `window` command's text and JSON.
//!
//! `CODEQ_DEPLOYMENT.md` keeps hand-written prose around generated sections delimited by
//! `<!-- BEGIN GENERATED: NAME -->` and `<!-- END GENERATED: NAME -->`. The sections are
//! rendered by the same functions as the release note and tracking issue
//! ([`super::window_section`], [`super::runbook_section`]), so the doc cannot drift:
//! [`sections`] and [`apply`] are pure, and `docs --check` diffs their result against the
//! file (cargo-dist's generate / write / check). Markers quoted inside fenced code blocks
//! (```` ``` ```` or `~~~`) are text, not markers; a file with CRLF line endings keeps them.
//! The words of the `docs` command's log lines and errors are here too ([`DocsNote`]).

use super::RunbookSettings;
use super::window_words::{human, servers_words};
use super::words::Words;
use crate::support::files::ReadError;
use crate::support::sanitize;
use crate::window::Configured;
use anyhow::Result;

/// The digest placeholder the doc's runbook shows.
pub const DOC_DIGEST: &str = "sha256:PASTE-THE-DIGEST-FROM-THE-TRACKING-ISSUE";

/// The names of the generated sections, in the order they appear in the doc.
pub(crate) const SECTION_NAMES: [&str; 2] = ["window", "runbook"];

/// The generated sections for these culler and runbook settings: `(name, content)`, named
/// as in [`SECTION_NAMES`].
///
/// # Errors
/// Only on a template error.
pub(crate) fn sections(
    config: &Configured,
    runbook: &RunbookSettings,
) -> Result<Vec<(&'static str, String)>> {
    let window = config.window();
    Ok(vec![
        ("window", super::window_section(&config.settings, &window)?),
        ("runbook", super::runbook_section(runbook, DOC_DIGEST, &[])?),
    ])
}

/// Why the generated sections cannot be placed in a doc ([`apply`]), as data; the words
/// are [`DocsNote::NotPlaced`]'s. Sections are named as in [`SECTION_NAMES`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Misplaced {
    /// No marker of any section: a doc the sections were never added to.
    NoMarkers,
    /// A BEGIN marker naming a section codeq-rollout does not write.
    Unknown(String),
    /// This marker is missing; the section's name, and what the doc holds like it.
    Missing(String, Marker, Lookalike),
    /// This marker is there more than once, so many times.
    Repeated(String, Marker, usize),
    /// The section's END marker comes before its BEGIN marker.
    Reversed(String),
    /// Text the section would replace shares a line with its marker: the line (from 1) and
    /// the text as quoted (60 characters and `…` when longer).
    TextBeside(String, Marker, usize, String),
    /// The second section opens before the first closes: nested when it also closes first.
    Overlapping {
        /// The section opened first.
        outer: String,
        /// The section opened inside it.
        inner: String,
        /// Whether `inner` also closes inside `outer`.
        nested: bool,
    },
}

/// What a doc holds in place of a missing marker ([`Misplaced::Missing`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lookalike {
    /// Nothing like it.
    Nothing,
    /// The marker, but only inside a fenced code block, where it is text.
    Fenced,
    /// The marker with other spacing (`<!--BEGIN GENERATED: window-->`), which is no marker.
    Spacing,
}

/// Which marker of a generated section.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Marker {
    /// `<!-- BEGIN GENERATED: NAME -->`.
    Begin,
    /// `<!-- END GENERATED: NAME -->`.
    End,
}

impl Marker {
    /// The marker of section `name`.
    fn of(self, name: &str) -> String {
        format!("{}{name} -->", self.opening())
    }

    /// The marker's text before the section's name.
    fn opening(self) -> &'static str {
        match self {
            Marker::Begin => "<!-- BEGIN GENERATED: ",
            Marker::End => "<!-- END GENERATED: ",
        }
    }
}

/// Replaces each generated section's content in `doc` (everything between its BEGIN and
/// END lines) and leaves all other text as it is. Markers inside fenced code blocks are
/// ignored (a doc may quote them); the content takes the doc's line ending (CRLF when its
/// first line ends so, else LF). Every marker is located on `doc` as given before anything
/// is replaced, so an error leaves nothing half done.
///
/// # Errors
/// [`Misplaced`]: no marker at all; a section whose BEGIN or END marker is missing, repeated
/// or out of order, or shares its line with text the section would replace (after a BEGIN
/// marker, before an END marker); a BEGIN marker naming a section codeq-rollout does not
/// generate; or two sections nested or overlapping (replacing one would delete the other's
/// markers): each must close before the next opens.
pub(crate) fn apply(doc: &str, sections: &[(&str, String)]) -> Result<String, Misplaced> {
    let begin = Marker::Begin.opening();
    let openings = [begin, Marker::End.opening()];
    if openings.iter().all(|m| marker_positions(doc, m).is_empty()) {
        return Err(Misplaced::NoMarkers);
    }
    for at in marker_positions(doc, begin) {
        let name = doc[at..]
            .split_once(" -->")
            .map(|(m, _)| &m[begin.len()..])
            .unwrap_or_default();
        if !sections.iter().any(|(n, _)| *n == name) {
            return Err(Misplaced::Unknown(name.to_string()));
        }
    }
    for (name, _) in sections {
        own_line(doc, name)?;
    }
    // Each section as (name, where its content starts, where its END marker starts, content).
    let mut spans = Vec::new();
    for (name, content) in sections {
        let mut found = [0; 2];
        for (i, marker) in [Marker::Begin, Marker::End].into_iter().enumerate() {
            found[i] = match marker_positions(doc, &marker.of(name))[..] {
                [at] => at,
                [] => {
                    let squeezed = |t: &str| t.replace(' ', "");
                    let like = match doc.contains(&marker.of(name)) {
                        true => Lookalike::Fenced,
                        false if squeezed(doc).contains(&squeezed(&marker.of(name))) => {
                            Lookalike::Spacing
                        }
                        false => Lookalike::Nothing,
                    };
                    return Err(Misplaced::Missing(name.to_string(), marker, like));
                }
                ref all => return Err(Misplaced::Repeated(name.to_string(), marker, all.len())),
            };
        }
        let (start, stop) = (found[0] + Marker::Begin.of(name).len(), found[1]);
        if stop < start {
            return Err(Misplaced::Reversed(name.to_string()));
        }
        spans.push((*name, start, stop, content));
    }
    spans.sort_by_key(|&(_, start, _, _)| start);
    for pair in spans.windows(2) {
        let ((outer, _, outer_stop, _), (inner, inner_start, inner_stop, _)) = (pair[0], pair[1]);
        if inner_start < outer_stop {
            return Err(Misplaced::Overlapping {
                outer: outer.to_string(),
                inner: inner.to_string(),
                nested: inner_stop < outer_stop,
            });
        }
    }
    let eol = match doc.find('\n') {
        Some(at) if doc[..at].ends_with('\r') => "\r\n",
        _ => "\n",
    };
    let mut out = doc.to_string();
    // From the last section back, so the earlier offsets stay where they were.
    for (_, start, stop, content) in spans.into_iter().rev() {
        let content = content.trim_end_matches('\n').replace('\n', eol);
        out.replace_range(start..stop, &format!("{eol}{content}{eol}"));
    }
    Ok(out)
}

/// Refuses text on a marker's line of section `name` that replacing the section would
/// delete: after its BEGIN marker up to the line's end or the next marker, before its END
/// marker back to the line's start or the previous marker (a BEGIN and END marker side by
/// side on one line delete nothing). Text before a BEGIN marker or after an END marker
/// stays, so it is allowed.
///
/// # Errors
/// [`Misplaced::TextBeside`]: the marker, its line number (from 1) and the text.
fn own_line(doc: &str, name: &str) -> Result<(), Misplaced> {
    let marks = [Marker::Begin, Marker::End].map(Marker::opening);
    let beside = |marker, at: usize, text: &str| {
        let line = doc[..at].matches('\n').count() + 1;
        Misplaced::TextBeside(name.to_string(), marker, line, sanitize::cap(text, 61))
    };
    let begin = Marker::Begin.of(name);
    for at in marker_positions(doc, &begin) {
        let rest = &doc[at + begin.len()..];
        let line = &rest[..rest.find('\n').unwrap_or(rest.len())];
        let next = marks.iter().filter_map(|m| line.find(m)).min();
        let text = line[..next.unwrap_or(line.len())].trim();
        if !text.is_empty() {
            return Err(beside(Marker::Begin, at, text));
        }
    }
    for at in marker_positions(doc, &Marker::End.of(name)) {
        let line = &doc[doc[..at].rfind('\n').map_or(0, |i| i + 1)..at];
        let previous = marks
            .iter()
            .filter_map(|m| {
                let i = line.rfind(m)?;
                Some(i + line[i..].find(" -->").map_or(0, |e| e + " -->".len()))
            })
            .max();
        let text = line[previous.unwrap_or(0)..].trim();
        if !text.is_empty() {
            return Err(beside(Marker::End, at, text));
        }
    }
    Ok(())
}

/// Byte offsets of `marker` in `doc`, leaving out those inside fenced code blocks (a line
/// opening with at least three backticks or tildes, [`super::fence_run`], up to a line
/// closing with at least as many of the same character, as CommonMark has it; an unclosed
/// fence runs to the end).
fn marker_positions(doc: &str, marker: &str) -> Vec<usize> {
    let mut fenced: Vec<std::ops::Range<usize>> = Vec::new();
    let mut open: Option<(&str, usize)> = None;
    let mut at = 0;
    for line in doc.split_inclusive('\n') {
        match (open, super::fence_run(line)) {
            (None, Some((run, _))) => open = Some((run, at)),
            (Some((run, from)), Some((closing, rest)))
                if closing.starts_with(run) && rest.trim().is_empty() =>
            {
                fenced.push(from..at + line.len());
                open = None;
            }
            _ => {}
        }
        at += line.len();
    }
    if let Some((_, from)) = open {
        fenced.push(from..doc.len());
    }
    doc.match_indices(marker)
        .map(|(i, _)| i)
        .filter(|i| !fenced.iter().any(|r| r.contains(i)))
        .collect()
}

/// A unified diff from `old` to `new`, labelled with `path`; empty when equal.
pub(crate) fn diff(path: &str, old: &str, new: &str) -> String {
    if old == new {
        return String::new();
    }
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(path, &format!("{path} (generated)"))
        .to_string()
}

/// The `window --json` document: `summary`; `culling_enabled`; `idle_window_seconds` and
/// `active_window_seconds`, never later than (the worst case for the hub's size when given,
/// else the usual bound; null when unbounded); `idle_window_usual_seconds` and
/// `active_window_usual_seconds`, the usual bound; `worst_case` (null without a hub size:
/// `servers`, `slow_stop_timeout_seconds`, `pass_seconds`, `carry_seconds`, `idle_seconds`,
/// `active_seconds`); `settings` (seconds) and `origins` (each `{"source": "default" | "file"
/// | "option", ...}`, `slow_stop_timeout` included).
pub(crate) fn window_json(config: &Configured) -> serde_json::Value {
    let window = config.window();
    let mut origins = serde_json::json!(config.origins);
    origins["slow_stop_timeout"] = serde_json::json!(config.scale.slow_stop_origin);
    // The culler's settings as serialised (seconds), then the hub's scale.
    let mut settings = serde_json::json!(config.settings);
    settings["hub_size"] = serde_json::json!(config.scale.servers);
    settings["slow_stop_timeout_secs"] = serde_json::json!(config.scale.slow_stop_timeout_secs);
    serde_json::json!({
        "summary": window.summary(),
        "culling_enabled": window.culling_enabled,
        "idle_window_seconds": window.latest_idle_secs(),
        "active_window_seconds": window.latest_active_secs(),
        "idle_window_usual_seconds": window.idle_secs,
        "active_window_usual_seconds": window.active_secs,
        "worst_case": window.worst.map(|w| serde_json::json!({
            "servers": w.scale.servers,
            "slow_stop_timeout_seconds": w.scale.slow_stop_timeout_secs,
            "pass_seconds": w.pass_secs,
            "carry_seconds": w.carry_secs,
            "idle_seconds": w.idle_secs,
            "active_seconds": w.active_secs,
        })),
        "settings": settings,
        "origins": origins,
    })
}

/// The `window` text: the summary line, then one line per setting with its origin, the
/// hub's size and slow-stop timeout last.
pub(crate) fn window_text(config: &Configured) -> String {
    let window = config.window();
    let mut out = format!("Convergence window: {}\n", window.summary());
    let mut rows: Vec<(String, String, String)> = config
        .rows()
        .into_iter()
        .map(|r| (r.key.to_string(), r.value, r.origin.to_string()))
        .collect();
    let (size, origin) = match config.scale.servers {
        Some(servers) => (servers_words(servers), "option --hub-size"),
        None => ("not given".into(), "set --hub-size for the worst case"),
    };
    rows.push(("hub size".into(), size, origin.into()));
    let scale = &config.scale;
    let slow_stop = human(scale.slow_stop_timeout_secs);
    rows.push((
        "slow-stop".into(),
        slow_stop,
        scale.slow_stop_origin.to_string(),
    ));
    let width = rows.iter().map(|r| r.1.len()).max().unwrap_or(0);
    for (key, value, origin) in rows {
        out.push_str(&format!("  {key:<12}  {value:<width$}  ({origin})\n"));
    }
    if let Some(w) = window.worst {
        let carry = match w.carry_secs {
            0 => String::new(),
            secs => format!(", plus {} for servers restarted during a pass", human(secs)),
        };
        let (servers, slow_stop) = (w.scale.servers, w.scale.slow_stop_timeout_secs);
        out.push_str(&format!(
            "  One cull pass on this hub: up to {} ({} × {}){carry}\n",
            human(w.pass_secs),
            servers_words(servers),
            human(slow_stop),
        ));
    }
    out.trim_end().to_string()
}

/// What the `docs` command says about the doc at a path, as data; [`docs_words`] words it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum DocsNote<'a> {
    /// The doc could not be read (error): the fix follows the reason.
    Unreadable(&'a str, &'a ReadError),
    /// The generated sections could not be placed: bad markers (error).
    NotPlaced(&'a str, &'a Misplaced),
    /// `--write` on a doc no one may write (no write permission bits): refused, as
    /// `scripts/pin-image` refuses, also when run by root (error).
    ReadOnly(&'a str),
    /// The doc could not be written (error): the fix follows the reason.
    NotWritten(&'a str, &'a std::io::Error),
    /// `--write` rewrote the generated sections.
    Updated(&'a str),
    /// `--write` found nothing to change.
    UpToDate(&'a str),
    /// `--check` found the generated sections current.
    Current(&'a str),
    /// `--check` found them stale (error, after the diff).
    Stale(&'a str),
}

super::words::words_display!(DocsNote<'_> => docs_words);

/// The words of `note`: what happened to the doc at its path and, for an error, what to do.
pub(crate) fn docs_words(note: &DocsNote<'_>) -> Words {
    // Opening fails before anything is written; a write that fails later may leave the doc
    // cut short.
    let restore = "then run --write again (restore a doc left cut short with git checkout)";
    let (what, help) = match *note {
        DocsNote::Unreadable(path, why) => (
            format!("cannot read {path}: {why}"),
            match why {
                ReadError::NotFound => "run from the repository root, or name the doc with --file",
                ReadError::IsDirectory => "name the doc file with --file, not a directory",
                ReadError::NotRegular => {
                    "give the doc file itself with --file (e.g. CODEQ_DEPLOYMENT.md)"
                }
                ReadError::PermissionDenied => {
                    "make it readable (chmod u+r), or run as a user who may read it"
                }
                ReadError::TooLarge { cap, .. } => {
                    return Words::new(format!("cannot read {path}: {why} ({} MiB)", cap >> 20))
                        .help("is it the right file?");
                }
                ReadError::NotUtf8 { .. } => "save it as UTF-8",
                ReadError::Other(_) | ReadError::Waited(_) => {
                    "check the path given with --file and try again"
                }
            }
            .to_string(),
        ),
        DocsNote::NotPlaced(path, misplaced) => misplaced_words(path, misplaced),
        DocsNote::ReadOnly(path) => (
            format!("{path} is read-only: nothing was written"),
            "make it writable (chmod u+w), or use --check".to_string(),
        ),
        DocsNote::NotWritten(path, why) => match why.kind() {
            std::io::ErrorKind::PermissionDenied => (
                format!("cannot write {path}: permission denied"),
                "make the doc writable for this user, or use --check".to_string(),
            ),
            std::io::ErrorKind::ReadOnlyFilesystem => (
                format!("cannot write {path}: the file system is read-only"),
                "run --write in a writable checkout, or use --check".to_string(),
            ),
            std::io::ErrorKind::StorageFull => (
                format!("cannot write {path}: no space left on the device"),
                format!("free space, {restore}"),
            ),
            _ => (
                format!("cannot write {path}: {why}"),
                format!("fix the cause, {restore}"),
            ),
        },
        DocsNote::Updated(path) => return Words::new(format!("{path}: generated sections updated")),
        DocsNote::UpToDate(path) => return Words::new(format!("{path}: up to date")),
        DocsNote::Current(path) => {
            return Words::new(format!("{path}: generated sections are up to date"));
        }
        DocsNote::Stale(path) => (
            format!("{path} is out of date with the code and culler settings (diff above)"),
            "run `codeq-rollout docs --write` with the same options and commit the result; edit only the prose outside the GENERATED markers".to_string(),
        ),
    };
    Words::new(what).help(help)
}

/// What is misplaced in the doc at `path`, and how to put it right.
fn misplaced_words(path: &str, misplaced: &Misplaced) -> (String, String) {
    match misplaced {
        Misplaced::NoMarkers => (
            format!(
                "{path} has no generated sections (no {} marker)",
                Marker::Begin.of("...")
            ),
            format!(
                "add each section's two markers, each on a line of its own, where it goes ({}), then run --write to fill them",
                SECTION_NAMES
                    .map(|n| format!("{} and {}", Marker::Begin.of(n), Marker::End.of(n)))
                    .join("; ")
            ),
        ),
        Misplaced::Unknown(name) => (
            format!("{path} has a generated section {name:?} that codeq-rollout does not write"),
            format!("it writes {}: remove its markers", SECTION_NAMES.join(", ")),
        ),
        Misplaced::Missing(name, marker, like) => {
            let (m, begin, end) = (
                marker.of(name),
                Marker::Begin.of(name),
                Marker::End.of(name),
            );
            match like {
                Lookalike::Nothing => (
                    format!("{path} has no {m} marker"),
                    format!("put the section back between {begin} and {end}"),
                ),
                Lookalike::Fenced => (
                    format!(
                        "{path} has {m} only inside a code block, where it is text, not a marker"
                    ),
                    format!(
                        "move {begin} and {end} out of the code block, each on a line of its own"
                    ),
                ),
                Lookalike::Spacing => (
                    format!("{path} has {m} only spaced otherwise, which is not a marker"),
                    format!("write the markers exactly so, with the spaces: {begin} and {end}"),
                ),
            }
        }
        Misplaced::Repeated(name, marker, times) => (
            format!("{path} has {} {times} times", marker.of(name)),
            "keep one".to_string(),
        ),
        Misplaced::Reversed(name) => (
            format!(
                "{path} has {} before {}",
                Marker::End.of(name),
                Marker::Begin.of(name)
            ),
            "swap them".to_string(),
        ),
        Misplaced::TextBeside(name, marker, line, text) => (
            format!(
                "{path} has text {} {} on line {line}",
                if *marker == Marker::Begin {
                    "after"
                } else {
                    "before"
                },
                marker.of(name)
            ),
            format!(
                "the generated section would replace that text ({text:?}): put the marker on a line of its own"
            ),
        ),
        Misplaced::Overlapping {
            outer,
            inner,
            nested,
        } => (
            match nested {
                true => format!("{path} has the {inner} section inside the {outer} section"),
                false => format!("{path} has the {outer} and {inner} sections overlapping"),
            },
            format!(
                "{} comes before {}: each generated section must close before the next opens; move {} above {}",
                Marker::Begin.of(inner),
                Marker::End.of(outer),
                Marker::End.of(outer),
                Marker::Begin.of(inner),
            ),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::window::{CullSettings, Origin};

    /// A deployment doc: prose around the two generated sections, filled with the defaults
    /// (the committed one is checked by `tests/it/window_docs.rs` and `docs --check`).
    fn doc() -> String {
        let empty = "# Deployment\n\n<!-- BEGIN GENERATED: window -->\n<!-- END GENERATED: window -->\n\nprose\n\n<!-- BEGIN GENERATED: runbook -->\n<!-- END GENERATED: runbook -->\n";
        fresh(empty).unwrap()
    }

    fn fresh(doc: &str) -> Result<String, Misplaced> {
        let sections = sections(&Configured::default(), &RunbookSettings::default());
        apply(doc, &sections.unwrap())
    }

    /// `words` as a table row: checked for the one shape, the help indented below.
    fn row(words: Words) -> String {
        crate::render::words::assert_shape(&words);
        words.to_string().replace('\n', "\n  ")
    }

    #[test]
    fn applying_twice_changes_nothing_and_keeps_the_prose() {
        let doc = "intro\n<!-- BEGIN GENERATED: window -->\nold\n<!-- END GENERATED: window -->\nmiddle\n<!-- BEGIN GENERATED: runbook --><!-- END GENERATED: runbook -->\nend\n";
        let once = fresh(doc).unwrap();
        assert_eq!(fresh(&once).unwrap(), once);
        assert!(once.starts_with("intro\n<!-- BEGIN GENERATED: window -->\n- **Idle sessions**"));
        assert!(once.contains("<!-- END GENERATED: window -->\nmiddle\n"));
        assert!(once.ends_with("<!-- END GENERATED: runbook -->\nend\n"));
        assert!(!once.contains("\nold\n"));
    }

    #[test]
    fn a_stale_section_gives_a_unified_diff() {
        let doc = doc();
        let stale = doc.replacen("**1h 10m**", "**1h 15m**", 1);
        let d = diff("CODEQ_DEPLOYMENT.md", &stale, &fresh(&stale).unwrap());
        assert!(
            d.starts_with("--- CODEQ_DEPLOYMENT.md\n+++ CODEQ_DEPLOYMENT.md (generated)\n@@ "),
            "{d}"
        );
        assert!(
            d.contains("\n-- **Idle sessions** are stopped by the idle culler within **1h 15m**"),
            "{d}"
        );
        assert!(
            d.contains("\n+- **Idle sessions** are stopped by the idle culler within **1h 10m**"),
            "{d}"
        );
    }

    #[test]
    fn the_doc_follows_the_culler_settings() {
        let config = Configured {
            settings: CullSettings {
                max_age_secs: 8 * 3600,
                ..Default::default()
            },
            ..Default::default()
        };
        let doc = doc();
        let changed = apply(
            &doc,
            &sections(&config, &RunbookSettings::default()).unwrap(),
        )
        .unwrap();
        assert!(
            changed.contains("has been stopped within **8h 10m** of it."),
            "{changed}"
        );
    }

    /// Each bad doc, then the whole error: it names the marker and what to do.
    #[test]
    fn bad_markers_are_refused_naming_the_marker() {
        let docs = [
            "no markers\n",
            "<!-- BEGIN GENERATED: runbook -->\n<!-- END GENERATED: runbook -->\n",
            "```\n<!-- BEGIN GENERATED: window -->\n<!-- END GENERATED: window -->\n```\n<!-- BEGIN GENERATED: runbook --><!-- END GENERATED: runbook -->",
            "<!--BEGIN GENERATED: window-->\n<!--END GENERATED: window-->\n<!-- BEGIN GENERATED: runbook --><!-- END GENERATED: runbook -->",
            "<!-- BEGIN GENERATED: window -->\n<!-- BEGIN GENERATED: runbook --><!-- END GENERATED: runbook -->",
            "<!-- END GENERATED: window --><!-- BEGIN GENERATED: window --><!-- BEGIN GENERATED: runbook --><!-- END GENERATED: runbook -->",
            "<!-- BEGIN GENERATED: window --><!-- END GENERATED: window --><!-- BEGIN GENERATED: window --><!-- END GENERATED: window -->",
            "<!-- BEGIN GENERATED: faq --><!-- END GENERATED: faq -->",
            "intro\nSee <!-- BEGIN GENERATED: window --> here\n<!-- END GENERATED: window -->\n<!-- BEGIN GENERATED: runbook --><!-- END GENERATED: runbook -->\n",
            "<!-- BEGIN GENERATED: window -->\r\nold\r\nkept? <!-- END GENERATED: window --> after\r\n<!-- BEGIN GENERATED: runbook --><!-- END GENERATED: runbook -->\r\n",
            "<!-- BEGIN GENERATED: window --> <!-- END GENERATED: window --> kept\n<!-- BEGIN GENERATED: runbook -->\nlost <!-- END GENERATED: runbook -->\n",
            "<!-- BEGIN GENERATED: runbook -->\n<!-- BEGIN GENERATED: window -->\n<!-- END GENERATED: window -->\n<!-- END GENERATED: runbook -->\n",
            "<!-- BEGIN GENERATED: window -->\n<!-- BEGIN GENERATED: runbook -->\n<!-- END GENERATED: runbook -->\n<!-- END GENERATED: window -->\n",
            "<!-- BEGIN GENERATED: window -->\n<!-- BEGIN GENERATED: runbook -->\n<!-- END GENERATED: window -->\n<!-- END GENERATED: runbook -->\n",
            "<!-- BEGIN GENERATED: runbook -->\n<!-- BEGIN GENERATED: window -->\n<!-- END GENERATED: runbook -->\n<!-- END GENERATED: window -->\n",
        ];
        let table: Vec<String> = docs
            .iter()
            .map(|doc| {
                let misplaced = fresh(doc).unwrap_err();
                let note = DocsNote::NotPlaced("CODEQ_DEPLOYMENT.md", &misplaced);
                format!("{doc:?}\n  {}", row(docs_words(&note)))
            })
            .collect();
        insta::assert_snapshot!(table.join("\n"));
    }

    /// Text before a BEGIN marker or after an END marker on its line is not replaced, so it
    /// is allowed and kept.
    #[test]
    fn text_beside_a_marker_that_no_section_replaces_stays() {
        let doc = "See <!-- BEGIN GENERATED: window -->\nold\n<!-- END GENERATED: window --> (generated)\n<!-- BEGIN GENERATED: runbook --> <!-- END GENERATED: runbook --> end\n";
        let out = fresh(doc).unwrap();
        assert!(
            out.starts_with("See <!-- BEGIN GENERATED: window -->\n- **Idle sessions**"),
            "{out}"
        );
        assert!(
            out.contains("\n<!-- END GENERATED: window --> (generated)\n"),
            "{out}"
        );
        assert!(
            out.ends_with("<!-- END GENERATED: runbook --> end\n"),
            "{out}"
        );
        assert_eq!(fresh(&out).unwrap(), out);
    }

    /// Every reason a doc is not read or written, with its fix: the whole line each.
    #[test]
    fn read_and_write_errors_say_what_to_do() {
        use std::io::{Error, ErrorKind};
        let path = "docs/CODEQ_DEPLOYMENT.md";
        let writes = [
            ErrorKind::PermissionDenied,
            ErrorKind::ReadOnlyFilesystem,
            ErrorKind::StorageFull,
            ErrorKind::Other,
        ];
        let lines: Vec<String> = ReadError::every()
            .iter()
            .map(|e| row(docs_words(&DocsNote::Unreadable(path, e))))
            .chain(std::iter::once(row(docs_words(&DocsNote::ReadOnly(path)))))
            .chain(
                writes
                    .iter()
                    .map(|k| row(docs_words(&DocsNote::NotWritten(path, &Error::from(*k))))),
            )
            .collect();
        insta::assert_snapshot!(lines.join("\n"));
    }

    #[test]
    fn a_crlf_doc_keeps_its_line_endings() {
        let lf = "intro\n<!-- BEGIN GENERATED: window -->\nold\n<!-- END GENERATED: window -->\n<!-- BEGIN GENERATED: runbook -->\n<!-- END GENERATED: runbook -->\nend\n";
        let crlf = lf.replace('\n', "\r\n");
        let out = fresh(&crlf).unwrap();
        assert_eq!(
            out.matches('\n').count(),
            out.matches("\r\n").count(),
            "{out:?}"
        );
        assert_eq!(out, fresh(lf).unwrap().replace('\n', "\r\n"));
        assert_eq!(fresh(&out).unwrap(), out, "applying again changes nothing");
    }

    #[test]
    fn markers_quoted_in_fenced_code_are_text() {
        let quoted = "How the markers look:\n\n```markdown\n<!-- BEGIN GENERATED: window -->\n<!-- END GENERATED: window -->\n<!-- BEGIN GENERATED: faq -->\n```\n\n~~~~\n<!-- END GENERATED: runbook -->\n```\nstill fenced\n~~~~\n";
        let doc = format!(
            "{quoted}<!-- BEGIN GENERATED: window -->\nold\n<!-- END GENERATED: window -->\n<!-- BEGIN GENERATED: runbook -->\n<!-- END GENERATED: runbook -->\n"
        );
        let out = fresh(&doc).unwrap();
        assert!(out.starts_with(quoted), "the quoted markers stay: {out}");
        assert!(!out.contains("\nold\n"), "{out}");
        // Outside a fence, a second marker still counts.
        let twice = format!("{doc}<!-- BEGIN GENERATED: window -->\n");
        let err = fresh(&twice).unwrap_err();
        assert!(matches!(err, Misplaced::Repeated(_, _, 2)), "{err:?}");
    }

    #[test]
    fn window_output_shows_origins() {
        let mut config = Configured::default();
        config.settings.timeout_secs = 1800;
        config.origins.timeout = Origin::file("hub.yaml", "jupyterhub.cull.timeout");
        config.settings.every_secs = 300;
        config.origins.every = Origin::Option {
            name: "cull-every".into(),
        };
        insta::assert_snapshot!("window_text_without_hub_size", window_text(&config));
        let json = window_json(&config);
        assert_eq!(json["idle_window_seconds"], 2100);
        assert_eq!(json["active_window_seconds"], serde_json::Value::Null);
        assert_eq!(
            json["origins"]["timeout"],
            serde_json::json!({"source": "file", "file": "hub.yaml", "key": "jupyterhub.cull.timeout"})
        );
        assert_eq!(
            json["origins"]["every"],
            serde_json::json!({"source": "option", "name": "cull-every"})
        );
        assert_eq!(
            json["origins"]["enabled"],
            serde_json::json!({"source": "default"})
        );
        insta::assert_json_snapshot!("window_json_without_hub_size", json);
    }

    /// With the hub's size, the text and the JSON state the worst case next to the usual
    /// bound, and the "never later than" fields carry the worst case.
    #[test]
    fn window_output_at_the_hubs_scale() {
        let mut config = Configured::default();
        config.settings.max_age_secs = 8 * 3600;
        config.origins.max_age = Origin::Option {
            name: "cull-max-age".into(),
        };
        config.scale.servers = Some(100);
        config.scale.slow_stop_timeout_secs = 30;
        // The key `values` reads it from.
        let key = "hub.config.JupyterHub.tornado_settings.slow_stop_timeout";
        config.scale.slow_stop_origin = Origin::file("hub.yaml", key);
        insta::assert_snapshot!("window_text_at_the_hubs_scale", window_text(&config));
        let json = window_json(&config);
        // 100 × 30 s a pass; nothing carried (a restarted server is due an hour later).
        assert_eq!(json["idle_window_usual_seconds"], 4200);
        assert_eq!(json["idle_window_seconds"], 4200 + 3000);
        assert_eq!(json["active_window_seconds"], 29400 + 3000);
        insta::assert_json_snapshot!("window_json_at_the_hubs_scale", json);
    }

    #[test]
    fn the_doc_states_the_worst_case_for_a_given_hub_size() {
        let mut config = Configured::default();
        config.scale.servers = Some(100);
        let doc = apply(
            &doc(),
            &sections(&config, &RunbookSettings::default()).unwrap(),
        )
        .unwrap();
        assert!(
            doc.contains("within **1h 10m** of their last activity; up to **1h 27m** with 100 servers going idle in the same cull pass."),
            "{doc}"
        );
    }
}
