//! Resolving a digest from an OCI image layout on disk (`oci:DIR[:TAG]`), with no network.
//!
//! Format: OCI Image Layout Specification v1 — `oci-layout`, `index.json` whose
//! `manifests[]` descriptors carry the tag in the `org.opencontainers.image.ref.name`
//! annotation, and content-addressed blobs under `blobs/sha256/<hex>`.

use super::Digest;
use anyhow::{Context, Result, bail};
use std::path::Path;

const REF_NAME: &str = "org.opencontainers.image.ref.name";

#[derive(serde::Deserialize)]
struct Index {
    #[serde(default)]
    manifests: Vec<Descriptor>,
}

#[derive(serde::Deserialize)]
struct Descriptor {
    digest: String,
    #[serde(default)]
    annotations: std::collections::BTreeMap<String, String>,
}

/// The digest of the manifest (or image index) tagged `tag` in the layout at `dir`.
///
/// The blob is read and hashed, so a layout whose `index.json` names a digest that its
/// blob does not have is an error rather than a wrong announcement.
///
/// # Errors
/// A missing or malformed `index.json`, no descriptor with that tag (the error lists the
/// tags present), a missing blob, or a blob whose sha256 differs from its name.
pub fn resolve(dir: &Path, tag: &str) -> Result<Digest> {
    let index_path = dir.join("index.json");
    let text = std::fs::read(&index_path).with_context(|| {
        format!(
            "cannot read {}: is {} an OCI image layout (skopeo copy ... oci:DIR:TAG)?",
            index_path.display(),
            dir.display()
        )
    })?;
    let index: Index = serde_json::from_slice(&text)
        .with_context(|| format!("{} is not an OCI image index", index_path.display()))?;
    let tagged: Vec<&Descriptor> = index
        .manifests
        .iter()
        .filter(|d| d.annotations.get(REF_NAME).map(String::as_str) == Some(tag))
        .collect();
    let descriptor = match tagged.as_slice() {
        [one] => *one,
        [] => {
            let tags: Vec<&str> = index
                .manifests
                .iter()
                .filter_map(|d| d.annotations.get(REF_NAME).map(String::as_str))
                .collect();
            bail!(
                "the OCI layout {} has no image tagged {tag:?} (tags present: {})",
                dir.display(),
                if tags.is_empty() {
                    "none".to_string()
                } else {
                    tags.join(", ")
                }
            );
        }
        _ => bail!(
            "the OCI layout {} tags several images {tag:?}",
            dir.display()
        ),
    };
    let digest = Digest::parse(&descriptor.digest)
        .with_context(|| format!("in {}", index_path.display()))?;
    let blob_path = dir.join("blobs/sha256").join(digest.hex());
    let blob = std::fs::read(&blob_path)
        .with_context(|| format!("the manifest blob {} is missing", blob_path.display()))?;
    let actual = Digest::of_bytes(&blob);
    if actual != digest {
        bail!(
            "the blob {} hashes to {actual}, not {digest}: the layout is corrupt",
            blob_path.display()
        );
    }
    Ok(digest)
}
