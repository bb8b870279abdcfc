//! The GitHub token and the registry password never appear in stdout, stderr, outputs,
//! the summary or the bodies sent to GitHub, on any command path, in plain and debug
//! logging, inside and outside Actions, even when a registry or GitHub echoes them back.
//! The runner's `::add-mask::` lines are the only allowed carriers.

use super::*;
use serde_json::json;
use wiremock::matchers::{header_exists, method, path, path_regex};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

/// The logging modes: (name, GITHUB_ACTIONS, RUNNER_DEBUG).
const MODES: [(&str, bool, bool); 4] = [
    ("actions", true, false),
    ("actions+debug", true, true),
    ("local", false, false),
    ("local+debug", false, true),
];

fn with_mode(
    mut env: BTreeMap<String, String>,
    actions: bool,
    debug: bool,
) -> BTreeMap<String, String> {
    env.insert("GITHUB_ACTIONS".into(), actions.to_string());
    if debug {
        env.insert("RUNNER_DEBUG".into(), "1".into());
    } else {
        env.remove("RUNNER_DEBUG");
    }
    env.insert("INPUT_REGISTRY-USERNAME".into(), REGISTRY_USER.into());
    env.insert("INPUT_REGISTRY-PASSWORD".into(), PASSWORD.into());
    env
}

/// Stdout without the `::add-mask::` lines (the runner consumes them).
fn unmasked_stdout(stdout: &str) -> String {
    stdout
        .split(['\r', '\n'])
        .filter(|l| !l.starts_with("::add-mask::"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn check_outcome(place: &str, out: &Outcome) {
    assert_no_secret(&format!("{place}: stdout"), &unmasked_stdout(&out.stdout));
    assert_no_secret(&format!("{place}: stderr"), &out.stderr);
    assert_no_secret(&format!("{place}: $GITHUB_OUTPUT"), &out.outputs_raw);
    assert_no_secret(&format!("{place}: $GITHUB_STEP_SUMMARY"), &out.summary);
}

async fn check_github(place: &str, github: &FakeGitHub) {
    for (m, p, body) in github.requests().await {
        assert_no_secret(&format!("{place}: {m} {p} body"), &body.to_string());
        assert_no_secret(&format!("{place}: {m} path"), &p);
    }
}

/// Runs `run` in every logging mode; returns the outcomes by mode name.
async fn in_every_mode(make: impl Fn() -> ActionRun) -> Vec<(&'static str, Outcome)> {
    let mut outs = Vec::new();
    for (name, actions, debug) in MODES {
        let mut run = make();
        run.env = with_mode(run.env, actions, debug);
        outs.push((name, run.run().await));
    }
    outs
}

/// A real registry with htpasswd Basic auth for [`REGISTRY_USER`] / [`PASSWORD`], holding
/// `org/lab:latest`; returns (registry, reference, digest).
fn registry_with_basic_auth() -> (Registry, String, String) {
    let registry = Registry::start_htpasswd(REGISTRY_USER, PASSWORD);
    let creds = format!("{REGISTRY_USER}:{PASSWORD}");
    registry.push_image("secrets", Some(&creds));
    let digest = registry.raw_manifest_digest("org/lab:latest", &["--creds", &creds]);
    let reference = registry.reference("org/lab:latest");
    (registry, reference, digest)
}

#[tokio::test]
async fn announce_real_and_dry_run_leak_no_secret() {
    let (registry, image, digest) = registry_with_basic_auth();
    for dry_run in [false, true] {
        for (name, actions, debug) in MODES {
            let github = FakeGitHub::start().await;
            let mut run = ActionRun::merged_pr(&image, &github.api_url(), &["security"])
                .input("insecure-registry", &registry.addr)
                .input("dry-run", &dry_run.to_string());
            run.env = with_mode(run.env, actions, debug);
            let out = run.run().await;
            let place = format!("announce dry-run={dry_run} {name}");
            out.assert_success();
            // The password really was used: the registry demands it.
            assert_eq!(out.output("digest"), digest, "{place}");
            check_outcome(&place, &out);
            check_github(&place, &github).await;
            if actions {
                assert!(
                    out.stdout.starts_with("::add-mask::"),
                    "{place}: {}",
                    out.stdout
                );
            }
            if debug && actions && !dry_run {
                assert!(
                    out.stdout.contains("::debug::GitHub GET"),
                    "{place}: {}",
                    out.stdout
                );
            }
            assert_eq!(github.writes().await.is_empty(), dry_run, "{place}");
        }
    }
}

#[test]
fn window_and_docs_leak_no_secret() {
    let doc = tempfile::tempdir().unwrap();
    let file = doc.path().join("CODEQ_DEPLOYMENT.md");
    std::fs::copy(repo_root().join("CODEQ_DEPLOYMENT.md"), &file).unwrap();
    let file = file.display().to_string();
    // The token in a values file's name and in the hub's URL, which the window and the doc
    // quote.
    let values = doc.path().join(format!("{TOKEN}.yaml"));
    std::fs::write(&values, "cull:\n  timeout: 100\n").unwrap();
    let values = values.display().to_string();
    let hub = format!("https://hub.corp.test/{TOKEN}");
    let mut env = BTreeMap::new();
    env.insert("INPUT_GITHUB-TOKEN".to_string(), TOKEN.to_string());
    env.insert("GITHUB_TOKEN".to_string(), TOKEN.to_string());
    for (name, actions, debug) in MODES {
        let env = with_mode(env.clone(), actions, debug);
        std::fs::copy(repo_root().join("CODEQ_DEPLOYMENT.md"), &file).unwrap();
        // (arguments, exit code): success, bad input, a stale doc (prints a diff), no doc.
        for (args, code) in [
            (vec!["window"], 0),
            (vec!["window", "--json", "--cull-max-age", "8h"], 0),
            (vec!["window", "--json", "--jupyterhub-values", &values], 0),
            (vec!["window", "--jupyterhub-values", &values], 0),
            (vec!["window", "--cull-timeout", "soon"], 2),
            (vec!["docs", "--check", "--file", &file], 0),
            (
                vec!["docs", "--write", "--file", &file, "--cull-max-age", "1d"],
                0,
            ),
            (vec!["docs", "--check", "--file", &file], 1),
            (
                vec!["docs", "--check", "--file", &file, "--hub-url", &hub],
                1,
            ),
            (
                vec!["docs", "--write", "--file", &file, "--hub-url", &hub],
                0,
            ),
            (
                vec![
                    "docs",
                    "--check",
                    "--file",
                    "/nonexistent/CODEQ_DEPLOYMENT.md",
                ],
                2,
            ),
        ] {
            let out = run_cli(&args, &env);
            let place = format!("{args:?} {name}");
            assert_eq!(out.code, code, "{place}: {}{}", out.stdout, out.stderr);
            assert_no_secret(&format!("{place}: stdout"), &unmasked_stdout(&out.stdout));
            assert_no_secret(&format!("{place}: stderr"), &unmasked_stdout(&out.stderr));
            let written = std::fs::read_to_string(&file).unwrap();
            assert_no_secret(&format!("{place}: the doc"), &written);
        }
    }
}

/// A mixed-case secret put in a value the tool case-folds: an image reference it suggests
/// in lower case, a SHA it quotes in lower case, a hub host the URL parser lower-cases. No
/// case of it shows, inside Actions or not (the runner's masker matches exact text only, so
/// the folded forms are masked too).
#[test]
fn a_secret_in_a_value_the_tool_case_folds_stays_hidden() {
    const MIXED: &str = "Zq9sekritTOKENvalue123";
    let image = format!("ghcr.io/o/{MIXED}:latest");
    let hub = format!("https://{MIXED}.invalid/");
    let cases: [(Vec<&str>, i32); 3] = [
        (
            vec![
                "announce",
                "--image",
                &image,
                "--dry-run",
                "--github-token",
                MIXED,
            ],
            2,
        ),
        (
            vec!["announce", "--image", "oci:examples/lab", "--dry-run"]
                .into_iter()
                .chain(["--github-token", MIXED, "--sha", MIXED])
                .collect(),
            2,
        ),
        (
            vec!["status", "--hub-token", MIXED, "--hub-url", &hub]
                .into_iter()
                .chain([
                    "--released-at",
                    "2026-11-30T12:00:00Z",
                    "--hub-timeout",
                    "1s",
                ])
                .collect(),
            1,
        ),
    ];
    for (args, code) in &cases {
        for actions in [true, false] {
            let env = BTreeMap::from([("GITHUB_ACTIONS".to_string(), actions.to_string())]);
            let out = run_cli(args, &env);
            let place = format!("{} actions={actions}", args[0]);
            assert_eq!(out.code, *code, "{place}: {}{}", out.stdout, out.stderr);
            let shown = format!("{}\n{}", unmasked_stdout(&out.stdout), out.stderr);
            assert!(
                !shown
                    .to_ascii_lowercase()
                    .contains(&MIXED.to_ascii_lowercase()),
                "{place}: {shown}"
            );
        }
    }
}

/// A GitHub token pasted into an input that holds no secret: every word shaped like one
/// (GitHub's token prefixes) is masked before anything is printed, whichever input it is in
/// and whichever place quotes it. Rows: the input, its value (`{T}` the token), where it is
/// quoted (masked) and the exit code.
#[tokio::test]
async fn a_token_pasted_into_any_input_is_masked_wherever_it_is_quoted() {
    const T: &str = "ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    let rows: [(&str, &str, &str, i32); 7] = [
        ("values-path", "/x/{T}", "\"/x/***\" says where", 2),
        (
            "jupyterhub-values",
            "/x/{T}.yaml",
            "values file /x/***.yaml",
            2,
        ),
        ("tracking-assignees", "{T}-", "has \"***-\", which", 2),
        (
            "release-note-template",
            "/x/{T}.md",
            "\"/x/***.md\": cannot",
            2,
        ),
        (
            "tracking-issue-template",
            "/x/{T}.md",
            "\"/x/***.md\": cannot",
            2,
        ),
        (
            "environment",
            "{T}",
            "deployment of the release to *** (unless",
            0,
        ),
        (
            "image",
            "127.0.0.1:9/o/l:{T}",
            "| Image | `127.0.0.1:9/o/l:***` |",
            1,
        ),
    ];
    for (input, value, quoted, code) in rows {
        let run = ActionRun::new("oci:examples/lab", "http://127.0.0.1:9", "push", &json!({}))
            .input("dry-run", "true")
            .input("tier", "routine")
            .input(input, &value.replace("{T}", T));
        let out = run.run().await;
        let shown = [
            unmasked_stdout(&out.stdout),
            out.stderr.clone(),
            out.summary.clone(),
            out.outputs_raw.clone(),
        ]
        .join("\n");
        assert_eq!(out.code, code, "{input}: {shown}");
        assert!(shown.contains(quoted), "{input}: not quoted: {shown}");
        let lower = shown.to_ascii_lowercase();
        assert!(!lower.contains(&T.to_ascii_lowercase()), "{input}: {shown}");
    }
}

/// A long secret pasted into another input: the first line quotes that value capped (60
/// characters with its `…`), which cuts the secret short, so the mask of the whole secret
/// no longer matches it; no start of it shows, inside Actions or not, nor in the summary.
#[test]
fn a_long_secret_in_another_input_cut_by_the_quote_cap_stays_hidden() {
    let hub_token = "9bc45cbc066ca1273b59074a5ea4f631e4c6643adf2a60de20c550953b0e71d9";
    let start = &hub_token[..12];
    let cases = [
        ["--released-at", hub_token, "--namespace", "jhub"],
        [
            "--released-at",
            "2026-11-30T12:00:00Z",
            "--namespace",
            hub_token,
        ],
    ];
    for options in cases {
        for actions in [true, false] {
            let args: Vec<&str> = ["status", "--hub-url", "http://127.0.0.1:9"]
                .into_iter()
                .chain(["--hub-token", hub_token])
                .chain(options)
                .collect();
            let env = BTreeMap::from([("GITHUB_ACTIONS".to_string(), actions.to_string())]);
            let out = run_cli(&args, &env);
            let place = format!("{options:?} actions={actions}");
            assert_eq!(out.code, 2, "{place}: {}{}", out.stdout, out.stderr);
            let shown = format!("{}\n{}", unmasked_stdout(&out.stdout), out.stderr);
            assert!(
                shown.contains("\"***…\""),
                "{place}: the value is quoted: {shown}"
            );
            assert!(!shown.contains(start), "{place}: {shown}");
        }
    }
}

/// Answers with `status` and a body quoting the request's `Authorization` header: as a
/// careless registry or proxy error page does (the header decoded when Basic, and the
/// password in JSON), or as GitHub's "Bad credentials" does.
struct Echo {
    status: u16,
    like_github: bool,
}

/// A registry's echo of the credentials.
fn echo_credentials(status: u16) -> Echo {
    Echo {
        status,
        like_github: false,
    }
}

/// GitHub's echo of the token.
fn echo_token(status: u16) -> Echo {
    Echo {
        status,
        like_github: true,
    }
}

impl Respond for Echo {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        use base64::Engine as _;
        let auth = Some(header_of(req, "authorization"))
            .filter(|a| !a.is_empty())
            .unwrap_or_else(|| "(none)".into());
        if self.like_github {
            return ResponseTemplate::new(self.status).set_body_json(json!({
                "message": format!("Bad credentials: {auth}"),
                "errors": [{ "message": format!("token {auth} may not do this") }],
                "documentation_url": "https://docs.github.com/rest",
            }));
        }
        let decoded = auth
            .strip_prefix("Basic ")
            .and_then(|b| base64::engine::general_purpose::STANDARD.decode(b).ok())
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default();
        ResponseTemplate::new(self.status).set_body_string(format!(
            "denied: Authorization: {auth} ({decoded}) {}\nline two",
            json!({ "password": decoded.split_once(':').map(|p| p.1).unwrap_or("") })
        ))
    }
}

/// A registry whose token endpoint echoes the credentials (an authentication failure),
/// and one whose manifest endpoint does (a refusal, whose GET carries the registry's
/// message).
async fn echoing_registries() -> Vec<(&'static str, MockServer)> {
    let token_echo = MockServer::start().await;
    Mock::given(path_regex("^/v2/"))
        .respond_with(
            ResponseTemplate::new(401).insert_header(
                "WWW-Authenticate",
                format!(
                    "Bearer realm=\"{}/token\",service=\"fake\"",
                    token_echo.uri()
                )
                .as_str(),
            ),
        )
        .mount(&token_echo)
        .await;
    Mock::given(path("/token"))
        .respond_with(echo_credentials(401))
        .mount(&token_echo)
        .await;

    let manifest_echo = MockServer::start().await;
    Mock::given(path_regex("^/v2/org/lab/manifests/"))
        .and(header_exists("authorization"))
        .respond_with(echo_credentials(403))
        .with_priority(1)
        .mount(&manifest_echo)
        .await;
    Mock::given(path_regex("^/v2/"))
        .respond_with(
            ResponseTemplate::new(401).insert_header("WWW-Authenticate", "Basic realm=\"fake\""),
        )
        .mount(&manifest_echo)
        .await;
    vec![("token endpoint", token_echo), ("manifest", manifest_echo)]
}

#[tokio::test]
async fn registry_errors_that_echo_the_password_are_scrubbed() {
    for (what, registry) in echoing_registries().await {
        let addr = registry.address().to_string();
        let github = FakeGitHub::start().await;
        let outs = in_every_mode(|| {
            ActionRun::merged_pr(
                &format!("{addr}/org/lab:latest"),
                &github.api_url(),
                &["security"],
            )
            .input("insecure-registry", &addr)
        })
        .await;
        // The registry did see the credentials (so there was something to echo).
        let seen = registry.received_requests().await.unwrap();
        assert!(
            seen.iter()
                .any(|r| r.headers.get("authorization").is_some()),
            "{what}"
        );
        for (mode, out) in outs {
            let place = format!("registry {what} echo, {mode}");
            assert_eq!(out.code, 1, "{place}: {}", out.stdout);
            let text = format!("{}{}", out.stdout, out.stderr);
            assert!(text.contains("***"), "{place}: nothing was masked: {text}");
            assert!(
                text.contains("the registry said \"denied: Authorization: Basic ***"),
                "{place}: the echo is quoted, scrubbed: {text}"
            );
            assert!(
                text.contains(&addr),
                "{place}: the error names the registry: {text}"
            );
            check_outcome(&place, &out);
        }
        assert!(github.requests().await.is_empty(), "{what}");
    }
}

#[tokio::test]
async fn github_errors_that_echo_the_token_are_scrubbed() {
    let (image, _) = example_layout();
    // A read (401 on the first list) and a write (422 on creating the release).
    for (what, verb, route, status) in [
        ("read", "GET", "/releases$", 401),
        ("write", "POST", "/releases$", 422),
    ] {
        let github = FakeGitHub::start().await;
        Mock::given(method(verb))
            .and(path_regex(route))
            .respond_with(echo_token(status))
            .with_priority(1)
            .mount(&github.server)
            .await;
        let api = github.api_url();
        let outs = in_every_mode(|| ActionRun::merged_pr(&image, &api, &["routine"])).await;
        for (mode, out) in outs {
            let place = format!("GitHub {what} error echo, {mode}");
            assert_eq!(out.code, 1, "{place}: {}", out.stdout);
            let text = format!("{}{}", out.stdout, out.stderr);
            assert!(
                text.contains("Bad credentials") && text.contains("***"),
                "{place}: {text}"
            );
            // A 401's help names the token to set where the run is.
            let set = match mode.starts_with("actions") {
                true => "revoked: set `github-token:` under `with:` (default ${{ github.token }})",
                false => {
                    "revoked: set GH_TOKEN or GITHUB_TOKEN (or pass --github-token, though the process list shows it)\n"
                }
            };
            assert_eq!(text.contains(set), status == 401, "{place}: {text}");
            check_outcome(&place, &out);
        }
        check_github(what, &github).await;
    }
}
