//! Stage 5, the only stage that writes: find-or-create the release note and, for security
//! releases, the tracking issue; comment on tracking issues a newer digest supersedes.
//!
//! Identity is the image digest, carried by the hidden marker on the first line of each
//! body ([`render::marker`]) and by the digest-derived release tag. Objects are found by
//! listing (releases: every page, drafts included; issues: by the tracking labels, open and
//! closed), never by title and never through the search API, whose index lags.
//!
//! A run has two steps. [`look_up`] reads what exists, before anything is rendered, so that
//! a re-run renders with the original announce time ([`Found::announced_at`]) and so gets
//! byte-identical bodies. [`publish`] then compares the desired state with what exists and
//! writes only what differs.
//!
//! **The release POST is the lock.** The tag is derived from the digest, and GitHub refuses
//! a second release on a tag with `422 Validation Failed` and the error
//! `{"resource":"Release","code":"already_exists","field":"tag_name"}` (GitHub's REST docs,
//! "client errors": `already_exists` means another resource has the same value for a unique
//! field). So when two runs announce one digest at once, exactly one creates the release; it
//! alone goes on to open the tracking issue and comment on superseded issues. The other
//! looks the releases up again, adopts the winner's (ours by marker, lowest id) and reports
//! the winner's objects without writing. A security run never ends there without its
//! tracking issue (issue 16): the same refusal comes when the listing lagged behind a release
//! whose creator failed before opening the issue, so the loser waits for the issue and opens
//! it itself when none appears (`issue::after_lost_race`). No listing follows a successful
//! create: a first
//! routine run costs one listing of releases, one of open tracking issues and one POST; a
//! first security run one more POST (see issue 9's budgets).
//!
//! The order a first run writes in, and how a re-run completes a failed one:
//!
//! 1. the release note (the lock). If it fails for any reason but `already_exists` (a 403
//!    because the commit changes `.github/workflows/`, a 5xx after which a fresh look-up
//!    finds nothing), a security run still opens the tracking issue before failing, so the
//!    issue exists even when the release step failed; the re-run then creates the release;
//! 2. the tracking issue (security), by the run that created the release, or by a run that
//!    finds the release with no issue for its digest (a re-run completing a failed run);
//! 3. the superseded comments on older open tracking issues: posted without reading comments
//!    by the run that created the release (none of ours can exist before the release does);
//!    a run that finds the release checks each open older issue for its comment first.
//!
//! Writes are never retried blindly ([`once`]): after a write that failed or timed out, the
//! object is looked up again and created once more only if absent. Duplicates can still
//! appear (GitHub's tag check is not atomic, and a run that lists between another run's
//! release and issue opens an issue too): whichever run finds them keeps the lowest id
//! (issues: number), deletes the other releases and closes the other issues with a link.

pub(crate) mod comment;
pub(crate) mod deployment;
mod duplicates;
mod find;
mod issue;
pub(crate) mod once;
mod release;
mod supersede;

use crate::digest::{Digest, ImageSource};
use crate::render::publish as words;
use crate::render::{self, ISSUE_BODY_LIMIT, LABEL_MAX_CHARS, RELEASE_BODY_LIMIT};
use crate::support::github::models::{Issue, NewIssue, NewRelease, Release};
use crate::support::github::{GitHub, GitHubError, Kind, is_login};
use crate::support::sanitize;
use anyhow::{Context, Result, bail};
use once::Made;
use time::OffsetDateTime;

pub(crate) use crate::render::Change;

/// What identifies this run's objects on GitHub; known before anything is rendered.
#[derive(Debug, Clone)]
pub struct Target {
    /// The digest being announced.
    pub digest: Digest,
    /// The release tag derived from it ([`release_tag`]).
    pub tag: String,
    /// The image repository announced, e.g. `ghcr.io/org/lab` ([`render::image_repository`]):
    /// a release supersedes only tracking issues of the same image.
    pub image: String,
    /// Labels that find tracking issues (`--tracking-labels`), at least one.
    pub tracking_labels: Vec<String>,
    /// Whether this run has a tracking issue (security tier).
    pub tracking_issue: bool,
}

impl Target {
    /// The target of the image `source` at `digest`: its [`release_tag`] and image
    /// repository ([`render::image_repository`]); `tracking_labels` and `tracking_issue` as
    /// the fields say.
    pub(crate) fn new(
        source: &ImageSource,
        digest: &Digest,
        tracking_labels: &[String],
        tracking_issue: bool,
    ) -> Self {
        Self {
            digest: digest.clone(),
            tag: release_tag(&source.short_name(), digest),
            image: render::image_repository(&source.display()),
            tracking_labels: tracking_labels.to_vec(),
            tracking_issue,
        }
    }
}

/// What exists on GitHub for a [`Target`], as [`look_up`] read it.
#[derive(Debug, Clone)]
pub struct Found {
    target: Target,
    releases: Vec<Release>,
    /// Tracking issues: all states for a security run, open ones for a routine run (the
    /// ones it may supersede).
    issues: Vec<Issue>,
    /// The number of the duplicate tracking issue kept because responders work in it, when
    /// that is not the lowest ([`duplicates::settle`]).
    kept_issue: Option<u64>,
}

impl Found {
    /// Our release for the digest (the lowest id if a race left several).
    pub(crate) fn release(&self) -> Option<&Release> {
        find::our_releases(&self.releases, &self.target.digest, &self.target.tag)
            .first()
            .copied()
    }

    /// Our tracking issue for the digest, open or closed: the lowest number if several,
    /// unless the clean-up of duplicates kept another one because responders work in it.
    pub(crate) fn issue(&self) -> Option<&Issue> {
        let ours = find::our_issues(&self.issues, &self.target.digest);
        self.kept_issue
            .and_then(|kept| ours.iter().find(|i| i.number == kept).copied())
            .or_else(|| ours.first().copied())
    }

    /// The same, with the tracking issue `kept` (a number) as ours when it is `Some`.
    fn keeping(&self, kept: Option<u64>) -> Found {
        Found {
            kept_issue: kept.or(self.kept_issue),
            ..self.clone()
        }
    }

    /// When the digest was first announced: the time recorded in our release note, else its
    /// publication time, in UTC (a time outside the years 0000 to 9999 in UTC counts as
    /// none, `crate::support::time::parse_rfc3339`); `None` when there is no release yet. A
    /// re-run renders with it, so the convergence deadlines, and with them the whole note,
    /// stay the same.
    pub(crate) fn announced_at(&self) -> Option<OffsetDateTime> {
        let release = self.release()?;
        render::announced_at(release.body.as_deref().unwrap_or(""))
            .or_else(|| crate::support::time::parse_rfc3339(release.published_at.as_deref()?).ok())
    }
}

/// Reads what exists for `target`: every page of releases (drafts included), then, with
/// `issues`, the tracking issues in one listing that serves find-or-create, the supersede
/// check and the clean-up of duplicates (all states for a security run, open ones for a
/// routine run). Two requests on a repository with under 100 of each (one without `issues`,
/// for `status` without `comment`); a page is followed only while the previous one was full.
///
/// # Errors
/// A failed call, or the release tag held by a release that codeq-rollout did not create
/// (nothing is written then).
pub async fn look_up(gh: &GitHub, target: &Target, issues: bool) -> Result<Found> {
    let releases = (gh.list_releases().await).context(words::LOOKING_UP_RELEASES)?;
    find::check_tag(&releases, &target.digest, &target.tag)?;
    let state = if target.tracking_issue { "all" } else { "open" };
    let issues = match issues {
        true => (gh.list_issues(&target.tracking_labels, state).await)
            .context(words::LOOKING_UP_ISSUES)?,
        false => Vec::new(),
    };
    let (target, kept_issue) = (target.clone(), None);
    Ok(Found {
        target,
        releases,
        issues,
        kept_issue,
    })
}

/// Our tracking issue for `target`'s digest as GitHub lists it now (open or closed; the
/// lowest number if several): one listing of the tracking issues.
///
/// # Errors
/// A failed call.
pub(crate) async fn tracking_issue(gh: &GitHub, target: &Target) -> Result<Option<Issue>> {
    let issues = gh.list_issues(&target.tracking_labels, "all").await?;
    Ok(find::our_issues(&issues, &target.digest)
        .first()
        .map(|i| (*i).clone()))
}

/// The desired state of one run, rendered with `Found::announced_at` when there is one.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The release to create; only its body is ever sent again.
    pub release: NewRelease,
    /// The tracking issue (security only).
    pub issue: Option<IssuePlan>,
    /// The release note's address as it will be: `{server}/{o}/{r}/releases/tag/{tag}`.
    pub release_url: String,
    /// Where the full text of a body cut to GitHub's limit can be read (the workflow run).
    pub full_text_at: String,
    /// After the release POST was refused as existing: the waits before looking again for
    /// the tracking issue the release's creator opens (`issue::after_lost_race`).
    pub issue_waits: Vec<std::time::Duration>,
}

/// The tracking issue part of a [`Plan`].
#[derive(Debug, Clone)]
pub struct IssuePlan {
    /// The issue to open. Its body links the release note's predicted address.
    pub new: NewIssue,
    /// The fingerprint of the facts it states (`render::evidence_fingerprint`).
    pub evidence: String,
    /// The bot's update comment, sent when an existing issue records other facts
    /// (`render::tracking_update`).
    pub update_comment: String,
}

/// What publishing did, recorded by each step as it goes: what exists (so that a failed
/// run's outputs and job summary still name it, [`Unfinished`]) and what was written.
#[derive(Debug, Clone, Default)]
pub struct Published {
    /// The release note's web address and what happened to it; `Some` once it exists
    /// (always when publishing succeeded).
    pub(crate) release: Option<(String, Change)>,
    /// The tracking issue's web address and what happened to it (security only).
    pub(crate) issue: Option<(String, Change)>,
    /// What happened to the bot's update comment on the tracking issue, when one was due.
    pub(crate) update_comment: Option<Change>,
    /// Numbers of older tracking issues that got a "superseded" comment this run.
    pub(crate) superseded: Vec<u64>,
    /// Lines for the log: what was found and why nothing, or something unusual, was done.
    pub(crate) notes: Vec<String>,
    /// Lines to show as warnings: what was left alone that a human should look at (a release
    /// note a human edited, so a changed note was not sent).
    pub(crate) warnings: Vec<String>,
    /// Whether this run wrote anything, also what a report of objects leaves out (a
    /// duplicate tracking issue it opened, commented on and closed): set right after each
    /// successful write, before the steps that may still fail.
    pub(crate) wrote: bool,
}

/// A publish that stopped at an error: what it had written, or found, by then (so that the
/// failed run's outputs and job summary still name it) and the error.
#[derive(Debug)]
pub struct Unfinished {
    /// What publishing did before it stopped.
    pub(crate) published: Published,
    /// Why publishing stopped.
    pub error: anyhow::Error,
}

impl Published {
    /// Whether this run changed what is announced (the `changed` output).
    pub(crate) fn changed(&self) -> bool {
        let objects = [&self.release, &self.issue].into_iter().flatten();
        let mut changes = objects.map(|(_, c)| *c).chain(self.update_comment);
        self.wrote || !self.superseded.is_empty() || changes.any(|c| c != Change::Unchanged)
    }
}

/// Makes GitHub match `plan`, given what `found` saw (see the module docs for the order).
/// Bodies over GitHub's limits are cut with a note saying where the full text is.
///
/// When the digest was already announced from another commit (the same image rebuilt),
/// nothing is written: a rebuild that produced an identical image announces nothing.
///
/// # Errors
/// A failed GitHub call (with the permission to add where that is the cause), or a
/// duplicate that could not be removed; with what exists by then (`Unfinished`).
pub async fn publish(gh: &GitHub, found: &Found, plan: &Plan) -> Result<Published, Unfinished> {
    let mut done = Published::default();
    let run = Run { gh, found, plan };
    let outcome = match found.release() {
        None => run.first_run(&mut done).await,
        Some(release) => run.rerun(release, &mut done).await,
    };
    match outcome {
        Ok(()) => Ok(done),
        Err(error) => Err(Unfinished {
            error,
            published: done,
        }),
    }
}

/// One publish: the client, what exists and what is wanted; each step records what it did
/// in a [`Published`].
#[derive(Clone, Copy)]
struct Run<'a> {
    gh: &'a GitHub,
    found: &'a Found,
    plan: &'a Plan,
}

impl Run<'_> {
    /// Our release exists: a re-run, or a run completing a failed one. Writes only what is
    /// missing or differs, the release body last.
    async fn rerun(self, release: &Release, done: &mut Published) -> Result<()> {
        let Run { gh, found, plan } = self;
        done.release = Some((release.html_url.clone(), Change::Unchanged));
        let unchanged = |found: &Found| {
            found
                .issue()
                .map(|i| (i.html_url.clone(), Change::Unchanged))
        };
        done.issue = unchanged(found);
        if !same_commit(release, plan) {
            return self.rebuilt(release, done).await;
        }
        let (notes, warnings) = (&mut done.notes, &mut done.warnings);
        let kept = (duplicates::settle(gh, found, notes, warnings).await)
            .context(words::REMOVING_DUPLICATES)?;
        let found = &found.keeping(kept);
        done.issue = unchanged(found);
        if let Some(issue_plan) = fitted_issue(plan) {
            (issue::ensure(gh, found, &issue_plan, done).await).context(words::PUBLISHING_ISSUE)?;
        }
        let run = Run { found, ..self };
        run.supersede(&release.html_url, true, done).await?;
        run.update_release(release, done).await
    }

    /// Comments on the tracking issues the release note at `url` supersedes
    /// ([`supersede::comment`], which reads their comments first when `check_first`), linking
    /// the note by `url` when it is a plain URL, else by [`Plan::release_url`].
    async fn supersede(self, url: &str, check_first: bool, done: &mut Published) -> Result<()> {
        let link = sanitize::link_url(url).unwrap_or(&self.plan.release_url);
        let commented = supersede::comment(self.gh, self.found, link, check_first, done).await;
        commented.context(words::SUPERSEDING)
    }

    /// Our release `release`, found, compared with the note rendered now
    /// ([`release::update`]): an older note of ours is updated, a human's edit is left with a
    /// warning.
    async fn update_release(self, release: &Release, done: &mut Published) -> Result<()> {
        let (body, name) = (release_body(self.plan), &self.plan.release.name);
        let (notes, warnings) = (&mut done.notes, &mut done.warnings);
        let updated = release::update(self.gh, self.found, release, &body, name, notes, warnings);
        done.release = Some(updated.await.context(words::PUBLISHING_RELEASE)?);
        Ok(())
    }

    /// The digest is already announced from another commit: the same image rebuilt. Nothing
    /// is written, except that a security release without its tracking issue (the run that
    /// created the release failed before opening it) gets it now: a security run never ends
    /// without it.
    async fn rebuilt(self, release: &Release, done: &mut Published) -> Result<()> {
        let opening = fitted_issue(self.plan).filter(|_| self.found.issue().is_none());
        let (digest, sha) = (&self.found.target.digest, &release.target_commitish);
        done.notes.extend(words::rebuilt(
            digest,
            &release.html_url,
            sha,
            opening.is_some(),
        ));
        if let Some(issue_plan) = opening {
            let ensured = issue::ensure(self.gh, self.found, &issue_plan, done).await;
            ensured.context(words::PUBLISHING_ISSUE)?;
        }
        Ok(())
    }

    /// No release of ours at look-up: create it (the lock), then, when this run made it, the
    /// tracking issue and the superseded comments.
    async fn first_run(self, done: &mut Published) -> Result<()> {
        let Run { gh, found, plan } = self;
        let body = release_body(plan);
        let mine = match release::create(gh, found, plan, &body, &mut done.notes).await {
            Ok((winner, Made::FoundAfterConflict)) => return self.lost_race(winner, done).await,
            Ok((mine, _)) => mine,
            Err(err) => return Err(self.release_failed(err, done).await),
        };
        done.release = Some((mine.html_url.clone(), Change::Created));
        if let Some(issue_plan) = fitted_issue(plan) {
            let ensured = issue::ensure(gh, found, &issue_plan, done).await;
            ensured.map_err(|err| issue_step_failed(err, &mine.html_url, true, done))?;
        }
        self.supersede(&mine.html_url, false, done).await
    }

    /// The release step failed (not as a lost race): a security run opens the tracking issue
    /// anyway, so that it exists even though the release does not, then the run fails with
    /// the release's error.
    async fn release_failed(self, err: anyhow::Error, done: &mut Published) -> anyhow::Error {
        let Run { gh, found, plan } = self;
        // Refused as existing although no listing shows the release: another run may be
        // creating it right now and open its issue next, so wait for that issue as a run that
        // lost the race does.
        let refused_as_existing = err.chain().any(|cause| {
            (cause.downcast_ref::<GitHubError>()).is_some_and(|e| e.kind == Kind::AlreadyExists)
        });
        let err = err.context(words::PUBLISHING_RELEASE);
        let Some(issue_plan) = fitted_issue(plan) else {
            return err;
        };
        let said = once::StillAbsent::within(&err);
        let outcome = match refused_as_existing && found.issue().is_none() {
            true => issue::after_lost_race(gh, found, &issue_plan, &plan.issue_waits, done).await,
            false => issue::ensure(gh, found, &issue_plan, done).await,
        };
        let issue = (done.issue.as_ref()).map(|(url, c)| (url.as_str(), *c == Change::Created));
        err.context(words::release_step_failed(
            issue,
            outcome.err().as_ref(),
            said,
        ))
    }

    /// The release POST was refused as existing, and a fresh listing found our release:
    /// another run created it just now, or it was there already but not listed (GitHub's
    /// listing lagging behind a release that an earlier run created before it failed). A
    /// routine run writes nothing more. A security run must end with its tracking issue: it
    /// takes the one the release's creator opens, or opens it itself when none appears
    /// ([`issue::after_lost_race`]), and then also posts the superseded comments the creator
    /// would have posted. Found only now, the release is compared with the note rendered now
    /// as a listed one is ([`Run::update_release`]); one from another commit (the same image
    /// rebuilt) is left alone.
    async fn lost_race(self, winner: Release, done: &mut Published) -> Result<()> {
        let Run { gh, found, plan } = self;
        done.notes.push(words::lost_race(&winner.tag_name));
        done.release = Some((winner.html_url.clone(), Change::Unchanged));
        if let Some(issue_plan) = fitted_issue(plan) {
            let waits = &plan.issue_waits;
            let ensured = issue::after_lost_race(gh, found, &issue_plan, waits, done).await;
            ensured.map_err(|err| issue_step_failed(err, &winner.html_url, false, done))?;
            if matches!(done.issue, Some((_, Change::Created))) {
                self.supersede(&winner.html_url, true, done).await?;
            }
        }
        if same_commit(&winner, plan) {
            self.update_release(&winner, done).await?;
        }
        Ok(())
    }
}

/// `err`, the tracking issue step's, in a run where the release note `release` exists (this
/// run `created` it, or found it after losing the race for it): said with what exists
/// ([`words::issue_step_failed`]).
fn issue_step_failed(
    err: anyhow::Error,
    release: &str,
    created: bool,
    done: &Published,
) -> anyhow::Error {
    let (said, issue) = (once::StillAbsent::within(&err), done.issue.as_ref());
    let issue = issue.map(|(url, _)| url.as_str());
    err.context(words::issue_step_failed(release, created, issue, said))
}

/// Whether `release` targets the commit `plan` was made for (not the same image rebuilt
/// from another commit).
fn same_commit(release: &Release, plan: &Plan) -> bool {
    (release.target_commitish).eq_ignore_ascii_case(&plan.release.target_commitish)
}

/// The tracking issue part of `plan`, bodies cut to GitHub's limit.
fn fitted_issue(plan: &Plan) -> Option<IssuePlan> {
    let mut fitted = plan.issue.clone()?;
    let fit = |body: &str| render::truncate_body(body, ISSUE_BODY_LIMIT, &plan.full_text_at);
    fitted.new.body = fit(&fitted.new.body);
    fitted.update_comment = fit(&fitted.update_comment);
    Some(fitted)
}

/// The release note as sent: cut to GitHub's limit (leaving room for the hash), then sealed
/// with the hash of its text ([`render::seal_release`]), so that a later run can tell a
/// human's edit from its own text.
fn release_body(plan: &Plan) -> String {
    let body = &plan.release.body;
    let reserve = render::seal_release(body)
        .chars()
        .count()
        .saturating_sub(body.chars().count());
    render::seal_release(&render::truncate_body_reserving(
        body,
        RELEASE_BODY_LIMIT,
        reserve,
        &plan.full_text_at,
    ))
}

/// Which of `plan`'s bodies GitHub's limits cut: the release note's, the tracking issue's.
/// Their full text is then due where the cut note says ([`Plan::full_text_at`]).
pub(crate) fn cut_bodies(plan: &Plan) -> (bool, bool) {
    let release = release_body(plan) != render::seal_release(&plan.release.body);
    let issue = plan
        .issue
        .as_ref()
        .zip(fitted_issue(plan))
        .is_some_and(|(whole, fitted)| whole.new.body != fitted.new.body);
    (release, issue)
}

/// Tracking labels or assignees without duplicates: GitHub compares both without case, so
/// names equal but for case count once, the first spelling kept (`Security,security` sends
/// `Security`). Order is kept.
pub(crate) fn dedupe_names(names: &[String]) -> Vec<String> {
    let mut kept: Vec<String> = Vec::new();
    for name in names {
        if !kept.iter().any(|k| k.eq_ignore_ascii_case(name)) {
            kept.push(name.clone());
        }
    }
    kept
}

/// The release tag for `digest`: `<name>-<12 hex>`, e.g. `lab-9f86d081884c`; no `/`, so it
/// needs no escaping in API paths.
pub fn release_tag(short_name: &str, digest: &Digest) -> String {
    format!("{short_name}-{}", digest.short())
}

/// Checks that `issues` can be found by labels, and that GitHub takes each: at least one
/// tracking label is needed, each at most [`LABEL_MAX_CHARS`] characters (GitHub's) without
/// control characters. Checked before anything is published: GitHub refuses the issue (422)
/// only after the release was created.
///
/// # Errors
/// An empty list, or the first label GitHub would refuse ([`words::label_refused`]).
pub(crate) fn check_tracking_labels(labels: &[String]) -> Result<()> {
    if labels.is_empty() {
        bail!(words::label_refused(None, LABEL_MAX_CHARS));
    }
    for label in labels {
        let chars = label.chars().count();
        if chars > LABEL_MAX_CHARS || label.chars().any(char::is_control) {
            bail!(words::label_refused(Some(label), LABEL_MAX_CHARS));
        }
    }
    Ok(())
}

/// Checks that GitHub can assign the tracking issue to each of `assignees`: each a login
/// ([`is_login`], a repository owner's rule), written without `@`. Checked before anything is
/// published: GitHub refuses the issue (422) only after the release was created, and every
/// re-run again.
///
/// # Errors
/// The first entry that is not a login ([`words::login_refused`]).
pub(crate) fn check_tracking_assignees(assignees: &[String]) -> Result<()> {
    for login in assignees {
        let bare = login.strip_prefix('@');
        let ok = is_login(bare.unwrap_or(login));
        if !ok || bare.is_some() {
            bail!(words::login_refused(login, ok));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owned(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| (*n).to_string()).collect()
    }

    /// Labels and logins GitHub would refuse (422, after the release is published) are
    /// refused first, each with what to do; those it takes pass.
    #[test]
    fn tracking_labels_and_assignees_github_would_refuse_are_refused_first() {
        assert!(check_tracking_labels(&owned(&["security", "break-glass"])).is_ok());
        assert!(check_tracking_labels(&owned(&[&"x".repeat(50)])).is_ok());
        // An Enterprise Managed User's login ends in `_` and the enterprise's short code.
        let logins = ["octocat", "ana-bo", "x1", "octocat_acme"];
        assert!(check_tracking_assignees(&owned(&logins)).is_ok());
        let labels = [
            vec![],
            vec!["x".repeat(51)],
            vec!["ok".into(), "a\u{1}b".into()],
        ];
        let logins = [
            "@octocat",
            "bad user!",
            "-lead",
            "lead-",
            "ana--bo",
            &"a".repeat(40),
            "@",
            "dependabot[bot]",
        ];
        let refused: Vec<String> = (labels.iter().map(|l| check_tracking_labels(l)))
            .chain(
                logins
                    .iter()
                    .map(|l| check_tracking_assignees(&owned(&[l]))),
            )
            .map(|outcome| outcome.unwrap_err().to_string())
            .collect();
        insta::assert_snapshot!(refused.join("\n"));
    }
}
