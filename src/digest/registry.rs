//! Resolving a digest from a registry with `oci-client`.
//!
//! `Client::fetch_manifest_digest` sends a HEAD on `/v2/<repo>/manifests/<tag>` whose
//! `Accept` lists the OCI image index, Docker manifest list, OCI manifest and Docker v2
//! manifest types, so a multi-arch image yields its index digest (with fewer types,
//! registries substitute a platform's manifest: distribution issues 3431 and 2395). When
//! the registry sends no `Docker-Content-Digest` (ECR), it GETs the manifest and hashes the
//! exact bytes. `Client::auth` is called first so token-endpoint failures surface as
//! authentication errors instead of an anonymous "unauthorized" later.

use super::Digest;
use anyhow::{Result, anyhow, bail};
use oci_client::errors::OciDistributionError;
use oci_client::secrets::RegistryAuth;
use oci_client::{
    Client, Reference, RegistryOperation, client::ClientConfig, client::ClientProtocol,
};

/// How to reach and authenticate to the registry.
#[derive(Clone, Default)]
pub struct RegistryOptions {
    /// Basic credentials `(username, password)`; exchanged for a bearer token at the
    /// realm the registry names when it asks for one.
    pub credentials: Option<(String, String)>,
    /// `HOST:PORT` entries spoken to over plain HTTP (local registries, tests).
    pub insecure: Vec<String>,
}

impl std::fmt::Debug for RegistryOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegistryOptions")
            .field("username", &self.credentials.as_ref().map(|c| &c.0))
            .field("insecure", &self.insecure)
            .finish()
    }
}

/// Resolves the digest `reference` points to now.
///
/// # Errors
/// Each names the registry and repository and carries the registry's own message:
/// authentication failed (names the credential inputs to set), tag or repository not
/// found, unreachable registry, or a digest that is not `sha256:<64 hex>`.
pub async fn resolve(reference: &Reference, options: &RegistryOptions) -> Result<Digest> {
    let config = ClientConfig {
        protocol: ClientProtocol::HttpsExcept(options.insecure.clone()),
        ..Default::default()
    };
    let client = Client::new(config);
    let auth = match &options.credentials {
        Some((user, password)) => RegistryAuth::Basic(user.clone(), password.clone()),
        None => RegistryAuth::Anonymous,
    };
    let token = client
        .auth(reference, &auth, RegistryOperation::Pull)
        .await
        .map_err(|err| explain(reference, options, err))?;
    // oci-client puts the token into an `Authorization` header with `unwrap`: a token with
    // a line break or another control character from a broken token endpoint would panic.
    if let Some(token) = &token {
        if http::HeaderValue::from_str(&format!("Bearer {token}")).is_err() {
            bail!(
                "registry {} answered the token request for {} with a token that is not a valid HTTP header value (control characters); check the registry's token service",
                reference.resolve_registry(),
                reference.whole()
            );
        }
    }
    let digest = client
        .fetch_manifest_digest(reference, &auth)
        .await
        .map_err(|err| explain(reference, options, err))?;
    Digest::parse(&digest).map_err(|err| {
        anyhow!(
            "registry {} answered with an unusable digest for {}: {err}",
            reference.resolve_registry(),
            reference.whole()
        )
    })
}

fn credentials_hint(options: &RegistryOptions) -> String {
    match &options.credentials {
        Some((user, _)) => format!("tried Basic credentials for user {user:?}"),
        None => "tried anonymously; set registry-username and registry-password \
                 (--registry-username/--registry-password)"
            .to_string(),
    }
}

/// The most characters of a registry's own message an error echoes.
const ECHO_MAX_CHARS: usize = 1000;

/// Turns an `oci-client` error into one that says what failed and what to do. What the
/// registry said is echoed as one line of at most [`ECHO_MAX_CHARS`], with the password and
/// the Basic `user:password` token scrubbed, since a registry or proxy may echo the request.
fn explain(
    reference: &Reference,
    options: &RegistryOptions,
    err: OciDistributionError,
) -> anyhow::Error {
    let text = format!("{:#}", explain_unscrubbed(reference, options, err));
    anyhow!(scrub(&text, options))
}

/// `text` with the password of `options` replaced by `***`, in every form
/// [`crate::report::secret_forms`] lists, and the base64 of `user:password`.
fn scrub(text: &str, options: &RegistryOptions) -> String {
    use base64::Engine as _;
    let Some((user, password)) = &options.credentials else {
        return text.to_string();
    };
    if password.trim().is_empty() {
        return text.to_string();
    }
    let mut forms = crate::report::secret_forms(password.trim());
    forms.extend(crate::report::secret_forms(password));
    forms.push(base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}")));
    forms.sort_by_key(|s| std::cmp::Reverse(s.len()));
    forms.iter().fold(text.to_string(), |acc, form| {
        acc.replace(form.as_str(), "***")
    })
}

fn echo(text: &str) -> String {
    crate::sanitize::clean_line(text, ECHO_MAX_CHARS)
}

fn explain_unscrubbed(
    reference: &Reference,
    options: &RegistryOptions,
    err: OciDistributionError,
) -> anyhow::Error {
    let registry = reference.resolve_registry();
    let image = reference.whole();
    match err {
        OciDistributionError::AuthenticationFailure(reason) => anyhow!(
            "authentication to registry {registry} failed for {image}: {} ({})",
            echo(&reason),
            credentials_hint(options)
        ),
        OciDistributionError::UnauthorizedError { .. } => anyhow!(
            "registry {registry} refused access to {image} (401 unauthorized; {})",
            credentials_hint(options)
        ),
        OciDistributionError::RegistryError { envelope, .. } => {
            let codes: Vec<String> = envelope
                .errors
                .iter()
                .map(|e| format!("{:?}: {}", e.code, e.message))
                .collect();
            let text = echo(&codes.join("; "));
            if text.contains("ManifestUnknown") {
                anyhow!(
                    "tag not found: registry {registry} has no manifest for {image} ({text}); check the tag was pushed"
                )
            } else if text.contains("NameUnknown") {
                anyhow!(
                    "repository not found: registry {registry} does not know {} ({text})",
                    reference.repository()
                )
            } else if text.contains("Unauthorized") || text.contains("Denied") {
                anyhow!(
                    "registry {registry} denied access to {image} ({text}; {})",
                    credentials_hint(options)
                )
            } else {
                anyhow!("registry {registry} refused the manifest look-up for {image}: {text}")
            }
        }
        OciDistributionError::ImageManifestNotFoundError(msg) => {
            anyhow!(
                "tag not found: registry {registry} has no manifest for {image} ({})",
                echo(&msg)
            )
        }
        OciDistributionError::ServerError { code, message, .. } => anyhow!(
            "registry {registry} answered HTTP {code} for {image}: {}",
            echo(&message)
        ),
        OciDistributionError::RequestError(e) => {
            let mut text = e.to_string();
            let mut source = std::error::Error::source(&e);
            while let Some(s) = source {
                text.push_str(&format!(": {s}"));
                source = s.source();
            }
            anyhow!(
                "cannot reach registry {registry} for {image}: {}",
                echo(&text)
            )
        }
        other => anyhow!(
            "registry look-up of {image} failed: {}",
            echo(&other.to_string())
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn echoed_credentials_are_scrubbed() {
        let options = RegistryOptions {
            credentials: Some(("robot".into(), "s3cret/pw".into())),
            insecure: vec![],
        };
        // base64("robot:s3cret/pw") = cm9ib3Q6czNjcmV0L3B3
        let text = "denied: Basic cm9ib3Q6czNjcmV0L3B3 (robot:s3cret/pw) s3cret%2Fpw";
        assert_eq!(scrub(text, &options), "denied: Basic *** (robot:***) ***");
    }
}
