//! The command line. Every option of `announce` is also read from the GitHub Action input
//! variable `INPUT_<NAME>` (name upper-cased, hyphens kept), which is how the runner passes
//! inputs to a Docker container action; empty variables count as unset.

use crate::report::Log;
use crate::tier::{TierRequest, UnlabeledPolicy};
use anyhow::Result;
use clap::{Args, Parser, Subcommand};

/// Announce a new JupyterLab image: release note, convergence window, break-glass issue.
#[derive(Debug, Parser)]
#[command(name = "codeq-rollout", version, about, long_about = None)]
pub struct Cli {
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Resolve the image digest, decide the tier, and publish the release note (and, for
    /// security releases, the tracking issue).
    Announce(Box<AnnounceArgs>),
    /// Print the convergence window for the culler settings.
    Window(WindowArgs),
    /// Check or rewrite the generated sections of CODEQ_DEPLOYMENT.md.
    Docs(DocsArgs),
}

/// The idle culler settings (z2jh `cull.*`). Durations: seconds when bare (`3600`),
/// else `1h`, `10m`, `1h 30m`.
#[derive(Debug, Clone, Args, Default)]
pub struct CullerArgs {
    /// Idle time after which the culler stops a server (z2jh cull.timeout) [default: 3600]
    #[arg(long, env = "INPUT_CULL-TIMEOUT", value_name = "DURATION")]
    pub cull_timeout: Option<String>,
    /// Interval between culler passes (z2jh cull.every) [default: 600]
    #[arg(long, env = "INPUT_CULL-EVERY", value_name = "DURATION")]
    pub cull_every: Option<String>,
    /// Maximum server age, active or not; 0 for none (z2jh cull.maxAge) [default: 0]
    #[arg(long, env = "INPUT_CULL-MAX-AGE", value_name = "DURATION")]
    pub cull_max_age: Option<String>,
    /// Whether the idle culler runs (z2jh cull.enabled) [default: true]
    #[arg(long, env = "INPUT_CULL-ENABLED", value_name = "BOOL")]
    pub cull_enabled: Option<String>,
}

/// Options of `announce`.
#[derive(Debug, Clone, Args)]
pub struct AnnounceArgs {
    /// Image reference, e.g. ghcr.io/org/lab:latest, or oci:DIR[:TAG] for an OCI layout on disk
    #[arg(long, env = "INPUT_IMAGE", value_name = "REF")]
    pub image: Option<String>,
    /// Registry user name (Basic credentials, exchanged for a bearer token where asked)
    #[arg(long, env = "INPUT_REGISTRY-USERNAME")]
    pub registry_username: Option<String>,
    /// Registry password or token (never printed)
    #[arg(long, env = "INPUT_REGISTRY-PASSWORD", hide_env_values = true)]
    pub registry_password: Option<String>,
    /// HOST:PORT to reach over plain HTTP (local registries); repeatable or comma-separated
    #[arg(long, env = "INPUT_INSECURE-REGISTRY", value_delimiter = ',')]
    pub insecure_registry: Vec<String>,
    /// Deadline for the registry look-up, retries included: seconds (60) or a duration (90s, 2m)
    #[arg(
        long,
        env = "INPUT_REGISTRY-TIMEOUT",
        default_value = "60",
        value_name = "DURATION"
    )]
    pub registry_timeout: String,
    /// The digest the build step reported (sha256:...); fail if the tag now points elsewhere
    #[arg(long, env = "INPUT_EXPECTED-DIGEST", value_name = "DIGEST")]
    pub expected_digest: Option<String>,
    /// Wait before the first retry of a registry request, doubled per retry (tests)
    #[arg(long, hide = true, default_value = "1s", value_name = "DURATION")]
    pub registry_retry_delay: String,

    /// Tier: auto (from pull request labels), routine, or security
    #[arg(long, env = "INPUT_TIER", value_enum, default_value = "auto")]
    pub tier: TierRequest,
    /// Tier when no pull request carries a tier label: routine, security, or fail
    #[arg(
        long,
        env = "INPUT_UNLABELED-TIER",
        value_enum,
        default_value = "routine"
    )]
    pub unlabeled_tier: UnlabeledPolicy,
    /// Labels that make a release security (comma- or newline-separated)
    #[arg(long, env = "INPUT_SECURITY-LABELS", default_value = "security")]
    pub security_labels: String,
    /// Labels that make a release routine (comma- or newline-separated)
    #[arg(long, env = "INPUT_ROUTINE-LABELS", default_value = "routine")]
    pub routine_labels: String,

    /// The culler settings.
    #[command(flatten)]
    pub culler: CullerArgs,

    /// Repository for the release and issue, OWNER/REPO [default: $GITHUB_REPOSITORY]
    #[arg(long, env = "INPUT_REPOSITORY")]
    pub repository: Option<String>,
    /// Commit the release targets [default: $GITHUB_SHA]
    #[arg(long, env = "INPUT_SHA")]
    pub sha: Option<String>,
    /// GitHub token (never printed); not needed with --dry-run
    #[arg(long, env = "INPUT_GITHUB-TOKEN", hide_env_values = true)]
    pub github_token: Option<String>,
    /// GitHub REST API base URL [default: $GITHUB_API_URL, else https://api.github.com]
    #[arg(long, env = "INPUT_API-URL")]
    pub api_url: Option<String>,

    /// Labels of the tracking issue, also used to find it (comma- or newline-separated)
    #[arg(
        long,
        env = "INPUT_TRACKING-LABELS",
        default_value = "security,break-glass"
    )]
    pub tracking_labels: String,
    /// Logins to assign the tracking issue to (comma- or newline-separated)
    #[arg(long, env = "INPUT_TRACKING-ASSIGNEES", default_value = "")]
    pub tracking_assignees: String,
    /// Kubernetes namespace of the hub, for the runbook
    #[arg(long, env = "INPUT_NAMESPACE", default_value = "jhub")]
    pub namespace: String,
    /// Helm release name of the hub, for the runbook
    #[arg(long, env = "INPUT_HELM-RELEASE", default_value = "jhub")]
    pub helm_release: String,
    /// The hub's URL, for the runbook
    #[arg(long, env = "INPUT_HUB-URL", default_value = "https://hub.example.org")]
    pub hub_url: String,

    /// Do everything but write to GitHub; print the bodies. Needs no token
    #[arg(long, env = "INPUT_DRY-RUN", value_parser = clap::builder::BoolishValueParser::new(), default_value_t = false, num_args = 0..=1, default_missing_value = "true")]
    pub dry_run: bool,

    /// The run's clock, RFC 3339 (tests; default: now)
    #[arg(long, hide = true)]
    pub now: Option<String>,
}

/// Options of `window`.
#[derive(Debug, Clone, Args)]
pub struct WindowArgs {
    /// The culler settings.
    #[command(flatten)]
    pub culler: CullerArgs,
    /// Print JSON instead of text
    #[arg(long)]
    pub json: bool,
}

/// Options of `docs`.
#[derive(Debug, Clone, Args)]
pub struct DocsArgs {
    /// The culler settings.
    #[command(flatten)]
    pub culler: CullerArgs,
    /// The deployment doc to check or write
    #[arg(long, default_value = "CODEQ_DEPLOYMENT.md")]
    pub file: std::path::PathBuf,
    /// Exit non-zero with a diff when the generated sections are out of date
    #[arg(long, conflicts_with = "write")]
    pub check: bool,
    /// Rewrite the generated sections in place
    #[arg(long)]
    pub write: bool,
}

/// Runs the parsed command.
pub async fn dispatch(cli: Cli, log: &Log) -> Result<()> {
    match cli.command {
        Command::Announce(args) => crate::announce::run(&args, log).await,
        Command::Window(args) => crate::docs::window_command(&args, log),
        Command::Docs(args) => crate::docs::docs_command(&args, log),
    }
}

impl CullerArgs {
    /// The culler settings these options give, over z2jh's defaults, with where each came
    /// from.
    ///
    /// # Errors
    /// A malformed duration or boolean (the error names the option and quotes the value), or
    /// `every` of 0 while culling is enabled.
    pub fn settings(&self) -> Result<crate::window::Configured> {
        use crate::window::{Configured, Origin, parse_duration_secs};
        let mut c = Configured::default();
        let dur = |value: &Option<String>, name: &str| -> Result<Option<u64>> {
            value
                .as_deref()
                .filter(|v| !v.trim().is_empty())
                .map(|v| {
                    parse_duration_secs(v)
                        .map_err(|e| anyhow::anyhow!("--{name} (input {name}): {e}"))
                })
                .transpose()
        };
        if let Some(v) = dur(&self.cull_timeout, "cull-timeout")? {
            c.settings.timeout_secs = v;
            c.origins.timeout = Origin::Option;
        }
        if let Some(v) = dur(&self.cull_every, "cull-every")? {
            c.settings.every_secs = v;
            c.origins.every = Origin::Option;
        }
        if let Some(v) = dur(&self.cull_max_age, "cull-max-age")? {
            c.settings.max_age_secs = v;
            c.origins.max_age = Origin::Option;
        }
        if let Some(v) = self
            .cull_enabled
            .as_deref()
            .filter(|v| !v.trim().is_empty())
        {
            c.settings.enabled = match v.trim().to_ascii_lowercase().as_str() {
                "true" | "yes" | "1" | "on" => true,
                "false" | "no" | "0" | "off" => false,
                _ => {
                    anyhow::bail!("--cull-enabled (input cull-enabled): {v:?} is not true or false")
                }
            };
            c.origins.enabled = Origin::Option;
        }
        c.settings.validate()?;
        Ok(c)
    }
}
