//! Where the image is read from: a registry reference, or an OCI image layout on disk.

use anyhow::{Result, bail};
use oci_client::Reference;
use std::path::PathBuf;

/// The `--image` input, parsed.
#[derive(Debug, Clone)]
pub enum ImageSource {
    /// A registry reference such as `ghcr.io/org/lab:latest`. Docker Hub short names are
    /// normalised as `docker pull` does: `lab:latest` is `docker.io/library/lab:latest`.
    /// A reference without a tag means `:latest`.
    Registry(Reference),
    /// `oci:DIR[:TAG]`: an OCI image layout directory, as `skopeo copy`,
    /// `docker buildx --output type=oci` (unpacked) and `oras` write them. TAG (default
    /// `latest`) is matched against `org.opencontainers.image.ref.name` in `index.json`.
    Layout { dir: PathBuf, tag: String },
}

impl ImageSource {
    /// Parses `--image`.
    ///
    /// # Errors
    /// A reference that is not a valid image reference (the error quotes it and gives the
    /// expected shape), or an `oci:` form with an empty directory.
    pub fn parse(text: &str) -> Result<Self> {
        let text = text.trim();
        if text.is_empty() {
            bail!(
                "the image reference is empty: set --image (input `image`), e.g. ghcr.io/org/lab:latest"
            );
        }
        if let Some(rest) = text.strip_prefix("oci:") {
            let (dir, tag) = match rest.rsplit_once(':') {
                Some((dir, tag)) if !tag.contains('/') && !dir.is_empty() => (dir, tag),
                _ => (rest, "latest"),
            };
            if dir.is_empty() {
                bail!("{text:?} names no directory: write oci:DIR or oci:DIR:TAG");
            }
            return Ok(Self::Layout {
                dir: PathBuf::from(dir),
                tag: tag.to_string(),
            });
        }
        let reference: Reference = text.parse().map_err(|err| {
            anyhow::anyhow!(
                "{text:?} is not a valid image reference ({err}): write REGISTRY/REPOSITORY:TAG, \
                 e.g. ghcr.io/org/lab:latest"
            )
        })?;
        // oci-client accepts a few references it cannot print back, such as `A/a` (an
        // upper-case Docker Hub repository, which the distribution spec forbids and Docker
        // would read as a registry host `A`): refuse what does not round-trip.
        if reference.whole().parse::<Reference>().is_err() {
            bail!(
                "{text:?} is not a valid image reference (repository names are lower case, and                  an upper-case first part is not a registry host without a `.` or `:`): write                  REGISTRY/REPOSITORY:TAG, e.g. ghcr.io/org/lab:latest"
            );
        }
        Ok(Self::Registry(reference))
    }

    /// The reference as users read it: `ghcr.io/org/lab:latest`, or `oci:DIR:TAG`.
    pub fn display(&self) -> String {
        match self {
            Self::Registry(r) => r.whole(),
            Self::Layout { dir, tag } => format!("oci:{}:{tag}", dir.display()),
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
        let name = name
            .trim_matches(|c| matches!(c, '.' | '_' | '-'))
            .to_string();
        if name.is_empty() {
            "image".into()
        } else {
            name
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn docker_hub_short_names_are_normalised() {
        let ImageSource::Registry(r) = ImageSource::parse("lab:latest").unwrap() else {
            panic!()
        };
        assert_eq!(r.whole(), "docker.io/library/lab:latest");
    }

    #[test]
    fn ghcr_reference_keeps_its_parts() {
        let s = ImageSource::parse("ghcr.io/Org/lab:latest");
        // Upper case in the repository is invalid in OCI references.
        assert!(s.is_err());
        let s = ImageSource::parse("ghcr.io/org/jupyter-lab:latest").unwrap();
        assert_eq!(s.display(), "ghcr.io/org/jupyter-lab:latest");
        assert_eq!(s.short_name(), "jupyter-lab");
    }

    #[test]
    fn layout_forms() {
        match ImageSource::parse("oci:examples/lab-layout:latest").unwrap() {
            ImageSource::Layout { dir, tag } => {
                assert_eq!(dir, PathBuf::from("examples/lab-layout"));
                assert_eq!(tag, "latest");
            }
            other => panic!("{other:?}"),
        }
        match ImageSource::parse("oci:/tmp/x").unwrap() {
            ImageSource::Layout { tag, .. } => assert_eq!(tag, "latest"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn garbage_is_refused_with_the_expected_shape() {
        for bad in [
            "",
            "   ",
            "UPPER/Case:tag",
            "a b",
            "oci:",
            "host:port/x:tag:extra",
            "A/a",
            "Org/lab:latest",
        ] {
            let err = ImageSource::parse(bad).unwrap_err().to_string();
            assert!(!err.is_empty(), "{bad:?}");
        }
    }
}
