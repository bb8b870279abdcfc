//! Stage 5, the only stage that writes: find-or-create the release note and, for security
//! releases, the tracking issue; comment on tracking issues a newer digest supersedes.
//!
//! Identity is the image digest, carried by the hidden marker on the first line of each
//! body ([`render::marker`]) and by the digest-derived release tag. Objects are found by
//! listing (releases: every page, drafts included; issues: by the tracking labels, open and
//! closed), never by title and never through the search API, whose index lags.
//! An object is compared with its desired state and only what differs is written.

use crate::digest::Digest;
use crate::github::models::{Account, Issue, NewIssue, NewRelease, Release};
use crate::github::{GitHub, GitHubError};
use crate::render::{self, MarkerKind};
use anyhow::{Result, bail};

/// What happened to one object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Change {
    /// This run created it.
    Created,
    /// This run updated it (release body only).
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

/// The desired state of one run.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The digest being announced.
    pub digest: Digest,
    /// The release to create (tag derived from the digest).
    pub release: NewRelease,
    /// The tracking issue to open (security only). Its body is rendered by the caller with
    /// the release's address, which is known before the release exists.
    pub issue: Option<NewIssue>,
    /// Labels that find tracking issues (`--tracking-labels`).
    pub tracking_labels: Vec<String>,
    /// The release note's address as it will be: `{server}/{o}/{r}/releases/tag/{tag}`.
    pub release_url: String,
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
    /// Numbers of older tracking issues that got a "superseded" comment this run.
    pub superseded: Vec<u64>,
}

impl Published {
    /// Whether this run wrote anything.
    pub fn changed(&self) -> bool {
        self.release_change != Change::Unchanged
            || self
                .issue
                .as_ref()
                .is_some_and(|(_, c)| *c != Change::Unchanged)
            || !self.superseded.is_empty()
    }
}

/// Carries out `plan` against GitHub.
///
/// Order: the tracking issue first (a security release must have its runbook even if the
/// release step then fails), then the release, then supersede comments.
///
/// # Errors
/// A tag already used by a release codeq-rollout did not create; any failed GitHub call
/// (with the permission to add where that is the cause).
pub async fn publish(gh: &GitHub, plan: &Plan) -> Result<Published> {
    let releases = gh.list_releases().await?;
    let existing = find_release(&releases, &plan.digest, &plan.release.tag_name)?;

    let issues = if plan.issue.is_some() {
        gh.list_issues(&plan.tracking_labels, "all").await?
    } else {
        gh.list_issues(&plan.tracking_labels, "open").await?
    };

    let issue = match &plan.issue {
        Some(new) => Some(ensure_issue(gh, &issues, &plan.digest, new).await?),
        None => None,
    };

    let (release_url, release_change) = match existing {
        Some(release) => {
            let body = release.body.as_deref().unwrap_or("");
            if body == plan.release.body
                || release.target_commitish != plan.release.target_commitish
            {
                // Same note, or the same image rebuilt from another commit: announce nothing.
                (release.html_url.clone(), Change::Unchanged)
            } else {
                let updated = gh
                    .update_release_body(release.id, &plan.release.body)
                    .await?;
                (updated.html_url, Change::Updated)
            }
        }
        None => {
            let created = gh.create_release(&plan.release).await?;
            (created.html_url, Change::Created)
        }
    };

    let mut superseded = Vec::new();
    for old in issues.iter().filter(|i| i.state == "open") {
        let Some(old_digest) =
            render::marker_digest(MarkerKind::TrackingIssue, old.body.as_deref().unwrap_or(""))
        else {
            continue;
        };
        if old_digest == plan.digest {
            continue;
        }
        let comments = gh.list_comments(old.number).await?;
        // Anyone who can read the issue can comment on it: a marker counts only in a
        // comment by the account that opened the tracking issue, i.e. this tool.
        let already = comments.iter().any(|c| {
            same_account(&c.user, &old.user)
                && render::marker_digest(
                    MarkerKind::SupersededComment,
                    c.body.as_deref().unwrap_or(""),
                )
                .is_some_and(|d| d == plan.digest)
        });
        if !already {
            gh.create_comment(
                old.number,
                &superseded_comment(&plan.digest, &old_digest, &release_url),
            )
            .await?;
            superseded.push(old.number);
        }
    }

    Ok(Published {
        release_url,
        release_change,
        issue,
        superseded,
    })
}

/// Whether two objects were written by the same (known) account.
fn same_account(a: &Option<Account>, b: &Option<Account>) -> bool {
    matches!((a, b), (Some(a), Some(b)) if a.login.eq_ignore_ascii_case(&b.login))
}

/// The release carrying `digest`'s marker; an error when `tag` belongs to a release
/// without that marker (a human's release, or another digest's).
fn find_release<'a>(
    releases: &'a [Release],
    digest: &Digest,
    tag: &str,
) -> Result<Option<&'a Release>> {
    let mine = releases
        .iter()
        .filter(|r| {
            render::marker_digest(MarkerKind::Release, r.body.as_deref().unwrap_or("")).as_ref()
                == Some(digest)
        })
        .min_by_key(|r| r.id);
    if let Some(release) = mine {
        return Ok(Some(release));
    }
    if let Some(other) = releases.iter().find(|r| r.tag_name == tag) {
        bail!(
            "the release tag {tag} is already used by a release that codeq-rollout did not create \
             for {digest} ({}); rename or delete that release, then re-run",
            if other.html_url.is_empty() {
                format!("release id {}", other.id)
            } else {
                other.html_url.clone()
            }
        );
    }
    Ok(None)
}

async fn ensure_issue(
    gh: &GitHub,
    issues: &[Issue],
    digest: &Digest,
    new: &NewIssue,
) -> Result<(String, Change), GitHubError> {
    let mine = issues
        .iter()
        .filter(|i| {
            render::marker_digest(MarkerKind::TrackingIssue, i.body.as_deref().unwrap_or(""))
                .as_ref()
                == Some(digest)
        })
        .min_by_key(|i| i.number);
    if let Some(issue) = mine {
        // The body is the responders' now: never edited.
        return Ok((issue.html_url.clone(), Change::Unchanged));
    }
    let created = gh.create_issue(new).await?;
    Ok((created.html_url, Change::Created))
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

/// The release tag for `digest`: `<name>-<12 hex>`, e.g. `lab-9f86d081884c`; no `/`, so it
/// needs no escaping in API paths.
pub fn release_tag(short_name: &str, digest: &Digest) -> String {
    format!("{short_name}-{}", digest.short())
}

/// Checks that `issues` can be found by labels: at least one tracking label is needed.
pub fn check_tracking_labels(labels: &[String]) -> Result<()> {
    if labels.is_empty() {
        bail!(
            "tracking-labels is empty: tracking issues are found by their labels, so give at least one (default security,break-glass)"
        );
    }
    Ok(())
}
