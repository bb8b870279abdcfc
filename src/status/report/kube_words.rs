//! The words of [`KubeError`]: what failed, with the API server's address and its own
//! message; what to do, chosen by variant, is [`super::kube_error`]'s.

use crate::status::kube::KubeError;
use std::fmt;

impl fmt::Display for KubeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KubeError::Kubeconfig {
                source_name,
                detail,
            } => write!(f, "the kubeconfig ({source_name}) is not usable: {detail}"),
            KubeError::ExecPlugin { user, command } => write!(
                f,
                "the kubeconfig's user {user:?} needs the credential plugin {command:?}"
            ),
            KubeError::NoCredentials { kubeconfig } => write!(
                f,
                "no Kubernetes credentials: no kubeconfig ({kubeconfig}) and not in a cluster"
            ),
            KubeError::Unauthorized {
                server,
                server_message,
            } => write!(
                f,
                "the Kubernetes API server {server} answered 401 Unauthorized: {server_message}"
            ),
            KubeError::Forbidden {
                server,
                server_message,
                ..
            } => write!(
                f,
                "the Kubernetes API server {server} answered 403 Forbidden: {server_message}"
            ),
            KubeError::Expired { server_message } => {
                write!(
                    f,
                    "the pod listing expired twice (410 Gone): {server_message}"
                )
            }
            KubeError::Status {
                server,
                code,
                reason,
                server_message,
            } => write!(
                f,
                "the Kubernetes API server {server} answered {code} {reason}: {server_message}"
            ),
            KubeError::TimedOut { server, timeout } => write!(
                f,
                "the Kubernetes API server {server} did not answer within kube-timeout ({})",
                humantime::format_duration(*timeout)
            ),
            KubeError::NotAPodList { server, detail } => write!(
                f,
                "the Kubernetes API server {server} answered with something that is not a pod list: {detail}"
            ),
            KubeError::EndlessList { server, pages } => write!(
                f,
                "the Kubernetes API server {server} kept paging the pods: {pages} pages without an end (a continue token came back, or over {} pages)",
                crate::status::kube::MAX_PAGES
            ),
            KubeError::Unreachable { server, cause } => write!(
                f,
                "cannot read pods from the Kubernetes API server {server}: {cause}"
            ),
        }
    }
}
