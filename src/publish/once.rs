//! Creating an object without ever creating it twice by retrying.
//!
//! A POST that failed with a 5xx, timed out or lost its connection may have taken effect
//! (GitHub's docs and the DESIGN notes: the outcome is unknown). So it is never re-sent
//! blindly: the object is looked up again first, and created once more only if absent. A
//! POST refused because the object exists already (a release whose tag a concurrent run has
//! just taken) is followed by the same look-up.

use crate::render::publish as words;
use crate::support::github::{GitHubError, Kind};
use anyhow::{Context, Result};

/// How an object came to be there: the one answer of [`create`] every creator reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Made {
    /// This run's POST answered with it.
    Posted,
    /// A POST whose outcome was unknown, then a look-up that found it: most likely this
    /// run's POST took effect.
    FoundAfterUnknownOutcome,
    /// GitHub refused the POST as a duplicate, then a look-up found it: another run made it.
    FoundAfterConflict,
    /// A POST whose outcome was unknown, a look-up that did not find it, then a second POST
    /// that answered with it. The first may have taken effect after all, behind a listing
    /// that lagged: an object without a unique field (a tracking issue, a comment, a
    /// deployment) may now exist twice, so the caller reads again and keeps the lowest id.
    PostedAfterUnknownOutcome,
}

/// Sends `post`; after a failure whose outcome is unknown (or an "already exists" refusal),
/// calls `find` and returns what it finds, or sends `post` once more when it finds nothing
/// after an unknown outcome (never after an "already exists" refusal: that is an error).
/// `what` names the object for errors and `notes`, e.g. "the release note". Returns the
/// object and how it came to be there; a line in `notes` when a look-up found it after a
/// POST whose outcome was unknown (it was not made twice, but the log says the answer was
/// lost).
///
/// # Errors
/// A POST refused for any other reason (with GitHub's message and the fix), a failed
/// look-up, or a second POST that failed too.
pub(crate) async fn create<T>(
    what: words::Object,
    notes: &mut Vec<String>,
    post: impl AsyncFn() -> Result<T, GitHubError>,
    find: impl AsyncFn() -> Result<Option<T>>,
) -> Result<(T, Made)> {
    let first = match post().await {
        Ok(made) => return Ok((made, Made::Posted)),
        Err(err) if err.outcome_unknown() || err.kind == Kind::AlreadyExists => err,
        Err(err) => return Err(err.into()),
    };
    let found = find()
        .await
        .with_context(|| words::not_looked_up_again(what, &first))?;
    match found {
        Some(made) if first.kind == Kind::AlreadyExists => Ok((made, Made::FoundAfterConflict)),
        Some(made) => {
            notes.push(words::found_after_unknown_outcome(what));
            Ok((made, Made::FoundAfterUnknownOutcome))
        }
        // GitHub says it exists, but the listing does not show it yet: a second POST would
        // be refused the same way.
        None if first.kind == Kind::AlreadyExists => {
            Err(anyhow::Error::new(first).context(words::refused_not_listed(what)))
        }
        None => match post().await {
            Ok(made) => Ok((made, Made::PostedAfterUnknownOutcome)),
            Err(second) => Err(StillAbsent {
                what: what.to_string(),
                first: (first != second).then_some(first),
                second,
            }
            .into()),
        },
    }
}

/// A POST failed, a look-up found nothing, and the second POST failed too. The way out is a
/// re-run (which finds what exists and creates only what is missing); callers that give
/// their own re-run advice leave it out when their error holds this one. Worded by
/// [`words::still_absent`].
#[derive(Debug, thiserror::Error)]
#[error("{}", words::still_absent(what, first.as_ref().map(|f| f as &dyn std::fmt::Display)))]
pub(crate) struct StillAbsent {
    /// The object, e.g. "the release note".
    pub(crate) what: String,
    /// The first POST's failure, when it differs from the second's.
    pub(crate) first: Option<GitHubError>,
    /// The second POST's failure.
    #[source]
    pub(crate) second: GitHubError,
}

impl StillAbsent {
    /// Whether `err` holds a [`StillAbsent`], whose message gives the re-run advice.
    pub(crate) fn within(err: &anyhow::Error) -> bool {
        err.chain().any(<dyn std::error::Error>::is::<StillAbsent>)
    }
}
