//! GitHub errors that callers match on, with the fix in the message.

use crate::support::retry::{Verdict, retry_after_header};
use crate::support::secrets::Secrets;
use std::time::{Duration, SystemTime};

/// What kind of failure a GitHub call met; callers branch on it (a 404 on a look-up is
/// "absent", a 403 needs a permission, a 5xx on a write has an unknown outcome).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// 401: the token is missing, expired or revoked.
    Unauthorized,
    /// 403: the token lacks a permission (or a rate limit without a reset header).
    Forbidden,
    /// 404: absent, or invisible to this token.
    NotFound,
    /// 422: GitHub refused the content (validation).
    Unprocessable,
    /// 422 with the error code `already_exists`: the object (e.g. a release for this tag)
    /// exists already, typically made by a concurrent run. Callers look it up.
    AlreadyExists,
    /// 409: the request conflicts with the repository's state (a deployment GitHub would
    /// have to merge for, or whose commit statuses failed).
    Conflict,
    /// 429 or a rate-limit 403 after retries.
    RateLimited,
    /// 5xx, a timeout or a broken connection: for a write, the outcome is unknown.
    Unavailable,
    /// Anything else (a malformed response, a bad URL).
    Other,
}

impl Kind {
    /// The kind of an HTTP status.
    pub fn from_status(status: u16) -> Self {
        match status {
            401 => Kind::Unauthorized,
            403 => Kind::Forbidden,
            404 => Kind::NotFound,
            409 => Kind::Conflict,
            422 => Kind::Unprocessable,
            429 => Kind::RateLimited,
            500..=599 => Kind::Unavailable,
            _ => Kind::Other,
        }
    }
}

/// What a GitHub call was doing: the error names it ("cannot create the release: …") and
/// the fix is chosen by it (which permission, whether a 404 means a wrong repository).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// `GET /releases`.
    ListReleases,
    /// `POST /releases`.
    CreateRelease,
    /// `PATCH /releases/{id}`.
    UpdateReleaseNote,
    /// `DELETE /releases/{id}` of a duplicate.
    DeleteDuplicateRelease,
    /// `GET /issues?labels=…`.
    ListTrackingIssues,
    /// `POST /issues`.
    OpenTrackingIssue,
    /// `PATCH /issues/{n}` closing a duplicate.
    CloseDuplicateIssue,
    /// `GET /issues/{n}/comments`.
    ListIssueComments,
    /// `POST /issues/{n}/comments`.
    CommentOnTrackingIssue,
    /// `PATCH /issues/comments/{id}`.
    UpdateTrackingComment,
    /// `DELETE /issues/comments/{id}` of a duplicate.
    DeleteDuplicateComment,
    /// `GET /commits/{sha}/pulls`.
    LookUpCommitPullRequests,
    /// `GET /pulls/{n}`.
    LookUpPullRequest,
    /// `GET /deployments?environment=…`.
    ListDeployments,
    /// `POST /deployments`.
    CreateDeployment,
    /// `GET /deployments/{id}/statuses`.
    ReadDeploymentStatus,
    /// `POST /deployments/{id}/statuses`.
    SetDeploymentStatus,
    /// `DELETE /deployments/{id}` of a duplicate.
    DeleteDuplicateDeployment,
}

/// What a call works on: it decides the permission a 403 asks for and whether a 404
/// points at the repository.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Object {
    Release,
    Issue,
    PullRequest,
    Deployment,
}

impl Action {
    fn object(self) -> Object {
        match self {
            Action::ListReleases
            | Action::CreateRelease
            | Action::UpdateReleaseNote
            | Action::DeleteDuplicateRelease => Object::Release,
            Action::ListTrackingIssues
            | Action::OpenTrackingIssue
            | Action::CloseDuplicateIssue
            | Action::ListIssueComments
            | Action::CommentOnTrackingIssue
            | Action::UpdateTrackingComment
            | Action::DeleteDuplicateComment => Object::Issue,
            Action::LookUpCommitPullRequests | Action::LookUpPullRequest => Object::PullRequest,
            Action::ListDeployments
            | Action::CreateDeployment
            | Action::ReadDeploymentStatus
            | Action::SetDeploymentStatus
            | Action::DeleteDuplicateDeployment => Object::Deployment,
        }
    }
}

impl Action {
    /// The HTTP method the action sends.
    pub fn method(self) -> &'static str {
        match self {
            Action::ListReleases
            | Action::ListTrackingIssues
            | Action::ListIssueComments
            | Action::LookUpCommitPullRequests
            | Action::LookUpPullRequest
            | Action::ListDeployments
            | Action::ReadDeploymentStatus => "GET",
            Action::CreateRelease
            | Action::OpenTrackingIssue
            | Action::CommentOnTrackingIssue
            | Action::CreateDeployment
            | Action::SetDeploymentStatus => "POST",
            Action::UpdateReleaseNote
            | Action::CloseDuplicateIssue
            | Action::UpdateTrackingComment => "PATCH",
            Action::DeleteDuplicateRelease
            | Action::DeleteDuplicateComment
            | Action::DeleteDuplicateDeployment => "DELETE",
        }
    }
}

impl std::fmt::Display for Action {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Action::ListReleases => "list releases",
            Action::CreateRelease => "create the release",
            Action::UpdateReleaseNote => "update the release note",
            Action::DeleteDuplicateRelease => "delete a duplicate release",
            Action::ListTrackingIssues => "list tracking issues",
            Action::OpenTrackingIssue => "open the tracking issue",
            Action::CloseDuplicateIssue => "close a duplicate tracking issue",
            Action::ListIssueComments => "list issue comments",
            Action::CommentOnTrackingIssue => "comment on the tracking issue",
            Action::UpdateTrackingComment => "update the tracking issue comment",
            Action::DeleteDuplicateComment => "delete a duplicate comment",
            Action::LookUpCommitPullRequests => "look up the pull requests of the pushed commit",
            Action::LookUpPullRequest => "look up the pull request",
            Action::ListDeployments => "list the environment's deployments",
            Action::CreateDeployment => "create the deployment",
            Action::ReadDeploymentStatus => "read the deployment's status",
            Action::SetDeploymentStatus => "set the deployment's status",
            Action::DeleteDuplicateDeployment => "delete a duplicate deployment",
        })
    }
}

/// A failed GitHub call: what was attempted, GitHub's message, and what to do.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{message}")]
pub struct GitHubError {
    /// The kind of failure.
    pub kind: Kind,
    /// The whole message, starting with what was attempted.
    pub message: String,
}

impl GitHubError {
    /// An error of `kind` with `message`.
    pub fn new(kind: Kind, message: String) -> Self {
        Self { kind, message }
    }

    /// Whether a write that met this error may nevertheless have taken effect (a 5xx, a
    /// timeout, a broken connection): the caller must look the object up before writing again.
    pub fn outcome_unknown(&self) -> bool {
        self.kind == Kind::Unavailable
    }

    /// Maps an octocrab error met while doing `what`, whose requests time out after
    /// `timeout` (named when one did).
    pub fn from_octocrab(err: octocrab::Error, what: Action, timeout: std::time::Duration) -> Self {
        match err {
            octocrab::Error::GitHub { source, .. } => {
                let status = source.status_code.as_u16();
                let mut kind = Kind::from_status(status);
                // GitHub's (or a proxy's) message is echoed, as one line of at most
                // ECHO_MAX_CHARS: an HTML error page must not flood the log.
                let msg = crate::support::sanitize::clean_line(&source.message, ECHO_MAX_CHARS);
                let detail = source
                    .errors
                    .as_ref()
                    .map(|e| {
                        e.iter()
                            .map(|v| {
                                v.get("message")
                                    .and_then(|m| m.as_str())
                                    .map(String::from)
                                    .unwrap_or_else(|| v.to_string())
                            })
                            .collect::<Vec<_>>()
                            .join("; ")
                    })
                    .map(|s| crate::support::sanitize::clean_line(&s, ECHO_MAX_CHARS))
                    .filter(|s| !s.is_empty())
                    .map(|s| format!(" ({s})"))
                    .unwrap_or_default();
                if kind == Kind::Forbidden && msg.to_ascii_lowercase().contains("rate limit") {
                    kind = Kind::RateLimited;
                }
                let already_exists = source
                    .errors
                    .iter()
                    .flatten()
                    .any(|e| e.get("code").and_then(|c| c.as_str()) == Some("already_exists"));
                if kind == Kind::Unprocessable && already_exists {
                    kind = Kind::AlreadyExists;
                }
                let hint = hint(kind, what, &msg);
                Self::new(
                    kind,
                    format!("cannot {what}: GitHub answered {status}: {msg}{detail}{hint}"),
                )
            }
            octocrab::Error::Json { source, .. } => Self::new(
                Kind::Other,
                format!(
                    "cannot {what}: GitHub's answer is not the JSON expected: {}",
                    crate::support::sanitize::clean_line(&source.to_string(), ECHO_MAX_CHARS)
                ),
            ),
            octocrab::Error::Serde { source, .. } => Self::new(
                Kind::Other,
                format!(
                    "cannot {what}: GitHub's answer is not the JSON expected: {}",
                    crate::support::sanitize::clean_line(&source.to_string(), ECHO_MAX_CHARS)
                ),
            ),
            other => Self::new(Kind::Unavailable, transport(&other, what, timeout)),
        }
    }

    /// The same error with `secrets` hidden in every form, part and long start
    /// ([`Secrets::redact_echo`]): for text a server echoed back, which may quote the
    /// request's credentials.
    pub fn redacted(mut self, secrets: &Secrets) -> Self {
        self.message = secrets.redact_echo(&self.message);
        self
    }
}

/// Whether a failed read is worth another try ([`crate::support::retry`]), per GitHub's "Rate
/// limits for the REST API": a 5xx, a 429 or a transport failure (a timeout, a broken
/// connection) is; so is a 403 that is a rate limit (it carries `Retry-After`, or
/// `x-ratelimit-remaining: 0`), which asks for a wait: `Retry-After`, else until
/// `x-ratelimit-reset` (Unix seconds, counted from `now`). Anything else is final.
pub fn read_verdict(err: &octocrab::Error, now: SystemTime) -> Verdict {
    let (status, headers) = match err {
        octocrab::Error::GitHub { source, .. } => {
            (source.status_code.as_u16(), source.headers.as_ref())
        }
        octocrab::Error::Service { .. }
        | octocrab::Error::Hyper { .. }
        | octocrab::Error::Reqwest { .. } => return Verdict::Retry { asked: None },
        _ => return Verdict::Final,
    };
    let header = |name: &str| headers?.get(name)?.to_str().ok();
    let after = headers.and_then(|h| retry_after_header(h, now));
    let exhausted = header("x-ratelimit-remaining").is_some_and(|v| v.trim() == "0");
    let reset = header("x-ratelimit-reset")
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map(|at| {
            let now = now
                .duration_since(SystemTime::UNIX_EPOCH)
                .unwrap_or_default();
            Duration::from_secs(at).saturating_sub(now)
        });
    match status {
        429 | 500..=599 => Verdict::Retry {
            asked: after.or(reset.filter(|_| exhausted)),
        },
        403 if after.is_some() || exhausted => Verdict::Retry {
            asked: after.or(reset),
        },
        _ => Verdict::Final,
    }
}

/// The most characters of a server's message an error echoes.
pub const ECHO_MAX_CHARS: usize = 1000;

/// The message for a request that got no answer: which request, and a timeout with its
/// length, in words; the library's wrappers (`Service Error: Reqwest Error: ...`) left out.
fn transport(err: &octocrab::Error, what: Action, timeout: std::time::Duration) -> String {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(err);
    let reqwest = std::iter::from_fn(|| {
        let current = source?;
        source = current.source();
        Some(current)
    })
    .find_map(|e| e.downcast_ref::<reqwest::Error>());
    let outcome = match what.method() {
        "GET" => "",
        _ => "; the outcome is unknown",
    };
    let Some(e) = reqwest else {
        let text = crate::support::sanitize::clean_line(
            &crate::support::text::error_chain(err),
            ECHO_MAX_CHARS,
        );
        return format!("cannot {what}: no answer from GitHub: {text}{outcome}");
    };
    let request = match e.url() {
        Some(url) => format!("{} {}", what.method(), url.as_str()),
        None => what.method().to_string(),
    };
    if e.is_timeout() {
        return format!(
            "cannot {what}: GitHub did not answer {request} within {}{outcome}",
            humantime::format_duration(timeout)
        );
    }
    // The cause below reqwest's own "error sending request for url (...)" line.
    let cause = std::error::Error::source(e)
        .map(crate::support::text::error_chain)
        .unwrap_or_else(|| e.to_string());
    let cause = crate::support::sanitize::clean_line(&cause, ECHO_MAX_CHARS);
    let how = if e.is_connect() {
        "cannot connect to GitHub for"
    } else {
        "the connection to GitHub broke during"
    };
    format!("cannot {what}: {how} {request}: {cause}{outcome}")
}

/// The fix for a failure, as a sentence starting with `; `.
fn hint(kind: Kind, what: Action, message: &str) -> String {
    let object = what.object();
    let permission = match object {
        Object::PullRequest => "pull-requests: read",
        Object::Issue => "issues: write",
        Object::Release => "contents: write",
        Object::Deployment => "deployments: write",
    };
    match kind {
        Kind::Unauthorized => "; the token is missing, expired or revoked: pass github-token (default ${{ github.token }})".into(),
        Kind::Forbidden
            if what == Action::CreateRelease
                && message.contains("Resource not accessible by integration") =>
        {
            "; the workflow token lacks a permission: add `permissions: contents: write` to the job. \
             If the job already has it, GitHub refused because the release's target commit changes \
             files under .github/workflows/, which the workflow's GITHUB_TOKEN may never do: pass a \
             token with the Workflows permission (a GitHub App token or a fine-grained personal \
             access token) as github-token, or announce from a commit that does not change \
             .github/workflows/"
                .into()
        }
        Kind::Forbidden if object == Object::Deployment => {
            "; the token lacks the permission `deployments: write`, which the environment \
             input needs: add it to the job's `permissions:` (a GitHub App token or \
             fine-grained token: the Deployments repository permission, read and write), or \
             leave environment unset"
                .into()
        }
        Kind::Forbidden if message.contains("Resource not accessible by integration") => format!(
            "; the workflow token lacks a permission: add `permissions: {permission}` to the job"
        ),
        Kind::Forbidden => format!("; check the token's permissions (`permissions: {permission}` in the job)"),
        Kind::NotFound if object != Object::PullRequest => {
            "; check the repository name and that the token can see it".into()
        }
        Kind::Unprocessable if object == Object::Release && message.to_lowercase().contains("workflow") => {
            "; the release's target commit changes .github/workflows/, which the workflow's GITHUB_TOKEN may not do: use a token with the workflows permission".into()
        }
        Kind::Conflict if object == Object::Deployment => {
            "; GitHub refused the deployment as conflicting (a merge into the commit, or commit \
             statuses that failed), although codeq-rollout sends `auto_merge: false` and \
             `required_contexts: []`: check the environment's deployment protection rules \
             (Settings → Environments), then re-run the job"
                .into()
        }
        Kind::Unprocessable if object == Object::Deployment => {
            "; check that the release's commit is pushed to this repository and that the \
             environment's deployment branches and tags allow it (Settings → Environments → \
             the environment), or name another environment; then re-run the job"
                .into()
        }
        Kind::RateLimited => "; GitHub's rate limit was hit: re-run the job later".into(),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fix_is_chosen_by_the_action_not_by_its_words() {
        let table: Vec<String> = [
            Action::ListReleases,
            Action::CreateRelease,
            Action::UpdateReleaseNote,
            Action::DeleteDuplicateRelease,
            Action::ListTrackingIssues,
            Action::OpenTrackingIssue,
            Action::CloseDuplicateIssue,
            Action::ListIssueComments,
            Action::CommentOnTrackingIssue,
            Action::UpdateTrackingComment,
            Action::DeleteDuplicateComment,
            Action::LookUpCommitPullRequests,
            Action::LookUpPullRequest,
            Action::ListDeployments,
            Action::CreateDeployment,
            Action::ReadDeploymentStatus,
            Action::SetDeploymentStatus,
            Action::DeleteDuplicateDeployment,
        ]
        .into_iter()
        .map(|a| {
            format!(
                "{a}\n  403{}\n  404{}\n  422{}",
                hint(Kind::Forbidden, a, ""),
                hint(Kind::NotFound, a, ""),
                hint(Kind::Unprocessable, a, "touches a workflow")
            )
        })
        .collect();
        insta::assert_snapshot!(table.join("\n"));
    }

    #[test]
    fn an_echoed_token_is_scrubbed() {
        let secrets = Secrets::of([&"ghs_abc123".into()]);
        let err = GitHubError::new(
            Kind::Unauthorized,
            "cannot list releases: GitHub answered 401: Bad credentials: Bearer ghs_abc123".into(),
        )
        .redacted(&secrets);
        assert_eq!(
            err.message,
            "cannot list releases: GitHub answered 401: Bad credentials: Bearer ***"
        );
    }
}
