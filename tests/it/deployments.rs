//! Deployments (the `environment` input) against the fake GitHub answering GitHub's own
//! deployment and deployment-status examples (`tests/fixtures/github-rest/`), with a wiremock
//! hub: request bodies and counts asserted.

use crate::common::*;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

const ENV: &str = "jupyterhub-prod";
const HUB_TOKEN: &str = "deployments-hub-token-0123456789abcdef";
const IMAGE: &str = "oci:examples/lab";

/// `announce` of the example layout with `environment`, after PR #2 merged as routine.
pub fn announce(github: &FakeGitHub) -> ActionRun {
    ActionRun::merged_pr(IMAGE, &github.api_url(), &["routine"])
        .input("environment", ENV)
        .input("hub-url", "https://hub.example.org/lab")
}

/// A hub listing one server of alice, started at `started` and last active at `active`.
pub async fn hub(started: &str, active: &str) -> MockServer {
    hub_of(&[(started, active)]).await
}

/// A hub listing one server per `(started, last active)`, of users user0, user1, ….
pub async fn hub_of(servers: &[(&str, &str)]) -> MockServer {
    let hub = MockServer::start().await;
    let items: Vec<Value> = servers
        .iter()
        .enumerate()
        .map(|(i, (started, active))| {
            let server = json!({
                "name": "", "started": started, "last_activity": active,
                "pending": null, "ready": true,
            });
            json!({"kind": "user", "name": format!("user{i}"), "servers": {"": server}})
        })
        .collect();
    Mock::given(method("GET"))
        .and(path("/hub/api/users"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "items": items,
            "_pagination": {"offset": 0, "limit": 200, "total": servers.len(), "next": null},
        })))
        .mount(&hub)
        .await;
    hub
}

/// `status --environment` against `hub` and `github` at `now`; (exit code, stdout, outputs).
pub fn status(
    github: &FakeGitHub,
    hub: &MockServer,
    now: &str,
) -> (i32, String, BTreeMap<String, String>) {
    status_with(github, hub, now, &[])
}

/// [`status`] with `extra` arguments.
pub fn status_with(
    github: &FakeGitHub,
    hub: &MockServer,
    now: &str,
    extra: &[&str],
) -> (i32, String, BTreeMap<String, String>) {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("output");
    let env: BTreeMap<String, String> = [
        ("GITHUB_ACTIONS", "true"),
        ("GITHUB_REPOSITORY", &format!("{OWNER}/{REPO}")),
        ("GITHUB_API_URL", &github.api_url()),
        ("GITHUB_SERVER_URL", SERVER_URL),
        ("GITHUB_OUTPUT", &output.display().to_string()),
        ("INPUT_GITHUB-TOKEN", TOKEN),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let args = [
        "status",
        "--hub-url",
        &hub.uri(),
        "--hub-token",
        HUB_TOKEN,
        "--image",
        IMAGE,
        "--environment",
        ENV,
        "--now",
        now,
    ];
    let args: Vec<&str> = args.iter().chain(extra).copied().collect();
    let (code, stdout, stderr) = run_codeq(&args, &env);
    let outputs = parse_outputs(&std::fs::read_to_string(&output).unwrap_or_default());
    (code, format!("{stdout}{stderr}"), outputs)
}

/// The writes after request `from`, as `METHOD /route` with the body.
async fn writes_since(github: &FakeGitHub, from: usize) -> Vec<(String, Value)> {
    let calls = github.calls_since(from).await;
    let requests = github.requests().await;
    calls
        .into_iter()
        .zip(requests[from..].iter())
        .filter(|(c, _)| !c.starts_with("GET"))
        .map(|(c, (_, _, body))| (c, body.clone()))
        .collect()
}

fn states(github: &FakeGitHub, id: u64) -> Vec<String> {
    github
        .deployment_statuses(id)
        .iter()
        .map(|s| {
            format!(
                "{}: {}",
                s["state"].as_str().unwrap(),
                s["description"].as_str().unwrap()
            )
        })
        .collect()
}

#[tokio::test]
async fn announce_creates_one_deployment_and_one_status_and_a_rerun_writes_nothing() {
    let github = FakeGitHub::start().await;
    let out = announce(&github).run().await;
    out.assert_success();
    let calls = github.calls_since(0).await;
    let id = github.deployments()[0]["id"].as_u64().unwrap();
    assert_eq!(
        calls,
        [
            "GET /releases".to_string(),
            "GET /issues".into(),
            "POST /releases".into(),
            "POST /deployments".into(),
            format!("POST /deployments/{id}/statuses"),
        ]
    );
    let writes = writes_since(&github, 0).await;
    let digest = out.output("digest").to_string();
    let deployment = &writes[1].1;
    assert_eq!(deployment["ref"], json!(SHA_MERGE));
    assert_eq!(deployment["environment"], json!(ENV));
    assert_eq!(deployment["required_contexts"], json!([]));
    assert_eq!(deployment["auto_merge"], json!(false));
    assert_eq!(deployment["production_environment"], json!(true));
    assert_eq!(deployment["payload"]["created-by"], json!("codeq-rollout"));
    assert_eq!(deployment["payload"]["digest"], json!(digest));
    assert_eq!(deployment["payload"]["tier"], json!("routine"));
    assert!(deployment["description"].as_str().unwrap().chars().count() <= 140);
    let status = &writes[2].1;
    assert_eq!(status["state"], json!("in_progress"));
    assert_eq!(
        status["environment_url"],
        json!("https://hub.example.org/lab")
    );
    assert_eq!(status["log_url"], json!(out.output("release-url")));
    assert_eq!(out.output("deployment-id"), id.to_string());
    assert!(
        out.output("deployment-url")
            .ends_with(&format!("/deployments/{id}"))
    );

    let from = github.requests().await.len();
    let again = announce(&github).run().await;
    again.assert_success();
    assert_eq!(
        github.calls_since(from).await,
        ["GET /releases", "GET /issues", "GET /deployments"]
    );
    assert_eq!(again.output("deployment-id"), id.to_string());
    assert_eq!(again.output("changed"), "false");
    assert_eq!(github.deployments().len(), 1);
}

/// The merge commit of [`pull_request_merged`]'s example PR, which the release targets.
const SHA_MERGE: &str = SHA;

#[tokio::test]
async fn a_humans_deployment_of_the_same_commit_is_never_touched() {
    let github = FakeGitHub::start().await;
    let human = github.add_deployment(SHA_MERGE, ENV, json!({}));
    github.add_deployment_status(human, "success", "Deployed by hand");
    announce(&github).run().await.assert_success();
    let ids: Vec<u64> = github
        .deployments()
        .iter()
        .map(|d| d["id"].as_u64().unwrap())
        .collect();
    assert_eq!(ids.len(), 2);
    assert_eq!(states(&github, human), ["success: Deployed by hand"]);
    assert!(
        !github
            .writes()
            .await
            .iter()
            .any(|(_, p, _)| p.contains(&format!("/deployments/{human}"))),
        "{:#?}",
        github.writes().await
    );
}

#[tokio::test]
async fn status_posts_one_status_per_change_success_at_convergence_and_the_previous_inactive_once()
{
    let github = FakeGitHub::start().await;
    let previous = github.add_deployment(
        "0000000000000000000000000000000000000000",
        ENV,
        json!({"created-by": "codeq-rollout", "digest": format!("sha256:{}", "0".repeat(64))}),
    );
    github.add_deployment_status(previous, "success", "Converged: 3/3 on the new image");
    announce(&github).run().await.assert_success();
    let ours = github.deployments()[1]["id"].as_u64().unwrap();

    // Stale and idle since 11:50: in progress, the deadline named.
    let stale = hub("2026-11-30T09:00:00Z", "2026-11-30T11:50:00Z").await;
    let from = github.requests().await.len();
    let (code, log, outputs) = status(&github, &stale, "2026-11-30T12:30:00Z");
    assert_eq!(code, 0, "{log}");
    assert_eq!(outputs["deployment-id"], ours.to_string());
    let writes = writes_since(&github, from).await;
    assert_eq!(writes.len(), 1, "{writes:#?}");
    assert_eq!(writes[0].0, format!("POST /deployments/{ours}/statuses"));
    assert_eq!(writes[0].1["state"], json!("in_progress"));
    assert_eq!(writes[0].1["environment_url"], json!(stale.uri()));

    // The same hub again: three reads, no write.
    let from = github.requests().await.len();
    let (code, log, _) = status(&github, &stale, "2026-11-30T12:31:00Z");
    assert_eq!(code, 0, "{log}");
    assert_eq!(
        github.calls_since(from).await,
        [
            "GET /releases".to_string(),
            "GET /deployments".into(),
            format!("GET /deployments/{ours}/statuses"),
        ]
    );

    // Used since: active, its deadline if it goes idle named (no maximum age: never
    // passively while in use).
    let active = hub("2026-11-30T09:00:00Z", "2026-11-30T12:34:00Z").await;
    let (code, log, _) = status(&github, &active, "2026-11-30T12:35:00Z");
    assert_eq!(code, 0, "{log}");

    // Converged: the previous release's deployment inactive, then success.
    let updated = hub("2026-11-30T12:20:00Z", "2026-11-30T12:25:00Z").await;
    let from = github.requests().await.len();
    let (code, log, _) = status(&github, &updated, "2026-11-30T12:40:00Z");
    assert_eq!(code, 0, "{log}");
    let posted: Vec<String> = writes_since(&github, from)
        .await
        .into_iter()
        .map(|(c, b)| format!("{c} {}", b["state"]))
        .collect();
    assert_eq!(
        posted,
        [
            format!("POST /deployments/{previous}/statuses \"inactive\""),
            format!("POST /deployments/{ours}/statuses \"success\""),
        ]
    );
    let (code, log, _) = status(&github, &updated, "2026-11-30T12:50:00Z");
    assert_eq!(code, 0, "{log}");
    assert_eq!(
        states(&github, ours)[1..],
        [
            "in_progress: 0/1 on the new image; idle ones by 13:00 UTC".to_string(),
            "in_progress: 0/1 on the new image; active ones by 13:44 UTC if idle".into(),
            "success: Converged (inferred from start times): every server started after the release".into(),
        ]
    );
    assert_eq!(states(&github, previous).len(), 2, "inactive once");
}

#[tokio::test]
async fn reaching_success_makes_every_earlier_release_of_ours_inactive_and_a_humans_untouched() {
    let github = FakeGitHub::start().await;
    let release = |c: char| json!({"created-by": "codeq-rollout", "digest": format!("sha256:{}", c.to_string().repeat(64))});
    let (a, b, c) = (
        github.add_deployment(&"0".repeat(40), ENV, release('0')),
        github.add_deployment(&"1".repeat(40), ENV, release('1')),
        github.add_deployment(&"2".repeat(40), ENV, release('2')),
    );
    github.add_deployment_status(a, "success", "Converged: no server runs the old image");
    github.add_deployment_status(b, "inactive", "Superseded by deployment 2");
    github.add_deployment_status(c, "in_progress", "0/1 on the new image");
    let human = github.add_deployment(SHA_MERGE, ENV, json!({}));
    github.add_deployment_status(human, "success", "Deployed by hand");
    announce(&github).run().await.assert_success();
    let ours = github.deployments().last().unwrap()["id"].as_u64().unwrap();

    let updated = hub("2026-11-30T12:20:00Z", "2026-11-30T12:25:00Z").await;
    let from = github.requests().await.len();
    let (code, log, _) = status(&github, &updated, "2026-11-30T12:40:00Z");
    assert_eq!(code, 0, "{log}");
    let posted: Vec<String> = writes_since(&github, from)
        .await
        .into_iter()
        .map(|(c, b)| format!("{c} {} {}", b["state"], b["description"]))
        .collect();
    assert_eq!(
        posted,
        [
            format!(
                "POST /deployments/{a}/statuses \"inactive\" \"Superseded by deployment {ours}\""
            ),
            format!(
                "POST /deployments/{c}/statuses \"inactive\" \"Superseded by deployment {ours}\""
            ),
            format!(
                "POST /deployments/{ours}/statuses \"success\" \"Converged (inferred from start times): every server started after the release\""
            ),
        ]
    );
    assert_eq!(states(&github, human), ["success: Deployed by hand"]);
    assert_eq!(states(&github, b).len(), 1);

    // Converged still: nothing written, to anyone.
    let from = github.requests().await.len();
    let (code, log, _) = status(&github, &updated, "2026-11-30T12:50:00Z");
    assert_eq!(code, 0, "{log}");
    assert!(writes_since(&github, from).await.is_empty());
    assert!(
        !github
            .writes()
            .await
            .iter()
            .any(|(_, p, _)| p.contains(&format!("/deployments/{human}"))),
        "{:#?}",
        github.writes().await
    );
}

#[tokio::test]
async fn a_security_releases_log_url_stays_its_tracking_issue() {
    let github = FakeGitHub::start().await;
    let out = ActionRun::merged_pr(IMAGE, &github.api_url(), &["security"])
        .input("environment", ENV)
        .run()
        .await;
    out.assert_success();
    let issue = github.issues()[0]["html_url"].as_str().unwrap().to_string();
    let ours = github.deployments()[0]["id"].as_u64().unwrap();
    let log_urls = |github: &FakeGitHub| -> Vec<Value> {
        github
            .deployment_statuses(ours)
            .iter()
            .map(|s| s["log_url"].clone())
            .collect()
    };
    assert_eq!(log_urls(&github), [json!(issue)]);
    // Without comment (the tracking issue not looked up), then with it.
    let stale = hub("2026-11-30T09:00:00Z", "2026-11-30T11:50:00Z").await;
    let (code, log, _) = status(&github, &stale, "2026-11-30T12:30:00Z");
    assert_eq!(code, 0, "{log}");
    let updated = hub("2026-11-30T12:20:00Z", "2026-11-30T12:25:00Z").await;
    let (code, log, _) = status_with(&github, &updated, "2026-11-30T12:40:00Z", &["--comment"]);
    assert_eq!(code, 0, "{log}");
    assert_eq!(
        log_urls(&github),
        [json!(issue), json!(issue), json!(issue)]
    );
}

/// A kubeconfig whose API server is `server`, with a ServiceAccount-style token user.
fn kubeconfig_at(server: &str) -> String {
    format!(
        "apiVersion: v1
kind: Config
clusters:
  - name: hub
    cluster: {{server: \"{server}\"}}
users:
  - name: reader
    user: {{token: kube-reader-token-0123456789}}
contexts:
  - name: hub
    context: {{cluster: hub, user: reader, namespace: jhub}}
current-context: hub
"
    )
}

#[tokio::test]
async fn a_kubernetes_fault_writes_nothing_to_github() {
    // A security release with a deployment and a tracking issue; then `status` asked to
    // comment and to update the deployment, by digest, while the API server is unreachable.
    let github = FakeGitHub::start().await;
    ActionRun::merged_pr(IMAGE, &github.api_url(), &["security"])
        .input("environment", ENV)
        .run()
        .await
        .assert_success();
    let ours = github.deployments()[0]["id"].as_u64().unwrap();
    let before = states(&github, ours);
    let updated = hub("2026-11-30T12:20:00Z", "2026-11-30T12:25:00Z").await;
    let from = github.requests().await.len();
    let server = format!("https://127.0.0.1:{}", crate::common::registry::free_port());
    let (code, log, outputs) = status_with(
        &github,
        &updated,
        "2026-11-30T12:40:00Z",
        &["--comment", "--kubeconfig", &kubeconfig_at(&server)],
    );
    assert_eq!(code, 1, "{log}");
    assert!(
        log.contains("cannot read pods from the Kubernetes API server"),
        "{log}"
    );
    // No comment, no deployment status; every output declared and blank, none claiming
    // convergence.
    assert_eq!(writes_since(&github, from).await, []);
    assert_eq!(states(&github, ours), before);
    assert_eq!(outputs.get("converged").map(String::as_str), Some(""));
    assert!(outputs.values().all(String::is_empty), "{outputs:?}");
}

#[tokio::test]
async fn an_overdue_server_sets_failure() {
    let github = FakeGitHub::start().await;
    announce(&github).run().await.assert_success();
    let ours = github.deployments()[0]["id"].as_u64().unwrap();
    let stale = hub("2026-11-30T09:00:00Z", "2026-11-30T11:50:00Z").await;
    let (code, log, _) = status(&github, &stale, "2026-11-30T20:00:00Z");
    assert_eq!(code, 0, "{log}");
    assert_eq!(
        states(&github, ours).last().unwrap(),
        "failure: a server runs past the promised deadline"
    );
}

#[tokio::test]
async fn success_and_failure_are_posted_once_whatever_the_counts() {
    // Each status is a `deployment_status` event: more servers, converged or overdue, post
    // no new one.
    for (one, two, now, says) in [
        (
            ("2026-11-30T12:20:00Z", "2026-11-30T12:25:00Z"),
            ("2026-11-30T12:21:00Z", "2026-11-30T12:26:00Z"),
            "2026-11-30T12:40:00Z",
            "success: Converged (inferred from start times): every server started after the release",
        ),
        (
            ("2026-11-30T09:00:00Z", "2026-11-30T11:50:00Z"),
            ("2026-11-30T09:10:00Z", "2026-11-30T11:40:00Z"),
            "2026-11-30T20:00:00Z",
            "failure: a server runs past the promised deadline",
        ),
    ] {
        let github = FakeGitHub::start().await;
        announce(&github).run().await.assert_success();
        let ours = github.deployments()[0]["id"].as_u64().unwrap();
        let (code, log, _) = status(&github, &hub_of(&[one]).await, now);
        assert_eq!(code, 0, "{log}");
        let from = github.requests().await.len();
        let (code, log, _) = status(&github, &hub_of(&[one, two]).await, now);
        assert_eq!(code, 0, "{log}");
        assert!(writes_since(&github, from).await.is_empty(), "{log}");
        assert_eq!(states(&github, ours)[1..], [says.to_string()]);
    }
}

#[tokio::test]
async fn status_creates_the_deployment_announce_did_not() {
    let github = FakeGitHub::start().await;
    ActionRun::merged_pr(IMAGE, &github.api_url(), &["routine"])
        .run()
        .await
        .assert_success();
    assert!(github.deployments().is_empty());
    let stale = hub("2026-11-30T09:00:00Z", "2026-11-30T11:50:00Z").await;
    let from = github.requests().await.len();
    let (code, log, _) = status(&github, &stale, "2026-11-30T12:30:00Z");
    assert_eq!(code, 0, "{log}");
    let ours = github.deployments()[0]["id"].as_u64().unwrap();
    assert_eq!(
        github.calls_since(from).await,
        [
            "GET /releases".to_string(),
            "GET /deployments".into(),
            "POST /deployments".into(),
            "GET /deployments".into(),
            format!("POST /deployments/{ours}/statuses"),
        ]
    );
    assert_eq!(github.deployments()[0]["sha"], json!(SHA_MERGE));
}

#[tokio::test]
async fn status_without_a_commit_in_the_release_note_says_what_status_users_can_do() {
    let github = FakeGitHub::start().await;
    ActionRun::merged_pr(IMAGE, &github.api_url(), &["routine"])
        .run()
        .await
        .assert_success();
    let note = github.releases()[0]["id"].as_u64().unwrap();
    github.edit_release(note, |r| r["target_commitish"] = json!(""));
    let stale = hub("2026-11-30T09:00:00Z", "2026-11-30T11:50:00Z").await;
    let from = github.requests().await.len();
    let (code, log, _) = status(&github, &stale, "2026-11-30T12:30:00Z");
    assert_eq!(code, 1, "{log}");
    assert!(
        log.contains("names none; status deploys the commit the release note targets (target_commitish): edit the release on GitHub to target the release's commit, or leave environment unset"),
        "{log}"
    );
    assert!(!log.contains("--sha"), "{log}");
    assert!(writes_since(&github, from).await.is_empty());
}

#[tokio::test]
async fn two_runs_creating_at_once_leave_one_deployment() {
    let github = FakeGitHub::start().await;
    ActionRun::merged_pr(IMAGE, &github.api_url(), &["routine"])
        .run()
        .await
        .assert_success();
    // Two re-runs with environment that both list before either creates.
    github.race_first_lists();
    let run_a = announce(&github).var("INPUT_GITHUB-TOKEN", "ghs_RunA0123456789abcdef");
    let run_b = announce(&github).var("INPUT_GITHUB-TOKEN", "ghs_RunB0123456789abcdef");
    let (a, b) = tokio::join!(run_a.run(), run_b.run());
    a.assert_success();
    b.assert_success();
    let left = github.deployments();
    assert_eq!(left.len(), 1, "{left:#?}");
    let writes = github.writes().await;
    // Both runs may find both and remove the same one (a DELETE of a deleted deployment is
    // done already): one distinct deployment removed.
    let removed: std::collections::BTreeSet<&String> = writes
        .iter()
        .filter(|(m, p, _)| m == "DELETE" && p.contains("/deployments/"))
        .map(|(_, p, _)| p)
        .collect();
    assert_eq!(
        removed.len(),
        1,
        "each run created one, one was removed: {writes:#?}"
    );
    assert_eq!([a.output("changed"), b.output("changed")], ["true", "true"]);
    let id = left[0]["id"].as_u64().unwrap().to_string();
    assert_eq!(
        [a.output("deployment-id"), b.output("deployment-id")],
        [id.as_str(), id.as_str()]
    );
}

#[tokio::test]
async fn a_duplicate_given_a_status_between_our_inactive_and_delete_is_removed_after_a_fresh_look_up()
 {
    let github = FakeGitHub::start().await;
    announce(&github).run().await.assert_success();
    let first = github.deployments()[0].clone();
    let kept = first["id"].as_u64().unwrap();
    // What a concurrent run left: a second deployment of ours for the same digest.
    let duplicate = github.add_deployment(SHA_MERGE, ENV, first["payload"].clone());
    // Its creator posts its first status after our `inactive`, before our `DELETE`.
    github.status_before_next_delete("in_progress");
    let from = github.requests().await.len();
    let out = announce(&github).run().await;
    out.assert_success();
    assert_eq!(
        github.calls_since(from).await,
        [
            "GET /releases".to_string(),
            "GET /issues".into(),
            "GET /deployments".into(),
            format!("POST /deployments/{duplicate}/statuses"),
            format!("DELETE /deployments/{duplicate}"),
            format!("GET /deployments/{duplicate}/statuses"),
            format!("POST /deployments/{duplicate}/statuses"),
            format!("DELETE /deployments/{duplicate}"),
        ]
    );
    let left: Vec<u64> = github
        .deployments()
        .iter()
        .map(|d| d["id"].as_u64().unwrap())
        .collect();
    assert_eq!(left, [kept]);
    assert_eq!(out.output("deployment-id"), kept.to_string());
}

#[tokio::test]
async fn without_deployments_write_the_run_fails_naming_it_and_the_release_note_is_untouched() {
    let github = FakeGitHub::start().await;
    ActionRun::merged_pr(IMAGE, &github.api_url(), &["routine"])
        .run()
        .await
        .assert_success();
    let note = github.releases();
    github.forbid("GET", "/deployments");
    github.forbid("POST", "/deployments");
    let from = github.requests().await.len();
    let out = announce(&github).run().await;
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(out.stdout.contains("deployments: write"), "{}", out.stdout);
    assert!(writes_since(&github, from).await.is_empty());
    assert_eq!(github.releases(), note);
    assert!(!out.output("release-url").is_empty());
}

#[tokio::test]
async fn a_409_or_422_from_github_is_reported_with_what_to_do() {
    for (status, says) in [
        (409, "deployment protection rules"),
        (422, "deployment branches and tags"),
    ] {
        let github = FakeGitHub::start().await;
        github.fault(Fault::on("POST", "/deployments", status, 1));
        let out = announce(&github).run().await;
        assert_eq!(out.code, 1, "{}", out.stdout);
        assert!(out.stdout.contains(says), "{status}: {}", out.stdout);
        assert_eq!(github.releases().len(), 1);
    }
}

#[test]
fn githubs_listing_examples_decode_into_what_the_client_reads() {
    use codeq_rollout::{Deployment, DeploymentState, DeploymentStatus};
    let listed: Vec<Deployment> =
        serde_json::from_value(fixture("github-rest/deployment-items.json")).unwrap();
    assert_eq!(
        (listed[0].id, listed[0].environment.as_str()),
        (1, "production")
    );
    assert!(!codeq_rollout::is_ours(&listed[0], None));
    let statuses: Vec<DeploymentStatus> =
        serde_json::from_value(fixture("github-rest/deployment-status-items.json")).unwrap();
    assert_eq!(statuses[0].state, DeploymentState::Success);
}

#[tokio::test]
async fn two_first_announces_at_once_leave_one_deployment_made_by_the_release_lock() {
    let github = FakeGitHub::start().await;
    github.race_first_lists();
    let run_a = announce(&github).var("INPUT_GITHUB-TOKEN", "ghs_RunA0123456789abcdef");
    let run_b = announce(&github).var("INPUT_GITHUB-TOKEN", "ghs_RunB0123456789abcdef");
    let (a, b) = tokio::join!(run_a.run(), run_b.run());
    a.assert_success();
    b.assert_success();
    assert_eq!(github.releases().len(), 1);
    assert_eq!(github.deployments().len(), 1, "{:#?}", github.deployments());
    let posts = github
        .writes()
        .await
        .into_iter()
        .filter(|(m, p, _)| m == "POST" && p.ends_with("/deployments"))
        .count();
    assert_eq!(
        posts, 1,
        "only the run that created the release note creates the deployment"
    );
}

#[tokio::test]
async fn a_deployment_post_with_an_unknown_outcome_is_looked_up_never_sent_twice() {
    let github = FakeGitHub::start().await;
    github.fault(Fault::on("POST", "/deployments", 502, 1).applied());
    let out = announce(&github).run().await;
    out.assert_success();
    let calls = github.calls_since(0).await;
    let id = github.deployments()[0]["id"].as_u64().unwrap();
    assert_eq!(
        calls[3..],
        [
            "POST /deployments".to_string(),
            "GET /deployments".into(),
            format!("POST /deployments/{id}/statuses"),
        ]
    );
    assert_eq!(github.deployments().len(), 1);
    assert_eq!(out.output("deployment-id"), id.to_string());
}

#[tokio::test]
async fn status_in_a_dry_run_reads_and_writes_nothing() {
    let github = FakeGitHub::start().await;
    announce(&github).run().await.assert_success();
    let stale = hub("2026-11-30T09:00:00Z", "2026-11-30T11:50:00Z").await;
    let from = github.requests().await.len();
    let (code, log, _) = status_with(&github, &stale, "2026-11-30T12:30:00Z", &["--dry-run"]);
    assert_eq!(code, 0, "{log}");
    assert!(writes_since(&github, from).await.is_empty());
    assert!(log.contains("dry run: would set deployment"), "{log}");
}

#[tokio::test]
async fn a_first_run_without_deployments_write_publishes_the_release_note_then_fails_naming_it() {
    let github = FakeGitHub::start().await;
    github.forbid("POST", "/deployments");
    let out = announce(&github).run().await;
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert_eq!(github.releases().len(), 1);
    assert!(github.deployments().is_empty());
    assert!(!out.output("release-url").is_empty());
    assert_eq!(out.output("deployment-id"), "");
    for text in [&out.stdout, &out.summary] {
        assert!(text.contains("deployments: write"), "{text}");
    }
    // Given the permission, the re-run creates only the deployment and its status.
    github.state.lock().unwrap().forbidden.clear();
    let from = github.requests().await.len();
    announce(&github).run().await.assert_success();
    let writes: Vec<String> = writes_since(&github, from)
        .await
        .into_iter()
        .map(|(c, _)| c)
        .collect();
    let id = github.deployments()[0]["id"].as_u64().unwrap();
    assert_eq!(
        writes,
        [
            "POST /deployments".to_string(),
            format!("POST /deployments/{id}/statuses")
        ]
    );
}
