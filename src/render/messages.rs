//! The log lines and annotations of an `announce` run: every sentence the pipeline prints
//! is here, so the pipeline holds no wording.

use super::words::Words;
use super::{BodyKind, Change, ISSUE_BODY_LIMIT, RELEASE_BODY_LIMIT, RunbookSettings};
use crate::digest::Digest;
use crate::support::sanitize::log_line;
use crate::support::stdout::StdoutFailed;
use crate::tier::{LookupOrigin, PullRequest, Reason, Warning};
use crate::window::{PodImage, PodTag, PolicySource, PullPolicy, PullRisk, WindowWarning};

/// A warning a run prints beside its work, as data: `title`
/// ([`crate::support::text::Titled`]) and `Display` word it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum RunWarning<'a> {
    /// The window's warning: culling is off, or the window is longer than a year
    /// ([`crate::window::Configured::warning`]).
    Window(&'a WindowWarning),
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
    /// `status --context` (the input `context`) was given while Kubernetes is off, so it
    /// selects nothing: the pods are not read and servers are judged by start time. Whether
    /// the run is inside Actions (the help names the inputs under `with:`, else the options).
    ContextIgnored(bool),
    /// The progress chart's history in the convergence comment was refused (untrusted: anyone
    /// who can edit the comment can write it): the words of
    /// [`crate::render::status::history_refused`].
    HistoryRefused(&'a str),
    /// A body over GitHub's limit, which publishing cuts ([`crate::publish::cut_bodies`]):
    /// the same warning in a dry run.
    Cut(BodyKind),
    /// New servers may start on an older image than the one announced: the effective pull
    /// policy is not `Always` and the image is not pinned by digest ([`PullRisk`]).
    PullPolicy(&'a PullRisk),
    /// A dry run of a security release whose runbook carries a placeholder: `hub-url` is a
    /// name reserved for examples ([`crate::support::url::is_placeholder`]); a run that
    /// publishes is refused ([`PlaceholderRunbook`]). The run's first annotation.
    /// `in_actions`: the inputs to set are named as the workflow's (`hub-url`), else as the
    /// command line's options (`--hub-url`).
    RunbookPlaceholder {
        /// The runbook's settings.
        runbook: &'a RunbookSettings,
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
            Self::Window(_) => "Convergence window",
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
            Self::ContextIgnored(_) => "Kubernetes off",
            Self::HistoryRefused(_) => "Progress chart",
            Self::PullPolicy(_) => "Pull policy",
            Self::Cut(_) => "Cut to GitHub's limit",
            Self::RunbookPlaceholder { .. } => "Runbook placeholder",
            Self::NoPods { .. } => "No single-user pods",
        }
    }
}

// The annotation's text: its `RunWarning::words`.
super::words::words_display!(RunWarning<'_> => RunWarning::words);

impl RunWarning<'_> {
    /// The warning in the one shape: what is wrong, then what to do (text from outside,
    /// an address or a name, shown on one line and cut).
    pub(crate) fn words(&self) -> Words {
        match *self {
            Self::Window(warning) => super::window_words::warning_words(warning),
            Self::OutputsNotWritten(names) => Words::new(
                "GITHUB_OUTPUT is not set, so the step outputs were not written",
            )
            .help(format!(
                "the Actions runner sets it for every step; until then later steps see the step \
                 outputs ({}, ...) empty",
                names.join(", ")
            )),
            Self::FailureNotReported { outputs, summary } => failure_not_reported(outputs, summary),
            Self::UrlRefused(url) => Words::new(format!(
                "left out an address GitHub answered that is not a plain http(s) URL: {}",
                log_line(url, 40)
            )),
            Self::PlainHttp { input, url, token } => Words::new(format!(
                "{input} {} is plain http:// to a host outside loopback, private networks and \
                 the cluster",
                log_line(url, 40)
            ))
            .help(format!(
                "{token} is sent unencrypted to it: use https://, or an address inside the \
                 cluster or a private network"
            )),
            Self::ContextIgnored(in_actions) => Words::new(
                "context is set but Kubernetes is off: no kubeconfig is read and servers are \
                 judged by start time",
            )
            .help(match in_actions {
                true => {
                    "to judge by each pod's digest, set `kubeconfig:` or `kubernetes: true` \
                         under `with:`; else remove `context:`"
                }
                false => {
                    "to judge by each pod's digest, pass --kubeconfig PATH or --kubernetes; \
                          else remove --context"
                }
            }),
            // Worded by `status::report::history_refused`, in the shape it has there.
            Self::HistoryRefused(why) => Words::new(why),
            Self::PullPolicy(risk) => pull_policy(risk),
            Self::Cut(kind) => {
                let (what, limit) = body_name(kind);
                Words::new(format!(
                    "the {what} is over GitHub's limit of {limit} characters, so it is published \
                     cut there"
                ))
                .help(format!(
                    "it then ends with a line saying its full text is in this run's log; to \
                     publish it whole, make it shorter (a team's template: {})",
                    kind.input()
                ))
            }
            Self::RunbookPlaceholder {
                runbook,
                in_actions,
            } => placeholder(runbook, in_actions, false),
            Self::NoPods {
                namespace,
                selector,
                servers,
            } => Words::new(format!(
                "no single-user pod in the namespace {} matches the hub's {servers} running \
                 server{}",
                log_line(namespace, 63),
                if servers == 1 { "" } else { "s" }
            ))
            .help(format!(
                "no pod matches the selector {selector}, so no server can be judged by digest (a \
                 server started after the release reads as image unknown): check the namespace \
                 and helm-release inputs (the hub's namespace and its Helm release name, as in \
                 kubectl get pods -n {namespace} -l {selector}), and that the hub runs on this \
                 cluster"
            )),
        }
    }
}

/// [`RunWarning::FailureNotReported`]: what could not be written, then each write's error.
fn failure_not_reported(outputs: Option<&anyhow::Error>, summary: Option<&anyhow::Error>) -> Words {
    let what = match (outputs, summary) {
        (Some(_), Some(_)) => "its step outputs and its job summary",
        (Some(_), None) => "its step outputs",
        _ => "its job summary",
    };
    let words = Words::new(format!("the run failed, and writing {what} failed too"));
    // The runner's files: a run that writes them is inside Actions.
    let why = [outputs, summary].into_iter().flatten();
    why.fold(words, |words, e| {
        words.because(&super::error_words(e, true))
    })
}

/// [`RunWarning::PullPolicy`]: the policy, where it comes from, the image, and the fix.
fn pull_policy(risk: &PullRisk) -> Words {
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
    let so = match risk.policy {
        PullPolicy::Never => {
            "so a node never pulls it and starts new servers only from an image it already has"
        }
        _ => "so a node that pulled that tag before starts new servers from its cached copy",
    };
    let policy = risk.policy;
    Words::new(format!(
        "new servers may start on an older image than this release: imagePullPolicy is {policy}"
    ))
    .help(format!(
        "{policy} ({}) for {}, {so}; set singleuser.image.pullPolicy: Always in the values \
         files (or pin the image by digest): until then a server started after the release \
         may still run the old image",
        policy_source(&risk.source),
        log_line(&image, 300),
    ))
}

/// A pull policy as Kubernetes writes it (`IfNotPresent`): its serde name.
impl std::fmt::Display for PullPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        crate::support::text::serde_name(self, f)
    }
}

/// A security release's runbook whose `hub-url` is a placeholder: the dry run's warning, or
/// (`refused`) the refusal of a run that would publish it. `in_actions`: the inputs to set
/// are named as the workflow's (`hub-url`), else as the command line's (`--hub-url`).
fn placeholder(runbook: &RunbookSettings, in_actions: bool, refused: bool) -> Words {
    let (verb, dashes, place) = match in_actions {
        true => ("set", "", " under `with:`"),
        false => ("give", "--", ""),
    };
    let cluster = match runbook.cluster_at_defaults() {
        true => format!(
            ", and {dashes}namespace and {dashes}helm-release if the hub does not run in jhub \
             (their defaults)"
        ),
        false => String::new(),
    };
    let outcome = match refused {
        true => "Nothing was published; a dry run shows the bodies as they would be",
        false => "A run that publishes refuses it",
    };
    Words::new(format!(
        "hub-url is {}, a placeholder: this security release's runbook would reach no hub",
        log_line(&runbook.hub_url, 40)
    ))
    .help(format!(
        "{verb} {dashes}hub-url (the address users open){cluster}{place}. {outcome}."
    ))
}

/// A security release refused before anything is published: its runbook's `hub-url` is a
/// placeholder (a name reserved for examples,
/// [`crate::support::url::is_placeholder`]), so the tracking issue, never edited
/// again, would point responders at no hub. Bad input (exit 2), naming `hub-url`.
#[derive(Debug, Clone)]
pub(crate) struct PlaceholderRunbook {
    /// The runbook's settings.
    pub(crate) runbook: RunbookSettings,
    /// Whether the run is inside GitHub Actions (the inputs named as the workflow's).
    pub(crate) in_actions: bool,
}

impl PlaceholderRunbook {
    /// The input at fault.
    pub(crate) const INPUT: &'static str = "hub-url";
}

super::words::words_display!(PlaceholderRunbook => |p: &PlaceholderRunbook| placeholder(&p.runbook, p.in_actions, true));

impl std::error::Error for PlaceholderRunbook {}

/// The log line of a security release whose runbook names the default namespace and Helm
/// release (`jhub`, which many hubs use: not refused), saying so.
pub(crate) fn runbook_cluster(runbook: &RunbookSettings) -> String {
    format!(
        "the runbook names namespace {} and helm-release {} (their defaults): set namespace and \
         helm-release if the hub runs elsewhere",
        runbook.namespace, runbook.helm_release
    )
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

/// A tier warning: its first line and its help, each made one safe log line; `in_actions`: a
/// missing token's help names where to set it.
pub(crate) fn tier_warning(warning: &Warning, in_actions: bool) -> String {
    let text = super::reasons::warning_words(warning, in_actions).to_string();
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

/// What a body of `kind` is called, and GitHub's limit on it in characters.
fn body_name(kind: BodyKind) -> (&'static str, usize) {
    match kind {
        BodyKind::ReleaseNote => ("release note", RELEASE_BODY_LIMIT),
        BodyKind::TrackingIssue => ("tracking issue", ISSUE_BODY_LIMIT),
    }
}

/// The full text of a body GitHub's limit cut, for the log (where the cut note points),
/// after its warning ([`RunWarning::Cut`]).
pub(crate) fn full_text(kind: BodyKind, body: &str) -> String {
    let (what, _) = body_name(kind);
    format!("----- {what} (full text) -----\n{body}\n----- end of the {what} -----")
}

/// A dry run's tracking issue.
pub(crate) fn dry_run_issue(title: &str, body: &str) -> String {
    format!("----- tracking issue: {title} -----\n{body}")
}

/// What happened to the release note or the tracking issue (`kind`); the address as GitHub
/// answered it, on one line without control characters.
pub(crate) fn published(kind: BodyKind, change: Change, url: &str) -> String {
    format!("{} {change}: {}", body_name(kind).0, log_line(url, 2000))
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

/// The error when a runner file cannot be written: `$GITHUB_OUTPUT` (`outputs`) or
/// `$GITHUB_STEP_SUMMARY`; the outermost context of the error, which names the cause.
pub(crate) fn runner_file_failed(outputs: bool) -> &'static str {
    match outputs {
        true => "cannot write step outputs to $GITHUB_OUTPUT",
        false => "cannot write the job summary to $GITHUB_STEP_SUMMARY",
    }
}

/// The refusal of the step output `name`: not a plain identifier, or (`delimiter`) its value
/// holds the heredoc delimiter (so no extra output can be forged).
pub(crate) fn output_refused(name: &str, delimiter: bool) -> Words {
    match delimiter {
        true => Words::new(format!(
            "refusing to write output {name}: its value contains the heredoc delimiter"
        )),
        false => Words::new(format!(
            "refusing to write output {name:?}: names are letters, digits, '-' and '_'"
        )),
    }
}

/// What a runner file's path names instead of a regular file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NotAFile {
    /// A directory.
    Directory,
    /// A FIFO (named pipe).
    Fifo,
    /// A socket.
    Socket,
    /// A block device.
    BlockDevice,
    /// Anything else.
    Other,
}

/// The error when `path`, which `variable` names, cannot be opened or written (`doing`),
/// or (`kind`) is not a regular file: what to do.
pub(crate) fn runner_file_unusable(
    doing: &str,
    path: &std::path::Path,
    variable: &str,
    kind: Option<NotAFile>,
) -> Words {
    let path = path.display();
    let Some(kind) = kind else {
        return Words::new(format!("cannot {doing} {path} ({variable})")).help(format!(
            "point {variable} at a file this user can write, on a disk with space left, or \
             leave it unset"
        ));
    };
    let what = match kind {
        NotAFile::Directory => "a directory",
        NotAFile::Fifo => "a FIFO (named pipe), which would block the run until something reads it",
        NotAFile::Socket => "a socket",
        NotAFile::BlockDevice => "a block device",
        NotAFile::Other => "not a regular file",
    };
    Words::new(format!("{variable} names {path}, {what}")).help(format!(
        "set {variable} to a regular file, or leave it unset (the Actions runner sets it to a \
         file for every step)"
    ))
}

super::words::words_display!(StdoutFailed => |_: &StdoutFailed| Words::new(
    "cannot write the output to stdout (is the disk or the file it goes to full?)"
)
.help("free space, or send stdout elsewhere; the rest of the run went on as usual"));

/// The error when the async runtime cannot start.
pub(crate) fn no_runtime(err: &std::io::Error) -> String {
    format!("error: cannot start the async runtime: {err}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::support::text::Titled as _;
    use crate::window::{Origin, PodImage, PodTag, PolicySource, PullPolicy, PullRisk};

    /// Every warning, titled, in the one shape: a failed run's report naming the file that
    /// failed with each write's error; the pull policy with where it comes from, the image
    /// and the fix (`Never`: nodes never pull); no matching pods naming the namespace and
    /// the selector; the runbook placeholder naming the workflow's inputs inside Actions,
    /// the command line's options outside (issue 27), and its refusal.
    #[test]
    fn every_warning_in_words() {
        let outputs = anyhow::anyhow!("cannot write step outputs to $GITHUB_OUTPUT");
        let summary = anyhow::anyhow!("cannot write the job summary to $GITHUB_STEP_SUMMARY");
        let image = |tag, name_origin| {
            let name = "ghcr.io/org/lab".into();
            Some(PodImage {
                name,
                tag,
                name_origin,
            })
        };
        let values = |key| PolicySource::Values(Origin::file("values.yaml", key));
        let (policy, source) = (
            PullPolicy::IfNotPresent,
            values("singleuser.image.pullPolicy"),
        );
        let from_values = PullRisk {
            policy,
            source,
            image: image(PodTag::Given("latest".into()), None),
        };
        let origin = Origin::file("values.yaml", "singleuser.image.name");
        let by_default = PullRisk {
            source: PolicySource::KubernetesDefault,
            image: image(PodTag::ChartDefault, Some(origin)),
            ..from_values.clone()
        };
        let never = PullRisk {
            policy: PullPolicy::Never,
            image: None,
            ..from_values.clone()
        };
        let runbook = RunbookSettings::default();
        let set = RunbookSettings {
            namespace: "hub".into(),
            ..RunbookSettings::default()
        };
        let selector = "component=singleuser-server,release=jhub";
        let warnings = [
            RunWarning::Window(&WindowWarning::CullingDisabled),
            RunWarning::Window(&WindowWarning::TooLong {
                key: "cull.every",
                secs: 3650 * 86_400,
                origin: crate::window::Origin::option("cull-every"),
                window_secs: 3650 * 86_400 + 3600,
            }),
            RunWarning::OutputsNotWritten(&["converged", "stale", "running"]),
            RunWarning::FailureNotReported {
                outputs: Some(&outputs),
                summary: None,
            },
            RunWarning::FailureNotReported {
                outputs: None,
                summary: Some(&summary),
            },
            RunWarning::FailureNotReported {
                outputs: Some(&outputs),
                summary: Some(&summary),
            },
            RunWarning::UrlRefused("https://github.example/r\n::error::forged"),
            RunWarning::PlainHttp {
                input: "hub-url",
                url: "http://hub.uni.edu",
                token: "hub-token",
            },
            RunWarning::ContextIgnored(true),
            RunWarning::ContextIgnored(false),
            RunWarning::HistoryRefused("it appears more than once"),
            RunWarning::PullPolicy(&from_values),
            RunWarning::PullPolicy(&by_default),
            RunWarning::PullPolicy(&never),
            RunWarning::RunbookPlaceholder {
                runbook: &runbook,
                in_actions: true,
            },
            RunWarning::RunbookPlaceholder {
                runbook: &set,
                in_actions: false,
            },
            RunWarning::NoPods {
                namespace: "jhub",
                selector,
                servers: 1,
            },
            RunWarning::NoPods {
                namespace: "jhub",
                selector,
                servers: 3,
            },
            RunWarning::Cut(BodyKind::ReleaseNote),
            RunWarning::Cut(BodyKind::TrackingIssue),
        ];
        let mut said: Vec<String> = (warnings.iter())
            .map(|w| {
                crate::render::words::assert_shape(&w.words());
                format!("{}: {w}", w.title())
            })
            .collect();
        let refused = PlaceholderRunbook {
            runbook,
            in_actions: false,
        };
        said.push(format!(
            "refused ({}): {refused}",
            PlaceholderRunbook::INPUT
        ));
        said.push(runbook_cluster(&RunbookSettings::default()));
        insta::assert_snapshot!(said.join("\n---\n"));
    }
}
