//! GitHub's REST API description, to check what the fake GitHub answers and what
//! codeq-rollout sends it ([`super::github`] checks every request and answer it serves).
//!
//! The description is `@octokit/openapi` 23.0.2 (MIT), pinned in `tests/openapi/package.json`
//! and `package-lock.json` and installed by `scripts/test.sh` with `npm ci`: its
//! `generated/api.github.com.json` (OpenAPI 3.0.3, 13 MB). It is read and converted once per
//! process: OpenAPI 3.0's `nullable` becomes a JSON Schema `null` type, and every
//! `#/components/…` reference points into the description, registered once as the resource
//! `urn:github`. Schemas are JSON Schema draft 4 in OpenAPI 3.0's dialect (`exclusiveMinimum`
//! as a boolean); each operation's validator is compiled at its first use and kept.

use jsonschema::{Draft, Registry, Validator};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// The base URI the description is registered under.
const BASE: &str = "urn:github";

/// The description's file, below the repository root.
const DESCRIPTION: &str =
    "tests/openapi/node_modules/@octokit/openapi/generated/api.github.com.json";

/// GitHub's REST API description, converted to JSON Schema (see the module docs).
pub struct Description {
    /// The converted description (`paths` and `components` only), one copy per process,
    /// shared with `registry`.
    doc: &'static Value,
    /// The path templates of `doc.paths`, split at `/`.
    templates: Vec<(String, Vec<String>)>,
    registry: Registry<'static>,
    /// Compiled validators by the schema's JSON pointer in `doc`.
    validators: Mutex<HashMap<String, Arc<Validator>>>,
}

/// The description, read and converted at the first call (once per process).
///
/// # Panics
/// When the description is not installed (run `scripts/test.sh`, or `npm ci` in
/// `tests/openapi`), or cannot be read as JSON.
pub fn description() -> &'static Description {
    static ONE: OnceLock<Description> = OnceLock::new();
    ONE.get_or_init(Description::load)
}

/// Panics, naming what to do, unless GitHub's description is installed: called by
/// [`super::github::FakeGitHub`] before it serves anything, in the test's own thread, so a
/// missing `node_modules` fails each test with this message rather than as a broken
/// connection (the fake's handler panicking in the server's thread).
///
/// # Panics
/// When the description is not installed.
pub fn require_installed() {
    assert_installed(&super::registry::repo_root().join(DESCRIPTION));
}

/// [`require_installed`] for the description at `path`.
fn assert_installed(path: &std::path::Path) {
    assert!(
        path.is_file(),
        "{}: GitHub's OpenAPI description is not installed: run scripts/test.sh (npm ci in \
         tests/openapi)",
        path.display()
    );
}

impl Description {
    fn load() -> Self {
        let path = super::registry::repo_root().join(DESCRIPTION);
        assert_installed(&path);
        let text = std::fs::read(&path).unwrap_or_else(|e| {
            panic!(
                "{}: {e}: run scripts/test.sh (npm ci in tests/openapi)",
                path.display()
            )
        });
        let mut full: Value = serde_json::from_slice(&text).expect("the description is JSON");
        let mut components = full["components"].take();
        // Examples are not schemas (and are the bulk of the file).
        if let Some(c) = components.as_object_mut() {
            c.remove("examples");
        }
        let mut doc = json!({ "paths": full["paths"].take(), "components": components });
        convert(&mut doc);
        drop(full);
        let doc: &'static Value = Box::leak(Box::new(doc));
        let templates = doc["paths"]
            .as_object()
            .expect("paths")
            .keys()
            .map(|t| (t.clone(), t.split('/').map(String::from).collect()))
            .collect();
        let registry = Registry::new()
            .draft(Draft::Draft4)
            .add(BASE, doc)
            .and_then(jsonschema::RegistryBuilder::prepare)
            .expect("the description registers as a JSON Schema resource");
        Self {
            doc,
            templates,
            registry,
            validators: Mutex::default(),
        }
    }

    /// The operation `method` on `path` (without query, e.g. `/repos/o/r/issues/7`): its
    /// path template (e.g. `/repos/{owner}/{repo}/issues/{issue_number}`) and its JSON
    /// pointer in the description. The template with the most literal segments wins
    /// (`/issues/comments/{id}` over `/issues/{number}/comments`).
    pub fn operation(&self, method: &str, path: &str) -> Option<(String, String)> {
        let segments: Vec<&str> = path.split('/').collect();
        let method = method.to_ascii_lowercase();
        self.templates
            .iter()
            .filter(|(_, t)| t.len() == segments.len())
            .filter(|(_, t)| {
                t.iter()
                    .zip(&segments)
                    .all(|(t, s)| t == s || (t.starts_with('{') && !s.is_empty()))
            })
            .filter(|(template, _)| self.doc["paths"][template.as_str()].get(&method).is_some())
            .max_by_key(|(_, t)| t.iter().filter(|s| !s.starts_with('{')).count())
            .map(|(template, _)| {
                let pointer = format!("/paths/{}/{method}", escape(template));
                (template.clone(), pointer)
            })
    }

    /// Checks a request's `body` (bytes as sent; empty for none) against the request body
    /// GitHub's description gives for `method` on `path`.
    ///
    /// # Errors
    /// What is wrong, in words: an operation GitHub does not have, a body it does not take
    /// or does not get, a body that is not JSON or breaks the schema.
    pub fn check_request(&self, method: &str, path: &str, body: &[u8]) -> Result<(), String> {
        let what = format!("request {method} {path}");
        let (template, op) = self
            .operation(method, path)
            .ok_or_else(|| format!("{what}: GitHub's REST API has no such operation"))?;
        let what = format!("{what} ({method} {template})");
        let request_body = self.resolve(&format!("{op}/requestBody"));
        match (request_body, body.is_empty()) {
            (None, true) => Ok(()),
            (None, false) => Err(format!("{what}: sends a body the operation takes none of")),
            (Some((_, rb)), true) if rb["required"] == json!(true) => Err(format!(
                "{what}: sends no body, and the operation requires one"
            )),
            (Some(_), true) => Ok(()),
            (Some((pointer, _)), false) => {
                let schema = format!("{pointer}/content/application~1json/schema");
                self.check(&what, &schema, body)
            }
        }
    }

    /// Checks an answer (`status`, `body` as served; empty for none) to `method` on `path`
    /// against the response GitHub's description gives for that status. An error status the
    /// operation does not list (a 502 GitHub sends from its front end, say) must still be
    /// GitHub's error object (`basic-error`).
    ///
    /// # Errors
    /// What is wrong, in words: an operation GitHub does not have, a success status it does
    /// not answer, a body where it sends none, a body that breaks the schema.
    pub fn check_response(
        &self,
        method: &str,
        path: &str,
        status: u16,
        body: &[u8],
    ) -> Result<(), String> {
        let what = format!("answer {status} to {method} {path}");
        let (template, op) = self
            .operation(method, path)
            .ok_or_else(|| format!("{what}: GitHub's REST API has no such operation"))?;
        let what = format!("{what} ({method} {template})");
        let Some((pointer, response)) = self.resolve(&format!("{op}/responses/{status}")) else {
            if status >= 400 {
                return self.check(&what, "/components/schemas/basic-error", body);
            }
            return Err(format!(
                "{what}: GitHub does not answer this operation with {status}"
            ));
        };
        match (response.get("content"), body.is_empty()) {
            (None, true) => Ok(()),
            (None, false) => Err(format!("{what}: has a body, where GitHub sends none")),
            (Some(content), _) => match content.get("application/json") {
                Some(_) => {
                    let schema = format!("{pointer}/content/application~1json/schema");
                    self.check(&what, &schema, body)
                }
                None => Err(format!("{what}: GitHub answers it with no JSON")),
            },
        }
    }

    /// The object at `pointer`, following a `$ref` there (a shared response, say), with
    /// the pointer it was found at.
    fn resolve(&self, pointer: &str) -> Option<(String, &Value)> {
        let found = self.doc.pointer(pointer)?;
        match found.get("$ref").and_then(Value::as_str) {
            Some(r) => {
                let target = r.strip_prefix(BASE)?.strip_prefix('#')?;
                self.resolve(target)
            }
            None => Some((pointer.to_string(), found)),
        }
    }

    /// Checks `body` as JSON against the schema at `pointer`.
    fn check(&self, what: &str, pointer: &str, body: &[u8]) -> Result<(), String> {
        let instance: Value = serde_json::from_slice(body)
            .map_err(|e| format!("{what}: the body is not JSON ({e})"))?;
        let validator = self.validator(pointer);
        let errors: Vec<String> = validator
            .iter_errors(&instance)
            .take(5)
            .map(|e| format!("at {:?}: {e}", e.instance_path().to_string()))
            .collect();
        if errors.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "{what}: breaks GitHub's schema {pointer}:\n  {}",
                errors.join("\n  ")
            ))
        }
    }

    /// The validator of the schema at `pointer`, compiled at its first use.
    fn validator(&self, pointer: &str) -> Arc<Validator> {
        if let Some(v) = self.validators.lock().unwrap().get(pointer) {
            return Arc::clone(v);
        }
        let schema = self
            .doc
            .pointer(pointer)
            .unwrap_or_else(|| panic!("no schema at {pointer}"));
        let compiled = Arc::new(
            jsonschema::options()
                .with_draft(Draft::Draft4)
                .with_registry(&self.registry)
                .build(schema)
                .unwrap_or_else(|e| panic!("the schema at {pointer} compiles: {e}")),
        );
        self.validators
            .lock()
            .unwrap()
            .entry(pointer.to_string())
            .or_insert(compiled)
            .clone()
    }
}

/// `key` as a JSON pointer segment (RFC 6901: `~` as `~0`, `/` as `~1`).
fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// Turns OpenAPI 3.0 schemas into JSON Schema, in place: `nullable: true` allows `null`
/// (added to `type` and to `enum`, or as an `anyOf` branch beside a schema without a type),
/// and a reference into the description (`#/components/…`) becomes absolute (`urn:github#/…`),
/// so that it resolves from any schema compiled on its own.
fn convert(value: &mut Value) {
    match value {
        Value::Array(items) => items.iter_mut().for_each(convert),
        Value::Object(map) => {
            map.values_mut().for_each(convert);
            if let Some(Value::String(r)) = map.get_mut("$ref") {
                if r.starts_with('#') {
                    *r = format!("{BASE}{r}");
                }
            }
            if map.get("nullable") != Some(&json!(true)) {
                return;
            }
            map.remove("nullable");
            if let Some(Value::Array(values)) = map.get_mut("enum") {
                values.push(Value::Null);
            }
            match map.get_mut("type") {
                Some(Value::String(t)) => {
                    let t = std::mem::take(t);
                    map.insert("type".into(), json!([t, "null"]));
                }
                Some(Value::Array(types)) => types.push(json!("null")),
                _ => {
                    let rest = std::mem::take(map);
                    map.insert(
                        "anyOf".into(),
                        json!([Value::Object(rest), { "type": "null" }]),
                    );
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    /// Issue 27 (N5): without `tests/openapi/node_modules` the harness says what to run.
    #[test]
    #[should_panic(expected = "run scripts/test.sh (npm ci in tests/openapi)")]
    fn a_missing_description_says_to_run_the_test_script() {
        super::assert_installed(std::path::Path::new(
            "/nonexistent/node_modules/@octokit/openapi/generated/api.github.com.json",
        ));
    }
}
