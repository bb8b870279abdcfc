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
use crate::render::{self, BodyKind, Facts, RunbookSettings, Stage};
use crate::report::{Known, Pipeline, RunReport};
use crate::support::github::GitHub;
use crate::support::github::models::{DeploymentState, DeploymentStatus, NewIssue, NewRelease};
use crate::support::log::Log;
use crate::support::url::is_placeholder;
use crate::tier::{self, LabelRules, Tier, TierDecision, TierRequest, UnlabeledPolicy};
use crate::window::{Configured, PullRisk};
use anyhow::{Result, anyhow};
use std::time::Duration;
use time::OffsetDateTime;

/// One `announce` run, every input checked ([`crate::cli::announce_request`] builds it).
pub(crate) struct AnnounceRequest {
    /// The image and how to resolve its digest (stage 1).
    pub(crate) image: ImageRequest,
    /// The run's clock (`--now`, else now); a re-run uses the original announce time.
    pub(crate) now: OffsetDateTime,
    /// The culler settings and where each came from.
    pub(crate) culler: Configured,
    /// The warnings reading the culler settings gave, held back so that the runbook
    /// placeholder warning, decided with the tier, is the run's first annotation; printed
    /// after the tier decision, or before the failure report of a run that fails earlier.
    pub(crate) culler_warnings: Vec<crate::support::log::HeldAnnotation>,
    /// How the tier is decided (stage 2).
    pub(crate) tier: TierPolicy,
    /// The tracking issue's labels and assignees (security releases).
    pub(crate) tracking: TrackingOptions,
    /// Where the runbook points.
    pub(crate) runbook: RunbookSettings,
    /// The deployment to keep (`environment`), when asked for.
    pub(crate) deployment: Option<DeploymentRequest>,
    /// The run context (`GITHUB_*` variables, the event payload, the overrides).
    pub(crate) context: RunContext,
    /// Whether `--sha` was given: then the release targets it, not the event's commit.
    pub(crate) sha_given: bool,
    /// The GitHub client, when there is a repository and a token.
    pub(crate) github: Option<GitHub>,
    /// `--dry-run`: write nothing to GitHub, print the bodies.
    pub(crate) dry_run: bool,
    /// `--print-context` (dry run only): print the template context as JSON on stdout.
    pub(crate) print_context: bool,
    /// The team's own templates, checked; the built-in ones where `None`.
    pub(crate) templates: Templates,
    /// Waits between tries of the commit → pull requests look-up; also between the looks for
    /// the tracking issue and the deployment of a run that created the release first
    /// ([`Plan::issue_waits`], [`deployment::announce`]).
    pub(crate) lookup_backoff: Vec<Duration>,
}

/// The deployment of the release to a GitHub environment (`environment`).
pub(crate) struct DeploymentRequest {
    /// The environment.
    pub(crate) environment: Environment,
    /// The hub's address (`hub-url`), its `environment_url`; `None` for the placeholder.
    pub(crate) hub_url: Option<String>,
}

/// The image to announce, and how to resolve its digest.
pub(crate) struct ImageRequest {
    /// A registry reference or an OCI layout on disk.
    pub(crate) source: ImageSource,
    /// `--expected-digest`: the digest the build step reported.
    pub(crate) expected_digest: Option<Digest>,
    /// How to reach the registry; `Some` exactly for a registry reference.
    pub(crate) registry: Option<RegistryOptions>,
}

/// How the tier is decided: `--tier`, the tier labels, `--unlabeled-tier`.
pub(crate) struct TierPolicy {
    /// `--tier`.
    pub(crate) request: TierRequest,
    /// The tier labels.
    pub(crate) rules: LabelRules,
    /// `--unlabeled-tier`, when set.
    pub(crate) unlabeled: Option<UnlabeledPolicy>,
}

/// The tracking issue of a security release: its labels (also used to find it) and the
/// logins it is assigned to.
pub(crate) struct TrackingOptions {
    /// `--tracking-labels`.
    pub(crate) labels: Vec<String>,
    /// `--tracking-assignees`.
    pub(crate) assignees: Vec<String>,
}

/// The team's templates (`release-note-template`, `tracking-issue-template`), checked.
#[derive(Default)]
pub(crate) struct Templates {
    /// For the release note.
    pub(crate) release_note: Option<render::CustomTemplate>,
    /// For the tracking issue.
    pub(crate) tracking_issue: Option<render::CustomTemplate>,
}

/// Runs `announce`: the stages in order, each recording into the run's report what it
/// established. When one fails, the step outputs and the job summary still say what the run
/// had established and which stage failed ([`RunReport::finish`]); the error is returned as
/// it was.
///
/// # Errors
/// A failed registry or GitHub call, saying what to do; an undecidable tier.
pub(crate) async fn run(req: &AnnounceRequest, log: &Log) -> Result<()> {
    let known = Known {
        image: req.image.source.display(),
        // The window follows from the culler settings alone: known whatever fails.
        window: Some(req.culler.window()),
        ..Known::default()
    };
    let environment = req.deployment.as_ref().map(|d| &d.environment);
    let mut run = RunReport::new(Pipeline::Announce, known, environment, Some(log));
    run.hold(&req.culler_warnings);
    let outcome = stages(req, log, &mut run).await;
    run.finish(outcome, log)
}

/// The stages, each recording into `run` what it established.
async fn stages(req: &AnnounceRequest, log: &Log, run: &mut RunReport) -> Result<()> {
    // 1. Digest.
    let digest = resolve_digest(req, log, run).await?;

    // 2. Tier, from the pull requests behind the release.
    run.stage = Stage::Tier;
    let tiered = tier(req, log).await;
    // After the runbook placeholder warning (decided with the tier): the run's first.
    run.release_held(log);
    let (decision, target_sha) = tiered?;
    run.known.tier = Some(decision.clone());
    run.stage = Stage::Runbook;
    let security = decision.tier() == Tier::Security;
    runbook(security, &req.runbook, req.dry_run, log)?;
    let platforms = platforms(req, &digest, &decision).await?;

    // 3. Window, and whether new servers start on the new image (the pull policy).
    let pull = window(req, log);

    // 4. Look up what exists (not in a dry run).
    run.stage = Stage::LookUp;
    let security = decision.tier() == Tier::Security;
    let target = Target::new(&req.image.source, &digest, &req.tracking.labels, security);
    let tag = &target.tag;
    run.known.tag = Some(tag.clone());
    let found = look_up(req, &target).await?;

    // 5. Render: a re-run renders with the original announce time, so an unchanged
    // release renders the same and nothing is sent.
    run.stage = Stage::Render;
    let announced = found.as_ref().and_then(Found::announced_at);
    let facts = Facts {
        platforms,
        ..facts(req, digest, decision, target_sha, tag, announced, pull)
    };
    let (note, issue_body) = bodies(req, &facts, log)?;

    // 6. Publish.
    run.stage = Stage::Publish;
    let plan = plan(req, &facts, tag, &note, issue_body.clone())?;
    let publishing = req.github.as_ref().zip(found.as_ref());
    log_cut_bodies(
        &plan,
        &note,
        issue_body.as_deref(),
        publishing.is_some(),
        log,
    );
    let published = match publishing {
        Some((github, found)) => {
            let published = run.published(publish::publish(github, found, &plan).await)?;
            log_published(&published, log);
            Some(published)
        }
        None => {
            print_dry_run(req, &facts, &plan, log)?;
            None
        }
    };

    // 7. The deployment (`environment`), after the release note and the tracking issue:
    // the release note is the lock a deployment's creation relies on, and a token without
    // `deployments: write` must not keep the note and the issue from being published.
    if let Some(request) = &req.deployment {
        let outcome = match (&req.github, &found, &published) {
            (Some(gh), Some(found), Some(published)) => {
                let (waits, in_actions) = (&req.lookup_backoff, log.in_actions());
                Some(deploy(request, gh, found, published, &facts, waits, in_actions).await?)
            }
            _ => None,
        };
        run.deployed(&request.environment, outcome, log)?;
    }

    // 8. Report.
    run.stage = Stage::Report;
    report(&facts, tag, published.as_ref(), &note, log, run)
}

/// Stage 7: the deployment of the release's commit to the environment, created once with
/// an `in_progress` status whose `environment_url` is the hub and whose `log_url` is what
/// every deployment links ([`deployment::link`]). A run that lost the release race looks for
/// the winner's after each of `waits`; `in_actions` names the inputs in an error's words.
async fn deploy(
    request: &DeploymentRequest,
    github: &GitHub,
    found: &Found,
    published: &Published,
    facts: &Facts,
    waits: &[Duration],
    in_actions: bool,
) -> Result<DeploymentOutcome> {
    let lock = match (found.release(), &published.release) {
        (Some(_), _) => Lock::Found,
        (None, Some((_, Change::Created))) => Lock::Created,
        (None, _) => Lock::Lost,
    };
    // The release's commit: the one the existing note targets, else the one it was made for.
    let sha = found
        .release()
        .map_or(facts.sha.as_str(), |r| &r.target_commitish);
    let (env, digest, tier) = (&request.environment, &facts.digest, facts.tier.tier());
    let window = facts.window.summary();
    let plan = DeploymentPlan::new(env, digest, sha, Some((tier, &window)), in_actions)?;
    let issue = published.issue.as_ref().map(|(url, _)| url.as_str());
    let release = published
        .release
        .as_ref()
        .map_or("", |(url, _)| url.as_str());
    let description = render::deployment::announced(&facts.window, facts.now);
    let first = DeploymentStatus {
        environment_url: request.hub_url.clone(),
        log_url: deployment::link(issue, release),
        ..DeploymentStatus::new(DeploymentState::InProgress, description)
    };
    deployment::announce(github, &plan, &first, lock, waits).await
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
    let issue_body = (facts.tier.tier() == Tier::Security)
        .then(|| render::tracking_issue(facts, req.templates.tracking_issue.as_ref()))
        .transpose()?;
    Ok((log.redact(&note), issue_body.map(|body| log.redact(&body))))
}

/// Stage 4: what already exists on GitHub for `target`; `None` in a dry run.
async fn look_up(req: &AnnounceRequest, target: &Target) -> Result<Option<Found>> {
    let (Some(github), false) = (&req.github, req.dry_run) else {
        return Ok(None);
    };
    Ok(Some(publish::look_up(github, target, true).await?))
}

/// Stage 5's input: everything the bodies show.
fn facts(
    req: &AnnounceRequest,
    digest: Digest,
    tier: TierDecision,
    target_sha: Option<String>,
    tag: &str,
    announced: Option<OffsetDateTime>,
    pull: Option<PullRisk>,
) -> Facts {
    let ctx = &req.context;
    Facts {
        image: req.image.source.display(),
        digest,
        tier,
        culler: req.culler.settings,
        culler_origins: req.culler.origins.clone(),
        window: req.culler.window(),
        sha: target_sha.unwrap_or_default(),
        run_url: ctx.run_url.clone(),
        release_url: ctx
            .repository
            .as_ref()
            .map(|repo| format!("{}/{repo}/releases/tag/{tag}", ctx.server_url)),
        runbook: req.runbook.clone(),
        platforms: vec![],
        now: announced.unwrap_or(req.now),
        pull,
    }
}

/// Stage 1: the digest, checked against `--expected-digest`, then recorded: one it refuses
/// is no output (a later step could deploy it) and only the error names it.
async fn resolve_digest(req: &AnnounceRequest, log: &Log, run: &mut RunReport) -> Result<Digest> {
    let source = &req.image.source;
    let digest = match (source, &req.image.registry) {
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
    log.info(&messages::resolved(&source.display(), &digest));
    let expected = req.image.expected_digest.as_ref();
    digest::check_expected(&source.display(), &digest, expected)?;
    run.known.digest = Some(digest.clone());
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
    // A security release's runbook with a placeholder hub-url: a dry run shows it, with a
    // warning, the run's first annotation; a run that publishes is refused ([`runbook`]).
    let (security, runbook) = (decision.tier() == Tier::Security, &req.runbook);
    if security && is_placeholder(&runbook.hub_url) && req.dry_run {
        let in_actions = log.in_actions();
        log.warn(&RunWarning::RunbookPlaceholder {
            runbook,
            in_actions,
        });
    }
    for warning in &decision.warnings {
        log.warning(
            messages::TIER_WARNING_TITLE,
            &messages::tier_warning(warning, log.in_actions()),
        );
    }
    log.info(&messages::tier(&decision.reason));
    for pr in &decision.pull_requests {
        log.info(&messages::pull_request(pr));
    }
    // The namespace and Helm release the runbook names, when at their defaults (`jhub`).
    if security && runbook.cluster_at_defaults() {
        log.info(&messages::runbook_cluster(runbook));
    }
    Ok(decision)
}

/// Stage 2, for a security release: the digests of the image index's platform manifests,
/// which its runbook's `stale` selector counts as the new image as `status` does (a node's
/// runtime may report a platform manifest's digest as the pod's imageID). One more read of
/// the index (a GET, or the layout's blob); none for a routine release.
///
/// # Errors
/// The registry's or the layout's error: a runbook that would stop servers already on the
/// new image is not published.
async fn platforms(
    req: &AnnounceRequest,
    digest: &Digest,
    decision: &TierDecision,
) -> Result<Vec<Digest>> {
    match decision.tier() {
        Tier::Security => {
            digest::children(&req.image.source, req.image.registry.as_ref(), digest).await
        }
        Tier::Routine => Ok(Vec::new()),
    }
}

/// The check of a `security` release's runbook `r` (issue 32): with a placeholder hub-url it
/// would point responders at no hub, and the tracking issue is never edited again, so a run
/// that publishes (not `dry_run`) is refused before anything is published (bad input, exit
/// 2). Stage 2 when the labels decide the tier; `crate::cli` when it is given.
pub(crate) fn runbook(security: bool, r: &RunbookSettings, dry_run: bool, log: &Log) -> Result<()> {
    if security && is_placeholder(&r.hub_url) && !dry_run {
        let (runbook, in_actions) = (r.clone(), log.in_actions());
        return Err(messages::PlaceholderRunbook {
            runbook,
            in_actions,
        }
        .into());
    }
    Ok(())
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

/// Stage 3: the window's and the pull policy's warnings (with the culler off, sessions
/// update only on restart; new servers may start on an older image); the pull policy's
/// finding, for the bodies.
fn window(req: &AnnounceRequest, log: &Log) -> Option<PullRisk> {
    crate::docs::warn_window(&req.culler, log);
    let pull = req
        .culler
        .image
        .pull_risk(req.image.source.pod_reference().as_ref());
    if let Some(risk) = &pull {
        log.warn(&RunWarning::PullPolicy(risk));
    }
    pull
}

/// Stage 6 in a dry run: the bodies as planned (whole), printed; with `--print-context`, the template context
/// as JSON on stdout (the log keeps stdout for it, see [`crate::dispatch`]).
fn print_dry_run(req: &AnnounceRequest, facts: &Facts, plan: &Plan, log: &Log) -> Result<()> {
    let release = &plan.release;
    log.info(&messages::dry_run_release(&release.tag_name, &release.body));
    if let Some(issue) = &plan.issue {
        log.info(&messages::dry_run_issue(&issue.new.title, &issue.new.body));
    }
    if req.print_context {
        let context = serde_json::to_string_pretty(&render::TemplateContext::new(facts)?)?;
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
            name: render::release_title(&facts.digest, facts.tier.tier()),
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

/// Stage 6's log: a warning for each body GitHub's limits cut ([`publish::cut_bodies`]), in
/// a dry run too (publishing would cut it); when `publishing`, its full text, where the cut
/// note says it is ([`render::where_full`]); a dry run prints it whole anyway.
fn log_cut_bodies(plan: &Plan, note: &str, issue: Option<&str>, publishing: bool, log: &Log) {
    let (release_cut, issue_cut) = publish::cut_bodies(plan);
    let release = (BodyKind::ReleaseNote, Some(note).filter(|_| release_cut));
    let issue = (BodyKind::TrackingIssue, issue.filter(|_| issue_cut));
    for (kind, body) in [release, issue] {
        let Some(body) = body else { continue };
        log.warn(&RunWarning::Cut(kind));
        if publishing {
            log.info(&messages::full_text(kind, body));
        }
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
    if let Some((url, change)) = &published.release {
        log.info(&messages::published(BodyKind::ReleaseNote, *change, url));
    }
    if let Some((url, change)) = &published.issue {
        log.info(&messages::published(BodyKind::TrackingIssue, *change, url));
    }
    if let Some(change) = published.update_comment {
        log.info(&messages::update_comment(change));
    }
}

/// Stage 8: the step outputs, then the job summary (the addresses GitHub answered checked
/// first, [`RunReport::write_outputs`]); outside Actions, or without a job summary, a last
/// line saying what the run did.
fn report(
    facts: &Facts,
    tag: &str,
    published: Option<&Published>,
    note: &str,
    log: &Log,
    run: &mut RunReport,
) -> Result<()> {
    run.write_outputs(log)?;
    let superseded = published.map_or(&[][..], |p| &p.superseded);
    let summary = render::job_summary(facts, tag, &run.known, superseded, note)?;
    if !run.write_summary(&summary, log)? || !log.in_actions() {
        let state = match published {
            Some(_) if run.changed() => RunState::Published,
            Some(_) => RunState::Unchanged,
            None => RunState::DryRun,
        };
        let (image, tier, window) = (&facts.image, facts.tier.tier(), facts.window.summary());
        log.info(&messages::run_state(
            state,
            image,
            &facts.digest,
            tier,
            &window,
        ));
    }
    Ok(())
}
