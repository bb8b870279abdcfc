//! A fake GitHub REST API that keeps state: releases, issues, comments and pull requests,
//! answered with GitHub's own example payloads (`tests/fixtures/github-rest`, MIT) edited
//! only where the scenario needs. Every request is recorded by wiremock, so tests assert
//! request bodies and counts. Faults (a 502 before or after the write took effect, a hang)
//! can be injected per route. Races are staged with [`FakeGitHub::race_first_lists`]:
//! every run's first listing sees the same state, as when runs list at the same instant.
//!
//! Every request the fake's handler serves, and every answer it gives, is checked against
//! GitHub's REST API description ([`super::openapi`]): the request body against the
//! operation's request body, the answer against its response for that status. A route added
//! to [`Handler::answer`] is checked as it is added. A test's own mocks mounted ahead of the
//! handler on [`FakeGitHub::server`] (malformed answers, on purpose) are not.

use serde_json::{Value, json};
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use wiremock::matchers::any;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

/// Loads a fixture from `tests/fixtures/`.
pub fn fixture(path: &str) -> Value {
    let full = super::registry::repo_root()
        .join("tests/fixtures")
        .join(path);
    serde_json::from_slice(
        &std::fs::read(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display())),
    )
    .unwrap()
}

/// An injected failure.
#[derive(Clone, Debug)]
pub struct Fault {
    /// HTTP method, e.g. `POST`.
    pub method: &'static str,
    /// A substring of the path, e.g. `/releases`.
    pub path_contains: &'static str,
    /// The status to answer with, e.g. 502.
    pub status: u16,
    /// Whether the write takes effect before the error is returned (the outcome a client
    /// cannot know).
    pub applied: bool,
    /// Delay before answering (a hang past the client's timeout).
    pub delay: Option<Duration>,
    /// How many times to fire.
    pub times: usize,
}

impl Fault {
    /// `method` on paths containing `path_contains` answers `status` the next `times`
    /// times, at once and without the write taking effect.
    pub fn on(
        method: &'static str,
        path_contains: &'static str,
        status: u16,
        times: usize,
    ) -> Self {
        Self {
            method,
            path_contains,
            status,
            applied: false,
            delay: None,
            times,
        }
    }

    /// The write takes effect before the error is returned.
    pub fn applied(mut self) -> Self {
        self.applied = true;
        self
    }

    /// The answer comes after 5 s (past the timeout the tests set) when `hangs`.
    pub fn hanging_if(mut self, hangs: bool) -> Self {
        self.delay = hangs.then(|| Duration::from_secs(5));
        self
    }

    /// The error it answers with, after its delay.
    fn answer(&self) -> ResponseTemplate {
        // GitHub's description gives `POST /deployments`'s 409 no body.
        let t = match self.status {
            409 => ResponseTemplate::new(409),
            status => error(status, "Server Error"),
        };
        match self.delay {
            Some(d) => t.set_delay(d),
            None => t,
        }
    }
}

/// The fake's state.
#[derive(Default)]
pub struct State {
    /// Releases, newest last (listed newest first).
    pub releases: Vec<Value>,
    /// Issues (and pull-request items, which carry `pull_request`).
    pub issues: Vec<Value>,
    /// Comments: (issue number, comment).
    pub comments: Vec<(u64, Value)>,
    /// Answers of `GET /commits/{sha}/pulls`, per SHA, served in order (the last repeats).
    pub commit_pulls: HashMap<String, VecDeque<Value>>,
    /// `GET /pulls/{n}` answers.
    pub pulls: HashMap<u64, Value>,
    /// Deployments, oldest first (listed newest first).
    pub deployments: Vec<Value>,
    /// Deployment statuses: (deployment id, status), oldest first (listed newest first).
    pub deployment_statuses: Vec<(u64, Value)>,
    /// Routes answering 403 "Resource not accessible by integration".
    pub forbidden: Vec<(&'static str, &'static str)>,
    /// Injected faults.
    pub faults: Vec<Fault>,
    /// Whether `POST /releases` accepts a tag that a release already has. GitHub's check is
    /// not atomic: two concurrent creates for one tag can both succeed (seen in the wild,
    /// e.g. kernalix7/winpodx#117). Off: the second create gets 422 `already_exists`.
    pub allow_duplicate_tags: bool,
    /// Staged race: see [`FakeGitHub::race_first_lists`].
    race: Option<RaceReads>,
    /// How many more `GET /releases` answer as if no release existed (a listing that lags).
    lagging_release_lists: usize,
    /// How many more `GET /deployments` answer as if no deployment existed.
    lagging_deployment_lists: usize,
    /// An issue (title, body, labels) opened just before the next `POST /issues` is served.
    issue_before_next_post: Option<(String, String, Vec<String>)>,
    /// Faults armed once the next `POST /issues` has been served.
    faults_after_issue_post: Vec<Fault>,
    /// How many more `GET /issues` answer as if no issue existed (a listing that lags).
    lagging_issue_lists: usize,
    /// A status state the next `DELETE /deployments/{id}` finds posted on that deployment
    /// just before it is served: the run that created a duplicate posting its first status
    /// between another run's `inactive` and `DELETE`.
    status_before_next_delete: Option<&'static str>,
    /// A status the next refused deployment `DELETE` finds posted just after it (by the
    /// run that created the deployment, settling the same duplicates).
    status_after_next_refused_delete: Option<&'static str>,
    /// What broke GitHub's REST API description so far, in requests or answers
    /// ([`Handler::check`]).
    violations: Vec<String>,
    next_id: u64,
}

/// The state each run's first listing of a route sees, and who has listed already.
#[derive(Default)]
struct RaceReads {
    snapshots: HashMap<&'static str, Vec<Value>>,
    seen: HashSet<(&'static str, String)>,
}

/// A running fake GitHub.
pub struct FakeGitHub {
    /// The wiremock server.
    pub server: MockServer,
    /// Its state.
    pub state: Arc<Mutex<State>>,
    /// The API path prefix: `""` for github.com, `/api/v3` for GitHub Enterprise Server.
    pub prefix: String,
}

/// The repository the fake serves.
pub const OWNER: &str = "octo-org";
/// The repository the fake serves.
pub const REPO: &str = "lab-image";
/// The web base the fake's links use.
pub const SERVER_URL: &str = "https://github.example";

impl FakeGitHub {
    /// Starts a fake at the root path (as api.github.com).
    pub async fn start() -> Self {
        Self::start_with_prefix("").await
    }

    /// Starts a fake serving under `prefix` (e.g. `/api/v3`, as GHES).
    pub async fn start_with_prefix(prefix: &str) -> Self {
        // Before serving: the handler checks every exchange against it.
        super::openapi::require_installed();
        let server = MockServer::start().await;
        let state = Arc::new(Mutex::new(State {
            next_id: 1000,
            ..Default::default()
        }));
        Mock::given(any())
            .respond_with(Handler {
                state: Arc::clone(&state),
                prefix: prefix.to_string(),
            })
            .mount(&server)
            .await;
        Self {
            server,
            state,
            prefix: prefix.to_string(),
        }
    }

    /// The API base URL to give codeq-rollout.
    pub fn api_url(&self) -> String {
        format!("{}{}", self.server.uri(), self.prefix)
    }

    /// All requests so far: (method, path with query, JSON body or Null).
    pub async fn requests(&self) -> Vec<(String, String, Value)> {
        self.server
            .received_requests()
            .await
            .unwrap_or_default()
            .iter()
            .map(|r| {
                let path = match r.url.query() {
                    Some(q) => format!("{}?{q}", r.url.path()),
                    None => r.url.path().to_string(),
                };
                (
                    r.method.to_string(),
                    path,
                    serde_json::from_slice(&r.body).unwrap_or(Value::Null),
                )
            })
            .collect()
    }

    /// The requests after the first `from`, as `METHOD /route` with the repository prefix
    /// and the query dropped, e.g. `POST /issues`.
    pub async fn calls_since(&self, from: usize) -> Vec<String> {
        let prefix = format!("/repos/{OWNER}/{REPO}");
        self.requests().await[from..]
            .iter()
            .map(|(m, p, _)| {
                let path = p.split('?').next().unwrap_or("");
                format!("{m} {}", path.strip_prefix(&prefix).unwrap_or(path))
            })
            .collect()
    }

    /// Requests other than GET.
    pub async fn writes(&self) -> Vec<(String, String, Value)> {
        self.requests()
            .await
            .into_iter()
            .filter(|(m, _, _)| m != "GET")
            .collect()
    }

    /// Adds a release as a human (or an earlier run) left it.
    pub fn add_release(&self, tag: &str, body: &str, target: &str) -> u64 {
        let mut s = self.state.lock().unwrap();
        let id = s.next();
        let r = release_json(id, tag, body, target, "");
        s.releases.push(r);
        id
    }

    /// Adds an issue with `labels` and `body`; returns its number.
    pub fn add_issue(&self, title: &str, body: &str, labels: &[&str], state: &str) -> u64 {
        let mut s = self.state.lock().unwrap();
        let n = s.next();
        let labels: Vec<String> = labels
            .iter()
            .map(std::string::ToString::to_string)
            .collect();
        let issue = issue_json(n, title, body, &labels, &[], state);
        s.issues.push(issue);
        n
    }

    /// Makes `GET /commits/{sha}/pulls` answer `answers` in turn (the last one repeats).
    pub fn set_commit_pulls(&self, sha: &str, answers: Vec<Value>) {
        self.state
            .lock()
            .unwrap()
            .commit_pulls
            .insert(sha.to_string(), answers.into());
    }

    /// Makes `GET /pulls/{n}` answer the full pull request of `pr` ([`full_pull`]): an
    /// item as [`pull_json`] makes it.
    pub fn set_pull(&self, number: u64, pr: Value) {
        self.state
            .lock()
            .unwrap()
            .pulls
            .insert(number, full_pull(&pr));
    }

    /// Makes `method` on paths containing `path` answer 403 "Resource not accessible by
    /// integration", as GitHub does when the token lacks a permission.
    pub fn forbid(&self, method: &'static str, path: &'static str) {
        self.state.lock().unwrap().forbidden.push((method, path));
    }

    /// Injects a fault.
    pub fn fault(&self, fault: Fault) {
        self.state.lock().unwrap().faults.push(fault);
    }

    /// Stages a race between runs: the first `GET /releases` and the first `GET /issues`
    /// of each run (runs are told apart by their token, as two workflow runs have two) are
    /// answered from the state at the first such listing by any run; later listings see the
    /// live state. This is the interleaving where every run lists before any run creates,
    /// made certain whatever the timing of the processes.
    pub fn race_first_lists(&self) {
        self.state.lock().unwrap().race = Some(RaceReads::default());
    }

    /// Stages the race of [`State::status_before_next_delete`]: the next deployment
    /// `DELETE` finds a status of `state` posted on its deployment just before.
    pub fn status_before_next_delete(&self, state: &'static str) {
        self.state.lock().unwrap().status_before_next_delete = Some(state);
    }

    /// Stages the race of [`State::status_after_next_refused_delete`]: a status of `state`
    /// posted on the deployment just after the next `DELETE` GitHub refuses.
    pub fn status_after_next_refused_delete(&self, state: &'static str) {
        self.state.lock().unwrap().status_after_next_refused_delete = Some(state);
    }

    /// Makes the next `times` listings of releases miss every release that exists, as a
    /// listing lagging behind the releases does; the tag check of `POST /releases` still
    /// sees them.
    pub fn lag_release_listing(&self, times: usize) {
        self.state.lock().unwrap().lagging_release_lists = times;
    }

    /// Makes the next `times` listings of deployments miss every deployment that exists, as
    /// a listing taken before another run's POST does.
    pub fn lag_deployment_listing(&self, times: usize) {
        self.state.lock().unwrap().lagging_deployment_lists = times;
    }

    /// Opens an issue with `title`, `body` and `labels` just before the next `POST /issues`
    /// is served: another run's POST landing first, so it gets the lower number.
    pub fn open_issue_before_next_post(&self, title: &str, body: &str, labels: &[&str]) {
        let labels = labels
            .iter()
            .map(std::string::ToString::to_string)
            .collect();
        self.state.lock().unwrap().issue_before_next_post =
            Some((title.to_string(), body.to_string(), labels));
    }

    /// Arms `fault` once the next `POST /issues` has been served: a failure of a step after
    /// the run opened its issue.
    pub fn fault_after_next_issue_post(&self, fault: Fault) {
        self.state
            .lock()
            .unwrap()
            .faults_after_issue_post
            .push(fault);
    }

    /// Makes the next `times` listings of issues miss every issue, as a listing lagging
    /// behind the issues does.
    pub fn lag_issue_listing(&self, times: usize) {
        self.state.lock().unwrap().lagging_issue_lists = times;
    }

    /// What broke GitHub's REST API description so far (requests the fake received, answers
    /// it gave), taken: a test that breaks it on purpose reads them here, so the drop does
    /// not fail the test.
    pub fn take_violations(&self) -> Vec<String> {
        std::mem::take(&mut self.state.lock().unwrap().violations)
    }

    /// Lets two releases share a tag, as GitHub's non-atomic check sometimes does.
    pub fn allow_duplicate_tags(&self) {
        self.state.lock().unwrap().allow_duplicate_tags = true;
    }

    /// Changes release `id` in place (e.g. as a human editing it in the web UI).
    pub fn edit_release(&self, id: u64, edit: impl FnOnce(&mut Value)) {
        edit(find(&mut self.state.lock().unwrap().releases, "id", id));
    }

    /// Changes issue `number` in place (e.g. a responder ticking a box).
    pub fn edit_issue(&self, number: u64, edit: impl FnOnce(&mut Value)) {
        edit(find(
            &mut self.state.lock().unwrap().issues,
            "number",
            number,
        ));
    }

    /// Adds a comment to issue `number` (as a human, or an earlier run, left it).
    pub fn add_comment(&self, number: u64, body: &str) -> u64 {
        self.add_comment_by(number, body, None)
    }

    /// Adds a comment on issue `number` written by `login` (the fixture's account when
    /// `None`).
    pub fn add_comment_by(&self, number: u64, body: &str, login: Option<&str>) -> u64 {
        let mut s = self.state.lock().unwrap();
        let id = s.next();
        let mut c = fixture("github-rest/issue-comment.json");
        c["id"] = json!(id);
        c["body"] = json!(body);
        if let Some(login) = login {
            c["user"]["login"] = json!(login);
        }
        s.comments.push((number, c));
        if let Some(i) = s.issues.iter_mut().find(|i| i["number"] == json!(number)) {
            i["comments"] = json!(i["comments"].as_u64().unwrap_or(0) + 1);
        }
        id
    }

    /// Adds a deployment of `sha` to `environment` with `payload` (as a human, another tool
    /// or an earlier run left it), from GitHub's example; returns its id.
    pub fn add_deployment(&self, sha: &str, environment: &str, payload: Value) -> u64 {
        let mut s = self.state.lock().unwrap();
        let id = s.next();
        let d = deployment_json(id, sha, environment, payload, "");
        s.deployments.push(d);
        id
    }

    /// Adds a status of `state` to deployment `id`, from GitHub's example.
    pub fn add_deployment_status(&self, id: u64, state: &str, description: &str) {
        let mut s = self.state.lock().unwrap();
        let status_id = s.next();
        let st = deployment_status_json(
            status_id,
            id,
            &json!({"state": state, "description": description}),
        );
        s.deployment_statuses.push((id, st));
    }

    /// Deployments in the fake now, oldest first.
    pub fn deployments(&self) -> Vec<Value> {
        self.state.lock().unwrap().deployments.clone()
    }

    /// Statuses of deployment `id`, oldest first.
    pub fn deployment_statuses(&self, id: u64) -> Vec<Value> {
        of(&self.state.lock().unwrap().deployment_statuses, id)
    }

    /// Releases in the fake now.
    pub fn releases(&self) -> Vec<Value> {
        self.state.lock().unwrap().releases.clone()
    }

    /// Issues (not PR items) in the fake now.
    pub fn issues(&self) -> Vec<Value> {
        self.state
            .lock()
            .unwrap()
            .issues
            .iter()
            .filter(|i| i.get("pull_request").is_none())
            .cloned()
            .collect()
    }

    /// Comments on issue `number`.
    pub fn comments(&self, number: u64) -> Vec<Value> {
        of(&self.state.lock().unwrap().comments, number)
    }
}

/// The objects of `owner` (a deployment's statuses, an issue's comments) among `all`.
fn of(all: &[(u64, Value)], owner: u64) -> Vec<Value> {
    let mine = all.iter().filter(|(o, _)| *o == owner);
    mine.map(|(_, v)| v.clone()).collect()
}

impl Drop for FakeGitHub {
    /// Fails the test when a request or an answer broke GitHub's description (unless the
    /// test failed already: its own failure is the one to read).
    fn drop(&mut self) {
        let violations = self.take_violations();
        if !violations.is_empty() && !std::thread::panicking() {
            panic!(
                "the fake GitHub saw {} request(s) or answer(s) breaking GitHub's REST API \
                 description:\n{}",
                violations.len(),
                violations.join("\n")
            );
        }
    }
}

impl State {
    fn next(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// `live` as `token` sees it on `route`: the race snapshot on its first listing when a
    /// race is staged, else `live` itself.
    fn listing(&mut self, route: &'static str, token: &str, live: Vec<Value>) -> Vec<Value> {
        let Some(race) = &mut self.race else {
            return live;
        };
        if race.seen.insert((route, token.to_string())) {
            race.snapshots.entry(route).or_insert(live).clone()
        } else {
            live
        }
    }

    /// `GET /releases`: the releases as `token` sees them (none while the listing lags),
    /// newest first, one page of them.
    fn list_releases(&mut self, token: &str, query: &HashMap<String, String>) -> ResponseTemplate {
        let live = lagged(&mut self.lagging_release_lists, &self.releases);
        let mut all = self.listing("releases", token, live);
        all.reverse();
        ResponseTemplate::new(200).set_body_json(page(all, query))
    }

    /// `POST /releases`: refused as GitHub refuses a tag that has a release, else created.
    fn create_release(&mut self, body: &Value) -> ResponseTemplate {
        let tag = body["tag_name"].as_str().unwrap_or("").to_string();
        if !self.allow_duplicate_tags && self.releases.iter().any(|r| r["tag_name"] == json!(tag)) {
            already_exists("Release", "tag_name")
        } else {
            let id = self.next();
            let r = release_json(
                id,
                &tag,
                body["body"].as_str().unwrap_or(""),
                body["target_commitish"].as_str().unwrap_or(""),
                body["name"].as_str().unwrap_or(""),
            );
            self.releases.push(r.clone());
            ResponseTemplate::new(201).set_body_json(r)
        }
    }

    /// `GET /issues`: the issues of the asked state (`open` by default) carrying every asked
    /// label (any case), as `token` sees them, newest first, one page of them.
    fn list_issues(&mut self, token: &str, query: &HashMap<String, String>) -> ResponseTemplate {
        let want_state = query.get("state").cloned().unwrap_or_else(|| "open".into());
        let want_labels: Vec<String> = query
            .get("labels")
            .map(|l| {
                l.split(',')
                    .map(|s| s.trim().to_lowercase())
                    .filter(|s| !s.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        let live = lagged(&mut self.lagging_issue_lists, &self.issues);
        let mut all: Vec<Value> = self
            .listing("issues", token, live)
            .into_iter()
            .filter(|i| want_state == "all" || i["state"] == json!(want_state))
            .filter(|i| {
                let have: Vec<String> = i["labels"]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|l| l["name"].as_str())
                            .map(str::to_lowercase)
                            .collect()
                    })
                    .unwrap_or_default();
                want_labels.iter().all(|w| have.contains(w))
            })
            .collect();
        all.reverse();
        ResponseTemplate::new(200).set_body_json(page(all, query))
    }

    /// `POST /issues`: opened (after another run's issue, when one is armed to come first);
    /// arms the faults set for after an issue's POST.
    fn create_issue(&mut self, body: &Value) -> ResponseTemplate {
        if let Some((title, body, labels)) = self.issue_before_next_post.take() {
            let n = self.next();
            let first = issue_json(n, &title, &body, &labels, &[], "open");
            self.issues.push(first);
        }
        let n = self.next();
        let strings = |v: &Value| -> Vec<String> {
            v.as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|x| x.as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default()
        };
        let i = issue_json(
            n,
            body["title"].as_str().unwrap_or(""),
            body["body"].as_str().unwrap_or(""),
            &strings(&body["labels"]),
            &strings(&body["assignees"]),
            "open",
        );
        self.issues.push(i.clone());
        let armed = std::mem::take(&mut self.faults_after_issue_post);
        self.faults.extend(armed);
        ResponseTemplate::new(201).set_body_json(i)
    }

    /// `POST /issues/{n}/comments`: the comment, counted on its issue.
    fn create_comment(&mut self, n: &str, body: &Value) -> ResponseTemplate {
        let n: u64 = n.parse().unwrap_or(0);
        let id = self.next();
        let mut c = fixture("github-rest/issue-comment.json");
        c["id"] = json!(id);
        c["body"] = body["body"].clone();
        c["html_url"] = json!(format!(
            "{SERVER_URL}/{OWNER}/{REPO}/issues/{n}#issuecomment-{id}"
        ));
        self.comments.push((n, c.clone()));
        if let Some(i) = self.issues.iter_mut().find(|i| i["number"] == json!(n)) {
            i["comments"] = json!(i["comments"].as_u64().unwrap_or(0) + 1);
        }
        ResponseTemplate::new(201).set_body_json(c)
    }

    /// `DELETE /issues/comments/{id}`: gone, no longer counted on its issue; 404 when absent.
    fn delete_comment(&mut self, id: &str) -> ResponseTemplate {
        let id: u64 = id.parse().unwrap_or(0);
        let Some(at) = self.comments.iter().position(|(_, c)| c["id"] == json!(id)) else {
            return error(404, "Not Found");
        };
        let (n, _) = self.comments.remove(at);
        if let Some(i) = self.issues.iter_mut().find(|i| i["number"] == json!(n)) {
            i["comments"] = json!(i["comments"].as_u64().unwrap_or(1) - 1);
        }
        ResponseTemplate::new(204)
    }
}

impl State {
    /// `GET /deployments`: filtered by `environment` (any case) and `sha`, as `token` sees
    /// them, newest first, one page.
    fn list_deployments(
        &mut self,
        token: &str,
        query: &HashMap<String, String>,
    ) -> ResponseTemplate {
        let live = lagged(&mut self.lagging_deployment_lists, &self.deployments);
        let mut all: Vec<Value> = self
            .listing("deployments", token, live)
            .into_iter()
            .filter(|d| {
                query.get("environment").is_none_or(|e| {
                    d["environment"].as_str().unwrap_or("").to_lowercase() == e.to_lowercase()
                })
            })
            .filter(|d| query.get("sha").is_none_or(|sha| d["sha"] == json!(sha)))
            .collect();
        all.reverse();
        ResponseTemplate::new(200).set_body_json(page(all, query))
    }

    /// `POST /deployments`: GitHub's example, with the fields sent.
    fn create_deployment(&mut self, body: &Value) -> ResponseTemplate {
        let id = self.next();
        let d = deployment_json(
            id,
            body["ref"].as_str().unwrap_or(""),
            body["environment"].as_str().unwrap_or("production"),
            body["payload"].clone(),
            body["description"].as_str().unwrap_or(""),
        );
        self.deployments.push(d.clone());
        ResponseTemplate::new(201).set_body_json(d)
    }

    /// `GET /deployments/{id}/statuses`: newest first, one page; 404 for no deployment.
    fn list_deployment_statuses(
        &self,
        id: &str,
        query: &HashMap<String, String>,
    ) -> ResponseTemplate {
        let id: u64 = id.parse().unwrap_or(0);
        if !self.deployments.iter().any(|d| d["id"] == json!(id)) {
            return error(404, "Not Found");
        }
        let mut all: Vec<Value> = self
            .deployment_statuses
            .iter()
            .filter(|(d, _)| *d == id)
            .map(|(_, s)| s.clone())
            .collect();
        all.reverse();
        ResponseTemplate::new(200).set_body_json(page(all, query))
    }

    /// `POST /deployments/{id}/statuses`.
    fn create_deployment_status(&mut self, id: &str, body: &Value) -> ResponseTemplate {
        let id: u64 = id.parse().unwrap_or(0);
        if !self.deployments.iter().any(|d| d["id"] == json!(id)) {
            return error(404, "Not Found");
        }
        let status_id = self.next();
        let st = deployment_status_json(status_id, id, body);
        self.deployment_statuses.push((id, st.clone()));
        ResponseTemplate::new(201).set_body_json(st)
    }

    /// `DELETE /deployments/{id}`: GitHub deletes only an inactive deployment while the
    /// repository has others (422 otherwise).
    fn delete_deployment(&mut self, id: &str) -> ResponseTemplate {
        let id: u64 = id.parse().unwrap_or(0);
        if !self.deployments.iter().any(|d| d["id"] == json!(id)) {
            return error(404, "Not Found");
        }
        if let Some(state) = self.status_before_next_delete.take() {
            let status_id = self.next();
            let st = deployment_status_json(status_id, id, &json!({"state": state}));
            self.deployment_statuses.push((id, st));
        }
        let latest = self
            .deployment_statuses
            .iter()
            .rev()
            .find(|(d, _)| *d == id)
            .map(|(_, s)| s["state"].clone());
        if self.deployments.len() > 1 && latest != Some(json!("inactive")) {
            if let Some(state) = self.status_after_next_refused_delete.take() {
                let status_id = self.next();
                let st = deployment_status_json(status_id, id, &json!({"state": state}));
                self.deployment_statuses.push((id, st));
            }
            return error(
                422,
                "We cannot delete an active deployment unless it is the only deployment in a given environment.",
            );
        }
        self.deployments.retain(|d| d["id"] != json!(id));
        ResponseTemplate::new(204)
    }
}

/// `live`, or nothing while `lagging` listings are left to miss it (one fewer after this one).
fn lagged(lagging: &mut usize, live: &[Value]) -> Vec<Value> {
    match lagging.checked_sub(1) {
        Some(left) => {
            *lagging = left;
            Vec::new()
        }
        None => live.to_vec(),
    }
}

fn deployment_json(
    id: u64,
    sha: &str,
    environment: &str,
    payload: Value,
    description: &str,
) -> Value {
    let mut d = fixture("github-rest/deployment.json");
    let url = format!("https://api.github.example/repos/{OWNER}/{REPO}/deployments/{id}");
    merge(
        &mut d,
        json!({
            "id": id, "sha": sha, "ref": sha, "environment": environment,
            "original_environment": environment, "payload": payload,
            "description": description, "production_environment": true,
            "statuses_url": format!("{url}/statuses"), "url": url,
        }),
    );
    d
}

fn deployment_status_json(id: u64, deployment: u64, body: &Value) -> Value {
    let mut st = fixture("github-rest/deployment-status.json");
    let url = format!("https://api.github.example/repos/{OWNER}/{REPO}/deployments/{deployment}");
    merge(
        &mut st,
        json!({
            "id": id, "state": body["state"],
            "description": body["description"].as_str().unwrap_or(""),
            "deployment_url": url, "url": format!("{url}/statuses/{id}"),
        }),
    );
    // The addresses sent; the example's `target_url` (required) when no `log_url` was.
    let object = st.as_object_mut().unwrap();
    for key in ["environment_url", "log_url"] {
        match body[key].as_str() {
            Some(u) => {
                object.insert(key.into(), json!(u));
            }
            None => {
                object.remove(key);
            }
        }
    }
    if let Some(u) = body["log_url"].as_str() {
        object.insert("target_url".into(), json!(u));
    }
    st
}

/// A pull request as `GET /pulls/{n}` and `GET /commits/{sha}/pulls` return it, from the
/// REST example, merged into `base` with merge commit `merge_sha` and `labels`.
pub fn pull_json(
    number: u64,
    title: &str,
    labels: &[&str],
    merge_sha: Option<&str>,
    base: &str,
) -> Value {
    let mut pr = fixture("github-rest/pull-request-simple-items.json")[0].clone();
    pr["number"] = json!(number);
    pr["title"] = json!(title);
    pr["html_url"] = json!(format!("{SERVER_URL}/{OWNER}/{REPO}/pull/{number}"));
    pr["labels"] = Value::Array(labels.iter().map(|l| label_json(l)).collect());
    pr["base"]["ref"] = json!(base);
    match merge_sha {
        Some(sha) => {
            pr["state"] = json!("closed");
            pr["merged_at"] = json!("2026-11-30T11:55:00Z");
            pr["merge_commit_sha"] = json!(sha);
        }
        None => {
            pr["state"] = json!("open");
            pr["merged_at"] = Value::Null;
        }
    }
    pr
}

/// The full pull request `GET /pulls/{n}` answers (GitHub's `pull-request` example) with the
/// fields of `item` (a pull-request item, as [`pull_json`] makes it) set on it, and `merged`
/// set from `merged_at` unless `item` says.
pub fn full_pull(item: &Value) -> Value {
    let mut pr = fixture("github-rest/pull-request.json");
    merge(&mut pr, item.clone());
    if item.get("merged").is_none() {
        pr["merged"] = json!(!item["merged_at"].is_null());
    }
    pr
}

fn label_json(name: &str) -> Value {
    let mut l = fixture("github-rest/issue.json")["labels"][0].clone();
    l["name"] = json!(name);
    l
}

/// The item of `items` whose `key` is `id`.
fn find<'a>(items: &'a mut [Value], key: &str, id: u64) -> &'a mut Value {
    items
        .iter_mut()
        .find(|item| item[key] == json!(id))
        .unwrap_or_else(|| panic!("no item with {key} {id}"))
}

/// Copies of `template`, one per name, with `field` set to the name (labels from one
/// example label, assignees from one example user).
pub fn named(template: &Value, field: &str, names: &[impl AsRef<str>]) -> Value {
    names
        .iter()
        .map(|name| {
            let mut copy = template.clone();
            copy[field] = json!(name.as_ref());
            copy
        })
        .collect()
}

/// Sets the fields of the JSON object `fields` on `target` (the edits a scenario makes to
/// one of GitHub's example payloads).
pub fn merge(target: &mut Value, fields: Value) {
    for (k, v) in fields.as_object().cloned().unwrap_or_default() {
        target[k.as_str()] = v;
    }
}

fn release_json(id: u64, tag: &str, body: &str, target: &str, name: &str) -> Value {
    let mut r = fixture("github-rest/release.json");
    merge(
        &mut r,
        json!({
            "id": id, "tag_name": tag, "name": name, "body": body,
            "target_commitish": target, "draft": false, "prerelease": false,
            "html_url": format!("{SERVER_URL}/{OWNER}/{REPO}/releases/tag/{tag}"),
        }),
    );
    r
}

fn issue_json(
    number: u64,
    title: &str,
    body: &str,
    labels: &[String],
    assignees: &[String],
    state: &str,
) -> Value {
    let mut i = fixture("github-rest/issue.json");
    i.as_object_mut().unwrap().remove("pull_request");
    let assignees = named(&i["user"], "login", assignees);
    merge(
        &mut i,
        json!({
            "id": number * 10, "number": number, "title": title, "body": body,
            "state": state, "labels": named(&label_json(""), "name", labels),
            "assignees": assignees, "comments": 0,
            "html_url": format!("{SERVER_URL}/{OWNER}/{REPO}/issues/{number}"),
        }),
    );
    i
}

struct Handler {
    state: Arc<Mutex<State>>,
    prefix: String,
}

/// The status and body of `answer`. wiremock 0.6 keeps both private and serves them as they
/// are; its `Debug` form (`ResponseTemplate { …, status_code: 200, …, body: Some([123, …]),
/// … }`) is the one way to read them back.
fn status_and_body(answer: &ResponseTemplate) -> (u16, Vec<u8>) {
    let debug = format!("{answer:?}");
    let field = |name: &str| {
        let start = debug.find(name).map(|i| i + name.len());
        start.map(|i| &debug[i..])
    };
    let status = field("status_code: ")
        .and_then(|rest| rest.get(..3))
        .and_then(|digits| digits.parse().ok())
        .unwrap_or_else(|| panic!("no status in {debug}"));
    let body = match field("body: Some([") {
        Some(rest) => {
            let list = &rest[..rest.find(']').expect("the body's end")];
            list.split(", ")
                .filter(|b| !b.is_empty())
                .map(|b| b.parse().expect("a byte"))
                .collect()
        }
        None => Vec::new(),
    };
    (status, body)
}

fn page(items: Vec<Value>, query: &HashMap<String, String>) -> Vec<Value> {
    let per_page: usize = query
        .get("per_page")
        .and_then(|v| v.parse().ok())
        .unwrap_or(30);
    let page: usize = query.get("page").and_then(|v| v.parse().ok()).unwrap_or(1);
    items
        .into_iter()
        .skip((page - 1) * per_page)
        .take(per_page)
        .collect()
}

/// Sets the fields of `body` on the item whose `key` is `id` (a PATCH), answering it as
/// changed, or 404.
fn patch(items: &mut [Value], key: &str, id: &str, body: &Value) -> ResponseTemplate {
    let id: u64 = id.parse().unwrap_or(0);
    match items.iter_mut().find(|item| item[key] == json!(id)) {
        Some(item) => {
            merge(item, body.clone());
            ResponseTemplate::new(200).set_body_json(item.clone())
        }
        None => error(404, "Not Found"),
    }
}

/// GitHub's 422 for a field that must be unique, e.g. a release's `tag_name`.
fn already_exists(resource: &str, field: &str) -> ResponseTemplate {
    ResponseTemplate::new(422).set_body_json(json!({
        "message": "Validation Failed",
        "errors": [{ "resource": resource, "code": "already_exists", "field": field }],
        "documentation_url": "https://docs.github.com/rest/releases/releases#create-a-release",
        "status": "422",
    }))
}

fn error(status: u16, message: &str) -> ResponseTemplate {
    ResponseTemplate::new(status).set_body_json(json!({
        "message": message,
        "documentation_url": "https://docs.github.com/rest",
        "status": status.to_string(),
    }))
}

impl Respond for Handler {
    /// The answer of [`Handler::answer`], once the request and the answer are checked against
    /// GitHub's description ([`Handler::check`]).
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let answer = self.answer(req);
        self.check(req, &answer);
        answer
    }
}

impl Handler {
    /// Checks `req` and `answer` against GitHub's REST API description
    /// ([`super::openapi`]): every route the fake serves, whoever adds it. What breaks it is
    /// printed at once and kept in [`State::violations`], which fail the test when the fake
    /// is dropped ([`FakeGitHub::take_violations`] reads them). Requests outside the API
    /// prefix are not GitHub's (the fake answers them 404, as another server would).
    fn check(&self, req: &Request, answer: &ResponseTemplate) {
        let Some(path) = req.url.path().strip_prefix(&self.prefix) else {
            return;
        };
        let method = req.method.as_str();
        let (status, body) = status_and_body(answer);
        let github = super::openapi::description();
        let found: Vec<String> = [
            github.check_request(method, path, &req.body),
            github.check_response(method, path, status, &body),
        ]
        .into_iter()
        .filter_map(Result::err)
        .collect();
        for violation in &found {
            eprintln!("fake GitHub: {violation}");
        }
        self.state.lock().unwrap().violations.extend(found);
    }

    /// The fake's answer to `req`, from its state.
    fn answer(&self, req: &Request) -> ResponseTemplate {
        let mut s = self.state.lock().unwrap();
        let method = req.method.to_string();
        let Some(path) = req.url.path().strip_prefix(&self.prefix) else {
            return error(404, "Not Found");
        };
        let path = path.to_string();
        let query: HashMap<String, String> = req.url.query_pairs().into_owned().collect();
        let body: Value = serde_json::from_slice(&req.body).unwrap_or(Value::Null);
        let token = super::header_of(req, "authorization");

        if s.forbidden
            .iter()
            .any(|(m, p)| *m == method && path.contains(p))
        {
            return error(403, "Resource not accessible by integration");
        }
        let mut fault = None;
        if let Some(f) = s
            .faults
            .iter_mut()
            .find(|f| f.times > 0 && f.method == method && path.contains(f.path_contains))
        {
            f.times -= 1;
            fault = Some(f.clone());
        }
        if let Some(f) = &fault {
            if !f.applied {
                return f.answer();
            }
        }

        let repo = format!("/repos/{OWNER}/{REPO}");
        let Some(route) = path.strip_prefix(&repo) else {
            return error(404, "Not Found");
        };
        let parts: Vec<&str> = route.trim_start_matches('/').split('/').collect();
        let answer = match (method.as_str(), parts.as_slice()) {
            ("GET", ["releases"]) => s.list_releases(&token, &query),
            ("POST", ["releases"]) => s.create_release(&body),
            ("PATCH", ["releases", id]) => patch(&mut s.releases, "id", id, &body),
            ("DELETE", ["releases", id]) => {
                let id: u64 = id.parse().unwrap_or(0);
                let before = s.releases.len();
                s.releases.retain(|r| r["id"] != json!(id));
                if s.releases.len() < before {
                    ResponseTemplate::new(204)
                } else {
                    error(404, "Not Found")
                }
            }
            ("GET", ["issues"]) => s.list_issues(&token, &query),
            ("POST", ["issues"]) => s.create_issue(&body),
            ("PATCH", ["issues", n]) => patch(&mut s.issues, "number", n, &body),
            ("GET", ["issues", n, "comments"]) => {
                let n: u64 = n.parse().unwrap_or(0);
                let all: Vec<Value> = s
                    .comments
                    .iter()
                    .filter(|(i, _)| *i == n)
                    .map(|(_, c)| c.clone())
                    .collect();
                ResponseTemplate::new(200).set_body_json(page(all, &query))
            }
            ("POST", ["issues", n, "comments"]) => s.create_comment(n, &body),
            ("PATCH", ["issues", "comments", id]) => {
                let id: u64 = id.parse().unwrap_or(0);
                match s.comments.iter_mut().find(|(_, c)| c["id"] == json!(id)) {
                    Some((_, c)) => {
                        c["body"] = body["body"].clone();
                        ResponseTemplate::new(200).set_body_json(c.clone())
                    }
                    None => error(404, "Not Found"),
                }
            }
            ("DELETE", ["issues", "comments", id]) => s.delete_comment(id),
            ("GET", ["deployments"]) => s.list_deployments(&token, &query),
            ("POST", ["deployments"]) => s.create_deployment(&body),
            ("DELETE", ["deployments", id]) => s.delete_deployment(id),
            ("GET", ["deployments", id, "statuses"]) => s.list_deployment_statuses(id, &query),
            ("POST", ["deployments", id, "statuses"]) => s.create_deployment_status(id, &body),
            ("GET", ["commits", sha, "pulls"]) => {
                let answer = match s.commit_pulls.get_mut(*sha) {
                    Some(q) if q.len() > 1 => q.pop_front().unwrap(),
                    Some(q) => q.front().cloned().unwrap_or(json!([])),
                    None => json!([]),
                };
                ResponseTemplate::new(200).set_body_json(answer)
            }
            ("GET", ["pulls", n]) => {
                let n: u64 = n.parse().unwrap_or(0);
                match s.pulls.get(&n) {
                    Some(pr) => ResponseTemplate::new(200).set_body_json(pr.clone()),
                    None => error(404, "Not Found"),
                }
            }
            _ => error(404, "Not Found"),
        };
        match fault {
            Some(f) => f.answer(),
            None => answer,
        }
    }
}
