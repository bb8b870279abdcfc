//! The words of the digest's errors: [`RegistryError`] (what failed, with the registry and
//! the image, on the first line; then the facts and the registry's own message as causes, and
//! what to do, naming the credentials tried, chosen by the kind of problem), [`LayoutError`] (an OCI layout's), what a
//! body is instead of a manifest ([`NotManifest`]), [`NoTrustRoots`] and [`DigestMoved`].

use crate::digest::layout::LayoutError;
use crate::digest::manifest::{Body, NotManifest};
use crate::digest::registry::errors::{
    AccessProblem, AnswerProblem, ConnectionProblem, DigestSource, Presented, ReferenceProblem,
    RegistryError, RegistryErrorKind, TlsProblem,
};
use crate::digest::{DigestMoved, InvalidDigest};
use crate::render::words::{Words, input_name};
use crate::support::files::ReadError;
use crate::support::tls::NoTrustRoots;
use std::time::Duration;

crate::render::words::words_display!(
    RegistryError => |e| words(e, false),
    DigestMoved => moved_words,
    LayoutError => layout_words,
);

/// A registry error in words: what failed, with the registry and the image; then the facts
/// behind it and what the registry or the connection said (`caused by:`), and what to do,
/// chosen by the kind of problem, naming the inputs as [`input_name`] does (`in_actions`).
pub(crate) fn words(e: &RegistryError, in_actions: bool) -> Words {
    let (registry, image) = (e.registry.as_str(), e.image.as_str());
    let mut words = match &*e.kind {
        RegistryErrorKind::Reference(problem) => {
            let (what, help) = reference_words(image, problem, in_actions);
            Words::new(what).help(help)
        }
        RegistryErrorKind::Access(problem) => access_words(registry, image, problem, in_actions),
        RegistryErrorKind::Connection(problem) => {
            connection_words(registry, image, problem, in_actions)
        }
        RegistryErrorKind::Answer(problem) => answer_words(registry, image, problem),
    };
    words.causes.extend(cause(e));
    words
}

/// What the registry or the connection said, shown as the last cause: the registry's own
/// message, or why the last attempt to connect failed; `None` when there is neither.
fn cause(e: &RegistryError) -> Option<String> {
    if let RegistryErrorKind::Connection(ConnectionProblem::Unreachable {
        address, cause, ..
    }) = &*e.kind
    {
        return Some(format!(
            "the last attempt to connect to {address} failed: {cause}"
        ));
    }
    let said = e.registry_message.as_deref().filter(|m| !m.is_empty())?;
    Some(format!("the registry said \"{said}\""))
}

/// An unusable reference: what is wrong with it, and how to write it (naming the image input
/// as [`input_name`] does).
pub(crate) fn reference_words(
    image: &str,
    problem: &ReferenceProblem,
    in_actions: bool,
) -> (String, String) {
    let input = input_name("image", None, in_actions);
    match problem {
        ReferenceProblem::Port { port } => (
            format!(
                "the registry port {port:?} of image {image} is not a port number (1 to 65535)"
            ),
            format!("fix the port in {input}"),
        ),
        ReferenceProblem::Pin { pin } => (
            format!("the digest pin {pin} is not sha256: followed by 64 lower-case hex digits"),
            format!(
                "fix the pin in {input}: write it as `docker buildx imagetools inspect` prints it"
            ),
        ),
    }
}

/// A refusal: what the registry did not find or allow; then its message, and the inputs to
/// change (naming the credentials tried).
fn access_words(registry: &str, image: &str, problem: &AccessProblem, in_actions: bool) -> Words {
    match problem {
        AccessProblem::TagNotFound => Words::new(format!(
            "tag not found: registry {registry} has no manifest for {image}"
        ))
        .help("check that the tag was pushed and that the image input names it"),
        AccessProblem::RepositoryNotFound { repository, .. } => Words::new(format!(
            "repository not found: registry {registry} does not know repository {repository} \
             (image {image})"
        ))
        .help("check the image input, and that the credentials can see the repository"),
        AccessProblem::Denied {
            token_endpoint,
            status,
            repository,
            presented,
            ..
        } => Words::new(match token_endpoint {
            None => format!("registry {registry} refused access to {image} (HTTP {status})"),
            Some(realm) => format!(
                "authentication to registry {registry} failed: its token endpoint {realm} \
                 answered HTTP {status}"
            ),
        })
        .help(refused(registry, repository, presented, in_actions)),
    }
}

/// No usable answer: what could not be reached, and how long was tried; then why, and what
/// to change (for a TLS failure, chosen by why it failed and whether the host is private).
fn connection_words(
    registry: &str,
    image: &str,
    problem: &ConnectionProblem,
    in_actions: bool,
) -> Words {
    let raise = input_name("registry-timeout", None, in_actions);
    let (what, help) = match problem {
        ConnectionProblem::Unreachable {
            token_endpoint,
            attempts,
            elapsed,
            ..
        } => (
            format!(
                "cannot reach {} after {attempts} attempt(s) over {}",
                endpoint(registry, token_endpoint),
                secs(*elapsed)
            ),
            "check the image's registry name and the runner's network".into(),
        ),
        ConnectionProblem::Tls {
            host,
            port,
            problem,
            private,
        } => (
            format!(
                "TLS failure talking to {host}:{port} (registry {registry}): {}",
                tls_cause(problem)
            ),
            tls_help(problem, *private, registry, host, in_actions),
        ),
        ConnectionProblem::InsecureButTls { private, .. } => (
            format!(
                "registry {registry} is in insecure-registry, but it speaks TLS: it answered \
                 plain HTTP with HTTP 400"
            ),
            insecure_but_tls(registry, *private, in_actions),
        ),
        ConnectionProblem::Unavailable {
            status,
            attempts,
            elapsed,
            retry_after,
            ..
        } => {
            let what = format!(
                "registry {registry} kept failing for {image}: HTTP {status} after {attempts} \
                 attempt(s) over {}",
                secs(*elapsed)
            );
            let waited = retry_after
                .map(|d| format!("it asked to retry after {}, past the deadline", secs(d)));
            let help = format!("try again later, or raise {raise}");
            return caused(what, waited, &help);
        }
        ConnectionProblem::TimedOut {
            token_endpoint,
            timeout,
            requests: 0,
        } => (
            format!(
                "registry-timeout ({}) ran out before any request to {} for {image} could be sent",
                secs(*timeout),
                endpoint(registry, token_endpoint)
            ),
            format!("raise {raise}, e.g. 60"),
        ),
        ConnectionProblem::TimedOut {
            token_endpoint,
            timeout,
            requests,
        } => (
            format!(
                "{} did not answer for {image} within registry-timeout ({}; {requests} request(s) \
                 sent)",
                endpoint(registry, token_endpoint),
                secs(*timeout)
            ),
            format!("raise {raise} or check that it is up"),
        ),
    };
    Words::new(what).help(help)
}

/// An answer that cannot be announced: what came; then the facts, and where to look.
fn answer_words(registry: &str, image: &str, problem: &AnswerProblem) -> Words {
    const CHECK: &str = "check the registry, any proxy in front of it, and the registry name \
                         in the image input: nothing is announced from an answer like this";
    const TOKENS: &str = "check the registry's token service";
    let unexpected = || format!("registry {registry} gave an unexpected answer for {image}");
    let (what, fact, help) = match problem {
        AnswerProblem::DigestMismatch { header, computed } => (
            format!("registry {registry} contradicts itself on the digest of {image}"),
            format!(
                "it sent Docker-Content-Digest {header}, but the manifest bytes it served hash \
                 to {computed}"
            ),
            CHECK,
        ),
        AnswerProblem::ConflictingDigests { digests } => (
            format!(
                "registry {registry} named several different digests for {image} in one answer"
            ),
            format!("it sent {}", digests.join(", ")),
            CHECK,
        ),
        AnswerProblem::PinMismatch {
            pinned,
            answered,
            how,
        } => (
            format!("registry {registry} answered {image} with another digest than its pin"),
            pin_mismatch(pinned, answered, *how),
            CHECK,
        ),
        AnswerProblem::InvalidDigest(InvalidDigest(digest)) => (
            format!("registry {registry} answered with an unusable digest for {image}"),
            format!(
                "{digest:?} is not an image digest: expected sha256: followed by 64 lower-case \
                 hex digits"
            ),
            CHECK,
        ),
        AnswerProblem::NotAManifest { what } => (
            format!(
                "registry {registry} answered the manifest request for {image} with no manifest"
            ),
            format!(
                "it sent {}, not an image index or manifest, as a login page or a proxy in \
                 front of the registry does",
                not_manifest(what)
            ),
            CHECK,
        ),
        AnswerProblem::ManifestTooLarge { limit } => (
            format!(
                "registry {registry} sent more than {} MiB for the manifest of {image}",
                limit >> 20
            ),
            "that is more than a registry accepts for a manifest (distribution's limit)".into(),
            CHECK,
        ),
        AnswerProblem::Status { status, url, .. } => {
            (unexpected(), format!("HTTP {status} from {url}"), CHECK)
        }
        AnswerProblem::Protocol { detail } => (unexpected(), detail.clone(), CHECK),
        AnswerProblem::Realm { realm, cause } => (
            unexpected(),
            format!("its WWW-Authenticate realm {realm:?} is not a URL ({cause})"),
            TOKENS,
        ),
        AnswerProblem::Token { realm, sent } => (
            format!(
                "authentication to registry {registry} failed: its token endpoint {realm} sent \
                 no usable token"
            ),
            match sent {
                true => {
                    "the token it sent is not a valid HTTP header value (it holds a line \
                         break or another control character)"
                }
                false => "its answer holds no token",
            }
            .into(),
            TOKENS,
        ),
        AnswerProblem::Client(cause) => {
            let what = format!("cannot set up the HTTP client for registry {registry}");
            return Words::new(what).because(cause);
        }
    };
    caused(what, fact, help)
}

/// `what` failed, caused by `cause` when there is one; `help` says what to do.
fn caused(what: String, cause: impl Into<Option<String>>, help: &str) -> Words {
    let causes = cause.into().into_iter().collect();
    Words {
        causes,
        ..Words::new(what).help(help)
    }
}

/// Why no digest was read from an OCI image layout: what failed, with the file; then why,
/// and what to write instead (a tag it has) or that the layout is corrupt.
pub(crate) fn layout_words(e: &LayoutError) -> Words {
    const COPY: &str = "skopeo copy ... oci:DIR:TAG";
    let again = format!("copy the image to the layout again ({COPY}): it is corrupt");
    let corrupt = |what, cause: Option<String>| caused(what, cause, &again);
    let write = format!(
        "write the directory the OCI image layout was copied to ({COPY}), relative to the \
         working directory, or a registry reference"
    );
    let index = |dir: &std::path::Path| dir.join("index.json").display().to_string();
    match e {
        LayoutError::Missing(dir) => {
            Words::new(format!("no OCI image layout directory {}", dir.display())).help(write)
        }
        LayoutError::NotADirectory(dir) => {
            Words::new(format!("{} is not a directory", dir.display())).help(write)
        }
        LayoutError::Index(dir, ReadError::TooLarge { cap, .. }) => Words::new(format!(
            "{} is larger than {} MiB: not an OCI image layout index",
            index(dir),
            cap >> 20
        ))
        .help(write),
        LayoutError::Index(dir, cause) => {
            Words::new(format!("cannot read {} ({cause})", index(dir))).help(format!(
                "check that {} is an OCI image layout ({COPY})",
                dir.display()
            ))
        }
        LayoutError::IndexInvalid(dir, cause) => corrupt(
            format!("{} is not an OCI image index", index(dir)),
            Some(cause.to_string()),
        ),
        LayoutError::InvalidDigest(dir, digest) => corrupt(
            format!(
                "{} names {digest:?}, which is not an image digest",
                index(dir)
            ),
            Some("a digest is sha256: followed by 64 lower-case hex digits".into()),
        ),
        LayoutError::Blob(path, ReadError::TooLarge { cap, .. }) => corrupt(
            format!(
                "the manifest blob {} is larger than {} MiB",
                path.display(),
                cap >> 20
            ),
            Some("that is the most a registry accepts for a manifest".into()),
        ),
        LayoutError::Blob(path, cause) => corrupt(
            format!("cannot read the manifest blob {}: {cause}", path.display()),
            None,
        ),
        LayoutError::BlobMismatch(path, actual, expected) => corrupt(
            format!("the blob {} does not hash to its name", path.display()),
            Some(format!("it hashes to {actual}, not {expected}")),
        ),
        LayoutError::NotAManifest(path, what) => corrupt(
            format!(
                "the blob {} that index.json names is not an image index or manifest",
                path.display()
            ),
            Some(format!("it is {}", not_manifest(what))),
        ),
        LayoutError::SeveralTagged(dir, tag) => Words::new(format!(
            "the OCI layout {} tags several images {tag:?}",
            dir.display()
        ))
        .help(format!("give each image its own tag ({COPY})")),
        LayoutError::NoSuchTag {
            dir,
            tag,
            tags,
            images,
        } => no_such_tag(&dir.display().to_string(), tag.as_deref(), tags, *images),
    }
}

/// The layout at `dir` has no image tagged `tag` (or `latest`, for none): which it has
/// (`tags`, of `images` images), and what to write instead: one of its tags, or no tag for
/// its only (untagged) image.
fn no_such_tag(dir: &str, tag: Option<&str>, tags: &[String], images: usize) -> Words {
    let wanted = tag.unwrap_or("latest");
    let untagged = images - tags.len();
    let untagged = (untagged > 0).then(|| format!("; {untagged} untagged image(s)"));
    let present = Some(tags.join(", ")).filter(|t| !t.is_empty());
    let words = Words::new(format!(
        "the OCI layout {dir} has no image tagged {wanted:?} (tags present: {}{})",
        present.as_deref().unwrap_or("none"),
        untagged.unwrap_or_default()
    ));
    let several = tag.is_none() && images > 1;
    let several_words = several.then_some(", since it holds several images");
    match tags.first() {
        Some(first) => words.help(format!(
            "name one of its tags{}: oci:{dir}:{first}",
            several_words.unwrap_or_default()
        )),
        None if several => words.help("name one, since it holds several images: oci:DIR:TAG"),
        None if images == 1 => words.help(format!(
            "leave the tag out to take its only image: oci:{dir}"
        )),
        None => words,
    }
}

/// What a registry or an OCI layout served instead of a manifest, as a phrase: `an HTML or XML
/// page (Content-Type text/html)`, `a JSON document of media type "..."`.
pub(crate) fn not_manifest(not: &NotManifest) -> String {
    let shown = (not.content_type.as_ref())
        .map(|c| format!(" (Content-Type {c})"))
        .unwrap_or_default();
    match &not.body {
        Body::Empty => format!("an empty body{shown}"),
        Body::NotAnObject => format!("JSON that is not an object{shown}"),
        Body::Markup => format!("an HTML or XML page{shown}"),
        Body::CutShort(why) => format!("JSON cut short ({why}){shown}"),
        Body::NotJson => format!("text that is not JSON{shown}"),
        Body::SchemaOne => "a Docker schema 1 manifest (schemaVersion 1), which Kubernetes \
                            runtimes and registries no longer serve; push the image again with \
                            a current builder"
            .into(),
        Body::NoSchemaTwo => format!("JSON without schemaVersion 2{shown}"),
        Body::MediaTypeNotAString => "JSON whose mediaType is not a string".into(),
        Body::MediaType(t) => format!("a JSON document of media type {t:?}"),
        Body::NoManifestFields => {
            format!("JSON with neither a manifest media type nor the fields of one{shown}")
        }
    }
}

/// A digest other than `--expected-digest` in words: the image, and that the two differ;
/// then both digests, why that can be (a moved tag, or a pin naming another image) and what
/// to do.
pub(crate) fn moved_words(moved: &DigestMoved) -> Words {
    let DigestMoved {
        image,
        resolved,
        expected,
    } = moved;
    let pinned = !image.starts_with("oci:")
        && image
            .rsplit_once('@')
            .is_some_and(|(_, pin)| pin.starts_with("sha256:"));
    let (what, cause, help) = if pinned {
        (
            "the image input is pinned to another digest than expected-digest".to_string(),
            format!(
                "{image} is pinned to {resolved}, and expected-digest (the digest the build step \
                 reported) is {expected}: they name different images"
            ),
            "make the image input and expected-digest agree (or drop the pin and name the tag); \
             nothing was announced",
        )
    } else {
        (
            format!("{image} points to another digest than expected-digest"),
            format!(
                "it points to {resolved}, not to the expected digest {expected} (expected-digest, \
                 the digest the build step reported): another push may have moved the tag \
                 between the build and this step"
            ),
            "re-run the build, or pass the digest the tag points to now; nothing was announced, \
             so no release note names the wrong image",
        )
    };
    caused(what, cause, help)
}

/// What failed to answer: the registry, or the token endpoint it named.
fn endpoint(registry: &str, token_endpoint: &Option<String>) -> String {
    match token_endpoint {
        Some(realm) => format!("the token endpoint {realm} of registry {registry}"),
        None => format!("registry {registry}"),
    }
}

/// After a refusal: what to change, naming the credentials tried (the inputs to set, and the
/// registry's own convention for user names where it has one: GHCR, GCR/Artifact Registry,
/// ECR).
fn refused(registry: &str, repository: &str, presented: &Presented, in_actions: bool) -> String {
    let host = registry.to_ascii_lowercase();
    let convention = if host == "ghcr.io" {
        " For ghcr.io, a workflow's GITHUB_TOKEN needs `permissions: packages: read` and the \
         package must grant this repository access (package settings, Manage Actions access); \
         a personal access token needs read:packages."
    } else if host == "gcr.io" || host.ends_with(".gcr.io") || host.ends_with("-docker.pkg.dev") {
        " For GCR and Artifact Registry, use registry-username oauth2accesstoken with an access \
         token as registry-password."
    } else if host.contains(".dkr.ecr.") {
        " For ECR, use registry-username AWS with the output of `aws ecr get-login-password` as \
         registry-password."
    } else {
        ""
    };
    let fix = match presented {
        Presented::Anonymous => format!(
            "set {} and {} to credentials that can pull {repository}: without them the \
             registry is asked anonymously.",
            input_name("registry-username", None, in_actions),
            input_name("registry-password", None, in_actions)
        ),
        Presented::RegistryInputs { username } => format!(
            "check registry-username ({username:?}) and registry-password, and that they can \
             pull {repository}."
        ),
        Presented::GitHubToken => format!(
            "grant the github-token read access to {repository}, or set registry-username and \
             registry-password: without them the github-token is sent as user x-access-token."
        ),
    };
    format!("{fix}{convention}")
}

/// What to do after a failed TLS handshake: `--insecure-registry` only when the server
/// answered like a plain-HTTP server and the host is loopback or private; trust-store advice
/// for an unknown CA, a private CA or a self-signed certificate (plain HTTP would not reach a
/// TLS registry at all).
fn tls_help(
    problem: &TlsProblem,
    private: bool,
    registry: &str,
    host: &str,
    in_actions: bool,
) -> String {
    match problem {
        TlsProblem::NotTls if private => format!(
            "if {registry} is a local registry serving plain HTTP, add it to {}",
            input_name("insecure-registry", None, in_actions)
        ),
        TlsProblem::NotTls => "check the registry host and port in the image input (plain HTTP \
                               is offered only for loopback and private hosts, since it would \
                               expose the credentials)"
            .to_string(),
        TlsProblem::UnknownIssuer => format!(
            "{TRUST}; insecure-registry would not help: it speaks plain HTTP, which a TLS \
             registry refuses"
        ),
        TlsProblem::WrongName(_) => format!(
            "write the registry name the certificate was issued for in the image input, or have \
             the certificate reissued with {host} as a subject alternative name"
        ),
        TlsProblem::NoTrustRoots => INSTALL_ROOTS.to_string(),
        TlsProblem::Expired | TlsProblem::NotValidYet => {
            "check the certificate's validity dates and the runner's clock".to_string()
        }
        _ => {
            "check the registry's certificate (and the runner's clock and trust store)".to_string()
        }
    }
}

/// Why a TLS handshake failed, in words (a registry's, an API server's).
pub(crate) fn tls_cause(problem: &TlsProblem) -> String {
    match problem {
        TlsProblem::NotTls => "the answer to the TLS hello is not TLS".into(),
        TlsProblem::UnknownIssuer => "the certificate's issuer is unknown".into(),
        TlsProblem::WrongName(Some(names)) if !names.is_empty() => {
            format!("the certificate is valid only for {}", names.join(", "))
        }
        TlsProblem::WrongName(Some(_)) => "the certificate names no host".into(),
        TlsProblem::WrongName(None) => "the certificate is not valid for this host".into(),
        TlsProblem::Expired => "the certificate has expired".into(),
        TlsProblem::NotValidYet => "the certificate is not valid yet".into(),
        TlsProblem::Revoked => "the certificate is revoked".into(),
        TlsProblem::BadSignature => "the certificate's signature is invalid".into(),
        TlsProblem::NoTrustRoots => "no trust roots found in the system store".into(),
        TlsProblem::Certificate(other) => format!("the certificate was refused ({other})"),
        TlsProblem::Other(other) => other.clone(),
    }
}

/// The runner has no trust roots ([`NoTrustRoots`]), and what to install.
const NO_TRUST_ROOTS: &str = "no trust roots found in the system store (SSL_CERT_FILE, \
                              SSL_CERT_DIR, or the platform's certificate locations)";
const INSTALL_ROOTS: &str = "install ca-certificates, or point SSL_CERT_FILE at a PEM bundle";

/// As the cause of a handshake that failed elsewhere (GitHub's client, the hub's).
impl std::fmt::Display for NoTrustRoots {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{NO_TRUST_ROOTS}: {INSTALL_ROOTS}")
    }
}

/// How to make the runner trust a private CA.
const TRUST: &str = "add the CA certificate to the runner's trust store, or set SSL_CERT_FILE to \
                     a PEM file holding it (that file replaces the system's CAs: append your CA \
                     to a copy of /etc/ssl/certs/ca-certificates.crt)";

/// What to do when a registry listed in insecure-registry speaks TLS.
fn insecure_but_tls(registry: &str, private: bool, in_actions: bool) -> String {
    let ca = private.then(|| format!(". If its certificate comes from a private CA, {TRUST}"));
    format!(
        "remove {registry} from {}{}",
        input_name("insecure-registry", None, in_actions),
        ca.unwrap_or_default()
    )
}

/// The digest a pinned reference was answered with, where it came from, and the pin.
fn pin_mismatch(pinned: &str, answered: &str, how: DigestSource) -> String {
    let how = match how {
        DigestSource::Header => "its Docker-Content-Digest header",
        DigestSource::ServedBytes => "the sha256 of the manifest bytes it served",
        DigestSource::IndexBytes => "the sha256 of its bytes",
    };
    format!("it answered {answered} ({how}), but the reference is pinned to {pinned}")
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::words::assert_shape;

    /// An error of registry `r:5000` and image `r:5000/org/lab:latest`.
    fn error(kind: impl Into<RegistryErrorKind>) -> RegistryError {
        RegistryError::new("r:5000", "r:5000/org/lab:latest", kind)
    }

    fn tls(problem: TlsProblem, private: bool) -> RegistryError {
        error(ConnectionProblem::Tls {
            host: "r".into(),
            port: 5000,
            problem,
            private,
        })
    }

    /// The words a help may open with: what to do.
    const TO_DO: [&str; 17] = [
        "add", "check", "copy", "fix", "give", "grant", "if", "install", "leave", "make", "name",
        "raise", "re-run", "remove", "set", "try", "write",
    ];

    /// Asserts the help says what to do (a fact goes on the first line or in a cause).
    fn says_what_to_do(words: &Words) {
        let help = words.help.as_deref().unwrap_or("check");
        let verb = help.split_whitespace().next().unwrap_or_default();
        assert!(TO_DO.contains(&verb), "help opens with a fact: {words}");
    }

    /// Every kind of registry error (and every branch of its help) in the words users read.
    #[test]
    fn every_registry_error_in_words() {
        let said = |e: RegistryError, m: &str| e.said(Some(m.into()));
        let unknown =
            |kind: RegistryErrorKind| said(error(kind), "MANIFEST_UNKNOWN: manifest unknown");
        let denied = |presented| AccessProblem::Denied {
            token_endpoint: None,
            status: 401,
            repository: "org/lab".into(),
            presented,
        };
        let auth = |e| said(e, "UNAUTHORIZED: authentication required");
        let user = Presented::RegistryInputs {
            username: "ci".into(),
        };
        let digest = |c: char| format!("sha256:{}", c.to_string().repeat(64));
        let timed_out = |requests| ConnectionProblem::TimedOut {
            token_endpoint: None,
            timeout: Duration::from_millis(1),
            requests,
        };
        let pin = |how| AnswerProblem::PinMismatch {
            pinned: digest('a'),
            answered: digest('b'),
            how,
        };
        let errors = [
            error(ReferenceProblem::Port {
                port: "99999".into(),
            }),
            error(ReferenceProblem::Pin {
                pin: "sha256:ABC".into(),
            }),
            unknown(AccessProblem::TagNotFound.into()),
            error(AccessProblem::TagNotFound),
            unknown(
                AccessProblem::RepositoryNotFound {
                    repository: "org/lab".into(),
                }
                .into(),
            ),
            auth(error(denied(Presented::Anonymous))),
            auth(error(denied(user.clone()))),
            auth(error(denied(Presented::GitHubToken))),
            auth(RegistryError::new(
                "ghcr.io",
                "ghcr.io/org/lab:latest",
                denied(Presented::GitHubToken),
            )),
            auth(RegistryError::new(
                "europe-docker.pkg.dev",
                "europe-docker.pkg.dev/p/r/lab:latest",
                denied(Presented::Anonymous),
            )),
            auth(RegistryError::new(
                "1.dkr.ecr.eu-west-1.amazonaws.com",
                "1.dkr.ecr.eu-west-1.amazonaws.com/lab:latest",
                denied(Presented::Anonymous),
            )),
            said(
                error(AccessProblem::Denied {
                    token_endpoint: Some("https://auth.r/token".into()),
                    status: 401,
                    repository: "org/lab".into(),
                    presented: user,
                }),
                "incorrect username or password",
            ),
            error(ConnectionProblem::Unreachable {
                token_endpoint: Some("https://auth.r/token".into()),
                address: "auth.r:443".into(),
                attempts: 6,
                elapsed: Duration::from_millis(31_200),
                cause: "tcp connect error: Connection refused (os error 111)".into(),
            }),
            tls(TlsProblem::NotTls, true),
            tls(TlsProblem::NotTls, false),
            tls(TlsProblem::UnknownIssuer, true),
            tls(TlsProblem::NoTrustRoots, false),
            tls(TlsProblem::WrongName(None), true),
            tls(TlsProblem::Expired, false),
            tls(
                TlsProblem::Other("no shared protocol version".into()),
                false,
            ),
            said(
                error(ConnectionProblem::InsecureButTls { private: true }),
                "Client sent an HTTP request to an HTTPS server.",
            ),
            error(ConnectionProblem::InsecureButTls { private: false }),
            said(
                error(ConnectionProblem::Unavailable {
                    status: 429,
                    attempts: 3,
                    elapsed: Duration::from_millis(2500),
                    retry_after: Some(Duration::from_secs(120)),
                }),
                "TOOMANYREQUESTS: rate limit",
            ),
            error(timed_out(0)),
            error(timed_out(2)),
            error(AnswerProblem::DigestMismatch {
                header: digest('a'),
                computed: digest('b'),
            }),
            error(AnswerProblem::ConflictingDigests {
                digests: vec![digest('a'), digest('b')],
            }),
            error(pin(DigestSource::Header)),
            error(pin(DigestSource::ServedBytes)),
            error(pin(DigestSource::IndexBytes)),
            error(AnswerProblem::InvalidDigest(
                crate::digest::Digest::parse("sha256:ABC").unwrap_err(),
            )),
            error(AnswerProblem::NotAManifest {
                what: NotManifest {
                    body: Body::Markup,
                    content_type: Some("text/html".into()),
                },
            }),
            error(AnswerProblem::ManifestTooLarge { limit: 4 << 20 }),
            error(AnswerProblem::Realm {
                realm: "/token".into(),
                cause: url::Url::parse("/token").unwrap_err(),
            }),
            error(AnswerProblem::Token {
                realm: "https://r:5000/token".into(),
                sent: true,
            }),
            error(AnswerProblem::Token {
                realm: "https://r:5000/token".into(),
                sent: false,
            }),
            error(AnswerProblem::Client("builder error".into())),
            error(AnswerProblem::Status {
                status: "405 Method Not Allowed".into(),
                url: "http://r:5000/v2/org/lab/manifests/latest".into(),
            }),
            error(AnswerProblem::Protocol {
                detail: "error decoding response body".into(),
            }),
        ];
        // Every other one inside Actions, so both namings of an input show.
        let shown: Vec<String> = (errors.iter().enumerate())
            .map(|(i, e)| {
                let words = words(e, i % 2 == 1);
                assert_shape(&words);
                says_what_to_do(&words);
                words.to_string()
            })
            .collect();
        insta::assert_snapshot!(shown.join("\n\n"));
    }

    /// Every reason an OCI layout gives no digest (and every hint for a missing tag), and
    /// every body that is not a manifest, in the words users read.
    #[test]
    fn every_layout_error_in_words() {
        let digest = |c: char| {
            crate::digest::Digest::parse(&format!("sha256:{}", c.to_string().repeat(64))).unwrap()
        };
        let blob = || std::path::PathBuf::from("lab/blobs/sha256/aaaa");
        let no_such_tag = |tag: Option<&str>, tags: &[&str], images| LayoutError::NoSuchTag {
            dir: "lab".into(),
            tag: tag.map(str::to_string),
            tags: tags.iter().map(ToString::to_string).collect(),
            images,
        };
        let not = |body, content_type: Option<&str>| {
            let content_type = content_type.map(str::to_string);
            LayoutError::NotAManifest(blob(), NotManifest { body, content_type })
        };
        let errors = [
            LayoutError::Missing("lab".into()),
            LayoutError::NotADirectory("README.md".into()),
            LayoutError::Index(
                "lab".into(),
                ReadError::TooLarge {
                    cap: 16 << 20,
                    size: 17 << 20,
                },
            ),
            LayoutError::Index("lab".into(), ReadError::NotFound),
            LayoutError::IndexInvalid(
                "lab".into(),
                serde_json::from_str::<serde_json::Value>("{").unwrap_err(),
            ),
            LayoutError::InvalidDigest("lab".into(), "md5:x".into()),
            LayoutError::Blob(
                blob(),
                ReadError::TooLarge {
                    cap: 4 << 20,
                    size: 5 << 20,
                },
            ),
            LayoutError::Blob(blob(), ReadError::NotRegular),
            LayoutError::BlobMismatch(blob(), digest('b'), digest('a')),
            LayoutError::SeveralTagged("lab".into(), "latest".into()),
            no_such_tag(Some("v9"), &["latest", "v1"], 2),
            no_such_tag(None, &["v1"], 2),
            no_such_tag(Some("v1"), &[], 1),
            no_such_tag(None, &[], 2),
            no_such_tag(Some("v1"), &[], 0),
            not(Body::Empty, Some("text/html")),
            not(Body::NotAnObject, None),
            not(Body::Markup, Some("text/html")),
            not(Body::CutShort("EOF while parsing".into()), None),
            not(Body::NotJson, None),
            not(Body::SchemaOne, None),
            not(Body::NoSchemaTwo, Some("application/json")),
            not(Body::MediaTypeNotAString, None),
            not(
                Body::MediaType("application/vnd.oci.image.config.v1+json".into()),
                None,
            ),
            not(Body::NoManifestFields, None),
        ];
        insta::assert_snapshot!(crate::render::words::shaped(
            errors.iter().map(layout_words).inspect(says_what_to_do)
        ));
    }

    #[test]
    fn a_moved_tag_and_a_pin_against_expected_digest_in_words() {
        let digest = |c: char| {
            crate::digest::Digest::parse(&format!("sha256:{}", c.to_string().repeat(64))).unwrap()
        };
        let lines: Vec<String> = [
            "r:5000/org/lab:latest".to_string(),
            format!("r:5000/org/lab@{}", digest('a')),
        ]
        .into_iter()
        .map(|image| {
            let words = moved_words(&DigestMoved {
                image,
                resolved: digest('a'),
                expected: digest('b'),
            });
            assert_shape(&words);
            says_what_to_do(&words);
            words.to_string()
        })
        .collect();
        insta::assert_snapshot!(lines.join("\n\n"));
    }

    #[test]
    fn insecure_registry_is_suggested_only_for_a_private_plain_http_server() {
        let text = |problem, private| tls(problem, private).to_string();
        assert!(
            text(TlsProblem::NotTls, true)
                .contains("add it to insecure-registry (--insecure-registry)")
        );
        for (problem, private) in [
            (TlsProblem::NotTls, false),
            (TlsProblem::WrongName(None), true),
            (TlsProblem::Expired, true),
            (TlsProblem::Other("x".into()), true),
        ] {
            let text = text(problem.clone(), private);
            assert!(!text.contains("insecure"), "{problem:?}: {text}");
        }
        let text = text(TlsProblem::UnknownIssuer, true);
        assert!(text.contains("SSL_CERT_FILE"), "{text}");
        assert!(!text.contains("--insecure-registry"), "{text}");
    }

    /// Each rustls error sorted by what to do about it, and in words.
    #[test]
    fn tls_failures_are_sorted_and_said_in_words() {
        use rustls::{CertificateError as C, Error as E, InvalidMessage as M};
        let name = rustls::pki_types::ServerName::try_from("localhost").unwrap();
        let table: Vec<String> = [
            E::InvalidMessage(M::InvalidContentType),
            E::InvalidCertificate(C::UnknownIssuer),
            E::InvalidCertificate(C::NotValidForNameContext {
                expected: name.clone(),
                presented: vec![
                    "IpAddress(127.0.0.1)".into(),
                    "DnsName(\"lab.example\")".into(),
                ],
            }),
            E::InvalidCertificate(C::NotValidForNameContext {
                expected: name,
                presented: vec![],
            }),
            E::InvalidCertificate(C::NotValidForName),
            E::InvalidCertificate(C::Expired),
            E::InvalidCertificate(C::Revoked),
            E::InvalidCertificate(C::BadSignature),
        ]
        .iter()
        .map(|err| {
            let problem = TlsProblem::of(err).expect("a rustls error");
            format!("{problem:?}: {}", tls_cause(&problem))
        })
        .collect();
        insta::assert_snapshot!(table.join("\n"), @r#"
        NotTls: the answer to the TLS hello is not TLS
        UnknownIssuer: the certificate's issuer is unknown
        WrongName(Some(["127.0.0.1", "lab.example"])): the certificate is valid only for 127.0.0.1, lab.example
        WrongName(Some([])): the certificate names no host
        WrongName(None): the certificate is not valid for this host
        Expired: the certificate has expired
        Revoked: the certificate is revoked
        BadSignature: the certificate's signature is invalid
        "#);
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
}
