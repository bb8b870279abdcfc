//! Pure matching: which listed objects are codeq-rollout's for a digest.
//!
//! An object is ours when the first line of its body is our marker for the digest
//! ([`render::marker_digest`]); never by title. When duplicates exist (two runs raced), the
//! one with the lowest id (issues: number) is the one that counts.

use crate::digest::Digest;
use crate::github::models::{Comment, Issue, Release};
use crate::render::{self, MarkerKind};
use anyhow::{Result, bail};

fn marks(kind: MarkerKind, body: Option<&str>, digest: &Digest) -> bool {
    render::marker_digest(kind, body.unwrap_or("")).as_ref() == Some(digest)
}

/// Our releases for `digest`, lowest id first.
pub fn our_releases<'a>(releases: &'a [Release], digest: &Digest) -> Vec<&'a Release> {
    let mut ours: Vec<&Release> = releases
        .iter()
        .filter(|r| marks(MarkerKind::Release, r.body.as_deref(), digest))
        .collect();
    ours.sort_by_key(|r| r.id);
    ours
}

/// Our tracking issues for `digest` (open or closed), lowest number first.
pub fn our_issues<'a>(issues: &'a [Issue], digest: &Digest) -> Vec<&'a Issue> {
    let mut ours: Vec<&Issue> = issues
        .iter()
        .filter(|i| marks(MarkerKind::TrackingIssue, i.body.as_deref(), digest))
        .collect();
    ours.sort_by_key(|i| i.number);
    ours
}

/// Our comment of `kind` for `digest` among `comments`, lowest id first.
pub fn our_comment<'a>(
    comments: &'a [Comment],
    kind: MarkerKind,
    digest: &Digest,
) -> Option<&'a Comment> {
    comments
        .iter()
        .filter(|c| marks(kind, c.body.as_deref(), digest))
        .min_by_key(|c| c.id)
}

/// Open tracking issues for digests other than `digest`, with their digest: the ones a new
/// release supersedes.
pub fn superseded<'a>(issues: &'a [Issue], digest: &Digest) -> Vec<(&'a Issue, Digest)> {
    issues
        .iter()
        .filter(|i| i.state == "open")
        .filter_map(|i| {
            let theirs =
                render::marker_digest(MarkerKind::TrackingIssue, i.body.as_deref().unwrap_or(""))?;
            (theirs != *digest).then_some((i, theirs))
        })
        .collect()
}

/// Refuses a `tag` held by a release that is not ours for `digest` (a human's release, or
/// one whose marker was removed), unless ours exists anyway.
///
/// # Errors
/// The collision, naming the tag and the release, and what to do.
pub fn check_tag(releases: &[Release], digest: &Digest, tag: &str) -> Result<()> {
    if !our_releases(releases, digest).is_empty() {
        return Ok(());
    }
    if let Some(other) = releases.iter().find(|r| r.tag_name == tag) {
        bail!(
            "the release tag {tag} is already used by a release that codeq-rollout did not create \
             for {digest} ({}); codeq-rollout never edits such a release: rename or delete it, \
             then re-run",
            if other.html_url.is_empty() {
                format!("release id {}", other.id)
            } else {
                other.html_url.clone()
            }
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digest(c: char) -> Digest {
        Digest::parse(&format!("sha256:{}", c.to_string().repeat(64))).unwrap()
    }

    fn release(id: u64, tag: &str, body: &str) -> Release {
        Release {
            id,
            tag_name: tag.into(),
            html_url: format!("https://github.example/o/r/releases/tag/{tag}"),
            body: Some(body.into()),
            draft: false,
            prerelease: false,
            target_commitish: String::new(),
            published_at: None,
        }
    }

    #[test]
    fn duplicates_sort_lowest_id_first_and_forged_markers_do_not_count() {
        let d = digest('a');
        let mark = render::marker(MarkerKind::Release, &d);
        let releases = vec![
            release(9, "lab-aaaaaaaaaaaa", &mark),
            release(3, "lab-aaaaaaaaaaaa", &mark),
            release(1, "other", &format!("Human text\n{mark}")),
        ];
        let ids: Vec<u64> = our_releases(&releases, &d).iter().map(|r| r.id).collect();
        assert_eq!(ids, vec![3, 9]);
    }

    #[test]
    fn a_tag_held_by_a_human_release_is_refused_by_name() {
        let d = digest('a');
        let releases = vec![release(5, "lab-aaaaaaaaaaaa", "Hand-written notes")];
        let err = check_tag(&releases, &d, "lab-aaaaaaaaaaaa").unwrap_err();
        assert!(err.to_string().contains("lab-aaaaaaaaaaaa"), "{err}");
        assert!(check_tag(&releases, &d, "lab-bbbbbbbbbbbb").is_ok());
    }

    #[test]
    fn only_open_issues_of_other_digests_are_superseded() {
        let (new, old) = (digest('a'), digest('b'));
        let issue = |number, d: &Digest, state: &str| Issue {
            id: number * 10,
            number,
            html_url: String::new(),
            body: Some(render::marker(MarkerKind::TrackingIssue, d)),
            state: state.into(),
            comments: 0,
            pull_request: None,
        };
        let issues = vec![
            issue(1, &old, "open"),
            issue(2, &old, "closed"),
            issue(3, &new, "open"),
        ];
        let numbers: Vec<u64> = superseded(&issues, &new)
            .iter()
            .map(|(i, _)| i.number)
            .collect();
        assert_eq!(numbers, vec![1]);
    }
}
