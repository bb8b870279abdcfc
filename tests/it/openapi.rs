//! The check of the fake GitHub against GitHub's REST API description
//! (tests/it/common/openapi.rs) can fail: bodies that break the schema are refused, in a
//! direct check and when the fake serves them.

use crate::common::openapi::description;
use crate::common::*;
use serde_json::{Value, json};

#[test]
fn a_body_that_breaks_githubs_schema_is_refused_and_one_that_keeps_it_passes() {
    let github = description();
    let path = "/repos/octo-org/lab-image/releases";
    assert_eq!(
        github.operation("POST", path).map(|(t, _)| t).as_deref(),
        Some("/repos/{owner}/{repo}/releases")
    );
    let good = br#"{"tag_name":"v1","name":"v1","body":"Notes.","target_commitish":"main"}"#;
    github.check_request("POST", path, good).unwrap();
    // A missing required field, a wrong type.
    let missing = github
        .check_request("POST", path, br#"{"name":"v1"}"#)
        .unwrap_err();
    assert!(
        missing.contains("\"tag_name\" is a required property"),
        "{missing}"
    );
    let wrong = github
        .check_request("POST", path, br#"{"tag_name":"v1","draft":"no"}"#)
        .unwrap_err();
    assert!(
        wrong.contains("\"no\" is not of type \"boolean\""),
        "{wrong}"
    );

    // Answers: the full pull request needs `merged`; `null` only where GitHub allows it.
    let pulls = "/repos/octo-org/lab-image/pulls/12";
    let mut pr = fixture("github-rest/pull-request.json");
    github
        .check_response("GET", pulls, 200, pr.to_string().as_bytes())
        .unwrap();
    pr.as_object_mut().unwrap().remove("merged");
    let unmerged = github
        .check_response("GET", pulls, 200, pr.to_string().as_bytes())
        .unwrap_err();
    assert!(
        unmerged.contains("\"merged\" is a required property"),
        "{unmerged}"
    );
    pr["merged"] = json!(false);
    pr["merged_at"] = Value::Null;
    pr["title"] = Value::Null;
    let untitled = github
        .check_response("GET", pulls, 200, pr.to_string().as_bytes())
        .unwrap_err();
    assert!(untitled.contains("at \"/title\""), "{untitled}");
    // An operation GitHub does not have; a success it never answers.
    assert!(
        github
            .check_request("GET", "/repos/o/r/nothing", b"")
            .is_err()
    );
    assert!(
        github
            .check_response("DELETE", "/repos/o/r/releases/1", 200, b"")
            .is_err()
    );
    github
        .check_response("DELETE", "/repos/o/r/releases/1", 204, b"")
        .unwrap();
}

#[tokio::test]
async fn the_fake_reports_what_breaks_githubs_description_in_requests_and_answers() {
    let github = FakeGitHub::start().await;
    // An answer that breaks the schema (no title, where GitHub always has one), a body that
    // does (a flag that is not a boolean).
    let mut pr = pull_json(2, "Tidy", &["docs"], None, "master");
    pr["title"] = Value::Null;
    github.set_pull(2, pr);
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::new();
    let repo = format!("{}/repos/{OWNER}/{REPO}", github.api_url());
    let pull = client.get(format!("{repo}/pulls/2")).send().await.unwrap();
    assert_eq!(pull.status(), 200, "served as the test set it");
    let release = client
        .post(format!("{repo}/releases"))
        .json(&json!({ "tag_name": "v1", "draft": "no" }))
        .send()
        .await
        .unwrap();
    assert_eq!(release.status(), 201);
    let violations = github.take_violations();
    assert_eq!(violations.len(), 2, "{violations:#?}");
    assert!(
        violations[0].starts_with(
            "answer 200 to GET /repos/octo-org/lab-image/pulls/2 \
             (GET /repos/{owner}/{repo}/pulls/{pull_number}): breaks GitHub's schema"
        ) && violations[0].contains("at \"/title\": null is not of type \"string\""),
        "{violations:#?}"
    );
    assert!(
        violations[1].starts_with(
            "request POST /repos/octo-org/lab-image/releases (POST /repos/{owner}/{repo}/releases): \
             breaks GitHub's schema"
        ) && violations[1].contains("\"no\" is not of type \"boolean\""),
        "{violations:#?}"
    );
}
