//! The manual (README.md, `docs/`, CODEQ_DEPLOYMENT.md) against its sources: every generated
//! part is regenerated here and compared with the file, and every relative link and `#anchor`
//! resolves.
//!
//! Generated, never hand-copied:
//! - the example workflows in README.md and `docs/setup.md`, from `examples/*.yml`, and the
//!   example template in `docs/templates.md` (sections between
//!   `<!-- BEGIN generated: NAME -->` and `<!-- END generated: NAME -->`);
//! - `docs/inputs-and-outputs.md`'s tables, from action.yml and the commands' options;
//! - `docs/cli.md`, whole, from each command's `--help` (clap wraps nothing without its
//!   `wrap_help` feature, so the text does not depend on the terminal);
//! - `docs/examples/*.md`, whole, from dry runs on the embedded example image
//!   (`examples/lab`) at the fixed clock [`NOW`], as the runner starts the binary.
//!
//! `UPDATE_DOCS=1 cargo test --test it manual::` rewrites them all (`scripts/update-docs`
//! runs that and `docs --write`); without it a stale file fails with its diff.

use crate::common::*;
use clap::CommandFactory;
use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::json;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The command that rewrites every generated part.
const REFRESH: &str = "UPDATE_DOCS=1 cargo test --test it manual::";

/// The longest README.md may be, in words (whitespace-separated, as `wc -w` counts).
const README_MAX_WORDS: usize = 1500;

/// The two commands a newcomer runs on a fresh machine, as README.md gives them.
const DRY_RUN: &str = "cargo run -- announce --image oci:examples/lab --tier security --dry-run";
const TEST_SUITE: &str = "bash scripts/test.sh";

fn read(path: &str) -> String {
    std::fs::read_to_string(repo_root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Compares `path` with `expected`; with `UPDATE_DOCS` set, writes it instead. Returns the
/// problem, if any, for the caller to collect.
fn settle(path: &str, expected: &str) -> Option<String> {
    let file = repo_root().join(path);
    let current = std::fs::read_to_string(&file).unwrap_or_default();
    if current == expected {
        return None;
    }
    if std::env::var_os("UPDATE_DOCS").is_some() {
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, expected).unwrap();
        return None;
    }
    let diff = similar::TextDiff::from_lines(current.as_str(), expected)
        .unified_diff()
        .header(path, &format!("{path} (generated)"))
        .to_string();
    Some(format!("{path} is out of date; run `{REFRESH}`:\n{diff}"))
}

fn settle_all(problems: impl IntoIterator<Item = Option<String>>) {
    let problems: Vec<String> = problems.into_iter().flatten().collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// `text` with the body of each `<!-- BEGIN generated: NAME ... -->` …
/// `<!-- END generated: NAME -->` replaced.
fn with_sections(path: &str, text: &str, sections: &[(&str, String)]) -> String {
    sections
        .iter()
        .fold(text.to_string(), |text, (name, body)| {
            let begin = format!("<!-- BEGIN generated: {name}");
            let end = format!("<!-- END generated: {name} -->");
            let start = text
                .find(&begin)
                .unwrap_or_else(|| panic!("{path} has no {begin}"));
            let start = start + text[start..].find("-->\n").unwrap() + "-->\n".len();
            let stop = start
                + text[start..]
                    .find(&end)
                    .unwrap_or_else(|| panic!("{path} has no {end}"));
            format!("{}{body}{}", &text[..start], &text[stop..])
        })
}

fn settle_sections(path: &str, sections: &[(&str, String)]) -> Option<String> {
    let text = read(path);
    settle(path, &with_sections(path, &text, sections))
}

// ---------------------------------------------------------------------------------------------
// README.md: short, the two commands first.

#[test]
fn the_readme_is_short_and_starts_with_the_two_commands() {
    let readme = read("README.md");
    let words = readme.split_whitespace().count();
    assert!(
        words <= README_MAX_WORDS,
        "README.md has {words} words, over {README_MAX_WORDS}: move the detail to a page of docs/"
    );
    let top: String = readme.lines().take(30).collect::<Vec<_>>().join("\n");
    for command in [DRY_RUN, TEST_SUITE] {
        assert!(top.contains(command), "not near the top: {command}\n{top}");
    }
    // The first command works as README gives it (the binary cargo run would build).
    let (code, stdout, stderr) = run_codeq(
        &DRY_RUN.split(' ').skip(3).collect::<Vec<_>>(),
        &BTreeMap::new(),
    );
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.contains("----- tracking issue: "), "{stdout}");
    // The second is what CI runs.
    assert!(read(".ci/run").contains("scripts/test.sh"));
}

#[test]
fn the_example_workflows_are_shown_as_they_are() {
    let yaml = |path: &str| format!("```yaml\n{}```\n", read(path));
    settle_all([
        settle_sections("README.md", &[("example", yaml("examples/announce.yml"))]),
        settle_sections(
            "docs/setup.md",
            &[
                ("example", yaml("examples/announce.yml")),
                ("convergence-example", yaml("examples/convergence.yml")),
            ],
        ),
        settle_sections(
            "docs/templates.md",
            &[(
                "release-note-template",
                format!(
                    "```jinja\n{}```\n",
                    read("examples/templates/release-note.md.j2")
                ),
            )],
        ),
    ]);
}

// ---------------------------------------------------------------------------------------------
// Inputs and outputs, from action.yml.

#[derive(Deserialize)]
struct ActionYml {
    inputs: IndexMap<String, Input>,
    outputs: IndexMap<String, Output>,
}

#[derive(Deserialize)]
struct Input {
    description: Option<String>,
    required: Option<bool>,
    default: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct Output {
    description: Option<String>,
}

fn markdown_cell(text: &str) -> String {
    text.trim().replace('|', "\\|").replace('\n', " ")
}

/// The Action's commands (its `command` input) and, for each, the input variables its
/// options read (`INPUT_CULL-TIMEOUT`).
fn commands_reading() -> Vec<(String, BTreeSet<String>)> {
    let cli = codeq_rollout::Cli::command();
    ["announce", "status"]
        .iter()
        .map(|name| {
            let sub = cli
                .find_subcommand(name)
                .unwrap_or_else(|| panic!("no {name}"));
            let read = sub
                .get_arguments()
                .filter_map(|a| a.get_env())
                .map(|e| e.to_string_lossy().into_owned())
                .collect();
            (name.to_string(), read)
        })
        .collect()
}

fn inputs_table(action: &ActionYml) -> String {
    let commands = commands_reading();
    let mut t = String::from("| Input | Default | Used by | Description |\n|---|---|---|---|\n");
    for (name, input) in &action.inputs {
        let default = match (&input.required, &input.default) {
            (Some(true), _) => "**required**".to_string(),
            (_, None | Some(serde_json::Value::Null)) => String::new(),
            (_, Some(serde_json::Value::String(s))) if s.is_empty() => String::new(),
            (_, Some(serde_json::Value::String(s))) => format!("`{}`", markdown_cell(s)),
            (_, Some(other)) => format!("`{other}`"),
        };
        let variable = format!("INPUT_{}", name.replace(' ', "_").to_uppercase());
        let used: Vec<&str> = commands
            .iter()
            .filter(|(_, read)| read.contains(&variable))
            .map(|(c, _)| c.as_str())
            .collect();
        let used = if used.is_empty() {
            "(picks the command)".to_string()
        } else {
            used.join(", ")
        };
        t.push_str(&format!(
            "| `{name}` | {default} | {used} | {} |\n",
            markdown_cell(input.description.as_deref().unwrap_or_default())
        ));
    }
    t
}

fn outputs_table(action: &ActionYml) -> String {
    let mut t = String::from("| Output | Description |\n|---|---|\n");
    for (name, output) in &action.outputs {
        t.push_str(&format!(
            "| `{name}` | {} |\n",
            markdown_cell(output.description.as_deref().unwrap_or_default())
        ));
    }
    t
}

#[test]
fn the_inputs_and_outputs_tables_are_action_yml() {
    let action: ActionYml = serde_saphyr::from_str(&read("action.yml")).expect("action.yml");
    settle_all([settle_sections(
        "docs/inputs-and-outputs.md",
        &[
            ("inputs", inputs_table(&action)),
            ("outputs", outputs_table(&action)),
        ],
    )]);
}

// ---------------------------------------------------------------------------------------------
// The command-line reference, from each command's --help.

fn help(args: &[&str]) -> String {
    let args: Vec<&str> = args.iter().copied().chain(["--help"]).collect();
    let (code, stdout, stderr) = run_codeq(&args, &BTreeMap::new());
    assert_eq!(code, 0, "{args:?}: {stderr}");
    stdout
}

fn cli_reference() -> String {
    let cli = codeq_rollout::Cli::command();
    let mut page = format!(
        "<!-- Generated from each command's --help by `{REFRESH}`: do not edit. -->\n\
         # Command-line reference\n\n\
         Every option that reads `INPUT_<NAME>` is also the Action input `<name>`\n\
         ([inputs and outputs](inputs-and-outputs.md)); durations, lists and booleans are written as\n\
         that page says. This page is each command's `--help`, as `codeq-rollout` prints it.\n\n"
    );
    let subcommands: Vec<String> = cli
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .filter(|n| n != "help")
        .collect();
    for name in &subcommands {
        page += &format!("- [`codeq-rollout {name}`](#codeq-rollout-{name})\n");
    }
    page += &format!("\n## codeq-rollout\n\n```text\n{}```\n", help(&[]));
    for name in &subcommands {
        page += &format!(
            "\n## codeq-rollout {name}\n\n```text\n{}```\n",
            help(&[name])
        );
    }
    page
}

#[test]
fn the_cli_reference_is_each_commands_help() {
    settle_all([settle("docs/cli.md", &cli_reference())]);
}

// ---------------------------------------------------------------------------------------------
// Rendered examples: what GitHub shows, from dry runs at a fixed clock.

/// The inputs of the examples: the culler and runbook settings of `examples/announce.yml`.
const EXAMPLE_INPUTS: [(&str, &str); 6] = [
    ("cull-timeout", "1h"),
    ("cull-every", "10m"),
    ("cull-max-age", "8h"),
    ("hub-url", "https://hub.example.org"),
    ("namespace", "jhub"),
    ("helm-release", "jhub"),
];

/// One example page: a title, how it was made, then the text exactly as GitHub gets it.
fn example_page(title: &str, made: &str, heading: Option<&str>, body: &str) -> String {
    let heading = heading
        .map(|h| format!("**Title:** {h}\n\n"))
        .unwrap_or_default();
    format!(
        "<!-- Generated by `{REFRESH}`: do not edit. -->\n\
         # Example: {title}\n\n\
         {made} Below the line is the text exactly as codeq-rollout writes it, which GitHub\n\
         renders as you see here (the `<!-- codeq-rollout:… -->` marker lines stay hidden).\n\
         Back to [what each reader sees](../../README.md#what-each-reader-sees).\n\n\
         ---\n\n{heading}{}\n",
        body.trim_end()
    )
}

/// The text after the line `----- {title}… -----` up to the next such line or `stop`.
fn block<'a>(stdout: &'a str, title: &str, stop: &str) -> (String, &'a str) {
    let start = stdout
        .find(&format!("----- {title}"))
        .unwrap_or_else(|| panic!("no {title} in\n{stdout}"));
    let line_end = start + stdout[start..].find('\n').unwrap();
    let heading = stdout[start..line_end]
        .trim_start_matches(&format!("----- {title}"))
        .trim_start_matches(':')
        .trim_end_matches(" -----")
        .trim()
        .to_string();
    let rest = &stdout[line_end + 1..];
    let end = [rest.find("\n----- "), rest.find(stop)]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(rest.len());
    (heading, &rest[..end])
}

/// A dry run of `announce` on the example image, as the runner starts it after pull request
/// #2 (labelled `label`) was merged.
async fn announce_dry_run(github: &FakeGitHub, label: &str) -> Outcome {
    let mut run = ActionRun::merged_pr("oci:examples/lab", &github.api_url(), &[label]);
    for (name, value) in EXAMPLE_INPUTS {
        run = run.input(name, value);
    }
    run = run.input("dry-run", "true");
    let out = run.run().await;
    out.assert_success();
    out
}

/// A hub of three running servers at 12:45 for a release at 12:00: alice restarted after
/// it, bob idle since 11:30, carol active.
async fn example_hub() -> wiremock::MockServer {
    use wiremock::matchers::{method, path};
    let hub = wiremock::MockServer::start().await;
    let server = |started: &str, last_activity: &str| {
        json!({"name": "", "started": started, "last_activity": last_activity,
               "pending": null, "ready": true, "stopped": false})
    };
    let users = [
        (
            "alice",
            server("2026-11-30T12:20:00Z", "2026-11-30T12:40:00Z"),
        ),
        (
            "bob",
            server("2026-11-30T09:00:00Z", "2026-11-30T11:30:00Z"),
        ),
        (
            "carol",
            server("2026-11-30T08:00:00Z", "2026-11-30T12:44:00Z"),
        ),
    ];
    let items: Vec<serde_json::Value> = users
        .iter()
        .map(|(name, s)| json!({"kind": "user", "name": name, "servers": {"": s}}))
        .collect();
    wiremock::Mock::given(method("GET"))
        .and(path("/hub/api/users"))
        .respond_with(wiremock::ResponseTemplate::new(200).set_body_json(json!({
            "items": items,
            "_pagination": {"offset": 0, "limit": 200, "total": 3, "next": null},
        })))
        .mount(&hub)
        .await;
    hub
}

#[tokio::test]
async fn the_rendered_examples_are_what_dry_runs_print() {
    let github = FakeGitHub::start().await;
    let made = |tier: &str| {
        format!(
            "Made by a dry run of `announce` on the example image `examples/lab` after a pull \
             request labelled `{tier}` was merged, with the culler settings of the \
             [example workflow](../setup.md), at {NOW}."
        )
    };
    let routine = announce_dry_run(&github, "routine").await;
    let security = announce_dry_run(&github, "security").await;
    let note = |out: &Outcome| {
        block(&out.stdout, "release note", "\ndry run: ")
            .1
            .to_string()
    };
    let (title, issue) = block(&security.stdout, "tracking issue", "\ndry run: ");
    // Each page: its file, what it shows, the tier of the dry run, the title, the body.
    let mut pages: Vec<(&str, String)> = [
        (
            "release-note-routine.md",
            "the release note of a routine release",
            "routine",
            None,
            note(&routine),
        ),
        (
            "release-note-security.md",
            "the release note of a security release",
            "security",
            None,
            note(&security),
        ),
        (
            "tracking-issue.md",
            "the tracking issue of a security release",
            "security",
            Some(title.as_str()),
            issue.to_string(),
        ),
        (
            "announce-summary.md",
            "the job summary of `announce`",
            "security",
            None,
            security.summary.clone(),
        ),
    ]
    .into_iter()
    .map(|(file, what, tier, title, body)| (file, example_page(what, &made(tier), title, &body)))
    .collect();

    // status: the release really announced (at the fake GitHub), then measured at 12:45
    // on a hub of three servers, as a dry run with the comment.
    let mut announce = ActionRun::merged_pr("oci:examples/lab", &github.api_url(), &["security"]);
    for (name, value) in EXAMPLE_INPUTS {
        announce = announce.input(name, value);
    }
    // Published for real, a security release needs a hub-url that is not a placeholder.
    announce = announce.input("hub-url", crate::common::HUB_URL);
    announce.run().await.assert_success();
    let hub = example_hub().await;
    let mut env = announce.env.clone();
    for (name, value) in EXAMPLE_INPUTS {
        env.insert(format!("INPUT_{}", name.to_uppercase()), value.to_string());
    }
    for (name, value) in [
        ("HUB-URL", hub.uri()),
        (
            "HUB-TOKEN",
            "example-hub-token-0123456789abcdef".to_string(),
        ),
        ("COMMENT", "true".to_string()),
        ("DRY-RUN", "true".to_string()),
        ("HUB-SIZE", "100".to_string()),
    ] {
        env.insert(format!("INPUT_{name}"), value);
    }
    let summary = announce.dir.path().join("summary");
    std::fs::remove_file(&summary).unwrap();
    let (code, stdout, stderr) = tokio::task::spawn_blocking(move || {
        run_codeq(&["status", "--now", "2026-11-30T12:45:00Z"], &env)
    })
    .await
    .unwrap();
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let local = |text: &str| text.replace(&hub.uri(), "https://hub.example.org");
    let status_made = "Made by a dry run of `status` with `comment: true` at 2026-11-30T12:45:00Z, \
                       45 minutes after the security release of the [tracking issue](tracking-issue.md) \
                       example (12:00), on a hub running three \
                       servers: alice's started after the release, bob's idle since 11:30, \
                       carol's in use.";
    let (_, comment) = block(&stdout, "convergence comment", "\n::");
    let summary = std::fs::read_to_string(&summary).unwrap();
    for (file, what, body) in [
        (
            "status-comment.md",
            "the convergence comment on the tracking issue",
            comment,
        ),
        ("status-summary.md", "the job summary of `status`", &summary),
    ] {
        pages.push((file, example_page(what, status_made, None, &local(body))));
    }
    settle_all(
        pages
            .iter()
            .map(|(file, text)| settle(&format!("docs/examples/{file}"), text)),
    );
}

// ---------------------------------------------------------------------------------------------
// Links that hold.

/// The Markdown files whose links are checked: README.md, CODEQ_DEPLOYMENT.md and every
/// `.md` under `docs/`.
fn manual_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, found: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, found);
            } else if path.extension().is_some_and(|e| e == "md") {
                found.push(path);
            }
        }
    }
    let root = repo_root();
    let mut files = vec![root.join("README.md"), root.join("CODEQ_DEPLOYMENT.md")];
    walk(&root.join("docs"), &mut files);
    files.sort();
    files
}

/// A heading's anchor as GitHub makes it ("Section links" in GitHub's *Basic writing and
/// formatting syntax*: letters lower-cased, spaces replaced by hyphens, other whitespace and
/// punctuation removed, markup removed; the rule of `github-slugger`, which keeps letters,
/// digits, `-` and `_` of any script): the heading's text as `pulldown-cmark` gives it
/// (inline code included, emphasis markers gone).
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            '-' | '_' => Some(c),
            c if c.is_alphanumeric() => Some(c),
            _ => None,
        })
        .collect()
}

/// What a Markdown file offers and asks: its anchors (a repeated one gets `-1`, `-2`, … as
/// GitHub numbers them) and its links and images (destination, line).
struct Parsed {
    anchors: BTreeSet<String>,
    links: Vec<(String, usize)>,
    broken_references: Vec<(String, usize)>,
}

fn parse(text: &str) -> Parsed {
    use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
    let line_of = |at: usize| text[..at].matches('\n').count() + 1;
    let mut broken = Vec::new();
    // `[text][ref]` or `[ref][]` naming no definition; a lone `[text]` is text on GitHub
    // too (`oci:DIR[:TAG]`), so it is not reported.
    let mut callback = |link: pulldown_cmark::BrokenLink<'_>| {
        if link.link_type != pulldown_cmark::LinkType::Shortcut {
            broken.push((link.reference.to_string(), link.span.start));
        }
        None
    };
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_FOOTNOTES;
    let parser = Parser::new_with_broken_link_callback(text, options, Some(&mut callback));
    let mut anchors = BTreeSet::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut links = Vec::new();
    let mut heading: Option<String> = None;
    for (event, range) in parser.into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { .. }) => heading = Some(String::new()),
            Event::End(TagEnd::Heading(_)) => {
                let base = slug(&heading.take().unwrap_or_default());
                let n = seen.entry(base.clone()).or_insert(0);
                anchors.insert(if *n == 0 {
                    base.clone()
                } else {
                    format!("{base}-{n}")
                });
                *n += 1;
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some(h) = heading.as_mut() {
                    h.push_str(&t);
                }
            }
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                links.push((dest_url.to_string(), line_of(range.start)));
            }
            _ => {}
        }
    }
    let broken_references = broken
        .into_iter()
        .map(|(reference, at)| (reference, line_of(at)))
        .collect();
    Parsed {
        anchors,
        links,
        broken_references,
    }
}

/// Whether `dest` leaves the repository: a scheme (`https:`, `mailto:`) or `//host`.
fn external(dest: &str) -> bool {
    dest.starts_with("//")
        || dest.split_once(':').is_some_and(|(scheme, _)| {
            !scheme.is_empty()
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
                && !scheme.contains('/')
        })
}

#[test]
fn every_relative_link_and_anchor_resolves() {
    let root = repo_root();
    let files = manual_files();
    let parsed: BTreeMap<PathBuf, Parsed> = files
        .iter()
        .map(|f| (f.clone(), parse(&std::fs::read_to_string(f).unwrap())))
        .collect();
    let mut broken = Vec::new();
    let mut checked = 0;
    for (file, page) in &parsed {
        let shown = file.strip_prefix(&root).unwrap().display().to_string();
        for (reference, line) in &page.broken_references {
            broken.push(format!(
                "{shown}:{line}: [{reference}] is no link reference"
            ));
        }
        for (dest, line) in &page.links {
            if external(dest) {
                continue;
            }
            checked += 1;
            let (path, anchor) = match dest.split_once('#') {
                Some((p, a)) => (p, Some(a)),
                None => (dest.as_str(), None),
            };
            let target = if path.is_empty() {
                file.clone()
            } else if let Some(from_root) = path.strip_prefix('/') {
                root.join(from_root)
            } else {
                file.parent().unwrap().join(path)
            };
            let Ok(target) = target.canonicalize() else {
                broken.push(format!("{shown}:{line}: {dest}: no such file"));
                continue;
            };
            if !target.starts_with(&root) {
                broken.push(format!("{shown}:{line}: {dest}: outside the repository"));
                continue;
            }
            let Some(anchor) = anchor else { continue };
            let anchors = match parsed.get(&target) {
                Some(p) => &p.anchors,
                None if target.extension().is_some_and(|e| e == "md") => {
                    &parse(&std::fs::read_to_string(&target).unwrap()).anchors
                }
                None => {
                    broken.push(format!(
                        "{shown}:{line}: {dest}: an anchor into a file that is not Markdown"
                    ));
                    continue;
                }
            };
            // GitHub matches the anchor as written, percent-decoded.
            let anchor = percent_encoding::percent_decode_str(anchor)
                .decode_utf8_lossy()
                .to_string();
            if !anchors.contains(&anchor) {
                broken.push(format!(
                    "{shown}:{line}: {dest}: no heading gives #{anchor}"
                ));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
    assert!(checked > 50, "only {checked} relative links found");
}

/// The tracking issue's list items, as GitHub renders them, join no line to the one before:
/// a line under a paragraph continues it (CommonMark 0.31.2, "Paragraph continuation text";
/// GitHub's renderer follows it), so a step's second paragraph needs a blank line before it
/// (the Verify step's two paragraphs rendered as one).
#[test]
fn the_tracking_issues_steps_join_no_lines() {
    use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
    let text = read("docs/examples/tracking-issue.md");
    let mut depth = 0;
    let mut joined = Vec::new();
    for (event, at) in Parser::new_ext(&text, Options::ENABLE_TASKLISTS).into_offset_iter() {
        match event {
            Event::Start(Tag::Item) => depth += 1,
            Event::End(TagEnd::Item) => depth -= 1,
            Event::SoftBreak if depth > 0 => joined.push(text[at.end..].lines().next()),
            _ => {}
        }
    }
    assert_eq!(joined, [], "lines GitHub joins to the line before");
}

#[test]
fn anchors_follow_githubs_rule() {
    let page = parse(
        "# What it does\n## Inputs and outputs\n## `docs --check`\n## Re-runs & concurrent runs\n\
         ## Inputs and outputs\n## *Step outputs* (warning)\n## Heading 2.0 - A complex one\n",
    );
    let expected: BTreeSet<String> = [
        "what-it-does",
        "inputs-and-outputs",
        "docs---check",
        "re-runs--concurrent-runs",
        "inputs-and-outputs-1",
        "step-outputs-warning",
        "heading-20---a-complex-one",
    ]
    .map(String::from)
    .into();
    assert_eq!(page.anchors, expected);
    assert!(external("https://docs.rs/minijinja"));
    assert!(external("mailto:x@example.org"));
    assert!(!external("docs/setup.md#the-workflow"));
    assert!(!external("#inputs"));
}
