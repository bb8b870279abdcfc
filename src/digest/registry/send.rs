//! Sending one registry request, again after a connection error, 429 or 5xx, by the one
//! retry policy ([`crate::support::retry`]: exponential backoff that honours `Retry-After`,
//! all inside one deadline, `--registry-timeout`).
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

use crate::support::retry::{GaveUp, RetryPolicy, Timer, Verdict, retry_after_header};
use reqwest::StatusCode;
use reqwest::header::HeaderMap;
use std::time::SystemTime;

/// An answer: status, headers and the body, read up to
/// [`MAX_MANIFEST_BYTES`](crate::digest::manifest::MAX_MANIFEST_BYTES) (a HEAD answer has none).
#[derive(Debug)]
pub(crate) struct Answer {
    pub(crate) status: StatusCode,
    pub(crate) headers: HeaderMap,
    pub(crate) body: bytes::Bytes,
    /// `false` when the body was longer than the limit: `body` is then its start (or empty
    /// when `Content-Length` already said so) and the rest was never read.
    pub(crate) complete: bool,
}

/// Why a request gave no usable answer, before the caller adds which registry and image:
/// the last try's failure ([`Try`]; `None` when the deadline passed before a try), the tries
/// made, the time spent and why they stopped.
pub(crate) type Failure = GaveUp<Try>;

/// Sends requests for one resolution and counts them.
pub(crate) struct Sender<'a> {
    pub(crate) policy: &'a RetryPolicy,
    pub(crate) timer: std::sync::Arc<dyn Timer>,
    /// Requests sent so far, every try counted.
    pub(crate) requests: u32,
}

impl Sender<'_> {
    /// Sends the request `build` makes, again after a connection error, 429 or 5xx, until
    /// an answer comes, the policy's tries run out or the next wait would pass the deadline.
    /// Each try's timeout is the time left before the deadline. At most `tries` tries when
    /// given (1: no retry).
    pub(super) async fn send(
        &mut self,
        build: impl Fn() -> reqwest::RequestBuilder,
        tries: Option<u32>,
    ) -> Result<Answer, Failure> {
        let policy = RetryPolicy {
            max_attempts: tries.unwrap_or(self.policy.max_attempts),
            ..self.policy.clone()
        };
        let requests = &mut self.requests;
        policy
            .run(
                self.timer.as_ref(),
                |left| {
                    *requests += 1;
                    let request = build();
                    let request = match left {
                        Some(left) => request.timeout(left),
                        None => request,
                    };
                    async move {
                        match fetch(request).await {
                            Ok(answer)
                                if answer.status == StatusCode::TOO_MANY_REQUESTS
                                    || answer.status.is_server_error() =>
                            {
                                Err(Try::Refused(answer))
                            }
                            Ok(answer) => Ok(answer),
                            Err(err) => Err(classify(&err)),
                        }
                    }
                },
                Try::verdict,
                |_| {},
            )
            .await
    }
}

/// How one try failed.
#[derive(Debug)]
pub(crate) enum Try {
    /// 429 or 5xx: the answer.
    Refused(Answer),
    /// A connection error (refused, reset, DNS, a body cut short).
    Connection(String),
    /// The TLS handshake failed.
    Tls(super::errors::TlsProblem),
    /// The per-try timeout (the deadline).
    Timeout,
    /// Anything else reqwest reported.
    Other(String),
}

impl Try {
    fn verdict(&self) -> Verdict {
        match self {
            Try::Refused(answer) => Verdict::Retry {
                asked: retry_after_header(&answer.headers, SystemTime::now()),
            },
            Try::Connection(_) => Verdict::Retry { asked: None },
            Try::Tls(..) | Try::Timeout | Try::Other(_) => Verdict::Final,
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

/// Sorts a reqwest error: a TLS failure (a `rustls::Error` anywhere in the chain, also
/// inside an `io::Error`), the per-try timeout (the deadline), a connection error
/// (refused, reset, DNS, a body cut short), or anything else.
fn classify(err: &reqwest::Error) -> Try {
    if let Some(tls) = super::errors::TlsProblem::of(err) {
        Try::Tls(tls)
    } else if err.is_timeout() {
        Try::Timeout
    } else if err.is_connect() || err.is_request() || err.is_body() {
        Try::Connection(cause(err))
    } else {
        Try::Other(cause(err))
    }
}

/// The error's causes on one line ([`crate::support::text::error_chain`]), without reqwest's
/// own top line (which repeats the URL): e.g. `client error (Connect): tcp connect error:
/// Connection refused (os error 111)`.
fn cause(err: &reqwest::Error) -> String {
    match std::error::Error::source(err) {
        Some(source) => crate::support::text::error_chain(source),
        None => err.to_string(),
    }
}
