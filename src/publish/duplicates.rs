//! Clean-up of duplicates that concurrent runs left despite the release lock: GitHub's tag
//! check is not atomic (two creates for one tag can both succeed), and a run that lists
//! between another run's release and its tracking issue opens an issue too. Whichever run
//! finds them keeps the one with the lowest id (issues: number), the one every run reports.

use super::{Found, find};
use crate::digest::Digest;
use crate::support::github::GitHub;
use crate::support::github::models::Issue;
use crate::support::sanitize;
use anyhow::{Context, Result};

/// Deletes our releases for `found`'s digest other than the lowest id, and closes our open
/// tracking issues other than the one to keep, each with a comment linking it. Writes
/// nothing when there is one of each. Appends a log line per object removed.
///
/// The tracking issue kept is the lowest number, unless responders work in another one: an
/// issue with human activity (a ticked box, a comment by an account other than the one
/// that opened it, [`has_activity`]) is never the one closed. With activity on one
/// duplicate, that one is kept and returned (when it is not the lowest); with activity on
/// several, none of those is closed, and `warnings` says so (the lowest of them is kept).
///
/// # Errors
/// A failed call, naming the duplicate to remove by hand.
pub(super) async fn settle(
    gh: &GitHub,
    found: &Found,
    notes: &mut Vec<String>,
    warnings: &mut Vec<String>,
) -> Result<Option<u64>> {
    let digest = &found.target.digest;
    if let [winner, losers @ ..] =
        find::our_releases(&found.releases, digest, &found.target.tag).as_slice()
    {
        for loser in losers {
            gh.delete_release(loser.id).await.with_context(|| {
                format!(
                    "release id {} duplicates release id {} for {digest}; deleting it failed: \
                     delete it by hand",
                    loser.id, winner.id
                )
            })?;
            notes.push(format!(
                "deleted release id {}, a duplicate of release id {} for {digest} left by \
                 concurrent runs",
                loser.id, winner.id
            ));
        }
    }
    let ours = find::our_issues(&found.issues, digest);
    let [lowest, _, ..] = ours.as_slice() else {
        return Ok(None);
    };
    let mut active: Vec<&Issue> = Vec::new();
    for issue in ours.iter().filter(|i| i.state == "open") {
        let busy = has_activity(gh, issue).await.with_context(|| {
            format!(
                "reading the comments of tracking issue #{}, a duplicate left by concurrent \
                 runs",
                issue.number
            )
        })?;
        if busy {
            active.push(issue);
        }
    }
    let winner = active.first().copied().unwrap_or(lowest);
    if let [first, rest @ ..] = active.as_slice() {
        if !rest.is_empty() {
            let numbers: Vec<String> = active.iter().map(|i| format!("#{}", i.number)).collect();
            warnings.push(format!(
                "tracking issues {} all track {digest} (concurrent runs opened them) and \
                 responders have worked in each (ticked boxes or comments): codeq-rollout closes \
                 none of them; #{} is reported, merge the others into it and close them by hand",
                numbers.join(", "),
                first.number
            ));
        }
    }
    for loser in ours
        .iter()
        .filter(|i| i.state == "open" && i.number != winner.number)
        .filter(|i| !active.iter().any(|a| a.number == i.number))
    {
        let why = if active.is_empty() {
            Kept::OpenedFirst
        } else {
            Kept::Worked
        };
        close_duplicate(gh, loser, winner, digest, why)
            .await
            .with_context(|| {
                format!(
                    "tracking issue #{} duplicates #{} for {digest}; closing it failed: \
                     close it by hand",
                    loser.number, winner.number
                )
            })?;
        notes.push(format!(
            "closed tracking issue #{}, a duplicate of #{} left by concurrent runs",
            loser.number, winner.number
        ));
    }
    Ok((winner.number != lowest.number).then_some(winner.number))
}

/// Whether people work in tracking issue `issue`: a ticked task-list box in its body (the
/// body codeq-rollout opens it with has none), or a comment by an account other than the one
/// that opened it ([`find::by_issue_author`]). Reads the comments only when it has some.
///
/// # Errors
/// A failed read of the comments.
async fn has_activity(gh: &GitHub, issue: &Issue) -> Result<bool> {
    let ticked = issue.body.as_deref().unwrap_or("").lines().any(|line| {
        let item = line.trim_start();
        let item = item
            .strip_prefix("- ")
            .or_else(|| item.strip_prefix("* "))
            .unwrap_or("");
        item.starts_with("[x]") || item.starts_with("[X]")
    });
    if ticked || issue.comments == 0 {
        return Ok(ticked);
    }
    let comments = gh.list_comments(issue.number).await?;
    Ok(comments.iter().any(|c| !find::by_issue_author(issue, c)))
}

/// Why the tracking issue kept among duplicates is the one kept, as its closing comment on
/// the others says ([`duplicate_comment`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kept {
    /// It has the lowest number and nobody works in any of them.
    OpenedFirst,
    /// Responders work in it (a ticked box, a comment, [`has_activity`]), whatever its number.
    Worked,
}

/// Closes `loser` with a comment linking `winner`, kept for `why` ([`duplicate_comment`]).
pub(super) async fn close_duplicate(
    gh: &GitHub,
    loser: &Issue,
    winner: &Issue,
    digest: &Digest,
    why: Kept,
) -> Result<()> {
    gh.create_comment(loser.number, &duplicate_comment(winner, digest, why))
        .await?;
    gh.close_issue(loser.number).await?;
    Ok(())
}

/// The comment on a duplicate tracking issue before it is closed. GitHub reads a comment
/// starting "Duplicate of #N" as marking the issue a duplicate of #N. The winner's address
/// is written only when it is a plain URL ([`sanitize::link_url`]); `#N` links it anyway.
fn duplicate_comment(winner: &Issue, digest: &Digest, why: Kept) -> String {
    let url = sanitize::link_url(&winner.html_url)
        .map(|url| format!(": {url}"))
        .unwrap_or_default();
    let n = winner.number;
    let kept = match why {
        Kept::OpenedFirst => format!("#{n} was opened first"),
        Kept::Worked => {
            format!("Responders work in #{n} (ticked boxes or comments), so it is kept")
        }
    };
    format!(
        "Duplicate of #{n}\n\nTwo codeq-rollout runs announced `{digest}` at the same time and \
         each opened a tracking issue. {kept} and is the one to use{url}\n\n\
         codeq-rollout closes this one.\n",
    )
}
