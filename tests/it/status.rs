//! `codeq-rollout status` on the real JupyterHub rig (tests/it/common/hub.rs): the binary,
//! with a token of exactly the scopes README documents, reports the hub's truth (which
//! servers, their states, start times, the counts and the deadlines of the release note's
//! model at the hub's scale); the real idle culler then stops every stale server by the
//! deadline `status` gave; the hub's log shows only GET requests from `status`'s token,
//! one page for a handful of servers. Bad input against the same hub (unknown token, token
//! without scopes, URL not the hub's API, hub unreachable) fails with the error saying
//! what to do, and sends nothing but GETs.

use crate::common::github::FakeGitHub;
use crate::common::hub::{Hub, HubSettings, ServerView, iso, parse_iso, reader_config, unix_now};
use crate::common::{run_codeq, scrub};
use codeq_rollout::{AtScaleModel, CullerModel, ServerTimes};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;
use time::OffsetDateTime;

/// The token of the hub service holding the role of `src/status/hub/role.yaml`.
const READER_TOKEN: &str = "status-reader-token-0123456789abcdef";
/// The hub's largest page here (JupyterHub's `api_page_max_limit`, 200 by default): small, so
/// that three servers take two pages and `status` must follow the hub's `next`.
const PAGE: u64 = 2;
/// The culler and hub settings of the rig `status` measures, in seconds: the options
/// [`status`] passes and the inputs of the Action's run.
const RIG: HubSettings = HubSettings {
    timeout: 6,
    every: 2,
    max_age: 20,
    slow_stop_timeout: 1,
};
/// A culler too slow to stop anything during a test.
const SLOW_CULLER: HubSettings = HubSettings {
    timeout: 600,
    every: 300,
    max_age: 0,
    slow_stop_timeout: 1,
};
/// A service token with no role at all.
const NO_SCOPE_TOKEN: &str = "status-no-scope-token-0123456789abcdef";

fn extra_config() -> String {
    format!(
        r#"{}c.JupyterHub.services.append({{"name": "no-scope", "api_token": "{NO_SCOPE_TOKEN}"}})
c.JupyterHub.api_page_max_limit = {PAGE}
"#,
        reader_config(READER_TOKEN)
    )
}

/// Runs `status` against `base` with `token`, the release at `released_at` and the culler
/// and hub `settings`, then `args`; (exit code, stdout, stderr).
fn status(
    settings: &HubSettings,
    base: &str,
    token: &str,
    released_at: &str,
    args: &[&str],
) -> (i32, String, String) {
    let common = ["status", "--hub-url", base, "--hub-token", token];
    let mut all: Vec<String> = common.iter().map(ToString::to_string).collect();
    all.extend(["--released-at", released_at, "--hub-timeout", "10s"].map(String::from));
    all.extend(settings.options());
    all.extend(args.iter().map(ToString::to_string));
    let all: Vec<&str> = all.iter().map(String::as_str).collect();
    run_codeq(&all, &BTreeMap::new())
}

/// The hub log's request lines sent with `service`'s token: `(METHOD, path)`.
fn requests_of(hub: &Hub, service: &str) -> Vec<(String, String)> {
    let who = format!("({service}@");
    hub.log()
        .lines()
        .filter(|l| l.contains(&who))
        .filter_map(|l| {
            let mut words = l
                .split_whitespace()
                .skip_while(|w| w.parse::<u16>().is_err());
            words.next()?;
            Some((words.next()?.to_string(), words.next()?.to_string()))
        })
        .collect()
}

fn time(v: &Value) -> OffsetDateTime {
    OffsetDateTime::parse(
        v.as_str().unwrap_or_else(|| panic!("not a time: {v}")),
        &time::format_description::well_known::Rfc3339,
    )
    .unwrap()
}

/// A hub with `settings`, the services and page size of [`extra_config`]; and its address
/// (the base `status` takes, without `/hub/api`).
async fn status_hub(settings: HubSettings) -> (Hub, String) {
    let hub = Hub::start_with(settings, &extra_config()).await;
    let base = hub.api.trim_end_matches("/hub/api").to_string();
    (hub, base)
}

/// Checks `status`'s JSON `report` against the hub's `truth` server by server (start
/// times, states, deadlines by the model at the hub's scale) and its totals; returns each
/// stale server's deadline (unix seconds, end of the second given).
fn check_against_the_hub(
    report: &Value,
    truth: &[ServerView],
    settings: &HubSettings,
    measured_at: OffsetDateTime,
) -> BTreeMap<String, f64> {
    let model = AtScaleModel {
        settings: settings.cull(),
        scale: settings.scale(3),
    };
    crate::common::hub::assert_status_json_shape(report);
    let mut deadlines = BTreeMap::new();
    let servers = report["servers"].as_array().unwrap();
    assert_eq!(servers.len(), truth.len(), "{report:#}");
    for view in truth {
        let row = servers
            .iter()
            .find(|s| s["user"] == view.user.as_str())
            .unwrap_or_else(|| panic!("{} missing from {report:#}", view.user));
        let started = parse_iso(row["started"].as_str().unwrap());
        assert!(
            (started - view.started).abs() < 1.0,
            "{}: {started} vs {}",
            view.user,
            view.started
        );
        let expected_state = if view.user == "fresh" {
            "updated"
        } else if measured_at.unix_timestamp() as f64 - view.last_activity < 6.0 - 1.0 {
            "stale-active"
        } else {
            "stale-idle"
        };
        // At a second's precision the boundary could go either way: only assert away from it.
        if (measured_at.unix_timestamp() as f64 - view.last_activity - 6.0).abs() > 1.0 {
            assert_eq!(row["state"], expected_state, "{}: {report:#}", view.user);
        }
        if view.user != "fresh" {
            let times = ServerTimes {
                started: Some(time(&row["started"])),
                last_activity: Some(time(&row["last_activity"])),
            };
            let expected = model.deadline(&times, measured_at).unwrap();
            let given = time(&row["deadline"]);
            assert!(
                (given - expected).abs() <= time::Duration::seconds(1),
                "{}: deadline {given} vs the model's {expected}",
                view.user
            );
            deadlines.insert(view.user.clone(), given.unix_timestamp() as f64 + 1.0);
        } else {
            assert!(row["deadline"].is_null());
        }
    }
    let totals = &report["totals"];
    assert_eq!(
        (
            &totals["running"],
            &totals["updated"],
            &totals["stale"],
            &totals["converged"]
        ),
        (
            &Value::from(3),
            &Value::from(1),
            &Value::from(2),
            &Value::from(false)
        ),
        "{report:#}"
    );
    deadlines
}

/// The same run as the Action makes it (`command: status`): inputs as INPUT_ variables,
/// blank where unset, outputs and summary to their files, the token masked first.
fn status_as_the_action_runs_it(base: &str, released_at: &str) {
    let dir = tempfile::tempdir().unwrap();
    let file = |name: &str| dir.path().join(name).to_string_lossy().into_owned();
    let env: BTreeMap<String, String> = [
        ("GITHUB_ACTIONS", "true".to_string()),
        ("GITHUB_OUTPUT", file("output")),
        ("GITHUB_STEP_SUMMARY", file("summary")),
        ("INPUT_COMMAND", "status".into()),
        ("INPUT_HUB-URL", base.to_string()),
        ("INPUT_HUB-TOKEN", READER_TOKEN.into()),
        ("INPUT_RELEASED-AT", released_at.to_string()),
        ("INPUT_CULL-TIMEOUT", RIG.timeout.to_string()),
        ("INPUT_CULL-EVERY", RIG.every.to_string()),
        ("INPUT_CULL-MAX-AGE", RIG.max_age.to_string()),
        ("INPUT_SLOW-STOP-TIMEOUT", RIG.slow_stop_timeout.to_string()),
        ("INPUT_HUB-SIZE", String::new()),
        ("INPUT_INCLUDE-NAMES", "false".into()),
        ("INPUT_IMAGE", String::new()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    let (code, stdout, stderr) = run_codeq(&["status"], &env);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(
        stdout.starts_with(&format!("::add-mask::{READER_TOKEN}\n")),
        "the token is masked first: {stdout}"
    );
    assert_eq!(stdout.matches(READER_TOKEN).count(), 1, "{stdout}");
    let outputs = crate::common::parse_outputs(&std::fs::read_to_string(file("output")).unwrap());
    crate::common::assert_outputs_hold(
        &outputs,
        &[
            ("running", "3"),
            ("updated", "1"),
            ("stale", "2"),
            ("converged", "false"),
            // No Kubernetes configured: inferred from start times, said so.
            ("evidence", "start-time"),
        ],
    );
    assert_eq!(
        outputs.keys().map(String::as_str).collect::<Vec<_>>(),
        [
            "converged",
            "converged-by",
            "evidence",
            "mismatch",
            "orphans",
            "running",
            "stale",
            "stale-active",
            "updated"
        ]
    );
    let summary = std::fs::read_to_string(file("summary")).unwrap();
    for user in ["old-idle", "old-busy", "fresh"] {
        assert!(!summary.contains(user), "{user} in the summary:\n{summary}");
    }
}

/// Waits until the real culler has stopped each server of `deadlines` and asserts that each
/// stopped by its deadline (unix seconds).
async fn culled_by(hub: &Hub, deadlines: &BTreeMap<String, f64>) {
    let latest = deadlines.values().copied().fold(0.0, f64::max);
    let within = Duration::from_secs_f64((latest - unix_now()).max(0.0) + 5.0);
    let stopped = hub
        .wait_for("the stale servers stop", within, |h| {
            let done = ["old-idle", "old-busy"]
                .iter()
                .all(|u| h.stop_of(u).is_some());
            async move { done }
        })
        .await;
    assert!(stopped, "stale servers still run; log:\n{}", hub.log());
    for (user, deadline) in deadlines {
        let (_, at) = hub.stop_of(user).unwrap();
        assert!(
            at <= *deadline,
            "{user} stopped at {}, after the deadline status gave, {}",
            iso(at),
            iso(*deadline)
        );
    }
}

/// `status` with bad input (unknown token, token without scopes, the API's URL, a hub
/// that does not answer): each case's exit code, stdout and error, a paragraph each.
fn bad_input(base: &str, released_at: &str) -> Vec<String> {
    let port = base.rsplit(':').next().unwrap().to_string();
    let mut table = Vec::new();
    for (what, url, token) in [
        ("unknown token", base.to_string(), "not-a-token-of-this-hub"),
        ("token without scopes", base.to_string(), NO_SCOPE_TOKEN),
        // Refused before the hub is asked (exit code 2).
        ("URL of the API", format!("{base}/hub/api"), READER_TOKEN),
        ("URL ending in /hub", format!("{base}/hub"), READER_TOKEN),
        (
            "unreachable",
            "http://127.0.0.1:9".to_string(),
            READER_TOKEN,
        ),
    ] {
        let (code, stdout, stderr) = status(&RIG, &url, token, released_at, &[]);
        table.push(format!(
            "{what}: exit {code}, stdout {:?}\n{}",
            stdout,
            scrub(stderr.trim(), &[(&port, "PORT")])
        ));
    }
    table
}

#[tokio::test]
async fn status_reports_the_hubs_truth_and_the_culler_keeps_its_deadlines() {
    let (hub, base) = status_hub(RIG).await;

    // Two servers from before the release, one after it.
    hub.start_servers(&["old-idle", "old-busy"]).await;
    let released = unix_now();
    let released_at = iso(released);
    hub.start_servers(&["fresh"]).await;
    hub.post_activity("old-busy", unix_now()).await;

    let (code, stdout, stderr) = status(&RIG, &base, READER_TOKEN, &released_at, &["--json"]);
    assert_eq!(code, 0, "status failed: {stderr}\nlog:\n{}", hub.log());
    let report: Value = serde_json::from_str(&stdout).expect("stdout is the JSON alone");
    let truth = hub.servers().await;
    let measured_at = time(&report["measured_at"]);

    // The hub's truth: which servers, their start times, their states.
    let deadlines = check_against_the_hub(&report, &truth, &RIG, measured_at);

    // Read-only, and ceil(running / page) requests: only GETs of the user list reached the
    // hub from this token, the second page where the hub's `next` said.
    let sent = requests_of(&hub, "status-reader");
    assert_eq!(
        sent,
        [
            // The hub's log hides every `state` parameter (it may be an OAuth state).
            "/hub/api/users?state=[secret]&offset=0&limit=200",
            "/hub/api/users?state=[secret]&offset=2&limit=2",
        ]
        .map(|path| ("GET".to_string(), path.to_string())),
        "log:\n{}",
        hub.log()
    );
    assert_eq!(sent.len() as u64, 3u64.div_ceil(PAGE));

    status_as_the_action_runs_it(&base, &released_at);

    // The real culler stops each stale server by the deadline status gave.
    culled_by(&hub, &deadlines).await;

    // Bad input: the error says what to do; still nothing but GETs.
    let table = bad_input(&base, &released_at);
    insta::assert_snapshot!(table.join("\n\n"));
    let methods: Vec<String> = ["status-reader", "no-scope"]
        .iter()
        .flat_map(|s| requests_of(&hub, s))
        .map(|(m, _)| m)
        .filter(|m| m != "GET")
        .collect();
    assert!(methods.is_empty(), "status wrote to the hub: {methods:?}");
}

/// A security release announced on a fake GitHub at a known time (release note and tracking
/// issue), with `zq-before` started on `hub` before it and `zq-after` after the second the
/// note records; and the Action's environment for `status` against `base` with `comment:
/// true`.
async fn announced_between_two_servers(
    hub: &Hub,
    base: &str,
) -> (
    FakeGitHub,
    crate::common::ActionRun,
    BTreeMap<String, String>,
) {
    hub.start_servers(&["zq-before"]).await;
    // announce, as the release job runs it, at a known time.
    let scenario = crate::common::scenario::Scenario::merged_pr(&["security"]);
    let github = scenario.github().await;
    let mut announce = scenario.action(&github);
    let released = unix_now();
    announce.args[1] = iso(released);
    announce.run().await.assert_success();
    // The note records whole seconds and `status` reads them as the end of that second: the
    // next server starts after it.
    let later = released.floor() + 1.0;
    let passed = hub
        .wait_for(
            "the release's second passes",
            Duration::from_secs(3),
            |_| std::future::ready(unix_now() > later),
        )
        .await;
    assert!(passed);
    hub.start_servers(&["zq-after"]).await;
    let mut env = announce.env.clone();
    for (name, value) in [
        ("HUB-URL", base),
        ("HUB-TOKEN", READER_TOKEN),
        ("COMMENT", "true"),
        ("CULL-TIMEOUT", "600"),
        ("CULL-EVERY", "300"),
    ] {
        env.insert(format!("INPUT_{name}"), value.to_string());
    }
    (github, announce, env)
}

/// Runs `status` as the Action does, with `env`; returns the outputs it wrote to `output`,
/// the calls it made to `github` and its stdout.
async fn status_run(
    env: &BTreeMap<String, String>,
    output: &Path,
    github: &FakeGitHub,
) -> (BTreeMap<String, String>, Vec<String>, String) {
    let from = github.requests().await.len();
    let _ = std::fs::remove_file(output);
    let env = env.clone();
    let (code, stdout, stderr) = tokio::task::spawn_blocking(move || run_codeq(&["status"], &env))
        .await
        .unwrap();
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let outputs = crate::common::parse_outputs(&std::fs::read_to_string(output).unwrap());
    (outputs, github.calls_since(from).await, stdout)
}

/// What `status --comment` asks of GitHub: the release and the tracking issue looked up,
/// the issue's comments (`comments`, their path) read, then `write`, if any.
fn reads_then(comments: &str, write: Option<String>) -> Vec<String> {
    let reads = ["GET /releases", "GET /issues", &format!("GET {comments}")].map(String::from);
    reads.into_iter().chain(write).collect()
}

/// The GitHub side, by image: `status` finds the release note `announce` wrote by its digest
/// marker and measures from the time it recorded; with `comment: true` it posts one
/// "Convergence status" comment on the tracking issue, leaves it alone while the numbers
/// stay, and edits it in place when they change. Only reads besides those writes, at the
/// fake GitHub and at the hub.
#[tokio::test]
async fn the_tracking_issue_gets_one_comment_edited_in_place_when_the_numbers_change() {
    let (hub, base) = status_hub(SLOW_CULLER).await;
    let (github, announce, env) = announced_between_two_servers(&hub, &base).await;
    let issue = github.issues()[0]["number"].as_u64().unwrap();
    let issue_body = github.issues()[0]["body"].clone();
    let output = announce.dir.path().join("output");
    let prefix = format!("/issues/{issue}/comments");
    // The job summary's last line after each run: what became of the comment.
    let summary = announce.dir.path().join("summary");
    let mut said = Vec::new();
    let mut last_line = || {
        let text = std::fs::read_to_string(&summary).unwrap();
        std::fs::remove_file(&summary).unwrap();
        said.push(text.lines().last().unwrap_or_default().to_string());
    };
    std::fs::remove_file(&summary).unwrap();

    // A dry run (`dry-run: true`, as the Action passes it): the same reads, no write; the
    // log says it would post the comment, and shows it.
    let mut dry = env.clone();
    dry.insert("INPUT_DRY-RUN".into(), "true".into());
    let (outputs, calls, stdout) = status_run(&dry, &output, &github).await;
    assert_eq!(&outputs["updated"][..], "1");
    assert_eq!(calls, reads_then(&prefix, None));
    assert!(github.comments(issue).is_empty());
    let would = format!(
        "dry run: would post the convergence comment on {}",
        github.issues()[0]["html_url"].as_str().unwrap()
    );
    assert_eq!(stdout.matches(&would).count(), 1, "{stdout}");
    assert_eq!(
        stdout
            .matches("<!-- codeq-rollout:convergence digest=sha256:")
            .count(),
        1,
        "{stdout}"
    );
    last_line();

    // First run: 1 updated (started after the recorded time), 1 stale; one comment posted.
    let (outputs, calls, _) = status_run(&env, &output, &github).await;
    assert_eq!(
        (&outputs["running"][..], &outputs["updated"][..]),
        ("2", "1")
    );
    assert_eq!(calls, reads_then(&prefix, Some(format!("POST {prefix}"))));
    let comments = github.comments(issue);
    assert_eq!(comments.len(), 1);
    let body = comments[0]["body"].as_str().unwrap().to_string();
    assert!(
        body.starts_with("<!-- codeq-rollout:convergence digest=sha256:"),
        "{body}"
    );
    for user in ["zq-before", "zq-after"] {
        assert!(!body.contains(user), "user names went to GitHub:\n{body}");
    }
    last_line();

    // Same numbers: reads only.
    let (_, calls, _) = status_run(&env, &output, &github).await;
    assert_eq!(calls, reads_then(&prefix, None));
    last_line();

    // Another server updated: the same comment edited in place.
    hub.start_servers(&["zq-later"]).await;
    let (outputs, calls, _) = status_run(&env, &output, &github).await;
    assert_eq!(&outputs["updated"][..], "2");
    let id = comments[0]["id"].as_u64().unwrap();
    let patch = format!("PATCH /issues/comments/{id}");
    assert_eq!(calls, reads_then(&prefix, Some(patch)));
    let comments = github.comments(issue);
    assert_eq!(comments.len(), 1);
    assert_ne!(comments[0]["body"].as_str().unwrap(), body);
    assert_eq!(
        github.issues()[0]["body"],
        issue_body,
        "the issue body was edited"
    );
    last_line();
    insta::assert_snapshot!(said.join("\n"));

    // Only GETs at the hub: a page for each of the first three runs (2 servers), two for
    // the last (3 servers, pages of 2).
    let sent = requests_of(&hub, "status-reader");
    assert_eq!(sent.len(), 1 + 1 + 1 + 2, "{sent:?}");
    assert!(sent.iter().all(|(m, _)| m == "GET"), "{sent:?}");
}

/// `examples/convergence.yml` (linted by scripts/test.sh with the other examples) runs the
/// action's `status` command with inputs action.yml declares, on a schedule and by hand.
#[test]
fn the_convergence_example_runs_status_with_declared_inputs() {
    let root = crate::common::registry::repo_root();
    let read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap();
    let workflow: Value = serde_saphyr::from_str(&read("examples/convergence.yml")).unwrap();
    let action: Value = serde_saphyr::from_str(&read("action.yml")).unwrap();
    assert_eq!(workflow["on"]["schedule"][0]["cron"], "*/30 * * * *");
    assert!(workflow["on"].get("workflow_dispatch").is_some());
    let step = &workflow["jobs"]["status"]["steps"][0];
    assert!(step["uses"].as_str().unwrap().contains("/codeq-rollout@"));
    let with = step["with"].as_object().unwrap();
    assert_eq!(with["command"], "status");
    let declared = action["inputs"].as_object().unwrap();
    let undeclared: Vec<&String> = with.keys().filter(|k| !declared.contains_key(*k)).collect();
    assert!(undeclared.is_empty(), "not in action.yml: {undeclared:?}");
    for needed in ["hub-url", "hub-token", "image", "comment"] {
        assert!(with.contains_key(needed), "{needed} missing");
    }
}

/// The role README and CODEQ_DEPLOYMENT.md show is the one the code documents
/// (`src/status/hub/role.yaml`, scopes `status::hub::SCOPES`), word for word.
#[test]
fn the_docs_show_the_tokens_role_as_the_code_defines_it() {
    let root = crate::common::registry::repo_root();
    let snippet = include_str!("../../src/status/hub/role.yaml");
    for scope in codeq_rollout::SCOPES {
        assert!(snippet.contains(&format!("- {scope}\n")), "{scope}");
    }
    for doc in ["README.md", "CODEQ_DEPLOYMENT.md"] {
        let text = std::fs::read_to_string(root.join(doc)).unwrap();
        assert!(
            text.contains(&format!("```yaml\n{snippet}```\n")),
            "{doc} does not show src/status/hub/role.yaml as it is"
        );
    }
}

/// The page size `status` asks for by default against a hub answering as JupyterHub 6.1.1
/// does with its default `api_page_max_limit` (200): `GET /hub/api/users` caps `limit` at
/// 200 (`get_api_pagination`) and gives `_pagination.next` while `offset + limit < total`
/// (`paginated_model`). A fake (wiremock) rather than the real hub: starting 200 servers on
/// the rig takes 0.1 to 0.3 s each on 2 cores, a minute of CI; the real hub's paging is
/// covered above at page size 2 and by scripts/bench-status.sh at 10,000 users.
#[tokio::test]
async fn at_the_default_page_size_status_sends_one_get_per_200_running_servers() {
    use wiremock::{Mock, MockServer, Request, ResponseTemplate};
    let server_model = serde_json::json!({
        "name": "", "display_name": "", "last_activity": "2026-11-30T10:30:00.123456Z",
        "started": "2026-11-30T10:00:00.654321Z", "pending": null, "ready": true,
        "stopped": false, "user_options": {}, "progress_url": "/hub/api/users/x/server/progress",
    });
    // (users with a running server, requests: ceil(n / 200), at least 1)
    for (running, requests) in [(401_u64, 3_usize), (400, 2), (201, 2), (0, 1)] {
        let hub = MockServer::start().await;
        let model = server_model.clone();
        Mock::given(wiremock::matchers::method("GET"))
            .and(wiremock::matchers::path("/hub/api/users"))
            .respond_with(move |req: &Request| {
                let q: BTreeMap<String, String> = req.url.query_pairs().into_owned().collect();
                let offset: u64 = q["offset"].parse().unwrap();
                let limit = q["limit"].parse::<u64>().unwrap().min(200);
                let end = running.min(offset + limit);
                let items: Vec<Value> = (offset..end)
                    .map(|i| serde_json::json!({"kind": "user", "name": format!("u{i}"), "servers": {"": model}}))
                    .collect();
                let next = (offset + limit < running).then(|| {
                    serde_json::json!({"offset": offset + limit, "limit": limit, "url": "http://hub.internal/"})
                });
                ResponseTemplate::new(200).set_body_json(serde_json::json!({
                    "items": items,
                    "_pagination": {"offset": offset, "limit": limit, "total": running, "next": next},
                }))
            })
            .mount(&hub)
            .await;
        let now = ["--now", "2026-11-30T12:30:00Z", "--json"];
        let released_at = "2026-11-30T12:00:00Z";
        let (code, stdout, stderr) = status(&RIG, &hub.uri(), READER_TOKEN, released_at, &now);
        assert_eq!(code, 0, "{stderr}");
        let report: Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(report["totals"]["running"], running);
        let sent = hub.received_requests().await.unwrap();
        let asked: Vec<String> = sent
            .iter()
            .map(|r| format!("{} {}", r.method, r.url.query().unwrap_or("")))
            .collect();
        let expected: Vec<String> = (0..requests)
            .map(|p| format!("GET state=active&offset={}&limit=200", p * 200))
            .collect();
        assert_eq!(asked, expected, "{running} running servers");
        assert!(requests as u64 <= running.div_ceil(200) + 1);
    }
}

/// Idle and active, as the culler sees them (issue 23): servers from before the release with
/// fresh activity are reported stale active, each with the deadline the culler keeps if no
/// more activity comes (`last_activity + timeout + every`, at the hub's scale) and, without a
/// maximum age, "never passively while in use" rather than no deadline. Their activity then
/// stops, and the real culler stops every one by the deadline `status` gave. `HUBFORECAST`
/// lines (with `--nocapture`) give each server's stop minus its forecast deadline.
#[tokio::test]
async fn stale_active_servers_whose_activity_stops_are_culled_by_the_deadline_status_gave() {
    const CULLER: HubSettings = HubSettings {
        timeout: 12,
        every: 3,
        max_age: 0,
        slow_stop_timeout: 1,
    };
    let users = ["act-1", "act-2", "act-3"];
    let (hub, base) = status_hub(CULLER).await;
    hub.set_stop_delays(&[("act-1", 0.1), ("act-2", 0.3), ("act-3", 0.5)]);
    hub.start_servers(&users).await;
    let released_at = iso(unix_now());
    // In use until now: each server's last activity, a moment apart.
    for u in &users {
        hub.post_activity(u, unix_now()).await;
    }
    let (code, stdout, stderr) = status(&CULLER, &base, READER_TOKEN, &released_at, &["--json"]);
    assert_eq!(code, 0, "{stderr}\nlog:\n{}", hub.log());
    let report: Value = serde_json::from_str(&stdout).unwrap();
    crate::common::hub::assert_status_json_shape(&report);
    let measured_at = time(&report["measured_at"]);
    let model = AtScaleModel {
        settings: CULLER.cull(),
        scale: CULLER.scale(users.len() as u64),
    };
    let mut deadlines = BTreeMap::new();
    for row in report["servers"].as_array().unwrap() {
        let user = row["user"].as_str().unwrap().to_string();
        let last = time(&row["last_activity"]);
        // Active: inactive for less than the timeout when measured (away from the boundary
        // at a second's precision), with no maximum age in use.
        if (measured_at - last).whole_seconds() < CULLER.timeout as i64 - 1 {
            assert_eq!(row["state"], "stale-active", "{user}: {report:#}");
        }
        assert!(row["in_use_deadline"].is_null(), "{user}: {report:#}");
        let times = ServerTimes {
            started: Some(time(&row["started"])),
            last_activity: Some(last),
        };
        let expected = model.deadline(&times, measured_at).unwrap();
        let given = time(&row["deadline"]);
        assert!(
            (given - expected).abs() <= time::Duration::seconds(1),
            "{user}: deadline {given} vs the model's {expected}"
        );
        deadlines.insert(user, given.unix_timestamp() as f64 + 1.0);
    }
    assert_eq!(deadlines.len(), users.len(), "{report:#}");
    let (_, table, _) = status(&CULLER, &base, READER_TOKEN, &released_at, &[]);
    assert!(
        table.contains("if it goes idle, never passively while in use"),
        "{table}"
    );
    assert!(!table.contains("when its user restarts it"), "{table}");

    // No more activity: the culler stops each by the deadline status gave.
    let latest = deadlines.values().copied().fold(0.0, f64::max);
    let within = Duration::from_secs_f64((latest - unix_now()).max(0.0) + 10.0);
    let stopped = hub
        .wait_for("the active servers stop", within, |h| {
            let done = users.iter().all(|u| h.stop_of(u).is_some());
            async move { done }
        })
        .await;
    assert!(stopped, "servers still run; log:\n{}", hub.log());
    for (user, deadline) in &deadlines {
        let (_, at) = hub.stop_of(user).unwrap();
        eprintln!(
            "HUBFORECAST {user} stop-minus-deadline {:.3}",
            at - deadline
        );
        assert!(
            at <= *deadline,
            "{user} stopped at {}, after the deadline status gave, {}",
            iso(at),
            iso(*deadline)
        );
    }
}
