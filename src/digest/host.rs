//! The registry part of an image reference as a user names it apart (the `insecure-registry`
//! entries): HOST or HOST:PORT, so that it can equal a reference's registry (distribution's
//! reference grammar, [`super::reference`]).
//!
//! Pure: text in, the entries or the problem as data ([`Refused`], [`EntryProblem`]) out,
//! the entry as messages may quote it; the words are `crate::render::usage_words`'.

use crate::support::sanitize::cap;
use crate::support::url::hidden_query;

/// The longest host name, in characters: 253 (RFC 1035 §2.3.4's 255 octets on the wire, as
/// text without the final dot; RFC 1123 §2.1).
const HOST_NAME_MAX_CHARS: usize = 253;
/// The longest label of a host name, in characters (RFC 1035 §2.3.4).
const HOST_LABEL_MAX_CHARS: usize = 63;

/// The most characters of an `insecure-registry` entry a message quotes: a longer entry is
/// cut there, ending with `…`, so a pasted file cannot flood the log.
pub(crate) const ENTRY_SHOWN_MAX_CHARS: usize = 100;

/// The registries one `insecure-registry` value lists ([`registries`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Registries(pub(crate) Vec<String>);

impl Registries {
    /// One `insecure-registry` value's entries ([`registries`]), checked whole, so no
    /// credential is split at a comma.
    ///
    /// # Errors
    /// Those of [`registries`].
    pub(crate) fn parse(value: &str) -> Result<Self, Refused> {
        registries(&[value]).map(Self)
    }
}

/// Why an `insecure-registry` value is refused ([`registries`]).
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

/// The `insecure-registry` entries: each given value split at commas and line breaks (LF, CR
/// or CRLF, the line ends of the runner's .NET `ReadLine`; the Action input is one string, a
/// comma or newline list), trimmed, blanks left out, each checked by [`registry`]. Kept as
/// written: they are compared with the image reference's registry without regard to case
/// (`digest::registry::is_insecure`).
///
/// # Errors
/// - [`Refused::Credentials`] when any value holds `@`, before any entry is looked at: a user
///   name or password, whose `:`, `/`, `?`, `#`, comma or line break would otherwise split it
///   over entries or hide it from a URL parser. It names the entry's position only, never any
///   text of the value: credentials go in `registry-username` and `registry-password`.
/// - [`Refused::Entry`] for the first entry that is not HOST or HOST:PORT, quoted as
///   [`shown_entry`] shows it.
pub(crate) fn registries(values: &[&str]) -> Result<Vec<String>, Refused> {
    let entries: Vec<&str> = (values.iter())
        .flat_map(|value| crate::support::text::list_entries(value))
        .collect();
    if values.iter().any(|value| value.contains('@')) {
        let entry = entries.iter().position(|entry| entry.contains('@'));
        let entry = entry.map(|i| i + 1);
        return Err(Refused::Credentials { entry });
    }
    entries
        .into_iter()
        .map(|entry| match registry(entry) {
            Ok(()) => Ok(entry.to_string()),
            Err(why) => Err(Refused::Entry {
                shown: shown_entry(entry),
                why,
            }),
        })
        .collect()
}

/// An `insecure-registry` entry as messages quote it: any query or fragment as `?***` or
/// `#***` (it may hold a token), the rest at most [`ENTRY_SHOWN_MAX_CHARS`] characters
/// ([`cap`]); the words escape it (`crate::render::usage_words::escaped`), so control and
/// invisible characters read as `\u{..}`.
fn shown_entry(entry: &str) -> String {
    let (head, tail) = hidden_query(entry);
    format!("{}{tail}", cap(head, ENTRY_SHOWN_MAX_CHARS))
}

/// What a registry entry (HOST or HOST:PORT, [`registry`]) breaks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum EntryProblem {
    /// Whitespace inside.
    Whitespace,
    /// A scheme (its name when plain); `authority` the host and port after it, when good.
    Scheme {
        /// The scheme, when it is a plain word.
        scheme: Option<String>,
        /// The host and port after it, when they would be taken.
        authority: Option<String>,
    },
    /// A path, query or fragment; `authority` as for [`EntryProblem::Scheme`].
    MoreThanHostAndPort {
        /// The host and port before it, when they would be taken.
        authority: Option<String>,
    },
    /// `[` without `]`.
    OpenBracket,
    /// More after `]` than `:PORT`.
    AfterBracket,
    /// An IPv6 address without brackets.
    UnbracketedIpv6,
    /// More than one `:`.
    ManyColons,
    /// No host.
    NoHost,
    /// Brackets around something else than an IPv6 address.
    BracketsNotIpv6,
    /// An IPv4 address in a short or non-decimal form; `ip` its usual form.
    ShortIpv4(core::net::Ipv4Addr),
    /// A last label that is a number, not an IPv4 address.
    NumberNotIpv4(url::ParseError),
    /// Not a host name.
    HostName(HostNameProblem),
    /// A bad port after `host:`.
    Port {
        /// The host before the port.
        host: String,
        /// What the port breaks.
        problem: PortProblem,
    },
}

/// What a host name breaks (RFC 1123 §2.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HostNameProblem {
    /// A character a host name cannot hold.
    Character(char),
    /// A final dot.
    FinalDot,
    /// Longer than `max` characters.
    TooLong {
        /// Its length.
        chars: usize,
        /// The most.
        max: usize,
    },
    /// An empty label.
    EmptyLabel,
    /// A label longer than `max` characters.
    LongLabel {
        /// Its length.
        chars: usize,
        /// The most.
        max: usize,
    },
    /// A label starting or ending with `-`.
    HyphenAtEdge,
}

/// What a registry port breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PortProblem {
    /// Nothing after `:`.
    Missing,
    /// Not decimal digits.
    NotDecimal,
    /// 0.
    Zero,
    /// A leading zero.
    LeadingZero,
    /// Above 65535.
    TooHigh,
}

/// Checks `entry` is a registry as an image reference names it, HOST or HOST:PORT:
/// - the host a host name as RFC 1123 §2.1 writes it (labels of 1 to 63 ASCII letters, digits
///   and `-`, not starting or ending with `-`, at most 253 characters, no final dot; the
///   grammar's domain components), an IPv4 address as the `url` crate (WHATWG) reads it and
///   writes it back (so not `127.1` or `0x7f.0.0.1`, which the registry client would rewrite),
///   or an IPv6 address (`std::net::Ipv6Addr`) in brackets;
/// - the port decimal, 1 to 65535, without leading zeros (compared as text, `05000` would not
///   equal a reference's `5000`).
///
/// An entry holding `@` (credentials) is the caller's to refuse before, unquoted.
///
/// # Errors
/// The first [`EntryProblem`] found; for a scheme, path, query or fragment around a good
/// HOST:PORT, that HOST:PORT (what to give instead: for `http://localhost:5000`,
/// `localhost:5000`).
pub(crate) fn registry(entry: &str) -> Result<(), EntryProblem> {
    if entry.contains(char::is_whitespace) {
        return Err(EntryProblem::Whitespace);
    }
    let (scheme, rest) = match entry.split_once("://") {
        Some((scheme, rest)) => (Some(scheme), rest),
        None => (None, entry),
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    // What to give instead: the authority as written, when it would be taken.
    let authority = Some(&rest[..end])
        .filter(|a| registry_authority(a).is_ok())
        .map(str::to_string);
    if let Some(scheme) = scheme {
        let plain = scheme.len() <= 16
            && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'));
        let scheme = plain.then(|| scheme.to_string());
        return Err(EntryProblem::Scheme { scheme, authority });
    }
    if end < rest.len() {
        return Err(EntryProblem::MoreThanHostAndPort { authority });
    }
    registry_authority(entry)
}

/// Checks that `authority` is HOST or HOST:PORT as [`registry`] describes.
fn registry_authority(authority: &str) -> Result<(), EntryProblem> {
    let (host, port) = split_host_port(authority)?;
    registry_host(host)?;
    match port {
        Some(port) => registry_port(host, port),
        None => Ok(()),
    }
}

/// `authority` split into the host (an IPv6 address with its brackets) and the port after
/// `:`, if any.
fn split_host_port(authority: &str) -> Result<(&str, Option<&str>), EntryProblem> {
    if authority.starts_with('[') {
        let Some(close) = authority.find(']') else {
            return Err(EntryProblem::OpenBracket);
        };
        let (host, after) = authority.split_at(close + 1);
        return match after {
            "" => Ok((host, None)),
            _ => match after.strip_prefix(':') {
                Some(port) => Ok((host, Some(port))),
                None => Err(EntryProblem::AfterBracket),
            },
        };
    }
    match authority.split_once(':') {
        None => Ok((authority, None)),
        Some((host, port)) if !port.contains(':') => Ok((host, Some(port))),
        Some(_) => {
            // Brackets are suggested only for what is an IPv6 address, with or without a
            // port after it.
            let ipv6 = |text: &str| text.parse::<std::net::Ipv6Addr>().is_ok();
            if ipv6(authority) || authority.rsplit_once(':').is_some_and(|(a, _)| ipv6(a)) {
                Err(EntryProblem::UnbracketedIpv6)
            } else {
                Err(EntryProblem::ManyColons)
            }
        }
    }
}

/// Checks a host: a bracketed IPv6 address, an IPv4 address as written back by the `url`
/// crate, or an RFC 1123 host name ([`host_name_problem`]).
fn registry_host(host: &str) -> Result<(), EntryProblem> {
    if host.is_empty() {
        return Err(EntryProblem::NoHost);
    }
    if let Some(inside) = host.strip_prefix('[') {
        let inside = inside.strip_suffix(']').unwrap_or(inside);
        if inside.parse::<std::net::Ipv6Addr>().is_ok() {
            return Ok(());
        }
        return Err(EntryProblem::BracketsNotIpv6);
    }
    let problem = host_name_problem(host);
    match url::Host::parse(host) {
        Ok(url::Host::Ipv4(ip)) if ip.to_string() != host => Err(EntryProblem::ShortIpv4(ip)),
        Ok(url::Host::Ipv4(_)) => Ok(()),
        // A last label that is a number makes the text an IPv4 address to the URL parser.
        Err(e) if problem.is_none() => Err(EntryProblem::NumberNotIpv4(e)),
        _ => problem.map_or(Ok(()), |why| Err(EntryProblem::HostName(why))),
    }
}

/// Why `host` is not a host name as RFC 1123 §2.1 writes it (ASCII letters, digits and `-`
/// in labels of 1 to [`HOST_LABEL_MAX_CHARS`], not starting or ending with `-`, joined by
/// single dots, at most [`HOST_NAME_MAX_CHARS`] characters, no final dot); `None` when it is.
fn host_name_problem(host: &str) -> Option<HostNameProblem> {
    let labels = || host.split('.');
    let (chars, max) = (host.len(), HOST_NAME_MAX_CHARS);
    let long_label = labels().find(|l| l.len() > HOST_LABEL_MAX_CHARS);
    if let Some(c) = host
        .chars()
        .find(|&c| !(c.is_ascii_alphanumeric() || c == '-' || c == '.'))
    {
        Some(HostNameProblem::Character(c))
    } else if host.ends_with('.') {
        Some(HostNameProblem::FinalDot)
    } else if chars > max {
        Some(HostNameProblem::TooLong { chars, max })
    } else if labels().any(str::is_empty) {
        Some(HostNameProblem::EmptyLabel)
    } else if let Some(label) = long_label {
        let (chars, max) = (label.len(), HOST_LABEL_MAX_CHARS);
        Some(HostNameProblem::LongLabel { chars, max })
    } else if labels().any(|l| l.starts_with('-') || l.ends_with('-')) {
        Some(HostNameProblem::HyphenAtEdge)
    } else {
        None
    }
}

/// Checks the port after `host:`: decimal digits, 1 to 65535, without leading zeros.
fn registry_port(host: &str, port: &str) -> Result<(), EntryProblem> {
    let problem = if port.is_empty() {
        PortProblem::Missing
    } else if !port.bytes().all(|b| b.is_ascii_digit()) {
        PortProblem::NotDecimal
    } else if port == "0" {
        PortProblem::Zero
    } else if port.starts_with('0') {
        PortProblem::LeadingZero
    } else if port.parse::<u16>().is_err() {
        PortProblem::TooHigh
    } else {
        return Ok(());
    };
    let host = host.to_string();
    Err(EntryProblem::Port { host, problem })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `@` anywhere refuses the list by the entry's position, before any entry is checked;
    /// a bad entry is shown capped, its query hidden.
    #[test]
    fn registries_refuse_credentials_by_position_and_show_a_bad_entry_capped() {
        assert_eq!(registries(&["a:1, b\r\n", "c"]).unwrap(), ["a:1", "b", "c"]);
        assert_eq!(
            registries(&["http://x", "a,u:p@b"]),
            Err(Refused::Credentials { entry: Some(3) })
        );
        let long = format!("{}?t", "a".repeat(200));
        let Err(Refused::Entry { shown, .. }) = registries(&[long.as_str()]) else {
            panic!("not an entry refusal");
        };
        assert_eq!(shown, format!("{}…?***", "a".repeat(99)));
    }
}
