//! Digest resolution against real registries the tests start (plain, htpasswd Basic auth,
//! token auth with a token server the test starts), each compared with
//! `skopeo inspect --raw | sha256`, and against a wiremock registry only for what a real one
//! cannot be made to show (no digest header, a lying header, 429 with Retry-After, 503 then
//! success, a token endpoint answering 401, a hang past the deadline). Request counts are
//! asserted at the servers: a counting proxy in front of each real registry, the token
//! server's and wiremock's request logs.

use crate::common::fake_registry::*;
use crate::common::*;
use assert_matches::assert_matches;
use codeq_rollout::{
    ACCEPT_MANIFESTS, AccessProblem, AnswerProblem, ConnectionProblem, CredentialSource,
    Credentials, DigestSource, RegistryError, RegistryErrorKind, RegistryOptions, Resolved,
    RetryPolicy, Timer, TlsProblem,
};
use std::sync::Arc;
use std::time::Duration;
use wiremock::ResponseTemplate;

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
        retry: RetryPolicy::registry(),
        timer: Some(Arc::clone(timer) as Arc<dyn Timer>),
    }
}

async fn resolve(image: &str, options: &RegistryOptions) -> Result<Resolved, RegistryError> {
    codeq_rollout::resolve(&image.parse().unwrap(), options).await
}

fn secs(list: &[u64]) -> Vec<Duration> {
    list.iter().map(|s| Duration::from_secs(*s)).collect()
}

/// A real registry behind a counting proxy (and its token server, for token auth): what
/// codeq-rollout resolves and what the registry saw.
struct Proxied {
    registry: Registry,
    proxy: CountingProxy,
    tokens: Option<TokenServer>,
    /// Whether pulls and pushes need [`USER`]'s credentials.
    private: bool,
}

impl Proxied {
    async fn behind(registry: Registry, tokens: Option<TokenServer>, private: bool) -> Self {
        let proxy = CountingProxy::start(&registry.addr).await;
        Self {
            registry,
            proxy,
            tokens,
            private,
        }
    }

    /// A registry without authentication.
    async fn plain() -> Self {
        Self::behind(Registry::start(), None, false).await
    }

    /// A registry with htpasswd Basic auth for [`USER`].
    async fn htpasswd() -> Self {
        Self::behind(Registry::start_htpasswd(USER, PASSWORD), None, true).await
    }

    /// A registry with token auth for [`USER`]; anonymous pulls allowed or not.
    async fn token(anonymous_pull: bool) -> Self {
        let tokens = TokenServer::start(&[(USER, PASSWORD)], anonymous_pull).await;
        Self::behind(Registry::start_token(&tokens), Some(tokens), true).await
    }

    /// Pushes every manifest shape to `org/lab` (as [`USER`] where auth is on).
    async fn push_shapes(&self) -> std::collections::BTreeMap<Shape, String> {
        let user = self.private.then_some((USER, PASSWORD));
        push_shapes(&self.registry.addr, "org/lab", user).await
    }

    /// Resolves `repo_tag` through the proxy, as [`USER`] with `password` if given.
    async fn resolve(
        &self,
        repo_tag: &str,
        password: Option<&str>,
    ) -> Result<Resolved, RegistryError> {
        let timer = VirtualTimer::start();
        let options = options(&self.proxy.addr, password.and_then(credentials), &timer);
        let resolved = resolve(&format!("{}/{repo_tag}", self.proxy.addr), &options).await;
        assert!(timer.waits().is_empty(), "nothing waited for");
        resolved
    }

    /// The error's text with the proxy's address and the token realm named.
    fn said(&self, err: &RegistryError) -> String {
        let realm = self.tokens.as_ref().map(TokenServer::realm);
        scrub(
            &err.to_string(),
            &[
                (&self.proxy.addr, "[registry]"),
                (realm.as_deref().unwrap_or(""), "[realm]"),
            ],
        )
    }

    /// The requests the registry got through the proxy, as `METHOD AUTH-SCHEME STATUS`.
    fn requests(&self) -> Vec<String> {
        self.proxy
            .summary()
            .into_iter()
            .map(|(method, scheme, status)| {
                format!("{method} {scheme} {status}").replace("  ", " ")
            })
            .collect()
    }
}

/// Resolves every shape and checks the digest against the pushed bytes and skopeo, the
/// media type, and that each resolution sent exactly `per_resolution` (as
/// [`Proxied::requests`]) and `token_requests` token requests.
async fn check_every_shape(
    at: &Proxied,
    password: Option<&str>,
    skopeo: &[&str],
    per_resolution: &[&str],
    token_requests: usize,
) {
    let pushed = at.push_shapes().await;
    for shape in Shape::ALL {
        let expected = &pushed[&shape];
        let tag = format!("org/lab:{}", shape.tag());
        let by_skopeo = at.registry.raw_manifest_digest(&tag, skopeo);
        assert_eq!(
            &by_skopeo, expected,
            "{shape:?}: skopeo sees the pushed bytes"
        );
        at.proxy.clear();
        let resolved = at
            .resolve(&tag, password)
            .await
            .unwrap_or_else(|e| panic!("{shape:?}: {e}"));
        assert_eq!(resolved.digest.as_str(), expected, "{shape:?}");
        assert_eq!(resolved.media_type, shape.media_type(), "{shape:?}");
        assert_eq!(
            at.requests(),
            per_resolution,
            "{shape:?}: requests at the registry"
        );
        assert_eq!(
            resolved.requests as usize,
            per_resolution.len() + token_requests
        );
        for seen in at.proxy.requests() {
            assert_eq!(seen.path, format!("/v2/org/lab/manifests/{}", shape.tag()));
        }
    }
}

#[tokio::test]
async fn plain_registry_resolves_each_manifest_shape_with_one_head() {
    check_every_shape(&Proxied::plain().await, None, &[], &["HEAD 200"], 0).await;
}

#[tokio::test]
async fn htpasswd_registry_gets_basic_credentials_on_the_second_head() {
    let creds = format!("{USER}:{PASSWORD}");
    check_every_shape(
        &Proxied::htpasswd().await,
        Some(PASSWORD),
        &["--creds", &creds],
        &["HEAD 401", "HEAD Basic 200"],
        0,
    )
    .await;
}

#[tokio::test]
async fn token_registry_costs_one_token_and_two_heads() {
    let at = Proxied::token(false).await;
    let creds = format!("{USER}:{PASSWORD}");
    check_every_shape(
        &at,
        Some(PASSWORD),
        &["--creds", &creds],
        &["HEAD 401", "HEAD Bearer 200"],
        1,
    )
    .await;
    // One token per resolution, asked with the Basic credentials for pull only.
    let asked = at.tokens.as_ref().unwrap().requests_from_codeq().await;
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
    let at = Proxied::token(true).await;
    let pushed = at.push_shapes().await;
    let resolved = at.resolve("org/lab:index", None).await.unwrap();
    assert_eq!(resolved.digest.as_str(), pushed[&Shape::OciIndex]);
    assert_eq!(resolved.requests, 3);
    assert_eq!(at.requests(), ["HEAD 401", "HEAD Bearer 200"]);
    let asked = at.tokens.as_ref().unwrap().requests_from_codeq().await;
    assert_eq!(asked.len(), 1);
    assert_eq!(
        asked[0].1, "",
        "no credentials were sent to the token endpoint"
    );
}

#[tokio::test]
async fn anonymous_pull_of_a_private_image_is_denied_with_the_registry_message() {
    let at = Proxied::token(false).await;
    at.push_shapes().await;
    let err = at.resolve("org/lab:index", None).await.unwrap_err();
    assert_matches!(
        &*err.kind,
        RegistryErrorKind::Access(AccessProblem::Denied {
            token_endpoint: None,
            status: 401,
            ..
        })
    );
    insta::assert_snapshot!(at.said(&err));
    // Failure path: the GET is there only for the registry's message.
    assert_eq!(
        at.requests(),
        ["HEAD 401", "HEAD Bearer 401", "GET Bearer 401"]
    );
}

/// Resolves as [`USER`] with a wrong password; checks the error does not quote it.
async fn with_a_wrong_password(at: &Proxied) -> RegistryError {
    let err = at
        .resolve("org/lab:latest", Some("wrong-password"))
        .await
        .unwrap_err();
    assert!(!err.to_string().contains("wrong-password"), "{err}");
    err
}

#[tokio::test]
async fn wrong_password_at_the_token_endpoint_is_an_authentication_error() {
    let at = Proxied::token(false).await;
    let err = with_a_wrong_password(&at).await;
    let asked = at.tokens.as_ref().unwrap().requests_from_codeq().await;
    assert_eq!((at.requests(), asked.len()), (vec!["HEAD 401".into()], 1));
    assert_matches!(
        &*err.kind,
        RegistryErrorKind::Access(AccessProblem::Denied {
            token_endpoint: Some(_),
            status: 401,
            ..
        })
    );
    insta::assert_snapshot!(at.said(&err));
}

#[tokio::test]
async fn wrong_password_on_an_htpasswd_registry_is_denied_naming_the_user() {
    let at = Proxied::htpasswd().await;
    let err = with_a_wrong_password(&at).await;
    assert_matches!(
        &*err.kind,
        RegistryErrorKind::Access(AccessProblem::Denied {
            token_endpoint: None,
            status: 401,
            ..
        })
    );
    assert_eq!(
        at.requests(),
        ["HEAD 401", "HEAD Basic 401", "GET Basic 401"]
    );
    insta::assert_snapshot!(at.said(&err));
}

#[tokio::test]
async fn missing_tag_and_missing_repository_carry_the_registry_message() {
    let at = Proxied::plain().await;
    at.push_shapes().await;
    let err = at.resolve("org/lab:nope", None).await.unwrap_err();
    assert_matches!(
        &*err.kind,
        RegistryErrorKind::Access(AccessProblem::TagNotFound)
    );
    insta::assert_snapshot!("missing_tag", at.said(&err));
    assert_eq!(at.requests(), ["HEAD 404", "GET 404"]);

    // distribution 2.8 answers MANIFEST_UNKNOWN for an unknown repository too.
    let err = at.resolve("org/other:latest", None).await.unwrap_err();
    assert_matches!(
        &*err.kind,
        RegistryErrorKind::Access(AccessProblem::TagNotFound)
    );
    insta::assert_snapshot!("missing_repository", at.said(&err));
}

/// Resolves `image` without listing any registry in insecure-registry.
async fn resolve_over_tls(image: &str) -> (RegistryError, Arc<VirtualTimer>) {
    let timer = VirtualTimer::start();
    let mut opts = options("", None, &timer);
    opts.insecure.clear();
    (resolve(image, &opts).await.unwrap_err(), timer)
}

#[tokio::test]
async fn nothing_listening_is_unreachable_naming_host_port_and_attempts() {
    let port = crate::common::registry::free_port();
    let addr = format!("127.0.0.1:{port}");
    let (err, timer) = refusal_at(&addr, "org/lab:latest").await;
    assert_matches!(&*err.kind, RegistryErrorKind::Connection(ConnectionProblem::Unreachable { address, attempts: 6, .. }) if *address == format!("127.0.0.1:{port}"));
    insta::assert_snapshot!(scrub(&err.to_string(), &[(&port.to_string(), "[port]")]));
    assert_eq!(timer.waits(), secs(&[1, 2, 4, 8, 16]));
}

// ---- a wiremock registry, for what a real one cannot be made to show ----

/// Resolves `repo_tag` (e.g. `org/lab:latest`) at `addr` over plain HTTP without
/// credentials, on a virtual clock; returns the error it fails with, and the clock (its
/// waits are the backoff).
async fn refusal_at(addr: &str, repo_tag: &str) -> (RegistryError, Arc<VirtualTimer>) {
    let timer = VirtualTimer::start();
    let result = resolve(&format!("{addr}/{repo_tag}"), &options(addr, None, &timer)).await;
    (result.unwrap_err(), timer)
}

/// Resolves the fake's `org/lab:latest` over plain HTTP without credentials, on a virtual
/// clock; returns the result and the clock (its waits are the backoff).
async fn resolve_fake(
    fake: &RunningFake,
    credentials: Option<Credentials>,
) -> (Result<Resolved, RegistryError>, Arc<VirtualTimer>) {
    let timer = VirtualTimer::start();
    let result = resolve(&fake.image(), &options(&fake.addr, credentials, &timer)).await;
    (result, timer)
}

/// Resolves the fake's `org/lab:latest` on the real clock with a 2 s deadline (long enough
/// that building the HTTP client, trust roots and all, fits on a loaded runner).
async fn resolve_fake_within_2s(fake: &RunningFake) -> RegistryError {
    let options = RegistryOptions {
        credentials: None,
        github_token: None,
        insecure: vec![fake.addr.clone()],
        retry: RetryPolicy {
            deadline: Some(Duration::from_secs(2)),
            ..RetryPolicy::registry()
        },
        timer: None,
    };
    resolve(&fake.image(), &options).await.unwrap_err()
}

/// The error's text with the fake's address named `[registry]`.
fn said(err: &RegistryError, fake: &RunningFake) -> String {
    scrub(&err.to_string(), &[(&fake.addr, "[registry]")])
}

#[tokio::test]
async fn no_digest_header_falls_back_to_one_get_hashing_the_exact_bytes() {
    let fake = FakeRegistry::new()
        .head_at(REPO_PATH, status(200))
        .get_at(REPO_PATH, serving(BODY, INDEX))
        .start()
        .await;
    let resolved = resolve_fake(&fake, None).await.0.unwrap();
    assert_eq!(resolved.digest.to_string(), digest_of(BODY));
    assert_eq!(resolved.requests, 2);
    assert_eq!(
        fake.seen().await,
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
    let fake = FakeRegistry::new()
        .failing(404, "NAME_UNKNOWN", "repository name not known to registry")
        .start()
        .await;
    let (err, _) = refusal_at(&fake.addr, "org/other:latest").await;
    assert_matches!(
        &*err.kind,
        RegistryErrorKind::Access(AccessProblem::RepositoryNotFound { .. })
    );
    insta::assert_snapshot!(said(&err, &fake));
}

/// Answers the client cannot take a digest from, each refused with an error naming what
/// was wrong (one snapshot a case, named by it): a digest header the bytes contradict, one
/// that is not sha256 hex, two different ones, a manifest over 4 MiB, and a 404 page of HTML
/// quoted by its title.
#[tokio::test]
async fn unusable_answers_are_refused_naming_what_was_wrong() {
    let another = digest_of(b"another manifest");
    let nginx_404 = "<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n<center><h1>404 Not Found</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n";
    let big = format!(
        r#"{{"schemaVersion":2,"mediaType":"{INDEX}","manifests":[],"pad":"{}"}}"#,
        " ".repeat(4 << 20)
    );
    // Whether the error is the one the case expects.
    type Expected = fn(&RegistryError) -> bool;
    let cases: Vec<(&str, FakeRegistry, Expected)> = vec![
        (
            "a_digest_header_the_bytes_contradict_is_an_error",
            FakeRegistry::new()
                .head(status(200))
                .get(with_digest(&another).set_body_raw(BODY, INDEX)),
            |e| {
                matches!(
                    &*e.kind,
                    RegistryErrorKind::Answer(AnswerProblem::DigestMismatch { .. })
                )
            },
        ),
        (
            "a_digest_header_that_is_not_sha256_hex_is_refused",
            FakeRegistry::new().head(with_digest("sha256:ABC")),
            |e| {
                matches!(
                    &*e.kind,
                    RegistryErrorKind::Answer(AnswerProblem::InvalidDigest { .. })
                )
            },
        ),
        (
            "two_different_digest_headers_are_an_error",
            FakeRegistry::new().head(
                with_digest(&digest_of(BODY))
                    .append_header("Docker-Content-Digest", another.as_str()),
            ),
            |e| {
                matches!(
                    &*e.kind,
                    RegistryErrorKind::Answer(AnswerProblem::ConflictingDigests { .. })
                )
            },
        ),
        (
            "a_manifest_over_4_mib_is_refused",
            FakeRegistry::new()
                .head(status(200))
                .get(serving(big, INDEX)),
            |e| matches!(&*e.kind, RegistryErrorKind::Answer(AnswerProblem::ManifestTooLarge { limit, .. }) if *limit == 4 << 20),
        ),
        (
            "a_404_html_page_is_quoted_by_its_title",
            FakeRegistry::new()
                .head(status(404))
                .get(status(404).set_body_raw(nginx_404, "text/html")),
            |e| {
                matches!(
                    &*e.kind,
                    RegistryErrorKind::Access(AccessProblem::TagNotFound)
                )
            },
        ),
    ];
    for (name, fake, expected) in cases {
        let fake = fake.start().await;
        let err = resolve_fake(&fake, None).await.0.unwrap_err();
        assert!(expected(&err), "{name}: {err}");
        insta::assert_snapshot!(name, said(&err, &fake));
    }
}

/// How one resolve against `fake` went, for the retry table: the requests in order, the
/// waits on the virtual clock, then the digest and requests or the error's kind, last
/// status, attempts and `Retry-After`, and its words. `deadline` replaces the default one.
async fn retried(fake: FakeRegistry, deadline: Option<Duration>) -> String {
    let fake = fake.start().await;
    let timer = VirtualTimer::start();
    let mut opts = options(&fake.addr, None, &timer);
    opts.retry.deadline = deadline.or(opts.retry.deadline);
    let outcome = match resolve(&fake.image(), &opts).await {
        Ok(r) => format!(
            "resolved {} ({}) in {} requests",
            r.digest, r.media_type, r.requests
        ),
        Err(err) => {
            let RegistryErrorKind::Connection(ConnectionProblem::Unavailable {
                status,
                attempts,
                retry_after,
                ..
            }) = &*err.kind
            else {
                panic!("not a retry outcome: {err:?}");
            };
            // The time it took is real when no wait was made: the only variable part.
            let took = regex::Regex::new(r"over \d+ ms").unwrap();
            let said = took
                .replace(&said(&err, &fake), "over [elapsed] ms")
                .replace('\n', "\n  ");
            format!(
                "Unavailable: status {status}, {attempts} attempts, Retry-After {retry_after:?}\n  {said}"
            )
        }
    };
    format!(
        "  {}\n  waits {:?}\n  {outcome}",
        fake.methods().await.join(" "),
        timer.waits()
    )
}

/// The registry edge's retry rules, one scenario a row (reads only; backoff 1, 2, 4, 8,
/// 16 s; `Retry-After` honoured unless it ends past the deadline; one GET for the
/// registry's own words or a HEAD that keeps failing): the requests, waits and outcome of
/// each, in one snapshot.
#[tokio::test]
async fn retries_follow_backoff_retry_after_and_the_deadline() {
    let digest = with_digest(&digest_of(BODY));
    let rate_limited = registry_error(
        429,
        "TOOMANYREQUESTS",
        "You have reached your unauthenticated pull rate limit.",
    );
    let cases: Vec<(&str, FakeRegistry, Option<Duration>)> = vec![
        (
            "a 429 waits what Retry-After asks (not the 1 s backoff), then resolves",
            FakeRegistry::new()
                .head_first(1, status(429).insert_header("Retry-After", "7"))
                .head(digest.clone()),
            None,
        ),
        (
            "a 503 is retried with backoff until the registry answers",
            FakeRegistry::new()
                .head_first(2, status(503))
                .head(digest.clone()),
            None,
        ),
        (
            "a registry that keeps failing: six HEAD tries, then one GET for its message",
            FakeRegistry::new().failing(503, "UNAVAILABLE", "maintenance until 14:00 UTC"),
            None,
        ),
        (
            "a Retry-After past the deadline fails at once, quoting the rate limit",
            FakeRegistry::new()
                .head(status(429).insert_header("Retry-After", "120"))
                .get(rate_limited.insert_header("Retry-After", "120")),
            None,
        ),
        (
            "a HEAD that keeps failing is answered by the one GET",
            FakeRegistry::new()
                .head(status(502))
                .get(serving(BODY, INDEX)),
            None,
        ),
        (
            "a Retry-After of u64::MAX seconds after a first wait (the sum would overflow)",
            FakeRegistry::new()
                .head_first(1, status(503))
                .head(status(503).insert_header("Retry-After", "18446744073709551615"))
                .get(status(503)),
            None,
        ),
        (
            "a Retry-After of 0 under a 5 s deadline: the next backoff (4 s) would pass it",
            FakeRegistry::new()
                .head(status(503).insert_header("Retry-After", "0"))
                .get(status(503)),
            Some(Duration::from_secs(5)),
        ),
    ];
    let mut table = Vec::new();
    for (name, fake, deadline) in cases {
        table.push(format!("{name}\n{}", retried(fake, deadline).await));
    }
    insta::assert_snapshot!(table.join("\n"));
}

#[tokio::test]
async fn a_token_endpoint_answering_401_is_an_authentication_error() {
    let fake = FakeRegistry::new()
        .bearer_challenge_here()
        .get_at(
            "/token",
            status(401).set_body_json(serde_json::json!({"details": "token service says no"})),
        )
        .start()
        .await;
    let err = resolve_fake(&fake, credentials(PASSWORD))
        .await
        .0
        .unwrap_err();
    assert_matches!(
        &*err.kind,
        RegistryErrorKind::Access(AccessProblem::Denied {
            token_endpoint: Some(_),
            status: 401,
            ..
        })
    );
    insta::assert_snapshot!(said(&err, &fake));
    assert!(!err.to_string().contains(PASSWORD), "{err}");
    assert_eq!(
        fake.methods().await,
        ["HEAD", "GET"],
        "HEAD and one token request"
    );
}

#[tokio::test]
async fn an_unreachable_token_endpoint_is_named_as_such() {
    let dead = format!("127.0.0.1:{}", crate::common::registry::free_port());
    let fake = FakeRegistry::new()
        .head(status(401).insert_header(
            "WWW-Authenticate",
            format!(r#"Bearer realm="http://{dead}/token",service="fake""#).as_str(),
        ))
        .start()
        .await;
    let err = resolve_fake(&fake, None).await.0.unwrap_err();
    assert_matches!(
        &*err.kind,
        RegistryErrorKind::Connection(ConnectionProblem::Unreachable { attempts: 6, .. })
    );
    let port = dead.rsplit_once(':').unwrap().1;
    insta::assert_snapshot!(scrub(
        &said(&err, &fake),
        &[(&dead, "[dead]"), (&format!("port {port}"), "port [dead]")]
    ));
    assert_eq!(
        fake.methods().await,
        ["HEAD"],
        "one HEAD; the retries went to the token endpoint"
    );
}

/// A registry, or its token endpoint, that does not answer: the run gives up at its
/// deadline and names which one hung and after how many requests (one snapshot a case).
#[tokio::test]
async fn a_hang_past_the_deadline_times_out_naming_what_hung() {
    let cases = [
        (
            "a_registry_hanging_past_the_deadline_times_out",
            FakeRegistry::new().head(hang(30)),
            1,
        ),
        (
            "a_hanging_token_endpoint_is_named_not_the_registry",
            FakeRegistry::new()
                .bearer_challenge_here()
                .get_at("/token", hang(30)),
            2,
        ),
    ];
    for (name, fake, requests) in cases {
        let fake = fake.start().await;
        let err = resolve_fake_within_2s(&fake).await;
        assert_matches!(&*err.kind, RegistryErrorKind::Connection(ConnectionProblem::TimedOut { requests: r, .. }) if *r == requests, "{name}: {err}");
        insta::assert_snapshot!(name, said(&err, &fake));
    }
}

// ---- through the binary, as the Actions runner starts it ----

fn pushed_layout(registry: &Registry) -> String {
    registry.push_image("registry-it", None);
    registry.raw_manifest_digest("org/lab:latest", &[])
}

/// A dry run of `image` started by hand (`workflow_dispatch`), with no GitHub to talk to,
/// asking `insecure` (if any) over plain HTTP.
fn dispatch(image: &str, insecure: &str) -> ActionRun {
    let run = ActionRun::new(
        image,
        "http://127.0.0.1:9",
        "workflow_dispatch",
        &serde_json::json!({}),
    )
    .input("dry-run", "true");
    match insecure {
        "" => run,
        addr => run.input("insecure-registry", addr),
    }
}

/// The `::error` line of a failed run, with `parts` scrubbed.
fn error_line(out: &Outcome, parts: &[(&str, &str)]) -> String {
    let line = out
        .stdout
        .lines()
        .find(|l| l.starts_with("::error"))
        .unwrap_or_else(|| panic!("no ::error line in\n{}", out.stdout));
    scrub(line, parts)
}

#[tokio::test]
async fn expected_digest_mismatch_fails_before_anything_is_published() {
    let registry = Registry::start();
    let digest = pushed_layout(&registry);
    let github = FakeGitHub::start().await;
    let built = digest_of(b"what the build step pushed");
    let run = || {
        ActionRun::merged_pr(
            &registry.reference("org/lab:latest"),
            &github.api_url(),
            &["routine"],
        )
        .input("insecure-registry", &registry.addr)
    };
    let out = run().input("expected-digest", &built).run().await;
    assert_eq!(out.code, 1, "{}", out.stdout);
    // The digest the tag moved to is no output (a later step could deploy it, though nothing
    // was announced for it): the error names it, and the job summary quotes the error.
    assert_eq!(out.output("digest"), "", "{}", out.outputs_raw);
    let scrubbed = [
        (&registry.addr[..], "[registry]"),
        (&digest, "[pushed digest]"),
    ];
    insta::assert_snapshot!(error_line(&out, &scrubbed));
    insta::assert_snapshot!(scrub(&out.summary, &scrubbed));
    assert!(
        github.requests().await.is_empty(),
        "nothing read or written on GitHub"
    );

    let out = run()
        .input("expected-digest", &digest)
        .input("dry-run", "true")
        .run()
        .await;
    out.assert_success();
    assert_eq!(out.output("digest"), digest);
}

#[tokio::test]
async fn registry_timeout_input_bounds_a_hanging_registry() {
    let fake = FakeRegistry::new().head(hang(30)).start().await;
    let timed_out = async |timeout| {
        let out = dispatch(&fake.image(), &fake.addr)
            .input("registry-timeout", timeout)
            .run()
            .await;
        assert_eq!(out.code, 1, "{timeout}");
        error_line(&out, &[(&fake.addr, "[registry]")])
    };
    insta::assert_snapshot!(timed_out("2").await);
    // Whether one request leaves before 1 ms runs out depends on the machine, so only
    // what holds either way is checked: the deadline named, no "0 attempts".
    let line = timed_out("1ms").await;
    assert!(line.contains("registry-timeout (1 ms"), "{line}");
    assert!(!line.contains("0 attempt"), "{line}");
}

#[tokio::test]
async fn the_binary_retries_a_503_and_announces_the_digest() {
    let fake = FakeRegistry::new()
        .head_first(1, status(503))
        .head(with_digest(&digest_of(BODY)))
        .start()
        .await;
    let mut run = dispatch(&fake.image(), &fake.addr).input("tier", "routine");
    run.args
        .extend(["--registry-retry-delay".to_string(), "0ms".to_string()]);
    let out = run.run().await;
    out.assert_success();
    assert_eq!(out.output("digest"), digest_of(BODY));
    assert_eq!(fake.methods().await, ["HEAD", "HEAD"]);
}

// ---- what a registry (or what stands in front of it) must not get announced ----

#[tokio::test]
async fn a_get_fallback_that_is_not_a_manifest_is_refused() {
    let login = b"<!DOCTYPE html><html><head><title>Sign in</title></head><body>SSO</body></html>";
    let cases: [(&str, &[u8], &str); 4] = [
        (
            "not_a_manifest_html_login_page",
            login,
            "text/html; charset=utf-8",
        ),
        ("not_a_manifest_empty_body", b"", INDEX),
        ("not_a_manifest_json_cut_short", &BODY[..20], INDEX),
        (
            "not_a_manifest_an_image_config",
            br#"{"schemaVersion":2,"mediaType":"application/vnd.oci.image.config.v1+json"}"#,
            "application/json",
        ),
    ];
    for (name, body, content_type) in cases {
        let fake = FakeRegistry::new()
            .head(status(200))
            .get(serving(body, content_type))
            .start()
            .await;
        let err = resolve_fake(&fake, None).await.0.unwrap_err();
        assert_matches!(
            &*err.kind,
            RegistryErrorKind::Answer(AnswerProblem::NotAManifest { .. })
        );
        insta::assert_snapshot!(name, said(&err, &fake));
        assert!(
            !err.to_string().contains(&digest_of(body)),
            "no digest of it: {err}"
        );
        assert_eq!(fake.methods().await, ["HEAD", "GET"]);
    }
}

#[tokio::test]
async fn an_endless_manifest_body_is_cut_at_4_mib_not_read_whole() {
    let endless = crate::common::registry::EndlessManifest::start().await;
    let (err, _) = refusal_at(&endless.addr, "org/lab:latest").await;
    assert_matches!(
        &*err.kind,
        RegistryErrorKind::Answer(AnswerProblem::ManifestTooLarge { .. })
    );
    // Reading stopped at the limit: what the server got out is the limit plus what the
    // sockets buffer, far from unbounded.
    let sent = endless.sent();
    assert!(sent < 64 << 20, "{sent} bytes were read");
}

#[tokio::test]
async fn the_same_digest_header_twice_is_one_digest() {
    let digest = digest_of(BODY);
    let fake = FakeRegistry::new()
        .head(with_digest(&digest).append_header("Docker-Content-Digest", digest.as_str()))
        .start()
        .await;
    let resolved = resolve_fake(&fake, None).await.0.unwrap();
    assert_eq!(resolved.digest.to_string(), digest);
}

#[tokio::test]
async fn a_pinned_reference_answered_with_another_digest_is_refused() {
    let pin = digest_of(BODY);
    let other = digest_of(b"another manifest");
    let resolve_pinned = |fake: RunningFake| {
        let image = format!("{}/org/lab@{pin}", fake.addr);
        async move {
            let timer = VirtualTimer::start();
            let result = resolve(&image, &options(&fake.addr, None, &timer)).await;
            (result, fake)
        }
    };
    let served = br#"{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[]}"#;
    let cases = [
        (
            // The HEAD's header names another digest.
            "pin_contradicted_by_the_header",
            FakeRegistry::new()
                .head_at(format!("/v2/org/lab/manifests/{pin}"), with_digest(&other)),
            DigestSource::Header,
        ),
        (
            // No header: the bytes the GET serves are another manifest.
            "pin_contradicted_by_the_bytes",
            FakeRegistry::new()
                .head(status(200))
                .get(serving(served, INDEX)),
            DigestSource::ServedBytes,
        ),
    ];
    for (name, fake, source) in cases {
        let (result, fake) = resolve_pinned(fake.start().await).await;
        let err = result.unwrap_err();
        assert_matches!(
            &*err.kind,
            RegistryErrorKind::Answer(AnswerProblem::PinMismatch { how, .. }) if *how == source,
            "{name}"
        );
        insta::assert_snapshot!(name, said(&err, &fake));
    }

    // The pinned digest itself resolves.
    let fake = FakeRegistry::new().head(with_digest(&pin)).start().await;
    let (result, _fake) = resolve_pinned(fake).await;
    assert_eq!(result.unwrap().digest.to_string(), pin);
}

// ---- what the registry says, quoted so people can read it ----

#[tokio::test]
async fn a_head_answered_405_falls_back_to_get() {
    let fake = FakeRegistry::new()
        .head(status(405))
        .get(with_digest(&digest_of(BODY)).set_body_raw(BODY, INDEX))
        .start()
        .await;
    let resolved = resolve_fake(&fake, None).await.0.unwrap();
    assert_eq!(resolved.digest.to_string(), digest_of(BODY));
    assert_eq!(resolved.media_type, INDEX);
    assert_eq!(resolved.requests, 2);
}

#[tokio::test]
async fn an_upper_case_digest_pin_is_refused_before_any_request() {
    let fake = FakeRegistry::new().start().await;
    let pin = digest_of(BODY).to_uppercase().replace("SHA256:", "sha256:");
    let image = format!("{}/org/lab@{pin}", fake.addr);
    let timer = VirtualTimer::start();
    let err = resolve(&image, &options(&fake.addr, None, &timer))
        .await
        .unwrap_err();
    assert_matches!(&*err.kind, RegistryErrorKind::Reference(_));
    insta::assert_snapshot!("upper_case_pin_in_the_library", said(&err, &fake));
    assert!(fake.seen().await.is_empty());
}

/// Bad image inputs, and a malformed expected-digest, are usage errors (exit 2) that name
/// the input, found before the registry is asked.
#[tokio::test]
async fn bad_image_inputs_are_usage_errors_before_any_request() {
    let fake = FakeRegistry::new().start().await;
    let pin = digest_of(BODY).to_uppercase().replace("SHA256:", "sha256:");
    let pinned = format!("{}/org/lab@{pin}", fake.addr);
    let expected = ("expected-digest", "sha256:1234");
    let routine = ("tier", "routine");
    let cases = [
        // (snapshot, image, insecure-registry, another input)
        (
            "malformed_expected_digest_is_refused_before_the_registry_is_asked",
            fake.image(),
            fake.addr.as_str(),
            Some(expected),
        ),
        ("upper_case_pin_in_the_binary", pinned, &fake.addr, None),
        (
            "invalid_registry_port",
            "127.0.0.1:99999/org/lab:latest".into(),
            "",
            None,
        ),
        (
            "layout_that_is_a_file",
            "oci:README.md".into(),
            "",
            Some(routine),
        ),
        (
            "layout_without_the_tag",
            "oci:examples/lab:v9".into(),
            "",
            Some(routine),
        ),
    ];
    for (name, image, insecure, input) in cases {
        let mut run = dispatch(&image, insecure);
        if let Some((input, value)) = input {
            run = run.input(input, value);
        }
        let out = run.run().await;
        assert_eq!(out.code, 2, "{name}: bad usage\n{}", out.stdout);
        insta::assert_snapshot!(name, scrub(&out.stdout, &[(&fake.addr, "[registry]")]));
    }
    assert!(
        fake.seen().await.is_empty(),
        "nothing asked of the registry"
    );
}

// ---- TLS: tell a plain-HTTP server from an untrusted certificate ----

/// A TLS failure says why: a plain-HTTP server on a private host gets insecure-registry, a
/// certificate from a CA the runner does not trust gets the trust-store advice instead. Not
/// retried.
#[tokio::test]
async fn tls_failures_tell_a_plain_http_server_from_an_untrusted_certificate() {
    let tls = crate::common::registry::TlsFiles::generate();
    let cases = [
        (
            "plain_http_registry_over_https_is_a_tls_error_suggesting_insecure_registry",
            Registry::start(),
            TlsProblem::NotTls,
        ),
        (
            "a_tls_registry_with_a_private_ca_gets_trust_advice_not_insecure_registry",
            Registry::start_tls(&tls),
            TlsProblem::UnknownIssuer,
        ),
    ];
    for (name, registry, expected) in cases {
        let (err, timer) = resolve_over_tls(&registry.reference("org/lab:latest")).await;
        assert_matches!(
            &*err.kind,
            RegistryErrorKind::Connection(ConnectionProblem::Tls {
                problem,
                private: true,
                ..
            }) if *problem == expected,
            "{name}"
        );
        insta::assert_snapshot!(
            name,
            scrub(&err.to_string(), &[(&registry.addr, "[registry]")])
        );
        assert!(
            timer.waits().is_empty(),
            "{name}: TLS failures are not retried"
        );
    }
}

#[tokio::test]
async fn insecure_registry_on_a_tls_registry_says_it_speaks_tls() {
    let tls = crate::common::registry::TlsFiles::generate();
    let registry = Registry::start_tls(&tls);
    let (err, _) = refusal_at(&registry.addr, "org/lab:latest").await;
    assert_matches!(
        &*err.kind,
        RegistryErrorKind::Connection(ConnectionProblem::InsecureButTls { .. })
    );
    insta::assert_snapshot!(scrub(&err.to_string(), &[(&registry.addr, "[registry]")]));
}

#[tokio::test]
async fn ssl_cert_file_trusts_a_private_ca_and_a_name_the_certificate_lacks_is_named() {
    let tls = crate::common::registry::TlsFiles::generate();
    let registry = Registry::start_tls(&tls);
    let digest = pushed_layout(&registry);
    let ca = tls.ca.display().to_string();
    let run = |image: String| {
        dispatch(&image, "")
            .input("tier", "routine")
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
    insta::assert_snapshot!(error_line(&out, &[(port, "[port]")]));
}

// ---- inputs as the Actions runner passes them ----

#[tokio::test]
async fn insecure_registry_takes_a_newline_list_and_any_case() {
    let fake = FakeRegistry::new()
        .head(with_digest(&digest_of(BODY)))
        .start()
        .await;
    let port = fake.server.address().port();
    let out = dispatch(&format!("localhost:{port}/org/lab:latest"), "")
        .input(
            "insecure-registry",
            &format!("registry.internal:5000\nLOCALHOST:{port}\n"),
        )
        .input("tier", "routine")
        .run()
        .await;
    out.assert_success();
    assert_eq!(out.output("digest"), digest_of(BODY));
}

#[tokio::test]
async fn a_layout_tag_with_a_slash_resolves() {
    let layout = tempfile::tempdir().unwrap();
    let digest = make_layout(layout.path(), "release/1.0", "slash-tag");
    let out = dispatch(&format!("oci:{}:release/1.0", layout.path().display()), "")
        .input("tier", "routine")
        .run()
        .await;
    out.assert_success();
    assert_eq!(out.output("digest"), digest);
}

// ---- credentials a registry echoes never reach the log ----

/// Runs the binary against a fake registry that asks for Basic credentials and echoes the
/// password back in its 401 body (`echo` builds the body from the password); returns
/// the `::error` line (everything else printed is checked to hold no part of it).
async fn printed_when_the_registry_echoes(
    password: &str,
    secret_parts: &[&str],
    echo: fn(&str) -> ResponseTemplate,
) -> String {
    let fake = FakeRegistry::new()
        .head(status(401).insert_header("WWW-Authenticate", r#"Basic realm="fake""#))
        .get(echo(password))
        .start()
        .await;
    let out = dispatch(&fake.image(), &fake.addr)
        .input("registry-username", USER)
        .input("registry-password", password)
        .run()
        .await;
    assert_eq!(out.code, 1, "{}", out.stdout);
    // Everything printed except the `::add-mask::` lines (the runner's own masking input).
    let printed = format!("{}\n{}", out.stdout, out.stderr)
        .lines()
        .filter(|l| !l.starts_with("::add-mask::"))
        .collect::<Vec<_>>()
        .join("\n");
    for part in secret_parts {
        assert!(!printed.contains(part), "{part}: {printed}");
    }
    error_line(&out, &[(&fake.addr, "[registry]")])
}

/// A space inside a password is taken (a tab or line break is refused before anything is
/// sent, as in a token: `cli::inputs::secret`); each part is hidden where it is echoed.
#[tokio::test]
async fn an_echoed_password_with_a_space_is_not_printed() {
    let printed =
        printed_when_the_registry_echoes("s3cret pass-2024", &["s3cret", "pass-2024"], |p| {
            registry_error(401, "UNAUTHORIZED", &format!("invalid password {p}"))
        })
        .await;
    insta::assert_snapshot!(printed);
}

#[tokio::test]
async fn an_echoed_long_token_cut_by_the_message_cap_is_not_printed() {
    let token = format!("glpat-{}", "k7Qx".repeat(100));
    let printed = printed_when_the_registry_echoes(&token, &["k7Qxk7Qx"], |p| {
        status(401).set_body_raw(format!("bad credentials: {p}"), "text/plain")
    })
    .await;
    insta::assert_snapshot!(printed);
}
