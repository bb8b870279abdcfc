//! The registry part of an image reference as a user names it apart (the `insecure-registry`
//! entries): HOST or HOST:PORT, so that it can equal a reference's registry.
//!
//! The grammar is distribution's reference grammar, as [`super::reference::parse`] reads image
//! references (an entry is a registry when `ENTRY/x` names the registry `ENTRY`); the rules
//! added here are ours: no credentials (a value holding `@` is refused and never echoed), a
//! scheme, path, query or fragment named as such with the HOST:PORT to give instead, and a
//! port of 1 to 65535 without leading zeros (the grammar takes any digits; a URL takes no
//! more, and the entry is compared as text), a host of at most 253 characters (DNS's limit,
//! which the grammar does not set).
//!
//! Pure: text in, the entries or the problem as data ([`Refused`], [`EntryProblem`]) out,
//! the entry as messages may quote it; the words are `crate::render::usage_words`'.

use crate::support::sanitize::cap;
use crate::support::url::hidden_query;

/// The longest host name, in characters: 253 (RFC 1035 §2.3.4's 255 octets on the wire, as
/// text without the final dot; RFC 1123 §2.1), which the reference grammar does not bound.
const HOST_MAX_CHARS: usize = 253;

/// The most characters of an `insecure-registry` entry a message quotes: a longer entry is
/// cut there, ending with `…`, so a pasted file cannot flood the log.
pub(crate) const ENTRY_SHOWN_MAX_CHARS: usize = 60;

/// The registries one `insecure-registry` value lists ([`Registries::parse`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Registries(pub(crate) Vec<String>);

/// Why an `insecure-registry` value is refused ([`Registries::parse`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Refused {
    /// A value holds `@`, at the 1-based entry `entry` when known: no text of it is shown.
    Credentials {
        /// The position of the first entry holding `@`.
        entry: Option<usize>,
    },
    /// An entry that is not HOST or HOST:PORT ([`registry`]).
    Entry {
        /// The entry as messages quote it ([`shown_entry`]).
        shown: String,
        /// What it breaks.
        why: EntryProblem,
    },
}

impl Registries {
    /// One `insecure-registry` value's entries, checked whole, so no credential is split at
    /// a comma: split at commas and line breaks ([`crate::support::text::list_entries`]: the
    /// Action input is one string), trimmed, blanks left out, each checked by [`registry`].
    /// Kept as written: they are compared with the image reference's registry without regard
    /// to case (`digest::registry::is_insecure`).
    ///
    /// # Errors
    /// - [`Refused::Credentials`] when the value holds `@`, before any entry is looked at: a
    ///   user name or password, whose `:`, `/`, `?`, `#`, comma or line break would otherwise
    ///   split it over entries. It names the entry's position only, never any text of the value.
    /// - [`Refused::Entry`] for the first entry that is not HOST or HOST:PORT.
    pub(crate) fn parse(value: &str) -> Result<Self, Refused> {
        let entries: Vec<&str> = crate::support::text::list_entries(value).collect();
        if value.contains('@') {
            let entry = entries.iter().position(|entry| entry.contains('@'));
            let entry = entry.map(|i| i + 1);
            return Err(Refused::Credentials { entry });
        }
        let checked = entries.into_iter().map(|entry| match registry(entry) {
            Ok(()) => Ok(entry.to_string()),
            Err(why) => Err(Refused::Entry {
                shown: shown_entry(entry),
                why,
            }),
        });
        checked.collect::<Result<_, _>>().map(Self)
    }
}

/// An `insecure-registry` entry as messages quote it: any query or fragment as `?***` or
/// `#***` (it may hold a token), the rest at most [`ENTRY_SHOWN_MAX_CHARS`] characters
/// ([`cap`]); the words escape it, so control and invisible characters read as `\u{..}`.
fn shown_entry(entry: &str) -> String {
    let (head, tail) = hidden_query(entry);
    format!("{}{tail}", cap(head, ENTRY_SHOWN_MAX_CHARS))
}

/// What a registry entry (HOST or HOST:PORT, [`registry`]) breaks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum EntryProblem {
    /// A scheme (`://`), path, query or fragment around the host; `authority` the HOST:PORT
    /// in it, when that is a registry.
    Around {
        /// The HOST:PORT to give instead, when it would be taken.
        authority: Option<String>,
    },
    /// Not a registry as an image reference names one ([`is_registry`]).
    NotARegistry,
}

/// Checks `entry` is a registry as an image reference names it ([`is_registry`]). An entry
/// holding `@` (credentials) is the caller's to refuse before, unquoted.
///
/// # Errors
/// [`EntryProblem::Around`] for a scheme, path, query or fragment (with the HOST:PORT they
/// surround, when good: for `http://localhost:5000`, `localhost:5000`), else
/// [`EntryProblem::NotARegistry`].
pub(crate) fn registry(entry: &str) -> Result<(), EntryProblem> {
    let rest = entry.split_once("://").map_or(entry, |(_, rest)| rest);
    let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    match (authority.len() == entry.len(), is_registry(authority)) {
        (true, true) => Ok(()),
        (true, false) => Err(EntryProblem::NotARegistry),
        (false, good) => Err(EntryProblem::Around {
            authority: good.then(|| authority.to_string()),
        }),
    }
}

/// Whether `text` is a registry as an image reference names it: the registry of the
/// reference `TEXT/x` is `TEXT` (distribution's grammar and its `splitDockerDomain`: labels
/// of ASCII letters, digits and `-` joined by dots, holding a dot or a port or being
/// `localhost`, else the text reads as a Docker Hub path), a host of at most
/// [`HOST_MAX_CHARS`], with a port, if any, of 1 to 65535 written without leading zeros (the
/// entry is compared as text: `05000` never equals a reference's `5000`).
fn is_registry(text: &str) -> bool {
    let (host, port) = text
        .rsplit_once(':')
        .map_or((text, None), |(h, p)| (h, Some(p)));
    let port = port.map(|text| (text, text.parse::<u16>()));
    host.len() <= HOST_MAX_CHARS
        && port.is_none_or(|(text, port)| port.is_ok_and(|p| p > 0 && p.to_string() == text))
        && super::reference::parse(&format!("{text}/x")).is_ok_and(|r| r.registry() == text)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `@` anywhere refuses the list by the entry's position, before any entry is checked;
    /// a bad entry is shown capped, its query hidden.
    #[test]
    fn registries_refuse_credentials_by_position_and_show_a_bad_entry_capped() {
        assert_eq!(
            Registries::parse("a:1, b.c\r\nlocalhost").unwrap().0,
            ["a:1", "b.c", "localhost"]
        );
        assert_eq!(
            Registries::parse("http://x\na,u:p@b"),
            Err(Refused::Credentials { entry: Some(3) })
        );
        let long = format!("{}?t", "a".repeat(200));
        let Err(Refused::Entry { shown, .. }) = Registries::parse(&long) else {
            panic!("not an entry refusal");
        };
        assert_eq!(shown, format!("{}…?***", "a".repeat(59)));
    }
}
