//! A real JupyterHub for tests: JupyterHub 6.1.1 with configurable-http-proxy 5.3.0 from npm
//! and jupyterhub-idle-culler 2.0.0 as a hub-managed service, on free loopback ports, with
//! settings scaled down to seconds. `scripts/test.sh` installs them (the hub and culler into
//! `.venv` from `scripts/hub-requirements.txt`, the proxy into `tests/hub/node_modules`).
//!
//! Single-user servers are stand-ins (`tests/hub/standin.py`): a real HTTP endpoint inside
//! the hub's process that takes the time [`Hub::set_stop_delays`] gives it to stop, and
//! records each start and stop with the hub's clock in `events.jsonl`, read by
//! [`Hub::events`].
//!
//! Use: [`Hub::start`] with the culler and hub settings, [`Hub::set_stop_delays`],
//! [`Hub::start_servers`] for N users, [`Hub::post_activity`] to set a server's last
//! activity, [`Hub::servers`] for what the hub reports (`started`, `last_activity`),
//! [`Hub::stop_of`] / [`Hub::events`] for when each server stopped, [`Hub::wait_for`] for a
//! bounded wait. Dropping the hub stops the hub, the proxy and the culler by their process
//! groups, also when the test fails.

use super::registry::{free_port, repo_root};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use tempfile::TempDir;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// Rigs started by this test process, for each rig's own driver token.
static RIGS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// The idle culler's and the hub's settings for one rig, in whole seconds.
#[derive(Debug, Clone, Copy)]
pub struct HubSettings {
    /// `--timeout`.
    pub timeout: u64,
    /// `--cull-every`.
    pub every: u64,
    /// `--max-age` (passed only when > 0, as z2jh does).
    pub max_age: u64,
    /// `c.JupyterHub.tornado_settings["slow_stop_timeout"]`.
    pub slow_stop_timeout: u64,
}

impl HubSettings {
    /// The culler settings as codeq-rollout's model takes them.
    pub fn cull(&self) -> codeq_rollout::CullSettings {
        codeq_rollout::CullSettings {
            enabled: true,
            timeout_secs: self.timeout,
            every_secs: self.every,
            max_age_secs: self.max_age,
        }
    }

    /// These settings as `status` takes them: `--cull-timeout`, `--cull-every`,
    /// `--cull-max-age` and `--slow-stop-timeout`, each with its value.
    pub fn options(&self) -> Vec<String> {
        let values = [
            self.timeout,
            self.every,
            self.max_age,
            self.slow_stop_timeout,
        ];
        [
            "cull-timeout",
            "cull-every",
            "cull-max-age",
            "slow-stop-timeout",
        ]
        .iter()
        .zip(values)
        .flat_map(|(name, value)| [format!("--{name}"), value.to_string()])
        .collect()
    }

    /// The hub's scale for `servers` servers at once.
    pub fn scale(&self, servers: u64) -> codeq_rollout::HubScale {
        codeq_rollout::HubScale {
            servers,
            slow_stop_timeout_secs: self.slow_stop_timeout,
        }
    }
}

/// One line of the stand-in's `events.jsonl`.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// `started`, `stop_begin` or `stopped`.
    pub event: String,
    /// The user name.
    pub user: String,
    /// Unix seconds (the hub's clock, which is this machine's).
    pub t: f64,
}

/// A running server as the hub's API reports it.
#[derive(Debug, Clone)]
pub struct ServerView {
    /// The user name.
    pub user: String,
    /// `started`, unix seconds.
    pub started: f64,
    /// `last_activity`, unix seconds.
    pub last_activity: f64,
}

/// A running JupyterHub with its proxy and idle culler.
pub struct Hub {
    child: Child,
    dir: TempDir,
    /// The hub's REST API, `http://127.0.0.1:PORT/hub/api`.
    pub api: String,
    /// The settings it runs with.
    pub settings: HubSettings,
    /// The driver service's API token, this rig's own (scopes to create users, start and
    /// stop servers, post activity and list users).
    pub token: String,
    client: reqwest::Client,
}

/// Now, unix seconds.
pub fn unix_now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
}

/// Unix seconds as ISO 8601 UTC, as the hub takes them.
pub fn iso(t: f64) -> String {
    OffsetDateTime::from_unix_timestamp_nanos((t * 1e9) as i128)
        .unwrap()
        .format(&Rfc3339)
        .unwrap()
}

/// ISO 8601 as the hub writes it, in unix seconds.
pub fn parse_iso(text: &str) -> f64 {
    let t =
        OffsetDateTime::parse(text, &Rfc3339).unwrap_or_else(|e| panic!("hub time {text:?}: {e}"));
    t.unix_timestamp_nanos() as f64 / 1e9
}

fn rig_file(path: &str, what: &str) -> PathBuf {
    let p = repo_root().join(path);
    assert!(
        p.exists(),
        "{} is missing ({what}): run scripts/test.sh once, it installs the JupyterHub test rig",
        p.display()
    );
    p
}

impl Hub {
    /// Starts a hub with `settings` and waits (up to 2 minutes: a loaded 2-core machine has
    /// taken 34 s) until its API answers through the proxy.
    pub async fn start(settings: HubSettings) -> Hub {
        Self::start_with(settings, "").await
    }

    /// As [`Hub::start`], with `extra` appended to `jupyterhub_config.py` (Python, `c` is
    /// the config), e.g. another service with a token of fewer scopes:
    /// `c.JupyterHub.services.append({"name": "reader", "api_token": "reader-token-1"})`.
    ///
    /// A hub that exits while starting is started again on fresh ports, up to three times:
    /// the ports are picked free ([`free_port`]) but bound only later by the hub and the
    /// proxy, so a test running alongside can take one in between.
    pub async fn start_with(settings: HubSettings, extra: &str) -> Hub {
        Self::start_with_env(settings, extra, &[]).await
    }

    /// As [`Hub::start_with`], with `env` set in the hub's environment (and so its spawner's
    /// and services'), e.g. `KUBECONFIG` for KubeSpawner ([`super::z2jh`]).
    pub async fn start_with_env(
        settings: HubSettings,
        extra: &str,
        env: &[(String, String)],
    ) -> Hub {
        let began = Instant::now();
        for attempt in 1..=3 {
            let mut rig = Self::launch(settings, extra, env);
            match rig.until_up(Duration::from_secs(120)).await {
                Ok(()) => {
                    eprintln!("HUBTIME hub up in {:.1} s", began.elapsed().as_secs_f64());
                    return rig;
                }
                Err(exited) if attempt < 3 => {
                    eprintln!("JupyterHub exited while starting ({exited}); again on fresh ports");
                }
                Err(exited) => panic!("JupyterHub exited ({exited}); its log:\n{}", rig.log()),
            }
        }
        unreachable!("the last attempt returns or panics")
    }

    /// Waits until the hub's API answers through the proxy (`Ok`), or the hub exits
    /// (`Err` with its exit status); panics with the hub's log when `within` passes.
    async fn until_up(&mut self, within: Duration) -> Result<(), String> {
        let deadline = Instant::now() + within;
        let mut tick = tokio::time::interval(Duration::from_millis(200));
        let api = self.clone_api();
        loop {
            tick.tick().await;
            // An authenticated call: only this rig's hub knows this rig's token, so a hub of a
            // test alongside that took the port answers 403, not 200.
            if api.get("/user").await.is_some_and(|(code, _)| code == 200) {
                return Ok(());
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(status.to_string());
            }
            assert!(
                Instant::now() < deadline,
                "JupyterHub did not come up in {within:?}; its log:\n{}",
                self.log()
            );
        }
    }

    /// Writes the rig's config (fresh ports) and starts the hub; does not wait.
    fn launch(settings: HubSettings, extra: &str, env: &[(String, String)]) -> Hub {
        let python = rig_file(".venv/bin/python", "JupyterHub's virtual environment");
        let chp = rig_file(
            "tests/hub/node_modules/.bin/configurable-http-proxy",
            "configurable-http-proxy from npm",
        );
        let support = repo_root().join("tests/hub");
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().display().to_string();

        let (public, hub, proxy_api) = (free_port(), free_port(), free_port());
        let token = format!(
            "driver-token-{}-{}",
            std::process::id(),
            RIGS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        );
        let mut culler = vec![
            "sh".to_string(),
            "-c".into(),
            format!("echo $$ > {d}/culler.pid; exec \"$0\" \"$@\""),
            python.display().to_string(),
            "-m".into(),
            "jupyterhub_idle_culler".into(),
            format!("--timeout={}", settings.timeout),
            format!("--cull-every={}", settings.every),
            "--concurrency=10".into(),
        ];
        if settings.max_age > 0 {
            culler.push(format!("--max-age={}", settings.max_age));
        }
        let config = format!(
            r#"import sys
sys.path.insert(0, {support:?})
import rig
rig.loopback(c, workdir={d:?}, public={public}, hub={hub}, proxy_api={proxy_api}, chp={chp:?})
c.JupyterHub.spawner_class = "standin.StandinSpawner"
c.JupyterHub.tornado_settings = {{"slow_stop_timeout": {slow}}}
c.JupyterHub.services = [
    {{"name": "driver", "api_token": {token:?}}},
    {{"name": "idle-culler", "command": {culler}}},
]
c.JupyterHub.load_roles = [
    {{"name": "driver", "services": ["driver"], "scopes": ["admin:users", "admin:servers", "users:activity", "list:users", "read:users"]}},
    {{"name": "idle-culler", "services": ["idle-culler"], "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"]}},
]
"#,
            chp = chp.display().to_string(),
            slow = settings.slow_stop_timeout,
            culler = serde_json::to_string(&culler).unwrap(),
        );
        std::fs::write(
            dir.path().join("jupyterhub_config.py"),
            format!("{config}\n{extra}\n"),
        )
        .unwrap();
        let log = std::fs::File::create(dir.path().join("hub.log")).unwrap();
        let child = {
            use std::os::unix::process::CommandExt;
            let mut cmd = Command::new(&python);
            // A test process that dies before dropping the rig (SIGKILL) stops the hub too,
            // which then stops its proxy and culler as on any SIGTERM.
            super::controlplane::signal_on_parent_death(&mut cmd, libc::SIGTERM);
            cmd.arg(support.join("launch.py"))
                .args(["-f", "jupyterhub_config.py"])
                .current_dir(dir.path())
                .env_remove("JUPYTERHUB_API_TOKEN")
                .envs(env.iter().map(|(k, v)| (k, v)))
                .stdin(Stdio::null())
                .stdout(log.try_clone().unwrap())
                .stderr(log)
                .process_group(0)
                .spawn()
                .expect("start JupyterHub")
        };
        codeq_rollout::install_provider();
        let client = reqwest::Client::builder()
            .no_proxy()
            .timeout(Duration::from_secs(30))
            .build()
            .unwrap();
        Hub {
            child,
            dir,
            api: format!("http://127.0.0.1:{public}/hub/api"),
            settings,
            token,
            client,
        }
    }

    fn clone_api(&self) -> Api {
        Api {
            api: self.api.clone(),
            token: self.token.clone(),
            client: self.client.clone(),
        }
    }

    /// The hub's log so far (with the proxy's and the culler's, whose output it relays).
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("hub.log")).unwrap_or_default()
    }

    /// Makes the rig's spawner register each server's pod with the fake Kubernetes API at
    /// `admin` (tests/kube/fake_apiserver.py) when it starts the server, and remove it when
    /// the server stops, as KubeSpawner does: the pod's `imageID` is `images[user]`, else
    /// `default`. Applies to servers started from now on.
    pub fn set_kube(&self, admin: &str, images: &[(&str, &str)], default: &str) {
        let images: BTreeMap<&str, &str> = images.iter().copied().collect();
        let tmp = self.dir.path().join("kube.json.tmp");
        std::fs::write(
            &tmp,
            serde_json::to_vec(&json!({"admin": admin, "images": images, "default": default}))
                .unwrap(),
        )
        .unwrap();
        std::fs::rename(tmp, self.dir.path().join("kube.json")).unwrap();
    }

    /// Sets how long each user's server takes to stop, seconds (others stop at once).
    pub fn set_stop_delays(&self, delays: &[(&str, f64)]) {
        let map: BTreeMap<&str, f64> = delays.iter().copied().collect();
        std::fs::write(
            self.dir.path().join("stop_delays.json"),
            serde_json::to_vec(&map).unwrap(),
        )
        .unwrap();
    }

    /// Creates `users` and starts a server for each, waiting (bounded) until all are ready.
    pub async fn start_servers(&self, users: &[&str]) {
        let began = Instant::now();
        let before = self.servers().await.len();
        self.spawn(users).await;
        let want = before + users.len();
        let ready = self
            .wait_for("every server is ready", Duration::from_secs(60), move |h| {
                let h = h.clone_api();
                async move { h.ready().await.len() >= want }
            })
            .await;
        assert!(
            ready,
            "servers did not become ready; hub log:\n{}",
            self.log()
        );
        eprintln!(
            "HUBTIME {} servers ready in {:.1} s",
            users.len(),
            began.elapsed().as_secs_f64()
        );
    }

    /// Creates `users` and asks the hub to start a server for each (`201` started, `202`
    /// pending); does not wait for them.
    pub async fn spawn(&self, users: &[&str]) {
        let (code, body) = self
            .send("POST", "/users", Some(json!({"usernames": users})))
            .await;
        assert_eq!(code, 201, "create users: {body}");
        for u in users {
            let (code, body) = self.send("POST", &format!("/users/{u}/server"), None).await;
            assert!(
                code == 201 || code == 202,
                "start {u}'s server: {code} {body}"
            );
        }
    }

    /// Posts `at` (unix seconds) as the user's and their default server's last activity,
    /// as a single-user server does (`POST /users/{name}/activity`, scope `users:activity`).
    pub async fn post_activity(&self, user: &str, at: f64) {
        let t = iso(at);
        let (code, body) = self
            .send(
                "POST",
                &format!("/users/{user}/activity"),
                Some(json!({"last_activity": t, "servers": {"": {"last_activity": t}}})),
            )
            .await;
        assert_eq!(code, 200, "post activity for {user}: {body}");
    }

    /// Sends `method path` (below `/hub/api`) with `token` and an optional JSON body, as the
    /// break-glass runbook's `curl` does; returns the status code and the body (JSON, else
    /// null).
    pub async fn request_as(
        &self,
        token: &str,
        method: &str,
        path: &str,
        body: Option<Value>,
    ) -> (u16, Value) {
        let req = self
            .client
            .request(method.parse().unwrap(), format!("{}{path}", self.api))
            .header("Authorization", format!("token {token}"));
        super::send_json(req, (method, path), body, "application/json").await
    }

    /// [`Hub::request_as`] with the driver's token.
    pub async fn send(&self, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
        self.request_as(&self.token, method, path, body).await
    }

    /// The ready servers the hub reports (`GET /users?state=ready`).
    pub async fn servers(&self) -> Vec<ServerView> {
        self.clone_api().ready().await
    }

    /// Every start and stop the stand-ins recorded, in order.
    pub fn events(&self) -> Vec<Event> {
        let text =
            std::fs::read_to_string(self.dir.path().join("events.jsonl")).unwrap_or_default();
        text.lines()
            .map(|l| {
                let v: Value = serde_json::from_str(l).unwrap();
                Event {
                    event: v["event"].as_str().unwrap().to_string(),
                    user: v["user"].as_str().unwrap().to_string(),
                    t: v["t"].as_f64().unwrap(),
                }
            })
            .collect()
    }

    /// When `user`'s server began to stop and when it had stopped (unix seconds), if it did.
    pub fn stop_of(&self, user: &str) -> Option<(f64, f64)> {
        let events = self.events();
        let at = |kind: &str| {
            events
                .iter()
                .find(|e| e.user == user && e.event == kind)
                .map(|e| e.t)
        };
        Some((at("stop_begin")?, at("stopped")?))
    }

    /// Polls `cond` every 200 ms until it holds or `within` has passed; returns whether it
    /// held. Fails at once if the hub has exited.
    pub async fn wait_for<F, Fut>(&self, what: &str, within: Duration, mut cond: F) -> bool
    where
        F: FnMut(&Hub) -> Fut,
        Fut: std::future::Future<Output = bool>,
    {
        super::until(what, within, Duration::from_millis(200), || cond(self)).await
    }
}

/// The hub's API with the driver's token, owned, for the polls of [`Hub::wait_for`].
#[derive(Clone)]
struct Api {
    api: String,
    token: String,
    client: reqwest::Client,
}

impl Api {
    async fn get(&self, path: &str) -> Option<(u16, Value)> {
        let resp = self
            .client
            .get(format!("{}{path}", self.api))
            .header("Authorization", format!("token {}", self.token))
            .send()
            .await
            .ok()?;
        let code = resp.status().as_u16();
        let body = resp.bytes().await.ok()?;
        Some((code, serde_json::from_slice(&body).unwrap_or(Value::Null)))
    }

    /// Every page of `GET /users?state=ready` (the hub cuts each at its
    /// `api_page_max_limit`), until one comes back empty.
    async fn ready(&self) -> Vec<ServerView> {
        let mut users = Vec::new();
        loop {
            let path = format!("/users?state=ready&offset={}", users.len());
            let Some((200, Value::Array(page))) = self.get(&path).await else {
                break;
            };
            if page.is_empty() {
                break;
            }
            users.extend(page);
        }
        users
            .iter()
            .filter_map(|u| {
                let s = &u["servers"][""];
                if s["ready"].as_bool() != Some(true) {
                    return None;
                }
                Some(ServerView {
                    user: u["name"].as_str()?.to_string(),
                    started: parse_iso(s["started"].as_str()?),
                    last_activity: parse_iso(s["last_activity"].as_str()?),
                })
            })
            .collect()
    }
}

/// Sends `signal` to the process group `pgid` (each of the hub, the proxy and the culler
/// leads its own).
fn signal_group(signal: &str, pgid: u32) {
    let _ = Command::new("kill")
        .args([signal, "--", &format!("-{pgid}")])
        .stderr(Stdio::null())
        .status();
}

fn alive(pid: u32) -> bool {
    Command::new("kill")
        .args(["-0", &pid.to_string()])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

impl Drop for Hub {
    fn drop(&mut self) {
        let read_pid = |name: &str| {
            std::fs::read_to_string(self.dir.path().join(name))
                .ok()
                .and_then(|t| t.trim().parse::<u32>().ok())
        };
        // The proxy and the culler run in sessions of their own (JupyterHub starts them with
        // start_new_session): note them before the hub removes its pid file.
        let others: Vec<u32> = ["proxy.pid", "culler.pid"]
            .into_iter()
            .filter_map(read_pid)
            .collect();
        let hub = self.child.id();
        let began = Instant::now();
        signal_group("-TERM", hub);
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                break;
            }
            std::thread::park_timeout(Duration::from_millis(50));
        }
        signal_group("-KILL", hub);
        let _ = self.child.wait();
        eprintln!(
            "HUBTIME hub stopped in {:.1} s",
            began.elapsed().as_secs_f64()
        );
        // HUB_RIG_LOGS=DIR keeps each hub's log there, for diagnosis.
        if let Some(keep) = std::env::var_os("HUB_RIG_LOGS") {
            let name = format!("hub-{}.log", self.child.id());
            let _ = std::fs::copy(
                self.dir.path().join("hub.log"),
                PathBuf::from(keep).join(name),
            );
        }
        for pid in others {
            if alive(pid) {
                signal_group("-KILL", pid);
            }
        }
    }
}

/// Hub configuration lines for a service `status-reader` holding `token` and a role with
/// exactly the scopes `status` needs (`codeq_rollout::SCOPES`, the role README documents).
pub fn reader_config(token: &str) -> String {
    let scopes: Vec<String> = codeq_rollout::SCOPES
        .iter()
        .map(|s| format!("{s:?}"))
        .collect();
    format!(
        r#"c.JupyterHub.services.append({{"name": "status-reader", "api_token": "{token}"}})
c.JupyterHub.load_roles.append({{"name": "{role}", "services": ["status-reader"], "scopes": [{scopes}]}})
"#,
        role = codeq_rollout::ROLE_NAME,
        scopes = scopes.join(", ")
    )
}

/// `docs/status.schema.json`, the shape of `status --json`.
pub fn status_schema() -> serde_json::Value {
    let path = crate::common::registry::repo_root().join("docs/status.schema.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Asserts that `doc`, a `status --json` document, has the shape of [`status_schema`].
pub fn assert_status_json_shape(doc: &serde_json::Value) {
    let schema = status_schema();
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    let errors: Vec<String> = validator.iter_errors(doc).map(|e| e.to_string()).collect();
    assert!(
        errors.is_empty(),
        "not the schema's shape: {errors:#?}\n{doc:#}"
    );
}
