//! The pull-policy preflight: whether new single-user servers may start on an image older
//! than the one announced, from the single-user image the values files configure
//! (`singleuser.image.*`) and the image announced ([`ImageConfig::pull_risk`]).

use super::Origin;
use crate::digest::PodReference;
use serde::{Deserialize, Serialize};

/// A container's image pull policy (`imagePullPolicy`, Kubernetes `core/v1` `PullPolicy`):
/// when the kubelet asks the registry before starting a container.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum PullPolicy {
    /// Resolve the tag at the registry at every start: a new pod runs what the tag names now.
    Always,
    /// Pull only when the node has no image of that name and tag: a node that pulled the tag
    /// before starts new pods from its cached, older image.
    IfNotPresent,
    /// Never pull: only what the node has.
    Never,
}

/// `singleuser.image.tag` as the values files leave it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub(crate) enum ImageTag {
    /// No file sets it: the chart's own applies (z2jh packages its version there, e.g.
    /// `4.4.0`, never `latest`).
    #[default]
    Unset,
    /// Set to null or `""`: z2jh then spawns the image by its name alone (`image = name`,
    /// then `name:tag` only `if tag`, 4.4.0 `files/hub/jupyterhub_config.py`), which
    /// Kubernetes reads as `:latest`.
    Empty,
    /// Set to this tag (the text after `name:`, a `@sha256:…` pin included).
    Given(String),
}

/// The single-user image the values files configure (z2jh `singleuser.image.*`), layered as
/// Helm layers them; [`ImageConfig::default`] when no file sets any.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub(crate) struct ImageConfig {
    /// `singleuser.image.name` and where it came from; `None` when no file sets it (or the
    /// last that does sets null or `""`).
    pub(crate) name: Option<(String, Origin)>,
    /// `singleuser.image.tag`.
    pub(crate) tag: ImageTag,
    /// `singleuser.image.pullPolicy` and where it came from; `None` when no file sets it or
    /// the last that does sets null or `""`: z2jh then passes none to KubeSpawner
    /// (`set_config_if_not_none`), KubeSpawner 6.2 and later omit it from the pod
    /// (`image_pull_policy = Unicode(None, allow_none=True)`, kubespawner PR #807; z2jh 4.x
    /// ships KubeSpawner 7.0.0), and Kubernetes defaults it ([`PolicySource::KubernetesDefault`]).
    pub(crate) pull_policy: Option<(PullPolicy, Origin)>,
}

/// The tag of the image single-user pods start from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) enum PodTag {
    /// This tag.
    Given(String),
    /// None: the name alone, which Kubernetes reads as `:latest`.
    NoTag,
    /// z2jh's default tag, its chart version (the values set the name but no tag).
    ChartDefault,
}

/// The image single-user pods start from: from the values files where they set it, the
/// image announced otherwise.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct PodImage {
    /// The image's name (registry and repository).
    pub(crate) name: String,
    /// Its tag.
    pub(crate) tag: PodTag,
    /// Where the name came from: the values file and key; `None` for the image announced.
    pub(crate) name_origin: Option<Origin>,
}

/// Where the effective pull policy comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) enum PolicySource {
    /// `singleuser.image.pullPolicy`, set in this file at this key.
    Values(Origin),
    /// Left unset: Kubernetes' default, `Always` only when the tag is `latest` or there is
    /// none, `IfNotPresent` otherwise (kubernetes.io "Images", *Image pull policy
    /// defaulting*; `SetDefaults_Container`, `pkg/apis/core/v1/defaults.go`).
    KubernetesDefault,
}

/// The preflight's finding: new single-user servers may start on an image older than the
/// one announced, because the effective pull policy is not `Always` and the image is not
/// pinned by digest (a node that pulled the tag before keeps its cached copy). The release
/// note must not then promise that new servers start on the new image at once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PullRisk {
    /// The effective pull policy (never `Always`).
    pub(crate) policy: PullPolicy,
    /// Where it comes from.
    pub(crate) source: PolicySource,
    /// The image the pods start from; `None` when neither the values files nor the command
    /// name it (`window`, `docs`): then only a policy set explicitly is judged.
    pub(crate) image: Option<PodImage>,
}

impl ImageConfig {
    /// The preflight: whether new single-user servers may start on an old image, judged from
    /// these values and `announced`, the image reference announced (`None` when the command
    /// has none, or announces an OCI layout, which no pod starts from).
    ///
    /// The pods' image: the values' `name` when set, else the announced image's; the values'
    /// `tag` when set (null or `""`: none), else the announced image's, or z2jh's default
    /// (its chart version) when the values set the name. Pinned by digest (`@` in the name or
    /// the tag): `None`, the digest is exact. The effective policy: the values' `pullPolicy`
    /// when set, else Kubernetes' default for the tag ([`PolicySource::KubernetesDefault`]);
    /// `None` when it is `Always`, or when it is left to the default and no image is known.
    pub(crate) fn pull_risk(&self, announced: Option<&PodReference>) -> Option<PullRisk> {
        let image = match (&self.name, announced) {
            (Some((name, origin)), _) => Some((name.clone(), Some(origin.clone()), true)),
            (None, Some(announced)) => Some((announced.name.clone(), None, false)),
            (None, None) => None,
        };
        let image = image.map(|(name, name_origin, from_values)| {
            let tag = match (&self.tag, announced) {
                (ImageTag::Given(tag), _) => PodTag::Given(tag.clone()),
                (ImageTag::Empty, _) => PodTag::NoTag,
                (ImageTag::Unset, _) if from_values => PodTag::ChartDefault,
                (ImageTag::Unset, Some(PodReference { tag: Some(tag), .. })) => {
                    PodTag::Given(tag.clone())
                }
                (ImageTag::Unset, _) => PodTag::NoTag,
            };
            PodImage {
                name,
                tag,
                name_origin,
            }
        });
        let pinned = image.as_ref().is_some_and(|i| {
            let announced_pin = i.name_origin.is_none()
                && matches!(self.tag, ImageTag::Unset)
                && announced.is_some_and(|a| a.pinned);
            i.name.contains('@')
                || matches!(&i.tag, PodTag::Given(t) if t.contains('@'))
                || announced_pin
        });
        if pinned {
            return None;
        }
        let (policy, source) = match (&self.pull_policy, &image) {
            (Some((policy, origin)), _) => (*policy, PolicySource::Values(origin.clone())),
            (None, Some(i)) => {
                let policy = match &i.tag {
                    PodTag::Given(tag) if tag == "latest" => PullPolicy::Always,
                    PodTag::NoTag => PullPolicy::Always,
                    PodTag::Given(_) | PodTag::ChartDefault => PullPolicy::IfNotPresent,
                };
                (policy, PolicySource::KubernetesDefault)
            }
            (None, None) => return None,
        };
        (policy != PullPolicy::Always).then_some(PullRisk {
            policy,
            source,
            image,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pull-policy preflight: each case's values, the image announced, and the finding
    /// (policy, where it comes from, the pods' image), in one snapshot.
    #[test]
    fn pull_risk_table() {
        let f = |key: &str| Origin::file("values.yaml", format!("singleuser.image.{key}"));
        let policy = |p: PullPolicy| Some((p, f("pullPolicy")));
        let name = |n: &str| Some((n.to_string(), f("name")));
        let tag = |t: &str| ImageTag::Given(t.into());
        let cases: Vec<(&str, ImageConfig, Option<&str>)> = vec![
            (
                "nothing set, :latest announced",
                ImageConfig::default(),
                Some("ghcr.io/org/lab:latest"),
            ),
            (
                "nothing set, no tag announced",
                ImageConfig::default(),
                Some("ghcr.io/org/lab"),
            ),
            (
                "nothing set, a version tag announced",
                ImageConfig::default(),
                Some("ghcr.io/org/lab:1.4"),
            ),
            (
                "nothing set, announced pinned by digest",
                ImageConfig::default(),
                Some(
                    "ghcr.io/org/lab:1.4@sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
                ),
            ),
            (
                "nothing set, registry port, no tag",
                ImageConfig::default(),
                Some("localhost:5000/lab"),
            ),
            (
                "IfNotPresent on :latest",
                ImageConfig {
                    pull_policy: policy(PullPolicy::IfNotPresent),
                    ..Default::default()
                },
                Some("ghcr.io/org/lab:latest"),
            ),
            (
                "Never on :latest",
                ImageConfig {
                    pull_policy: policy(PullPolicy::Never),
                    ..Default::default()
                },
                Some("ghcr.io/org/lab:latest"),
            ),
            (
                "Always on a version tag",
                ImageConfig {
                    pull_policy: policy(PullPolicy::Always),
                    tag: tag("1.4"),
                    ..Default::default()
                },
                Some("ghcr.io/org/lab:latest"),
            ),
            (
                "values name and tag latest, unset policy",
                ImageConfig {
                    name: name("ghcr.io/org/lab"),
                    tag: tag("latest"),
                    ..Default::default()
                },
                Some("ghcr.io/org/other:2"),
            ),
            (
                "values name and a version tag, unset policy",
                ImageConfig {
                    name: name("ghcr.io/org/lab"),
                    tag: tag("2024.11"),
                    ..Default::default()
                },
                Some("ghcr.io/org/lab:latest"),
            ),
            (
                "values name without tag: the chart's default tag",
                ImageConfig {
                    name: name("ghcr.io/org/lab"),
                    ..Default::default()
                },
                Some("ghcr.io/org/lab:latest"),
            ),
            (
                "values name, tag null",
                ImageConfig {
                    name: name("ghcr.io/org/lab"),
                    tag: ImageTag::Empty,
                    ..Default::default()
                },
                None,
            ),
            (
                "values tag pinned by digest, IfNotPresent",
                ImageConfig {
                    name: name("ghcr.io/org/lab"),
                    tag: tag(
                        "latest@sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
                    ),
                    pull_policy: policy(PullPolicy::IfNotPresent),
                },
                None,
            ),
            (
                "no image known, IfNotPresent (window, docs)",
                ImageConfig {
                    pull_policy: policy(PullPolicy::IfNotPresent),
                    ..Default::default()
                },
                None,
            ),
            (
                "no image known, unset policy (window, docs)",
                ImageConfig::default(),
                None,
            ),
        ];
        let table: Vec<String> = cases
            .into_iter()
            .map(|(what, config, announced)| {
                format!(
                    "{what} ({announced:?})\n  {:?}",
                    config.pull_risk(announced.map(PodReference::split).as_ref())
                )
            })
            .collect();
        insta::assert_snapshot!(table.join("\n"));
    }
}
