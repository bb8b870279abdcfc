//! Registry authentication: which credentials to present, the `WWW-Authenticate` challenge,
//! and the bearer token exchange (distribution's token auth spec, as GHCR, Docker Hub, quay,
//! Artifact Registry and Harbor implement it).
//!
//! Credentials are never sent before the registry asks: the first HEAD goes out anonymous,
//! and only a 401 with a challenge leads to Basic credentials (a `Basic` challenge) or to one
//! token request at the realm the registry names (a `Bearer` challenge), with the Basic
//! credentials if there are any, anonymously otherwise (public images).

use crate::support::secrets::{ExposeSecret, SecretString};

/// Where the credentials came from, so errors can name the input to change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CredentialSource {
    /// `registry-username` and `registry-password`.
    RegistryInputs,
    /// `github-token`, presented as user `x-access-token` to ghcr.io when no registry
    /// credentials are given (what a workflow's `GITHUB_TOKEN` works as).
    GitHubToken,
}

/// Basic credentials for the registry. `Debug` never shows the password ([`SecretString`]).
#[derive(Debug, Clone)]
pub struct Credentials {
    /// User name.
    pub username: String,
    /// Password or token, exposed only to build the `Authorization` header.
    pub password: SecretString,
    /// Which inputs they came from.
    pub source: CredentialSource,
}

impl Credentials {
    /// The password, for the one request header that carries it.
    pub(crate) fn password(&self) -> &str {
        self.password.expose_secret()
    }

    /// The `registry-username` and `registry-password` inputs as credentials: both or
    /// neither (a blank user name or an empty password counts as not given; the user name is
    /// trimmed, the password kept as given).
    ///
    /// # Errors
    /// The input missing when only the other is given ([`MissingInput`]).
    pub(crate) fn from_inputs(
        username: Option<&str>,
        password: Option<&SecretString>,
    ) -> Result<Option<Self>, MissingInput> {
        let username = username.map(str::trim).filter(|u| !u.is_empty());
        let password = password
            .map(ExposeSecret::expose_secret)
            .filter(|p| !p.is_empty());
        match (username, password) {
            (Some(username), Some(password)) => Ok(Some(Self {
                username: username.to_string(),
                password: password.into(),
                source: CredentialSource::RegistryInputs,
            })),
            (Some(_), None) => Err(MissingInput::Password),
            (None, Some(_)) => Err(MissingInput::Username),
            (None, None) => Ok(None),
        }
    }
}

/// The registry input missing from a pair given half ([`Credentials::from_inputs`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MissingInput {
    /// A user name without a password (`registry-password` missing).
    Password,
    /// A password without a user name (`registry-username` missing).
    Username,
}

/// The credentials to present to `registry`: the registry inputs when given; else, for
/// `ghcr.io`, the GitHub token as user `x-access-token`; else none (anonymous).
pub(crate) fn credentials_for(
    registry: &str,
    inputs: Option<&Credentials>,
    github_token: Option<&SecretString>,
) -> Option<Credentials> {
    if let Some(c) = inputs {
        return Some(c.clone());
    }
    let token = github_token
        .map(|t| t.expose_secret().trim())
        .filter(|t| !t.is_empty())?;
    registry
        .eq_ignore_ascii_case("ghcr.io")
        .then(|| Credentials {
            username: "x-access-token".into(),
            password: token.into(),
            source: CredentialSource::GitHubToken,
        })
}

/// What a 401 asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Challenge {
    /// `Basic realm="..."` (htpasswd registries, ECR).
    Basic,
    /// `Bearer realm="https://auth.example/token",service="registry.example"`.
    Bearer {
        realm: String,
        service: Option<String>,
    },
}

/// Reads the challenges of a `WWW-Authenticate` header (parsed by `http-auth`, as in
/// oci-client); a `Bearer` challenge with a realm wins over `Basic`. `None` when there is
/// neither.
pub(crate) fn challenge(header: &str) -> Option<Challenge> {
    let mut basic = false;
    for parsed in http_auth::ChallengeParser::new(header) {
        let Ok(c) = parsed else { continue };
        if c.scheme.eq_ignore_ascii_case("bearer") {
            let param = |name: &str| {
                c.params
                    .iter()
                    .find(|(k, _)| k.eq_ignore_ascii_case(name))
                    .map(|(_, v)| v.to_unescaped())
            };
            if let Some(realm) = param("realm") {
                return Some(Challenge::Bearer {
                    realm,
                    service: param("service"),
                });
            }
        } else if c.scheme.eq_ignore_ascii_case("basic") {
            basic = true;
        }
    }
    basic.then_some(Challenge::Basic)
}

/// The token in a token endpoint's answer: `token`, or OAuth2's `access_token`.
pub(crate) fn token_from(body: &[u8]) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Answer {
        token: Option<String>,
        access_token: Option<String>,
    }
    let answer: Answer = serde_json::from_slice(body).ok()?;
    answer
        .token
        .or(answer.access_token)
        .filter(|t| !t.trim().is_empty())
}

/// Which credentials `credentials` presents, without the secret, for error messages.
pub(crate) fn presented(credentials: Option<&Credentials>) -> super::errors::Presented {
    use super::errors::Presented;
    match credentials {
        None => Presented::Anonymous,
        Some(c) => match c.source {
            CredentialSource::RegistryInputs => Presented::RegistryInputs {
                username: c.username.clone(),
            },
            CredentialSource::GitHubToken => Presented::GitHubToken,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_challenge_gives_realm_and_service() {
        let c = challenge(
            r#"Bearer realm="https://ghcr.io/token",service="ghcr.io",scope="repository:org/lab:pull""#,
        );
        assert_eq!(
            c,
            Some(Challenge::Bearer {
                realm: "https://ghcr.io/token".into(),
                service: Some("ghcr.io".into())
            })
        );
    }

    #[test]
    fn basic_challenge_and_garbage() {
        assert_eq!(
            challenge(r#"Basic realm="Registry Realm""#),
            Some(Challenge::Basic)
        );
        assert_eq!(challenge("Bearer service=\"x\""), None);
        assert_eq!(challenge(""), None);
        assert_eq!(
            challenge(r#"Basic realm="r", Bearer realm="https://a/t""#),
            Some(Challenge::Bearer {
                realm: "https://a/t".into(),
                service: None
            })
        );
    }

    #[test]
    fn registry_inputs_are_both_or_neither() {
        let pw = |p: &str| SecretString::from(p);
        let pair = |u: Option<&str>, p: Option<SecretString>| {
            Credentials::from_inputs(u, p.as_ref()).map(|c| c.map(|c| (c.username, c.source)))
        };
        let ci = Ok(Some(("ci".to_string(), CredentialSource::RegistryInputs)));
        assert_eq!(pair(Some(" ci "), Some(pw("hunter2"))), ci);
        assert_eq!(pair(Some("ci"), Some(pw(""))), Err(MissingInput::Password));
        assert_eq!(pair(Some("ci"), None), Err(MissingInput::Password));
        assert_eq!(pair(Some(" "), Some(pw("x"))), Err(MissingInput::Username));
        assert_eq!(pair(None, Some(pw(" "))), Err(MissingInput::Username));
        assert_eq!(pair(Some(" "), Some(pw(""))), Ok(None));
        assert_eq!(pair(None, None), Ok(None));
    }

    #[test]
    fn ghcr_without_registry_credentials_uses_the_github_token() {
        let token = SecretString::from("ghs_x");
        let c = credentials_for("ghcr.io", None, Some(&token)).unwrap();
        assert_eq!(
            (c.username.as_str(), c.password(), c.source),
            ("x-access-token", "ghs_x", CredentialSource::GitHubToken)
        );
        assert!(credentials_for("quay.io", None, Some(&token)).is_none());
        assert!(credentials_for("ghcr.io", None, Some(&"  ".into())).is_none());
        let inputs = Credentials {
            username: "ci".into(),
            password: "pw".into(),
            source: CredentialSource::RegistryInputs,
        };
        let c = credentials_for("ghcr.io", Some(&inputs), Some(&token)).unwrap();
        assert_eq!(
            (c.username.as_str(), c.password(), c.source),
            ("ci", "pw", CredentialSource::RegistryInputs)
        );
    }

    #[test]
    fn token_answers_and_descriptions_never_show_the_secret() {
        assert_eq!(token_from(br#"{"token":"t1"}"#).as_deref(), Some("t1"));
        assert_eq!(
            token_from(br#"{"access_token":"t2"}"#).as_deref(),
            Some("t2")
        );
        assert_eq!(token_from(br#"{"token":""}"#), None);
        assert_eq!(token_from(b"<html>"), None);
        let c = Credentials {
            username: "ci".into(),
            password: "hunter2".into(),
            source: CredentialSource::RegistryInputs,
        };
        assert!(!format!("{c:?}").contains("hunter2"));
        assert!(!format!("{:?}", presented(Some(&c))).contains("hunter2"));
    }
}
