//! Stage 3 (pure): the convergence window, from the idle culler's settings.
//!
//! Source of the rules: jupyterhub-idle-culler (1.4, 2.0) as configured by Zero to
//! JupyterHub 4.x `cull.*`. The culler runs at start and then every `every` seconds; it stops
//! a server when `now - last_activity >= timeout`, or, when `maxAge > 0`, when
//! `now - started >= maxAge` even if it is active. So a server stops by
//! `min(last_activity + timeout, started + maxAge) + every` (plus a stop latency of seconds).
//! From the release at P: an idle session is gone by `P + timeout + every`; an active one by
//! `P + maxAge + every` when `maxAge > 0`, and never passively otherwise.

use anyhow::{Result, bail};
use serde::Serialize;
use std::time::Duration;

/// z2jh's default `cull.timeout`: 3600 seconds.
pub const DEFAULT_TIMEOUT_SECS: u64 = 3600;
/// z2jh's default `cull.every`: 600 seconds.
pub const DEFAULT_EVERY_SECS: u64 = 600;
/// z2jh's default `cull.maxAge`: 0 seconds (no maximum age).
pub const DEFAULT_MAX_AGE_SECS: u64 = 0;

/// Where a culler setting came from, for the job summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    /// z2jh's chart default.
    #[default]
    Default,
    /// A JupyterHub values file.
    File,
    /// An explicit option or Action input.
    Option,
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
            enabled: true,
            timeout_secs: DEFAULT_TIMEOUT_SECS,
            every_secs: DEFAULT_EVERY_SECS,
            max_age_secs: DEFAULT_MAX_AGE_SECS,
        }
    }
}

impl CullSettings {
    /// Checks the settings make sense together.
    ///
    /// # Errors
    /// `every` of 0 while culling is enabled (the culler would never run).
    pub fn validate(&self) -> Result<()> {
        if self.enabled && self.every_secs == 0 {
            bail!(
                "cull every is 0 while culling is enabled: the culler would never run; set cull-every to a positive duration such as 10m"
            );
        }
        Ok(())
    }
}

/// Where each culler setting came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
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

/// Culler settings with the origin of each value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
pub struct Configured {
    /// The settings.
    pub settings: CullSettings,
    /// Where each came from.
    pub origins: Origins,
}

/// The convergence window: how long until running sessions pick up a new image passively.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Window {
    /// Whether the idle culler runs; without it nothing converges passively.
    pub culling_enabled: bool,
    /// Seconds after a session's last activity by which it has been stopped
    /// (`timeout + every`); `None` when culling is disabled.
    pub idle_secs: Option<u64>,
    /// Seconds after the release by which even an active session has been stopped
    /// (`maxAge + every`); `None` when unbounded (`maxAge` 0, or culling disabled).
    pub active_secs: Option<u64>,
}

/// Computes the window from the culler settings. Saturates instead of overflowing.
pub fn compute(settings: &CullSettings) -> Window {
    if !settings.enabled {
        return Window {
            culling_enabled: false,
            idle_secs: None,
            active_secs: None,
        };
    }
    let every = settings.every_secs;
    Window {
        culling_enabled: true,
        idle_secs: Some(settings.timeout_secs.saturating_add(every)),
        active_secs: (settings.max_age_secs > 0)
            .then(|| settings.max_age_secs.saturating_add(every)),
    }
}

impl Window {
    /// One line for the `convergence-window` output and the summary, e.g.
    /// `idle sessions within 1h 10m of last activity; active sessions only when restarted`.
    pub fn summary(&self) -> String {
        if !self.culling_enabled {
            return "no passive bound: culling is disabled, a running session updates only when its user restarts it".into();
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

/// A duration in words as humantime writes it: 4200 → `1h 10m`, 0 → `0s`.
pub fn human(secs: u64) -> String {
    humantime::format_duration(Duration::from_secs(secs)).to_string()
}

/// Parses a culler duration: bare digits are seconds (`3600`), otherwise humantime
/// (`1h`, `10m`, `1h 30m`, `2days`). Returns whole seconds.
///
/// # Errors
/// Empty, negative, fractional-with-unit or otherwise unparsable text; the error quotes it
/// and shows accepted forms.
pub fn parse_duration_secs(text: &str) -> Result<u64> {
    let t = text.trim();
    if t.is_empty() {
        bail!("empty duration: write seconds (3600) or a duration such as 1h, 10m, 1h 30m");
    }
    if t.bytes().all(|b| b.is_ascii_digit()) {
        return t
            .parse::<u64>()
            .map_err(|_| anyhow::anyhow!("duration {t:?} is too large"));
    }
    match humantime::parse_duration(t) {
        Ok(d) => Ok(d.as_secs()),
        Err(err) => bail!(
            "{t:?} is not a duration ({err}): write seconds (3600) or a duration such as 1h, 10m, 1h 30m"
        ),
    }
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

    #[test]
    fn window_table() {
        let cases = [
            (
                settings(true, 3600, 600, 0),
                Some(4200),
                None,
                "idle sessions within 1h 10m of last activity; active sessions only when their user restarts them",
            ),
            (
                settings(true, 3600, 600, 28800),
                Some(4200),
                Some(29400),
                "idle sessions within 1h 10m of last activity; active sessions within 8h 10m of the release",
            ),
            (
                settings(false, 3600, 600, 28800),
                None,
                None,
                "no passive bound: culling is disabled, a running session updates only when its user restarts it",
            ),
            (
                settings(true, 600, 600, 0),
                Some(1200),
                None,
                "idle sessions within 20m of last activity; active sessions only when their user restarts them",
            ),
            (
                settings(true, u64::MAX, 600, u64::MAX),
                Some(u64::MAX),
                Some(u64::MAX),
                "",
            ),
        ];
        for (s, idle, active, text) in cases {
            let w = compute(&s);
            assert_eq!((w.idle_secs, w.active_secs), (idle, active), "{s:?}");
            if !text.is_empty() {
                assert_eq!(w.summary(), text);
            }
        }
    }

    #[test]
    fn every_zero_is_refused_only_when_culling_runs() {
        assert!(settings(true, 3600, 0, 0).validate().is_err());
        assert!(settings(false, 3600, 0, 0).validate().is_ok());
    }

    #[test]
    fn durations_parse() {
        assert_eq!(parse_duration_secs("3600").unwrap(), 3600);
        assert_eq!(parse_duration_secs("1h").unwrap(), 3600);
        assert_eq!(parse_duration_secs("10m").unwrap(), 600);
        assert_eq!(parse_duration_secs(" 1h 30m ").unwrap(), 5400);
        for bad in [
            "",
            "-5",
            "abc",
            "1.5",
            "10 parsecs",
            "99999999999999999999999",
        ] {
            assert!(parse_duration_secs(bad).is_err(), "{bad:?}");
        }
    }
}
