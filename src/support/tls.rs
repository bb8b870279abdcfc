//! TLS for both HTTP edges (the registry through `reqwest`, GitHub through `octocrab` on
//! `reqwest`): one stack, and the system trust roots read only when a TLS handshake needs
//! them, at most once per process; and the redirect policy of both, which send credentials
//! ([`same_origin_redirects`]).
//!
//! - **One stack.** rustls with the `ring` provider, installed once as the process default
//!   ([`install_provider`]); `oci-client`'s `rustls-tls-no-provider` feature keeps reqwest
//!   from pulling in the second (aws-lc) provider that its `rustls-tls` feature brings.
//! - **Roots on demand.** Reading the system store means opening and parsing a few hundred
//!   certificate files (`rustls-native-certs`: `SSL_CERT_FILE`/`SSL_CERT_DIR`, else the
//!   platform's locations); issue 9 measured it as nearly all of a run's time on a loopback
//!   registry, where no TLS connection is made at all. GitHub's client verifies with
//!   [`client_config`], whose verifier reads the store at its first handshake, and so does
//!   the registry's client; [`system_roots`] reads them once for both.

use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, ring};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, RootCertStore, SignatureScheme};
use std::sync::{Arc, Once, OnceLock};

/// Installs rustls's `ring` provider as the process default, once; later calls do nothing.
/// reqwest built without a provider (oci-client's `rustls-tls-no-provider`) panics when it
/// builds a client before one is installed.
pub fn install_provider() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        // An error means a provider is installed already: that one is kept.
        let _ = ring::default_provider().install_default();
    });
}

/// No trust roots in the system store (`SSL_CERT_FILE`, `SSL_CERT_DIR`, or the platform's
/// certificate locations). Its words are the render layer's (`crate::render::help::registry`);
/// a handshake fails with it as [`rustls::Error::Other`].
#[derive(Debug)]
pub(crate) struct NoTrustRoots;

impl std::error::Error for NoTrustRoots {}

/// The system's trust roots (DER), read at the first call and kept for the process.
///
/// # Errors
/// [`NoTrustRoots`]: no usable certificate found.
pub(crate) fn system_roots() -> Result<&'static [CertificateDer<'static>], NoTrustRoots> {
    static ROOTS: OnceLock<Vec<CertificateDer<'static>>> = OnceLock::new();
    let roots = ROOTS.get_or_init(|| rustls_native_certs::load_native_certs().certs);
    if roots.is_empty() {
        return Err(NoTrustRoots);
    }
    Ok(roots)
}

/// A rustls client configuration (ring provider, safe default protocol versions) whose
/// certificate verifier reads [`system_roots`] at its first handshake, not before: building
/// a client with it costs no I/O.
pub(crate) fn client_config() -> rustls::ClientConfig {
    install_provider();
    let provider = Arc::new(ring::default_provider());
    rustls::ClientConfig::builder_with_provider(Arc::clone(&provider))
        .with_safe_default_protocol_versions()
        .expect("ring supports the default protocol versions")
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(SystemRootsVerifier {
            provider,
            webpki: OnceLock::new(),
        }))
        .with_no_client_auth()
}

/// WebPKI verification against the system roots, built at the first handshake.
#[derive(Debug)]
struct SystemRootsVerifier {
    provider: Arc<CryptoProvider>,
    webpki: OnceLock<Result<Arc<WebPkiServerVerifier>, rustls::Error>>,
}

impl SystemRootsVerifier {
    fn webpki(&self) -> Result<&Arc<WebPkiServerVerifier>, rustls::Error> {
        self.webpki
            .get_or_init(|| {
                let roots = system_roots()
                    .map_err(|e| rustls::Error::Other(rustls::OtherError(Arc::new(e))))?;
                let mut store = RootCertStore::empty();
                store.add_parsable_certificates(roots.iter().cloned());
                WebPkiServerVerifier::builder_with_provider(
                    Arc::new(store),
                    Arc::clone(&self.provider),
                )
                .build()
                .map_err(|e| rustls::Error::General(e.to_string()))
            })
            .as_ref()
            .map_err(Clone::clone)
    }
}

impl ServerCertVerifier for SystemRootsVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        self.webpki()?.verify_server_cert(
            end_entity,
            intermediates,
            server_name,
            ocsp_response,
            now,
        )
    }

    // Handshake signatures are checked by the same WebPKI verifier, built by then (the
    // certificate is verified first).
    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.webpki()?.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.webpki()?.verify_tls13_signature(message, cert, dss)
    }

    // Asked before any certificate is seen: the provider's own list, so no roots are read.
    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        (self.provider.signature_verification_algorithms).supported_schemes()
    }
}

/// The redirect policy of a client that sends a credential: follow a redirect only within
/// `base`'s origin (scheme, host and port), at most 10 hops; a redirect elsewhere is not
/// followed, its 3xx answer is the caller's. reqwest's default policy drops sensitive
/// headers on the first hop to another host but sends them again on a hop from there to
/// the same host (reqwest 0.13: each hop starts from the first request's headers and is
/// compared with the hop before), so a credential could reach a server that redirects to
/// itself.
pub(crate) fn same_origin_redirects(base: &url::Url) -> reqwest::redirect::Policy {
    let origin = base.origin();
    reqwest::redirect::Policy::custom(move |attempt| {
        match attempt.url().origin() == origin && attempt.previous().len() < 10 {
            true => attempt.follow(),
            false => attempt.stop(),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use assert_matches::assert_matches;

    #[test]
    fn the_lazy_verifier_checks_chains_against_the_system_store() {
        let provider = Arc::new(ring::default_provider());
        let verifier = SystemRootsVerifier {
            provider,
            webpki: OnceLock::new(),
        };
        assert!(
            verifier.webpki.get().is_none(),
            "nothing is read before a handshake"
        );
        // A root certificate presented as a server's own: it is in the store, but it is a
        // CA and not valid for the name, so the chain check must refuse it.
        let root = system_roots().unwrap()[0].clone();
        let name = ServerName::try_from("registry.example.org").unwrap();
        let err = verifier
            .verify_server_cert(&root, &[], &name, &[], UnixTime::now())
            .unwrap_err();
        assert_matches!(err, rustls::Error::InvalidCertificate(_));
        assert!(verifier.webpki.get().is_some_and(Result::is_ok));
    }
}
