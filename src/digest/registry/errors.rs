//! What can go wrong while resolving a digest, as data a user can act on, and the registry's
//! own words read from its answers (its error envelope, a token endpoint's message, an HTML
//! page's title).
//!
//! Each error names the registry and the image, carries the registry's own message where it
//! sent one (HEAD answers have no body, so it comes from the one GET made on the failure
//! path) and which credentials were tried (never the secret). Its words, and what to change
//! (chosen by variant), are the render layer's (`crate::render::help`).

use crate::support::secrets::Secrets;
use crate::support::tls::NoTrustRoots;
use std::time::Duration;

/// A registry look-up that failed: the registry and image it was about, and what went wrong.
/// `Display` (the render layer's) is what failed, then what to do.
#[derive(Debug)]
pub struct RegistryError {
    /// `HOST[:PORT]` of the registry.
    pub(crate) registry: String,
    /// The image reference as given.
    pub(crate) image: String,
    /// What went wrong. Callers match on it (e.g. to tell a missing tag from a refusal).
    pub kind: Box<RegistryErrorKind>,
    /// The registry's (or its token endpoint's) own message from the body of the answer the
    /// error is about ([`registry_message`]), e.g. `MANIFEST_UNKNOWN: manifest unknown`;
    /// `None` when no body said anything (a HEAD, a connection failure).
    pub(crate) registry_message: Option<String>,
}

impl RegistryError {
    /// The error `kind` of `registry` and `image`.
    pub(crate) fn new(
        registry: impl Into<String>,
        image: impl Into<String>,
        kind: impl Into<RegistryErrorKind>,
    ) -> Self {
        Self {
            registry: registry.into(),
            image: image.into(),
            kind: Box::new(kind.into()),
            registry_message: None,
        }
    }

    /// This error with the registry's own message from the answer's body.
    pub(crate) fn said(self, registry_message: Option<String>) -> Self {
        Self {
            registry_message,
            ..self
        }
    }
}

/// What went wrong in a [`RegistryError`], by what the user can do about it.
#[derive(Debug)]
pub enum RegistryErrorKind {
    /// The reference cannot be asked for at all (checked before any request).
    Reference(ReferenceProblem),
    /// The registry or its token endpoint refused: a name or the credentials are wrong.
    Access(AccessProblem),
    /// No usable answer came: the registry is unreachable, speaks another protocol, or kept
    /// failing until the deadline.
    Connection(ConnectionProblem),
    /// An answer came that cannot be announced: digests it contradicts, something that is
    /// not a manifest, or an unexpected status.
    Answer(AnswerProblem),
}

/// What is wrong with a reference before any request is sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReferenceProblem {
    /// The registry's port is not a port number (1 to 65535).
    Port {
        /// The port as written.
        port: String,
    },
    /// The digest pin is not `sha256:<64 lower-case hex>`.
    Pin {
        /// The pin as written.
        pin: String,
    },
}

/// A refusal by the registry or its token endpoint.
#[derive(Debug)]
pub enum AccessProblem {
    /// 404 with `MANIFEST_UNKNOWN` (or any 404 that is not `NAME_UNKNOWN`).
    TagNotFound,
    /// 404 with `NAME_UNKNOWN`.
    RepositoryNotFound {
        /// The repository path, e.g. `org/lab`.
        repository: String,
    },
    /// 401 or 403 on the manifest, after the credentials (if any) were presented; or the
    /// token endpoint the registry named (its `WWW-Authenticate` realm) refused or failed.
    Denied {
        /// The token endpoint (realm URL, without query) when it was what refused; `None`
        /// for the registry itself.
        token_endpoint: Option<String>,
        /// The HTTP status: 401 or 403 from the registry, any failure from a token endpoint.
        status: u16,
        /// The repository path, e.g. `org/lab`.
        repository: String,
        /// Which credentials were presented.
        presented: Presented,
    },
}

/// No usable answer from the registry (or its token endpoint).
#[derive(Debug)]
pub enum ConnectionProblem {
    /// No connection could be made (refused, reset, DNS), on every attempt.
    Unreachable {
        /// The token endpoint (realm URL, without query) when it was what failed; `None`
        /// for the registry itself.
        token_endpoint: Option<String>,
        /// `HOST:PORT` connected to.
        address: String,
        /// Requests sent.
        attempts: u32,
        /// Time spent.
        elapsed: Duration,
        /// The last connection error.
        cause: String,
    },
    /// The TLS handshake failed. Not retried. What to do depends on why ([`TlsProblem`]):
    /// `--insecure-registry` is suggested only when the server answered like a plain-HTTP
    /// server and the host is loopback or private; a certificate signed by an unknown CA gets
    /// the trust-store advice instead (plain HTTP would not reach a TLS registry at all).
    Tls {
        /// Host name or address.
        host: String,
        /// TCP port.
        port: u16,
        /// Why the handshake failed.
        problem: TlsProblem,
        /// The host is loopback or private (`crate::support::url::is_loopback_or_private`).
        private: bool,
    },
    /// The registry is listed in `--insecure-registry`, so it was spoken to over plain HTTP,
    /// but it speaks TLS: it answered HTTP 400 with a body such as Go's `Client sent an HTTP
    /// request to an HTTPS server.` or nginx's `The plain HTTP request was sent to HTTPS port`.
    InsecureButTls {
        /// The host is loopback or private (a private CA is then likely).
        private: bool,
    },
    /// 429 or 5xx on every attempt, or a `Retry-After` that would end past the deadline.
    /// After the last failed HEAD one GET is sent, since only a GET answer has a body: the
    /// message is the registry's own (a rate limit's reset time, an outage notice).
    Unavailable {
        /// The last status (429 or 5xx).
        status: u16,
        /// Requests sent for the manifest, every try counted.
        attempts: u32,
        /// Time spent.
        elapsed: Duration,
        /// The registry's `Retry-After`, when that wait (not the backoff) would have ended
        /// past the deadline.
        retry_after: Option<Duration>,
    },
    /// No answer before the deadline (`--registry-timeout`).
    TimedOut {
        /// The token endpoint (realm URL, without query) when it was what failed; `None`
        /// for the registry itself.
        token_endpoint: Option<String>,
        /// The deadline.
        timeout: Duration,
        /// Requests sent in the whole resolution, every try counted (0: the deadline passed
        /// before the first one).
        requests: u32,
    },
}

/// An answer that cannot be announced.
#[derive(Debug)]
pub enum AnswerProblem {
    /// The `Docker-Content-Digest` header disagrees with the sha256 of the manifest bytes.
    DigestMismatch {
        /// The header's value.
        header: String,
        /// sha256 of the bytes served.
        computed: String,
    },
    /// One answer carried several `Docker-Content-Digest` values that differ: the registry
    /// (or a proxy) contradicts itself, and no bytes can settle it on a HEAD.
    ConflictingDigests {
        /// The distinct values, as sent (cleaned for the log).
        digests: Vec<String>,
    },
    /// The reference is pinned to a digest (`@sha256:...`) and the registry answered with
    /// another one: content addressing means it must serve exactly the pinned manifest.
    PinMismatch {
        /// The digest in the reference.
        pinned: String,
        /// The digest the registry answered with.
        answered: String,
        /// Where that digest came from.
        how: DigestSource,
    },
    /// The registry's digest is not `sha256:<64 lower-case hex>`.
    InvalidDigest(crate::digest::InvalidDigest),
    /// The manifest request answered 2xx with something that is not a JSON image index,
    /// manifest list or manifest (a login page, an empty body, broken JSON): its sha256 would
    /// be a well-formed digest of nothing Kubernetes can run.
    NotAManifest {
        /// What came instead, e.g. an HTML page (`Content-Type text/html`).
        what: crate::digest::manifest::NotManifest,
    },
    /// The manifest body was larger than `crate::digest::manifest::MAX_MANIFEST_BYTES`;
    /// reading stopped there.
    ManifestTooLarge {
        /// The limit, in bytes.
        limit: usize,
    },
    /// The registry's `WWW-Authenticate` realm (its token endpoint) is not a URL.
    Realm {
        /// The realm as sent.
        realm: String,
        /// Why it is not a URL.
        cause: url::ParseError,
    },
    /// The token endpoint answered 2xx without a usable token.
    Token {
        /// The token endpoint (realm URL, without query).
        realm: String,
        /// It sent a token, but one that cannot be an HTTP header value (a line break or
        /// another control character); `false`: it sent none.
        sent: bool,
    },
    /// The HTTP client could not be set up: reqwest's error.
    Client(String),
    /// Any other status (e.g. 400, 405, a 3xx loop).
    Status {
        /// The status with its reason, e.g. `405 Method Not Allowed`.
        status: String,
        /// The URL asked.
        url: String,
    },
    /// Any other failure (e.g. a body that cannot be read): reqwest's words.
    Protocol {
        /// What happened.
        detail: String,
    },
}

/// `From` each kind of problem into [`RegistryErrorKind`].
macro_rules! kind_from {
    ($($problem:ident => $kind:ident),*) => {$(
        impl From<$problem> for RegistryErrorKind {
            fn from(problem: $problem) -> Self {
                Self::$kind(problem)
            }
        }
    )*};
}

kind_from!(
    ReferenceProblem => Reference,
    AccessProblem => Access,
    ConnectionProblem => Connection,
    AnswerProblem => Answer
);

impl std::error::Error for RegistryError {}

/// Where the digest a registry answered with came from ([`AnswerProblem::PinMismatch`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DigestSource {
    /// The `Docker-Content-Digest` header of a HEAD answer.
    Header,
    /// The sha256 of the manifest bytes a GET served for the digest.
    ServedBytes,
    /// The sha256 of the bytes a GET served for the image index's children.
    IndexBytes,
}

/// Why a TLS handshake failed, from the `rustls::Error` in the chain (`TlsProblem::of`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TlsProblem {
    /// The server answered the TLS hello with bytes that are not TLS: a plain-HTTP server on
    /// that port (rustls `InvalidMessage`, e.g. `InvalidContentType` for `HTTP/1.1 400`).
    NotTls,
    /// The certificate chains to no CA the runner trusts: a private CA or a self-signed
    /// certificate (`CertificateError::UnknownIssuer`).
    UnknownIssuer,
    /// The certificate does not name the host (`CertificateError::NotValidForName`): the
    /// names it holds, as written in it (empty: it names none), when rustls says.
    WrongName(Option<Vec<String>>),
    /// The certificate is expired (or the runner's clock is wrong).
    Expired,
    /// The certificate is not valid yet (or the runner's clock is wrong).
    NotValidYet,
    /// The certificate is revoked.
    Revoked,
    /// The certificate's signature is invalid.
    BadSignature,
    /// The runner has no trust roots to verify with (`NoTrustRoots`).
    NoTrustRoots,
    /// Another certificate error, as rustls says it.
    Certificate(String),
    /// Anything else (no shared protocol version...), as rustls says it.
    Other(String),
}

impl TlsProblem {
    /// Sorts the rustls error in `err`'s chain ([`find_tls`]; its own text shows debug
    /// forms: `UnknownIssuer`, `IpAddress(127.0.0.1)`); `None` when there is none (a
    /// registry's handshake, an API server's).
    pub(crate) fn of(err: &(dyn std::error::Error + 'static)) -> Option<Self> {
        use rustls::CertificateError as C;
        let certificate = match find_tls(err)? {
            rustls::Error::InvalidMessage(_) => return Some(Self::NotTls),
            rustls::Error::InvalidCertificate(c) => c,
            rustls::Error::Other(e) if e.0.is::<NoTrustRoots>() => return Some(Self::NoTrustRoots),
            other => return Some(Self::Other(other.to_string())),
        };
        Some(match certificate {
            C::UnknownIssuer => Self::UnknownIssuer,
            C::NotValidForNameContext { presented, .. } => Self::WrongName(Some(
                (presented.iter())
                    .map(|n| presented_name(n).to_string())
                    .collect(),
            )),
            C::NotValidForName => Self::WrongName(None),
            C::Expired | C::ExpiredContext { .. } => Self::Expired,
            C::NotValidYet | C::NotValidYetContext { .. } => Self::NotValidYet,
            C::Revoked => Self::Revoked,
            #[allow(deprecated)]
            C::BadSignature => Self::BadSignature,
            other => Self::Certificate(other.to_string()),
        })
    }
}

/// A `rustls::Error` in the chain. `io::Error::source` skips the error it wraps (tokio-rustls
/// wraps the rustls error in an `io::Error`, hyper-util in another), so those are opened with
/// `get_ref`.
fn find_tls<'a>(err: &'a (dyn std::error::Error + 'static)) -> Option<&'a rustls::Error> {
    let wrapped = err
        .downcast_ref::<std::io::Error>()
        .and_then(|io| io.get_ref());
    (err.downcast_ref::<rustls::Error>())
        .or_else(|| wrapped.and_then(|inner| find_tls(inner)))
        .or_else(|| err.source().and_then(find_tls))
}

/// A subject alternative name as webpki's debug form gives it (`DnsName("lab.example")`,
/// `IpAddress(127.0.0.1)`), as written in the certificate.
fn presented_name(name: &str) -> &str {
    name.strip_prefix("DnsName(\"")
        .and_then(|n| n.strip_suffix("\")"))
        .or_else(|| {
            name.strip_prefix("IpAddress(")
                .and_then(|n| n.strip_suffix(')'))
        })
        .unwrap_or(name)
}

/// Which credentials a refused request presented (never the secret): the error names the
/// input to change by it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Presented {
    /// None: no registry-username/registry-password, and not ghcr.io with a github-token.
    Anonymous,
    /// `registry-username` (this user) and `registry-password`.
    RegistryInputs {
        /// The user name.
        username: String,
    },
    /// `github-token` as user `x-access-token` (ghcr.io without registry credentials).
    GitHubToken,
}

/// The registry's own message from an error body: the distribution error envelope
/// (`{"errors":[{"code":"MANIFEST_UNKNOWN","message":"manifest unknown"}]}`) as
/// `CODE: message`, a token endpoint's `{"details": ...}` / `{"error": ...}`, an HTML page as
/// its title (or its text without tags), or else the body text.
///
/// The `secrets` are hidden first, in the text as received, then the text is made safe for one
/// log line and capped at 300 characters (hiding after cleaning would miss a secret whose white
/// space was folded, or a long one cut at the cap). `None` when empty.
pub(crate) fn registry_message(body: &[u8], secrets: &Secrets) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Envelope {
        errors: Vec<Entry>,
    }
    /// One entry of the distribution error envelope: the registry's code and its own words.
    #[derive(serde::Deserialize)]
    struct Entry {
        #[serde(default)]
        code: String,
        #[serde(default, rename = "message")]
        registry_message: String,
    }
    let raw = String::from_utf8_lossy(body);
    let text = if let Ok(envelope) = serde_json::from_slice::<Envelope>(body) {
        envelope
            .errors
            .iter()
            .map(
                |e| match (e.code.is_empty(), e.registry_message.is_empty()) {
                    (false, false) => format!("{}: {}", e.code, e.registry_message),
                    (false, true) => e.code.clone(),
                    _ => e.registry_message.clone(),
                },
            )
            .collect::<Vec<_>>()
            .join("; ")
    } else if let Ok(serde_json::Value::Object(map)) = serde_json::from_slice(body) {
        ["details", "error_description", "error", "message"]
            .iter()
            .find_map(|k| map.get(*k).and_then(|v| v.as_str()).map(str::to_string))
            .unwrap_or_else(|| raw.clone().into_owned())
    } else if looks_like_html(&raw) {
        html_summary(&secrets.redact_echo(&raw))
    } else {
        raw.into_owned()
    };
    let line = crate::support::sanitize::log_line(&secrets.redact_echo(&text), 300);
    let line = secrets.redact_echo(&line);
    (!line.is_empty()).then_some(line)
}

/// Whether a body is an HTML page (a doctype or `<html>` near its start).
fn looks_like_html(text: &str) -> bool {
    let head: String = text.trim_start().chars().take(512).collect();
    let head = head.to_ascii_lowercase();
    head.starts_with("<!doctype html") || head.contains("<html") || head.contains("<head")
}

/// An HTML page in a few words: `HTML page titled '404 Not Found'` from its `<title>`, or its text
/// with tags, scripts and styles removed.
fn html_summary(html: &str) -> String {
    let lower = html.to_ascii_lowercase();
    let title = lower.find("<title").and_then(|start| {
        let open_end = start + lower[start..].find('>')? + 1;
        let close = open_end + lower[open_end..].find("</title")?;
        Some(strip_tags(&html[open_end..close]))
    });
    match title {
        Some(t) if !t.is_empty() => format!("HTML page titled '{t}'"),
        _ => format!("HTML page: {}", strip_tags(html)),
    }
}

/// Text without tags, comments, scripts and styles, with the common entities decoded and
/// white space folded. Only for summarising a page in an error message.
fn strip_tags(html: &str) -> String {
    static MARKUP: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let markup = MARKUP.get_or_init(|| {
        regex::Regex::new(r"(?is)<!--.*?(?:-->|$)|<script\b.*?(?:</script[^>]*>|$)|<style\b.*?(?:</style[^>]*>|$)|<[^>]*(?:>|$)")
            .expect("the markup pattern compiles")
    });
    let mut text = markup.replace_all(html, " ").into_owned();
    for (entity, c) in [
        ("&lt;", "<"),
        ("&gt;", ">"),
        ("&quot;", "\""),
        ("&#39;", "'"),
        ("&nbsp;", " "),
        ("&amp;", "&"),
    ] {
        text = text.replace(entity, c);
    }
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The first error code of a distribution error envelope (`MANIFEST_UNKNOWN`,
/// `NAME_UNKNOWN`, ...), if the body is one.
pub(crate) fn error_code(body: &[u8]) -> Option<String> {
    let value: serde_json::Value = serde_json::from_slice(body).ok()?;
    value["errors"][0]["code"].as_str().map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unusable_digest_is_described_once() {
        let invalid = crate::digest::Digest::parse("sha256:ABC").unwrap_err();
        let err = anyhow::Error::new(RegistryError::new(
            "r",
            "r/lab:latest",
            AnswerProblem::InvalidDigest(invalid),
        ));
        let text = format!("{err:#}");
        assert_eq!(text.matches("is not an image digest").count(), 1, "{text}");
    }

    #[test]
    fn registry_messages_are_read_from_each_body_shape() {
        let none = Secrets::default();
        let envelope = br#"{"errors":[{"code":"MANIFEST_UNKNOWN","message":"manifest unknown","detail":{"Tag":"x"}}]}"#;
        assert_eq!(
            registry_message(envelope, &none).as_deref(),
            Some("MANIFEST_UNKNOWN: manifest unknown")
        );
        assert_eq!(error_code(envelope).as_deref(), Some("MANIFEST_UNKNOWN"));
        assert_eq!(
            registry_message(br#"{"details":"incorrect username or password"}"#, &none).as_deref(),
            Some("incorrect username or password")
        );
        assert_eq!(
            registry_message(b"::error::forged\nline", &none).as_deref(),
            Some("| ::error::forged line")
        );
        assert_eq!(registry_message(b"  ", &none), None);
        assert_eq!(error_code(b"not json"), None);
    }

    #[test]
    fn an_html_page_is_summarised_by_its_title_or_text() {
        let none = Secrets::default();
        let page = b"<!DOCTYPE html>\n<html><head><title>404 Not Found</title><style>h1{}</style></head>\n<body><h1>Not Found</h1><script>var x='<b>';</script></body></html>";
        assert_eq!(
            registry_message(page, &none).as_deref(),
            Some("HTML page titled '404 Not Found'")
        );
        let untitled = b"<html><body><!-- x --><p>Sign in &amp; retry</p></body></html>";
        assert_eq!(
            registry_message(untitled, &none).as_deref(),
            Some("HTML page: Sign in & retry")
        );
    }

    #[test]
    fn secrets_are_hidden_before_the_message_is_cleaned_and_cut() {
        let mut secrets = Secrets::default();
        secrets.add("s3cret\tpass-2024");
        let token = format!("ghs_{}", "Zq9".repeat(150));
        secrets.add(&token);
        let body = format!("password s3cret\tpass-2024 for user ci and token {token} rejected");
        let message = registry_message(body.as_bytes(), &secrets).unwrap();
        assert_eq!(message, "password *** for user ci and token *** rejected");
        let body = format!(r#"{{"details":"{} {token}"}}"#, "x".repeat(290));
        let message = registry_message(body.as_bytes(), &secrets).unwrap();
        assert!(!message.contains("Zq9Zq9"), "{message}");
        let page = "<html><title>bad s3cret\tpass-2024</title></html>";
        let message = registry_message(page.as_bytes(), &secrets).unwrap();
        assert!(
            !message.contains("s3cret") && !message.contains("pass-2024"),
            "{message}"
        );
    }
}
