//! Pure: the history of earlier `status` runs that the progress chart is drawn from, kept in
//! the hidden state of the tracking issue's "Convergence status" comment (its third line,
//! [`fn@line`]), so that nothing but the comment `status` already writes holds it.
//!
//! The line is untrusted input: anyone who can edit the comment can write it. [`parse`]
//! reads it strictly and bounded (at most [`LINE_MAX_BYTES`] bytes, at most [`MAX_POINTS`]
//! points, digits only, times in order from the release to before this run, deadlines at
//! most [`DUE_MAX_SECS`] after their point, counts within [`crate::window::MAX_HUB_SERVERS`]) and refuses the whole line otherwise
//! ([`HistoryError`]); the caller then warns and starts the history again from this run. It
//! never panics (property-tested). Only numbers come out of it, so nothing of it reaches the
//! chart's text but digits.
//!
//! A point is added only when its numbers differ from the last point's ([`History::push`]),
//! so a run that measures the same as the last one leaves the comment unchanged, as before.
//! Past [`MAX_POINTS`], the middle point whose neighbours are closest in time is dropped
//! (the first and the last are kept), so old stretches thin out while the curve's start and
//! its latest shape stay.

use super::classify::Totals;
use crate::window::MAX_HUB_SERVERS;
use time::OffsetDateTime;

/// The first words of the history line.
pub(crate) const PREFIX: &str = "<!-- codeq-rollout:convergence-history v1";

/// The most points kept (48: a day of half-hourly runs that each changed something).
pub(crate) const MAX_POINTS: usize = 48;

/// The latest deadline a point may state, seconds after the point: twice the longest culler
/// duration ([`crate::window::MAX_DURATION_SECS`], ten years), room for an idle timeout and
/// a cull pass; a later one is refused as forged ([`HistoryError::FarDeadline`]).
pub(crate) const DUE_MAX_SECS: i64 = 2 * 10 * 365 * 86_400;

/// The longest history line, bytes: [`MAX_POINTS`] points of at most 37 bytes each (a
/// space, a 10-digit time, two 7-digit counts and a 10-digit deadline, three slashes), with
/// the 41-byte prefix and the closing ` -->`: 1,821 bytes; longer lines are refused unread.
pub(crate) const LINE_MAX_BYTES: usize = 1_900;

/// One run's numbers, as the chart needs them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Point {
    /// When the hub was read (UTC, whole seconds).
    pub at: OffsetDateTime,
    /// Stale servers, idle and active (`super::classify::Totals::stale`).
    pub stale: u64,
    /// Servers running (`super::classify::Totals::running`).
    pub running: u64,
    /// The run's converged-by (`super::classify::Totals::converged_by`, whole seconds).
    pub due: Option<OffsetDateTime>,
}

/// The points, oldest first, strictly increasing in time, at most `MAX_POINTS`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct History {
    points: Vec<Point>,
}

/// Why a history line was refused (the whole line: no point of it is used).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HistoryError {
    /// More than one history line in the comment.
    Repeated,
    /// Longer than [`LINE_MAX_BYTES`] (the length, bytes).
    TooLong(usize),
    /// More than [`MAX_POINTS`] points.
    TooManyPoints,
    /// Not `PREFIX point… -->`, or a point not `time/stale/running/due` in digits (`due`
    /// may be `-`): the 1-based index of the point, 0 for the line itself.
    Malformed(usize),
    /// A point before the release or not before this run, or not after the point before it.
    OutOfOrder(usize),
    /// A point whose deadline is more than [`DUE_MAX_SECS`] after it.
    FarDeadline(usize),
    /// A count above [`MAX_HUB_SERVERS`], or more stale servers than running.
    BadCount(usize),
}

impl History {
    /// The points, oldest first.
    pub fn points(&self) -> &[Point] {
        &self.points
    }

    /// Adds `point` (the current run's) unless its numbers equal the last point's (then
    /// the history, and so the comment, stay as they are) or it is not later than the last
    /// point; then thins to `MAX_POINTS` (see the module documentation).
    pub fn push(&mut self, point: Point) {
        let point = Point {
            at: whole_seconds(point.at),
            due: point.due.map(whole_seconds),
            ..point
        };
        if let Some(last) = self.points.last() {
            let same =
                (last.stale, last.running, last.due) == (point.stale, point.running, point.due);
            if same || point.at <= last.at {
                return;
            }
        }
        self.points.push(point);
        while self.points.len() > MAX_POINTS {
            let drop = (1..self.points.len() - 1)
                .min_by_key(|&i| self.points[i + 1].at - self.points[i - 1].at)
                .expect("more than two points");
            self.points.remove(drop);
        }
    }
}

/// The history to draw and keep after a run at `now` that counted `totals`: `earlier` (what
/// the convergence comment held; `None` for none, or refused) with the run's point added
/// ([`History::push`]: only when its numbers changed).
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

fn whole_seconds(t: OffsetDateTime) -> OffsetDateTime {
    t.replace_nanosecond(0).unwrap_or(t)
}

/// The history line for `history`, e.g. `<!-- codeq-rollout:convergence-history v1
/// 1764504000/57/57/1764513000 1764505800/40/57/- -->` (Unix seconds; `-` for no deadline).
pub(crate) fn line(history: &History) -> String {
    let mut out = String::from(PREFIX);
    for p in &history.points {
        let due = p
            .due
            .map_or_else(|| "-".to_string(), |d| d.unix_timestamp().to_string());
        out.push_str(&format!(
            " {}/{}/{}/{due}",
            p.at.unix_timestamp(),
            p.stale,
            p.running
        ));
    }
    out.push_str(" -->");
    out
}

/// The history in `body` (a comment's text): `Ok(None)` when it holds no history line (a
/// comment from an earlier version, or none yet); the points when its one history line is
/// well-formed, every point from `released_at` to before `now` (whole seconds: this run's
/// point is always the latest) and after the one before it, every deadline at most
/// `DUE_MAX_SECS` after its point; otherwise the `HistoryError`.
pub fn parse(
    body: &str,
    released_at: OffsetDateTime,
    now: OffsetDateTime,
) -> Result<Option<History>, HistoryError> {
    let mut lines = body
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("<!-- codeq-rollout:convergence-history"));
    let Some(text) = lines.next() else {
        return Ok(None);
    };
    if lines.next().is_some() {
        return Err(HistoryError::Repeated);
    }
    if text.len() > LINE_MAX_BYTES {
        return Err(HistoryError::TooLong(text.len()));
    }
    let inner = text
        .strip_prefix(PREFIX)
        .and_then(|rest| rest.strip_suffix(" -->"))
        .ok_or(HistoryError::Malformed(0))?;
    if !inner.is_empty() && !inner.starts_with(' ') {
        return Err(HistoryError::Malformed(0));
    }
    if inner.split(' ').count() - 1 > MAX_POINTS {
        return Err(HistoryError::TooManyPoints);
    }
    let mut points: Vec<Point> = Vec::new();
    for (i, token) in inner.split(' ').skip(1).enumerate() {
        let index = i + 1;
        let fields: Vec<&str> = token.split('/').collect();
        let [at, stale, running, due] = fields[..] else {
            return Err(HistoryError::Malformed(index));
        };
        let time = |s: &str| {
            digits(s, 10)
                .and_then(|n| i64::try_from(n).ok())
                .and_then(|n| OffsetDateTime::from_unix_timestamp(n).ok())
                .ok_or(HistoryError::Malformed(index))
        };
        let count = |s: &str| digits(s, 7).ok_or(HistoryError::Malformed(index));
        let point = Point {
            at: time(at)?,
            stale: count(stale)?,
            running: count(running)?,
            due: match due {
                "-" => None,
                d => Some(time(d)?),
            },
        };
        if point.running > MAX_HUB_SERVERS || point.stale > point.running {
            return Err(HistoryError::BadCount(index));
        }
        let after_last = points.last().is_none_or(|last| point.at > last.at);
        if point.at < whole_seconds(released_at) || point.at >= whole_seconds(now) || !after_last {
            return Err(HistoryError::OutOfOrder(index));
        }
        if point
            .due
            .is_some_and(|due| due > point.at + time::Duration::seconds(DUE_MAX_SECS))
        {
            return Err(HistoryError::FarDeadline(index));
        }
        points.push(point);
    }
    Ok(Some(History { points }))
}

/// `s` as a number when it is 1 to `max_len` ASCII digits.
fn digits(s: &str, max_len: usize) -> Option<u64> {
    (!s.is_empty() && s.len() <= max_len && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use time::macros::datetime;

    const RELEASE: OffsetDateTime = datetime!(2026-11-30 12:00 UTC);
    const NOW: OffsetDateTime = datetime!(2026-11-30 18:00 UTC);

    fn point(minutes: i64, stale: u64) -> Point {
        Point {
            at: RELEASE + time::Duration::minutes(minutes),
            stale,
            running: 57,
            due: Some(datetime!(2026-11-30 14:30 UTC)),
        }
    }

    #[test]
    fn a_history_reads_back_as_written() {
        let mut h = History::default();
        for (m, s) in [(0, 57), (30, 40), (60, 16)] {
            h.push(point(m, s));
        }
        let text = line(&h);
        assert_eq!(
            text,
            "<!-- codeq-rollout:convergence-history v1 1796040000/57/57/1796049000 1796041800/40/57/1796049000 1796043600/16/57/1796049000 -->"
        );
        let body = format!("<!-- marker -->\n{text}\n### Convergence status\n");
        assert_eq!(parse(&body, RELEASE, NOW), Ok(Some(h)));
        assert_eq!(parse("no history here", RELEASE, NOW), Ok(None));
    }

    #[test]
    fn the_same_numbers_add_no_point() {
        let mut h = History::default();
        h.push(point(0, 57));
        h.push(point(30, 57));
        assert_eq!(h.points().len(), 1);
        h.push(point(60, 50));
        assert_eq!(h.points().len(), 2);
        // Not later than the last point (a clock behind): kept as it is.
        h.push(point(10, 3));
        assert_eq!(h.points().len(), 2);
    }

    #[test]
    fn past_the_bound_the_closest_points_are_thinned_and_the_line_stays_short() {
        let mut h = History::default();
        for i in 0..200u64 {
            // Uneven gaps: every tenth run an hour later, the others 5 minutes.
            let minutes = i64::try_from(i * 5 + (i / 10) * 60).unwrap();
            h.push(Point {
                at: RELEASE + time::Duration::minutes(minutes),
                stale: MAX_HUB_SERVERS - i,
                running: MAX_HUB_SERVERS,
                due: Some(datetime!(2026-12-30 14:30 UTC)),
            });
        }
        let points = h.points();
        assert_eq!(points.len(), MAX_POINTS);
        assert_eq!(points[0].at, RELEASE, "the first point stays");
        assert_eq!(
            points[MAX_POINTS - 1].stale,
            MAX_HUB_SERVERS - 199,
            "the last too"
        );
        let text = line(&h);
        assert!(text.len() <= LINE_MAX_BYTES, "{}", text.len());
        let later = datetime!(2026-12-31 00:00 UTC);
        assert_eq!(parse(&text, RELEASE, later), Ok(Some(h)));
    }

    #[test]
    fn malformed_histories_are_refused_whole() {
        let ok = "1796040000/57/57/-";
        let cases: [(String, HistoryError); 13] = [
            // At this run's time (it would displace this run's point), or with a deadline
            // centuries away.
            (
                format!("{PREFIX} {}/1/1/- -->", NOW.unix_timestamp()),
                HistoryError::OutOfOrder(1),
            ),
            (
                format!("{PREFIX} 1796040000/5/57/9999999999 -->"),
                HistoryError::FarDeadline(1),
            ),
            (
                format!("{PREFIX} {ok} -->\n{PREFIX} -->"),
                HistoryError::Repeated,
            ),
            (format!("{PREFIX} {ok}"), HistoryError::Malformed(0)),
            (format!("{PREFIX}x {ok} -->"), HistoryError::Malformed(0)),
            (format!("{PREFIX} {ok}  -->"), HistoryError::Malformed(2)),
            (
                format!("{PREFIX} 1796040000/57/57 -->"),
                HistoryError::Malformed(1),
            ),
            (
                format!("{PREFIX} 1796040000/+5/57/- -->"),
                HistoryError::Malformed(1),
            ),
            (
                format!("{PREFIX} 1796040000/58/57/- -->"),
                HistoryError::BadCount(1),
            ),
            (
                format!("{PREFIX} 1796030000/5/57/- -->"),
                HistoryError::OutOfOrder(1),
            ),
            (
                format!("{PREFIX} {ok} {ok} -->"),
                HistoryError::OutOfOrder(2),
            ),
            (
                format!("{PREFIX} {} -->", "1".repeat(LINE_MAX_BYTES)),
                HistoryError::TooLong(PREFIX.len() + 1 + LINE_MAX_BYTES + 4),
            ),
            (
                format!("{PREFIX}{} -->", " 1/1/1/-".repeat(MAX_POINTS + 1)),
                HistoryError::TooManyPoints,
            ),
        ];
        for (body, error) in cases {
            assert_eq!(parse(&body, RELEASE, NOW), Err(error), "{body}");
        }
        // This run's clock is not whole seconds: a point in its second displaces it too.
        let body = format!("{PREFIX} {}/1/1/- -->", NOW.unix_timestamp());
        assert_eq!(
            parse(&body, RELEASE, NOW + time::Duration::MILLISECOND),
            Err(HistoryError::OutOfOrder(1))
        );
    }

    proptest! {
        #[test]
        fn any_text_is_parsed_without_panicking(body in "\\PC{0,300}") {
            let _ = parse(&body, RELEASE, NOW);
            let _ = parse(&format!("{PREFIX}{body}"), RELEASE, NOW);
        }

        #[test]
        fn near_misses_are_parsed_without_panicking(
            tokens in proptest::collection::vec("[0-9/+-]{0,24}", 0..60)
        ) {
            let body = format!("{PREFIX} {} -->", tokens.join(" "));
            if let Ok(Some(h)) = parse(&body, RELEASE, NOW) {
                prop_assert!(h.points().len() <= MAX_POINTS);
                prop_assert!(h.points().windows(2).all(|w| w[0].at < w[1].at));
                prop_assert!(h.points().iter().all(|p| p.stale <= p.running));
            }
        }

        #[test]
        fn what_is_written_is_read_back(
            steps in proptest::collection::vec((1i64..600, 0u64..1000), 0..120)
        ) {
            let mut h = History::default();
            let mut at = RELEASE;
            for (minutes, stale) in steps {
                at += time::Duration::minutes(minutes);
                h.push(Point { at, stale, running: 1000, due: None });
            }
            prop_assert!(h.points().len() <= MAX_POINTS);
            let text = line(&h);
            prop_assert!(text.len() <= LINE_MAX_BYTES);
            prop_assert_eq!(parse(&text, RELEASE, at + time::Duration::SECOND), Ok(Some(h)));
        }
    }
}
