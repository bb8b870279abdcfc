//! `status`'s Kubernetes options (flattened into [`super::StatusArgs`]): whether to judge by
//! digest, the kubeconfig and its context, where the hub's pods are, and the alarms a run
//! fails on.

use super::inputs;
use super::usage::{Problem, Rule};
use super::value::{EnumList, bool_parser, enum_list_parser};
use super::{DurationParser, InputDuration, UsageError, checked};
use crate::status::classify::Alarm;
use crate::status::kube::{Credentials, KubeError, KubeInputs, KubeRequest, resolve};
use crate::support::log::Log;
use clap::{Args, ValueEnum};
use secrecy::{ExposeSecret, SecretString};
use std::collections::HashMap;
use std::sync::Arc;

/// Whether a `--kubeconfig` value is a kubeconfig's content rather than a path: it spans
/// lines, or it names no file and reads as YAML or JSON (a `{`, or a `key: value`), as
/// `kubectl config view --raw -o json | jq -c` prints it. Such a value is a secret: never
/// echoed as a path that does not exist.
pub(crate) fn is_content(value: &str) -> bool {
    let one_line = value.trim();
    value.contains('\n')
        || (!std::path::Path::new(one_line).exists()
            && (one_line.starts_with('{') || one_line.contains(": ")))
}

/// The Kubernetes options of `status`. The kubeconfig is a [`SecretString`]: `Debug` never
/// shows it.
#[derive(Debug, Clone, Args)]
pub(crate) struct KubeArgs {
    /// Judge convergence by each pod's image digest, read from Kubernetes (true), or infer it from start times (false) [default: true when a kubeconfig is given, else false]
    #[arg(long, env, value_parser = bool_parser(), num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    pub(crate) kubernetes: Option<bool>,
    /// The kubeconfig file to read, as kubectl's --kubeconfig [default: the files KUBECONFIG lists, else ~/.kube/config, else the in-cluster service account]. The Action input takes the file's whole content (a secret), and so does a value of several lines. Its user needs a token or client certificate: the image has no credential plugins
    // allow_hyphen_values: content may begin with YAML's `---`; without it clap takes the
    // content for an unknown option and echoes it whole.
    #[arg(long, env, hide_env_values = true, allow_hyphen_values = true, value_parser = checked(inputs::secret_arg), value_name = "PATH")]
    pub(crate) kubeconfig: Option<SecretString>,
    /// The kubeconfig's context to read, as kubectl's --context [default: its current-context]
    #[arg(long, env, value_name = "NAME", value_parser = checked(|t| Ok(t.to_string())))]
    pub(crate) context: Option<String>,
    /// The hub's namespace and Helm release (the runbook's).
    #[command(flatten)]
    pub(crate) names: super::HubNames,
    /// Timeout of each Kubernetes request, e.g. 30s, at most 6h
    #[arg(long, env, default_value = "30s", value_name = "DURATION", allow_hyphen_values = true, value_parser = DurationParser::timeout(std::time::Duration::from_secs(1), "30"))]
    pub(crate) kube_timeout: InputDuration,
    /// Fail the run (exit 1, with an error annotation and the job summary saying why) when these alarms fire: mismatch (a server started after the release runs the old digest), overdue (a stale server past its deadline), orphan (a single-user pod the hub does not list); comma- or newline-separated
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

    /// The Kubernetes request, or `None` when Kubernetes is off: on with `kubernetes: true`,
    /// else when a kubeconfig is given (never blank: the Action's blank input is unset, the
    /// command line's refused by its value parser). Not inferred from the environment: a runner inside a cluster always has
    /// `KUBERNETES_SERVICE_HOST` and a laptop often has a `~/.kube/config` for another
    /// cluster, and neither means "read this hub's pods". The kubeconfig is the file's
    /// content when it came from the Action input (`INPUT_KUBECONFIG` in `env`, the process
    /// environment) or spans lines, else a path. Logs which namespace and context are read,
    /// and warns about a cluster reached over plain HTTP or without checking its
    /// certificate; registers a kubeconfig file's secrets with `log` (as [`super::mask_secret_inputs`] does).
    ///
    /// # Errors
    /// [`UsageError`], before anything is read: `kubernetes: false` with a kubeconfig; with
    /// Kubernetes off, `fail-on` naming an alarm that needs the pods; credentials that
    /// cannot work ([`resolve`]), naming `context` for a context it lacks, `namespace` for
    /// a context's namespace that is no name, else `kubeconfig`.
    pub(crate) fn request(
        &self,
        log: &Log,
        env: &HashMap<String, String>,
    ) -> Result<Option<KubeRequest>, UsageError> {
        let kubeconfig = self.kubeconfig.as_ref().map(|k| k.expose_secret().trim());
        let on = match (self.kubernetes, kubeconfig) {
            (Some(false), Some(_)) => {
                let problem = Problem::Rule(Rule::KubernetesOffWithKubeconfig);
                return Err(UsageError::new("kubernetes", problem));
            }
            (on, given) => on.unwrap_or(given.is_some()),
        };
        let context = self.context.as_deref().map(str::trim);
        if !on {
            if context.is_some() {
                let warning = crate::render::messages::RunWarning::ContextIgnored(log.in_actions());
                log.warn(&warning);
            }
            let needs_pods = |a: &Alarm| a.rule().needs_pods;
            let Some(alarm) = self.alarms().into_iter().find(needs_pods) else {
                return Ok(None);
            };
            let word = alarm.to_possible_value().map(|v| v.get_name().to_string());
            let off = self.kubernetes == Some(false);
            let problem = Problem::AlarmWithoutKubernetes(word.unwrap_or_default(), off);
            return Err(UsageError::new("fail-on", problem));
        }
        // Content: the Action input's value, or what reads as content ([`is_content`]).
        let given = (self.kubeconfig.as_ref()).is_some_and(|k| is_content(k.expose_secret()));
        let input = env.get("INPUT_KUBECONFIG").map(|v| v.trim());
        let content = |k: &str| given || input == Some(k);
        let inputs = KubeInputs {
            kubeconfig: kubeconfig.map(|k| (k, content(k))),
            context,
            namespace: self.names.namespace.as_ref().map(|n| n.0.as_str()),
            release: &self.names.helm_release.0,
            timeout: self.kube_timeout.get(),
        };
        let request = resolve(inputs, env).map_err(|e| {
            let input = match &e {
                KubeError::NoContext { .. } if inputs.context.is_some() => "context",
                KubeError::ContextNamespace { .. } => "namespace",
                _ => "kubeconfig",
            };
            UsageError::new(input, Problem::Kube(Arc::new(e)))
        })?;
        // Also for the input's content (registered whole before): a `tokenFile`'s token was
        // read into the config only now.
        if let Credentials::Kubeconfig { config, .. } = &request.credentials {
            let secrets = crate::status::kube::kubeconfig_secrets(config);
            secrets.iter().for_each(|s| log.mask(s));
        }
        log.info(&crate::render::kube::reading(&request, log.in_actions()));
        for warning in request.warnings() {
            log.warn(&warning);
        }
        Ok(Some(request))
    }
}

#[cfg(test)]
mod tests;
