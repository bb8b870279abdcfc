//! Pure: making untrusted text (PR titles, labels) safe to place in Markdown and logs.
//!
//! Anyone who can open a pull request writes its title and labels, and they end up in a
//! public release note, an issue that pages security reviewers, and the Actions log.
//! The approach is to neutralise, not delete: the text still reads the same to a person,
//! but GitHub no longer finds in it a mention (`@user`, `@org/team`), an issue reference
//! (`#1`, `GH-1`, `owner/repo#1`), an autolink, HTML, or Markdown syntax; a WORD JOINER
//! (U+2060, invisible) is placed where GitHub's reference filters would otherwise match,
//! since backslash escapes do not stop them (they act on rendered text).

use unicode_normalization::UnicodeNormalization;

/// The invisible character used to break mentions, references and autolinks.
const JOINER: char = '\u{2060}';

/// The default cap on one untrusted field, in characters.
pub const DEFAULT_MAX_CHARS: usize = 200;

/// Whether `c` is a bidirectional control or another invisible format character
/// (Unicode category Cf and friends) that must not survive from untrusted input.
fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{00AD}' | '\u{034F}' | '\u{061C}' | '\u{115F}' | '\u{1160}' | '\u{17B4}' | '\u{17B5}'
        | '\u{180B}'..='\u{180F}'
        | '\u{200B}'..='\u{200F}'
        | '\u{202A}'..='\u{202E}'
        | '\u{2060}'..='\u{206F}'
        | '\u{3164}' | '\u{FE00}'..='\u{FE0F}' | '\u{FEFF}' | '\u{FFA0}'
        | '\u{FFF0}'..='\u{FFFB}'
        | '\u{1D173}'..='\u{1D17A}'
        | '\u{E0000}'..='\u{E0FFF}')
}

/// Normalises untrusted text to one clean line: NFC, invisible and control characters
/// removed, any run of white space (CR and LF included) folded to one space, trimmed, and
/// capped at `max_chars` characters with an ellipsis (`…`).
pub fn clean_line(text: &str, max_chars: usize) -> String {
    let mut out = String::with_capacity(text.len().min(max_chars * 4));
    let mut pending_space = false;
    for c in text.nfc() {
        if is_invisible(c) {
            continue;
        }
        if c.is_whitespace() || c.is_control() {
            pending_space = !out.is_empty();
            continue;
        }
        if pending_space {
            out.push(' ');
            pending_space = false;
        }
        out.push(c);
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
/// link text. Starts from [`clean_line`], then escapes Markdown and HTML and breaks
/// mentions, references, autolinks and the tool's own marker syntax.
pub fn markdown_inline(text: &str, max_chars: usize) -> String {
    let line = clean_line(text, max_chars);
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::with_capacity(line.len() * 2);
    for (i, &c) in chars.iter().enumerate() {
        let next = chars.get(i + 1).copied();
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '(' | ')' | '!' | '|' | '~' | '{' | '}' | '$' => {
                out.push('\\');
                out.push(c);
            }
            '@' | '#' => {
                out.push(c);
                out.push(JOINER);
            }
            '-' if i >= 2
                && chars[i - 2..i]
                    .iter()
                    .collect::<String>()
                    .eq_ignore_ascii_case("gh") =>
            {
                out.push(JOINER);
                out.push(c);
            }
            ':' if next == Some('/') => {
                out.push(c);
                out.push(JOINER);
            }
            '.' if i >= 3
                && chars[i - 3..i]
                    .iter()
                    .collect::<String>()
                    .eq_ignore_ascii_case("www") =>
            {
                out.push(JOINER);
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// Untrusted text made safe for one log line: [`clean_line`], and a leading `::` (a
/// workflow command) defused.
pub fn log_line(text: &str, max_chars: usize) -> String {
    let line = clean_line(text, max_chars);
    if line.starts_with("::") {
        format!("| {line}")
    } else {
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn visible(s: &str) -> String {
        s.replace(JOINER, "")
    }

    #[test]
    fn mentions_and_references_are_broken_but_readable() {
        let out = markdown_inline("thanks @octocat and @org/team, fixes #12 and GH-3", 200);
        assert!(!out.contains("@o"), "{out}");
        assert!(!out.contains("#1"), "{out}");
        assert!(!out.to_lowercase().contains("gh-"), "{out}");
        assert_eq!(
            visible(&out),
            "thanks @octocat and @org/team, fixes #12 and GH-3"
        );
    }

    #[test]
    fn html_and_markdown_are_escaped() {
        let out = markdown_inline(
            "<img src=x> [a](http://e) `c` | d <!-- codeq-rollout -->",
            200,
        );
        assert!(!out.contains('<'), "{out}");
        assert!(out.contains("\\[a\\]"), "{out}");
        assert!(out.contains("\\|"), "{out}");
        assert!(!out.contains("http://"), "{out}");
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
    }
}
