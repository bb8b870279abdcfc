//! I/O, the Kubernetes edge of `status` (read-only): which image each single-user pod runs.
//!
//! One listing is `GET /api/v1/namespaces/<namespace>/pods` with the runbook's selector
//! `component=singleuser-server,release=<helm release>` sent to the API server
//! (`labelSelector`, so unrelated pods never cross the wire), `limit=500`, then `continue`
//! with the token of each page until it is empty: `ceil(pods / 500)` requests. A `410 Gone`
//! (the continue token expired, Kubernetes `apiserver/pkg/storage/etcd3` "The provided
//! continue parameter is too old") restarts the list from the first page once; a second one
//! is an error. Only the verb `list` on `pods` is needed (the smallest Role:
//! docs/status-kubernetes.md).
//!
//! Of each pod only [`Pod`]'s fields are kept: its name, the annotations
//! `hub.jupyter.org/username` and `hub.jupyter.org/servername` (KubeSpawner 7.0
//! `kubespawner/spawner.py`, `_build_common_annotations`), the `notebook` container's
//! `imageID` (z2jh's container name) and the pod's start time.
//!
//! Credentials, as Kubernetes users have them ([`Credentials`]): the content of a kubeconfig
//! (the Action's `kubeconfig` input: a path another step exports in `KUBECONFIG` is not
//! visible inside a Docker action's container), the kubeconfig of `KUBECONFIG` or
//! `~/.kube/config`, or the in-cluster service account (`KUBERNETES_SERVICE_HOST`, the token
//! and CA under `/var/run/secrets/kubernetes.io/serviceaccount/`). The image ships no
//! credential plugin: a kubeconfig user with an `exec` plugin (gke-gcloud-auth-plugin,
//! `aws eks get-token`, kubelogin) or an `auth-provider` is refused before any request
//! ([`KubeError::ExecPlugin`]).
//!
//! TLS is rustls with ring (kube's `rustls-tls` and `ring` features; the process default
//! provider is ring, [`crate::support::tls::install_provider`]).

use super::Pod;
use super::classify::Alarm;
use kube::config::{KubeConfigOptions, Kubeconfig, KubeconfigError};
use kube::{Client, Config};
use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

/// How a kubeconfig given as content (the `kubeconfig` input) is named in errors; a file's
/// errors name its path instead.
pub(crate) const KUBECONFIG_INPUT: &str = "the kubeconfig input";

/// The page size of a pod listing (`limit`).
pub(crate) const PAGE_LIMIT: u32 = 500;

/// The most pages one listing reads (500,000 pods at [`PAGE_LIMIT`]), so that an API server
/// or a proxy that never stops sending `continue` tokens cannot keep `status` running.
pub(crate) const MAX_PAGES: u32 = 1_000;

/// The annotation holding the hub's user name (KubeSpawner).
pub(crate) const USERNAME_ANNOTATION: &str = "hub.jupyter.org/username";
/// The annotation holding the server's name, empty for the default server (KubeSpawner).
pub(crate) const SERVERNAME_ANNOTATION: &str = "hub.jupyter.org/servername";
/// The single-user container's name in z2jh's pods.
pub(crate) const NOTEBOOK_CONTAINER: &str = "notebook";

/// Where the Kubernetes credentials come from.
#[derive(Debug, Clone)]
pub enum Credentials {
    /// A kubeconfig's content (the `kubeconfig` input, a secret).
    Kubeconfig(SecretString),
    /// `KUBECONFIG` or `~/.kube/config` when present, else the in-cluster service account.
    Infer,
}

/// What to list: the hub's namespace and its Helm release (the runbook's `namespace` and
/// `helm-release` inputs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodQuery {
    /// The hub's namespace.
    pub namespace: String,
    /// The hub's Helm release name (the pods' `release` label).
    pub release: String,
}

impl PodQuery {
    /// The label selector sent to the API server: `component=singleuser-server,release=<release>`.
    pub fn selector(&self) -> String {
        format!("component=singleuser-server,release={}", self.release)
    }
}

/// A checked Kubernetes request ([`crate::cli::status_request`] builds it): where to read
/// pods and with what.
#[derive(Debug, Clone)]
pub struct KubeRequest {
    /// The credentials.
    pub credentials: Credentials,
    /// The namespace and Helm release.
    pub query: PodQuery,
    /// Each request's timeout.
    pub timeout: Duration,
}

/// A failed Kubernetes read, as data: the words (`Display`) and what to do are the report's
/// ([`crate::status::report::kube_error`]).
#[derive(Debug)]
pub(crate) enum KubeError {
    /// The kubeconfig cannot be read or parsed (its loader's words; never its content).
    Kubeconfig {
        /// Where it came from: `the kubeconfig input`, a path.
        source_name: String,
        /// What is wrong, in kube's words.
        detail: String,
    },
    /// The kubeconfig's user needs a credential plugin, which the image does not have.
    ExecPlugin {
        /// The kubeconfig user's name.
        user: String,
        /// The `exec` command (or `auth-provider` name).
        command: String,
    },
    /// No kubeconfig and not in a cluster.
    NoCredentials {
        /// The kubeconfig path looked for.
        kubeconfig: String,
    },
    /// 401: the API server does not accept the credentials.
    Unauthorized {
        /// The API server's URL.
        server: String,
        /// The API server's message (a `Status` object's).
        server_message: String,
    },
    /// 403: RBAC denies `list` on `pods` in the namespace.
    Forbidden {
        /// The API server's URL.
        server: String,
        /// The namespace asked.
        namespace: String,
        /// The API server's message (`pods is forbidden: User "…" cannot list resource …`).
        server_message: String,
    },
    /// A second `410 Gone` after the restart.
    Expired {
        /// The API server's message.
        server_message: String,
    },
    /// Any other error answer.
    Status {
        /// The API server's URL.
        server: String,
        /// HTTP status code.
        code: u16,
        /// The `Status` object's `reason`.
        reason: String,
        /// The `Status` object's `message`.
        server_message: String,
    },
    /// No answer within `kube-timeout` (connecting, or reading the answer).
    TimedOut {
        /// The API server's URL.
        server: String,
        /// The timeout (`kube-timeout`).
        timeout: Duration,
    },
    /// An answer that is not a `v1` `PodList` (another `kind`, no `items`, a field of the
    /// wrong type, a start time that is not RFC 3339): a proxy or another server answering.
    NotAPodList {
        /// The API server's URL.
        server: String,
        /// What is wrong with it, one line (the decoder's words or the field).
        detail: String,
    },
    /// Pages without an end: a `continue` token repeated, or more than [`MAX_PAGES`] pages.
    EndlessList {
        /// The API server's URL.
        server: String,
        /// Pages read before giving up.
        pages: u32,
    },
    /// No answer (DNS, refused, TLS).
    Unreachable {
        /// The API server's URL.
        server: String,
        /// The transport's or decoder's words, one line.
        cause: String,
    },
}

impl std::error::Error for KubeError {}

/// A read-only client of the hub's pods.
pub(crate) struct KubeClient {
    client: Client,
    server: String,
    timeout: Duration,
}

/// One listing of the single-user pods.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PodListing {
    /// The pods, as listed.
    pub pods: Vec<Pod>,
    /// Requests sent (each page one; a restart after 410 counted).
    pub requests: u32,
    /// Whether the listing restarted after a `410 Gone`.
    pub restarted: bool,
}

impl std::fmt::Debug for KubeClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KubeClient")
            .field("server", &self.server)
            .finish_non_exhaustive()
    }
}

/// Registers a kubeconfig's secrets with `log` ([`kubeconfig_secrets`]: each user's token,
/// password and client key; the whole content when it does not parse).
pub(crate) fn mask_kubeconfig(log: &crate::support::log::Log, content: &str) {
    for secret in kubeconfig_secrets(content) {
        log.mask(&secret);
    }
}

/// The secrets of a kubeconfig's users (tokens, passwords, client keys), which the caller
/// masks in the Actions log before anything else runs; not the whole file (its lines, such
/// as `apiVersion: v1`, would hide the same words everywhere in the log). The whole content
/// when it does not parse: it may hold a token where none is expected.
pub(crate) fn kubeconfig_secrets(content: &str) -> Vec<String> {
    let Ok(config) = Kubeconfig::from_yaml(content) else {
        return vec![content.to_string()];
    };
    let mut out = Vec::new();
    for auth in config
        .auth_infos
        .iter()
        .filter_map(|a| a.auth_info.as_ref())
    {
        for secret in [&auth.token, &auth.password, &auth.client_key_data]
            .into_iter()
            .flatten()
        {
            out.push(secret.expose_secret().to_string());
        }
    }
    out
}

fn kubeconfig_error(source_name: &str, e: impl std::fmt::Display) -> KubeError {
    KubeError::Kubeconfig {
        source_name: source_name.to_string(),
        detail: one_line(&without_values(&e.to_string())),
    }
}

/// A kubeconfig loader's message without the values it quotes: a parse error may quote the
/// very token (`invalid type: string "…", expected struct AuthInfo` for `user: <token>`).
/// Keeps the path, line, column and the kind of value (serde's `invalid type: string`);
/// drops every quoted (`"…"`, `` `…` ``) span (serde's quotes of values; the YAML scanner's
/// `','` of syntax stay) and the value after `invalid type:` or
/// `invalid value:` up to `, expected`.
fn without_values(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(i) = rest.find(['"', '`']) {
        out.push_str(&rest[..i]);
        let quote = rest[i..].chars().next().unwrap_or('"');
        let after = &rest[i + quote.len_utf8()..];
        match after.find(quote) {
            Some(end) => {
                out.push_str("(value left out)");
                rest = &after[end + quote.len_utf8()..];
            }
            None => {
                out.push_str("(value left out)");
                rest = "";
            }
        }
    }
    out.push_str(rest);
    for marker in ["invalid type: ", "invalid value: "] {
        if let Some(start) = out.find(marker) {
            let from = start + marker.len();
            let end = out[from..]
                .find(", expected")
                .map_or(out.len(), |e| from + e);
            // The kind of value (`string`, `integer`, `map`) is its first word.
            let kind = out[from..end]
                .split_whitespace()
                .next()
                .filter(|w| w.chars().all(|c| c.is_ascii_alphabetic()))
                .unwrap_or("value")
                .to_string();
            out.replace_range(from..end, &kind);
        }
    }
    out
}

/// Parses a kubeconfig's content, resolves its current context ([`current_context`]) and
/// refuses a user with a credential plugin, as [`KubeClient::new`] does, before anything is
/// sent: `source_name` names it in the error.
///
/// # Errors
/// [`KubeError::Kubeconfig`] (the loader's words without the values it quotes),
/// [`KubeError::ExecPlugin`].
pub(crate) fn check_kubeconfig(content: &str, source_name: &str) -> Result<Kubeconfig, KubeError> {
    let config = Kubeconfig::from_yaml(content).map_err(|e| kubeconfig_error(source_name, e))?;
    current_context(&config).map_err(|e| kubeconfig_error(source_name, e))?;
    refuse_plugins(&config)?;
    Ok(config)
}

/// The kubeconfig's current context resolved as kube 3.1's loader resolves it when the
/// client is made (`kube-client` `config/file_loader.rs`, `ConfigLoader::load_from_kubeconfig`,
/// private there): `current-context` set, naming a context, whose cluster is listed. A
/// missing user is no error there (client-go's rule, kube-rs issue 1594), nor here.
///
/// # Errors
/// The loader's own [`KubeconfigError`]s, so the words match a failure at connect time.
fn current_context(config: &Kubeconfig) -> Result<(), KubeconfigError> {
    let name = (config.current_context.as_ref()).ok_or(KubeconfigError::CurrentContextNotSet)?;
    let context = (config.contexts.iter())
        .find(|c| &c.name == name)
        .and_then(|c| c.context.as_ref())
        .ok_or_else(|| KubeconfigError::LoadContext(name.clone()))?;
    (config.clusters.iter())
        .find(|c| c.name == context.cluster)
        .and_then(|c| c.cluster.as_ref())
        .map(|_| ())
        .ok_or_else(|| KubeconfigError::LoadClusterOfContext(context.cluster.clone()))
}

/// Where credentials are looked for without a kubeconfig's content, as errors name them.
const LOOKED_FOR: &str = "KUBECONFIG, ~/.kube/config";

/// `kubernetes`: whether `status` reads the pods' image digests from Kubernetes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum KubernetesMode {
    /// Read the pods: credentials from `kubeconfig`, else `KUBECONFIG` or `~/.kube/config`,
    /// else the in-cluster service account.
    On,
    /// Judge by start time only (inferred).
    Off,
}

/// Kubernetes options refused before anything is read ([`credentials`]), as data.
#[derive(Debug)]
pub(crate) enum Refusal {
    /// `kubernetes: off` with a kubeconfig's content.
    OffWithKubeconfig,
    /// With Kubernetes off, an alarm that needs the pods (`mismatch`, `orphan`): the first
    /// given.
    AlarmNeedsPods(Alarm),
    /// Credentials that cannot work ([`credentials_usable`]).
    Unusable(KubeError),
}

/// The credentials `status` reads the pods with, `None` when it does not read them: with
/// `mode` (the `kubernetes` input) when given, else when a `kubeconfig`'s content is given
/// (a blank one counts as none: an Action's unset secret).
///
/// Kubernetes is opt-in: without `kubeconfig` and without `kubernetes: on`, `status` reads
/// only the hub and says that convergence is inferred from start times. Not inferred from
/// the environment: a runner inside a cluster always has `KUBERNETES_SERVICE_HOST` and a
/// laptop often has a `~/.kube/config` for another cluster, and neither means "read this
/// hub's pods"; a workflow that ran yesterday must not fail today on RBAC it never needed.
///
/// # Errors
/// [`Refusal::OffWithKubeconfig`] first; then, reading the pods, [`Refusal::Unusable`]
/// ([`credentials_usable`] with `env`); not reading them, [`Refusal::AlarmNeedsPods`] for
/// `alarms` (the `fail-on` input) naming `mismatch` or `orphan`.
pub(crate) fn credentials(
    mode: Option<KubernetesMode>,
    kubeconfig: Option<&SecretString>,
    alarms: &[Alarm],
    env: &HashMap<String, String>,
) -> Result<Option<Credentials>, Refusal> {
    let kubeconfig = kubeconfig.filter(|c| !c.expose_secret().trim().is_empty());
    let on = match (mode, kubeconfig) {
        (Some(KubernetesMode::Off), Some(_)) => return Err(Refusal::OffWithKubeconfig),
        (Some(KubernetesMode::Off), None) | (None, None) => false,
        (Some(KubernetesMode::On), _) | (None, Some(_)) => true,
    };
    if !on {
        return match alarms.iter().find(|a| a.rule().needs_pods) {
            Some(&alarm) => Err(Refusal::AlarmNeedsPods(alarm)),
            None => Ok(None),
        };
    }
    credentials_usable(kubeconfig.map(ExposeSecret::expose_secret), env)
        .map_err(Refusal::Unusable)?;
    Ok(Some(kubeconfig.map_or(Credentials::Infer, |c| {
        Credentials::Kubeconfig(c.clone())
    })))
}

/// Refuses, before anything is read, credentials that cannot work: the content of a
/// `kubeconfig` that does not parse or needs a plugin ([`check_kubeconfig`]); without one,
/// none to find at all in `env` (the process environment): no `KUBECONFIG` (blank counts as
/// unset), no `.kube/config` under `HOME` and no `KUBERNETES_SERVICE_HOST`. A `KUBECONFIG`
/// file or an in-cluster service account is only read by [`KubeClient::new`].
///
/// # Errors
/// [`KubeError::Kubeconfig`], [`KubeError::ExecPlugin`], [`KubeError::NoCredentials`].
fn credentials_usable(
    kubeconfig: Option<&str>,
    env: &HashMap<String, String>,
) -> Result<(), KubeError> {
    if let Some(content) = kubeconfig {
        return check_kubeconfig(content, KUBECONFIG_INPUT).map(|_| ());
    }
    let set = |name: &str| env.get(name).is_some_and(|v| !v.trim().is_empty());
    let home_config = env
        .get("HOME")
        .filter(|h| !h.is_empty())
        .is_some_and(|h| std::path::Path::new(h).join(".kube/config").exists());
    if set("KUBECONFIG") || home_config || set("KUBERNETES_SERVICE_HOST") {
        return Ok(());
    }
    Err(KubeError::NoCredentials {
        kubeconfig: LOOKED_FOR.into(),
    })
}

fn one_line(text: &str) -> String {
    crate::support::sanitize::log_line(text, 300)
}

/// The kubeconfig's user the current context names, refused when it needs a plugin.
fn refuse_plugins(config: &Kubeconfig) -> Result<(), KubeError> {
    let context = config
        .current_context
        .as_deref()
        .and_then(|name| config.contexts.iter().find(|c| c.name == name))
        .and_then(|c| c.context.as_ref());
    let Some(user) = context.and_then(|c| c.user.as_deref()) else {
        return Ok(());
    };
    let auth = config
        .auth_infos
        .iter()
        .find(|a| a.name == user)
        .and_then(|a| a.auth_info.as_ref());
    let plugin = auth.and_then(|a| {
        a.exec
            .as_ref()
            .map(|e| e.command.clone().unwrap_or_default())
            .or_else(|| a.auth_provider.as_ref().map(|p| p.name.clone()))
    });
    match plugin {
        Some(command) => Err(KubeError::ExecPlugin {
            user: one_line(user),
            command: one_line(&command),
        }),
        None => Ok(()),
    }
}

impl KubeClient {
    /// A client for `credentials`, each request bounded by `timeout`. Sends nothing.
    ///
    /// # Errors
    /// [`KubeError::Kubeconfig`] for a kubeconfig that does not parse or names no usable
    /// cluster, [`KubeError::ExecPlugin`] for a user with a credential plugin,
    /// [`KubeError::NoCredentials`] without kubeconfig outside a cluster.
    pub(crate) async fn new(
        credentials: &Credentials,
        timeout: Duration,
    ) -> Result<Self, KubeError> {
        crate::support::tls::install_provider();
        let options = KubeConfigOptions::default();
        let kubeconfig = match credentials {
            Credentials::Kubeconfig(content) => {
                let name = KUBECONFIG_INPUT;
                Some((
                    check_kubeconfig(content.expose_secret(), name)?,
                    name.to_string(),
                ))
            }
            Credentials::Infer => {
                // An empty KUBECONFIG is unset, as for kubectl (a runner in the cluster with
                // `KUBECONFIG: ""` uses its service account).
                let from_env = std::env::var_os("KUBECONFIG").filter(|v| !v.is_empty());
                let given = from_env.is_some();
                let path = from_env.map(std::path::PathBuf::from).or_else(|| {
                    std::env::var_os("HOME")
                        .map(|h| std::path::PathBuf::from(h).join(".kube/config"))
                });
                match path {
                    Some(path) if path.exists() || given => {
                        let name = path.display().to_string();
                        Some((
                            Kubeconfig::read().map_err(|e| kubeconfig_error(&name, e))?,
                            name,
                        ))
                    }
                    _ => None,
                }
            }
        };
        let mut config = match kubeconfig {
            Some((kubeconfig, name)) => {
                refuse_plugins(&kubeconfig)?;
                Config::from_custom_kubeconfig(kubeconfig, &options)
                    .await
                    .map_err(|e| kubeconfig_error(&name, e))?
            }
            None => Config::incluster().map_err(|_| KubeError::NoCredentials {
                kubeconfig: LOOKED_FOR.into(),
            })?,
        };
        config.read_timeout = Some(timeout);
        config.connect_timeout = Some(timeout);
        let server = shown_server(&config.cluster_url.to_string());
        let client = Client::try_from(config).map_err(|e| KubeError::Unreachable {
            server: server.clone(),
            cause: one_line(&e.to_string()),
        })?;
        Ok(Self {
            client,
            server,
            timeout,
        })
    }

    /// The API server's URL as reports show it (no user name, password, query or fragment).
    pub(crate) fn server(&self) -> &str {
        &self.server
    }

    /// Lists the single-user pods of `query` (see the module documentation).
    ///
    /// # Errors
    /// [`KubeError::Unauthorized`] (401), [`KubeError::Forbidden`] (403),
    /// [`KubeError::Expired`] (a second 410), [`KubeError::Status`] (other answers),
    /// [`KubeError::Unreachable`].
    pub(crate) async fn list_pods(&self, query: &PodQuery) -> Result<PodListing, KubeError> {
        let pods = kube::core::Request::new(format!(
            "/api/v1/namespaces/{}/pods",
            percent_encoding::utf8_percent_encode(&query.namespace, PATH_SEGMENT)
        ));
        let selector = query.selector();
        let mut listing = PodListing {
            pods: Vec::new(),
            requests: 0,
            restarted: false,
        };
        let mut token: Option<String> = None;
        let mut tokens = std::collections::HashSet::new();
        loop {
            let mut params = kube::api::ListParams::default()
                .labels(&selector)
                .limit(PAGE_LIMIT);
            if let Some(t) = &token {
                params = params.continue_token(t);
            }
            listing.requests += 1;
            let request = pods
                .list(&params)
                .map_err(|e| self.error(kube::Error::BuildRequest(e), query))?;
            let answer =
                tokio::time::timeout(self.timeout, self.client.request::<PodList>(request))
                    .await
                    .map_err(|_| KubeError::TimedOut {
                        server: self.server.clone(),
                        timeout: self.timeout,
                    })?;
            let page = match answer {
                Ok(page) => page,
                Err(kube::Error::Api(status)) if status.code == 410 && !listing.restarted => {
                    listing.restarted = true;
                    listing.pods.clear();
                    tokens.clear();
                    token = None;
                    continue;
                }
                Err(e) => return Err(self.error(e, query)),
            };
            let items = match (page.kind.as_deref(), page.items) {
                (Some("PodList"), Some(items)) => items,
                (Some("PodList"), None) => {
                    return Err(self.not_a_pod_list("it has no items".into()));
                }
                (Some(kind), _) => {
                    return Err(self.not_a_pod_list(format!(
                        "its kind is {:?}",
                        crate::support::sanitize::cap(kind, 60)
                    )));
                }
                (None, _) => return Err(self.not_a_pod_list("it has no kind".into())),
            };
            for listed in items {
                if let Some(p) = pod(listed).map_err(|detail| self.not_a_pod_list(detail))? {
                    listing.pods.push(p);
                }
            }
            token = page
                .metadata
                .and_then(|m| m.continue_)
                .filter(|t| !t.is_empty());
            match &token {
                None => return Ok(listing),
                Some(t) if !tokens.insert(t.clone()) || listing.requests >= MAX_PAGES => {
                    return Err(KubeError::EndlessList {
                        server: self.server.clone(),
                        pages: listing.requests,
                    });
                }
                Some(_) => {}
            }
        }
    }

    fn not_a_pod_list(&self, detail: String) -> KubeError {
        KubeError::NotAPodList {
            server: self.server.clone(),
            detail: one_line(&detail),
        }
    }

    fn error(&self, e: kube::Error, query: &PodQuery) -> KubeError {
        let server = self.server.clone();
        match e {
            kube::Error::SerdeError(e) => self.not_a_pod_list(e.to_string()),
            kube::Error::Api(status) => {
                let server_message = one_line(&status.message);
                match status.code {
                    401 => KubeError::Unauthorized {
                        server,
                        server_message,
                    },
                    403 => KubeError::Forbidden {
                        server,
                        namespace: query.namespace.clone(),
                        server_message,
                    },
                    410 => KubeError::Expired { server_message },
                    code => KubeError::Status {
                        server,
                        code,
                        reason: one_line(&status.reason),
                        server_message,
                    },
                }
            }
            other if timed_out(&other) => KubeError::TimedOut {
                server,
                timeout: self.timeout,
            },
            other => {
                // The innermost cause says what happened (refused, certificate).
                let mut cause: &dyn std::error::Error = &other;
                while let Some(next) = cause.source() {
                    cause = next;
                }
                KubeError::Unreachable {
                    server,
                    cause: one_line(&cause.to_string()),
                }
            }
        }
    }
}

/// Whether `e` or one of its causes is a timeout: the `std::io::Error` of kind `TimedOut`
/// that kube's connect and read timeouts raise (hyper-timeout).
fn timed_out(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut cause = Some(e);
    while let Some(c) = cause {
        if c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::TimedOut)
        {
            return true;
        }
        cause = c.source();
    }
    false
}

/// Bytes escaped in the namespace's path segment (a namespace is a DNS label, so this
/// only matters for input the API server will refuse anyway).
const PATH_SEGMENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_');

/// The API server's URL as the reports show it: without a user name, password, query or
/// fragment (a kubeconfig's `server` may carry credentials; they are never printed).
fn shown_server(server: &str) -> String {
    match url::Url::parse(server) {
        Ok(mut url) => {
            let _ = url.set_username("");
            let _ = url.set_password(None);
            url.set_query(None);
            url.set_fragment(None);
            url.to_string()
        }
        Err(_) => "(the kubeconfig's server)".to_string(),
    }
}

/// A page of `GET /api/v1/namespaces/{namespace}/pods` (Kubernetes `core/v1` `PodList`),
/// read for the few fields `status` keeps: every other field of the answer is skipped, not
/// decoded (k8s-openapi's whole `Pod` cost the image half a megabyte). `kind: PodList` and
/// `items` are required ([`KubeClient::list_pods`] checks them), so that another object answered with 200 (`{}`, a `Status`, a
/// `ServiceList` from a proxy) is refused, never read as "no pods"; `null` reads as absent
/// everywhere else.
#[derive(Deserialize)]
struct PodList {
    kind: Option<String>,
    metadata: Option<ListMeta>,
    items: Option<Vec<ListedPod>>,
}

/// A list's `metadata` (`meta/v1` `ListMeta`): the token of the next page.
#[derive(Deserialize)]
struct ListMeta {
    #[serde(rename = "continue")]
    continue_: Option<String>,
}

/// One listed pod: `metadata` and `status`.
#[derive(Deserialize)]
struct ListedPod {
    metadata: Option<PodMeta>,
    status: Option<PodStatus>,
}

/// A pod's `metadata` (`meta/v1` `ObjectMeta`): its name and annotations.
#[derive(Deserialize)]
struct PodMeta {
    name: Option<String>,
    annotations: Option<BTreeMap<String, String>>,
}

/// A pod's `status` (`core/v1` `PodStatus`): its phase, when it started (RFC 3339) and its
/// containers.
#[derive(Deserialize)]
struct PodStatus {
    phase: Option<String>,
    #[serde(rename = "startTime")]
    start_time: Option<String>,
    #[serde(rename = "containerStatuses")]
    container_statuses: Option<Vec<ContainerStatus>>,
}

/// One container's status (`core/v1` `ContainerStatus`): its name and `imageID`.
#[derive(Deserialize)]
struct ContainerStatus {
    name: Option<String>,
    #[serde(rename = "imageID")]
    image_id: Option<String>,
}

/// The phases of a pod whose containers have all terminated (Kubernetes `core/v1`
/// `PodPhase`): such a pod (an evicted one, say) runs no code, old or new, until Kubernetes
/// removes it, so it is neither a server's pod nor an orphan.
const TERMINATED_PHASES: [&str; 2] = ["Succeeded", "Failed"];

/// The fields `status` keeps of one pod; `None` for a terminated pod
/// ([`TERMINATED_PHASES`]).
///
/// # Errors
/// What is wrong when `startTime` is not RFC 3339 (the API server writes it so).
fn pod(p: ListedPod) -> Result<Option<Pod>, String> {
    let meta = p.metadata.unwrap_or(PodMeta {
        name: None,
        annotations: None,
    });
    let name = meta.name.unwrap_or_default();
    let status = p.status.unwrap_or(PodStatus {
        phase: None,
        start_time: None,
        container_statuses: None,
    });
    if status
        .phase
        .as_deref()
        .is_some_and(|phase| TERMINATED_PHASES.contains(&phase))
    {
        return Ok(None);
    }
    let mut annotations = meta.annotations.unwrap_or_default();
    let image_id = status
        .container_statuses
        .unwrap_or_default()
        .into_iter()
        .find(|c| c.name.as_deref() == Some(NOTEBOOK_CONTAINER))
        .and_then(|c| c.image_id)
        .filter(|id| !id.trim().is_empty());
    let started = match status.start_time {
        None => None,
        Some(t) => Some(
            time::OffsetDateTime::parse(&t, &time::format_description::well_known::Rfc3339)
                .map_err(|_| {
                    format!(
                        "pod {:?} has the startTime {:?}, not an RFC 3339 time",
                        crate::support::sanitize::cap(&name, 100),
                        crate::support::sanitize::cap(&t, 40)
                    )
                })?,
        ),
    };
    Ok(Some(Pod {
        name,
        user: annotations.remove(USERNAME_ANNOTATION),
        server: annotations.remove(SERVERNAME_ANNOTATION),
        image_id,
        started,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timeout_is_found_among_the_causes() {
        #[derive(Debug, thiserror::Error)]
        #[error("client error")]
        struct Outer(#[source] std::io::Error);
        let timeout = Outer(std::io::Error::new(
            std::io::ErrorKind::TimedOut,
            "deadline",
        ));
        assert!(timed_out(&timeout));
        let refused = Outer(std::io::Error::from(std::io::ErrorKind::ConnectionRefused));
        assert!(!timed_out(&refused));
    }

    #[test]
    fn a_kubeconfig_without_a_usable_current_context_is_refused_before_anything_is_sent() {
        let config = |current: &str, cluster: &str| {
            format!(
                "apiVersion: v1
kind: Config
clusters:
  - name: hub
    cluster: {{server: https://127.0.0.1:6443}}
users:
  - name: reader
    user: {{token: sa-token-0123456789}}
contexts:
  - name: hub
    context: {{cluster: {cluster}, user: reader}}
{current}"
            )
        };
        let detail = |content: &str| match check_kubeconfig(content, KUBECONFIG_INPUT) {
            Err(KubeError::Kubeconfig { detail, .. }) => detail,
            other => panic!("{other:?}"),
        };
        assert!(check_kubeconfig(&config("current-context: hub\n", "hub"), "x").is_ok());
        assert_eq!(
            [
                detail(&config("", "hub")),
                detail(&config("current-context: prod\n", "hub")),
                detail(&config("current-context: hub\n", "gone")),
            ],
            [
                "failed to determine current context",
                "failed to load current context: prod",
                "failed to load the cluster of context: gone",
            ]
        );
    }

    #[test]
    fn a_kubeconfig_parse_error_never_echoes_its_values() {
        let content = "apiVersion: v1
kind: Config
clusters:
  - name: hub
    cluster: {server: https://127.0.0.1:6443}
users:
  - name: reader
    user: SECRET-sa-token-0123456789
contexts:
  - name: hub
    context: {cluster: hub, user: reader}
current-context: hub
";
        let e = check_kubeconfig(content, KUBECONFIG_INPUT).unwrap_err();
        let words = e.to_string();
        assert!(!words.contains("SECRET"), "{words}");
        insta::assert_snapshot!(words);
        let e = check_kubeconfig("users: [{name: 'x', user: {token: [`SECRET`]}}]", "k")
            .unwrap_err()
            .to_string();
        assert!(!e.contains("SECRET"), "{e}");
    }

    #[test]
    fn kubernetes_is_opt_in_and_the_first_refusal_wins() {
        use KubernetesMode::{Off, On};
        let cluster: HashMap<String, String> =
            [("KUBERNETES_SERVICE_HOST".into(), "10.0.0.1".into())].into();
        let nowhere = HashMap::new();
        let config = SecretString::from("clusters: [ nope");
        let blank = SecretString::from(" \n");
        let pods = [Alarm::Overdue, Alarm::Orphan, Alarm::Mismatch];
        // Off, without a kubeconfig (a blank one is none): no credentials, and no alarm
        // that needs the pods; off with one is refused before the alarms are looked at.
        assert!(matches!(
            credentials(None, None, &[Alarm::Overdue], &nowhere),
            Ok(None)
        ));
        assert!(matches!(
            credentials(Some(Off), Some(&blank), &[], &nowhere),
            Ok(None)
        ));
        assert!(matches!(
            credentials(None, Some(&blank), &pods, &nowhere),
            Err(Refusal::AlarmNeedsPods(Alarm::Orphan))
        ));
        assert!(matches!(
            credentials(Some(Off), Some(&config), &pods, &nowhere),
            Err(Refusal::OffWithKubeconfig)
        ));
        // On: a kubeconfig given is checked before anything is read; without one, the
        // environment must offer some.
        assert!(matches!(
            credentials(None, Some(&config), &pods, &cluster),
            Err(Refusal::Unusable(KubeError::Kubeconfig { .. }))
        ));
        assert!(matches!(
            credentials(Some(On), None, &pods, &nowhere),
            Err(Refusal::Unusable(KubeError::NoCredentials { .. }))
        ));
        assert!(matches!(
            credentials(Some(On), Some(&blank), &pods, &cluster),
            Ok(Some(Credentials::Infer))
        ));
    }
}
