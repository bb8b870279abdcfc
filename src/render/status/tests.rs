//! `status`'s words, against one scenario of every kind of server (hostile names
//! included): whole outputs by snapshot, every message's shape by [`assert_shape`].

use super::*;
use crate::render::words::{Words, assert_shape};
use crate::status::classify::{Alarm, SettingsModel, Totals, classify};
use crate::status::history::{History, HistoryError, Point, with_this_run};
use crate::status::{Server, ServerTimes};
use crate::window::CullSettings;
use time::macros::datetime;

pub(crate) const RELEASE: OffsetDateTime = datetime!(2026-11-30 12:00 UTC);
pub(crate) const NOW: OffsetDateTime = datetime!(2026-11-30 13:00 UTC);

pub(crate) fn digest() -> Digest {
    Digest::parse("sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08")
        .unwrap()
}

pub(crate) fn at(h: u8, m: u8) -> Option<OffsetDateTime> {
    Some(datetime!(2026-11-30 00:00 UTC).replace_time(time::Time::from_hms(h, m, 0).unwrap()))
}

pub(crate) fn server(
    user: &str,
    name: &str,
    started: Option<OffsetDateTime>,
    last: Option<OffsetDateTime>,
) -> Server {
    Server {
        user: user.into(),
        name: name.into(),
        times: ServerTimes {
            started,
            last_activity: last,
        },
        ready: true,
        pending: None,
    }
}

/// `servers` classified at [`NOW`] for a release at [`RELEASE`], with the chart's default
/// culler settings.
pub(crate) fn at_defaults(servers: Vec<Server>) -> Classification {
    classify(
        servers,
        None,
        RELEASE,
        NOW,
        &SettingsModel(CullSettings::default()),
    )
}

/// One server of each kind, with hostile names: a newline and a workflow command, ANSI
/// escapes, Markdown and a mention, a right-to-left override.
pub(crate) fn scenario() -> Classification {
    let mut starting = server("erin", "", at(12, 59), None);
    starting.ready = false;
    starting.pending = Some(Pending::Spawn);
    let servers = vec![
        server("alice", "", at(12, 30), at(12, 59)),
        server("bob\n::error::pwned", "", at(9, 0), at(11, 55)),
        server("\u{1b}[31mcarol\u{1b}[0m", "gpu", at(9, 0), at(11, 30)),
        server(
            "**dave** @octo-org/security",
            "[x](https://evil.example)",
            at(9, 0),
            at(12, 58),
        ),
        server("fred\u{202e}gnp.exe", "", at(8, 0), at(10, 0)),
        server(
            "::error title=x::boom",
            "##[warning]w",
            at(9, 0),
            at(11, 58),
        ),
        starting,
    ];
    at_defaults(servers)
}

pub(crate) fn facts<'a>(
    c: &'a Classification,
    digest: Option<&'a Digest>,
    include_names: bool,
) -> StatusFacts<'a> {
    StatusFacts {
        hub_url: "https://hub.example.org",
        digest,
        released_at: RELEASE,
        now: NOW,
        classification: c,
        promised: true,
        shifted: false,
        include_names,
        history: None,
    }
}

pub(crate) const HOSTILE: [&str; 6] = ["bob", "carol", "dave", "fred", "evil.example", "boom"];

/// A history of runs at the given `(hour, minute, stale)`, 7 running, each stating
/// converged-by 14:30.
pub(crate) fn history_of(runs: &[(u8, u8, u64)]) -> History {
    let mut h = History::default();
    for &(hh, mm, stale) in runs {
        h.push(Point {
            at: at(hh, mm).unwrap(),
            stale,
            running: 7,
            due: Some(datetime!(2026-11-30 14:30 UTC)),
        });
    }
    h
}

#[test]
fn terminal_table_is_sorted_by_deadline_with_names_neutralised() {
    let c = scenario();
    let table = table(&facts(&c, None, false)).unwrap();
    assert!(!table.contains('\u{1b}') && !table.contains('\u{202e}'));
    assert!(table.lines().all(|l| !l.trim_start().starts_with("::")));
    assert!(!table.contains("##["));
    insta::assert_snapshot!(table);
}

#[test]
fn json_document() {
    let c = scenario();
    let text = json(&facts(&c, Some(&digest()), false));
    assert!(!text.contains("##[") && !text.contains('\u{1b}') && !text.contains('\u{202e}'));
    insta::assert_snapshot!(text);
}

#[test]
fn summary_without_names_names_nobody() {
    let c = scenario();
    let summary = job_summary(&facts(&c, Some(&digest()), false)).unwrap();
    for name in HOSTILE.iter().chain(&["alice", "erin"]) {
        assert!(!summary.contains(name), "{name} in\n{summary}");
    }
    insta::assert_snapshot!(summary);
}

#[test]
fn summary_with_names_escapes_them() {
    let c = scenario();
    insta::assert_snapshot!(job_summary(&facts(&c, None, true)).unwrap());
}

#[test]
fn comment_carries_marker_and_numbers() {
    let c = scenario();
    let d = digest();
    let body = comment(&facts(&c, Some(&d), false), &d).unwrap();
    let marker = crate::render::marker_digest(MarkerKind::ConvergenceComment, &body);
    assert_eq!(marker.as_ref(), Some(&d));
    for name in HOSTILE {
        assert!(!body.contains(name), "{name} in\n{body}");
    }
    insta::assert_snapshot!(body);
}

#[test]
fn converged_summary() {
    let c = at_defaults(vec![server("alice", "", at(12, 30), at(12, 59))]);
    insta::assert_snapshot!(job_summary(&facts(&c, None, false)).unwrap());
}

#[test]
fn culling_disabled_and_max_age_are_said() {
    let servers = || {
        vec![
            server("a", "", at(9, 0), at(11, 0)),
            server("b", "", at(9, 0), at(12, 59)),
        ]
    };
    let disabled = classify(
        servers(),
        None,
        RELEASE,
        NOW,
        &SettingsModel(CullSettings {
            enabled: false,
            ..CullSettings::default()
        }),
    );
    let max_age = classify(
        servers(),
        None,
        RELEASE,
        NOW,
        &SettingsModel(CullSettings {
            max_age_secs: 8 * 3600,
            ..CullSettings::default()
        }),
    );
    insta::assert_snapshot!(format!(
        "{}\n---\n{}",
        job_summary(&facts(&disabled, None, false)).unwrap(),
        job_summary(&facts(&max_age, None, false)).unwrap()
    ));
}

#[test]
fn named_rows_are_capped() {
    let servers: Vec<Server> = (0..NAMED_ROWS_MAX + 5)
        .map(|i| server(&format!("user{i:03}"), "", at(9, 0), at(11, 0)))
        .collect();
    let c = at_defaults(servers);
    let summary = job_summary(&facts(&c, None, true)).unwrap();
    assert_eq!(summary.matches("| user").count(), NAMED_ROWS_MAX);
    assert!(summary.contains("…and 5 more"), "{summary}");
}

#[test]
fn json_names_are_the_hubs_exact_names_and_the_text_is_safe_for_the_log() {
    let c = scenario();
    let text = json(&facts(&c, None, false));
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut users: Vec<&str> = doc["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["user"].as_str().unwrap())
        .collect();
    let mut hub: Vec<&str> = c.servers.iter().map(|s| s.server.user.as_str()).collect();
    users.sort_unstable();
    hub.sort_unstable();
    assert_eq!(users, hub, "the exact names, for scripts");
    let boom = doc["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["user"] == "::error title=x::boom")
        .unwrap();
    assert_eq!(boom["server"], "##[warning]w");
    assert_eq!(boom["server_display"], "##\u{2060}[warning]w");
    // Printed as it is, nothing in it is a workflow command or hidden text.
    assert!(!text.contains("##["), "{text}");
    assert!(
        !text.lines().any(|l| l.trim_start().starts_with("::")),
        "{text}"
    );
    assert!(
        !text
            .chars()
            .any(|c| c == '\u{202e}' || c == '\u{1b}' || crate::support::sanitize::is_invisible(c)),
        "{text}"
    );
}

#[test]
fn wide_and_combining_names_keep_the_table_aligned() {
    let servers = vec![
        server("山田太郎", "", at(9, 0), at(11, 0)),
        server("e\u{301}mile", "ノート", at(9, 0), at(11, 10)),
        server("ab", "", at(9, 0), at(11, 20)),
    ];
    let c = at_defaults(servers);
    let table = table(&facts(&c, None, false)).unwrap();
    // Every row's STATE starts at the same terminal column as the header's.
    let columns: Vec<usize> = table
        .lines()
        .take(4)
        .map(|line| {
            let at = line
                .find("STATE")
                .or_else(|| line.find("stale idle"))
                .unwrap_or_else(|| panic!("no state in {line:?}"));
            unicode_width::UnicodeWidthStr::width(&line[..at])
        })
        .collect();
    assert_eq!(columns, vec![columns[0]; 4], "\n{table}");
}

#[test]
fn the_terminal_says_a_shifted_list_and_pending_servers_as_the_summary_does() {
    // Only a server starting, pending since before the release: it may be on the old image.
    let mut pending = server("gina", "", at(11, 58), None);
    pending.ready = false;
    pending.pending = Some(Pending::Spawn);
    let c = at_defaults(vec![server("alice", "", at(12, 30), at(12, 59)), pending]);
    assert_eq!((c.totals.pending_stale, c.totals.converged), (1, false));
    let shifted = StatusFacts {
        shifted: true,
        ..facts(&c, None, false)
    };
    let table = table(&shifted).unwrap();
    // The summary's words, without the Markdown emphasis.
    let summary = job_summary(&shifted).unwrap();
    for said in [
        "Not converged yet. 1 pending server may still be on the previous image.",
        "The hub's list changed while it was read; the next run gives exact numbers.",
    ] {
        assert!(table.contains(said), "{said:?} not in\n{table}");
        assert!(summary.replace("**", "").contains(said), "{summary}");
    }
    insta::assert_snapshot!(table);
}

#[test]
fn the_terminal_says_overdue_servers_and_the_deadlines_in_the_summarys_words() {
    let c = scenario();
    let facts = facts(&c, None, false);
    let table = table(&facts).unwrap();
    let summary = job_summary(&facts).unwrap().replace("**", "");
    // Every paragraph after the counts table of the summary is in the terminal's text.
    let convergence = summary
        .split_once("| Pending (starting or stopping; counted apart) | 1 |\n\n")
        .expect("the counts table")
        .1;
    assert!(table.ends_with(convergence), "{table}\n---\n{convergence}");
}

/// An overdue server is said as overdue, not as to come; the overdue paragraph names the
/// settings the deadline came from: the release note's promise, or, none read, status's own.
#[test]
fn a_deadline_already_passed_is_said_as_overdue_not_as_to_come() {
    // Idle since 11:00, started before the release: due about 12:10, overdue at 13:00.
    let c = at_defaults(vec![server("a", "", at(9, 0), at(11, 0))]);
    assert_eq!(c.totals.overdue, 1);
    for (promised, name) in [
        (
            true,
            "a_deadline_already_passed_is_said_as_overdue_not_as_to_come",
        ),
        (
            false,
            "without_a_promise_the_overdue_paragraph_names_the_settings_status_was_given",
        ),
    ] {
        let facts = StatusFacts {
            promised,
            ..facts(&c, None, false)
        };
        let said = format!(
            "{}\n---\n{}",
            job_summary(&facts).unwrap(),
            table(&facts).unwrap()
        );
        insta::assert_snapshot!(name, said);
    }
}

/// Every warning, annotation and refusal a status run words, one of each variant (each
/// alarm alone and all together; a mismatched server named and not): each has the one
/// shape, and all read as the snapshot shows.
#[test]
fn every_warning_and_annotation_has_the_one_shape() {
    let mut said: Vec<(String, Words)> = Vec::new();
    // A worst case whose deadline falls past the calendar, with and without `--now`.
    let scale = crate::window::HubScale {
        servers: 1_000_000,
        slow_stop_timeout_secs: crate::window::MAX_DURATION_SECS,
    };
    let worst = crate::window::at_scale(&CullSettings::default(), &scale);
    let longest = worst.idle_secs.unwrap();
    assert!(!crate::window::fits_calendar(NOW, longest));
    for now_given in [true, false] {
        let words = beyond_calendar(NOW, now_given, &scale, longest);
        said.push((
            format!("beyond the calendar, now given: {now_given}"),
            words,
        ));
    }
    for e in [
        HistoryError::Repeated,
        HistoryError::TooLong(4000),
        HistoryError::TooManyPoints,
        HistoryError::Malformed(0),
        HistoryError::Malformed(3),
        HistoryError::OutOfOrder(2),
        HistoryError::FarDeadline(4),
        HistoryError::BadCount(1),
    ] {
        said.push((format!("history refused: {e:?}"), history_refused(&e)));
    }
    let t = Totals {
        mismatch: 1,
        overdue: 2,
        orphans: 3,
        ..Totals::default()
    };
    let all = <Alarm as clap::ValueEnum>::value_variants();
    for alarms in all.iter().map(std::slice::from_ref).chain([all]) {
        let (title, words) = alarm_annotation(alarms, &t, true);
        said.push((format!("{title}: {alarms:?}"), words));
    }
    // Deadlines from status's own settings (the note records none): overdue says so.
    let (title, words) = alarm_annotation(&[Alarm::Overdue], &t, false);
    said.push((format!("{title}: [Overdue], not promised"), words));
    // A server on the old image, as the log's table names it: hidden without include-names
    // (with or without the pod query to look it up), named with it.
    let mismatched = |user: &str, name: &str| Classified {
        server: server(user, name, at(12, 30), at(12, 40)),
        state: State::Mismatch,
        deadline: None,
        in_use_deadline: None,
        overdue: false,
        pod: Some(crate::status::classify::PodFacts {
            pod: Some(crate::status::Pod {
                name: format!("jupyter-{user}"),
                user: Some(user.into()),
                server: Some(name.into()),
                image_id: Some(format!("ghcr.io/org/lab@{}", digest())),
                started: at(12, 30),
            }),
            digest: Some(digest().to_string()),
            unknown: None,
        }),
    };
    let classification = Classification {
        servers: vec![mismatched("mism", ""), mismatched("other", "gpu")],
        ..at_defaults(Vec::new())
    };
    let query = crate::status::kube::PodQuery {
        namespace: "hub-ns".into(),
        release: "hub".into(),
    };
    let hidden = without_names(&classification);
    for (c, query) in hidden.servers.iter().zip([Some(&query), None]) {
        let (title, words) = mismatch_annotation(c, false, query);
        let text = words.to_string();
        assert!(!text.contains("mism") && !text.contains("other"), "{text}");
        said.push((format!("{title}, names hidden"), words));
    }
    let (title, words) = mismatch_annotation(&classification.servers[0], true, Some(&query));
    said.push((format!("{title}, named"), words));
    assert_all_shaped("every_warning_and_annotation", &said);
}

/// Every [`HubError`] in words, one of each variant (and of each kind of status).
#[test]
fn every_hub_error_has_the_one_shape() {
    use crate::status::hub::Body;
    use crate::status::hub::Fault;
    use crate::status::hub::HubError;
    use crate::status::hub::WrongAnswer;
    use crate::support::text::Unreadable;
    use std::time::Duration;
    let url = "https://hub.example.org/hub/api/users?state=active&offset=0&limit=200".to_string();
    let status = |status, hub_message: Option<&str>, tries| HubError::Status {
        url: url.clone(),
        status,
        hub_message: hub_message.map(Into::into),
        tries,
    };
    let malformed = |fault| HubError::Malformed {
        url: url.clone(),
        fault: Box::new(fault),
    };
    let errors = [
        HubError::Unreachable {
            url: url.clone(),
            cause: "Connection refused (os error 111)".into(),
            tries: 4,
        },
        HubError::Client {
            url: url.clone(),
            cause: "relative URL without a base".into(),
        },
        HubError::PlainHttpOnTls { url: url.clone() },
        HubError::Timeout {
            url: url.clone(),
            after: Duration::from_secs(30),
        },
        HubError::Timeout {
            url: url.clone(),
            after: Duration::from_millis(1500),
        },
        HubError::Unauthorized { url: url.clone() },
        HubError::NotByHub {
            url: url.clone(),
            status: 401,
            answer: Body::Html,
            challenge: Some("Basic".into()),
        },
        HubError::NotByHub {
            url: url.clone(),
            status: 401,
            answer: Body::Empty,
            challenge: None,
        },
        HubError::MissingScope {
            scopes: vec!["read:servers".into()],
            url: url.clone(),
        },
        HubError::MissingScope {
            scopes: vec![],
            url: url.clone(),
        },
        HubError::MissingScope {
            scopes: vec!["list:users".into(), "admin:users".into()],
            url: url.clone(),
        },
        HubError::NotByHub {
            url: url.clone(),
            status: 403,
            answer: Body::NotJson,
            challenge: None,
        },
        HubError::NotByHub {
            url: url.clone(),
            status: 403,
            answer: Body::OtherJson,
            challenge: None,
        },
        HubError::WrongBase {
            url: url.clone(),
            answer: WrongAnswer::HtmlPage,
        },
        HubError::WrongBase {
            url: url.clone(),
            answer: WrongAnswer::NotFound,
        },
        HubError::WrongBase {
            url: url.clone(),
            answer: WrongAnswer::Redirect {
                location: Some("/hub/login".into()),
            },
        },
        HubError::WrongBase {
            url: url.clone(),
            answer: WrongAnswer::Redirect { location: None },
        },
        HubError::TooOld { url: url.clone() },
        malformed(Fault::Shape(Unreadable {
            field: "items".into(),
            missing: true,
        })),
        malformed(Fault::Shape(Unreadable {
            field: "items[0].servers.(server)".into(),
            missing: false,
        })),
        malformed(Fault::Shape(Unreadable {
            field: ".".into(),
            missing: false,
        })),
        malformed(Fault::TooLarge { limit: 16 }),
        malformed(Fault::EndlessPages { pages: 10_000 }),
        malformed(Fault::NextGoesBack {
            offset: 200,
            next_offset: 0,
            next_limit: 200,
        }),
        malformed(Fault::Time {
            index: 1,
            whose: Some(("bob".into(), "gpu".into())),
            field: "started",
            text: "10000-01-01T00:00:00Z".into(),
            error: crate::support::time::TimeError::LongYear,
        }),
        malformed(Fault::Time {
            index: 1,
            whose: None,
            field: "started",
            text: "10000-01-01T00:00:00Z".into(),
            error: crate::support::time::TimeError::LongYear,
        }),
        HubError::NotJson {
            url: url.clone(),
            detail: "expected ident at line 1 column 2".into(),
        },
        status(502, None, 4),
        status(429, Some("Too many requests"), 4),
        status(400, None, 1),
        status(503, Some("Service Unavailable"), 4),
        status(500, None, 1),
    ];
    let said: Vec<(String, Words)> = errors
        .iter()
        .map(|e| {
            let case = format!("{e:?}");
            let case = case
                .split([' ', '('])
                .next()
                .unwrap_or_default()
                .to_string();
            assert_eq!(
                e.to_string(),
                hub_words::hub_error(e).to_string(),
                "Display"
            );
            (case, hub_words::hub_error(e))
        })
        .collect();
    assert_all_shaped("every_hub_error", &said);
}

/// Asserts every message of `said` has the one shape, then snapshots them all as `name`,
/// each after its case.
fn assert_all_shaped(name: &str, said: &[(String, Words)]) {
    for (_, words) in said {
        assert_shape(words);
    }
    let text: Vec<String> = said
        .iter()
        .map(|(case, w)| {
            format!(
                "{case}:
{w}"
            )
        })
        .collect();
    insta::assert_snapshot!(name, text.join("\n\n"));
}

#[test]
fn hub_times_at_the_calendars_ends_are_reported_as_they_are() {
    use crate::support::time::{FIRST, LAST};
    // The hub's times as the hub edge takes them (UTC, years 0000 to 9999): a server idle
    // since the first instant is stale and overdue; one started on the last second, later
    // than the run's clock, is stale with no deadline the calendar holds. Every time is
    // written, none panics.
    let c = at_defaults(vec![
        server("early", "", Some(FIRST), Some(FIRST)),
        server("late", "", Some(LAST), Some(LAST)),
    ]);
    let facts = facts(&c, None, true);
    let json: serde_json::Value = serde_json::from_str(&json(&facts)).unwrap();
    let times: Vec<String> = json["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            format!(
                "{} {} {} {} {}",
                s["user"], s["state"], s["started"], s["last_activity"], s["deadline"]
            )
        })
        .collect();
    insta::assert_snapshot!(times.join("\n"), @r#"
"early" "stale-idle" "0000-01-01T00:00:00Z" "0000-01-01T00:00:00Z" "0000-01-01T01:10:00Z"
"late" "stale-active" "9999-12-31T23:59:59Z" "9999-12-31T23:59:59Z" null
"#);
    assert!(table(&facts).is_ok() && job_summary(&facts).is_ok());
}

#[test]
fn the_summary_and_the_comment_draw_the_history_against_the_deadline() {
    let c = scenario();
    let d = digest();
    let h = with_this_run(
        Some(history_of(&[(12, 5, 7), (12, 30, 6), (12, 45, 6)])),
        &c.totals,
        NOW,
    );
    assert_eq!(
        h.points().len(),
        3,
        "12:45 repeats the numbers of 12:30: no point"
    );
    let facts = StatusFacts {
        history: Some(&h),
        ..facts(&c, Some(&d), false)
    };
    let summary = job_summary(&facts).unwrap();
    let body = comment(&facts, &d).unwrap();
    // The comment holds the history it was drawn from, on its third line.
    assert_eq!(
        body.lines().nth(2),
        Some(crate::status::history::line(&h).as_str())
    );
    assert!(body.contains(summary.split_once("```mermaid").unwrap().1));
    insta::assert_snapshot!(summary);
}

#[test]
fn a_routine_release_or_a_first_run_shows_the_progress_line_without_a_chart() {
    let c = scenario();
    let first = with_this_run(None, &c.totals, NOW);
    for history in [None, Some(&first)] {
        let facts = StatusFacts {
            history,
            ..facts(&c, None, false)
        };
        assert_eq!(chart(&facts), None);
        let summary = job_summary(&facts).unwrap();
        assert!(!summary.contains("mermaid"), "{summary}");
        assert!(
            summary.contains(
                "**1/7** on the new image `██░░░░░░░░░░░░░░░░░░` 14%; idle ones by **2026-11-30 13:08 UTC**"
            ),
            "{summary}"
        );
    }
}

#[test]
fn the_progress_bar_is_never_fuller_than_the_share() {
    for (updated, running, filled, percent) in [
        (0, 1, 0, 0),
        (1, 3, 6, 33),
        (56, 57, 19, 98),
        (57, 57, 20, 100),
        (0, 0, 0, 0),
    ] {
        let t = Totals {
            updated,
            running,
            ..Totals::default()
        };
        let p = chart::progress(&t);
        assert_eq!(p.bar.chars().count(), 20);
        assert_eq!(p.bar.matches('█').count(), filled, "{updated}/{running}");
        assert_eq!(p.percent, percent, "{updated}/{running}");
    }
}

#[test]
fn the_totals_line_counts_pods_in_the_singular_and_the_plural() {
    let line = |orphans| {
        let totals = Totals {
            running: 2,
            updated: 1,
            mismatch: 1,
            orphans,
            evidence: Evidence::Digest,
            ..Totals::default()
        };
        let c = Classification {
            servers: Vec::new(),
            totals,
        };
        let text = table(&facts(&c, None, false)).unwrap();
        text.lines().next().unwrap().to_string()
    };
    insta::assert_snapshot!(format!("{}\n{}", line(1), line(2)));
}

/// The release's image as pods report it: `ghcr.io/org/lab` at `digest`.
fn lab(digest: &str) -> Option<String> {
    Some(format!("ghcr.io/org/lab@{digest}"))
}

/// Judged by digest, one server of each kind: updated (also under a mirror's name: a digest
/// names the content), on the old digest although started after the release, stale, a pod
/// the hub does not list, and an image unknown for each reason (no pod, no imageID yet, a
/// bare config ID, another digest of another repository, an unreadable ID).
pub(crate) fn digest_scenario() -> Classification {
    let old = old_digest();
    let pod = |user: &str, image_id: Option<String>| pod_of(user, image_id, at(9, 0));
    let after = |user: &str| server(user, "", at(12, 30), at(12, 59));
    let servers = vec![
        after("new"),
        after("mismatched"),
        server("stale", "", at(9, 0), at(11, 0)),
        after("no-pod"),
        after("creating"),
        after("bare"),
        after("mirrored"),
        after("profile"),
        after("garbled"),
    ];
    let pods = vec![
        pod("new", lab(digest().as_str())),
        pod("mismatched", lab(&old)),
        pod("stale", lab(&old)),
        pod("creating", None),
        pod("bare", Some(old.clone())),
        pod(
            "mirrored",
            Some(format!("mirror.example/org/lab@{}", digest())),
        ),
        pod("profile", Some(format!("ghcr.io/org/other@{old}"))),
        pod("garbled", Some("ghcr.io/org/lab:latest".into())),
        pod("orphan", lab(&old)),
    ];
    by_digest(servers, pods)
}

/// A digest other than the release's: `sha256:` and 64 `e`s.
fn old_digest() -> String {
    "sha256:".to_string() + &"e".repeat(64)
}

/// The pod of `user`'s default server, started at `started`, reporting `image_id`.
fn pod_of(
    user: &str,
    image_id: Option<String>,
    started: Option<OffsetDateTime>,
) -> crate::status::Pod {
    crate::status::Pod {
        name: format!("jupyter-{user}"),
        user: Some(user.into()),
        server: Some(String::new()),
        image_id,
        started,
    }
}

/// `servers` classified by digest from `pods` (the release's digest, of `ghcr.io/org/lab`),
/// at the default culler settings.
fn by_digest(servers: Vec<Server>, pods: Vec<crate::status::Pod>) -> Classification {
    use crate::status::classify::{ImageTarget, PodEvidence};
    let evidence = PodEvidence {
        pods,
        target: ImageTarget {
            digests: vec![digest()],
            repository: Some("ghcr.io/org/lab".into()),
        },
        hub_read_at: NOW,
        pods_read_at: NOW,
    };
    let model = SettingsModel(CullSettings::default());
    classify(servers, Some(evidence), RELEASE, NOW, &model)
}

/// Issue 32 item 15: an image unknown is said with what to do for its reason. Running status
/// again helps only a container still being created; a bare config ID, another repository
/// or an unreadable imageID is judged by hand (docs/status-kubernetes.md); a missing pod
/// points at the inputs that select the pods.
#[test]
fn each_reason_an_image_is_unknown_is_said_with_what_to_do() {
    let c = digest_scenario();
    assert_eq!(c.totals.unknown, 5, "{:?}", c.totals);
    let facts = facts(&c, Some(digest_owned()), true);
    let summary = job_summary(&facts).unwrap();
    let table = table(&facts).unwrap();
    for text in [&summary, &table] {
        assert_eq!(text.matches("run status again").count(), 1, "{text}");
        assert_eq!(text.matches("by hand").count(), 3, "{text}");
        assert!(
            text.contains("check the namespace and helm-release inputs"),
            "{text}"
        );
    }
    insta::assert_snapshot!(format!("{summary}\n---\n{table}"));
}

/// Not converged with nothing stale or pending (one server on the old digest although
/// started after the release): the progress line says the others need a look, not that
/// pending ones (there are none) still settle.
#[test]
fn not_converged_without_stale_or_pending_servers_points_at_the_rows() {
    let old = old_digest();
    let servers = ["new", "mismatched"].map(|u| server(u, "", at(12, 30), at(12, 59)));
    let pods = vec![
        pod_of("new", lab(digest().as_str()), at(12, 30)),
        pod_of("mismatched", lab(&old), at(12, 30)),
    ];
    let c = by_digest(servers.to_vec(), pods);
    assert_eq!(
        (c.totals.mismatch, c.totals.pending),
        (1, 0),
        "{:?}",
        c.totals
    );
    let summary = job_summary(&facts(&c, Some(digest_owned()), false)).unwrap();
    assert!(!summary.contains("pending ones"), "{summary}");
    insta::assert_snapshot!(summary);
}

/// [`digest`], for facts that outlive a temporary.
fn digest_owned() -> &'static Digest {
    static DIGEST: std::sync::OnceLock<Digest> = std::sync::OnceLock::new();
    DIGEST.get_or_init(digest)
}

/// Issue 32 item 16: the `--json` document by digest, a pod of each kind (its shape is
/// checked against `docs/status.schema.json` by `tests/it/status_stdout.rs`, with the
/// by-start-time [`json_document`]'s and the binary's).
#[test]
fn json_document_by_digest() {
    let c = digest_scenario();
    insta::assert_snapshot!(json(&facts(&c, Some(digest_owned()), false)));
}

/// What a run says of the settings its deadlines follow, one case of each basis: nothing when
/// the promise and `status`'s settings agree, a warning naming both when they differ or the
/// record was refused, a note when `status`'s own settings are used.
#[test]
fn the_settings_the_deadlines_follow_are_said_once_in_the_one_shape() {
    use crate::status::classify::deadline_basis as basis;
    use crate::window::{HubScale, Promise, PromiseRecord, ScaleConfig};
    let promise = Promise {
        culler: CullSettings::default(),
        scale: Some(HubScale {
            servers: 300,
            slow_stop_timeout_secs: 10,
        }),
    };
    let fast = CullSettings {
        timeout_secs: 60,
        every_secs: 60,
        ..CullSettings::default()
    };
    let sized = ScaleConfig {
        servers: Some(40),
        ..ScaleConfig::default()
    };
    let unsized_ = ScaleConfig::default();
    let slow = ScaleConfig {
        slow_stop_timeout_secs: 30,
        ..ScaleConfig::default()
    };
    let off = CullSettings {
        enabled: false,
        ..CullSettings::default()
    };
    let cases = [
        (
            "promised, agreeing",
            Some(PromiseRecord::Recorded(promise)),
            CullSettings::default(),
            &unsized_,
        ),
        (
            "promised, differing",
            Some(PromiseRecord::Recorded(promise)),
            fast,
            &sized,
        ),
        (
            "promised, culling off here",
            Some(PromiseRecord::Recorded(promise)),
            off,
            &unsized_,
        ),
        (
            "promised, only the slow-stop timeout differing, no hub size given",
            Some(PromiseRecord::Recorded(promise)),
            CullSettings::default(),
            &slow,
        ),
        ("record refused", Some(PromiseRecord::Refused), fast, &sized),
        (
            "note without a record",
            Some(PromiseRecord::Absent),
            fast,
            &unsized_,
        ),
        ("no note", None, CullSettings::default(), &sized),
    ];
    let mut text = String::new();
    for (case, record, culler, scale) in cases {
        let said = match deadline_basis(&basis(record, culler, scale)) {
            None => "(nothing)".to_string(),
            Some(BasisWords::Note(words)) => {
                assert_shape(&words);
                words.to_string()
            }
            Some(BasisWords::Warning(warning)) => {
                assert_shape(&warning.0);
                format!(
                    "warning ({}): {warning}",
                    crate::support::text::Titled::title(&warning)
                )
            }
        };
        text.push_str(&format!("## {case}\n{said}\n\n"));
    }
    insta::assert_snapshot!(text);
}

/// A run that fails on `fail-on` says why at the end of its job summary, in the
/// annotation's words: the job summary is where people look first.
#[test]
fn a_run_failing_on_fail_on_says_why_in_its_job_summary() {
    let t = Totals {
        overdue: 2,
        ..Totals::default()
    };
    let (_, words) = alarm_annotation(&[Alarm::Overdue], &t, true);
    insta::assert_snapshot!(super::alarm_summary(&words));
}
