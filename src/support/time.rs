//! Times: the one parser of the times taken from outside (the command line's `--now` and
//! `--released-at`, the hub's `started` and `last_activity`, the time a release note
//! records), the one writer of times for machines ([`rfc3339_seconds`]) and the one writer of
//! times for people ([`utc_minute`], and [`utc_minute_up`] for deadlines).
//!
//! **The invariant.** Every time parsed here is in UTC and within the years 0000 to 9999:
//! the range RFC 3339 writes (four-digit years, RFC 3339 §5.6 `date-fullyear`) and the
//! `time` crate holds without its `large-dates` feature. A time given with an offset can
//! fall outside it in UTC (`9999-12-31T23:59:59-23:59` is in year 10000,
//! `0000-01-01T00:00:00+23:59` in year −1); such a time is refused here, at the edge, so no
//! later stage converts or writes a time it cannot ([`rfc3339_seconds`] still cannot panic).

use time::format_description::well_known::{Iso8601, Rfc3339};
use time::macros::{datetime, format_description};
use time::{OffsetDateTime, UtcOffset};

/// The first instant a time can be written for: 0000-01-01T00:00:00Z.
// Only the tests compare with it (the parser's range is `time`'s).
#[cfg(test)]
pub(crate) const FIRST: OffsetDateTime = datetime!(0000-01-01 00:00 UTC);

/// The last whole second a time can be written for: 9999-12-31T23:59:59Z.
pub(crate) const LAST: OffsetDateTime = datetime!(9999-12-31 23:59:59 UTC);

/// Why a time is refused. Its `Display` (the render layer's, `crate::render::reading_words`)
/// is a predicate for a message that names the input and quotes the text first (`now (--now)
/// "…" is not an RFC 3339 time (…)`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TimeError {
    /// Not RFC 3339 (or, from the hub, ISO 8601): the `time` crate's words.
    Syntax(String),
    /// A year of more than four digits, which RFC 3339 does not write.
    LongYear,
    /// Digits alone that are, as Unix seconds, this time (`1764504000`): a year of more
    /// than four digits to RFC 3339, most likely `date +%s` given for a time.
    UnixSeconds(OffsetDateTime),
    /// In UTC, later than [`LAST`].
    AfterLast,
    /// In UTC, earlier than 0000-01-01T00:00:00Z.
    BeforeFirst,
}

/// Parses `text` (trimmed) as an RFC 3339 time and returns it in UTC.
///
/// # Errors
/// [`TimeError`]: not RFC 3339 (Unix seconds named apart), or in UTC outside
/// 0000-01-01T00:00:00Z..=[`LAST`] (the fraction of a second past [`LAST`] is taken).
pub(crate) fn parse_rfc3339(text: &str) -> Result<OffsetDateTime, TimeError> {
    let text = text.trim();
    match OffsetDateTime::parse(text, &Rfc3339) {
        Ok(t) => to_utc(t),
        Err(_) if long_year(text) => Err(text
            .parse()
            .ok()
            .and_then(|secs| OffsetDateTime::from_unix_timestamp(secs).ok())
            .map_or(TimeError::LongYear, TimeError::UnixSeconds)),
        // `{e}`, not `{e:#}`: the parse error's source is the same error again.
        Err(e) => Err(TimeError::Syntax(e.to_string())),
    }
}

/// Parses a hub timestamp: RFC 3339, else ISO 8601 (JupyterHub `utils.isoformat` writes
/// `2026-11-30T14:05:09.123456Z`; older hubs may leave out the offset's colon), in UTC.
///
/// # Errors
/// As [`parse_rfc3339`]; `Syntax` carries the RFC 3339 parser's words.
pub(crate) fn parse_iso8601(text: &str) -> Result<OffsetDateTime, TimeError> {
    parse_rfc3339(text).or_else(|e| match e {
        TimeError::Syntax(_) => OffsetDateTime::parse(text.trim(), &Iso8601::DEFAULT)
            .map_err(|_| e)
            .and_then(to_utc),
        other => Err(other),
    })
}

/// `t` in UTC, when that is within 0000-01-01T00:00:00Z..=[`LAST`] (up to the end of its last
/// second).
///
/// # Errors
/// [`TimeError::AfterLast`] or [`TimeError::BeforeFirst`].
pub(crate) fn to_utc(t: OffsetDateTime) -> Result<OffsetDateTime, TimeError> {
    let Some(utc) = t.checked_to_offset(UtcOffset::UTC) else {
        // Only a year past the `time` crate's range: a negative offset pushes UTC later.
        return Err(if t.offset().is_negative() {
            TimeError::AfterLast
        } else {
            TimeError::BeforeFirst
        });
    };
    match utc.year() {
        ..0 => Err(TimeError::BeforeFirst),
        10_000.. => Err(TimeError::AfterLast),
        _ => Ok(utc),
    }
}

/// Whether `text` starts with a year of more than four digits (`10000-01-01T…`).
fn long_year(text: &str) -> bool {
    let digits = text.trim_start_matches(['+', '-']);
    digits.bytes().take_while(u8::is_ascii_digit).count() > 4
}

/// `2026-11-30T14:05:09Z`: `t` in UTC, to the second (the fraction dropped), as RFC 3339:
/// the shape of every time written for machines. Never panics: a time outside the years
/// 0000 to 9999 in UTC, which [`parse_rfc3339`] refuses and no stage computes (deadlines
/// are checked against [`LAST`], `crate::window::fits_calendar`), is written with its own
/// offset, or at worst as the `time` crate displays it.
pub(crate) fn rfc3339_seconds(t: OffsetDateTime) -> String {
    let seconds = |t: OffsetDateTime| t.replace_nanosecond(0).unwrap_or(t);
    to_utc(t)
        .ok()
        .and_then(|utc| seconds(utc).format(&Rfc3339).ok())
        .or_else(|| seconds(t).format(&Rfc3339).ok())
        .unwrap_or_else(|| t.to_string())
}

/// `2026-11-30 14:05 UTC`: `t` in UTC, the seconds dropped. Never panics: a time whose UTC
/// is past the `time` crate's range (which no parse gives) is written in its own offset,
/// e.g. `9999-12-31 23:59 -23:59`.
pub(crate) fn utc_minute(t: OffsetDateTime) -> String {
    let written = match t.checked_to_offset(UtcOffset::UTC) {
        Some(utc) => utc.format(format_description!(
            "[year]-[month]-[day] [hour]:[minute] UTC"
        )),
        None => t.format(format_description!(
            "[year]-[month]-[day] [hour]:[minute] [offset_hour sign:mandatory]:[offset_minute]"
        )),
    };
    written.unwrap_or_else(|_| t.to_string())
}

/// A "never later than" deadline to the minute, rounded UP, so it never reads earlier than
/// it is (07:12:48 reads `07:13 UTC`). On the calendar's last minute, whose next one cannot
/// be written, it is written to the second, rounded up: 9999-12-31T23:59:30.2Z reads
/// `9999-12-31 23:59:31 UTC` (every deadline stated is at or before [`LAST`],
/// `crate::window::fits_calendar`; one past it would read as its whole second).
pub(crate) fn utc_minute_up(t: OffsetDateTime) -> String {
    let Some(t) = t.checked_to_offset(UtcOffset::UTC) else {
        return utc_minute(t);
    };
    if t.second() == 0 && t.nanosecond() == 0 {
        return utc_minute(t);
    }
    let whole = |t: OffsetDateTime, second: u8| {
        t.replace_nanosecond(0)
            .and_then(|t| t.replace_second(second))
            .unwrap_or(t)
    };
    if let Some(up) = whole(t, 0).checked_add(time::Duration::MINUTE) {
        return utc_minute(up);
    }
    let second = whole(t, t.second());
    let up = match t.nanosecond() {
        0 => second,
        _ => second.checked_add(time::Duration::SECOND).unwrap_or(second),
    };
    format!(
        "{}:{:02} UTC",
        utc_minute(up).trim_end_matches(" UTC"),
        up.second()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    #[test]
    fn times_are_taken_in_utc_within_the_years_rfc_3339_writes() {
        let ok = |text: &str| parse_rfc3339(text).unwrap();
        assert_eq!(
            ok(" 2026-11-30T14:05:09+02:00 "),
            datetime!(2026-11-30 12:05:09 UTC)
        );
        assert_eq!(ok("9999-12-31T23:59:59.9Z").offset(), UtcOffset::UTC);
        assert_eq!(ok("0000-01-01T00:00:00Z"), FIRST);
        assert_eq!(ok("0000-01-01T23:58:00+23:58"), FIRST);
        assert_eq!(ok("9999-12-31T00:00:59-23:59"), LAST);
        let refusals = [
            "9999-12-31T23:59:59-23:59",
            "9999-12-31T23:59:59-00:01",
            "0000-01-01T00:00:00+23:59",
            "0000-01-01T00:00:00+00:01",
            "10000-01-01T00:00:00Z",
            "1764504000",
            "yesterday",
            "",
        ]
        .map(|text| format!("{text:?} {}", parse_rfc3339(text).unwrap_err()));
        insta::assert_snapshot!(refusals.join("\n"), @r#"
        "9999-12-31T23:59:59-23:59" falls after 9999-12-31T23:59:59Z in UTC, the last time that can be written (RFC 3339 writes the years 0000 to 9999)
        "9999-12-31T23:59:59-00:01" falls after 9999-12-31T23:59:59Z in UTC, the last time that can be written (RFC 3339 writes the years 0000 to 9999)
        "0000-01-01T00:00:00+23:59" falls before 0000-01-01T00:00:00Z in UTC, the first time that can be written (RFC 3339 writes the years 0000 to 9999)
        "0000-01-01T00:00:00+00:01" falls before 0000-01-01T00:00:00Z in UTC, the first time that can be written (RFC 3339 writes the years 0000 to 9999)
        "10000-01-01T00:00:00Z" has a year of more than four digits (RFC 3339 writes the years 0000 to 9999)
        "1764504000" looks like Unix seconds, not an RFC 3339 time (as one: 2025-11-30T12:00:00Z)
        "yesterday" is not an RFC 3339 time (the 'year' component could not be parsed)
        "" is not an RFC 3339 time (the 'year' component could not be parsed)
        "#);
    }

    #[test]
    fn hub_times_may_be_iso_8601_and_are_held_to_the_same_range() {
        assert_eq!(
            parse_iso8601("2026-11-30T14:05:09.123456Z").unwrap(),
            datetime!(2026-11-30 14:05:09.123456 UTC)
        );
        assert_eq!(
            parse_iso8601("2026-11-30T14:05:09+0100").unwrap(),
            datetime!(2026-11-30 13:05:09 UTC)
        );
        assert_eq!(
            parse_iso8601("9999-12-31T23:59:59-23:59"),
            Err(TimeError::AfterLast)
        );
        assert_eq!(
            parse_iso8601("0000-01-01T00:00:00+2359"),
            Err(TimeError::BeforeFirst)
        );
    }

    #[test]
    fn writing_a_time_never_panics() {
        assert_eq!(
            rfc3339_seconds(datetime!(2026-11-30 14:05:09.7 +02:00)),
            "2026-11-30T12:05:09Z"
        );
        assert_eq!(rfc3339_seconds(LAST), "9999-12-31T23:59:59Z");
        // Times no parse gives: UTC past the range, written in their own offset.
        assert_eq!(
            rfc3339_seconds(datetime!(9999-12-31 23:59:59 -23:59)),
            "9999-12-31T23:59:59-23:59"
        );
        assert_eq!(
            rfc3339_seconds(datetime!(0000-01-01 00:00 +23:59)),
            "0000-01-01T00:00:00+23:59"
        );
        assert_eq!(
            rfc3339_seconds(datetime!(-0001-12-31 12:00 UTC)),
            "-0001-12-31 12:00:00.0 +00:00:00"
        );
    }

    #[test]
    fn deadlines_round_up_to_the_minute_and_on_the_calendars_last_minute_to_the_second() {
        let rounded: Vec<String> = [
            datetime!(2026-11-30 07:12:48 UTC),
            datetime!(2026-11-30 07:12 UTC),
            datetime!(2026-11-30 09:12:48 +02:00),
            datetime!(9999-12-31 23:58:30 UTC),
            datetime!(9999-12-31 23:59 UTC),
            datetime!(9999-12-31 23:59:30.2 UTC),
            datetime!(9999-12-31 23:59:59 UTC),
            // Past the last second: no deadline stated is (`fits_calendar`); no panic.
            datetime!(9999-12-31 23:59:59.5 UTC),
            datetime!(9999-12-31 23:59:59 -23:59),
        ]
        .iter()
        .map(|t| format!("{t} -> {}", utc_minute_up(*t)))
        .collect();
        insta::assert_snapshot!(rounded.join("\n"), @r#"
2026-11-30 7:12:48.0 +00:00:00 -> 2026-11-30 07:13 UTC
2026-11-30 7:12:00.0 +00:00:00 -> 2026-11-30 07:12 UTC
2026-11-30 9:12:48.0 +02:00:00 -> 2026-11-30 07:13 UTC
9999-12-31 23:58:30.0 +00:00:00 -> 9999-12-31 23:59 UTC
9999-12-31 23:59:00.0 +00:00:00 -> 9999-12-31 23:59 UTC
9999-12-31 23:59:30.2 +00:00:00 -> 9999-12-31 23:59:31 UTC
9999-12-31 23:59:59.0 +00:00:00 -> 9999-12-31 23:59:59 UTC
9999-12-31 23:59:59.5 +00:00:00 -> 9999-12-31 23:59:59 UTC
9999-12-31 23:59:59.0 -23:59:00 -> 9999-12-31 23:59 -23:59
"#);
    }
}
