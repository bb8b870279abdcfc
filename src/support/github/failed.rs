//! From octocrab's errors to [`GitHubError`] (data: the kind, the status, GitHub's own
//! message, the request), and whether a failed read is worth another try.

use super::GitHub;
use super::error::{Action, GitHubError, Kind, Problem};
use crate::support::retry::{Verdict, retry_after_header};
use crate::support::sanitize::clean_line;
use std::time::{Duration, SystemTime};

/// The most characters of a server's message an error echoes.
const ECHO_MAX_CHARS: usize = 1000;

impl GitHub {
    /// Maps an octocrab error met while doing `action` (a timeout is named with the client's,
    /// [`super::Options::timeout`]). Text a server sent or echoed back (GitHub's message, a
    /// transport error's, a URL) is cleaned to one line of at most [`ECHO_MAX_CHARS`], then
    /// the token is hidden in it in every form, part and long start
    /// ([`crate::support::secrets::Secrets::redact_echo`]): it may quote the request's
    /// credentials.
    pub(super) fn failed(&self, err: octocrab::Error, action: Action) -> GitHubError {
        let clean = |text: &str| self.echoed(text);
        match err {
            octocrab::Error::GitHub { source, .. } => {
                let status = source.status_code.as_u16();
                let errors = source.errors.as_deref().unwrap_or_default();
                // GitHub's (or a proxy's) message is echoed, as one line of at most
                // ECHO_MAX_CHARS: an HTML error page must not flood the log.
                let server_message = clean(&source.message);
                let details: Vec<String> = (errors.iter())
                    .map(|e| {
                        e["message"]
                            .as_str()
                            .map_or_else(|| e.to_string(), String::from)
                    })
                    .collect();
                let server_details = clean(&details.join("; "));
                let kind = match status {
                    403 if server_message.to_ascii_lowercase().contains("rate limit") => {
                        Kind::RateLimited
                    }
                    422 if errors.iter().any(|e| e["code"] == "already_exists") => {
                        Kind::AlreadyExists
                    }
                    _ => Kind::from_status(status),
                };
                GitHubError::new(
                    kind,
                    Problem::Answered {
                        action,
                        status,
                        server_message,
                        server_details,
                    },
                )
            }
            octocrab::Error::Json { .. } | octocrab::Error::Serde { .. } => {
                // The decoder's own words, below octocrab's wrapper.
                let cause = std::error::Error::source(&err).map(ToString::to_string);
                let cause = clean(&cause.unwrap_or_default());
                GitHubError::new(Kind::Other, Problem::NotJson { action, cause })
            }
            other => GitHubError::new(Kind::Unavailable, self.transport(&other, action)),
        }
    }

    /// A request that got no answer: which request, and a timeout, a connection refused or
    /// broken, with the cause below the library's wrappers (`Service Error: Reqwest Error:
    /// ...`), the token hidden in each text.
    fn transport(&self, err: &octocrab::Error, action: Action) -> Problem {
        let first: &(dyn std::error::Error + 'static) = err;
        let reqwest = std::iter::successors(Some(first), |e| e.source())
            .find_map(|e| e.downcast_ref::<reqwest::Error>());
        let Some(e) = reqwest else {
            return Problem::NoAnswer {
                action,
                cause: self.echoed(&crate::support::text::error_chain(err)),
            };
        };
        let url = e.url().map(|u| self.secrets.redact_echo(u.as_str()));
        if e.is_timeout() {
            return Problem::TimedOut {
                action,
                url,
                timeout: self.options.timeout,
            };
        }
        // The cause below reqwest's own "error sending request for url (...)" line.
        let cause = std::error::Error::source(e)
            .map(crate::support::text::error_chain)
            .unwrap_or_else(|| e.to_string());
        Problem::Connection {
            action,
            url,
            broke: !e.is_connect(),
            cause: self.echoed(&cause),
        }
    }

    /// Text a server sent or echoed, as an error keeps it: one line of at most
    /// [`ECHO_MAX_CHARS`] characters, with the token hidden.
    fn echoed(&self, text: &str) -> String {
        self.secrets.redact_echo(&clean_line(text, ECHO_MAX_CHARS))
    }
}

/// Whether a failed read is worth another try ([`crate::support::retry`]), per GitHub's "Rate
/// limits for the REST API": a 5xx, a 429 or a transport failure (a timeout, a broken
/// connection) is; so is a 403 that is a rate limit (it carries `Retry-After`, or
/// `x-ratelimit-remaining: 0`), which asks for a wait: `Retry-After`, else until
/// `x-ratelimit-reset` (Unix seconds, counted from `now`). Anything else is final.
pub(crate) fn read_verdict(err: &octocrab::Error, now: SystemTime) -> Verdict {
    let (status, headers) = match err {
        octocrab::Error::GitHub { source, .. } => {
            (source.status_code.as_u16(), source.headers.as_ref())
        }
        octocrab::Error::Service { .. }
        | octocrab::Error::Hyper { .. }
        | octocrab::Error::Reqwest { .. } => return Verdict::Retry { asked: None },
        _ => return Verdict::Final,
    };
    let header = |name: &str| headers?.get(name)?.to_str().ok();
    let after = headers.and_then(|h| retry_after_header(h, now));
    let exhausted = header("x-ratelimit-remaining").is_some_and(|v| v.trim() == "0");
    let reset = header("x-ratelimit-reset")
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map(|at| {
            let now = now
                .duration_since(SystemTime::UNIX_EPOCH)
                .unwrap_or_default();
            Duration::from_secs(at).saturating_sub(now)
        });
    match status {
        429 | 500..=599 => Verdict::Retry {
            asked: after.or(reset.filter(|_| exhausted)),
        },
        403 if after.is_some() || exhausted => Verdict::Retry {
            asked: after.or(reset),
        },
        _ => Verdict::Final,
    }
}
