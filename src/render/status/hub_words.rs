//! The words of [`HubError`]: what failed, with the URL asked, then what to do, chosen by
//! variant (and, for [`HubError::Status`], by the status: a 5xx, a 429, or an answer the
//! hub's API does not give). What the hub or the transport said comes last, as evidence.

use crate::render::words::{Words, unreadable_words};
use crate::status::hub::Body;
use crate::status::hub::Fault;
use crate::status::hub::HubError;
use crate::status::hub::ROLE_NAME;
use crate::status::hub::SCOPES;
use crate::status::hub::WrongAnswer;
use std::fmt;

impl fmt::Display for HubError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        hub_error(self).fmt(f)
    }
}

/// Where the hub's API is, as every help that doubts the address says it.
const THE_API: &str = "(<hub-url>/hub/api/ is the API)";

/// `err` in words: one arm per variant, both halves.
pub(crate) fn hub_error(err: &HubError) -> Words {
    match err {
        HubError::Unreachable { url, cause, tries } => {
            Words::new(format!("cannot reach the hub at {url}{}", after_tries(*tries)))
                .because(cause)
                .help("check hub-url and that this runner can reach the hub")
        }
        HubError::Client { url, cause } => {
            Words::new(format!("cannot set up the HTTP client for the hub at {url}")).because(cause)
        }
        HubError::PlainHttpOnTls { url } => {
            Words::new(format!("{url} answered plain HTTP on a TLS connection")).help(
                "hub-url says https:// but that port serves plain HTTP: give hub-url with http:// if the hub is served without TLS there, or check the port (the one that serves HTTPS, usually 443)",
            )
        }
        HubError::Timeout { url, after } => Words::new(format!(
            "the hub at {url} did not answer within {}",
            humantime::format_duration(*after)
        ))
        .help("check that the hub is up, or try again later"),
        HubError::Unauthorized { url } => {
            Words::new(format!("the hub at {url} did not accept the token")).help(format!(
                "the token is unknown, expired or revoked (missing or invalid credentials): give the apiToken of the hub service with role {ROLE_NAME}"
            ))
        }
        HubError::MissingScope { scopes, url } => Words::new(format!(
            "the token cannot list the running servers at {url}"
        ))
        .help(format!(
            "it lacks the scope {}: grant the token's owner the role {ROLE_NAME} with scopes {} (hub.loadRoles, see README)",
            scope_words(scopes),
            SCOPES.join(", ")
        )),
        HubError::NotByHub {
            url,
            status,
            answer,
            challenge,
        } => {
            let not_the_hubs = "that is not the hub API's error (JSON with status and message)";
            let (answered, help) = match status {
                401 => ("401 Unauthorized", format!(
                    "{not_the_hubs}{}: the login that failed is that of something in front of the hub's API (an ingress's or proxy's own authentication, e.g. basic auth or an OAuth2 proxy), not the hub's, so the hub token is not the cause; let this runner reach <hub-url>/hub/api/ without that login (the hub checks its own tokens there), and check that hub-url is the hub's address",
                    challenge
                        .as_ref()
                        .map(|c| format!(", and it asked for {c} authentication (WWW-Authenticate: {c})"))
                        .unwrap_or_default()
                )),
                _ => ("403 Forbidden", format!(
                    "{not_the_hubs}: the refusal came from something in front of the hub's API, not from the hub; check the proxies, the ingress and any IP allow-list or firewall between this runner and the hub, and that hub-url is the hub's address {THE_API}"
                )),
            };
            Words::new(format!("{url} answered {answered} with {}", body_words(*answer))).help(help)
        }
        HubError::WrongBase { url, answer } => wrong_base(url, answer),
        HubError::TooOld { url } => Words::new(format!("the hub at {url} answered without pagination")).help(
            "it is older than JupyterHub 2.0, which status needs (paginated user lists, roles and scopes): upgrade the hub (Zero to JupyterHub 2.0 or later)",
        ),
        HubError::NotJson { url, detail } => Words::new(format!(
            "the hub at {url} answered a body that is not JSON"
        ))
        .help(format!(
            "the hub's API answers JSON, so something else answered ({detail}): check that hub-url is the hub's address {THE_API} and what is in front of the hub (a proxy or ingress)"
        )),
        HubError::Malformed { url, fault } => {
            let (cause, help) = fault_words(fault);
            Words::new(format!("the hub at {url} answered JSON that is not a user list"))
                .because(&cause)
                .help(help)
        }
        HubError::Status {
            url,
            status,
            hub_message,
            tries,
        } => {
            let words = Words::new(format!(
                "the hub at {url} answered {status}{}",
                after_tries(*tries)
            ));
            match hub_message {
                Some(m) => words.because(&format!("the hub said: {m}")),
                None => words,
            }
            .help(status_advice(*status))
        }
    }
}

/// [`HubError::WrongBase`] in words: `url` answered `answer`; how to find the base to give
/// (the command line refused a `hub-url` that is one of the hub's pages before asking): a
/// hub served under a base URL (JupyterHub's `c.JupyterHub.base_url`, z2jh's `hub.baseUrl`),
/// given without it, answers 404 at `<hub-url>/hub/api/`.
fn wrong_base(url: &str, answer: &WrongAnswer) -> Words {
    let (answered, location) = match answer {
        WrongAnswer::NotFound => ("it answered 404", None),
        WrongAnswer::HtmlPage => ("it answered an HTML page", None),
        WrongAnswer::Redirect { location } => ("it redirected", location.as_ref()),
    };
    Words::new(format!("{url} is not the hub's API ({answered})")).help(format!(
        "{}give hub-url as the hub's address without /hub/api, so that <hub-url>/hub/api/ is the API; the hub may be served under a base URL (JupyterHub's base_url, z2jh's hub.baseUrl, e.g. /jh/): then hub-url includes it, e.g. https://host/jh, which is everything before /hub/ in the address users open",
        location.map(|l| format!("it redirected to {l}: ")).unwrap_or_default(),
    ))
}

/// What to do about an answer with HTTP `status` that [`HubError::Status`] reports: a 5xx is
/// the hub's failure or that of a proxy in front of it (configurable-http-proxy answers 503
/// while the hub is down, an ingress 502 or 504; JupyterHub 500 for an exception in its
/// handler), a 429 a rate limit; any other is not an answer the hub's API gives to this
/// request, so the address is the likely cause.
fn status_advice(status: u16) -> String {
    match status {
        429 => "the hub, or a proxy in front of it, limits how often it is asked: run status less often (e.g. a less frequent schedule), or later".into(),
        500..=599 => "the hub, or a proxy or ingress in front of it, failed: check that the hub is up and look at its log and the proxy's, then try again later".into(),
        _ => format!("not an answer of the hub's API to this request: check that hub-url is the hub's address {THE_API}"),
    }
}

/// What came back instead of the hub API's error.
fn body_words(body: Body) -> &'static str {
    match body {
        Body::Html => "an HTML page",
        Body::Empty => "an empty body",
        Body::OtherJson => "other JSON",
        Body::NotJson => "a non-JSON body",
    }
}

/// What is wrong with a page that is JSON but not the hub's user list (the cause), and what
/// to do.
fn fault_words(fault: &Fault) -> (String, String) {
    let address = format!(
        "check that hub-url is the hub's address {THE_API} and what is in front of the hub (a proxy or ingress)"
    );
    let paging = "the hub, or a proxy in front of it, pages wrongly: check what is in front of the hub (a proxy or ingress), then try again later";
    let check_times = "check that server's times in the hub";
    match fault {
        Fault::Shape(shape) if shape.field == "." => {
            ("the answer is not a JSON object".into(), address)
        }
        Fault::Shape(shape) => (unreadable_words("", shape, "the hub's API"), address),
        Fault::TooLarge { limit } => (format!("the answer is larger than {limit} bytes"), address),
        Fault::EndlessPages { pages } => (
            format!("its next links go on past {pages} pages"),
            paging.to_string(),
        ),
        Fault::NextGoesBack {
            offset,
            next_offset,
            next_limit,
        } => (
            format!(
                "_pagination.next goes from offset {offset} to offset {next_offset} (limit {next_limit})"
            ),
            paging.to_string(),
        ),
        Fault::Time {
            index,
            whose: Some((user, server)),
            field,
            text,
            error,
        } => (
            format!(
                "items[{index}].servers: {field} of user {user:?}, server {server:?}: {text} {error}"
            ),
            format!("{check_times} (GET /hub/api/users/NAME), or stop it"),
        ),
        Fault::Time {
            index,
            whose: None,
            field,
            text,
            error,
        } => (
            format!("items[{index}].servers: {field} of a server: {text} {error}"),
            format!(
                "{check_times} (the user at items[{index}] of that page: names are left out of the log, run status with include-names: true to see them), or stop it"
            ),
        ),
    }
}

/// " after N tries" when a request was tried more than once, else nothing.
fn after_tries(tries: u32) -> String {
    match tries {
        0 | 1 => String::new(),
        n => format!(" after {n} tries"),
    }
}

/// The scopes a 403 said the token lacks (any one of them), or both of [`SCOPES`] when it
/// did not say.
fn scope_words(scopes: &[String]) -> String {
    match scopes {
        [] => format!("{} (the hub did not say which)", SCOPES.join(" or ")),
        [one] => one.clone(),
        many => format!("(any of) {}", many.join(", ")),
    }
}
