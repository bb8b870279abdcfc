//! The deployment of a release (the `environment` input): the status a `status` run asks for
//! ([`rollout`], the decision as data), and the words of every deployment: its description,
//! each status's description (at most GitHub's 140 characters, [`fit`]), the log lines of the
//! deployment stage and the errors of its writes.

use super::words::Words;
use crate::digest::Digest;
use crate::status::classify::{Alarm, Classification, Evidence, Totals};
use crate::support::github::models::DeploymentState;
use crate::tier::Tier;
use crate::window::Window;
use time::OffsetDateTime;

/// GitHub's longest deployment and deployment-status description (REST docs, "Create a
/// deployment status": "The maximum description length is 140 characters").
pub(crate) const DESCRIPTION_MAX_CHARS: usize = 140;

/// `text` cut to [`DESCRIPTION_MAX_CHARS`] characters, ending in `…` when cut.
pub(crate) fn fit(text: &str) -> String {
    crate::support::sanitize::cap(text, DESCRIPTION_MAX_CHARS)
}

/// The deployment's description, e.g. `codeq-rollout: routine release of sha256:9f86d081884c`
/// (`tier`: `None` for a deployment `status` creates, which knows no tier).
pub(crate) fn description(digest: &Digest, tier: Option<Tier>) -> String {
    let tier = tier.map(|t| format!("{t} ")).unwrap_or_default();
    fit(&format!(
        "codeq-rollout: {tier}release of sha256:{}",
        digest.short()
    ))
}

/// `announce`'s `in_progress` description: when idle (and, with a maximum age, active)
/// servers will be on the new image, from the release at `now` and the convergence
/// `window`, e.g. `Live; idle servers on the new image by 14:30 UTC, active ones when
/// restarted`.
pub(crate) fn announced(window: &Window, now: OffsetDateTime) -> String {
    let by = |secs: u64| clock(now, now + time::Duration::seconds(secs as i64));
    let idle = window.latest_idle_secs().filter(|_| window.culling_enabled);
    let active = window
        .latest_active_secs()
        .filter(|_| window.culling_enabled);
    fit(&match (idle, active) {
        (None, None) => {
            "Live; servers move to the new image only when their users restart them".to_string()
        }
        (Some(idle), None) => format!(
            "Live; idle servers on the new image by {}, active ones when restarted",
            by(idle)
        ),
        (Some(idle), Some(active)) => format!(
            "Live; idle servers on the new image by {}, every server by {}",
            by(idle),
            by(active)
        ),
        (None, Some(active)) => format!("Live; every server on the new image by {}", by(active)),
    })
}

/// A deadline `t` as a reader of a status at `now` wants it: rounded up to the minute as the
/// release note rounds it ([`crate::support::time::utc_minute_up`]: never earlier than the bound),
/// `14:31 UTC` on the same day (UTC), `2026-12-02 14:31 UTC` on another.
pub(crate) fn clock(now: OffsetDateTime, t: OffsetDateTime) -> String {
    let at = crate::support::time::utc_minute_up(t);
    let today = crate::support::time::utc_minute(now);
    match (at.split_once(' '), today.split_once(' ')) {
        (Some((day, time)), Some((today, _))) if day == today => time.to_string(),
        _ => at,
    }
}

/// Where the rollout stands, for the deployment's status ([`rollout`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Rollout {
    /// No server may still run the old image: `success`, on the evidence it was judged by.
    Converged(Evidence),
    /// Alarms that `fail-on` lists fired, so the run fails (exit 1): `failure`.
    Failed(Vec<Alarm>),
    /// Servers may still run the old image: `in_progress`, with the counts and deadlines,
    /// and the alarms that fired although `fail-on` does not list them.
    Rolling {
        /// The alarms that fired, not failing the run.
        alarms: Vec<Alarm>,
        /// The counts and [`Totals::converged_by`].
        totals: Totals,
        /// When every stale active server will be gone if it goes idle now, and even if it
        /// stays in use (the maximum age); `None` when one of them has no such time.
        active_by: (Option<OffsetDateTime>, Option<OffsetDateTime>),
    },
}

/// The rollout of `classification`: `failure` exactly when an alarm `fail_on` lists fired
/// (the run then exits 1, so a `deployment_status` event of `failure` always comes with a
/// failed run), then convergence (`success`), else in progress. An alarm always means
/// servers that may run the old image, so it never comes with convergence.
pub(crate) fn rollout(classification: &Classification, fail_on: &[Alarm]) -> Rollout {
    let (alarms, totals) = (classification.alarms(), classification.totals);
    let failed: Vec<Alarm> = alarms
        .iter()
        .filter(|a| fail_on.contains(a))
        .copied()
        .collect();
    if !failed.is_empty() {
        return Rollout::Failed(failed);
    }
    if totals.converged {
        return Rollout::Converged(totals.evidence);
    }
    Rollout::Rolling {
        alarms,
        totals,
        active_by: classification.active_by(),
    }
}

impl Rollout {
    /// The deployment state it asks for.
    pub(crate) fn state(&self) -> DeploymentState {
        match self {
            Rollout::Converged(_) => DeploymentState::Success,
            Rollout::Failed(_) => DeploymentState::Failure,
            Rollout::Rolling { .. } => DeploymentState::InProgress,
        }
    }

    /// The status description at `now`, e.g. `41/57 on the new image; idle ones by 14:30
    /// UTC`. In progress, it changes only when a count, a deadline or an alarm does, so an
    /// unchanged hub posts no new status; converged or failed, it holds no count, so more
    /// servers (or more overdue ones) post none either: each status is a `deployment_status`
    /// event. `promised`: the deadlines were the release note's promise, else `status`'s own
    /// culler settings ([`super::status::alarm_words`]).
    pub(crate) fn description(&self, now: OffsetDateTime, promised: bool) -> String {
        let alarms = |alarms: &[Alarm]| {
            alarms
                .iter()
                .map(|a| super::status::alarm_words(*a, promised)[0].to_string())
                .collect::<Vec<_>>()
        };
        let (alarms, t, (if_idle, in_use)) = match self {
            Rollout::Converged(Evidence::Digest) => {
                return "Converged: no server runs the old image".to_string();
            }
            Rollout::Converged(Evidence::StartTime) => {
                return "Converged (inferred from start times): every server started after \
                        the release"
                    .to_string();
            }
            Rollout::Failed(failed) => return fit(&alarms(failed).join("; ")),
            Rollout::Rolling {
                alarms: a,
                totals,
                active_by,
            } => (alarms(a), totals, active_by),
        };
        let mut parts = alarms;
        parts.push(format!("{}/{} on the new image", t.updated, t.running));
        if t.stale_idle > 0 {
            parts.push(match t.converged_by {
                Some(at) => format!("idle ones by {}", clock(now, at)),
                None => "idle ones on restart".to_string(),
            });
        }
        // As the progress line of the job summary: the deadline if they go idle, the
        // maximum age while in use, never passively otherwise.
        if t.stale_active > 0 {
            parts.push(match (if_idle, in_use) {
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
        if t.stale_idle + t.stale_active == 0 {
            parts.push("some starting or stopping".to_string());
        }
        fit(&parts.join("; "))
    }
}

/// The error when the release note of `digest` names no commit to deploy to `environment`;
/// `by_status`: the run is `status`'s, which takes no `sha` and deploys the commit the note
/// targets; else `sha` is named as [`super::words::input_name`] does (`in_actions`).
pub(crate) fn no_commit(
    environment: &str,
    digest: &Digest,
    by_status: bool,
    in_actions: bool,
) -> Words {
    Words::new(format!(
        "no commit to deploy to {environment}: the release note of sha256:{} names none",
        digest.short()
    ))
    .help(match by_status {
        true => "status deploys the commit the release note targets (target_commitish): edit \
                 the release on GitHub to target the release's commit, or leave environment \
                 unset"
            .to_string(),
        false => format!(
            "set {}, or leave environment unset",
            super::words::input_name("sha", None, in_actions)
        ),
    })
}

/// The log line for the deployment: what this run did to it, e.g. `deployment 41 to
/// jupyterhub-prod created`.
pub(crate) fn logged(change: super::Change, id: u64, environment: &str) -> String {
    format!("deployment {id} to {environment} {change}")
}

/// A dry run's line about the deployment it would keep.
pub(crate) fn dry_run(environment: &str) -> String {
    format!(
        "dry run: would create the deployment of the release to {environment} (unless it \
         exists) and set it in_progress"
    )
}

// What the deployment step logs or says in a status it posts: what it found, removed,
// retired, or (a dry run) would do.

/// Another run created the release note just now and creates the deployment to
/// `environment`, but none showed within `waited` of looking.
pub(crate) fn left_to_creator(environment: &str, waited: std::time::Duration) -> String {
    format!(
        "no deployment to {environment} appeared within {}: the run that created the release \
         note creates it (its log says whether it could)",
        humantime::format_duration(waited)
    )
}

/// A dry run found no deployment: what it would create, and set to which state.
pub(crate) fn would_create(digest: &Digest, environment: &str, state: DeploymentState) -> String {
    format!("dry run: would create the deployment of {digest} to {environment} and set it {state}")
}

/// A dry run would give deployment `id` the state and description.
pub(crate) fn would_set(id: u64, state: DeploymentState, description: &str) -> String {
    format!("dry run: would set deployment {id} to {state}: {description}")
}

/// A dry run found `n` duplicates of ours for the digest.
pub(crate) fn would_remove(n: usize, digest: &Digest) -> String {
    format!("dry run: would remove {n} duplicate deployments of {digest}")
}

/// The description of the `inactive` status of a duplicate of deployment `id`.
pub(crate) fn duplicate_of(id: u64) -> String {
    format!("Duplicate of deployment {id}")
}

/// A duplicate (`loser`) of the deployment kept (`winner`) was deleted.
pub(crate) fn deleted(loser: u64, winner: u64) -> String {
    format!(
        "deleted deployment {loser}, a duplicate of deployment {winner} left by concurrent runs"
    )
}

/// The description of the `inactive` status of an earlier release's deployment.
pub(crate) fn superseded_by(id: u64) -> String {
    format!("Superseded by deployment {id}")
}

/// An earlier release's deployment `id` was marked `inactive`.
pub(crate) fn retired(id: u64) -> String {
    format!("marked deployment {id} (an earlier release) inactive")
}

/// The errors of the deployment step's writes: what failed, then what to do.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Failed<'a> {
    /// `announce` publishing the deployment to the environment.
    Announcing(&'a str),
    /// `status` keeping the deployment's status in the environment.
    Keeping(&'a str),
    /// Creating the deployment of the digest (commit) to the environment.
    Creating(&'a Digest, &'a str, &'a str),
    /// Posting a status of this state to deployment `id`.
    Setting(u64, DeploymentState),
    /// Removing duplicate `id` of the kept deployment (the second), for digest, environment.
    Removing(u64, u64, &'a Digest, &'a str),
    /// Marking deployment `id`, an earlier release's, inactive.
    Retiring(u64),
}

impl std::fmt::Display for Failed<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let words = match *self {
            Failed::Announcing(env) => Words::new(format!("publishing the deployment to {env}")),
            Failed::Keeping(env) => Words::new(format!("keeping the deployment to {env}")),
            Failed::Creating(digest, sha, env) => Words::new(format!(
                "creating the deployment of sha256:{} (commit {sha}) to {env}",
                digest.short()
            )),
            Failed::Setting(id, state) => Words::new(format!("setting deployment {id} to {state}"))
                .help("re-run the job: it reads the latest status first and posts only what is missing"),
            Failed::Removing(loser, winner, digest, env) => Words::new(format!(
                "deployment {loser} duplicates deployment {winner} of sha256:{} to {env}, and \
                 removing it failed",
                digest.short()
            ))
            .help("delete it by hand (Settings → Environments, or the REST API)"),
            Failed::Retiring(id) => Words::new(format!(
                "marking deployment {id}, an earlier release's, inactive"
            ))
            .help("re-run the job: it marks the earlier releases' deployments inactive once the latest status is success"),
        };
        words.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::status::classify::{Classified, State};
    use crate::status::{Server, ServerTimes};
    use time::macros::datetime;

    /// announce's help names `sha` where the run is; status's names no input (it takes none).
    #[test]
    fn a_missing_commit_names_sha_where_the_run_is() {
        let d = crate::digest::Digest::parse(&format!("sha256:{}", "a".repeat(64))).unwrap();
        let help = |by_status, in_actions| no_commit("prod", &d, by_status, in_actions).help;
        let announce = [false, true].map(|in_actions| help(false, in_actions).unwrap());
        assert_eq!(announce[0], "set sha (--sha), or leave environment unset");
        assert_eq!(announce[1], "set sha, or leave environment unset");
        assert_eq!(help(true, false), help(true, true));
    }

    #[test]
    fn descriptions_fit_githubs_limit() {
        let long = "x".repeat(200);
        assert_eq!(fit(&long).chars().count(), DESCRIPTION_MAX_CHARS);
        assert!(fit(&long).ends_with('…'));
        assert_eq!(fit("short"), "short");
    }

    /// Issue 32 item 2: a deadline reads rounded up, as the release note's does, and names
    /// its date only on another day.
    #[test]
    fn deadlines_round_up_and_name_the_date_only_on_another_day() {
        let now = datetime!(2026-12-01 12:00 UTC);
        let said = [
            datetime!(2026-12-01 14:30:00 UTC),
            datetime!(2026-12-01 14:30:01 UTC),
            datetime!(2026-12-01 23:59:30 UTC),
            datetime!(2026-12-02 01:05 UTC),
        ]
        .map(|t| clock(now, t));
        assert_eq!(
            said,
            [
                "14:30 UTC",
                "14:31 UTC",
                "2026-12-02 00:00 UTC",
                "2026-12-02 01:05 UTC"
            ]
        );
    }

    /// The state and description of each rollout: `failure` exactly for an alarm `fail-on`
    /// lists (issue 32 item 5), an alarm it does not list leading the `in_progress`
    /// description; then convergence; else progress, with each kind of stale server's
    /// deadline.
    #[test]
    fn a_failing_alarm_comes_first_then_convergence_then_progress() {
        let now = datetime!(2026-12-01 12:00 UTC);
        let rolling = Totals {
            running: 57,
            updated: 41,
            stale: 16,
            stale_idle: 15,
            stale_active: 1,
            converged_by: Some(datetime!(2026-12-01 14:30:10 UTC)),
            ..Totals::default()
        };
        let active = |deadline, in_use_deadline| Classified {
            server: Server {
                user: "alice".into(),
                name: String::new(),
                times: ServerTimes {
                    started: Some(datetime!(2026-12-01 09:00 UTC)),
                    last_activity: Some(datetime!(2026-12-01 11:59 UTC)),
                },
                ready: true,
                pending: None,
            },
            state: State::StaleActive,
            deadline,
            in_use_deadline,
            overdue: false,
            pod: None,
        };
        let of = |servers, totals| Classification { servers, totals };
        let idle_only = Totals {
            stale_idle: 16,
            stale_active: 0,
            ..rolling
        };
        let overdue = Totals {
            overdue: 2,
            ..idle_only
        };
        let converged = Totals {
            running: 57,
            updated: 57,
            converged: true,
            ..Totals::default()
        };
        let by_digest = Totals {
            evidence: Evidence::Digest,
            ..converged
        };
        let at = |h: i64, m: i64| {
            Some(datetime!(2026-12-01 00:00 UTC) + time::Duration::minutes(h * 60 + m))
        };
        let cases = [
            (of(vec![], idle_only), &[][..]),
            (of(vec![], overdue), &[][..]),
            (of(vec![], overdue), &[Alarm::Overdue][..]),
            (of(vec![], overdue), &[Alarm::Mismatch][..]),
            (of(vec![active(at(15, 30), None)], rolling), &[][..]),
            (
                of(
                    vec![active(at(15, 30), Some(datetime!(2026-12-02 09:00 UTC)))],
                    rolling,
                ),
                &[][..],
            ),
            (
                of(
                    vec![active(None, None)],
                    Totals {
                        converged_by: None,
                        ..rolling
                    },
                ),
                &[][..],
            ),
            (of(vec![], converged), &[][..]),
            (of(vec![], by_digest), &[][..]),
        ];
        let mut said: Vec<String> = (cases.iter())
            .map(|(c, fail_on)| {
                let r = rollout(c, fail_on);
                format!("{:?} {}: {}", fail_on, r.state(), r.description(now, true))
            })
            .collect();
        // No promise read: the deadlines were status's own settings, and the words say so.
        for fail_on in [&[][..], &[Alarm::Overdue][..]] {
            let r = rollout(&of(vec![], overdue), fail_on);
            let words = r.description(now, false);
            said.push(format!("{fail_on:?} {}, not promised: {words}", r.state()));
        }
        insta::assert_snapshot!(said.join("\n"), @r"
        [] in_progress: 41/57 on the new image; idle ones by 14:31 UTC
        [] in_progress: a server runs past the promised deadline; 41/57 on the new image; idle ones by 14:31 UTC
        [Overdue] failure: a server runs past the promised deadline
        [Mismatch] in_progress: a server runs past the promised deadline; 41/57 on the new image; idle ones by 14:31 UTC
        [] in_progress: 41/57 on the new image; idle ones by 14:31 UTC; active ones by 15:30 UTC if idle
        [] in_progress: 41/57 on the new image; idle ones by 14:31 UTC; active ones by 15:30 UTC if idle, 2026-12-02 09:00 UTC at the latest
        [] in_progress: 41/57 on the new image; idle ones on restart; active ones on restart
        [] success: Converged (inferred from start times): every server started after the release
        [] success: Converged: no server runs the old image
        [] in_progress, not promised: a server runs past the deadline of status's own culler settings; 41/57 on the new image; idle ones by 14:31 UTC
        [Overdue] failure, not promised: a server runs past the deadline of status's own culler settings
        ");
    }
}
