//! Pure: `status` for each reader — the terminal table, the `--json` document, the Actions
//! outputs, the job summary and the "Convergence status" comment on a tracking issue. The
//! summary and the comment open with a progress line and, from a history of two runs or
//! more ([`super::history`]), draw a Mermaid chart of stale servers per run ([`chart`];
//! docs/progress-chart.md); the counts table stays authoritative.
//!
//! User and server names are untrusted (anyone who can sign in picks a user name, and
//! server names are free text). They appear in the terminal table and the JSON document,
//! neutralised by [`crate::support::sanitize`] (one line, no control, ANSI escape or bidirectional
//! characters, workflow commands defused); in the job summary and the comment only when
//! [`StatusFacts::include_names`] is set (issues and summaries may be public), then escaped
//! for Markdown. Times are UTC; the Markdown shows them to the minute, JSON and outputs as
//! RFC 3339.

use super::Pending;
use super::classify::{
    Alarm, Classification, Classified, Evidence, State, Totals, UnknownWhy, rfc3339,
};
use super::history::{self, History, HistoryError, Point};
use super::kube::KubeError;
use crate::digest::Digest;
use crate::render::{Change, ISSUE_BODY_LIMIT, MarkerKind, truncate_body, utc_minute};
use crate::support::sanitize;
use anyhow::{Context, Result};
use minijinja::{Environment, UndefinedBehavior, context};
use serde::Serialize;
use std::sync::OnceLock;
use time::OffsetDateTime;

/// The longest user or server name printed, in characters.
pub(crate) const NAME_MAX_CHARS: usize = 64;

/// The most servers listed by name in the job summary or the comment (with
/// [`StatusFacts::include_names`]); the rest are counted.
pub(crate) const NAMED_ROWS_MAX: usize = 100;

/// Version of the `--json` document's shape: raised when a field changes meaning or goes.
///
/// 3: a stale active server's `deadline` is the time it is stopped if it goes idle (before,
/// its maximum age or `null`); `in_use_deadline` holds its maximum age.
pub(crate) const JSON_VERSION: u32 = 3;

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
    /// Whether the hub's list changed while it was read ([`super::hub::Listing::shifted`]).
    pub shifted: bool,
    /// Whether the job summary and the comment list servers by user and server name.
    pub include_names: bool,
    /// The progress chart's points, this run's included ([`with_this_run`]): from the
    /// convergence comment's hidden history when the release has one (security releases
    /// with `comment`), else `None` (routine releases: no chart, only the progress line).
    pub history: Option<&'a History>,
}

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

/// Why an image is unknown, in a few words.
fn unknown_words(why: UnknownWhy) -> &'static str {
    match why {
        UnknownWhy::NoPod => "no pod found",
        UnknownWhy::NoImageId => "no imageID yet",
        UnknownWhy::BareId => "imageID names no repository",
        UnknownWhy::OtherRepository => "another repository",
        UnknownWhy::Unreadable => "imageID unreadable",
    }
}

/// The digest an old pod runs, shortened as `docker images` shows it.
fn short_digest(digest: &str) -> String {
    let hex = digest.strip_prefix("sha256:").unwrap_or(digest);
    format!("sha256:{}", hex.chars().take(12).collect::<String>())
}

/// The "stopped by" words for one server. An active stale server has two: the deadline it
/// keeps if it goes idle now, and its maximum age while in use, or "never passively while in
/// use" without one.
fn deadline_words(c: &Classified) -> String {
    match (c.state, c.deadline) {
        (State::StaleIdle | State::StaleActive, Some(d)) if c.overdue => {
            format!("{} (overdue)", deadline_minute(d))
        }
        (State::StaleActive, Some(d)) => match c.in_use_deadline {
            Some(u) => format!(
                "{} if it goes idle, {} at the latest (maximum age)",
                deadline_minute(d),
                deadline_minute(u)
            ),
            None => format!(
                "{} if it goes idle, never passively while in use",
                deadline_minute(d)
            ),
        },
        (State::StaleIdle, Some(d)) => deadline_minute(d),
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

/// A name for the terminal: one line, capped, workflow commands defused (stdout is the
/// Actions log); the default server shows as `(default)`.
fn terminal_name(name: &str) -> String {
    if name.is_empty() {
        return "(default)".into();
    }
    sanitize::log_line(name, NAME_MAX_CHARS)
}

/// A deadline to the minute, rounded UP: a "never later than" time must not read earlier
/// than it is (07:12:48 reads 07:13 UTC; [`crate::render::utc_minute_up`]).
fn deadline_minute(t: OffsetDateTime) -> String {
    crate::render::utc_minute_up(t)
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
/// user, server, state, started, last activity, stopped by.
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
    let time_or_dash = |t: Option<OffsetDateTime>| t.map_or_else(|| "-".to_string(), utc_minute);
    let rows: Vec<[String; 6]> = facts
        .classification
        .servers
        .iter()
        .map(|c| {
            [
                terminal_name(&c.server.user),
                terminal_name(&c.server.name),
                state_words(c.state).to_string(),
                time_or_dash(c.server.started),
                time_or_dash(c.server.last_activity),
                deadline_words(c),
            ]
        })
        .collect();
    let mut widths = header.map(width);
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(width(cell));
        }
    }
    let mut out = String::new();
    let mut line = |cells: &[&str]| {
        let mut text = String::new();
        for (i, (cell, w)) in cells.iter().zip(widths).enumerate() {
            if i + 1 == cells.len() {
                text.push_str(cell);
            } else {
                let pad = w - width(cell);
                text.push_str(cell);
                text.push_str(&" ".repeat(pad + 2));
            }
        }
        out.push_str(text.trim_end());
        out.push('\n');
    };
    if !rows.is_empty() {
        line(&header);
        for row in &rows {
            line(&row.each_ref().map(String::as_str));
        }
        out.push('\n');
    }
    out.push_str(&totals_line(&facts.classification.totals));
    out.push('\n');
    out.push_str(&render(
        "status_convergence.j2",
        facts,
        None,
        Form::Terminal,
    )?);
    out.push('\n');
    Ok(out)
}

/// Terminal columns `text` takes (Unicode's East Asian Width and zero-width marks, per
/// `unicode-width`): a wide character takes 2, a combining mark or the word joiner
/// [`crate::support::sanitize`] inserts 0.
fn width(text: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(text)
}

fn totals_line(t: &Totals) -> String {
    let mut line = format!(
        "{} running: {} updated, {} stale idle, {} stale active, {} pending",
        t.running, t.updated, t.stale_idle, t.stale_active, t.pending
    );
    if t.evidence == Evidence::Digest {
        line.push_str(&format!(
            ", {} on the old digest although started after the release, {} image unknown; {} {} the hub does not list",
            t.mismatch,
            t.unknown,
            t.orphans,
            if t.orphans == 1 { "pod" } else { "pods" }
        ));
    }
    line.push('.');
    line
}

/// What `converged` rests on, for outputs and JSON readers: `digest` or `start-time`.
pub(crate) fn evidence_name(evidence: Evidence) -> &'static str {
    match evidence {
        Evidence::Digest => "digest",
        Evidence::StartTime => "start-time",
    }
}

/// The `--json` document (shape version [`JSON_VERSION`]; field names are stable).
#[derive(Debug, Serialize)]
pub(crate) struct JsonReport<'a> {
    /// [`JSON_VERSION`].
    pub version: u32,
    /// The hub's base URL.
    pub hub: String,
    /// The release's image digest, or `null` when measured by `--released-at`.
    pub digest: Option<String>,
    /// When the release went live (RFC 3339, UTC).
    pub released_at: String,
    /// When the hub was read (RFC 3339, UTC).
    pub measured_at: String,
    /// Whether the hub's list changed while it was read.
    pub shifted: bool,
    /// The counts (times as RFC 3339, UTC, or `null`).
    pub totals: Totals,
    /// Every running server, sorted by deadline.
    pub servers: Vec<JsonServer<'a>>,
}

/// One server in [`JsonReport::servers`]: the server as classified, flattened (`user` and
/// `server` exactly as the hub gave them, so that a script can map the row back to the user;
/// `started`, `last_activity`, `ready`, `pending`, `state`, `deadline`, `overdue`: see
/// [`Classified`] and [`crate::status::Server`]), and the names for reading.
#[derive(Debug, Serialize)]
pub(crate) struct JsonServer<'a> {
    /// The server, its state and deadline (untrusted names: JSON-escaped, see [`json`]).
    #[serde(flatten)]
    pub classified: &'a Classified,
    /// The user's name for reading, neutralised as for the log ([`sanitize::log_line`]: one
    /// line, no control or invisible characters, at most [`NAME_MAX_CHARS`], and a word
    /// joiner after any `##` before `[`): may differ from the hub's.
    pub user_display: String,
    /// The server's name for reading, neutralised likewise; `""` for the default server.
    pub server_display: String,
}

/// The `--json` document for `facts`.
pub(crate) fn json_report<'a>(facts: &StatusFacts<'a>) -> JsonReport<'a> {
    let t = &facts.classification.totals;
    JsonReport {
        version: JSON_VERSION,
        hub: facts.hub_url.to_string(),
        digest: facts.digest.map(std::string::ToString::to_string),
        released_at: rfc3339(facts.released_at),
        measured_at: rfc3339(facts.now),
        shifted: facts.shifted,
        totals: *t,
        servers: facts
            .classification
            .servers
            .iter()
            .map(|c| JsonServer {
                classified: c,
                user_display: sanitize::log_line(&c.server.user, NAME_MAX_CHARS),
                server_display: sanitize::log_line(&c.server.name, NAME_MAX_CHARS),
            })
            .collect(),
    }
}

/// The `--json` text: [`json_report`], pretty-printed, with a final newline, and printable
/// as it is to a terminal and to the Actions log although the raw names are untrusted: on
/// top of serde's escapes (quotes, backslashes, C0 controls), every `#`, C1 control, line
/// or paragraph separator and invisible character ([`sanitize::is_invisible`]: bidirectional
/// controls, format characters) is written as a `\uXXXX` escape. A JSON parser reads the
/// exact names back; the log shows no legacy `##[command]` (which the runner reads anywhere
/// in a line), and no text reordered or hidden. A line never starts with `::` (each starts
/// with indentation and a key or a bracket).
pub(crate) fn json(facts: &StatusFacts<'_>) -> String {
    let text = serde_json::to_string_pretty(&json_report(facts))
        .expect("the report serialises (strings, numbers and booleans only)");
    let mut out = String::with_capacity(text.len() + 1);
    for c in text.chars() {
        let escape = c == '#'
            || (c.is_control() && c != '\n')
            || matches!(c, '\u{2028}' | '\u{2029}')
            || sanitize::is_invisible(c);
        if escape {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        } else {
            out.push(c);
        }
    }
    out.push('\n');
    out
}

fn environment() -> &'static Environment<'static> {
    static ENV: OnceLock<Environment<'static>> = OnceLock::new();
    ENV.get_or_init(|| {
        let mut env = Environment::new();
        env.set_undefined_behavior(UndefinedBehavior::Strict);
        env.set_keep_trailing_newline(true);
        for (name, source) in [
            (
                "status_body.md.j2",
                include_str!("../../templates/status_body.md.j2"),
            ),
            (
                "status_summary.md.j2",
                include_str!("../../templates/status_summary.md.j2"),
            ),
            (
                "status_comment.md.j2",
                include_str!("../../templates/status_comment.md.j2"),
            ),
            (
                "status_convergence.j2",
                include_str!("../../templates/status_convergence.j2"),
            ),
            (
                "status_chart.md.j2",
                include_str!("../../templates/status_chart.md.j2"),
            ),
            (
                "status_comment_note.md.j2",
                include_str!("../../templates/status_comment_note.md.j2"),
            ),
        ] {
            env.add_template(name, source)
                .expect("built-in templates parse (checked by tests)");
        }
        env
    })
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

/// Cells of the progress line's text bar.
pub(crate) const PROGRESS_CELLS: u64 = 20;

/// The progress line's numbers (`templates/status_body.md.j2` says the rest).
#[derive(Serialize)]
struct ProgressView {
    /// `█` for each 1/[`PROGRESS_CELLS`] of the servers updated, then `░`: rounded down, so
    /// the bar is never fuller than the share.
    bar: String,
    /// Percent updated, rounded down (never 100 before every server is updated).
    percent: u64,
}

fn progress(t: &Totals) -> ProgressView {
    let share = |scale: u64| {
        u64::try_from(u128::from(t.updated) * u128::from(scale) / u128::from(t.running.max(1)))
            .unwrap_or(scale)
            .min(scale)
    };
    let filled = share(PROGRESS_CELLS);
    let filled_len = usize::try_from(filled).unwrap_or(0);
    let cells = usize::try_from(PROGRESS_CELLS).unwrap_or(20);
    ProgressView {
        bar: "█".repeat(filled_len) + &"░".repeat(cells - filled_len),
        percent: share(100),
    }
}

/// The progress chart's data (`templates/status_chart.md.j2`, a Mermaid `xychart-beta`,
/// Mermaid 10.5 or later): one category per point of the history, labelled with its time
/// (UTC, `HH:MM`, or `MM-DD HH:MM` when the points span more than one date; with the
/// seconds when two points fall within the same minute, since Mermaid merges categories of
/// the same name), then, when the
/// latest run's deadline (the last point's converged-by; an earlier point's is never used) is
/// after the last point, one more category for it (`due HH:MM`). Bars: the stale servers at
/// each point (0 in the deadline's category). Line, with a deadline only: the straight way
/// from the first point's stale servers to none at the deadline, by time.
#[derive(Debug, Serialize, PartialEq)]
pub struct ChartView {
    /// The chart's title.
    pub title: String,
    /// The categories' labels (digits, `:`, `-`, a space and `due`: never quoted text).
    pub labels: Vec<String>,
    /// Stale servers per category.
    pub bars: Vec<u64>,
    /// The straight way to the deadline per category, to a tenth; empty without a deadline.
    pub line: Vec<String>,
    /// The y-axis' top: the largest value drawn, at least 1.
    pub y_max: u64,
}

/// The chart for `facts`, when its history has at least two points (one point says no more
/// than the progress line).
pub fn chart(facts: &StatusFacts<'_>) -> Option<ChartView> {
    let points = facts.history?.points();
    let (first, last) = (points.first()?, points.last()?);
    if points.len() < 2 {
        return None;
    }
    // The latest run's deadline only: an earlier point's is what was due then.
    let due = last.due.filter(|d| *d > last.at);
    let one_date = due
        .iter()
        .copied()
        .chain(points.iter().map(|p| p.at))
        .all(|t| t.date() == first.at.date());
    let label = |t: OffsetDateTime, seconds: bool| {
        let (h, m) = (t.hour(), t.minute());
        let time = match seconds {
            true => format!("{h:02}:{m:02}:{:02}", t.second()),
            false => format!("{h:02}:{m:02}"),
        };
        match one_date {
            true => time,
            false => format!("{:02}-{:02} {time}", u8::from(t.month()), t.day()),
        }
    };
    // Mermaid merges categories of the same name: two runs within a minute are told apart by
    // their seconds (the points are whole seconds apart at least).
    let mut labels: Vec<String> = points.iter().map(|p| label(p.at, false)).collect();
    if labels.windows(2).any(|w| w[0] == w[1]) {
        labels = points.iter().map(|p| label(p.at, true)).collect();
    }
    let mut bars: Vec<u64> = points.iter().map(|p| p.stale).collect();
    let mut line = Vec::new();
    let mut top = bars.iter().copied().max().unwrap_or(0);
    if let Some(due) = due {
        // Rounded up, as every deadline is said.
        let due_up = due + time::Duration::seconds(59);
        labels.push(format!(
            "due {}",
            label(due_up.replace_second(0).unwrap_or(due_up), false)
        ));
        bars.push(0);
        let span = (due - first.at).as_seconds_f64().max(1.0);
        // Counts are at most a million and times within the calendar: exact in an f64.
        #[allow(clippy::cast_precision_loss)]
        let start = first.stale as f64;
        line = points
            .iter()
            .map(|p| p.at)
            .chain([due])
            .map(|t| {
                let left = ((due - t).as_seconds_f64() / span).clamp(0.0, 1.0);
                format!("{:.1}", start * left)
            })
            .collect();
        top = top.max(first.stale);
    }
    let title = match due {
        Some(d) => format!(
            "Stale servers per run, and the straight way to none by {}",
            deadline_minute(d)
        ),
        None => "Stale servers per run".to_string(),
    };
    Some(ChartView {
        title,
        labels,
        bars,
        line,
        y_max: top.max(1),
    })
}

/// The history to draw and keep after this run: `earlier` (what the comment held, `None`
/// for none, or refused) with this run's point added ([`History::push`]: only when its
/// numbers changed).
pub fn with_this_run(earlier: Option<History>, totals: &Totals, now: OffsetDateTime) -> History {
    let mut h = earlier.unwrap_or_default();
    h.push(Point {
        at: now,
        stale: totals.stale,
        running: totals.running,
        due: totals.converged_by,
    });
    h
}

/// The warning's words when the comment's history line is refused: which rule it broke;
/// the chart starts again from this run, the table is unaffected.
pub(crate) fn history_refused(e: &HistoryError) -> String {
    let why = match e {
        HistoryError::Repeated => "it appears more than once".to_string(),
        HistoryError::TooLong(n) => format!(
            "it is {n} bytes long, more than the {} allowed",
            history::LINE_MAX_BYTES
        ),
        HistoryError::TooManyPoints => {
            format!("it holds more than {} points", history::MAX_POINTS)
        }
        HistoryError::Malformed(0) => "it is not in the shape status writes".to_string(),
        HistoryError::Malformed(i) => format!("point {i} is not time/stale/running/due in digits"),
        HistoryError::OutOfOrder(i) => format!(
            "point {i} is before the release, after this run, or not after the point before it"
        ),
        HistoryError::FarDeadline(i) => {
            format!("point {i} states a deadline more than twenty years after it")
        }
        HistoryError::BadCount(i) => format!(
            "point {i} counts more stale servers than running, or more than {}",
            crate::window::MAX_HUB_SERVERS
        ),
    };
    format!(
        "the progress chart's history in the convergence comment was ignored ({why}; it may have been edited by hand): the chart starts again from this run, the counts are unaffected"
    )
}

fn render(
    template: &str,
    facts: &StatusFacts<'_>,
    marker: Option<String>,
    form: Form,
) -> Result<String> {
    let t = &facts.classification.totals;
    let rows = facts.include_names.then(|| {
        facts
            .classification
            .servers
            .iter()
            .filter(|c| c.state != State::Updated)
            .take(NAMED_ROWS_MAX)
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
    let active = Active::of(facts);
    let ctx = context! {
        marker => marker,
        b => if form == Form::Markdown { "**" } else { "" },
        numbers => numbers_line(facts),
        digest => facts.digest.map(Digest::as_str),
        hub => facts.hub_url,
        released_at => utc_minute(facts.released_at),
        now => utc_minute(facts.now),
        t => context! {
            running => t.running,
            updated => t.updated,
            stale_idle => t.stale_idle,
            stale_active => t.stale_active,
            pending => t.pending,
            pending_stale => t.pending_stale,
            overdue => t.overdue,
            converged => t.converged,
            mismatch => t.mismatch,
            orphans => t.orphans,
            unknown => t.unknown,
            by_digest => t.evidence == Evidence::Digest,
        },
        converged_by => t.converged_by.map(deadline_minute),
        all_stale_by => t.all_stale_by.map(deadline_minute),
        // Passed already (as [`Classified::overdue`]): said as overdue, not as to come.
        converged_by_overdue => t.converged_by.is_some_and(|at| at < facts.now),
        all_stale_by_overdue => t.all_stale_by.is_some_and(|at| at < facts.now),
        active_if_idle_by => active.if_idle_by.map(deadline_minute),
        active_in_use_by => active.in_use_by.map(deadline_minute),
        active_in_use_overdue => active.in_use_by.is_some_and(|at| at < facts.now),
        shifted => facts.shifted,
        progress => progress(t),
        chart => chart(facts),
        history => facts.history.map(history::line),
        rows => rows,
        more => if facts.include_names { more } else { 0 },
    };
    environment()
        .get_template(template)
        .and_then(|tpl| tpl.render(ctx))
        .with_context(|| format!("rendering {template}"))
}

/// When the stale active servers will be gone: the latest of their deadlines if they go idle
/// now, and of their maximum ages while in use; each `None` when there is none or one of
/// them has none.
struct Active {
    if_idle_by: Option<OffsetDateTime>,
    in_use_by: Option<OffsetDateTime>,
}

impl Active {
    fn of(facts: &StatusFacts<'_>) -> Self {
        let active = || {
            facts
                .classification
                .servers
                .iter()
                .filter(|c| c.state == State::StaleActive)
        };
        // The latest, or `None` when any is `None` (or there is none).
        let latest = |times: Vec<Option<OffsetDateTime>>| {
            times
                .into_iter()
                .try_fold(None, |acc: Option<OffsetDateTime>, t| {
                    t.map(|t| Some(acc.map_or(t, |a| a.max(t))))
                })?
        };
        Self {
            if_idle_by: latest(active().map(|c| c.deadline).collect()),
            in_use_by: latest(active().map(|c| c.in_use_deadline).collect()),
        }
    }
}

/// The job summary (Markdown): the counts and when convergence is due; with
/// [`StatusFacts::include_names`], also the servers not yet updated by user and server name
/// (at most [`NAMED_ROWS_MAX`], the rest counted).
///
/// # Errors
/// A template that fails to render (a bug, caught by the snapshot tests).
pub fn job_summary(facts: &StatusFacts<'_>) -> Result<String> {
    render("status_summary.md.j2", facts, None, Form::Markdown)
}

/// The hidden first line of the "Convergence status" comment for `digest`:
/// `<!-- codeq-rollout:convergence digest=sha256:<64 hex> -->` (the shape of
/// [`crate::render::marker`] for [`MarkerKind::ConvergenceComment`]), by which later runs
/// find it: only in a comment by the tracking issue's author ([`crate::publish::our_comment`]).
pub(crate) fn comment_marker(digest: &Digest) -> String {
    crate::render::marker(MarkerKind::ConvergenceComment, digest)
}

/// Whether `body` carries the "Convergence status" marker for `digest` (its first line is
/// [`comment_marker`]); says nothing of who wrote it ([`crate::publish::our_comment`] does).
#[cfg(test)]
pub(crate) fn is_status_comment(body: &str, digest: &Digest) -> bool {
    crate::render::marker_digest(MarkerKind::ConvergenceComment, body).as_ref() == Some(digest)
}

/// The hidden second line of the comment: every number the comment shows, e.g.
/// `<!-- codeq-rollout:convergence-numbers running=5 updated=1 stale-idle=2 stale-active=1
/// pending=1 pending-stale=0 overdue=0 converged=false converged-by=2026-11-30T13:00:00Z
/// all-stale-by=- -->`, plus `servers=<12 hex>` (a hash of the listed rows) when names are
/// shown. [`comment_needs_edit`] compares it.
fn numbers_line(facts: &StatusFacts<'_>) -> String {
    let t = &facts.classification.totals;
    let time = |x: Option<OffsetDateTime>| x.map_or_else(|| "-".to_string(), rfc3339);
    let mut line = format!(
        "<!-- codeq-rollout:convergence-numbers running={} updated={} stale-idle={} stale-active={} pending={} pending-stale={} overdue={} converged={} converged-by={} all-stale-by={} evidence={} mismatch={} orphans={} unknown={}",
        t.running,
        t.updated,
        t.stale_idle,
        t.stale_active,
        t.pending,
        t.pending_stale,
        t.overdue,
        t.converged,
        time(t.converged_by),
        time(t.all_stale_by),
        evidence_name(t.evidence),
        t.mismatch,
        t.orphans,
        t.unknown,
    );
    if facts.include_names {
        use sha2::Digest as _;
        let mut hash = sha2::Sha256::new();
        for c in facts
            .classification
            .servers
            .iter()
            .filter(|c| c.state != State::Updated)
            .take(NAMED_ROWS_MAX)
        {
            for field in [
                c.server.user.as_str(),
                c.server.name.as_str(),
                state_words(c.state),
                &deadline_words(c),
            ] {
                hash.update(field.as_bytes());
                hash.update([0]);
            }
        }
        line.push_str(&format!(" servers={}", &hex::encode(hash.finalize())[..12]));
    }
    line.push_str(" -->");
    line
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

/// What became of the "Convergence status" comment in a run with `comment: true`: the
/// decision as data, for the job summary's line ([`comment_note`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CommentOutcome {
    /// No open tracking issue for the digest (a routine release, or its issue closed):
    /// nothing written.
    NoOpenIssue,
    /// `change` was made, or with `dry_run` would be made, to the comment at `url` (the
    /// tracking issue's address for a comment not yet posted), as GitHub answered it.
    Decided {
        /// Posted, edited or left unchanged.
        change: Change,
        /// The comment's address (the issue's for a dry run's post).
        url: String,
        /// Nothing was written: what would be done.
        dry_run: bool,
    },
}

/// The job summary's line saying what became of the convergence comment (posted, edited,
/// left unchanged, or none without an open tracking issue; in a dry run, what would be
/// done), linking the comment when its address is a plain URL
/// ([`sanitize::link_url`]); `templates/status_comment_note.md.j2`. Starts with a blank
/// line, to follow the summary.
///
/// # Errors
/// A template that fails to render (a bug, caught by the snapshot tests).
pub(crate) fn comment_note(outcome: &CommentOutcome) -> Result<String> {
    let (what, url, dry_run) = match outcome {
        CommentOutcome::NoOpenIssue => ("no-open-issue", None, false),
        CommentOutcome::Decided {
            change,
            url,
            dry_run,
        } => {
            let what = match change {
                Change::Created => "create",
                Change::Updated => "edit",
                Change::Unchanged => "unchanged",
            };
            (what, sanitize::link_url(url), *dry_run)
        }
    };
    let template = "status_comment_note.md.j2";
    environment()
        .get_template(template)
        .and_then(|tpl| tpl.render(context! { what, url, dry_run }))
        .with_context(|| format!("rendering {template}"))
}

/// The error when the worst case at the hub's size read at run time (`scale`: the servers
/// running, or `hub-size` when larger) puts a deadline, `longest` seconds after `now`, past
/// [`crate::window::LAST_DATE`]: no deadline could be stated
/// ([`crate::window::fits_calendar`]). `now_given`: the clock came from `--now` (a hidden
/// option), which is then named among what to check.
pub(crate) fn beyond_calendar(
    now: OffsetDateTime,
    now_given: bool,
    scale: &crate::window::HubScale,
    longest: u64,
) -> String {
    let (clock, check_now) = match now_given {
        true => ("now (--now)", "now (--now), "),
        false => ("this run's clock", ""),
    };
    format!(
        "the worst case of a cull pass on a hub of {} (those running now, or hub-size when larger; slow-stop timeout {}) puts the convergence deadline up to {} after {clock} {}, past {}, the last date a deadline can be written for: check {check_now}hub-size, slow-stop-timeout and the idle culler settings",
        crate::render::window_words::servers_words(scale.servers),
        crate::render::window_words::human(scale.slow_stop_timeout_secs),
        crate::render::window_words::human_at_most(longest),
        rfc3339(now),
        crate::window::LAST_DATE,
    )
}

/// The debug line once the hub is read: how many servers of how many users, in how many
/// requests.
pub(crate) fn hub_read(servers: usize, users: u64, requests: u32) -> String {
    format!("status: {servers} servers of {users} users in {requests} requests")
}

/// Whether the existing comment `existing` must be edited to become `new` (both bodies of
/// [`comment`]): only when the numbers differ (running, updated, stale, pending, overdue,
/// converged, the deadlines, and the listed servers when names are shown), or the progress
/// chart's history line (which gains a point only when the numbers change, or is written
/// afresh when the one there was refused). The time of measurement alone never causes an
/// edit. A body without the numbers line (edited by
/// hand, or from another version) is edited.
pub(crate) fn comment_needs_edit(existing: &str, new: &str) -> bool {
    fn line<'b>(body: &'b str, prefix: &str) -> Option<&'b str> {
        body.lines().map(str::trim).find(|l| l.starts_with(prefix))
    }
    let numbers = |body| line(body, "<!-- codeq-rollout:convergence-numbers ");
    let history = |body| line(body, "<!-- codeq-rollout:convergence-history");
    match (numbers(existing), numbers(new)) {
        (Some(a), Some(b)) => a != b || history(existing) != history(new),
        _ => true,
    }
}

mod hub_words;
mod kube_words;

#[cfg(test)]
mod tests;

/// The error annotation for one server that started after the release but runs the old
/// digest: title and message naming the server, the digest it runs and what to check.
///
/// `c` is the server as the log's table shows it: with `names` (include-names, or outside
/// Actions) the hub's names and the pod's; without, [`without_names`]' `user N` alias and no
/// pod name (KubeSpawner's `jupyter-<user>` embeds the user's name), with where to look the
/// pod up: `kubectl get pods` in `query`'s namespace with its selector, or include-names.
pub(crate) fn mismatch_annotation(
    c: &Classified,
    names: bool,
    query: Option<&super::kube::PodQuery>,
) -> (String, String) {
    let digest = c
        .pod
        .as_ref()
        .and_then(|p| p.digest.clone())
        .unwrap_or_default();
    let who = if names {
        let pod = c
            .pod
            .as_ref()
            .and_then(|p| p.pod.as_ref())
            .map_or_else(|| "?".to_string(), |p| sanitize::log_line(&p.name, 253));
        format!(
            "pod {pod} (user {}, server {})",
            terminal_name(&c.server.user),
            terminal_name(&c.server.name),
        )
    } else {
        let server = if c.server.name.is_empty() {
            "default server".to_string()
        } else {
            terminal_name(&c.server.name)
        };
        format!("{} ({server})", terminal_name(&c.server.user))
    };
    let look_up = match (names, query) {
        (true, _) => String::new(),
        (false, Some(q)) => format!(
            " (names are left out of the log: run status with include-names: true, or kubectl get pods -n {} -l {} in a terminal, to see which user and pod)",
            q.namespace,
            q.selector()
        ),
        (false, None) => " (names are left out of the log: run status with include-names: true to see which user and pod)".to_string(),
    };
    (
        "Server on the old image".to_string(),
        format!(
            "{who} started after the release but runs {digest}{look_up}: the node did not pull the new image. Check singleuser.image.pullPolicy (Always for a tag such as :latest), the KubeSpawner version (before 6.2 it set IfNotPresent), and any registry mirror between the nodes and the registry; then stop the server so it starts again on the new image",
        ),
    )
}

/// The error annotation of a run that fails on `alarms` (`fail-on`).
pub(crate) fn alarm_annotation(alarms: &[Alarm], t: &Totals) -> (String, String) {
    let words: Vec<String> = alarms
        .iter()
        .map(|a| match a {
            Alarm::Mismatch => format!(
                "{} server(s) started after the release run the old digest (mismatch)",
                t.mismatch
            ),
            Alarm::Overdue => format!(
                "{} stale server(s) are past the deadline the release note promised (overdue)",
                t.overdue
            ),
            Alarm::Orphan => format!(
                "{} single-user pod(s) run that the hub does not list (orphan)",
                t.orphans
            ),
        })
        .collect();
    (
        "Convergence alarm".to_string(),
        format!(
            "{}; the run fails because fail-on lists {}. See the table above",
            words.join("; "),
            alarms
                .iter()
                .map(|a| match a {
                    Alarm::Mismatch => "mismatch",
                    Alarm::Overdue => "overdue",
                    Alarm::Orphan => "orphan",
                })
                .collect::<Vec<_>>()
                .join(", ")
        ),
    )
}

/// The debug line after the pods were read.
pub(crate) fn kube_read(pods: usize, requests: u32, restarted: bool) -> String {
    format!(
        "Kubernetes: {pods} single-user pod(s) in {requests} request(s){}",
        if restarted {
            " (the listing restarted once after 410 Gone)"
        } else {
            ""
        }
    )
}

/// The warning of a kubeconfig whose API server is plain `http://` outside loopback, private
/// networks and the cluster ([`crate::support::url::sends_token_in_the_clear`]): the user's
/// token or password crosses the network unencrypted, as for `hub-url` and `api-url`.
pub(crate) fn kube_plain_http(server: &str) -> crate::render::messages::RunWarning<'_> {
    crate::render::messages::RunWarning::PlainHttp {
        input: "kubeconfig",
        url: server,
        token: "its user's token or password",
    }
}

/// A failed Kubernetes read in words: what failed, then what to do.
pub(crate) fn kube_error(e: &KubeError, namespace: &str) -> String {
    let help = match e {
        KubeError::ExecPlugin { .. } => format!(
            "the image has no credential plugins (gke-gcloud-auth-plugin, aws eks get-token, kubelogin). Give a kubeconfig whose user holds a ServiceAccount token instead:\n\n{}",
            service_account_kubeconfig(namespace)
        ),
        KubeError::Kubeconfig { source_name, .. }
            if source_name != crate::status::kube::KUBECONFIG_INPUT =>
        {
            format!(
                "check that {source_name} is a readable kubeconfig file (KUBECONFIG names a file, not a directory), or pass the file's content in the kubeconfig input"
            )
        }
        KubeError::Kubeconfig { .. } => format!(
            "give the kubeconfig file's whole content (YAML with clusters, users, contexts and current-context), e.g.:\n\n{}",
            service_account_kubeconfig(namespace)
        ),
        KubeError::NoCredentials { .. } => "set kubeconfig (the Action input, a secret holding the file's content), KUBECONFIG, or run in the cluster with a service account; or leave kubernetes off to judge by start time".to_string(),
        KubeError::Unauthorized { .. } => "the token is expired, revoked or not the cluster's: create a new ServiceAccount token Secret (docs/status-kubernetes.md) and update the kubeconfig secret".to_string(),
        KubeError::Forbidden { namespace, .. } => format!(
            "grant the verb list on the resource pods in the namespace {namespace}: create this Role and RoleBinding (docs/status-kubernetes.md):\n\n{}",
            role_snippet(namespace)
        ),
        KubeError::Expired { .. } => "the pods changed too fast to list; run status again".to_string(),
        KubeError::Status { .. } => "check the API server's message; run status again".to_string(),
        KubeError::TimedOut { .. } => "check that this runner can reach the API server (the kubeconfig's server address), or raise kube-timeout for a slow one".to_string(),
        KubeError::Unreachable { .. } => "check the kubeconfig's server address and CA, and that this runner can reach the API server".to_string(),
        KubeError::NotAPodList { .. } => format!("check that the kubeconfig's server is the cluster's API server itself, not a proxy, dashboard or load balancer page; `kubectl get pods -n {namespace} -o json` with the same kubeconfig shows what it answers"),
        KubeError::EndlessList { .. } => format!("the API server, or a proxy in front of it, pages wrongly; `kubectl get pods -n {namespace} --chunk-size 500` with the same kubeconfig shows whether the listing ends"),
    };
    // Its own sentence: capitalised after the error's full stop.
    let mut chars = help.chars();
    let help = chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    });
    format!("{e}. {help}")
}

/// The smallest RBAC `status` needs: list pods in `namespace`.
pub(crate) fn role_snippet(namespace: &str) -> String {
    format!(
        "apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: codeq-rollout-status
  namespace: {namespace}
rules:
  - apiGroups: [\"\"]
    resources: [pods]
    verbs: [list]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: codeq-rollout-status
  namespace: {namespace}
subjects:
  - kind: ServiceAccount
    name: codeq-rollout-status
    namespace: {namespace}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: codeq-rollout-status"
    )
}

/// The ServiceAccount-token kubeconfig to use instead of a plugin.
pub(crate) fn service_account_kubeconfig(namespace: &str) -> String {
    format!(
        "apiVersion: v1
kind: Config
clusters:
  - name: hub
    cluster:
      server: https://API-SERVER:6443
      certificate-authority-data: BASE64-CA
users:
  - name: codeq-rollout-status
    user:
      token: TOKEN   # kubectl -n {namespace} get secret codeq-rollout-status -o jsonpath='{{.data.token}}' | base64 -d
contexts:
  - name: hub
    context: {{cluster: hub, user: codeq-rollout-status, namespace: {namespace}}}
current-context: hub"
    )
}
