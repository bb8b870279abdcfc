//! Secrets: the one secret type, the forms in which a secret may be echoed back, and the one
//! engine that hides them ([`Secrets`]).
//!
//! Every secret the tool is given (the GitHub token, the registry password, the hub API
//! token) is held as a [`SecretString`] from the request structs down to the edge that sends
//! it (its `Debug` shows `[REDACTED]`), and is exposed only to build a request header. Each
//! edge (GitHub client, registry resolution, hub client) keeps a [`Secrets`] of what it sends
//! and hides it in the text a server echoes back ([`Secrets::redact_echo`]) before that text
//! becomes an error; the log ([`crate::support::log::Log`]) keeps one for the whole run,
//! registers each secret with the runner (`::add-mask::`) and hides every form of it in
//! everything printed or written ([`Secrets::redact`]).
//!
//! Echoed text is redacted as received, before it is cleaned (white space folded, control
//! characters dropped) and cut to a log line: after cleaning, a password with a tab or a line
//! break no longer matches itself, and after cutting a long token leaves its first few hundred
//! characters behind. For the same reasons each white-space-separated part of a secret of at
//! least [`MIN_PART_CHARS`] characters is hidden in echoed text too (a server that folded or
//! split the echo), and so is any run of at least [`MIN_PREFIX_CHARS`] characters that starts
//! a secret (a server that cut the echo). The text the tool writes itself (release notes,
//! summaries, log lines) hides only whole forms: a human password's first eight letters
//! ("security…") must not vanish from a release note. A secret shorter than [`MIN_CHARS`]
//! is hidden only in echoed text, as a whole word.

pub(crate) use secrecy::{ExposeSecret, SecretString};

/// A token (`hub-token`, `github-token`) trimmed of ASCII whitespace (spaces, tabs, line
/// breaks), when it holds only printable ASCII (`'!'..='~'`) and has at least [`MIN_CHARS`]:
/// printable ASCII is what both JupyterHub's and GitHub's tokens are made of, and what an
/// HTTP header carries unchanged. A zero-width space or no-break space left by a copy-paste,
/// or any other non-ASCII character, would be sent as obs-text bytes that a server echoes in
/// another encoding, past the redaction of the token as given. The one check of both token
/// inputs.
///
/// # Errors
/// [`TokenProblem`], never holding the token: the characters (whether the first refused is a
/// space, line break or control character, else not ASCII), then the length.
pub(crate) fn token(value: &str) -> Result<&str, TokenProblem> {
    let token = value.trim_ascii();
    if !token.chars().all(|c| c.is_ascii_graphic()) {
        let control = token
            .chars()
            .any(|c| c.is_ascii_whitespace() || c.is_control());
        return Err(TokenProblem::Characters { control });
    }
    match token.chars().count() {
        chars if chars < MIN_CHARS => Err(TokenProblem::Short { chars }),
        _ => Ok(token),
    }
}

/// The fewest characters of a secret masked on its own, and of a token taken (`github-token`,
/// `hub-token`, [`token`]). GitHub's tokens have 40 or more (a `ghp_`, `gho_`, `ghu_`, `ghs_`
/// or `ghr_` prefix and 36 characters; fine-grained `github_pat_` ones more: GitHub blog,
/// "Behind GitHub's new authentication token formats", 2021-04-05) and JupyterHub 6.1.1
/// refuses shorter ones (`jupyterhub/orm.py`, `Hashed.min_length = 8`, checked by
/// `Hashed.check_token`; the tokens it makes are 32 hex characters), so a shorter token is a
/// mistake. A shorter secret that is not a token (a registry password:
/// an htpasswd registry takes any length) is taken, but masked in the log it would hide its
/// letters in every message and in the bodies published (`db` in every `db`): it is hidden
/// only in text a server echoes, where it stands as a whole word ([`Secrets::add`]), and the
/// tool never prints it itself.
pub(crate) const MIN_CHARS: usize = 8;

/// The words of `text` shaped like GitHub tokens: a prefix GitHub gives its tokens (`ghp_`,
/// `gho_`, `ghu_`, `ghs_`, `ghr_`, `github_pat_`; GitHub Docs, "About authentication to
/// GitHub", GitHub's token formats) and the letters, digits and `_` that follow it. For the
/// values of every input and argument, masked before anything quotes them (a token pasted
/// into the wrong input: `cli::mask_secret_inputs`).
pub(crate) fn token_shaped(text: &str) -> Vec<&str> {
    const PREFIXES: [&str; 6] = ["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"];
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let words = text.split(|c: char| !word(c));
    words
        .filter(|w| PREFIXES.iter().any(|p| w.starts_with(p)))
        .collect()
}

/// What a token breaks ([`token`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TokenProblem {
    /// Other than printable ASCII: a space, line break or control character (`control`),
    /// else a non-ASCII character.
    Characters {
        /// A space, line break or control character.
        control: bool,
    },
    /// Fewer than [`MIN_CHARS`] characters.
    Short {
        /// Its length.
        chars: usize,
    },
}

/// Shortest white-space-separated part of a secret that is hidden on its own in echoed text.
pub(crate) const MIN_PART_CHARS: usize = 4;

/// Shortest start of a secret that is hidden in echoed text when the rest is missing.
pub(crate) const MIN_PREFIX_CHARS: usize = 8;

/// Lines of a multi-line secret shorter than this are not masked on their own (a lone `}` of
/// a JSON key would hide every such character in the log, and gives nothing away).
pub(crate) const MIN_MASKED_LINE_CHARS: usize = 4;

/// The forms of `secret` to mask: the secret itself, and as it reads when a server or a
/// library echoes it JSON-escaped, Rust-`Debug`-escaped, percent-encoded (RFC 3986
/// unreserved characters kept) or base64-encoded (the runner's own masker adds the same
/// kinds of encodings for the job log), and in ASCII lower and upper case: a secret a user
/// put in a value the tool case-folds (a host name, an image reference it suggests in lower
/// case, a SHA) would otherwise come out unmasked, and the runner's masker matches the exact
/// text only. Forms shorter than 4 characters are left out, except the secret itself.
pub(crate) fn secret_forms(secret: &str) -> Vec<String> {
    use base64::Engine as _;
    // Both escapers wrap the text in double quotes: drop them.
    let unquote = |s: String| {
        s.get(1..s.len().saturating_sub(1))
            .unwrap_or("")
            .to_string()
    };
    let json = unquote(serde_json::to_string(secret).unwrap_or_default());
    let percent = crate::support::text::percent_encode(secret);
    let mut forms = vec![secret.to_string()];
    for form in [
        json,
        unquote(format!("{secret:?}")),
        percent,
        base64::engine::general_purpose::STANDARD.encode(secret),
        secret.to_ascii_lowercase(),
        secret.to_ascii_uppercase(),
    ] {
        if form.len() >= 4 && !forms.contains(&form) {
            forms.push(form);
        }
    }
    forms
}

/// How a registered piece is matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reach {
    /// A form of a secret (or a line of a multi-line one): hidden wherever it occurs whole,
    /// and in echoed text also from a long enough start.
    Whole,
    /// A white-space-separated part of a secret: hidden only in echoed text.
    Part,
    /// A secret shorter than [`MIN_CHARS`]: hidden only in echoed text, where it stands as
    /// a whole word (no letter or digit right before or after it).
    Word,
}

/// The secrets one edge (or the whole run's log) knows, in every form they may be echoed
/// in, and the one place they are hidden. `Debug` shows only how many pieces there are.
#[derive(Clone, Default)]
pub(crate) struct Secrets {
    /// Forms, lines and parts, longest first.
    pieces: Vec<(String, Reach)>,
}

impl std::fmt::Debug for Secrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Secrets({} pieces)", self.pieces.len())
    }
}

impl Secrets {
    /// Secrets holding each of `secrets` ([`Secrets::add`]).
    pub(crate) fn of<'a>(secrets: impl IntoIterator<Item = &'a SecretString>) -> Self {
        let mut all = Self::default();
        for secret in secrets {
            all.add(secret.expose_secret());
        }
        all
    }

    /// Adds a secret: each of its [`secret_forms`] (of the trimmed secret, and of the secret
    /// as given when it has white space around it), each line of at least
    /// [`MIN_MASKED_LINE_CHARS`] of a multi-line one (the runner masks the log line by
    /// line), and each white-space-separated part of at least [`MIN_PART_CHARS`] (hidden
    /// in echoed text only). A secret shorter than [`MIN_CHARS`] is added as a whole word of
    /// echoed text only. Blank values are ignored. Returns the forms and lines not known
    /// before, in order: what the runner must be told to mask.
    pub(crate) fn add(&mut self, secret: &str) -> Vec<String> {
        let whole = secret.trim();
        if whole.is_empty() {
            return Vec::new();
        }
        if whole.chars().count() < MIN_CHARS {
            self.pieces.push((whole.to_string(), Reach::Word));
            self.sort();
            return Vec::new();
        }
        let mut forms = secret_forms(whole);
        if secret != whole {
            forms.extend(secret_forms(secret));
        }
        forms.extend(
            whole
                .lines()
                .map(str::trim)
                .filter(|l| l.chars().count() >= MIN_MASKED_LINE_CHARS && *l != whole)
                .map(String::from),
        );
        let added = self.add_whole(forms);
        for part in whole.split_whitespace() {
            let long = part.chars().count() >= MIN_PART_CHARS && part != whole;
            if long && !self.pieces.iter().any(|(p, _)| p == part) {
                self.pieces.push((part.to_string(), Reach::Part));
            }
        }
        self.sort();
        added
    }

    /// Adds Basic credentials: the password, trimmed ([`Secrets::add`]), and the base64 of
    /// `user:password` as given, the form an `Authorization: Basic` header carries (RFC 7617),
    /// which a server or a proxy may echo in an error page. Returns the forms not known before.
    pub(crate) fn add_basic(&mut self, user: &str, password: &str) -> Vec<String> {
        use base64::Engine as _;
        if password.trim().is_empty() {
            return Vec::new();
        }
        let mut added = self.add(password.trim());
        let header = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
        added.extend(self.add_whole(vec![header]));
        self.sort();
        added
    }

    /// Registers `forms` as whole pieces; returns those not known before.
    fn add_whole(&mut self, forms: Vec<String>) -> Vec<String> {
        let mut added = Vec::new();
        for form in forms {
            match self.pieces.iter_mut().find(|(p, _)| *p == form) {
                Some((_, reach)) if *reach == Reach::Whole => {}
                // A part that is also a line or a form: hidden everywhere from now on.
                Some((_, reach)) => {
                    *reach = Reach::Whole;
                    added.push(form);
                }
                None => {
                    self.pieces.push((form.clone(), Reach::Whole));
                    added.push(form);
                }
            }
        }
        added
    }

    fn sort(&mut self) {
        self.pieces.sort_by_key(|(p, _)| std::cmp::Reverse(p.len()));
    }

    /// `text` with every form of every secret replaced by `***`: for the text the tool writes
    /// itself (log lines, bodies, outputs, summaries).
    pub(crate) fn redact(&self, text: &str) -> String {
        self.hide(text, false)
    }

    /// `text` with every form of every secret, every part of one and every long start of one
    /// replaced by `***` (one `***` per hidden run): for text a server echoed back, before it
    /// is cleaned or cut.
    pub(crate) fn redact_echo(&self, text: &str) -> String {
        self.hide(text, true)
    }

    fn hide(&self, text: &str, echo: bool) -> String {
        if self.pieces.is_empty() {
            return text.to_string();
        }
        let mut hidden = vec![false; text.len()];
        for (piece, reach) in &self.pieces {
            if !echo && *reach != Reach::Whole {
                continue;
            }
            // Echoed, a longer piece's start of MIN_PREFIX_CHARS characters is hidden too; in
            // the tool's own text only where a cap (`sanitize::cap`: its `…`) cut it short.
            let start_min = piece.char_indices().nth(MIN_PREFIX_CHARS).map(|(i, _)| i);
            let min = start_min.filter(|_| echo).unwrap_or(piece.len());
            let cut_min = start_min.filter(|_| *reach == Reach::Whole);
            for (start, _) in text.char_indices() {
                let matched = common_prefix(&text.as_bytes()[start..], piece.as_bytes());
                // Back to a character boundary of the piece, hence of the text.
                let matched = (0..=matched)
                    .rev()
                    .find(|&n| piece.is_char_boundary(n))
                    .unwrap_or(0);
                let end = start + matched;
                let word = |t: Option<char>| t.is_some_and(char::is_alphanumeric);
                let apart =
                    !word(text[..start].chars().next_back()) && !word(text[end..].chars().next());
                let cut = cut_min.is_some_and(|m| matched >= m) && text[end..].starts_with('…');
                if cut
                    || matched >= min
                        && (*reach != Reach::Word || (matched == piece.len() && apart))
                {
                    hidden[start..end].fill(true);
                }
            }
        }
        // A run of hidden characters becomes one `***` (a char's bytes are hidden together).
        let mut out = String::with_capacity(text.len());
        for (i, c) in text.char_indices() {
            if !hidden[i] {
                out.push(c);
            } else if i == 0 || !hidden[i - 1] {
                out.push_str("***");
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

    #[test]
    fn tokens_are_printable_ascii_once_trimmed_and_not_short() {
        assert_eq!(token(" \tghp_x1!~\r\n"), Ok("ghp_x1!~"));
        assert_eq!(
            token("a b"),
            Err(TokenProblem::Characters { control: true })
        );
        let zero_width = token("a\u{200b}b");
        assert_eq!(zero_width, Err(TokenProblem::Characters { control: false }));
        assert_eq!(token(" 1234567 "), Err(TokenProblem::Short { chars: 7 }));
    }

    #[test]
    fn token_shaped_words_are_those_with_a_github_token_prefix() {
        let text = "unexpected 'ghp_A1b' and 'github_pat_11A_x9', not xghp_a1 or ghx_a1";
        assert_eq!(token_shaped(text), ["ghp_A1b", "github_pat_11A_x9"]);
    }

    fn secrets(list: &[&str]) -> Secrets {
        let mut s = Secrets::default();
        for secret in list {
            s.add(secret);
        }
        s
    }

    /// Secrets, text, the text echoed by a server as redacted, and as the tool's own text.
    #[test]
    fn echoed_text_loses_every_part_and_long_start_the_tools_own_text_only_whole_forms() {
        let token = format!("ghp_{}", "A1b2C3d4".repeat(50));
        let cut = format!("token {} rejected", &token[..120]);
        // The tool's own text quotes a value capped (`sanitize::cap`): a secret cut there.
        let capped = format!(
            "released-at \"{}\" is not",
            crate::support::sanitize::cap(&token, 60)
        );
        let table: [(&str, &str, &str, &str); 9] = [
            // As received, white space inside.
            (
                "s3cret\tpass-2024",
                "bad password s3cret\tpass-2024!",
                "bad password ***!",
                "bad password ***!",
            ),
            // Folded or split by the server: each part still goes from echoed text.
            (
                "s3cret\tpass-2024",
                "got s3cret pass-2024",
                "got *** ***",
                "got s3cret pass-2024",
            ),
            (
                "s3cret\tpass-2024",
                "got s3cret\npass-2024",
                "got ***\n***",
                "got s3cret\npass-2024",
            ),
            // A cut echo of a long token; a short start is a word, not a secret.
            (&token, &cut, "token *** rejected", &cut),
            (
                &token,
                "ghp_A1b rejected",
                "ghp_A1b rejected",
                "ghp_A1b rejected",
            ),
            // A secret cut short by a cap goes from both, as a start of eight characters.
            (
                &token,
                &capped,
                "released-at \"***…\" is not",
                "released-at \"***…\" is not",
            ),
            // ... even where it reads as a word: the cap may have cut the secret there.
            ("security-team-2024", "a security…", "a ***…", "a ***…"),
            // A human password's first eight letters stay in the tool's own text.
            (
                "security-team-2024",
                "a security release; security-team-2024",
                "a *** release; ***",
                "a security release; ***",
            ),
            // Character boundaries hold in multibyte text.
            (
                "pässwörd-geheim-ß",
                "é pässwörd-geh€ é →pässwörd-geheim-ß←",
                "é ***€ é →***←",
                "é pässwörd-geh€ é →***←",
            ),
        ];
        for (secret, text, echoed, own) in table {
            let s = secrets(&[secret]);
            assert_eq!(s.redact_echo(text), echoed, "{text}");
            assert_eq!(s.redact(text), own, "{text}");
        }
    }

    /// A short secret (a registry password `db`) is hidden from echoed text where it stands
    /// as a whole word, never from the tool's own text, and never given to the runner.
    #[test]
    fn short_secrets_are_hidden_only_as_whole_words_of_echoed_text() {
        let mut s = Secrets::default();
        assert!(s.add("db").is_empty() && s.add("  ").is_empty());
        let echoed = "password db rejected for docker.io/dbx, db:1, (db)";
        assert_eq!(
            s.redact_echo(echoed),
            "password *** rejected for docker.io/dbx, ***:1, (***)"
        );
        assert_eq!(s.redact(echoed), echoed);
        assert_eq!(Secrets::default().redact_echo("a\tb"), "a\tb");
        assert_eq!(format!("{s:?}"), "Secrets(1 pieces)");
        // Its Basic form is long, and masked everywhere.
        let added = s.add_basic("ci", "db");
        assert_eq!(added, ["Y2k6ZGI="]);
        assert_eq!(s.redact("Basic Y2k6ZGI="), "Basic ***");
    }

    #[test]
    fn echoed_forms_and_basic_credentials_are_hidden_and_reported_once() {
        let mut s = Secrets::default();
        let first = s.add("p%ss/w\"rd");
        assert_eq!(first[0], "p%ss/w\"rd");
        assert!(
            s.add("p%ss/w\"rd").is_empty(),
            "known forms are not added twice"
        );
        s.add_basic("robot", "hunter22");
        let echoed = r#"raw p%ss/w"rd json p%ss/w\"rd url p%25ss%2Fw%22rd b64 cCVzcy93InJk basic cm9ib3Q6aHVudGVyMjI="#;
        assert_eq!(
            s.redact(echoed),
            "raw *** json *** url *** b64 *** basic ***"
        );
    }

    #[test]
    fn a_multi_line_secret_is_masked_line_by_line_but_not_its_short_lines() {
        let mut s = Secrets::default();
        let added = s.add("{\n  \"key\": \"first-secret-line\"\n}");
        assert!(added.contains(&"\"key\": \"first-secret-line\"".to_string()));
        assert!(!added.contains(&"}".to_string()));
        assert_eq!(s.redact("a } b"), "a } b");
    }
}
