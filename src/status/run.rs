//! The `status` pipeline: hub → classify → report. [`run`] reads as those stages; the
//! request it takes was checked by the command line ([`crate::cli::status_request`]).
//! Read-only: the hub gets only GET requests ([`super::hub`]); GitHub gets writes only for
//! the opt-in comment, and none with `dry-run`.

use super::classify::{
    Alarm, AtScaleModel, ImageTarget, PodEvidence, State, Totals, Verdict, classify,
    classify_by_digest, judge,
};
use super::history;
use super::hub::{HubClient, HubError};
use super::kube::{KubeClient, KubeRequest};
use super::report::{self, CommentChange, CommentOutcome};
use crate::digest::registry::RegistryOptions;
use crate::digest::{self, Digest, ImageSource};
use crate::publish::deployment::{self, DeploymentPlan, Environment};
use crate::publish::{self, Target, once};
use crate::render::messages::{self, RunWarning};
use crate::render::status::StatusFacts;
use crate::render::{self, HubFault, MarkerKind, Stage};
use crate::report::{FileCommands, RunnerFile, failed_write};
use crate::support::github::GitHub;
use crate::support::github::models::{
    Account, Comment, DeploymentState, Issue, NewDeploymentStatus, Release as ReleaseNote,
};
use crate::support::log::Log;
use crate::window::{CullSettings, HubScale, ScaleConfig, at_scale, fits_calendar};
use anyhow::{Context, Result, anyhow};
use time::OffsetDateTime;

/// One `status` run, every input checked ([`crate::cli::status_request`] builds it).
pub struct StatusRequest {
    /// The hub's REST client (base URL and token checked; the token held as a secret).
    pub hub: HubClient,
    /// `hub-url` as given, trimmed, for the reports.
    pub hub_url: String,
    /// When the release went live (`--released-at`); `None` for the time recorded in the
    /// release note of the image's digest.
    pub released_at: Option<OffsetDateTime>,
    /// `--image`, with the registry options for a registry reference: its digest finds the
    /// release note and the tracking issue. `None` when nothing needs the digest
    /// (`--released-at` given and no comment): the registry is then not asked.
    pub image: Option<(ImageSource, Option<RegistryOptions>)>,
    /// The GitHub client, when the release note is read or the comment written.
    pub github: Option<GitHub>,
    /// Labels that find the tracking issue.
    pub tracking_labels: Vec<String>,
    /// `comment`: post or edit the "Convergence status" comment on the tracking issue, or
    /// with `dry-run` only say what would be done; `None` without `comment` (then nothing is
    /// written to GitHub, and `dry-run` changes nothing).
    pub comment: Option<CommentMode>,
    /// The idle culler's settings (z2jh `cull.*`).
    pub culler: CullSettings,
    /// `hub-size` (`None` for the servers running when the hub is read, at least 1) and
    /// `slow-stop-timeout`, for the worst case.
    pub scale: ScaleConfig,
    /// `--json`: the JSON document on stdout instead of the table.
    pub json: bool,
    /// `include-names`: the job summary, the comment and, inside GitHub Actions, the job log
    /// (the table and the JSON) name users and servers; off, the log shows `user 1`, … (a
    /// terminal outside Actions always shows names).
    pub include_names: bool,
    /// The run's clock (`--now`, tests); `None` for the time the hub is read.
    pub now: Option<OffsetDateTime>,
    /// Kubernetes (opt-in): judge by each pod's digest; `None` to infer from start times.
    pub kube: Option<super::kube::KubeRequest>,
    /// `fail-on`: the alarms that make the run fail (exit 1).
    pub fail_on: Vec<super::classify::Alarm>,
    /// The pull-policy preflight's finding from the values files and `--image`, repeated as
    /// a warning: new servers may start on an older image, so a server started after the
    /// release is not surely updated.
    pub pull: Option<crate::window::PullRisk>,
    /// `environment`: the GitHub environment whose deployment of the release gets the
    /// rollout's status (needs `--image` and GitHub); `None` for no deployment.
    pub environment: Option<Environment>,
    /// `dry-run`: with `environment`, read the deployment, write nothing.
    pub dry_run: bool,
}

/// What a `status` run with `comment` does with the "Convergence status" comment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommentMode {
    /// Post it, or edit it in place when its numbers changed.
    Write,
    /// `dry-run`: read the hub and GitHub as usual, write nothing to GitHub; log what would
    /// be done with the comment, and its body.
    DryRun,
}

/// Runs `status`: lists the running servers, classifies them against the release, prints
/// the table (or the JSON with `--json`) and, inside Actions, writes the outputs and the job
/// summary. When a stage fails, the job summary says which and what to do, and the outputs
/// are written empty if the hub was not measured (`report_failure`); the error is
/// returned as it was.
///
/// # Errors
/// The hub's answer as a [`super::hub::HubError`] (what failed, what to do); an output or
/// summary file that cannot be written.
pub(crate) async fn run(req: &StatusRequest, log: &Log) -> Result<()> {
    let mut stage = Stage::StatusRelease;
    let outcome = stages(req, log, &mut stage).await;
    // Alarms fire after a full report: nothing to replace with a failure summary.
    if let Err(err) = &outcome
        && !err.is::<AlarmsFired>()
    {
        report_failure(req, stage, err, log);
    }
    outcome
}

/// The stages, each recording into `stage` that it started.
async fn stages(req: &StatusRequest, log: &Log, stage: &mut Stage) -> Result<()> {
    if let Some(risk) = &req.pull {
        warn(log, RunWarning::PullPolicy(risk));
    }
    // 1. The release: its digest, when it went live, its tracking issue.
    let release = release(req, log).await?;

    // 2. Hub (GET only, page by page).
    let hub_read_at = OffsetDateTime::now_utc();
    *stage = Stage::StatusHub(HubFault::Access);
    let listing = req.hub.list_active_servers().await.inspect_err(|e| {
        *stage = Stage::StatusHub(hub_fault(e));
    })?;
    log.debug(&render::status::hub_read(
        listing.servers.len(),
        listing.users,
        listing.requests,
    ));
    let now = req.now.unwrap_or_else(OffsetDateTime::now_utc);

    // 3. Classify, with the release note's worst case at the hub's scale.
    let running = u64::try_from(listing.servers.len()).unwrap_or(u64::MAX);
    let model = AtScaleModel {
        settings: req.culler,
        scale: HubScale {
            // Never fewer than run now: a smaller hub-size would make the deadlines early.
            servers: req.scale.servers.unwrap_or(running).max(running).max(1),
            slow_stop_timeout_secs: req.scale.slow_stop_timeout_secs,
        },
    };
    // The command line checked the deadlines fit a date at `hub-size`; more servers running
    // make the worst case longer: refused too, never stated as "culling disabled".
    if let Some(longest) = at_scale(&model.settings, &model.scale).longest_secs()
        && !fits_calendar(now, longest)
    {
        *stage = Stage::StatusHub(HubFault::Answer);
        return Err(anyhow!(render::status::beyond_calendar(
            now,
            req.now.is_some(),
            &model.scale,
            longest
        )));
    }
    // 2b. Kubernetes (opt-in, after the hub: a pod started since is no orphan).
    let classification = match &req.kube {
        None => classify(listing.servers, release.released_at, now, &model),
        Some(kube) => {
            *stage = Stage::StatusKubernetes;
            let evidence = pods(req, kube, &release, hub_read_at, log).await?;
            if evidence.pods.is_empty() && !listing.servers.is_empty() {
                let selector = kube.query.selector();
                warn(
                    log,
                    RunWarning::NoPods {
                        namespace: &kube.query.namespace,
                        selector: &selector,
                        servers: listing.servers.len(),
                    },
                );
            }
            classify_by_digest(listing.servers, evidence, release.released_at, now, &model)
        }
    };

    // 4. Report.
    let facts = StatusFacts {
        hub_url: &req.hub_url,
        digest: release.digest.as_ref(),
        released_at: release.released_at,
        now,
        classification: &classification,
        shifted: listing.shifted,
        include_names: req.include_names,
        history: None,
    };
    // Inside Actions the job log is as visible as the job summary: names reach it only
    // with include-names; a terminal outside Actions shows them.
    let hidden;
    let shown = if req.include_names || !log.in_actions() {
        &classification
    } else {
        hidden = render::status::without_names(&classification);
        &hidden
    };
    let printed = StatusFacts {
        classification: shown,
        ..facts
    };
    // A closed or full stdout does not stop the outputs, summary and comment below.
    crate::support::stdout::print(&if req.json {
        render::status::json(&printed)
    } else {
        render::status::table(&printed)?
    });
    *stage = Stage::StatusReport;
    let files = FileCommands::from_env();
    if log.in_actions() && files.output.is_none() {
        warn(log, RunWarning::OutputsNotWritten(&NAMED_OUTPUTS));
    }
    files.write_outputs(&report::outputs(&classification.totals))?;

    // The convergence comment as it is (opt-in, an open tracking issue), read before the job
    // summary so that both draw the same progress chart from its history.
    *stage = Stage::StatusComment;
    let open_issue = release.issue.as_ref().filter(|i| i.state == "open");
    let existing = match (req.comment, &req.github, &release.digest, open_issue) {
        (Some(_), Some(github), Some(digest), Some(issue)) => {
            Some(our_status_comment(github, issue, digest).await?)
        }
        _ => None,
    };
    let history = existing.as_ref().map(|found| {
        let body = found.as_ref().and_then(|c| c.body.as_deref()).unwrap_or("");
        let earlier = history::parse(body, release.released_at, now).unwrap_or_else(|e| {
            warn(
                log,
                RunWarning::HistoryRefused(&render::status::history_refused(&e).to_string()),
            );
            None
        });
        history::with_this_run(earlier, &classification.totals, now)
    });
    let facts = StatusFacts {
        history: history.as_ref(),
        ..facts
    };
    *stage = Stage::StatusReport;
    files.write_summary(&render::status::job_summary(&facts)?)?;

    // Named as the log's table names them (`user N` without include-names inside Actions).
    let names = req.include_names || !log.in_actions();
    for c in shown
        .servers
        .iter()
        .filter(|c| c.state == State::Mismatch)
        .take(MISMATCH_ANNOTATIONS_MAX)
    {
        let query = req.kube.as_ref().map(|k| &k.query);
        let (title, message) = render::status::mismatch_annotation(c, names, query);
        log.error(&title, &message.to_string());
    }

    // 5. The tracking issue's comment (opt-in), and a line of the job summary saying what
    // became of it.
    *stage = Stage::StatusComment;
    if let (Some(mode), Some(github), Some(digest)) = (req.comment, &req.github, &release.digest) {
        let dry_run = mode == CommentMode::DryRun;
        let issue = open_issue.zip(existing);
        let outcome = comment(github, issue, digest, &facts, dry_run, log).await?;
        files.write_summary(&report::comment_note(&outcome)?)?;
    }

    // 6. The deployment's status (`environment`), after everything else is reported.
    if let (Some(environment), Some(github), Some(digest)) =
        (&req.environment, &req.github, &release.digest)
    {
        *stage = Stage::StatusDeployment;
        let outcome = deploy(
            req,
            environment,
            github,
            digest,
            &release,
            &classification,
            now,
        )
        .await?;
        for note in &outcome.notes {
            log.info(&messages::published_note(note));
        }
        if let Some(d) = &outcome.deployment {
            log.info(&render::deployment::logged(
                outcome.change,
                d.id,
                environment.as_str(),
            ));
        }
        let deployment = outcome.deployment.as_ref();
        files.write_outputs(&[
            (
                deployment::OUTPUTS[0],
                deployment.map(|d| d.id.to_string()).unwrap_or_default(),
            ),
            (
                deployment::OUTPUTS[1],
                deployment
                    .and_then(|d| crate::support::sanitize::link_url(&d.url))
                    .unwrap_or_default()
                    .to_string(),
            ),
        ])?;
    }

    // 7. Alarms (`fail-on`): exit 1 with an annotation, everything above written.
    let fired: Vec<Alarm> = classification
        .alarms()
        .into_iter()
        .filter(|a| req.fail_on.contains(a))
        .collect();
    if !fired.is_empty() {
        let (title, _) = render::status::alarm_annotation(&fired, &classification.totals);
        return Err(anyhow!(AlarmsFired {
            title,
            fired,
            totals: classification.totals,
        }));
    }
    Ok(())
}

/// The most mismatch annotations one run prints (GitHub shows ten error annotations per step).
const MISMATCH_ANNOTATIONS_MAX: usize = 10;

/// The run failed on `fail-on`: the measurement succeeded, the alarms fired. `main` prints
/// it as an error annotation titled `title` and exits 1; its message (`Display`) is
/// [`render::status::alarm_annotation`]'s.
#[derive(Debug)]
pub(crate) struct AlarmsFired {
    /// The annotation's title ([`render::status::alarm_annotation`]'s).
    pub title: String,
    /// The alarms that fired, as `fail-on` lists them.
    pub fired: Vec<Alarm>,
    /// The totals they fired on.
    pub totals: Totals,
}

impl std::fmt::Display for AlarmsFired {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        render::status::alarm_annotation(&self.fired, &self.totals)
            .1
            .fmt(f)
    }
}

impl std::error::Error for AlarmsFired {}

/// Stage 2b: the single-user pods, and the digests that count as the release: the announced
/// digest and, only when a pod reports another digest (so the common case costs no registry
/// request), the index's child manifests ([`digest::children`]).
async fn pods(
    req: &StatusRequest,
    kube: &KubeRequest,
    release: &Release,
    hub_read_at: OffsetDateTime,
    log: &Log,
) -> Result<PodEvidence> {
    let digest = release.digest.clone().ok_or_else(|| {
        anyhow!("no digest to judge pods by (a bug: the command line needs image)")
    })?;
    let listing = KubeClient::new(kube).await?.list_pods().await?;
    let pods_read_at = OffsetDateTime::now_utc();
    log.debug(&crate::render::kube::read(
        listing.pods.len(),
        listing.requests,
        listing.restarted,
    ));
    let (source, registry) = req
        .image
        .as_ref()
        .ok_or_else(|| anyhow!("no image (a bug: the command line needs it)"))?;
    let repository = match source {
        ImageSource::Registry(r) => Some(format!("{}/{}", r.registry(), r.repository())),
        ImageSource::Layout { .. } => None,
    };
    let mut target = ImageTarget {
        digests: vec![digest.clone()],
        repository,
    };
    let other = listing
        .pods
        .iter()
        .any(|p| matches!(judge(p.image_id.as_deref(), &target), Verdict::Old(_)));
    if other {
        target
            .digests
            .extend(digest::children(source, registry.as_ref(), &digest).await?);
    }
    Ok(PodEvidence {
        pods: listing.pods,
        target,
        hub_read_at,
        pods_read_at,
    })
}

/// Stage 6: the status the rollout asks for ([`report::deployment::rollout`]) on the
/// release's deployment to `environment`, posted only when it changed
/// ([`deployment::ensure_status`]); the deployment is created when `announce` did not (a
/// matrix of hubs, one environment each, after one `announce`).
async fn deploy(
    req: &StatusRequest,
    environment: &Environment,
    github: &GitHub,
    digest: &Digest,
    release: &Release,
    classification: &super::classify::Classification,
    now: OffsetDateTime,
) -> Result<deployment::DeploymentOutcome> {
    let Some(note) = &release.note else {
        return Err(anyhow!(report::no_release_note(
            digest,
            &req.image
                .as_ref()
                .map(|(s, _)| s.display())
                .unwrap_or_default()
        )));
    };
    let plan = DeploymentPlan::new(
        environment.clone(),
        digest.clone(),
        &note.target_commitish,
        deployment::payload(digest, None, None),
        render::deployment::description_untiered(digest),
        render::deployment::NO_COMMIT_STATUS,
    )?;
    let rollout = report::deployment::rollout(classification);
    let desired = NewDeploymentStatus {
        state: match rollout.phase() {
            report::deployment::Phase::InProgress => DeploymentState::InProgress,
            report::deployment::Phase::Success => DeploymentState::Success,
            report::deployment::Phase::Failure => DeploymentState::Failure,
        },
        description: report::deployment::description(&rollout, now),
        environment_url: Some(req.hub_url.clone()),
        // The tracking issue when this run looked it up (a security release, as `announce`
        // links it); else the latest status's link is kept, the release note without one.
        log_url: release
            .issue
            .as_ref()
            .and_then(|issue| crate::support::sanitize::link_url(&issue.html_url))
            .map(str::to_string),
    };
    let log_fallback = crate::support::sanitize::link_url(&note.html_url);
    deployment::ensure_status(github, &plan, &desired, log_fallback, req.dry_run).await
}

/// The outputs the warning about an unset `$GITHUB_OUTPUT` names as examples.
pub(crate) const NAMED_OUTPUTS: [&str; 3] = ["converged", "stale", "running"];

#[test]
fn the_outputs_a_warning_names_are_status_outputs() {
    let names: Vec<&str> = report::unmeasured_outputs()
        .iter()
        .map(|(n, _)| *n)
        .collect();
    assert!(NAMED_OUTPUTS.iter().all(|n| names.contains(n)), "{names:?}");
}

/// Prints `warning` as a warning annotation (titled, on one line).
fn warn(log: &Log, warning: RunWarning) {
    log.warn(&warning);
}

/// The report of a run that failed: a job summary saying which stage failed and what to do
/// ([`render::failure_summary`], as `announce` reports). Failed before the hub was measured,
/// the outputs are written empty (nothing was established: never `converged=false` as a
/// fact); later, they were written already or writing them is what failed. A summary whose
/// write is what failed (the report's, or the comment's line) is not tried again: the error
/// says it could not be written. Best effort: the run fails with `err` anyway, so a file
/// that cannot be written is only warned about, naming which.
fn report_failure(req: &StatusRequest, stage: Stage, err: &anyhow::Error, log: &Log) {
    let summary = render::failure_summary(&render::Failure {
        stage,
        error: log.redact(&format!("{err:#}")),
        image: req
            .image
            .as_ref()
            .map(|(source, _)| source.display())
            .unwrap_or_default(),
        hub: Some(req.hub_url.clone()),
        ..render::Failure::default()
    });
    let outputs = matches!(
        stage,
        Stage::StatusRelease | Stage::StatusHub(_) | Stage::StatusKubernetes
    )
    .then(report::unmeasured_outputs);
    let summary = (failed_write(err) != Some(RunnerFile::Summary)).then(|| log.redact(&summary));
    let unwritten = FileCommands::from_env().write_failure(outputs.as_deref(), summary.as_deref());
    if let Some(warning) = unwritten.warning() {
        warn(log, warning);
    }
}

/// The kind of a failed read of the hub, for what the job summary tells to do: a 5xx or a
/// timeout is the hub's (or its proxy's), a 429 a rate limit, an answer the hub's API gave
/// but `status` cannot use is what the error names; anything else (unreachable, refused,
/// not the hub's API) is the address, the token or the way to the hub.
fn hub_fault(e: &HubError) -> HubFault {
    match e {
        HubError::Status { status: 429, .. } => HubFault::RateLimited,
        HubError::Status {
            status: 500..=599, ..
        }
        | HubError::Timeout { .. } => HubFault::Down,
        HubError::TooOld { .. } | HubError::Malformed { .. } => HubFault::Answer,
        _ => HubFault::Access,
    }
}

/// The release measured.
struct Release {
    /// Its digest, when measured by image.
    digest: Option<Digest>,
    /// When it went live.
    released_at: OffsetDateTime,
    /// Its tracking issue (security releases), when looked up.
    issue: Option<Issue>,
    /// Its release note, when looked up.
    note: Option<ReleaseNote>,
}

/// Stage 1: the digest of `--image` (as `announce` resolves it), then, with GitHub, the
/// release note found by its digest marker and the tracking issue found by digest
/// ([`publish::look_up`], reads only); the time is `--released-at` or the one `announce`
/// recorded in the note ([`publish::Found::announced_at`]).
async fn release(req: &StatusRequest, log: &Log) -> Result<Release> {
    let explicit = |digest| {
        req.released_at
            .map(|released_at| Release {
                digest,
                released_at,
                issue: None,
                note: None,
            })
            .ok_or_else(|| anyhow!("no release time (a bug: the command line checks it)"))
    };
    let Some((source, registry)) = &req.image else {
        return explicit(None);
    };
    let digest = digest::resolve(source, registry.as_ref()).await?;
    log.info(&messages::resolved(&source.display(), &digest));
    let Some(github) = &req.github else {
        return explicit(Some(digest));
    };
    let target = Target {
        digest: digest.clone(),
        tag: publish::release_tag(&source.short_name(), &digest),
        image: render::image_repository(&source.display()).to_string(),
        tracking_labels: req.tracking_labels.clone(),
        tracking_issue: true,
    };
    // Without `comment` the tracking issue is not needed: the releases alone.
    let found = match req.comment {
        Some(_) => publish::look_up(github, &target).await?,
        None => publish::look_up_releases(github, &target).await?,
    };
    let released_at = match (req.released_at, found.announced_at()) {
        (Some(at), _) => at,
        // The note keeps whole seconds: the end of that second, so that a server started
        // within it is not counted as updated.
        (None, Some(at)) => at + time::Duration::SECOND,
        (None, None) => {
            return Err(anyhow!(report::no_release_note(&digest, &source.display())));
        }
    };
    Ok(Release {
        digest: Some(digest),
        released_at,
        issue: found.issue().cloned(),
        note: found.release().cloned(),
    })
}

/// Stage 5: one "Convergence status" comment on the open tracking issue of `digest`, created
/// once (a failed POST is followed by a fresh look-up, never a second blind POST), edited in
/// place only when its numbers change ([`report::comment_needs_edit`]); the issue's body is
/// never touched. No issue (a routine release) or a closed one: nothing is written. With
/// `dry_run` the comments are read as usual, then what would be done (create, edit, leave
/// unchanged) is logged with the body instead ([`report::dry_run_comment`]). Returns what
/// was decided and where, for the job summary.
async fn comment(
    github: &GitHub,
    issue: Option<(&Issue, Option<Comment>)>,
    digest: &Digest,
    facts: &StatusFacts<'_>,
    dry_run: bool,
    log: &Log,
) -> Result<CommentOutcome> {
    let Some((issue, existing)) = issue else {
        log.info(&report::no_open_issue(digest));
        return Ok(CommentOutcome::NoOpenIssue);
    };
    let body = render::status::comment(facts, digest)?;
    let find = async || our_status_comment(github, issue, digest).await;
    let change = match &existing {
        None => CommentChange::Create,
        Some(c) if report::comment_needs_edit(c.body.as_deref().unwrap_or(""), &body) => {
            CommentChange::Edit
        }
        Some(_) => CommentChange::Unchanged,
    };
    if dry_run {
        let url = existing.as_ref().map_or(&issue.html_url, |c| &c.html_url);
        log.info(&report::dry_run_comment(change, url, &body));
        return Ok(CommentOutcome::Decided {
            change,
            url: url.clone(),
            dry_run,
        });
    }
    let url = match (change, existing) {
        (CommentChange::Unchanged, Some(c)) => c.html_url,
        (_, Some(c)) => github.update_comment(c.id, &body).await?.html_url,
        (_, None) => {
            let made = once::create(
                report::CONVERGENCE_COMMENT,
                async || github.create_comment(issue.number, &body).await,
                find,
            )
            .await?;
            let c = match made {
                once::Made::PostedAfterUnknownOutcome(mine) => {
                    let mine = by_issue_author(github, issue, mine).await?;
                    keep_first(github, issue, digest, mine, log).await?
                }
                once::Made::Posted(mine) => by_issue_author(github, issue, mine).await?,
                once::Made::FoundAfterUnknownOutcome(c) | once::Made::FoundAfterConflict(c) => c,
            };
            c.html_url
        }
    };
    log.info(&report::comment_done(change, &url));
    Ok(CommentOutcome::Decided {
        change,
        url,
        dry_run,
    })
}

/// The "Convergence status" comment for `digest` on `issue`, when there is one: ours only
/// when the tracking issue's author wrote it, as `announce` decides (anyone who can read the
/// issue can comment with a copied marker).
async fn our_status_comment(
    github: &GitHub,
    issue: &Issue,
    digest: &Digest,
) -> Result<Option<Comment>> {
    let comments = github.list_comments(issue.number).await?;
    Ok(publish::our_comment(issue, &comments, MarkerKind::ConvergenceComment, digest).cloned())
}

/// `mine`, the comment this run just posted, when the tracking issue's author wrote it (as
/// GitHub's answer to the POST names its author). Otherwise the token is another account's
/// (announce opened the issue with an App token or PAT, status runs with `github.token`):
/// later runs would never count the comment as theirs ([`publish::our_comment`], the rule
/// that keeps forged markers out) and would post one more each time, so `mine` is deleted
/// and the run fails.
///
/// # Errors
/// Always when the accounts differ: [`report::comment_by_other_account`], holding the
/// DELETE's error when that failed too.
async fn by_issue_author(github: &GitHub, issue: &Issue, mine: Comment) -> Result<Comment> {
    if publish::by_issue_author(issue, &mine) {
        return Ok(mine);
    }
    fn login(a: &Option<Account>) -> Option<&str> {
        a.as_ref().map(|a| a.login.as_str())
    }
    let words = |deleted| {
        report::comment_by_other_account(
            login(&mine.user),
            login(&issue.user),
            &mine.html_url,
            &issue.html_url,
            deleted,
        )
    };
    match github.delete_comment(mine.id).await {
        Ok(()) => Err(anyhow!(words(true))),
        Err(e) => Err(anyhow::Error::new(e).context(words(false))),
    }
}

/// After a second comment POST (the first one's outcome unknown, and a look-up that did not
/// list it): the first may have taken effect behind a lagging listing, so the comments are
/// read again, as the tracking issue is ([`crate::publish`]'s give-way). The earliest
/// "Convergence status" comment for `digest` by the tracking issue's author
/// ([`publish::our_comment`]) is kept; when that is not `mine`, `mine` is
/// deleted as the duplicate and the earliest returned.
///
/// # Errors
/// A failed read or delete, saying which comment exists and what to do.
async fn keep_first(
    github: &GitHub,
    issue: &Issue,
    digest: &Digest,
    mine: Comment,
    log: &Log,
) -> Result<Comment> {
    let comments = github
        .list_comments(issue.number)
        .await
        .with_context(|| report::comments_not_reread(&mine.html_url))?;
    let first =
        publish::our_comment(issue, &comments, MarkerKind::ConvergenceComment, digest).cloned();
    match first {
        Some(first) if first.id < mine.id => {
            let duplicate =
                |deleted| report::duplicate_comment(&mine.html_url, &first.html_url, deleted);
            github
                .delete_comment(mine.id)
                .await
                .with_context(|| duplicate(false))?;
            log.info(&duplicate(true));
            Ok(first)
        }
        _ => Ok(mine),
    }
}

#[cfg(test)]
mod tests {
    //! The comment's creation against a wiremock GitHub answering GitHub's example payloads
    //! (`tests/fixtures/github-rest/`): a first POST whose outcome is unknown is never
    //! followed by a duplicate that stays.
    use super::*;
    use crate::context::Repository;
    use crate::status::classify::{SettingsModel, classify};
    use crate::support::github::Options;
    use serde_json::{Value, json};
    use time::macros::datetime;
    use wiremock::matchers::{method, path};
    use wiremock::{Mock, MockServer, ResponseTemplate};

    const COMMENTS: &str = "/repos/octo-org/lab/issues/7/comments";

    fn digest() -> Digest {
        Digest::parse("sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08")
            .unwrap()
    }

    /// GitHub's example comment with `id` and `body`, written by `octocat` (the account
    /// that opened the tracking issue of [`post_comment`]).
    fn comment_json(id: u64, body: &str) -> Value {
        comment_by(id, body, "octocat")
    }

    /// GitHub's example comment with `id` and `body`, written by `login`.
    fn comment_by(id: u64, body: &str, login: &str) -> Value {
        let fixture = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/github-rest/issue-comment.json"
        );
        let mut c: Value = serde_json::from_slice(&std::fs::read(fixture).unwrap()).unwrap();
        c["id"] = json!(id);
        c["body"] = json!(body);
        c["user"]["login"] = json!(login);
        c["html_url"] = json!(format!(
            "https://github.com/octo-org/lab/issues/7#issuecomment-{id}"
        ));
        c
    }

    /// An empty hub measured at the release time.
    fn empty_hub() -> super::super::classify::Classification {
        let at = datetime!(2026-11-30 12:00 UTC);
        classify(Vec::new(), at, at, &SettingsModel(Default::default()))
    }

    fn facts<'a>(c: &'a super::super::classify::Classification, d: &'a Digest) -> StatusFacts<'a> {
        let at = datetime!(2026-11-30 12:00 UTC);
        StatusFacts {
            hub_url: "https://hub.example.org",
            digest: Some(d),
            released_at: at,
            now: at,
            classification: c,
            shifted: false,
            include_names: false,
            history: None,
        }
    }

    /// The comment [`post_comment`] posts: [`empty_hub`]'s, for [`digest`].
    fn our_body() -> String {
        let (c, d) = (empty_hub(), digest());
        render::status::comment(&facts(&c, &d), &d).unwrap()
    }

    /// Runs [`comment`] for [`empty_hub`] against `github`.
    async fn post_comment(github: &MockServer) -> Result<()> {
        comment_run(github, false).await.map(drop)
    }

    /// Runs [`comment`] for [`empty_hub`] against `github`, as a dry run or not.
    async fn comment_run(github: &MockServer, dry_run: bool) -> Result<CommentOutcome> {
        let gh = GitHub::with_options(
            &github.uri(),
            &crate::support::secrets::SecretString::from("ghs_test"),
            Repository::parse("octo-org/lab").unwrap(),
            Options::default(),
        )
        .unwrap();
        let issue: Issue = serde_json::from_value(
            json!({"id": 70, "number": 7, "state": "open", "user": {"login": "octocat"},
                   "html_url": "https://github.com/octo-org/lab/issues/7"}),
        )
        .unwrap();
        let (c, d) = (empty_hub(), digest());
        let existing = our_status_comment(&gh, &issue, &d).await?;
        comment(
            &gh,
            Some((&issue, existing)),
            &d,
            &facts(&c, &d),
            dry_run,
            &Log::new(false, false),
        )
        .await
    }

    /// `(method, path)` of every request `github` received.
    async fn calls(github: &MockServer) -> Vec<(String, String)> {
        github
            .received_requests()
            .await
            .unwrap()
            .iter()
            .map(|r| (r.method.to_string(), r.url.path().to_string()))
            .collect()
    }

    /// Mounts `response` to `verb` on `route`: only the first `times` requests (ahead of
    /// the other mocks) when given, else every one.
    async fn answer(
        github: &MockServer,
        verb: &str,
        route: &str,
        response: ResponseTemplate,
        times: Option<u64>,
    ) {
        let mock = Mock::given(method(verb))
            .and(path(route))
            .respond_with(response);
        match times {
            Some(n) => mock.up_to_n_times(n).with_priority(1),
            None => mock,
        }
        .mount(github)
        .await;
    }

    fn listing(comments: Value) -> ResponseTemplate {
        ResponseTemplate::new(200).set_body_json(comments)
    }

    #[test]
    fn a_failed_read_of_the_hub_blames_hub_url_and_token_only_when_they_may_be_the_cause() {
        let url = "https://hub.example.org/hub/api/users".to_string();
        let status = |status| HubError::Status {
            url: url.clone(),
            status,
            hub_message: None,
            tries: 1,
        };
        let faults = [
            status(500),
            status(502),
            status(503),
            status(429),
            status(400),
            HubError::Timeout {
                url: url.clone(),
                after: std::time::Duration::from_millis(1500),
            },
            HubError::Unauthorized { url: url.clone() },
            HubError::NotJson {
                url: url.clone(),
                detail: "expected ident at line 1 column 2".into(),
            },
            HubError::TooOld { url: url.clone() },
        ]
        .map(|e| hub_fault(&e));
        use HubFault::*;
        assert_eq!(
            faults,
            [
                Down,
                Down,
                Down,
                RateLimited,
                Access,
                Down,
                Access,
                Access,
                Answer
            ]
        );
    }
    #[tokio::test]
    async fn a_second_post_behind_a_lagging_listing_is_deleted_as_the_duplicate() {
        let github = MockServer::start().await;
        let body = our_body();
        // The first POST takes effect (comment 1) but answers 500; the listing right after
        // lags and shows nothing, so a second POST makes comment 2; the fresh re-read shows
        // both: 2 goes.
        first_post_fails_second_makes_2(&github, &body).await;
        let both = json!([comment_json(1, &body), comment_json(2, &body)]);
        answer(&github, "GET", COMMENTS, listing(both), None).await;
        let duplicate = "/repos/octo-org/lab/issues/comments/2";
        answer(
            &github,
            "DELETE",
            duplicate,
            ResponseTemplate::new(204),
            None,
        )
        .await;

        post_comment(&github).await.unwrap();
        let mut expected = owned(&POST_TWICE_LOOKING_AFTER_EACH);
        expected.extend(owned(&[("DELETE", duplicate)]));
        assert_eq!(calls(&github).await, expected);
    }

    #[tokio::test]
    async fn a_failed_post_that_took_effect_is_found_and_not_posted_again() {
        let github = MockServer::start().await;
        answer(&github, "POST", COMMENTS, ResponseTemplate::new(500), None).await;
        answer(&github, "GET", COMMENTS, listing(json!([])), Some(1)).await;
        // The re-read after the 500 lists the comment the POST made.
        let marker = render::status::comment_marker(&digest());
        let made = json!([comment_json(1, &format!("{marker}\nmade"))]);
        answer(&github, "GET", COMMENTS, listing(made), None).await;

        post_comment(&github).await.unwrap();
        let methods: Vec<String> = calls(&github).await.into_iter().map(|(m, _)| m).collect();
        assert_eq!(methods, ["GET", "POST", "GET"], "exactly one POST");
    }

    #[tokio::test]
    async fn a_forged_marker_comment_by_another_user_is_neither_edited_nor_counted() {
        let github = MockServer::start().await;
        let body = our_body();
        // mallory copied the whole comment, marker and numbers: neither edited (PATCH),
        // nor taken as "unchanged", nor deleted; the bot posts its own, once.
        let forged = json!([comment_by(1, &body, "mallory")]);
        answer(&github, "GET", COMMENTS, listing(forged), None).await;
        let made = ResponseTemplate::new(201).set_body_json(comment_json(2, &body));
        answer(&github, "POST", COMMENTS, made, None).await;

        post_comment(&github).await.unwrap();
        let call = |m: &str, p: &str| (m.to_string(), p.to_string());
        assert_eq!(
            calls(&github).await,
            [call("GET", COMMENTS), call("POST", COMMENTS)]
        );
    }

    #[tokio::test]
    async fn a_forged_earlier_marker_comment_does_not_get_the_bots_comment_deleted() {
        let github = MockServer::start().await;
        let body = our_body();
        // The first POST answers 500 and took no effect; the second makes comment 2. The
        // re-read lists mallory's forged comment 1 (earlier) and the bot's 2: 2 stays.
        first_post_fails_second_makes_2(&github, &body).await;
        let both = json!([comment_by(1, &body, "mallory"), comment_json(2, &body)]);
        answer(&github, "GET", COMMENTS, listing(both), None).await;
        let any_delete = ResponseTemplate::new(204);
        Mock::given(method("DELETE"))
            .respond_with(any_delete)
            .mount(&github)
            .await;

        post_comment(&github).await.unwrap();
        assert_eq!(calls(&github).await, owned(&POST_TWICE_LOOKING_AFTER_EACH));
    }

    #[tokio::test]
    async fn a_dry_run_reads_the_comments_and_writes_nothing_whatever_it_would_do() {
        let body = our_body();
        let marker = render::status::comment_marker(&digest());
        // Nothing yet (would post on the issue), other numbers (would edit), the same (would
        // leave it).
        let issue = "https://github.com/octo-org/lab/issues/7";
        let ours = "https://github.com/octo-org/lab/issues/7#issuecomment-1";
        for (existing, change, url) in [
            (json!([]), CommentChange::Create, issue),
            (
                json!([comment_json(1, &format!("{marker}\nold numbers"))]),
                CommentChange::Edit,
                ours,
            ),
            (
                json!([comment_json(1, &body)]),
                CommentChange::Unchanged,
                ours,
            ),
        ] {
            let github = MockServer::start().await;
            answer(&github, "GET", COMMENTS, listing(existing), None).await;
            Mock::given(wiremock::matchers::any())
                .respond_with(ResponseTemplate::new(201).set_body_json(comment_json(2, &body)))
                .mount(&github)
                .await;

            let would = CommentOutcome::Decided {
                change,
                url: url.to_string(),
                dry_run: true,
            };
            assert_eq!(comment_run(&github, true).await.unwrap(), would);
            let methods: Vec<String> = calls(&github).await.into_iter().map(|(m, _)| m).collect();
            assert_eq!(methods, ["GET"], "only the comments read");
        }
    }

    #[test]
    fn a_dry_run_says_what_it_would_do_with_the_comment_and_shows_the_body() {
        let issue = "https://github.com/octo-org/lab/issues/7";
        let comment = "https://github.com/octo-org/lab/issues/7#issuecomment-1";
        let said = [
            report::dry_run_comment(CommentChange::Create, issue, "BODY"),
            report::dry_run_comment(CommentChange::Edit, comment, "BODY"),
            report::dry_run_comment(CommentChange::Unchanged, comment, "BODY"),
        ];
        insta::assert_snapshot!(said.join("\n\n"));
    }

    /// The POST answers a comment by `my-app[bot]` (the token's account), but `octocat`
    /// opened the tracking issue.
    async fn post_answers_another_account(github: &MockServer) {
        let body = our_body();
        answer(github, "GET", COMMENTS, listing(json!([])), None).await;
        let made = ResponseTemplate::new(201).set_body_json(comment_by(5, &body, "my-app[bot]"));
        answer(github, "POST", COMMENTS, made, None).await;
    }

    const POSTED_AS_ANOTHER: &str = "/repos/octo-org/lab/issues/comments/5";

    #[tokio::test]
    async fn a_comment_posted_as_another_account_than_the_issues_is_deleted_and_fails_each_run() {
        let github = MockServer::start().await;
        post_answers_another_account(&github).await;
        let deleted = ResponseTemplate::new(204);
        answer(&github, "DELETE", POSTED_AS_ANOTHER, deleted, None).await;

        let err = post_comment(&github).await.unwrap_err();
        let one_run = owned(&[
            ("GET", COMMENTS),
            ("POST", COMMENTS),
            ("DELETE", POSTED_AS_ANOTHER),
        ]);
        assert_eq!(calls(&github).await, one_run);
        insta::assert_snapshot!(format!("{err:#}"));

        // The next run finds nothing of its own (the comment is gone), posts, deletes and
        // fails the same way: never two comments.
        let again = post_comment(&github).await.unwrap_err();
        assert_eq!(format!("{again:#}"), format!("{err:#}"));
        assert_eq!(calls(&github).await, [one_run.clone(), one_run].concat());
    }

    #[tokio::test]
    async fn a_comment_by_another_account_that_cannot_be_deleted_is_named_to_delete_by_hand() {
        let github = MockServer::start().await;
        post_answers_another_account(&github).await;
        let refused = ResponseTemplate::new(403)
            .set_body_json(json!({"message": "Resource not accessible by integration"}));
        answer(&github, "DELETE", POSTED_AS_ANOTHER, refused, None).await;

        let err = post_comment(&github).await.unwrap_err();
        assert_eq!(
            calls(&github).await,
            owned(&[
                ("GET", COMMENTS),
                ("POST", COMMENTS),
                ("DELETE", POSTED_AS_ANOTHER)
            ])
        );
        insta::assert_snapshot!(format!("{err:#}"));
    }

    /// Comments (`GET`) answered empty twice, then whatever the test mounts; the first POST
    /// answers 500 without effect, the second makes comment 2 with `body`.
    async fn first_post_fails_second_makes_2(github: &MockServer, body: &str) {
        let error = ResponseTemplate::new(500);
        answer(github, "POST", COMMENTS, error, Some(1)).await;
        let made = ResponseTemplate::new(201).set_body_json(comment_json(2, body));
        answer(github, "POST", COMMENTS, made, None).await;
        answer(github, "GET", COMMENTS, listing(json!([])), Some(2)).await;
    }

    /// `calls` as [`calls`] gives them.
    fn owned(calls: &[(&str, &str)]) -> Vec<(String, String)> {
        calls
            .iter()
            .map(|(m, p)| (m.to_string(), p.to_string()))
            .collect()
    }

    /// The calls of [`first_post_fails_second_makes_2`]: each POST follows a fresh look-up,
    /// and the second is checked by one more.
    const POST_TWICE_LOOKING_AFTER_EACH: [(&str, &str); 5] = [
        ("GET", COMMENTS),
        ("POST", COMMENTS),
        ("GET", COMMENTS),
        ("POST", COMMENTS),
        ("GET", COMMENTS),
    ];
}
