//! What went wrong talking to the hub, as data: its words are the render layer's
//! ([`crate::render::status`], `hub_words.rs`).

use crate::support::text::Unreadable;
use crate::support::time::TimeError;
use std::time::Duration;

/// What went wrong talking to the hub, as data. Every variant names the URL asked (never the
/// token) and carries what the user needs to fix it; its words, and the fix chosen by
/// variant, are the render layer's ([`crate::render::status`], `Display`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum HubError {
    /// No client could be made for the hub at `url`: no request was sent
    /// ([`super::HubClient::new`]).
    Client {
        /// The hub's base URL, as given.
        url: String,
        /// Why, in the words of the library that failed (the URL parser, the header, the
        /// builder's root cause), one line.
        cause: String,
    },
    /// No answer: DNS, connection refused, TLS, or the connection broke.
    Unreachable {
        /// The URL asked.
        url: String,
        /// The transport's root cause, in its words: the innermost error of its source
        /// chain (reqwest's outer "error sending request for url (…)" would repeat the URL),
        /// cleaned to one line; never contains the token.
        cause: String,
        /// Tries made (each a connection error; see the module documentation).
        tries: u32,
    },
    /// An `https://` hub URL whose port answered plain HTTP to the TLS handshake: rustls'
    /// [`rustls::Error::InvalidMessage`] with [`rustls::InvalidMessage::InvalidContentType`]
    /// ("received corrupt message of type InvalidContentType": the answer's first byte,
    /// `H` of `HTTP/1.1`, is no TLS record type).
    /// Not tried again: a TLS failure ([`crate::support::retry::Verdict::Final`]).
    PlainHttpOnTls {
        /// The URL asked.
        url: String,
    },
    /// No complete answer within the timeout.
    Timeout {
        /// The URL asked.
        url: String,
        /// The timeout applied.
        after: Duration,
    },
    /// The hub does not know the token: JupyterHub 6.1.1 answers 403 "Missing or invalid
    /// credentials." (`scopes.py` `needs_scope`); a 401 in the hub's own error document
    /// (`{"status": 401, "message": …}`) counts too. A 401 in any other shape is
    /// [`HubError::NotByHub`].
    Unauthorized {
        /// The URL asked.
        url: String,
    },
    /// The token lacks a scope: a 403 "requires any of [...]", or (for `read:servers`) a 200
    /// whose users come without their `servers`.
    MissingScope {
        /// The scopes the hub said it requires (any one of them); empty when its 403 did not
        /// say.
        scopes: Vec<String>,
        /// The URL asked.
        url: String,
    },
    /// A 401 or 403 that is not the hub API's error (JupyterHub's `{"status": N, "message":
    /// …}`, `handlers/base.py` `write_error`): an HTML page, text or nothing from something in
    /// front of the hub. A 403 comes from a proxy, an ingress, a firewall or an IP
    /// allow-list, not from a missing scope; a 401 from its own authentication (an ingress's
    /// basic auth, an OAuth2 proxy), so the request never reached the hub and the hub token
    /// is not what failed.
    NotByHub {
        /// The URL asked.
        url: String,
        /// 401 or 403.
        status: u16,
        /// What came back instead.
        answer: Body,
        /// The authentication scheme of the answer's `WWW-Authenticate` (RFC 9110 §11.6.1),
        /// e.g. `Basic`, when it names one.
        challenge: Option<String>,
    },
    /// The answer was not the hub's API: a 404, an HTML page (a login page, an ingress's
    /// page) or a redirect.
    WrongBase {
        /// The URL asked.
        url: String,
        /// What came back.
        answer: WrongAnswer,
    },
    /// A bare JSON array: a hub older than JupyterHub 2.0.
    TooOld {
        /// The URL asked.
        url: String,
    },
    /// A 2xx answer whose body is not JSON at all (nor an HTML page, [`HubError::WrongBase`]):
    /// not what the hub's API writes.
    NotJson {
        /// The URL asked.
        url: String,
        /// serde_json's words: what was expected, at which line and column.
        detail: String,
    },
    /// JSON that is not the hub's user list.
    Malformed {
        /// The URL asked.
        url: String,
        /// What is wrong with it (boxed: a time's fault is large).
        fault: Box<Fault>,
    },
    /// Any other HTTP status (what to do depends on it: a 5xx, a 429, or another).
    Status {
        /// The URL asked.
        url: String,
        /// The HTTP status code (of the last try).
        status: u16,
        /// The hub's own `message`, cleaned to one line and capped, when it gave one.
        hub_message: Option<String>,
        /// Tries made (429 and 5xx are tried again; see the module documentation).
        tries: u32,
    },
}

impl std::error::Error for HubError {}

impl HubError {
    /// This error as the last of `tries` tries: the count is kept by the variants a try can
    /// end in and be tried again ([`HubError::Unreachable`], [`HubError::Status`]); the
    /// others are returned as they are.
    pub(super) fn after(mut self, tries: u32) -> Self {
        match &mut self {
            HubError::Unreachable { tries: t, .. } | HubError::Status { tries: t, .. } => {
                *t = tries;
            }
            _ => {}
        }
        self
    }
}

/// What a [`HubError::WrongBase`] got back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum WrongAnswer {
    /// HTTP 404.
    NotFound,
    /// An HTML page (status 2xx).
    HtmlPage,
    /// A redirect (3xx) to `location` (cleaned to one line and capped).
    Redirect {
        /// The `Location` header, if any.
        location: Option<String>,
    },
}

/// What came back instead of the hub API's error document, for [`HubError::NotByHub`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Body {
    /// An HTML page (by `Content-Type`, or a body starting with `<`).
    Html,
    /// Nothing (or white space).
    Empty,
    /// JSON in another shape.
    OtherJson,
    /// Text that is not JSON.
    NotJson,
}

impl Body {
    /// What `body` (read whole; `html`: its `Content-Type` says HTML) is.
    pub(crate) fn of(body: &[u8], html: bool) -> Self {
        if html {
            Body::Html
        } else if body.iter().all(u8::is_ascii_whitespace) {
            Body::Empty
        } else if serde_json::from_slice::<serde::de::IgnoredAny>(body).is_ok() {
            Body::OtherJson
        } else {
            Body::NotJson
        }
    }
}

/// What is wrong with JSON that is not the hub's user list ([`HubError::Malformed`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Fault {
    /// Another shape: a field that is missing or holds another type or value than the hub's
    /// API writes there (JupyterHub 6.1.1 `apihandlers/base.py` `user_model`, `server_model`,
    /// `paginated_model`): its path (`.` for the answer itself; a server's name as `(server)` when names are
    /// left out), cleaned to one line with the token hidden.
    Shape(Unreadable),
    /// The body is larger than `limit` bytes ([`super::MAX_PAGE_BYTES`]).
    TooLarge {
        /// The largest body read.
        limit: usize,
    },
    /// `_pagination.next` goes on past `pages` pages ([`super::MAX_PAGES`]).
    EndlessPages {
        /// The most pages followed.
        pages: u32,
    },
    /// `_pagination.next` does not move forward: from `offset` to `next_offset` with
    /// `next_limit` (at most the offset, or a limit of 0).
    NextGoesBack {
        /// The page's offset.
        offset: u64,
        /// The offset `next` gives.
        next_offset: u64,
        /// The limit `next` gives.
        next_limit: u64,
    },
    /// A server's time (`field`: `started` or `last_activity`) that is not ISO 8601 or not
    /// within the years 0000 to 9999 in UTC ([`crate::support::time::parse_iso8601`]): the
    /// invariant every later stage relies on to compute and write times without panicking.
    /// One such server fails the run: JupyterHub writes ISO 8601 or null (`utils.isoformat`),
    /// so the answer is not the hub's as it is, and no count is made from part of it.
    Time {
        /// The user's index in the page's `items`.
        index: usize,
        /// The user and the server, as the hub gave them (cleaned to one line); `None` when
        /// names are left out ([`super::HubClient::naming`]).
        whose: Option<(String, String)>,
        /// `started` or `last_activity`.
        field: &'static str,
        /// The time as the hub wrote it (cleaned to one line).
        text: String,
        /// Why it was refused.
        error: TimeError,
    },
}
