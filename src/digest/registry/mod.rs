//! Resolving a digest from a registry: the digest the reference's tag points to now.
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
//!    with them is an error; or the HEAD failed with 401, 403 or 404, since a HEAD answer has
//!    no body and only the GET carries the registry's own message (tag or repository unknown,
//!    denied).
//!
//! Each request is retried on connection errors, 429 and 5xx within the deadline
//! ([`retry`], which also says why `oci-client`'s `fetch_manifest_digest` is not used).
//! The digest is validated (`sha256:<64 hex>`) before it is returned.

pub mod auth;
pub mod errors;
pub mod retry;

pub use auth::{CredentialSource, Credentials};
pub use errors::RegistryError;
pub use retry::{RetryPolicy, Timer, TokioTimer};

use super::Digest;
use auth::Challenge;
use oci_client::Reference;
use reqwest::{Method, StatusCode};
use retry::{Answer, Failure, Sender};
use std::sync::Arc;

/// The `Accept` header of every manifest request: all four manifest types, index types
/// first (literal so it reads as sent; a test checks it against oci-client's constants).
pub const ACCEPT_MANIFESTS: &str = "application/vnd.oci.image.index.v1+json, application/vnd.docker.distribution.manifest.list.v2+json, application/vnd.oci.image.manifest.v1+json, application/vnd.docker.distribution.manifest.v2+json";

/// How to reach and authenticate to the registry.
#[derive(Clone, Default)]
pub struct RegistryOptions {
    /// `registry-username`/`registry-password`. Presented only when the registry asks
    /// (Basic, or exchanged for a bearer token at the realm it names).
    pub credentials: Option<Credentials>,
    /// The `github-token` input: presented to ghcr.io as user `x-access-token` when no
    /// registry credentials are given.
    pub github_token: Option<String>,
    /// `HOST:PORT` entries spoken to over plain HTTP (local registries, tests).
    pub insecure: Vec<String>,
    /// Retries and the deadline.
    pub retry: RetryPolicy,
    /// The clock; `None` for the real one ([`TokioTimer`]).
    pub timer: Option<Arc<dyn Timer>>,
}

impl std::fmt::Debug for RegistryOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegistryOptions")
            .field("credentials", &self.credentials)
            .field("github_token", &self.github_token.as_ref().map(|_| "***"))
            .field("insecure", &self.insecure)
            .field("retry", &self.retry)
            .finish_non_exhaustive()
    }
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
/// the fix: tag or repository not found, access denied (which credentials were tried),
/// token endpoint failure, unreachable (host, port, attempts), TLS failure, still failing
/// (429/5xx) or no answer within the deadline, a digest header the bytes contradict, or an
/// unusable digest.
pub async fn resolve(
    reference: &Reference,
    options: &RegistryOptions,
) -> Result<Resolved, RegistryError> {
    let timer: Arc<dyn Timer> = match &options.timer {
        Some(t) => Arc::clone(t),
        None => Arc::new(TokioTimer::start()),
    };
    let mut session = Session::new(reference, options, timer.as_ref())?;
    session.run().await
}

#[derive(Clone)]
enum Authorization {
    None,
    Basic(Credentials),
    Bearer(String),
}

struct Session<'a> {
    client: reqwest::Client,
    sender: Sender<'a>,
    registry: String,
    repository: String,
    image: String,
    scheme: &'static str,
    url: String,
    credentials: Option<Credentials>,
    authorization: Authorization,
}

impl<'a> Session<'a> {
    fn new(
        reference: &Reference,
        options: &'a RegistryOptions,
        timer: &'a dyn Timer,
    ) -> Result<Self, RegistryError> {
        let registry = reference.resolve_registry().to_string();
        let image = reference.whole();
        let scheme = if options.insecure.iter().any(|i| i == &registry) {
            "http"
        } else {
            "https"
        };
        let target = reference
            .digest()
            .or(reference.tag())
            .unwrap_or("latest")
            .to_string();
        let url = format!(
            "{scheme}://{registry}/v2/{}/manifests/{target}",
            reference.repository()
        );
        let client = reqwest::Client::builder()
            .user_agent(concat!("codeq-rollout/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| RegistryError::Protocol {
                registry: registry.clone(),
                image: image.clone(),
                detail: format!("cannot set up the HTTP client: {e}"),
            })?;
        Ok(Self {
            client,
            sender: Sender {
                policy: &options.retry,
                timer,
                requests: 0,
            },
            credentials: auth::credentials_for(
                &registry,
                options.credentials.as_ref(),
                options.github_token.as_deref(),
            ),
            repository: reference.repository().to_string(),
            registry,
            image,
            scheme,
            url,
            authorization: Authorization::None,
        })
    }

    async fn run(&mut self) -> Result<Resolved, RegistryError> {
        let mut head = self.manifest(Method::HEAD).await?;
        if head.status == StatusCode::UNAUTHORIZED && self.authenticate(&head).await? {
            head = self.manifest(Method::HEAD).await?;
        }
        if head.status.is_success() {
            return match header(&head, "docker-content-digest") {
                Some(value) => self.resolved(&value, &head),
                None => {
                    let get = self.manifest(Method::GET).await?;
                    self.digest_of_get(get)
                }
            };
        }
        match head.status {
            StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN | StatusCode::NOT_FOUND => {
                // A HEAD answer has no body: one GET for the registry's own message.
                match self.manifest(Method::GET).await {
                    Ok(get) => self.digest_of_get(get),
                    Err(_) => Err(self.refusal(head.status, &[])),
                }
            }
            status => Err(self.protocol(format!("HTTP {status} on HEAD {}", self.url))),
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
                self.authorization = Authorization::Bearer(token);
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// One token request at `realm` for `repository:<repo>:pull`.
    async fn token(&mut self, realm: &str, service: Option<&str>) -> Result<String, RegistryError> {
        let realm_url = reqwest::Url::parse(realm).map_err(|e| {
            self.protocol(format!(
                "its WWW-Authenticate realm {realm:?} is not a URL ({e})"
            ))
        })?;
        let scope = format!("repository:{}:pull", self.repository);
        let mut query = vec![("scope", scope.as_str())];
        if let Some(service) = service {
            query.push(("service", service));
        }
        let credentials = self.credentials.clone();
        let client = self.client.clone();
        let sent = self
            .sender
            .send(|| {
                let request = client.get(realm_url.clone()).query(&query);
                match &credentials {
                    Some(c) => request.basic_auth(&c.username, Some(&c.password)),
                    None => request,
                }
            })
            .await;
        let realm_shown = format!(
            "{}://{}{}",
            realm_url.scheme(),
            realm_url.host_str().unwrap_or_default(),
            realm_url
                .port()
                .map(|p| format!(":{p}"))
                .unwrap_or_default()
        ) + realm_url.path();
        let authentication =
            |status: u16, message: Option<String>, this: &Self| RegistryError::Authentication {
                registry: this.registry.clone(),
                realm: realm_shown.clone(),
                status,
                message,
                tried: auth::tried(this.credentials.as_ref()),
                fix: auth::fix(&this.registry, &this.repository, this.credentials.as_ref()),
            };
        let answer = match sent {
            Ok(answer) => answer,
            Err(Failure::Status { answer, .. }) => {
                return Err(authentication(
                    answer.status.as_u16(),
                    self.message(&answer.body),
                    self,
                ));
            }
            Err(failure) => {
                let host = realm_url.host_str().unwrap_or_default().to_string();
                let port = realm_url.port_or_known_default().unwrap_or_default();
                let endpoint = format!(
                    "the token endpoint {realm_shown} of registry {}",
                    self.registry
                );
                return Err(self.transport(failure, &endpoint, host, port));
            }
        };
        if !answer.status.is_success() {
            return Err(authentication(
                answer.status.as_u16(),
                self.message(&answer.body),
                self,
            ));
        }
        let token = auth::token_from(&answer.body).ok_or_else(|| {
            authentication(
                answer.status.as_u16(),
                Some("the answer holds no token".into()),
                self,
            )
        })?;
        // reqwest would refuse to build the next request with it (a builder error, "failed to
        // parse header value"): say what is wrong instead.
        if reqwest::header::HeaderValue::try_from(format!("Bearer {token}")).is_err() {
            return Err(authentication(
                answer.status.as_u16(),
                Some(
                    "the token it sent is not a valid HTTP header value (it holds a line break or \
                     another control character); check the registry's token service"
                        .into(),
                ),
                self,
            ));
        }
        Ok(token)
    }

    /// One manifest request (with retries) under the current authorization.
    async fn manifest(&mut self, method: Method) -> Result<Answer, RegistryError> {
        let client = self.client.clone();
        let url = self.url.clone();
        let authorization = self.authorization.clone();
        let sent = self
            .sender
            .send(|| {
                let request = client
                    .request(method.clone(), &url)
                    .header(reqwest::header::ACCEPT, ACCEPT_MANIFESTS);
                match &authorization {
                    Authorization::None => request,
                    Authorization::Basic(c) => request.basic_auth(&c.username, Some(&c.password)),
                    Authorization::Bearer(token) => request.bearer_auth(token),
                }
            })
            .await;
        sent.map_err(|failure| {
            let (host, port) = self.host_port();
            self.transport(failure, &format!("registry {}", self.registry), host, port)
        })
    }

    /// The digest from a GET answer: sha256 of the exact bytes, checked against the
    /// `Docker-Content-Digest` header when there is one. A refusal (401/403/404) becomes the
    /// matching error with the registry's message. A GET that serves the manifest after a
    /// refused HEAD (a tag pushed in between) is answered from the bytes in hand.
    fn digest_of_get(&self, get: Answer) -> Result<Resolved, RegistryError> {
        if !get.status.is_success() {
            return Err(self.refusal(get.status, &get.body));
        }
        let computed = Digest::of_bytes(&get.body);
        if let Some(value) = header(&get, "docker-content-digest") {
            if value.trim() != computed.as_str() {
                return Err(RegistryError::DigestMismatch {
                    registry: self.registry.clone(),
                    image: self.image.clone(),
                    header: crate::sanitize::log_line(&value, 100),
                    computed: computed.to_string(),
                });
            }
        }
        Ok(Resolved {
            media_type: header(&get, "content-type").unwrap_or_default(),
            digest: computed,
            requests: self.sender.requests,
        })
    }

    fn resolved(&self, value: &str, head: &Answer) -> Result<Resolved, RegistryError> {
        let digest =
            Digest::parse(value.trim()).map_err(|source| RegistryError::InvalidDigest {
                registry: self.registry.clone(),
                image: self.image.clone(),
                source,
            })?;
        Ok(Resolved {
            digest,
            media_type: header(head, "content-type").unwrap_or_default(),
            requests: self.sender.requests,
        })
    }

    /// The error for a 401, 403 or 404 (with the body of the GET when there is one).
    fn refusal(&self, status: StatusCode, body: &[u8]) -> RegistryError {
        let message = self.message(body);
        match status {
            StatusCode::NOT_FOUND
                if errors::error_code(body).as_deref() == Some("NAME_UNKNOWN") =>
            {
                RegistryError::RepositoryNotFound {
                    registry: self.registry.clone(),
                    repository: self.repository.clone(),
                    image: self.image.clone(),
                    message,
                }
            }
            StatusCode::NOT_FOUND => RegistryError::TagNotFound {
                registry: self.registry.clone(),
                image: self.image.clone(),
                message,
            },
            StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => RegistryError::Denied {
                registry: self.registry.clone(),
                image: self.image.clone(),
                status: status.as_u16(),
                message,
                tried: auth::tried(self.credentials.as_ref()),
                fix: auth::fix(&self.registry, &self.repository, self.credentials.as_ref()),
            },
            status => self.protocol(format!(
                "HTTP {status} on GET {}{}",
                self.url,
                message.map(|m| format!(": {m}")).unwrap_or_default()
            )),
        }
    }

    fn transport(
        &self,
        failure: Failure,
        endpoint: &str,
        host: String,
        port: u16,
    ) -> RegistryError {
        match failure {
            Failure::Connect {
                attempts,
                elapsed,
                cause,
            } => RegistryError::Unreachable {
                registry: self.registry.clone(),
                endpoint: endpoint.to_string(),
                host,
                port,
                attempts,
                elapsed,
                cause,
            },
            Failure::Tls { cause } => RegistryError::Tls {
                registry: self.registry.clone(),
                suggest_insecure: errors::is_loopback_or_private(&host),
                host,
                port,
                cause,
            },
            Failure::Status {
                answer,
                attempts,
                elapsed,
                retry_after,
            } => RegistryError::Unavailable {
                registry: self.registry.clone(),
                image: self.image.clone(),
                status: answer.status.as_u16(),
                message: self.message(&answer.body),
                attempts,
                elapsed,
                retry_after,
            },
            Failure::TimedOut { attempts } => RegistryError::TimedOut {
                registry: self.registry.clone(),
                image: self.image.clone(),
                timeout: self.sender.policy.timeout,
                attempts,
            },
            Failure::Other { cause } => self.protocol(cause),
        }
    }

    /// The registry's own message in `body` ([`errors::registry_message`]), with the
    /// credentials scrubbed from the raw body first ([`auth::scrub`]).
    fn message(&self, body: &[u8]) -> Option<String> {
        errors::registry_message(&auth::scrub(body, self.credentials.as_ref()))
    }

    fn protocol(&self, detail: String) -> RegistryError {
        RegistryError::Protocol {
            registry: self.registry.clone(),
            image: self.image.clone(),
            detail,
        }
    }

    /// Host and port of the registry, for "unreachable" and TLS errors.
    fn host_port(&self) -> (String, u16) {
        let default = if self.scheme == "http" { 80 } else { 443 };
        match reqwest::Url::parse(&format!("{}://{}", self.scheme, self.registry)) {
            Ok(url) => (
                url.host_str().unwrap_or(&self.registry).to_string(),
                url.port().unwrap_or(default),
            ),
            Err(_) => (self.registry.clone(), default),
        }
    }
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

    #[test]
    fn options_debug_hides_secrets() {
        let options = RegistryOptions {
            credentials: Some(Credentials {
                username: "ci".into(),
                password: "hunter2".into(),
                source: CredentialSource::RegistryInputs,
            }),
            github_token: Some("ghs_secret".into()),
            ..Default::default()
        };
        let shown = format!("{options:?}");
        assert!(
            !shown.contains("hunter2") && !shown.contains("ghs_secret"),
            "{shown}"
        );
    }
}
