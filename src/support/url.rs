//! URL rules: what an `http://` or `https://` address with a host is ([`http_url`]), the
//! hub's address ([`hub_url`]) and GitHub's API base ([`api_base`]) the inputs give, how a URL
//! is shown without the credentials or query it may carry ([`shown_url`]), and where a token
//! sent to a URL crosses networks in the clear.
//!
//! The URL grammar is the `url` crate's (the WHATWG URL Standard); the rules added here are
//! ours, each with its reason: no query or fragment and no user name (a token goes in its
//! own input, never in a URL a message may quote); for `hub-url`, only the characters that
//! are plain in a bash word and a Markdown code span (the runbook pastes it into both); for
//! `api-url`, no whitespace, control or invisible character (the parser would drop or encode
//! it and the requests go elsewhere); a host right after `://` (the parser reads
//! `http:///path` as the host `path`); and no port 0 (reserved: it reaches no server).
//!
//! Pure: text in, a value or the problem as data ([`UrlProblem`]) out; the words are the
//! render layer's.

/// What a URL breaks ([`http_url`] and the URL inputs' own checks).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum UrlProblem {
    /// A query (`'?'`, `true`) or fragment (`'#'`).
    QueryOrFragment {
        /// A query, else a fragment.
        query: bool,
    },
    /// A character the runbook's shell commands and Markdown cannot carry.
    Unpasteable(char),
    /// Whitespace, a control or an invisible character.
    Whitespace,
    /// Not a URL.
    NotAUrl(url::ParseError),
    /// Another scheme than http or https.
    NotHttp,
    /// Nothing between `://` and the next `/`.
    NoHost,
    /// A user name or password before the host.
    UserName,
    /// Port 0, which the URL parser takes.
    PortZero,
}

/// A URL refused: the value as messages show it ([`shown_url`]), and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refused {
    /// The value as given (trimmed), any credentials, query or fragment as `***`.
    pub(crate) shown: String,
    /// What it breaks.
    pub(crate) why: UrlProblem,
}

/// The hub's base URL (`hub-url`), trimmed and without a trailing `/`, when [`hub_address`]
/// takes it.
///
/// # Errors
/// [`Refused`]: anything but an `http://` or `https://` URL with a host right after its
/// `://` and without user name, password, query or fragment; the first character refused
/// (whitespace, quotes, backticks and `$` among them).
pub(crate) fn hub_url(value: &str) -> Result<HttpUrl, Refused> {
    base(value, hub_address)
}

/// An `http://` or `https://` URL an input gave ([`hub_url`], [`base`]), checked: the text
/// as given (trimmed, without a trailing `/`), which messages and requests use as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HttpUrl {
    text: String,
}

impl HttpUrl {
    /// The URL as given (trimmed, without a trailing `/`).
    pub(crate) fn as_str(&self) -> &str {
        &self.text
    }
}

/// Whether `url`'s host is a name reserved for documentation (RFC 2606: `example.com`,
/// `example.net`, `example.org`, the names below them, the `.example` top-level domain), as
/// `hub-url`'s default is: it reaches no hub. The one definition `status` and `announce` use.
pub(crate) fn is_placeholder(url: &str) -> bool {
    let url = url::Url::parse(url).ok();
    let host = url.as_ref().and_then(|u| u.host_str()).unwrap_or_default();
    let host = host.trim_end_matches('.');
    ["example.com", "example.net", "example.org", "example"]
        .iter()
        .any(|reserved| host == *reserved || host.ends_with(&format!(".{reserved}")))
}

/// `value` trimmed and without a trailing `/`, when it has no query or fragment (refused
/// before anything else: it may hold a token) and `rule` takes it: the hub's address
/// (`hub-url`, [`hub_url`]) or GitHub's REST API base (`api-url`, [`api_base`]).
///
/// # Errors
/// [`Refused`]: the value as given (trimmed) as messages show it, and why: a query or
/// fragment, or what `rule` refuses.
pub(crate) fn base(
    value: &str,
    rule: fn(&str) -> Result<url::Url, UrlProblem>,
) -> Result<HttpUrl, Refused> {
    let given = value.trim();
    let v = given.trim_end_matches('/');
    let checked = match v.find(['?', '#']) {
        Some(i) => Err(UrlProblem::QueryOrFragment {
            query: v[i..].starts_with('?'),
        }),
        None => rule(v),
    };
    checked.map_err(|why| Refused {
        shown: shown_url(given),
        why,
    })?;
    Ok(HttpUrl {
        text: v.to_string(),
    })
}

/// `text` up to any query (`?`) or fragment (`#`), and what messages show in its place:
/// `?***` or `#***` (it may hold a token), or nothing.
pub(crate) fn hidden_query(text: &str) -> (&str, String) {
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

/// `text` parsed, when it is an `http://` or `https://` URL with a host right after its
/// `://` and a port other than 0; else why not.
///
/// The URL parser follows the WHATWG URL Standard, whose special schemes (`http`, `https`)
/// skip any number of slashes, and backslashes, before the host: it reads `http:///path`,
/// `http:/path` and `http:path` as the host `path`. Those are refused here (nothing
/// between `://` and the next `/`), so no path part becomes the host.
fn http_url(text: &str) -> Result<url::Url, UrlProblem> {
    let url = url::Url::parse(text).map_err(UrlProblem::NotAUrl)?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(UrlProblem::NotHttp);
    }
    let authority = text
        .get(url.scheme().len()..)
        .and_then(|rest| rest.strip_prefix("://"))
        .and_then(|rest| rest.split(['/', '\\']).next());
    if url.host_str().is_none_or(str::is_empty) || authority.is_none_or(str::is_empty) {
        return Err(UrlProblem::NoHost);
    }
    // Port 0 is reserved (IANA): no connection to it succeeds, so every request would fail
    // and be retried until the time runs out. Refused up front, as bad input.
    if url.port() == Some(0) {
        return Err(UrlProblem::PortZero);
    }
    Ok(url)
}

/// `v` (without a query or fragment: [`base`]) as a hub's address that the runbook can paste
/// as it is: an [`http_url`] of only the characters that are plain in both a bash word and a
/// Markdown code span (letters, digits and `-._~:/%[]+,=`; so no user name or password).
///
/// # Errors
/// The first [`UrlProblem`]: the first character refused, then [`http_url`]'s.
fn hub_address(v: &str) -> Result<url::Url, UrlProblem> {
    const PLAIN: &str = "-._~:/%[]+,=";
    if let Some(c) = (v.chars()).find(|c| !(c.is_ascii_alphanumeric() || PLAIN.contains(*c))) {
        return Err(UrlProblem::Unpasteable(c));
    }
    http_url(v)
}

/// `v` (without a query or fragment: [`base`]) as GitHub's REST API base: an [`http_url`]
/// without user name or password, holding no whitespace, control or invisible character (the URL parser would
/// drop a tab or line break and percent-encode a space, so the requests would go to another
/// address than the one given).
///
/// # Errors
/// The first [`UrlProblem`]: whitespace, then [`http_url`]'s, then a user name or password.
pub(crate) fn api_base(v: &str) -> Result<url::Url, UrlProblem> {
    if v.chars()
        .any(|c| c.is_whitespace() || c.is_control() || crate::support::sanitize::is_invisible(c))
    {
        return Err(UrlProblem::Whitespace);
    }
    let url = http_url(v)?;
    if !url.username().is_empty() || url.password().is_some() {
        return Err(UrlProblem::UserName);
    }
    Ok(url)
}

/// Whether a token sent to `url` (checked by the `hub-url` or `api-url` input, `crate::cli`) crosses networks
/// unencrypted: plain `http://` to a host that is not loopback, a private or link-local
/// address, `localhost`, a single-label name (`proxy-public`) or a name of the cluster or the
/// local network (`.svc`, `.cluster.local`, `.local`, `.internal`, `.lan`, `.home.arpa`).
/// A hub reached inside its cluster over plain HTTP is a usual setup (z2jh's `proxy-public`
/// service), so this is a warning (`RunWarning::PlainHttp`), not a refusal.
pub(crate) fn sends_token_in_the_clear(url: &str) -> bool {
    const LOCAL: [&str; 6] = [
        ".svc",
        ".cluster.local",
        ".local",
        ".internal",
        ".lan",
        ".home.arpa",
    ];
    let Ok(url) = url::Url::parse(url) else {
        return false;
    };
    let local = match url.host() {
        _ if url.scheme() != "http" => true,
        None => true,
        Some(url::Host::Domain(name)) => {
            let name = name.to_ascii_lowercase();
            name == "localhost"
                || !name.contains('.')
                || LOCAL.iter().any(|suffix| name.ends_with(suffix))
        }
        Some(ip) => is_loopback_or_private(&ip.to_string()),
    };
    !local
}

/// Whether `host` (no port) is a loopback or private address, or `localhost`: the only
/// hosts for which `--insecure-registry` is suggested after a TLS failure. Public hosts get
/// no such hint: plain HTTP there would expose the credentials.
pub(crate) fn is_loopback_or_private(host: &str) -> bool {
    use core::net::IpAddr;
    let host = host.trim_start_matches('[').trim_end_matches(']');
    if host.eq_ignore_ascii_case("localhost") || host.to_ascii_lowercase().ends_with(".localhost") {
        return true;
    }
    match host.parse::<IpAddr>() {
        Ok(IpAddr::V4(ip)) => ip.is_loopback() || ip.is_private() || ip.is_link_local(),
        // Unique local fc00::/7, link local fe80::/10.
        Ok(IpAddr::V6(ip)) => {
            ip.is_loopback() || ip.is_unique_local() || ip.is_unicast_link_local()
        }
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insecure_registry_is_suggested_only_for_loopback_and_private_hosts() {
        for host in [
            "127.0.0.1",
            "localhost",
            "registry.localhost",
            "10.1.2.3",
            "192.168.1.10",
            "172.16.0.5",
            "::1",
            "[::1]",
            "fd00::5",
        ] {
            assert!(is_loopback_or_private(host), "{host}");
        }
        for host in ["ghcr.io", "8.8.8.8", "registry.example.org", "2001:db8::1"] {
            assert!(!is_loopback_or_private(host), "{host}");
        }
    }

    /// The URL inputs come back trimmed and without a trailing `/`; a refusal shows the
    /// value without its credentials, query or fragment.
    #[test]
    fn url_inputs_are_trimmed_and_refusals_show_no_credentials() {
        assert_eq!(
            hub_url(" https://hub.org/x/ ").unwrap().as_str(),
            "https://hub.org/x"
        );
        assert_eq!(
            base("http://127.0.0.1:8080/", api_base).unwrap().as_str(),
            "http://127.0.0.1:8080"
        );
        let refused = base(" https://u:pw@api.github.com/x?t=1 ", api_base).unwrap_err();
        assert_eq!(refused.shown, "https://***@api.github.com/x?***");
        assert_eq!(refused.why, UrlProblem::QueryOrFragment { query: true });
        let refused = hub_url("https://hub.org/#SECRET").unwrap_err();
        assert_eq!(refused.shown, "https://hub.org/#***");
    }
}
