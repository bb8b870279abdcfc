use super::*;
use crate::status::Server;
use crate::status::classify::{SettingsModel, classify};
use crate::status::history::{History, Point};
use crate::window::CullSettings;
use time::macros::datetime;

const RELEASE: OffsetDateTime = datetime!(2026-11-30 12:00 UTC);
const NOW: OffsetDateTime = datetime!(2026-11-30 13:00 UTC);

fn digest() -> Digest {
    Digest::parse("sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08")
        .unwrap()
}

fn at(h: u8, m: u8) -> Option<OffsetDateTime> {
    Some(datetime!(2026-11-30 00:00 UTC).replace_time(time::Time::from_hms(h, m, 0).unwrap()))
}

fn server(
    user: &str,
    name: &str,
    started: Option<OffsetDateTime>,
    last: Option<OffsetDateTime>,
) -> Server {
    Server {
        user: user.into(),
        name: name.into(),
        started,
        last_activity: last,
        ready: true,
        pending: None,
    }
}

/// `servers` classified at [`NOW`] for a release at [`RELEASE`], with the chart's default
/// culler settings.
fn at_defaults(servers: Vec<Server>) -> Classification {
    classify(
        servers,
        RELEASE,
        NOW,
        &SettingsModel(CullSettings::default()),
    )
}

/// One server of each kind, with hostile names: a newline and a workflow command, ANSI
/// escapes, Markdown and a mention, a right-to-left override.
fn scenario() -> Classification {
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

fn facts<'a>(
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
        shifted: false,
        include_names,
        history: None,
    }
}

const HOSTILE: [&str; 6] = ["bob", "carol", "dave", "fred", "evil.example", "boom"];

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
    assert!(is_status_comment(&body, &d));
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
        RELEASE,
        NOW,
        &SettingsModel(CullSettings {
            enabled: false,
            ..CullSettings::default()
        }),
    );
    let max_age = classify(
        servers(),
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
fn a_comment_is_edited_only_when_the_numbers_change() {
    let d = digest();
    let c = scenario();
    let first = comment(&facts(&c, Some(&d), false), &d).unwrap();
    // Measured later, same numbers: no edit.
    let later = StatusFacts {
        now: datetime!(2026-11-30 13:01 UTC),
        ..facts(&c, Some(&d), false)
    };
    let same = comment(&later, &d).unwrap();
    assert_ne!(first, same);
    assert!(!comment_needs_edit(&first, &same));
    // One server fewer: edit.
    let mut fewer = c.clone();
    fewer.servers.pop();
    fewer.totals.running -= 1;
    fewer.totals.pending -= 1;
    assert!(comment_needs_edit(
        &first,
        &comment(&facts(&fewer, Some(&d), false), &d).unwrap()
    ));
    // With names shown, a changed deadline of one server is an edit even with equal totals.
    let named = comment(&facts(&c, Some(&d), true), &d).unwrap();
    let mut moved = c.clone();
    moved.servers[0].deadline = at(13, 6);
    assert!(comment_needs_edit(
        &named,
        &comment(&facts(&moved, Some(&d), true), &d).unwrap()
    ));
    // A body edited by hand (numbers line gone): edit.
    assert!(comment_needs_edit(
        "<!-- codeq-rollout:convergence digest=x -->\nhello",
        &first
    ));
}

/// What examples/convergence.yml and README say of later runs: a converged comment is
/// still edited when servers start or stop, and left alone while the numbers stay.
#[test]
fn a_converged_comment_is_still_edited_when_servers_start_or_stop() {
    let d = digest();
    let converged = |users: &[&str]| {
        let servers: Vec<Server> = users
            .iter()
            .map(|u| server(u, "", at(12, 30), at(12, 59)))
            .collect();
        at_defaults(servers)
    };
    let (one, two) = (converged(&["alice"]), converged(&["alice", "bob"]));
    assert!(one.totals.converged && two.totals.converged);
    let first = comment(&facts(&one, Some(&d), false), &d).unwrap();
    let same = comment(&facts(&converged(&["carol"]), Some(&d), false), &d).unwrap();
    assert!(!comment_needs_edit(&first, &same));
    let more = comment(&facts(&two, Some(&d), false), &d).unwrap();
    assert!(comment_needs_edit(&first, &more));
}

#[test]
fn the_comment_is_found_by_its_digest_only() {
    let d = digest();
    let other = Digest::of_bytes(b"other");
    let c = scenario();
    let body = comment(&facts(&c, Some(&d), false), &d).unwrap();
    assert!(is_status_comment(&body, &d));
    assert!(!is_status_comment(&body, &other));
    assert!(!is_status_comment(&format!("quoted:\n{body}"), &d));
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

#[test]
fn a_deadline_already_passed_is_said_as_overdue_not_as_to_come() {
    // Idle since 11:00, started before the release: due about 12:10, overdue at 13:00.
    let c = at_defaults(vec![server("a", "", at(9, 0), at(11, 0))]);
    assert_eq!(c.totals.overdue, 1);
    let facts = facts(&c, None, false);
    insta::assert_snapshot!(format!(
        "{}\n---\n{}",
        job_summary(&facts).unwrap(),
        table(&facts).unwrap()
    ));
}

#[test]
fn a_worst_case_past_the_calendar_is_refused_in_words_naming_the_inputs() {
    let scale = crate::window::HubScale {
        servers: 1_000_000,
        slow_stop_timeout_secs: crate::window::MAX_DURATION_SECS,
    };
    let settings = CullSettings::default();
    let worst = crate::window::at_scale(&settings, &scale);
    let longest = worst.idle_secs.unwrap();
    assert!(!crate::window::fits_calendar(NOW, longest));
    let words = [true, false].map(|now_given| beyond_calendar(NOW, now_given, &scale, longest));
    insta::assert_snapshot!(words.join("\n"), @r#"
the worst case of a cull pass on a hub of 1000000 servers (those running now, or hub-size when larger; slow-stop timeout 3650 days) puts the convergence deadline up to 7299996350 days 1h 10m after now (--now) 2026-11-30T13:00:00Z, past 9999-12-31, the last date a deadline can be written for: check now (--now), hub-size, slow-stop-timeout and the idle culler settings
the worst case of a cull pass on a hub of 1000000 servers (those running now, or hub-size when larger; slow-stop timeout 3650 days) puts the convergence deadline up to 7299996350 days 1h 10m after this run's clock 2026-11-30T13:00:00Z, past 9999-12-31, the last date a deadline can be written for: check hub-size, slow-stop-timeout and the idle culler settings
"#);
}

#[test]
fn the_summary_says_what_became_of_the_comment_linking_it() {
    let issue = "https://github.com/octo-org/lab/issues/7";
    let ours = "https://github.com/octo-org/lab/issues/7#issuecomment-1";
    let decided = |change, url: &str, dry_run| CommentOutcome::Decided {
        change,
        url: url.to_string(),
        dry_run,
    };
    let cases = [
        ("posted", decided(Change::Created, ours, false)),
        ("edited", decided(Change::Updated, ours, false)),
        ("unchanged", decided(Change::Unchanged, ours, false)),
        ("dry run, post", decided(Change::Created, issue, true)),
        ("dry run, edit", decided(Change::Updated, ours, true)),
        ("dry run, unchanged", decided(Change::Unchanged, ours, true)),
        ("no open tracking issue", CommentOutcome::NoOpenIssue),
        (
            "an address that is not a plain URL: no link",
            decided(Change::Created, "javascript:alert(1)", false),
        ),
    ];
    let table: Vec<String> = cases
        .iter()
        .map(|(case, outcome)| format!("{case}:{}", comment_note(outcome).unwrap()))
        .collect();
    insta::assert_snapshot!(table.join("\n---\n"));
}

#[test]
fn hub_times_at_the_calendars_ends_are_reported_as_they_are() {
    use crate::support::time::{FIRST, LAST};
    // The hub's times as the hub edge takes them (UTC, years 0000 to 9999): a server idle
    // since the first instant is stale and overdue; one started on the last second is
    // updated. Every time is written, none panics.
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
"late" "updated" "9999-12-31T23:59:59Z" "9999-12-31T23:59:59Z" null
"#);
    assert!(table(&facts).is_ok() && job_summary(&facts).is_ok());
}

/// Every log line and error a status run words outside its reports, in one snapshot; an
/// address from GitHub with a line break stays on one line.
#[test]
fn the_runs_log_lines_and_errors_in_words() {
    // The comment's and the release's words are render::publish's (their tests).
    let lines = [hub_read(3, 2, 1)];
    insta::assert_snapshot!(lines.join("\n"));
}

/// A history of runs at the given `(hour, minute, stale)`, 7 running, each stating
/// converged-by 14:30.
fn history_of(runs: &[(u8, u8, u64)]) -> History {
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
fn a_chart_over_two_dates_labels_the_dates_and_one_without_a_deadline_draws_no_line() {
    let c = scenario();
    let mut h = History::default();
    for (t, stale) in [
        (datetime!(2026-11-30 23:40 UTC), 5),
        (datetime!(2026-12-01 00:10 UTC), 2),
    ] {
        h.push(Point {
            at: t,
            stale,
            running: 9,
            due: None,
        });
    }
    let facts = StatusFacts {
        history: Some(&h),
        now: datetime!(2026-12-01 00:10 UTC),
        ..facts(&c, None, false)
    };
    let drawn = chart(&facts).unwrap();
    assert_eq!(drawn.labels, ["11-30 23:40", "12-01 00:10"]);
    assert_eq!(
        (drawn.bars, drawn.line, drawn.y_max),
        (vec![5, 2], vec![], 5)
    );
    assert_eq!(drawn.title, "Stale servers per run");
}

#[test]
fn only_the_latest_runs_deadline_is_drawn_never_an_earlier_points() {
    let c = scenario();
    let mut h = History::default();
    for (t, stale, due) in [
        (
            datetime!(2026-11-30 12:10 UTC),
            5,
            Some(datetime!(2026-11-30 14:00 UTC)),
        ),
        (datetime!(2026-11-30 12:40 UTC), 2, None),
    ] {
        h.push(Point {
            at: t,
            stale,
            running: 9,
            due,
        });
    }
    let facts = StatusFacts {
        history: Some(&h),
        now: datetime!(2026-11-30 12:40 UTC),
        ..facts(&c, None, false)
    };
    let drawn = chart(&facts).unwrap();
    assert_eq!(drawn.labels, ["12:10", "12:40"]);
    assert_eq!((drawn.bars, drawn.line), (vec![5, 2], vec![]));
    assert_eq!(drawn.title, "Stale servers per run");
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
        let p = progress(&t);
        assert_eq!(p.bar.chars().count(), 20);
        assert_eq!(p.bar.matches('█').count(), filled, "{updated}/{running}");
        assert_eq!(p.percent, percent, "{updated}/{running}");
    }
}

#[test]
fn a_refused_history_is_said_with_the_rule_it_broke() {
    use crate::status::history::HistoryError;
    insta::assert_snapshot!(
        [
            HistoryError::Repeated,
            HistoryError::TooLong(4000),
            HistoryError::TooManyPoints,
            HistoryError::Malformed(0),
            HistoryError::Malformed(3),
            HistoryError::OutOfOrder(2),
            HistoryError::BadCount(1),
        ]
        .iter()
        .map(history_refused)
        .collect::<Vec<_>>()
        .join("\n")
    );
}

#[test]
fn the_same_history_and_numbers_leave_the_comment_and_a_new_point_edits_it() {
    let d = digest();
    let c = scenario();
    let h = with_this_run(Some(history_of(&[(12, 5, 7)])), &c.totals, NOW);
    let body = |h: &History, now| {
        comment(
            &StatusFacts {
                history: Some(h),
                now,
                ..facts(&c, Some(&d), false)
            },
            &d,
        )
        .unwrap()
    };
    let first = body(&h, NOW);
    // A later run with the same numbers adds no point: no edit.
    let later = datetime!(2026-11-30 13:30 UTC);
    let same = with_this_run(Some(h.clone()), &c.totals, later);
    assert_eq!(same, h);
    assert!(!comment_needs_edit(&first, &body(&same, later)));
    // The history line forged or lost, same numbers: edited (the history written afresh).
    let forged = first.replace(
        crate::status::history::line(&h).as_str(),
        "<!-- codeq-rollout:convergence-history v1 x -->",
    );
    assert!(comment_needs_edit(&forged, &first));
}

#[test]
fn runs_within_one_minute_are_labelled_to_the_second_for_mermaid_keeps_names_apart() {
    let c = scenario();
    let mut h = History::default();
    for (t, stale) in [
        (datetime!(2026-11-30 12:30:10 UTC), 5),
        (datetime!(2026-11-30 12:30:50 UTC), 4),
        (datetime!(2026-11-30 13:00 UTC), 3),
    ] {
        h.push(Point {
            at: t,
            stale,
            running: 9,
            due: Some(datetime!(2026-11-30 13:20:01 UTC)),
        });
    }
    let facts = StatusFacts {
        history: Some(&h),
        ..facts(&c, None, false)
    };
    let drawn = chart(&facts).unwrap();
    assert_eq!(
        drawn.labels,
        ["12:30:10", "12:30:50", "13:00:00", "due 13:21"]
    );
}

#[test]
fn a_mismatch_annotation_names_the_server_as_the_logs_table_does() {
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
                image_id: Some("ghcr.io/org/lab@sha256:eeee".into()),
                started: at(12, 30),
            }),
            digest: Some("sha256:eeee".into()),
            unknown: None,
        }),
    };
    let classification = Classification {
        servers: vec![mismatched("mism", ""), mismatched("other", "gpu")],
        ..at_defaults(Vec::new())
    };
    let hidden = without_names(&classification);
    let query = crate::status::kube::PodQuery {
        namespace: "hub-ns".into(),
        release: "hub".into(),
    };
    let mut out = String::new();
    for c in &hidden.servers {
        let (title, message) = mismatch_annotation(c, false, Some(&query));
        assert!(
            !message.contains("mism") && !message.contains("other"),
            "{message}"
        );
        out.push_str(&format!("{title}: {message}\n"));
    }
    let (title, message) = mismatch_annotation(&classification.servers[0], true, Some(&query));
    out.push_str(&format!("{title}: {message}\n"));
    insta::assert_snapshot!(out);
}

#[test]
fn a_kube_timeout_names_the_input_and_its_value() {
    let e = KubeError::TimedOut {
        server: "https://10.0.0.1:6443/".into(),
        timeout: std::time::Duration::from_secs(30),
    };
    insta::assert_snapshot!(kube_error(&e, "jhub"));
}

#[test]
fn a_kubeconfig_file_that_cannot_be_read_gets_path_advice_and_the_input_content_advice() {
    let of = |source_name: &str| {
        kube_error(
            &KubeError::Kubeconfig {
                source_name: source_name.into(),
                detail: "Is a directory (os error 21)".into(),
            },
            "jhub",
        )
    };
    let file = of("/home/runner/.kube");
    assert_eq!(
        file,
        "the kubeconfig (/home/runner/.kube) is not usable: Is a directory (os error 21). Check that /home/runner/.kube is a readable kubeconfig file (KUBECONFIG names a file, not a directory), or pass the file's content in the kubeconfig input"
    );
    assert!(
        of(crate::status::kube::KUBECONFIG_INPUT)
            .contains("Give the kubeconfig file's whole content")
    );
}

#[test]
fn the_totals_line_counts_pods_in_the_singular_and_the_plural() {
    let line = |orphans| {
        totals_line(&Totals {
            running: 2,
            updated: 1,
            mismatch: 1,
            orphans,
            evidence: Evidence::Digest,
            ..Totals::default()
        })
    };
    insta::assert_snapshot!(format!("{}\n{}", line(1), line(2)));
}
