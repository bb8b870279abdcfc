//! The tier decision in words: the reason (one sentence for the log, the summary and the
//! release note), its warnings and the undecided error. [`crate::tier`] returns data only.

use crate::tier::{
    Commits, Elsewhere, Gap, Lookup, LookupFailure, LookupNote, LookupOrigin, LookupTraffic,
    Missing, NoClient, NoLabel, NotKnown, PayloadList, PayloadProblem, Reason, Refetch,
    SubjectMiss, Undecided, Unexamined, Warning,
};
use std::fmt;

/// `#1, #2`.
fn pr_list(numbers: &[u64]) -> String {
    numbers
        .iter()
        .map(|n| format!("#{n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

impl fmt::Display for NoLabel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NoLabel::NoTierLabel {
                labels,
                pull_requests,
                origin,
            } => write!(
                f,
                "no tier label ({}) on {}, found from {origin}",
                labels.join(", "),
                pr_list(pull_requests)
            ),
            NoLabel::NoPullRequest { origin } => write!(f, "{origin} carries no pull request"),
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::Input { tier } => write!(f, "{tier}: set by the tier input"),
            Reason::Label {
                tier,
                deciding,
                origin,
            } => write!(
                f,
                "{tier}: label {:?} on #{}, found from {origin}",
                deciding.label, deciding.pull_request
            ),
            Reason::NotFromLabels { tier, origin, gap } => {
                let how = match gap {
                    Gap::LookupFailed => "could not be looked up",
                    Gap::Incomplete => "are not all known",
                };
                write!(
                    f,
                    "{tier}: not derived from labels (the pull requests of {origin} {how}); set \
                     by unlabeled-tier"
                )
            }
            Reason::Unlabeled {
                tier,
                why,
                by_default,
            } => {
                let how = if *by_default {
                    "unlabeled-tier default"
                } else {
                    "set by unlabeled-tier"
                };
                write!(f, "{tier}: {why} ({how})")
            }
        }
    }
}

/// Where pull requests were looked for, as a noun phrase: `the push of c4295bd74fb0 to main`.
impl fmt::Display for LookupOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const UNKNOWN_BRANCH: &str = "an unknown branch";
        match self {
            LookupOrigin::OutsideActions => {
                f.write_str("a run outside GitHub Actions (no GITHUB_EVENT_NAME)")
            }
            LookupOrigin::Event { event } => write!(f, "the {event} event"),
            LookupOrigin::PushDeleting { target } => write!(f, "the push deleting {target}"),
            LookupOrigin::Push { head, to } => write!(f, "the push of {head} to {to}"),
            LookupOrigin::MergeGroup { head, into } => write!(
                f,
                "the merge group {head} into {}",
                into.as_deref().unwrap_or(UNKNOWN_BRANCH)
            ),
            LookupOrigin::RunWithoutPullRequests { triggered_by } => {
                write!(f, "the workflow_run of a {triggered_by} run")
            }
            LookupOrigin::WorkflowRun {
                head,
                triggered_by,
                branch,
            } => write!(
                f,
                "commit {head} of the triggering {triggered_by} run on {}",
                branch.as_deref().unwrap_or(UNKNOWN_BRANCH)
            ),
            LookupOrigin::PullRequest { number, event } => {
                write!(f, "pull request #{number} ({event} event)")
            }
        }
    }
}

impl fmt::Display for LookupNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LookupNote::RefetchFailed(failure) => failure.fmt(f),
            LookupNote::NoMergeCommit {
                number,
                event,
                refetched,
                github_sha,
            } => write!(
                f,
                "pull request #{number} has no merge commit SHA (null in the event{}), so the \
                 release targets {}; on a {event} event that is not the merged commit: set the \
                 sha input to it",
                if *refetched { " and from GitHub" } else { "" },
                match github_sha {
                    Some(sha) => format!("GITHUB_SHA {sha}"),
                    None => "GITHUB_SHA".to_string(),
                },
            ),
        }
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::Note(note) => note.fmt(f),
            Warning::SecurityDespiteGap { missing, deciding } => write!(
                f,
                "{missing}; label {:?} on #{} makes the release security whatever they carry",
                deciding.label, deciding.pull_request
            ),
            Warning::WithoutTierLabel { pull_requests } => write!(
                f,
                "no tier label on {}: the tier comes from the other pull requests",
                pr_list(pull_requests)
            ),
            Warning::Conflict { security, routine } => write!(
                f,
                "conflicting tier labels: security on {}, routine on {}; security wins",
                pr_list(security),
                pr_list(routine)
            ),
            Warning::ListsOverlap { label } => write!(
                f,
                "the label lists overlap: {label:?} is in both security-labels and \
                 routine-labels, so it counts as security; remove it from one of them"
            ),
            Warning::InputOverrides { tier, deciding } => write!(
                f,
                "the tier input ({tier}) overrides label {:?} on #{}",
                deciding.label, deciding.pull_request
            ),
            Warning::InputWithoutPullRequests { tier, failure } => write!(
                f,
                "the tier input sets the tier ({tier}), but the release note lists no pull \
                 requests: {failure}"
            ),
            Warning::InputIncomplete { tier, missing } => write!(
                f,
                "the tier input sets the tier ({tier}), but not every pull request behind \
                 this release is listed: {missing}"
            ),
            Warning::NotFromLabels { tier, failure } => write!(
                f,
                "the tier was not derived from labels: {}; unlabeled-tier makes it {tier}",
                failure.to_string().trim_end_matches('.')
            ),
            Warning::TreatedAs { tier, why } => {
                write!(f, "{why}: treating the release as {tier}")
            }
        }
    }
}

impl fmt::Display for Undecided {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Undecided::LookUp { failure } => {
                let text = failure.to_string();
                write!(
                    f,
                    "cannot decide the tier from labels: {}",
                    text.trim_end_matches('.')
                )?;
                let (helps, unreadable) = match failure {
                    NotKnown::Failed(failure) => {
                        (failure.tier_input_helps(), failure.labels_unreadable())
                    }
                    NotKnown::Incomplete(_) => (true, false),
                };
                if helps && unreadable {
                    // Fail closed: a label not read may say security, so routine by
                    // unlabeled-tier does not apply (docs/tier-fail-closed.md).
                    f.write_str(
                        ". To announce without labels, set the tier input (routine or \
                         security) for this run, or set unlabeled-tier to security (a label not \
                         read may say security, so routine does not apply)",
                    )?;
                } else if helps {
                    f.write_str(
                        ". To announce without labels, set the tier input (routine or \
                         security) for this run, or set unlabeled-tier to routine or security \
                         to accept a tier not derived from labels",
                    )?;
                }
                Ok(())
            }
            Undecided::Unreadable { failure } => write!(
                f,
                "cannot decide the tier: the labels could not be read ({}), and a label not \
                 read may say security, so unlabeled-tier: routine does not apply (it covers \
                 pull requests read and found without a tier label, see \
                 docs/tier-fail-closed.md). Let the job read the labels, or set the tier input \
                 (routine or security) for this run, or set unlabeled-tier to security",
                failure.to_string().trim_end_matches('.')
            ),
            Undecided::Unlabeled { why } => {
                let label = match why {
                    NoLabel::NoPullRequest { .. } => "",
                    NoLabel::NoTierLabel { .. } => {
                        "add a tier label to the pull request and re-run, or "
                    }
                };
                write!(
                    f,
                    "cannot decide the tier: {why}, and unlabeled-tier is fail; {label}set the \
                     tier input (routine or security), or set unlabeled-tier to routine or \
                     security"
                )
            }
        }
    }
}

impl std::error::Error for Undecided {}

impl fmt::Display for NotKnown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotKnown::Failed(failure) => failure.fmt(f),
            NotKnown::Incomplete(missing) => missing.fmt(f),
        }
    }
}

impl fmt::Display for LookupFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LookupFailure::PushDeleted { target } => write!(
                f,
                "the push deleted {target}: a deletion builds nothing and merges no pull \
                 request, so there is nothing to announce; run codeq-rollout only for pushes \
                 that add commits, e.g. `if: github.event.deleted == false`"
            ),
            LookupFailure::Payload { origin, problem } => {
                write!(f, "cannot find the pull requests of {origin}: {problem}")
            }
            LookupFailure::NotMerged { number, action } => write!(
                f,
                "pull request #{number} is not merged (event action {:?}), so it is not in a \
                 release: run codeq-rollout for merged pull requests only, e.g. \
                 `if: github.event.pull_request.merged == true`",
                action.as_deref().unwrap_or("unknown"),
            ),
            LookupFailure::NoClient { lookup, lacking } => {
                write!(f, "cannot {}: ", Doing(lookup))?;
                match lacking {
                    NoClient::Repository => {
                        f.write_str("no repository is known; set --repository OWNER/REPO")
                    }
                    NoClient::Token => f.write_str(
                        "this dry run has no GitHub token, so the look-up cannot run; pass \
                         github-token (--github-token)",
                    ),
                }
            }
            LookupFailure::GitHub {
                lookup,
                error,
                elsewhere,
                ..
            } => {
                match lookup {
                    Lookup::Refetch { number, why } => write!(
                        f,
                        "while re-fetching pull request #{number} ({})",
                        refetch_why(*why)
                    ),
                    Lookup::PullRequestsOf { origin } => {
                        write!(f, "while looking up the pull requests of {origin}")
                    }
                    Lookup::CommitPulls { origin, commit } => {
                        write!(f, "while reading the labels of {origin} (commit {commit})")
                    }
                    Lookup::NamedPull {
                        origin,
                        number,
                        commit,
                    } => write!(
                        f,
                        "while reading the labels of {origin} (#{number}, named in the message \
                         of {commit})"
                    ),
                }?;
                write!(f, ": {error}")?;
                if let Some(Elsewhere { event, release }) = elsewhere {
                    write!(
                        f,
                        " (pull requests are read in {event}, where the event came from, and \
                         releases go to {release}: the token must be able to read both)"
                    )?;
                }
                Ok(())
            }
            LookupFailure::NoneMerged {
                commits,
                merge_group,
                unexamined,
            } => none_merged(f, commits, *merge_group, unexamined.as_ref()),
        }
    }
}

/// [`LookupFailure::NoneMerged`] in words: which commits, how they were asked for, what to do.
fn none_merged(
    f: &mut fmt::Formatter<'_>,
    commits: &Commits,
    merge_group: bool,
    unexamined: Option<&Unexamined>,
) -> fmt::Result {
    let one = commits.shas.len() == 1;
    write!(
        f,
        "no merged pull request found for {}: GitHub lists none merged into {} as {} {} ({}), \
         and {}. If the pull request was merged just now, re-run the job; if the {} pushed \
         without a pull request, there are no labels to read.",
        commits.origin,
        commits.branch.as_deref().unwrap_or("the branch"),
        if one { "commit" } else { "any of commits" },
        commits.shas.join(", "),
        commits.traffic,
        Fallback(&commits.fallback),
        if one { "commit was" } else { "commits were" },
    )?;
    if merge_group {
        f.write_str(
            " A merge group is built before its pull requests are merged, so GitHub lists none \
             merged yet: announce from the push the merge queue makes when it merges, or set \
             the tier input.",
        )?;
    }
    if let Some(unexamined) = unexamined {
        write!(f, " Also, {unexamined}.")?;
    }
    Ok(())
}

/// A look-up as what was being done: `look up the pull requests of …`, `re-fetch pull
/// request #N (…)`.
struct Doing<'a>(&'a Lookup);

impl fmt::Display for Doing<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Lookup::PullRequestsOf { origin } => {
                write!(f, "look up the pull requests of {origin}")
            }
            Lookup::Refetch { number, why } => {
                write!(f, "re-fetch pull request #{number} ({})", refetch_why(*why))
            }
            Lookup::CommitPulls { origin, commit } => {
                write!(f, "read the labels of {origin} (commit {commit})")
            }
            Lookup::NamedPull {
                origin,
                number,
                commit,
            } => write!(
                f,
                "read the labels of {origin} (#{number}, named in the message of {commit})"
            ),
        }
    }
}

fn refetch_why(why: Refetch) -> &'static str {
    match why {
        Refetch::NoTierLabel => "the event's labels carry no tier label",
        Refetch::NoMergeCommit => "the event's `merge_commit_sha` is null",
        Refetch::NoTierLabelNorMergeCommit => {
            "the event's labels carry no tier label and its `merge_commit_sha` is null"
        }
    }
}

impl fmt::Display for PayloadProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PayloadProblem::NoPushedCommit => f.write_str(
                "the payload has no pushed commit (`after`) and GITHUB_SHA is unset: set --sha",
            ),
            PayloadProblem::NoPart { part } => write!(f, "the payload carries no `{part}`"),
            PayloadProblem::BadHeadSha { event, text } => {
                write!(f, "its `{event}.head_sha` {text:?} is not a commit SHA")
            }
        }
    }
}

impl fmt::Display for LookupTraffic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "GET /repos/{}/commits/{{sha}}/pulls: {} request{}, ",
            self.repository,
            self.requests,
            if self.requests == 1 { "" } else { "s" },
        )?;
        if self.waited.is_zero() {
            f.write_str("without waiting")
        } else {
            write!(
                f,
                "waiting {} in all",
                humantime::format_duration(self.waited)
            )
        }
    }
}

/// Why the `(#N)` fallback resolved no commit, `; `-separated.
struct Fallback<'a>(&'a [SubjectMiss]);

impl fmt::Display for Fallback<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, miss) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            match miss {
                SubjectMiss::NoNumber { commit } => write!(
                    f,
                    "the message of {commit} names no pull request (no `(#N)` in its subject)"
                ),
                SubjectMiss::NotMergedInto {
                    number,
                    commit,
                    branch,
                } => write!(
                    f,
                    "pull request #{number}, named in the message of {commit}, is not merged \
                     into {} as one of the pushed commits",
                    branch.as_deref().unwrap_or("the branch")
                ),
                SubjectMiss::NotAPullRequest {
                    number,
                    commit,
                    repository,
                } => write!(
                    f,
                    "#{number}, named in the message of {commit}, is not a pull request of \
                     {repository}"
                ),
            }?;
        }
        Ok(())
    }
}

impl fmt::Display for Unexamined {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (s, were) = if self.count == 1 {
            ("", "was")
        } else {
            ("s", "were")
        };
        let payload = match self.payload {
            PayloadList::AtLimit => format!(
                " (its payload lists {}, GitHub's limit, so it may carry more)",
                self.listed
            ),
            PayloadList::Fewer => format!(" (its payload lists only {})", self.listed),
            PayloadList::All => String::new(),
        };
        write!(
            f,
            "{} older commit{s} of {} {were} not looked up: the push carries {} \
             commits{payload}, and only the newest {} are looked up (a request each per try)",
            self.count, self.origin, self.carried, self.looked_up
        )
    }
}

impl fmt::Display for Missing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(Commits {
            origin,
            shas,
            traffic,
            fallback,
            ..
        }) = &self.unresolved
        {
            let (s, has, them) = if shas.len() == 1 {
                ("", "has", "it")
            } else {
                ("s", "have", "them")
            };
            write!(
                f,
                "commit{s} {} of {origin} {has} no merged pull request ({traffic}; {}), so what \
                 {them} changed carries no label: a pull request merged just now may not be \
                 listed yet (re-run the job), and a commit pushed without one has no label to \
                 read",
                shas.join(", "),
                Fallback(fallback),
            )?;
        }
        if let Some(unexamined) = &self.unexamined {
            if self.unresolved.is_some() {
                f.write_str("; ")?;
            }
            write!(f, "{unexamined}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The push of `9d2f0b1c4a6e` to `main`.
    fn push_origin() -> LookupOrigin {
        LookupOrigin::Push {
            head: "9d2f0b1c4a6e".into(),
            to: "main".into(),
        }
    }

    /// The `event` event.
    fn event_origin(event: &str) -> LookupOrigin {
        LookupOrigin::Event {
            event: event.into(),
        }
    }

    #[test]
    fn every_look_up_origin_in_words() {
        let head = || "9d2f0b1c4a6e".to_string();
        let origins = [
            LookupOrigin::OutsideActions,
            event_origin("schedule"),
            LookupOrigin::PushDeleting {
                target: "refs/heads/topic".into(),
            },
            push_origin(),
            LookupOrigin::MergeGroup {
                head: head(),
                into: Some("main".into()),
            },
            LookupOrigin::MergeGroup {
                head: head(),
                into: None,
            },
            LookupOrigin::RunWithoutPullRequests {
                triggered_by: "schedule".into(),
            },
            LookupOrigin::WorkflowRun {
                head: head(),
                triggered_by: "push".into(),
                branch: Some("main".into()),
            },
            LookupOrigin::WorkflowRun {
                head: head(),
                triggered_by: "push".into(),
                branch: None,
            },
            LookupOrigin::PullRequest {
                number: 42,
                event: "pull_request_target".into(),
            },
        ];
        let words: Vec<String> = origins.iter().map(ToString::to_string).collect();
        insta::assert_snapshot!(words.join("\n"));
    }
    use std::time::Duration;

    fn commits(shas: &[&str], fallback: Vec<SubjectMiss>) -> Commits {
        Commits {
            origin: push_origin(),
            branch: Some("main".into()),
            shas: shas.iter().map(std::string::ToString::to_string).collect(),
            traffic: LookupTraffic {
                repository: "octo/lab".into(),
                requests: 5,
                waited: Duration::from_secs(27),
            },
            fallback,
        }
    }

    fn unexamined() -> Unexamined {
        Unexamined {
            origin: push_origin(),
            count: 3,
            carried: 103,
            listed: 103,
            payload: PayloadList::All,
            looked_up: 100,
        }
    }

    /// Issue 27: the suffix naming the tier input and `unlabeled-tier` comes only where
    /// setting them lets the run go on: not after a deletion or an unmerged pull request
    /// (nothing to announce) nor after a 401 (publishing needs the token too); and no
    /// sentence ends in two periods.
    #[test]
    fn an_undecided_tier_names_the_tier_input_only_where_it_helps() {
        let github = |status: u16, unauthorized: bool| LookupFailure::GitHub {
            lookup: Lookup::CommitPulls {
                origin: push_origin(),
                commit: "9d2f0b1c4a6e".into(),
            },
            error: format!(
                "cannot look up the pull requests of the pushed commit: GitHub answered {status}"
            ),
            elsewhere: None,
            unauthorized,
        };
        let cases = [
            (
                LookupFailure::PushDeleted {
                    target: "refs/heads/topic".into(),
                },
                false,
            ),
            (
                LookupFailure::NotMerged {
                    number: 7,
                    action: Some("closed".into()),
                },
                false,
            ),
            (github(401, true), false),
            (github(403, false), true),
            (
                LookupFailure::NoClient {
                    lookup: Lookup::PullRequestsOf {
                        origin: push_origin(),
                    },
                    lacking: NoClient::Token,
                },
                true,
            ),
            (
                LookupFailure::NoneMerged {
                    commits: commits(
                        &["9d2f0b1c4a6e"],
                        vec![SubjectMiss::NoNumber {
                            commit: "9d2f0b1c4a6e".into(),
                        }],
                    ),
                    merge_group: false,
                    unexamined: None,
                },
                true,
            ),
        ];
        let mut lines = Vec::new();
        for (failure, helps) in cases {
            let unreadable = failure.labels_unreadable();
            let text = Undecided::LookUp {
                failure: NotKnown::Failed(Box::new(failure)),
            }
            .to_string();
            assert_eq!(text.contains("set the tier input"), helps, "{text}");
            assert!(!text.contains(".."), "{text}");
            // Issue 27 (N2): routine fails closed when the labels could not be read.
            assert_eq!(
                text.contains("unlabeled-tier to routine"),
                helps && !unreadable,
                "{text}"
            );
            lines.push(text);
        }
        insta::assert_snapshot!(lines.join("\n\n"));
    }

    /// Issue 27: the warning that `unlabeled-tier` set the tier after a failed look-up whose
    /// words end in a period has no stray period before its semicolon.
    #[test]
    fn the_not_from_labels_warning_has_no_stray_period() {
        let failure = LookupFailure::NoneMerged {
            commits: commits(
                &["9d2f0b1c4a6e"],
                vec![SubjectMiss::NoNumber {
                    commit: "9d2f0b1c4a6e".into(),
                }],
            ),
            merge_group: false,
            unexamined: None,
        };
        let text = Warning::NotFromLabels {
            tier: crate::tier::Tier::Routine,
            failure: NotKnown::Failed(Box::new(failure)),
        }
        .to_string();
        insta::assert_snapshot!(text);
    }

    /// Every kind of failed or incomplete look-up, in the words users read.
    #[test]
    fn every_look_up_failure_in_words() {
        let refetch = Lookup::Refetch {
            number: 7,
            why: Refetch::NoTierLabelNorMergeCommit,
        };
        let no_number = || SubjectMiss::NoNumber {
            commit: "9d2f0b1c4a6e".into(),
        };
        let failures = [
            LookupFailure::PushDeleted {
                target: "refs/heads/topic".into(),
            },
            LookupFailure::Payload {
                origin: event_origin("push"),
                problem: PayloadProblem::NoPushedCommit,
            },
            LookupFailure::Payload {
                origin: event_origin("merge_group"),
                problem: PayloadProblem::NoPart {
                    part: "merge_group".into(),
                },
            },
            LookupFailure::Payload {
                origin: event_origin("workflow_run"),
                problem: PayloadProblem::BadHeadSha {
                    event: "workflow_run".into(),
                    text: "main".into(),
                },
            },
            LookupFailure::NotMerged {
                number: 7,
                action: Some("closed".into()),
            },
            LookupFailure::NoClient {
                lookup: refetch.clone(),
                lacking: NoClient::Token,
            },
            LookupFailure::NoClient {
                lookup: Lookup::PullRequestsOf {
                    origin: push_origin(),
                },
                lacking: NoClient::Repository,
            },
            LookupFailure::GitHub {
                lookup: refetch,
                error: "cannot look up the pull request: GitHub answered 404: Not Found".into(),
                elsewhere: Some(Elsewhere {
                    event: "octo/app".into(),
                    release: "octo/lab".into(),
                }),
                unauthorized: false,
            },
            LookupFailure::GitHub {
                lookup: Lookup::CommitPulls {
                    origin: push_origin(),
                    commit: "9d2f0b1c4a6e".into(),
                },
                error: "cannot look up the pull requests of the pushed commit: GitHub answered 502"
                    .into(),
                elsewhere: None,
                unauthorized: false,
            },
            LookupFailure::GitHub {
                lookup: Lookup::NamedPull {
                    origin: push_origin(),
                    number: 12,
                    commit: "9d2f0b1c4a6e".into(),
                },
                error: "cannot look up the pull request: GitHub answered 403: Forbidden".into(),
                elsewhere: None,
                unauthorized: false,
            },
            LookupFailure::NoneMerged {
                commits: commits(&["9d2f0b1c4a6e"], vec![no_number()]),
                merge_group: true,
                unexamined: None,
            },
            LookupFailure::NoneMerged {
                commits: commits(
                    &["9d2f0b1c4a6e", "0123456789ab"],
                    vec![
                        SubjectMiss::NotMergedInto {
                            number: 12,
                            commit: "9d2f0b1c4a6e".into(),
                            branch: None,
                        },
                        SubjectMiss::NotAPullRequest {
                            number: 13,
                            commit: "0123456789ab".into(),
                            repository: "octo/lab".into(),
                        },
                    ],
                ),
                merge_group: false,
                unexamined: Some(unexamined()),
            },
        ];
        let missing = [
            Missing {
                unresolved: Some(commits(&["9d2f0b1c4a6e"], vec![no_number()])),
                unexamined: Some(Unexamined {
                    payload: PayloadList::AtLimit,
                    listed: 2048,
                    carried: 2048,
                    count: 1948,
                    ..unexamined()
                }),
            },
            Missing {
                unresolved: None,
                unexamined: Some(Unexamined {
                    payload: PayloadList::Fewer,
                    listed: 20,
                    count: 1,
                    carried: 101,
                    ..unexamined()
                }),
            },
        ];
        let lines: Vec<String> = failures
            .into_iter()
            .map(|f| NotKnown::Failed(Box::new(f)).to_string())
            .chain(
                missing
                    .into_iter()
                    .map(|m| NotKnown::Incomplete(Box::new(m)).to_string()),
            )
            .collect();
        insta::assert_snapshot!(lines.join("\n\n"));
    }
}
