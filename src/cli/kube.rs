//! `status`'s Kubernetes options (flattened into [`super::StatusArgs`]): whether to judge by
//! digest, the credentials, where the hub's pods are, and the alarms a run fails on.
//!
//! Kubernetes is opt-in: without `kubeconfig` and without `kubernetes: on`, `status` reads
//! only the hub and says that convergence is inferred from start times. Not inferred from
//! the environment: a runner inside a cluster always has `KUBERNETES_SERVICE_HOST` and a
//! laptop often has a `~/.kube/config` for another cluster, and neither means "read this
//! hub's pods"; a workflow that ran yesterday must not fail today on RBAC it never needed.

use super::inputs;
use super::usage::{Problem, Rule};
use super::value::{EnumList, enum_list_parser, enum_parser};
use super::{Checked, DurationParser, InputDuration, UsageError, usage};
use crate::status::classify::Alarm;
use crate::status::kube::{Credentials, KubeRequest, PodQuery};
use crate::status::report::kube_error;
use crate::support::log::Log;
use clap::Args;
use secrecy::{ExposeSecret, SecretString};
use std::collections::HashMap;

/// `kubernetes`: whether `status` reads the pods' image digests from Kubernetes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum KubernetesMode {
    /// Read the pods: credentials from `kubeconfig`, else `KUBECONFIG` or `~/.kube/config`,
    /// else the in-cluster service account.
    On,
    /// Judge by start time only (inferred).
    Off,
}

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
    #[arg(long, env, hide_env_values = true, allow_hyphen_values = true, value_parser = inputs::secret_arg, value_name = "YAML")]
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

/// Registers a kubeconfig's secrets with `log`: each user's token, password and client key
/// ([`crate::status::kube::kubeconfig_secrets`]), not the whole file (its lines, such as
/// `apiVersion: v1`, would hide the same words everywhere in the log). A kubeconfig that
/// does not parse is masked whole, line by line: it may hold a token where none is expected.
pub(crate) fn mask_kubeconfig(log: &Log, content: &str) {
    let secrets = crate::status::kube::kubeconfig_secrets(content);
    if secrets.is_empty() && crate::status::kube::parses(content).is_err() {
        log.mask(content);
    }
    for secret in secrets {
        log.mask(&secret);
    }
}

/// An alarm's `fail-on` word (its value name).
fn alarm_word(alarm: Alarm) -> String {
    use clap::ValueEnum;
    alarm
        .to_possible_value()
        .map(|v| v.get_name().to_string())
        .unwrap_or_default()
}

impl KubeArgs {
    /// The alarms of `fail-on`, in the order given; none when it is not set.
    pub(crate) fn alarms(&self) -> Vec<Alarm> {
        self.fail_on
            .as_ref()
            .map(|l| l.0.clone())
            .unwrap_or_default()
    }

    /// Refuses, before anything is read, credentials that cannot work: a `kubeconfig` that
    /// does not parse or needs a plugin, or none to find at all.
    fn credentials_usable(
        &self,
        kubeconfig: Option<&SecretString>,
        env: &HashMap<String, String>,
    ) -> Result<(), UsageError> {
        let namespace = self.namespace.0.as_str();
        if let Some(content) = kubeconfig {
            return crate::status::kube::check_kubeconfig(
                content.expose_secret(),
                crate::status::kube::KUBECONFIG_INPUT,
            )
            .map(|_| ())
            .map_err(|e| usage("kubeconfig")(anyhow::anyhow!(kube_error(&e, namespace))));
        }
        let set = |name: &str| env.get(name).is_some_and(|v| !v.trim().is_empty());
        let home_config = env
            .get("HOME")
            .filter(|h| !h.is_empty())
            .is_some_and(|h| std::path::Path::new(h).join(".kube/config").exists());
        if set("KUBECONFIG") || home_config || set("KUBERNETES_SERVICE_HOST") {
            return Ok(());
        }
        let e = crate::status::kube::KubeError::NoCredentials {
            kubeconfig: "KUBECONFIG, ~/.kube/config".into(),
        };
        Err(usage("kubeconfig")(anyhow::anyhow!(kube_error(
            &e, namespace
        ))))
    }

    /// The Kubernetes request, or `None` when Kubernetes is off. Masks the kubeconfig's
    /// secrets (each user's token, password, client key) with `log` first.
    ///
    /// # Errors
    /// [`UsageError`] for `kubernetes: off` with a `kubeconfig`, for `fail-on` naming
    /// `mismatch` or `orphan` while Kubernetes is off (those alarms need the pods), and for a namespace or Helm
    /// release that is not a Kubernetes name ([`inputs::namespace`], [`inputs::helm_release`]);
    /// for a `kubeconfig` that does not parse or whose user needs a credential plugin
    /// ([`crate::status::kube::check_kubeconfig`]); and for `kubernetes: on` without
    /// `kubeconfig` when `env` has no `KUBECONFIG`, `HOME` has no `.kube/config` and
    /// `KUBERNETES_SERVICE_HOST` is unset (no credentials to find). A `KUBECONFIG` file or an
    /// in-cluster service account is only read later (a failure there exits 1).
    pub fn request(
        &self,
        log: &Log,
        env: &HashMap<String, String>,
    ) -> Result<Option<KubeRequest>, UsageError> {
        if let Some(content) = &self.kubeconfig {
            mask_kubeconfig(log, content.expose_secret());
        }
        let kubeconfig = self
            .kubeconfig
            .as_ref()
            .filter(|c| !c.expose_secret().trim().is_empty());
        let on = match (self.kubernetes, kubeconfig) {
            (Some(KubernetesMode::Off), Some(_)) => {
                let problem = Problem::Rule(Rule::KubernetesOffWithKubeconfig);
                return Err(UsageError::new("kubernetes", problem));
            }
            (Some(KubernetesMode::Off), None) | (None, None) => false,
            (Some(KubernetesMode::On), _) | (None, Some(_)) => true,
        };
        if on {
            self.credentials_usable(kubeconfig, env)?;
        } else {
            return match self
                .alarms()
                .into_iter()
                .find(|a| matches!(a, Alarm::Mismatch | Alarm::Orphan))
            {
                Some(alarm) => Err(UsageError::new(
                    "fail-on",
                    Problem::AlarmWithoutKubernetes(alarm_word(alarm)),
                )),
                None => Ok(None),
            };
        }
        Ok(Some(KubeRequest {
            credentials: kubeconfig
                .map_or(Credentials::Infer, |c| Credentials::Kubeconfig(c.clone())),
            query: PodQuery {
                namespace: self.namespace.0.clone(),
                release: self.helm_release.0.clone(),
            },
            timeout: self.kube_timeout.get(),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
