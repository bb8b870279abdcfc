//! The one template environment: every template of `templates/` (the release's bodies, the
//! job summary, `status`'s report and comment), embedded at build time and parsed once per
//! process, with the settings and filters they share; a team's own template renders in a
//! copy of it with a fuel limit ([`with_team_template`]).

use anyhow::{Context, Result};
use minijinja::{Environment, UndefinedBehavior};
use serde::Serialize;
use std::sync::OnceLock;

/// `(name, source)` of each template file named, embedded from `templates/`.
macro_rules! embedded {
    ($($name:literal),* $(,)?) => {
        [$(($name, include_str!(concat!("../../templates/", $name)))),*]
    };
}

/// Every template of `templates/`, by file name.
const TEMPLATES: [(&str, &str); 15] = embedded!(
    "failure_summary.md.j2",
    "release_note.md.j2",
    "tracking_issue.md.j2",
    "tracking_update.md.j2",
    "window.md.j2",
    "runbook.md.j2",
    "job_summary.md.j2",
    "pull_warning.md.j2",
    "status_body.md.j2",
    "status_summary.md.j2",
    "status_comment.md.j2",
    "status_convergence.j2",
    "status_chart.md.j2",
    "status_comment_note.md.j2",
    "status_terminal.j2",
);

/// The render work allowed to a team's template, in minijinja fuel (about one unit per
/// instruction; `Environment::set_fuel`): the built-in release note and tracking issue take
/// a few thousand, so this leaves room for any real note and stops a runaway loop
/// (`{% for i in range(100000) %}{% for j in range(100000) %}`) in well under a second.
pub(crate) const TEMPLATE_FUEL: u64 = 2_000_000;

/// The environment of the built-in templates, built once per process: undefined names are
/// errors (strict), a template's final newline is kept, and two filters are defined:
/// `{{ value|sh }}` ([`shell_word`]) and `{{ value|cell }}` ([`table_cell`]).
pub(crate) fn environment() -> &'static Environment<'static> {
    static ENV: OnceLock<Environment<'static>> = OnceLock::new();
    ENV.get_or_init(|| {
        let mut env = Environment::new();
        env.set_undefined_behavior(UndefinedBehavior::Strict);
        env.set_keep_trailing_newline(true);
        // One bash word whatever the value (the inputs are validated before, see
        // `crate::support::url::hub_url` and `crate::support::kube_name`; this keeps the
        // runbook safe to paste if that ever slips).
        env.add_filter("sh", |value: String| shell_word(&value));
        env.add_filter("cell", |value: String| table_cell(&value));
        for (name, source) in TEMPLATES {
            env.add_template(name, source)
                .expect("built-in templates parse (checked by tests)");
        }
        env
    })
}

/// Renders the built-in template `name` with `ctx`.
///
/// # Errors
/// A template error (a bug: the built-in templates are tested), naming the template.
pub(crate) fn render(name: &str, ctx: impl Serialize) -> Result<String> {
    environment()
        .get_template(name)
        .and_then(|template| template.render(ctx))
        .with_context(|| format!("rendering {name}"))
}

/// A copy of [`environment`] with a team's template `source` added as `name` (built-in
/// templates stay includable under their own names) and at most [`TEMPLATE_FUEL`] of work
/// per render.
///
/// # Errors
/// The template's syntax error.
pub(crate) fn with_team_template(
    name: &'static str,
    source: String,
) -> Result<Environment<'static>, minijinja::Error> {
    let mut env = environment().clone();
    env.set_fuel(Some(TEMPLATE_FUEL));
    env.add_template_owned(name, source)?;
    Ok(env)
}

/// Single-quotes `text` for bash unless it is made only of characters that need no quoting
/// (letters, digits and `@%+=:,./_-`), so valid inputs render as they are written.
pub(crate) fn shell_word(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "@%+=:,./_-".contains(c));
    if plain {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// Text made safe for one cell of a Markdown table: `|` escaped (GitHub's table extension
/// reads `\|` as a literal pipe, also inside links and code spans), line breaks and other
/// control characters replaced by spaces, so a cell stays one cell on one row.
pub(crate) fn table_cell(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>()
        .replace('|', "\\|")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words_and_table_cells_stay_one_word_and_one_cell() {
        for (text, word) in [("", "''"), ("jhub", "jhub"), ("it's", r"'it'\''s'")] {
            assert_eq!(shell_word(text), word);
        }
        assert_eq!(table_cell("a|b\nc\r"), "a\\|b c ");
    }
}
