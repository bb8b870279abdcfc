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
    Resolved, RetryPolicy, TlsProblem,
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
                problem: TlsProblem::NotTls,
                private: true,
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
async fn a_registry_that_keeps_failing_is_named_with_the_attempts_and_its_message() {
    let (server, addr) = fake_registry().await;
    Mock::given(method("HEAD"))
        .respond_with(ResponseTemplate::new(503))
        .mount(&server)
        .await;
    // Only a GET answer has a body: the registry's own words come from it.
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(503).set_body_json(serde_json::json!(
            {"errors": [{"code": "UNAVAILABLE", "message": "maintenance until 14:00 UTC"}]}
        )))
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
                attempts: 7,
                ..
            }
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "HTTP 503: the registry said \"UNAVAILABLE: maintenance until 14:00 UTC\" after 7 attempt(s)"
        ),
        "{text}"
    );
    assert_eq!(timer.waits(), secs(&[1, 2, 4, 8, 16]));
    let methods: Vec<String> = seen(&server).await.into_iter().map(|(m, _)| m).collect();
    assert_eq!(
        methods,
        ["HEAD", "HEAD", "HEAD", "HEAD", "HEAD", "HEAD", "GET"],
        "six HEAD tries, then one GET for the message"
    );
}

#[tokio::test]
async fn a_retry_after_past_the_deadline_fails_at_once_quoting_the_rate_limit() {
    let (server, addr) = fake_registry().await;
    Mock::given(method("HEAD"))
        .respond_with(ResponseTemplate::new(429).insert_header("Retry-After", "120"))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .respond_with(
            ResponseTemplate::new(429)
                .insert_header("Retry-After", "120")
                .set_body_json(serde_json::json!({"errors": [{"code": "TOOMANYREQUESTS",
                    "message": "You have reached your unauthenticated pull rate limit."}]})),
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
        matches!(err, RegistryError::Unavailable { status: 429, attempts: 2, retry_after: Some(d), .. } if d == Duration::from_secs(120)),
        "{text}"
    );
    assert!(
        text.contains("retry after 120 s, which is past the deadline"),
        "{text}"
    );
    assert!(
        text.contains("You have reached your unauthenticated pull rate limit."),
        "{text}"
    );
    assert!(timer.waits().is_empty());
    assert_eq!(seen(&server).await.len(), 2, "one HEAD, one GET");
}

#[tokio::test]
async fn a_head_that_keeps_failing_is_answered_by_the_one_get() {
    let (server, addr) = fake_registry().await;
    Mock::given(method("HEAD"))
        .respond_with(ResponseTemplate::new(502))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
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
    assert_eq!(resolved.requests, 7);
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
            // Long enough that building the HTTP client (trust roots) on a loaded runner fits.
            timeout: Duration::from_secs(2),
            ..RetryPolicy::default()
        },
        ..Default::default()
    };
    let err = resolve(&format!("{addr}/org/lab:latest"), &options)
        .await
        .unwrap_err();
    let text = err.to_string();
    assert!(
        matches!(err, RegistryError::TimedOut { requests: 1, .. }),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "registry {addr} did not answer for {addr}/org/lab:latest within registry-timeout (2 s; 1 request(s) sent)"
        )),
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
    .input("registry-timeout", "2")
    .input("dry-run", "true")
    .run()
    .await;
    assert_eq!(out.code, 1);
    assert!(
        out.stdout
            .contains("within registry-timeout (2 s; 1 request(s) sent)"),
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

// ---- what a registry (or what stands in front of it) must not get announced ----

/// A fake registry whose HEAD answers 200 without a digest header and whose GET answers
/// `get`; returns the resolution's result and the fake.
async fn resolve_with_get(get: ResponseTemplate) -> (Result<Resolved, RegistryError>, MockServer) {
    let (server, addr) = fake_registry().await;
    Mock::given(method("HEAD"))
        .respond_with(ResponseTemplate::new(200))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .respond_with(get)
        .mount(&server)
        .await;
    let timer = VirtualTimer::start();
    let result = resolve(
        &format!("{addr}/org/lab:latest"),
        &options(&addr, None, &timer),
    )
    .await;
    (result, server)
}

#[tokio::test]
async fn a_get_fallback_that_is_not_a_manifest_is_refused() {
    let login = b"<!DOCTYPE html><html><head><title>Sign in</title></head><body>SSO</body></html>";
    let cases: [(&[u8], &str, &str); 4] = [
        (
            login,
            "text/html; charset=utf-8",
            "an HTML or XML page (Content-Type text/html)",
        ),
        (
            b"",
            "application/vnd.oci.image.index.v1+json",
            "an empty body",
        ),
        (
            &BODY[..20],
            "application/vnd.oci.image.index.v1+json",
            "JSON cut short",
        ),
        (
            br#"{"schemaVersion":2,"mediaType":"application/vnd.oci.image.config.v1+json"}"#,
            "application/json",
            "media type \"application/vnd.oci.image.config.v1+json\"",
        ),
    ];
    for (body, content_type, what) in cases {
        let (result, server) =
            resolve_with_get(ResponseTemplate::new(200).set_body_raw(body, content_type)).await;
        let err = result.unwrap_err();
        let text = err.to_string();
        assert!(matches!(err, RegistryError::NotAManifest { .. }), "{text}");
        assert!(text.contains(what), "{what}: {text}");
        assert!(text.contains("not an image index or manifest"), "{text}");
        assert!(
            !text.contains(&digest_header(body)),
            "no digest of it: {text}"
        );
        assert_eq!(seen(&server).await.len(), 2);
    }
}

#[tokio::test]
async fn a_manifest_over_4_mib_is_refused() {
    let big = format!(
        r#"{{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[],"pad":"{}"}}"#,
        " ".repeat(4 << 20)
    );
    let (result, _server) = resolve_with_get(
        ResponseTemplate::new(200).set_body_raw(big, "application/vnd.oci.image.index.v1+json"),
    )
    .await;
    let err = result.unwrap_err();
    assert!(
        matches!(err, RegistryError::ManifestTooLarge { limit, .. } if limit == 4 << 20),
        "{err}"
    );
    assert!(err.to_string().contains("more than 4 MiB"), "{err}");
}

#[tokio::test]
async fn an_endless_manifest_body_is_cut_at_4_mib_not_read_whole() {
    let endless = crate::common::registry::EndlessManifest::start().await;
    let timer = VirtualTimer::start();
    let err = resolve(
        &format!("{}/org/lab:latest", endless.addr),
        &options(&endless.addr, None, &timer),
    )
    .await
    .unwrap_err();
    assert!(
        matches!(err, RegistryError::ManifestTooLarge { .. }),
        "{err}"
    );
    // Reading stopped at the limit: what the server got out is the limit plus what the
    // sockets buffer, far from unbounded.
    let sent = endless.sent();
    assert!(sent < 64 << 20, "{sent} bytes were read");
}

#[tokio::test]
async fn two_different_digest_headers_are_an_error() {
    let (server, addr) = fake_registry().await;
    let other = digest_header(b"another manifest");
    Mock::given(method("HEAD"))
        .respond_with(
            ResponseTemplate::new(200)
                .append_header("Docker-Content-Digest", digest_header(BODY).as_str())
                .append_header("Docker-Content-Digest", other.as_str()),
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
        matches!(err, RegistryError::ConflictingDigests { .. }),
        "{text}"
    );
    assert!(
        text.contains(&digest_header(BODY)) && text.contains(&other),
        "{text}"
    );
}

#[tokio::test]
async fn the_same_digest_header_twice_is_one_digest() {
    let (server, addr) = fake_registry().await;
    Mock::given(method("HEAD"))
        .respond_with(
            ResponseTemplate::new(200)
                .append_header("Docker-Content-Digest", digest_header(BODY).as_str())
                .append_header("Docker-Content-Digest", digest_header(BODY).as_str()),
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
}

#[tokio::test]
async fn a_pinned_reference_answered_with_another_digest_is_refused() {
    let pin = digest_header(BODY);
    let other = digest_header(b"another manifest");
    // The HEAD's header names another digest.
    let (server, addr) = fake_registry().await;
    Mock::given(method("HEAD"))
        .and(path(format!("/v2/org/lab/manifests/{pin}")))
        .respond_with(
            ResponseTemplate::new(200).insert_header("Docker-Content-Digest", other.as_str()),
        )
        .mount(&server)
        .await;
    let timer = VirtualTimer::start();
    let image = format!("{addr}/org/lab@{pin}");
    let err = resolve(&image, &options(&addr, None, &timer))
        .await
        .unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, RegistryError::PinMismatch { .. }), "{text}");
    assert!(
        text.contains(&format!("answered {image} with digest {other} (its Docker-Content-Digest header), but the reference is pinned to {pin}")),
        "{text}"
    );
    assert!(!text.contains("moved the tag"), "{text}");

    // No header: the bytes the GET serves are another manifest.
    let (server, addr) = fake_registry().await;
    Mock::given(method("HEAD"))
        .respond_with(ResponseTemplate::new(200))
        .mount(&server)
        .await;
    let served = br#"{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[]}"#;
    Mock::given(method("GET"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_raw(&served[..], "application/vnd.oci.image.index.v1+json"),
        )
        .mount(&server)
        .await;
    let err = resolve(
        &format!("{addr}/org/lab@{pin}"),
        &options(&addr, None, &timer),
    )
    .await
    .unwrap_err();
    assert!(
        matches!(err, RegistryError::PinMismatch { how, .. } if how.contains("bytes")),
        "{err}"
    );

    // The pinned digest itself resolves.
    let (server, addr) = fake_registry().await;
    Mock::given(method("HEAD"))
        .respond_with(
            ResponseTemplate::new(200).insert_header("Docker-Content-Digest", pin.as_str()),
        )
        .mount(&server)
        .await;
    let resolved = resolve(
        &format!("{addr}/org/lab@{pin}"),
        &options(&addr, None, &timer),
    )
    .await
    .unwrap();
    assert_eq!(resolved.digest.to_string(), pin);
}

// ---- retries and the deadline ----

#[tokio::test]
async fn a_retry_after_of_u64_max_seconds_fails_cleanly() {
    let (server, addr) = fake_registry().await;
    // A first 503 makes the clock pass 1 s, so adding the huge wait would overflow.
    Mock::given(method("HEAD"))
        .respond_with(ResponseTemplate::new(503))
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("HEAD"))
        .respond_with(
            ResponseTemplate::new(503).insert_header("Retry-After", "18446744073709551615"),
        )
        .mount(&server)
        .await;
    Mock::given(method("GET"))
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
        matches!(err, RegistryError::Unavailable { retry_after: Some(d), .. } if d == Duration::from_secs(u64::MAX)),
        "{text}"
    );
    assert!(
        text.contains("retry after 18446744073709551615 s, which is past the deadline"),
        "{text}"
    );
    assert_eq!(timer.waits(), secs(&[1]));
}

#[tokio::test]
async fn a_retry_after_of_zero_is_not_blamed_for_the_deadline() {
    let (server, addr) = fake_registry().await;
    Mock::given(method("HEAD"))
        .respond_with(ResponseTemplate::new(503).insert_header("Retry-After", "0"))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(503))
        .mount(&server)
        .await;
    let timer = VirtualTimer::start();
    let mut opts = options(&addr, None, &timer);
    opts.retry.timeout = Duration::from_secs(5);
    let err = resolve(&format!("{addr}/org/lab:latest"), &opts)
        .await
        .unwrap_err();
    let text = err.to_string();
    // Waits of 1 s and 2 s; the next backoff (4 s) would pass the 5 s deadline.
    assert_eq!(timer.waits(), secs(&[1, 2]));
    assert!(
        matches!(
            err,
            RegistryError::Unavailable {
                retry_after: None,
                attempts: 4,
                ..
            }
        ),
        "{text}"
    );
    assert!(!text.contains("past the deadline"), "{text}");
}

#[tokio::test]
async fn a_hanging_token_endpoint_is_named_not_the_registry() {
    let (server, addr) = fake_registry().await;
    Mock::given(method("HEAD"))
        .respond_with(ResponseTemplate::new(401).insert_header(
            "WWW-Authenticate",
            format!(r#"Bearer realm="{}/token",service="fake""#, server.uri()).as_str(),
        ))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/token"))
        .respond_with(ResponseTemplate::new(200).set_delay(Duration::from_secs(30)))
        .mount(&server)
        .await;
    let options = RegistryOptions {
        insecure: vec![addr.clone()],
        retry: RetryPolicy {
            // Long enough that building the HTTP client (trust roots) on a loaded runner fits.
            timeout: Duration::from_secs(2),
            ..RetryPolicy::default()
        },
        ..Default::default()
    };
    let err = resolve(&format!("{addr}/org/lab:latest"), &options)
        .await
        .unwrap_err();
    let text = err.to_string();
    assert!(
        matches!(err, RegistryError::TimedOut { requests: 2, .. }),
        "{text}"
    );
    assert!(
        text.starts_with(&format!(
            "the token endpoint http://{addr}/token of registry {addr} did not answer"
        )),
        "{text}"
    );
}

// ---- what the registry says, quoted so people can read it ----

#[tokio::test]
async fn a_404_html_page_is_quoted_by_its_title() {
    let (server, addr) = fake_registry().await;
    Mock::given(method("HEAD"))
        .respond_with(ResponseTemplate::new(404))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(404).set_body_raw(
            "<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n<center><h1>404 Not Found</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n",
            "text/html",
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
    assert!(matches!(err, RegistryError::TagNotFound { .. }), "{text}");
    assert!(
        text.contains("the registry said \"HTML page titled '404 Not Found'\""),
        "{text}"
    );
    assert!(!text.contains('<'), "{text}");
}

#[tokio::test]
async fn a_head_answered_405_falls_back_to_get() {
    let (server, addr) = fake_registry().await;
    Mock::given(method("HEAD"))
        .respond_with(ResponseTemplate::new(405))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .respond_with(
            ResponseTemplate::new(200)
                .insert_header("Docker-Content-Digest", digest_header(BODY).as_str())
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
    assert_eq!(
        resolved.media_type,
        "application/vnd.oci.image.index.v1+json"
    );
    assert_eq!(resolved.requests, 2);
}

#[tokio::test]
async fn an_upper_case_digest_pin_is_refused_before_any_request() {
    let (server, addr) = fake_registry().await;
    let pin = digest_header(BODY)
        .to_uppercase()
        .replace("SHA256:", "sha256:");
    let timer = VirtualTimer::start();
    let err = resolve(
        &format!("{addr}/org/lab@{pin}"),
        &options(&addr, None, &timer),
    )
    .await
    .unwrap_err();
    assert!(
        matches!(err, RegistryError::InvalidReference { .. }),
        "{err}"
    );
    assert!(
        err.to_string().contains("64 lower-case hex digits"),
        "{err}"
    );
    assert!(seen(&server).await.is_empty());

    let out = ActionRun::new(
        &format!("{addr}/org/lab@{pin}"),
        "http://127.0.0.1:9",
        "workflow_dispatch",
        &serde_json::json!({}),
    )
    .input("insecure-registry", &addr)
    .input("dry-run", "true")
    .run()
    .await;
    assert_eq!(out.code, 2, "{}", out.stdout);
    assert!(out.stdout.contains("the digest pin"), "{}", out.stdout);
    assert!(seen(&server).await.is_empty());
}

// ---- TLS: tell a plain-HTTP server from an untrusted certificate ----

#[tokio::test]
async fn a_tls_registry_with_a_private_ca_gets_trust_advice_not_insecure_registry() {
    let tls = crate::common::registry::TlsFiles::generate();
    let registry = Registry::start_tls(&tls);
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
                problem: TlsProblem::UnknownIssuer,
                private: true,
                ..
            }
        ),
        "{text}"
    );
    assert!(text.contains("SSL_CERT_FILE"), "{text}");
    assert!(!text.contains("--insecure-registry"), "{text}");
}

#[tokio::test]
async fn insecure_registry_on_a_tls_registry_says_it_speaks_tls() {
    let tls = crate::common::registry::TlsFiles::generate();
    let registry = Registry::start_tls(&tls);
    let timer = VirtualTimer::start();
    let err = resolve(
        &registry.reference("org/lab:latest"),
        &options(&registry.addr, None, &timer),
    )
    .await
    .unwrap_err();
    let text = err.to_string();
    assert!(
        matches!(err, RegistryError::InsecureButTls { .. }),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "registry {} is listed in insecure-registry, so it was asked over plain HTTP, but it speaks TLS",
            registry.addr
        )),
        "{text}"
    );
    assert!(
        text.contains("Client sent an HTTP request to an HTTPS server"),
        "{text}"
    );
    assert!(
        text.contains(&format!("remove {} from insecure-registry", registry.addr)),
        "{text}"
    );
}

#[tokio::test]
async fn ssl_cert_file_trusts_a_private_ca_and_a_name_the_certificate_lacks_is_named() {
    let tls = crate::common::registry::TlsFiles::generate();
    let registry = Registry::start_tls(&tls);
    let digest = pushed_layout(&registry);
    let ca = tls.ca.display().to_string();
    let run = |image: String| {
        ActionRun::new(
            &image,
            "http://127.0.0.1:9",
            "workflow_dispatch",
            &serde_json::json!({}),
        )
        .input("tier", "routine")
        .input("dry-run", "true")
        .var("SSL_CERT_FILE", &ca)
    };
    // The advice works: with the CA trusted, the digest resolves over TLS.
    let out = run(registry.reference("org/lab:latest")).run().await;
    out.assert_success();
    assert_eq!(out.output("digest"), digest);
    // Reached by a name the certificate does not hold.
    let port = registry.addr.rsplit_once(':').unwrap().1;
    let out = run(format!("localhost:{port}/org/lab:latest")).run().await;
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(
        out.stdout
            .contains("the certificate does not name localhost"),
        "{}",
        out.stdout
    );
    assert!(
        !out.stdout.contains("--insecure-registry"),
        "{}",
        out.stdout
    );
}

// ---- inputs as the Actions runner passes them ----

#[tokio::test]
async fn insecure_registry_takes_a_newline_list_and_any_case() {
    let (server, _addr) = fake_registry().await;
    Mock::given(method("HEAD"))
        .respond_with(
            ResponseTemplate::new(200)
                .insert_header("Docker-Content-Digest", digest_header(BODY).as_str()),
        )
        .mount(&server)
        .await;
    let port = server.address().port();
    let out = ActionRun::new(
        &format!("localhost:{port}/org/lab:latest"),
        "http://127.0.0.1:9",
        "workflow_dispatch",
        &serde_json::json!({}),
    )
    .input(
        "insecure-registry",
        &format!("registry.internal:5000\nLOCALHOST:{port}\n"),
    )
    .input("tier", "routine")
    .input("dry-run", "true")
    .run()
    .await;
    out.assert_success();
    assert_eq!(out.output("digest"), digest_header(BODY));
}

#[tokio::test]
async fn an_invalid_registry_port_or_a_1ms_timeout_reads_sensibly() {
    let out = ActionRun::new(
        "127.0.0.1:99999/org/lab:latest",
        "http://127.0.0.1:9",
        "workflow_dispatch",
        &serde_json::json!({}),
    )
    .input("dry-run", "true")
    .run()
    .await;
    assert_eq!(out.code, 2, "an invalid image input is bad usage");
    assert!(
        out.stdout
            .contains("the registry port \"99999\" in 127.0.0.1:99999 is not a port number"),
        "{}",
        out.stdout
    );

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
    .input("registry-timeout", "1ms")
    .input("dry-run", "true")
    .run()
    .await;
    assert_eq!(out.code, 1);
    assert!(
        out.stdout.contains("registry-timeout (1 ms"),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains("0 attempt"), "{}", out.stdout);
}

#[tokio::test]
async fn a_layout_tag_with_a_slash_resolves() {
    let layout = tempfile::tempdir().unwrap();
    let digest = make_layout(layout.path(), "release/1.0", "slash-tag");
    let out = ActionRun::new(
        &format!("oci:{}:release/1.0", layout.path().display()),
        "http://127.0.0.1:9",
        "workflow_dispatch",
        &serde_json::json!({}),
    )
    .input("tier", "routine")
    .input("dry-run", "true")
    .run()
    .await;
    out.assert_success();
    assert_eq!(out.output("digest"), digest);
}

// ---- credentials a registry echoes never reach the log ----

/// Runs the binary against a fake registry that asks for Basic credentials and echoes the
/// password back in its 401 body (`echo` builds the body from the password); returns
/// everything printed except the `::add-mask::` lines (the runner's own masking input).
async fn printed_when_the_registry_echoes(
    password: &str,
    echo: fn(&str) -> ResponseTemplate,
) -> String {
    let (server, addr) = fake_registry().await;
    Mock::given(method("HEAD"))
        .respond_with(
            ResponseTemplate::new(401).insert_header("WWW-Authenticate", r#"Basic realm="fake""#),
        )
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .respond_with(echo(password))
        .mount(&server)
        .await;
    let out = ActionRun::new(
        &format!("{addr}/org/lab:latest"),
        "http://127.0.0.1:9",
        "workflow_dispatch",
        &serde_json::json!({}),
    )
    .input("insecure-registry", &addr)
    .input("registry-username", USER)
    .input("registry-password", password)
    .input("dry-run", "true")
    .run()
    .await;
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(out.stdout.contains("refused access"), "{}", out.stdout);
    format!("{}\n{}", out.stdout, out.stderr)
        .lines()
        .filter(|l| !l.starts_with("::add-mask::"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test]
async fn an_echoed_password_with_a_tab_is_not_printed() {
    let printed = printed_when_the_registry_echoes("s3cret\tpass-2024", |p| {
        ResponseTemplate::new(401).set_body_json(serde_json::json!(
            {"errors": [{"code": "UNAUTHORIZED", "message": format!("invalid password {p}")}]}
        ))
    })
    .await;
    assert!(printed.contains("invalid password ***"), "{printed}");
    assert!(
        !printed.contains("s3cret") && !printed.contains("pass-2024"),
        "{printed}"
    );
}

#[tokio::test]
async fn an_echoed_long_token_cut_by_the_message_cap_is_not_printed() {
    let token = format!("glpat-{}", "k7Qx".repeat(100));
    let printed = printed_when_the_registry_echoes(&token, |p| {
        ResponseTemplate::new(401).set_body_raw(format!("bad credentials: {p}"), "text/plain")
    })
    .await;
    assert!(printed.contains("bad credentials: ***"), "{printed}");
    assert!(!printed.contains("k7Qxk7Qx"), "{printed}");
}
