//! Tier resolution for every trigger (issue 3): the built binary, run as the Actions runner
//! runs it, with event payloads derived from GitHub's examples (`tests/fixtures/github-events`)
//! and a fake GitHub answering the pull request look-ups. Each test asserts the tier, its
//! evidence (outputs, release note, summary, log) and the exact look-up requests.
//!
//! The image is the OCI layout shipped in `examples/lab`: the digest is not under test here.

use crate::common::*;
use serde_json::{Value, json};
use wiremock::{Mock, ResponseTemplate};

const IMAGE: &str = "oci:examples/lab";
/// A commit pushed before [`SHA`] in multi-commit pushes.
const SHA_A: &str = "9d2f0b1c4a6e8f3d5b7a9c1e2f4d6b8a0c2e4f61";
/// Another one.
const SHA_B: &str = "5e7a9c1b3d5f7e9a1c3b5d7f9e1a3c5b7d9f1e3a";
/// The commit a `workflow_run` built (the upstream example's `head_sha`).
const RUN_SHA: &str = "3484a3fb816e0859fd6e1cea078d76385ff50625";
/// A `GITHUB_SHA` that is not the commit the release is for.
const OTHER_SHA: &str = "f95f852bd8fca8fcc58a9a2d6c842781e32a215e";

/// A push of `commits` (SHA, message; oldest first) to `branch`, from the upstream
/// `push` example: `after` and `head_commit` are the last commit.
fn push_event(branch: &str, commits: &[(&str, &str)]) -> Value {
    let mut e = fixture("github-events/push_with-new-branch.payload.json");
    let template = e["commits"][0].clone();
    let list: Vec<Value> = commits
        .iter()
        .map(|(id, message)| {
            let mut c = template.clone();
            c["id"] = json!(id);
            c["message"] = json!(message);
            c["url"] = json!(format!("{SERVER_URL}/{OWNER}/{REPO}/commit/{id}"));
            c
        })
        .collect();
    e["ref"] = json!(format!("refs/heads/{branch}"));
    e["created"] = json!(false);
    e["before"] = json!(OTHER_SHA);
    e["after"] = json!(commits.last().unwrap().0);
    e["head_commit"] = list.last().unwrap().clone();
    e["commits"] = Value::Array(list);
    e
}

/// A run of the built binary with a fast look-up backoff (4 tries, no waiting).
fn run(github: &FakeGitHub, event_name: &str, payload: &Value) -> ActionRun {
    let mut run = ActionRun::new(IMAGE, &github.api_url(), event_name, payload);
    run.args
        .extend(["--lookup-backoff-ms".to_string(), "0,0,0".to_string()]);
    run
}

/// The look-up requests (`/commits/{sha}/pulls`, `/pulls/{n}`), as `GET PATH`.
async fn lookups(github: &FakeGitHub) -> Vec<String> {
    github
        .requests()
        .await
        .into_iter()
        .filter(|(_, path, _)| path.contains("/commits/") || path.contains("/pulls/"))
        .map(|(method, path, _)| format!("{method} {path}"))
        .collect()
}

fn commit_lookup(sha: &str) -> String {
    format!("GET /repos/{OWNER}/{REPO}/commits/{sha}/pulls?per_page=100&page=1")
}

fn pull_lookup(number: u64) -> String {
    format!("GET /repos/{OWNER}/{REPO}/pulls/{number}")
}

fn pr_url(number: u64) -> String {
    format!("{SERVER_URL}/{OWNER}/{REPO}/pull/{number}")
}

/// The release POSTed (exactly one), and whether a tracking issue was POSTed before it.
async fn posted_release(github: &FakeGitHub) -> (Value, bool) {
    let writes = github.writes().await;
    let releases: Vec<&Value> = writes
        .iter()
        .filter(|(m, p, _)| m == "POST" && p.ends_with("/releases"))
        .map(|(_, _, body)| body)
        .collect();
    assert_eq!(releases.len(), 1, "{writes:#?}");
    let issues = writes
        .iter()
        .filter(|(m, p, _)| m == "POST" && p.ends_with("/issues"))
        .count();
    assert_eq!(writes.len(), 1 + issues, "{writes:#?}");
    (releases[0].clone(), issues == 1)
}

/// Text as a person reads it: sanitize's invisible joiners and Markdown escapes removed.
fn visible(text: &str) -> String {
    text.replace(['\u{2060}', '\\'], "")
}

fn warnings(out: &Outcome) -> Vec<String> {
    out.stdout
        .lines()
        .filter_map(|l| l.strip_prefix("::warning title=Tier::"))
        .map(String::from)
        .collect()
}

fn error(out: &Outcome) -> String {
    assert_eq!(
        out.code, 1,
        "stdout:\n{}\nstderr:\n{}",
        out.stdout, out.stderr
    );
    out.stdout
        .lines()
        .find_map(|l| l.strip_prefix("::error title=codeq-rollout failed::"))
        .unwrap_or_else(|| panic!("no ::error line in\n{}", out.stdout))
        .to_string()
}

#[tokio::test]
async fn push_with_one_squash_merged_pr_takes_its_label() {
    let github = FakeGitHub::start().await;
    // The index also lists an open PR and a PR merged into another branch: both ignored.
    github.set_commit_pulls(
        SHA,
        vec![json!([
            pull_json(7, "Draft: rework the image", &["security"], None, "master"),
            pull_json(9, "Backport to 1.x", &["security"], Some(SHA), "release-1"),
            pull_json(12, "Bump codeq to 1.4.2", &["routine"], Some(SHA), "master"),
        ])],
    );
    let event = push_event("master", &[(SHA, "Bump codeq to 1.4.2 (#12)")]);
    let out = run(&github, "push", &event).run().await;
    out.assert_success();

    assert_eq!(out.output("tier"), "routine");
    assert_eq!(out.output("tier-source"), "labels");
    assert_eq!(lookups(&github).await, vec![commit_lookup(SHA)]);
    let (release, issue) = posted_release(&github).await;
    assert!(!issue);
    assert_eq!(release["target_commitish"], json!(SHA));
    let note = visible(release["body"].as_str().unwrap());
    assert!(
        note.contains(&format!("- [Bump codeq to 1.4.2]({})", pr_url(12))),
        "{note}"
    );
    assert!(
        !note.contains("Backport") && !note.contains("Draft"),
        "{note}"
    );
    let reason = "routine: label \"routine\" on #12, found from the push of c4295bd74fb0 to master";
    assert!(note.contains(reason), "{note}");
    assert!(visible(&out.summary).contains(reason), "{}", out.summary);
    assert!(
        out.stdout
            .contains(&format!("#12 Bump codeq to 1.4.2 <{}>", pr_url(12))),
        "{}",
        out.stdout
    );
    assert!(warnings(&out).is_empty(), "{}", out.stdout);
}

#[tokio::test]
async fn push_with_several_commits_counts_every_pr_and_one_security_label_wins() {
    let github = FakeGitHub::start().await;
    github.set_commit_pulls(
        SHA_A,
        vec![json!([pull_json(
            21,
            "Document the break-glass",
            &["documentation"],
            Some(SHA_A),
            "master"
        )])],
    );
    github.set_commit_pulls(
        SHA_B,
        vec![json!([pull_json(
            22,
            "Patch codeq against CVE-2026-0001",
            &["Security"],
            Some(SHA_B),
            "master"
        )])],
    );
    github.set_commit_pulls(
        SHA,
        vec![json!([pull_json(
            23,
            "Bump the base image",
            &[],
            Some(SHA),
            "master"
        )])],
    );
    let event = push_event(
        "master",
        &[
            (SHA_A, "Document the break-glass (#21)"),
            (SHA_B, "Patch codeq against CVE-2026-0001 (#22)"),
            (SHA, "Bump the base image (#23)"),
        ],
    );
    let out = run(&github, "push", &event).run().await;
    out.assert_success();

    assert_eq!(out.output("tier"), "security");
    assert_eq!(out.output("tier-source"), "labels");
    assert!(out.output("issue-url").contains("/issues/"));
    assert_eq!(
        lookups(&github).await,
        vec![
            commit_lookup(SHA_A),
            commit_lookup(SHA_B),
            commit_lookup(SHA)
        ]
    );
    let (release, issue) = posted_release(&github).await;
    assert!(issue, "a security release opens the tracking issue");
    let note = visible(release["body"].as_str().unwrap());
    for (n, title) in [
        (21, "Document the break-glass"),
        (22, "Patch codeq against CVE-2026-0001"),
        (23, "Bump the base image"),
    ] {
        assert!(
            note.contains(&format!("[{title}]({})", pr_url(n))),
            "#{n}: {note}"
        );
    }
    assert!(
        note.contains("security: label \"Security\" on #22"),
        "{note}"
    );
    assert_eq!(
        warnings(&out),
        vec!["no tier label on #21, #23: the tier comes from the other pull requests"]
    );
}

#[tokio::test]
async fn push_waits_for_the_lagging_index_and_finds_the_pr_on_the_third_try() {
    let github = FakeGitHub::start().await;
    github.set_commit_pulls(
        SHA,
        vec![
            json!([]),
            json!([]),
            json!([pull_json(
                12,
                "Patch codeq",
                &["security"],
                Some(SHA),
                "master"
            )]),
        ],
    );
    let event = push_event("master", &[(SHA, "Patch codeq (#12)")]);
    let out = run(&github, "push", &event).run().await;
    out.assert_success();

    assert_eq!(out.output("tier"), "security");
    assert_eq!(out.output("tier-source"), "labels");
    // Three tries of the index, and no fallback to the subject's (#12).
    assert_eq!(lookups(&github).await, vec![commit_lookup(SHA); 3]);
    let (release, issue) = posted_release(&github).await;
    assert!(issue);
    let note = visible(release["body"].as_str().unwrap());
    assert!(
        note.contains(&format!("[Patch codeq]({})", pr_url(12))),
        "{note}"
    );
}

#[tokio::test]
async fn push_without_merged_pr_falls_back_to_the_number_in_the_squash_subject() {
    let github = FakeGitHub::start().await;
    github.set_pull(
        12,
        pull_json(12, "Patch codeq", &["security"], Some(SHA), "master"),
    );
    let event = push_event("master", &[(SHA, "Patch codeq (#12)\n\nDetails.")]);
    let out = run(&github, "push", &event).run().await;
    out.assert_success();

    assert_eq!(out.output("tier"), "security");
    assert_eq!(out.output("tier-source"), "labels");
    let mut expected = vec![commit_lookup(SHA); 4];
    expected.push(pull_lookup(12));
    assert_eq!(lookups(&github).await, expected);
    let (release, _) = posted_release(&github).await;
    assert!(
        visible(release["body"].as_str().unwrap())
            .contains(&format!("[Patch codeq]({})", pr_url(12)))
    );
}

#[tokio::test]
async fn push_with_no_pr_and_no_number_fails_saying_what_was_looked_up() {
    let github = FakeGitHub::start().await;
    // A PR named nowhere, merged as another commit: still nothing for this push.
    github.set_commit_pulls(
        SHA,
        vec![json!([pull_json(
            5,
            "Older change",
            &["routine"],
            Some(SHA_A),
            "master"
        )])],
    );
    let event = push_event("master", &[(SHA, "Tweak the Dockerfile")]);
    // The runner passes an input without default as an empty variable: still "not set".
    let out = run(&github, "push", &event)
        .input("unlabeled-tier", "")
        .run()
        .await;
    let message = error(&out);
    eprintln!("MSG: {message}\nSTDOUT: {}", out.stdout);
    for expected in [
        "no merged pull request found for the push of c4295bd74fb0 to master: GitHub lists \
         none merged into master as commit c4295bd74fb0 (GET /repos/octo-org/lab-image/commits/\
         {sha}/pulls, asked 4 times over 0s)",
        "the message of c4295bd74fb0 names no pull request",
        "re-run the job",
        "set the tier input (routine or security)",
        "set unlabeled-tier to routine or security",
    ] {
        assert!(message.contains(expected), "{expected:?} not in {message}");
    }
    assert_eq!(lookups(&github).await, vec![commit_lookup(SHA); 4]);
    assert!(github.writes().await.is_empty());
    assert!(out.outputs.is_empty(), "{:?}", out.outputs);
}

#[tokio::test]
async fn push_with_no_pr_uses_an_explicit_unlabeled_tier_and_says_labels_were_not_used() {
    let github = FakeGitHub::start().await;
    let event = push_event("master", &[(SHA, "Tweak the Dockerfile")]);
    let out = run(&github, "push", &event)
        .input("unlabeled-tier", "routine")
        .run()
        .await;
    out.assert_success();

    assert_eq!(out.output("tier"), "routine");
    assert_eq!(out.output("tier-source"), "default");
    assert_eq!(lookups(&github).await, vec![commit_lookup(SHA); 4]);
    let warned = warnings(&out);
    assert_eq!(warned.len(), 1, "{warned:?}");
    assert!(
        warned[0].starts_with("the tier was not derived from labels: no merged pull request"),
        "{warned:?}"
    );
    let (release, issue) = posted_release(&github).await;
    assert!(!issue);
    let note = visible(release["body"].as_str().unwrap());
    assert!(note.contains("routine: not derived from labels"), "{note}");
    assert!(!note.contains("### Changes"), "{note}");
}

#[tokio::test]
async fn workflow_run_looks_up_the_head_sha_and_the_release_targets_it() {
    let github = FakeGitHub::start().await;
    github.set_commit_pulls(
        RUN_SHA,
        vec![json!([pull_json(
            31,
            "Patch codeq against CVE-2026-0002",
            &["security"],
            Some(RUN_SHA),
            "master"
        )])],
    );
    let mut event = fixture("github-events/workflow_run_completed.with-pull-requests.payload.json");
    event["workflow_run"]["event"] = json!("push");
    event["workflow_run"]["head_commit"]["message"] = json!("Patch codeq (#31)");
    assert_eq!(event["workflow_run"]["head_sha"], json!(RUN_SHA));
    assert_eq!(event["workflow_run"]["head_branch"], json!("master"));
    // GITHUB_SHA of a workflow_run is the default branch's tip, not the built commit.
    let out = run(&github, "workflow_run", &event).run().await;
    out.assert_success();

    assert_eq!(out.output("tier"), "security");
    assert_eq!(out.output("tier-source"), "labels");
    assert_eq!(lookups(&github).await, vec![commit_lookup(RUN_SHA)]);
    let (release, issue) = posted_release(&github).await;
    assert!(issue);
    assert_eq!(release["target_commitish"], json!(RUN_SHA));
    let note = visible(release["body"].as_str().unwrap());
    assert!(note.contains("`3484a3fb816e`"), "{note}");
    assert!(
        note.contains(
            "on #31, found from commit 3484a3fb816e of the triggering push run on master"
        ),
        "{note}"
    );
}

#[tokio::test]
async fn workflow_dispatch_with_the_tier_input_needs_no_look_up() {
    let github = FakeGitHub::start().await;
    let event = fixture("github-events/workflow_dispatch_payload.json");
    let out = run(&github, "workflow_dispatch", &event)
        .input("tier", "security")
        .run()
        .await;
    out.assert_success();

    assert_eq!(out.output("tier"), "security");
    assert_eq!(out.output("tier-source"), "input");
    assert!(lookups(&github).await.is_empty());
    let (release, issue) = posted_release(&github).await;
    assert!(issue);
    let reason = "security: set by the tier input";
    assert!(
        visible(release["body"].as_str().unwrap()).contains(reason),
        "{release}"
    );
    assert!(visible(&out.summary).contains(reason), "{}", out.summary);
    assert!(warnings(&out).is_empty(), "{}", out.stdout);
}

#[tokio::test]
async fn workflow_dispatch_without_the_tier_input_is_unlabeled() {
    let github = FakeGitHub::start().await;
    let event = fixture("github-events/workflow_dispatch_payload.json");
    let out = run(&github, "workflow_dispatch", &event).run().await;
    out.assert_success();

    assert_eq!(out.output("tier"), "routine");
    assert_eq!(out.output("tier-source"), "default");
    assert!(lookups(&github).await.is_empty());
    assert_eq!(
        warnings(&out),
        vec![
            "the workflow_dispatch event carries no pull request: treating the release as routine"
        ]
    );
    let (release, issue) = posted_release(&github).await;
    assert!(!issue);
    assert!(
        visible(release["body"].as_str().unwrap()).contains(
            "routine: the workflow_dispatch event carries no pull request (unlabeled-tier default)"
        ),
        "{release}"
    );
}

#[tokio::test]
async fn schedule_is_unlabeled_and_follows_the_unlabeled_tier() {
    let github = FakeGitHub::start().await;
    // GitHub's schedule payload: the cron expression that fired.
    let event = json!({ "schedule": "30 5 * * *" });
    let out = run(&github, "schedule", &event).run().await;
    out.assert_success();
    assert_eq!(out.output("tier"), "routine");
    assert_eq!(out.output("tier-source"), "default");
    assert_eq!(
        warnings(&out),
        vec!["the schedule event carries no pull request: treating the release as routine"]
    );
    assert!(visible(&out.summary).contains("(unlabeled-tier default)"));
    posted_release(&github).await;

    let out = run(&github, "schedule", &event)
        .input("unlabeled-tier", "FAIL")
        .run()
        .await;
    let message = error(&out);
    eprintln!("MSG: {message}\nSTDOUT: {}", out.stdout);
    assert!(
        message.contains("the schedule event carries no pull request"),
        "{message}"
    );
    assert!(lookups(&github).await.is_empty());
    posted_release(&github).await; // still the first run's only
}

#[tokio::test]
async fn a_403_on_the_look_up_fails_naming_the_permission() {
    let github = FakeGitHub::start().await;
    github
        .state
        .lock()
        .unwrap()
        .forbidden
        .push(("GET", "/pulls"));
    let event = push_event("master", &[(SHA, "Patch codeq (#12)")]);
    let out = run(&github, "push", &event).run().await;
    let message = error(&out);
    eprintln!("MSG: {message}\nSTDOUT: {}", out.stdout);
    for expected in [
        "GitHub answered 403: Resource not accessible by integration",
        "`permissions: pull-requests: read`",
        "while reading the labels of the push of c4295bd74fb0 to master (commit c4295bd74fb0)",
        "set the tier input",
    ] {
        assert!(message.contains(expected), "{expected:?} not in {message}");
    }
    // Not retried as if the index lagged, and no fallback.
    assert_eq!(lookups(&github).await, vec![commit_lookup(SHA)]);
    assert!(github.writes().await.is_empty());
}

#[tokio::test]
async fn conflicting_labels_make_security_with_a_warning_naming_the_prs() {
    let github = FakeGitHub::start().await;
    github.set_commit_pulls(
        SHA_A,
        vec![json!([pull_json(
            41,
            "Bump JupyterLab",
            &["routine"],
            Some(SHA_A),
            "master"
        )])],
    );
    github.set_commit_pulls(
        SHA,
        vec![json!([pull_json(
            42,
            "Patch codeq",
            &["security"],
            Some(SHA),
            "master"
        )])],
    );
    let event = push_event(
        "master",
        &[(SHA_A, "Bump JupyterLab (#41)"), (SHA, "Patch codeq (#42)")],
    );
    let out = run(&github, "push", &event).run().await;
    out.assert_success();

    assert_eq!(out.output("tier"), "security");
    assert_eq!(out.output("tier-source"), "labels");
    assert_eq!(
        lookups(&github).await,
        vec![commit_lookup(SHA_A), commit_lookup(SHA)]
    );
    assert_eq!(
        warnings(&out),
        vec!["conflicting tier labels: security on #42, routine on #41; security wins"]
    );
    let (release, issue) = posted_release(&github).await;
    assert!(issue);
    let note = visible(release["body"].as_str().unwrap());
    assert!(
        note.contains("[Bump JupyterLab]") && note.contains("[Patch codeq]"),
        "{note}"
    );
}

#[tokio::test]
async fn an_explicit_tier_wins_over_labels_and_the_evidence_says_so() {
    let github = FakeGitHub::start().await;
    github.set_commit_pulls(
        SHA,
        vec![json!([pull_json(
            12,
            "Patch codeq",
            &["security"],
            Some(SHA),
            "master"
        )])],
    );
    let event = push_event("master", &[(SHA, "Patch codeq (#12)")]);
    let out = run(&github, "push", &event)
        .input("tier", "routine")
        .run()
        .await;
    out.assert_success();

    assert_eq!(out.output("tier"), "routine");
    assert_eq!(out.output("tier-source"), "input");
    assert_eq!(lookups(&github).await, vec![commit_lookup(SHA)]);
    assert_eq!(
        warnings(&out),
        vec!["the tier input (routine) overrides label \"security\" on #12"]
    );
    let (release, issue) = posted_release(&github).await;
    assert!(!issue);
    let note = visible(release["body"].as_str().unwrap());
    assert!(note.contains("set by the tier input"), "{note}");
    assert!(note.contains("[Patch codeq]"), "{note}");
}

#[tokio::test]
async fn merged_pr_without_labels_in_the_payload_is_refetched_and_targets_its_merge_commit() {
    let github = FakeGitHub::start().await;
    github.set_pull(
        2,
        pull_json(
            2,
            "Patch codeq against CVE-2026-0001",
            &["security"],
            Some(SHA),
            "master",
        ),
    );
    let out = run(&github, "pull_request", &pull_request_merged(&[]))
        .var("GITHUB_SHA", OTHER_SHA)
        .run()
        .await;
    out.assert_success();

    assert_eq!(out.output("tier"), "security");
    assert_eq!(out.output("tier-source"), "labels");
    assert_eq!(lookups(&github).await, vec![pull_lookup(2)]);
    let (release, issue) = posted_release(&github).await;
    assert!(issue);
    assert_eq!(
        release["target_commitish"],
        json!(SHA),
        "the merge commit, not GITHUB_SHA"
    );
    assert!(
        out.stdout.contains(&format!(
            "the release targets commit {SHA}, from pull request #2 (pull_request event) \
             (GITHUB_SHA is {OTHER_SHA})"
        )),
        "{}",
        out.stdout
    );
    let note = visible(release["body"].as_str().unwrap());
    assert!(
        note.contains(
            "security: label \"security\" on #2, found from pull request #2 (pull_request event)"
        ),
        "{note}"
    );
}

#[tokio::test]
async fn merged_pr_with_a_tier_label_in_the_payload_needs_no_look_up() {
    let github = FakeGitHub::start().await;
    let out = run(&github, "pull_request", &pull_request_merged(&["routine"]))
        .run()
        .await;
    out.assert_success();
    assert_eq!(out.output("tier"), "routine");
    assert_eq!(out.output("tier-source"), "labels");
    assert!(lookups(&github).await.is_empty());
    posted_release(&github).await;
}

#[tokio::test]
async fn an_unmerged_pull_request_is_not_announced_by_its_labels() {
    let github = FakeGitHub::start().await;
    let mut event = pull_request_merged(&["security"]);
    event["pull_request"]["merged"] = json!(false);
    event["pull_request"]["merged_at"] = Value::Null;
    let out = run(&github, "pull_request", &event).run().await;
    let message = error(&out);
    eprintln!("MSG: {message}\nSTDOUT: {}", out.stdout);
    assert!(
        message.contains("pull request #2 is not merged")
            && message.contains("github.event.pull_request.merged"),
        "{message}"
    );
    assert!(github.requests().await.is_empty());
}

#[tokio::test]
async fn a_dry_run_without_token_asks_for_a_token_or_the_tier_when_a_look_up_is_needed() {
    let github = FakeGitHub::start().await;
    let event = push_event("master", &[(SHA, "Patch codeq (#12)")]);
    let mut dry = run(&github, "push", &event).input("dry-run", "true");
    dry.env.remove("INPUT_GITHUB-TOKEN");
    let out = dry.run().await;
    let message = error(&out);
    eprintln!("MSG: {message}\nSTDOUT: {}", out.stdout);
    assert!(
        message.contains("this dry run has no GitHub token")
            && message.contains("github-token")
            && message.contains("set the tier input"),
        "{message}"
    );

    // With the tier given, the run goes on and says why the note lists no pull requests.
    let mut dry = run(&github, "push", &event)
        .input("dry-run", "true")
        .input("tier", "security");
    dry.env.remove("INPUT_GITHUB-TOKEN");
    let out = dry.run().await;
    out.assert_success();
    assert_eq!(out.output("tier"), "security");
    assert_eq!(out.output("tier-source"), "input");
    let warned = warnings(&out);
    assert!(
        warned.len() == 1
            && warned[0].starts_with(
                "the tier input sets the tier (security), but the release note lists no pull requests: "
            )
            && warned[0].contains("this dry run has no GitHub token"),
        "{warned:?}"
    );

    // An event that needs no look-up needs no token either.
    let mut dry =
        run(&github, "schedule", &json!({ "schedule": "30 5 * * *" })).input("dry-run", "true");
    dry.env.remove("INPUT_GITHUB-TOKEN");
    dry.run().await.assert_success();
    assert!(github.requests().await.is_empty());
}

// ---- Regression tests for the QA findings on tier resolution (issue 3) ----

/// A commit SHA for the `n`th commit of a long push.
fn nth_sha(n: usize) -> String {
    format!("{:040x}", 0xabc0_0000_u64 + n as u64)
}

/// Answers `path` on the fake's server ahead of its stateful handler, with `body`.
async fn mount_json(github: &FakeGitHub, route: &str, body: Value) {
    Mock::given(wiremock::matchers::path(route))
        .respond_with(ResponseTemplate::new(200).set_body_json(body))
        .with_priority(1)
        .mount(&github.server)
        .await;
}

#[tokio::test]
async fn releases_elsewhere_still_read_the_pull_requests_where_the_event_came_from() {
    let github = FakeGitHub::start().await;
    // The release repository has its own #2 and its own PR for SHA, both security: unrelated.
    github.set_pull(
        2,
        pull_json(2, "Unrelated", &["security"], Some(SHA_A), "master"),
    );
    github.set_commit_pulls(
        SHA,
        vec![json!([pull_json(
            99,
            "Unrelated",
            &["security"],
            Some(SHA),
            "master"
        )])],
    );
    let source = "/repos/octo-org/lab-source";
    mount_json(
        &github,
        &format!("{source}/pulls/2"),
        pull_json(2, "Tidy the Dockerfile", &["routine"], Some(SHA), "master"),
    )
    .await;
    mount_json(
        &github,
        &format!("{source}/commits/{SHA}/pulls"),
        json!([pull_json(
            12,
            "Bump codeq",
            &["routine"],
            Some(SHA),
            "master"
        )]),
    )
    .await;
    let elsewhere = |name: &str, payload: &Value| {
        run(&github, name, payload)
            .var("GITHUB_REPOSITORY", "octo-org/lab-source")
            .input("repository", &format!("{OWNER}/{REPO}"))
    };

    // pull_request: the payload has no tier label, so #2 is re-fetched, from the source.
    let out = elsewhere("pull_request", &pull_request_merged(&["bug"]))
        .run()
        .await;
    out.assert_success();
    assert_eq!(out.output("tier"), "routine", "{}", out.stdout);
    assert_eq!(
        lookups(&github).await,
        vec![format!("GET {source}/pulls/2")]
    );
    let (release, _) = posted_release(&github).await;
    assert!(
        visible(release["body"].as_str().unwrap()).contains("[Tidy the Dockerfile]"),
        "{release}"
    );

    // push: the commit's pull requests, from the source too.
    let event = push_event("master", &[(SHA, "Bump codeq (#12)")]);
    let out = elsewhere("push", &event).run().await;
    out.assert_success();
    assert_eq!(out.output("tier"), "routine", "{}", out.stdout);
    assert_eq!(
        lookups(&github).await[1..],
        [format!(
            "GET {source}/commits/{SHA}/pulls?per_page=100&page=1"
        )]
    );
    // Releases still go to the `repository` input.
    let writes = github.writes().await;
    assert!(
        writes
            .iter()
            .all(|(_, p, _)| p.starts_with(&format!("/repos/{OWNER}/{REPO}/"))),
        "{writes:#?}"
    );
}

/// A push of 150 commits, every one from a routine pull request: only the newest 100 are
/// looked up, so the older 50 could hide a security fix.
fn long_push(github: &FakeGitHub, labels_of_newest: &[&str]) -> Value {
    let mut commits: Vec<(String, String)> = (0..149)
        .map(|i| (nth_sha(i), format!("Step {i}")))
        .collect();
    commits.push((SHA.to_string(), "Finish (#12)".to_string()));
    // A rebase merge of #12: every commit's pull request is #12, merged as SHA.
    for (sha, _) in &commits {
        github.set_commit_pulls(
            sha,
            vec![json!([pull_json(
                12,
                "Rework the image",
                labels_of_newest,
                Some(SHA),
                "master"
            )])],
        );
    }
    let borrowed: Vec<(&str, &str)> = commits
        .iter()
        .map(|(s, m)| (s.as_str(), m.as_str()))
        .collect();
    push_event("master", &borrowed)
}

#[tokio::test]
async fn a_push_of_more_commits_than_are_looked_up_is_never_silently_routine() {
    let github = FakeGitHub::start().await;
    let event = long_push(&github, &["routine"]);
    let out = run(&github, "push", &event).run().await;
    let message = error(&out);
    eprintln!("MSG: {message}");
    for expected in [
        "cannot decide the tier from labels: 50 older commits of the push of c4295bd74fb0 to \
         master were not looked up: the push carries 150 commits, and only the newest 100 are \
         looked up",
        "set the tier input (routine or security)",
    ] {
        assert!(message.contains(expected), "{expected:?} not in {message}");
    }
    let asked = lookups(&github).await;
    assert_eq!(asked.len(), 100, "{asked:?}");
    assert_eq!(asked[0], commit_lookup(&nth_sha(50)));
    assert!(github.writes().await.is_empty());

    // A security label among the commits looked up decides: nothing unseen can lower it.
    let github = FakeGitHub::start().await;
    let event = long_push(&github, &["security"]);
    let out = run(&github, "push", &event).run().await;
    out.assert_success();
    assert_eq!(out.output("tier"), "security");
    assert_eq!(out.output("tier-source"), "labels");
    assert_eq!(
        warnings(&out),
        vec![
            "50 older commits of the push of c4295bd74fb0 to master were not looked up: the \
             push carries 150 commits, and only the newest 100 are looked up (a request each \
             per try); label \"security\" on #12 makes the release security whatever they carry"
        ]
    );
}

#[tokio::test]
async fn a_push_payload_listing_fewer_commits_than_its_size_is_not_decided_by_the_listed_ones() {
    let github = FakeGitHub::start().await;
    github.set_commit_pulls(
        SHA,
        vec![json!([pull_json(
            12,
            "Bump codeq",
            &["routine"],
            Some(SHA),
            "master"
        )])],
    );
    let mut event = push_event("master", &[(SHA, "Bump codeq (#12)")]);
    event["size"] = json!(3);
    let out = run(&github, "push", &event).run().await;
    let message = error(&out);
    assert!(
        message.contains(
            "2 older commits of the push of c4295bd74fb0 to master were not looked up: the push \
             carries 3 commits (its payload lists only 1)"
        ),
        "{message}"
    );
    assert_eq!(lookups(&github).await, vec![commit_lookup(SHA)]);
}

#[tokio::test]
async fn a_push_mixing_a_merged_pr_and_a_commit_without_one_fails_naming_the_commit() {
    let github = FakeGitHub::start().await;
    // SHA_A (no `(#N)`, e.g. a rebase-merged security fix the index has not caught up with,
    // or a direct push) has no pull request listed; SHA is a routine squash merge.
    github.set_pull(
        5,
        pull_json(5, "Patch CVE", &["security"], Some(SHA_A), "master"),
    );
    github.set_commit_pulls(
        SHA,
        vec![json!([pull_json(
            12,
            "Bump codeq",
            &["routine"],
            Some(SHA),
            "master"
        )])],
    );
    let event = push_event(
        "master",
        &[
            (SHA_A, "Harden the notebook server config"),
            (SHA, "Bump codeq (#12)"),
        ],
    );
    let out = run(&github, "push", &event).run().await;
    let message = error(&out);
    eprintln!("MSG: {message}");
    for expected in [
        "cannot decide the tier from labels: commit 9d2f0b1c4a6e of the push of c4295bd74fb0 \
         to master has no merged pull request (GET /repos/octo-org/lab-image/commits/{sha}/pulls, \
         asked 4 times over 0s; the message of 9d2f0b1c4a6e names no pull request",
        "re-run the job",
        "set the tier input (routine or security)",
    ] {
        assert!(message.contains(expected), "{expected:?} not in {message}");
    }
    let mut expected = vec![commit_lookup(SHA_A), commit_lookup(SHA)];
    expected.extend(vec![commit_lookup(SHA_A); 3]);
    assert_eq!(lookups(&github).await, expected);
    assert!(github.writes().await.is_empty());

    // An explicit unlabeled-tier accepts it, and says the tier was not derived from labels.
    let out = run(&github, "push", &event)
        .input("unlabeled-tier", "security")
        .run()
        .await;
    out.assert_success();
    assert_eq!(out.output("tier"), "security");
    assert_eq!(out.output("tier-source"), "default");
    let warned = warnings(&out);
    assert!(
        warned.len() == 1
            && warned[0].starts_with(
                "the tier was not derived from labels: commit 9d2f0b1c4a6e of the push"
            ),
        "{warned:?}"
    );
    let (release, _) = posted_release(&github).await;
    assert!(
        visible(release["body"].as_str().unwrap()).contains("[Bump codeq]"),
        "{release}"
    );
}

/// A `merge_group` payload as GitHub documents it (merge queue, `checks_requested`).
fn merge_group_event(head_sha: &str, message: &str) -> Value {
    json!({
        "action": "checks_requested",
        "merge_group": {
            "head_sha": head_sha,
            "head_ref": format!("refs/heads/gh-readonly-queue/master/pr-2-{OTHER_SHA}"),
            "base_sha": OTHER_SHA,
            "base_ref": "refs/heads/master",
            "head_commit": { "id": head_sha, "message": message }
        },
        "repository": { "full_name": format!("{OWNER}/{REPO}") }
    })
}

#[tokio::test]
async fn merge_group_looks_up_the_pull_requests_behind_its_head_sha() {
    let github = FakeGitHub::start().await;
    github.set_commit_pulls(
        SHA,
        vec![json!([pull_json(
            2,
            "Patch CVE",
            &["security"],
            Some(SHA),
            "master"
        )])],
    );
    let out = run(
        &github,
        "merge_group",
        &merge_group_event(SHA, "Patch CVE (#2)"),
    )
    .var("GITHUB_SHA", OTHER_SHA)
    .run()
    .await;
    out.assert_success();
    assert_eq!(out.output("tier"), "security");
    assert_eq!(out.output("tier-source"), "labels");
    assert_eq!(lookups(&github).await, vec![commit_lookup(SHA)]);
    let (release, _) = posted_release(&github).await;
    assert_eq!(release["target_commitish"], json!(SHA));
    assert!(
        visible(release["body"].as_str().unwrap())
            .contains("found from the merge group c4295bd74fb0 into master"),
        "{release}"
    );

    // Queued, not merged yet: a loud failure that says where to announce from.
    let github = FakeGitHub::start().await;
    github.set_commit_pulls(
        SHA,
        vec![json!([pull_json(
            2,
            "Patch CVE",
            &["security"],
            None,
            "master"
        )])],
    );
    let out = run(&github, "merge_group", &merge_group_event(SHA, "Patch CVE"))
        .run()
        .await;
    let message = error(&out);
    assert!(
        message.contains("A merge group is built before its pull requests are merged"),
        "{message}"
    );
}

#[tokio::test]
async fn pull_request_target_reads_the_merged_pr_like_pull_request() {
    let github = FakeGitHub::start().await;
    let out = run(
        &github,
        "pull_request_target",
        &pull_request_merged(&["security"]),
    )
    .var("GITHUB_SHA", OTHER_SHA)
    .run()
    .await;
    out.assert_success();
    assert_eq!(out.output("tier"), "security");
    assert_eq!(out.output("tier-source"), "labels");
    assert!(lookups(&github).await.is_empty());
    let (release, _) = posted_release(&github).await;
    assert_eq!(release["target_commitish"], json!(SHA));
}

#[tokio::test]
async fn a_merged_pr_without_merge_commit_sha_is_refetched_for_it_or_warns() {
    let github = FakeGitHub::start().await;
    github.set_pull(
        2,
        pull_json(2, "Patch codeq", &["routine"], Some(SHA), "master"),
    );
    let mut event = pull_request_merged(&["routine"]);
    event["pull_request"]["merge_commit_sha"] = Value::Null;
    let out = run(&github, "pull_request", &event)
        .var("GITHUB_SHA", OTHER_SHA)
        .run()
        .await;
    out.assert_success();
    assert_eq!(lookups(&github).await, vec![pull_lookup(2)]);
    let (release, _) = posted_release(&github).await;
    assert_eq!(release["target_commitish"], json!(SHA));
    assert!(warnings(&out).is_empty(), "{}", out.stdout);

    // GitHub cannot say either: the release targets GITHUB_SHA, with a warning saying so.
    let github = FakeGitHub::start().await;
    let out = run(&github, "pull_request", &event)
        .var("GITHUB_SHA", OTHER_SHA)
        .run()
        .await;
    out.assert_success();
    assert_eq!(out.output("tier"), "routine");
    let warned = warnings(&out);
    assert_eq!(warned.len(), 2, "{warned:?}");
    assert!(
        warned[0].starts_with("while re-fetching pull request #2 (the event's `merge_commit_sha`"),
        "{warned:?}"
    );
    assert_eq!(
        warned[1],
        format!(
            "pull request #2 has no merge commit SHA (null in the event), so the release targets \
             GITHUB_SHA {OTHER_SHA}; on a pull_request event that is not the merged commit: set \
             the sha input to it"
        )
    );
    let (release, _) = posted_release(&github).await;
    assert_eq!(release["target_commitish"], json!(OTHER_SHA));
}

#[tokio::test]
async fn a_branch_deletion_has_nothing_to_announce() {
    let github = FakeGitHub::start().await;
    for deleted in [false, true] {
        let mut event = push_event("master", &[(SHA, "Bump codeq (#12)")]);
        event["after"] = json!("0000000000000000000000000000000000000000");
        event["deleted"] = json!(deleted);
        let out = run(&github, "push", &event).run().await;
        let message = error(&out);
        assert!(
            message.contains("the push deleted refs/heads/master")
                && message.contains("nothing to announce")
                && !message.contains("GITHUB_SHA is unset"),
            "{message}"
        );
    }
    assert!(github.requests().await.is_empty());
}

#[tokio::test]
async fn only_digits_after_the_hash_name_a_pull_request_in_a_subject() {
    let github = FakeGitHub::start().await;
    github.set_pull(
        12,
        pull_json(12, "Patch CVE", &["security"], Some(SHA), "master"),
    );
    let event = push_event("master", &[(SHA, "Odd (#+12)")]);
    let out = run(&github, "push", &event).run().await;
    let message = error(&out);
    assert!(message.contains("names no pull request"), "{message}");
    assert_eq!(lookups(&github).await, vec![commit_lookup(SHA); 4]);
}

#[tokio::test]
async fn the_tier_input_matches_in_any_case() {
    let github = FakeGitHub::start().await;
    let event = fixture("github-events/workflow_dispatch_payload.json");
    let out = run(&github, "workflow_dispatch", &event)
        .input("tier", "Security")
        .run()
        .await;
    out.assert_success();
    assert_eq!(out.output("tier"), "security");
    assert_eq!(out.output("tier-source"), "input");
}

#[tokio::test]
async fn a_label_on_both_lists_says_the_lists_overlap() {
    let github = FakeGitHub::start().await;
    let out = run(&github, "pull_request", &pull_request_merged(&["hotfix"]))
        .input("security-labels", "hotfix")
        .input("routine-labels", "routine,hotfix")
        .run()
        .await;
    out.assert_success();
    assert_eq!(out.output("tier"), "security");
    assert_eq!(
        warnings(&out),
        vec![
            "the label lists overlap: \"hotfix\" is in both security-labels and routine-labels, \
             so it counts as security; remove it from one of them"
        ]
    );
}

#[tokio::test]
async fn the_pull_requests_of_a_commit_are_read_on_every_page() {
    let github = FakeGitHub::start().await;
    // 100 open pull requests fill the first page; the merged one is on the second.
    let mut all: Vec<Value> = (0..100)
        .map(|i| pull_json(1000 + i, "Open", &["routine"], None, "master"))
        .collect();
    all.push(pull_json(
        7,
        "Patch CVE",
        &["security"],
        Some(SHA),
        "master",
    ));
    let route = format!("/repos/{OWNER}/{REPO}/commits/{SHA}/pulls");
    for (page, items) in all.chunks(100).enumerate() {
        Mock::given(wiremock::matchers::path(route.as_str()))
            .and(wiremock::matchers::query_param(
                "page",
                (page + 1).to_string(),
            ))
            .respond_with(ResponseTemplate::new(200).set_body_json(items))
            .with_priority(1)
            .mount(&github.server)
            .await;
    }
    let event = push_event("master", &[(SHA, "Patch CVE")]);
    let out = run(&github, "push", &event).run().await;
    out.assert_success();
    assert_eq!(out.output("tier"), "security");
    assert_eq!(
        lookups(&github).await,
        vec![
            commit_lookup(SHA),
            format!("GET {route}?per_page=100&page=2")
        ]
    );
}

#[tokio::test]
async fn with_the_tier_input_pull_requests_are_only_listed_never_waited_for() {
    // The payload's labels carry no tier label: with the tier given they are not re-fetched,
    // the pull request is listed as the payload has it, and nothing is warned.
    let github = FakeGitHub::start().await;
    let out = run(&github, "pull_request", &pull_request_merged(&["docs"]))
        .input("tier", "security")
        .run()
        .await;
    out.assert_success();
    assert_eq!(out.output("tier-source"), "input");
    assert!(lookups(&github).await.is_empty());
    assert!(warnings(&out).is_empty(), "{}", out.stdout);
    let (release, _) = posted_release(&github).await;
    let note = visible(release["body"].as_str().unwrap());
    assert!(
        note.contains("| Tier | **security** (security: set by the tier input) |")
            && note.contains("Patch codeq against CVE-2026-0001"),
        "{note}"
    );

    // A push whose pull request the index does not list yet: asked once, not on the backoff
    // schedule, and the warning says the tier stands and only the list is missing.
    let github = FakeGitHub::start().await;
    let event = push_event("master", &[(SHA, "Tweak the Dockerfile")]);
    let out = run(&github, "push", &event)
        .input("tier", "security")
        .run()
        .await;
    out.assert_success();
    assert_eq!(lookups(&github).await, vec![commit_lookup(SHA)]);
    let warned = warnings(&out);
    assert!(
        warned.len() == 1
            && warned[0].starts_with(
                "the tier input sets the tier (security), but the release note lists no pull requests: "
            ),
        "{warned:?}"
    );
}
