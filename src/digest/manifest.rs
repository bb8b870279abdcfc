//! Pure: the bytes a registry (or an OCI layout) served for a manifest: whether they are an
//! image manifest at all, before their sha256 is announced as the image's digest, and the
//! child manifests an image index names.
//!
//! A login page, a proxy's error page, an empty or cut body and broken JSON all hash to a
//! well-formed digest; only the shape of the body tells them from a manifest. Accepted: a JSON
//! object with `schemaVersion: 2` whose media type is one of the four types the `Accept` header
//! asks for (OCI image index, Docker manifest list, OCI image manifest, Docker v2 manifest). The
//! media type is the body's `mediaType`; without one (optional in the OCI image spec), the
//! `Content-Type` the registry sent; without either, the OCI type the body's fields give
//! (`manifests` → image index, `config` and `layers` → image manifest).

use crate::support::sanitize::log_line;
use oci_client::manifest::{
    IMAGE_MANIFEST_LIST_MEDIA_TYPE, IMAGE_MANIFEST_MEDIA_TYPE, OCI_IMAGE_INDEX_MEDIA_TYPE,
    OCI_IMAGE_MEDIA_TYPE,
};
use serde_json::Value;

/// The largest manifest read, in bytes: 4 MiB, distribution's own limit on a manifest body
/// (`maxManifestBodySize = 4 << 20` in `registry/handlers/manifests.go`; containers/image uses
/// the same, `iolimits.MaxManifestBodySize`). Bodies are read in chunks and reading stops there.
pub(crate) const MAX_MANIFEST_BYTES: usize = 4 << 20;

/// The four manifest media types, index types first (the order of the `Accept` header).
pub(crate) const MANIFEST_MEDIA_TYPES: [&str; 4] = [
    OCI_IMAGE_INDEX_MEDIA_TYPE,
    IMAGE_MANIFEST_LIST_MEDIA_TYPE,
    OCI_IMAGE_MEDIA_TYPE,
    IMAGE_MANIFEST_MEDIA_TYPE,
];

/// The manifest media type of `body`, one of [`MANIFEST_MEDIA_TYPES`].
///
/// `content_type` is the `Content-Type` header as sent (parameters such as `; charset=utf-8`
/// are ignored), or the descriptor's `mediaType` for a layout blob.
///
/// # Errors
/// What the body is instead, as a phrase for an error message: `an empty body`,
/// `an HTML page (Content-Type text/html)`, `text that is not JSON`, `JSON with schemaVersion
/// 1 (a Docker schema 1 manifest, which registries no longer serve)`, `a JSON document of media
/// type "application/vnd.oci.image.config.v1+json"`...
pub(crate) fn media_type(body: &[u8], content_type: Option<&str>) -> Result<&'static str, String> {
    let declared = content_type
        .and_then(|c| c.split(';').next())
        .map(str::trim)
        .filter(|c| !c.is_empty());
    let shown = declared
        .map(|c| format!(" (Content-Type {})", log_line(c, 80)))
        .unwrap_or_default();
    let text = String::from_utf8_lossy(body);
    let trimmed = text.trim_start();
    if trimmed.is_empty() {
        return Err(format!("an empty body{shown}"));
    }
    let map = match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(map)) => map,
        Ok(_) => return Err(format!("JSON that is not an object{shown}")),
        Err(_) if trimmed.starts_with('<') => return Err(format!("an HTML or XML page{shown}")),
        Err(e) if e.is_eof() => return Err(format!("JSON cut short ({e}){shown}")),
        Err(_) => return Err(format!("text that is not JSON{shown}")),
    };
    // A null field counts as absent.
    let field = |name: &str| map.get(name).filter(|v| !v.is_null());
    match field("schemaVersion").and_then(Value::as_u64) {
        Some(2) => {}
        Some(1) => {
            return Err(
                "a Docker schema 1 manifest (schemaVersion 1), which Kubernetes runtimes and registries no longer serve; push the image again with a current builder".into(),
            );
        }
        _ => {
            return Err(format!("JSON without schemaVersion 2{shown}"));
        }
    }
    let known = |t: &str| MANIFEST_MEDIA_TYPES.iter().copied().find(|k| *k == t);
    if let Some(value) = field("mediaType") {
        let Some(t) = value.as_str() else {
            return Err("JSON whose mediaType is not a string".into());
        };
        return known(t)
            .ok_or_else(|| format!("a JSON document of media type {:?}", log_line(t, 100)));
    }
    if let Some(t) = declared.and_then(known) {
        return Ok(t);
    }
    if field("manifests").is_some_and(Value::is_array) {
        Ok(OCI_IMAGE_INDEX_MEDIA_TYPE)
    } else if field("config").is_some_and(Value::is_object)
        && field("layers").is_some_and(Value::is_array)
    {
        Ok(OCI_IMAGE_MEDIA_TYPE)
    } else {
        Err(format!(
            "JSON with neither a manifest media type nor the fields of one{shown}"
        ))
    }
}

/// The child manifests an image index (or Docker manifest list) names: each
/// `manifests[].digest` that is a valid `sha256:` digest, in order; none for a single-platform
/// manifest or a body that is not JSON. A runtime may report one of them as a pod's `imageID`
/// (CRI-O has reported the platform manifest: DESIGN.md, Kubernetes facts), so `status` counts
/// a pod on any of them as on the index.
pub(crate) fn children(body: &[u8]) -> Vec<super::Digest> {
    #[derive(serde::Deserialize)]
    struct Index {
        #[serde(default)]
        manifests: Vec<Child>,
    }
    #[derive(serde::Deserialize)]
    struct Child {
        digest: String,
    }
    serde_json::from_slice::<Index>(body)
        .map(|i| {
            i.manifests
                .into_iter()
                .filter_map(|c| super::Digest::parse(&c.digest).ok())
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    const INDEX: &[u8] =
        br#"{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[]}"#;

    #[test]
    fn the_four_manifest_types_are_accepted_from_the_body_or_the_header() {
        assert_eq!(media_type(INDEX, None), Ok(OCI_IMAGE_INDEX_MEDIA_TYPE));
        for t in MANIFEST_MEDIA_TYPES {
            let body = format!(r#"{{"schemaVersion":2,"mediaType":"{t}"}}"#);
            assert_eq!(media_type(body.as_bytes(), Some("text/plain")), Ok(t));
            assert_eq!(
                media_type(
                    br#"{"schemaVersion":2}"#,
                    Some(&format!("{t}; charset=utf-8"))
                ),
                Ok(t)
            );
        }
        // OCI without mediaType anywhere: the fields say which.
        assert_eq!(
            media_type(
                br#"{"schemaVersion":2,"manifests":[]}"#,
                Some("application/json")
            ),
            Ok(OCI_IMAGE_INDEX_MEDIA_TYPE)
        );
        assert_eq!(
            media_type(br#"{"schemaVersion":2,"config":{},"layers":[]}"#, None),
            Ok(OCI_IMAGE_MEDIA_TYPE)
        );
    }

    #[test]
    fn what_is_not_a_manifest_is_named() {
        let cases: [(&[u8], Option<&str>, &str); 9] = [
            (
                b"",
                Some("text/html"),
                "an empty body (Content-Type text/html)",
            ),
            (b"  \n", None, "an empty body"),
            (
                b"<!DOCTYPE html><title>Sign in</title>",
                Some("text/html; charset=utf-8"),
                "an HTML or XML page (Content-Type text/html)",
            ),
            (
                br#"{"schemaVersion":2,"mediaType":"applic"#,
                None,
                "JSON cut short",
            ),
            (b"not json", None, "text that is not JSON"),
            (b"[1,2]", None, "JSON that is not an object"),
            (br#"{"schemaVersion":1,"name":"x"}"#, None, "schema 1"),
            (
                br#"{"errors":[]}"#,
                Some("application/json"),
                "without schemaVersion 2",
            ),
            (
                br#"{"schemaVersion":2,"mediaType":"application/vnd.oci.image.config.v1+json"}"#,
                None,
                "application/vnd.oci.image.config.v1+json",
            ),
        ];
        for (body, content_type, expected) in cases {
            let err = media_type(body, content_type).unwrap_err();
            assert!(
                err.contains(expected),
                "{err:?} for {:?}",
                String::from_utf8_lossy(body)
            );
        }
        assert!(media_type(br#"{"schemaVersion":2}"#, Some("application/json")).is_err());
    }

    #[test]
    fn children_are_the_index_entries_with_valid_digests() {
        let a = format!("sha256:{}", "a".repeat(64));
        let b = format!("sha256:{}", "b".repeat(64));
        let index = format!(
            r#"{{"schemaVersion":2,"manifests":[{{"digest":"{a}"}},{{"digest":"md5:x"}},{{"digest":"{b}"}}]}}"#
        );
        let got: Vec<String> = children(index.as_bytes())
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(got, [a, b]);
        assert!(children(br#"{"schemaVersion":2,"config":{},"layers":[]}"#).is_empty());
        assert!(children(b"<html>").is_empty());
    }
}
