//! Stage 2's edge: which pull requests are behind the release, by `GITHUB_EVENT_NAME`.
//!
//! Pull requests and commits are read in the repository the event came from
//! ([`RunContext::event_repository`]: `GITHUB_REPOSITORY`), even when the `repository` input
//! sends the release and the tracking issue elsewhere.
//!
//! Where the labels come from (issue 3; `GITHUB_SHA` by event: `../shared/DESIGN.md`):
//! - `push`: `GET /repos/{o}/{r}/commits/{sha}/pulls` (every page) for the pushed commit and
//!   every commit in `commits[]`. Only merged pull requests into the pushed branch whose merge
//!   commit is one of the pushed commits count (a squash, merge or rebase merge); open ones
//!   and ones into other branches are ignored. The index lags a fresh merge by seconds, so
//!   commits without such a pull request are asked again on a bounded backoff schedule; then
//!   the `(#N)` of a squash subject (or `Merge pull request #N` of a merge commit) is fetched
//!   directly and checked the same way. Nothing at all is a failed look-up, not "unlabeled".
//!   A push deleting its ref has nothing to announce (a failed look-up that says so).
//! - Every commit of a push counts, and none is skipped silently: a commit still without a
//!   merged pull request after all that (a direct push, or an index that lags past the
//!   retries), or commits not looked up at all (more than [`MAX_PUSH_COMMITS`], or a payload
//!   listing fewer than its `size`), make the look-up [`Found::Incomplete`]. That is the safe
//!   choice: such a commit may be the security fix, so only a security label found on the
//!   rest decides; otherwise the run fails naming the commits, unless the tier input or an
//!   explicit `unlabeled-tier` says what to do.
//! - `merge_group` (merge queue): `merge_group.head_sha` into `merge_group.base_ref`, then
//!   as `push`. A group is built before its pull requests merge, so GitHub usually lists none
//!   merged yet and the run fails saying so: announce from the queue's push instead.
//! - `pull_request` / `pull_request_target` (closed and merged): the payload's pull request;
//!   it is re-fetched (`GET /repos/{o}/{r}/pulls/{n}`) when the payload's labels carry no
//!   tier label (labels added after the event) and the labels decide the tier, or when its
//!   `merge_commit_sha` is null. The release targets its `merge_commit_sha`; without one, a
//!   warning says the release targets `GITHUB_SHA` instead.
//! - `workflow_run`: `workflow_run.head_sha` on `workflow_run.head_branch`, then as `push`
//!   (its `pull_requests[]` carry no labels); a run triggered by `schedule` or
//!   `workflow_dispatch` has no pull request. The release targets `head_sha`.
//! - `workflow_dispatch`, `schedule` and anything else: no pull request.
//!
//! A failed call (403, 404, 5xx after the read client's retries) or a look-up that cannot run
//! (a dry run without a token) becomes [`Found::LookupFailed`] with what was looked up and
//! which failure, as data ([`LookupFailure`]; `render::reasons` words it and its fix);
//! [`crate::tier::decide`] turns it into an error or an explicit fallback.

use crate::context::RunContext;
use crate::support::github::GitHub;
use crate::support::github::models::PullRequest as ApiPullRequest;
use crate::tier::{
    Commits, Elsewhere, Evidence, Found, LabelRules, Lookup, LookupFailure, LookupNote,
    LookupOrigin, LookupTraffic, Missing, NoClient, PayloadList, PayloadProblem, PullRequest,
    Refetch, SubjectMiss, Unexamined,
};
use std::collections::BTreeMap;
use std::time::Duration;

/// At most this many commits of one push are looked up (the newest ones). Each costs a
/// request per try (up to 4 while the index lags, and one for the `(#N)` fallback), against
/// the 1,000 requests an hour `GITHUB_TOKEN` gets per repository; a push payload lists up to
/// 2048. A push with more makes the look-up [`Found::Incomplete`]: a security label among
/// these decides, otherwise the run fails asking for the tier input.
pub(crate) const MAX_PUSH_COMMITS: usize = 100;

/// How to look up.
pub(crate) struct LookupOptions<'a> {
    /// The client; `None` in a dry run without a token (look-ups that need it then fail).
    pub(crate) github: Option<&'a GitHub>,
    /// The tier label lists (a `pull_request` payload without a tier label is re-fetched).
    pub(crate) rules: &'a LabelRules,
    /// Waits between tries of the commit look-up; tries = waits + 1.
    pub(crate) backoff: &'a [Duration],
    /// Whether the labels decide the tier (the tier input is `auto`). When the tier input
    /// decides, the pull requests are only listed in the release note: a `pull_request`
    /// payload's labels are not re-fetched and the commit look-up is tried once.
    pub(crate) labels_decide: bool,
}

/// The pull requests behind the release, and the commit the release is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Behind {
    /// What tier resolution needs.
    pub(crate) evidence: Evidence,
    /// The commit the event says the release is for (40 lower-case hex): the pushed commit,
    /// a merged PR's `merge_commit_sha`, a `workflow_run`'s `head_sha`; `None` when the event
    /// names none (then `GITHUB_SHA`).
    pub(crate) commit: Option<String>,
}

impl Behind {
    /// What was found from `origin`, without notes, and the commit the release targets.
    fn plain(origin: LookupOrigin, found: Found, commit: Option<String>) -> Self {
        Self {
            evidence: Evidence {
                origin,
                found,
                notes: Vec::new(),
            },
            commit,
        }
    }

    /// The look-up from `origin` failed with `failure`; the event names no commit.
    fn failed(origin: LookupOrigin, failure: LookupFailure) -> Self {
        Self::plain(origin, Found::LookupFailed(Box::new(failure)), None)
    }
}

/// Finds the pull requests behind this run's release. Never fails: a failed look-up is
/// reported as [`Found::LookupFailed`] so that the tier rules decide what it means.
pub(crate) async fn resolve(ctx: &RunContext, opts: &LookupOptions<'_>) -> Behind {
    // The client is bound to the release repository; read where the event came from.
    let elsewhere = match (opts.github, &ctx.event_repository) {
        (Some(gh), Some(repo)) if gh.repository() != repo => Some(gh.for_repository(repo.clone())),
        _ => None,
    };
    let opts = &LookupOptions {
        github: elsewhere.as_ref().or(opts.github),
        ..*opts
    };
    match ctx.event_name.as_str() {
        "push" => push(ctx, opts).await,
        "merge_group" | "workflow_run" => head_event(ctx, opts).await,
        "pull_request" | "pull_request_target" => pull_request_event(ctx, opts).await,
        "" => Behind::plain(LookupOrigin::OutsideActions, Found::NoPullRequest, None),
        name => Behind::plain(event_origin(name), Found::NoPullRequest, None),
    }
}

async fn push(ctx: &RunContext, opts: &LookupOptions<'_>) -> Behind {
    let event = &ctx.event;
    let target = event.git_ref.as_deref().unwrap_or("its ref");
    let after = event.after.as_deref().map(str::trim).unwrap_or_default();
    let zeros = !after.is_empty() && after.bytes().all(|b| b == b'0');
    if event.deleted || zeros {
        let target = target.to_string();
        let origin = LookupOrigin::PushDeleting {
            target: target.clone(),
        };
        return Behind::failed(origin, LookupFailure::PushDeleted { target });
    }
    let Some(head) = commit_sha(after).or_else(|| ctx.sha.clone()) else {
        return failed(event_origin("push"), PayloadProblem::NoPushedCommit);
    };
    let branch = event.pushed_branch();
    let origin = LookupOrigin::Push {
        head: short(&head),
        to: branch.unwrap_or(target).to_string(),
    };
    let mut commits: Vec<(String, String)> = event
        .commits
        .iter()
        .filter_map(|c| Some((commit_sha(&c.id)?, c.message.clone())))
        .collect();
    let listed = event.commits.len();
    if !commits.iter().any(|(sha, _)| *sha == head) {
        let message = event
            .head_commit
            .as_ref()
            .filter(|c| commit_sha(&c.id).as_deref() == Some(head.as_str()))
            .map(|c| c.message.clone())
            .unwrap_or_default();
        commits.push((head.clone(), message));
    }
    // `size` (Events API copies of a push) counts commits the payload may not list.
    let carried = event
        .size
        .and_then(|n| usize::try_from(n).ok())
        .unwrap_or(0)
        .max(commits.len());
    let examined = commits.len().min(MAX_PUSH_COMMITS);
    let not_examined = carried - examined;
    let unexamined = (not_examined > 0).then(|| Unexamined {
        origin: origin.clone(),
        count: not_examined,
        carried,
        listed,
        payload: if listed >= crate::event::MAX_COMMITS {
            PayloadList::AtLimit
        } else if carried > commits.len() {
            PayloadList::Fewer
        } else {
            PayloadList::All
        },
    });
    commits.drain(..commits.len() - examined);
    let found = merged_pull_requests(ctx, opts, &commits, branch, &origin, unexamined).await;
    Behind::plain(origin, found, Some(head))
}

/// `merge_group` (the group's temporary commit, into its base branch) and `workflow_run` (the
/// commit the triggering run built, on its branch; no pull request for a `schedule` or
/// `workflow_dispatch` run): the pull requests behind that one commit, looked up as a push of
/// it, and the release targets it.
async fn head_event(ctx: &RunContext, opts: &LookupOptions<'_>) -> Behind {
    let event = ctx.event_name.as_str();
    let payload = match event {
        "merge_group" => ctx.event.merge_group.as_ref(),
        _ => ctx.event.workflow_run.as_ref(),
    };
    let Some(part) = payload else {
        let part = event.to_string();
        return failed(event_origin(event), PayloadProblem::NoPart { part });
    };
    let Some(head) = commit_sha(&part.head_sha) else {
        let (event, text) = (event.to_string(), part.head_sha.clone());
        return failed(
            event_origin(&event),
            PayloadProblem::BadHeadSha { event, text },
        );
    };
    let triggered_by = part.event.as_deref().unwrap_or("unknown").to_string();
    let (branch, origin) = if event == "merge_group" {
        let base = part.base_ref.as_deref();
        let branch = base.map(|r| r.strip_prefix("refs/heads/").unwrap_or(r));
        let branch = branch.filter(|b| !b.is_empty());
        let into = branch.map(str::to_string);
        (
            branch,
            LookupOrigin::MergeGroup {
                head: short(&head),
                into,
            },
        )
    } else if matches!(triggered_by.as_str(), "schedule" | "workflow_dispatch") {
        let origin = LookupOrigin::RunWithoutPullRequests { triggered_by };
        return Behind::plain(origin, Found::NoPullRequest, Some(head));
    } else {
        let branch = part.head_branch.as_deref().filter(|b| !b.is_empty());
        let origin = LookupOrigin::WorkflowRun {
            head: short(&head),
            triggered_by,
            branch: branch.map(str::to_string),
        };
        (branch, origin)
    };
    let message = part.head_commit.as_ref().map(|c| c.message.clone());
    let commits = [(head.clone(), message.unwrap_or_default())];
    let found = merged_pull_requests(ctx, opts, &commits, branch, &origin, None).await;
    Behind::plain(origin, found, Some(head))
}

async fn pull_request_event(ctx: &RunContext, opts: &LookupOptions<'_>) -> Behind {
    let event_name = &ctx.event_name;
    let Some(pr) = &ctx.event.pull_request else {
        let part = "pull_request".into();
        return failed(event_origin(event_name), PayloadProblem::NoPart { part });
    };
    let origin = LookupOrigin::PullRequest {
        number: pr.number,
        event: event_name.clone(),
    };
    if pr.merged != Some(true) {
        let failure = LookupFailure::NotMerged {
            number: pr.number,
            action: ctx.event.action.clone(),
        };
        return Behind::failed(origin, failure);
    }
    let mut commit = pr.merge_commit_sha.as_deref().and_then(commit_sha);
    let from_payload = PullRequest::from(pr);
    // With an explicit tier the labels decide nothing: no re-fetch for them.
    let labelled = !opts.labels_decide || opts.rules.has_tier_label(&from_payload);
    let mut notes = Vec::new();
    let mut refetched = false;
    // Labels added after the event are not in the payload, and a payload may lack the merge
    // commit: ask GitHub.
    let why = match (labelled, commit.is_some()) {
        (true, true) => None,
        (false, true) => Some(Refetch::NoTierLabel),
        (true, false) => Some(Refetch::NoMergeCommit),
        (false, false) => Some(Refetch::NoTierLabelNorMergeCommit),
    };
    let found = match why {
        None => Found::PullRequests(vec![from_payload]),
        Some(why) => match refetch(ctx, opts, pr.number, why).await {
            Ok(fresh) => {
                refetched = true;
                commit = commit.or_else(|| fresh.merge_commit_sha.as_deref().and_then(commit_sha));
                Found::PullRequests(vec![PullRequest::from(&fresh)])
            }
            Err(failure) if !labelled => Found::LookupFailed(failure),
            Err(failure) => {
                notes.push(LookupNote::RefetchFailed(failure));
                Found::PullRequests(vec![from_payload])
            }
        },
    };
    if commit.is_none() {
        notes.push(LookupNote::NoMergeCommit {
            number: pr.number,
            event: event_name.clone(),
            refetched,
            github_sha: ctx.sha.clone(),
        });
    }
    let mut behind = Behind::plain(origin, found, commit);
    behind.evidence.notes = notes;
    behind
}

/// A fresh copy of pull request `number` from GitHub, fetched again because of `why`.
async fn refetch(
    ctx: &RunContext,
    opts: &LookupOptions<'_>,
    number: u64,
    why: Refetch,
) -> Result<ApiPullRequest, Box<LookupFailure>> {
    let lookup = Lookup::Refetch { number, why };
    let gh = client(ctx, opts, &lookup)?;
    gh.pull_request(number)
        .await
        .map_err(|e| github_failed(ctx, lookup, &e))
}

/// The merged pull requests behind `commits` (SHA, message): asked per commit on the backoff
/// schedule, then by the `(#N)` of the commit message. `unexamined` says which commits of the
/// release were not passed in (too many); with it, or with a commit left without a merged
/// pull request, the answer is [`Found::Incomplete`], never a silent subset.
async fn merged_pull_requests(
    ctx: &RunContext,
    opts: &LookupOptions<'_>,
    commits: &[(String, String)],
    branch: Option<&str>,
    origin: &LookupOrigin,
    unexamined: Option<Unexamined>,
) -> Found {
    let lookup = Lookup::PullRequestsOf {
        origin: origin.clone(),
    };
    let gh = match client(ctx, opts, &lookup) {
        Ok(gh) => gh,
        Err(failure) => return Found::LookupFailed(failure),
    };
    let shas: Vec<&str> = commits.iter().map(|(sha, _)| sha.as_str()).collect();
    let asked = Asked {
        ctx,
        gh,
        shas: &shas,
        branch,
        origin,
    };
    let tries = if opts.labels_decide {
        opts.backoff.len() + 1
    } else {
        1
    };
    // Each step answers with the failure that ends the look-up, or what the next one needs.
    let answer = async {
        let mut found = BTreeMap::new();
        let (pending, traffic) = asked.per_commit(commits, tries, opts, &mut found).await?;
        let (unresolved, fallback_notes) = asked.by_subject(pending, &mut found).await?;
        Ok(asked.answer(found, traffic, unresolved, fallback_notes, unexamined))
    };
    answer.await.unwrap_or_else(|failure: Found| failure)
}

/// One look-up of the merged pull requests behind some commits.
struct Asked<'a> {
    ctx: &'a RunContext,
    gh: &'a GitHub,
    shas: &'a [&'a str],
    branch: Option<&'a str>,
    origin: &'a LookupOrigin,
}

impl Asked<'_> {
    /// Asks per commit, up to `tries` times on the backoff schedule; returns the commits left
    /// without a merged pull request and what asking cost, as the client counted it
    /// ([`GitHub::traffic`]: the requests sent, read retries included, and the time waited
    /// between tries and before read retries, what was slept, not the whole schedule), or the
    /// failure.
    async fn per_commit<'c>(
        &self,
        commits: &'c [(String, String)],
        tries: usize,
        opts: &LookupOptions<'_>,
        found: &mut BTreeMap<u64, PullRequest>,
    ) -> Result<(Vec<&'c (String, String)>, LookupTraffic), Found> {
        let mut pending: Vec<&(String, String)> = commits.iter().collect();
        let before = self.gh.traffic();
        let mut paced = Duration::ZERO;
        for attempt in 0..tries {
            if attempt > 0 {
                tokio::time::sleep(opts.backoff[attempt - 1]).await;
                paced += opts.backoff[attempt - 1];
            }
            let mut still = Vec::new();
            for commit in pending {
                let answer = match self.gh.pulls_for_commit(&commit.0).await {
                    Ok(answer) => answer,
                    Err(e) => {
                        let lookup = Lookup::CommitPulls {
                            origin: self.origin.clone(),
                            commit: short(&commit.0),
                        };
                        return Err(Found::LookupFailed(github_failed(self.ctx, lookup, &e)));
                    }
                };
                let merged = |pr: &&ApiPullRequest| merged_into(pr, self.shas, self.branch);
                let mut accepted = answer.iter().filter(merged).peekable();
                if accepted.peek().is_none() {
                    still.push(commit);
                }
                found.extend(accepted.map(|pr| (pr.number, PullRequest::from(pr))));
            }
            pending = still;
            if pending.is_empty() {
                break;
            }
        }
        let now = self.gh.traffic();
        let traffic = LookupTraffic {
            repository: self.gh.repository().to_string(),
            requests: usize::try_from(now.requests - before.requests).unwrap_or(usize::MAX),
            waited: paced + now.waited.saturating_sub(before.waited),
        };
        Ok((pending, traffic))
    }

    /// The fallback: the pull request number GitHub writes into squash and merge subjects.
    /// Returns the commits still unresolved and why, or the failure.
    async fn by_subject(
        &self,
        pending: Vec<&(String, String)>,
        found: &mut BTreeMap<u64, PullRequest>,
    ) -> Result<(Vec<String>, Vec<SubjectMiss>), Found> {
        let mut unresolved = Vec::new();
        let mut fallback_notes = Vec::new();
        for (sha, message) in pending {
            let commit = short(sha);
            let miss = match pull_number_in_subject(message) {
                None => SubjectMiss::NoNumber { commit },
                Some(number) if found.contains_key(&number) => continue,
                Some(number) => match self.gh.pull_request(number).await {
                    Ok(pr) if merged_into(&pr, self.shas, self.branch) => {
                        found.insert(pr.number, PullRequest::from(&pr));
                        continue;
                    }
                    Ok(_) => SubjectMiss::NotMergedInto {
                        number,
                        commit,
                        branch: self.branch.map(str::to_string),
                    },
                    Err(e) if e.kind == crate::support::github::Kind::NotFound => {
                        SubjectMiss::NotAPullRequest {
                            number,
                            commit,
                            repository: self.gh.repository().to_string(),
                        }
                    }
                    Err(e) => {
                        let lookup = Lookup::NamedPull {
                            origin: self.origin.clone(),
                            number,
                            commit,
                        };
                        return Err(Found::LookupFailed(github_failed(self.ctx, lookup, &e)));
                    }
                },
            };
            unresolved.push(short(sha));
            fallback_notes.push(miss);
        }
        Ok((unresolved, fallback_notes))
    }

    /// The answer: the pull requests found, incomplete when commits were left unresolved or
    /// unexamined, a failure when none was found.
    fn answer(
        &self,
        found: BTreeMap<u64, PullRequest>,
        traffic: LookupTraffic,
        unresolved: Vec<String>,
        fallback: Vec<SubjectMiss>,
        unexamined: Option<Unexamined>,
    ) -> Found {
        let commits = |shas: Vec<String>| Commits {
            origin: self.origin.clone(),
            branch: self.branch.map(str::to_string),
            shas,
            traffic,
            fallback,
        };
        if found.is_empty() {
            return Found::LookupFailed(Box::new(LookupFailure::NoneMerged {
                commits: commits(self.shas.iter().map(|s| short(s)).collect()),
                merge_group: self.ctx.event_name == "merge_group",
                unexamined,
            }));
        }
        let pull_requests = found.into_values().collect();
        let unresolved = (!unresolved.is_empty()).then(|| commits(unresolved));
        if unresolved.is_none() && unexamined.is_none() {
            Found::PullRequests(pull_requests)
        } else {
            Found::Incomplete {
                pull_requests,
                missing: Box::new(Missing {
                    unresolved,
                    unexamined,
                }),
            }
        }
    }
}

/// A GitHub call of `lookup` that failed with `error`: the error's words, and whether pull
/// requests are read in another repository than the release's (the token must read both).
fn github_failed(
    ctx: &RunContext,
    lookup: Lookup,
    error: &crate::support::github::GitHubError,
) -> Box<LookupFailure> {
    let elsewhere = match (&ctx.event_repository, &ctx.repository) {
        (Some(event), Some(release)) if event != release => Some(Elsewhere {
            event: event.to_string(),
            release: release.to_string(),
        }),
        _ => None,
    };
    Box::new(LookupFailure::GitHub {
        lookup,
        error: error.clone(),
        elsewhere,
        unauthorized: error.kind == crate::support::github::Kind::Unauthorized,
    })
}

/// Whether `pr` is merged into `branch` (any branch when `None`) with one of `shas` as its
/// merge commit: a squash or merge commit is the pushed SHA itself; a rebase merge's is the
/// last rebased commit, also pushed.
fn merged_into(pr: &ApiPullRequest, shas: &[&str], branch: Option<&str>) -> bool {
    let merged = pr.merged_at.as_deref().is_some_and(|t| !t.is_empty());
    let commit = pr
        .merge_commit_sha
        .as_deref()
        .is_some_and(|m| shas.iter().any(|s| s.eq_ignore_ascii_case(m)));
    let base = branch.is_none_or(|b| pr.base.as_ref().is_some_and(|base| base.name == b));
    merged && commit && base
}

/// The pull request number a merge wrote into a commit subject: `Title (#123)` (squash
/// merge, the last `(#N)` ending the subject) or `Merge pull request #123 from owner/branch`
/// (merge commit). `None` for anything else.
pub(crate) fn pull_number_in_subject(message: &str) -> Option<u64> {
    static SUBJECT: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    // A merge subject's number, or none at all (the first alternative wins at its start).
    let subject = SUBJECT.get_or_init(|| {
        regex::Regex::new(r"^Merge pull request #(?:([0-9]+) from )?|\(#([0-9]+)\)$")
            .expect("the subject pattern compiles")
    });
    let found = subject.captures(message.lines().next()?.trim())?;
    found.get(1).or(found.get(2))?.as_str().parse().ok()
}

fn client<'a>(
    ctx: &RunContext,
    opts: &LookupOptions<'a>,
    lookup: &Lookup,
) -> Result<&'a GitHub, Box<LookupFailure>> {
    // The client is bound to the release repository (`ctx.repository`).
    let lacking = match (opts.github, &ctx.repository) {
        (Some(gh), _) => return Ok(gh),
        (None, None) => NoClient::Repository,
        (None, Some(_)) => NoClient::Token,
    };
    Err(Box::new(LookupFailure::NoClient {
        lookup: lookup.clone(),
        lacking,
    }))
}

/// `the EVENT event`, as a look-up's origin.
fn event_origin(event: &str) -> LookupOrigin {
    LookupOrigin::Event {
        event: event.to_string(),
    }
}

/// The event's payload lacks what the look-up needs ([`LookupFailure::Payload`]).
fn failed(origin: LookupOrigin, problem: PayloadProblem) -> Behind {
    Behind::failed(origin.clone(), LookupFailure::Payload { origin, problem })
}

/// A 40-hex commit SHA, lower-cased; `None` for anything else.
fn commit_sha(text: &str) -> Option<String> {
    crate::context::commit_sha(text).ok()
}

fn short(sha: &str) -> String {
    sha.chars().take(12).collect()
}

/// The API's (or the event payload's) pull request as the tier decision sees it.
impl From<&ApiPullRequest> for PullRequest {
    fn from(pr: &ApiPullRequest) -> Self {
        PullRequest {
            number: pr.number,
            title: pr.title.clone(),
            url: pr.html_url.clone(),
            labels: pr.labels.iter().map(|l| l.name.clone()).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::support::github::models::{BaseRef, Label};

    fn api_pr(merged: bool, merge_sha: &str, base: &str) -> ApiPullRequest {
        ApiPullRequest {
            number: 7,
            title: "t".into(),
            html_url: String::new(),
            state: if merged { "closed" } else { "open" }.into(),
            merged: None,
            merged_at: merged.then(|| "2026-11-30T11:55:00Z".into()),
            merge_commit_sha: Some(merge_sha.into()),
            labels: vec![Label {
                name: "security".into(),
            }],
            base: Some(BaseRef { name: base.into() }),
        }
    }

    #[test]
    fn only_prs_merged_into_the_branch_as_a_pushed_commit_count() {
        let shas = ["aaa", "bbb"];
        for (merged, sha, base, into, counts) in [
            (true, "BBB", "main", Some("main"), true),
            (false, "bbb", "main", Some("main"), false),
            (true, "ccc", "main", Some("main"), false),
            (true, "aaa", "release", Some("main"), false),
        ] {
            let pr = api_pr(merged, sha, base);
            assert_eq!(merged_into(&pr, &shas, into), counts, "{sha} into {into:?}");
        }
        assert!(merged_into(&api_pr(true, "aaa", "release"), &shas, None));
    }

    #[test]
    fn pull_numbers_come_from_squash_and_merge_subjects_only() {
        assert_eq!(pull_number_in_subject("Bump codeq (#12)\n\nbody"), Some(12));
        assert_eq!(pull_number_in_subject("Fix (#3) and more (#45)"), Some(45));
        assert_eq!(
            pull_number_in_subject("Merge pull request #9 from org/fix-cve"),
            Some(9)
        );
        assert_eq!(
            pull_number_in_subject("Merge pull request #9x from o/b (#5)"),
            None
        );
        assert_eq!(pull_number_in_subject("Initial commit"), None);
        assert_eq!(pull_number_in_subject("Fix (#12) typo"), None);
        assert_eq!(pull_number_in_subject("Revert (#x)"), None);
        assert_eq!(pull_number_in_subject("Odd (#+12)"), None);
        assert_eq!(pull_number_in_subject("Odd (# 12)"), None);
        assert_eq!(pull_number_in_subject("Odd (#)"), None);
        assert_eq!(pull_number_in_subject("Subject\n\nCloses (#4)"), None);
        assert_eq!(pull_number_in_subject(""), None);
    }

    #[test]
    fn commit_shas_are_forty_hex() {
        assert_eq!(
            commit_sha(" C4295BD74FB0F4FDA03689C3DF3F2803B658FD85 ").as_deref(),
            Some("c4295bd74fb0f4fda03689c3df3f2803b658fd85")
        );
        assert_eq!(commit_sha("c4295bd"), None);
    }
}
