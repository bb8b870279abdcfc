//! The pod listing of the Kubernetes edge (module documentation of [`super`]): a client of
//! the checked request, the pages read, and the few fields of each pod kept.

use super::{
    Credentials, KubeError, KubeRequest, MAX_PAGES, NotAPodList, PodQuery, ReadFault, one_line,
};
use crate::digest::registry::errors::TlsProblem;
use crate::status::Pod;
use kube::{Client, Config};
use serde::Deserialize;
use std::collections::{BTreeMap, HashSet};
use std::time::Duration;

/// The page size of a pod listing (`limit`).
pub(super) const PAGE_LIMIT: u32 = 500;

/// The annotation holding the hub's user name (KubeSpawner).
const USERNAME_ANNOTATION: &str = "hub.jupyter.org/username";
/// The annotation holding the server's name, empty for the default server (KubeSpawner).
const SERVERNAME_ANNOTATION: &str = "hub.jupyter.org/servername";
/// The single-user container's name in z2jh's pods.
const NOTEBOOK_CONTAINER: &str = "notebook";

/// A read-only client of the hub's pods.
pub(crate) struct KubeClient {
    client: Client,
    server: String,
    query: PodQuery,
    timeout: Duration,
}

/// One listing of the single-user pods.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct PodListing {
    /// The pods, as listed.
    pub(crate) pods: Vec<Pod>,
    /// Requests sent (each page one; a restart after 410 counted).
    pub(crate) requests: u32,
    /// Whether the listing restarted after a `410 Gone`.
    pub(crate) restarted: bool,
}

impl KubeClient {
    /// A client for `request`'s credentials (checked by [`super::resolve`]), each request
    /// bounded by its timeout, connecting and reading the answer included. Sends nothing.
    ///
    /// # Errors
    /// [`KubeError::InCluster`] for a service account kube cannot make a client of (a CA
    /// that is not PEM). A kubeconfig's client stack was built from the same configuration
    /// by [`super::resolve`], so it fails only there.
    pub(crate) async fn new(request: &KubeRequest) -> Result<Self, KubeError> {
        crate::support::tls::install_provider();
        // Said as what the pod holds, not as an unreachable server.
        let in_cluster = |e: &dyn std::fmt::Display| KubeError::InCluster {
            detail: Some(one_line(&e.to_string())),
        };
        let mut config = match &request.credentials {
            Credentials::Kubeconfig { client, .. } => client.as_ref().clone(),
            Credentials::InCluster => Config::incluster().map_err(|e| in_cluster(&e))?,
        };
        // Each request's own deadline ([`KubeClient::list_pods`]) bounds it whole.
        (config.connect_timeout, config.read_timeout) = (None, None);
        let server = super::shown_server(&config.cluster_url.to_string());
        let (query, timeout) = (request.query.clone(), request.timeout);
        let client = Client::try_from(config).map_err(|e| in_cluster(&e))?;
        Ok(Self {
            client,
            server,
            query,
            timeout,
        })
    }

    /// Lists the single-user pods of the request's query (see the module documentation of
    /// [`super`]). The namespace is a name (checked by the command line and
    /// [`super::resolve`]), so it goes into the path as it is.
    ///
    /// # Errors
    /// [`KubeError::Read`], with each [`ReadFault`].
    pub(crate) async fn list_pods(&self) -> Result<PodListing, KubeError> {
        let pods = format!("/api/v1/namespaces/{}/pods", self.query.namespace);
        let selector = self.query.selector();
        let mut listing = PodListing::default();
        let mut token: Option<String> = None;
        let mut tokens = HashSet::new();
        loop {
            // Built here: kube-core 3.1's `Request::list` writes `?&` before the first pair.
            let mut query = url::form_urlencoded::Serializer::new(String::new());
            query.append_pair("labelSelector", &selector);
            query.append_pair("limit", &PAGE_LIMIT.to_string());
            if let Some(t) = &token {
                query.append_pair("continue", t);
            }
            listing.requests += 1;
            let request = http::Request::get(format!("{pods}?{}", query.finish()))
                .body(Vec::new())
                .map_err(|e| self.fail(ReadFault::Unreachable(one_line(&e.to_string()))))?;
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
            let not_a_pod_list = |why| self.fail(ReadFault::NotAPodList(why));
            let items = match (page.kind.as_deref(), page.items) {
                (Some("PodList"), Some(items)) => items,
                (Some("PodList"), None) => return Err(not_a_pod_list(NotAPodList::NoItems)),
                (kind, _) => {
                    let kind = kind.map(|k| one_line(&crate::support::sanitize::cap(k, 60)));
                    return Err(not_a_pod_list(NotAPodList::Kind(kind)));
                }
            };
            for listed in items {
                if let Some(p) = pod(listed).map_err(not_a_pod_list)? {
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

    fn error(&self, e: kube::Error) -> KubeError {
        match e {
            kube::Error::SerdeError(e) => self.fail(ReadFault::NotAPodList(NotAPodList::Decoder(
                one_line(&e.to_string()),
            ))),
            kube::Error::Api(s) => self.fail(ReadFault::answered(&s)),
            // A handshake's rustls error, sorted; else the innermost cause (refused, DNS).
            other => self.fail(match TlsProblem::of(&other) {
                Some(tls) => ReadFault::Tls(tls),
                None => ReadFault::Unreachable(one_line(&crate::status::hub::root_cause(&other))),
            }),
        }
    }
}

/// A page of `GET /api/v1/namespaces/{namespace}/pods` (Kubernetes `core/v1` `PodList`),
/// read for the few fields `status` keeps: every other field of the answer is skipped, not
/// decoded (k8s-openapi's whole `Pod` cost the image half a megabyte). `kind: PodList` and
/// `items` are required ([`KubeClient::list_pods`] checks them), so that another object
/// answered with 200 (`{}`, a `Status`, a `ServiceList` from a proxy) is refused, never read
/// as "no pods"; `null` reads as absent everywhere else.
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
#[serde(rename_all = "camelCase")]
struct PodStatus {
    phase: Option<String>,
    start_time: Option<String>,
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
fn pod(p: ListedPod) -> Result<Option<Pod>, NotAPodList> {
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
    let rfc3339 = &time::format_description::well_known::Rfc3339;
    let started = (status.start_time.map(|t| {
        time::OffsetDateTime::parse(&t, rfc3339)
            .map_err(|_| NotAPodList::StartTime(one_line(&crate::support::sanitize::cap(&t, 40))))
    }))
    .transpose()?;
    Ok(Some(Pod {
        name,
        user: annotations.remove(USERNAME_ANNOTATION),
        server: annotations.remove(SERVERNAME_ANNOTATION),
        image_id,
        started,
    }))
}
