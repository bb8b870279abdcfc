//! `status` (read-only): how far the hub's running servers have converged on a release.
//!
//! Its parts, in pipeline order:
//! - [`hub`] (I/O, the JupyterHub REST edge): lists the running servers page by page with
//!   `GET /hub/api/users?state=active`, keeping per server only the [`Server`] fields below.
//!   Never writes to the hub.
//! - [`kube`] (I/O, opt-in, the Kubernetes edge): lists the single-user pods ([`Pod`]), to
//!   judge each server by its pod's digest.
//! - [`classify`] (pure): given the servers, the time the release went live and an injected
//!   clock, tells each server apart as updated, stale idle, stale active or pending, with the
//!   time by which the idle culler will have stopped it, from a [`classify::CullerModel`]
//!   (the same model as the release note's convergence window).
//! - [`history`] (pure): the progress chart's history of earlier runs, kept bounded in the
//!   convergence comment's hidden state and parsed strictly (untrusted text).
//! - [`report`] (pure): the convergence comment's bookkeeping (whether to edit it, what
//!   became of it); the words of the table, the `--json` document, the job summary and the
//!   comment are [`crate::render::status`]'s.
//! - [`run`] (the pipeline, with the other commands' pipelines): [`run::run`] takes the
//!   [`run::StatusRequest`] the command line built and runs the parts above, after finding
//!   the release (by `--released-at`, or by image: digest → release note → its time), then
//!   the opt-in comment and deployment, recording into the run report
//!   ([`crate::report::RunReport`], which declares the outputs); the culler model is
//!   [`classify::AtScaleModel`], the release note's worst case at the hub's size, from the
//!   settings the note promised ([`classify::deadline_basis`]: recorded by `announce` on its
//!   hidden second line), or `status`'s own when it records none.
//!
//! One run reads: [`hub::HubClient::new`] → [`hub::HubClient::list_active_servers`] (page
//! by page) → [`classify::classify`] with the
//! release time and a [`classify::CullerModel`] → [`crate::render::status::table`] or
//! [`crate::render::status::json`] on stdout, the outputs and
//! [`crate::render::status::job_summary`] in Actions, and, for the tracking issue,
//! [`crate::render::status::comment`], kept by [`crate::publish::comment::upsert`] (found by
//! marker and author, as `announce`'s update comment is) and edited only when
//! [`report::comment_needs_edit`] says so. The token's scopes and the z2jh role to
//! grant are [`hub::SCOPES`] and `hub/role.yaml`.
//!
//! Measured (debug build, loopback fake hub paging 10,000 users with one server each,
//! 179 KB per page of 200): 50 requests, peak RSS 11.7 MiB.
//!
//! Sources: JupyterHub 6.1.1 `jupyterhub/apihandlers/users.py` (`UserListAPIHandler.get`),
//! `jupyterhub/apihandlers/base.py` (`user_model`, `server_model`, `paginated_model`,
//! `get_api_pagination`), `jupyterhub/scopes.py`; jupyterhub-idle-culler 2.0.0
//! `jupyterhub_idle_culler/__init__.py` (`handle_server`).

pub(crate) mod classify;
mod culler;
pub(crate) mod history;
pub(crate) mod hub;
pub(crate) mod kube;
pub(crate) mod report;
pub(crate) mod run;

use time::OffsetDateTime;

/// One running server as the hub lists it: only the fields `status` needs, so that thousands
/// of servers take a few hundred kilobytes whatever else the hub's models carry.
///
/// Serialises as the hub's part of a server in the `--json` document
/// (`crate::render::status::json`): `user`, `server` (the name), its [`ServerTimes`],
/// `ready`, `pending`; names exactly as the hub gave them.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Server {
    /// The user's name, as the hub gives it (untrusted text: neutralise before printing).
    pub user: String,
    /// The server's name; empty for the user's default server (untrusted text).
    #[serde(rename = "server")]
    pub name: String,
    /// When it started and its last activity.
    #[serde(flatten)]
    pub times: ServerTimes,
    /// Whether the server is ready (`ready`).
    pub ready: bool,
    /// The action in progress (`pending`), if any.
    pub pending: Option<Pending>,
}

/// A server's times as the hub lists them and the idle culler reads them. Serialises as
/// `started` and `last_activity` (RFC 3339, UTC, to the second, or `null`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct ServerTimes {
    /// When the hub started the server (`started`, UTC); `None` when the hub gives none.
    #[serde(serialize_with = "classify::rfc3339_seconds")]
    pub started: Option<OffsetDateTime>,
    /// The server's last activity (`last_activity`, UTC) as the hub recorded it; `None` when
    /// it never reported activity (the culler then counts from `started`).
    #[serde(serialize_with = "classify::rfc3339_seconds")]
    pub last_activity: Option<OffsetDateTime>,
}

impl ServerTimes {
    /// Since when the culler counts the server inactive: its last activity, or its start
    /// when it never reported activity (culler 2.0.0 `handle_server`); `None` without either.
    pub(crate) fn inactive_since(&self) -> Option<OffsetDateTime> {
        self.last_activity.or(self.started)
    }
}

/// A server's pending action (`pending` in the hub's server model: `spawn`, `stop`, or
/// another action name). Kept as data, not as the hub's text, so nothing the hub sends is
/// printed from here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Pending {
    /// Starting (`spawn`).
    Spawn,
    /// Stopping (`stop`).
    Stop,
    /// Any other pending action the hub names.
    #[serde(other)]
    Other,
}

/// One single-user pod as Kubernetes lists it (`component=singleuser-server,
/// release=<helm release>` in the hub's namespace): only what `status` needs to tell which
/// image the server runs and whose server it is.
///
/// Serialises as the `pod` of a `--json` server: `name`, `image_id` (or `null`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub(crate) struct Pod {
    /// The pod's name (`metadata.name`; KubeSpawner's escaped `jupyter-<user>[--<server>]`).
    pub(crate) name: String,
    /// The annotation `hub.jupyter.org/username`: the hub's user name, raw (untrusted text);
    /// `None` when the pod has none.
    #[serde(skip)]
    pub(crate) user: Option<String>,
    /// The annotation `hub.jupyter.org/servername`: the server's name, raw, empty for the
    /// default server (untrusted text); `None` when absent (KubeSpawner sets it for every
    /// server; a missing one reads as the default server).
    #[serde(skip)]
    pub(crate) server: Option<String>,
    /// `status.containerStatuses[name=notebook].imageID` as the kubelet reported it, e.g.
    /// `ghcr.io/org/lab@sha256:…` or `docker-pullable://…`; `None` while the container is
    /// being created (empty or absent).
    pub(crate) image_id: Option<String>,
    /// When the pod started (`status.startTime`, UTC), for a pod the hub does not list.
    #[serde(skip)]
    pub(crate) started: Option<OffsetDateTime>,
}
