//! The tier decision in words: the reason (one sentence for the log, the summary and the
//! release note), and in the one message shape ([`Words`]) its warnings and the undecided
//! error, with the failed or incomplete look-ups they carry. [`crate::tier`] returns data only.

use super::words::Words;
use crate::pulls::MAX_PUSH_COMMITS;
use crate::tier::{
    Commits, DecidingLabel, Elsewhere, Lookup, LookupFailure, LookupNote, LookupOrigin,
    LookupTraffic, Missing, NoClient, NoLabel, NotKnown, PayloadList, PayloadProblem, Reason,
    Refetch, SubjectMiss, Undecided, Unexamined, Warning,
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

/// What carries no tier label, as the reason says it: `no tier label (security, routine) on
/// #4, found from …`, `the schedule event carries no pull request`.
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

/// What carries no tier label, short (`no tier label on #4`), for a message's first line; and
/// the start of its help: for pull requests without one, the facts behind it (the tier labels,
/// where the pull requests were found) and `advice` (`…; ADVICE`), else nothing.
fn no_label_words(why: &NoLabel, advice: &str) -> (String, String) {
    match why {
        NoLabel::NoTierLabel {
            labels,
            pull_requests,
            origin,
        } => (
            format!("no tier label on {}", pr_list(pull_requests)),
            format!(
                "the tier labels are {}; the pull requests were found from {origin}; {advice}",
                labels.join(", ")
            ),
        ),
        NoLabel::NoPullRequest { .. } => (why.to_string(), String::new()),
    }
}

/// The label that decided, as a phrase: `label "security" on #4`.
impl fmt::Display for DecidingLabel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "label {:?} on #{}", self.label, self.pull_request)
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
            } => write!(f, "{tier}: {deciding}, found from {origin}"),
            Reason::NotFromLabels { tier, origin, gap } => {
                let how = match gap {
                    NotKnown::Failed(_) => "could not be looked up",
                    NotKnown::Incomplete(_) => "are not all known",
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

// Unplaced (a cause inside another error's words), as inside Actions; placed, a missing
// token's help names where to set it ([`messages::tier_warning`], [`super::error_words`]).
super::words::words_display!(Warning => |w| warning_words(w, true), Undecided => |u| undecided_words(u, true));

/// A tier warning in words: what a human should know about the decision, then the details
/// and what to do; `in_actions`: a missing token's help names where to set it.
pub(crate) fn warning_words(warning: &Warning, in_actions: bool) -> Words {
    match warning {
        Warning::Note(note) => note_words(note, in_actions),
        Warning::SecurityDespiteGap { missing, deciding } => Words::new(format!(
            "{deciding} makes the release security, whatever the commits not examined carry"
        ))
        .because(&missing_words(missing)),
        Warning::WithoutTierLabel { pull_requests } => Words::new(format!(
            "no tier label on {}: the tier comes from the other pull requests",
            pr_list(pull_requests)
        )),
        Warning::Conflict { security, routine } => Words::new(format!(
            "conflicting tier labels: security on {}, routine on {}; security wins",
            pr_list(security),
            pr_list(routine)
        )),
        Warning::ListsOverlap { label } => Words::new(format!(
            "the label lists overlap: {label:?} is in both security-labels and routine-labels, \
             so it counts as security"
        ))
        .help("remove it from one of them"),
        Warning::InputOverrides { tier, deciding } => {
            Words::new(format!("the tier input ({tier}) overrides {deciding}"))
        }
        Warning::InputDespiteGap { tier, gap } => Words::new(format!(
            "the tier input sets the tier ({tier}), but {}",
            match gap {
                NotKnown::Failed(_) => "the release note lists no pull requests",
                NotKnown::Incomplete(_) => "not every pull request behind this release is listed",
            }
        ))
        .because(&not_known_words(gap, in_actions)),
        Warning::NotFromLabels { tier, failure } => {
            let failure = not_known_words(failure, in_actions);
            Words {
                what: format!("tier {tier} by unlabeled-tier: {}", failure.what),
                ..failure
            }
        }
        Warning::TreatedAs { tier, why } => {
            let (what, facts) = no_label_words(why, "label the pull request, ");
            let fail = match in_actions {
                true => "`unlabeled-tier: fail`",
                false => "--unlabeled-tier fail",
            };
            Words::new(format!("{what}: treating the release as {tier}")).help(format!(
                "{facts}{} (routine or security), or {fail} to make this an error",
                super::help::set_input("tier", in_actions)
            ))
        }
    }
}

/// A note of the look-up in words ([`Warning::Note`]).
fn note_words(note: &LookupNote, in_actions: bool) -> Words {
    match note {
        LookupNote::RefetchFailed(failure) => failure_words(failure, in_actions),
        LookupNote::NoMergeCommit {
            number,
            event,
            refetched,
            github_sha,
        } => Words::new(format!(
            "pull request #{number} has no merge commit SHA (null in the event{}), so the release \
             targets GITHUB_SHA",
            if *refetched { " and from GitHub" } else { "" },
        ))
        .help(format!(
            "on a {event} event GITHUB_SHA{} is not the merged commit: set the sha input to it",
            github_sha
                .as_ref()
                .map(|sha| format!(" ({sha})"))
                .unwrap_or_default()
        )),
    }
}

impl std::error::Error for Undecided {}

/// Why the tier cannot be decided, in words: what is not known, then the details and what to
/// set. The tier input and `unlabeled-tier` are named only where setting them lets the run go
/// on (not after a deletion, an unmerged pull request or a refused token); `routine` is not
/// offered for labels that could not be read (fail closed: docs/tier-fail-closed.md).
pub(crate) fn undecided_words(undecided: &Undecided, in_actions: bool) -> Words {
    // The tier input and `unlabeled-tier` where the run is: as inputs, or as options.
    let (tier, unlabeled) = match in_actions {
        true => ("set the tier input", "set unlabeled-tier to"),
        false => ("pass --tier", "pass --unlabeled-tier"),
    };
    let tier_input = format!(
        "to announce without labels, {tier} (routine or security) for this run, or {unlabeled}"
    );
    match undecided {
        Undecided::LookUp { failure } => {
            let (helps, unreadable) = match failure {
                NotKnown::Failed(failure) => {
                    (failure.tier_input_helps(), failure.labels_unreadable())
                }
                NotKnown::Incomplete(_) => (true, false),
            };
            let tail = match (helps, unreadable) {
                (false, _) => None,
                (true, true) => Some(format!(
                    "{tier_input} security (a label not read may say security, so routine does \
                     not apply)"
                )),
                (true, false) => Some(format!(
                    "{tier_input} routine or security to accept a tier not derived from labels"
                )),
            };
            let failure = not_known_words(failure, in_actions);
            Words {
                what: format!("cannot decide the tier: {}", failure.what),
                ..failure
            }
            .more_help(tail)
        }
        Undecided::Unreadable { failure } => Words::new(
            "cannot decide the tier: the labels could not be read, and unlabeled-tier: routine \
             does not apply to them",
        )
        .help(format!(
            "a label not read may say security, so unlabeled-tier: routine does not apply (it \
             covers pull requests read and found without a tier label, see \
             docs/tier-fail-closed.md). Let the job read the labels, or {tier} (routine or \
             security) for this run, or {unlabeled} security"
        ))
        .because(&not_known_words(failure, in_actions)),
        Undecided::Unlabeled { why } => {
            let advice = "add a tier label to the pull request and re-run, or ";
            let (what, facts) = no_label_words(why, advice);
            Words::new(format!(
                "cannot decide the tier: {what}, and unlabeled-tier is fail"
            ))
            .help(format!(
                "{facts}{tier} (routine or security), or {unlabeled} routine or security"
            ))
        }
    }
}

/// What is not known about the pull requests, in words.
fn not_known_words(not_known: &NotKnown, in_actions: bool) -> Words {
    match not_known {
        NotKnown::Failed(failure) => failure_words(failure, in_actions),
        NotKnown::Incomplete(missing) => missing_words(missing),
    }
}

/// A failed look-up in words: what failed, then the details and the fix.
fn failure_words(failure: &LookupFailure, in_actions: bool) -> Words {
    match failure {
        LookupFailure::PushDeleted { target } => Words::new(format!(
            "the push deleted {target}, so there is nothing to announce"
        ))
        .help(
            "a deletion builds nothing and merges no pull request; run codeq-rollout only for \
             pushes that add commits, e.g. `if: github.event.deleted == false`",
        ),
        LookupFailure::Payload { origin, problem } => match problem {
            PayloadProblem::NoPushedCommit => Words::new(format!(
                "{origin}'s payload has no pushed commit (`after`), and GITHUB_SHA is unset"
            ))
            .help(super::help::set_input("sha", in_actions)),
            PayloadProblem::NoPart { part } => {
                Words::new(format!("{origin}'s payload carries no `{part}`"))
            }
            PayloadProblem::BadHeadSha { event, text } => Words::new(format!(
                "{origin}'s payload has a `{event}.head_sha` that is not a commit SHA: {text:?}"
            )),
        },
        LookupFailure::NotMerged { number, action } => Words::new(format!(
            "pull request #{number} is not merged (event action {:?}), so it is not in a release",
            action.as_deref().unwrap_or("unknown"),
        ))
        .help(
            "run codeq-rollout for merged pull requests only, e.g. \
             `if: github.event.pull_request.merged == true`",
        ),
        LookupFailure::NoClient { lookup, lacking } => {
            let (doing, detail) = lookup_words(lookup);
            let fix = match lacking {
                // Only a runner like `act` leaves it unset in Actions.
                NoClient::Repository => format!(
                    "no repository is known (GITHUB_REPOSITORY is unset); set {} to OWNER/REPO",
                    super::words::input_name("repository", None, in_actions)
                ),
                NoClient::Token => format!(
                    "this dry run has no GitHub token, so the look-up cannot run; {}",
                    super::help::set_input("github-token", in_actions)
                ),
            };
            Words::new(format!("cannot {doing}")).help(format!("{detail}{fix}"))
        }
        LookupFailure::GitHub {
            lookup,
            error,
            elsewhere,
            ..
        } => {
            let (doing, detail) = lookup_words(lookup);
            let elsewhere = elsewhere.as_ref().map(|Elsewhere { event, release }| {
                format!(
                    "pull requests are read in {event}, where the event came from, and releases \
                     go to {release}: the token must be able to read both"
                )
            });
            let words = Words::new(format!("cannot {doing}"));
            let words = match detail.trim_end_matches("; ") {
                "" => words,
                detail => words.because(&detail),
            };
            words
                .because(&super::help::github_words(error, in_actions))
                .more_help(elsewhere)
        }
        LookupFailure::NoneMerged {
            commits,
            merge_group,
            unexamined,
        } => none_merged(commits, *merge_group, unexamined.as_ref()),
    }
}

/// A look-up as what was being done (`look up the pull requests of …`, `re-fetch pull request
/// #N`), and why or where, when that is more than the first line holds (`…; ` or empty).
fn lookup_words(lookup: &Lookup) -> (String, String) {
    match lookup {
        Lookup::PullRequestsOf { origin } => (
            format!("look up the pull requests of {origin}"),
            String::new(),
        ),
        Lookup::Refetch { number, why } => {
            let why = match why {
                Refetch::NoTierLabel => "the event's labels carry no tier label",
                Refetch::NoMergeCommit => "the event's `merge_commit_sha` is null",
                Refetch::NoTierLabelNorMergeCommit => {
                    "the event's labels carry no tier label and its `merge_commit_sha` is null"
                }
            };
            (
                format!("re-fetch pull request #{number}"),
                format!("it is fetched again because {why}; "),
            )
        }
        Lookup::CommitPulls { origin, commit } => (
            format!("read the labels of {origin} (commit {commit})"),
            String::new(),
        ),
        Lookup::NamedPull {
            origin,
            number,
            commit,
        } => (
            format!("read the labels of pull request #{number}, named in the message of {commit}"),
            format!("{commit} is a commit of {origin}; "),
        ),
    }
}

/// [`LookupFailure::NoneMerged`] in words: which commits, how they were asked for, what to do.
fn none_merged(commits: &Commits, merge_group: bool, unexamined: Option<&Unexamined>) -> Words {
    let one = commits.shas.len() == 1;
    let mut help = format!(
        "GitHub lists none merged into {} as {} {} ({}), and {}. If the pull request was merged \
         just now, re-run the job; if the {} pushed without a pull request, there are no labels \
         to read.",
        commits.branch.as_deref().unwrap_or("the branch"),
        if one { "commit" } else { "any of commits" },
        commits.shas.join(", "),
        commits.traffic,
        subject_misses(&commits.fallback),
        if one { "commit was" } else { "commits were" },
    );
    if merge_group {
        help.push_str(
            " A merge group is built before its pull requests are merged, so GitHub lists none \
             merged yet: announce from the push the merge queue makes when it merges, or set \
             the tier input.",
        );
    }
    if let Some(unexamined) = unexamined {
        let (what, why) = unexamined_words(unexamined);
        help.push_str(&format!(" Also, {what}: {why}."));
    }
    Words::new(format!(
        "no merged pull request found for {}",
        commits.origin
    ))
    .help(help)
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
fn subject_misses(misses: &[SubjectMiss]) -> String {
    let said = |miss: &SubjectMiss| match miss {
        SubjectMiss::NoNumber { commit } => {
            format!("the message of {commit} names no pull request (no `(#N)` in its subject)")
        }
        SubjectMiss::NotMergedInto {
            number,
            commit,
            branch,
        } => format!(
            "pull request #{number}, named in the message of {commit}, is not merged into {} as \
             one of the pushed commits",
            branch.as_deref().unwrap_or("the branch")
        ),
        SubjectMiss::NotAPullRequest {
            number,
            commit,
            repository,
        } => format!(
            "#{number}, named in the message of {commit}, is not a pull request of {repository}"
        ),
    };
    misses.iter().map(said).collect::<Vec<_>>().join("; ")
}

/// Commits of a push not looked up: how many (a first line), and why.
fn unexamined_words(unexamined: &Unexamined) -> (String, String) {
    let Unexamined {
        origin,
        count,
        carried,
        listed,
        payload,
    } = unexamined;
    let (s, were) = if *count == 1 {
        ("", "was")
    } else {
        ("s", "were")
    };
    let payload = match payload {
        PayloadList::AtLimit => {
            format!(" (its payload lists {listed}, GitHub's limit, so it may carry more)")
        }
        PayloadList::Fewer => format!(" (its payload lists only {listed})"),
        PayloadList::All => String::new(),
    };
    (
        format!("{count} older commit{s} of {origin} {were} not looked up"),
        format!(
            "the push carries {carried} commits{payload}, and only the newest {MAX_PUSH_COMMITS} are \
             looked up (a request each per try)"
        ),
    )
}

/// An incomplete look-up in words: the commits left without a merged pull request (or, when
/// none, the commits not looked up), then how they were asked for and what that means.
fn missing_words(missing: &Missing) -> Words {
    let unexamined = missing.unexamined.as_ref();
    let Some(Commits {
        origin,
        shas,
        traffic,
        fallback,
        ..
    }) = &missing.unresolved
    else {
        let (what, why) = unexamined.map(unexamined_words).unwrap_or_default();
        return Words::new(what).help(why);
    };
    let (s, has, them) = if shas.len() == 1 {
        ("", "has", "it")
    } else {
        ("s", "have", "them")
    };
    let mut help = format!(
        "GitHub was asked ({traffic}), and {}. What {them} changed carries no label: a \
         pull request merged just now may not be listed yet (re-run the job), and a commit \
         pushed without one has no label to read",
        subject_misses(fallback),
    );
    if let Some(unexamined) = unexamined {
        let (what, why) = unexamined_words(unexamined);
        help.push_str(&format!("; also, {what}: {why}"));
    }
    Words::new(format!(
        "commit{s} {} of {origin} {has} no merged pull request",
        shas.join(", ")
    ))
    .help(help)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::words::assert_shape;
    use crate::support::github::error::{Action, GitHubError};
    use crate::tier::{DecidingLabel, Tier};

    /// `words` as users read them, once their shape is checked.
    fn shown(words: &Words) -> String {
        assert_shape(words);
        words.to_string()
    }

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

    /// GitHub lists no merged pull request for the push's one commit, whose subject names
    /// none.
    fn none_merged_failure() -> LookupFailure {
        LookupFailure::NoneMerged {
            commits: commits(
                &["9d2f0b1c4a6e"],
                vec![SubjectMiss::NoNumber {
                    commit: "9d2f0b1c4a6e".into(),
                }],
            ),
            merge_group: false,
            unexamined: None,
        }
    }

    fn unexamined() -> Unexamined {
        Unexamined {
            origin: push_origin(),
            count: 3,
            carried: 103,
            listed: 103,
            payload: PayloadList::All,
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
            error: GitHubError::answered(Action::LookUpCommitPullRequests, status, ""),
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
            (none_merged_failure(), true),
        ];
        let mut lines = Vec::new();
        for (failure, helps) in cases {
            let unreadable = failure.labels_unreadable();
            let text = shown(&undecided_words(
                &Undecided::LookUp {
                    failure: NotKnown::Failed(Box::new(failure)),
                },
                true,
            ));
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
        let failure = none_merged_failure();
        let text = shown(&warning_words(
            &Warning::NotFromLabels {
                tier: Tier::Routine,
                failure: NotKnown::Failed(Box::new(failure)),
            },
            true,
        ));
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
                error: GitHubError::answered(Action::LookUpPullRequest, 404, "Not Found"),
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
                error: GitHubError::answered(Action::LookUpCommitPullRequests, 502, ""),
                elsewhere: None,
                unauthorized: false,
            },
            LookupFailure::GitHub {
                lookup: Lookup::NamedPull {
                    origin: push_origin(),
                    number: 12,
                    commit: "9d2f0b1c4a6e".into(),
                },
                error: GitHubError::answered(Action::LookUpPullRequest, 403, "Forbidden"),
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
        // On the command line; then, inside Actions, those whose help names where to set an
        // input (a missing token, the sha: under `with:`).
        let no_token = |f: &&LookupFailure| {
            matches!(
                f,
                LookupFailure::NoClient {
                    lacking: NoClient::Token,
                    ..
                } | LookupFailure::Payload {
                    problem: PayloadProblem::NoPushedCommit,
                    ..
                }
            )
        };
        let lines: Vec<String> = (failures.iter())
            .map(|f| shown(&failure_words(f, false)))
            .chain(
                failures
                    .iter()
                    .filter(no_token)
                    .map(|f| shown(&failure_words(f, true))),
            )
            .chain(missing.into_iter().map(|m| shown(&missing_words(&m))))
            .collect();
        insta::assert_snapshot!(lines.join("\n\n"));
    }

    /// Every warning, and every undecided tier not worded above, in the words users read.
    #[test]
    fn every_warning_and_undecided_tier_in_words() {
        let deciding = || DecidingLabel {
            pull_request: 6,
            label: "cve".into(),
        };
        let missing = || Missing {
            unresolved: Some(commits(
                &["9d2f0b1c4a6e"],
                vec![SubjectMiss::NoNumber {
                    commit: "9d2f0b1c4a6e".into(),
                }],
            )),
            unexamined: None,
        };
        let refused = || LookupFailure::GitHub {
            lookup: Lookup::PullRequestsOf {
                origin: push_origin(),
            },
            error: GitHubError::answered(Action::LookUpCommitPullRequests, 403, ""),
            elsewhere: None,
            unauthorized: false,
        };
        let no_tier_label = || NoLabel::NoTierLabel {
            labels: vec!["security".into(), "routine".into()],
            pull_requests: vec![4, 5],
            origin: push_origin(),
        };
        let no_pull_request = || NoLabel::NoPullRequest {
            origin: event_origin("schedule"),
        };
        let no_merge_commit = |github_sha: Option<&str>| LookupNote::NoMergeCommit {
            number: 3,
            event: "pull_request_target".into(),
            refetched: github_sha.is_some(),
            github_sha: github_sha.map(str::to_string),
        };
        let warnings = [
            Warning::Note(LookupNote::RefetchFailed(Box::new(refused()))),
            Warning::Note(no_merge_commit(Some(
                "c4295bd74fb0f4fda03689c3df3f2803b658fd85",
            ))),
            Warning::Note(no_merge_commit(None)),
            Warning::SecurityDespiteGap {
                missing: Box::new(missing()),
                deciding: deciding(),
            },
            Warning::WithoutTierLabel {
                pull_requests: vec![3, 8],
            },
            Warning::Conflict {
                security: vec![2],
                routine: vec![1, 3],
            },
            Warning::ListsOverlap {
                label: "hotfix".into(),
            },
            Warning::InputOverrides {
                tier: Tier::Routine,
                deciding: deciding(),
            },
            Warning::InputDespiteGap {
                tier: Tier::Security,
                gap: NotKnown::Failed(Box::new(refused())),
            },
            Warning::InputDespiteGap {
                tier: Tier::Routine,
                gap: NotKnown::Incomplete(Box::new(missing())),
            },
            Warning::NotFromLabels {
                tier: Tier::Security,
                failure: NotKnown::Incomplete(Box::new(missing())),
            },
            Warning::TreatedAs {
                tier: Tier::Routine,
                why: no_tier_label(),
            },
            Warning::TreatedAs {
                tier: Tier::Security,
                why: no_pull_request(),
            },
        ];
        let undecided = [
            Undecided::LookUp {
                failure: NotKnown::Incomplete(Box::new(missing())),
            },
            Undecided::Unreadable {
                failure: NotKnown::Failed(Box::new(refused())),
            },
            Undecided::Unlabeled {
                why: no_tier_label(),
            },
            Undecided::Unlabeled {
                why: no_pull_request(),
            },
        ];
        let lines: Vec<String> = warnings
            .iter()
            .map(|w| shown(&warning_words(w, true)))
            .chain(undecided.iter().map(|u| shown(&undecided_words(u, true))))
            // On the command line, those whose help names where to set an input.
            .chain(
                (warnings.iter())
                    .filter(|w| matches!(w, Warning::TreatedAs { .. }))
                    .map(|w| shown(&warning_words(w, false))),
            )
            .chain(undecided.iter().map(|u| shown(&undecided_words(u, false))))
            .collect();
        insta::assert_snapshot!(lines.join("\n\n"));
    }
}
