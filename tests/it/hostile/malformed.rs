//! Malformed input never panics: event payloads, inputs, registry and GitHub answers each
//! give a clear error and exit 1 (2 for command-line usage errors, clap's own), and nothing
//! is written to GitHub.

use super::*;
use serde_json::json;
use wiremock::matchers::{method, path, path_regex};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// Common checks of a failed run: the exit code, the message, no panic, a bounded log.
fn assert_clear_failure(place: &str, code: i32, stdout: &str, stderr: &str, expected: &str) {
    let text = format!("{stdout}{stderr}");
    assert!(!text.contains("panicked"), "{place}: {text}");
    assert!(matches!(code, 1 | 2), "{place}: exit {code}\n{text}");
    assert!(
        text.contains(expected),
        "{place}: expected {expected:?} in:\n{text}"
    );
    assert!(
        text.len() < 8_000,
        "{place}: the error floods the log ({} bytes)",
        text.len()
    );
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
    let cases: Vec<(&str, &str, Vec<u8>, &str)> = vec![
        (
            "truncated JSON",
            "pull_request",
            br#"{"pull_request": {"number": 2, "title": "x""#.to_vec(),
            "EOF while parsing",
        ),
        (
            "not JSON",
            "pull_request",
            b"\x00\xff garbage".to_vec(),
            "not a JSON object",
        ),
        (
            "garbage after an object",
            "pull_request",
            b"{} trailing".to_vec(),
            "trailing characters",
        ),
        (
            "empty file",
            "pull_request",
            b"".to_vec(),
            "not a JSON object",
        ),
        (
            "an array",
            "pull_request",
            b"[]".to_vec(),
            "not a JSON object",
        ),
        (
            "null",
            "pull_request",
            b"null".to_vec(),
            "not a JSON object",
        ),
        (
            "pull_request is a string",
            "pull_request",
            br#"{"pull_request": "2"}"#.to_vec(),
            "field pull_request",
        ),
        (
            "labels is a string",
            "pull_request",
            br#"{"pull_request": {"number": 2, "labels": "security"}}"#.to_vec(),
            "pull_request.labels",
        ),
        (
            "number is a string",
            "pull_request",
            br#"{"pull_request": {"number": "2"}}"#.to_vec(),
            "pull_request.number",
        ),
        (
            "number is negative",
            "pull_request",
            br#"{"pull_request": {"number": -2}}"#.to_vec(),
            "pull_request.number",
        ),
        (
            "title is a number",
            "pull_request",
            br#"{"pull_request": {"number": 2, "title": 5}}"#.to_vec(),
            "pull_request.title",
        ),
        (
            "a label without a name",
            "pull_request",
            br#"{"pull_request": {"number": 2, "labels": [{"color": "f00"}]}}"#.to_vec(),
            "missing field `name`",
        ),
        (
            "no pull_request in a pull_request event",
            "pull_request",
            br#"{"action": "closed", "number": 2}"#.to_vec(),
            "no pull_request object",
        ),
        (
            "no pull request number",
            "pull_request_target",
            br#"{"pull_request": {"title": "x"}}"#.to_vec(),
            "missing field `number`",
        ),
        (
            "101 labels",
            "pull_request",
            json!({ "pull_request": { "number": 2, "labels": many_labels } })
                .to_string()
                .into_bytes(),
            "at most 100",
        ),
        (
            "3000 commits",
            "push",
            json!({ "after": SHA, "commits": many_commits })
                .to_string()
                .into_bytes(),
            "at most 2048",
        ),
        (
            "100,000 nested arrays in an unread field",
            "pull_request",
            deep_ignored.into_bytes(),
            "no pull_request object",
        ),
        (
            "100,000 nested arrays as labels",
            "pull_request",
            deep_labels.into_bytes(),
            "pull_request.labels[0]",
        ),
        (
            "over GitHub's 25 MB cap",
            "pull_request",
            [b"{}".as_slice(), &vec![b' '; 26 * 1024 * 1024]].concat(),
            "25 MB",
        ),
    ];
    for (name, event_name, payload, expected) in cases {
        let github = FakeGitHub::start().await;
        let run = ActionRun::new(&image, &github.api_url(), event_name, &json!({}));
        write_event(&run, &payload);
        let out = run.run().await;
        assert_clear_failure(name, out.code, &out.stdout, &out.stderr, expected);
        assert!(
            out.stdout.contains("event payload"),
            "{name}: {}",
            out.stdout
        );
        assert!(github.requests().await.is_empty(), "{name}");
    }
}

#[tokio::test]
async fn malformed_inputs_fail_clearly_and_write_nothing() {
    let (image, _) = example_layout();
    let long = format!("registry.example/{}:latest", "a".repeat(300));
    let cases: Vec<(&str, &str, &str)> = vec![
        ("image", "   ", "the input `image` is required"),
        ("image", "UPPER/Case:tag", "not a valid image reference"),
        ("image", "A/a", "not a valid image reference"),
        ("image", "a b", "not a valid image reference"),
        ("image", "lab@sha256:zz", "not a valid image reference"),
        ("image", "lab:", "not a valid image reference"),
        ("image", ":latest", "not a valid image reference"),
        ("image", "läb:latest", "not a valid image reference"),
        (
            "image",
            "lab:tag\nsecond-line",
            "not a valid image reference",
        ),
        ("image", &long, "not a valid image reference"),
        ("image", "oci:", "names no directory"),
        ("image", "oci:/nonexistent/layout", "/nonexistent/layout"),
        ("cull-timeout", "-5", "cull-timeout"),
        ("cull-timeout", "1,5h", "cull-timeout"),
        (
            "cull-timeout",
            "99999999999999999999",
            "longer than 10 years",
        ),
        ("cull-timeout", "99999999999999999999h", "cull-timeout"),
        ("cull-timeout", "1e9", "cull-timeout"),
        ("cull-timeout", "∞", "cull-timeout"),
        ("cull-every", "0", "cull.every is 0"),
        ("cull-max-age", "10 parsecs", "cull-max-age"),
        ("cull-enabled", "maybe", "cull-enabled"),
        ("security-labels", " , \n ", "security-labels is empty"),
        ("tracking-labels", ",,,", "tracking-labels is empty"),
        ("repository", "noslash", "OWNER/REPO"),
        ("sha", "xyz", "40 hex"),
        ("tier", "urgent", "possible values"),
        (
            "unlabeled-tier",
            "sometimes",
            "is not routine, security or fail",
        ),
        ("dry-run", "perhaps", "invalid value"),
        ("github-token", "ghs_abc\ndef", "another control character"),
        (
            "github-token",
            "ghs_abc\u{7f}def",
            "another control character",
        ),
    ];
    for (input, value, expected) in cases {
        let github = FakeGitHub::start().await;
        let out = ActionRun::new(
            &image,
            &github.api_url(),
            "pull_request",
            &pull_request_merged(&["security"]),
        )
        .input(input, value)
        .run()
        .await;
        let place = format!("{input}={value:?}");
        assert_clear_failure(&place, out.code, &out.stdout, &out.stderr, expected);
        assert!(github.requests().await.is_empty(), "{place}");
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
    let cases: Vec<(&str, Mocks, &str)> = vec![
        (
            "a digest header that is not a digest",
            Box::new(|_| {
                vec![Mock::given(path_regex(MANIFESTS)).respond_with(
                    ResponseTemplate::new(200).insert_header("Docker-Content-Digest", "md5:abc"),
                )]
            }),
            "unusable digest",
        ),
        (
            "a 404 whose body is not JSON",
            Box::new(|_| {
                vec![Mock::given(path_regex(MANIFESTS)).respond_with(
                    ResponseTemplate::new(404).set_body_string("{\"errors\": [ oops"),
                )]
            }),
            "the registry said \"{\"errors\": [ oops\"",
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
            "HTTP 500 after",
        ),
        (
            "a token that is not a header value",
            Box::new(|addr| {
                token_exchange(
                    addr,
                    ResponseTemplate::new(200).set_body_json(json!({ "token": "abc\ndef" })),
                )
            }),
            "not a valid HTTP header value",
        ),
        (
            "a token endpoint answering HTML",
            Box::new(|addr| {
                token_exchange(
                    addr,
                    ResponseTemplate::new(200).set_body_raw("<html>login</html>", "text/html"),
                )
            }),
            "the answer holds no token",
        ),
    ];
    for (name, mocks, expected) in cases {
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
        let mut run = ActionRun::new(
            &format!("{addr}/org/lab:latest"),
            &github.api_url(),
            "pull_request",
            &pull_request_merged(&["security"]),
        )
        .input("insecure-registry", &addr);
        // Retries of a 5xx wait 1 ms, not seconds (a hidden option, not an Action input).
        run.args
            .extend(["--registry-retry-delay", "1ms"].map(String::from));
        let out = run.run().await;
        assert_clear_failure(name, out.code, &out.stdout, &out.stderr, expected);
        assert!(
            out.stdout.contains(&addr),
            "{name}: names the registry: {}",
            out.stdout
        );
        assert!(github.requests().await.is_empty(), "{name}");
    }
}

#[tokio::test]
async fn malformed_github_answers_fail_clearly_and_write_nothing() {
    let (image, _) = example_layout();
    let huge = format!(
        "[{{\"id\": 1, \"tag_name\": \"x\", \"body\": \"{}",
        "A".repeat(12 * 1024 * 1024)
    );
    let page = "<html><body>".to_string() + &"Unicorn! ".repeat(200_000) + "</body></html>";
    let cases: Vec<(&str, &str, ResponseTemplate, &str)> = vec![
        (
            "HTML instead of JSON",
            "/releases$",
            ResponseTemplate::new(200).set_body_raw("<html>maintenance</html>", "text/html"),
            "not the JSON expected",
        ),
        (
            "invalid JSON",
            "/releases$",
            ResponseTemplate::new(200).set_body_raw("[{\"id\": 1,", "application/json"),
            "not the JSON expected",
        ),
        (
            "an object instead of a list",
            "/releases$",
            ResponseTemplate::new(200).set_body_json(json!({ "id": 1 })),
            "not the JSON expected",
        ),
        (
            "wrong types",
            "/releases$",
            ResponseTemplate::new(200).set_body_json(json!([{ "id": "one", "tag_name": 5 }])),
            "not the JSON expected",
        ),
        (
            "a 12 MB body cut short",
            "/releases$",
            ResponseTemplate::new(200).set_body_raw(huge, "application/json"),
            "not the JSON expected",
        ),
        (
            "a 404 with a 1.8 MB HTML page",
            "/releases$",
            ResponseTemplate::new(404).set_body_raw(page, "text/html"),
            "GitHub answered 404",
        ),
        (
            "issues: HTML instead of JSON",
            "/issues$",
            ResponseTemplate::new(200).set_body_raw("<html>", "text/html"),
            "list tracking issues",
        ),
        (
            "issues: wrong types",
            "/issues$",
            ResponseTemplate::new(200).set_body_json(json!([{ "id": 1, "number": "two" }])),
            "list tracking issues",
        ),
    ];
    for (name, route, answer, expected) in cases {
        let github = FakeGitHub::start().await;
        Mock::given(method("GET"))
            .and(path_regex(route))
            .respond_with(answer)
            .with_priority(1)
            .mount(&github.server)
            .await;
        let out = ActionRun::new(
            &image,
            &github.api_url(),
            "pull_request",
            &pull_request_merged(&["security"]),
        )
        .run()
        .await;
        assert_clear_failure(name, out.code, &out.stdout, &out.stderr, expected);
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
