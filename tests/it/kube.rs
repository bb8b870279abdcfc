//! `status` by digest on the real z2jh stack (tests/it/common/z2jh.rs): a real kube-apiserver
//! and etcd built from Go modules, the real JupyterHub spawning through real KubeSpawner into
//! it, the image by tag from a real registry, and a kubelet stand-in (tests/kube/kubelet.py)
//! as the only simulated part. `status` runs as the real binary with a kubeconfig holding a
//! ServiceAccount token from TokenRequest, for the ServiceAccount, Role and RoleBinding of
//! docs/status-kubernetes.md applied as written (parsed from the doc; only the namespace
//! `jhub` is each test's own). Requests are counted in the API server's audit log.
//!
//! What a real API server never answers (a proxy's or dashboard's page, a `continue` token
//! that comes back, an answer dripped a byte at a time) stays on the hand-written fake
//! (tests/kube/fake_apiserver.py) at the end of this file.

use crate::common::controlplane::{ControlPlane, collection_path, documented_objects, kinds};
use crate::common::hub::{HubSettings, iso, unix_now};
use crate::common::kube::{FakeKube, TOKEN};
use crate::common::registry::{free_port, repo_root};
use crate::common::z2jh::{RELEASE, Z2jh, Z2jhSettings};
use crate::common::{number_in, run_codeq, scrub, start_script, until_started};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::time::Duration;

const READER_TOKEN: &str = "status-reader-token-0123456789abcdef";
/// The ServiceAccount docs/status-kubernetes.md creates.
const STATUS_ACCOUNT: &str = "codeq-rollout-status";

/// The hub service `status` reads with: exactly the scopes codeq-rollout documents.
fn reader_config() -> String {
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

/// The objects of docs/status-kubernetes.md's "The smallest RBAC" YAML block, as written, in
/// `namespace`.
fn documented_rbac(namespace: &str) -> Vec<Value> {
    documented_objects("docs/status-kubernetes.md", "The smallest RBAC", namespace)
}

/// Applies the doc's objects (less those of the kinds in `without`) in the rig's namespace;
/// a kubeconfig for the doc's ServiceAccount with a TokenRequest token.
async fn documented_status_account(rig: &Z2jh, without: &[&str]) -> String {
    let objects = documented_rbac(&rig.namespace);
    assert_eq!(
        kinds(&objects),
        ["ServiceAccount", "Role", "RoleBinding", "Secret"],
        "the doc's RBAC block changed: check what this test applies"
    );
    let chosen: Vec<Value> = objects
        .into_iter()
        .filter(|o| !without.contains(&o["kind"].as_str().unwrap()))
        .collect();
    rig.plane.create(&chosen).await;
    rig.kubeconfig_for_account(STATUS_ACCOUNT).await.1
}

/// `users`' servers started on the rig, then a release an hour ago (its time) and the doc's
/// ServiceAccount ([`documented_status_account`], its kubeconfig).
async fn released_an_hour_ago(rig: &Z2jh, users: &[&str]) -> (String, String) {
    rig.start_servers(users).await;
    let released_at = iso(unix_now() - 3600.0);
    (released_at, documented_status_account(rig, &[]).await)
}

/// Whether the API server allows `list` on pods in `namespace` to the doc's ServiceAccount of
/// `account_namespace`.
async fn allowed(plane: &ControlPlane, account_namespace: &str, namespace: &str) -> bool {
    (plane.allows(account_namespace, STATUS_ACCOUNT, namespace, "list")).await
}

/// Waits (bounded, 30 s) until the authorizer's answer for the doc's ServiceAccount is `want`.
async fn until_allowed(rig: &Z2jh, want: bool) {
    let ok = rig
        .wait_for("the RBAC decision", Duration::from_secs(30), || {
            let (plane, ns) = (rig.plane, rig.namespace.clone());
            async move { allowed(plane, &ns, &ns).await == want }
        })
        .await;
    assert!(ok, "RBAC never answered allowed={want}");
}

/// The rig with the culler at `hub`, z2jh's default pull policy, and the hub service `status`
/// reads with ([`reader_config`]).
async fn reading_rig(hub: HubSettings) -> Z2jh {
    let settings = Z2jhSettings {
        hub,
        pull_policy: None,
    };
    Z2jh::start(settings, &reader_config()).await
}

/// One `status` run against the rig: its exit code, stdout, stderr, and (inside Actions) its
/// outputs and summary files.
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
    outputs: String,
    summary: String,
}

impl Run {
    fn json(&self) -> Value {
        assert_eq!(self.code, 0, "{}\n{}", self.stdout, self.stderr);
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| panic!("{e}: {}", self.stdout))
    }
}

/// How `status` reads the rig: its hub and API server with `kubeconfig` (content), the culler
/// settings of `settings`, released at `released_at`.
#[derive(Clone, Copy)]
struct Reading<'a> {
    rig: &'a Z2jh,
    settings: HubSettings,
    kubeconfig: &'a str,
    released_at: &'a str,
}

impl<'a> Reading<'a> {
    fn new(
        rig: &'a Z2jh,
        settings: HubSettings,
        kubeconfig: &'a str,
        released_at: &'a str,
    ) -> Self {
        Reading {
            rig,
            settings,
            kubeconfig,
            released_at,
        }
    }
}

/// `codeq-rollout status` as `reading` says, with `args`; `actions` runs it as the Actions
/// runner does (outputs and summary files, annotations on stdout).
fn status(reading: Reading, args: &[&str], actions: bool) -> Run {
    let Reading {
        rig,
        settings,
        kubeconfig,
        released_at,
    } = reading;
    let base = rig.hub.api.trim_end_matches("/hub/api").to_string();
    let dir = tempfile::tempdir().unwrap();
    let mut env = BTreeMap::new();
    if actions {
        for (k, v) in [
            ("GITHUB_ACTIONS", "true".to_string()),
            (
                "GITHUB_OUTPUT",
                dir.path().join("output").display().to_string(),
            ),
            (
                "GITHUB_STEP_SUMMARY",
                dir.path().join("summary").display().to_string(),
            ),
        ] {
            env.insert(k.to_string(), v);
        }
    }
    let (timeout, every, max_age, slow) = (
        settings.timeout.to_string(),
        settings.every.to_string(),
        settings.max_age.to_string(),
        settings.slow_stop_timeout.to_string(),
    );
    let mut all = vec![
        "status",
        "--hub-url",
        &base,
        "--hub-token",
        READER_TOKEN,
        "--released-at",
        released_at,
        "--image",
        &rig.image,
        "--insecure-registry",
        &rig.registry.addr,
        "--kubeconfig",
        kubeconfig,
        "--namespace",
        &rig.namespace,
        "--helm-release",
        RELEASE,
        "--cull-timeout",
        &timeout,
        "--cull-every",
        &every,
        "--cull-max-age",
        &max_age,
        "--slow-stop-timeout",
        &slow,
    ];
    all.extend_from_slice(args);
    let (code, stdout, stderr) = run_codeq(&all, &env);
    let read = |name: &str| std::fs::read_to_string(dir.path().join(name)).unwrap_or_default();
    Run {
        code,
        stdout,
        stderr,
        outputs: read("output"),
        summary: read("summary"),
    }
}

/// User → state, from `status --json`.
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

/// The totals of `status --json` that count servers and pods, as `key value` in one line.
fn counts(report: &Value) -> String {
    let t = &report["totals"];
    let keys = [
        "running",
        "updated",
        "stale_idle",
        "stale_active",
        "pending",
        "pending_stale",
        "mismatch",
        "orphans",
        "unknown",
        "converged",
        "evidence",
    ];
    keys.map(|k| format!("{k} {}", t[k])).join(", ")
}

/// What the hub holds: its users with an active (ready or pending) server.
async fn hub_active(rig: &Z2jh) -> Vec<String> {
    let (code, body) = rig.hub.send("GET", "/users?state=active", None).await;
    assert_eq!(code, 200, "{body}");
    let mut users: Vec<String> = body
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["name"].as_str().unwrap().to_string())
        .collect();
    users.sort();
    users
}

/// The single-user pods the API server holds for the rig's release (the runbook's selector),
/// left out those that ended (`Succeeded`, `Failed`): `(name, phase, terminating)`.
async fn single_user_pods(rig: &Z2jh) -> Vec<(String, String, bool)> {
    let (code, body) = rig
        .admin(
            "GET",
            &format!(
                "/api/v1/namespaces/{}/pods?labelSelector=component%3Dsingleuser-server%2Crelease%3D{RELEASE}",
                rig.namespace
            ),
            None,
        )
        .await;
    assert_eq!(code, 200, "{body}");
    let mut pods: Vec<(String, String, bool)> = body["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["metadata"]["name"].as_str().unwrap().to_string(),
                p["status"]["phase"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
                p["metadata"].get("deletionTimestamp").is_some(),
            )
        })
        .collect();
    pods.sort();
    pods
}

/// The culler at seconds, but passing only at the hub's start (every 10 minutes): inactivity
/// of 5 s makes a server idle for `status` (`--now` fixes when), and no cull happens during the
/// test.
const STILL_CULLER: HubSettings = HubSettings {
    timeout: 5,
    every: 600,
    max_age: 0,
    slow_stop_timeout: 1,
};

/// Every bucket from the pods KubeSpawner really made (`singleuser.image.pullPolicy:
/// IfNotPresent`, as many hubs set it), on two simulated nodes:
/// - `idle` and `active` started before the release on node-1, which so pulled the first image
///   (`active` then reports activity): stale idle, stale active;
/// - `gone` started before the release on node-1, then stopped through the hub while its node
///   was lost: KubeSpawner's delete never completes (the stand-in kubelet never removes the
///   pod), KubeSpawner gives up after its `start_timeout`, the hub forgets the server, and its
///   pod stays Terminating: an orphan;
/// - after the new image is pushed: `fresh` on node-2 (cold: pulls the new digest) is updated,
///   and so is `mirror`, whose node names the new digest under another repository (a
///   registry mirror: a digest names the content, as the runbook's `stale` judges it);
///   `warm` on node-1 keeps the digest node-1 holds (IfNotPresent): mismatch; `other`, whose
///   server a `pre_spawn_hook` sets to another image (as a profile would), runs another
///   digest of another repository: unknown, no mismatch (the runbook's `stale` stops it);
///   `slow`, whose pull the stand-in holds, is pending.
///
/// Then the counts equal what the hub and the API server hold, `converged` is false; releasing
/// the pull (on node-2, now warm with the new digest), stopping the stale servers through the
/// hub and force-deleting the stranded pod, as the runbook does, makes it true.
#[tokio::test]
async fn status_reads_every_bucket_from_the_pods_kubespawner_made() {
    let hook = r#"
def _other_image(spawner):
    # As a profile_list entry would: this user's server runs another image.
    if spawner.user.name == "other":
        spawner.image = spawner.image.replace("/org/lab:", "/org/other:")
c.KubeSpawner.pre_spawn_hook = _other_image
c.KubeSpawner.start_timeout = 30
"#;
    let settings = Z2jhSettings {
        hub: STILL_CULLER,
        pull_policy: Some("IfNotPresent"),
    };
    let rig = Z2jh::start(settings, &format!("{}{hook}", reader_config())).await;
    let r = &rig;
    let kubeconfig = documented_status_account(&rig, &[]).await;
    let other_digest = {
        let layout = tempfile::tempdir().unwrap();
        let d = crate::common::registry::make_layout(layout.path(), "latest", "other");
        rig.registry.push_layout(
            layout.path(),
            "latest",
            "org/other:latest",
            &["--preserve-digests"],
        );
        d
    };
    rig.kubelet
        .control(json!({
            "nodes": {"fresh": "node-2", "slow": "node-2", "mirror": "node-2"},
            "stuck": ["gone"],
            "mirror": {"mirror": "mirror.example/org/lab"},
        }))
        .await;
    rig.start_servers(&["idle", "active", "gone"]).await;
    let t_old = unix_now();
    // Stop `gone` now: KubeSpawner waits its start_timeout (30 s) for the pod to go, meanwhile
    // the rest happens.
    let (code, body) = rig.hub.send("DELETE", "/users/gone/server", None).await;
    assert_eq!(code, 202, "the stop waits on KubeSpawner: {body}");

    let new_digest = rig.push("second");
    assert_ne!(new_digest, rig.first_digest);
    let released_at = iso(unix_now());
    let reading = Reading::new(&rig, STILL_CULLER, &kubeconfig, &released_at);
    rig.start_servers(&["fresh", "warm", "other", "mirror"])
        .await;
    let gone_forgotten = rig
        .wait_for(
            "the hub forgets gone's server",
            Duration::from_secs(90),
            move || async move { !hub_active(r).await.contains(&"gone".to_string()) },
        )
        .await;
    assert!(gone_forgotten, "{}", rig.logs());
    // Last, as its spawn fails after start_timeout (30 s) while the pull is held.
    rig.kubelet.control(json!({"hold": ["slow"]})).await;
    rig.hub.spawn(&["slow"]).await;
    let pending_in_api = rig
        .wait_for(
            "slow's pod waits for its image",
            Duration::from_secs(20),
            move || async move {
                r.pod("slow").await.is_some_and(|p| {
                    p["status"]["containerStatuses"][0]["state"]["waiting"]["reason"]
                        == "ContainerCreating"
                })
            },
        )
        .await;
    assert!(pending_in_api, "{}", rig.logs());

    // What the pods say: KubeSpawner's shape, the stand-in's pulls.
    let warm = rig.pod("warm").await.unwrap();
    assert_eq!(
        warm["spec"]["containers"][0]["imagePullPolicy"],
        "IfNotPresent"
    );
    assert_eq!(warm["spec"]["containers"][0]["name"], "notebook");
    assert_eq!(warm["spec"]["containers"][0]["image"], rig.image.as_str());
    assert_eq!(
        warm["status"]["containerStatuses"][0]["imageID"],
        rig.image_id(&rig.first_digest).as_str(),
        "a warm node keeps the digest it has"
    );
    let labels = &warm["metadata"]["labels"];
    for (k, v) in [
        ("component", "singleuser-server"),
        ("app.kubernetes.io/component", "singleuser-server"),
        ("release", RELEASE),
        ("app.kubernetes.io/instance", RELEASE),
        ("app", "jupyterhub"),
        ("app.kubernetes.io/managed-by", "kubespawner"),
        ("hub.jupyter.org/username", "warm"),
    ] {
        assert_eq!(labels[k], v, "label {k}: {labels}");
    }
    assert_eq!(
        warm["metadata"]["annotations"]["hub.jupyter.org/username"],
        "warm"
    );
    assert_eq!(
        single_user_pods(&rig).await,
        [
            ("jupyter-active", "Running", false),
            ("jupyter-fresh", "Running", false),
            ("jupyter-gone", "Running", true),
            ("jupyter-idle", "Running", false),
            ("jupyter-mirror", "Running", false),
            ("jupyter-other", "Running", false),
            ("jupyter-slow", "Pending", false),
            ("jupyter-warm", "Running", false),
        ]
        .map(|(n, p, t)| (n.to_string(), p.to_string(), t))
    );
    assert_eq!(
        hub_active(&rig).await,
        ["active", "fresh", "idle", "mirror", "other", "slow", "warm"]
    );

    // `active` reports activity now; `idle` has had none for over 5 s at `--now`: the clock
    // is waited for, 6 s past the old activity.
    let idle_long_enough = crate::common::until(
        "6 s past the old activity",
        Duration::from_secs(10),
        Duration::from_millis(100),
        || std::future::ready(unix_now() >= t_old + 6.0),
    );
    assert!(idle_long_enough.await);
    let t_post = unix_now();
    rig.hub.post_activity("active", t_post).await;
    let now = iso(t_post + 1.0);
    let before = rig
        .plane
        .pod_requests(&status_user(&rig), &rig.namespace)
        .len();
    let run = status(reading, &["--json", "--now", &now], false);
    let report = run.json();
    assert_eq!(
        states(&report),
        [
            ("idle", "stale-idle"),
            ("active", "stale-active"),
            ("gone", "orphan"),
            ("fresh", "updated"),
            ("mirror", "updated"),
            ("warm", "mismatch"),
            ("other", "unknown"),
            ("slow", "pending"),
        ]
        .into_iter()
        .map(|(u, s)| (u.to_string(), s.to_string()))
        .collect::<BTreeMap<_, _>>(),
        "{}",
        run.stdout
    );
    // Counts: 7 servers the hub lists, 8 pods the API server holds (one the hub does not).
    assert_eq!(
        counts(&report),
        "running 7, updated 2, stale_idle 1, stale_active 1, pending 1, pending_stale 0, mismatch 1, orphans 1, unknown 1, converged false, evidence \"digest\""
    );
    // The table, whole: only the times (the hub's real clock) and the rig's addresses vary.
    let table = status(reading, &["--now", &now, "--include-names"], false);
    assert_eq!(table.code, 0, "{}", table.stderr);
    insta::assert_snapshot!(
        "every_bucket_table",
        stable(
            &rig,
            &format!("{}\n--- stderr\n{}", table.stdout, table.stderr),
            &[
                (&other_digest, "[other digest]"),
                (&new_digest, "[new digest]"),
                (&rig.first_digest, "[first digest]")
            ]
        )
    );
    // One request per run (8 pods: one page), the selector and page size sent to the server.
    rig.plane.audit_settled(&rig.namespace).await;
    let sent = rig.plane.pod_requests(&status_user(&rig), &rig.namespace);
    let selector = format!("labelSelector=component%3Dsingleuser-server%2Crelease%3D{RELEASE}");
    let list = (
        "list".to_string(),
        format!(
            "/api/v1/namespaces/{}/pods?{selector}&limit=500",
            rig.namespace
        ),
        200,
    );
    assert_eq!(sent[before..], [list.clone(), list], "{sent:?}");

    // To convergence: the pull completes (node-2 now holds the new digest), the stale and
    // mismatched servers are stopped through the hub (KubeSpawner deletes their pods), the
    // other image's user too, and the stranded pod is force-deleted (grace period 0).
    rig.kubelet.control(json!({"hold": []})).await;
    for user in ["idle", "active", "warm", "other"] {
        let (code, body) = rig
            .hub
            .send("DELETE", &format!("/users/{user}/server"), None)
            .await;
        assert!(code == 204 || code == 202, "stop {user}: {code} {body}");
    }
    let (code, body) = rig
        .admin(
            "DELETE",
            &format!("/api/v1/namespaces/{}/pods/jupyter-gone", rig.namespace),
            Some(json!({"apiVersion": "v1", "kind": "DeleteOptions", "gracePeriodSeconds": 0})),
        )
        .await;
    assert_eq!(code, 200, "{body}");
    let settled = rig
        .wait_for(
            "only fresh, mirror and slow run, all ready",
            Duration::from_secs(90),
            move || async move {
                single_user_pods(r).await.len() == 3 && r.hub.servers().await.len() == 3
            },
        )
        .await;
    assert!(
        settled,
        "{:?}\n{}",
        single_user_pods(&rig).await,
        rig.logs()
    );
    let last = status(reading, &["--json"], false).json();
    assert_eq!(
        (states(&last), &last["totals"]["converged"]),
        (
            [
                ("fresh", "updated"),
                ("mirror", "updated"),
                ("slow", "updated")
            ]
            .into_iter()
            .map(|(u, s)| (u.to_string(), s.to_string()))
            .collect(),
            &json!(true)
        )
    );
    assert_eq!(
        rig.pod("slow").await.unwrap()["status"]["containerStatuses"][0]["imageID"],
        rig.image_id(&new_digest).as_str()
    );
}

/// The audit log's user name of the doc's ServiceAccount in the rig's namespace.
fn status_user(rig: &Z2jh) -> String {
    format!("system:serviceaccount:{}:{STATUS_ACCOUNT}", rig.namespace)
}

/// `text` with the rig's variable parts named, and every time (ISO 8601, the hub's real
/// clock) and span derived from them replaced.
fn stable(rig: &Z2jh, text: &str, digests: &[(&str, &str)]) -> String {
    let mut parts = vec![
        (rig.registry.addr.as_str(), "[registry]"),
        (rig.namespace.as_str(), "[namespace]"),
    ];
    parts.extend_from_slice(digests);
    // Each digest also as the table and messages shorten it (`sha256:` and 12 hex digits).
    let short: Vec<(String, &str)> = digests
        .iter()
        .map(|(digest, name)| (digest.chars().take(19).collect(), *name))
        .collect();
    parts.extend(short.iter().map(|(digest, name)| (digest.as_str(), *name)));
    let text = scrub(text, &parts);
    let times = regex::Regex::new(
        r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z|\d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)?( UTC)?",
    )
    .unwrap();
    times.replace_all(&text, "[time]").into_owned()
}

const FAST_CULLER: HubSettings = HubSettings {
    timeout: 6,
    every: 2,
    max_age: 0,
    slow_stop_timeout: 1,
};

/// z2jh's default pull policy (unset: the API server makes it `Always` for `:latest`): servers
/// started before the release are stale; the real culler stops them (KubeSpawner deletes the
/// pods, the stand-in kubelet removes them) until `converged` is true with no pod left; a
/// server started then pulls the new digest and is updated.
#[tokio::test]
async fn the_culler_stops_the_stale_pods_until_converged() {
    let rig = reading_rig(FAST_CULLER).await;
    let kubeconfig = documented_status_account(&rig, &[]).await;
    rig.start_servers(&["s1", "s2"]).await;
    let pod = rig.pod("s1").await.unwrap();
    assert_eq!(
        pod["spec"]["containers"][0]["imagePullPolicy"], "Always",
        "the API server's default for :latest"
    );
    // The rig's admin kubeconfig works for the real kubectl (the runbook's tool).
    let kubectl = std::process::Command::new(repo_root().join(".venv/bin/kubectl"))
        .arg("--kubeconfig")
        .arg(rig.admin_kubeconfig())
        .args([
            "get",
            "pods",
            "-l",
            "component=singleuser-server,release=jhub",
        ])
        .args(["-o", "jsonpath={.items[*].metadata.name}"])
        .output()
        .expect("kubectl (scripts/test.sh installs it into .venv)");
    assert_eq!(
        String::from_utf8_lossy(&kubectl.stdout),
        "jupyter-s1 jupyter-s2",
        "{}",
        String::from_utf8_lossy(&kubectl.stderr)
    );
    let new_digest = rig.push("second");
    let released_at = iso(unix_now());
    let reading = Reading::new(&rig, FAST_CULLER, &kubeconfig, &released_at);
    let run = || status(reading, &["--json"], false).json();
    let first = run();
    assert_eq!(
        (&first["totals"]["stale"], &first["totals"]["converged"]),
        (&json!(2), &json!(false)),
        "{first}"
    );
    let converged = rig
        .wait_for("converged", Duration::from_secs(120), || async {
            run()["totals"]["converged"] == true
        })
        .await;
    assert!(converged, "{}", rig.logs());
    assert_eq!(
        single_user_pods(&rig).await,
        Vec::<(String, String, bool)>::new()
    );
    let after = run();
    assert_eq!(
        (&after["totals"]["running"], &after["totals"]["orphans"]),
        (&json!(0), &json!(0))
    );
    rig.start_servers(&["s3"]).await;
    let last = run();
    assert_eq!(
        (&last["totals"]["updated"], &last["totals"]["converged"]),
        (&json!(1), &json!(true)),
        "{last}"
    );
    assert_eq!(
        rig.pod("s3").await.unwrap()["status"]["containerStatuses"][0]["imageID"],
        rig.image_id(&new_digest).as_str()
    );
}

/// docs/status-kubernetes.md's RBAC, applied as written, with a TokenRequest token: `status`
/// reads the pods with exactly that. Without the RoleBinding, or with the Role and RoleBinding
/// in another namespace, the API server answers its real 403 and the run fails (exit 1) with
/// that answer: no report, every output empty, a summary saying what failed.
#[tokio::test]
async fn the_documented_rbac_is_enough_and_its_absence_is_the_api_servers_403() {
    let rig = reading_rig(STILL_CULLER).await;
    let (released_at, kubeconfig) = released_an_hour_ago(&rig, &["alice"]).await;
    let reading = Reading::new(&rig, STILL_CULLER, &kubeconfig, &released_at);
    until_allowed(&rig, true).await;
    let ok = status(reading, &["--json", "--include-names"], true);
    let report = ok.json();
    assert_eq!(
        (states(&report), &report["totals"]["evidence"]),
        (
            BTreeMap::from([("alice".to_string(), "updated".to_string())]),
            &json!("digest")
        )
    );

    // The RoleBinding deleted: the ServiceAccount and its token stay, RBAC denies.
    let ns = rig.namespace.clone();
    let (code, body) = rig
        .admin(
            "DELETE",
            &format!(
                "/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/rolebindings/{STATUS_ACCOUNT}"
            ),
            None,
        )
        .await;
    assert_eq!(code, 200, "{body}");
    until_allowed(&rig, false).await;
    let unbound = status(reading, &[], true);
    // The Role and RoleBinding applied in another namespace (`kubectl apply -n other`), the
    // ServiceAccount in the hub's.
    let other = rig.plane.namespace("other").await;
    let mut elsewhere: Vec<Value> = documented_rbac(&other)
        .into_iter()
        .filter(|o| matches!(o["kind"].as_str(), Some("Role" | "RoleBinding")))
        .collect();
    elsewhere[1]["subjects"][0]["namespace"] = json!(ns);
    rig.plane.create(&elsewhere).await;
    let bound_there = rig
        .wait_for(
            "the binding elsewhere is in force",
            Duration::from_secs(30),
            || {
                let (plane, ns, other) = (rig.plane, rig.namespace.clone(), other.clone());
                async move { allowed(plane, &ns, &other).await }
            },
        )
        .await;
    assert!(bound_there);
    assert!(!allowed(rig.plane, &ns, &ns).await);
    let misplaced = status(reading, &[], true);

    // The ServiceAccount token (a JWT of this run) and the forms `status` masks it in.
    use base64::Engine as _;
    let token = kubeconfig
        .lines()
        .find_map(|l| l.trim().strip_prefix("token: "))
        .unwrap()
        .to_string();
    let masked = [
        base64::engine::general_purpose::STANDARD.encode(&token),
        token.to_lowercase(),
        token.to_uppercase(),
    ];
    let parts = [
        (token.as_str(), "[token]"),
        (masked[0].as_str(), "[token base64]"),
        (masked[1].as_str(), "[token lower-case]"),
        (masked[2].as_str(), "[token upper-case]"),
        (rig.registry.addr.as_str(), "[registry]"),
        (ns.as_str(), "[namespace]"),
        (rig.plane.server.as_str(), "[api-server]"),
        (rig.hub.api.trim_end_matches("/hub/api"), "[hub]"),
    ];
    // Both read the same: the API server's words, the verb, resource and namespace, and the
    // Role and RoleBinding to create there.
    let shown: Vec<String> = [
        ("without the RoleBinding", &unbound),
        ("bound in another namespace", &misplaced),
    ]
    .into_iter()
    .map(|(name, run)| {
        assert_eq!(run.code, 1, "{name}: {}\n{}", run.stdout, run.stderr);
        // The outputs are declared and empty (nothing measured); the summary says why.
        let outputs = crate::common::parse_outputs(&run.outputs);
        assert!(
            outputs.len() >= 5 && outputs.values().all(String::is_empty),
            "{name}: {outputs:?}"
        );
        scrub(
            &format!(
                "--- stdout\n{}--- stderr\n{}--- summary\n{}",
                run.stdout, run.stderr, run.summary
            ),
            &parts,
        )
    })
    .collect();
    assert_eq!(shown[0], shown[1]);
    insta::assert_snapshot!("forbidden", shown[0]);
    // Each denial is the API server's own, in its audit log.
    rig.plane.audit_settled(&ns).await;
    let codes: Vec<u16> = rig
        .plane
        .pod_requests(&status_user(&rig), &ns)
        .into_iter()
        .map(|(verb, _, code)| {
            assert_eq!(verb, "list");
            code
        })
        .collect();
    assert_eq!(codes, [200, 403, 403]);
}

/// 1,200 pods beside the hub's two in the namespace, created through the API server with the
/// admin token and bound to a node of their own: 700 copies of a pod KubeSpawner made (another
/// user each, which the hub does not list: orphans) and 500 unrelated ones (another component
/// of the release, another release's servers); the stand-in kubelet runs them all. `status` lists ceil(702 / 500) = 2 pages
/// (unfiltered, 1,202 pods would be 3), each with the selector in the request: the server
/// applies it. Then an expired `continue` token: etcd compacted between the two pages (a proxy
/// in front of the API server does it when the second page is asked), the API server's real
/// `410 Gone`, and the listing restarted once, as documented.
#[tokio::test]
async fn status_pages_1200_pods_with_the_selector_and_survives_a_compaction() {
    let rig = reading_rig(STILL_CULLER).await;
    let (released_at, kubeconfig) = released_an_hour_ago(&rig, &["u1", "u2"]).await;
    let reading = Reading::new(&rig, STILL_CULLER, &kubeconfig, &released_at);
    let template = rig.pod("u1").await.unwrap();
    let r = &rig;

    // The pods, bound to a node of their own whose cache already holds the image (no pulls).
    rig.kubelet
        .control(json!({"cache": {"bulk": {rig.image.clone(): rig.first_digest.clone()}}}))
        .await;
    let pods: Vec<Value> = (0..1200)
        .map(|i| {
            let mut pod = json!({
                "apiVersion": "v1", "kind": "Pod",
                "metadata": {
                    "name": format!("bulk-{i}"), "namespace": rig.namespace,
                    "labels": template["metadata"]["labels"].clone(),
                    "annotations": template["metadata"]["annotations"].clone(),
                },
                "spec": template["spec"].clone(),
            });
            let user = format!("bulk-{i}");
            pod["metadata"]["labels"]["hub.jupyter.org/username"] = json!(user);
            pod["metadata"]["annotations"]["hub.jupyter.org/username"] = json!(user);
            pod["spec"]["nodeName"] = json!("bulk");
            pod["spec"]["containers"][0]["imagePullPolicy"] = json!("IfNotPresent");
            if i >= 700 {
                // Unrelated: another component of this release, or another release's server.
                let (key, value) = if i % 2 == 0 {
                    ("component", "dask-worker")
                } else {
                    ("release", "other")
                };
                pod["metadata"]["labels"][key] = json!(value);
                pod["spec"]["containers"][0]["ports"] = json!([]);
            }
            pod
        })
        .collect();
    let began = std::time::Instant::now();
    let plane = rig.plane;
    let path = collection_path(&pods[0]);
    for chunk in pods.chunks(40) {
        let sent = futures_join(
            chunk
                .iter()
                .map(|p| plane.admin("POST", &path, Some(p.clone())))
                .collect(),
        )
        .await;
        for (code, body) in sent {
            assert_eq!(code, 201, "{body}");
        }
    }
    let running = rig
        .wait_for(
            "1,202 pods run",
            Duration::from_secs(300),
            move || async move { running_pods(r).await == 1202 },
        )
        .await;
    assert!(running, "{}", rig.kubelet.log());
    eprintln!(
        "KUBETIME 1,200 pods created and running in {:.1} s",
        began.elapsed().as_secs_f64()
    );

    let before = rig
        .plane
        .pod_requests(&status_user(&rig), &rig.namespace)
        .len();
    let report = status(reading, &["--json"], false).json();
    assert_eq!(
        counts(&report),
        "running 2, updated 2, stale_idle 0, stale_active 0, pending 0, pending_stale 0, mismatch 0, orphans 700, unknown 0, converged false, evidence \"digest\""
    );
    rig.plane.audit_settled(&rig.namespace).await;
    let sent = rig.plane.pod_requests(&status_user(&rig), &rig.namespace);
    insta::assert_snapshot!("paging_1200_pods", requests_shown(&rig, &sent[before..]));

    // The continue token expired between the pages.
    let proxy = ApiProxy::start(&rig);
    let through = kubeconfig.replace(&rig.plane.server, &proxy.url());
    proxy.arm("compact-before-continue");
    let before = rig
        .plane
        .pod_requests(&status_user(&rig), &rig.namespace)
        .len();
    let report = status(
        Reading {
            kubeconfig: &through,
            ..reading
        },
        &["--json"],
        false,
    )
    .json();
    assert_eq!(report["totals"]["orphans"], 700);
    let compactions = proxy.compactions();
    assert_eq!(compactions.len(), 1);
    assert!(compactions[0].0, "the API server never expired the token");
    eprintln!(
        "KUBETIME the continue token expired {:.1} s after the compaction",
        compactions[0].1
    );
    rig.plane.audit_settled(&rig.namespace).await;
    let sent = rig.plane.pod_requests(&status_user(&rig), &rig.namespace);
    insta::assert_snapshot!(
        "paging_after_compaction",
        requests_shown(&rig, &sent[before..])
    );
}

/// How many pods of the rig's namespace run (the API server's field selector).
async fn running_pods(rig: &Z2jh) -> usize {
    let namespace = &rig.namespace;
    let running = "fieldSelector=status.phase%3DRunning";
    let path = format!("/api/v1/namespaces/{namespace}/pods?{running}");
    let (_, body) = rig.admin("GET", &path, None).await;
    body["items"].as_array().map_or(0, Vec::len)
}

/// The requests as lines `VERB URI CODE`, the namespace and continue tokens named.
fn requests_shown(rig: &Z2jh, sent: &[(String, String, u16)]) -> String {
    let token = regex::Regex::new(r"continue=[^&]+").unwrap();
    sent.iter()
        .map(|(verb, uri, code)| {
            let uri = token.replace_all(uri, "continue=[token]");
            format!(
                "{verb} {} {code}",
                uri.replace(&rig.namespace, "[namespace]")
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Awaits `futures` concurrently (on this task), in order.
async fn futures_join<F: std::future::Future>(futures: Vec<F>) -> Vec<F::Output> {
    let mut pinned: Vec<std::pin::Pin<Box<F>>> = futures.into_iter().map(Box::pin).collect();
    let mut out: Vec<Option<F::Output>> = (0..pinned.len()).map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (slot, fut) in out.iter_mut().zip(pinned.iter_mut()) {
            if slot.is_none() {
                match fut.as_mut().poll(cx) {
                    std::task::Poll::Ready(v) => *slot = Some(v),
                    std::task::Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            std::task::Poll::Pending
        } else {
            std::task::Poll::Ready(())
        }
    })
    .await;
    out.into_iter().map(Option::unwrap).collect()
}

/// tests/kube/api_proxy.py in front of the rig's API server, stopped by its PID on drop.
struct ApiProxy {
    child: std::process::Child,
    dir: tempfile::TempDir,
    port: u16,
}

impl ApiProxy {
    fn start(rig: &Z2jh) -> ApiProxy {
        let dir = tempfile::tempdir().unwrap();
        let token = dir.path().join("admin-token");
        std::fs::write(&token, crate::common::controlplane::ADMIN_TOKEN).unwrap();
        let p = &rig.plane.dir;
        let (ca, cert, key) = (p.join("ca.crt"), p.join("server.crt"), p.join("server.key"));
        let args: Vec<&std::ffi::OsStr> = vec![
            "--upstream".as_ref(),
            rig.plane.server.as_ref(),
            "--etcd".as_ref(),
            rig.plane.etcd.as_ref(),
            "--namespace".as_ref(),
            rig.namespace.as_ref(),
            "--ca".as_ref(),
            ca.as_ref(),
            "--cert".as_ref(),
            cert.as_ref(),
            "--key".as_ref(),
            key.as_ref(),
            "--admin-token-file".as_ref(),
            token.as_ref(),
            "--dir".as_ref(),
            dir.path().as_ref(),
        ];
        let child = start_script("api_proxy.py", &args, dir.path());
        let mut proxy = ApiProxy {
            child,
            dir,
            port: 0,
        };
        let (child, dir) = (&mut proxy.child, proxy.dir.path());
        let within = Duration::from_secs(30);
        proxy.port = until_started("the API proxy", child, dir, within, |d| {
            number_in(d, "port")
        });
        proxy
    }

    fn url(&self) -> String {
        format!("https://127.0.0.1:{}", self.port)
    }

    fn arm(&self, mode: &str) {
        std::fs::write(self.dir.path().join("mode"), mode).unwrap();
    }

    /// The compactions it made: whether the API server then answered the page 410, and after
    /// how many seconds.
    fn compactions(&self) -> Vec<(bool, f64)> {
        std::fs::read_to_string(self.dir.path().join("events.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|l| {
                let e: Value = serde_json::from_str(l).unwrap();
                (
                    e["expired"] == true,
                    e["seconds"].as_f64().unwrap_or_default(),
                )
            })
            .collect()
    }
}

impl Drop for ApiProxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn the_fake_speaks_what_the_official_client_reads() {
    let fake = FakeKube::start();
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
    assert_eq!(
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).trim()
        ),
        (Some(0), "ok 1203 3"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

const SLOW_CULLER: HubSettings = HubSettings {
    timeout: 600,
    every: 300,
    max_age: 0,
    slow_stop_timeout: 1,
};

/// Runs `status` against `base` (a hub of the stand-in rig) with the kubeconfig `kubeconfig`.
fn status_on_fake(
    base: &str,
    image: &str,
    kubeconfig: &str,
    args: &[&str],
) -> (i32, String, String) {
    let mut all = vec![
        "status",
        "--hub-url",
        base,
        "--hub-token",
        READER_TOKEN,
        "--released-at",
        "2026-01-01T00:00:00Z",
        "--image",
        image,
        "--kubeconfig",
        kubeconfig,
        "--namespace",
        "jhub",
        "--helm-release",
        "jhub",
        "--cull-timeout",
        "600",
        "--cull-every",
        "300",
    ];
    all.extend_from_slice(args);
    run_codeq(&all, &BTreeMap::new())
}

/// What no real API server sends, on the hand-written fake (tests/kube/fake_apiserver.py) with
/// the stand-in hub rig: kubeconfigs refused before anything is sent, an address that does
/// not answer, a server address carrying credentials, an answer dripped a byte at a time, plain
/// HTTP to a host outside loopback, a 200 that is not a pod list (a proxy's or dashboard's
/// page), a `continue` token that comes back.
#[tokio::test]
async fn status_refuses_what_no_api_server_sends_clearly() {
    let fake = FakeKube::start();
    let dir = tempfile::tempdir().unwrap();
    crate::common::registry::make_layout(dir.path(), "latest", "kube");
    let image = format!("oci:{}:latest", dir.path().display());
    let hub = crate::common::hub::Hub::start_with(SLOW_CULLER, &reader_config()).await;
    let base = hub.api.trim_end_matches("/hub/api").to_string();
    hub.set_kube(&fake.admin_url(), &[], "ghcr.io/org/lab@sha256:eeee");
    hub.start_servers(&["alice"]).await;
    let kubeconfig = fake.kubeconfig();
    let exits = |want: i32, kubeconfig: &str, args: &[&str], words: &[&str]| {
        let (code, stdout, stderr) = status_on_fake(&base, &image, kubeconfig, args);
        assert_eq!(code, want, "{stdout}\n{stderr}");
        for w in words {
            assert!(stderr.contains(w), "{w:?} not in {stderr}");
        }
        assert!(!stderr.contains(TOKEN), "{stderr}");
        stderr
    };
    // A kubeconfig that cannot work is bad input (exit 2), refused before the hub is read.
    let exec = kubeconfig.replace(
        &format!("      token: {TOKEN}\n"),
        "      exec:\n        apiVersion: client.authentication.k8s.io/v1beta1\n        command: gke-gcloud-auth-plugin\n",
    );
    exits(
        2,
        &exec,
        &[],
        &[
            "needs the credential plugin \"gke-gcloud-auth-plugin\"",
            "no credential plugins",
            "token: TOKEN",
        ],
    );
    exits(
        2,
        &kubeconfig.replace("current-context: hub\n", ""),
        &[],
        &[
            "the kubeconfig (--kubeconfig's content) is not usable",
            "failed to determine current context",
        ],
    );
    exits(
        2,
        &kubeconfig.replace("current-context: hub\n", "current-context: prod\n"),
        &[],
        &["it has no context \"prod\""],
    );
    exits(
        2,
        "clusters: [ nope\n", // content spans lines; one line is a path
        &[],
        &["the kubeconfig (--kubeconfig's content) is not usable"],
    );
    assert_eq!(
        fake.requests().len(),
        0,
        "nothing sent with a kubeconfig refused"
    );
    exits(
        1,
        &fake.kubeconfig_at(&format!("https://127.0.0.1:{}", free_port()), TOKEN),
        &[],
        &["cannot read pods from the Kubernetes API server"],
    );
    // A certificate no CA the kubeconfig names signed: kubectl's words for it, rustls' not.
    let other_ca = tempfile::tempdir().unwrap();
    crate::common::registry::certificates(other_ca.path(), "subjectAltName=IP:127.0.0.1");
    let ca = std::fs::read(other_ca.path().join("ca.crt")).unwrap();
    let server = format!("https://127.0.0.1:{}", fake.api);
    let untrusted = crate::common::controlplane::kubeconfig_for(&server, &ca, "ci", TOKEN, "jhub");
    let stderr = exits(1, &untrusted, &[], &[]);
    assert!(!stderr.contains("UnknownIssuer"), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "error: TLS failure talking to the Kubernetes API server {server}/: the certificate's issuer is unknown\nhelp: its certificate is signed by no CA trusted here: the kubeconfig's certificate-authority-data (or certificate-authority), else the system's roots; give the cluster's CA there (kubectl config view --raw --minify shows the one kubectl trusts)\n"
        )),
        "{stderr}"
    );
    // A server address carrying credentials is shown without them.
    fake.fault(Some("unauthorized"));
    let port = fake.api;
    let with_password = fake.kubeconfig_at(
        &format!("https://admin:SuperSecretPw@127.0.0.1:{port}/?token=SecretQuery"),
        TOKEN,
    );
    let stderr = exits(
        1,
        &with_password,
        &[],
        &[&format!(
            "the Kubernetes API server https://127.0.0.1:{port}/ answered 401"
        )],
    );
    assert!(
        !stderr.contains("SuperSecretPw") && !stderr.contains("SecretQuery"),
        "{stderr}"
    );
    fake.fault(None);
    // A server that drips its answer is cut at kube-timeout, which bounds each request whole.
    let drip = DripServer::start();
    let stderr = exits(
        1,
        &fake.kubeconfig_at(&format!("http://127.0.0.1:{}", drip.port), TOKEN),
        &["--kube-timeout", "2s"],
        &["did not answer within kube-timeout (2s)"],
    );
    drop(drip);
    // Loopback over plain HTTP is no warning; an API server elsewhere over plain HTTP is,
    // before the token is sent (TEST-NET-1: nothing answers there).
    assert!(!stderr.contains("is plain http://"), "{stderr}");
    exits(
        1,
        &fake.kubeconfig_at("http://192.0.2.1:8080", TOKEN),
        &["--kube-timeout", "1s"],
        &[
            "kubeconfig http://192.0.2.1:8080/ is plain http:// to a host outside loopback, private networks and the cluster\nhelp: its user's token or password is sent unencrypted to it: use https://",
        ],
    );
    // A 200 that is not a pod list is refused, never read as "no pods".
    fake.fault(Some("not-a-pod-list"));
    exits(
        1,
        &kubeconfig,
        &[],
        &[
            "answered with something that is not a pod list\ncaused by: its kind is \"Status\"\nhelp: check",
            "not a proxy, dashboard or load balancer page",
        ],
    );
    // A continue token that comes back ends the listing with an error, at the second page.
    fake.fault(Some("endless-continue"));
    let before = fake.requests().len();
    exits(
        1,
        &kubeconfig,
        &[],
        &["kept paging the pods: 2 pages without an end"],
    );
    assert_eq!(fake.requests().len() - before, 2);
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
        use std::time::Instant;
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
