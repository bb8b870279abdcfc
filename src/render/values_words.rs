//! The values files' refusals in words ([`ValuesError`]): what is wrong in which file at which
//! key (or with `--values-path`), then what to write instead; and the YAML parser's messages
//! worded for Helm users ([`UserMessages`]).

use super::window_words::settings_words;
use super::words::{Words, input_name};
use crate::support::duration::max_duration_words;
use crate::support::files::ReadError;
use crate::support::text::without_values;
use crate::values::error::{Holds, Kind, Takes, ValuesError, Wrong};
use crate::window::MAX_DURATION_SECS;
use std::borrow::Cow;

super::words::words_display!(ValuesError => |e| words(e, false));

/// The words of `e`, naming the inputs as [`input_name`] does (`in_actions`: the input alone).
pub(crate) fn words(e: &ValuesError, in_actions: bool) -> Words {
    let values_path = input_name("values-path", None, in_actions);
    let values = input_name("jupyterhub-values", None, in_actions);
    let (what, help) = match e {
        ValuesError::EmptyKey(given) => (
            format!("{values_path} {given:?} has an empty key"),
            "write the parent key of `cull`, e.g. jupyterhub or platform.jupyterhub, or . for the top level".to_string(),
        ),
        ValuesError::EndsInCull(given, write) => (
            format!("{values_path} {given:?} ends in `cull`"),
            format!("it names the key `cull` sits under: write {write}"),
        ),
        ValuesError::Unreadable(file, why) => return unreadable(file, why, &values),
        ValuesError::NotYaml(file, error) => return not_yaml(file, error),
        ValuesError::TopNotMapping(file, found) => (
            format!("{file} is not a values file: its top level is {}", described(*found)),
            "a values file is a mapping of keys such as `cull:`".to_string(),
        ),
        ValuesError::NotMapping {
            file,
            key,
            found,
            holds,
        } => {
            let what = format!("{file}: `{key}` is {}, not a mapping", described(*found));
            return not_mapping(what, *holds, &values_path);
        }
        ValuesError::Value {
            file,
            key,
            wrong,
            takes,
        } => return value_words(file, key, wrong, *takes),
        ValuesError::UnknownCullKey {
            file,
            key,
            cull,
            known,
            like,
        } => (
            format!("{file}: `{key}` is not a z2jh cull setting"),
            format!(
                "the keys under `{cull}` are {}{}",
                known.join(", "),
                like.map(|k| format!("; keys are case-sensitive: did you mean `{k}`?"))
                    .unwrap_or_default(),
            ),
        ),
        ValuesError::BothPlaces(file, here, there) => (
            format!("{file} has both `{here}` and `{there}`"),
            format!(
                "say which one the hub uses: set {values_path} to {}, or to . for the top level",
                there.split('.').next().unwrap_or_default()
            ),
        ),
        ValuesError::CullOutOfReach(file, at, expected) => (
            format!("{file} sets `cull` at `{at}`, where codeq-rollout does not read it"),
            format!(
                "it reads `{expected}`: set {values_path} to its parent key, {}",
                at.strip_suffix(".cull").unwrap_or(".")
            ),
        ),
        ValuesError::SlowStopOutOfReach(file, key, reads) => (
            format!("{file} sets the slow-stop timeout at the top level, where it is not read"),
            format!(
                "codeq-rollout reads z2jh's values under `{}`, so it reads `{reads}`: move `{key}` there, where the chart reads the values of every file",
                reads.strip_suffix(key).unwrap_or(reads).trim_end_matches('.')
            ),
        ),
        ValuesError::SlowStopNotJupyterHub(file, key, reads) => (
            format!("{file}: `{key}` is not a JupyterHub setting"),
            format!(
                "JupyterHub (6.1.1) has no such option and ignores it, it reads the slow-stop timeout from its tornado settings; move the value to `{reads}`"
            ),
        ),
        ValuesError::ValuesPathNotFound(path, files) if files.is_empty() => (
            format!("{values_path} {path:?} says where `cull` sits in the values files, but no values file is given"),
            format!("give the files with {values}, or leave values-path unset"),
        ),
        ValuesError::ValuesPathNotFound(path, files) => (
            format!("{values_path} {path:?} names a key that none of the values files has"),
            format!(
                "the files are {}: write the key `cull` sits under in them, or . for the top level",
                files.join(", ")
            ),
        ),
        ValuesError::Disagree([(first, its), (second, theirs)]) => (
            format!("the values files disagree about where `cull` sits: {first} has `{its}`, {second} has `{theirs}`"),
            "the chart reads z2jh's values at only one of those places, the same for every file; move the keys of one file to where the other has them (no values-path reads both)".to_string(),
        ),
        ValuesError::Invalid(e) => return settings_words(e, in_actions),
    };
    Words::new(what).help(help)
}

/// `what` (a key that is not a mapping), then what it should hold, by what it `holds`;
/// `values_path` names the input that says where `cull` sits.
fn not_mapping(what: String, holds: Holds, values_path: &str) -> Words {
    let help = match holds {
        Holds::Cull => "write `cull:` with keys such as `timeout: 3600` beneath it".to_string(),
        Holds::Parent => format!("check {values_path}"),
        Holds::Image => "write `image:` with keys such as `name:` and `tag:` beneath it".into(),
        Holds::Other => return Words::new(what),
    };
    Words::new(what).help(help)
}

/// A file that is not YAML: where and the parser's words (worded by [`UserMessages`]), then
/// what to do. Never the parser's snippet of the lines around the place: a values file holds
/// secrets (`proxy.secretToken`, `hub.services.*.apiToken`).
fn not_yaml(file: &str, error: &serde_saphyr::Error) -> Words {
    use serde_saphyr::{Error, SnippetMode};
    let at = error.render_with_options(serde_saphyr::render_options! {
        formatter: &UserMessages,
        snippets: SnippetMode::Off,
    });
    let mut inner = error;
    while let Error::WithSnippet { error, .. } | Error::AliasError { error, .. } = inner {
        inner = error;
    }
    let fix = match inner {
        Error::MultipleDocuments { .. } => "give each document as its own file",
        Error::DuplicateMappingKey { .. } => "keep one of them",
        _ => {
            "fix the YAML there: a values file is plain YAML, not a template with {{ }} (give the rendered values, e.g. helm get values RELEASE -n NAMESPACE -a)"
        }
    };
    Words::new(format!("{file} is not a YAML values file: {at}")).help(fix)
}

/// A value at `key` of `file` that is `wrong`, where z2jh `takes` another.
fn value_words(file: &str, key: &str, wrong: &Wrong, takes: Takes) -> Words {
    let help = match wrong {
        Wrong::NotPlain(_) => format!(
            "YAML reads a leading zero (017), an exponent (1e3) or a decimal point (60.0) as a floating-point number; write the digits alone: {}",
            takes_words(takes)
        ),
        Wrong::TooLong(_) => format!(
            "the longest duration codeq-rollout takes is {}; set the value the hub uses",
            max_duration_words(MAX_DURATION_SECS)
        ),
        _ => takes_words(takes),
    };
    Words::new(format!("{file}: `{key}` is {}", wrong_words(wrong))).help(help)
}

/// Why the values file `file` was not read, and what to do (where a relative path starts
/// only for a relative one).
fn unreadable(file: &str, why: &ReadError, values: &str) -> Words {
    let what = format!("cannot read the JupyterHub values file {file}: {why}");
    let help = match why {
        ReadError::NotFound if std::path::Path::new(file).is_relative() => {
            "relative paths start at the working directory, the workspace in GitHub Actions"
        }
        ReadError::NotFound => "check the path",
        ReadError::IsDirectory => "name the values file, not a directory",
        ReadError::NotRegular => "give the values file itself, e.g. deploy/values.yaml",
        ReadError::PermissionDenied => "make it readable for this user",
        ReadError::TooLarge { .. } => {
            "values files are a few KiB (the limit is 1 MiB): check that it is the right file"
        }
        ReadError::NotUtf8 { .. } => "save it as UTF-8",
        ReadError::Other(_) | ReadError::Waited(_) => "check the path and try again",
    };
    Words::new(what).help(format!("{help}; the files are given with {values}"))
}

/// What is wrong with a value, after `is`: `negative (-60)`, `a string`, ...
fn wrong_words(wrong: &Wrong) -> String {
    match wrong {
        Wrong::Kind(found) => described(*found).to_string(),
        Wrong::Negative(n) => format!("negative ({n})"),
        Wrong::NotPlain(value) => {
            format!("the number {value}, but not written as a plain integer")
        }
        Wrong::NotWhole(n) => format!("{n}, not a whole number of seconds"),
        Wrong::TooLong(n) => format!("{n} seconds, more than {} days", MAX_DURATION_SECS / 86_400),
        Wrong::NotPositive(n) => n.clone(),
    }
}

/// What a key takes.
fn takes_words(takes: Takes) -> String {
    let text = |what: &str, example: &str| {
        format!("z2jh takes {what} there as a string, e.g. {example} (quote a number: \"1.2\")")
    };
    match takes {
        Takes::Boolean => "z2jh takes true or false there".to_string(),
        Takes::Seconds => {
            "z2jh takes whole seconds there, as an integer such as 3600 (0 or more)".to_string()
        }
        Takes::SlowStop => "JupyterHub takes the seconds it holds a stop request there, a number more than 0 such as 10".to_string(),
        Takes::ImageName => text("the image's name", "ghcr.io/org/lab"),
        Takes::ImageTag => text("the image's tag", "latest"),
        Takes::PullPolicy => "z2jh takes Always, IfNotPresent or Never there (as Kubernetes writes them), or null to leave it to Kubernetes".to_string(),
    }
}

/// A YAML value's kind in words, after `is`: `a string`, `a list`, ... Never the value: a
/// values file holds secrets (`proxy.secretToken`).
fn described(found: Kind) -> &'static str {
    match found {
        Kind::Null => "null",
        Kind::Boolean => "a boolean",
        Kind::Number => "a number",
        Kind::String => "a string",
        Kind::List => "a list",
        Kind::Mapping => "a mapping",
    }
}

/// serde-saphyr's messages for users (its default ones advise programmers on its API),
/// with the two a values file most often meets worded for Helm users, and no value quoted.
pub(crate) struct UserMessages;

impl serde_saphyr::MessageFormatter for UserMessages {
    fn format_message<'a>(&self, err: &'a serde_saphyr::Error) -> Cow<'a, str> {
        use serde_saphyr::Error;
        match err {
            Error::MultipleDocuments { .. } => {
                Cow::Borrowed("it holds more than one YAML document (separated by `---`)")
            }
            Error::DuplicateMappingKey { key: Some(k), .. } => {
                Cow::Owned(format!("the key `{k}` appears twice in the same mapping"))
            }
            // The parser's own messages may quote a value (`invalid type: string "…"`).
            _ => Cow::Owned(without_values(
                &serde_saphyr::UserMessageFormatter.format_message(err),
            )),
        }
    }
}

/// The warning (title, words) when values files were given but none sets `cull` under
/// `keys` (`None`: at the top level or under `jupyterhub`).
pub(crate) fn no_cull_in_values(keys: Option<&[String]>) -> (&'static str, Words) {
    let place = match keys {
        None => "`cull` or `jupyterhub.cull`".to_string(),
        Some([]) => "`cull`".to_string(),
        Some(keys) => format!("`{}.cull`", keys.join(".")),
    };
    (
        "Culler settings",
        Words::new(format!(
            "no values file sets {place}: using z2jh's defaults"
        ))
        .help("check jupyterhub-values and values-path"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::window::{InvalidSettings, Origin, SettingsProblem};

    /// Every refusal in words, each variant and each reason; what real files give is
    /// `values::tests::bad_values_files_are_refused_naming_file_and_key_path`.
    #[test]
    fn every_refusal_in_words() {
        let file = || "deploy/values.yaml".to_string();
        let not_yaml = serde_saphyr::from_str::<serde_json::Value>("cull: [\n").unwrap_err();
        // A parser's message quoting the value (serde's `unknown variant `…``).
        #[derive(serde::Deserialize, Debug)]
        enum Tier {
            Routine,
        }
        let quoting =
            serde_saphyr::from_str::<Tier>("ghp_PROXYSECRET1234567890abcdefghijklmn").unwrap_err();
        let not_mapping = |holds| ValuesError::NotMapping {
            file: file(),
            key: "jupyterhub.cull".into(),
            found: Kind::Boolean,
            holds,
        };
        let value = |wrong, takes| ValuesError::Value {
            file: file(),
            key: "jupyterhub.cull.timeout".into(),
            wrong,
            takes,
        };
        let unknown = |like| ValuesError::UnknownCullKey {
            file: file(),
            key: "cull.Timeout".into(),
            cull: "cull".into(),
            known: &["enabled", "timeout"],
            like,
        };
        let pair = |file: &str, mark: &str| (file.to_string(), mark.to_string());
        let slow_stop = "hub.config.JupyterHub.tornado_settings.slow_stop_timeout";
        let errors = ReadError::every()
            .into_iter()
            .map(|why| ValuesError::Unreadable(file(), why))
            .chain([
                ValuesError::Unreadable("/etc/hub/values.yaml".into(), ReadError::NotFound),
                ValuesError::EmptyKey("a..b".into()),
                ValuesError::EndsInCull("jupyterhub.cull".into(), "jupyterhub".into()),
                ValuesError::NotYaml(file(), Box::new(not_yaml)),
                ValuesError::NotYaml("v.yaml".into(), Box::new(quoting)),
                ValuesError::TopNotMapping(file(), Kind::List),
                not_mapping(Holds::Cull),
                not_mapping(Holds::Parent),
                not_mapping(Holds::Image),
                not_mapping(Holds::Other),
                value(Wrong::Kind(Kind::String), Takes::Seconds),
                value(Wrong::Kind(Kind::Null), Takes::Boolean),
                value(Wrong::Kind(Kind::Number), Takes::ImageTag),
                value(Wrong::Kind(Kind::Mapping), Takes::ImageName),
                value(Wrong::Kind(Kind::String), Takes::PullPolicy),
                value(Wrong::Negative("-60".into()), Takes::Seconds),
                value(Wrong::NotPlain(17.0), Takes::Seconds),
                value(Wrong::NotWhole("1.5".into()), Takes::Seconds),
                value(Wrong::TooLong("about 1e23".into()), Takes::Seconds),
                value(Wrong::NotPositive("0".into()), Takes::SlowStop),
                unknown(None),
                unknown(Some("timeout")),
                ValuesError::BothPlaces(file(), "cull", "jupyterhub.cull".into()),
                ValuesError::CullOutOfReach(file(), "platform.cull".into(), "cull".into()),
                ValuesError::SlowStopOutOfReach(
                    file(),
                    slow_stop,
                    format!("jupyterhub.{slow_stop}"),
                ),
                ValuesError::SlowStopNotJupyterHub(
                    file(),
                    "hub.config.JupyterHub.slow_stop_timeout".into(),
                    slow_stop.into(),
                ),
                ValuesError::ValuesPathNotFound(
                    "platform".into(),
                    vec!["a.yaml".into(), "b.yaml".into()],
                ),
                ValuesError::ValuesPathNotFound("platform".into(), Vec::new()),
                ValuesError::Disagree([pair("a.yaml", "jupyterhub.cull"), pair("b.yaml", "cull")]),
                ValuesError::Invalid(InvalidSettings {
                    origin: Origin::file("v.yaml", "cull.every"),
                    problem: SettingsProblem::ZeroEvery { timeout_secs: 3600 },
                }),
            ]);
        // Every other one inside Actions, so both namings of an input show.
        let words = errors.enumerate().map(|(i, e)| words(&e, i % 2 == 1));
        insta::assert_snapshot!(crate::render::words::shaped(words));
    }
}
