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
/// tracking issues other than the lowest number, each with a comment linking the winner.
/// Writes nothing when there is one of each. Appends a log line per object removed.
///
/// # Errors
/// A failed call, naming the duplicate to remove by hand.
pub(super) async fn settle(gh: &GitHub, found: &Found, notes: &mut Vec<String>) -> Result<()> {
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
    if let [winner, losers @ ..] = find::our_issues(&found.issues, digest).as_slice() {
        for loser in losers.iter().filter(|i| i.state == "open") {
            close_duplicate(gh, loser, winner, digest)
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
    }
    Ok(())
}

/// Closes `loser` with a comment linking `winner` ([`duplicate_comment`]).
pub(super) async fn close_duplicate(
    gh: &GitHub,
    loser: &Issue,
    winner: &Issue,
    digest: &Digest,
) -> Result<()> {
    gh.create_comment(loser.number, &duplicate_comment(winner, digest))
        .await?;
    gh.close_issue(loser.number).await?;
    Ok(())
}

/// The comment on a duplicate tracking issue before it is closed. GitHub reads a comment
/// starting "Duplicate of #N" as marking the issue a duplicate of #N. The winner's address
/// is written only when it is a plain URL ([`sanitize::link_url`]); `#N` links it anyway.
fn duplicate_comment(winner: &Issue, digest: &Digest) -> String {
    let url = sanitize::link_url(&winner.html_url)
        .map(|url| format!(": {url}"))
        .unwrap_or_default();
    format!(
        "Duplicate of #{n}\n\nTwo codeq-rollout runs announced `{digest}` at the same time and \
         each opened a tracking issue. #{n} was opened first and is the one to use{url}\n\n\
         codeq-rollout closes this one.\n",
        n = winner.number,
    )
}
