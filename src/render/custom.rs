//! A team's own release note or tracking issue template (inputs `release-note-template`,
//! `tracking-issue-template`): checked once when the run starts, before any request, then
//! rendered with the same [`TemplateContext`] as the built-in templates.
//!
//! What keeps the bodies safe stays with the tool: the hidden marker lines are added after
//! rendering, untrusted text is neutralised in the context, the body limits apply to the
//! rendered text, and a tracking issue's body is only ever written when it is created.

use super::context::TemplateContext;
use super::templates::{self, TEMPLATE_FUEL};
use super::usage::TemplateProblem;
use super::words::{Words, input_name};
use crate::support::files::{InsideError, ReadError, WorkspaceError};
use crate::tier::Tier;
use crate::window::CullSettings;
use minijinja::{Environment, ErrorKind};
use std::collections::BTreeSet;

/// The largest template accepted, in bytes (64 KiB): half a release body, far more than a
/// note needs; a larger file is most likely the wrong file.
pub(crate) const TEMPLATE_MAX_BYTES: usize = 64 * 1024;

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
    pub(crate) fn input(self) -> &'static str {
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
            anyhow::anyhow!(workspace_unresolved(&dir, from, &source))
        }
    }
}

/// A template that cannot be used: which input, which file, and what is wrong (its words are
/// [`words`]'). The run exits with code 2 (bad usage) and writes nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateError {
    /// The input at fault ([`BodyKind::input`]).
    pub(crate) input: &'static str,
    /// The file as given (relative to the workspace).
    pub(crate) file: String,
    /// What is wrong.
    pub(crate) fault: TemplateFault,
}

impl std::error::Error for TemplateError {}

impl TemplateError {
    /// The error of the template `file` given for `kind`.
    fn new(kind: BodyKind, file: &str, fault: TemplateFault) -> Self {
        Self {
            input: kind.input(),
            file: file.to_string(),
            fault,
        }
    }
}

// Unplaced, as on the command line; [`super::error_words`] words it where the run is.
super::words::words_display!(TemplateError => |e| words(e, false));

/// Where in a template a fault is, as far as minijinja knows (lines and columns from 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Position {
    /// The line.
    pub(crate) line: Option<usize>,
    /// The column, in characters.
    pub(crate) column: Option<usize>,
}

/// What is wrong with a team's template, with the facts its words need.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TemplateFault {
    /// Over [`TEMPLATE_MAX_BYTES`]: its size in bytes.
    TooLarge(usize),
    /// Not UTF-8 from this byte on.
    NotUtf8(usize),
    /// A block or `{{ … }}` left open at the end: the template's last line, and minijinja's
    /// words (which say what is left open: a variable block or a block).
    Unclosed(usize, String),
    /// Another syntax error.
    Syntax(Position, String),
    /// Names the context does not have (`windw`, `window.idel`), and the names it has.
    UnknownVariables(Vec<String>, Vec<String>),
    /// The render wrote more than [`RENDER_MAX_BYTES`].
    TooLong,
    /// The render took more than [`TEMPLATE_FUEL`].
    TooMuchWork(Position),
    /// A name or attribute the context does not have, met while rendering.
    Undefined(Position),
    /// The template includes itself, or recurses without end.
    Recursion(Position),
    /// Another render error: minijinja's words.
    Render(Position, String),
    /// The render is not UTF-8.
    RendersNonUtf8,
    /// The render holds a control character other than LF and tab: the line of the body (from
    /// 1), the character, and the example release's tier.
    ControlCharacter(usize, char, Tier),
    /// The render shows nothing (whitespace, invisible characters, HTML comments) for the
    /// example release of this tier.
    RendersNothing(Tier),
}

/// The words of `e`: what is wrong with which input and file, then what to do; `in_actions`:
/// the dry run that prints the names a template can use is given as the Action's inputs.
pub(crate) fn words(e: &TemplateError, in_actions: bool) -> Words {
    let named = format!("{} {:?}", input_name(e.input, None, in_actions), e.file);
    let names = match in_actions {
        true => {
            "a run with `dry-run: true` and `print-context: true` under `with:` prints the names a template can use"
        }
        false => "`announce --dry-run --print-context` shows the names a template can use",
    };
    let (what, help) = match &e.fault {
        TemplateFault::TooLarge(size) => (
            format!("{named} is {size} bytes, over 64 KiB"),
            format!("the limit is {TEMPLATE_MAX_BYTES} bytes; is it the right file? A body's template needs far less"),
        ),
        TemplateFault::NotUtf8(byte) => (
            format!("{named} is not valid UTF-8 (byte {byte})"),
            "save it as UTF-8".to_string(),
        ),
        TemplateFault::Unclosed(line, detail) => {
            let words = Words::new(format!("{named}: syntax error at its end (line {line})")).because(detail);
            return if detail.ends_with("variable block") {
                words.help("a `{{ … }}` is not closed; close it")
            } else if detail.ends_with("end of block") {
                words.help("a `{% if %}`, `{% for %}` or other block is not closed; close it (`{% endif %}`, `{% endfor %}`)")
            } else {
                words
            };
        }
        TemplateFault::Syntax(at, detail) => {
            return Words::new(format!("{named}: syntax error {at}"))
                .because(detail)
                .help("fix the template's syntax (docs/templates.md)");
        }
        TemplateFault::UnknownVariables(unknown, known) => (
            format!("{named}: unknown variable {}", code_list(unknown)),
            format!("the template can use {} (see docs/templates.md)", known.join(", ")),
        ),
        TemplateFault::TooLong => (
            format!("{named} renders more than {RENDER_MAX_BYTES} bytes (1 MiB)"),
            "the body cannot be that long; look for a loop that repeats too often".to_string(),
        ),
        TemplateFault::TooMuchWork(at) => (
            format!("{named} does too much work {at}"),
            format!("it took over {TEMPLATE_FUEL} steps, minijinja's fuel limit; look for nested or very long loops"),
        ),
        TemplateFault::Undefined(at) => (
            format!("{named}: undefined value {at}"),
            format!("it names a value or attribute the context does not have; {names}"),
        ),
        TemplateFault::Recursion(at) => (
            format!("{named} includes itself {at}"),
            "it includes itself or recurses without end (recursion limit exceeded); remove the loop".to_string(),
        ),
        TemplateFault::Render(at, detail) => {
            return Words::new(format!("{named}: cannot render {at}")).because(detail).help(names);
        }
        TemplateFault::RendersNonUtf8 => (
            format!("{named} renders text that is not valid UTF-8"),
            "render only text".to_string(),
        ),
        TemplateFault::ControlCharacter(line, c, tier) => (
            format!("{named}: control character U+{:04X} on line {line}", u32::from(*c)),
            format!("the body of a {tier} release holds it, and a body may hold only text, line ends and tabs: remove it"),
        ),
        TemplateFault::RendersNothing(tier) => (
            format!("{named} renders to nothing for a {tier} release"),
            "it renders only whitespace, invisible characters or HTML comments; write the body's text, or drop the input to use the built-in one".to_string(),
        ),
    };
    Words::new(what).help(help)
}

/// `` `a`, `b` ``.
fn code_list(names: &[String]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    quoted.join(", ")
}

impl std::fmt::Display for Position {
    /// `at line L, column C` (what of it is known), or `in the template`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.line, self.column) {
            (Some(line), Some(column)) => write!(f, "at line {line}, column {column}"),
            (Some(line), None) => write!(f, "at line {line}"),
            _ => f.write_str("in the template"),
        }
    }
}

/// A checked template: valid UTF-8 within `TEMPLATE_MAX_BYTES`, parses, names only
/// variables of `TemplateContext`, and renders to text for a routine and a security
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
    /// `TemplateContext`'s fields); deeper mistakes (`{{ pr.titel }}` in a loop) are caught
    /// by the example renders if their branch is taken there, and otherwise when the real
    /// render meets them, still before anything is written (strict undefined).
    ///
    /// # Errors
    /// `TemplateError`: too large, not UTF-8, a syntax error (line and column, or the end
    /// of the template for a block left open), an unknown variable, or a render error of
    /// `CustomTemplate::render`. Filters and tests are looked up only when rendered
    /// (minijinja has no static check for them), so an unknown one in a branch the examples
    /// do not take is caught by the real render, still before anything is written.
    ///
    /// A leading byte order mark is dropped and CRLF line ends become LF.
    pub fn parse(kind: BodyKind, file: &str, bytes: Vec<u8>) -> Result<Self, TemplateError> {
        let error = |fault| TemplateError::new(kind, file, fault);
        if bytes.len() > TEMPLATE_MAX_BYTES {
            return Err(error(TemplateFault::TooLarge(bytes.len())));
        }
        let source = String::from_utf8(bytes)
            .map_err(|e| error(TemplateFault::NotUtf8(e.utf8_error().valid_up_to())))?;
        // Editors on Windows save a byte order mark and CRLF line ends: neither is text.
        let source = source.strip_prefix('\u{feff}').unwrap_or(&source);
        let template = Self {
            kind,
            file: file.to_string(),
            source: source.replace("\r\n", "\n"),
        };
        let env = template.environment().map_err(|e| {
            let detail = e.detail().unwrap_or("invalid template").to_string();
            // minijinja points at the last token read, which for an unclosed block is
            // the block's own line: name the end of the template instead.
            if !detail.starts_with("unexpected end of input") {
                return error(TemplateFault::Syntax(
                    position(&e, &template.source),
                    detail,
                ));
            }
            let line = template.source.lines().count().max(1);
            error(TemplateFault::Unclosed(line, detail))
        })?;
        let known: Vec<String> = context_names().keys().cloned().collect();
        let unknown = template.unknown_variables(&env);
        if !unknown.is_empty() {
            let unknown = unknown.into_iter().collect();
            return Err(error(TemplateFault::UnknownVariables(unknown, known)));
        }
        // A tracking issue is opened for a security release only.
        let tiers = match kind {
            BodyKind::ReleaseNote => &[Tier::Routine, Tier::Security][..],
            BodyKind::TrackingIssue => &[Tier::Security],
        };
        for tier in tiers {
            template.render(&example_context(*tier))?;
        }
        Ok(template)
    }

    /// Renders the template with `ctx`, the hidden marker lines not included.
    ///
    /// # Errors
    /// [`TemplateError`] naming the input and the file: a render error (an undefined value,
    /// with its line), more work than [`TEMPLATE_FUEL`], more text than
    /// [`RENDER_MAX_BYTES`], recursion without end, a control character other than LF and
    /// tab, or text that shows nothing (whitespace, invisible characters, HTML comments).
    pub(crate) fn render(&self, ctx: &TemplateContext) -> Result<String, TemplateError> {
        let error = |fault| TemplateError::new(self.kind, &self.file, fault);
        let mut out = CappedWriter::default();
        self.environment()
            .and_then(|env| {
                let template = env.get_template(self.kind.template_name())?;
                template.render_captured_to(ctx, &mut out).map(drop)
            })
            .map_err(|e| {
                let at = position(&e, &self.source);
                let inner = innermost(&e);
                error(match e.kind() {
                    _ if out.over => TemplateFault::TooLong,
                    ErrorKind::OutOfFuel => TemplateFault::TooMuchWork(at),
                    ErrorKind::UndefinedError => TemplateFault::Undefined(at),
                    _ if inner.detail() == Some("recursion limit exceeded") => {
                        TemplateFault::Recursion(at)
                    }
                    _ => TemplateFault::Render(
                        at,
                        inner
                            .detail()
                            .map_or_else(|| inner.kind().to_string(), String::from),
                    ),
                })
            })?;
        let text =
            String::from_utf8(out.bytes).map_err(|_| error(TemplateFault::RendersNonUtf8))?;
        let tier = if ctx.tier.security {
            Tier::Security
        } else {
            Tier::Routine
        };
        if let Some((line, c)) = control_character(&text) {
            return Err(error(TemplateFault::ControlCharacter(line, c, tier)));
        }
        if renders_to_nothing(&text) {
            return Err(error(TemplateFault::RendersNothing(tier)));
        }
        Ok(text)
    }

    /// The built-in environment (filters, the built-in templates to include) with this
    /// template added under its name ([`templates::with_team_template`]).
    fn environment(&self) -> Result<Environment<'static>, minijinja::Error> {
        templates::with_team_template(self.kind.template_name(), self.source.clone())
    }

    /// The names the template looks up that the context does not have (globals and
    /// filters of the environment aside), e.g. `windw` or `window.idel`.
    fn unknown_variables(&self, env: &Environment<'static>) -> BTreeSet<String> {
        let Ok(template) = env.get_template(self.kind.template_name()) else {
            return BTreeSet::new();
        };
        let known = context_names();
        let globals: BTreeSet<&str> = env.globals().map(|(name, _)| name).collect();
        template
            .undeclared_variables(true)
            .into_iter()
            .filter(|name| {
                let mut parts = name.split('.');
                let top = parts.next().unwrap_or_default();
                match (known.get(top), parts.next()) {
                    (None, _) => !globals.contains(top),
                    (Some(serde_json::Value::Object(fields)), Some(attr)) => {
                        !fields.contains_key(attr)
                    }
                    _ => false,
                }
            })
            .collect()
    }
}

/// The names of [`TemplateContext`] with an example's values (of a security release, whose
/// optional parts are set).
fn context_names() -> serde_json::Map<String, serde_json::Value> {
    match serde_json::to_value(example_context(Tier::Security)) {
        Ok(serde_json::Value::Object(names)) => names,
        _ => unreachable!("the context serialises to an object"),
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

/// Where `e` is in `source`, as far as minijinja knows.
fn position(e: &minijinja::Error, source: &str) -> Position {
    let column = e.range().and_then(|r| {
        let before = source.get(..r.start)?;
        Some(before.chars().rev().take_while(|c| *c != '\n').count() + 1)
    });
    Position {
        line: e.line(),
        column,
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
    let facts = super::Facts::example(tier, culler);
    TemplateContext::new(&facts).expect("the built-in blocks render")
}

/// The error of a workspace `dir` (from `GITHUB_WORKSPACE` or the working directory, `from`)
/// that cannot be resolved, for `cause`.
pub(crate) fn workspace_unresolved(
    dir: &std::path::Path,
    from: &str,
    cause: &dyn std::fmt::Display,
) -> String {
    Words::new(format!(
        "the workspace {} ({from}) cannot be resolved: {cause}",
        dir.display()
    ))
    .help("templates are read from it: check out the repository first (actions/checkout), or set GITHUB_WORKSPACE to its directory")
    .to_string()
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
                crate::render::words::assert_shape(&words(&err, false));
                format!("{case}:\n  {}", err.to_string().replace('\n', "\n  "))
            })
            .collect();
        insta::assert_snapshot!(table.join("\n"));
    }

    /// Every fault in words: one line saying what is wrong with which input and file, then
    /// what to do.
    #[test]
    fn every_fault_in_words() {
        let at = Position {
            line: Some(3),
            column: Some(7),
        };
        let detail = "unexpected end of input, expected end of block".to_string();
        let faults = [
            TemplateFault::TooLarge(70_000),
            TemplateFault::NotUtf8(3),
            TemplateFault::Unclosed(9, detail.clone()),
            TemplateFault::Unclosed(9, detail.replace("block", "variable block")),
            TemplateFault::Syntax(at, "unexpected `}`".into()),
            TemplateFault::UnknownVariables(vec!["windw".into()], vec!["window".into()]),
            TemplateFault::TooLong,
            TemplateFault::TooMuchWork(Position {
                line: Some(1),
                column: None,
            }),
            TemplateFault::Undefined(at),
            TemplateFault::Recursion(at),
            TemplateFault::Render(
                Position {
                    line: None,
                    column: None,
                },
                "filter nope is unknown".into(),
            ),
            TemplateFault::RendersNonUtf8,
            TemplateFault::ControlCharacter(12, '\u{1b}', Tier::Security),
            TemplateFault::RendersNothing(Tier::Routine),
        ];
        let file = ".github/release-note.md.j2".to_string();
        let input = BodyKind::ReleaseNote.input();
        // Last, inside Actions: the dry run that prints the names is given as inputs.
        let faults = (faults.into_iter().map(|fault| (fault, false)))
            .chain([(TemplateFault::Undefined(at), true)]);
        insta::assert_snapshot!(crate::render::words::shaped(faults.map(
            |(fault, in_actions)| {
                let file = file.clone();
                words(&TemplateError { input, file, fault }, in_actions)
            }
        )));
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
        // Inside Actions, the run's error (`error_words`) gives the dry run as inputs.
        let placed = crate::render::error_words(&anyhow::Error::new(err.clone()), true);
        insta::assert_snapshot!(format!("{err}\n(in Actions) {placed}"), @r#"
        release-note-template (--release-note-template) "f.md.j2": cannot render at line 1, column 59
        caused by: filter nope is unknown
        help: `announce --dry-run --print-context` shows the names a template can use
        (in Actions) release-note-template "f.md.j2": cannot render at line 1, column 59
        caused by: filter nope is unknown
        help: a run with `dry-run: true` and `print-context: true` under `with:` prints the names a template can use
        "#);
    }

    /// The runbook's steps are its task-list items, with their commands.
    #[test]
    fn the_runbook_steps_are_its_items() {
        let ctx = example_context(Tier::Security);
        let titles: Vec<&str> = ctx.runbook_steps.iter().map(|s| s.title.as_str()).collect();
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
            .runbook_steps
            .iter()
            .map(|s| format!("- [ ] {}\n", s.text))
            .collect();
        assert!(ctx.runbook.ends_with(&all), "{all}");
    }
}
