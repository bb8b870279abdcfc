//! The Action's contract: action.yml, the binary, the Dockerfile, the example workflow and the
//! README agree, and the binary behaves on a runner as a native action does (masks, annotations,
//! outputs, summary, debug lines, exit codes, GitHub Enterprise Server).
//!
//! Every list here is derived from action.yml and from clap's `Cli::command()`, never written
//! out, so an input added in both places is covered without touching this file.
//!
//! The manual's generated parts (the inputs and outputs tables, the example workflow) are
//! checked by `manual.rs`.

use crate::common::scenario::{Scenario, Seen};
use crate::common::*;
use clap::CommandFactory;
use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

// ---------------------------------------------------------------------------------------------
// action.yml, read in file order.

#[derive(Deserialize)]
struct ActionYml {
    name: String,
    description: String,
    branding: Option<Branding>,
    /// In file order.
    inputs: IndexMap<String, Input>,
    /// In file order.
    outputs: IndexMap<String, Output>,
    runs: Runs,
}

#[derive(Deserialize)]
struct Branding {
    icon: Option<String>,
    color: Option<String>,
}

#[derive(Deserialize)]
struct Input {
    description: Option<String>,
    required: Option<bool>,
    default: Option<Value>,
}

#[derive(Deserialize)]
struct Output {
    description: Option<String>,
}

#[derive(Deserialize)]
struct Runs {
    using: String,
    image: Option<String>,
    #[serde(default)]
    args: Vec<String>,
}

impl Input {
    /// The default as the runner passes it (a YAML scalar, as text).
    fn default_text(&self) -> Option<String> {
        match &self.default {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => Some(other.to_string()),
        }
    }
}

fn action_yml() -> ActionYml {
    let text = std::fs::read_to_string(repo_root().join("action.yml")).unwrap();
    serde_saphyr::from_str(&text).expect("action.yml parses")
}

/// `INPUT_<NAME>`: upper-cased, spaces as `_`, hyphens kept (the runner's rule).
fn input_variable(name: &str) -> String {
    format!("INPUT_{}", name.replace(' ', "_").to_uppercase())
}

fn is_kebab_case(name: &str) -> bool {
    !name.is_empty()
        && name.split('-').all(|part| {
            !part.is_empty()
                && part
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        })
        && name.starts_with(|c: char| c.is_ascii_lowercase())
}

/// Whether a description is there and not blank.
fn described(description: &Option<String>) -> bool {
    description.as_deref().is_some_and(|d| !d.trim().is_empty())
}

fn read(path: &str) -> String {
    std::fs::read_to_string(repo_root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn action_yml_is_a_documented_docker_action() {
    let action = action_yml();
    assert!(!action.name.trim().is_empty());
    assert!(
        !action.description.trim().is_empty() && action.description.len() <= 125,
        "the description shows on the Marketplace card: at most 125 characters"
    );
    let branding = action.branding.expect("branding");
    assert!(branding.icon.is_some_and(|i| !i.is_empty()) && branding.color.is_some());
    assert_eq!(action.runs.using, "docker");
    assert_eq!(action.runs.image.as_deref(), Some("Dockerfile"));
    // One action, two commands: the `command` input (default announce) is the first argument.
    assert_eq!(action.runs.args, ["${{ inputs.command }}"]);
    let command = action.inputs.get("command").expect("a command input");
    assert_eq!(command.default_text().as_deref(), Some("announce"));

    assert!(!action.inputs.is_empty() && !action.outputs.is_empty());
    for (name, input) in &action.inputs {
        assert!(is_kebab_case(name), "input {name:?} is not kebab-case");
        assert!(
            described(&input.description),
            "input {name} has no description"
        );
        assert!(
            input.required.is_some(),
            "input {name} does not say `required:`"
        );
        if input.required == Some(true) {
            assert!(
                input.default.is_none(),
                "required input {name} has a default"
            );
        }
    }
    for (name, output) in &action.outputs {
        assert!(is_kebab_case(name), "output {name:?} is not kebab-case");
        assert!(
            described(&output.description),
            "output {name} has no description"
        );
    }
    let token = action
        .inputs
        .get("github-token")
        .expect("a github-token input");
    assert_eq!(token.default_text().as_deref(), Some("${{ github.token }}"));
}

// ---------------------------------------------------------------------------------------------
// Inputs: action.yml ⇔ clap ⇔ source.

/// Every `INPUT_…` variable the options of the Action's commands (`announce`, `status`) read,
/// with the option's long name and clap's default, from clap's own model of the command line.
struct Options {
    /// `INPUT_NAME` → (long name, default values joined by `,`); `announce`'s where both
    /// commands read a variable.
    by_variable: BTreeMap<String, (String, String)>,
    /// Visible `announce` options that read no `INPUT_` variable.
    without_variable: Vec<String>,
    /// `INPUT_` variables read by other commands' options.
    elsewhere: BTreeSet<String>,
}

/// The commands the Action runs (its `command` input); `announce` first.
const ACTION_COMMANDS: &[&str] = &["announce", "status"];

/// The input read from `runs.args`, not by an option.
const COMMAND_INPUT: &str = "command";

fn options() -> Options {
    let cli = codeq_rollout::Cli::command();
    let mut options = Options {
        by_variable: BTreeMap::new(),
        without_variable: Vec::new(),
        elsewhere: BTreeSet::new(),
    };
    for sub in cli.get_subcommands() {
        for arg in sub.get_arguments() {
            let variable = arg
                .get_env()
                .map(|e| e.to_string_lossy().into_owned())
                .filter(|e| e.starts_with("INPUT_"));
            let action_command = ACTION_COMMANDS.contains(&sub.get_name());
            if !action_command {
                options.elsewhere.extend(variable);
                continue;
            }
            let long = arg.get_long().unwrap_or_default().to_string();
            match variable {
                Some(variable) => {
                    let default = arg
                        .get_default_values()
                        .iter()
                        .map(|v| v.to_string_lossy().into_owned())
                        .collect::<Vec<_>>()
                        .join(",");
                    options
                        .by_variable
                        .entry(variable)
                        .or_insert((long, default));
                }
                None if sub.get_name() != "announce" => {}
                None if !arg.is_hide_set()
                    && !matches!(arg.get_id().as_str(), "help" | "version") =>
                {
                    options.without_variable.push(long);
                }
                None => {}
            }
        }
    }
    options
}

#[test]
fn every_input_is_an_option_read_from_its_input_variable_and_no_other_is_read() {
    let action = action_yml();
    let declared: BTreeMap<String, &str> = action
        .inputs
        .iter()
        .map(|(n, _)| (input_variable(n), n.as_str()))
        .collect();
    let options = options();
    let read: BTreeSet<&String> = options.by_variable.keys().collect();

    let not_read: Vec<&&str> = declared
        .iter()
        .filter(|(v, n)| !read.contains(v) && **n != COMMAND_INPUT)
        .map(|(_, n)| n)
        .collect();
    assert!(
        not_read.is_empty(),
        "inputs in action.yml that no `announce` or `status` option reads: {not_read:?}"
    );
    let undeclared: Vec<&&String> = read
        .iter()
        .filter(|v| !declared.contains_key(**v))
        .collect();
    assert!(
        undeclared.is_empty(),
        "variables the binary reads that action.yml does not declare: {undeclared:?}"
    );
    let elsewhere: Vec<&String> = options
        .elsewhere
        .iter()
        .filter(|v| !declared.contains_key(*v))
        .collect();
    assert!(elsewhere.is_empty(), "undeclared variables: {elsewhere:?}");
    assert!(
        options.without_variable.is_empty(),
        "`announce` options that are not Action inputs (declare it `#[arg(long, env)]` and add the input, or hide the option): {:?}",
        options.without_variable
    );
    // The option and the input share one name: `--cull-timeout` is `cull-timeout`.
    for (variable, (long, _)) in &options.by_variable {
        assert_eq!(variable, &input_variable(long), "--{long} reads {variable}");
    }
}

#[test]
fn the_source_reads_no_input_variable_that_action_yml_does_not_declare() {
    let declared: BTreeSet<String> = action_yml()
        .inputs
        .iter()
        .map(|(n, _)| input_variable(n))
        .collect();
    let mut found = BTreeMap::new();
    scan_input_variables(&repo_root().join("src"), &mut found);
    assert!(!found.is_empty(), "the scan found the clap declarations");
    let undeclared: Vec<_> = found
        .iter()
        .filter(|(v, _)| !declared.contains(*v))
        .collect();
    assert!(
        undeclared.is_empty(),
        "`INPUT_` variables in src/ that action.yml does not declare: {undeclared:?}"
    );
}

/// Collects every `INPUT_NAME` literal under `dir` (`INPUT_<NAME>` in prose is skipped).
fn scan_input_variables(dir: &Path, found: &mut BTreeMap<String, String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            scan_input_variables(&path, found);
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for (at, _) in text.match_indices("INPUT_") {
            let name: String = text[at + "INPUT_".len()..]
                .chars()
                .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || "-_".contains(*c))
                .collect();
            if !name.is_empty() {
                found
                    .entry(format!("INPUT_{name}"))
                    .or_insert_with(|| path.display().to_string());
            }
        }
    }
}

#[test]
fn defaults_in_action_yml_are_the_binarys_defaults() {
    let options = options();
    for (name, input) in &action_yml().inputs {
        let Some((long, clap_default)) = options.by_variable.get(&input_variable(name)) else {
            continue; // reported by the test above
        };
        if clap_default.is_empty() {
            continue; // the binary resolves it (from the environment or a documented default)
        }
        assert_eq!(
            input.default_text().as_deref(),
            Some(clap_default.as_str()),
            "input {name}: action.yml's default differs from --{long}'s"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// The binary on a runner.

/// A run on the shipped example layout (no registry needed) for a merged PR with `labels`.
fn example_run(github: &FakeGitHub, labels: &[&str]) -> ActionRun {
    ActionRun::merged_pr("oci:examples/lab", &github.api_url(), labels)
}

/// The one `::error` annotation of a run that exited with `code`.
fn the_error(out: &Outcome, code: i32) -> String {
    assert_eq!(out.code, code, "{}{}", out.stdout, out.stderr);
    let errors = annotations(&out.stdout, "error");
    assert_eq!(errors.len(), 1, "{}", out.stdout);
    errors[0].to_string()
}

fn annotations<'a>(stdout: &'a str, kind: &str) -> Vec<&'a str> {
    let prefix = format!("::{kind} ");
    let bare = format!("::{kind}::");
    stdout
        .lines()
        .filter(|l| l.starts_with(&prefix) || l.starts_with(&bare))
        .collect()
}

/// A security release of PR #2 with input `name` set to `value`, which succeeds.
async fn security_run(name: &str, value: &str) -> Seen {
    let scenario = Scenario::merged_pr(&["security"]).input(name, value);
    scenario.observe().await.ok()
}

#[tokio::test]
async fn every_declared_output_is_written_and_no_other() {
    let Seen { out, github, .. } = security_run("cull-max-age", "8h").await;
    // Each command declares its outputs once (`report::RunReport::outputs`, which holds them
    // to action.yml's); the deployment's are written only with `environment`
    // (tests/it/deployments.rs).
    let written: Vec<&str> = out.outputs.keys().map(String::as_str).collect();
    insta::assert_snapshot!(written.join(" "), @"active-window-seconds active-window-usual-seconds changed convergence-window digest idle-window-seconds idle-window-usual-seconds issue-url release-tag release-url tier tier-source");
    for name in [
        "digest",
        "release-url",
        "issue-url",
        "active-window-seconds",
    ] {
        assert!(!out.output(name).is_empty(), "{name} is empty");
    }

    // The heredoc delimiter is random: 32 hex digits, different on the next run.
    let delimiter = |raw: &str| {
        raw.lines()
            .next()
            .unwrap()
            .split_once("<<")
            .unwrap()
            .1
            .to_string()
    };
    let first = delimiter(&out.outputs_raw);
    let hex = first.strip_prefix("ghadelimiter_").unwrap();
    assert!(
        hex.len() == 32 && hex.bytes().all(|b| b.is_ascii_hexdigit()),
        "{first}"
    );
    let again = example_run(&github, &["security"])
        .input("cull-max-age", "8h")
        .run()
        .await;
    again.assert_success();
    assert_ne!(delimiter(&again.outputs_raw), first);
}

#[tokio::test]
async fn a_rerun_exits_0_and_the_summary_says_created_then_unchanged() {
    let Seen {
        out: first, github, ..
    } = Scenario::merged_pr(&["security"]).observe().await;
    first.assert_success();
    assert_eq!(first.output("changed"), "true");
    insta::assert_snapshot!("summary_of_a_first_run", first.summary);

    let second = example_run(&github, &["security"]).run().await;
    assert_eq!(second.code, 0, "unchanged is success: {}", second.stdout);
    assert_eq!(second.output("changed"), "false");
    insta::assert_snapshot!("summary_of_a_rerun", second.summary);
}

#[tokio::test]
async fn required_inputs_are_checked_by_the_binary_with_exit_code_2() {
    let github = FakeGitHub::start().await;
    // `image` is required by `announce` only, so action.yml cannot say `required: true`
    // (the same action runs `status`).
    let required: Vec<String> = action_yml()
        .inputs
        .into_iter()
        .filter(|(n, i)| i.required == Some(true) || n == "image")
        .map(|(n, _)| n)
        .collect();
    assert!(required.contains(&"image".to_string()));
    for name in &required {
        // The runner passes an unset input as an empty variable, or not at all.
        for value in [None, Some(""), Some("  ")] {
            let mut run = example_run(&github, &["security"]);
            run.env.remove(&input_variable(name));
            if let Some(v) = value {
                run = run.input(name, v);
            }
            let error = the_error(&run.run().await, 2);
            insta::assert_snapshot!(format!("required_input_{name}_unset"), error);
        }
    }
    assert!(github.requests().await.is_empty());
}

/// The same refusals on the command line (outside Actions) name what to pass there: the
/// option, and the variables a token is read from (gh's for the GitHub token), never
/// `with:` or `${{ github.token }}`.
#[test]
fn a_command_line_refusal_names_the_option_and_the_variables() {
    let mut told = Vec::new();
    let hub = [
        "--hub-url",
        "https://hub.example.edu",
        "--released-at",
        "2026-01-01T00:00:00Z",
    ];
    for (variable, args) in [
        (None, &["announce", "--dry-run"][..]),
        (None, &["announce", "--image", "oci:examples/lab"]),
        (None, &["status", "--hub-url", "https://hub.example.edu"]),
        // A token a variable gave is named by that variable, not the option.
        (
            Some(("GH_TOKEN", "ghp_CLI token")),
            &["announce", "--image", "oci:examples/lab"],
        ),
        (
            Some(("JUPYTERHUB_API_TOKEN", "short")),
            &[&["status"][..], &hub].concat(),
        ),
        // Set but empty: said so, naming the variable.
        (
            Some(("JUPYTERHUB_API_TOKEN", "")),
            &[&["status"][..], &hub].concat(),
        ),
        (
            Some(("GH_TOKEN", "")),
            &["announce", "--image", "oci:examples/lab"],
        ),
        // An option given empty is refused as empty, though its variable is set.
        (
            Some(("JUPYTERHUB_API_TOKEN", "hub-token-from-env")),
            &[&["status", "--hub-token", ""][..], &hub].concat(),
        ),
        (
            Some(("GH_TOKEN", "ghs_from_gh_token")),
            &["announce", "--image", "oci:examples/lab", "--github-token="],
        ),
        (
            Some(("GITHUB_TOKEN", "")),
            &[
                "status",
                "--hub-url",
                "https://hub.example.edu",
                "--hub-token",
                "0123456789abcdef",
                "--image",
                "ghcr.io/org/lab:latest",
            ],
        ),
    ] {
        let env = BTreeMap::from_iter(variable.map(|(k, v)| (k.to_string(), v.to_string())));
        let (code, stdout, stderr) = run_codeq(args, &env);
        assert_eq!((code, stdout.as_str()), (2, ""), "{args:?}: {stderr}");
        let set = variable.map_or(String::new(), |(k, v)| format!("{k}={v:?} "));
        told.push(format!("$ {set}codeq-rollout {}\n{stderr}", args.join(" ")));
    }
    insta::assert_snapshot!(told.join(""));
}

#[tokio::test]
async fn a_bad_value_is_a_usage_error_annotation_naming_the_input() {
    let Seen { out, github, .. } = Scenario::merged_pr(&["security"])
        .input("tier", "urgent")
        .observe()
        .await;
    // The title's `:` is escaped as workflow-command properties require.
    insta::assert_snapshot!("bad_tier_annotation", the_error(&out, 2));
    // Printed once, as the annotation: clap's own `error:` is not repeated on stderr.
    assert_eq!(out.stderr, "");
    assert!(github.requests().await.is_empty());
}

/// With `hub-size`, the window outputs carry the worst case ("never later than"), the usual
/// bound has its own outputs, and the published bodies state both; a bad hub size or
/// slow-stop timeout stops the run before any request, naming the input.
#[tokio::test]
async fn the_hub_size_makes_the_outputs_and_bodies_state_the_worst_case() {
    let Seen { out, github, .. } = Scenario::merged_pr(&["security"])
        .input("cull-max-age", "8h")
        .input("hub-size", "100")
        .input("slow-stop-timeout", "10s")
        .observe()
        .await
        .ok();
    let outputs: Vec<(&str, String)> = [
        "idle-window-seconds",
        "active-window-seconds",
        "idle-window-usual-seconds",
        "active-window-usual-seconds",
        "convergence-window",
    ]
    .into_iter()
    .map(|name| (name, out.output(name).to_string()))
    .collect();
    assert_eq!(
        outputs,
        [
            ("idle-window-seconds", "5200".to_string()),
            ("active-window-seconds", "30400".to_string()),
            ("idle-window-usual-seconds", "4200".to_string()),
            ("active-window-usual-seconds", "29400".to_string()),
            (
                "convergence-window",
                "idle sessions within 1h 10m of last activity (up to 1h 27m with 100 servers going idle in the same cull pass); active sessions within 8h 10m of the release (up to 8h 27m with 100 servers reaching the maximum server age in the same cull pass)".to_string()
            ),
        ]
    );
    let writes = github.writes().await;
    let mut bodies = 0;
    for (method, path, body) in &writes {
        let text = body["body"].as_str().unwrap_or_default();
        if method == "POST" && (path.ends_with("/releases") || path.ends_with("/issues")) {
            bodies += 1;
            assert!(
                text.contains("within **1h 10m** of their last activity")
                    && text.contains("; up to **1h 27m** (by **")
                    && text.contains("Hub: at most 100 servers at once, slow-stop timeout 10s."),
                "{path}: {text}"
            );
        }
    }
    assert_eq!(bodies, 2, "the release note and the tracking issue");
    for (input, value) in [
        ("hub-size", "0"),
        ("hub-size", "-1"),
        ("hub-size", "lots"),
        ("slow-stop-timeout", "0"),
        ("slow-stop-timeout", "-5s"),
        ("slow-stop-timeout", "soon"),
    ] {
        let Seen { out, github, .. } = Scenario::merged_pr(&["security"])
            .input(input, value)
            .observe()
            .await;
        let error = the_error(&out, 2);
        assert!(
            error.contains(&format!("title=Invalid input%3A {input}::{input} ")),
            "{input}={value}: {error}"
        );
        assert!(github.requests().await.is_empty(), "{input}={value}");
        // Refused before it started: every output written empty.
        assert!(
            out.outputs.values().all(String::is_empty),
            "{input}={value}"
        );
    }
}

#[tokio::test]
async fn github_enterprise_server_takes_the_api_prefix_and_links_from_the_server_url() {
    let github = FakeGitHub::start_with_prefix("/api/v3").await;
    let api_url = github.api_url();
    assert!(api_url.starts_with("http://") && api_url.ends_with("/api/v3"));
    let server_url = api_url.trim_end_matches("/api/v3").to_string();
    let out = example_run(&github, &["security"])
        .var("GITHUB_SERVER_URL", &server_url)
        .run()
        .await;
    out.assert_success();

    let requests = github.requests().await;
    assert!(!requests.is_empty());
    for (method, path, _) in &requests {
        assert!(
            path.starts_with(&format!("/api/v3/repos/{OWNER}/{REPO}/")),
            "{method} {path}"
        );
    }
    let writes = github.writes().await;
    let issue = writes
        .iter()
        .find(|(m, p, _)| m == "POST" && p.ends_with("/issues"))
        .map(|(_, _, b)| b["body"].as_str().unwrap().to_string())
        .expect("a tracking issue");
    let tag = out.output("release-tag");
    assert!(
        issue.contains(&format!("{server_url}/{OWNER}/{REPO}/releases/tag/{tag}")),
        "{issue}"
    );
    assert!(
        issue.contains(&format!(
            "{server_url}/{OWNER}/{REPO}/actions/runs/4242/attempts/1"
        )),
        "{issue}"
    );
    for (_, _, body) in &writes {
        let body = body.to_string();
        assert!(
            !body.contains("api.github.com") && !body.contains("https://github.com"),
            "{body}"
        );
    }
}

#[tokio::test]
async fn secrets_are_masked_before_anything_else_is_printed() {
    const PASSWORD: &str = "registry-Pa55word-never-printed";
    let Seen { out, .. } = Scenario::merged_pr(&["security"])
        .input("registry-username", "bot")
        .input("registry-password", PASSWORD)
        .var("RUNNER_DEBUG", "1")
        .observe()
        .await
        .ok();
    // The secrets and the forms a server may echo them in (base64, Basic credentials...)
    // are masked first, each once.
    out.assert_secrets_masked_first(&[TOKEN, PASSWORD]);
}

/// A write GitHub refuses (403) fails the run naming the permission it needs (and, for the
/// release, the workflow's rule), one snapshot each; the refused POST is not sent again.
#[tokio::test]
async fn a_forbidden_write_names_the_permission_and_is_not_retried() {
    let cases = [
        (
            "a_forbidden_release_names_the_permission_and_the_workflows_rule",
            "/releases",
            "routine",
        ),
        (
            "a_forbidden_tracking_issue_names_issues_write",
            "/issues",
            "security",
        ),
    ];
    for (name, route, tier) in cases {
        let github = FakeGitHub::start().await;
        github.forbid("POST", route);
        let out = example_run(&github, &[tier]).run().await;
        insta::assert_snapshot!(name, the_error(&out, 1));
        let posts = github
            .writes()
            .await
            .into_iter()
            .filter(|(m, p, _)| m == "POST" && p.ends_with(route))
            .count();
        assert_eq!(posts, 1, "{name}: a refused write is not retried");
    }
}

/// QA wave 6 item 2: `status` only reads, so GitHub refusing its listing of the releases
/// (403) names `contents: read`, not write, and the job summary points at the token and its
/// permissions, not the image; the hub is never asked.
#[tokio::test]
async fn a_forbidden_read_by_status_names_the_read_permission() {
    let github = FakeGitHub::start().await;
    github.forbid("GET", "/releases");
    let run = example_run(&github, &[]).input("hub-token", "hub-token-0123456789");
    let out = tokio::task::spawn_blocking(move || {
        let (code, stdout, _) = run_codeq(&["status", "--now", NOW], &run.env);
        let summary = std::fs::read_to_string(run.dir.path().join("summary"));
        (code, stdout, summary.unwrap())
    });
    let (code, stdout, summary) = out.await.unwrap();
    assert_eq!(code, 1, "{stdout}");
    assert_eq!(github.requests().await.len(), 1, "one GET, not tried again");
    let errors = annotations(&stdout, "error").join("\n");
    insta::assert_snapshot!(format!("{errors}\n\n{summary}"));
}

/// Issue 16: a run that fails still writes what it had established. Refused on the release
/// (403), the routine run writes the digest, tier and window with `release-url` empty and
/// `changed=false`; the security run opens the tracking issue anyway, so `issue-url` names
/// it and `changed` is true. The summary says which stage failed and what to do.
#[tokio::test]
async fn a_run_refused_on_the_release_still_writes_what_it_knew() {
    for tier in ["routine", "security"] {
        let seen = Scenario::merged_pr(&[tier])
            .forbid("POST", "/releases")
            .observe()
            .await;
        assert_eq!(seen.out.code, 1, "{}", seen.out.stdout);
        assert_eq!(seen.out.output("release-url"), "");
        assert!(!seen.out.output("digest").is_empty());
        insta::assert_snapshot!(format!("refused_release_{tier}"), seen.transcript);
    }
}

#[tokio::test]
async fn debug_lines_show_method_and_path_only_when_debug_logging_is_on() {
    let Seen { out: quiet, .. } = Scenario::merged_pr(&["routine"]).observe().await;
    quiet.assert_success();
    assert!(
        annotations(&quiet.stdout, "debug").is_empty(),
        "{}",
        quiet.stdout
    );

    for (variable, value) in [("RUNNER_DEBUG", "1"), ("ACTIONS_STEP_DEBUG", "true")] {
        let Seen { out, github, .. } = Scenario::merged_pr(&["routine"])
            .var(variable, value)
            .observe()
            .await
            .ok();
        let debug = annotations(&out.stdout, "debug");
        let requests = github.requests().await;
        assert_eq!(
            debug.len(),
            requests.len(),
            "one line per request: {}",
            out.stdout
        );
        for (line, (method, path, _)) in debug.iter().zip(&requests) {
            assert_eq!(*line, format!("::debug::GitHub {method} {path}"));
        }
        let lower = out.stdout.to_lowercase();
        assert!(
            !lower.contains("authorization") && !lower.contains("bearer"),
            "{}",
            out.stdout
        );
    }
}

#[tokio::test]
async fn warnings_become_warning_annotations() {
    let Seen { out, .. } = Scenario::merged_pr(&["routine"])
        .input("cull-enabled", "false")
        .observe()
        .await
        .ok();
    insta::assert_snapshot!(
        "warnings_when_culling_is_disabled",
        annotations(&out.stdout, "warning").join("\n")
    );

    let github = FakeGitHub::start().await;
    // The payload's PR has no tier label, and neither has the PR when re-fetched.
    github.set_pull(
        2,
        pull_json(2, "Tidy the docs", &["docs"], Some(SHA), "master"),
    );
    let out = example_run(&github, &[]).run().await;
    out.assert_success();
    assert_eq!(out.output("tier-source"), "default");
    // An unlabeled pull request is a warning.
    insta::assert_snapshot!(
        "warnings_for_an_unlabeled_pull_request",
        annotations(&out.stdout, "warning").join("\n")
    );
}

/// Everything a run printed or wrote, but the `::add-mask::` lines (the runner consumes them).
fn visible_text(out: &Outcome) -> String {
    let stdout: Vec<&str> = out
        .stdout
        .lines()
        .filter(|l| !l.starts_with("::add-mask::"))
        .collect();
    format!(
        "{}\n{}\n{}\n{}",
        stdout.join("\n"),
        out.stderr,
        out.summary,
        out.outputs_raw
    )
}

#[tokio::test]
async fn secrets_are_masked_before_a_usage_error_can_quote_them() {
    const PASSWORD: &str =
        "-----BEGIN KEY-----\nfirst-secret-line\nsecond-secret-line\n}\n-----END KEY-----";
    let github = FakeGitHub::start().await;
    // The token pasted into the wrong input: clap quotes the value it refuses.
    let cases = [
        ("tier", TOKEN),
        ("dry-run", TOKEN),
        ("dry-run", "second-secret-line"),
    ];
    for (input, value) in cases {
        let out = example_run(&github, &["security"])
            .input("registry-username", "bot")
            .input("registry-password", PASSWORD)
            .input(input, value)
            .run()
            .await;
        insta::assert_snapshot!(
            format!(
                "secret_refused_as_{input}_{}",
                if value == TOKEN {
                    "token"
                } else {
                    "password_line"
                }
            ),
            the_error(&out, 2)
        );
        let masks: Vec<&str> = out
            .stdout
            .lines()
            .take_while(|l| l.starts_with("::add-mask::"))
            .collect();
        // The multi-line secret whole (escaped as workflow-command data) and line by line,
        // as the runner masks the log line by line; a lone `}` is not worth masking.
        let mut expected = BTreeSet::from([
            format!("::add-mask::{TOKEN}"),
            format!("::add-mask::{}", PASSWORD.replace('\n', "%0A")),
        ]);
        for line in [
            "-----BEGIN KEY-----",
            "first-secret-line",
            "second-secret-line",
            "-----END KEY-----",
        ] {
            expected.insert(format!("::add-mask::{line}"));
        }
        // Encoded forms (base64, escaped) are masked too; these must be among the masks.
        let masked: BTreeSet<String> = masks.iter().map(std::string::ToString::to_string).collect();
        assert!(
            expected.is_subset(&masked) && !masked.contains("::add-mask::}"),
            "{input}: {}",
            out.stdout
        );
        let text = visible_text(&out);
        for secret in [TOKEN, "first-secret-line", "second-secret-line"] {
            assert!(!text.contains(secret), "{input}: shows {secret}:\n{text}");
        }
    }

    // On the command line too.
    let mut run = example_run(&github, &["security"]);
    run.env.remove("INPUT_GITHUB-TOKEN");
    run.args.extend(
        [
            "--github-token",
            "cli-token-value",
            "--tier",
            "cli-token-value",
        ]
        .map(String::from),
    );
    let out = run.run().await;
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stdout.starts_with("::add-mask::cli-token-value\n"),
        "{}",
        out.stdout
    );
    assert!(
        !visible_text(&out).contains("cli-token-value"),
        "{}",
        out.stderr
    );
    assert!(github.requests().await.is_empty());
}

#[tokio::test]
async fn dry_run_takes_boolean_words_trimmed_and_names_them_when_refused() {
    let github = FakeGitHub::start().await;
    for value in [" true ", "YES", "1", "on"] {
        let out = example_run(&github, &["security"])
            .input("dry-run", value)
            .run()
            .await;
        out.assert_success();
        assert_eq!(out.output("changed"), "false", "{value:?}: a dry run");
    }
    assert!(github.writes().await.is_empty());
    let out = example_run(&github, &["security"])
        .input("dry-run", "maybe")
        .run()
        .await;
    insta::assert_snapshot!(the_error(&out, 2));
    assert!(!out.stdout.contains("error: error:") && !out.stdout.contains("::error: "));
}

#[tokio::test]
async fn a_security_dry_run_summary_says_no_tracking_issue_was_opened() {
    let Seen { out, github, .. } = security_run("dry-run", "true").await;
    insta::assert_snapshot!(out.summary);
    assert!(github.writes().await.is_empty());
}

/// A run refused on its inputs (exit code 2), by clap (a value `tier` does not take) or by
/// the command line's checks (a duration `cull-timeout` does not take; a `values-path` no
/// values file has, or holding no mapping, titled by it), writes a job summary saying so with the annotation's
/// words and the input, and every output empty; nothing is sent to GitHub. A secret quoted in the refusal stays masked in both files. A run that
/// names an environment (valid or not) writes the deployment's outputs too, empty.
#[tokio::test]
async fn a_run_refused_on_its_inputs_writes_a_failure_summary_and_every_output_empty() {
    const PROD: (&str, &str) = ("environment", "jupyterhub-prod");
    for (name, inputs, count) in [
        ("clap", &[("tier", "urgent")][..], 12),
        ("checked", &[("cull-timeout", "soon")], 12),
        ("secret", &[("cull-timeout", TOKEN)], 12),
        (
            "checked_with_environment",
            &[("cull-timeout", "soon"), PROD],
            14,
        ),
        ("clap_environment", &[("environment", "prod\u{202e}ue")], 14),
        // A key no values file has (any YAML mapping will do): `values-path` is at fault.
        (
            "values_path",
            &[
                ("jupyterhub-values", "examples/announce.yml"),
                ("values-path", "jupyterhub"),
            ],
            12,
        ),
        // A key of the values-path given that holds no mapping (`name: lab-image`): the
        // values-path is at fault, as for a key no file has.
        (
            "values_path_not_a_mapping",
            &[
                ("jupyterhub-values", "examples/announce.yml"),
                ("values-path", "name"),
            ],
            12,
        ),
    ] {
        let scenario = Scenario::merged_pr(&["routine"]);
        let scenario = (inputs.iter()).fold(scenario, |s, (input, value)| s.input(input, value));
        let seen = scenario.observe().await;
        assert_eq!(seen.out.code, 2, "{}", seen.out.stdout);
        assert!(seen.github.requests().await.is_empty());
        // The whole outputs file: each of announce's outputs once, empty.
        let outputs: Vec<(&str, &str)> = seen
            .out
            .outputs
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        assert_eq!(outputs.len(), count, "{name}: {}", seen.out.outputs_raw);
        assert!(outputs.iter().all(|(_, v)| v.is_empty()), "{outputs:?}");
        insta::assert_snapshot!(format!("refused_on_its_inputs_{name}"), seen.transcript);
        if name == "secret" {
            seen.out.assert_secrets_masked_first(&[TOKEN]);
        }
    }
}

/// A job summary that cannot be written (`$GITHUB_STEP_SUMMARY` a directory) fails the
/// run after the outputs were written; the report of the failure writes nothing again and
/// warns about nothing (the error says what could not be written). Step outputs that cannot
/// be written fail the run too; the job summary then says so.
#[tokio::test]
async fn a_runner_file_that_cannot_be_written_fails_the_run_and_is_not_tried_again() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().display().to_string();
    for (name, variable) in [
        ("summary", "GITHUB_STEP_SUMMARY"),
        ("outputs", "GITHUB_OUTPUT"),
    ] {
        let seen = Scenario::merged_pr(&["routine"])
            .input("dry-run", "true")
            .var(variable, &path)
            .observe()
            .await;
        assert_eq!(seen.out.code, 1, "{}", seen.out.stdout);
        assert!(annotations(&seen.out.stdout, "warning").is_empty());
        insta::assert_snapshot!(
            format!("runner_file_a_directory_{name}"),
            scrub(&seen.transcript, &[(&path, "[directory]")])
        );
    }
}

#[tokio::test]
async fn an_unset_github_output_inside_actions_is_a_warning() {
    let Seen { out, github, .. } = Scenario::merged_pr(&["routine"])
        .var("GITHUB_OUTPUT", "")
        .input("dry-run", "true")
        .observe()
        .await
        .ok();
    assert!(out.outputs.is_empty());
    insta::assert_snapshot!(annotations(&out.stdout, "warning").join("\n"));
    // A run refused on its inputs warns the same way: its outputs are not written either.
    let Seen { out, .. } = Scenario::merged_pr(&["routine"])
        .var("GITHUB_OUTPUT", "")
        .input("tier", "urgent")
        .observe()
        .await;
    assert_eq!(out.code, 2, "{}", out.stdout);
    assert!(out.outputs.is_empty());
    insta::assert_snapshot!(
        "an_unset_github_output_inside_actions_is_a_warning_when_refused",
        annotations(&out.stdout, "warning").join("\n")
    );
    // Outside Actions there is no GITHUB_OUTPUT to expect.
    let out = example_run(&github, &["routine"])
        .var("GITHUB_OUTPUT", "")
        .var("GITHUB_ACTIONS", "")
        .input("dry-run", "true")
        .run()
        .await;
    out.assert_success();
    assert!(!out.stderr.contains("GITHUB_OUTPUT"), "{}", out.stderr);
}

// ---------------------------------------------------------------------------------------------
// The Dockerfile (no docker engine here: hadolint lints it in scripts/test.sh).

#[test]
fn the_dockerfile_builds_in_one_stage_and_runs_the_binary_from_another() {
    let dockerfile = read("Dockerfile");
    let instructions: Vec<&str> = dockerfile
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with('&'))
        .collect();
    let froms: Vec<&&str> = instructions
        .iter()
        .filter(|l| l.starts_with("FROM "))
        .collect();
    assert_eq!(froms.len(), 2, "multi-stage: {froms:?}");
    assert!(froms[0].ends_with(" AS build"));
    // The runtime stage is the tree scripts/image-rootfs assembles, on scratch, as the
    // released image (scripts/build-image; tests/it/container.rs runs it).
    assert_eq!(**froms[1], *"FROM scratch");
    assert!(dockerfile.contains("cargo build --release --locked"));
    assert!(dockerfile.contains("scripts/image-rootfs target/release/codeq-rollout /rootfs"));
    assert!(dockerfile.contains("COPY --from=build /rootfs/ /"));
    assert_eq!(
        instructions.last(),
        Some(&r#"ENTRYPOINT ["/usr/local/bin/codeq-rollout"]"#)
    );
    // GitHub runs Docker actions as the image's user, which must be root to write the file
    // commands (see the Dockerfile's comment).
    assert!(
        !instructions.iter().any(|l| l.starts_with("USER ")),
        "Docker actions must run as root"
    );
    let ignore = read(".dockerignore");
    assert!(ignore.lines().any(|l| l.trim() == "target/"));

    // The build stage has every file the build reads: the manifest's target paths and the
    // files the source embeds with `include_str!`.
    let copied: Vec<&str> = instructions
        .iter()
        .filter_map(|l| l.strip_prefix("COPY "))
        .filter(|l| !l.starts_with("--from"))
        .flat_map(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            words[..words.len() - 1].to_vec()
        })
        .collect();
    let is_copied = |path: &str| {
        copied
            .iter()
            .any(|c| path == *c || path.starts_with(&format!("{}/", c.trim_end_matches('/'))))
    };
    let mut needed = vec!["Cargo.toml".to_string(), "Cargo.lock".to_string()];
    for line in read("Cargo.toml").lines() {
        if let Some(path) = line.trim().strip_prefix("path = ") {
            needed.push(path.trim_matches('"').to_string());
        }
    }
    let mut embedded = Vec::new();
    collect_includes(&repo_root().join("src"), &mut embedded);
    assert!(!embedded.is_empty());
    needed.extend(embedded);
    for path in &needed {
        assert!(
            is_copied(path),
            "the Dockerfile does not COPY {path}: {copied:?}"
        );
    }
}

/// Paths (relative to the repository) that `include_str!`/`include_bytes!` embed.
fn collect_includes(dir: &Path, found: &mut Vec<String>) {
    let root = repo_root();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect_includes(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            // A macro embedding a list of files names their folder: `concat!("dir/", $name)`.
            let needles = [
                "include_str!(\"",
                "include_bytes!(\"",
                "include_str!(concat!(\"",
            ];
            for needle in needles {
                for (at, _) in text.match_indices(needle) {
                    let rest = &text[at + needle.len()..];
                    let relative = &rest[..rest.find('"').unwrap()];
                    let full = path.parent().unwrap().join(relative);
                    let mut parts: Vec<String> = Vec::new();
                    for c in full.strip_prefix(&root).unwrap().components() {
                        match c {
                            std::path::Component::ParentDir => {
                                parts.pop();
                            }
                            std::path::Component::Normal(p) => {
                                parts.push(p.to_string_lossy().into_owned());
                            }
                            _ => {}
                        }
                    }
                    found.push(parts.join("/"));
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The example workflow and the README.

const EXAMPLE: &str = "examples/announce.yml";

#[test]
fn the_example_workflow_passes_only_declared_inputs_and_every_required_one() {
    let workflow: Value = serde_saphyr::from_str(&read(EXAMPLE)).unwrap();
    let steps: Vec<&Value> = workflow["jobs"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|job| job["steps"].as_array().unwrap())
        .filter(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.contains("/codeq-rollout@"))
        })
        .collect();
    assert_eq!(steps.len(), 1);
    let with = steps[0]["with"].as_object().unwrap();
    let action = action_yml();
    let declared: BTreeSet<&str> = action.inputs.iter().map(|(n, _)| n.as_str()).collect();
    for key in with.keys() {
        assert!(
            declared.contains(key.as_str()),
            "{EXAMPLE} passes {key}, which action.yml does not declare"
        );
    }
    for (name, input) in &action.inputs {
        if input.required == Some(true) {
            assert!(with.contains_key(name), "{EXAMPLE} must pass {name}");
        }
    }
    let uses = steps[0]["uses"].as_str().unwrap();
    let pin = uses.rsplit_once('@').unwrap().1;
    assert!(
        pin.len() == 40 && pin.bytes().all(|b| b.is_ascii_hexdigit()),
        "pinned to a commit"
    );
}

#[tokio::test]
async fn blank_inputs_count_as_unset_so_defaults_apply() {
    // The runner passes `with: tier: ${{ inputs.tier }}` on a push as an empty INPUT_TIER,
    // and every declared input without a default as an empty variable.
    let github = FakeGitHub::start().await;
    let mut run = example_run(&github, &["security"]);
    let blanks: Vec<String> = action_yml()
        .inputs
        .iter()
        .map(|(name, _)| name.clone())
        // A security release needs a hub-url that is not the placeholder (issue 32).
        .filter(|name| !matches!(name.as_str(), "image" | "github-token" | "hub-url"))
        .collect();
    for name in &blanks {
        run = run.input(name, " ");
    }
    let out = run.run().await;
    out.assert_success();
    assert_eq!(
        out.output("tier"),
        "security",
        "tier defaulted to auto: labels decide"
    );
    assert_eq!(out.output("tier-source"), "labels");
    assert_eq!(
        out.output("idle-window-seconds"),
        "4200",
        "culler defaults apply"
    );
    assert_eq!(
        github.writes().await.len(),
        2,
        "not a dry run: blank dry-run is false"
    );
}

// ---------------------------------------------------------------------------------------------
// The command line inside Actions, refused before a command starts.

/// The environment of a step inside Actions, but for the runner's two files: `output` and
/// `summary` in `dir` unless given (`None`: unset).
fn runner_env(dir: &Path) -> BTreeMap<String, String> {
    let mut env = BTreeMap::new();
    env.insert("GITHUB_ACTIONS".to_string(), "true".to_string());
    for (variable, file) in [
        ("GITHUB_OUTPUT", "output"),
        ("GITHUB_STEP_SUMMARY", "summary"),
    ] {
        env.insert(variable.to_string(), dir.join(file).display().to_string());
    }
    env
}

/// Everything a run in `dir` ([`runner_env`]) left: exit code, stdout without its
/// `::add-mask::` lines (the runner consumes them), stderr, the job summary as it is and
/// the outputs as `name: value` lines (the file's heredoc delimiters are random); `(none)`
/// for a file not written.
fn refused_transcript(dir: &Path, (code, stdout, stderr): &(i32, String, String)) -> String {
    let read = |name: &str| {
        let Ok(text) = std::fs::read_to_string(dir.join(name)) else {
            return "(none)\n".to_string();
        };
        if name != "output" {
            return text;
        }
        parse_outputs(&text)
            .iter()
            .map(|(name, value)| format!("  {name}: {value}\n"))
            .collect()
    };
    let stdout: Vec<&str> = stdout
        .lines()
        .filter(|l| !l.starts_with("::add-mask::"))
        .collect();
    format!(
        "exit code: {code}\n\nstdout:\n{}\n\nstderr:\n{stderr}\n$GITHUB_STEP_SUMMARY:\n{}\n$GITHUB_OUTPUT:\n{}",
        stdout.join("\n"),
        read("summary"),
        read("output"),
    )
}

/// A secret typed where clap expects an option's name, an option's value or no argument
/// at all (`--TOKEN`, `--TOKEN=1`, a stray `TOKEN`) is the "input" clap refuses: it is
/// masked in the annotation, stderr, the job summary (no `Input` row names it) and the
/// outputs, as the message is. Whole transcripts, with the secret replaced by `[secret]` in
/// the arguments shown.
#[test]
fn a_secret_clap_refuses_as_the_input_is_shown_nowhere() {
    const PASSWORD: &str = "registry-password-never-shown-4711";
    const HUB_TOKEN: &str = "hub-token-never-shown-0123456789abcdef";
    // No input holds it: masked for its shape (a GitHub token's prefix).
    const STRAY: &str = "ghp_POSITIONAL12345";
    let cases: [(&str, Vec<String>); 7] = [
        (
            "stray_token_shaped_value",
            vec!["announce", "--image", "oci:examples/lab", STRAY],
        ),
        (
            "stray_value",
            vec!["announce", TOKEN, "--github-token", TOKEN],
        ),
        (
            "option_name",
            vec!["announce", &format!("--{TOKEN}"), "--github-token", TOKEN],
        ),
        (
            "option_name_with_value",
            vec!["announce", &format!("--{TOKEN}=1"), "--github-token", TOKEN],
        ),
        (
            "option_name_of_the_password",
            vec![
                "announce",
                "--registry-password",
                PASSWORD,
                &format!("--{PASSWORD}=1"),
            ],
        ),
        (
            "status_stray_value",
            vec!["status", "--hub-token", HUB_TOKEN, HUB_TOKEN],
        ),
        (
            "status_option_name",
            vec![
                "status",
                "--hub-token",
                HUB_TOKEN,
                &format!("--{HUB_TOKEN}"),
            ],
        ),
    ]
    .map(|(name, args)| {
        (
            name,
            args.iter().map(std::string::ToString::to_string).collect(),
        )
    });
    for (name, args) in cases {
        let dir = tempfile::tempdir().unwrap();
        let out = run_codeq(&args, &runner_env(dir.path()));
        assert_eq!(out.0, 2, "{name}: {}", out.2);
        let transcript = refused_transcript(dir.path(), &out);
        for secret in [TOKEN, PASSWORD, HUB_TOKEN, STRAY] {
            assert!(
                !transcript.contains(secret),
                "{name} shows a secret:\n{transcript}"
            );
        }
        let shown = args
            .join(" ")
            .replace(TOKEN, "[token]")
            .replace(PASSWORD, "[password]")
            .replace(HUB_TOKEN, "[hub-token]")
            .replace(STRAY, "[token-shaped]");
        insta::assert_snapshot!(
            format!("secret_refused_as_the_input_{name}"),
            format!("$ codeq-rollout {shown}\n{transcript}")
        );
    }
}

/// The Action's `command` input names the subcommand: an unknown one (a typo, a capital, an
/// empty string), or one the Action does not run (help, an option, the command line's other
/// commands), is `Invalid input: command` with the commands there are (one differing only
/// in case suggested), in the job summary too, as for any refused run. No outputs are
/// written: which command's would they be? Trimmed as other inputs are, `" status "` runs
/// `status` (refused here on its `hub-url`, with its outputs); a blank one is said to be
/// empty, as an input from a secret that is not there.
#[test]
fn an_unknown_command_is_an_invalid_command_input_naming_the_commands() {
    let mut told = Vec::new();
    let others = ["help", "--help", "-V", "--dry-run", "docs", "window"];
    let commands = [
        "bogus", "Status", "ANNOUNCE", " Status ", "", " ", " status ",
    ];
    for command in commands.into_iter().chain(others) {
        let dir = tempfile::tempdir().unwrap();
        let mut env = runner_env(dir.path());
        env.insert("INPUT_COMMAND".to_string(), command.to_string());
        let out = run_codeq(&[command], &env);
        assert_eq!(out.0, 2, "{command:?}: {}", out.2);
        let runs = command == " status ";
        assert_eq!(dir.path().join("output").exists(), runs, "{command:?}");
        told.push(format!(
            "$ codeq-rollout {command:?}\n{}",
            refused_transcript(dir.path(), &out)
        ));
    }
    insta::assert_snapshot!(told.join("\n---\n"));
}

/// `status` refused on its inputs (`hub-url` left unset) writes every output it declares,
/// empty: with an environment named, on the command line or as the input, the deployment's
/// too, so a later step's `steps.x.outputs.deployment-id` reads a defined value.
#[test]
fn a_refused_status_naming_an_environment_writes_the_deployments_outputs_empty() {
    let mut told = Vec::new();
    for (args, input) in [
        (&["status", "--environment", "jupyterhub-prod"][..], None),
        (&["status"], Some("jupyterhub-prod")),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let mut env = runner_env(dir.path());
        env.extend(input.map(|v| ("INPUT_ENVIRONMENT".to_string(), v.to_string())));
        let out = run_codeq(args, &env);
        assert_eq!(out.0, 2, "{args:?}: {}", out.2);
        let var = input.map_or(String::new(), |v| format!("INPUT_ENVIRONMENT={v} "));
        let shown = format!("$ {var}codeq-rollout {}", args.join(" "));
        told.push(format!("{shown}\n{}", refused_transcript(dir.path(), &out)));
    }
    insta::assert_snapshot!(told.join("\n---\n"));
}

/// `$GITHUB_OUTPUT` or `$GITHUB_STEP_SUMMARY` naming a FIFO nobody reads never blocks the
/// run (opening it for writing would wait for a reader forever): it is refused at once,
/// naming the variable, what the path is and what to do, for a run refused on its inputs
/// (a warning beside the usage error) and for a dry run (the write fails the run). The
/// other file is still written. Each run is bounded: killed by its PID after 30 s.
#[tokio::test]
async fn a_runner_file_that_is_a_fifo_is_refused_at_once_naming_its_variable() {
    let github = FakeGitHub::start().await;
    for variable in ["GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY"] {
        for (name, refused) in [("refused", true), ("dry_run", false)] {
            let mut run = example_run(&github, &["routine"]).input("dry-run", "true");
            if refused {
                run = run.input("tier", "bogus");
            }
            let fifo = fifo(run.dir.path(), "fifo");
            run.env
                .insert(variable.to_string(), fifo.display().to_string());
            let env = run.env.clone();
            let args: Vec<String> = std::iter::once("announce".to_string())
                .chain(run.args.iter().cloned())
                .collect();
            let out = tokio::task::spawn_blocking(move || {
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                run_bounded(&args, &env)
            })
            .await
            .unwrap();
            assert_eq!(out.0, if refused { 2 } else { 1 }, "{}", out.1);
            let dir = run.dir.path().display().to_string();
            let transcript = scrub(
                &refused_transcript(run.dir.path(), &out),
                &[(&dir, "[dir]"), (TOKEN, "[token]")],
            );
            insta::assert_snapshot!(format!("runner_file_a_fifo_{variable}_{name}"), transcript);
        }
    }
    assert!(github.writes().await.is_empty());
}

/// A token sent over plain `http://` to a host outside loopback, private networks and the
/// cluster is a *Plain HTTP* warning naming the input, for `api-url` (announce) and
/// `hub-url` (status, warned before its other inputs are checked); loopback and in-cluster
/// addresses are not warned about.
#[test]
fn a_token_sent_over_plain_http_to_a_public_host_is_a_warning() {
    let env = BTreeMap::from([("GITHUB_ACTIONS".to_string(), "true".to_string())]);
    let announce = |api_url: &str| {
        let args = ["announce", "--image", "oci:examples/lab", "--dry-run"];
        let token = [
            "--github-token",
            "ghs_PlainHttpToken0123",
            "--repository",
            "o/r",
        ];
        let args = [&args[..], &token, &["--api-url", api_url]].concat();
        run_codeq(&args, &env)
    };
    let status = |hub_url: &str| {
        let args = [
            "status",
            "--hub-url",
            hub_url,
            "--hub-token",
            "hub-token-0123",
        ];
        // A comment without an image stops the run after the hub's address was checked.
        let rest = ["--released-at", "2026-11-30T12:00:00Z", "--comment"];
        run_codeq(&[&args[..], &rest].concat(), &env)
    };
    let mut warned = Vec::new();
    for (what, (code, stdout, _)) in [
        ("api-url public", announce("http://api.example.com")),
        ("api-url loopback", announce("http://127.0.0.1:1")),
        ("hub-url public", status("http://hub.example.edu")),
        (
            "hub-url in the cluster",
            status("http://proxy-public.jhub.svc"),
        ),
    ] {
        let expected = if what.starts_with("api-url") { 0 } else { 2 };
        assert_eq!(code, expected, "{what}: {stdout}");
        let plain: Vec<&str> = annotations(&stdout, "warning")
            .into_iter()
            .filter(|l| l.contains("title=Plain HTTP"))
            .collect();
        warned.push(format!("{what}: {plain:?}"));
    }
    insta::assert_snapshot!(warned.join("\n"));
}
