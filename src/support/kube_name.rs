//! The names of Kubernetes objects the inputs give: a namespace (a DNS-1123 label) and a
//! Helm release (DNS-1123 labels joined by dots, Helm's own length limit). The rules are
//! Kubernetes' and Helm's (no crate of ours carries them: kube and k8s-openapi send names
//! unchecked); checked here because the runbook pastes both into shell commands, where
//! anything else could run, and the API server would refuse them later anyway.
//!
//! Pure: a name in, the checked [`KubeName`] or the value refused out; the words are the
//! render layer's.

/// Kubernetes' limit on a namespace name: a DNS-1123 label of at most 63 characters
/// (Kubernetes "Object Names and IDs").
pub(crate) const NAMESPACE_MAX_CHARS: usize = 63;
/// Helm's limit on a release name: 53 characters (`chartutil.ValidateReleaseName`).
pub(crate) const HELM_RELEASE_MAX_CHARS: usize = 53;

/// A Kubernetes name an input gave, trimmed and checked by its kind's rule ([`NameKind::name`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct KubeName(pub(crate) String);

/// The two Kubernetes names an input takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NameKind {
    /// A namespace: a DNS-1123 label of at most [`NAMESPACE_MAX_CHARS`] characters
    /// (Kubernetes' rule for namespaces).
    Namespace,
    /// A Helm release: at most [`HELM_RELEASE_MAX_CHARS`] characters, DNS-1123 labels
    /// joined by dots (Helm's `chartutil.ValidateReleaseName`).
    HelmRelease,
}

impl NameKind {
    /// The most characters a name of this kind has.
    pub(crate) const fn max_chars(self) -> usize {
        match self {
            Self::Namespace => NAMESPACE_MAX_CHARS,
            Self::HelmRelease => HELM_RELEASE_MAX_CHARS,
        }
    }

    /// `value` trimmed, as a name of this kind.
    ///
    /// # Errors
    /// The value trimmed, when this kind's rule ([`NameKind::takes`]) refuses it.
    pub(crate) fn name(self, value: &str) -> Result<KubeName, String> {
        let v = value.trim();
        let name = self.takes(v).then(|| KubeName(v.to_string()));
        name.ok_or_else(|| v.to_string())
    }

    /// Whether `name` (as given, not trimmed) follows this kind's rule.
    pub(crate) fn takes(self, name: &str) -> bool {
        name.chars().count() <= self.max_chars()
            && match self {
                Self::Namespace => is_dns_label(name),
                Self::HelmRelease => name.split('.').all(is_dns_label),
            }
    }
}

/// Whether `s` is a DNS-1123 label: lower-case letters, digits and `-`, starting and
/// ending with a letter or digit (length not checked).
fn is_dns_label(s: &str) -> bool {
    let alnum = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    let bytes = s.as_bytes();
    !bytes.is_empty()
        && alnum(bytes[0])
        && alnum(bytes[bytes.len() - 1])
        && bytes.iter().all(|&b| alnum(b) || b == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_come_back_trimmed_and_refusals_give_the_trimmed_value() {
        assert_eq!(
            NameKind::Namespace.name(" jhub "),
            Ok(KubeName("jhub".into()))
        );
        assert_eq!(NameKind::Namespace.name(" a.b "), Err("a.b".into()));
        assert_eq!(
            NameKind::HelmRelease.name("a.b"),
            Ok(KubeName("a.b".into()))
        );
    }
}
