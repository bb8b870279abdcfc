//! The layering of `src/`, checked from the source, file by file: every `crate::`, `super::`
//! and `self::` path a module's code names (in `use` lines and inline; its tests left out) is
//! an edge to the module (file) that holds it. An edge may only point to the same or an
//! earlier layer, never lead a pure stage to I/O, and the edges between files never form a
//! circle, also between two files of one folder (`render/usage.rs` ⇄ `render/usage_words.rs`
//! is one). An edge between a module and its own folder's `mod.rs` (a parent re-exporting its
//! children, a child using its parent's items) is Rust's ordinary shape and not counted.
//!
//! Layers, first to last: support → context/event → digest → tier → pulls (the look-up)
//! → window/values → status's data and edges (the hub and Kubernetes edges, the pure
//! classification and history) → render (every word, status's too) → publish → report →
//! status::report → the pipelines (announce, docs, status::run) → cli.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The layers, first to last. A module (a file) is in the layer of the longest entry that is
/// its path or a prefix of it (`render::status::chart` is `render`'s, `status::hub::error`
/// `status::hub`'s).
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
    &[
        "status::hub",
        "status::kube",
        "status::culler",
        "status::classify",
        "status::history",
        "status",
    ],
    &["render"],
    &["publish"],
    &["report"],
    &["status::report"],
    &["announce", "docs", "status::run"],
    &["cli"],
];

/// The pure stages (module path prefixes): no I/O module, no async runtime, no network, no
/// files.
const PURE: &[&str] = &[
    "tier",
    "status::culler",
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
    "support::github::EnvironmentError",
    "support::github::RepositoryError",
    "support::github::RepositoryProblem",
    "support::github::models",
    "digest::registry::errors",
    "digest::layout::LayoutError",
    "event::EventError",
    "context::ContextError",
    "support::stdout::StdoutFailed",
    "support::tls::NoTrustRoots",
    "event::MAX_LABELS",
    "event::MAX_COMMITS",
    "pulls::MAX_PUSH_COMMITS",
    "status::hub::HubError",
    "status::hub::WrongAnswer",
    "status::hub::Body",
    "status::hub::Fault",
    "status::hub::ROLE_NAME",
    "status::hub::SCOPES",
    "values::error",
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

/// One module's source: its path (`render::messages`) and its code lines before its tests,
/// comments left out.
struct Module {
    path: String,
    lines: Vec<String>,
}

/// Whether `prefix` is `path` or a prefix of it at a `::` boundary.
fn within(path: &str, prefix: &str) -> bool {
    path == prefix
        || path
            .strip_prefix(prefix)
            .is_some_and(|rest| rest.starts_with("::"))
}

/// The entry of `entries` that holds `path`: the longest one it is [`within`].
fn holder<'a>(path: &str, entries: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    entries
        .into_iter()
        .filter(|entry| within(path, entry))
        .max_by_key(|entry| entry.len())
}

fn layer(module: &str) -> Option<usize> {
    let entry = holder(module, LAYERS.iter().flat_map(|l| l.iter().copied()))?;
    LAYERS.iter().position(|l| l.contains(&entry))
}

/// Every path in `line` that starts at `crate::`, `super::` or `self::`, as written (its
/// `super`s and `self` kept), with one level of `{a, b::c}` groups expanded; root
/// re-exports ([`ALIASES`]) resolved.
fn paths(line: &str) -> Vec<String> {
    let mut found = Vec::new();
    let bytes = line.as_bytes();
    let mut at = 0;
    while at < line.len() {
        let rest = &line[at..];
        let start = ["crate::", "super::", "self::"]
            .iter()
            .find(|p| rest.starts_with(**p))
            .filter(|_| {
                at == 0
                    || !(bytes[at - 1].is_ascii_alphanumeric()
                        || bytes[at - 1] == b'_'
                        || bytes[at - 1] == b':')
            });
        if start.is_none() {
            at += rest.chars().next().map_or(1, char::len_utf8);
            continue;
        }
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .unwrap_or(rest.len());
        let base = rest[..end].trim_end_matches(':').to_string();
        if rest[end..].starts_with('{') && rest[..end].ends_with("::") {
            let group = &rest[end + 1..];
            let close = group.find('}').unwrap_or(group.len());
            for item in group[..close].split(',') {
                let item = item.split(" as ").next().unwrap_or_default().trim();
                if !item.is_empty() && item != "self" && !item.contains('{') {
                    found.push(format!("{base}::{item}"));
                }
            }
            at += end + 1 + close;
        } else {
            found.push(base);
            at += end.max(1);
        }
    }
    found
        .into_iter()
        .map(|p| {
            ALIASES
                .iter()
                .find(|(alias, _)| within(&p, &format!("crate::{alias}")))
                .map(|(alias, to)| {
                    p.replacen(&format!("crate::{alias}"), &format!("crate::{to}"), 1)
                })
                .unwrap_or(p)
        })
        .collect()
}

/// `path` (as [`paths`] found it in `module`) as an absolute path from the crate root,
/// without `crate::`: `super::` climbs from `module` (a folder's `mod.rs` is the folder's
/// module), `self::` stays in it.
fn absolute(module: &str, path: &str) -> String {
    let mut at: Vec<&str> = module.split("::").filter(|s| !s.is_empty()).collect();
    let mut parts = path.split("::").peekable();
    match parts.peek() {
        Some(&"crate") => {
            parts.next();
            at.clear();
        }
        _ => {
            while let Some(&part) = parts.peek() {
                match part {
                    "super" => {
                        at.pop();
                    }
                    "self" => {}
                    _ => break,
                }
                parts.next();
            }
        }
    }
    at.extend(parts);
    at.join("::")
}

/// The string literals holding a space (a sentence, or part of one) in `lines`; a line that
/// calls its error a bug (an internal error the command line rules out) is left out. The
/// words users read belong in the render layer.
fn sentences(lines: &[String]) -> Vec<String> {
    let mut found = Vec::new();
    for line in lines.iter().filter(|l| !l.contains("(a bug")) {
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
    let known: Vec<&str> = modules.iter().map(|m| m.path.as_str()).collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for m in modules.iter().filter(|m| !m.path.is_empty()) {
        // (The crate root wires everything and re-exports.)
        let Some(from_layer) = layer(&m.path) else {
            found.push(format!("{}: module in no layer", m.path));
            continue;
        };
        let pure = holder(&m.path, PURE.iter().copied()).is_some();
        if PIPELINES.contains(&m.path.as_str()) {
            for text in sentences(&m.lines) {
                found.push(format!("{}: pipeline holds wording: {text}", m.path));
            }
        }
        for line in &m.lines {
            if pure {
                for word in IO_WORDS.iter().filter(|w| line.contains(**w)) {
                    found.push(format!("{}: pure stage names {word}: {line}", m.path));
                }
            }
            for path in paths(line) {
                let target = absolute(&m.path, &path);
                let Some(to) = holder(&target, known.iter().copied()).filter(|t| !t.is_empty())
                else {
                    continue; // an item of the crate root, or a path the test cannot place
                };
                if within(to, &m.path) || within(&m.path, to) {
                    continue; // a module and its own folder
                }
                match layer(to) {
                    None => found.push(format!("{}: names {target}, in no layer", m.path)),
                    Some(to_layer) if to_layer > from_layer => {
                        found.push(format!("{}: backward edge -> {to} ({target})", m.path));
                    }
                    Some(_) => {}
                }
                if pure
                    && IO_MODULES.iter().any(|io| target.starts_with(io))
                    && !DATA_MODULES.iter().any(|data| target.starts_with(data))
                {
                    found.push(format!("{}: pure stage imports {target}", m.path));
                }
                graph
                    .entry(m.path.clone())
                    .or_default()
                    .insert(to.to_string());
            }
        }
    }
    found.extend(circles(&graph));
    found
}

/// The circles of `graph`: each strongly connected set of two modules or more (Tarjan's
/// algorithm), one line each, its modules in order.
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    struct Search<'a> {
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        out: Vec<String>,
    }
    impl<'a> Search<'a> {
        fn visit(&mut self, v: &'a str) {
            let i = self.index.len();
            self.index.insert(v, i);
            self.low.insert(v, i);
            self.stack.push(v);
            for w in self.graph.get(v).into_iter().flatten() {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.low[v].min(self.low[w]);
                    self.low.insert(v, low);
                } else if self.stack.contains(&w) {
                    let low = self.low[v].min(self.index[w]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let at = self.stack.iter().position(|s| *s == v).unwrap_or_default();
                let mut circle: Vec<&str> = self.stack.split_off(at);
                if circle.len() > 1 {
                    circle.sort_unstable();
                    self.out.push(format!("circle: {}", circle.join(" <-> ")));
                }
            }
        }
    }
    let mut search = Search {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !search.index.contains_key(v.as_str()) {
            search.visit(v);
        }
    }
    search.out
}

/// Every module under `src/` (the binary's `main.rs` and test-only files, `tests.rs`, left
/// out), its lines before its `#[cfg(test)]` items.
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
            let rs = path.extension().is_some_and(|e| e == "rs");
            if !rs || path.ends_with("main.rs") || path.ends_with("tests.rs") {
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
                    .take_while(|l| *l != "#[cfg(test)]")
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
    assert!(modules.len() > 60, "read only {} modules", modules.len());
    let found = violations(&modules);
    assert!(found.is_empty(), "layering broken:\n{}", found.join("\n"));
    // The real edges are read: a back reference from `render::words` to a file of
    // `render::status` that uses it closes a circle inside `render`.
    let mut closed = modules;
    let words = closed
        .iter_mut()
        .find(|m| m.path == "render::words")
        .unwrap();
    words
        .lines
        .push("use crate::render::status::hub_words::hub_error;".into());
    assert_eq!(
        violations(&closed),
        ["circle: render::status::hub_words <-> render::words"]
    );
}

fn module(path: &str, lines: &[&str]) -> Module {
    Module {
        path: path.into(),
        lines: lines.iter().map(std::string::ToString::to_string).collect(),
    }
}

/// Known modules for the checker's own test: those it names, and their folders.
fn with_folders(mut modules: Vec<Module>, folders: &[&str]) -> Vec<Module> {
    modules.extend(folders.iter().map(|f| module(f, &[])));
    modules
}

#[test]
fn the_checker_finds_backward_edges_circles_and_io_in_pure_stages() {
    let sound = with_folders(
        vec![
            module("render", &["use crate::tier::{Tier, TierDecision};"]),
            module("tier", &["use crate::support::sanitize;"]),
            module("render::status", &["use super::{words::Words, marker};"]),
        ],
        &["support::sanitize", "render::words", "render::marker"],
    );
    assert_eq!(violations(&sound), Vec::<String>::new());

    let backward = with_folders(
        vec![module("render", &["use crate::publish::Change;"])],
        &["publish"],
    );
    assert_eq!(
        violations(&backward),
        [
            "render: backward edge -> publish (publish::Change)",
            "render: pure stage imports publish::Change",
        ]
    );

    let circle = vec![
        module("context", &["use crate::event::{self, EventPayload};"]),
        module("event", &["let pr: crate::context::RunContext;"]),
    ];
    assert_eq!(violations(&circle), ["circle: context <-> event"]);

    // Two files of one folder naming each other, one through `super::`.
    let in_folder = with_folders(
        vec![
            module("render::usage", &["use super::usage_words::words;"]),
            module(
                "render::usage_words",
                &["use crate::render::usage::Problem;"],
            ),
        ],
        &["render"],
    );
    assert_eq!(
        violations(&in_folder),
        ["circle: render::usage <-> render::usage_words"]
    );

    let io = vec![module("window", &["let n = tokio::time::Instant::now();"])];
    assert_eq!(
        violations(&io),
        ["window: pure stage names tokio: let n = tokio::time::Instant::now();"]
    );

    let support_up = with_folders(
        vec![module(
            "support::github::error",
            &["let f = crate::report::secret_forms(s);"],
        )],
        &["report", "support::github"],
    );
    assert_eq!(
        violations(&support_up),
        ["support::github::error: backward edge -> report (report::secret_forms)"]
    );

    let status_pure_io = with_folders(
        vec![module(
            "status::classify",
            &["use crate::status::hub::HubClient;"],
        )],
        &["status::hub"],
    );
    assert_eq!(
        violations(&status_pure_io),
        ["status::classify: pure stage imports status::hub::HubClient"]
    );

    let worded = vec![module(
        "status::run",
        &[
            "log.info(&format!(\"comment {done}: {url}\"));",
            "let x = anyhow!(\"no client (a bug: checked)\");",
        ],
    )];
    assert_eq!(
        violations(&worded),
        ["status::run: pipeline holds wording: \"comment {done}: {url}\""]
    );

    let pure_reads = with_folders(
        vec![module(
            "render::docs",
            &[
                "use crate::support::files::ReadError;",
                "let doc = crate::support::files::read_text(path, 1)?;",
            ],
        )],
        &["support::files"],
    );
    assert_eq!(
        violations(&pure_reads),
        ["render::docs: pure stage imports support::files::read_text"]
    );

    let edge_data = with_folders(
        vec![module(
            "render::help",
            &[
                "use crate::support::github::error::{Action, GitHubError};",
                "use crate::digest::registry::errors::RegistryError;",
                "let client: crate::github::GitHub;",
            ],
        )],
        &[
            "support::github",
            "support::github::error",
            "digest::registry::errors",
        ],
    );
    assert_eq!(
        violations(&edge_data),
        ["render::help: pure stage imports support::github::GitHub"]
    );
}
