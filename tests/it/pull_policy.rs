//! The pull-policy preflight through the binary (issue 23): values files whose effective
//! `singleuser.image.pullPolicy` is not `Always` on an image not pinned by digest make
//! `announce` warn and its release note say that new servers may start on an older image
//! (instead of promising the new one at once); `window` and `status` repeat the warning; the
//! same run with `pullPolicy: Always` warns nothing and keeps the promise.

use crate::common::github::FakeGitHub;
use crate::common::{ActionRun, run_codeq};
use std::collections::BTreeMap;

/// A values file of a subchart deployment setting the single-user image and `policy`.
fn values(dir: &std::path::Path, policy: &str) -> String {
    let path = dir.join("values.yaml");
    std::fs::write(
        &path,
        format!(
            "jupyterhub:\n  cull:\n    timeout: 3600\n  singleuser:\n    image:\n      name: ghcr.io/octo-org/lab\n      tag: latest\n      pullPolicy: {policy}\n"
        ),
    )
    .unwrap();
    path.to_string_lossy().into_owned()
}

/// The lines of `text` that are `Pull policy` warnings (an annotation inside Actions, a
/// `warning:` line outside).
fn pull_warnings(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| {
            l.starts_with("::warning title=Pull policy::")
                || l.starts_with("warning: new servers may start")
        })
        .collect()
}

#[tokio::test]
async fn a_pull_policy_other_than_always_is_warned_and_the_release_note_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let github = FakeGitHub::start().await;
    let announce = |policy: &str| {
        ActionRun::merged_pr("oci:examples/lab", &github.api_url(), &["routine"])
            .input("dry-run", "true")
            .input("jupyterhub-values", &values(dir.path(), policy))
    };

    let out = announce("IfNotPresent").run().await;
    out.assert_success();
    let warnings = pull_warnings(&out.stdout);
    assert_eq!(warnings.len(), 1, "{}", out.stdout);
    let path = values(dir.path(), "IfNotPresent");
    let warning = warnings[0].replace(&path, "VALUES");
    let note = out
        .stdout
        .split("----- release note -----\n")
        .nth(1)
        .and_then(|rest| rest.split("### Update now").next())
        .unwrap_or_else(|| panic!("no release note in {}", out.stdout))
        .replace(&path, "VALUES");
    assert!(!note.contains("New servers start on"), "{note}");
    insta::assert_snapshot!(format!("{warning}\n\n{}", note.trim_end()));

    // Always: no warning, and the promise stands.
    let out = announce("Always").run().await;
    out.assert_success();
    assert!(pull_warnings(&out.stdout).is_empty(), "{}", out.stdout);
    assert!(
        out.stdout
            .contains("New servers start on the new image at once."),
        "{}",
        out.stdout
    );

    // `window` reads the same files and warns the same way (outside Actions, on stderr).
    let path = values(dir.path(), "IfNotPresent");
    let (code, stdout, stderr) =
        run_codeq(&["window", "--jupyterhub-values", &path], &BTreeMap::new());
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(pull_warnings(&stderr).len(), 1, "{stdout}\n{stderr}");
}

/// `status` repeats the warning before it reads the hub, naming the image given.
#[tokio::test]
async fn status_repeats_the_pull_policy_warning() {
    use wiremock::{Mock, MockServer, ResponseTemplate};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("values.yaml");
    // No policy set, a version tag: Kubernetes' default, IfNotPresent.
    std::fs::write(&path, "singleuser:\n  image:\n    tag: \"2024.11\"\n").unwrap();
    let hub = MockServer::start().await;
    Mock::given(wiremock::matchers::method("GET"))
        .and(wiremock::matchers::path("/hub/api/users"))
        .respond_with(ResponseTemplate::new(200).set_body_json(serde_json::json!({
            "items": [],
            "_pagination": {"offset": 0, "limit": 200, "total": 0, "next": null},
        })))
        .mount(&hub)
        .await;
    let hub_url = hub.uri();
    let options = [
        ("--hub-url", hub_url.as_str()),
        ("--hub-token", "status-reader-token-0123456789abcdef"),
        ("--released-at", "2026-11-30T12:00:00Z"),
        ("--now", "2026-11-30T12:30:00Z"),
        ("--image", "ghcr.io/octo-org/lab:latest"),
        ("--jupyterhub-values", path.to_str().unwrap()),
    ];
    let args: Vec<&str> = std::iter::once("status")
        .chain(options.iter().flat_map(|(option, value)| [*option, *value]))
        .collect();
    let (code, stdout, stderr) = run_codeq(&args, &BTreeMap::new());
    assert_eq!(code, 0, "{stderr}");
    let warnings = pull_warnings(&stderr);
    assert_eq!(warnings.len(), 1, "{stdout}\n{stderr}");
    insta::assert_snapshot!(warnings[0].replace(path.to_str().unwrap(), "VALUES"));
}
