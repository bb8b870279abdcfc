//! The log lines and annotations of an `announce` run: every sentence the pipeline prints
//! is here, so the pipeline holds no wording.

use super::Change;
use crate::digest::Digest;
use crate::support::sanitize::log_line;
use crate::tier::{LookupOrigin, PullRequest, Reason, Warning};

/// Title and text of the warning when the idle culler is off.
pub const CULLING_DISABLED: (&str, &str) = (
    "Convergence window",
    "culling is disabled: running sessions update only when their users restart them",
);

/// Title and text of the warning when `$GITHUB_OUTPUT` is missing inside Actions.
pub const OUTPUTS_NOT_WRITTEN: (&str, &str) = (
    "Step outputs",
    "GITHUB_OUTPUT is not set, so the step outputs (digest, tier, release-url, ...) were not written and later steps will see them empty; the Actions runner sets it for every step",
);

/// Title and text of the warning when a failed run could not write its outputs or summary.
pub const FAILURE_NOT_REPORTED: (&str, &str) = (
    "Step outputs",
    "the run failed, and writing what it had established to the step outputs and the job summary failed too",
);

/// Title and opening of the warning when GitHub answered an address that is not a plain
/// `http(s)://` URL.
pub const URL_REFUSED: (&str, &str) = (
    "Address from GitHub",
    "GitHub answered an address that is not a plain http(s) URL, so the step outputs and the job summary leave it out",
);

/// What error texts, log lines and comment bodies say in place of an address GitHub
/// answered that is not a plain `http(s)://` URL.
pub const ADDRESS_LEFT_OUT: &str = "(an address GitHub answered that is not a plain URL, left out)";

/// The warning about an address left out: [`URL_REFUSED`]'s text and the address, on one
/// line, cut to 200 characters.
pub fn url_refused(text: &str, url: &str) -> String {
    format!("{text}: {}", log_line(url, 200))
}

/// Title of the warnings about release notes left alone because a human edited them.
pub const HUMAN_EDITED_TITLE: &str = "release note left as a human edited it";

/// Title of the tier decision's warnings.
pub const TIER_WARNING_TITLE: &str = "Tier";

/// A tier warning, as one log line.
pub fn tier_warning(warning: &Warning) -> String {
    log_line(&warning.to_string(), 2000)
}

/// `IMAGE resolves to DIGEST`.
pub fn resolved(image: &str, digest: &Digest) -> String {
    format!("{image} resolves to {digest}")
}

/// `tier REASON`.
pub fn tier(reason: &Reason) -> String {
    format!("tier {}", log_line(&reason.to_string(), 500))
}

/// One pull request behind the tier: number, title, address, labels.
pub fn pull_request(pr: &PullRequest) -> String {
    log_line(
        &format!(
            "  #{} {} <{}> labels: {}",
            pr.number,
            pr.title,
            pr.url,
            pr.labels.join(", ")
        ),
        500,
    )
}

/// The release targets another commit than `GITHUB_SHA`.
pub fn target_commit(target: &str, origin: &LookupOrigin, github_sha: &str) -> String {
    format!("the release targets commit {target}, from {origin} (GITHUB_SHA is {github_sha})")
}

/// A dry run's release note.
pub fn dry_run_release(tag: &str, note: &str) -> String {
    format!("dry run: would publish release {tag}\n\n----- release note -----\n{note}")
}

/// A dry run's tracking issue.
pub fn dry_run_issue(title: &str, body: &str) -> String {
    format!("----- tracking issue: {title} -----\n{body}")
}

/// What happened to the release note; the address as GitHub answered it, on one line
/// without control characters.
pub fn release_note(change: Change, url: &str) -> String {
    format!("release note {change}: {}", log_line(url, 2000))
}

/// What happened to the tracking issue; the address as for [`release_note`].
pub fn tracking_issue(change: Change, url: &str) -> String {
    format!("tracking issue {change}: {}", log_line(url, 2000))
}

/// A line publishing logged (what it found, or did that is unusual), on one line without
/// control characters: it may quote what GitHub answered.
pub fn published_note(note: &str) -> String {
    log_line(note, 2000)
}

/// What happened to the tracking issue's update comment.
pub fn update_comment(change: Change) -> String {
    format!("tracking issue update comment {change}")
}

/// The last line outside Actions (or without a job summary): what the run did.
pub fn run_state(
    state: RunState,
    image: &str,
    digest: &Digest,
    tier: impl std::fmt::Display,
    window: &str,
) -> String {
    let state = match state {
        RunState::Published => "published",
        RunState::Unchanged => "unchanged",
        RunState::DryRun => "dry run",
    };
    format!("{state}: {image} {digest} tier={tier} window: {window}")
}

/// How a run ended, for [`run_state`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunState {
    /// Something changed on GitHub.
    Published,
    /// Everything was already as it should be.
    Unchanged,
    /// A dry run: nothing was sent.
    DryRun,
}
