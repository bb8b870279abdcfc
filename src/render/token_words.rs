//! The words of a missing, empty or malformed token or required input
//! ([`Problem::Token`](super::usage::Problem::Token), `Required` and `NoToken`): the token is
//! never shown.

use super::help::{EMPTY_SECRET, set_input};
use super::usage::{GitHubUse, Required, TokenProblem, UsageError};
use super::words::Words;
use crate::support::secrets::MIN_CHARS;

/// `what`, then `help`.
fn say(what: String, help: impl Into<String>) -> Words {
    Words::new(what).help(help)
}

/// `help`, then inside Actions [`EMPTY_SECRET`] on a line of its own.
pub(super) fn or_empty_secret(help: String, in_actions: bool) -> String {
    match in_actions {
        true => format!("{help}\n{EMPTY_SECRET}"),
        false => help,
    }
}

/// A token refused ([`TokenProblem`]), by `input` (`name` as messages name it); the token is
/// never shown.
pub(super) fn token_words(input: &str, name: &str, why: TokenProblem) -> Words {
    let (what, help) = match (why, input) {
        (TokenProblem::Characters { control: true }, "registry-password") => (
            "holds a line break or other control character inside it".to_string(),
            "paste the password again, as one line with nothing around it (it is never shown)",
        ),
        (TokenProblem::Characters { control: true }, _) => (
            "holds a space, line break or other control character inside it".to_string(),
            "a token is printable ASCII only: paste the token again, as one line with nothing around it (it is never shown)",
        ),
        (TokenProblem::Characters { control: false }, _) => (
            "holds a character that is not printable ASCII".to_string(),
            "such as a zero-width or no-break space left by a copy-paste: paste the token again, as one line with nothing around it (it is never shown)",
        ),
        (TokenProblem::Short { chars }, "hub-token") => (
            format!(
                "is too short for a hub API token ({chars} of at least {MIN_CHARS} characters)"
            ),
            "JupyterHub refuses shorter ones, and the ones it makes have 32: give the whole token, e.g. from `jupyterhub token` or the hub's token page",
        ),
        (TokenProblem::Short { chars }, _) => (
            format!("is too short for a GitHub token ({chars} of at least {MIN_CHARS} characters)"),
            "GitHub's tokens have 40 characters or more: give the whole token (it is never printed)",
        ),
    };
    say(format!("{name} {what}"), help)
}

/// A required input `e` names (as `name` on the command line) left unset: that it is
/// required, then where to set it ([`set_input`]) and what it is.
pub(super) fn required_words(e: &UsageError, name: &str, what: Required) -> Words {
    let what = match what {
        Required::Image => "the image reference to announce, e.g. ghcr.io/org/lab:latest",
        Required::HubUrl => "the hub's address, e.g. https://hub.example.org",
        Required::HubToken => {
            "a hub API token with scopes list:users and read:servers: see README, the role to create"
        }
    };
    let set = or_empty_secret(set_input(&e.input, e.in_actions), e.in_actions);
    let (first, set) = match (e.in_actions, &e.variable) {
        (true, _) => (format!("the input `{}` is empty", e.input), set),
        (false, Some(v)) => set_but_empty(name, v, &set),
        (false, None) => (format!("{name} is required"), set),
    };
    say(first, format!("{set}\n{} is {what}", e.input))
}

/// On the command line, input `name` left unset by variable `v` set but blank
/// ([`UsageError::variable`]): that it is set but empty, then `set` (where to set it) and why
/// a variable reads empty.
fn set_but_empty(name: &str, v: &str, set: &str) -> (String, String) {
    (
        format!("{name} is set but empty"),
        format!(
            "{set}\n{v} is empty when set from a secret or variable that does not exist or is misnamed: check the name where it is set"
        ),
    )
}

/// Why `status` reads GitHub.
fn github_use(why: GitHubUse) -> &'static str {
    match why {
        GitHubUse::Environment => {
            "with environment, status reads the release note and keeps the deployment's status"
        }
        GitHubUse::Comment => "with comment, status reads the release note and writes the comment",
        GitHubUse::ReleaseTime => {
            "with image and without released-at, status reads the release time from the release note"
        }
    }
}

/// No GitHub token while the run needs one (`why`: the `status` input that reads GitHub; `None`:
/// `announce` without a dry run): that it is missing, or set but empty by the variable `e`
/// names, then where to set it and, for `announce`, the dry run that needs none.
pub(super) fn no_token_words(e: &UsageError, name: &str, why: Option<GitHubUse>) -> Words {
    let dry_run = match e.in_actions {
        true => "`dry-run: true` with `tier: routine` (or security) under `with:`",
        false => "--dry-run with --tier routine or security",
    };
    let set = match why {
        None => format!("{}; or use {dry_run}", set_input(&e.input, e.in_actions)),
        Some(_) => set_input(&e.input, e.in_actions),
    };
    let (what, help) = match &e.variable {
        Some(v) => set_but_empty(name, v, &set),
        None => ("no GitHub token".into(), or_empty_secret(set, e.in_actions)),
    };
    match why {
        None => say(what, help),
        Some(why) => say(format!("{what}: {}", github_use(why)), help),
    }
}
