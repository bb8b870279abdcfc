//! The progress line's bar and the progress chart (docs/progress-chart.md), from the counts
//! and the history of earlier runs ([`crate::status::history`]).

use super::StatusFacts;
use crate::status::classify::Totals;
use crate::support::time::utc_minute_up;
use serde::Serialize;
use time::OffsetDateTime;

/// Cells of the progress line's text bar.
pub(crate) const PROGRESS_CELLS: u64 = 20;

/// The progress line's numbers (`templates/status_body.md.j2` says the rest).
#[derive(Serialize)]
pub(super) struct ProgressView {
    /// `█` for each 1/[`PROGRESS_CELLS`] of the servers updated, then `░`: rounded down, so
    /// the bar is never fuller than the share.
    pub(super) bar: String,
    /// Percent updated, rounded down (never 100 before every server is updated).
    pub(super) percent: u64,
}

/// The progress line's numbers for `t`.
pub(super) fn progress(t: &Totals) -> ProgressView {
    let share = |scale: u64| {
        u64::try_from(u128::from(t.updated) * u128::from(scale) / u128::from(t.running.max(1)))
            .unwrap_or(scale)
            .min(scale)
    };
    let filled = usize::try_from(share(PROGRESS_CELLS)).unwrap_or(0);
    let cells = usize::try_from(PROGRESS_CELLS).unwrap_or(20);
    ProgressView {
        bar: "█".repeat(filled) + &"░".repeat(cells - filled),
        percent: share(100),
    }
}

/// The progress chart's data (`templates/status_chart.md.j2`, a Mermaid `xychart-beta`,
/// Mermaid 10.5 or later): one category per point of the history, labelled with its time
/// in UTC: `HH:MM`, or `HH:MM:SS` when two points fall within the same minute (Mermaid
/// merges categories of the same name), each with `MM-DD ` before it when the points span
/// more than one date. Then, when the latest run's deadline (the last point's converged-by;
/// an earlier point's is never used) is after the last point, one more category for it,
/// `due ` and its minute, rounded up. Bars: the stale servers at each point (0 in the
/// deadline's category). Line, with a deadline only: the straight way from the first
/// point's stale servers to none at the deadline, by time.
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
    let [first, .., last] = points else {
        return None;
    };
    // The latest run's deadline only: an earlier point's is what was due then.
    let due = last.due.filter(|d| *d > last.at);
    let times = || points.iter().map(|p| p.at).chain(due);
    let one_date = times().all(|t| t.date() == first.at.date());
    // Mermaid merges categories of the same name: two runs within a minute are told apart by
    // their seconds (the points are whole seconds apart at least).
    let minute = |t: OffsetDateTime| (t.date(), t.hour(), t.minute());
    let seconds = points
        .windows(2)
        .any(|w| minute(w[0].at) == minute(w[1].at));
    let label = |t: OffsetDateTime, seconds: bool| {
        let date = match one_date {
            true => String::new(),
            false => format!("{:02}-{:02} ", u8::from(t.month()), t.day()),
        };
        let second = seconds.then(|| format!(":{:02}", t.second()));
        let (h, m) = (t.hour(), t.minute());
        format!("{date}{h:02}:{m:02}{}", second.unwrap_or_default())
    };
    let mut labels: Vec<String> = points.iter().map(|p| label(p.at, seconds)).collect();
    let mut bars: Vec<u64> = points.iter().map(|p| p.stale).collect();
    let mut line = Vec::new();
    if let Some(due) = due {
        // Rounded up, as every deadline is said.
        let up = due + time::Duration::seconds(59);
        labels.push(format!(
            "due {}",
            label(up.replace_second(0).unwrap_or(up), false)
        ));
        bars.push(0);
        let span = (due - first.at).as_seconds_f64().max(1.0);
        // Counts are at most a million and times within the calendar: exact in an f64.
        #[allow(clippy::cast_precision_loss)]
        let start = first.stale as f64;
        let left = |t: OffsetDateTime| ((due - t).as_seconds_f64() / span).clamp(0.0, 1.0);
        line = times().map(|t| format!("{:.1}", start * left(t))).collect();
    }
    let title = match due {
        Some(d) => format!(
            "Stale servers per run, and the straight way to none by {}",
            utc_minute_up(d)
        ),
        None => "Stale servers per run".to_string(),
    };
    Some(ChartView {
        title,
        labels,
        y_max: bars.iter().copied().max().unwrap_or(0).max(1),
        bars,
        line,
    })
}
