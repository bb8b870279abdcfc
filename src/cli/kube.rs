//! `status`'s Kubernetes options (flattened into [`super::StatusArgs`]): whether to judge by
//! digest, the credentials, where the hub's pods are, and the alarms a run fails on.

use super::inputs;
use super::usage::{Problem, Rule};
use super::value::{EnumList, enum_list_parser, enum_parser};
use super::{Checked, DurationParser, InputDuration, UsageError, usage};
use crate::status::classify::Alarm;
use crate::status::kube::{KubeRequest, KubernetesMode, PodQuery, Refusal};
use crate::status::report::kube_error;
use crate::support::log::Log;
use anyhow::anyhow;
use clap::{Args, ValueEnum};
use secrecy::{ExposeSecret, SecretString};
use std::collections::HashMap;

/// The Kubernetes options of `status`. The kubeconfig is a [`SecretString`]: `Debug` never
/// shows it.
#[derive(Debug, Clone, Args)]
pub struct KubeArgs {
    /// Judge convergence by each pod's image digest, read from Kubernetes (on), or infer it from start times (off) [default: on when --kubeconfig is given, else off]
    #[arg(long, env, value_parser = enum_parser::<KubernetesMode>(), value_name = "MODE")]
    pub kubernetes: Option<KubernetesMode>,
    /// A kubeconfig's whole content (a secret; the Action's input, since a path exported by another step is not visible in the action's container). Its user needs a token or client certificate: the image has no credential plugins
    // allow_hyphen_values: a kubeconfig may begin with YAML's `---`; without it clap takes
    // the content for an unknown option and echoes it whole.
    #[arg(long, env, hide_env_values = true, allow_hyphen_values = true, value_parser = Checked(inputs::secret_arg), value_name = "YAML")]
    pub kubeconfig: Option<SecretString>,
    /// Kubernetes namespace of the hub (its single-user pods), as for announce's runbook
    #[arg(long, env, default_value = "jhub", value_parser = Checked(inputs::namespace))]
    pub namespace: inputs::KubeName,
    /// Helm release name of the hub (the pods' release label), as for announce's runbook
    #[arg(long, env, default_value = "jhub", value_parser = Checked(inputs::helm_release))]
    pub helm_release: inputs::KubeName,
    /// Timeout of each Kubernetes request, e.g. 30s, at most 6h
    #[arg(long, env, default_value = "30s", value_name = "DURATION", allow_hyphen_values = true, value_parser = DurationParser::timeout(std::time::Duration::from_secs(1), "30"))]
    pub kube_timeout: InputDuration,
    /// Fail the run (exit 1, with an error annotation) when these alarms fire: mismatch (a server started after the release runs the old digest), overdue (a stale server past its deadline), orphan (a single-user pod the hub does not list); comma- or newline-separated
    #[arg(long, env, value_parser = enum_list_parser::<Alarm>(), value_name = "ALARMS")]
    pub(crate) fail_on: Option<EnumList<Alarm>>,
}

impl KubeArgs {
    /// The alarms of `fail-on`, in the order given; none when it is not set.
    pub(crate) fn alarms(&self) -> Vec<Alarm> {
        self.fail_on
            .as_ref()
            .map(|l| l.0.clone())
            .unwrap_or_default()
    }

    /// The Kubernetes request, or `None` when Kubernetes is off. Masks the kubeconfig's
    /// secrets (each user's token, password, client key) with `log` first.
    ///
    /// # Errors
    /// [`UsageError`] naming the input of each [`Refusal`] before anything is read
    /// (Kubernetes is opt-in: [`crate::status::kube::credentials`], with `env`):
    /// `kubernetes`, `kubeconfig` or `fail-on`. (Clap refuses a bad namespace or Helm release.)
    pub fn request(
        &self,
        log: &Log,
        env: &HashMap<String, String>,
    ) -> Result<Option<KubeRequest>, UsageError> {
        if let Some(content) = &self.kubeconfig {
            crate::status::kube::mask_kubeconfig(log, content.expose_secret());
        }
        let kubeconfig = self.kubeconfig.as_ref();
        let credentials =
            crate::status::kube::credentials(self.kubernetes, kubeconfig, &self.alarms(), env)
                .map_err(|e| self.refused(e))?;
        Ok(credentials.map(|credentials| KubeRequest {
            credentials,
            query: PodQuery {
                namespace: self.namespace.0.clone(),
                release: self.helm_release.0.clone(),
            },
            timeout: self.kube_timeout.get(),
        }))
    }

    /// The [`UsageError`] naming the input at fault, in the words of its [`Refusal`].
    fn refused(&self, refusal: Refusal) -> UsageError {
        match refusal {
            Refusal::OffWithKubeconfig => {
                let problem = Problem::Rule(Rule::KubernetesOffWithKubeconfig);
                UsageError::new("kubernetes", problem)
            }
            Refusal::AlarmNeedsPods(alarm) => {
                let word = alarm.to_possible_value().map(|v| v.get_name().to_string());
                let problem = Problem::AlarmWithoutKubernetes(word.unwrap_or_default());
                UsageError::new("fail-on", problem)
            }
            Refusal::Unusable(e) => {
                let words = kube_error(&e, &self.namespace.0);
                usage("kubeconfig")(anyhow!(words))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::status::kube::{Credentials, mask_kubeconfig};

    pub(super) const KUBECONFIG: &str = "apiVersion: v1
kind: Config
clusters:
  - name: hub
    cluster: {server: https://127.0.0.1:6443}
users:
  - name: reader
    user: {token: sa-token-0123456789}
contexts:
  - name: hub
    context: {cluster: hub, user: reader}
current-context: hub
";

    #[test]
    fn a_kubeconfig_is_masked_by_its_secrets_not_its_every_line() {
        let log = Log::new(false, false);
        mask_kubeconfig(&log, KUBECONFIG);
        assert_eq!(
            log.redact("token sa-token-0123456789 in apiVersion: v1, kind: Config"),
            "token *** in apiVersion: v1, kind: Config"
        );
        let log = Log::new(false, false);
        let broken = "users: [{user: {token: broken-0123456789}";
        mask_kubeconfig(&log, broken);
        assert!(!log.redact(broken).contains("broken-0123456789"));
    }

    #[test]
    fn kubernetes_is_off_unless_asked_for_and_off_with_a_kubeconfig_is_refused() {
        use clap::Parser;
        #[derive(Parser)]
        struct Cli {
            #[command(flatten)]
            kube: KubeArgs,
        }
        let in_cluster: HashMap<String, String> = [(
            "KUBERNETES_SERVICE_HOST".to_string(),
            "10.0.0.1".to_string(),
        )]
        .into();
        let parse = |args: &[&str]| {
            let cli =
                Cli::try_parse_from(std::iter::once("x").chain(args.iter().copied())).unwrap();
            cli.kube.request(&Log::new(false, false), &in_cluster)
        };
        assert!(parse(&[]).unwrap().is_none());
        assert!(parse(&["--kubernetes", "off"]).unwrap().is_none());
        let on = parse(&["--kubeconfig", KUBECONFIG, "--namespace", "hub-ns"])
            .unwrap()
            .unwrap();
        assert!(matches!(on.credentials, Credentials::Kubeconfig(_)));
        assert_eq!(
            on.query.selector(),
            "component=singleuser-server,release=jhub"
        );
        assert_eq!(on.query.namespace, "hub-ns");
        assert!(matches!(
            parse(&["--kubernetes", "on"]).unwrap().unwrap().credentials,
            Credentials::Infer
        ));
        let refused = parse(&["--kubernetes", "off", "--kubeconfig", KUBECONFIG]).unwrap_err();
        assert!(
            refused
                .to_string()
                .contains("kubernetes is off but kubeconfig is given"),
            "{refused}"
        );
        // A bad namespace is refused where clap reads it (a usage error naming the input).
        assert!(Cli::try_parse_from(["x", "--kubernetes", "on", "--namespace", "Bad_NS"]).is_err());
        // Alarms that need the pods are refused with Kubernetes off (an empty kubeconfig
        // secret means off); overdue works without Kubernetes.
        for args in [
            &["--fail-on", "mismatch,orphan"][..],
            &["--fail-on", "overdue,orphan", "--kubeconfig", " "],
        ] {
            let refused = parse(args).unwrap_err();
            assert_eq!(refused.input, "fail-on");
            assert!(
                refused.to_string().contains("Kubernetes is off"),
                "{refused}"
            );
            assert!(refused.to_string().contains("kubeconfig"), "{refused}");
        }
        assert!(parse(&["--fail-on", "overdue"]).unwrap().is_none());
        assert!(
            parse(&["--fail-on", "mismatch", "--kubernetes", "on"])
                .unwrap()
                .is_some()
        );
        let cli = Cli::try_parse_from(["x", "--fail-on", "mismatch,orphan"]).unwrap();
        assert_eq!(cli.kube.alarms(), [Alarm::Mismatch, Alarm::Orphan]);
        // Newline-separated as other list inputs (an Action input's block scalar).
        let cli =
            Cli::try_parse_from(["x", "--fail-on", "mismatch\n Overdue\r\norphan\n"]).unwrap();
        assert_eq!(
            cli.kube.alarms(),
            [Alarm::Mismatch, Alarm::Overdue, Alarm::Orphan]
        );
        assert!(Cli::try_parse_from(["x", "--fail-on", "mismatch\nlate"]).is_err());
        assert!(Cli::try_parse_from(["x", "--fail-on", "late"]).is_err());
    }
}

#[cfg(test)]
mod refused {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        kube: KubeArgs,
    }

    fn request(args: &[&str], env: &[(&str, &str)]) -> Result<Option<KubeRequest>, UsageError> {
        let cli = Cli::try_parse_from(std::iter::once("x").chain(args.iter().copied())).unwrap();
        let env = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        cli.kube.request(&Log::new(false, false), &env)
    }

    #[test]
    fn unusable_kubernetes_credentials_are_a_usage_error_before_anything_is_read() {
        let exec = tests_kubeconfig().replace(
            "user: {token: sa-token-0123456789}",
            "user: {exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: aws}}",
        );
        let plugin = request(&["--kubeconfig", &exec], &[]).unwrap_err();
        assert_eq!(plugin.input, "kubeconfig");
        let malformed = request(&["--kubeconfig", "clusters: [ nope"], &[]).unwrap_err();
        assert_eq!(malformed.input, "kubeconfig");
        let home = tempfile::tempdir().unwrap();
        let home = home.path().to_str().unwrap();
        let none = request(&["--kubernetes", "on"], &[("HOME", home)]).unwrap_err();
        assert_eq!(none.input, "kubeconfig");
        insta::assert_snapshot!(format!(
            "{}\n---\n{}\n---\n{}",
            plugin.to_string(),
            malformed.to_string(),
            none.to_string()
        ));
        // Credentials found later (in the cluster, KUBECONFIG) are not refused here.
        assert!(
            request(
                &["--kubernetes", "on"],
                &[("KUBERNETES_SERVICE_HOST", "10.0.0.1")]
            )
            .is_ok()
        );
        assert!(request(&["--kubernetes", "on"], &[("KUBECONFIG", "/nowhere")]).is_ok());
        assert!(request(&["--kubeconfig", &tests_kubeconfig()], &[]).is_ok());
        // A file that begins with YAML's document marker is a value, not an unknown option.
        let marked = format!("---\n{}", tests_kubeconfig());
        assert!(request(&["--kubeconfig", &marked], &[]).is_ok());
    }

    fn tests_kubeconfig() -> String {
        super::tests::KUBECONFIG.to_string()
    }
}
