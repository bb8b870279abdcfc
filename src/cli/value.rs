//! The typed value parsers of the options, in one place: clap runs them while it reads the
//! command line and the Action inputs (`INPUT_<NAME>`), so the request builders receive
//! values, never text to parse again. Every refusal is a clap usage error (exit code 2)
//! carrying a [`UsageError`]'s words and, as [`ContextKind::InvalidArg`], the option, so
//! inside Actions the annotation is titled `Invalid input: NAME` ([`crate::usage_error`]).
//! One [`TypedValueParser`] ([`Parse`]) runs every check: durations ([`DurationParser`]), the
//! Action's boolean words ([`bool_parser`], with `num_args = 0..=1, default_missing_value =
//! "true"` for a flag), lists ([`list_parser`]), enums ([`enum_parser`],
//! [`enum_list_parser`]) and any other `fn(&str) -> Result<T, UsageError>` ([`checked`]):
//! URLs among them ([`super::inputs::hub_url`], [`super::inputs::api_url`]).

use super::UsageError;
use super::usage::{DurationBounds, DurationLimit, Problem};
use crate::support::duration::JOB_MAX;
use clap::builder::{TypedValueParser, ValueParser};
use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::parser::ValueSource;
use std::ffi::OsStr;
use std::sync::Arc;
use std::time::Duration;

/// The check of one option's text, given the input's name (its long option without `--`,
/// `hub-timeout`); a value that is not UTF-8 is refused before it. A refusal's message
/// (which names the input and says what to write) goes under clap's `error: `, without
/// clap's usage lines (it reads as a request's [`UsageError`] does), and the option
/// (`--hub-timeout <DURATION>`) is its [`ContextKind::InvalidArg`]; the words as inside
/// Actions ([`UsageError::in_actions`]), its [`ContextKind::Custom`].
///
/// The one rule of empty values: a value given on the command line that is blank (for a
/// list, `true` here, one holding no entry: `,`) is refused ([`Problem::Empty`]) before the
/// check, rather than read as none or as text to parse, since it is almost always a shell
/// variable that is not set. An Action's blank input counts as unset and never comes here
/// (`super::with_variables_set`); a default is taken as written.
#[derive(Clone)]
struct Parse<T>(Arc<Check<T>>, bool);

/// A check [`Parse`] runs: `(input, text)` to the value or the refusal.
type Check<T> = dyn Fn(&str, &str) -> Result<T, UsageError> + Send + Sync;

impl<T: Clone + Send + Sync + 'static> TypedValueParser for Parse<T> {
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<T, clap::Error> {
        self.parse_ref_(cmd, arg, value, ValueSource::DefaultValue)
    }

    fn parse_ref_(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
        source: ValueSource,
    ) -> Result<T, clap::Error> {
        let input = arg.and_then(clap::Arg::get_long).unwrap_or("the value");
        let blank = |t: &str| match self.1 {
            true => List::split(t).0.is_empty(),
            false => t.trim().is_empty(),
        };
        let checked = match value.to_str() {
            None => Err(UsageError::new(input, Problem::NotUtf8)),
            Some(text) if source == ValueSource::CommandLine && blank(text) => {
                Err(UsageError::of(input, text.trim(), Problem::Empty))
            }
            Some(text) => (self.0)(input, text),
        };
        checked.map_err(|mut refused| {
            // Our words alone, as a request's usage error prints them: no usage lines after.
            let words = format!("{refused}\n");
            let mut err = clap::Error::raw(ErrorKind::ValueValidation, words).with_cmd(cmd);
            // As worded inside Actions, for its annotation (`crate::usage_error`).
            refused.in_actions = true;
            let placed = ContextValue::String(refused.to_string());
            err.insert(ContextKind::Custom, placed);
            if let Some(arg) = arg {
                let arg = ContextValue::String(arg.to_string());
                err.insert(ContextKind::InvalidArg, arg);
            }
            err
        })
    }
}

/// `check(input, text)` as a clap value parser ([`Parse`]), `input` the option's long name.
pub(crate) fn parser<T: Clone + Send + Sync + 'static>(
    check: impl Fn(&str, &str) -> Result<T, UsageError> + Send + Sync + 'static,
) -> ValueParser {
    ValueParser::new(Parse(Arc::new(check), false))
}

/// [`parser`] for an option taking a list (comma- or newline-separated, [`List::split`]): on
/// the command line, a value of separators only is refused as a blank one is ([`Parse`]).
pub(crate) fn list_of<T: Clone + Send + Sync + 'static>(
    check: impl Fn(&str, &str) -> Result<T, UsageError> + Send + Sync + 'static,
) -> ValueParser {
    ValueParser::new(Parse(Arc::new(check), true))
}

/// One of the project's checks as a clap value parser: `fn(text) -> value or UsageError`,
/// whose message becomes clap's (the check names the input and quotes the value as it is
/// safe to show).
pub(crate) fn checked<T: Clone + Send + Sync + 'static>(
    check: fn(&str) -> Result<T, UsageError>,
) -> ValueParser {
    parser(move |_, text| check(text))
}

/// A duration an option gave, within that option's bounds ([`DurationParser`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct InputDuration(Duration);

impl InputDuration {
    /// The duration.
    pub(crate) const fn get(self) -> Duration {
        self.0
    }

    /// The duration in whole seconds (exact for the culler's settings).
    pub const fn secs(self) -> u64 {
        self.0.as_secs()
    }
}

/// The one duration parser of every duration option: seconds when bare (`60`), else a
/// [`humantime`] duration (`90s`, `2m`, `1h 30m`; `crate::support::duration::parse`,
/// months and years refused), trimmed, from `min` to the limit (a job's 6 h for timeouts,
/// 3650 days for the culler's settings, which are whole seconds).
#[derive(Debug, Clone, Copy)]
pub struct DurationParser(DurationBounds);

impl DurationParser {
    /// The culler's settings (`cull-timeout`, `cull-every`): whole seconds from 0 to 3650
    /// days (`crate::window::MAX_DURATION_SECS`).
    pub const CULLER: Self = Self::new(Duration::ZERO, DurationLimit::Culler, "3600");
    /// `cull-max-age`: as [`Self::CULLER`], and `none` (any case) is 0, no max age.
    pub(crate) const MAX_AGE: Self = Self::new(Duration::ZERO, DurationLimit::MaxAge, "3600");
    /// The hub's slow-stop timeout: whole seconds from 1 s to 3650 days.
    pub(crate) const SLOW_STOP: Self =
        Self::new(Duration::from_secs(1), DurationLimit::Culler, "10");

    /// A timeout or wait of a request: from `min` to [`JOB_MAX`] (6 h), `example` in
    /// messages (bare seconds, e.g. `30`).
    pub(crate) const fn timeout(min: Duration, example: &'static str) -> Self {
        Self::new(min, DurationLimit::Job, example)
    }

    /// From `min` to `limit`, `example` in messages.
    const fn new(min: Duration, limit: DurationLimit, example: &'static str) -> Self {
        Self(DurationBounds {
            min,
            limit,
            example,
        })
    }

    /// `text` checked.
    ///
    /// # Errors
    /// `UsageError` naming `input` and quoting the text (trimmed).
    pub fn check(&self, input: &str, text: &str) -> Result<InputDuration, UsageError> {
        let (t, bounds) = (text.trim(), self.0);
        let (max, whole_seconds) = match bounds.limit {
            DurationLimit::Culler | DurationLimit::MaxAge => {
                (Duration::from_secs(crate::window::MAX_DURATION_SECS), true)
            }
            DurationLimit::Job => (JOB_MAX, false),
        };
        if bounds.limit == DurationLimit::MaxAge && t.eq_ignore_ascii_case("none") {
            return Ok(InputDuration(Duration::ZERO));
        }
        crate::support::duration::bounded(t, bounds.min, max, whole_seconds)
            .map(InputDuration)
            .map_err(|what| UsageError::of(input, t, Problem::Duration(what, bounds)))
    }
}

impl From<DurationParser> for ValueParser {
    fn from(duration: DurationParser) -> Self {
        parser(move |input, text| duration.check(input, text))
    }
}

/// `E`'s value `text` is, trimmed and in any case (an Action input is a YAML string, `Fail`
/// or ` fail ` alike); the refusal quotes the value and names the values there are.
fn enum_value<E: clap::ValueEnum>(input: &str, text: &str) -> Result<E, UsageError> {
    let t = text.trim();
    E::from_str(t, true).map_err(|_| {
        let names = (E::value_variants().iter())
            .filter_map(clap::ValueEnum::to_possible_value)
            .map(|v| v.get_name().to_string())
            .collect();
        UsageError::of(input, t, Problem::NotOneOf(names))
    })
}

/// [`enum_value`] as a clap value parser (the option's help lists the values).
pub(crate) fn enum_parser<E: clap::ValueEnum + Clone + Send + Sync + 'static>() -> ValueParser {
    parser(enum_value::<E>)
}

/// A boolean word of the Action, trimmed and in any case: `true`/`yes`/`on`/`1` or
/// `false`/`no`/`off`/`0` (YAML 1.1's and the usual shell words; an Action input is a
/// string); `None` for anything else.
pub(crate) fn boolean(text: &str) -> Option<bool> {
    match text.trim().to_ascii_lowercase().as_str() {
        "true" | "yes" | "on" | "1" => Some(true),
        "false" | "no" | "off" | "0" => Some(false),
        _ => None,
    }
}

/// [`boolean`] as a clap value parser; the refusal quotes the value and lists the words.
pub(crate) fn bool_parser() -> ValueParser {
    parser(|input, t| {
        boolean(t).ok_or_else(|| UsageError::of(input, t.trim(), Problem::NotBoolean))
    })
}

/// A list of enum values an input gave ([`enum_list_parser`]), in order, repeats kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EnumList<E>(pub(crate) Vec<E>);

/// A comma- or newline-separated list of `E`'s values, split as [`List::split`] splits and
/// each entry read as [`enum_parser`] reads one (an unknown entry is refused naming the
/// input and the values there are).
pub(crate) fn enum_list_parser<E: clap::ValueEnum + Clone + Send + Sync + 'static>() -> ValueParser
{
    list_of(|input, text| {
        let entries = List::split(text).0;
        let values = entries.iter().map(|entry| enum_value(input, entry));
        values.collect::<Result<_, _>>().map(EnumList::<E>)
    })
}

/// A list an input gave: comma- or newline-separated entries (an Action input is one
/// string; LF, CR or CRLF line ends), trimmed, blanks left out ([`list_parser`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct List(pub(crate) Vec<String>);

impl List {
    /// `text` split into its entries.
    pub(crate) fn split(text: &str) -> Self {
        Self(
            crate::support::text::list_entries(text)
                .map(String::from)
                .collect(),
        )
    }
}

/// The one list parser ([`List::split`], [`list_of`]).
pub(crate) fn list_parser() -> ValueParser {
    list_of(|_, text| Ok(List::split(text)))
}
