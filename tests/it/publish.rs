//! Publishing that is idempotent, race-safe and never overwrites human work: the built
//! binary, run as the Actions runner runs it, against the stateful fake GitHub. The image is
//! a multi-arch OCI layout on disk (the `oci:` source): publishing needs only its digest.
//! Every test asserts the requests the fake received, with their bodies and counts.

use crate::common::*;
use serde_json::{Value, json};
use std::time::Duration;
use tempfile::TempDir;

/// An image in an OCI layout named `name` (so its release tag is `<name>-<12 hex>`).
struct Image {
    _dir: TempDir,
    name: &'static str,
    reference: String,
    digest: String,
}

/// An image in an OCI layout named `lab`.
fn image(variant: &str) -> Image {
    image_named("lab", variant)
}

fn image_named(name: &'static str, variant: &str) -> Image {
    let dir = tempfile::tempdir().unwrap();
    let layout = dir.path().join(name);
    let digest = make_layout(&layout, "latest", variant);
    Image {
        name,
        reference: format!("oci:{}", layout.display()),
        digest,
        _dir: dir,
    }
}

impl Image {
    fn tag(&self) -> String {
        format!("{}-{}", self.name, &self.digest["sha256:".len()..][..12])
    }

    fn release_url(&self) -> String {
        format!("{SERVER_URL}/{OWNER}/{REPO}/releases/tag/{}", self.tag())
    }

    /// The marker line of `kind`; a tracking issue's names the image repository too
    /// (`oci:<dir>` for a layout).
    fn marker(&self, kind: &str) -> String {
        match kind {
            "tracking-issue" => self.tracking_marker(&self.reference),
            _ => format!("<!-- codeq-rollout:{kind} digest={} -->", self.digest),
        }
    }

    /// The tracking issue marker for this digest naming the image repository `repository`.
    fn tracking_marker(&self, repository: &str) -> String {
        format!(
            "<!-- codeq-rollout:tracking-issue digest={} image={repository} -->",
            self.digest
        )
    }
}

/// Short timeouts and backoffs, through the hidden options (not Action inputs).
fn fast(mut run: ActionRun) -> ActionRun {
    run.args
        .extend(["--github-timeout", "300ms", "--github-retry-wait", "10ms"].map(String::from));
    run
}

/// A run for `image` after a merged pull request labelled `labels`.
fn pr_run(github: &FakeGitHub, image: &Image, labels: &[&str]) -> ActionRun {
    fast(ActionRun::new(
        &image.reference,
        &github.api_url(),
        "pull_request",
        &pull_request_merged(labels),
    ))
}

/// A manual run (`workflow_dispatch`, no pull request) of `tier` at commit `sha`.
fn dispatch_run(github: &FakeGitHub, image: &Image, tier: &str, sha: &str) -> ActionRun {
    fast(
        ActionRun::new(
            &image.reference,
            &github.api_url(),
            "workflow_dispatch",
            &fixture("github-events/workflow_dispatch_payload.json"),
        )
        .input("tier", tier)
        .var("GITHUB_SHA", sha),
    )
}

/// The requests after the first `from`, as `METHOD /route` with the repository prefix and
/// the query dropped, e.g. `POST /issues`.
async fn calls_since(github: &FakeGitHub, from: usize) -> Vec<String> {
    let prefix = format!("/repos/{OWNER}/{REPO}");
    github.requests().await[from..]
        .iter()
        .map(|(m, p, _)| {
            let path = p.split('?').next().unwrap_or("");
            format!("{m} {}", path.strip_prefix(&prefix).unwrap_or(path))
        })
        .collect()
}

async fn writes_since(github: &FakeGitHub, from: usize) -> Vec<(String, String, Value)> {
    github.requests().await[from..]
        .iter()
        .filter(|(m, _, _)| m != "GET")
        .cloned()
        .collect()
}

fn ours<'a>(items: &'a [Value], marker: &str) -> Vec<&'a Value> {
    items
        .iter()
        .filter(|i| i["body"].as_str().unwrap_or("").starts_with(marker))
        .collect()
}

fn open_issues(github: &FakeGitHub, image: &Image) -> Vec<Value> {
    ours(&github.issues(), &image.marker("tracking-issue"))
        .into_iter()
        .filter(|i| i["state"] == json!("open"))
        .cloned()
        .collect()
}

fn number(issue: &Value) -> u64 {
    issue["number"].as_u64().unwrap()
}

fn later(run: ActionRun, now: &str, attempt: &str) -> ActionRun {
    let mut run = run.var("GITHUB_RUN_ATTEMPT", attempt);
    let at = run.args.iter().position(|a| a == "--now").unwrap();
    run.args[at + 1] = now.to_string();
    run
}

#[tokio::test]
async fn rerun_after_success_writes_nothing_and_reports_the_same_objects() {
    let github = FakeGitHub::start().await;
    let image = image("rerun");
    let first = pr_run(&github, &image, &["security"]).run().await;
    first.assert_success();
    assert_eq!(first.output("changed"), "true");
    assert_eq!(
        calls_since(&github, 0).await,
        [
            "GET /releases",
            "GET /issues",
            "POST /releases",
            "POST /issues",
        ],
        "look up, create the release (the lock), then open the issue; no listing after a create"
    );

    // Hours later, as attempt 2: the note is rendered with the original announce time.
    let from = github.requests().await.len();
    let again = later(
        pr_run(&github, &image, &["security"]),
        "2026-11-30T17:42:00Z",
        "2",
    )
    .run()
    .await;
    again.assert_success();
    assert_eq!(
        calls_since(&github, from).await,
        ["GET /releases", "GET /issues"]
    );
    assert_eq!(again.output("changed"), "false");
    assert_eq!(again.output("release-url"), image.release_url());
    assert_eq!(again.output("release-url"), first.output("release-url"));
    assert_eq!(again.output("issue-url"), first.output("issue-url"));
    assert!(again.summary.contains("unchanged"), "{}", again.summary);
}

#[tokio::test]
async fn routine_run_creates_without_listing_again_and_its_rerun_only_reads() {
    let github = FakeGitHub::start().await;
    let image = image("routine-rerun");
    pr_run(&github, &image, &["routine"])
        .run()
        .await
        .assert_success();
    assert_eq!(
        calls_since(&github, 0).await,
        ["GET /releases", "GET /issues", "POST /releases"]
    );
    let from = github.requests().await.len();
    let again = pr_run(&github, &image, &["routine"]).run().await;
    again.assert_success();
    assert_eq!(
        calls_since(&github, from).await,
        ["GET /releases", "GET /issues"],
        "the open tracking issues are listed to check the supersede comments"
    );
    assert_eq!(again.output("changed"), "false");
}

#[tokio::test]
async fn a_template_change_patches_only_the_release_body() {
    let github = FakeGitHub::start().await;
    let image = image("template");
    pr_run(&github, &image, &["security"])
        .run()
        .await
        .assert_success();
    let release = github.releases()[0].clone();
    let id = release["id"].as_u64().unwrap();
    let current = release["body"].as_str().unwrap().to_string();
    // As an older template wrote it; a human has since made it a pre-release, not latest.
    github.edit_release(id, |r| {
        // Sealed with the hash of its text, as the older version sent it.
        r["body"] = json!(codeq_rollout::render::seal_release(
            &current.replace("is live.", "is now available.")
        ));
        r["prerelease"] = json!(true);
        r["make_latest"] = json!("false");
    });

    let from = github.requests().await.len();
    let out = pr_run(&github, &image, &["security"]).run().await;
    out.assert_success();
    assert_eq!(out.output("changed"), "true");
    let writes = writes_since(&github, from).await;
    assert_eq!(writes.len(), 1, "{writes:#?}");
    let (method, path, body) = &writes[0];
    assert_eq!(
        (method.as_str(), path.as_str()),
        (
            "PATCH",
            format!("/repos/{OWNER}/{REPO}/releases/{id}").as_str()
        )
    );
    assert_eq!(body, &json!({ "body": current }), "only the body is sent");
    let after = &github.releases()[0];
    assert_eq!(after["prerelease"], json!(true));
    assert_eq!(after["make_latest"], json!("false"));
    assert_eq!(after["draft"], json!(false));
}

#[tokio::test]
async fn a_release_without_our_marker_is_never_touched_and_its_tag_is_refused() {
    let github = FakeGitHub::start().await;
    let image = image("collision");
    github.add_release(&image.tag(), "Hand-written release notes.", SHA);
    let out = pr_run(&github, &image, &["security"]).run().await;
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(
        out.stdout.contains(&format!("release tag {}", image.tag()))
            && out.stdout.contains("did not create"),
        "{}",
        out.stdout
    );
    assert!(github.writes().await.is_empty());
    assert_eq!(
        github.releases()[0]["body"],
        json!("Hand-written release notes.")
    );
}

#[tokio::test]
async fn a_responders_ticked_checklist_survives_reruns() {
    let github = FakeGitHub::start().await;
    let image = image("ticked");
    pr_run(&github, &image, &["security"])
        .run()
        .await
        .assert_success();
    let issue = number(&open_issues(&github, &image)[0]);
    let mut ticked = String::new();
    github.edit_issue(issue, |i| {
        ticked = i["body"]
            .as_str()
            .unwrap()
            .replace("- [ ] **Decide.**", "- [x] **Decide.**")
            .replace("- [ ] **Warn users first**", "- [x] **Warn users first**");
        i["body"] = json!(ticked);
    });

    // Same facts: nothing is written.
    let from = github.requests().await.len();
    pr_run(&github, &image, &["security"])
        .run()
        .await
        .assert_success();
    assert!(writes_since(&github, from).await.is_empty());

    // New facts: they go to a comment; the body is still the responders'.
    pr_run(&github, &image, &["security", "cve"])
        .run()
        .await
        .assert_success();
    let issue_writes: Vec<_> = github
        .writes()
        .await
        .into_iter()
        .filter(|(m, p, _)| m == "PATCH" && p.contains("/issues/"))
        .collect();
    assert!(issue_writes.is_empty(), "{issue_writes:#?}");
    assert_eq!(open_issues(&github, &image)[0]["body"], json!(ticked));
}

#[tokio::test]
async fn new_evidence_goes_into_one_update_comment_edited_in_place() {
    let github = FakeGitHub::start().await;
    let image = image("evidence");
    pr_run(&github, &image, &["security"])
        .run()
        .await
        .assert_success();
    let issue = number(&open_issues(&github, &image)[0]);
    let comments_route = format!("/issues/{issue}/comments");
    let release = github.releases()[0]["id"].as_u64().unwrap();

    // A re-run after a label was added: one comment, and the note's label list updated.
    let from = github.requests().await.len();
    let out = pr_run(&github, &image, &["security", "cve-2026-0001"])
        .run()
        .await;
    out.assert_success();
    assert_eq!(out.output("changed"), "true");
    let calls = calls_since(&github, from).await;
    assert_eq!(
        calls,
        [
            "GET /releases".to_string(),
            "GET /issues".into(),
            format!("POST {comments_route}"),
            format!("PATCH /releases/{release}"),
        ],
        "the issue has no comments yet, so none are listed"
    );
    let comments = github.comments(issue);
    assert_eq!(comments.len(), 1);
    let body = comments[0]["body"].as_str().unwrap();
    assert!(body.starts_with(&image.marker("update")), "{body}");
    assert!(body.contains("cve-2026-0001"), "{body}");
    let comment_id = comments[0]["id"].as_u64().unwrap();

    // Different again: the same comment is edited, no second one appears.
    let from = github.requests().await.len();
    pr_run(&github, &image, &["security", "urgent"])
        .run()
        .await
        .assert_success();
    let writes = writes_since(&github, from).await;
    let comment_writes: Vec<_> = writes
        .iter()
        .filter(|(_, p, _)| p.contains("comments"))
        .collect();
    assert_eq!(comment_writes.len(), 1, "{writes:#?}");
    assert_eq!(comment_writes[0].0, "PATCH");
    assert_eq!(
        comment_writes[0].1,
        format!("/repos/{OWNER}/{REPO}/issues/comments/{comment_id}")
    );
    assert_eq!(github.comments(issue).len(), 1);
    assert!(
        github.comments(issue)[0]["body"]
            .as_str()
            .unwrap()
            .contains("urgent")
    );

    // Same as last time: reads only, within the re-run budget of three.
    let from = github.requests().await.len();
    let out = pr_run(&github, &image, &["security", "urgent"]).run().await;
    out.assert_success();
    assert_eq!(out.output("changed"), "false");
    assert_eq!(
        calls_since(&github, from).await,
        [
            "GET /releases".to_string(),
            "GET /issues".into(),
            format!("GET {comments_route}")
        ]
    );
}

#[tokio::test]
async fn the_same_image_rebuilt_from_another_commit_announces_nothing() {
    let github = FakeGitHub::start().await;
    let image = image("rebuilt");
    let first = dispatch_run(&github, &image, "security", SHA).run().await;
    first.assert_success();
    let from = github.requests().await.len();
    let other_commit = "0123456789abcdef0123456789abcdef01234567";
    let out = dispatch_run(&github, &image, "security", other_commit)
        .run()
        .await;
    out.assert_success();
    assert!(writes_since(&github, from).await.is_empty());
    assert_eq!(out.output("changed"), "false");
    assert_eq!(out.output("release-url"), first.output("release-url"));
    assert_eq!(out.output("issue-url"), first.output("issue-url"));
    assert!(
        out.stdout.contains("already announced") && out.stdout.contains(SHA),
        "{}",
        out.stdout
    );
}

/// A write that fails twice (so the run fails after at most one object exists), then a
/// re-run without the fault: exactly one release and one open issue in the end.
async fn fail_at_then_rerun(method: &'static str, route: &'static str, timeout: bool) {
    let github = FakeGitHub::start().await;
    let image = image(&format!("fail-{method}-{route}-{timeout}"));
    github.fault(Fault {
        method,
        path_contains: route,
        status: 502,
        applied: false,
        delay: timeout.then(|| Duration::from_secs(5)),
        times: 2,
    });
    let failed = pr_run(&github, &image, &["security"]).run().await;
    assert_eq!(failed.code, 1, "{}", failed.stdout);
    assert!(failed.stdout.contains("re-run"), "{}", failed.stdout);
    let calls = calls_since(&github, 0).await;
    let post = format!("POST {route}");
    let at = calls.iter().position(|c| *c == post).unwrap();
    assert_eq!(
        calls[at..at + 3],
        [post.clone(), format!("GET {route}"), post.clone()],
        "after a failed write: a fresh look-up, then one more try, and no other"
    );
    assert_eq!(calls.iter().filter(|c| **c == post).count(), 2);
    let issues_before = open_issues(&github, &image);
    let releases_before = ours(&github.releases(), &image.marker("release")).len();
    if route == "/releases" {
        assert_eq!(
            (releases_before, issues_before.len()),
            (0, 1),
            "the tracking issue is opened even though the release step failed"
        );
        assert!(
            failed.stdout.contains("the tracking issue") && failed.stdout.contains("opened"),
            "{}",
            failed.stdout
        );
    } else {
        assert_eq!(
            (releases_before, issues_before.len()),
            (1, 0),
            "the release comes first"
        );
    }

    let from = github.requests().await.len();
    pr_run(&github, &image, &["security"])
        .run()
        .await
        .assert_success();
    let creates: Vec<String> = calls_since(&github, from)
        .await
        .into_iter()
        .filter(|c| c.starts_with("POST"))
        .collect();
    let expected: &[&str] = if route == "/releases" {
        &["POST /releases"]
    } else {
        &["POST /issues"]
    };
    assert_eq!(creates, expected, "the re-run creates only what is missing");
    assert_eq!(ours(&github.releases(), &image.marker("release")).len(), 1);
    let issues = open_issues(&github, &image);
    assert_eq!(issues.len(), 1);
    if let Some(before) = issues_before.first() {
        assert_eq!(number(before), number(&issues[0]));
    }
}

#[tokio::test]
async fn a_502_on_opening_the_issue_is_completed_by_a_rerun() {
    fail_at_then_rerun("POST", "/issues", false).await;
}

#[tokio::test]
async fn a_timeout_on_opening_the_issue_is_completed_by_a_rerun() {
    fail_at_then_rerun("POST", "/issues", true).await;
}

#[tokio::test]
async fn a_502_on_creating_the_release_is_completed_by_a_rerun() {
    fail_at_then_rerun("POST", "/releases", false).await;
}

#[tokio::test]
async fn a_timeout_on_creating_the_release_is_completed_by_a_rerun() {
    fail_at_then_rerun("POST", "/releases", true).await;
}

/// A write that took effect although the client saw a 502 or a timeout: looked up, not
/// sent again.
async fn applied_but_failed(route: &'static str, timeout: bool) {
    let github = FakeGitHub::start().await;
    let image = image(&format!("applied-{route}-{timeout}"));
    github.fault(Fault {
        method: "POST",
        path_contains: route,
        status: 502,
        applied: true,
        delay: timeout.then(|| Duration::from_secs(5)),
        times: 1,
    });
    let out = pr_run(&github, &image, &["security"]).run().await;
    out.assert_success();
    assert_eq!(out.output("changed"), "true");
    let calls = calls_since(&github, 0).await;
    let posts = calls
        .iter()
        .filter(|c| **c == format!("POST {route}"))
        .count();
    assert_eq!(posts, 1, "{calls:#?}");
    let at = calls
        .iter()
        .position(|c| *c == format!("POST {route}"))
        .unwrap();
    assert_eq!(
        calls[at + 1],
        format!("GET {route}"),
        "a fresh look-up follows"
    );
    assert_eq!(ours(&github.releases(), &image.marker("release")).len(), 1);
    assert_eq!(open_issues(&github, &image).len(), 1);
    assert!(out.stdout.contains("not"), "{}", out.stdout);
}

#[tokio::test]
async fn a_release_created_despite_a_502_is_not_created_twice() {
    applied_but_failed("/releases", false).await;
}

#[tokio::test]
async fn an_issue_opened_despite_a_timeout_is_not_opened_twice() {
    applied_but_failed("/issues", true).await;
}

#[tokio::test]
async fn a_502_on_a_read_is_retried_and_a_persistent_one_fails_before_any_write() {
    let github = FakeGitHub::start().await;
    let image = image("read-retry");
    github.fault(Fault {
        method: "GET",
        path_contains: "/releases",
        status: 502,
        applied: false,
        delay: None,
        times: 1,
    });
    pr_run(&github, &image, &["routine"])
        .run()
        .await
        .assert_success();
    assert_eq!(
        calls_since(&github, 0).await[..2],
        ["GET /releases", "GET /releases"]
    );

    let github = FakeGitHub::start().await;
    github.fault(Fault {
        method: "GET",
        path_contains: "/releases",
        status: 503,
        applied: false,
        delay: None,
        times: 100,
    });
    let out = pr_run(&github, &image, &["routine"]).run().await;
    assert_eq!(out.code, 1);
    assert!(out.stdout.contains("503"), "{}", out.stdout);
    assert_eq!(
        calls_since(&github, 0).await,
        ["GET /releases"; 4],
        "the first try and three retries"
    );
}

/// The second of two racing runs: another workflow run, with its own token.
fn second_run(run: ActionRun) -> ActionRun {
    run.input("github-token", "ghs_TheSecondRunsTokenNeverPrinted987")
        .var("GITHUB_RUN_ID", "4243")
}

fn count(calls: &[String], call: &str) -> usize {
    calls.iter().filter(|c| *c == call).count()
}

/// Two runs for one digest started together; each run's first listings see the same (empty)
/// state, so both try to create the release. GitHub refuses the second POST on the tag, so
/// exactly one run creates the release and opens the issue; the other writes nothing more.
#[tokio::test]
async fn two_runs_started_together_end_with_one_release_and_one_issue() {
    let github = FakeGitHub::start().await;
    let image = image("race");
    github.race_first_lists();
    let one = pr_run(&github, &image, &["security"]);
    let two = second_run(pr_run(&github, &image, &["security"]));
    let (a, b) = tokio::join!(one.run(), two.run());
    a.assert_success();
    b.assert_success();

    let calls = calls_since(&github, 0).await;
    assert_eq!(count(&calls, "POST /releases"), 2, "{calls:#?}");
    assert_eq!(
        count(&calls, "POST /issues"),
        1,
        "only the winner opens it: {calls:#?}"
    );
    assert!(
        calls
            .iter()
            .all(|c| c.starts_with("GET") || c.starts_with("POST")),
        "nothing to delete or close: {calls:#?}"
    );
    assert_eq!(ours(&github.releases(), &image.marker("release")).len(), 1);
    let issues = github.issues();
    let all = ours(&issues, &image.marker("tracking-issue"));
    assert_eq!(all.len(), 1, "{all:#?}");
    let (winner, loser) = if a.output("changed") == "true" {
        (&a, &b)
    } else {
        (&b, &a)
    };
    assert_eq!(loser.output("changed"), "false");
    assert_eq!(
        winner.output("issue-url"),
        all[0]["html_url"].as_str().unwrap()
    );
    for out in [&a, &b] {
        assert_eq!(out.output("release-url"), image.release_url());
    }
    // The loser reports the winner's issue when it was already open at its look-up.
    assert!(
        ["", winner.output("issue-url")].contains(&loser.output("issue-url")),
        "{}",
        loser.output("issue-url")
    );
}

/// The same race with the interleaving made certain: both runs list before either creates,
/// and the loser's POST comes after the winner has finished.
#[tokio::test]
async fn a_run_that_loses_the_release_race_writes_nothing_more_and_reports_the_winners_objects() {
    let github = FakeGitHub::start().await;
    let image = image("race-staged");
    github.race_first_lists();
    let winner = pr_run(&github, &image, &["security"]).run().await;
    winner.assert_success();
    let from = github.requests().await.len();
    let loser = second_run(pr_run(&github, &image, &["security"]))
        .run()
        .await;
    loser.assert_success();
    assert_eq!(
        calls_since(&github, from).await,
        [
            "GET /releases",
            "GET /issues",
            "POST /releases",
            "GET /releases",
            "GET /issues"
        ],
        "refused on the tag, it looks the release and the issue up again, and writes nothing"
    );
    assert_eq!(loser.output("changed"), "false");
    assert_eq!(loser.output("release-url"), winner.output("release-url"));
    assert_eq!(loser.output("issue-url"), winner.output("issue-url"));
    assert!(
        loser.stdout.contains("created meanwhile by another run"),
        "{}",
        loser.stdout
    );
    assert_eq!(ours(&github.releases(), &image.marker("release")).len(), 1);
    assert_eq!(open_issues(&github, &image).len(), 1);
}

/// GitHub's tag check is not atomic: two creates can both succeed. Both runs then believe
/// they won; the next run finds the duplicates and keeps the lowest id and number.
#[tokio::test]
async fn duplicates_that_got_through_are_settled_by_the_next_run_keeping_the_lowest_id() {
    let github = FakeGitHub::start().await;
    let image = image("race-duplicates");
    github.race_first_lists();
    github.allow_duplicate_tags();
    let one = pr_run(&github, &image, &["security"]);
    let two = second_run(pr_run(&github, &image, &["security"]));
    let (a, b) = tokio::join!(one.run(), two.run());
    a.assert_success();
    b.assert_success();
    let releases = github.releases();
    let mut ids: Vec<u64> = ours(&releases, &image.marker("release"))
        .iter()
        .map(|r| r["id"].as_u64().unwrap())
        .collect();
    ids.sort_unstable();
    assert_eq!(ids.len(), 2, "both creates got through");
    let issues = github.issues();
    let mut numbers: Vec<u64> = ours(&issues, &image.marker("tracking-issue"))
        .iter()
        .map(|i| number(i))
        .collect();
    numbers.sort_unstable();
    assert_eq!(numbers.len(), 2);
    let (winner, loser) = (numbers[0], numbers[1]);

    let from = github.requests().await.len();
    let next = pr_run(&github, &image, &["security"]).run().await;
    next.assert_success();
    let writes: Vec<String> = calls_since(&github, from)
        .await
        .into_iter()
        .filter(|c| !c.starts_with("GET"))
        .collect();
    assert_eq!(
        writes,
        [
            format!("DELETE /releases/{}", ids[1]),
            format!("POST /issues/{loser}/comments"),
            format!("PATCH /issues/{loser}"),
        ]
    );
    let releases = github.releases();
    let left = ours(&releases, &image.marker("release"));
    assert_eq!(left.len(), 1);
    assert_eq!(left[0]["id"].as_u64(), Some(ids[0]), "the lowest id wins");
    let all = github.issues();
    let state = |n: u64| all.iter().find(|i| number(i) == n).unwrap()["state"].clone();
    assert_eq!(state(winner), json!("open"));
    assert_eq!(state(loser), json!("closed"));
    let note = github.comments(loser);
    assert_eq!(note.len(), 1);
    assert!(
        note[0]["body"]
            .as_str()
            .unwrap()
            .starts_with(&format!("Duplicate of #{winner}")),
        "{note:#?}"
    );
    assert!(github.comments(winner).is_empty());
    assert_eq!(
        next.output("issue-url"),
        format!("{SERVER_URL}/{OWNER}/{REPO}/issues/{winner}")
    );

    let from = github.requests().await.len();
    pr_run(&github, &image, &["security"])
        .run()
        .await
        .assert_success();
    assert!(writes_since(&github, from).await.is_empty());
}

#[tokio::test]
async fn an_older_open_tracking_issue_gets_exactly_one_supersede_comment() {
    let github = FakeGitHub::start().await;
    let (old, new) = (image("superseded-old"), image("superseded-new"));
    let labels = ["security", "break-glass"];
    let open_old = github.add_issue(
        "Security release (old)",
        &format!(
            "{}\nOld runbook, half done.",
            old.tracking_marker(&new.reference)
        ),
        &labels,
        "open",
    );
    github.add_comment(open_old, "Stopped 3 of 7 servers so far.");
    let closed_old = github.add_issue(
        "Security release (older)",
        &format!(
            "{}\nDone.",
            image("superseded-oldest").tracking_marker(&new.reference)
        ),
        &labels,
        "closed",
    );
    let comments_route = format!("/issues/{open_old}/comments");
    // A supersede comment that fails twice: the first run fails after creating the release.
    github.fault(Fault {
        method: "POST",
        path_contains: "/comments",
        status: 502,
        applied: false,
        delay: None,
        times: 2,
    });
    let failed = pr_run(&github, &new, &["routine"]).run().await;
    assert_eq!(failed.code, 1, "{}", failed.stdout);
    assert_eq!(
        calls_since(&github, 0).await,
        [
            "GET /releases".to_string(),
            "GET /issues".into(),
            "POST /releases".into(),
            format!("POST {comments_route}"),
            format!("GET {comments_route}"),
            format!("POST {comments_route}"),
        ],
        "the run that created the release comments without reading first"
    );

    // The re-run finds the release, and the comment missing.
    let from = github.requests().await.len();
    pr_run(&github, &new, &["routine"])
        .run()
        .await
        .assert_success();
    assert_eq!(
        calls_since(&github, from).await,
        [
            "GET /releases".to_string(),
            "GET /issues".into(),
            format!("GET {comments_route}"),
            format!("POST {comments_route}"),
        ]
    );
    let from = github.requests().await.len();
    pr_run(&github, &new, &["routine"])
        .run()
        .await
        .assert_success();
    assert!(writes_since(&github, from).await.is_empty());

    let comments = github.comments(open_old);
    let ours: Vec<_> = ours(&comments, &new.marker("superseded"));
    assert_eq!(ours.len(), 1, "{comments:#?}");
    let body = ours[0]["body"].as_str().unwrap();
    assert!(
        body.contains(&new.digest) && body.contains(&new.release_url()),
        "{body}"
    );
    assert!(github.comments(closed_old).is_empty());
    assert_eq!(
        github
            .issues()
            .iter()
            .find(|i| number(i) == open_old)
            .unwrap()["state"],
        json!("open"),
        "closing is left to the humans"
    );
}

#[tokio::test]
async fn oversize_bodies_are_truncated_with_a_note_before_sending() {
    use codeq_rollout::context::Repository;
    use codeq_rollout::digest::Digest;
    use codeq_rollout::github::GitHub;
    use codeq_rollout::github::models::{NewIssue, NewRelease};
    use codeq_rollout::publish::{self, IssuePlan, Plan, Target};
    use codeq_rollout::render::{self, MarkerKind};

    let github = FakeGitHub::start().await;
    let gh = GitHub::new(
        &github.api_url(),
        TOKEN,
        Repository::parse(&format!("{OWNER}/{REPO}")).unwrap(),
    )
    .unwrap();
    let digest = Digest::parse(&format!("sha256:{}", "ab".repeat(32))).unwrap();
    let target = Target {
        digest: digest.clone(),
        tag: publish::release_tag("lab", &digest),
        tracking_labels: vec!["security".into()],
        tracking_issue: true,
        image: "ghcr.io/org/lab".into(),
    };
    let found = publish::look_up(&gh, &target).await.unwrap();
    let long = |kind, n| format!("{}\n{}", render::marker(kind, &digest), "x".repeat(n));
    let run_url = format!("{SERVER_URL}/{OWNER}/{REPO}/actions/runs/4242");
    let plan = Plan {
        release: NewRelease {
            tag_name: target.tag.clone(),
            target_commitish: SHA.into(),
            name: "codeq image".into(),
            body: long(MarkerKind::Release, 200_000),
            draft: false,
            prerelease: false,
        },
        issue: Some(IssuePlan {
            new: NewIssue {
                title: "Security release".into(),
                body: long(MarkerKind::TrackingIssue, 70_000),
                labels: vec!["security".into()],
                assignees: vec![],
            },
            evidence: "0".repeat(16),
            update_comment: String::new(),
        }),
        release_url: String::new(),
        full_text_at: run_url.clone(),
    };
    publish::publish(&gh, &found, &plan).await.unwrap();

    let writes = github.writes().await;
    let sent = |route: &str| -> String {
        writes
            .iter()
            .find(|(m, p, _)| m == "POST" && p.ends_with(route))
            .unwrap()
            .2["body"]
            .as_str()
            .unwrap()
            .to_string()
    };
    for (body, limit) in [(sent("/releases"), 125_000), (sent("/issues"), 65_536)] {
        assert_eq!(body.chars().count(), limit);
        assert!(
            body.starts_with("<!-- codeq-rollout:"),
            "the marker is kept"
        );
        assert!(
            body.ends_with(&format!(
                "*This text was cut at {limit} characters, GitHub's limit here. The full text is in {run_url}.*\n"
            )),
            "{}",
            &body[body.len() - 200..]
        );
    }
}

#[tokio::test]
async fn a_release_supersedes_only_tracking_issues_of_its_own_image() {
    let github = FakeGitHub::start().await;
    let (lab, gpu) = (image("cross-lab"), image_named("gpu", "cross-gpu"));
    pr_run(&github, &lab, &["security"])
        .run()
        .await
        .assert_success();
    let lab_issue = number(&open_issues(&github, &lab)[0]);
    let labels = ["security", "break-glass"];
    // Issues opened before the image was recorded in the marker: one whose Image row names
    // another image, one without that row (counted as the same image, see find::same_image).
    let legacy = |variant, row: &str| {
        let old = image(variant);
        github.add_issue(
            "Security release (legacy)",
            &format!(
                "<!-- codeq-rollout:tracking-issue digest={} -->\n{row}Runbook.",
                old.digest
            ),
            &labels,
            "open",
        )
    };
    let legacy_other = legacy("cross-legacy-lab", "| Image | `ghcr.io/org/lab:latest` |\n");
    let legacy_bare = legacy("cross-legacy-bare", "");

    let out = pr_run(&github, &gpu, &["security"]).run().await;
    out.assert_success();
    assert!(
        github.comments(lab_issue).is_empty(),
        "lab's tracking issue is not superseded by gpu: {:#?}",
        github.comments(lab_issue)
    );
    assert!(github.comments(legacy_other).is_empty());
    let bare = github.comments(legacy_bare);
    assert_eq!(ours(&bare, &gpu.marker("superseded")).len(), 1, "{bare:#?}");
    let opened = &open_issues(&github, &gpu)[0];
    assert!(
        opened["body"]
            .as_str()
            .unwrap()
            .starts_with(&gpu.marker("tracking-issue")),
        "the marker names the image repository"
    );
}

#[tokio::test]
async fn a_human_release_with_a_copied_marker_is_not_ours() {
    let github = FakeGitHub::start().await;
    let image = image("copied-marker");
    let copied = format!(
        "{}\nCopied from the bot's note, with our own words.",
        image.marker("release")
    );
    let human = github.add_release("lab-notes-2026", &copied, SHA);

    let out = pr_run(&github, &image, &["routine"]).run().await;
    out.assert_success();
    let writes = github.writes().await;
    assert!(
        writes
            .iter()
            .all(|(_, path, _)| !path.ends_with(&format!("/releases/{human}"))),
        "the human release is never written to: {writes:#?}"
    );
    let created: Vec<_> = writes
        .iter()
        .filter(|(m, p, _)| m == "POST" && p.ends_with("/releases"))
        .collect();
    assert_eq!(created.len(), 1, "{writes:#?}");
    assert_eq!(created[0].2["tag_name"], json!(image.tag()));
    let kept = github.releases();
    let kept = kept.iter().find(|r| r["id"] == json!(human)).unwrap();
    assert_eq!(kept["body"], json!(copied));
}

#[tokio::test]
async fn a_release_note_a_human_edited_is_never_overwritten() {
    let github = FakeGitHub::start().await;
    let image = image("human-edit");
    pr_run(&github, &image, &["security"])
        .run()
        .await
        .assert_success();
    let release = github.releases()[0].clone();
    let id = release["id"].as_u64().unwrap();
    let edited = format!(
        "{}\n### Known issue\nGPU kernels crash on start; use the CPU profile.\n",
        release["body"].as_str().unwrap()
    );
    github.edit_release(id, |r| r["body"] = json!(edited));

    let from = github.requests().await.len();
    let out = pr_run(&github, &image, &["security"]).run().await;
    out.assert_success();
    assert_eq!(out.output("changed"), "false");
    assert!(writes_since(&github, from).await.is_empty());
    assert_eq!(github.releases()[0]["body"], json!(edited));
    assert!(
        out.stdout.contains("::warning") && out.stdout.contains("was edited since"),
        "{}",
        out.stdout
    );
}

#[tokio::test]
async fn duplicate_tracking_labels_and_assignees_are_sent_once() {
    let github = FakeGitHub::start().await;
    let image = image("dedupe");
    pr_run(&github, &image, &["security"])
        .input("tracking-labels", " Security ,\n,break-glass,security ")
        .input("tracking-assignees", "alice, Alice,bob,ALICE")
        .run()
        .await
        .assert_success();
    let writes = github.writes().await;
    let (_, _, issue) = writes
        .iter()
        .find(|(m, p, _)| m == "POST" && p.ends_with("/issues"))
        .unwrap();
    assert_eq!(issue["labels"], json!(["Security", "break-glass"]));
    assert_eq!(issue["assignees"], json!(["alice", "bob"]));
}
