//! Publishing that is idempotent, race-safe and never overwrites human work: the built
//! binary, run as the Actions runner runs it, against the stateful fake GitHub. The image is
//! a multi-arch OCI layout on disk (the `oci:` source): publishing needs only its digest.
//! Every test asserts the requests each run made, with their bodies and counts; what a run
//! printed or wrote for people is compared whole with a snapshot.

use crate::common::scenario::{Step, step, transcript};
use crate::common::*;
use serde_json::{Value, json};
use tempfile::TempDir;

/// Every run's first look-up: the releases, then the open tracking issues.
const LOOK_UP: [&str; 2] = ["GET /releases", "GET /issues"];

/// A release POST refused on its tag (another run created the release first), then the
/// look-up again.
const RELEASE_REFUSED: [&str; 3] = ["POST /releases", "GET /releases", "GET /issues"];

/// An image in an OCI layout named `name` (so its release tag is `<name>-<12 hex>`).
struct Image {
    _dir: Option<TempDir>,
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
        _dir: Some(dir),
    }
}

/// The layout shipped in `examples/lab`: a fixed path, so the bodies that name it hash the
/// same in every run (for whole-body snapshots).
fn example_image() -> Image {
    Image {
        name: "lab",
        reference: "oci:examples/lab".into(),
        digest: "sha256:dd0db304db5f630383105edfe8b83acde57e620eec75ba323990f58dacb38c9a".into(),
        _dir: None,
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

    /// `text` with the layout's temp path written `[image]`.
    fn scrub(&self, text: &str) -> String {
        scrub(text, &[(&self.reference, "oci:[image]")])
    }
}

/// The fake GitHub, and the image the runs announce.
struct Desk {
    github: FakeGitHub,
    image: Image,
}

impl Desk {
    /// A fresh fake GitHub and image `variant`.
    async fn new(variant: &str) -> Self {
        Self {
            github: FakeGitHub::start().await,
            image: image(variant),
        }
    }

    /// A fresh fake GitHub and the layout shipped in `examples/lab`.
    async fn example() -> Self {
        Self {
            github: FakeGitHub::start().await,
            image: example_image(),
        }
    }

    /// A run after a merged pull request labelled `labels`.
    fn run(&self, labels: &[&str]) -> ActionRun {
        pr_run(&self.github, &self.image, labels)
    }

    /// Runs `run` and returns what it did.
    async fn step(&self, run: ActionRun) -> Step {
        step(&self.github, run).await
    }

    /// Announces after a merged pull request labelled `labels`.
    async fn announce(&self, labels: &[&str]) -> Step {
        self.step(self.run(labels)).await
    }

    /// Two security runs (two workflow runs, two tokens) started together; both succeed.
    async fn two_runs_together(&self) -> (Outcome, Outcome) {
        let one = self.run(&["security"]);
        let two = second_run(self.run(&["security"]));
        let (a, b) = tokio::join!(one.run(), two.run());
        a.assert_success();
        b.assert_success();
        (a, b)
    }

    /// Announces after a merged pull request labelled `labels`; returns the id and body of
    /// the release note it created.
    async fn first_release(&self, labels: &[&str]) -> (u64, String) {
        self.announce(labels).await.ok();
        let release = &self.github.releases()[0];
        let body = release["body"].as_str().unwrap().to_string();
        (release["id"].as_u64().unwrap(), body)
    }

    /// Makes release `id`'s note, `current`, read as an older template wrote it, sealed with
    /// the hash of its text as the older version sent it.
    fn older_note(&self, id: u64, current: &str) {
        let older = codeq_rollout::seal_release(&current.replace("is live.", "is now available."));
        self.github.edit_release(id, |r| r["body"] = json!(older));
    }

    /// The open tracking issues of the image.
    fn open_issues(&self) -> Vec<Value> {
        open_issues(&self.github, &self.image)
    }

    /// What `step` printed, without the `::add-mask::` lines (the secrets tests check
    /// them), with the layout's path and the fake's address named.
    fn printed(&self, step: &Step) -> String {
        let lines: Vec<&str> = step
            .out
            .stdout
            .lines()
            .filter(|l| !l.starts_with("::add-mask::"))
            .collect();
        let text = self.image.scrub(&lines.join("\n"));
        scrub(&text, &[(&self.github.server.uri(), "[github]")])
    }

    /// The ids of the image's objects of marker `kind` (`release`: release ids;
    /// `tracking-issue`: issue numbers), lowest first.
    fn ids(&self, kind: &str) -> Vec<u64> {
        let (items, id) = match kind {
            "release" => (self.github.releases(), "id"),
            _ => (self.github.issues(), "number"),
        };
        let mut ids: Vec<u64> = ours(&items, &self.image.marker(kind))
            .iter()
            .map(|i| i[id].as_u64().unwrap())
            .collect();
        ids.sort_unstable();
        ids
    }

    /// The states of the tracking issues `numbers`, in order.
    fn states(&self, numbers: &[u64]) -> Vec<String> {
        let all = self.github.issues();
        let state = |n: &u64| all.iter().find(|i| number(i) == *n).unwrap()["state"].clone();
        numbers
            .iter()
            .map(|n| state(n).as_str().unwrap().to_string())
            .collect()
    }

    /// The one comment closing duplicate issue `closed`, the kept one's number (`kept`) named
    /// `[label]` (which racing run opened its issue first varies).
    fn closing_comment(&self, closed: u64, kept: u64, label: &str) -> String {
        let note = self.github.comments(closed);
        assert_eq!(note.len(), 1);
        let (number, link) = (format!("#{kept}"), format!("issues/{kept}"));
        let named = [
            (number.as_str(), format!("#[{label}]")),
            (link.as_str(), format!("issues/[{label}]")),
        ];
        let named: Vec<(&str, &str)> = named.iter().map(|(a, b)| (*a, b.as_str())).collect();
        scrub(note[0]["body"].as_str().unwrap(), &named)
    }

    /// Tracking issue `n`'s address.
    fn issue_url(&self, n: u64) -> String {
        format!("{SERVER_URL}/{OWNER}/{REPO}/issues/{n}")
    }

    /// How many releases of the image exist.
    fn our_releases(&self) -> usize {
        ours(&self.github.releases(), &self.image.marker("release")).len()
    }
}

/// Short timeouts and backoffs, through the hidden options (not Action inputs): a second, as
/// much as a loaded machine may take to answer a read of the fake.
fn fast(mut run: ActionRun) -> ActionRun {
    run.args
        .extend(["--github-timeout", "1s", "--github-retry-wait", "10ms"].map(String::from));
    run
}

/// A run for `image` after a merged pull request labelled `labels`.
fn pr_run(github: &FakeGitHub, image: &Image, labels: &[&str]) -> ActionRun {
    fast(ActionRun::merged_pr(
        &image.reference,
        &github.api_url(),
        labels,
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
    let desk = Desk::example().await;
    let first = desk.announce(&["security"]).await.ok();
    assert_eq!(
        first.calls,
        [
            "GET /releases",
            "GET /issues",
            "POST /releases",
            "POST /issues",
        ],
        "look up, create the release (the lock), then open the issue; no listing after a create"
    );
    // The release note and the tracking issue as POSTed, outputs and summary, whole.
    insta::assert_snapshot!(
        "security_release_and_tracking_issue_as_posted",
        desk.image
            .scrub(&transcript(&first.out, &desk.github).await)
    );

    // Hours later, as attempt 2: the note is rendered with the original announce time.
    let again = desk
        .step(later(desk.run(&["security"]), "2026-11-30T17:42:00Z", "2"))
        .await
        .ok();
    assert_eq!(again.calls, ["GET /releases", "GET /issues"]);
    assert_eq!(again.output("changed"), "false");
    assert_eq!(again.output("release-url"), desk.image.release_url());
    assert_eq!(again.output("release-url"), first.output("release-url"));
    assert_eq!(again.output("issue-url"), first.output("issue-url"));
    insta::assert_snapshot!(
        "rerun_summary_says_unchanged",
        desk.image.scrub(&again.out.summary)
    );
}

#[tokio::test]
async fn routine_run_creates_without_listing_again_and_its_rerun_only_reads() {
    let desk = Desk::new("routine-rerun").await;
    let first = desk.announce(&["routine"]).await.ok();
    assert_eq!(
        first.calls,
        ["GET /releases", "GET /issues", "POST /releases"]
    );
    let again = desk.announce(&["routine"]).await.ok();
    assert_eq!(
        again.calls,
        ["GET /releases", "GET /issues"],
        "the open tracking issues are listed to check the supersede comments"
    );
    assert_eq!(again.output("changed"), "false");
}

#[tokio::test]
async fn a_template_change_patches_only_the_release_body() {
    let desk = Desk::new("template").await;
    let (id, current) = desk.first_release(&["security"]).await;
    // As an older template wrote it; a human has since made it a pre-release, not latest.
    desk.older_note(id, &current);
    desk.github.edit_release(id, |r| {
        r["prerelease"] = json!(true);
        r["make_latest"] = json!("false");
    });

    let out = desk.announce(&["security"]).await.ok();
    assert_eq!(out.output("changed"), "true");
    assert_eq!(
        out.writes,
        [(
            "PATCH".to_string(),
            format!("/repos/{OWNER}/{REPO}/releases/{id}"),
            json!({ "body": current })
        )],
        "only the body is sent"
    );
    let after = &desk.github.releases()[0];
    assert_eq!(after["prerelease"], json!(true));
    assert_eq!(after["make_latest"], json!("false"));
    assert_eq!(after["draft"], json!(false));
}

/// Issue 27 item 4: a re-run of the same commit with another tier renames the release (its
/// title named the old tier while body and tracking issue followed the new one).
#[tokio::test]
async fn a_rerun_with_another_tier_renames_the_release_with_its_body() {
    let desk = Desk::new("retitled").await;
    let short = &desk.image.digest["sha256:".len()..][..12];
    desk.step(dispatch_run(&desk.github, &desk.image, "routine", SHA))
        .await
        .ok();
    let id = desk.github.releases()[0]["id"].as_u64().unwrap();
    assert_eq!(
        desk.github.releases()[0]["name"],
        json!(format!("codeq image {short} (routine)"))
    );
    let rerun = later(
        dispatch_run(&desk.github, &desk.image, "security", SHA),
        NOW,
        "2",
    );
    let out = desk.step(rerun).await.ok();
    let release = &desk.github.releases()[0];
    assert_eq!(
        release["name"],
        json!(format!("codeq image {short} (security)"))
    );
    let patches: Vec<&Value> = out
        .writes
        .iter()
        .filter(|(m, p, _)| m == "PATCH" && *p == format!("/repos/{OWNER}/{REPO}/releases/{id}"))
        .map(|(_, _, body)| body)
        .collect();
    assert_eq!(patches.len(), 1, "{:?}", out.writes);
    assert_eq!(
        patches[0]["name"],
        json!(format!("codeq image {short} (security)"))
    );
    assert_eq!(patches[0]["body"], release["body"]);
}

/// Issue 32 item 6: a security release whose hub-url is still the placeholder (a reserved
/// example domain) is refused before anything is published (exit 2, naming hub-url, the job
/// summary and every output saying so; with the tier given, before the image or the labels
/// are read); a dry run shows the bodies with a warning, the run's
/// first annotation (before the culler settings' warning about a values file without
/// `cull`); a routine release needs no runbook. The namespace and Helm release at their
/// defaults (`jhub`) are not refused: the run says it used them.
#[tokio::test]
async fn a_security_release_with_the_placeholder_hub_url_is_refused_before_anything_is_published() {
    let dir = TempDir::new().unwrap();
    let values = dir.path().join("values.yaml");
    std::fs::write(&values, "hub:\n  db:\n    type: sqlite-pvc\n").unwrap();
    let mut seen = Vec::new();
    for (case, labels, tier, dry_run, code) in [
        ("security", "security", "auto", "false", 2),
        ("security given as tier", "routine", "security", "false", 2),
        ("security, dry run", "security", "auto", "true", 0),
        ("routine", "routine", "auto", "false", 0),
    ] {
        let desk = Desk::example().await;
        let run = ActionRun::merged_pr(&desk.image.reference, &desk.github.api_url(), &[labels]);
        let mut run = run.input("dry-run", dry_run).input("tier", tier);
        run = run.input("jupyterhub-values", values.to_str().unwrap());
        run.env.remove("INPUT_HUB-URL");
        let out = desk.step(run).await;
        assert_eq!(out.out.code, code, "{case}: {}", out.out.stdout);
        assert!(out.write_calls().is_empty() || case == "routine", "{case}");
        let whole = transcript(&out.out, &desk.github).await;
        let whole = whole.replace(values.to_str().unwrap(), "[values]");
        seen.push(format!("##### {case}\n{whole}"));
    }
    insta::assert_snapshot!(seen.join("\n"));
}

#[tokio::test]
async fn a_release_without_our_marker_is_never_touched_and_its_tag_is_refused() {
    let desk = Desk::new("collision").await;
    desk.github
        .add_release(&desk.image.tag(), "Hand-written release notes.", SHA);
    let out = desk.announce(&["security"]).await;
    assert_eq!(out.out.code, 1, "{}", out.out.stdout);
    insta::assert_snapshot!(desk.printed(&out));
    assert!(desk.github.writes().await.is_empty());
    assert_eq!(
        desk.github.releases()[0]["body"],
        json!("Hand-written release notes.")
    );
}

#[tokio::test]
async fn a_responders_ticked_checklist_survives_reruns() {
    let desk = Desk::new("ticked").await;
    desk.announce(&["security"]).await.ok();
    let issue = number(&desk.open_issues()[0]);
    let mut ticked = String::new();
    desk.github.edit_issue(issue, |i| {
        ticked = i["body"]
            .as_str()
            .unwrap()
            .replace("- [ ] **Decide.**", "- [x] **Decide.**")
            .replace("- [ ] **Warn users first**", "- [x] **Warn users first**");
        i["body"] = json!(ticked);
    });

    // Same facts: nothing is written.
    assert!(desk.announce(&["security"]).await.ok().writes.is_empty());

    // New facts: they go to a comment; the body is still the responders'.
    let changed = desk.announce(&["security", "cve"]).await.ok();
    assert!(
        changed
            .write_calls()
            .iter()
            .all(|c| !c.starts_with("PATCH /issues/")),
        "{:#?}",
        changed.calls
    );
    assert_eq!(desk.open_issues()[0]["body"], json!(ticked));
}

#[tokio::test]
async fn new_evidence_goes_into_one_update_comment_edited_in_place() {
    let desk = Desk::example().await;
    desk.announce(&["security"]).await.ok();
    let issue = number(&desk.open_issues()[0]);
    let comments_route = format!("/issues/{issue}/comments");
    let release = desk.github.releases()[0]["id"].as_u64().unwrap();

    // A re-run after a label was added: one comment, and the note's label list updated.
    let out = desk.announce(&["security", "cve-2026-0001"]).await.ok();
    assert_eq!(out.output("changed"), "true");
    assert_eq!(
        out.calls.join(", "),
        format!("GET /releases, GET /issues, POST {comments_route}, PATCH /releases/{release}"),
        "the issue has no comments yet, so none are listed"
    );
    let comments = desk.github.comments(issue);
    assert_eq!(comments.len(), 1);
    let body = comments[0]["body"].as_str().unwrap();
    assert!(body.starts_with(&desk.image.marker("update")), "{body}");
    insta::assert_snapshot!("update_comment_with_a_new_label", desk.image.scrub(body));
    let comment_id = comments[0]["id"].as_u64().unwrap();

    // Different again: the same comment is edited, no second one appears.
    let out = desk.announce(&["security", "urgent"]).await.ok();
    let comment_writes: Vec<_> = out
        .write_calls()
        .into_iter()
        .filter(|c| c.contains("comments"))
        .collect();
    assert_eq!(
        comment_writes,
        [format!("PATCH /issues/comments/{comment_id}")]
    );
    let comments = desk.github.comments(issue);
    assert_eq!(comments.len(), 1);
    insta::assert_snapshot!(
        "update_comment_edited_in_place",
        desk.image.scrub(comments[0]["body"].as_str().unwrap())
    );

    // Same as last time: reads only, within the re-run budget of three.
    let out = desk.announce(&["security", "urgent"]).await.ok();
    assert_eq!(out.output("changed"), "false");
    assert_eq!(
        out.calls.join(", "),
        format!("GET /releases, GET /issues, GET {comments_route}")
    );
}

#[tokio::test]
async fn the_same_image_rebuilt_from_another_commit_announces_nothing() {
    let desk = Desk::new("rebuilt").await;
    let dispatch = |sha| dispatch_run(&desk.github, &desk.image, "security", sha);
    let first = desk.step(dispatch(SHA)).await.ok();
    let out = desk
        .step(dispatch("0123456789abcdef0123456789abcdef01234567"))
        .await
        .ok();
    assert!(out.writes.is_empty());
    assert_eq!(out.output("changed"), "false");
    assert_eq!(out.output("release-url"), first.output("release-url"));
    assert_eq!(out.output("issue-url"), first.output("issue-url"));
    insta::assert_snapshot!(desk.printed(&out));
}

/// A write that fails twice (so the run fails after at most one object exists), then a
/// re-run without the fault: exactly one release and one open issue in the end.
async fn fail_at_then_rerun(route: &'static str, timeout: bool) {
    let desk = Desk::new(&format!("fail-POST-{route}-{timeout}")).await;
    desk.github
        .fault(Fault::on("POST", route, 502, 2).hanging_if(timeout));
    let failed = desk.announce(&["security"]).await;
    assert_eq!(failed.out.code, 1, "{}", failed.out.stdout);
    let failure = if timeout { "timeout" } else { "502" };
    insta::assert_snapshot!(
        format!("failing_post_{}_{failure}", route.trim_start_matches('/')),
        desk.printed(&failed)
    );
    let calls = failed.calls;
    let post = format!("POST {route}");
    let at = calls.iter().position(|c| *c == post).unwrap();
    assert_eq!(
        calls[at..at + 3],
        [post.clone(), format!("GET {route}"), post.clone()],
        "after a failed write: a fresh look-up, then one more try, and no other"
    );
    assert_eq!(calls.iter().filter(|c| **c == post).count(), 2);
    let issues_before = desk.open_issues();
    let expected = if route == "/releases" {
        // The tracking issue is opened even though the release step failed.
        (0, 1)
    } else {
        // The release comes first.
        (1, 0)
    };
    assert_eq!((desk.our_releases(), issues_before.len()), expected);

    let rerun = desk.announce(&["security"]).await.ok();
    let creates: Vec<String> = rerun
        .calls
        .into_iter()
        .filter(|c| c.starts_with("POST"))
        .collect();
    assert_eq!(creates, [post], "the re-run creates only what is missing");
    assert_eq!(desk.our_releases(), 1);
    let issues = desk.open_issues();
    assert_eq!(issues.len(), 1);
    if let Some(before) = issues_before.first() {
        assert_eq!(number(before), number(&issues[0]));
    }
}

#[tokio::test]
async fn a_502_or_a_timeout_on_either_create_is_completed_by_a_rerun() {
    for (route, timeout) in [
        ("/issues", false),
        ("/issues", true),
        ("/releases", false),
        ("/releases", true),
    ] {
        fail_at_then_rerun(route, timeout).await;
    }
}

/// A write that took effect although the client saw a 502 or a timeout: looked up, not
/// sent again.
async fn applied_but_failed(route: &'static str, timeout: bool) {
    let desk = Desk::new(&format!("applied-{route}-{timeout}")).await;
    desk.github.fault(
        Fault::on("POST", route, 502, 1)
            .applied()
            .hanging_if(timeout),
    );
    let out = desk.announce(&["security"]).await.ok();
    assert_eq!(out.output("changed"), "true");
    let post = format!("POST {route}");
    assert_eq!(
        out.calls.iter().filter(|c| **c == post).count(),
        1,
        "{:#?}",
        out.calls
    );
    let at = out.calls.iter().position(|c| *c == post).unwrap();
    assert_eq!(
        out.calls[at + 1],
        format!("GET {route}"),
        "a fresh look-up follows"
    );
    assert_eq!(desk.our_releases(), 1);
    assert_eq!(desk.open_issues().len(), 1);
    insta::assert_snapshot!(
        format!("applied_post_{}", route.trim_start_matches('/')),
        desk.printed(&out)
    );
}

#[tokio::test]
async fn a_release_created_despite_a_502_or_an_issue_despite_a_timeout_is_not_made_twice() {
    applied_but_failed("/releases", false).await;
    applied_but_failed("/issues", true).await;
}

/// A fault on every `GET /releases`, `times` times, with `status`.
fn failing_reads(desk: &Desk, status: u16, times: usize) {
    desk.github
        .fault(Fault::on("GET", "/releases", status, times));
}

#[tokio::test]
async fn a_502_on_a_read_is_retried_and_a_persistent_one_fails_before_any_write() {
    let desk = Desk::new("read-retry").await;
    failing_reads(&desk, 502, 1);
    let out = desk.announce(&["routine"]).await.ok();
    assert_eq!(out.calls[..2], ["GET /releases", "GET /releases"]);

    let desk = Desk::new("read-retry").await;
    failing_reads(&desk, 503, 100);
    let out = desk.announce(&["routine"]).await;
    assert_eq!(out.out.code, 1);
    insta::assert_snapshot!(desk.printed(&out));
    assert_eq!(
        out.calls, ["GET /releases"; 4],
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
    let desk = Desk::new("race").await;
    desk.github.race_first_lists();
    let (a, b) = desk.two_runs_together().await;

    let calls = desk.github.calls_since(0).await;
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
    assert_eq!(desk.our_releases(), 1);
    let issues = desk.github.issues();
    let all = ours(&issues, &desk.image.marker("tracking-issue"));
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
        assert_eq!(out.output("release-url"), desk.image.release_url());
    }
    // The loser waits for the winner's issue and reports it; it never ends without one.
    assert_eq!(loser.output("issue-url"), winner.output("issue-url"));
}

/// Issue 16: a release of the digest exists without its tracking issue (an earlier run
/// created it, then failed at the issue), and the release listing misses it (it lags). The
/// create is refused as `already_exists`, yet no other run is opening the issue: after
/// looking for it once more, this run opens it, then reads the issues again to keep the
/// lowest number. It used to take this for a lost race and end green with no issue.
#[tokio::test]
async fn a_security_run_refused_on_a_release_it_did_not_list_still_ends_with_its_issue() {
    let desk = Desk::example().await;
    desk.github.forbid("POST", "/issues");
    let failed = desk.announce(&["security"]).await;
    assert_eq!(failed.out.code, 1, "{}", failed.out.stdout);
    assert!(desk.github.issues().is_empty());
    desk.github.state.lock().unwrap().forbidden.clear();

    desk.github.lag_release_listing(1);
    let mut run = desk.run(&["security"]);
    run.args
        .extend(["--lookup-backoff-ms", "0"].map(String::from));
    let rerun = desk.step(run).await.ok();
    let then_opens_the_issue = ["GET /issues", "POST /issues", "GET /issues"];
    assert_eq!(
        rerun.calls,
        [&LOOK_UP[..], &RELEASE_REFUSED, &then_opens_the_issue].concat(),
        "refused on the tag, it finds the release, looks for the issue twice, opens it once \
         and checks that no lower-numbered one appeared"
    );
    let issues = desk.open_issues();
    assert_eq!(issues.len(), 1, "{issues:#?}");
    assert_eq!(
        rerun.output("issue-url"),
        issues[0]["html_url"].as_str().unwrap()
    );
    assert_eq!(rerun.output("changed"), "true");
    assert_eq!(desk.our_releases(), 1);
    insta::assert_snapshot!(
        "release_not_listed_issue_opened",
        transcript(&rerun.out, &desk.github).await
    );
}

/// Issue 27: a release found only after the POST was refused as existing (the listing lagged)
/// is compared with the note rendered now, as a listed one is: an older note of ours is
/// updated, a note a human edited is left with a warning.
#[tokio::test]
async fn a_release_found_after_already_exists_is_compared_with_the_rendered_note() {
    let desk = Desk::new("refused-then-compared").await;
    let (id, current) = desk.first_release(&["routine"]).await;
    desk.older_note(id, &current);
    desk.github.lag_release_listing(1);
    let rerun = desk.announce(&["routine"]).await.ok();
    assert_eq!(
        rerun.write_calls(),
        [
            "POST /releases".to_string(),
            format!("PATCH /releases/{id}")
        ],
        "refused on the tag, it finds the release and updates its older note"
    );
    assert_eq!(desk.github.releases()[0]["body"], json!(current));

    desk.github.edit_release(id, |r| {
        r["body"] = json!(format!("{current}\nEdited by a human.\n"));
    });
    desk.github.lag_release_listing(1);
    let rerun = desk.announce(&["routine"]).await.ok();
    assert_eq!(rerun.write_calls(), ["POST /releases".to_string()]);
    assert!(
        rerun
            .out
            .stdout
            .lines()
            .any(|l| l.starts_with("::warning") && l.contains("never overwrites")),
        "{}",
        rerun.out.stdout
    );
}

/// The same, but the run that created the release opens its issue after all, just before
/// this run's: the lowest number wins, so this run closes its own as a duplicate and
/// reports the other one.
#[tokio::test]
async fn an_issue_opened_after_waiting_gives_way_to_a_lower_numbered_one() {
    let desk = Desk::new("late-creator").await;
    desk.github.forbid("POST", "/issues");
    assert_eq!(desk.announce(&["security"]).await.out.code, 1);
    desk.github.state.lock().unwrap().forbidden.clear();
    desk.github.lag_release_listing(1);
    let marker = desk.image.marker("tracking-issue");
    desk.github.open_issue_before_next_post(
        "Security release: break-glass runbook",
        &format!("{marker}\nthe other run's checklist"),
        &["security", "break-glass"],
    );
    let mut run = desk.run(&["security"]);
    run.args
        .extend(["--lookup-backoff-ms", "0"].map(String::from));
    let rerun = desk.step(run).await.ok();
    assert_eq!(
        rerun.write_calls(),
        [
            "POST /releases",
            "POST /issues",
            "POST /issues/1003/comments",
            "PATCH /issues/1003"
        ],
        "{:#?}",
        rerun.calls
    );
    // It opened, commented on and closed an issue: it wrote.
    reports_the_one_open_issue(&desk, &rerun, Some(1002));
}

/// Asserts that `out` made the calls `before`, then opened tracking issue 1003, found 1002
/// opened meanwhile and closed its own as a duplicate with a comment, and reports 1002.
fn gave_way(desk: &Desk, out: &Step, before: &[&str]) {
    let gives_way = [
        "POST /issues",
        "GET /issues",
        "POST /issues/1003/comments",
        "PATCH /issues/1003",
    ];
    assert_eq!(out.calls, [before, &gives_way].concat());
    reports_the_one_open_issue(desk, out, Some(1002));
}

/// Asserts that one tracking issue of the image is open (numbered `expected`, when given),
/// that `out` reports it as `issue-url`, and that it says it wrote (`changed=true`).
fn reports_the_one_open_issue(desk: &Desk, out: &Step, expected: Option<u64>) {
    let open = desk.open_issues();
    assert_eq!(open.len(), 1, "{open:#?}");
    if let Some(expected) = expected {
        assert_eq!(number(&open[0]), expected);
    }
    assert_eq!(
        out.output("issue-url"),
        open[0]["html_url"].as_str().unwrap()
    );
    assert_eq!(out.output("changed"), "true");
}

/// `desk` after a first security run that created the release and failed at the tracking
/// issue (403), leaving the release without it; the 403 is lifted for the next run.
async fn release_without_issue(desk: Desk) -> Desk {
    desk.github.forbid("POST", "/issues");
    let failed = desk.announce(&["security"]).await;
    assert_eq!(failed.out.code, 1, "{}", failed.out.stdout);
    assert!(desk.github.issues().is_empty());
    desk.github.state.lock().unwrap().forbidden.clear();
    desk
}

/// Another run's tracking issue for the digest, opened just before this run's POST.
fn other_runs_issue_first(desk: &Desk) {
    let marker = desk.image.marker("tracking-issue");
    desk.github.open_issue_before_next_post(
        "Security release: break-glass runbook",
        &format!("{marker}\nthe other run's checklist"),
        &["security", "break-glass"],
    );
}

/// A security run after a merged pull request, one wait before opening the issue itself.
fn one_wait(desk: &Desk) -> ActionRun {
    let mut run = desk.run(&["security"]);
    run.args
        .extend(["--lookup-backoff-ms", "0"].map(String::from));
    run
}

/// QA on issue 16, defect 1: the release of the digest exists from another commit without its
/// tracking issue (that run failed at the issue). The same image rebuilt announces nothing
/// new, but a security run still opens the missing issue rather than end green without it.
#[tokio::test]
async fn a_rebuilt_image_whose_release_lacks_its_issue_still_gets_the_issue() {
    let desk = Desk::new("rebuilt-no-issue").await;
    desk.github.forbid("POST", "/issues");
    let dispatch = |sha| dispatch_run(&desk.github, &desk.image, "security", sha);
    assert_eq!(desk.step(dispatch(SHA)).await.out.code, 1);
    desk.github.state.lock().unwrap().forbidden.clear();
    let out = desk
        .step(dispatch("2222222222222222222222222222222222222222"))
        .await
        .ok();
    assert_eq!(out.calls, ["GET /releases", "GET /issues", "POST /issues"]);
    reports_the_one_open_issue(&desk, &out, None);
    insta::assert_snapshot!(desk.printed(&out));
}

/// QA on issue 16, defect 2: the release POST is refused as existing and no listing ever
/// shows the release, while another run opens its tracking issue just before this run's.
/// The run waits for the creator's issue as a run that lost the race does, and after
/// opening its own reads again and gives way to the lower number.
#[tokio::test]
async fn a_refused_release_never_listed_gives_way_to_a_concurrent_runs_issue() {
    let desk = release_without_issue(Desk::new("refused-never-listed").await).await;
    desk.github.lag_release_listing(100);
    other_runs_issue_first(&desk);
    let out = desk.step(one_wait(&desk)).await;
    assert_eq!(
        out.out.code, 1,
        "the release is not listed yet: {}",
        out.out.stdout
    );
    let waits_for_the_issue = [&LOOK_UP[..], &RELEASE_REFUSED, &["GET /issues"]].concat();
    gave_way(&desk, &out, &waits_for_the_issue);
    insta::assert_snapshot!(desk.printed(&out));
}

/// QA on issue 16, defect 3: after a lost race the run opens the tracking issue, then a
/// follow-up fails: (a) the re-read of the issues answers 500, (b) a lower-numbered issue
/// appeared and the duplicate's comment is refused. The run fails, yet reports the issue
/// that exists (its own; the lowest in (b)) and that it wrote.
#[tokio::test]
async fn a_step_failing_after_the_issue_was_opened_still_reports_the_issue() {
    let desk = release_without_issue(Desk::example().await).await;
    desk.github.lag_release_listing(1);
    desk.github
        .fault_after_next_issue_post(Fault::on("GET", "/issues", 500, 4));
    let out = desk.step(one_wait(&desk)).await;
    assert_eq!(out.out.code, 1, "{}", out.out.stdout);
    reports_the_one_open_issue(&desk, &out, None);
    insta::assert_snapshot!(
        "reread_after_opening_fails",
        desk.image.scrub(&transcript(&out.out, &desk.github).await)
    );

    let desk = release_without_issue(Desk::new("close-duplicate-fails").await).await;
    desk.github.lag_release_listing(1);
    other_runs_issue_first(&desk);
    desk.github.forbid("POST", "/comments");
    let out = desk.step(one_wait(&desk)).await;
    assert_eq!(out.out.code, 1, "{}", out.out.stdout);
    assert_eq!(
        out.write_calls(),
        [
            "POST /releases",
            "POST /issues",
            "POST /issues/1003/comments"
        ]
    );
    assert_eq!(
        desk.open_issues().len(),
        2,
        "closing by hand is left to a human"
    );
    assert_eq!(
        out.output("issue-url"),
        format!("{SERVER_URL}/{OWNER}/{REPO}/issues/1002")
    );
    assert_eq!(out.output("changed"), "true");
    insta::assert_snapshot!("closing_the_duplicate_fails", desk.printed(&out));
}

/// QA on issue 16, defect 5: the issue POST takes effect but answers after the timeout, and
/// the look-up after it misses the issue (the listing lags), so the issue is opened once
/// more. The run then reads again, keeps the lower number and closes its second issue.
#[tokio::test]
async fn an_issue_opened_twice_after_a_timeout_keeps_the_lower_number() {
    let desk = Desk::new("timeout-then-lag").await;
    desk.github.fault(
        Fault::on("POST", "/issues", 502, 1)
            .applied()
            .hanging_if(true),
    );
    desk.github.lag_issue_listing(2);
    let out = desk.announce(&["security"]).await.ok();
    let posts_twice = [
        "GET /releases",
        "GET /issues",
        "POST /releases",
        "POST /issues",
        "GET /issues",
    ];
    gave_way(&desk, &out, &posts_twice);
    // Issue 27: #1002 is this run's own (its first POST took effect, the answer was lost):
    // not "opened by another run", and reported as created, not unchanged.
    let printed = desk.printed(&out);
    assert!(!printed.contains("another run"), "{printed}");
    assert!(printed.contains("tracking issue created"), "{printed}");
    insta::assert_snapshot!(printed);
}

/// The same race with the interleaving made certain: both runs list before either creates,
/// and the loser's POST comes after the winner has finished.
#[tokio::test]
async fn a_run_that_loses_the_release_race_writes_nothing_more_and_reports_the_winners_objects() {
    let desk = Desk::new("race-staged").await;
    desk.github.race_first_lists();
    let winner = desk.announce(&["security"]).await.ok();
    let loser = desk.step(second_run(desk.run(&["security"]))).await.ok();
    assert_eq!(
        loser.calls,
        [&LOOK_UP[..], &RELEASE_REFUSED].concat(),
        "refused on the tag, it looks the release and the issue up again, and writes nothing"
    );
    assert_eq!(loser.output("changed"), "false");
    assert_eq!(loser.output("release-url"), winner.output("release-url"));
    assert_eq!(loser.output("issue-url"), winner.output("issue-url"));
    insta::assert_snapshot!(desk.printed(&loser));
    assert_eq!(desk.our_releases(), 1);
    assert_eq!(desk.open_issues().len(), 1);
}

/// GitHub's tag check is not atomic: two creates can both succeed. Both runs then believe
/// they won; the next run finds the duplicates and keeps the lowest id and number.
#[tokio::test]
async fn duplicates_that_got_through_are_settled_by_the_next_run_keeping_the_lowest_id() {
    let desk = Desk::new("race-duplicates").await;
    let (winner, loser) = duplicate_issues(&desk).await;
    let ids = desk.ids("release");
    assert_eq!(ids.len(), 2, "both creates got through");

    let next = desk.announce(&["security"]).await.ok();
    assert_eq!(
        next.write_calls(),
        [
            format!("DELETE /releases/{}", ids[1]),
            format!("POST /issues/{loser}/comments"),
            format!("PATCH /issues/{loser}"),
        ]
    );
    assert_eq!(desk.ids("release"), [ids[0]], "the lowest id wins");
    assert_eq!(desk.states(&[winner, loser]), ["open", "closed"]);
    // Which racing run opened its issue first varies: the winner's number is named.
    let comment = desk.closing_comment(loser, winner, "winner");
    insta::assert_snapshot!("duplicate_issue_closing_comment", comment);
    assert!(desk.github.comments(winner).is_empty());
    assert_eq!(next.output("issue-url"), desk.issue_url(winner));

    assert!(desk.announce(&["security"]).await.ok().writes.is_empty());
}

/// Two duplicate tracking issues left by concurrent runs, lowest number first.
async fn duplicate_issues(desk: &Desk) -> (u64, u64) {
    desk.github.race_first_lists();
    desk.github.allow_duplicate_tags();
    desk.two_runs_together().await;
    let numbers = desk.ids("tracking-issue");
    assert_eq!(numbers.len(), 2);
    (numbers[0], numbers[1])
}

/// A responder ticks a box of issue `n`.
fn tick(desk: &Desk, n: u64) {
    desk.github.edit_issue(n, |i| {
        let body = i["body"].as_str().unwrap().replacen("- [ ]", "- [x]", 1);
        i["body"] = json!(body);
    });
}

/// Issue 27 item 7: the duplicate responders work in is never the one closed. With activity
/// (a ticked box, a comment by someone else) on the higher number only, the empty lower one
/// is closed and the active one reported; with activity on both, neither is closed, with a
/// warning saying so.
#[tokio::test]
async fn a_duplicate_tracking_issue_with_responders_activity_is_never_closed() {
    let desk = Desk::new("dup-active").await;
    let (lower, higher) = duplicate_issues(&desk).await;
    tick(&desk, higher);
    let next = desk.announce(&["security"]).await.ok();
    let states = desk.states(&[lower, higher]);
    assert_eq!(
        states,
        ["closed", "open"],
        "the issue with a ticked box stays"
    );
    assert_eq!(next.output("issue-url"), desk.issue_url(higher));
    // Its closing comment says why the higher number was kept (not "opened first").
    insta::assert_snapshot!(
        "duplicate_issue_closing_comment_when_responders_work_in_the_other",
        desk.closing_comment(lower, higher, "kept")
    );

    let desk = Desk::new("dup-both-active").await;
    let (lower, higher) = duplicate_issues(&desk).await;
    tick(&desk, lower);
    let said = "Stopped the servers of group A.";
    desk.github.add_comment_by(higher, said, Some("responder"));
    let next = desk.announce(&["security"]).await.ok();
    assert_eq!(desk.states(&[lower, higher]), ["open", "open"]);
    let closes = next
        .write_calls()
        .into_iter()
        .filter(|c| c.starts_with("PATCH /issues/"));
    assert_eq!(closes.count(), 0, "{:?}", next.write_calls());
    let warning = (next.out.stdout.lines())
        .find(|l| l.starts_with("::warning") && l.contains(&format!("#{lower}")))
        .unwrap_or_default();
    assert!(
        warning.contains(&format!("#{higher}")),
        "{}",
        next.out.stdout
    );
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
    let desk = Desk { github, image: new };
    let comments_route = format!("/issues/{open_old}/comments");
    // A supersede comment that fails twice: the first run fails after creating the release.
    desk.github.fault(Fault::on("POST", "/comments", 502, 2));
    let failed = desk.announce(&["routine"]).await;
    assert_eq!(failed.out.code, 1, "{}", failed.out.stdout);
    assert_eq!(
        failed.calls.join(", "),
        format!(
            "GET /releases, GET /issues, POST /releases, POST {comments_route}, GET {comments_route}, POST {comments_route}"
        ),
        "the run that created the release comments without reading first"
    );

    // The re-run finds the release, and the comment missing.
    assert_eq!(
        desk.announce(&["routine"]).await.ok().calls.join(", "),
        format!("GET /releases, GET /issues, GET {comments_route}, POST {comments_route}")
    );
    assert!(desk.announce(&["routine"]).await.ok().writes.is_empty());

    let comments = desk.github.comments(open_old);
    let ours: Vec<_> = ours(&comments, &desk.image.marker("superseded"));
    assert_eq!(ours.len(), 1, "{comments:#?}");
    insta::assert_snapshot!(desk.image.scrub(ours[0]["body"].as_str().unwrap()));
    assert!(desk.github.comments(closed_old).is_empty());
    assert_eq!(
        desk.github
            .issues()
            .iter()
            .find(|i| number(i) == open_old)
            .unwrap()["state"],
        json!("open"),
        "closing is left to the humans"
    );
}

/// An older tracking issue opened by another account than the token's (an App's token then,
/// `github.token` now): GitHub answers the superseded comment as the token's account, which
/// later runs would never count as ours, so each would post one more. It is deleted again
/// with a warning, and the release goes on (an older issue's courtesy comment must not fail
/// a release); a re-run does the same and never leaves a comment.
#[tokio::test]
async fn a_superseded_comment_posted_as_another_account_is_deleted_with_a_warning_each_run() {
    let desk = Desk::new("superseded-by-app-new").await;
    let old = image("superseded-by-app-old");
    let marker = old.tracking_marker(&desk.image.reference);
    let labels = ["security", "break-glass"];
    let body = format!("{marker}\nOld runbook.");
    let opened = desk
        .github
        .add_issue("Security release (old)", &body, &labels, "open");
    (desk.github).edit_issue(opened, |i| i["user"]["login"] = json!("octo-app[bot]"));
    let comments = format!("POST /issues/{opened}/comments");
    let first = desk.announce(&["routine"]).await.ok();
    let rerun = desk.announce(&["routine"]).await.ok();
    let write_calls = [first.write_calls(), rerun.write_calls()];
    assert_eq!(
        write_calls,
        [
            vec![
                "POST /releases".into(),
                comments.clone(),
                "DELETE /issues/comments/1003".into()
            ],
            vec![comments, "DELETE /issues/comments/1004".into()],
        ],
    );
    assert!(desk.github.comments(opened).is_empty());
    assert_eq!(first.output("changed"), "true");
    insta::assert_snapshot!(desk.printed(&first));
}

#[tokio::test]
async fn oversize_bodies_are_truncated_with_a_note_before_sending() {
    use codeq_rollout::Digest;
    use codeq_rollout::GitHub;
    use codeq_rollout::Repository;
    use codeq_rollout::{
        IssuePlan, MarkerKind, Plan, Target, look_up, marker, publish, release_tag,
    };
    use codeq_rollout::{NewIssue, NewRelease};

    let github = FakeGitHub::start().await;
    let gh = GitHub::new(
        &github.api_url(),
        &TOKEN.into(),
        Repository::parse(&format!("{OWNER}/{REPO}")).unwrap(),
    )
    .unwrap();
    let digest = Digest::parse(&format!("sha256:{}", "ab".repeat(32))).unwrap();
    let target = Target {
        digest: digest.clone(),
        tag: release_tag("lab", &digest),
        tracking_labels: vec!["security".into()],
        tracking_issue: true,
        image: "ghcr.io/org/lab".into(),
    };
    let found = look_up(&gh, &target, true).await.unwrap();
    let long = |kind, n| format!("{}\n{}", marker(kind, &digest), "x".repeat(n));
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
        issue_waits: Vec::new(),
    };
    publish(&gh, &found, &plan)
        .await
        .map_err(|unfinished| unfinished.error)
        .unwrap();

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
    let lab = Desk::new("cross-lab").await;
    lab.announce(&["security"]).await.ok();
    let lab_issue = number(&lab.open_issues()[0]);
    let labels = ["security", "break-glass"];
    // Issues opened before the image was recorded in the marker: one whose Image row names
    // another image, one without that row (counted as the same image, see find::same_image).
    let legacy = |variant, row: &str| {
        let old = image(variant);
        lab.github.add_issue(
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

    let gpu = Desk {
        github: lab.github,
        image: image_named("gpu", "cross-gpu"),
    };
    gpu.announce(&["security"]).await.ok();
    assert!(
        gpu.github.comments(lab_issue).is_empty(),
        "lab's tracking issue is not superseded by gpu: {:#?}",
        gpu.github.comments(lab_issue)
    );
    assert!(gpu.github.comments(legacy_other).is_empty());
    let bare = gpu.github.comments(legacy_bare);
    assert_eq!(
        ours(&bare, &gpu.image.marker("superseded")).len(),
        1,
        "{bare:#?}"
    );
    let opened = &gpu.open_issues()[0];
    assert!(
        opened["body"]
            .as_str()
            .unwrap()
            .starts_with(&gpu.image.marker("tracking-issue")),
        "the marker names the image repository"
    );
}

#[tokio::test]
async fn a_human_release_with_a_copied_marker_is_not_ours() {
    let desk = Desk::new("copied-marker").await;
    let copied = format!(
        "{}\nCopied from the bot's note, with our own words.",
        desk.image.marker("release")
    );
    let human = desk.github.add_release("lab-notes-2026", &copied, SHA);

    let out = desk.announce(&["routine"]).await.ok();
    assert_eq!(
        out.write_calls(),
        ["POST /releases"],
        "the human release is never written to"
    );
    assert_eq!(out.writes[0].2["tag_name"], json!(desk.image.tag()));
    let kept = desk.github.releases();
    let kept = kept.iter().find(|r| r["id"] == json!(human)).unwrap();
    assert_eq!(kept["body"], json!(copied));
}

#[tokio::test]
async fn a_release_note_a_human_edited_is_never_overwritten() {
    let desk = Desk::new("human-edit").await;
    let (id, body) = desk.first_release(&["security"]).await;
    let edited =
        format!("{body}\n### Known issue\nGPU kernels crash on start; use the CPU profile.\n");
    desk.github.edit_release(id, |r| r["body"] = json!(edited));

    let out = desk.announce(&["security"]).await.ok();
    assert_eq!(out.output("changed"), "false");
    assert!(out.writes.is_empty());
    assert_eq!(desk.github.releases()[0]["body"], json!(edited));
    insta::assert_snapshot!(desk.printed(&out));
}

#[tokio::test]
async fn duplicate_tracking_labels_and_assignees_are_sent_once() {
    let desk = Desk::new("dedupe").await;
    let run = desk
        .run(&["security"])
        .input("tracking-labels", " Security ,\n,break-glass,security ")
        .input("tracking-assignees", "alice, Alice,bob,ALICE");
    let out = desk.step(run).await.ok();
    let (_, _, issue) = out
        .writes
        .iter()
        .find(|(m, p, _)| m == "POST" && p.ends_with("/issues"))
        .unwrap();
    assert_eq!(issue["labels"], json!(["Security", "break-glass"]));
    assert_eq!(issue["assignees"], json!(["alice", "bob"]));
}
