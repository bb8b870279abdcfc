//! The convergence comment's bookkeeping on a tracking issue: whether a body is ours,
//! whether to edit it, and what became of it (as data, and the job summary's line about it).
//! Its words are the render layer's ([`crate::render::status`]); the outputs are the run
//! report's ([`crate::report`]); the comment is written by [`crate::publish::comment`].

use crate::render::Change;
use crate::support::sanitize;
use anyhow::Result;
use minijinja::context;

/// Whether `body` carries the "Convergence status" marker for `digest` (its first line is
/// [`comment_marker`]); says nothing of who wrote it ([`crate::publish::our_comment`] does).
#[cfg(test)]
pub(crate) fn is_status_comment(body: &str, digest: &crate::digest::Digest) -> bool {
    crate::render::marker_digest(crate::render::MarkerKind::ConvergenceComment, body).as_ref()
        == Some(digest)
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
        change: Change,
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
                Change::Created => "create",
                Change::Updated => "edit",
                Change::Unchanged => "unchanged",
            };
            (what, sanitize::link_url(url), *dry_run)
        }
    };
    crate::render::templates::render("status_comment_note.md.j2", context! { what, url, dry_run })
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

#[cfg(test)]
mod tests;
