//! The outputs, the convergence comment's bookkeeping and the Kubernetes edge's words, on
//! the scenarios of [`crate::render::status::tests`].

use super::*;
use crate::digest::Digest;
use crate::render::status::tests::{
    NOW, at, at_defaults, digest, facts, history_of, scenario, server,
};
use crate::render::status::{StatusFacts, comment};
use crate::status::Server;
use crate::status::history::{History, with_this_run};
use time::macros::datetime;

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
