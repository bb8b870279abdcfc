//! Stage 3 (pure): the convergence window, from the idle culler's settings.
//!
//! Source of the rules: jupyterhub-idle-culler (1.4, 2.0) as configured by Zero to
//! JupyterHub 4.x `cull.*` (`jupyterhub/files/hub/jupyterhub_config.py`). The culler runs at
//! start and then every `every` seconds; it stops a server when `now - last_activity >=
//! timeout`, or, when `maxAge > 0`, when `now - started >= maxAge` even if it is active. So a
//! server stops by `min(last_activity + timeout, started + maxAge) + every` (plus a stop
//! latency of seconds). A server starts before its last activity, so from the release at P:
//! an idle session is gone by `P + min(timeout, maxAge if maxAge > 0) + every`; an active
//! one by `P + maxAge + every` when `maxAge > 0`, and never passively otherwise.
//!
//! Durations are capped at [`MAX_DURATION_SECS`] (10 years): beyond that a window is
//! meaningless and sums would overflow.
//!
//! z2jh passes `--timeout` and `--cull-every` only when they are non-zero; with 0 (or null)
//! the culler falls back to its own defaults (timeout 600 s, every timeout/2). A window stated
//! from such a value would be wrong, so [`Configured::validate`] refuses it and asks for the
//! value the hub really uses.

use anyhow::{Result, bail};
use serde::Serialize;
use std::fmt;
use std::time::Duration;

/// z2jh's default `cull.enabled`: true.
pub const DEFAULT_ENABLED: bool = true;
/// z2jh's default `cull.timeout`: 3600 seconds.
pub const DEFAULT_TIMEOUT_SECS: u64 = 3600;
/// z2jh's default `cull.every`: 600 seconds.
pub const DEFAULT_EVERY_SECS: u64 = 600;
/// z2jh's default `cull.maxAge`: 0 seconds (no maximum age).
pub const DEFAULT_MAX_AGE_SECS: u64 = 0;
/// The longest culler duration taken: 10 years of 365 days (315,360,000 s). Longer values
/// are refused rather than stated as a window nobody will see.
pub const MAX_DURATION_SECS: u64 = 10 * 365 * 86_400;

/// `MAX_DURATION_SECS` in words, for messages.
pub fn max_duration_words() -> String {
    format!("10 years ({MAX_DURATION_SECS} s)")
}

/// Where a culler setting came from, for the job summary and `codeq-rollout window`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
#[serde(tag = "source", rename_all = "lowercase")]
pub enum Origin {
    /// z2jh's chart default.
    #[default]
    Default,
    /// A JupyterHub values file: the file as given and the dotted key path in it, e.g.
    /// `jupyterhub.cull.timeout`.
    File {
        /// The file, as given on the command line or in the input.
        file: String,
        /// The dotted key path inside the file.
        key: String,
    },
    /// An explicit option or Action input, e.g. `cull-timeout`.
    Option {
        /// The option's name without dashes (the Action input of the same name).
        name: String,
    },
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

/// The idle culler's settings (z2jh `cull.*`), all in whole seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CullSettings {
    /// `cull.enabled`: whether the idle culler runs at all.
    pub enabled: bool,
    /// `cull.timeout`, seconds: idle time after which a server is stopped.
    pub timeout_secs: u64,
    /// `cull.every`, seconds: interval between culler passes.
    pub every_secs: u64,
    /// `cull.maxAge`, seconds: age after which a server is stopped even if active; 0 = none.
    pub max_age_secs: u64,
}

impl Default for CullSettings {
    fn default() -> Self {
        Self {
            enabled: DEFAULT_ENABLED,
            timeout_secs: DEFAULT_TIMEOUT_SECS,
            every_secs: DEFAULT_EVERY_SECS,
            max_age_secs: DEFAULT_MAX_AGE_SECS,
        }
    }
}

/// Where each culler setting came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct Origins {
    /// Origin of `cull.enabled`.
    pub enabled: Origin,
    /// Origin of `cull.timeout`.
    pub timeout: Origin,
    /// Origin of `cull.every`.
    pub every: Origin,
    /// Origin of `cull.maxAge`.
    pub max_age: Origin,
}

/// Culler settings with the origin of each value. Start from [`Configured::default`]
/// (z2jh's defaults), then layer values files and options over it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct Configured {
    /// The settings.
    pub settings: CullSettings,
    /// Where each came from.
    pub origins: Origins,
}

/// One row of [`Configured::rows`]: a z2jh key, its value in words, and its origin.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SettingRow {
    /// The z2jh key, e.g. `cull.timeout`.
    pub key: &'static str,
    /// The value in words, e.g. `1h`, `none`, `true`.
    pub value: String,
    /// Where it came from.
    pub origin: Origin,
}

/// Culler settings that do not make sense, with the origin of the value at fault (so a
/// caller can tell an option's bad value from a values file's).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct InvalidSettings {
    /// Where the value at fault came from.
    pub origin: Origin,
    /// What is wrong and what to set; names the origin.
    pub message: String,
}

impl Configured {
    /// Checks the settings make sense together, naming where a bad value came from.
    ///
    /// # Errors
    /// Any duration over [`MAX_DURATION_SECS`]; with culling enabled, `timeout` or `every` of
    /// 0: z2jh then passes no flag and the culler uses its own default (timeout 600 s; every
    /// timeout/2), so the window would be stated from a value the hub does not use.
    pub fn validate(&self) -> Result<(), InvalidSettings> {
        let s = &self.settings;
        let o = &self.origins;
        for (key, secs, origin) in [
            ("cull.timeout", s.timeout_secs, &o.timeout),
            ("cull.every", s.every_secs, &o.every),
            ("cull.maxAge", s.max_age_secs, &o.max_age),
        ] {
            if secs > MAX_DURATION_SECS {
                return Err(InvalidSettings {
                    origin: origin.clone(),
                    message: format!(
                        "{key} is {secs} s ({origin}), more than {}, the longest duration codeq-rollout takes: set the value the hub uses",
                        max_duration_words()
                    ),
                });
            }
        }
        if !s.enabled {
            return Ok(());
        }
        if s.timeout_secs == 0 {
            return Err(InvalidSettings {
                origin: o.timeout.clone(),
                message: format!(
                    "cull.timeout is 0 (or null) while culling is enabled ({}): z2jh then passes no --timeout and the culler falls back to its own 600 s; set cull.timeout (or --cull-timeout) to the idle timeout the hub should use, e.g. 3600",
                    o.timeout
                ),
            });
        }
        if s.every_secs == 0 {
            return Err(InvalidSettings {
                origin: o.every.clone(),
                message: format!(
                    "cull.every is 0 (or null) while culling is enabled ({}): z2jh then passes no --cull-every and the culler checks every timeout/2 ({} s here); set cull.every (or --cull-every) to the interval the hub should use, e.g. 600",
                    o.every,
                    s.timeout_secs / 2
                ),
            });
        }
        Ok(())
    }

    /// The four settings in z2jh's order with their values in words and origins, for the
    /// job summary and `codeq-rollout window`.
    pub fn rows(&self) -> Vec<SettingRow> {
        let s = &self.settings;
        let o = &self.origins;
        vec![
            SettingRow {
                key: "cull.enabled",
                value: s.enabled.to_string(),
                origin: o.enabled.clone(),
            },
            SettingRow {
                key: "cull.timeout",
                value: human(s.timeout_secs),
                origin: o.timeout.clone(),
            },
            SettingRow {
                key: "cull.every",
                value: human(s.every_secs),
                origin: o.every.clone(),
            },
            SettingRow {
                key: "cull.maxAge",
                value: if s.max_age_secs == 0 {
                    "none".into()
                } else {
                    human(s.max_age_secs)
                },
                origin: o.max_age.clone(),
            },
        ]
    }

    /// The rows on one line: `cull.enabled true (default); cull.timeout 1h (values.yaml:
    /// cull.timeout); ...`.
    pub fn origins_line(&self) -> String {
        self.rows()
            .iter()
            .map(|r| format!("{} {} ({})", r.key, r.value, r.origin))
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// The convergence window: how long until running sessions pick up a new image passively.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Window {
    /// Whether the idle culler runs; without it nothing converges passively.
    pub culling_enabled: bool,
    /// Seconds after a session's last activity by which it has been stopped:
    /// `min(timeout, maxAge) + every` (`timeout + every` without a max age); `None` when
    /// culling is disabled.
    pub idle_secs: Option<u64>,
    /// Seconds after the release by which even an active session has been stopped
    /// (`maxAge + every`); `None` when unbounded (`maxAge` 0, or culling disabled).
    pub active_secs: Option<u64>,
}

/// Computes the window from the culler settings (see the module documentation): idle
/// `min(timeout, maxAge if > 0) + every`, active `maxAge + every` when `maxAge > 0`.
/// Durations within [`MAX_DURATION_SECS`] (see [`Configured::validate`]) add exactly;
/// larger ones saturate instead of overflowing.
pub fn compute(settings: &CullSettings) -> Window {
    if !settings.enabled {
        return Window {
            culling_enabled: false,
            idle_secs: None,
            active_secs: None,
        };
    }
    let every = settings.every_secs;
    let max_age = (settings.max_age_secs > 0).then_some(settings.max_age_secs);
    let idle = max_age.map_or(settings.timeout_secs, |m| m.min(settings.timeout_secs));
    Window {
        culling_enabled: true,
        idle_secs: Some(idle.saturating_add(every)),
        active_secs: max_age.map(|m| m.saturating_add(every)),
    }
}

impl Window {
    /// Whether the maximum age stops every session, idle or active, no later than the idle
    /// timeout would (`maxAge <= timeout`): one bound then covers all sessions.
    pub fn max_age_first(&self) -> bool {
        matches!((self.idle_secs, self.active_secs), (Some(i), Some(a)) if a <= i)
    }

    /// One line for the `convergence-window` output and the summary, e.g.
    /// `idle sessions within 1h 10m of last activity; active sessions only when restarted`.
    pub fn summary(&self) -> String {
        if !self.culling_enabled {
            return "no passive bound: culling is disabled, a running session updates only when its user restarts it".into();
        }
        if let (true, Some(active)) = (self.max_age_first(), self.active_secs) {
            return format!(
                "every session, idle or active, within {} of the release (the maximum server age comes before the idle timeout)",
                human(active)
            );
        }
        let idle = format!(
            "idle sessions within {} of last activity",
            human(self.idle_secs.unwrap_or(0))
        );
        match self.active_secs {
            Some(active) => format!(
                "{idle}; active sessions within {} of the release",
                human(active)
            ),
            None => format!("{idle}; active sessions only when their user restarts them"),
        }
    }
}

/// A duration in words, humantime's style within a day, with days as the largest unit
/// written as a word (humantime's own months and years are averages, so 31 days would read
/// `1month 10h 29m 36s`): 4200 → `1h 10m`, 90000 → `1 day 1h`, 0 → `0s`.
/// [`parse_duration_secs`] reads it back.
pub fn human(secs: u64) -> String {
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

/// Parses a culler duration: bare digits are seconds (`3600`), otherwise humantime
/// (`1h`, `10m`, `1h 30m`, `2days`). Returns whole seconds.
///
/// # Errors
/// Empty, negative, sub-second, longer than [`MAX_DURATION_SECS`] or otherwise unparsable
/// text; the error quotes it and shows accepted forms.
pub fn parse_duration_secs(text: &str) -> Result<u64> {
    const FORMS: &str = "write seconds (3600) or a duration such as 1h, 10m, 1h 30m";
    let t = text.trim();
    if t.is_empty() {
        bail!("empty duration: {FORMS}");
    }
    if t.starts_with('-') {
        bail!("{t:?} is negative: durations are 0 or more; {FORMS}");
    }
    let too_long = || {
        anyhow::anyhow!(
            "{t:?} is longer than {}, the longest duration codeq-rollout takes",
            max_duration_words()
        )
    };
    let secs = if t.bytes().all(|b| b.is_ascii_digit()) {
        t.parse::<u64>().map_err(|_| too_long())?
    } else {
        match crate::support::duration::parse(t) {
            Ok(d) if d.subsec_nanos() == 0 => d.as_secs(),
            Ok(_) => bail!("{t:?} is not a whole number of seconds: {FORMS}"),
            Err(humantime::DurationError::NumberOverflow) => bail!(
                "{t:?} is out of range: durations are whole seconds up to {}",
                max_duration_words()
            ),
            Err(err) => bail!("{t:?} is not a duration ({err}): {FORMS}"),
        }
    };
    if secs > MAX_DURATION_SECS {
        return Err(too_long());
    }
    Ok(secs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(enabled: bool, timeout: u64, every: u64, max_age: u64) -> CullSettings {
        CullSettings {
            enabled,
            timeout_secs: timeout,
            every_secs: every,
            max_age_secs: max_age,
        }
    }

    /// The table of issue 5: each case with the expected seconds and words.
    #[test]
    fn window_table() {
        let cases = [
            (
                "z2jh defaults",
                settings(true, 3600, 600, 0),
                Some(4200),
                None,
                "idle sessions within 1h 10m of last activity; active sessions only when their user restarts them",
            ),
            (
                "maxAge 8h",
                settings(true, 3600, 600, 28800),
                Some(4200),
                Some(29400),
                "idle sessions within 1h 10m of last activity; active sessions within 8h 10m of the release",
            ),
            (
                "culling disabled (other values ignored)",
                settings(false, 3600, 600, 28800),
                None,
                None,
                "no passive bound: culling is disabled, a running session updates only when its user restarts it",
            ),
            (
                "every = timeout",
                settings(true, 600, 600, 0),
                Some(1200),
                None,
                "idle sessions within 20m of last activity; active sessions only when their user restarts them",
            ),
            (
                "every = timeout = maxAge",
                settings(true, 3600, 3600, 3600),
                Some(7200),
                Some(7200),
                "every session, idle or active, within 2h of the release (the maximum server age comes before the idle timeout)",
            ),
            (
                "the longest durations taken still add every",
                settings(true, MAX_DURATION_SECS, 600, MAX_DURATION_SECS),
                Some(MAX_DURATION_SECS + 600),
                Some(MAX_DURATION_SECS + 600),
                "every session, idle or active, within 3650 days 10m of the release (the maximum server age comes before the idle timeout)",
            ),
            (
                "a year of timeout",
                settings(true, 365 * 86_400, 86_400, 0),
                Some(366 * 86_400),
                None,
                "idle sessions within 366 days of last activity; active sessions only when their user restarts them",
            ),
            (
                "maxAge shorter than timeout bounds idle sessions too",
                settings(true, 7200, 600, 1800),
                Some(2400),
                Some(2400),
                "every session, idle or active, within 40m of the release (the maximum server age comes before the idle timeout)",
            ),
            (
                "maxAge just longer than timeout",
                settings(true, 3600, 600, 3601),
                Some(4200),
                Some(4201),
                "idle sessions within 1h 10m of last activity; active sessions within 1h 10m 1s of the release",
            ),
        ];
        for (name, s, idle, active, text) in cases {
            let w = compute(&s);
            assert_eq!((w.idle_secs, w.active_secs), (idle, active), "{name}");
            assert_eq!(w.culling_enabled, s.enabled, "{name}");
            assert_eq!(w.summary(), text, "{name}");
        }
    }

    fn configured(settings: CullSettings) -> Configured {
        Configured {
            settings,
            ..Default::default()
        }
    }

    #[test]
    fn zero_every_or_timeout_is_refused_only_when_culling_runs() {
        let err = configured(settings(true, 3600, 0, 0))
            .validate()
            .unwrap_err()
            .to_string();
        assert!(err.contains("cull.every is 0"), "{err}");
        assert!(err.contains("every timeout/2 (1800 s here)"), "{err}");
        let err = configured(settings(true, 0, 600, 0))
            .validate()
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("cull.timeout is 0") && err.contains("600 s"),
            "{err}"
        );
        assert!(configured(settings(false, 0, 0, 0)).validate().is_ok());
        assert!(configured(settings(true, 1, 1, 0)).validate().is_ok());
    }

    #[test]
    fn validation_errors_name_the_origin() {
        let mut c = configured(settings(true, 3600, 0, 0));
        c.origins.every = Origin::File {
            file: "hub/values.yaml".into(),
            key: "jupyterhub.cull.every".into(),
        };
        let err = c.validate().unwrap_err().to_string();
        assert!(
            err.contains("(hub/values.yaml: jupyterhub.cull.every)"),
            "{err}"
        );
        c.origins.every = Origin::Option {
            name: "cull-every".into(),
        };
        let err = c.validate().unwrap_err().to_string();
        assert!(err.contains("(option --cull-every)"), "{err}");
    }

    #[test]
    fn rows_show_values_in_words_with_their_origins() {
        let mut c = configured(settings(true, 7200, 600, 0));
        c.origins.timeout = Origin::File {
            file: "values.yaml".into(),
            key: "cull.timeout".into(),
        };
        assert_eq!(
            c.origins_line(),
            "cull.enabled true (default); cull.timeout 2h (values.yaml: cull.timeout); cull.every 10m (default); cull.maxAge none (default)"
        );
    }

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
            assert_eq!(parse_duration_secs(words).unwrap(), secs, "{words}");
        }
    }

    #[test]
    fn durations_parse() {
        assert_eq!(parse_duration_secs("3600").unwrap(), 3600);
        assert_eq!(parse_duration_secs("0").unwrap(), 0);
        assert_eq!(parse_duration_secs("1h").unwrap(), 3600);
        assert_eq!(parse_duration_secs("10m").unwrap(), 600);
        assert_eq!(parse_duration_secs(" 1h 30m ").unwrap(), 5400);
        for bad in [
            "",
            "-5",
            "-1h",
            "abc",
            "1.5",
            "10 parsecs",
            "1s 500ms",
            "99999999999999999999999",
        ] {
            assert!(parse_duration_secs(bad).is_err(), "{bad:?}");
        }
        assert!(
            parse_duration_secs("-5")
                .unwrap_err()
                .to_string()
                .contains("negative")
        );
    }

    #[test]
    fn durations_are_capped_at_ten_years() {
        assert_eq!(parse_duration_secs("3650days").unwrap(), MAX_DURATION_SECS);
        for long in [
            "315360001",
            "3651days",
            "18446744073709551615",
            "99999999999999999999999",
        ] {
            let err = parse_duration_secs(long).unwrap_err().to_string();
            assert!(
                err.contains("longer than 10 years (315360000 s)"),
                "{long}: {err}"
            );
        }
        let err = parse_duration_secs("600000000000y")
            .unwrap_err()
            .to_string();
        assert!(err.contains("out of range"), "{err}");
        let mut c = configured(settings(true, 3600, 600, MAX_DURATION_SECS + 1));
        c.origins.max_age = Origin::Option {
            name: "cull-max-age".into(),
        };
        let err = c.validate().unwrap_err();
        assert_eq!(err.origin, c.origins.max_age);
        assert!(
            err.message
                .contains("cull.maxAge is 315360001 s (option --cull-max-age), more than 10 years"),
            "{err}"
        );
        // Culling disabled or not, a duration that long is refused.
        c.settings.enabled = false;
        assert!(c.validate().is_err());
    }
}
