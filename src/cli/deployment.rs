//! The `environment` option of `announce` and `status`: the GitHub environment whose
//! deployment of the release codeq-rollout keeps ([`crate::publish::deployment`]).

use crate::publish::deployment::Environment;
use clap::Args;

/// The deployment options, flattened into `announce`'s and `status`'s.
#[derive(Debug, Clone, Args)]
pub struct DeploymentArgs {
    /// GitHub environment to record the rollout in as a deployment of the release's commit, e.g. jupyterhub-prod (needs `deployments: write`); one per hub [default: none, no deployment]
    #[arg(long, env, value_name = "NAME", value_parser = environment_arg)]
    pub environment: Option<Environment>,
}

/// `environment` as a clap value parser ([`Environment::parse`]: GitHub's rules).
///
/// # Errors
/// The rule the name breaks, in words.
fn environment_arg(text: &str) -> Result<Environment, String> {
    Environment::parse(text).map_err(|e| e.to_string())
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
        assert!(err.contains("255 characters"), "{err}");
        assert!(
            Cli::try_parse_from(["x"])
                .unwrap()
                .deployment
                .environment
                .is_none()
        );
    }
}
