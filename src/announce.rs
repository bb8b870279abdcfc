//! One `announce` run: context → digest → tier → window → render → publish → report.

use crate::cli::{AnnounceArgs, UsageError, usage};
use crate::context::{Overrides, RunContext};
use crate::digest::registry::{CredentialSource, Credentials, RegistryOptions, RetryPolicy};
use crate::digest::{self, Digest, ImageSource};
use crate::publish::{self, Found, IssuePlan, Plan, Published, Target};
use crate::pulls::{self, LookupOptions};
use crate::render::{self, Facts};
use crate::report::{FileCommands, Log};
use crate::support::github::models::{NewIssue, NewRelease};
use crate::support::github::{self, GitHub};
use crate::tier::{self, LabelRules, Tier, split_list};
use crate::window;
use anyhow::{Context, Result, anyhow};
use std::sync::Arc;
use std::time::Duration;
use time::OffsetDateTime;

/// Runs `announce`. Inputs are all validated before the first network call, so bad input
/// changes nothing.
///
/// # Errors
/// Bad input, as [`UsageError`] naming the input (exit code 2); a failed registry or GitHub
/// call, saying what to do.
pub async fn run(args: &AnnounceArgs, log: &Log) -> Result<()> {
    for secret in [&args.github_token, &args.registry_password]
        .into_iter()
        .flatten()
    {
        log.mask(secret);
    }
    if let (Some(user), Some(password)) = (&args.registry_username, &args.registry_password) {
        log.mask_basic(user.trim(), password);
    }
    if let Some(token) = &args.github_token {
        // ghcr.io gets the token as Basic user x-access-token when no registry credentials
        // are given (registry::auth::credentials_for).
        log.mask_basic("x-access-token", token.trim());
    }
    let env: std::collections::HashMap<String, String> = std::env::vars().collect();

    // Validate every input first.
    let image_text = crate::cli::required(
        args.image.as_deref(),
        "image",
        "the image reference to announce, e.g. ghcr.io/org/lab:latest",
    )?;
    let source = ImageSource::parse(image_text).map_err(usage("image"))?;
    let now = match &args.now {
        Some(text) => OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339)
            .with_context(|| format!("--now {text:?} is not an RFC 3339 time"))?,
        None => OffsetDateTime::now_utc(),
    };
    let culler = args.culler.settings(log)?;
    let rules = LabelRules::parse(&args.security_labels, &args.routine_labels);
    if rules.security.is_empty() {
        return Err(UsageError::new(
            "security-labels",
            "security-labels is empty: give at least one label (default security)",
        )
        .into());
    }
    let unlabeled = args.unlabeled_policy()?;
    let tracking_labels = split_list(&args.tracking_labels);
    publish::check_tracking_labels(&tracking_labels).map_err(usage("tracking-labels"))?;
    let runbook =
        crate::inputs::runbook_settings(&args.namespace, &args.helm_release, &args.hub_url)?;
    if let Some(repository) = given(&args.repository) {
        crate::context::Repository::parse(repository).map_err(usage("repository"))?;
    }
    if let Some(sha) = given(&args.sha) {
        crate::context::commit_sha(sha).map_err(usage("sha"))?;
    }
    let ctx = RunContext::resolve(
        &Overrides {
            repository: args.repository.clone(),
            sha: args.sha.clone(),
            api_url: args.api_url.clone(),
        },
        &env,
    )?;
    let token = args
        .github_token
        .as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty());
    let github = match (&ctx.repository, token) {
        (Some(repo), Some(token)) => {
            let sink = log.clone();
            let mut options = github::Options::default();
            if let Some(timeout) = args.github_timeout {
                options.timeout = timeout;
            }
            if let Some(wait) = args.github_retry_wait {
                options.read_retry.base = wait;
            }
            Some(
                GitHub::with_options(&ctx.api_url, token, repo.clone(), options)?
                    .with_debug(Arc::new(move |l: &str| sink.debug(l))),
            )
        }
        _ => None,
    };
    if !args.dry_run {
        if token.is_none() {
            return Err(UsageError::new(
                "github-token",
                "no GitHub token: set github-token (default ${{ github.token }}) or --github-token, or use --dry-run",
            )
            .into());
        }
        if ctx.repository.is_none() {
            return Err(UsageError::new(
                "repository",
                "no repository: set --repository OWNER/REPO (GITHUB_REPOSITORY outside Actions)",
            )
            .into());
        }
        if ctx.sha.is_none() {
            return Err(UsageError::new(
                "sha",
                "no commit: set --sha (GITHUB_SHA outside Actions)",
            )
            .into());
        }
    }

    // 1. Digest.
    let digest = resolve_digest(&source, args, log).await?;
    log.info(&format!("{} resolves to {digest}", source.display()));

    // 2. Tier, from the pull requests behind the release.
    let backoff: Vec<Duration> = args
        .lookup_backoff_ms
        .iter()
        .map(|ms| Duration::from_millis(*ms))
        .collect();
    let behind = pulls::resolve(
        &ctx,
        &LookupOptions {
            github: github.as_ref(),
            rules: &rules,
            backoff: &backoff,
            labels_decide: args.tier == crate::tier::TierRequest::Auto,
        },
    )
    .await;
    let mut decision = tier::decide(args.tier, &behind.evidence, &rules, unlabeled)?;
    // A secret someone put into a title or label is hidden before the text is escaped for
    // Markdown: escaping would change it, and then no later redaction would match it.
    for pr in &mut decision.pull_requests {
        pr.title = log.redact(&pr.title);
        for label in &mut pr.labels {
            *label = log.redact(label);
        }
    }
    decision.reason = log.redact(&decision.reason);
    for warning in &decision.warnings {
        log.warning("Tier", &crate::support::sanitize::log_line(warning, 2000));
    }
    log.info(&format!(
        "tier {}",
        crate::support::sanitize::log_line(&decision.reason, 500)
    ));
    for pr in &decision.pull_requests {
        log.info(&crate::support::sanitize::log_line(
            &format!(
                "  #{} {} <{}> labels: {}",
                pr.number,
                pr.title,
                pr.url,
                pr.labels.join(", ")
            ),
            500,
        ));
    }
    // The release targets the event's commit (a merged PR's merge commit, a workflow_run's
    // head_sha), unless --sha says otherwise.
    let sha_given = args.sha.as_deref().is_some_and(|s| !s.trim().is_empty());
    let target_sha = if sha_given {
        ctx.sha.clone()
    } else {
        behind.commit.clone().or_else(|| ctx.sha.clone())
    };
    if let (Some(target), Some(github_sha)) = (&target_sha, &ctx.sha) {
        if target != github_sha {
            log.info(&format!(
                "the release targets commit {target}, from {} (GITHUB_SHA is {github_sha})",
                behind.evidence.origin
            ));
        }
    }

    // 3. Window.
    let window = window::compute(&culler.settings);
    if !window.culling_enabled {
        log.warning(
            "Convergence window",
            "culling is disabled: running sessions update only when their users restart them",
        );
    }

    // 4. Look up what exists (not in a dry run), then render: a re-run renders with the
    // original announce time, so an unchanged release renders the same and nothing is sent.
    let tag = publish::release_tag(&source.short_name(), &digest);
    let target = Target {
        digest: digest.clone(),
        tag: tag.clone(),
        image: render::image_repository(&source.display()).to_string(),
        tracking_labels: tracking_labels.clone(),
        tracking_issue: decision.tier == Tier::Security,
    };
    let found = match (&github, args.dry_run) {
        (Some(github), false) => Some(publish::look_up(github, &target).await?),
        _ => None,
    };
    let now = found.as_ref().and_then(Found::announced_at).unwrap_or(now);
    let release_url = ctx
        .repository
        .as_ref()
        .map(|repo| format!("{}/{repo}/releases/tag/{tag}", ctx.server_url));
    let facts = Facts {
        image: source.display(),
        digest: digest.clone(),
        tier: decision.clone(),
        culler: culler.settings,
        culler_origins: culler.origins.clone(),
        window,
        sha: target_sha.clone().unwrap_or_default(),
        run_url: ctx.run_url.clone(),
        release_url: release_url.clone(),
        runbook,
        now,
    };
    let note = render::release_note(&facts)?;
    let issue_body = (decision.tier == Tier::Security)
        .then(|| render::tracking_issue(&facts))
        .transpose()?;

    // 5. Publish.
    let published = if args.dry_run {
        log.info(&format!(
            "dry run: would publish release {tag}\n\n----- release note -----\n{note}"
        ));
        if let Some(body) = &issue_body {
            log.info(&format!(
                "----- tracking issue: {} -----\n{body}",
                render::tracking_issue_title(&digest)
            ));
        }
        None
    } else {
        let github = github.as_ref().ok_or_else(|| anyhow!("no GitHub client"))?;
        let found = found.as_ref().ok_or_else(|| anyhow!("nothing looked up"))?;
        let issue = match &issue_body {
            Some(body) => Some(IssuePlan {
                new: NewIssue {
                    title: render::tracking_issue_title(&digest),
                    body: body.clone(),
                    labels: tracking_labels.clone(),
                    assignees: split_list(&args.tracking_assignees),
                },
                evidence: render::evidence_fingerprint(&facts),
                update_comment: render::tracking_update(&facts)?,
            }),
            None => None,
        };
        let plan = Plan {
            release: NewRelease {
                tag_name: tag.clone(),
                target_commitish: target_sha.clone().unwrap_or_default(),
                name: render::release_title(&digest, decision.tier),
                body: note.clone(),
                draft: false,
                prerelease: false,
            },
            issue,
            release_url: release_url.clone().unwrap_or_default(),
            full_text_at: render::where_full(&facts),
        };
        let published = publish::publish(github, found, &plan).await?;
        for note in &published.notes {
            log.info(note);
        }
        for warning in &published.warnings {
            log.warning("release note left as a human edited it", warning);
        }
        log.info(&format!(
            "release note {}: {}",
            published.release_change, published.release_url
        ));
        if let Some((url, change)) = &published.issue {
            log.info(&format!("tracking issue {change}: {url}"));
        }
        if let Some(change) = published.update_comment {
            log.info(&format!("tracking issue update comment {change}"));
        }
        Some(published)
    };

    // 6. Report.
    report(&facts, &tag, published.as_ref(), &note, log)
}

/// An optional input's value, trimmed; `None` when unset or blank.
fn given(value: &Option<String>) -> Option<&str> {
    value.as_deref().map(str::trim).filter(|v| !v.is_empty())
}

/// Stage 1: the digest, checked against `--expected-digest`. Registry inputs are validated
/// before the first request.
async fn resolve_digest(source: &ImageSource, args: &AnnounceArgs, log: &Log) -> Result<Digest> {
    let expected = args
        .expected_digest
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            Digest::parse(s).map_err(|e| {
                UsageError::new(
                    "expected-digest",
                    format!("expected-digest (--expected-digest): {e}"),
                )
            })
        })
        .transpose()?;
    let digest = match source {
        ImageSource::Layout { dir, tag } => digest::layout::resolve(dir, tag.as_deref())?,
        ImageSource::Registry(reference) => {
            let options = registry_options(args)?;
            let resolved = digest::registry::resolve(reference, &options).await?;
            log.debug(&format!(
                "registry answered {} ({}) in {} request(s)",
                resolved.digest, resolved.media_type, resolved.requests
            ));
            resolved.digest
        }
    };
    digest::check_expected(&source.display(), &digest, expected.as_ref())?;
    Ok(digest)
}

/// The registry inputs, validated: both or neither of username and password, the timeout.
/// Errors are [`UsageError`]s naming the input.
fn registry_options(args: &AnnounceArgs) -> Result<RegistryOptions, UsageError> {
    let credentials = match (&args.registry_username, &args.registry_password) {
        (Some(u), Some(p)) if !u.trim().is_empty() && !p.is_empty() => Some(Credentials {
            username: u.trim().to_string(),
            password: p.clone(),
            source: CredentialSource::RegistryInputs,
        }),
        (Some(u), _) if !u.trim().is_empty() => {
            return Err(UsageError::new(
                "registry-password",
                "registry-username is set but registry-password is empty: set both, or neither for anonymous access",
            ));
        }
        (_, Some(p)) if !p.is_empty() => {
            return Err(UsageError::new(
                "registry-username",
                "registry-password is set but registry-username is empty: set both, or neither for anonymous access",
            ));
        }
        _ => None,
    };
    let duration = |text: &str, input: &str| -> Result<std::time::Duration, UsageError> {
        let t = text.trim();
        let parsed = match t.parse::<u64>() {
            Ok(secs) => Ok(std::time::Duration::from_secs(secs)),
            Err(_) => humantime::parse_duration(t).map_err(|e| e.to_string()),
        };
        parsed.map_err(|e| {
            UsageError::new(
                input,
                format!(
                    "{input} (--{input}) {t:?} is not a duration ({e}): write seconds (60) or e.g. 90s, 2m"
                ),
            )
        })
    };
    let timeout = duration(&args.registry_timeout, "registry-timeout")?;
    if timeout.is_zero() {
        return Err(UsageError::new(
            "registry-timeout",
            "registry-timeout (--registry-timeout) is 0: give the registry look-up some time, e.g. 60",
        ));
    }
    Ok(RegistryOptions {
        credentials,
        github_token: args.github_token.clone(),
        insecure: args
            .insecure_registry
            .iter()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect(),
        retry: RetryPolicy {
            timeout,
            base_delay: duration(&args.registry_retry_delay, "registry-retry-delay")?,
            ..RetryPolicy::default()
        },
        timer: None,
    })
}

fn report(
    facts: &Facts,
    tag: &str,
    published: Option<&Published>,
    note: &str,
    log: &Log,
) -> Result<()> {
    let files = FileCommands::from_env();
    if log.in_actions() && files.output.is_none() {
        log.warning(
            "Step outputs",
            "GITHUB_OUTPUT is not set, so the step outputs (digest, tier, release-url, ...) were not written and later steps will see them empty; the Actions runner sets it for every step",
        );
    }
    let (release_url, issue_url, changed) = match published {
        Some(p) => (
            p.release_url.clone(),
            p.issue.as_ref().map(|(u, _)| u.clone()).unwrap_or_default(),
            p.changed(),
        ),
        None => (String::new(), String::new(), false),
    };
    let outputs = [
        ("digest", facts.digest.to_string()),
        ("tier", facts.tier.tier.to_string()),
        ("tier-source", facts.tier.source.to_string()),
        ("release-tag", tag.to_string()),
        ("release-url", release_url),
        ("issue-url", issue_url),
        ("changed", changed.to_string()),
        ("convergence-window", facts.window.summary()),
        (
            "idle-window-seconds",
            facts
                .window
                .idle_secs
                .map(|s| s.to_string())
                .unwrap_or_default(),
        ),
        (
            "active-window-seconds",
            facts
                .window
                .active_secs
                .map(|s| s.to_string())
                .unwrap_or_default(),
        ),
    ];
    let redacted: Vec<(&str, String)> = outputs.iter().map(|(k, v)| (*k, log.redact(v))).collect();
    files.write_outputs(&redacted)?;
    let summary = render::job_summary(facts, tag, published.map(summary_links).as_ref(), note)?;
    let wrote_summary = files.write_summary(&log.redact(&summary))?;
    if !log.in_actions() || !wrote_summary {
        let state = match published {
            Some(p) if p.changed() => "published",
            Some(_) => "unchanged",
            None => "dry run",
        };
        log.info(&format!(
            "{state}: {} {} tier={} window: {}",
            facts.image,
            facts.digest,
            facts.tier.tier,
            facts.window.summary()
        ));
    }
    Ok(())
}

fn summary_links(p: &Published) -> render::SummaryLinks {
    render::SummaryLinks {
        release: (p.release_url.clone(), p.release_change),
        issue: p.issue.clone(),
        superseded: p.superseded.clone(),
    }
}
