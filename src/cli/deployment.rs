//! The `environment` option of `announce` and `status`: the GitHub environment whose
//! deployment of the release codeq-rollout keeps ([`crate::publish::deployment`]).

use super::{Checked, UsageError};
use crate::publish::deployment::Environment;
use clap::Args;

/// The most characters of a refused name echoed (as the other refusals cap theirs).
const SHOWN_MAX_CHARS: usize = 100;

/// The deployment options, flattened into `announce`'s and `status`'s.
#[derive(Debug, Clone, Args)]
pub struct DeploymentArgs {
    /// GitHub environment to record the rollout in as a deployment of the release's commit, e.g. jupyterhub-prod (needs `deployments: write`); one per hub [default: none, no deployment]
    #[arg(long, env, value_name = "NAME", value_parser = Checked(environment_arg))]
    pub environment: Option<Environment>,
}

/// `environment` as a clap value parser ([`Environment::parse`]: GitHub's rules). A blank
/// Action input never reaches it: blank inputs count as unset ([`super`]).
///
/// # Errors
/// The rule the name breaks, in words, with the name quoted (escaped, at most
/// [`SHOWN_MAX_CHARS`] characters).
fn environment_arg(text: &str) -> Result<Environment, UsageError> {
    Environment::parse(text).map_err(|e| {
        let shown = crate::support::sanitize::cap(text.trim(), SHOWN_MAX_CHARS);
        super::usage::refused("environment", Some(&shown), super::usage::Said::Named, e)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        deployment: DeploymentArgs,
    }

    #[test]
    fn an_environment_is_checked_by_githubs_rules() {
        let parsed = Cli::try_parse_from(["x", "--environment", "jupyterhub-prod"]).unwrap();
        assert_eq!(
            parsed.deployment.environment.map(|e| e.to_string()),
            Some("jupyterhub-prod".to_string())
        );
        let long = "e".repeat(256);
        let err = Cli::try_parse_from(["x", "--environment", &long])
            .err()
            .unwrap()
            .to_string();
        let shown = format!("\"{}…\"", "e".repeat(SHOWN_MAX_CHARS - 1));
        assert_eq!(
            err.lines().next().unwrap(),
            format!(
                "error: environment (--environment) {shown} is longer than GitHub's limit of 255 characters for an environment name"
            )
        );
        let err = Cli::try_parse_from(["x", "--environment", "prod\u{202e}ue"])
            .err()
            .unwrap()
            .to_string();
        assert_eq!(
            err.lines().next().unwrap(),
            "error: environment (--environment) \"prod\\u{202e}ue\" holds an invisible character (a bidirectional control or a zero-width one), which makes a name read as another: type the name"
        );
        assert!(
            Cli::try_parse_from(["x"])
                .unwrap()
                .deployment
                .environment
                .is_none()
        );
    }
}
