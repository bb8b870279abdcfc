//! Pure matching: which listed objects are codeq-rollout's for a digest.
//!
//! An object is ours when the first line of its body is our marker for the digest
//! ([`render::marker_digest`]); never by title. Anyone who can read an issue can comment on
//! it, so a comment is ours only when, besides, the account that opened the tracking issue
//! (this tool) wrote it. When duplicates exist (two runs raced), the one with the lowest id
//! (issues: number) is the one that counts.

use crate::digest::Digest;
use crate::render::publish as words;
use crate::render::{self, MarkerKind};
use crate::support::github::models::{Comment, Issue, Release};
use anyhow::{Result, bail};

fn marks(kind: MarkerKind, body: Option<&str>, digest: &Digest) -> bool {
    render::marker_digest(kind, body.unwrap_or("")).as_ref() == Some(digest)
}

/// The items of `items` that `keep` keeps, lowest `id` first: when duplicates exist (two
/// runs raced), the first is the one that counts.
pub(crate) fn lowest_first<T>(
    items: &[T],
    keep: impl Fn(&T) -> bool,
    id: impl Fn(&T) -> u64,
) -> Vec<&T> {
    let mut kept: Vec<&T> = items.iter().filter(|i| keep(i)).collect();
    kept.sort_by_key(|i| id(i));
    kept
}

/// Our releases for `digest`, lowest id first: a release is ours only when both the first
/// line of its body is our marker for `digest` and its tag is `tag`, the tag derived from
/// `digest` ([`super::release_tag`]); a human's release with a copied marker is not.
pub(super) fn our_releases<'a>(
    releases: &'a [Release],
    digest: &Digest,
    tag: &str,
) -> Vec<&'a Release> {
    let ours =
        |r: &Release| r.tag_name == tag && marks(MarkerKind::Release, r.body.as_deref(), digest);
    lowest_first(releases, ours, |r| r.id)
}

/// Our tracking issues for `digest` (open or closed), lowest number first.
pub(super) fn our_issues<'a>(issues: &'a [Issue], digest: &Digest) -> Vec<&'a Issue> {
    let ours = |i: &Issue| marks(MarkerKind::TrackingIssue, i.body.as_deref(), digest);
    lowest_first(issues, ours, |i| i.number)
}

/// Our comment of `kind` for `digest` among `comments` on `issue` (our tracking issue),
/// lowest id first: the marker counts only in a comment written by the account that opened
/// `issue`, so a forged marker in someone else's comment is ignored.
pub(crate) fn our_comment<'a>(
    issue: &Issue,
    comments: &'a [Comment],
    kind: MarkerKind,
    digest: &Digest,
) -> Option<&'a Comment> {
    comments
        .iter()
        .filter(|c| by_issue_author(issue, c) && marks(kind, c.body.as_deref(), digest))
        .min_by_key(|c| c.id)
}

/// Whether the account that opened `issue` wrote `comment`, both known (logins compare
/// without case, as GitHub's do): the author rule of [`our_comment`], also for a comment
/// this run just posted (a token of another account posts comments that later runs never
/// count as theirs).
pub(crate) fn by_issue_author(issue: &Issue, comment: &Comment) -> bool {
    matches!((&comment.user, &issue.user), (Some(a), Some(b)) if a.login.eq_ignore_ascii_case(&b.login))
}

/// Open tracking issues of the image repository `image` ([`render::image_repository`]) for
/// digests other than `digest`, with their digest: the ones a new release supersedes.
/// Several images may be announced into one repository; a release supersedes only tracking
/// issues of its own image ([`same_image`]).
pub(super) fn superseded<'a>(
    issues: &'a [Issue],
    digest: &Digest,
    image: &str,
) -> Vec<(&'a Issue, Digest)> {
    issues
        .iter()
        .filter(|i| i.state == "open")
        .filter(|i| same_image(i.body.as_deref().unwrap_or(""), image))
        .filter_map(|i| {
            let theirs =
                render::marker_digest(MarkerKind::TrackingIssue, i.body.as_deref().unwrap_or(""))?;
            (theirs != *digest).then_some((i, theirs))
        })
        .collect()
}

/// Whether the tracking issue `body` is one of the image repository `image`: the image its
/// marker names. A marker written before the image was recorded names none; such an issue
/// counts as the same image unless its body's `| Image | `…` |` row (which the tool wrote
/// when it opened the issue) names another image repository. So a repository announcing one
/// image keeps superseding its older issues after an upgrade, and one announcing several
/// does not cross images as long as that row is there.
pub(super) fn same_image(body: &str, image: &str) -> bool {
    if let Some(theirs) = render::marker_image(body) {
        return theirs == image;
    }
    body.lines()
        .find_map(|l| l.strip_prefix("| Image | `")?.split_once('`'))
        .is_none_or(|(theirs, _)| render::image_repository(theirs) == image)
}

/// Refuses a `tag` held by a release that is not ours for `digest` (a human's release, or
/// one whose marker was removed), unless ours exists anyway.
///
/// # Errors
/// The collision, naming the tag and the release, and what to do.
pub(super) fn check_tag(releases: &[Release], digest: &Digest, tag: &str) -> Result<()> {
    if !our_releases(releases, digest, tag).is_empty() {
        return Ok(());
    }
    if let Some(other) = releases.iter().find(|r| r.tag_name == tag) {
        bail!(words::tag_taken(tag, digest, other));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::support::github::models::Account;

    fn digest(c: char) -> Digest {
        Digest::parse(&format!("sha256:{}", c.to_string().repeat(64))).unwrap()
    }

    fn release(id: u64, tag: &str, body: &str) -> Release {
        Release {
            id,
            tag_name: tag.into(),
            html_url: format!("https://github.example/o/r/releases/tag/{tag}"),
            body: Some(body.into()),
            target_commitish: String::new(),
            published_at: None,
            name: None,
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
        let ids: Vec<u64> = our_releases(&releases, &d, "lab-aaaaaaaaaaaa")
            .iter()
            .map(|r| r.id)
            .collect();
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
    fn a_comment_is_ours_only_when_the_issue_author_wrote_it() {
        let d = digest('a');
        let account = |login: &str| {
            Some(Account {
                login: login.into(),
            })
        };
        let issue = Issue {
            number: 1,
            html_url: String::new(),
            body: Some(render::marker(MarkerKind::TrackingIssue, &d)),
            state: "open".into(),
            comments: 2,
            pull_request: None,
            user: account("github-actions[bot]"),
        };
        let comment = |id, login: &str| Comment {
            id,
            body: Some(render::marker(MarkerKind::UpdateComment, &d)),
            html_url: String::new(),
            user: account(login),
        };
        let forged = [comment(5, "mallory")];
        assert_eq!(
            our_comment(&issue, &forged, MarkerKind::UpdateComment, &d),
            None
        );
        let both = [comment(5, "mallory"), comment(7, "GitHub-Actions[bot]")];
        let ours = our_comment(&issue, &both, MarkerKind::UpdateComment, &d).unwrap();
        assert_eq!(ours.id, 7);
        let anonymous = Issue {
            user: None,
            ..issue
        };
        assert_eq!(
            our_comment(&anonymous, &both, MarkerKind::UpdateComment, &d),
            None
        );
    }

    #[test]
    fn only_open_issues_of_other_digests_are_superseded() {
        let (new, old) = (digest('a'), digest('b'));
        let issue = |number, d: &Digest, state: &str| Issue {
            number,
            html_url: String::new(),
            body: Some(render::marker(MarkerKind::TrackingIssue, d)),
            state: state.into(),
            comments: 0,
            pull_request: None,
            user: None,
        };
        let issues = vec![
            issue(1, &old, "open"),
            issue(2, &old, "closed"),
            issue(3, &new, "open"),
        ];
        let numbers: Vec<u64> = superseded(&issues, &new, "ghcr.io/o/lab")
            .iter()
            .map(|(i, _)| i.number)
            .collect();
        assert_eq!(numbers, vec![1]);
    }
}
