//! The support layer: the edges and helpers every stage may use, importing nothing above
//! it. [`github`] is the GitHub REST client; [`log`] the Actions log and workflow-command
//! writer; [`secrets`] the one secret type and the one engine that masks and redacts
//! secrets; [`retry`] the one retry policy of every edge's reads; [`sanitize`] and [`text`]
//! pure text helpers; [`files`] the one bounded reader of files a user names (a regular
//! file only, up to a cap); [`stdout`] the one writer of stdout (a closed pipe
//! or a full disk never panics); [`tls`] the one TLS configuration of the HTTP clients; [`duration`] the
//! one duration parser of the inputs; [`time`] the one parser of RFC 3339 times from outside
//! (in UTC, years 0000 to 9999) and the one writer of times for machines.

pub(crate) mod duration;
pub(crate) mod files;
pub(crate) mod github;
pub(crate) mod kube_name;
pub(crate) mod log;
mod pow;
pub(crate) mod retry;
pub(crate) mod sanitize;
pub(crate) mod secrets;
pub(crate) mod stdout;
pub(crate) mod text;
pub(crate) mod time;
pub(crate) mod tls;
pub(crate) mod url;

/// The value behind `mutex`, also after a panic elsewhere poisoned it: the log and stdout go
/// on.
pub(crate) fn locked<T>(mutex: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
