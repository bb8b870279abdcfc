//! The words of a deployment (the `environment` input): the deployment's description and
//! the description of `announce`'s first status, each at most GitHub's 140 characters
//! ([`fit`]). `status`'s descriptions are [`crate::status::report`]'s.

use crate::digest::Digest;
use crate::tier::Tier;
use crate::window::Window;
use time::OffsetDateTime;

/// GitHub's longest deployment and deployment-status description (REST docs, "Create a
/// deployment status": "The maximum description length is 140 characters").
pub(crate) const DESCRIPTION_MAX_CHARS: usize = 140;

/// `text` cut to [`DESCRIPTION_MAX_CHARS`] characters, ending in `…` when cut.
pub(crate) fn fit(text: &str) -> String {
    if text.chars().count() <= DESCRIPTION_MAX_CHARS {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(DESCRIPTION_MAX_CHARS - 1).collect();
    cut.push('…');
    cut
}

/// What an `announce` user can do when the release note names no commit to deploy
/// ([`crate::publish::deployment::DeploymentPlan::new`]).
pub(crate) const NO_COMMIT_ANNOUNCE: &str = "set sha (--sha) or leave environment unset";

/// What a `status` user can do when the release note names no commit to deploy: `status`
/// takes no `sha`, it deploys the commit the note targets.
pub(crate) const NO_COMMIT_STATUS: &str = "status deploys the commit the release note targets \
     (target_commitish): edit the release on GitHub to target the release's commit, or leave \
     environment unset";

/// The deployment's description, e.g. `codeq-rollout: routine release of sha256:9f86d081884c`.
pub(crate) fn description(digest: &Digest, tier: Tier) -> String {
    fit(&format!(
        "codeq-rollout: {tier} release of sha256:{}",
        digest.short()
    ))
}

/// The description of a deployment `status` creates (it knows no tier).
pub(crate) fn description_untiered(digest: &Digest) -> String {
    fit(&format!(
        "codeq-rollout: release of sha256:{}",
        digest.short()
    ))
}

/// `announce`'s `in_progress` description: when idle (and, with a maximum age, active)
/// servers will be on the new image, from the release at `now` and the convergence
/// `window`, e.g. `Live; idle servers on the new image by 14:30 UTC, active ones when
/// restarted`.
pub(crate) fn announced(window: &Window, now: OffsetDateTime) -> String {
    let by = |secs: u64| clock(now, now + time::Duration::seconds(secs as i64));
    let text = match (
        window.culling_enabled,
        window.latest_idle_secs(),
        window.latest_active_secs(),
    ) {
        (false, _, _) | (true, None, None) => {
            "Live; servers move to the new image only when their users restart them".to_string()
        }
        (true, Some(idle), None) => {
            format!(
                "Live; idle servers on the new image by {}, active ones when restarted",
                by(idle)
            )
        }
        (true, Some(idle), Some(active)) => format!(
            "Live; idle servers on the new image by {}, every server by {}",
            by(idle),
            by(active)
        ),
        (true, None, Some(active)) => {
            format!("Live; every server on the new image by {}", by(active))
        }
    };
    fit(&text)
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

/// `t` as a reader of a status at `now` wants it: `14:30 UTC` on the same day (UTC),
/// `2026-12-02 14:30 UTC` on another.
pub(crate) fn clock(now: OffsetDateTime, t: OffsetDateTime) -> String {
    let t = t.to_offset(time::UtcOffset::UTC);
    let hm = format!("{:02}:{:02} UTC", t.hour(), t.minute());
    if t.date() == now.to_offset(time::UtcOffset::UTC).date() {
        hm
    } else {
        format!(
            "{:04}-{:02}-{:02} {hm}",
            t.year(),
            u8::from(t.month()),
            t.day()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptions_fit_githubs_limit() {
        let long = "x".repeat(200);
        assert_eq!(fit(&long).chars().count(), DESCRIPTION_MAX_CHARS);
        assert!(fit(&long).ends_with('…'));
        assert_eq!(fit("short"), "short");
    }

    #[test]
    fn times_name_the_date_only_on_another_day() {
        let now = time::macros::datetime!(2026-12-01 12:00 UTC);
        assert_eq!(
            clock(now, time::macros::datetime!(2026-12-01 14:30:59 UTC)),
            "14:30 UTC"
        );
        assert_eq!(
            clock(now, time::macros::datetime!(2026-12-02 01:05 UTC)),
            "2026-12-02 01:05 UTC"
        );
    }
}
