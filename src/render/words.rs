//! The one shape of every message a user reads about a problem, a warning or a refusal: a
//! first line that says what failed, with which input, then why when the first line cannot
//! hold it (what a server, the connection or the system said: `caused by: …`, a line each, as
//! cargo prints `Caused by:`), then what to do on its own line, as cargo and rustc print
//! `error:` then `help:`. The terminal and the Actions annotations show the same text
//! (`error: WHAT` / `::error title=…::WHAT`, then `caused by: …`, then `help: …`).
//!
//! Each error or warning type is worded by one function of the render layer that returns
//! [`Words`], one `match` whose arm gives both halves, so a message and its help cannot
//! drift apart; the type's `Display` is that function's [`Words`].

use crate::support::text::Unreadable;
use std::fmt;

/// The longest first line a message should have, in characters: it must fit a terminal
/// line and the one-line preview of an Actions annotation. Details go to the help.
pub(crate) const WHAT_MAX_CHARS: usize = 120;

/// How a message names `input` (its action.yml name, also its `--option`): inside Actions
/// the input alone, as a workflow names it under `with:`; on the command line with the
/// option (or `variable`, a conventional variable it was read from), e.g.
/// `hub-timeout (--hub-timeout)`.
pub(crate) fn input_name(input: &str, variable: Option<&str>, in_actions: bool) -> String {
    match (in_actions, variable) {
        (true, _) => input.to_string(),
        (false, Some(variable)) => format!("{input} ({variable})"),
        (false, None) => format!("{input} (--{input})"),
    }
}

/// A message in words: `what` failed (one line, naming the input or address at fault), its
/// `causes`, and apart, the `help` (what to do; may span several lines, e.g. a template to
/// copy; `None` when the first line says it all).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Words {
    /// What failed, with which input: one line, at most about [`WHAT_MAX_CHARS`].
    pub(crate) what: String,
    /// Why, when the first line cannot hold it (what a server, the connection or the system
    /// said; a failure inside this one), outermost first: shown after `caused by: `, a line
    /// each. Never what to do.
    pub(crate) causes: Vec<String>,
    /// What to do about it, shown after `help: ` on the lines below.
    pub(crate) help: Option<String>,
}

impl Words {
    /// A message with no help.
    pub(crate) fn new(what: impl Into<String>) -> Self {
        Self {
            what: what.into(),
            causes: Vec::new(),
            help: None,
        }
    }

    /// A message read back from its text ([`Words`]'s `Display`): the first part, each
    /// `caused by: ` line, and the help after `help: `. Text of another shape (an error of a
    /// library) is all `what`. For a message that went through an error's text (`anyhow`'s
    /// chain, a field of an error) before it is worded into another.
    pub(crate) fn parse(text: &str) -> Self {
        let (head, help) = match text.split_once("\nhelp: ") {
            Some((head, help)) => (head, Some(help.to_string())),
            None => (text, None),
        };
        let mut parts = head.split("\ncaused by: ").map(str::to_string);
        let what = parts.next().unwrap_or_default();
        let causes = parts.collect();
        Self { what, causes, help }
    }

    /// This message caused by `inner` (a failure inside it, as [`Words::parse`] reads it):
    /// its first line becomes a cause, after this message's causes and before its own; its
    /// help follows this message's.
    #[must_use]
    pub(crate) fn because(mut self, inner: &(impl fmt::Display + ?Sized)) -> Self {
        let inner = Self::parse(&inner.to_string());
        self.causes.push(inner.what);
        self.causes.extend(inner.causes);
        self.more_help(inner.help)
    }

    /// This message with `more` help, when there is some, on the lines after its own.
    #[must_use]
    pub(crate) fn more_help(self, more: Option<String>) -> Self {
        let help = match (self.help, more) {
            (Some(own), Some(more)) => Some(format!("{own}\n{more}")),
            (own, more) => own.or(more),
        };
        Self { help, ..self }
    }

    /// This message with `help` (what to do).
    #[must_use]
    pub(crate) fn help(self, help: impl Into<String>) -> Self {
        Self {
            help: Some(help.into()),
            ..self
        }
    }
}

impl fmt::Display for Words {
    /// `WHAT`, then `caused by: CAUSE` on a line each, then `help: HELP` on the next line
    /// when there is help.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.what)?;
        for cause in &self.causes {
            write!(f, "\ncaused by: {cause}")?;
        }
        match &self.help {
            Some(help) => write!(f, "\nhelp: {help}"),
            None => Ok(()),
        }
    }
}

/// A field of a JSON document that does not have the shape read, after `whose` (`the event
/// payload's `, or nothing): "is missing", or "holds another type or value than `writer`
/// writes there" (`GitHub`, `the hub's API`). Never the value, never our types' names.
pub(crate) fn unreadable_words(whose: &str, shape: &Unreadable, writer: &str) -> String {
    let field = &shape.field;
    match shape.missing {
        true => format!("{whose}{field} is missing"),
        false => format!("{whose}{field} holds another type or value than {writer} writes there"),
    }
}

/// `Display` for types worded by a function of the render layer: `words_display!(Type =>
/// function)` (a lifetime after the type as `Type<'_>`) shows `function(self)`, the one
/// [`Words`] shape, so the annotation, the log and `{err:#}` say the same.
macro_rules! words_display {
    ($($ty:ty => $words:expr),+ $(,)?) => {$(
        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                std::fmt::Display::fmt(&$words(self), f)
            }
        }
    )+};
}
pub(crate) use words_display;

/// Test helper: asserts `words` has the one shape (a first line of one line, at most
/// [`WHAT_MAX_CHARS`] characters, not blank; a help, when present, not blank).
#[cfg(test)]
pub(crate) fn assert_shape(words: &Words) {
    assert!(!words.what.trim().is_empty(), "blank message: {words:?}");
    assert!(
        !words.what.contains('\n'),
        "first line spans lines: {words}"
    );
    assert!(
        words.what.chars().count() <= WHAT_MAX_CHARS,
        "first line over {WHAT_MAX_CHARS} characters ({}): {}",
        words.what.chars().count(),
        words.what
    );
    if let Some(help) = &words.help {
        assert!(!help.trim().is_empty(), "blank help: {words:?}");
    }
    for cause in &words.causes {
        assert!(!cause.trim().is_empty(), "blank cause: {words:?}");
    }
}

/// Test helper: each of `all` checked for the one shape ([`assert_shape`]), as one text for
/// a snapshot (the messages apart by a blank line).
#[cfg(test)]
pub(crate) fn shaped(all: impl IntoIterator<Item = Words>) -> String {
    let texts: Vec<String> = all
        .into_iter()
        .inspect(assert_shape)
        .map(|words| words.to_string())
        .collect();
    texts.join("\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_help_follows_on_its_own_line() {
        let words = Words::new("hub-url (--hub-url) \"hub\" is not a URL")
            .help("give the hub's address, e.g. https://hub.example.org");
        assert_shape(&words);
        assert_eq!(
            words.to_string(),
            "hub-url (--hub-url) \"hub\" is not a URL\n\
             help: give the hub's address, e.g. https://hub.example.org"
        );
        assert_eq!(Words::new("done").to_string(), "done");
    }

    /// A failure inside another is its cause, with the one's: the outer message's first line
    /// stays first, and `help:` holds only what to do; the text reads back as it was.
    #[test]
    fn a_cause_follows_what_failed_and_the_help_comes_last() {
        let inner = Words::new("cannot look up the pull requests: cannot connect to GitHub")
            .because("GET https://api.github.com/x: Connection refused (os error 111)");
        let words = Words::new("cannot decide the tier")
            .help("set the tier input")
            .because(&inner);
        assert_shape(&words);
        assert_eq!(
            words.to_string(),
            "cannot decide the tier\n\
             caused by: cannot look up the pull requests: cannot connect to GitHub\n\
             caused by: GET https://api.github.com/x: Connection refused (os error 111)\n\
             help: set the tier input"
        );
        assert_eq!(Words::parse(&words.to_string()), words);
        let helped = Words::new("a")
            .help("do b")
            .because(&Words::new("c").help("do d"));
        assert_eq!(helped.to_string(), "a\ncaused by: c\nhelp: do b\ndo d");
    }
}
