//! Telling older tracking issues that a newer digest supersedes them: one comment each,
//! found again by its marker so it is never repeated. Closing them is left to the humans.

use super::once;
use super::{Found, find};
use crate::digest::Digest;
use crate::github::GitHub;
use crate::render::{self, MarkerKind};
use anyhow::Result;

/// Comments once on every open tracking issue of another digest that `found` listed, and
/// returns the numbers commented on by this run. Comments are only listed for issues that
/// have some (an issue with none cannot hold ours). `release_url` is the new release note's
/// address.
///
/// # Errors
/// A failed call.
pub async fn comment(gh: &GitHub, found: &Found, release_url: &str) -> Result<Vec<u64>> {
    let digest = &found.target.digest;
    let Some(issues) = &found.issues else {
        return Ok(Vec::new());
    };
    let mut commented = Vec::new();
    for (old, old_digest) in find::superseded(issues, digest) {
        let has_ours = async || -> Result<Option<()>> {
            let comments = gh.list_comments(old.number).await?;
            Ok(
                find::our_comment(old, &comments, MarkerKind::SupersededComment, digest)
                    .map(|_| ()),
            )
        };
        if old.comments > 0 && has_ours().await?.is_some() {
            continue;
        }
        let body = superseded_comment(digest, &old_digest, release_url);
        if let once::Made::Posted(_) | once::Made::FoundAfterUnknownOutcome(_) = once::create(
            "the superseded comment",
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

/// The comment left on an older tracking issue when a newer digest is announced.
pub fn superseded_comment(new: &Digest, old: &Digest, release_url: &str) -> String {
    format!(
        "{}\nA newer image supersedes this one: `{new}` ([release note]({release_url})).\n\n\
         The break-glass target is now the new digest: servers still on `{}` or on any other \
         older image are stale. If you run the runbook here, use `DIGEST={new}`. \
         codeq-rollout leaves closing this issue to you.\n",
        render::marker(MarkerKind::SupersededComment, new),
        render::short_digest(old),
    )
}
