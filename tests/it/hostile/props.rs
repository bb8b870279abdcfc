//! Property tests (proptest) over the event parser, the image reference parser, the
//! duration parser, the log defusing and the renderer: no panic on any input, and rendered
//! untrusted text never carries a mention, a reference, a link, HTML or a marker.
//!
//! Cases per property: proptest's default (256), or `PROPTEST_CASES`.

use super::render::{facts_for, render_and_check};
use super::*;
use codeq_rollout::DurationParser;
use codeq_rollout::ImageSource;
use codeq_rollout::{CullSettings, compute};
use codeq_rollout::{
    clean_line, defuse_commands, log_line, markdown_inline, parse_event, release_note,
    tracking_issue, window_section,
};
use proptest::collection::{btree_map, vec};
use proptest::prelude::*;
use serde_json::Value;

/// Pieces attackers use, mixed with ordinary text and arbitrary characters.
fn hostile_fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "@", "#", "GH-", "gh-", "://", "www.", "WWW.", "<!--", "-->", "codeq-rollout:",
            "<!-- codeq-rollout:release digest=sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 -->",
            "<img src=x>", "<", ">", "`", "```", "|", "\\", "&", "&#64;", "&#x23;", ";", "[", "](", ")",
            "![", "*", "_", "~", "$", "-", "+", "=", "1.", " ", "\t", "\r", "\n", "\r\n", "::",
            "::set-output name=x::y", "::add-mask::", "##[", "]", "%", "%0A", "\u{202E}", "\u{2066}",
            "\u{200B}", "\u{2060}", "\u{FEFF}", "\u{00AD}", "\u{E0041}", "e\u{301}", "\u{FF20}",
            "fixes ", "octo-org/lab-image", "https", "http", "mailto:", "a@b.example", "@org/team",
        ])
        .prop_map(String::from),
        "[a-zA-Z0-9]{1,8}",
        any::<char>().prop_map(String::from),
    ]
}

/// Hostile text: fragments glued together, or any string at all.
fn hostile_text() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => vec(hostile_fragment(), 0..40).prop_map(|v| v.concat()),
        1 => any::<String>(),
    ]
}

/// Undoes [`sanitize::markdown_inline`]'s neutralising: joiners out, backslash escapes and
/// the three entities back.
fn unneutralise(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            JOINER => {}
            '\\' => out.extend(chars.next()),
            '&' => {
                let rest: String = chars.clone().take(4).collect();
                for (entity, plain) in [("amp;", '&'), ("lt;", '<'), ("gt;", '>')] {
                    if rest.starts_with(entity) {
                        for _ in 0..entity.len() {
                            chars.next();
                        }
                        out.push(plain);
                        break;
                    }
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// Any JSON value, nested a few levels, with hostile strings.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        hostile_text().prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 64, 8, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..8).prop_map(Value::Array),
            btree_map("[a-z_]{1,10}", inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Where in a `pull_request` payload to put a random value.
fn payload_pointer() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "/pull_request",
        "/pull_request/number",
        "/pull_request/title",
        "/pull_request/html_url",
        "/pull_request/labels",
        "/pull_request/labels/0",
        "/pull_request/labels/0/name",
        "/pull_request/merged",
        "/pull_request/merge_commit_sha",
        "/pull_request/base",
        "/pull_request/base/ref",
        "/after",
        "/commits",
        "/head_commit",
        "/workflow_run",
        "/workflow_run/head_sha",
        "/inputs",
    ])
}

fn set_pointer(doc: &mut Value, pointer: &str, value: Value) {
    let (parent, key) = pointer.rsplit_once('/').unwrap();
    let parent = if parent.is_empty() {
        Some(&mut *doc)
    } else {
        doc.pointer_mut(parent)
    };
    match parent {
        Some(Value::Object(map)) => {
            map.insert(key.to_string(), value);
        }
        Some(Value::Array(items)) => {
            if let Some(slot) = key.parse::<usize>().ok().and_then(|i| items.get_mut(i)) {
                *slot = value;
            }
        }
        _ => {}
    }
}

/// Image references: anything, reference-shaped text, and layout forms.
fn image_text() -> impl Strategy<Value = String> {
    let reference = (
        prop::option::of("[a-zA-Z0-9.-]{1,20}(:[0-9]{1,6})?/"),
        vec("[a-zA-Z0-9._/-]{0,14}", 1..5),
        prop::option::of(":[a-zA-Z0-9._-]{0,140}"),
        prop::option::of("@[a-z0-9]{0,8}:[0-9a-fA-F]{0,70}"),
    )
        .prop_map(|(host, path, tag, digest)| {
            format!(
                "{}{}{}{}",
                host.unwrap_or_default(),
                path.join("/"),
                tag.unwrap_or_default(),
                digest.unwrap_or_default()
            )
        });
    prop_oneof![
        any::<String>(),
        reference,
        "oci:.{0,40}",
        vec(hostile_fragment(), 0..12).prop_map(|v| v.concat()),
    ]
}

/// Durations: anything, digit runs, and humantime-shaped text with odd units and sizes.
fn duration_text() -> impl Strategy<Value = String> {
    let unit = prop::sample::select(vec![
        "",
        "ns",
        "us",
        "ms",
        "s",
        "sec",
        "m",
        "min",
        "h",
        "hr",
        "hours",
        "d",
        "day",
        "days",
        "w",
        "week",
        "M",
        "month",
        "y",
        "year",
        "years",
        "parsecs",
        "µs",
        "\u{2060}h",
    ]);
    let part = ("[ ]{0,2}", "[-+]?[0-9]{1,25}(\\.[0-9]{0,3})?", unit)
        .prop_map(|(space, n, unit)| format!("{space}{n}{unit}"));
    prop_oneof![
        any::<String>(),
        "[0-9]{0,30}",
        vec(part, 1..5).prop_map(|v| v.join(" ")),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig {
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Untrusted inline text: no finding, no Markdown structure, one line, within the cap,
    /// and nothing deleted (undoing the neutralising gives `clean_line`'s text back).
    #[test]
    fn markdown_inline_neutralises_without_deleting(text in hostile_text(), max in 0usize..400) {
        let out = markdown_inline(&text, max);
        prop_assert!(findings(&out).is_empty(), "{:?} -> {:?}: {:?}", text, out, findings(&out));
        prop_assert!(structure(&out).iter().all(|line| *line == [0; 8]), "{:?} -> {:?}", text, out);
        prop_assert!(!out.contains(['\r', '\n']));
        let clean = clean_line(&text, max);
        prop_assert!(clean.chars().count() <= max.max(1));
        prop_assert_eq!(unneutralise(&out), clean);
    }

    /// The full render with hostile titles and labels on several pull requests' worth of
    /// text: same findings and structure as harmless text, one marker, within limits.
    #[test]
    fn rendered_untrusted_text_never_pings_links_or_forges(
        title in hostile_text(),
        labels in vec(hostile_text(), 0..25),
    ) {
        render_and_check(&title, &labels);
    }

    /// Log text: neither one cleaned line nor a defused multi-line text issues a command.
    #[test]
    fn log_text_never_issues_a_workflow_command(text in hostile_text()) {
        let line = log_line(&text, 2000);
        prop_assert!(commands_in_log(&line, &[]).is_empty(), "{:?} -> {:?}", text, line);
        let defused = defuse_commands(&text);
        prop_assert!(commands_in_log(&defused, &[]).is_empty(), "{:?} -> {:?}", text, defused);
    }

    /// The event parser: arbitrary bytes never panic.
    #[test]
    fn event_parser_survives_any_bytes(bytes in vec(any::<u8>(), 0..4096)) {
        let _ = parse_event(&bytes);
    }

    /// The event parser on GitHub's payload with random values in the fields it reads, or
    /// cut short: no panic, and a payload that parses renders safely.
    #[test]
    fn event_parser_survives_mutated_payloads(
        changes in vec((payload_pointer(), json_value()), 1..6),
        cut in prop::option::of(any::<prop::sample::Index>()),
    ) {
        let mut doc = pull_request_merged(&["security"]);
        for (pointer, value) in changes {
            set_pointer(&mut doc, pointer, value);
        }
        let mut bytes = serde_json::to_vec(&doc).unwrap();
        if let Some(cut) = cut {
            bytes.truncate(cut.index(bytes.len() + 1));
        }
        if let Ok(payload) = parse_event(&bytes) {
            let _ = payload.check_event("pull_request");
            if let Some(pr) = &payload.pull_request {
                let pr = codeq_rollout::PullRequest::from(pr);
                render_and_check(&pr.title, &pr.labels);
            }
        }
    }

    /// The image reference parser: no panic; what parses displays as a reference that
    /// parses to the same, and names release tags with `[a-z0-9._-]` only.
    #[test]
    fn image_reference_parser_never_panics(text in image_text()) {
        if let Ok(source) = ImageSource::parse(&text) {
            let shown = source.display();
            let again = ImageSource::parse(&shown);
            prop_assert!(again.is_ok(), "{:?} shows as {:?}, which does not parse", text, shown);
            prop_assert_eq!(again.unwrap().display(), shown);
            let name = source.short_name();
            prop_assert!(!name.is_empty());
            prop_assert!(name.chars().all(|c| matches!(c, 'a'..='z' | '0'..='9' | '.' | '_' | '-')), "{:?}", name);
        }
    }

    /// The duration parser: no panic; bare digits are seconds; whatever parses gives a
    /// window and bodies without a panic.
    #[test]
    fn duration_parser_never_panics(text in duration_text()) {
        let parsed = DurationParser::CULLER.check("cull-timeout", &text).map(codeq_rollout::InputDuration::secs);
        let trimmed = text.trim();
        if !trimmed.is_empty() && trimmed.bytes().all(|b| b.is_ascii_digit()) {
            // Bare digits are seconds, up to the ten-year cap.
            let expected = trimmed.parse::<u64>().ok().filter(|s| *s <= 315_360_000);
            prop_assert_eq!(parsed.as_ref().ok().copied(), expected);
        }
        if let Ok(secs) = parsed {
            let culler = CullSettings { timeout_secs: secs, max_age_secs: secs, every_secs: secs.max(1), enabled: true };
            let window = compute(&culler);
            let _ = window.summary();
            window_section(&culler, &window).unwrap();
            let mut facts = facts_for("x", &[], None);
            facts.culler = culler;
            facts.window = window;
            release_note(&facts, None).unwrap();
            tracking_issue(&facts, None).unwrap();
        }
    }
}
