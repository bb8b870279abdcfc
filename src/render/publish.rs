//! The words of the GitHub writes (`crate::publish`): the log lines saying what was found,
//! written or left alone, and the errors of a write, each in the one shape ([`Words`]).
//! Addresses and names GitHub answered are shown on one line ([`log_line`]).

use super::words::Words;
use super::{Change, MarkerKind};
use crate::digest::Digest;
use crate::support::sanitize::log_line;

/// What the errors and log lines call a comment of `kind`.
pub(crate) fn comment_name(kind: MarkerKind) -> &'static str {
    match kind {
        MarkerKind::ConvergenceComment => "the convergence comment",
        MarkerKind::SupersededComment => "the superseded comment",
        _ => "the update comment",
    }
}

/// An address or account GitHub answered, on one line.
fn shown(text: &str) -> String {
    log_line(text, 2000)
}

/// The error when the comment of `kind` this run posted (`urls.0`) was written by
/// `posted_as` (the token's account, as GitHub answered the POST) but the tracking issue
/// (`urls.1`) was opened by `opened_by`: later runs count only comments by the issue's
/// author, so every run would post one more. `deleted`: whether the comment was deleted
/// again. `None` for an account GitHub did not name.
pub(crate) fn comment_by_other_account(
    kind: MarkerKind,
    posted_as: Option<&str>,
    opened_by: Option<&str>,
    (comment, issue): (&str, &str),
    deleted: bool,
) -> Words {
    let account = |a: Option<&str>| {
        a.map_or_else(
            || "an account GitHub did not name".to_string(),
            |a| log_line(a, 100),
        )
    };
    let (posted_as, opened_by) = (account(posted_as), account(opened_by));
    let fate = if deleted {
        "it was deleted again".to_string()
    } else {
        format!("deleting it failed too: delete {} by hand", shown(comment))
    };
    Words::new(format!(
        "{} was posted as {posted_as}, but {opened_by} opened the tracking issue",
        comment_name(kind)
    ))
    .help(format!(
        "codeq-rollout edits only comments by the issue's author (anyone else's could be \
         forged), so every run would post one more: {fate}. Run with the GitHub token that \
         opened the tracking issue {} (github-token), or another token of {opened_by}",
        shown(issue)
    ))
}

/// The error when, after a second POST of the comment of `kind` (`posted`: its address),
/// reading the comments again to check that the first POST did not take effect failed.
pub(crate) fn comments_not_reread(kind: MarkerKind, posted: &str) -> Words {
    let name = comment_name(kind);
    Words::new(format!(
        "cannot read the comments again after posting {name} a second time"
    ))
    .help(format!(
        "the first attempt may have taken effect: re-run the job, or delete the later of two \
         such comments by hand (this run posted {})",
        shown(posted)
    ))
}

/// The log line (`deleted`) or the error (not `deleted`) about this run's comment `mine`
/// of `kind`, a duplicate of the earlier `first` whose POST took effect after all.
pub(crate) fn duplicate_comment(kind: MarkerKind, mine: &str, first: &str, deleted: bool) -> Words {
    let (name, mine, first) = (comment_name(kind), shown(mine), shown(first));
    if deleted {
        return Words::new(format!(
            "deleted {name} {mine}, a duplicate of {first} (the first POST took effect after all)"
        ));
    }
    Words::new(format!(
        "{name} {mine} duplicates {first}, and deleting it failed"
    ))
    .help("delete it by hand: the first POST took effect after all")
}

/// The error when the repository holds no release note for `digest` (of `image`, as the
/// user gave it) and no `released-at` was given: nothing says when the release went live.
pub(crate) fn no_release_note(digest: &Digest, image: &str) -> Words {
    Words::new(format!(
        "no release note for sha256:{} ({}) in the repository",
        digest.short(),
        log_line(image, 60)
    ))
    .help("run announce for this image first, or give released-at (--released-at)")
}

/// The log line when `digest` has no open tracking issue (a routine release, or the issue
/// closed): no convergence comment is written.
pub(crate) fn no_open_issue(digest: &Digest) -> String {
    format!("no open tracking issue for {digest}: no convergence comment")
}

/// The log line saying what became of the convergence comment at `url` (as GitHub answered
/// it: the tracking issue's for a post a dry run would make); in a dry run, what would be
/// done, then `dry_run`'s body.
pub(crate) fn comment_done(change: Change, url: &str, dry_run: Option<&str>) -> String {
    let url = shown(url);
    let Some(body) = dry_run else {
        let done = match change {
            Change::Created => "posted",
            Change::Updated => "updated",
            Change::Unchanged => "unchanged",
        };
        return format!("convergence comment {done}: {url}");
    };
    let what = match change {
        Change::Created => format!("would post the convergence comment on {url}"),
        Change::Updated => {
            format!("would edit the convergence comment {url} (its numbers changed)")
        }
        Change::Unchanged => {
            format!("would leave the convergence comment {url} unchanged (same numbers)")
        }
    };
    format!("dry run: {what}\n\n----- convergence comment -----\n{body}")
}
