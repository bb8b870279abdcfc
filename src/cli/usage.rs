//! The helpers that raise bad usage ([`UsageError`], found after parsing or by a value parser).

pub(crate) use crate::render::usage::*;
use std::sync::Arc;

/// Turns another stage's error about the value of `input` into a [`UsageError`] naming it,
/// in that error's words (which name the input).
pub(crate) fn usage(input: &str) -> impl Fn(anyhow::Error) -> UsageError + '_ {
    move |e| UsageError::new(input, Problem::Refused(Arc::new(e)))
}

/// The refusal of a `required: true` input left empty: the Actions runner does not enforce
/// `required` (it passes an empty `INPUT_<NAME>` or none), so the binary does.
pub(crate) fn required(input: &str, what: Required) -> UsageError {
    UsageError::new(input, Problem::Required(what))
}

#[cfg(test)]
/// An error as the usage tables show it: the input at fault, as the exit code finds it
/// ([`crate::report::bad_input`]; `(not usage)` for any other error), and the whole message.
pub(crate) fn input_and_message(e: anyhow::Error) -> (String, String) {
    let input = crate::report::bad_input(&e)
        .unwrap_or("(not usage)")
        .to_string();
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
