//! codeq-rollout: announce a new JupyterLab image digest to its users.
//!
//! Layers, each importing only the ones before it (`tests/it/architecture.rs` checks it):
//! - `support`: the GitHub client, the Actions log, secrets (one secret type, one engine
//!   that masks and redacts), the one retry policy of every edge's reads, text helpers, the
//!   duration parser, the time parser (RFC 3339 in UTC, years 0000 to 9999), the bounded
//!   reader of files users name (`support::files`), TLS;
//! - the stages: `context` (+ `event`) → `digest` → `tier` (the pure decision, as
//!   data: the render layer words it) →
//!   `pulls` (the pull-request look-up) → `window` (+ `values`) → `render` →
//!   `publish` → `report` → `status`'s stages (`status::hub`, the hub's REST edge,
//!   read-only; `status::classify` and `status::report`); `tier`, `window`,
//!   `render`, `sanitize`, `status::classify` and `status::report` are pure;
//! - the pipelines, one function per command: `announce::run`, `docs::window`,
//!   `docs::docs`, `status::run::run`; they hold no wording (the words are
//!   `render`'s, `render::docs`' and `status::report`'s);
//! - `cli`: the options, turned into validated requests (`announce::AnnounceRequest`,
//!   `docs::WindowRequest`, `docs::DocsRequest`, `status::run::StatusRequest`); every
//!   usage error is raised there.
//!
//! The crate's face is this root alone: every module is private (its items `pub(crate)`,
//! so the compiler reports what nothing uses), and what is public is what the binary and
//! the integration tests name: [`Cli`], [`Log`], [`action_args`], [`mask_secret_inputs`], [`run`] and
//! [`usage_error`] for `main.rs`; for `tests/it`, the values the tests build and the stages
//! they drive against real and fake registries, a fake GitHub and a real hub, in groups
//! below (inputs, the registry edge, the words, the GitHub edge, `status`). Where two
//! modules' items share a name, the root renames them: [`parse_event`] and
//! [`parse_history`], [`job_summary`] (announce's) and [`status_job_summary`]. A test that
//! needs another item adds it to its group here.
mod announce;
mod cli;
mod context;
mod digest;
mod docs;
mod event;
mod publish;
mod pulls;
mod render;
mod report;
mod status;
mod support;
mod tier;
mod values;
mod window;
// Short paths the crate's own modules use (`crate::github`, `crate::sanitize`, `crate::tls`).
use support::{github, sanitize, tls};

// The binary (`main.rs`): parse the command line, log, run, report a refused command line.
// `run` and `usage_error` are below. The tests read the option table (`Cli::command`) and
// the one duration parser every duration option shares.
pub use cli::value::{DurationParser, InputDuration};
pub use cli::{Cli, action_args, mask_secret_inputs};
pub use support::log::Log;

// The run's inputs the tests build: the repository, the digest and image, the pull
// request's labels, the event file, the idle culler's settings.
pub use context::Repository;
pub use digest::{Digest, ImageSource};
pub use event::parse as parse_event;
pub use tier::{
    Evidence, Found, LabelRules, LookupOrigin, PullRequest, TierRequest, UnlabeledPolicy, decide,
};
pub use window::{CullSettings, HubScale, WorstCase, at_scale, compute};

// The registry edge, run against a fake and a real registry (`tests/it/registry.rs`).
pub use digest::registry::{
    ACCEPT_MANIFESTS, AccessProblem, AnswerProblem, ConnectionProblem, CredentialSource,
    Credentials, DigestSource, RegistryError, RegistryErrorKind, RegistryOptions, Resolved,
    TlsProblem, resolve,
};
pub use support::retry::{RetryPolicy, Timer};

// The words: release note, tracking issue, job summary and their parts, the markers that
// find them again, the docs' placeholder digest; the sanitizers every user-written text
// goes through (the hostile-input tests); the one TLS provider.
pub use docs::DOC_DIGEST;
pub use render::custom::{BodyKind, CustomTemplate};
pub use render::{
    Facts, ISSUE_BODY_LIMIT, MarkerKind, RELEASE_BODY_LIMIT, RunbookSettings, image_repository,
    job_summary, marker, release_note, runbook_section, seal_release, tracking_issue,
    window_section,
};
pub use sanitize::{
    DEFAULT_MAX_CHARS, cap, clean_line, defuse_commands, log_line, markdown_inline,
};
pub use tls::install_provider;

// The GitHub edge, run against the fake GitHub: the client, the objects it sends and reads,
// the look-up and the writes of `announce`, the deployment markers and outputs.
pub use github::GitHub;
pub use github::models::{Deployment, DeploymentState, DeploymentStatus, NewIssue, NewRelease};
pub use publish::deployment::{MARKER_KEY, MARKER_VALUE, is_ours};
pub use publish::{IssuePlan, Plan, Target, look_up, publish, release_tag};

// `status`: the hub's token scopes and role, the classification of servers, the history
// line, the report's outputs, job summary and chart.
use render::failure::{failure_title, invalid_input_title};
pub use render::status::{StatusFacts, chart, job_summary as status_job_summary};
use report::Pipeline;
pub use status::Server;
pub use status::classify::{
    AtScaleModel, Classification, CullerModel, ServerTimes, SettingsModel, classify,
};
pub use status::history::{History, Point, parse as parse_history, with_this_run};
pub use status::hub::{ROLE_NAME, SCOPES};

use std::ffi::OsString;
use std::process::ExitCode;

/// Exit code of bad usage: an unknown option or value (clap's), a required input left
/// empty or a value an input does not take ([`cli::UsageError`]), a team's template that
/// does not render ([`render::TemplateError`]).
const EXIT_USAGE: u8 = 2;

/// Runs one command and maps its outcome to the process exit code: 0 done (also when
/// nothing changed), 1 failed, 2 bad usage. `args`: the process's, the command first.
///
/// Errors are printed once through `log`, as a `::error title=…::` workflow command when
/// running inside GitHub Actions and as plain text otherwise, with every registered secret
/// masked.
pub fn run(cli: cli::Cli, args: &[OsString], log: &Log) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(err) => {
            use std::io::Write as _;
            let _ = writeln!(
                std::io::stderr().lock(),
                "{}",
                render::messages::no_runtime(&err)
            );
            return ExitCode::FAILURE;
        }
    };
    let outcome = runtime.block_on(dispatch(&cli, args, log));
    // A stdout that failed other than by a closed pipe fails the run, once its other work
    // (outputs, summary, comment) is done; the run's own error, if any, comes first.
    let outcome = match (outcome, support::stdout::failure()) {
        (Ok(()), Some(stdout)) => Err(stdout),
        (outcome, _) => outcome,
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            let words = render::error_words(&err, log.in_actions());
            let input = report::bad_input(&err);
            let title = match err.downcast_ref::<status::run::AlarmsFired>() {
                _ if input.is_some() => invalid_input_title(input),
                Some(alarm) => alarm.title.clone(),
                None => failure_title(&err).into(),
            };
            log.error(&title, &words.to_string());
            // Bad input (a usage error) exits 2, any other failure 1.
            input.map_or(ExitCode::FAILURE, |_| ExitCode::from(EXIT_USAGE))
        }
    }
}

/// Reports a command line clap refused and returns its exit code (2; 0 for `--help` and
/// `--version`). Clap's message goes to stderr as usual, with every secret `log` knows
/// masked (clap quotes the value it refused, which may be a token given to the wrong
/// input); inside GitHub Actions it is instead an `::error` annotation naming the input, so
/// it shows on the run's summary page, printed once as every other error is.
///
/// Inside Actions, a refused `announce` or `status` also writes a job summary saying so, with
/// the same words as the annotation, and every output of the command empty
/// (`report_refused`); `args` (the process's, the command first) names the command.
/// The input is named only when it holds no secret `log` knows (`refused_input`); an
/// unknown command is the Action's `command` input (`unknown_command`), with a job
/// summary and no outputs (no command's are known).
pub fn usage_error(err: clap::Error, args: &[OsString], log: &Log) -> ExitCode {
    if !err.use_stderr() {
        let _ = err.print();
        return ExitCode::SUCCESS;
    }
    let rendered = err.render().to_string();
    let message = log.redact(&rendered);
    if log.in_actions() {
        // The first paragraph: the problem and the valid values, not the usage text; the
        // annotation is an error already, so without clap's `error: `.
        let first = message.split("\n\n").next().unwrap_or_default().trim();
        let first = first.strip_prefix("error: ").unwrap_or(first);
        use clap::error::{ContextKind, ContextValue};
        let unknown = err.kind() == clap::error::ErrorKind::InvalidSubcommand;
        let (input, first) = match (unknown, err.get(ContextKind::Custom)) {
            // The Action's `command` input (its `runs.args`) is the subcommand.
            (true, _) => (Some(COMMAND_INPUT.to_string()), unknown_command(&err, log)),
            // A value parser's refusal, worded as inside Actions (`cli::value`).
            (_, Some(ContextValue::String(placed))) => {
                (refused_input(&err, log), log.redact(placed))
            }
            _ => (refused_input(&err, log), first.to_string()),
        };
        log.error(&invalid_input_title(input.as_deref()), &first);
        report_refused(args, unknown, input.as_deref(), &first, log);
    } else {
        use std::io::Write as _;
        let _ = write!(std::io::stderr().lock(), "{message}");
    }
    ExitCode::from(u8::try_from(err.exit_code()).unwrap_or(EXIT_USAGE))
}

/// The input clap refused, as typed without its leading `-`s and any `=VALUE` or
/// ` VALUE`: `None` when there is none, or when the argument holds a secret `log` knows
/// (a token pasted as an option's name or as an extra value must not become the
/// annotation's title or the job summary's `Input` row, where it would show whole).
fn refused_input(err: &clap::Error, log: &Log) -> Option<String> {
    let Some(clap::error::ContextValue::String(arg)) =
        err.get(clap::error::ContextKind::InvalidArg)
    else {
        return None;
    };
    if log.redact(arg) != *arg {
        return None;
    }
    arg.trim_start_matches('-')
        .split([' ', '='])
        .next()
        .filter(|input| !input.is_empty() && log.redact(input) == *input)
        .map(str::to_string)
}

/// The Action's input that becomes the subcommand (action.yml's `runs.args`): clap's refusal
/// of an unknown subcommand is titled `Invalid input: command`.
const COMMAND_INPUT: &str = "command";

/// The words of clap's refusal of an unknown subcommand (`err`, of kind
/// [`clap::error::ErrorKind::InvalidSubcommand`]) for the annotation: the value as given
/// (secrets `log` knows hidden, at most 100 characters), clap's suggestion when it has one,
/// and the commands there are: the Action's ([`cli::ACTION_COMMANDS`]) and the command line's
/// others (from clap's model, so a new command is listed).
fn unknown_command(err: &clap::Error, log: &Log) -> String {
    use clap::CommandFactory;
    use clap::error::{ContextKind, ContextValue};
    use cli::ACTION_COMMANDS;
    let given: String = match err.get(ContextKind::InvalidSubcommand) {
        Some(ContextValue::String(given)) => log.redact(given).chars().take(100).collect(),
        _ => String::new(),
    };
    let mut suggested = match err.get(ContextKind::SuggestedSubcommand) {
        Some(ContextValue::Strings(names)) => names.clone(),
        Some(ContextValue::String(name)) => vec![name.clone()],
        _ => Vec::new(),
    };
    // In any case too: clap's likeness misses `ANNOUNCE`.
    let folded = ACTION_COMMANDS
        .iter()
        .find(|c| c.eq_ignore_ascii_case(given.trim()));
    let folded = folded.map(ToString::to_string);
    let folded = folded.filter(|c| !suggested.contains(c));
    suggested.extend(folded);
    let others: Vec<String> = Cli::command()
        .get_subcommands()
        .map(|sub| sub.get_name().to_string())
        .filter(|name| name != "help" && !ACTION_COMMANDS.contains(&name.as_str()))
        .collect();
    let words = render::usage_words::unknown_command(
        COMMAND_INPUT,
        &given,
        &suggested,
        &ACTION_COMMANDS,
        &others,
    );
    words.to_string()
}

/// Runs the parsed command: its request first (every input checked, [`cli::Cli::request`]),
/// then its pipeline; `log` is [`cli::Cli::log`]'s. A request of `announce` or `status` that
/// cannot be built is reported inside Actions before the error is returned
/// ([`report_refused`] with `args`: a job summary, every output empty); a usage error's help
/// names what to set where the run is ([`cli::UsageError::in_actions`]).
///
/// # Errors
/// Bad input as [`cli::UsageError`]; the pipeline's errors.
async fn dispatch(cli: &cli::Cli, args: &[OsString], log: &Log) -> anyhow::Result<()> {
    let request = cli.request(log).map_err(|mut err| {
        // Its help names what to set where the run is (`with:`, or the option).
        if let Some(usage) = err.downcast_mut::<cli::UsageError>() {
            usage.in_actions = log.in_actions();
            let given = cli
                .variables
                .iter()
                .find(|(input, _)| *input == usage.input);
            usage.variable = given.map(|(_, variable)| variable.clone());
        }
        let (input, message) = (report::bad_input(&err), format!("{err:#}"));
        report_refused(args, false, input, &message, log);
        err
    })?;
    match request {
        cli::Request::Announce(request) => announce::run(&request, log).await,
        cli::Request::Window(request) => docs::window(&request, log),
        cli::Request::Docs(request) => docs::docs(&request, log),
        cli::Request::Status(request) => status::run::run(&request, log).await,
    }
}

/// The report of a run refused before it started, inside GitHub Actions: a usage error (an
/// input missing or malformed, clap's or [`cli::UsageError`]) or a run context that cannot
/// be read. The `::error` annotation alone is easy to miss on the run's page; the job summary
/// is where people look, and later steps should see every output empty rather than a
/// leftover. The commands that report to Actions ([`report::Pipeline`], named by `args`, the
/// process's, the command first) write these, and an `unknown` command its job summary
/// alone, through the failure report every run has ([`report::RunReport::fail`]): the stage
/// "checking the inputs", the `input` at fault when known, `message` as the annotation says
/// it, and every output empty, the deployment's too when the run names an environment
/// ([`cli::names_environment`]).
fn report_refused(args: &[OsString], unknown: bool, input: Option<&str>, message: &str, log: &Log) {
    let pipeline = args.get(1).and_then(|a| Pipeline::named(a.to_str()?));
    if log.in_actions() && (unknown || pipeline.is_some()) {
        let environment = cli::names_environment(args);
        let mut refused = report::RunReport::refused(pipeline, environment);
        refused.fail(input.map(str::to_string), message, None, log);
    }
}
