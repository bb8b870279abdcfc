//! Stage 1: the digest the image reference points to now.
//!
//! The digest is the identity of a release: it names the release tag, the hidden markers in
//! the release note and tracking issue, and the stale-pod check of the break-glass runbook.
//! It must be the digest Kubernetes records for a pod (`imageID`): for a multi-arch image,
//! the digest of the image index (or Docker manifest list), not of a platform's manifest.

pub(crate) mod host;
pub(crate) mod layout;
pub(crate) mod manifest;
pub(crate) mod reference;
pub(crate) mod registry;
mod source;

pub(crate) use source::ImageProblem;
pub use source::ImageSource;
pub(crate) use source::PodReference;

use std::fmt;

/// A validated content digest: `sha256:` followed by 64 lower-case hex digits,
/// e.g. `sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Digest(String);

/// A string that is not a `sha256:<64 lower-case hex>` digest. Its words are the render
/// layer's (`crate::render::help::registry`).
#[derive(Debug, PartialEq, Eq)]
pub struct InvalidDigest(pub(crate) String);

impl Digest {
    /// Validates `text` as `sha256:<64 lower-case hex>`.
    ///
    /// # Errors
    /// `InvalidDigest` for any other algorithm, length, or upper-case hex.
    pub fn parse(text: &str) -> Result<Self, InvalidDigest> {
        let hex = text.strip_prefix("sha256:").unwrap_or_default();
        let valid = hex.len() == 64 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
        valid
            .then(|| Self(text.to_string()))
            .ok_or_else(|| InvalidDigest(text.into()))
    }

    /// The sha256 digest of `bytes`, e.g. of a raw manifest.
    pub fn of_bytes(bytes: &[u8]) -> Self {
        use sha2::Digest as _;
        Self(format!(
            "sha256:{}",
            hex::encode(sha2::Sha256::digest(bytes))
        ))
    }

    /// The whole digest, `sha256:<64 hex>`.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The 64 hex digits without the `sha256:` prefix.
    pub(crate) fn hex(&self) -> &str {
        &self.0["sha256:".len()..]
    }

    /// The first 12 hex digits, as `docker images` shows them.
    pub fn short(&self) -> &str {
        &self.hex()[..12]
    }
}

impl fmt::Display for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The registry's tag points to another digest than the one the build step reported (or, for a
/// digest-pinned image, the pin and `--expected-digest` name different images). Its words are
/// the render layer's (`Display`, `crate::render::help`).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct DigestMoved {
    /// The image reference as given.
    pub(crate) image: String,
    /// What the tag points to now (for a pinned image, the pin the registry confirmed).
    pub(crate) resolved: Digest,
    /// What the build step reported.
    pub(crate) expected: Digest,
}

impl std::error::Error for DigestMoved {}

/// Checks the resolved digest against `--expected-digest` (none given: nothing to check).
///
/// # Errors
/// [`DigestMoved`] when they differ.
pub(crate) fn check_expected(
    image: &str,
    resolved: &Digest,
    expected: Option<&Digest>,
) -> Result<(), DigestMoved> {
    match expected {
        Some(expected) if expected != resolved => Err(DigestMoved {
            image: image.to_string(),
            resolved: resolved.clone(),
            expected: expected.clone(),
        }),
        _ => Ok(()),
    }
}

/// The digest `source` names now: the OCI layout's index entry, or the registry's answer to
/// a HEAD (see [`registry::resolve`]); `registry` is required for a registry reference.
///
/// # Errors
/// The layout's or the registry's error; a registry reference without `registry`.
pub(crate) async fn resolve(
    source: &ImageSource,
    registry: Option<&registry::RegistryOptions>,
) -> anyhow::Result<Digest> {
    match (source, registry) {
        (ImageSource::Layout { dir, tag }, _) => Ok(layout::resolve(dir, tag.as_deref())?),
        (ImageSource::Registry(reference), Some(options)) => {
            Ok(registry::resolve(reference, options).await?.digest)
        }
        (ImageSource::Registry(_), None) => Err(anyhow::anyhow!("no registry options")),
    }
}

/// The child manifests of the image index `digest` that `source` names
/// ([`manifest::children`]): read from the layout's blob, or with one GET of
/// `/v2/<repo>/manifests/<digest>` ([`registry::children`], authenticated as [`resolve`]
/// is). Empty for a single-platform image.
///
/// # Errors
/// The layout's or the registry's error; a registry reference without `registry`.
pub(crate) async fn children(
    source: &ImageSource,
    registry: Option<&registry::RegistryOptions>,
    digest: &Digest,
) -> anyhow::Result<Vec<Digest>> {
    match (source, registry) {
        (ImageSource::Layout { dir, .. }, _) => Ok(layout::children(dir, digest)?),
        (ImageSource::Registry(reference), Some(options)) => {
            Ok(registry::children(reference, digest, options).await?)
        }
        (ImageSource::Registry(_), None) => Err(anyhow::anyhow!("no registry options")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expected_digest_mismatch_names_both_and_the_moved_tag() {
        let a = Digest::of_bytes(b"a");
        let b = Digest::of_bytes(b"b");
        assert_eq!(check_expected("r/lab:latest", &a, Some(&a)), Ok(()));
        assert_eq!(check_expected("r/lab:latest", &a, None), Ok(()));
        let err = check_expected("r/lab:latest", &a, Some(&b))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(a.as_str()) && err.contains(b.as_str()),
            "{err}"
        );
        assert!(err.contains("moved the tag"), "{err}");
        let pinned = format!("r/lab@{a}");
        let err = check_expected(&pinned, &a, Some(&b))
            .unwrap_err()
            .to_string();
        assert!(err.contains(&format!("{pinned} is pinned to {a}")), "{err}");
        assert!(!err.contains("moved the tag"), "{err}");
    }

    const HEX: &str = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

    #[test]
    fn a_sha256_digest_parses_and_shortens() {
        let d = Digest::parse(&format!("sha256:{HEX}")).unwrap();
        assert_eq!(d.hex(), HEX);
        assert_eq!(d.short(), "9f86d081884c");
    }

    #[test]
    fn malformed_digests_are_refused() {
        for bad in [
            "",
            HEX,
            "sha512:abc",
            &format!("sha256:{}", HEX.to_uppercase()),
            &format!("sha256:{}", &HEX[1..]),
            &format!("sha256:{HEX}0"),
            &format!("sha256:{}g", &HEX[1..]),
        ] {
            assert!(Digest::parse(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn of_bytes_is_sha256() {
        assert_eq!(Digest::of_bytes(b"test").hex(), HEX);
    }
}
