//! The typed value parsers of the options, in one place: clap runs them while it reads the
//! command line and the Action inputs (`INPUT_<NAME>`), so the request builders receive
//! values, never text to parse again. Every refusal is a clap usage error (exit code 2)
//! carrying a [`UsageError`]'s words and, as [`ContextKind::InvalidArg`], the option, so
//! inside Actions the annotation is titled `Invalid input: NAME` ([`crate::usage_error`]).
//! Durations: [`DurationParser`]; the Action's boolean words: [`BoolParser`] (with
//! `num_args = 0..=1, default_missing_value = "true"` for a flag); lists: [`ListParser`];
//! URLs: [`UrlParser`]; enums: [`EnumParser`]; any other check `fn(&str) -> Result<T,
//! UsageError>`: [`Checked`].

use super::UsageError;
use super::usage::{DurationBounds, DurationLimit, Problem};
use crate::support::duration::JOB_MAX;
use clap::builder::TypedValueParser;
use clap::error::{ContextKind, ContextValue, ErrorKind};
use std::ffi::OsStr;
use std::fmt::Display;
use std::time::Duration;

/// The usage error of a refused value: `message` (which names the input and says what to
/// write) under clap's `error: `, with clap's usage lines after it; `arg`, the option, as
/// its [`ContextKind::InvalidArg`] (`--hub-timeout <DURATION>`).
pub(crate) fn refusal(
    cmd: &clap::Command,
    arg: Option<&clap::Arg>,
    message: impl Display,
) -> clap::Error {
    let mut err =
        clap::Error::raw(ErrorKind::ValueValidation, message.to_string()).format(&mut cmd.clone());
    if let Some(arg) = arg {
        err.insert(
            ContextKind::InvalidArg,
            ContextValue::String(arg.to_string()),
        );
    }
    err
}

/// The input's name, its long option without `--` (`hub-timeout`).
fn input_name(arg: Option<&clap::Arg>) -> String {
    arg.and_then(clap::Arg::get_long)
        .map_or_else(|| "the value".to_string(), str::to_string)
}

/// The value as text; a value that is not UTF-8 is refused.
fn text<'a>(
    cmd: &clap::Command,
    arg: Option<&clap::Arg>,
    value: &'a OsStr,
) -> Result<&'a str, clap::Error> {
    value
        .to_str()
        .ok_or_else(|| refusal(cmd, arg, UsageError::new(input_name(arg), Problem::NotUtf8)))
}

/// One of the project's checks as a clap value parser: `fn(text) -> value or UsageError`,
/// whose message becomes clap's (the check names the input and quotes the value as it is
/// safe to show).
#[derive(Clone, Copy)]
pub(crate) struct Checked<T>(pub(crate) fn(&str) -> Result<T, UsageError>);

impl<T: Clone + Send + Sync + 'static> TypedValueParser for Checked<T> {
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<T, clap::Error> {
        (self.0)(text(cmd, arg, value)?).map_err(|e| refusal(cmd, arg, e))
    }
}

/// A duration an option gave, within that option's bounds ([`DurationParser`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct InputDuration(Duration);

impl InputDuration {
    /// The duration.
    pub(crate) const fn get(self) -> Duration {
        self.0
    }

    /// The duration in whole seconds (exact for a parser with `whole_seconds`).
    pub const fn secs(self) -> u64 {
        self.0.as_secs()
    }
}

/// The one duration parser of every duration option: seconds when bare (`60`), else a
/// [`humantime`] duration (`90s`, `2m`, `1h 30m`; [`crate::support::duration::parse`],
/// months and years refused), trimmed, from `min` to the limit (a job's 6 h for timeouts,
/// 3650 days for the culler's settings), in whole seconds when `whole_seconds`.
#[derive(Debug, Clone, Copy)]
pub struct DurationParser {
    bounds: DurationBounds,
    whole_seconds: bool,
}

impl DurationParser {
    /// The culler's settings (`cull-timeout`, `cull-every`, `cull-max-age`): whole seconds
    /// from 0 to 3650 days ([`crate::window::MAX_DURATION_SECS`]).
    pub const CULLER: Self = Self::whole(Duration::ZERO, "3600");
    /// The hub's slow-stop timeout: whole seconds from 1 s to 3650 days.
    pub(crate) const SLOW_STOP: Self = Self::whole(Duration::from_secs(1), "10");

    /// Whole seconds from `min` to the culler's limit, `example` in messages.
    const fn whole(min: Duration, example: &'static str) -> Self {
        Self {
            bounds: DurationBounds {
                min,
                limit: DurationLimit::Culler,
                example,
            },
            whole_seconds: true,
        }
    }

    /// A timeout or wait of a request: from `min` to [`JOB_MAX`] (6 h), `example` in
    /// messages (bare seconds, e.g. `30`).
    pub(crate) const fn timeout(min: Duration, example: &'static str) -> Self {
        Self {
            bounds: DurationBounds {
                min,
                limit: DurationLimit::Job,
                example,
            },
            whole_seconds: false,
        }
    }

    /// `text` checked.
    ///
    /// # Errors
    /// [`UsageError`] naming `input` and quoting the text (trimmed).
    pub fn check(&self, input: &str, text: &str) -> Result<InputDuration, UsageError> {
        let t = text.trim();
        let refuse = |what| {
            Err(UsageError::of(
                input,
                t,
                Problem::Duration(what, self.bounds),
            ))
        };
        let max = match self.bounds.limit {
            DurationLimit::Culler => Duration::from_secs(crate::window::MAX_DURATION_SECS),
            DurationLimit::Job => JOB_MAX,
        };
        crate::support::duration::bounded(t, self.bounds.min, max, self.whole_seconds)
            .map(InputDuration)
            .or_else(refuse)
    }
}

impl TypedValueParser for DurationParser {
    type Value = InputDuration;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<InputDuration, clap::Error> {
        self.check(&input_name(arg), text(cmd, arg, value)?)
            .map_err(|e| refusal(cmd, arg, e))
    }
}

/// An enum's values as a clap value parser, trimmed and in any case (an Action input is a
/// YAML string, `Fail` or ` fail ` alike); the refusal quotes the value and names the values
/// there are (the option's help lists them).
#[derive(Debug, Clone, Copy)]
pub(crate) struct EnumParser<E>(std::marker::PhantomData<E>);

impl<E> Default for EnumParser<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EnumParser<E> {
    /// The parser of `E`'s values.
    pub(crate) const fn new() -> Self {
        Self(std::marker::PhantomData)
    }
}

impl<E: clap::ValueEnum + Clone + Send + Sync + 'static> TypedValueParser for EnumParser<E> {
    type Value = E;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<E, clap::Error> {
        let t = text(cmd, arg, value)?.trim();
        E::from_str(t, true).map_err(|_| {
            let names = E::value_variants()
                .iter()
                .filter_map(clap::ValueEnum::to_possible_value)
                .map(|v| v.get_name().to_string())
                .collect();
            let e = UsageError::of(input_name(arg), t, Problem::NotOneOf(names));
            refusal(cmd, arg, e)
        })
    }
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
#[derive(Debug, Clone, Copy)]
pub(crate) struct BoolParser;

impl TypedValueParser for BoolParser {
    type Value = bool;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<bool, clap::Error> {
        let t = text(cmd, arg, value)?;
        boolean(t).ok_or_else(|| {
            let e = UsageError::of(input_name(arg), t.trim(), Problem::NotBoolean);
            refusal(cmd, arg, e)
        })
    }
}

/// A list of enum values an input gave ([`EnumListParser`]), in order, repeats kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EnumList<E>(pub(crate) Vec<E>);

/// A comma- or newline-separated list of `E`'s values, split as [`ListParser`] splits and
/// each entry read as [`EnumParser`] reads one (case-insensitive; an unknown entry is refused
/// naming the input and the values there are).
#[derive(Debug, Clone, Copy)]
pub(crate) struct EnumListParser<E>(std::marker::PhantomData<E>);

impl<E> EnumListParser<E> {
    /// The parser of lists of `E`'s values.
    pub(crate) const fn new() -> Self {
        Self(std::marker::PhantomData)
    }
}

impl<E: clap::ValueEnum + Clone + Send + Sync + 'static> TypedValueParser for EnumListParser<E> {
    type Value = EnumList<E>;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<EnumList<E>, clap::Error> {
        ListParser::split(text(cmd, arg, value)?)
            .entries()
            .iter()
            .map(|entry| EnumParser::<E>::new().parse_ref(cmd, arg, OsStr::new(entry)))
            .collect::<Result<Vec<E>, _>>()
            .map(EnumList)
    }
}

/// A list an input gave: its entries split at commas and line breaks, trimmed, blanks left
/// out ([`ListParser`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct List(pub(crate) Vec<String>);

impl List {
    /// The entries, in order.
    pub(crate) fn entries(&self) -> &[String] {
        &self.0
    }
}

/// The one list parser: comma- or newline-separated entries (an Action input is one
/// string; LF, CR or CRLF line ends), trimmed, blanks left out. Takes every text.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ListParser;

impl ListParser {
    /// `text` split into its entries.
    pub(crate) fn split(text: &str) -> List {
        List(
            text.split([',', '\r', '\n'])
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(String::from)
                .collect(),
        )
    }
}

impl TypedValueParser for ListParser {
    type Value = List;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<List, clap::Error> {
        Ok(Self::split(text(cmd, arg, value)?))
    }
}

/// An `http://` or `https://` URL an input gave, checked by [`UrlParser`]: the URL, and the
/// text as given (trimmed, without a trailing `/`), which messages and requests use as
/// written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpUrl {
    url: url::Url,
    text: String,
}

impl HttpUrl {
    /// The URL as given (trimmed, without a trailing `/`).
    pub(crate) fn as_str(&self) -> &str {
        &self.text
    }

    /// The parsed URL.
    pub(crate) fn url(&self) -> &url::Url {
        &self.url
    }
}

/// The URL parser with the project's checks: [`super::inputs::api_url`] (GitHub's REST API
/// base) or [`super::inputs::hub_url`] (the hub's address, which the runbook pastes into
/// shell commands and Markdown).
#[derive(Debug, Clone, Copy)]
pub(crate) struct UrlParser(fn(&str) -> Result<String, UsageError>);

impl UrlParser {
    /// `api-url`: GitHub's REST API base URL.
    pub(crate) const API: Self = Self(super::inputs::api_url);
    /// `hub-url`: the hub's address.
    pub(crate) const HUB: Self = Self(super::inputs::hub_url);
}

impl TypedValueParser for UrlParser {
    type Value = HttpUrl;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<HttpUrl, clap::Error> {
        let text = (self.0)(text(cmd, arg, value)?).map_err(|e| refusal(cmd, arg, e))?;
        let url = url::Url::parse(&text)
            .map_err(|e| refusal(cmd, arg, UsageError::new(input_name(arg), Problem::Url(e))))?;
        Ok(HttpUrl { url, text })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every duration parser's bounds and words, in one table.
    #[test]
    fn durations_are_bounded_in_one_parser() {
        let second = Duration::from_secs(1);
        let parsers = [
            ("cull-timeout", DurationParser::CULLER),
            ("slow-stop-timeout", DurationParser::SLOW_STOP),
            ("hub-timeout", DurationParser::timeout(second, "30")),
            (
                "github-timeout",
                DurationParser::timeout(Duration::ZERO, "30"),
            ),
        ];
        let texts = [
            "3600",
            " 1h 30m ",
            "",
            "soon",
            "-5",
            "-0",
            "1.5",
            "1.5s",
            "0",
            "500ms",
            "7h",
            "3651days",
            "99999999999999999999",
            "10M",
        ];
        let mut table = Vec::new();
        for (input, parser) in parsers {
            for text in texts {
                let shown = match parser.check(input, text) {
                    Ok(d) => format!("{:?}", d.get()),
                    Err(why) => why.to_string(),
                };
                table.push(format!("{input} {text:?}: {shown}"));
            }
        }
        insta::assert_snapshot!(table.join("\n"));
    }

    #[test]
    fn booleans_take_the_actions_words_in_any_case() {
        let table: Vec<String> = [
            "true", " YES ", "On", "1", "false", "no", "OFF", "0", "", "maybe", "2",
        ]
        .iter()
        .map(|t| format!("{t:?}: {:?}", boolean(t)))
        .collect();
        insta::assert_snapshot!(table.join("\n"), @r#"
        "true": Some(true)
        " YES ": Some(true)
        "On": Some(true)
        "1": Some(true)
        "false": Some(false)
        "no": Some(false)
        "OFF": Some(false)
        "0": Some(false)
        "": None
        "maybe": None
        "2": None
        "#);
    }

    #[test]
    fn lists_split_at_commas_and_line_breaks() {
        assert_eq!(
            ListParser::split(" a, b\r\nc\n\n,d ,").entries(),
            ["a", "b", "c", "d"]
        );
        assert!(ListParser::split(" , \n").entries().is_empty());
    }
}
