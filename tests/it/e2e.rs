//! The whole job, end to end: the built binary, run as the Actions runner runs it, against a
//! real registry holding a pushed multi-arch image and a fake GitHub.

use crate::common::scenario::transcript;
use crate::common::*;
use serde_json::json;

/// A real registry holding a multi-arch image as `org/lab:latest`, and a fake GitHub.
struct Job {
    registry: Registry,
    github: FakeGitHub,
    /// `127.0.0.1:PORT/org/lab:latest`.
    image: String,
    /// Its digest per `skopeo inspect --raw`.
    digest: String,
}

impl Job {
    async fn start() -> Self {
        let registry = Registry::start();
        let layout_digest = registry.push_image("e2e", None);
        let digest = registry.raw_manifest_digest("org/lab:latest", &[]);
        assert_eq!(digest, layout_digest, "skopeo preserved the index digest");
        Self {
            image: registry.reference("org/lab:latest"),
            registry,
            github: FakeGitHub::start().await,
            digest,
        }
    }

    /// The run after a merged pull request labelled `labels`, for `image`.
    fn run(&self, image: &str, labels: &[&str]) -> ActionRun {
        ActionRun::merged_pr(image, &self.github.api_url(), labels)
            .input("insecure-registry", &self.registry.addr)
    }

    /// `text` with the registry's address named, and the hashes of texts that hold it (the
    /// release note's seal, the tracking issue's evidence) written `[hash]`.
    fn scrub(&self, text: &str) -> String {
        let text = scrub(text, &[(&self.registry.addr, "[registry]")]);
        regex::Regex::new(r"(body=|evidence )[0-9a-f]{16}")
            .unwrap()
            .replace_all(&text, "${1}[hash]")
            .into_owned()
    }
}

#[tokio::test]
async fn security_pr_creates_one_release_and_one_tracking_issue() {
    let job = Job::start().await;
    let out = job
        .run(&job.image, &["security"])
        .input("tracking-assignees", "alice, bob")
        .run()
        .await;
    out.assert_success();
    assert_eq!(out.output("digest"), job.digest);
    // The outputs, the release note and the tracking issue as POSTed (in that order: the
    // release first), the summary and the log, whole.
    insta::assert_snapshot!(job.scrub(&transcript(&out, &job.github).await));

    let writes = job.github.writes().await;
    assert_eq!(writes.len(), 2, "one release, then one issue: {writes:#?}");
    let issue_body = writes[1].2["body"].as_str().unwrap();
    assert!(issue_body.starts_with(&format!(
        "<!-- codeq-rollout:tracking-issue digest={} image={} -->",
        job.digest,
        codeq_rollout::image_repository(&job.image)
    )));
    // The runner consumes `::add-mask::` lines (they are how it learns the secret); nothing
    // else may carry the token, and the mask comes before any other line.
    out.assert_secrets_masked_first(&[TOKEN]);
}

#[tokio::test]
async fn routine_pr_creates_one_release_and_no_issue() {
    let job = Job::start().await;
    let out = job.run(&job.image, &["routine"]).run().await;
    out.assert_success();
    assert_eq!(out.output("tier"), "routine");
    assert_eq!(out.output("issue-url"), "");
    let writes = job.github.writes().await;
    assert_eq!(writes.len(), 1, "{writes:#?}");
    assert_eq!(writes[0].1, format!("/repos/{OWNER}/{REPO}/releases"));
    assert!(writes[0].2["body"].as_str().unwrap().contains(&job.digest));
}

#[tokio::test]
async fn dry_run_writes_nothing_and_needs_no_token() {
    let job = Job::start().await;
    let mut run = job.run(&job.image, &["security"]).input("dry-run", "true");
    run.env.remove("INPUT_GITHUB-TOKEN");
    let out = run.run().await;
    out.assert_success();
    assert_eq!(out.output("digest"), job.digest);
    // The release note and the tracking issue it would have published, printed whole.
    insta::assert_snapshot!(job.scrub(&out.stdout));
    assert!(job.github.requests().await.is_empty());
}

#[tokio::test]
async fn a_missing_tag_fails_with_the_registrys_answer_and_touches_nothing() {
    let job = Job::start().await;
    let out = job
        .run(&job.registry.reference("org/lab:nope"), &["security"])
        .run()
        .await;
    assert_eq!(out.code, 1, "{}", out.stdout);
    let error = out.stdout.lines().find(|l| l.starts_with("::error"));
    insta::assert_snapshot!(job.scrub(error.unwrap_or_default()));
    assert!(job.github.requests().await.is_empty());
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
        stdout.starts_with(&format!("oci:examples/lab:latest resolves to {digest}\n")),
        "{stdout}"
    );
    // The release note and the break-glass runbook, whole. Outside Actions there is no
    // commit: the note has no empty Commit row.
    insta::assert_snapshot!(stdout);
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
