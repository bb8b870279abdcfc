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
//! Credentials, as kubectl finds them ([`resolve`], before anything is read): a kubeconfig
//! given (the Action's `kubeconfig` input as content, `--kubeconfig PATH` as a file), else
//! the files `KUBECONFIG` lists (merged, as client-go merges them), else `~/.kube/config`,
//! else the in-cluster service account (`KUBERNETES_SERVICE_HOST` and its mounted token); the
//! context `--context` names, else the current one, whose namespace applies unless
//! `--namespace` is given. The image ships no credential plugin, and Kubernetes 1.19 removed
//! basic authentication: a user with an `exec` plugin (gke-gcloud-auth-plugin, `aws eks
//! get-token`, kubelogin) or an `auth-provider`, with a user name and password, or with no
//! credentials at all is refused before any request.
//!
//! TLS is rustls with ring (kube's `rustls-tls` and `ring` features; the process default
//! provider is ring, [`crate::support::tls::install_provider`]).

use super::Pod;
use kube::config::{AuthInfo, Cluster, KubeConfigOptions, Kubeconfig};
use kube::{Client, Config};
use secrecy::ExposeSecret;
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::Duration;

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

/// The namespace read when neither `--namespace` nor the context names one: z2jh's docs' own.
pub(crate) const DEFAULT_NAMESPACE: &str = "jhub";

/// The service-account token a pod has mounted unless `automountServiceAccountToken: false`
/// (Kubernetes "Configure Service Accounts for Pods"; kube's `incluster_config.rs`).
pub(crate) const SERVICE_ACCOUNT_TOKEN: &str =
    "/var/run/secrets/kubernetes.io/serviceaccount/token";

/// Where a kubeconfig came from, as messages name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// The `kubeconfig` input's content.
    Input,
    /// `--kubeconfig PATH`.
    Flag(PathBuf),
    /// A path `KUBECONFIG` lists.
    Variable(PathBuf),
    /// `~/.kube/config`.
    Home(PathBuf),
}

/// Where the Kubernetes credentials come from, resolved and checked ([`resolve`]).
#[derive(Debug, Clone)]
pub enum Credentials {
    /// A kubeconfig, the context read, and where it came from.
    Kubeconfig {
        /// The kubeconfig (its secrets hide in `Debug`).
        config: Box<Kubeconfig>,
        /// The context chosen: `--context`, else `current-context`.
        context: String,
        /// Where it came from.
        origin: Origin,
    },
    /// The in-cluster service account.
    InCluster,
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

/// Where the namespace read came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NamespaceFrom {
    /// `--namespace` (the `namespace` input).
    Input,
    /// The kubeconfig context's `namespace`.
    Context,
    /// Neither: [`DEFAULT_NAMESPACE`].
    Default,
}

/// A checked Kubernetes request ([`resolve`]): where to read pods and with what.
#[derive(Debug, Clone)]
pub struct KubeRequest {
    /// The credentials.
    pub credentials: Credentials,
    /// The namespace and Helm release.
    pub query: PodQuery,
    /// Where the namespace came from.
    pub namespace_from: NamespaceFrom,
    /// Each request's timeout.
    pub timeout: Duration,
}

impl KubeRequest {
    /// The cluster of the context read (`None` in the cluster).
    fn cluster(&self) -> Option<&Cluster> {
        let Credentials::Kubeconfig {
            config, context, ..
        } = &self.credentials
        else {
            return None;
        };
        let context = named(&config.contexts, context, |c| &c.name)?
            .context
            .as_ref()?;
        named(&config.clusters, &context.cluster, |c| &c.name)?
            .cluster
            .as_ref()
    }

    /// What to warn about the cluster before its user's token is sent to it.
    pub(crate) fn warnings(&self) -> Vec<KubeWarning> {
        let Some(cluster) = self.cluster() else {
            return Vec::new();
        };
        let server = shown_server(cluster.server.as_deref().unwrap_or_default());
        let mut warnings = Vec::new();
        if crate::support::url::sends_token_in_the_clear(&server) {
            warnings.push(KubeWarning::PlainHttp(server.clone()));
        }
        if cluster.insecure_skip_tls_verify == Some(true) {
            warnings.push(KubeWarning::SkipsTlsVerify(server));
        }
        warnings
    }
}

/// A warning about the cluster a kubeconfig names, before its user's token is sent to it
/// (the server as [`shown_server`] shows it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum KubeWarning {
    /// Its server is plain `http://` outside loopback, private networks and the cluster
    /// ([`crate::support::url::sends_token_in_the_clear`]), as for `hub-url` and `api-url`.
    PlainHttp(String),
    /// `insecure-skip-tls-verify: true`: its certificate is not checked, so the token goes to
    /// whoever answers at that address.
    SkipsTlsVerify(String),
}

/// What the command line gives for Kubernetes ([`resolve`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct KubeInputs<'a> {
    /// The kubeconfig given: its content (`true`) or a path (`false`).
    pub kubeconfig: Option<(&'a str, bool)>,
    /// `--context`.
    pub context: Option<&'a str>,
    /// `--namespace`.
    pub namespace: Option<&'a str>,
    /// `--helm-release`.
    pub release: &'a str,
    /// `--kube-timeout`.
    pub timeout: Duration,
}

/// A failed Kubernetes read, or credentials refused before it, as data: the words
/// (`Display`) are the render layer's (`crate::render::kube`).
#[derive(Debug)]
pub(crate) enum KubeError {
    /// A kubeconfig that cannot be read or parsed, or names no usable cluster (its loader's
    /// words; never its values).
    Unreadable {
        /// Where it came from.
        origin: Origin,
        /// What is wrong, in kube's words.
        detail: String,
    },
    /// A kubeconfig path that does not exist.
    Missing(Origin),
    /// No context of that name (`None`: `current-context` unset); the names it has.
    NoContext {
        /// Where the kubeconfig came from.
        origin: Origin,
        /// The context asked for.
        context: Option<String>,
        /// The contexts the kubeconfig has.
        contexts: Vec<String>,
    },
    /// The context's namespace is not a namespace name.
    ContextNamespace {
        /// Where the kubeconfig came from.
        origin: Origin,
        /// The context.
        context: String,
    },
    /// The context's user cannot be sent: it needs a credential plugin (`plugin`: the `exec`
    /// command or `auth-provider` name), holds a user name and password (basic
    /// authentication, `plugin` `None`, `basic` true), or has no credentials.
    User {
        /// The user's name.
        user: String,
        /// The plugin it needs.
        plugin: Option<String>,
        /// It holds a user name and password.
        basic: bool,
        /// The namespace, for the kubeconfig to make instead.
        namespace: String,
    },
    /// No kubeconfig and not in a cluster.
    NoCredentials {
        /// The namespace, for the kubeconfig to make.
        namespace: String,
    },
    /// `KUBERNETES_SERVICE_HOST` set but no service-account token mounted, or the in-cluster
    /// configuration unreadable (kube's words).
    InCluster {
        /// What is wrong.
        detail: String,
    },
    /// The pods could not be listed: the API server at `server` (as [`shown_server`] shows
    /// it), listing the pods of `namespace`, and what went wrong.
    Read {
        /// The API server's URL.
        server: String,
        /// The namespace listed.
        namespace: String,
        /// What went wrong.
        fault: ReadFault,
    },
}

/// What went wrong listing the pods ([`KubeError::Read`]).
#[derive(Debug)]
pub(crate) enum ReadFault {
    /// An error answer: 401 (the credentials are not accepted), 403 (RBAC denies `list` on
    /// `pods`), a second 410 after the restart, any other; the `Status` object's `reason`
    /// and `message` (`pods is forbidden: User "…" cannot list resource …`), one line each.
    Answered(u16, String, String),
    /// No answer within `kube-timeout` (connecting, or reading the answer).
    TimedOut(Duration),
    /// An answer that is not a `v1` `PodList` (another `kind`, no `items`, a field of the
    /// wrong type, a start time that is not RFC 3339): a proxy or another server answering;
    /// what is wrong with it, one line (the decoder's words or the field).
    NotAPodList(String),
    /// Pages without an end: a `continue` token repeated, or more than [`MAX_PAGES`] pages;
    /// the pages read before giving up.
    EndlessList(u32),
    /// No answer (DNS, refused, TLS): the transport's words, one line.
    Unreachable(String),
}

impl std::error::Error for KubeError {}

/// A read-only client of the hub's pods.
pub(crate) struct KubeClient {
    client: Client,
    server: String,
    query: PodQuery,
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

/// The secrets of a kubeconfig's users (tokens, passwords, client keys), which the caller
/// masks in the Actions log before anything else runs; not the whole file (its lines, such
/// as `apiVersion: v1`, would hide the same words everywhere in the log).
pub(crate) fn kubeconfig_secrets(config: &Kubeconfig) -> Vec<String> {
    let users = config
        .auth_infos
        .iter()
        .filter_map(|a| a.auth_info.as_ref());
    (users.flat_map(|a| [&a.token, &a.password, &a.client_key_data]))
        .flatten()
        .map(|secret| secret.expose_secret().to_string())
        .collect()
}

/// [`kubeconfig_secrets`] of a kubeconfig's `content`; the whole content when it does not
/// parse: it may hold a token where none is expected.
pub(crate) fn content_secrets(content: &str) -> Vec<String> {
    Kubeconfig::from_yaml(content)
        .map_or_else(|_| vec![content.to_string()], |c| kubeconfig_secrets(&c))
}

/// A kubeconfig loader's message without the values it quotes: a parse error may quote the
/// very token (`invalid type: string "…", expected struct AuthInfo` for `user: <token>`).
/// Keeps the line, column and the kind of value (serde's `invalid type: string`); drops
/// every quoted (`"…"`, `` `…` ``) span (serde's quotes of values; the YAML scanner's `','`
/// of syntax stay) and the value after `invalid type:` or `invalid value:` up to
/// `, expected`.
fn without_values(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(i) = rest.find(['"', '`']) {
        out.push_str(&rest[..i]);
        out.push_str("(value left out)");
        let quote = &rest[i..=i];
        rest = rest[i + 1..]
            .split_once(quote)
            .map_or("", |(_, after)| after);
    }
    out.push_str(rest);
    for marker in ["invalid type: ", "invalid value: "] {
        if let Some(start) = out.find(marker) {
            let from = start + marker.len();
            let end = (out[from..].find(", expected")).map_or(out.len(), |e| from + e);
            // The kind of value (`string`, `integer`, `map`) is its first word.
            let kind = (out[from..end].split_whitespace().next())
                .filter(|w| w.chars().all(|c| c.is_ascii_alphabetic()))
                .unwrap_or("value")
                .to_string();
            out.replace_range(from..end, &kind);
        }
    }
    one_line(&out)
}

/// The item of `items` whose name (`name_of`) is `name`.
fn named<'a, T>(items: &'a [T], name: &str, name_of: impl Fn(&T) -> &String) -> Option<&'a T> {
    items.iter().find(|item| name_of(item) == name)
}

/// The Kubernetes request `inputs` give, with credentials as kubectl finds them (module
/// documentation), each checked before anything is sent: `env` is the process environment
/// (`KUBECONFIG`, `HOME`, `KUBERNETES_SERVICE_HOST`).
///
/// # Errors
/// [`KubeError::Missing`], [`KubeError::Unreadable`] (a kubeconfig that does not parse, or
/// whose context names a cluster it lacks), [`KubeError::NoContext`],
/// [`KubeError::ContextNamespace`], [`KubeError::User`], [`KubeError::InCluster`] (no token
/// mounted), [`KubeError::NoCredentials`].
pub(crate) fn resolve(
    inputs: KubeInputs,
    env: &HashMap<String, String>,
) -> Result<KubeRequest, KubeError> {
    let fallback = inputs.namespace.unwrap_or(DEFAULT_NAMESPACE).to_string();
    let given = |from| match (inputs.namespace, from) {
        (Some(ns), _) => (ns.to_string(), NamespaceFrom::Input),
        (None, Some(ns)) => (ns, NamespaceFrom::Context),
        (None, None) => (DEFAULT_NAMESPACE.to_string(), NamespaceFrom::Default),
    };
    let found = match inputs.kubeconfig {
        Some((content, true)) => Some((parse(content, Origin::Input)?, Origin::Input)),
        Some((path, false)) => Some(read(&[Origin::Flag(home_path(path, env))])?),
        None => kubeconfig_files(env)
            .map(|files| read(&files))
            .transpose()?,
    };
    let Some((config, origin)) = found else {
        let set = |name: &str| env.get(name).is_some_and(|v| !v.trim().is_empty());
        if !set("KUBERNETES_SERVICE_HOST") {
            return Err(KubeError::NoCredentials {
                namespace: fallback,
            });
        }
        if !Path::new(SERVICE_ACCOUNT_TOKEN).is_file() {
            let detail = format!("{SERVICE_ACCOUNT_TOKEN} is not mounted");
            return Err(KubeError::InCluster { detail });
        }
        let (namespace, namespace_from) = given(None);
        return Ok(request(
            inputs,
            Credentials::InCluster,
            namespace,
            namespace_from,
        ));
    };
    let context = match inputs.context.or(config.current_context.as_deref()) {
        Some(name) if named(&config.contexts, name, |c| &c.name).is_some() => name.to_string(),
        asked => {
            let contexts = config.contexts.iter().map(|c| c.name.clone()).collect();
            let context = asked.map(String::from);
            return Err(KubeError::NoContext {
                origin,
                context,
                contexts,
            });
        }
    };
    let chosen = named(&config.contexts, &context, |c| &c.name).and_then(|c| c.context.clone());
    let chosen = chosen.unwrap_or_default();
    if named(&config.clusters, &chosen.cluster, |c| &c.name)
        .and_then(|c| c.cluster.as_ref())
        .is_none()
    {
        let detail = format!(
            "failed to load the cluster of context: {}",
            one_line(&chosen.cluster)
        );
        return Err(KubeError::Unreadable { origin, detail });
    }
    let (namespace, namespace_from) = given(chosen.namespace.clone());
    if !crate::support::kube_name::NameKind::Namespace.takes(&namespace) {
        return Err(KubeError::ContextNamespace { origin, context });
    }
    let user = chosen.user.clone().unwrap_or_default();
    let auth = named(&config.auth_infos, &user, |a| &a.name).and_then(|a| a.auth_info.as_ref());
    usable_user(auth, &user, &namespace)?;
    let credentials = Credentials::Kubeconfig {
        config: Box::new(config),
        context,
        origin,
    };
    Ok(request(inputs, credentials, namespace, namespace_from))
}

/// The request of `inputs` with these credentials and namespace.
fn request(
    inputs: KubeInputs,
    credentials: Credentials,
    namespace: String,
    namespace_from: NamespaceFrom,
) -> KubeRequest {
    let release = inputs.release.to_string();
    KubeRequest {
        credentials,
        query: PodQuery { namespace, release },
        namespace_from,
        timeout: inputs.timeout,
    }
}

/// Refuses a kubeconfig user (`auth`, named `user`) that cannot be sent: one needing a
/// credential plugin (the image has none), holding a user name and password (basic
/// authentication, removed in Kubernetes 1.19), or holding neither a token (`token`,
/// `tokenFile`) nor a client certificate.
fn usable_user(auth: Option<&AuthInfo>, user: &str, namespace: &str) -> Result<(), KubeError> {
    let a = auth.cloned().unwrap_or_default();
    let plugin = (a
        .exec
        .as_ref()
        .map(|e| e.command.clone().unwrap_or_default()))
    .or_else(|| a.auth_provider.as_ref().map(|p| p.name.clone()));
    let basic = a.username.is_some() || a.password.is_some();
    let token = a.token.is_some() || a.token_file.is_some();
    let certificate = a.client_certificate.is_some() || a.client_certificate_data.is_some();
    if plugin.is_none() && !basic && (token || certificate) {
        return Ok(());
    }
    Err(KubeError::User {
        user: one_line(user),
        plugin: plugin.map(|p| one_line(&p)),
        basic,
        namespace: namespace.to_string(),
    })
}

/// The kubeconfig files to read without one given: those `KUBECONFIG` lists (blank counts as
/// unset, as for kubectl), else `~/.kube/config` when it exists; `None` for neither.
fn kubeconfig_files(env: &HashMap<String, String>) -> Option<Vec<Origin>> {
    let listed = env.get("KUBECONFIG").filter(|v| !v.trim().is_empty());
    let listed = listed.map(std::env::split_paths).into_iter().flatten();
    let listed: Vec<Origin> = listed
        .filter(|p| !p.as_os_str().is_empty())
        .map(Origin::Variable)
        .collect();
    let home = env
        .get("HOME")
        .filter(|h| !h.is_empty())
        .map(|h| Path::new(h).join(".kube/config"));
    match home.filter(|h| listed.is_empty() && h.exists()) {
        Some(home) => Some(vec![Origin::Home(home)]),
        None => (!listed.is_empty()).then_some(listed),
    }
}

/// `path` with a leading `~/` read as the home directory (`HOME` in `env`), as the shell
/// reads it: `--kubeconfig=~/.kube/config` is not expanded by bash.
fn home_path(path: &str, env: &HashMap<String, String>) -> PathBuf {
    match (path.strip_prefix("~/"), env.get("HOME")) {
        (Some(rest), Some(home)) => Path::new(home).join(rest),
        _ => PathBuf::from(path),
    }
}

/// A kubeconfig's `content` from `origin`, parsed.
fn parse(content: &str, origin: Origin) -> Result<Kubeconfig, KubeError> {
    Kubeconfig::from_yaml(content).map_err(|e| KubeError::Unreadable {
        origin,
        detail: without_values(&e.to_string()),
    })
}

/// The kubeconfig `files` hold, merged in order (client-go's rules, kube's
/// [`Kubeconfig::merge`]), and where it came from (the files `KUBECONFIG` lists, as one).
fn read(files: &[Origin]) -> Result<(Kubeconfig, Origin), KubeError> {
    let mut merged = Kubeconfig::default();
    for origin in files {
        let (Origin::Flag(path) | Origin::Variable(path) | Origin::Home(path)) = origin else {
            continue;
        };
        if !path.exists() {
            return Err(KubeError::Missing(origin.clone()));
        }
        let unreadable = |detail| KubeError::Unreadable {
            origin: origin.clone(),
            detail,
        };
        let config = match path.is_file() {
            true => Kubeconfig::read_from(path)
                .map_err(|e| unreadable(without_values(&e.to_string())))?,
            false => return Err(unreadable("not a regular file".into())),
        };
        merged = merged
            .merge(config)
            .map_err(|e| unreadable(e.to_string()))?;
    }
    let origin = match files {
        [one] => one.clone(),
        _ => {
            let paths = files.iter().filter_map(|f| match f {
                Origin::Variable(path) => Some(path),
                _ => None,
            });
            Origin::Variable(std::env::join_paths(paths).unwrap_or_default().into())
        }
    };
    Ok((merged, origin))
}

fn one_line(text: &str) -> String {
    crate::support::sanitize::log_line(text, 300)
}

impl KubeClient {
    /// A client for `request`'s credentials (checked by [`resolve`]), each request bounded
    /// by its timeout. Sends nothing.
    ///
    /// # Errors
    /// [`KubeError::Unreadable`] for a kubeconfig kube cannot make a client of (a CA file
    /// that cannot be read, a server URL that does not parse), [`KubeError::InCluster`].
    pub(crate) async fn new(request: &KubeRequest) -> Result<Self, KubeError> {
        crate::support::tls::install_provider();
        let mut config = match &request.credentials {
            Credentials::Kubeconfig {
                config,
                context,
                origin,
            } => {
                let context = Some(context.clone());
                let options = KubeConfigOptions {
                    context,
                    ..KubeConfigOptions::default()
                };
                Config::from_custom_kubeconfig(config.as_ref().clone(), &options)
                    .await
                    .map_err(|e| KubeError::Unreadable {
                        origin: origin.clone(),
                        detail: one_line(&e.to_string()),
                    })?
            }
            Credentials::InCluster => Config::incluster().map_err(|e| KubeError::InCluster {
                detail: one_line(&e.to_string()),
            })?,
        };
        config.read_timeout = Some(request.timeout);
        config.connect_timeout = Some(request.timeout);
        let server = shown_server(&config.cluster_url.to_string());
        let (query, timeout) = (request.query.clone(), request.timeout);
        let client = Client::try_from(config).map_err(|e| KubeError::Read {
            server: server.clone(),
            namespace: query.namespace.clone(),
            fault: ReadFault::Unreachable(one_line(&e.to_string())),
        })?;
        Ok(Self {
            client,
            server,
            query,
            timeout,
        })
    }

    /// Lists the single-user pods of the request's query (see the module documentation).
    ///
    /// # Errors
    /// [`KubeError::Read`], with each [`ReadFault`].
    pub(crate) async fn list_pods(&self) -> Result<PodListing, KubeError> {
        let query = &self.query;
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
                .map_err(|e| self.error(kube::Error::BuildRequest(e)))?;
            let answer =
                tokio::time::timeout(self.timeout, self.client.request::<PodList>(request))
                    .await
                    .map_err(|_| self.fail(ReadFault::TimedOut(self.timeout)))?;
            let page = match answer {
                Ok(page) => page,
                Err(kube::Error::Api(status)) if status.code == 410 && !listing.restarted => {
                    listing.restarted = true;
                    listing.pods.clear();
                    tokens.clear();
                    token = None;
                    continue;
                }
                Err(e) => return Err(self.error(e)),
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
                    return Err(self.fail(ReadFault::EndlessList(listing.requests)));
                }
                Some(_) => {}
            }
        }
    }

    /// The [`KubeError::Read`] of `fault`.
    fn fail(&self, fault: ReadFault) -> KubeError {
        let (server, namespace) = (self.server.clone(), self.query.namespace.clone());
        KubeError::Read {
            server,
            namespace,
            fault,
        }
    }

    fn not_a_pod_list(&self, detail: String) -> KubeError {
        self.fail(ReadFault::NotAPodList(one_line(&detail)))
    }

    fn error(&self, e: kube::Error) -> KubeError {
        match e {
            kube::Error::SerdeError(e) => self.not_a_pod_list(e.to_string()),
            kube::Error::Api(s) => {
                let (reason, message) = (one_line(&s.reason), one_line(&s.message));
                self.fail(ReadFault::Answered(s.code, reason, message))
            }
            other if timed_out(&other) => self.fail(ReadFault::TimedOut(self.timeout)),
            other => {
                // The innermost cause says what happened (refused, certificate).
                let mut cause: &dyn std::error::Error = &other;
                while let Some(next) = cause.source() {
                    cause = next;
                }
                self.fail(ReadFault::Unreachable(one_line(&cause.to_string())))
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
#[derive(Deserialize, Default)]
struct PodMeta {
    name: Option<String>,
    annotations: Option<BTreeMap<String, String>>,
}

/// A pod's `status` (`core/v1` `PodStatus`): its phase, when it started (RFC 3339) and its
/// containers.
#[derive(Deserialize, Default)]
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
    let meta = p.metadata.unwrap_or_default();
    let name = meta.name.unwrap_or_default();
    let status = p.status.unwrap_or_default();
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
pub(crate) mod tests {
    use super::*;

    /// A ServiceAccount-token kubeconfig, as docs/status-kubernetes.md shows it, with a
    /// second context: the cases below change a line of it.
    pub(crate) const KUBECONFIG: &str = "apiVersion: v1
kind: Config
clusters:
  - name: hub
    cluster: {server: https://127.0.0.1:6443}
users:
  - name: reader
    user: {token: sa-token-0123456789}
contexts:
  - name: hub
    context: {cluster: hub, user: reader, namespace: hub-ns}
  - name: other
    context: {cluster: hub, user: reader}
current-context: hub
";

    /// `KUBECONFIG` with `from` replaced by `to`.
    pub(crate) fn kubeconfig(from: &str, to: &str) -> String {
        assert!(KUBECONFIG.contains(from), "{from}");
        KUBECONFIG.replace(from, to)
    }

    /// The request `inputs` over `env` resolve to, in short: the namespace and where it came
    /// from, and the credentials; or the refusal (`Debug`), `dir` written `DIR`.
    fn outcome(inputs: KubeInputs, env: &[(&str, String)], dir: &Path) -> String {
        let env = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        let shown = match resolve(inputs, &env) {
            Ok(r) => match r.credentials {
                Credentials::Kubeconfig {
                    context, origin, ..
                } => format!(
                    "{} ({:?}), context {context} of {origin:?}",
                    r.query.namespace, r.namespace_from
                ),
                Credentials::InCluster => format!("{} in the cluster", r.query.namespace),
            },
            Err(e) => format!("{e:?}"),
        };
        shown.replace(&dir.display().to_string(), "DIR")
    }

    #[test]
    fn credentials_are_found_as_kubectl_finds_them_and_refused_before_anything_is_sent() {
        let dir = tempfile::tempdir().unwrap();
        for (name, content) in [("good", KUBECONFIG), ("second", "apiVersion: v1\n")] {
            std::fs::write(dir.path().join(name), content).unwrap();
        }
        let path = |name: &str| dir.path().join(name).display().to_string();
        let (good, second) = (path("good"), path("second"));
        let home = dir.path().join("home");
        std::fs::create_dir_all(home.join(".kube")).unwrap();
        std::fs::write(home.join(".kube/config"), kubeconfig("hub-ns", "home-ns")).unwrap();
        let home = home.display().to_string();
        let none = KubeInputs {
            kubeconfig: None,
            context: None,
            namespace: None,
            release: "jhub",
            timeout: Duration::from_secs(1),
        };
        let content = |text: &'static str| KubeInputs {
            kubeconfig: Some((text, true)),
            ..none
        };
        let leak = |from: &str, to: &str| -> &'static str { kubeconfig(from, to).leak() };
        let mut table = Vec::new();
        let mut case = |what: &str, inputs: KubeInputs, env: &[(&str, String)]| {
            table.push(format!("{what}:\n  {}", outcome(inputs, env, dir.path())));
        };
        case("content", content(KUBECONFIG), &[]);
        case(
            "content, namespace given",
            KubeInputs {
                namespace: Some("given"),
                ..content(KUBECONFIG)
            },
            &[],
        );
        case(
            "content, another context",
            KubeInputs {
                context: Some("other"),
                ..content(KUBECONFIG)
            },
            &[],
        );
        case(
            "content, a context it lacks",
            KubeInputs {
                context: Some("prod"),
                ..content(KUBECONFIG)
            },
            &[],
        );
        case(
            "no current-context",
            content(leak("current-context: hub\n", "")),
            &[],
        );
        case(
            "a cluster it lacks",
            content(leak(
                "cluster: hub, user: reader, namespace",
                "cluster: gone, user: reader, namespace",
            )),
            &[],
        );
        case(
            "a context namespace that is no name",
            content(leak("hub-ns", "Hub_NS")),
            &[],
        );
        case(
            "a credential plugin",
            content(leak(
                "{token: sa-token-0123456789}",
                "{exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: aws}}",
            )),
            &[],
        );
        case(
            "basic authentication",
            content(leak(
                "{token: sa-token-0123456789}",
                "{username: admin, password: SECRET-pw}",
            )),
            &[],
        );
        case(
            "no credentials",
            content(leak("{token: sa-token-0123456789}", "{}")),
            &[],
        );
        case(
            "no user",
            content(leak(
                "cluster: hub, user: reader, namespace",
                "cluster: hub, namespace",
            )),
            &[],
        );
        case(
            "a client certificate",
            content(leak(
                "{token: sa-token-0123456789}",
                "{client-certificate-data: Q0VSVA==, client-key-data: S0VZ}",
            )),
            &[],
        );
        case(
            "a token file",
            content(leak(
                "{token: sa-token-0123456789}",
                "{tokenFile: /var/token}",
            )),
            &[],
        );
        case(
            "content that is not a kubeconfig",
            content("users: [{name: x, user: SECRET-token}]"),
            &[],
        );
        case(
            "--kubeconfig PATH",
            KubeInputs {
                kubeconfig: Some((&good, false)),
                ..none
            },
            &[],
        );
        case(
            "--kubeconfig PATH that does not exist",
            KubeInputs {
                kubeconfig: Some(("/nowhere/config", false)),
                ..none
            },
            &[],
        );
        let directory = dir.path().display().to_string();
        case(
            "--kubeconfig a directory",
            KubeInputs {
                kubeconfig: Some((&directory, false)),
                ..none
            },
            &[],
        );
        case(
            "KUBECONFIG, merged",
            none,
            &[
                ("KUBECONFIG", format!("{second}:{good}")),
                ("HOME", home.clone()),
            ],
        );
        case(
            "KUBECONFIG naming a file that does not exist",
            none,
            &[("KUBECONFIG", "/nowhere/kubeconfig".into())],
        );
        case(
            "blank KUBECONFIG, ~/.kube/config",
            none,
            &[("KUBECONFIG", " ".into()), ("HOME", home.clone())],
        );
        let tilde = KubeInputs {
            kubeconfig: Some(("~/.kube/config", false)),
            ..none
        };
        case(
            "--kubeconfig ~/.kube/config, not expanded by the shell",
            tilde,
            &[("HOME", home.clone())],
        );
        case("nothing", none, &[("HOME", "/nowhere".into())]);
        let token = Path::new(SERVICE_ACCOUNT_TOKEN).is_file();
        assert!(!token, "these cases run outside a pod");
        case(
            "in a cluster without a token mounted",
            none,
            &[("KUBERNETES_SERVICE_HOST", "10.0.0.1".into())],
        );
        insta::assert_snapshot!(table.join("\n"));
    }

    #[test]
    fn a_kubeconfig_parse_error_never_echoes_its_values() {
        for content in [
            kubeconfig("{token: sa-token-0123456789}", "SECRET-sa-token-0123456789"),
            "users: [{name: 'x', user: {token: [`SECRET`]}}]".to_string(),
            "users: [{name: \"SECRET\", user: {token: \"SECRET\", bad: [}}]".to_string(),
        ] {
            let Err(e) = parse(&content, Origin::Input) else {
                panic!("parsed: {content}");
            };
            assert!(!format!("{e:?}").contains("SECRET"), "{e:?}");
        }
    }

    #[test]
    fn a_cluster_over_plain_http_or_without_verified_tls_is_warned_about() {
        let warnings = |content: String| {
            let inputs = KubeInputs {
                kubeconfig: Some((&content, true)),
                context: None,
                namespace: None,
                release: "jhub",
                timeout: Duration::from_secs(1),
            };
            resolve(inputs, &HashMap::new()).unwrap().warnings()
        };
        assert!(warnings(KUBECONFIG.to_string()).is_empty());
        let server = "{server: https://127.0.0.1:6443}";
        let insecure =
            "{server: 'https://u:pw@10.0.0.1:6443/?t=x', insecure-skip-tls-verify: true}";
        assert_eq!(
            warnings(kubeconfig(server, insecure)),
            [KubeWarning::SkipsTlsVerify("https://10.0.0.1:6443/".into())]
        );
        assert_eq!(
            warnings(kubeconfig(server, "{server: http://203.0.113.9:8080}")),
            [KubeWarning::PlainHttp("http://203.0.113.9:8080/".into())]
        );
    }

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
}
