//! `status`'s options into a [`StatusRequest`]: every input checked before the hub is asked,
//! so bad input changes nothing and sends nothing.

use super::{StatusArgs, UsageError, inputs, required};
use crate::status::hub::HubClient;
use crate::status::run::StatusRequest;
use crate::support::log::Log;
use crate::window::{parse_hub_size, parse_slow_stop_timeout};
use anyhow::Result;
use secrecy::SecretString;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// `hub-url`'s default in action.yml and for `announce`'s runbook: never a hub to read.
const PLACEHOLDER_HUB_URL: &str = "https://hub.example.org";

/// The `status` request: the hub token registered with `log` first, then every input
/// validated.
///
/// # Errors
/// Bad input, as [`UsageError`] naming the input (exit code 2); an unreadable or malformed
/// values file (exit code 1).
pub fn status_request(args: &StatusArgs, log: &Log) -> Result<StatusRequest> {
    if let Some(token) = &args.hub_token {
        log.mask(token);
    }
    let hub_url = inputs::hub_url(required(
        args.hub_url.as_deref(),
        "hub-url",
        "the hub's address, e.g. https://hub.example.org",
    )?)?;
    if hub_url == PLACEHOLDER_HUB_URL {
        // action.yml's default, there for the runbook of `announce`.
        return Err(UsageError::new(
            "hub-url",
            format!(
                "hub-url is {PLACEHOLDER_HUB_URL}, the placeholder: set hub-url (--hub-url) to your hub's address"
            ),
        )
        .into());
    }
    let token = required(
        args.hub_token.as_deref(),
        "hub-token",
        "a hub API token with scopes list:users and read:servers (see README: the role to create)",
    )?;
    let token = SecretString::from(token.to_string());
    let released_at = time_input(
        required(
            args.released_at.as_deref(),
            "released-at",
            "when the release went live, RFC 3339, e.g. 2026-11-30T12:00:00Z",
        )?,
        "released-at",
    )?;
    let now = args
        .now
        .as_deref()
        .map(|t| time_input(t, "now"))
        .transpose()?;
    let culler = args.culler.settings(log)?.settings;
    let hub_size = args
        .hub_size
        .as_deref()
        .filter(|v| !v.trim().is_empty())
        .map(|v| parse_hub_size("hub-size", v).map_err(|e| UsageError::new("hub-size", e.message)))
        .transpose()?;
    let slow_stop_timeout_secs =
        parse_slow_stop_timeout("slow-stop-timeout", &args.slow_stop_timeout)
            .map_err(|e| UsageError::new("slow-stop-timeout", e.message))?;
    let timeout = crate::support::duration::parse(args.hub_timeout.trim())
        .ok()
        .filter(|t| !t.is_zero())
        .ok_or_else(|| {
            UsageError::new(
                "hub-timeout",
                format!(
                    "hub-timeout (--hub-timeout) {:?} is not a duration of 1 s or more: write seconds (30) or e.g. 30s, 1m",
                    args.hub_timeout.trim()
                ),
            )
        })?;
    let hub = HubClient::new(&hub_url, &token, timeout).map_err(|e| {
        let input = match e {
            crate::status::hub::HubError::InvalidToken => "hub-token",
            _ => "hub-url",
        };
        UsageError::new(input, e.to_string())
    })?;
    Ok(StatusRequest {
        hub,
        hub_url,
        released_at,
        culler,
        hub_size,
        slow_stop_timeout_secs,
        json: args.json,
        include_names: args.include_names,
        now,
    })
}

/// An RFC 3339 time input.
fn time_input(text: &str, input: &str) -> Result<OffsetDateTime, UsageError> {
    OffsetDateTime::parse(text.trim(), &Rfc3339).map_err(|e| {
        UsageError::new(
            input,
            format!(
                "{input} (--{input}) {:?} is not an RFC 3339 time ({e}): write e.g. 2026-11-30T12:00:00Z",
                text.trim()
            ),
        )
    })
}
