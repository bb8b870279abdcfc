//! Hostile and broken input (issue 8): nothing leaks, nothing is forged, nothing breaks.
//!
//! - `render`: hostile PR titles and labels through the full render (insta snapshots) and
//!   through the `pull_request` event payload of a real run.
//! - `secrets`: every command path, plain and debug logging, grepped for the token and the
//!   registry password.
//! - `malformed`: broken event payloads, inputs, registry and GitHub answers: a clear error,
//!   exit 1, no write to GitHub.
//! - `forged`: the tool's own markers in places it did not write them.
//! - `props`: property tests over the parsers and the renderer.
//!
//! The detectors below approximate what GitHub turns into a ping, a reference, a link or
//! HTML in rendered Markdown (mention and reference filters, cmark-gfm's autolink and raw
//! HTML), and what the Actions runner takes for a command (actions/runner `ActionCommand`).

mod forged;
mod malformed;
mod props;
mod render;
mod secrets;

use crate::common::*;
use regex::Regex;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::LazyLock;

/// The invisible WORD JOINER the sanitiser inserts.
pub const JOINER: char = '\u{2060}';

/// Everything in `text` that GitHub would turn into a mention, an issue reference, an
/// autolink, raw HTML, or that reads as the tool's marker, as the matched strings (a
/// multiset, sorted), so two texts can be compared.
pub fn findings(text: &str) -> Vec<String> {
    static PATTERNS: LazyLock<Vec<Regex>> = LazyLock::new(|| {
        [
            // @user, @org/team, user@host (mentions; e-mail autolinks).
            r"@[A-Za-z0-9]",
            // #1, owner/repo#1, fixes #1.
            r"#[0-9]",
            // GH-1.
            r"(?i)gh-[0-9]",
            // cmark-gfm extended autolinks.
            r"(?i)[a-z][a-z0-9+.-]*://",
            r"(?i)www\.",
            // Raw HTML: tags, comments, processing instructions.
            r"<[A-Za-z/!?]",
            // The marker's name.
            r"(?i)codeq-rollout:",
        ]
        .iter()
        .map(|p| Regex::new(p).unwrap())
        .collect()
    });
    let mut found: Vec<String> = PATTERNS
        .iter()
        .flat_map(|re| re.find_iter(text).map(|m| m.as_str().to_string()))
        .collect();
    found.sort();
    found
}

/// How many HTML comments (`<!--`) `body` holds below its header, the tool's hidden lines
/// that open it (the marker, then `announced-at` or `evidence`): untrusted text must add none.
pub fn comments_below_header(body: &str) -> usize {
    body.lines()
        .skip_while(|l| l.starts_with("<!-- codeq-rollout:") && l.ends_with(" -->"))
        .map(|l| l.matches("<!--").count())
        .sum()
}

/// The Markdown structure of `text`, line by line: how many of each character that opens
/// or closes an inline construct (code span, table cell, link, emphasis, HTML) appear
/// unescaped. Hostile text placed inline must not change it.
pub fn structure(text: &str) -> Vec<[usize; 8]> {
    text.split('\n')
        .map(|line| {
            let mut counts = [0usize; 8];
            let mut escaped = false;
            for c in line.chars() {
                if escaped {
                    escaped = false;
                    continue;
                }
                let slot = match c {
                    '\\' => {
                        escaped = true;
                        continue;
                    }
                    '`' => 0,
                    '|' => 1,
                    '[' => 2,
                    ']' => 3,
                    '(' => 4,
                    ')' => 5,
                    '<' => 6,
                    '*' | '_' | '~' => 7,
                    _ => continue,
                };
                counts[slot] += 1;
            }
            counts
        })
        .collect()
}

/// Lines of log text (split as the runner reads them: CR, LF, CRLF) that the runner would
/// take for a workflow command, other than those codeq-rollout itself issues (`allowed`
/// prefixes, e.g. `::add-mask::`).
pub fn commands_in_log<'a>(log: &'a str, allowed: &[&str]) -> Vec<&'a str> {
    log.split(['\r', '\n'])
        .filter(|line| {
            let t = line.trim_start();
            (t.starts_with("::") && !allowed.iter().any(|a| t.starts_with(a)))
                || line.contains("##[")
        })
        .collect()
}

/// A registry user for the tests that use credentials.
pub const REGISTRY_USER: &str = "robot";
/// A registry password that must never appear in any output. Its `%`, `/`, `+` and `=`
/// make its percent-encoded and JSON forms differ from it.
pub const PASSWORD: &str = "pw-Hunter2%Secret/+=Registry";

/// The forms of the secrets a leak would take: as given, base64 (also of the Basic
/// `user:password` pair), percent-encoded.
pub fn secret_forms() -> Vec<(String, String)> {
    use base64::Engine as _;
    let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
    vec![
        ("token".into(), TOKEN.to_string()),
        ("password".into(), PASSWORD.to_string()),
        (
            "password, percent-encoded".into(),
            PASSWORD
                .replace('%', "%25")
                .replace('/', "%2F")
                .replace('+', "%2B")
                .replace('=', "%3D"),
        ),
        ("token, base64".into(), b64(TOKEN)),
        ("password, base64".into(), b64(PASSWORD)),
        (
            "Basic user:password".into(),
            b64(&format!("{REGISTRY_USER}:{PASSWORD}")),
        ),
    ]
}

/// Panics naming `place` and the form when any secret form occurs in `text`.
pub fn assert_no_secret(place: &str, text: &str) {
    for (name, form) in secret_forms() {
        assert!(
            !text.contains(&form),
            "{place} carries the {name}:\n{}",
            text.lines()
                .filter(|l| l.contains(&form))
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}

/// What a run of any subcommand left behind.
pub struct CliRun {
    /// Exit code.
    pub code: i32,
    /// Stdout.
    pub stdout: String,
    /// Stderr.
    pub stderr: String,
}

/// Runs `codeq-rollout ARGS` with exactly `env` (nothing inherited), in the repository root.
pub fn run_cli(args: &[&str], env: &BTreeMap<String, String>) -> CliRun {
    let (code, stdout, stderr) = run_codeq(args, env);
    CliRun {
        code,
        stdout,
        stderr,
    }
}

/// The example OCI layout shipped in the repository (`examples/lab`): an image that needs
/// no registry, and its index digest.
pub fn example_layout() -> (String, String) {
    let index = std::fs::read_to_string(repo_root().join("examples/lab/index.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&index).unwrap();
    (
        "oci:examples/lab".to_string(),
        v["manifests"][0]["digest"].as_str().unwrap().to_string(),
    )
}

/// Writes `payload` (raw bytes) as the run's event file.
pub fn write_event(run: &ActionRun, payload: &[u8]) {
    std::fs::write(Path::new(&run.env["GITHUB_EVENT_PATH"]), payload).unwrap();
}
