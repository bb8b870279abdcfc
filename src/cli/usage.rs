//! Bad usage found after parsing, and the helpers that raise it.

/// Bad usage found after parsing: a required input left empty, or a value an input does not
/// take. The process exits with code 2, as for clap's own usage errors, and inside Actions
/// the annotation's title is `Invalid input: INPUT`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct UsageError {
    /// The input at fault: its action.yml name, also the `--option` (e.g. `cull-timeout`).
    pub input: String,
    /// What is wrong and what to write instead; names the input too.
    pub message: String,
}

impl UsageError {
    /// An error about `input`.
    pub fn new(input: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            input: input.into(),
            message: message.into(),
        }
    }
}

/// The input at fault when `err` is bad usage: a [`UsageError`] anywhere in its chain, or a
/// [`crate::render::TemplateError`] (a team's template failing on a run's real facts, found
/// at render time, before anything is published).
pub fn bad_input(err: &anyhow::Error) -> Option<&str> {
    err.chain().find_map(|e| {
        e.downcast_ref::<UsageError>()
            .map(|u| u.input.as_str())
            .or_else(|| {
                e.downcast_ref::<crate::render::TemplateError>()
                    .map(|t| t.input)
            })
    })
}

/// Turns an error about the value of `input` into a [`UsageError`] naming it.
pub fn usage(input: &str) -> impl Fn(anyhow::Error) -> UsageError + '_ {
    move |e| UsageError::new(input, format!("{e:#}"))
}

/// The value of a `required: true` input, trimmed. The Actions runner does not enforce
/// `required` (it passes an empty `INPUT_<NAME>` or none), so the binary does.
///
/// # Errors
/// [`UsageError`] naming `input` (its action.yml name, also the `--input` option) and saying
/// what it is (`what`), when the value is missing or blank.
pub fn required<'a>(
    value: Option<&'a str>,
    input: &str,
    what: &str,
) -> Result<&'a str, UsageError> {
    value
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .ok_or_else(|| {
            UsageError::new(
                input,
                format!(
                    "the input `{input}` is required: set `{input}:` under `with:` (or --{input}): {what}"
                ),
            )
        })
}

/// An error as the usage tables show it: the input a [`UsageError`] names (`(not usage)` for
/// any other error) and the whole message.
#[cfg(test)]
pub(crate) fn input_and_message(e: anyhow::Error) -> (String, String) {
    let input = e
        .downcast_ref::<UsageError>()
        .map_or("(not usage)".to_string(), |u| u.input.clone());
    (input, format!("{e:#}"))
}

/// A clap error as the usage tables show it: for a refusal of the options' value parsers
/// ([`super::value`]), the input and the message as the annotation shows them (the first
/// paragraph, without `error: `); for clap's own errors, `clap` and the whole text.
#[cfg(test)]
pub(crate) fn clap_input_and_message(e: &clap::Error) -> (String, String) {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let text = e.to_string();
    match (
        e.kind(),
        e.get(ContextKind::InvalidArg),
        e.get(ContextKind::InvalidValue),
    ) {
        (ErrorKind::ValueValidation, Some(ContextValue::String(arg)), None) => {
            let input = arg.trim_start_matches('-').split([' ', '=']).next();
            let first = text.split("\n\n").next().unwrap_or_default().trim();
            (
                input.unwrap_or_default().to_string(),
                first.strip_prefix("error: ").unwrap_or(first).to_string(),
            )
        }
        _ => ("clap".to_string(), text),
    }
}
