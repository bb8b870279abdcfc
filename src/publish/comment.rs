//! The bot's marked comments on a tracking issue (`announce`'s update comment, `status`'s
//! convergence comment), the one way both are found, created and edited.
//!
//! **Ours by marker and author.** A comment is ours when its first line is the marker of its
//! kind for the digest and the account that opened the tracking issue wrote it
//! ([`find::our_comment`]): anyone who can read the issue can comment with a copied marker.
//!
//! **Upserted.** What exists is compared with the body wanted; a comment is edited in place
//! only when the caller's comparison says so, and posted only when none of ours exists.
//!
//! **Created once.** A POST whose outcome is unknown is followed by a fresh look-up, never a
//! second blind POST ([`once`]). When the look-up missed a first POST that took effect after
//! all (a lagging listing) and a second one was sent, the comments are read again and the
//! earlier of ours kept, the later deleted ([`keep_first`]). A comment GitHub answers as
//! written by another account than the issue's author would never count as ours, so each
//! later run would post one more: it is deleted again and the run fails
//! ([`by_issue_author`]).

use super::find;
use super::once::{self, Made};
use crate::digest::Digest;
use crate::render::publish as words;
use crate::render::{Change, MarkerKind};
use crate::support::github::GitHub;
use crate::support::github::models::{Comment, Issue};
use anyhow::{Context, Result};

/// A marked comment as it should be on a tracking issue.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Marked<'a> {
    /// The tracking issue.
    pub(crate) issue: &'a Issue,
    /// Which comment: its marker's kind.
    pub(crate) kind: MarkerKind,
    /// The digest its marker names.
    pub(crate) digest: &'a Digest,
    /// The body wanted (within GitHub's limit), its first line the marker.
    pub(crate) body: &'a str,
}

/// What became of a marked comment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Upserted {
    /// Posted, edited or left unchanged (a dry run: what would be done).
    pub(crate) change: Change,
    /// The comment's address; the tracking issue's for a dry run's post.
    pub(crate) url: String,
    /// Lines for the log: a duplicate removed.
    pub(crate) notes: Vec<String>,
}

/// Our comment of `kind` for `digest` on `issue`, as GitHub lists it now (reads every page
/// of its comments).
///
/// # Errors
/// A failed read.
pub(crate) async fn ours(
    gh: &GitHub,
    issue: &Issue,
    kind: MarkerKind,
    digest: &Digest,
) -> Result<Option<Comment>> {
    let comments = gh.list_comments(issue.number).await?;
    Ok(find::our_comment(issue, &comments, kind, digest).cloned())
}

/// Makes `marked` the comment on its issue, given `existing` (ours, as the caller read it
/// with [`ours`], or `None` when it knows there is none): posted when absent, edited when
/// `needs_edit` says the existing body must change, else left alone. With `dry_run` nothing
/// is written: the outcome says what would be done.
///
/// # Errors
/// A failed call; a comment posted as another account than the issue's author (deleted
/// again, [`by_issue_author`]).
pub(crate) async fn upsert(
    gh: &GitHub,
    marked: Marked<'_>,
    existing: Option<Comment>,
    needs_edit: impl Fn(&str) -> bool,
    dry_run: bool,
) -> Result<Upserted> {
    let change = match &existing {
        None => Change::Created,
        Some(c) if needs_edit(c.body.as_deref().unwrap_or("")) => Change::Updated,
        Some(_) => Change::Unchanged,
    };
    let mut notes = Vec::new();
    let url = match existing {
        Some(c) if dry_run || change == Change::Unchanged => c.html_url,
        None if dry_run => marked.issue.html_url.clone(),
        Some(c) => gh.update_comment(c.id, marked.body).await?.html_url,
        None => create(gh, marked, &mut notes).await?.html_url,
    };
    Ok(Upserted { change, url, notes })
}

/// Posts `marked` once ([`once::create`]), then checks who wrote it (one found by [`ours`]
/// is the issue author's already) and whether a first POST took effect after all.
async fn create(gh: &GitHub, marked: Marked<'_>, notes: &mut Vec<String>) -> Result<Comment> {
    let Marked { issue, kind, .. } = marked;
    let (mine, made) = once::create(
        words::Object::Comment(kind),
        notes,
        async || gh.create_comment(issue.number, marked.body).await,
        async || ours(gh, issue, kind, marked.digest).await,
    )
    .await?;
    let mine = by_issue_author(gh, marked, mine).await?;
    match made {
        Made::PostedAfterUnknownOutcome => keep_first(gh, marked, mine, notes).await,
        _ => Ok(mine),
    }
}

/// `mine`, the comment this run just posted, when the tracking issue's author wrote it (as
/// GitHub's answer to the POST names its author). Otherwise the token is another account's
/// (the issue opened with an App token or PAT, this run with `github.token`): later runs
/// would never count the comment as theirs ([`find::our_comment`], the rule that keeps
/// forged markers out) and would post one more each time, so `mine` is deleted and the run
/// fails.
///
/// # Errors
/// Always when the accounts differ: a [`ByAnotherAccount`], with the DELETE's error as its
/// cause when that failed too.
async fn by_issue_author(gh: &GitHub, marked: Marked<'_>, mine: Comment) -> Result<Comment> {
    let Marked { issue, kind, .. } = marked;
    if find::by_issue_author(issue, &mine) {
        return Ok(mine);
    }
    let error =
        |deleted| ByAnotherAccount(words::comment_by_other_account(kind, &mine, issue, deleted));
    match gh.delete_comment(mine.id).await {
        Ok(()) => Err(error(true).into()),
        Err(e) => Err(anyhow::Error::new(e).context(error(false))),
    }
}

/// A marked comment this run posted that GitHub answered as another account's than the
/// tracking issue's author ([`by_issue_author`]), worded by
/// [`words::comment_by_other_account`]: deleted again, or left when the DELETE failed (then
/// the DELETE's error is the cause). Found in an error chain by `downcast_ref`.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct ByAnotherAccount(crate::render::words::Words);

/// After a second POST (the first one's outcome unknown, and a look-up that did not list
/// it): the first may have taken effect behind a lagging listing, so the comments are read
/// again, as the tracking issue is. The earliest of ours is kept; when that is not `mine`,
/// `mine` is deleted as the duplicate (a note says so) and the earliest returned.
///
/// # Errors
/// A failed read or delete, saying which comment exists and what to do.
async fn keep_first(
    gh: &GitHub,
    marked: Marked<'_>,
    mine: Comment,
    notes: &mut Vec<String>,
) -> Result<Comment> {
    let Marked { issue, kind, .. } = marked;
    let first = ours(gh, issue, kind, marked.digest)
        .await
        .with_context(|| words::comments_not_reread(kind, &mine.html_url))?;
    match first {
        Some(first) if first.id < mine.id => {
            let duplicate =
                |deleted| words::duplicate_comment(kind, &mine.html_url, &first.html_url, deleted);
            gh.delete_comment(mine.id)
                .await
                .with_context(|| duplicate(false))?;
            notes.push(duplicate(true).to_string());
            Ok(first)
        }
        _ => Ok(mine),
    }
}

#[cfg(test)]
mod tests {
    //! The comment's creation against a wiremock GitHub answering GitHub's example payloads
    //! (`tests/fixtures/github-rest/`): a first POST whose outcome is unknown is never
    //! followed by a duplicate that stays; a comment is ours only by marker and author.
    use super::*;
    use crate::context::Repository;
    use crate::render::failure::error_words;
    use crate::support::github::Options;
    use serde_json::{Value, json};
    use wiremock::matchers::{any, method, path};
    use wiremock::{Mock, MockServer, ResponseTemplate};

    const COMMENTS: &str = "/repos/octo-org/lab/issues/7/comments";
    const KIND: MarkerKind = MarkerKind::ConvergenceComment;

    fn digest() -> Digest {
        Digest::parse("sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08")
            .unwrap()
    }

    /// The body posted: the marker, then the numbers.
    fn body(numbers: &str) -> String {
        format!("{}\n{numbers}", crate::render::marker(KIND, &digest()))
    }

    /// GitHub's example comment with `id` and `body`, written by `login` (`octocat` opened
    /// the tracking issue).
    fn comment_by(id: u64, body: &str, login: &str) -> Value {
        let fixture = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/github-rest/issue-comment.json"
        );
        let mut c: Value = serde_json::from_slice(&std::fs::read(fixture).unwrap()).unwrap();
        c["id"] = json!(id);
        c["body"] = json!(body);
        c["user"]["login"] = json!(login);
        c["html_url"] = json!(format!(
            "https://github.com/octo-org/lab/issues/7#issuecomment-{id}"
        ));
        c
    }

    /// [`ours`] then [`upsert`] of `body("numbers")` against `github`, as a dry run or not.
    async fn post(github: &MockServer, dry_run: bool) -> Result<Upserted> {
        let secret = crate::support::secrets::SecretString::from("ghs_test");
        let repo = Repository::parse("octo-org/lab").unwrap();
        let gh = GitHub::with_options(&github.uri(), &secret, repo, Options::default()).unwrap();
        let issue: Issue = serde_json::from_value(
            json!({"id": 70, "number": 7, "state": "open", "user": {"login": "octocat"},
                   "html_url": "https://github.com/octo-org/lab/issues/7"}),
        )
        .unwrap();
        let (d, wanted) = (digest(), body("numbers"));
        let existing = ours(&gh, &issue, KIND, &d).await?;
        let marked = Marked {
            issue: &issue,
            kind: KIND,
            digest: &d,
            body: &wanted,
        };
        upsert(&gh, marked, existing, |old| old != wanted, dry_run).await
    }

    /// `(method, path)` of every request `github` received.
    async fn calls(github: &MockServer) -> Vec<String> {
        let received = github.received_requests().await.unwrap();
        received
            .iter()
            .map(|r| format!("{} {}", r.method, r.url.path()))
            .collect()
    }

    /// Mounts `answer` (a status and a JSON body, `null` for none) to `verb` on `route`: for
    /// the first `times` requests (ahead of the other mocks) when given, else for every one.
    async fn answer(
        github: &MockServer,
        verb: &str,
        route: &str,
        (status, json): (u16, Value),
        times: Option<u64>,
    ) {
        let mut response = ResponseTemplate::new(status);
        if !json.is_null() {
            response = response.set_body_json(json);
        }
        let mock = Mock::given(method(verb))
            .and(path(route))
            .respond_with(response);
        match times {
            Some(n) => mock.up_to_n_times(n).with_priority(1),
            None => mock,
        }
        .mount(github)
        .await;
    }

    /// A mocked answer: method, route, (status, JSON body), for how many requests.
    type Answer<'a> = (&'a str, &'a str, (u16, Value), Option<u64>);

    const DUPLICATE: &str = "/repos/octo-org/lab/issues/comments/2";
    const POSTED_AS_ANOTHER: &str = "/repos/octo-org/lab/issues/comments/5";

    /// Each case: what GitHub answers (in mounting order) and the requests one run sends.
    #[tokio::test]
    async fn a_comment_is_posted_once_and_a_duplicate_or_a_forgery_never_stays() {
        let ours = body("numbers");
        let listing = |comments: Value| (200, comments);
        // The first POST answers 500 without effect, the second makes comment 2; the
        // comments are listed empty twice first.
        let post_fails_then_makes_2 = [
            ("POST", COMMENTS, (500, Value::Null), Some(1)),
            (
                "POST",
                COMMENTS,
                (201, comment_by(2, &ours, "octocat")),
                None,
            ),
            ("GET", COMMENTS, listing(json!([])), Some(2)),
        ];
        // The comments read again after the second POST: comment 1 by `first`, the bot's 2.
        let reread = |first: &str| {
            let both = json!([comment_by(1, &ours, first), comment_by(2, &ours, "octocat")]);
            let mut answers = post_fails_then_makes_2.to_vec();
            answers.push(("GET", COMMENTS, listing(both), None));
            answers.push(("DELETE", DUPLICATE, (204, Value::Null), None));
            answers
        };
        let made = listing(json!([comment_by(1, &body("made"), "octocat")]));
        let forged = listing(json!([comment_by(1, &ours, "mallory")]));
        let cases: Vec<(&str, Vec<Answer>, Vec<&str>)> = vec![
            // The first POST took effect behind a lagging listing: 2 is the duplicate.
            (
                "second post behind a lagging listing",
                reread("octocat"),
                vec!["GET", "POST", "GET", "POST", "GET", "DELETE"],
            ),
            // mallory's forged comment 1 is earlier than the bot's 2: 2 stays.
            (
                "forged earlier marker",
                reread("mallory"),
                vec!["GET", "POST", "GET", "POST", "GET"],
            ),
            // The re-read after the 500 lists the comment the POST made: exactly one POST.
            (
                "failed post that took effect",
                vec![
                    ("POST", COMMENTS, (500, Value::Null), None),
                    ("GET", COMMENTS, listing(json!([])), Some(1)),
                    ("GET", COMMENTS, made, None),
                ],
                vec!["GET", "POST", "GET"],
            ),
            // mallory copied the whole comment: neither edited, nor taken as unchanged, nor
            // deleted; the bot posts its own, once.
            (
                "forged marker by another user",
                vec![
                    ("GET", COMMENTS, forged, None),
                    (
                        "POST",
                        COMMENTS,
                        (201, comment_by(2, &ours, "octocat")),
                        None,
                    ),
                ],
                vec!["GET", "POST"],
            ),
        ];
        let mut notes = Vec::new();
        for (case, answers, sent) in cases {
            let github = MockServer::start().await;
            for (verb, route, response, times) in answers {
                answer(&github, verb, route, response, times).await;
            }
            let done = post(&github, false).await.unwrap();
            assert_eq!(done.change, Change::Created, "{case}");
            let methods: Vec<String> = calls(&github)
                .await
                .iter()
                .map(|c| c.split(' ').next().unwrap().to_string())
                .collect();
            assert_eq!(methods, sent, "{case}");
            notes.extend(done.notes.iter().map(|note| format!("{case}: {note}")));
        }
        // What the log says of a POST whose answer was lost: found, or posted twice.
        insta::assert_snapshot!(notes.join("\n"));
    }

    #[tokio::test]
    async fn a_dry_run_reads_the_comments_and_writes_nothing_whatever_it_would_do() {
        let issue = "https://github.com/octo-org/lab/issues/7";
        let ours = "https://github.com/octo-org/lab/issues/7#issuecomment-1";
        // Nothing yet (would post on the issue), other numbers (would edit), the same (would
        // leave it).
        for (existing, change, url) in [
            (json!([]), Change::Created, issue),
            (
                json!([comment_by(1, &body("old numbers"), "octocat")]),
                Change::Updated,
                ours,
            ),
            (
                json!([comment_by(1, &body("numbers"), "octocat")]),
                Change::Unchanged,
                ours,
            ),
        ] {
            let github = MockServer::start().await;
            answer(&github, "GET", COMMENTS, (200, existing), None).await;
            Mock::given(any())
                .respond_with(ResponseTemplate::new(201))
                .mount(&github)
                .await;
            let done = post(&github, true).await.unwrap();
            assert_eq!((done.change, done.url.as_str()), (change, url));
            assert_eq!(
                calls(&github).await,
                [format!("GET {COMMENTS}")],
                "only read"
            );
        }
    }

    /// The POST answers a comment by `my-app[bot]` (the token's account), but `octocat`
    /// opened the tracking issue: the comment is deleted again (or named to delete by hand
    /// when that fails too) and the run fails; the next run does the same, never leaving
    /// two comments.
    #[tokio::test]
    async fn a_comment_posted_as_another_account_than_the_issues_is_deleted_and_fails_each_run() {
        let mut said = Vec::new();
        for (deleted, runs) in [
            ((204, Value::Null), 2),
            (
                (
                    403,
                    json!({"message": "Resource not accessible by integration"}),
                ),
                1,
            ),
        ] {
            let github = MockServer::start().await;
            answer(&github, "GET", COMMENTS, (200, json!([])), None).await;
            let made = comment_by(5, &body("numbers"), "my-app[bot]");
            answer(&github, "POST", COMMENTS, (201, made), None).await;
            answer(&github, "DELETE", POSTED_AS_ANOTHER, deleted, None).await;
            for _ in 0..runs {
                said.push(error_words(&post(&github, false).await.unwrap_err(), true).to_string());
            }
            let one_run = [
                format!("GET {COMMENTS}"),
                format!("POST {COMMENTS}"),
                format!("DELETE {POSTED_AS_ANOTHER}"),
            ];
            assert_eq!(calls(&github).await, vec![one_run.to_vec(); runs].concat());
        }
        assert_eq!(said[0], said[1], "the next run fails the same way");
        insta::assert_snapshot!(said[1..].join("\n---\n"));
    }
}
