//! The progress chart as Mermaid draws it, and its history through real `status` runs.
//!
//! GitHub does not document which Mermaid diagram kinds it renders, so the chart is checked
//! by drawing it: `tests/mermaid/render.mjs` runs the Mermaid of `tests/mermaid/package-lock.json`
//! in Debian's chromium (playwright-core drives `/usr/bin/chromium`; nothing is downloaded;
//! both installed by scripts/test.sh), and the bars, the line and the labels it drew are
//! compared with the history the chart was made from. The renderer is stopped by its PID
//! when it does not answer in time, also when the test fails.

use crate::common::registry::repo_root;
use crate::common::{TOKEN, run_codeq};
use codeq_rollout::{History, Point};
use codeq_rollout::{Server, ServerTimes};
use codeq_rollout::{SettingsModel, classify};
use codeq_rollout::{StatusFacts, chart, status_job_summary, with_this_run};
use serde_json::{Value, json};
use std::io::Write as _;
use std::os::unix::process::CommandExt as _;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use time::OffsetDateTime;
use time::macros::datetime;

/// How long one drawing may take on a busy 2-core machine before the renderer is stopped.
const RENDER_LIMIT: Duration = Duration::from_secs(120);

/// Kills the renderer's process group (node leads it) on drop unless disarmed: a renderer
/// that did not exit in time is stopped also when the test fails.
struct KillOnDrop(Option<u32>);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        if let Some(pid) = self.0.take() {
            let pid = libc::pid_t::try_from(pid).expect("a PID");
            // SAFETY: kill(2) on the process group our own unreaped child leads.
            unsafe { libc::kill(-pid, libc::SIGKILL) };
        }
    }
}

/// Runs tests/mermaid/render.mjs on `diagram` with a fresh browser profile, bounded: a
/// renderer that has not exited within [`RENDER_LIMIT`] gets SIGTERM (playwright then
/// closes the browser it launched; chromium also exits when its debugging pipe closes),
/// 10 s more, then SIGKILL to its process group, and the test fails.
fn render_process(diagram: &str) -> std::process::Output {
    let dir = repo_root().join("tests/mermaid");
    assert!(
        dir.join("node_modules/mermaid/dist/mermaid.min.js")
            .is_file()
            && dir.join("node_modules/playwright-core").is_dir(),
        "tests/mermaid/node_modules is missing: run the npm ci of scripts/test.sh"
    );
    assert!(
        std::path::Path::new("/usr/bin/chromium").is_file(),
        "/usr/bin/chromium is missing: scripts/test.sh installs Debian's chromium"
    );
    let profile = tempfile::tempdir().unwrap();
    let mut child = Command::new("node")
        .arg(dir.join("render.mjs"))
        .arg(profile.path())
        .current_dir(&dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .expect("node runs");
    let pid = child.id();
    let mut guard = KillOnDrop(Some(pid));
    child
        .stdin
        .take()
        .unwrap()
        .write_all(diagram.as_bytes())
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(child.wait_with_output()));
    let Ok(out) = rx.recv_timeout(RENDER_LIMIT) else {
        // SAFETY: kill(2) on our own child, not yet reaped (its wait has not returned).
        unsafe { libc::kill(libc::pid_t::try_from(pid).unwrap(), libc::SIGTERM) };
        if rx.recv_timeout(Duration::from_secs(10)).is_ok() {
            // Exited and reaped: its PID may be reused, so it must not be killed now.
            guard.0 = None;
        }
        panic!("the Mermaid renderer did not answer within {RENDER_LIMIT:?}");
    };
    // Exited and reaped: its PID may be reused, so it must not be killed now.
    guard.0 = None;
    out.expect("wait for node")
}

/// What Mermaid drew for `diagram` (see tests/mermaid/render.mjs for the shape).
fn draw(diagram: &str) -> Value {
    let out = render_process(diagram);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "Mermaid refused the chart: {stdout}\n{}\n{diagram}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// The Mermaid block of a job summary or comment.
fn mermaid_block(markdown: &str) -> &str {
    markdown
        .split_once("```mermaid\n")
        .and_then(|(_, rest)| rest.split_once("\n```"))
        .map(|(block, _)| block)
        .unwrap_or_else(|| panic!("no Mermaid chart in\n{markdown}"))
}

/// Checks that `drawn` shows the chart `block` states: its title, one x label per category
/// in order, one bar per category with its top at the height of its value, and the line's
/// points (when there is a line) at the heights of theirs, on the same scale.
fn assert_drawn_as_stated(drawn: &Value, block: &str) {
    let stated = |key: &str| -> &str {
        block
            .lines()
            .map(str::trim)
            .find_map(|l| l.strip_prefix(key))
            .unwrap_or_else(|| panic!("no {key} in\n{block}"))
    };
    let list = |text: &str| -> Vec<String> {
        text.trim()
            .trim_start_matches('[')
            .trim_end_matches(']')
            .split(", ")
            .map(|s| s.trim_matches('"').to_string())
            .collect()
    };
    let title = stated("title ").trim_matches('"');
    assert_eq!(drawn["title"], title, "{drawn}");
    let labels = list(stated("x-axis \"Run (UTC)\" "));
    let x_labels: Vec<String> = serde_json::from_value(drawn["x_labels"].clone()).unwrap();
    assert_eq!(x_labels, labels, "{drawn}");
    let values: Vec<f64> = list(stated("bar "))
        .iter()
        .map(|v| v.parse().unwrap())
        .collect();
    let bars = drawn["bars"].as_array().unwrap();
    assert_eq!(bars.len(), values.len(), "one bar per category: {drawn}");
    let tops: Vec<f64> = bars.iter().map(|b| b["y"].as_f64().unwrap()).collect();
    // The bars left to right, as the categories.
    let xs: Vec<f64> = bars.iter().map(|b| b["x"].as_f64().unwrap()).collect();
    assert!(xs.windows(2).all(|w| w[0] < w[1]), "{xs:?}");
    // The scale from the highest and the lowest bar: every top on it, within a pixel.
    let (hi, lo) = (
        (0..values.len())
            .max_by(|&a, &b| values[a].total_cmp(&values[b]))
            .unwrap(),
        (0..values.len())
            .min_by(|&a, &b| values[a].total_cmp(&values[b]))
            .unwrap(),
    );
    assert!(values[hi] > values[lo], "{values:?}");
    let per_server = (tops[lo] - tops[hi]) / (values[hi] - values[lo]);
    let base = tops[lo] + per_server * values[lo];
    for (v, top) in values.iter().zip(&tops) {
        assert!(
            (base - per_server * v - top).abs() < 1.0,
            "a bar of {v} drawn with its top at {top}, not {}: {drawn}",
            base - per_server * v
        );
    }
    let lines = drawn["lines"].as_array().unwrap();
    if block.contains("\n    line ") {
        let stated: Vec<f64> = list(stated("line "))
            .iter()
            .map(|v| v.parse().unwrap())
            .collect();
        assert_eq!(lines.len(), 1, "{drawn}");
        let points = lines[0].as_array().unwrap();
        assert_eq!(points.len(), stated.len(), "{drawn}");
        for (v, p) in stated.iter().zip(points) {
            let y = p[1].as_f64().unwrap();
            assert!(
                (base - per_server * v - y).abs() < 1.0,
                "the line's {v} drawn at {y}: {drawn}"
            );
        }
    } else {
        assert!(lines.is_empty(), "{drawn}");
    }
}

fn server(user: &str, started: OffsetDateTime, last: OffsetDateTime) -> Server {
    Server {
        user: user.into(),
        name: String::new(),
        times: ServerTimes {
            started: Some(started),
            last_activity: Some(last),
        },
        ready: true,
        pending: None,
    }
}

/// What a run at `now` found for a release at `release`: `classification` and the chart's
/// `history`, by start time on https://hub.example.org, without names.
fn facts<'a>(
    release: OffsetDateTime,
    now: OffsetDateTime,
    classification: &'a codeq_rollout::Classification,
    history: &'a History,
) -> StatusFacts<'a> {
    StatusFacts {
        hub_url: "https://hub.example.org",
        digest: None,
        released_at: release,
        now,
        classification,
        promised: true,
        shifted: false,
        include_names: false,
        history: Some(history),
    }
}

/// The chart of a job summary, drawn: six runs of a hub of 57 servers coming down toward
/// the deadline, then this run's point; the bars and the line stand as the history says.
#[test]
fn mermaid_draws_the_summarys_chart_as_the_history_says() {
    let release = datetime!(2026-11-30 12:00 UTC);
    let now = datetime!(2026-11-30 14:00 UTC);
    let due = datetime!(2026-11-30 15:10 UTC);
    let mut history = History::default();
    for (minutes, stale) in [(5, 57), (30, 52), (60, 40), (75, 33), (90, 20), (105, 18)] {
        history.push(Point {
            at: release + time::Duration::minutes(minutes),
            stale,
            running: 57,
            due: Some(due),
        });
    }
    // This run: 3 stale (idle since 13:00) of 5 running.
    let mut servers: Vec<Server> = (0..3)
        .map(|i| {
            server(
                &format!("s{i}"),
                release - time::Duration::HOUR,
                now - time::Duration::HOUR,
            )
        })
        .collect();
    servers.extend((0..2).map(|i| server(&format!("u{i}"), now - time::Duration::MINUTE, now)));
    let model = SettingsModel(Default::default());
    let classification = classify(servers, None, release, now, &model);
    let history = with_this_run(Some(history), &classification.totals, now);
    assert_eq!(history.points().len(), 7);
    let facts = facts(release, now, &classification, &history);
    let summary = status_job_summary(&facts).unwrap();
    let block = mermaid_block(&summary);
    assert!(block.starts_with("xychart-beta\n"), "{block}");
    let drawn = draw(block);
    assert_drawn_as_stated(&drawn, block);
    let chart = chart(&facts).unwrap();
    assert_eq!(chart.labels.len(), 8, "seven runs and the deadline");
    assert_eq!(drawn["x_labels"][7], "due 14:10");
}

/// Mermaid refuses a chart that is not one: the renderer reports it, so a chart GitHub
/// would show as an error could not pass the test above.
#[test]
fn the_renderer_fails_on_a_chart_mermaid_refuses() {
    let out = render_process("xychart-beta\n    bar [1, two, 3]\n");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let said: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        said["error"].as_str().is_some_and(|e| !e.is_empty()),
        "{said}"
    );
}

/// A hub (wiremock, answering as JupyterHub 6.1.1's `GET /hub/api/users` does) listing
/// `servers` — `(user, started, last activity)` — as set now.
async fn hub(servers: Arc<Mutex<Vec<(String, String, String)>>>) -> wiremock::MockServer {
    use wiremock::{Mock, MockServer, Request, ResponseTemplate};
    let hub = MockServer::start().await;
    Mock::given(wiremock::matchers::method("GET"))
        .and(wiremock::matchers::path("/hub/api/users"))
        .respond_with(move |_: &Request| {
            let listed = servers.lock().unwrap().clone();
            let items: Vec<Value> = listed
                .iter()
                .map(|(user, started, last)| {
                    json!({"kind": "user", "name": user, "servers": {"": {
                        "name": "", "last_activity": last, "started": started,
                        "pending": null, "ready": true, "stopped": false,
                        "progress_url": format!("/hub/api/users/{user}/server/progress"),
                    }}})
                })
                .collect();
            let total = items.len();
            ResponseTemplate::new(200).set_body_json(json!({
                "items": items,
                "_pagination": {"offset": 0, "limit": 200, "total": total, "next": null},
            }))
        })
        .mount(&hub)
        .await;
    hub
}

/// Through real `status` runs with `comment` on a security release's tracking issue: a
/// history line forged in the comment is refused with a warning and written afresh; a run
/// with the same numbers writes nothing; a run with other numbers adds a point, and the job
/// summary then draws the chart of both runs against the deadline, as Mermaid shows.
#[tokio::test]
async fn a_forged_history_is_refused_then_each_change_adds_a_point_to_the_drawn_chart() {
    let scenario = crate::common::scenario::Scenario::merged_pr(&["security"]);
    let github = scenario.github().await;
    let announce = scenario.action(&github);
    let announced = announce.run().await;
    announced.assert_success();
    let digest = announced.outputs["digest"].clone();
    let issue = github.issues()[0]["number"].as_u64().unwrap();
    // Forged by anyone who can edit the comment: a history far longer than status writes.
    let forged = format!(
        "<!-- codeq-rollout:convergence digest={digest} -->\n<!-- codeq-rollout:convergence-numbers running=1 -->\n<!-- codeq-rollout:convergence-history v1{} -->\n",
        " 1796040000/1/1/-".repeat(200)
    );
    let id = github.add_comment(issue, &forged);

    // Announced at 12:00 (`--now` of the announce run): alice idle since 11:30, bob active,
    // carol started after the release.
    let listed = Arc::new(Mutex::new(vec![
        (
            "alice".to_string(),
            "2026-11-30T09:00:00Z".to_string(),
            "2026-11-30T11:30:00Z".to_string(),
        ),
        (
            "bob".into(),
            "2026-11-30T09:00:00Z".into(),
            "2026-11-30T12:29:00Z".into(),
        ),
        (
            "carol".into(),
            "2026-11-30T12:10:00Z".into(),
            "2026-11-30T12:29:00Z".into(),
        ),
    ]));
    let hub = hub(listed.clone()).await;
    let mut env = announce.env.clone();
    for (name, value) in [
        ("HUB-URL", hub.uri()),
        ("HUB-TOKEN", "hub-reader-token-0123456789".to_string()),
        ("COMMENT", "true".to_string()),
        ("GITHUB-TOKEN", TOKEN.to_string()),
    ] {
        env.insert(format!("INPUT_{name}"), value);
    }
    let summary_path = announce.dir.path().join("summary");
    let run = |now: &'static str| {
        let env = env.clone();
        let summary_path = summary_path.clone();
        async move {
            let _ = std::fs::remove_file(&summary_path);
            let (code, stdout, stderr) =
                tokio::task::spawn_blocking(move || run_codeq(&["status", "--now", now], &env))
                    .await
                    .unwrap();
            assert_eq!(code, 0, "{stdout}\n{stderr}");
            (stdout, std::fs::read_to_string(&summary_path).unwrap())
        }
    };
    let body = || {
        let comments = github.comments(issue);
        assert_eq!(comments.len(), 1, "{comments:#?}");
        assert_eq!(comments[0]["id"], id);
        comments[0]["body"].as_str().unwrap().to_string()
    };
    let history_line = |body: &str| -> String {
        body.lines()
            .find(|l| l.starts_with("<!-- codeq-rollout:convergence-history"))
            .unwrap_or_else(|| panic!("no history in\n{body}"))
            .to_string()
    };

    // 12:30: the forged history refused with a warning; the comment edited with this run's
    // point only; no chart yet (one point).
    let writes = github.writes().await.len();
    let (stdout, summary) = run("2026-11-30T12:30:00Z").await;
    assert!(
        stdout.contains("::warning title=Progress chart::the progress chart's history in the convergence comment was ignored: it is 3445 bytes long%0Ahelp: at most 1900 bytes are read"),
        "{stdout}"
    );
    let first = body();
    assert_eq!(
        history_line(&first),
        "<!-- codeq-rollout:convergence-history v1 1796041800/2/3/1796042430 -->"
    );
    assert!(!summary.contains("```mermaid"), "{summary}");
    assert!(summary.contains("**1/3** on the new image"), "{summary}");
    assert_eq!(github.writes().await.len(), writes + 1);

    // 12:31, the same numbers: nothing written, no warning.
    let (stdout, _) = run("2026-11-30T12:31:00Z").await;
    assert!(!stdout.contains("::warning"), "{stdout}");
    assert_eq!(body(), first);
    assert_eq!(github.writes().await.len(), writes + 1);

    // 12:35: bob stopped, dave started: a second point; the summary and the comment draw
    // both runs against alice's deadline, as Mermaid shows.
    {
        let mut l = listed.lock().unwrap();
        l.retain(|(u, _, _)| u != "bob");
        l.push((
            "dave".into(),
            "2026-11-30T12:33:00Z".into(),
            "2026-11-30T12:34:00Z".into(),
        ));
    }
    let (_, summary) = run("2026-11-30T12:35:00Z").await;
    let second = body();
    assert_eq!(
        history_line(&second),
        "<!-- codeq-rollout:convergence-history v1 1796041800/2/3/1796042430 1796042100/1/3/1796042430 -->"
    );
    assert_eq!(github.writes().await.len(), writes + 2);
    let block = mermaid_block(&summary);
    assert_eq!(
        block,
        mermaid_block(&second),
        "the summary draws the comment's chart"
    );
    insta::assert_snapshot!(block, @r#"
    xychart-beta
        title "Stale servers per run, and the straight way to none by 2026-11-30 12:41 UTC"
        x-axis "Run (UTC)" ["12:30", "12:35", "due 12:41"]
        y-axis "Stale servers" 0 --> 2
        bar [2, 1, 0]
        line [2.0, 1.0, 0.0]
    "#);
    assert_drawn_as_stated(&draw(block), block);
}

/// `examples/on-converged.yml` (linted by scripts/test.sh with the other examples: the
/// workflow schema and zizmor) reacts to `deployment_status` in its two end states only,
/// asks for no permission, and passes every event field to the shell through the
/// environment: no expression inside the script, which a description could inject into.
#[test]
fn the_on_converged_example_reacts_to_end_states_through_the_environment() {
    let text = std::fs::read_to_string(repo_root().join("examples/on-converged.yml")).unwrap();
    let workflow: Value = serde_saphyr::from_str(&text).unwrap();
    assert!(
        workflow["on"].get("deployment_status").is_some(),
        "{workflow:#}"
    );
    assert_eq!(workflow["permissions"], json!({}));
    let job = &workflow["jobs"]["notify"];
    assert_eq!(job["permissions"], json!({}));
    let condition = job["if"].as_str().unwrap();
    for state in ["'success'", "'failure'"] {
        assert!(condition.contains(state), "{condition}");
    }
    // Ours only: the payload's marker (a human's deployment has none).
    let ours = format!(
        "github.event.deployment.payload['{}'] == '{}'",
        codeq_rollout::MARKER_KEY,
        codeq_rollout::MARKER_VALUE
    );
    assert!(condition.contains(&ours), "{condition}");
    for step in job["steps"].as_array().unwrap() {
        let script = step["run"].as_str().unwrap();
        assert!(
            !script.contains("${{"),
            "an expression in the script:\n{script}"
        );
        assert!(!script.contains("--retry"), "a POST is not retried blindly");
        let env = step["env"].as_object().unwrap();
        assert_eq!(env["WEBHOOK_URL"], "${{ secrets.ROLLOUT_WEBHOOK_URL }}");
        assert_eq!(
            env["DESCRIPTION"],
            "${{ github.event.deployment_status.description }}"
        );
        assert_eq!(
            posted_message(script),
            json!({
                "text": "Rollout of 0123456789ab to prod &lt;eu&gt; needs attention: \"a\" &amp; &lt;!here&gt; https://example.org/?a=1&amp;b=2"
            })
        );
    }
}

/// What `script` (the example's step) POSTs for a failure whose fields hold quotes and
/// Slack's markup, run by bash with jq (scripts/test.sh installs it) and a `curl` that
/// only records its `--data`.
fn posted_message(script: &str) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let sent = dir.path().join("sent");
    let curl = dir.path().join("curl");
    std::fs::write(
        &curl,
        "#!/bin/sh\nwhile [ $# -gt 0 ]; do [ \"$1\" = --data ] && printf %s \"$2\" > \"$SENT\"; shift; done\n",
    )
    .unwrap();
    std::fs::set_permissions(&curl, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        dir.path().display(),
        std::env::var("PATH").unwrap()
    );
    let status = std::process::Command::new("bash")
        .args(["-e", "-c", script])
        .env("PATH", path)
        .env("SENT", &sent)
        .env("WEBHOOK_URL", "https://chat.example.org/hook")
        .env("STATE", "failure")
        .env("ENVIRONMENT", "prod <eu>")
        .env("DESCRIPTION", "\"a\" & <!here>")
        .env("LOG_URL", "https://example.org/?a=1&b=2")
        .env("SHA", "0123456789abcdef0123456789abcdef01234567")
        .status()
        .unwrap();
    assert!(status.success());
    serde_json::from_slice(&std::fs::read(&sent).unwrap()).unwrap()
}

/// docs/progress-chart.md shows the chart `status` draws from the history line it shows,
/// character for character.
#[test]
fn the_docs_show_the_chart_of_the_history_they_show() {
    let doc = std::fs::read_to_string(repo_root().join("docs/progress-chart.md")).unwrap();
    let line = doc
        .lines()
        .find(|l| l.starts_with("<!-- codeq-rollout:convergence-history v1 "))
        .expect("a history line in docs/progress-chart.md");
    let release = datetime!(2026-11-30 12:00 UTC);
    let now = datetime!(2026-11-30 13:30 UTC);
    // As the next run reads it: every point before that run.
    let next = now + time::Duration::SECOND;
    let history = codeq_rollout::parse_history(line, release, next)
        .unwrap()
        .unwrap();
    let model = SettingsModel(Default::default());
    let classification = classify(Vec::new(), None, release, now, &model);
    let facts = facts(release, now, &classification, &history);
    let summary = status_job_summary(&facts).unwrap();
    assert_eq!(mermaid_block(&doc), mermaid_block(&summary));
}

/// The chart's categories, as docs/progress-chart.md documents them (issue 32 item 18):
/// `HH:MM`; `HH:MM:SS` when two runs fall within one minute (Mermaid merges categories of
/// the same name); `MM-DD ` before each when the runs span more than one date; then
/// `due HH:MM` (rounded up) for the latest run's deadline only, never an earlier point's;
/// bars the stale servers (0 for the deadline); a line only with a deadline.
#[test]
fn chart_labels_take_the_forms_the_progress_chart_doc_documents() {
    let at = |t: OffsetDateTime, stale: u64, due: Option<OffsetDateTime>| Point {
        at: t,
        stale,
        running: 9,
        due,
    };
    // (case, points, the labels drawn, whether the straight line to the deadline is drawn)
    let cases = [
        (
            "one date",
            vec![
                at(datetime!(2026-11-30 12:10 UTC), 5, None),
                at(datetime!(2026-11-30 12:40 UTC), 2, None),
            ],
            &["12:10", "12:40"][..],
            false,
        ),
        (
            "only the latest run's deadline, and it is none",
            vec![
                at(
                    datetime!(2026-11-30 12:10 UTC),
                    5,
                    Some(datetime!(2026-11-30 14:00 UTC)),
                ),
                at(datetime!(2026-11-30 12:40 UTC), 2, None),
            ],
            &["12:10", "12:40"],
            false,
        ),
        (
            "two dates",
            vec![
                at(datetime!(2026-11-30 23:40 UTC), 5, None),
                at(datetime!(2026-12-01 00:10 UTC), 2, None),
            ],
            &["11-30 23:40", "12-01 00:10"],
            false,
        ),
        (
            "two runs within one minute, and the deadline",
            vec![
                at(datetime!(2026-11-30 12:30:10 UTC), 5, None),
                at(datetime!(2026-11-30 12:30:50 UTC), 4, None),
                at(
                    datetime!(2026-11-30 13:00 UTC),
                    3,
                    Some(datetime!(2026-11-30 13:20:01 UTC)),
                ),
            ],
            &["12:30:10", "12:30:50", "13:00:00", "due 13:21"],
            true,
        ),
        (
            "two dates, two runs within one minute",
            vec![
                at(datetime!(2026-11-30 23:59:10 UTC), 5, None),
                at(datetime!(2026-11-30 23:59:50 UTC), 4, None),
                at(datetime!(2026-12-01 00:05 UTC), 3, None),
            ],
            &["11-30 23:59:10", "11-30 23:59:50", "12-01 00:05:00"],
            false,
        ),
        (
            "a deadline on the next date",
            vec![
                at(datetime!(2026-11-30 23:00 UTC), 5, None),
                at(
                    datetime!(2026-11-30 23:30 UTC),
                    3,
                    Some(datetime!(2026-12-01 00:30 UTC)),
                ),
            ],
            &["11-30 23:00", "11-30 23:30", "due 12-01 00:30"],
            true,
        ),
    ];
    let release = datetime!(2026-11-30 12:00 UTC);
    let model = SettingsModel(Default::default());
    let c = classify(Vec::new(), None, release, release, &model);
    let doc = std::fs::read_to_string(repo_root().join("docs/progress-chart.md")).unwrap();
    for (case, points, labels, line) in cases {
        let mut h = History::default();
        for p in &points {
            h.push(*p);
        }
        let now = points.last().unwrap().at;
        let drawn = chart(&facts(release, now, &c, &h)).unwrap();
        assert_eq!(drawn.labels, labels, "{case}");
        let mut bars: Vec<u64> = points.iter().map(|p| p.stale).collect();
        bars.extend(line.then_some(0));
        assert_eq!(drawn.bars, bars, "{case}");
        assert_eq!(!drawn.line.is_empty(), line, "{case}");
        assert_eq!(drawn.title == "Stale servers per run", !line, "{case}");
        assert_eq!(drawn.y_max, bars.iter().copied().max().unwrap(), "{case}");
        for label in labels {
            let form = label_form(label);
            assert!(
                doc.contains(&format!("`{form}`")),
                "{case}: `{form}` not in the doc"
            );
        }
    }
}

/// The form of a chart label: `12-01 00:10` is `MM-DD HH:MM`, `due 13:21` is `due HH:MM`.
fn label_form(label: &str) -> String {
    let form = |word: &str| match word.split(':').count() {
        _ if word == "due" => "due",
        _ if word.contains('-') => "MM-DD",
        3 => "HH:MM:SS",
        _ => "HH:MM",
    };
    label.split(' ').map(form).collect::<Vec<_>>().join(" ")
}
