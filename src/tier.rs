//! Stage 2 (pure): the tier of a release, from the labels of the pull requests behind it.
//!
//! Rules (the team's refresh policy, `../shared/POLICY.md`; issue 3): an explicit tier always
//! wins; a failed look-up of the pull requests is never "unlabeled" (it fails the run unless
//! `unlabeled-tier` was set explicitly); otherwise any security label on any contributing pull
//! request makes the release security; else a routine label makes it routine; else the
//! unlabeled policy decides. Labels match case-insensitively, as they read (invisible
//! characters removed: [`label_as_shown`]). Which pull requests contribute
//! is the I/O side's job ([`crate::pulls`]); this module only reads what it found.

use crate::support::sanitize;
use crate::support::text::serde_name;
use serde::{Deserialize, Serialize};
use std::fmt;

mod evidence;

pub(crate) use evidence::{
    Commits, Elsewhere, Lookup, LookupFailure, LookupNote, LookupTraffic, Missing, NoClient,
    NotKnown, PayloadList, PayloadProblem, Refetch, SubjectMiss, Unexamined,
};
pub use evidence::{Evidence, Found, LookupOrigin, PullRequest};

/// The refresh tier of a release.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    /// Passive convergence through the idle culler; no action at rollout.
    Routine,
    /// Passive convergence plus a manual break-glass run by an operator.
    Security,
}

impl fmt::Display for Tier {
    /// Its serde name: `routine` or `security`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        serde_name(self, f)
    }
}

/// The `--tier` input (its values clap's, kebab-case).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TierRequest {
    /// Decide from the pull requests' labels.
    Auto,
    /// Routine, whatever the labels say.
    Routine,
    /// Security, whatever the labels say.
    Security,
}

/// What an unlabeled release becomes (`--unlabeled-tier`; its values clap's, kebab-case).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum UnlabeledPolicy {
    /// Routine, with a warning.
    Routine,
    /// Security, with a warning.
    Security,
    /// Fail the run.
    Fail,
}

/// The label lists that name the tiers. Names compare case-insensitively.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabelRules {
    /// Labels that make a release security (default `security`).
    pub security: Vec<String>,
    /// Labels that make a release routine (default `routine`).
    pub routine: Vec<String>,
}

/// The tier with its evidence: the tier and how it was decided are its reason's
/// ([`TierDecision::tier`], [`TierDecision::source`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TierDecision {
    /// The pull requests that went into the release (may be empty).
    pub(crate) pull_requests: Vec<PullRequest>,
    /// Which rule decided, with its data; the render layer says it in one sentence.
    pub reason: Reason,
    /// What a human should see (unlabeled PRs, conflicting labels); the render layer words
    /// them.
    pub(crate) warnings: Vec<Warning>,
}

/// The label that decided the tier, and which PR carried it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DecidingLabel {
    /// The PR number.
    pub(crate) pull_request: u64,
    /// The label as it reads on the PR ([`label_as_shown`]).
    pub(crate) label: String,
}

/// Which rule of [`decide`] set the tier, with what it read. `origin` is
/// [`Evidence::origin`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Reason {
    /// Rule 1: the tier input.
    Input {
        /// The tier.
        tier: Tier,
    },
    /// Rule 3: a tier label on a contributing pull request.
    Label {
        /// The tier.
        tier: Tier,
        /// The first label of that tier, and its PR.
        deciding: DecidingLabel,
        /// Where the pull requests were looked for.
        origin: LookupOrigin,
    },
    /// Rule 2: the pull requests are not (all) known, and `unlabeled-tier` set the tier.
    NotFromLabels {
        /// The tier.
        tier: Tier,
        /// Where the pull requests were looked for.
        origin: LookupOrigin,
        /// What is not known.
        gap: NotKnown,
    },
    /// Rule 4: nothing carries a tier label; the unlabeled policy set the tier.
    Unlabeled {
        /// The tier.
        tier: Tier,
        /// What carries no label.
        why: NoLabel,
        /// `true` when `unlabeled-tier` was not set (its default, routine).
        by_default: bool,
    },
}

/// What carries no tier label (rule 4).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum NoLabel {
    /// Pull requests were found; none carries a tier label.
    NoTierLabel {
        /// The configured tier labels, security first.
        labels: Vec<String>,
        /// The pull requests' numbers, ascending.
        pull_requests: Vec<u64>,
        /// Where they were looked for.
        origin: LookupOrigin,
    },
    /// The event carries no pull request.
    NoPullRequest {
        /// The event, e.g. `the schedule event`.
        origin: LookupOrigin,
    },
}

/// Something about the decision a human should see. PR number lists are ascending, without
/// repeats.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Warning {
    /// A note of the look-up ([`Evidence::notes`]).
    Note(LookupNote),
    /// The look-up is incomplete, but a security label among what was found decides.
    SecurityDespiteGap {
        /// What was not examined ([`Found::Incomplete`]).
        missing: Box<Missing>,
        /// The security label that decides.
        deciding: DecidingLabel,
    },
    /// Some pull requests carry no tier label; the others decided.
    WithoutTierLabel {
        /// The unlabeled pull requests.
        pull_requests: Vec<u64>,
    },
    /// Security and routine labels both appear; security wins.
    Conflict {
        /// Pull requests with a security label.
        security: Vec<u64>,
        /// Pull requests with a routine label.
        routine: Vec<u64>,
    },
    /// `label` is in both label lists, so it counts as security.
    ListsOverlap {
        /// The label as written in routine-labels.
        label: String,
    },
    /// The tier input overrides a label of the other tier.
    InputOverrides {
        /// The tier the input set.
        tier: Tier,
        /// The overridden label.
        deciding: DecidingLabel,
    },
    /// The tier input set the tier, but the pull requests are not (all) known: the look-up
    /// failed ([`Found::LookupFailed`]) or is incomplete ([`Found::Incomplete`]).
    InputDespiteGap {
        /// The tier the input set.
        tier: Tier,
        /// What failed or is missing.
        gap: NotKnown,
    },
    /// The pull requests are not (all) known; `unlabeled-tier` set the tier.
    NotFromLabels {
        /// The tier.
        tier: Tier,
        /// What failed or is missing.
        failure: NotKnown,
    },
    /// No tier label: the release is treated as `tier`.
    TreatedAs {
        /// The tier.
        tier: Tier,
        /// What carries no label.
        why: NoLabel,
    },
}

/// The tier cannot be decided: the look-up of the pull requests failed (or is incomplete)
/// and no explicit policy allows a tier not derived from labels, or nothing decides and the
/// unlabeled policy is `fail`. The render layer says what failed and what to set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Undecided {
    /// The pull requests are not (all) known.
    LookUp {
        /// What failed or is missing.
        failure: NotKnown,
    },
    /// The labels could not be read ([`LookupFailure::labels_unreadable`]) and
    /// `unlabeled-tier` is `routine`: a label not read may say security, so the run fails
    /// closed rather than announce routine (docs/tier-fail-closed.md).
    Unreadable {
        /// What failed.
        failure: NotKnown,
    },
    /// Nothing carries a tier label and `unlabeled-tier` is `fail`.
    Unlabeled {
        /// What carries no label.
        why: NoLabel,
    },
}

impl TierDecision {
    /// The tier decided.
    pub fn tier(&self) -> Tier {
        match self.reason {
            Reason::Input { tier }
            | Reason::Label { tier, .. }
            | Reason::NotFromLabels { tier, .. }
            | Reason::Unlabeled { tier, .. } => tier,
        }
    }

    /// How the tier was decided, the `tier-source` output: `labels` (a tier label on a
    /// contributing pull request), `input` (the explicit `tier` input) or `default` (the
    /// unlabeled policy: no tier label, or no pull request).
    pub(crate) fn source(&self) -> &'static str {
        match self.reason {
            Reason::Label { .. } => "labels",
            Reason::Input { .. } => "input",
            Reason::NotFromLabels { .. } | Reason::Unlabeled { .. } => "default",
        }
    }

    /// Applies `f` to every text the decision holds (titles, labels, origins, failures): to
    /// hide secrets before anything is printed or escaped. It goes through the decision's JSON
    /// form, so every string is reached, those of a field added later too. That form names
    /// enum variants by strings as well (`security`, `Incomplete`); should `f` change one (a
    /// secret that is such a word), the mapping is done again leaving words of letters alone.
    pub(crate) fn map_text(&mut self, f: impl Fn(&str) -> String) {
        let Ok(value) = serde_json::to_value(&*self) else {
            return;
        };
        for keep_words in [false, true] {
            let mut mapped = value.clone();
            map_strings(&mut mapped, &|s: &str| {
                if keep_words && s.bytes().all(|b| b.is_ascii_alphabetic()) {
                    s.to_string()
                } else {
                    f(s)
                }
            });
            if let Ok(decision) = serde_json::from_value(mapped) {
                *self = decision;
                return;
            }
        }
    }
}

impl Reason {
    /// The decision this reason makes, with the pull requests behind it and the warnings.
    fn decision(self, pull_requests: Vec<PullRequest>, warnings: Vec<Warning>) -> TierDecision {
        TierDecision {
            pull_requests,
            reason: self,
            warnings,
        }
    }
}

/// `value` with `f` applied to every string in it (not to object keys).
fn map_strings(value: &mut serde_json::Value, f: &dyn Fn(&str) -> String) {
    match value {
        serde_json::Value::String(text) => *text = f(text),
        serde_json::Value::Array(items) => items.iter_mut().for_each(|v| map_strings(v, f)),
        serde_json::Value::Object(fields) => fields.values_mut().for_each(|v| map_strings(v, f)),
        _ => {}
    }
}

impl LabelRules {
    /// Whether `pr` carries any tier label (security or routine), case-insensitively.
    pub(crate) fn has_tier_label(&self, pr: &PullRequest) -> bool {
        pr.labels.iter().any(|l| {
            let label = label_as_shown(l);
            self.names().any(|n| same_label(n, &label))
        })
    }

    /// The tier labels as configured, security first.
    fn names(&self) -> impl Iterator<Item = &String> {
        self.security.iter().chain(&self.routine)
    }
}

/// An untrusted label as the bodies show it ([`sanitize::clean_line`]: NFC, invisible and
/// control characters removed, white space folded and trimmed). Labels are matched in this
/// form, so what counts is what a reader sees: `secu\u{200B}rity` reads, and counts, as
/// `security`.
pub(crate) fn label_as_shown(label: &str) -> String {
    sanitize::clean_line(label, sanitize::DEFAULT_MAX_CHARS)
}

/// Whether the configured label `name` is `shown` (a label in [`label_as_shown`] form),
/// ASCII case-insensitively. A label that reads as nothing matches nothing.
fn same_label(name: &str, shown: &str) -> bool {
    !shown.is_empty() && label_as_shown(name).eq_ignore_ascii_case(shown)
}

/// Decides the tier.
///
/// Rules, in order (issue 3, `../shared/POLICY.md`):
/// 1. An explicit `request` (routine or security) wins; labels that disagree and a failed
///    or incomplete look-up are reported as warnings.
/// 2. A look-up that failed is not "unlabeled": it is an error unless `unlabeled` was set
///    explicitly (`Some(Routine | Security)`), and then the warning says the tier was not
///    derived from labels. An incomplete look-up ([`Found::Incomplete`]) is decided by a
///    security label among what was found, and is otherwise a failed look-up.
/// 3. Any security label on any pull request makes the release security (with a warning when
///    routine labels conflict); else a routine label makes it routine. A label on both lists
///    counts as security, with a warning that the lists overlap.
/// 4. Otherwise (no tier label, or no pull request) `unlabeled` decides; `None` means the
///    default, routine. A warning names the pull requests without a tier label.
///
/// # Errors
/// `Undecided` when the look-up failed without an explicit `unlabeled` routine or security,
/// or when nothing decides and `unlabeled` is [`UnlabeledPolicy::Fail`].
pub fn decide(
    request: TierRequest,
    evidence: &Evidence,
    rules: &LabelRules,
    unlabeled: Option<UnlabeledPolicy>,
) -> Result<TierDecision, Undecided> {
    if let Found::LookupFailed(failure) = &evidence.found {
        if matches!(
            **failure,
            LookupFailure::PushDeleted { .. } | LookupFailure::NotMerged { .. }
        ) {
            // A deletion builds nothing and an unmerged pull request is in no release:
            // nothing to announce, whatever the inputs say.
            return Err(Undecided::LookUp {
                failure: NotKnown::Failed(failure.clone()),
            });
        }
    }
    let prs = evidence.found.pull_requests().to_vec();
    let mut warnings: Vec<Warning> = evidence.notes.iter().cloned().map(Warning::Note).collect();
    let (security, routine) = tier_labels(&prs, rules, &mut warnings);
    let explicit = match request {
        TierRequest::Routine => Some(Tier::Routine),
        TierRequest::Security => Some(Tier::Security),
        TierRequest::Auto => None,
    };
    if let Some(tier) = explicit {
        return Ok(by_input(tier, evidence, prs, &security, &routine, warnings));
    }
    let failure = match (evidence.found.not_known(), security.first()) {
        (Some(NotKnown::Incomplete(missing)), Some(d)) => {
            warnings.push(Warning::SecurityDespiteGap {
                missing,
                deciding: d.clone(),
            });
            None
        }
        (not_known, _) => not_known,
    };
    if let Some(failure) = failure {
        return not_from_labels(failure, &evidence.origin, prs, unlabeled, warnings);
    }
    let (tier, deciding) = match (security.first(), routine.first()) {
        (Some(first), Some(_)) => {
            warnings.push(Warning::Conflict {
                security: numbers(security.iter().map(|d| d.pull_request)),
                routine: numbers(routine.iter().map(|d| d.pull_request)),
            });
            (Tier::Security, first.clone())
        }
        (Some(first), None) => (Tier::Security, first.clone()),
        (None, Some(first)) => (Tier::Routine, first.clone()),
        (None, None) => return unlabeled_decision(evidence, rules, prs, unlabeled, warnings),
    };
    let without = prs.iter().filter(|pr| !rules.has_tier_label(pr));
    let pull_requests = numbers(without.map(|pr| pr.number));
    if !pull_requests.is_empty() {
        warnings.push(Warning::WithoutTierLabel { pull_requests });
    }
    let origin = evidence.origin.clone();
    let reason = Reason::Label {
        tier,
        deciding,
        origin,
    };
    Ok(reason.decision(prs, warnings))
}

/// The security and the routine labels on `prs`, in order. A label on both lists is a
/// configuration slip: it counts as security, and only once, with a warning.
fn tier_labels(
    prs: &[PullRequest],
    rules: &LabelRules,
    warnings: &mut Vec<Warning>,
) -> (Vec<DecidingLabel>, Vec<DecidingLabel>) {
    let on_both = |label: &&String| rules.security.iter().any(|s| s.eq_ignore_ascii_case(label));
    let mut overlap: Vec<&String> = Vec::new();
    for label in rules.routine.iter().filter(on_both) {
        if !overlap.iter().any(|o| o.eq_ignore_ascii_case(label)) {
            overlap.push(label);
            let label = label.clone();
            warnings.push(Warning::ListsOverlap { label });
        }
    }
    let routine_only = rules.routine.iter().filter(|r| !on_both(r)).cloned();
    let routine_only: Vec<String> = routine_only.collect();
    let find = |names: &[String]| -> Vec<DecidingLabel> {
        prs.iter()
            .flat_map(|pr| {
                pr.labels
                    .iter()
                    .map(|l| label_as_shown(l))
                    .filter(|l| names.iter().any(|n| same_label(n, l)))
                    .map(|label| DecidingLabel {
                        pull_request: pr.number,
                        label,
                    })
            })
            .collect()
    };
    (find(&rules.security), find(&routine_only))
}

/// Rule 1: the tier input decides; labels that disagree and a failed or incomplete look-up
/// become warnings.
fn by_input(
    tier: Tier,
    evidence: &Evidence,
    prs: Vec<PullRequest>,
    security: &[DecidingLabel],
    routine: &[DecidingLabel],
    mut warnings: Vec<Warning>,
) -> TierDecision {
    let overridden = match tier {
        Tier::Routine => security.first(),
        Tier::Security => routine.first(),
    };
    if let Some(d) = overridden {
        warnings.push(Warning::InputOverrides {
            tier,
            deciding: d.clone(),
        });
    }
    if let Some(gap) = evidence.found.not_known() {
        warnings.push(Warning::InputDespiteGap { tier, gap });
    }
    Reason::Input { tier }.decision(prs, warnings)
}

/// Rule 2: a failed (or incomplete, undecided) look-up is not "unlabeled": only an explicit
/// `unlabeled-tier` routine or security decides, with a warning.
fn not_from_labels(
    failure: NotKnown,
    origin: &LookupOrigin,
    prs: Vec<PullRequest>,
    unlabeled: Option<UnlabeledPolicy>,
    mut warnings: Vec<Warning>,
) -> Result<TierDecision, Undecided> {
    let unreadable = matches!(&failure, NotKnown::Failed(f) if f.labels_unreadable());
    let tier = match unlabeled {
        Some(UnlabeledPolicy::Routine) if unreadable => {
            return Err(Undecided::Unreadable { failure });
        }
        Some(UnlabeledPolicy::Routine) => Tier::Routine,
        Some(UnlabeledPolicy::Security) => Tier::Security,
        None | Some(UnlabeledPolicy::Fail) => return Err(Undecided::LookUp { failure }),
    };
    let gap = failure.clone();
    warnings.push(Warning::NotFromLabels { tier, failure });
    let origin = origin.clone();
    Ok(Reason::NotFromLabels { tier, origin, gap }.decision(prs, warnings))
}

/// Rule 4: no tier label (or no pull request): the unlabeled policy decides, routine by
/// default.
fn unlabeled_decision(
    evidence: &Evidence,
    rules: &LabelRules,
    prs: Vec<PullRequest>,
    unlabeled: Option<UnlabeledPolicy>,
    mut warnings: Vec<Warning>,
) -> Result<TierDecision, Undecided> {
    let origin = evidence.origin.clone();
    let why = match &evidence.found {
        Found::PullRequests(list) if !list.is_empty() => NoLabel::NoTierLabel {
            labels: rules.names().cloned().collect(),
            pull_requests: numbers(list.iter().map(|p| p.number)),
            origin,
        },
        _ => NoLabel::NoPullRequest { origin },
    };
    let (tier, by_default) = match unlabeled {
        None => (Tier::Routine, true),
        Some(UnlabeledPolicy::Routine) => (Tier::Routine, false),
        Some(UnlabeledPolicy::Security) => (Tier::Security, false),
        Some(UnlabeledPolicy::Fail) => return Err(Undecided::Unlabeled { why }),
    };
    warnings.push(Warning::TreatedAs {
        tier,
        why: why.clone(),
    });
    let reason = Reason::Unlabeled {
        tier,
        why,
        by_default,
    };
    Ok(reason.decision(prs, warnings))
}

/// PR numbers ascending, without repeats.
fn numbers(numbers: impl IntoIterator<Item = u64>) -> Vec<u64> {
    let seen: std::collections::BTreeSet<u64> = numbers.into_iter().collect();
    seen.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use assert_matches::assert_matches;

    fn pr(number: u64, labels: &[&str]) -> PullRequest {
        PullRequest {
            number,
            title: format!("PR {number}"),
            url: format!("https://github.com/o/r/pull/{number}"),
            labels: labels
                .iter()
                .map(std::string::ToString::to_string)
                .collect(),
        }
    }

    /// The label lists of `security` and `routine` (the command line splits the inputs).
    fn lists(security: &[&str], routine: &[&str]) -> LabelRules {
        let owned = |names: &[&str]| names.iter().map(|n| (*n).to_string()).collect();
        LabelRules {
            security: owned(security),
            routine: owned(routine),
        }
    }

    fn rules() -> LabelRules {
        lists(&["security", "cve"], &["routine"])
    }

    /// The push of `c4295bd74fb0` to `main`.
    fn push_origin() -> LookupOrigin {
        LookupOrigin::Push {
            head: "c4295bd74fb0".into(),
            to: "main".into(),
        }
    }

    fn found(prs: Vec<PullRequest>) -> Evidence {
        Evidence {
            origin: push_origin(),
            found: Found::PullRequests(prs),
            notes: Vec::new(),
        }
    }

    /// A commit look-up GitHub refused (403).
    fn refused() -> LookupFailure {
        LookupFailure::GitHub {
            lookup: Lookup::CommitPulls {
                origin: push_origin(),
                commit: "c4295bd74fb0".into(),
            },
            error: crate::support::github::GitHubError::answered(
                crate::support::github::error::Action::LookUpCommitPullRequests,
                403,
                "Resource not accessible by integration",
            ),
            elsewhere: None,
            unauthorized: false,
        }
    }

    /// One commit left without a merged pull request.
    fn unresolved(commit: &str) -> Missing {
        Missing {
            unresolved: Some(Commits {
                origin: push_origin(),
                branch: Some("main".into()),
                shas: vec![commit.into()],
                traffic: LookupTraffic {
                    repository: "o/r".into(),
                    requests: 4,
                    waited: std::time::Duration::from_secs(26),
                },
                fallback: vec![SubjectMiss::NoNumber {
                    commit: commit.into(),
                }],
            }),
            unexamined: None,
        }
    }

    fn failed() -> Evidence {
        Evidence {
            origin: push_origin(),
            found: Found::LookupFailed(Box::new(refused())),
            notes: Vec::new(),
        }
    }

    fn auto(prs: Vec<PullRequest>) -> Result<TierDecision, Undecided> {
        decide(TierRequest::Auto, &found(prs), &rules(), None)
    }

    /// The decision from the labels, with `policy` for the releases they leave unlabeled.
    fn unlabeled(evidence: &Evidence, policy: UnlabeledPolicy) -> Result<TierDecision, Undecided> {
        decide(TierRequest::Auto, evidence, &rules(), Some(policy))
    }

    /// Issue 27: a push that deletes its branch announces nothing, whatever the tier input
    /// and the unlabeled policy say (it used to publish a release for commit `0000…` when the
    /// tier input was set).
    #[test]
    fn a_deletion_push_announces_nothing_whatever_the_inputs() {
        let deleted = Evidence {
            origin: LookupOrigin::PushDeleting {
                target: "refs/heads/topic".into(),
            },
            found: Found::LookupFailed(Box::new(LookupFailure::PushDeleted {
                target: "refs/heads/topic".into(),
            })),
            notes: Vec::new(),
        };
        for request in [
            TierRequest::Auto,
            TierRequest::Routine,
            TierRequest::Security,
        ] {
            for policy in [
                None,
                Some(UnlabeledPolicy::Routine),
                Some(UnlabeledPolicy::Security),
                Some(UnlabeledPolicy::Fail),
            ] {
                let decided = decide(request, &deleted, &rules(), policy);
                assert_matches!(
                    decided,
                    Err(Undecided::LookUp { failure: NotKnown::Failed(f) })
                        if matches!(*f, LookupFailure::PushDeleted { .. }),
                    "{request:?} {policy:?}"
                );
            }
        }
    }

    /// Issue 27, fail closed: labels that could not be read (no `pull-requests: read`) may
    /// say security, so `unlabeled-tier: routine` does not turn the release routine; only
    /// `unlabeled-tier: security` or the tier input decide then. A release whose pull
    /// requests carry no tier label is still routine by that policy.
    #[test]
    fn labels_that_could_not_be_read_never_become_routine_by_the_unlabeled_policy() {
        assert_matches!(
            unlabeled(&failed(), UnlabeledPolicy::Routine),
            Err(Undecided::Unreadable { .. })
        );
        let security = unlabeled(&failed(), UnlabeledPolicy::Security).unwrap();
        assert_eq!(security.tier(), Tier::Security);
        let routine = decide(TierRequest::Routine, &failed(), &rules(), None).unwrap();
        assert_eq!(routine.tier(), Tier::Routine);
        let none_labelled = unlabeled(&found(vec![pr(1, &["docs"])]), UnlabeledPolicy::Routine);
        assert_eq!(none_labelled.unwrap().tier(), Tier::Routine);
    }

    /// The whole decision table: every request × what the look-up found (the trigger
    /// scenarios of `tests/it/tier_triggers.rs`: labelled, unlabelled, conflicting and
    /// overlapping pull requests, events without one, failed and incomplete look-ups) ×
    /// every unlabeled policy, with the reason and the warnings each gives.
    #[test]
    fn the_decision_table() {
        let evidence = |found: Found| Evidence {
            origin: push_origin(),
            found,
            notes: Vec::new(),
        };
        let scenarios: Vec<(&str, Evidence)> = vec![
            ("security label", found(vec![pr(1, &["security"])])),
            ("routine label", found(vec![pr(1, &["Routine"])])),
            ("no tier label", found(vec![pr(1, &["docs"])])),
            (
                "conflicting labels",
                found(vec![pr(1, &["routine"]), pr(2, &["cve"]), pr(3, &[])]),
            ),
            ("no pull request", Evidence::no_pull_request("schedule")),
            ("failed look-up", failed()),
            (
                "incomplete, security found",
                evidence(Found::Incomplete {
                    pull_requests: vec![pr(4, &["security"])],
                    missing: Box::new(unresolved("0123456789ab")),
                }),
            ),
            (
                "incomplete, routine found",
                evidence(Found::Incomplete {
                    pull_requests: vec![pr(4, &["routine"])],
                    missing: Box::new(unresolved("0123456789ab")),
                }),
            ),
        ];
        let requests = [
            TierRequest::Auto,
            TierRequest::Routine,
            TierRequest::Security,
        ];
        let policies = [
            None,
            Some(UnlabeledPolicy::Routine),
            Some(UnlabeledPolicy::Security),
            Some(UnlabeledPolicy::Fail),
        ];
        // A message's help lines, under it.
        let indent = |words: &dyn std::fmt::Display| words.to_string().replace('\n', "\n    ");
        let mut table = String::new();
        for (name, evidence) in &scenarios {
            for request in requests {
                for policy in policies {
                    table.push_str(&format!("{name} | {request:?} | {policy:?}\n"));
                    match decide(request, evidence, &rules(), policy) {
                        Ok(d) => {
                            table.push_str(&format!(
                                "  {} by {}: {}\n",
                                d.tier(),
                                d.source(),
                                d.reason
                            ));
                            for w in &d.warnings {
                                table.push_str(&format!("  warning: {}\n", indent(w)));
                            }
                        }
                        Err(e) => table.push_str(&format!("  undecided: {}\n", indent(&e))),
                    }
                }
            }
        }
        insta::assert_snapshot!(table);
    }

    #[test]
    fn a_security_label_makes_the_release_security() {
        let d = auto(vec![pr(7, &["bug", "Security"])]).unwrap();
        assert_eq!(d.tier(), Tier::Security);
        assert_eq!(d.source(), "labels");
        assert_eq!(
            d.reason,
            Reason::Label {
                tier: Tier::Security,
                deciding: DecidingLabel {
                    pull_request: 7,
                    label: "Security".into()
                },
                origin: push_origin(),
            }
        );
    }

    #[test]
    fn a_label_counts_as_it_reads_invisible_characters_and_all() {
        // U+200B ZERO WIDTH SPACE and U+2066 LEFT-TO-RIGHT ISOLATE: the bodies show
        // "security", so it must count as security, and the reason shows what matched.
        let d = auto(vec![pr(7, &["secu\u{200B}rity\u{2066}"])]).unwrap();
        assert_eq!(d.tier(), Tier::Security);
        assert_matches!(d.reason, Reason::Label { deciding, .. } if deciding.label == "security");
        assert!(rules().has_tier_label(&pr(8, &[" rou\u{FEFF}tine\n"])));
    }

    #[test]
    fn security_wins_over_routine_with_a_warning_naming_the_prs() {
        let d = auto(vec![pr(1, &["routine"]), pr(2, &["cve"])]).unwrap();
        assert_eq!(d.tier(), Tier::Security);
        assert_eq!(
            d.warnings,
            [Warning::Conflict {
                security: vec![2],
                routine: vec![1]
            }]
        );
    }

    #[test]
    fn a_routine_label_makes_it_routine_without_warning() {
        let d = auto(vec![pr(3, &["ROUTINE"])]).unwrap();
        assert_eq!((d.tier(), d.source()), (Tier::Routine, "labels"));
        assert!(d.warnings.is_empty());
    }

    #[test]
    fn a_labelled_release_still_names_the_prs_without_a_tier_label() {
        let d = auto(vec![pr(3, &["routine"]), pr(8, &["docs"])]).unwrap();
        assert_eq!((d.tier(), d.source()), (Tier::Routine, "labels"));
        assert_eq!(
            d.warnings,
            [Warning::WithoutTierLabel {
                pull_requests: vec![8]
            }]
        );
    }

    #[test]
    fn unlabeled_defaults_to_routine_with_a_warning_naming_the_pr() {
        let d = auto(vec![pr(4, &["docs"])]).unwrap();
        assert_eq!((d.tier(), d.source()), (Tier::Routine, "default"));
        let why = NoLabel::NoTierLabel {
            labels: vec!["security".into(), "cve".into(), "routine".into()],
            pull_requests: vec![4],
            origin: push_origin(),
        };
        assert_eq!(
            d.warnings,
            [Warning::TreatedAs {
                tier: Tier::Routine,
                why: why.clone()
            }]
        );
        assert_eq!(
            d.reason,
            Reason::Unlabeled {
                tier: Tier::Routine,
                why,
                by_default: true
            }
        );
    }

    #[test]
    fn an_event_without_pull_request_follows_the_unlabeled_policy() {
        let schedule = Evidence::no_pull_request("schedule");
        let why = NoLabel::NoPullRequest {
            origin: LookupOrigin::Event {
                event: "schedule".into(),
            },
        };
        let err = unlabeled(&schedule, UnlabeledPolicy::Fail).unwrap_err();
        assert_eq!(
            err,
            Undecided::Unlabeled { why: why.clone() },
            "told to fail"
        );
        let d = unlabeled(&schedule, UnlabeledPolicy::Security).unwrap();
        assert_eq!((d.tier(), d.source()), (Tier::Security, "default"));
        assert_eq!(
            d.reason,
            Reason::Unlabeled {
                tier: Tier::Security,
                why,
                by_default: false
            }
        );
    }

    #[test]
    fn an_explicit_tier_wins_over_labels_and_says_what_it_overrode() {
        let d = decide(
            TierRequest::Routine,
            &found(vec![pr(5, &["security"])]),
            &rules(),
            Some(UnlabeledPolicy::Fail),
        )
        .unwrap();
        assert_eq!((d.tier(), d.source()), (Tier::Routine, "input"));
        assert_eq!(
            d.reason,
            Reason::Input {
                tier: Tier::Routine
            }
        );
        assert_eq!(
            d.warnings,
            [Warning::InputOverrides {
                tier: Tier::Routine,
                deciding: DecidingLabel {
                    pull_request: 5,
                    label: "security".into()
                }
            }]
        );
        assert_eq!(d.pull_requests.len(), 1);
    }

    #[test]
    fn a_failed_look_up_is_an_error_not_unlabeled() {
        for unlabeled in [None, Some(UnlabeledPolicy::Fail)] {
            let err = decide(TierRequest::Auto, &failed(), &rules(), unlabeled).unwrap_err();
            assert_eq!(
                err,
                Undecided::LookUp {
                    failure: NotKnown::Failed(Box::new(refused()))
                }
            );
        }
    }

    #[test]
    fn a_failed_look_up_with_an_explicit_unlabeled_tier_warns_that_labels_were_not_used() {
        let d = unlabeled(&failed(), UnlabeledPolicy::Security).unwrap();
        assert_eq!((d.tier(), d.source()), (Tier::Security, "default"));
        assert_eq!(
            d.warnings,
            [Warning::NotFromLabels {
                tier: Tier::Security,
                failure: NotKnown::Failed(Box::new(refused()))
            }]
        );
        assert_eq!(
            d.reason,
            Reason::NotFromLabels {
                tier: Tier::Security,
                origin: push_origin(),
                gap: NotKnown::Failed(Box::new(refused()))
            }
        );
    }

    #[test]
    fn look_up_notes_become_warnings() {
        let mut e = found(vec![pr(3, &["routine"])]);
        let note = LookupNote::NoMergeCommit {
            number: 3,
            event: "pull_request_target".into(),
            refetched: true,
            github_sha: None,
        };
        e.notes.push(note.clone());
        let d = decide(TierRequest::Auto, &e, &rules(), None).unwrap();
        assert_eq!(d.warnings, [Warning::Note(note)]);
    }

    fn incomplete(prs: Vec<PullRequest>) -> Evidence {
        Evidence {
            found: Found::Incomplete {
                pull_requests: prs,
                missing: Box::new(unresolved("9d2f0b1c4a6e")),
            },
            ..found(Vec::new())
        }
    }

    #[test]
    fn an_incomplete_look_up_is_decided_by_a_security_label_it_found() {
        let e = incomplete(vec![pr(5, &["routine"]), pr(6, &["cve"])]);
        let d = decide(TierRequest::Auto, &e, &rules(), None).unwrap();
        assert_eq!((d.tier(), d.source()), (Tier::Security, "labels"));
        assert!(
            d.warnings.contains(&Warning::SecurityDespiteGap {
                missing: Box::new(unresolved("9d2f0b1c4a6e")),
                deciding: DecidingLabel {
                    pull_request: 6,
                    label: "cve".into()
                }
            }),
            "{:?}",
            d.warnings
        );
    }

    #[test]
    fn an_incomplete_look_up_without_security_label_is_a_failed_one() {
        let e = incomplete(vec![pr(5, &["routine"])]);
        for unlabeled in [None, Some(UnlabeledPolicy::Fail)] {
            let err = decide(TierRequest::Auto, &e, &rules(), unlabeled).unwrap_err();
            assert_eq!(
                err,
                Undecided::LookUp {
                    failure: NotKnown::Incomplete(Box::new(unresolved("9d2f0b1c4a6e")))
                }
            );
        }
        let d = unlabeled(&e, UnlabeledPolicy::Security).unwrap();
        assert_eq!((d.tier(), d.source()), (Tier::Security, "default"));
        assert_matches!(
            d.reason,
            Reason::NotFromLabels {
                gap: NotKnown::Incomplete(_),
                ..
            },
            "{:?}",
            d.reason
        );
        assert_eq!(d.pull_requests.len(), 1);
    }

    #[test]
    fn an_explicit_tier_stands_despite_a_failed_or_incomplete_look_up_with_a_warning() {
        let cases = [
            (
                "failed look-up",
                failed(),
                TierRequest::Security,
                Tier::Security,
                Warning::InputDespiteGap {
                    tier: Tier::Security,
                    gap: NotKnown::Failed(Box::new(refused())),
                },
            ),
            (
                "incomplete look-up",
                incomplete(vec![pr(5, &["routine"])]),
                TierRequest::Routine,
                Tier::Routine,
                Warning::InputDespiteGap {
                    tier: Tier::Routine,
                    gap: NotKnown::Incomplete(Box::new(unresolved("9d2f0b1c4a6e"))),
                },
            ),
        ];
        for (name, evidence, request, tier, warning) in cases {
            let d = decide(request, &evidence, &rules(), None).unwrap();
            assert_eq!((d.tier(), d.source()), (tier, "input"), "{name}");
            assert_eq!(d.reason, Reason::Input { tier }, "{name}");
            assert_eq!(d.warnings, [warning], "{name}");
        }
    }

    #[test]
    fn a_label_on_both_lists_counts_as_security_and_says_the_lists_overlap() {
        let rules = lists(&["hotfix"], &["routine", "HotFix", "hotfix"]);
        let d = decide(
            TierRequest::Auto,
            &found(vec![pr(2, &["hotfix"])]),
            &rules,
            None,
        )
        .unwrap();
        assert_eq!((d.tier(), d.source()), (Tier::Security, "labels"));
        assert_eq!(
            d.warnings,
            [Warning::ListsOverlap {
                label: "HotFix".into()
            }]
        );
    }

    #[test]
    fn tier_labels_match_case_insensitively() {
        assert!(rules().has_tier_label(&pr(1, &[" CVE "])));
        assert!(!rules().has_tier_label(&pr(1, &["docs"])));
    }

    /// Every text of a decision is reached, whatever field holds it; and should a secret be
    /// a variant's name, the decision stays whole.
    #[test]
    fn map_text_reaches_every_text_of_the_decision() {
        const SECRET: &str = "hunter2-token";
        let mut evidence = incomplete(vec![PullRequest {
            title: format!("Fix the security leak of {SECRET}"),
            ..pr(6, &["security", SECRET])
        }]);
        evidence.origin = LookupOrigin::Push {
            head: "c4295bd74fb0".into(),
            to: format!("fix-{SECRET}"),
        };
        let mut d = decide(TierRequest::Auto, &evidence, &rules(), None).unwrap();
        let before = format!("{d:?}");
        assert!(before.matches(SECRET).count() >= 3, "{before}");
        d.map_text(|text| text.replace(SECRET, "***"));
        let after = format!("{d:?}");
        assert!(!after.contains(SECRET), "{after}");
        assert_eq!(after, before.replace(SECRET, "***"));

        d.map_text(|text| text.replace("security", "***"));
        assert_eq!((d.tier(), d.source()), (Tier::Security, "labels"));
        assert_eq!(d.pull_requests[0].labels[0], "security");
        assert_eq!(d.pull_requests[0].title, "Fix the *** leak of ***");
    }
}
