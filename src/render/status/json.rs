//! The `--json` document: its shape is `docs/status.schema.json` (JSON Schema 2020-12),
//! every field described in docs/status.md; a test validates real outputs against it.

use super::{NAME_MAX_CHARS, StatusFacts};
use crate::status::classify::{Classified, Totals, rfc3339};
use crate::support::sanitize;
use serde::Serialize;

/// Version of the `--json` document's shape (`version`): raised when a field changes
/// meaning or goes.
///
/// 3: a stale active server's `deadline` is the time it is stopped if it goes idle (before,
/// its maximum age or `null`); `in_use_deadline` holds its maximum age.
pub(crate) const JSON_VERSION: u32 = 3;

/// The `--json` document (shape version [`JSON_VERSION`]; field names are stable).
#[derive(Debug, Serialize)]
struct JsonReport<'a> {
    /// [`JSON_VERSION`].
    version: u32,
    /// The hub's base URL.
    hub: &'a str,
    /// The release's image digest, or `null` when measured by `--released-at`.
    digest: Option<&'a str>,
    /// When the release went live (RFC 3339, UTC).
    released_at: String,
    /// When the hub was read (RFC 3339, UTC).
    measured_at: String,
    /// Whether the hub's list changed while it was read.
    shifted: bool,
    /// The counts (times as RFC 3339, UTC, or `null`).
    totals: &'a Totals,
    /// Every running server and every pod the hub does not list, sorted for reading
    /// ([`crate::status::classify::Classification::servers`]).
    servers: Vec<JsonServer<'a>>,
}

/// One server in [`JsonReport::servers`]: the server as classified, flattened (`user` and
/// `server` exactly as the hub gave them, so that a script can map the row back to the user;
/// `started`, `last_activity`, `ready`, `pending`, `state`, `deadline`, `in_use_deadline`,
/// `overdue`, `pod`: see [`Classified`] and [`crate::status::Server`]), and the names for
/// reading.
#[derive(Debug, Serialize)]
struct JsonServer<'a> {
    /// The server, its state and deadline (untrusted names: JSON-escaped, see [`json`]).
    #[serde(flatten)]
    classified: &'a Classified,
    /// The user's name for reading, neutralised as for the log ([`sanitize::log_line`]: one
    /// line, no control or invisible characters, at most [`NAME_MAX_CHARS`], and a word
    /// joiner after any `##` before `[`): may differ from the hub's.
    user_display: String,
    /// The server's name for reading, neutralised likewise; `""` for the default server.
    server_display: String,
}

/// The `--json` text for `facts`: the document pretty-printed, with a final newline, and
/// printable as it is to a terminal and to the Actions log although the raw names are
/// untrusted: on top of serde's escapes (quotes, backslashes, C0 controls), every `#`, C1
/// control, line or paragraph separator and invisible character
/// ([`sanitize::is_invisible`]: bidirectional controls, format characters) is written as a
/// `\uXXXX` escape. A JSON parser reads the exact names back; the log shows no legacy
/// `##[command]` (which the runner reads anywhere in a line), and no text reordered or
/// hidden. A line never starts with `::` (each starts with indentation and a key or a
/// bracket).
pub(crate) fn json(facts: &StatusFacts<'_>) -> String {
    let report = JsonReport {
        version: JSON_VERSION,
        hub: facts.hub_url,
        digest: facts.digest.map(crate::digest::Digest::as_str),
        released_at: rfc3339(facts.released_at),
        measured_at: rfc3339(facts.now),
        shifted: facts.shifted,
        totals: &facts.classification.totals,
        servers: facts
            .classification
            .servers
            .iter()
            .map(|c| JsonServer {
                classified: c,
                user_display: sanitize::log_line(&c.server.user, NAME_MAX_CHARS),
                server_display: sanitize::log_line(&c.server.name, NAME_MAX_CHARS),
            })
            .collect(),
    };
    let text = serde_json::to_string_pretty(&report)
        .expect("the report serialises (strings, numbers and booleans only)");
    let mut out = String::with_capacity(text.len() + 1);
    for c in text.chars() {
        let escape = c == '#'
            || (c.is_control() && c != '\n')
            || matches!(c, '\u{2028}' | '\u{2029}')
            || sanitize::is_invisible(c);
        if escape {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        } else {
            out.push(c);
        }
    }
    out.push('\n');
    out
}
