//! The `status` pipeline: hub → classify → report. [`run`] reads as those stages; the
//! request it takes was checked by the command line ([`crate::cli::status_request`]).
//! Read-only: the hub gets only GET requests ([`super::hub`]), GitHub nothing.

use super::classify::{AtScaleModel, classify};
use super::hub::HubClient;
use super::report::{self, StatusFacts};
use crate::report::FileCommands;
use crate::support::log::Log;
use crate::window::{CullSettings, HubScale};
use anyhow::Result;
use time::OffsetDateTime;

/// One `status` run, every input checked ([`crate::cli::status_request`] builds it).
#[derive(Debug)]
pub struct StatusRequest {
    /// The hub's REST client (base URL and token checked; the token held as a secret).
    pub hub: HubClient,
    /// `hub-url` as given, trimmed, for the reports.
    pub hub_url: String,
    /// When the release went live (`--released-at`).
    pub released_at: OffsetDateTime,
    /// The idle culler's settings (z2jh `cull.*`).
    pub culler: CullSettings,
    /// `hub-size`: the most servers the hub runs at once; `None` for the servers running
    /// when the hub is read (at least 1).
    pub hub_size: Option<u64>,
    /// `slow-stop-timeout`, whole seconds (1 or more).
    pub slow_stop_timeout_secs: u64,
    /// `--json`: the JSON document on stdout instead of the table.
    pub json: bool,
    /// `include-names`: the job summary lists servers by user and server name (the terminal
    /// table and the JSON always do).
    pub include_names: bool,
    /// The run's clock (`--now`, tests); `None` for the time the hub is read.
    pub now: Option<OffsetDateTime>,
}

/// Runs `status`: lists the running servers, classifies them against the release, prints
/// the table (or the JSON with `--json`) and, inside Actions, writes the outputs and the job
/// summary.
///
/// # Errors
/// The hub's answer as a [`super::hub::HubError`] (what failed, what to do); an output or
/// summary file that cannot be written.
pub async fn run(req: &StatusRequest, log: &Log) -> Result<()> {
    // 1. Hub (GET only, page by page).
    let listing = req.hub.list_active_servers().await?;
    log.debug(&format!(
        "status: {} servers of {} users in {} requests",
        listing.servers.len(),
        listing.users,
        listing.requests
    ));
    let now = req.now.unwrap_or_else(OffsetDateTime::now_utc);

    // 2. Classify, with the release note's worst case at the hub's scale.
    let running = u64::try_from(listing.servers.len()).unwrap_or(u64::MAX);
    let model = AtScaleModel {
        settings: req.culler,
        scale: HubScale {
            servers: req.hub_size.unwrap_or(running).max(1),
            slow_stop_timeout_secs: req.slow_stop_timeout_secs,
        },
    };
    let classification = classify(listing.servers, req.released_at, now, &model);

    // 3. Report.
    let facts = StatusFacts {
        hub_url: &req.hub_url,
        digest: None,
        released_at: req.released_at,
        now,
        classification: &classification,
        shifted: listing.shifted,
        include_names: req.include_names,
    };
    if req.json {
        print!("{}", report::json(&facts));
    } else {
        print!("{}", report::table(&facts));
    }
    let files = FileCommands::from_env();
    files.write_outputs(&report::outputs(&classification.totals))?;
    files.write_summary(&report::job_summary(&facts)?)?;
    Ok(())
}
