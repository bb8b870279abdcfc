//! The release note: create it once, or update its body only.

use super::once::{self, Made};
use super::{Change, Found, Plan, find};
use crate::github::GitHub;
use crate::github::models::Release;
use anyhow::{Context, Result};

/// Makes the release match `plan`, given what `found` saw. `body` is the note as sent
/// (already within GitHub's limit). Returns the release's address and what changed, and
/// appends log lines to `notes`.
///
/// - Ours exists: its body is replaced when it differs, and nothing else is sent: draft,
///   pre-release and latest state stay as they are.
/// - Absent: created once (see [`once`]), then the releases are listed again: when a
///   concurrent run made one too, the lowest id wins and this run deletes its own.
///
/// # Errors
/// A failed call, or a tag taken meanwhile by a release that is not ours.
pub async fn ensure(
    gh: &GitHub,
    found: &Found,
    plan: &Plan,
    body: &str,
    notes: &mut Vec<String>,
) -> Result<(String, Change)> {
    let target = &found.target;
    if let Some(ours) = found.release() {
        if ours.body.as_deref().unwrap_or("") == body {
            return Ok((ours.html_url.clone(), Change::Unchanged));
        }
        let updated = update_body(gh, found, ours, body).await?;
        notes.push(format!(
            "release note {} updated: its body differed from the note rendered now",
            ours.tag_name
        ));
        return Ok((updated, Change::Updated));
    }

    let new = crate::github::models::NewRelease {
        body: body.to_string(),
        ..plan.release.clone()
    };
    let made = once::create(
        "the release note",
        async || gh.create_release(&new).await,
        async || {
            let releases = gh.list_releases().await?;
            find::check_tag(&releases, &target.digest, &target.tag)?;
            Ok(find::our_releases(&releases, &target.digest)
                .first()
                .map(|r| (*r).clone()))
        },
    )
    .await?;
    match made {
        Made::Posted(mine) => settle_race(gh, found, mine, notes).await,
        Made::FoundAfterUnknownOutcome(r) => {
            notes.push(format!(
                "creating release {} failed with an unknown outcome; a fresh look-up found it, \
                 so it was not created twice",
                r.tag_name
            ));
            Ok((r.html_url, Change::Created))
        }
        Made::FoundAfterConflict(r) => {
            notes.push(format!(
                "release {} was created meanwhile by another run; using it",
                r.tag_name
            ));
            Ok((r.html_url, Change::Unchanged))
        }
    }
}

/// Lists the releases again after creating `mine`: when duplicates exist, the lowest id
/// wins and a losing `mine` is deleted.
async fn settle_race(
    gh: &GitHub,
    found: &Found,
    mine: Release,
    notes: &mut Vec<String>,
) -> Result<(String, Change)> {
    let digest = &found.target.digest;
    let again = gh
        .list_releases()
        .await
        .context("listing releases again to check that no concurrent run made one too")?;
    match find::our_releases(&again, digest).first() {
        Some(winner) if winner.id != mine.id => {
            gh.delete_release(mine.id).await.with_context(|| {
                format!(
                    "a concurrent run created release id {} for {digest} first; deleting this \
                     run's duplicate (id {}) failed: delete it by hand",
                    winner.id, mine.id
                )
            })?;
            notes.push(format!(
                "a concurrent run created release id {} for {digest} first; deleted this run's \
                 duplicate (id {})",
                winner.id, mine.id
            ));
            Ok((winner.html_url.clone(), Change::Unchanged))
        }
        _ => Ok((mine.html_url, Change::Created)),
    }
}

/// Replaces the body of `ours` (and only its body). After a PATCH with an unknown outcome,
/// reads the release again and patches once more only if the body still differs.
async fn update_body(gh: &GitHub, found: &Found, ours: &Release, body: &str) -> Result<String> {
    let err = match gh.update_release_body(ours.id, body).await {
        Ok(updated) => return Ok(updated.html_url),
        Err(err) if err.outcome_unknown() => err,
        Err(err) => return Err(err.into()),
    };
    let again = gh.list_releases().await.with_context(|| {
        format!(
            "reading release {} again after a failed update ({err})",
            ours.tag_name
        )
    })?;
    let current = find::our_releases(&again, &found.target.digest)
        .first()
        .map(|r| (*r).clone());
    match current {
        Some(r) if r.body.as_deref() == Some(body) => Ok(r.html_url),
        _ => Ok(gh
            .update_release_body(ours.id, body)
            .await
            .with_context(|| {
                format!(
                    "updating release {} failed twice ({err}); re-run the job",
                    ours.tag_name
                )
            })?
            .html_url),
    }
}
