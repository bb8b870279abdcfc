//! Stage 0: the run's context from the environment GitHub Actions sets up.
//!
//! Variables (GitHub's "Variables reference"): `GITHUB_REPOSITORY` (`owner/repo`),
//! `GITHUB_SHA`, `GITHUB_EVENT_NAME`, `GITHUB_EVENT_PATH`, `GITHUB_API_URL`,
//! `GITHUB_SERVER_URL`, `GITHUB_RUN_ID`, `GITHUB_RUN_ATTEMPT`. Explicit options win over them.

use crate::event::{self, EventPayload};
use crate::support::files::{self, ReadError};
use crate::support::github::RepositoryError;
use anyhow::{Context as _, Result};
use std::collections::HashMap;

/// The default API base when `GITHUB_API_URL` is unset.
pub(crate) const DEFAULT_API_URL: &str = "https://api.github.com";
/// The default web base when `GITHUB_SERVER_URL` is unset.
pub(crate) const DEFAULT_SERVER_URL: &str = "https://github.com";

pub use crate::support::github::Repository;

/// A commit SHA an input gave: 40 hex digits, lower-case ([`commit_sha`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CommitSha(pub(crate) String);

impl CommitSha {
    /// `text` as a commit SHA ([`commit_sha`]).
    ///
    /// # Errors
    /// Those of [`commit_sha`].
    pub(crate) fn parse(text: &str) -> Result<Self, ContextError> {
        commit_sha(text).map(Self)
    }
}

/// Why the run's context was not read from the environment, as data. Its words are the
/// render layer's (`crate::render::help::event`).
#[derive(Debug)]
pub(crate) enum ContextError {
    /// `GITHUB_REPOSITORY` (this value) breaks one of GitHub's naming rules.
    Repository(String, RepositoryError),
    /// `GITHUB_SHA` (this value, trimmed and lower-cased) is not 40 hex digits.
    Sha(String),
    /// The event payload at `GITHUB_EVENT_PATH` (this path) was not read: not a regular
    /// file, or over GitHub's cap ([`event::MAX_PAYLOAD_BYTES`]).
    Event(String, ReadError),
}

impl std::error::Error for ContextError {}

/// A commit SHA, trimmed and lower-cased.
///
/// # Errors
/// [`ContextError::Sha`]: anything but 40 hex digits.
pub(crate) fn commit_sha(text: &str) -> Result<String, ContextError> {
    let sha = text.trim().to_ascii_lowercase();
    if sha.len() != 40 || !sha.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(ContextError::Sha(sha));
    }
    Ok(sha)
}

/// The run's context, resolved from options and environment.
#[derive(Debug, Clone)]
pub(crate) struct RunContext {
    /// The repository releases and issues go to; `None` only in a dry run outside Actions.
    pub(crate) repository: Option<Repository>,
    /// The repository the event came from, where its pull requests and commits are looked
    /// up: `GITHUB_REPOSITORY`, else the payload's `repository.full_name`, else
    /// [`RunContext::repository`]. It differs from `repository` when the `repository` input
    /// sends releases elsewhere.
    pub(crate) event_repository: Option<Repository>,
    /// The commit the release targets (40 hex); `None` only in a dry run outside Actions.
    pub(crate) sha: Option<String>,
    /// `GITHUB_EVENT_NAME`, e.g. `push`; empty outside Actions.
    pub(crate) event_name: String,
    /// The parsed payload of `GITHUB_EVENT_PATH` (default when unset).
    pub(crate) event: EventPayload,
    /// The REST API base, e.g. `https://api.github.com` or `https://ghe.example/api/v3`.
    pub(crate) api_url: String,
    /// The web base, e.g. `https://github.com`: links are built from it (GHES works).
    pub(crate) server_url: String,
    /// The workflow run's address, when `GITHUB_RUN_ID` is set.
    pub(crate) run_url: Option<String>,
}

/// Options that override the environment, each checked by its value parser.
#[derive(Debug, Clone, Default)]
pub(crate) struct Overrides {
    /// `--repository`.
    pub(crate) repository: Option<Repository>,
    /// `--sha`.
    pub(crate) sha: Option<CommitSha>,
    /// `--api-url`, as given (trimmed, without a trailing `/`).
    pub(crate) api_url: Option<crate::support::url::HttpUrl>,
}

impl RunContext {
    /// Builds the context from `overrides` and the environment `env` (a snapshot of
    /// variables, so tests need not touch the process environment).
    ///
    /// # Errors
    /// A malformed repository or SHA, or an unreadable or malformed event file (the error
    /// names the path).
    pub(crate) fn resolve(overrides: &Overrides, env: &HashMap<String, String>) -> Result<Self> {
        let var = |k: &str| {
            env.get(k)
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
        };
        // Where the event came from; releases go there too unless `--repository` says else.
        let github_repository = var("GITHUB_REPOSITORY")
            .map(|r| Repository::parse(&r).map_err(|why| ContextError::Repository(r, why)))
            .transpose()?;
        let repository = (overrides.repository.clone()).or_else(|| github_repository.clone());
        let sha = match &overrides.sha {
            Some(sha) => Some(sha.0.clone()),
            None => var("GITHUB_SHA").map(|s| commit_sha(&s)).transpose()?,
        };
        let event = match var("GITHUB_EVENT_PATH") {
            Some(path) => {
                let bytes =
                    files::read_bytes(std::path::Path::new(&path), event::MAX_PAYLOAD_BYTES)
                        .map_err(|e| ContextError::Event(path.clone(), e))?;
                event::parse(&bytes).with_context(|| format!("in {path}"))?
            }
            None => EventPayload::default(),
        };
        let event_repository = github_repository.or_else(|| {
            (event.repository.as_ref())
                .and_then(|r| Repository::parse(&r.full_name).ok())
                .or_else(|| repository.clone())
        });
        let api_url = (overrides.api_url.as_ref())
            .map(|url| url.as_str().to_string())
            .or_else(|| var("GITHUB_API_URL"))
            .unwrap_or_else(|| DEFAULT_API_URL.into())
            .trim_end_matches('/')
            .to_string();
        let server_url = var("GITHUB_SERVER_URL")
            .unwrap_or_else(|| DEFAULT_SERVER_URL.into())
            .trim_end_matches('/')
            .to_string();
        let run_url = match (&repository, var("GITHUB_RUN_ID")) {
            (Some(repo), Some(id)) => {
                let attempt = var("GITHUB_RUN_ATTEMPT")
                    .map(|a| format!("/attempts/{a}"))
                    .unwrap_or_default();
                Some(format!("{server_url}/{repo}/actions/runs/{id}{attempt}"))
            }
            _ => None,
        };
        let event_name = var("GITHUB_EVENT_NAME").unwrap_or_default();
        event.check_event(&event_name)?;
        Ok(Self {
            repository,
            event_repository,
            sha,
            event_name,
            event,
            api_url,
            server_url,
            run_url,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    /// `GITHUB_EVENT_PATH` naming an endless device, a FIFO (never opened: opening it would
    /// wait for a writer), a directory or a file over GitHub's cap: an error at once, naming
    /// the path.
    #[test]
    fn an_event_path_that_is_not_a_bounded_regular_file_is_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("event.json");
        crate::support::files::make_fifo(&fifo);
        let big = dir.path().join("big.json");
        let file = std::fs::File::create(&big).unwrap();
        file.set_len(event::MAX_PAYLOAD_BYTES + 1).unwrap();
        let dir_path = dir.path().display().to_string();
        let errors: Vec<String> = [
            "/dev/zero".to_string(),
            fifo.display().to_string(),
            dir_path.clone(),
            big.display().to_string(),
        ]
        .iter()
        .map(|path| {
            let err =
                RunContext::resolve(&Overrides::default(), &env(&[("GITHUB_EVENT_PATH", path)]))
                    .unwrap_err();
            format!("{err:#}").replace(&dir_path, "[dir]")
        })
        .collect();
        insta::assert_snapshot!(errors.join("\n"));
    }

    #[test]
    fn links_come_from_the_server_url() {
        let ctx = RunContext::resolve(
            &Overrides::default(),
            &env(&[
                ("GITHUB_REPOSITORY", "org/lab"),
                ("GITHUB_SERVER_URL", "https://ghe.example/"),
                ("GITHUB_API_URL", "https://ghe.example/api/v3"),
                ("GITHUB_RUN_ID", "42"),
                ("GITHUB_RUN_ATTEMPT", "2"),
            ]),
        )
        .unwrap();
        assert_eq!(
            ctx.run_url.as_deref(),
            Some("https://ghe.example/org/lab/actions/runs/42/attempts/2")
        );
        assert_eq!(ctx.api_url, "https://ghe.example/api/v3");
    }

    #[test]
    fn pull_requests_are_read_where_the_event_came_from() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("event.json");
        std::fs::write(&path, br#"{"repository": {"full_name": "org/source"}}"#).unwrap();
        let path = path.display().to_string();
        let releases_elsewhere = Overrides {
            repository: Some(Repository::parse("org/releases").unwrap()),
            ..Default::default()
        };
        let ctx = RunContext::resolve(
            &releases_elsewhere,
            &env(&[
                ("GITHUB_REPOSITORY", "org/lab"),
                ("GITHUB_EVENT_PATH", &path),
            ]),
        )
        .unwrap();
        assert_eq!(ctx.repository.unwrap().to_string(), "org/releases");
        assert_eq!(ctx.event_repository.unwrap().to_string(), "org/lab");
        let ctx = RunContext::resolve(&releases_elsewhere, &env(&[("GITHUB_EVENT_PATH", &path)]))
            .unwrap();
        assert_eq!(ctx.event_repository.unwrap().to_string(), "org/source");
        let ctx = RunContext::resolve(&releases_elsewhere, &env(&[])).unwrap();
        assert_eq!(ctx.event_repository.unwrap().to_string(), "org/releases");
    }

    #[test]
    fn bad_repository_and_sha_are_refused() {
        assert!(Repository::parse("noslash").is_err());
        assert!(Repository::parse("a/b/c").is_err());
        let err =
            RunContext::resolve(&Overrides::default(), &env(&[("GITHUB_SHA", "xyz")])).unwrap_err();
        assert_matches::assert_matches!(err.downcast_ref(), Some(ContextError::Sha(sha)) if sha == "xyz");
    }
}
