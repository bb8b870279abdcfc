//! The `announce` pipeline: context → digest → tier → window → look-up → render → publish →
//! report. [`run`] reads as those stages; the request it takes was checked by the command
//! line ([`crate::cli::announce_request`]), and every sentence it prints comes from
//! [`crate::render::messages`].

use crate::context::RunContext;
use crate::digest::registry::RegistryOptions;
use crate::digest::{self, Digest, ImageSource};
use crate::publish::deployment::{self, DeploymentOutcome, DeploymentPlan, Environment, Lock};
use crate::publish::{self, Change, Found, IssuePlan, Plan, Published, Target};
use crate::pulls::{self, Behind, LookupOptions};
use crate::render::messages::{self, RunState, RunWarning};
use crate::render::{self, Facts, RunbookSettings, Stage};
use crate::report::{FileCommands, RunnerFile, failed_write};
use crate::support::github::GitHub;
use crate::support::github::models::{DeploymentState, NewDeploymentStatus, NewIssue, NewRelease};
use crate::support::log::Log;
use crate::support::sanitize;
use crate::tier::{self, LabelRules, Tier, TierDecision, TierRequest, UnlabeledPolicy};
use crate::window::{Configured, Window};
use anyhow::{Result, anyhow};
use std::time::Duration;
use time::OffsetDateTime;

/// One `announce` run, every input checked ([`crate::cli::announce_request`] builds it).
pub struct AnnounceRequest {
    /// The image and how to resolve its digest (stage 1).
    pub image: ImageRequest,
    /// The run's clock (`--now`, else now); a re-run uses the original announce time.
    pub now: OffsetDateTime,
    /// The culler settings and where each came from.
    pub culler: Configured,
    /// The warnings reading the culler settings gave, held back so that the runbook
    /// placeholder warning, decided with the tier, is the run's first annotation; printed
    /// after the tier decision, or before the failure report of a run that fails earlier.
    pub(crate) culler_warnings: Vec<crate::support::log::HeldAnnotation>,
    /// How the tier is decided (stage 2).
    pub tier: TierPolicy,
    /// The tracking issue's labels and assignees (security releases).
    pub tracking: TrackingOptions,
    /// Where the runbook points.
    pub runbook: RunbookSettings,
    /// The deployment to keep (`environment`), when asked for.
    pub deployment: Option<DeploymentRequest>,
    /// The run context (`GITHUB_*` variables, the event payload, the overrides).
    pub context: RunContext,
    /// Whether `--sha` was given: then the release targets it, not the event's commit.
    pub sha_given: bool,
    /// The GitHub client, when there is a repository and a token.
    pub github: Option<GitHub>,
    /// `--dry-run`: write nothing to GitHub, print the bodies.
    pub dry_run: bool,
    /// `--print-context` (dry run only): print the template context as JSON on stdout.
    pub print_context: bool,
    /// The team's own templates, checked; the built-in ones where `None`.
    pub templates: Templates,
    /// Waits between tries of the commit → pull requests look-up; also between the looks for
    /// the tracking issue of a run that created the release first ([`Plan::issue_waits`]).
    pub lookup_backoff: Vec<Duration>,
}

/// The deployment of the release to a GitHub environment (`environment`).
pub struct DeploymentRequest {
    /// The environment.
    pub environment: Environment,
    /// The hub's address (`hub-url`), its `environment_url`; `None` for the placeholder.
    pub hub_url: Option<String>,
}

/// The image to announce, and how to resolve its digest.
pub struct ImageRequest {
    /// A registry reference or an OCI layout on disk.
    pub source: ImageSource,
    /// `--expected-digest`: the digest the build step reported.
    pub expected_digest: Option<Digest>,
    /// How to reach the registry; `Some` exactly for a registry reference.
    pub registry: Option<RegistryOptions>,
}

/// How the tier is decided: `--tier`, the tier labels, `--unlabeled-tier`.
pub struct TierPolicy {
    /// `--tier`.
    pub request: TierRequest,
    /// The tier labels.
    pub rules: LabelRules,
    /// `--unlabeled-tier`, when set.
    pub unlabeled: Option<UnlabeledPolicy>,
}

/// The tracking issue of a security release: its labels (also used to find it) and the
/// logins it is assigned to.
pub struct TrackingOptions {
    /// `--tracking-labels`.
    pub labels: Vec<String>,
    /// `--tracking-assignees`.
    pub assignees: Vec<String>,
}

/// The team's templates (`release-note-template`, `tracking-issue-template`), checked.
pub struct Templates {
    /// For the release note.
    pub release_note: Option<render::CustomTemplate>,
    /// For the tracking issue.
    pub tracking_issue: Option<render::CustomTemplate>,
}

/// Runs `announce`: the stages in order. When one fails, the step outputs and the job
/// summary still say what the run had established and which stage failed
/// (`report_failure`); the error is returned as it was.
///
/// # Errors
/// A failed registry or GitHub call, saying what to do; an undecidable tier.
pub(crate) async fn run(req: &AnnounceRequest, log: &Log) -> Result<()> {
    let mut known = Known::default();
    let outcome = stages(req, log, &mut known).await;
    if let Err(err) = &outcome {
        if !known.culler_warned {
            log.replay(&req.culler_warnings);
        }
        report_failure(req, known, err, log);
    }
    outcome
}

/// What a run has established so far, for the report of a run that fails.
#[derive(Default)]
struct Known {
    stage: Stage,
    digest: Option<Digest>,
    tier: Option<TierDecision>,
    tag: Option<String>,
    /// The release note and the tracking issue that exist after publishing, or after a
    /// publish that failed.
    release: Option<(String, Change)>,
    issue: Option<(String, Change)>,
    /// Whether a failed publish had written anything (the `changed` output).
    wrote: bool,
    /// Whether the held culler warnings ([`AnnounceRequest::culler_warnings`]) were printed.
    culler_warned: bool,
}

/// The deployment outputs (`deployment-id`, `deployment-url`), written only with
/// `environment`; empty when there is no deployment (yet).
fn deployment_outputs(outcome: Option<&DeploymentOutcome>) -> Vec<(&'static str, String)> {
    let deployment = outcome.and_then(|o| o.deployment.as_ref());
    vec![
        (
            deployment::OUTPUTS[0],
            deployment.map(|d| d.id.to_string()).unwrap_or_default(),
        ),
        (
            deployment::OUTPUTS[1],
            deployment
                .and_then(|d| sanitize::link_url(&d.url))
                .unwrap_or_default()
                .to_string(),
        ),
    ]
}

/// The stages, each recording into `known` what it established.
async fn stages(req: &AnnounceRequest, log: &Log, known: &mut Known) -> Result<()> {
    // 1. Digest.
    // The digest the registry answered is kept even when it is not the expected one: a
    // failed run's outputs keep what it knew.
    let digest = resolve_digest(req, log).await?;
    log.info(&messages::resolved(&req.image.source.display(), &digest));
    known.digest = Some(digest.clone());
    digest::check_expected(
        &req.image.source.display(),
        &digest,
        req.image.expected_digest.as_ref(),
    )?;

    // 2. Tier, from the pull requests behind the release.
    known.stage = Stage::Tier;
    let tiered = tier(req, log).await;
    // After the runbook placeholder warning (decided with the tier): the run's first.
    log.replay(&req.culler_warnings);
    known.culler_warned = true;
    let (decision, target_sha) = tiered?;
    known.tier = Some(decision.clone());

    // 3. Window, and whether new servers start on the new image (the pull policy).
    let window = req.culler.window();
    warn_if_culling_disabled(&window, log);
    let pull = req
        .culler
        .image
        .pull_risk(req.image.source.pod_reference().as_ref());
    if let Some(risk) = &pull {
        log.warn(&RunWarning::PullPolicy(risk));
    }

    // 4. Look up what exists (not in a dry run).
    known.stage = Stage::LookUp;
    let tag = publish::release_tag(&req.image.source.short_name(), &digest);
    known.tag = Some(tag.clone());
    let found = look_up(req, &digest, &tag, decision.tier).await?;

    // 5. Render: a re-run renders with the original announce time, so an unchanged
    // release renders the same and nothing is sent.
    known.stage = Stage::Render;
    let announced = found.as_ref().and_then(Found::announced_at);
    let mut facts = facts(req, digest, decision, window, target_sha, &tag, announced);
    facts.pull = pull;
    let (note, issue_body) = bodies(req, &facts, log)?;

    // 6. Publish.
    known.stage = Stage::Publish;
    let published = match (&req.github, &found, req.dry_run) {
        (_, _, true) => {
            print_dry_run(req, &facts, &tag, &note, issue_body.as_deref(), log)?;
            None
        }
        (Some(github), Some(found), false) => {
            let full_issue = issue_body.clone();
            let plan = plan(req, &facts, &tag, &note, issue_body)?;
            log_full_texts(&plan, &note, full_issue.as_deref(), log);
            let published = publish::publish(github, found, &plan)
                .await
                .map_err(|unfinished| {
                    (known.release, known.issue) = (unfinished.release, unfinished.issue);
                    known.wrote = unfinished.wrote;
                    unfinished.error
                })?;
            log_published(&published, log);
            known.release = Some((published.release_url.clone(), published.release_change));
            known.issue = published.issue.clone();
            Some(published)
        }
        _ => {
            return Err(anyhow!(
                "no GitHub client (a bug: the command line builds one)"
            ));
        }
    };

    // 7. The deployment (`environment`), after the release note and the tracking issue:
    // the release note is the lock a deployment's creation relies on, and a token without
    // `deployments: write` must not keep the note and the issue from being published.
    let deployed = match (&req.deployment, &req.github, &found, &published) {
        (Some(request), Some(github), Some(found), Some(published)) => {
            let outcome = deploy(request, github, found, published, &facts).await?;
            for note in &outcome.notes {
                log.info(&messages::published_note(note));
            }
            if let Some(d) = &outcome.deployment {
                log.info(&render::deployment::logged(
                    outcome.change,
                    d.id,
                    request.environment.as_str(),
                ));
            }
            Some(outcome)
        }
        (Some(request), _, _, None) => {
            log.info(&render::deployment::dry_run(request.environment.as_str()));
            None
        }
        _ => None,
    };

    // 8. Report.
    known.stage = Stage::Report;
    let extra = match &req.deployment {
        Some(_) => deployment_outputs(deployed.as_ref()),
        None => Vec::new(),
    };
    let deployment_wrote = deployed.as_ref().is_some_and(|d| d.wrote);
    report(
        &facts,
        &tag,
        published.as_ref(),
        &note,
        (&extra, deployment_wrote),
        log,
    )
}

/// Stage 7: the deployment of the release's commit to the environment, created once with
/// an `in_progress` status whose `environment_url` is the hub and whose `log_url` is the
/// release note (the tracking issue for a security release).
async fn deploy(
    request: &DeploymentRequest,
    github: &GitHub,
    found: &Found,
    published: &Published,
    facts: &Facts,
) -> Result<DeploymentOutcome> {
    let lock = match (found.release(), published.release_change) {
        (Some(_), _) => Lock::Found,
        (None, Change::Created) => Lock::Created,
        (None, _) => Lock::Lost,
    };
    // The release's commit: the one the existing note targets, else the one it was made for.
    let sha = found
        .release()
        .map_or(facts.sha.as_str(), |r| r.target_commitish.as_str());
    let window = facts.window.summary();
    let plan = DeploymentPlan::new(
        request.environment.clone(),
        facts.digest.clone(),
        sha,
        deployment::payload(
            &facts.digest,
            Some(&facts.tier.tier.to_string()),
            Some(&window),
        ),
        render::deployment::description(&facts.digest, facts.tier.tier),
        render::deployment::NO_COMMIT_ANNOUNCE,
    )?;
    let log_url = match &published.issue {
        Some((issue, _)) if facts.tier.tier == Tier::Security => issue.as_str(),
        _ => published.release_url.as_str(),
    };
    let first = NewDeploymentStatus {
        state: DeploymentState::InProgress,
        description: render::deployment::announced(&facts.window, facts.now),
        environment_url: request.hub_url.clone(),
        log_url: sanitize::link_url(log_url).map(str::to_string),
    };
    deployment::announce(github, &plan, &first, lock).await
}

/// Stage 2: the pull requests behind the release, looked up, then the tier decided from
/// them ([`decide_tier`]) and the commit the release targets ([`target_commit`]).
async fn tier(req: &AnnounceRequest, log: &Log) -> Result<(TierDecision, Option<String>)> {
    let options = LookupOptions {
        github: req.github.as_ref(),
        rules: &req.tier.rules,
        backoff: &req.lookup_backoff,
        labels_decide: req.tier.request == TierRequest::Auto,
    };
    let behind = pulls::resolve(&req.context, &options).await;
    let decision = decide_tier(req, &behind, log)?;
    Ok((decision, target_commit(req, &behind, log)))
}

/// Stage 5's bodies: the release note, and the tracking issue's for a security release,
/// each rendered by the team's template or the built-in one. Every registered secret is
/// masked in them before they are printed or sent, whichever template rendered them: a
/// second safeguard behind the template checks.
fn bodies(req: &AnnounceRequest, facts: &Facts, log: &Log) -> Result<(String, Option<String>)> {
    let note = render::release_note(facts, req.templates.release_note.as_ref())?;
    let issue_body = (facts.tier.tier == Tier::Security)
        .then(|| render::tracking_issue(facts, req.templates.tracking_issue.as_ref()))
        .transpose()?;
    Ok((log.redact(&note), issue_body.map(|body| log.redact(&body))))
}

/// Stage 4: what already exists on GitHub for this digest; `None` in a dry run.
async fn look_up(
    req: &AnnounceRequest,
    digest: &Digest,
    tag: &str,
    tier: Tier,
) -> Result<Option<Found>> {
    let (Some(github), false) = (&req.github, req.dry_run) else {
        return Ok(None);
    };
    let target = Target {
        digest: digest.clone(),
        tag: tag.to_string(),
        image: render::image_repository(&req.image.source.display()).to_string(),
        tracking_labels: req.tracking.labels.clone(),
        tracking_issue: tier == Tier::Security,
    };
    Ok(Some(publish::look_up(github, &target).await?))
}

/// Stage 5's input: everything the bodies show.
fn facts(
    req: &AnnounceRequest,
    digest: Digest,
    tier: TierDecision,
    window: Window,
    target_sha: Option<String>,
    tag: &str,
    announced: Option<OffsetDateTime>,
) -> Facts {
    let ctx = &req.context;
    Facts {
        image: req.image.source.display(),
        digest,
        tier,
        culler: req.culler.settings,
        culler_origins: req.culler.origins.clone(),
        window,
        sha: target_sha.unwrap_or_default(),
        run_url: ctx.run_url.clone(),
        release_url: ctx
            .repository
            .as_ref()
            .map(|repo| format!("{}/{repo}/releases/tag/{tag}", ctx.server_url)),
        runbook: req.runbook.clone(),
        now: announced.unwrap_or(req.now),
        pull: None,
    }
}

/// Stage 1: the digest (checked against `--expected-digest` by the caller, once it is
/// recorded).
async fn resolve_digest(req: &AnnounceRequest, log: &Log) -> Result<Digest> {
    let digest = match (&req.image.source, &req.image.registry) {
        (ImageSource::Layout { dir, tag }, _) => digest::layout::resolve(dir, tag.as_deref())?,
        (ImageSource::Registry(reference), Some(options)) => {
            let resolved = digest::registry::resolve(reference, options).await?;
            let (media_type, requests) = (&resolved.media_type, resolved.requests);
            log.debug(&messages::registry_answer(
                &resolved.digest,
                media_type,
                requests,
            ));
            resolved.digest
        }
        (ImageSource::Registry(_), None) => {
            return Err(anyhow!(
                "no registry options (a bug: the command line sets them for a registry)"
            ));
        }
    };
    Ok(digest)
}

/// Stage 2: the tier decision, with every secret hidden from its text and logged.
///
/// A secret someone put into a title or label is hidden before the text is escaped for
/// Markdown: escaping would change it, and then no later redaction would match it.
fn decide_tier(req: &AnnounceRequest, behind: &Behind, log: &Log) -> Result<TierDecision> {
    let mut decision = tier::decide(
        req.tier.request,
        &behind.evidence,
        &req.tier.rules,
        req.tier.unlabeled,
    )?;
    decision.map_text(|text| log.redact(text));
    // Before the decision's own warnings: the run's first annotation.
    if decision.tier == Tier::Security && req.runbook.hub_url_is_placeholder() {
        log.warn(&RunWarning::RunbookPlaceholder {
            runbook: &req.runbook,
            in_actions: log.in_actions(),
        });
    }
    for warning in &decision.warnings {
        log.warning(
            messages::TIER_WARNING_TITLE,
            &messages::tier_warning(warning),
        );
    }
    log.info(&messages::tier(&decision.reason));
    for pr in &decision.pull_requests {
        log.info(&messages::pull_request(pr));
    }
    Ok(decision)
}

/// The commit the release targets: the event's commit (a merged PR's merge commit, a
/// `workflow_run`'s `head_sha`), unless `--sha` says otherwise.
fn target_commit(req: &AnnounceRequest, behind: &Behind, log: &Log) -> Option<String> {
    let ctx = &req.context;
    let target = if req.sha_given {
        ctx.sha.clone()
    } else {
        behind.commit.clone().or_else(|| ctx.sha.clone())
    };
    if let (Some(target), Some(github_sha)) = (&target, &ctx.sha) {
        if target != github_sha {
            let origin = &behind.evidence.origin;
            log.info(&messages::target_commit(target, origin, github_sha));
        }
    }
    target
}

/// Stage 3's warning: with the culler off, sessions update only on restart.
fn warn_if_culling_disabled(window: &Window, log: &Log) {
    if !window.culling_enabled {
        log.warn(&RunWarning::CullingDisabled);
    }
}

/// Stage 6 in a dry run: the bodies, printed; with `--print-context`, the template context
/// as JSON on stdout (the log keeps stdout for it, see [`crate::dispatch`]).
fn print_dry_run(
    req: &AnnounceRequest,
    facts: &Facts,
    tag: &str,
    note: &str,
    issue_body: Option<&str>,
    log: &Log,
) -> Result<()> {
    log.info(&messages::dry_run_release(tag, note));
    if let Some(body) = issue_body {
        let title = render::tracking_issue_title(&facts.digest);
        log.info(&messages::dry_run_issue(&title, body));
    }
    if req.print_context {
        let context = serde_json::to_string_pretty(&render::template_context(facts)?)?;
        crate::support::stdout::println(&log.redact(&context));
    }
    Ok(())
}

/// Stage 6's plan: the release and, for security, the tracking issue.
fn plan(
    req: &AnnounceRequest,
    facts: &Facts,
    tag: &str,
    note: &str,
    issue_body: Option<String>,
) -> Result<Plan> {
    let issue = match issue_body {
        Some(body) => Some(IssuePlan {
            new: NewIssue {
                title: render::tracking_issue_title(&facts.digest),
                body,
                labels: req.tracking.labels.clone(),
                assignees: req.tracking.assignees.clone(),
            },
            evidence: render::evidence_fingerprint(facts),
            update_comment: render::tracking_update(facts)?,
        }),
        None => None,
    };
    Ok(Plan {
        release: NewRelease {
            tag_name: tag.to_string(),
            target_commitish: facts.sha.clone(),
            name: render::release_title(&facts.digest, facts.tier.tier),
            body: note.to_string(),
            draft: false,
            prerelease: false,
        },
        issue,
        release_url: facts.release_url.clone().unwrap_or_default(),
        full_text_at: render::where_full(facts),
        issue_waits: req.lookup_backoff.clone(),
    })
}

/// Stage 6's log: the full text of each body GitHub's limits cut, where the cut note says
/// it is ([`render::where_full`]).
fn log_full_texts(plan: &Plan, note: &str, issue_body: Option<&str>, log: &Log) {
    let (release_cut, issue_cut) = publish::cut_bodies(plan);
    if release_cut {
        log.info(&messages::full_text(messages::CutBody::ReleaseNote, note));
    }
    if let (true, Some(body)) = (issue_cut, issue_body) {
        log.info(&messages::full_text(messages::CutBody::TrackingIssue, body));
    }
}

/// Stage 6's log: what was found, what changed.
fn log_published(published: &Published, log: &Log) {
    for note in &published.notes {
        log.info(&messages::published_note(note));
    }
    for warning in &published.warnings {
        log.warning(
            messages::HUMAN_EDITED_TITLE,
            &messages::published_note(warning),
        );
    }
    log.info(&messages::release_note(
        published.release_change,
        &published.release_url,
    ));
    if let Some((url, change)) = &published.issue {
        log.info(&messages::tracking_issue(*change, url));
    }
    if let Some(change) = published.update_comment {
        log.info(&messages::update_comment(change));
    }
}

/// Stage 8: step outputs and the job summary. The addresses GitHub answered are checked
/// first ([`checked_url`]). `extra` are the deployment outputs (with `environment`), and
/// whether the deployment step wrote anything (then `changed` is true).
fn report(
    facts: &Facts,
    tag: &str,
    published: Option<&Published>,
    note: &str,
    (extra, deployment_wrote): (&[(&'static str, String)], bool),
    log: &Log,
) -> Result<()> {
    let files = FileCommands::from_env();
    if log.in_actions() && files.output.is_none() {
        log.warn(&RunWarning::OutputsNotWritten(&NAMED_OUTPUTS));
    }
    let links = published.map(|p| render::SummaryLinks {
        release: (checked_url(&p.release_url, log), p.release_change),
        issue: p
            .issue
            .as_ref()
            .map(|(url, change)| (checked_url(url, log), *change)),
        superseded: p.superseded.clone(),
    });
    let outputs = outputs(
        Some(&facts.digest),
        Some(&facts.tier),
        Some(&facts.window),
        Some(tag),
        links.as_ref().map(|l| l.release.0.as_str()),
        links
            .as_ref()
            .and_then(|l| l.issue.as_ref())
            .map(|(url, _)| url.as_str()),
        published.is_some_and(Published::changed) || deployment_wrote,
    );
    let outputs: Vec<(&'static str, String)> =
        outputs.into_iter().chain(extra.iter().cloned()).collect();
    files.write_outputs(&redacted(&outputs, log))?;
    let summary = render::job_summary(facts, tag, links.as_ref(), note)?;
    let wrote_summary = files.write_summary(&log.redact(&summary))?;
    if !log.in_actions() || !wrote_summary {
        let state = match published {
            Some(p) if p.changed() => RunState::Published,
            Some(_) => RunState::Unchanged,
            None => RunState::DryRun,
        };
        log.info(&messages::run_state(
            state,
            &facts.image,
            &facts.digest,
            facts.tier.tier,
            &facts.window.summary(),
        ));
    }
    Ok(())
}

/// The report of a run that failed: the outputs it had established (what does not exist,
/// such as the address of a release never created, stays empty) and a job summary saying
/// which stage failed and what to do. Best effort: the run fails with `err` anyway, so a
/// file that cannot be written is only warned about.
fn report_failure(req: &AnnounceRequest, known: Known, err: &anyhow::Error, log: &Log) {
    let stage = known.stage;
    // An address refused below stays out of the error text too.
    let mut error = log.redact(&format!("{err:#}"));
    for (url, _) in [&known.release, &known.issue].into_iter().flatten() {
        if !url.is_empty() && sanitize::link_url(url).is_none() {
            error = error.replace(url.as_str(), messages::ADDRESS_LEFT_OUT);
        }
    }
    let release = known
        .release
        .map(|(url, change)| (checked_url(&url, log), change));
    let issue = known
        .issue
        .map(|(url, change)| (checked_url(&url, log), change));
    // The window follows from the culler settings alone: known whatever failed.
    let window = req.culler.window();
    let changed = known.wrote
        || [&release, &issue]
            .into_iter()
            .flatten()
            .any(|(_, c)| *c != Change::Unchanged);
    let outputs = outputs(
        known.digest.as_ref(),
        known.tier.as_ref(),
        Some(&window),
        release.as_ref().and(known.tag.as_deref()),
        release.as_ref().map(|(url, _)| url.as_str()),
        issue.as_ref().map(|(url, _)| url.as_str()),
        changed,
    );
    let extra = match &req.deployment {
        Some(_) => deployment_outputs(None),
        None => Vec::new(),
    };
    let outputs: Vec<(&'static str, String)> = outputs.into_iter().chain(extra).collect();
    let summary = render::failure_summary(&render::Failure {
        stage,
        error,
        input: None,
        image: req.image.source.display(),
        hub: None,
        digest: known.digest,
        tier: known.tier,
        window: Some(window),
        release: release.and_then(|(url, change)| Some((known.tag?, url, change))),
        issue,
    });
    // The report stage wrote the outputs, or failed writing them; a summary whose write
    // failed is not tried again (the error says it could not be written).
    let outputs = (stage != Stage::Report).then(|| redacted(&outputs, log));
    let summary = (failed_write(err) != Some(RunnerFile::Summary)).then(|| log.redact(&summary));
    let unwritten = FileCommands::from_env().write_failure(outputs.as_deref(), summary.as_deref());
    if let Some(warning) = unwritten.warning() {
        log.warn(&warning);
    }
}

/// The outputs the warning about an unset `$GITHUB_OUTPUT` names as examples.
pub(crate) const NAMED_OUTPUTS: [&str; 3] = ["digest", "tier", "release-url"];

#[test]
fn the_outputs_a_warning_names_are_announce_outputs() {
    let names: Vec<&str> = refused_outputs().iter().map(|(n, _)| *n).collect();
    assert!(NAMED_OUTPUTS.iter().all(|n| names.contains(n)), "{names:?}");
}

/// The outputs of a run refused before it started (bad input): every one of `outputs`'
/// names, each empty (nothing was established, not even `changed=false`).
pub(crate) fn refused_outputs() -> Vec<(&'static str, String)> {
    outputs(None, None, None, None, None, None, false)
        .into_iter()
        .map(|(name, _)| (name, String::new()))
        .collect()
}

/// The step outputs, in action.yml's order; what is not known is written empty.
fn outputs(
    digest: Option<&Digest>,
    tier: Option<&TierDecision>,
    window: Option<&Window>,
    tag: Option<&str>,
    release_url: Option<&str>,
    issue_url: Option<&str>,
    changed: bool,
) -> [(&'static str, String); 12] {
    let text = |v: Option<String>| v.unwrap_or_default();
    [
        ("digest", text(digest.map(ToString::to_string))),
        ("tier", text(tier.map(|t| t.tier.to_string()))),
        ("tier-source", text(tier.map(|t| t.source.to_string()))),
        ("release-tag", text(tag.map(str::to_string))),
        ("release-url", text(release_url.map(str::to_string))),
        ("issue-url", text(issue_url.map(str::to_string))),
        ("changed", changed.to_string()),
        ("convergence-window", text(window.map(Window::summary))),
        (
            "idle-window-seconds",
            text(
                window
                    .and_then(Window::latest_idle_secs)
                    .map(|s| s.to_string()),
            ),
        ),
        (
            "active-window-seconds",
            text(
                window
                    .and_then(Window::latest_active_secs)
                    .map(|s| s.to_string()),
            ),
        ),
        (
            "idle-window-usual-seconds",
            text(window.and_then(|w| w.idle_secs).map(|s| s.to_string())),
        ),
        (
            "active-window-usual-seconds",
            text(window.and_then(|w| w.active_secs).map(|s| s.to_string())),
        ),
    ]
}

fn redacted(outputs: &[(&'static str, String)], log: &Log) -> Vec<(&'static str, String)> {
    outputs.iter().map(|(k, v)| (*k, log.redact(v))).collect()
}

/// An address GitHub's API answered, as the outputs and the job summary may show it: a
/// plain `http(s)://` URL without whitespace, control characters or characters that end a
/// link ([`sanitize::link_url`]; `http` for GitHub Enterprise Server), else empty, with a
/// warning.
fn checked_url(url: &str, log: &Log) -> String {
    match sanitize::link_url(url) {
        Some(url) => url.to_string(),
        None => {
            log.warn(&RunWarning::UrlRefused(url));
            String::new()
        }
    }
}
