//! The tier decision in words: the reason (one sentence for the log, the summary and the
//! release note), its warnings and the undecided error. [`crate::tier`] returns data only.

use crate::tier::{Gap, NoLabel, Reason, Undecided, Warning};
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

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::Note(note) => f.write_str(note),
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
                "the tier was not derived from labels: {failure}; unlabeled-tier makes it {tier}"
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
            Undecided::LookUp { failure } => write!(
                f,
                "cannot decide the tier from labels: {failure}. To announce without labels, \
                 set the tier input (routine or security) for this run, or set unlabeled-tier \
                 to routine or security to accept a tier not derived from labels"
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
