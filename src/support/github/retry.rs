//! When a read is worth sending again, and how long to wait first.
//!
//! Reads (GET) are retried on 5xx, 429, rate-limit 403s and transport failures (timeouts,
//! broken connections), with exponential backoff, honouring `Retry-After` and
//! `x-ratelimit-reset` as GitHub's "Rate limits for the REST API" page asks. Writes are never
//! retried (see [`super`]). octocrab's own `HandleRateLimits` retries a 5xx at once, without
//! backoff, which is why this small policy exists.

use http::HeaderMap;
use std::time::Duration;

/// How reads are retried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadRetry {
    /// Retries after the first attempt.
    pub retries: u32,
    /// The first backoff; it doubles on each retry (1 s waits 1 s, 2 s, 4 s).
    pub base: Duration,
    /// The longest wait honoured for `Retry-After` or a rate-limit reset; a longer one fails
    /// the run at once (with GitHub's message), rather than holding a runner.
    pub max_wait: Duration,
}

impl Default for ReadRetry {
    fn default() -> Self {
        Self {
            retries: 3,
            base: Duration::from_secs(1),
            max_wait: Duration::from_secs(60),
        }
    }
}

/// What a failed read looked like, as far as retrying is concerned.
#[derive(Debug, Clone, Copy)]
pub enum Failure<'a> {
    /// GitHub answered with this status and these headers.
    Status(u16, Option<&'a HeaderMap>),
    /// No answer: a timeout or a broken connection.
    Transport,
    /// Anything else (a malformed answer, a bad URL): retrying cannot help.
    Final,
}

impl<'a> Failure<'a> {
    /// Classifies an octocrab error.
    pub fn of(err: &'a octocrab::Error) -> Self {
        match err {
            octocrab::Error::GitHub { source, .. } => {
                Failure::Status(source.status_code.as_u16(), source.headers.as_ref())
            }
            octocrab::Error::Service { .. }
            | octocrab::Error::Hyper { .. }
            | octocrab::Error::Reqwest { .. } => Failure::Transport,
            _ => Failure::Final,
        }
    }
}

impl ReadRetry {
    /// The wait before retry number `attempt` (0 for the first retry) after `failure`, or
    /// `None` when the failure is final (any other 4xx, a malformed answer) or the retries
    /// are spent. `now_unix` is the current time in Unix seconds, for `x-ratelimit-reset`.
    pub fn wait(&self, failure: Failure<'_>, attempt: u32, now_unix: i64) -> Option<Duration> {
        if attempt >= self.retries {
            return None;
        }
        let backoff = self.base.saturating_mul(2u32.saturating_pow(attempt));
        match failure {
            Failure::Status(status, headers) => {
                let retry_after = header(headers, "retry-after");
                let remaining = header(headers, "x-ratelimit-remaining");
                let reset = header(headers, "x-ratelimit-reset");
                let rate_limited = status == 429
                    || (status == 403 && (retry_after.is_some() || remaining == Some(0)));
                if rate_limited {
                    let told = retry_after.or_else(|| {
                        (remaining == Some(0))
                            .then(|| reset.map(|r| r.saturating_sub(now_unix).max(0)))
                            .flatten()
                    });
                    let wait = told
                        .map(|s| Duration::from_secs(s.unsigned_abs()))
                        .unwrap_or(backoff);
                    (wait <= self.max_wait).then_some(wait)
                } else if (500..=599).contains(&status) {
                    Some(backoff)
                } else {
                    None
                }
            }
            Failure::Transport => Some(backoff),
            Failure::Final => None,
        }
    }
}

fn header(headers: Option<&HeaderMap>, name: &str) -> Option<i64> {
    headers?.get(name)?.to_str().ok()?.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (k, v) in pairs {
            map.insert(
                http::HeaderName::from_bytes(k.as_bytes()).unwrap(),
                v.parse().unwrap(),
            );
        }
        map
    }

    #[test]
    fn server_errors_back_off_exponentially_then_give_up() {
        let policy = ReadRetry::default();
        let waits: Vec<_> = (0..4)
            .map(|a| policy.wait(Failure::Status(502, None), a, 0))
            .collect();
        assert_eq!(
            waits,
            vec![
                Some(Duration::from_secs(1)),
                Some(Duration::from_secs(2)),
                Some(Duration::from_secs(4)),
                None
            ]
        );
    }

    #[test]
    fn rate_limits_honour_retry_after_and_the_reset_time() {
        let policy = ReadRetry::default();
        let after = headers(&[("retry-after", "7")]);
        assert_eq!(
            policy.wait(Failure::Status(429, Some(&after)), 0, 0),
            Some(Duration::from_secs(7))
        );
        let reset = headers(&[
            ("x-ratelimit-remaining", "0"),
            ("x-ratelimit-reset", "1030"),
        ]);
        assert_eq!(
            policy.wait(Failure::Status(403, Some(&reset)), 0, 1000),
            Some(Duration::from_secs(30))
        );
        let far = headers(&[("retry-after", "3600")]);
        assert_eq!(
            policy.wait(Failure::Status(429, Some(&far)), 0, 0),
            None,
            "an hour is not worth a runner"
        );
        assert_eq!(
            policy.wait(Failure::Transport, 0, 0),
            Some(Duration::from_secs(1))
        );
    }

    #[test]
    fn other_client_errors_are_final() {
        let policy = ReadRetry::default();
        for status in [401, 403, 404, 422] {
            assert_eq!(policy.wait(Failure::Status(status, None), 0, 0), None);
        }
        assert_eq!(policy.wait(Failure::Final, 0, 0), None);
    }
}
