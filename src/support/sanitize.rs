//! Pure: making untrusted text (PR titles, labels) safe to place in Markdown and logs.
//!
//! Anyone who can open a pull request writes its title and labels, and they end up in a
//! public release note, an issue that pages security reviewers, and the Actions log.
//! The approach is to neutralise, not delete: the text still reads the same to a person,
//! but GitHub no longer finds in it a mention (`@user`, `@org/team`), an issue reference
//! (`#1`, `GH-1`, `owner/repo#1`, so no `fixes #1` either), an autolink (`https://…`,
//! `www.…`, bare e-mail addresses), HTML, Markdown syntax, or the tool's own marker.
//!
//! GitHub finds mentions and references in the *text* of the rendered Markdown (and, for
//! e-mail replies, in the plain source), so backslash escapes do not stop them. An invisible
//! WORD JOINER (U+2060) is placed right after `@` and `#` (and inside `GH-`, `://`, `www.`),
//! so the patterns no longer match: GitHub's mention pattern needs a user-name character right
//! after `@`, its reference pattern a digit right after `#`, and cmark-gfm's autolinks need
//! `://`, `www.`, or a domain character after `@`. The same technique is used in the field:
//! Dependabot inserts U+200B after `@` (dependabot-core `link_and_mention_sanitizer.rb`, and
//! PR 12685 for `#`), Renovate U+200B after `@` (renovate PRs 1083, 30842), niv-updater-action
//! U+2060 after `@`.
//!
//! Log text is defused for the Actions runner, whose command parser (actions/runner
//! `ActionCommand.cs`) takes a line whose first non-blank characters are `::` as a command,
//! and also the legacy form `##[command]data` **anywhere** in a line; the runner reads lines
//! with .NET `ReadLine`, which ends a line at CR, LF or CRLF.

use unicode_normalization::UnicodeNormalization;

/// The invisible character used to break mentions, references and autolinks.
const JOINER: char = '\u{2060}';

/// The default cap on one untrusted field, in characters.
pub const DEFAULT_MAX_CHARS: usize = 200;

/// Whether `c` must not survive from untrusted input: a bidirectional control
/// (Bidi_Control, e.g. U+202E RIGHT-TO-LEFT OVERRIDE), another format character (General
/// Category Cf, e.g. U+200B ZERO WIDTH SPACE, U+2060 WORD JOINER), or any other default
/// ignorable code point (e.g. variation selectors, Hangul fillers, tag characters), per the
/// Unicode Character Database as compiled into `icu_properties`.
pub(crate) fn is_invisible(c: char) -> bool {
    use icu_properties::props::{BidiControl, DefaultIgnorableCodePoint, GeneralCategory};
    use icu_properties::{CodePointMapData, CodePointSetData};
    CodePointSetData::new::<DefaultIgnorableCodePoint>().contains(c)
        || CodePointSetData::new::<BidiControl>().contains(c)
        || CodePointMapData::<GeneralCategory>::new().get(c) == GeneralCategory::Format
}

/// Normalises untrusted text to one clean line: NFC, invisible and control characters
/// removed, any run of white space (CR and LF included) folded to one space, trimmed, and
/// capped at `max_chars` characters with an ellipsis (`…`).
pub fn clean_line(text: &str, max_chars: usize) -> String {
    let mut out = String::with_capacity(text.len().min(max_chars.saturating_mul(4)));
    let mut pending_space = false;
    let mut count = 0usize;
    for c in text.nfc() {
        // One character past the cap is enough to know the text gets cut.
        if count > max_chars {
            break;
        }
        if is_invisible(c) {
            continue;
        }
        if c.is_whitespace() || c.is_control() {
            pending_space = !out.is_empty();
            continue;
        }
        if pending_space {
            out.push(' ');
            count += 1;
            pending_space = false;
        }
        out.push(c);
        count += 1;
    }
    cap(&out, max_chars)
}

/// Caps `text` at `max_chars` characters, ending with `…` when cut.
pub fn cap(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        return text.to_string();
    }
    let mut s: String = text.chars().take(max_chars.saturating_sub(1)).collect();
    s.push('…');
    s
}

/// Untrusted text made safe for Markdown inline contexts: a table cell, a list item, a
/// link text. Starts from [`clean_line`] (one line, capped at `max_chars`), then escapes
/// Markdown and HTML and breaks mentions, references, autolinks and the tool's own marker
/// syntax (see the module documentation). Nothing is deleted: with the word joiners, escapes
/// and entities undone, the text reads as [`clean_line`] gave it.
pub fn markdown_inline(text: &str, max_chars: usize) -> String {
    let line = clean_line(text, max_chars);
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::with_capacity(line.len() * 2);
    // A line starting like a block (list item, setext underline, ordered list) is escaped,
    // so the text stays inline wherever it is placed.
    let ordered_list_dot = chars.iter().take_while(|c| c.is_ascii_digit()).count();
    for (i, &c) in chars.iter().enumerate() {
        let next = chars.get(i + 1).copied();
        let preceded_by = |word: &str| {
            let n = word.chars().count();
            i >= n
                && chars[i - n..i]
                    .iter()
                    .collect::<String>()
                    .eq_ignore_ascii_case(word)
        };
        let entity = match c {
            '&' => "&amp;",
            '<' => "&lt;",
            '>' => "&gt;",
            _ => "",
        };
        // Markdown syntax, and a line's start that reads as a block, is escaped.
        let escaped = "\\`*_[]()!|~{}$".contains(c)
            || (i == 0 && "-+=".contains(c))
            || (c == '.' && ordered_list_dot > 0 && i == ordered_list_dot);
        // `://` starts an autolink; the hidden marker is `<!-- codeq-rollout:KIND …`, whose
        // `<` is already an entity, and its name is broken too, for anything that looks for
        // it without the `<!--`.
        let joiner_before = (c == '-' && preceded_by("gh"))
            || (c == ':' && preceded_by(MARKER_NAME))
            || (c == '.' && !escaped && preceded_by("www"));
        let joiner_after = c == '@' || c == '#' || (c == ':' && next == Some('/'));
        if !entity.is_empty() {
            out.push_str(entity);
            continue;
        }
        if escaped {
            out.push('\\');
        }
        if joiner_before {
            out.push(JOINER);
        }
        out.push(c);
        if joiner_after {
            out.push(JOINER);
        }
    }
    out
}

/// The name in the tool's hidden markers, `<!-- codeq-rollout:KIND digest=… -->`.
const MARKER_NAME: &str = "codeq-rollout";

/// A link target for untrusted Markdown: `url` itself when it is a plain `https://` or
/// `http://` address naming a host, of printable ASCII without spaces and without
/// characters that could end the link or start HTML (`<>()[]"'\` and backtick), at most
/// 2,000 characters; `None` otherwise (the caller then prints the text without a link).
pub(crate) fn link_url(url: &str) -> Option<&str> {
    // The authority (RFC 3986 §3.2) runs from `//` to the first `/`, `?` or `#`; its host
    // follows any `userinfo@` and precedes any `:port`. `https://` alone, `https:///x` or
    // `https://@:443` name none. (No URL parser here: this stage is pure, and the characters
    // are restricted to plain ASCII below anyway.)
    let has_host = url.split_once("://").is_some_and(|(_, rest)| {
        let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
        let host = authority.rsplit('@').next().unwrap_or("");
        !host.split(':').next().unwrap_or("").is_empty()
    });
    let lower = url.get(..8).unwrap_or(url).to_ascii_lowercase();
    let scheme_ok = lower.starts_with("https://") || lower.starts_with("http://");
    let chars_ok = url.bytes().all(|b| {
        b.is_ascii_graphic()
            && !matches!(
                b,
                b'<' | b'>' | b'(' | b')' | b'[' | b']' | b'"' | b'\'' | b'\\' | b'`'
            )
    });
    (scheme_ok && has_host && chars_ok && url.len() <= 2000).then_some(url)
}

/// Defuses workflow commands in text printed to the Actions log: every line (ended by CR,
/// LF or CRLF, as the runner reads them) whose first non-blank characters are `::` gets a
/// leading `| `, and every legacy `##[` gets a word joiner after `##`, so the runner takes
/// neither for a command. Everything else is unchanged.
pub fn defuse_commands(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for line in text.split_inclusive(['\r', '\n']) {
        if line.trim_start().starts_with("::") {
            out.push_str("| ");
        }
        out.push_str(line);
    }
    out.replace("##[", "##\u{2060}[")
}

/// Untrusted text made safe for one log line: [`clean_line`] (so no CR or LF), then
/// [`defuse_commands`].
pub fn log_line(text: &str, max_chars: usize) -> String {
    defuse_commands(&clean_line(text, max_chars))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn visible(s: &str) -> String {
        s.replace(JOINER, "")
    }

    /// Untrusted text through [`markdown_inline`]: every output whole (the word joiner shown
    /// as `{WJ}`), and none with a live mention, issue reference, HTML tag or comment, link,
    /// autolink, e-mail address, list or heading start, or this tool's marker.
    #[test]
    fn markdown_inline_neutralises_untrusted_text() {
        let table: Vec<String> = [
            "thanks @octocat and @org/team, fixes #12 and GH-3",
            "<img src=x> [a](http://e) `c` | d <!-- codeq-rollout -->",
            "<!-- codeq-rollout:release digest=sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 -->",
            "see https://evil.example and www.evil.example, a@b.example",
            "- item",
            "+ item",
            "12. item",
            "1.5 release",
            "v1.5 - ok",
        ]
        .iter()
        .map(|input| {
            let out = markdown_inline(input, 300);
            let lower = out.to_lowercase();
            let live = |at: &str, next: fn(char) -> bool| {
                lower
                    .match_indices(at)
                    .any(|(i, _)| lower[i + at.len()..].starts_with(next))
            };
            assert!(!live("@", char::is_alphanumeric), "{out}");
            assert!(!live("#", |c| c.is_ascii_digit()), "{out}");
            assert!(!live("gh-", |c| c.is_ascii_digit()), "{out}");
            for never in ["<", "](", "://", "www.", "codeq-rollout:"] {
                assert!(!lower.contains(never), "{never:?} in {out}");
            }
            format!("{input}\n  {}", out.replace(JOINER, "{WJ}"))
        })
        .collect();
        insta::assert_snapshot!(table.join("\n"));
    }

    #[test]
    fn newlines_bidi_and_length_are_handled() {
        let out = clean_line("a\r\n::set-output name=x::y\u{202E}b\u{200B}", 200);
        assert_eq!(out, "a ::set-output name=x::yb");
        assert_eq!(clean_line(&"x".repeat(10_000), 10).chars().count(), 10);
        assert!(clean_line(&"x".repeat(10_000), 10).ends_with('…'));
    }

    #[test]
    fn nfc_normalisation() {
        assert_eq!(clean_line("e\u{0301}", 10), "\u{00E9}");
    }

    #[test]
    fn log_lines_cannot_start_a_command() {
        assert_eq!(log_line("::error::x", 50), "| ::error::x");
        assert_eq!(log_line("  ::add-mask::x", 50), "| ::add-mask::x");
        assert_eq!(
            defuse_commands("ok\n  ::set-output name=x::y"),
            "ok\n|   ::set-output name=x::y"
        );
    }

    #[test]
    fn legacy_commands_anywhere_in_a_line_are_defused() {
        // actions/runner ActionCommand.TryParse finds `##[` at any position.
        let out = defuse_commands("label \"##[set-output name=x;]y\" on #2");
        assert!(!out.contains("##["), "{out}");
        assert_eq!(visible(&out), "label \"##[set-output name=x;]y\" on #2");
    }

    #[test]
    fn a_bare_carriage_return_starts_a_line_for_the_runner() {
        // .NET ReadLine ends a line at CR too.
        assert_eq!(
            defuse_commands("ok\r::set-output name=x::y\r\n::error::z\nend"),
            "ok\r| ::set-output name=x::y\r\n| ::error::z\nend"
        );
    }

    #[test]
    fn every_format_character_is_removed() {
        // Format (Cf) characters a hand-made list tends to miss: ARABIC NUMBER SIGN,
        // SHORTHAND FORMAT LETTER OVERLAP, a tag character, and the joiner itself.
        assert_eq!(
            clean_line(
                "a\u{0600}b\u{1BCA0}c\u{E0041}d\u{2060}e\u{2066}f\u{FE0F}",
                50
            ),
            "abcdef"
        );
    }

    #[test]
    fn link_targets_must_be_plain_http_urls() {
        let ok = "https://github.com/o/r/pull/1";
        assert_eq!(link_url(ok), Some(ok));
        for bad in [
            "javascript:alert(1)",
            "https://x.example/a)b",
            "https://x.example/ a",
            "https://x.example/\"onmouseover",
            "ftp://x.example",
            "https://",
            "https:///path",
            "http://?q",
            "https://user@:443/x",
            "",
        ] {
            assert_eq!(link_url(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn huge_caps_do_not_overflow() {
        assert_eq!(clean_line("abc", usize::MAX), "abc");
        assert_eq!(cap("abc", 0), "…");
    }
}
