//! The words of the errors the support and edge layers return as data, in the one shape
//! ([`Words`]): what failed, then the fix, chosen by variant, so rewording never changes which
//! advice is given. `Display` of each error is its words, as the `::error` annotation and the
//! job summary show them.

use super::usage::CONVENTIONAL;
use super::words::{WHAT_MAX_CHARS, Words};
use crate::support::github::error::{Action, GitHubError, Kind, Problem};

mod event;
mod registry;
pub(super) use registry::{layout_words, reference_words, tls_cause, words as registry_words};

/// What a call works on: with its method, it decides the permission a 403 asks for (read
/// for a GET, write for another), and whether a 404 points at the repository.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Object {
    /// A release (`contents`).
    Release,
    /// An issue or its comments (`issues`).
    Issue,
    /// A pull request (`pull-requests`).
    PullRequest,
    /// A deployment or its statuses (`deployments`).
    Deployment,
}

/// An action's row: the HTTP method it sends, what it works on, and its words (`cannot
/// WORDS: …`).
fn row(action: Action) -> (&'static str, Object, &'static str) {
    use Object::{Deployment, Issue, PullRequest, Release};
    match action {
        Action::ListReleases => ("GET", Release, "list releases"),
        Action::CreateRelease => ("POST", Release, "create the release"),
        Action::UpdateReleaseNote => ("PATCH", Release, "update the release note"),
        Action::DeleteDuplicateRelease => ("DELETE", Release, "delete a duplicate release"),
        Action::ListTrackingIssues => ("GET", Issue, "list tracking issues"),
        Action::OpenTrackingIssue => ("POST", Issue, "open the tracking issue"),
        Action::CloseDuplicateIssue => ("PATCH", Issue, "close a duplicate tracking issue"),
        Action::ListIssueComments => ("GET", Issue, "list issue comments"),
        Action::CommentOnTrackingIssue => ("POST", Issue, "comment on the tracking issue"),
        Action::UpdateTrackingComment => ("PATCH", Issue, "update the tracking issue comment"),
        Action::DeleteDuplicateComment => ("DELETE", Issue, "delete a duplicate comment"),
        Action::LookUpCommitPullRequests => (
            "GET",
            PullRequest,
            "look up the pull requests of the pushed commit",
        ),
        Action::LookUpPullRequest => ("GET", PullRequest, "look up the pull request"),
        Action::ListDeployments => ("GET", Deployment, "list the environment's deployments"),
        Action::CreateDeployment => ("POST", Deployment, "create the deployment"),
        Action::ReadDeploymentStatus => ("GET", Deployment, "read the deployment's status"),
        Action::SetDeploymentStatus => ("POST", Deployment, "set the deployment's status"),
        Action::DeleteDuplicateDeployment => {
            ("DELETE", Deployment, "delete a duplicate deployment")
        }
    }
}

impl std::fmt::Display for Action {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(row(*self).2)
    }
}

// Unplaced (a cause inside another error's words), as inside Actions; [`super::error_words`]
// words it where the run is.
super::words::words_display!(GitHubError => |e| github_words(e, true));

/// A failed GitHub call in words: `cannot ACTION: GitHub answered STATUS: MESSAGE`, a request
/// that got no answer (a write's outcome then unknown), or a client that cannot be made;
/// then the fix, chosen by the kind of failure and the action (and, for a 403 or a 422, by
/// GitHub's own message where GitHub words the cause only there). `in_actions`: the token to
/// set is named where the run is ([`set_input`]).
pub(crate) fn github_words(err: &GitHubError, in_actions: bool) -> Words {
    let request = |action: &Action, url: &Option<String>| match url {
        Some(url) => format!("{} {url}", row(*action).0),
        None => row(*action).0.to_string(),
    };
    // Where the API URL is set, for the fixes that ask to check it.
    let api = match in_actions {
        true => "the API URL (`api-url:`, else GITHUB_API_URL)",
        false => "the API URL (--api-url, else $GITHUB_API_URL)",
    };
    let reach = format!("check {api} and that this machine reaches it (network, proxy, firewall)");
    let rest = format!(
        "check that {api} is GitHub's REST API (https://api.github.com, or https://HOST/api/v3), not another server or a proxy"
    );
    match &err.problem {
        Problem::Answered {
            action,
            status,
            server_message,
            server_details,
        } => {
            let details = match server_details.is_empty() {
                true => server_message.clone(),
                false => format!("{server_message} ({server_details})"),
            };
            // An answer of no status GitHub's docs give these calls (a 400, a 3xx): a server
            // that is not GitHub's REST API, else our bug. A 404, 409 or 422 the caller words.
            let help = answered_help(err.kind, *action, server_message, in_actions).or_else(|| {
                (err.kind == Kind::Other).then(|| {
                    format!("{rest}; if it is, report this error as a bug of codeq-rollout")
                })
            });
            detailed(
                format!("cannot {action}: GitHub answered {status}"),
                &details,
                help,
            )
        }
        Problem::NotJson { action, cause } => Words::new(format!(
            "cannot {action}: GitHub's answer is not the JSON expected"
        ))
        .because(cause)
        .help(rest),
        Problem::NoAnswer { action, cause } => detailed(
            format!("cannot {action}: no answer from GitHub"),
            cause,
            Some(rerun(*action, &reach)),
        ),
        Problem::TimedOut {
            action,
            url,
            timeout,
        } => detailed(
            format!(
                "cannot {action}: GitHub did not answer within {}",
                humantime::format_duration(*timeout)
            ),
            &request(action, url),
            Some(rerun(*action, GITHUB_SIDE)),
        ),
        Problem::Connection {
            action,
            url,
            broke,
            cause,
        } => {
            let how = match broke {
                true => "the connection to GitHub broke",
                false => "cannot connect to GitHub",
            };
            let detail = format!("{}: {cause}", request(action, url));
            detailed(
                format!("cannot {action}: {how}"),
                &detail,
                Some(rerun(*action, &reach)),
            )
        }
        Problem::NoTimeLeft { action } => {
            Words::new(format!("cannot {action}: no time left")).help(rerun(*action, GITHUB_SIDE))
        }
        Problem::TokenNotAHeader => Words::new(
            "the GitHub token holds a line break or another control character, so it cannot \
             be sent in an HTTP header",
        )
        .help("check the github-token input (one token, on one line)"),
        Problem::UnusableApiUrl { given, cause } => detailed(
            format!("API URL {given:?} is not usable"),
            cause,
            Some(rest),
        ),
        Problem::UnusableClient { cause } => detailed(
            "cannot build the GitHub client".to_string(),
            cause,
            Some("report this as a bug of codeq-rollout, with this error".into()),
        ),
    }
}

/// The fix of a failure on GitHub's side or on the way to it (a 5xx, a timeout): where
/// GitHub says whether it is failing.
const GITHUB_SIDE: &str = "GitHub, or the way to it, failed: check https://www.githubstatus.com";

/// The fix of a request GitHub failed or never got: `fix`, then the re-run; for a write,
/// whose outcome is then unknown, that the re-run looks up what exists before it writes.
fn rerun(action: Action, fix: &str) -> String {
    match row(action).0 {
        "GET" => format!("{fix}, then re-run the job"),
        _ => format!(
            "{fix}, then re-run the job, which looks up what exists first (the write's \
             outcome is unknown)"
        ),
    }
}

/// How to set `input` where the run is: in a workflow, its `with:` entry (the GitHub token's
/// default named); on the command line, its option, or first a [`CONVENTIONAL`] variable it
/// reads (gh's `GH_TOKEN` and `GITHUB_TOKEN` for the GitHub token). The one wording of where an
/// input is set: a required input's and a missing token's help ([`super::usage_words`]),
/// and a 401's.
pub(super) fn set_input(input: &str, in_actions: bool) -> String {
    let variables = CONVENTIONAL.iter().find(|(option, _)| *option == input);
    let variables = variables.map(|(_, names)| names.join(" or "));
    match (in_actions, variables) {
        (true, _) if input == "github-token" => {
            "set `github-token:` under `with:` (default ${{ github.token }})".to_string()
        }
        (true, _) => format!("set `{input}:` under `with:`"),
        (false, None) => format!("pass --{input}"),
        // A token: its variable first, as README says (secrets stay off the command line).
        (false, Some(variables)) => {
            format!("set {variables} (or pass --{input}, though the process list shows it)")
        }
    }
}

/// `what`, with `detail` (what GitHub or the connection said) after `: ` when the line stays
/// within [`WHAT_MAX_CHARS`], else its cause; then `help`.
pub(super) fn detailed(what: String, detail: &str, help: Option<String>) -> Words {
    let line = format!("{what}: {detail}");
    let words = match line.chars().count() <= WHAT_MAX_CHARS {
        // A proxy's answer may carry no message.
        _ if detail.trim().is_empty() => Words::new(what),
        true => Words::new(line),
        false => Words::new(what).because(&detail),
    };
    Words { help, ..words }
}

/// Why an input is empty inside Actions, the one wording for every input that must not be:
/// the runner passes each input the step gives, and an expression whose secret or variable
/// does not exist, is misnamed, or is not given to this workflow run (GitHub gives a run
/// from a fork's pull request no secrets: "Using secrets in GitHub Actions") gives `""`.
pub(super) const EMPTY_SECRET: &str = "an input set from a secret or variable that does not exist, is misnamed, or is not given to this workflow (e.g. a pull request from a fork) is empty: check the name in `with:` and among the repository's or environment's secrets and variables";

/// The fix for an error answer of `kind` to `what`, GitHub's message being `message`;
/// `in_actions` as for [`github_words`].
fn answered_help(kind: Kind, what: Action, message: &str, in_actions: bool) -> Option<String> {
    let (method, object, _) = row(what);
    // The permission the failing request needs: read for a GET, write for any other.
    let scope = match object {
        Object::PullRequest => "pull-requests",
        Object::Issue => "issues",
        Object::Release => "contents",
        Object::Deployment => "deployments",
    };
    let permission = format!(
        "{scope}: {}",
        if method == "GET" { "read" } else { "write" }
    );
    // A read refused to a run that writes next: the write it needs after it, said now.
    let also = match (method, object) {
        ("GET", Object::Release) => "; announce needs `contents: write`, as it publishes",
        ("GET", Object::Issue) => "; announce, and status with comment, need `issues: write`",
        _ => "",
    };
    let help = match kind {
        Kind::Unauthorized => format!(
            "the token is missing, expired or revoked: {}",
            set_input("github-token", in_actions)
        ),
        Kind::Forbidden
            if what == Action::CreateRelease
                && message.contains("Resource not accessible by integration") =>
        {
            "the workflow token lacks a permission: add `permissions: contents: write` to the job. \
             If the job already has it, GitHub refused because the release's target commit changes \
             files under .github/workflows/, which the workflow's GITHUB_TOKEN may never do: pass a \
             token with the Workflows permission (a GitHub App token or a fine-grained personal \
             access token) as github-token, or announce from a commit that does not change \
             .github/workflows/"
                .into()
        }
        Kind::Forbidden if object == Object::Deployment => {
            "the token lacks the permission `deployments: write`, which the environment \
             input needs: add it to the job's `permissions:` (a GitHub App token or \
             fine-grained token: the Deployments repository permission, read and write), or \
             leave environment unset"
                .into()
        }
        Kind::Forbidden if message.contains("Resource not accessible by integration") => format!(
            "the workflow token lacks a permission: add `permissions: {permission}` to the job{also}"
        ),
        Kind::Forbidden if in_actions => format!("check the token's permissions (`permissions: {permission}` in the job{also})"),
        // On the command line the token is a person's or an App's: its repository permission.
        Kind::Forbidden => format!(
            "check the token's permissions: it needs {permission} on the repository (a fine-grained token's repository permission; a classic token's repo scope){also}"
        ),
        Kind::NotFound if object != Object::PullRequest => {
            "check the repository name and that the token can see it".into()
        }
        Kind::Unprocessable if object == Object::Release && message.to_lowercase().contains("workflow") => {
            "the release's target commit changes .github/workflows/, which the workflow's GITHUB_TOKEN may not do: use a token with the workflows permission".into()
        }
        Kind::Conflict if object == Object::Deployment => {
            "GitHub refused the deployment as conflicting (a merge into the commit, or commit \
             statuses that failed), although codeq-rollout sends `auto_merge: false` and \
             `required_contexts: []`: check the environment's deployment protection rules \
             (Settings → Environments), then re-run the job"
                .into()
        }
        Kind::Unprocessable if object == Object::Deployment => {
            "check that the release's commit is pushed to this repository and that the \
             environment's deployment branches and tags allow it (Settings → Environments → \
             the environment), or name another environment; then re-run the job"
                .into()
        }
        Kind::RateLimited => "GitHub's rate limit was hit: re-run the job later".into(),
        Kind::Unavailable => rerun(what, GITHUB_SIDE),
        _ => return None,
    };
    Some(help)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ACTIONS: [Action; 18] = [
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
    ];

    #[test]
    fn the_fix_is_chosen_by_the_action_not_by_its_words() {
        let hint = |kind, action, message| {
            answered_help(kind, action, message, true)
                .map(|h| format!("; {h}"))
                .unwrap_or_default()
        };
        let table: Vec<String> = ACTIONS
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
    fn every_problem_in_words() {
        // On the command line, then (where the words differ) as inside Actions.
        let error = |kind, problem| {
            let error = GitHubError::new(kind, problem);
            let [command_line, actions] = [false, true].map(|in_actions| {
                let words = github_words(&error, in_actions);
                crate::render::words::assert_shape(&words);
                words.to_string()
            });
            match actions != command_line {
                true => format!("{command_line}\n(in Actions) {actions}"),
                false => command_line,
            }
        };
        let action = Action::CreateRelease;
        let url = Some("https://api.github.example/repos/o/r/releases".to_string());
        let lines = [
            error(
                Kind::Unauthorized,
                Problem::Answered {
                    action: Action::ListReleases,
                    status: 401,
                    server_message: "Bad credentials".into(),
                    server_details: String::new(),
                },
            ),
            error(
                Kind::Forbidden,
                Problem::Answered {
                    action,
                    status: 403,
                    server_message: "Resource not accessible by integration".into(),
                    server_details: String::new(),
                },
            ),
            error(
                Kind::Unprocessable,
                Problem::Answered {
                    action: Action::ListReleases,
                    status: 422,
                    server_message: "Validation Failed".into(),
                    server_details: "tag_name is invalid; body is too long".into(),
                },
            ),
            error(
                Kind::Other,
                Problem::Answered {
                    action: Action::ListReleases,
                    status: 400,
                    server_message: "Bad Request".into(),
                    server_details: String::new(),
                },
            ),
            error(
                Kind::Unavailable,
                Problem::Answered {
                    action: Action::ListReleases,
                    status: 500,
                    server_message: "Server Error".into(),
                    server_details: String::new(),
                },
            ),
            error(
                Kind::Other,
                Problem::NotJson {
                    action,
                    cause: "invalid type: map, expected a sequence at line 1 column 0".into(),
                },
            ),
            error(
                Kind::Unavailable,
                Problem::NoAnswer {
                    action,
                    cause: "Service Error".into(),
                },
            ),
            error(
                Kind::Unavailable,
                Problem::TimedOut {
                    action: Action::ListReleases,
                    url: url.clone(),
                    timeout: std::time::Duration::from_secs(30),
                },
            ),
            error(
                Kind::Unavailable,
                Problem::Connection {
                    action,
                    url: url.clone(),
                    broke: false,
                    cause: "Connection refused (os error 111)".into(),
                },
            ),
            error(
                Kind::Unavailable,
                Problem::Connection {
                    action,
                    url: None,
                    broke: true,
                    cause: "connection reset".into(),
                },
            ),
            error(Kind::Unavailable, Problem::NoTimeLeft { action }),
            error(Kind::Other, Problem::TokenNotAHeader),
            error(
                Kind::Other,
                Problem::UnusableApiUrl {
                    given: "ftp:/x".into(),
                    cause: "invalid format".into(),
                },
            ),
            error(
                Kind::Other,
                Problem::UnusableClient {
                    cause: "no TLS".into(),
                },
            ),
        ];
        insta::assert_snapshot!(lines.join("\n---\n"));
    }
}
