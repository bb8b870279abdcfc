//! The words of the GitHub writes (`crate::publish`): the log lines saying what was found,
//! written or left alone, and the errors of a write, each in the one shape ([`Words`]).
//! Addresses and names GitHub answered are shown on one line ([`log_line`]).

use super::words::Words;
use super::{Change, MarkerKind};
use crate::digest::Digest;
use crate::support::github::models::{Account, Comment, Issue, Release};
use crate::support::sanitize::{link_url, log_line};

/// An object publishing creates, as its errors and log lines name it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Object {
    /// The release note.
    ReleaseNote,
    /// The tracking issue.
    TrackingIssue,
    /// The deployment.
    Deployment,
    /// A marked comment of this kind.
    Comment(MarkerKind),
}

impl std::fmt::Display for Object {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Object::ReleaseNote => f.write_str("the release note"),
            Object::TrackingIssue => f.write_str("the tracking issue"),
            Object::Deployment => f.write_str("the deployment"),
            // By its marker's name: the update, superseded or convergence comment.
            Object::Comment(kind) => write!(f, "the {} comment", kind.name()),
        }
    }
}

/// An address GitHub answered, on one line.
fn shown(text: &str) -> String {
    log_line(text, 2000)
}

/// An address GitHub answered, as error texts, log lines and comment bodies may quote it:
/// itself when it is a plain `http(s)://` URL ([`link_url`]), else a placeholder (the step
/// outputs and the job summary leave such an address out, with a warning).
fn address(url: &str) -> &str {
    link_url(url).unwrap_or(super::messages::ADDRESS_LEFT_OUT)
}

/// The error when the comment of `kind` this run posted, `comment`, was written by another
/// account (the token's, as GitHub answered the POST) than the one that opened the tracking
/// issue `issue`: later runs count only comments by the issue's author, so every run would
/// post one more. `deleted`: whether the comment was deleted again. An account GitHub did
/// not name is said so. A superseded comment's is a warning: the run goes on without it.
pub(crate) fn comment_by_other_account(
    kind: MarkerKind,
    comment: &Comment,
    issue: &Issue,
    deleted: bool,
) -> Words {
    let account = |a: &Option<Account>| {
        a.as_ref().map_or_else(
            || "an account GitHub did not name".to_string(),
            |a| log_line(&a.login, 100),
        )
    };
    let (posted_as, opened_by) = (account(&comment.user), account(&issue.user));
    let fate = if deleted {
        "it was deleted again".to_string()
    } else {
        format!(
            "deleting it failed too: delete {} by hand",
            shown(&comment.html_url)
        )
    };
    let url = shown(&issue.html_url);
    let fix = match kind {
        // An older issue's courtesy comment: the release goes on without it.
        MarkerKind::SupersededComment => format!(
            "This run goes on without it: close the superseded tracking issue {url} by hand, or \
             run with a GitHub token of {opened_by} (github-token)"
        ),
        _ => format!(
            "Run with the GitHub token that opened the tracking issue {url} (github-token), or \
             another token of {opened_by}"
        ),
    };
    Words::new(format!(
        "{} was posted as {posted_as}, but {opened_by} opened the tracking issue",
        Object::Comment(kind)
    ))
    .help(format!(
        "codeq-rollout edits only comments by the issue's author (anyone else's could be \
         forged), so every run would post one more: {fate}. {fix}"
    ))
}

/// The error when, after a second POST of the comment of `kind` (`posted`: its address),
/// reading the comments again to check that the first POST did not take effect failed.
pub(crate) fn comments_not_reread(kind: MarkerKind, posted: &str) -> Words {
    let name = Object::Comment(kind);
    Words::new(format!(
        "cannot read the comments again after posting {name} a second time"
    ))
    .help(format!(
        "the first attempt may have taken effect: re-run the job, or delete the later of two \
         such comments by hand (this run posted {})",
        shown(posted)
    ))
}

/// The log line (`deleted`) or the error (not `deleted`) about this run's comment `mine`
/// of `kind`, a duplicate of the earlier `first` whose POST took effect after all.
pub(crate) fn duplicate_comment(kind: MarkerKind, mine: &str, first: &str, deleted: bool) -> Words {
    let (name, mine, first) = (Object::Comment(kind), shown(mine), shown(first));
    if deleted {
        return Words::new(format!(
            "deleted {name} {mine}, a duplicate of {first} (the first POST took effect after all)"
        ));
    }
    Words::new(format!(
        "{name} this run posted duplicates an earlier one; deleting it failed"
    ))
    .help(format!(
        "delete {mine} by hand: the first POST took effect after all, {first} stays"
    ))
}

/// The error when the repository holds no release note for `digest` (of `image`, as the
/// user gave it): with no `released-at` (`Some(in_actions)`: named as
/// [`super::words::input_name`] does), nothing says when the release went live; with it
/// (`None`), the deployment still has no commit to target, the note's.
pub(crate) fn no_release_note(digest: &Digest, image: &str, released_at: Option<bool>) -> Words {
    let or = released_at.map_or_else(
        || " (the deployment targets its release note's commit)".to_string(),
        |in_actions| {
            let named = super::words::input_name("released-at", None, in_actions);
            format!(", or give {named}")
        },
    );
    Words::new(format!(
        "no release note for sha256:{} ({}) in the repository",
        digest.short(),
        log_line(image, 60)
    ))
    .help(format!("run announce for this image first{or}"))
}

/// The log line when `digest` has no open tracking issue (a routine release, or the issue
/// closed): no convergence comment is written.
pub(crate) fn no_open_issue(digest: &Digest) -> String {
    format!("no open tracking issue for {digest}: no convergence comment")
}

/// The log line saying what became of the convergence comment at `url` (as GitHub answered
/// it: the tracking issue's for a post a dry run would make); in a dry run, what would be
/// done, then `dry_run`'s body.
pub(crate) fn comment_done(change: Change, url: &str, dry_run: Option<&str>) -> String {
    let url = shown(url);
    let (done, would) = match change {
        Change::Created => ("posted", format!("post the convergence comment on {url}")),
        Change::Updated => (
            "updated",
            format!("edit the convergence comment {url} (its numbers changed)"),
        ),
        Change::Unchanged => (
            "unchanged",
            format!("leave the convergence comment {url} unchanged (same numbers)"),
        ),
    };
    match dry_run {
        None => format!("convergence comment {done}: {url}"),
        Some(body) => format!("dry run: would {would}\n\n----- convergence comment -----\n{body}"),
    }
}

// The steps of publishing, each the context of its error when it fails.

/// Listing the releases.
pub(crate) const LOOKING_UP_RELEASES: &str = "looking for the release note of this digest";
/// Listing the tracking issues.
pub(crate) const LOOKING_UP_ISSUES: &str = "looking for tracking issues";
/// Removing duplicates concurrent runs left.
pub(crate) const REMOVING_DUPLICATES: &str = "removing duplicates left by concurrent runs";
/// Creating or updating the release note.
pub(crate) const PUBLISHING_RELEASE: &str = "publishing the release note";
/// Opening the tracking issue, or keeping its update comment.
pub(crate) const PUBLISHING_ISSUE: &str = "publishing the tracking issue";
/// Commenting on superseded tracking issues.
pub(crate) const SUPERSEDING: &str = "commenting on superseded tracking issues";
/// Looking for the tracking issue of the run that created the release.
pub(crate) const LOOKING_UP_WINNERS_ISSUE: &str =
    "looking up the tracking issue of the run that created the release";

/// `what` failed, with `lines` of help (what exists, where), then what re-running does for
/// a publish that stopped (`advice`), unless the error's own help says it already (`said`:
/// a write that failed twice, [`still_absent`]).
fn rerun(what: &str, mut lines: Vec<String>, advice: &str, said: bool) -> Words {
    if !said {
        lines.push(format!("re-run the job: {advice}"));
    }
    Words::new(what).help(lines.join("\n"))
}

/// The error of a run whose release note (`release`, which this run `created`, or found
/// after losing the race for it) exists while the tracking issue does not (`issue` is
/// `None`), or a step after opening it (`issue`) failed; `said`: the cause already says to
/// re-run.
pub(crate) fn issue_step_failed(
    release: &str,
    created: bool,
    issue: Option<&str>,
    said: bool,
) -> Words {
    let mut lines = vec![format!("the release note: {}", address(release))];
    let what = match (issue, created) {
        (None, true) => "the release note was created, but the tracking issue was not opened",
        (None, false) => {
            "the release note exists, but its tracking issue was neither found nor opened"
        }
        (Some(_), _) => "the release note and the tracking issue exist, but a later step failed",
    };
    lines.extend(issue.map(|issue| format!("the tracking issue: {}", address(issue))));
    let advice = "it opens the issue and creates nothing twice";
    rerun(what, lines, advice, said || issue.is_some())
}

/// The error of a release step that failed (not as a lost race) in a security run, which
/// then opened the tracking issue (`opened`), found it there, or failed at it too
/// (`issue_failed`, after the issue at `issue` was opened, or before); `said`: the release's
/// error already says to re-run.
pub(crate) fn release_step_failed(
    issue: Option<(&str, bool)>,
    issue_failed: Option<&anyhow::Error>,
    said: bool,
) -> Words {
    let what = match (issue, issue_failed) {
        (Some((_, opened)), None) => format!(
            "the release step failed; the tracking issue is {} so that responders have it",
            if opened { "opened" } else { "there" }
        ),
        (Some(_), Some(_)) => {
            "the release step failed; the tracking issue is open, but a later step failed too"
                .into()
        }
        (None, _) => "the release step failed, and opening the tracking issue failed too".into(),
    };
    // The first lines alone, which name no place to set an input.
    let mut lines: Vec<String> = issue_failed
        .map(|e| super::error_words(e, true).what)
        .into_iter()
        .collect();
    lines.extend(issue.map(|(url, _)| format!("the tracking issue: {}", address(url))));
    rerun(
        &what,
        lines,
        "it creates the release note",
        said && issue_failed.is_none(),
    )
}

/// The note when the release POST was refused as existing and a fresh listing found the
/// release `tag`: another run created it, or an earlier one and the listing lagged.
pub(crate) fn lost_race(tag: &str) -> String {
    format!(
        "release {tag} exists already (created meanwhile by another run, or not yet listed when \
         this run looked); using it"
    )
}

/// The notes of a digest already announced by `release` from another commit `sha` (the same
/// image rebuilt); `opening`: its tracking issue is missing, and this run opens it.
pub(crate) fn rebuilt(digest: &Digest, release: &str, sha: &str, opening: bool) -> Vec<String> {
    let mut notes = vec![format!(
        "{digest} is already announced by {} (from commit {sha}): the same image rebuilt from \
         another commit announces nothing new",
        address(release)
    )];
    if opening {
        notes.push(format!(
            "the release note of {digest} has no tracking issue yet (the run that created it \
             failed before opening it): opening it"
        ));
    }
    notes
}

/// The note when no tracking issue for `digest` appeared within `waited` after a lost
/// release race: this run opens it.
pub(crate) fn no_issue_appeared(digest: &Digest, waited: std::time::Duration) -> String {
    format!(
        "no tracking issue for {digest} appeared within {}: no other run is opening it, so this \
         run opens it",
        humantime::format_duration(waited)
    )
}

/// The error when this run opened tracking issue `mine`, then could not read the tracking
/// issues again to check that no other run opened one meanwhile.
pub(crate) fn issues_not_reread(mine: u64) -> Words {
    Words::new(format!(
        "this run opened tracking issue #{mine}, then could not read the tracking issues again"
    ))
    .help(
        "re-run the job: it checks that no other run opened one meanwhile, keeps the lowest \
         number and closes any duplicate",
    )
}

/// The log line when this run closed its tracking issue `mine`, a duplicate of `first`:
/// opened meanwhile by another run, or (`posted_twice`) by this run's first request, whose
/// answer was lost. Closing it failed: [`duplicate_left`].
pub(crate) fn duplicate_issue(mine: u64, first: u64, posted_twice: bool) -> String {
    match posted_twice {
        true => format!(
            "closed tracking issue #{mine}, a duplicate of #{first}: this run's first request \
             opened #{first} although its answer was lost, so the request sent again opened \
             #{mine} too"
        ),
        false => format!(
            "closed tracking issue #{mine}, a duplicate of #{first} opened meanwhile by another run"
        ),
    }
}

/// The note when a write of `what` (e.g. `the tracking issue`) failed with an unknown
/// outcome and a fresh look-up found it: not made twice.
pub(crate) fn found_after_unknown_outcome(what: Object) -> String {
    format!(
        "creating {what} failed with an unknown outcome; a fresh look-up found it, so it was \
         not created twice"
    )
}

/// The warning when the release note `tag` (`url`) differs from the note rendered now but a
/// human edited it (`hashed`: it records the hash of its text, which no longer matches),
/// so it is left as it is.
pub(crate) fn release_edited(tag: &str, url: &str, hashed: bool) -> String {
    format!(
        "release note {tag} ({}) differs from the note rendered now, but it {}: codeq-rollout \
         never overwrites what a human wrote, so it is left as it is; edit it by hand if the new \
         text is wanted",
        address(url),
        match hashed {
            true => "was edited since codeq-rollout wrote it",
            false => "records no hash of its text, so an edit cannot be ruled out",
        }
    )
}

/// The note when the release note `tag` was updated: its body, its title, or both differed.
pub(crate) fn release_updated(tag: &str, body: bool, title: bool) -> String {
    let what = match (body, title) {
        (true, true) => "body and title",
        (false, true) => "title",
        _ => "body",
    };
    format!("release note {tag} updated: its {what} differed from the one rendered now")
}

/// The error when updating release `tag` failed with `err` and reading it again (`reread`),
/// or the second update, failed too.
pub(crate) fn release_not_updated(tag: &str, err: &dyn std::fmt::Display, reread: bool) -> Words {
    match reread {
        true => Words::new(format!(
            "cannot read release {tag} again after a failed update ({err})"
        )),
        false => Words::new(format!("updating release {tag} failed twice ({err})"))
            .help("re-run the job"),
    }
}

/// The error when the release tag `tag` is held by a release codeq-rollout did not create for
/// `digest` (`other`, named by its address, else its id).
pub(crate) fn tag_taken(tag: &str, digest: &Digest, other: &Release) -> Words {
    let other = match other.html_url.as_str() {
        "" => format!("release id {}", other.id),
        url => url.to_string(),
    };
    Words::new(format!(
        "the release tag {tag} is already used by a release that codeq-rollout did not create \
         for sha256:{}",
        digest.short()
    ))
    .help(format!(
        "codeq-rollout never edits such a release ({}): rename or delete it, then re-run",
        shown(&other)
    ))
}

/// The error or the note about a duplicate concurrent runs left of `winner` (release id
/// or tracking issue number, `issue`) for `digest`: `removed`, or removing it failed.
pub(crate) fn duplicate_left(
    issue: bool,
    (loser, winner): (u64, u64),
    digest: &Digest,
    removed: bool,
) -> Words {
    let (what, id, done, doing, todo) = match issue {
        true => ("tracking issue ", "#", "closed", "closing", "close"),
        false => ("", "release id ", "deleted", "deleting", "delete"),
    };
    if removed {
        return Words::new(format!(
            "{done} {what}{id}{loser}, a duplicate of {id}{winner} left by concurrent runs"
        ));
    }
    Words::new(format!(
        "{what}{id}{loser} duplicates {id}{winner} for sha256:{}, and {doing} it failed",
        digest.short()
    ))
    .help(format!("{todo} it by hand"))
}

/// The error when the comments of tracking issue `number`, a duplicate left by concurrent
/// runs, cannot be read.
pub(crate) fn duplicate_not_read(number: u64) -> String {
    format!("reading the comments of tracking issue #{number}, a duplicate left by concurrent runs")
}

/// The warning when responders worked in several tracking issues `numbers` of `digest`
/// (concurrent runs opened them): none is closed; `kept` is reported.
pub(crate) fn duplicates_worked_in(numbers: &[u64], kept: u64, digest: &Digest) -> String {
    let numbers: Vec<String> = numbers.iter().map(|n| format!("#{n}")).collect();
    format!(
        "tracking issues {} all track {digest} (concurrent runs opened them) and responders have \
         worked in each (ticked boxes or comments): codeq-rollout closes none of them; #{kept} is \
         reported, merge the others into it and close them by hand",
        numbers.join(", ")
    )
}

/// The error when a write of `what` was refused as existing (`exists`) or failed with an
/// unknown outcome (`first`), and looking it up again failed.
pub(crate) fn not_looked_up_again(what: Object, first: &dyn std::fmt::Display) -> String {
    format!("looking {what} up again after a failed write ({first}) to avoid a duplicate")
}

/// The error when GitHub refused `what` as existing already, but a fresh look-up does not
/// list it yet (GitHub's listing lags).
pub(crate) fn refused_not_listed(what: Object) -> Words {
    Words::new(format!(
        "GitHub refused {what} as existing already, but a fresh look-up does not list it yet"
    ))
    .help(
        "GitHub's listing lags: re-run the job in a minute; it finds it then and creates only \
         what is missing",
    )
}

/// The error when `what` was still absent after a failed write (`first`, when it differs
/// from the second's), and creating it once more failed too. No help of its own: the second
/// failure's (a GitHub error's, [`super::help`]) says what to do, the re-run included.
pub(crate) fn still_absent(what: &str, first: Option<&dyn std::fmt::Display>) -> Words {
    let first = first.map(|f| format!(" ({f})")).unwrap_or_default();
    Words::new(format!(
        "{what} was still absent after a failed write{first}, and creating it once more failed too"
    ))
}

/// Why the tracking issue kept among duplicates is the one kept, as its closing comment on
/// the others says ([`duplicate_issue_comment`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kept {
    /// It has the lowest number and nobody works in any of them.
    OpenedFirst,
    /// Responders work in it (a ticked box, a comment), whatever its number.
    Worked,
}

/// The comment on a duplicate tracking issue before it is closed, linking the one kept,
/// `number` (at `url`, written only when it is a plain URL; `#N` links it anyway). GitHub
/// reads a comment starting "Duplicate of #N" as marking the issue a duplicate of #N.
pub(crate) fn duplicate_issue_comment(
    number: u64,
    url: &str,
    digest: &Digest,
    why: Kept,
) -> String {
    let url = crate::support::sanitize::link_url(url)
        .map(|url| format!(": {url}"))
        .unwrap_or_default();
    let kept = match why {
        Kept::OpenedFirst => format!("#{number} was opened first"),
        Kept::Worked => {
            format!("Responders work in #{number} (ticked boxes or comments), so it is kept")
        }
    };
    format!(
        "Duplicate of #{number}\n\nTwo codeq-rollout runs announced `{digest}` at the same time \
         and each opened a tracking issue. {kept} and is the one to use{url}\n\n\
         codeq-rollout closes this one.\n",
    )
}

/// The comment left on an older tracking issue of `old` when a newer digest `new` is
/// announced (`release_url`: its release note).
pub(crate) fn superseded_comment(new: &Digest, old: &Digest, release_url: &str) -> String {
    format!(
        "{}\nA newer image supersedes this one: `{new}` ([release note]({release_url})).\n\n\
         The break-glass target is now the new digest: servers still on `{}` or on any other \
         older image are stale. If you run the runbook here, use `DIGEST={new}`. \
         codeq-rollout leaves closing this issue to you.\n",
        super::marker(MarkerKind::SupersededComment, new),
        super::short_digest(old),
    )
}

/// The refusal of the `tracking-labels` input: empty (`None`), or holding `label`, which
/// GitHub does not take (longer than `max` characters, or with a control character).
pub(crate) fn label_refused(label: Option<&str>, max: usize) -> Words {
    let Some(label) = label else {
        return Words::new("tracking-labels is empty").help(
            "tracking issues are found by their labels: give at least one (default \
             security,break-glass)",
        );
    };
    Words::new(format!(
        "tracking-labels has {:?}, which GitHub does not take as a label name",
        crate::support::sanitize::cap(label, 60)
    ))
    .help(format!(
        "shorten or fix it: at most {max} characters (it has {}), no control characters",
        label.chars().count()
    ))
}

/// GitHub's rule of a login, a repository owner's or an assignee's, for a refusal's help
/// ([`crate::support::github::is_login`]; its 39: `LOGIN_MAX_CHARS`, which a test holds it to).
pub(crate) const LOGIN_RULE: &str = "at most 39 letters, digits and single hyphens, not at the start or end (Enterprise Managed Users: then `_` and the enterprise's short code)";

/// The refusal of `login` in the `tracking-assignees` input: written with `@` (`is_login`:
/// a login without it), or not a GitHub login ([`LOGIN_RULE`]).
pub(crate) fn login_refused(login: &str, is_login: bool) -> Words {
    match (is_login, login.strip_prefix('@')) {
        (true, Some(name)) => Words::new(format!("tracking-assignees has \"@{name}\""))
            .help(format!("give the login without @ ({name})")),
        _ => Words::new(format!(
            "tracking-assignees has {:?}, which is not a GitHub login",
            crate::support::sanitize::cap(login, 60)
        ))
        .help(format!(
            "give each assignee's login, comma- or newline-separated: {LOGIN_RULE}"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The login rule's words quote GitHub's longest login.
    #[test]
    fn the_login_rule_quotes_the_longest_login() {
        let max = crate::support::github::LOGIN_MAX_CHARS;
        assert!(LOGIN_RULE.starts_with(&format!("at most {max} letters")));
    }

    /// Every error and log line of publishing in the one shape (what failed on one short
    /// line, then help), an address or account GitHub answered shown on one line, one that is
    /// not a plain URL left out of errors; a dry run's comment says what it would do, then
    /// shows the body.
    #[test]
    fn every_publish_word_in_shape() {
        let d = Digest::parse(
            "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        )
        .unwrap();
        let (issue, comment) = (
            "https://github.com/o/r/issues/7",
            "https://github.com/o/r/issues/7#issuecomment-2",
        );
        let (release, first) = (
            "https://github.com/o/r/releases/tag/lab-9f86d081884c",
            "https://github.com/o/r/issues/7#issuecomment-1",
        );
        let kind = MarkerKind::ConvergenceComment;
        let account = |login: Option<&str>| {
            login.map(|login| Account {
                login: login.into(),
            })
        };
        let posted = |login| Comment {
            id: 2,
            body: None,
            html_url: comment.into(),
            user: account(login),
        };
        let opened = Issue {
            number: 7,
            html_url: issue.into(),
            body: None,
            state: "open".into(),
            comments: 1,
            pull_request: None,
            user: account(Some("bot")),
        };
        // A release GitHub answered without an address: named by its id.
        let unlinked_release = Release {
            id: 5,
            tag_name: "lab-9f86d081884c".into(),
            html_url: String::new(),
            body: None,
            target_commitish: String::new(),
            published_at: None,
            name: None,
        };
        let cause = anyhow::anyhow!("cannot open the tracking issue: GitHub answered 403");
        let errors = [
            comment_by_other_account(kind, &posted(Some("app[bot]")), &opened, true),
            comment_by_other_account(kind, &posted(None), &opened, false),
            comment_by_other_account(MarkerKind::SupersededComment, &posted(None), &opened, true),
            comments_not_reread(kind, comment),
            duplicate_comment(kind, comment, first, false),
            no_release_note(&d, "ghcr.io/org/lab:latest", Some(false)),
            no_release_note(&d, "ghcr.io/org/lab:latest", Some(true)),
            no_release_note(&d, "ghcr.io/org/lab:latest", None),
            issue_step_failed(release, true, None, false),
            issue_step_failed("javascript:alert(1)", false, None, true),
            issue_step_failed(release, true, Some(issue), false),
            release_step_failed(Some((issue, true)), None, false),
            release_step_failed(Some((issue, false)), Some(&cause), false),
            release_step_failed(None, Some(&cause), true),
            issues_not_reread(7),
            release_not_updated("lab-9f86d081884c", &"GitHub answered 502", true),
            release_not_updated("lab-9f86d081884c", &"GitHub answered 502", false),
            tag_taken("lab-9f86d081884c", &d, &unlinked_release),
            duplicate_left(true, (8, 7), &d, false),
            duplicate_left(false, (12, 11), &d, false),
            refused_not_listed(Object::ReleaseNote),
            still_absent("the tracking issue", Some(&"GitHub answered 502")),
            label_refused(None, 50),
            login_refused("@octocat", true),
        ];
        let mut said: Vec<String> = (errors.iter())
            .map(|w| {
                crate::render::words::assert_shape(w);
                w.to_string()
            })
            .collect();
        said.extend([
            duplicate_comment(kind, comment, first, true).to_string(),
            duplicate_issue(8, 7, true),
            duplicate_left(false, (12, 11), &d, true).to_string(),
            no_open_issue(&d),
            comment_done(Change::Created, issue, None),
            comment_done(Change::Unchanged, "https://x.test/\n::error::forged", None),
            comment_done(Change::Updated, comment, Some("BODY")),
            lost_race("lab-9f86d081884c"),
            no_issue_appeared(&d, std::time::Duration::from_secs(26)),
            found_after_unknown_outcome(Object::TrackingIssue),
            release_edited("lab-9f86d081884c", release, false),
            release_updated("lab-9f86d081884c", true, true),
            duplicates_worked_in(&[7, 8], 7, &d),
            not_looked_up_again(Object::ReleaseNote, &"GitHub answered 502"),
        ]);
        said.extend(rebuilt(&d, release, "c4295bd", true));
        insta::assert_snapshot!(said.join("\n---\n"));
    }
}
