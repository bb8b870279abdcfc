//! The words of [`HubError`]: what failed (the URL asked, the hub's answer, the tries), then
//! what to do, chosen by variant (and, for [`HubError::Status`], by the status: a 5xx, a 429,
//! or an answer the hub's API does not give).

use crate::status::hub::HubError;
use crate::status::hub::ROLE_NAME;
use crate::status::hub::SCOPES;
use crate::status::hub::WrongAnswer;
use std::fmt;

impl fmt::Display for HubError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&message(self))?;
        match help(self) {
            None => Ok(()),
            // The fix completes the sentence that names what is wrong.
            Some(help) if colon_before_help(self) => write!(f, ": {help}"),
            Some(help) => write!(f, "; {help}"),
        }
    }
}

impl fmt::Display for WrongAnswer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WrongAnswer::NotFound => f.write_str("it answered 404"),
            WrongAnswer::HtmlPage => f.write_str("it answered an HTML page"),
            WrongAnswer::Redirect { location: Some(l) } => write!(f, "it redirected to {l}"),
            WrongAnswer::Redirect { location: None } => f.write_str("it redirected"),
        }
    }
}

/// Whether the help follows the message after a colon (it says what to give instead) rather
/// than a semicolon.
fn colon_before_help(e: &HubError) -> bool {
    matches!(
        e,
        HubError::InvalidBase { .. } | HubError::InvalidToken | HubError::WrongBase { .. }
    )
}

/// What failed, with what input, without the fix.
fn message(e: &HubError) -> String {
    match e {
        HubError::InvalidBase { given } => format!("hub URL {given:?} is not usable"),
        HubError::InvalidToken => {
            "the hub API token contains characters that cannot be sent in an HTTP header".into()
        }
        HubError::Unreachable { url, cause, tries } => {
            format!(
                "cannot reach the hub at {url}{}: {cause}",
                after_tries(*tries)
            )
        }
        HubError::PlainHttpOnTls { url } => format!(
            "{url} answered plain HTTP on a TLS connection: hub-url says https:// but that port serves plain HTTP"
        ),
        HubError::Timeout { url, after } => format!(
            "the hub at {url} did not answer within {}",
            humantime::format_duration(*after)
        ),
        HubError::Unauthorized { url } => format!(
            "the hub at {url} did not accept the token (missing or invalid credentials): the token is unknown, expired or revoked"
        ),
        HubError::MissingScope { scopes, url } => format!(
            "the token cannot list the running servers at {url}: it lacks the scope {}",
            scope_words(scopes)
        ),
        HubError::ForbiddenNotByHub { url, answer } => format!(
            "{url} answered 403 Forbidden with {answer} instead of the hub API's error (JSON with status and message): the refusal came from something in front of the hub's API, not from the hub"
        ),
        HubError::UnauthorizedNotByHub {
            url,
            answer,
            challenge,
        } => format!(
            "{url} answered 401 Unauthorized with {answer} instead of the hub API's error (JSON with status and message){}: the login that failed is that of something in front of the hub's API (an ingress's or proxy's own authentication, e.g. basic auth or an OAuth2 proxy), not the hub's, so the hub token is not the cause",
            challenge
                .as_ref()
                .map(|c| format!(", and asked for {c} authentication (WWW-Authenticate: {c})"))
                .unwrap_or_default()
        ),
        HubError::WrongBase { url, answer, .. } => {
            format!("{url} is not the hub's API ({answer})")
        }
        HubError::TooOld { url } => format!(
            "the hub at {url} answered without pagination: it is older than JupyterHub 2.0, which status needs (paginated user lists, roles and scopes)"
        ),
        HubError::NotJson { url, detail } => format!(
            "the hub at {url} answered with a body that is not JSON ({detail}): the hub's API answers JSON, so something else answered"
        ),
        HubError::Malformed { url, detail } => {
            format!("the hub at {url} answered JSON that is not a user list: {detail}")
        }
        HubError::Status {
            url,
            status,
            hub_message,
            tries,
        } => format!(
            "the hub at {url} answered {status}{}{}",
            after_tries(*tries),
            hub_message
                .as_ref()
                .map(|m| format!(": {m}"))
                .unwrap_or_default()
        ),
    }
}

/// What to do, chosen by variant; `None` when the message is all there is to say.
fn help(e: &HubError) -> Option<String> {
    let help = match e {
        HubError::InvalidBase { .. } => {
            "give the hub's address with http:// or https://, e.g. https://hub.example.org".into()
        }
        HubError::InvalidToken => "copy the token again, without line breaks".into(),
        HubError::Unreachable { .. } => {
            "check hub-url and that this runner can reach the hub".into()
        }
        HubError::PlainHttpOnTls { .. } => "give hub-url with http:// if the hub is served without TLS there, or check the port (the one that serves HTTPS, usually 443)".into(),
        HubError::Timeout { .. } => "check that the hub is up, or try again later".into(),
        HubError::Unauthorized { .. } => {
            format!("give the apiToken of the hub service with role {ROLE_NAME}")
        }
        HubError::MissingScope { .. } => format!(
            "grant the token's owner the role {ROLE_NAME} with scopes {} (hub.loadRoles, see README)",
            SCOPES.join(", ")
        ),
        HubError::ForbiddenNotByHub { .. } => "check the proxies, the ingress and any IP allow-list or firewall between this runner and the hub, and that hub-url is the hub's address (<hub-url>/hub/api/ is the API)".into(),
        HubError::UnauthorizedNotByHub { .. } => "let this runner reach <hub-url>/hub/api/ without that login (the hub checks its own tokens there), and check that hub-url is the hub's address".into(),
        HubError::WrongBase { suggested_base, .. } => format!(
            "give hub-url as the hub's address without /hub/api, so that <hub-url>/hub/api/ is the API{}",
            suggested_base
                .as_ref()
                .map(|b| format!(", here probably {b}"))
                .unwrap_or_else(|| UNDER_A_BASE_URL.to_string())
        ),
        HubError::TooOld { .. } => "upgrade the hub (Zero to JupyterHub 2.0 or later)".into(),
        HubError::NotJson { .. } => "check that hub-url is the hub's address (<hub-url>/hub/api/ is the API) and what is in front of the hub (a proxy or ingress)".into(),
        HubError::Malformed { .. } => return None,
        HubError::Status { status, .. } => status_advice(*status).into(),
    };
    Some(help)
}

/// What [`HubError::WrongBase`] adds when no other base is suggested: a hub served under a
/// base URL (JupyterHub's `c.JupyterHub.base_url`, z2jh's `hub.baseUrl`), given without it,
/// answers 404 at `<hub-url>/hub/api/`.
const UNDER_A_BASE_URL: &str = "; the hub may be served under a base URL (JupyterHub's base_url, z2jh's hub.baseUrl, e.g. /jh/): then hub-url includes it, e.g. https://host/jh, which is everything before /hub/ in the address users open";

/// What to do about an answer with HTTP `status` that [`HubError::Status`] reports: a 5xx is
/// the hub's failure or that of a proxy in front of it (configurable-http-proxy answers 503
/// while the hub is down, an ingress 502 or 504; JupyterHub 500 for an exception in its
/// handler), a 429 a rate limit; any other is not an answer the hub's API gives to this
/// request, so the address is the likely cause.
fn status_advice(status: u16) -> &'static str {
    match status {
        429 => {
            "the hub, or a proxy in front of it, limits how often it is asked: run status less often (e.g. a less frequent schedule), or later"
        }
        500..=599 => {
            "the hub, or a proxy or ingress in front of it, failed: check that the hub is up and look at its log and the proxy's, then try again later"
        }
        _ => {
            "not an answer of the hub's API to this request: check that hub-url is the hub's address (<hub-url>/hub/api/ is the API)"
        }
    }
}

/// " after N tries" when a request was tried more than once, else nothing.
fn after_tries(tries: u32) -> String {
    if tries > 1 {
        format!(" after {tries} tries")
    } else {
        String::new()
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
