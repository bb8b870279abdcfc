//! `announce`'s options into an [`AnnounceRequest`]: every input checked, in the order the
//! run has always checked them, before the first network call, so bad input changes nothing.

use super::inputs;
use super::usage::{ImageProblem, Problem, Required, Rule};
use super::value::InputDuration;
use super::{AnnounceArgs, UsageError, required, usage};
use crate::announce::{
    AnnounceRequest, DeploymentRequest, ImageRequest, Templates, TierPolicy, TrackingOptions,
};
use crate::context::RunContext;
use crate::digest::layout;
use crate::digest::{Digest, ImageSource};
use crate::publish;
use crate::render::custom::{self, TEMPLATE_MAX_BYTES};
use crate::render::{BodyKind, CustomTemplate};
use crate::support::files;
use crate::support::github::{self, GitHub};
use crate::support::log::Log;
use crate::support::secrets::SecretString;
use crate::support::url::is_placeholder;
use crate::tier::{LabelRules, TierRequest};
use anyhow::Result;
use secrecy::ExposeSecret;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use time::OffsetDateTime;

/// The `announce` request: every input validated (the secrets were registered with `log`
/// before parsing: [`super::mask_secret_inputs`]) and the run context resolved from `env` (the `GITHUB_*` variables and the
/// event payload they name).
///
/// # Errors
/// Bad input, as [`UsageError`] naming the input (exit code 2), a malformed `--now`
/// included; an unreadable values file or event payload (exit code 1).
pub(crate) fn announce_request(
    args: &AnnounceArgs,
    log: &Log,
    env: &HashMap<String, String>,
) -> Result<AnnounceRequest> {
    // The culler settings' warnings are held: the runbook placeholder warning, decided with
    // the tier, is the run's first annotation (issue 27). A refused request prints them.
    let held = log.holding();
    let built = request(args, log, env, &held);
    if built.is_err() {
        log.replay(&held.take_held());
    }
    built
}

/// [`announce_request`], the culler settings' warnings held in `held`.
fn request(
    args: &AnnounceArgs,
    log: &Log,
    env: &HashMap<String, String>,
    held: &Log,
) -> Result<AnnounceRequest> {
    if args.print_context && !args.dry_run {
        let problem = Problem::Rule(Rule::PrintContextNeedsDryRun);
        return Err(UsageError::new("print-context", problem).into());
    }
    let source = (args.image.clone()).ok_or_else(|| required("image", Required::Image))?;
    let now = args.now.unwrap_or_else(OffsetDateTime::now_utc);
    let culler = args.culler.settings(held, args.now)?;
    let tier = tier_policy(args)?;
    let tracking = TrackingOptions {
        labels: args.tracking_labels.0.clone(),
        assignees: args.tracking_assignees.0.clone(),
    };
    publish::check_tracking_labels(&tracking.labels).map_err(usage("tracking-labels"))?;
    let assignees = &tracking.assignees;
    publish::check_tracking_assignees(assignees).map_err(usage("tracking-assignees"))?;
    let runbook = args.runbook.settings();
    let context = args.github.run_context(args.sha.as_ref(), env)?;
    let token = args.github.token()?.map(SecretString::from);
    let github = match (&context.repository, &token) {
        (Some(repo), Some(token)) => {
            inputs::warn_if_plain_http(log, "api-url", &context.api_url, "github-token");
            let options = github::Options::given(
                args.github_timeout.map(InputDuration::get),
                args.github_retry_wait.map(InputDuration::get),
            );
            let client = GitHub::with_options(&context.api_url, token, repo.clone(), options)?;
            let sink = log.clone();
            Some(client.with_debug(Arc::new(move |l: &str| sink.debug(l))))
        }
        _ => None,
    };
    if !args.dry_run {
        check_publishable(&context, token.as_ref())?;
        // Before anything is read when the tier is given; from the labels, once they are read.
        crate::announce::runbook(args.tier == TierRequest::Security, &runbook, false, log)?;
    }
    let templates = templates(args, env)?;
    // Checked whatever the image, so a bad value is refused before it matters; `None` for
    // an OCI layout.
    let registry = args
        .registry
        .options(token.as_ref().map(ExposeSecret::expose_secret))?;
    Ok(AnnounceRequest {
        image: ImageRequest {
            registry: matches!(source, ImageSource::Registry(_)).then_some(registry),
            source,
            expected_digest: args.expected_digest.clone(),
        },
        now,
        culler,
        culler_warnings: held.take_held(),
        tier,
        tracking,
        deployment: args
            .deployment
            .environment
            .clone()
            .map(|environment| DeploymentRequest {
                environment,
                hub_url: (!is_placeholder(&runbook.hub_url)).then(|| runbook.hub_url.clone()),
            }),
        runbook,
        sha_given: args.sha.is_some(),
        context,
        github,
        dry_run: args.dry_run,
        print_context: args.print_context,
        templates,
        lookup_backoff: args.lookup_backoff_ms.clone(),
    })
}

/// The tier input, the label lists (`security-labels` must name one at least) and the
/// `unlabeled-tier` policy.
fn tier_policy(args: &AnnounceArgs) -> Result<TierPolicy, UsageError> {
    let rules = LabelRules {
        security: args.security_labels.0.clone(),
        routine: args.routine_labels.0.clone(),
    };
    if rules.security.is_empty() {
        let problem = Problem::Rule(Rule::NoSecurityLabel);
        return Err(UsageError::new("security-labels", problem));
    }
    Ok(TierPolicy {
        request: args.tier,
        rules,
        unlabeled: args.unlabeled_tier,
    })
}

/// The custom release-note and tracking-issue templates ([`template`]), read from the
/// workspace ([`files::resolve_workspace`]), which is resolved only when one is given.
fn templates(args: &AnnounceArgs, env: &HashMap<String, String>) -> Result<Templates> {
    let paths = [&args.release_note_template, &args.tracking_issue_template];
    if paths.iter().all(|path| path.is_none()) {
        return Ok(Templates::default());
    }
    let github_workspace = env.get("GITHUB_WORKSPACE").map(String::as_str);
    let workspace = files::resolve_workspace(github_workspace).map_err(custom::workspace_error)?;
    Ok(Templates {
        release_note: template(paths[0], BodyKind::ReleaseNote, &workspace)?,
        tracking_issue: template(paths[1], BodyKind::TrackingIssue, &workspace)?,
    })
}

/// `announce --image`: an image reference ([`ImageSource::parse`]); an `oci:` layout must be
/// a directory holding the image asked for before anything is looked up in it
/// ([`layout::resolve`]).
///
/// # Errors
/// [`UsageError`] naming `image`: not a reference, or a layout missing, not a directory, or
/// without an image of that tag (the words list the tags it has).
pub(super) fn image_input(text: &str) -> Result<ImageSource, UsageError> {
    let image = text.trim();
    let source = ImageSource::parse(image).map_err(|why| match why {
        ImageProblem::Credentials => UsageError::new("image", Problem::Image(why)),
        why => UsageError::of("image", image, Problem::Image(why)),
    })?;
    if let ImageSource::Layout { dir, tag } = &source {
        layout::resolve(dir, tag.as_deref())
            .map_err(|why| UsageError::of("image", image, Problem::Layout(why.into())))?;
    }
    Ok(source)
}

/// The team's template for `kind` at `path`, `None` when unset: read from inside the
/// `workspace` only ([`files::read_inside`]: the rendered text is published), at most
/// [`TEMPLATE_MAX_BYTES`], and checked ([`CustomTemplate::parse`]).
///
/// # Errors
/// [`UsageError`] naming the input and the file: unreadable (missing), outside the
/// workspace, not a regular file, too large, not UTF-8, a syntax error, an unknown
/// variable, a render to nothing.
fn template(
    path: &Option<PathBuf>,
    kind: BodyKind,
    workspace: &Path,
) -> Result<Option<CustomTemplate>, UsageError> {
    let Some(path) = path.as_deref() else {
        return Ok(None);
    };
    let shown = path.display().to_string();
    let bytes = files::read_inside(workspace, path, TEMPLATE_MAX_BYTES as u64)
        .map_err(|e| UsageError::of(kind.input(), &shown, Problem::Template(e.into())))?;
    CustomTemplate::parse(kind, &shown, bytes)
        .map(Some)
        .map_err(|e| usage(e.input)(e.into()))
}

/// What publishing needs beyond a dry run: a token, a repository, a commit.
fn check_publishable(ctx: &RunContext, token: Option<&SecretString>) -> Result<(), UsageError> {
    let (input, problem) = if token.is_none() {
        ("github-token", Problem::NoToken(None))
    } else if ctx.repository.is_none() {
        ("repository", Problem::Rule(Rule::NoRepository))
    } else if ctx.sha.is_none() {
        ("sha", Problem::Rule(Rule::NoCommit))
    } else {
        return Ok(());
    };
    Err(UsageError::new(input, problem))
}

/// `--expected-digest`, parsed ([`Digest::parse`]) lower-cased: OCI digests are written in
/// lower-case hex (the image spec's `sha256` encoding), and an upper-case copy names the same
/// digest.
///
/// # Errors
/// [`UsageError`] naming `expected-digest`.
pub(super) fn expected_digest(text: &str) -> Result<Digest, UsageError> {
    let t = text.trim();
    let refused = |_| UsageError::of("expected-digest", t, Problem::NotADigest);
    Digest::parse(&t.to_ascii_lowercase()).map_err(refused)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Cli, Command};
    use crate::tier::UnlabeledPolicy;
    use assert_matches::assert_matches;
    use clap::Parser;
    use std::time::Duration;

    const SHA: &str = "0123456789abcdef0123456789abcdef01234567";

    /// The request `args` (after `announce`) give with `env`, or the error's input and text.
    fn request(args: &[&str], env: &[(&str, &str)]) -> Result<AnnounceRequest, (String, String)> {
        let cli = Cli::try_parse_from(["codeq-rollout", "announce"].iter().chain(args))
            .map_err(|e| crate::cli::usage::clap_input_and_message(&e))?;
        let Command::Announce(args) = cli.command else {
            unreachable!()
        };
        let env: HashMap<String, String> = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        announce_request(&args, &Log::new(false, false), &env)
            .map_err(crate::cli::usage::input_and_message)
    }

    /// The workspace is resolved only for a template: a `GITHUB_WORKSPACE` that does not
    /// exist stops a run with a template, saying where it came from, and no other run.
    #[test]
    fn the_workspace_is_resolved_only_for_a_template() {
        let env = [("GITHUB_WORKSPACE", "/nonexistent/workspace")];
        let plain = ["--image", "oci:examples/lab", "--dry-run"];
        assert!(request(&plain, &env).is_ok());
        let with_template = [&plain[..], &["--release-note-template", "x.md.j2"]].concat();
        let (input, message) = request(&with_template, &env).err().unwrap();
        assert_eq!(input, "(not usage)");
        insta::assert_snapshot!(message, @r#"
            the workspace /nonexistent/workspace (GITHUB_WORKSPACE) cannot be resolved: No such file or directory (os error 2)
            help: templates are read from it: check out the repository first (actions/checkout), or set GITHUB_WORKSPACE to its directory
        "#);
    }

    #[test]
    fn a_clock_whose_deadlines_end_on_the_calendars_last_second_is_taken() {
        // z2jh's defaults: due within 1h 10m, so by 9999-12-31T23:59:00Z.
        let at = |now| {
            request(
                &["--image", "oci:examples/lab", "--dry-run", "--now", now],
                &[],
            )
        };
        let r = at("9999-12-31T22:49:00Z").unwrap();
        assert_eq!(r.now, time::macros::datetime!(9999-12-31 22:49 UTC));
        assert!(at("9999-12-31T22:49:59Z").is_ok());
        assert_eq!(at("9999-12-31T22:50:00Z").err().unwrap().0, "now");
        // Taken in UTC whatever the offset given.
        let r = at("9999-12-31T20:49:00-02:00").unwrap();
        assert_eq!(r.now, time::macros::datetime!(9999-12-31 22:49 UTC));
    }

    #[test]
    fn input_generates_correct_announce_request() {
        let layout = ["--image", "oci:examples/lab", "--dry-run"];
        let r = request(&layout, &[]).unwrap();
        assert_matches!(r.image.source, ImageSource::Layout { .. });
        assert!(r.image.registry.is_none() && r.github.is_none() && r.dry_run);
        assert_eq!(r.tier.request, TierRequest::Auto);
        assert_eq!(r.tier.unlabeled, None);
        assert_eq!(r.tracking.labels, ["security", "break-glass"]);
        assert!(r.tracking.assignees.is_empty() && !r.sha_given);
        assert_eq!(r.runbook.namespace, "jhub");
        let waits = [2, 6, 18].map(Duration::from_secs);
        assert_eq!(r.lookup_backoff, waits, "4 tries within about 30 s");

        let r = request(
            &[
                "--image",
                "ghcr.io/org/lab:latest",
                "--tier",
                " SECURITY ",
                "--unlabeled-tier",
                " Fail ",
                "--sha",
                SHA,
                "--repository",
                "org/lab",
                "--github-token",
                "ghs_x0123",
                "--tracking-assignees",
                "ana, bo",
                "--lookup-backoff-ms",
                "5,10",
                // Upper case taken, as the same digest lower-cased.
                "--expected-digest",
                "SHA256:9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B2B0B822CD15D6C15B0F00A08",
                "--registry-timeout",
                "2m",
                "--hub-url",
                "https://hub.corp.org",
            ],
            &[],
        )
        .unwrap();
        assert_eq!(r.tier.request, TierRequest::Security);
        assert_eq!(r.tier.unlabeled, Some(UnlabeledPolicy::Fail));
        assert!(r.sha_given && r.github.is_some());
        let digest = "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
        assert_eq!(r.image.expected_digest.unwrap().as_str(), digest);
        assert_eq!(r.context.sha.as_deref(), Some(SHA));
        assert_eq!(r.tracking.assignees, ["ana", "bo"]);
        assert_eq!(
            r.lookup_backoff,
            [Duration::from_millis(5), Duration::from_millis(10)]
        );
        let registry = r.image.registry.unwrap();
        assert_eq!(registry.retry.deadline, Some(Duration::from_secs(120)));
        assert!(registry.credentials.is_none());

        let r = request(
            &["--image", "oci:examples/lab"],
            &[("GITHUB_REPOSITORY", "org/lab"), ("GITHUB_SHA", SHA)],
        );
        assert_eq!(r.err().unwrap().0, "github-token");
    }

    #[test]
    fn every_bad_input_is_a_usage_error_naming_it() {
        let image = ["--image", "ghcr.io/org/lab:latest", "--dry-run"];
        let with = |extra: &[&'static str]| -> Vec<&'static str> {
            image.iter().chain(extra).copied().collect()
        };
        let publishing = ["--image", "oci:examples/lab"];
        let ready = [
            "--github-token",
            "ghs_t0k3n",
            "--repository",
            "o/r",
            "--sha",
            SHA,
        ];
        let args: Vec<Vec<&'static str>> = vec![
            vec!["--dry-run"],
            vec!["--image", "ghcr.io/Org/Lab:latest", "--dry-run"],
            with(&["--security-labels", " , "]),
            with(&["--unlabeled-tier", "maybe"]),
            with(&["--tracking-labels", ""]),
            with(&["--tracking-labels", " , "]),
            with(&["--security-labels", ""]),
            with(&["--routine-labels", ""]),
            with(&["--tracking-assignees", ""]),
            with(&["--release-note-template", ""]),
            with(&["--tracking-issue-template", ""]),
            // Any value given empty on the command line is refused alike, before its check.
            vec!["--image", "", "--dry-run"],
            with(&["--repository="]),
            with(&["--api-url="]),
            with(&["--sha", " "]),
            with(&["--tier="]),
            with(&["--environment", ""]),
            with(&["--registry-username", ""]),
            with(&["--github-token", ""]),
            with(&["--namespace", "Lab"]),
            with(&["--helm-release", "hub;x"]),
            with(&["--hub-url", "https://hub.org/$(id)"]),
            with(&["--hub-url", "https://hub.example.org/hub/api"]),
            with(&["--hub-url", "http:///path"]),
            with(&["--hub-url", "https://h.corp.org/'x"]),
            with(&["--hub-url", "https://h/hub/"]),
            with(&["--hub-url", "https://h.corp.org:0"]),
            with(&["--api-url", "https://api.corp.org:0/"]),
            vec!["--image", "ghcr.io/org/lab@sha256:abc", "--dry-run"],
            with(&["--repository", "noslash"]),
            with(&["--repository", "../x"]),
            with(&["--repository", "o/r.git"]),
            with(&["--api-url", "ftp://x"]),
            with(&["--api-url", "https://api.github.com/ x"]),
            with(&["--api-url", "https://"]),
            with(&["--api-url", "http:///path"]),
            with(&["--api-url", "https:///x"]),
            with(&["--sha", "abc"]),
            with(&["--cull-enabled", "maybe"]),
            with(&["--expected-digest", "sha256:abc"]),
            with(&["--registry-username", "ci"]),
            with(&["--registry-password", "p"]),
            with(&["--registry-timeout", "0"]),
            with(&["--registry-timeout", "soon"]),
            with(&["--registry-timeout", "6h 1s"]),
            with(&["--registry-timeout", "1h30"]),
            with(&["--now", "yesterday"]),
            with(&["--now", "9999-12-31T23:59:59-23:59"]),
            with(&["--now", "0000-01-01T00:00:00+00:01"]),
            with(&["--now", "10000-01-01T00:00:00Z"]),
            with(&["--now", "9999-12-31T22:50:00Z"]),
            vec![
                "--image",
                "oci:examples/lab",
                "--dry-run",
                "--registry-timeout",
                "soon",
            ],
            vec!["--image", "oci:/nonexistent/layout", "--dry-run"],
            vec!["--image", "oci:README.md", "--dry-run"],
            vec!["--image", "oci:examples/lab:v9", "--dry-run"],
            vec![
                "--image",
                "oci:examples/lab@sha256:0123456789abcdef",
                "--dry-run",
            ],
            with(&["--github-token", "ab\u{1}c", "--repository", "o/r"]),
            publishing.to_vec(),
            [&publishing[..], &["--github-token", "ghs_t0k3n"]].concat(),
            // A security release naming a placeholder hub-url: its default, or another.
            [&publishing[..], &["--tier", "security"], &ready].concat(),
            [
                &publishing[..],
                &["--tier", "security", "--hub-url", "https://example.com"],
                &ready,
            ]
            .concat(),
        ];
        // The run context reads GITHUB_REPOSITORY: one case needs it set.
        let with_env = (
            [&publishing[..], &["--github-token", "ghs_t0k3n"]].concat(),
            vec![("GITHUB_REPOSITORY", "org/lab")],
        );
        let shared = super::super::BAD_SHARED_OPTIONS.map(with);
        let cases = args.into_iter().chain(shared).map(|a| (a, vec![]));
        let cases = cases.chain([with_env]);
        let table: Vec<String> = cases
            .map(|(args, env)| {
                let (input, message) = request(&args, &env).err().expect("an error");
                format!("{}\n  {input}: {message}", args.join(" "))
            })
            .collect();
        insta::assert_snapshot!(table.join("\n"));
    }
}
