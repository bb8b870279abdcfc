//! The typed value parsers of the options, in one place: clap runs them while it reads the
//! command line and the Action inputs (`INPUT_<NAME>`), so the request builders receive
//! values, never text to parse again.
//!
//! Every refusal is a clap usage error (exit code 2) whose message is the project's own
//! words, naming the input as `NAME (--NAME)` and quoting the value only as it is safe to
//! show (a URL's credentials and query as `***`, a secret never), and whose
//! [`ContextKind::InvalidArg`] names the option, so inside Actions the annotation is titled
//! `Invalid input: NAME` ([`crate::usage_error`]).
//!
//! For an option of your own (e.g. in `cli/kube.rs` or `cli/deployment.rs`):
//! - a duration: `value_parser = DurationParser::timeout(Duration::from_secs(1), "30")` (or
//!   [`DurationParser::CULLER`]), field type `Option<InputDuration>` or `InputDuration` with
//!   `default_value`; add `allow_hyphen_values = true` so `-5` is refused in these words;
//! - a boolean word of the Action (`true`/`yes`/`on`/`1`, `false`/`no`/`off`/`0`):
//!   `value_parser = BoolParser`, with `num_args = 0..=1, default_missing_value = "true"`
//!   for a flag;
//! - a comma- or newline-separated list: `value_parser = ListParser`, field type [`List`];
//! - an `http(s)://` URL: `value_parser = UrlParser::API` (or [`UrlParser::HUB`]), field type
//!   [`HttpUrl`];
//! - an enum: `#[derive(clap::ValueEnum)]` with `ignore_case = true` on the field (the
//!   Action's YAML strings come in any case);
//! - any other check `fn(&str) -> Result<T, UsageError>`: `value_parser = Checked(f)`.

use super::UsageError;
use crate::support::duration::{JOB_MAX, JOB_MAX_WORDS};
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
    value.to_str().ok_or_else(|| {
        let input = input_name(arg);
        refusal(cmd, arg, format!("{input} (--{input}) is not UTF-8 text"))
    })
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

/// The most a duration can be with its reason, for messages.
#[derive(Debug, Clone, Copy)]
struct Limit {
    max: Duration,
    /// `max` in words (`6h`).
    words: &'static str,
    /// Why, after the words (`the longest a job on a GitHub-hosted runner runs`).
    why: &'static str,
}

/// The culler's limit, [`crate::window::MAX_DURATION_SECS`] (3650 days): beyond it a window
/// is no promise, and every sum of durations stays exact.
const CULLER_LIMIT: Limit = Limit {
    max: Duration::from_secs(crate::window::MAX_DURATION_SECS),
    words: "3650 days (315360000 s)",
    why: "the longest duration codeq-rollout takes",
};

/// A job's limit, [`JOB_MAX`]: a timeout longer than a job can never take effect.
const JOB_LIMIT: Limit = Limit {
    max: JOB_MAX,
    words: JOB_MAX_WORDS,
    why: "the longest a job on a GitHub-hosted runner runs",
};

/// The one duration parser of every duration option: seconds when bare (`60`), else a
/// [`humantime`] duration (`90s`, `2m`, `1h 30m`; [`crate::support::duration::parse`],
/// months and years refused), trimmed, from `min` to the limit (a job's 6 h for timeouts,
/// 3650 days for the culler's settings), in whole seconds when `whole_seconds`.
#[derive(Debug, Clone, Copy)]
pub struct DurationParser {
    min: Duration,
    limit: Limit,
    whole_seconds: bool,
    /// An example in the option's own terms (`30` for 30 seconds), for messages.
    example: &'static str,
}

impl DurationParser {
    /// The culler's settings (`cull-timeout`, `cull-every`, `cull-max-age`): whole seconds
    /// from 0 to 3650 days ([`crate::window::MAX_DURATION_SECS`]).
    pub const CULLER: Self = Self {
        min: Duration::ZERO,
        limit: CULLER_LIMIT,
        whole_seconds: true,
        example: "3600",
    };
    /// The hub's slow-stop timeout: whole seconds from 1 s to 3650 days.
    pub(crate) const SLOW_STOP: Self = Self {
        min: Duration::from_secs(1),
        limit: CULLER_LIMIT,
        whole_seconds: true,
        example: "10",
    };

    /// A timeout or wait of a request: from `min` to [`JOB_MAX`] (6 h), `example` in
    /// messages (bare seconds, e.g. `30`).
    pub(crate) const fn timeout(min: Duration, example: &'static str) -> Self {
        Self {
            min,
            limit: JOB_LIMIT,
            whole_seconds: false,
            example,
        }
    }

    /// `text` checked, or why not in words that name `input` and quote the text.
    ///
    /// # Errors
    /// The refusal's words, naming `input` (`NAME (--NAME)`) and quoting the text.
    pub fn check(&self, input: &str, text: &str) -> Result<InputDuration, String> {
        let t = text.trim();
        let forms = format!(
            "write seconds ({}) or a duration such as 90s, 10m, 1h 30m",
            self.example
        );
        let named = format!("{input} (--{input}) {t:?}");
        if t.is_empty() {
            return Err(format!("{input} (--{input}) is empty: {forms}"));
        }
        if let Some(magnitude) = t.strip_prefix('-') {
            return Err(match crate::support::duration::parse(magnitude) {
                Ok(d) if d.is_zero() => {
                    format!("{named} has a minus sign: durations take none; {forms}")
                }
                _ => format!("{named} is negative: durations take no minus sign; {forms}"),
            });
        }
        let too_long = || {
            format!(
                "{named} is longer than {}, {}: give at most {}",
                self.limit.words, self.limit.why, self.limit.words
            )
        };
        let digits = t.bytes().all(|b| b.is_ascii_digit());
        let d = match crate::support::duration::parse(t) {
            Ok(d) => d,
            Err(_) if digits => return Err(too_long()),
            Err(e) if e.humantime() == Some(&humantime::DurationError::NumberOverflow) => {
                return Err(too_long());
            }
            Err(e) => {
                // `1.5` reads as a number without a unit: a bare number is whole seconds.
                let decimal = t.split_once('.').is_some_and(|(whole, part)| {
                    [whole, part]
                        .iter()
                        .all(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
                });
                return Err(match decimal && !self.whole_seconds {
                    true => format!(
                        "{named} is not a duration: a number without a unit is whole seconds, so write {t}s for {t} seconds ({forms})"
                    ),
                    false => format!("{named} is not a duration ({e}): {forms}"),
                });
            }
        };
        if self.whole_seconds && d.subsec_nanos() != 0 {
            return Err(format!("{named} is not a whole number of seconds: {forms}"));
        }
        if d > self.limit.max {
            return Err(too_long());
        }
        if d < self.min {
            let min = humantime::format_duration(self.min);
            return Err(match d.is_zero() {
                true => format!(
                    "{input} (--{input}) is 0: give {min} or more, e.g. {}",
                    self.example
                ),
                false => format!(
                    "{named} is shorter than {min}: give {min} or more, e.g. {}",
                    self.example
                ),
            });
        }
        Ok(InputDuration(d))
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
            .map_err(|why| refusal(cmd, arg, why))
    }
}

/// An enum's values as a clap value parser, trimmed and in any case (an Action input is a
/// YAML string, `Fail` or ` fail ` alike); the refusal quotes the value and names the values
/// there are (the option's help lists them).
#[derive(Debug, Clone, Copy)]
pub struct EnumParser<E>(std::marker::PhantomData<E>);

impl<E> Default for EnumParser<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EnumParser<E> {
    /// The parser of `E`'s values.
    pub const fn new() -> Self {
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
            let names: Vec<String> = E::value_variants()
                .iter()
                .filter_map(clap::ValueEnum::to_possible_value)
                .map(|v| v.get_name().to_string())
                .collect();
            let words = match names.split_last() {
                Some((last, [])) => last.clone(),
                Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
                None => String::new(),
            };
            let input = input_name(arg);
            refusal(
                cmd,
                arg,
                format!("{input} (--{input}) {t:?} is not {words}"),
            )
        })
    }
}

/// The words a boolean input takes, for messages.
pub(crate) const BOOLEAN_WORDS: &str = "true or false (also yes/no, on/off, 1/0)";

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
pub struct BoolParser;

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
            let input = input_name(arg);
            refusal(
                cmd,
                arg,
                format!(
                    "{input} (--{input}) {:?} is not a boolean: write {BOOLEAN_WORDS}",
                    t.trim()
                ),
            )
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
pub struct ListParser;

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
pub struct UrlParser(fn(&str) -> Result<String, UsageError>);

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
        let url = url::Url::parse(&text).map_err(|e| {
            let input = input_name(arg);
            refusal(cmd, arg, format!("{input} (--{input}) is not a URL ({e})"))
        })?;
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
                    Err(why) => why,
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
