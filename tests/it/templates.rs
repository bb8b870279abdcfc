//! Teams' own templates (issue 17): `release-note-template` and `tracking-issue-template`
//! render in a dry run and in a real run against the fake GitHub, with the tool's markers
//! above them and hostile pull-request titles still neutralised; every bad template is
//! refused with exit code 2, naming the input and the file, before any request to GitHub.

use crate::common::scenario::{Scenario, transcript};
use crate::common::*;
use crate::hostile::{JOINER, comments_below_header};
use codeq_rollout::{BodyKind, CustomTemplate};
use serde_json::{Value, json};
use std::path::Path;

/// The example templates in `examples/templates/` (docs/templates.md).
const NOTE: &str = "examples/templates/release-note.md.j2";
const ISSUE: &str = "examples/templates/tracking-issue.md.j2";

/// The example templates, checked as a run checks them.
pub fn examples() -> (CustomTemplate, CustomTemplate) {
    let read = |kind, path: &str| {
        let bytes = std::fs::read(repo_root().join(path)).unwrap();
        CustomTemplate::parse(kind, path, bytes).unwrap()
    };
    (
        read(BodyKind::ReleaseNote, NOTE),
        read(BodyKind::TrackingIssue, ISSUE),
    )
}

/// A title with everything GitHub would act on: a mention, a reference, a link, raw HTML,
/// and the tool's own marker.
const HOSTILE_TITLE: &str = "@octo-org/admins fixes #1 <img src=x onerror=alert(1)> <!-- codeq-rollout:release digest=sha256:0000000000000000000000000000000000000000000000000000000000000000 --> https://evil.example";

/// A security release of PR #2, merged with a hostile title, announced with both example
/// templates.
fn security_release_with_examples() -> Scenario {
    Scenario::merged_pr(&["security"])
        .edit(|e| e["pull_request"]["title"] = json!(HOSTILE_TITLE))
        .input("release-note-template", NOTE)
        .input("tracking-issue-template", ISSUE)
}

#[tokio::test]
async fn a_custom_template_renders_in_a_dry_run_like_the_built_in_ones() {
    let seen = security_release_with_examples()
        .input("dry-run", "true")
        .observe()
        .await
        .ok();
    assert!(
        seen.github.writes().await.is_empty(),
        "a dry run writes nothing"
    );
    insta::assert_snapshot!(seen.transcript.replace(JOINER, "{WJ}"));
}

/// The bodies POSTed: the tool's marker lines first, then the team's text; the hostile
/// title neutralised; a re-run with another tracking issue template leaves the issue body
/// alone (it is the responders').
#[tokio::test]
async fn a_custom_template_is_published_under_the_tools_markers() {
    let scenario = security_release_with_examples();
    let github = scenario.github().await;
    let out = scenario.action(&github).run().await;
    out.assert_success();
    let seen = transcript(&out, &github).await;
    let writes = github.writes().await;
    let posted = |path: &str| -> String {
        let (_, _, body) = writes
            .iter()
            .find(|(m, p, _)| m == "POST" && p.ends_with(path))
            .unwrap_or_else(|| panic!("no POST {path}: {writes:?}"));
        body["body"].as_str().unwrap().to_string()
    };
    let note = posted("/releases");
    let issue = posted("/issues");
    let note_lines: Vec<&str> = note.lines().collect();
    assert!(note_lines[0].starts_with("<!-- codeq-rollout:release digest=sha256:"));
    assert!(note_lines[1].starts_with("<!-- codeq-rollout:announced-at "));
    let issue_lines: Vec<&str> = issue.lines().collect();
    assert!(issue_lines[0].starts_with("<!-- codeq-rollout:tracking-issue digest=sha256:"));
    assert!(issue_lines[1].starts_with("<!-- codeq-rollout:evidence "));
    for body in [&note, &issue] {
        assert_eq!(comments_below_header(body), 0, "{body}");
        assert!(!body.contains("@octo-org/admins"), "{body}");
        assert!(!body.contains("<img"), "{body}");
    }
    insta::assert_snapshot!(seen.replace(JOINER, "{WJ}"));

    // Again, with the built-in tracking issue template: nothing is written, the issue body
    // stays as created.
    let before = github.calls_since(0).await.len();
    let again = Scenario::merged_pr(&["security"])
        .edit(|e| e["pull_request"]["title"] = json!(HOSTILE_TITLE))
        .input("release-note-template", NOTE)
        .action(&github)
        .run()
        .await;
    again.assert_success();
    let calls = github.calls_since(before).await;
    assert!(
        calls.iter().all(|c| c.starts_with("GET ")),
        "the re-run wrote (the tracking issue body must stay as created): {calls:?}"
    );
}

/// Runs a security announce in `workspace` with the template `input` set to `path`; asserts
/// that it stops with exit code 2 and one `::error` line before any request, without
/// printing the token; returns that line.
async fn refused_before_any_request(workspace: &Path, input: &str, path: &str) -> String {
    let github = FakeGitHub::start().await;
    let out = ActionRun::merged_pr("oci:examples/lab", &github.api_url(), &["security"])
        .var("GITHUB_WORKSPACE", &workspace.display().to_string())
        .input(input, path)
        .run()
        .await;
    assert_eq!(out.code, 2, "{input} {path}: {}{}", out.stdout, out.stderr);
    let requests = github.requests().await;
    assert!(requests.is_empty(), "{input} {path}: {requests:?}");
    let errors: Vec<&str> = out
        .stdout
        .lines()
        .filter(|l| l.starts_with("::error "))
        .collect();
    assert_eq!(errors.len(), 1, "{}", out.stdout);
    let shown = (out.stdout.lines().chain(out.stderr.lines()))
        .filter(|l| !l.starts_with("::add-mask::"))
        .any(|l| l.contains(TOKEN));
    assert!(!shown, "{input} {path}: the token is printed");
    errors[0].to_string()
}

/// Each bad template: exit code 2, one error naming the input and the file, no request.
/// The workspace is a temporary directory (`GITHUB_WORKSPACE`): a template outside it (an
/// absolute path, `..`, a symbolic link out of it) or not a regular file is never read.
#[tokio::test]
async fn every_bad_template_is_refused_before_any_request() {
    let outer = tempfile::tempdir().unwrap();
    let outer_dir = outer.path().canonicalize().unwrap();
    let dir = outer_dir.join("workspace");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(outer_dir.join("outside.md.j2"), "{{ image }}").unwrap();
    let write = |name: &str, bytes: &[u8]| -> String {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path.display().to_string()
    };
    let link = |name: &str, target: &str| -> String {
        let path = dir.join(name);
        std::os::unix::fs::symlink(target, &path).unwrap();
        path.display().to_string()
    };
    let fifo = fifo(&dir, "fifo.md.j2");
    std::fs::create_dir(dir.join("folder.md.j2")).unwrap();
    let big = vec![b'a'; 70_000];
    let cases: Vec<(&str, String)> = vec![
        (
            "release-note-template",
            "no/such/template.md.j2".to_string(),
        ),
        (
            "release-note-template",
            write("syntax.md.j2", b"Hello\n{% for pr in pull_requests %}\n"),
        ),
        (
            "tracking-issue-template",
            write(
                "unknown.md.j2",
                b"{% if security %}{{ hub_adress }}{% endif %}",
            ),
        ),
        (
            "release-note-template",
            write(
                "loop.md.j2",
                b"{% for pr in pull_requests %}{{ pr.titel }}{% endfor %}",
            ),
        ),
        (
            "release-note-template",
            write("blank.md.j2", b"{# nothing #}\n \n"),
        ),
        (
            "tracking-issue-template",
            write("latin1.md.j2", b"Caf\xe9 {{ image }}"),
        ),
        ("release-note-template", write("big.md.j2", &big)),
        ("release-note-template", "/etc/passwd".to_string()),
        (
            "release-note-template",
            format!("{}/../outside.md.j2", dir.display()),
        ),
        (
            "release-note-template",
            link("environ.md.j2", "/proc/self/environ"),
        ),
        (
            "tracking-issue-template",
            link("passwd.md.j2", "/etc/passwd"),
        ),
        ("release-note-template", fifo.display().to_string()),
        ("release-note-template", "/dev/zero".to_string()),
        (
            "release-note-template",
            dir.join("folder.md.j2").display().to_string(),
        ),
        (
            "release-note-template",
            write(
                "work.md.j2",
                b"{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}x",
            ),
        ),
        (
            "release-note-template",
            write("control.md.j2", b"x{{ \"\\x00\" }}"),
        ),
    ];
    let mut table = Vec::new();
    for (input, path) in cases {
        let error = refused_before_any_request(&dir, input, &path).await;
        table.push(scrub_pid(&scrub(
            &error,
            &[(&outer_dir.display().to_string(), "[dir]")],
        )));
    }
    insta::assert_snapshot!(table.join("\n"));
}

/// `/proc/PID/` with the process id as `/proc/[pid]/`.
fn scrub_pid(line: &str) -> String {
    match line.split_once("/proc/") {
        Some((before, after)) => {
            let rest = after.trim_start_matches(|c: char| c.is_ascii_digit());
            format!("{before}/proc/[pid]{rest}")
        }
        None => line.to_string(),
    }
}

/// A secret in a template's text (here the token, written into the file) is masked in
/// the body that is sent, as it is in the log: the bodies pass the log's masking engine.
#[tokio::test]
async fn a_secret_in_a_template_is_masked_in_the_body_sent() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().canonicalize().unwrap();
    let path = workspace.join("note.md.j2");
    std::fs::write(&path, format!("Released {{{{ image }}}} with {TOKEN}.\n")).unwrap();
    let github = FakeGitHub::start().await;
    let out = ActionRun::merged_pr("oci:examples/lab", &github.api_url(), &["routine"])
        .var("GITHUB_WORKSPACE", &workspace.display().to_string())
        .input("release-note-template", &path.display().to_string())
        .run()
        .await;
    out.assert_success();
    let writes = github.writes().await;
    assert_eq!(writes.len(), 1, "{writes:?}");
    let body = writes[0].2["body"].as_str().unwrap();
    assert!(!body.contains(TOKEN), "{body}");
    let text: Vec<&str> = body.lines().skip(2).collect();
    insta::assert_snapshot!(text.join("\n"));
}

/// A relative template path starts at the workspace (`GITHUB_WORKSPACE`), not at the
/// working directory: here the binary runs in the repository root, which has no such file.
#[tokio::test]
async fn a_relative_template_path_starts_at_the_workspace() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().canonicalize().unwrap();
    std::fs::create_dir(workspace.join(".github")).unwrap();
    std::fs::write(
        workspace.join(".github/note.md.j2"),
        "Released {{ digest_short }}.\n",
    )
    .unwrap();
    assert!(!repo_root().join(".github/note.md.j2").exists());
    let github = FakeGitHub::start().await;
    let out = ActionRun::merged_pr("oci:examples/lab", &github.api_url(), &["routine"])
        .var("GITHUB_WORKSPACE", &workspace.display().to_string())
        .input("release-note-template", ".github/note.md.j2")
        .run()
        .await;
    out.assert_success();
    let writes = github.writes().await;
    let body = writes[0].2["body"].as_str().unwrap();
    assert_eq!(
        body.lines().skip(2).collect::<Vec<_>>(),
        ["Released sha256:dd0db304db5f."]
    );
}

/// `--print-context` prints the names and values a template gets, as JSON on stdout alone.
#[tokio::test]
async fn print_context_shows_what_a_template_gets() {
    let github = FakeGitHub::start().await;
    let out = ActionRun::merged_pr("oci:examples/lab", &github.api_url(), &["security"])
        .input("dry-run", "true")
        .input("print-context", "true")
        .run()
        .await;
    out.assert_success();
    // Stdout is the JSON, after the runner's `::add-mask::` lines (the secrets come first).
    let json: String = out
        .stdout
        .lines()
        .filter(|l| !l.starts_with("::add-mask::"))
        .collect::<Vec<_>>()
        .join("\n");
    let context: Value = serde_json::from_str(&json).expect("stdout is the JSON alone");
    assert_eq!(context["tier"], "security");
    assert_eq!(context["runbook_steps"][0]["title"], "Decide");
    let mut shown = context.clone();
    for long in ["runbook", "runbook_steps", "window_text"] {
        shown[long] = json!("…");
    }
    insta::assert_snapshot!(serde_json::to_string_pretty(&shown).unwrap());

    // Without --dry-run, and without a token: the print-context error comes first, not an
    // unrelated one about the token.
    let mut refused = ActionRun::merged_pr("oci:examples/lab", &github.api_url(), &["security"])
        .input("print-context", "true");
    refused.env.remove("INPUT_GITHUB-TOKEN");
    let refused = refused.run().await;
    assert_eq!(refused.code, 2, "{}", refused.stdout);
    assert!(github.requests().await.is_empty());
    let errors: Vec<&str> = refused
        .stdout
        .lines()
        .filter(|l| l.starts_with("::error "))
        .collect();
    insta::assert_snapshot!("print_context_needs_dry_run", errors.join("\n"));
}

/// `docs/templates.md` lists every name of the context (nested ones too) that
/// `--print-context` prints (its example template is checked by `manual.rs`).
#[tokio::test]
async fn the_templates_page_lists_every_context_name() {
    let page = std::fs::read_to_string(repo_root().join("docs/templates.md")).unwrap();
    let github = FakeGitHub::start().await;
    let mut run = ActionRun::merged_pr("oci:examples/lab", &github.api_url(), &["security"]);
    // As options, stdout is kept for the JSON from the start: the masks go to stderr.
    run.args
        .extend(["--dry-run".into(), "--print-context".into()]);
    let out = run.run().await;
    out.assert_success();
    let context: Value = serde_json::from_str(&out.stdout).expect("stdout is the JSON alone");
    let section = page
        .split("## The names a template can use")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .unwrap();
    let mut names: Vec<String> = Vec::new();
    for (name, value) in context.as_object().unwrap() {
        names.push(name.clone());
        let inner = match value {
            Value::Array(items) => items.first(),
            other => Some(other),
        };
        if let Some(Value::Object(fields)) = inner {
            names.extend(fields.keys().cloned());
        }
    }
    let missing: Vec<&String> = names
        .iter()
        .filter(|n| !section.contains(&format!("`{n}`")))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/templates.md does not list {missing:?}"
    );
}

/// Issue 27 item 5: a body cut to GitHub's limit says where its full text is, and the full
/// text is there: the run's log (and, for the release note, the job summary) holds it. The
/// run warns that it was cut, and a dry run warns the same (publishing would cut it). A cut
/// inside an HTML comment or a fenced code block closes it first, so that line is shown
/// (the ends of the published notes, by snapshot).
#[tokio::test]
async fn a_note_cut_to_githubs_limit_has_its_full_text_where_the_cut_note_says() {
    // Templates must be files of the workspace (the repository).
    let dir = tempfile::tempdir_in(repo_root().join("target")).unwrap();
    let lines = "{% for i in range(7000) %}line {{ i }} of a long release note\n{% endfor %}";
    let (mut warned, mut ends) = (Vec::new(), String::new());
    for (name, open, close) in [
        ("none", "", ""),
        ("comment", "<!-- data\n", "-->"),
        ("backtick fence", "```text\n", "```"),
        ("tilde fence", "~~~~\n", "~~~~"),
    ] {
        let template = dir.path().join("long.md.j2");
        std::fs::write(&template, format!("Visible intro\n{open}{lines}{close}\n")).unwrap();
        let run = |dry_run: &str| {
            Scenario::merged_pr(&["routine"])
                .input("release-note-template", &template.display().to_string())
                .input("dry-run", dry_run)
                .observe()
        };
        let seen = run("false").await.ok();
        let warnings = |stdout: &str| {
            let warnings = stdout.lines().filter(|l| l.starts_with("::warning"));
            warnings.collect::<Vec<_>>().join("\n")
        };
        let dry = run("true").await.ok();
        assert_eq!(warnings(&dry.out.stdout), warnings(&seen.out.stdout));
        warned.push(warnings(&seen.out.stdout));
        let writes = seen.github.writes().await;
        let (_, _, posted) = writes
            .iter()
            .find(|(m, p, _)| m == "POST" && p.ends_with("/releases"))
            .unwrap();
        let body = posted["body"].as_str().unwrap();
        assert!(!body.contains("line 6999 of"), "the posted note is cut");
        let cut = body
            .lines()
            .rev()
            .find(|l| l.contains("This text was cut"))
            .unwrap_or_else(|| panic!("{}", &body[body.len() - 300..]));
        assert!(cut.contains("log"), "{cut}");
        assert!(
            seen.out.stdout.contains("line 6999 of a long release note"),
            "the log holds the full text, as the cut note says: {cut}"
        );
        if cut.contains("summary") {
            assert!(
                seen.out
                    .summary
                    .contains("line 6999 of a long release note")
            );
        }
        let end: Vec<&str> = body.lines().rev().take(6).collect();
        let end: Vec<&str> = end.into_iter().rev().collect();
        ends.push_str(&format!("== {name}\n{}\n", end.join("\n")));
    }
    assert!(warned.iter().all(|w| w == &warned[0]), "{warned:#?}");
    insta::assert_snapshot!(warned[0]);
    insta::assert_snapshot!("ends_of_the_cut_notes", ends);
}

/// Every file of `templates/` is one of the built-in templates (`src/render/templates.rs`
/// embeds each by name), so no template is left out of the one environment.
#[test]
fn every_template_file_is_built_in() {
    let source = std::fs::read_to_string(repo_root().join("src/render/templates.rs")).unwrap();
    for entry in std::fs::read_dir(repo_root().join("templates")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        assert!(
            source.contains(&format!("    \"{name}\",\n")),
            "templates/{name} is not embedded"
        );
    }
}
