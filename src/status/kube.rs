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
//! Of each pod only [`crate::status::Pod`]'s fields are kept: its name, the annotations
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
//! get-token`, kubelogin) or an `auth-provider`, with a user name and password, with a
//! client certificate without its key (or a `-data` value that is not base64: kube would
//! drop the identity and send the request anonymous), or with no credentials at all is
//! refused before any request.
//!
//! TLS is rustls with ring (kube's `rustls-tls` and `ring` features; the process default
//! provider is ring, [`crate::support::tls::install_provider`]).

mod credentials;
mod pods;

pub(crate) use credentials::{content_secrets, kubeconfig_secrets, resolve};
pub(crate) use pods::KubeClient;

use kube::config::Kubeconfig;
use std::path::PathBuf;
use std::time::Duration;

/// The most pages one listing reads (500,000 pods at [`pods::PAGE_LIMIT`]), so that an API server
/// or a proxy that never stops sending `continue` tokens cannot keep `status` running.
pub(crate) const MAX_PAGES: u32 = 1_000;

/// The namespace read when neither `--namespace` nor the context names one: z2jh's docs' own.
pub(crate) const DEFAULT_NAMESPACE: &str = "jhub";

/// The service-account token a pod has mounted unless `automountServiceAccountToken: false`
/// (Kubernetes "Configure Service Accounts for Pods"; kube's `incluster_config.rs`).
pub(crate) const SERVICE_ACCOUNT_TOKEN: &str =
    "/var/run/secrets/kubernetes.io/serviceaccount/token";

/// Where a kubeconfig came from, as messages name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Origin {
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
pub(crate) enum Credentials {
    /// A kubeconfig, the context read, and where it came from.
    Kubeconfig {
        /// The kubeconfig (its secrets hide in `Debug`).
        config: Box<Kubeconfig>,
        /// kube's configuration of the client of `context` (its cluster's server, CA and
        /// TLS checks, its user's credentials), its client's stack built once.
        client: Box<kube::Config>,
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
pub(crate) struct PodQuery {
    /// The hub's namespace.
    pub(crate) namespace: String,
    /// The hub's Helm release name (the pods' `release` label).
    pub(crate) release: String,
}

impl PodQuery {
    /// The label selector sent to the API server: `component=singleuser-server,release=<release>`.
    pub(crate) fn selector(&self) -> String {
        format!("component=singleuser-server,release={}", self.release)
    }
}

/// Where the namespace read came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NamespaceFrom {
    /// `--namespace` (the `namespace` input).
    Input,
    /// The kubeconfig context's `namespace`.
    Context,
    /// Neither: [`DEFAULT_NAMESPACE`].
    Default,
}

/// A checked Kubernetes request ([`resolve`]): where to read pods and with what.
#[derive(Debug, Clone)]
pub(crate) struct KubeRequest {
    /// The credentials.
    pub(crate) credentials: Credentials,
    /// The namespace and Helm release.
    pub(crate) query: PodQuery,
    /// Where the namespace came from.
    pub(crate) namespace_from: NamespaceFrom,
    /// Each request's timeout.
    pub(crate) timeout: Duration,
}

impl KubeRequest {
    /// What to warn about the cluster before its user's token is sent to it.
    pub(crate) fn warnings(&self) -> Vec<KubeWarning> {
        let Credentials::Kubeconfig { client, .. } = &self.credentials else {
            return Vec::new();
        };
        let server = shown_server(&client.cluster_url.to_string());
        let mut warnings = Vec::new();
        if crate::support::url::sends_token_in_the_clear(&server) {
            warnings.push(KubeWarning::PlainHttp(server.clone()));
        }
        if client.accept_invalid_certs {
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
    pub(crate) kubeconfig: Option<(&'a str, bool)>,
    /// `--context`.
    pub(crate) context: Option<&'a str>,
    /// `--namespace`.
    pub(crate) namespace: Option<&'a str>,
    /// `--helm-release`.
    pub(crate) release: &'a str,
    /// `--kube-timeout`: of each request, and of reading a piped kubeconfig.
    pub(crate) timeout: Duration,
}

/// A credential of the chosen kubeconfig user or cluster that cannot be sent, as data
/// ([`KubeError::Credential`]).
#[derive(Debug)]
pub(crate) enum CredentialFault {
    /// A file the user or cluster names under `key` (`tokenFile`, `client-certificate`,
    /// `client-key`, `certificate-authority`), at `path`, that cannot be read (`error`).
    File {
        /// The kubeconfig key naming it.
        key: &'static str,
        /// The path, as the kubeconfig names it (made absolute against its file).
        path: String,
        /// Why it cannot be read.
        error: crate::support::files::ReadError,
    },
    /// The token (`key`: `token`, or `tokenFile`'s content), once trimmed, is empty
    /// (`empty`: it would be sent as no credentials) or holds a character that is not
    /// printable ASCII, or a space: a bearer token has none (RFC 6750; a copy-paste's
    /// zero-width or no-break space, a line break inside it).
    Token {
        /// Where the token is: `token` or `tokenFile`.
        key: &'static str,
        /// Empty, rather than holding a character a token has not.
        empty: bool,
    },
    /// The token (`key` as for [`CredentialFault::Token`]) starts with the scheme `Bearer `,
    /// as an `Authorization` header does: client-go adds the scheme itself (its
    /// `bearerAuthRoundTripper`), so it would be sent twice and answered 401.
    Scheme {
        /// Where the token is: `token` or `tokenFile`.
        key: &'static str,
    },
    /// The cluster's `server` is not an `http://` or `https://` URL.
    Server,
    /// The user holds a client certificate without its key: client-go 1.37's
    /// `validateAuthInfo` refuses it ("client-key-data or client-key must be specified for
    /// … to use the clientCert authentication method"); kube would send no certificate, so
    /// the request would go out as `system:anonymous`. (A key without its certificate is
    /// ignored, as client-go ignores it: the user's token, if any, is sent.)
    NoKey {
        /// The user's name.
        user: String,
    },
    /// The user's `key` (`client-certificate-data`, `client-key-data`) is not base64, as
    /// kube decodes it (the standard alphabet, padded); client-go refuses it loading the file
    /// ("illegal base64 data"), kube would send no client certificate.
    NotBase64 {
        /// The user's name.
        user: String,
        /// The key.
        key: &'static str,
    },
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
    /// kube makes no client of the chosen context: a client certificate, key or CA that is
    /// not PEM or not base64 (kube's words, or client-go's).
    Client {
        /// Where the kubeconfig came from.
        origin: Origin,
        /// What is wrong.
        detail: String,
    },
    /// The Action's kubeconfig input holds no kubeconfig but a path (one line: `/…`, `~/…`,
    /// `./…`), or (`base64`) a kubeconfig base64-encoded (`base64 -w0 config`).
    NotContent {
        /// Base64, rather than a path.
        base64: bool,
    },
    /// A kubeconfig path that does not exist.
    Missing(Origin),
    /// A `--kubeconfig` path that does not exist but, split as `KUBECONFIG` is, names files
    /// that do: kubectl's `--kubeconfig` takes one file, `KUBECONFIG` a list it merges.
    Listed(PathBuf),
    /// The context names a cluster (or, `user`, a user) the kubeconfig lacks; the names of
    /// those it has.
    Lacks {
        /// Where the kubeconfig came from.
        origin: Origin,
        /// The context.
        context: String,
        /// A user, rather than a cluster.
        user: bool,
        /// The name the context gives.
        name: String,
        /// The clusters (or users) it has.
        names: Vec<String>,
    },
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
    /// What the chosen user or cluster names cannot be used as kubectl would, found before
    /// anything is sent ([`CredentialFault`]).
    Credential {
        /// Where the kubeconfig came from.
        origin: Origin,
        /// What is wrong.
        fault: CredentialFault,
    },
    /// No kubeconfig and not in a cluster.
    NoCredentials {
        /// The namespace, for the kubeconfig to make.
        namespace: String,
    },
    /// `KUBERNETES_SERVICE_HOST` set but no service-account token mounted, or the in-cluster
    /// configuration unreadable (kube's words).
    InCluster {
        /// What is wrong, in kube's words; `None`: no token is mounted at
        /// [`SERVICE_ACCOUNT_TOKEN`].
        detail: Option<String>,
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

/// What makes an answer no `v1` `PodList` ([`ReadFault::NotAPodList`]); each value one line.
#[derive(Debug)]
pub(crate) enum NotAPodList {
    /// Another `kind` (at most 60 characters of it), or none.
    Kind(Option<String>),
    /// A `PodList` without `items`.
    NoItems,
    /// A field of the wrong type: the decoder's words.
    Decoder(String),
    /// A pod whose `startTime` (at most 40 characters of it) is not RFC 3339. The pod is
    /// not named: KubeSpawner's `jupyter-<user>` holds its user's name, which an error,
    /// shown in the job log and summary whatever `include-names` says, must not.
    StartTime(String),
}

/// What went wrong listing the pods ([`KubeError::Read`]).
#[derive(Debug)]
pub(crate) enum ReadFault {
    /// An error answer: 401 (the credentials are not accepted), 403 (RBAC denies `list` on
    /// `pods`), a second 410 after the restart, any other; the `Status` object's `reason`
    /// and `message` (`pods is forbidden: User "…" cannot list resource …`), one line each;
    /// both empty for an answer that is no `Status` ([`ReadFault::answered`]).
    Answered(u16, String, String),
    /// No answer within `kube-timeout` (connecting, or reading the answer).
    TimedOut(Duration),
    /// An answer that is not a `v1` `PodList`: a proxy or another server answering.
    NotAPodList(NotAPodList),
    /// Pages without an end: a `continue` token repeated, or more than [`MAX_PAGES`] pages;
    /// the pages read before giving up.
    EndlessList(u32),
    /// The TLS handshake with the API server failed, and why.
    Tls(crate::digest::registry::errors::TlsProblem),
    /// No answer (DNS, refused): the transport's words, one line.
    Unreachable(String),
}

impl ReadFault {
    /// The [`ReadFault::Answered`] of an error answer as kube reads it: a Kubernetes
    /// `Status`'s code, reason and message; for a body that is no JSON object, kube's
    /// stand-in (kube-client 3.1 `handle_api_errors`: the HTTP status, the reason `Failed to
    /// parse error data`, the body as the message) keeps the status only, as neither is the
    /// server's message.
    pub(crate) fn answered(status: &kube::core::Status) -> Self {
        match status.reason.as_str() {
            "Failed to parse error data" => {
                Self::Answered(status.code, String::new(), String::new())
            }
            reason => Self::Answered(status.code, one_line(reason), one_line(&status.message)),
        }
    }
}

impl std::error::Error for KubeError {}

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

/// `text` as one line of a message, at most 300 characters.
fn one_line(text: &str) -> String {
    crate::support::sanitize::log_line(text, 300)
}

#[cfg(test)]
pub(crate) mod tests {
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
}
