//! `status`'s options into a [`StatusRequest`]: every input checked before the hub is asked,
//! so bad input changes nothing and sends nothing.

use super::inputs;
use super::usage::{GitHubUse, Problem, Required, Rule};
use super::{StatusArgs, UsageError, required, usage};
use crate::digest::ImageSource;
use crate::digest::registry::RegistryOptions;
use crate::publish;
use crate::render::usage_words::image_not_resolved;
use crate::status::hub::HubClient;
use crate::status::run::StatusRequest;
use crate::support::github::GitHub;
use crate::support::log::Log;
use anyhow::Result;
use secrecy::{ExposeSecret, SecretString};
use std::collections::HashMap;
use time::OffsetDateTime;

/// The `status` request: every input validated (the secrets were registered with `log`
/// before parsing: [`super::mask_secret_inputs`]).
///
/// # Errors
/// Bad input, as [`UsageError`] naming the input (exit code 2); an unreadable or malformed
/// values file (exit code 1).
pub(crate) fn status_request(
    args: &StatusArgs,
    log: &Log,
    env: &HashMap<String, String>,
) -> Result<StatusRequest> {
    // Checked first, whether used or not: a token with a stray character is a mistake to
    // fix before it is sent anywhere.
    let github_token = args.github.token()?;
    let (hub, hub_url) = hub(args)?;
    // Names reach an error about the hub's answer as they reach the log (`status::run`).
    let hub = hub.naming(args.include_names || !log.in_actions());
    inputs::warn_if_plain_http(log, "hub-url", &hub_url, "hub-token");
    let now = args.now;
    let clock = now.unwrap_or_else(OffsetDateTime::now_utc);
    let kube = args.kube.request(log, env)?;
    if kube.is_some() && args.image.is_none() {
        let problem = Problem::Rule(Rule::KubernetesNeedsImage);
        return Err(UsageError::new("image", problem).into());
    }
    let (image, github) = release(args, github_token, log, env, clock, kube.is_some())?;
    let configured = args.culler.settings(log, now)?;
    // The image given as pods name it, resolved or not: the pull-policy preflight's image
    // when the values files name none.
    let announced = args.image.as_ref().and_then(ImageSource::pod_reference);
    Ok(StatusRequest {
        hub,
        hub_url,
        released_at: args.released_at,
        image,
        github,
        tracking_labels: args.tracking_labels.0.clone(),
        comment: args.comment,
        culler: configured.settings,
        scale: configured.scale,
        json: args.json,
        include_names: args.include_names,
        now,
        kube,
        fail_on: args.kube.alarms(),
        pull: configured.image.pull_risk(announced.as_ref()),
        environment: args.deployment.environment.clone(),
        dry_run: args.dry_run,
    })
}

/// The hub's client and its address as given (trimmed): `hub-url` (never the placeholder),
/// `hub-token`, `hub-timeout`.
fn hub(args: &StatusArgs) -> Result<(HubClient, String)> {
    let url = (args.hub_url.as_ref()).ok_or_else(|| required("hub-url", Required::HubUrl))?;
    let hub_url = url.as_str().to_string();
    if crate::support::url::is_placeholder(&hub_url) {
        // action.yml's default among them, there for the runbook of `announce`.
        return Err(UsageError::of("hub-url", &hub_url, Problem::Placeholder).into());
    }
    let given = args.hub_token.as_ref().map(ExposeSecret::expose_secret);
    let given = given.ok_or_else(|| required("hub-token", Required::HubToken))?;
    // As given: only ASCII whitespace is trimmed, a no-break space around it is refused.
    let token = inputs::token("hub-token", given)?;
    let token = SecretString::from(token.to_string());
    let hub = HubClient::new(&hub_url, &token, args.hub_timeout.get())?;
    Ok((hub, hub_url))
}

/// An image to resolve, with its registry options (`None` for an OCI layout).
type ImageToResolve = (ImageSource, Option<RegistryOptions>);

/// `released-at` (RFC 3339, not after `now`, the run's clock) and `image`: one of them is
/// needed. The image is kept only when something needs its digest: the release note (no
/// `released-at`) or the comment (its marker and the tracking issue); with `released-at` and
/// no comment it is not resolved, so the registry is not asked (the log says so). Returns
/// the image kept and the GitHub client when the release note or the tracking issue is read.
fn release(
    args: &StatusArgs,
    github_token: Option<&str>,
    log: &Log,
    env: &HashMap<String, String>,
    now: OffsetDateTime,
    by_digest: bool,
) -> Result<(Option<ImageToResolve>, Option<GitHub>)> {
    let released_at = args.released_at;
    if let Some(at) = released_at.filter(|at| *at > now) {
        let problem = Problem::LaterThanClock { at, now };
        return Err(UsageError::new("released-at", problem).into());
    }
    let image = args.image.clone();
    // Validated whatever the image, as `announce` does, so a bad value is refused before it
    // matters.
    let registry = args.registry.options(github_token)?;
    if released_at.is_none() && image.is_none() {
        return Err(UsageError::new("released-at", Problem::Rule(Rule::NoRelease)).into());
    }
    if args.deployment.environment.is_some() && image.is_none() {
        let problem = Problem::Rule(Rule::EnvironmentNeedsImage);
        return Err(UsageError::new("image", problem).into());
    }
    if args.comment && image.is_none() {
        let problem = Problem::Rule(Rule::CommentNeedsImage);
        return Err(UsageError::new("image", problem).into());
    }
    let github_needed =
        released_at.is_none() || args.comment || args.deployment.environment.is_some();
    let needed = github_needed || by_digest;
    if let Some(source) = image.as_ref().filter(|_| !needed) {
        log.info(&image_not_resolved(&source.display()));
    }
    let image = image.filter(|_| needed);
    // Checked only when used: with the image kept, the tracking issue is looked up (and
    // with the comment, written to).
    if image.is_some() && github_needed {
        let labels = &args.tracking_labels.0;
        publish::check_tracking_labels(labels).map_err(usage("tracking-labels"))?;
    }
    let github = match image {
        Some(_) if github_needed => Some(github_client(args, github_token, env, log)?),
        _ => None,
    };
    let image = image.map(|source| {
        let registry = matches!(source, ImageSource::Registry(_)).then_some(registry);
        (source, registry)
    });
    Ok((image, github))
}

/// A time input (`now`, the run's clock, for both commands; `released-at`): RFC 3339, in
/// UTC ([`crate::support::time::parse_rfc3339`]: years 0000 to 9999 in UTC).
///
/// # Errors
/// [`UsageError`] naming `input` and quoting the text.
pub(super) fn time_input(input: &str, text: &str) -> Result<OffsetDateTime, UsageError> {
    crate::support::time::parse_rfc3339(text)
        .map_err(|e| UsageError::of(input, text.trim(), Problem::Time(e)))
}

/// The GitHub client for the release note and the tracking issue: the token, and the
/// repository from `--repository` or `GITHUB_REPOSITORY`. Without a token, the error says why
/// this run reads GitHub: the first of `environment`, `comment`, and the release time from
/// the release note.
fn github_client(
    args: &StatusArgs,
    token: Option<&str>,
    env: &HashMap<String, String>,
    log: &Log,
) -> Result<GitHub> {
    let ctx = args.github.run_context(None, env)?;
    inputs::warn_if_plain_http(log, "api-url", &ctx.api_url, "github-token");
    let why = match (&args.deployment.environment, args.comment) {
        (Some(_), _) => GitHubUse::Environment,
        (None, true) => GitHubUse::Comment,
        (None, false) => GitHubUse::ReleaseTime,
    };
    let token =
        token.ok_or_else(|| UsageError::new("github-token", Problem::NoToken(Some(why))))?;
    let repo = (ctx.repository)
        .ok_or_else(|| UsageError::new("repository", Problem::Rule(Rule::NoRepository)))?;
    Ok(GitHub::new(&ctx.api_url, &SecretString::from(token), repo)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Cli, Command};
    use assert_matches::assert_matches;
    use clap::Parser;

    /// The request `args` (after `status`) give, or the error's input and text.
    fn request(args: &[&str]) -> Result<StatusRequest, (String, String)> {
        let cli = Cli::try_parse_from(["codeq-rollout", "status"].iter().chain(args))
            .map_err(|e| crate::cli::usage::clap_input_and_message(&e))?;
        let Command::Status(args) = cli.command else {
            unreachable!()
        };
        status_request(&args, &Log::new(false, false), &HashMap::new()).map_err(|e| {
            let input = e
                .downcast_ref::<UsageError>()
                .map_or("(not usage)".to_string(), |u| u.input.clone());
            (input, format!("{e:#}"))
        })
    }

    const HUB: [&str; 4] = [
        "--hub-url",
        "https://hub.example.edu",
        "--hub-token",
        "hub-token-1",
    ];

    #[test]
    fn input_generates_correct_status_request() {
        let at = ["--released-at", "2026-11-30T12:00:00Z"];
        let r = request(&[&HUB[..], &at].concat()).unwrap();
        assert_eq!(r.hub_url, "https://hub.example.edu");
        assert_eq!(
            r.released_at,
            Some(time::macros::datetime!(2026-11-30 12:00 UTC))
        );
        assert!(r.image.is_none() && r.github.is_none() && !r.comment && !r.json);
        assert_eq!(
            (r.scale.servers, r.scale.slow_stop_timeout_secs),
            (None, 10)
        );
        assert_eq!(r.culler, crate::window::CullSettings::default());

        let r = request(
            &[
                &HUB[..],
                &[
                    "--image",
                    "oci:examples/lab",
                    "--github-token",
                    "ghs_x0123",
                    "--repository",
                    "org/lab",
                    "--comment",
                    "--hub-size",
                    "300",
                    "--slow-stop-timeout",
                    "30s",
                    "--cull-timeout",
                    "2h",
                    "--json",
                ],
            ]
            .concat(),
        )
        .unwrap();
        assert!(r.released_at.is_none() && r.github.is_some() && r.comment && !r.dry_run && r.json);
        assert_matches!(r.image, Some((ImageSource::Layout { .. }, None)));
        assert_eq!(
            (r.scale.servers, r.scale.slow_stop_timeout_secs),
            (Some(300), 30)
        );
        assert_eq!(r.culler.timeout_secs, 7200);
    }

    /// The options of a comment by image, with a GitHub token.
    const COMMENT: [&str; 5] = [
        "--image",
        "oci:examples/lab",
        "--comment",
        "--github-token",
        "ghs_t0k3n",
    ];

    /// A name past GitHub's 255 characters, echoed only to 100.
    const LONG_ENVIRONMENT: &str = concat!(
        "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee",
        "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee",
        "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee",
    );

    #[test]
    fn every_bad_input_is_a_usage_error_naming_it() {
        let at = ["--released-at", "2026-11-30T12:00:00Z"];
        let with = |extra: &[&'static str]| -> Vec<&'static str> {
            HUB.iter().chain(&at).chain(extra).copied().collect()
        };
        // A hub URL with a token and a release time: only the URL is in question.
        let at_hub = |url: &'static str| -> Vec<&'static str> {
            vec![
                "--hub-url",
                url,
                "--hub-token",
                "t",
                "--released-at",
                "2026-11-30T12:00:00Z",
            ]
        };
        let cases: Vec<Vec<&'static str>> = vec![
            vec!["--hub-token", "t", "--released-at", "2026-11-30T12:00:00Z"],
            vec![
                "--hub-url",
                "https://hub.example.edu",
                "--released-at",
                "2026-11-30T12:00:00Z",
            ],
            HUB.to_vec(),
            at_hub("https://hub.example.org"),
            at_hub("https://example.com/"),
            at_hub("https://h.corp.org:0"),
            at_hub("ftp://hub"),
            at_hub("http:///path"),
            at_hub("https:///x"),
            [&HUB[..], &["--released-at", "yesterday"]].concat(),
            with(&["--hub-size", "0"]),
            with(&["--values-path", ""]),
            with(&["--slow-stop-timeout", "0"]),
            with(&["--hub-timeout", "soon"]),
            with(&["--hub-timeout", "600000000weeks"]),
            with(&["--hub-timeout", "1h30"]),
            with(&["--fail-on", ""]),
            // Any value given empty on the command line is refused alike, before its check
            // and before a token's variable, a list of separators only too.
            with(&["--fail-on", ","]),
            with(&["--fail-on", " , "]),
            with(&["--kubeconfig", ""]),
            with(&["--kubeconfig", " "]),
            with(&["--fail-on", "mismatch", "--kubeconfig", ""]),
            with(&["--context", ""]),
            [&HUB[..], &["--released-at="]].concat(),
            with(&["--namespace="]),
            with(&["--helm-release="]),
            with(&["--github-token", ""]),
            with(&["--image", ""]),
            at_hub(""),
            vec![
                "--hub-url",
                "https://hub.example.edu",
                "--hub-token",
                "",
                "--released-at",
                "2026-11-30T12:00:00Z",
            ],
            with(&["--comment"]),
            with(&["--image", "ghcr.io/Org/Lab:latest"]),
            [&HUB[..], &["--image", "oci:examples/lab"]].concat(),
            [
                &HUB[..],
                &[
                    "--image",
                    "oci:examples/lab",
                    "--environment",
                    "jupyterhub-prod",
                ],
            ]
            .concat(),
            with(&["--image", "oci:examples/lab", "--comment"]),
            with(&["--environment", LONG_ENVIRONMENT]),
            [
                &HUB[..],
                &["--image", "oci:examples/lab", "--github-token", "ghs_t0k3n"],
            ]
            .concat(),
            with(&[&COMMENT[..], &["--repository", "x"]].concat()),
            with(
                &[
                    &COMMENT[..],
                    &["--repository", "o/r", "--tracking-labels", ""],
                ]
                .concat(),
            ),
            with(
                &[
                    &COMMENT[..],
                    &["--repository", "o/r", "--tracking-labels", " , "],
                ]
                .concat(),
            ),
        ];
        let shared = super::super::BAD_SHARED_OPTIONS.map(with);
        let table: Vec<String> = cases
            .iter()
            .chain(&shared)
            .map(|args| {
                let (input, message) = request(args).err().expect("an error");
                format!("{}\n  {input}: {message}", args.join(" "))
            })
            .collect();
        insta::assert_snapshot!(table.join("\n"));
    }

    #[test]
    fn a_release_time_after_the_runs_clock_is_refused() {
        let now = ["--now", "2026-11-30T12:00:00Z"];
        let (input, message) =
            request(&[&HUB[..], &now, &["--released-at", "2026-11-30T12:00:01Z"]].concat())
                .err()
                .expect("refused");
        assert_eq!(input, "released-at");
        insta::assert_snapshot!(message, @r#"
            released-at (--released-at) 2026-11-30T12:00:01Z is later than this run's clock (2026-11-30T12:00:00Z)
            help: give the time the release went live, which has passed, e.g. the time announce recorded in the release note
        "#);
        // The clock itself is fine.
        let r = request(&[&HUB[..], &now, &["--released-at", "2026-11-30T12:00:00Z"]].concat());
        assert!(r.is_ok());
    }

    #[test]
    fn times_outside_the_years_0000_to_9999_in_utc_are_refused_naming_the_input() {
        let at = ["--released-at", "2026-11-30T12:00:00Z"];
        let cases: [&[&str]; 7] = [
            &["--released-at", "9999-12-31T23:59:59-23:59"],
            &["--released-at", "1764504000"],
            &["--released-at", "0000-01-01T00:00:00+23:59"],
            &[&at[..], &["--now", "9999-12-31T23:59:59-23:59"]].concat(),
            &[&at[..], &["--now", "0000-01-01T00:00:00+00:01"]].concat(),
            &[&at[..], &["--now", "10000-01-01T00:00:00Z"]].concat(),
            &[&at[..], &["--now", "2026-11-30T25:00:00Z"]].concat(),
        ];
        let table: Vec<String> = cases
            .iter()
            .map(|args| {
                let (input, message) = request(&[&HUB[..], args].concat()).err().expect("refused");
                format!("{}\n  {input}: {message}", args.join(" "))
            })
            .collect();
        insta::assert_snapshot!(table.join("\n"), @r#"
            --released-at 9999-12-31T23:59:59-23:59
              released-at: released-at (--released-at) "9999-12-31T23:59:59-23:59" falls after 9999-12-31T23:59:59Z in UTC
            help: RFC 3339 writes the years 0000 to 9999: write e.g. 2026-11-30T12:00:00Z
            --released-at 1764504000
              released-at: released-at (--released-at) "1764504000" looks like Unix seconds, not an RFC 3339 time
            help: write that instant as RFC 3339 (date -u -d @1764504000 +%FT%TZ): 2025-11-30T12:00:00Z
            --released-at 0000-01-01T00:00:00+23:59
              released-at: released-at (--released-at) "0000-01-01T00:00:00+23:59" falls before 0000-01-01T00:00:00Z in UTC
            help: RFC 3339 writes the years 0000 to 9999: write e.g. 2026-11-30T12:00:00Z
            --released-at 2026-11-30T12:00:00Z --now 9999-12-31T23:59:59-23:59
              now: now (--now) "9999-12-31T23:59:59-23:59" falls after 9999-12-31T23:59:59Z in UTC
            help: RFC 3339 writes the years 0000 to 9999: write e.g. 2026-11-30T12:00:00Z
            --released-at 2026-11-30T12:00:00Z --now 0000-01-01T00:00:00+00:01
              now: now (--now) "0000-01-01T00:00:00+00:01" falls before 0000-01-01T00:00:00Z in UTC
            help: RFC 3339 writes the years 0000 to 9999: write e.g. 2026-11-30T12:00:00Z
            --released-at 2026-11-30T12:00:00Z --now 10000-01-01T00:00:00Z
              now: now (--now) "10000-01-01T00:00:00Z" has a year of more than four digits
            help: RFC 3339 writes the years 0000 to 9999: write e.g. 2026-11-30T12:00:00Z
            --released-at 2026-11-30T12:00:00Z --now 2026-11-30T25:00:00Z
              now: now (--now) "2026-11-30T25:00:00Z" is not an RFC 3339 time (hour must be in the range 0..=23)
            help: it is a date, T, a time, then Z or an offset such as +01:00: write e.g. 2026-11-30T12:00:00Z
        "#);
        // Taken in UTC: the offset is gone, the instant kept.
        let r = request(
            &[
                &HUB[..],
                &["--released-at", "0000-01-01T23:00:00+23:00"],
                &["--now", "9999-12-30T00:00:00-23:59"],
            ]
            .concat(),
        )
        .unwrap();
        assert_eq!(
            r.released_at,
            Some(time::macros::datetime!(0000-01-01 0:00 UTC))
        );
        assert_eq!(r.now, Some(time::macros::datetime!(9999-12-30 23:59 UTC)));
    }

    #[test]
    fn a_clock_whose_deadlines_end_on_the_calendars_last_minute_is_taken() {
        // The defaults' longest bound is 1h 10m (timeout 3600 s + every 600 s).
        let at = ["--released-at", "2026-11-30T12:00:00Z"];
        let now = |t: &'static str| [&HUB[..], &at, &["--now", t]].concat();
        assert!(request(&now("9999-12-31T22:49:59Z")).is_ok());
        let (input, _) = request(&now("9999-12-31T22:50:00Z")).err().expect("past");
        assert_eq!(input, "now");
    }

    #[test]
    fn with_released_at_and_no_comment_the_image_is_not_resolved() {
        let at = ["--released-at", "2026-11-30T12:00:00Z"];
        let image: Vec<&str> = "--image ghcr.io/org/lab:latest --github-token ghs_t0k3n"
            .split(' ')
            .collect();
        let r = request(&[&HUB[..], &at, &image].concat()).unwrap();
        // Nothing needs the digest: no registry, no GitHub.
        assert!(r.image.is_none() && r.github.is_none(), "image kept");
        // The comment needs it (its marker and the tracking issue).
        let r = request(
            &[
                &HUB[..],
                &at,
                &image,
                &["--comment", "--repository", "org/lab"],
            ]
            .concat(),
        )
        .unwrap();
        assert_matches!(r.image, Some((ImageSource::Registry(_), Some(_))));
        assert!(r.github.is_some() && r.released_at.is_some());
    }

    #[test]
    fn a_malformed_hub_timeout_and_one_under_a_second_are_refused_each_in_its_words() {
        let at = ["--released-at", "2026-11-30T12:00:00Z"];
        let table: Vec<String> = [
            "1.5", "1,5", "soon", "-5", "", "500ms", "0", "999ms", "6h 1ms", "1h30",
        ]
        .iter()
        .map(|given| {
            let (input, message) = request(&[&HUB[..], &at, &["--hub-timeout", given]].concat())
                .err()
                .unwrap_or_else(|| panic!("{given:?} refused"));
            assert_eq!(input, "hub-timeout", "{given}");
            message
        })
        .collect();
        insta::assert_snapshot!(table.join("\n"), @r#"
            hub-timeout (--hub-timeout) "1.5" is not a duration
            help: a number without a unit is whole seconds, so write 1.5s for 1.5 seconds (write seconds (30) or a duration such as 90s, 10m, 1h 30m)
            hub-timeout (--hub-timeout) "1,5" is not a duration (invalid character at 1)
            help: write seconds (30) or a duration such as 90s, 10m, 1h 30m
            hub-timeout (--hub-timeout) "soon" is not a duration (expected number at 0)
            help: write seconds (30) or a duration such as 90s, 10m, 1h 30m
            hub-timeout (--hub-timeout) "-5" has a minus sign
            help: durations take none: write seconds (30) or a duration such as 90s, 10m, 1h 30m
            hub-timeout (--hub-timeout) "" is empty
            help: an empty value is usually a shell variable that is not set: set it, or give --hub-timeout a value
            hub-timeout (--hub-timeout) "500ms" is shorter than 1s
            help: give 1s or more, e.g. 30
            hub-timeout (--hub-timeout) is 0
            help: give 1s or more, e.g. 30
            hub-timeout (--hub-timeout) "999ms" is shorter than 1s
            help: give 1s or more, e.g. 30
            hub-timeout (--hub-timeout) "6h 1ms" is longer than 6h
            help: give at most 6h, the longest a job on a GitHub-hosted runner runs
            hub-timeout (--hub-timeout) "1h30" is not a duration: a number has no unit
            help: write a unit after each number: s, m, h, d or w (sec, min, hours, days, weeks and ms work too), e.g. 1h30m; or write seconds (30) or a duration such as 90s, 10m, 1h 30m
        "#);
        for fine in ["1s", "1", "1.5s", "1500ms", "30 s", "2m", "6h", "21600"] {
            assert!(
                request(&[&HUB[..], &at, &["--hub-timeout", fine]].concat()).is_ok(),
                "{fine}"
            );
        }
    }

    #[test]
    fn a_hub_url_that_is_a_page_of_the_hub_is_refused_naming_the_base() {
        let rest = [
            "--hub-token",
            "hub-token-1",
            "--released-at",
            "2026-11-30T12:00:00Z",
        ];
        let table: Vec<String> = [
            "https://hub.example.edu/hub/api",
            "https://hub.example.edu/hub/api/",
            "https://hub.example.edu/hub/api/users",
            "https://hub.example.edu/hub/",
            "https://example.edu/jupyter/hub/api/users",
            "https://hub.example.edu/hub/home",
            "https://example.edu/jupyter/user/alice/lab",
        ]
        .iter()
        .map(|given| {
            let (input, message) = request(&[&["--hub-url", given][..], &rest].concat())
                .err()
                .expect("refused");
            assert_eq!(input, "hub-url", "{given}");
            message
        })
        .collect();
        insta::assert_snapshot!(table.join("\n"), @r#"
            hub-url (--hub-url) "https://hub.example.edu/hub/api" is a page of the hub (/hub/… or /user/…), not the hub's address
            help: give the address without /hub/ or /user/ and what follows, here https://hub.example.edu (codeq-rollout adds the paths it needs itself: status /hub/api/users, the runbook /hub/admin)
            hub-url (--hub-url) "https://hub.example.edu/hub/api/" is a page of the hub (/hub/… or /user/…), not the hub's address
            help: give the address without /hub/ or /user/ and what follows, here https://hub.example.edu (codeq-rollout adds the paths it needs itself: status /hub/api/users, the runbook /hub/admin)
            hub-url (--hub-url) "https://hub.example.edu/hub/api/users" is a page of the hub (/hub/… or /user/…), not the hub's address
            help: give the address without /hub/ or /user/ and what follows, here https://hub.example.edu (codeq-rollout adds the paths it needs itself: status /hub/api/users, the runbook /hub/admin)
            hub-url (--hub-url) "https://hub.example.edu/hub/" is a page of the hub (/hub/… or /user/…), not the hub's address
            help: give the address without /hub/ or /user/ and what follows, here https://hub.example.edu (codeq-rollout adds the paths it needs itself: status /hub/api/users, the runbook /hub/admin)
            hub-url (--hub-url) "https://example.edu/jupyter/hub/api/users" is a page of the hub (/hub/… or /user/…), not the hub's address
            help: give the address without /hub/ or /user/ and what follows, here https://example.edu/jupyter (codeq-rollout adds the paths it needs itself: status /hub/api/users, the runbook /hub/admin)
            hub-url (--hub-url) "https://hub.example.edu/hub/home" is a page of the hub (/hub/… or /user/…), not the hub's address
            help: give the address without /hub/ or /user/ and what follows, here https://hub.example.edu (codeq-rollout adds the paths it needs itself: status /hub/api/users, the runbook /hub/admin)
            hub-url (--hub-url) "https://example.edu/jupyter/user/alice/lab" is a page of the hub (/hub/… or /user/…), not the hub's address
            help: give the address without /hub/ or /user/ and what follows, here https://example.edu/jupyter (codeq-rollout adds the paths it needs itself: status /hub/api/users, the runbook /hub/admin)
        "#);
        for fine in [
            "https://hub.example.edu/hubs",
            "https://example.edu/jupyter",
        ] {
            assert!(request(&[&["--hub-url", fine][..], &rest].concat()).is_ok());
        }
    }

    #[test]
    fn a_hub_url_on_a_name_reserved_for_examples_is_refused_in_any_spelling() {
        let rest = [
            "--hub-token",
            "hub-token-1",
            "--released-at",
            "2026-11-30T12:00:00Z",
        ];
        for placeholder in [
            "https://hub.example.org",
            "HTTPS://HUB.EXAMPLE.ORG",
            "https://Hub.Example.Org:443/",
            "https://hub.example.org/jupyter",
            "https://example.com",
            "http://hub.example:8000",
        ] {
            let (input, message) = request(&[&["--hub-url", placeholder][..], &rest].concat())
                .err()
                .expect("refused");
            assert_eq!(input, "hub-url", "{placeholder}");
            assert!(message.contains("a placeholder"), "{message}");
        }
        // A name merely like them is a hub.
        for hub in ["https://example.edu", "https://myexample.com"] {
            assert!(request(&[&["--hub-url", hub][..], &rest].concat()).is_ok());
        }
    }

    #[test]
    fn tracking_labels_are_checked_only_when_the_tracking_issue_is_looked_up() {
        // No labels, as the Action's `tracking-labels: ","` gives (the command line's `,` is
        // refused as empty by its parser).
        let request = |args: &[&str]| {
            let cli = Cli::try_parse_from(["x", "status"].iter().chain(args)).unwrap();
            let Command::Status(mut args) = cli.command else {
                unreachable!()
            };
            args.tracking_labels = crate::cli::List::default();
            let log = Log::new(false, false);
            status_request(&args, &log, &HashMap::new()).map_err(|e| e.to_string())
        };
        let at = ["--released-at", "2026-11-30T12:00:00Z"];
        // Unused: neither image nor comment.
        assert!(request(&[&HUB[..], &at].concat()).is_ok());
        // Unused: the image is not resolved without the comment.
        let image = ["--image", "oci:examples/lab", "--github-token", "ghs_t0k3n"];
        assert!(request(&[&HUB[..], &at, &image].concat()).is_ok());
        // Used: the release note and the tracking issue are looked up by the image.
        let refused = request(&[&HUB[..], &image, &["--repository", "o/r"]].concat());
        assert!(
            refused
                .err()
                .unwrap()
                .starts_with("tracking-labels is empty")
        );
    }

    #[test]
    fn registry_credentials_reach_the_image_look_up_and_are_checked_as_announces() {
        let by_image = [
            "--image",
            "registry.example.edu/org/lab:latest",
            "--github-token",
            "ghs_t0k3n",
            "--repository",
            "org/lab",
            "--registry-timeout",
            "2m",
        ];
        // A password pasted with a line break is taken trimmed, as the tokens are
        // (`inputs::secret`): sent, and masked as Basic credentials, without it.
        let creds = [
            "--registry-username",
            "ci",
            "--registry-password",
            "pw-1-long\n",
        ];
        let r = request(&[&HUB[..], &by_image, &creds].concat()).unwrap();
        let Some((ImageSource::Registry(_), Some(registry))) = r.image else {
            panic!("no registry options");
        };
        let credentials = registry.credentials.expect("the credentials given");
        assert_eq!(credentials.username, "ci");
        assert_eq!(credentials.password.expose_secret(), "pw-1-long");
        assert_eq!(
            registry.retry.deadline,
            Some(std::time::Duration::from_secs(120))
        );
        // Registered before parsing (`mask_secret_inputs`): alone and as the Basic
        // header's base64.
        let argv: Vec<std::ffi::OsString> = (["codeq-rollout", "status"].iter())
            .chain(&[&HUB[..], &by_image, &creds].concat())
            .map(Into::into)
            .collect();
        let log = Log::new(false, false);
        crate::cli::mask_secret_inputs(&log, &argv);
        use base64::Engine as _;
        let basic = base64::engine::general_purpose::STANDARD.encode("ci:pw-1-long");
        assert_eq!(log.redact(&format!("pw-1-long {basic}")), "*** ***");
        // One of the two alone is refused, naming the other, as `announce` does.
        let (input, message) = request(&[&HUB[..], &by_image, &creds[..2]].concat())
            .err()
            .expect("refused");
        assert_eq!(input, "registry-password");
        insta::assert_snapshot!(message, @r#"
            registry-username is set but registry-password is empty
            help: set both, or neither for anonymous access
        "#);
        // A password of any length is taken (htpasswd registries take any; issue 32): one
        // this short is hidden only where a server echoes it as a whole word, its Basic
        // form everywhere (`Secrets::add`).
        let short = ["--registry-username", "ci", "--registry-password", "db"];
        let r = request(&[&HUB[..], &by_image, &short].concat()).unwrap();
        let Some((_, Some(registry))) = r.image else {
            panic!("no registry options");
        };
        assert_eq!(registry.credentials.unwrap().password.expose_secret(), "db");
        // A control character inside is refused, as in a token.
        let broken = [
            "--registry-username",
            "ci",
            "--registry-password",
            "pw\n1-long",
        ];
        let (input, message) = request(&[&HUB[..], &by_image, &broken].concat())
            .err()
            .expect("refused");
        assert_eq!(input, "registry-password");
        insta::assert_snapshot!(message, @r#"
            registry-password (--registry-password) holds a line break or other control character inside it
            help: paste the password again, as one line with nothing around it (it is never shown)
        "#);
        let token = ["--github-token", " a "];
        let (input, message) = request(&[&HUB[..], &by_image[..2], &token].concat())
            .err()
            .expect("refused");
        assert_eq!(input, "github-token");
        insta::assert_snapshot!(message, @r#"
            github-token (--github-token) is too short for a GitHub token (1 of at least 8 characters)
            help: GitHub's tokens have 40 characters or more: give the whole token (it is never printed)
        "#);
    }

    #[test]
    fn credentials_in_the_hub_url_are_never_echoed() {
        let (input, message) = request(&[
            "--hub-url",
            "https://alice:s3cret@hub.example.edu/jupyter",
            "--hub-token",
            "t",
            "--released-at",
            "2026-11-30T12:00:00Z",
        ])
        .err()
        .expect("refused");
        assert_eq!(input, "hub-url");
        assert!(
            !message.contains("s3cret") && !message.contains("alice"),
            "{message}"
        );
        assert!(
            message.contains("https://***@hub.example.edu/jupyter"),
            "{message}"
        );
    }

    #[test]
    fn a_token_with_anything_but_printable_ascii_is_refused_and_never_shown() {
        let at = ["--released-at", "2026-11-30T12:00:00Z"];
        let url = ["--hub-url", "https://hub.example.edu"];
        let by_image = ["--image", "oci:examples/lab", "--repository", "o/r"];
        let secret = "0123456789abcdef0123456789abcdef";
        let bad: Vec<(String, &str)> = [
            ("\u{200b}", "zero-width space before it"),
            ("\u{a0}", "no-break space before it"),
            ("\u{e9}", "\u{e9} inside it"),
            ("\t", "tab inside it"),
            (" ", "space inside it"),
        ]
        .iter()
        .map(|(c, what)| {
            let token = if what.ends_with("before it") {
                format!("{c}{secret}")
            } else {
                format!("{}{c}{}", &secret[..16], &secret[16..])
            };
            (token, *what)
        })
        .collect();
        let mut table = Vec::new();
        for (token, what) in &bad {
            let hub = request(&[&url[..], &at, &["--hub-token", token]].concat());
            let github = request(
                &[
                    &HUB[..],
                    &by_image,
                    &["--comment", "--github-token", token.as_str()],
                ]
                .concat(),
            );
            for (input, result) in [("hub-token", hub), ("github-token", github)] {
                let (named, message) = result.err().expect("refused");
                assert_eq!(named, input, "{what}");
                assert!(!message.contains(&secret[..16]), "{message}");
                table.push(format!("{input}, {what}:\n  {message}"));
            }
        }
        // ASCII whitespace around it is trimmed, as for every input.
        let r = request(&[&url[..], &at, &["--hub-token", &format!(" {secret}\r\n")]].concat());
        assert!(r.is_ok());
        let r = request(
            &[
                &HUB[..],
                &by_image,
                &["--github-token", &format!("\t{secret} ")],
            ]
            .concat(),
        );
        assert!(r.unwrap().github.is_some());
        insta::assert_snapshot!(table.join("\n"));
    }

    #[test]
    fn a_hub_token_shorter_than_jupyterhubs_minimum_is_refused() {
        let at = ["--released-at", "2026-11-30T12:00:00Z"];
        let url = ["--hub-url", "https://hub.example.edu"];
        for short in ["t", "abc", "1234567", " 1234567 "] {
            let (input, message) = request(&[&url[..], &at, &["--hub-token", short]].concat())
                .err()
                .expect("refused");
            assert_eq!(input, "hub-token", "{short:?}");
            let chars = short.trim().len();
            assert_eq!(
                message,
                format!(
                    "hub-token (--hub-token) is too short for a hub API token ({chars} of at least 8 characters)\nhelp: JupyterHub refuses shorter ones, and the ones it makes have 32: give the whole token, e.g. from `jupyterhub token` or the hub's token page"
                )
            );
        }
        assert!(request(&[&url[..], &at, &["--hub-token", "12345678"]].concat()).is_ok());
    }

    #[test]
    fn the_help_of_status_gives_its_own_hub_size_default() {
        use clap::CommandFactory;
        let mut cli = Cli::command();
        let help = cli
            .find_subcommand_mut("status")
            .expect("status")
            .render_help()
            .to_string();
        let hub_size: String = help
            .split("--hub-size")
            .nth(1)
            .and_then(|rest| rest.split("\n      --").next())
            .expect("--hub-size is listed")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        assert!(
            hub_size.contains("[default: the servers running now]")
                && !hub_size.contains("the window")
                && !hub_size.contains("none, only the usual bound"),
            "{hub_size}"
        );
    }
}
