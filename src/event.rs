//! Parsing the webhook event payload at `$GITHUB_EVENT_PATH` (pure: bytes in, struct out).
//!
//! Only the fields codeq-rollout reads are modelled; everything is optional so that any
//! event parses, and the event name (`$GITHUB_EVENT_NAME`) says which fields matter.
//! Payload shapes: GitHub's "Webhook events and payloads" reference.

use anyhow::{Context, Result};
use serde::Deserialize;

/// The subset of an event payload that tier resolution reads.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
pub struct EventPayload {
    /// `pull_request` events: the pull request.
    #[serde(default)]
    pub pull_request: Option<PayloadPullRequest>,
    /// `push` events: the pushed commit's SHA.
    #[serde(default)]
    pub after: Option<String>,
    /// `push` events: the commits pushed (at most 2048 in a payload).
    #[serde(default)]
    pub commits: Vec<PayloadCommit>,
    /// `push` events: the newest commit.
    #[serde(default)]
    pub head_commit: Option<PayloadCommit>,
    /// `workflow_run` events: the run that triggered this one.
    #[serde(default)]
    pub workflow_run: Option<PayloadWorkflowRun>,
    /// `workflow_dispatch` events: the inputs given.
    #[serde(default)]
    pub inputs: Option<serde_json::Map<String, serde_json::Value>>,
}

/// A pull request as the payload carries it.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
pub struct PayloadPullRequest {
    /// The PR number.
    pub number: u64,
    /// The title (untrusted).
    #[serde(default)]
    pub title: String,
    /// The web address.
    #[serde(default)]
    pub html_url: String,
    /// Whether it was merged.
    #[serde(default)]
    pub merged: Option<bool>,
    /// The merge (or squash) commit SHA, once merged.
    #[serde(default)]
    pub merge_commit_sha: Option<String>,
    /// Labels at the time of the event.
    #[serde(default)]
    pub labels: Vec<PayloadLabel>,
    /// The base branch.
    #[serde(default)]
    pub base: Option<PayloadRef>,
}

/// A label.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
pub struct PayloadLabel {
    /// The label's name (untrusted).
    pub name: String,
}

/// A branch reference.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
pub struct PayloadRef {
    /// The branch name, e.g. `main`.
    #[serde(rename = "ref", default)]
    pub name: String,
}

/// A commit in a push payload.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
pub struct PayloadCommit {
    /// The commit SHA (40 hex).
    #[serde(default)]
    pub id: String,
    /// The commit message (untrusted).
    #[serde(default)]
    pub message: String,
}

/// A workflow run in a `workflow_run` payload.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
pub struct PayloadWorkflowRun {
    /// The commit the run built.
    #[serde(default)]
    pub head_sha: String,
}

/// Parses a payload.
///
/// # Errors
/// Malformed JSON or a field of the wrong type; the error says where (line and column).
pub fn parse(bytes: &[u8]) -> Result<EventPayload> {
    serde_json::from_slice(bytes).context("the event payload is not a valid GitHub event")
}

impl PayloadPullRequest {
    /// The PR as tier resolution sees it.
    pub fn to_pull_request(&self) -> crate::tier::PullRequest {
        crate::tier::PullRequest {
            number: self.number,
            title: self.title.clone(),
            url: self.html_url.clone(),
            labels: self.labels.iter().map(|l| l.name.clone()).collect(),
        }
    }
}
