//! The job summary of a failed `announce` or `status` run: which stage failed, what to do,
//! and what the run had established by then (issue 16: a failed run used to leave the
//! summary empty; issue 14: so did a failed `status`).

use super::help::{github_words, registry_words};
use super::reasons::undecided_words;
use super::values_words::words as values_words;
use super::words::Words;
use super::{Change, custom, table_cell};
use crate::digest::Digest;
use crate::status::classify::Totals;
use crate::support::github::error::{GitHubError, Kind};
use crate::support::github::models::Deployment;
use crate::support::sanitize;
use crate::tier::TierDecision;
use crate::window::Window;

/// The stages of `announce`, in order ([`crate::announce::run`]), then those of `status`
/// ([`crate::status::run`]), then the command line's, before either starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub(crate) enum Stage {
    /// Resolving the digest (registry or OCI layout).
    #[default]
    Digest,
    /// Deciding the tier from the pull requests behind the release.
    Tier,
    /// A security release's break-glass runbook: its `hub-url` checked, the image index's
    /// platform manifests it names read.
    Runbook,
    /// Looking up the release note and tracking issues that exist.
    LookUp,
    /// Rendering the bodies.
    Render,
    /// Writing the release note and the tracking issue.
    Publish,
    /// Writing the step outputs and the job summary.
    Report,
    /// `status`: resolving the image and finding its release note.
    StatusRelease,
    /// `status`: GitHub refused or failed to list the releases (or, with `comment`, the
    /// tracking issues): the token or its permissions, not the image.
    StatusLookUp,
    /// `status`: reading the hub's running servers, and what kind of failure it met.
    StatusHub(HubFault),
    /// `status` by digest: listing the single-user pods from Kubernetes (or reading the
    /// image index's child manifests).
    StatusKubernetes,
    /// `status`: writing the step outputs and the job summary.
    StatusReport,
    /// `status`: writing the convergence comment on the tracking issue.
    StatusComment,
    /// `status`: keeping the deployment's status (`environment`).
    StatusDeployment,
    /// Either command, before it starts: checking the inputs (and reading the run's
    /// context) into a request (`crate::cli`); the run was refused.
    Inputs,
}

/// What kind of failure `status` met reading the hub ([`Stage::StatusHub`]): it decides what
/// the job summary tells to do, since a hub that is down is not fixed by changing `hub-url`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub(crate) enum HubFault {
    /// The hub was not reached, or refused the request or its token: the address, the
    /// token's role, or what is between the runner and the hub.
    #[default]
    Access,
    /// The hub, or a proxy or ingress in front of it, failed (HTTP 5xx) or did not answer
    /// within `hub-timeout`.
    Down,
    /// The hub, or a proxy in front of it, limits how often it is asked (HTTP 429).
    RateLimited,
    /// The answer could not be measured as it is (too old a hub, a malformed list, deadlines
    /// past the calendar): what the error names.
    Answer,
}

/// What a run has established: each stage of `announce` and `status` records its part as
/// it goes (the run's report holds it), and a failed run's job summary shows it.
#[derive(Debug, Clone, Default)]
pub struct Known {
    /// The image reference, as given (`""`: none, no row).
    pub(crate) image: String,
    /// `status`: the hub read (`hub-url`).
    pub(crate) hub: Option<String>,
    /// The digest, once resolved.
    pub(crate) digest: Option<Digest>,
    /// The tier decision, once made.
    pub(crate) tier: Option<TierDecision>,
    /// The convergence window, once computed.
    pub(crate) window: Option<Window>,
    /// The release tag, once derived.
    pub(crate) tag: Option<String>,
    /// The release note's address (as GitHub answered it, checked by the report before it
    /// is shown) and what this run did to it, when it exists.
    pub(crate) release: Option<(String, Change)>,
    /// The tracking issue's address and change, likewise.
    pub(crate) issue: Option<(String, Change)>,
    /// Whether this run wrote anything to GitHub.
    pub(crate) wrote: bool,
    /// `status`: the hub's counts, once measured.
    pub(crate) totals: Option<Totals>,
    /// The deployment (`environment`), once kept.
    pub(crate) deployment: Option<Deployment>,
}

/// A failed run: the stage that failed, the error, and what it had established.
#[derive(Debug, Clone, Default)]
pub(crate) struct Failure {
    /// The stage that failed: for a bad input, the one it was found at ([`Stage::Inputs`]
    /// before the run started).
    pub(crate) stage: Stage,
    /// The error, as the `::error` annotation says it (secrets already hidden).
    pub(crate) error: String,
    /// The input at fault, for a run refused on it (before it started, or when a stage
    /// found it: what to do is then the input's), as action.yml names it (`tier`).
    pub(crate) input: Option<String>,
    /// What the run had established.
    pub(crate) known: Known,
}

/// The job summary of a failed run: the stage that failed and what to do (the words of each
/// stage are `templates/failure_summary.md.j2`'s), the error, then a table of what the run
/// had established (rows for what it had not are left out).
pub(crate) fn failure_summary(f: &Failure) -> String {
    let k = &f.known;
    // The error as the annotation says it: what failed, its causes, then its help, a line each.
    let error = Words::parse(&f.error);
    let (what, help) = (&error.what, error.help.as_deref().unwrap_or(""));
    let quote = |line: &str| code_span(&sanitize::clean_line(line, 2000));
    let causes: Vec<String> = error.causes.iter().map(|c| quote(c)).collect();
    // A help with indented lines (a YAML template to paste) keeps its indentation in a fenced
    // block; other help lines are code spans, one a line.
    let indented = help.lines().any(|l| l.starts_with(' '));
    let lines = help.lines().filter(|l| !l.trim().is_empty());
    let (help, block): (Vec<String>, Vec<String>) = match indented {
        false => (lines.map(quote).collect(), Vec::new()),
        true => {
            // Its runs of spaces kept (the indentation, aligned columns); the text between
            // them cleaned as one line each.
            let keep = |l: &str| {
                let parts: Vec<String> = l
                    .split(' ')
                    .map(|p| sanitize::clean_line(p, 2000))
                    .collect();
                sanitize::cap(&parts.join(" "), 2000)
            };
            (Vec::new(), lines.map(keep).collect())
        }
    };
    // The fence: longer than any run of backticks inside, at least three.
    let longest = block
        .iter()
        .flat_map(|l| l.split(|c| c != '`'))
        .map(str::len)
        .max();
    let fence = "`".repeat(longest.unwrap_or(0).max(2) + 1);
    let code = |text: &str| format!("`{}`", table_cell(text));
    let change = |url: &str, change: &Change| format!("{} ({change})", table_cell(url));
    let rows: Vec<(String, String)> = [
        // Clap names an unknown option as it was typed: any text.
        (f.input.as_ref()).map(|i| {
            (
                "Input".into(),
                code_span(&table_cell(&sanitize::clean_line(i, 100))),
            )
        }),
        k.hub.as_ref().map(|hub| ("Hub".into(), code(hub))),
        (!k.image.is_empty()).then(|| ("Image".into(), code(&k.image))),
        k.digest
            .as_ref()
            .map(|d| ("Digest".into(), format!("`{d}`"))),
        k.tier.as_ref().map(|t| {
            let reason = sanitize::markdown_inline(&t.reason.to_string(), 300);
            ("Tier".into(), format!("**{}** ({reason})", t.tier()))
        }),
        (k.window.as_ref()).map(|w| ("Convergence window".into(), table_cell(&w.summary()))),
        (k.release.as_ref().zip(k.tag.as_ref()))
            .map(|((url, c), tag)| (format!("Release `{tag}`"), change(url, c))),
        k.issue
            .as_ref()
            .map(|(url, c)| ("Tracking issue".into(), change(url, c))),
    ]
    .into_iter()
    .flatten()
    .collect();
    let refused = f.input.is_some();
    let ctx = minijinja::context! { stage => f.stage, refused, what => quote(what), causes, help, block, fence, rows };
    super::templates::render("failure_summary.md.j2", ctx)
        .expect("the failure summary renders for every stage (tested)")
}

/// An error and its causes in the one shape ([`Words`]): the first line of each, outermost
/// first, joined by `: ` as anyhow's `{:#}` joins them, then the causes each gives, then the
/// help each gives, on lines of their own (a cause worded as [`Words`], read back by
/// [`Words::parse`]). `in_actions`: a GitHub error's and an undecided tier's help names the
/// token to set where the run is (`with:`, or the option), a team template's the dry run that
/// prints the names it can use, a values file's and a registry's the inputs as
/// [`super::words::input_name`] does.
pub(crate) fn error_words(err: &anyhow::Error, in_actions: bool) -> Words {
    let (mut what, mut causes, mut help) = (Vec::new(), Vec::new(), Vec::new());
    for cause in err.chain() {
        let said = (cause.downcast_ref::<GitHubError>())
            .map(|e| github_words(e, in_actions))
            .or_else(|| cause.downcast_ref().map(|e| custom::words(e, in_actions)))
            .or_else(|| cause.downcast_ref().map(|e| undecided_words(e, in_actions)))
            .or_else(|| cause.downcast_ref().map(|e| values_words(e, in_actions)))
            .or_else(|| cause.downcast_ref().map(|e| registry_words(e, in_actions)));
        let cause = said.map_or_else(|| cause.to_string(), |words| words.to_string());
        let words = Words::parse(&cause);
        what.push(words.what);
        causes.extend(words.causes);
        help.extend(words.help);
    }
    Words {
        what: what.join(": "),
        causes,
        help: (!help.is_empty()).then(|| help.join("\n")),
    }
}

/// The `::error` annotation's title of bad input: `Invalid input: INPUT`, or `Invalid input`
/// when the input is not named (clap's refusal of an argument holding a secret).
pub(crate) fn invalid_input_title(input: Option<&str>) -> String {
    input.map_or("Invalid input".into(), |i| format!("Invalid input: {i}"))
}

/// The `::error` annotation's title of a failure that is neither bad input nor an alarm: what
/// kind of thing went wrong, by GitHub's answer anywhere in `err`'s chain, so the run's
/// summary page says it at a glance (the message says what to do).
pub(crate) fn failure_title(err: &anyhow::Error) -> &'static str {
    let answer = err.chain().find_map(|e| e.downcast_ref::<GitHubError>());
    match answer.map(|e| e.kind) {
        Some(Kind::Unauthorized) => "GitHub rejected the token",
        Some(Kind::Forbidden) => "GitHub permission missing",
        Some(Kind::NotFound) => "GitHub answered not found",
        Some(Kind::Unprocessable | Kind::AlreadyExists | Kind::Conflict) => {
            "GitHub refused the content"
        }
        Some(Kind::RateLimited) => "GitHub rate limit",
        Some(Kind::Unavailable) => "GitHub unavailable",
        Some(Kind::Other) => "GitHub request failed",
        None => "codeq-rollout failed",
    }
}

/// `text` (one line) as a Markdown code span: GitHub finds no Markdown, HTML, mention,
/// reference or autolink inside one (CommonMark 0.31 §6.1, GFM autolinks and references
/// skip code), so the text needs no escapes or invisible characters and an address in it
/// can be copied as it is. The fence is one backtick longer than the longest run of
/// backticks inside; a space pads text that starts or ends with one (stripped on display).
fn code_span(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{text}{pad}{fence}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_error_is_one_code_span_whose_addresses_copy_as_they_are() {
        assert_eq!(
            code_span("see https://github.example/o/r/issues/1 @team #2"),
            "`see https://github.example/o/r/issues/1 @team #2`"
        );
        assert_eq!(code_span("a `b` c"), "``a `b` c``");
        assert_eq!(code_span("``x"), "``` ``x ```");
    }

    #[test]
    fn a_table_cell_stays_one_cell_on_one_row() {
        assert_eq!(
            table_cell("https://x/a|b\n::error ::owned\r"),
            "https://x/a\\|b ::error ::owned "
        );
    }

    /// Every stage renders its words (the summary's template holds them).
    #[test]
    fn every_stage_says_what_it_was_doing_and_what_to_do() {
        let stages = [
            Stage::Digest,
            Stage::Tier,
            Stage::Runbook,
            Stage::LookUp,
            Stage::Render,
            Stage::Publish,
            Stage::Report,
            Stage::StatusRelease,
            Stage::StatusLookUp,
            Stage::StatusHub(HubFault::Access),
            Stage::StatusKubernetes,
            Stage::StatusReport,
            Stage::StatusComment,
            Stage::StatusDeployment,
            Stage::Inputs,
        ];
        let lines: Vec<String> = stages
            .into_iter()
            .map(|stage| {
                let summary = failure_summary(&Failure {
                    stage,
                    ..Failure::default()
                });
                summary.lines().nth(2).unwrap_or_default().to_string()
            })
            .collect();
        insta::assert_snapshot!(lines.join("\n"));
    }

    #[test]
    fn a_failed_read_of_the_hub_says_what_to_do_for_its_kind_of_failure() {
        let words: Vec<String> = [
            HubFault::Access,
            HubFault::Down,
            HubFault::RateLimited,
            HubFault::Answer,
        ]
        .into_iter()
        .map(|fault| {
            let summary = failure_summary(&Failure {
                stage: Stage::StatusHub(fault),
                ..Failure::default()
            });
            let line = summary.lines().nth(2).unwrap_or_default();
            format!(
                "{fault:?}: {}",
                line.trim_start_matches("The run failed while ")
            )
        })
        .collect();
        insta::assert_snapshot!(words.join("\n"), @r#"
Access: reading the hub's running servers. Nothing was measured or written; the outputs are empty. Fix what the error names (`hub-url`, or the role of `hub-token`), then re-run the job.
Down: reading the hub's running servers. Nothing was measured or written; the outputs are empty. The hub, or a proxy or ingress in front of it, failed or did not answer in time: `hub-url` and `hub-token` are not the cause. Check that the hub is up and look at its log and the proxy's, then re-run the job later.
RateLimited: reading the hub's running servers. Nothing was measured or written; the outputs are empty. The hub, or a proxy in front of it, limits how often it is asked: run `status` less often (a less frequent schedule), or re-run the job later.
Answer: reading the hub's running servers. Nothing was measured or written; the outputs are empty. Fix what the error names, then re-run the job.
"#);
    }

    #[test]
    fn a_run_refused_on_its_inputs_names_the_input() {
        let summary = failure_summary(&Failure {
            stage: Stage::Inputs,
            error: "invalid value 'urgent' for '--tier <TIER>'".into(),
            input: Some("tier|`x`\n".into()),
            ..Failure::default()
        });
        insta::assert_snapshot!(summary, @r"
        ### codeq-rollout failed

        The run failed while checking the inputs. Nothing was done, and every output is empty. Fix what the error names, then re-run the job.

        > `invalid value 'urgent' for '--tier <TIER>'`

        | | |
        |---|---|
        | Input | `` tier\|`x` `` |
        ");
    }

    #[test]
    fn a_failure_before_the_digest_shows_the_image_only() {
        let summary = failure_summary(&Failure {
            error: "tag not found".into(),
            known: Known {
                image: "ghcr.io/o/lab:latest".into(),
                ..Known::default()
            },
            ..Failure::default()
        });
        insta::assert_snapshot!(summary, @r"
        ### codeq-rollout failed

        The run failed while resolving the image digest. Nothing was announced. Check `image`, the registry credentials and `expected-digest` against the error, then re-run the job.

        > `tag not found`

        | | |
        |---|---|
        | Image | `ghcr.io/o/lab:latest` |
        ");
    }

    /// A help holding a template to paste (a kubeconfig, a Role) keeps its indentation and
    /// its runs of spaces: a fenced block in the quote, never a code span a line (QA: the YAML
    /// copied from the summary was wrong).
    #[test]
    fn an_indented_help_is_a_fenced_block_that_keeps_its_indentation() {
        let summary = failure_summary(&Failure {
            error: "the kubeconfig is not usable\nhelp: use this instead:\nusers:\n  - name: hub\n    user: {token: ```}   # the  token\u{200b}".into(),
            stage: Stage::Inputs,
            ..Failure::default()
        });
        insta::assert_snapshot!(summary);
    }
}
