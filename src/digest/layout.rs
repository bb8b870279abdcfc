//! Resolving a digest from an OCI image layout on disk (`oci:DIR[:TAG]`), with no network.
//!
//! Format: OCI Image Layout Specification v1 — `oci-layout`, `index.json` whose
//! `manifests[]` descriptors carry the tag in the `org.opencontainers.image.ref.name`
//! annotation, and content-addressed blobs under `blobs/sha256/<hex>`.

use super::Digest;
use super::manifest::{self, MAX_MANIFEST_BYTES, NotManifest};
use crate::support::files::{self, ReadError};
use std::path::{Path, PathBuf};

const REF_NAME: &str = "org.opencontainers.image.ref.name";

/// The largest `index.json` read: 16 MiB, room for thousands of descriptors.
const MAX_INDEX_BYTES: u64 = 16 << 20;

#[derive(serde::Deserialize)]
struct Index {
    #[serde(default)]
    manifests: Vec<Descriptor>,
}

#[derive(serde::Deserialize)]
struct Descriptor {
    #[serde(default, rename = "mediaType")]
    media_type: Option<String>,
    digest: String,
    #[serde(default)]
    annotations: std::collections::BTreeMap<String, String>,
}

impl Descriptor {
    /// The tag (`org.opencontainers.image.ref.name`), if any.
    fn tag(&self) -> Option<&str> {
        self.annotations.get(REF_NAME).map(String::as_str)
    }
}

/// Why no digest was read from an OCI image layout, as data. Its words (`Display`) are the
/// render layer's (`crate::render::help::registry`).
#[derive(Debug)]
pub(crate) enum LayoutError {
    /// Nothing at this path.
    Missing(PathBuf),
    /// Something other than a directory (a file) at this path.
    NotADirectory(PathBuf),
    /// The `index.json` of the layout (this directory) cannot be read, or is over 16 MiB.
    Index(PathBuf, ReadError),
    /// The `index.json` of the layout (this directory) is no OCI image index.
    IndexInvalid(PathBuf, serde_json::Error),
    /// The `index.json` of the layout (this directory) names this, which is not a digest.
    InvalidDigest(PathBuf, String),
    /// The blob at this path cannot be read, or is over [`MAX_MANIFEST_BYTES`].
    Blob(PathBuf, ReadError),
    /// The blob at this path hashes to the first digest, not to its name (the second).
    BlobMismatch(PathBuf, Digest, Digest),
    /// The blob at this path that `index.json` names is not an image index or manifest.
    NotAManifest(PathBuf, NotManifest),
    /// The layout (this directory) tags several images with this tag.
    SeveralTagged(PathBuf, String),
    /// The layout `dir` has no image tagged `tag` (`None`: asked for none, and `latest` is
    /// missing); it has `images` images, tagged `tags` (the others untagged).
    NoSuchTag {
        dir: PathBuf,
        tag: Option<String>,
        tags: Vec<String>,
        images: usize,
    },
}

impl std::error::Error for LayoutError {}

/// The digest of the manifest (or image index) tagged `tag` in the layout at `dir`.
///
/// Without a tag (`oci:DIR`): the image tagged `latest` if there is one, else the layout's
/// only image when it holds exactly one, tagged or not (skopeo's rule for a reference without
/// an image name, containers/image `oci/layout` `getManifestDescriptor`).
///
/// The blob is read and checked: it must be a JSON image index or manifest of at most 4 MiB
/// whose sha256 is its name, so a layout whose `index.json` names a digest that its blob does
/// not have is an error rather than a wrong announcement. Only regular files are read (a FIFO
/// or a device in the layout is refused, not waited on: [`files::read_bytes`]).
///
/// # Errors
/// [`LayoutError`]: no directory at `dir`, a missing or malformed `index.json`, no descriptor with that tag (listing
/// the tags present), several, a missing blob, a blob that is not a regular file or not a
/// manifest, or a blob whose sha256 differs from its name.
pub(crate) fn resolve(dir: &Path, tag: Option<&str>) -> Result<Digest, LayoutError> {
    match std::fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => return Err(LayoutError::NotADirectory(dir.into())),
        Err(_) => return Err(LayoutError::Missing(dir.into())),
    }
    let index = read_index(dir)?;
    let descriptor = select(&index, tag, dir)?;
    let digest = Digest::parse(&descriptor.digest)
        .map_err(|_| LayoutError::InvalidDigest(dir.into(), descriptor.digest.clone()))?;
    let blob = read_blob(dir, &digest)?;
    manifest::media_type(&blob, descriptor.media_type.as_deref())
        .map_err(|what| LayoutError::NotAManifest(blob_path(dir, &digest), what))?;
    Ok(digest)
}

/// The child manifests of the image index `digest` in the layout at `dir`
/// ([`manifest::children`]); none when the blob is a single-platform manifest.
///
/// # Errors
/// A blob that cannot be read, is too large, or does not hash to `digest`.
pub(crate) fn children(dir: &Path, digest: &Digest) -> Result<Vec<Digest>, LayoutError> {
    Ok(manifest::children(&read_blob(dir, digest)?))
}

/// The layout's `index.json`, parsed.
fn read_index(dir: &Path) -> Result<Index, LayoutError> {
    let dir = dir.to_path_buf();
    match files::read_bytes(&dir.join("index.json"), MAX_INDEX_BYTES) {
        Ok(text) => {
            serde_json::from_slice(&text).map_err(|cause| LayoutError::IndexInvalid(dir, cause))
        }
        Err(cause) => Err(LayoutError::Index(dir, cause)),
    }
}

/// Where the blob of `digest` lies in the layout at `dir`.
fn blob_path(dir: &Path, digest: &Digest) -> PathBuf {
    dir.join("blobs/sha256").join(digest.hex())
}

/// The blob of `digest` in the layout at `dir`, at most 4 MiB, checked to hash to `digest`.
fn read_blob(dir: &Path, digest: &Digest) -> Result<Vec<u8>, LayoutError> {
    let path = blob_path(dir, digest);
    let blob = match files::read_bytes(&path, MAX_MANIFEST_BYTES as u64) {
        Ok(blob) => blob,
        Err(cause) => return Err(LayoutError::Blob(path, cause)),
    };
    let actual = Digest::of_bytes(&blob);
    if actual != *digest {
        return Err(LayoutError::BlobMismatch(path, actual, digest.clone()));
    }
    Ok(blob)
}

/// The descriptor for `tag`, or for no tag as [`resolve`] describes; else
/// [`LayoutError::NoSuchTag`] or [`LayoutError::SeveralTagged`].
fn select<'a>(
    index: &'a Index,
    tag: Option<&str>,
    dir: &Path,
) -> Result<&'a Descriptor, LayoutError> {
    let wanted = tag.unwrap_or("latest");
    let tagged: Vec<&Descriptor> = (index.manifests.iter())
        .filter(|d| d.tag() == Some(wanted))
        .collect();
    match (tagged.as_slice(), index.manifests.as_slice()) {
        ([one], _) => Ok(one),
        ([], [only]) if tag.is_none() => Ok(only),
        ([], _) => Err(LayoutError::NoSuchTag {
            dir: dir.to_path_buf(),
            tag: tag.map(str::to_string),
            tags: (index.manifests.iter())
                .filter_map(|d| d.tag().map(str::to_string))
                .collect(),
            images: index.manifests.len(),
        }),
        _ => Err(LayoutError::SeveralTagged(dir.into(), wanted.into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const INDEX: &[u8] =
        br#"{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[]}"#;

    /// A layout with the blob `INDEX` under each `(tag or untagged)` descriptor.
    fn layout(tags: &[Option<&str>]) -> (tempfile::TempDir, Digest) {
        let dir = tempfile::tempdir().unwrap();
        let digest = Digest::of_bytes(INDEX);
        std::fs::create_dir_all(dir.path().join("blobs/sha256")).unwrap();
        std::fs::write(dir.path().join("blobs/sha256").join(digest.hex()), INDEX).unwrap();
        let manifests: Vec<serde_json::Value> = tags
            .iter()
            .map(|tag| {
                let mut d = serde_json::json!({
                    "mediaType": "application/vnd.oci.image.index.v1+json",
                    "digest": digest.as_str(), "size": INDEX.len(),
                });
                if let Some(tag) = tag {
                    d["annotations"] = serde_json::json!({ REF_NAME: tag });
                }
                d
            })
            .collect();
        let index = serde_json::json!({"schemaVersion": 2, "manifests": manifests});
        std::fs::write(dir.path().join("index.json"), index.to_string()).unwrap();
        (dir, digest)
    }

    #[test]
    fn a_tag_with_a_slash_is_found() {
        let (dir, digest) = layout(&[Some("release/1.0"), Some("latest")]);
        assert_eq!(resolve(dir.path(), Some("release/1.0")).unwrap(), digest);
        assert_eq!(resolve(dir.path(), None).unwrap(), digest);
    }

    #[test]
    fn without_a_tag_the_only_image_is_taken_as_skopeo_does() {
        let (dir, digest) = layout(&[None]);
        assert_eq!(resolve(dir.path(), None).unwrap(), digest);
        // Named explicitly, a tag must exist; several images and no tag: name one.
        let no_such_tag = |tags: &[Option<&str>], tag: Option<&str>| {
            let (dir, _) = layout(tags);
            match resolve(dir.path(), tag) {
                Err(LayoutError::NoSuchTag {
                    tag, tags, images, ..
                }) => Some((tag, tags, images)),
                _ => None,
            }
        };
        let latest = Some("latest".to_string());
        assert_eq!(
            no_such_tag(&[None], Some("latest")),
            Some((latest, vec![], 1))
        );
        assert_eq!(
            no_such_tag(&[None, Some("v1")], None),
            Some((None, vec!["v1".into()], 2))
        );
        assert_eq!(no_such_tag(&[Some("latest"), Some("v1")], None), None);
        assert_eq!(
            no_such_tag(&[Some("latest"), Some("v1")], Some("v9")).map(|found| found.1),
            Some(vec!["latest".into(), "v1".into()])
        );
    }

    #[test]
    fn a_layout_is_a_directory_holding_the_image_asked_for() {
        let (dir, digest) = layout(&[Some("latest")]);
        assert_eq!(resolve(dir.path(), Some("latest")).unwrap(), digest);
        let nowhere = dir.path().join("nowhere");
        assert_matches::assert_matches!(resolve(&nowhere, None), Err(LayoutError::Missing(_)));
        let file = dir.path().join("index.json");
        assert_matches::assert_matches!(resolve(&file, None), Err(LayoutError::NotADirectory(_)));
        let empty = tempfile::tempdir().unwrap();
        assert_matches::assert_matches!(
            resolve(empty.path(), None),
            Err(LayoutError::Index(_, ReadError::NotFound))
        );
    }

    #[test]
    fn a_fifo_blob_is_refused_not_waited_on() {
        let (dir, digest) = layout(&[Some("latest")]);
        let blob = dir.path().join("blobs/sha256").join(digest.hex());
        std::fs::remove_file(&blob).unwrap();
        let made = std::process::Command::new("mkfifo")
            .arg(&blob)
            .status()
            .unwrap();
        assert!(made.success());
        assert_matches::assert_matches!(
            resolve(dir.path(), Some("latest")),
            Err(LayoutError::Blob(_, ReadError::NotRegular))
        );
        // index.json as a device.
        let (dir, _) = layout(&[Some("latest")]);
        std::fs::remove_file(dir.path().join("index.json")).unwrap();
        std::os::unix::fs::symlink("/dev/zero", dir.path().join("index.json")).unwrap();
        assert_matches::assert_matches!(
            resolve(dir.path(), None),
            Err(LayoutError::Index(_, ReadError::NotRegular))
        );
    }

    #[test]
    fn a_blob_that_is_not_a_manifest_is_refused() {
        let (dir, _) = layout(&[]);
        let body = b"<html>not a manifest</html>";
        let digest = Digest::of_bytes(body);
        std::fs::write(dir.path().join("blobs/sha256").join(digest.hex()), body).unwrap();
        let index = serde_json::json!({"schemaVersion": 2, "manifests": [
            {"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": digest.as_str(), "size": body.len()}
        ]});
        std::fs::write(dir.path().join("index.json"), index.to_string()).unwrap();
        assert_matches::assert_matches!(
            resolve(dir.path(), None),
            Err(LayoutError::NotAManifest(_, what)) if what.body == manifest::Body::Markup
        );
    }
}
