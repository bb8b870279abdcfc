//! The `status` pipeline: release → hub → classify → report → comment → deployment →
//! alarms. [`run`] reads as those stages; the request it takes was checked by the command
//! line ([`crate::cli::status_request`]). Read-only: the hub gets only GET requests
//! ([`super::hub`]); GitHub gets writes only for the opt-in comment and deployment, and
//! none with `dry-run`.

use super::classify::{
    Alarm, AtScaleModel, Basis, Classification, ImageTarget, PodEvidence, State, UnknownWhy,
    Verdict, classify, deadline_basis, judge,
};
use super::history;
use super::hub::{HubClient, HubError, Listing};
use super::kube::{KubeClient, KubeRequest};
use super::report::{self, CommentOutcome};
use crate::digest::registry::RegistryOptions;
use crate::digest::{self, Digest, ImageSource};
use crate::publish::comment::{self, Marked};
use crate::publish::deployment::{self, DeploymentOutcome, DeploymentPlan, Environment};
use crate::publish::{self, Target};
use crate::render::messages::{self, RunWarning};
use crate::render::publish as words;
use crate::render::status::{BasisWords, StatusFacts};
use crate::render::{self, HubFault, MarkerKind, Stage};
use crate::report::{Known, Pipeline, RunReport};
use crate::support::github::GitHub;
use crate::support::github::models::{Comment, DeploymentStatus, Issue, Release as ReleaseNote};
use crate::support::log::Log;
use crate::window::{CullSettings, HubScale, PromiseRecord, ScaleConfig, at_scale, fits_calendar};
use anyhow::{Result, anyhow};
use time::OffsetDateTime;

/// One `status` run, every input checked ([`crate::cli::status_request`] builds it).
pub(crate) struct StatusRequest {
    /// The hub's REST client (base URL and token checked; the token held as a secret).
    pub(crate) hub: HubClient,
    /// `hub-url` as given, trimmed, for the reports.
    pub(crate) hub_url: String,
    /// When the release went live (`--released-at`); `None` for the time recorded in the
    /// release note of the image's digest.
    pub(crate) released_at: Option<OffsetDateTime>,
    /// `--image`, with the registry options for a registry reference: its digest finds the
    /// release note and the tracking issue. `None` when nothing needs the digest
    /// (`--released-at` given and no comment): the registry is then not asked.
    pub(crate) image: Option<(ImageSource, Option<RegistryOptions>)>,
    /// The GitHub client, when the release note is read or the comment written.
    pub(crate) github: Option<GitHub>,
    /// Labels that find the tracking issue.
    pub(crate) tracking_labels: Vec<String>,
    /// `comment`: post or edit the "Convergence status" comment on the tracking issue, or
    /// with `dry-run` only say what would be done; without it nothing is written to GitHub
    /// for the comment.
    pub(crate) comment: bool,
    /// The idle culler's settings (z2jh `cull.*`): the deadlines follow them only when the
    /// release note records no promise ([`deadline_basis`]); else they are compared with it.
    pub(crate) culler: CullSettings,
    /// `hub-size` (`None` for the servers running when the hub is read, at least 1) and
    /// `slow-stop-timeout`, for the worst case (the promise's, when it records a hub size).
    pub(crate) scale: ScaleConfig,
    /// `--json`: the JSON document on stdout instead of the table.
    pub(crate) json: bool,
    /// `include-names`: the job summary, the comment and, inside GitHub Actions, the job log
    /// (the table and the JSON) name users and servers; off, the log shows `user 1`, … (a
    /// terminal outside Actions always shows names).
    pub(crate) include_names: bool,
    /// The run's clock (`--now`, tests); `None` for the time the hub is read.
    pub(crate) now: Option<OffsetDateTime>,
    /// Kubernetes (opt-in): judge by each pod's digest; `None` to infer from start times.
    pub(crate) kube: Option<super::kube::KubeRequest>,
    /// `fail-on`: the alarms that make the run fail (exit 1).
    pub(crate) fail_on: Vec<super::classify::Alarm>,
    /// The pull-policy preflight's finding from the values files and `--image`, repeated as
    /// a warning: new servers may start on an older image, so a server started after the
    /// release is not surely updated.
    pub(crate) pull: Option<crate::window::PullRisk>,
    /// `environment`: the GitHub environment whose deployment of the release gets the
    /// rollout's status (needs `--image` and GitHub); `None` for no deployment.
    pub(crate) environment: Option<Environment>,
    /// `dry-run`: with `comment` and `environment`, read the comments and the deployment as
    /// usual, write nothing; log what would be done with the comment, and its body.
    pub(crate) dry_run: bool,
}

/// Runs `status`: the stages in order, each recording into the run's report what it
/// established: the release, the hub's running servers, classified against it, printed
/// (the table, or the JSON with `--json`) and, inside Actions, the outputs and the job
/// summary; the opt-in comment and deployment; the alarms. When a stage fails, the job
/// summary says which and what to do, and the outputs not written yet are written, empty
/// when the hub was not measured ([`RunReport::finish`]); the error is returned as it was.
///
/// # Errors
/// The hub's answer as a [`super::hub::HubError`] (what failed, what to do); an output or
/// summary file that cannot be written; [`AlarmsFired`].
pub(crate) async fn run(req: &StatusRequest, log: &Log) -> Result<()> {
    let known = Known {
        image: (req.image.as_ref()).map_or_else(String::new, |(source, _)| source.display()),
        hub: Some(req.hub_url.clone()),
        ..Known::default()
    };
    let mut run = RunReport::new(Pipeline::Status, known, req.environment.as_ref(), Some(log));
    let outcome = stages(req, log, &mut run).await;
    run.finish(outcome, log)
}

/// The stages, each recording into `run` what it established.
async fn stages(req: &StatusRequest, log: &Log, run: &mut RunReport) -> Result<()> {
    if let Some(risk) = &req.pull {
        log.warn(&RunWarning::PullPolicy(risk));
    }
    // 1. The release: its digest, when it went live, its tracking issue.
    let release = release(req, log, run).await?;

    // 2. Hub (GET only, page by page).
    let hub_read_at = OffsetDateTime::now_utc();
    run.stage = Stage::StatusHub(HubFault::Access);
    let listing = req.hub.list_active_servers().await;
    let listing = listing.inspect_err(|e| run.stage = Stage::StatusHub(hub_fault(e)))?;
    log.debug(&render::status::hub_read(
        listing.servers.len(),
        listing.users,
        listing.requests,
    ));
    let now = req.now.unwrap_or_else(OffsetDateTime::now_utc);

    // 3. Classify, with the release note's worst case at the hub's scale; by digest, the
    // pods read from Kubernetes (opt-in, after the hub: a pod started since is no orphan).
    let shifted = listing.shifted;
    let (classification, promised) =
        classified(req, &release, listing, (hub_read_at, now), log, run).await?;

    // 4. Report: the table or the JSON on stdout, the outputs, the job summary with the
    // progress chart drawn from the convergence comment's history (read first).
    run.stage = Stage::StatusReport;
    run.known.totals = Some(classification.totals);
    let facts = StatusFacts {
        hub_url: &req.hub_url,
        digest: release.digest.as_ref(),
        released_at: release.released_at,
        now,
        classification: &classification,
        promised,
        shifted,
        include_names: req.include_names,
        history: None,
    };
    let shown = print(req, &facts, log)?;
    run.write_outputs(log)?;
    run.stage = Stage::StatusComment;
    let existing = existing_comment(req, &release).await?;
    let history = existing
        .as_ref()
        .map(|found| chart_history(found, &release, &facts, log));
    let facts = StatusFacts {
        history: history.as_ref(),
        ..facts
    };
    run.stage = Stage::StatusReport;
    run.write_summary(&render::status::job_summary(&facts)?, log)?;
    annotate_mismatches(req, &shown, log);

    // 5. The tracking issue's comment (opt-in), and the job summary's line saying what
    // became of it.
    run.stage = Stage::StatusComment;
    if let Some(outcome) = convergence_comment(req, &release, existing, &facts, log).await? {
        run.write_summary(&report::comment_note(&outcome)?, log)?;
    }

    // 6. The deployment's status (`environment`), after everything else is reported.
    if let Some(environment) = &req.environment {
        run.stage = Stage::StatusDeployment;
        let outcome = deploy(req, environment, &release, &facts, log.in_actions()).await?;
        run.deployed(environment, outcome, log)?;
    }

    // 7. Alarms (`fail-on`): exit 1 with an annotation and the job summary's last lines
    // saying why, everything above reported.
    run.completed = true;
    match alarms(req, &facts) {
        Some(fired) => {
            run.write_summary(&render::status::alarm_summary(&fired.words), log)?;
            Err(anyhow!(fired))
        }
        None => Ok(()),
    }
}

/// The most mismatch annotations one run prints (GitHub shows ten error annotations per step).
const MISMATCH_ANNOTATIONS_MAX: usize = 10;

/// The run failed on `fail-on`: the measurement succeeded, the alarms fired. `main` prints
/// it as an error annotation titled `title` and exits 1; both halves are
/// [`render::status::alarm_annotation`]'s.
#[derive(Debug, thiserror::Error)]
#[error("{words}")]
pub(crate) struct AlarmsFired {
    /// The annotation's title.
    pub(crate) title: String,
    /// What fired, counted, and what to do.
    words: render::words::Words,
}

/// Stage 7: [`AlarmsFired`] when an alarm `fail-on` lists fired.
fn alarms(req: &StatusRequest, facts: &StatusFacts<'_>) -> Option<AlarmsFired> {
    let classification = facts.classification;
    let fired: Vec<Alarm> = (classification.alarms().into_iter())
        .filter(|a| req.fail_on.contains(a))
        .collect();
    if fired.is_empty() {
        return None;
    }
    let totals = &classification.totals;
    let (title, words) = render::status::alarm_annotation(&fired, totals, facts.promised);
    Some(AlarmsFired { title, words })
}

/// Stage 3: the servers classified with the release note's worst case at the hub's scale
/// (never fewer servers than run now: a smaller hub-size would make the deadlines early),
/// from the settings the note promised when it records them, else `status`'s own
/// ([`deadline_basis`], said in the log), by the pods' digests with Kubernetes ([`pods`]),
/// else by start time. `at`: when the hub was read, and the run's clock. With whether the
/// deadlines are the note's promise.
async fn classified(
    req: &StatusRequest,
    release: &Release,
    listing: Listing,
    (hub_read_at, now): (OffsetDateTime, OffsetDateTime),
    log: &Log,
    run: &mut RunReport,
) -> Result<(Classification, bool)> {
    let used = deadline_basis(release.promise, req.culler, &req.scale);
    match render::status::deadline_basis(&used) {
        Some(BasisWords::Note(words)) => log.info(&words.to_string()),
        Some(BasisWords::Warning(warning)) => log.warn(&warning),
        None => {}
    }
    let running = u64::try_from(listing.servers.len()).unwrap_or(u64::MAX);
    let scale = HubScale {
        servers: used.scale.servers.unwrap_or(running).max(running).max(1),
        slow_stop_timeout_secs: used.scale.slow_stop_timeout_secs,
    };
    let model = AtScaleModel {
        settings: used.culler,
        scale,
    };
    // The command line checked the deadlines fit a date at `hub-size`; more servers running
    // make the worst case longer: refused too, never stated as "culling disabled".
    if let Some(longest) = at_scale(&model.settings, &model.scale).longest_secs()
        && !fits_calendar(now, longest)
    {
        run.stage = Stage::StatusHub(HubFault::Answer);
        let given = req.now.is_some();
        return Err(anyhow!(render::status::beyond_calendar(
            now,
            given,
            &model.scale,
            longest
        )));
    }
    let promised = matches!(used.basis, Basis::Promised { .. });
    let evidence = match &req.kube {
        Some(kube) => {
            run.stage = Stage::StatusKubernetes;
            Some(pods(req, kube, release, (hub_read_at, &listing), log).await?)
        }
        None => None,
    };
    let (servers, at) = (listing.servers, release.released_at);
    let classification = classify(servers, evidence, at, now, &model);
    Ok((classification, promised))
}

/// Stage 4's print: the table or the JSON on stdout (a closed or full stdout does not stop
/// the outputs, summary and comment after it). Inside Actions the job log is as visible as
/// the job summary: names reach it only with include-names; a terminal outside Actions
/// shows them. Returns the classification as shown.
fn print(req: &StatusRequest, facts: &StatusFacts<'_>, log: &Log) -> Result<Classification> {
    let shown = match req.include_names || !log.in_actions() {
        true => facts.classification.clone(),
        false => render::status::without_names(facts.classification),
    };
    let printed = StatusFacts {
        classification: &shown,
        ..*facts
    };
    crate::support::stdout::print(&match req.json {
        true => render::status::json(&printed),
        false => render::status::table(&printed)?,
    });
    Ok(shown)
}

/// Stage 4's annotations: one per server on the old image that started after the release,
/// named as the log's table names them (`user N` without include-names inside Actions).
fn annotate_mismatches(req: &StatusRequest, shown: &Classification, log: &Log) {
    let names = req.include_names || !log.in_actions();
    let query = req.kube.as_ref().map(|k| &k.query);
    for c in (shown.servers.iter())
        .filter(|c| c.state == State::Mismatch)
        .take(MISMATCH_ANNOTATIONS_MAX)
    {
        let (title, message) = render::status::mismatch_annotation(c, names, query);
        log.error(&title, &message.to_string());
    }
}

/// The open tracking issue, when the release has one (and it was looked up).
fn open_issue(release: &Release) -> Option<&Issue> {
    release.issue.as_ref().filter(|i| i.state == "open")
}

/// The convergence comment as it is (`comment`, an open tracking issue), read before the job
/// summary so that both draw the same progress chart from its history; `None` when no
/// comment is to be written.
async fn existing_comment(
    req: &StatusRequest,
    release: &Release,
) -> Result<Option<Option<Comment>>> {
    let (true, Some(github), Some(digest), Some(issue)) = (
        req.comment,
        &req.github,
        &release.digest,
        open_issue(release),
    ) else {
        return Ok(None);
    };
    let kind = MarkerKind::ConvergenceComment;
    Ok(Some(comment::ours(github, issue, kind, digest).await?))
}

/// The progress chart's history: the existing comment's (refused with a warning when it
/// breaks the rules: the chart starts again), with this run's point.
fn chart_history(
    found: &Option<Comment>,
    release: &Release,
    facts: &StatusFacts<'_>,
    log: &Log,
) -> history::History {
    let body = found.as_ref().and_then(|c| c.body.as_deref()).unwrap_or("");
    let earlier = history::parse(body, release.released_at, facts.now).unwrap_or_else(|e| {
        log.warn(&RunWarning::HistoryRefused(
            &render::status::history_refused(&e).to_string(),
        ));
        None
    });
    history::with_this_run(earlier, &facts.classification.totals, facts.now)
}

/// Stage 5: one "Convergence status" comment on the open tracking issue of the release's
/// digest ([`comment::upsert`]: created once, edited in place only when its numbers change,
/// [`report::comment_needs_edit`]); the issue's body is never touched. No issue (a routine
/// release) or a closed one: nothing is written. With `dry-run` the comments are read as
/// usual, then what would be done is logged with the body. `None` without `comment`.
async fn convergence_comment(
    req: &StatusRequest,
    release: &Release,
    existing: Option<Option<Comment>>,
    facts: &StatusFacts<'_>,
    log: &Log,
) -> Result<Option<CommentOutcome>> {
    let (true, Some(github), Some(digest)) = (req.comment, &req.github, &release.digest) else {
        return Ok(None);
    };
    let (Some(issue), Some(existing)) = (open_issue(release), existing) else {
        log.info(&words::no_open_issue(digest));
        return Ok(Some(CommentOutcome::NoOpenIssue));
    };
    let body = render::status::comment(facts, digest)?;
    let (kind, dry_run) = (MarkerKind::ConvergenceComment, req.dry_run);
    let marked = Marked {
        issue,
        kind,
        digest,
        body: &body,
    };
    let edit = |old: &str| report::comment_needs_edit(old, &body);
    let done = comment::upsert(github, marked, existing, edit, dry_run).await?;
    for note in &done.notes {
        log.info(note);
    }
    log.info(&words::comment_done(
        done.change,
        &done.url,
        dry_run.then_some(&body),
    ));
    let (change, url) = (done.change, done.url);
    Ok(Some(CommentOutcome::Decided {
        change,
        url,
        dry_run,
    }))
}

/// Stage 6: the status the rollout asks for ([`render::deployment::rollout`]: `failure`
/// exactly when the run fails on `fail-on`) on the release's deployment to `environment`,
/// posted only when it changed ([`deployment::ensure_status`]); the deployment is created
/// when `announce` did not (a matrix of hubs, one environment each, after one `announce`),
/// linking what `announce` links ([`deployment::link`]). `None` without GitHub. `in_actions`
/// names the inputs in an error's words.
async fn deploy(
    req: &StatusRequest,
    environment: &Environment,
    release: &Release,
    facts: &StatusFacts<'_>,
    in_actions: bool,
) -> Result<Option<DeploymentOutcome>> {
    let (Some(github), Some(digest), Some(target)) =
        (&req.github, &release.digest, &release.target)
    else {
        return Ok(None);
    };
    let image = req
        .image
        .as_ref()
        .map(|(s, _)| s.display())
        .unwrap_or_default();
    let note = (release.note.as_ref())
        .ok_or_else(|| anyhow!(words::no_release_note(digest, &image, None)))?;
    let sha = &note.target_commitish;
    let plan = DeploymentPlan::new(environment, digest, sha, None, in_actions)?;
    let rollout = render::deployment::rollout(facts.classification, &req.fail_on);
    let description = rollout.description(facts.now, facts.promised);
    let desired = DeploymentStatus {
        environment_url: Some(req.hub_url.clone()),
        ..DeploymentStatus::new(rollout.state(), description)
    };
    // The tracking issue, looked up now unless `comment` did.
    let link = async || -> Result<Option<String>> {
        let issue = match (&release.issue, req.comment) {
            (None, false) => publish::tracking_issue(github, target).await?,
            (issue, _) => issue.clone(),
        };
        Ok(deployment::link(
            issue.as_ref().map(|i| i.html_url.as_str()),
            &note.html_url,
        ))
    };
    let outcome = deployment::ensure_status(github, &plan, &desired, link, req.dry_run).await?;
    Ok(Some(outcome))
}

/// Stage 2b: the single-user pods (a warning when none is found for the servers the `hub`
/// listed), and the digests that count as the release: the announced digest and, only when
/// a pod reports another digest (so the common case costs no registry request), the index's
/// child manifests ([`digest::children`]).
async fn pods(
    req: &StatusRequest,
    kube: &KubeRequest,
    release: &Release,
    (hub_read_at, hub): (OffsetDateTime, &Listing),
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
    if listing.pods.is_empty() && !hub.servers.is_empty() {
        let (namespace, selector) = (&kube.query.namespace, &kube.query.selector());
        let servers = hub.servers.len();
        log.warn(&RunWarning::NoPods {
            namespace,
            selector,
            servers,
        });
    }
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
    // Another digest may be a child manifest, also under another repository (a mirror's).
    let other = listing.pods.iter().any(|p| {
        matches!(
            judge(p.image_id.as_deref(), &target),
            Verdict::Old(_) | Verdict::Unknown(UnknownWhy::OtherRepository)
        )
    });
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
    /// What identifies it on GitHub, when measured by image with GitHub.
    target: Option<Target>,
    /// Its tracking issue (security releases), when looked up.
    issue: Option<Issue>,
    /// Its release note, when looked up.
    note: Option<ReleaseNote>,
    /// What its release note records of the settings its window was computed from; `None`
    /// without a note.
    promise: Option<PromiseRecord>,
}

/// Stage 1: the digest of `--image` (as `announce` resolves it), then, with GitHub, the
/// release note found by its digest marker and, with `comment`, the tracking issue found by
/// digest ([`publish::look_up`], reads only); the time is `--released-at` or the one
/// `announce` recorded in the note ([`publish::Found::announced_at`]).
async fn release(req: &StatusRequest, log: &Log, run: &mut RunReport) -> Result<Release> {
    let mut release = Release {
        digest: None,
        released_at: OffsetDateTime::UNIX_EPOCH,
        target: None,
        issue: None,
        note: None,
        promise: None,
    };
    let Some((source, registry)) = &req.image else {
        release.released_at = req
            .released_at
            .ok_or_else(|| anyhow!("no release time (a bug: the command line checks it)"))?;
        return Ok(release);
    };
    let digest = digest::resolve(source, registry.as_ref()).await?;
    log.info(&messages::resolved(&source.display(), &digest));
    run.known.digest = Some(digest.clone());
    release.digest = Some(digest.clone());
    let found = match &req.github {
        Some(github) => {
            let target = Target::new(source, &digest, &req.tracking_labels, true);
            // Without `comment` the tracking issue is not needed: the releases alone.
            let found = publish::look_up(github, &target, req.comment).await;
            let found = found.inspect_err(|_| run.stage = Stage::StatusLookUp)?;
            release.target = Some(target);
            Some(found)
        }
        None => None,
    };
    let announced = found.as_ref().and_then(publish::Found::announced_at);
    release.released_at = match (req.released_at, announced) {
        (Some(at), _) => at,
        // The note keeps whole seconds: the end of that second, so that a server started
        // within it is not counted as updated.
        (None, Some(at)) => at + time::Duration::SECOND,
        (None, None) => {
            let note = words::no_release_note(&digest, &source.display(), Some(log.in_actions()));
            return Err(anyhow!(note));
        }
    };
    release.issue = found.as_ref().and_then(|f| f.issue().cloned());
    release.note = found.as_ref().and_then(|f| f.release().cloned());
    release.promise = (release.note.as_ref()).map(|note| {
        render::recorded_promise(note.body.as_deref().unwrap_or(""))
            .unwrap_or(PromiseRecord::Absent)
    });
    Ok(release)
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
