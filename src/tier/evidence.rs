//! The evidence tier resolution reads: what the look-up of the pull requests behind a
//! release found ([`Found`], [`Evidence`]), where it looked ([`LookupOrigin`]), and what it
//! could not know or do ([`LookupFailure`], [`Missing`], [`NotKnown`]). [`crate::pulls`]
//! gathers it; [`super::decide`] reads it; the render layer words it (`render::reasons`).
//! Texts from the event payload and GitHub are untrusted.

use serde::{Deserialize, Serialize};

/// A pull request that went into the release, as far as the tier cares.
/// `title` and `labels` are untrusted text (anyone who can open a PR writes them).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PullRequest {
    /// The PR number, e.g. `42`.
    pub number: u64,
    /// The PR title, untrusted.
    pub title: String,
    /// The PR's web address, e.g. `https://github.com/org/repo/pull/42`.
    pub url: String,
    /// Label names, untrusted.
    pub labels: Vec<String>,
}

/// What the look-up of the pull requests behind a release found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// The merged pull requests behind the release (never empty when a look-up ran; may be
    /// empty only if the caller says so).
    PullRequests(Vec<PullRequest>),
    /// Some pull requests were found, but not everything behind the release was examined
    /// or resolved: commits of a push without a merged pull request after the retries and the
    /// `(#N)` fallback, or a push of more commits than are looked up. Never decided silently:
    /// a security label among `pull_requests` still decides (nothing unexamined can lower
    /// it); otherwise it counts as a failed look-up.
    Incomplete {
        /// The merged pull requests found.
        pull_requests: Vec<PullRequest>,
        /// What was not examined or resolved.
        missing: Box<Missing>,
    },
    /// The event carries no pull request by nature (`schedule`, `workflow_dispatch`, ...).
    NoPullRequest,
    /// The look-up could not run or failed (API error, permission, no merged pull request
    /// for a push after the retries): what was looked up and which failure. Never
    /// "unlabeled".
    LookupFailed(Box<LookupFailure>),
}

impl Found {
    /// The pull requests found (none when the look-up failed or the event carries none).
    pub(super) fn pull_requests(&self) -> &[PullRequest] {
        match self {
            Found::PullRequests(prs)
            | Found::Incomplete {
                pull_requests: prs, ..
            } => prs,
            Found::NoPullRequest | Found::LookupFailed(_) => &[],
        }
    }

    /// What is not known about the pull requests: the look-up's failure, or what it did not
    /// examine; `None` when it found them all (or the event carries none).
    pub(super) fn not_known(&self) -> Option<NotKnown> {
        match self {
            Found::LookupFailed(failure) => Some(NotKnown::Failed(failure.clone())),
            Found::Incomplete { missing, .. } => Some(NotKnown::Incomplete(missing.clone())),
            Found::PullRequests(_) | Found::NoPullRequest => None,
        }
    }
}

/// Why the look-up of the pull requests failed ([`Found::LookupFailed`]): what was looked up
/// and which failure. The words, fixes included, are the render layer's
/// (`render::reasons`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum LookupFailure {
    /// The push deleted its ref: a deletion builds nothing, there is nothing to announce.
    PushDeleted {
        /// The ref (`refs/heads/x`), or `its ref` when the payload names none.
        target: String,
    },
    /// The event's payload lacks what the look-up needs.
    Payload {
        /// Where the pull requests were to be looked for, e.g. `the push event`.
        origin: LookupOrigin,
        /// What is missing or wrong.
        problem: PayloadProblem,
    },
    /// The pull request of a `pull_request` event is not merged, so it is in no release.
    NotMerged {
        /// The pull request's number.
        number: u64,
        /// The event's action, when given.
        action: Option<String>,
    },
    /// There is no GitHub client to ask.
    NoClient {
        /// What was to be looked up.
        lookup: Lookup,
        /// What the client lacks.
        lacking: NoClient,
    },
    /// A GitHub call failed.
    GitHub {
        /// What was looked up.
        lookup: Lookup,
        /// The GitHub client's error (worded where the run is, `crate::render::reasons`).
        error: crate::support::github::error::GitHubError,
        /// Set when pull requests are read in another repository than the release's.
        elsewhere: Option<Elsewhere>,
        /// GitHub refused the token (401): publishing needs it too, so no tier input lets
        /// the run go on.
        unauthorized: bool,
    },
    /// GitHub lists no merged pull request for any of the commits.
    NoneMerged {
        /// The commits asked for, and how.
        commits: Commits,
        /// The event is a `merge_group` (its pull requests are not merged yet).
        merge_group: bool,
        /// The commits of the push not looked up at all, if any.
        unexamined: Option<Unexamined>,
    },
}

impl LookupFailure {
    /// Whether setting the tier input (or `unlabeled-tier`) lets the run go on: not after a
    /// deletion or an unmerged pull request (there is nothing to announce) nor after GitHub
    /// refused the token (publishing needs it too).
    pub(crate) fn tier_input_helps(&self) -> bool {
        !matches!(
            self,
            LookupFailure::PushDeleted { .. }
                | LookupFailure::NotMerged { .. }
                | LookupFailure::GitHub {
                    unauthorized: true,
                    ..
                }
        )
    }

    /// Whether the labels behind the release could not be read (a GitHub call failed, no
    /// client, an event payload lacking what the look-up needs), as opposed to read and found
    /// absent (no merged pull request, no tier label). A label not read may say security,
    /// so `unlabeled-tier: routine` does not apply then (see docs/tier-fail-closed.md).
    pub(crate) fn labels_unreadable(&self) -> bool {
        matches!(
            self,
            LookupFailure::GitHub { .. }
                | LookupFailure::NoClient { .. }
                | LookupFailure::Payload { .. }
        )
    }
}

/// What an event's payload lacks ([`LookupFailure::Payload`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum PayloadProblem {
    /// No pushed commit (`after`), and `GITHUB_SHA` is unset.
    NoPushedCommit,
    /// No `part` object (`merge_group`, `workflow_run`, `pull_request`).
    NoPart {
        /// The object's name.
        part: String,
    },
    /// `{event}.head_sha` is not a commit SHA.
    BadHeadSha {
        /// The event (`merge_group`, `workflow_run`).
        event: String,
        /// The value found (untrusted).
        text: String,
    },
}

/// What a look-up asked GitHub for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Lookup {
    /// The pull requests of `origin`.
    PullRequestsOf {
        /// Where they are looked for.
        origin: LookupOrigin,
    },
    /// A fresh copy of pull request `number`.
    Refetch {
        /// The pull request's number.
        number: u64,
        /// Why the event's copy does not do.
        why: Refetch,
    },
    /// The labels of `origin`, from the pull requests of `commit`.
    CommitPulls {
        /// Where they are looked for.
        origin: LookupOrigin,
        /// The commit asked for (short SHA).
        commit: String,
    },
    /// The labels of `origin`, from pull request `number`, named in the message of `commit`.
    NamedPull {
        /// Where they are looked for.
        origin: LookupOrigin,
        /// The pull request's number.
        number: u64,
        /// The commit whose message names it (short SHA).
        commit: String,
    },
}

/// Why a `pull_request` event's pull request is fetched again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[allow(
    clippy::enum_variant_names,
    reason = "each variant names what the payload lacks: no tier label, no merge commit"
)]
pub enum Refetch {
    /// Its labels in the payload carry no tier label.
    NoTierLabel,
    /// Its `merge_commit_sha` in the payload is null.
    NoMergeCommit,
    /// Both.
    NoTierLabelNorMergeCommit,
}

/// What a look-up without a GitHub client lacks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum NoClient {
    /// No repository is known.
    Repository,
    /// A dry run without a token.
    Token,
}

/// Pull requests read in another repository than the release's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Elsewhere {
    /// Where the event came from (`OWNER/REPO`).
    pub(crate) event: String,
    /// Where releases go.
    pub(crate) release: String,
}

/// Commits of a look-up left without a merged pull request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Commits {
    /// Where the pull requests were looked for.
    pub(crate) origin: LookupOrigin,
    /// The branch they must be merged into, when known.
    pub(crate) branch: Option<String>,
    /// The commits (short SHAs).
    pub(crate) shas: Vec<String>,
    /// What the commit look-up cost.
    pub(crate) traffic: LookupTraffic,
    /// Why the `(#N)` of each commit's subject named no merged pull request.
    pub(crate) fallback: Vec<SubjectMiss>,
}

/// What the commit look-up sent and waited (`GET /repos/{repository}/commits/{sha}/pulls`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct LookupTraffic {
    /// `OWNER/REPO` asked.
    pub(crate) repository: String,
    /// Requests sent, read retries included.
    pub(crate) requests: usize,
    /// Time waited between tries and before read retries.
    pub(crate) waited: std::time::Duration,
}

/// Why a commit's subject gave no merged pull request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum SubjectMiss {
    /// The subject has no `(#N)`.
    NoNumber {
        /// The commit (short SHA).
        commit: String,
    },
    /// `#number` is not merged into the branch as one of the pushed commits.
    NotMergedInto {
        /// The pull request named.
        number: u64,
        /// The commit (short SHA).
        commit: String,
        /// The branch, when known.
        branch: Option<String>,
    },
    /// `#number` is not a pull request of `repository`.
    NotAPullRequest {
        /// The number named.
        number: u64,
        /// The commit (short SHA).
        commit: String,
        /// `OWNER/REPO`.
        repository: String,
    },
}

/// What an incomplete look-up did not examine or resolve ([`Found::Incomplete`]); at least
/// one of the two is set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Missing {
    /// Commits left without a merged pull request.
    pub(crate) unresolved: Option<Commits>,
    /// Commits of the push not looked up at all.
    pub(crate) unexamined: Option<Unexamined>,
}

/// Commits of a push not looked up: more than are looked up, or more than its payload lists.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unexamined {
    /// The push.
    pub(crate) origin: LookupOrigin,
    /// Commits not looked up.
    pub(crate) count: usize,
    /// Commits the push carries (`size`, or those listed).
    pub(crate) carried: usize,
    /// Commits the payload lists.
    pub(crate) listed: usize,
    /// How the payload's list compares with the push.
    pub(crate) payload: PayloadList,
}

/// How a push payload's commit list compares with the push.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum PayloadList {
    /// It lists as many as GitHub's limit, so it may carry more.
    AtLimit,
    /// It lists fewer than the push carries.
    Fewer,
    /// It lists them all.
    All,
}

/// What is not known about the pull requests behind a release, when that decides.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum NotKnown {
    /// The look-up failed.
    Failed(Box<LookupFailure>),
    /// The look-up is incomplete.
    Incomplete(Box<Missing>),
}

/// Where the pull requests behind a release were looked for: the event, and the commit and
/// branch it names. The render layer words it as a noun phrase (`the push of c4295bd74fb0 to
/// main`, `the schedule event`). Commits are short SHAs (12 hex); texts come from the event
/// payload (untrusted).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum LookupOrigin {
    /// A run outside GitHub Actions (no `GITHUB_EVENT_NAME`).
    OutsideActions,
    /// An event, as a whole (one without pull requests, e.g. `schedule`, or one whose payload
    /// lacks what the look-up needs).
    Event {
        /// The event's name, e.g. `schedule`.
        event: String,
    },
    /// A `push` that deleted its ref.
    PushDeleting {
        /// The ref, e.g. `refs/heads/old`.
        target: String,
    },
    /// A `push` of `head`.
    Push {
        /// The pushed commit.
        head: String,
        /// The branch pushed to, else the ref.
        to: String,
    },
    /// A `merge_group` (merge queue) of `head`.
    MergeGroup {
        /// The group's temporary commit.
        head: String,
        /// The branch the group merges into, when known.
        into: Option<String>,
    },
    /// A `workflow_run` triggered by a run with no pull requests (`schedule`,
    /// `workflow_dispatch`).
    RunWithoutPullRequests {
        /// The triggering run's event.
        triggered_by: String,
    },
    /// A `workflow_run`: the commit the triggering run built.
    WorkflowRun {
        /// That commit.
        head: String,
        /// The triggering run's event, e.g. `push`.
        triggered_by: String,
        /// The branch it built, when known.
        branch: Option<String>,
    },
    /// A `pull_request` or `pull_request_target` event.
    PullRequest {
        /// The pull request's number.
        number: u64,
        /// The event's name.
        event: String,
    },
}

/// What tier resolution knows about the pull requests behind the release.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evidence {
    /// Where they were looked for.
    pub origin: LookupOrigin,
    /// What was found.
    pub found: Found,
    /// Things the look-up noticed that a human should see; they become warnings.
    pub notes: Vec<LookupNote>,
}

/// Something a look-up noticed that a human should see ([`Evidence::notes`], then
/// [`super::Warning::Note`]); the render layer words it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum LookupNote {
    /// Re-fetching a `pull_request` event's pull request failed, and its copy in the payload
    /// (which carries a tier label) decided instead.
    RefetchFailed(Box<LookupFailure>),
    /// The merged pull request of a `pull_request` event has no merge commit SHA (`null` in
    /// the payload, and from GitHub when re-fetched), so the release targets `GITHUB_SHA`,
    /// which on such an event is not the merged commit.
    NoMergeCommit {
        /// The pull request's number.
        number: u64,
        /// The event, e.g. `pull_request_target`.
        event: String,
        /// Whether GitHub was asked too.
        refetched: bool,
        /// `GITHUB_SHA`, when set.
        github_sha: Option<String>,
    },
}

#[cfg(test)]
impl Evidence {
    /// Evidence for an event that carries no pull request, e.g. `schedule` (the tests' own:
    /// `crate::pulls` builds it as every other look-up's).
    pub(crate) fn no_pull_request(event: &str) -> Self {
        Self {
            origin: LookupOrigin::Event {
                event: event.to_string(),
            },
            found: Found::NoPullRequest,
            notes: Vec::new(),
        }
    }
}
