//! Stage 3's input: the idle culler settings in Zero to JupyterHub values files.
//!
//! Reads `cull.enabled`, `cull.timeout`, `cull.every` and `cull.maxAge` as the z2jh chart
//! (4.x) defines them in `values.schema.yaml`: `enabled` a boolean, the others whole seconds
//! (integer) or null. Files layer as `helm -f a.yaml -f b.yaml` does: a key set in a later
//! file overrides the earlier ones, and a key no file sets keeps its chart default. A null
//! deletes the key in Helm, and z2jh then passes no flag to the culler; that is recorded as 0
//! here (no maximum age for `maxAge`; refused for `timeout` and `every` by
//! [`Configured::validate`], which says what the culler does then).
//!
//! It also reads the hub's slow-stop timeout, which the worst case of the window depends on
//! ([`crate::window::at_scale`]): [`SLOW_STOP_KEY`], seconds, more than 0.
//!
//! For the pull-policy preflight it reads `singleuser.image.name`, `.tag` and `.pullPolicy`
//! beside `cull` (into [`crate::window::ImageConfig`]).
//!
//! Each file is read straight into the settings ([`Configured`]), over those of the files
//! before it ([`parse`]): the values and their origins have one representation.
//!
//! When the chart is a subchart the keys sit under a parent key, commonly `jupyterhub:`.
//! [`ValuesPath::Auto`] finds `cull` (or, without it, `hub.config.JupyterHub`) at the top
//! level or under `jupyterhub`; [`ValuesPath::Under`] names the parent explicitly.
//!
//! Keys under `cull` other than z2jh's ([`CULL_KEYS`]) are refused: z2jh's schema refuses
//! them too, and a misspelt `timout` would otherwise leave the default in force unnoticed.
//!
//! [`parse`] is pure (text in, settings out); [`load`] reads the files. YAML is read with
//! `serde-saphyr` (YAML 1.1 booleans such as `yes` are accepted, as Helm does). Every refusal
//! is data ([`ValuesError`], naming the file and the key path), worded by the render layer
//! (`crate::render::values_words`) for users, not for programmers calling the parser.

use crate::support::files;
use crate::window::{
    Configured, DEFAULT_SLOW_STOP_TIMEOUT_SECS, ImageConfig, ImageTag, InvalidSettings,
    MAX_DURATION_SECS, Origin, Overrides, PullPolicy, ScaleConfig, set,
};
use serde::Deserialize;
use serde_json::Value;
use std::path::PathBuf;

pub(crate) mod error;
pub(crate) use error::{Holds, Takes, ValuesError, Wrong};

/// The parent key that z2jh's values sit under when the chart is used as a subchart.
pub(crate) const SUBCHART_KEY: &str = "jupyterhub";

/// Where z2jh passes JupyterHub's own configuration (traitlets) in a values file.
pub(crate) const HUB_CONFIG_KEY: &str = "hub.config.JupyterHub";

/// The hub's slow-stop timeout in a values file. JupyterHub 6.1.1 has no
/// `JupyterHub.slow_stop_timeout` option: `handlers/base.py` reads
/// `self.settings.get('slow_stop_timeout', 10)` from the tornado settings, which
/// `JupyterHub.tornado_settings` extends (`app.py`, `init_tornado_settings`).
pub(crate) const SLOW_STOP_KEY: &str = "hub.config.JupyterHub.tornado_settings.slow_stop_timeout";

/// The keys z2jh's schema (`values.schema.yaml`, 4.x) allows under `cull`. codeq-rollout
/// reads `enabled`, `timeout`, `every` and `maxAge`; the others do not change the window.
pub(crate) const CULL_KEYS: [&str; 8] = [
    "enabled",
    "users",
    "adminUsers",
    "removeNamedServers",
    "timeout",
    "every",
    "concurrency",
    "maxAge",
];

/// Where `cull` sits in a values file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) enum ValuesPath {
    /// At the top level, or under `jupyterhub:` (the file must not have both).
    #[default]
    Auto,
    /// Under these parent keys, outermost first; empty for the top level.
    Under(Vec<String>),
}

impl ValuesPath {
    /// Parses `--values-path` (unset is [`ValuesPath::Auto`], as is a blank Action input,
    /// which counts as unset): `.` for the top level, otherwise a dotted key path such as
    /// `jupyterhub` or `platform.jupyterhub`, trimmed.
    ///
    /// # Errors
    /// An empty segment (a blank value too, which the command line refuses first), as in `a..b` or `.jupyterhub`,
    /// or a path ending in `cull` (the option names the parent of `cull`, so
    /// `jupyterhub.cull` is a slip for `jupyterhub`).
    pub(crate) fn parse(text: &str) -> Result<Self, ValuesError> {
        let t = text.trim();
        if t == "." {
            return Ok(ValuesPath::Under(Vec::new()));
        }
        let keys: Vec<String> = t.split('.').map(|k| k.trim().to_string()).collect();
        match keys.split_last() {
            _ if keys.iter().any(String::is_empty) => Err(ValuesError::EmptyKey(t.into())),
            Some((last, parent)) if last == "cull" => {
                Err(ValuesError::EndsInCull(t.into(), dotted(parent)))
            }
            _ => Ok(ValuesPath::Under(keys)),
        }
    }

    /// The parent keys named, outermost first; `None` for [`ValuesPath::Auto`].
    pub(crate) fn under(&self) -> Option<&[String]> {
        match self {
            ValuesPath::Auto => None,
            ValuesPath::Under(keys) => Some(keys),
        }
    }
}

/// The values files read, layered as Helm layers them over z2jh's defaults ([`parse`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Read {
    /// z2jh's defaults with every key the files set over them, each with its origin.
    pub(crate) config: Configured,
    /// How many files were read.
    pub(crate) files: usize,
    /// Whether any of them sets `cull` at the place searched.
    pub(crate) sets_cull: bool,
}

/// A mapping of a values file with its dotted path there (`""` for the top level), so that
/// what is read below it, and every refusal, names the file and the full key path.
#[derive(Clone)]
struct Node<'a> {
    file: &'a str,
    path: String,
    value: &'a Value,
}

impl<'a> Node<'a> {
    /// The top level of `file`.
    fn top(file: &'a str, value: &'a Value) -> Self {
        Node {
            file,
            path: String::new(),
            value,
        }
    }

    /// The dotted path of `key` (itself dotted) below this node.
    fn key(&self, key: &str) -> String {
        match self.path.as_str() {
            "" => key.to_string(),
            path => format!("{path}.{key}"),
        }
    }

    /// The origin of a setting read at `key` below this node.
    fn origin(&self, key: &str) -> Origin {
        Origin::file(self.file, self.key(key))
    }

    /// The value of `key`, if set.
    fn get(&self, key: &str) -> Option<&'a Value> {
        self.value.get(key)
    }

    /// The mapping at `key`; `None` when the key is absent or null (the file sets nothing
    /// there).
    ///
    /// # Errors
    /// Anything but a mapping or null: [`ValuesError::NotMapping`], with what it `holds`.
    fn child(&self, key: &str, holds: Holds) -> Result<Option<Node<'a>>, ValuesError> {
        match self.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(value @ Value::Object(_)) => Ok(Some(Node {
                file: self.file,
                path: self.key(key),
                value,
            })),
            Some(other) => Err(ValuesError::NotMapping {
                file: self.file.to_string(),
                key: self.key(key),
                found: other.into(),
                holds,
            }),
        }
    }

    /// The mapping at the keys `parents` below this node, walked one by one ([`Node::child`],
    /// each holding `holds`); `None` when one is absent or null.
    fn descend(
        &self,
        parents: &[impl AsRef<str>],
        holds: Holds,
    ) -> Result<Option<Node<'a>>, ValuesError> {
        let mut node = self.clone();
        for key in parents {
            let Some(next) = node.child(key.as_ref(), holds)? else {
                return Ok(None);
            };
            node = next;
        }
        Ok(Some(node))
    }

    /// The refusal of the value at `key` below this node.
    fn wrong(&self, key: &str, wrong: Wrong, takes: Takes) -> ValuesError {
        ValuesError::Value {
            file: self.file.to_string(),
            key: self.key(key),
            wrong,
            takes,
        }
    }
}

/// Parses one values file's text into `config`, over what it holds already (z2jh's
/// defaults, earlier files), as Helm layers `-f` files: each key the file sets replaces the
/// value and records the file and key path as its origin. `file` names it in errors. Returns
/// whether it sets `cull` at the place searched.
///
/// # Errors
/// Text that is not YAML, a top level that is not a mapping, a parent or `cull` that is
/// not a mapping, `cull` found both at the top level and under `jupyterhub` (with
/// [`ValuesPath::Auto`]), or a value of the wrong type, negative, or (for `cull.enabled`)
/// null: a [`ValuesError`] naming the file and the key path.
pub(crate) fn parse(
    file: &str,
    text: &str,
    path: &ValuesPath,
    config: &mut Configured,
) -> Result<bool, ValuesError> {
    let Some(top) = top_mapping(file, text)? else {
        return Ok(false);
    };
    let top = Node::top(file, &top);
    let parents = match path {
        ValuesPath::Under(keys) => keys.clone(),
        ValuesPath::Auto => marked_place(&top)?
            .map(|(parents, _)| parents)
            .unwrap_or_default(),
    };
    check_slow_stop_in_reach(&top, &parents)?;
    read_image(&top, &parents, path, &mut config.image)?;
    let base = top.descend(&parents, Holds::Parent)?;
    if let Some(base) = &base {
        read_slow_stop(base, &mut config.scale)?;
    }
    match base
        .map(|b| b.child("cull", Holds::Cull))
        .transpose()?
        .flatten()
    {
        Some(cull) => read_cull(&cull, config).map(|()| true),
        None => {
            let expected: Vec<&str> = parents.iter().map(String::as_str).chain(["cull"]).collect();
            check_cull_in_reach(&top, &expected.join(".")).map(|()| false)
        }
    }
}

/// The file's top-level mapping; `None` for an empty document.
fn top_mapping(file: &str, text: &str) -> Result<Option<Value>, ValuesError> {
    let doc: Value = serde_saphyr::from_str(text)
        .map_err(|e| ValuesError::NotYaml(file.to_string(), Box::new(e)))?;
    match doc {
        Value::Null => Ok(None),
        Value::Object(_) => Ok(Some(doc)),
        other => Err(ValuesError::TopNotMapping(file.into(), (&other).into())),
    }
}

/// What marks `node` as the place of z2jh's values: `cull`, or the hub's
/// [`HUB_CONFIG_KEY`]; `None` for neither.
fn mark(node: Option<&Value>) -> Option<&'static str> {
    let node = node?.as_object()?;
    if node.contains_key("cull") {
        Some("cull")
    } else {
        let hub_config = node.get("hub")?.pointer("/config/JupyterHub")?;
        hub_config.is_object().then_some(HUB_CONFIG_KEY)
    }
}

/// Where `top` marks z2jh's values ([`ValuesPath::Auto`]): the parent keys and the marking
/// key's dotted path (`cull`, `jupyterhub.hub.config.JupyterHub`); `None` when it marks
/// neither place.
///
/// # Errors
/// Both places marked.
fn marked_place(top: &Node) -> Result<Option<(Vec<String>, String)>, ValuesError> {
    match (mark(Some(top.value)), mark(top.get(SUBCHART_KEY))) {
        (Some(here), Some(there)) => Err(ValuesError::BothPlaces(
            top.file.to_string(),
            here,
            format!("{SUBCHART_KEY}.{there}"),
        )),
        (None, Some(there)) => Ok(Some((
            vec![SUBCHART_KEY.to_string()],
            format!("{SUBCHART_KEY}.{there}"),
        ))),
        (Some(here), None) => Ok(Some((Vec::new(), here.to_string()))),
        (None, None) => Ok(None),
    }
}

/// The dotted path of the first `cull` mapping anywhere in `node` (depth first, at most six
/// keys deep): where a file sets `cull` when it is not where codeq-rollout reads it.
fn cull_anywhere(node: &Value, walked: &mut Vec<String>) -> Option<String> {
    let map = node.as_object()?;
    if map.get("cull").is_some_and(Value::is_object) {
        let at: Vec<&str> = walked.iter().map(String::as_str).chain(["cull"]).collect();
        return Some(at.join("."));
    }
    if walked.len() >= 6 {
        return None;
    }
    for (key, child) in map {
        walked.push(key.clone());
        let found = cull_anywhere(child, walked);
        walked.pop();
        if found.is_some() {
            return found;
        }
    }
    None
}

/// Refuses a file whose `cull` is not where codeq-rollout reads it (`expected`): it would
/// otherwise publish z2jh's defaults although the file sets other values.
fn check_cull_in_reach(top: &Node, expected: &str) -> Result<(), ValuesError> {
    match cull_anywhere(top.value, &mut Vec::new()) {
        None => Ok(()),
        Some(at) => Err(ValuesError::CullOutOfReach(
            top.file.to_string(),
            at,
            expected.to_string(),
        )),
    }
}

/// Refuses a file that sets the hub's slow-stop timeout ([`SLOW_STOP_KEY`]) at the top
/// level while z2jh's values are read under `parents` (not empty): the chart would never read
/// it, so the worst case would silently use another value (issue 27, as a top-level `cull`
/// is refused by [`check_cull_in_reach`]). The advice is to move it, not another
/// `--values-path`: the chart reads every values file at one place.
fn check_slow_stop_in_reach(top: &Node, parents: &[String]) -> Result<(), ValuesError> {
    let set = top
        .value
        .pointer("/hub/config/JupyterHub/tornado_settings/slow_stop_timeout");
    if parents.is_empty() || set.is_none() {
        return Ok(());
    }
    let reads = format!("{}.{SLOW_STOP_KEY}", parents.join("."));
    Err(ValuesError::SlowStopOutOfReach(
        top.file.to_string(),
        SLOW_STOP_KEY,
        reads,
    ))
}

/// Reads the `cull` mapping `cull` into `config`; refuses a key z2jh does not define
/// ([`CULL_KEYS`]). A null duration is recorded as 0 (see the module documentation).
fn read_cull(cull: &Node, config: &mut Configured) -> Result<(), ValuesError> {
    let mut keys = cull.value.as_object().into_iter().flat_map(|m| m.keys());
    if let Some(unknown) = keys.find(|k| !CULL_KEYS.contains(&k.as_str())) {
        return Err(ValuesError::UnknownCullKey {
            file: cull.file.to_string(),
            key: cull.key(unknown),
            cull: cull.path.clone(),
            known: &CULL_KEYS,
            like: CULL_KEYS
                .into_iter()
                .find(|k| k.eq_ignore_ascii_case(unknown)),
        });
    }
    for (key, _, setting) in config.durations() {
        let secs = cull.get(key).map(|v| seconds(cull, key, v)).transpose()?;
        set(secs, setting, cull.origin(key));
    }
    if let Some(v) = cull.get("enabled").map(|v| boolean(cull, v)).transpose()? {
        (config.settings.enabled, config.origins.enabled) = (v, cull.origin("enabled"));
    }
    Ok(())
}

/// Reads the hub's slow-stop timeout ([`SLOW_STOP_KEY`] below `base`, the parent of `cull`)
/// into `scale`, in whole seconds (a fraction rounded up) with the file and key as its origin;
/// a null sets JupyterHub's default ([`DEFAULT_SLOW_STOP_TIMEOUT_SECS`]) back.
fn read_slow_stop(base: &Node, scale: &mut ScaleConfig) -> Result<(), ValuesError> {
    let Some(node) = base.descend(&["hub", "config", "JupyterHub"], Holds::Other)? else {
        return Ok(());
    };
    if node.get("slow_stop_timeout").is_some() {
        let file = node.file.to_string();
        let (key, reads) = (node.key("slow_stop_timeout"), base.key(SLOW_STOP_KEY));
        return Err(ValuesError::SlowStopNotJupyterHub(file, key, reads));
    }
    let Some(settings) = node.child("tornado_settings", Holds::Other)? else {
        return Ok(());
    };
    let Some(v) = settings.get("slow_stop_timeout") else {
        return Ok(());
    };
    let wrong = |wrong| Err(settings.wrong("slow_stop_timeout", wrong, Takes::SlowStop));
    let (secs, origin) = match v {
        Value::Null => (DEFAULT_SLOW_STOP_TIMEOUT_SECS, Origin::Default),
        Value::Number(n) => match n.as_f64() {
            Some(f) if f > MAX_DURATION_SECS as f64 => return wrong(Wrong::TooLong(n.to_string())),
            // A fraction is rounded up: the bound stays "never later than".
            Some(f) if f > 0.0 => (f.ceil() as u64, settings.origin("slow_stop_timeout")),
            _ => return wrong(Wrong::NotPositive(n.to_string())),
        },
        other => return wrong(Wrong::Kind(other.into())),
    };
    (scale.slow_stop_timeout_secs, scale.slow_stop_origin) = (secs, origin);
    Ok(())
}

/// Reads the `singleuser.image` keys of the file whose top level is `top` into `config`, each
/// with the file and key path as its origin (a null or `""` unsets it: Helm deletes a null,
/// z2jh treats `""` as unset): below `parents` (the parent of `cull`); with [`ValuesPath::Auto`] and a file that marks no place (no `cull`, no
/// hub configuration), at the top level or under [`SUBCHART_KEY`], whichever holds
/// `singleuser`.
///
/// # Errors
/// A parent, `singleuser` or `image` that is not a mapping; `singleuser` at both places of
/// a file that marks neither; a `name` or `tag` that is not a string, a `pullPolicy` that is
/// not one of z2jh's schema (`Always`, `IfNotPresent`, `Never`, null, `""`). Each names the
/// file and the key path.
fn read_image(
    top: &Node,
    parents: &[String],
    path: &ValuesPath,
    config: &mut ImageConfig,
) -> Result<(), ValuesError> {
    let marked = mark(Some(top.value)).is_some();
    let under = top
        .get(SUBCHART_KEY)
        .and_then(|n| n.get("singleuser"))
        .is_some();
    let parents: Vec<String> = match (path, parents.is_empty() && !marked) {
        (ValuesPath::Auto, true) if top.get("singleuser").is_some() && under => {
            let there = format!("{SUBCHART_KEY}.singleuser");
            return Err(ValuesError::BothPlaces(
                top.file.into(),
                "singleuser",
                there,
            ));
        }
        (ValuesPath::Auto, true) if under => vec![SUBCHART_KEY.to_string()],
        _ => parents.to_vec(),
    };
    let singleuser = match top.descend(&parents, Holds::Parent)? {
        Some(base) => base.child("singleuser", Holds::Other)?,
        None => None,
    };
    let Some(image) = singleuser
        .map(|s| s.child("image", Holds::Image))
        .transpose()?
        .flatten()
    else {
        return Ok(());
    };
    let text = |name: &str, takes| match image.get(name) {
        None => Ok(None),
        Some(Value::Null) => Ok(Some(None)),
        Some(Value::String(t)) if t.trim().is_empty() => Ok(Some(None)),
        Some(Value::String(t)) => Ok(Some(Some(t.trim().to_string()))),
        Some(other) => Err(image.wrong(name, Wrong::Kind(other.into()), takes)),
    };
    let pull_policy = match image.get("pullPolicy") {
        None => None,
        Some(Value::Null) => Some(None),
        Some(Value::String(t)) if t.is_empty() => Some(None),
        // Named exactly as Kubernetes (and z2jh's schema, `singleuser.image.pullPolicy`
        // `enum: [null, "", IfNotPresent, Always, Never]`, 4.x `values.schema.yaml`) writes it.
        Some(v) => match PullPolicy::deserialize(v) {
            Ok(policy) if v.is_string() => Some(Some(policy)),
            _ => return Err(image.wrong("pullPolicy", Wrong::Kind(v.into()), Takes::PullPolicy)),
        },
    };
    let origin = |name: &str| image.origin(name);
    if let Some(name) = text("name", Takes::ImageName)? {
        config.name = name.map(|n| (n, origin("name")));
    }
    if let Some(tag) = text("tag", Takes::ImageTag)? {
        config.tag = match tag {
            Some(t) => ImageTag::Given(t),
            None => ImageTag::Empty,
        };
    }
    if let Some(policy) = pull_policy {
        config.pull_policy = policy.map(|p| (p, origin("pullPolicy")));
    }
    Ok(())
}

/// The largest values file read, in bytes (1 MiB): z2jh values files are a few KiB; a larger
/// file is not one, and `/dev/zero` or a FIFO is never read at all ([`files::read_text`]).
pub(crate) const VALUES_MAX_BYTES: u64 = 1024 * 1024;

/// Reads and parses `files` in order (each named as given, [`parse`]), each a regular UTF-8
/// file of at most [`VALUES_MAX_BYTES`].
///
/// # Errors
/// An unreadable file ([`ValuesError::Unreadable`]), any [`parse`] error, with
/// [`ValuesPath::Auto`] files that disagree about where `cull` sits, and with
/// [`ValuesPath::Under`] parent keys that no file has (as when no file is given).
pub(crate) fn load(files: &[PathBuf], path: &ValuesPath) -> Result<Read, ValuesError> {
    let mut texts: Vec<(String, String)> = Vec::new();
    for f in files {
        let name = f.display().to_string();
        match files::read_text(f, VALUES_MAX_BYTES) {
            Ok(text) => texts.push((name, text)),
            Err(e) => return Err(ValuesError::Unreadable(name, e)),
        }
    }
    // The parent key is resolved once for all files, as Helm merges them into one tree
    // before the chart reads it.
    let resolved = match path {
        ValuesPath::Auto => auto_place(&texts)?,
        ValuesPath::Under(keys) => {
            named_place_found(&texts, keys)?;
            path.clone()
        }
    };
    let mut read = Read {
        files: texts.len(),
        ..Read::default()
    };
    for (name, text) in &texts {
        read.sets_cull |= parse(name, text, &resolved, &mut read.config)?;
    }
    Ok(read)
}

/// Refuses parent keys `keys` that none of `texts` (name, text) has, and any (the top level,
/// empty, too) when there is no file at all: a values path without a values file does
/// nothing.
fn named_place_found(texts: &[(String, String)], keys: &[String]) -> Result<(), ValuesError> {
    if keys.is_empty() && !texts.is_empty() {
        return Ok(());
    }
    for (name, text) in texts {
        let Some(top) = top_mapping(name, text)? else {
            continue;
        };
        let parent = Node::top(name, &top).descend(keys, Holds::Parent)?;
        if parent.is_some() {
            return Ok(());
        }
    }
    let names = texts.iter().map(|(n, _)| n.clone()).collect();
    Err(ValuesError::ValuesPathNotFound(dotted(keys), names))
}

/// `keys` as `--values-path` writes them: dotted, `.` for the top level (none).
fn dotted(keys: &[String]) -> String {
    Some(keys.join("."))
        .filter(|p| !p.is_empty())
        .unwrap_or(".".into())
}

/// For [`ValuesPath::Auto`]: the one place of z2jh's values in all of `texts` (name, text),
/// as the files that mark one ([`marked_place`]) agree; [`ValuesPath::Auto`] when none does.
///
/// # Errors
/// Two files marking different places (a subchart's `cull` in one, the top level's
/// `hub.config` in another, say): the chart reads only one of them.
fn auto_place(texts: &[(String, String)]) -> Result<ValuesPath, ValuesError> {
    let mut first: Option<(&str, Vec<String>, String)> = None;
    for (name, text) in texts {
        let Some(top) = top_mapping(name, text)? else {
            continue;
        };
        let Some((parents, mark)) = marked_place(&Node::top(name, &top))? else {
            continue;
        };
        match &first {
            None => first = Some((name, parents, mark)),
            Some((there_file, there, there_mark)) if *there != parents => {
                let there = (there_file.to_string(), there_mark.clone());
                return Err(ValuesError::Disagree([there, (name.clone(), mark)]));
            }
            Some(_) => {}
        }
    }
    Ok(first.map_or(ValuesPath::Auto, |(_, parents, _)| {
        ValuesPath::Under(parents)
    }))
}

/// Why the culler settings were refused ([`read`], [`settings`]), as data: `cli` wraps it in
/// the usage error naming the input at fault.
#[derive(Debug)]
pub(crate) enum SettingsError {
    /// A values file that does not exist and whose name holds a comma: the input takes one
    /// path per line.
    ListedWithComma(PathBuf),
    /// A values file that cannot be read, is not YAML, or sets a malformed, out-of-range or
    /// null culler value ([`load`]), or a value from a values file (or z2jh's defaults, which
    /// always pass) that [`Configured::validate`] refuses; the words name the file and the
    /// key path.
    File(ValuesError),
    /// An option's value that [`Configured::validate`] refuses: the option's name (its
    /// [`Origin::Option`]) and why.
    Option(String, InvalidSettings),
}

/// Reads the values files `files` in order, blank paths left out, with `cull` under `path`
/// ([`load`]). A relative path starts at the working directory, as on any command line. In
/// the Action that is the workspace the templates are read from
/// ([`crate::support::files::resolve_workspace`]): the runner starts the container in
/// `/github/workspace`, the mount of the checkout, and sets `GITHUB_WORKSPACE` to it
/// (actions/runner's `ContainerActionHandler`: `ContainerWorkDirectory`), and a `uses:` step
/// takes no `working-directory`.
///
/// # Errors
/// [`SettingsError::ListedWithComma`] for a missing file whose name holds a comma, before any
/// file is read; [`SettingsError::File`] for the errors of [`load`].
pub(crate) fn read(files: &[PathBuf], path: &ValuesPath) -> Result<Read, SettingsError> {
    let files: Vec<PathBuf> = files
        .iter()
        .filter(|f| !f.as_os_str().is_empty())
        .cloned()
        .collect();
    if let Some(listed) = files
        .iter()
        .find(|f| f.to_string_lossy().contains(',') && !f.exists())
    {
        return Err(SettingsError::ListedWithComma(listed.clone()));
    }
    load(&files, path).map_err(SettingsError::File)
}

/// Whether values files were read but none sets `cull` at the place searched: the settings
/// are then z2jh's defaults, which the caller warns about.
pub(crate) fn none_sets_cull(read: &Read) -> bool {
    read.files > 0 && !read.sets_cull
}

/// The culler settings, with where each came from: z2jh's defaults, overridden by the files
/// `read` in order ([`parse`]: the hub's slow-stop timeout too, else JupyterHub's 10 s),
/// overridden by `options` ([`Configured::override_with`]); then checked
/// ([`Configured::validate`]).
///
/// # Errors
/// For settings [`Configured::validate`] refuses, the variant of the value's origin.
pub(crate) fn settings(read: &Read, options: &Overrides) -> Result<Configured, SettingsError> {
    let mut c = read.config.clone();
    c.override_with(options);
    c.validate().map_err(|e| match &e.origin {
        Origin::Option { name } => SettingsError::Option(name.clone(), e),
        Origin::File { .. } | Origin::Default => SettingsError::File(ValuesError::Invalid(e)),
    })?;
    Ok(c)
}

/// `cull.enabled` (`v`) of `cull`: a boolean (z2jh requires one: a null is refused).
fn boolean(cull: &Node, v: &Value) -> Result<bool, ValuesError> {
    match v {
        Value::Bool(b) => Ok(*b),
        other => Err(cull.wrong("enabled", Wrong::Kind(other.into()), Takes::Boolean)),
    }
}

/// A `cull.*` duration: whole seconds as a plain integer of at most [`MAX_DURATION_SECS`];
/// a null is 0 (z2jh then passes no flag, see the module documentation).
fn seconds(node: &Node, key: &str, v: &Value) -> Result<u64, ValuesError> {
    let wrong = |wrong| Err(node.wrong(key, wrong, Takes::Seconds));
    match v {
        Value::Null => Ok(0),
        Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(secs), _, _) if secs > MAX_DURATION_SECS => {
                wrong(Wrong::TooLong(secs.to_string()))
            }
            (Some(secs), _, _) => Ok(secs),
            (None, Some(negative), _) => wrong(Wrong::Negative(negative.to_string())),
            (None, None, Some(f)) if f < 0.0 => wrong(Wrong::Negative(n.to_string())),
            (None, None, Some(f)) if f > MAX_DURATION_SECS as f64 => {
                wrong(Wrong::TooLong(format!("about {f:e}")))
            }
            (None, None, Some(f)) if f.fract() == 0.0 => wrong(Wrong::NotPlain(f)),
            _ => wrong(Wrong::NotWhole(n.to_string())),
        },
        other => wrong(Wrong::Kind(other.into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Result<T> = std::result::Result<T, ValuesError>;

    #[test]
    fn the_settings_name_the_origin_at_fault_and_the_options_win() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("hub.yaml");
        std::fs::write(&file, "cull:\n  timeout: 0\n  every: 60\n").unwrap();
        let listed = dir.path().join("a.yaml,b.yaml");
        let blank = PathBuf::new();
        assert!(matches!(
            read(&[file.clone(), listed.clone()], &ValuesPath::Auto),
            Err(SettingsError::ListedWithComma(l)) if l == listed
        ));
        let files = read(&[blank, file.clone()], &ValuesPath::Auto).unwrap();
        assert_eq!(files.files, 1);
        assert!(!none_sets_cull(&files));
        assert!(matches!(
            settings(&files, &Overrides::default()),
            Err(SettingsError::File(_))
        ));
        let zero = Overrides {
            timeout_secs: Some(600),
            every_secs: Some(0),
            ..Overrides::default()
        };
        assert!(matches!(
            settings(&files, &zero),
            Err(SettingsError::Option(name, _)) if name == "cull-every"
        ));
        let off = Overrides {
            enabled: Some(false),
            servers: Some(3),
            ..Overrides::default()
        };
        let c = settings(&files, &off).unwrap();
        assert!(!c.settings.enabled && c.scale.servers == Some(3));
        assert_eq!(
            c.origins.timeout,
            Origin::file(file.display().to_string(), "cull.timeout")
        );
    }

    /// The single-user image's keys, layered as Helm layers them, at the place `cull` sits.
    fn image(files: &[(&str, &str)], path: &ValuesPath) -> Result<ImageConfig> {
        layered(files, path).map(|c| c.image)
    }

    /// How values files set the single-user image: each case's files (and values path) and
    /// the image's keys with their origins, in one snapshot.
    #[test]
    fn the_singleuser_image_is_read_beside_cull_and_layered() {
        let plain = "cull: {timeout: 60}\nsingleuser:\n  image:\n    name: ghcr.io/org/lab\n    tag: latest\n    pullPolicy: IfNotPresent\n";
        let sub = "jupyterhub:\n  cull: {timeout: 60}\n  singleuser: {image: {pullPolicy: Never}}\nsingleuser: {image: {pullPolicy: Always}}\n";
        let only = "jupyterhub:\n  singleuser:\n    image: {tag: \"2024.11\"}\n";
        let unset = "singleuser: {image: {pullPolicy: null, tag: \"\"}}\n";
        let platform = "platform:\n  singleuser: {image: {pullPolicy: IfNotPresent}}\n";
        type Files<'a> = &'a [(&'a str, &'a str)];
        let cases: [(&str, Files, Option<&str>); 6] = [
            ("beside cull", &[("v.yaml", plain)], None),
            (
                "under the subchart key beside cull",
                &[("u.yaml", sub)],
                None,
            ),
            (
                "under the subchart key in an image-only file",
                &[("i.yaml", only)],
                None,
            ),
            (
                "a later file wins key by key; null and \"\" unset (Helm deletes a null)",
                &[("a.yaml", plain), ("b.yaml", unset)],
                None,
            ),
            (
                "an explicit values path",
                &[("p.yaml", platform)],
                Some("platform"),
            ),
            ("none set", &[("e.yaml", "hub: {}\n")], None),
        ];
        let table: Vec<String> = cases
            .into_iter()
            .map(|(name, files, path)| {
                let path = path.map_or(ValuesPath::Auto, |p| ValuesPath::parse(p).unwrap());
                let c = image(files, &path).unwrap();
                let (n, t, p) = (c.name, c.tag, c.pull_policy);
                format!("{name}\n  name {n:?}\n  tag {t:?}\n  pullPolicy {p:?}")
            })
            .collect();
        insta::assert_snapshot!(table.join("\n\n"));
    }

    fn layered(files: &[(&str, &str)], path: &ValuesPath) -> Result<Configured> {
        let mut c = Configured::default();
        for (name, text) in files {
            parse(name, text, path, &mut c)?;
        }
        Ok(c)
    }

    /// The files' settings, `cull` found as [`ValuesPath::Auto`] finds it.
    fn auto(files: &[(&str, &str)]) -> Configured {
        layered(files, &ValuesPath::Auto).unwrap()
    }

    /// One file's settings, `cull` found as [`ValuesPath::Auto`] finds it.
    fn one(file: &str, text: &str) -> Configured {
        auto(&[(file, text)])
    }

    /// The error one file is refused with, `cull` sought as [`ValuesPath::Auto`] seeks it.
    fn one_err(file: &str, text: &str) -> String {
        layered(&[(file, text)], &ValuesPath::Auto)
            .unwrap_err()
            .to_string()
    }

    /// How values files layer into settings: each case's files, and every setting with its
    /// origin, in one snapshot.
    #[test]
    fn layering_table() {
        let cases: [(&str, &[(&str, &str)]); 6] = [
            (
                "plain chart values are read with their key paths",
                &[(
                    "values.yaml",
                    "hub:\n  image: {}\ncull:\n  enabled: true\n  timeout: 7200\n  every: 300\n  maxAge: 28800\n  users: false\n",
                )],
            ),
            (
                "subchart values are found under jupyterhub",
                &[(
                    "umbrella.yaml",
                    "ingress: {enabled: true}\njupyterhub:\n  cull:\n    timeout: 1800\n",
                )],
            ),
            (
                "a later file overrides an earlier one key by key",
                &[
                    ("base.yaml", "cull:\n  timeout: 7200\n  every: 300\n"),
                    ("prod.yaml", "cull:\n  timeout: 5400\n  maxAge: 86400\n"),
                ],
            ),
            (
                "missing keys keep the z2jh defaults",
                &[("v.yaml", "cull: {every: 120}\n")],
            ),
            (
                "YAML 1.1 booleans read as helm reads them",
                &[("v.yaml", "cull: {enabled: no}\n")],
            ),
            (
                "null clears a key as helm does",
                &[
                    ("a.yaml", "cull: {maxAge: 3600}\n"),
                    ("b.yaml", "cull: {maxAge: null}\n"),
                ],
            ),
        ];
        let mut table = Vec::new();
        for (name, files) in cases {
            let c = auto(files);
            let (s, o) = (c.settings, &c.origins);
            table.push(format!(
                "{name}\n  enabled {} ({})\n  timeout {} ({})\n  every {} ({})\n  maxAge {} ({})",
                s.enabled,
                o.enabled,
                s.timeout_secs,
                o.timeout,
                s.every_secs,
                o.every,
                s.max_age_secs,
                o.max_age
            ));
        }
        insta::assert_snapshot!(table.join("\n\n"));
    }

    #[test]
    fn values_path_names_another_parent_and_ignores_the_top_level() {
        let text = "cull: {timeout: 1}\nplatform:\n  hub:\n    cull: {timeout: 900}\n";
        let path = ValuesPath::parse("platform.hub").unwrap();
        let c = layered(&[("v.yaml", text)], &path).unwrap();
        assert_eq!(c.settings.timeout_secs, 900);
        assert_eq!(
            c.origins.timeout,
            Origin::file("v.yaml", "platform.hub.cull.timeout")
        );
        let top = layered(&[("v.yaml", text)], &ValuesPath::parse(".").unwrap()).unwrap();
        assert_eq!(top.settings.timeout_secs, 1);
        assert!(ValuesPath::parse(" ").is_err() && ValuesPath::parse("a..b").is_err());
    }

    #[test]
    fn missing_keys_keep_the_z2jh_defaults() {
        for text in [
            "",
            "# nothing\n",
            "hub: {}\n",
            "cull:\n",
            "cull: {}\n",
            "jupyterhub: {}\n",
        ] {
            let c = one("v.yaml", text);
            assert_eq!(c, Configured::default(), "{text:?}");
        }
    }

    /// Every refusal of a file's text (hub.yaml, `cull` found as [`ValuesPath::Auto`] finds
    /// it unless a values path is given), in words: one line naming the file and the key path,
    /// then what to write instead.
    #[test]
    fn bad_values_files_are_refused_naming_file_and_key_path() {
        let slow_stop = |value: &str| {
            format!(
                "hub: {{config: {{JupyterHub: {{tornado_settings: {{slow_stop_timeout: {value}}}}}}}}}\n"
            )
        };
        let timeout = |value: &str| format!("cull:\n  timeout: {value}\n");
        let cases: Vec<(String, Option<&str>)> = [
            "cull: [\n",
            "cull:\n  timeout: 1\n  timeout: 2\n",
            "a: 1\n---\nb: 2\n",
            "a: &x\n  b: *x\n",
            "cull:\n  timeout: {{ .Values.x }}\n",
            // No line of the file, nor a value the parser's message quotes, shows: a values
            // file holds secrets (`helm get values -a` gives them).
            "proxy:\n  secretToken: \"ghp_PROXYSECRET1234567890abcdefghijklmn\ncull:\n  timeout: 3600\n",
            "hub:\n  services:\n    x: {apiToken: ghp_APITOKEN1234567890abcdefghijklmn}\n  config: {a: [1, 2}\n",
            "proxy:\n  secretToken: !!int ghp_PROXYSECRET1234567890abcdefghijklmn\n",
            "jupyterhub:\n  cull:\n    timeout: 1h\n",
            "cull:\n  every: -60\n",
            "cull:\n  maxAge: 1.5\n",
            "cull:\n  timeout: \"3600\"\n",
            "cull:\n  enabled: maybe\n",
            "cull:\n  timeout: [3600]\n",
            "cull: true\n",
            // A scalar where a mapping belongs is named by its kind, never quoted.
            "cull: ghp_CULLSECRET1234567890abcdefghijklmn\n",
            "- cull\n",
            "ghp_TOPSECRET1234567890abcdefghijklmn\n",
            "cull: {enabled: ~}\n",
            "cull:\n  timout: 60\n",
            "jupyterhub:\n  cull:\n    Timeout: 60\n",
            "cull: {timeout: 1}\njupyterhub:\n  cull: {timeout: 2}\n",
            "hub: {config: {JupyterHub: {slow_stop_timeout: 30}}}\n",
            "hub: {config: 3}\n",
            "singleuser: {image: {pullPolicy: always}}\n",
            "singleuser: {image: {tag: 1.2}}\n",
            "jupyterhub:\n  singleuser: {image: [lab]}\n",
            "singleuser: {image: {}}\njupyterhub:\n  singleuser: {image: {}}\n",
        ]
        .into_iter()
        .map(String::from)
        .chain(
            [
                "017",
                "1e3",
                "99999999999999999999999",
                "315360001",
                "-1.5",
                "0.5",
            ]
            .map(timeout),
        )
        .chain(["0", "-5", "ten", "[10]", "400000000"].map(slow_stop))
        .map(|text| (text, None))
        .chain([
            ("jupyterhub: 3\n".to_string(), Some("jupyterhub")),
            (
                "proxy:\n  secretToken: ghp_PROXYSECRET1234567890abcdefghijklmn\n".to_string(),
                Some("proxy.secretToken"),
            ),
        ])
        .collect();
        let refused: Vec<String> = cases
            .iter()
            .map(|(text, path)| {
                let path = path.map_or(ValuesPath::Auto, |p| ValuesPath::parse(p).unwrap());
                let err = layered(&[("hub.yaml", text)], &path).unwrap_err();
                format!("{text:?}\n  {}", err.to_string().replace('\n', "\n  "))
            })
            .collect();
        insta::assert_snapshot!(refused.join("\n\n"));
    }

    #[test]
    fn every_key_z2jh_defines_under_cull_and_a_duration_of_3650_days_are_taken() {
        // Every key of z2jh's schema is taken, those that do not change the window included.
        let c = one(
            "hub.yaml",
            "cull: {enabled: true, users: false, adminUsers: true, removeNamedServers: false, timeout: 60, every: 30, concurrency: 10, maxAge: 0}\n",
        );
        assert_eq!(c.settings.timeout_secs, 60);
        let c = one("v.yaml", "cull: {timeout: 315360000}\n");
        assert_eq!(c.settings.timeout_secs, 315_360_000);
    }

    #[test]
    fn a_values_path_ending_in_cull_names_the_parent_to_write() {
        let err = ValuesPath::parse("jupyterhub.cull")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("\"jupyterhub.cull\" ends in `cull`") && err.ends_with("write jupyterhub"),
            "{err}"
        );
        let err = ValuesPath::parse("cull").unwrap_err().to_string();
        assert!(err.ends_with("write ."), "{err}");
    }

    #[test]
    fn yaml_errors_are_worded_for_users() {
        for (text, says) in [
            (
                "cull:\n  timeout: 1\n  timeout: 2\n",
                "the key `timeout` appears twice in the same mapping",
            ),
            (
                "a: 1\n---\nb: 2\n",
                "it holds more than one YAML document (separated by `---`)",
            ),
        ] {
            let err = one_err("v.yaml", text);
            assert!(err.contains(says), "{err}");
            for advice in ["DuplicateKeyPolicy", "from_str_multiple", "Options"] {
                assert!(!err.contains(advice), "{err}");
            }
        }
    }

    #[test]
    fn files_on_disk_layer_in_order_and_must_agree_on_the_layout() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| {
            let p = dir.path().join(name);
            std::fs::write(&p, text).unwrap();
            p
        };
        let a = write("a.yaml", "jupyterhub:\n  cull: {timeout: 100}\n");
        let b = write("b.yaml", "jupyterhub:\n  cull: {timeout: 200}\n");
        let secrets = write("secrets.yaml", "jupyterhub:\n  hub: {cookieSecret: x}\n");
        let plain = write("plain.yaml", "cull: {timeout: 300}\n");
        let read = load(&[a.clone(), secrets, b.clone()], &ValuesPath::Auto).unwrap();
        assert_eq!(read.config.settings.timeout_secs, 200);
        let err = load(&[a, plain], &ValuesPath::Auto)
            .unwrap_err()
            .to_string();
        assert!(err.contains("disagree about where `cull` sits"), "{err}");
        let missing = dir.path().join("missing.yaml");
        let err = format!("{:#}", load(&[missing], &ValuesPath::Auto).unwrap_err());
        assert!(
            err.contains("cannot read the JupyterHub values file") && err.contains("missing.yaml"),
            "{err}"
        );
    }

    /// Writes `files` (name, text) into a temporary directory; returns it and their paths.
    fn on_disk(files: &[(&str, &str)]) -> (tempfile::TempDir, Vec<PathBuf>) {
        let dir = tempfile::tempdir().unwrap();
        let paths = files
            .iter()
            .map(|(name, text)| {
                let p = dir.path().join(name);
                std::fs::write(&p, text).unwrap();
                p
            })
            .collect();
        (dir, paths)
    }

    /// Issue 27 item 2: the parent key is resolved once for all files. A subchart's `cull`
    /// in one file and a top-level `hub.config…` in another is refused, not mixed (the
    /// subchart never reads the top level's slow-stop timeout).
    #[test]
    fn values_files_are_not_mixed_across_parent_keys() {
        let (tmp, paths) = on_disk(&[
            (
                "a.yaml",
                "jupyterhub: {cull: {timeout: 600}, hub: {config: {JupyterHub: {tornado_settings: {slow_stop_timeout: 60}}}}}\n",
            ),
            (
                "b.yaml",
                "hub: {config: {JupyterHub: {tornado_settings: {slow_stop_timeout: 5}}}}\n",
            ),
        ]);
        let err = format!("{:#}", load(&paths, &ValuesPath::Auto).unwrap_err());
        // Issue 27 (N4): and it suggests no --values-path, which would fail for one of them.
        let explicit = |path: &str| {
            format!(
                "{:#}",
                load(&paths, &ValuesPath::parse(path).unwrap()).unwrap_err()
            )
        };
        // Named explicitly, the top level's slow-stop timeout (which the subchart never
        // reads) is refused as a top-level `cull` is, not silently dropped.
        let refused = [err, explicit("jupyterhub")].join("\n\n");
        let dir = format!("{}/", tmp.path().display());
        insta::assert_snapshot!(refused.replace(&dir, "[dir]/"));
    }

    /// Issue 27 item 3: an explicit values-path that no given file has is refused, and so is
    /// a file that sets `cull` somewhere codeq-rollout does not read, naming where.
    #[test]
    fn a_values_path_no_file_has_and_a_cull_out_of_reach_are_refused() {
        let (_dir, paths) = on_disk(&[(
            "v.yaml",
            "platform:\n  jupyterhub:\n    cull: {timeout: 1800}\n",
        )]);
        let err = format!(
            "{:#}",
            load(&paths, &ValuesPath::parse("jupyterhub").unwrap()).unwrap_err()
        );
        assert!(
            err.contains("jupyterhub") && err.contains("v.yaml"),
            "{err}"
        );
        let err = format!("{:#}", load(&paths, &ValuesPath::Auto).unwrap_err());
        assert!(err.contains("platform.jupyterhub.cull"), "{err}");
        assert!(
            err.contains("values-path (--values-path) to its parent key, platform.jupyterhub"),
            "{err}"
        );
        let files = load(&paths, &ValuesPath::parse("platform.jupyterhub").unwrap()).unwrap();
        assert_eq!(files.config.settings.timeout_secs, 1800);
    }

    fn slow_stop(files: &[(&str, &str)], path: &ValuesPath) -> Result<(u64, Origin)> {
        let scale = layered(files, path)?.scale;
        Ok((scale.slow_stop_timeout_secs, scale.slow_stop_origin))
    }

    #[test]
    fn the_slow_stop_timeout_is_read_from_the_hubs_tornado_settings() {
        let hub = "hub:\n  config:\n    JupyterHub:\n      tornado_settings:\n        slow_stop_timeout: 30\n";
        assert_eq!(
            slow_stop(&[("v.yaml", hub)], &ValuesPath::Auto).unwrap(),
            (30, Origin::file("v.yaml", SLOW_STOP_KEY))
        );
        // Under the subchart key, found with or without `cull` beside it.
        let umbrella = format!(
            "jupyterhub:\n{}",
            hub.lines().map(|l| format!("  {l}\n")).collect::<String>()
        );
        assert_eq!(
            slow_stop(&[("u.yaml", &umbrella)], &ValuesPath::Auto).unwrap(),
            (
                30,
                Origin::file(
                    "u.yaml",
                    "jupyterhub.hub.config.JupyterHub.tornado_settings.slow_stop_timeout"
                )
            )
        );
        let with_cull = format!("{umbrella}  cull: {{timeout: 60}}\n");
        let c = layered(&[("u.yaml", &with_cull)], &ValuesPath::Auto).unwrap();
        assert_eq!(c.settings.timeout_secs, 60);
        assert_eq!(c.scale.slow_stop_timeout_secs, 30);
        // Unset, or null in the last file that sets it: JupyterHub's default, 10 s.
        assert_eq!(
            slow_stop(
                &[("v.yaml", "hub: {config: {JupyterHub: {}}}\n")],
                &ValuesPath::Auto
            )
            .unwrap(),
            (10, Origin::Default)
        );
        let null = "hub: {config: {JupyterHub: {tornado_settings: {slow_stop_timeout: null}}}}\n";
        assert_eq!(
            slow_stop(&[("a.yaml", hub), ("b.yaml", null)], &ValuesPath::Auto).unwrap(),
            (10, Origin::Default)
        );
        // A later file that does not set it keeps the earlier one's; a fraction rounds up.
        let frac = "hub: {config: {JupyterHub: {tornado_settings: {slow_stop_timeout: 2.5}}}}\n";
        assert_eq!(
            slow_stop(
                &[("a.yaml", frac), ("b.yaml", "cull: {timeout: 60}\n")],
                &ValuesPath::Auto
            )
            .unwrap(),
            (3, Origin::file("a.yaml", SLOW_STOP_KEY))
        );
    }
}
