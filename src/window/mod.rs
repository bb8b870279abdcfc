//! Stage 3 (pure): the convergence window, from the idle culler's settings (this file), with
//! its calendar check ([`calendar`]) and the pull-policy preflight ([`pull`]).
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
//! That usual bound holds for a server stopped alone with a fast stop. [`at_scale`] gives the
//! worst case for a hub of a given size: the culler 2.0.0 stops the due servers of a pass one
//! after another, and the hub holds each stop request up to its slow-stop timeout, so a
//! server can wait for every other one in the pass (issue 13, measured on JupyterHub 6.1.1).
//!
//! Durations are capped at [`MAX_DURATION_SECS`] (3650 days): beyond that a window is
//! meaningless and sums would overflow.
//!
//! z2jh passes `--timeout` and `--cull-every` only when they are non-zero; with 0 (or null)
//! the culler falls back to its own defaults (timeout 600 s, every timeout/2). A window stated
//! from such a value would be wrong, so [`Configured::validate`] refuses it and asks for the
//! value the hub really uses.

mod calendar;
mod pull;

pub(crate) use calendar::{
    CalendarFix, LAST_DATE, PastTheCalendar, fits_calendar, past_the_calendar,
};
pub(crate) use pull::{
    ImageConfig, ImageTag, PodImage, PodTag, PolicySource, PullPolicy, PullRisk,
};
use serde::Serialize;

/// The longest culler duration taken: 3650 days (315,360,000 s), ten years of 365 days.
/// Longer values are refused rather than stated as a window nobody will see. Said in days:
/// years have no fixed length, and the duration parser refuses them
/// ([`crate::support::duration::parse`]).
pub(crate) const MAX_DURATION_SECS: u64 = 10 * 365 * 86_400;

/// The longest convergence window stated without a warning: 365 days. The culler takes any
/// whole seconds (jupyterhub-idle-culler 1.4 and 2.0 `define("timeout", type=int)`, likewise
/// `cull_every` and `max_age`), so a longer window is what the hub does, and is stated; but it
/// is surely a slip (`3650d` for `3650s`) or a culler that in practice never stops a session
/// before its pod is restarted anyway ([`Configured::warning`]).
pub(crate) const LONG_WINDOW_SECS: u64 = 365 * 86_400;

/// What `announce`, `window` and `docs` warn about the window ([`Configured::warning`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum WindowWarning {
    /// The idle culler is off (`cull.enabled: false`): sessions update only on restart.
    CullingDisabled,
    /// The usual bound is longer than [`LONG_WINDOW_SECS`]: the setting that makes most of
    /// it, and the bound.
    TooLong {
        /// The z2jh key, e.g. `cull.every`.
        key: &'static str,
        /// Its value, seconds.
        secs: u64,
        /// Where it came from.
        origin: Origin,
        /// The window's longest bound, seconds ([`Window::longest_secs`]).
        window_secs: u64,
    },
}

/// Where a culler setting came from, for the job summary and `codeq-rollout window`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
#[serde(tag = "source", rename_all = "lowercase")]
pub(crate) enum Origin {
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

impl Origin {
    /// The origin of a setting read from `file` at the dotted key path `key`.
    pub(crate) fn file(file: impl Into<String>, key: impl Into<String>) -> Self {
        Origin::File {
            file: file.into(),
            key: key.into(),
        }
    }

    /// The origin of a setting given by the option (and Action input) `name`, e.g.
    /// `cull-timeout`.
    pub(crate) fn option(name: impl Into<String>) -> Self {
        Origin::Option { name: name.into() }
    }
}

/// Layers `value`, when there is one, over a setting, and `origin` over its origin.
pub(crate) fn set<T>(value: Option<T>, setting: (&mut T, &mut Origin), origin: Origin) {
    if let Some(value) = value {
        (*setting.0, *setting.1) = (value, origin);
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
    /// z2jh's defaults (4.x `values.yaml`): enabled, `timeout` 3600 s, `every` 600 s, no
    /// `maxAge` (0).
    fn default() -> Self {
        Self {
            enabled: true,
            timeout_secs: 3600,
            every_secs: 600,
            max_age_secs: 0,
        }
    }
}

/// What a release note promised its convergence window from: the culler settings and, when
/// `announce` stated the worst case for the hub's size ([`at_scale`]), that scale. `announce`
/// records it on the note's hidden second line ([`crate::render::marker`]), so that `status`
/// judges the deadlines by what was promised, not by its own settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Promise {
    /// The culler settings the window was computed from.
    pub(crate) culler: CullSettings,
    /// The hub's scale of the worst case stated; `None` when only the usual bound was.
    pub(crate) scale: Option<HubScale>,
}

/// What a release note records of its [`Promise`] (untrusted text: anyone who can edit the
/// note can edit it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PromiseRecord {
    /// No record: a note written before `announce` recorded its settings.
    Absent,
    /// A record that does not parse, or states settings `announce` would refuse: taken as
    /// none.
    Refused,
    /// The settings the note's window was computed from.
    Recorded(Promise),
}

/// Where each culler setting came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct Origins {
    /// Origin of `cull.enabled`.
    pub(crate) enabled: Origin,
    /// Origin of `cull.timeout`.
    pub(crate) timeout: Origin,
    /// Origin of `cull.every`.
    pub(crate) every: Origin,
    /// Origin of `cull.maxAge`.
    pub(crate) max_age: Origin,
}

/// Culler settings with the origin of each value. Start from [`Configured::default`]
/// (z2jh's defaults), then layer values files and options over it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub(crate) struct Configured {
    /// The settings.
    pub(crate) settings: CullSettings,
    /// Where each came from.
    pub(crate) origins: Origins,
    /// The hub's size and slow-stop timeout, for the worst case ([`at_scale`]).
    pub(crate) scale: ScaleConfig,
    /// The single-user image the values files configure, for the pull-policy preflight
    /// ([`ImageConfig::pull_risk`]).
    pub(crate) image: ImageConfig,
}

/// The hub's scale as configured: the size when given, and the slow-stop timeout with where
/// it came from (`hub-size`, `slow-stop-timeout`, the values files).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct ScaleConfig {
    /// The most single-user servers the hub runs at once; `None` when not given, and then
    /// only the usual bound is stated.
    pub(crate) servers: Option<u64>,
    /// The hub's slow-stop timeout, whole seconds (1 or more).
    pub(crate) slow_stop_timeout_secs: u64,
    /// Where the slow-stop timeout came from.
    pub(crate) slow_stop_origin: Origin,
}

impl Default for ScaleConfig {
    /// No hub size; JupyterHub's default slow-stop timeout (10 s).
    fn default() -> Self {
        Self {
            servers: None,
            slow_stop_timeout_secs: DEFAULT_SLOW_STOP_TIMEOUT_SECS,
            slow_stop_origin: Origin::Default,
        }
    }
}

impl ScaleConfig {
    /// The scale [`at_scale`] takes, when the hub's size is given.
    pub(crate) fn hub_scale(&self) -> Option<HubScale> {
        self.servers.map(|servers| HubScale {
            servers,
            slow_stop_timeout_secs: self.slow_stop_timeout_secs,
        })
    }
}

/// The culler options of a command (the Action inputs of the same names), each over what
/// the values files set ([`Configured::override_with`]); `None` when not given. Durations
/// are whole seconds, as their option parsers bound them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Overrides {
    /// `cull-timeout`, over `cull.timeout`.
    pub(crate) timeout_secs: Option<u64>,
    /// `cull-every`, over `cull.every`.
    pub(crate) every_secs: Option<u64>,
    /// `cull-max-age`, over `cull.maxAge` (0: none).
    pub(crate) max_age_secs: Option<u64>,
    /// `cull-enabled`, over `cull.enabled`.
    pub(crate) enabled: Option<bool>,
    /// `slow-stop-timeout`, over the values files' `tornado_settings.slow_stop_timeout`.
    pub(crate) slow_stop_timeout_secs: Option<u64>,
    /// `hub-size`: the most single-user servers the hub runs at once (1 to
    /// [`MAX_HUB_SERVERS`]).
    pub(crate) servers: Option<u64>,
}

/// Culler settings that do not make sense, with the origin of the value at fault (so a
/// caller can tell an option's bad value from a values file's). Its words are the render
/// layer's (`Display` in [`crate::render::window_words`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct InvalidSettings {
    /// Where the value at fault came from.
    pub(crate) origin: Origin,
    /// What is wrong.
    pub(crate) problem: SettingsProblem,
}

impl std::error::Error for InvalidSettings {}

/// What is wrong with culler settings ([`Configured::validate`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SettingsProblem {
    /// A duration over [`MAX_DURATION_SECS`]: the z2jh key and its seconds.
    TooLong {
        /// The z2jh key, e.g. `cull.maxAge`.
        key: &'static str,
        /// Its value, seconds.
        secs: u64,
    },
    /// `cull.timeout` of 0 while culling is enabled: the culler falls back to its own 600 s.
    ZeroTimeout,
    /// `cull.every` of 0 while culling is enabled: the culler checks every `timeout/2`.
    ZeroEvery {
        /// `cull.timeout`, seconds.
        timeout_secs: u64,
    },
}

impl Configured {
    /// Checks the settings make sense together, naming where a bad value came from.
    ///
    /// # Errors
    /// Any duration over [`MAX_DURATION_SECS`]; with culling enabled, `timeout` or `every` of
    /// 0: z2jh then passes no flag and the culler uses its own default (timeout 600 s; every
    /// timeout/2), so the window would be stated from a value the hub does not use.
    pub(crate) fn validate(&self) -> Result<(), InvalidSettings> {
        let (s, o) = (&self.settings, &self.origins);
        let refuse = |origin: &Origin, problem| {
            let origin = origin.clone();
            Err(InvalidSettings { origin, problem })
        };
        for (key, secs, origin) in [
            ("cull.timeout", s.timeout_secs, &o.timeout),
            ("cull.every", s.every_secs, &o.every),
            ("cull.maxAge", s.max_age_secs, &o.max_age),
        ] {
            if secs > MAX_DURATION_SECS {
                return refuse(origin, SettingsProblem::TooLong { key, secs });
            }
        }
        if !s.enabled {
            return Ok(());
        }
        if s.timeout_secs == 0 {
            return refuse(&o.timeout, SettingsProblem::ZeroTimeout);
        }
        if s.every_secs == 0 {
            let timeout_secs = s.timeout_secs;
            return refuse(&o.every, SettingsProblem::ZeroEvery { timeout_secs });
        }
        Ok(())
    }

    /// `options` over these settings (a values file's or z2jh's default), each given one with
    /// its option as origin ([`Origin::Option`], e.g. `cull-timeout`).
    pub(crate) fn override_with(&mut self, options: &Overrides) {
        let given = [
            options.timeout_secs,
            options.every_secs,
            options.max_age_secs,
        ];
        for ((_, name, setting), value) in self.durations().into_iter().zip(given) {
            set(value, setting, Origin::option(name));
        }
        if let Some(v) = options.enabled {
            (self.settings.enabled, self.origins.enabled) = (v, Origin::option("cull-enabled"));
        }
        let (scale, slow_stop) = (&mut self.scale, Origin::option("slow-stop-timeout"));
        if let Some(v) = options.slow_stop_timeout_secs {
            (scale.slow_stop_timeout_secs, scale.slow_stop_origin) = (v, slow_stop);
        }
        scale.servers = options.servers.or(scale.servers);
    }

    /// The duration settings in z2jh's order, each with its key under `cull`, its option (the
    /// Action input of the same name), and its seconds and origin.
    pub(crate) fn durations(
        &mut self,
    ) -> [(&'static str, &'static str, (&mut u64, &mut Origin)); 3] {
        let (s, o) = (&mut self.settings, &mut self.origins);
        [
            (
                "timeout",
                "cull-timeout",
                (&mut s.timeout_secs, &mut o.timeout),
            ),
            ("every", "cull-every", (&mut s.every_secs, &mut o.every)),
            (
                "maxAge",
                "cull-max-age",
                (&mut s.max_age_secs, &mut o.max_age),
            ),
        ]
    }

    /// What to warn about these settings' window: culling disabled, or a usual bound longer
    /// than [`LONG_WINDOW_SECS`], naming the larger of `every` and the bound's own setting
    /// (`maxAge` when set, else `timeout`: [`compute`]); `None` otherwise.
    pub(crate) fn warning(&self) -> Option<WindowWarning> {
        let Some(window_secs) = compute(&self.settings).longest_secs() else {
            return Some(WindowWarning::CullingDisabled);
        };
        let (s, o) = (&self.settings, &self.origins);
        let bound = match s.max_age_secs {
            0 => ("cull.timeout", s.timeout_secs, &o.timeout),
            secs => ("cull.maxAge", secs, &o.max_age),
        };
        let every = ("cull.every", s.every_secs, &o.every);
        let (key, secs, origin) = if every.1 > bound.1 { every } else { bound };
        let origin = origin.clone();
        (window_secs > LONG_WINDOW_SECS).then_some(WindowWarning::TooLong {
            key,
            secs,
            origin,
            window_secs,
        })
    }

    /// The window these settings give: [`compute`]'s usual bound, with [`at_scale`]'s worst
    /// case when the hub's size is given and culling runs.
    pub(crate) fn window(&self) -> Window {
        let mut window = compute(&self.settings);
        if window.culling_enabled {
            window.worst = self
                .scale
                .hub_scale()
                .map(|scale| at_scale(&self.settings, &scale));
        }
        window
    }
}

/// The convergence window: how long until running sessions pick up a new image passively
/// ([`Window::default`]: culling disabled, no bound).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
pub struct Window {
    /// Whether the idle culler runs; without it nothing converges passively.
    pub(crate) culling_enabled: bool,
    /// Seconds after a session's last activity by which it has been stopped:
    /// `min(timeout, maxAge) + every` (`timeout + every` without a max age); `None` when
    /// culling is disabled.
    pub idle_secs: Option<u64>,
    /// Seconds after the release by which even an active session has been stopped
    /// (`maxAge + every`); `None` when unbounded (`maxAge` 0, or culling disabled).
    pub(crate) active_secs: Option<u64>,
    /// The worst case for the hub's size ([`at_scale`]), when it is given and culling runs;
    /// [`compute`] leaves it `None`, [`Configured::window`] fills it in.
    pub(crate) worst: Option<WorstCase>,
}

/// Computes the window from the culler settings (see the module documentation): idle
/// `min(timeout, maxAge if > 0) + every`, active `maxAge + every` when `maxAge > 0`.
/// Durations within `MAX_DURATION_SECS` (see `Configured::validate`) add exactly;
/// larger ones saturate instead of overflowing.
pub fn compute(settings: &CullSettings) -> Window {
    if !settings.enabled {
        return Window::default();
    }
    let every = settings.every_secs;
    let max_age = (settings.max_age_secs > 0).then_some(settings.max_age_secs);
    let idle = max_age.map_or(settings.timeout_secs, |m| m.min(settings.timeout_secs));
    Window {
        culling_enabled: true,
        idle_secs: Some(idle.saturating_add(every)),
        active_secs: max_age.map(|m| m.saturating_add(every)),
        worst: None,
    }
}

impl Window {
    /// Whether the maximum age stops every session, idle or active, no later than the idle
    /// timeout would (`maxAge <= timeout`): one bound then covers all sessions.
    pub(crate) fn max_age_first(&self) -> bool {
        matches!((self.idle_secs, self.active_secs), (Some(i), Some(a)) if a <= i)
    }

    /// Seconds after last activity by which an idle session has been stopped, never later:
    /// the worst case for the hub's size when given, else the usual bound; `None` when
    /// culling is disabled. What the `idle-window-seconds` output carries.
    pub(crate) fn latest_idle_secs(&self) -> Option<u64> {
        self.worst.map_or(self.idle_secs, |w| w.idle_secs)
    }

    /// Seconds after the release by which even an active session has been stopped, never
    /// later (as [`Window::latest_idle_secs`]); `None` when unbounded. What the
    /// `active-window-seconds` output carries.
    pub(crate) fn latest_active_secs(&self) -> Option<u64> {
        self.worst.map_or(self.active_secs, |w| w.active_secs)
    }

    /// The longest bound, seconds: the latest of the idle and active bounds, the worst case
    /// for the hub's size included; `None` when culling is disabled (no deadline is stated).
    pub(crate) fn longest_secs(&self) -> Option<u64> {
        self.latest_idle_secs().max(self.latest_active_secs())
    }
}

/// JupyterHub's default slow-stop timeout, seconds: `BaseHandler.slow_stop_timeout` returns
/// `self.settings.get('slow_stop_timeout', 10)` (jupyterhub 6.1.1, `handlers/base.py`).
pub(crate) const DEFAULT_SLOW_STOP_TIMEOUT_SECS: u64 = 10;
/// The largest hub size taken: a million servers at once. Larger values are refused rather
/// than stated as a window.
pub(crate) const MAX_HUB_SERVERS: u64 = 1_000_000;

/// The hub's scale, for the worst case of [`at_scale`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct HubScale {
    /// The most single-user servers the hub runs at once (1 or more). Every one of them may
    /// go idle in the same cull pass.
    pub servers: u64,
    /// The hub's slow-stop timeout, whole seconds (1 or more): how long the hub holds a
    /// `DELETE /users/{name}/server` waiting for the server to stop before answering 202.
    /// JupyterHub 6.1.1 reads it from the tornado settings (`handlers/base.py`,
    /// `self.settings.get('slow_stop_timeout', 10)`), so in z2jh values it is
    /// `hub.config.JupyterHub.tornado_settings.slow_stop_timeout`.
    pub slow_stop_timeout_secs: u64,
}

/// The worst case for a hub of a given size: the latest a server can stop, in whole seconds,
/// "never later than" as `Window`'s fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct WorstCase {
    /// The scale this bound is for.
    pub(crate) scale: HubScale,
    /// Seconds one cull pass can take on this hub: `servers × slow_stop_timeout`, the culler
    /// stopping every server one after another, each `DELETE` held up to the slow-stop
    /// timeout.
    pub pass_secs: u64,
    /// Seconds added when a server becomes due during a pass that does not stop it, for
    /// servers restarted during that pass that are due again by the next one:
    /// `min((servers − 1) × slow_stop_timeout, servers × slow_stop_timeout + every −
    /// min(timeout, maxAge))`, 0 when no restarted server can be due that soon.
    pub carry_secs: u64,
    /// Seconds after a session's last activity by which it has been stopped:
    /// `Window::idle_secs` + `pass_secs` + `carry_secs`; `None` when culling is disabled.
    pub idle_secs: Option<u64>,
    /// Seconds after a session's start by which even an active session has been stopped:
    /// `Window::active_secs` + `pass_secs` + `carry_secs`; `None` when unbounded.
    pub active_secs: Option<u64>,
}

impl WorstCase {
    /// The later of its two bounds, seconds; `None` when neither is set (culling disabled and
    /// no maximum age).
    pub(crate) fn longest_secs(&self) -> Option<u64> {
        self.idle_secs.max(self.active_secs)
    }
}

/// The latest time a server stops on a hub of `scale`, from the culler's and the hub's code.
///
/// Sources: jupyterhub-idle-culler 2.0.0 `jupyterhub_idle_culler/__init__.py`, JupyterHub
/// 6.1.1 `handlers/base.py` and `apihandlers/users.py`, tornado 6.x `ioloop.py`.
///
/// 1. A cull pass takes `now` once, before listing the users (`cull_idle`: `now =
///    utcnow()`), so a server is due in the first pass that starts at or after the moment
///    `e` it becomes due: `last_activity + timeout`, or `started + maxAge`.
/// 2. Passes run on tornado's `PeriodicCallback(cull, 1e3 * cull_every)`, which awaits the
///    pass and then schedules the next tick on the original grid, skipping missed ticks
///    (`_update_next`). Passes never overlap (apart from the first, `loop.add_callback`,
///    which only stops servers sooner); when none runs at `e`, the next one starts by
///    `e + every`.
/// 3. In a pass the culler collects one bare coroutine per user (`futures.append((name,
///    handle_user(user)))`) and awaits them one after another (`for name, f in futures:
///    await f`): the users are handled in turn, whatever `--concurrency` says (its semaphore
///    only bounds requests in flight, and one is). A due server costs one `DELETE`, which the
///    hub holds until the server has stopped, at most the slow-stop timeout, then answers 202
///    and lets the stop go on (`stop_single_user`: `wait_for_shielded(future,
///    timeout=self.slow_stop_timeout)`). A pass on a hub of `servers` servers thus takes at
///    most `pass = servers × slow_stop_timeout`, and the last server in it stops by the
///    pass's start + `pass`.
/// 4. When `e` falls inside a pass that does not stop the server (it started before `e`),
///    that pass stops k others first (≤ `servers − 1`), the next one starts at most `every`
///    after it ends (point 2) and stops at most `servers − 1 − k` + r others before this
///    one, r being servers restarted during the first pass that are due already. A restarted
///    server is due only `min(timeout, maxAge)` after its start (the hub sets its
///    `started` and `last_activity` when it spawns, `user.py`), so r × slow_stop_timeout ≤
///    `carry` (see [`WorstCase::carry_secs`]).
///
/// Hence a server stops by `e + every + pass + carry`. Assumptions, stated: each server's own
/// stop (for KubeSpawner, deleting its pod) takes at most the slow-stop timeout (a longer one
/// goes on after the 202, and that server stops later by the excess; the culler does not wait
/// for it); listing users and deciding take well under a second; and no more than `servers`
/// run at once. With fast stops and one server this is [`compute`]'s usual bound plus the
/// slow-stop timeout; the usual bound stays what most sessions see.
///
/// Durations add saturating (see `MAX_DURATION_SECS`, `MAX_HUB_SERVERS`). A hub size of 0
/// counts as 1; the options' parsers (`cli`) refuse 0 before this runs.
pub fn at_scale(settings: &CullSettings, scale: &HubScale) -> WorstCase {
    let usual = compute(settings);
    let n = scale.servers.max(1);
    let d = scale.slow_stop_timeout_secs;
    let pass = n.saturating_mul(d);
    let due_after = match settings.max_age_secs {
        0 => settings.timeout_secs,
        m => m.min(settings.timeout_secs),
    };
    let carry = (n - 1).saturating_mul(d).min(
        pass.saturating_add(settings.every_secs)
            .saturating_sub(due_after),
    );
    let extra = |secs: u64| secs.saturating_add(pass).saturating_add(carry);
    WorstCase {
        scale: *scale,
        pass_secs: pass,
        carry_secs: carry,
        idle_secs: usual.idle_secs.map(extra),
        active_secs: usual.active_secs.map(extra),
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

    /// The table of issue 5: each case with its seconds and words, in one snapshot.
    #[test]
    fn window_table() {
        let cases = [
            ("z2jh defaults", settings(true, 3600, 600, 0)),
            ("maxAge 8h", settings(true, 3600, 600, 28800)),
            (
                "culling disabled (other values ignored)",
                settings(false, 3600, 600, 28800),
            ),
            ("every = timeout", settings(true, 600, 600, 0)),
            ("every = timeout = maxAge", settings(true, 3600, 3600, 3600)),
            (
                "the longest durations taken still add every",
                settings(true, MAX_DURATION_SECS, 600, MAX_DURATION_SECS),
            ),
            ("a year of timeout", settings(true, 365 * 86_400, 86_400, 0)),
            (
                "maxAge shorter than timeout bounds idle sessions too",
                settings(true, 7200, 600, 1800),
            ),
            (
                "maxAge just longer than timeout",
                settings(true, 3600, 600, 3601),
            ),
        ];
        let mut table = Vec::new();
        for (name, s) in cases {
            let w = compute(&s);
            assert_eq!(w.culling_enabled, s.enabled, "{name}");
            table.push(format!(
                "{name}: {s:?}\n  idle {:?}, active {:?}\n  {}",
                w.idle_secs,
                w.active_secs,
                w.summary()
            ));
        }
        insta::assert_snapshot!(table.join("\n\n"));
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
        c.origins.every = Origin::file("hub/values.yaml", "jupyterhub.cull.every");
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
        c.origins.timeout = Origin::file("values.yaml", "cull.timeout");
        assert_eq!(
            c.origins_line(),
            "cull.enabled true (default); cull.timeout 2h (values.yaml: cull.timeout); cull.every 10m (default); cull.maxAge none (default)"
        );
    }

    #[test]
    fn durations_over_3650_days_are_refused_naming_their_origin() {
        let mut c = configured(settings(true, 3600, 600, MAX_DURATION_SECS + 1));
        c.origins.max_age = Origin::Option {
            name: "cull-max-age".into(),
        };
        let err = c.validate().unwrap_err();
        assert_eq!(err.origin, c.origins.max_age);
        assert!(
            err.to_string()
                .contains("cull.maxAge is 315360001 s (option --cull-max-age), more than 3650 days (315360000 s)"),
            "{err}"
        );
        // Culling disabled or not, a duration that long is refused.
        c.settings.enabled = false;
        assert!(c.validate().is_err());
    }

    /// A usual bound of over a year is warned about, naming the setting that makes most of
    /// it (the larger of every and maxAge, or timeout without a maxAge); culling off too.
    #[test]
    fn a_window_of_over_a_year_is_warned_naming_the_setting() {
        const DAY: u64 = 86_400;
        let too_long = |key, secs, window_secs| {
            let origin = Origin::Default;
            Some(WindowWarning::TooLong {
                key,
                secs,
                origin,
                window_secs,
            })
        };
        let cases = [
            (settings(true, 3600, 600, 0), None),
            (settings(true, 365 * DAY - 600, 600, 0), None),
            (
                settings(true, 365 * DAY, 600, 0),
                too_long("cull.timeout", 365 * DAY, 365 * DAY + 600),
            ),
            (
                settings(true, 3600, 3650 * DAY, 0),
                too_long("cull.every", 3650 * DAY, 3650 * DAY + 3600),
            ),
            (settings(true, 3650 * DAY, 600, 8 * 3600), None),
            (
                settings(true, 3600, 600, 3650 * DAY),
                too_long("cull.maxAge", 3650 * DAY, 3650 * DAY + 600),
            ),
            (
                settings(true, 200 * DAY, 300 * DAY, 0),
                too_long("cull.every", 300 * DAY, 500 * DAY),
            ),
            (
                settings(false, 3650 * DAY, 600, 0),
                Some(WindowWarning::CullingDisabled),
            ),
        ];
        for (s, warning) in cases {
            assert_eq!(configured(s).warning(), warning, "{s:?}");
        }
    }

    fn scale(servers: u64, slow_stop_timeout_secs: u64) -> HubScale {
        HubScale {
            servers,
            slow_stop_timeout_secs,
        }
    }

    #[test]
    fn the_worst_case_adds_one_pass_across_the_hub() {
        // z2jh defaults, 100 servers going idle at once, JupyterHub's 10 s slow-stop timeout:
        // 1h 10m, up to 1h 26m 40s (the "up to 1h 27m").
        let w = at_scale(&settings(true, 3600, 600, 0), &scale(100, 10));
        assert_eq!((w.pass_secs, w.carry_secs), (1000, 0));
        assert_eq!((w.idle_secs, w.active_secs), (Some(5200), None));
        // One server: the usual bound plus the slow-stop timeout for its own stop.
        let w = at_scale(&settings(true, 3600, 600, 28800), &scale(1, 10));
        assert_eq!((w.idle_secs, w.active_secs), (Some(4210), Some(29410)));
        // Culling disabled: no bound at any scale.
        let w = at_scale(&settings(false, 3600, 600, 0), &scale(100, 10));
        assert_eq!((w.idle_secs, w.active_secs), (None, None));
    }

    #[test]
    fn the_window_states_the_worst_case_only_with_a_hub_size() {
        let mut c = configured(settings(true, 3600, 600, 28800));
        let usual = c.window();
        assert_eq!(usual.worst, None);
        assert_eq!(
            (usual.latest_idle_secs(), usual.latest_active_secs()),
            (Some(4200), Some(29400))
        );
        c.scale.servers = Some(100);
        let w = c.window();
        assert_eq!((w.idle_secs, w.active_secs), (Some(4200), Some(29400)));
        assert_eq!(
            (w.latest_idle_secs(), w.latest_active_secs()),
            (Some(5200), Some(30400))
        );
        assert_eq!(
            w.summary(),
            "idle sessions within 1h 10m of last activity (up to 1h 27m with 100 servers going idle in the same cull pass); active sessions within 8h 10m of the release (up to 8h 27m with 100 servers reaching the maximum server age in the same cull pass)"
        );
        c.settings.max_age_secs = 1800;
        assert_eq!(
            c.window().summary(),
            "every session, idle or active, within 40m of the release (the maximum server age comes before the idle timeout; up to 57m with 100 servers reaching it in the same cull pass)"
        );
        c.settings.enabled = false;
        assert_eq!(c.window().worst, None);
        assert_eq!(c.window().latest_idle_secs(), None);
    }

    #[test]
    fn a_pass_longer_than_the_idle_timeout_carries_restarted_servers() {
        // The test rig's first hub: timeout 12 s, every 4 s, 7 servers, 1 s slow-stop
        // timeout: no restarted server is due by the next pass.
        let w = at_scale(&settings(true, 12, 4, 0), &scale(7, 1));
        assert_eq!((w.pass_secs, w.carry_secs, w.idle_secs), (7, 0, Some(23)));
        // 3 s per stop: a pass (21 s) outlasts the timeout; servers restarted early in it
        // can be due in the next one: 21 + 4 - 12 = 13 s more, at most (7 - 1) x 3 = 18.
        let w = at_scale(&settings(true, 12, 4, 0), &scale(7, 3));
        assert_eq!((w.pass_secs, w.carry_secs, w.idle_secs), (21, 13, Some(50)));
        // The carry is capped by the servers the first pass can have stopped.
        let w = at_scale(&settings(true, 1, 1, 0), &scale(7, 3));
        assert_eq!(w.carry_secs, 18);
        // A maximum age shorter than the timeout makes restarted servers due sooner.
        let w = at_scale(&settings(true, 3600, 60, 30), &scale(10, 10));
        assert_eq!((w.pass_secs, w.carry_secs), (100, 90));
        assert_eq!((w.idle_secs, w.active_secs), (Some(280), Some(280)));
    }

    mod monotone {
        use super::*;
        use proptest::prelude::*;

        const MAX: u64 = 100_000;

        fn bounds(t: u64, e: u64, m: u64, n: u64, d: u64) -> (u64, Option<u64>) {
            let w = at_scale(&settings(true, t, e, m), &scale(n, d));
            (w.idle_secs.unwrap(), w.active_secs)
        }

        proptest! {
            /// Each bound grows with every, the hub size and the slow-stop timeout; the idle
            /// bound with the timeout and the maximum age; the active bound with the maximum
            /// age. A longer timeout can only tighten the active bound (restarted servers are
            /// due later), never loosen it. The worst case is never below the usual bound and
            /// adds at most two passes.
            #[test]
            fn bounds_are_monotone(
                t in 1..MAX, e in 1..MAX, m in 0..MAX, n in 1..1000u64, d in 1..600u64,
                dt in 0..MAX, de in 0..MAX, dm in 0..MAX, dn in 0..1000u64, dd in 0..600u64,
            ) {
                let (idle, active) = bounds(t, e, m, n, d);
                for (name, (i2, a2)) in [
                    ("every", bounds(t, e + de, m, n, d)),
                    ("hub size", bounds(t, e, m, n + dn, d)),
                    ("slow-stop timeout", bounds(t, e, m, n, d + dd)),
                    ("max age", bounds(t, e, m + dm, n, d)),
                ] {
                    prop_assert!(i2 >= idle, "idle bound fell with a larger {}", name);
                    if let (Some(a), Some(a2)) = (active, a2) {
                        prop_assert!(a2 >= a, "active bound fell with a larger {}", name);
                    }
                }
                let (i2, a2) = bounds(t + dt, e, m, n, d);
                prop_assert!(i2 >= idle);
                if let (Some(a), Some(a2)) = (active, a2) {
                    prop_assert!(a2 <= a);
                }
                let usual = compute(&settings(true, t, e, m));
                let w = at_scale(&settings(true, t, e, m), &scale(n, d));
                prop_assert!(idle >= usual.idle_secs.unwrap() + w.pass_secs);
                prop_assert!(idle <= usual.idle_secs.unwrap() + 2 * w.pass_secs);
                prop_assert!(w.carry_secs < w.pass_secs);
            }
        }
    }
}
