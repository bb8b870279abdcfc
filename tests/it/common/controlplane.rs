//! A real Kubernetes control plane for the tests: `etcd` and `kube-apiserver`, built from Go
//! modules by `scripts/build-kube` (pinned in `tests/kube/controlplane/go.mod`) into
//! `${XDG_CACHE_HOME:-$HOME/.cache}/codeq-rollout/kube/<kubernetes>-<etcd>/`, or the directory
//! `CODEQ_KUBE_BIN` names.
//!
//! Started as controller-runtime's envtest starts them, on loopback: etcd with
//! `--unsafe-no-fsync` and a temp data dir; the API server over TLS with a CA made here (the
//! serving certificate names 127.0.0.1; `--client-ca-file`), `--authorization-mode=RBAC`, an
//! admin token (`--token-auth-file`, group `system:masters`) for the rig, ServiceAccount signing
//! keys so that TokenRequest (`POST .../serviceaccounts/NAME/token`) issues real tokens, and an
//! audit log of every `pods` request (`--audit-log-path`, [`ControlPlane::audit`]): the honest
//! count of what a client sent, with its user, query and answer. No kubelet, scheduler or
//! controllers run: the kubelet stand-in (`tests/kube/kubelet.py`, [`super::z2jh`]) plays them.
//!
//! One control plane per test process ([`ControlPlane::shared`]), started on first use (a
//! start costs seconds); each test takes a fresh namespace ([`ControlPlane::namespace`]).
//! Statics are never dropped, so the processes are stopped by their PIDs in two ways:
//! - at a normal end of the test process (libtest returns from `main` or calls `exit`, with
//!   tests passed or failed): an `atexit` handler sends SIGTERM, waits (bounded), SIGKILLs, reaps
//!   both and removes the temp dir;
//! - when the test process dies without running it (SIGKILL, abort): both were started with
//!   `PR_SET_PDEATHSIG` = SIGKILL from a keeper thread that never ends, so the kernel kills them
//!   when the test process goes (the signal follows the thread that forked them: a test's own
//!   thread would end with its test). Their temp dir (`codeq-kube-<pid>` in the temp
//!   directory) is then removed by the next start, once its PID is gone.

use super::registry::{free_port, openssl};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The version directory `scripts/build-kube` builds into (its cache key).
fn versions() -> String {
    let go_mod = std::fs::read_to_string(super::repo_root().join("tests/kube/controlplane/go.mod"))
        .expect("tests/kube/controlplane/go.mod");
    let version = |module: &str| {
        go_mod
            .lines()
            .map(str::split_whitespace)
            .find_map(|mut words| {
                (words.next() == Some(module)).then(|| words.next().map(str::to_string))
            })
            .flatten()
            .and_then(|v| v.strip_prefix('v').map(str::to_string))
            .unwrap_or_else(|| panic!("{module} not required in go.mod"))
    };
    format!(
        "{}-{}",
        version("k8s.io/kubernetes"),
        version("go.etcd.io/etcd/server/v3")
    )
}

/// Where the binaries are: `CODEQ_KUBE_BIN`, else the cache `scripts/build-kube` fills.
pub fn bin_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("CODEQ_KUBE_BIN") {
        return PathBuf::from(dir);
    }
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").expect("HOME")).join(".cache"));
    cache.join("codeq-rollout/kube").join(versions())
}

fn binary(name: &str) -> PathBuf {
    let p = bin_dir().join(name);
    assert!(
        p.exists(),
        "{} is missing: run scripts/build-kube (scripts/test.sh does), which builds the test \
         control plane from Go modules once per machine (10 to 30 minutes the first time)",
        p.display()
    );
    p
}

/// The admin token of the rig (`--token-auth-file`, user `codeq-admin`, group `system:masters`).
pub const ADMIN_TOKEN: &str = "codeq-test-admin-token-0123456789abcdef";

/// A running etcd and kube-apiserver.
pub struct ControlPlane {
    /// Certificates, keys, the token file, the audit log, etcd's data.
    pub dir: PathBuf,
    /// The API server, `https://127.0.0.1:PORT`.
    pub server: String,
    /// etcd's client URL, `http://127.0.0.1:PORT` (its v3 HTTP gateway answers there too).
    pub etcd: String,
    /// The CA certificate (PEM) of the API server's serving certificate.
    pub ca_pem: Vec<u8>,
    client: reqwest::Client,
    children: Mutex<Vec<Child>>,
}

static SHARED: OnceLock<ControlPlane> = OnceLock::new();
static NAMESPACES: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// The answer of one API request: its status code and JSON body (`Value::Null` when none).
pub type Answer = (u16, Value);

impl ControlPlane {
    /// The control plane of this test process, started on first use (bounded: 3 minutes).
    pub fn shared() -> &'static ControlPlane {
        SHARED.get_or_init(|| {
            let (tx, rx) = std::sync::mpsc::channel();
            std::thread::Builder::new()
                .name("controlplane-keeper".into())
                .spawn(move || {
                    let started = std::panic::catch_unwind(start);
                    let _ = tx.send(started);
                    // Never ends: PR_SET_PDEATHSIG follows this thread (see the module doc).
                    loop {
                        std::thread::park();
                    }
                })
                .unwrap();
            let plane = match rx.recv().expect("the keeper thread answers") {
                Ok(plane) => plane,
                Err(panic) => std::panic::resume_unwind(panic),
            };
            // SAFETY: registers a plain extern "C" function with no arguments.
            unsafe { libc::atexit(stop_shared) };
            plane
        })
    }

    /// A fresh namespace, `PREFIX-N` (a deleted one never finishes terminating here, so each
    /// test takes its own).
    pub async fn namespace(&self, prefix: &str) -> String {
        let n = NAMESPACES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let name = format!("{prefix}-{}-{n}", std::process::id());
        let (code, body) = self
            .admin(
                "POST",
                "/api/v1/namespaces",
                Some(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})),
            )
            .await;
        assert_eq!(code, 201, "create namespace {name}: {body}");
        name
    }

    /// One request with the admin token; JSON body in and out.
    pub async fn admin(&self, method: &str, path: &str, body: Option<Value>) -> Answer {
        self.request(ADMIN_TOKEN, method, path, body, "application/json")
            .await
    }

    /// One request with `token` (`content_type` for the body: a patch names its kind).
    pub async fn request(
        &self,
        token: &str,
        method: &str,
        path: &str,
        body: Option<Value>,
        content_type: &str,
    ) -> Answer {
        let req = self
            .client
            .request(method.parse().unwrap(), format!("{}{path}", self.server))
            .bearer_auth(token);
        super::send_json(req, (method, path), body, content_type).await
    }

    /// Creates `objects` (a `kind` each: Namespace-scoped core, RBAC or any `apiVersion`
    /// whose plural is the lower-cased kind + `s`) with the admin token; panics unless each
    /// answers 201.
    pub async fn create(&self, objects: &[Value]) {
        for object in objects {
            let path = collection_path(object);
            let (code, body) = self.admin("POST", &path, Some(object.clone())).await;
            assert_eq!(code, 201, "create {path}: {body}");
        }
    }

    /// A real ServiceAccount token for `namespace/account` from the API server's TokenRequest
    /// (valid one hour).
    pub async fn token_for(&self, namespace: &str, account: &str) -> String {
        let (code, body) = self
            .admin(
                "POST",
                &format!("/api/v1/namespaces/{namespace}/serviceaccounts/{account}/token"),
                Some(json!({
                    "apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
                    "spec": {"expirationSeconds": 3600},
                })),
            )
            .await;
        assert_eq!(code, 201, "TokenRequest for {namespace}/{account}: {body}");
        body["status"]["token"].as_str().unwrap().to_string()
    }

    /// A kubeconfig as docs/status-kubernetes.md shows it: this server, its CA inline, the
    /// user `user` with `token`, the context's namespace `namespace`.
    pub fn kubeconfig(&self, user: &str, token: &str, namespace: &str) -> String {
        kubeconfig_for(&self.server, &self.ca_pem, user, token, namespace)
    }

    /// The CA certificate's file.
    pub fn ca_file(&self) -> PathBuf {
        self.dir.join("ca.crt")
    }

    /// The audit log so far, one JSON event per `pods` request (stage `ResponseComplete`).
    /// Call [`ControlPlane::audit_settled`] first to be sure it holds every request that was
    /// answered before.
    pub fn audit(&self) -> Vec<Value> {
        std::fs::read_to_string(self.dir.join("audit.log"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|e| e["stage"] == "ResponseComplete")
            .collect()
    }

    /// Waits (bounded, 30 s) until the audit log holds every request answered before this
    /// call: the API server writes an event after its handler returns, so the client may
    /// have its answer before the event is written. Two marker requests are sent, one after
    /// the other, each waited for in the log: by the time the second is there, an earlier
    /// request has had the whole first round trip to be written.
    pub async fn audit_settled(&self, namespace: &str) {
        for _ in 0..2 {
            let marker = format!("codeq-audit-marker={}", free_port());
            let path = format!("/api/v1/namespaces/{namespace}/pods?labelSelector={marker}");
            let (code, body) = self.admin("GET", &path, None).await;
            assert_eq!(code, 200, "{body}");
            let marked = |e: &Value| {
                e["requestURI"]
                    .as_str()
                    .is_some_and(|u| u.contains(&marker))
            };
            let shown = super::until(
                "the audit log's marker",
                Duration::from_secs(30),
                Duration::from_millis(50),
                || std::future::ready(self.audit().iter().any(marked)),
            );
            assert!(
                shown.await,
                "the audit log did not show {marker} within 30 s"
            );
        }
    }

    /// The `pods` requests `user` sent in `namespace` as the audit log holds them (markers
    /// left out): `(verb, requestURI, response code)`.
    pub fn pod_requests(&self, user: &str, namespace: &str) -> Vec<(String, String, u16)> {
        self.audit()
            .iter()
            .filter(|e| e["user"]["username"] == user && e["objectRef"]["namespace"] == namespace)
            .filter(|e| {
                !e["requestURI"]
                    .as_str()
                    .unwrap_or_default()
                    .contains("codeq-audit-marker")
            })
            .map(|e| {
                (
                    e["verb"].as_str().unwrap_or_default().to_string(),
                    e["requestURI"].as_str().unwrap_or_default().to_string(),
                    e["responseStatus"]["code"].as_u64().unwrap_or_default() as u16,
                )
            })
            .collect()
    }

    /// etcd's current revision (its v3 HTTP gateway).
    pub async fn etcd_revision(&self) -> i64 {
        let v = self
            .etcd_call("/v3/kv/range", json!({"key": "AA==", "limit": 1}))
            .await;
        v["header"]["revision"]
            .as_str()
            .and_then(|r| r.parse().ok())
            .unwrap_or_else(|| panic!("etcd range answer: {v}"))
    }

    /// Compacts etcd's history up to its current revision (what the API server's compactor
    /// does every `--etcd-compaction-interval`, 5 minutes by default): every `continue`
    /// token of a list made before now expires. Returns the revision compacted to.
    pub async fn compact_etcd(&self) -> i64 {
        let revision = self.etcd_revision().await;
        let v = self
            .etcd_call(
                "/v3/kv/compaction",
                json!({"revision": revision.to_string(), "physical": true}),
            )
            .await;
        assert!(v.get("header").is_some(), "etcd compaction answer: {v}");
        revision
    }

    async fn etcd_call(&self, path: &str, body: Value) -> Value {
        let resp = reqwest::Client::builder()
            .no_proxy()
            .build()
            .unwrap()
            .post(format!("{}{path}", self.etcd))
            .json(&body)
            .send()
            .await
            .unwrap_or_else(|e| panic!("etcd {path}: {e}"));
        serde_json::from_slice(&resp.bytes().await.unwrap()).unwrap_or(Value::Null)
    }
}

/// The objects of the first YAML block in the section `heading` (`## heading`) of the
/// repository's `doc`, as written, with the namespace `jhub` replaced by `namespace` wherever
/// an object names one (as a reader replaces it with the hub's).
pub fn documented_objects(doc: &str, heading: &str, namespace: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(super::registry::repo_root().join(doc)).unwrap();
    let section = (text.split(&format!("## {heading}")).nth(1))
        .and_then(|s| s.split("\n## ").next())
        .unwrap_or_else(|| panic!("{doc} has {heading:?}"));
    let yaml = (section.split("```yaml\n").nth(1))
        .and_then(|b| b.split("\n```").next())
        .unwrap_or_else(|| panic!("a yaml block under {heading:?} in {doc}"));
    yaml.split("\n---\n")
        .map(|text| {
            let mut object: Value = serde_saphyr::from_str(text)
                .unwrap_or_else(|e| panic!("the YAML of {doc}: {e}\n{text}"));
            retarget(&mut object, "jhub", namespace);
            object
        })
        .collect()
}

/// Replaces the namespace `from` by `to` wherever an object names one.
fn retarget(object: &mut Value, from: &str, to: &str) {
    match object {
        Value::Object(map) => {
            for (key, value) in map.iter_mut() {
                if key == "namespace" && value == from {
                    *value = json!(to);
                } else {
                    retarget(value, from, to);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| retarget(v, from, to)),
        _ => {}
    }
}

/// The kinds of `objects`, in order.
pub fn kinds(objects: &[Value]) -> Vec<&str> {
    objects
        .iter()
        .map(|o| o["kind"].as_str().unwrap())
        .collect()
}

impl ControlPlane {
    /// Whether the API server allows `verb` on pods in `namespace` to the ServiceAccount
    /// `account` of `account_namespace` (a SubjectAccessReview: the authorizer's own answer;
    /// RBAC reads its objects through informers, so a new binding takes effect a moment
    /// later).
    pub async fn allows(
        &self,
        account_namespace: &str,
        account: &str,
        namespace: &str,
        verb: &str,
    ) -> bool {
        let (code, body) = self
            .admin(
                "POST",
                "/apis/authorization.k8s.io/v1/subjectaccessreviews",
                Some(json!({
                    "apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
                    "spec": {
                        "user": format!("system:serviceaccount:{account_namespace}:{account}"),
                        "groups": ["system:serviceaccounts", format!("system:serviceaccounts:{account_namespace}"), "system:authenticated"],
                        "resourceAttributes": {"namespace": namespace, "verb": verb, "resource": "pods"},
                    },
                })),
            )
            .await;
        assert_eq!(code, 201, "{body}");
        body["status"]["allowed"] == true
    }
}

/// The collection an object is created in: `/api/v1[/namespaces/NS]/KINDs` for core objects,
/// `/apis/GROUP/VERSION[/namespaces/NS]/KINDs` for the others.
pub fn collection_path(object: &Value) -> String {
    let api_version = object["apiVersion"].as_str().expect("apiVersion");
    let kind = object["kind"].as_str().expect("kind").to_lowercase();
    let base = if api_version.contains('/') {
        format!("/apis/{api_version}")
    } else {
        format!("/api/{api_version}")
    };
    match object["metadata"]["namespace"].as_str() {
        Some(ns) => format!("{base}/namespaces/{ns}/{kind}s"),
        None => format!("{base}/{kind}s"),
    }
}

/// A token kubeconfig for `server` with the CA `ca_pem` inline (see [`ControlPlane::kubeconfig`]).
pub fn kubeconfig_for(
    server: &str,
    ca_pem: &[u8],
    user: &str,
    token: &str,
    namespace: &str,
) -> String {
    use base64::Engine as _;
    let ca = base64::engine::general_purpose::STANDARD.encode(ca_pem);
    format!(
        "apiVersion: v1
kind: Config
clusters:
  - name: hub
    cluster:
      server: {server}
      certificate-authority-data: {ca}
users:
  - name: {user}
    user:
      token: {token}
contexts:
  - name: hub
    context: {{cluster: hub, user: {user}, namespace: {namespace}}}
current-context: hub
"
    )
}

/// A CA, a serving certificate for 127.0.0.1 signed by it, and the ServiceAccount key pair.
fn certificates(dir: &Path) {
    super::registry::certificates(
        dir,
        "subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes.default.svc\n\
         basicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
    );
    openssl(dir, &["genrsa", "-out", "sa.key", "2048"]);
    openssl(dir, &["rsa", "-in", "sa.key", "-pubout", "-out", "sa.pub"]);
}

/// Every `pods` request at level Metadata (user, verb, URI with its query, answer code);
/// nothing else.
const AUDIT_POLICY: &str = "apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: Metadata
    resources:
      - group: \"\"
        resources: [pods]
  - level: None
";

/// Removes the temp dirs of control planes whose test process is gone (one killed before its
/// `atexit` ran).
fn sweep(parent: &Path) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = name
            .strip_prefix("codeq-kube-")
            .and_then(|p| p.parse::<i32>().ok())
        else {
            continue;
        };
        // SAFETY: kill(2) with signal 0 only checks whether the process exists.
        let gone = unsafe { libc::kill(pid, 0) } != 0
            && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH);
        if gone {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Makes the process `cmd` starts get SIGKILL when the thread that starts it ends (so at the
/// latest when the test process dies, whatever kills it).
pub fn die_with_parent(cmd: &mut Command) {
    signal_on_parent_death(cmd, libc::SIGKILL);
}

/// Makes the process `cmd` starts get `signal` when the thread that starts it ends.
pub fn signal_on_parent_death(cmd: &mut Command, signal: libc::c_int) {
    use std::os::unix::process::CommandExt;
    let parent = std::process::id() as libc::pid_t;
    // SAFETY: the closure calls only async-signal-safe functions (prctl, getppid, _exit).
    unsafe {
        cmd.pre_exec(move || {
            libc::prctl(libc::PR_SET_PDEATHSIG, signal, 0, 0, 0);
            // The parent may have died between fork and prctl.
            if libc::getppid() != parent {
                libc::_exit(1);
            }
            Ok(())
        });
    }
}

/// Runs `cmd` with its output to `log`, killed (SIGKILL) when the thread that started it ends.
fn spawn_kept(mut cmd: Command, log: &Path) -> Child {
    let out = std::fs::File::create(log).unwrap();
    die_with_parent(&mut cmd);
    cmd.stdin(Stdio::null())
        .stdout(out.try_clone().unwrap())
        .stderr(out)
        .spawn()
        .unwrap_or_else(|e| panic!("start {cmd:?}: {e}"))
}

/// Starts etcd and the API server (three attempts on fresh ports: a port picked free may be
/// taken before the server binds it) and waits for `/readyz`.
fn start() -> ControlPlane {
    let parent = std::env::temp_dir();
    sweep(&parent);
    let dir = parent.join(format!("codeq-kube-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    certificates(&dir);
    std::fs::write(
        dir.join("tokens.csv"),
        format!("{ADMIN_TOKEN},codeq-admin,codeq-admin-uid,\"system:masters\"\n"),
    )
    .unwrap();
    std::fs::write(dir.join("audit-policy.yaml"), AUDIT_POLICY).unwrap();
    codeq_rollout::install_provider();
    let ca_pem = std::fs::read(dir.join("ca.crt")).unwrap();
    let client = reqwest::Client::builder()
        .no_proxy()
        .tls_certs_only([reqwest::Certificate::from_pem(&ca_pem).unwrap()])
        .timeout(Duration::from_secs(60))
        // No idle connections kept: the client is shared by every test of the process, each
        // on a tokio runtime of its own, and a pooled connection's task dies with the runtime
        // that opened it (a later test reusing it fails with "error sending request").
        .pool_max_idle_per_host(0)
        .build()
        .unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let began = Instant::now();
    for attempt in 1..=3 {
        let _ = std::fs::remove_dir_all(dir.join("etcd"));
        let (client_port, peer_port, api_port) = (free_port(), free_port(), free_port());
        let etcd_url = format!("http://127.0.0.1:{client_port}");
        let peer = format!("http://127.0.0.1:{peer_port}");
        let mut etcd = Command::new(binary("etcd"));
        etcd.args([
            "--name=default",
            &format!("--data-dir={}", dir.join("etcd").display()),
            &format!("--listen-client-urls={etcd_url}"),
            &format!("--advertise-client-urls={etcd_url}"),
            &format!("--listen-peer-urls={peer}"),
            &format!("--initial-advertise-peer-urls={peer}"),
            &format!("--initial-cluster=default={peer}"),
            "--unsafe-no-fsync=true",
            "--log-level=warn",
        ]);
        let plane = ControlPlane {
            dir: dir.clone(),
            server: format!("https://127.0.0.1:{api_port}"),
            etcd: etcd_url.clone(),
            ca_pem: ca_pem.clone(),
            client: client.clone(),
            children: Mutex::new(vec![spawn_kept(etcd, &dir.join("etcd.log"))]),
        };
        if let Err(why) = rt.block_on(plane.until(
            "etcd",
            "etcd.log",
            0,
            &format!("{etcd_url}/health"),
            Duration::from_secs(60),
        )) {
            plane.stop();
            assert!(attempt < 3, "{why}");
            eprintln!("{why}; again on fresh ports");
            continue;
        }
        let d = |name: &str| dir.join(name).display().to_string();
        let mut api = Command::new(binary("kube-apiserver"));
        api.args([
            format!("--etcd-servers={etcd_url}"),
            format!("--cert-dir={}", d("certs")),
            format!("--tls-cert-file={}", d("server.crt")),
            format!("--tls-private-key-file={}", d("server.key")),
            format!("--secure-port={api_port}"),
            "--bind-address=127.0.0.1".into(),
            "--advertise-address=127.0.0.1".into(),
            "--endpoint-reconciler-type=none".into(),
            "--service-cluster-ip-range=10.0.0.0/24".into(),
            "--allow-privileged=true".into(),
            "--disable-admission-plugins=ServiceAccount".into(),
            "--authorization-mode=RBAC".into(),
            "--service-account-issuer=https://kubernetes.default.svc.cluster.local".into(),
            format!("--service-account-key-file={}", d("sa.pub")),
            format!("--service-account-signing-key-file={}", d("sa.key")),
            format!("--client-ca-file={}", d("ca.crt")),
            format!("--token-auth-file={}", d("tokens.csv")),
            format!("--audit-log-path={}", d("audit.log")),
            format!("--audit-policy-file={}", d("audit-policy.yaml")),
            "--profiling=false".into(),
        ]);
        plane
            .children
            .lock()
            .unwrap()
            .push(spawn_kept(api, &dir.join("kube-apiserver.log")));
        let readyz = format!("{}/readyz", plane.server);
        match rt.block_on(plane.until(
            "kube-apiserver",
            "kube-apiserver.log",
            1,
            &readyz,
            Duration::from_secs(180),
        )) {
            Ok(()) => {
                eprintln!(
                    "KUBETIME control plane ready in {:.1} s",
                    began.elapsed().as_secs_f64()
                );
                return plane;
            }
            Err(why) => {
                plane.stop();
                assert!(attempt < 3, "{why}");
                eprintln!("{why}; again on fresh ports");
            }
        }
    }
    unreachable!("the last attempt returns or panics")
}

impl ControlPlane {
    /// Polls `url` (with the admin token) every 100 ms until it answers 200 (`Ok`), or the
    /// child `index` exits (`Err` with its log); panics with the log when `within` passes.
    async fn until(
        &self,
        what: &str,
        log: &str,
        index: usize,
        url: &str,
        within: Duration,
    ) -> Result<(), String> {
        let deadline = Instant::now() + within;
        let mut tick = tokio::time::interval(Duration::from_millis(100));
        loop {
            tick.tick().await;
            let answer = self
                .client
                .get(url)
                .bearer_auth(ADMIN_TOKEN)
                .timeout(Duration::from_secs(5))
                .send()
                .await;
            if answer.is_ok_and(|r| r.status().as_u16() == 200) {
                return Ok(());
            }
            let exited = self.children.lock().unwrap()[index].try_wait();
            if let Ok(Some(status)) = exited {
                return Err(format!(
                    "{what} exited ({status}): {}",
                    std::fs::read_to_string(self.dir.join(log)).unwrap_or_default()
                ));
            }
            assert!(
                Instant::now() < deadline,
                "{what} did not answer 200 at {url} within {within:?}; its log:\n{}",
                std::fs::read_to_string(self.dir.join(log)).unwrap_or_default()
            );
        }
    }

    /// SIGTERM to each child (the API server first), up to 10 s for them to exit, then
    /// SIGKILL; every child reaped.
    fn stop(&self) {
        let mut children = self
            .children
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        for child in children.iter().rev() {
            // SAFETY: kill(2) on our own unreaped child.
            unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        for child in children.iter_mut().rev() {
            while Instant::now() < deadline && matches!(child.try_wait(), Ok(None)) {
                std::thread::park_timeout(Duration::from_millis(20));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
        children.clear();
    }
}

extern "C" fn stop_shared() {
    if let Some(plane) = SHARED.get() {
        plane.stop();
        // KUBE_RIG_LOGS=DIR keeps the API server's and etcd's logs and the audit log.
        if let Some(keep) = std::env::var_os("KUBE_RIG_LOGS") {
            for name in ["kube-apiserver.log", "etcd.log", "audit.log"] {
                let _ = std::fs::copy(
                    plane.dir.join(name),
                    PathBuf::from(&keep).join(format!("{}-{name}", std::process::id())),
                );
            }
        }
        let _ = std::fs::remove_dir_all(&plane.dir);
    }
}
