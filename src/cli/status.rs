//! `status`'s options into a [`StatusRequest`]: every input checked before the hub is asked,
//! so bad input changes nothing and sends nothing.

use super::inputs::{self, given};
use super::{StatusArgs, UsageError, required, usage};
use crate::digest::ImageSource;
use crate::digest::registry::{RegistryOptions, RetryPolicy};
use crate::publish;
use crate::status::hub::HubClient;
use crate::status::run::StatusRequest;
use crate::support::github::{self, GitHub};
use crate::support::log::Log;
use crate::tier::split_list;
use anyhow::Result;
use secrecy::{ExposeSecret, SecretString};
use std::collections::HashMap;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// `hub-url`'s default in action.yml and for `announce`'s runbook: never a hub to read.
const PLACEHOLDER_HUB_URL: &str = "https://hub.example.org";

/// The `status` request: the hub token registered with `log` first, then every input
/// validated.
///
/// # Errors
/// Bad input, as [`UsageError`] naming the input (exit code 2); an unreadable or malformed
/// values file (exit code 1).
pub fn status_request(
    args: &StatusArgs,
    log: &Log,
    env: &HashMap<String, String>,
) -> Result<StatusRequest> {
    if let Some(token) = &args.hub_token {
        log.mask(token);
    }
    if let Some(token) = &args.github.github_token {
        log.mask(token.expose_secret());
        log.mask_basic("x-access-token", token.expose_secret().trim());
    }
    let hub_url = inputs::hub_url(required(
        args.hub_url.as_deref(),
        "hub-url",
        "the hub's address, e.g. https://hub.example.org",
    )?)?;
    if hub_url == PLACEHOLDER_HUB_URL {
        // action.yml's default, there for the runbook of `announce`.
        return Err(UsageError::new(
            "hub-url",
            format!(
                "hub-url is {PLACEHOLDER_HUB_URL}, the placeholder: set hub-url (--hub-url) to your hub's address"
            ),
        )
        .into());
    }
    let token = required(
        args.hub_token.as_deref(),
        "hub-token",
        "a hub API token with scopes list:users and read:servers (see README: the role to create)",
    )?;
    let token = SecretString::from(token.to_string());
    let released_at = given(&args.released_at)
        .map(|t| time_input(t, "released-at"))
        .transpose()?;
    let image = given(&args.image)
        .map(|i| ImageSource::parse(i).map_err(usage("image")))
        .transpose()?;
    if released_at.is_none() && image.is_none() {
        return Err(UsageError::new(
            "released-at",
            "say which release to measure: set image (--image; the release note announce wrote for its digest gives the time) or released-at (--released-at, RFC 3339)",
        )
        .into());
    }
    if args.comment && image.is_none() {
        return Err(UsageError::new(
            "image",
            "comment needs image (--image): its digest finds the tracking issue",
        )
        .into());
    }
    let tracking_labels = split_list(&args.tracking_labels);
    publish::check_tracking_labels(&tracking_labels).map_err(usage("tracking-labels"))?;
    let github = match (&image, released_at.is_none() || args.comment) {
        (Some(_), true) => Some(github_client(args, env)?),
        _ => None,
    };
    let registry = match &image {
        Some(ImageSource::Registry(_)) => Some(RegistryOptions {
            credentials: None,
            github_token: args.github.token().map(SecretString::from),
            insecure: inputs::insecure_registries(&args.insecure_registry),
            retry: RetryPolicy::registry(),
            timer: None,
        }),
        _ => None,
    };
    let now = args
        .now
        .as_deref()
        .map(|t| time_input(t, "now"))
        .transpose()?;
    let configured = args.culler.settings(log)?;
    let culler = configured.settings;
    let hub_size = configured.scale.servers;
    let slow_stop_timeout_secs = configured.scale.slow_stop_timeout_secs;
    let timeout = crate::support::duration::parse(args.hub_timeout.trim())
        .ok()
        .filter(|t| !t.is_zero())
        .ok_or_else(|| {
            UsageError::new(
                "hub-timeout",
                format!(
                    "hub-timeout (--hub-timeout) {:?} is not a duration of 1 s or more: write seconds (30) or e.g. 30s, 1m",
                    args.hub_timeout.trim()
                ),
            )
        })?;
    let hub = HubClient::new(&hub_url, &token, timeout).map_err(|e| {
        let input = match e {
            crate::status::hub::HubError::InvalidToken => "hub-token",
            _ => "hub-url",
        };
        UsageError::new(input, e.to_string())
    })?;
    Ok(StatusRequest {
        hub,
        hub_url,
        released_at,
        image: image.map(|source| (source, registry)),
        github,
        tracking_labels,
        comment: args.comment,
        culler,
        hub_size,
        slow_stop_timeout_secs,
        json: args.json,
        include_names: args.include_names,
        now,
    })
}

/// An RFC 3339 time input.
fn time_input(text: &str, input: &str) -> Result<OffsetDateTime, UsageError> {
    OffsetDateTime::parse(text.trim(), &Rfc3339).map_err(|e| {
        UsageError::new(
            input,
            format!(
                "{input} (--{input}) {:?} is not an RFC 3339 time ({e}): write e.g. 2026-11-30T12:00:00Z",
                text.trim()
            ),
        )
    })
}

/// The GitHub client for the release note and the tracking issue: the token, and the
/// repository from `--repository` or `GITHUB_REPOSITORY`.
fn github_client(args: &StatusArgs, env: &HashMap<String, String>) -> Result<GitHub> {
    let ctx = args.github.run_context(&None, env)?;
    let token = args.github.token().ok_or_else(|| {
        UsageError::new(
            "github-token",
            "no GitHub token: with image and without released-at (or with comment), status reads the release note (and writes the comment): set github-token (default ${{ github.token }}) or --github-token",
        )
    })?;
    let repo = ctx.repository.ok_or_else(|| {
        UsageError::new(
            "repository",
            "no repository: set --repository OWNER/REPO (GITHUB_REPOSITORY outside Actions)",
        )
    })?;
    Ok(GitHub::with_options(
        &ctx.api_url,
        &SecretString::from(token),
        repo,
        github::Options::default(),
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Cli, Command};
    use clap::Parser;

    /// The request `args` (after `status`) give, or the error's input and text.
    fn request(args: &[&str]) -> Result<StatusRequest, (String, String)> {
        let cli = Cli::try_parse_from(["codeq-rollout", "status"].iter().chain(args))
            .map_err(|e| ("clap".to_string(), e.to_string()))?;
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
        assert_eq!((r.hub_size, r.slow_stop_timeout_secs), (None, 10));
        assert_eq!(r.culler, crate::window::CullSettings::default());

        let r = request(
            &[
                &HUB[..],
                &[
                    "--image",
                    "oci:examples/lab",
                    "--github-token",
                    "ghs_x",
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
        assert!(r.released_at.is_none() && r.github.is_some() && r.comment && r.json);
        assert!(matches!(r.image, Some((ImageSource::Layout { .. }, None))));
        assert_eq!((r.hub_size, r.slow_stop_timeout_secs), (Some(300), 30));
        assert_eq!(r.culler.timeout_secs, 7200);
    }

    /// The options of a comment by image, with a GitHub token.
    const COMMENT: [&str; 5] = [
        "--image",
        "oci:examples/lab",
        "--comment",
        "--github-token",
        "t",
    ];

    #[test]
    fn every_bad_input_is_a_usage_error_naming_it() {
        let at = ["--released-at", "2026-11-30T12:00:00Z"];
        let with = |extra: &[&'static str]| -> Vec<&'static str> {
            HUB.iter().chain(&at).chain(extra).copied().collect()
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
            vec![
                "--hub-url",
                "https://hub.example.org",
                "--hub-token",
                "t",
                "--released-at",
                "2026-11-30T12:00:00Z",
            ],
            vec![
                "--hub-url",
                "ftp://hub",
                "--hub-token",
                "t",
                "--released-at",
                "2026-11-30T12:00:00Z",
            ],
            [&HUB[..], &["--released-at", "yesterday"]].concat(),
            with(&["--hub-size", "0"]),
            with(&["--slow-stop-timeout", "0"]),
            with(&["--hub-timeout", "soon"]),
            with(&["--cull-timeout", "soon"]),
            with(&["--comment"]),
            with(&["--image", "ghcr.io/Org/Lab:latest"]),
            [&HUB[..], &["--image", "oci:examples/lab"]].concat(),
            [
                &HUB[..],
                &["--image", "oci:examples/lab", "--github-token", "t"],
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
        ];
        let table: Vec<String> = cases
            .iter()
            .map(|args| {
                let (input, message) = request(args).err().expect("an error");
                format!("{}\n  {input}: {message}", args.join(" "))
            })
            .collect();
        insta::assert_snapshot!(table.join("\n"));
    }
}
