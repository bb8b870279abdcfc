//! The values files' refusals as data: what is wrong in which file at which key, with the
//! facts the words need (`crate::render::values_words` words them). A value read from a file
//! is kept as its [`Kind`] alone, never itself: z2jh values files hold secrets
//! (`proxy.secretToken`, `hub.services.*.apiToken`; `helm get values -a` gives them).

use crate::support::files::ReadError;
use crate::window::InvalidSettings;
use serde_json::Value;

/// Why values files, or `--values-path`, were refused, as data: each names the file and the
/// key path at fault. The words are the render layer's (`crate::render::values_words`).
#[derive(Debug)]
pub(crate) enum ValuesError {
    /// `--values-path` with an empty key (`a..b`, `.jupyterhub`), as given.
    EmptyKey(String),
    /// `--values-path` ending in `cull` (as given), and the parent key to write instead
    /// (`.` for the top level).
    EndsInCull(String, String),
    /// A file that cannot be read, and why.
    Unreadable(String, ReadError),
    /// A file that is not YAML: the parser's error.
    NotYaml(String, Box<serde_saphyr::Error>),
    /// A file whose top level is not a mapping, but this.
    TopNotMapping(String, Kind),
    /// A key that holds a mapping of z2jh (what it holds) that is something else.
    NotMapping {
        /// The file.
        file: String,
        /// The key's dotted path.
        key: String,
        /// What it is.
        found: Kind,
        /// What the mapping holds.
        holds: Holds,
    },
    /// A value z2jh (or JupyterHub) does not take at a key.
    Value {
        /// The file.
        file: String,
        /// The key's dotted path.
        key: String,
        /// What is wrong with it.
        wrong: Wrong,
        /// What the key takes.
        takes: Takes,
    },
    /// A key under `cull` z2jh does not define.
    UnknownCullKey {
        /// The file.
        file: String,
        /// The key's dotted path.
        key: String,
        /// The dotted path of `cull`.
        cull: String,
        /// The keys z2jh defines there.
        known: &'static [&'static str],
        /// The z2jh key it differs from only in case.
        like: Option<&'static str>,
    },
    /// A file that marks z2jh's values (`cull`, the hub's configuration, or `singleuser`) both
    /// at the top level (this key) and under `jupyterhub` (this dotted path).
    BothPlaces(String, &'static str, String),
    /// A file setting `cull` at this dotted path, where codeq-rollout does not read it; and
    /// the path it reads.
    CullOutOfReach(String, String, String),
    /// A file setting the slow-stop timeout (this key) at the top level while z2jh's values
    /// are read under a parent key: the full dotted path it is read at.
    SlowStopOutOfReach(String, &'static str, String),
    /// A file setting `hub.config.JupyterHub.slow_stop_timeout` (this dotted path), an option
    /// JupyterHub does not have; and the path of the one it reads.
    SlowStopNotJupyterHub(String, String, String),
    /// `--values-path` (dotted, `.` for the top level) naming a key none of these files has
    /// (none: no file given).
    ValuesPathNotFound(String, Vec<String>),
    /// Two files marking different places for z2jh's values: each file with its mark.
    Disagree([(String, String); 2]),
    /// Settings read from a file that [`crate::window::Configured::validate`] refuses.
    Invalid(InvalidSettings),
}

impl std::error::Error for ValuesError {}

/// What a mapping z2jh reads holds, for the refusal of something else there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Holds {
    /// `cull`: the culler's settings.
    Cull,
    /// A parent key of z2jh's values (`--values-path`, or `jupyterhub`).
    Parent,
    /// `singleuser.image`: the single-user image.
    Image,
    /// The hub's configuration or `singleuser`.
    Other,
}

/// What kind of YAML value a key holds: never the value (a file's secrets stay out of
/// refusals).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `null`, `~` or nothing.
    Null,
    /// `true` or `false`.
    Boolean,
    /// A number.
    Number,
    /// A string.
    String,
    /// A sequence.
    List,
    /// A mapping.
    Mapping,
}

impl From<&Value> for Kind {
    fn from(value: &Value) -> Kind {
        match value {
            Value::Null => Kind::Null,
            Value::Bool(_) => Kind::Boolean,
            Value::Number(_) => Kind::Number,
            Value::String(_) => Kind::String,
            Value::Array(_) => Kind::List,
            Value::Object(_) => Kind::Mapping,
        }
    }
}

/// What is wrong with a value at a key.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Wrong {
    /// A value of another kind.
    Kind(Kind),
    /// A negative number, as written.
    Negative(String),
    /// A whole number not written as a plain integer (`017`, `1e3`, `60.0`): its value.
    NotPlain(f64),
    /// A number that is not whole, as written.
    NotWhole(String),
    /// More seconds than [`crate::window::MAX_DURATION_SECS`]: the number as written (`about 1e23` when
    /// beyond integers).
    TooLong(String),
    /// 0 or less where more than 0 is taken, as written.
    NotPositive(String),
}

/// What a key takes, for the refusal of another value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Takes {
    /// `true` or `false` (`cull.enabled`).
    Boolean,
    /// Whole seconds, 0 or more (`cull.timeout`, `.every`, `.maxAge`).
    Seconds,
    /// Seconds, more than 0 (`hub.config.JupyterHub.tornado_settings.slow_stop_timeout`).
    SlowStop,
    /// The image's name as a string.
    ImageName,
    /// The image's tag as a string.
    ImageTag,
    /// `Always`, `IfNotPresent`, `Never` or null.
    PullPolicy,
}
