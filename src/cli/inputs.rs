//! Validation of input values that other stages embed or act on: the runbook's Kubernetes
//! names and hub URL (pasted into bash and Markdown), GitHub's API URL and repository, the
//! tokens, the plain-HTTP registries.
//!
//! Pure: text in, value or [`UsageError`] out: the input, the value as safe to show, and the
//! problem as data (its words are [`crate::render::usage_words`]').

use super::UsageError;
use super::usage::{NameKind, Problem, UrlKind};
use crate::render::messages::RunWarning;
use crate::support::github::Repository;
use crate::support::sanitize::cap;
use crate::support::url::sends_token_in_the_clear;
use std::sync::Arc;

/// A Kubernetes name an input gave, checked ([`namespace`], [`helm_release`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KubeName(pub(crate) String);

/// A Kubernetes namespace name (`--namespace`), trimmed.
///
/// # Errors
/// [`UsageError`] naming `namespace` unless [`NameKind::Namespace`] takes it.
pub(crate) fn namespace(value: &str) -> Result<KubeName, UsageError> {
    kube_name("namespace", NameKind::Namespace, value)
}

/// A Helm release name (`--helm-release`), trimmed.
///
/// # Errors
/// [`UsageError`] naming `helm-release` unless [`NameKind::HelmRelease`] takes it.
pub(crate) fn helm_release(value: &str) -> Result<KubeName, UsageError> {
    kube_name("helm-release", NameKind::HelmRelease, value)
}

/// `value` trimmed, when `kind` takes it; else a [`UsageError`] naming `input`.
fn kube_name(input: &str, kind: NameKind, value: &str) -> Result<KubeName, UsageError> {
    let v = value.trim();
    if kind.takes(v) {
        return Ok(KubeName(v.to_string()));
    }
    let max_chars = kind.max_chars();
    Err(UsageError::of(
        input,
        v,
        Problem::NotAName { kind, max_chars },
    ))
}

/// The hub's base URL (`--hub-url`), trimmed and without a trailing `/`.
///
/// Only characters that are plain in both a bash word and a Markdown code span are taken
/// (letters, digits and `-._~:/%[]+,=`), so the runbook can paste it as it is.
///
/// # Errors
/// [`UsageError`] naming `hub-url` for anything but an `http://` or `https://` URL with a
/// host right after its `://` and without user name, password, query or fragment; the
/// message names the first character refused (whitespace, quotes, backticks and `$` among
/// them). The hub's API or a URL under it (`…/hub/api…`) is refused naming the base to give
/// instead: `status` and the runbook (of `announce` and `docs`) share this check.
pub(crate) fn hub_url(value: &str) -> Result<String, UsageError> {
    let given = value.trim();
    let v = given.trim_end_matches('/');
    crate::support::url::hub_address(v).map_err(|why| {
        let given = shown_url(given);
        UsageError::of("hub-url", given, Problem::BadUrl(UrlKind::Hub, why))
    })?;
    if let Some(base) = crate::status::hub::base_before_api(v) {
        // Certain, so refused before anything is sent or rendered: no hub's address ends in
        // its API's path. (A base ending in `/hub` may be a prefix: `status` suggests that
        // one only once the hub answered 404.)
        return Err(UsageError::of("hub-url", v, Problem::InHubApi { base }));
    }
    Ok(v.to_string())
}

/// GitHub's REST API base URL (`--api-url`), trimmed and without a trailing `/`.
///
/// # Errors
/// [`UsageError`] naming `api-url` for anything but an `http://` or `https://` URL with a
/// host and without user name, password, query or fragment, or holding whitespace, a
/// control or an invisible character after the trim; the URL is shown as given (trimmed),
/// with any credentials, query or fragment in it as `***` (`shown_url`).
pub(crate) fn api_url(value: &str) -> Result<String, UsageError> {
    let given = value.trim();
    let v = given.trim_end_matches('/');
    crate::support::url::api_base(v).map_err(|why| {
        let given = shown_url(given);
        UsageError::of("api-url", given, Problem::BadUrl(UrlKind::Api, why))
    })?;
    Ok(v.to_string())
}

/// Warns ([`RunWarning::PlainHttp`]) when the token in input `token` goes to `url` (input
/// `input`) in the clear ([`crate::support::url::sends_token_in_the_clear`]).
pub(crate) fn warn_if_plain_http(
    log: &crate::support::log::Log,
    input: &str,
    url: &str,
    token: &str,
) {
    if sends_token_in_the_clear(url) {
        let warning = RunWarning::PlainHttp { input, url, token };
        log.warn(&warning);
    }
}

/// The `repository` input, `OWNER/REPO`, trimmed, by GitHub's naming rules
/// ([`Repository::parse`], the rule `GITHUB_REPOSITORY` and the event are read by too), and
/// not ending in `GIT_SUFFIX` (in any case): GitHub removes that from a new repository's
/// name, so such a value is a clone URL's path, naming no repository.
///
/// # Errors
/// [`UsageError`] naming `repository` and the rule broken; for a `.git` ending, the value
/// without it when that is a repository.
pub(crate) fn repository(value: &str) -> Result<Repository, UsageError> {
    let v = value.trim();
    let shown: String = v.chars().take(200).collect();
    let refuse = |problem| UsageError::of("repository", shown.clone(), problem);
    let repository =
        Repository::parse(v).map_err(|why| refuse(Problem::Repository(Arc::new(why))))?;
    let without_suffix = |s: &str| {
        s.len()
            .checked_sub(GIT_SUFFIX.len())
            .filter(|&at| s.is_char_boundary(at) && s[at..].eq_ignore_ascii_case(GIT_SUFFIX))
            .map(|at| s[..at].to_string())
    };
    if let Some(mut name) = without_suffix(v) {
        while let Some(shorter) = without_suffix(&name) {
            name = shorter;
        }
        let without = Repository::parse(&name).is_ok().then_some(name);
        return Err(refuse(Problem::GitSuffix { without }));
    }
    Ok(repository)
}

/// A commit SHA an input gave: 40 hex digits, lower-case ([`crate::context::commit_sha`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommitSha(pub(crate) String);

/// `--sha`, checked ([`crate::context::commit_sha`]).
///
/// # Errors
/// [`UsageError`] naming `sha`.
pub(super) fn commit_sha(text: &str) -> Result<CommitSha, UsageError> {
    crate::context::commit_sha(text)
        .map(CommitSha)
        .map_err(super::usage("sha"))
}

/// A file path an input gave, trimmed (a blank one is unset: [`given_path`]).
///
/// # Errors
/// None: every text is a path.
pub(super) fn path(text: &str) -> Result<std::path::PathBuf, UsageError> {
    Ok(std::path::PathBuf::from(text.trim()))
}

/// `path` when given and not blank.
pub(super) fn given_path(path: Option<&std::path::PathBuf>) -> Option<&std::path::Path> {
    path.map(std::path::PathBuf::as_path)
        .filter(|p| !p.as_os_str().is_empty())
}

/// What a clone URL ends in, and no GitHub repository's name does: GitHub removes a trailing
/// `.git` (in any case) from the name a repository is created with (github/docs issue 44518,
/// "Missing documentation for repository name limits": "Repository names must not end with
/// `.git`"; also line/centraldogma issue 956, showing GitHub's form strip it).
const GIT_SUFFIX: &str = ".git";

/// `text` up to any query (`?`) or fragment (`#`), and what messages show in its place:
/// `?***` or `#***` (it may hold a token), or nothing.
fn hidden_query(text: &str) -> (&str, String) {
    match text.find(['?', '#']) {
        Some(i) => (&text[..i], format!("{}***", &text[i..=i])),
        None => (text, String::new()),
    }
}

/// `url` as messages show it: any user name and password (`user:pw@` before the host) as
/// `***@`, and any query or fragment as `?***` or `#***`, so a credential pasted into a URL
/// is never echoed.
fn shown_url(url: &str) -> String {
    let (url, tail) = hidden_query(url);
    let start = url.find("://").map_or(0, |i| i + 3);
    let authority_end = url[start..].find('/').map_or(url.len(), |i| start + i);
    match url[start..authority_end].rfind('@') {
        Some(at) => format!("{}***{}{tail}", &url[..start], &url[start + at..]),
        None => format!("{url}{tail}"),
    }
}

/// A secret input as a clap value parser: kept as a [`secrecy::SecretString`] from the start, so no
/// `Debug` of the options shows it.
///
/// # Errors
/// None: every text is taken.
pub(crate) fn secret_arg(text: &str) -> Result<secrecy::SecretString, std::convert::Infallible> {
    Ok(secrecy::SecretString::from(text))
}

/// The fewest characters a hub API token can have: JupyterHub 6.1.1 refuses a shorter one
/// (`jupyterhub/orm.py`, `Hashed.min_length = 8`, checked by `Hashed.check_token`), and the
/// tokens it makes are 32 hex characters (`jupyterhub/utils.py`, `new_token` returns
/// `uuid.uuid4().hex`). A shorter value is a mistake, and registering it for redaction would
/// mask its letters in every message (`t` would turn each `t` into `***`).
pub(crate) const HUB_TOKEN_MIN_CHARS: usize = 8;

/// A token input (`hub-token`, `github-token`) trimmed of ASCII whitespace (spaces, tabs,
/// line breaks), then checked to hold only printable ASCII (`'!'..='~'`): what both
/// JupyterHub's and GitHub's tokens are made of, and what an HTTP header carries unchanged.
/// A zero-width space or no-break space left by a copy-paste, or any other non-ASCII
/// character, would be sent as obs-text bytes that a server echoes in another encoding, past
/// the redaction of the token as given. The one check of both token inputs.
///
/// # Errors
/// [`UsageError`] naming `input` and saying to paste the token again; the token is never
/// quoted.
pub(crate) fn token<'a>(input: &str, value: &'a str) -> Result<&'a str, UsageError> {
    let token = value.trim_ascii();
    if token.chars().all(|c| c.is_ascii_graphic()) {
        return Ok(token);
    }
    let control = token
        .chars()
        .any(|c| c.is_ascii_whitespace() || c.is_control());
    Err(UsageError::new(input, Problem::TokenCharacters { control }))
}

/// Whether a `hub-token` value is registered for redaction: not when it is shorter than
/// [`HUB_TOKEN_MIN_CHARS`], as [`hub_token`] refuses it before anything is sent (nothing can
/// echo it), and masking `t` would turn every `t` of that very refusal into `***`.
pub(crate) fn masks_hub_token(value: &str) -> bool {
    value.trim_ascii().chars().count() >= HUB_TOKEN_MIN_CHARS
}

/// The `hub-token` input: a [`token`] of at least [`HUB_TOKEN_MIN_CHARS`] characters.
///
/// # Errors
/// [`UsageError`] naming `hub-token`: the errors of [`token`], or too short (the length is
/// said, the token never quoted).
pub(crate) fn hub_token(value: &str) -> Result<&str, UsageError> {
    let token = token("hub-token", value)?;
    if token.len() < HUB_TOKEN_MIN_CHARS {
        let (chars, min) = (token.len(), HUB_TOKEN_MIN_CHARS);
        return Err(UsageError::new(
            "hub-token",
            Problem::HubTokenShort { chars, min },
        ));
    }
    Ok(token)
}

/// The most characters of an `insecure-registry` entry a message quotes: a longer entry is
/// cut there, ending with `…`, so a pasted file cannot flood the log.
pub(crate) const INSECURE_ENTRY_SHOWN_MAX_CHARS: usize = 100;

/// The registries one `insecure-registry` value lists ([`insecure_value`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Registries(pub(crate) Vec<String>);

/// One `insecure-registry` value as a clap value parser: its entries, checked whole
/// ([`insecure_registries`]), so no credential is split at a comma or echoed.
///
/// # Errors
/// Those of [`insecure_registries`].
pub(super) fn insecure_value(text: &str) -> Result<Registries, UsageError> {
    insecure_registries(&[text.to_string()]).map(Registries)
}

/// The `insecure-registry` entries: each given value split at commas and line breaks (LF, CR
/// or CRLF, the line ends of the runner's .NET `ReadLine`; the Action input is one string, a
/// comma or newline list), trimmed, blanks left out, each checked by [`insecure_registry`].
/// Kept as written: they are compared with the image reference's registry without regard to
/// case (`digest::registry::is_insecure`).
///
/// # Errors
/// [`UsageError`] naming `insecure-registry`:
/// - when any value holds `@`, before any entry is looked at: a user name or password, whose
///   `:`, `/`, `?`, `#`, comma or line break would otherwise split it over entries or hide it
///   from a URL parser. The message names the entry's position only, never any text of the
///   value: credentials go in `registry-username` and `registry-password`.
/// - for the first entry that is not HOST or HOST:PORT ([`insecure_registry`]).
pub(crate) fn insecure_registries(values: &[String]) -> Result<Vec<String>, UsageError> {
    let entries: Vec<&str> = values
        .iter()
        .flat_map(|value| value.split([',', '\r', '\n']))
        .map(str::trim)
        .filter(|entry| !entry.is_empty())
        .collect();
    if values.iter().any(|value| value.contains('@')) {
        let entry = entries.iter().position(|entry| entry.contains('@'));
        let problem = Problem::InsecureCredentials {
            entry: entry.map(|i| i + 1),
        };
        return Err(UsageError::new("insecure-registry", problem));
    }
    entries.into_iter().map(insecure_registry).collect()
}

/// One `insecure-registry` entry: a registry as an image reference names it, HOST or
/// HOST:PORT ([`crate::digest::host::registry`]).
///
/// # Errors
/// [`UsageError`] naming `insecure-registry`, quoting the entry (at most
/// [`INSECURE_ENTRY_SHOWN_MAX_CHARS`] characters, control and invisible characters escaped as
/// `\u{..}`, any query or fragment as `?***`) and saying what to write instead: for
/// `http://localhost:5000`, `give localhost:5000`. An entry holding `@` is refused without
/// being quoted, as [`insecure_registries`] refuses it.
pub(crate) fn insecure_registry(entry: &str) -> Result<String, UsageError> {
    if entry.contains('@') {
        let problem = Problem::InsecureCredentials { entry: None };
        return Err(UsageError::new("insecure-registry", problem));
    }
    crate::digest::host::registry(entry).map_err(|what| {
        UsageError::of(
            "insecure-registry",
            shown_entry(entry),
            Problem::InsecureEntry(what),
        )
    })?;
    Ok(entry.to_string())
}

/// An `insecure-registry` entry as messages quote it: any query or fragment as `?***` or
/// `#***` (it may hold a token), the rest at most [`INSECURE_ENTRY_SHOWN_MAX_CHARS`]
/// characters ([`cap`]); the words escape it ([`crate::render::usage_words::escaped`]).
fn shown_entry(entry: &str) -> String {
    let (head, tail) = hidden_query(entry);
    format!("{}{tail}", cap(head, INSECURE_ENTRY_SHOWN_MAX_CHARS))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::support::sanitize::is_invisible;
    use crate::support::text::Titled as _;

    /// Each of `bad` refused by `check` as a usage error naming `input`, never echoing a
    /// `SECRET` it holds: every case with its message, for one snapshot.
    fn refusals<T: std::fmt::Debug>(
        input: &str,
        bad: &[&str],
        check: impl Fn(&str) -> Result<T, UsageError>,
    ) -> String {
        let told: Vec<String> = bad
            .iter()
            .map(|bad| {
                let err = check(bad).unwrap_err();
                assert_eq!(err.input, input, "{bad:?}");
                assert!(!err.to_string().contains("SECRET"), "{bad:?}: {err}");
                format!("{bad:?}\n  {err}")
            })
            .collect();
        told.join("\n")
    }

    #[test]
    fn kubernetes_names_follow_dns_1123_and_helms_length() {
        for ok in ["jhub", "lab-prod", "a", "x1", &"a".repeat(63)] {
            assert_eq!(namespace(ok).unwrap().0, ok);
        }
        assert_eq!(namespace(" jhub ").unwrap().0, "jhub");
        for bad in [
            "",
            " ",
            "a b; rm -rf /",
            "Lab",
            "-lab",
            "lab-",
            "lab.prod",
            "lab_prod",
            "$(id)",
            &"a".repeat(64),
        ] {
            let err = namespace(bad).unwrap_err();
            assert_eq!(err.input, "namespace", "{bad:?}");
            assert!(err.to_string().contains("DNS-1123"), "{err}");
        }
        for ok in ["jhub", "hub.prod", &"a".repeat(53)] {
            assert_eq!(helm_release(ok).unwrap().0, ok);
        }
        for bad in ["", "Hub", "hub..prod", "hub;x", &"a".repeat(54)] {
            let err = helm_release(bad).unwrap_err();
            assert_eq!(err.input, "helm-release", "{bad:?}");
            assert!(err.to_string().contains("at most 53"), "{err}");
        }
    }

    #[test]
    fn hub_urls_are_plain_http_addresses() {
        for (given, kept) in [
            ("https://hub.example.org", "https://hub.example.org"),
            ("https://hub.example.org/", "https://hub.example.org"),
            (
                " http://10.0.0.5:8000/jupyter/ ",
                "http://10.0.0.5:8000/jupyter",
            ),
            ("http://[::1]:8000", "http://[::1]:8000"),
        ] {
            assert_eq!(hub_url(given).unwrap(), kept);
        }
        for (bad, says) in [
            ("", "is not a URL"),
            ("hub.example.org", "is not a URL"),
            ("ftp://hub.example.org", "http:// or https://"),
            ("https://hub`x`.org", "'`'"),
            ("https://hub.org/$(id)", "'$'"),
            ("https://hub.org/ x", "whitespace"),
            ("https://", "\"https://\" is not a URL"),
            ("https://hub.org/'x'", "'\\''"),
            ("https://hub.org/\"x\"", "'\"'"),
            ("https://hub.org/;rm", "';'"),
            ("https://hub.org/?a=1", "a query"),
            ("https://hub.org/#x", "a fragment"),
            ("https://user@hub.org", "a user name"),
            ("https://user:pw@hub.org/x", "a user name"),
            ("user:pw@hub.org", "a user name"),
            ("http:///path", "has no host"),
            ("https:///x", "has no host"),
            ("http:/path", "has no host"),
            ("http:path", "has no host"),
            ("https://hub.example.org/hub/api", "is in the hub's API"),
        ] {
            let err = hub_url(bad).unwrap_err();
            assert_eq!(err.input, "hub-url");
            assert!(err.to_string().contains(says), "{bad:?}: {err}");
            if bad.contains('@') {
                // The credentials are never echoed: the user info reads ***.
                assert!(!err.to_string().contains("user@"), "{bad:?}: {err}");
                assert!(!err.to_string().contains("user:pw"), "{bad:?}: {err}");
                assert!(err.to_string().contains("***@hub.org"), "{bad:?}: {err}");
            }
        }
    }

    /// A hub URL whose host is missing right after `://` (which the URL parser would read
    /// from the path), or that is the hub's API, is refused with what to write instead:
    /// `status` and the runbook take the same check, in the same words.
    #[test]
    fn a_hub_url_without_a_host_or_in_the_hubs_api_is_refused_saying_what_to_write() {
        let bad = [
            "http:///path",
            "https:///x",
            "http:/path",
            "https://hub.example.org/hub/api",
            "https://hub.example.org/hub/api/",
            "https://example.org/jupyter/hub/api/users",
        ];
        insta::assert_snapshot!(refusals("hub-url", &bad, hub_url));
        for fine in [
            "https://hub.example.org/hub",
            "https://hub.example.org/hub/apis",
        ] {
            assert_eq!(hub_url(fine).unwrap(), fine);
        }
        let err = hub_url("https://hub.example.org/hub/api").unwrap_err();
        assert_eq!(
            err.to_string(),
            hub_url("https://hub.example.org/hub/api")
                .unwrap_err()
                .to_string()
        );
    }

    #[test]
    fn api_urls_are_plain_http_addresses_and_credentials_are_never_echoed() {
        for (given, kept) in [
            ("https://api.github.com", "https://api.github.com"),
            (
                " https://github.example.com/api/v3/ ",
                "https://github.example.com/api/v3",
            ),
            ("http://127.0.0.1:8080", "http://127.0.0.1:8080"),
        ] {
            assert_eq!(api_url(given).unwrap(), kept);
        }
        let bad = [
            "ftp://x",
            "api.github.com",
            "file:///etc/passwd",
            "https://user:SECRET@api.github.com",
            "https://SECRET@api.github.com",
            "https://api.github.com/?access_token=SECRET",
            "https://api.github.com/#SECRET",
            "https://",
            "https:///",
            "https://api.github.com/ x",
            "https://api.github.com/\tx",
            "https://api.git\u{200b}hub.com",
            "https://SECRET@api.github.com/ x",
            "http:///path",
            "https:///x",
            "https:/api.github.com",
            "https:api.github.com",
            "https:\\\\api.github.com",
        ];
        insta::assert_snapshot!(refusals("api-url", &bad, api_url));
    }

    /// Plain HTTP is warned about only where the token leaves loopback, private networks
    /// and the cluster.
    #[test]
    fn a_token_in_the_clear_is_plain_http_to_a_public_host() {
        let clear = [
            "http://hub.example.org",
            "http://api.github.com",
            "http://8.8.8.8:8000",
            "http://[2001:db8::1]",
        ];
        let kept = [
            "https://hub.example.org",
            "http://127.0.0.1:8000",
            "http://localhost",
            "http://10.1.2.3",
            "http://192.168.0.5:8081",
            "http://[::1]:8000",
            "http://[fd00::1]",
            "http://proxy-public",
            "http://proxy-public.jhub.svc",
            "http://proxy-public.jhub.svc.cluster.local:80",
            "http://hub.corp.internal",
            "http://hub.local",
        ];
        for url in clear {
            assert!(sends_token_in_the_clear(url), "{url}");
        }
        for url in kept {
            assert!(!sends_token_in_the_clear(url), "{url}");
        }
        let warning = RunWarning::PlainHttp {
            input: "hub-url",
            url: "http://hub.example.org",
            token: "hub-token",
        };
        insta::assert_snapshot!(format!("{}: {warning}", warning.title()), @"Plain HTTP: hub-url http://hub.example.org is plain http:// to a host outside loopback, private networks and the cluster: hub-token is sent unencrypted to it; use https://, or an address inside the cluster or a private network");
    }

    #[test]
    fn repositories_follow_githubs_naming_rules() {
        let owner_39 = format!("{}/r", "a".repeat(39));
        let name_100 = format!("o/{}", "r".repeat(100));
        // Each given value, and the repository it names (the ends trimmed).
        for (given, named) in [
            ("octo-org/lab", "octo-org/lab"),
            (" o/r ", "o/r"),
            ("a-b-c/x.y_z-1", "a-b-c/x.y_z-1"),
            ("o/.github", "o/.github"),
            ("o/..x", "o/..x"),
            (&owner_39, &owner_39),
            (&name_100, &name_100),
        ] {
            assert_eq!(repository(given).unwrap().to_string(), *named, "{given:?}");
        }
        let owner_40 = format!("{}/r", "a".repeat(40));
        let name_101 = format!("o/{}", "r".repeat(101));
        let bad = [
            "noslash",
            "../x",
            "o/..",
            "o/.",
            "o/",
            "/r",
            "-o/r",
            "o-/r",
            "o--p/r",
            "o_/r",
            "o_p_q/r",
            "o.p/r",
            "o/r/x",
            "o/r x",
            "o/r\u{202e}",
            &owner_40,
            &name_101,
            "o/r.git",
            "o/r.GIT",
            "o/.git",
            "o/r.git.git",
            "o/.git.git",
        ];
        insta::assert_snapshot!(refusals("repository", &bad, repository));
    }

    #[test]
    fn a_query_or_fragment_in_the_hub_url_is_refused_without_echoing_it() {
        let err = hub_url("http://127.0.0.1:1/?token=SECRET").unwrap_err();
        assert_eq!(err.input, "hub-url");
        insta::assert_snapshot!(err.to_string(), @"hub-url (--hub-url) \"http://127.0.0.1:1/?***\" has a query ('?'): the hub's address takes no query or fragment (a token goes in hub-token, never in the URL): write the address users open, e.g. https://hub.example.org");
        for bad in [
            "https://u:pw@hub.org/x?token=SECRET#SECRET",
            "https://hub.org/x#SECRET",
            "https://hub.org?a@SECRET",
            "https://hub.org/$x?SECRET",
        ] {
            let err = hub_url(bad).unwrap_err();
            assert!(
                !err.to_string().contains("SECRET") && !err.to_string().contains("pw"),
                "{bad:?}: {err}"
            );
        }
    }

    /// A host name of 253 characters, the most RFC 1123 allows, in four labels of at most 63.
    fn host_of_253() -> String {
        ["a", "b", "c"].map(|c| c.repeat(63)).join(".") + "." + &"d".repeat(61)
    }

    /// The forms that work: names in any case, IPv4, bracketed IPv6, ports 1 to 65535, and
    /// entries separated by commas and line breaks (LF, CR, CRLF), blanks and spaces around them
    /// left out; a host of 253 characters and a label of 63 at the limits.
    #[test]
    fn insecure_registries_take_hosts_and_ports_between_commas_and_line_breaks() {
        let host_253 = host_of_253();
        let label_63 = format!("{}.test:5000", "a".repeat(63));
        let given = [
            " localhost:5000, 127.0.0.1:5000 \n[::1]:5000\r\n".to_string(),
            "LOCALHOST:5000,,registry.example.edu".to_string(),
            "r:65535, [fe80::1]\r[::1]".to_string(),
            // A lone CR is a line break too (the runner's .NET ReadLine ends a line at it).
            "a\rb\r\n\r\nr:1".to_string(),
            format!("{host_253},{label_63}"),
        ];
        assert_eq!(
            insecure_registries(&given).unwrap(),
            [
                "localhost:5000",
                "127.0.0.1:5000",
                "[::1]:5000",
                "LOCALHOST:5000",
                "registry.example.edu",
                "r:65535",
                "[fe80::1]",
                "[::1]",
                "a",
                "b",
                "r:1",
                &host_253,
                &label_63,
            ]
        );
        assert!(
            insecure_registries(&[" , \n\r\n\r".to_string()])
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn insecure_registries_are_hosts_and_ports_as_image_references_name_them() {
        let bad = [
            "http://localhost:5000",
            "https://registry.example.edu/",
            "http://a..b/",
            "\u{1b}[31m://localhost",
            "localhost:5000/path",
            "localhost:5000/",
            "localhost:5000?x",
            "localhost:99999",
            "localhost:0",
            "localhost:",
            "localhost:http",
            "localhost:05000",
            "localhost:00",
            "localhost:+5000",
            "a b",
            "a\tb",
            "::1",
            "::1:5000",
            "fe80::1",
            "[::1",
            "[::1]x",
            "[fe80::1%eth0]:5000",
            "[1.2.3.4]",
            "::error::x",
            "%0A::error::x",
            "127.1:5000",
            "0x7f.0.0.1:5000",
            "1.2.3.4.5",
            "registry.123",
            "reg_istry:5000",
            "o'neil.test",
            "bücher.example:5000",
            "a%41:5000",
            "local\u{1b}[31mhost",
            "local\u{200b}host:5000",
            "\u{3164}:5000",
            ":5000",
            ".",
            "..",
            "a..b",
            ".a",
            "-a",
            "a-",
            "a.-b.c",
            "localhost.",
            "localhost.:5000",
            // A host of 254 characters, a label of 64, a host of 100,002 (last: see below).
            &format!("{}d", host_of_253()),
            &format!("{}.test:5000", "a".repeat(64)),
            &format!("{}:5000", "a".repeat(100_002)),
        ];
        // Each after a good entry: the list is checked entry by entry.
        let check = |bad: &str| {
            let err = insecure_registries(&[format!("ok.test:1,{bad}")]);
            // No echo floods the log or carries a control or invisible character.
            let message = &err.as_ref().unwrap_err().to_string();
            assert!(message.chars().count() < 1_000, "{}", cap(message, 300));
            assert!(
                !message.chars().any(|c| c.is_control() || is_invisible(c)),
                "{message:?}"
            );
            err
        };
        let table = refusals("insecure-registry", &bad, check);
        // The 100,002 characters of the last entry, as the table names it.
        let long = format!("{:?}", bad[bad.len() - 1]);
        let table = table.replace(&long, "\"aaa…:5000\" (100,007 characters)");
        insta::assert_snapshot!(table);
    }

    #[test]
    fn an_insecure_registry_value_with_an_at_sign_is_refused_whole_and_never_echoed() {
        let leaks = [
            "user:s3cr/et@host",
            "http://user:s3cr/et@host",
            "user:pa,ss@host",
            "user:pa?ss@host",
            "user:pa#ss@host",
            "user:pa\nss@host",
            "user:pa\r\nss@host",
            "localhost:5000,ci:hunter2@localhost:5000",
            "ok.test:1\n http://ci:hunter2@localhost:5000/v2/ ",
            "hunter2@localhost",
            "localhost:5000/@hunter2",
            "user:SECRET@localhost:5000",
        ];
        for value in leaks {
            // As one value (the Action input) and as clap passes it, split at commas.
            let split: Vec<String> = value.split(',').map(String::from).collect();
            for given in [vec![value.to_string()], split] {
                let err = insecure_registries(&given).unwrap_err();
                assert_eq!(err.input, "insecure-registry");
                for part in [
                    "s3cr", "et@", "pa,", "pa?", "pa#", ":pa", "ss@", "hunter2", "user:", "ci:",
                    "SECRET",
                ] {
                    assert!(!err.to_string().contains(part), "{value:?}: {err}");
                }
            }
        }
        let err = insecure_registries(&["localhost:5000,ci:hunter2@localhost:5000".into()]);
        insta::assert_snapshot!(err.unwrap_err().to_string(), @"insecure-registry (--insecure-registry) entry 2 holds '@', as a user name or password does (no part of the value is shown; entries are counted at commas and line breaks): list each registry without credentials, and give the registry's user name and password in registry-username and registry-password (--registry-username, --registry-password); each entry is HOST or HOST:PORT (port 1 to 65535) as the image reference names the registry, e.g. localhost:5000");
    }
}
