//! The whole job, end to end: the built binary, run as the Actions runner runs it, against a
//! real registry holding a pushed multi-arch image and a fake GitHub.

use crate::common::*;
use serde_json::json;

/// A registry with a multi-arch image pushed as `lab:latest`; returns (registry, reference,
/// digest per `skopeo inspect --raw`).
fn registry_with_image() -> (Registry, String, String) {
    let registry = Registry::start();
    let layout_digest = registry.push_image("e2e", None);
    let digest = registry.raw_manifest_digest("org/lab:latest", &[]);
    assert_eq!(digest, layout_digest, "skopeo preserved the index digest");
    let reference = registry.reference("org/lab:latest");
    (registry, reference, digest)
}

#[tokio::test]
async fn security_pr_creates_one_release_and_one_tracking_issue() {
    let (registry, image, digest) = registry_with_image();
    let github = FakeGitHub::start().await;
    let out = ActionRun::merged_pr(&image, &github.api_url(), &["security"])
        .input("insecure-registry", &registry.addr)
        .input("tracking-assignees", "alice, bob")
        .run()
        .await;
    out.assert_success();

    assert_eq!(out.output("digest"), digest);
    assert_eq!(out.output("tier"), "security");
    assert_eq!(out.output("tier-source"), "labels");
    let short = &digest["sha256:".len()..][..12];
    assert_eq!(out.output("release-tag"), format!("lab-{short}"));
    assert_eq!(
        out.output("release-url"),
        format!("{SERVER_URL}/{OWNER}/{REPO}/releases/tag/lab-{short}")
    );
    assert!(
        out.output("issue-url")
            .starts_with(&format!("{SERVER_URL}/{OWNER}/{REPO}/issues/"))
    );
    assert_eq!(out.output("changed"), "true");
    assert_eq!(out.output("idle-window-seconds"), "4200");
    assert_eq!(out.output("active-window-seconds"), "");

    let writes = github.writes().await;
    assert_eq!(writes.len(), 2, "one release, then one issue: {writes:#?}");
    let (_, issue_path, issue) = &writes[1];
    assert_eq!(issue_path, &format!("/repos/{OWNER}/{REPO}/issues"));
    assert_eq!(issue["labels"], json!(["security", "break-glass"]));
    assert_eq!(issue["assignees"], json!(["alice", "bob"]));
    let issue_body = issue["body"].as_str().unwrap();
    assert!(issue_body.starts_with(&format!(
        "<!-- codeq-rollout:tracking-issue digest={digest} image={} -->",
        codeq_rollout::render::image_repository(&image)
    )));
    assert!(
        issue_body.contains("- [ ] **List stale servers**"),
        "{issue_body}"
    );
    assert!(issue_body.contains(&format!("DIGEST={digest}")));
    assert!(issue_body.contains("1h 10m"));
    assert!(issue["title"].as_str().unwrap().contains(short));

    let (_, release_path, release) = &writes[0];
    assert_eq!(release_path, &format!("/repos/{OWNER}/{REPO}/releases"));
    assert_eq!(release["tag_name"], json!(format!("lab-{short}")));
    assert_eq!(release["target_commitish"], json!(SHA));
    assert_eq!(release["draft"], json!(false));
    let note = release["body"].as_str().unwrap();
    assert!(note.starts_with(&format!("<!-- codeq-rollout:release digest={digest} -->")));
    assert!(
        note.contains("**security**") && note.contains("1h 10m") && note.contains("Stop My Server")
    );

    assert!(
        out.summary.contains(&digest) && out.summary.contains("security"),
        "{}",
        out.summary
    );
    // The runner consumes `::add-mask::` lines (they are how it learns the secret); nothing
    // else may carry the token, and the mask comes before any other line.
    assert!(
        out.stdout.starts_with(&format!("::add-mask::{TOKEN}\n")),
        "{}",
        out.stdout
    );
    let rest: String = out
        .stdout
        .lines()
        .filter(|l| !l.starts_with("::add-mask::"))
        .collect();
    assert!(!rest.contains(TOKEN) && !out.stderr.contains(TOKEN) && !out.summary.contains(TOKEN));
    assert!(!out.outputs_raw.contains(TOKEN));
}

#[tokio::test]
async fn routine_pr_creates_one_release_and_no_issue() {
    let (registry, image, digest) = registry_with_image();
    let github = FakeGitHub::start().await;
    let out = ActionRun::merged_pr(&image, &github.api_url(), &["routine"])
        .input("insecure-registry", &registry.addr)
        .run()
        .await;
    out.assert_success();
    assert_eq!(out.output("tier"), "routine");
    assert_eq!(out.output("issue-url"), "");
    let writes = github.writes().await;
    assert_eq!(writes.len(), 1, "{writes:#?}");
    assert_eq!(writes[0].1, format!("/repos/{OWNER}/{REPO}/releases"));
    assert!(writes[0].2["body"].as_str().unwrap().contains(&digest));
    assert!(
        github
            .writes()
            .await
            .iter()
            .all(|(_, p, _)| !p.contains("/issues"))
    );
}

#[tokio::test]
async fn dry_run_writes_nothing_and_needs_no_token() {
    let (registry, image, digest) = registry_with_image();
    let github = FakeGitHub::start().await;
    let mut run = ActionRun::merged_pr(&image, &github.api_url(), &["security"])
        .input("insecure-registry", &registry.addr)
        .input("dry-run", "true");
    run.env.remove("INPUT_GITHUB-TOKEN");
    let out = run.run().await;
    out.assert_success();
    assert_eq!(out.output("digest"), digest);
    assert!(
        out.stdout.contains("release note") && out.stdout.contains("tracking issue"),
        "{}",
        out.stdout
    );
    assert!(github.writes().await.is_empty());
}

#[tokio::test]
async fn a_missing_tag_fails_with_the_registrys_answer_and_touches_nothing() {
    let (registry, _, _) = registry_with_image();
    let github = FakeGitHub::start().await;
    let out = ActionRun::merged_pr(
        &registry.reference("org/lab:nope"),
        &github.api_url(),
        &["security"],
    )
    .input("insecure-registry", &registry.addr)
    .run()
    .await;
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(out.stdout.contains("::error"), "{}", out.stdout);
    assert!(
        out.stdout.contains("tag not found") && out.stdout.contains("MANIFEST_UNKNOWN")
            || out.stdout.contains("ManifestUnknown"),
        "{}",
        out.stdout
    );
    assert!(github.requests().await.is_empty());
}

#[test]
fn the_shipped_example_layout_resolves_offline() {
    let out = std::process::Command::new(binary())
        .args([
            "announce",
            "--image",
            "oci:examples/lab",
            "--tier",
            "security",
            "--dry-run",
            "--now",
            NOW,
        ])
        .env_clear()
        .current_dir(repo_root())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let index = std::fs::read_to_string(repo_root().join("examples/lab/index.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&index).unwrap();
    let digest = v["manifests"][0]["digest"].as_str().unwrap();
    assert!(
        stdout.contains(&format!("resolves to {digest}")),
        "{stdout}"
    );
    assert!(stdout.contains("break-glass runbook"), "{stdout}");
    // Outside Actions there is no commit: the note has no empty Commit row.
    assert!(!stdout.contains("| Commit |"), "{stdout}");
    assert!(
        stdout.contains("| Tier | **security** (security: set by the tier input) |"),
        "{stdout}"
    );
}

#[tokio::test]
async fn a_secret_in_a_pull_request_title_is_hidden_before_markdown_escaping() {
    // The token holds `_`, which Markdown escaping turns into `\_`: redacting after escaping
    // would miss it.
    let github = FakeGitHub::start().await;
    let mut event = pull_request_merged(&["security"]);
    event["pull_request"]["title"] = json!(format!("leak {TOKEN} here"));
    let out = ActionRun::new(
        "oci:examples/lab",
        &github.api_url(),
        "pull_request",
        &event,
    )
    .run()
    .await;
    out.assert_success();
    let secret_part = &TOKEN[4..];
    let writes = github.writes().await;
    assert_eq!(writes.len(), 2, "{writes:#?}");
    for (_, path, body) in &writes {
        assert!(!body.to_string().contains(secret_part), "{path}: {body}");
    }
    assert!(!out.summary.contains(secret_part), "{}", out.summary);
    let note = writes[0].2["body"].as_str().unwrap_or_default().to_string()
        + writes[1].2["body"].as_str().unwrap_or_default();
    assert!(
        note.contains("leak *** here") || note.contains("leak \\*\\*\\* here"),
        "{note}"
    );
}
