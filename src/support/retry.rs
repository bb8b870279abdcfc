//! The one retry policy of every edge: the GitHub client, the registry resolution and the hub
//! client send a read again by these rules, and only a read.
//!
//! - **Reads only.** Callers wrap GETs and HEADs (and the registry's token request, a GET).
//!   A write (POST, PATCH, DELETE) is sent once: one that may have succeeded is followed by a
//!   fresh look-up elsewhere, never by a second write.
//! - **Which failures.** Each edge says which of its failures are worth another try
//!   ([`Verdict`]): a broken connection, a 429, a 5xx (the hub: 502, 503, 504 only), a GitHub
//!   rate-limit 403. Anything else is final.
//! - **Backoff.** Exponential: [`RetryPolicy::base_delay`], doubled per further retry up to
//!   [`RetryPolicy::max_delay`], at most [`RetryPolicy::max_attempts`] tries.
//! - **The server's word.** A wait the server asks for (`Retry-After`, RFC 9110 §10.2.3, as
//!   delay-seconds or an HTTP-date; GitHub's `x-ratelimit-reset`) is honoured: the wait is
//!   the longer of it and the backoff. A wait longer than [`RetryPolicy::max_asked_wait`]
//!   ends the tries at once (GitHub: an hour is not worth a runner).
//! - **Deadline.** With [`RetryPolicy::deadline`], all tries and waits fit in it (each try's
//!   timeout is the time left): a wait that would end past it ends the tries at once.
//!
//! Why one module and not a crate such as `backon` (1.x, read in its `retry.rs`): backon runs
//! the loop and computes the exponential sequence (with `f32` factors, so 10 ms doubles to
//! 19.99… ms), but every rule above would still be ours, in its `when`/`adjust` callbacks,
//! and `adjust` can only say "stop", not why: the registry's error names the `Retry-After`
//! that passed the deadline, the GitHub client counts each try and wait. A pure decision
//! ([`RetryPolicy::next`], table-tested) and a 20-line loop ([`RetryPolicy::run`]) say the
//! same with nothing hidden.

use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, SystemTime};

/// How a read is tried again. One type for every edge; `RetryPolicy::reads` (GitHub, hub)
/// and [`RetryPolicy::registry`] are the two settings in use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Tries per request, the first included.
    pub max_attempts: u32,
    /// The wait before the first retry; doubled for each further retry up to `max_delay`.
    pub base_delay: Duration,
    /// The longest backoff between two tries. A server may ask for more.
    pub max_delay: Duration,
    /// The longest wait a server may ask for that is honoured; a longer one ends the tries
    /// at once (with the server's answer).
    pub max_asked_wait: Duration,
    /// The time all tries and waits must fit in, from the timer's start; `None`: no deadline
    /// beyond each request's own timeout.
    pub deadline: Option<Duration>,
}

impl RetryPolicy {
    /// Reads from GitHub and the hub: 4 tries (waits of 1 s, 2 s, 4 s), a server's wait
    /// honoured up to 60 s, no deadline beyond each request's timeout.
    pub(crate) fn reads() -> Self {
        Self {
            max_attempts: 4,
            base_delay: Duration::from_secs(1),
            max_delay: Duration::from_secs(16),
            max_asked_wait: Duration::from_secs(60),
            deadline: None,
        }
    }

    /// The registry resolution: 6 tries per request (waits of 1, 2, 4, 8, 16 s), any wait the
    /// registry asks for honoured, everything within 60 s (`--registry-timeout`).
    pub fn registry() -> Self {
        Self {
            max_attempts: 6,
            base_delay: Duration::from_secs(1),
            max_delay: Duration::from_secs(16),
            max_asked_wait: Duration::MAX,
            deadline: Some(Duration::from_secs(60)),
        }
    }

    /// The backoff before retry number `retry` (1 for the first retry):
    /// `base_delay * 2^(retry-1)`, capped at `max_delay`.
    pub(crate) fn backoff(&self, retry: u32) -> Duration {
        let factor = 2u32.saturating_pow(retry.saturating_sub(1));
        self.base_delay
            .checked_mul(factor)
            .unwrap_or(self.max_delay)
            .min(self.max_delay)
    }

    /// What to do after the `attempts`-th try failed with `verdict`, `elapsed` after the
    /// timer's start: wait this long, then try again.
    ///
    /// # Errors
    /// Try no more, and why ([`Stop`]).
    fn next(&self, attempts: u32, elapsed: Duration, verdict: Verdict) -> Result<Duration, Stop> {
        let Verdict::Retry { asked } = verdict else {
            return Err(Stop::Final);
        };
        if attempts >= self.max_attempts {
            return Err(Stop::Spent);
        }
        if let Some(asked) = asked.filter(|a| *a > self.max_asked_wait) {
            return Err(Stop::AskedTooLong(asked));
        }
        let backoff = self.backoff(attempts);
        let wait = backoff.max(asked.unwrap_or_default());
        if let Some(deadline) = self.deadline {
            // Saturating: a `Retry-After` of u64::MAX seconds must end the tries, not panic.
            let past = |wait: Duration| elapsed.saturating_add(wait) >= deadline;
            if past(wait) {
                // Blame the server's wait only when it, not the backoff, passed the deadline.
                return Err(match asked {
                    Some(asked) if past(asked) && !past(backoff) => Stop::AskedTooLong(asked),
                    _ => Stop::Deadline,
                });
            }
        }
        Ok(wait)
    }

    /// Tries `attempt` until it succeeds or [`RetryPolicy::next`] says stop. `attempt` gets
    /// the time left before the deadline (`None` without one), to use as the try's timeout;
    /// `verdict` says whether a failure is worth another try; `waited` hears of each wait
    /// before it is made (to count it).
    ///
    /// # Errors
    /// [`GaveUp`] with the last failure, the tries made and why they stopped.
    pub(crate) async fn run<T, E, F, Fut>(
        &self,
        timer: &dyn Timer,
        mut attempt: F,
        verdict: impl Fn(&E) -> Verdict,
        mut waited: impl FnMut(Duration),
    ) -> Result<T, GaveUp<E>>
    where
        F: FnMut(Option<Duration>) -> Fut,
        Fut: Future<Output = Result<T, E>>,
    {
        let mut attempts = 0;
        loop {
            let left = self.deadline.map(|d| d.saturating_sub(timer.elapsed()));
            if left == Some(Duration::ZERO) {
                return Err(GaveUp {
                    last: None,
                    attempts,
                    elapsed: timer.elapsed(),
                    why: Stop::Deadline,
                });
            }
            attempts += 1;
            let failure = match attempt(left).await {
                Ok(value) => return Ok(value),
                Err(failure) => failure,
            };
            match self.next(attempts, timer.elapsed(), verdict(&failure)) {
                Ok(wait) => {
                    waited(wait);
                    timer.wait(wait).await;
                }
                Err(why) => {
                    return Err(GaveUp {
                        last: Some(failure),
                        attempts,
                        elapsed: timer.elapsed(),
                        why,
                    });
                }
            }
        }
    }
}

/// What a failed try means for retrying; each edge decides it from its answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Worth another try (a broken connection, a 429, a 5xx); `asked` is the wait the
    /// server asked for, if it did.
    Retry {
        /// `Retry-After`, or a rate-limit reset.
        asked: Option<Duration>,
    },
    /// Retrying cannot help (any other answer, a TLS failure, a malformed request).
    Final,
}

/// Why the tries ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    /// The failure is final.
    Final,
    /// [`RetryPolicy::max_attempts`] tries were made.
    Spent,
    /// The server asked for a wait longer than [`RetryPolicy::max_asked_wait`], or one that
    /// would end past the deadline.
    AskedTooLong(Duration),
    /// The deadline passed, or the next backoff would end past it.
    Deadline,
}

/// How a request's tries ended without an answer worth having.
#[derive(Debug)]
pub(crate) struct GaveUp<E> {
    /// The last try's failure; `None` when the deadline had passed before a try could start.
    pub(crate) last: Option<E>,
    /// Tries made.
    pub(crate) attempts: u32,
    /// Time since the timer's start, when the tries ended.
    pub(crate) elapsed: Duration,
    /// Why they ended.
    pub(crate) why: Stop,
}

/// Parses a `Retry-After` value: delay-seconds (`120`) or an HTTP-date
/// (`Wed, 21 Oct 2015 07:28:00 GMT`, counted from `now`; a date in the past is 0 s).
/// `None` for anything else.
pub(crate) fn retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(now).unwrap_or_default())
}

/// The `Retry-After` of an answer's `headers` ([`retry_after`]), `None` without a usable one.
pub(crate) fn retry_after_header(headers: &http::HeaderMap, now: SystemTime) -> Option<Duration> {
    retry_after(headers.get(http::header::RETRY_AFTER)?.to_str().ok()?, now)
}

/// The clock of a request's tries (the registry: of a whole resolution): how long it has
/// run, and how to wait. Injectable so tests can check the waits (e.g. that `Retry-After`
/// was honoured) without waiting.
pub trait Timer: Send + Sync + std::fmt::Debug {
    /// Time since the timer started.
    fn elapsed(&self) -> Duration;
    /// Waits `delay` (the real clock sleeps; a test clock records it).
    fn wait(&self, delay: Duration) -> Pin<Box<dyn Future<Output = ()> + Send + '_>>;
}

/// The real clock: `tokio::time`.
#[derive(Debug)]
pub(crate) struct TokioTimer(tokio::time::Instant);

impl TokioTimer {
    /// A clock started now.
    pub(crate) fn start() -> Self {
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

#[cfg(test)]
mod tests {
    use super::*;

    const RETRY: Verdict = Verdict::Retry { asked: None };

    fn asked(secs: u64) -> Verdict {
        Verdict::Retry {
            asked: Some(Duration::from_secs(secs)),
        }
    }

    fn wait(secs: u64) -> Result<Duration, Stop> {
        Ok(Duration::from_secs(secs))
    }

    #[test]
    fn backoff_doubles_up_to_the_cap() {
        let p = RetryPolicy::registry();
        let secs: Vec<u64> = (1..=7).map(|r| p.backoff(r).as_secs()).collect();
        assert_eq!(secs, [1, 2, 4, 8, 16, 16, 16]);
        assert_eq!(p.backoff(60), Duration::from_secs(16));
    }

    #[test]
    fn reads_back_off_exponentially_then_give_up_after_four_tries() {
        let p = RetryPolicy::reads();
        let next: Vec<Result<Duration, Stop>> =
            (1..=4).map(|a| p.next(a, Duration::ZERO, RETRY)).collect();
        assert_eq!(next, [wait(1), wait(2), wait(4), Err(Stop::Spent)]);
        assert_eq!(p.next(1, Duration::ZERO, Verdict::Final), Err(Stop::Final));
    }

    #[test]
    fn the_servers_wait_is_honoured_when_longer_and_refused_when_too_long() {
        let reads = RetryPolicy::reads();
        let zero = Duration::ZERO;
        assert_eq!(
            reads.next(1, zero, asked(7)),
            wait(7),
            "Retry-After, not 1 s"
        );
        assert_eq!(
            reads.next(3, zero, asked(1)),
            wait(4),
            "the backoff, longer"
        );
        assert_eq!(reads.next(1, zero, asked(60)), wait(60));
        assert_eq!(
            reads.next(1, zero, asked(3600)),
            Err(Stop::AskedTooLong(Duration::from_secs(3600))),
            "an hour is not worth a runner"
        );
        // The registry honours any wait that fits in its deadline.
        let registry = RetryPolicy {
            deadline: Some(Duration::from_secs(300)),
            ..RetryPolicy::registry()
        };
        assert_eq!(registry.next(1, zero, asked(120)), wait(120));
    }

    #[test]
    fn the_deadline_ends_the_tries_and_blames_only_the_wait_that_passed_it() {
        let p = RetryPolicy::registry();
        let at = Duration::from_secs;
        assert_eq!(
            p.next(1, at(1), asked(120)),
            Err(Stop::AskedTooLong(at(120)))
        );
        assert_eq!(
            p.next(2, at(1), asked(u64::MAX)),
            Err(Stop::AskedTooLong(Duration::from_secs(u64::MAX)))
        );
        // Retry-After: 0 did not pass the deadline; the 4 s backoff did.
        let short = RetryPolicy {
            deadline: Some(at(5)),
            ..RetryPolicy::registry()
        };
        assert_eq!(short.next(3, at(3), asked(0)), Err(Stop::Deadline));
        assert_eq!(short.next(2, at(1), asked(0)), wait(2));
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

    /// A clock that records its waits and moves on by them.
    #[derive(Debug, Default)]
    struct Virtual(std::sync::Mutex<Vec<Duration>>);

    impl Timer for Virtual {
        fn elapsed(&self) -> Duration {
            self.0.lock().unwrap().iter().sum()
        }
        fn wait(&self, delay: Duration) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
            self.0.lock().unwrap().push(delay);
            Box::pin(std::future::ready(()))
        }
    }

    #[tokio::test]
    async fn run_tries_until_an_answer_and_reports_each_wait() {
        let timer = Virtual::default();
        let mut tries = 0;
        let mut heard = Vec::new();
        let answer = RetryPolicy::registry()
            .run(
                &timer,
                |left| {
                    tries += 1;
                    let n = tries;
                    async move {
                        assert!(left.is_some_and(|l| l <= Duration::from_secs(60)));
                        if n < 3 { Err(n) } else { Ok("answer") }
                    }
                },
                |_| RETRY,
                |w| heard.push(w),
            )
            .await;
        assert_eq!(answer.unwrap(), "answer");
        assert_eq!(heard, [Duration::from_secs(1), Duration::from_secs(2)]);
        assert_eq!(*timer.0.lock().unwrap(), heard);
    }

    #[tokio::test]
    async fn run_gives_up_with_the_last_failure_the_tries_and_why() {
        let timer = Virtual::default();
        let gave_up = RetryPolicy::reads()
            .run(&timer, |_| async { Err::<(), _>(503) }, |_| RETRY, |_| {})
            .await
            .unwrap_err();
        assert_eq!(
            (gave_up.last, gave_up.attempts, gave_up.why),
            (Some(503), 4, Stop::Spent)
        );
        let final_at_once = RetryPolicy::reads()
            .run(
                &timer,
                |_| async { Err::<(), _>(404) },
                |_| Verdict::Final,
                |_| {},
            )
            .await
            .unwrap_err();
        assert_eq!(
            (final_at_once.attempts, final_at_once.why),
            (1, Stop::Final)
        );
    }
}
