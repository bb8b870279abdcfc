//! Telling older tracking issues that a newer digest supersedes them: one comment each,
//! found again by its marker so it is never repeated. Closing them is left to the humans.

use super::{Found, comment, find, once};
use crate::render::MarkerKind;
use crate::render::publish as words;
use crate::support::github::GitHub;
use anyhow::Result;

/// Comments on every open tracking issue of another digest that `found` listed
/// ([`find::superseded`]); returns the numbers commented on. `release_url` is the new
/// release note's address. One POST per superseded issue.
///
/// Without `check_first`, in the run that created the release, no comments are read first
/// (none of ours can exist before the release does: only a run that has the release writes
/// them). With it, in a run that found the release (a re-run, or one completing a failed
/// run), only issues that lack ours are commented on: an issue with no comments at once,
/// one with comments after listing them (one GET each).
///
/// # Errors
/// A failed call.
pub(super) async fn comment(
    gh: &GitHub,
    found: &Found,
    release_url: &str,
    check_first: bool,
) -> Result<Vec<u64>> {
    let (kind, digest) = (MarkerKind::SupersededComment, &found.target.digest);
    let mut commented = Vec::new();
    for (old, old_digest) in find::superseded(&found.issues, digest, &found.target.image) {
        // Ours by marker and author, as every marked comment ([`comment::ours`]).
        let ours = async || comment::ours(gh, old, kind, digest).await;
        if check_first && old.comments > 0 && ours().await?.is_some() {
            continue;
        }
        let body = words::superseded_comment(digest, &old_digest, release_url);
        let (_, made) = once::create(
            words::Object::Comment(kind),
            async || gh.create_comment(old.number, &body).await,
            ours,
        )
        .await?;
        if made != once::Made::FoundAfterConflict {
            commented.push(old.number);
        }
    }
    Ok(commented)
}
