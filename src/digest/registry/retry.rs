//! Sending one registry request with retries: connection errors, 429 and 5xx are retried with
//! exponential backoff that honours `Retry-After`, all inside one deadline
//! (`--registry-timeout`).
//!
//! Why the requests are sent with `reqwest` here instead of through `oci-client` (0.18, read
//! in its `client.rs`): it turns a 429 or 5xx into `ServerError { code, url, message }`
//! without the response headers, so `Retry-After` is lost, and it retries nothing; its
//! `fetch_manifest_digest` answers every HEAD without a digest header (401, 404, 429 and 503
//! included) with a GET, which Docker Hub counts as a pull; and `Client::auth` followed by
//! `fetch_manifest_digest` pings `/v2/` twice on a registry without auth (its token cache holds
//! nothing for anonymous access, so each request re-runs the ping): 3 requests where 1
//! suffices. A `reqwest` probe after a failure would cost an extra request each time, and
//! oci-client takes no custom HTTP layer (its `ClientConfig` builds its own client). Sending
//! each request with the `reqwest` crate oci-client itself uses (already in the build) keeps
//! the headers in hand and the request count at the physical minimum.

use reqwest::StatusCode;
use reqwest::header::HeaderMap;
use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, SystemTime};

/// How long and how often a registry request is tried.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Deadline for the whole resolution, every request and wait included
    /// (`--registry-timeout`, default 60 s).
    pub timeout: Duration,
    /// Wait before the first retry; doubled for each further retry up to `max_delay`
    /// (hidden `--registry-retry-delay`, default 1 s; tests set 0).
    pub base_delay: Duration,
    /// Longest backoff between two tries (16 s). A `Retry-After` may ask for more.
    pub max_delay: Duration,
    /// Tries per request, the first included (6).
    pub max_attempts: u32,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(60),
            base_delay: Duration::from_secs(1),
            max_delay: Duration::from_secs(16),
            max_attempts: 6,
        }
    }
}

impl RetryPolicy {
    /// The backoff before retry number `retry` (1 for the first retry):
    /// `base_delay * 2^(retry-1)`, capped at `max_delay`.
    pub fn backoff(&self, retry: u32) -> Duration {
        let factor = 2u32.saturating_pow(retry.saturating_sub(1));
        self.base_delay
            .checked_mul(factor)
            .unwrap_or(self.max_delay)
            .min(self.max_delay)
    }

    /// The wait before retry number `retry`: the backoff, or the registry's `Retry-After`
    /// when that is longer (RFC 9110 §10.2.3: the client should wait at least that long).
    pub fn delay(&self, retry: u32, retry_after: Option<Duration>) -> Duration {
        self.backoff(retry).max(retry_after.unwrap_or_default())
    }
}

/// Parses a `Retry-After` value: delay-seconds (`120`) or an HTTP-date
/// (`Wed, 21 Oct 2015 07:28:00 GMT`, counted from `now`; a date in the past is 0 s).
/// `None` for anything else.
pub fn retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(now).unwrap_or_default())
}

/// The clock of one resolution: how long it has run, and how to wait. Injectable so tests
/// can check the waits (e.g. that `Retry-After` was honoured) without waiting.
pub trait Timer: Send + Sync {
    /// Time since the resolution started.
    fn elapsed(&self) -> Duration;
    /// Waits `delay` (the real clock sleeps; a test clock records it).
    fn wait(&self, delay: Duration) -> Pin<Box<dyn Future<Output = ()> + Send + '_>>;
}

/// The real clock: `tokio::time`.
#[derive(Debug)]
pub struct TokioTimer(tokio::time::Instant);

impl TokioTimer {
    /// A clock started now.
    pub fn start() -> Self {
        Self(tokio::time::Instant::now())
    }
}

impl Timer for TokioTimer {
    fn elapsed(&self) -> Duration {
        self.0.elapsed()
    }
    fn wait(&self, delay: Duration) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        Box::pin(tokio::time::sleep(delay))
    }
}

/// An answer: status, headers and the body, read up to
/// [`MAX_MANIFEST_BYTES`](crate::digest::manifest::MAX_MANIFEST_BYTES) (a HEAD answer has none).
#[derive(Debug)]
pub(crate) struct Answer {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: bytes::Bytes,
    /// `false` when the body was longer than the limit: `body` is then its start (or empty
    /// when `Content-Length` already said so) and the rest was never read.
    pub complete: bool,
}

/// Why a request gave no usable answer, before the caller adds which registry and image.
#[derive(Debug)]
pub(crate) enum Failure {
    /// No connection on any try.
    Connect {
        attempts: u32,
        elapsed: Duration,
        cause: String,
    },
    /// TLS handshake failed (not retried).
    Tls {
        cause: String,
        problem: super::errors::TlsProblem,
    },
    /// 429 or 5xx on the last try; `retry_after` is set when the registry's `Retry-After`
    /// (not the backoff) is what would have ended the next wait past the deadline.
    Status {
        answer: Answer,
        attempts: u32,
        elapsed: Duration,
        retry_after: Option<Duration>,
    },
    /// The deadline passed (before a try, or during one).
    TimedOut,
    /// Anything else reqwest reported (redirect loop, bad URL...).
    Other { cause: String },
}

/// Sends requests for one resolution and counts them.
pub(crate) struct Sender<'a> {
    pub policy: &'a RetryPolicy,
    pub timer: &'a dyn Timer,
    /// Requests sent so far, every try counted.
    pub requests: u32,
}

impl Sender<'_> {
    /// Sends the request `build` makes, again after a connection error, 429 or 5xx, until
    /// an answer comes, the policy's tries run out or the next wait would pass the deadline.
    /// Each try's timeout is the time left before the deadline.
    pub async fn send(
        &mut self,
        build: impl Fn() -> reqwest::RequestBuilder,
    ) -> Result<Answer, Failure> {
        let tries = self.policy.max_attempts;
        self.send_tries(build, tries).await
    }

    /// As [`Sender::send`], with at most `tries` tries (1: no retry).
    pub async fn send_tries(
        &mut self,
        build: impl Fn() -> reqwest::RequestBuilder,
        tries: u32,
    ) -> Result<Answer, Failure> {
        let mut attempts = 0;
        loop {
            let remaining = self.policy.timeout.saturating_sub(self.timer.elapsed());
            if remaining.is_zero() {
                return Err(Failure::TimedOut);
            }
            attempts += 1;
            self.requests += 1;
            let (failure, retry_after) = match fetch(build().timeout(remaining)).await {
                Ok(answer)
                    if answer.status == StatusCode::TOO_MANY_REQUESTS
                        || answer.status.is_server_error() =>
                {
                    let retry_after = answer
                        .headers
                        .get(reqwest::header::RETRY_AFTER)
                        .and_then(|v| v.to_str().ok())
                        .and_then(|v| retry_after(v, SystemTime::now()));
                    let failure = Failure::Status {
                        answer,
                        attempts,
                        elapsed: self.timer.elapsed(),
                        retry_after: None,
                    };
                    (failure, retry_after)
                }
                Ok(answer) => return Ok(answer),
                Err(err) => match classify(&err) {
                    Class::Tls(cause, problem) => return Err(Failure::Tls { cause, problem }),
                    Class::Timeout => return Err(Failure::TimedOut),
                    Class::Connection(cause) => (
                        Failure::Connect {
                            attempts,
                            elapsed: self.timer.elapsed(),
                            cause,
                        },
                        None,
                    ),
                    Class::Other(cause) => return Err(Failure::Other { cause }),
                },
            };
            if attempts >= tries {
                return Err(failure);
            }
            // Saturating: a `Retry-After` of u64::MAX seconds must end the tries, not panic.
            let elapsed = self.timer.elapsed();
            let past = |wait: Duration| elapsed.saturating_add(wait) >= self.policy.timeout;
            let delay = self.policy.delay(attempts, retry_after);
            if past(delay) {
                // Name the registry's wait only when it, not the backoff, passed the deadline.
                let asked =
                    retry_after.filter(|&r| past(r) && !past(self.policy.backoff(attempts)));
                return Err(match failure {
                    Failure::Status {
                        answer,
                        attempts,
                        elapsed,
                        ..
                    } => Failure::Status {
                        answer,
                        attempts,
                        elapsed,
                        retry_after: asked,
                    },
                    other => other,
                });
            }
            self.timer.wait(delay).await;
        }
    }
}

/// Sends one request and reads its body in chunks, stopping after
/// [`MAX_MANIFEST_BYTES`](crate::digest::manifest::MAX_MANIFEST_BYTES): a 300 MB answer costs at most
/// that much memory and reading time, and is reported, not hashed.
async fn fetch(request: reqwest::RequestBuilder) -> Result<Answer, reqwest::Error> {
    let limit = crate::digest::manifest::MAX_MANIFEST_BYTES;
    let mut response = request.send().await?;
    let status = response.status();
    let headers = response.headers().clone();
    let mut body = Vec::new();
    // reqwest's content_length is the body's exact size (0 for a HEAD answer).
    let mut complete = response.content_length().is_none_or(|n| n <= limit as u64);
    while complete {
        let Some(chunk) = response.chunk().await? else {
            break;
        };
        if body.len() + chunk.len() > limit {
            body.extend_from_slice(&chunk[..limit - body.len()]);
            complete = false;
        } else {
            body.extend_from_slice(&chunk);
        }
    }
    Ok(Answer {
        status,
        headers,
        body: body.into(),
        complete,
    })
}

enum Class {
    Tls(String, super::errors::TlsProblem),
    Timeout,
    Connection(String),
    Other(String),
}

/// Sorts a reqwest error: a TLS failure (a `rustls::Error` anywhere in the chain, also
/// inside an `io::Error`), the per-try timeout (the deadline), a connection error
/// (refused, reset, DNS, a body cut short), or anything else.
fn classify(err: &reqwest::Error) -> Class {
    if let Some(tls) = find_tls(err) {
        Class::Tls(
            super::errors::tls_words(tls),
            super::errors::TlsProblem::of(tls),
        )
    } else if err.is_timeout() {
        Class::Timeout
    } else if err.is_connect() || err.is_request() || err.is_body() {
        Class::Connection(cause(err))
    } else {
        Class::Other(cause(err))
    }
}

/// A `rustls::Error` in the chain. `io::Error::source` skips the error it wraps (tokio-rustls
/// wraps the rustls error in an `io::Error`, hyper-util in another), so those are opened with
/// `get_ref`.
fn find_tls<'a>(err: &'a (dyn std::error::Error + 'static)) -> Option<&'a rustls::Error> {
    if let Some(tls) = err.downcast_ref::<rustls::Error>() {
        return Some(tls);
    }
    if let Some(inner) = err
        .downcast_ref::<std::io::Error>()
        .and_then(|io| io.get_ref())
    {
        if let Some(tls) = find_tls(inner) {
            return Some(tls);
        }
    }
    err.source().and_then(find_tls)
}

/// The error's causes, outermost first, without reqwest's own top line (which repeats the
/// URL): e.g. `client error (Connect): tcp connect error: Connection refused (os error 111)`.
fn cause(err: &reqwest::Error) -> String {
    let mut parts = Vec::new();
    let mut source = std::error::Error::source(err);
    while let Some(e) = source {
        let text = e.to_string();
        if !parts.contains(&text) {
            parts.push(text);
        }
        source = e.source();
    }
    if parts.is_empty() {
        err.to_string()
    } else {
        parts.join(": ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_the_cap() {
        let p = RetryPolicy::default();
        let secs: Vec<u64> = (1..=7).map(|r| p.backoff(r).as_secs()).collect();
        assert_eq!(secs, [1, 2, 4, 8, 16, 16, 16]);
        assert_eq!(p.backoff(60), Duration::from_secs(16));
    }

    #[test]
    fn retry_after_wins_when_longer_than_the_backoff() {
        let p = RetryPolicy::default();
        assert_eq!(
            p.delay(1, Some(Duration::from_secs(7))),
            Duration::from_secs(7)
        );
        assert_eq!(
            p.delay(3, Some(Duration::from_secs(1))),
            Duration::from_secs(4)
        );
        assert_eq!(p.delay(2, None), Duration::from_secs(2));
    }

    #[test]
    fn retry_after_reads_seconds_and_http_dates() {
        let now = httpdate::parse_http_date("Wed, 21 Oct 2015 07:28:00 GMT").unwrap();
        assert_eq!(retry_after("120", now), Some(Duration::from_secs(120)));
        assert_eq!(
            retry_after("Wed, 21 Oct 2015 07:28:30 GMT", now),
            Some(Duration::from_secs(30))
        );
        assert_eq!(
            retry_after("Wed, 21 Oct 2015 07:27:00 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(retry_after("soon", now), None);
        assert_eq!(retry_after("-5", now), None);
    }
}
