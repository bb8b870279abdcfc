//! The one duration parser of the inputs: bare digits are seconds (`60`), anything else is
//! a [`humantime`] duration (`90s`, `2m`, `1h 30m`, `250ms`) without humantime's months
//! and years (see [`parse`]).

use std::time::Duration;

/// The longest a job on a GitHub-hosted runner runs: 6 hours. GitHub's "Usage limits"
/// (Actions: "Job execution time - Each job in a workflow can run for up to 6 hours of
/// execution time. If a job reaches this limit, the job is terminated"), which is also the
/// default of `jobs.<job_id>.timeout-minutes`, 360. A timeout longer than that can never
/// take effect in an Action, and bounding it keeps every `Instant + Duration` made from an
/// input (e.g. reqwest's read timeout, which adds without `checked_add`) far from overflow.
pub(crate) const JOB_MAX: Duration = Duration::from_secs(6 * 3600);

/// [`JOB_MAX`] in words, for messages: `6h`.
pub(crate) const JOB_MAX_WORDS: &str = "6h";

/// `secs`, the longest duration an input takes, as messages state it: in days, which have a
/// fixed length, and seconds, e.g. `3650 days (315360000 s)`.
pub(crate) fn max_duration_words(secs: u64) -> String {
    format!("{} days ({secs} s)", secs / 86_400)
}

/// humantime's month units (2.x `Unit::from_str`: `months`, `month`, `M`, each 30.44 days)
/// and year units (`years`, `year`, `yr`, `yrs`, `y`, each 365.25 days), which [`parse`]
/// refuses.
const MONTHS: [&str; 3] = ["months", "month", "M"];
const YEARS: [&str; 5] = ["years", "year", "yr", "yrs", "y"];

/// Why a text is not a duration: humantime's error ([`Self::humantime`]), shown in its words
/// except for units: for a number without one humantime suggests `30sec or 30ms`, and for an
/// unknown one it lists `ns, us/µs, ms` first, units that inputs of whole seconds (the
/// culler's) then refuse; these say to write s, m, h (or d). A month or year unit is refused
/// with its own words.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct DurationError(Kind);

#[derive(Debug, Clone, PartialEq)]
enum Kind {
    /// humantime refused the text.
    Humantime(humantime::DurationError),
    /// A month (`months`) or year unit, as written.
    Calendar { unit: String, months: bool },
}

impl DurationError {
    /// humantime's error, for callers that tell its kinds apart (e.g. a number overflow);
    /// `None` for a month or year unit.
    pub(crate) fn humantime(&self) -> Option<&humantime::DurationError> {
        match &self.0 {
            Kind::Humantime(e) => Some(e),
            Kind::Calendar { .. } => None,
        }
    }
}

impl std::fmt::Display for DurationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Kind::Calendar { unit, months } => {
                let (what, days) = match months {
                    true => ("months", "30d"),
                    false => ("years", "365d"),
                };
                write!(
                    f,
                    "unit {unit:?} means {what}, which have no fixed length: write days, e.g. {days}, or minutes with m, e.g. 10m"
                )
            }
            Kind::Humantime(humantime::DurationError::UnknownUnit { unit, .. })
                if unit.is_empty() =>
            {
                f.write_str(
                    "a number has no unit: write a unit after each number, such as s, m or h, e.g. 1h30m",
                )
            }
            Kind::Humantime(humantime::DurationError::UnknownUnit { unit, .. }) => write!(
                f,
                "unknown unit {unit:?}: write s, m, h or d; sec, min, hours, days, weeks and ms work too"
            ),
            Kind::Humantime(other) => other.fmt(f),
        }
    }
}

impl std::error::Error for DurationError {}

/// Parses `text` (trimmed) as seconds when it is ASCII digits alone, else as a humantime
/// duration (also digits too many for a `u64`, so the error says the number overflows).
/// humantime's months and years are refused: they are averages (30.44 and 365.25 days), not
/// lengths a timeout or the culler has, and `10M` (months) is an easy slip for `10m`.
///
/// # Errors
/// [`DurationError`] for text that is neither, or that holds a month or year unit (its
/// `Display` says what was expected).
pub(crate) fn parse(text: &str) -> Result<Duration, DurationError> {
    let t = text.trim();
    let digits = !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    match t.parse::<u64>() {
        Ok(secs) if digits => return Ok(Duration::from_secs(secs)),
        _ => {}
    }
    // humantime's units are the runs of letters (and µ) after each number.
    let calendar = t
        .split(|c: char| !(c.is_ascii_alphabetic() || c == 'µ'))
        .find_map(|unit| {
            let months = MONTHS.contains(&unit);
            (months || YEARS.contains(&unit)).then(|| Kind::Calendar {
                unit: unit.to_string(),
                months,
            })
        });
    if let Some(kind) = calendar {
        return Err(DurationError(kind));
    }
    humantime::parse_duration(t).map_err(|e| DurationError(Kind::Humantime(e)))
}

/// `text` (trimmed) as [`parse`] reads it, from `min` to `max`, in whole seconds when
/// `whole_seconds`: the bounds of every duration option.
///
/// # Errors
/// The first [`DurationProblem`]: blank, a sign, over `max` (also a number too large for
/// the parser), not a duration (a bare decimal, `1.5`, named apart where fractions are
/// taken), a fraction of a second where only whole seconds are, under `min`.
pub(crate) fn bounded(
    text: &str,
    min: Duration,
    max: Duration,
    whole_seconds: bool,
) -> Result<Duration, DurationProblem> {
    let t = text.trim();
    if t.is_empty() {
        return Err(DurationProblem::Empty);
    }
    if let Some(magnitude) = t.strip_prefix('-') {
        return match parse(magnitude) {
            Ok(d) if d.is_zero() => Err(DurationProblem::MinusSign),
            _ => Err(DurationProblem::Negative),
        };
    }
    let digits = t.bytes().all(|b| b.is_ascii_digit());
    let d = match parse(t) {
        Ok(d) => d,
        Err(_) if digits => return Err(DurationProblem::TooLong),
        Err(e) if e.humantime() == Some(&humantime::DurationError::NumberOverflow) => {
            return Err(DurationProblem::TooLong);
        }
        Err(e) => {
            // `1.5` reads as a number without a unit: a bare number is whole seconds.
            let decimal = t.split_once('.').is_some_and(|(whole, part)| {
                [whole, part]
                    .iter()
                    .all(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
            });
            return match decimal && !whole_seconds {
                true => Err(DurationProblem::BareDecimal),
                false => Err(DurationProblem::NotADuration(e)),
            };
        }
    };
    if whole_seconds && d.subsec_nanos() != 0 {
        return Err(DurationProblem::NotWholeSeconds);
    }
    if d > max {
        return Err(DurationProblem::TooLong);
    }
    if d < min {
        return Err(match d.is_zero() {
            true => DurationProblem::Zero,
            false => DurationProblem::TooShort,
        });
    }
    Ok(d)
}

/// What a duration breaks ([`bounded`]).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum DurationProblem {
    /// Blank.
    Empty,
    /// `-0`.
    MinusSign,
    /// Below zero.
    Negative,
    /// Over the limit.
    TooLong,
    /// `1.5`: a number with a fraction and no unit, where fractions are taken.
    BareDecimal,
    /// Neither seconds nor a duration.
    NotADuration(DurationError),
    /// A fraction of a second where only whole seconds are taken.
    NotWholeSeconds,
    /// 0 where the least is more.
    Zero,
    /// Below the least.
    TooShort,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_numbers_are_seconds_and_the_rest_is_humantime() {
        assert_eq!(parse(" 60 ").unwrap(), Duration::from_secs(60));
        assert_eq!(parse("1h 30m").unwrap(), Duration::from_secs(5400));
        assert_eq!(parse("1h30m").unwrap(), Duration::from_secs(5400));
        assert_eq!(parse("250ms").unwrap(), Duration::from_millis(250));
        assert!(parse("+5").is_err() && parse("-5").is_err() && parse("").is_err());
        assert_eq!(
            parse("soon").unwrap_err().to_string(),
            "expected number at 0"
        );
    }

    #[test]
    fn a_missing_or_unknown_unit_is_told_to_take_s_m_or_h() {
        let told: Vec<String> = ["1h30", "1.5", "2m 10", "8 fortnights"]
            .iter()
            .map(|t| format!("{t:?}: {}", parse(t).unwrap_err()))
            .collect();
        insta::assert_snapshot!(told.join("\n"), @r#"
        "1h30": a number has no unit: write a unit after each number, such as s, m or h, e.g. 1h30m
        "1.5": a number has no unit: write a unit after each number, such as s, m or h, e.g. 1h30m
        "2m 10": a number has no unit: write a unit after each number, such as s, m or h, e.g. 1h30m
        "8 fortnights": unknown unit "fortnights": write s, m, h or d; sec, min, hours, days, weeks and ms work too
        "#);
    }

    /// humantime's month and year units, each refused saying to write days or minutes; the
    /// units next to them still parse.
    #[test]
    fn months_and_years_are_refused_for_days_or_minutes() {
        let told: Vec<String> = [
            "10M", "1 month", "2months", "1y", "1 year", "2years", "1yr", "3yrs", "1d 2M",
        ]
        .iter()
        .map(|t| format!("{t:?}: {}", parse(t).unwrap_err()))
        .collect();
        insta::assert_snapshot!(told.join("\n"));
        assert_eq!(parse("10m").unwrap(), Duration::from_secs(600));
        assert_eq!(parse("30d").unwrap(), Duration::from_secs(30 * 86400));
        assert_eq!(parse("2w").unwrap(), Duration::from_secs(14 * 86400));
        assert_eq!(parse("1min").unwrap(), Duration::from_secs(60));
        assert_eq!(parse("2h").unwrap(), Duration::from_secs(7200));
    }
}
