//! Pure: the idle culler's model, by which a stale server's deadline is forecast (the same
//! model as the release note's convergence window), and which culler settings the deadlines
//! follow: those the release note promised when it records them, else `status`'s own
//! ([`deadline_basis`], issue 32).

use super::ServerTimes;
use crate::window::{CullSettings, HubScale, Promise, PromiseRecord, ScaleConfig, at_scale};
use time::{Duration, OffsetDateTime};

/// The longest a single-user server in use goes without the hub recording new activity, in
/// seconds: 330. JupyterHub's single-user servers post their last activity to the hub every
/// `JUPYTERHUB_ACTIVITY_INTERVAL` seconds, 300 by default (`hub_activity_interval`), each
/// wait drawn within ±10 % of it (`keep_activity_updated`: `interval * (1 + 0.2 *
/// (random() - 0.5))`), jupyterhub 5.5.1 and 6.0 `jupyterhub/singleuser/extension.py`; the hub
/// polls the proxy's activity every `JupyterHub.last_activity_interval` (300 s, `app.py`).
/// A server whose last recorded activity is older was not in use for at least that long.
pub(crate) const ACTIVE_WITHIN_SECS: u64 = 330;

/// The idle culler's behaviour, as `status` needs it: one implementation shared with the
/// convergence window stated in the release note.
pub trait CullerModel {
    /// Whether the server is active at `now`: its activity is recent enough to expect more
    /// (inactive for less than `ACTIVE_WITHIN_SECS`) and the culler would not stop it for
    /// inactivity in a pass at `now` (inactive for less than the idle timeout). A server
    /// with no times at all counts as active (nothing says it will be culled).
    fn is_active(&self, times: &ServerTimes, now: OffsetDateTime) -> bool;

    /// The time by which the culler will have stopped the server if it receives no more
    /// activity after `now`'s reading, idle or active alike; `None` when nothing will stop
    /// it passively (culling disabled, or no times at all). May be before `now` (overdue).
    fn deadline(&self, times: &ServerTimes, now: OffsetDateTime) -> Option<OffsetDateTime>;

    /// The time by which the culler will have stopped the server even if it stays in use:
    /// its maximum age; `None` without one (or culling disabled, or no start time): a
    /// server in use is then never stopped passively.
    fn in_use_deadline(&self, times: &ServerTimes) -> Option<OffsetDateTime>;
}

/// The culler model of [`crate::window::compute`] (z2jh `cull.*`, culler 1.4/2.0), per
/// server: stopped by `min(inactive_since + timeout, started + maxAge if maxAge > 0) +
/// every` if no more activity comes, whether it is active now or not; by `started + maxAge +
/// every` at the latest while in use when `maxAge > 0`, and never passively while in use
/// otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SettingsModel(pub CullSettings);

/// `s` seconds as a [`Duration`].
pub(super) fn secs(s: u64) -> Duration {
    Duration::seconds(i64::try_from(s).unwrap_or(i64::MAX))
}

impl CullerModel for SettingsModel {
    fn is_active(&self, times: &ServerTimes, now: OffsetDateTime) -> bool {
        let within = self.0.timeout_secs.min(ACTIVE_WITHIN_SECS);
        match times.inactive_since() {
            Some(since) => now - since < secs(within),
            None => true,
        }
    }

    fn deadline(&self, times: &ServerTimes, _now: OffsetDateTime) -> Option<OffsetDateTime> {
        let s = &self.0;
        if !s.enabled {
            return None;
        }
        let idle = times
            .inactive_since()
            .and_then(|since| since.checked_add(secs(s.timeout_secs)));
        let first = match (idle, self.max_age_reached(times)) {
            (Some(i), Some(m)) => Some(i.min(m)),
            (i, m) => i.or(m),
        };
        first.and_then(|t| t.checked_add(secs(s.every_secs)))
    }

    fn in_use_deadline(&self, times: &ServerTimes) -> Option<OffsetDateTime> {
        self.0
            .enabled
            .then(|| self.max_age_reached(times))
            .flatten()
            .and_then(|t| t.checked_add(secs(self.0.every_secs)))
    }
}

impl SettingsModel {
    /// When the server reaches the maximum age (`started + maxAge`); `None` without a
    /// maximum age or a start time.
    fn max_age_reached(&self, times: &ServerTimes) -> Option<OffsetDateTime> {
        (self.0.max_age_secs > 0)
            .then_some(times.started)
            .flatten()
            .and_then(|started| started.checked_add(secs(self.0.max_age_secs)))
    }
}

/// The culler model of the release note's worst case at the hub's scale
/// ([`crate::window::at_scale`]): [`SettingsModel`]'s deadline plus the time one cull pass can
/// take on a hub of `scale` servers (`pass_secs`) and the carry of servers restarted during
/// it (`carry_secs`), so a deadline here is never earlier than the release note's bound for
/// the same settings and hub size. Whether a server is active is [`SettingsModel`]'s test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AtScaleModel {
    /// The culler settings.
    pub settings: CullSettings,
    /// The hub's size and slow-stop timeout.
    pub scale: HubScale,
}

impl CullerModel for AtScaleModel {
    fn is_active(&self, times: &ServerTimes, now: OffsetDateTime) -> bool {
        SettingsModel(self.settings).is_active(times, now)
    }

    fn deadline(&self, times: &ServerTimes, now: OffsetDateTime) -> Option<OffsetDateTime> {
        self.plus_pass(SettingsModel(self.settings).deadline(times, now))
    }

    fn in_use_deadline(&self, times: &ServerTimes) -> Option<OffsetDateTime> {
        self.plus_pass(SettingsModel(self.settings).in_use_deadline(times))
    }
}

impl AtScaleModel {
    /// `deadline` plus the pass and carry of [`at_scale`] for these settings and scale.
    fn plus_pass(&self, deadline: Option<OffsetDateTime>) -> Option<OffsetDateTime> {
        let worst = at_scale(&self.settings, &self.scale);
        deadline.and_then(|d| d.checked_add(secs(worst.pass_secs.saturating_add(worst.carry_secs))))
    }
}

/// The settings the deadlines follow, and why ([`deadline_basis`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DeadlineSettings {
    /// The culler settings.
    pub(crate) culler: CullSettings,
    /// The hub's size (when known) and slow-stop timeout.
    pub(crate) scale: ScaleConfig,
    /// Where they came from.
    pub(crate) basis: Basis,
}

/// Which settings the deadlines follow ([`deadline_basis`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Basis {
    /// The release note's promise; `own` holds `status`'s own settings when they differ.
    Promised {
        /// What the note records.
        promise: Promise,
        /// `status`'s own settings (culler options and values files; hub size when given,
        /// and slow-stop timeout), when they differ from the promise.
        own: Option<(CullSettings, ScaleConfig)>,
    },
    /// `status`'s own settings: the note's record was refused ([`PromiseRecord::Refused`]).
    Refused,
    /// `status`'s own settings: the note records none (written before `announce` recorded
    /// them).
    NotRecorded,
    /// `status`'s own settings: no release note was read (`--released-at` without one, or
    /// no GitHub).
    NoNote,
}

/// The settings the deadlines follow: the release note's promise when it records one
/// (`record`; `None` when no note was read), so that `overdue` means past the deadline the
/// note promised; else `status`'s own (`culler`, `scale`). The promise's hub size, when it
/// has one, replaces `status`'s `hub-size` (a hub running more servers still counts them:
/// [`AtScaleModel`] takes the larger); without one, `status`'s scale stays, which only makes
/// the deadlines later than the note's usual bound. `status`'s settings differ from the
/// promise when its culler settings do, or, for a promise with a hub size, its `hub-size`
/// (when given) or slow-stop timeout does.
pub(crate) fn deadline_basis(
    record: Option<PromiseRecord>,
    culler: CullSettings,
    scale: &ScaleConfig,
) -> DeadlineSettings {
    let own = |why| DeadlineSettings {
        culler,
        scale: scale.clone(),
        basis: why,
    };
    let promise = match record {
        None => return own(Basis::NoNote),
        Some(PromiseRecord::Absent) => return own(Basis::NotRecorded),
        Some(PromiseRecord::Refused) => return own(Basis::Refused),
        Some(PromiseRecord::Recorded(promise)) => promise,
    };
    let mut used = scale.clone();
    let mut differs = culler != promise.culler;
    if let Some(promised) = promise.scale {
        differs |= scale.servers.is_some_and(|n| n != promised.servers)
            || scale.slow_stop_timeout_secs != promised.slow_stop_timeout_secs;
        used.servers = Some(promised.servers);
        used.slow_stop_timeout_secs = promised.slow_stop_timeout_secs;
    }
    let own = differs.then(|| (culler, scale.clone()));
    DeadlineSettings {
        culler: promise.culler,
        scale: used,
        basis: Basis::Promised { promise, own },
    }
}
