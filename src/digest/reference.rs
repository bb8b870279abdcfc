//! Parsing an image reference (`ghcr.io/org/lab:latest`) into `oci-client`'s [`Reference`]
//! without the start-up cost of `Reference::from_str`.
//!
//! oci-spec's parser compiles distribution's reference pattern with Unicode classes: its
//! tag part `[\w][\w.-]{0,127}` expands to 128 copies of the Unicode word class, which took
//! about 260 million instructions, most of a whole announce run (issue 9's measurement). The
//! grammar (distribution's `reference/regexp.go`) is ASCII: Go's `\w` is `[0-9A-Za-z_]`. So
//! the same pattern is compiled here with Unicode off, and the rest of oci-spec's
//! `TryFrom<&str>` is followed step for step (defaults and Docker Hub normalisation as
//! distribution's `normalize.go`; a test compares both parsers).

use oci_client::{ParseError, Reference};
use regex::{Regex, RegexBuilder};
use std::sync::LazyLock;

/// distribution's reference grammar, as oci-spec 0.10 writes it: capture 1 the name, 2 the
/// tag, 3 the digest.
const REFERENCE: &str = r"^((?:(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])(?:(?:\.(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))+)?(?::[0-9]+)?/)?[a-z0-9]+(?:(?:(?:[._]|__|[-]*)[a-z0-9]+)+)?(?:(?:/[a-z0-9]+(?:(?:(?:[._]|__|[-]*)[a-z0-9]+)+)?)+)?)(?::([\w][\w.-]{0,127}))?(?:@([A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][[:xdigit:]]{32,}))?$";

/// The longest repository name distribution accepts, in characters.
const NAME_TOTAL_LENGTH_MAX: usize = 255;

/// [`REFERENCE`] compiled with Unicode off (ASCII classes), once.
static PATTERN: LazyLock<Regex> = LazyLock::new(|| {
    let pattern = RegexBuilder::new(REFERENCE).unicode(false).build();
    pattern.expect("the reference grammar compiles")
});

/// Parses `text` as `[REGISTRY/]REPOSITORY[:TAG][@DIGEST]`: no tag and no digest means
/// `:latest`; a name without a registry is on Docker Hub (`docker.io`, official images under
/// `library/`).
///
/// # Errors
/// oci-spec's [`ParseError`] for the same inputs as `Reference::from_str` (for tags, ASCII
/// word characters only, as distribution's grammar says).
pub(super) fn parse(text: &str) -> Result<Reference, ParseError> {
    if text.is_empty() {
        return Err(ParseError::NameEmpty);
    }
    let captures = PATTERN
        .captures(text)
        .ok_or(ParseError::ReferenceInvalidFormat)?;
    let name = &captures[1];
    let tag = captures.get(2).map(|m| m.as_str().to_string());
    let digest = captures.get(3).map(|m| m.as_str().to_string());
    let (registry, repository) = split_domain(name);
    if repository.len() > NAME_TOTAL_LENGTH_MAX {
        return Err(ParseError::NameTooLong);
    }
    if let Some(digest) = &digest {
        let (algorithm, hex) = digest
            .split_once(':')
            .ok_or(ParseError::DigestInvalidFormat)?;
        let expected = match algorithm {
            "sha256" => 64,
            "sha384" => 96,
            "sha512" => 128,
            _ => return Err(ParseError::DigestUnsupported),
        };
        if hex.len() != expected {
            return Err(ParseError::DigestInvalidLength);
        }
    }
    Ok(match (tag, digest) {
        (Some(tag), Some(digest)) => {
            Reference::with_tag_and_digest(registry, repository, tag, digest)
        }
        (None, Some(digest)) => Reference::with_digest(registry, repository, digest),
        (tag, None) => {
            Reference::with_tag(registry, repository, tag.unwrap_or_else(|| "latest".into()))
        }
    })
}

/// distribution's `splitDockerDomain`: the first path component is a registry when it has a
/// `.` or a `:` or is `localhost`; otherwise the name is on Docker Hub, where a name of one
/// component is an official image (`library/NAME`).
pub(crate) fn split_domain(name: &str) -> (String, String) {
    let (mut domain, mut rest) = match name.split_once('/') {
        Some((first, rest)) if first.contains(['.', ':']) || first == "localhost" => {
            (first.to_string(), rest.to_string())
        }
        _ => ("docker.io".to_string(), name.to_string()),
    };
    if domain == "index.docker.io" {
        domain = "docker.io".into();
    }
    if domain == "docker.io" && !rest.contains('/') {
        rest = format!("library/{rest}");
    }
    (domain, rest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn same(text: &str) {
        let ours = parse(text).map(|r| r.whole()).map_err(|e| e.to_string());
        let theirs = text
            .parse::<Reference>()
            .map(|r| r.whole())
            .map_err(|e| e.to_string());
        assert_eq!(ours, theirs, "{text:?}");
    }

    #[test]
    fn agrees_with_oci_spec_on_the_usual_shapes() {
        let digest = format!("sha256:{}", "a".repeat(64));
        for text in [
            "lab",
            "lab:latest",
            "library/lab:1.0",
            "org/lab",
            "docker.io/lab",
            "index.docker.io/org/lab:v2",
            "ghcr.io/org/jupyter-lab:latest",
            "localhost/lab",
            "localhost:5000/lab:x",
            "127.0.0.1:5000/org/lab:latest",
            "registry.example.org:443/a/b/c:tag_1.2-rc",
            &format!("ghcr.io/org/lab@{digest}"),
            &format!("ghcr.io/org/lab:latest@{digest}"),
            "ghcr.io/org/lab@sha256:abc",
            "ghcr.io/org/lab@sha1:0123456789abcdef0123456789abcdef",
            "ghcr.io/org/lab@sha512:0123456789abcdef0123456789abcdef",
            "",
            "UPPER/Case:tag",
            "a b",
            "host:port/x:tag:extra",
            "ghcr.io/org/lab:",
            &format!("ghcr.io/org/lab:{}", "t".repeat(128)),
            &format!("ghcr.io/org/lab:{}", "t".repeat(129)),
            &format!("ghcr.io/{}", "a".repeat(256)),
        ] {
            same(text);
        }
    }

    proptest! {
        #[test]
        fn agrees_with_oci_spec_on_ascii_input(
            text in "[a-zA-Z0-9._:/@-]{0,40}",
        ) {
            same(&text);
        }

        #[test]
        fn agrees_with_oci_spec_on_reference_like_input(
            registry in "(|[a-z0-9]{1,8}(\\.[a-z]{2,3})?(:[0-9]{1,5})?/)",
            path in "[a-z0-9]{1,6}([._-]{1,2}[a-z0-9]{1,4})?(/[a-z0-9]{1,6}){0,2}",
            tag in "(|:[A-Za-z0-9_][A-Za-z0-9_.-]{0,10})",
        ) {
            same(&format!("{registry}{path}{tag}"));
        }
    }
}
