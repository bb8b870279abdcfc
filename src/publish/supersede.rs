//! Telling older tracking issues that a newer digest supersedes them: one comment each,
//! found again by its marker so it is never repeated. Closing them is left to the humans.

use super::once;
use super::{Found, find};
use crate::render::{self, MarkerKind};
use crate::support::github::GitHub;
use anyhow::Result;

/// In the run that created the release: comments on every open tracking issue of another
/// digest that `found` listed, without reading their comments first (none of ours can exist
/// before the release does: only a run that has the release writes them). One POST per
/// superseded issue. Returns the numbers commented on. `release_url` is the new release
/// note's address.
///
/// # Errors
/// A failed call.
pub(super) async fn announce(gh: &GitHub, found: &Found, release_url: &str) -> Result<Vec<u64>> {
    comment(gh, found, release_url, false).await
}

/// In a run that found the release (a re-run, or one completing a failed run): comments on
/// the open tracking issues of other digests that lack ours. An issue with no comments is
/// commented on at once; one with comments has them listed first (one GET each).
///
/// # Errors
/// A failed call.
pub(super) async fn complete(gh: &GitHub, found: &Found, release_url: &str) -> Result<Vec<u64>> {
    comment(gh, found, release_url, true).await
}

async fn comment(
    gh: &GitHub,
    found: &Found,
    release_url: &str,
    check_first: bool,
) -> Result<Vec<u64>> {
    let digest = &found.target.digest;
    let mut commented = Vec::new();
    for (old, old_digest) in find::superseded(&found.issues, digest, &found.target.image) {
        let has_ours = async || -> Result<Option<()>> {
            let comments = gh.list_comments(old.number).await?;
            Ok(
                find::our_comment(old, &comments, MarkerKind::SupersededComment, digest)
                    .map(|_| ()),
            )
        };
        if check_first && old.comments > 0 && has_ours().await?.is_some() {
            continue;
        }
        let body = render::publish::superseded_comment(digest, &old_digest, release_url);
        if let once::Made::Posted(_)
        | once::Made::FoundAfterUnknownOutcome(_)
        | once::Made::PostedAfterUnknownOutcome(_) = once::create(
            render::publish::Object::Comment(MarkerKind::SupersededComment),
            async || gh.create_comment(old.number, &body).await.map(|_| ()),
            has_ours,
        )
        .await?
        {
            commented.push(old.number);
        }
    }
    Ok(commented)
}
