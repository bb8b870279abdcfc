//! Resolving a digest from a registry: the digest the reference's tag points to now (and, for
//! `status`, the child manifests of an image index).
//!
//! One resolution sends the fewest requests the protocol allows (issue 9's budget):
//! 1. `HEAD /v2/<repo>/manifests/<tag>` whose `Accept` lists the OCI image index, Docker
//!    manifest list, OCI manifest and Docker v2 manifest types, so a multi-arch image yields
//!    its index digest, the one Kubernetes records (with fewer types registries substitute a
//!    platform's manifest or answer 404: distribution issues 3431 and 2395). Anonymous, so
//!    an open registry costs this one request: no `/v2/` ping is needed, the manifest
//!    endpoint itself answers 401 with the challenge when auth is wanted.
//! 2. On a 401 with a challenge: Basic credentials on a second HEAD, or one token request at
//!    the realm and a second HEAD with the token ([`auth`]). So 2 requests on an htpasswd
//!    registry, 3 with token auth, one token per run.
//! 3. A GET only when needed: the 2xx answer has no `Docker-Content-Digest` (ECR, some
//!    proxies), then the digest is the sha256 of the exact bytes, and a header that disagrees
//!    with them is an error; or the HEAD failed (401, 403, 404, 405 Method Not Allowed, any
//!    other refusal, or 429/5xx on its last try), since a HEAD answer has no body and only the
//!    GET carries the registry's own message (or, where HEAD is not allowed, the manifest).
//!
//! What is trusted: a 2xx GET body is hashed only when it is a JSON image index, manifest
//! list or manifest of at most 4 MiB ([`manifest`]). A HEAD cannot show bytes, so its
//! `Docker-Content-Digest` is the registry's word for the digest. It is checked as far as a HEAD
//! allows: it must be `sha256:<64 lower-case hex>`, one answer naming two different digests is
//! an error, and a digest-pinned reference (`@sha256:...`) must be answered with the pinned
//! digest. It is not verified with a GET of the bytes: that would double every resolution's
//! cost (and count as a pull on Docker Hub), and it adds nothing against a lying registry, which
//! can serve bytes to match its lie. It is the same header every runtime resolves a tag with
//! (containerd, CRI-O); they then pull by that digest and verify the bytes, so a wrong header
//! makes the pull fail instead of running another image.
//!
//! Each request is retried on connection errors, 429 and 5xx within the deadline, by the one
//! retry policy ([`crate::support::retry`]; `send` says why `oci-client`'s
//! `fetch_manifest_digest` is not used).
//! Text the registry sends back is quoted in errors with the resolution's secrets hidden
//! ([`crate::support::secrets::Secrets`]). The digest is validated (`sha256:<64 hex>`) before it is returned.

pub(crate) mod auth;
pub(crate) mod errors;
mod send;

use crate::support::retry::{GaveUp, Stop};
pub(crate) use crate::support::retry::{RetryPolicy, Timer, TokioTimer};
pub(crate) use auth::MissingInput;
pub use auth::{CredentialSource, Credentials};
pub(crate) use errors::ReferenceProblem;
pub use errors::{
    AccessProblem, AnswerProblem, ConnectionProblem, DigestSource, RegistryError,
    RegistryErrorKind, TlsProblem,
};

use super::Digest;
use super::manifest;
use crate::support::sanitize::log_line;
use crate::support::secrets::{ExposeSecret, SecretString, Secrets};
use auth::Challenge;
use oci_client::Reference;
use reqwest::{Method, StatusCode};
use send::{Answer, Failure, Sender, Try};
use std::sync::Arc;
use std::time::Duration;

/// The `Accept` header of every manifest request: all four manifest types, index types
/// first (literal so it reads as sent; a test checks it against oci-client's constants).
pub const ACCEPT_MANIFESTS: &str = "application/vnd.oci.image.index.v1+json, application/vnd.docker.distribution.manifest.list.v2+json, application/vnd.oci.image.manifest.v1+json, application/vnd.docker.distribution.manifest.v2+json";

/// How to reach and authenticate to the registry. `Debug` shows no secret
/// ([`SecretString`]).
#[derive(Clone, Debug)]
pub struct RegistryOptions {
    /// `registry-username`/`registry-password`. Presented only when the registry asks
    /// (Basic, or exchanged for a bearer token at the realm it names).
    pub credentials: Option<Credentials>,
    /// The `github-token` input: presented to ghcr.io as user `x-access-token` when no
    /// registry credentials are given.
    pub github_token: Option<SecretString>,
    /// `HOST:PORT` entries spoken to over plain HTTP (local registries, tests).
    pub insecure: Vec<String>,
    /// Retries and the deadline ([`RetryPolicy::registry`], the deadline `--registry-timeout`).
    pub retry: RetryPolicy,
    /// The clock; `None` for the real one (`TokioTimer`).
    pub timer: Option<Arc<dyn Timer>>,
}

/// A resolved digest and how it was obtained.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// The validated digest of the top-level manifest (the image index for a multi-arch
    /// image).
    pub digest: Digest,
    /// The manifest's `Content-Type` as the registry named it, e.g.
    /// `application/vnd.oci.image.index.v1+json` (empty if it sent none).
    pub media_type: String,
    /// Requests sent to the registry and its token endpoint, every retry counted.
    pub requests: u32,
}

/// Resolves the digest `reference` points to now.
///
/// # Errors
/// A [`RegistryError`] naming the registry and image, with the registry's own message and
/// the fix: an unusable reference (checked before any request), tag or repository not found,
/// access denied (which credentials were tried), token endpoint failure, unreachable (host,
/// port, attempts), TLS failure, still failing (429/5xx) or no answer within the deadline, an
/// answer that is not a manifest or is too large, digests the registry contradicts (header
/// against bytes, two headers, a pin), or an unusable digest.
pub async fn resolve(
    reference: &Reference,
    options: &RegistryOptions,
) -> Result<Resolved, RegistryError> {
    Session::new(reference, options)?.run().await
}

/// The child manifests of the image index `digest` in `reference`'s repository: one GET of
/// `/v2/<repo>/manifests/<digest>` (two or three with authentication, as [`resolve`]), the
/// body checked as [`resolve`] checks a GET (a manifest, hashing to `digest`), then
/// [`manifest::children`]. Used by `status` only when a pod reports another digest than the
/// index's, so the common case costs no request.
///
/// # Errors
/// As [`resolve`].
pub(crate) async fn children(
    reference: &Reference,
    digest: &Digest,
    options: &RegistryOptions,
) -> Result<Vec<Digest>, RegistryError> {
    let pinned = Reference::with_digest(
        reference.registry().to_string(),
        reference.repository().to_string(),
        digest.to_string(),
    );
    Session::new(&pinned, options)?.children().await
}

/// Checks what can be checked of `reference` without a request: the registry's port is a
/// port number (1 to 65535), and a digest pin is `sha256:<64 lower-case hex>` (registries
/// compare digests as strings, and only sha256 digests are announced).
///
/// # Errors
/// [`ReferenceProblem`] saying which part is wrong.
pub(crate) fn check_reference(reference: &Reference) -> Result<(), ReferenceProblem> {
    let port = reference
        .resolve_registry()
        .rsplit_once(':')
        .map(|(_, p)| p);
    match (port, reference.digest()) {
        (Some(port), _) if !port.contains(']') && !port.parse::<u16>().is_ok_and(|p| p > 0) => {
            Err(ReferenceProblem::Port { port: port.into() })
        }
        (_, Some(pin)) if Digest::parse(pin).is_err() => {
            Err(ReferenceProblem::Pin { pin: pin.into() })
        }
        _ => Ok(()),
    }
}

/// Whether `registry` (`HOST[:PORT]`) is in the `insecure-registry` list. Entries may hold
/// several hosts ([`crate::support::text::list_entries`]: the Action input is one string);
/// host names compare without regard to case, as DNS does.
pub(crate) fn is_insecure(list: &[String], registry: &str) -> bool {
    list.iter()
        .flat_map(|entry| crate::support::text::list_entries(entry))
        .any(|host| host.eq_ignore_ascii_case(registry))
}

/// What the next manifest request presents.
#[derive(Clone)]
enum Authorization {
    None,
    Basic(Credentials),
    Bearer(SecretString),
}

/// One resolution: the registry, image and manifest address it asks for, what it presents,
/// and the requests it sent.
struct Session<'a> {
    client: reqwest::Client,
    sender: Sender<'a>,
    registry: String,
    repository: String,
    image: String,
    scheme: &'static str,
    url: String,
    /// The digest the reference is pinned to (`@sha256:...`), if any.
    pin: Option<Digest>,
    credentials: Option<Credentials>,
    authorization: Authorization,
    /// Hidden in any text the registry echoes.
    secrets: Secrets,
}

impl<'a> Session<'a> {
    /// A session for `reference`, on `options`' clock (the real one by default), once the
    /// reference is checked ([`check_reference`]).
    fn new(reference: &Reference, options: &'a RegistryOptions) -> Result<Self, RegistryError> {
        let registry = reference.resolve_registry().to_string();
        check_reference(reference)
            .map_err(|p| RegistryError::new(&registry, reference.whole(), p))?;
        let insecure = is_insecure(&options.insecure, &registry);
        let scheme = if insecure { "http" } else { "https" };
        let target = reference.digest().or(reference.tag()).unwrap_or("latest");
        let url = format!(
            "{scheme}://{registry}/v2/{}/manifests/{target}",
            reference.repository()
        );
        // rustls with ring; the system roots are read at the first TLS handshake, once
        // (crate::tls), so a plain-HTTP registry costs no trust-store I/O.
        // Redirects within the registry's origin only: the credentials never reach
        // another server (a manifest is not a blob; registries answer it themselves).
        let origin = url::Url::parse(&url).map_err(|e| {
            let kind = AnswerProblem::Client(e.to_string());
            RegistryError::new(&registry, reference.whole(), kind)
        })?;
        let client = reqwest::Client::builder()
            .user_agent(concat!("codeq-rollout/", env!("CARGO_PKG_VERSION")))
            .tls_backend_preconfigured(crate::support::tls::client_config())
            .redirect(crate::support::tls::same_origin_redirects(&origin))
            .build()
            .map_err(|e| {
                let kind = AnswerProblem::Client(e.to_string());
                RegistryError::new(&registry, reference.whole(), kind)
            })?;
        let credentials = auth::credentials_for(
            &registry,
            options.credentials.as_ref(),
            options.github_token.as_ref(),
        );
        Ok(Self {
            client,
            sender: Sender {
                policy: &options.retry,
                timer: (options.timer.clone()).unwrap_or_else(|| Arc::new(TokioTimer::start())),
                requests: 0,
            },
            pin: reference.digest().and_then(|d| Digest::parse(d).ok()),
            secrets: secrets_of(options, credentials.as_ref()),
            credentials,
            repository: reference.repository().to_string(),
            image: reference.whole(),
            registry,
            scheme,
            url,
            authorization: Authorization::None,
        })
    }

    async fn run(&mut self) -> Result<Resolved, RegistryError> {
        let head = match self.authorized(Method::HEAD).await? {
            Ok(head) => head,
            Err(refused) if matches!(refused.last, Some(Try::Refused(_))) => {
                return self.after_unavailable(refused).await;
            }
            Err(failure) => return Err(self.manifest_transport(failure)),
        };
        let found = head.status.is_success();
        // The digest header counts on a 2xx answer only.
        let said = found.then(|| self.header_digest(&head)).transpose()?;
        if let Some(Some(digest)) = said {
            self.check_pin(&digest, DigestSource::Header)?;
            return Ok(Resolved {
                digest,
                media_type: header(&head, "content-type").unwrap_or_default(),
                requests: self.sender.requests,
            });
        }
        // A 2xx without the digest header: a GET for the bytes. 401 after the credentials,
        // 403, 404, 405 (HEAD not allowed), 400...: a HEAD answer has no body, so one GET for
        // the registry's own message (or the manifest itself).
        match self.manifest(Method::GET, None).await {
            Ok(get) => self.digest_of_get(get),
            Err(failure) if found => Err(self.manifest_transport(failure)),
            Err(_) => Err(self.refusal(head.status, &[])),
        }
    }

    /// One GET of the pinned manifest (authenticating on a 401), checked, and its children.
    async fn children(&mut self) -> Result<Vec<Digest>, RegistryError> {
        let get = match self.authorized(Method::GET).await? {
            Ok(get) => get,
            Err(failure) => return Err(self.manifest_transport(failure)),
        };
        let body = get.body.clone();
        let resolved = self.digest_of_get(get)?;
        self.check_pin(&resolved.digest, DigestSource::IndexBytes)?;
        Ok(manifest::children(&body))
    }

    /// A manifest request sent anonymously, and again with what the challenge of a 401 asks
    /// for ([`Session::authenticate`]).
    async fn authorized(
        &mut self,
        method: Method,
    ) -> Result<Result<Answer, Failure>, RegistryError> {
        let answer = self.manifest(method.clone(), None).await;
        if let Ok(first) = &answer {
            if first.status == StatusCode::UNAUTHORIZED && self.authenticate(first).await? {
                return Ok(self.manifest(method, None).await);
            }
        }
        Ok(answer)
    }

    /// After the HEAD's last try answered 429 or 5xx: one GET (one try, within the deadline),
    /// since only a GET answer has a body to quote (a rate limit's reset time, an outage
    /// notice). It is sent even when `Retry-After` asked for a longer wait: the run fails
    /// anyway, and the registry's message is what the user needs. Should the GET succeed, the
    /// digest comes from its bytes.
    async fn after_unavailable(&mut self, head: Failure) -> Result<Resolved, RegistryError> {
        match self.manifest(Method::GET, Some(1)).await {
            Ok(get) => self.digest_of_get(get),
            Err(GaveUp {
                last: Some(Try::Refused(get)),
                ..
            }) => {
                let elapsed = self.sender.timer.elapsed();
                Err(self.unavailable(&get, head.attempts + 1, elapsed, head.why))
            }
            Err(_) => Err(self.manifest_transport(head)),
        }
    }

    /// After a 401: sets the authorization the challenge asks for. `false` when there is
    /// nothing to present (no challenge, or Basic without credentials).
    async fn authenticate(&mut self, head: &Answer) -> Result<bool, RegistryError> {
        let challenge = header(head, "www-authenticate").and_then(|h| auth::challenge(&h));
        match (challenge, &self.credentials) {
            (Some(Challenge::Basic), Some(c)) => {
                self.authorization = Authorization::Basic(c.clone());
                Ok(true)
            }
            (Some(Challenge::Bearer { realm, service }), _) => {
                let token = self.token(&realm, service.as_deref()).await?;
                self.secrets.add(&token);
                self.authorization = Authorization::Bearer(token.into());
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// One token request at `realm` for `repository:<repo>:pull`, with the credentials if
    /// there are any.
    async fn token(&mut self, realm: &str, service: Option<&str>) -> Result<String, RegistryError> {
        let realm_url = reqwest::Url::parse(realm).map_err(|cause| {
            let realm = realm.to_string();
            self.error(AnswerProblem::Realm { realm, cause })
        })?;
        let scope = format!("repository:{}:pull", self.repository);
        // A `None` service is left out of the query (serde_urlencoded skips it).
        let query = [("scope", Some(scope.as_str())), ("service", service)];
        let (client, credentials) = (self.client.clone(), self.credentials.clone());
        let build = || {
            let request = client.get(realm_url.clone()).query(&query);
            match &credentials {
                Some(c) => request.basic_auth(&c.username, Some(c.password())),
                None => request,
            }
        };
        let sent = self.sender.send(build, None).await;
        // Shown without user info, query or fragment.
        let shown = format!(
            "{}://{}",
            realm_url.scheme(),
            &realm_url[url::Position::BeforeHost..url::Position::AfterPath]
        );
        let answer = match sent {
            Ok(answer) if answer.status.is_success() => answer,
            Ok(answer)
            | Err(GaveUp {
                last: Some(Try::Refused(answer)),
                ..
            }) => {
                return Err(self
                    .error(AccessProblem::Denied {
                        token_endpoint: Some(shown),
                        status: answer.status.as_u16(),
                        repository: self.repository.clone(),
                        presented: auth::presented(self.credentials.as_ref()),
                    })
                    .said(self.message(&answer.body)));
            }
            Err(failure) => return Err(self.transport(failure, Some(&shown), realm_url.as_str())),
        };
        let token = auth::token_from(&answer.body);
        let sent = token.is_some();
        // reqwest would refuse to build the next request with one that is no header value
        // (a builder error, "failed to parse header value"): say what is wrong instead.
        let valid =
            |t: &String| reqwest::header::HeaderValue::try_from(format!("Bearer {t}")).is_ok();
        (token.filter(valid)).ok_or_else(|| self.error(AnswerProblem::Token { realm: shown, sent }))
    }

    /// One manifest request under the current authorization, with the policy's tries or at
    /// most `tries`.
    async fn manifest(&mut self, method: Method, tries: Option<u32>) -> Result<Answer, Failure> {
        let client = self.client.clone();
        let url = self.url.clone();
        let authorization = self.authorization.clone();
        let build = || {
            let request = client
                .request(method.clone(), &url)
                .header(reqwest::header::ACCEPT, ACCEPT_MANIFESTS);
            match &authorization {
                Authorization::None => request,
                Authorization::Basic(c) => request.basic_auth(&c.username, Some(c.password())),
                Authorization::Bearer(token) => request.bearer_auth(token.expose_secret()),
            }
        };
        self.sender.send(build, tries).await
    }

    /// The error for a manifest request that got no usable answer.
    fn manifest_transport(&self, failure: Failure) -> RegistryError {
        self.transport(failure, None, &self.url)
    }

    /// The `Docker-Content-Digest` of an answer: `None` when absent; an error when its values
    /// (repeated headers, or one header listing several) name different digests, or when the
    /// value is not a usable digest.
    fn header_digest(&self, answer: &Answer) -> Result<Option<Digest>, RegistryError> {
        let mut values: Vec<String> = Vec::new();
        for value in answer.headers.get_all("docker-content-digest") {
            let text = String::from_utf8_lossy(value.as_bytes());
            for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                if !values.iter().any(|v| v == part) {
                    values.push(part.to_string());
                }
            }
        }
        match values.as_slice() {
            [] => Ok(None),
            [one] => Digest::parse(one).map(Some).map_err(|_| {
                self.error(AnswerProblem::InvalidDigest(crate::digest::InvalidDigest(
                    self.clean(one, 100),
                )))
            }),
            several => Err(self.error(AnswerProblem::ConflictingDigests {
                digests: several.iter().map(|v| self.clean(v, 100)).collect(),
            })),
        }
    }

    /// A pinned reference must be answered with its pin.
    fn check_pin(&self, digest: &Digest, how: DigestSource) -> Result<(), RegistryError> {
        match &self.pin {
            Some(pin) if pin != digest => Err(self.error(AnswerProblem::PinMismatch {
                pinned: pin.to_string(),
                answered: digest.to_string(),
                how,
            })),
            _ => Ok(()),
        }
    }

    /// The digest from a GET answer: sha256 of the exact bytes, once they are known to be a
    /// manifest of at most 4 MiB, checked against the `Docker-Content-Digest` header when there
    /// is one and against the pin. A refusal (401/403/404...) becomes the matching error with
    /// the registry's message. A GET that serves the manifest after a refused HEAD (a tag
    /// pushed in between, HEAD not allowed) is answered from the bytes in hand.
    fn digest_of_get(&self, get: Answer) -> Result<Resolved, RegistryError> {
        if !get.status.is_success() {
            return Err(self.refusal(get.status, &get.body));
        }
        if !get.complete {
            return Err(self.error(AnswerProblem::ManifestTooLarge {
                limit: manifest::MAX_MANIFEST_BYTES,
            }));
        }
        let content_type = header(&get, "content-type");
        let media_type = manifest::media_type(&get.body, content_type.as_deref())
            .map_err(|what| self.error(AnswerProblem::NotAManifest { what }))?;
        let computed = Digest::of_bytes(&get.body);
        let header = match self.header_digest(&get) {
            Ok(Some(said)) if said != computed => Some(said.to_string()),
            Ok(_) => None,
            Err(e) => match &*e.kind {
                RegistryErrorKind::Answer(AnswerProblem::InvalidDigest(invalid)) => {
                    Some(invalid.0.clone())
                }
                _ => return Err(e),
            },
        };
        if let Some(header) = header {
            return Err(self.error(AnswerProblem::DigestMismatch {
                header,
                computed: computed.to_string(),
            }));
        }
        self.check_pin(&computed, DigestSource::ServedBytes)?;
        Ok(Resolved {
            media_type: media_type.to_string(),
            digest: computed,
            requests: self.sender.requests,
        })
    }

    /// The error for a refused manifest request (with the body of the GET when there is one).
    fn refusal(&self, status: StatusCode, body: &[u8]) -> RegistryError {
        let repository = self.repository.clone();
        // A TLS server asked in plain HTTP: Go answers `Client sent an HTTP request to an
        // HTTPS server.`, nginx `The plain HTTP request was sent to HTTPS port`.
        let speaks_tls = self.scheme == "http"
            && String::from_utf8_lossy(body)
                .to_ascii_lowercase()
                .contains("https");
        let kind: RegistryErrorKind = match status {
            StatusCode::NOT_FOUND
                if errors::error_code(body).as_deref() == Some("NAME_UNKNOWN") =>
            {
                AccessProblem::RepositoryNotFound { repository }.into()
            }
            StatusCode::NOT_FOUND => AccessProblem::TagNotFound.into(),
            StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => AccessProblem::Denied {
                token_endpoint: None,
                status: status.as_u16(),
                repository,
                presented: auth::presented(self.credentials.as_ref()),
            }
            .into(),
            StatusCode::BAD_REQUEST if speaks_tls => ConnectionProblem::InsecureButTls {
                private: crate::support::url::is_loopback_or_private(&host_port(&self.url).0),
            }
            .into(),
            status => AnswerProblem::Status {
                status: status.to_string(),
                url: self.url.clone(),
            }
            .into(),
        };
        self.error(kind).said(self.message(body))
    }

    /// The error for 429 or 5xx (`answer`) on a manifest request's last try, after `attempts`
    /// tries over `elapsed`; the registry's `Retry-After` is named when it (not the backoff)
    /// ended the tries.
    fn unavailable(
        &self,
        answer: &Answer,
        attempts: u32,
        elapsed: Duration,
        why: Stop,
    ) -> RegistryError {
        self.error(ConnectionProblem::Unavailable {
            status: answer.status.as_u16(),
            attempts,
            elapsed,
            retry_after: match why {
                Stop::AskedTooLong(asked) => Some(asked),
                _ => None,
            },
        })
        .said(self.message(&answer.body))
    }

    /// The error for a request to `url` (the registry's, or the token endpoint's when
    /// `token_endpoint` names it) that got no usable answer.
    fn transport(
        &self,
        failure: Failure,
        token_endpoint: Option<&str>,
        url: &str,
    ) -> RegistryError {
        let (host, port) = host_port(url);
        let token_endpoint = token_endpoint.map(str::to_string);
        let GaveUp {
            last,
            attempts,
            elapsed,
            why,
        } = failure;
        match last {
            Some(Try::Connection(cause)) => self.error(ConnectionProblem::Unreachable {
                token_endpoint,
                address: format!("{host}:{port}"),
                attempts,
                elapsed,
                cause,
            }),
            Some(Try::Tls(problem)) => self.error(ConnectionProblem::Tls {
                private: crate::support::url::is_loopback_or_private(&host),
                host,
                port,
                problem,
            }),
            Some(Try::Refused(answer)) => self.unavailable(&answer, attempts, elapsed, why),
            None | Some(Try::Timeout) => self.error(ConnectionProblem::TimedOut {
                token_endpoint,
                timeout: self.sender.policy.deadline.unwrap_or_default(),
                requests: self.sender.requests,
            }),
            Some(Try::Other(detail)) => self.error(AnswerProblem::Protocol { detail }),
        }
    }

    /// The registry's own message in `body` ([`errors::registry_message`], which hides the
    /// secrets in every form before cleaning and cutting).
    fn message(&self, body: &[u8]) -> Option<String> {
        errors::registry_message(body, &self.secrets)
    }

    /// An error of this registry and image.
    fn error(&self, kind: impl Into<RegistryErrorKind>) -> RegistryError {
        RegistryError::new(&self.registry, &self.image, kind)
    }

    /// Registry text made safe for one log line, with the secrets hidden first.
    fn clean(&self, text: &str, max_chars: usize) -> String {
        self.secrets
            .redact_echo(&log_line(&self.secrets.redact_echo(text), max_chars))
    }
}

/// The host and port `url` names (its scheme's port when it names none), for
/// "unreachable" and TLS errors.
fn host_port(url: &str) -> (String, u16) {
    let url = reqwest::Url::parse(url).ok();
    let host = url
        .as_ref()
        .and_then(reqwest::Url::host_str)
        .unwrap_or_default();
    let port = url.as_ref().and_then(reqwest::Url::port_or_known_default);
    (host.to_string(), port.unwrap_or_default())
}

/// The secrets of one resolution, to hide in whatever the registry or its token endpoint
/// echoes: the registry password and the GitHub token in every form
/// ([`Secrets::add`]), and the `Authorization: Basic` value of the credentials presented
/// ([`Secrets::add_basic`]). The bearer token received is added when it comes.
fn secrets_of(options: &RegistryOptions, presented: Option<&Credentials>) -> Secrets {
    let password = options.credentials.iter().map(|c| &c.password);
    let mut secrets = Secrets::of(password.chain(&options.github_token));
    if let Some(c) = presented {
        secrets.add_basic(&c.username, c.password());
    }
    secrets
}

/// A header's value as text, `None` when absent or not text.
fn header(answer: &Answer, name: &str) -> Option<String> {
    answer
        .headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;
    use oci_client::manifest::{
        IMAGE_MANIFEST_LIST_MEDIA_TYPE, IMAGE_MANIFEST_MEDIA_TYPE, OCI_IMAGE_INDEX_MEDIA_TYPE,
        OCI_IMAGE_MEDIA_TYPE,
    };

    #[test]
    fn accept_lists_the_four_manifest_types_index_first() {
        let listed: Vec<&str> = ACCEPT_MANIFESTS.split(", ").collect();
        assert_eq!(
            listed,
            [
                OCI_IMAGE_INDEX_MEDIA_TYPE,
                IMAGE_MANIFEST_LIST_MEDIA_TYPE,
                OCI_IMAGE_MEDIA_TYPE,
                IMAGE_MANIFEST_MEDIA_TYPE
            ]
        );
    }

    /// The token request's query, as `Session::token` builds it: a missing service is left out.
    #[test]
    fn a_token_query_leaves_out_a_missing_service() {
        let client = reqwest::Client::builder()
            .tls_backend_preconfigured(crate::support::tls::client_config())
            .build()
            .unwrap();
        let query = |service: Option<&str>| {
            let query = [
                ("scope", Some("repository:org/lab:pull")),
                ("service", service),
            ];
            let request = client.get("http://r/token").query(&query).build().unwrap();
            request.url().query().map(str::to_string)
        };
        assert_eq!(
            query(None).as_deref(),
            Some("scope=repository%3Aorg%2Flab%3Apull")
        );
        assert_eq!(
            query(Some("r")).as_deref(),
            Some("scope=repository%3Aorg%2Flab%3Apull&service=r")
        );
    }

    #[test]
    fn insecure_registry_lists_take_commas_new_lines_and_any_case() {
        let list = vec![
            "a.test:1, b.test:2".to_string(),
            "c.test:3\nLOCALHOST:5000\r\n".to_string(),
        ];
        for registry in [
            "a.test:1",
            "b.test:2",
            "c.test:3",
            "localhost:5000",
            "LocalHost:5000",
        ] {
            assert!(is_insecure(&list, registry), "{registry}");
        }
        assert!(!is_insecure(&list, "localhost:5001"));
        assert!(!is_insecure(&list, "a.test"));
        assert!(!is_insecure(&[String::new()], ""));
    }

    /// Anonymous, over HTTPS, with [`RetryPolicy::registry`] on the real clock.
    fn anonymous() -> RegistryOptions {
        RegistryOptions {
            credentials: None,
            github_token: None,
            insecure: Vec::new(),
            retry: RetryPolicy::registry(),
            timer: None,
        }
    }

    #[test]
    fn options_debug_hides_secrets() {
        let options = RegistryOptions {
            credentials: Some(Credentials {
                username: "ci".into(),
                password: "hunter2".into(),
                source: CredentialSource::RegistryInputs,
            }),
            github_token: Some("ghs_secret".into()),
            ..anonymous()
        };
        let shown = format!("{options:?}");
        assert!(
            !shown.contains("hunter2") && !shown.contains("ghs_secret"),
            "{shown}"
        );
    }

    #[test]
    fn an_echoed_password_or_token_is_hidden_in_every_form_through_the_one_engine() {
        let credentials = Credentials {
            username: "robot".into(),
            password: "s3cret/pw".into(),
            source: CredentialSource::RegistryInputs,
        };
        let options = RegistryOptions {
            credentials: Some(credentials.clone()),
            github_token: Some("ghs_TokenEchoedByARegistry42".into()),
            ..anonymous()
        };
        let secrets = secrets_of(&options, Some(&credentials));
        // base64("robot:s3cret/pw") = cm9ib3Q6czNjcmV0L3B3
        let body = br#"{"details":"denied: Basic cm9ib3Q6czNjcmV0L3B3 (robot:s3cret/pw) s3cret%2Fpw token ghs_TokenEchoedByARegistry42"}"#;
        assert_eq!(
            errors::registry_message(body, &secrets).as_deref(),
            Some("denied: Basic *** (robot:***) *** token ***")
        );
    }
}
