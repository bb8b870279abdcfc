//! Clean-up of duplicates that concurrent runs left despite the release lock: GitHub's tag
//! check is not atomic (two creates for one tag can both succeed), and a run that lists
//! between another run's release and its tracking issue opens an issue too. Whichever run
//! finds them keeps the one with the lowest id (issues: number), the one every run reports.

use super::{Found, find};
use crate::digest::Digest;
use crate::render::publish::{self as words, Kept};
use crate::support::github::GitHub;
use crate::support::github::models::Issue;
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
            let words =
                |removed| words::duplicate_left(false, (loser.id, winner.id), digest, removed);
            gh.delete_release(loser.id)
                .await
                .with_context(|| words(false))?;
            notes.push(words(true).to_string());
        }
    }
    let ours = find::our_issues(&found.issues, digest);
    let [lowest, _, ..] = ours.as_slice() else {
        return Ok(None);
    };
    let mut active: Vec<&Issue> = Vec::new();
    for issue in ours.iter().filter(|i| i.state == "open") {
        let busy = has_activity(gh, issue).await;
        if busy.with_context(|| words::duplicate_not_read(issue.number))? {
            active.push(issue);
        }
    }
    let (winner, why) = match active.first() {
        Some(worked) => (*worked, Kept::Worked),
        None => (*lowest, Kept::OpenedFirst),
    };
    if let [first, _, ..] = active.as_slice() {
        let numbers: Vec<u64> = active.iter().map(|i| i.number).collect();
        warnings.push(words::duplicates_worked_in(&numbers, first.number, digest));
    }
    for loser in ours
        .iter()
        .filter(|i| i.state == "open" && i.number != winner.number)
        .filter(|i| !active.iter().any(|a| a.number == i.number))
    {
        close_duplicate(gh, loser, winner, digest, why).await?;
        let numbers = (loser.number, winner.number);
        notes.push(words::duplicate_left(true, numbers, digest, true).to_string());
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
        let item = line.trim_start().get(..5).unwrap_or("");
        ["- [x]", "- [X]", "* [x]", "* [X]"].contains(&item)
    });
    if ticked || issue.comments == 0 {
        return Ok(ticked);
    }
    let comments = gh.list_comments(issue.number).await?;
    Ok(comments.iter().any(|c| !find::by_issue_author(issue, c)))
}

/// Closes `loser` with a comment linking `winner`, kept for `why`
/// ([`words::duplicate_issue_comment`]).
///
/// # Errors
/// A failed call, naming the duplicate to close by hand ([`words::duplicate_left`]).
pub(super) async fn close_duplicate(
    gh: &GitHub,
    loser: &Issue,
    winner: &Issue,
    digest: &Digest,
    why: Kept,
) -> Result<()> {
    let body = words::duplicate_issue_comment(winner.number, &winner.html_url, digest, why);
    let closed = async {
        gh.create_comment(loser.number, &body).await?;
        gh.close_issue(loser.number).await
    };
    let numbers = (loser.number, winner.number);
    (closed.await).with_context(|| words::duplicate_left(true, numbers, digest, false))?;
    Ok(())
}
