//! Secrets: the forms in which a secret may be echoed back, so every masker hides them all.

/// The forms of `secret` to mask: the secret itself, and as it reads when a server or a
/// library echoes it JSON-escaped, Rust-`Debug`-escaped, percent-encoded (RFC 3986
/// unreserved characters kept) or base64-encoded (the runner's own masker adds the same
/// kinds of encodings for the job log). Forms shorter than 4 characters are left out,
/// except the secret itself.
pub fn secret_forms(secret: &str) -> Vec<String> {
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
    ] {
        if form.len() >= 4 && !forms.contains(&form) {
            forms.push(form);
        }
    }
    forms
}
