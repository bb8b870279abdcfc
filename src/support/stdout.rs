//! The one writer of stdout: the program's output (the status table or JSON, `window`,
//! `docs --check`'s diff, `--print-context`) and the log's stdout lines.
//!
//! Stdout may be closed early (`codeq-rollout status | head -1`) or full (`> /dev/full`).
//! `print!` panics then (exit 101) and the run's other work (Action outputs, job summary,
//! comment) is skipped. Here a closed pipe (`BrokenPipe`, EPIPE: Rust ignores SIGPIPE, so
//! the write fails instead of killing the process) stops stdout quietly, as the reader asked
//! for no more; any other failure (ENOSPC, EIO) is kept, stdout is left alone for the rest
//! of the run, and [`failure`] hands the error back once the run's other work is done.
//! State is process-wide, as stdout is.

use std::io::{ErrorKind, Write};
use std::sync::Mutex;

/// What happened to stdout so far.
#[derive(Debug)]
enum State {
    /// Every write went through.
    Open,
    /// The reader went away (`BrokenPipe`): nothing more is written, and that is no error.
    Closed,
    /// A write failed otherwise: nothing more is written, and the run fails with this.
    Failed(std::io::Error),
}

static STATE: Mutex<State> = Mutex::new(State::Open);

/// Writes `text` to stdout as is, and flushes it (so a failure is seen here, not lost when
/// the process exits). After a failure, does nothing: see the module's doc. Returns whether
/// `text` was written.
pub(crate) fn print(text: &str) -> bool {
    let mut state = crate::support::locked(&STATE);
    if !matches!(*state, State::Open) {
        return false;
    }
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => true,
        Err(e) => {
            *state = if e.kind() == ErrorKind::BrokenPipe {
                State::Closed
            } else {
                State::Failed(e)
            };
            false
        }
    }
}

/// [`print()`] of `text` and a line break.
pub(crate) fn println(text: &str) -> bool {
    print(&format!("{text}\n"))
}

/// A stdout write failed other than by a closed pipe: the system's error. Its words are the
/// render layer's (`crate::render::messages`).
#[derive(Debug)]
pub(crate) struct StdoutFailed(pub(crate) std::io::Error);

impl std::error::Error for StdoutFailed {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.0)
    }
}

/// The error of a stdout write that failed other than by a closed pipe, once: the run's
/// last step (after its outputs, summary and comment) reports it and exits 1.
pub(crate) fn failure() -> Option<anyhow::Error> {
    let mut state = crate::support::locked(&STATE);
    match std::mem::replace(&mut *state, State::Closed) {
        State::Failed(e) => Some(StdoutFailed(e).into()),
        other => {
            *state = other;
            None
        }
    }
}
