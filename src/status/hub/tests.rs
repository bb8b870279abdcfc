//! The hub edge against a wiremock hub answering as JupyterHub 6.1.1 does
//! (`apihandlers/base.py` `paginated_model`, `user_model`, `server_model`; `scopes.py`'s 403).

use super::*;
use assert_matches::assert_matches;
use serde_json::{Value, json};
use time::macros::datetime;
use wiremock::matchers::{header, method, path, query_param};
use wiremock::{Mock, MockServer, ResponseTemplate};

const TOKEN: &str = "s3cr3t-hub-token-0123456789";

fn token() -> SecretString {
    SecretString::from(TOKEN)
}

/// The one read policy, without its waits (the tests count tries, not time).
fn no_waits() -> RetryPolicy {
    RetryPolicy {
        base_delay: Duration::ZERO,
        ..RetryPolicy::reads()
    }
}

fn client(base: &str) -> HubClient {
    HubClient::new(base, &token(), Duration::from_secs(10))
        .unwrap()
        .with_retry(no_waits())
}

/// A server model as `server_model` writes it (all its fields, so the test shows the
/// client skips what it does not need).
fn server_model(user: &str, name: &str, started: &str, last_activity: Value) -> Value {
    json!({
        "name": name,
        "display_name": name,
        "full_name": format!("{user}/{name}"),
        "last_activity": last_activity,
        "started": started,
        "pending": null,
        "ready": true,
        "stopped": false,
        "url": format!("/user/{user}/{name}"),
        "user_options": {"profile": "default", "image": "lab:latest"},
        "progress_url": format!("/hub/api/users/{user}/server/progress"),
        "full_url": null,
        "full_progress_url": null,
    })
}

/// A user model as `user_model` filters it for a token with `list:users` and
/// `read:servers`.
fn user_model(name: &str, servers: Value) -> Value {
    json!({"kind": "user", "name": name, "servers": servers})
}

fn page(items: Vec<Value>, offset: u64, limit: u64, total: u64, next: Option<u64>) -> Value {
    json!({
        "items": items,
        "_pagination": {
            "offset": offset,
            "limit": limit,
            "total": total,
            // The hub builds next.url from the request it saw: behind an ingress, an
            // internal address the client must not follow.
            "next": next.map(|o| json!({
                "offset": o,
                "limit": limit,
                "url": format!("http://hub.internal:8081/hub/api/users?state=active&offset={o}&limit={limit}"),
            })),
        },
    })
}

async fn mount_page(hub: &MockServer, offset: u64, body: Value) {
    Mock::given(method("GET"))
        .and(path("/hub/api/users"))
        .and(query_param("state", "active"))
        .and(query_param("offset", offset.to_string()))
        .and(header("accept", PAGINATION_MEDIA_TYPE))
        .and(header("authorization", format!("token {TOKEN}").as_str()))
        .respond_with(ResponseTemplate::new(200).set_body_json(body))
        .expect(1)
        .mount(hub)
        .await;
}

async fn answer_all(hub: &MockServer, response: ResponseTemplate) {
    Mock::given(method("GET"))
        .respond_with(response)
        .mount(hub)
        .await;
}

/// The error listing fails with against a hub that answers every request with `response`,
/// the client given the hub's address followed by `under` (e.g. `/hub/`).
async fn error_answering(response: ResponseTemplate, under: &str) -> (MockServer, HubError) {
    let hub = MockServer::start().await;
    answer_all(&hub, response).await;
    let err = error_of(&format!("{}{under}", hub.uri())).await;
    (hub, err)
}

async fn error_of(base: &str) -> HubError {
    client(base).list_active_servers().await.unwrap_err()
}

/// Five users on three pages of two (the first asked with the default limit, 200): a user
/// with two servers, one whose server stopped between the hub's query and its model, one
/// still spawning.
async fn mount_three_pages(hub: &MockServer) {
    let t0 = "2026-11-30T10:00:00.000000Z";
    mount_page(
        hub,
        0,
        page(
            vec![
                user_model("alice", json!({"": server_model("alice", "", t0, json!("2026-11-30T11:00:00.123456Z"))})),
                user_model(
                    "bob",
                    json!({
                        "": server_model("bob", "", t0, Value::Null),
                        "gpu": server_model("bob", "gpu", t0, json!("2026-11-30T12:00:00Z")),
                    }),
                ),
            ],
            0,
            2,
            5,
            Some(2),
        ),
    )
    .await;
    mount_page(
        hub,
        2,
        page(
            vec![
                user_model(
                    "carol",
                    json!({"": server_model("carol", "", t0, json!(t0))}),
                ),
                // Stopped between the hub's query and its model: listed, no server.
                user_model("dave", json!({})),
            ],
            2,
            2,
            5,
            Some(4),
        ),
    )
    .await;
    let mut pending = server_model("erin", "", t0, Value::Null);
    pending["pending"] = json!("spawn");
    pending["ready"] = json!(false);
    mount_page(
        hub,
        4,
        page(
            vec![user_model("erin", json!({"": pending}))],
            4,
            2,
            5,
            None,
        ),
    )
    .await;
}

/// The servers [`mount_three_pages`] lists, in its order.
fn three_pages_servers() -> Vec<Server> {
    let started = Some(datetime!(2026-11-30 10:00 UTC));
    let server = |user: &str, name: &str, last_activity, ready, pending| Server {
        user: user.into(),
        name: name.into(),
        times: ServerTimes {
            started,
            last_activity,
        },
        ready,
        pending,
    };
    vec![
        server(
            "alice",
            "",
            Some(datetime!(2026-11-30 11:00:00.123456 UTC)),
            true,
            None,
        ),
        server("bob", "", None, true, None),
        server(
            "bob",
            "gpu",
            Some(datetime!(2026-11-30 12:00 UTC)),
            true,
            None,
        ),
        server("carol", "", started, true, None),
        server("erin", "", None, false, Some(Pending::Spawn)),
    ]
}

#[tokio::test]
async fn three_pages_are_followed_with_three_gets_to_the_given_base() {
    let hub = MockServer::start().await;
    mount_three_pages(&hub).await;

    let listing = client(&hub.uri()).list_active_servers().await.unwrap();

    let requests = hub.received_requests().await.unwrap();
    assert_eq!(requests.len(), 3);
    assert!(
        requests
            .iter()
            .all(|r| r.method == wiremock::http::Method::GET)
    );
    let queries: Vec<_> = requests
        .iter()
        .map(|r| r.url.query().unwrap_or("").to_string())
        .collect();
    assert_eq!(
        queries,
        [
            "state=active&offset=0&limit=200",
            "state=active&offset=2&limit=2",
            "state=active&offset=4&limit=2",
        ]
    );
    assert_eq!(listing.requests, 3);
    assert_eq!(listing.users, 5);
    assert!(!listing.shifted);
    assert_eq!(listing.servers, three_pages_servers());
}

#[tokio::test]
async fn an_empty_hub_takes_one_request() {
    let hub = MockServer::start().await;
    mount_page(&hub, 0, page(vec![], 0, 200, 0, None)).await;
    let listing = client(&hub.uri()).list_active_servers().await.unwrap();
    assert_eq!(
        (listing.requests, listing.users, listing.servers.len()),
        (1, 0, 0)
    );
}

#[tokio::test]
async fn a_hub_under_a_prefix_is_asked_under_it() {
    let hub = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/jupyter/hub/api/users"))
        .respond_with(ResponseTemplate::new(200).set_body_json(page(vec![], 0, 200, 0, None)))
        .expect(1)
        .mount(&hub)
        .await;
    let listing = client(&format!("{}/jupyter/", hub.uri()))
        .list_active_servers()
        .await
        .unwrap();
    assert_eq!(listing.requests, 1);
}

#[tokio::test]
async fn a_hub_older_than_2_0_answering_an_array_is_refused_naming_the_version() {
    let (hub, err) = error_answering(
        ResponseTemplate::new(200).set_body_json(json!([user_model("alice", json!({}))])),
        "",
    )
    .await;
    assert_eq!(
        err,
        HubError::TooOld {
            url: format!(
                "{}/hub/api/users?state=active&offset=0&limit=200",
                hub.uri()
            )
        }
    );
    assert!(err.to_string().contains("JupyterHub 2.0"), "{err}");
}

#[tokio::test]
async fn a_transient_503_is_tried_again_and_the_listing_completes() {
    // configurable-http-proxy's answer while the hub restarts, once; then the page.
    let hub = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(503).set_body_json(
            json!({"error": "Service Unavailable", "message": "proxy target unavailable"}),
        ))
        .up_to_n_times(1)
        .expect(1)
        .mount(&hub)
        .await;
    mount_page(&hub, 0, page(vec![], 0, 200, 0, None)).await;
    let listing = client(&hub.uri()).list_active_servers().await.unwrap();
    assert_eq!((listing.servers.len(), listing.requests), (0, 2));
    let sent = hub.received_requests().await.unwrap();
    assert!(sent.iter().all(|r| r.method == wiremock::http::Method::GET));
    assert_eq!(sent.len(), 2);
}

#[tokio::test]
async fn transient_answers_are_tried_four_times_then_reported_and_errors_a_user_fixes_once() {
    for (status, tries) in [
        (429, 4),
        (502, 4),
        (503, 4),
        (504, 4),
        (500, 4),
        (401, 1),
        (403, 1),
        (404, 1),
    ] {
        let hub = MockServer::start().await;
        answer_all(
            &hub,
            ResponseTemplate::new(status).set_body_json(
                json!({"status": status, "message": "requires any of [list:users]"}),
            ),
        )
        .await;
        let err = error_of(&hub.uri()).await;
        let sent = hub.received_requests().await.unwrap().len();
        assert_eq!(sent, tries, "{status}: {err:?}");
        match status {
            403 => assert_matches!(err, HubError::MissingScope { .. }),
            401 => assert_matches!(err, HubError::Unauthorized { .. }),
            404 => assert_matches!(err, HubError::WrongBase { .. }),
            _ => {
                assert_matches!(err, HubError::Status { status: s, tries: t, .. } if s == status && t as usize == tries);
            }
        }
    }
}

/// Issue 27: a transient failure of one read (JupyterHub's 500 when its database commit
/// failed, a proxy's 503, an answer later than the timeout) is tried again, and the listing
/// then succeeds: one retry, two requests.
#[tokio::test]
async fn a_read_failing_once_is_tried_again_and_the_listing_succeeds() {
    let failures = [
        (
            "500",
            ResponseTemplate::new(500).set_body_json(json!({
                "status": 500,
                "message": "Unhandled error: (sqlite3.OperationalError) database is locked"
            })),
        ),
        (
            "503",
            ResponseTemplate::new(503)
                .set_body_json(json!({"status": 503, "message": "Service Unavailable"})),
        ),
        (
            "timeout",
            ResponseTemplate::new(200)
                .set_body_json(page(vec![], 0, 200, 0, None))
                .set_delay(Duration::from_secs(30)),
        ),
    ];
    for (what, failure) in failures {
        let hub = MockServer::start().await;
        Mock::given(method("GET"))
            .respond_with(failure)
            .up_to_n_times(1)
            .with_priority(1)
            .mount(&hub)
            .await;
        mount_page(&hub, 0, page(vec![], 0, 200, 0, None)).await;
        let listing = HubClient::new(&hub.uri(), &token(), Duration::from_millis(500))
            .unwrap()
            .with_retry(no_waits())
            .list_active_servers()
            .await
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(listing.requests, 2, "{what}");
        assert_eq!(hub.received_requests().await.unwrap().len(), 2, "{what}");
    }
}

#[tokio::test]
async fn the_error_after_retries_says_how_many_tries_were_made() {
    // A proxy answering 503 while the hub stays down; then nothing listening at all.
    let (proxy, status) = error_answering(
        ResponseTemplate::new(503)
            .set_body_json(json!({"status": 503, "message": "Service Unavailable"})),
        "",
    )
    .await;
    assert_eq!(proxy.received_requests().await.unwrap().len(), 4);
    let base = format!("http://127.0.0.1:{}", free_port());
    let unreachable = error_of(&base).await;
    assert_matches!(unreachable, HubError::Unreachable { tries: 4, .. });
    // One try, nothing retried: no count.
    let (hub, once) = error_answering(
        ResponseTemplate::new(400).set_body_json(json!({"status": 400, "message": "Bad Request"})),
        "",
    )
    .await;
    assert_eq!(hub.received_requests().await.unwrap().len(), 1);
    let messages = [
        status.to_string().replace(&proxy.uri(), "http://hub"),
        unreachable
            .to_string()
            .replace(&base, "http://127.0.0.1:PORT"),
        once.to_string().replace(&hub.uri(), "http://hub"),
    ];
    insta::assert_snapshot!(messages.join("\n"), @r#"
the hub at http://hub/hub/api/users?state=active&offset=0&limit=200 answered 503 after 4 tries
caused by: the hub said: Service Unavailable
help: the hub, or a proxy or ingress in front of it, failed: check that the hub is up and look at its log and the proxy's, then try again later
cannot reach the hub at http://127.0.0.1:PORT/hub/api/users?state=active&offset=0&limit=200 after 4 tries
caused by: Connection refused (os error 111)
help: check hub-url and that this runner can reach the hub
the hub at http://hub/hub/api/users?state=active&offset=0&limit=200 answered 400
caused by: the hub said: Bad Request
help: not an answer of the hub's API to this request: check that hub-url is the hub's address (<hub-url>/hub/api/ is the API)
"#);
}

#[tokio::test]
async fn a_retry_after_longer_than_the_policy_waits_ends_the_tries() {
    let hub = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(429).insert_header("Retry-After", "3600"))
        .mount(&hub)
        .await;
    let err = error_of(&hub.uri()).await;
    assert_matches!(err, HubError::Status { status: 429, .. });
    assert_eq!(
        hub.received_requests().await.unwrap().len(),
        1,
        "an hour is longer than the policy waits: the first answer is the error"
    );
}

#[tokio::test]
async fn a_403_names_the_missing_scope_and_the_role() {
    let (hub, err) = error_answering(
        ResponseTemplate::new(403).set_body_json(json!({
            "status": 403,
            "message": "Action is not authorized with current scopes; requires any of [list:users]",
        })),
        "",
    )
    .await;
    let HubError::MissingScope { scopes, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(scopes, &["list:users"]);
    insta::assert_snapshot!(err.to_string().replace(&hub.uri(), "http://hub"), @r#"
the token cannot list the running servers at http://hub/hub/api/users?state=active&offset=0&limit=200
help: it lacks the scope list:users: grant the token's owner the role codeq-rollout-status with scopes list:users, read:servers (hub.loadRoles, see README)
"#);
}

#[tokio::test]
async fn a_403_not_from_the_hubs_api_says_so_and_not_a_missing_scope() {
    // A proxy's or firewall's page (as /work/qa's h403.py answered), text, other JSON, nothing.
    let html = "<html><body>403 Forbidden - nginx / WAF blocked your IP</body></html>";
    let cases = [
        ResponseTemplate::new(403).set_body_raw(html, "text/html"),
        ResponseTemplate::new(403).set_body_raw("Forbidden", "text/plain"),
        ResponseTemplate::new(403).set_body_json(json!({"error": "blocked"})),
        ResponseTemplate::new(403),
    ];
    let mut seen = Vec::new();
    for response in cases {
        seen.push(not_by_hub(response).await);
    }
    let answers: Vec<_> = seen.iter().map(|(a, _)| a.clone()).collect();
    let bodies = [Body::Html, Body::NotJson, Body::OtherJson, Body::Empty];
    assert_eq!(answers, bodies.map(|b| (403, b, None)));
    insta::assert_snapshot!(seen[0].1, @r#"
http://hub/hub/api/users?state=active&offset=0&limit=200 answered 403 Forbidden with an HTML page
help: that is not the hub API's error (JSON with status and message): the refusal came from something in front of the hub's API, not from the hub; check the proxies, the ingress and any IP allow-list or firewall between this runner and the hub, and that hub-url is the hub's address (<hub-url>/hub/api/ is the API)
"#);
}

#[tokio::test]
async fn users_without_their_servers_mean_read_servers_is_missing() {
    // What the hub answers a token with list:users only: names, no `servers`.
    let (_, err) = error_answering(
        ResponseTemplate::new(200).set_body_json(page(
            vec![json!({"kind": "user", "name": "alice"})],
            0,
            200,
            1,
            None,
        )),
        "",
    )
    .await;
    assert_matches!(&err, HubError::MissingScope { scopes, .. } if scopes == &["read:servers"]);
}

#[test]
fn the_base_before_the_pages_is_the_url_before_its_hub_or_user_part() {
    for (given, base) in [
        (
            "https://hub.example.org/hub/api",
            Some("https://hub.example.org"),
        ),
        (
            "https://hub.example.org/hub/api/",
            Some("https://hub.example.org"),
        ),
        (
            "https://hub.example.org/hub/api/users",
            Some("https://hub.example.org"),
        ),
        (
            "HTTPS://Hub.Example.Org:443/hub/api/users/alice",
            Some("https://hub.example.org"),
        ),
        (
            "http://example.org:8000/jupyter/hub/api/users",
            Some("http://example.org:8000/jupyter"),
        ),
        (
            "https://hub.example.org/hub/home",
            Some("https://hub.example.org"),
        ),
        (
            "https://example.org/jupyter/user/alice/lab",
            Some("https://example.org/jupyter"),
        ),
        ("https://hub.example.org", None),
        (
            "https://hub.example.org/hub",
            Some("https://hub.example.org"),
        ),
        (
            "https://hub.example.org/hub/",
            Some("https://hub.example.org"),
        ),
        (
            "https://example.org/jupyter/hub",
            Some("https://example.org/jupyter"),
        ),
        ("https://example.org/user", None),
        ("https://example.org/jupyter", None),
        ("https://hub.example.org/myhub/api", None),
        ("not a url/hub/api", None),
    ] {
        assert_eq!(base_before_pages(given).as_deref(), base, "{given}");
    }
}

/// Issue 27: a hub served under a base URL (`/jh/`) but given without it answers 404 at
/// `<hub-url>/hub/api/`: the error says the hub may be under a base URL and how to find it.
#[tokio::test]
async fn a_404_without_a_suggestion_says_the_hub_may_be_under_a_base_url() {
    let (hub, err) = error_answering(
        ResponseTemplate::new(404).set_body_string("404 page not found"),
        "/",
    )
    .await;
    insta::assert_snapshot!(err.to_string().replace(&hub.uri(), "http://hub"));
    assert!(err.to_string().contains("base URL"), "{err}");
}

#[tokio::test]
async fn an_html_login_page_is_not_the_api() {
    let (_, err) = error_answering(
        ResponseTemplate::new(200).set_body_raw(
            "<!DOCTYPE html><html><body>Sign in</body></html>",
            "text/html",
        ),
        "",
    )
    .await;
    assert_matches!(
        &err,
        HubError::WrongBase {
            answer: WrongAnswer::HtmlPage,
            ..
        }
    );
}

#[tokio::test]
async fn a_redirect_to_the_login_page_is_not_followed() {
    let (hub, err) = error_answering(
        ResponseTemplate::new(302)
            .insert_header("location", "/hub/login?next=%2Fhub%2Fapi%2Fusers"),
        "",
    )
    .await;
    assert_matches!(&err, HubError::WrongBase { answer: WrongAnswer::Redirect { location: Some(l) }, .. } if l == "/hub/login?next=%2Fhub%2Fapi%2Fusers");
    assert_eq!(hub.received_requests().await.unwrap().len(), 1);
}

#[tokio::test]
async fn an_unknown_token_is_said_to_be_unknown() {
    // JupyterHub 6.1.1's answer to a missing or unknown token, and a 401 in the hub's own
    // error document.
    for response in [
        ResponseTemplate::new(403)
            .set_body_json(json!({"status": 403, "message": "Missing or invalid credentials."})),
        ResponseTemplate::new(401).set_body_json(json!({"status": 401, "message": "Unauthorized"})),
    ] {
        let hub = MockServer::start().await;
        answer_all(&hub, response).await;
        assert_matches!(error_of(&hub.uri()).await, HubError::Unauthorized { .. });
        assert_eq!(hub.received_requests().await.unwrap().len(), 1);
    }
}

#[tokio::test]
async fn a_401_not_from_the_hubs_api_blames_what_is_in_front_not_the_token() {
    // An ingress's basic auth (ingress-nginx's page and challenge), an empty 401, and an
    // OAuth2 proxy's JSON that is not the hub's.
    let html = "<html><head><title>401 Authorization Required</title></head><body><center><h1>401 Authorization Required</h1></center><hr><center>nginx</center></body></html>";
    let cases = [
        ResponseTemplate::new(401)
            .set_body_raw(html, "text/html")
            .insert_header(
                "www-authenticate",
                r#"Basic realm="Authentication Required""#,
            ),
        ResponseTemplate::new(401),
        ResponseTemplate::new(401)
            .set_body_json(json!({"error": "unauthorized"}))
            .insert_header("www-authenticate", "Bearer"),
    ];
    let mut seen = Vec::new();
    for response in cases {
        seen.push(not_by_hub(response).await);
    }
    let answers: Vec<_> = seen.iter().map(|(a, _)| a.clone()).collect();
    assert_eq!(
        answers,
        [
            (401, Body::Html, Some("Basic".to_string())),
            (401, Body::Empty, None),
            (401, Body::OtherJson, Some("Bearer".to_string())),
        ]
    );
    insta::assert_snapshot!(seen[0].1, @r#"
http://hub/hub/api/users?state=active&offset=0&limit=200 answered 401 Unauthorized with an HTML page
help: that is not the hub API's error (JSON with status and message), and it asked for Basic authentication (WWW-Authenticate: Basic): the login that failed is that of something in front of the hub's API (an ingress's or proxy's own authentication, e.g. basic auth or an OAuth2 proxy), not the hub's, so the hub token is not the cause; let this runner reach <hub-url>/hub/api/ without that login (the hub checks its own tokens there), and check that hub-url is the hub's address
"#);
}

/// A 401 or 403 not in the hub API's shape, as read: one request sent; the status, body
/// kind and challenge of its [`HubError::NotByHub`], and its words.
async fn not_by_hub(response: ResponseTemplate) -> ((u16, Body, Option<String>), String) {
    let (hub, err) = error_answering(response, "").await;
    assert_eq!(hub.received_requests().await.unwrap().len(), 1);
    let HubError::NotByHub {
        status,
        answer,
        challenge,
        ..
    } = &err
    else {
        panic!("{err:?}")
    };
    let words = err.to_string().replace(&hub.uri(), "http://hub");
    ((*status, *answer, challenge.clone()), words)
}

#[test]
fn only_a_token_is_taken_as_the_authentication_scheme() {
    for (value, scheme) in [
        (r#"Basic realm="x""#, Some("Basic")),
        ("Bearer", Some("Bearer")),
        ("Negotiate, Basic realm=\"x\"", Some("Negotiate")),
        ("", None),
        ("<script>", None),
        ("Bäsic realm", None),
    ] {
        assert_eq!(auth_scheme(value.as_bytes()).as_deref(), scheme, "{value}");
    }
}

/// JSON that is not a user list says where: the path (a server's name in it), or for a
/// time the user and server; with names left out (`include-names`), neither names one.
#[tokio::test]
async fn malformed_json_names_where_and_names_nobody_when_names_are_left_out() {
    let mut seen = Vec::new();
    for names in [true, false] {
        for server in [
            json!({"started": "yesterday"}),
            json!({"ready": "yes"}),
            json!("alice"),
        ] {
            let hub = MockServer::start().await;
            let users = vec![user_model("alice", json!({"gpu": server}))];
            let body = ResponseTemplate::new(200).set_body_json(page(users, 0, 200, 1, None));
            answer_all(&hub, body).await;
            let client = client(&hub.uri()).naming(names);
            let err = client.list_active_servers().await.unwrap_err();
            assert_matches!(err, HubError::Malformed { .. });
            let text = err.to_string();
            assert_eq!(names, text.contains("gpu"), "{text}");
            assert!(names || !text.contains("alice"), "{text}");
            seen.push(text.split_once('\n').unwrap().1.to_string());
        }
    }
    insta::assert_snapshot!(seen.join("\n"), @r#"
caused by: items[0].servers: started of user "alice", server "gpu": yesterday is not an RFC 3339 time (the 'year' component could not be parsed)
help: check that server's times in the hub (GET /hub/api/users/NAME), or stop it
caused by: items[0].servers.gpu.ready holds another type or value than the hub's API writes there
help: check that hub-url is the hub's address (<hub-url>/hub/api/ is the API) and what is in front of the hub (a proxy or ingress)
caused by: items[0].servers.gpu holds another type or value than the hub's API writes there
help: check that hub-url is the hub's address (<hub-url>/hub/api/ is the API) and what is in front of the hub (a proxy or ingress)
caused by: items[0].servers: started of a server: yesterday is not an RFC 3339 time (the 'year' component could not be parsed)
help: check that server's times in the hub (the user at items[0] of that page: names are left out of the log, run status with include-names: true to see them), or stop it
caused by: items[0].servers.(server).ready holds another type or value than the hub's API writes there
help: check that hub-url is the hub's address (<hub-url>/hub/api/ is the API) and what is in front of the hub (a proxy or ingress)
caused by: items[0].servers.(server) holds another type or value than the hub's API writes there
help: check that hub-url is the hub's address (<hub-url>/hub/api/ is the API) and what is in front of the hub (a proxy or ingress)
"#);
}

#[tokio::test]
async fn times_that_cannot_be_written_in_utc_are_refused_naming_user_server_and_field() {
    let mut seen = Vec::new();
    for (started, last_activity) in [
        ("2026-11-30T10:00:00Z", json!("9999-12-31T23:59:59-23:59")),
        ("0000-01-01T00:00:00+23:59", json!(null)),
    ] {
        let (hub, err) = error_answering(
            ResponseTemplate::new(200).set_body_json(page(
                vec![
                    user_model(
                        "alice",
                        json!({"": server_model("alice", "", "2026-11-30T09:00:00Z", json!(null))}),
                    ),
                    user_model(
                        "bob",
                        json!({"gpu": server_model("bob", "gpu", started, last_activity)}),
                    ),
                ],
                0,
                200,
                2,
                None,
            )),
            "",
        )
        .await;
        assert_matches!(err, HubError::Malformed { .. });
        seen.push(err.to_string().replace(&hub.uri(), "http://hub"));
    }
    insta::assert_snapshot!(seen.join("\n"), @r#"
the hub at http://hub/hub/api/users?state=active&offset=0&limit=200 answered JSON that is not a user list
caused by: items[1].servers: last_activity of user "bob", server "gpu": 9999-12-31T23:59:59-23:59 falls after 9999-12-31T23:59:59Z in UTC, the last time that can be written (RFC 3339 writes the years 0000 to 9999)
help: check that server's times in the hub (GET /hub/api/users/NAME), or stop it
the hub at http://hub/hub/api/users?state=active&offset=0&limit=200 answered JSON that is not a user list
caused by: items[1].servers: started of user "bob", server "gpu": 0000-01-01T00:00:00+23:59 falls before 0000-01-01T00:00:00Z in UTC, the first time that can be written (RFC 3339 writes the years 0000 to 9999)
help: check that server's times in the hub (GET /hub/api/users/NAME), or stop it
"#);
    // Within the years 0000 to 9999 in UTC, any offset is taken, in UTC.
    let hub = MockServer::start().await;
    answer_all(
        &hub,
        ResponseTemplate::new(200).set_body_json(page(
            vec![user_model(
                "carol",
                json!({"": server_model("carol", "", "0000-01-01T23:59:00+23:59", json!("9999-12-30T23:59:59-23:59"))}),
            )],
            0,
            200,
            1,
            None,
        )),
    )
    .await;
    let listing = client(&hub.uri()).list_active_servers().await.unwrap();
    let server = &listing.servers[0];
    assert_eq!(server.times.started, Some(datetime!(0000-01-01 00:00 UTC)));
    assert_eq!(
        server.times.last_activity,
        Some(datetime!(9999-12-31 23:58:59 UTC))
    );
}

#[tokio::test]
async fn an_answer_that_is_not_json_is_said_to_be_not_json() {
    let (hub, err) = error_answering(
        ResponseTemplate::new(200).set_body_raw("not json{", "application/json"),
        "",
    )
    .await;
    assert_matches!(err, HubError::NotJson { .. });
    insta::assert_snapshot!(err.to_string().replace(&hub.uri(), "http://hub"), @r#"
the hub at http://hub/hub/api/users?state=active&offset=0&limit=200 answered a body that is not JSON
help: the hub's API answers JSON, so something else answered (expected ident at line 1 column 2): check that hub-url is the hub's address (<hub-url>/hub/api/ is the API) and what is in front of the hub (a proxy or ingress)
"#);
}

#[tokio::test]
async fn a_next_link_that_goes_back_is_refused() {
    let hub = MockServer::start().await;
    answer_all(
        &hub,
        ResponseTemplate::new(200).set_body_json(page(vec![], 0, 200, 400, Some(0))),
    )
    .await;
    assert_matches!(error_of(&hub.uri()).await, HubError::Malformed { .. });
    assert_eq!(hub.received_requests().await.unwrap().len(), 1);
}

/// A port nothing listens on: bound, then released.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[tokio::test]
async fn an_unreachable_hub_is_named_once_with_the_root_cause() {
    let base = format!("http://127.0.0.1:{}", free_port());
    let err = error_of(&base).await;
    let HubError::Unreachable { url, cause, tries } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(
        url,
        &format!("{base}/hub/api/users?state=active&offset=0&limit=200")
    );
    assert_eq!(
        (cause.as_str(), *tries),
        ("Connection refused (os error 111)", 4)
    );
    let text = err.to_string();
    assert_eq!(text.matches(&base).count(), 1, "{text}");
    insta::assert_snapshot!(text.replace(&base, "http://127.0.0.1:PORT"), @r#"
cannot reach the hub at http://127.0.0.1:PORT/hub/api/users?state=active&offset=0&limit=200 after 4 tries
caused by: Connection refused (os error 111)
help: check hub-url and that this runner can reach the hub
"#);
}

#[tokio::test]
async fn an_https_url_to_a_plain_http_port_says_to_use_http() {
    // wiremock serves plain HTTP: a TLS handshake to it gets `HTTP/1.1 400` back.
    let hub = MockServer::start().await;
    answer_all(
        &hub,
        ResponseTemplate::new(200).set_body_json(page(vec![], 0, 200, 0, None)),
    )
    .await;
    let https = hub.uri().replace("http://", "https://");
    let hub_client = client(&https);
    let first = hub_client.page_url(0, PAGE_LIMIT);
    let Err(failed) = hub_client.try_page(&first).await else {
        panic!("a TLS handshake with plain HTTP succeeded")
    };
    assert_eq!(
        failed.verdict,
        Verdict::Final,
        "a TLS failure is not tried again"
    );
    let err = hub_client.list_active_servers().await.unwrap_err();
    assert_eq!(err, failed.error);
    assert_matches!(&err, HubError::PlainHttpOnTls { .. });
    insta::assert_snapshot!(err.to_string().replace(&https, "https://127.0.0.1:PORT"), @r#"
https://127.0.0.1:PORT/hub/api/users?state=active&offset=0&limit=200 answered plain HTTP on a TLS connection
help: hub-url says https:// but that port serves plain HTTP: give hub-url with http:// if the hub is served without TLS there, or check the port (the one that serves HTTPS, usually 443)
"#);
    // The same port by http:// is the hub.
    assert!(client(&hub.uri()).list_active_servers().await.is_ok());
}

#[test]
fn only_rustls_invalid_content_type_is_taken_for_plain_http() {
    use std::io::{Error as Io, ErrorKind};
    // As hyper-rustls hands it over: rustls' error in an io::Error in an io::Error.
    let wrapped = |e: rustls::Error| Io::other(Io::new(ErrorKind::InvalidData, e));
    let plain = rustls::Error::InvalidMessage(rustls::InvalidMessage::InvalidContentType);
    assert!(plain_http_on_tls(&wrapped(plain.clone())));
    assert!(plain_http_on_tls(&plain));
    for other in [
        rustls::Error::InvalidMessage(rustls::InvalidMessage::HandshakePayloadTooLarge),
        rustls::Error::InvalidCertificate(rustls::CertificateError::UnknownIssuer),
        rustls::Error::General("received corrupt message of type InvalidContentType".into()),
    ] {
        assert!(!plain_http_on_tls(&wrapped(other.clone())), "{other:?}");
    }
    assert!(!plain_http_on_tls(&Io::from(ErrorKind::ConnectionRefused)));
}

#[tokio::test]
async fn a_hub_slower_than_the_timeout_is_reported_as_such() {
    let hub = MockServer::start().await;
    answer_all(
        &hub,
        ResponseTemplate::new(200)
            .set_body_json(page(vec![], 0, 200, 0, None))
            .set_delay(Duration::from_secs(30)),
    )
    .await;
    let err = HubClient::new(&hub.uri(), &token(), Duration::from_millis(300))
        .unwrap()
        .with_retry(no_waits())
        .list_active_servers()
        .await
        .unwrap_err();
    assert_matches!(err, HubError::Timeout { after, .. } if after == Duration::from_millis(300));
    assert_eq!(
        hub.received_requests().await.unwrap().len(),
        4,
        "tried again, as GitHub reads are"
    );
    // Said as given, never rounded down to whole seconds.
    insta::assert_snapshot!(err.to_string().replace(&hub.uri(), "http://hub"), @r#"
the hub at http://hub/hub/api/users?state=active&offset=0&limit=200 did not answer within 300ms
help: check that the hub is up, or try again later
"#);
}

#[tokio::test]
async fn a_token_the_hub_echoes_is_hidden_through_the_one_engine() {
    // A proxy in front of the hub quoting the request's header, the token cut short, and
    // base64-encoded: each goes, whatever form it takes.
    use base64::Engine as _;
    let b64 = base64::engine::general_purpose::STANDARD.encode(TOKEN);
    let hub = MockServer::start().await;
    answer_all(
        &hub,
        ResponseTemplate::new(400).set_body_json(json!({
            "status": 400,
            "message": format!("bad header 'token {TOKEN}' (was {}..., {b64})", &TOKEN[..12]),
        })),
    )
    .await;
    let HubError::Status {
        status,
        hub_message,
        ..
    } = error_of(&hub.uri()).await
    else {
        panic!("not the hub's status")
    };
    assert_eq!(
        (status, hub_message.as_deref()),
        (400, Some("bad header 'token ***' (was ***..., ***)"))
    );
}

#[test]
fn the_token_is_never_shown() {
    let client = client("https://hub.example.org");
    assert!(!format!("{client:?}").contains(TOKEN));
}

/// The command line checks the base and the token first; what still fails is said.
#[test]
fn a_client_that_cannot_be_made_says_why() {
    for (base, token) in [
        ("hub.example.org", "hub-token-1"),
        ("https://hub.example.org", "a\nb"),
    ] {
        let made = HubClient::new(base, &SecretString::from(token), Duration::from_secs(1));
        assert_matches!(made.unwrap_err(), HubError::Client { url, .. } if url == base);
    }
}

#[test]
fn required_scopes_are_read_from_the_hub_message() {
    for (message, scopes) in [
        (
            "Action is not authorized with current scopes; requires any of [list:users]",
            vec!["list:users"],
        ),
        (
            "… requires any of [read:servers, admin:servers]",
            vec!["read:servers", "admin:servers"],
        ),
        ("Forbidden", vec![]),
        ("requires any of [<script>, list:users]", vec!["list:users"]),
    ] {
        assert_eq!(required_scopes(message), scopes, "{message}");
    }
}

/// A hub of `users` users with one running server each, paging as JupyterHub 6.1.1 does
/// (`get_api_pagination`: `limit` capped at `max_limit`; `paginated_model`: `next` while
/// `offset + limit < total`); `total_after_first` changes the total after the first page.
struct FakeHub {
    users: u64,
    max_limit: u64,
    total_after_first: Option<u64>,
}

impl wiremock::Respond for FakeHub {
    fn respond(&self, request: &wiremock::Request) -> ResponseTemplate {
        let arg = |name: &str| {
            request
                .url
                .query_pairs()
                .find(|(k, _)| k == name)
                .and_then(|(_, v)| v.parse::<u64>().ok())
        };
        let offset = arg("offset").unwrap_or(0);
        let limit = arg("limit")
            .unwrap_or(self.max_limit)
            .clamp(1, self.max_limit);
        let total = match self.total_after_first {
            Some(t) if offset > 0 => t,
            _ => self.users,
        };
        let items = (offset..total.min(offset + limit))
            .map(|i| {
                let name = format!("user{i:05}");
                user_model(
                    &name,
                    json!({"": server_model(&name, "", "2026-11-30T10:00:00Z", Value::Null)}),
                )
            })
            .collect();
        let next = (offset + limit < total).then_some(offset + limit);
        ResponseTemplate::new(200).set_body_json(page(items, offset, limit, total, next))
    }
}

#[tokio::test]
async fn requests_are_one_per_200_users_whatever_the_hub_size() {
    // (users with a running server, the hub's api_page_max_limit, requests expected)
    for (users, max_limit, requests) in [
        (0, 200, 1),
        (200, 200, 1),
        (201, 200, 2),
        (1001, 200, 6),
        (120, 50, 3),
    ] {
        let hub = MockServer::start().await;
        Mock::given(method("GET"))
            .and(path("/hub/api/users"))
            .respond_with(FakeHub {
                users,
                max_limit,
                total_after_first: None,
            })
            .mount(&hub)
            .await;
        let listing = client(&hub.uri()).list_active_servers().await.unwrap();
        let received = hub.received_requests().await.unwrap();
        assert_eq!(received.len(), requests, "{users} users, limit {max_limit}");
        assert_eq!(listing.requests as usize, requests);
        assert!(
            received
                .iter()
                .all(|r| r.method == wiremock::http::Method::GET)
        );
        assert_eq!(listing.servers.len() as u64, users);
        assert_eq!(listing.users, users);
        let names: std::collections::BTreeSet<_> =
            listing.servers.iter().map(|s| s.user.as_str()).collect();
        assert_eq!(names.len() as u64, users, "every user once");
        assert!(!listing.shifted);
    }
}

#[tokio::test]
async fn a_hub_whose_list_changes_while_read_is_flagged() {
    let hub = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(FakeHub {
            users: 300,
            max_limit: 200,
            total_after_first: Some(299),
        })
        .mount(&hub)
        .await;
    let listing = client(&hub.uri()).list_active_servers().await.unwrap();
    assert_eq!(
        (listing.requests, listing.servers.len(), listing.shifted),
        (2, 299, true)
    );
}

/// Offset paging: alice's server stopped and dave's started between the two pages (the
/// total stays 3), so the second page starts one user early and lists bob again. bob is
/// counted once, and the listing says it shifted.
#[tokio::test]
async fn a_user_listed_again_on_a_later_page_is_counted_once_and_flags_the_listing() {
    let hub = MockServer::start().await;
    let t0 = "2026-11-30T10:00:00Z";
    let one = |name: &str| user_model(name, json!({"": server_model(name, "", t0, json!(t0))}));
    mount_page(
        &hub,
        0,
        page(vec![one("alice"), one("bob")], 0, 2, 3, Some(2)),
    )
    .await;
    mount_page(&hub, 2, page(vec![one("bob"), one("dave")], 2, 2, 3, None)).await;
    let listing = client(&hub.uri()).list_active_servers().await.unwrap();
    let users: Vec<&str> = listing.servers.iter().map(|s| s.user.as_str()).collect();
    assert_eq!(users, ["alice", "bob", "dave"]);
    assert_eq!(
        (listing.users, listing.requests, listing.shifted),
        (3, 2, true)
    );
}

#[test]
fn the_role_snippet_grants_exactly_the_scopes() {
    #[derive(serde::Deserialize)]
    struct Values {
        hub: HubValues,
    }
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct HubValues {
        services: BTreeMap<String, serde_json::Value>,
        load_roles: BTreeMap<String, Role>,
    }
    #[derive(serde::Deserialize)]
    struct Role {
        scopes: Vec<String>,
        services: Vec<String>,
    }
    let values: Values = serde_saphyr::from_str(ROLE_SNIPPET).unwrap();
    let role = &values.hub.load_roles[ROLE_NAME];
    assert_eq!(role.scopes, SCOPES);
    assert_eq!(role.services, [ROLE_NAME]);
    assert!(values.hub.services.contains_key(ROLE_NAME));
}
