//! Resolving a digest from an OCI image layout on disk (`oci:DIR[:TAG]`), with no network.
//!
//! Format: OCI Image Layout Specification v1 — `oci-layout`, `index.json` whose
//! `manifests[]` descriptors carry the tag in the `org.opencontainers.image.ref.name`
//! annotation, and content-addressed blobs under `blobs/sha256/<hex>`.

use super::Digest;
use super::manifest::{self, MAX_MANIFEST_BYTES};
use anyhow::{Context, Result, bail};
use std::io::Read;
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

/// The digest of the manifest (or image index) tagged `tag` in the layout at `dir`.
///
/// Without a tag (`oci:DIR`): the image tagged `latest` if there is one, else the layout's
/// only image when it holds exactly one, tagged or not (skopeo's rule for a reference without
/// an image name, containers/image `oci/layout` `getManifestDescriptor`).
///
/// The blob is read and checked: it must be a JSON image index or manifest of at most 4 MiB
/// whose sha256 is its name, so a layout whose `index.json` names a digest that its blob does
/// not have is an error rather than a wrong announcement. Only regular files are read (a FIFO
/// or a device in the layout is refused, not waited on).
///
/// # Errors
/// A missing or malformed `index.json`, no descriptor with that tag (the error lists the tags
/// present), several, a missing blob, a blob that is not a regular file or not a manifest, or a
/// blob whose sha256 differs from its name.
pub(crate) fn resolve(dir: &Path, tag: Option<&str>) -> Result<Digest> {
    let index_path = dir.join("index.json");
    let text = read_regular(&index_path, MAX_INDEX_BYTES).with_context(|| {
        format!(
            "cannot read {}: is {} an OCI image layout (skopeo copy ... oci:DIR:TAG)?",
            index_path.display(),
            dir.display()
        )
    })?;
    let text = text.ok_or_else(|| {
        anyhow::anyhow!(
            "{} is larger than {} MiB: not an OCI image layout index",
            index_path.display(),
            MAX_INDEX_BYTES >> 20
        )
    })?;
    let index: Index = serde_json::from_slice(&text)
        .with_context(|| format!("{} is not an OCI image index", index_path.display()))?;
    let descriptor = select(&index, tag, dir)?;
    let digest = Digest::parse(&descriptor.digest)
        .with_context(|| format!("in {}", index_path.display()))?;
    let blob_path = dir.join("blobs/sha256").join(digest.hex());
    let blob = read_regular(&blob_path, MAX_MANIFEST_BYTES as u64)
        .with_context(|| format!("cannot read the manifest blob {}", blob_path.display()))?
        .ok_or_else(|| {
            anyhow::anyhow!(
                "the manifest blob {} is larger than {} MiB, the most a registry accepts for a manifest: the layout is corrupt",
                blob_path.display(),
                MAX_MANIFEST_BYTES >> 20
            )
        })?;
    let actual = Digest::of_bytes(&blob);
    if actual != digest {
        bail!(
            "the blob {} hashes to {actual}, not {digest}: the layout is corrupt",
            blob_path.display()
        );
    }
    manifest::media_type(&blob, descriptor.media_type.as_deref()).map_err(|what| {
        anyhow::anyhow!(
            "the blob {} that index.json names is {what}, not an image index or manifest: the layout is corrupt",
            blob_path.display()
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
    let blob_path = dir.join("blobs/sha256").join(digest.hex());
    let blob = read_regular(&blob_path, MAX_MANIFEST_BYTES as u64)
        .with_context(|| format!("cannot read the manifest blob {}", blob_path.display()))?
        .ok_or_else(|| anyhow::anyhow!("the manifest blob {} is too large", blob_path.display()))?;
    if Digest::of_bytes(&blob) != *digest {
        bail!(
            "the blob {} does not hash to {digest}: the layout is corrupt",
            blob_path.display()
        );
    }
    Ok(manifest::children(&blob))
}

/// The descriptor for `tag`, or for no tag as [`resolve`] describes.
fn select<'a>(index: &'a Index, tag: Option<&str>, dir: &Path) -> Result<&'a Descriptor> {
    let tagged = |name: &str| -> Vec<&Descriptor> {
        index
            .manifests
            .iter()
            .filter(|d| d.annotations.get(REF_NAME).map(String::as_str) == Some(name))
            .collect()
    };
    let wanted = tag.unwrap_or("latest");
    match (tagged(wanted).as_slice(), index.manifests.as_slice()) {
        ([one], _) => Ok(one),
        ([], [only]) if tag.is_none() => Ok(only),
        ([], _) => bail!("{}", no_such_tag(index, tag, dir)),
        _ => bail!(
            "the OCI layout {} tags several images {wanted:?}",
            dir.display()
        ),
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
    /// No image of the tag asked for ([`missing_tag`]'s words, listing the tags it has).
    NoSuchTag(String),
    /// No OCI layout there, or a corrupt one (no or a malformed `index.json`, a missing or
    /// corrupt blob): [`resolve`]'s words.
    NotALayout(String),
}

/// Whether the layout at `dir` can be used for `tag`: a directory holding that image
/// ([`missing_tag`]).
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
    if let Some(why) = missing_tag(dir, tag) {
        return Err(Unusable::NoSuchTag(why));
    }
    // A directory that is no layout (no or a malformed index.json, a missing or corrupt
    // blob) is refused here too, in resolve's words: bad input, before anything is sent.
    resolve(dir, tag)
        .map(|_| ())
        .map_err(|e| Unusable::NotALayout(format!("{e:#}")))
}

/// Why the layout at `dir` has no image for `tag` ([`resolve`]'s rule), listing the tags it
/// has and, when it has some, one to write instead; `None` when it has that image, or when
/// `index.json` cannot be read or parsed ([`resolve`] then says what is wrong).
///
/// Reads `dir/index.json` (at most 16 MiB, a regular file only).
fn missing_tag(dir: &Path, tag: Option<&str>) -> Option<String> {
    let text = read_regular(&dir.join("index.json"), MAX_INDEX_BYTES).ok()??;
    let index: Index = serde_json::from_slice(&text).ok()?;
    let wanted = tag.unwrap_or("latest");
    let tagged = index
        .manifests
        .iter()
        .any(|d| d.annotations.get(REF_NAME).map(String::as_str) == Some(wanted));
    let only_image = tag.is_none() && index.manifests.len() == 1;
    (!tagged && !only_image).then(|| no_such_tag(&index, tag, dir))
}

/// The layout at `dir` has no image tagged `tag` (or `latest`, for none): which it has.
fn no_such_tag(index: &Index, tag: Option<&str>, dir: &Path) -> String {
    let wanted = tag.unwrap_or("latest");
    let tags: Vec<&str> = index
        .manifests
        .iter()
        .filter_map(|d| d.annotations.get(REF_NAME).map(String::as_str))
        .collect();
    let untagged = index.manifests.len() - tags.len();
    format!(
        "the OCI layout {} has no image tagged {wanted:?} (tags present: {}{}){}",
        dir.display(),
        if tags.is_empty() {
            "none".to_string()
        } else {
            tags.join(", ")
        },
        if untagged > 0 {
            format!("; {untagged} untagged image(s)")
        } else {
            String::new()
        },
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

/// The bytes of the regular file at `path`, `None` when longer than `limit`. A FIFO, socket or
/// device is refused before it is opened (opening a FIFO would wait for a writer), and checked
/// again on the open handle.
fn read_regular(path: &Path, limit: u64) -> Result<Option<Vec<u8>>> {
    let refuse = |kind: std::fs::FileType| -> Result<()> {
        if kind.is_file() {
            Ok(())
        } else {
            bail!(
                "{} is not a regular file (a directory, FIFO, socket or device)",
                path.display()
            )
        }
    };
    refuse(std::fs::metadata(path)?.file_type())?;
    let file = std::fs::File::open(path)?;
    refuse(file.metadata()?.file_type())?;
    let mut bytes = Vec::new();
    file.take(limit + 1).read_to_end(&mut bytes)?;
    Ok((bytes.len() as u64 <= limit).then_some(bytes))
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
        // No index.json: resolve says why, not this check.
        assert_eq!(missing_tag(&dir.path().join("nowhere"), Some("v1")), None);
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
        let why = missing_tag(dir.path(), Some("v9")).unwrap();
        assert_eq!(
            usable(dir.path(), Some("v9")),
            Err(Unusable::NoSuchTag(why))
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
