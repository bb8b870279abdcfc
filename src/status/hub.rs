//! The JupyterHub REST edge of `status` (I/O, read-only): the running servers, page by page.
//!
//! One request per page: `GET {base}/hub/api/users?state=active&offset=N&limit=200` with
//! `Accept: application/jupyterhub-pagination+json` and `Authorization: token …`. Only GET
//! is ever sent. Source: JupyterHub 6.1.1 `jupyterhub/apihandlers/users.py`
//! (`UserListAPIHandler.get`: `state=active` keeps the users with a server record, ready or
//! pending) and `jupyterhub/apihandlers/base.py` (`paginated_model`, `get_api_pagination`:
//! `limit` is capped at `JupyterHub.api_page_max_limit`, default 200; `_pagination.next` is
//! `{offset, limit, url}` while `offset + limit < total`, else `null`).
//!
//! **Next page.** The next request takes `_pagination.next`'s `offset` and `limit` but is
//! built from the base URL given, not from `next.url`: the hub builds that URL from the
//! request as it saw it (`request.full_url()`), which behind a proxy or ingress may be an
//! internal `http://` address, and the token must only go where it was given.
//!
//! **Memory.** Each page's body (about 1 KB per user, at most [`MAX_PAGE_BYTES`]) is read,
//! parsed straight into compact [`Server`] records (no JSON tree; fields not listed are
//! skipped) and dropped before the next request, so a listing of thousands of servers holds
//! one page of JSON at a time.
//!
//! **Scopes.** [`SCOPES`] (see there) is the least a token needs.
//!
//! **Retries.** Each GET is tried again by the one retry policy ([`RetryPolicy::reads`]:
//! 4 tries, backoff 1 s, 2 s, 4 s, `Retry-After` honoured up to 60 s), as GitHub reads are,
//! after a connection error, a timeout (`hub-timeout` per try), a 429 or any 5xx: what a
//! proxy in front of a restarting hub answers (configurable-http-proxy 5.x answers 503 when
//! the hub does not take the connection; an ingress 502 or 504), and the 500 JupyterHub 6.1.1
//! answers for an exception in its handler (`BaseHandler.write_error`), which a failed commit
//! of its database is, gone at the next try. Not 401, 403 and 404, the user's to fix, nor a
//! plain-HTTP port under `https://`. An error after more than one try says how many were made
//! ("after 4 tries").
//!
//! **Old hubs.** The paginated answer arrived in JupyterHub 2.0 (with roles and scopes);
//! an older hub ignores the `Accept` header and answers a bare JSON array. That is refused
//! with [`HubError::TooOld`] naming the minimum version, since such a hub may have cut the
//! list at `limit` without saying so.

mod error;

pub(crate) use error::{Body, Fault, HubError, WrongAnswer};

use super::{Pending, Server, ServerTimes};
use crate::support::retry::{RetryPolicy, TokioTimer, Verdict, retry_after_header};
use crate::support::secrets::{ExposeSecret, SecretString, Secrets};
use crate::support::text::unreadable;
use reqwest::header::{
    ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderValue, LOCATION, WWW_AUTHENTICATE,
};
use reqwest::{StatusCode, Url};
use serde::Deserialize;
use std::collections::{BTreeMap, HashSet};
use std::time::Duration;

/// The media type that asks the hub for the paginated answer (JupyterHub ≥ 2.0,
/// `jupyterhub/apihandlers/base.py` `PAGINATION_MEDIA_TYPE`).
pub(crate) const PAGINATION_MEDIA_TYPE: &str = "application/jupyterhub-pagination+json";

/// Users asked per page: 200, JupyterHub's default `api_page_max_limit` (a hub configured
/// lower answers fewer and its `next` says where to go on). Pages for `n` users with running
/// servers: `ceil(n / 200)`, at least 1.
pub(crate) const PAGE_LIMIT: u64 = 200;

/// The largest page body read, in bytes: 16 MiB (a page of 200 users is a few hundred KB).
pub(crate) const MAX_PAGE_BYTES: usize = 16 * 1024 * 1024;

/// The most pages followed in one listing (2,000,000 users at 200 a page): a guard against a
/// hub whose `next` never ends.
pub(crate) const MAX_PAGES: u32 = 10_000;

/// The smallest set of scopes a hub API token needs for `status`, from JupyterHub 6.1.1:
///
/// - `list:users`: `GET /hub/api/users` is `@needs_scope('list:users')`
///   (`apihandlers/users.py`); without it the hub answers 403 "requires any of
///   \[list:users\]". It implies `read:users:name` (`scopes.py`), so each item carries the
///   user's `name`.
/// - `read:servers`: `user_model` (`apihandlers/base.py`) includes the `servers` map only
///   with it; each server's model (`server_model`) then carries `started`,
///   `last_activity`, `ready` and `pending`. Without it the hub still answers 200, with
///   users but no `servers`: the client reports that as the missing scope
///   (`HubError::MissingScope`).
///
/// Not needed: `read:users` or `read:users:activity` (they give the *user's*
/// `last_activity`; the culler and `status` use the *server's*), `admin:users`,
/// `admin:server_state` (the spawner's state), and any write scope.
pub const SCOPES: [&str; 2] = ["list:users", "read:servers"];

/// The name of the role `hub/role.yaml` creates.
pub const ROLE_NAME: &str = "codeq-rollout-status";

/// Zero to JupyterHub values (chart 2.0 or later, JupyterHub ≥ 2.0) that create a hub
/// service holding a token with exactly [`SCOPES`], for README and CODEQ_DEPLOYMENT.md.
/// The service's `apiToken` is the value to store as a repository secret (the example
/// workflow's `HUB_API_TOKEN`), passed to the action as the `hub-token` input. Kept in
/// `hub/role.yaml`.
#[cfg(test)]
pub(crate) const ROLE_SNIPPET: &str = include_str!("hub/role.yaml");

/// The hub's base URL in `hub_url` when `hub_url` is one of the hub's pages: the URL
/// before its first `hub` path segment, or `user` segment that another segment follows
/// (JupyterHub 5.x `app.py` serves everything under its `base_url` as `{base_url}hub/…`, its
/// pages and API, and `{base_url}user/NAME/…`, the users' servers; so
/// `https://hub.example.org/jupyter/hub/api/users`, `…/jupyter/hub/` and
/// `…/jupyter/user/alice/lab` give `https://hub.example.org/jupyter`); `None` when there is
/// no such segment or `hub_url` is not a URL. Scheme and host come back as [`Url`] writes
/// them (lower case, the default port left out), without a trailing `/`.
///
/// The command line refuses such a `hub-url` before anything is sent or rendered, as no
/// hub's address is one of its pages. A `hub-url` ending in `/hub` is one: `/hub/` is the
/// hub's home (z2jh's proxy sends `/` there), what a user copies from the browser, while a
/// hub served under a `base_url` of `/hub/` itself, the one address this refuses, would
/// have its pages at `/hub/hub/`.
pub(crate) fn base_before_pages(hub_url: &str) -> Option<String> {
    let mut url = Url::parse(hub_url.trim()).ok()?;
    let path = url.path().to_string();
    let segments: Vec<&str> = path.split('/').collect();
    let at = (0..segments.len()).find(|&i| match segments[i] {
        "hub" => true,
        "user" => segments.get(i + 1).is_some_and(|next| !next.is_empty()),
        _ => false,
    })?;
    url.set_path(&segments[..at].join("/"));
    url.set_query(None);
    url.set_fragment(None);
    Some(url.as_str().trim_end_matches('/').to_string())
}

/// A read-only client of one hub's REST API.
#[derive(Debug, Clone)]
pub(crate) struct HubClient {
    /// `{base}/hub/api/users`, without query.
    users_url: Url,
    /// `token …`, marked sensitive (reqwest then keeps it out of `Debug`).
    authorization: HeaderValue,
    /// The token in every form, hidden in whatever the hub (or a proxy) echoes.
    secrets: Secrets,
    http: reqwest::Client,
    timeout: Duration,
    retry: RetryPolicy,
    /// Whether an error about the hub's answer may name users and servers
    /// ([`HubClient::naming`]).
    names: bool,
}

impl HubClient {
    /// A client for the hub at `base` (the hub's public address as `hub-url` takes it,
    /// [`crate::cli`]'s `inputs::hub_url`: e.g. `https://hub.example.org`, or
    /// `https://example.org/jupyter` for a hub under a prefix; the API
    /// is `{base}/hub/api/`, any trailing `/` ignored), authenticating with `token` (printable ASCII, as the command
    /// line checks it). `timeout` bounds each request, connection included. Builds no
    /// connection.
    ///
    /// Redirects are not followed: a hub API answers without them, and a redirect usually
    /// means a login page (reported as [`HubError::WrongBase`]).
    ///
    /// # Errors
    /// [`HubError::Client`] when no client can be made: `base` is no URL, `token` cannot go
    /// in a header, or the HTTP client cannot be built.
    pub(crate) fn new(
        base: &str,
        token: &SecretString,
        timeout: Duration,
    ) -> Result<Self, HubError> {
        let client = |cause: String| HubError::Client {
            url: base.to_string(),
            cause,
        };
        let users_url = format!("{}/hub/api/users", base.trim_end_matches('/'));
        let users_url = Url::parse(&users_url).map_err(|e| client(e.to_string()))?;
        let mut authorization =
            HeaderValue::from_str(&format!("token {}", token.expose_secret().trim()))
                .map_err(|e| client(e.to_string()))?;
        authorization.set_sensitive(true);
        let http = reqwest::Client::builder()
            .tls_backend_preconfigured(crate::support::tls::client_config())
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(timeout)
            .timeout(timeout)
            .build()
            .map_err(|e| client(root_cause(&e)))?;
        Ok(Self {
            users_url,
            authorization,
            secrets: Secrets::of([token]),
            http,
            timeout,
            retry: RetryPolicy::reads(),
            names: true,
        })
    }

    /// This client with its errors naming users and servers only when `names` is set
    /// (`include-names`, or a terminal outside Actions): without, a [`Fault::Time`] carries
    /// no names and a [`Fault::Shape`]'s path leaves the server's name out, as the job log,
    /// the job summary and the comment do.
    pub(crate) fn naming(mut self, names: bool) -> Self {
        self.names = names;
        self
    }

    /// This client with reads retried by `retry` instead of [`RetryPolicy::reads`].
    #[cfg(test)]
    pub(crate) fn with_retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    /// Every running server, page by page: at most `ceil(users with running servers / 200)`
    /// requests (1 when none), all GET. Each page is dropped once its servers are kept.
    ///
    /// # Errors
    /// The first [`HubError`] of any page.
    pub(crate) async fn list_active_servers(&self) -> Result<Listing, HubError> {
        let mut listing = Listing::default();
        let (mut next_offset, mut limit) = (Some(0), PAGE_LIMIT);
        let (mut first_total, mut seen) = (None, HashSet::new());
        while let Some(offset) = next_offset.take() {
            let url = self.page_url(offset, limit);
            let malformed = |fault| HubError::Malformed {
                url: url.to_string(),
                fault: Box::new(fault),
            };
            if listing.requests >= MAX_PAGES {
                return Err(malformed(Fault::EndlessPages { pages: MAX_PAGES }));
            }
            let page = self.read_page(&url, &mut listing.requests).await?;
            let total = page.pagination.total;
            listing.shifted |= *first_total.get_or_insert(total) != total;
            if let Some(next) = &page.pagination.next {
                if next.offset <= offset || next.limit == 0 {
                    return Err(malformed(Fault::NextGoesBack {
                        offset,
                        next_offset: next.offset,
                        next_limit: next.limit,
                    }));
                }
                next_offset = Some(next.offset);
                limit = next.limit.min(PAGE_LIMIT);
            }
            if page.items.iter().any(|u| u.servers.is_none()) {
                return Err(HubError::MissingScope {
                    scopes: vec!["read:servers".to_string()],
                    url: url.to_string(),
                });
            }
            for (index, user) in page.items.into_iter().enumerate() {
                // JupyterHub pages users by id with offsets: when a user before the offset
                // goes (its last server stopped), the next page starts one user early and
                // lists a user again. Counted once; the listing is then a shifted one.
                if !seen.insert(user.name.clone()) {
                    listing.shifted = true;
                    continue;
                }
                listing.users += 1;
                for (name, doc) in user.servers.unwrap_or_default() {
                    let server = doc.server(index, &user.name, name, self.names);
                    listing.servers.push(server.map_err(malformed)?);
                }
            }
        }
        Ok(listing)
    }

    /// The URL of the page at `offset`.
    fn page_url(&self, offset: u64, limit: u64) -> Url {
        let mut url = self.users_url.clone();
        url.query_pairs_mut()
            .append_pair("state", "active")
            .append_pair("offset", &offset.to_string())
            .append_pair("limit", &limit.to_string());
        url
    }

    /// One page: its GET, tried again per the client's retry policy (see the module
    /// documentation; each try is counted in `requests`), and its JSON, parsed straight into
    /// the fields `status` keeps.
    async fn read_page(&self, url: &Url, requests: &mut u32) -> Result<PageDoc, HubError> {
        let timer = TokioTimer::start();
        let tries = self.retry.run(
            &timer,
            |_| {
                *requests += 1;
                self.try_page(url)
            },
            |failed| failed.verdict,
            |_| {},
        );
        let body = tries.await.map_err(|gave_up| match gave_up.last {
            Some(failed) => failed.error.after(gave_up.attempts),
            // Only a deadline stops before a try; hub reads have none.
            None => HubError::Timeout {
                url: url.to_string(),
                after: self.timeout,
            },
        })?;
        if first_byte(&body) == Some(b'[') {
            return Err(HubError::TooOld {
                url: url.to_string(),
            });
        }
        let mut de = serde_json::Deserializer::from_slice(&body);
        // A syntax error or a cut-off body is no JSON at all; a data error is JSON of
        // another shape (serde_json `Category`).
        serde_path_to_error::deserialize(&mut de).map_err(|e| match e.inner().classify() {
            serde_json::error::Category::Data => HubError::Malformed {
                url: url.to_string(),
                fault: Box::new(self.shape(&e)),
            },
            _ => HubError::NotJson {
                url: url.to_string(),
                detail: self.echoed(&e.inner().to_string()),
            },
        })
    }

    /// The field of the answer `e` could not read ([`Fault::Shape`], [`unreadable`]), a
    /// server's name (the key under `servers`) written `(server)` when names are left out
    /// ([`HubClient::naming`]).
    fn shape(&self, e: &serde_path_to_error::Error<serde_json::Error>) -> Fault {
        let segments: Vec<String> = e.path().iter().map(ToString::to_string).collect();
        let mut shape = unreadable(e);
        let server = segments.windows(2).find(|pair| pair[0] == "servers");
        if let Some(pair) = server.filter(|_| !self.names) {
            shape.field = shape.field.replacen(&pair.join("."), "servers.(server)", 1);
        }
        shape.field = self.echoed(&shape.field);
        Fault::Shape(shape)
    }

    /// One GET; the body of a 2xx answer that is JSON, or the error it means and whether it
    /// is worth another try.
    async fn try_page(&self, url: &Url) -> Result<Vec<u8>, Failed> {
        let shown = url.to_string();
        let transport = |e: reqwest::Error| self.transport_failure(&e, &shown);
        let mut response = self
            .http
            .get(url.clone())
            .header(ACCEPT, PAGINATION_MEDIA_TYPE)
            .header(AUTHORIZATION, self.authorization.clone())
            .send()
            .await
            .map_err(transport)?;
        let status = response.status();
        let html = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.to_ascii_lowercase().contains("html"));
        let location = response
            .headers()
            .get(LOCATION)
            .map(|v| self.echoed(&String::from_utf8_lossy(v.as_bytes())));
        let asked = retry_after_header(response.headers(), std::time::SystemTime::now());
        let challenge = response
            .headers()
            .get(WWW_AUTHENTICATE)
            .and_then(|v| auth_scheme(v.as_bytes()));
        if status.is_redirection() {
            return Err(wrong_base(shown, WrongAnswer::Redirect { location }).into());
        }
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(transport)? {
            if body.len() + chunk.len() > MAX_PAGE_BYTES {
                return Err(HubError::Malformed {
                    url: shown,
                    fault: Box::new(Fault::TooLarge {
                        limit: MAX_PAGE_BYTES,
                    }),
                }
                .into());
            }
            body.extend_from_slice(&chunk);
        }
        let html = html || first_byte(&body) == Some(b'<');
        let verdict = match status.as_u16() {
            429 | 500..=599 => Verdict::Retry { asked },
            _ => Verdict::Final,
        };
        let answer = match status {
            s if s.is_success() && html => Err(wrong_base(shown, WrongAnswer::HtmlPage)),
            s if s.is_success() => Ok(body),
            s => Err(self.refusal(s, &body, html, challenge, shown)),
        };
        answer.map_err(|error| Failed { error, verdict })
    }

    /// A request that got no answer: a timeout (tried again), a plain-HTTP port under
    /// `https://` (a TLS failure, which another try cannot mend: [`Verdict::Final`]), or
    /// another connection error (tried again).
    fn transport_failure(&self, e: &reqwest::Error, shown: &str) -> Failed {
        let url = shown.to_string();
        let retry = Verdict::Retry { asked: None };
        let (error, verdict) = if e.is_timeout() {
            let after = self.timeout;
            (HubError::Timeout { url, after }, retry)
        } else if plain_http_on_tls(e) {
            (HubError::PlainHttpOnTls { url }, Verdict::Final)
        } else {
            let cause = self.echoed(&root_cause(e));
            (
                HubError::Unreachable {
                    url,
                    cause,
                    tries: 1,
                },
                retry,
            )
        };
        Failed { error, verdict }
    }

    /// What an answer that is neither a success nor a redirect means: its status, its
    /// `body` (read whole; `html` when it is a page) and, for a 401, the scheme its
    /// `WWW-Authenticate` asks for (`challenge`).
    fn refusal(
        &self,
        status: StatusCode,
        body: &[u8],
        html: bool,
        challenge: Option<String>,
        url: String,
    ) -> HubError {
        let doc = serde_json::from_slice::<ErrorDoc>(body).ok();
        // The hub API's own error document: both keys.
        let hubs = doc
            .as_ref()
            .filter(|d| d.status.as_ref().is_some_and(serde_json::Value::is_u64));
        let hubs = hubs.and_then(|d| d.message.clone());
        match (status, hubs) {
            (StatusCode::UNAUTHORIZED, Some(_)) => HubError::Unauthorized { url },
            (StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN, None) => HubError::NotByHub {
                url,
                status: status.as_u16(),
                answer: Body::of(body, html),
                challenge,
            },
            (StatusCode::FORBIDDEN, Some(message)) if message.starts_with(INVALID_CREDENTIALS) => {
                HubError::Unauthorized { url }
            }
            (StatusCode::FORBIDDEN, Some(message)) => HubError::MissingScope {
                scopes: required_scopes(&message),
                url,
            },
            (StatusCode::NOT_FOUND, _) => wrong_base(url, WrongAnswer::NotFound),
            (s, _) => HubError::Status {
                url,
                status: s.as_u16(),
                hub_message: doc.and_then(|d| d.message).map(|m| self.echoed(&m)),
                tries: 1,
            },
        }
    }

    /// Text the hub (or a proxy in front of it) sent, with the token hidden in every form
    /// ([`Secrets::redact_echo`]), then made safe for a message ([`hub_text`]).
    fn echoed(&self, text: &str) -> String {
        hub_text(&self.secrets.redact_echo(text))
    }
}

/// `url` is not the hub's API: it `answer`ed.
fn wrong_base(url: String, answer: WrongAnswer) -> HubError {
    HubError::WrongBase { url, answer }
}

/// A failed try of a page's GET: the error it means, and whether it is worth another try.
struct Failed {
    error: HubError,
    verdict: Verdict,
}

impl From<HubError> for Failed {
    fn from(error: HubError) -> Self {
        Self {
            error,
            verdict: Verdict::Final,
        }
    }
}

/// The running servers, listed ([`HubClient::list_active_servers`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Listing {
    /// The servers, in the hub's order (users by id, each user's servers by name).
    pub(crate) servers: Vec<Server>,
    /// Users listed (each has one or more servers, or none left by the time the hub built
    /// its answer).
    pub(crate) users: u64,
    /// Requests sent (all GET).
    pub(crate) requests: u32,
    /// Whether the hub's count of users with running servers changed between the first and
    /// the last page, or a user came again on a later page (counted once): with offset
    /// paging a user may then have been skipped, so the numbers are a snapshot to take again.
    pub(crate) shifted: bool,
}

/// The paginated answer; fields not named here are skipped without being kept.
#[derive(Deserialize)]
struct PageDoc {
    items: Vec<UserDoc>,
    #[serde(rename = "_pagination")]
    pagination: PaginationDoc,
}

#[derive(Deserialize)]
struct PaginationDoc {
    total: u64,
    next: Option<NextDoc>,
}

/// `_pagination.next`; its `url` is deliberately not read (see the module documentation).
#[derive(Deserialize)]
struct NextDoc {
    offset: u64,
    limit: u64,
}

#[derive(Deserialize)]
struct UserDoc {
    name: String,
    /// Absent without `read:servers`.
    servers: Option<BTreeMap<String, ServerDoc>>,
}

/// A server's model; its times as the hub wrote them, read by [`ServerDoc::server`] (an
/// absent `Option` reads as `None`, serde's rule for `Option` fields).
#[derive(Deserialize)]
struct ServerDoc {
    started: Option<String>,
    last_activity: Option<String>,
    #[serde(default)]
    ready: bool,
    pending: Option<Pending>,
}

impl ServerDoc {
    /// The server `name` of the `index`th user of a page, `user`, with its times in UTC
    /// within the years 0000 to 9999 ([`crate::support::time::parse_iso8601`]: JupyterHub
    /// writes `2026-11-30T14:05:09.123456Z`, `utils.isoformat`).
    ///
    /// # Errors
    /// [`Fault::Time`] naming the field, and the user and server when `names` is set.
    fn server(self, index: usize, user: &str, name: String, names: bool) -> Result<Server, Fault> {
        let time = |text: Option<String>, field| {
            text.map(|text| {
                crate::support::time::parse_iso8601(&text).map_err(|error| Fault::Time {
                    index,
                    whose: names.then(|| (hub_text(user), hub_text(&name))),
                    field,
                    text: hub_text(&text),
                    error,
                })
            })
            .transpose()
        };
        let times = ServerTimes {
            started: time(self.started, "started")?,
            last_activity: time(self.last_activity, "last_activity")?,
        };
        Ok(Server {
            user: user.to_string(),
            name,
            times,
            ready: self.ready,
            pending: self.pending,
        })
    }
}

/// The start of the 403 message for a missing or unknown token (JupyterHub 6.1.1
/// `scopes.py` `needs_scope`: "Missing or invalid credentials.").
const INVALID_CREDENTIALS: &str = "Missing or invalid credentials";

/// JupyterHub's error document, `{"status": N, "message": "..."}` (JupyterHub 6.1.1
/// `handlers/base.py` `write_error` writes both keys for every API error); a proxy's JSON
/// may carry a `message` alone.
#[derive(Deserialize)]
struct ErrorDoc {
    status: Option<serde_json::Value>,
    message: Option<String>,
}

/// The innermost error of `err`'s source chain, in its words (`Connection refused (os error
/// 111)`, `failed to lookup address information: …`): the cause a user can act on, without
/// the wrappers above it (reqwest's "error sending request for url (…)", which repeats the
/// URL the message already names, hyper's "client error (Connect)").
pub(crate) fn root_cause(err: &(dyn std::error::Error + 'static)) -> String {
    let chain = std::iter::successors(Some(err), |e| e.source());
    chain.last().map_or_else(String::new, ToString::to_string)
}

/// Whether `err` is a TLS handshake that met plain HTTP: somewhere in its source chain (or
/// inside an [`std::io::Error`] of it, where hyper-rustls puts rustls' error and whose
/// `source` skips it) a [`rustls::Error::InvalidMessage`] of
/// [`rustls::InvalidMessage::InvalidContentType`]: the first byte read was no TLS record type,
/// as the `H` of an `HTTP/1.1 400` answer is not (rustls 0.23.46
/// `msgs/message/outbound.rs` `read_opaque_message_header`, mapped in `msgs/deframer`).
fn plain_http_on_tls(err: &(dyn std::error::Error + 'static)) -> bool {
    type Error = dyn std::error::Error + 'static;
    fn inside_io<'a>(e: &&'a Error) -> Option<&'a Error> {
        let io = e.downcast_ref::<std::io::Error>()?;
        io.get_ref().map(|i| i as &Error)
    }
    std::iter::successors(Some(err), |e| e.source())
        .flat_map(|e| std::iter::successors(Some(e), inside_io))
        .any(|e| {
            matches!(
                e.downcast_ref::<rustls::Error>(),
                Some(rustls::Error::InvalidMessage(
                    rustls::InvalidMessage::InvalidContentType
                ))
            )
        })
}

/// The authentication scheme of a `WWW-Authenticate` value's first challenge (`Basic`,
/// `Bearer`, `Negotiate`: RFC 9110 §11.1, a token; parsed by `http-auth`, as the registry's
/// challenges are), at most 32 characters; `None` when the value holds none.
fn auth_scheme(value: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(value).ok()?;
    let first = http_auth::ChallengeParser::new(text).next()?.ok()?;
    (first.scheme.len() <= 32).then(|| first.scheme.to_string())
}

/// The scopes in a 403's "… requires any of [a, b]" (JupyterHub `scopes.py`
/// `needs_scope`), each checked to look like a scope; empty when there are none.
fn required_scopes(message: &str) -> Vec<String> {
    let Some((_, rest)) = message.split_once("requires any of [") else {
        return Vec::new();
    };
    let Some((list, _)) = rest.split_once(']') else {
        return Vec::new();
    };
    list.split(',')
        .map(str::trim)
        .filter(|s| {
            !s.is_empty()
                && s.len() <= 64
                && s.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b':' | b'_' | b'-'))
        })
        .map(str::to_string)
        .collect()
}

/// Hub-sent text made safe for a message: one line, no control or invisible characters,
/// at most 200 characters.
fn hub_text(text: &str) -> String {
    crate::support::sanitize::clean_line(text, crate::support::sanitize::DEFAULT_MAX_CHARS)
}

fn first_byte(body: &[u8]) -> Option<u8> {
    body.iter().copied().find(|b| !b.is_ascii_whitespace())
}

#[cfg(test)]
mod tests;
