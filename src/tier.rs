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
use serde::Serialize;
use std::fmt;

/// The refresh tier of a release.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TierRequest {
    /// Decide from the pull requests' labels.
    Auto,
    /// Routine, whatever the labels say.
    Routine,
    /// Security, whatever the labels say.
    Security,
}

/// What an unlabeled release becomes (`--unlabeled-tier`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
    /// The label as it reads on the PR ([`label_as_shown`]).
    pub label: String,
}

/// The labels could not decide and the unlabeled policy is `fail`, or the look-up of the
/// pull requests failed and no explicit policy allows a tier not derived from labels.
/// The message says what failed and what to set.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{0}")]
pub struct Undecided(pub String);

impl LabelRules {
    /// Whether `pr` carries any tier label (security or routine), case-insensitively.
    pub fn has_tier_label(&self, pr: &PullRequest) -> bool {
        pr.labels.iter().any(|l| {
            let label = label_as_shown(l);
            self.security
                .iter()
                .chain(&self.routine)
                .any(|n| same_label(n, &label))
        })
    }
}

/// An untrusted label as the bodies show it ([`sanitize::clean_line`]: NFC, invisible and
/// control characters removed, white space folded and trimmed). Labels are matched in this
/// form, so what counts is what a reader sees: `secu\u{200B}rity` reads, and counts, as
/// `security`.
pub fn label_as_shown(label: &str) -> String {
    sanitize::clean_line(label, sanitize::DEFAULT_MAX_CHARS)
}

/// Whether the configured label `name` is `shown` (a label in [`label_as_shown`] form),
/// ASCII case-insensitively. A label that reads as nothing matches nothing.
fn same_label(name: &str, shown: &str) -> bool {
    !shown.is_empty() && label_as_shown(name).eq_ignore_ascii_case(shown)
}

/// What the look-up of the pull requests behind a release found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// The merged pull requests behind the release (never empty when a look-up ran; may be
    /// empty only if the caller says so).
    PullRequests(Vec<PullRequest>),
    /// Some pull requests were found, but not everything behind the release was examined
    /// or resolved: commits of a push without a merged pull request after the retries and the
    /// `(#N)` fallback, or a push of more commits than are looked up. Never decided silently:
    /// a security label among `pull_requests` still decides (nothing unexamined can lower
    /// it); otherwise it counts as a failed look-up.
    Incomplete {
        /// The merged pull requests found.
        pull_requests: Vec<PullRequest>,
        /// What was not examined or resolved and why, naming the commits.
        missing: String,
    },
    /// The event carries no pull request by nature (`schedule`, `workflow_dispatch`, ...).
    NoPullRequest,
    /// The look-up could not run or failed (API error, permission, no merged pull request
    /// for a push after the retries). The text says what was looked up, what failed and, where
    /// known, the fix (e.g. the `pull-requests: read` permission). Never "unlabeled".
    LookupFailed(String),
}

/// What tier resolution knows about the pull requests behind the release.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evidence {
    /// Where they were looked for, as a noun phrase: e.g. `the push of c4295bd74fb0 to main`,
    /// `the schedule event`.
    pub origin: String,
    /// What was found.
    pub found: Found,
    /// Things the look-up noticed that a human should see (commits of a push without a
    /// merged pull request, a re-fetched pull request); they become warnings.
    pub notes: Vec<String>,
}

impl Evidence {
    /// Evidence for an event that carries no pull request, e.g. `schedule`.
    pub fn no_pull_request(event: &str) -> Self {
        Self {
            origin: format!("the {event} event"),
            found: Found::NoPullRequest,
            notes: Vec::new(),
        }
    }
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
/// [`Undecided`] when the look-up failed without an explicit `unlabeled` routine or security,
/// or when nothing decides and `unlabeled` is [`UnlabeledPolicy::Fail`].
pub fn decide(
    request: TierRequest,
    evidence: &Evidence,
    rules: &LabelRules,
    unlabeled: Option<UnlabeledPolicy>,
) -> Result<TierDecision, Undecided> {
    let prs = match &evidence.found {
        Found::PullRequests(prs) => prs.clone(),
        Found::Incomplete { pull_requests, .. } => pull_requests.clone(),
        Found::NoPullRequest | Found::LookupFailed(_) => Vec::new(),
    };
    let mut warnings = evidence.notes.clone();
    let (security, routine) = tier_labels(&prs, rules, &mut warnings);
    let explicit = match request {
        TierRequest::Routine => Some(Tier::Routine),
        TierRequest::Security => Some(Tier::Security),
        TierRequest::Auto => None,
    };
    if let Some(tier) = explicit {
        return Ok(by_input(tier, evidence, prs, &security, &routine, warnings));
    }
    let failure = match &evidence.found {
        Found::LookupFailed(failure) => Some((failure, "could not be looked up")),
        Found::Incomplete { missing, .. } => match security.first() {
            None => Some((missing, "are not all known")),
            Some(d) => {
                warnings.push(format!(
                    "{missing}; label {:?} on #{} makes the release security whatever they carry",
                    d.label, d.pull_request
                ));
                None
            }
        },
        Found::PullRequests(_) | Found::NoPullRequest => None,
    };
    if let Some((failure, how)) = failure {
        return not_from_labels(failure, how, &evidence.origin, prs, unlabeled, warnings);
    }
    let labelled = |tier: Tier, first: &DecidingLabel, mut warnings: Vec<String>| {
        let unlabeled_prs: Vec<u64> = prs
            .iter()
            .filter(|pr| !rules.has_tier_label(pr))
            .map(|pr| pr.number)
            .collect();
        if !unlabeled_prs.is_empty() {
            warnings.push(format!(
                "no tier label on {}: the tier comes from the other pull requests",
                pr_list(unlabeled_prs.iter().copied())
            ));
        }
        TierDecision {
            tier,
            source: TierSource::Labels,
            pull_requests: prs.clone(),
            reason: format!(
                "{tier}: label {:?} on #{}, found from {}",
                first.label, first.pull_request, evidence.origin
            ),
            deciding: Some(first.clone()),
            warnings,
        }
    };
    if let Some(first) = security.first() {
        if !routine.is_empty() {
            warnings.push(format!(
                "conflicting tier labels: security on {}, routine on {}; security wins",
                pr_list(security.iter().map(|d| d.pull_request)),
                pr_list(routine.iter().map(|d| d.pull_request)),
            ));
        }
        return Ok(labelled(Tier::Security, first, warnings));
    }
    if let Some(first) = routine.first() {
        return Ok(labelled(Tier::Routine, first, warnings));
    }
    unlabeled_decision(evidence, rules, prs, unlabeled, warnings)
}

/// The security and the routine labels on `prs`, in order. A label on both lists is a
/// configuration slip: it counts as security, and only once, with a warning.
fn tier_labels(
    prs: &[PullRequest],
    rules: &LabelRules,
    warnings: &mut Vec<String>,
) -> (Vec<DecidingLabel>, Vec<DecidingLabel>) {
    let mut overlap: Vec<&String> = Vec::new();
    for label in &rules.routine {
        let on_both = rules.security.iter().any(|s| s.eq_ignore_ascii_case(label));
        if on_both && !overlap.iter().any(|o| o.eq_ignore_ascii_case(label)) {
            overlap.push(label);
        }
    }
    for label in &overlap {
        warnings.push(format!(
            "the label lists overlap: {label:?} is in both security-labels and routine-labels, \
             so it counts as security; remove it from one of them"
        ));
    }
    let routine_only: Vec<String> = rules
        .routine
        .iter()
        .filter(|r| !overlap.iter().any(|o| o.eq_ignore_ascii_case(r)))
        .cloned()
        .collect();
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
    mut warnings: Vec<String>,
) -> TierDecision {
    let overridden = match tier {
        Tier::Routine => security.first(),
        Tier::Security => routine.first(),
    };
    if let Some(d) = overridden {
        warnings.push(format!(
            "the tier input ({tier}) overrides label {:?} on #{}",
            d.label, d.pull_request
        ));
    }
    match &evidence.found {
        Found::LookupFailed(failure) => warnings.push(format!(
            "the tier input sets the tier ({tier}), but the release note lists no pull \
             requests: {failure}"
        )),
        Found::Incomplete { missing, .. } => warnings.push(format!(
            "the tier input sets the tier ({tier}), but not every pull request behind \
             this release is listed: {missing}"
        )),
        Found::PullRequests(_) | Found::NoPullRequest => {}
    }
    TierDecision {
        tier,
        source: TierSource::Input,
        pull_requests: prs,
        deciding: None,
        reason: format!("{tier}: set by the tier input"),
        warnings,
    }
}

/// Rule 2: a failed (or incomplete, undecided) look-up is not "unlabeled": only an explicit
/// `unlabeled-tier` routine or security decides, with a warning.
fn not_from_labels(
    failure: &str,
    how: &str,
    origin: &str,
    prs: Vec<PullRequest>,
    unlabeled: Option<UnlabeledPolicy>,
    mut warnings: Vec<String>,
) -> Result<TierDecision, Undecided> {
    let tier = match unlabeled {
        Some(UnlabeledPolicy::Routine) => Tier::Routine,
        Some(UnlabeledPolicy::Security) => Tier::Security,
        None | Some(UnlabeledPolicy::Fail) => {
            return Err(Undecided(format!(
                "cannot decide the tier from labels: {failure}. To announce without \
                 labels, set the tier input (routine or security) for this run, or set \
                 unlabeled-tier to routine or security to accept a tier not derived from \
                 labels"
            )));
        }
    };
    warnings.push(format!(
        "the tier was not derived from labels: {failure}; unlabeled-tier makes it {tier}"
    ));
    Ok(TierDecision {
        tier,
        source: TierSource::Default,
        pull_requests: prs,
        deciding: None,
        reason: format!(
            "{tier}: not derived from labels (the pull requests of {origin} {how}); set \
             by unlabeled-tier"
        ),
        warnings,
    })
}

/// Rule 4: no tier label (or no pull request): the unlabeled policy decides, routine by
/// default.
fn unlabeled_decision(
    evidence: &Evidence,
    rules: &LabelRules,
    prs: Vec<PullRequest>,
    unlabeled: Option<UnlabeledPolicy>,
    mut warnings: Vec<String>,
) -> Result<TierDecision, Undecided> {
    let origin = &evidence.origin;
    let why = match &evidence.found {
        Found::PullRequests(list) if !list.is_empty() => format!(
            "no tier label ({}) on {}, found from {origin}",
            rules
                .security
                .iter()
                .chain(&rules.routine)
                .map(String::as_str)
                .collect::<Vec<_>>()
                .join(", "),
            pr_list(list.iter().map(|p| p.number))
        ),
        _ => format!("{origin} carries no pull request"),
    };
    let (tier, how) = match unlabeled {
        None => (Tier::Routine, "unlabeled-tier default"),
        Some(UnlabeledPolicy::Routine) => (Tier::Routine, "set by unlabeled-tier"),
        Some(UnlabeledPolicy::Security) => (Tier::Security, "set by unlabeled-tier"),
        Some(UnlabeledPolicy::Fail) => {
            let label = if prs.is_empty() {
                ""
            } else {
                "add a tier label to the pull request and re-run, or "
            };
            return Err(Undecided(format!(
                "cannot decide the tier: {why}, and unlabeled-tier is fail; {label}set the \
                 tier input (routine or security), or set unlabeled-tier to routine or security"
            )));
        }
    };
    warnings.push(format!("{why}: treating the release as {tier}"));
    Ok(TierDecision {
        tier,
        source: TierSource::Default,
        pull_requests: prs,
        deciding: None,
        reason: format!("{tier}: {why} ({how})"),
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

    fn found(prs: Vec<PullRequest>) -> Evidence {
        Evidence {
            origin: "the push of c4295bd74fb0 to main".into(),
            found: Found::PullRequests(prs),
            notes: Vec::new(),
        }
    }

    fn failed() -> Evidence {
        Evidence {
            origin: "the push of c4295bd74fb0 to main".into(),
            found: Found::LookupFailed(
                "GitHub answered 403; add `permissions: pull-requests: read`".into(),
            ),
            notes: Vec::new(),
        }
    }

    fn auto(prs: Vec<PullRequest>) -> Result<TierDecision, Undecided> {
        decide(TierRequest::Auto, &found(prs), &rules(), None)
    }

    /// The whole decision table: every request × what the look-up found (the trigger
    /// scenarios of `tests/it/tier_triggers.rs`: labelled, unlabelled, conflicting and
    /// overlapping pull requests, events without one, failed and incomplete look-ups) ×
    /// every unlabeled policy, with the reason and the warnings each gives.
    #[test]
    fn the_decision_table() {
        let origin = "the push of c4295bd74fb0 to main";
        let evidence = |found: Found| Evidence {
            origin: origin.into(),
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
                    missing: "commit 0123456789ab has no merged pull request".into(),
                }),
            ),
            (
                "incomplete, routine found",
                evidence(Found::Incomplete {
                    pull_requests: vec![pr(4, &["routine"])],
                    missing: "commit 0123456789ab has no merged pull request".into(),
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
        let mut table = String::new();
        for (name, evidence) in &scenarios {
            for request in requests {
                for policy in policies {
                    table.push_str(&format!("{name} | {request:?} | {policy:?}\n"));
                    match decide(request, evidence, &rules(), policy) {
                        Ok(d) => {
                            table
                                .push_str(&format!("  {} by {}: {}\n", d.tier, d.source, d.reason));
                            for w in &d.warnings {
                                table.push_str(&format!("  warning: {w}\n"));
                            }
                        }
                        Err(e) => table.push_str(&format!("  undecided: {e}\n")),
                    }
                }
            }
        }
        insta::assert_snapshot!(table);
    }

    #[test]
    fn a_security_label_makes_the_release_security() {
        let d = auto(vec![pr(7, &["bug", "Security"])]).unwrap();
        assert_eq!(d.tier, Tier::Security);
        assert_eq!(d.source, TierSource::Labels);
        assert_eq!(d.deciding.unwrap().pull_request, 7);
        assert_eq!(
            d.reason,
            "security: label \"Security\" on #7, found from the push of c4295bd74fb0 to main"
        );
    }

    #[test]
    fn a_label_counts_as_it_reads_invisible_characters_and_all() {
        // U+200B ZERO WIDTH SPACE and U+2066 LEFT-TO-RIGHT ISOLATE: the bodies show
        // "security", so it must count as security, and the reason shows what matched.
        let d = auto(vec![pr(7, &["secu\u{200B}rity\u{2066}"])]).unwrap();
        assert_eq!(d.tier, Tier::Security);
        assert_eq!(d.deciding.unwrap().label, "security");
        assert!(rules().has_tier_label(&pr(8, &[" rou\u{FEFF}tine\n"])));
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
    fn a_labelled_release_still_names_the_prs_without_a_tier_label() {
        let d = auto(vec![pr(3, &["routine"]), pr(8, &["docs"])]).unwrap();
        assert_eq!((d.tier, d.source), (Tier::Routine, TierSource::Labels));
        assert_eq!(
            d.warnings,
            vec!["no tier label on #8: the tier comes from the other pull requests"]
        );
    }

    #[test]
    fn unlabeled_defaults_to_routine_with_a_warning_naming_the_pr() {
        let d = auto(vec![pr(4, &["docs"])]).unwrap();
        assert_eq!((d.tier, d.source), (Tier::Routine, TierSource::Default));
        assert!(d.warnings[0].contains("#4"), "{:?}", d.warnings);
        assert!(
            d.reason.ends_with("(unlabeled-tier default)"),
            "{}",
            d.reason
        );
    }

    #[test]
    fn unlabeled_fails_when_told_to() {
        let err = decide(
            TierRequest::Auto,
            &Evidence::no_pull_request("schedule"),
            &rules(),
            Some(UnlabeledPolicy::Fail),
        )
        .unwrap_err();
        assert!(err.0.contains("schedule"), "{err}");
    }

    #[test]
    fn an_event_without_pull_request_follows_the_unlabeled_policy() {
        let d = decide(
            TierRequest::Auto,
            &Evidence::no_pull_request("schedule"),
            &rules(),
            Some(UnlabeledPolicy::Security),
        )
        .unwrap();
        assert_eq!((d.tier, d.source), (Tier::Security, TierSource::Default));
        assert_eq!(
            d.reason,
            "security: the schedule event carries no pull request (set by unlabeled-tier)"
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
        assert_eq!((d.tier, d.source), (Tier::Routine, TierSource::Input));
        assert!(d.reason.contains("tier input"));
        assert_eq!(
            d.warnings,
            vec!["the tier input (routine) overrides label \"security\" on #5"]
        );
        assert_eq!(d.pull_requests.len(), 1);
    }

    #[test]
    fn a_failed_look_up_is_an_error_not_unlabeled() {
        for unlabeled in [None, Some(UnlabeledPolicy::Fail)] {
            let err = decide(TierRequest::Auto, &failed(), &rules(), unlabeled).unwrap_err();
            assert!(err.0.contains("pull-requests: read"), "{err}");
            assert!(err.0.contains("set the tier input"), "{err}");
        }
    }

    #[test]
    fn a_failed_look_up_with_an_explicit_unlabeled_tier_warns_that_labels_were_not_used() {
        let d = decide(
            TierRequest::Auto,
            &failed(),
            &rules(),
            Some(UnlabeledPolicy::Routine),
        )
        .unwrap();
        assert_eq!((d.tier, d.source), (Tier::Routine, TierSource::Default));
        assert!(
            d.warnings[0].starts_with("the tier was not derived from labels: GitHub answered 403"),
            "{:?}",
            d.warnings
        );
        assert!(d.reason.contains("not derived from labels"), "{}", d.reason);
    }

    #[test]
    fn a_failed_look_up_does_not_stop_an_explicit_tier() {
        let d = decide(TierRequest::Security, &failed(), &rules(), None).unwrap();
        assert_eq!((d.tier, d.source), (Tier::Security, TierSource::Input));
        assert!(
            d.warnings[0].starts_with(
                "the tier input sets the tier (security), but the release note lists no pull requests: "
            ),
            "{:?}",
            d.warnings
        );
        assert_eq!(d.reason, "security: set by the tier input");
    }

    #[test]
    fn look_up_notes_become_warnings() {
        let mut e = found(vec![pr(3, &["routine"])]);
        e.notes
            .push("commit 0123 has no merged pull request".into());
        let d = decide(TierRequest::Auto, &e, &rules(), None).unwrap();
        assert_eq!(d.warnings, vec!["commit 0123 has no merged pull request"]);
    }

    fn incomplete(prs: Vec<PullRequest>) -> Evidence {
        Evidence {
            found: Found::Incomplete {
                pull_requests: prs,
                missing: "no merged pull request found for commit 9d2f0b1c4a6e".into(),
            },
            ..found(Vec::new())
        }
    }

    #[test]
    fn an_incomplete_look_up_is_decided_by_a_security_label_it_found() {
        let e = incomplete(vec![pr(5, &["routine"]), pr(6, &["cve"])]);
        let d = decide(TierRequest::Auto, &e, &rules(), None).unwrap();
        assert_eq!((d.tier, d.source), (Tier::Security, TierSource::Labels));
        assert!(
            d.warnings.contains(
                &"no merged pull request found for commit 9d2f0b1c4a6e; label \"cve\" on #6 \
                  makes the release security whatever they carry"
                    .to_string()
            ),
            "{:?}",
            d.warnings
        );
    }

    #[test]
    fn an_incomplete_look_up_without_security_label_is_a_failed_one() {
        let e = incomplete(vec![pr(5, &["routine"])]);
        for unlabeled in [None, Some(UnlabeledPolicy::Fail)] {
            let err = decide(TierRequest::Auto, &e, &rules(), unlabeled).unwrap_err();
            assert!(
                err.0.starts_with(
                    "cannot decide the tier from labels: no merged pull request found for \
                     commit 9d2f0b1c4a6e"
                ),
                "{err}"
            );
        }
        let d = decide(
            TierRequest::Auto,
            &e,
            &rules(),
            Some(UnlabeledPolicy::Security),
        )
        .unwrap();
        assert_eq!((d.tier, d.source), (Tier::Security, TierSource::Default));
        assert!(d.reason.contains("are not all known"), "{}", d.reason);
        assert_eq!(d.pull_requests.len(), 1);
        let d = decide(TierRequest::Routine, &e, &rules(), None).unwrap();
        assert_eq!((d.tier, d.source), (Tier::Routine, TierSource::Input));
        assert!(
            d.warnings[0].starts_with(
                "the tier input sets the tier (routine), but not every pull request behind this \
                 release is listed"
            ),
            "{:?}",
            d.warnings
        );
    }

    #[test]
    fn a_label_on_both_lists_counts_as_security_and_says_the_lists_overlap() {
        let rules = LabelRules::parse("hotfix", "routine, HotFix,hotfix");
        let d = decide(
            TierRequest::Auto,
            &found(vec![pr(2, &["hotfix"])]),
            &rules,
            None,
        )
        .unwrap();
        assert_eq!((d.tier, d.source), (Tier::Security, TierSource::Labels));
        assert_eq!(
            d.warnings,
            vec![
                "the label lists overlap: \"HotFix\" is in both security-labels and \
                 routine-labels, so it counts as security; remove it from one of them"
            ]
        );
    }

    #[test]
    fn tier_labels_match_case_insensitively() {
        assert!(rules().has_tier_label(&pr(1, &[" CVE "])));
        assert!(!rules().has_tier_label(&pr(1, &["docs"])));
    }

    #[test]
    fn label_lists_split_on_commas_and_newlines() {
        assert_eq!(split_list(" a,b\n\nc ,"), vec!["a", "b", "c"]);
    }
}
