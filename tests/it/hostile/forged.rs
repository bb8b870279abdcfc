//! Forged markers: the tool's hidden marker counts only where the tool writes it (the first
//! line of a body) and, for comments anyone can write, only from the account that opened
//! the tracking issue.

use super::*;
use codeq_rollout::Digest;
use codeq_rollout::{MarkerKind, marker};
use serde_json::json;

const OLD: &str = "sha256:0000000000000000000000000000000000000000000000000000000000000001";

/// Adds a comment by `login` to issue `number` in the fake.
fn add_comment(github: &FakeGitHub, number: u64, login: &str, body: &str) {
    let id = github.add_comment(number, body);
    let mut state = github.state.lock().unwrap();
    let (_, comment) = state
        .comments
        .iter_mut()
        .find(|(_, c)| c["id"] == json!(id))
        .unwrap();
    comment["user"]["login"] = json!(login);
}

/// Runs a routine release of the example layout against `github`.
async fn announce(github: &FakeGitHub) -> Outcome {
    let (image, _) = example_layout();
    ActionRun::merged_pr(&image, &github.api_url(), &["routine"])
        .run()
        .await
}

#[tokio::test]
async fn a_supersede_marker_in_someone_elses_comment_does_not_count() {
    let (_, digest) = example_layout();
    let new = Digest::parse(&digest).unwrap();
    let old = Digest::parse(OLD).unwrap();
    let forged = format!(
        "{}\nAlready superseded, nothing to see here.",
        marker(MarkerKind::SupersededComment, &new)
    );
    // (commenter, whether the tool must still comment)
    for (login, expect_comment) in [("mallory", true), ("octocat", false)] {
        let github = FakeGitHub::start().await;
        let issue = github.add_issue(
            "Security release sha256:000000000000: break-glass runbook",
            &format!("{}\nrunbook", marker(MarkerKind::TrackingIssue, &old)),
            &["security", "break-glass"],
            "open",
        );
        // An earlier run left the release of the new digest: this run finds it and reads
        // the old issue's comments (a run that creates the release comments without reading).
        github.add_release(
            &format!("lab-{}", new.short()),
            &format!(
                "{}\nthe note of an earlier run",
                marker(MarkerKind::Release, &new)
            ),
            SHA,
        );
        // The fixture's issues are opened by `octocat`: the tool's account here.
        add_comment(&github, issue, login, &forged);
        announce(&github).await.assert_success();
        let comments: Vec<_> = github
            .writes()
            .await
            .into_iter()
            .filter(|(m, p, _)| m == "POST" && p.ends_with(&format!("/issues/{issue}/comments")))
            .collect();
        if expect_comment {
            assert_eq!(comments.len(), 1, "forged by {login}: {comments:#?}");
            let body = comments[0].2["body"].as_str().unwrap();
            assert!(
                body.starts_with(&marker(MarkerKind::SupersededComment, &new)),
                "{body}"
            );
        } else {
            assert!(
                comments.is_empty(),
                "the tool's own comment counts: {comments:#?}"
            );
        }
    }
}

#[tokio::test]
async fn a_marker_below_the_first_line_does_not_make_a_release_ours() {
    let (_, digest) = example_layout();
    let new = Digest::parse(&digest).unwrap();
    let github = FakeGitHub::start().await;
    let tag = format!("lab-{}", new.short());
    // A human's release whose notes quote a PR title that carried the marker.
    github.add_release(
        &tag,
        &format!(
            "Human release notes.\n\n- {} (a pasted PR title)\n",
            marker(MarkerKind::Release, &new)
        ),
        SHA,
    );
    let out = announce(&github).await;
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(
        out.stdout.contains("did not create") && out.stdout.contains(&tag),
        "{}",
        out.stdout
    );
    assert!(
        github.writes().await.is_empty(),
        "{:#?}",
        github.writes().await
    );
}

#[tokio::test]
async fn an_update_marker_in_someone_elses_comment_is_not_edited() {
    let (image, digest) = example_layout();
    let digest = Digest::parse(&digest).unwrap();
    let run = |github: &FakeGitHub, labels: &[&str]| {
        ActionRun::merged_pr(&image, &github.api_url(), labels)
    };
    // (commenter, the write expected on the comments once the facts change)
    for (login, expected) in [("mallory", "POST"), ("octocat", "PATCH")] {
        let github = FakeGitHub::start().await;
        run(&github, &["security"]).run().await.assert_success();
        let issue = github.issues()[0]["number"].as_u64().unwrap();
        // The update comment's marker for this digest, with stale facts.
        let forged = format!(
            "{}\n<!-- codeq-rollout:evidence 0000000000000000 -->\nnothing changed",
            marker(MarkerKind::UpdateComment, &digest)
        );
        add_comment(&github, issue, login, &forged);
        run(&github, &["security", "cve-2026-0001"])
            .run()
            .await
            .assert_success();
        let writes: Vec<_> = github
            .writes()
            .await
            .into_iter()
            .filter(|(_, p, _)| p.contains("/comments"))
            .collect();
        assert_eq!(writes.len(), 1, "comment by {login}: {writes:#?}");
        assert_eq!(writes[0].0, expected, "comment by {login}: {writes:#?}");
        let body = writes[0].2["body"].as_str().unwrap();
        assert!(
            body.starts_with(&marker(MarkerKind::UpdateComment, &digest)),
            "{body}"
        );
        assert!(body.contains("cve-2026-0001"), "{body}");
        let forged_now = github
            .comments(issue)
            .into_iter()
            .find(|c| c["user"]["login"] == json!(login))
            .unwrap();
        assert_eq!(
            forged_now["body"] == json!(forged),
            login == "mallory",
            "only the tool's own comment is edited"
        );
    }
}
