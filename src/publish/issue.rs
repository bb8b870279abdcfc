//! The tracking issue: opened once, its body never edited again (it is the responders'
//! checklist: an edit would untick it). New facts go into one bot comment, edited in place.

use super::once::{self, Made};
use super::{Change, Done, Found, IssuePlan, comment};
use crate::render::{self, MarkerKind};
use crate::support::github::GitHub;
use crate::support::github::models::{Issue, NewIssue};
use anyhow::{Context, Result};
use std::time::Duration;

/// What happened to the tracking issue.
#[derive(Debug, Clone)]
pub(super) struct IssueOutcome {
    /// The issue's web address.
    pub url: String,
    /// Whether this run opened it.
    pub change: Change,
    /// What happened to the bot's update comment, when one was needed.
    pub comment: Option<Change>,
}

/// Finds or opens the tracking issue for `found`'s digest. `plan.new.body` is sent as
/// given (already within GitHub's limit). Records in `done` what it opened as soon as it
/// exists, so that a step failing after it still reports it, and the issue it settled on
/// when it returns.
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
    notes: &mut Vec<String>,
    done: &mut Done,
) -> Result<IssueOutcome> {
    let outcome = match found.issue() {
        Some(ours) => IssueOutcome {
            url: ours.html_url.clone(),
            change: Change::Unchanged,
            comment: update_comment(gh, found, ours, plan, notes).await?,
        },
        None => match open(gh, found, plan, notes, done).await? {
            (mine, true) => give_way(gh, found, mine, true, notes, done).await?,
            (mine, false) => opened(mine),
        },
    };
    done.issue = Some((outcome.url.clone(), outcome.change));
    Ok(outcome)
}

/// After the release POST was refused as existing ([`super::lost_race`], or a refusal whose
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
    notes: &mut Vec<String>,
    done: &mut Done,
) -> Result<IssueOutcome> {
    for wait in std::iter::once(&Duration::ZERO).chain(waits) {
        tokio::time::sleep(*wait).await;
        let theirs = read_ours(gh, found)
            .await
            .context("looking up the tracking issue of the run that created the release")?;
        if let Some(theirs) = theirs {
            return Ok(unchanged(theirs));
        }
    }
    notes.push(format!(
        "no tracking issue for {} appeared within {}: no other run is opening it, so this run \
         opens it",
        found.target.digest,
        humantime::format_duration(waits.iter().sum())
    ));
    let (mine, posted_twice) = open(gh, found, plan, notes, done).await?;
    give_way(gh, found, mine, posted_twice, notes, done).await
}

/// After this run opened `mine` where another run may have opened one too: reads the
/// issues again and, when a lower-numbered one of ours is there, closes `mine` as its
/// duplicate and reports that one (recorded in `done` before the close is tried).
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
    notes: &mut Vec<String>,
    done: &mut Done,
) -> Result<IssueOutcome> {
    let lowest = read_ours(gh, found).await.with_context(|| {
        format!(
            "this run opened tracking issue #{}, then reading the tracking issues again to \
             check that no other run opened one meanwhile failed; re-run the job: it keeps \
             the lowest number and closes any duplicate",
            mine.number
        )
    })?;
    match lowest {
        Some(first) if first.number < mine.number => {
            let change = if posted_twice {
                Change::Created
            } else {
                Change::Unchanged
            };
            done.issue = Some((first.html_url.clone(), change));
            super::duplicates::close_duplicate(
                gh,
                &mine,
                &first,
                &found.target.digest,
                super::duplicates::Kept::OpenedFirst,
            )
            .await
            .with_context(|| {
                format!(
                    "tracking issue #{} duplicates #{}, opened meanwhile by another run; \
                         closing it failed: close it by hand",
                    mine.number, first.number
                )
            })?;
            notes.push(if posted_twice {
                format!(
                    "closed tracking issue #{}, a duplicate of #{}: this run's first request \
                     opened #{} although its answer was lost, so the request sent again opened \
                     #{} too",
                    mine.number, first.number, first.number, mine.number
                )
            } else {
                format!(
                    "closed tracking issue #{}, a duplicate of #{} opened meanwhile by another \
                     run",
                    mine.number, first.number
                )
            });
            Ok(if posted_twice {
                opened(first)
            } else {
                unchanged(first)
            })
        }
        _ => Ok(opened(mine)),
    }
}

/// The outcome of finding `issue`, opened by another run or an earlier one.
fn unchanged(issue: Issue) -> IssueOutcome {
    IssueOutcome {
        url: issue.html_url,
        change: Change::Unchanged,
        comment: None,
    }
}

/// The outcome of this run opening `issue`.
fn opened(issue: Issue) -> IssueOutcome {
    IssueOutcome {
        url: issue.html_url,
        change: Change::Created,
        comment: None,
    }
}

/// Our tracking issue for `found`'s digest as GitHub lists it now ([`super::tracking_issue`]).
async fn read_ours(gh: &GitHub, found: &Found) -> Result<Option<Issue>> {
    super::tracking_issue(gh, &found.target).await
}

/// Opens the tracking issue once (see [`once`]) and records it in `done`; no listing
/// follows a successful POST. Returns the issue and whether it came from a second POST after
/// one whose outcome was unknown (then the caller checks for a duplicate).
async fn open(
    gh: &GitHub,
    found: &Found,
    plan: &IssuePlan,
    notes: &mut Vec<String>,
    done: &mut Done,
) -> Result<(Issue, bool)> {
    let new = NewIssue {
        labels: super::dedupe_names(&plan.new.labels),
        assignees: super::dedupe_names(&plan.new.assignees),
        ..plan.new.clone()
    };
    let made = once::create(
        "the tracking issue",
        async || gh.create_issue(&new).await,
        async || read_ours(gh, found).await,
    )
    .await?;
    let (issue, posted_twice) = match made {
        Made::Posted(mine) => (mine, false),
        Made::PostedAfterUnknownOutcome(mine) => (mine, true),
        Made::FoundAfterUnknownOutcome(issue) | Made::FoundAfterConflict(issue) => {
            notes.push(format!(
                "opening the tracking issue failed with an unknown outcome; a fresh look-up \
                 found #{}, so it was not opened twice",
                issue.number
            ));
            (issue, false)
        }
    };
    done.issue = Some((issue.html_url.clone(), Change::Created));
    done.wrote = true;
    Ok((issue, posted_twice))
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
    let done = comment::upsert(gh, marked, existing, stale, false).await?;
    notes.extend(done.notes);
    Ok(Some(done.change))
}
