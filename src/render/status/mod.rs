//! Pure: every word `status` says — the terminal table, the job summary and the
//! "Convergence status" comment (from `templates/status_*`), the `--json` document
//! ([`mod@json`]), the progress chart ([`mod@chart`]; docs/progress-chart.md), the hub's errors
//! ([`hub_words`]) and the run's warnings, annotations and refusals ([`warnings`]). The data
//! they word comes from `status`'s stages, which hold no words: [`crate::status::hub`],
//! [`crate::status::classify`] and [`crate::status::history`].
//!
//! User and server names are untrusted (anyone who can sign in picks a user name, and
//! server names are free text). They appear in the terminal table and the JSON document,
//! neutralised by [`crate::support::sanitize`] (one line, no control, ANSI escape or
//! bidirectional characters, workflow commands defused); in the job summary and the comment
//! only when [`StatusFacts::include_names`] is set (issues and summaries may be public),
//! then escaped for Markdown. Times are UTC; the Markdown shows them to the minute, JSON and
//! outputs as RFC 3339.

mod chart;
mod hub_words;
mod json;
mod warnings;

pub use chart::chart;
pub(crate) use json::json;
pub(crate) use warnings::{
    BasisWords, alarm_annotation, alarm_summary, alarm_words, beyond_calendar, deadline_basis,
    history_refused, hub_read, mismatch_annotation,
};

use crate::digest::Digest;
use crate::status::Pending;
use crate::status::classify::{Classification, Classified, Evidence, State, UnknownWhy};
use crate::status::history::{self, History};
use crate::support::sanitize;
use anyhow::Result;
use minijinja::context;
use serde::Serialize;
use time::OffsetDateTime;

use super::{ISSUE_BODY_LIMIT, MarkerKind, truncate_body};
use crate::support::time::{utc_minute, utc_minute_up};

/// The longest user or server name printed, in characters.
pub(crate) const NAME_MAX_CHARS: usize = 64;

/// The most servers listed by name in the job summary or the comment (with
/// [`StatusFacts::include_names`]); the rest are counted.
pub(crate) const NAMED_ROWS_MAX: usize = 100;

/// What one `status` run found, for every report.
#[derive(Debug, Clone, Copy)]
pub struct StatusFacts<'a> {
    /// The hub's base URL, as given (`hub-url`).
    pub hub_url: &'a str,
    /// The image digest of the release measured, when known (by image rather than by
    /// `--released-at`); the comment needs it for its marker.
    pub digest: Option<&'a Digest>,
    /// When the release went live.
    pub released_at: OffsetDateTime,
    /// When the hub was read (the injected clock).
    pub now: OffsetDateTime,
    /// The servers classified.
    pub classification: &'a Classification,
    /// Whether the deadlines are the release note's promise; else `status`'s own culler
    /// settings (no promise read: `crate::status::classify::deadline_basis`).
    pub promised: bool,
    /// Whether the hub's list changed while it was read
    /// (`crate::status::hub::Listing::shifted`).
    pub shifted: bool,
    /// Whether the job summary and the comment list servers by user and server name.
    pub include_names: bool,
    /// The progress chart's points, this run's included
    /// ([`crate::status::history::with_this_run`]): from the convergence comment's hidden
    /// history when the release has one (security releases with `comment`), else `None`
    /// (routine releases: no chart, only the progress line).
    pub history: Option<&'a History>,
}

/// A server's state in the table's words.
fn state_words(state: State) -> &'static str {
    match state {
        State::StaleIdle => "stale idle",
        State::StaleActive => "stale active",
        State::Pending => "pending",
        State::Updated => "updated",
        State::Mismatch => "old digest",
        State::Orphan => "pod not in hub",
        State::Unknown => "image unknown",
    }
}

/// Why an image is unknown, in a few words (the table's "stopped by" column).
fn unknown_words(why: UnknownWhy) -> &'static str {
    match why {
        UnknownWhy::NoPod => "no pod found",
        UnknownWhy::NoImageId => "no imageID yet",
        UnknownWhy::BareId => "imageID names no repository",
        UnknownWhy::OtherRepository => "another repository",
        UnknownWhy::Unreadable => "imageID unreadable",
    }
}

/// The "stopped by" words for one server. An active stale server has two: the deadline it
/// keeps if it goes idle now, and its maximum age while in use, or "never passively while in
/// use" without one. Deadlines are rounded up ([`utc_minute_up`]): a "never later than"
/// time must not read earlier than it is.
fn deadline_words(c: &Classified) -> String {
    match (c.state, c.deadline) {
        (State::StaleIdle | State::StaleActive, Some(d)) if c.overdue => {
            format!("{} (overdue)", utc_minute_up(d))
        }
        (State::StaleActive, Some(d)) => match c.in_use_deadline {
            Some(u) => format!(
                "{} if it goes idle, {} at the latest (maximum age)",
                utc_minute_up(d),
                utc_minute_up(u)
            ),
            None => format!(
                "{} if it goes idle, never passively while in use",
                utc_minute_up(d)
            ),
        },
        (State::StaleIdle, Some(d)) => utc_minute_up(d),
        (State::StaleActive, None) => "when its user restarts it".into(),
        (State::StaleIdle, None) => "not by the culler (culling disabled)".into(),
        (State::Pending, _) => match c.server.pending {
            Some(Pending::Stop) => "stopping".into(),
            Some(Pending::Spawn) => "starting".into(),
            _ => "not ready".into(),
        },
        (State::Updated, _) => "-".into(),
        (State::Mismatch, _) => match c.pod.as_ref().and_then(|p| p.digest.as_deref()) {
            Some(d) => format!("not by the culler: runs {}", short_digest(d)),
            None => "not by the culler".into(),
        },
        (State::Orphan, _) => "never: no culler stops it".into(),
        (State::Unknown, _) => c
            .pod
            .as_ref()
            .and_then(|p| p.unknown)
            .map_or("-", unknown_words)
            .into(),
    }
}

/// The digest an old pod runs ([`crate::status::classify::PodFacts::digest`]), shortened
/// as [`super::short_digest`] writes every digest.
fn short_digest(digest: &str) -> String {
    Digest::parse(digest).map_or_else(|_| digest.to_string(), |d| super::short_digest(&d))
}

/// A name for the terminal: one line, capped, workflow commands defused (stdout is the
/// Actions log); the default server shows as `(default)`.
fn terminal_name(name: &str) -> String {
    if name.is_empty() {
        return "(default)".into();
    }
    sanitize::log_line(name, NAME_MAX_CHARS)
}

/// `classification` with every user and server name replaced, for the job log inside
/// GitHub Actions without `include-names`: that log is as visible as the job summary (on a
/// public repository, to everyone). Users become `user 1`, `user 2`, … in the order they
/// first appear; a named server becomes `server 1`, `server 2`, … per user; a default
/// server keeps its empty name. Counts, states and deadlines are unchanged.
pub(crate) fn without_names(classification: &Classification) -> Classification {
    let mut users: Vec<String> = Vec::new();
    let mut servers: Vec<(String, String)> = Vec::new();
    let mut hidden = classification.clone();
    for c in &mut hidden.servers {
        let n = match users.iter().position(|u| *u == c.server.user) {
            Some(i) => i + 1,
            None => {
                users.push(c.server.user.clone());
                users.len()
            }
        };
        if !c.server.name.is_empty() {
            servers.push((c.server.user.clone(), c.server.name.clone()));
            let k = servers.iter().filter(|(u, _)| *u == c.server.user).count();
            c.server.name = format!("server {k}");
        }
        c.server.user = format!("user {n}");
    }
    hidden
}

/// The terminal table: one row per server, sorted as [`Classification::servers`] (by
/// deadline), then the totals line and the convergence paragraphs of the job summary in
/// plain text (`templates/status_convergence.j2`: converged or not and why, pending servers
/// that may be stale, overdue servers, a list that changed while it was read). Columns:
/// user, server, state, started, last activity, stopped by; padded to the terminal columns
/// each cell takes (Unicode's East Asian Width and zero-width marks, per `unicode-width`:
/// a wide character takes 2, a combining mark or the word joiner
/// [`crate::support::sanitize`] inserts 0).
///
/// # Errors
/// A template that fails to render (a bug, caught by the snapshot tests).
pub(crate) fn table(facts: &StatusFacts<'_>) -> Result<String> {
    let header = [
        "USER",
        "SERVER",
        "STATE",
        "STARTED",
        "LAST ACTIVITY",
        "STOPPED BY",
    ];
    let time = |t: Option<OffsetDateTime>| t.map_or_else(|| "-".to_string(), utc_minute);
    let servers = &facts.classification.servers;
    let mut rows = vec![header.map(String::from)];
    rows.extend(servers.iter().map(|c| {
        [
            terminal_name(&c.server.user),
            terminal_name(&c.server.name),
            state_words(c.state).to_string(),
            time(c.server.times.started),
            time(c.server.times.last_activity),
            deadline_words(c),
        ]
    }));
    let width = |cell: &String| unicode_width::UnicodeWidthStr::width(cell.as_str());
    let widths: Vec<usize> = (0..header.len())
        .map(|i| rows.iter().map(|row| width(&row[i])).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for row in rows.iter().filter(|_| !servers.is_empty()) {
        let cells = row.iter().zip(&widths);
        let line: String = cells
            .map(|(cell, w)| format!("{cell}{}", " ".repeat(w - width(cell) + 2)))
            .collect();
        out.push_str(line.trim_end());
        out.push('\n');
    }
    if !servers.is_empty() {
        out.push('\n');
    }
    // The template ends with the newline of its last line.
    out.push_str(&render("status_terminal.j2", facts, None, Form::Terminal)?);
    Ok(out)
}

#[derive(Serialize)]
struct RowView {
    user: String,
    server: String,
    state: &'static str,
    deadline: String,
}

/// Where a render is read: Markdown (job summary, comment) or the terminal (plain text,
/// no emphasis marks).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    Markdown,
    Terminal,
}

/// The servers whose image is unknown, by why: what to do differs (issue 32 item 15).
#[derive(Serialize, Default)]
struct UnknownCounts {
    no_pod: u64,
    no_image_id: u64,
    bare_id: u64,
    other_repository: u64,
    unreadable: u64,
}

impl UnknownCounts {
    fn of(classification: &Classification) -> Self {
        let mut counts = Self::default();
        let whys = classification
            .servers
            .iter()
            .filter(|c| c.state == State::Unknown)
            .filter_map(|c| c.pod.as_ref()?.unknown);
        for why in whys {
            *match why {
                UnknownWhy::NoPod => &mut counts.no_pod,
                UnknownWhy::NoImageId => &mut counts.no_image_id,
                UnknownWhy::BareId => &mut counts.bare_id,
                UnknownWhy::OtherRepository => &mut counts.other_repository,
                UnknownWhy::Unreadable => &mut counts.unreadable,
            } += 1;
        }
        counts
    }
}

fn render(
    template: &str,
    facts: &StatusFacts<'_>,
    marker: Option<String>,
    form: Form,
) -> Result<String> {
    let (c, now) = (facts.classification, facts.now);
    let t = &c.totals;
    let rows = facts.include_names.then(|| {
        named_rows(c)
            .map(|c| RowView {
                user: sanitize::markdown_inline(&c.server.user, NAME_MAX_CHARS),
                server: if c.server.name.is_empty() {
                    "(default)".into()
                } else {
                    sanitize::markdown_inline(&c.server.name, NAME_MAX_CHARS)
                },
                state: state_words(c.state),
                deadline: deadline_words(c),
            })
            .collect::<Vec<_>>()
    });
    let more = (t.running - t.updated).saturating_sub(NAMED_ROWS_MAX as u64);
    // When the stale active servers will be gone: if they go idle now, and while in use.
    let (active_if_idle_by, active_in_use_by) = c.active_by();
    let ctx = context! {
        marker => marker,
        b => if form == Form::Markdown { "**" } else { "" },
        rows_hash => facts.include_names.then(|| rows_hash(c)),
        digest => facts.digest.map(Digest::as_str),
        hub => facts.hub_url,
        released_at => utc_minute(facts.released_at),
        now => utc_minute(now),
        t => t,
        by_digest => t.evidence == Evidence::Digest,
        unknown => UnknownCounts::of(c),
        converged_by => t.converged_by.map(utc_minute_up),
        // Passed already (as [`Classified::overdue`]): said as overdue, not as to come.
        converged_by_overdue => t.converged_by.is_some_and(|at| at < now),
        active_if_idle_by => active_if_idle_by.map(utc_minute_up),
        active_in_use_by => active_in_use_by.map(utc_minute_up),
        active_in_use_overdue => active_in_use_by.is_some_and(|at| at < now),
        shifted => facts.shifted,
        promised => facts.promised,
        progress => chart::progress(t),
        chart => chart(facts),
        history => facts.history.map(history::line),
        rows => rows,
        more => if facts.include_names { more } else { 0 },
    };
    super::templates::render(template, ctx)
}

/// The servers the job summary and the comment list by name (with
/// [`StatusFacts::include_names`]): those not updated, at most [`NAMED_ROWS_MAX`].
fn named_rows(c: &Classification) -> impl Iterator<Item = &Classified> {
    c.servers
        .iter()
        .filter(|c| c.state != State::Updated)
        .take(NAMED_ROWS_MAX)
}

/// The job summary (Markdown): the counts and when convergence is due; with
/// [`StatusFacts::include_names`], also the servers not yet updated by user and server name
/// (at most `NAMED_ROWS_MAX`, the rest counted).
///
/// # Errors
/// A template that fails to render (a bug, caught by the snapshot tests).
pub fn job_summary(facts: &StatusFacts<'_>) -> Result<String> {
    render("status_summary.md.j2", facts, None, Form::Markdown)
}

/// A hash of the rows the comment lists by name ([`named_rows`]: user, server, state,
/// deadline), 12 hex digits, for the comment's numbers line (`templates/status_comment.md.j2`,
/// which `crate::status::report::comment_needs_edit` compares): a changed row is an edit.
fn rows_hash(c: &Classification) -> String {
    use sha2::Digest as _;
    let mut hash = sha2::Sha256::new();
    for c in named_rows(c) {
        let fields = [
            &c.server.user,
            &c.server.name,
            state_words(c.state),
            &deadline_words(c),
        ];
        for field in fields {
            hash.update(field.as_bytes());
            hash.update([0]);
        }
    }
    hex::encode(hash.finalize())[..12].to_string()
}

/// The hidden first line of the "Convergence status" comment for `digest`:
/// `<!-- codeq-rollout:convergence digest=sha256:<64 hex> -->` (the shape of
/// [`fn@super::marker`] for [`MarkerKind::ConvergenceComment`]), by which later runs find it:
/// only in a comment by the tracking issue's author (`crate::publish::find::our_comment`).
pub(crate) fn comment_marker(digest: &Digest) -> String {
    super::marker(MarkerKind::ConvergenceComment, digest)
}

/// The "Convergence status" comment for the tracking issue of `digest`: [`comment_marker`],
/// the numbers line, the progress chart's history line ([`history::line`], with
/// [`StatusFacts::history`]), then the same text as the job summary; at most GitHub's
/// [`ISSUE_BODY_LIMIT`] characters.
///
/// # Errors
/// A template that fails to render (a bug, caught by the snapshot tests).
pub(crate) fn comment(facts: &StatusFacts<'_>, digest: &Digest) -> Result<String> {
    let body = render(
        "status_comment.md.j2",
        facts,
        Some(comment_marker(digest)),
        Form::Markdown,
    )?;
    Ok(truncate_body(
        &body,
        ISSUE_BODY_LIMIT,
        "the output of codeq-rollout status",
    ))
}

#[cfg(test)]
pub(crate) mod tests;
