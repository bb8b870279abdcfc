//! The calendar check: every deadline a command states must be writable as a date, at or
//! before 9999-12-31T23:59:59Z ([`fits_calendar`]); settings whose window ends later, from the
//! run's clock, are refused before anything is stated ([`past_the_calendar`]), never
//! reported as unbounded.

use super::{Configured, compute};

/// The last date a deadline can be written for: 9999-12-31, the `time` crate's `Date::MAX`
/// (without its `large-dates` feature), also the last date RFC 3339 writes with four digits.
pub(crate) const LAST_DATE: &str = "9999-12-31";

/// Whether a deadline up to `secs` seconds after `from` can be written as a date: `from +
/// secs` is at or before 9999-12-31T23:59:59Z ([`crate::support::time::LAST`], on
/// [`LAST_DATE`]). The reports round a "never later than" deadline up to the minute, and on
/// that last minute to the second instead ([`crate::support::time::utc_minute_up`]), so a deadline
/// that fits is always written. A deadline past it cannot be computed (`checked_add` gives
/// `None`), and `None` is what a bound that does not exist reads as; so settings that fail
/// this are refused before anything is stated (`cli`), never reported as unbounded.
pub(crate) fn fits_calendar(from: time::OffsetDateTime, secs: u64) -> bool {
    i64::try_from(secs)
        .ok()
        .and_then(|secs| from.checked_add(time::Duration::seconds(secs)))
        .and_then(|at| crate::support::time::to_utc(at).ok())
        .is_some_and(|at| at <= crate::support::time::LAST)
}

/// Settings whose deadlines end after the calendar's last date ([`past_the_calendar`]).
#[derive(Debug, Clone)]
pub(crate) struct PastTheCalendar {
    /// The run's clock.
    pub(crate) now: time::OffsetDateTime,
    /// The clock came from `--now`.
    pub(crate) now_given: bool,
    /// The settings, with their origins (and the hub's scale when the worst case was
    /// counted): their window ([`Configured::window`]) is what ends too late.
    pub(crate) configured: Configured,
    /// What to give instead.
    pub(crate) fix: CalendarFix,
}

/// What to change for deadlines that fit the calendar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CalendarFix {
    /// The hub's size and slow-stop timeout (a cull pass too long for any clock).
    HubScale,
    /// The clock given with `--now`.
    Clock,
    /// The culler settings.
    Settings,
}

/// Where `configured`'s deadlines end after the calendar's last date, counted from the run's
/// clock `now` (`now_given`: from `--now`): the longest bound of its window (the worst case at
/// the hub's size included) must end on or before [`LAST_DATE`] ([`fits_calendar`]).
/// Otherwise the release note and `status` could not state the deadline, and a missing
/// deadline reads as "culling disabled". Every deadline a command states is at most that far
/// from a time no later than `now` (the release, a server's start or last activity), so this
/// one check covers them; `status` checks again at the hub's size it reads
/// ([`crate::status::run`]).
///
/// `None` when they fit. Else the fix: the hub's scale when the cull pass at the hub's size
/// is longer than the usual bound (no clock would fit it), else the clock when it was given
/// (a clock near year 9999 is the likely mistake), else the settings.
pub(crate) fn past_the_calendar(
    configured: &Configured,
    now: time::OffsetDateTime,
    now_given: bool,
) -> Option<PastTheCalendar> {
    let window = configured.window();
    let longest = window.longest_secs()?;
    if fits_calendar(now, longest) {
        return None;
    }
    let usual = compute(&configured.settings).longest_secs().unwrap_or(0);
    // The usual bound is at most about 20 years (every duration at most
    // MAX_DURATION_SECS): past the calendar only from a clock near its end. A cull pass of
    // the hub's size can be longer than any clock allows.
    let pass_dominates = window
        .worst
        .is_some_and(|w| w.pass_secs.saturating_add(w.carry_secs) > usual);
    let fix = if pass_dominates {
        CalendarFix::HubScale
    } else if now_given {
        CalendarFix::Clock
    } else {
        CalendarFix::Settings
    };
    Some(PastTheCalendar {
        now,
        now_given,
        configured: configured.clone(),
        fix,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::window::{CullSettings, MAX_DURATION_SECS};

    #[test]
    fn deadlines_fit_the_calendar_up_to_its_last_second() {
        use time::macros::datetime;
        let from = datetime!(9999-12-31 23:58 UTC);
        assert!(fits_calendar(from, 0));
        assert!(fits_calendar(from, 119));
        assert!(!fits_calendar(from, 120));
        // A fraction past the last second does not fit either.
        assert!(!fits_calendar(datetime!(9999-12-31 23:58:00.5 UTC), 119));
        // `announce --now 9999-12-31T22:49:00Z` at z2jh's defaults: due by 23:59:00.
        assert!(fits_calendar(datetime!(9999-12-31 22:49 UTC), 4200));
        assert!(!fits_calendar(datetime!(2026-12-01 00:00 UTC), u64::MAX));
        // Ten years of every setting fit any clock of this millennium.
        let longest = compute(&CullSettings {
            enabled: true,
            timeout_secs: MAX_DURATION_SECS,
            every_secs: MAX_DURATION_SECS,
            max_age_secs: MAX_DURATION_SECS,
        })
        .longest_secs()
        .unwrap();
        assert!(fits_calendar(datetime!(2999-12-31 23:59 UTC), longest));
        let disabled = CullSettings {
            enabled: false,
            ..CullSettings::default()
        };
        assert_eq!(compute(&disabled).longest_secs(), None);
    }
}
