//! GitHub errors that callers match on, as data: what was attempted, what failed and with
//! what input (the status, GitHub's own message, the request). Their words, and the fix
//! chosen by kind and action, are the render layer's (`crate::render::help`); the mapping
//! from octocrab's errors is in the sibling module `failed`.

use serde::{Deserialize, Serialize};
use std::time::Duration;

/// What kind of failure a GitHub call met; callers branch on it (a 404 on a look-up is
/// "absent", a 403 needs a permission, a 5xx on a write has an unknown outcome).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Kind {
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
    pub(crate) fn from_status(status: u16) -> Self {
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Action {
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

/// A failed GitHub call: its kind (what callers branch on) and what failed, as data. Its
/// `Display` (the render layer's, `crate::render::help`) says what was attempted, GitHub's
/// message, and the fix chosen by kind and action. Serde: a tier decision that holds one
/// goes through JSON to hide secrets (`TierDecision::map_text`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GitHubError {
    /// The kind of failure.
    pub(crate) kind: Kind,
    /// What failed, with what input.
    pub(crate) problem: Problem,
}

/// What failed in a GitHub call, with the facts a message and a fix are made of. Text a
/// server sent (GitHub's message, a transport error's) is kept cleaned to one line of at
/// most `ECHO_MAX_CHARS` (1,000) characters, with the token hidden (`GitHub::failed`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Problem {
    /// GitHub (or a proxy) answered `status` to `action`.
    Answered {
        /// What was attempted.
        action: Action,
        /// The HTTP status.
        status: u16,
        /// GitHub's own `message`, as sent (cleaned to one line).
        server_message: String,
        /// The `message` (or JSON) of each entry of GitHub's `errors`, joined by `; `; empty
        /// when it sent none.
        server_details: String,
    },
    /// A success answer whose body is not the JSON expected.
    NotJson {
        /// What was attempted.
        action: Action,
        /// The decoder's words.
        cause: String,
    },
    /// No answer, and no HTTP error below octocrab's to say why.
    NoAnswer {
        /// What was attempted.
        action: Action,
        /// The whole error chain, in the libraries' words.
        cause: String,
    },
    /// No answer within the client's timeout.
    TimedOut {
        /// What was attempted.
        action: Action,
        /// The URL asked, when known.
        url: Option<String>,
        /// The timeout applied to each request.
        timeout: Duration,
    },
    /// The connection could not be made (`broke: false`) or broke during the request.
    Connection {
        /// What was attempted.
        action: Action,
        /// The URL asked, when known.
        url: Option<String>,
        /// Whether a connection was made and broke, rather than never made.
        broke: bool,
        /// The cause below reqwest's own line, in the libraries' words.
        cause: String,
    },
    /// A read whose retries left no time for another try.
    NoTimeLeft {
        /// What was attempted.
        action: Action,
    },
    /// The token holds a line break or another control character: it cannot be sent in an
    /// HTTP header.
    TokenNotAHeader,
    /// The API URL given cannot be a base URL.
    UnusableApiUrl {
        /// The URL as given.
        given: String,
        /// The parser's words.
        cause: String,
    },
    /// The HTTP client could not be built.
    UnusableClient {
        /// The library's words.
        cause: String,
    },
}

impl GitHubError {
    /// An error of `kind` for `problem`.
    pub(crate) fn new(kind: Kind, problem: Problem) -> Self {
        Self { kind, problem }
    }

    /// GitHub's answer `status` with `message` (no `errors`) to `action`: for tests.
    #[cfg(test)]
    pub(crate) fn answered(action: Action, status: u16, message: &str) -> Self {
        let problem = Problem::Answered {
            action,
            status,
            server_message: message.into(),
            server_details: String::new(),
        };
        Self::new(Kind::from_status(status), problem)
    }

    /// Whether a write that met this error may nevertheless have taken effect (a 5xx, a
    /// timeout, a broken connection): the caller must look the object up before writing again.
    pub(crate) fn outcome_unknown(&self) -> bool {
        self.kind == Kind::Unavailable
    }
}

impl std::error::Error for GitHubError {}
