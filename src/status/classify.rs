//! Pure: where each running server stands against a release, and when the idle culler will
//! have stopped the stale ones.
//!
//! Conservative by construction (issue 14): a server counts as **updated** only if the hub
//! says it started strictly after the release went live (the pull policy is `Always` on
//! `:latest`, so a server started later runs the new image); one without a start time is
//! stale, and so is one that started later than the run's clock by more than [`CLOCK_SKEW`]:
//! JupyterHub stamps `started` with its own clock when the spawn begins (6.1.1
//! `user.py` `User.spawn`), so such a time is a clock running ahead, which proves nothing
//! (by digest, its pod decides, and an old digest is stale, not a mismatch). A server that is pending (starting or stopping) or not ready is **pending**,
//! reported apart: the culler skips it (jupyterhub-idle-culler 2.0.0 `handle_server`: "Not
//! culling server … with pending", "Not culling not-ready not-pending server").
//!
//! Idle and active, as the culler will see them (issue 23): every stale server gets the
//! deadline the culler keeps if it receives **no more activity** ([`CullerModel::deadline`]:
//! `min(inactive_since + timeout, started + maxAge if maxAge > 0) + every`, at the hub's
//! scale), active or not: measured on the real culler, servers that looked active but that
//! nobody used were all stopped by it. A stale server is **active** when its activity is
//! recent enough to expect more ([`CullerModel::is_active`]): its inactivity (`now -
//! last_activity`, or `now - started` when it never reported activity, as `handle_server`
//! counts) is below both the culler's idle timeout and [`super::culler::ACTIVE_WITHIN_SECS`], the longest a
//! server in use goes without the hub recording activity; otherwise it is **stale idle**. An
//! active server is stopped by its deadline if it goes idle now, and, while in use, only by
//! the maximum age ([`CullerModel::in_use_deadline`]), never passively without one. Judging
//! a server active or idle changes only the words, never its deadline, so a hub that reports
//! activity less often than JupyterHub's default misnames a server at worst.
//!
//! Deadlines come from a [`CullerModel`], so `status` forecasts with the same model as the
//! release note.

pub use super::ServerTimes;
pub use super::culler::{AtScaleModel, CullerModel, SettingsModel};
pub(crate) use super::culler::{Basis, DeadlineSettings, deadline_basis};
use super::{Pending, Server};
use crate::digest::reference::split_domain;
use serde::Serialize;
use std::collections::HashMap;
use time::OffsetDateTime;

/// Where a server stands. Serialises kebab-case (`stale-idle`, …, `mismatch`, `orphan`,
/// `unknown`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum State {
    /// Running the old image and idle: the culler will stop it.
    StaleIdle,
    /// Running the old image and active (activity recent enough to expect more): stopped
    /// by its deadline if it goes idle, while in use only by the maximum age.
    StaleActive,
    /// Starting, stopping or not ready: reported apart.
    Pending,
    /// On the new image: by digest evidence, its pod's `imageID` names the release's image
    /// index or one of its child manifests; by start time, started after the release (and
    /// not after the run's clock and [`CLOCK_SKEW`]).
    Updated,
    /// Started after the release went live, but its pod runs another digest (digest evidence
    /// only): a pull-policy or mirror fault that no cull pass cures.
    Mismatch,
    /// A single-user pod the hub does not list (digest evidence only): it runs its image and
    /// no culler stops it.
    Orphan,
    /// Digest evidence missing: no pod found for the server, no `imageID` yet, a bare
    /// `sha256:` ID naming no repository, or another digest of another repository.
    Unknown,
}

/// What `converged` rests on. Serialises as `"digest"` / `"start-time"` (`totals.evidence`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Evidence {
    /// Each pod's `imageID` from Kubernetes, compared with the release's digests.
    Digest,
    /// Inferred: a server started after the release is taken as on the new image (no
    /// Kubernetes configured).
    #[default]
    StartTime,
}

impl Evidence {
    /// Its name in `--json`, the outputs and the comment's numbers: serde's, the one
    /// spelling (`digest`, `start-time`).
    pub(crate) fn name(self) -> String {
        serde_json::to_value(self)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .expect("a unit variant serialises as its name")
    }
}

/// An alarm a scheduled run can fail on (`fail-on`). Its name, `mismatch`, `overdue` or
/// `orphan`, is clap's (kebab-case of the variant): the one spelling the command line reads
/// and the words print ([`crate::render::status::alarm_annotation`]).
///
/// A new alarm is this variant, its [`Alarm::rule`] and its words
/// ([`crate::render::status::alarm_words`]): the compiler points to the last two.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, clap::ValueEnum)]
#[value(rename_all = "kebab-case")]
pub(crate) enum Alarm {
    /// A server started after the release runs the old digest ([`State::Mismatch`]).
    Mismatch,
    /// A stale server is past its deadline ([`Totals::overdue`]).
    Overdue,
    /// A single-user pod the hub does not list ([`State::Orphan`]).
    Orphan,
}

/// What fires an [`Alarm`]: the count of [`Totals`] it watches, and whether only digest
/// evidence (each pod's `imageID`, from Kubernetes) can raise that count.
#[derive(Debug, Clone, Copy)]
pub(crate) struct AlarmRule {
    /// The servers (or pods) that fire it.
    pub(crate) count: fn(&Totals) -> u64,
    /// Whether `fail-on` naming it needs Kubernetes (refused without, exit 2).
    pub(crate) needs_pods: bool,
}

impl Alarm {
    /// The alarm's rule: one arm per alarm.
    pub(crate) fn rule(self) -> AlarmRule {
        let (count, needs_pods): (fn(&Totals) -> u64, bool) = match self {
            Alarm::Mismatch => (|t| t.mismatch, true),
            Alarm::Overdue => (|t| t.overdue, false),
            Alarm::Orphan => (|t| t.orphans, true),
        };
        AlarmRule { count, needs_pods }
    }

    /// How many servers (or pods) of `totals` fire it.
    pub(crate) fn count(self, totals: &Totals) -> u64 {
        (self.rule().count)(totals)
    }

    /// Its name as `fail-on` takes it (clap's, kebab-case).
    pub(crate) fn name(self) -> String {
        clap::ValueEnum::to_possible_value(&self)
            .expect("no alarm is skipped by clap")
            .get_name()
            .to_string()
    }
}

/// The images that count as the release, for [`judge`]: the announced digest (the image
/// index for a multi-arch image) and the index's child manifests, in any repository (a
/// digest names the content itself: a mirror under another name serves the same bytes).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct ImageTarget {
    /// The announced digest first, then the index's children.
    pub(crate) digests: Vec<crate::digest::Digest>,
    /// The image's repository with its registry (`ghcr.io/org/lab`, `docker.io/library/lab`),
    /// against which another digest is old; `None` for an OCI layout, which names none.
    pub(crate) repository: Option<String>,
}

/// What a pod's `imageID` says about its image, against an [`ImageTarget`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// The release's index digest or one of its child manifests, in any repository.
    New,
    /// Another digest in the release's repository: the digest it runs (`sha256:…`).
    Old(String),
    /// Nothing to judge by.
    Unknown(UnknownWhy),
}

/// Why a pod's image is [`Verdict::Unknown`]. Serialises kebab-case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum UnknownWhy {
    /// No pod with the server's user and server name.
    NoPod,
    /// `imageID` empty or absent: the container is being created.
    NoImageId,
    /// A bare `sha256:` ID (an image config ID some runtimes report): no repository named.
    BareId,
    /// `imageID` names another digest in another repository than the release's image (a
    /// profile's image, KubeSpawner's `profile_list`).
    OtherRepository,
    /// `imageID` is not `[scheme://]repository@sha256:<64 hex>`.
    Unreadable,
}

/// Judges a pod's `imageID` against `target`: [`Verdict::New`] when it is
/// `[scheme://]<repository>@<digest>` with one of the target's digests, in any repository (a
/// digest is content-addressed: a mirror's name does not change what runs); [`Verdict::Old`]
/// for another digest in the target's repository (when it names one), compared as
/// distribution normalises names ([`split_domain`]: `lab`, `docker.io/lab` and
/// `index.docker.io/library/lab` are one); [`Verdict::Unknown`] when it is empty or absent
/// (container being created), a bare `sha256:` ID with no repository (containerd's and
/// CRI-O's image config IDs; DESIGN.md, Kubernetes facts), another digest of another
/// repository (a profile's image: not a pull fault), or unreadable. Never [`Verdict::New`]
/// without a repository in the ID: a config ID cannot be told from the release's.
pub(crate) fn judge(image_id: Option<&str>, target: &ImageTarget) -> Verdict {
    let id = image_id.map(str::trim).unwrap_or_default();
    if id.is_empty() {
        return Verdict::Unknown(UnknownWhy::NoImageId);
    }
    // `docker-pullable://`, `docker://` and the like (dockershim, cri-dockerd).
    let id = id.split_once("://").map_or(id, |(_, rest)| rest);
    let Some((repository, digest)) = id.rsplit_once('@') else {
        return Verdict::Unknown(if crate::digest::Digest::parse(id).is_ok() {
            UnknownWhy::BareId
        } else {
            UnknownWhy::Unreadable
        });
    };
    let Ok(digest) = crate::digest::Digest::parse(digest) else {
        return Verdict::Unknown(UnknownWhy::Unreadable);
    };
    if repository.is_empty() {
        return Verdict::Unknown(UnknownWhy::BareId);
    }
    if target.digests.contains(&digest) {
        Verdict::New
    } else if target
        .repository
        .as_ref()
        .is_some_and(|wanted| split_domain(wanted) != split_domain(repository))
    {
        Verdict::Unknown(UnknownWhy::OtherRepository)
    } else {
        Verdict::Old(digest.to_string())
    }
}

/// The pods Kubernetes listed and the release's images, for [`classify`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodEvidence {
    /// The single-user pods of the hub's release.
    pub(crate) pods: Vec<super::Pod>,
    /// The digests and repository that count as the release.
    pub(crate) target: ImageTarget,
    /// When the hub's listing began (the real clock): a pod without a listed server that
    /// started later (up to [`PodEvidence::pods_read_at`] and [`CLOCK_SKEW`]), or has no
    /// start time yet (unscheduled: it runs nothing), is a server the hub started since, not
    /// an orphan; it is left out.
    pub(crate) hub_read_at: OffsetDateTime,
    /// When the pod listing ended (the real clock). A pod "started" later than this plus
    /// [`CLOCK_SKEW`] cannot be a server started since the hub was read: its start time is
    /// wrong, and it counts as an orphan.
    pub(crate) pods_read_at: OffsetDateTime,
}

/// How far a node's clock (which stamps a pod's `startTime`) may run ahead of this
/// runner's before a start time counts as wrong rather than recent.
pub(crate) const CLOCK_SKEW: time::Duration = time::Duration::minutes(5);

impl ServerTimes {
    /// Whether the server started after the release at `released_at`: strictly after, and
    /// not later than `now` by more than [`CLOCK_SKEW`] (a wrong time: see the module
    /// documentation).
    fn started_after(&self, released_at: OffsetDateTime, now: OffsetDateTime) -> bool {
        self.started
            .is_some_and(|s| s > released_at && s - now <= CLOCK_SKEW)
    }
}

/// A server's pod, as judged: serialises as the `pod` object of a `--json` server (`name`,
/// `image_id`, `digest` it runs or `null`, `unknown` reason or `null`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct PodFacts {
    /// The pod's name and `imageID`; `None` when no pod was found for the server.
    #[serde(flatten)]
    pub(crate) pod: Option<super::Pod>,
    /// The digest an old pod runs ([`Verdict::Old`]); `None` otherwise.
    pub(crate) digest: Option<String>,
    /// Why the image is unknown; `None` when it is known.
    pub(crate) unknown: Option<UnknownWhy>,
}

impl PodFacts {
    /// `pod` (`None`: no pod found for the server) judged against `target` ([`judge`]).
    fn judged(pod: Option<super::Pod>, target: &ImageTarget) -> Self {
        let verdict = pod
            .as_ref()
            .map_or(Verdict::Unknown(UnknownWhy::NoPod), |p| {
                judge(p.image_id.as_deref(), target)
            });
        let (digest, unknown) = match verdict {
            Verdict::New => (None, None),
            Verdict::Old(digest) => (Some(digest), None),
            Verdict::Unknown(why) => (None, Some(why)),
        };
        Self {
            pod,
            digest,
            unknown,
        }
    }

    /// The [`Verdict`] these facts record.
    fn verdict(&self) -> Verdict {
        match (&self.digest, self.unknown) {
            (Some(digest), _) => Verdict::Old(digest.clone()),
            (None, Some(why)) => Verdict::Unknown(why),
            (None, None) => Verdict::New,
        }
    }
}

/// One server with its state and forecast. Serialises as a `--json` server without its
/// display names: the [`Server`]'s fields, then `state`, `deadline` and `in_use_deadline`
/// (RFC 3339, UTC, to the second, or `null`) and `overdue`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Classified {
    /// The server as the hub listed it.
    #[serde(flatten)]
    pub(crate) server: Server,
    /// Where it stands.
    pub(crate) state: State,
    /// For a stale server, the time by which the culler will have stopped it if it
    /// receives no more activity ([`CullerModel::deadline`]); `None` for a stale server
    /// nothing stops passively (culling disabled, no times at all), and for pending and
    /// updated servers.
    #[serde(serialize_with = "rfc3339_seconds")]
    pub(crate) deadline: Option<OffsetDateTime>,
    /// For a stale active server, the time by which the culler will have stopped it even if
    /// it stays in use ([`CullerModel::in_use_deadline`], the maximum age); `None` without a
    /// maximum age (in use, it is never stopped passively), and for every other state.
    #[serde(serialize_with = "rfc3339_seconds")]
    pub(crate) in_use_deadline: Option<OffsetDateTime>,
    /// Whether the deadline has passed at `now` and the server still runs.
    pub(crate) overdue: bool,
    /// With digest evidence, the server's pod and what its `imageID` says; `None` (JSON
    /// `null`) when judged by start time.
    pub(crate) pod: Option<PodFacts>,
}

/// The counts, and when convergence is due. Serialises as the `totals` object of the
/// `--json` document (field names as here, times as RFC 3339 UTC to the second, `null` when
/// `None`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Totals {
    /// Servers the hub lists: `updated + stale + pending + mismatch + unknown`.
    pub(crate) running: u64,
    /// Started after the release went live.
    pub(crate) updated: u64,
    /// Stale servers, idle and active (pending ones apart): `stale_idle + stale_active`.
    pub(crate) stale: u64,
    /// Stale and idle.
    pub(crate) stale_idle: u64,
    /// Stale and active.
    pub(crate) stale_active: u64,
    /// Pending or not ready (any start time).
    pub(crate) pending: u64,
    /// Pending servers that started before the release (or without a start time), and
    /// stopping ones whenever they started: they may still run the old image.
    pub(crate) pending_stale: u64,
    /// Stale servers past their deadline.
    pub(crate) overdue: u64,
    /// Started after the release but on the old digest ([`State::Mismatch`]).
    pub(crate) mismatch: u64,
    /// Single-user pods the hub does not list ([`State::Orphan`]; not in `running`).
    pub(crate) orphans: u64,
    /// Servers whose image is not known ([`State::Unknown`]).
    pub(crate) unknown: u64,
    /// What `converged` rests on.
    pub(crate) evidence: Evidence,
    /// No server may still run the old image: no stale server and no stale pending one;
    /// with [`Evidence::Digest`] also no mismatch, no orphan and no unknown image.
    pub(crate) converged: bool,
    /// When every stale idle server will be gone if it stays idle (the latest of their
    /// deadlines); `None` when there is none, or when one of them has no deadline (culling
    /// disabled).
    #[serde(serialize_with = "rfc3339_seconds")]
    pub(crate) converged_by: Option<OffsetDateTime>,
    /// When every stale server, idle or active, will be gone if none of them receives more
    /// activity (the latest of their deadlines); `None` when any has no deadline (or there
    /// is none).
    #[serde(serialize_with = "rfc3339_seconds")]
    pub(crate) all_stale_by: Option<OffsetDateTime>,
}

/// `2026-11-30T14:05:09Z`, the shape of every time `status` writes for machines (`--json`,
/// the Actions outputs, the comment's numbers): the one writer,
/// [`crate::support::time::rfc3339_seconds`]. Every time `status` holds was parsed in UTC
/// within the years 0000 to 9999 or is a deadline checked against the calendar's end
/// ([`crate::window::fits_calendar`]).
pub(crate) use crate::support::time::rfc3339_seconds as rfc3339;

/// serde: an optional time as [`rfc3339`], or `null`.
pub(crate) fn rfc3339_seconds<S: serde::Serializer>(
    t: &Option<OffsetDateTime>,
    s: S,
) -> Result<S::Ok, S::Error> {
    match t {
        Some(t) => s.serialize_str(&rfc3339(*t)),
        None => s.serialize_none(),
    }
}

/// The servers classified, sorted for reading (see [`classify`]), with their totals.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Classification {
    /// Mismatched servers and orphan pods first, then stale servers by deadline (earliest
    /// first; those without one after them), then unknown, pending, updated; ties by state,
    /// user and server name.
    pub(crate) servers: Vec<Classified>,
    /// The counts.
    pub totals: Totals,
}

impl Classification {
    /// The alarms that fired, sorted, whatever `fail-on` asks: each whose count
    /// ([`Alarm::rule`]) is not zero.
    pub(crate) fn alarms(&self) -> Vec<Alarm> {
        <Alarm as clap::ValueEnum>::value_variants()
            .iter()
            .copied()
            .filter(|a| a.count(&self.totals) > 0)
            .collect()
    }

    /// The latest `time` of the servers in `states`; `None` when one of them has none (or
    /// there is none): when they will all be gone, if that can be said.
    pub(crate) fn latest(
        &self,
        states: &[State],
        time: impl Fn(&Classified) -> Option<OffsetDateTime>,
    ) -> Option<OffsetDateTime> {
        self.servers
            .iter()
            .filter(|c| states.contains(&c.state))
            .try_fold(None, |acc: Option<OffsetDateTime>, c| {
                time(c).map(|t| Some(acc.map_or(t, |a| a.max(t))))
            })?
    }

    /// When every stale active server will be gone if it goes idle now (the latest
    /// [`Classified::deadline`]), and even if it stays in use (the latest
    /// [`Classified::in_use_deadline`]); each `None` as [`Classification::latest`] says.
    pub(crate) fn active_by(&self) -> (Option<OffsetDateTime>, Option<OffsetDateTime>) {
        let active = &[State::StaleActive];
        let in_use = self.latest(active, |c| c.in_use_deadline);
        (self.latest(active, |c| c.deadline), in_use)
    }
}

/// Classifies `servers` against the release that went live at `released_at`, at `now`,
/// with the culler `model` (see the module documentation): by start time
/// (`Evidence::StartTime`) when `evidence` is `None`, else by digest (`Evidence::Digest`).
///
/// By digest, each server is joined to its pod by (user, server name), the annotations
/// `hub.jupyter.org/username` and `hub.jupyter.org/servername`; the pod's `imageID` is
/// `judge`d against the release. New → updated; old → stale idle or stale active
/// (deadlines as by start time), or mismatch when the server started after the release;
/// unknown (no pod, no `imageID`, a bare ID, another repository) → unknown. A pending server
/// stays pending, counted in `pending_stale` unless its pod is on the new image. Pods no
/// listed server joins are orphans (the first of two pods for one server too). `converged`
/// needs all of them gone.
pub fn classify(
    servers: impl IntoIterator<Item = Server>,
    evidence: Option<PodEvidence>,
    released_at: OffsetDateTime,
    now: OffsetDateTime,
    model: &impl CullerModel,
) -> Classification {
    let by = evidence
        .as_ref()
        .map_or(Evidence::StartTime, |_| Evidence::Digest);
    let mut pods = evidence.map(Pods::join);
    let mut servers: Vec<Classified> = servers
        .into_iter()
        .map(|server| {
            let pod = pods.as_mut().map(|p| p.of(&server));
            classify_server(server, pod, released_at, now, model)
        })
        .collect();
    servers.extend(pods.into_iter().flat_map(Pods::orphans));
    servers.sort_by(reading_order);
    let mut classification = Classification {
        servers,
        totals: Totals::default(),
    };
    classification.totals = Totals::of(&classification, by, (released_at, now));
    classification
}

/// One server where it stands (see [`classify`] for `pod`, `None` by start time).
fn classify_server(
    server: Server,
    pod: Option<PodFacts>,
    released_at: OffsetDateTime,
    now: OffsetDateTime,
    model: &impl CullerModel,
) -> Classified {
    let times = server.times;
    let after_release = times.started_after(released_at, now);
    let pending = server.pending.is_some() || !server.ready;
    let state = match pod.as_ref().map(PodFacts::verdict) {
        _ if pending => State::Pending,
        Some(Verdict::Unknown(_)) => State::Unknown,
        Some(Verdict::New) => State::Updated,
        None if after_release => State::Updated,
        Some(Verdict::Old(_)) if after_release => State::Mismatch,
        _ if model.is_active(&times, now) => State::StaleActive,
        _ => State::StaleIdle,
    };
    let deadline = matches!(state, State::StaleIdle | State::StaleActive)
        .then(|| model.deadline(&times, now))
        .flatten();
    let in_use_deadline = (state == State::StaleActive)
        .then(|| model.in_use_deadline(&times))
        .flatten();
    Classified {
        server,
        state,
        deadline,
        in_use_deadline,
        overdue: deadline.is_some_and(|d| d < now),
        pod,
    }
}

/// The pods of a classification by digest, joined to the servers by (user, server name).
struct Pods {
    /// (user, server) → its pods, oldest first (a pod still terminating beside its
    /// successor): the server takes the newest, whatever the listing order; the others
    /// are pods the hub does not list.
    joined: HashMap<(String, String), Vec<super::Pod>>,
    /// Pods without a user annotation.
    unjoined: Vec<super::Pod>,
    target: ImageTarget,
    /// When the hub's listing began and the pods' listing ended.
    read: (OffsetDateTime, OffsetDateTime),
}

impl Pods {
    fn join(evidence: PodEvidence) -> Self {
        let mut joined: HashMap<(String, String), Vec<super::Pod>> = HashMap::new();
        let mut unjoined = Vec::new();
        for pod in evidence.pods {
            match &pod.user {
                Some(user) => joined
                    .entry((user.clone(), pod.server.clone().unwrap_or_default()))
                    .or_default()
                    .push(pod),
                None => unjoined.push(pod),
            }
        }
        for candidates in joined.values_mut() {
            candidates.sort_by(|a, b| a.started.cmp(&b.started).then(a.name.cmp(&b.name)));
        }
        Self {
            joined,
            unjoined,
            target: evidence.target,
            read: (evidence.hub_read_at, evidence.pods_read_at),
        }
    }

    /// The pod of `server`, judged (taken: a pod serves one server).
    fn of(&mut self, server: &Server) -> PodFacts {
        let pod = self
            .joined
            .get_mut(&(server.user.clone(), server.name.clone()))
            .and_then(Vec::pop);
        PodFacts::judged(pod, &self.target)
    }

    /// The pods no server took, as orphans: the extra ones of a server and those without a
    /// user, but not a server the hub started since its listing (see
    /// [`PodEvidence::hub_read_at`]).
    fn orphans(self) -> impl Iterator<Item = Classified> {
        let (hub, pods) = self.read;
        let target = self.target;
        self.unjoined
            .into_iter()
            .chain(self.joined.into_values().flatten())
            .filter(move |p| p.started.is_some_and(|s| s < hub || s > pods + CLOCK_SKEW))
            .map(move |pod| Classified {
                server: Server {
                    user: pod.user.clone().unwrap_or_default(),
                    name: pod.server.clone().unwrap_or_default(),
                    times: ServerTimes {
                        started: pod.started,
                        last_activity: None,
                    },
                    ready: true,
                    pending: None,
                },
                state: State::Orphan,
                deadline: None,
                in_use_deadline: None,
                overdue: false,
                pod: Some(PodFacts::judged(Some(pod), &target)),
            })
    }
}

impl Totals {
    /// The counts of `classification`'s servers (classified against the release at
    /// `released_at`, at `now`).
    fn of(
        classification: &Classification,
        evidence: Evidence,
        (released_at, now): (OffsetDateTime, OffsetDateTime),
    ) -> Self {
        let mut t = Totals {
            evidence,
            ..Totals::default()
        };
        let servers = &classification.servers;
        for c in servers {
            t.overdue += u64::from(c.overdue);
            let count = match c.state {
                State::StaleIdle => &mut t.stale_idle,
                State::StaleActive => &mut t.stale_active,
                State::Pending => {
                    t.pending_stale += u64::from(c.may_run_the_old_image(released_at, now));
                    &mut t.pending
                }
                State::Updated => &mut t.updated,
                State::Mismatch => &mut t.mismatch,
                State::Orphan => &mut t.orphans,
                State::Unknown => &mut t.unknown,
            };
            *count += 1;
        }
        t.running = servers.len() as u64 - t.orphans;
        t.stale = t.stale_idle + t.stale_active;
        // By start time there is no mismatch, orphan or unknown image.
        t.converged = t.stale + t.pending_stale + t.mismatch + t.orphans + t.unknown == 0;
        let deadline = |c: &Classified| c.deadline;
        t.converged_by = classification.latest(&[State::StaleIdle], deadline);
        let stale = [State::StaleIdle, State::StaleActive];
        t.all_stale_by = classification.latest(&stale, deadline);
        t
    }
}

impl Classified {
    /// For a pending server: whether it may run the old image. A stopping server, or one
    /// not started after the release ([`ServerTimes::started_after`], at `now`), may; a spawn
    /// begun after the release pulls the new one. By digest, a pod already on the new image
    /// is not stale, whatever else.
    fn may_run_the_old_image(&self, released_at: OffsetDateTime, now: OffsetDateTime) -> bool {
        match self.pod.as_ref().map(PodFacts::verdict) {
            Some(Verdict::New) => false,
            Some(Verdict::Old(_)) => true,
            _ => {
                !self.server.times.started_after(released_at, now)
                    || self.server.pending == Some(Pending::Stop)
            }
        }
    }
}

/// The order servers are read in (see [`Classification::servers`]).
fn reading_order(a: &Classified, b: &Classified) -> std::cmp::Ordering {
    let rank = |c: &Classified| match c.state {
        State::Mismatch | State::Orphan => (0, true),
        State::StaleIdle | State::StaleActive => (1, c.deadline.is_none()),
        State::Unknown => (2, true),
        State::Pending => (3, true),
        State::Updated => (4, true),
    };
    rank(a)
        .cmp(&rank(b))
        .then(a.deadline.cmp(&b.deadline))
        .then(a.state.cmp(&b.state))
        .then_with(|| a.server.user.cmp(&b.server.user))
        .then_with(|| a.server.name.cmp(&b.server.name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::status::culler::secs;
    use crate::window::{CullSettings, HubScale, at_scale};
    use time::Duration;

    /// The deadlines follow the release note's promise when it records one, whatever
    /// `status` was given; its own settings otherwise. Its hub size stays when the promise
    /// has none; the promise's replaces it when it has one.
    #[test]
    fn the_deadlines_follow_the_promise_when_the_note_records_one() {
        use crate::window::{Promise, PromiseRecord, ScaleConfig};
        let promised = CullSettings::default();
        let given = CullSettings {
            timeout_secs: 60,
            every_secs: 60,
            ..promised
        };
        let size = |n| ScaleConfig {
            servers: n,
            ..ScaleConfig::default()
        };
        let scale = |servers| HubScale {
            servers,
            slow_stop_timeout_secs: 10,
        };
        let record = |scale| {
            Some(PromiseRecord::Recorded(Promise {
                culler: promised,
                scale,
            }))
        };
        let promise = |scale| Promise {
            culler: promised,
            scale,
        };
        // (record, status's culler, status's hub-size) → (culler used, hub size used, basis)
        let cases = [
            (
                record(None),
                given,
                None,
                promised,
                None,
                Basis::Promised {
                    promise: promise(None),
                    own: Some((given, size(None))),
                },
            ),
            (
                record(None),
                promised,
                Some(300),
                promised,
                Some(300),
                Basis::Promised {
                    promise: promise(None),
                    own: None,
                },
            ),
            (
                record(Some(scale(40))),
                promised,
                None,
                promised,
                Some(40),
                Basis::Promised {
                    promise: promise(Some(scale(40))),
                    own: None,
                },
            ),
            (
                record(Some(scale(40))),
                promised,
                Some(300),
                promised,
                Some(40),
                Basis::Promised {
                    promise: promise(Some(scale(40))),
                    own: Some((promised, size(Some(300)))),
                },
            ),
            (
                Some(PromiseRecord::Absent),
                given,
                Some(300),
                given,
                Some(300),
                Basis::NotRecorded,
            ),
            (
                Some(PromiseRecord::Refused),
                given,
                None,
                given,
                None,
                Basis::Refused,
            ),
            (None, given, None, given, None, Basis::NoNote),
        ];
        for (i, (record, culler, servers, used_culler, used_servers, basis)) in
            cases.into_iter().enumerate()
        {
            let used = deadline_basis(record, culler, &size(servers));
            assert_eq!(
                (used.culler, used.scale.servers, used.basis),
                (used_culler, used_servers, basis),
                "case {i}"
            );
        }
    }
    use time::macros::datetime;

    const RELEASE: OffsetDateTime = datetime!(2026-11-30 12:00 UTC);
    const NOW: OffsetDateTime = datetime!(2026-11-30 13:00 UTC);

    fn settings(enabled: bool, timeout: u64, every: u64, max_age: u64) -> SettingsModel {
        SettingsModel(CullSettings {
            enabled,
            timeout_secs: timeout,
            every_secs: every,
            max_age_secs: max_age,
        })
    }

    fn server(
        user: &str,
        started: Option<OffsetDateTime>,
        last_activity: Option<OffsetDateTime>,
    ) -> Server {
        Server {
            user: user.into(),
            name: String::new(),
            times: ServerTimes {
                started,
                last_activity,
            },
            ready: true,
            pending: None,
        }
    }

    /// 30 November 2026 at `h:m` UTC.
    fn t(h: u8, m: u8) -> Option<OffsetDateTime> {
        Some(datetime!(2026-11-30 00:00 UTC).replace_time(time::Time::from_hms(h, m, 0).unwrap()))
    }

    /// z2jh defaults: timeout 1 h, every 10 min, no maximum age.
    fn defaults() -> SettingsModel {
        SettingsModel(CullSettings::default())
    }

    #[test]
    fn the_model_at_scale_adds_the_pass_and_carry_of_window_at_scale() {
        let cull = CullSettings {
            enabled: true,
            timeout_secs: 3600,
            every_secs: 600,
            max_age_secs: 0,
        };
        let scale = HubScale {
            servers: 100,
            slow_stop_timeout_secs: 10,
        };
        let model = AtScaleModel {
            settings: cull,
            scale,
        };
        let idle = ServerTimes {
            started: Some(datetime!(2026-11-30 10:00 UTC)),
            last_activity: Some(datetime!(2026-11-30 11:00 UTC)),
        };
        let worst = at_scale(&cull, &scale);
        // 100 servers x 10 s a pass; nothing carried (a restarted server is due only an
        // hour later, after the next pass): 1000 s beyond the usual bound.
        assert_eq!((worst.pass_secs, worst.carry_secs), (1000, 0));
        assert_eq!(
            model.deadline(&idle, NOW),
            Some(datetime!(2026-11-30 12:10 UTC) + Duration::seconds(1000))
        );
        // The same bound the release note states, counted from the last activity.
        assert_eq!(
            model.deadline(&idle, NOW).unwrap() - datetime!(2026-11-30 11:00 UTC),
            secs(worst.idle_secs.unwrap())
        );
        assert!(!model.is_active(&idle, NOW));
        let active = ServerTimes {
            started: idle.started,
            last_activity: Some(NOW),
        };
        assert!(model.is_active(&active, NOW));
        // Active too: the deadline it keeps if it goes idle now, with the same pass.
        assert_eq!(
            model.deadline(&active, NOW),
            Some(NOW + Duration::minutes(70) + Duration::seconds(1000))
        );
        // No maximum age: in use, never stopped passively.
        assert_eq!(model.in_use_deadline(&active), None);
        let aged = AtScaleModel {
            settings: CullSettings {
                max_age_secs: 8 * 3600,
                ..cull
            },
            scale,
        };
        assert_eq!(
            aged.in_use_deadline(&active),
            Some(datetime!(2026-11-30 18:10 UTC) + Duration::seconds(1000))
        );
    }

    /// Active means activity within the hub's activity-reporting interval (and the idle
    /// timeout): inactive for less than 330 s with z2jh's defaults, less than the timeout
    /// when it is shorter.
    #[test]
    fn active_means_activity_within_the_reporting_interval() {
        let at = |secs_ago: i64| ServerTimes {
            started: Some(datetime!(2026-11-30 09:00 UTC)),
            last_activity: Some(NOW - Duration::seconds(secs_ago)),
        };
        // (model, inactive seconds, active)
        let cases = [
            (defaults(), 0, true),
            (defaults(), 329, true),
            (defaults(), 330, false),
            (defaults(), 1200, false),
            (settings(true, 10, 4, 0), 9, true),
            (settings(true, 10, 4, 0), 10, false),
        ];
        for (model, ago, active) in cases {
            assert_eq!(model.is_active(&at(ago), NOW), active, "{model:?} {ago}");
            // The deadline does not depend on it.
            assert_eq!(
                model.deadline(&at(ago), NOW),
                at(ago)
                    .last_activity
                    .map(|l| l + secs(model.0.timeout_secs + model.0.every_secs)),
            );
        }
    }

    #[test]
    fn each_server_is_classified_conservatively() {
        let mut pending_spawn = server("spawning-after", t(12, 59), None);
        pending_spawn.pending = Some(Pending::Spawn);
        pending_spawn.ready = false;
        let mut not_ready = server("not-ready", t(11, 0), t(11, 0));
        not_ready.ready = false;
        let mut stopping = server("stopping-new", t(12, 30), None);
        stopping.pending = Some(Pending::Stop);
        // (server, state, deadline)
        let cases = [
            (server("new", t(12, 1), t(12, 59)), State::Updated, None),
            // Active: the deadline it keeps if it goes idle now.
            (
                server("at-release", t(12, 0), t(12, 59)),
                State::StaleActive,
                t(14, 9),
            ),
            (
                server("no-start", None, t(12, 59)),
                State::StaleActive,
                t(14, 9),
            ),
            (
                server("idle", t(9, 0), t(11, 30)),
                State::StaleIdle,
                t(12, 40),
            ),
            // Inactive exactly the timeout: the culler culls at >= timeout.
            (
                server("idle-exactly", t(9, 0), t(12, 0)),
                State::StaleIdle,
                t(13, 10),
            ),
            (
                server("active", t(9, 0), t(12, 57)),
                State::StaleActive,
                t(14, 7),
            ),
            // Inactive for 59 minutes, below the timeout: nobody is using it, so it is
            // idle, due at its last activity + timeout + every.
            (
                server("quiet", t(9, 0), t(12, 1)),
                State::StaleIdle,
                t(13, 11),
            ),
            // Never reported activity: counted from its start, as the culler does.
            (
                server("silent", t(11, 0), None),
                State::StaleIdle,
                t(12, 10),
            ),
            (server("no-times", None, None), State::StaleActive, None),
            // Later than the run's clock: within the skew, recent; beyond, wrong (stale).
            (server("skewed", t(13, 5), t(12, 59)), State::Updated, None),
            (
                server("future", t(13, 6), t(12, 59)),
                State::StaleActive,
                t(14, 9),
            ),
            (pending_spawn, State::Pending, None),
            (not_ready, State::Pending, None),
            (stopping, State::Pending, None),
        ];
        for (s, state, deadline) in cases {
            let user = s.user.clone();
            let c = classify([s], None, RELEASE, NOW, &defaults());
            assert_eq!(
                (c.servers[0].state, c.servers[0].deadline),
                (state, deadline),
                "{user}"
            );
        }
    }

    #[test]
    fn deadlines_follow_the_culler_settings() {
        let started = Some(datetime!(2026-11-30 11:00 UTC));
        let idle = ServerTimes {
            started,
            last_activity: Some(datetime!(2026-11-30 11:30 UTC)),
        };
        let active = ServerTimes {
            started,
            last_activity: Some(datetime!(2026-11-30 12:55 UTC)),
        };
        // (model, times, deadline if no more activity, deadline while in use)
        let cases = [
            (defaults(), idle, t(12, 40), None),
            // Active: due an hour and ten minutes after its last activity if it goes idle;
            // while in use, never (no maximum age).
            (defaults(), active, t(14, 5), None),
            // Max age 4 h: idle, it goes as before; in use, by start + 4 h + every.
            (
                settings(true, 3600, 600, 4 * 3600),
                active,
                t(14, 5),
                t(15, 10),
            ),
            // Max age 30 min comes before the idle timeout: already overdue.
            (settings(true, 3600, 600, 1800), idle, t(11, 40), t(11, 40)),
            (settings(false, 3600, 600, 1800), idle, None, None),
            (settings(false, 3600, 600, 1800), active, None, None),
        ];
        for (model, times, deadline, in_use) in cases {
            assert_eq!(model.deadline(&times, NOW), deadline, "{model:?} {times:?}");
            assert_eq!(model.in_use_deadline(&times), in_use, "{model:?} {times:?}");
        }
    }

    #[test]
    fn totals_and_convergence() {
        let mut spawn_after = server("e", t(12, 59), None);
        spawn_after.pending = Some(Pending::Spawn);
        let servers = vec![
            server("a", t(12, 30), t(12, 59)),
            server("b", t(9, 0), t(11, 50)),
            server("c", t(9, 0), t(11, 30)),
            server("d", t(9, 0), t(12, 58)),
            spawn_after.clone(),
        ];
        let c = classify(servers, None, RELEASE, NOW, &defaults());
        assert_eq!(
            c.totals,
            Totals {
                running: 5,
                updated: 1,
                stale: 3,
                stale_idle: 2,
                stale_active: 1,
                pending: 1,
                pending_stale: 0,
                // c was due at 12:40.
                overdue: 1,
                mismatch: 0,
                orphans: 0,
                unknown: 0,
                evidence: Evidence::StartTime,
                converged: false,
                converged_by: t(13, 0),
                // d, active, is due at 14:08 if it goes idle now.
                all_stale_by: t(14, 8),
            }
        );
        let order: Vec<_> = c.servers.iter().map(|s| s.server.user.as_str()).collect();
        assert_eq!(order, ["c", "b", "d", "e", "a"]);

        let done = classify(
            vec![server("a", t(12, 30), t(12, 59)), spawn_after],
            None,
            RELEASE,
            NOW,
            &defaults(),
        );
        assert!(done.totals.converged);
        assert_eq!(done.totals.converged_by, None);

        let empty = classify(Vec::new(), None, RELEASE, NOW, &defaults());
        assert!(empty.totals.converged);
        assert_eq!(empty.totals.running, 0);
    }

    #[test]
    fn a_stopping_or_old_pending_server_blocks_convergence() {
        let mut stopping = server("s", Some(datetime!(2026-11-30 12:30 UTC)), None);
        stopping.pending = Some(Pending::Stop);
        let mut old_spawn = server("o", Some(datetime!(2026-11-30 11:30 UTC)), None);
        old_spawn.pending = Some(Pending::Spawn);
        // A start later than the run's clock proves nothing.
        let mut future_spawn = server("f", Some(datetime!(2026-11-30 13:30 UTC)), None);
        future_spawn.pending = Some(Pending::Spawn);
        for s in [stopping, old_spawn, future_spawn] {
            let c = classify([s], None, RELEASE, NOW, &defaults());
            assert_eq!((c.totals.pending_stale, c.totals.converged), (1, false));
        }
    }

    #[test]
    fn overdue_servers_are_counted_and_all_stale_by_needs_every_deadline() {
        let model = settings(true, 3600, 600, 2 * 3600);
        let servers = vec![
            // Idle since 10:00: due 11:10, overdue at 13:00.
            server(
                "late",
                Some(datetime!(2026-11-30 09:00 UTC)),
                Some(datetime!(2026-11-30 10:00 UTC)),
            ),
            // Active, started 11:00: max age → 13:10.
            server(
                "busy",
                Some(datetime!(2026-11-30 11:00 UTC)),
                Some(datetime!(2026-11-30 12:59 UTC)),
            ),
        ];
        let c = classify(servers, None, RELEASE, NOW, &model);
        assert_eq!(c.totals.overdue, 1);
        assert!(c.servers[0].overdue);
        assert_eq!(c.totals.converged_by, Some(datetime!(2026-11-30 11:10 UTC)));
        assert_eq!(c.totals.all_stale_by, Some(datetime!(2026-11-30 13:10 UTC)));
    }

    fn d(c: char) -> crate::digest::Digest {
        crate::digest::Digest::parse(&format!("sha256:{}", c.to_string().repeat(64))).unwrap()
    }

    fn target() -> ImageTarget {
        ImageTarget {
            // The index, then its two platform manifests.
            digests: vec![d('a'), d('b'), d('c')],
            repository: Some("ghcr.io/org/lab".into()),
        }
    }

    #[test]
    fn image_ids_are_judged_by_digest_then_repository() {
        let a = d('a');
        let b = d('b');
        let old = d('f');
        // (imageID, verdict)
        let cases = [
            (format!("ghcr.io/org/lab@{a}"), Verdict::New),
            // A runtime reporting the platform manifest (a child of the index).
            (format!("ghcr.io/org/lab@{b}"), Verdict::New),
            (
                format!("docker-pullable://ghcr.io/org/lab@{a}"),
                Verdict::New,
            ),
            (
                format!("ghcr.io/org/lab@{old}"),
                Verdict::Old(old.to_string()),
            ),
            // A bare config ID names no repository: never updated.
            (a.to_string(), Verdict::Unknown(UnknownWhy::BareId)),
            (format!("@{a}"), Verdict::Unknown(UnknownWhy::BareId)),
            (String::new(), Verdict::Unknown(UnknownWhy::NoImageId)),
            ("  ".into(), Verdict::Unknown(UnknownWhy::NoImageId)),
            // A digest names the content: the new image under another name (a mirror) is
            // new; another digest there is another image (a profile's), not an old one.
            (format!("docker.io/other/lab@{a}"), Verdict::New),
            (
                format!("mirror.example/org/lab@{old}"),
                Verdict::Unknown(UnknownWhy::OtherRepository),
            ),
            (
                "ghcr.io/org/lab:latest".into(),
                Verdict::Unknown(UnknownWhy::Unreadable),
            ),
            (
                "ghcr.io/org/lab@sha256:zz".into(),
                Verdict::Unknown(UnknownWhy::Unreadable),
            ),
        ];
        for (id, verdict) in cases {
            assert_eq!(judge(Some(&id), &target()), verdict, "{id:?}");
        }
        assert_eq!(
            judge(None, &target()),
            Verdict::Unknown(UnknownWhy::NoImageId)
        );
        // Docker Hub spellings are one repository.
        let hub = ImageTarget {
            digests: vec![a.clone()],
            repository: Some("docker.io/library/lab".into()),
        };
        for id in [
            format!("lab@{old}"),
            format!("docker.io/lab@{old}"),
            format!("index.docker.io/library/lab@{old}"),
        ] {
            assert_eq!(
                judge(Some(&id), &hub),
                Verdict::Old(old.to_string()),
                "{id}"
            );
        }
        // An OCI layout names no repository: only the digest is checked.
        let layout = ImageTarget {
            digests: vec![a.clone()],
            repository: None,
        };
        assert_eq!(
            judge(Some(&format!("any/where@{old}")), &layout),
            Verdict::Old(old.to_string())
        );
    }

    fn pod(name: &str, user: Option<&str>, image: Option<String>) -> super::super::Pod {
        super::super::Pod {
            name: name.into(),
            user: user.map(Into::into),
            server: Some(String::new()),
            image_id: image,
            started: t(9, 0),
        }
    }

    #[test]
    fn servers_are_classified_by_their_pods_digest() {
        let new = Some(format!("ghcr.io/org/lab@{}", d('a')));
        let child = Some(format!("ghcr.io/org/lab@{}", d('c')));
        let old = Some(format!("ghcr.io/org/lab@{}", d('f')));
        let servers = vec![
            server("new", t(12, 30), t(12, 59)),
            server("child", t(12, 30), t(12, 59)),
            // Started after the release, old digest: mismatch.
            server("mismatch", t(12, 30), t(12, 59)),
            // Started before the release on the new digest (re-pulled elsewhere): updated.
            server("early-new", t(9, 0), t(11, 30)),
            server("idle-old", t(9, 0), t(11, 30)),
            server("creating", t(12, 58), None),
            server("no-pod", t(12, 30), None),
            // Started later than the run's clock, old digest: stale, not a mismatch.
            server("future-old", t(13, 30), t(13, 30)),
        ];
        let pods = vec![
            pod("jupyter-new", Some("new"), new.clone()),
            pod("jupyter-child", Some("child"), child),
            pod("jupyter-mismatch", Some("mismatch"), old.clone()),
            pod("jupyter-early-new", Some("early-new"), new.clone()),
            pod("jupyter-idle-old", Some("idle-old"), old.clone()),
            pod("jupyter-creating", Some("creating"), None),
            pod("jupyter-future-old", Some("future-old"), old.clone()),
            pod("jupyter-gone", Some("gone"), old),
            // Started after the hub was read: a server the hub started since, left out.
            super::super::Pod {
                started: t(13, 1),
                ..pod("jupyter-late", Some("late"), new)
            },
        ];
        let evidence = PodEvidence {
            pods,
            target: target(),
            hub_read_at: NOW,
            pods_read_at: NOW,
        };
        let c = classify(servers, Some(evidence), RELEASE, NOW, &defaults());
        let states: Vec<(&str, State)> = c
            .servers
            .iter()
            .map(|s| (s.server.user.as_str(), s.state))
            .collect();
        assert_eq!(
            states,
            [
                ("mismatch", State::Mismatch),
                ("gone", State::Orphan),
                ("idle-old", State::StaleIdle),
                ("future-old", State::StaleActive),
                ("creating", State::Unknown),
                ("no-pod", State::Unknown),
                ("child", State::Updated),
                ("early-new", State::Updated),
                ("new", State::Updated),
            ]
        );
        let t = c.totals;
        assert_eq!(
            (
                t.running,
                t.updated,
                t.mismatch,
                t.orphans,
                t.unknown,
                t.stale_idle
            ),
            (8, 3, 1, 1, 2, 1)
        );
        assert_eq!(t.evidence, Evidence::Digest);
        assert!(!t.converged);
        // idle-old was due at 12:40.
        assert_eq!(c.alarms(), [Alarm::Mismatch, Alarm::Overdue, Alarm::Orphan]);
        assert_eq!(
            c.servers[0].pod.as_ref().unwrap().digest,
            Some(d('f').to_string())
        );
    }

    #[test]
    fn an_orphan_whose_start_time_is_later_than_the_listing_itself_still_counts() {
        let old = Some(format!("ghcr.io/org/lab@{}", d('f')));
        let orphan = |name: &str, started| super::super::Pod {
            started,
            ..pod(name, Some(name), old.clone())
        };
        let evidence = PodEvidence {
            pods: vec![
                // Within the skew of the listing's end: a server started since, left out.
                orphan("recent", t(13, 4)),
                // Past it: a node clock or a start time that is wrong, not a new server.
                orphan("future", t(14, 0)),
            ],
            target: target(),
            hub_read_at: NOW,
            pods_read_at: NOW,
        };
        let c = classify(Vec::new(), Some(evidence), RELEASE, NOW, &defaults());
        let users: Vec<&str> = c.servers.iter().map(|s| s.server.user.as_str()).collect();
        assert_eq!(users, ["future"]);
        assert_eq!(c.totals.orphans, 1);
        assert!(!c.totals.converged);
    }

    #[test]
    fn of_two_pods_of_one_server_the_newest_is_judged_whatever_the_listing_order() {
        let new = Some(format!("ghcr.io/org/lab@{}", d('a')));
        let old = Some(format!("ghcr.io/org/lab@{}", d('f')));
        let newest = super::super::Pod {
            started: t(12, 30),
            ..pod("jupyter-a", Some("a"), new)
        };
        let older = super::super::Pod {
            started: t(9, 0),
            ..pod("jupyter-a-old", Some("a"), old)
        };
        for pods in [
            vec![newest.clone(), older.clone()],
            vec![older.clone(), newest.clone()],
        ] {
            let evidence = PodEvidence {
                pods,
                target: target(),
                hub_read_at: NOW,
                pods_read_at: NOW,
            };
            let c = classify(
                vec![server("a", t(12, 30), t(12, 59))],
                Some(evidence),
                RELEASE,
                NOW,
                &defaults(),
            );
            let judged: Vec<(State, &str)> = c
                .servers
                .iter()
                .map(|s| {
                    let pod = s.pod.as_ref().and_then(|p| p.pod.as_ref());
                    (s.state, pod.map_or("", |p| p.name.as_str()))
                })
                .collect();
            assert_eq!(
                judged,
                [
                    (State::Orphan, "jupyter-a-old"),
                    (State::Updated, "jupyter-a")
                ]
            );
        }
    }

    #[test]
    fn by_digest_converged_needs_every_pod_on_the_release() {
        let new = Some(format!("ghcr.io/org/lab@{}", d('b')));
        let evidence = PodEvidence {
            pods: vec![pod("jupyter-a", Some("a"), new)],
            target: target(),
            hub_read_at: NOW,
            pods_read_at: NOW,
        };
        let c = classify(
            vec![server("a", t(9, 0), t(12, 59))],
            Some(evidence),
            RELEASE,
            NOW,
            &defaults(),
        );
        assert!(c.totals.converged);
        assert!(c.alarms().is_empty());
        // By start time the same server is stale: only the digest says otherwise.
        let s = classify(
            vec![server("a", t(9, 0), t(12, 59))],
            None,
            RELEASE,
            NOW,
            &defaults(),
        );
        assert!(!s.totals.converged);
        assert_eq!(s.totals.evidence, Evidence::StartTime);
    }

    proptest::proptest! {
        /// Whatever the imageID, a pod is never judged new without a repository and one of
        /// the release's digests in it.
        #[test]
        fn new_needs_repository_and_release_digest(id in ".{0,90}", pick in 0usize..4) {
            let digests = ["a", "b", "c", "f"].map(|c| d(c.chars().next().unwrap()));
            let candidates = [
                id.clone(),
                format!("ghcr.io/org/lab@{}", digests[pick]),
                format!("{}@{}", id, digests[pick]),
                digests[pick].to_string(),
            ];
            for cand in candidates {
                if judge(Some(&cand), &target()) == Verdict::New {
                    let (repo, digest) = cand.rsplit_once('@').unwrap();
                    proptest::prop_assert!(!repo.is_empty());
                    proptest::prop_assert!(target().digests.iter().any(|x| x.as_str() == digest));
                }
            }
        }
    }

    proptest::proptest! {
        /// Whatever the servers: the counts add up, updated servers started after the
        /// release, stale rows come first in deadline order, and convergence means no stale
        /// server.
        #[test]
        fn totals_add_up_and_rows_are_in_deadline_order(
            rows in proptest::collection::vec(
                (
                    proptest::option::of(-600i64..600),
                    proptest::option::of(-600i64..600),
                    proptest::bool::ANY,
                    0u8..4,
                ),
                0..40,
            ),
            timeout in 1u64..7200,
            max_age in 0u64..20_000,
        ) {
            let minute = |m: i64| RELEASE + Duration::minutes(m);
            let servers = rows.iter().enumerate().map(|(i, (started, last, ready, pending))| Server {
                user: format!("u{i}"),
                name: String::new(),
                times: ServerTimes { started: started.map(minute), last_activity: last.map(minute), },
                ready: *ready,
                pending: match pending {
                    1 => Some(Pending::Spawn),
                    2 => Some(Pending::Stop),
                    _ => None,
                },
            });
            let c = classify(servers, None, RELEASE, NOW, &settings(true, timeout, 600, max_age));
            let t = c.totals;
            proptest::prop_assert_eq!(t.running as usize, rows.len());
            proptest::prop_assert_eq!(t.running, t.updated + t.stale_idle + t.stale_active + t.pending);
            proptest::prop_assert_eq!(t.converged, t.stale == 0 && t.pending_stale == 0);
            for s in &c.servers {
                if s.state == State::Updated {
                    proptest::prop_assert!(s.server.times.started.is_some_and(|x| x > RELEASE));
                }
                if s.state == State::StaleIdle {
                    proptest::prop_assert!(s.deadline.is_some());
                }
                // Culling runs: every stale server with a time has a deadline, active too,
                // and in use it is not stopped before it would be idle.
                if matches!(s.state, State::StaleIdle | State::StaleActive)
                    && (s.server.times.started.is_some() || s.server.times.last_activity.is_some())
                {
                    proptest::prop_assert!(s.deadline.is_some());
                }
                if let (Some(d), Some(u)) = (s.deadline, s.in_use_deadline) {
                    proptest::prop_assert!(d <= u);
                }
                if s.state != State::StaleActive {
                    proptest::prop_assert!(s.in_use_deadline.is_none());
                }
            }
            let stale: Vec<_> = c.servers.iter().take(t.stale as usize).collect();
            proptest::prop_assert!(stale.iter().all(|s| matches!(s.state, State::StaleIdle | State::StaleActive)));
            let with_deadline: Vec<_> = stale.iter().filter_map(|s| s.deadline).collect();
            proptest::prop_assert!(with_deadline.windows(2).all(|w| w[0] <= w[1]));
            if let Some(by) = t.converged_by {
                proptest::prop_assert!(c.servers.iter().filter(|s| s.state == State::StaleIdle).all(|s| s.deadline <= Some(by)));
            }
        }
    }
}
