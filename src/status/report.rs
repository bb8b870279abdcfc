//! What `status` writes besides its words (those are the render layer's,
//! [`crate::render::status`]): the Actions outputs, the convergence comment's bookkeeping
//! on a tracking issue (its marker, whether to edit it, what became of it), and the
//! Kubernetes edge's log lines and errors in words.
//!
//! Issue 33: slice A moves the outputs and the comment's items (to the run report and
//! `publish/`), slice C the Kubernetes items (to the render layer).

use super::classify::{Totals, rfc3339};
use crate::digest::Digest;
use crate::support::sanitize;
use anyhow::Result;
use minijinja::context;

/// The Actions outputs: `running`, `updated`, `stale` (idle and active), `stale-active`
/// (counts), `converged` (`true`/`false`), `evidence` (`digest`, or `start-time` when
/// inferred), `mismatch` and `orphans` (counts, 0 by start time) and `converged-by` (RFC 3339 time by which every
/// idle stale server will be gone; empty when there is none or culling is disabled), in
/// the shape [`crate::report::format_outputs`] takes.
pub fn outputs(totals: &Totals) -> Vec<(&'static str, String)> {
    vec![
        ("running", totals.running.to_string()),
        ("updated", totals.updated.to_string()),
        ("stale", totals.stale.to_string()),
        ("stale-active", totals.stale_active.to_string()),
        ("converged", totals.converged.to_string()),
        ("evidence", totals.evidence.name()),
        ("mismatch", totals.mismatch.to_string()),
        ("orphans", totals.orphans.to_string()),
        (
            "converged-by",
            totals.converged_by.map(rfc3339).unwrap_or_default(),
        ),
    ]
}

/// The outputs of a run that failed before the hub was measured: the same names, each
/// empty (nothing was established; an empty `converged` is neither `true` nor `false`).
pub(crate) fn unmeasured_outputs() -> Vec<(&'static str, String)> {
    outputs(&Totals::default())
        .into_iter()
        .map(|(name, _)| (name, String::new()))
        .collect()
}

/// Whether `body` carries the "Convergence status" marker for `digest` (its first line is
/// [`comment_marker`]); says nothing of who wrote it ([`crate::publish::our_comment`] does).
#[cfg(test)]
pub(crate) fn is_status_comment(body: &str, digest: &Digest) -> bool {
    crate::render::marker_digest(crate::render::MarkerKind::ConvergenceComment, body).as_ref()
        == Some(digest)
}

/// What a run does with the "Convergence status" comment, given what exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CommentChange {
    /// None of ours exists: post one.
    Create,
    /// Ours exists with other numbers ([`comment_needs_edit`]): edit it in place.
    Edit,
    /// Ours exists with the same numbers: leave it.
    Unchanged,
}

/// What became of the "Convergence status" comment in a run with `comment: true`: the
/// decision as data, for the job summary's line ([`comment_note`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CommentOutcome {
    /// No open tracking issue for the digest (a routine release, or its issue closed):
    /// nothing written.
    NoOpenIssue,
    /// `change` was made, or with `dry_run` would be made, to the comment at `url` (the
    /// tracking issue's address for a comment not yet posted), as GitHub answered it.
    Decided {
        /// Posted, edited or left unchanged.
        change: CommentChange,
        /// The comment's address (the issue's for a dry run's post).
        url: String,
        /// Nothing was written: what would be done.
        dry_run: bool,
    },
}

/// The job summary's line saying what became of the convergence comment (posted, edited,
/// left unchanged, or none without an open tracking issue; in a dry run, what would be
/// done), linking the comment when its address is a plain URL
/// ([`sanitize::link_url`]); `templates/status_comment_note.md.j2`. Starts with a blank
/// line, to follow the summary.
///
/// # Errors
/// A template that fails to render (a bug, caught by the snapshot tests).
pub(crate) fn comment_note(outcome: &CommentOutcome) -> Result<String> {
    let (what, url, dry_run) = match outcome {
        CommentOutcome::NoOpenIssue => ("no-open-issue", None, false),
        CommentOutcome::Decided {
            change,
            url,
            dry_run,
        } => {
            let what = match change {
                CommentChange::Create => "create",
                CommentChange::Edit => "edit",
                CommentChange::Unchanged => "unchanged",
            };
            (what, sanitize::link_url(url), *dry_run)
        }
    };
    crate::render::status::render_template(
        "status_comment_note.md.j2",
        context! { what, url, dry_run },
    )
}

/// A dry run's convergence comment: what would be done, where (`url`: the comment's address
/// for an edit or no change, the tracking issue's for a new one, as GitHub answered it, one
/// line), then the body.
pub(crate) fn dry_run_comment(change: CommentChange, url: &str, body: &str) -> String {
    let url = sanitize::log_line(url, 2000);
    let what = match change {
        CommentChange::Create => format!("would post the convergence comment on {url}"),
        CommentChange::Edit => {
            format!("would edit the convergence comment {url} (its numbers changed)")
        }
        CommentChange::Unchanged => {
            format!("would leave the convergence comment {url} unchanged (same numbers)")
        }
    };
    format!("dry run: {what}\n\n----- convergence comment -----\n{body}")
}

/// The error when the convergence comment this run posted was written by `posted_as` (the
/// token's account, as GitHub answered the POST) but the tracking issue `issue_url` was
/// opened by `opened_by`: later runs count only comments by the issue's author
/// ([`crate::publish::our_comment`]), so every run would post one more. `deleted` says
/// whether the comment (`comment_url`) was deleted again. Accounts and addresses come from
/// GitHub: one line each, capped. `None` for an account GitHub did not name.
pub(crate) fn comment_by_other_account(
    posted_as: Option<&str>,
    opened_by: Option<&str>,
    comment_url: &str,
    issue_url: &str,
    deleted: bool,
) -> String {
    let account = |a: Option<&str>| {
        a.map_or_else(
            || "an account GitHub did not name".to_string(),
            |a| sanitize::log_line(a, 100),
        )
    };
    let (posted_as, opened_by) = (account(posted_as), account(opened_by));
    let fate = if deleted {
        "it was deleted again".to_string()
    } else {
        format!(
            "deleting it failed too: delete {} by hand",
            sanitize::log_line(comment_url, 2000)
        )
    };
    format!(
        "the convergence comment was posted as {posted_as}, but the tracking issue {} was opened by {opened_by}; status only edits comments by the issue's author (anyone else's could be forged), so every run would post one more: {fate}. Run status with the GitHub token announce used (github-token), or another token of {opened_by}",
        sanitize::log_line(issue_url, 2000)
    )
}

/// What a status run calls its comment in errors about creating it ([`crate::publish::once`]).
pub(crate) const CONVERGENCE_COMMENT: &str = "the convergence comment";

/// The error when the repository holds no release note for `digest` (of `image`, as the
/// user gave it) and no `released-at` was given: nothing says when the release went live.
pub(crate) fn no_release_note(digest: &Digest, image: &str) -> String {
    format!(
        "no release note for {digest} ({image}) in the repository: run announce for this image first, or give released-at (--released-at)"
    )
}

/// The log line when `digest` has no open tracking issue (a routine release, or the issue
/// closed): no comment is written.
pub(crate) fn no_open_issue(digest: &Digest) -> String {
    format!("no open tracking issue for {digest}: no convergence comment")
}

/// The log line saying what became of the convergence comment at `url` (as GitHub answered
/// it, one line).
pub(crate) fn comment_done(change: CommentChange, url: &str) -> String {
    let done = match change {
        CommentChange::Create => "posted",
        CommentChange::Edit => "updated",
        CommentChange::Unchanged => "unchanged",
    };
    format!(
        "convergence comment {done}: {}",
        sanitize::log_line(url, 2000)
    )
}

/// The error when, after a second comment POST (`posted`: its address), reading the comments
/// again to check that the first POST did not take effect failed.
pub(crate) fn comments_not_reread(posted: &str) -> String {
    format!(
        "this run posted convergence comment {} after a failed first attempt; reading the comments again to check that the first did not take effect failed: re-run, or delete the later of two convergence comments by hand",
        sanitize::log_line(posted, 2000)
    )
}

/// The log line (`deleted`) or the error (not `deleted`) about this run's comment `mine`, a
/// duplicate of the earlier `first` whose POST took effect after all. Addresses as GitHub
/// answered them, one line each.
pub(crate) fn duplicate_comment(mine: &str, first: &str, deleted: bool) -> String {
    let (mine, first) = (
        sanitize::log_line(mine, 2000),
        sanitize::log_line(first, 2000),
    );
    if deleted {
        format!(
            "deleted convergence comment {mine}, a duplicate of {first} (the first POST took effect after all)"
        )
    } else {
        format!(
            "convergence comment {mine} duplicates {first}, whose POST took effect after all; deleting it failed: delete it by hand"
        )
    }
}

/// Whether the existing comment `existing` must be edited to become `new` (both bodies of
/// [`crate::render::status::comment`]): only when the numbers differ (running, updated, stale, pending, overdue,
/// converged, the deadlines, and the listed servers when names are shown), or the progress
/// chart's history line (which gains a point only when the numbers change, or is written
/// afresh when the one there was refused). The time of measurement alone never causes an
/// edit. A body without the numbers line (edited by
/// hand, or from another version) is edited.
pub(crate) fn comment_needs_edit(existing: &str, new: &str) -> bool {
    fn line<'b>(body: &'b str, prefix: &str) -> Option<&'b str> {
        body.lines().map(str::trim).find(|l| l.starts_with(prefix))
    }
    let numbers = |body| line(body, "<!-- codeq-rollout:convergence-numbers ");
    let history = |body| line(body, "<!-- codeq-rollout:convergence-history");
    match (numbers(existing), numbers(new)) {
        (Some(a), Some(b)) => a != b || history(existing) != history(new),
        _ => true,
    }
}

pub(crate) mod deployment;

#[cfg(test)]
mod tests;
