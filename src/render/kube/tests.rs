use super::*;
use crate::render::words::assert_shape;
use crate::status::kube::{KubeInputs, PodQuery, ReadFault, resolve};
use kube::core::Status;
use std::path::PathBuf;
use std::time::Duration;

/// kube's reason for an error answer that is no Kubernetes Status (kube-client 3.1).
const NOT_PARSED: &str = "Failed to parse error data";

/// Every variant's words: one first line of at most 120 characters, then the help; the
/// kubeconfig template only where making one is the fix, the Role only for a 403.
#[test]
fn every_kubernetes_error_says_what_failed_then_what_to_do() {
    let namespace = || "jhub".to_string();
    let read = |fault| KubeError::Read {
        server: "https://10.0.0.1:6443/".into(),
        namespace: namespace(),
        fault,
    };
    let file = || PathBuf::from("/home/me/.kube/config");
    let errors = [
        KubeError::Unreadable { origin: Origin::Input, detail: "the structure of the parsed kubeconfig is invalid: invalid type: string, expected struct AuthInfo".into() },
        KubeError::Unreadable { origin: Origin::Variable(file()), detail: "not a regular file".into() },
        KubeError::Client { origin: Origin::Input, detail: "failed to load certificate authority: failed to decode base64 data: Invalid symbol 32, offset 3.".into() },
        KubeError::NotContent { base64: false },
        KubeError::NotContent { base64: true },
        KubeError::Lacks { origin: Origin::Input, context: "hub".into(), user: false, name: "ghost".into(), names: vec!["hub".into(), "dev".into()] },
        KubeError::Lacks { origin: Origin::Input, context: "hub".into(), user: true, name: "ghost".into(), names: vec!["reader".into()] },
        KubeError::Lacks { origin: Origin::Input, context: "hub".into(), user: true, name: "".into(), names: Vec::new() },
        KubeError::Missing(Origin::Flag(file())),
        KubeError::Missing(Origin::Variable(PathBuf::from("/etc/kube/ci.yaml"))),
        KubeError::Listed(PathBuf::from("ci.yaml:dev.yaml")),
        KubeError::NoContext { origin: Origin::Home(file()), context: Some("prod".into()), contexts: vec!["hub".into(), "dev".into()] },
        KubeError::NoContext { origin: Origin::Input, context: None, contexts: Vec::new() },
        KubeError::ContextNamespace { origin: Origin::Input, context: "hub".into() },
        KubeError::Credential { origin: Origin::Flag(file()), fault: CredentialFault::File { key: "client-certificate", path: "/home/ops/.minikube/client.crt".into(), error: crate::support::files::ReadError::NotFound } },
        KubeError::Credential { origin: Origin::Input, fault: CredentialFault::Token { key: "tokenFile", empty: false } },
        KubeError::Credential { origin: Origin::Input, fault: CredentialFault::Token { key: "token", empty: true } },
        KubeError::Credential { origin: Origin::Input, fault: CredentialFault::Server },
        KubeError::Credential { origin: Origin::Flag(file()), fault: CredentialFault::Scheme { key: "token" } },
        KubeError::Credential { origin: Origin::Input, fault: CredentialFault::NoKey { user: "reader".into() } },
        KubeError::Credential { origin: Origin::Input, fault: CredentialFault::NotBase64 { user: "reader".into(), key: "client-key-data" } },
        KubeError::User { user: "gke_user".into(), plugin: Some("gke-gcloud-auth-plugin".into()), basic: false, namespace: namespace() },
        KubeError::User { user: "admin".into(), plugin: None, basic: true, namespace: namespace() },
        KubeError::User { user: "reader".into(), plugin: None, basic: false, namespace: namespace() },
        KubeError::NoCredentials { namespace: namespace() },
        KubeError::InCluster { detail: None },
        read(ReadFault::Answered(401, "Unauthorized".into(), "Unauthorized".into())),
        read(ReadFault::Answered(403, "Forbidden".into(), "pods is forbidden: User \"system:serviceaccount:jhub:x\" cannot list resource \"pods\" in API group \"\" in the namespace \"jhub\"".into())),
        read(ReadFault::Answered(410, "Expired".into(), "The provided continue parameter is too old".into())),
        read(ReadFault::Answered(500, "InternalError".into(), "etcdserver: request timed out".into())),
        read(ReadFault::answered(&Status::failure("404 page not found", NOT_PARSED).with_code(404))),
        read(ReadFault::answered(&Status::failure("<html>502 Bad Gateway</html>", NOT_PARSED).with_code(502))),
        read(ReadFault::Answered(0, "".into(), "not found".into())),
        read(ReadFault::TimedOut(Duration::from_secs(30))),
        read(ReadFault::NotAPodList(NotAPodList::Kind(Some("Status".into())))),
        read(ReadFault::NotAPodList(NotAPodList::StartTime("yesterday".into()))),
        read(ReadFault::EndlessList(2)),
        read(ReadFault::Tls(TlsProblem::UnknownIssuer)),
        read(ReadFault::Tls(TlsProblem::Expired)),
        read(ReadFault::Unreachable("Connection refused (os error 111)".into())),
    ];
    let mut shown = Vec::new();
    for e in &errors {
        let words = words(e, true);
        assert_shape(&words);
        let help = words.help.as_deref().unwrap_or_default();
        let makes = matches!(e, KubeError::User { .. } | KubeError::NoCredentials { .. });
        assert_eq!(help.contains("token: TOKEN"), makes, "{words}");
        let forbidden = matches!(
            e,
            KubeError::Read {
                fault: ReadFault::Answered(403, ..),
                ..
            }
        );
        assert_eq!(help.contains("kind: Role"), forbidden);
        // The one template is shown in full once; the rest is one line each.
        if !makes && !forbidden {
            assert!(help.lines().count() <= 2, "{words}");
        }
        shown.push(words.to_string());
    }
    // On the command line, content given to --kubeconfig is named as such, not as the input,
    // and no credentials at all say no kubeconfig was given (inside Actions: it is empty).
    for e in [&errors[0], &errors[4], &errors[12], &errors[24]] {
        shown.push(format!("on the command line: {}", words(e, false)));
    }
    insta::assert_snapshot!(shown.join("\n\n"));
}

/// The run says which namespace (and where it came from), release and context it reads.
#[test]
fn the_info_line_names_the_namespace_and_the_context_read() {
    let kubeconfig = crate::status::kube::tests::KUBECONFIG;
    let with = |namespace, context, in_actions| {
        let inputs = KubeInputs {
            kubeconfig: Some((kubeconfig, true)),
            context,
            namespace,
            release: "jhub",
            timeout: Duration::from_secs(1),
        };
        reading(&resolve(inputs, &Default::default()).unwrap(), in_actions)
    };
    let in_cluster = KubeRequest {
        credentials: Credentials::InCluster,
        query: PodQuery {
            namespace: "jhub".into(),
            release: "hub".into(),
        },
        namespace_from: NamespaceFrom::Default,
        timeout: Duration::from_secs(1),
    };
    insta::assert_snapshot!([with(None, None, true), with(Some("given"), None, true), with(None, Some("other"), true), reading(&in_cluster, true), with(None, None, false)].join("\n"), @r#"
    Kubernetes: reading the pods of namespace hub-ns (the context's), release jhub, through the context "hub" of the kubeconfig input
    Kubernetes: reading the pods of namespace given, release jhub, through the context "hub" of the kubeconfig input
    Kubernetes: reading the pods of namespace jhub (the default: the context sets none), release jhub, through the context "other" of the kubeconfig input
    Kubernetes: reading the pods of namespace jhub (the default: the context sets none), release hub, through the in-cluster service account
    Kubernetes: reading the pods of namespace hub-ns (the context's), release jhub, through the context "hub" of --kubeconfig's content
    "#);
}

#[test]
fn a_cluster_read_without_checking_its_certificate_is_a_warning_saying_so() {
    let warning = KubeWarning::SkipsTlsVerify("https://10.0.0.1:6443/".into());
    assert_eq!(warning.title(), "Unverified TLS");
    let plain = KubeWarning::PlainHttp("http://203.0.113.9:8080/".into());
    insta::assert_snapshot!(format!("{warning}\n{plain}"), @r"
    kubeconfig: the cluster https://10.0.0.1:6443/ is read with insecure-skip-tls-verify: true
    help: its certificate is not checked, so the token goes to whoever answers at that address: give the cluster's CA (certificate-authority-data) instead
    kubeconfig http://203.0.113.9:8080/ is plain http:// to a host outside loopback, private networks and the cluster
    help: its user's token or password is sent unencrypted to it: use https://, or an address inside the cluster or a private network
    ");
}
