//! Scenarios: a test states the trigger, what GitHub knows and the inputs; the harness starts
//! the fake GitHub, runs the binary as the Actions runner does, and writes down everything
//! the run did as one text (a [`transcript`]) for an insta snapshot.
//!
//! ```ignore
//! let seen = Scenario::push(&[(SHA, "Bump codeq (#12)")])
//!     .lists(SHA, [pull_json(12, "Bump codeq", &["routine"], Some(SHA), "master")])
//!     .observe()
//!     .await;
//! insta::assert_snapshot!(seen.transcript);
//! ```

use super::{ActionRun, FakeGitHub, OWNER, Outcome, REPO, SERVER_URL, SHA, fixture, scrub};
use serde_json::{Value, json};

/// The image the scenarios announce: the OCI layout shipped in `examples/lab` (its digest is
/// fixed, and no registry is needed).
pub const IMAGE: &str = "oci:examples/lab";
/// A `GITHUB_SHA` that is not the commit the release is for.
pub const OTHER_SHA: &str = "f95f852bd8fca8fcc58a9a2d6c842781e32a215e";

/// What GitHub knows and what the workflow passes, before the run.
pub struct Scenario {
    event: String,
    payload: Value,
    commit_pulls: Vec<(String, Vec<Value>)>,
    pulls: Vec<Value>,
    forbidden: Vec<(&'static str, &'static str)>,
    inputs: Vec<(String, String)>,
    vars: Vec<(String, String)>,
    token: bool,
    backoff_ms: String,
}

/// What a scenario's run did.
pub struct Seen {
    /// Everything the run did, as text (see [`transcript`]).
    pub transcript: String,
    /// The run's outcome.
    pub out: Outcome,
    /// The fake GitHub after the run.
    pub github: FakeGitHub,
}

impl Seen {
    /// Panics with the run's output unless it exited 0.
    pub fn ok(self) -> Self {
        self.out.assert_success();
        self
    }
}

impl Scenario {
    /// A run triggered by `event` with `payload`.
    pub fn event(event: &str, payload: Value) -> Self {
        Self {
            event: event.to_string(),
            payload,
            commit_pulls: Vec::new(),
            pulls: Vec::new(),
            forbidden: Vec::new(),
            inputs: Vec::new(),
            vars: Vec::new(),
            token: true,
            backoff_ms: "0,0,0".into(),
        }
    }

    /// A push of `commits` (SHA, message; oldest first) to master.
    pub fn push(commits: &[(&str, &str)]) -> Self {
        Self::event("push", push_event("master", commits))
    }

    /// A `pull_request` closed event of PR #2, merged as [`SHA`], carrying `labels`.
    pub fn merged_pr(labels: &[&str]) -> Self {
        Self::event("pull_request", super::pull_request_merged(labels))
    }

    /// A `workflow_dispatch` from GitHub's example payload.
    pub fn dispatch() -> Self {
        Self::event(
            "workflow_dispatch",
            fixture("github-events/workflow_dispatch_payload.json"),
        )
    }

    /// A `schedule` run (GitHub's payload: the cron expression that fired).
    pub fn schedule() -> Self {
        Self::event("schedule", json!({ "schedule": "30 5 * * *" }))
    }

    /// `GET /commits/{sha}/pulls` lists `prs`.
    pub fn lists<const N: usize>(self, sha: &str, prs: [Value; N]) -> Self {
        self.lists_in_turn(sha, vec![Value::Array(prs.to_vec())])
    }

    /// `GET /commits/{sha}/pulls` answers `answers` in turn (the last repeats), as an index
    /// that lags.
    pub fn lists_in_turn(mut self, sha: &str, answers: Vec<Value>) -> Self {
        self.commit_pulls.push((sha.to_string(), answers));
        self
    }

    /// `GET /pulls/{n}` answers `pr` (its `number`).
    pub fn pull(mut self, pr: Value) -> Self {
        self.pulls.push(pr);
        self
    }

    /// `method` on paths containing `path` answers 403 "Resource not accessible by
    /// integration".
    pub fn forbid(mut self, method: &'static str, path: &'static str) -> Self {
        self.forbidden.push((method, path));
        self
    }

    /// Sets an Action input (`name` as in action.yml).
    pub fn input(mut self, name: &str, value: &str) -> Self {
        self.inputs.push((name.to_string(), value.to_string()));
        self
    }

    /// Sets an environment variable (e.g. `GITHUB_SHA`).
    pub fn var(mut self, name: &str, value: &str) -> Self {
        self.vars.push((name.to_string(), value.to_string()));
        self
    }

    /// Waits between tries of the commit look-up, in milliseconds (`--lookup-backoff-ms`);
    /// `0,0,0` unless set: 4 tries, no waiting.
    pub fn backoff_ms(mut self, waits: &str) -> Self {
        self.backoff_ms = waits.to_string();
        self
    }

    /// Passes no GitHub token.
    pub fn without_token(mut self) -> Self {
        self.token = false;
        self
    }

    /// Edits the event payload.
    pub fn edit(mut self, edit: impl FnOnce(&mut Value)) -> Self {
        edit(&mut self.payload);
        self
    }

    /// Starts a fake GitHub knowing what the scenario says.
    pub async fn github(&self) -> FakeGitHub {
        let github = FakeGitHub::start().await;
        for (sha, answers) in &self.commit_pulls {
            github.set_commit_pulls(sha, answers.clone());
        }
        for pr in &self.pulls {
            github.set_pull(pr["number"].as_u64().unwrap(), pr.clone());
        }
        for (method, path) in &self.forbidden {
            github.forbid(method, path);
        }
        github
    }

    /// The run against `github`, with the look-up backoff of [`Scenario::backoff_ms`].
    pub fn action(&self, github: &FakeGitHub) -> ActionRun {
        let mut run = ActionRun::new(IMAGE, &github.api_url(), &self.event, &self.payload);
        run.args
            .extend(["--lookup-backoff-ms".to_string(), self.backoff_ms.clone()]);
        for (name, value) in &self.inputs {
            run = run.input(name, value);
        }
        for (name, value) in &self.vars {
            run = run.var(name, value);
        }
        if !self.token {
            run.env.remove("INPUT_GITHUB-TOKEN");
        }
        run
    }

    /// Starts the fake GitHub, runs the binary once, and writes down what it did.
    pub async fn observe(self) -> Seen {
        let github = self.github().await;
        let out = self.action(&github).run().await;
        let transcript = transcript(&out, &github).await;
        Seen {
            transcript,
            out,
            github,
        }
    }
}

/// A push of `commits` (SHA, message; oldest first) to `branch`, from the upstream
/// `push` example: `after` and `head_commit` are the last commit.
pub fn push_event(branch: &str, commits: &[(&str, &str)]) -> Value {
    let mut e = fixture("github-events/push_with-new-branch.payload.json");
    let template = e["commits"][0].clone();
    let list: Vec<Value> = commits
        .iter()
        .map(|(id, message)| {
            let mut c = template.clone();
            c["id"] = json!(id);
            c["message"] = json!(message);
            c["url"] = json!(format!("{SERVER_URL}/{OWNER}/{REPO}/commit/{id}"));
            c
        })
        .collect();
    e["ref"] = json!(format!("refs/heads/{branch}"));
    e["created"] = json!(false);
    e["before"] = json!(OTHER_SHA);
    e["after"] = json!(commits.last().unwrap().0);
    e["head_commit"] = list.last().unwrap().clone();
    e["commits"] = Value::Array(list);
    e
}

/// Everything a run did, as text for a snapshot: the exit code, every `$GITHUB_OUTPUT`
/// value, every request to GitHub in order (with the fields of each write's JSON body, its
/// Markdown `body` whole), the job summary, and what it printed (stdout without the
/// `::add-mask::` lines, which the secrets tests check; stderr when not empty). The fake's
/// address is the only variable part, written `[github]`.
pub async fn transcript(out: &Outcome, github: &FakeGitHub) -> String {
    let mut t = format!("exit code: {}\n\n$GITHUB_OUTPUT:\n", out.code);
    for (name, value) in &out.outputs {
        t += &format!("  {name}: {value}\n");
    }
    t += "\nrequests to GitHub:\n";
    for (method, path, body) in github.requests().await {
        t += &format!("  {method} {path}\n");
        if let Value::Object(fields) = body {
            for (name, value) in &fields {
                if name != "body" {
                    t += &format!("    {name}: {value}\n");
                }
            }
            if let Some(text) = fields.get("body").and_then(Value::as_str) {
                t += "    body:\n";
                for line in text.lines() {
                    t += &format!("    | {line}\n");
                }
            }
        }
    }
    t += "\n$GITHUB_STEP_SUMMARY:\n";
    for line in out.summary.lines() {
        t += &format!("  | {line}\n");
    }
    t += "\nstdout:\n";
    for line in out.stdout.lines() {
        if !line.starts_with("::add-mask::") {
            t += &format!("  {line}\n");
        }
    }
    if !out.stderr.is_empty() {
        t += "\nstderr:\n";
        for line in out.stderr.lines() {
            t += &format!("  {line}\n");
        }
    }
    scrub(&t, &[(&github.server.uri(), "[github]")])
}

/// One run's outcome and the requests it made to GitHub.
pub struct Step {
    /// What the run left behind.
    pub out: Outcome,
    /// Its requests, as `METHOD /route` (see [`FakeGitHub::calls_since`]).
    pub calls: Vec<String>,
    /// Its requests other than GET: (method, path, JSON body).
    pub writes: Vec<(String, String, Value)>,
}

impl Step {
    /// Panics with the run's output unless it exited 0.
    pub fn ok(self) -> Self {
        self.out.assert_success();
        self
    }

    /// An output's value.
    pub fn output(&self, name: &str) -> &str {
        self.out.output(name)
    }

    /// Its calls that are not reads.
    pub fn write_calls(&self) -> Vec<String> {
        self.calls
            .iter()
            .filter(|c| !c.starts_with("GET"))
            .cloned()
            .collect()
    }
}

/// Runs `run` against `github` and returns what this run did (runs before it excluded).
pub async fn step(github: &FakeGitHub, run: ActionRun) -> Step {
    let from = github.requests().await.len();
    let out = run.run().await;
    let calls = github.calls_since(from).await;
    let writes = github.requests().await[from..]
        .iter()
        .filter(|(m, _, _)| m != "GET")
        .cloned()
        .collect();
    Step { out, calls, writes }
}
