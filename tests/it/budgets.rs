//! Request budgets (issue 9): the fewest round trips a run can make, asserted by counting
//! requests where they arrive, never by timing. GitHub requests are counted at the fake
//! GitHub; registry requests at a real registry (its own log of served requests) and, for
//! what a local `docker-registry` cannot be made to do (token auth, no digest header), at a
//! wiremock registry.

use crate::common::*;
use serde_json::{Value, json};
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// A registry with a multi-arch image pushed as `org/lab:latest`, and its digest.
fn registry_with_image(variant: &str) -> (Registry, String) {
    let registry = Registry::start();
    let digest = registry.push_image(variant, None);
    (registry, digest)
}

/// The `push` example payload, edited into a push of [`SHA`] to master.
fn push_event() -> Value {
    let mut e = fixture("github-events/push_with-new-branch.payload.json");
    let mut commit = e["commits"][0].clone();
    commit["id"] = json!(SHA);
    commit["message"] = json!("Bump codeq to 1.4.2 (#12)");
    e["ref"] = json!("refs/heads/master");
    e["created"] = json!(false);
    e["after"] = json!(SHA);
    e["head_commit"] = commit.clone();
    e["commits"] = json!([commit]);
    e
}

/// A push of [`SHA`], behind which GitHub's index finds one merged pull request with
/// `labels`; the image comes from `registry`.
fn push_run(github: &FakeGitHub, registry: &Registry, labels: &[&str]) -> ActionRun {
    github.set_commit_pulls(
        SHA,
        vec![json!([pull_json(
            12,
            "Bump codeq to 1.4.2",
            labels,
            Some(SHA),
            "master"
        )])],
    );
    let mut run = ActionRun::new(
        &registry.reference("org/lab:latest"),
        &github.api_url(),
        "push",
        &push_event(),
    )
    .input("insecure-registry", &registry.addr);
    run.args
        .extend(["--lookup-backoff-ms".to_string(), "0".to_string()]);
    run
}

/// The four requests of a routine push: the PR look-up, finding the release, one listing of
/// open tracking issues, the create.
fn routine_calls() -> Vec<String> {
    [
        &format!("GET /commits/{SHA}/pulls"),
        "GET /releases",
        "GET /issues",
        "POST /releases",
    ]
    .map(String::from)
    .to_vec()
}

/// The `User-Agent` every GitHub request carries: the tool and its version.
const USER_AGENT: &str = concat!("codeq-rollout/", env!("CARGO_PKG_VERSION"));

/// The GitHub requests after the first `from` as `METHOD /route` ([`FakeGitHub::calls_since`]),
/// once each of them is shown to carry GitHub's media type in `Accept` and the tool's
/// `User-Agent`, one value each (GitHub's REST docs, "Getting started": media types, user agent).
async fn github_calls(github: &FakeGitHub, from: usize) -> Vec<String> {
    let received = github.server.received_requests().await.unwrap_or_default();
    for r in &received[from..] {
        for (name, want) in [
            ("accept", "application/vnd.github+json"),
            ("user-agent", USER_AGENT),
        ] {
            let sent: Vec<&str> = r
                .headers
                .get_all(name)
                .iter()
                .map(|v| v.to_str().unwrap_or("(not text)"))
                .collect();
            assert_eq!(sent, [want], "{name} of {} {}", r.method, r.url);
        }
    }
    github.calls_since(from).await
}

const MANIFEST_HEAD: &str = "HEAD /v2/org/lab/manifests/latest";

#[tokio::test]
async fn a_routine_push_costs_four_github_requests_and_one_registry_request() {
    let (registry, digest) = registry_with_image("budget-routine");
    let github = FakeGitHub::start().await;
    let before = registry.served().len();
    let out = push_run(&github, &registry, &["routine"]).run().await;
    out.assert_success();
    assert_eq!(out.output("digest"), digest);
    assert_eq!(
        github_calls(&github, 0).await,
        routine_calls(),
        "PR look-up, find the release, one listing of open tracking issues, create"
    );
    assert_eq!(
        registry.served()[before..],
        [MANIFEST_HEAD],
        "one HEAD: no /v2/ ping, no manifest GET (a pull on Docker Hub)"
    );
}

#[tokio::test]
async fn a_security_push_costs_five_github_requests_plus_one_comment_per_superseded_issue() {
    let (registry, _) = registry_with_image("budget-security");
    let github = FakeGitHub::start().await;
    let out = push_run(&github, &registry, &["security"]).run().await;
    out.assert_success();
    let mut security = routine_calls();
    security.push("POST /issues".into());
    assert_eq!(github_calls(&github, 0).await, security);

    // A newer digest while two older tracking issues are open (one with a responder's
    // comment): one comment each, no comment listing. The newer digest is of the same image
    // (same registry and repository): only those tracking issues are superseded.
    registry.push_image("budget-security-newer", None);
    let older = github.add_issue(
        "Security release (older)",
        "<!-- codeq-rollout:tracking-issue digest=sha256:0000000000000000000000000000000000000000000000000000000000000000 -->\nOld.",
        &["security", "break-glass"],
        "open",
    );
    github.add_comment(older, "Stopped 3 of 7 servers.");
    let first_issue = github
        .issues()
        .iter()
        .map(|i| i["number"].as_u64().unwrap())
        .min()
        .unwrap();
    let from = github.requests().await.len();
    push_run(&github, &registry, &["security"])
        .run()
        .await
        .assert_success();
    let mut comments = vec![
        format!("POST /issues/{first_issue}/comments"),
        format!("POST /issues/{older}/comments"),
    ];
    let calls = github_calls(&github, from).await;
    let mut posted: Vec<String> = calls
        .iter()
        .filter(|c| c.ends_with("/comments"))
        .cloned()
        .collect();
    posted.sort();
    comments.sort();
    assert_eq!(posted, comments, "{calls:#?}");
    assert_eq!(calls.len(), 5 + 2, "{calls:#?}");
}

#[tokio::test]
async fn a_rerun_with_nothing_changed_reads_three_times_and_writes_nothing() {
    let (registry, _) = registry_with_image("budget-rerun");
    // Counted, not measured between the runs: the registry logs a request after answering
    // it, so the first run's last line may come after a look at the log (common::registry).
    let mut served = registry.served().len();
    for labels in [["security"], ["routine"]] {
        let github = FakeGitHub::start().await;
        let first = push_run(&github, &registry, &labels).run().await;
        first.assert_success();
        let from = github.requests().await.len();
        // A security release also reads its image index once (one GET by digest): its
        // runbook names the platform manifests a node may report.
        let mut reads = vec![MANIFEST_HEAD.to_string()];
        if labels == ["security"] {
            let index = format!("GET /v2/org/lab/manifests/{}", first.output("digest"));
            reads.push(index);
        }
        served += reads.len();
        let again = push_run(&github, &registry, &labels).run().await;
        again.assert_success();
        assert_eq!(again.output("changed"), "false");
        assert_eq!(
            github_calls(&github, from).await,
            [
                format!("GET /commits/{SHA}/pulls"),
                "GET /releases".into(),
                "GET /issues".into(),
            ],
            "{labels:?}"
        );
        let logged = || async { registry.served().len() >= served + reads.len() };
        let within = std::time::Duration::from_secs(10);
        let every = std::time::Duration::from_millis(50);
        until(
            "the rerun's registry reads in its log",
            within,
            every,
            logged,
        )
        .await;
        let log = registry.served();
        assert_eq!(
            log[served - reads.len()..served],
            reads,
            "{labels:?}: the first run"
        );
        assert_eq!(log[served..], reads, "{labels:?}: the rerun");
        served += reads.len();
    }
}

#[tokio::test]
async fn with_environment_a_routine_push_costs_six_requests_and_a_rerun_four_reads() {
    let (registry, _) = registry_with_image("budget-environment");
    let github = FakeGitHub::start().await;
    let run = || push_run(&github, &registry, &["routine"]).input("environment", "jupyterhub-prod");
    run().run().await.assert_success();
    let id = github.deployments()[0]["id"].as_u64().unwrap();
    let mut calls = routine_calls();
    calls.extend([
        "POST /deployments".into(),
        format!("POST /deployments/{id}/statuses"),
    ]);
    assert_eq!(github.calls_since(0).await, calls);
    let from = github.requests().await.len();
    run().run().await.assert_success();
    assert_eq!(
        github.calls_since(from).await,
        [
            format!("GET /commits/{SHA}/pulls"),
            "GET /releases".into(),
            "GET /issues".into(),
            "GET /deployments".into(),
        ]
    );
}

#[tokio::test]
async fn status_with_environment_costs_three_github_requests_when_nothing_changed() {
    use crate::deployments::{announce, hub, status};
    let github = FakeGitHub::start().await;
    announce(&github).run().await.assert_success();
    let stale = hub("2026-11-30T09:00:00Z", "2026-11-30T11:50:00Z").await;
    let (code, log, _) = status(&github, &stale, "2026-11-30T12:30:00Z");
    assert_eq!(code, 0, "{log}");
    let from = github.requests().await.len();
    let (code, log, _) = status(&github, &stale, "2026-11-30T12:35:00Z");
    assert_eq!(code, 0, "{log}");
    let id = github.deployments()[0]["id"].as_u64().unwrap();
    assert_eq!(
        github.calls_since(from).await,
        [
            "GET /releases".to_string(),
            "GET /deployments".into(),
            format!("GET /deployments/{id}/statuses"),
        ],
        "the release note, the deployments, the latest status; no write"
    );
}

#[tokio::test]
async fn pages_are_followed_only_while_a_page_is_full() {
    let (registry, _) = registry_with_image("budget-paging");
    for (releases, issues, pages) in [(99, 0, [1, 1]), (100, 100, [2, 2]), (150, 30, [2, 1])] {
        let github = FakeGitHub::start().await;
        for n in 0..releases {
            github.add_release(&format!("v1.{n}"), "Hand-written notes.", SHA);
        }
        for n in 0..issues {
            github.add_issue(
                &format!("Other {n}"),
                "Not ours.",
                &["security", "break-glass"],
                "open",
            );
        }
        push_run(&github, &registry, &["routine"])
            .run()
            .await
            .assert_success();
        assert!(!github_calls(&github, 0).await.is_empty());
        let requests = github.requests().await;
        let listed = |route: &str| -> Vec<String> {
            requests
                .iter()
                .filter(|(m, p, _)| m == "GET" && p.contains(route))
                .map(|(_, p, _)| p.clone())
                .collect()
        };
        let release_pages = listed("/releases?");
        let issue_pages = listed("/issues?");
        assert_eq!(
            [release_pages.len(), issue_pages.len()],
            pages,
            "{releases} releases, {issues} issues: {release_pages:?} {issue_pages:?}"
        );
        assert!(release_pages.iter().all(|p| p.contains("per_page=100")));
    }
}

/// A wiremock registry holding one image index at `lab:latest`, answering HEAD with or
/// without `Docker-Content-Digest`, behind token auth or none.
struct FakeRegistry {
    server: MockServer,
    digest: String,
}

const INDEX: &str =
    r#"{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[]}"#;
const INDEX_TYPE: &str = "application/vnd.oci.image.index.v1+json";

impl FakeRegistry {
    async fn start(token_auth: bool, digest_header: bool) -> Self {
        use sha2::Digest as _;
        let server = MockServer::start().await;
        let digest = format!("sha256:{}", hex::encode(sha2::Sha256::digest(INDEX)));
        let manifest = "/v2/lab/manifests/latest";
        let ping = if token_auth {
            ResponseTemplate::new(401).insert_header(
                "WWW-Authenticate",
                format!(
                    r#"Bearer realm="{}/token",service="registry.test""#,
                    server.uri()
                )
                .as_str(),
            )
        } else {
            ResponseTemplate::new(200)
        };
        Mock::given(method("GET"))
            .and(path("/v2/"))
            .respond_with(ping)
            .mount(&server)
            .await;
        Mock::given(method("GET"))
            .and(path("/token"))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({ "token": "t0k3n" })))
            .mount(&server)
            .await;
        let mut head = ResponseTemplate::new(200).insert_header("Content-Type", INDEX_TYPE);
        if digest_header {
            head = head.insert_header("Docker-Content-Digest", digest.as_str());
        }
        let get = ResponseTemplate::new(200).set_body_raw(INDEX, INDEX_TYPE);
        for (verb, answer) in [("HEAD", head), ("GET", get)] {
            let mock = Mock::given(method(verb)).and(path(manifest));
            let mock = if token_auth {
                mock.and(header("Authorization", "Bearer t0k3n"))
            } else {
                mock
            };
            mock.respond_with(answer)
                .with_priority(1)
                .mount(&server)
                .await;
        }
        if token_auth {
            // Without the bearer token, the manifest answers with the challenge.
            Mock::given(path(manifest))
                .respond_with(ResponseTemplate::new(401).insert_header(
                    "WWW-Authenticate",
                    format!(
                        r#"Bearer realm="{}/token",service="registry.test",scope="repository:lab:pull""#,
                        server.uri()
                    )
                    .as_str(),
                ))
                .with_priority(10)
                .mount(&server)
                .await;
        }
        Self { server, digest }
    }

    fn addr(&self) -> String {
        self.server.address().to_string()
    }

    /// A dry run with an explicit tier (no GitHub request at all) resolving `lab:latest`.
    async fn resolve(&self, credentials: bool) -> Outcome {
        let mut run = ActionRun::new(
            &format!("{}/lab:latest", self.addr()),
            "http://127.0.0.1:9",
            "workflow_dispatch",
            &fixture("github-events/workflow_dispatch_payload.json"),
        )
        .input("insecure-registry", &self.addr())
        .input("tier", "routine")
        .input("dry-run", "true");
        if credentials {
            run = run
                .input("registry-username", "ci")
                .input("registry-password", "registry-secret-never-printed");
        }
        run.run().await
    }

    async fn served(&self) -> Vec<String> {
        self.server
            .received_requests()
            .await
            .unwrap_or_default()
            .iter()
            .map(|r| format!("{} {}", r.method, r.url.path()))
            .collect()
    }
}

#[tokio::test]
async fn token_auth_costs_three_registry_requests_and_one_token() {
    for credentials in [true, false] {
        let registry = FakeRegistry::start(true, true).await;
        let out = registry.resolve(credentials).await;
        out.assert_success();
        assert_eq!(out.output("digest"), registry.digest);
        assert_eq!(
            registry.served().await,
            [
                "HEAD /v2/lab/manifests/latest",
                "GET /token",
                "HEAD /v2/lab/manifests/latest"
            ],
            "challenge, token, HEAD (credentials: {credentials})"
        );
    }
}

#[tokio::test]
async fn a_manifest_get_is_sent_only_when_the_registry_sends_no_digest_header() {
    let with_header = FakeRegistry::start(true, true).await;
    with_header.resolve(true).await.assert_success();
    assert_eq!(
        with_header.served().await,
        [
            "HEAD /v2/lab/manifests/latest",
            "GET /token",
            "HEAD /v2/lab/manifests/latest"
        ]
    );

    let without = FakeRegistry::start(true, false).await;
    let out = without.resolve(true).await;
    out.assert_success();
    assert_eq!(out.output("digest"), without.digest, "sha256 of the body");
    assert_eq!(
        without.served().await,
        [
            "HEAD /v2/lab/manifests/latest",
            "GET /token",
            "HEAD /v2/lab/manifests/latest",
            "GET /v2/lab/manifests/latest"
        ],
        "one token serves both the HEAD and the GET"
    );
}

#[tokio::test]
async fn basic_auth_on_a_real_registry_costs_two_requests() {
    let registry = Registry::start_htpasswd("ci", "registry-secret-never-printed");
    registry.push_image("budget-basic", Some("ci:registry-secret-never-printed"));
    let before = registry.served().len();
    let github = FakeGitHub::start().await;
    let out = push_run(&github, &registry, &["routine"])
        .input("registry-username", "ci")
        .input("registry-password", "registry-secret-never-printed")
        .run()
        .await;
    out.assert_success();
    assert_eq!(github_calls(&github, 0).await, routine_calls());
    assert_eq!(
        registry.served()[before..],
        [MANIFEST_HEAD, MANIFEST_HEAD],
        "a HEAD answered 401 naming Basic, then the HEAD with credentials"
    );
}
