//! Digest resolution against real registries the tests start (plain, htpasswd Basic auth,
//! token auth with a token server the test starts), each compared with
//! `skopeo inspect --raw | sha256`, and against a wiremock registry only for what a real one
//! cannot be made to show (no digest header, a lying header, 429 with Retry-After, 503 then
//! success, a token endpoint answering 401, a hang past the deadline). Request counts are
//! asserted at the servers: a counting proxy in front of each real registry, the token
//! server's and wiremock's request logs.

use crate::common::*;
use codeq_rollout::digest::registry::{
    self, ACCEPT_MANIFESTS, CredentialSource, Credentials, RegistryError, RegistryOptions,
    Resolved, RetryPolicy,
};
use std::sync::Arc;
use std::time::Duration;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

const USER: &str = "ci-bot";
const PASSWORD: &str = "s3cret-registry-password";
const REPO_PATH: &str = "/v2/org/lab/manifests/latest";

fn credentials(password: &str) -> Option<Credentials> {
    Some(Credentials {
        username: USER.into(),
        password: password.into(),
        source: CredentialSource::RegistryInputs,
    })
}

fn options(
    insecure: &str,
    credentials: Option<Credentials>,
    timer: &Arc<VirtualTimer>,
) -> RegistryOptions {
    RegistryOptions {
        credentials,
        github_token: None,
        insecure: vec![insecure.to_string()],
        retry: RetryPolicy::default(),
        timer: Some(Arc::clone(timer) as Arc<dyn registry::Timer>),
    }
}

async fn resolve(image: &str, options: &RegistryOptions) -> Result<Resolved, RegistryError> {
    registry::resolve(&image.parse().unwrap(), options).await
}

fn secs(list: &[u64]) -> Vec<Duration> {
    list.iter().map(|s| Duration::from_secs(*s)).collect()
}

/// Resolves every shape through `proxy` and checks the digest against the pushed bytes and
/// skopeo, the media type, and that each resolution sent exactly `per_resolution`.
async fn check_every_shape(
    registry: &Registry,
    proxy: &CountingProxy,
    credentials: Option<Credentials>,
    skopeo: &[&str],
    per_resolution: &[(&str, &str, u16)],
    token_requests: usize,
) {
    let pushed = push_shapes(
        &registry.addr,
        "org/lab",
        credentials
            .as_ref()
            .map(|c| (c.username.as_str(), c.password.as_str())),
    )
    .await;
    for shape in Shape::ALL {
        let expected = &pushed[&shape];
        let by_skopeo = registry.raw_manifest_digest(&format!("org/lab:{}", shape.tag()), skopeo);
        assert_eq!(
            &by_skopeo, expected,
            "{shape:?}: skopeo sees the pushed bytes"
        );
        proxy.clear();
        let timer = VirtualTimer::start();
        let image = format!("{}/org/lab:{}", proxy.addr, shape.tag());
        let resolved = resolve(&image, &options(&proxy.addr, credentials.clone(), &timer))
            .await
            .unwrap_or_else(|e| panic!("{shape:?}: {e}"));
        assert_eq!(resolved.digest.as_str(), expected, "{shape:?}");
        assert_eq!(resolved.media_type, shape.media_type(), "{shape:?}");
        let want: Vec<(String, String, u16)> = per_resolution
            .iter()
            .map(|(m, a, s)| (m.to_string(), a.to_string(), *s))
            .collect();
        assert_eq!(proxy.summary(), want, "{shape:?}: requests at the registry");
        assert_eq!(resolved.requests as usize, want.len() + token_requests);
        for seen in proxy.requests() {
            assert_eq!(seen.path, format!("/v2/org/lab/manifests/{}", shape.tag()));
        }
        assert!(timer.waits().is_empty());
    }
}

#[tokio::test]
async fn plain_registry_resolves_each_manifest_shape_with_one_head() {
    let registry = Registry::start();
    let proxy = CountingProxy::start(&registry.addr).await;
    check_every_shape(&registry, &proxy, None, &[], &[("HEAD", "", 200)], 0).await;
}

#[tokio::test]
async fn htpasswd_registry_gets_basic_credentials_on_the_second_head() {
    let registry = Registry::start_htpasswd(USER, PASSWORD);
    let proxy = CountingProxy::start(&registry.addr).await;
    let creds = format!("{USER}:{PASSWORD}");
    check_every_shape(
        &registry,
        &proxy,
        credentials(PASSWORD),
        &["--creds", &creds],
        &[("HEAD", "", 401), ("HEAD", "Basic", 200)],
        0,
    )
    .await;
}

#[tokio::test]
async fn token_registry_costs_one_token_and_two_heads() {
    let tokens = TokenServer::start(&[(USER, PASSWORD)], false).await;
    let registry = Registry::start_token(&tokens);
    let proxy = CountingProxy::start(&registry.addr).await;
    let creds = format!("{USER}:{PASSWORD}");
    check_every_shape(
        &registry,
        &proxy,
        credentials(PASSWORD),
        &["--creds", &creds],
        &[("HEAD", "", 401), ("HEAD", "Bearer", 200)],
        1,
    )
    .await;
    // One token per resolution, asked with the Basic credentials for pull only.
    let asked = tokens.requests_from_codeq().await;
    assert_eq!(asked.len(), Shape::ALL.len(), "{asked:#?}");
    for (query, auth) in &asked {
        assert!(
            query.contains("scope=repository%3Aorg%2Flab%3Apull"),
            "{query}"
        );
        assert!(query.contains(&format!("service={SERVICE}")), "{query}");
        assert!(auth.starts_with("Basic "), "{auth}");
    }
}

#[tokio::test]
async fn public_image_on_a_token_registry_resolves_with_an_anonymous_token() {
    let tokens = TokenServer::start(&[(USER, PASSWORD)], true).await;
    let registry = Registry::start_token(&tokens);
    let proxy = CountingProxy::start(&registry.addr).await;
    let pushed = push_shapes(&registry.addr, "org/lab", Some((USER, PASSWORD))).await;
    let timer = VirtualTimer::start();
    let image = format!("{}/org/lab:index", proxy.addr);
    let resolved = resolve(&image, &options(&proxy.addr, None, &timer))
        .await
        .unwrap();
    assert_eq!(resolved.digest.as_str(), pushed[&Shape::OciIndex]);
    assert_eq!(resolved.requests, 3);
    assert_eq!(
        proxy.summary(),
        [
            ("HEAD".into(), "".into(), 401),
            ("HEAD".into(), "Bearer".into(), 200)
        ]
    );
    let asked = tokens.requests_from_codeq().await;
    assert_eq!(asked.len(), 1);
    assert_eq!(
        asked[0].1, "",
        "no credentials were sent to the token endpoint"
    );
}

#[tokio::test]
async fn anonymous_pull_of_a_private_image_is_denied_with_the_registry_message() {
    let tokens = TokenServer::start(&[(USER, PASSWORD)], false).await;
    let registry = Registry::start_token(&tokens);
    let proxy = CountingProxy::start(&registry.addr).await;
    push_shapes(&registry.addr, "org/lab", Some((USER, PASSWORD))).await;
    let timer = VirtualTimer::start();
    let image = format!("{}/org/lab:index", proxy.addr);
    let err = resolve(&image, &options(&proxy.addr, None, &timer))
        .await
        .unwrap_err();
    let RegistryError::Denied {
        status,
        ref message,
        ref tried,
        ..
    } = err
    else {
        panic!("{err}")
    };
    assert_eq!(status, 401);
    assert!(
        message
            .as_deref()
            .unwrap_or_default()
            .contains("UNAUTHORIZED"),
        "{err}"
    );
    assert!(tried.contains("anonymously"), "{err}");
    assert!(
        err.to_string()
            .contains("registry-username and registry-password"),
        "{err}"
    );
    // Failure path: the GET is there only for the registry's message.
    assert_eq!(
        proxy.summary(),
        [
            ("HEAD".into(), "".into(), 401),
            ("HEAD".into(), "Bearer".into(), 401),
            ("GET".into(), "Bearer".into(), 401)
        ]
    );
}

#[tokio::test]
async fn wrong_password_at_the_token_endpoint_is_an_authentication_error() {
    let tokens = TokenServer::start(&[(USER, PASSWORD)], false).await;
    let registry = Registry::start_token(&tokens);
    let proxy = CountingProxy::start(&registry.addr).await;
    let timer = VirtualTimer::start();
    let image = format!("{}/org/lab:latest", proxy.addr);
    let err = resolve(
        &image,
        &options(&proxy.addr, credentials("wrong-password"), &timer),
    )
    .await
    .unwrap_err();
    let text = err.to_string();
    assert!(
        matches!(err, RegistryError::Authentication { status: 401, .. }),
        "{text}"
    );
    assert!(
        text.contains(&format!("authentication to registry {}", proxy.addr)),
        "{text}"
    );
    assert!(text.contains(&tokens.realm()), "{text}");
    assert!(text.contains("incorrect username or password"), "{text}");
    assert!(
        text.contains(&format!("registry-username \"{USER}\"")),
        "{text}"
    );
    assert!(text.contains("registry-password"), "{text}");
    assert!(!text.contains("wrong-password"), "{text}");
    assert_eq!(proxy.summary(), [("HEAD".into(), "".into(), 401)]);
    assert_eq!(tokens.requests_from_codeq().await.len(), 1);
}

#[tokio::test]
async fn wrong_password_on_an_htpasswd_registry_is_denied_naming_the_user() {
    let registry = Registry::start_htpasswd(USER, PASSWORD);
    let proxy = CountingProxy::start(&registry.addr).await;
    let timer = VirtualTimer::start();
    let image = format!("{}/org/lab:latest", proxy.addr);
    let err = resolve(
        &image,
        &options(&proxy.addr, credentials("wrong-password"), &timer),
    )
    .await
    .unwrap_err();
    let text = err.to_string();
    assert!(
        matches!(err, RegistryError::Denied { status: 401, .. }),
        "{text}"
    );
    assert!(
        text.contains("UNAUTHORIZED: authentication required"),
        "{text}"
    );
    assert!(
        text.contains(&format!("registry-username \"{USER}\"")),
        "{text}"
    );
    assert!(!text.contains("wrong-password"), "{text}");
    assert_eq!(
        proxy.summary(),
        [
            ("HEAD".into(), "".into(), 401),
            ("HEAD".into(), "Basic".into(), 401),
            ("GET".into(), "Basic".into(), 401)
        ]
    );
}

#[tokio::test]
async fn missing_tag_and_missing_repository_carry_the_registry_message() {
    let registry = Registry::start();
    let proxy = CountingProxy::start(&registry.addr).await;
    push_shapes(&registry.addr, "org/lab", None).await;
    let timer = VirtualTimer::start();
    let opts = options(&proxy.addr, None, &timer);

    let err = resolve(&format!("{}/org/lab:nope", proxy.addr), &opts)
        .await
        .unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, RegistryError::TagNotFound { .. }), "{text}");
    assert!(text.starts_with("tag not found"), "{text}");
    assert!(
        text.contains("MANIFEST_UNKNOWN: manifest unknown"),
        "{text}"
    );
    assert_eq!(
        proxy.summary(),
        [
            ("HEAD".into(), "".into(), 404),
            ("GET".into(), "".into(), 404)
        ]
    );

    // distribution 2.8 answers MANIFEST_UNKNOWN for an unknown repository too.
    let err = resolve(&format!("{}/org/other:latest", proxy.addr), &opts)
        .await
        .unwrap_err();
    assert!(matches!(err, RegistryError::TagNotFound { .. }), "{err}");
}

#[tokio::test]
async fn plain_http_registry_over_https_is_a_tls_error_suggesting_insecure_registry() {
    let registry = Registry::start();
    let timer = VirtualTimer::start();
    let mut opts = options("", None, &timer);
    opts.insecure.clear();
    let err = resolve(&registry.reference("org/lab:latest"), &opts)
        .await
        .unwrap_err();
    let text = err.to_string();
    assert!(
        matches!(
            err,
            RegistryError::Tls {
                suggest_insecure: true,
                ..
            }
        ),
        "{text}"
    );
    assert!(
        text.contains(&format!("--insecure-registry {}", registry.addr)),
        "{text}"
    );
    assert!(timer.waits().is_empty(), "TLS failures are not retried");
}

#[tokio::test]
async fn nothing_listening_is_unreachable_naming_host_port_and_attempts() {
    let port = crate::common::registry::free_port();
    let addr = format!("127.0.0.1:{port}");
    let timer = VirtualTimer::start();
    let err = resolve(
        &format!("{addr}/org/lab:latest"),
        &options(&addr, None, &timer),
    )
    .await
    .unwrap_err();
    let text = err.to_string();
    let RegistryError::Unreachable {
        ref host,
        port: p,
        attempts,
        ..
    } = err
    else {
        panic!("{text}")
    };
    assert_eq!((host.as_str(), p, attempts), ("127.0.0.1", port, 6));
    assert!(
        text.contains(&format!("host 127.0.0.1, port {port}) after 6 attempt(s)")),
        "{text}"
    );
    assert_eq!(timer.waits(), secs(&[1, 2, 4, 8, 16]));
}

// ---- a wiremock registry, for what a real one cannot be made to show ----

const BODY: &[u8] = b"{\n   \"schemaVersion\": 2,\n   \"mediaType\": \"application/vnd.oci.image.index.v1+json\",\n   \"manifests\": []\n}\n\n";

async fn fake_registry() -> (MockServer, String) {
    let server = MockServer::start().await;
    let addr = server.address().to_string();
    (server, addr)
}

/// `(method, Accept)` of every request the fake registry got.
async fn seen(server: &MockServer) -> Vec<(String, String)> {
    server
        .received_requests()
        .await
        .unwrap()
        .into_iter()
        .map(|r| {
            let accept = r
                .headers
                .get("accept")
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_string();
            (r.method.to_string(), accept)
        })
        .collect()
}

fn digest_header(bytes: &[u8]) -> String {
    codeq_rollout::digest::Digest::of_bytes(bytes).to_string()
}

#[tokio::test]
async fn no_digest_header_falls_back_to_one_get_hashing_the_exact_bytes() {
    let (server, addr) = fake_registry().await;
    Mock::given(method("HEAD"))
        .and(path(REPO_PATH))
        .respond_with(ResponseTemplate::new(200))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path(REPO_PATH))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_raw(BODY, "application/vnd.oci.image.index.v1+json"),
        )
        .mount(&server)
        .await;
    let timer = VirtualTimer::start();
    let resolved = resolve(
        &format!("{addr}/org/lab:latest"),
        &options(&addr, None, &timer),
    )
    .await
    .unwrap();
    assert_eq!(resolved.digest.to_string(), digest_header(BODY));
    assert_eq!(resolved.requests, 2);
    let seen = seen(&server).await;
    assert_eq!(
        seen,
        [
            ("HEAD".to_string(), ACCEPT_MANIFESTS.to_string()),
            ("GET".to_string(), ACCEPT_MANIFESTS.to_string())
        ]
    );
}

#[tokio::test]
async fn name_unknown_is_repository_not_found() {
    // quay, Harbor and distribution's tag listing answer NAME_UNKNOWN for a repository they
    // do not have; a local distribution says MANIFEST_UNKNOWN on the manifest endpoint.
    let (server, addr) = fake_registry().await;
    Mock::given(method("HEAD"))
        .respond_with(ResponseTemplate::new(404))
        .mount(&server)
        .await;
    Mock::given(method("GET")).respond_with(ResponseTemplate::new(404).set_body_json(serde_json::json!(
        {"errors": [{"code": "NAME_UNKNOWN", "message": "repository name not known to registry"}]}
    )))
    .mount(&server)
    .await;
    let timer = VirtualTimer::start();
    let err = resolve(
        &format!("{addr}/org/other:latest"),
        &options(&addr, None, &timer),
    )
    .await
    .unwrap_err();
    let text = err.to_string();
    assert!(
        matches!(err, RegistryError::RepositoryNotFound { .. }),
        "{text}"
    );
    assert!(
        text.starts_with(&format!(
            "repository not found: registry {addr} does not know repository org/other"
        )),
        "{text}"
    );
    assert!(
        text.contains("NAME_UNKNOWN: repository name not known to registry"),
        "{text}"
    );
}

#[tokio::test]
async fn a_digest_header_the_bytes_contradict_is_an_error() {
    let (server, addr) = fake_registry().await;
    Mock::given(method("HEAD"))
        .respond_with(ResponseTemplate::new(200))
        .mount(&server)
        .await;
    let lie = digest_header(b"another manifest");
    Mock::given(method("GET"))
        .respond_with(
            ResponseTemplate::new(200)
                .insert_header("Docker-Content-Digest", lie.as_str())
                .set_body_raw(BODY, "application/vnd.oci.image.index.v1+json"),
        )
        .mount(&server)
        .await;
    let timer = VirtualTimer::start();
    let err = resolve(
        &format!("{addr}/org/lab:latest"),
        &options(&addr, None, &timer),
    )
    .await
    .unwrap_err();
    let text = err.to_string();
    assert!(
        matches!(err, RegistryError::DigestMismatch { .. }),
        "{text}"
    );
    assert!(
        text.contains(&lie) && text.contains(&digest_header(BODY)),
        "{text}"
    );
}

#[tokio::test]
async fn a_digest_header_that_is_not_sha256_hex_is_refused() {
    let (server, addr) = fake_registry().await;
    Mock::given(method("HEAD"))
        .respond_with(
            ResponseTemplate::new(200).insert_header("Docker-Content-Digest", "sha256:ABC"),
        )
        .mount(&server)
        .await;
    let timer = VirtualTimer::start();
    let err = resolve(
        &format!("{addr}/org/lab:latest"),
        &options(&addr, None, &timer),
    )
    .await
    .unwrap_err();
    assert!(matches!(err, RegistryError::InvalidDigest { .. }), "{err}");
    assert!(
        err.to_string()
            .contains("\"sha256:ABC\" is not an image digest"),
        "{err}"
    );
}

#[tokio::test]
async fn a_429_waits_what_retry_after_asks_then_resolves() {
    let (server, addr) = fake_registry().await;
    Mock::given(method("HEAD"))
        .respond_with(ResponseTemplate::new(429).insert_header("Retry-After", "7"))
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("HEAD"))
        .respond_with(
            ResponseTemplate::new(200)
                .insert_header("Docker-Content-Digest", digest_header(BODY).as_str()),
        )
        .mount(&server)
        .await;
    let timer = VirtualTimer::start();
    let resolved = resolve(
        &format!("{addr}/org/lab:latest"),
        &options(&addr, None, &timer),
    )
    .await
    .unwrap();
    assert_eq!(resolved.digest.to_string(), digest_header(BODY));
    assert_eq!(
        timer.waits(),
        secs(&[7]),
        "Retry-After, not the 1 s backoff"
    );
    assert_eq!(seen(&server).await.len(), 2);
}

#[tokio::test]
async fn a_503_is_retried_with_backoff_until_the_registry_answers() {
    let (server, addr) = fake_registry().await;
    Mock::given(method("HEAD"))
        .respond_with(ResponseTemplate::new(503))
        .up_to_n_times(2)
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("HEAD"))
        .respond_with(
            ResponseTemplate::new(200)
                .insert_header("Docker-Content-Digest", digest_header(BODY).as_str()),
        )
        .mount(&server)
        .await;
    let timer = VirtualTimer::start();
    let resolved = resolve(
        &format!("{addr}/org/lab:latest"),
        &options(&addr, None, &timer),
    )
    .await
    .unwrap();
    assert_eq!(resolved.digest.to_string(), digest_header(BODY));
    assert_eq!(resolved.requests, 3);
    assert_eq!(timer.waits(), secs(&[1, 2]));
    assert_eq!(seen(&server).await.len(), 3);
}

#[tokio::test]
async fn a_registry_that_keeps_failing_is_named_with_the_attempts() {
    let (server, addr) = fake_registry().await;
    Mock::given(method("HEAD"))
        .respond_with(ResponseTemplate::new(503))
        .mount(&server)
        .await;
    let timer = VirtualTimer::start();
    let err = resolve(
        &format!("{addr}/org/lab:latest"),
        &options(&addr, None, &timer),
    )
    .await
    .unwrap_err();
    let text = err.to_string();
    assert!(
        matches!(
            err,
            RegistryError::Unavailable {
                status: 503,
                attempts: 6,
                ..
            }
        ),
        "{text}"
    );
    assert!(text.contains("HTTP 503 after 6 attempt(s)"), "{text}");
    assert_eq!(timer.waits(), secs(&[1, 2, 4, 8, 16]));
    assert_eq!(seen(&server).await.len(), 6, "no GET after a 5xx");
}

#[tokio::test]
async fn a_retry_after_past_the_deadline_fails_at_once() {
    let (server, addr) = fake_registry().await;
    Mock::given(method("HEAD"))
        .respond_with(ResponseTemplate::new(429).insert_header("Retry-After", "120"))
        .mount(&server)
        .await;
    let timer = VirtualTimer::start();
    let err = resolve(
        &format!("{addr}/org/lab:latest"),
        &options(&addr, None, &timer),
    )
    .await
    .unwrap_err();
    let text = err.to_string();
    assert!(
        matches!(err, RegistryError::Unavailable { status: 429, attempts: 1, retry_after: Some(d), .. } if d == Duration::from_secs(120)),
        "{text}"
    );
    assert!(
        text.contains("retry after 120.0 s, past the deadline"),
        "{text}"
    );
    assert!(timer.waits().is_empty());
}

#[tokio::test]
async fn a_token_endpoint_answering_401_is_an_authentication_error() {
    let (server, addr) = fake_registry().await;
    Mock::given(method("HEAD"))
        .respond_with(
            ResponseTemplate::new(401).insert_header(
                "WWW-Authenticate",
                format!(
                    r#"Bearer realm="{}/token",service="fake-registry""#,
                    server.uri()
                )
                .as_str(),
            ),
        )
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/token"))
        .respond_with(
            ResponseTemplate::new(401)
                .set_body_json(serde_json::json!({"details": "token service says no"})),
        )
        .mount(&server)
        .await;
    let timer = VirtualTimer::start();
    let err = resolve(
        &format!("{addr}/org/lab:latest"),
        &options(&addr, credentials(PASSWORD), &timer),
    )
    .await
    .unwrap_err();
    let text = err.to_string();
    assert!(
        matches!(err, RegistryError::Authentication { status: 401, .. }),
        "{text}"
    );
    assert!(
        text.contains(&format!("authentication to registry {addr} failed")),
        "{text}"
    );
    assert!(text.contains("token service says no"), "{text}");
    assert!(
        text.contains("registry-username") && text.contains("registry-password"),
        "{text}"
    );
    assert!(!text.contains(PASSWORD), "{text}");
    assert_eq!(seen(&server).await.len(), 2, "HEAD and one token request");
}

#[tokio::test]
async fn an_unreachable_token_endpoint_is_named_as_such() {
    let (server, addr) = fake_registry().await;
    let dead = crate::common::registry::free_port();
    Mock::given(method("HEAD"))
        .respond_with(ResponseTemplate::new(401).insert_header(
            "WWW-Authenticate",
            format!(r#"Bearer realm="http://127.0.0.1:{dead}/token",service="fake""#).as_str(),
        ))
        .mount(&server)
        .await;
    let timer = VirtualTimer::start();
    let err = resolve(
        &format!("{addr}/org/lab:latest"),
        &options(&addr, None, &timer),
    )
    .await
    .unwrap_err();
    let text = err.to_string();
    assert!(
        matches!(err, RegistryError::Unreachable { attempts: 6, .. }),
        "{text}"
    );
    assert!(
        text.starts_with(&format!(
            "cannot reach the token endpoint http://127.0.0.1:{dead}/token of registry {addr} (host 127.0.0.1, port {dead})"
        )),
        "{text}"
    );
    assert_eq!(
        seen(&server).await.len(),
        1,
        "one HEAD; the retries went to the token endpoint"
    );
}

#[tokio::test]
async fn a_registry_hanging_past_the_deadline_times_out() {
    let (server, addr) = fake_registry().await;
    Mock::given(method("HEAD"))
        .respond_with(ResponseTemplate::new(200).set_delay(Duration::from_secs(30)))
        .mount(&server)
        .await;
    let options = RegistryOptions {
        insecure: vec![addr.clone()],
        retry: RetryPolicy {
            timeout: Duration::from_millis(300),
            ..RetryPolicy::default()
        },
        ..Default::default()
    };
    let err = resolve(&format!("{addr}/org/lab:latest"), &options)
        .await
        .unwrap_err();
    let text = err.to_string();
    assert!(
        matches!(err, RegistryError::TimedOut { attempts: 1, .. }),
        "{text}"
    );
    assert!(
        text.contains("within registry-timeout (0.3 s; 1 attempt(s))"),
        "{text}"
    );
}

// ---- through the binary, as the Actions runner starts it ----

fn pushed_layout(registry: &Registry) -> String {
    let layout = tempfile::tempdir().unwrap();
    make_layout(layout.path(), "latest", "registry-it");
    registry.push_layout(
        layout.path(),
        "latest",
        "org/lab:latest",
        &["--preserve-digests"],
    );
    registry.raw_manifest_digest("org/lab:latest", &[])
}

#[tokio::test]
async fn expected_digest_mismatch_fails_before_anything_is_published() {
    let registry = Registry::start();
    let digest = pushed_layout(&registry);
    let github = FakeGitHub::start().await;
    let built = digest_header(b"what the build step pushed");
    let out = ActionRun::new(
        &registry.reference("org/lab:latest"),
        &github.api_url(),
        "pull_request",
        &pull_request_merged(&["routine"]),
    )
    .input("insecure-registry", &registry.addr)
    .input("expected-digest", &built)
    .run()
    .await;
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(
        out.stdout.contains(&digest) && out.stdout.contains(&built),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("moved the tag"), "{}", out.stdout);
    assert!(
        github.requests().await.is_empty(),
        "nothing read or written on GitHub"
    );

    let out = ActionRun::new(
        &registry.reference("org/lab:latest"),
        &github.api_url(),
        "pull_request",
        &pull_request_merged(&["routine"]),
    )
    .input("insecure-registry", &registry.addr)
    .input("expected-digest", &digest)
    .input("dry-run", "true")
    .run()
    .await;
    out.assert_success();
    assert_eq!(out.output("digest"), digest);
}

#[tokio::test]
async fn malformed_expected_digest_is_refused_before_the_registry_is_asked() {
    let (server, addr) = fake_registry().await;
    let out = ActionRun::new(
        &format!("{addr}/org/lab:latest"),
        "http://127.0.0.1:9",
        "workflow_dispatch",
        &serde_json::json!({}),
    )
    .input("insecure-registry", &addr)
    .input("expected-digest", "sha256:1234")
    .input("dry-run", "true")
    .run()
    .await;
    assert_eq!(out.code, 2, "bad input is a usage error");
    assert!(out.stdout.contains("expected-digest"), "{}", out.stdout);
    assert!(seen(&server).await.is_empty());
}

#[tokio::test]
async fn registry_timeout_input_bounds_a_hanging_registry() {
    let (server, addr) = fake_registry().await;
    Mock::given(method("HEAD"))
        .respond_with(ResponseTemplate::new(200).set_delay(Duration::from_secs(30)))
        .mount(&server)
        .await;
    let out = ActionRun::new(
        &format!("{addr}/org/lab:latest"),
        "http://127.0.0.1:9",
        "workflow_dispatch",
        &serde_json::json!({}),
    )
    .input("insecure-registry", &addr)
    .input("registry-timeout", "1")
    .input("dry-run", "true")
    .run()
    .await;
    assert_eq!(out.code, 1);
    assert!(
        out.stdout
            .contains("within registry-timeout (1.0 s; 1 attempt(s))"),
        "{}",
        out.stdout
    );
}

#[tokio::test]
async fn the_binary_retries_a_503_and_announces_the_digest() {
    let (server, addr) = fake_registry().await;
    Mock::given(method("HEAD"))
        .respond_with(ResponseTemplate::new(503))
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("HEAD"))
        .respond_with(
            ResponseTemplate::new(200)
                .insert_header("Docker-Content-Digest", digest_header(BODY).as_str()),
        )
        .mount(&server)
        .await;
    let mut run = ActionRun::new(
        &format!("{addr}/org/lab:latest"),
        "http://127.0.0.1:9",
        "workflow_dispatch",
        &serde_json::json!({}),
    )
    .input("insecure-registry", &addr)
    .input("tier", "routine")
    .input("dry-run", "true");
    run.args
        .extend(["--registry-retry-delay".to_string(), "0ms".to_string()]);
    let out = run.run().await;
    out.assert_success();
    assert_eq!(out.output("digest"), digest_header(BODY));
    assert_eq!(seen(&server).await.len(), 2);
}
