//! Text helpers shared by the stages and the edges: percent-encoding (the `percent-encoding`
//! crate with RFC 3986's sets), the entries of a list input ([`list_entries`]), an error and
//! its causes on one line ([`error_chain`]), a parser's message without the values it quotes
//! ([`without_values`]), the field a JSON document could not be read at ([`unreadable`]), and
//! what an annotation needs ([`Titled`]).

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use std::fmt;

/// Everything but RFC 3986's unreserved characters (letters, digits, `-._~`): the set for a
/// path segment or a query value, where any other byte would be read as syntax.
pub(crate) const COMPONENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// The entries of a list an input gives (an Action input is one string): split at commas and
/// line breaks (LF, CR or CRLF, the line ends of the runner's .NET `ReadLine`), trimmed,
/// blanks left out. The one list rule of every list input.
pub(crate) fn list_entries(text: &str) -> impl Iterator<Item = &str> {
    text.split([',', '\r', '\n'])
        .map(str::trim)
        .filter(|entry| !entry.is_empty())
}

/// `text` percent-encoded for a path segment or query value ([`COMPONENT`]; upper-case hex).
pub(crate) fn percent_encode(text: &str) -> String {
    utf8_percent_encode(text, COMPONENT).to_string()
}

/// An error and its causes on one line, `: `-separated, each cause left out when the text so
/// far already holds it (libraries' top-level messages alone say little: reqwest's "error
/// sending request for url (…)"). Not cleaned: callers cut and clean it for their message.
pub(crate) fn error_chain(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        let line = cause.to_string();
        if !text.contains(&line) {
            text.push_str(": ");
            text.push_str(&line);
        }
        source = cause.source();
    }
    text
}

/// Writes `value`'s serde name (a unit variant's, e.g. `in_progress`) to `f`: the `Display`
/// of an enum whose names its serde attributes define, so each name is written once.
pub(crate) fn serde_name(value: &impl serde::Serialize, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(name)) => f.write_str(&name),
        _ => Ok(()),
    }
}

/// A field of a JSON document that does not have the shape read ([`unreadable`]), as data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreadable {
    /// Its path as serde_path_to_error writes it (`items[4].servers.gpu.ready`), `.` for the
    /// document itself; a missing field's own name last (`pull_request.number`).
    pub field: String,
    /// Whether it is missing (else it holds another type or value).
    pub missing: bool,
}

/// The field serde could not read in data error `e` (serde_json `Category::Data`): a missing
/// one (serde's "missing field `name`", at the object lacking it) or one of another type or
/// value. serde's other words are left out: they quote the value (a name, a token) and name
/// our types (`expected struct PullRequest`, `expected u64`).
pub(crate) fn unreadable(e: &serde_path_to_error::Error<serde_json::Error>) -> Unreadable {
    let message = e.inner().to_string();
    let missing = (message.strip_prefix("missing field `")).and_then(|m| m.split_once('`'));
    let field = match missing {
        Some((name, _)) => format!("{}.{name}", e.path())
            .trim_start_matches('.')
            .into(),
        None => e.path().to_string(),
    };
    let missing = missing.is_some();
    Unreadable { field, missing }
}

/// Something worded as an Actions annotation: a title, and its text as `Display` (e.g. the
/// render layer's run warnings), for [`crate::support::log::Log::warn`].
pub(crate) trait Titled: fmt::Display {
    /// The annotation's title.
    fn title(&self) -> &str;
}

/// A parser's message (a kubeconfig's, a values file's) without the values it quotes: a parse
/// error may quote the very token (`invalid type: string "…", expected struct AuthInfo` for
/// `user: <token>`).
/// Keeps the line, column and the kind of value (serde's `invalid type: string`); drops
/// every quoted (`"…"`, `` `…` ``) span (serde's quotes of values; the YAML scanner's `','`
/// of syntax stay) and the value after `invalid type:` or `invalid value:` up to
/// `, expected`.
pub(crate) fn without_values(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(i) = rest.find(['"', '`']) {
        out.push_str(&rest[..i]);
        out.push_str("(value left out)");
        let quote = &rest[i..=i];
        rest = rest[i + 1..]
            .split_once(quote)
            .map_or("", |(_, after)| after);
    }
    out.push_str(rest);
    for marker in ["invalid type: ", "invalid value: "] {
        if let Some(start) = out.find(marker) {
            let from = start + marker.len();
            let end = (out[from..].find(", expected")).map_or(out.len(), |e| from + e);
            // The kind of value (`string`, `integer`, `map`) is its first word.
            let kind = (out[from..end].split_whitespace().next())
                .filter(|w| w.chars().all(|c| c.is_ascii_alphabetic()))
                .unwrap_or("value")
                .to_string();
            out.replace_range(from..end, &kind);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_keep_only_unreserved_characters() {
        assert_eq!(percent_encode("a-b_c.d~e"), "a-b_c.d~e");
        assert_eq!(
            percent_encode("break glass,x/y%é"),
            "break%20glass%2Cx%2Fy%25%C3%A9"
        );
    }
}
