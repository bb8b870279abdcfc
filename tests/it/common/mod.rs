//! The shared test harness: a real registry, a fake GitHub, event payloads derived from
//! GitHub's examples, and a runner that starts the built binary as the Actions runner does.
#![allow(dead_code, unused_imports)]

pub mod controlplane;
pub mod fake_registry;
pub mod github;
pub mod hub;
pub mod kube;
pub mod openapi;
pub mod registry;
pub mod scenario;
pub mod z2jh;

use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use tempfile::TempDir;

pub use github::{FakeGitHub, Fault, OWNER, REPO, SERVER_URL, fixture, pull_json};
pub use registry::{
    CountingProxy, ISSUER, Registry, SERVICE, Seen, Shape, TokenServer, VirtualTimer, make_layout,
    push_shapes, repo_root,
};

/// The commit SHA the scenarios release.
pub const SHA: &str = "c4295bd74fb0f4fda03689c3df3f2803b658fd85";
/// A token the tests pass; it must never appear in any output.
pub const TOKEN: &str = "ghs_TestTokenThatMustNeverBePrinted0123";
/// The fixed clock of the scenarios.
pub const NOW: &str = "2026-11-30T12:00:00Z";

/// The `pull_request` closed example, edited into a merged PR with `labels` and merge
/// commit [`SHA`] (upstream has no merged example).
pub fn pull_request_merged(labels: &[&str]) -> Value {
    let mut e = fixture("github-events/pull_request_closed.payload.json");
    let pr = &mut e["pull_request"];
    github::merge(
        pr,
        json!({
            "merged": true, "merged_at": "2026-11-30T11:55:00Z", "merge_commit_sha": SHA,
            "title": "Patch codeq against CVE-2026-0001",
            "html_url": format!("{SERVER_URL}/{OWNER}/{REPO}/pull/2"),
        }),
    );
    pr["labels"] = github::named(&pr["labels"][0], "name", labels);
    e
}

/// The hub's address every run passes (`hub-url`): a security release with the placeholder
/// (`hub.example.org`) is refused; tests of the placeholder remove it.
pub const HUB_URL: &str = "https://jupyter.lab.uni.edu";

/// One run of the binary as the Actions runner starts a Docker action: `INPUT_*` and
/// `GITHUB_*` variables, output and summary files in a temp dir, and nothing inherited
/// from the test process's environment.
pub struct ActionRun {
    /// Holds the event, output and summary files.
    pub dir: TempDir,
    /// The environment to pass.
    pub env: BTreeMap<String, String>,
    /// Extra command-line arguments after `announce`.
    pub args: Vec<String>,
}

/// What a run left behind.
#[derive(Debug)]
pub struct Outcome {
    /// Exit code.
    pub code: i32,
    /// Stdout.
    pub stdout: String,
    /// Stderr.
    pub stderr: String,
    /// Parsed `$GITHUB_OUTPUT`.
    pub outputs: BTreeMap<String, String>,
    /// `$GITHUB_STEP_SUMMARY`.
    pub summary: String,
    /// The raw `$GITHUB_OUTPUT` file.
    pub outputs_raw: String,
}

impl ActionRun {
    /// A run for `image` against `github` (API base), with an event `name` and `payload`.
    pub fn new(image: &str, api_url: &str, event_name: &str, payload: &Value) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let event_path = dir.path().join("event.json");
        std::fs::write(&event_path, serde_json::to_vec(payload).unwrap()).unwrap();
        let mut env = BTreeMap::new();
        for (k, v) in [
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_REPOSITORY", &format!("{OWNER}/{REPO}")),
            ("GITHUB_SHA", SHA),
            ("GITHUB_EVENT_NAME", event_name),
            ("GITHUB_EVENT_PATH", &event_path.display().to_string()),
            ("GITHUB_API_URL", api_url),
            ("GITHUB_SERVER_URL", SERVER_URL),
            ("GITHUB_RUN_ID", "4242"),
            ("GITHUB_RUN_ATTEMPT", "1"),
            (
                "GITHUB_OUTPUT",
                &dir.path().join("output").display().to_string(),
            ),
            (
                "GITHUB_STEP_SUMMARY",
                &dir.path().join("summary").display().to_string(),
            ),
            ("INPUT_IMAGE", image),
            ("INPUT_GITHUB-TOKEN", TOKEN),
            ("INPUT_TIER", "auto"),
            // A hub's address, not a placeholder: a security release refuses that.
            ("INPUT_HUB-URL", HUB_URL),
        ] {
            env.insert(k.to_string(), v.to_string());
        }
        Self {
            dir,
            env,
            args: vec!["--now".into(), NOW.into()],
        }
    }

    /// A run for `image` against `api_url` after pull request #2 was merged with `labels`
    /// (see [`pull_request_merged`]).
    pub fn merged_pr(image: &str, api_url: &str, labels: &[&str]) -> Self {
        Self::new(image, api_url, "pull_request", &pull_request_merged(labels))
    }

    /// Sets an input (`name` as in action.yml, e.g. `cull-timeout`).
    pub fn input(mut self, name: &str, value: &str) -> Self {
        self.env
            .insert(format!("INPUT_{}", name.to_uppercase()), value.to_string());
        self
    }

    /// Sets an environment variable.
    pub fn var(mut self, name: &str, value: &str) -> Self {
        self.env.insert(name.to_string(), value.to_string());
        self
    }

    /// Runs `codeq-rollout announce` and collects what it left. Runs on a blocking thread so
    /// async tests' fake servers keep answering.
    pub async fn run(&self) -> Outcome {
        let env = self.env.clone();
        let args = self.args.clone();
        let dir = self.dir.path().to_path_buf();
        tokio::task::spawn_blocking(move || run_binary(&dir, &env, &args))
            .await
            .unwrap()
    }
}

/// Runs `codeq-rollout ARGS` with exactly `env` (nothing inherited) in the repository root,
/// to its end; returns (exit code, stdout, stderr).
pub fn run_codeq(
    args: &[impl AsRef<std::ffi::OsStr>],
    env: &BTreeMap<String, String>,
) -> (i32, String, String) {
    let out = std::process::Command::new(binary())
        .args(args)
        .env_clear()
        .envs(env)
        .current_dir(repo_root())
        .output()
        .expect("run codeq-rollout");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn run_binary(dir: &Path, env: &BTreeMap<String, String>, args: &[String]) -> Outcome {
    let args: Vec<&str> = std::iter::once("announce")
        .chain(args.iter().map(String::as_str))
        .collect();
    let (code, stdout, stderr) = run_codeq(&args, env);
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap_or_default();
    let outputs_raw = read("output");
    Outcome {
        code,
        stdout,
        stderr,
        outputs: parse_outputs(&outputs_raw),
        summary: read("summary"),
        outputs_raw,
    }
}

/// The built binary.
pub fn binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_codeq-rollout"))
}

/// Parses `$GITHUB_OUTPUT` heredoc blocks (`name<<DELIM\nvalue\nDELIM`).
pub fn parse_outputs(text: &str) -> BTreeMap<String, String> {
    let mut map = BTreeMap::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let Some((name, delim)) = line.split_once("<<") else {
            continue;
        };
        let mut value = Vec::new();
        for l in lines.by_ref() {
            if l == delim {
                break;
            }
            value.push(l);
        }
        map.insert(name.to_string(), value.join("\n"));
    }
    map
}

impl Outcome {
    /// Panics with the run's output unless it exited 0.
    pub fn assert_success(&self) -> &Self {
        assert_eq!(
            self.code, 0,
            "exit {}\nstdout:\n{}\nstderr:\n{}",
            self.code, self.stdout, self.stderr
        );
        self
    }

    /// Asserts that the run masked each of `secrets` (one `::add-mask::` line each, also for
    /// the forms a server may echo them in) before printing anything else, the very first
    /// line masking one of them, and that no secret shows anywhere else: not in the rest of
    /// stdout, in stderr, the summary or the outputs file.
    pub fn assert_secrets_masked_first(&self, secrets: &[&str]) {
        let stdout = &self.stdout;
        assert!(
            secrets
                .iter()
                .any(|secret| stdout.starts_with(&format!("::add-mask::{secret}\n"))),
            "the first line masks a secret: {stdout}"
        );
        let lines: Vec<&str> = stdout.lines().collect();
        let masks: Vec<&str> = lines
            .iter()
            .take_while(|l| l.starts_with("::add-mask::"))
            .copied()
            .collect();
        for secret in secrets {
            let line = format!("::add-mask::{secret}");
            assert!(masks.contains(&line.as_str()), "{stdout}");
        }
        let mut unique = masks.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(
            unique.len(),
            masks.len(),
            "each secret is masked once: {stdout}"
        );
        assert_eq!(
            lines
                .iter()
                .filter(|l| l.starts_with("::add-mask::"))
                .count(),
            masks.len(),
            "nothing is masked after the first other line: {stdout}"
        );
        let rest = lines[masks.len()..].join("\n");
        for secret in secrets {
            for (what, text) in [
                ("stdout", &rest),
                ("stderr", &self.stderr),
                ("summary", &self.summary),
                ("outputs", &self.outputs_raw),
            ] {
                assert!(!text.contains(secret), "{what} shows a secret:\n{text}");
            }
        }
    }

    /// An output's value.
    pub fn output(&self, name: &str) -> &str {
        self.outputs.get(name).unwrap_or_else(|| {
            panic!(
                "no output {name} in {:?}\nstdout:\n{}",
                self.outputs, self.stdout
            )
        })
    }
}

/// Asserts that `outputs` hold each (name, value) of `expected`; other outputs are not
/// looked at.
pub fn assert_outputs_hold(outputs: &BTreeMap<String, String>, expected: &[(&str, &str)]) {
    let expected: BTreeMap<String, String> = expected
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let got: BTreeMap<String, String> = outputs
        .iter()
        .filter(|(k, _)| expected.contains_key(*k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    assert_eq!(got, expected, "all outputs: {outputs:#?}");
}

/// `text` with each variable part (a port, a temp path) replaced by a stable name, for a
/// snapshot: `scrub(&err, &[(&registry.addr, "[registry]")])`. Longer parts go first, so a
/// URL holding an address is replaced whole.
pub fn scrub(text: &str, parts: &[(&str, &str)]) -> String {
    let mut parts = parts.to_vec();
    parts.sort_by_key(|(from, _)| std::cmp::Reverse(from.len()));
    parts
        .iter()
        .filter(|(from, _)| !from.is_empty())
        .fold(text.to_string(), |t, (from, to)| t.replace(from, to))
}

/// The value of header `name` of a request a fake received, or `""` when it is absent (or
/// not text).
pub fn header_of(req: &wiremock::Request, name: &str) -> String {
    req.headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string()
}

/// Makes a FIFO named `name` in `dir` (with `mkfifo`), for tests of readers that must never
/// open one; its path.
pub fn fifo(dir: &Path, name: &str) -> PathBuf {
    let p = dir.join(name);
    let made = std::process::Command::new("mkfifo")
        .arg(&p)
        .status()
        .unwrap();
    assert!(made.success(), "mkfifo {}", p.display());
    p
}

/// `req` (of `method` to `path`) sent with `body` as JSON of `content_type`: the answer's
/// code and JSON (`null` when it is none).
pub async fn send_json(
    mut req: reqwest::RequestBuilder,
    (method, path): (&str, &str),
    body: Option<Value>,
    content_type: &str,
) -> (u16, Value) {
    if let Some(b) = body {
        req = req
            .header("Content-Type", content_type)
            .body(serde_json::to_vec(&b).unwrap());
    }
    let resp = (req.send().await).unwrap_or_else(|e| panic!("{method} {path}: {e:?}"));
    let code = resp.status().as_u16();
    let bytes = resp.bytes().await.unwrap();
    (code, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
}

/// `cmd` started in a process group of its own with its standard streams piped (`what` it
/// is, when it cannot start).
pub fn spawn_piped(cmd: &mut std::process::Command, what: &str) -> std::process::Child {
    use std::os::unix::process::CommandExt;
    use std::process::Stdio;
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd.process_group(0)
        .spawn()
        .unwrap_or_else(|e| panic!("{what}: {e}"))
}

/// `tests/kube/SCRIPT` started with the repository's Python (`.venv`, scripts/test.sh
/// installs it) and `args`, its stderr in `dir`'s `log` (see [`until_started`]).
pub fn start_script(script: &str, args: &[&std::ffi::OsStr], dir: &Path) -> std::process::Child {
    std::process::Command::new(repo_root().join(".venv/bin/python"))
        .arg(repo_root().join("tests/kube").join(script))
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(dir.join("log")).unwrap())
        .spawn()
        .unwrap_or_else(|e| panic!("start tests/kube/{script} (.venv: scripts/test.sh): {e}"))
}

/// Waits (bounded, `within`) until `read` finds in `dir` what the started `child` (`what`)
/// writes there once it listens (its port): panics, with the `log` it writes in `dir`, when
/// it exits first or the time runs out. The caller holds `child` where its drop stops it.
pub fn until_started<T>(
    what: &str,
    child: &mut std::process::Child,
    dir: &Path,
    within: std::time::Duration,
    read: impl Fn(&Path) -> Option<T>,
) -> T {
    let deadline = std::time::Instant::now() + within;
    let log = || std::fs::read_to_string(dir.join("log")).unwrap_or_default();
    loop {
        if let Some(found) = read(dir) {
            return found;
        }
        if let Ok(Some(status)) = child.try_wait() {
            panic!("{what} exited ({status}): {}", log());
        }
        let late = std::time::Instant::now() >= deadline;
        assert!(!late, "{what} did not start within {within:?}: {}", log());
        std::thread::park_timeout(std::time::Duration::from_millis(50));
    }
}

/// The number in the file `name` of `dir`, once it holds one.
pub fn number_in<T: std::str::FromStr>(dir: &Path, name: &str) -> Option<T> {
    let text = std::fs::read_to_string(dir.join(name)).ok()?;
    text.trim().parse().ok()
}

/// Kills the process with this id on drop unless disarmed: a child that did not exit in
/// time is stopped also when the test fails.
struct KillOnDrop(Option<u32>);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        if let Some(pid) = self.0.take() {
            // SAFETY: kill(2) with a PID of our own unreaped child and SIGKILL.
            unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
        }
    }
}

/// `codeq-rollout ARGS` with exactly `env`, from the repository root, for a run that might
/// block (a FIFO opened) or never end (`/dev/zero` read to its end): fails the test, killing
/// the child by its PID, when it has not exited within 30 s. The child is waited for on a
/// thread; the wait here is on its result. Returns (exit code, stdout, stderr).
pub fn run_bounded(args: &[&str], env: &BTreeMap<String, String>) -> (i32, String, String) {
    let child = std::process::Command::new(binary())
        .args(args)
        .env_clear()
        .envs(env)
        .current_dir(repo_root())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run codeq-rollout");
    let mut guard = KillOnDrop(Some(child.id()));
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(child.wait_with_output()));
    let out = rx
        .recv_timeout(std::time::Duration::from_secs(30))
        .unwrap_or_else(|_| panic!("codeq-rollout {args:?} did not exit within 30 s"))
        .expect("wait for codeq-rollout");
    // Exited and reaped: its PID may be reused, so it must not be killed now.
    guard.0 = None;
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The one bounded wait of the tests: checks `cond` at once, then every `every`, until it
/// holds or `within` has passed; whether it held (`what` is said on stderr when it did not).
/// The checks are ticks of one interval, so a slow check does not stretch the bound.
pub async fn until<F, Fut>(
    what: &str,
    within: std::time::Duration,
    every: std::time::Duration,
    mut cond: F,
) -> bool
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = tokio::time::Instant::now() + within;
    let mut tick = tokio::time::interval(every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        if cond().await {
            return true;
        }
        if tokio::time::Instant::now() >= deadline {
            eprintln!("gave up waiting: {what}");
            return false;
        }
    }
}
