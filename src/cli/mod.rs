//! The command line. Every option declared with `env` is also read from the GitHub Action
//! input variable `INPUT_<NAME>` (name upper-cased, hyphens kept), which is how the runner
//! passes inputs to a Docker container action (`with_input_variables` names them all);
//! empty variables count as unset.

mod announce;
mod culler;
pub(crate) mod inputs;
pub(crate) mod kube;
mod status;
mod usage;
pub(crate) mod value;

use crate::support::github::Environment;
use crate::support::url::HttpUrl;
pub(crate) use announce::announce_request;
pub(crate) use status::status_request;
use usage::required;
pub(crate) use usage::{UsageError, usage};
pub(crate) use value::{DurationParser, InputDuration, List, checked};
use value::{bool_parser, enum_parser, list_of, list_parser, parser};

use crate::digest::registry::{Credentials, MissingInput, RegistryOptions, RetryPolicy};
use crate::support::log::Log;
use anyhow::Result;
use clap::builder::TypedValueParser as _;
use clap::{Args, Parser, Subcommand};
use secrecy::{ExposeSecret, SecretString};
use usage::{CONVENTIONAL, Problem, Rule};

/// Announce a new JupyterLab image: release note, convergence window, break-glass issue.
#[derive(Debug, Parser)]
#[command(
    name = "codeq-rollout",
    version,
    about,
    long_about = None,
    mut_subcommands(with_input_variables)
)]
pub struct Cli {
    /// The command to run.
    #[command(subcommand)]
    pub(crate) command: Command,
    /// On the command line, the inputs a variable gave rather than their option, or left
    /// unset by a blank one, as `(input, variable)`, e.g. `("github-token", "GH_TOKEN")`: a
    /// refusal names what was set.
    #[arg(skip)]
    pub(crate) variables: Vec<(String, String)>,
}

impl Cli {
    /// Parses the command line `args` (the process's, the program first) and the Action
    /// inputs (`INPUT_<NAME>` variables, then the conventional ones: `variables`); `log`
    /// says whether the run is inside GitHub Actions (`action_command`).
    ///
    /// A variable that is set but blank counts as unset, so the next one or the option's
    /// default applies: the runner passes every declared input that has no default, and every
    /// `with:` entry that evaluates to `''` (say `tier: ${{ inputs.tier }}` on a push), as an
    /// empty variable.
    ///
    /// # Errors
    /// clap's usage errors (exit code 2).
    pub fn try_parse_inputs(args: &[std::ffi::OsString], log: &Log) -> Result<Self, clap::Error> {
        use clap::{CommandFactory, FromArgMatches};
        let var = |name: &str| std::env::var_os(name).map(|v| v.to_string_lossy().into_owned());
        let cmd = with_variables_set(Self::command(), &var);
        let matches = cmd.clone().try_get_matches_from(args);
        let unknown = |e: &clap::Error| e.kind() == clap::error::ErrorKind::InvalidSubcommand;
        // clap's own refusal of an unknown command comes first: it suggests one.
        match action_command(args, var("INPUT_COMMAND").filter(|_| log.in_actions())) {
            Err(refused) if !matches.as_ref().is_err_and(unknown) => Err(refused),
            _ => {
                let matches = matches?;
                let mut cli = Self::from_arg_matches(&matches)?;
                if !log.in_actions() {
                    cli.variables = from_variables(&cmd, &matches);
                }
                Ok(cli)
            }
        }
    }

    /// `log` as this command uses it: with stdout kept for its JSON (`window --json`,
    /// `status --json`, `announce --dry-run --print-context`), log lines and workflow
    /// commands go to stderr (`Log::keeping_stdout`).
    pub fn log(&self, log: Log) -> Log {
        let keep = match &self.command {
            Command::Announce(args) => args.print_context && args.dry_run,
            Command::Window(args) => args.json,
            Command::Status(args) => args.json,
            Command::Docs(_) => false,
        };
        if keep { log.keeping_stdout() } else { log }
    }

    /// The parsed command's request (`log` is [`Cli::log`]'s; `env` the process's).
    ///
    /// # Errors
    /// Bad input as [`UsageError`]; an unreadable values file or event payload.
    pub(crate) fn request(&self, log: &Log) -> Result<Request> {
        let env = || std::env::vars().collect();
        Ok(match &self.command {
            Command::Announce(args) => {
                Request::Announce(Box::new(announce_request(args, log, &env())?))
            }
            Command::Window(args) => Request::Window(crate::docs::WindowRequest {
                culler: args.culler.settings(log, None)?,
                json: args.json,
            }),
            // Check or write: clap's required `mode` group refuses neither.
            Command::Docs(args) => Request::Docs(crate::docs::DocsRequest {
                culler: args.culler.settings(log, None)?,
                runbook: args.runbook.settings(),
                doc: docs_file(&args.file)?,
                file: args.file.clone(),
                write: args.write,
            }),
            Command::Status(args) => Request::Status(Box::new(status_request(args, log, &env())?)),
        })
    }
}

/// The options of the command `matches` ran that a variable gave (clap's
/// [`clap::parser::ValueSource::EnvVariable`]: the variable [`with_variables_set`] chose for
/// it in `cmd`), or that got no value while one of their [`variables`] is set but blank (the
/// first such), each as `(input, variable)`.
fn from_variables(cmd: &clap::Command, matches: &clap::ArgMatches) -> Vec<(String, String)> {
    let Some((name, matches)) = matches.subcommand() else {
        return Vec::new();
    };
    let args = cmd
        .find_subcommand(name)
        .into_iter()
        .flat_map(clap::Command::get_arguments);
    let set = |v: &String| std::env::var_os(v).is_some();
    let named = |a: &clap::Arg| {
        let long = a.get_long()?;
        let variable = match matches.value_source(a.get_id().as_str()) {
            Some(clap::parser::ValueSource::EnvVariable) => a.get_env()?.to_str()?.into(),
            None => variables(long).into_iter().find(set)?,
            Some(_) => return None,
        };
        Some((long.into(), variable))
    };
    args.filter_map(named).collect()
}

/// The commands the Action runs, as action.yml documents its `command` input.
pub(crate) const ACTION_COMMANDS: [&str; 2] = ["announce", "status"];

/// Inside the Action (the one argument after the program in `args` its `command` input,
/// `input`: `INPUT_COMMAND` as action.yml's `runs.args` passes it, `None` outside GitHub
/// Actions), a command other than [`ACTION_COMMANDS`] (`docs`, `help`, `--version`, an
/// option) is refused as clap refuses an unknown command, rather than run or answered with
/// help (exit 0, no job summary).
///
/// # Errors
/// clap's [`clap::error::ErrorKind::InvalidSubcommand`], quoting the input.
fn action_command(args: &[std::ffi::OsString], input: Option<String>) -> Result<(), clap::Error> {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let given = match (args.get(1..), input) {
        (Some([arg]), Some(input)) if *arg == *input.trim() => input.trim().to_string(),
        _ => return Ok(()),
    };
    if ACTION_COMMANDS.contains(&given.as_str()) {
        return Ok(());
    }
    // Inside Actions only its annotation is printed, in its own words (crate::usage_error).
    let mut err = clap::Error::new(ErrorKind::InvalidSubcommand);
    err.insert(ContextKind::InvalidSubcommand, ContextValue::String(given));
    Err(err)
}

/// The process's `args` (the program first) with the Action's `command` input trimmed of
/// surrounding white space, as other inputs' values are: inside GitHub Actions (`log`), the
/// one argument after the program when it is `INPUT_COMMAND` (action.yml's `runs.args`), so
/// `" status "` runs `status`.
pub fn action_args(mut args: Vec<std::ffi::OsString>, log: &Log) -> Vec<std::ffi::OsString> {
    let input = std::env::var_os("INPUT_COMMAND").filter(|_| log.in_actions());
    match (args.as_mut_slice(), input) {
        ([_, arg], Some(input)) if *arg == input => *arg = input.to_string_lossy().trim().into(),
        _ => {}
    }
    args
}

/// The variables option `--long` reads, the first set and not blank winning: its Action input
/// `INPUT_<LONG>` (upper-cased, hyphens kept, as the runner names a Docker container action's
/// inputs), then its [`CONVENTIONAL`] ones.
fn variables(long: &str) -> Vec<String> {
    let conventional = CONVENTIONAL.iter().filter(|(option, _)| *option == long);
    let conventional = conventional.flat_map(|(_, names)| names.iter().map(ToString::to_string));
    std::iter::once(format!("INPUT_{}", long.to_ascii_uppercase()))
        .chain(conventional)
        .collect()
}

/// `docs --file`, read as a values file is ([`crate::support::files::read_text`]: a regular
/// UTF-8 file of at most [`crate::docs::DOC_MAX_BYTES`]), so a refusal is bad input naming
/// `file` (exit code 2), as a values file's names `jupyterhub-values`.
fn docs_file(path: &std::path::Path) -> Result<String, UsageError> {
    let shown = path.display().to_string();
    crate::support::files::read_text(path, crate::docs::DOC_MAX_BYTES).map_err(|e| {
        let words = crate::render::docs::DocsNote::Unreadable(&shown, &e);
        usage("file")(anyhow::anyhow!("{words}"))
    })
}

/// `cmd` (a subcommand) with every option declared `env` reading its Action input
/// ([`variables`]); an option with conventional variables too lists them all in its help.
fn with_input_variables(cmd: clap::Command) -> clap::Command {
    cmd.mut_args(|arg| match (arg.get_env(), arg.get_long().map(variables)) {
        (Some(_), Some(names)) if names.len() > 1 => {
            let help = arg.get_help().map(ToString::to_string).unwrap_or_default();
            let help = format!("{help} [env: {}]", names.join(", else "));
            arg.env(&names[0]).hide_env(true).help(help)
        }
        (Some(_), Some(names)) => arg.env(&names[0]),
        _ => arg,
    })
}

/// `cmd` with each option declared `env` reading the first of its [`variables`] that `var`
/// (the environment) has, and not blank; none when its Action input is set but blank (its
/// default applies), recursively through subcommands.
fn with_variables_set(cmd: clap::Command, var: &dyn Fn(&str) -> Option<String>) -> clap::Command {
    let given = |name: &String| var(name).is_some_and(|v| !v.trim().is_empty());
    let cmd = cmd.mut_args(|arg| match (arg.get_env(), arg.get_long().map(variables)) {
        (Some(_), Some(names)) => match names.iter().find(|name| given(name)) {
            Some(name) => arg.env(name),
            None if var(&names[0]).is_some() => arg.env(None),
            None => arg,
        },
        _ => arg,
    });
    cmd.mut_subcommands(|sub| with_variables_set(sub, var))
}

/// Registers the secret inputs with `log` before anything is printed, so no usage error can
/// show them: the values of the options declared with `hide_env_values` (`github-token`,
/// `registry-password`, `hub-token`, `kubeconfig`), read from their `variables` and from
/// `args` (the command line, `--name VALUE` or `--name=VALUE`; clap may refuse it), each in
/// every form a server may echo it (`Log::mask`; the one rule for short secrets is
/// `crate::support::secrets::Secrets::add`'s): the GitHub token also as the Basic
/// credentials git and registries are sent (`x-access-token:TOKEN`, as
/// `registry::auth::credentials_for` sends it to ghcr.io), the registry password also as the
/// Basic credentials with its user name, a kubeconfig as its users' tokens, passwords and
/// client keys (when it does not parse, the values of those keys). A kubeconfig is content from its
/// variable, and on the command line when it spans lines; a one-line value there is a path,
/// no secret. So is every word shaped like a GitHub token
/// (`support::secrets::token_shaped`) in any input's variable or argument. Inside
/// Actions this prints their `::add-mask::` lines first.
pub fn mask_secret_inputs(log: &Log, args: &[std::ffi::OsString]) {
    mask_given(log, args, &|name| std::env::var_os(name));
}

/// [`mask_secret_inputs`], with the environment's variables from `var`.
fn mask_given(
    log: &Log,
    args: &[std::ffi::OsString],
    var: &dyn Fn(&str) -> Option<std::ffi::OsString>,
) {
    use clap::CommandFactory;
    let cmd = Cli::command();
    let mut longs = vec!["registry-username".to_string()];
    for arg in cmd.get_subcommands().flat_map(clap::Command::get_arguments) {
        let long = arg.get_long().filter(|_| arg.is_hide_env_values_set());
        longs.extend(long.map(str::to_string).filter(|l| !longs.contains(l)));
    }
    let values = given_values(&longs, args, var);
    let user = values
        .iter()
        .rev()
        .find(|(long, ..)| long == "registry-username");
    let user = user.map(|(_, user, _)| user.as_str());
    for (long, value, from_variable) in &values {
        match (long.as_str(), user) {
            ("github-token", _) => {
                log.mask(value);
                log.mask_basic("x-access-token", value.trim());
            }
            ("registry-password", Some(user)) => log.mask_basic(user.trim(), value.trim_ascii()),
            ("registry-password", None) | ("hub-token", _) => log.mask(value),
            ("kubeconfig", _) if *from_variable || kube::is_content(value) => {
                let secrets = crate::status::kube::content_secrets(value);
                secrets.iter().for_each(|s| log.mask(s));
            }
            _ => {}
        }
    }
    // Any value shaped like a GitHub token, in any input or argument (a token pasted into
    // the wrong input, or a stray argument), before anything quotes it.
    let inputs = cmd.get_subcommands().flat_map(clap::Command::get_arguments);
    let names = inputs.filter_map(clap::Arg::get_long).flat_map(variables);
    for text in names
        .filter_map(|name| var(&name))
        .chain(args.iter().cloned())
    {
        let text = text.to_string_lossy();
        let tokens = crate::support::secrets::token_shaped(&text);
        tokens.into_iter().for_each(|token| log.mask(token));
    }
}

/// Whether the command line names a GitHub environment (`environment`, from its Action
/// input or `args`, not blank), read before parsing: a run refused on any input still writes
/// the deployment's outputs (empty) then.
pub(crate) fn names_environment(args: &[std::ffi::OsString]) -> bool {
    let var = |name: &str| std::env::var_os(name);
    let given = given_values(&["environment".into()], args, &var);
    given.iter().any(|(_, value, _)| !value.trim().is_empty())
}

/// The values the options `longs` were given, before parsing: from each option's
/// [`variables`] (read with `var`), then from `args` (`--name VALUE` or `--name=VALUE`) in
/// order, each with whether it came from a variable. Text that is not UTF-8 is read lossily.
fn given_values(
    longs: &[String],
    args: &[std::ffi::OsString],
    var: &dyn Fn(&str) -> Option<std::ffi::OsString>,
) -> Vec<(String, String, bool)> {
    let text = |value: &std::ffi::OsStr| value.to_string_lossy().into_owned();
    let mut values = Vec::new();
    for long in longs {
        let set = variables(long).into_iter().filter_map(|name| var(&name));
        values.extend(set.map(|value| (long.clone(), text(&value), true)));
    }
    let args: Vec<String> = args.iter().map(|a| text(a)).collect();
    for (i, arg) in args.iter().enumerate() {
        for long in longs {
            let value = match arg
                .strip_prefix("--")
                .and_then(|a| a.strip_prefix(long.as_str()))
            {
                Some("") => args.get(i + 1).cloned(),
                Some(rest) => rest.strip_prefix('=').map(str::to_string),
                None => None,
            };
            values.extend(value.map(|value| (long.clone(), value, false)));
        }
    }
    values
}

/// The commands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Resolve the image digest, decide the tier, and publish the release note (and, for
    /// security releases, the tracking issue).
    Announce(Box<AnnounceArgs>),
    /// Print the convergence window for the culler settings.
    Window(WindowArgs),
    /// Check or rewrite the generated sections of CODEQ_DEPLOYMENT.md.
    Docs(DocsArgs),
    /// Measure how far the hub's running servers have converged on a release (read-only on
    /// the hub).
    Status(Box<StatusArgs>),
}

/// The idle culler settings (z2jh `cull.*`): z2jh's defaults, then the values files in order,
/// then the `--cull-*` options. Durations: seconds when bare (`3600`), else `1h`, `10m`,
/// `1h 30m`. With them the hub's scale (`--hub-size`, `--slow-stop-timeout`), for the worst
/// case of a cull pass; every command that states a window flattens this group.
#[derive(Debug, Clone, Args, Default)]
pub(crate) struct CullerArgs {
    /// Zero to JupyterHub values file to read cull.* from; repeatable, later files override earlier ones (as helm -f a -f b). The input takes one path per line
    #[arg(long, env, value_name = "FILE", value_parser = checked(inputs::paths))]
    pub(crate) jupyterhub_values: Vec<inputs::Paths>,
    /// Parent key of `cull` in the values files, dotted (e.g. jupyterhub), or . for the top level [default: the top level or jupyterhub, whichever holds cull]
    #[arg(long, env, value_name = "KEY", value_parser = checked(culler::values_path))]
    pub(crate) values_path: Option<crate::values::ValuesPath>,
    /// The `--cull-*` options, over the values files.
    #[command(flatten)]
    pub(crate) cull: CullOptions,
    /// The most single-user servers the hub runs at once: the window then also states the worst case, all of them due in the same cull pass [default: none, only the usual bound; status: the servers running now]
    #[arg(long, env, value_name = "N", allow_hyphen_values = true, value_parser = checked(culler::hub_size))]
    pub(crate) hub_size: Option<u64>,
    /// The hub's slow-stop timeout (JupyterHub tornado_settings.slow_stop_timeout), for the worst case; overrides the values files [default: 10]
    #[arg(long, env, value_name = "DURATION", allow_hyphen_values = true, value_parser = DurationParser::SLOW_STOP)]
    pub(crate) slow_stop_timeout: Option<InputDuration>,
}

/// The `--cull-*` options: each overrides its z2jh `cull.*` key of the values files. A
/// leading `-` is taken as a value, so a negative duration is refused in its own words.
#[derive(Debug, Clone, Args, Default)]
pub(crate) struct CullOptions {
    /// Idle time after which the culler stops a server (z2jh cull.timeout); overrides the values files [default: 3600]
    #[arg(long, env, value_name = "DURATION", allow_hyphen_values = true, value_parser = DurationParser::CULLER)]
    pub(crate) cull_timeout: Option<InputDuration>,
    /// Interval between culler passes (z2jh cull.every); overrides the values files [default: 600]
    #[arg(long, env, value_name = "DURATION", allow_hyphen_values = true, value_parser = DurationParser::CULLER)]
    pub(crate) cull_every: Option<InputDuration>,
    /// Maximum server age, active or not; 0 or none means no max age (z2jh cull.maxAge); overrides the values files [default: 0]
    #[arg(long, env, value_name = "DURATION", allow_hyphen_values = true, value_parser = DurationParser::MAX_AGE)]
    pub(crate) cull_max_age: Option<InputDuration>,
    /// Whether the idle culler runs (z2jh cull.enabled); overrides the values files [default: true]
    #[arg(long, env, value_name = "BOOL", allow_hyphen_values = true, value_parser = bool_parser())]
    pub(crate) cull_enabled: Option<bool>,
}

/// The GitHub repository and API a command reads or writes (`announce`, `status`). The
/// token is a [`SecretString`]: `Debug` never shows it.
#[derive(Debug, Clone, Args)]
pub(crate) struct GitHubArgs {
    /// Repository for the release and issue, OWNER/REPO [default: $GITHUB_REPOSITORY]
    #[arg(long, env, value_parser = checked(inputs::repository))]
    pub(crate) repository: Option<crate::github::Repository>,
    /// GitHub token (never printed): publishes the release and issue, and reads the pull requests' labels for --tier auto, in a dry run too; a dry run with --tier routine or security needs none
    #[arg(long, env, hide_env_values = true, value_parser = checked(inputs::secret_arg))]
    pub(crate) github_token: Option<SecretString>,
    /// GitHub REST API base URL [default: $GITHUB_API_URL, else https://api.github.com]
    #[allow(rustdoc::bare_urls)] // clap's help text: plain text, no Markdown
    #[arg(long, env, value_name = "URL", value_parser = checked(inputs::api_url))]
    pub(crate) api_url: Option<HttpUrl>,
}

impl GitHubArgs {
    /// The `github-token` input, trimmed of ASCII whitespace; `None` when unset.
    ///
    /// # Errors
    /// [`UsageError`] naming `github-token` for anything but printable ASCII in it, or
    /// fewer than 8 characters ([`inputs::token`]); the token is not shown.
    pub(crate) fn token(&self) -> Result<Option<&str>, UsageError> {
        let token = self
            .github_token
            .as_ref()
            .map(|t| t.expose_secret().trim_ascii());
        token.map(|t| inputs::token("github-token", t)).transpose()
    }

    /// The run context: these options (and `--sha`, which only `announce` takes; each
    /// checked by its value parser) over the `GITHUB_*` variables of `env`.
    ///
    /// # Errors
    /// Those of [`crate::context::RunContext::resolve`].
    pub(crate) fn run_context(
        &self,
        sha: Option<&inputs::CommitSha>,
        env: &std::collections::HashMap<String, String>,
    ) -> Result<crate::context::RunContext> {
        let overrides = crate::context::Overrides {
            repository: self.repository.clone(),
            sha: sha.cloned(),
            api_url: self.api_url.clone(),
        };
        crate::context::RunContext::resolve(&overrides, env)
    }
}

/// Where the runbook in `CODEQ_DEPLOYMENT.md` points (the same options as `announce`).
#[derive(Debug, Clone, Args)]
pub(crate) struct RunbookArgs {
    /// The hub's namespace and Helm release.
    #[command(flatten)]
    pub(crate) names: HubNames,
    /// The hub's URL, for the runbook
    #[arg(long, env, default_value = "https://hub.example.org", value_name = "URL", value_parser = checked(inputs::hub_url))]
    pub(crate) hub_url: HttpUrl,
}

/// The hub's Kubernetes names, where the runbook's commands (`announce`, `docs`) and
/// `status`'s pod listing look: one declaration for the three commands.
#[derive(Debug, Clone, Args)]
pub(crate) struct HubNames {
    /// Kubernetes namespace of the hub: for the runbook, and where status lists its single-user pods [default: jhub; status with Kubernetes: the kubeconfig context's namespace, else jhub]
    #[arg(long, env, value_parser = parser(|input, t| inputs::kube_name(input, inputs::NameKind::Namespace, t)))]
    pub(crate) namespace: Option<inputs::KubeName>,
    /// Helm release name of the hub: for the runbook, and status's pod selector (release=NAME)
    #[arg(long, env, default_value = "jhub", value_parser = parser(|input, t| inputs::kube_name(input, inputs::NameKind::HelmRelease, t)))]
    pub(crate) helm_release: inputs::KubeName,
}

impl RunbookArgs {
    /// The runbook settings these options give (each checked by its value parser).
    pub(crate) fn settings(&self) -> crate::render::RunbookSettings {
        let namespace = self.names.namespace.as_ref().map(|n| n.0.as_str());
        crate::render::RunbookSettings {
            namespace: namespace
                .unwrap_or(crate::status::kube::DEFAULT_NAMESPACE)
                .to_string(),
            helm_release: self.names.helm_release.0.clone(),
            hub_url: self.hub_url.as_str().to_string(),
            ..Default::default()
        }
    }
}

/// The `environment` option of `announce` and `status` (flattened into both): the GitHub
/// environment whose deployment of the release codeq-rollout keeps
/// ([`crate::publish::deployment`]).
#[derive(Debug, Clone, Args)]
pub(crate) struct DeploymentArgs {
    /// GitHub environment to record the rollout in as a deployment of the release's commit, e.g. jupyterhub-prod (needs `deployments: write`); one per hub [default: none, no deployment]
    #[arg(long, env, value_name = "NAME", value_parser = checked(environment_arg))]
    pub(crate) environment: Option<Environment>,
}

/// `environment` by GitHub's rules ([`Environment::parse`]); a blank value never reaches it
/// (a blank input counts as unset, the command line refuses one: [`value`]). The refusal says the rule broken and quotes the
/// name.
fn environment_arg(text: &str) -> Result<Environment, UsageError> {
    Environment::parse(text)
        .map_err(|why| UsageError::of("environment", text.trim(), Problem::Environment(why)))
}

/// How the image's registry is read, by `announce` and by `status` (with `--image`): the
/// credentials (Basic, exchanged for a bearer token where the registry asks), the hosts
/// reached over plain HTTP, the deadline. The password is a [`SecretString`]: `Debug` never
/// shows it.
#[derive(Debug, Clone, Args)]
pub(crate) struct RegistryArgs {
    /// Registry user name (Basic credentials, exchanged for a bearer token where asked)
    // Any text; checked with the password (both or neither) in RegistryArgs::options.
    #[arg(long, env, value_parser = checked(|t| Ok(t.to_string())))]
    pub(crate) registry_username: Option<String>,
    /// Registry password or token (never printed)
    #[arg(long, env, hide_env_values = true, value_parser = checked(inputs::secret_arg))]
    pub(crate) registry_password: Option<SecretString>,
    /// HOST or HOST:PORT (no scheme) to reach over plain HTTP (local registries); repeatable, comma- or line-separated
    #[arg(long, env, value_parser = list_of(|_, t| inputs::insecure_value(t)))]
    pub(crate) insecure_registry: Vec<inputs::Registries>,
    /// Deadline for the registry look-up, retries included: seconds (60) or a duration (90s, 2m), at most 6h
    #[arg(long, env, default_value = "60", value_name = "DURATION", allow_hyphen_values = true, value_parser = DurationParser::timeout(std::time::Duration::from_millis(1), "60"))]
    pub(crate) registry_timeout: InputDuration,
    /// Wait before the first retry of a registry request, doubled per retry (tests)
    #[arg(long, hide = true, default_value = "1s", value_name = "DURATION", value_parser = DurationParser::timeout(std::time::Duration::ZERO, "1"))]
    pub(crate) registry_retry_delay: InputDuration,
}

impl RegistryArgs {
    /// The registry options these give: both or neither of username and password
    /// ([`Credentials::from_inputs`]); `github_token` kept for ghcr.io when no credentials are
    /// given (`registry::auth::credentials_for`).
    ///
    /// # Errors
    /// [`UsageError`] naming the input missing, or a password holding a control character
    /// inside ([`inputs::secret`]); the password is never quoted.
    fn options(&self, github_token: Option<&str>) -> Result<RegistryOptions, UsageError> {
        let username = self.registry_username.as_deref();
        let password = (self.registry_password.as_ref())
            .map(|p| inputs::secret("registry-password", p.expose_secret()))
            .transpose()?
            .map(SecretString::from);
        let credentials = Credentials::from_inputs(username, password.as_ref()).map_err(|m| {
            let (input, rule) = match m {
                MissingInput::Password => ("registry-password", Rule::UsernameWithoutPassword),
                MissingInput::Username => ("registry-username", Rule::PasswordWithoutUsername),
            };
            UsageError::new(input, Problem::Rule(rule))
        })?;
        Ok(RegistryOptions {
            credentials,
            github_token: github_token.map(SecretString::from),
            insecure: self
                .insecure_registry
                .iter()
                .flat_map(|r| r.0.clone())
                .collect(),
            retry: RetryPolicy {
                deadline: Some(self.registry_timeout.get()),
                base_delay: self.registry_retry_delay.get(),
                ..RetryPolicy::registry()
            },
            timer: None,
        })
    }
}

/// Options of `announce`. The GitHub token and the registry password are
/// [`SecretString`]s: `Debug` never shows them.
#[derive(Debug, Clone, Args)]
pub(crate) struct AnnounceArgs {
    /// Image reference, e.g. ghcr.io/org/lab:latest, or oci:DIR[:TAG] for an OCI layout on disk
    #[allow(rustdoc::broken_intra_doc_links)] // clap's help text: `[:TAG]` is no link
    #[arg(long, env, value_name = "REF", value_parser = checked(announce::image_input))]
    pub(crate) image: Option<crate::digest::ImageSource>,
    /// The registry's credentials, plain-HTTP hosts, timeout.
    #[command(flatten)]
    pub(crate) registry: RegistryArgs,
    /// The digest the build step reported (sha256:...); fail if the tag now points elsewhere
    #[arg(long, env, value_name = "DIGEST", value_parser = checked(announce::expected_digest))]
    pub(crate) expected_digest: Option<crate::digest::Digest>,

    /// Tier: auto (from pull request labels), routine, or security
    #[arg(long, env, value_name = "auto|routine|security", default_value = "auto", value_parser = enum_parser::<crate::tier::TierRequest>())]
    pub(crate) tier: crate::tier::TierRequest,
    /// Tier when no pull request carries a tier label: routine, security, or fail [default: routine]. Set explicitly, it also applies, with a warning, when no merged pull request is found; when the labels cannot be read (no pull-requests: read, no token) only security applies and routine fails the run (docs/tier-fail-closed.md); unset, a failed look-up fails the run
    #[arg(long, env, value_name = "routine|security|fail", value_parser = enum_parser::<crate::tier::UnlabeledPolicy>())]
    pub(crate) unlabeled_tier: Option<crate::tier::UnlabeledPolicy>,
    /// Labels that make a release security (comma- or newline-separated)
    #[arg(long, env, default_value = "security", value_parser = list_parser())]
    pub(crate) security_labels: List,
    /// Labels that make a release routine (comma- or newline-separated)
    #[arg(long, env, default_value = "routine", value_parser = list_parser())]
    pub(crate) routine_labels: List,

    /// The culler settings.
    #[command(flatten)]
    pub(crate) culler: CullerArgs,

    /// The repository, the token, the API.
    #[command(flatten)]
    pub(crate) github: GitHubArgs,
    /// Commit the release targets [default: $GITHUB_SHA]
    #[arg(long, env, value_parser = checked(inputs::commit_sha))]
    pub(crate) sha: Option<inputs::CommitSha>,

    /// Labels of the tracking issue, also used to find it (comma- or newline-separated)
    #[arg(long, env, default_value = "security,break-glass", value_parser = list_parser())]
    pub(crate) tracking_labels: List,
    /// Logins to assign the tracking issue to (comma- or newline-separated)
    #[arg(long, env, default_value = "", hide_default_value = true, value_parser = list_parser())]
    pub(crate) tracking_assignees: List,
    /// Where the runbook points.
    #[command(flatten)]
    pub(crate) runbook: RunbookArgs,
    /// The GitHub environment of the deployment (`environment`).
    #[command(flatten)]
    pub(crate) deployment: DeploymentArgs,

    /// Do everything but write to GitHub; print the bodies. Needs no token when --tier is routine or security; with tier auto the pull requests' labels are read, which needs github-token
    #[arg(long, env, value_parser = bool_parser(), default_value_t = false, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    pub(crate) dry_run: bool,
    /// With dry-run: also print the context the templates get (names and values), as JSON on stdout
    #[arg(long, env, value_parser = bool_parser(), default_value_t = false, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    pub(crate) print_context: bool,
    /// Minijinja template for the release note, relative to the workspace [default: the built-in template]
    #[arg(long, env, value_name = "FILE", value_parser = checked(inputs::path))]
    pub(crate) release_note_template: Option<std::path::PathBuf>,
    /// Minijinja template for the tracking issue, relative to the workspace [default: the built-in template]
    #[arg(long, env, value_name = "FILE", value_parser = checked(inputs::path))]
    pub(crate) tracking_issue_template: Option<std::path::PathBuf>,

    /// The run's clock, RFC 3339 (tests; default: now)
    #[arg(long, hide = true, value_parser = checked(|t| status::time_input("now", t)))]
    pub(crate) now: Option<time::OffsetDateTime>,
    /// Waits in milliseconds between tries of the commit → pull requests look-up, which lags
    /// a fresh merge, and between looks for the tracking issue and deployment of a run that
    /// created the release first (tests; tries = waits + 1). The default, 4 tries within about
    /// 30 s, is enough for GitHub's index to catch up with a fresh merge
    #[arg(long, hide = true, value_delimiter = ',', default_value = "2000,6000,18000", value_parser = clap::value_parser!(u64).map(std::time::Duration::from_millis))]
    pub(crate) lookup_backoff_ms: Vec<std::time::Duration>,
    /// Timeout of each GitHub request, e.g. 300ms (tests; default 30s)
    #[arg(long, hide = true, value_parser = DurationParser::timeout(std::time::Duration::ZERO, "30"))]
    pub(crate) github_timeout: Option<InputDuration>,
    /// First wait before retrying a failed GitHub read; doubles per retry (tests; default 1s)
    #[arg(long, hide = true, value_parser = DurationParser::timeout(std::time::Duration::ZERO, "1"))]
    pub(crate) github_retry_wait: Option<InputDuration>,
}

/// Options of `status` (Action inputs with `command: status`). The hub token, the GitHub
/// token, the registry password and the kubeconfig are [`SecretString`]s: `Debug` never
/// shows them.
#[derive(Debug, Clone, Args)]
#[command(
    mut_arg("repository", |a| a.help("Repository of the release and issue, OWNER/REPO [default: $GITHUB_REPOSITORY]")),
    mut_arg("github_token", |a| a.help("GitHub token (never printed): reads the release note, writes the comment")),
    // `--hub-size` as `status` reads it (the shared `CullerArgs` text is `announce`'s).
    mut_arg("hub_size", |a| a.help("The most single-user servers the hub runs at once, for the deadlines' worst case (a cull pass over all of them); never taken below the servers running now [default: the servers running now]"))
)]
pub(crate) struct StatusArgs {
    /// The hub's address, without /hub/api (the API is then under /hub/api/ below it), e.g. `https://hub.example.org`
    #[arg(long, env, value_name = "URL", value_parser = checked(inputs::hub_url))]
    pub(crate) hub_url: Option<HttpUrl>,
    /// Hub API token with scopes list:users and read:servers (never printed; see README for the role)
    #[arg(long, env, hide_env_values = true, value_parser = checked(inputs::secret_arg))]
    pub(crate) hub_token: Option<SecretString>,
    /// When the release went live, RFC 3339 (e.g. 2026-11-30T12:00:00Z): servers started later are updated [default: the time announce recorded in the release note of --image's digest]
    #[arg(long, env, value_name = "TIME", value_parser = checked(|t| status::time_input("released-at", t)))]
    pub(crate) released_at: Option<time::OffsetDateTime>,
    /// The image announced (its digest finds the release note and the tracking issue), e.g. ghcr.io/org/lab:latest or oci:DIR[:TAG]
    #[allow(rustdoc::broken_intra_doc_links)] // clap's help text: `[:TAG]` is no link
    #[arg(long, env, value_name = "REF", value_parser = checked(announce::image_input))]
    pub(crate) image: Option<crate::digest::ImageSource>,
    /// The registry's credentials, plain-HTTP hosts, timeout (for `--image`).
    #[command(flatten)]
    pub(crate) registry: RegistryArgs,
    /// The repository, the token (with what `status` does with it), the API.
    #[command(flatten)]
    pub(crate) github: GitHubArgs,
    /// Labels of the tracking issue, used to find it (comma- or newline-separated)
    #[arg(long, env, default_value = "security,break-glass", value_parser = list_parser())]
    pub(crate) tracking_labels: List,
    /// Post (then edit in place) one "Convergence status" comment on the release's tracking issue (security releases; needs --image)
    #[arg(long, env, value_parser = bool_parser(), default_value_t = false, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    pub(crate) comment: bool,
    /// Read the hub and GitHub, write nothing to GitHub: print what would be done with the comment, and its body
    #[arg(long, env, value_parser = bool_parser(), default_value_t = false, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    pub(crate) dry_run: bool,
    /// The GitHub environment of the deployment (`environment`; needs --image).
    #[command(flatten)]
    pub(crate) deployment: DeploymentArgs,
    /// The culler settings.
    #[command(flatten)]
    pub(crate) culler: CullerArgs,
    /// Timeout of each hub request: seconds (30) or a duration (30s, 1m), from 1s to 6h
    #[arg(long, env, default_value = "30", value_name = "DURATION", allow_hyphen_values = true, value_parser = DurationParser::timeout(std::time::Duration::from_secs(1), "30"))]
    pub(crate) hub_timeout: InputDuration,
    /// Name users and servers in the job summary, the comment and, inside GitHub Actions, the job log (the table and JSON); off, the log shows user 1, user 2, ... (a terminal outside Actions always shows names)
    #[arg(long, env, value_parser = bool_parser(), default_value_t = false, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    pub(crate) include_names: bool,
    /// Print JSON instead of the table
    #[arg(long)]
    pub(crate) json: bool,
    /// The run's clock, RFC 3339 (tests; default: now)
    #[arg(long, hide = true, value_parser = checked(|t| status::time_input("now", t)))]
    pub(crate) now: Option<time::OffsetDateTime>,
    /// The Kubernetes options: digest evidence, credentials, where the pods are, alarms.
    #[command(flatten)]
    pub(crate) kube: kube::KubeArgs,
}

/// Options of `window`.
#[derive(Debug, Clone, Args)]
pub(crate) struct WindowArgs {
    /// The culler settings.
    #[command(flatten)]
    pub(crate) culler: CullerArgs,
    /// Print JSON instead of text
    #[arg(long)]
    pub(crate) json: bool,
}

/// Options of `docs`: exactly one of `--check` and `--write`.
#[derive(Debug, Clone, Args)]
#[command(group = clap::ArgGroup::new("mode").args(["check", "write"]).required(true))]
pub(crate) struct DocsArgs {
    /// The culler settings.
    #[command(flatten)]
    pub(crate) culler: CullerArgs,
    /// Where the runbook points.
    #[command(flatten)]
    pub(crate) runbook: RunbookArgs,
    /// The deployment doc to check or write
    #[arg(long, default_value = "CODEQ_DEPLOYMENT.md", value_parser = checked(inputs::path))]
    pub(crate) file: std::path::PathBuf,
    /// Exit non-zero with a diff when the generated sections are out of date
    #[arg(long, conflicts_with = "write")]
    pub(crate) check: bool,
    /// Rewrite the generated sections in place
    #[arg(long)]
    pub(crate) write: bool,
}

/// A command's request, every input checked: what its pipeline runs on.
pub(crate) enum Request {
    /// `announce`'s.
    Announce(Box<crate::announce::AnnounceRequest>),
    /// `window`'s.
    Window(crate::docs::WindowRequest),
    /// `docs`'s.
    Docs(crate::docs::DocsRequest),
    /// `status`'s.
    Status(Box<crate::status::run::StatusRequest>),
}

#[cfg(test)]
/// Bad values of the options both commands take (the culler's and the registry's), the
/// settings past the calendar among them: each command's usage-error table refuses every
/// one, naming the option.
pub(crate) const BAD_SHARED_OPTIONS: [&[&str]; 15] = [
    &["--cull-timeout", "soon"],
    &["--cull-timeout", "10M"],
    &["--cull-timeout", "1h30"],
    &["--cull-every", "500ms"],
    &["--cull-max-age", "8 fortnights"],
    culler::PAST_THE_CALENDAR[0],
    culler::PAST_THE_CALENDAR[1],
    &["--insecure-registry", "http://localhost:5000"],
    &["--insecure-registry", "localhost:5000/path"],
    &["--insecure-registry", "ok.test:1,localhost:99999"],
    &["--insecure-registry", "a b"],
    &["--registry-timeout", "600000000weeks"],
    &["--jupyterhub-values", ""],
    &["--insecure-registry", ""],
    &["--insecure-registry", " , "],
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_of_announce_options_hides_the_token_and_the_password() {
        let cli = Cli::try_parse_from([
            "codeq-rollout",
            "announce",
            "--image",
            "ghcr.io/org/lab:latest",
            "--github-token",
            "ghs_debugtoken",
            "--registry-username",
            "ci",
            "--registry-password",
            "hunter22",
        ])
        .unwrap();
        let shown = format!("{cli:?}");
        assert!(
            !shown.contains("ghs_debugtoken") && !shown.contains("hunter22"),
            "{shown}"
        );
        assert!(shown.contains("org/lab") && shown.contains("\"ci\""));
    }

    #[derive(clap::Parser)]
    struct EnvCli {
        #[command(flatten)]
        deployment: DeploymentArgs,
    }

    #[test]
    fn an_environment_is_checked_by_githubs_rules() {
        let parsed = EnvCli::try_parse_from(["x", "--environment", "jupyterhub-prod"]).unwrap();
        assert_eq!(
            parsed
                .deployment
                .environment
                .map(|e| e.as_str().to_string()),
            Some("jupyterhub-prod".to_string())
        );
        let long = "e".repeat(256);
        let err = EnvCli::try_parse_from(["x", "--environment", &long])
            .err()
            .unwrap()
            .to_string();
        let shown = format!("\"{}…\"", "e".repeat(59));
        assert_eq!(
            err.lines().next().unwrap(),
            format!("error: environment (--environment) {shown} is longer than 255 characters")
        );
        let err = EnvCli::try_parse_from(["x", "--environment", "prod\u{202e}ue"])
            .err()
            .unwrap()
            .to_string();
        assert_eq!(
            err.lines().next().unwrap(),
            "error: environment (--environment) \"prod\\u{202e}ue\" holds an invisible character (a bidirectional control or a zero-width one)"
        );
        assert!(
            EnvCli::try_parse_from(["x"])
                .unwrap()
                .deployment
                .environment
                .is_none()
        );
    }

    /// The help of the option `long` of `command`, its words on one line.
    fn help_of(command: &str, long: &str) -> String {
        use clap::CommandFactory;
        let mut cli = Cli::command();
        let help = cli.find_subcommand_mut(command).unwrap().render_long_help();
        let help = help.to_string();
        let after = help.split(&format!("--{long} ")).nth(1).expect("listed");
        let text = after.split("\n      --").next().unwrap();
        text.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    /// Outside Actions the tokens come from the variables gh and JupyterHub use, after the
    /// Action's input, the first set and not blank winning; `--help` lists them, and says
    /// when `announce` needs the GitHub token.
    #[test]
    fn tokens_are_read_from_the_conventional_variables_after_the_action_input() {
        use clap::CommandFactory;
        let read = |set: &[(&str, &str)], command: &str, long: &str| {
            let var = |name: &str| {
                set.iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| v.to_string())
            };
            let cmd = with_variables_set(Cli::command(), &var);
            let sub = cmd.find_subcommand(command).unwrap();
            let arg = sub.get_arguments().find(|a| a.get_long() == Some(long));
            arg.and_then(|a| a.get_env())
                .map(|e| e.to_string_lossy().into_owned())
        };
        let github = [
            ("INPUT_GITHUB-TOKEN", "a"),
            ("GH_TOKEN", "b"),
            ("GITHUB_TOKEN", "c"),
        ];
        let announce = |set| read(set, "announce", "github-token");
        assert_eq!(announce(&github).as_deref(), Some("INPUT_GITHUB-TOKEN"));
        assert_eq!(
            read(&github[1..], "status", "github-token").as_deref(),
            Some("GH_TOKEN")
        );
        assert_eq!(announce(&github[2..]).as_deref(), Some("GITHUB_TOKEN"));
        let blank = [("INPUT_GITHUB-TOKEN", " "), ("GH_TOKEN", "")];
        assert_eq!(announce(&blank), None, "a blank input counts as unset");
        // Nothing set: the Action input is still the one `--help` names.
        assert_eq!(announce(&[]).as_deref(), Some("INPUT_GITHUB-TOKEN"));
        let hub = [("JUPYTERHUB_API_TOKEN", "d")];
        let hub_token = read(&hub, "status", "hub-token");
        assert_eq!(hub_token.as_deref(), Some("JUPYTERHUB_API_TOKEN"));
        let hub_url = read(&hub, "status", "hub-url");
        assert_eq!(
            hub_url.as_deref(),
            Some("INPUT_HUB-URL"),
            "only the tokens have others"
        );
        assert!(
            help_of("status", "github-token")
                .ends_with("[env: INPUT_GITHUB-TOKEN, else GH_TOKEN, else GITHUB_TOKEN]")
        );
        assert!(
            help_of("status", "hub-token")
                .ends_with("[env: INPUT_HUB-TOKEN, else JUPYTERHUB_API_TOKEN]")
        );
        // When the token is needed: a dry run with `--tier auto` reads the labels with it.
        let announce = help_of("announce", "github-token");
        assert!(announce.contains("reads the pull requests' labels for --tier auto, in a dry run too; a dry run with --tier routine or security needs none"), "{announce}");
    }

    /// Every secret is registered once, before parsing, from the variables and the command
    /// line, in each form a server may echo; a short registry password only as a whole word
    /// of echoed text (never in the tool's own text), a kubeconfig path not at all.
    #[test]
    fn secrets_are_registered_once_before_parsing_in_each_form() {
        use base64::Engine as _;
        let env = [
            ("GH_TOKEN", "ghs_from_gh_token_0123"),
            ("JUPYTERHUB_API_TOKEN", "hub-token-from-env-0123"),
            (
                "INPUT_KUBECONFIG",
                "users: [{name: r, user: {token: kube-token-0123456789}}]",
            ),
            ("INPUT_REGISTRY-USERNAME", "ci"),
        ];
        let var = |name: &str| env.iter().find(|(n, _)| *n == name).map(|(_, v)| v.into());
        let args = [
            "x",
            "status",
            "--registry-password=db",
            "--kubeconfig",
            "/home/me/.kube/config",
        ];
        let args: Vec<std::ffi::OsString> = args.iter().map(Into::into).collect();
        let log = Log::new(false, false);
        mask_given(&log, &args, &var);
        let basic =
            |credentials: &str| base64::engine::general_purpose::STANDARD.encode(credentials);
        let text = format!(
            "{} {} {} {} {} db /home/me/.kube/config",
            env[0].1,
            basic("x-access-token:ghs_from_gh_token_0123"),
            env[1].1,
            "kube-token-0123456789",
            basic("ci:db"),
        );
        assert_eq!(
            log.redact(&text),
            "*** *** *** *** *** db /home/me/.kube/config"
        );
    }

    /// `jupyterhub-values` takes one path per line, repeatable; on the command line a blank
    /// line inside a value is skipped (by the reader), a blank value is refused.
    #[test]
    fn values_files_are_one_per_line_and_a_blank_value_is_refused() {
        let parse = |args: &[&str]| {
            let cli = Cli::try_parse_from(["x", "window"].iter().chain(args));
            let Command::Window(args) = cli.map_err(|e| e.kind())?.command else {
                unreachable!()
            };
            let paths = args.culler.jupyterhub_values.into_iter().flat_map(|p| p.0);
            Ok(paths.collect::<Vec<_>>())
        };
        let one = "--jupyterhub-values=a.yaml\r\n\n b.yaml \n";
        let given = parse(&[one, "--jupyterhub-values", "c.yaml"]);
        assert_eq!(
            given,
            Ok(["a.yaml", "", "b.yaml", "c.yaml"].map(Into::into).to_vec())
        );
        let refused = Err(clap::error::ErrorKind::ValueValidation);
        assert_eq!(parse(&["--jupyterhub-values", " \n "]), refused);
    }

    /// `docs --file` is read under a values file's rules, so its refusal is bad input
    /// (exit code 2) naming `file`, as a values file's names `jupyterhub-values`.
    #[test]
    fn a_docs_file_that_cannot_be_read_is_bad_input_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path().to_str().unwrap();
        for file in [dir, "/nonexistent/CODEQ_DEPLOYMENT.md"] {
            let cli = Cli::try_parse_from(["x", "docs", "--check", "--file", file]).unwrap();
            let e = cli.request(&Log::new(false, false)).err().expect("refused");
            let usage = e.downcast_ref::<UsageError>().expect("bad input");
            assert_eq!(usage.input, "file", "{e:#}");
        }
    }
}
