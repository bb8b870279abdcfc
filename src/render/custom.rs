//! A team's own release note or tracking issue template (inputs `release-note-template`,
//! `tracking-issue-template`): checked once when the run starts, before any request, then
//! rendered with the same [`TemplateContext`] as the built-in templates.
//!
//! What keeps the bodies safe stays with the tool: the hidden marker lines are added after
//! rendering, untrusted text is neutralised in the context, the body limits apply to the
//! rendered text, and a tracking issue's body is only ever written when it is created.

use super::context::TemplateContext;
use super::usage::TemplateProblem;
use crate::support::files::{InsideError, ReadError, WorkspaceError};
use crate::tier::Tier;
use crate::window::CullSettings;
use minijinja::{Environment, ErrorKind};
use std::collections::BTreeSet;

/// The largest template accepted, in bytes (64 KiB): half a release body, far more than a
/// note needs; a larger file is most likely the wrong file.
pub(crate) const TEMPLATE_MAX_BYTES: usize = 64 * 1024;

/// The render work allowed to a team's template, in minijinja fuel (about one unit per
/// instruction; `Environment::set_fuel`): the built-in release note and tracking issue take
/// a few thousand, so this leaves room for any real note and stops a runaway loop
/// (`{% for i in range(100000) %}{% for j in range(100000) %}`) in well under a second.
pub(crate) const TEMPLATE_FUEL: u64 = 2_000_000;

/// The most text a team's template may render, in bytes (1 MiB): far above GitHub's body
/// limits (the bodies are capped after), low enough that a runaway render fails early.
pub(crate) const RENDER_MAX_BYTES: usize = 1024 * 1024;

/// Which body a template replaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyKind {
    /// The release note (`release-note-template`).
    ReleaseNote,
    /// The tracking issue of a security release (`tracking-issue-template`).
    TrackingIssue,
}

impl BodyKind {
    /// The input naming the template, as in action.yml (also the `--option`).
    pub fn input(self) -> &'static str {
        match self {
            BodyKind::ReleaseNote => "release-note-template",
            BodyKind::TrackingIssue => "tracking-issue-template",
        }
    }

    /// The name the team's template is registered under: a name no file of the tool can
    /// have (`team:…`), so it never shadows a built-in template (`{% include
    /// "window.md.j2" %}` always gets the built-in one, whatever the team's file is called).
    fn template_name(self) -> &'static str {
        match self {
            BodyKind::ReleaseNote => "team:release-note",
            BodyKind::TrackingIssue => "team:tracking-issue",
        }
    }
}

/// What a template file that was not read breaks ([`crate::support::files::read_inside`]).
impl From<InsideError> for TemplateProblem {
    fn from(e: InsideError) -> Self {
        match e {
            InsideError::Unresolved(e) => Self::Unreadable(std::sync::Arc::new(e)),
            InsideError::Outside { workspace, real } => Self::OutsideWorkspace { workspace, real },
            InsideError::Read(ReadError::IsDirectory | ReadError::NotRegular) => Self::NotRegular,
            InsideError::Read(ReadError::TooLarge { size, .. }) => Self::TooLarge {
                size,
                limit: TEMPLATE_MAX_BYTES,
            },
            InsideError::Read(e) => Self::Unreadable(std::sync::Arc::new(e)),
        }
    }
}

/// The error of a workspace the templates cannot be read from
/// ([`crate::support::files::resolve_workspace`]), in words: a run error (exit code 1), not
/// bad usage, naming where the directory came from.
pub(crate) fn workspace_error(e: WorkspaceError) -> anyhow::Error {
    match e {
        WorkspaceError::WorkingDirectory(e) => {
            anyhow::Error::new(e).context("reading the working directory")
        }
        WorkspaceError::Unresolved {
            dir,
            from_env,
            source,
        } => {
            let from = if from_env {
                "GITHUB_WORKSPACE"
            } else {
                "the working directory"
            };
            anyhow::anyhow!(super::usage_words::workspace_unresolved(
                &dir, from, &source
            ))
        }
    }
}

/// A template that cannot be used: which input, which file, what is wrong and what to do.
/// The run exits with code 2 (bad usage) and writes nothing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{input} (--{input}) {file:?}: {problem}")]
pub struct TemplateError {
    /// The input at fault ([`BodyKind::input`]).
    pub input: &'static str,
    /// The file as given (relative to the workspace).
    pub file: String,
    /// What is wrong, and what to do.
    pub problem: String,
}

/// A checked template: valid UTF-8 within [`TEMPLATE_MAX_BYTES`], parses, names only
/// variables of [`TemplateContext`], and renders to text for a routine and a security
/// example release.
#[derive(Debug, Clone)]
pub struct CustomTemplate {
    kind: BodyKind,
    file: String,
    source: String,
}

impl CustomTemplate {
    /// Checks the template `bytes` read from `file` for `kind`.
    ///
    /// Unknown variables are caught in every branch for names at the top level and their
    /// attributes (`{{ windw }}`, `{{ window.idel }}`, by minijinja's static analysis against
    /// [`TemplateContext`]'s fields); deeper mistakes (`{{ pr.titel }}` in a loop) are caught
    /// by the example renders if their branch is taken there, and otherwise when the real
    /// render meets them, still before anything is written (strict undefined).
    ///
    /// # Errors
    /// [`TemplateError`]: too large, not UTF-8, a syntax error (line and column, or the end
    /// of the template for a block left open), an unknown variable, or a render error of
    /// [`CustomTemplate::render`]. Filters and tests are looked up only when rendered
    /// (minijinja has no static check for them), so an unknown one in a branch the examples
    /// do not take is caught by the real render, still before anything is written.
    ///
    /// A leading byte order mark is dropped and CRLF line ends become LF.
    pub fn parse(kind: BodyKind, file: &str, bytes: Vec<u8>) -> Result<Self, TemplateError> {
        let error = |problem: String| TemplateError {
            input: kind.input(),
            file: file.to_string(),
            problem,
        };
        if bytes.len() > TEMPLATE_MAX_BYTES {
            return Err(error(format!(
                "the template is {} bytes, over the limit of {TEMPLATE_MAX_BYTES} bytes (64 KiB): is it the right file?",
                bytes.len()
            )));
        }
        let source = String::from_utf8(bytes).map_err(|e| {
            error(format!(
                "the template is not valid UTF-8 (byte {}): save it as UTF-8",
                e.utf8_error().valid_up_to()
            ))
        })?;
        // Editors on Windows save a byte order mark and CRLF line ends: neither is text.
        let source = source.strip_prefix('\u{feff}').unwrap_or(&source);
        let source = source.replace("\r\n", "\n");
        let template = Self {
            kind,
            file: file.to_string(),
            source,
        };
        let env = template.environment().map_err(|e| {
            let detail = e.detail().unwrap_or("invalid template");
            // minijinja points at the last token read, which for an unclosed block is
            // the block's own line: name the end of the template instead.
            if detail.starts_with("unexpected end of input") {
                let hint = if detail.ends_with("variable block") {
                    ": a `{{ … }}` is not closed"
                } else if detail.ends_with("end of block") {
                    ": a `{% if %}`, `{% for %}` or other block is not closed"
                } else {
                    ""
                };
                return error(format!(
                    "syntax error at the end of the template (line {}): {detail}{hint}",
                    template.source.lines().count().max(1)
                ));
            }
            error(format!(
                "syntax error {}: {detail}",
                position(&e, &template.source)
            ))
        })?;
        let unknown = template.unknown_variables(&env);
        if !unknown.is_empty() {
            let known = serde_json::to_value(example_context(Tier::Security))
                .expect("plain data serialises");
            let names: Vec<&str> = known
                .as_object()
                .map(|o| o.keys().map(String::as_str).collect())
                .unwrap_or_default();
            return Err(error(format!(
                "unknown variable {}: the template can use {} (see docs/templates.md)",
                unknown
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
                names.join(", ")
            )));
        }
        for tier in [Tier::Routine, Tier::Security] {
            template.render(&example_context(tier))?;
        }
        Ok(template)
    }

    /// The body this template replaces.
    pub fn kind(&self) -> BodyKind {
        self.kind
    }

    /// Renders the template with `ctx`, the hidden marker lines not included.
    ///
    /// # Errors
    /// [`TemplateError`] naming the input and the file: a render error (an undefined value,
    /// with its line), more work than [`TEMPLATE_FUEL`], more text than
    /// [`RENDER_MAX_BYTES`], recursion without end, a control character other than LF and
    /// tab, or text that shows nothing (whitespace, invisible characters, HTML comments).
    pub fn render(&self, ctx: &TemplateContext) -> Result<String, TemplateError> {
        let error = |problem: String| TemplateError {
            input: self.kind.input(),
            file: self.file.clone(),
            problem,
        };
        let env = self.environment().map_err(|e| error(format!("{e:#}")))?;
        let mut out = CappedWriter::default();
        env.get_template(self.kind.template_name())
            .and_then(|t| t.render_captured_to(ctx, &mut out).map(drop))
            .map_err(|e| {
                let what = match e.kind() {
                    _ if out.over => {
                        return error(format!(
                            "the template renders more than {RENDER_MAX_BYTES} bytes (1 MiB): the body cannot be that long; look for a loop that repeats too often"
                        ));
                    }
                    ErrorKind::OutOfFuel => {
                        return error(format!(
                            "the template does too much work (over {TEMPLATE_FUEL} steps, minijinja's fuel limit) {}: look for nested or very long loops",
                            position(&e, &self.source)
                        ));
                    }
                    ErrorKind::UndefinedError => {
                        "undefined value (a name or attribute the context does not have)"
                            .to_string()
                    }
                    _ if innermost(&e).detail() == Some("recursion limit exceeded") => {
                        "it includes itself or recurses without end (recursion limit exceeded)"
                            .to_string()
                    }
                    _ => {
                        let inner = innermost(&e);
                        inner
                            .detail()
                            .map_or_else(|| inner.kind().to_string(), String::from)
                    }
                };
                error(format!(
                    "cannot render {}: {what}; `announce --dry-run --print-context` shows the names",
                    position(&e, &self.source)
                ))
            })?;
        let text = String::from_utf8(out.bytes)
            .map_err(|_| error("the template renders text that is not valid UTF-8".to_string()))?;
        if let Some((line, c)) = control_character(&text) {
            return Err(error(format!(
                "the template renders the control character U+{:04X} (line {line} of the body) for a {} release: a body may hold only text, line ends and tabs; remove it",
                u32::from(c),
                ctx.tier.tier
            )));
        }
        if renders_to_nothing(&text) {
            return Err(error(format!(
                "the template renders to nothing (only whitespace, invisible characters or HTML comments) for a {} release: write the body's text, or drop the input to use the built-in one",
                ctx.tier.tier
            )));
        }
        Ok(text)
    }

    /// The built-in environment (filters, the built-in templates to include) with this
    /// template added under its file name.
    fn environment(&self) -> Result<Environment<'static>, minijinja::Error> {
        let mut env = super::environment().clone();
        env.set_fuel(Some(TEMPLATE_FUEL));
        env.add_template_owned(self.kind.template_name(), self.source.clone())?;
        Ok(env)
    }

    /// The names the template looks up that the context does not have (globals and
    /// filters of the environment aside), e.g. `windw` or `window.idel`.
    fn unknown_variables(&self, env: &Environment<'static>) -> BTreeSet<String> {
        let Ok(template) = env.get_template(self.kind.template_name()) else {
            return BTreeSet::new();
        };
        let known =
            serde_json::to_value(example_context(Tier::Security)).expect("plain data serialises");
        let globals: BTreeSet<&str> = env.globals().map(|(name, _)| name).collect();
        template
            .undeclared_variables(true)
            .into_iter()
            .filter(|name| {
                let mut parts = name.split('.');
                let top = parts.next().unwrap_or_default();
                if globals.contains(top) {
                    return false;
                }
                match (known.get(top), parts.next()) {
                    (None, _) => true,
                    (Some(serde_json::Value::Object(fields)), Some(attr)) => {
                        !fields.contains_key(attr)
                    }
                    _ => false,
                }
            })
            .collect()
    }
}

/// Collects rendered bytes up to [`RENDER_MAX_BYTES`], then refuses more (minijinja stops
/// the render at the failed write).
#[derive(Default)]
struct CappedWriter {
    bytes: Vec<u8>,
    over: bool,
}

impl std::io::Write for CappedWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.bytes.len() + buf.len() > RENDER_MAX_BYTES {
            self.over = true;
            return Err(std::io::Error::other("the rendered body is too long"));
        }
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The first control character of `text` other than LF and tab, with its line (from 1).
fn control_character(text: &str) -> Option<(usize, char)> {
    text.split('\n').enumerate().find_map(|(i, line)| {
        line.chars()
            .find(|c| c.is_control() && *c != '\t')
            .map(|c| (i + 1, c))
    })
}

/// Whether `text` shows nothing on GitHub: only whitespace, invisible (format, zero-width)
/// characters and HTML comments.
fn renders_to_nothing(text: &str) -> bool {
    let mut visible = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("<!--") {
        visible.push_str(&rest[..start]);
        rest = rest[start..]
            .find("-->")
            .map_or("", |end| &rest[start + end + 3..]);
    }
    visible.push_str(rest);
    crate::support::sanitize::clean_line(&visible, usize::MAX).is_empty()
}

/// The error at the root of `e`: an error in an included template is wrapped in one
/// naming the template that includes it.
fn innermost(e: &minijinja::Error) -> &minijinja::Error {
    let mut inner = e;
    while let Some(next) =
        std::error::Error::source(inner).and_then(|s| s.downcast_ref::<minijinja::Error>())
    {
        inner = next;
    }
    inner
}

/// `at line L, column C` of a minijinja error in `source` (what of it is known).
fn position(e: &minijinja::Error, source: &str) -> String {
    let column = e.range().and_then(|r| {
        let before = source.get(..r.start)?;
        Some(before.chars().rev().take_while(|c| *c != '\n').count() + 1)
    });
    match (e.line(), column) {
        (Some(line), Some(column)) => format!("at line {line}, column {column}"),
        (Some(line), None) => format!("at line {line}"),
        _ => "in the template".to_string(),
    }
}

/// The context of an example release of `tier` (one labelled pull request, a maximum
/// server age for security, culling off for routine), to check templates against.
fn example_context(tier: Tier) -> TemplateContext {
    let culler = match tier {
        Tier::Security => CullSettings {
            max_age_secs: 8 * 3600,
            ..CullSettings::default()
        },
        Tier::Routine => CullSettings {
            enabled: false,
            ..CullSettings::default()
        },
    };
    let facts = super::example_facts(tier, culler);
    super::template_context(&facts).expect("the built-in blocks render")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every bad template gives one clear error naming the input and the file.
    #[test]
    fn every_bad_template_is_refused_naming_input_and_file() {
        let cases: [(&str, Vec<u8>); 15] = [
            ("syntax", b"Hello\n{% if security %}\nno end".to_vec()),
            ("unclosed", b"{{ image ".to_vec()),
            ("unknown", b"{{ imagee }}".to_vec()),
            ("unknown attribute", b"{{ window.idel }}".to_vec()),
            (
                "unknown in a branch never taken",
                b"{% if false %}{{ nope }}{% endif %}x".to_vec(),
            ),
            (
                "unknown loop attribute",
                b"{% for pr in pull_requests %}{{ pr.titel }}{% endfor %}x".to_vec(),
            ),
            ("blank", b" \n\t\n".to_vec()),
            ("not utf-8", b"caf\xe9".to_vec()),
            ("too large", vec![b'a'; TEMPLATE_MAX_BYTES + 1]),
            (
                "unclosed block",
                b"a\nb\n  {% if security %}\nc".to_vec(),
            ),
            (
                "invisible only",
                "\u{200b}\u{2060}<!-- a comment -->\n\u{feff}".as_bytes().to_vec(),
            ),
            (
                "includes itself",
                b"x{% include \"team:tracking-issue\" %}".to_vec(),
            ),
            (
                "too much work",
                b"{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}x"
                    .to_vec(),
            ),
            (
                "too much output",
                b"{% for i in range(100) %}{{ runbook }}{{ runbook }}{{ runbook }}{% endfor %}".to_vec(),
            ),
            ("control character", b"a{{ \"\\x1b[31m\" }}b".to_vec()),
        ];
        let table: Vec<String> = cases
            .into_iter()
            .map(|(case, bytes)| {
                let err = CustomTemplate::parse(BodyKind::TrackingIssue, "t.md.j2", bytes)
                    .expect_err(case);
                assert_eq!(err.input, "tracking-issue-template");
                format!("{case}:\n  {err}")
            })
            .collect();
        insta::assert_snapshot!(table.join("\n"));
    }

    /// What a team may write: macros, a byte order mark and CRLF line ends (dropped), and
    /// `{% include %}` of a built-in template whatever the team's file is called.
    #[test]
    fn macros_bom_crlf_and_built_in_includes_are_accepted() {
        let ctx = example_context(Tier::Security);
        let render = |file: &str, source: &[u8]| {
            CustomTemplate::parse(BodyKind::ReleaseNote, file, source.to_vec())
                .and_then(|t| t.render(&ctx))
                .unwrap_or_else(|e| panic!("{file}: {e}"))
        };
        let macros = render(
            "m.md.j2",
            b"{% macro item(pr) %}- #{{ pr.number }}{% endmacro %}{% for pr in pull_requests %}{{ item(pr) }}\n{% endfor %}{% macro boxed() %}[{{ caller() }}]{% endmacro %}{% call boxed() %}{{ tier }}{% endcall %}",
        );
        let bom = render(
            "bom.md.j2",
            b"\xef\xbb\xbfTier: {{ tier }}\r\nImage: {{ image }}\r\n",
        );
        let include = render("window.md.j2", b"Window:\n{% include \"window.md.j2\" %}");
        assert!(include.starts_with("Window:\n"), "{include}");
        insta::assert_snapshot!(format!("{macros}\n---\n{bom}---\n{include}"));
    }

    /// minijinja looks filters up only when rendering (no static check exists): an unknown
    /// filter in a branch no example takes passes [`CustomTemplate::parse`], and the real
    /// render that takes the branch fails (before anything is written; README says so).
    #[test]
    fn an_unknown_filter_fails_when_its_branch_renders() {
        let source =
            b"x{% if window.culling_enabled and not security %}{{ image|nope }}{% endif %}";
        let template = CustomTemplate::parse(BodyKind::ReleaseNote, "f.md.j2", source.to_vec())
            .expect("the routine example has culling off, the security one is security");
        let mut ctx = example_context(Tier::Routine);
        ctx.window.culling_enabled = true;
        let err = template.render(&ctx).expect_err("the branch is taken");
        insta::assert_snapshot!(err.to_string(), @"release-note-template (--release-note-template) \"f.md.j2\": cannot render at line 1, column 59: filter nope is unknown; `announce --dry-run --print-context` shows the names");
    }

    /// The runbook's steps are its task-list items, with their commands.
    #[test]
    fn the_runbook_steps_are_its_items() {
        let ctx = example_context(Tier::Security);
        let titles: Vec<&str> = ctx
            .runbook
            .runbook_steps
            .iter()
            .map(|s| s.title.as_str())
            .collect();
        assert_eq!(
            titles,
            [
                "Decide",
                "Set up",
                "List stale servers",
                "Warn users first",
                "Wait",
                "Stop stale servers",
                "Only if the API fails",
                "Verify",
                "Close out"
            ]
        );
        let all: String = ctx
            .runbook
            .runbook_steps
            .iter()
            .map(|s| format!("- [ ] {}\n", s.text))
            .collect();
        assert!(ctx.runbook.runbook.ends_with(&all), "{all}");
    }
}
