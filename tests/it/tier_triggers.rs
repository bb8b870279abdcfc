//! Tier resolution for every trigger (issue 3): the built binary, run as the Actions runner
//! runs it, with event payloads derived from GitHub's examples (`tests/fixtures/github-events`)
//! and a fake GitHub answering the pull request look-ups. A few runs per trigger, each a row
//! stating its scenario; the snapshot of its transcript holds the tier and its evidence
//! (outputs, the release note and tracking issue as POSTed, the summary, the log) and every
//! request, so the look-ups and their count. The decision itself is unit-tested in src/.
//!
//! The image is the OCI layout shipped in `examples/lab`: the digest is not under test here.

use crate::common::scenario::{OTHER_SHA, Scenario, push_event};
use crate::common::*;
use serde_json::{Value, json};
use wiremock::{Mock, ResponseTemplate};

/// A commit pushed before [`SHA`] in multi-commit pushes.
const SHA_A: &str = "9d2f0b1c4a6e8f3d5b7a9c1e2f4d6b8a0c2e4f61";
/// Another one.
const SHA_B: &str = "5e7a9c1b3d5f7e9a1c3b5d7f9e1a3c5b7d9f1e3a";
/// The commit a `workflow_run` built (the upstream example's `head_sha`).
const RUN_SHA: &str = "3484a3fb816e0859fd6e1cea078d76385ff50625";

/// A pull request merged into master as `sha`.
fn merged(number: u64, title: &str, labels: &[&str], sha: &str) -> Value {
    pull_json(number, title, labels, Some(sha), "master")
}

/// Runs each scenario and compares its transcript with the snapshot named after it.
async fn each_run_matches_its_snapshot(cases: Vec<(&str, Scenario)>) {
    for (name, scenario) in cases {
        let seen = scenario.observe().await;
        insta::assert_snapshot!(name, seen.transcript);
    }
}

#[tokio::test]
async fn push_decides_the_tier_from_the_pull_requests_of_its_commits() {
    let patch = |sha| [merged(12, "Patch codeq", &["security"], sha)];
    each_run_matches_its_snapshot(vec![
        (
            // The index also lists an open PR and a PR merged into another branch: ignored.
            "push_with_one_squash_merged_pr_takes_its_label",
            Scenario::push(&[(SHA, "Bump codeq to 1.4.2 (#12)")]).lists(
                SHA,
                [
                    pull_json(7, "Draft: rework the image", &["security"], None, "master"),
                    pull_json(9, "Backport to 1.x", &["security"], Some(SHA), "release-1"),
                    merged(12, "Bump codeq to 1.4.2", &["routine"], SHA),
                ],
            ),
        ),
        (
            "push_with_several_commits_counts_every_pr_and_one_security_label_wins",
            Scenario::push(&[
                (SHA_A, "Document the break-glass (#21)"),
                (SHA_B, "Patch codeq against CVE-2026-0001 (#22)"),
                (SHA, "Bump the base image (#23)"),
            ])
            .lists(
                SHA_A,
                [merged(
                    21,
                    "Document the break-glass",
                    &["documentation"],
                    SHA_A,
                )],
            )
            .lists(
                SHA_B,
                [merged(
                    22,
                    "Patch codeq against CVE-2026-0001",
                    &["Security"],
                    SHA_B,
                )],
            )
            .lists(SHA, [merged(23, "Bump the base image", &[], SHA)]),
        ),
        (
            // Three tries of the index, and no fallback to the subject's (#12).
            "push_waits_for_the_lagging_index_and_finds_the_pr_on_the_third_try",
            Scenario::push(&[(SHA, "Patch codeq (#12)")]).lists_in_turn(
                SHA,
                vec![json!([]), json!([]), Value::Array(patch(SHA).to_vec())],
            ),
        ),
        (
            "push_without_merged_pr_falls_back_to_the_number_in_the_squash_subject",
            Scenario::push(&[(SHA, "Patch codeq (#12)\n\nDetails.")]).pull(merged(
                12,
                "Patch codeq",
                &["security"],
                SHA,
            )),
        ),
        (
            // A PR named nowhere, merged as another commit: still nothing for this push. The
            // runner passes an input without default as an empty variable: still "not set".
            "push_with_no_pr_and_no_number_fails_saying_what_was_looked_up",
            Scenario::push(&[(SHA, "Tweak the Dockerfile")])
                .lists(SHA, [merged(5, "Older change", &["routine"], SHA_A)])
                .input("unlabeled-tier", ""),
        ),
        (
            "push_with_no_pr_uses_an_explicit_unlabeled_tier_and_says_labels_were_not_used",
            Scenario::push(&[(SHA, "Tweak the Dockerfile")]).input("unlabeled-tier", "routine"),
        ),
        (
            // Not retried as if the index lagged, and no fallback.
            "push_with_a_403_on_the_look_up_fails_naming_the_permission",
            Scenario::push(&[(SHA, "Patch codeq (#12)")]).forbid("GET", "/pulls"),
        ),
        (
            "push_with_conflicting_labels_is_security_with_a_warning_naming_the_prs",
            Scenario::push(&[(SHA_A, "Bump JupyterLab (#41)"), (SHA, "Patch codeq (#42)")])
                .lists(SHA_A, [merged(41, "Bump JupyterLab", &["routine"], SHA_A)])
                .lists(SHA, [merged(42, "Patch codeq", &["security"], SHA)]),
        ),
        (
            "push_with_an_explicit_tier_over_labels_says_so_in_the_evidence",
            Scenario::push(&[(SHA, "Patch codeq (#12)")])
                .lists(SHA, patch(SHA))
                .input("tier", "routine"),
        ),
        (
            // Bad input (exit 2, Invalid input: github-token), as without --dry-run.
            "push_dry_run_without_token_asks_for_a_token_or_the_tier",
            Scenario::push(&[(SHA, "Patch codeq (#12)")])
                .input("dry-run", "true")
                .without_token(),
        ),
        (
            // Bad input (exit 2) naming repository, as without --dry-run; outside Actions,
            // whose runner always sets GITHUB_REPOSITORY.
            "push_dry_run_without_repository_asks_for_the_repository",
            Scenario::push(&[(SHA, "Patch codeq (#12)")])
                .input("dry-run", "true")
                .var("GITHUB_REPOSITORY", "")
                .var("GITHUB_ACTIONS", ""),
        ),
        (
            // With the tier given, the run goes on and says why the note lists no PRs.
            "push_dry_run_without_token_with_the_tier_lists_no_pull_requests",
            Scenario::push(&[(SHA, "Patch codeq (#12)")])
                .input("dry-run", "true")
                .input("tier", "security")
                .without_token(),
        ),
        (
            "push_payload_listing_fewer_commits_than_its_size_is_not_decided_by_the_listed_ones",
            Scenario::push(&[(SHA, "Bump codeq (#12)")])
                .lists(SHA, [merged(12, "Bump codeq", &["routine"], SHA)])
                .edit(|e| e["size"] = json!(3)),
        ),
        (
            // SHA_A (no `(#N)`: a rebase-merged security fix the index has not caught up
            // with, or a direct push) has no PR listed; SHA is a routine squash merge.
            "push_mixing_a_merged_pr_and_a_commit_without_one_fails_naming_the_commit",
            mixed_push(),
        ),
        (
            // An explicit unlabeled-tier accepts it, and says the tier was not from labels.
            "push_mixing_a_merged_pr_and_a_commit_without_one_follows_unlabeled_tier",
            mixed_push().input("unlabeled-tier", "security"),
        ),
        (
            "push_deleting_the_branch_has_nothing_to_announce",
            Scenario::push(&[(SHA, "Bump codeq (#12)")]).edit(|e| {
                e["after"] = json!("0000000000000000000000000000000000000000");
                e["deleted"] = json!(true);
            }),
        ),
        (
            // Issue 27: a deletion announces nothing whatever the inputs (it published a
            // release for commit 0000… with the tier set).
            "push_deleting_the_branch_with_the_tier_set_announces_nothing",
            Scenario::push(&[(SHA, "Bump codeq (#12)")])
                .input("tier", "security")
                .edit(|e| {
                    e["after"] = json!("0000000000000000000000000000000000000000");
                    e["deleted"] = json!(true);
                }),
        ),
        (
            // Issue 27, fail closed: labels GitHub would not show (no pull-requests: read)
            // may say security, so unlabeled-tier: routine does not make the release routine.
            "push_whose_labels_cannot_be_read_is_not_made_routine_by_unlabeled_tier",
            Scenario::push(&[(SHA, "Patch codeq (#12)")])
                .forbid("GET", "/pulls")
                .input("unlabeled-tier", "routine"),
        ),
        (
            // A zero `after` alone says the same, whatever `deleted` says.
            "push_to_a_zero_after_has_nothing_to_announce",
            Scenario::push(&[(SHA, "Bump codeq (#12)")]).edit(|e| {
                e["after"] = json!("0000000000000000000000000000000000000000");
                e["deleted"] = json!(false);
            }),
        ),
        (
            "push_subject_names_a_pull_request_only_with_digits_after_the_hash",
            Scenario::push(&[(SHA, "Odd (#+12)")]).pull(merged(
                12,
                "Patch CVE",
                &["security"],
                SHA,
            )),
        ),
        (
            // The index does not list the PR yet: asked once, not on the backoff schedule;
            // the warning says the tier stands and only the list is missing.
            "push_with_the_tier_input_lists_pull_requests_without_waiting_for_them",
            Scenario::push(&[(SHA, "Tweak the Dockerfile")]).input("tier", "security"),
        ),
        (
            // The default backoff (2 s, 6 s, 18 s) is not used with the tier set: the warning
            // says what happened, one request and no waiting (issue 16: it said "over 26s").
            "push_with_the_tier_input_says_it_asked_once_without_waiting",
            Scenario::push(&[(SHA, "Tweak the Dockerfile")])
                .input("tier", "security")
                .backoff_ms("2000,6000,18000"),
        ),
    ])
    .await;
}

fn mixed_push() -> Scenario {
    Scenario::push(&[
        (SHA_A, "Harden the notebook server config"),
        (SHA, "Bump codeq (#12)"),
    ])
    .pull(merged(5, "Patch CVE", &["security"], SHA_A))
    .lists(SHA, [merged(12, "Bump codeq", &["routine"], SHA)])
}

#[tokio::test]
async fn pull_request_reads_the_merged_pr_from_the_payload_or_refetches_it() {
    let no_merge_sha = |e: &mut Value| e["pull_request"]["merge_commit_sha"] = Value::Null;
    each_run_matches_its_snapshot(vec![
        (
            "pull_request_with_a_tier_label_in_the_payload_needs_no_look_up",
            Scenario::merged_pr(&["routine"]),
        ),
        (
            "pull_request_without_labels_is_refetched_and_targets_its_merge_commit",
            Scenario::merged_pr(&[])
                .pull(merged(
                    2,
                    "Patch codeq against CVE-2026-0001",
                    &["security"],
                    SHA,
                ))
                .var("GITHUB_SHA", OTHER_SHA),
        ),
        (
            "pull_request_not_merged_is_not_announced_by_its_labels",
            Scenario::merged_pr(&["security"]).edit(|e| {
                e["pull_request"]["merged"] = json!(false);
                e["pull_request"]["merged_at"] = Value::Null;
            }),
        ),
        (
            // Issue 27 (N1): an unmerged pull request is in no release, whatever the tier
            // inputs (it published a release for the test-merge commit with the tier set).
            "pull_request_not_merged_with_the_tier_set_announces_nothing",
            Scenario::merged_pr(&["security"])
                .input("tier", "security")
                .edit(|e| {
                    e["pull_request"]["merged"] = json!(false);
                    e["pull_request"]["merged_at"] = Value::Null;
                }),
        ),
        (
            "pull_request_not_merged_with_unlabeled_tier_security_announces_nothing",
            Scenario::merged_pr(&[])
                .input("unlabeled-tier", "security")
                .edit(|e| {
                    e["pull_request"]["merged"] = json!(false);
                    e["pull_request"]["merged_at"] = Value::Null;
                }),
        ),
        (
            "pull_request_target_reads_the_merged_pr_like_pull_request",
            Scenario::event("pull_request_target", pull_request_merged(&["security"]))
                .var("GITHUB_SHA", OTHER_SHA),
        ),
        (
            "pull_request_without_merge_commit_sha_is_refetched_for_it",
            Scenario::merged_pr(&["routine"])
                .edit(no_merge_sha)
                .pull(merged(2, "Patch codeq", &["routine"], SHA))
                .var("GITHUB_SHA", OTHER_SHA),
        ),
        (
            // GitHub cannot say either: the release targets GITHUB_SHA, with a warning.
            "pull_request_without_merge_commit_sha_anywhere_targets_github_sha_and_warns",
            Scenario::merged_pr(&["routine"])
                .edit(no_merge_sha)
                .var("GITHUB_SHA", OTHER_SHA),
        ),
        (
            "pull_request_label_on_both_lists_says_the_lists_overlap",
            Scenario::merged_pr(&["hotfix"])
                .input("security-labels", "hotfix")
                .input("routine-labels", "routine,hotfix"),
        ),
        (
            // No tier label in the payload: with the tier given it is not re-fetched, the
            // PR is listed as the payload has it, and nothing is warned.
            "pull_request_with_the_tier_input_is_listed_never_refetched",
            Scenario::merged_pr(&["docs"]).input("tier", "security"),
        ),
    ])
    .await;
}

#[tokio::test]
async fn workflow_run_and_merge_group_look_up_the_commit_they_built() {
    let mut run = fixture("github-events/workflow_run_completed.with-pull-requests.payload.json");
    run["workflow_run"]["event"] = json!("push");
    run["workflow_run"]["head_commit"]["message"] = json!("Patch codeq (#31)");
    assert_eq!(run["workflow_run"]["head_sha"], json!(RUN_SHA));
    assert_eq!(run["workflow_run"]["head_branch"], json!("master"));
    each_run_matches_its_snapshot(vec![
        (
            // GITHUB_SHA of a workflow_run is the default branch's tip, not the built commit.
            "workflow_run_looks_up_the_head_sha_and_the_release_targets_it",
            Scenario::event("workflow_run", run).lists(
                RUN_SHA,
                [merged(
                    31,
                    "Patch codeq against CVE-2026-0002",
                    &["security"],
                    RUN_SHA,
                )],
            ),
        ),
        (
            "merge_group_looks_up_the_pull_requests_behind_its_head_sha",
            Scenario::event("merge_group", merge_group_event(SHA, "Patch CVE (#2)"))
                .lists(SHA, [merged(2, "Patch CVE", &["security"], SHA)])
                .var("GITHUB_SHA", OTHER_SHA),
        ),
        (
            // Queued, not merged yet: a loud failure that says where to announce from.
            "merge_group_of_unmerged_pull_requests_fails_saying_where_to_announce",
            Scenario::event("merge_group", merge_group_event(SHA, "Patch CVE")).lists(
                SHA,
                [pull_json(2, "Patch CVE", &["security"], None, "master")],
            ),
        ),
    ])
    .await;
}

#[tokio::test]
async fn dispatch_and_schedule_carry_no_pull_request() {
    each_run_matches_its_snapshot(vec![
        (
            "workflow_dispatch_with_the_tier_input_needs_no_look_up",
            Scenario::dispatch().input("tier", "security"),
        ),
        (
            "workflow_dispatch_tier_input_matches_in_any_case",
            Scenario::dispatch().input("tier", "Security"),
        ),
        (
            "workflow_dispatch_without_the_tier_input_is_unlabeled",
            Scenario::dispatch(),
        ),
        (
            "schedule_is_unlabeled_and_follows_the_unlabeled_tier",
            Scenario::schedule(),
        ),
        (
            "schedule_with_unlabeled_tier_fail_fails_and_writes_nothing",
            Scenario::schedule().input("unlabeled-tier", "FAIL"),
        ),
        (
            // An event that needs no look-up needs no token either.
            "schedule_dry_run_needs_no_token",
            Scenario::schedule()
                .input("dry-run", "true")
                .without_token(),
        ),
    ])
    .await;
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

// ---- scenarios a row cannot state: another repository, 150 commits, two pages ----

/// A run of the built binary with a fast look-up backoff (4 tries, no waiting).
fn run(github: &FakeGitHub, event_name: &str, payload: &Value) -> ActionRun {
    Scenario::event(event_name, payload.clone()).action(github)
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

/// The release POSTed (exactly one, and no other write but the tracking issue).
async fn posted_release(github: &FakeGitHub) -> Value {
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
    releases[0].clone()
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
    let release = posted_release(&github).await;
    let note = release["body"].as_str().unwrap();
    assert!(note.contains("Tidy the Dockerfile"), "{note}");

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
    insta::assert_snapshot!(error(&out));
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
            "label \"security\" on #12 makes the release security, whatever the commits not \
             examined carry%0Acaused by: 50 older commits of the push of c4295bd74fb0 to master \
             were not looked up%0Ahelp: the push carries 150 commits, and only the newest 100 are \
             looked up (a request each per try)"
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

/// QA on issue 16, defect 4: the warning counts what the GitHub client sent and slept, read
/// retries included. `/commits/{sha}/pulls` answers 502, 502, then an empty list: three
/// requests and two retry waits (10 ms, then 20 ms), not "1 request, without waiting".
#[tokio::test]
async fn the_look_up_warning_counts_read_retries_and_their_waits() {
    use crate::common::scenario::transcript;
    let scenario = Scenario::push(&[(SHA, "Tweak the Dockerfile")]).input("tier", "security");
    let github = scenario.github().await;
    github.fault(Fault::on("GET", "/pulls", 502, 2));
    let mut run = scenario.action(&github);
    run.args
        .extend(["--github-retry-wait", "10ms"].map(String::from));
    let out = run.run().await;
    out.assert_success();
    let pulls = github
        .calls_since(0)
        .await
        .into_iter()
        .filter(|c| c.ends_with("/pulls"))
        .count();
    assert_eq!(pulls, 3);
    insta::assert_snapshot!(transcript(&out, &github).await);
}

/// Issue 27 item 8: `--dry-run`'s help said it needs no token, but a push with the tier
/// `auto` reads the pull requests' labels, which needs one. The help says when it does, and
/// the run behaves as the help says.
#[tokio::test]
async fn the_dry_run_help_says_when_a_token_is_needed() {
    use clap::CommandFactory;
    let cli = codeq_rollout::Cli::command();
    let announce = cli.find_subcommand("announce").unwrap();
    let dry_run = announce
        .get_arguments()
        .find(|a| a.get_id() == "dry_run")
        .unwrap();
    let help = dry_run.get_help().unwrap().to_string();
    assert!(
        help.contains("tier auto") && help.contains("github-token"),
        "{help}"
    );
    let auto = Scenario::push(&[(SHA, "Patch codeq (#12)")])
        .input("dry-run", "true")
        .without_token()
        .observe()
        .await;
    assert_eq!(
        auto.out.code, 2,
        "tier auto without a token: {}",
        auto.out.stdout
    );
    let given = Scenario::push(&[(SHA, "Patch codeq (#12)")])
        .input("dry-run", "true")
        .input("tier", "routine")
        .without_token()
        .observe()
        .await;
    given.ok();
}
