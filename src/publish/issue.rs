//! The tracking issue: opened once, its body never edited again (it is the responders'
//! checklist: an edit would untick it). New facts go into one bot comment, edited in place.

use super::once::{self, Made};
use super::{Change, Found, IssuePlan, Published, comment, tracking_issue};
use crate::render::publish as words;
use crate::render::{self, MarkerKind};
use crate::support::github::GitHub;
use crate::support::github::models::{Issue, NewIssue};
use anyhow::{Context, Result};
use std::time::Duration;

/// Finds or opens the tracking issue for `found`'s digest. `plan.new.body` is sent as
/// given (already within GitHub's limit). Records in `done` what it opened as soon as it
/// exists, so that a step failing after it still reports it, and the issue it settled on
/// (and what became of its update comment).
///
/// - Ours exists (open or closed): its body is left alone. When the facts' fingerprint
///   differs from the one it records, the bot's update comment is created or edited.
/// - Absent: opened once (see [`once`]); no listing follows a successful POST (the run that
///   creates the release, or completes a failed run, opens it; a run refused on the release
///   waits for it first, [`after_lost_race`]). Only when a second POST followed one whose
///   outcome was unknown are the issues read again: the first may have opened one after
///   all, behind a listing that lagged, and the lowest number wins ([`give_way`]).
///
/// # Errors
/// A failed call.
pub(super) async fn ensure(
    gh: &GitHub,
    found: &Found,
    plan: &IssuePlan,
    done: &mut Published,
) -> Result<()> {
    if let Some(ours) = found.issue() {
        done.issue = Some((ours.html_url.clone(), Change::Unchanged));
        done.update_comment = update_comment(gh, found, ours, plan, &mut done.notes).await?;
        return Ok(());
    }
    match open(gh, found, plan, done).await? {
        (mine, true) => give_way(gh, found, mine, true, done).await,
        (_, false) => Ok(()),
    }
}

/// After the release POST was refused as existing ([`super::Run::lost_race`], or a refusal whose
/// release the listing never showed): the tracking issue of the run that created the
/// release, which opens it one request after the release. It is looked for now and again
/// after each of `waits`. When it never shows, nobody is opening it (that run failed, or
/// there was none and the release listing lagged), so this run opens it once, then reads the
/// issues again: if a lower-numbered one of ours appeared meanwhile, it closes its own as a
/// duplicate of that one (the lowest number wins, as in [`super::duplicates`]) and reports
/// it ([`give_way`]). What it opened is recorded in `done` at once.
///
/// # Errors
/// A failed call: the run then fails rather than end without the issue.
pub(super) async fn after_lost_race(
    gh: &GitHub,
    found: &Found,
    plan: &IssuePlan,
    waits: &[Duration],
    done: &mut Published,
) -> Result<()> {
    for wait in std::iter::once(&Duration::ZERO).chain(waits) {
        tokio::time::sleep(*wait).await;
        let theirs = tracking_issue(gh, &found.target)
            .await
            .context(words::LOOKING_UP_WINNERS_ISSUE)?;
        if let Some(theirs) = theirs {
            done.issue = Some((theirs.html_url, Change::Unchanged));
            return Ok(());
        }
    }
    let waited = waits.iter().sum();
    done.notes
        .push(words::no_issue_appeared(&found.target.digest, waited));
    let (mine, posted_twice) = open(gh, found, plan, done).await?;
    give_way(gh, found, mine, posted_twice, done).await
}

/// After this run opened `mine` (recorded in `done`) where another run may have opened one
/// too: reads the issues again and, when a lower-numbered one of ours is there, closes
/// `mine` as its duplicate and reports that one (recorded in `done` before the close is
/// tried).
///
/// `posted_twice`: `mine` came from a second POST after one whose outcome was unknown.
/// Then the lower-numbered issue is taken for this run's own first POST, which took effect
/// although its answer was lost: the log says so, and the issue is reported as created by
/// this run. Otherwise it was opened meanwhile by another run, and reported unchanged.
///
/// # Errors
/// A failed read or close, saying which issue exists and what to do.
async fn give_way(
    gh: &GitHub,
    found: &Found,
    mine: Issue,
    posted_twice: bool,
    done: &mut Published,
) -> Result<()> {
    let lowest = (tracking_issue(gh, &found.target).await)
        .with_context(|| words::issues_not_reread(mine.number))?;
    let Some(first) = lowest.filter(|first| first.number < mine.number) else {
        return Ok(());
    };
    let change = match posted_twice {
        true => Change::Created,
        false => Change::Unchanged,
    };
    done.issue = Some((first.html_url.clone(), change));
    let (digest, why) = (&found.target.digest, words::Kept::OpenedFirst);
    let closed = words::duplicate_issue(mine.number, first.number, posted_twice);
    super::duplicates::close_duplicate(gh, &mine, &first, digest, why).await?;
    done.notes.push(closed);
    Ok(())
}

/// Opens the tracking issue once (see [`once`]) and records it in `done`; no listing
/// follows a successful POST. Returns the issue and whether it came from a second POST after
/// one whose outcome was unknown (then the caller checks for a duplicate).
async fn open(
    gh: &GitHub,
    found: &Found,
    plan: &IssuePlan,
    done: &mut Published,
) -> Result<(Issue, bool)> {
    let new = NewIssue {
        labels: super::dedupe_names(&plan.new.labels),
        assignees: super::dedupe_names(&plan.new.assignees),
        ..plan.new.clone()
    };
    let (issue, made) = once::create(
        words::Object::TrackingIssue,
        &mut done.notes,
        async || gh.create_issue(&new).await,
        async || tracking_issue(gh, &found.target).await,
    )
    .await?;
    done.issue = Some((issue.html_url.clone(), Change::Created));
    done.wrote = true;
    Ok((issue, made == Made::PostedAfterUnknownOutcome))
}

/// Keeps the bot's one update comment in step with the facts: nothing when `issue`
/// records the same fingerprint (no read at all), else the comment found by its marker and
/// author is edited when it records other facts, or posted when there is none (read only
/// when the issue has comments), as every marked comment is ([`comment::upsert`]).
async fn update_comment(
    gh: &GitHub,
    found: &Found,
    issue: &Issue,
    plan: &IssuePlan,
    notes: &mut Vec<String>,
) -> Result<Option<Change>> {
    let (digest, evidence) = (&found.target.digest, Some(plan.evidence.as_str()));
    let issue_body = issue.body.as_deref().unwrap_or("");
    if render::recorded_evidence(MarkerKind::TrackingIssue, issue_body) == evidence {
        return Ok(None);
    }
    let kind = MarkerKind::UpdateComment;
    let existing = match issue.comments {
        0 => None,
        _ => comment::ours(gh, issue, kind, digest).await?,
    };
    let body = &plan.update_comment;
    let marked = comment::Marked {
        issue,
        kind,
        digest,
        body,
    };
    let stale = |theirs: &str| render::recorded_evidence(kind, theirs) != evidence;
    let upserted = comment::upsert(gh, marked, existing, stale, false).await?;
    notes.extend(upserted.notes);
    Ok(Some(upserted.change))
}
