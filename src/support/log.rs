//! The Actions log: log lines and workflow commands (GitHub's "Workflow commands for
//! GitHub Actions": `::error title=T::message`, `::warning::`, `::notice::`, `::debug::`,
//! `::add-mask::`; data escapes `%`, CR and LF, properties also `:` and `,`), with every
//! registered secret masked ([`crate::support::secrets`]).

use crate::support::locked;
use crate::support::secrets::Secrets;
use std::sync::{Arc, Mutex, MutexGuard};

/// `eprintln!` that ignores a closed stderr.
macro_rules! err {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr().lock(), $($arg)*);
    }};
}

/// Where log lines go and how they are dressed.
///
/// Every line passes through `Log::redact` first, so a secret registered with
/// `Log::mask` never reaches stdout or stderr, whatever text carried it (an error
/// echoed by the registry, a debug line). Clones share the registered secrets, so a clone
/// handed to the GitHub client's debug sink masks what the run masked, without a second
/// `::add-mask::` line.
///
/// Stdout carries log lines and workflow commands, unless it is kept for machine output
/// (`Log::keeping_stdout`, e.g. `window --json`): then everything goes to stderr, where the
/// runner reads workflow commands too.
#[derive(Clone)]
pub struct Log {
    /// Inside GitHub Actions (`GITHUB_ACTIONS=true`): print workflow commands.
    actions: bool,
    /// `RUNNER_DEBUG=1` or `ACTIONS_STEP_DEBUG=true`: print debug lines.
    debug: bool,
    /// Stdout is kept for machine output: log lines and workflow commands go to stderr.
    stdout_kept: bool,
    secrets: Arc<Mutex<Secrets>>,
    /// Set by [`Log::holding`]: warnings and errors are kept here, to be printed later by
    /// [`Log::replay`], instead of printed at once.
    held: Option<Arc<Mutex<Vec<HeldAnnotation>>>>,
}

/// A warning or error a [`Log::holding`] log kept instead of printing: its kind
/// (`warning`, `error`), title and message, as [`Log::warning`] or [`Log::error`] got them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HeldAnnotation {
    kind: &'static str,
    title: String,
    message: String,
}

impl Log {
    /// Reads `GITHUB_ACTIONS`, `RUNNER_DEBUG` and `ACTIONS_STEP_DEBUG` from the environment.
    pub fn from_env() -> Self {
        let var = |k: &str| std::env::var(k).unwrap_or_default();
        Self::new(
            var("GITHUB_ACTIONS") == "true",
            var("RUNNER_DEBUG") == "1" || var("ACTIONS_STEP_DEBUG").eq_ignore_ascii_case("true"),
        )
    }

    /// A log with explicit settings (tests).
    pub(crate) fn new(actions: bool, debug: bool) -> Self {
        Self {
            actions,
            debug,
            stdout_kept: false,
            secrets: Arc::new(Mutex::new(Secrets::default())),
            held: None,
        }
    }

    /// This log, with its warnings and errors held back instead of printed (its other lines
    /// print as usual), for a run whose first annotation must be one decided later (the
    /// runbook placeholder of `announce`). Shares the registered secrets.
    pub(crate) fn holding(&self) -> Self {
        Self {
            held: Some(Arc::new(Mutex::new(Vec::new()))),
            ..self.clone()
        }
    }

    /// The warnings and errors this [`Log::holding`] log held, in order, taken out of it;
    /// empty for a log that holds nothing.
    pub(crate) fn take_held(&self) -> Vec<HeldAnnotation> {
        (self.held.as_ref()).map_or_else(Vec::new, |held| std::mem::take(&mut *locked(held)))
    }

    /// Prints `held` ([`Log::take_held`]) as this log prints warnings and errors.
    pub(crate) fn replay(&self, held: &[HeldAnnotation]) {
        for h in held {
            self.annotation(h.kind, &h.title, &h.message);
        }
    }

    /// This log with stdout kept for machine output (JSON): log lines and workflow commands
    /// go to stderr instead. Shares the registered secrets.
    pub(crate) fn keeping_stdout(&self) -> Self {
        Self {
            stdout_kept: true,
            ..self.clone()
        }
    }

    /// Writes one line to stdout ([`crate::support::stdout`]: a closed or full stdout does
    /// not stop the run, and the line goes to stderr instead), or to stderr when stdout is
    /// kept for machine output.
    fn line(&self, text: &str) {
        // Stdout closed or full: the line (an error, say) still reaches the reader.
        if self.stdout_kept || !crate::support::stdout::println(text) {
            err!("{text}");
        }
    }

    /// Whether workflow commands are printed (running inside GitHub Actions).
    pub(crate) fn in_actions(&self) -> bool {
        self.actions
    }

    /// Registers a secret: it is replaced by `***` in everything this log (and its clones)
    /// prints, and inside Actions an `::add-mask::` tells the runner to hide it from the job
    /// log too, once per form. The forms in which a server might echo it back, and the lines
    /// of a multi-line secret (a key file, say), are registered with it ([`Secrets::add`]).
    /// Empty values are ignored. The one place a secret is registered for the run.
    pub(crate) fn mask(&self, secret: &str) {
        let added = self.secrets().add(secret.trim());
        self.announce_masks(added);
    }

    /// Registers Basic credentials: the password (as [`Log::mask`]) and the base64 of
    /// `user:password`, the form an `Authorization: Basic` header carries (RFC 7617), which a
    /// registry or proxy may echo in an error page ([`Secrets::add_basic`]).
    pub(crate) fn mask_basic(&self, user: &str, password: &str) {
        let added = self.secrets().add_basic(user, password);
        self.announce_masks(added);
    }

    fn secrets(&self) -> MutexGuard<'_, Secrets> {
        locked(&self.secrets)
    }

    /// Tells the runner to mask each of `forms` (new to this log), inside Actions.
    fn announce_masks(&self, forms: Vec<String>) {
        if self.actions {
            for form in forms {
                self.line(&format!("::add-mask::{}", escape_data(&form)));
            }
        }
    }

    /// Replaces every form of every registered secret in `text` by `***`
    /// ([`Secrets::redact`]).
    pub(crate) fn redact(&self, text: &str) -> String {
        self.secrets().redact(text)
    }

    /// A plain line on stdout. Workflow commands in it are defused
    /// ([`crate::support::sanitize::defuse_commands`]), so text from pull requests or servers cannot
    /// issue commands.
    pub(crate) fn info(&self, message: &str) {
        self.line(&defuse_commands(&self.redact(message)));
    }

    /// A warning: `::warning title=…::` inside Actions, `warning: …` on stderr otherwise.
    pub(crate) fn warning(&self, title: &str, message: &str) {
        self.annotation("warning", title, message);
    }

    /// [`Log::warning`] of a warning worded elsewhere: its title and its text.
    pub(crate) fn warn(&self, warning: &impl crate::support::text::Titled) {
        self.warning(warning.title(), &warning.to_string());
    }

    /// An error: `::error title=…::` inside Actions, `error: …` on stderr otherwise.
    pub(crate) fn error(&self, title: &str, message: &str) {
        self.annotation("error", title, message);
    }

    /// A debug line, printed only when step debug logging is on. Never pass headers.
    pub(crate) fn debug(&self, message: &str) {
        if !self.debug {
            return;
        }
        let message = self.redact(message);
        if self.actions {
            self.line(&format!("::debug::{}", escape_data(&message)));
        } else {
            err!("debug: {}", defuse_commands(&message));
        }
    }

    fn annotation(&self, kind: &'static str, title: &str, message: &str) {
        if let Some(held) = &self.held {
            locked(held).push(HeldAnnotation {
                kind,
                title: title.to_string(),
                message: message.to_string(),
            });
            return;
        }
        let (title, message) = (self.redact(title), self.redact(message));
        if self.actions {
            self.line(&format!(
                "::{kind} title={}::{}",
                escape_property(&title),
                escape_data(&message)
            ));
        } else {
            err!("{kind}: {}", defuse_commands(&message));
        }
    }
}

/// Escapes workflow-command data: `%` → `%25`, CR → `%0D`, LF → `%0A`.
pub(crate) fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a workflow-command property value: as [`escape_data`], plus `:` → `%3A`, `,` → `%2C`.
pub(crate) fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// Defuses workflow commands in plain log text (`::` at the start of any CR- or LF-ended
/// line, and the legacy `##[` anywhere): the one implementation, in `sanitize`.
pub(crate) use crate::support::sanitize::defuse_commands;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_and_properties_are_escaped() {
        assert_eq!(escape_data("50%\r\nx"), "50%25%0D%0Ax");
        assert_eq!(escape_property("a:b,c"), "a%3Ab%2Cc");
    }

    #[test]
    fn secrets_are_redacted_longest_first() {
        let log = Log::new(false, false);
        log.mask("abcdefgh");
        log.mask("abcdefghij");
        assert_eq!(
            log.redact("token abcdefghij and abcdefgh"),
            "token *** and ***"
        );
    }

    #[test]
    fn clones_share_the_secrets() {
        let log = Log::new(false, false);
        let clone = log.clone();
        log.mask("s3cret-pw");
        assert_eq!(clone.redact("a s3cret-pw b"), "a *** b");
    }

    #[test]
    fn echoed_forms_of_a_secret_are_redacted() {
        let log = Log::new(false, false);
        log.mask("p%ss/w\"rd");
        log.mask_basic("robot", "hunter22");
        let echoed = r#"raw p%ss/w"rd json p%ss/w\"rd url p%25ss%2Fw%22rd b64 cCVzcy93InJk basic cm9ib3Q6aHVudGVyMjI="#;
        assert_eq!(
            log.redact(echoed),
            "raw *** json *** url *** b64 *** basic ***"
        );
    }
}
