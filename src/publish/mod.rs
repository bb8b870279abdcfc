//! Stage 5, the only stage that writes: find-or-create the release note and, for security
//! releases, the tracking issue; comment on tracking issues a newer digest supersedes.
//!
//! Identity is the image digest, carried by the hidden marker on the first line of each
//! body ([`render::marker`]) and by the digest-derived release tag. Objects are found by
//! listing (releases: every page, drafts included; issues: by the tracking labels, open and
//! closed), never by title and never through the search API, whose index lags.
//!
//! A run has two steps. [`look_up`] reads what exists, before anything is rendered, so that
//! a re-run renders with the original announce time ([`Found::announced_at`]) and so gets
//! byte-identical bodies. [`publish`] then compares the desired state with what exists and
//! writes only what differs, in an order that a re-run can always complete:
//!
//! 1. the tracking issue (security): it must exist even if the release step fails;
//! 2. the superseded comments on older open tracking issues;
//! 3. the release note, last: when it exists, every earlier step has been done.
//!
//! Writes are never retried blindly ([`once`]); after creating an object the list is read
//! again and, if a concurrent run made a duplicate, the lowest id wins and the run that
//! made the other removes it (deletes its release, closes its issue with a link).

mod find;
mod issue;
mod once;
mod release;
mod supersede;

pub use supersede::superseded_comment;

use crate::digest::Digest;
use crate::github::GitHub;
use crate::github::models::{Issue, NewIssue, NewRelease, Release};
use crate::render::{self, ISSUE_BODY_LIMIT, RELEASE_BODY_LIMIT};
use anyhow::{Context, Result, bail};
use time::OffsetDateTime;

/// What happened to one object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Change {
    /// This run created it.
    Created,
    /// This run updated it (a release body, or the bot's update comment).
    Updated,
    /// It existed and matched: no write.
    Unchanged,
}

impl std::fmt::Display for Change {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Change::Created => "created",
            Change::Updated => "updated",
            Change::Unchanged => "unchanged",
        })
    }
}

/// What identifies this run's objects on GitHub; known before anything is rendered.
#[derive(Debug, Clone)]
pub struct Target {
    /// The digest being announced.
    pub digest: Digest,
    /// The release tag derived from it ([`release_tag`]).
    pub tag: String,
    /// Labels that find tracking issues (`--tracking-labels`), at least one.
    pub tracking_labels: Vec<String>,
    /// Whether this run has a tracking issue (security tier).
    pub tracking_issue: bool,
}

/// What exists on GitHub for a [`Target`], as [`look_up`] read it.
#[derive(Debug, Clone)]
pub struct Found {
    target: Target,
    releases: Vec<Release>,
    /// Tracking issues: all states for a security run, open ones for a routine run that may
    /// supersede some, `None` when not needed (a routine run whose release exists).
    issues: Option<Vec<Issue>>,
}

impl Found {
    /// The target looked up.
    pub fn target(&self) -> &Target {
        &self.target
    }

    /// Our release for the digest (the lowest id if a race left several).
    pub fn release(&self) -> Option<&Release> {
        find::our_releases(&self.releases, &self.target.digest)
            .first()
            .copied()
    }

    /// Our tracking issue for the digest, open or closed (the lowest number if several).
    pub fn issue(&self) -> Option<&Issue> {
        let issues = self.issues.as_deref()?;
        find::our_issues(issues, &self.target.digest)
            .first()
            .copied()
    }

    /// When the digest was first announced: the time recorded in our release note, else its
    /// publication time; `None` when there is no release yet. A re-run renders with it, so
    /// the convergence deadlines, and with them the whole note, stay the same.
    pub fn announced_at(&self) -> Option<OffsetDateTime> {
        let release = self.release()?;
        render::announced_at(release.body.as_deref().unwrap_or("")).or_else(|| {
            OffsetDateTime::parse(
                release.published_at.as_deref()?,
                &time::format_description::well_known::Rfc3339,
            )
            .ok()
        })
    }
}

/// Reads what exists for `target`: every page of releases (drafts included), then, when
/// needed, the tracking issues in one listing that serves both find-or-create and the
/// supersede check. Two requests at most on a repository with under 100 of each.
///
/// # Errors
/// A failed call, or the release tag held by a release that codeq-rollout did not create
/// (nothing is written then).
pub async fn look_up(gh: &GitHub, target: &Target) -> Result<Found> {
    check_tracking_labels(&target.tracking_labels)?;
    let releases = gh
        .list_releases()
        .await
        .context("looking for the release note of this digest")?;
    find::check_tag(&releases, &target.digest, &target.tag)?;
    let has_release = !find::our_releases(&releases, &target.digest).is_empty();
    let state = match (target.tracking_issue, has_release) {
        (true, _) => Some("all"),
        (false, false) => Some("open"),
        (false, true) => None,
    };
    let issues = match state {
        Some(state) => Some(
            gh.list_issues(&target.tracking_labels, state)
                .await
                .context("looking for tracking issues")?,
        ),
        None => None,
    };
    Ok(Found {
        target: target.clone(),
        releases,
        issues,
    })
}

/// The desired state of one run, rendered with [`Found::announced_at`] when there is one.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The release to create; only its body is ever sent again.
    pub release: NewRelease,
    /// The tracking issue (security only).
    pub issue: Option<IssuePlan>,
    /// The release note's address as it will be: `{server}/{o}/{r}/releases/tag/{tag}`.
    pub release_url: String,
    /// Where the full text of a body cut to GitHub's limit can be read (the workflow run).
    pub full_text_at: String,
}

/// The tracking issue part of a [`Plan`].
#[derive(Debug, Clone)]
pub struct IssuePlan {
    /// The issue to open. Its body links the release note's predicted address.
    pub new: NewIssue,
    /// The fingerprint of the facts it states ([`render::evidence_fingerprint`]).
    pub evidence: String,
    /// The bot's update comment, sent when an existing issue records other facts
    /// ([`render::tracking_update`]).
    pub update_comment: String,
}

/// What publishing did.
#[derive(Debug, Clone)]
pub struct Published {
    /// The release's web address.
    pub release_url: String,
    /// What happened to the release.
    pub release_change: Change,
    /// The tracking issue's web address and what happened to it (security only).
    pub issue: Option<(String, Change)>,
    /// What happened to the bot's update comment on the tracking issue, when one was due.
    pub update_comment: Option<Change>,
    /// Numbers of older tracking issues that got a "superseded" comment this run.
    pub superseded: Vec<u64>,
    /// Lines for the log: what was found and why nothing, or something unusual, was done.
    pub notes: Vec<String>,
}

impl Published {
    /// Whether this run changed what is announced (the `changed` output).
    pub fn changed(&self) -> bool {
        let changed = |c: Change| c != Change::Unchanged;
        changed(self.release_change)
            || self.issue.as_ref().is_some_and(|(_, c)| changed(*c))
            || self.update_comment.is_some_and(changed)
            || !self.superseded.is_empty()
    }
}

/// Makes GitHub match `plan`, given what `found` saw (see the module docs for the order).
/// Bodies over GitHub's limits are cut with a note saying where the full text is.
///
/// When the digest was already announced from another commit (the same image rebuilt),
/// nothing is written: a rebuild that produced an identical image announces nothing.
///
/// # Errors
/// A failed GitHub call (with the permission to add where that is the cause), or a
/// duplicate left by a lost race that could not be removed.
pub async fn publish(gh: &GitHub, found: &Found, plan: &Plan) -> Result<Published> {
    let mut notes = Vec::new();
    let existing = found.release();
    if let Some(release) = existing {
        if !release
            .target_commitish
            .eq_ignore_ascii_case(&plan.release.target_commitish)
        {
            notes.push(format!(
                "{} is already announced by {} (from commit {}): the same image rebuilt from \
                 another commit announces nothing",
                found.target.digest, release.html_url, release.target_commitish
            ));
            return Ok(Published {
                release_url: release.html_url.clone(),
                release_change: Change::Unchanged,
                issue: found
                    .issue()
                    .map(|i| (i.html_url.clone(), Change::Unchanged)),
                update_comment: None,
                superseded: Vec::new(),
                notes,
            });
        }
    }

    let mut issue = None;
    let mut update_comment = None;
    if let Some(issue_plan) = &plan.issue {
        let mut fitted = issue_plan.clone();
        fitted.new.body = fit(&fitted.new.body, ISSUE_BODY_LIMIT, plan);
        fitted.update_comment = fit(&fitted.update_comment, ISSUE_BODY_LIMIT, plan);
        let outcome = issue::ensure(gh, found, &fitted, &mut notes)
            .await
            .context("publishing the tracking issue")?;
        issue = Some((outcome.url, outcome.change));
        update_comment = outcome.comment;
    }

    let superseded = if existing.is_none() {
        supersede::comment(gh, found, &plan.release_url)
            .await
            .context("commenting on superseded tracking issues")?
    } else {
        Vec::new()
    };

    let body = fit(&plan.release.body, RELEASE_BODY_LIMIT, plan);
    let (release_url, release_change) = release::ensure(gh, found, plan, &body, &mut notes)
        .await
        .context("publishing the release note")?;

    Ok(Published {
        release_url,
        release_change,
        issue,
        update_comment,
        superseded,
        notes,
    })
}

/// `body` cut to `limit` characters with a note naming where the full text is.
fn fit(body: &str, limit: usize, plan: &Plan) -> String {
    render::truncate_body(body, limit, &plan.full_text_at)
}

/// The release tag for `digest`: `<name>-<12 hex>`, e.g. `lab-9f86d081884c`; no `/`, so it
/// needs no escaping in API paths.
pub fn release_tag(short_name: &str, digest: &Digest) -> String {
    format!("{short_name}-{}", digest.short())
}

/// Checks that `issues` can be found by labels: at least one tracking label is needed.
///
/// # Errors
/// An empty list, naming the input.
pub fn check_tracking_labels(labels: &[String]) -> Result<()> {
    if labels.is_empty() {
        bail!(
            "tracking-labels is empty: tracking issues are found by their labels, so give at least one (default security,break-glass)"
        );
    }
    Ok(())
}
