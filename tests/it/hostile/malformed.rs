//! Malformed input never panics: event payloads, inputs, registry and GitHub answers each
//! give a clear error and exit 1 (2 for command-line usage errors, clap's own), and nothing
//! is written to GitHub.

use super::*;
use assert_matches::assert_matches;
use serde_json::json;
use wiremock::matchers::{method, path, path_regex};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// Common checks of a failed run (the exit code, no panic, a bounded log), and what it told
/// the user: `place`, the exit code and the `::error` annotation (or, without one, stderr's
/// first line), for a snapshot of a whole table of failures.
fn clear_failure(place: &str, out: &Outcome) -> String {
    let text = format!("{}{}", out.stdout, out.stderr);
    assert!(!text.contains("panicked"), "{place}: {text}");
    assert_matches!(out.code, 1 | 2, "{place}: exit {}\n{text}", out.code);
    assert!(
        text.len() < 8_000,
        "{place}: the error floods the log ({} bytes)",
        text.len()
    );
    let said = out
        .stdout
        .lines()
        .find(|l| l.starts_with("::error"))
        .or_else(|| out.stderr.lines().next())
        .unwrap_or_default();
    format!("{place}\n  exit {}: {said}\n", out.code)
}

#[tokio::test]
async fn malformed_event_payloads_fail_clearly_and_write_nothing() {
    let (image, _) = example_layout();
    let many_labels: Vec<_> = (0..101)
        .map(|i| json!({ "name": format!("l{i}") }))
        .collect();
    let many_commits: Vec<_> = (0..3000).map(|i| json!({ "id": format!("{i}") })).collect();
    let nest = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    let deep_ignored = format!("{{\"x\": {}}}", nest(100_000));
    let deep_labels = format!(
        "{{\"pull_request\": {{\"number\": 2, \"labels\": {}}}}}",
        nest(100_000)
    );
    let cases: Vec<(&str, &str, Vec<u8>)> = vec![
        (
            "truncated JSON",
            "pull_request",
            br#"{"pull_request": {"number": 2, "title": "x""#.to_vec(),
        ),
        ("not JSON", "pull_request", b"\x00\xff garbage".to_vec()),
        (
            "garbage after an object",
            "pull_request",
            b"{} trailing".to_vec(),
        ),
        ("empty file", "pull_request", b"".to_vec()),
        ("an array", "pull_request", b"[]".to_vec()),
        ("null", "pull_request", b"null".to_vec()),
        (
            "pull_request is a string",
            "pull_request",
            br#"{"pull_request": "2"}"#.to_vec(),
        ),
        (
            "labels is a string",
            "pull_request",
            br#"{"pull_request": {"number": 2, "labels": "security"}}"#.to_vec(),
        ),
        (
            "number is a string",
            "pull_request",
            br#"{"pull_request": {"number": "2"}}"#.to_vec(),
        ),
        (
            "number is negative",
            "pull_request",
            br#"{"pull_request": {"number": -2}}"#.to_vec(),
        ),
        (
            "title is a number",
            "pull_request",
            br#"{"pull_request": {"number": 2, "title": 5}}"#.to_vec(),
        ),
        (
            "a label without a name",
            "pull_request",
            br#"{"pull_request": {"number": 2, "labels": [{"color": "f00"}]}}"#.to_vec(),
        ),
        (
            "no pull_request in a pull_request event",
            "pull_request",
            br#"{"action": "closed", "number": 2}"#.to_vec(),
        ),
        (
            "no pull request number",
            "pull_request_target",
            br#"{"pull_request": {"title": "x"}}"#.to_vec(),
        ),
        (
            "101 labels",
            "pull_request",
            json!({ "pull_request": { "number": 2, "labels": many_labels } })
                .to_string()
                .into_bytes(),
        ),
        (
            "3000 commits",
            "push",
            json!({ "after": SHA, "commits": many_commits })
                .to_string()
                .into_bytes(),
        ),
        (
            "100,000 nested arrays in an unread field",
            "pull_request",
            deep_ignored.into_bytes(),
        ),
        (
            "100,000 nested arrays as labels",
            "pull_request",
            deep_labels.into_bytes(),
        ),
        (
            "over GitHub's 25 MB cap",
            "pull_request",
            [b"{}".as_slice(), &vec![b' '; 26 * 1024 * 1024]].concat(),
        ),
    ];
    let mut told = String::new();
    for (name, event_name, payload) in cases {
        let github = FakeGitHub::start().await;
        let run = ActionRun::new(&image, &github.api_url(), event_name, &json!({}));
        write_event(&run, &payload);
        let out = run.run().await;
        let event = run.env["GITHUB_EVENT_PATH"].as_str();
        told += &scrub(&clear_failure(name, &out), &[(event, "[event.json]")]);
        assert!(github.requests().await.is_empty(), "{name}");
    }
    insta::assert_snapshot!(told);
}

/// Each malformed input as the workflow would write it: `input=value`.
fn malformed_inputs() -> Vec<String> {
    let long = format!("registry.example/{}:latest", "a".repeat(300));
    let long_entry = format!("insecure-registry={}:5000", "a".repeat(100_002));
    [
        "image=   ",
        "image=UPPER/Case:tag",
        "image=not a ref",
        "image=ghcr.io/Octo/Lab:latest",
        "image=A/a",
        "image=a b",
        "image=lab@sha256:zz",
        "image=lab:",
        "image=:latest",
        "image=läb:latest",
        "image=lab:tag\nsecond-line",
        &format!("image={long}"),
        "image=oci:",
        "image=oci:examples/lab:bad tag",
        "image=oci:/nonexistent/layout",
        "image=ci:hunter2@ghcr.io/org/lab:latest",
        "image=127.0.0.1:99999/org/lab:latest",
        &format!("image=ghcr.io/org/lab@sha256:{}", "A".repeat(64)),
        "environment=prod\nstaging",
        "environment=prod\u{202e}",
        &format!("environment={}", "e".repeat(256)),
        "cull-timeout=soon",
        "cull-timeout=abc",
        "cull-timeout=-5m",
        "cull-timeout=-5",
        "cull-timeout=1,5h",
        "cull-timeout=99999999999999999999",
        "cull-timeout=99999999999999999999h",
        "cull-timeout=1e9",
        "cull-timeout=∞",
        "cull-max-age=11years",
        "cull-max-age=10 parsecs",
        "cull-every=0",
        "cull-enabled=maybe",
        "security-labels=,",
        "security-labels= , \n ",
        "tracking-labels= , ",
        "tracking-labels=,,,",
        "values-path=jupyterhub.cull",
        // A parent key without a values file to look in.
        "values-path=nope",
        "jupyterhub-values=a.yaml,b.yaml",
        "namespace=a b; rm -rf /",
        "helm-release=Hub",
        "hub-url=https://hub`x`.org",
        "expected-digest=garbage",
        "registry-timeout=soon",
        "insecure-registry=http://localhost:5000",
        "insecure-registry=localhost:5000/path",
        "insecure-registry=localhost:5000\nlocalhost:99999",
        "insecure-registry=a b",
        // A user name or password: refused whole, no part of the value echoed.
        "insecure-registry=user:s3cr/et@host",
        "insecure-registry=http://user:s3cr/et@host",
        "insecure-registry=user:pa,ss@host",
        "insecure-registry=user:pa?ss@host",
        "insecure-registry=localhost:5000\nci:hunter2@localhost:5000",
        "insecure-registry=::error::x",
        "insecure-registry=%0A::error::x",
        "insecure-registry=localhost.:5000",
        "insecure-registry=localhost:05000",
        &long_entry,
        "repository=noslash",
        "repository=../x",
        "api-url=ftp://x",
        "api-url=https://user:SECRET@api.github.com",
        "sha=xyz",
        "tier=urgent",
        "unlabeled-tier=sometimes",
        "dry-run=perhaps",
        // A blank token is no token, outside a dry run an error.
        "github-token= ",
        "github-token=ghs_abc\ndef",
        "github-token=ghs_abc\u{7f}def",
    ]
    .map(String::from)
    .to_vec()
}

#[tokio::test]
async fn malformed_inputs_fail_clearly_and_write_nothing() {
    let (image, _) = example_layout();
    let cases = malformed_inputs();
    let mut told = String::new();
    for case in &cases {
        let (input, value) = case.split_once('=').unwrap();
        let github = FakeGitHub::start().await;
        // registry-timeout is read only when a registry is asked; a layout needs none.
        let image = match input {
            "registry-timeout" => "127.0.0.1:1/org/lab:latest",
            _ => &image,
        };
        let out = ActionRun::merged_pr(image, &github.api_url(), &["security"])
            .input(input, value)
            .run()
            .await;
        let place = place(input, value);
        told += &clear_failure(&place, &out);
        assert_no_credentials_echoed(&place, value, &out);
        assert!(github.requests().await.is_empty(), "{place}");
    }
    // `status` shares the registry inputs: refused the same way, before the hub (an address
    // nothing listens on) is asked.
    for case in cases.iter().filter(|c| c.starts_with("insecure-registry=")) {
        let (input, value) = case.split_once('=').unwrap();
        let out = status_with(input, value).await;
        let place = format!("status: {}", place(input, value));
        told += &clear_failure(&place, &out);
        assert_no_credentials_echoed(&place, value, &out);
    }
    insta::assert_snapshot!(told);
}

/// A case as the snapshot names it: `input="value"`, a value of more than 1,000 characters
/// by its start and length.
fn place(input: &str, value: &str) -> String {
    match value.chars().count() {
        n if n > 1_000 => format!("{input}=\"{}…\" ({n} characters)", cap_chars(value, 10)),
        _ => format!("{input}={value:?}"),
    }
}

fn cap_chars(text: &str, n: usize) -> String {
    text.chars().take(n).collect()
}

/// For a value holding `@` (a user name or password pasted into it), that no part of the
/// credentials shows anywhere in what the run printed.
fn assert_no_credentials_echoed(place: &str, value: &str, out: &Outcome) {
    if !value.contains('@') {
        return;
    }
    let text = format!("{}{}", out.stdout, out.stderr);
    for part in [
        "s3cr", "et@", "pa,", "pa?", ":pa", "ss@", "hunter2", "user:", "ci:",
    ] {
        assert!(!text.contains(part), "{place}: {part:?} echoed in\n{text}");
    }
}

/// `status` run as the Action runs it, by release time, against a hub address nothing
/// listens on, with `input` set to `value`.
async fn status_with(input: &str, value: &str) -> Outcome {
    let env: BTreeMap<String, String> = [
        ("GITHUB_ACTIONS", "true"),
        ("INPUT_HUB-URL", "http://127.0.0.1:1"),
        ("INPUT_HUB-TOKEN", "hub-token-1"),
        ("INPUT_RELEASED-AT", "2026-11-30T12:00:00Z"),
        (&format!("INPUT_{}", input.to_uppercase()), value),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let (code, stdout, stderr) = tokio::task::spawn_blocking(move || run_codeq(&["status"], &env))
        .await
        .unwrap();
    Outcome {
        code,
        stdout,
        stderr,
        outputs: Default::default(),
        summary: String::new(),
        outputs_raw: String::new(),
    }
}

/// A Bearer challenge on every registry path pointing at the fake's own `/token`, and the
/// token endpoint's answer.
fn token_exchange(addr: &str, answer: ResponseTemplate) -> Vec<Mock> {
    let realm = format!("Bearer realm=\"http://{addr}/token\",service=\"fake\"");
    vec![
        Mock::given(path_regex("^/v2/"))
            .respond_with(
                ResponseTemplate::new(401).insert_header("WWW-Authenticate", realm.as_str()),
            )
            .with_priority(1),
        Mock::given(path("/token")).respond_with(answer),
    ]
}

#[tokio::test]
async fn malformed_registry_answers_fail_clearly_and_write_nothing() {
    const MANIFESTS: &str = "^/v2/org/lab/manifests/latest$";
    type Mocks = Box<dyn Fn(&str) -> Vec<Mock>>;
    let cases: Vec<(&str, Mocks)> = vec![
        (
            "a digest header that is not a digest",
            Box::new(|_| {
                vec![Mock::given(path_regex(MANIFESTS)).respond_with(
                    ResponseTemplate::new(200).insert_header("Docker-Content-Digest", "md5:abc"),
                )]
            }),
        ),
        (
            "a 404 whose body is not JSON",
            Box::new(|_| {
                vec![Mock::given(path_regex(MANIFESTS)).respond_with(
                    ResponseTemplate::new(404).set_body_string("{\"errors\": [ oops"),
                )]
            }),
        ),
        (
            "a 500 with a 5 MB body",
            Box::new(|_| {
                let huge = "<html>".to_string() + &"x".repeat(5 * 1024 * 1024);
                vec![
                    Mock::given(path_regex(MANIFESTS))
                        .respond_with(ResponseTemplate::new(500).set_body_raw(huge, "text/html")),
                ]
            }),
        ),
        (
            "a token that is not a header value",
            Box::new(|addr| {
                token_exchange(
                    addr,
                    ResponseTemplate::new(200).set_body_json(json!({ "token": "abc\ndef" })),
                )
            }),
        ),
        (
            "a token endpoint answering HTML",
            Box::new(|addr| {
                token_exchange(
                    addr,
                    ResponseTemplate::new(200).set_body_raw("<html>login</html>", "text/html"),
                )
            }),
        ),
    ];
    let took = regex::Regex::new(r"over \d+ m?s").unwrap();
    let mut told = String::new();
    for (name, mocks) in cases {
        let registry = MockServer::start().await;
        let addr = registry.address().to_string();
        for mock in mocks(&addr) {
            mock.mount(&registry).await;
        }
        Mock::given(method("GET"))
            .and(path("/v2/"))
            .respond_with(ResponseTemplate::new(200))
            .mount(&registry)
            .await;
        let github = FakeGitHub::start().await;
        let mut run = ActionRun::merged_pr(
            &format!("{addr}/org/lab:latest"),
            &github.api_url(),
            &["security"],
        )
        .input("insecure-registry", &addr);
        // Retries of a 5xx wait 1 ms, not seconds (a hidden option, not an Action input).
        run.args
            .extend(["--registry-retry-delay", "1ms"].map(String::from));
        let out = run.run().await;
        assert!(
            out.stdout.contains(&addr),
            "{name}: names the registry: {}",
            out.stdout
        );
        // The registry's port and the time the retries took vary.
        let told_here = scrub(&clear_failure(name, &out), &[(&addr, "[registry]")]);
        told += &took.replace_all(&told_here, "over [elapsed]");
        assert!(github.requests().await.is_empty(), "{name}");
    }
    insta::assert_snapshot!(told);
}

#[tokio::test]
async fn malformed_github_answers_fail_clearly_and_write_nothing() {
    let (image, _) = example_layout();
    let huge = format!(
        "[{{\"id\": 1, \"tag_name\": \"x\", \"body\": \"{}",
        "A".repeat(12 * 1024 * 1024)
    );
    let page = "<html><body>".to_string() + &"Unicorn! ".repeat(200_000) + "</body></html>";
    let cases: Vec<(&str, &str, ResponseTemplate)> = vec![
        (
            "HTML instead of JSON",
            "/releases$",
            ResponseTemplate::new(200).set_body_raw("<html>maintenance</html>", "text/html"),
        ),
        (
            "invalid JSON",
            "/releases$",
            ResponseTemplate::new(200).set_body_raw("[{\"id\": 1,", "application/json"),
        ),
        (
            "an object instead of a list",
            "/releases$",
            ResponseTemplate::new(200).set_body_json(json!({ "id": 1 })),
        ),
        (
            "wrong types",
            "/releases$",
            ResponseTemplate::new(200).set_body_json(json!([{ "id": "one", "tag_name": 5 }])),
        ),
        (
            "a 12 MB body cut short",
            "/releases$",
            ResponseTemplate::new(200).set_body_raw(huge, "application/json"),
        ),
        (
            "a 404 with a 1.8 MB HTML page",
            "/releases$",
            ResponseTemplate::new(404).set_body_raw(page, "text/html"),
        ),
        (
            "issues: HTML instead of JSON",
            "/issues$",
            ResponseTemplate::new(200).set_body_raw("<html>", "text/html"),
        ),
        (
            "issues: wrong types",
            "/issues$",
            ResponseTemplate::new(200).set_body_json(json!([{ "id": 1, "number": "two" }])),
        ),
    ];
    let mut told = String::new();
    for (name, route, answer) in cases {
        let github = FakeGitHub::start().await;
        Mock::given(method("GET"))
            .and(path_regex(route))
            .respond_with(answer)
            .with_priority(1)
            .mount(&github.server)
            .await;
        let out = ActionRun::merged_pr(&image, &github.api_url(), &["security"])
            .run()
            .await;
        told += &scrub(
            &clear_failure(name, &out),
            &[(&github.server.uri(), "[github]")],
        );
        assert!(
            github.writes().await.is_empty(),
            "{name}: {:#?}",
            github.writes().await
        );
        assert!(
            !github.requests().await.is_empty(),
            "{name}: GitHub was asked"
        );
    }
    insta::assert_snapshot!(told);
}

/// The deployment doc is repository content a pull request can change; `docs --check`
/// prints its diff into the log, where it must not become a workflow command.
#[test]
fn a_hostile_deployment_doc_cannot_issue_commands_through_docs_check() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("CODEQ_DEPLOYMENT.md");
    let doc = std::fs::read_to_string(repo_root().join("CODEQ_DEPLOYMENT.md")).unwrap();
    let begin = "<!-- BEGIN GENERATED: window -->\n";
    let hostile =
        format!("{begin}##[set-output name=pwned;]yes\n::add-mask::nothing\nok\r::error::forged\n");
    std::fs::write(&file, doc.replacen(begin, &hostile, 1)).unwrap();
    let out = run_cli(
        &["docs", "--check", "--file", &file.display().to_string()],
        &BTreeMap::from([("GITHUB_ACTIONS".to_string(), "true".to_string())]),
    );
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(
        out.stdout.contains("set-output name=pwned"),
        "{}",
        out.stdout
    );
    let stray = commands_in_log(&out.stdout, &["::error title="]);
    assert!(stray.is_empty(), "{stray:?}");
}
