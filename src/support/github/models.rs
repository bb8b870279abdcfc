//! The fields codeq-rollout reads from GitHub's REST responses, and the bodies it sends.
//! Unknown fields are ignored and most are optional, so payload changes do not break a run.

use serde::{Deserialize, Serialize};

/// A release (`GET /repos/{o}/{r}/releases`).
#[derive(Debug, Clone, Deserialize, PartialEq)]
pub(crate) struct Release {
    /// The release id.
    pub(crate) id: u64,
    /// The tag name, e.g. `lab-9f86d081884c`.
    pub(crate) tag_name: String,
    /// The web address.
    #[serde(default)]
    pub(crate) html_url: String,
    /// The body (Markdown); `None` when empty.
    pub(crate) body: Option<String>,
    /// The commit (or branch) the tag was created from.
    #[serde(default)]
    pub(crate) target_commitish: String,
    /// When it was published (RFC 3339); `None` for drafts.
    pub(crate) published_at: Option<String>,
    /// The title; `None` when GitHub shows the tag instead.
    pub(crate) name: Option<String>,
}

/// The body of `POST /repos/{o}/{r}/releases`.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct NewRelease {
    /// The tag to create (or use): derived from the digest only.
    pub tag_name: String,
    /// The commit the tag points to when it is created.
    pub target_commitish: String,
    /// The title.
    pub name: String,
    /// The release note.
    pub body: String,
    /// Always `false`: releases are published.
    pub draft: bool,
    /// Always `false`.
    pub prerelease: bool,
}

/// A label on an issue or pull request.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
pub(crate) struct Label {
    /// The label's name.
    pub(crate) name: String,
}

/// A GitHub account as responses embed it (an issue's or comment's `user`).
#[derive(Debug, Clone, Deserialize, PartialEq)]
pub(crate) struct Account {
    /// The login, e.g. `github-actions[bot]`.
    pub(crate) login: String,
}

/// An issue (`GET /repos/{o}/{r}/issues`); pull requests carry `pull_request`.
#[derive(Debug, Clone, Deserialize, PartialEq)]
pub(crate) struct Issue {
    /// The issue number.
    pub(crate) number: u64,
    /// The web address.
    #[serde(default)]
    pub(crate) html_url: String,
    /// The body; `None` when empty.
    pub(crate) body: Option<String>,
    /// `open` or `closed`.
    #[serde(default)]
    pub(crate) state: String,
    /// How many comments it has: 0 means there is no comment to look for.
    #[serde(default)]
    pub(crate) comments: u64,
    /// Present when this "issue" is a pull request.
    pub(crate) pull_request: Option<serde_json::Value>,
    /// Who opened it.
    pub(crate) user: Option<Account>,
}

/// The body of `POST /repos/{o}/{r}/issues`.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct NewIssue {
    /// The title.
    pub title: String,
    /// The body (Markdown).
    pub body: String,
    /// Labels to set (silently dropped by GitHub without push access).
    pub labels: Vec<String>,
    /// Logins to assign (silently dropped by GitHub without push access).
    pub assignees: Vec<String>,
}

/// The body of a request that sets a body and nothing else: a new comment
/// (`POST /repos/{o}/{r}/issues/{n}/comments`), an edited comment
/// (`PATCH …/issues/comments/{id}`) or release (`PATCH …/releases/{id}`).
#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub(crate) struct BodyOnly<'a> {
    /// The body (Markdown).
    pub(crate) body: &'a str,
}

/// The body of a release update (`PATCH /repos/{o}/{r}/releases/{id}`): the note, and the
/// title when it changes with the tier; nothing else, so draft, pre-release and latest
/// state stay as they are.
#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub(crate) struct ReleasePatch<'a> {
    /// The release note (Markdown), when it is to change.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) body: Option<&'a str>,
    /// The title, when it is to change.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) name: Option<&'a str>,
}

/// An issue comment.
#[derive(Debug, Clone, Deserialize, PartialEq)]
pub(crate) struct Comment {
    /// The comment id.
    pub(crate) id: u64,
    /// The body.
    pub(crate) body: Option<String>,
    /// The web address.
    #[serde(default)]
    pub(crate) html_url: String,
    /// Who wrote it.
    pub(crate) user: Option<Account>,
}

/// A pull request (`GET /repos/{o}/{r}/pulls/{n}`, `…/commits/{sha}/pulls`, and the
/// `pull_request` object of a `pull_request` event payload).
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
pub struct PullRequest {
    /// The number.
    pub(crate) number: u64,
    /// The title (untrusted).
    #[serde(default)]
    pub(crate) title: String,
    /// The web address.
    #[serde(default)]
    pub(crate) html_url: String,
    /// `open` or `closed`.
    #[serde(default)]
    pub(crate) state: String,
    /// Whether it was merged (in `GET …/pulls/{n}` and event payloads; absent from lists).
    pub(crate) merged: Option<bool>,
    /// When it was merged; `None` when not merged.
    pub(crate) merged_at: Option<String>,
    /// The merge, squash or rebase commit.
    pub(crate) merge_commit_sha: Option<String>,
    /// Labels (names untrusted).
    #[serde(default)]
    pub(crate) labels: Vec<Label>,
    /// The base branch.
    pub(crate) base: Option<BaseRef>,
}

/// A pull request's base.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
pub(crate) struct BaseRef {
    /// The branch name, e.g. `main`.
    #[serde(rename = "ref", default)]
    pub(crate) name: String,
}

/// A deployment (`GET`/`POST /repos/{o}/{r}/deployments`): the fields codeq-rollout reads.
#[derive(Debug, Clone, Deserialize, PartialEq)]
pub struct Deployment {
    /// The deployment id.
    pub id: u64,
    /// The commit deployed (40 hex digits).
    #[serde(default)]
    pub(crate) sha: String,
    /// The environment, as the deployment was created with (GitHub compares names without
    /// case).
    #[serde(default)]
    pub environment: String,
    /// The payload it was created with: an object for codeq-rollout's, anything (often
    /// `{}` or a string) for others'.
    #[serde(default)]
    pub(crate) payload: serde_json::Value,
    /// Its API address, e.g. `https://api.github.com/repos/o/r/deployments/1`.
    #[serde(default)]
    pub(crate) url: String,
}

/// The states of a deployment status, as GitHub spells them (`POST …/statuses`'s `state`
/// enum in GitHub's REST description).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeploymentState {
    /// Failed for a reason other than the deployment itself.
    Error,
    /// The deployment failed.
    Failure,
    /// Superseded: no longer what the environment runs.
    Inactive,
    /// Rolling out.
    InProgress,
    /// Waiting to start.
    Queued,
    /// Created, nothing done yet.
    Pending,
    /// Done.
    Success,
}

impl std::fmt::Display for DeploymentState {
    /// GitHub's name of the state, e.g. `in_progress`: its serde name, the one definition.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        crate::support::text::serde_name(self, f)
    }
}

/// A deployment status, as GitHub lists it (`GET /repos/{o}/{r}/deployments/{id}/statuses`,
/// newest first) and as it is sent (`POST …/deployments/{id}/statuses`, without its `id`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct DeploymentStatus {
    /// The status id (GitHub's answer; 0 and not sent for a new one).
    #[serde(default, skip_serializing)]
    pub(crate) id: u64,
    /// Its state.
    pub state: DeploymentState,
    /// Its description (at most 140 characters; always sent).
    pub(crate) description: Option<String>,
    /// The environment's address (the hub's), when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) environment_url: Option<String>,
    /// The log address (the release note's or tracking issue's), when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) log_url: Option<String>,
}

impl DeploymentStatus {
    /// A new status of `state` with `description`, linking nothing.
    pub(crate) fn new(state: DeploymentState, description: String) -> Self {
        Self {
            id: 0,
            state,
            description: Some(description),
            environment_url: None,
            log_url: None,
        }
    }
}

/// The body of `POST /repos/{o}/{r}/deployments`.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub(crate) struct NewDeployment {
    /// The commit to deploy (a SHA: no branch is resolved).
    #[serde(rename = "ref")]
    pub(crate) reference: String,
    /// Always `deploy`.
    pub(crate) task: String,
    /// Always `false`: nothing is merged into the commit.
    pub(crate) auto_merge: bool,
    /// Always empty: commit statuses cannot block the deployment.
    pub(crate) required_contexts: Vec<String>,
    /// What the deployment is, for codeq-rollout and for other tools.
    pub(crate) payload: serde_json::Value,
    /// The environment's name.
    pub(crate) environment: String,
    /// At most 140 characters.
    pub(crate) description: String,
    /// Always `false`.
    pub(crate) transient_environment: bool,
    /// Always `true`: users work on the hub.
    pub(crate) production_environment: bool,
}
