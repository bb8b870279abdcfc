//! The words of [`RegistryError`]: what failed (the registry, the image, the registry's own
//! message, the credentials tried), then what to do, chosen by variant.

use crate::digest::registry::errors::{DigestSource, Presented, RegistryError, TlsProblem};
use std::fmt;
use std::time::Duration;

/// How a registry error's help follows its message: `; HELP`, `. HELP` (the help is
/// sentences) or ` (HELP)`.
#[derive(Clone, Copy)]
enum Joint {
    Semicolon,
    Sentence,
    Parenthesis,
}

impl fmt::Display for RegistryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&message(self))?;
        match help(self) {
            None => Ok(()),
            Some((Joint::Semicolon, help)) => write!(f, "; {help}"),
            Some((Joint::Sentence, help)) => write!(f, ". {help}"),
            Some((Joint::Parenthesis, help)) => write!(f, " ({help})"),
        }
    }
}

/// What failed, with what input, without the fix.
fn message(e: &RegistryError) -> String {
    match e {
        RegistryError::TagNotFound {
            registry,
            image,
            registry_message,
        } => format!(
            "tag not found: registry {registry} has no manifest for {image}{}",
            said(registry_message)
        ),
        RegistryError::RepositoryNotFound {
            registry,
            repository,
            image,
            registry_message,
        } => format!(
            "repository not found: registry {registry} does not know repository {repository} (image {image}){}",
            said(registry_message)
        ),
        RegistryError::Denied {
            registry,
            image,
            status,
            registry_message,
            presented,
            ..
        } => format!(
            "registry {registry} refused access to {image} (HTTP {status}{}); {}",
            said(registry_message),
            tried(presented)
        ),
        RegistryError::Authentication {
            registry,
            realm,
            status,
            registry_message,
            presented,
            ..
        } => format!(
            "authentication to registry {registry} failed: its token endpoint {realm} answered HTTP {status}{}; {}",
            said(registry_message),
            tried(presented)
        ),
        RegistryError::Unreachable {
            registry,
            token_endpoint,
            host,
            port,
            attempts,
            elapsed,
            cause,
        } => format!(
            "cannot reach {} (host {host}, port {port}) after {attempts} attempt(s) over {}: {cause}",
            endpoint(registry, token_endpoint),
            secs(*elapsed)
        ),
        RegistryError::Tls {
            registry,
            host,
            port,
            cause,
            ..
        } => format!("TLS failure talking to {host}:{port} (registry {registry}): {cause}"),
        RegistryError::InsecureButTls {
            registry,
            registry_message,
            ..
        } => format!(
            "registry {registry} is listed in insecure-registry, so it was asked over plain HTTP, but it speaks TLS (HTTPS) on that port (it answered HTTP 400{})",
            said(registry_message)
        ),
        RegistryError::Unavailable {
            registry,
            image,
            status,
            registry_message,
            attempts,
            elapsed,
            retry_after,
        } => format!(
            "registry {registry} kept failing for {image}: HTTP {status}{} after {attempts} attempt(s) over {}{}",
            said(registry_message),
            secs(*elapsed),
            waited(retry_after)
        ),
        RegistryError::TimedOut {
            registry,
            image,
            token_endpoint,
            timeout,
            requests: 0,
        } => format!(
            "registry-timeout ({}) ran out before any request to {} for {image} could be sent",
            secs(*timeout),
            endpoint(registry, token_endpoint)
        ),
        RegistryError::TimedOut {
            registry,
            image,
            token_endpoint,
            timeout,
            requests,
        } => format!(
            "{} did not answer for {image} within registry-timeout ({}; {requests} request(s) sent)",
            endpoint(registry, token_endpoint),
            secs(*timeout)
        ),
        RegistryError::DigestMismatch {
            registry,
            image,
            header,
            computed,
        } => format!(
            "registry {registry} sent Docker-Content-Digest {header} for {image}, but the manifest bytes it served hash to {computed}; nothing is announced for a digest the registry contradicts"
        ),
        RegistryError::ConflictingDigests {
            registry,
            image,
            digests,
        } => format!(
            "registry {registry} named several different digests for {image} in one answer ({}); nothing is announced for a digest the registry contradicts",
            digests.join(", ")
        ),
        RegistryError::PinMismatch {
            registry,
            image,
            pinned,
            answered,
            how,
        } => format!(
            "registry {registry} answered {image} with digest {answered} ({}), but the reference is pinned to {pinned}; a registry must serve exactly the pinned manifest, so nothing is announced",
            match how {
                DigestSource::Header => "its Docker-Content-Digest header",
                DigestSource::ServedBytes => "the sha256 of the manifest bytes it served",
                DigestSource::IndexBytes => "the sha256 of its bytes",
            }
        ),
        RegistryError::InvalidDigest {
            registry,
            image,
            invalid,
        } => format!("registry {registry} answered with an unusable digest for {image}: {invalid}"),
        RegistryError::NotAManifest {
            registry,
            image,
            what,
        } => format!(
            "registry {registry} answered the manifest request for {image} with {what}, not an image index or manifest; nothing is announced for it"
        ),
        RegistryError::ManifestTooLarge {
            registry,
            image,
            limit,
        } => format!(
            "registry {registry} sent more than {} for the manifest of {image}, the most a registry accepts for a manifest (distribution's limit); that is not a manifest, so nothing is announced",
            mib(*limit)
        ),
        RegistryError::InvalidReference { image, problem } => {
            format!("the image reference {image} cannot be used: {problem}")
        }
        RegistryError::Protocol {
            registry,
            image,
            detail,
        } => format!("registry {registry} gave an unexpected answer for {image}: {detail}"),
    }
}

/// What failed to answer: the registry, or the token endpoint it named.
fn endpoint(registry: &str, token_endpoint: &Option<String>) -> String {
    match token_endpoint {
        Some(realm) => format!("the token endpoint {realm} of registry {registry}"),
        None => format!("registry {registry}"),
    }
}

/// What to do, chosen by variant (and, for a TLS failure, by why it failed and whether the
/// host is private; for a refusal, by the credentials tried and the registry's convention);
/// `None` when the message is all there is to say.
fn help(e: &RegistryError) -> Option<(Joint, String)> {
    const CONTRADICTS: &str = "check the registry or any proxy in front of it";
    let help = match e {
        RegistryError::TagNotFound { .. } => (
            Joint::Semicolon,
            "check that the tag was pushed and that the image input names it".to_string(),
        ),
        RegistryError::RepositoryNotFound { .. } => (
            Joint::Semicolon,
            "check the image input, and that the credentials can see the repository".to_string(),
        ),
        RegistryError::Denied {
            registry,
            repository,
            presented,
            ..
        }
        | RegistryError::Authentication {
            registry,
            repository,
            presented,
            ..
        } => (Joint::Sentence, fix(registry, repository, presented)),
        RegistryError::Unreachable { .. } => (
            Joint::Semicolon,
            "check the image's registry name and the runner's network".to_string(),
        ),
        RegistryError::Tls {
            registry,
            host,
            problem,
            private,
            ..
        } => (Joint::Semicolon, tls_help(*problem, *private, registry, host)),
        RegistryError::InsecureButTls {
            registry, private, ..
        } => (
            Joint::Semicolon,
            format!(
                "remove {registry} from insecure-registry (--insecure-registry){}",
                if *private {
                    ". If its certificate comes from a private CA, add the CA certificate to the runner's trust store or set SSL_CERT_FILE to a PEM file holding it"
                } else {
                    ""
                }
            ),
        ),
        RegistryError::Unavailable { .. } => (
            Joint::Semicolon,
            "try again later, or raise registry-timeout (--registry-timeout)".to_string(),
        ),
        RegistryError::TimedOut { requests: 0, .. } => (
            Joint::Semicolon,
            "raise registry-timeout (--registry-timeout), e.g. 60".to_string(),
        ),
        RegistryError::TimedOut { .. } => (
            Joint::Semicolon,
            "raise registry-timeout (--registry-timeout) or check that it is up".to_string(),
        ),
        RegistryError::DigestMismatch { .. }
        | RegistryError::ConflictingDigests { .. }
        | RegistryError::PinMismatch { .. } => (Joint::Parenthesis, CONTRADICTS.to_string()),
        RegistryError::NotAManifest { .. } => (
            Joint::Parenthesis,
            "a login page or a proxy in front of the registry answers like this: check the registry name in the image input".to_string(),
        ),
        RegistryError::ManifestTooLarge { .. } => (
            Joint::Parenthesis,
            "check the image input and any proxy in front of the registry".to_string(),
        ),
        RegistryError::InvalidReference { .. } => {
            (Joint::Semicolon, "fix the image input (--image)".to_string())
        }
        RegistryError::InvalidDigest { .. } | RegistryError::Protocol { .. } => return None,
    };
    Some(help)
}

/// What to do after a failed TLS handshake: `--insecure-registry` only when the server
/// answered like a plain-HTTP server and the host is loopback or private; trust-store advice
/// for an unknown CA (plain HTTP would not reach a TLS registry at all).
fn tls_help(problem: TlsProblem, private: bool, registry: &str, host: &str) -> String {
    const TRUST: &str = "add the CA certificate to the runner's trust store, or set SSL_CERT_FILE to a PEM file holding it (that file replaces the system's CAs: append your CA to a copy of /etc/ssl/certs/ca-certificates.crt)";
    match problem {
        TlsProblem::NotTls if private => format!(
            "the server answered like a plain-HTTP server: if {registry} is a local registry serving plain HTTP, add it to insecure-registry (--insecure-registry {registry})"
        ),
        TlsProblem::NotTls => "the server answered like a plain-HTTP server: check the registry host and port in the image input (plain HTTP is offered only for loopback and private hosts, since it would expose the credentials)".to_string(),
        TlsProblem::UnknownIssuer => format!(
            "the registry speaks TLS with a certificate from a CA the runner does not trust (a private CA or a self-signed certificate): {TRUST}. insecure-registry would not help: it speaks plain HTTP, which a TLS registry refuses"
        ),
        TlsProblem::WrongName => format!(
            "the certificate does not name {host}: write the registry name the certificate was issued for in the image input, or have the certificate reissued with {host} as a subject alternative name"
        ),
        TlsProblem::Expired => "check the certificate's validity dates and the runner's clock".to_string(),
        TlsProblem::Other => "check the registry's certificate (and the runner's clock and trust store)".to_string(),
    }
}

/// Which credentials were tried, for [`RegistryError::Denied`] and
/// [`RegistryError::Authentication`].
fn tried(presented: &Presented) -> String {
    match presented {
        Presented::Anonymous => {
            "tried anonymously (no registry-username/registry-password given)".into()
        }
        Presented::RegistryInputs { username } => {
            format!("tried registry-username {username:?} with registry-password")
        }
        Presented::GitHubToken => "tried the github-token input as user x-access-token (the default for ghcr.io when no registry-username/registry-password is given)".into(),
    }
}

/// What to change after a refusal: the inputs to set, and the registry's own convention for
/// user names where it has one (GHCR, GCR/Artifact Registry, ECR).
fn fix(registry: &str, repository: &str, presented: &Presented) -> String {
    let host = registry.to_ascii_lowercase();
    let convention = if host == "ghcr.io" {
        " For ghcr.io, a workflow's GITHUB_TOKEN needs `permissions: packages: read` and the package must grant this repository access (package settings, Manage Actions access); a personal access token needs read:packages."
    } else if host == "gcr.io" || host.ends_with(".gcr.io") || host.ends_with("-docker.pkg.dev") {
        " For GCR and Artifact Registry, use registry-username oauth2accesstoken with an access token as registry-password."
    } else if host.contains(".dkr.ecr.") {
        " For ECR, use registry-username AWS with the output of `aws ecr get-login-password` as registry-password."
    } else {
        ""
    };
    let what = match presented {
        Presented::Anonymous => format!(
            "Set registry-username and registry-password (--registry-username/--registry-password) to credentials that can pull {repository}."
        ),
        Presented::RegistryInputs { .. } => format!(
            "Check registry-username and registry-password, and that they can pull {repository}."
        ),
        Presented::GitHubToken => format!(
            "Grant the github-token read access to {repository}, or set registry-username and registry-password."
        ),
    };
    format!("{what}{convention}")
}

/// The registry's own message, quoted after what failed; nothing when it sent none.
fn said(message: &Option<String>) -> String {
    match message {
        Some(m) if !m.is_empty() => format!(": the registry said \"{m}\""),
        _ => String::new(),
    }
}

/// A duration for people: `250 ms`, `2.5 s`, `120 s` (whole seconds from 10 s up, so even
/// `u64::MAX` seconds prints exactly).
fn secs(d: Duration) -> String {
    if d < Duration::from_secs(1) {
        format!("{} ms", d.as_millis())
    } else if d < Duration::from_secs(10) && d.subsec_millis() >= 50 {
        format!("{:.1} s", d.as_secs_f64())
    } else {
        format!("{} s", d.as_secs())
    }
}

/// A size in whole MiB.
fn mib(bytes: usize) -> String {
    format!("{} MiB", bytes >> 20)
}

/// The registry's `Retry-After`, when waiting for it would have ended past the deadline.
fn waited(retry_after: &Option<Duration>) -> String {
    match retry_after {
        Some(d) => format!(
            " (it asked to retry after {}, which is past the deadline)",
            secs(*d)
        ),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tls(problem: TlsProblem, private: bool) -> String {
        RegistryError::Tls {
            registry: "r:5000".into(),
            host: "r".into(),
            port: 5000,
            cause: "invalid peer certificate".into(),
            problem,
            private,
        }
        .to_string()
    }

    #[test]
    fn insecure_registry_is_suggested_only_for_a_private_plain_http_server() {
        assert!(tls(TlsProblem::NotTls, true).contains("--insecure-registry r:5000"));
        for (problem, private) in [
            (TlsProblem::NotTls, false),
            (TlsProblem::WrongName, true),
            (TlsProblem::Expired, true),
            (TlsProblem::Other, true),
        ] {
            let text = tls(problem, private);
            assert!(!text.contains("insecure"), "{problem:?}: {text}");
        }
    }

    #[test]
    fn an_unknown_ca_is_answered_with_trust_advice_not_plain_http() {
        let text = tls(TlsProblem::UnknownIssuer, true);
        assert!(text.contains("SSL_CERT_FILE"), "{text}");
        assert!(!text.contains("--insecure-registry"), "{text}");
        assert!(text.contains("insecure-registry would not help"), "{text}");
        let text = tls(TlsProblem::WrongName, true);
        assert!(text.contains("does not name r"), "{text}");
    }

    #[test]
    fn the_fix_names_the_input_and_the_registrys_convention() {
        let user = Presented::RegistryInputs {
            username: "ci".into(),
        };
        assert!(fix("ghcr.io", "org/lab", &user).contains("packages: read"));
        assert!(
            fix("europe-docker.pkg.dev", "p/r/lab", &Presented::Anonymous)
                .contains("oauth2accesstoken")
        );
        assert!(
            fix("r.example", "lab", &Presented::GitHubToken).starts_with("Grant the github-token")
        );
        assert_eq!(
            tried(&user),
            "tried registry-username \"ci\" with registry-password"
        );
    }

    #[test]
    fn durations_read_as_people_write_them() {
        let cases = [
            (Duration::from_millis(1), "1 ms"),
            (Duration::from_millis(300), "300 ms"),
            (Duration::from_secs(1), "1 s"),
            (Duration::from_millis(2500), "2.5 s"),
            (Duration::ZERO, "0 ms"),
            (Duration::from_secs(120), "120 s"),
            (Duration::from_secs(u64::MAX), "18446744073709551615 s"),
        ];
        for (d, shown) in cases {
            assert_eq!(secs(d), shown);
        }
    }

    #[test]
    fn a_timeout_before_any_request_says_so() {
        let err = |requests| {
            RegistryError::TimedOut {
                registry: "r".into(),
                image: "r/lab:latest".into(),
                token_endpoint: None,
                timeout: Duration::from_millis(1),
                requests,
            }
            .to_string()
        };
        assert!(
            err(0).contains("registry-timeout (1 ms) ran out before any request"),
            "{}",
            err(0)
        );
        assert!(err(2).contains("registry r did not answer for r/lab:latest within registry-timeout (1 ms; 2 request(s) sent)"), "{}", err(2));
    }
}
