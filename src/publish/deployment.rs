//! The deployment of a release to a GitHub environment (the `environment` input): found or
//! created once, its status kept as the rollout goes (GitHub's REST "Deployments" and
//! "Deployment statuses" endpoints).
//!
//! **Ours, by payload.** A deployment is codeq-rollout's for a digest when its `payload` is
//! an object whose [`MARKER_KEY`] names this tool and whose `digest` is the digest
//! ([`is_ours`]); anyone's other deployment of the same commit to the same environment (a
//! human's, another tool's) is never given a status, made inactive or deleted.
//!
//! **Idempotent.** Deployments are found by listing the environment's newest deployments
//! (one page). A re-run of `announce` that finds its deployment writes nothing; `status`
//! reads the latest status and posts one only when its state or description differs
//! ([`ensure_status`]). A POST whose outcome is unknown is followed by a fresh listing, never
//! sent again blindly ([`super::once`]).
//!
//! **Race-safe.** A deployment has no unique field, so two runs can create one each. The
//! run that created the release note (the lock, [`super`]) creates the deployment without
//! listing; every other creator (a re-run completing a failed one, `status` for a hub that
//! `announce` did not name) lists again after creating, and whichever run finds several of
//! ours for one digest keeps the lowest id and removes the others (an `inactive` status,
//! then `DELETE`, which GitHub allows only for an inactive deployment once there are
//! several). A run that lost the release race creates none: the winner does, and the loser
//! lists again, bounded, to report the winner's.
//!
//! **Earlier releases.** GitHub marks earlier deployments inactive by itself only for
//! non-production environments (`auto_inactive`, GitHub's REST docs "Create a deployment
//! status"); ours are `production_environment: true`, so `status` marks every earlier
//! release's deployment of ours in the environment (on the listed page) `inactive` when
//! this one reaches `success`, once: it reads each one's latest status first.

use super::once::{self, Made};
use crate::digest::Digest;
use crate::render::deployment::{self as words, Failed};
use crate::render::{self, Change};
pub(crate) use crate::support::github::Environment;
use crate::support::github::models::{
    Deployment, DeploymentState, DeploymentStatus, NewDeployment,
};
use crate::support::github::{GitHub, GitHubError, Kind};
use crate::support::sanitize;
use crate::tier::Tier;
use anyhow::{Context, Result, bail};
use std::time::Duration;

/// The payload key that marks a deployment as codeq-rollout's; its value is
/// [`MARKER_VALUE`].
pub const MARKER_KEY: &str = "created-by";
/// The value of [`MARKER_KEY`] in our payloads.
pub const MARKER_VALUE: &str = "codeq-rollout";
/// The outputs of a run with `environment`: the deployment's id and API address.
pub(crate) const OUTPUTS: [&str; 2] = ["deployment-id", "deployment-url"];

/// The payload of our deployments: the [`MARKER_KEY`], the digest, and the tier and
/// convergence window when known (`status` creating a deployment knows neither).
fn payload(digest: &Digest, tier: Option<Tier>, window: Option<&str>) -> serde_json::Value {
    let mut payload = serde_json::json!({ MARKER_KEY: MARKER_VALUE, "digest": digest.to_string() });
    if let Some(tier) = tier {
        payload["tier"] = serde_json::json!(tier.to_string());
    }
    if let Some(window) = window {
        payload["window"] = serde_json::json!(window);
    }
    payload
}

/// What a deployment links (its statuses' `log_url`), whoever creates it: the tracking
/// issue of a security release (the only kind that has one), else the release note; `None`
/// when GitHub's address is not a plain URL ([`sanitize::link_url`]).
pub(crate) fn link(issue: Option<&str>, release_note: &str) -> Option<String> {
    sanitize::link_url(issue.unwrap_or(release_note)).map(str::to_string)
}

/// Whether `deployment` is codeq-rollout's (its payload's [`MARKER_KEY`]); with `digest`,
/// also for that digest.
pub fn is_ours(deployment: &Deployment, digest: Option<&Digest>) -> bool {
    let payload = &deployment.payload;
    payload.get(MARKER_KEY).and_then(|v| v.as_str()) == Some(MARKER_VALUE)
        && digest.is_none_or(|d| {
            payload.get("digest").and_then(|v| v.as_str()) == Some(d.to_string().as_str())
        })
}

/// Our deployments for `digest` to `environment` among `listed`, lowest id first.
pub(crate) fn ours_for<'a>(
    listed: &'a [Deployment],
    environment: &Environment,
    digest: &Digest,
) -> Vec<&'a Deployment> {
    let ours = |d: &Deployment| environment.matches(&d.environment) && is_ours(d, Some(digest));
    super::find::lowest_first(listed, ours, |d| d.id)
}

/// The earlier releases' deployments: every one of ours to `environment` for another digest,
/// older than `current`, oldest first (anyone else's is never among them).
pub(crate) fn superseded<'a>(
    listed: &'a [Deployment],
    environment: &Environment,
    current: &Deployment,
) -> Vec<&'a Deployment> {
    let digest = |d: &Deployment| d.payload.get("digest").cloned();
    let older = |d: &Deployment| {
        d.id < current.id
            && environment.matches(&d.environment)
            && is_ours(d, None)
            && digest(d) != digest(current)
    };
    super::find::lowest_first(listed, older, |d| d.id)
}

/// What to create when no deployment of ours exists.
#[derive(Debug, Clone)]
pub(crate) struct DeploymentPlan {
    /// The environment.
    pub(crate) environment: Environment,
    /// The digest released.
    pub(crate) digest: Digest,
    /// The body of the POST ([`NewDeployment`], its description cut to GitHub's 140
    /// characters by the render layer, [`crate::render::deployment::fit`]).
    pub(crate) new: NewDeployment,
}

impl DeploymentPlan {
    /// The plan for the deployment of `digest`'s release commit `sha` to `environment`:
    /// `required_contexts: []`, `auto_merge: false`, `production_environment: true`, the
    /// [`payload`] and the description ([`crate::render::deployment::description`]);
    /// `announced`: the tier and convergence window of an `announce` run, `None` for a
    /// `status` run, which knows neither; `in_actions`: whether the run is inside Actions.
    ///
    /// # Errors
    /// An empty `sha`: no commit to deploy ([`crate::render::deployment::no_commit`], saying
    /// what the user of the command that runs can do).
    pub(crate) fn new(
        environment: &Environment,
        digest: &Digest,
        sha: &str,
        announced: Option<(Tier, &str)>,
        in_actions: bool,
    ) -> Result<Self> {
        let tier = announced.map(|(tier, _)| tier);
        if sha.is_empty() {
            let (env, by_status) = (environment.as_str(), tier.is_none());
            bail!(render::deployment::no_commit(
                env, digest, by_status, in_actions
            ));
        }
        let new = NewDeployment {
            reference: sha.to_string(),
            task: "deploy".into(),
            auto_merge: false,
            required_contexts: Vec::new(),
            payload: payload(digest, tier, announced.map(|(_, window)| window)),
            environment: environment.as_str().to_string(),
            description: render::deployment::description(digest, tier),
            transient_environment: false,
            production_environment: true,
        };
        Ok(Self {
            environment: environment.clone(),
            digest: digest.clone(),
            new,
        })
    }
}

/// How this run came to publish the release note, which decides whether it may create the
/// deployment without listing first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lock {
    /// This run created the release note: nobody else creates the deployment first but a
    /// `status` run, which lists after creating.
    Created,
    /// The release note existed when this run looked: list, create if missing.
    Found,
    /// Another run created the release note just now: it creates the deployment, which
    /// this run looks for ([`announce`]'s `waits`).
    Lost,
}

/// What became of the deployment.
#[derive(Debug, Clone, Default)]
pub(crate) struct DeploymentOutcome {
    /// The deployment (ours, lowest id), when there is one.
    pub(crate) deployment: Option<Deployment>,
    /// What this run did to it: created it, gave it a new status, or neither.
    pub(crate) change: Change,
    /// Lines for the log: what was found, removed or left alone.
    pub(crate) notes: Vec<String>,
    /// Whether this run wrote anything.
    pub(crate) wrote: bool,
}

/// `announce`: the deployment of the release to `plan.environment`, created with `first`
/// (its `in_progress` status) when none of ours exists. With [`Lock::Created`]: two POSTs,
/// no read. With [`Lock::Found`]: one listing, and nothing written when ours exists (its
/// status is `status`'s from then on). With [`Lock::Lost`]: nothing written; one listing,
/// and another after each of `waits` until the one the release note's creator makes shows
/// (up to `waits.len() + 1` listings), so that this run reports it too.
///
/// # Errors
/// A failed GitHub call, with the permission or the fix GitHub's answer calls for.
pub(crate) async fn announce(
    gh: &GitHub,
    plan: &DeploymentPlan,
    first: &DeploymentStatus,
    lock: Lock,
    waits: &[Duration],
) -> Result<DeploymentOutcome> {
    let mut outcome = DeploymentOutcome::default();
    let steps = async {
        let notes = &mut outcome.notes;
        if lock != Lock::Created {
            let waits = if lock == Lock::Lost { waits } else { &[] };
            for wait in std::iter::once(&Duration::ZERO).chain(waits) {
                tokio::time::sleep(*wait).await;
                outcome.deployment = list(gh, plan, notes, false).await?.1;
                if outcome.deployment.is_some() {
                    return Ok(());
                }
            }
            if lock == Lock::Lost {
                let (env, waited) = (plan.environment.as_str(), waits.iter().sum());
                notes.push(words::left_to_creator(env, waited));
                return Ok(());
            }
        }
        let (mine, made) = create(gh, plan, notes).await?;
        // A concurrent run that listed both may have removed this one as the duplicate (its
        // id is the higher) before its first status: then the other one is ours.
        let posted = match gh.create_deployment_status(mine.id, first).await {
            Err(err) if err.kind == Kind::NotFound => false,
            other => other
                .map(|_| true)
                .context(Failed::Setting(mine.id, first.state).to_string())?,
        };
        if made == Made::PostedAfterUnknownOutcome || lock != Lock::Created || !posted {
            outcome.deployment = list(gh, plan, notes, false).await?.1;
        }
        (outcome.change, outcome.wrote) = (Change::Created, true);
        outcome.deployment.get_or_insert(mine);
        anyhow::Ok(())
    };
    (steps.await).context(Failed::Announcing(plan.environment.as_str()).to_string())?;
    Ok(outcome)
}

/// `status`: our deployment of the release to `plan.environment` (created when `announce`
/// did not), with `desired`'s state and description. A status is posted only when the
/// latest one has another state or description; `environment_url` is `desired`'s, else the
/// latest status's, and `log_url` always the latest status's: what the deployment links
/// was set by whoever created it, and `link` gives it for one created now (or one without
/// a link), as `announce` sets it ([`crate::render::deployment`]'s rule: the tracking issue
/// of a security release, else the release note). Reaching `success`, it is posted first;
/// then every earlier release's deployment of ours ([`superseded`]) is made `inactive`,
/// unless it is already (the newest of them last, so that a re-run finding it inactive
/// knows the others are). With `dry_run`, reads only. When nothing changed: two reads (and
/// one for the newest earlier release's deployment at `success`).
///
/// # Errors
/// A failed GitHub call, with the permission or the fix GitHub's answer calls for.
pub(crate) async fn ensure_status(
    gh: &GitHub,
    plan: &DeploymentPlan,
    desired: &DeploymentStatus,
    link: impl AsyncFn() -> Result<Option<String>>,
    dry_run: bool,
) -> Result<DeploymentOutcome> {
    let mut outcome = DeploymentOutcome::default();
    let steps = async {
        let notes = &mut outcome.notes;
        let (listed, found) = list(gh, plan, notes, dry_run).await?;
        let (latest, ours) = match found {
            Some(ours) => (gh.latest_deployment_status(ours.id).await?, ours),
            None if dry_run => {
                let (digest, environment) = (&plan.digest, plan.environment.as_str());
                notes.push(words::would_create(digest, environment, desired.state));
                return Ok(());
            }
            None => {
                let (mine, _) = create(gh, plan, notes).await?;
                let (_, ours) = list(gh, plan, notes, false).await?;
                (outcome.change, outcome.wrote) = (Change::Created, true);
                (None, ours.unwrap_or(mine))
            }
        };
        // The links: the hub given, what the latest status linked, else what `link` finds.
        let log_url = match latest.as_ref().and_then(|l| l.log_url.clone()) {
            Some(url) => Some(url),
            None => link().await?,
        };
        let environment_url =
            (desired.environment_url.clone()).or_else(|| latest.as_ref()?.environment_url.clone());
        let desired = DeploymentStatus {
            environment_url,
            log_url,
            ..desired.clone()
        };
        let same = latest.is_some_and(|l| {
            (l.state, l.description) == (desired.state, desired.description.clone())
        });
        if !same && dry_run {
            let description = desired.description.as_deref().unwrap_or_default();
            notes.push(words::would_set(ours.id, desired.state, description));
        }
        if !same && !dry_run {
            let failed = Failed::Setting(ours.id, desired.state).to_string();
            (gh.create_deployment_status(ours.id, &desired).await).context(failed)?;
            if outcome.change == Change::Unchanged {
                outcome.change = Change::Updated;
            }
            outcome.wrote = true;
        }
        if desired.state == DeploymentState::Success && !dry_run {
            outcome.wrote |= retire(gh, &listed, plan, &ours, same, notes).await?;
        }
        outcome.deployment = Some(ours);
        anyhow::Ok(())
    };
    (steps.await).context(Failed::Keeping(plan.environment.as_str()).to_string())?;
    Ok(outcome)
}

/// Reaching `success`: every earlier release's deployment of ours ([`superseded`]) made
/// `inactive`, oldest first, each unless its latest status is that already. When `success`
/// was there before this run (`already`), only the newest of them is read first: inactive,
/// the older ones are too (they went first). Returns whether anything was written.
async fn retire(
    gh: &GitHub,
    listed: &[Deployment],
    plan: &DeploymentPlan,
    current: &Deployment,
    already: bool,
    notes: &mut Vec<String>,
) -> Result<bool> {
    let older = superseded(listed, &plan.environment, current);
    let inactive = async |d: &Deployment| -> Result<bool> {
        let latest = gh.latest_deployment_status(d.id).await?;
        Ok(latest.is_some_and(|l| l.state == DeploymentState::Inactive))
    };
    match older.last() {
        None => return Ok(false),
        Some(newest) if already && inactive(newest).await? => return Ok(false),
        Some(_) => {}
    }
    let mut wrote = false;
    for d in older {
        if inactive(d).await? {
            continue;
        }
        let why = words::superseded_by(current.id);
        let status = DeploymentStatus::new(DeploymentState::Inactive, why);
        gh.create_deployment_status(d.id, &status)
            .await
            .context(Failed::Retiring(d.id).to_string())?;
        notes.push(words::retired(d.id));
        wrote = true;
    }
    Ok(wrote)
}

/// The environment's newest deployments, and ours for the plan's digest among them, settled:
/// the lowest id kept, the others removed (an `inactive` status, then `DELETE`), each noted;
/// with `dry_run`, only noted.
async fn list(
    gh: &GitHub,
    plan: &DeploymentPlan,
    notes: &mut Vec<String>,
    dry_run: bool,
) -> Result<(Vec<Deployment>, Option<Deployment>)> {
    let listed = gh.list_deployments(plan.environment.as_str()).await?;
    let ours = ours_for(&listed, &plan.environment, &plan.digest);
    let Some((winner, losers)) = ours.split_first() else {
        return Ok((listed, None));
    };
    if dry_run && !losers.is_empty() {
        notes.push(words::would_remove(losers.len(), &plan.digest));
    }
    for loser in losers.iter().filter(|_| !dry_run) {
        let (env, why) = (plan.environment.as_str(), words::duplicate_of(winner.id));
        let inactive = DeploymentStatus::new(DeploymentState::Inactive, why);
        (remove_duplicate(gh, loser.id, &inactive).await)
            .context(Failed::Removing(loser.id, winner.id, &plan.digest, env).to_string())?;
        notes.push(words::deleted(loser.id, winner.id));
    }
    let winner = (*winner).clone();
    Ok((listed, Some(winner)))
}

/// Creates the deployment once ([`once::create`], which says in `notes` when it was found
/// after a POST whose outcome was unknown); a duplicate may exist after
/// [`Made::PostedAfterUnknownOutcome`].
async fn create(
    gh: &GitHub,
    plan: &DeploymentPlan,
    notes: &mut Vec<String>,
) -> Result<(Deployment, Made)> {
    let made = once::create(
        crate::render::publish::Object::Deployment,
        notes,
        async || gh.create_deployment(&plan.new).await,
        async || {
            let listed = gh.list_deployments(plan.environment.as_str()).await?;
            Ok(ours_for(&listed, &plan.environment, &plan.digest)
                .first()
                .map(|d| (*d).clone()))
        },
    )
    .await;
    let env = plan.environment.as_str();
    made.context(Failed::Creating(&plan.digest, &plan.new.reference, env).to_string())
}

/// How many times [`remove_duplicate`] marks a duplicate inactive and deletes it before
/// giving up: each further round follows a 422 (a concurrent run may have given it another
/// status in between).
const REMOVE_ROUNDS: usize = 3;

/// Marks deployment `id` `inactive` and deletes it. GitHub refuses (422) to delete a
/// deployment whose latest status is not `inactive` while others exist (REST docs "Delete a
/// deployment"); the run that created the duplicate may post its first status between our
/// `inactive` and our `DELETE`, or, settling the same duplicates, mark it `inactive` after
/// our `DELETE` and be deleting it. A 422 is therefore followed by another round, up to
/// [`REMOVE_ROUNDS`]. A 404 (of the `inactive` or of the `DELETE`) means another run
/// settling the same duplicates removed it already.
async fn remove_duplicate(
    gh: &GitHub,
    id: u64,
    inactive: &DeploymentStatus,
) -> Result<(), GitHubError> {
    let gone = |e: &GitHubError| e.kind == Kind::NotFound;
    let mut round = 1;
    loop {
        match gh.create_deployment_status(id, inactive).await {
            Err(e) if gone(&e) => return Ok(()),
            other => other?,
        };
        match gh.delete_deployment(id).await {
            Err(e) if gone(&e) => return Ok(()),
            Err(e) if e.kind == Kind::Unprocessable && round < REMOVE_ROUNDS => round += 1,
            other => return other,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digest(c: char) -> Digest {
        Digest::parse(&format!("sha256:{}", c.to_string().repeat(64))).unwrap()
    }

    fn deployment(id: u64, environment: &str, payload: serde_json::Value) -> Deployment {
        Deployment {
            id,
            sha: "a".repeat(40),
            environment: environment.into(),
            payload,
            url: String::new(),
        }
    }

    #[test]
    fn only_our_payload_for_the_digest_counts_lowest_id_first() {
        let (d, other) = (digest('a'), digest('b'));
        let env = Environment::parse("hub").unwrap();
        let listed = vec![
            deployment(9, "hub", payload(&d, Some(Tier::Routine), None)),
            deployment(3, "HUB", payload(&d, None, None)),
            deployment(2, "hub", serde_json::json!({"digest": d.to_string()})),
            deployment(1, "hub", serde_json::json!("a human's")),
            deployment(8, "other", payload(&d, None, None)),
            deployment(5, "hub", payload(&other, None, None)),
            deployment(4, "hub", payload(&digest('c'), None, None)),
        ];
        let ids: Vec<u64> = ours_for(&listed, &env, &d).iter().map(|d| d.id).collect();
        assert_eq!(ids, vec![3, 9]);
        let ids = |of: &Deployment| -> Vec<u64> {
            superseded(&listed, &env, of).iter().map(|d| d.id).collect()
        };
        assert_eq!(ids(&listed[1]), Vec::<u64>::new());
        assert_eq!(ids(&listed[0]), vec![4, 5]);
    }
}
