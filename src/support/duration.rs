//! The one duration parser of the inputs: bare digits are seconds (`60`), anything else is
//! a [`humantime`] duration (`90s`, `2m`, `1h 30m`, `250ms`) without humantime's months
//! and years (see [`parse`]). humantime carries the grammar; the rules added here are ours:
//! bare digits as seconds (the z2jh values' unit), no months or years (averages, not
//! lengths), no sign, and each option's bounds ([`bounded`]: a job's 6 hours, the culler's
//! whole seconds).

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

/// Parses `text` (trimmed) as seconds when it is ASCII digits alone, else as a humantime
/// duration (also digits too many for a `u64`, so the error says the number overflows).
/// humantime's months and years are refused: they are averages (30.44 and 365.25 days), not
/// lengths a timeout or the culler has, and `10M` (months) is an easy slip for `10m`.
///
/// # Errors
/// [`DurationProblem::Calendar`] for a month or year unit; humantime's refusals as
/// [`DurationProblem::NoUnit`] (a number without a unit: humantime suggests `30sec or 30ms`,
/// units that the culler's whole seconds refuse), [`DurationProblem::UnknownUnit`] (humantime
/// lists `ns, us/µs, ms` first, and months and years) or [`DurationProblem::NotADuration`].
pub(crate) fn parse(text: &str) -> Result<Duration, DurationProblem> {
    let t = text.trim();
    let digits = !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    if let (true, Ok(secs)) = (digits, t.parse::<u64>()) {
        return Ok(Duration::from_secs(secs));
    }
    // humantime's units are the runs of letters (and µ) after each number.
    let mut units = t.split(|c: char| !(c.is_ascii_alphabetic() || c == 'µ'));
    if let Some(unit) = units.find(|u| MONTHS.contains(u) || YEARS.contains(u)) {
        let months = MONTHS.contains(&unit);
        return Err(DurationProblem::Calendar {
            unit: unit.to_string(),
            months,
        });
    }
    humantime::parse_duration(t).map_err(|e| match e {
        humantime::DurationError::UnknownUnit { unit, .. } if unit.is_empty() => {
            DurationProblem::NoUnit
        }
        humantime::DurationError::UnknownUnit { unit, .. } => DurationProblem::UnknownUnit(unit),
        // humantime 2.4 answers NumberOverflow for a fraction it cannot hold exactly too
        // (`1.001h`, `0.0001w`), values far below the limit: only a number without one is.
        humantime::DurationError::NumberOverflow if t.contains('.') => DurationProblem::Fraction,
        humantime::DurationError::NumberOverflow => DurationProblem::TooLong,
        other => DurationProblem::NotADuration(other),
    })
}

/// `text` (trimmed) as [`parse`] reads it, from `min` to `max`, in whole seconds when
/// `whole_seconds`: the bounds of every duration option.
///
/// # Errors
/// The first [`DurationProblem`]: a sign, over `max` (also a number too large for
/// the parser), not a duration (a bare decimal, `1.5`, named apart where fractions are
/// taken), a fraction of a second where only whole seconds are, under `min`.
pub(crate) fn bounded(
    text: &str,
    min: Duration,
    max: Duration,
    whole_seconds: bool,
) -> Result<Duration, DurationProblem> {
    let t = text.trim();
    let digits = |d: &str| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit());
    let decimal = || {
        t.split_once('.')
            .is_some_and(|(w, p)| digits(w) && digits(p))
    };
    let d = match parse(t) {
        _ if t.starts_with(['-', '+']) => return Err(DurationProblem::Sign),
        Ok(d) => d,
        // `1.5` reads as a number without a unit: a bare number is whole seconds.
        Err(_) if decimal() && !whole_seconds => return Err(DurationProblem::BareDecimal),
        Err(e) => return Err(e),
    };
    match d {
        d if whole_seconds && d.subsec_nanos() != 0 => Err(DurationProblem::NotWholeSeconds),
        d if d > max => Err(DurationProblem::TooLong),
        d if d.is_zero() && !min.is_zero() => Err(DurationProblem::Zero),
        d if d < min => Err(DurationProblem::TooShort),
        d => Ok(d),
    }
}

/// What a duration breaks ([`parse`], [`bounded`]).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum DurationProblem {
    /// A sign, `-` or `+` (humantime 2 answers `+` with "expected number at 0").
    Sign,
    /// Over the limit, or a number too large to hold.
    TooLong,
    /// `1.5`: a number with a fraction and no unit, where fractions are taken.
    BareDecimal,
    /// A fraction humantime cannot read (`1.001h`: see [`parse`]).
    Fraction,
    /// A month (`months`) or year unit, as written.
    Calendar {
        /// The unit as written.
        unit: String,
        /// A month unit, else a year unit.
        months: bool,
    },
    /// A number without a unit after it, where another came before (`1h30`).
    NoUnit,
    /// A unit humantime does not know, as written.
    UnknownUnit(String),
    /// humantime's other refusals, in its words (`expected number at 0`).
    NotADuration(humantime::DurationError),
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
        assert_eq!(parse("99999999999999999999"), Err(DurationProblem::TooLong));
    }

    /// A missing or unknown unit, a month or a year: each its own problem, the units next to
    /// them still parse.
    #[test]
    fn units_humantime_refuses_and_months_and_years_are_told_apart() {
        let calendar = |unit: &str, months| {
            let unit = unit.to_string();
            Err(DurationProblem::Calendar { unit, months })
        };
        for (text, problem) in [
            ("1h30", Err(DurationProblem::NoUnit)),
            ("1.5", Err(DurationProblem::NoUnit)),
            ("1.001h", Err(DurationProblem::Fraction)),
            ("0.0001w", Err(DurationProblem::Fraction)),
            ("1.01h", Ok(Duration::from_secs(3636))),
            ("2m 10", Err(DurationProblem::NoUnit)),
            (
                "8 fortnights",
                Err(DurationProblem::UnknownUnit("fortnights".into())),
            ),
            ("10M", calendar("M", true)),
            ("1 month", calendar("month", true)),
            ("2months", calendar("months", true)),
            ("1y", calendar("y", false)),
            ("1 year", calendar("year", false)),
            ("3yrs", calendar("yrs", false)),
            ("1d 2M", calendar("M", true)),
            ("10m", Ok(Duration::from_secs(600))),
            ("30d", Ok(Duration::from_secs(30 * 86400))),
            ("2w", Ok(Duration::from_secs(14 * 86400))),
            ("1min", Ok(Duration::from_secs(60))),
        ] {
            assert_eq!(parse(text), problem, "{text:?}");
        }
        assert!(matches!(
            parse("soon"),
            Err(DurationProblem::NotADuration(_))
        ));
    }
}
