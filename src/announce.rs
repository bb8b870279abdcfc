//! One `announce` run: context → digest → tier → window → render → publish → report.

use crate::cli::AnnounceArgs;
use crate::context::{Overrides, RunContext};
use crate::digest::{self, Digest, ImageSource, registry::RegistryOptions};
use crate::github::GitHub;
use crate::github::models::{NewIssue, NewRelease};
use crate::publish::{self, Plan, Published};
use crate::render::{self, Facts, RunbookSettings};
use crate::report::{FileCommands, Log};
use crate::tier::{self, LabelRules, Tier, split_list};
use crate::window;
use anyhow::{Context, Result, anyhow, bail};
use std::sync::Arc;
use time::OffsetDateTime;

/// Runs `announce`. Inputs are all validated before the first network call, so bad input
/// changes nothing.
///
/// # Errors
/// Bad input (naming the input), a failed registry or GitHub call (saying what to do).
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
    let env: std::collections::HashMap<String, String> = std::env::vars().collect();

    // Validate every input first.
    let image_text = args
        .image
        .as_deref()
        .filter(|s| !s.trim().is_empty())
        .ok_or_else(|| anyhow!("the image input is required: set --image (input `image`), e.g. ghcr.io/org/lab:latest"))?;
    let source = ImageSource::parse(image_text)?;
    let now = match &args.now {
        Some(text) => OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339)
            .with_context(|| format!("--now {text:?} is not an RFC 3339 time"))?,
        None => OffsetDateTime::now_utc(),
    };
    let culler = args.culler.settings()?;
    let rules = LabelRules::parse(&args.security_labels, &args.routine_labels);
    if rules.security.is_empty() {
        bail!("security-labels is empty: give at least one label (default security)");
    }
    let tracking_labels = split_list(&args.tracking_labels);
    publish::check_tracking_labels(&tracking_labels)?;
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
            let debug_log = Arc::new(Log::from_env());
            debug_log.mask(token);
            let sink = Arc::clone(&debug_log);
            Some(
                GitHub::new(&ctx.api_url, token, repo.clone())?
                    .with_debug(Arc::new(move |l: &str| sink.debug(l))),
            )
        }
        _ => None,
    };
    if !args.dry_run {
        if token.is_none() {
            bail!(
                "no GitHub token: set github-token (default ${{{{ github.token }}}}) or --github-token, or use --dry-run"
            );
        }
        if ctx.repository.is_none() {
            bail!("no repository: set --repository OWNER/REPO (GITHUB_REPOSITORY outside Actions)");
        }
        if ctx.sha.is_none() {
            bail!("no commit: set --sha (GITHUB_SHA outside Actions)");
        }
    }

    // 1. Digest.
    let digest = resolve_digest(&source, args).await?;
    log.info(&format!("{} resolves to {digest}", source.display()));

    // 2. Tier.
    let evidence = crate::pulls::evidence(&ctx, github.as_ref()).await?;
    let decision = tier::decide(args.tier, &evidence, &rules, args.unlabeled_tier)?;
    for warning in &decision.warnings {
        log.warning("Tier", &crate::sanitize::log_line(warning, 2000));
    }
    log.info(&format!(
        "tier {}",
        crate::sanitize::log_line(&decision.reason, 500)
    ));

    // 3. Window.
    let window = window::compute(&culler.settings);
    if !window.culling_enabled {
        log.warning(
            "Convergence window",
            "culling is disabled: running sessions update only when their users restart them",
        );
    }

    // 4. Render.
    let tag = publish::release_tag(&source.short_name(), &digest);
    let release_url = ctx
        .repository
        .as_ref()
        .map(|repo| format!("{}/{repo}/releases/tag/{tag}", ctx.server_url));
    let facts = Facts {
        image: source.display(),
        digest: digest.clone(),
        tier: decision.clone(),
        culler: culler.settings,
        window,
        sha: ctx.sha.clone().unwrap_or_default(),
        run_url: ctx.run_url.clone(),
        release_url: release_url.clone(),
        runbook: RunbookSettings {
            namespace: args.namespace.clone(),
            helm_release: args.helm_release.clone(),
            hub_url: args.hub_url.trim_end_matches('/').to_string(),
            ..Default::default()
        },
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
        let plan = Plan {
            digest: digest.clone(),
            release: NewRelease {
                tag_name: tag.clone(),
                target_commitish: ctx.sha.clone().unwrap_or_default(),
                name: render::release_title(&digest, decision.tier),
                body: note.clone(),
                draft: false,
                prerelease: false,
            },
            issue: issue_body.as_ref().map(|body| NewIssue {
                title: render::tracking_issue_title(&digest),
                body: body.clone(),
                labels: tracking_labels.clone(),
                assignees: split_list(&args.tracking_assignees),
            }),
            tracking_labels: tracking_labels.clone(),
            release_url: release_url.clone().unwrap_or_default(),
        };
        let published = publish::publish(github, &plan).await?;
        log.info(&format!(
            "release note {}: {}",
            published.release_change, published.release_url
        ));
        if let Some((url, change)) = &published.issue {
            log.info(&format!("tracking issue {change}: {url}"));
        }
        Some(published)
    };

    // 6. Report.
    report(&facts, &tag, published.as_ref(), &note, log)
}

async fn resolve_digest(source: &ImageSource, args: &AnnounceArgs) -> Result<Digest> {
    match source {
        ImageSource::Layout { dir, tag } => digest::layout::resolve(dir, tag),
        ImageSource::Registry(reference) => {
            let credentials = match (&args.registry_username, &args.registry_password) {
                (Some(u), Some(p)) if !u.trim().is_empty() && !p.is_empty() => {
                    Some((u.trim().to_string(), p.clone()))
                }
                (Some(u), _) if !u.trim().is_empty() => {
                    bail!(
                        "registry-username is set but registry-password is empty: set both, or neither for anonymous access"
                    )
                }
                (_, Some(p)) if !p.is_empty() => {
                    bail!(
                        "registry-password is set but registry-username is empty: set both, or neither for anonymous access"
                    )
                }
                _ => None,
            };
            let options = RegistryOptions {
                credentials,
                insecure: args
                    .insecure_registry
                    .iter()
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty())
                    .collect(),
            };
            digest::registry::resolve(reference, &options).await
        }
    }
}

fn report(
    facts: &Facts,
    tag: &str,
    published: Option<&Published>,
    note: &str,
    log: &Log,
) -> Result<()> {
    let files = FileCommands::from_env();
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
