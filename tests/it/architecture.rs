//! The layering of `src/`, checked from the source: every `crate::` path a module names
//! (in `use` lines and inline) is an edge, and an edge may only point to the same or an
//! earlier layer, never form a circle, and never lead a pure stage to I/O.
//!
//! Layers, first to last: support → context/event → digest → tier → pulls (the look-up)
//! → window/values → render → publish → report → status's stages (the hub edge, the pure
//! classification and reports) → the pipelines (announce, docs, status::run) → cli.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The layers, first to last; a module is named by its top-level module, or
/// `support::NAME` / `status::NAME` inside the support layer and `status`.
const LAYERS: &[&[&str]] = &[
    &[
        "support::sanitize",
        "support::text",
        "support::duration",
        "support::time",
        "support::secrets",
        "support::tls",
        "support::retry",
        "support::stdout",
        "support::files",
        "support::log",
        "support::github",
        "support::pow",
        "support::url",
        "support::kube_name",
        "support",
    ],
    &["context", "event"],
    &["digest"],
    &["tier"],
    &["pulls"],
    &["window", "values"],
    &["status::classify", "status::history", "status"],
    &["render"],
    &["publish"],
    &["report"],
    &["status::hub", "status::kube", "status::report"],
    &["announce", "docs", "status::run"],
    &["cli"],
];

/// The pure stages: no I/O module, no async runtime, no network, no files.
const PURE: &[&str] = &[
    "tier",
    "status::classify",
    "status::history",
    "status::report",
    "window",
    "render",
    "support::sanitize",
    "support::text",
    "support::duration",
    "support::time",
    "support::url",
    "support::kube_name",
];

/// Paths a pure stage must not name (prefixes of `crate::` paths).
const IO_MODULES: &[&str] = &[
    "support::github",
    // The readers; the module's error type (`support::files::ReadError`) is data a pure
    // stage may word.
    "support::files::read_",
    "support::log",
    "support::stdout",
    "support::tls",
    "digest::registry",
    "digest::layout",
    "context",
    "event",
    "pulls",
    "values",
    "publish",
    "report",
    "status::hub",
    // The edge's client; its error type (`status::kube::KubeError`) is data the report words.
    "status::kube::KubeClient",
    "status::run",
    "announce",
    "docs",
    "cli",
];

/// Modules and items under an I/O prefix of [`IO_MODULES`] that are only data: the error
/// types of an edge (and the constants their words quote), which a pure stage words (the
/// render layer; `status::report` for the status edges, which come after render).
const DATA_MODULES: &[&str] = &[
    "support::github::error",
    "support::github::models",
    "digest::registry::errors",
    "event::EventError",
    "event::MAX_LABELS",
    "event::MAX_COMMITS",
    "status::hub::HubError",
    "status::hub::WrongAnswer",
    "status::hub::ROLE_NAME",
    "status::hub::SCOPES",
];

/// The pipelines, one function per command reading as its stages: they hold no wording
/// (see [`sentences`]).
const PIPELINES: &[&str] = &["announce", "docs", "status::run"];

/// Crates and std modules a pure stage must not name.
const IO_WORDS: &[&str] = &["tokio", "reqwest", "octocrab", "std::fs", "std::net"];

/// Root re-exports (`lib.rs`) and where they point.
const ALIASES: &[(&str, &str)] = &[
    ("github", "support::github"),
    ("sanitize", "support::sanitize"),
    ("tls", "support::tls"),
];

/// One module's source: its path (`render::messages`) and its code lines, comments left out.
struct Module {
    path: String,
    lines: Vec<String>,
}

/// The node a module path belongs to: `support::NAME`, `status::NAME` (a submodule, named
/// in lower case; `status::Server` is `status`) or the top-level module.
fn node(path: &str) -> String {
    let mut parts = path.split("::");
    let first = parts.next().unwrap_or_default();
    if let Some((_, to)) = ALIASES.iter().find(|(from, _)| *from == first) {
        return (*to).to_string();
    }
    match (first, parts.next()) {
        ("support", Some(second)) => format!("support::{second}"),
        ("status", Some(second)) if second.starts_with(|c: char| c.is_ascii_lowercase()) => {
            format!("status::{second}")
        }
        _ => first.to_string(),
    }
}

fn layer(node: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&node))
}

/// Every `crate::` path in `line`, with `crate::{a, b::c}` groups expanded.
fn crate_paths(line: &str) -> Vec<String> {
    let mut paths = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("crate::") {
        let after = &rest[at + "crate::".len()..];
        if let Some(group) = after.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            paths.extend(
                group[..end]
                    .split(',')
                    .map(|p| p.trim().to_string())
                    .filter(|p| !p.is_empty() && p != "self"),
            );
        } else {
            let end = after
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(after.len());
            paths.push(after[..end].trim_end_matches(':').to_string());
        }
        rest = after;
    }
    paths
}

/// The string literals holding a space (a sentence, or part of one) in `lines`, before the
/// tests (`#[cfg(test)]`); a line that calls its error a bug (an internal error the command
/// line rules out) is left out. The words users read belong in the render layer.
fn sentences(lines: &[String]) -> Vec<String> {
    let code = lines.iter().take_while(|l| l.as_str() != "#[cfg(test)]");
    let mut found = Vec::new();
    for line in code.filter(|l| !l.contains("(a bug")) {
        let mut literal: Option<String> = None;
        let mut escaped = false;
        for c in line.chars() {
            match (&mut literal, c) {
                (Some(_), _) if escaped => escaped = false,
                (Some(_), '\\') => escaped = true,
                (Some(text), '"') => {
                    if text.contains(' ') {
                        found.push(format!("{text:?}"));
                    }
                    literal = None;
                }
                (Some(text), c) => text.push(c),
                (None, '"') => literal = Some(String::new()),
                (None, _) => {}
            }
        }
    }
    found
}

/// What is wrong with the layering of `modules`, one line per problem; empty when sound.
fn violations(modules: &[Module]) -> Vec<String> {
    let mut found = Vec::new();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for m in modules {
        if m.path.is_empty() {
            continue; // the crate root wires everything and re-exports
        }
        let from = node(&m.path);
        let Some(from_layer) = layer(&from) else {
            found.push(format!("{}: module {from} is in no layer", m.path));
            continue;
        };
        let pure = PURE.contains(&from.as_str());
        if PIPELINES.contains(&m.path.as_str()) {
            for text in sentences(&m.lines) {
                found.push(format!("{}: pipeline holds wording: {text}", m.path));
            }
        }
        for line in &m.lines {
            if pure {
                for word in IO_WORDS {
                    if line.contains(word) {
                        found.push(format!("{}: pure stage names {word}: {line}", m.path));
                    }
                }
            }
            for path in crate_paths(line) {
                let to = node(&path);
                if to == from || to.is_empty() {
                    continue;
                }
                let Some(to_layer) = layer(&to) else {
                    found.push(format!("{}: names {path}, in no layer", m.path));
                    continue;
                };
                if to_layer > from_layer {
                    found.push(format!("{}: backward edge {from} -> {to} ({path})", m.path));
                }
                let target = ALIASES
                    .iter()
                    .find(|(a, _)| path.split("::").next() == Some(*a))
                    .map(|(a, t)| path.replacen(a, t, 1))
                    .unwrap_or_else(|| path.clone());
                if pure
                    && IO_MODULES.iter().any(|io| target.starts_with(io))
                    && !DATA_MODULES.iter().any(|data| target.starts_with(data))
                {
                    found.push(format!("{}: pure stage imports {target}", m.path));
                }
                graph.entry(from.clone()).or_default().insert(to);
            }
        }
    }
    found.extend(circles(&graph));
    found
}

/// Circles in `graph`, one line each (depth-first search).
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    fn visit(
        n: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        stack: &mut Vec<String>,
        done: &mut BTreeSet<String>,
        out: &mut Vec<String>,
    ) {
        if let Some(at) = stack.iter().position(|s| s == n) {
            out.push(format!("circle: {} -> {n}", stack[at..].join(" -> ")));
            return;
        }
        if !done.insert(n.to_string()) {
            return;
        }
        stack.push(n.to_string());
        for next in graph.get(n).into_iter().flatten() {
            visit(next, graph, stack, done, out);
        }
        stack.pop();
    }
    let mut out = Vec::new();
    let mut done = BTreeSet::new();
    for n in graph.keys() {
        visit(n, graph, &mut Vec::new(), &mut done, &mut out);
    }
    out
}

/// Every module under `src/` (the binary's `main.rs` left out).
fn read_modules(src: &Path) -> Vec<Module> {
    let mut modules = Vec::new();
    let mut dirs = vec![src.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") || path.ends_with("main.rs") {
                continue;
            }
            let rel = path.strip_prefix(src).unwrap().with_extension("");
            let mut parts: Vec<String> = rel
                .iter()
                .map(|p| p.to_string_lossy().into_owned())
                .collect();
            if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
                parts.pop();
            }
            let text = std::fs::read_to_string(&path).unwrap();
            modules.push(Module {
                path: parts.join("::"),
                lines: text
                    .lines()
                    .map(str::trim)
                    .filter(|l| !l.starts_with("//"))
                    .map(String::from)
                    .collect(),
            });
        }
    }
    modules
}

#[test]
fn src_follows_the_layering() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let modules = read_modules(&src);
    assert!(modules.len() > 20, "read only {} modules", modules.len());
    let found = violations(&modules);
    assert!(found.is_empty(), "layering broken:\n{}", found.join("\n"));
}

fn module(path: &str, lines: &[&str]) -> Module {
    Module {
        path: path.into(),
        lines: lines.iter().map(std::string::ToString::to_string).collect(),
    }
}

#[test]
fn the_checker_finds_backward_edges_circles_and_io_in_pure_stages() {
    let sound = [
        module("render", &["use crate::tier::{Tier, TierDecision};"]),
        module("tier", &["use crate::support::sanitize;"]),
    ];
    assert_eq!(violations(&sound), Vec::<String>::new());

    let backward = [module("render", &["use crate::publish::Change;"])];
    assert_eq!(
        violations(&backward),
        [
            "render: backward edge render -> publish (publish::Change)",
            "render: pure stage imports publish::Change",
        ]
    );

    let circle = [
        module("context", &["use crate::event::{self, EventPayload};"]),
        module("event", &["let pr: crate::context::RunContext;"]),
    ];
    assert_eq!(violations(&circle), ["circle: context -> event -> context"]);

    let io = [module("window", &["let n = tokio::time::Instant::now();"])];
    assert_eq!(
        violations(&io),
        ["window: pure stage names tokio: let n = tokio::time::Instant::now();"]
    );

    let support_up = [module(
        "support::github::error",
        &["let f = crate::report::secret_forms(s);"],
    )];
    assert_eq!(
        violations(&support_up),
        ["support::github::error: backward edge support::github -> report (report::secret_forms)"]
    );

    let status_pure_io = [module(
        "status::classify",
        &["use crate::status::hub::HubClient;"],
    )];
    assert_eq!(
        violations(&status_pure_io),
        [
            "status::classify: backward edge status::classify -> status::hub (status::hub::HubClient)",
            "status::classify: pure stage imports status::hub::HubClient"
        ]
    );

    let worded = [module(
        "status::run",
        &[
            "log.info(&format!(\"comment {done}: {url}\"));",
            "let x = anyhow!(\"no client (a bug: checked)\");",
            "#[cfg(test)]",
            "let body = \"in a test\";",
        ],
    )];
    assert_eq!(
        violations(&worded),
        ["status::run: pipeline holds wording: \"comment {done}: {url}\""]
    );

    let pure_reads = [module(
        "render::docs",
        &[
            "use crate::support::files::ReadError;",
            "let doc = crate::support::files::read_text(path, 1)?;",
        ],
    )];
    assert_eq!(
        violations(&pure_reads),
        ["render::docs: pure stage imports support::files::read_text"]
    );

    let pure_io = [module(
        "render::messages",
        &["use crate::{digest::Digest, digest::registry::resolve};"],
    )];
    assert_eq!(
        violations(&pure_io),
        ["render::messages: pure stage imports digest::registry::resolve"]
    );

    let edge_data = [
        module(
            "render::help",
            &[
                "use crate::support::github::error::{Action, GitHubError};",
                "use crate::digest::registry::errors::RegistryError;",
                "let client: crate::github::GitHub;",
            ],
        ),
        module(
            "status::report::hub_words",
            &[
                "use crate::status::hub::HubError;",
                "use crate::status::hub::{HubClient, HubError};",
            ],
        ),
    ];
    assert_eq!(
        violations(&edge_data),
        [
            "render::help: pure stage imports support::github::GitHub",
            "status::report::hub_words: pure stage imports status::hub",
        ]
    );
}
