//! Telling older tracking issues that a newer digest supersedes them: one comment each,
//! kept as every marked comment is ([`comment::upsert`]), so it is never repeated. Closing
//! them is left to the humans.

use super::comment::{self, ByAnotherAccount, Marked};
use super::{Change, Found, Published, find};
use crate::render::MarkerKind;
use crate::render::publish as words;
use crate::support::github::GitHub;
use anyhow::Result;

/// Comments on every open tracking issue of another digest that `done`'s run found
/// ([`find::superseded`]), recording in `done` the numbers commented on (as each is), the
/// notes, and a warning for each comment GitHub answered as another account's than the old
/// issue's author (deleted again, [`comment::upsert`]): such an issue stays without it, and
/// the run goes on. `release_url` is the new release note's address. One POST per
/// superseded issue.
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
    done: &mut Published,
) -> Result<()> {
    let (kind, digest) = (MarkerKind::SupersededComment, &found.target.digest);
    for (old, old_digest) in find::superseded(&found.issues, digest, &found.target.image) {
        let existing = match check_first && old.comments > 0 {
            true => comment::ours(gh, old, kind, digest).await?,
            false => None,
        };
        let body = &words::superseded_comment(digest, &old_digest, release_url);
        let marked = Marked {
            issue: old,
            kind,
            digest,
            body,
        };
        let upserted = match comment::upsert(gh, marked, existing, |_| false, false).await {
            Err(err) if err.downcast_ref::<ByAnotherAccount>().is_some() => {
                done.warnings.push(err.to_string());
                continue;
            }
            upserted => upserted?,
        };
        done.notes.extend(upserted.notes);
        if upserted.change == Change::Created {
            done.superseded.push(old.number);
        }
    }
    Ok(())
}
