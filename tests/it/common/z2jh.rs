//! The real z2jh stack for tests: the real JupyterHub rig ([`super::hub`], JupyterHub 6.1.1,
//! configurable-http-proxy, jupyterhub-idle-culler) whose spawner is real KubeSpawner 7.1.0,
//! configured as Zero to JupyterHub configures it, spawning into the real control plane
//! ([`super::controlplane`]) in a namespace of its own; the image comes from a real registry
//! ([`super::registry`]) by tag; a kubelet stand-in (`tests/kube/kubelet.py`, the only
//! simulated part: its header says what it simulates and what not) binds, "pulls", runs and
//! removes the pods.
//!
//! KubeSpawner talks to the API server as z2jh's hub does: as the ServiceAccount `hub` of the
//! namespace, bound to z2jh's hub Role ([`HUB_ROLE`]), with a token from TokenRequest in a
//! kubeconfig (`KUBECONFIG` in the hub's environment; a hub pod would read its mounted token).
//! The kubelet stand-in and the tests' set-up use the admin token.
//!
//! Use: [`Z2jh::start`] with the hub's culler settings and the pull policy the test chooses;
//! [`Z2jh::start_servers`] for N users (bounded wait until ready); [`Z2jh::admin_kubeconfig`]
//! and [`Z2jh::kubeconfig_for_account`] write kubeconfig files (for `kubectl`, in `.venv/bin`,
//! or `status`); [`Z2jh::push`] moves `:latest` to a new image; [`Kubelet::control`] places,
//! holds or strands pods. Dropping the rig stops the hub (and its proxy and culler), the
//! kubelet stand-in with every stand-in server, and the registry, each by its PID.

use super::controlplane::{ADMIN_TOKEN, Answer, ControlPlane};
use super::hub::{Hub, HubSettings};
use super::registry::{Registry, make_layout, repo_root};
use super::{number_in, until_started};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The Helm release of the rig's hub (the pods' `release` label).
pub const RELEASE: &str = "jhub";
/// The repository and tag the hub's image is pushed to and spawned by.
pub const REPO_TAG: &str = "org/lab:latest";

/// z2jh's hub Role (chart `templates/hub/rbac.yaml`): what KubeSpawner needs in its namespace.
pub const HUB_ROLE: &str = r#"{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
  "metadata": {"name": "hub"},
  "rules": [
    {"apiGroups": [""], "resources": ["pods", "persistentvolumeclaims", "secrets", "services"],
     "verbs": ["get", "watch", "list", "create", "delete"]},
    {"apiGroups": [""], "resources": ["events"], "verbs": ["get", "watch", "list"]}
  ]}"#;

/// How a rig starts.
#[derive(Debug, Clone, Copy)]
pub struct Z2jhSettings {
    /// The culler's and the hub's settings.
    pub hub: HubSettings,
    /// `singleuser.image.pullPolicy` (`c.KubeSpawner.image_pull_policy`); `None` leaves it
    /// unset, as z2jh's default does (the API server then defaults `:latest` to `Always`).
    pub pull_policy: Option<&'static str>,
}

/// A running z2jh stack (see the module doc).
pub struct Z2jh {
    /// The hub (field order = drop order: the hub stops its servers' pods' owner first).
    pub hub: Hub,
    /// The kubelet stand-in.
    pub kubelet: Kubelet,
    /// The registry serving [`REPO_TAG`].
    pub registry: Registry,
    /// The control plane (shared by the test process).
    pub plane: &'static ControlPlane,
    /// The namespace the hub spawns into.
    pub namespace: String,
    /// The image by tag, `127.0.0.1:PORT/org/lab:latest`.
    pub image: String,
    /// The index digest `:latest` pointed to when the rig started.
    pub first_digest: String,
    dir: tempfile::TempDir,
}

impl Z2jh {
    /// Starts the stack: a namespace, the hub's ServiceAccount and Role, a registry holding a
    /// first image at `:latest`, the kubelet stand-in, and the hub with KubeSpawner and `extra`
    /// appended to its config (Python, `c` is the config).
    pub async fn start(settings: Z2jhSettings, extra: &str) -> Z2jh {
        let plane = ControlPlane::shared();
        let namespace = plane.namespace("z2jh").await;
        let dir = tempfile::tempdir().unwrap();
        let registry = Registry::start();
        let image = registry.reference(REPO_TAG);
        let first_digest = push(&registry, "first");

        // The hub's identity, as z2jh's chart makes it.
        let mut role: Value = serde_json::from_str(HUB_ROLE).unwrap();
        role["metadata"]["namespace"] = json!(namespace);
        plane
            .create(&[
                json!({"apiVersion": "v1", "kind": "ServiceAccount",
                       "metadata": {"name": "hub", "namespace": namespace}}),
                role,
                json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
                       "metadata": {"name": "hub", "namespace": namespace},
                       "subjects": [{"kind": "ServiceAccount", "name": "hub", "namespace": namespace}],
                       "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "hub"}}),
            ])
            .await;
        let hub_token = plane.token_for(&namespace, "hub").await;
        let hub_kubeconfig = dir.path().join("hub.kubeconfig");
        std::fs::write(
            &hub_kubeconfig,
            plane.kubeconfig("hub", &hub_token, &namespace),
        )
        .unwrap();

        let kubelet = Kubelet::start(plane, &namespace, &registry.addr);
        let policy = settings
            .pull_policy
            .map(|p| format!("c.KubeSpawner.image_pull_policy = {p:?}\n"))
            .unwrap_or_default();
        let config = format!(
            r#"
# KubeSpawner as Zero to JupyterHub 4.x configures it (jupyterhub_config.py of the chart).
c.JupyterHub.spawner_class = "kubespawner.KubeSpawner"
c.KubeSpawner.namespace = {namespace:?}
c.KubeSpawner.image = {image:?}
{policy}c.KubeSpawner.common_labels = {{
    "app": "jupyterhub", "app.kubernetes.io/name": "jupyterhub",
    "release": {RELEASE:?}, "app.kubernetes.io/instance": {RELEASE:?},
    "chart": "jupyterhub-4.3.1", "helm.sh/chart": "jupyterhub-4.3.1",
    "heritage": "Helm", "app.kubernetes.io/managed-by": "kubespawner",
}}
c.KubeSpawner.extra_labels = {{"hub.jupyter.org/network-access-hub": "true"}}
c.KubeSpawner.cmd = ["jupyterhub-singleuser"]
c.KubeSpawner.uid = 1000
c.KubeSpawner.fs_gid = 100
c.KubeSpawner.start_timeout = 60
c.KubeSpawner.http_timeout = 30
# Seconds, not z2jh's minutes: the kubelet stand-in removes a deleted pod at once, and a pod
# left behind (a lost node) should fail its stop within a test's time.
c.KubeSpawner.delete_grace_period = 1
c.KubeSpawner.k8s_api_request_timeout = 10
c.KubeSpawner.k8s_api_request_retry_timeout = 30
{extra}
"#
        );
        let env = [(
            "KUBECONFIG".to_string(),
            hub_kubeconfig.display().to_string(),
        )];
        let hub = Hub::start_with_env(settings.hub, &config, &env).await;
        Z2jh {
            hub,
            kubelet,
            registry,
            plane,
            namespace,
            image,
            first_digest,
            dir,
        }
    }

    /// [`Z2jh::start`], then a running server for each of `users` (bounded wait until the hub
    /// reports them ready): the stack the break-glass runbook acts on.
    pub async fn start_with_users(settings: Z2jhSettings, extra: &str, users: &[&str]) -> Z2jh {
        let rig = Self::start(settings, extra).await;
        rig.start_servers(users).await;
        rig
    }

    /// Pushes a new image (`variant` makes its content, so its digest) to `:latest`; its
    /// index digest.
    pub fn push(&self, variant: &str) -> String {
        push(&self.registry, variant)
    }

    /// `<registry>/org/lab@DIGEST`, the `imageID` containerd reports for `digest`.
    pub fn image_id(&self, digest: &str) -> String {
        format!("{}/org/lab@{digest}", self.registry.addr)
    }

    /// Creates `users` and starts a server for each through the hub (so KubeSpawner creates
    /// their pods), waiting (bounded) until the hub reports them ready.
    pub async fn start_servers(&self, users: &[&str]) {
        self.hub.start_servers(users).await;
    }

    /// The namespace's pods (admin).
    pub async fn pods(&self) -> Vec<Value> {
        let (code, body) = self
            .plane
            .admin(
                "GET",
                &format!("/api/v1/namespaces/{}/pods", self.namespace),
                None,
            )
            .await;
        assert_eq!(code, 200, "{body}");
        body["items"].as_array().cloned().unwrap_or_default()
    }

    /// The pod KubeSpawner made for `user`'s default server (`jupyter-USER`).
    pub async fn pod(&self, user: &str) -> Option<Value> {
        let name = format!("jupyter-{user}");
        let pods = self.pods().await;
        pods.into_iter()
            .find(|p| p["metadata"]["name"] == name.as_str())
    }

    /// An admin request (see [`ControlPlane::admin`]).
    pub async fn admin(&self, method: &str, path: &str, body: Option<Value>) -> Answer {
        self.plane.admin(method, path, body).await
    }

    /// Writes a kubeconfig file for the admin (group `system:masters`), context namespace the
    /// rig's; its path. For `kubectl --kubeconfig` or `KUBECONFIG`.
    pub fn admin_kubeconfig(&self) -> PathBuf {
        let path = self.dir.path().join("admin.kubeconfig");
        std::fs::write(
            &path,
            self.plane
                .kubeconfig("codeq-admin", ADMIN_TOKEN, &self.namespace),
        )
        .unwrap();
        path
    }

    /// Writes a kubeconfig file for the ServiceAccount `account` of the rig's namespace, with
    /// a token from TokenRequest; its path and content.
    pub async fn kubeconfig_for_account(&self, account: &str) -> (PathBuf, String) {
        let token = self.plane.token_for(&self.namespace, account).await;
        let content = self.plane.kubeconfig(account, &token, &self.namespace);
        let path = self.dir.path().join(format!("{account}.kubeconfig"));
        std::fs::write(&path, &content).unwrap();
        (path, content)
    }

    /// Polls `cond` every 200 ms until it holds or `within` passed; whether it held. (`cond`
    /// captures what it reads: `let rig = &rig; move || async move { ... }`.)
    pub async fn wait_for<F, Fut>(&self, what: &str, within: Duration, cond: F) -> bool
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = bool>,
    {
        super::until(what, within, Duration::from_millis(200), cond).await
    }

    /// The hub's, the kubelet stand-in's and the API server's logs, for a failure message.
    pub fn logs(&self) -> String {
        format!(
            "--- hub\n{}\n--- kubelet stand-in\n{}",
            self.hub.log(),
            self.kubelet.log()
        )
    }
}

/// Writes a multi-arch OCI layout of `variant` and pushes it to [`REPO_TAG`]; its index digest.
fn push(registry: &Registry, variant: &str) -> String {
    let layout = tempfile::tempdir().unwrap();
    let digest = make_layout(layout.path(), "latest", variant);
    registry.push_layout(layout.path(), "latest", REPO_TAG, &["--preserve-digests"]);
    digest
}

/// The kubelet stand-in (`tests/kube/kubelet.py`) for one namespace, in a process group of its
/// own, stopped by its PID when dropped (its stand-in servers live in that process).
pub struct Kubelet {
    child: Child,
    dir: tempfile::TempDir,
    port: u16,
    client: reqwest::Client,
}

impl Kubelet {
    /// Starts the stand-in for `namespace`, reaching the registry at `registry` over plain
    /// HTTP, and waits (bounded, 60 s) until it lists and watches.
    pub fn start(plane: &ControlPlane, namespace: &str, registry: &str) -> Kubelet {
        use std::os::unix::process::CommandExt;
        let dir = tempfile::tempdir().unwrap();
        let token = dir.path().join("token");
        std::fs::write(&token, ADMIN_TOKEN).unwrap();
        let log = std::fs::File::create(dir.path().join("log")).unwrap();
        let mut cmd = Command::new(repo_root().join(".venv/bin/python"));
        // Also killed if the test process dies before this is dropped.
        super::controlplane::die_with_parent(&mut cmd);
        let child = cmd
            .arg(repo_root().join("tests/kube/kubelet.py"))
            .args(["--api", &plane.server, "--namespace", namespace])
            .arg("--ca")
            .arg(plane.ca_file())
            .arg("--token-file")
            .arg(&token)
            .arg("--dir")
            .arg(dir.path())
            .args(["--plain-http-registry", registry])
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .process_group(0)
            .spawn()
            .expect("start the kubelet stand-in (.venv: scripts/test.sh installs it)");
        let mut kubelet = Kubelet {
            child,
            dir,
            port: 0,
            client: reqwest::Client::builder().no_proxy().build().unwrap(),
        };
        let (child, dir) = (&mut kubelet.child, kubelet.dir.path());
        let within = Duration::from_secs(60);
        kubelet.port = until_started("the kubelet stand-in", child, dir, within, |d| {
            number_in(d, "port")
        });
        kubelet
    }

    /// Sets what the stand-in does (see its header): `{"nodes": {USER: NODE}, "hold": [USER],
    /// "stuck": [USER], "platform": {USER: DIGEST}, "cache": {NODE: {IMAGE: DIGEST}}}`, each
    /// key given replacing that setting (`cache` merged).
    pub async fn control(&self, settings: Value) {
        let resp = self
            .client
            .post(format!("http://127.0.0.1:{}/control", self.port))
            .json(&settings)
            .send()
            .await
            .expect("the kubelet stand-in's control");
        assert_eq!(resp.status().as_u16(), 200);
    }

    /// What the stand-in holds: node caches, running pods, every pull.
    pub async fn state(&self) -> Value {
        let resp = self
            .client
            .get(format!("http://127.0.0.1:{}/state", self.port))
            .send()
            .await
            .expect("the kubelet stand-in's state");
        serde_json::from_slice(&resp.bytes().await.unwrap()).unwrap()
    }

    /// Its acts so far (`DIR/events.jsonl`), one JSON object each.
    pub fn events(&self) -> Vec<Value> {
        std::fs::read_to_string(self.dir.path().join("events.jsonl"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }

    /// Its log (stderr) and events.
    pub fn log(&self) -> String {
        let log = std::fs::read_to_string(self.dir.path().join("log")).unwrap_or_default();
        let events =
            std::fs::read_to_string(self.dir.path().join("events.jsonl")).unwrap_or_default();
        format!("{log}\n{events}")
    }
}

impl Drop for Kubelet {
    fn drop(&mut self) {
        let pgid = self.child.id() as libc::pid_t;
        // SAFETY: kill(2) on the process group our unreaped child leads.
        unsafe { libc::kill(-pgid, libc::SIGTERM) };
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline && matches!(self.child.try_wait(), Ok(None)) {
            std::thread::park_timeout(Duration::from_millis(20));
        }
        // SAFETY: as above; the group is gone once its leader is reaped, so this comes first.
        unsafe { libc::kill(-pgid, libc::SIGKILL) };
        let _ = self.child.wait();
    }
}
