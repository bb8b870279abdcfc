//! The convergence window from z2jh values files, `codeq-rollout window`, the deployment
//! doc's `docs --check | --write` on a copy of the committed CODEQ_DEPLOYMENT.md, and the
//! runbook's `stale` against a `kubectl` stand-in for what the real stack cannot produce (the
//! runbook run as written on the real stack: tests/it/runbook.rs).

use crate::common::*;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Exit code, stdout, stderr of `codeq-rollout ARGS` with only `env` in the environment,
/// run from the repository root.
fn run(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let env = env
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    run_codeq(args, &env)
}

/// [`run`], asserting exit 0; (stdout, stderr).
fn run_ok(args: &[&str], env: &[(&str, &str)]) -> (String, String) {
    let (code, stdout, stderr) = run(args, env);
    assert_eq!(code, 0, "{stdout}{stderr}");
    (stdout, stderr)
}

/// Runs each case with `run`, which gives `(label, exit code, stdout, stderr)`: each must be
/// a usage error (exit 2). Returns every label with its stderr, for one snapshot (the
/// system clock a calendar refusal states as `[clock]`).
fn usage_errors(
    cases: &[&[&str]],
    mut run: impl FnMut(&[&str]) -> (String, i32, String, String),
) -> String {
    let mut told = String::new();
    for case in cases {
        let (label, code, stdout, stderr) = run(case);
        assert_eq!(code, 2, "{label}: {stdout}{stderr}");
        told += &format!("{label}\n{stderr}\n");
    }
    let clock = regex::Regex::new(r"clock \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ").unwrap();
    clock.replace_all(&told, "clock [clock]").into_owned()
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// Snapshots a run's stdout and stderr, each as `(snapshot name, text)`, with `path` shown
/// as its placeholder (e.g. `[doc]`).
fn assert_outputs(stdout: (&str, &str), stderr: (&str, &str), (path, placeholder): (&Path, &str)) {
    let path = path.display().to_string();
    for (name, text) in [stdout, stderr] {
        insta::assert_snapshot!(name, scrub(text, &[(&path, placeholder)]));
    }
}

/// A copy of the committed doc in a temp dir.
fn doc_copy() -> (tempfile::TempDir, PathBuf, String) {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(repo_root().join("CODEQ_DEPLOYMENT.md")).unwrap();
    let path = write(dir.path(), "CODEQ_DEPLOYMENT.md", &text);
    (dir, path, text)
}

/// [`doc_copy`] with the first `from` replaced by `to` (which must be there); the edited
/// text is returned.
fn edited_copy(from: &str, to: &str) -> (tempfile::TempDir, PathBuf, String) {
    let (dir, path, text) = doc_copy();
    assert!(text.contains(from), "the doc has no {from:?}");
    let edited = text.replacen(from, to, 1);
    std::fs::write(&path, &edited).unwrap();
    (dir, path, edited)
}

fn docs(mode: &str, file: &Path, extra: &[&str]) -> (i32, String, String) {
    let mut args = vec!["docs", mode, "--file", file.to_str().unwrap()];
    args.extend_from_slice(extra);
    run(&args, &[])
}

#[test]
fn docs_check_passes_on_the_committed_doc() {
    let (_dir, path, _) = doc_copy();
    let (code, stdout, stderr) = docs("--check", &path, &[]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    insta::assert_snapshot!(scrub(&stdout, &[(&path.display().to_string(), "[doc]")]));
}

#[test]
fn a_one_character_edit_inside_a_generated_section_fails_with_a_diff_until_written() {
    let (_dir, path, text) = doc_copy();
    let window = text.find("<!-- BEGIN GENERATED: window -->").unwrap();
    let at = window + text[window..].find("**1h 10m**").unwrap();
    let mut edited = text.clone();
    edited.replace_range(at..at + "**1h 10m**".len(), "**1h 11m**");
    std::fs::write(&path, &edited).unwrap();

    let (code, stdout, stderr) = docs("--check", &path, &[]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    // The diff (only the edited line differs) and the advice, whole.
    assert_outputs(
        ("diff_of_an_edit_in_a_generated_section", &stdout),
        ("advice_on_an_edit_in_a_generated_section", &stderr),
        (&path, "[doc]"),
    );
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        edited,
        "--check writes nothing"
    );

    let (code, stdout, stderr) = docs("--write", &path, &[]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    assert_eq!(docs("--check", &path, &[]).0, 0);
}

#[test]
fn an_edit_outside_the_generated_sections_passes_and_stays() {
    let (_dir, path, edited) = edited_copy(
        "The standing window is the promise",
        "The standing window is our promise",
    );
    let (code, stdout, stderr) = docs("--check", &path, &[]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert_eq!(docs("--write", &path, &[]).0, 0);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), edited);
}

#[test]
fn docs_follow_the_values_files_and_runbook_options() {
    let (dir, path, _) = doc_copy();
    let values = write(
        dir.path(),
        "values.yaml",
        "jupyterhub:\n  cull:\n    timeout: 7200\n    maxAge: 86400\n",
    );
    let options = [
        "--jupyterhub-values",
        values.to_str().unwrap(),
        "--namespace",
        "lab-prod",
        "--hub-url",
        "https://lab.example.edu/",
    ];
    let (code, stdout, _) = docs("--check", &path, &options);
    assert_eq!(code, 1, "the committed doc shows the defaults: {stdout}");
    insta::assert_snapshot!(
        "diff_after_new_values_and_runbook_options",
        scrub(&stdout, &[(&path.display().to_string(), "[doc]")])
    );
    let (code, _, stderr) = docs("--write", &path, &options);
    assert_eq!(code, 0, "{stderr}");
    let doc = std::fs::read_to_string(&path).unwrap();
    // What --write wrote is what --check showed: checked below, and by the snapshot.
    assert!(doc.contains("`https://lab.example.edu/hub/admin`"), "{doc}");
    assert_eq!(docs("--check", &path, &options).0, 0);
}

#[test]
fn window_reads_values_files_in_order_and_options_override_them() {
    let dir = tempfile::tempdir().unwrap();
    let base = write(
        dir.path(),
        "base.yaml",
        "jupyterhub:\n  cull:\n    timeout: 7200\n    every: 300\n    maxAge: 28800\n",
    );
    let prod = write(
        dir.path(),
        "prod.yaml",
        "jupyterhub:\n  cull:\n    timeout: 5400\n",
    );
    let (stdout, _) = run_ok(
        &[
            "window",
            "--json",
            "--jupyterhub-values",
            base.to_str().unwrap(),
            "--jupyterhub-values",
            prod.to_str().unwrap(),
            "--cull-max-age",
            "12h",
        ],
        &[],
    );
    let json: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(json["idle_window_seconds"], 5400 + 300);
    assert_eq!(json["active_window_seconds"], 12 * 3600 + 300);
    assert_eq!(
        json["settings"],
        json!({"enabled": true, "timeout_secs": 5400, "every_secs": 300, "max_age_secs": 43200, "hub_size": null, "slow_stop_timeout_secs": 10})
    );
    assert_eq!(json["origins"]["enabled"], json!({"source": "default"}));
    assert_eq!(
        json["origins"]["timeout"],
        json!({"source": "file", "file": prod.to_str().unwrap(), "key": "jupyterhub.cull.timeout"})
    );
    assert_eq!(
        json["origins"]["every"],
        json!({"source": "file", "file": base.to_str().unwrap(), "key": "jupyterhub.cull.every"})
    );
    assert_eq!(
        json["origins"]["max_age"],
        json!({"source": "option", "name": "cull-max-age"})
    );
    assert_eq!(
        json["summary"],
        "idle sessions within 1h 35m of last activity; active sessions within 12h 5m of the release"
    );
}

#[test]
fn window_takes_the_action_inputs_one_path_per_line() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.yaml", "cull:\n  timeout: 600\n  every: 60\n");
    let b = write(dir.path(), "b.yaml", "cull:\n  enabled: false\n");
    let list = format!("{}\n{}\n", a.display(), b.display());
    let (stdout, stderr) = run_ok(&["window"], &[("INPUT_JUPYTERHUB-VALUES", &list)]);
    assert_outputs(
        ("window_from_two_values_files", &stdout),
        ("warning_when_culling_is_disabled", &stderr),
        (dir.path(), "[dir]"),
    );
}

/// A window of over a year is stated, with a warning naming the setting and the window it
/// makes; a year-long timeout under a maximum age of hours makes no warning.
#[test]
fn a_window_of_years_is_stated_with_a_warning_naming_the_setting() {
    let told: Vec<String> = [
        &["--cull-every", "3650d"][..],
        &["--cull-timeout", "400d"],
        &["--cull-max-age", "3650d"],
        &["--cull-timeout", "400d", "--cull-max-age", "8h"],
    ]
    .iter()
    .map(|args| {
        let (_, stderr) = run_ok(&[&["window"][..], args].concat(), &[]);
        format!("window {}\n{stderr}", args.join(" "))
    })
    .collect();
    insta::assert_snapshot!(told.join("\n"));
}

#[test]
fn bad_values_files_are_usage_errors_naming_the_file_and_key_path() {
    let dir = tempfile::tempdir().unwrap();
    let large = format!("# {}\n", "x".repeat(1 << 20));
    let cases = [
        ("types.yaml", "jupyterhub:\n  cull:\n    every: 10m\n"),
        ("negative.yaml", "cull:\n  timeout: -1\n"),
        ("broken.yaml", "cull: {timeout: 1\n"),
        ("zero.yaml", "cull:\n  every: 0\n"),
        ("typo.yaml", "jupyterhub:\n  cull:\n    timout: 60\n"),
        ("duplicate.yaml", "cull:\n  every: 60\n  every: 120\n"),
        // No line of the file shows: a values file holds secrets.
        (
            "secret.yaml",
            "proxy:\n  secretToken: \"ghp_PROXYSECRET1234567890abcdefghijklmn\ncull:\n  timeout: 3600\n",
        ),
        ("no/such/values.yaml", ""),
        ("/nonexistent-codeq-rollout/values.yaml", ""),
        ("large.yaml", large.as_str()),
    ];
    let mut told = String::new();
    for (name, text) in cases {
        let path = match text {
            "" => PathBuf::from(name),
            _ => write(dir.path(), name, text),
        };
        let (code, stdout, stderr) = run(
            &["window", "--jupyterhub-values", path.to_str().unwrap()],
            &[],
        );
        assert_eq!(code, 2, "{name}: a usage error: {stdout}");
        assert!(
            stdout.is_empty(),
            "{name}: nothing printed but the error: {stdout}"
        );
        told += &format!("{name}:\n{stderr}\n");
    }
    insta::assert_snapshot!(scrub(
        &told,
        &[(&dir.path().display().to_string(), "[dir]")]
    ));
    // Inside Actions, the annotation names the input, as for any usage error.
    let (code, stdout, stderr) = run(
        &["window", "--jupyterhub-values", "no/such/values.yaml"],
        &[("GITHUB_ACTIONS", "true")],
    );
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(
        stdout.starts_with("::error title=Invalid input%3A jupyterhub-values::cannot read the JupyterHub values file no/such/values.yaml: no such file%0Ahelp: "),
        "{stdout}"
    );
    // every 0 in a file is fine once an option gives the real interval.
    let zero = dir.path().join("zero.yaml");
    let (stdout, _) = run_ok(
        &[
            "window",
            "--jupyterhub-values",
            zero.to_str().unwrap(),
            "--cull-every",
            "600",
        ],
        &[],
    );
    insta::assert_snapshot!(
        "window_with_cull_every_from_the_option",
        scrub(&stdout, &[(&dir.path().display().to_string(), "[dir]")])
    );
}

#[test]
fn window_json_inside_actions_keeps_stdout_for_the_json() {
    let env = [("GITHUB_ACTIONS", "true"), ("INPUT_GITHUB-TOKEN", TOKEN)];
    let (stdout, stderr) = run_ok(&["window", "--json", "--cull-enabled", "false"], &env);
    let json: Value = serde_json::from_str(&stdout).expect("stdout is the JSON alone");
    assert_eq!(json["culling_enabled"], false);
    assert!(
        stderr.contains("::warning title=Convergence window::culling is disabled"),
        "the runner reads workflow commands on stderr too: {stderr}"
    );
    assert!(
        stderr.starts_with(&format!("::add-mask::{TOKEN}\n")),
        "{stderr}"
    );
    // Without --json the warning stays on stdout with the text.
    let (_, stdout, _) = run(&["window", "--cull-enabled", "false"], &env);
    assert!(
        stdout.contains("::warning title=Convergence window::"),
        "{stdout}"
    );
}

#[test]
fn bad_culler_options_are_usage_errors_with_clear_messages() {
    let cases: [&[&str]; 12] = [
        &["--cull-timeout", "-5m"],
        &["--cull-timeout", "+3600"],
        &["--cull-max-age", "never"],
        &["--cull-timeout", "1.001h"],
        &["--cull-every=-1"],
        &["--cull-max-age", "99999999999"],
        &["--cull-enabled", "maybe"],
        &["--values-path", "jupyterhub.cull"],
        // A parent key without a values file to look in.
        &["--values-path", "nope"],
        // The top level too: a values path without a values file does nothing.
        &["--values-path", "."],
        &["--jupyterhub-values", "a.yaml,b.yaml"],
        &["--slow-stop-timeout", "3650d", "--hub-size", "1000000"],
    ];
    let told = usage_errors(&cases, |args| {
        let mut all = vec!["window"];
        all.extend_from_slice(args);
        let (code, stdout, stderr) = run(&all, &[]);
        assert!(!stderr.contains("unexpected argument"), "{stderr}");
        (all.join(" "), code, stdout, stderr)
    });
    insta::assert_snapshot!(told);
    // A maximum age shorter than the idle timeout bounds idle sessions too.
    let (code, stdout, _) = run(
        &[
            "window",
            "--json",
            "--cull-timeout",
            "2h",
            "--cull-max-age",
            "30m",
        ],
        &[],
    );
    assert_eq!(code, 0);
    let json: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(json["idle_window_seconds"], 1800 + 600);
    assert_eq!(json["active_window_seconds"], 1800 + 600);
    // `none`, what `window` prints for a max age of 0, reads back as 0.
    let max_age = |v| run(&["window", "--json", "--cull-max-age", v], &[]).1;
    assert_eq!(max_age(" None "), max_age("0"));
}

#[test]
fn docs_refuse_runbook_values_that_would_break_its_commands_and_write_nothing() {
    let (_dir, path, text) = doc_copy();
    let cases: [&[&str]; 7] = [
        &["--namespace", "a b; rm -rf /"],
        &["--namespace", ""],
        &["--helm-release", "jhub$(id)"],
        &["--hub-url", "https://hub`.example.org"],
        &["--hub-url", "https://hub.example.org/$HOME"],
        &["--hub-url", "hub.example.org"],
        &["--slow-stop-timeout", "3650d", "--hub-size", "1000000"],
    ];
    let told = usage_errors(&cases, |options| {
        let (code, stdout, stderr) = docs("--write", &path, options);
        let written = std::fs::read_to_string(&path).unwrap();
        assert_eq!(written, text, "{options:?}: nothing written");
        (format!("{options:?}"), code, stdout, stderr)
    });
    insta::assert_snapshot!("runbook_values_refused", told);
    // Neither --check nor --write is clap's usage error.
    let (code, _, stderr) = run(&["docs", "--file", path.to_str().unwrap()], &[]);
    assert_eq!(code, 2, "{stderr}");
    insta::assert_snapshot!(
        "docs_without_check_or_write",
        scrub(&stderr, &[(path.to_str().unwrap(), "[doc]")])
    );
}

#[test]
fn docs_write_keeps_crlf_line_endings() {
    let (_dir, path, text) = doc_copy();
    let crlf = text.replace('\n', "\r\n");
    std::fs::write(&path, &crlf).unwrap();
    let (code, stdout, stderr) = docs("--check", &path, &[]);
    assert_eq!(
        code, 0,
        "an up-to-date CRLF doc is up to date: {stdout}{stderr}"
    );
    let options = ["--cull-max-age", "8h"];
    let (code, _, stderr) = docs("--write", &path, &options);
    assert_eq!(code, 0, "{stderr}");
    let written = std::fs::read_to_string(&path).unwrap();
    assert!(written.contains("within **8h 10m** of it"), "{written}");
    assert_eq!(
        written.matches('\n').count(),
        written.matches("\r\n").count(),
        "every line ends in CRLF"
    );
    assert_eq!(docs("--check", &path, &options).0, 0);
}

/// `docs --file` naming anything but a readable regular UTF-8 file of at most 1 MiB: exit
/// code 1 at once (a FIFO is never opened, `/dev/zero` never read), and an error whose fix
/// follows the reason.
#[test]
fn docs_refuse_a_file_that_is_not_a_bounded_regular_utf8_file_with_advice_for_each() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let cases: Vec<(&str, PathBuf)> = vec![
        ("fifo", fifo(d, "f.md")),
        ("device", PathBuf::from("/dev/zero")),
        ("directory", d.to_path_buf()),
        ("missing", d.join("no-such.md")),
        ("empty", PathBuf::new()),
        ("latin-1", {
            let p = d.join("latin1.md");
            std::fs::write(&p, b"# D\xe9ploiement\n").unwrap();
            p
        }),
        ("too large", {
            let p = d.join("big.md");
            std::fs::File::create(&p)
                .unwrap()
                .set_len(1024 * 1024 + 1)
                .unwrap();
            p
        }),
    ];
    let mut told = String::new();
    for (label, path) in &cases {
        for mode in ["--check", "--write"] {
            let (code, stdout, stderr) = run_bounded(
                &["docs", mode, "--file", path.to_str().unwrap()],
                &Default::default(),
            );
            // Bad input, as a values file's refusal (exit code 2; issue 32).
            assert_eq!(code, 2, "{label} {mode}: {stdout}{stderr}");
            assert_eq!(stdout, "", "{label} {mode}");
            if mode == "--check" {
                told += &format!("{label}:\n{stderr}");
            } else {
                assert_eq!(
                    stderr,
                    told.rsplit_once(":\n").unwrap().1,
                    "{label}: --write says what --check says"
                );
            }
        }
    }
    let big = std::fs::metadata(d.join("big.md")).unwrap();
    assert_eq!(big.len(), 1024 * 1024 + 1, "nothing written");
    insta::assert_snapshot!(scrub(&told, &[(&d.display().to_string(), "[dir]")]));
}

/// A values file that is a FIFO or `/dev/zero`, for `window` and `docs`: refused at once,
/// naming the file and what to give instead: a usage error naming `jupyterhub-values`.
#[test]
fn window_and_docs_refuse_a_values_file_that_is_a_fifo_or_a_device() {
    let (dir, doc, text) = doc_copy();
    let values = fifo(dir.path(), "values.yaml");
    let mut told = String::new();
    for path in [values.to_str().unwrap(), "/dev/zero"] {
        for command in [
            vec!["window", "--jupyterhub-values", path],
            vec![
                "docs",
                "--write",
                "--file",
                doc.to_str().unwrap(),
                "--jupyterhub-values",
                path,
            ],
        ] {
            let (code, stdout, stderr) = run_bounded(&command, &Default::default());
            assert_eq!(code, 2, "{command:?}: a usage error: {stdout}{stderr}");
            told += &format!("{}:\n{stderr}", command.join(" "));
        }
    }
    assert_eq!(
        std::fs::read_to_string(&doc).unwrap(),
        text,
        "nothing written"
    );
    insta::assert_snapshot!(scrub(
        &told,
        &[(&dir.path().display().to_string(), "[dir]")]
    ));
}

/// `docs --write` on a read-only doc (mode 0444) refuses and leaves it alone, also as root
/// (who could write it), as `scripts/pin-image` does; `--check` still reads it.
#[test]
fn docs_write_refuses_a_read_only_doc_and_leaves_it_alone() {
    use std::os::unix::fs::PermissionsExt;
    let (_dir, path, stale) = edited_copy("**1h 10m**", "**1h 11m**");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
    let (code, stdout, stderr) = docs("--write", &path, &[]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert_eq!(stdout, "");
    insta::assert_snapshot!(scrub(&stderr, &[(&path.display().to_string(), "[doc]")]));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), stale);
    let mode = std::fs::metadata(&path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o444, "the mode is left alone");
    assert_eq!(docs("--check", &path, &[]).0, 1, "--check reads it");
}

/// Docs whose sections cannot be placed without losing text: a marker sharing its line
/// with text the section would replace, a section nested inside another (replacing the
/// outer one would delete the inner one's markers), or no markers at all (what to add).
/// `--write` refuses each as bad input naming the markers (exit code 2) and leaves the doc
/// byte for byte; one snapshot of what it said.
#[test]
fn docs_write_refuses_docs_it_cannot_place_sections_in_and_writes_nothing() {
    let docs_refused = [
        "# Deployment\nSee <!-- BEGIN GENERATED: window --> here\n<!-- END GENERATED: window -->\n<!-- BEGIN GENERATED: runbook -->\n<!-- END GENERATED: runbook -->\n",
        "# Deployment\n<!-- BEGIN GENERATED: runbook -->\nold runbook\n<!-- BEGIN GENERATED: window -->\nold window\n<!-- END GENERATED: window -->\n<!-- END GENERATED: runbook -->\n",
        "# Deployment\nNo generated sections yet.\n",
    ];
    let mut said = Vec::new();
    for doc in docs_refused {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "CODEQ_DEPLOYMENT.md", doc);
        let (code, stdout, stderr) = docs("--write", &path, &[]);
        assert_eq!((code, stdout.as_str()), (2, ""), "{doc:?}: {stderr}");
        assert_eq!(std::fs::read(&path).unwrap(), doc.as_bytes());
        said.push(scrub(&stderr, &[(&path.display().to_string(), "[doc]")]));
    }
    insta::assert_snapshot!(said.join(""));
}

#[tokio::test]
async fn announce_states_the_window_from_values_files_with_origins() {
    let github = FakeGitHub::start().await;
    let dir = tempfile::tempdir().unwrap();
    let values = write(
        dir.path(),
        "hub.yaml",
        "jupyterhub:\n  cull:\n    timeout: 1800\n    maxAge: 28800\n",
    );
    let out = ActionRun::merged_pr("oci:examples/lab", &github.api_url(), &["routine"])
        .input("dry-run", "true")
        .input("jupyterhub-values", &format!("{}\n", values.display()))
        .input("values-path", "jupyterhub")
        .input("cull-every", "5m")
        .run()
        .await;
    out.assert_success();
    assert_eq!(out.output("idle-window-seconds"), "2100");
    assert_eq!(out.output("active-window-seconds"), "29100");
    assert_eq!(
        out.output("convergence-window"),
        "idle sessions within 35m of last activity; active sessions within 8h 5m of the release"
    );
    // The summary names each setting's origin; the note's concrete times count from the
    // run's clock (NOW = 12:00 UTC): both whole.
    let dir = dir.path().display().to_string();
    insta::assert_snapshot!(
        "summary_with_origins",
        scrub(&out.summary, &[(&dir, "[dir]")])
    );
    insta::assert_snapshot!("dry_run_with_times", scrub(&out.stdout, &[(&dir, "[dir]")]));
    assert_eq!(
        out.stdout
            .matches("An open browser tab counts as activity")
            .count(),
        1,
        "the open-tab caveat once: {}",
        out.stdout
    );
    assert!(github.writes().await.is_empty());
}

/// A single-user pod as `kubectl get pods -o json` lists it: its user's (and named
/// server's) annotations, and, when it runs, a sidecar's status (of the `old` digest) before
/// the notebook container's, whose `imageID` is `image`.
fn pod(name: &str, user: &str, server: Option<&str>, image: Option<&str>, old: &str) -> Value {
    let mut annotations = json!({"hub.jupyter.org/username": user});
    if let Some(s) = server {
        annotations["hub.jupyter.org/servername"] = json!(s);
    }
    let statuses: Vec<Value> = image
        .map(|i| {
            vec![
                json!({"name": "block-cloud-metadata", "imageID": format!("x@sha256:{old}")}),
                json!({"name": "notebook", "imageID": i}),
            ]
        })
        .unwrap_or_default();
    json!({"metadata": {"name": name, "annotations": annotations},
           "status": {"containerStatuses": statuses}})
}

/// Runs `script` with bash in `d`, `d` first on the PATH, stdin empty.
fn bash_in(d: &Path, script: &str) -> std::process::Output {
    Command::new("bash")
        .arg("-c")
        .arg(script)
        .current_dir(d)
        .env("PATH", format!("{}:/usr/bin:/bin", d.display()))
        .stdin(std::process::Stdio::null())
        .output()
        .expect("bash")
}

/// The runbook's `stale` against a `kubectl` stand-in printing canned pods, for what the real
/// stack (tests/it/runbook.rs: real kubectl, API server, hub and KubeSpawner) cannot produce:
/// an `imageID` as Docker runtimes (cri-dockerd) report it, `docker-pullable://…`, and a
/// sidecar's status before the `notebook` container's (the kubelet sorts container statuses
/// by name; the kubelet stand-in reports containerd's form in the spec's order, `notebook`
/// first). Both are judged by the notebook container's digest. And a digest left as the doc's
/// placeholder stops `stale` before anything is listed.
#[test]
fn stale_judges_the_notebook_container_among_others_and_dockers_image_ids() {
    let new = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
    let old = "1111111111111111111111111111111111111111111111111111111111111111";
    let platform = "2222222222222222222222222222222222222222222222222222222222222222";
    let digest = format!("sha256:{new}");
    let platforms = [codeq_rollout::Digest::parse(&format!("sha256:{platform}")).unwrap()];
    let runbook = codeq_rollout::runbook_section(
        &codeq_rollout::RunbookSettings {
            namespace: "lab".into(),
            helm_release: "hub".into(),
            hub_url: "https://hub.test".into(),
            ..Default::default()
        },
        &digest,
        &platforms,
    )
    .unwrap();
    let setup = runbook
        .split("  ```sh\n")
        .nth(1)
        .and_then(|b| b.split("  ```").next())
        .expect("the set-up block")
        .to_string();

    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let pods = json!({"items": [
        pod("jupyter-alice", "alice", None,
            Some(&format!("docker-pullable://ghcr.io/org/lab@sha256:{old}")), old),
        pod("jupyter-bob", "bob", Some("gpu"),
            Some(&format!("docker-pullable://ghcr.io/org/lab@sha256:{new}")), old),
        pod("jupyter-carol", "carol", None, Some(&format!("ghcr.io/org/lab@sha256:{new}")), old),
        // dan's node reports the index's platform manifest: the new image too.
        pod("jupyter-dan", "dan", None, Some(&format!("ghcr.io/org/lab@sha256:{platform}")), old),
    ]});
    write(d, "pods.json", &pods.to_string());
    write(
        d,
        "kubectl",
        &format!(
            "#!/bin/bash\necho \"$*\" >> {0}/kubectl.log\ncat {0}/pods.json\n",
            d.display()
        ),
    );
    let out = bash_in(d, &format!("chmod +x kubectl\n{setup}\nstale"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert_eq!(
        stdout,
        format!(
            "\njupyter-alice\tusers/alice/server\talice\t\tdocker-pullable://ghcr.io/org/lab@sha256:{old}\n"
        ),
        "{stderr}"
    );
    assert_eq!(stderr, "4 single-user pods in lab with release=hub\n");
    assert_eq!(
        std::fs::read_to_string(d.join("kubectl.log")).unwrap(),
        "get pods -n lab -l component=singleuser-server,release=hub -o json\n"
    );

    // A digest left as the doc's placeholder, or PLATFORMS unset (a single-platform image
    // sets it empty), stops before listing anything.
    let placeholder = setup.replace(&digest, codeq_rollout::DOC_DIGEST);
    let unset = format!("{setup}\nunset PLATFORMS");
    for setup in [placeholder, unset] {
        let out = bash_in(d, &format!("{setup}\nstale > /dev/null; echo rc=$?"));
        assert_eq!(
            (
                String::from_utf8_lossy(&out.stdout).as_ref(),
                String::from_utf8_lossy(&out.stderr).as_ref()
            ),
            (
                "\nrc=1\n",
                "DIGEST and PLATFORMS hold sha256 digests: set them first\n"
            )
        );
    }
    assert_eq!(
        std::fs::read_to_string(d.join("kubectl.log"))
            .unwrap()
            .lines()
            .count(),
        1,
        "kubectl was not run again"
    );
}
