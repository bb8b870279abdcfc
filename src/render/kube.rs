//! The words of Kubernetes access: [`KubeError`] (its `Display`), the warnings about a
//! cluster before its token is sent ([`KubeWarning`]) and the lines `status` logs about the
//! pods. A first line says what failed, with the kubeconfig, context or API server at fault;
//! the help says what to do, after the API server's own words; the kubeconfig to make is
//! shown once, where making one is the fix, and the Role where granting it is.

use super::help::EMPTY_SECRET;
use super::messages::RunWarning;
use super::words::{Words, input_name};
use crate::digest::registry::errors::TlsProblem;
use crate::status::kube::{
    CredentialFault, Credentials, KubeError, KubeRequest, KubeWarning, MAX_PAGES, NamespaceFrom,
    NotAPodList, Origin, ReadFault, SERVICE_ACCOUNT_TOKEN,
};
use crate::support::text::Titled;
use std::fmt;

/// A failed read's words (those of a refusal, which name where the kubeconfig came from, are
/// [`words`]' with the place of the run: the command line's here).
impl fmt::Display for KubeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        words(self, false).fmt(f)
    }
}

/// Where a kubeconfig came from, as the first lines name it; its content by place, as
/// [`super::help::set_input`] names an input: the Action's input (`in_actions`), else
/// `--kubeconfig`.
fn origin(origin: &Origin, in_actions: bool) -> String {
    match origin {
        Origin::Input if in_actions => "the kubeconfig input".to_string(),
        Origin::Input => "--kubeconfig's content".to_string(),
        Origin::Flag(path) | Origin::Home(path) => path.display().to_string(),
        Origin::Variable(path) => format!("{} from KUBECONFIG", path.display()),
    }
}

/// The words of `e`: one arm per variant (a read's in [`read_words`]), the first line and the
/// help; a kubeconfig given as content named by place (`in_actions`: [`origin`]).
pub(crate) fn words(e: &KubeError, in_actions: bool) -> Words {
    // The first line's start for a kubeconfig from `o` that cannot be used.
    let unusable = |o: &Origin| format!("the kubeconfig ({}) is not usable", origin(o, in_actions));
    match e {
        KubeError::Unreadable { origin: o, detail } => Words::new(unusable(o)).because(detail).help(
            match o {
                Origin::Input => content_help(in_actions),
                _ => "give a readable kubeconfig file (KUBECONFIG lists files, not directories); `kubectl config view` shows what kubectl reads of it",
            }
        ),
        KubeError::Client { origin: o, detail } => Words::new(unusable(o)).because(detail).help(
            "certificates and keys are PEM: in a file, or base64-encoded in the -data keys (base64 -w0 client.crt)"
        ),
        KubeError::NotContent { base64 } => Words::new(format!("{} {}", origin(&Origin::Input, in_actions), match (base64, in_actions) {
            (true, true) => "looks base64-encoded: store the decoded file",
            (true, false) => "looks base64-encoded: give the decoded file",
            (false, _) => "holds a path, not the file's content: store the file's content in the secret",
        }))
        .help(content_help(in_actions)),
        KubeError::Lacks { origin: o, context, user, name, names } => {
            lacks_words(&unusable(o), context, *user, name, names)
        }
        KubeError::Listed(path) => Words::new(format!(
            "the kubeconfig {} does not exist: --kubeconfig takes one file, not a list",
            path.display()
        ))
        .help(format!("KUBECONFIG takes a list of files and merges them, as kubectl does: run with KUBECONFIG={} and --kubernetes, without --kubeconfig", path.display())),
        KubeError::Missing(o) => Words::new(format!("the kubeconfig {} does not exist", origin(o, in_actions))).help(match o {
            Origin::Variable(_) => "none of the files KUBECONFIG lists exists (kubectl skips the missing ones, as status does): correct or unset it",
            _ => "give the path of a kubeconfig file, as for kubectl --kubeconfig (e.g. ~/.kube/config); the Action's kubeconfig input takes the file's content",
        }),
        KubeError::NoContext { origin: o, context, contexts } => Words::new(match context {
            Some(name) => format!("{}: it has no context {name:?}", unusable(o)),
            None => format!("{}: failed to determine current context", unusable(o)),
        })
        .help(match contexts.as_slice() {
            [] => "it has no context: give a kubeconfig with one (docs/status-kubernetes.md#the-kubeconfig)".to_string(),
            names => format!("name one of its contexts with {}: {}", input_name("context", None, in_actions), names.join(", ")),
        }),
        KubeError::ContextNamespace { origin: o, context } => Words::new(format!(
            "the namespace of the context {context:?} of the kubeconfig ({}) is not a Kubernetes namespace name",
            origin(o, in_actions)
        ))
        .help(format!("set {} to the hub's namespace, or correct the context's", input_name("namespace", None, in_actions))),
        KubeError::User { user, plugin, basic, namespace } => {
            user_words(user, plugin.as_deref(), *basic, namespace)
        }
        KubeError::NoCredentials { namespace } => {
            let (given, empty, fix) = match in_actions {
                true => ("the kubeconfig input is empty", format!("{EMPTY_SECRET}\n"), "give a kubeconfig (`kubeconfig:` under `with:`, a secret holding the file's content), run in the cluster with a service account, or set `kubernetes: false` to judge by start time; a kubeconfig whose user holds a ServiceAccount token"),
                false => ("no kubeconfig given", String::new(), "give a kubeconfig (--kubeconfig PATH, or KUBECONFIG), run in the cluster with a service account, or pass --kubernetes false to judge by start time; a kubeconfig whose user holds a ServiceAccount token"),
            };
            Words::new(format!("no Kubernetes credentials: {given}, no KUBECONFIG, no ~/.kube/config, not in a cluster"))
                .help(empty + &make_kubeconfig(fix, namespace))
        }
        KubeError::Credential { origin: o, fault } => credential_words(&unusable(o), fault),
        KubeError::InCluster { detail } => Words::new(
            "in the cluster (KUBERNETES_SERVICE_HOST is set) but the service account cannot be read",
        )
        .help(format!(
            "{}\nmount the service account's token at {SERVICE_ACCOUNT_TOKEN} (automountServiceAccountToken: true on the runner's pod or its ServiceAccount), or give a kubeconfig (the kubeconfig input, or --kubeconfig PATH)",
            detail.clone().unwrap_or_else(|| format!("{SERVICE_ACCOUNT_TOKEN} is not mounted"))
        )),
        KubeError::Read { server, namespace, fault } => read_words(server, namespace, fault),
    }
}

/// The words of a kubeconfig user `user` that cannot be sent: it needs `plugin`, holds a
/// user name and password (`basic`), or no credentials; the kubeconfig to make for
/// `namespace`.
fn user_words(user: &str, plugin: Option<&str>, basic: bool, namespace: &str) -> Words {
    let (what, fix) = match (plugin, basic) {
        (Some(plugin), _) => (
            format!("needs the credential plugin {plugin:?}"),
            "the image has no credential plugins (gke-gcloud-auth-plugin, aws eks get-token, kubelogin): give a kubeconfig whose user holds a ServiceAccount token",
        ),
        (None, true) => (
            "has a user name and password, which Kubernetes no longer takes".to_string(),
            "Kubernetes 1.19 removed basic authentication: give a kubeconfig whose user holds a ServiceAccount token",
        ),
        (None, false) => (
            "holds no token and no client certificate".to_string(),
            "give a kubeconfig whose user holds a ServiceAccount token or a client certificate",
        ),
    };
    Words::new(format!("the kubeconfig's user {user:?} {what}"))
        .help(make_kubeconfig(fix, namespace))
}

/// The words of a context (`context`, in the kubeconfig `unusable` says is not usable) naming
/// a cluster (or, `user`, a user) `name` that the kubeconfig lacks, which has `names`.
fn lacks_words(unusable: &str, context: &str, user: bool, name: &str, names: &[String]) -> Words {
    let what = if user { "user" } else { "cluster" };
    let names_it = match name {
        "" => format!("names no {what}"),
        name => format!("names {what} {name:?}, which it lacks"),
    };
    Words::new(format!("{unusable}: its context {context:?} {names_it}")).help(match names {
        [] => format!("it has no {what}: give a kubeconfig with one (docs/status-kubernetes.md#the-kubeconfig)"),
        names => format!("name one of its {what}s in the context: {}", names.join(", ")),
    })
}

/// The words of a failed listing of the pods of `namespace` from the API server `server`.
fn read_words(server: &str, namespace: &str, fault: &ReadFault) -> Words {
    let api = format!("the Kubernetes API server {server}");
    let kubectl = |flags: &str| {
        format!(
            "`kubectl get pods -n {namespace}{flags}` with the same kubeconfig shows what it answers"
        )
    };
    let (what, help) = match fault {
        ReadFault::Answered(code, reason, message) => {
            let (answer, fix) = match code {
                401 => ("401 Unauthorized".to_string(), "the token is expired, revoked or not the cluster's: create a new ServiceAccount token Secret (docs/status-kubernetes.md) and update the kubeconfig secret".to_string()),
                403 => ("403 Forbidden".to_string(), format!(
                    "grant the verb list on the resource pods in the namespace {namespace}: create this Role and RoleBinding (docs/status-kubernetes.md):\n\n{}",
                    role_snippet(namespace)
                )),
                410 => ("410 Gone twice".to_string(), "the pods changed too fast to list; run status again".to_string()),
                // 0: kube's code for an error answer that is no Kubernetes `Status`.
                0 => ("an error that is no Kubernetes Status".to_string(), NOT_THE_API.to_string()),
                404 => ("404 Not Found".to_string(), NOT_THE_API.to_string()),
                // The reason is empty for an answer that is no Kubernetes Status.
                code => (format!("{code} {reason}").trim_end().to_string(), match code {
                    500..=599 => format!("the API server, or a proxy in front of it, failed: run status again later; {}", kubectl("")),
                    _ => "check the API server's message; run status again".to_string(),
                }),
            };
            let words = Words::new(format!("{api} answered {answer}"));
            return match message.trim() {
                "" => words,
                message => words.because(&format!("the API server said: {message}")),
            }
            .help(fix);
        }
        ReadFault::TimedOut(timeout) => (
            format!("{api} did not answer within kube-timeout ({})", humantime::format_duration(*timeout)),
            "check that this runner can reach the API server (the kubeconfig's server address), or raise kube-timeout for a slow one".to_string(),
        ),
        ReadFault::NotAPodList(why) => {
            let why = match why {
                NotAPodList::Kind(Some(kind)) => format!("its kind is {kind:?}"),
                NotAPodList::Kind(None) => "it has no kind".to_string(),
                NotAPodList::NoItems => "it has no items".to_string(),
                NotAPodList::Decoder(words) => words.clone(),
                NotAPodList::StartTime(t) => format!("a pod has the startTime {t:?}, not an RFC 3339 time"),
            };
            return Words::new(format!("{api} answered with something that is not a pod list")).because(&why).help(
                format!("check that the kubeconfig's server is the cluster's API server itself, not a proxy, dashboard or load balancer page; {}", kubectl(" -o json")),
            );
        }
        ReadFault::EndlessList(pages) => (
            format!("{api} kept paging the pods: {pages} pages without an end"),
            format!("a continue token came back, or there were over {MAX_PAGES} pages: the API server, or a proxy in front of it, pages wrongly; {}", kubectl(" --chunk-size 500")),
        ),
        ReadFault::Tls(problem) => (
            format!("TLS failure talking to {api}: {}", super::help::tls_cause(problem)),
            match problem {
                TlsProblem::UnknownIssuer => "its certificate is signed by no CA trusted here: the kubeconfig's certificate-authority-data (or certificate-authority), else the system's roots; give the cluster's CA there (kubectl config view --raw --minify shows the one kubectl trusts)",
                _ => "check the kubeconfig's server address (the host its certificate names) and CA, and this runner's clock",
            }.to_string(),
        ),
        ReadFault::Unreachable(cause) => return Words::new(format!("cannot read pods from {api}")).because(cause).help(
            "check the kubeconfig's server address and CA, and that this runner can reach the API server",
        ),
    };
    Words::new(what).help(help)
}

/// What to do when the kubeconfig given as content holds no kubeconfig; on the command line
/// (`in_actions` false) also that --kubeconfig takes a path.
fn content_help(in_actions: bool) -> &'static str {
    match in_actions {
        true => {
            "give the kubeconfig file's whole content (YAML with clusters, users, contexts and current-context: docs/status-kubernetes.md#the-kubeconfig)"
        }
        false => {
            "give the kubeconfig file's whole content (YAML with clusters, users, contexts and current-context: docs/status-kubernetes.md#the-kubeconfig), or its path: --kubeconfig takes either"
        }
    }
}

/// What to do when the kubeconfig's server answered as no Kubernetes API server does.
const NOT_THE_API: &str = "the kubeconfig's server is not a Kubernetes API server's address: check it (kubectl config view --minify shows it); no path follows the host unless a proxy serves the API there";

/// `fix`, which is to make a kubeconfig, then the ServiceAccount-token kubeconfig for
/// `namespace`.
fn make_kubeconfig(fix: &str, namespace: &str) -> String {
    format!(
        "{fix} (docs/status-kubernetes.md):\n\n{}",
        service_account_kubeconfig(namespace)
    )
}

/// The smallest RBAC `status` needs: list pods in `namespace` (the Role and RoleBinding of
/// docs/status-kubernetes.md, from `kube/role.yaml`).
pub(crate) fn role_snippet(namespace: &str) -> String {
    in_namespace(include_str!("kube/role.yaml"), namespace)
}

/// The ServiceAccount-token kubeconfig to make, for `namespace` (`kube/kubeconfig.yaml`).
pub(crate) fn service_account_kubeconfig(namespace: &str) -> String {
    in_namespace(include_str!("kube/kubeconfig.yaml"), namespace)
}

/// `yaml` with its `{namespace}` written `namespace`, without its final newline.
fn in_namespace(yaml: &str, namespace: &str) -> String {
    yaml.trim_end().replace("{namespace}", namespace)
}

/// The info line of a Kubernetes request: the namespace (and where it came from), the
/// release, and the context and kubeconfig (or the service account) it is read through
/// (`in_actions` as for [`origin`]).
pub(crate) fn reading(request: &KubeRequest, in_actions: bool) -> String {
    let from = match request.namespace_from {
        NamespaceFrom::Input => "",
        NamespaceFrom::Context => " (the context's)",
        NamespaceFrom::Default => " (the default: the context sets none)",
    };
    let through = match &request.credentials {
        Credentials::Kubeconfig {
            context, origin: o, ..
        } => {
            format!("the context {context:?} of {}", origin(o, in_actions))
        }
        Credentials::InCluster => "the in-cluster service account".to_string(),
    };
    format!(
        "Kubernetes: reading the pods of namespace {}{from}, release {}, through {through}",
        request.query.namespace, request.query.release
    )
}

/// The debug line after the pods were read.
pub(crate) fn read(pods: usize, requests: u32, restarted: bool) -> String {
    let restarted = match restarted {
        true => " (the listing restarted once after 410 Gone)",
        false => "",
    };
    format!("Kubernetes: {pods} single-user pod(s) in {requests} request(s){restarted}")
}

impl Titled for KubeWarning {
    fn title(&self) -> &str {
        match self {
            Self::PlainHttp(_) => "Plain HTTP",
            Self::SkipsTlsVerify(_) => "Unverified TLS",
        }
    }
}

impl fmt::Display for KubeWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::PlainHttp(server) => RunWarning::PlainHttp {
                input: "kubeconfig",
                url: server,
                token: "its user's token or password",
            }
            .fmt(f),
            Self::SkipsTlsVerify(server) => Words::new(format!(
                "kubeconfig: the cluster {server} is read with insecure-skip-tls-verify: true"
            ))
            .help("its certificate is not checked, so the token goes to whoever answers at that address: give the cluster's CA (certificate-authority-data) instead")
            .fmt(f),
        }
    }
}

/// The words of a credential of the chosen kubeconfig user or cluster that cannot be sent
/// ([`CredentialFault`]), found before anything was sent; `unusable` says which kubeconfig is
/// not usable.
fn credential_words(unusable: &str, fault: &CredentialFault) -> Words {
    match fault {
        CredentialFault::File { key, path, error } => {
            Words::new(format!("{unusable}: its {key} cannot be read")).help(format!(
                "{}: {error}\nthe file {key} names must exist and be readable here, as kubectl reads it (a relative path counts from the kubeconfig's folder); in the Action, give certificates and keys inline (client-certificate-data, client-key-data, certificate-authority-data) and the token as token",
                crate::support::sanitize::log_line(path, 300)
            ))
        }
        CredentialFault::Token { key, empty: true } => Words::new(format!(
            "{unusable}: its user's {key} is empty"
        ))
        .help("it would be sent as no credentials: put the ServiceAccount token there (kubectl create token prints it)"),
        CredentialFault::Token { key, empty: false } => Words::new(format!(
            "{unusable}: its user's {key} holds a space, control or non-ASCII character"
        ))
        .help("a copy-paste left a space, a zero-width or no-break space or a line break in it: paste the ServiceAccount token again (kubectl create token prints it); the token itself is never shown"),
        CredentialFault::Scheme { key } => Words::new(format!(
            "{unusable}: its user's {key} starts with the scheme `Bearer `"
        ))
        .help("give the token without the `Bearer ` scheme: the client adds it (as client-go does), so the API server would get `Bearer Bearer …` and answer 401 Unauthorized; the token itself is never shown"),
        CredentialFault::NoKey { user } => Words::new(format!(
            "{unusable}: its user {user:?} has no client-key-data or client-key"
        ))
        .help("a client certificate goes with its key, else kube sends neither (kubectl refuses a certificate without its key: client-key-data or client-key must be specified to use the clientCert authentication method): give both, base64-encoded in client-certificate-data and client-key-data, or a ServiceAccount token"),
        CredentialFault::NotBase64 { user, key } => Words::new(format!(
            "{unusable}: its user {user:?}'s {key} is not base64"
        ))
        .help(format!("kubectl refuses it too (illegal base64 data): {key} holds the PEM file base64-encoded (base64 -w0 FILE); the value is never shown")),
        CredentialFault::Server => Words::new(format!(
            "{unusable}: its cluster's server is not an http:// or https:// address"
        ))
        .help("set the cluster's server to the API server's address, e.g. https://10.0.0.1:6443 (kubectl config view shows it)"),
    }
}

#[cfg(test)]
mod tests;
