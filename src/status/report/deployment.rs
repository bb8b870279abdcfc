//! The deployment status a `status` run asks for (the `environment` input): the decision as
//! data ([`rollout`]), then its words ([`description`], at most GitHub's 140 characters).

use crate::render::deployment::{clock, fit};
use crate::status::classify::{Alarm, Classification, Classified, Evidence, State};
use time::OffsetDateTime;

/// Where the rollout stands, for the deployment's status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Rollout {
    /// No server may still run the old image: `success`, on the evidence it was judged by
    /// (each pod's imageID, or inferred from start times).
    Converged(Evidence),
    /// An alarm fired: `failure`.
    Alarmed {
        /// The alarms, sorted ([`Classification::alarms`]).
        alarms: Vec<Alarm>,
    },
    /// Servers still run the old image, none past its deadline: `in_progress`.
    Rolling {
        /// Servers on the new image.
        updated: u64,
        /// Servers running.
        running: u64,
        /// Stale servers that are idle.
        idle: u64,
        /// When every idle stale server will be gone; `None` when one has no deadline.
        idle_by: Option<OffsetDateTime>,
        /// Stale servers that are active.
        active: u64,
        /// When every stale active server will be gone if it goes idle now (the latest of
        /// their [`crate::status::classify::Classified::deadline`]s); `None` when one has
        /// none.
        active_if_idle_by: Option<OffsetDateTime>,
        /// When every stale active server will be gone even if it stays in use (the latest
        /// of their maximum-age deadlines, `CullerModel::in_use_deadline`); `None` when one
        /// has none.
        active_in_use_by: Option<OffsetDateTime>,
    },
}

/// The deployment state a [`Rollout`] asks for (the pipeline maps it to GitHub's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    /// `in_progress`.
    InProgress,
    /// `success`.
    Success,
    /// `failure`.
    Failure,
}

/// The rollout of `classification`: an alarm first (`failure`), then convergence
/// (`success`), else in progress with the counts and the deadline.
pub(crate) fn rollout(classification: &Classification) -> Rollout {
    let t = &classification.totals;
    let alarms = classification.alarms();
    if !alarms.is_empty() {
        return Rollout::Alarmed { alarms };
    }
    if t.converged {
        return Rollout::Converged(t.evidence);
    }
    Rollout::Rolling {
        updated: t.updated,
        running: t.running,
        idle: t.stale_idle,
        idle_by: t.converged_by,
        active: t.stale_active,
        active_if_idle_by: latest_active(classification, |c| c.deadline),
        active_in_use_by: latest_active(classification, |c| c.in_use_deadline),
    }
}

/// The latest `time` of the stale active servers; `None` when one has none (or there is
/// none).
fn latest_active(
    classification: &Classification,
    time: impl Fn(&Classified) -> Option<OffsetDateTime>,
) -> Option<OffsetDateTime> {
    classification
        .servers
        .iter()
        .filter(|c| c.state == State::StaleActive)
        .try_fold(None, |acc: Option<OffsetDateTime>, c| {
            time(c).map(|t| Some(acc.map_or(t, |a| a.max(t))))
        })?
}

impl Rollout {
    /// The state it asks for.
    pub(crate) fn phase(&self) -> Phase {
        match self {
            Rollout::Converged(_) => Phase::Success,
            Rollout::Alarmed { .. } => Phase::Failure,
            Rollout::Rolling { .. } => Phase::InProgress,
        }
    }
}

/// The status description of `rollout` measured at `now`, e.g. `41/57 on the new image;
/// idle ones by 14:30 UTC`. In progress, it changes only when a count or the deadline does,
/// so an unchanged hub posts no new status; converged or alarmed, it holds no count, so
/// more servers (or more overdue ones) post none either.
pub(crate) fn description(rollout: &Rollout, now: OffsetDateTime) -> String {
    let text = match rollout {
        // Fixed words for `success` and `failure` (no counts): each status is a
        // `deployment_status` event, so a new one is posted only when the state, or the
        // set of alarms, changes.
        Rollout::Converged(Evidence::Digest) => {
            "Converged: no server runs the old image".to_string()
        }
        Rollout::Converged(Evidence::StartTime) => {
            "Converged (inferred from start times): every server started after the release"
                .to_string()
        }
        Rollout::Alarmed { alarms } => alarms
            .iter()
            .map(|alarm| crate::render::status::alarm_words(*alarm)[0])
            .collect::<Vec<_>>()
            .join("; "),
        Rollout::Rolling {
            updated,
            running,
            idle,
            idle_by,
            active,
            active_if_idle_by,
            active_in_use_by,
        } => {
            let mut parts = Vec::new();
            if *idle > 0 {
                parts.push(match idle_by {
                    Some(at) => format!("idle ones by {}", clock(now, *at)),
                    None => "idle ones on restart".to_string(),
                });
            }
            // As the progress line of the job summary: the deadline if they go idle, the
            // maximum age while in use, never passively otherwise.
            if *active > 0 {
                parts.push(match (active_if_idle_by, active_in_use_by) {
                    (Some(idle), Some(in_use)) => format!(
                        "active ones by {} if idle, {} at the latest",
                        clock(now, *idle),
                        clock(now, *in_use)
                    ),
                    (Some(idle), None) => format!("active ones by {} if idle", clock(now, *idle)),
                    (None, Some(in_use)) => format!("active ones by {}", clock(now, *in_use)),
                    (None, None) => "active ones on restart".to_string(),
                });
            }
            if parts.is_empty() {
                parts.push("some starting or stopping".to_string());
            }
            format!("{updated}/{running} on the new image; {}", parts.join("; "))
        }
    };
    fit(&text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::status::classify::Totals;
    use time::macros::datetime;

    fn of(totals: Totals) -> Classification {
        Classification {
            servers: Vec::new(),
            totals,
        }
    }

    #[test]
    fn an_alarm_comes_first_then_convergence_then_progress() {
        let now = datetime!(2026-12-01 12:00 UTC);
        let rolling = of(Totals {
            running: 57,
            updated: 41,
            stale: 16,
            stale_idle: 16,
            converged_by: Some(datetime!(2026-12-01 14:30:10 UTC)),
            ..Totals::default()
        });
        let r = rollout(&rolling);
        assert_eq!(r.phase(), Phase::InProgress);
        assert_eq!(
            description(&r, now),
            "41/57 on the new image; idle ones by 14:30 UTC"
        );

        let overdue = of(Totals {
            overdue: 2,
            ..rolling.totals
        });
        let r = rollout(&overdue);
        assert_eq!(r.phase(), Phase::Failure);
        assert_eq!(
            description(&r, now),
            "a server runs past the promised deadline"
        );

        // Active servers: by their deadline if they go idle, and by the maximum age.
        let active = |deadline, in_use_deadline| Classified {
            server: crate::status::Server {
                user: "alice".into(),
                name: String::new(),
                started: Some(datetime!(2026-12-01 09:00 UTC)),
                last_activity: Some(datetime!(2026-12-01 11:59 UTC)),
                ready: true,
                pending: None,
            },
            state: State::StaleActive,
            deadline,
            in_use_deadline,
            overdue: false,
            pod: None,
        };
        let totals = Totals {
            running: 57,
            updated: 41,
            stale: 16,
            stale_idle: 15,
            stale_active: 1,
            converged_by: Some(datetime!(2026-12-01 14:30:10 UTC)),
            ..Totals::default()
        };
        for (in_use, says) in [
            (
                None,
                "41/57 on the new image; idle ones by 14:30 UTC; active ones by 15:30 UTC if idle",
            ),
            (
                Some(datetime!(2026-12-02 09:00 UTC)),
                "41/57 on the new image; idle ones by 14:30 UTC; active ones by 15:30 UTC if idle, 2026-12-02 09:00 UTC at the latest",
            ),
        ] {
            let c = Classification {
                servers: vec![active(Some(datetime!(2026-12-01 15:30 UTC)), in_use)],
                totals,
            };
            assert_eq!(description(&rollout(&c), now), says);
        }
        let c = Classification {
            servers: vec![active(None, None)],
            totals: Totals {
                converged_by: None,
                ..totals
            },
        };
        assert_eq!(
            description(&rollout(&c), now),
            "41/57 on the new image; idle ones on restart; active ones on restart"
        );

        let converged = of(Totals {
            running: 57,
            updated: 57,
            converged: true,
            ..Totals::default()
        });
        let r = rollout(&converged);
        assert_eq!(r.phase(), Phase::Success);
        assert_eq!(
            description(&r, now),
            "Converged (inferred from start times): every server started after the release"
        );
        // By digest, the words claim what the pods' imageIDs show.
        let by_digest = of(Totals {
            running: 57,
            updated: 57,
            converged: true,
            evidence: Evidence::Digest,
            ..Totals::default()
        });
        assert_eq!(
            description(&rollout(&by_digest), now),
            "Converged: no server runs the old image"
        );
    }
}
