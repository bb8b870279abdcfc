//! The convergence window in words: the summary line, durations and server counts in
//! words, the settings' rows with their origins, and the refusal of settings that do not make
//! sense. [`crate::window`] decides, as data; the words are here.

use super::words::Words;
use crate::support::duration::max_duration_words;
use crate::window::{
    Configured, CullSettings, InvalidSettings, MAX_DURATION_SECS, Origin, SettingsProblem, Window,
    WindowWarning,
};
use serde::Serialize;
use std::fmt;
use std::time::Duration;

/// One row of [`Configured::rows`]: a z2jh key, its value in words, and its origin.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct SettingRow {
    /// The z2jh key, e.g. `cull.timeout`.
    pub(crate) key: &'static str,
    /// The value in words, e.g. `1h`, `none`, `true`.
    pub(crate) value: String,
    /// Where it came from.
    pub(crate) origin: Origin,
}

impl Configured {
    /// The four settings in z2jh's order with their values in words and origins, for the
    /// job summary and `codeq-rollout window`.
    pub(crate) fn rows(&self) -> Vec<SettingRow> {
        let (s, o) = (&self.settings, &self.origins);
        let rows = [
            ("cull.enabled", s.enabled.to_string(), &o.enabled),
            ("cull.timeout", human(s.timeout_secs), &o.timeout),
            ("cull.every", human(s.every_secs), &o.every),
            ("cull.maxAge", max_age_words(s.max_age_secs), &o.max_age),
        ];
        let row = |(key, value, origin): (_, _, &Origin)| SettingRow {
            key,
            value,
            origin: origin.clone(),
        };
        rows.map(row).into()
    }

    /// The rows on one line: `cull.enabled true (default); cull.timeout 1h (values.yaml:
    /// cull.timeout); ...`.
    pub(crate) fn origins_line(&self) -> String {
        self.rows()
            .iter()
            .map(|r| format!("{} {} ({})", r.key, r.value, r.origin))
            .collect::<Vec<_>>()
            .join("; ")
    }
}

impl Window {
    /// One line for the `convergence-window` output and the summary, e.g.
    /// `idle sessions within 1h 10m of last activity; active sessions only when restarted`;
    /// with the hub's size, each bound is followed by its worst case, e.g. `(up to 1h 27m
    /// with 100 servers going idle in the same cull pass)`.
    pub fn summary(&self) -> String {
        if !self.culling_enabled {
            return "no passive bound: culling is disabled, a running session updates only when its user restarts it".into();
        }
        // The worst case `secs` for a hub's servers doing `what` in one cull pass.
        let up_to = |secs: Option<u64>, what: &str| {
            let (w, secs) = self.worst.zip(secs)?;
            let servers = servers_words(w.scale.servers);
            Some(format!(
                "up to {} with {servers} {what} in the same cull pass",
                human_at_most(secs)
            ))
        };
        let bracketed =
            |words: Option<String>| words.map(|w| format!(" ({w})")).unwrap_or_default();
        let worst_active = self.worst.and_then(|w| w.active_secs);
        if let (true, Some(active)) = (self.max_age_first(), self.active_secs) {
            let worst = up_to(worst_active, "reaching it").map(|w| format!("; {w}"));
            return format!(
                "every session, idle or active, within {} of the release (the maximum server age comes before the idle timeout{})",
                human(active),
                worst.unwrap_or_default()
            );
        }
        let idle = format!(
            "idle sessions within {} of last activity{}",
            human(self.idle_secs.unwrap_or(0)),
            bracketed(up_to(self.worst.and_then(|w| w.idle_secs), "going idle"))
        );
        match self.active_secs {
            Some(active) => format!(
                "{idle}; active sessions within {} of the release{}",
                human(active),
                bracketed(up_to(worst_active, "reaching the maximum server age"))
            ),
            None => format!("{idle}; active sessions only when their user restarts them"),
        }
    }
}

impl fmt::Display for CullSettings {
    /// The durations, for the release note and `status`'s warnings: `timeout 1h, every 10m,
    /// max age none` (whether culling runs is the caller's to say).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "timeout {}, every {}, max age {}",
            human(self.timeout_secs),
            human(self.every_secs),
            max_age_words(self.max_age_secs)
        )
    }
}

impl fmt::Display for Origin {
    /// `default`, `values.yaml: jupyterhub.cull.timeout`, or `option --cull-timeout`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Default => f.write_str("default"),
            Origin::File { file, key } => write!(f, "{file}: {key}"),
            Origin::Option { name } => write!(f, "option --{name}"),
        }
    }
}

super::words::words_display!(InvalidSettings => |e| settings_words(e, false));

/// The words of culler settings refused: what is wrong, naming the origin, then what to set;
/// `in_actions`: an option and `cull-enabled` are named as inputs there (`with:`), as options
/// on the command line.
pub(crate) fn settings_words(e: &InvalidSettings, in_actions: bool) -> Words {
    let origin = match (&e.origin, in_actions) {
        (Origin::Option { name }, true) => format!("the {name} input"),
        (origin, _) => origin.to_string(),
    };
    // Where to set the key at fault (`cull.every`, option `cull-every`), and how to say the
    // hub does not cull (a timeout of 0 is often meant so).
    let set = |key: &str, option: &str| match (&e.origin, in_actions) {
        (Origin::Option { .. }, true) => format!("set `{option}:` under `with:`"),
        (Origin::Option { .. }, false) => format!("set --{option}"),
        (_, true) => format!("set {key} (or `{option}:` under `with:`)"),
        (_, false) => format!("set {key} (or --{option})"),
    };
    let off = match in_actions {
        true => "`cull-enabled: false`",
        false => "--cull-enabled false",
    };
    let (what, help) = match e.problem {
        SettingsProblem::TooLong { key, secs } => (
            format!(
                "{key} is {secs} s ({origin}), more than {}",
                max_duration_words(MAX_DURATION_SECS)
            ),
            "that is the longest duration codeq-rollout takes: set the value the hub uses"
                .to_string(),
        ),
        SettingsProblem::ZeroTimeout => (
            format!("cull.timeout is 0 (or null) while culling is enabled ({origin})"),
            format!(
                "z2jh then passes no --timeout and the culler falls back to its own 600 s; {} to the idle timeout the hub should use, e.g. 3600, or say with {off} that the hub does not cull",
                set("cull.timeout", "cull-timeout")
            ),
        ),
        SettingsProblem::ZeroEvery { timeout_secs } => (
            format!("cull.every is 0 (or null) while culling is enabled ({origin})"),
            format!(
                "z2jh then passes no --cull-every and the culler checks every timeout/2 ({} s here); {} to the interval the hub should use, e.g. 600, or say with {off} that the hub does not cull",
                timeout_secs / 2,
                set("cull.every", "cull-every")
            ),
        ),
    };
    Words::new(what).help(help)
}

/// The window's warning in words: culling off; or the setting, with its origin, that makes a
/// window of over a year, and what to check.
pub(crate) fn warning_words(warning: &WindowWarning) -> Words {
    match warning {
        WindowWarning::CullingDisabled => Words::new(
            "culling is disabled: running sessions update only when their users restart them",
        ),
        WindowWarning::TooLong {
            key,
            secs,
            origin,
            window_secs,
        } => Words::new(format!(
            "{key} {} ({origin}) makes a convergence window of {}",
            human(*secs),
            human(*window_secs)
        ))
        .help(
            "check that it is the value the hub uses: a window of over a year is likely a slip \
             of the unit, and in practice sessions then update only when their users restart \
             them",
        ),
    }
}

/// A duration in words, humantime's style within a day, with days as the largest unit
/// written as a word (humantime's own months and years are averages, so 31 days would read
/// `1month 10h 29m 36s`): 4200 → `1h 10m`, 90000 → `1 day 1h`, 0 → `0s`.
/// [`crate::support::duration::parse`] reads it back.
pub(crate) fn human(secs: u64) -> String {
    const DAY: u64 = 86_400;
    let (days, rest) = (secs / DAY, secs % DAY);
    let within_day = humantime::format_duration(Duration::from_secs(rest)).to_string();
    let plural = if days == 1 { "" } else { "s" };
    match (days, rest) {
        (0, _) => within_day,
        (_, 0) => format!("{days} day{plural}"),
        _ => format!("{days} day{plural} {within_day}"),
    }
}

/// A worst-case duration in words, rounded up: whole minutes from 10 minutes on (5200 →
/// `1h 27m`), so the words never state a bound earlier than the seconds; [`human`] below.
pub(crate) fn human_at_most(secs: u64) -> String {
    if secs >= 600 {
        human(secs.div_ceil(60).saturating_mul(60))
    } else {
        human(secs)
    }
}

/// A maximum server age in words: `none` for 0, else [`human`].
pub(crate) fn max_age_words(secs: u64) -> String {
    match secs {
        0 => "none".into(),
        secs => human(secs),
    }
}

/// `1 server` or `100 servers`.
pub(crate) fn servers_words(servers: u64) -> String {
    if servers == 1 {
        "1 server".into()
    } else {
        format!("{servers} servers")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_in_words_stop_at_days_and_read_back() {
        for (secs, words) in [
            (0, "0s"),
            (4200, "1h 10m"),
            (86_400, "1 day"),
            (90_000, "1 day 1h"),
            (31 * 86_400 + 600, "31 days 10m"),
            (365 * 86_400 + 6 * 3600, "365 days 6h"),
        ] {
            assert_eq!(human(secs), words);
            let read = crate::support::duration::parse(words).unwrap();
            assert_eq!(read.as_secs(), secs, "{words}");
        }
    }

    /// Every refusal of culler settings in words, naming the origin of the value at fault.
    #[test]
    fn every_settings_problem_in_words() {
        let problems = [
            (
                Origin::option("cull-max-age"),
                SettingsProblem::TooLong {
                    key: "cull.maxAge",
                    secs: MAX_DURATION_SECS + 1,
                },
            ),
            (Origin::Default, SettingsProblem::ZeroTimeout),
            (
                Origin::file("hub/values.yaml", "jupyterhub.cull.every"),
                SettingsProblem::ZeroEvery { timeout_secs: 3600 },
            ),
            (Origin::option("cull-timeout"), SettingsProblem::ZeroTimeout),
            (
                Origin::option("cull-every"),
                SettingsProblem::ZeroEvery { timeout_secs: 3600 },
            ),
        ];
        // On the command line, then inside Actions (the inputs under `with:`).
        let all = [false, true].into_iter().flat_map(|in_actions| {
            (problems.iter().cloned())
                .map(move |(origin, problem)| InvalidSettings { origin, problem })
                .map(move |e| settings_words(&e, in_actions))
        });
        insta::assert_snapshot!(crate::render::words::shaped(all));
    }

    #[test]
    fn worst_case_words_round_up_to_the_minute_from_ten_minutes_on() {
        assert_eq!(human(5200), "1h 26m 40s");
        assert_eq!(human_at_most(5200), "1h 27m");
        assert_eq!(human_at_most(5160), "1h 26m");
        assert_eq!(human_at_most(599), "9m 59s");
        assert_eq!(servers_words(1), "1 server");
    }
}
