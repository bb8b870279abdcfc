//! Resolving a digest from an OCI image layout on disk (`oci:DIR[:TAG]`), with no network.
//!
//! Format: OCI Image Layout Specification v1 — `oci-layout`, `index.json` whose
//! `manifests[]` descriptors carry the tag in the `org.opencontainers.image.ref.name`
//! annotation, and content-addressed blobs under `blobs/sha256/<hex>`.

use super::Digest;
use super::manifest::{self, MAX_MANIFEST_BYTES};
use crate::support::files::{self, ReadError};
use anyhow::{Context, Result, anyhow, bail};
use std::path::Path;

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
/// A missing or malformed `index.json`, no descriptor with that tag (the error lists the tags
/// present), several, a missing blob, a blob that is not a regular file or not a manifest, or a
/// blob whose sha256 differs from its name.
pub(crate) fn resolve(dir: &Path, tag: Option<&str>) -> Result<Digest> {
    let index_path = dir.join("index.json");
    let index = read_index(dir)?;
    let descriptor = select(&index, tag, dir).map_err(|unusable| match unusable {
        Unusable::NoSuchTag(why) | Unusable::NotALayout(why) => anyhow!(why),
        // Not among what `select` refuses with.
        Unusable::Missing | Unusable::NotADirectory => anyhow!("{unusable:?}"),
    })?;
    let digest = Digest::parse(&descriptor.digest)
        .with_context(|| format!("in {}", index_path.display()))?;
    let blob = read_blob(dir, &digest)?;
    manifest::media_type(&blob, descriptor.media_type.as_deref()).map_err(|what| {
        anyhow!(
            "the blob {} that index.json names is {what}, not an image index or manifest: the layout is corrupt",
            blob_path(dir, &digest).display()
        )
    })?;
    Ok(digest)
}

/// The child manifests of the image index `digest` in the layout at `dir`
/// ([`manifest::children`]); none when the blob is a single-platform manifest.
///
/// # Errors
/// A blob that cannot be read, is too large, or does not hash to `digest`.
pub(crate) fn children(dir: &Path, digest: &Digest) -> Result<Vec<Digest>> {
    Ok(manifest::children(&read_blob(dir, digest)?))
}

/// The layout's `index.json`, parsed.
fn read_index(dir: &Path) -> Result<Index> {
    let path = dir.join("index.json");
    let text = files::read_bytes(&path, MAX_INDEX_BYTES).map_err(|e| match e {
        ReadError::TooLarge { .. } => anyhow!(
            "{} is larger than {} MiB: not an OCI image layout index",
            path.display(),
            MAX_INDEX_BYTES >> 20
        ),
        e => anyhow!(
            "cannot read {} ({e}): is {} an OCI image layout (skopeo copy ... oci:DIR:TAG)?",
            path.display(),
            dir.display()
        ),
    })?;
    serde_json::from_slice(&text)
        .with_context(|| format!("{} is not an OCI image index", path.display()))
}

/// Where the blob of `digest` lies in the layout at `dir`.
fn blob_path(dir: &Path, digest: &Digest) -> std::path::PathBuf {
    dir.join("blobs/sha256").join(digest.hex())
}

/// The blob of `digest` in the layout at `dir`, at most 4 MiB, checked to hash to `digest`.
fn read_blob(dir: &Path, digest: &Digest) -> Result<Vec<u8>> {
    let path = blob_path(dir, digest);
    let blob = files::read_bytes(&path, MAX_MANIFEST_BYTES as u64).map_err(|e| match e {
        ReadError::TooLarge { .. } => anyhow!(
            "the manifest blob {} is larger than {} MiB, the most a registry accepts for a manifest: the layout is corrupt",
            path.display(),
            MAX_MANIFEST_BYTES >> 20
        ),
        e => anyhow!("cannot read the manifest blob {}: {e}", path.display()),
    })?;
    let actual = Digest::of_bytes(&blob);
    if actual != *digest {
        bail!(
            "the blob {} hashes to {actual}, not {digest}: the layout is corrupt",
            path.display()
        );
    }
    Ok(blob)
}

/// The descriptor for `tag`, or for no tag as [`resolve`] describes; else why not, in words:
/// [`Unusable::NoSuchTag`], or [`Unusable::NotALayout`] for several images with the tag.
fn select<'a>(index: &'a Index, tag: Option<&str>, dir: &Path) -> Result<&'a Descriptor, Unusable> {
    let wanted = tag.unwrap_or("latest");
    let tagged: Vec<&Descriptor> = (index.manifests.iter())
        .filter(|d| d.tag() == Some(wanted))
        .collect();
    match (tagged.as_slice(), index.manifests.as_slice()) {
        ([one], _) => Ok(one),
        ([], [only]) if tag.is_none() => Ok(only),
        ([], _) => Err(Unusable::NoSuchTag(no_such_tag(index, tag, dir))),
        _ => Err(Unusable::NotALayout(format!(
            "the OCI layout {} tags several images {wanted:?}",
            dir.display()
        ))),
    }
}

/// Why an `oci:` layout cannot be used, found before anything is looked up in it
/// ([`usable`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Unusable {
    /// Nothing at the path.
    Missing,
    /// Something other than a directory (a file).
    NotADirectory,
    /// No image of the tag asked for ([`no_such_tag`]'s words, listing the tags it has).
    NoSuchTag(String),
    /// No OCI layout there, or a corrupt one (no or a malformed `index.json`, a missing or
    /// corrupt blob): [`resolve`]'s words.
    NotALayout(String),
}

/// Whether the layout at `dir` can be used for `tag`: a directory holding that image, as
/// [`resolve`] finds it.
///
/// # Errors
/// [`Unusable`]: no directory there, something else there, no image of that tag, or no
/// (or a corrupt) layout.
pub(crate) fn usable(dir: &Path, tag: Option<&str>) -> Result<(), Unusable> {
    match std::fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => return Err(Unusable::NotADirectory),
        Err(_) => return Err(Unusable::Missing),
    }
    let not_a_layout = |e: anyhow::Error| Unusable::NotALayout(format!("{e:#}"));
    let index = read_index(dir).map_err(not_a_layout)?;
    if let Err(no_such_tag @ Unusable::NoSuchTag(_)) = select(&index, tag, dir) {
        return Err(no_such_tag);
    }
    // A directory that is no layout (a missing or corrupt blob) is refused here too, in
    // resolve's words: bad input, before anything is sent.
    resolve(dir, tag).map(|_| ()).map_err(not_a_layout)
}

/// The layout at `dir` has no image tagged `tag` (or `latest`, for none): which it has.
fn no_such_tag(index: &Index, tag: Option<&str>, dir: &Path) -> String {
    let wanted = tag.unwrap_or("latest");
    let tags: Vec<&str> = index.manifests.iter().filter_map(Descriptor::tag).collect();
    let untagged = index.manifests.len() - tags.len();
    let untagged = (untagged > 0).then(|| format!("; {untagged} untagged image(s)"));
    let present = tags.join(", ");
    format!(
        "the OCI layout {} has no image tagged {wanted:?} (tags present: {}{}){}",
        dir.display(),
        if present.is_empty() { "none" } else { &present },
        untagged.unwrap_or_default(),
        hint(
            &tags,
            tag.is_none() && index.manifests.len() > 1,
            index,
            dir
        )
    )
}

/// What to write instead, for [`no_such_tag`]: one of `tags`, or no tag for a layout's only
/// (untagged) image; `several`: no tag was given and the layout holds several images.
fn hint(tags: &[&str], several: bool, index: &Index, dir: &Path) -> String {
    let several_words = if several {
        "it holds several images, so "
    } else {
        ""
    };
    match tags.first() {
        Some(first) => format!(
            "; {several_words}name one of its tags: oci:{}:{first}",
            dir.display()
        ),
        None if several => "; it holds several images, so name one: oci:DIR:TAG".to_string(),
        None if index.manifests.len() == 1 => format!(
            "; leave the tag out to take its only image: oci:{}",
            dir.display()
        ),
        None => String::new(),
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
        // Named explicitly, a tag must exist.
        let err = resolve(dir.path(), Some("latest")).unwrap_err().to_string();
        assert!(err.contains("no image tagged \"latest\""), "{err}");
        assert!(err.contains("1 untagged image(s)"), "{err}");
        // Several images and no tag: name one.
        let (dir, _) = layout(&[None, Some("v1")]);
        let err = resolve(dir.path(), None).unwrap_err().to_string();
        assert!(
            err.contains("tags present: v1; 1 untagged image(s)"),
            "{err}"
        );
        assert!(
            err.contains("it holds several images, so name one of its tags: oci:"),
            "{err}"
        );
        assert!(err.ends_with(":v1"), "{err}");
        // A tag it does not have: the tags it has, one to write instead.
        let missing_tag = |dir: &Path, tag| match usable(dir, tag) {
            Err(Unusable::NoSuchTag(why)) => Some(why),
            _ => None,
        };
        let (dir, _) = layout(&[Some("latest"), Some("v1")]);
        assert_eq!(missing_tag(dir.path(), Some("latest")), None);
        assert_eq!(missing_tag(dir.path(), None), None);
        let err = missing_tag(dir.path(), Some("v9")).unwrap();
        assert_eq!(
            err,
            format!(
                "the OCI layout {0} has no image tagged \"v9\" (tags present: latest, v1); \
                 name one of its tags: oci:{0}:latest",
                dir.path().display()
            )
        );
        // Its only image untagged: leave the tag out.
        let (dir, _) = layout(&[None]);
        assert_eq!(missing_tag(dir.path(), None), None);
        let err = missing_tag(dir.path(), Some("v1")).unwrap();
        assert!(
            err.ends_with(&format!(
                "take its only image: oci:{}",
                dir.path().display()
            )),
            "{err}"
        );
        // No index.json: not a missing tag, no layout.
        let empty = tempfile::tempdir().unwrap();
        assert_eq!(missing_tag(empty.path(), Some("v1")), None);
    }

    #[test]
    fn a_layout_is_usable_when_a_directory_holds_the_image_asked_for() {
        let (dir, _) = layout(&[Some("latest")]);
        assert_eq!(usable(dir.path(), None), Ok(()));
        assert_eq!(usable(dir.path(), Some("latest")), Ok(()));
        let nowhere = dir.path().join("nowhere");
        assert_eq!(usable(&nowhere, None), Err(Unusable::Missing));
        let file = dir.path().join("index.json");
        assert_eq!(usable(&file, None), Err(Unusable::NotADirectory));
        // A directory that is no layout: refused in resolve's words.
        let empty = tempfile::tempdir().unwrap();
        let Err(Unusable::NotALayout(why)) = usable(empty.path(), None) else {
            panic!("an empty directory is no layout");
        };
        assert!(why.starts_with("cannot read "), "{why}");
        assert_matches::assert_matches!(
            usable(dir.path(), Some("v9")),
            Err(Unusable::NoSuchTag(why)) if why.contains("no image tagged \"v9\"")
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
        let err = format!("{:#}", resolve(dir.path(), Some("latest")).unwrap_err());
        assert!(err.contains("is not a regular file"), "{err}");
        // index.json as a device.
        let (dir, _) = layout(&[Some("latest")]);
        std::fs::remove_file(dir.path().join("index.json")).unwrap();
        std::os::unix::fs::symlink("/dev/zero", dir.path().join("index.json")).unwrap();
        let err = format!("{:#}", resolve(dir.path(), None).unwrap_err());
        assert!(err.contains("is not a regular file"), "{err}");
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
        let err = resolve(dir.path(), None).unwrap_err().to_string();
        assert!(err.contains("not an image index or manifest"), "{err}");
    }
}
