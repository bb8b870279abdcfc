//! The words of a `status` run beside its reports: its alarms (`fail-on`), the annotation of
//! a server on the old image, a refused chart history, a deadline past the calendar, and the
//! log line once the hub is read. Each problem is one function whose one `match` gives both
//! halves ([`Words`]).

use super::terminal_name;
use crate::render::window_words::{human, human_at_most, servers_words};
use crate::render::words::Words;
use crate::status::classify::{Alarm, Basis, Classified, DeadlineSettings, Totals, rfc3339};
use crate::status::history::{HistoryError, LINE_MAX_BYTES, MAX_POINTS};
use crate::support::sanitize;
use crate::support::text::Titled;
use crate::window::CullSettings;
use time::OffsetDateTime;

/// An alarm in words, one arm each: what the deployment's description says when it fired
/// (no count: a new status is posted only when the set of alarms changes), and what follows
/// its count in the run's error annotation ([`alarm_annotation`]). `promised`: the deadlines
/// were the release note's promise; else they were `status`'s own culler settings.
pub(crate) fn alarm_words(alarm: Alarm, promised: bool) -> [&'static str; 2] {
    match alarm {
        Alarm::Mismatch => [
            "a server started after the release runs the old digest",
            "server(s) started after the release run the old digest",
        ],
        Alarm::Overdue if promised => [
            "a server runs past the promised deadline",
            "stale server(s) are past the deadline the release note promised",
        ],
        Alarm::Overdue => [
            "a server runs past the deadline of status's own culler settings",
            "stale server(s) are past the deadline of status's own culler settings (no promise read from a release note)",
        ],
        Alarm::Orphan => [
            "a single-user pod the hub does not list",
            "single-user pod(s) run that the hub does not list",
        ],
    }
}

/// The error annotation of a run that fails on `alarms` (`fail-on`): its title and words,
/// each alarm counted in `t` and named as `fail-on` names it ([`alarm_words`]; `promised`
/// as there).
pub(crate) fn alarm_annotation(alarms: &[Alarm], t: &Totals, promised: bool) -> (String, Words) {
    let names: Vec<String> = alarms.iter().map(|a| a.name()).collect();
    let counted: Vec<String> = alarms
        .iter()
        .zip(&names)
        .map(|(a, name)| {
            let words = alarm_words(*a, promised)[1];
            format!("{} {words} ({name})", a.count(t))
        })
        .collect();
    (
        "Convergence alarm".to_string(),
        Words::new(format!(
            "the run fails because fail-on lists {}",
            names.join(", ")
        ))
        .help(format!(
            "{}: the status table counts them",
            counted.join("; ")
        )),
    )
}

/// The job summary's last lines of a run that fails on `fail-on`: the annotation's `words`
/// ([`alarm_annotation`]), so the summary says why the job failed.
pub(crate) fn alarm_summary(words: &Words) -> String {
    let help = (words.help.as_deref()).map_or_else(String::new, |h| format!(" {h}."));
    format!("\n**Failed:** {}.{help}\n", words.what)
}

/// The error annotation for one server that started after the release but runs the old
/// digest: title and words naming the server, the digest it runs and what to check.
///
/// `c` is the server as the log's table shows it: with `names` (include-names, or outside
/// Actions) the hub's names and the pod's; without, [`super::without_names`]' `user N`
/// alias and no pod name (KubeSpawner's `jupyter-<user>` embeds the user's name), with where
/// to look the pod up: `kubectl get pods` in `query`'s namespace with its selector, or
/// include-names.
pub(crate) fn mismatch_annotation(
    c: &Classified,
    names: bool,
    query: Option<&crate::status::kube::PodQuery>,
) -> (String, Words) {
    let digest = c
        .pod
        .as_ref()
        .and_then(|p| p.digest.as_deref())
        .unwrap_or_default();
    let who = if names {
        let pod = c
            .pod
            .as_ref()
            .and_then(|p| p.pod.as_ref())
            .map_or_else(|| "?".to_string(), |p| sanitize::log_line(&p.name, 253));
        format!(
            "pod {pod} (user {}, server {})",
            terminal_name(&c.server.user),
            terminal_name(&c.server.name),
        )
    } else {
        let server = if c.server.name.is_empty() {
            "default server".to_string()
        } else {
            terminal_name(&c.server.name)
        };
        format!("{} ({server})", terminal_name(&c.server.user))
    };
    let look_up = match (names, query) {
        (true, _) => String::new(),
        (false, Some(q)) => format!(
            "; names are left out of the log: run status with include-names: true, or kubectl get pods -n {} -l {} in a terminal, to see which user and pod",
            q.namespace,
            q.selector()
        ),
        (false, None) => "; names are left out of the log: run status with include-names: true to see which user and pod".to_string(),
    };
    (
        "Server on the old image".to_string(),
        Words::new(format!(
            "{who} started after the release but runs {}",
            super::short_digest(digest)
        ))
        .help(format!(
            "the node did not pull the new image (the pod runs {digest}): check singleuser.image.pullPolicy (Always for a tag such as :latest), the KubeSpawner version (before 6.2 it set IfNotPresent), and any registry mirror between the nodes and the registry; then stop the server so it starts again on the new image{look_up}",
        )),
    )
}

/// What a `status` run says of the settings its deadlines follow ([`deadline_basis`]): a
/// note in the log, or a warning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum BasisWords {
    /// A plain line: the deadlines follow `status`'s own settings, the note recording none.
    Note(Words),
    /// A warning annotation: `status`'s own settings differ from the promise, or the note's
    /// record was refused.
    Warning(DeadlinesWarning),
}

/// A warning about the settings the deadlines follow, titled `Convergence deadlines`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DeadlinesWarning(pub(crate) Words);

impl std::fmt::Display for DeadlinesWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl Titled for DeadlinesWarning {
    fn title(&self) -> &str {
        "Convergence deadlines"
    }
}

/// Culler settings in words, with the hub's size and slow-stop timeout when given: `timeout
/// 1h, every 10m, max age none[, hub size 300 servers][, slow-stop timeout 10s]`, or
/// `culling off`.
fn settings_words(culler: &CullSettings, servers: Option<u64>, slow_stop: Option<u64>) -> String {
    if !culler.enabled {
        return "culling off".to_string();
    }
    let mut words = culler.to_string();
    if let Some(servers) = servers {
        words.push_str(&format!(", hub size {}", servers_words(servers)));
    }
    if let Some(secs) = slow_stop {
        words.push_str(&format!(", slow-stop timeout {}", human(secs)));
    }
    words
}

/// What a run says of the settings its deadlines follow (`used`, from
/// [`crate::status::classify::deadline_basis`]): nothing when they are the release note's
/// and `status`'s own agree; a warning naming both when they differ, or when the note's
/// record was refused; a note when the deadlines follow `status`'s own settings because no
/// note was read or it records none.
pub(crate) fn deadline_basis(used: &DeadlineSettings) -> Option<BasisWords> {
    let scale = &used.scale;
    let slow_stop = scale.servers.map(|_| scale.slow_stop_timeout_secs);
    let own = settings_words(&used.culler, scale.servers, slow_stop);
    let warning = |words| Some(BasisWords::Warning(DeadlinesWarning(words)));
    match &used.basis {
        Basis::Promised { own: None, .. } => None,
        Basis::Promised {
            promise,
            own: Some((culler, given)),
        } => {
            let promised_slow_stop = promise.scale.map(|s| s.slow_stop_timeout_secs);
            // The slow-stop timeout counts against a promise with a hub size, given or not.
            let slow_stop = (promised_slow_stop.is_some() || given.servers.is_some())
                .then_some(given.slow_stop_timeout_secs);
            warning(
            Words::new("the deadlines follow the release note's promise; status's own culler settings differ")
                .help(format!(
                    "the release note promised its deadlines from {}; status was given {}. overdue and the deadlines are judged by the promise; if the hub's settings changed since, run announce again with them to restate the promise",
                    settings_words(&promise.culler, promise.scale.map(|s| s.servers), promised_slow_stop),
                    settings_words(culler, given.servers, slow_stop),
                )),
            )
        }
        Basis::Refused => warning(
            Words::new("the release note's recorded culler settings (promise=) are malformed: refused")
                .help(format!(
                    "its hidden second line was edited; the deadlines follow status's own settings ({own}), so give status the hub's settings, or restore the line as announce wrote it"
                )),
        ),
        Basis::NotRecorded | Basis::NoNote => Some(BasisWords::Note(
            Words::new(format!(
                "note: the deadlines follow status's own culler settings: {}",
                match used.basis {
                    Basis::NoNote => "no release note was read",
                    _ => "the release note, by an earlier announce, records none",
                }
            ))
            .help(format!(
                "if the hub's culler settings differ from status's ({own}), give status the hub's"
            )),
        )),
    }
}

/// The warning when the convergence comment's history line is refused: which rule it
/// broke; the chart starts again from this run, the table is unaffected.
pub(crate) fn history_refused(e: &HistoryError) -> Words {
    let (why, rule) = match e {
        HistoryError::Repeated => (
            "it appears more than once".to_string(),
            "status writes one history line".to_string(),
        ),
        HistoryError::TooLong(n) => (
            format!("it is {n} bytes long"),
            format!("at most {LINE_MAX_BYTES} bytes are read"),
        ),
        HistoryError::TooManyPoints => (
            format!("it holds more than {MAX_POINTS} points"),
            format!("at most {MAX_POINTS} points are kept"),
        ),
        HistoryError::Malformed(0) => (
            "it is not in the shape status writes".to_string(),
            "status writes the points after the prefix, each separated by a space".to_string(),
        ),
        HistoryError::Malformed(i) => (
            format!("point {i} is malformed"),
            "each point is time/stale/running/due in digits (due may be -)".to_string(),
        ),
        HistoryError::OutOfOrder(i) => (
            format!("point {i} is out of order"),
            "each point is after the release, before this run and after the point before it"
                .to_string(),
        ),
        HistoryError::FarDeadline(i) => (
            format!("point {i} states a far deadline"),
            "a point's deadline is at most twenty years after it".to_string(),
        ),
        HistoryError::BadCount(i) => (
            format!("point {i} counts too many servers"),
            format!(
                "a point counts at most as many stale servers as running, and at most {} servers",
                crate::window::MAX_HUB_SERVERS
            ),
        ),
    };
    Words::new(format!(
        "the progress chart's history in the convergence comment was ignored: {why}"
    ))
    .help(format!(
        "{rule}, so it may have been edited by hand; the chart starts again from this run, the counts are unaffected"
    ))
}

/// The error when the worst case at the hub's size read at run time (`scale`: the servers
/// running, or `hub-size` when larger) puts a deadline, `longest` seconds after `now`, past
/// [`crate::window::LAST_DATE`]: no deadline could be stated
/// ([`crate::window::fits_calendar`]). `now_given`: the clock came from `--now` (a hidden
/// option), which is then named among what to check.
pub(crate) fn beyond_calendar(
    now: OffsetDateTime,
    now_given: bool,
    scale: &crate::window::HubScale,
    longest: u64,
) -> Words {
    let (clock, check_now) = match now_given {
        true => ("now (--now)", "now (--now), "),
        false => ("this run's clock", ""),
    };
    Words::new(format!(
        "the convergence deadline falls past {}, the last date a deadline can be written for",
        crate::window::LAST_DATE,
    ))
    .help(format!(
        "the worst case of a cull pass on a hub of {} (those running now, or hub-size when larger; slow-stop timeout {}) puts it up to {} after {clock} {}: check {check_now}hub-size, slow-stop-timeout and the idle culler settings",
        servers_words(scale.servers),
        human(scale.slow_stop_timeout_secs),
        human_at_most(longest),
        rfc3339(now),
    ))
}

/// The debug line once the hub is read: how many servers of how many users, in how many
/// requests.
pub(crate) fn hub_read(servers: usize, users: u64, requests: u32) -> String {
    format!("status: {servers} servers of {users} users in {requests} requests")
}
