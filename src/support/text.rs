//! Text helpers shared by the stages and the edges: cutting a body to a size limit.

/// Cuts `body` to at most `limit` characters, ending with a line that says it was cut and
/// where the full text is (`where_full`, e.g. the workflow run's address).
pub fn truncate_body(body: &str, limit: usize, where_full: &str) -> String {
    truncate_body_reserving(body, limit, 0, where_full)
}

/// [`truncate_body`] leaving `reserve` characters free for text added after the cut (the
/// release note's hash, `render::seal_release`); the note still names `limit`.
pub fn truncate_body_reserving(
    body: &str,
    limit: usize,
    reserve: usize,
    where_full: &str,
) -> String {
    let limit_left = limit.saturating_sub(reserve);
    if body.chars().count() <= limit_left {
        return body.to_string();
    }
    let note = format!(
        "\n\n---\n*This text was cut at {limit} characters, GitHub's limit here. The full text is in {where_full}.*\n"
    );
    let keep = limit_left.saturating_sub(note.chars().count());
    let mut cut: String = body.chars().take(keep).collect();
    cut.push_str(&note);
    cut
}
