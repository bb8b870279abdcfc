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

/// What a body is instead of a manifest ([`media_type`]'s error). Its words are the render
/// layer's (`crate::render::help::registry`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotManifest {
    /// What the body is.
    pub body: Body,
    /// The `Content-Type` sent without its parameters (or the descriptor's `mediaType` for a
    /// layout blob), made safe for one log line; `None` when there was none.
    pub content_type: Option<String>,
}

/// What a body that is not a manifest is ([`NotManifest`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Body {
    /// Nothing, or only white space.
    Empty,
    /// JSON, but not an object.
    NotAnObject,
    /// Not JSON, starting with `<`: an HTML or XML page.
    Markup,
    /// JSON cut short; serde_json's error.
    CutShort(String),
    /// Text that is not JSON.
    NotJson,
    /// A Docker schema 1 manifest (`schemaVersion` 1), which registries no longer serve.
    SchemaOne,
    /// A JSON object without `schemaVersion` 2.
    NoSchemaTwo,
    /// A `mediaType` that is not a string.
    MediaTypeNotAString,
    /// A `mediaType` that is none of [`MANIFEST_MEDIA_TYPES`], made safe for one log line.
    MediaType(String),
    /// Neither a manifest media type nor the fields of one.
    NoManifestFields,
}

/// The manifest media type of `body`, one of [`MANIFEST_MEDIA_TYPES`].
///
/// `content_type` is the `Content-Type` header as sent (parameters such as `; charset=utf-8`
/// are ignored), or the descriptor's `mediaType` for a layout blob.
///
/// # Errors
/// [`NotManifest`]: what the body is instead (an empty body, an HTML page, text that is not
/// JSON, a Docker schema 1 manifest, a JSON document of another media type...).
pub(crate) fn media_type(
    body: &[u8],
    content_type: Option<&str>,
) -> Result<&'static str, NotManifest> {
    let declared = content_type
        .and_then(|c| c.split(';').next())
        .map(str::trim)
        .filter(|c| !c.is_empty());
    let not = |body| NotManifest {
        body,
        content_type: declared.map(|c| log_line(c, 80)),
    };
    let text = String::from_utf8_lossy(body);
    let trimmed = text.trim_start();
    if trimmed.is_empty() {
        return Err(not(Body::Empty));
    }
    let map = match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(map)) => map,
        Ok(_) => return Err(not(Body::NotAnObject)),
        Err(_) if trimmed.starts_with('<') => return Err(not(Body::Markup)),
        Err(e) if e.is_eof() => return Err(not(Body::CutShort(e.to_string()))),
        Err(_) => return Err(not(Body::NotJson)),
    };
    // A null field counts as absent.
    let field = |name: &str| map.get(name).filter(|v| !v.is_null());
    match field("schemaVersion").and_then(Value::as_u64) {
        Some(2) => {}
        Some(1) => return Err(not(Body::SchemaOne)),
        _ => return Err(not(Body::NoSchemaTwo)),
    }
    let known = |t: &str| MANIFEST_MEDIA_TYPES.iter().copied().find(|k| *k == t);
    if let Some(value) = field("mediaType") {
        let Some(t) = value.as_str() else {
            return Err(not(Body::MediaTypeNotAString));
        };
        return known(t).ok_or_else(|| not(Body::MediaType(log_line(t, 100))));
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
        Err(not(Body::NoManifestFields))
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
        let html = Some("text/html".to_string());
        let cases: [(&[u8], _, _, _); 9] = [
            (b"", Some("text/html"), Body::Empty, html.clone()),
            (b"  \n", None, Body::Empty, None),
            (
                b"<!DOCTYPE html><title>Sign in</title>",
                Some("text/html; charset=utf-8"),
                Body::Markup,
                html,
            ),
            (
                br#"{"schemaVersion":2,"mediaType":"applic"#,
                None,
                Body::CutShort("EOF while parsing a string at line 1 column 38".into()),
                None,
            ),
            (b"not json", None, Body::NotJson, None),
            (b"[1,2]", None, Body::NotAnObject, None),
            (
                br#"{"schemaVersion":1,"name":"x"}"#,
                None,
                Body::SchemaOne,
                None,
            ),
            (
                br#"{"errors":[]}"#,
                Some("application/json"),
                Body::NoSchemaTwo,
                Some("application/json".into()),
            ),
            (
                br#"{"schemaVersion":2,"mediaType":"application/vnd.oci.image.config.v1+json"}"#,
                None,
                Body::MediaType("application/vnd.oci.image.config.v1+json".into()),
                None,
            ),
        ];
        for (body, content_type, expected, shown) in cases {
            assert_eq!(
                media_type(body, content_type),
                Err(NotManifest {
                    body: expected,
                    content_type: shown
                }),
                "for {:?}",
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
