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
//! several). A run that lost the release race creates none: the winner does.
//!
//! **Earlier releases.** GitHub marks earlier deployments inactive by itself only for
//! non-production environments (`auto_inactive`, GitHub's REST docs "Create a deployment
//! status"); ours are `production_environment: true`, so `status` marks every earlier
//! release's deployment of ours in the environment (on the listed page) `inactive` when
//! this one reaches `success`, once: it reads each one's latest status first.

use super::once::{self, Made};
use crate::digest::Digest;
use crate::render::Change;
use crate::support::github::models::{
    Deployment, DeploymentState, DeploymentStatus, NewDeployment, NewDeploymentStatus,
};
use crate::support::github::{GitHub, Kind};
use anyhow::{Context, Result};

/// The payload key that marks a deployment as codeq-rollout's; its value is
/// [`MARKER_VALUE`].
pub const MARKER_KEY: &str = "created-by";
/// The value of [`MARKER_KEY`] in our payloads.
pub const MARKER_VALUE: &str = "codeq-rollout";
/// GitHub's longest environment name (Docs, "Managing environments for deployment":
/// "An environment name may not exceed 255 characters").
pub(crate) const ENVIRONMENT_MAX_CHARS: usize = 255;

/// The outputs of a run with `environment`: the deployment's id and API address.
pub const OUTPUTS: [&str; 2] = ["deployment-id", "deployment-url"];

/// A GitHub environment's name, checked by GitHub's rules ([`Environment::parse`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Environment(String);

/// Why a text is not an environment name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum EnvironmentError {
    /// Empty (or only whitespace).
    #[error("is empty: name an environment, e.g. jupyterhub-prod, or leave the input unset")]
    Empty,
    /// Longer than [`ENVIRONMENT_MAX_CHARS`].
    #[error("is longer than GitHub's limit of 255 characters for an environment name")]
    TooLong,
    /// Holds a line break or another control character.
    #[error(
        "holds a line break or another control character, which GitHub's environment names cannot"
    )]
    Control,
    /// Holds an invisible character: a bidirectional control (U+202A–U+202E,
    /// U+2066–U+2069), a zero-width one (U+200B–U+200D, U+2060, U+FEFF) or another
    /// default-ignorable or format character ([`crate::support::sanitize::is_invisible`]).
    #[error(
        "holds an invisible character (a bidirectional control or a zero-width one), which makes a name read as another: type the name"
    )]
    Invisible,
}

impl Environment {
    /// Parses an environment name (trimmed) by GitHub's rules: not empty, at most
    /// [`ENVIRONMENT_MAX_CHARS`] characters (GitHub Docs, "Managing environments for
    /// deployment"); no control characters (the name is a line of the Environments page) and
    /// no invisible ones (a bidirectional control or a zero-width character would make it
    /// read as another name).
    /// Names compare without case on GitHub ([`Environment::matches`]).
    ///
    /// # Errors
    /// [`EnvironmentError`] saying which rule the name breaks.
    pub fn parse(text: &str) -> Result<Self, EnvironmentError> {
        let name = text.trim();
        if name.is_empty() {
            return Err(EnvironmentError::Empty);
        }
        if name.chars().count() > ENVIRONMENT_MAX_CHARS {
            return Err(EnvironmentError::TooLong);
        }
        if name.chars().any(char::is_control) {
            return Err(EnvironmentError::Control);
        }
        if name.chars().any(crate::support::sanitize::is_invisible) {
            return Err(EnvironmentError::Invisible);
        }
        Ok(Self(name.to_string()))
    }

    /// The name as given (trimmed).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether `name` (a deployment's `environment`) is this environment: GitHub's names
    /// are not case sensitive.
    pub fn matches(&self, name: &str) -> bool {
        self.0.to_lowercase() == name.to_lowercase()
    }
}

impl std::fmt::Display for Environment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The payload of our deployments: the [`MARKER_KEY`], the digest, and the tier and
/// convergence window when known (`status` creating a deployment knows neither).
pub(crate) fn payload(
    digest: &Digest,
    tier: Option<&str>,
    window: Option<&str>,
) -> serde_json::Value {
    let mut payload = serde_json::json!({ MARKER_KEY: MARKER_VALUE, "digest": digest.to_string() });
    for (key, value) in [("tier", tier), ("window", window)] {
        if let Some(value) = value {
            payload[key] = serde_json::json!(value);
        }
    }
    payload
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
    let mut ours: Vec<&Deployment> = listed
        .iter()
        .filter(|d| environment.matches(&d.environment) && is_ours(d, Some(digest)))
        .collect();
    ours.sort_by_key(|d| d.id);
    ours
}

/// The earlier releases' deployments: every one of ours to `environment` for another digest,
/// older than `current`, oldest first (anyone else's is never among them).
pub(crate) fn superseded<'a>(
    listed: &'a [Deployment],
    environment: &Environment,
    current: &Deployment,
) -> Vec<&'a Deployment> {
    let mut older: Vec<&Deployment> = listed
        .iter()
        .filter(|d| d.id < current.id && environment.matches(&d.environment))
        .filter(|d| is_ours(d, None) && d.payload.get("digest") != current.payload.get("digest"))
        .collect();
    older.sort_by_key(|d| d.id);
    older
}

/// What to create when no deployment of ours exists, and with which first status.
#[derive(Debug, Clone)]
pub(crate) struct DeploymentPlan {
    /// The environment.
    pub environment: Environment,
    /// The digest released.
    pub digest: Digest,
    /// The body of the POST ([`NewDeployment`], its description cut to
    /// GitHub's 140 characters by the render layer, [`crate::render::deployment::fit`]).
    pub new: NewDeployment,
}

impl DeploymentPlan {
    /// The plan for the deployment of `digest`'s release commit `sha` to `environment`:
    /// `required_contexts: []`, `auto_merge: false`, `production_environment: true`.
    ///
    /// # Errors
    /// An empty `sha`: no commit to deploy; the message ends with `fix`, what the caller's
    /// user can do (`announce`: set `sha`; `status`: it takes the release note's commit).
    pub(crate) fn new(
        environment: Environment,
        digest: Digest,
        sha: &str,
        payload: serde_json::Value,
        description: String,
        fix: &str,
    ) -> Result<Self> {
        if sha.is_empty() {
            anyhow::bail!(
                "no commit to deploy to {environment}: the release note of {digest} names none; \
                 {fix}"
            );
        }
        let new = NewDeployment {
            reference: sha.to_string(),
            task: "deploy".into(),
            auto_merge: false,
            required_contexts: Vec::new(),
            payload,
            environment: environment.as_str().to_string(),
            description,
            transient_environment: false,
            production_environment: true,
        };
        Ok(Self {
            environment,
            digest,
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
    /// Another run created the release note just now: it creates the deployment.
    Lost,
}

/// What became of the deployment.
#[derive(Debug, Clone)]
pub(crate) struct DeploymentOutcome {
    /// The deployment (ours, lowest id), when there is one.
    pub deployment: Option<Deployment>,
    /// What this run did to it: created it, gave it a new status, or neither.
    pub change: Change,
    /// Lines for the log: what was found, removed or left alone.
    pub notes: Vec<String>,
    /// Whether this run wrote anything.
    pub wrote: bool,
}

impl DeploymentOutcome {
    fn none(notes: Vec<String>) -> Self {
        Self {
            deployment: None,
            change: Change::Unchanged,
            notes,
            wrote: false,
        }
    }
}

/// `announce`: the deployment of the release to `plan.environment`, created with `first`
/// (its `in_progress` status) when none of ours exists. With [`Lock::Created`]: two POSTs,
/// no read. With [`Lock::Found`]: one listing, and nothing written when ours exists (its
/// status is `status`'s from then on). With [`Lock::Lost`]: one listing, nothing written.
///
/// # Errors
/// A failed GitHub call, with the permission or the fix GitHub's answer calls for.
pub(crate) async fn announce(
    gh: &GitHub,
    plan: &DeploymentPlan,
    first: &NewDeploymentStatus,
    lock: Lock,
) -> Result<DeploymentOutcome> {
    announce_steps(gh, plan, first, lock)
        .await
        .with_context(|| format!("publishing the deployment to {}", plan.environment))
}

async fn announce_steps(
    gh: &GitHub,
    plan: &DeploymentPlan,
    first: &NewDeploymentStatus,
    lock: Lock,
) -> Result<DeploymentOutcome> {
    let mut notes = Vec::new();
    if lock != Lock::Created {
        let listed = list(gh, &plan.environment).await?;
        if let Some(ours) = settle(gh, &listed, plan, &mut notes).await? {
            return Ok(DeploymentOutcome {
                deployment: Some(ours),
                ..DeploymentOutcome::none(notes)
            });
        }
        if lock == Lock::Lost {
            notes.push(format!(
                "the run that created the release note creates the deployment to {}",
                plan.environment
            ));
            return Ok(DeploymentOutcome::none(notes));
        }
    }
    let (mine, recheck) = create(gh, plan).await?;
    // A concurrent run that listed both may have removed this one as the duplicate (its
    // id is the higher) before its first status: then the other one is ours.
    let posted = match post_status(gh, &mine, first).await {
        Ok(_) => true,
        Err(err) if not_found(&err) => false,
        Err(err) => return Err(err),
    };
    let mut deployment = mine;
    if recheck || lock != Lock::Created || !posted {
        let listed = list(gh, &plan.environment).await?;
        deployment = settle(gh, &listed, plan, &mut notes)
            .await?
            .unwrap_or(deployment);
    }
    Ok(DeploymentOutcome {
        deployment: Some(deployment),
        change: Change::Created,
        notes,
        wrote: true,
    })
}

/// Whether `err` holds GitHub's 404.
fn not_found(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<crate::support::github::GitHubError>()
            .is_some_and(|e| e.kind == Kind::NotFound)
    })
}

/// `status`: our deployment of the release to `plan.environment` (created when `announce`
/// did not), with `desired` as its status. A status is posted only when the latest one has
/// another state or description; `environment_url` and `log_url` left `None` in `desired`
/// are carried over from the latest status (so the tracking issue `announce` linked stays
/// the `log_url` of a security release), and without one `log_url` is `log_fallback`. Reaching `success`, every earlier release's
/// deployment of ours ([`superseded`]) is made `inactive` first, unless it is already. With `dry_run`, reads only.
/// When nothing changed: two reads.
///
/// # Errors
/// A failed GitHub call, with the permission or the fix GitHub's answer calls for.
pub(crate) async fn ensure_status(
    gh: &GitHub,
    plan: &DeploymentPlan,
    desired: &NewDeploymentStatus,
    log_fallback: Option<&str>,
    dry_run: bool,
) -> Result<DeploymentOutcome> {
    ensure_steps(gh, plan, desired, log_fallback, dry_run)
        .await
        .with_context(|| format!("keeping the deployment to {}", plan.environment))
}

async fn ensure_steps(
    gh: &GitHub,
    plan: &DeploymentPlan,
    desired: &NewDeploymentStatus,
    log_fallback: Option<&str>,
    dry_run: bool,
) -> Result<DeploymentOutcome> {
    let mut notes = Vec::new();
    let listed = list(gh, &plan.environment).await?;
    let found = settle_unless(gh, &listed, plan, &mut notes, dry_run).await?;
    let (ours, latest, created) = match found {
        Some(ours) => {
            let latest = gh
                .latest_deployment_status(ours.id)
                .await
                .context("reading the latest status of the deployment")?;
            (ours, latest, false)
        }
        None if dry_run => {
            notes.push(format!(
                "dry run: would create the deployment of {} to {} and set it {}",
                plan.digest, plan.environment, desired.state
            ));
            return Ok(DeploymentOutcome::none(notes));
        }
        None => {
            let (mine, _) = create(gh, plan).await?;
            let relisted = list(gh, &plan.environment).await?;
            let ours = settle(gh, &relisted, plan, &mut notes)
                .await?
                .unwrap_or(mine);
            (ours, None, true)
        }
    };
    let desired = NewDeploymentStatus {
        environment_url: desired
            .environment_url
            .clone()
            .or_else(|| latest.as_ref().and_then(|l| l.environment_url.clone())),
        log_url: desired
            .log_url
            .clone()
            .or_else(|| latest.as_ref().and_then(|l| l.log_url.clone()))
            .or_else(|| log_fallback.map(str::to_string)),
        ..desired.clone()
    };
    if latest.as_ref().is_some_and(|l| same_status(l, &desired)) {
        return Ok(DeploymentOutcome {
            deployment: Some(ours),
            ..DeploymentOutcome::none(notes)
        });
    }
    if dry_run {
        notes.push(format!(
            "dry run: would set deployment {} to {}: {}",
            ours.id, desired.state, desired.description
        ));
        return Ok(DeploymentOutcome {
            deployment: Some(ours),
            ..DeploymentOutcome::none(notes)
        });
    }
    if desired.state == DeploymentState::Success {
        for older in superseded(&listed, &plan.environment, &ours) {
            make_inactive(gh, older, &ours, &mut notes).await?;
        }
    }
    post_status(gh, &ours, &desired).await?;
    Ok(DeploymentOutcome {
        deployment: Some(ours),
        change: if created {
            Change::Created
        } else {
            Change::Updated
        },
        notes,
        wrote: true,
    })
}

/// Whether `latest` already says what `desired` would.
fn same_status(latest: &DeploymentStatus, desired: &NewDeploymentStatus) -> bool {
    latest.state == desired.state
        && latest.description.as_deref().unwrap_or("") == desired.description
}

async fn list(gh: &GitHub, environment: &Environment) -> Result<Vec<Deployment>> {
    gh.list_deployments(environment.as_str())
        .await
        .with_context(|| format!("looking for the deployment to {environment}"))
}

/// Creates the deployment once ([`once::create`]); `true` when a duplicate may exist (a
/// second POST after one whose outcome was unknown).
async fn create(gh: &GitHub, plan: &DeploymentPlan) -> Result<(Deployment, bool)> {
    let made = once::create(
        "the deployment",
        async || gh.create_deployment(&plan.new).await,
        async || {
            let listed = list(gh, &plan.environment).await?;
            Ok(ours_for(&listed, &plan.environment, &plan.digest)
                .first()
                .map(|d| (*d).clone()))
        },
    )
    .await
    .with_context(|| {
        format!(
            "creating the deployment of {} (commit {}) to {}",
            plan.digest, plan.new.reference, plan.environment
        )
    })?;
    Ok(match made {
        Made::Posted(d) | Made::FoundAfterUnknownOutcome(d) | Made::FoundAfterConflict(d) => {
            (d, false)
        }
        Made::PostedAfterUnknownOutcome(d) => (d, true),
    })
}

async fn post_status(
    gh: &GitHub,
    deployment: &Deployment,
    status: &NewDeploymentStatus,
) -> Result<DeploymentStatus> {
    gh.create_deployment_status(deployment.id, status)
        .await
        .with_context(|| {
            format!(
                "setting deployment {} to {}; re-run the job: it reads the latest status \
                 first and posts only what is missing",
                deployment.id, status.state
            )
        })
}

/// `settle`, or with `dry_run` only the winner, with a note about the duplicates.
async fn settle_unless(
    gh: &GitHub,
    listed: &[Deployment],
    plan: &DeploymentPlan,
    notes: &mut Vec<String>,
    dry_run: bool,
) -> Result<Option<Deployment>> {
    if !dry_run {
        return settle(gh, listed, plan, notes).await;
    }
    let ours = ours_for(listed, &plan.environment, &plan.digest);
    if ours.len() > 1 {
        notes.push(format!(
            "dry run: would remove {} duplicate deployments of {}",
            ours.len() - 1,
            plan.digest
        ));
    }
    Ok(ours.first().map(|d| (*d).clone()))
}

/// Keeps the lowest id of our deployments for the digest and removes the others (an
/// `inactive` status, then `DELETE`); returns the one kept. Writes nothing when there is
/// one, or none.
async fn settle(
    gh: &GitHub,
    listed: &[Deployment],
    plan: &DeploymentPlan,
    notes: &mut Vec<String>,
) -> Result<Option<Deployment>> {
    let ours = ours_for(listed, &plan.environment, &plan.digest);
    let Some((winner, losers)) = ours.split_first() else {
        return Ok(None);
    };
    for loser in losers {
        let inactive = NewDeploymentStatus {
            state: DeploymentState::Inactive,
            description: format!("Duplicate of deployment {}", winner.id),
            environment_url: None,
            log_url: None,
        };
        remove_duplicate(gh, loser.id, &inactive)
            .await
            .with_context(|| {
                format!(
                    "deployment {} duplicates deployment {} of {} to {}; removing it failed: \
                 delete it by hand (Settings → Environments, or the REST API)",
                    loser.id, winner.id, plan.digest, plan.environment
                )
            })?;
        notes.push(format!(
            "deleted deployment {}, a duplicate of deployment {} left by concurrent runs",
            loser.id, winner.id
        ));
    }
    Ok(Some((*winner).clone()))
}

/// How many times [`remove_duplicate`] marks a duplicate inactive and deletes it before
/// giving up: each further round follows a 422 and a fresh look-up showing that a
/// concurrent run gave it another status in between.
const REMOVE_ROUNDS: usize = 3;

/// Marks deployment `id` `inactive` and deletes it. GitHub refuses (422) to delete a
/// deployment whose latest status is not `inactive` while others exist (REST docs "Delete a
/// deployment"); the run that created the duplicate may post its first status between our
/// `inactive` and our `DELETE`. A 422 is therefore followed by a fresh look-up of the
/// latest status, and only when that is not `inactive` by another round. A 404 anywhere
/// means another run settling the same duplicates removed it already.
async fn remove_duplicate(
    gh: &GitHub,
    id: u64,
    inactive: &NewDeploymentStatus,
) -> Result<(), crate::support::github::GitHubError> {
    let gone = |e: &crate::support::github::GitHubError| e.kind == Kind::NotFound;
    let mut round = 1;
    loop {
        match gh.create_deployment_status(id, inactive).await {
            Err(e) if gone(&e) => return Ok(()),
            other => other?,
        };
        let refused = match gh.delete_deployment(id).await {
            Err(e) if gone(&e) => return Ok(()),
            Err(e) if e.kind == Kind::Unprocessable && round < REMOVE_ROUNDS => e,
            other => return other,
        };
        match gh.latest_deployment_status(id).await {
            Err(e) if gone(&e) => return Ok(()),
            Ok(Some(latest)) if latest.state == DeploymentState::Inactive => return Err(refused),
            Ok(_) => round += 1,
            Err(e) => return Err(e),
        }
    }
}

/// Gives `older` an `inactive` status unless its latest status is one already.
async fn make_inactive(
    gh: &GitHub,
    older: &Deployment,
    current: &Deployment,
    notes: &mut Vec<String>,
) -> Result<()> {
    let latest = gh
        .latest_deployment_status(older.id)
        .await
        .with_context(|| {
            format!(
                "reading the status of deployment {}, an earlier release's",
                older.id
            )
        })?;
    if latest.is_some_and(|l| l.state == DeploymentState::Inactive) {
        return Ok(());
    }
    let inactive = NewDeploymentStatus {
        state: DeploymentState::Inactive,
        description: format!("Superseded by deployment {}", current.id),
        environment_url: None,
        log_url: None,
    };
    gh.create_deployment_status(older.id, &inactive)
        .await
        .with_context(|| {
            format!(
                "marking deployment {}, an earlier release's, inactive",
                older.id
            )
        })?;
    notes.push(format!(
        "marked deployment {} (an earlier release) inactive",
        older.id
    ));
    Ok(())
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
    fn environment_names_follow_githubs_rules() {
        assert_eq!(
            Environment::parse(" jupyterhub-prod ").unwrap().as_str(),
            "jupyterhub-prod"
        );
        assert_eq!(Environment::parse("  "), Err(EnvironmentError::Empty));
        assert_eq!(
            Environment::parse(&"e".repeat(256)),
            Err(EnvironmentError::TooLong)
        );
        assert!(Environment::parse(&"é".repeat(255)).is_ok());
        assert_eq!(
            Environment::parse("prod\nstaging"),
            Err(EnvironmentError::Control)
        );
        assert!(Environment::parse("Prod").unwrap().matches("prod"));
        for sneaky in [
            "prod\u{202e}",
            "pr\u{2066}od",
            "pr\u{200b}od",
            "\u{feff}prod",
        ] {
            assert_eq!(
                Environment::parse(sneaky),
                Err(EnvironmentError::Invisible),
                "{sneaky:?}"
            );
        }
    }

    #[test]
    fn only_our_payload_for_the_digest_counts_lowest_id_first() {
        let (d, other) = (digest('a'), digest('b'));
        let env = Environment::parse("hub").unwrap();
        let listed = vec![
            deployment(9, "hub", payload(&d, Some("routine"), None)),
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
