//! What can go wrong while resolving a digest, worded so a user can act on it.
//!
//! Each error names the registry and the image, carries the registry's own message where it
//! sent one (HEAD answers have no body, so it comes from the one GET made on the failure
//! path), says which credentials were tried (never the secret) and what to change.

use std::time::Duration;

/// A registry look-up that failed. Callers match on the variant (e.g. to tell a missing tag
/// from a refusal); `Display` is the full sentence for the log.
#[derive(Debug, thiserror::Error)]
pub enum RegistryError {
    /// 404 with `MANIFEST_UNKNOWN` (or any 404 that is not `NAME_UNKNOWN`).
    #[error(
        "tag not found: registry {registry} has no manifest for {image}{}; check that the tag was pushed and that the image input names it",
        said(.message)
    )]
    TagNotFound {
        /// `HOST[:PORT]` of the registry.
        registry: String,
        /// The image reference as given.
        image: String,
        /// The registry's message, e.g. `MANIFEST_UNKNOWN: manifest unknown`.
        message: Option<String>,
    },

    /// 404 with `NAME_UNKNOWN`.
    #[error(
        "repository not found: registry {registry} does not know repository {repository} (image {image}){}; check the image input, and that the credentials can see the repository",
        said(.message)
    )]
    RepositoryNotFound {
        /// `HOST[:PORT]` of the registry.
        registry: String,
        /// The repository path, e.g. `org/lab`.
        repository: String,
        /// The image reference as given.
        image: String,
        /// The registry's message.
        message: Option<String>,
    },

    /// 401 or 403 on the manifest, after the credentials (if any) were presented.
    #[error(
        "registry {registry} refused access to {image} (HTTP {status}{}); {tried}. {fix}",
        said(.message)
    )]
    Denied {
        /// `HOST[:PORT]` of the registry.
        registry: String,
        /// The image reference as given.
        image: String,
        /// 401 or 403.
        status: u16,
        /// The registry's message.
        message: Option<String>,
        /// Which credentials were tried, e.g. `tried Basic credentials of user "ci"`.
        tried: String,
        /// What to change.
        fix: String,
    },

    /// The token endpoint the registry named (its `WWW-Authenticate` realm) refused or failed.
    #[error(
        "authentication to registry {registry} failed: its token endpoint {realm} answered HTTP {status}{}; {tried}. {fix}",
        said(.message)
    )]
    Authentication {
        /// `HOST[:PORT]` of the registry.
        registry: String,
        /// The token endpoint (realm URL, without query).
        realm: String,
        /// The token endpoint's HTTP status (0 when its answer was not a token).
        status: u16,
        /// The token endpoint's message.
        message: Option<String>,
        /// Which credentials were tried.
        tried: String,
        /// What to change.
        fix: String,
    },

    /// No connection could be made (refused, reset, DNS), on every attempt.
    #[error(
        "cannot reach {endpoint} (host {host}, port {port}) after {attempts} attempt(s) over {}: {cause}; check the image's registry name and the runner's network",
        secs(*.elapsed)
    )]
    Unreachable {
        /// `HOST[:PORT]` of the registry.
        registry: String,
        /// What could not be reached: `registry HOST[:PORT]`, or `the token endpoint of
        /// registry HOST[:PORT]`.
        endpoint: String,
        /// Host name or address.
        host: String,
        /// TCP port.
        port: u16,
        /// Requests sent.
        attempts: u32,
        /// Time spent.
        elapsed: Duration,
        /// The last connection error.
        cause: String,
    },

    /// The TLS handshake failed (bad certificate, or a plain-HTTP registry spoken to over
    /// HTTPS). Not retried.
    #[error("TLS failure talking to {host}:{port} (registry {registry}): {cause}{}", insecure_hint(.suggest_insecure, .registry))]
    Tls {
        /// `HOST[:PORT]` of the registry.
        registry: String,
        /// Host name or address.
        host: String,
        /// TCP port.
        port: u16,
        /// The TLS error.
        cause: String,
        /// The host is loopback or private, so `--insecure-registry` is a reasonable fix.
        suggest_insecure: bool,
    },

    /// 429 or 5xx on every attempt, or a `Retry-After` that would end past the deadline.
    #[error(
        "registry {registry} kept failing for {image}: HTTP {status}{} after {attempts} attempt(s) over {}{}; try again later, or raise registry-timeout (--registry-timeout)",
        said(.message), secs(*.elapsed), waited(.retry_after)
    )]
    Unavailable {
        /// `HOST[:PORT]` of the registry.
        registry: String,
        /// The image reference as given.
        image: String,
        /// The last status (429 or 5xx).
        status: u16,
        /// The registry's message.
        message: Option<String>,
        /// Requests sent.
        attempts: u32,
        /// Time spent.
        elapsed: Duration,
        /// The last `Retry-After`, when it asked for a wait past the deadline.
        retry_after: Option<Duration>,
    },

    /// No answer before the deadline (`--registry-timeout`).
    #[error(
        "registry {registry} did not answer for {image} within registry-timeout ({}; {attempts} attempt(s)); raise registry-timeout (--registry-timeout) or check the registry",
        secs(*.timeout)
    )]
    TimedOut {
        /// `HOST[:PORT]` of the registry.
        registry: String,
        /// The image reference as given.
        image: String,
        /// The deadline.
        timeout: Duration,
        /// Requests sent.
        attempts: u32,
    },

    /// The `Docker-Content-Digest` header disagrees with the sha256 of the manifest bytes.
    #[error(
        "registry {registry} sent Docker-Content-Digest {header} for {image}, but the manifest bytes it served hash to {computed}; nothing is announced for a digest the registry contradicts (check the registry or any proxy in front of it)"
    )]
    DigestMismatch {
        /// `HOST[:PORT]` of the registry.
        registry: String,
        /// The image reference as given.
        image: String,
        /// The header's value.
        header: String,
        /// sha256 of the bytes served.
        computed: String,
    },

    /// The registry's digest is not `sha256:<64 lower-case hex>`.
    #[error("registry {registry} answered with an unusable digest for {image}: {source}")]
    InvalidDigest {
        /// `HOST[:PORT]` of the registry.
        registry: String,
        /// The image reference as given.
        image: String,
        /// What was wrong.
        source: crate::digest::InvalidDigest,
    },

    /// Any other answer (e.g. 400, 405, a 3xx loop, a body that cannot be read).
    #[error("registry {registry} gave an unexpected answer for {image}: {detail}")]
    Protocol {
        /// `HOST[:PORT]` of the registry.
        registry: String,
        /// The image reference as given.
        image: String,
        /// What happened, with the status and message.
        detail: String,
    },
}

fn said(message: &Option<String>) -> String {
    match message {
        Some(m) if !m.is_empty() => format!(": the registry said \"{m}\""),
        _ => String::new(),
    }
}

fn secs(d: Duration) -> String {
    format!("{:.1} s", d.as_secs_f64())
}

fn waited(retry_after: &Option<Duration>) -> String {
    match retry_after {
        Some(d) => format!(" (it asked to retry after {}, past the deadline)", secs(*d)),
        None => String::new(),
    }
}

fn insecure_hint(suggest: &bool, registry: &str) -> String {
    if *suggest {
        format!(
            "; if {registry} is a local registry serving plain HTTP, add it to insecure-registry (--insecure-registry {registry})"
        )
    } else {
        "; check the registry's certificate (and the runner's clock and trust store)".to_string()
    }
}

/// Whether `host` (no port) is a loopback or private address, or `localhost`: the only
/// hosts for which `--insecure-registry` is suggested after a TLS failure. Public hosts get
/// no such hint: plain HTTP there would expose the credentials.
pub fn is_loopback_or_private(host: &str) -> bool {
    use std::net::IpAddr;
    let host = host.trim_start_matches('[').trim_end_matches(']');
    if host.eq_ignore_ascii_case("localhost") || host.to_ascii_lowercase().ends_with(".localhost") {
        return true;
    }
    match host.parse::<IpAddr>() {
        Ok(IpAddr::V4(ip)) => ip.is_loopback() || ip.is_private() || ip.is_link_local(),
        Ok(IpAddr::V6(ip)) => {
            ip.is_loopback()
                || (ip.segments()[0] & 0xfe00) == 0xfc00 // unique local fc00::/7
                || (ip.segments()[0] & 0xffc0) == 0xfe80 // link local fe80::/10
        }
        Err(_) => false,
    }
}

/// The registry's own message from an error body: the distribution error envelope
/// (`{"errors":[{"code":"MANIFEST_UNKNOWN","message":"manifest unknown"}]}`) as
/// `CODE: message`, a token endpoint's `{"details": ...}` / `{"error": ...}`, or else the
/// body text. Made safe for one log line and capped at 300 characters. `None` when empty.
pub fn registry_message(body: &[u8]) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Envelope {
        errors: Vec<Entry>,
    }
    #[derive(serde::Deserialize)]
    struct Entry {
        #[serde(default)]
        code: String,
        #[serde(default)]
        message: String,
    }
    let text = if let Ok(envelope) = serde_json::from_slice::<Envelope>(body) {
        envelope
            .errors
            .iter()
            .map(|e| match (e.code.is_empty(), e.message.is_empty()) {
                (false, false) => format!("{}: {}", e.code, e.message),
                (false, true) => e.code.clone(),
                _ => e.message.clone(),
            })
            .collect::<Vec<_>>()
            .join("; ")
    } else if let Ok(serde_json::Value::Object(map)) = serde_json::from_slice(body) {
        ["details", "error_description", "error", "message"]
            .iter()
            .find_map(|k| map.get(*k).and_then(|v| v.as_str()).map(str::to_string))
            .unwrap_or_else(|| String::from_utf8_lossy(body).into_owned())
    } else {
        String::from_utf8_lossy(body).into_owned()
    };
    let line = crate::sanitize::log_line(&text, 300);
    (!line.is_empty()).then_some(line)
}

/// The first error code of a distribution error envelope (`MANIFEST_UNKNOWN`,
/// `NAME_UNKNOWN`, ...), if the body is one.
pub fn error_code(body: &[u8]) -> Option<String> {
    let value: serde_json::Value = serde_json::from_slice(body).ok()?;
    value["errors"][0]["code"].as_str().map(str::to_string)
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

    #[test]
    fn tls_error_hint_depends_on_the_host() {
        let tls = |suggest| RegistryError::Tls {
            registry: "r:5000".into(),
            host: "r".into(),
            port: 5000,
            cause: "invalid peer certificate".into(),
            suggest_insecure: suggest,
        };
        assert!(tls(true).to_string().contains("--insecure-registry r:5000"));
        assert!(!tls(false).to_string().contains("insecure"));
    }

    #[test]
    fn registry_messages_are_read_from_each_body_shape() {
        let envelope = br#"{"errors":[{"code":"MANIFEST_UNKNOWN","message":"manifest unknown","detail":{"Tag":"x"}}]}"#;
        assert_eq!(
            registry_message(envelope).as_deref(),
            Some("MANIFEST_UNKNOWN: manifest unknown")
        );
        assert_eq!(error_code(envelope).as_deref(), Some("MANIFEST_UNKNOWN"));
        assert_eq!(
            registry_message(br#"{"details":"incorrect username or password"}"#).as_deref(),
            Some("incorrect username or password")
        );
        assert_eq!(
            registry_message(b"::error::forged\nline").as_deref(),
            Some("| ::error::forged line")
        );
        assert_eq!(registry_message(b"  "), None);
        assert_eq!(error_code(b"not json"), None);
    }
}
