//! Bad usage as data: what an input's value breaks, with the facts its words need (limits,
//! the character refused, the host without its scheme). Only the command line raises these,
//! each as a [`UsageError`] carrying it with the input and the value as given; the words (and
//! `Display`) are [`super::usage_words`]'.

pub(crate) use crate::digest::ImageProblem;
pub(crate) use crate::digest::host::{EntryProblem, Refused};
pub(crate) use crate::digest::layout::LayoutError;
pub(crate) use crate::status::kube::KubeError;
pub(crate) use crate::support::duration::DurationProblem;
pub(crate) use crate::support::github::EnvironmentError;
pub(crate) use crate::support::kube_name::NameKind;
pub(crate) use crate::support::secrets::TokenProblem;
pub(crate) use crate::support::url::UrlProblem;
pub(crate) use crate::window::{CalendarFix, InvalidSettings, PastTheCalendar};
use std::path::PathBuf;
use std::sync::Arc;

/// The conventional variables an option reads after its Action input, outside Actions: gh's
/// for the GitHub token (`GH_TOKEN` first, then `GITHUB_TOKEN`, as gh reads them: "gh help
/// environment"), JupyterHub's own for the hub token (what its single-user servers and
/// services are given).
pub(crate) const CONVENTIONAL: [(&str, &[&str]); 2] = [
    ("github-token", &["GH_TOKEN", "GITHUB_TOKEN"]),
    ("hub-token", &["JUPYTERHUB_API_TOKEN"]),
];

/// Bad usage: a required input left empty, or a value an input does not take. The process
/// exits with code 2, as for clap's own usage errors, and inside Actions the annotation's
/// title is `Invalid input: INPUT`. Data only: its words are
/// [`crate::render::usage_words::words`]', chosen by the problem.
#[derive(Debug, Clone)]
pub struct UsageError {
    /// The input at fault: its action.yml name, also the `--option` (e.g. `cull-timeout`).
    pub(crate) input: String,
    /// The value as given (trimmed), as safe to show: credentials and queries as `***`.
    pub(crate) given: Option<String>,
    /// What is wrong, with the facts the words need (boxed: errors stay small).
    pub(crate) problem: Box<Problem>,
    /// Whether the run is inside GitHub Actions: the help names the `with:` input there, the
    /// option (and its [`CONVENTIONAL`] variables) on the command line. Set when the request
    /// is refused (`crate::dispatch`); `false` until then.
    pub(crate) in_actions: bool,
    /// On the command line, the variable that gave the value (`GH_TOKEN`) when the option
    /// was not given, or that was set but blank when none did: the words name it rather than
    /// the option. Set with `in_actions`.
    pub(crate) variable: Option<String>,
}

impl std::error::Error for UsageError {}

impl UsageError {
    /// `problem` with `input`, no value quoted.
    pub(crate) fn new(input: impl Into<String>, problem: Problem) -> Self {
        Self {
            input: input.into(),
            given: None,
            problem: Box::new(problem),
            in_actions: false,
            variable: None,
        }
    }

    /// `problem` with `input`, whose value `given` the words quote.
    pub(crate) fn of(input: impl Into<String>, given: impl Into<String>, problem: Problem) -> Self {
        Self {
            given: Some(given.into()),
            ..Self::new(input, problem)
        }
    }
}
use std::time::Duration;
use time::OffsetDateTime;

/// What is wrong with an input. The value as given (when quoted) is the error's, not the
/// problem's; a variant that places it in its words says so.
#[derive(Debug, Clone)]
pub(crate) enum Problem {
    /// A required input left empty or unset.
    Required(Required),
    /// A value that is not UTF-8.
    NotUtf8,
    /// A value given blank on the command line, or a list of separators only (the one rule of
    /// `crate::cli::value`'s parser).
    Empty,
    /// A duration refused ([`DurationProblem`]) by a parser with these bounds.
    Duration(DurationProblem, DurationBounds),
    /// Not one of an enum's values, listed in order.
    NotOneOf(Vec<String>),
    /// `sha` not 40 hex digits ([`crate::context::CommitSha::parse`]).
    NotACommit,
    /// `expected-digest` not `sha256:` and 64 hex digits, in any case
    /// ([`crate::digest::Digest::parse`] lower-cased).
    NotADigest,
    /// Not one of the Action's boolean words.
    NotBoolean,
    /// Not a name of this kind ([`NameKind::takes`]).
    NotAName(NameKind),
    /// A URL refused ([`UrlProblem`]); the value shown with credentials and query as `***`.
    BadUrl(UrlKind, UrlProblem),
    /// A hub URL that is one of the hub's pages (`/hub/…`, `/user/NAME/…`, the API among
    /// them); `base` is the address before `/hub/` or `/user/`.
    HubPage {
        /// The address to give instead.
        base: String,
    },
    /// Not a repository's `OWNER/REPO` by GitHub's rules, or ending in `.git`.
    Repository(crate::support::github::RepositoryProblem),
    /// A token (`github-token`, `hub-token`) refused ([`TokenProblem`]).
    Token(TokenProblem),
    /// An `insecure-registry` value refused ([`Refused`]: the entry holding `@`, unquoted,
    /// or the entry quoted and why).
    Insecure(Refused),
    /// `hub-size` not a whole number from 1 to this most.
    HubSize(u64),
    /// A values file path holding a comma that does not exist (a list given on one line).
    ValuesListedWithComma(PathBuf),
    /// Deadlines past the calendar's last date ([`crate::window::LAST_DATE`]).
    PastTheCalendar(Box<PastTheCalendar>),
    /// An `image` that is not an image reference ([`ImageProblem`]).
    Image(ImageProblem),
    /// An `environment` name GitHub does not take ([`EnvironmentError`]).
    Environment(EnvironmentError),
    /// An `oci:` layout that cannot be used ([`LayoutError`]; shared: errors are cloned).
    Layout(Arc<LayoutError>),
    /// A team template refused ([`TemplateProblem`]).
    Template(TemplateProblem),
    /// A time after the run's clock.
    LaterThanClock {
        /// The time given.
        at: OffsetDateTime,
        /// The run's clock.
        now: OffsetDateTime,
    },
    /// An RFC 3339 time that does not parse.
    Time(crate::support::time::TimeError),
    /// A rule between inputs broken.
    Rule(Rule),
    /// No GitHub token where one is needed (`for_`: why `status` needs one; `None` for
    /// `announce`, which can run dry without it).
    NoToken(Option<GitHubUse>),
    /// `fail-on` names an alarm (its word) that needs the pods while Kubernetes is off, and
    /// whether `kubernetes` turned it off (given false) rather than left it off (unset).
    AlarmWithoutKubernetes(String, bool),
    /// Kubernetes credentials that cannot work, found before anything is read.
    Kube(Arc<KubeError>),
    /// The value is a placeholder, `hub-url`'s default among them ([`crate::support::url::is_placeholder`]).
    Placeholder,
    /// Culler settings refused ([`InvalidSettings`]: an option's value, or a values file's),
    /// worded where the run is.
    Settings(InvalidSettings),
    /// Another stage's refusal, in its own words, which name the input.
    Refused(Arc<anyhow::Error>),
}

/// The required inputs, each with what it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Required {
    /// `announce --image`.
    Image,
    /// `status --hub-url`.
    HubUrl,
    /// `status --hub-token`.
    HubToken,
}

/// A duration parser's bounds, for its words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DurationBounds {
    /// The least taken.
    pub(crate) min: Duration,
    /// The most taken.
    pub(crate) limit: DurationLimit,
    /// An example in the option's terms (`30`).
    pub(crate) example: &'static str,
}

/// Which most a duration parser takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DurationLimit {
    /// The culler's settings: 3650 days ([`crate::window::MAX_DURATION_SECS`]).
    Culler,
    /// The culler's max age: as [`Self::Culler`], and `none` is 0, no max age (what
    /// `window` prints for 0; jupyterhub-idle-culler 2.0 `--max-age` 0: no limit).
    MaxAge,
    /// A timeout: the longest a job runs ([`crate::support::duration::JOB_MAX`]).
    Job,
}

/// The two URL inputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum UrlKind {
    /// `hub-url`: the hub's address, pasted into the runbook.
    Hub,
    /// `api-url`: GitHub's REST API base.
    Api,
}

/// What a team's template file breaks.
#[derive(Debug, Clone)]
pub(crate) enum TemplateProblem {
    /// It cannot be read.
    Unreadable(Arc<dyn std::error::Error + Send + Sync>),
    /// Its real path is outside the workspace.
    OutsideWorkspace {
        /// The workspace.
        workspace: PathBuf,
        /// The file's real path.
        real: PathBuf,
    },
    /// Not a regular file.
    NotRegular,
    /// Over the size limit.
    TooLarge {
        /// Its size in bytes.
        size: u64,
        /// The limit in bytes.
        limit: usize,
    },
}

/// Rules between inputs, each with its own words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rule {
    /// `print-context` without `dry-run`.
    PrintContextNeedsDryRun,
    /// `security-labels` empty.
    NoSecurityLabel,
    /// `registry-username` without a password.
    UsernameWithoutPassword,
    /// `registry-password` without a user name.
    PasswordWithoutUsername,
    /// No repository to publish to.
    NoRepository,
    /// No commit to publish for.
    NoCommit,
    /// Kubernetes on without `image`.
    KubernetesNeedsImage,
    /// Neither `image` nor `released-at`.
    NoRelease,
    /// `environment` without `image`.
    EnvironmentNeedsImage,
    /// `comment` without `image`.
    CommentNeedsImage,
    /// `kubernetes: false` with a kubeconfig.
    KubernetesOffWithKubeconfig,
}

/// Why `status` reads GitHub, for the error without a token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GitHubUse {
    /// The deployment of `environment`.
    Environment,
    /// The comment.
    Comment,
    /// The release time from the release note.
    ReleaseTime,
}
