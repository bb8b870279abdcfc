//! Where the image is read from (the `--image` input parsed: a registry reference, or an OCI
//! image layout on disk), and an image reference as a pod's spec names it.

use super::registry::errors::ReferenceProblem;
use oci_client::Reference;
use std::path::PathBuf;

/// The `--image` input, parsed.
#[derive(Debug, Clone)]
pub enum ImageSource {
    /// A registry reference such as `ghcr.io/org/lab:latest`. Docker Hub short names are
    /// normalised as `docker pull` does: `lab:latest` is `docker.io/library/lab:latest`.
    /// A reference without a tag means `:latest`.
    Registry(Reference),
    /// `oci:DIR[:REF]`: an OCI image layout directory, as `skopeo copy`,
    /// `docker buildx --output type=oci` (unpacked) and `oras` write them. Split as skopeo
    /// (containers/image `oci/internal`) splits it: DIR is everything up to the first `:`, REF
    /// everything after it, so REF may hold `/` and `:` (`oci:out:release/1.0`) and DIR may not
    /// hold `:`. REF is matched against `org.opencontainers.image.ref.name` in `index.json`;
    /// `None` when not given (see `super::layout::resolve`).
    Layout {
        /// The layout's directory.
        dir: PathBuf,
        /// The REF after the directory, if given.
        tag: Option<String>,
    },
}

/// Why a text is not an `--image` ([`ImageSource::parse`]); the words are the render
/// layer's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImageProblem {
    /// `oci:` without a directory.
    NoDirectory,
    /// `oci:DIR:REF` whose REF (here) is not an OCI reference name.
    LayoutRef(String),
    /// `oci:DIR@sha256:…`: a layout pinned by digest, which skopeo's `oci:DIR:TAG` form
    /// does not take; DIR (here) is the text before the `@`.
    LayoutDigest(String),
    /// `@` with no digest after it, as credentials before the registry have: the value is
    /// never shown (what stands before `@` may be a password).
    Credentials,
    /// A repository with upper case, which the distribution spec does not allow; the
    /// reference with its repository lower-cased.
    UpperCase(String),
    /// Not a reference, with the parser's reason ([`super::reference::parse`]).
    NotAReference(String),
    /// Parsed, but does not print back as a reference: an upper-case first part that is not
    /// a registry host (`A/a`).
    UpperCaseHost,
    /// A port or a digest pin that cannot be asked for ([`super::registry::check_reference`]).
    Reference(ReferenceProblem),
}

impl ImageSource {
    /// Parses `--image` (trimmed).
    ///
    /// # Errors
    /// `ImageProblem`: a reference that is not a valid image reference (with the
    /// repository lower-cased when that is all it lacks), credentials before the registry, a
    /// registry port that is not a port number, a digest pin that is not
    /// `sha256:<64 lower-case hex>`, or an `oci:` form with an empty directory, a digest pin
    /// or a REF that is not an OCI reference name.
    pub fn parse(text: &str) -> Result<Self, ImageProblem> {
        let text = text.trim();
        if let Some(rest) = text.strip_prefix("oci:") {
            let (dir, tag) = match rest.split_once(':') {
                Some((dir, tag)) => (dir, Some(tag).filter(|t| !t.is_empty())),
                None => (rest, None),
            };
            if dir.is_empty() {
                return Err(ImageProblem::NoDirectory);
            }
            if let Some(dir) = dir.strip_suffix("@sha256") {
                return Err(ImageProblem::LayoutDigest(dir.to_string()));
            }
            if let Some(tag) = tag.filter(|t| !is_layout_ref_name(t)) {
                return Err(ImageProblem::LayoutRef(tag.to_string()));
            }
            return Ok(Self::Layout {
                dir: PathBuf::from(dir),
                tag: tag.map(str::to_string),
            });
        }
        if holds_userinfo(text) {
            return Err(ImageProblem::Credentials);
        }
        // A malformed `@` digest pin is named as such; the parser only says the format is wrong.
        let pin = |pin: &str| ImageProblem::Reference(ReferenceProblem::Pin { pin: pin.into() });
        let reference: Reference = super::reference::parse(text).map_err(|err| {
            match (lower_case_repository(text), text.split_once('@')) {
                (Some(lower), _) => ImageProblem::UpperCase(lower),
                (None, Some((_, p))) if super::Digest::parse(p).is_err() => pin(p),
                (None, _) => ImageProblem::NotAReference(err.to_string()),
            }
        })?;
        super::registry::check_reference(&reference).map_err(ImageProblem::Reference)?;
        // Refuse what does not print back as a valid reference, such as `A/a` (an upper-case
        // Docker Hub repository, which Docker would read as a registry host `A`).
        if super::reference::parse(&reference.whole()).is_err() {
            return Err(ImageProblem::UpperCaseHost);
        }
        Ok(Self::Registry(reference))
    }

    /// The reference as users read it: `ghcr.io/org/lab:latest`, or `oci:DIR:TAG` (without a
    /// tag, `oci:DIR:latest`: the tag looked for first, and the form release notes have always
    /// shown, so re-runs leave them unchanged).
    pub fn display(&self) -> String {
        match self {
            Self::Registry(r) => r.whole(),
            Self::Layout { dir, tag } => format!(
                "oci:{}:{}",
                dir.display(),
                tag.as_deref().unwrap_or("latest")
            ),
        }
    }

    /// The registry reference as pods would name it (`ghcr.io/org/lab:latest`), split
    /// ([`PodReference::split`]); `None` for an OCI layout, which no pod starts from.
    pub(crate) fn pod_reference(&self) -> Option<PodReference> {
        match self {
            Self::Registry(r) => Some(PodReference::split(&r.whole())),
            Self::Layout { .. } => None,
        }
    }

    /// The last path component of the repository (`lab` for `ghcr.io/org/lab:latest`),
    /// used to name release tags. Only `[a-z0-9._-]` is kept; `image` when nothing is left.
    pub fn short_name(&self) -> String {
        let raw = match self {
            Self::Registry(r) => r.repository().rsplit('/').next().unwrap_or("").to_string(),
            Self::Layout { dir, .. } => dir
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
        };
        let name: String = raw
            .to_ascii_lowercase()
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
            .collect();
        let name = name.trim_matches(|c| matches!(c, '.' | '_' | '-'));
        (if name.is_empty() { "image" } else { name }).to_string()
    }
}

/// An OCI layout reference name as skopeo accepts it (containers/image `oci/internal`
/// `refRegexp`): components of ASCII letters and digits joined by one of `- . _ : @ +` or
/// `--`, and such paths joined by `/`.
fn is_layout_ref_name(name: &str) -> bool {
    static REF: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    REF.get_or_init(|| {
        let component = "[A-Za-z0-9]+(?:(?:[-._:@+]|--)[A-Za-z0-9]+)*";
        regex::Regex::new(&format!("^{component}(?:/{component})*$"))
            .expect("the reference name pattern compiles")
    })
    .is_match(name)
}

/// `text` with its repository path lower-cased, when that alone makes it a valid reference
/// (the registry host and the tag keep their case: both may hold upper case).
fn lower_case_repository(text: &str) -> Option<String> {
    let (name, suffix) = match text.find('@') {
        Some(at) => text.split_at(at),
        None => match text.rfind(':') {
            Some(at) if !text[at..].contains('/') => text.split_at(at),
            _ => (text, ""),
        },
    };
    let (host, path) = match name.split_once('/') {
        Some((host, path)) if host.contains(['.', ':']) || host == "localhost" => {
            (format!("{host}/"), path)
        }
        _ => (String::new(), name),
    };
    if !path.bytes().any(|b| b.is_ascii_uppercase()) {
        return None;
    }
    let fixed = format!("{host}{}{suffix}", path.to_ascii_lowercase());
    fixed.parse::<Reference>().is_ok().then_some(fixed)
}

/// Whether `text` has user info before a registry host (`user:password@ghcr.io/org/lab`):
/// in an image reference `@` only introduces a digest (`algorithm:encoded`, OCI image spec
/// "Digests"), so more than one `@`, or one not followed by a digest's shape, is not a
/// reference and may hide a credential.
fn holds_userinfo(text: &str) -> bool {
    static DIGEST: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let digest = DIGEST.get_or_init(|| {
        regex::Regex::new("^[a-z0-9+._-]+:[A-Za-z0-9=_-]+$").expect("the digest pattern compiles")
    });
    text.split_once('@')
        .is_some_and(|(_, after)| !digest.is_match(after))
}

/// An image reference as a pod's spec names it, split: the name (registry and repository),
/// the tag (a `:` after the last `/`; `None` without one) and whether it is pinned by digest
/// (`@sha256:…`), as the pull-policy preflight compares it with the values files' image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PodReference {
    /// The name, without tag or digest.
    pub(crate) name: String,
    /// The tag, if any.
    pub(crate) tag: Option<String>,
    /// Whether a digest pins it.
    pub(crate) pinned: bool,
}

impl PodReference {
    /// `reference` split into its name, tag and pin.
    pub(crate) fn split(reference: &str) -> Self {
        let pinned = reference.contains('@');
        let base = reference.split_once('@').map_or(reference, |(b, _)| b);
        // A `:` before the last `/` is a registry's port, not a tag.
        let (name, tag) = match base.rsplit_once(':') {
            Some((name, tag)) if !tag.contains('/') => (name, Some(tag.to_string())),
            _ => (base, None),
        };
        Self {
            name: name.to_string(),
            tag,
            pinned,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pod_reference_splits_its_tag_after_the_last_slash_and_knows_its_pin() {
        let split = |r: &str| {
            let p = PodReference::split(r);
            (p.name, p.tag, p.pinned)
        };
        let cases = [
            (
                "ghcr.io/org/lab:latest",
                ("ghcr.io/org/lab", Some("latest"), false),
            ),
            ("localhost:5000/lab", ("localhost:5000/lab", None, false)),
            ("lab@sha256:abc", ("lab", None, true)),
            ("r:1/lab:v2@sha256:abc", ("r:1/lab", Some("v2"), true)),
        ];
        for (reference, (name, tag, pinned)) in cases {
            let want = (name.to_string(), tag.map(str::to_string), pinned);
            assert_eq!(split(reference), want, "{reference}");
        }
    }

    #[test]
    fn credentials_before_the_registry_are_refused_without_echoing_them() {
        for bad in [
            "user:SECRETPW@ghcr.io/org/lab",
            "user:SECRETPW@ghcr.io/org/lab:latest",
            "user:SECRETPW@ghcr.io",
            "user:p@SECRETPW@ghcr.io/org/lab",
            "SECRETPW@ghcr.io/org/lab@sha256:0000000000000000000000000000000000000000000000000000000000000000",
        ] {
            assert_eq!(refusal(bad), ImageProblem::Credentials, "{bad:?}");
        }
        // A digest pin is still a reference.
        let pinned = "ghcr.io/org/lab@sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
        assert!(ImageSource::parse(pinned).is_ok());
    }

    /// The problem `reference` is refused with.
    fn refusal(reference: &str) -> ImageProblem {
        ImageSource::parse(reference).unwrap_err()
    }

    #[test]
    fn docker_hub_short_names_are_normalised() {
        let ImageSource::Registry(r) = ImageSource::parse("lab:latest").unwrap() else {
            panic!()
        };
        assert_eq!(r.whole(), "docker.io/library/lab:latest");
    }

    #[test]
    fn ghcr_reference_keeps_its_parts() {
        let s = ImageSource::parse("ghcr.io/org/jupyter-lab:latest").unwrap();
        assert_eq!(s.display(), "ghcr.io/org/jupyter-lab:latest");
        assert_eq!(s.short_name(), "jupyter-lab");
    }

    #[test]
    fn upper_case_repositories_are_refused_with_the_lower_case_form() {
        let upper = |lower: &str| ImageProblem::UpperCase(lower.into());
        assert_eq!(
            refusal("ghcr.io/Octo/Lab:latest"),
            upper("ghcr.io/octo/lab:latest")
        );
        assert_eq!(
            refusal("localhost:5000/Lab:V1"),
            upper("localhost:5000/lab:V1")
        );
        // Other mistakes keep the general refusal.
        assert_matches::assert_matches!(refusal("not a ref"), ImageProblem::NotAReference(_));
        assert_eq!(refusal("A/a"), ImageProblem::UpperCaseHost);
    }

    #[test]
    fn an_invalid_registry_port_is_named_before_any_request() {
        let port = ReferenceProblem::Port {
            port: "99999".into(),
        };
        assert_eq!(
            refusal("127.0.0.1:99999/org/lab:latest"),
            ImageProblem::Reference(port)
        );
        assert!(ImageSource::parse("127.0.0.1:0/org/lab:latest").is_err());
        assert!(ImageSource::parse("127.0.0.1:65535/org/lab:latest").is_ok());
    }

    #[test]
    fn digest_pins_must_be_lower_case_sha256() {
        let hex = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
        assert!(ImageSource::parse(&format!("ghcr.io/org/lab@sha256:{hex}")).is_ok());
        let pin = format!("sha256:{}", hex.to_uppercase());
        assert_eq!(
            refusal(&format!("ghcr.io/org/lab@{pin}")),
            ImageProblem::Reference(ReferenceProblem::Pin { pin })
        );
        let sha512 = format!("ghcr.io/org/lab@sha512:{}", "a".repeat(128));
        assert!(ImageSource::parse(&sha512).is_err());
    }

    #[test]
    fn layout_forms() {
        let layout = |text: &str| match ImageSource::parse(text).unwrap() {
            ImageSource::Layout { dir, tag } => (dir, tag),
            other @ ImageSource::Registry(_) => panic!("{other:?}"),
        };
        assert_eq!(
            layout("oci:examples/lab-layout:latest"),
            (PathBuf::from("examples/lab-layout"), Some("latest".into()))
        );
        assert_eq!(layout("oci:/tmp/x"), (PathBuf::from("/tmp/x"), None));
        assert_eq!(layout("oci:/tmp/x:"), (PathBuf::from("/tmp/x"), None));
        // skopeo's split: the directory ends at the first colon; the tag may hold / and :.
        assert_eq!(
            layout("oci:out:release/1.0"),
            (PathBuf::from("out"), Some("release/1.0".into()))
        );
        assert_eq!(
            layout("oci:/tmp/out:v1:amd64"),
            (PathBuf::from("/tmp/out"), Some("v1:amd64".into()))
        );
        assert_eq!(
            ImageSource::parse("oci:out:release/1.0").unwrap().display(),
            "oci:out:release/1.0"
        );
        assert_eq!(
            ImageSource::parse("oci:/tmp/x").unwrap().display(),
            "oci:/tmp/x:latest"
        );
    }

    #[test]
    fn layout_reference_names_follow_skopeo() {
        for good in ["latest", "v1.0", "release/1.0", "a--b", "a_b+c@d:e", "A1"] {
            assert!(is_layout_ref_name(good), "{good}");
        }
        for bad in ["-x", "x-", "a//b", "/a", "a/", "a b", "a---b", "x..y", "é"] {
            assert!(!is_layout_ref_name(bad), "{bad}");
        }
        assert_eq!(
            refusal("oci:dir:bad tag"),
            ImageProblem::LayoutRef("bad tag".into())
        );
        assert_eq!(
            refusal(&format!(
                "oci:out/lab@{}",
                "sha256:".to_string() + &"a".repeat(64)
            )),
            ImageProblem::LayoutDigest("out/lab".into())
        );
    }

    #[test]
    fn garbage_is_refused_with_the_expected_shape() {
        for bad in [
            "",
            "   ",
            "UPPER/Case:tag",
            "a b",
            "oci:",
            "oci::tag",
            "host:port/x:tag:extra",
            "A/a",
            "Org/lab:latest",
        ] {
            assert!(ImageSource::parse(bad).is_err(), "{bad:?}");
        }
    }
}
