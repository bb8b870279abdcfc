//! Stage 2's edge: which pull requests are behind the release, by event type.
//!
//! `pull_request`: the payload's PR. Other events: none yet (counted as unlabeled).

use crate::context::RunContext;
use crate::github::GitHub;
use crate::tier::Evidence;
use anyhow::Result;

/// Finds the evidence tier resolution needs for this run's event.
///
/// `github` is `None` in a dry run without a token; look-ups that need it are skipped.
///
/// # Errors
/// A look-up that failed (never silently treated as "unlabeled").
pub async fn evidence(ctx: &RunContext, _github: Option<&GitHub>) -> Result<Evidence> {
    match (ctx.event_name.as_str(), &ctx.event.pull_request) {
        ("pull_request" | "pull_request_target", Some(pr)) => {
            Ok(Evidence::PullRequests(vec![pr.to_pull_request()]))
        }
        ("", _) => Ok(Evidence::NoPullRequest(
            "local (no GITHUB_EVENT_NAME)".into(),
        )),
        (name, _) => Ok(Evidence::NoPullRequest(name.to_string())),
    }
}
