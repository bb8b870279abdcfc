//! `status` with a stdout that is closed before it writes (`status | head -1` once `head`
//! has its line) or full (`> /dev/full`), against a fake hub of one running server: the run
//! never panics (exit 101), its outputs and job summary are still written; a closed pipe is
//! no error, a full stdout fails the run (exit 1) with a message saying so. Then `status`'s
//! other reports inside Actions against the same fake hub: a hub that refuses, a job summary
//! that cannot be written, an unset `$GITHUB_OUTPUT`, a run refused on its inputs.

use crate::common::{binary, parse_outputs, repo_root};
use serde_json::json;
use std::path::Path;
use std::process::{Command, Stdio};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

const HUB_TOKEN: &str = "status-stdout-token-0123456789abcdef";

/// A hub answering the listing with one page: alice's server, started before the release and idle since.
async fn one_server_hub() -> MockServer {
    let hub = MockServer::start().await;
    let server = json!({
        "name": "",
        "started": "2026-11-30T10:00:00Z",
        "last_activity": "2026-11-30T10:05:00Z",
        "pending": null,
        "ready": true,
    });
    Mock::given(method("GET"))
        .and(path("/hub/api/users"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "items": [{"kind": "user", "name": "alice", "servers": {"": server}}],
            "_pagination": {"offset": 0, "limit": 200, "total": 1, "next": null},
        })))
        .expect(1)
        .mount(&hub)
        .await;
    hub
}

/// `codeq-rollout status` against the hub at `hub_url` (released 12:00, measured 12:30),
/// from the repository root, with nothing in its environment but the runner's two files.
fn status_command(hub_url: &str, output: &Path, summary: &Path) -> Command {
    let mut status = Command::new(binary());
    status
        .args([
            "status",
            "--hub-url",
            hub_url,
            "--hub-token",
            HUB_TOKEN,
            "--released-at",
            "2026-11-30T12:00:00Z",
            "--now",
            "2026-11-30T12:30:00Z",
        ])
        .env_clear()
        .env("GITHUB_OUTPUT", output)
        .env("GITHUB_STEP_SUMMARY", summary)
        .current_dir(repo_root());
    status
}

/// Runs `status` against `hub` with `stdout`; (exit code, stderr, outputs file, summary file).
fn status_with_stdout(hub: &MockServer, stdout: Stdio) -> (i32, String, String, String) {
    run_status(hub, stdout, &[])
}

/// Runs `status` against `hub` with `stdout` and the variables `env` besides the runner's
/// files; (exit code, stderr, outputs file, summary file).
fn run_status(
    hub: &MockServer,
    stdout: Stdio,
    env: &[(&str, &str)],
) -> (i32, String, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("output");
    let summary = dir.path().join("summary");
    let out = status_command(&hub.uri(), &output, &summary)
        .envs(env.iter().copied())
        .stdout(stdout)
        .stderr(Stdio::piped())
        .output()
        .expect("run codeq-rollout");
    let read = |p: &Path| std::fs::read_to_string(p).unwrap_or_default();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        read(&output),
        read(&summary),
    )
}

/// The outputs of one stale idle server.
fn assert_outputs_of_one_stale_server(outputs: &str) {
    let outputs = parse_outputs(outputs);
    crate::common::assert_outputs_hold(
        &outputs,
        &[
            ("running", "1"),
            ("updated", "0"),
            ("stale", "1"),
            ("stale-active", "0"),
            ("converged", "false"),
        ],
    );
}

#[tokio::test]
async fn a_stdout_closed_before_the_table_stops_it_quietly_and_the_run_completes() {
    let hub = one_server_hub().await;
    // The reading end closed before the run starts: every write to stdout fails with EPIPE.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let (code, stderr, outputs, summary) = status_with_stdout(&hub, Stdio::from(writer));
    assert_eq!(code, 0, "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_outputs_of_one_stale_server(&outputs);
    assert!(summary.starts_with("## "), "no job summary: {summary:?}");
}

#[tokio::test]
async fn a_full_stdout_fails_the_run_after_its_outputs_and_summary_are_written() {
    let hub = one_server_hub().await;
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let (code, stderr, outputs, summary) = status_with_stdout(&hub, Stdio::from(full));
    assert_eq!(code, 1, "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_outputs_of_one_stale_server(&outputs);
    assert!(summary.starts_with("## "), "no job summary: {summary:?}");
    insta::assert_snapshot!(stderr);
}

/// A hub that refuses the token's scopes with JupyterHub's 403 JSON error.
async fn refusing_hub() -> MockServer {
    let hub = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/hub/api/users"))
        .respond_with(ResponseTemplate::new(403).set_body_json(json!({
            "status": 403,
            "message": "Action is not authorized with current scopes; requires any of [list:users]",
        })))
        .expect(1)
        .mount(&hub)
        .await;
    hub
}

#[tokio::test]
async fn a_run_the_hub_refuses_writes_a_failure_summary_and_empty_outputs() {
    let hub = refusing_hub().await;
    let (code, stderr, outputs, summary) =
        run_status(&hub, Stdio::null(), &[("GITHUB_ACTIONS", "true")]);
    assert_eq!(code, 1, "{stderr}");
    assert!(!stderr.contains(HUB_TOKEN), "{stderr}");
    assert!(!outputs.contains(HUB_TOKEN));
    // Every output named, each empty: nothing was measured, so no `converged=false`.
    let outputs = parse_outputs(&outputs);
    let names: Vec<_> = outputs
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert_eq!(
        names,
        [
            ("converged", ""),
            ("converged-by", ""),
            ("evidence", ""),
            ("mismatch", ""),
            ("orphans", ""),
            ("running", ""),
            ("stale", ""),
            ("stale-active", ""),
            ("updated", ""),
        ]
    );
    let summary = summary.replace(&hub.uri(), "http://HUB");
    insta::assert_snapshot!(summary);
}

/// Runs `status` inside Actions (`GITHUB_ACTIONS=true`, the runner's files in a temp dir)
/// against the hub at `hub_url` with `vars` set over the runner's (an empty value unsets
/// one, as the runner never does); everything it did as one text for a snapshot: the exit
/// code, `$GITHUB_OUTPUT` parsed, `$GITHUB_STEP_SUMMARY`, stdout (without the `::add-mask::`
/// lines) and stderr, with `hub_url` written `[hub]` and the temp dir `[dir]`. The token
/// shows nowhere.
fn status_in_actions(hub_url: &str, vars: &[(&str, &str)]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("output");
    let summary = dir.path().join("summary");
    let out = status_command(hub_url, &output, &summary)
        .env("GITHUB_ACTIONS", "true")
        .envs(vars.iter().copied())
        .output()
        .expect("run codeq-rollout");
    let read = |p: &Path| std::fs::read_to_string(p).unwrap_or_default();
    let mut t = format!(
        "exit code: {}\n\n$GITHUB_OUTPUT:\n",
        out.status.code().unwrap_or(-1)
    );
    for (name, value) in parse_outputs(&read(&output)) {
        t += &format!("  {name}: {value}\n");
    }
    t += "\n$GITHUB_STEP_SUMMARY:\n";
    for line in read(&summary).lines() {
        t += &format!("  | {line}\n");
    }
    for (name, text) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        t += &format!("\n{name}:\n");
        // The `::add-mask::` lines are the runner's (and name the token).
        for line in String::from_utf8_lossy(text)
            .lines()
            .filter(|l| !l.starts_with("::add-mask::"))
        {
            t += &format!("  {line}\n");
        }
    }
    assert!(!t.contains(HUB_TOKEN), "{t}");
    t.replace(hub_url, "[hub]")
        .replace(&dir.path().display().to_string(), "[dir]")
}

/// The hub measured and the outputs written, a job summary that cannot be written (a
/// directory) fails the run (exit 1) with an error saying so; the report of the failure
/// writes nothing again and warns about nothing.
#[tokio::test]
async fn a_job_summary_that_cannot_be_written_fails_the_run_once() {
    let hub = one_server_hub().await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().display().to_string();
    let seen = status_in_actions(&hub.uri(), &[("GITHUB_STEP_SUMMARY", &path)]);
    insta::assert_snapshot!(seen.replace(&path, "[directory]"));
}

/// Inside Actions without `$GITHUB_OUTPUT`, `status` measures, writes its job summary, and
/// warns that its outputs (named as `status`'s) were not written; as `announce` does.
#[tokio::test]
async fn an_unset_github_output_inside_actions_is_a_warning() {
    let hub = one_server_hub().await;
    insta::assert_snapshot!(status_in_actions(&hub.uri(), &[("GITHUB_OUTPUT", "")]));
}

/// A run refused on its inputs (a `hub-url` with a query: exit code 2) reads no hub and
/// writes a job summary saying so, with the annotation's words and the input, and every
/// output empty.
#[test]
fn a_run_refused_on_its_inputs_writes_a_failure_summary_and_every_output_empty() {
    insta::assert_snapshot!(status_in_actions("http://hub.invalid/?a=b", &[]));
}

/// A run that fails reading the hub and then cannot write its report either: the warning
/// names what could not be written (its title too), for the outputs alone, the summary
/// alone, and both.
#[tokio::test]
async fn a_failure_report_that_cannot_be_written_names_the_file_in_its_warning() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().display().to_string();
    let mut warnings = Vec::new();
    for files in [
        &["GITHUB_OUTPUT"][..],
        &["GITHUB_STEP_SUMMARY"],
        &["GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY"],
    ] {
        let hub = refusing_hub().await;
        let vars: Vec<(&str, &str)> = files.iter().map(|f| (*f, path.as_str())).collect();
        let seen = status_in_actions(&hub.uri(), &vars);
        assert!(seen.starts_with("exit code: 1\n"), "{seen}");
        let lines: Vec<&str> = seen
            .lines()
            .filter(|l| l.trim_start().starts_with("::warning"))
            .collect();
        warnings.push(format!("{}:\n{}", files.join(" and "), lines.join("\n")));
    }
    insta::assert_snapshot!(warnings.join("\n\n").replace(&path, "[directory]"));
}

/// Issue 27 item 6: inside Actions the job log is as visible as the job summary (on a
/// public repository, to everyone), so without `include-names` the table and the JSON on
/// stdout name no user or server either; with it, they do.
#[tokio::test]
async fn inside_actions_names_reach_the_log_only_with_include_names() {
    // One hub per run: each answers its listing once.
    let hub = one_server_hub().await;
    let hidden = status_in_actions(&hub.uri(), &[]).replace(&hub.uri(), "[hub]");
    assert!(hidden.starts_with("exit code: 0\n"), "{hidden}");
    assert!(!hidden.contains("alice"), "{hidden}");
    let hub = one_server_hub().await;
    let shown = status_in_actions(&hub.uri(), &[("INPUT_INCLUDE-NAMES", "true")]);
    assert!(shown.contains("alice"), "{shown}");
    let dir = tempfile::tempdir().unwrap();
    let mut json = Vec::new();
    for include in ["false", "true"] {
        let hub = one_server_hub().await;
        let out = status_command(&hub.uri(), &dir.path().join("o"), &dir.path().join("s"))
            .arg("--json")
            .env("GITHUB_ACTIONS", "true")
            .env("INPUT_INCLUDE-NAMES", include)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        json.push(String::from_utf8_lossy(&out.stdout).into_owned());
    }
    assert!(!json[0].contains("alice"), "{}", json[0]);
    assert!(json[1].contains("alice"), "{}", json[1]);
    insta::assert_snapshot!(hidden);
}

/// QA wave 6 item 1: an answer `status` cannot read (a time that is not ISO 8601) fails the
/// run, and without `include-names` its annotation and job summary name no user or server
/// (the hub's own answer never has such a time: JupyterHub writes ISO 8601 or null).
#[tokio::test]
async fn an_unreadable_answer_names_nobody_without_include_names() {
    let hub = MockServer::start().await;
    let server = json!({"name": "lab", "started": "yesterday", "ready": true});
    Mock::given(method("GET"))
        .and(path("/hub/api/users"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "items": [{"kind": "user", "name": "badtime", "servers": {"lab": server}}],
            "_pagination": {"offset": 0, "limit": 200, "total": 1, "next": null},
        })))
        .mount(&hub)
        .await;
    let hidden = status_in_actions(&hub.uri(), &[]);
    assert!(
        !hidden.contains("badtime") && !hidden.contains("lab\""),
        "{hidden}"
    );
    let shown = status_in_actions(&hub.uri(), &[("INPUT_INCLUDE-NAMES", "true")]);
    assert!(shown.contains(r#"user "badtime", server "lab""#), "{shown}");
    insta::assert_snapshot!(hidden);
}

/// Issue 32 item 16: `status --json` as the binary prints it, outside Actions (names shown)
/// and inside without include-names, has the shape of `docs/status.schema.json`, and
/// docs/status.md describes every field that schema states, and its version.
#[tokio::test]
async fn status_json_has_the_schemas_shape_and_the_docs_describe_every_field() {
    let dir = tempfile::tempdir().unwrap();
    for actions in ["", "true"] {
        let hub = one_server_hub().await;
        let out = status_command(&hub.uri(), &dir.path().join("o"), &dir.path().join("s"))
            .arg("--json")
            .env("GITHUB_ACTIONS", actions)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        crate::common::hub::assert_status_json_shape(&doc);
    }
    let schema = crate::common::hub::status_schema();
    let doc = std::fs::read_to_string(repo_root().join("docs/status.md")).unwrap();
    let version = &schema["properties"]["version"]["const"];
    assert!(
        doc.contains(&format!("`\"version\": {version}`")),
        "docs/status.md: version"
    );
    let undocumented = undocumented(&schema, &doc);
    assert!(undocumented.is_empty(), "docs/status.md: {undocumented:?}");
}

/// The property names `schema` states, at any depth, that `doc` does not name in backticks.
fn undocumented(schema: &serde_json::Value, doc: &str) -> Vec<String> {
    let here = schema.get("properties").and_then(|p| p.as_object());
    let names = here.into_iter().flat_map(|p| p.keys());
    let mut missing: Vec<String> = names
        .filter(|name| !doc.contains(&format!("`{name}`")))
        .cloned()
        .collect();
    for child in schema.as_object().into_iter().flat_map(|o| o.values()) {
        missing.extend(undocumented(child, doc));
    }
    missing
}

/// The body of the reviewed snapshot `name` of `src/render/status/tests.rs` (after its
/// header).
fn render_snapshot(name: &str) -> String {
    let file =
        format!("src/render/status/snapshots/codeq_rollout__render__status__tests__{name}.snap");
    let text = std::fs::read_to_string(repo_root().join(file)).unwrap();
    let mut parts = text.splitn(3, "---\n");
    parts
        .nth(2)
        .unwrap_or_else(|| panic!("no snapshot body in {name}"))
        .to_string()
}

/// Issue 32 item 16: the `--json` documents the render layer's tests pin, by start time
/// (hostile names) and by digest (a pod of each kind: no pod, no imageID, a bare ID, another
/// repository, unreadable, an orphan), have the shape of `docs/status.schema.json`.
#[test]
fn the_pinned_json_documents_have_the_schemas_shape() {
    for name in ["json_document", "json_document_by_digest"] {
        let doc: serde_json::Value = serde_json::from_str(&render_snapshot(name)).unwrap();
        crate::common::hub::assert_status_json_shape(&doc);
    }
}

/// Issue 32 item 15: every reason an image is unknown, as the table's "stopped by" column
/// shows it (the render layer's pinned summary of each reason), is one
/// docs/status-kubernetes.md explains, with what to do.
#[test]
fn the_kubernetes_doc_explains_every_reason_an_image_is_unknown() {
    let summary = render_snapshot("each_reason_an_image_is_unknown_is_said_with_what_to_do");
    let doc = std::fs::read_to_string(repo_root().join("docs/status-kubernetes.md")).unwrap();
    let reasons: Vec<&str> = summary
        .lines()
        .filter(|l| l.contains("| image unknown |"))
        .filter_map(|l| l.trim_end_matches(" |").rsplit(" | ").next())
        .collect();
    assert_eq!(reasons.len(), 5, "{summary}");
    for reason in reasons {
        assert!(
            doc.contains(&format!("| `{reason}` |")),
            "{reason} not in the doc"
        );
    }
}

/// A run that fails on `fail-on` (exit 1) ends its job summary saying why, in the
/// annotation's words, after the whole report: the summary is where people look first.
/// One minute's culler settings and no release note read: alice is overdue at 12:30.
#[tokio::test]
async fn a_run_failing_on_fail_on_says_why_at_the_end_of_its_job_summary() {
    let hub = one_server_hub().await;
    let env = [
        ("INPUT_FAIL-ON", "overdue"),
        ("INPUT_CULL-TIMEOUT", "60"),
        ("INPUT_CULL-EVERY", "60"),
    ];
    let (code, stderr, outputs, summary) = run_status(&hub, Stdio::null(), &env);
    assert_eq!(code, 1, "{stderr}");
    assert_outputs_of_one_stale_server(&outputs);
    assert!(summary.starts_with("## "), "no job summary: {summary:?}");
    let last = summary.trim_end().lines().last().unwrap_or_default();
    insta::assert_snapshot!(last, @"**Failed:** the run fails because fail-on lists overdue. 1 stale server(s) are past the deadline of status's own culler settings (no promise read from a release note) (overdue): the status table counts them.");
    let (code, _, _, summary) = run_status(&one_server_hub().await, Stdio::null(), &env[1..]);
    assert_eq!(code, 0);
    assert!(!summary.contains("**Failed:**"), "{summary}");
}
