//! The log lines and annotations of an `announce` run: every sentence the pipeline prints
//! is here, so the pipeline holds no wording.

use super::Change;
use crate::digest::Digest;
use crate::support::sanitize::log_line;
use crate::tier::{LookupOrigin, PullRequest, Reason, Warning};
use crate::window::{PodImage, PodTag, PolicySource, PullPolicy, PullRisk};

/// A warning a run prints beside its work, as data: [`RunWarning::title`] and `Display`
/// word it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum RunWarning<'a> {
    /// The idle culler is off (`cull.enabled: false`).
    CullingDisabled,
    /// `$GITHUB_OUTPUT` is missing inside Actions: the names of the command's main outputs,
    /// shown as examples (`announce`: digest, tier, release-url).
    OutputsNotWritten(&'a [&'a str]),
    /// A failed run could not write its step outputs, its job summary, or both: each
    /// write's error (at least one is `Some`).
    FailureNotReported {
        /// Why the step outputs were not written, when they were not.
        outputs: Option<&'a anyhow::Error>,
        /// Why the job summary was not written, when it was not.
        summary: Option<&'a anyhow::Error>,
    },
    /// GitHub answered an address that is not a plain `http(s)://` URL: the address, left
    /// out of the outputs and the job summary.
    UrlRefused(&'a str),
    /// A token goes to a plain `http://` address outside loopback, private networks and the
    /// cluster: the input naming the address (`hub-url`, `api-url`), the address, and the
    /// input holding the token.
    PlainHttp {
        /// The input naming the address.
        input: &'a str,
        /// The address, as given (checked: no credentials, query or fragment).
        url: &'a str,
        /// The input holding the token sent to it.
        token: &'a str,
    },
    /// The progress chart's history in the convergence comment was refused (untrusted: anyone
    /// who can edit the comment can write it): the words of
    /// [`crate::render::status::history_refused`].
    HistoryRefused(&'a str),
    /// New servers may start on an older image than the one announced: the effective pull
    /// policy is not `Always` and the image is not pinned by digest ([`PullRisk`]).
    PullPolicy(&'a PullRisk),
    /// A security release's runbook carries a placeholder: `hub-url` is a name reserved for
    /// examples ([`super::RunbookSettings::hub_url_is_placeholder`]). The run's first
    /// annotation. `in_actions`: the inputs to set are named as the workflow's (`hub-url`),
    /// else as the command line's options (`--hub-url`).
    RunbookPlaceholder {
        /// The runbook's settings.
        runbook: &'a super::RunbookSettings,
        /// Whether the run is inside GitHub Actions ([`crate::support::log::Log::in_actions`]).
        in_actions: bool,
    },
    /// `status` by digest: the hub lists running servers but no pod of the namespace matches
    /// the selector (a wrong `namespace` or `helm-release`), so every server's image reads as
    /// unknown.
    NoPods {
        /// The namespace listed (`namespace`).
        namespace: &'a str,
        /// The label selector sent ([`crate::status::kube::PodQuery::selector`]).
        selector: &'a str,
        /// Running servers the hub lists (at least 1).
        servers: usize,
    },
}

impl crate::support::text::Titled for RunWarning<'_> {
    fn title(&self) -> &str {
        match self {
            Self::CullingDisabled => "Convergence window",
            Self::OutputsNotWritten(_) => "Step outputs",
            Self::FailureNotReported {
                outputs: Some(_),
                summary: Some(_),
            } => "Step outputs and job summary",
            Self::FailureNotReported {
                outputs: None,
                summary: Some(_),
            } => "Job summary",
            Self::FailureNotReported { .. } => "Step outputs",
            Self::UrlRefused(_) => "Address from GitHub",
            Self::PlainHttp { .. } => "Plain HTTP",
            Self::HistoryRefused(_) => "Progress chart",
            Self::PullPolicy(_) => "Pull policy",
            Self::RunbookPlaceholder { .. } => "Runbook placeholder",
            Self::NoPods { .. } => "No single-user pods",
        }
    }
}

/// The annotation's text, on one line (an address cut to 200 characters).
impl std::fmt::Display for RunWarning<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::CullingDisabled => f.write_str(
                "culling is disabled: running sessions update only when their users restart them",
            ),
            Self::OutputsNotWritten(names) => write!(
                f,
                "GITHUB_OUTPUT is not set, so the step outputs ({}, ...) were not written and \
                 later steps will see them empty; the Actions runner sets it for every step",
                names.join(", ")
            ),
            Self::FailureNotReported { outputs, summary } => {
                let what = match (outputs, summary) {
                    (Some(_), Some(_)) => "its step outputs and its job summary",
                    (Some(_), None) => "its step outputs",
                    _ => "its job summary",
                };
                write!(f, "the run failed, and writing {what} failed too")?;
                for (why, sep) in [outputs, summary].into_iter().flatten().zip([": ", "; "]) {
                    write!(f, "{sep}{why:#}")?;
                }
                Ok(())
            }
            Self::PlainHttp { input, url, token } => write!(
                f,
                "{input} {} is plain http:// to a host outside loopback, private networks and the cluster: {token} is sent unencrypted to it; use https://, or an address inside the cluster or a private network",
                log_line(url, 200)
            ),
            Self::HistoryRefused(words) => f.write_str(words),
            Self::NoPods {
                namespace,
                selector,
                servers,
            } => write!(
                f,
                "the hub lists {servers} running {} but no pod in the namespace {namespace} matches the selector {selector}, so no server can be judged by digest (a server started after the release reads as image unknown): check the namespace and helm-release inputs (the hub's namespace and its Helm release name, as in kubectl get pods -n {namespace} -l {selector}), and that the hub runs on this cluster",
                if *servers == 1 { "server" } else { "servers" }
            ),
            Self::PullPolicy(risk) => {
                let image = risk.image.as_ref().map_or_else(
                    || "the single-user image (no values file names it)".to_string(),
                    |i| {
                        format!(
                            "{} ({}), which is not pinned by digest",
                            pod_image(i),
                            image_origin(i)
                        )
                    },
                );
                write!(
                    f,
                    "new servers may start on an older image than this release: imagePullPolicy is {} ({}) for {}, {}; set singleuser.image.pullPolicy: Always in the values files (or pin the image by digest): until then a server started after the release may still run the old image",
                    policy_name(risk.policy),
                    policy_source(&risk.source),
                    log_line(&image, 300),
                    match risk.policy {
                        PullPolicy::Never =>
                            "so a node never pulls it and starts new servers only from an image it already has",
                        _ =>
                            "so a node that pulled that tag before starts new servers from its cached copy",
                    }
                )
            }
            Self::RunbookPlaceholder {
                runbook,
                in_actions,
            } => {
                // Inside Actions the workflow's inputs, else the command line's options.
                let (dashes, place) = if *in_actions {
                    ("", "in the workflow")
                } else {
                    ("--", "on the command line")
                };
                write!(
                    f,
                    "this security release's runbook points responders at a placeholder: hub-url \
                     is {}, a name reserved for examples, so its commands and links reach no hub",
                    log_line(&runbook.hub_url, 200)
                )?;
                if runbook.cluster_at_defaults() {
                    f.write_str(", and namespace and helm-release are at their defaults (jhub)")?;
                }
                write!(f, ". Set {dashes}hub-url (the address users open)")?;
                if runbook.cluster_at_defaults() {
                    write!(
                        f,
                        ", and {dashes}namespace and {dashes}helm-release if the hub runs \
                         elsewhere,"
                    )?;
                }
                write!(f, " {place}.")?;
                f.write_str(
                    " The tracking issue is opened anyway (responders need it), \
                     but its body is never edited again: correct the runbook there by hand",
                )
            }
            Self::UrlRefused(url) => write!(
                f,
                "GitHub answered an address that is not a plain http(s) URL, so the step \
                 outputs and the job summary leave it out: {}",
                log_line(url, 200)
            ),
        }
    }
}

/// A pull policy as Kubernetes writes it.
pub(crate) fn policy_name(policy: PullPolicy) -> &'static str {
    match policy {
        PullPolicy::Always => "Always",
        PullPolicy::IfNotPresent => "IfNotPresent",
        PullPolicy::Never => "Never",
    }
}

/// Where a pull policy comes from, in words: `values.yaml: singleuser.image.pullPolicy`, or
/// Kubernetes' default.
pub(crate) fn policy_source(source: &PolicySource) -> String {
    match source {
        PolicySource::Values(origin) => origin.to_string(),
        PolicySource::KubernetesDefault => {
            "Kubernetes' default for a tag other than latest: singleuser.image.pullPolicy is not set".into()
        }
    }
}

/// The image pods start from as a reference: `name:tag`, the name alone, or the name with
/// z2jh's default tag.
pub(crate) fn pod_image(image: &PodImage) -> String {
    match &image.tag {
        PodTag::Given(tag) => format!("{}:{tag}", image.name),
        PodTag::NoTag => image.name.clone(),
        PodTag::ChartDefault => format!("{} with the chart's default tag", image.name),
    }
}

/// Where the pods' image name comes from: the values file and key, or the image announced.
pub(crate) fn image_origin(image: &PodImage) -> String {
    image
        .name_origin
        .as_ref()
        .map_or_else(|| "the image announced".to_string(), ToString::to_string)
}

/// What error texts, log lines and comment bodies say in place of an address GitHub
/// answered that is not a plain `http(s)://` URL.
pub(crate) const ADDRESS_LEFT_OUT: &str =
    "(an address GitHub answered that is not a plain URL, left out)";

/// Title of the warnings about what was left alone for a human to look at: a release note a
/// human edited, duplicate tracking issues responders work in.
pub(crate) const HUMAN_EDITED_TITLE: &str = "left alone for a human";

/// Title of the tier decision's warnings.
pub(crate) const TIER_WARNING_TITLE: &str = "Tier";

/// A tier warning: its first line and its help, each made one safe log line.
pub(crate) fn tier_warning(warning: &Warning) -> String {
    let text = warning.to_string();
    let lines: Vec<String> = text.lines().map(|line| log_line(line, 2000)).collect();
    lines.join("\n")
}

/// `IMAGE resolves to DIGEST`.
pub(crate) fn resolved(image: &str, digest: &Digest) -> String {
    format!("{image} resolves to {digest}")
}

/// The debug line after the registry answered: the digest, the manifest's media type as
/// the registry named it, the requests sent.
pub(crate) fn registry_answer(digest: &Digest, media_type: &str, requests: u32) -> String {
    format!(
        "registry answered {digest} ({}) in {requests} request(s)",
        log_line(media_type, 200)
    )
}

/// `tier REASON`.
pub(crate) fn tier(reason: &Reason) -> String {
    format!("tier {}", log_line(&reason.to_string(), 500))
}

/// One pull request behind the tier: number, title, address, labels.
pub(crate) fn pull_request(pr: &PullRequest) -> String {
    log_line(
        &format!(
            "  #{} {} <{}> labels: {}",
            pr.number,
            pr.title,
            pr.url,
            pr.labels.join(", ")
        ),
        500,
    )
}

/// The release targets another commit than `GITHUB_SHA`.
pub(crate) fn target_commit(target: &str, origin: &LookupOrigin, github_sha: &str) -> String {
    format!("the release targets commit {target}, from {origin} (GITHUB_SHA is {github_sha})")
}

/// A dry run's release note.
pub(crate) fn dry_run_release(tag: &str, note: &str) -> String {
    format!("dry run: would publish release {tag}\n\n----- release note -----\n{note}")
}

/// A body GitHub's limit cut ([`full_text`]).
#[derive(Debug, Clone, Copy)]
pub(crate) enum CutBody {
    /// The release note (125,000 characters).
    ReleaseNote,
    /// The tracking issue (65,536 characters).
    TrackingIssue,
}

/// The full text of a body GitHub's limit cut, for the log (where the cut note points).
pub(crate) fn full_text(kind: CutBody, body: &str) -> String {
    let what = match kind {
        CutBody::ReleaseNote => "release note",
        CutBody::TrackingIssue => "tracking issue",
    };
    format!(
        "the {what} is over GitHub's limit, so it was cut there; its full text:\n----- {what} \
         (full text) -----\n{body}\n----- end of the {what} -----"
    )
}

/// A dry run's tracking issue.
pub(crate) fn dry_run_issue(title: &str, body: &str) -> String {
    format!("----- tracking issue: {title} -----\n{body}")
}

/// What happened to the release note; the address as GitHub answered it, on one line
/// without control characters.
pub(crate) fn release_note(change: Change, url: &str) -> String {
    format!("release note {change}: {}", log_line(url, 2000))
}

/// What happened to the tracking issue; the address as for [`release_note`].
pub(crate) fn tracking_issue(change: Change, url: &str) -> String {
    format!("tracking issue {change}: {}", log_line(url, 2000))
}

/// A line publishing logged (what it found, or did that is unusual), on one line without
/// control characters: it may quote what GitHub answered.
pub(crate) fn published_note(note: &str) -> String {
    log_line(note, 2000)
}

/// What happened to the tracking issue's update comment.
pub(crate) fn update_comment(change: Change) -> String {
    format!("tracking issue update comment {change}")
}

/// The last line outside Actions (or without a job summary): what the run did.
pub(crate) fn run_state(
    state: RunState,
    image: &str,
    digest: &Digest,
    tier: impl std::fmt::Display,
    window: &str,
) -> String {
    let state = match state {
        RunState::Published => "published",
        RunState::Unchanged => "unchanged",
        RunState::DryRun => "dry run",
    };
    format!("{state}: {image} {digest} tier={tier} window: {window}")
}

/// How a run ended, for [`run_state`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RunState {
    /// Something changed on GitHub.
    Published,
    /// Everything was already as it should be.
    Unchanged,
    /// A dry run: nothing was sent.
    DryRun,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::support::text::Titled as _;

    /// The warning of a failed run's report names what could not be written, in its title
    /// and its text, and gives each write's error.
    #[test]
    fn a_failure_not_reported_names_the_file_that_failed() {
        let outputs = anyhow::anyhow!("cannot write step outputs to $GITHUB_OUTPUT");
        let summary = anyhow::anyhow!("cannot write the job summary to $GITHUB_STEP_SUMMARY");
        let lines: Vec<String> = [
            (Some(&outputs), None),
            (None, Some(&summary)),
            (Some(&outputs), Some(&summary)),
        ]
        .into_iter()
        .map(|(outputs, summary)| {
            let warning = RunWarning::FailureNotReported { outputs, summary };
            format!("{}: {warning}", warning.title())
        })
        .collect();
        insta::assert_snapshot!(lines.join("\n"), @r"
        Step outputs: the run failed, and writing its step outputs failed too: cannot write step outputs to $GITHUB_OUTPUT
        Job summary: the run failed, and writing its job summary failed too: cannot write the job summary to $GITHUB_STEP_SUMMARY
        Step outputs and job summary: the run failed, and writing its step outputs and its job summary failed too: cannot write step outputs to $GITHUB_OUTPUT; cannot write the job summary to $GITHUB_STEP_SUMMARY
        ");
    }

    /// The pull-policy warning names the policy, where it comes from, the image and the fix;
    /// `Never` says that nodes never pull.
    #[test]
    fn the_pull_policy_warning_names_policy_origin_image_and_fix() {
        use crate::window::{Origin, PodImage, PodTag, PolicySource, PullPolicy, PullRisk};
        let from_values = PullRisk {
            policy: PullPolicy::IfNotPresent,
            source: PolicySource::Values(Origin::file(
                "values.yaml",
                "singleuser.image.pullPolicy",
            )),
            image: Some(PodImage {
                name: "ghcr.io/org/lab".into(),
                tag: PodTag::Given("latest".into()),
                name_origin: None,
            }),
        };
        let by_default = PullRisk {
            policy: PullPolicy::IfNotPresent,
            source: PolicySource::KubernetesDefault,
            image: Some(PodImage {
                name: "ghcr.io/org/lab".into(),
                tag: PodTag::ChartDefault,
                name_origin: Some(Origin::file("values.yaml", "singleuser.image.name")),
            }),
        };
        let never = PullRisk {
            policy: PullPolicy::Never,
            image: None,
            ..from_values.clone()
        };
        let lines: Vec<String> = [from_values, by_default, never]
            .iter()
            .map(|risk| {
                let warning = RunWarning::PullPolicy(risk);
                format!("{}: {warning}", warning.title())
            })
            .collect();
        insta::assert_snapshot!(lines.join("\n"));
    }

    /// A wrong namespace or helm-release: the namespace, the selector and what to check.
    #[test]
    fn no_matching_pods_name_the_namespace_and_the_selector() {
        let lines: Vec<String> = [1, 3]
            .into_iter()
            .map(|servers| {
                let warning = RunWarning::NoPods {
                    namespace: "jhub",
                    selector: "component=singleuser-server,release=jhub",
                    servers,
                };
                format!("{}: {warning}", warning.title())
            })
            .collect();
        insta::assert_snapshot!(lines.join("\n"));
    }

    #[test]
    fn an_unset_github_output_names_the_commands_outputs() {
        let warning = RunWarning::OutputsNotWritten(&["converged", "stale", "running"]);
        insta::assert_snapshot!(format!("{}: {warning}", warning.title()), @"Step outputs: GITHUB_OUTPUT is not set, so the step outputs (converged, stale, running, ...) were not written and later steps will see them empty; the Actions runner sets it for every step");
    }

    /// Issue 27: the runbook placeholder warning names the workflow's inputs inside
    /// Actions and the command line's options outside it.
    #[test]
    fn the_runbook_placeholder_warning_names_inputs_or_options() {
        let runbook = crate::render::RunbookSettings::default();
        let lines: Vec<String> = [true, false]
            .into_iter()
            .map(|in_actions| {
                let warning = RunWarning::RunbookPlaceholder {
                    runbook: &runbook,
                    in_actions,
                };
                format!("{in_actions}: {}: {warning}", warning.title())
            })
            .collect();
        insta::assert_snapshot!(lines.join("\n"));
    }
}
