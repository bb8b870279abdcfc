//! Stage 2 (pure): the tier of a release, from the labels of the pull requests behind it.
//!
//! Rules (the team's refresh policy, `../shared/POLICY.md`): an explicit tier always wins;
//! otherwise any security label on any contributing pull request makes the release
//! security; else a routine label makes it routine; else the unlabeled policy decides.
//! Labels match case-insensitively.

use serde::Serialize;
use std::fmt;

/// The refresh tier of a release.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    /// Passive convergence through the idle culler; no action at rollout.
    Routine,
    /// Passive convergence plus a manual break-glass run by an operator.
    Security,
}

impl fmt::Display for Tier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Tier::Routine => "routine",
            Tier::Security => "security",
        })
    }
}

/// The `--tier` input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TierRequest {
    /// Decide from the pull requests' labels.
    Auto,
    /// Routine, whatever the labels say.
    Routine,
    /// Security, whatever the labels say.
    Security,
}

/// What an unlabeled release becomes (`--unlabeled-tier`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum UnlabeledPolicy {
    /// Routine, with a warning.
    Routine,
    /// Security, with a warning.
    Security,
    /// Fail the run.
    Fail,
}

/// How the tier was decided: the `tier-source` output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TierSource {
    /// From a tier label on a contributing pull request.
    Labels,
    /// From the explicit `tier` input.
    Input,
    /// From the unlabeled policy (no tier label, or no pull request).
    Default,
}

impl fmt::Display for TierSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TierSource::Labels => "labels",
            TierSource::Input => "input",
            TierSource::Default => "default",
        })
    }
}

/// A pull request that went into the release, as far as the tier cares.
/// `title` and `labels` are untrusted text (anyone who can open a PR writes them).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PullRequest {
    /// The PR number, e.g. `42`.
    pub number: u64,
    /// The PR title, untrusted.
    pub title: String,
    /// The PR's web address, e.g. `https://github.com/org/repo/pull/42`.
    pub url: String,
    /// Label names, untrusted.
    pub labels: Vec<String>,
}

/// The label lists that name the tiers. Names compare case-insensitively.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabelRules {
    /// Labels that make a release security (default `security`).
    pub security: Vec<String>,
    /// Labels that make a release routine (default `routine`).
    pub routine: Vec<String>,
}

impl LabelRules {
    /// Splits comma- or newline-separated lists, trimming blanks and dropping empties.
    pub fn parse(security: &str, routine: &str) -> Self {
        Self {
            security: split_list(security),
            routine: split_list(routine),
        }
    }
}

/// Splits a comma- or newline-separated input into trimmed, non-empty items.
pub fn split_list(text: &str) -> Vec<String> {
    text.split([',', '\n'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect()
}

/// The tier with its evidence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TierDecision {
    /// The tier.
    pub tier: Tier,
    /// How it was decided.
    pub source: TierSource,
    /// The pull requests that went into the release (may be empty).
    pub pull_requests: Vec<PullRequest>,
    /// The label that decided, and the PR that carried it (source `labels` only).
    pub deciding: Option<DecidingLabel>,
    /// One sentence saying how the tier was decided, for the summary and the note.
    pub reason: String,
    /// Warnings for the log (unlabeled PRs, conflicting labels).
    pub warnings: Vec<String>,
}

/// The label that decided the tier, and which PR carried it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DecidingLabel {
    /// The PR number.
    pub pull_request: u64,
    /// The label as written on the PR.
    pub label: String,
}

/// The labels could not decide and the unlabeled policy is `fail`.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{0}")]
pub struct Undecided(pub String);

/// What tier resolution knows about where the labels came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Evidence {
    /// The pull requests behind the release were found (possibly none for this event).
    PullRequests(Vec<PullRequest>),
    /// The event carries no pull request by nature (`schedule`, `workflow_dispatch`, ...):
    /// the string says which event.
    NoPullRequest(String),
}

/// Decides the tier.
///
/// `unlabeled` applies when no PR carries a tier label, or the event has no PR.
///
/// # Errors
/// [`Undecided`] when the labels decide nothing and `unlabeled` is [`UnlabeledPolicy::Fail`].
pub fn decide(
    request: TierRequest,
    evidence: &Evidence,
    rules: &LabelRules,
    unlabeled: UnlabeledPolicy,
) -> Result<TierDecision, Undecided> {
    let prs = match evidence {
        Evidence::PullRequests(prs) => prs.clone(),
        Evidence::NoPullRequest(_) => Vec::new(),
    };
    let explicit = match request {
        TierRequest::Routine => Some(Tier::Routine),
        TierRequest::Security => Some(Tier::Security),
        TierRequest::Auto => None,
    };
    if let Some(tier) = explicit {
        return Ok(TierDecision {
            tier,
            source: TierSource::Input,
            pull_requests: prs,
            deciding: None,
            reason: format!("{tier}: set by the tier input, labels not consulted"),
            warnings: Vec::new(),
        });
    }

    let find = |names: &[String]| -> Vec<DecidingLabel> {
        prs.iter()
            .flat_map(|pr| {
                pr.labels
                    .iter()
                    .filter(|l| names.iter().any(|n| n.eq_ignore_ascii_case(l.trim())))
                    .map(|l| DecidingLabel {
                        pull_request: pr.number,
                        label: l.clone(),
                    })
            })
            .collect()
    };
    let security = find(&rules.security);
    let routine = find(&rules.routine);
    let mut warnings = Vec::new();

    if let Some(first) = security.first() {
        if !routine.is_empty() {
            warnings.push(format!(
                "conflicting tier labels: security on {}, routine on {}; security wins",
                pr_list(security.iter().map(|d| d.pull_request)),
                pr_list(routine.iter().map(|d| d.pull_request)),
            ));
        }
        return Ok(TierDecision {
            tier: Tier::Security,
            source: TierSource::Labels,
            pull_requests: prs,
            reason: format!(
                "security: label {:?} on #{}",
                first.label, first.pull_request
            ),
            deciding: Some(first.clone()),
            warnings,
        });
    }
    if let Some(first) = routine.first() {
        return Ok(TierDecision {
            tier: Tier::Routine,
            source: TierSource::Labels,
            pull_requests: prs,
            reason: format!(
                "routine: label {:?} on #{}",
                first.label, first.pull_request
            ),
            deciding: Some(first.clone()),
            warnings,
        });
    }

    let why = match evidence {
        Evidence::NoPullRequest(event) => format!("the {event} event carries no pull request"),
        Evidence::PullRequests(list) if list.is_empty() => {
            "no pull request was found behind this commit".to_string()
        }
        Evidence::PullRequests(list) => format!(
            "no tier label ({}) on {}",
            rules
                .security
                .iter()
                .chain(&rules.routine)
                .map(String::as_str)
                .collect::<Vec<_>>()
                .join(", "),
            pr_list(list.iter().map(|p| p.number))
        ),
    };
    let tier = match unlabeled {
        UnlabeledPolicy::Routine => Tier::Routine,
        UnlabeledPolicy::Security => Tier::Security,
        UnlabeledPolicy::Fail => {
            return Err(Undecided(format!(
                "cannot decide the tier: {why}; add a tier label to the pull request, or set \
                 the tier input (routine or security), or set unlabeled-tier"
            )));
        }
    };
    warnings.push(format!("{why}: treating the release as {tier}"));
    Ok(TierDecision {
        tier,
        source: TierSource::Default,
        pull_requests: prs,
        deciding: None,
        reason: format!("{tier}: {why} (unlabeled-tier default)"),
        warnings,
    })
}

fn pr_list(numbers: impl Iterator<Item = u64>) -> String {
    let mut seen: Vec<u64> = numbers.collect();
    seen.sort_unstable();
    seen.dedup();
    seen.iter()
        .map(|n| format!("#{n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pr(number: u64, labels: &[&str]) -> PullRequest {
        PullRequest {
            number,
            title: format!("PR {number}"),
            url: format!("https://github.com/o/r/pull/{number}"),
            labels: labels.iter().map(|s| s.to_string()).collect(),
        }
    }

    fn rules() -> LabelRules {
        LabelRules::parse("security, cve\n", "routine")
    }

    fn auto(prs: Vec<PullRequest>) -> Result<TierDecision, Undecided> {
        decide(
            TierRequest::Auto,
            &Evidence::PullRequests(prs),
            &rules(),
            UnlabeledPolicy::Routine,
        )
    }

    #[test]
    fn a_security_label_makes_the_release_security() {
        let d = auto(vec![pr(7, &["bug", "Security"])]).unwrap();
        assert_eq!(d.tier, Tier::Security);
        assert_eq!(d.source, TierSource::Labels);
        assert_eq!(d.deciding.unwrap().pull_request, 7);
    }

    #[test]
    fn security_wins_over_routine_with_a_warning_naming_the_prs() {
        let d = auto(vec![pr(1, &["routine"]), pr(2, &["cve"])]).unwrap();
        assert_eq!(d.tier, Tier::Security);
        assert_eq!(d.warnings.len(), 1);
        assert!(
            d.warnings[0].contains("#2") && d.warnings[0].contains("#1"),
            "{:?}",
            d.warnings
        );
    }

    #[test]
    fn a_routine_label_makes_it_routine_without_warning() {
        let d = auto(vec![pr(3, &["ROUTINE"])]).unwrap();
        assert_eq!((d.tier, d.source), (Tier::Routine, TierSource::Labels));
        assert!(d.warnings.is_empty());
    }

    #[test]
    fn unlabeled_defaults_to_routine_with_a_warning_naming_the_pr() {
        let d = auto(vec![pr(4, &["docs"])]).unwrap();
        assert_eq!((d.tier, d.source), (Tier::Routine, TierSource::Default));
        assert!(d.warnings[0].contains("#4"), "{:?}", d.warnings);
    }

    #[test]
    fn unlabeled_fails_when_told_to() {
        let err = decide(
            TierRequest::Auto,
            &Evidence::NoPullRequest("schedule".into()),
            &rules(),
            UnlabeledPolicy::Fail,
        )
        .unwrap_err();
        assert!(err.0.contains("schedule"), "{err}");
    }

    #[test]
    fn an_explicit_tier_wins_over_labels() {
        let d = decide(
            TierRequest::Routine,
            &Evidence::PullRequests(vec![pr(5, &["security"])]),
            &rules(),
            UnlabeledPolicy::Fail,
        )
        .unwrap();
        assert_eq!((d.tier, d.source), (Tier::Routine, TierSource::Input));
        assert!(d.reason.contains("tier input"));
    }

    #[test]
    fn label_lists_split_on_commas_and_newlines() {
        assert_eq!(split_list(" a,b\n\nc ,"), vec!["a", "b", "c"]);
    }
}
