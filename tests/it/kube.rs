//! `status` by digest: the real JupyterHub rig (tests/it/common/hub.rs), whose spawner
//! registers each server's pod with the fake Kubernetes API server
//! (tests/kube/fake_apiserver.py, over TLS) as KubeSpawner creates pods, and `status` with a
//! ServiceAccount-token kubeconfig. The fake is first checked against the real parts: every
//! object it serves validates against kubernetes-validate and the official Python client
//! lists it with pagination and `continue` (tests/kube/check_client.py).

use crate::common::hub::{Hub, HubSettings, iso, unix_now};
use crate::common::kube::{FakeKube, TOKEN};
use crate::common::registry::{free_port, make_layout, repo_root};
use crate::common::run_codeq;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::time::Duration;

const READER_TOKEN: &str = "status-reader-token-0123456789abcdef";
const OLD: &str =
    "ghcr.io/org/lab@sha256:eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee";

fn extra_config() -> String {
    let scopes = codeq_rollout::SCOPES
        .iter()
        .map(|s| format!("{s:?}"))
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        r#"c.JupyterHub.services.append({{"name": "status-reader", "api_token": "{READER_TOKEN}"}})
c.JupyterHub.load_roles.append({{"name": "status-reader", "services": ["status-reader"], "scopes": [{scopes}]}})
"#
    )
}

#[test]
fn the_fake_speaks_what_the_official_client_reads() {
    let fake = FakeKube::start();
    let (code, stdout, stderr) = {
        let out = std::process::Command::new(repo_root().join(".venv/bin/python"))
            .arg(repo_root().join("tests/kube/check_client.py"))
            .args([
                fake.api.to_string(),
                fake.admin.to_string(),
                fake.ca().display().to_string(),
                TOKEN.to_string(),
            ])
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    assert_eq!((code, stdout.trim()), (Some(0), "ok 1203 3"), "{stderr}");
}

/// The image: a multi-arch OCI layout; its index digest and its first child manifest.
fn layout() -> (tempfile::TempDir, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let index = make_layout(dir.path(), "latest", "kube");
    let hex = index.strip_prefix("sha256:").unwrap();
    let blob: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("blobs/sha256").join(hex)).unwrap())
            .unwrap();
    let child = blob["manifests"][0]["digest"].as_str().unwrap().to_string();
    (dir, index, child)
}

/// Runs `status` against `base` with the kubeconfig `kubeconfig`.
fn status(
    base: &str,
    settings: HubSettings,
    image: &str,
    released_at: &str,
    kubeconfig: &str,
    args: &[&str],
) -> (i32, String, String) {
    let (timeout, every, max_age, slow) = (
        settings.timeout.to_string(),
        settings.every.to_string(),
        settings.max_age.to_string(),
        settings.slow_stop_timeout.to_string(),
    );
    let mut all = vec![
        "status",
        "--hub-url",
        base,
        "--hub-token",
        READER_TOKEN,
        "--released-at",
        released_at,
        "--image",
        image,
        "--kubeconfig",
        kubeconfig,
        "--namespace",
        "jhub",
        "--cull-timeout",
        &timeout,
        "--cull-every",
        &every,
        "--cull-max-age",
        &max_age,
        "--slow-stop-timeout",
        &slow,
    ];
    if !args.contains(&"--helm-release") {
        all.extend_from_slice(&["--helm-release", "jhub"]);
    }
    all.extend_from_slice(args);
    run_codeq(&all, &BTreeMap::new())
}

fn states(report: &Value) -> BTreeMap<String, String> {
    report["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["user"].as_str().unwrap().to_string(),
                s["state"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

const SLOW_CULLER: HubSettings = HubSettings {
    timeout: 600,
    every: 300,
    max_age: 0,
    slow_stop_timeout: 1,
};

#[tokio::test]
async fn status_judges_by_digest_and_refuses_kubernetes_faults_clearly() {
    let fake = FakeKube::start();
    let (dir, index, child) = layout();
    let image = format!("oci:{}:latest", dir.path().display());
    let hub = Hub::start_with(SLOW_CULLER, &extra_config()).await;
    let base = hub.api.trim_end_matches("/hub/api").to_string();
    hub.set_kube(&fake.admin_url(), &[], OLD);
    hub.start_servers(&["old1", "old2"]).await;
    let released_at = iso(unix_now());
    let new = format!("ghcr.io/org/lab@{index}");
    let on_child = format!("ghcr.io/org/lab@{child}");
    hub.set_kube(
        &fake.admin_url(),
        &[
            ("new", new.as_str()),
            ("child", on_child.as_str()),
            ("mismatch", OLD),
            ("creating", ""),
        ],
        OLD,
    );
    hub.start_servers(&["new", "child", "mismatch", "creating"])
        .await;
    // A pod the hub does not list, with a hostile user name; thousands of unrelated pods.
    let mut specs = vec![json!({
        "name": "jupyter-ghost", "user": "::error::pwned\u{202e}", "image_id": OLD,
        "start_time": "2026-01-01T00:00:00Z",
    })];
    specs.extend((0..3000).map(|i| {
        json!({"name": format!("other-{i}"), "component": if i % 2 == 0 { "other" } else { "singleuser-server" },
               "release": if i % 2 == 0 { "jhub" } else { "other" }, "image_id": OLD})
    }));
    fake.add_pods(&specs);
    let kubeconfig = fake.kubeconfig();

    let (code, stdout, stderr) = status(
        &base,
        SLOW_CULLER,
        &image,
        &released_at,
        &kubeconfig,
        &["--json"],
    );
    assert_eq!(code, 0, "{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    let want: BTreeMap<String, String> = [
        ("old1", "stale-active"),
        ("old2", "stale-active"),
        ("new", "updated"),
        // The runtime reported the platform manifest, a child of the index.
        ("child", "updated"),
        ("mismatch", "mismatch"),
        ("creating", "unknown"),
        ("::error::pwned\u{202e}", "orphan"),
    ]
    .into_iter()
    .map(|(u, s)| (u.to_string(), s.to_string()))
    .collect();
    assert_eq!(states(&report), want);
    let t = &report["totals"];
    assert_eq!(
        (
            &t["evidence"],
            &t["converged"],
            &t["mismatch"],
            &t["orphans"],
            &t["unknown"]
        ),
        (
            &json!("digest"),
            &json!(false),
            &json!(1),
            &json!(1),
            &json!(1)
        )
    );
    // One request for 7 pods (≤ ceil(7 / 500) + 1), the selector pushed to the API server.
    let requests = fake.requests();
    assert_eq!(requests.len(), 1, "{requests:?}");
    assert_eq!(requests[0]["path"], "/api/v1/namespaces/jhub/pods");
    assert_eq!(
        requests[0]["query"],
        json!({"labelSelector": "component=singleuser-server,release=jhub", "limit": "500"})
    );
    assert_eq!(requests[0]["authorization"], format!("Bearer {TOKEN}"));

    // A wrong helm-release matches no pod while the hub lists servers: a warning naming the
    // namespace, the selector and what to check.
    let (code, _, stderr) = status(
        &base,
        SLOW_CULLER,
        &image,
        &released_at,
        &kubeconfig,
        &["--json", "--helm-release", "nohub"],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("no single-user pod in the namespace jhub matches the hub's 6 running servers\nhelp: no pod matches the selector component=singleuser-server,release=nohub"),
        "{stderr}"
    );
    assert!(
        stderr.contains("check the namespace and helm-release inputs"),
        "{stderr}"
    );

    // The table, and the alarms: exit 1, the mismatch named with what to check.
    let (code, stdout, stderr) = status(
        &base,
        SLOW_CULLER,
        &image,
        &released_at,
        &kubeconfig,
        &["--fail-on", "mismatch,orphan"],
    );
    assert_eq!(code, 1, "{stdout}\n{stderr}");
    assert!(stderr.contains("pod jupyter-mismatch (user mismatch, server (default)) started after the release but runs sha256:eeee"), "{stderr}");
    assert!(stderr.contains("singleuser.image.pullPolicy"), "{stderr}");
    assert!(
        stderr.contains("the run fails because fail-on lists mismatch, orphan"),
        "{stderr}"
    );
    assert!(stdout.contains("Judged by digest"), "{stdout}");
    // The hostile name is neutralised: no workflow command, no reordering character.
    assert!(
        !stdout.lines().any(|l| l.trim_start().starts_with("::")),
        "{stdout}"
    );
    assert!(!stdout.contains('\u{202e}'), "{stdout}");

    // Faults: each a clear error, exit 1.
    let sent = fake.requests().len();
    let exits = |want: i32, kubeconfig: &str, words: &[&str]| {
        let (code, stdout, stderr) =
            status(&base, SLOW_CULLER, &image, &released_at, kubeconfig, &[]);
        assert_eq!(code, want, "{stdout}\n{stderr}");
        for w in words {
            assert!(stderr.contains(w), "{w:?} not in {stderr}");
        }
        assert!(!stderr.contains(TOKEN), "{stderr}");
    };
    let fails = |kubeconfig: &str, words: &[&str]| exits(1, kubeconfig, words);
    // A kubeconfig that cannot work is bad input (exit 2), refused before the hub is read.
    let refused = |kubeconfig: &str, words: &[&str]| exits(2, kubeconfig, words);
    let exec = kubeconfig.replace(
        &format!("      token: {TOKEN}\n"),
        "      exec:\n        apiVersion: client.authentication.k8s.io/v1beta1\n        command: gke-gcloud-auth-plugin\n",
    );
    refused(
        &exec,
        &[
            "needs the credential plugin \"gke-gcloud-auth-plugin\"",
            "no credential plugins",
            "token: TOKEN",
        ],
    );
    // No current context, or one the kubeconfig does not have: refused too, not found only
    // when the client is made after the hub was read.
    refused(
        &kubeconfig.replace("current-context: hub\n", ""),
        &[
            "the kubeconfig (the kubeconfig input) is not usable",
            "failed to determine current context",
        ],
    );
    refused(
        &kubeconfig.replace("current-context: hub\n", "current-context: prod\n"),
        &["failed to load current context: prod"],
    );
    refused(
        "clusters: [ nope",
        &["the kubeconfig (the kubeconfig input) is not usable"],
    );
    assert_eq!(
        fake.requests().len(),
        sent,
        "nothing sent with a kubeconfig refused"
    );
    fails(
        &fake.kubeconfig_at(&format!("https://127.0.0.1:{}", free_port()), TOKEN),
        &["cannot read pods from the Kubernetes API server"],
    );
    fake.fault(Some("forbidden"));
    fails(
        &kubeconfig,
        &[
            "403 Forbidden",
            "cannot list resource \"pods\"",
            "Grant the verb list on the resource pods in the namespace jhub",
            "kind: Role",
        ],
    );
    fake.fault(Some("unauthorized"));
    fails(
        &kubeconfig,
        &["401 Unauthorized", "create a new ServiceAccount token"],
    );
    // A server address carrying credentials is shown without them.
    let port = fake.api;
    let with_password = fake.kubeconfig_at(
        &format!("https://admin:SuperSecretPw@127.0.0.1:{port}/?token=SecretQuery"),
        TOKEN,
    );
    let (code, _, stderr) = status(
        &base,
        SLOW_CULLER,
        &image,
        &released_at,
        &with_password,
        &[],
    );
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains(&format!(
            "the Kubernetes API server https://127.0.0.1:{port}/ answered 401"
        )),
        "{stderr}"
    );
    assert!(
        !stderr.contains("SuperSecretPw") && !stderr.contains("SecretQuery"),
        "{stderr}"
    );
    // A server that drips its answer a byte at a time is cut at kube-timeout, which bounds
    // each request as a whole, not each read.
    let drip = DripServer::start();
    let (code, _, stderr) = status(
        &base,
        SLOW_CULLER,
        &image,
        &released_at,
        &fake.kubeconfig_at(&format!("http://127.0.0.1:{}", drip.port), TOKEN),
        &["--kube-timeout", "2s"],
    );
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("did not answer within kube-timeout (2s)"),
        "{stderr}"
    );
    drop(drip);
    // Loopback over plain HTTP is no warning (above); an API server elsewhere over plain
    // HTTP is, before the token is sent (TEST-NET-1: nothing answers there).
    assert!(!stderr.contains("is plain http://"), "{stderr}");
    let (code, _, stderr) = status(
        &base,
        SLOW_CULLER,
        &image,
        &released_at,
        &fake.kubeconfig_at("http://192.0.2.1:8080", TOKEN),
        &["--kube-timeout", "1s"],
    );
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("kubeconfig http://192.0.2.1:8080/ is plain http:// to a host outside loopback, private networks and the cluster\nhelp: its user's token or password is sent unencrypted to it: use https://"),
        "{stderr}"
    );
    // A 200 that is not a pod list is refused, never read as "no pods".
    fake.fault(Some("not-a-pod-list"));
    fails(
        &kubeconfig,
        &[
            "answered with something that is not a pod list: its kind is \"Status\"",
            "not a proxy, dashboard or load balancer page",
        ],
    );
    // A continue token that comes back ends the listing with an error, at the second page.
    fake.fault(Some("endless-continue"));
    let before = fake.requests().len();
    fails(
        &kubeconfig,
        &["kept paging the pods: 2 pages without an end"],
    );
    assert_eq!(fake.requests().len() - before, 2);
    fake.fault(None);

    // 600 more pods of the release: two pages; an expired continue token restarts once.
    fake.add_pods(
        &(0..600)
            .map(|i| json!({"name": format!("bulk-{i}"), "user": format!("bulk-{i}"), "image_id": new, "start_time": "2026-01-01T00:00:00Z"}))
            .collect::<Vec<_>>(),
    );
    // An evicted pod (phase Failed) runs nothing: neither a server's pod nor an orphan.
    fake.add_pods(&[json!({"name": "jupyter-evicted", "user": "evicted", "image_id": format!("ghcr.io/org/lab@sha256:{}", "e".repeat(64)), "phase": "Failed", "start_time": "2026-01-01T00:00:00Z"})]);
    let before = fake.requests().len();
    fake.fault(Some("expire-continue"));
    let (code, stdout, stderr) = status(
        &base,
        SLOW_CULLER,
        &image,
        &released_at,
        &kubeconfig,
        &["--json"],
    );
    assert_eq!(code, 0, "{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["totals"]["orphans"], 601);
    let tokens: Vec<bool> = fake.requests()[before..]
        .iter()
        .map(|r| r["query"].get("continue").is_some())
        .collect();
    // Page 1, page 2 answered 410, then page 1 and page 2 again.
    assert_eq!(tokens, [false, true, false, true]);
    drop(hub);
}

const FAST_CULLER: HubSettings = HubSettings {
    timeout: 6,
    every: 2,
    max_age: 0,
    slow_stop_timeout: 1,
};

#[tokio::test]
async fn the_culler_stops_stale_servers_until_converged_flips_on_digest_evidence() {
    let fake = FakeKube::start();
    let (dir, index, _) = layout();
    let image = format!("oci:{}:latest", dir.path().display());
    let hub = Hub::start_with(FAST_CULLER, &extra_config()).await;
    let base = hub.api.trim_end_matches("/hub/api").to_string();
    hub.set_kube(&fake.admin_url(), &[], OLD);
    hub.start_servers(&["s1", "s2"]).await;
    let released_at = iso(unix_now());
    hub.set_kube(&fake.admin_url(), &[], &format!("ghcr.io/org/lab@{index}"));
    let kubeconfig = fake.kubeconfig();
    let run = || {
        let (code, stdout, stderr) = status(
            &base,
            FAST_CULLER,
            &image,
            &released_at,
            &kubeconfig,
            &["--json"],
        );
        assert_eq!(code, 0, "{stderr}");
        serde_json::from_str::<Value>(&stdout).unwrap()
    };
    let first = run();
    assert_eq!(first["totals"]["evidence"], "digest");
    assert_eq!(first["totals"]["converged"], false, "{first}");
    assert_eq!(first["totals"]["stale"], 2, "{first}");
    // The real culler stops both (idle 6 s, every 2 s); the spawner removes their pods.
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    let mut tick = tokio::time::interval(Duration::from_millis(500));
    loop {
        tick.tick().await;
        let now = run();
        if now["totals"]["converged"] == true {
            assert_eq!(now["totals"]["stale"], 0);
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "never converged: {now}\n{}",
            hub.log()
        );
    }
    // A server started now runs the new digest: still converged, by digest.
    hub.start_servers(&["s3"]).await;
    let last = run();
    assert_eq!(
        (&last["totals"]["converged"], &last["totals"]["updated"]),
        (&json!(true), &json!(1)),
        "{last}"
    );
}

/// A plain-HTTP server that answers every connection with a status line and headers at
/// once, then one byte of body every 100 ms for at most 30 s (then it closes: a client
/// without an overall deadline fails on the cut answer, not on its timeout), so that no
/// single read ever waits long. Dropping it stops and joins its thread.
struct DripServer {
    port: u16,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl DripServer {
    fn start() -> Self {
        use std::io::Write as _;
        use std::sync::atomic::Ordering;
        use std::time::{Duration, Instant};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let stopped = stop.clone();
        let thread = std::thread::spawn(move || {
            let mut conns: Vec<(std::net::TcpStream, Instant)> = Vec::new();
            while !stopped.load(Ordering::Relaxed) {
                if let Ok((mut c, _)) = listener.accept() {
                    let _ = c.write_all(
                        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{",
                    );
                    conns.push((c, Instant::now()));
                }
                conns.retain_mut(|(c, since)| {
                    since.elapsed() < Duration::from_secs(30) && c.write_all(b" ").is_ok()
                });
                std::thread::park_timeout(Duration::from_millis(100));
            }
        });
        DripServer {
            port,
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for DripServer {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            thread.thread().unpark();
            let _ = thread.join();
        }
    }
}
