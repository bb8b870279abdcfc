//! Pure: hiding the credentials of a resolution in text a registry or token endpoint echoes
//! back (an error body quoting the password, a proxy page quoting the `Authorization` header).
//!
//! Redaction runs on the text as received, before it is cleaned (white space folded, control
//! characters dropped) and cut to a log line: after cleaning, a password with a tab or a line
//! break no longer matches itself, and after cutting a long token leaves its first few hundred
//! characters behind. For the same reasons each white-space-separated part of a secret of at
//! least [`MIN_PART_CHARS`] characters is hidden too (a registry that folded or split the
//! echo), and so is any run of at least [`MIN_PREFIX_CHARS`] characters that starts a secret
//! (a registry that cut the echo). The log's own masking (`report::Log`) still runs on the
//! final line.

/// Shortest white-space-separated part of a secret that is hidden on its own.
pub const MIN_PART_CHARS: usize = 4;

/// Shortest start of a secret that is hidden when the rest is missing.
pub const MIN_PREFIX_CHARS: usize = 8;

/// The secrets of one resolution: registry password, GitHub token, the `Authorization` value
/// presented, the bearer token received. `Debug` shows only how many there are.
#[derive(Clone, Default)]
pub struct Secrets {
    /// Whole secrets and their parts, longest first.
    pieces: Vec<String>,
}

impl std::fmt::Debug for Secrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Secrets({} pieces)", self.pieces.len())
    }
}

impl Secrets {
    /// Adds a secret (and its parts). Blank values are ignored.
    pub fn add(&mut self, secret: &str) {
        let whole = secret.trim();
        if whole.is_empty() {
            return;
        }
        let parts = whole
            .split_whitespace()
            .filter(|p| p.chars().count() >= MIN_PART_CHARS);
        for piece in std::iter::once(whole).chain(parts) {
            if !self.pieces.iter().any(|p| p == piece) {
                self.pieces.push(piece.to_string());
            }
        }
        self.pieces.sort_by_key(|p| std::cmp::Reverse(p.len()));
    }

    /// `text` with every secret, every part of one and every long start of one replaced by
    /// `***` (one `***` per hidden run).
    pub fn redact(&self, text: &str) -> String {
        if self.pieces.is_empty() {
            return text.to_string();
        }
        let mut hidden = vec![false; text.len()];
        for piece in &self.pieces {
            let prefix_min = if piece.chars().count() > MIN_PREFIX_CHARS {
                piece
                    .char_indices()
                    .nth(MIN_PREFIX_CHARS)
                    .map_or(piece.len(), |(i, _)| i)
            } else {
                piece.len()
            };
            for (start, _) in text.char_indices() {
                let matched = common_prefix(&text.as_bytes()[start..], piece.as_bytes());
                // Back to a character boundary of the piece, hence of the text.
                let matched = (0..=matched)
                    .rev()
                    .find(|&n| piece.is_char_boundary(n))
                    .unwrap_or(0);
                if matched >= prefix_min {
                    hidden[start..start + matched].fill(true);
                }
            }
        }
        let mut out = String::with_capacity(text.len());
        let mut in_run = false;
        for (i, c) in text.char_indices() {
            if hidden[i] {
                if !in_run {
                    out.push_str("***");
                }
                in_run = true;
            } else {
                in_run = false;
                out.push(c);
            }
        }
        out
    }
}

fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secrets(list: &[&str]) -> Secrets {
        let mut s = Secrets::default();
        for secret in list {
            s.add(secret);
        }
        s
    }

    #[test]
    fn whole_secrets_with_white_space_inside_are_hidden_as_received() {
        let s = secrets(&["s3cret\tpass-2024"]);
        assert_eq!(
            s.redact("bad password s3cret\tpass-2024!"),
            "bad password ***!"
        );
        // Folded or split by the registry: each part still goes.
        assert_eq!(s.redact("got s3cret pass-2024"), "got *** ***");
        assert_eq!(s.redact("got s3cret\npass-2024"), "got ***\n***");
    }

    #[test]
    fn a_cut_echo_of_a_long_secret_is_hidden() {
        let token = format!("ghp_{}", "A1b2C3d4".repeat(50));
        let s = secrets(&[&token]);
        let echoed = format!("token {} rejected", &token[..120]);
        assert_eq!(s.redact(&echoed), "token *** rejected");
        // Short starts stay: a word of the message is not a secret.
        assert_eq!(s.redact("ghp_A1b rejected"), "ghp_A1b rejected");
    }

    #[test]
    fn short_secrets_are_hidden_only_whole_and_text_without_secrets_is_unchanged() {
        let s = secrets(&["pw1", "  "]);
        assert_eq!(s.redact("pw pw1 pw12"), "pw *** ***2");
        assert_eq!(Secrets::default().redact("a\tb"), "a\tb");
        assert_eq!(format!("{s:?}"), "Secrets(1 pieces)");
    }

    #[test]
    fn multibyte_text_and_secrets_keep_character_boundaries() {
        let s = secrets(&["pässwörd-geheim-ß"]);
        assert_eq!(s.redact("é pässwörd-geh€ é"), "é ***€ é");
        assert_eq!(s.redact("→pässwörd-geheim-ß←"), "→***←");
    }
}
