//! The credentials of the Kubernetes edge, as kubectl finds them ([`resolve`], module
//! documentation of [`super`]), checked before anything is sent; the kubeconfig's secrets
//! to mask.

use super::{
    CredentialFault, Credentials, DEFAULT_NAMESPACE, KubeError, KubeInputs, KubeRequest,
    NamespaceFrom, Origin, PodQuery, SERVICE_ACCOUNT_TOKEN, one_line,
};
use crate::support::files::ReadError;
use crate::support::text::without_values;
use kube::config::{AuthInfo, Kubeconfig};
use secrecy::ExposeSecret;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

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

/// [`kubeconfig_secrets`] of a kubeconfig's `content`; when it does not parse, the values of
/// the keys kubectl never prints (`token`, `password`, `client-key-data`, also as
/// `id-token`, `refresh-token`): after the key, a quoted string, else in a flow mapping
/// (`{token: X, …}`) the text up to its `,` or `}`, else the rest of the line (the next line
/// after a block scalar's `|`). Not its other lines: `apiVersion: v1` masked would hide
/// those words everywhere in the log.
pub(crate) fn content_secrets(content: &str) -> Vec<String> {
    if let Ok(config) = Kubeconfig::from_yaml(content) {
        return kubeconfig_secrets(&config);
    }
    let key = regex::Regex::new(r#"\b(?:token|password|client-key-data)["']?[ \t]*:"#)
        .expect("the key pattern compiles");
    let value = |found: regex::Match| {
        let line = content[..found.start()]
            .rsplit('\n')
            .next()
            .unwrap_or_default();
        let mut after = content[found.end()..].lines().map(str::trim);
        let first = after.next().unwrap_or_default();
        let text = match first.is_empty() || first.starts_with(['|', '>']) {
            true => after.next().unwrap_or_default(),
            false => first,
        };
        let value = match text.chars().next() {
            Some(quote @ ('"' | '\'')) => text[1..].split(quote).next(),
            _ if line.contains('{') => text.split([',', '}']).next(),
            _ => Some(text),
        };
        value.unwrap_or_default().trim().to_string()
    };
    let values = key.find_iter(content).map(value);
    values.filter(|v| !v.is_empty()).collect()
}

/// The Kubernetes request `inputs` give, with credentials as kubectl finds them (module
/// documentation of [`super`]), each checked before anything is sent: `env` is the process
/// environment (`KUBECONFIG`, `HOME`, `KUBERNETES_SERVICE_HOST`).
///
/// # Errors
/// [`KubeError::Missing`], [`KubeError::Listed`], [`KubeError::Unreadable`] (a kubeconfig
/// that does not parse, or a pipe not read to its end within `inputs.timeout`),
/// [`KubeError::NotContent`], [`KubeError::NoContext`], [`KubeError::Lacks`] (a cluster or
/// user the context names), [`KubeError::ContextNamespace`], [`KubeError::Credential`],
/// [`KubeError::User`], [`KubeError::Client`] (a client certificate, key or CA that is not
/// PEM), [`KubeError::InCluster`] (no token mounted), [`KubeError::NoCredentials`].
pub(crate) fn resolve(
    inputs: KubeInputs,
    env: &HashMap<String, String>,
) -> Result<KubeRequest, KubeError> {
    let found = match inputs.kubeconfig {
        Some((content, true)) => Some((parse(content, Origin::Input)?, Origin::Input)),
        Some((path, false)) => Some(read(&[Origin::Flag(home_path(path, env))], inputs.timeout)?),
        None => kubeconfig_files(env)
            .map(|files| read(&files, inputs.timeout))
            .transpose()?,
    };
    let (credentials, (namespace, namespace_from)) = match found {
        Some((config, origin)) => from_kubeconfig(inputs, config, origin)?,
        None => (in_cluster(inputs, env)?, namespace(inputs, None)),
    };
    Ok(KubeRequest {
        credentials,
        query: PodQuery {
            namespace,
            release: inputs.release.to_string(),
        },
        namespace_from,
        timeout: inputs.timeout,
    })
}

/// The namespace read: `--namespace`, else the context's (`context`), else
/// [`DEFAULT_NAMESPACE`]; and where it came from.
fn namespace(inputs: KubeInputs, context: Option<String>) -> (String, NamespaceFrom) {
    match (inputs.namespace, context) {
        (Some(ns), _) => (ns.to_string(), NamespaceFrom::Input),
        (None, Some(ns)) => (ns, NamespaceFrom::Context),
        (None, None) => (DEFAULT_NAMESPACE.to_string(), NamespaceFrom::Default),
    }
}

/// The in-cluster service account, when `env` says this runs in a cluster and its token is
/// mounted.
fn in_cluster(inputs: KubeInputs, env: &HashMap<String, String>) -> Result<Credentials, KubeError> {
    let host = env.get("KUBERNETES_SERVICE_HOST");
    if host.is_none_or(|v| v.trim().is_empty()) {
        let namespace = inputs.namespace.unwrap_or(DEFAULT_NAMESPACE).to_string();
        return Err(KubeError::NoCredentials { namespace });
    }
    if !Path::new(SERVICE_ACCOUNT_TOKEN).is_file() {
        return Err(KubeError::InCluster { detail: None });
    }
    Ok(Credentials::InCluster)
}

/// The credentials of `config` (from `origin`): the context `--context` names, else the
/// current one, with the cluster and user it names (refused if the kubeconfig lacks them),
/// whose credentials can be sent ([`checked_credentials`], [`usable_user`]); and the
/// namespace read ([`namespace`]), checked to be a name.
fn from_kubeconfig(
    inputs: KubeInputs,
    mut config: Kubeconfig,
    origin: Origin,
) -> Result<(Credentials, (String, NamespaceFrom)), KubeError> {
    let asked = inputs.context.or(config.current_context.as_deref());
    let Some(found) = asked.and_then(|name| config.contexts.iter().find(|c| c.name == name)) else {
        let contexts = config.contexts.iter().map(|c| c.name.clone()).collect();
        let context = asked.map(String::from);
        return Err(KubeError::NoContext {
            origin,
            context,
            contexts,
        });
    };
    let (context, chosen) = (
        found.name.clone(),
        found.context.clone().unwrap_or_default(),
    );
    let lacks = |user: bool, name: &str, names: Vec<String>| KubeError::Lacks {
        origin: origin.clone(),
        context: context.clone(),
        user,
        name: one_line(name),
        names,
    };
    let cluster = cluster_named(&config, &chosen.cluster);
    let cluster = cluster.map_err(|names| lacks(false, &chosen.cluster, names))?;
    let (namespace, from) = namespace(inputs, chosen.namespace);
    if !crate::support::kube_name::NameKind::Namespace.takes(&namespace) {
        return Err(KubeError::ContextNamespace { origin, context });
    }
    let user = chosen.user.unwrap_or_default();
    let Some(auth) = config.auth_infos.iter_mut().find(|a| a.name == user) else {
        let names = config.auth_infos.iter().map(|a| a.name.clone()).collect();
        return Err(lacks(true, &user, names));
    };
    let mut auth = auth.auth_info.as_mut();
    checked_credentials(auth.as_deref_mut(), &user, &cluster).map_err(|fault| {
        KubeError::Credential {
            origin: origin.clone(),
            fault,
        }
    })?;
    usable_user(auth.as_deref(), &user, &namespace)?;
    let client = client_config(&config, &context).map_err(|detail| KubeError::Client {
        origin: origin.clone(),
        detail: one_line(&detail),
    })?;
    let credentials = Credentials::Kubeconfig {
        config: Box::new(config),
        client: Box::new(client),
        context,
        origin,
    };
    Ok((credentials, (namespace, from)))
}

/// The cluster named `name` in `config`, or the names of those it has.
fn cluster_named(config: &Kubeconfig, name: &str) -> Result<kube::config::Cluster, Vec<String>> {
    let clusters = config.clusters.iter();
    let cluster = clusters.clone().find(|c| c.name == name);
    (cluster.and_then(|c| c.cluster.clone()))
        .ok_or_else(|| clusters.map(|c| c.name.clone()).collect())
}

/// kube's configuration of the client of `context` in `config`, and the client's stack built
/// from it now (kube's `ClientBuilder`: TLS, credentials, proxy; nothing sent, nothing
/// spawned), as the pods stage builds it: a client certificate, key or CA that is not PEM
/// fails only there. kube reads CA data holding no certificate as no CA at all; client-go
/// 1.37 refuses it (transport's `createErrorParsingCAData`, whose words the error's are).
///
/// # Errors
/// kube's words, or client-go's.
fn client_config(config: &Kubeconfig, context: &str) -> Result<kube::Config, String> {
    let mut chosen = config.clone();
    chosen.current_context = Some(context.to_string());
    crate::support::tls::install_provider();
    // kube's words and the causes they do not end in yet (a CA's base64 error).
    let chain = |e: kube::config::KubeconfigError| {
        let causes = std::iter::successors(Some(&e as &dyn std::error::Error), |e| e.source());
        let causes = causes.map(ToString::to_string);
        let said = |all: String, cause: String| match all.ends_with(&cause) {
            true => all,
            false => format!("{all}: {cause}"),
        };
        causes.reduce(said).unwrap_or_default()
    };
    let client = kube::Config::try_from(chosen).map_err(chain)?;
    if client.root_cert.as_ref().is_some_and(Vec::is_empty) {
        return Err("no valid certificate authority data seen".to_string());
    }
    kube::client::ClientBuilder::try_from(client.clone()).map_err(|e| e.to_string())?;
    Ok(client)
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

/// The most bytes a kubeconfig file or a `tokenFile` may hold (1 MiB, as values files): a
/// kubeconfig of a few clusters is a few kilobytes.
pub(crate) const KUBECONFIG_MAX_BYTES: u64 = 1 << 20;

/// What kubectl would refuse or trim of the chosen user (`auth`) and `cluster`, checked
/// before anything is sent: the token trimmed of the spaces and line breaks around it (a
/// YAML block scalar ends in one) and refused unless printable ASCII (all an HTTP header
/// carries, no space inside: RFC 6750's `b64token`; kube would panic building it) and not
/// empty (an empty one is sent as no credentials, answered as `system:anonymous`), nor
/// starting with the scheme `Bearer ` (client-go adds it: [`CredentialFault::Scheme`]); a
/// `tokenFile` read now into the token (trimmed
/// and checked alike, as client-go 1.37's `cachingFileTokenSource` trims it), so the token
/// is registered as a secret as an inline one is; the files the user and the cluster name
/// present (kubectl refuses a missing client certificate rather than sending no
/// credentials); the `server` an `http://` or `https://` URL.
///
/// # Errors
/// The first [`CredentialFault`].
fn checked_credentials(
    auth: Option<&mut AuthInfo>,
    user: &str,
    cluster: &kube::config::Cluster,
) -> Result<(), CredentialFault> {
    use crate::support::files::{read_bytes, read_text};
    let file = |key: &'static str, path: &String| {
        read_bytes(Path::new(path), KUBECONFIG_MAX_BYTES)
            .map(drop)
            .map_err(|error| CredentialFault::File {
                key,
                path: path.clone(),
                error,
            })
    };
    let server = cluster
        .server
        .as_deref()
        .and_then(|s| url::Url::parse(s).ok());
    if !server.is_some_and(|u| matches!(u.scheme(), "http" | "https")) {
        return Err(CredentialFault::Server);
    }
    if let Some(path) = &cluster.certificate_authority {
        file("certificate-authority", path)?;
    }
    let Some(auth) = auth else { return Ok(()) };
    client_certificate(auth, user)?;
    for (key, path) in [
        ("client-certificate", &auth.client_certificate),
        ("client-key", &auth.client_key),
    ] {
        path.as_ref().map(|p| file(key, p)).transpose()?;
    }
    let (token, key) = match (&auth.token, auth.token_file.take()) {
        (Some(token), _) => (token.expose_secret().to_string(), "token"),
        (None, Some(path)) => {
            let read = read_text(Path::new(&path), KUBECONFIG_MAX_BYTES);
            let key = "tokenFile";
            (
                read.map_err(|error| CredentialFault::File { key, path, error })?,
                key,
            )
        }
        (None, None) => return Ok(()),
    };
    let token = token.trim();
    let scheme = token.split_once(char::is_whitespace).map(|(s, _)| s);
    if scheme.is_some_and(|s| s.eq_ignore_ascii_case("bearer")) {
        return Err(CredentialFault::Scheme { key });
    }
    let empty = token.is_empty();
    if empty || !token.chars().all(|c| c.is_ascii_graphic()) {
        return Err(CredentialFault::Token { key, empty });
    }
    auth.token = Some(token.to_string().into());
    Ok(())
}

/// The client certificate of `auth` (the user `user`) with its key, and the `-data` ones
/// base64 as kube decodes them: kube drops an identity it cannot load (kube-client 3.1's
/// `ConfigLoader::identity_pem` is `.ok()`), sending no credentials.
fn client_certificate(auth: &AuthInfo, user: &str) -> Result<(), CredentialFault> {
    use base64::Engine;
    let user = one_line(user);
    let certificate = auth.client_certificate.is_some() || auth.client_certificate_data.is_some();
    let key = auth.client_key.is_some() || auth.client_key_data.is_some();
    if certificate && !key {
        return Err(CredentialFault::NoKey { user });
    }
    let key_data = auth
        .client_key_data
        .as_ref()
        .map(ExposeSecret::expose_secret);
    for (key, data) in [
        (
            "client-certificate-data",
            auth.client_certificate_data.as_deref(),
        ),
        ("client-key-data", key_data),
    ] {
        let decoded = data.map(|d| base64::engine::general_purpose::STANDARD.decode(d));
        if decoded.is_some_and(|d| d.is_err()) {
            return Err(CredentialFault::NotBase64 { user, key });
        }
    }
    Ok(())
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
/// The input's content that is no kubeconfig but a path (one line starting `/`, `~/` or
/// `./`) or a kubeconfig base64-encoded (line breaks aside) is refused as such.
fn parse(content: &str, origin: Origin) -> Result<Kubeconfig, KubeError> {
    use base64::Engine;
    Kubeconfig::from_yaml(content).map_err(|e| {
        let text = content.trim();
        let path = !text.contains('\n') && text.starts_with(['/', '~', '.']);
        let packed: String = text.split_whitespace().collect();
        let decoded = base64::engine::general_purpose::STANDARD.decode(packed);
        let decoded = decoded.ok().and_then(|d| String::from_utf8(d).ok());
        let base64 = decoded.is_some_and(|d| Kubeconfig::from_yaml(&d).is_ok());
        match (path, base64) {
            (false, false) => KubeError::Unreadable {
                origin,
                detail: one_line(&without_values(&e.to_string())),
            },
            _ => KubeError::NotContent { base64 },
        }
    })
}

/// The kubeconfig `files` hold, merged in order (client-go's rules, kube's
/// [`Kubeconfig::merge`]), and where it came from (the files `KUBECONFIG` lists, as one).
/// A file may be a pipe, as kubectl reads `--kubeconfig <(…)`, read for at most `wait` (the
/// Kubernetes requests' timeout, [`crate::support::files::read_piped`]).
fn read(all: &[Origin], wait: std::time::Duration) -> Result<(Kubeconfig, Origin), KubeError> {
    // As client-go 1.37's loader: a file `KUBECONFIG` lists that does not exist is skipped,
    // unless none does.
    let listed = |o: &&Origin| !matches!(o, Origin::Variable(path) if !path.exists());
    let files: Vec<Origin> = all.iter().filter(listed).cloned().collect();
    if files.is_empty() {
        return Err(KubeError::Missing(files_origin(all)));
    }
    let mut merged = Kubeconfig::default();
    for origin in &files {
        let (Origin::Flag(path) | Origin::Variable(path) | Origin::Home(path)) = origin else {
            continue;
        };
        let unreadable = |detail| KubeError::Unreadable {
            origin: origin.clone(),
            detail,
        };
        // Read within the cap, as every file here is. A regular file is then read by kube
        // (which makes the paths in it absolute against its folder); a pipe (`<(…)`, as
        // kubectl takes it) only once, so parsed as read.
        let bytes = match crate::support::files::read_piped(path, KUBECONFIG_MAX_BYTES, wait) {
            Err(ReadError::NotFound) => match origin {
                Origin::Flag(p) if std::env::split_paths(p).any(|p| p.is_file()) => {
                    return Err(KubeError::Listed(p.clone()));
                }
                _ => return Err(KubeError::Missing(origin.clone())),
            },
            Err(error) => return Err(unreadable(error.to_string())),
            Ok(bytes) => bytes,
        };
        let config = match path.is_file() {
            true => Kubeconfig::read_from(path),
            false => Kubeconfig::from_yaml(&String::from_utf8_lossy(&bytes)),
        };
        let config = config.map_err(|e| unreadable(one_line(&without_values(&e.to_string()))))?;
        merged = merged
            .merge(config)
            .map_err(|e| unreadable(e.to_string()))?;
    }
    Ok((merged, files_origin(&files)))
}

/// Where the kubeconfig of `files` came from: the one file, or the files `KUBECONFIG` lists,
/// as one.
fn files_origin(files: &[Origin]) -> Origin {
    match files {
        [one] => one.clone(),
        _ => {
            let paths = files.iter().filter_map(|f| match f {
                Origin::Variable(path) => Some(path),
                _ => None,
            });
            Origin::Variable(std::env::join_paths(paths).unwrap_or_default().into())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{KUBECONFIG, kubeconfig};
    use super::super::{KubeWarning, SERVICE_ACCOUNT_TOKEN};
    use super::*;
    use std::os::unix::fs::OpenOptionsExt;
    use std::time::Duration;

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

    /// The request the kubeconfig `content`, given as the input, resolves to (release jhub,
    /// nothing else set).
    fn of_content(content: &str) -> KubeRequest {
        let inputs = KubeInputs {
            kubeconfig: Some((content, true)),
            context: None,
            namespace: None,
            release: "jhub",
            timeout: Duration::from_secs(1),
        };
        resolve(inputs, &HashMap::new()).unwrap()
    }

    /// A token that ends in a line break (a YAML block scalar) or comes from a `tokenFile` is
    /// sent trimmed, as kubectl's client trims a token file: never a header kube cannot
    /// build (it panics on one).
    #[test]
    fn tokens_are_trimmed_and_a_token_file_is_read_into_the_token() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("token");
        std::fs::write(&file, "  file-token-0123456789\n").unwrap();
        let block = kubeconfig(
            "user: {token: sa-token-0123456789}",
            "user:\n      token: |\n        sa-token-0123456789\n",
        );
        let from_file = kubeconfig(
            "{token: sa-token-0123456789}",
            &format!("{{tokenFile: '{}'}}", file.display()),
        );
        let sent = |content: &str| {
            let Credentials::Kubeconfig { config, .. } = of_content(content).credentials else {
                panic!("a kubeconfig")
            };
            let user = config.auth_infos[0].auth_info.clone().unwrap();
            (
                user.token.map(|t| t.expose_secret().to_string()),
                user.token_file,
            )
        };
        assert_eq!(sent(&block), (Some("sa-token-0123456789".into()), None));
        assert_eq!(
            sent(&from_file),
            (Some("file-token-0123456789".into()), None)
        );
        let config = Kubeconfig::from_yaml(&from_file).unwrap();
        assert!(
            kubeconfig_secrets(&config).is_empty(),
            "read only when resolved"
        );
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
            "a client certificate and key that are not PEM",
            content(leak(
                "{token: sa-token-0123456789}",
                "{client-certificate-data: Q0VSVA==, client-key-data: S0VZ}",
            )),
            &[],
        );
        for (what, user) in [
            (
                "a client certificate without its key",
                "{client-certificate-data: Q0VSVA==}",
            ),
            (
                "a client key without its certificate",
                "{client-key-data: S0VZ}",
            ),
            (
                "a client key without its certificate, beside a token (client-go ignores the key)",
                "{token: sa-token-0123456789, client-key-data: S0VZ}",
            ),
            (
                "a client key that is not base64",
                "{client-certificate-data: Q0VSVA==, client-key-data: SECRETKEY_notb64!!}",
            ),
            (
                "a client certificate that is not base64",
                "{client-certificate-data: 'Q0VSVA= =', client-key-data: S0VZ}",
            ),
        ] {
            case(
                what,
                content(leak("{token: sa-token-0123456789}", user)),
                &[],
            );
        }
        case(
            "a CA that is not base64",
            content(leak(
                "{server: https://127.0.0.1:6443}",
                "{server: https://127.0.0.1:6443, certificate-authority-data: 'not base64!'}",
            )),
            &[],
        );
        case(
            "a user it lacks",
            content(leak(
                "cluster: hub, user: reader, namespace",
                "cluster: hub, user: ghost, namespace",
            )),
            &[],
        );
        case(
            "a CA that is not PEM",
            content(leak(
                "{server: https://127.0.0.1:6443}",
                "{server: https://127.0.0.1:6443, certificate-authority-data: Q0VSVA==}",
            )),
            &[],
        );
        let openssl = std::process::Command::new("openssl")
            .args(["req", "-x509", "-newkey", "ec", "-pkeyopt"])
            .args([
                "ec_paramgen_curve:prime256v1",
                "-nodes",
                "-subj",
                "/CN=reader",
            ])
            .args(["-keyout", "client.key", "-out", "client.crt"])
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(openssl.status.success(), "{openssl:?}");
        case(
            "a client certificate and key (PEM)",
            content(leak(
                "{token: sa-token-0123456789}",
                &format!(
                    "{{client-certificate: '{}', client-key: '{}'}}",
                    path("client.crt"),
                    path("client.key")
                ),
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
        let token_file = path("token");
        std::fs::write(&token_file, "file-token-0123456789\n").unwrap();
        let with_file = |key: &str, file: &str| -> &'static str {
            leak(
                "{token: sa-token-0123456789}",
                &format!("{{{key}: '{file}'}}"),
            )
        };
        case(
            "a token file that exists (read now, trimmed)",
            content(with_file("tokenFile", &token_file)),
            &[],
        );
        case(
            "a client certificate file that does not exist",
            content(leak(
                "{token: sa-token-0123456789}",
                "{client-certificate: /nowhere/client.crt, client-key: /nowhere/client.key}",
            )),
            &[],
        );
        case(
            "a CA file that does not exist",
            content(leak(
                "{server: https://127.0.0.1:6443}",
                "{server: https://127.0.0.1:6443, certificate-authority: /nowhere/ca.crt}",
            )),
            &[],
        );
        case(
            "an empty token",
            content(leak("{token: sa-token-0123456789}", "{token: '  '}")),
            &[],
        );
        for (what, token) in [
            ("a token with a space inside", "'sa-token 0123456789'"),
            (
                "a token with the Bearer scheme, as an Authorization header",
                "'Bearer sa-token-0123456789'",
            ),
            (
                "a token with a zero-width space",
                "sa-token-\u{200b}0123456789",
            ),
        ] {
            case(what, content(leak("sa-token-0123456789", token)), &[]);
        }
        for server in ["not a url", "ftp://127.0.0.1:6443"] {
            let to = format!("{{server: '{server}'}}");
            case(
                &format!("a server {server:?}"),
                content(leak("{server: https://127.0.0.1:6443}", &to)),
                &[],
            );
        }
        case(
            "content that is not a kubeconfig",
            content("users: [{name: x, user: SECRET-token}]"),
            &[],
        );
        let encoded = {
            use base64::Engine;
            base64::engine::general_purpose::STANDARD.encode(KUBECONFIG)
        };
        for (what, text) in [
            ("a path as the content", "/home/u/.kube/config\n"),
            ("~/.kube/config as the content", "~/.kube/config"),
            ("the content base64-encoded", encoded.leak()),
        ] {
            case(what, content(text), &[]);
        }
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
        let fifo = dir.path().join("fifo");
        crate::support::files::make_fifo(&fifo);
        case(
            "--kubeconfig a FIFO nothing writes (read for at most the timeout)",
            KubeInputs {
                kubeconfig: Some((fifo.to_str().unwrap(), false)),
                ..none
            },
            &[],
        );
        // Its reader, left waiting, let go.
        let mut writer = std::fs::OpenOptions::new();
        let _ = writer
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&fifo);
        case(
            "--kubeconfig /dev/zero",
            KubeInputs {
                kubeconfig: Some(("/dev/zero", false)),
                ..none
            },
            &[],
        );
        let list = format!("{good}:{second}");
        case(
            "--kubeconfig a list of files, as KUBECONFIG takes",
            KubeInputs {
                kubeconfig: Some((&list, false)),
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
            "KUBECONFIG naming a file that does not exist and one that does (skipped)",
            none,
            &[("KUBECONFIG", format!("/nowhere/kubeconfig:{good}"))],
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

    /// Of a kubeconfig that does not parse, only the values kubectl never prints are masked,
    /// not its every line (`apiVersion: v1` would hide those words everywhere in the log).
    #[test]
    fn a_kubeconfig_that_does_not_parse_has_only_its_secret_values_masked() {
        let cases = [
            "apiVersion: v1\nclusters: [\nusers:\n- name: r\n  user:\n    token: sa-token-0123\n    password: 'pw, with: comma'\n",
            "users: [{name: r, user: {token: sa-token-0123, client-key-data: S0VZ}}",
            r#"{"users":[{"name":"r","user":{"token":"sa-token-0123","id-token":"id.jwt"}}]"#,
            "users:\n- user:\n    token: |\n      sa-token-0123\n    tokenFile: /var/token\n  bad: [\n",
        ];
        let table = cases.map(|content| format!("{content:?}\n  {:?}", content_secrets(content)));
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
        let warnings = |content: String| of_content(&content).warnings();
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
}
