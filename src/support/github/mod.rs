//! The GitHub edge: a small client over `octocrab` for the few REST calls codeq-rollout makes.
//!
//! One octocrab client, built without octocrab's retry layer (its `retry` feature is off; its
//! `HandleRateLimits` retries a 5xx at once, without backoff): reads are retried here on 5xx,
//! 429, rate limits and transport failures by the one retry policy
//! ([`crate::support::retry`], [`read_verdict`]); writes are never retried, because a POST
//! that may have succeeded must be followed by a fresh look-up, not a second POST (octocrab's
//! retry would re-send it). Every request has a timeout ([`Options`]). Responses are decoded into
//! the small, tolerant structs of [`models`] rather than octocrab's full models.
//!
//! The client is built at the first request, not before (a dry run whose tier needs no
//! look-up builds none), on a `reqwest` client that reads and writes share (one connection
//! pool) and whose TLS verifier reads the system trust roots only at a first handshake
//! ([`crate::support::tls::client_config`]).
//!
//! The base URL is injectable (`GITHUB_API_URL`), so GitHub Enterprise Server
//! (`https://HOST/api/v3`) and the tests' fake server take the same path through the code.

pub(crate) mod error;
mod failed;
pub(crate) mod models;

pub(crate) use error::{Action, GitHubError, Kind, Problem};
pub(crate) use failed::read_verdict;

use crate::support::retry::{RetryPolicy, TokioTimer};
use crate::support::secrets::{ExposeSecret, SecretString, Secrets};
use http::{HeaderValue, Method};
use models::{
    BodyOnly, Comment, Deployment, DeploymentStatus, Issue, PullRequest, Release, ReleasePatch,
};
use octocrab::Octocrab;
use serde::Serialize;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

/// An `owner/repo` pair.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repository {
    /// The owner (user or organisation).
    pub(crate) owner: String,
    /// The repository name.
    pub(crate) name: String,
}

/// Why a text is not a repository's `OWNER/REPO` ([`Repository::parse`]). Its words are the
/// render layer's (`crate::render::usage_words`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RepositoryError {
    /// No `/`, or more than one.
    Form,
    /// The owner breaks GitHub's rule.
    Owner,
    /// The repository name breaks GitHub's rule.
    Name,
}

/// GitHub's longest login, a user or organisation name (its sign-up form's limit), before an
/// Enterprise Managed User's `_shortcode` ([`is_login`]).
pub(crate) const LOGIN_MAX_CHARS: usize = 39;
/// GitHub's longest repository name (its new-repository form's limit).
pub(crate) const NAME_MAX_CHARS: usize = 100;

/// Whether `text` is a GitHub login (a user's or an organisation's), the one rule of a
/// repository's owner and an assignee: at most [`LOGIN_MAX_CHARS`] letters, digits and single
/// hyphens, not at either end (GitHub's sign-up form: "Username may only contain alphanumeric
/// characters or single hyphens, and cannot begin or end with a hyphen"), followed for an
/// Enterprise Managed User by `_` and the enterprise's short code (GitHub docs, "Username
/// considerations for external authentication": the normalized name, `_`, the short code, as
/// `octocat_acme`). Managed users own repositories too ("Abilities and restrictions of managed
/// user accounts": their own private repositories), under that login.
pub(crate) fn is_login(text: &str) -> bool {
    let alphanumeric = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric());
    let (login, shortcode) = text.split_once('_').unwrap_or((text, "a"));
    (1..=LOGIN_MAX_CHARS).contains(&login.len())
        && login.split('-').all(alphanumeric)
        && alphanumeric(shortcode)
}

impl Repository {
    /// Parses `owner/repo` (trimmed) by GitHub's naming rules: the owner a login
    /// (`is_login`: an organisation, or a user, an Enterprise Managed User's own
    /// repositories too); the name of at most `NAME_MAX_CHARS` letters, digits, `-`, `_` and
    /// `.`, not `.` or `..` (GitHub's new-repository form).
    ///
    /// # Errors
    /// `RepositoryError` saying which part breaks the rule.
    pub fn parse(text: &str) -> Result<Self, RepositoryError> {
        let (owner, name) = text.trim().split_once('/').ok_or(RepositoryError::Form)?;
        if name.contains('/') {
            return Err(RepositoryError::Form);
        }
        if !is_login(owner) {
            return Err(RepositoryError::Owner);
        }
        let name_ok = (1..=NAME_MAX_CHARS).contains(&name.len())
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
            && !matches!(name, "." | "..");
        if !name_ok {
            return Err(RepositoryError::Name);
        }
        Ok(Self {
            owner: owner.into(),
            name: name.into(),
        })
    }

    /// The `repository` input, `OWNER/REPO`, trimmed: by GitHub's naming rules ([`parse`],
    /// the rule `GITHUB_REPOSITORY` and the event are read by too), and not ending in
    /// [`GIT_SUFFIX`] (in any case): GitHub removes that from a new repository's name, so such
    /// a value is a clone URL's path, naming no repository.
    ///
    /// # Errors
    /// [`RepositoryRefused`]: the value as shown (its first [`REPOSITORY_SHOWN_MAX_CHARS`]
    /// characters) and the rule broken; for a `.git` ending, the value without it (every
    /// `.git` taken off) when that is a repository.
    ///
    /// [`parse`]: Repository::parse
    pub(crate) fn input(value: &str) -> Result<Self, RepositoryRefused> {
        let v = value.trim();
        let refused = |why| RepositoryRefused {
            shown: v.chars().take(REPOSITORY_SHOWN_MAX_CHARS).collect(),
            why,
        };
        let repository = Self::parse(v).map_err(|rule| refused(RepositoryProblem::Rule(rule)))?;
        // ASCII lowercasing keeps every byte offset, so the length kept is `v`'s too.
        let name = &v[..v.to_ascii_lowercase().trim_end_matches(GIT_SUFFIX).len()];
        if name.len() < v.len() {
            let without = Self::parse(name).is_ok().then(|| name.to_string());
            return Err(refused(RepositoryProblem::GitSuffix { without }));
        }
        Ok(repository)
    }
}

/// What a clone URL ends in, and no GitHub repository's name does: GitHub removes a trailing
/// `.git` (in any case) from the name a repository is created with (github/docs issue 44518,
/// "Missing documentation for repository name limits": "Repository names must not end with
/// `.git`"; also line/centraldogma issue 956, showing GitHub's form strip it).
const GIT_SUFFIX: &str = ".git";

/// The most characters of a refused `repository` value a message quotes.
const REPOSITORY_SHOWN_MAX_CHARS: usize = 200;

/// A `repository` input refused ([`Repository::input`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RepositoryRefused {
    /// The value as messages quote it: trimmed, its first [`REPOSITORY_SHOWN_MAX_CHARS`]
    /// characters.
    pub(crate) shown: String,
    /// The rule broken.
    pub(crate) why: RepositoryProblem,
}

/// Which rule a `repository` input breaks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RepositoryProblem {
    /// One of GitHub's naming rules ([`Repository::parse`]).
    Rule(RepositoryError),
    /// A `.git` ending ([`GIT_SUFFIX`]).
    GitSuffix {
        /// The value without its `.git` ending, when that is a repository.
        without: Option<String>,
    },
}

impl std::fmt::Display for Repository {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.owner, self.name)
    }
}

/// GitHub's longest environment name (Docs, "Managing environments for deployment":
/// "An environment name may not exceed 255 characters").
pub(crate) const ENVIRONMENT_MAX_CHARS: usize = 255;

/// A GitHub environment's name, checked by GitHub's rules ([`Environment::parse`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Environment(String);

/// Why a text is not an environment name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EnvironmentError {
    /// Empty (or only whitespace).
    Empty,
    /// Longer than [`ENVIRONMENT_MAX_CHARS`].
    TooLong,
    /// Holds a line break or another control character.
    Control,
    /// Holds an invisible character: a bidirectional control (U+202A–U+202E,
    /// U+2066–U+2069), a zero-width one (U+200B–U+200D, U+2060, U+FEFF) or another
    /// default-ignorable or format character ([`crate::support::sanitize::is_invisible`]).
    Invisible,
}

impl Environment {
    /// Parses an environment name (trimmed) by GitHub's rules: not empty, at most
    /// [`ENVIRONMENT_MAX_CHARS`] characters (GitHub Docs, "Managing environments for
    /// deployment"); no control characters (the name is a line of the Environments page) and
    /// no invisible ones (a bidirectional control or a zero-width character would make it
    /// read as another name).
    /// Names compare without case on GitHub ([`Environment::matches`]).
    ///
    /// # Errors
    /// [`EnvironmentError`] saying which rule the name breaks.
    pub(crate) fn parse(text: &str) -> Result<Self, EnvironmentError> {
        let name = text.trim();
        if name.is_empty() {
            return Err(EnvironmentError::Empty);
        }
        if name.chars().count() > ENVIRONMENT_MAX_CHARS {
            return Err(EnvironmentError::TooLong);
        }
        if name.chars().any(char::is_control) {
            return Err(EnvironmentError::Control);
        }
        if name.chars().any(crate::support::sanitize::is_invisible) {
            return Err(EnvironmentError::Invisible);
        }
        Ok(Self(name.to_string()))
    }

    /// The name as given (trimmed).
    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether `name` (a deployment's `environment`) is this environment: GitHub's names
    /// are not case sensitive.
    pub(crate) fn matches(&self, name: &str) -> bool {
        self.0.to_lowercase() == name.to_lowercase()
    }
}

/// Page size for list calls: GitHub's maximum, 100.
pub(crate) const PER_PAGE: usize = 100;

/// Where request lines go in debug mode: method and path, never headers.
pub(crate) type DebugSink = Arc<dyn Fn(&str) + Send + Sync>;

/// Timeouts and read retries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Options {
    /// How long to wait for a connection, and then for each read of an answer (default
    /// 30 s). A write that times out has an unknown outcome and is followed by a look-up.
    pub(crate) timeout: Duration,
    /// How reads are retried ([`RetryPolicy::reads`] by default).
    pub(crate) read_retry: RetryPolicy,
}

impl Default for Options {
    fn default() -> Self {
        Self::given(None, None)
    }
}

impl Options {
    /// The defaults, with the `timeout` and the wait before the first read retry
    /// (`retry_wait`, [`RetryPolicy::base_delay`]) where given.
    pub(crate) fn given(timeout: Option<Duration>, retry_wait: Option<Duration>) -> Self {
        let reads = RetryPolicy::reads();
        Self {
            timeout: timeout.unwrap_or(Duration::from_secs(30)),
            read_retry: RetryPolicy {
                base_delay: retry_wait.unwrap_or(reads.base_delay),
                ..reads
            },
        }
    }
}

/// The media type every request asks for, as GitHub's REST docs recommend ("Getting started
/// with the REST API", Media types): `application/vnd.github+json`.
pub(crate) const ACCEPT: &str = "application/vnd.github+json";

/// The `User-Agent` of every request, naming the tool and its version, which GitHub requires
/// ("Getting started with the REST API", User agent): e.g. `codeq-rollout/0.1.0`.
pub(crate) const USER_AGENT: &str = concat!("codeq-rollout/", env!("CARGO_PKG_VERSION"));

/// A GitHub REST client bound to one repository. A clone shares the octocrab client once
/// built and the counters (`GitHub::traffic`).
#[derive(Clone)]
pub struct GitHub {
    api_url: String,
    /// The `Authorization` header, `Bearer TOKEN`, marked sensitive.
    auth: HeaderValue,
    /// The token in every form, hidden in errors that echo it back (`GitHub::failed`).
    secrets: Secrets,
    client: OnceLock<Octocrab>,
    repo: Repository,
    options: Options,
    debug: Option<DebugSink>,
    /// What this client (and the clients [`GitHub::for_repository`] made from it) sent.
    sent: Arc<Mutex<Traffic>>,
}

/// The counters' lock is held only to add a number, which cannot panic.
const UNPOISONED: &str = "the traffic counters are never left mid-update";

/// What a client sent so far: requests (each read retry counts) and the time it waited
/// between read retries (backoff and `Retry-After`). Compare two readings to count one step.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Traffic {
    /// HTTP requests sent.
    pub(crate) requests: u64,
    /// Time slept before read retries.
    pub(crate) waited: Duration,
}

impl GitHub {
    /// A client for `repo` at `api_url` (e.g. `https://api.github.com`), authenticated with
    /// `token`, with the default `Options`. Makes no request, reads no file.
    ///
    /// # Errors
    /// An `api_url` that is not a URL.
    pub fn new(api_url: &str, token: &SecretString, repo: Repository) -> Result<Self, GitHubError> {
        Self::with_options(api_url, token, repo, Options::default())
    }

    /// As [`GitHub::new`], with explicit timeouts and read retries.
    ///
    /// # Errors
    /// An `api_url` that is not a URL, or a `token` that cannot be sent in an HTTP header
    /// (a line break or another control character inside it).
    pub(crate) fn with_options(
        api_url: &str,
        token: &SecretString,
        repo: Repository,
        options: Options,
    ) -> Result<Self, GitHubError> {
        // Refused without showing it.
        let mut auth = HeaderValue::from_str(&format!("Bearer {}", token.expose_secret()))
            .map_err(|_| GitHubError::new(Kind::Other, Problem::TokenNotAHeader))?;
        auth.set_sensitive(true);
        Octocrab::builder().base_uri(api_url).map_err(|e| {
            GitHubError::new(
                Kind::Other,
                Problem::UnusableApiUrl {
                    given: api_url.to_string(),
                    cause: e.to_string(),
                },
            )
        })?;
        Ok(Self {
            api_url: api_url.to_string(),
            auth,
            secrets: Secrets::of([token]),
            client: OnceLock::new(),
            repo,
            options,
            debug: None,
            sent: Arc::default(),
        })
    }

    /// The octocrab client, built at the first call.
    fn client(&self) -> Result<&Octocrab, GitHubError> {
        if let Some(client) = self.client.get() {
            return Ok(client);
        }
        let unusable = |e: &dyn std::fmt::Display| {
            GitHubError::new(
                Kind::Other,
                Problem::UnusableClient {
                    cause: e.to_string(),
                },
            )
        };
        // Redirects within the API's origin only (GitHub answers 301 for a renamed
        // repository, same host), so the token never reaches another server.
        let origin = url::Url::parse(&self.api_url).map_err(|e| unusable(&e))?;
        let redirects = crate::support::tls::same_origin_redirects(&origin);
        let http = reqwest::Client::builder()
            .tls_backend_preconfigured(crate::support::tls::client_config())
            .connect_timeout(self.options.timeout)
            .read_timeout(self.options.timeout)
            .redirect(redirects)
            .build()
            .map_err(|e| unusable(&e))?;
        // octocrab's own stack (`build_with_reqwest`) appends `User-Agent: octocrab` to
        // every request, beside any we add (octocrab 0.54, `OctocrabBuilder::prepare_config`
        // and its `ExtraHeadersLayer`, which appends): so the stack is assembled here from
        // octocrab's own layers, with our two headers and the token, and nothing else (no
        // retry, cache or redirect layer, as before).
        use octocrab::service::middleware::{
            auth_header::AuthHeaderLayer, base_uri::BaseUriLayer, extra_headers::ExtraHeadersLayer,
            reqwest_connector::ReqwestConnector,
        };
        let base: http::Uri = self.api_url.parse().map_err(|e| unusable(&e))?;
        let client = octocrab::OctocrabBuilder::new_empty()
            .with_service(ReqwestConnector::new(http))
            .with_layer(&ExtraHeadersLayer::new(Arc::new(vec![
                (http::header::ACCEPT, HeaderValue::from_static(ACCEPT)),
                (
                    http::header::USER_AGENT,
                    HeaderValue::from_static(USER_AGENT),
                ),
            ])))
            .with_layer(&BaseUriLayer::new(base.clone()))
            .with_layer(&AuthHeaderLayer::new(
                Some(self.auth.clone()),
                base.clone(),
                base,
            ))
            .with_auth(octocrab::AuthState::None)
            .build()
            .map_err(|e| unusable(&e))?;
        Ok(self.client.get_or_init(|| client))
    }

    /// Sends a line per request (method and path, never headers) to `sink`.
    pub(crate) fn with_debug(mut self, sink: DebugSink) -> Self {
        self.debug = Some(sink);
        self
    }

    /// The repository this client writes to.
    pub(crate) fn repository(&self) -> &Repository {
        &self.repo
    }

    /// The same client (token, base URL, options, debug sink) bound to `repo` instead: to
    /// read the pull requests of the repository an event came from when releases go to
    /// another (the `repository` input). Makes no request.
    pub(crate) fn for_repository(&self, repo: Repository) -> Self {
        Self {
            repo,
            ..self.clone()
        }
    }

    /// The API route of `path`, a path below the repository (`/issues/7`), e.g.
    /// `/repos/octo/lab/issues/7`.
    fn route(&self, path: &str) -> String {
        format!("/repos/{}/{}{path}", self.repo.owner, self.repo.name)
    }

    /// What this client has sent so far ([`Traffic`]).
    pub(crate) fn traffic(&self) -> Traffic {
        *self.sent.lock().expect(UNPOISONED)
    }

    /// Counts a request about to be sent, and logs it in debug mode.
    fn note(&self, method: &str, route: &str) {
        self.sent.lock().expect(UNPOISONED).requests += 1;
        if let Some(sink) = &self.debug {
            sink(&format!("GitHub {method} {route}"));
        }
    }

    /// A GET of `path` below the repository ([`GitHub::route`]), retried per
    /// [`Options::read_retry`]; each try counts as a request and each wait as time waited
    /// ([`GitHub::traffic`]).
    async fn get<R: serde::de::DeserializeOwned>(
        &self,
        path: &str,
        what: Action,
    ) -> Result<R, GitHubError> {
        let client = self.client()?;
        let route = &self.route(path);
        self.options
            .read_retry
            .run(
                &TokioTimer::start(),
                |_| {
                    self.note("GET", route);
                    client.get::<R, _, ()>(route, None)
                },
                |err| read_verdict(err, std::time::SystemTime::now()),
                |wait| self.sent.lock().expect(UNPOISONED).waited += wait,
            )
            .await
            .map_err(|gave_up| match gave_up.last {
                Some(err) => self.failed(err, what),
                // Only a deadline stops before a try; reads have none.
                None => GitHubError::new(Kind::Unavailable, Problem::NoTimeLeft { action: what }),
            })
    }

    /// A write (`POST` creates, `PATCH` edits) of `body` to `path` below the repository; never retried (a write that may
    /// have taken effect is followed by a fresh look-up, never sent again: [`mod@crate::publish`]).
    async fn write<B: Serialize, R: serde::de::DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        body: &B,
        what: Action,
    ) -> Result<R, GitHubError> {
        let route = self.route(path);
        let client = self.client()?;
        self.note(method.as_str(), &route);
        let sent = match method {
            Method::PATCH => client.patch(route, Some(body)).await,
            _ => client.post(route, Some(body)).await,
        };
        sent.map_err(|e| self.failed(e, what))
    }

    /// Lists pages of `path` below the repository (with or without a query), following pages
    /// only while a page comes back full (at most 100 pages).
    async fn list_all<R: serde::de::DeserializeOwned>(
        &self,
        path: &str,
        what: Action,
    ) -> Result<Vec<R>, GitHubError> {
        let mut all = Vec::new();
        let sep = if path.contains('?') { '&' } else { '?' };
        for page in 1.. {
            let items: Vec<R> = self
                .get(&format!("{path}{sep}per_page={PER_PAGE}&page={page}"), what)
                .await?;
            let full = items.len() == PER_PAGE;
            all.extend(items);
            if !full || page >= 100 {
                break;
            }
        }
        Ok(all)
    }

    /// All releases, drafts included (`GET /repos/{o}/{r}/releases`, every page).
    /// Needs `contents: read`; drafts are listed only with `contents: write`.
    pub(crate) async fn list_releases(&self) -> Result<Vec<Release>, GitHubError> {
        self.list_all("/releases", Action::ListReleases).await
    }

    /// The newest releases, first page only: enough to find the latest announced one.
    #[cfg(test)]
    pub(crate) async fn recent_releases(&self) -> Result<Vec<Release>, GitHubError> {
        self.get(
            &format!("/releases?per_page={PER_PAGE}"),
            Action::ListReleases,
        )
        .await
    }

    /// Creates a published release (`POST /repos/{o}/{r}/releases`). Not retried.
    pub(crate) async fn create_release(
        &self,
        new: &models::NewRelease,
    ) -> Result<Release, GitHubError> {
        self.write(Method::POST, "/releases", new, Action::CreateRelease)
            .await
    }

    /// Replaces a release's body, its title, or both, and nothing else
    /// (`PATCH /repos/{o}/{r}/releases/{id}`).
    pub(crate) async fn update_release(
        &self,
        id: u64,
        patch: &ReleasePatch<'_>,
    ) -> Result<Release, GitHubError> {
        let path = format!("/releases/{id}");
        self.write(Method::PATCH, &path, patch, Action::UpdateReleaseNote)
            .await
    }

    /// Deletes a release (`DELETE /repos/{o}/{r}/releases/{id}`): only used to undo this
    /// run's own duplicate after losing a race.
    pub(crate) async fn delete_release(&self, id: u64) -> Result<(), GitHubError> {
        self.delete(&format!("/releases/{id}"), Action::DeleteDuplicateRelease)
            .await
    }

    /// Deletes one of the bot's comments (`DELETE /repos/{o}/{r}/issues/comments/{id}`):
    /// only used to undo this run's own duplicate (a second comment POST after one whose
    /// outcome was unknown took effect after all). Needs `issues: write`.
    pub(crate) async fn delete_comment(&self, id: u64) -> Result<(), GitHubError> {
        self.delete(
            &format!("/issues/comments/{id}"),
            Action::DeleteDuplicateComment,
        )
        .await
    }

    /// One DELETE of `path` below the repository; a 404 (already gone) counts as done, any
    /// other failure is GitHub's answer ([`octocrab::map_github_error`], then
    /// [`Self::failed`]).
    async fn delete(&self, path: &str, action: Action) -> Result<(), GitHubError> {
        let route = self.route(path);
        self.note("DELETE", &route);
        let client = self.client()?;
        let response = (client._delete(route.as_str(), None::<&()>).await)
            .map_err(|e| self.failed(e, action))?;
        if response.status() == http::StatusCode::NOT_FOUND {
            return Ok(());
        }
        match octocrab::map_github_error(response).await {
            Ok(_) => Ok(()),
            Err(e) => Err(self.failed(e, action)),
        }
    }

    /// Issues carrying all of `labels` in `state` (`open`, `closed` or `all`), pull requests
    /// skipped (`GET /repos/{o}/{r}/issues?labels=…&state=…`, every page). Listing, not the
    /// search API, whose index lags new issues.
    pub(crate) async fn list_issues(
        &self,
        labels: &[String],
        state: &str,
    ) -> Result<Vec<Issue>, GitHubError> {
        let labels = labels
            .iter()
            .map(|l| crate::support::text::percent_encode(l))
            .collect::<Vec<_>>()
            .join(",");
        let path = format!("/issues?state={state}&labels={labels}");
        let issues: Vec<Issue> = self.list_all(&path, Action::ListTrackingIssues).await?;
        Ok(issues
            .into_iter()
            .filter(|i| i.pull_request.is_none())
            .collect())
    }

    /// Opens an issue (`POST /repos/{o}/{r}/issues`). Not retried.
    pub(crate) async fn create_issue(&self, new: &models::NewIssue) -> Result<Issue, GitHubError> {
        self.write(Method::POST, "/issues", new, Action::OpenTrackingIssue)
            .await
    }

    /// Closes an issue with `state_reason: not_planned` (used for a lost race's duplicate).
    pub(crate) async fn close_issue(&self, number: u64) -> Result<Issue, GitHubError> {
        self.write(
            Method::PATCH,
            &format!("/issues/{number}"),
            &serde_json::json!({ "state": "closed", "state_reason": "not_planned" }),
            Action::CloseDuplicateIssue,
        )
        .await
    }

    /// All comments on an issue (every page).
    pub(crate) async fn list_comments(&self, number: u64) -> Result<Vec<Comment>, GitHubError> {
        self.list_all(
            &format!("/issues/{number}/comments"),
            Action::ListIssueComments,
        )
        .await
    }

    /// Comments on an issue (`POST /repos/{o}/{r}/issues/{n}/comments`). Not retried.
    pub(crate) async fn create_comment(
        &self,
        number: u64,
        body: &str,
    ) -> Result<Comment, GitHubError> {
        let (path, body) = (format!("/issues/{number}/comments"), BodyOnly { body });
        (self.write(Method::POST, &path, &body, Action::CommentOnTrackingIssue)).await
    }

    /// Replaces the body of one of the bot's comments
    /// (`PATCH /repos/{o}/{r}/issues/comments/{id}`).
    pub(crate) async fn update_comment(&self, id: u64, body: &str) -> Result<Comment, GitHubError> {
        let (path, body) = (format!("/issues/comments/{id}"), BodyOnly { body });
        (self.write(Method::PATCH, &path, &body, Action::UpdateTrackingComment)).await
    }

    /// Pull requests associated with a commit (`GET /repos/{o}/{r}/commits/{sha}/pulls`,
    /// every page: a commit can be in more than 100 open pull requests).
    /// Needs `pull-requests: read` (or `contents: read` on public repositories).
    pub(crate) async fn pulls_for_commit(
        &self,
        sha: &str,
    ) -> Result<Vec<PullRequest>, GitHubError> {
        self.list_all(
            &format!("/commits/{sha}/pulls"),
            Action::LookUpCommitPullRequests,
        )
        .await
    }

    /// The newest deployments to `environment` (`GET /repos/{o}/{r}/deployments?environment=…`,
    /// GitHub's order: newest first), the first page of [`PER_PAGE`] only: this release's
    /// and the previous one are among them. Needs `deployments: read`.
    pub(crate) async fn list_deployments(
        &self,
        environment: &str,
    ) -> Result<Vec<Deployment>, GitHubError> {
        let environment = crate::support::text::percent_encode(environment);
        self.get(
            &format!("/deployments?environment={environment}&per_page={PER_PAGE}"),
            Action::ListDeployments,
        )
        .await
    }

    /// Creates a deployment (`POST /repos/{o}/{r}/deployments`). Not retried. Needs
    /// `deployments: write`.
    pub(crate) async fn create_deployment(
        &self,
        new: &models::NewDeployment,
    ) -> Result<Deployment, GitHubError> {
        self.write(Method::POST, "/deployments", new, Action::CreateDeployment)
            .await
    }

    /// The latest status of deployment `id` (`GET /repos/{o}/{r}/deployments/{id}/statuses`,
    /// newest first, one item); `None` when it has none.
    pub(crate) async fn latest_deployment_status(
        &self,
        id: u64,
    ) -> Result<Option<DeploymentStatus>, GitHubError> {
        let statuses: Vec<DeploymentStatus> = self
            .get(
                &format!("/deployments/{id}/statuses?per_page=1"),
                Action::ReadDeploymentStatus,
            )
            .await?;
        Ok(statuses.into_iter().next())
    }

    /// Adds a status to deployment `id` (`POST /repos/{o}/{r}/deployments/{id}/statuses`).
    /// Not retried. Needs `deployments: write`.
    pub(crate) async fn create_deployment_status(
        &self,
        id: u64,
        new: &models::DeploymentStatus,
    ) -> Result<DeploymentStatus, GitHubError> {
        self.write(
            Method::POST,
            &format!("/deployments/{id}/statuses"),
            new,
            Action::SetDeploymentStatus,
        )
        .await
    }

    /// Deletes deployment `id` (`DELETE /repos/{o}/{r}/deployments/{id}`; GitHub deletes only
    /// an inactive one while others exist): only a duplicate concurrent runs left.
    pub(crate) async fn delete_deployment(&self, id: u64) -> Result<(), GitHubError> {
        self.delete(
            &format!("/deployments/{id}"),
            Action::DeleteDuplicateDeployment,
        )
        .await
    }

    /// One pull request (`GET /repos/{o}/{r}/pulls/{n}`).
    pub(crate) async fn pull_request(&self, number: u64) -> Result<PullRequest, GitHubError> {
        self.get(&format!("/pulls/{number}"), Action::LookUpPullRequest)
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wiremock::matchers::method;
    use wiremock::{Mock, MockServer, ResponseTemplate};

    #[test]
    fn environment_names_follow_githubs_rules() {
        assert_eq!(
            Environment::parse(" jupyterhub-prod ").unwrap().as_str(),
            "jupyterhub-prod"
        );
        assert_eq!(Environment::parse("  "), Err(EnvironmentError::Empty));
        assert_eq!(
            Environment::parse(&"e".repeat(256)),
            Err(EnvironmentError::TooLong)
        );
        assert!(Environment::parse(&"é".repeat(255)).is_ok());
        assert_eq!(
            Environment::parse("prod\nstaging"),
            Err(EnvironmentError::Control)
        );
        assert!(Environment::parse("Prod").unwrap().matches("prod"));
        for sneaky in [
            "prod\u{202e}",
            "pr\u{2066}od",
            "pr\u{200b}od",
            "\u{feff}prod",
        ] {
            assert_eq!(
                Environment::parse(sneaky),
                Err(EnvironmentError::Invisible),
                "{sneaky:?}"
            );
        }
    }

    /// A `.git` ending (any number, any case) is refused, naming the repository without it
    /// when that is one; a refused value is shown trimmed, at most 200 characters.
    #[test]
    fn a_repository_input_ending_in_git_names_the_repository_without_it() {
        let why = |v: &str| Repository::input(v).unwrap_err().why;
        let without = |name: Option<&str>| RepositoryProblem::GitSuffix {
            without: name.map(str::to_string),
        };
        assert_eq!(why(" o/r.git.GIT "), without(Some("o/r")));
        assert_eq!(why("o/.git"), without(None));
        assert_eq!(why("o"), RepositoryProblem::Rule(RepositoryError::Form));
        let long = format!(" o/{} ", "r".repeat(300));
        assert_eq!(
            Repository::input(&long).unwrap_err().shown.chars().count(),
            200
        );
        assert_eq!(Repository::input(" o/r ").unwrap().to_string(), "o/r");
    }

    #[tokio::test]
    async fn a_token_github_echoes_is_hidden_through_the_one_engine() {
        // A proxy quoting the request's header, then the token cut short: each goes.
        const TOKEN: &str = "ghs_EchoedBackByAProxy0123456789";
        let server = MockServer::start().await;
        Mock::given(method("GET"))
            .respond_with(ResponseTemplate::new(401).set_body_json(serde_json::json!({
                "message": format!("Bad credentials: Bearer {TOKEN} (starts {})", &TOKEN[..14]),
            })))
            .mount(&server)
            .await;
        let repo = Repository::parse("octo/lab").unwrap();
        let gh = GitHub::new(&server.uri(), &TOKEN.into(), repo).unwrap();
        let err = gh.list_releases().await.unwrap_err();
        assert_eq!(err.kind, Kind::Unauthorized);
        assert_eq!(
            err.to_string(),
            "cannot list releases: GitHub answered 401: Bad credentials: Bearer *** (starts ***)\n\
             help: the token is missing, expired or revoked: set `github-token:` under `with:` (default ${{ github.token }})"
        );
    }

    #[tokio::test]
    async fn every_request_asks_for_githubs_media_type_and_names_the_tool_once() {
        let server = MockServer::start().await;
        Mock::given(method("GET"))
            .respond_with(ResponseTemplate::new(200).set_body_json(serde_json::json!([])))
            .mount(&server)
            .await;
        Mock::given(method("DELETE"))
            .respond_with(ResponseTemplate::new(204))
            .mount(&server)
            .await;
        let repo = Repository::parse("octo/lab").unwrap();
        let gh = GitHub::new(&server.uri(), &"ghs_x".into(), repo).unwrap();
        gh.recent_releases().await.unwrap();
        gh.delete_release(7).await.unwrap();
        let sent = server.received_requests().await.unwrap();
        assert_eq!(sent.len(), 2);
        assert_eq!(
            USER_AGENT,
            format!("codeq-rollout/{}", env!("CARGO_PKG_VERSION"))
        );
        for request in sent {
            for (name, want) in [
                ("accept", "application/vnd.github+json"),
                ("user-agent", USER_AGENT),
                ("authorization", "Bearer ghs_x"),
            ] {
                let values: Vec<_> = request.headers.get_all(name).iter().collect();
                assert_eq!(values, [want], "{name} of {}", request.method);
            }
        }
    }

    #[tokio::test]
    async fn a_redirect_to_another_origin_is_not_followed_so_the_token_stays_home() {
        // The API redirects within itself (followed), then to another server that redirects
        // to itself: that server is never asked, with or without the token.
        let (api, other) = (MockServer::start().await, MockServer::start().await);
        let to = |server: &MockServer, path: &str| {
            ResponseTemplate::new(302).insert_header("location", format!("{}{path}", server.uri()))
        };
        Mock::given(method("GET"))
            .and(wiremock::matchers::path("/repos/octo/lab/releases"))
            .respond_with(to(&api, "/moved"))
            .mount(&api)
            .await;
        Mock::given(method("GET"))
            .and(wiremock::matchers::path("/moved"))
            .respond_with(to(&other, "/loop"))
            .mount(&api)
            .await;
        Mock::given(method("GET"))
            .respond_with(to(&other, "/loop"))
            .mount(&other)
            .await;
        let repo = Repository::parse("octo/lab").unwrap();
        let gh = GitHub::new(&api.uri(), &"ghs_x".into(), repo).unwrap();
        let err = gh.list_releases().await.unwrap_err();
        assert_eq!(err.kind, Kind::Other, "{err}");
        assert!(err.to_string().contains("GitHub answered 302"), "{err}");
        assert_eq!(other.received_requests().await.unwrap().len(), 0);
        assert_eq!(api.received_requests().await.unwrap().len(), 2);
    }

    /// The octocrab error GitHub's answer `response` makes.
    async fn error_of(response: ResponseTemplate) -> octocrab::Error {
        let server = MockServer::start().await;
        Mock::given(method("GET"))
            .respond_with(response)
            .mount(&server)
            .await;
        let client = Octocrab::builder()
            .base_uri(server.uri())
            .unwrap()
            .build_with_reqwest(reqwest::Client::new())
            .unwrap();
        client
            .get::<serde_json::Value, _, ()>("/repos/octo/lab/releases", None)
            .await
            .unwrap_err()
    }

    #[tokio::test]
    async fn reads_are_retried_on_5xx_429_and_rate_limits_waiting_what_github_asks() {
        use crate::support::retry::Verdict;
        let now = std::time::UNIX_EPOCH + Duration::from_secs(1000);
        let retry = |secs: Option<u64>| Verdict::Retry {
            asked: secs.map(Duration::from_secs),
        };
        let rate_limited = |status: u16| {
            ResponseTemplate::new(status)
                .insert_header("x-ratelimit-remaining", "0")
                .insert_header("x-ratelimit-reset", "1030")
                .set_body_json(serde_json::json!({"message": "API rate limit exceeded"}))
        };
        let table = [
            (ResponseTemplate::new(502), retry(None)),
            (
                ResponseTemplate::new(503).insert_header("Retry-After", "5"),
                retry(Some(5)),
            ),
            (
                ResponseTemplate::new(429).insert_header("Retry-After", "7"),
                retry(Some(7)),
            ),
            (rate_limited(403), retry(Some(30))),
            (rate_limited(429), retry(Some(30))),
            (
                ResponseTemplate::new(403).insert_header("Retry-After", "60"),
                retry(Some(60)),
            ),
            (ResponseTemplate::new(403), Verdict::Final),
            (ResponseTemplate::new(404), Verdict::Final),
            (ResponseTemplate::new(422), Verdict::Final),
            (ResponseTemplate::new(401), Verdict::Final),
        ];
        for (response, expected) in table {
            let err = error_of(response).await;
            assert_eq!(read_verdict(&err, now), expected, "{err:?}");
        }
        let refused = reqwest::Client::new()
            .get("http://127.0.0.1:1/")
            .send()
            .await;
        let transport = octocrab::Error::Reqwest {
            source: refused.unwrap_err(),
            backtrace: std::backtrace::Backtrace::capture(),
        };
        assert_eq!(read_verdict(&transport, now), retry(None));
    }

    #[tokio::test]
    async fn every_try_and_wait_of_a_read_is_counted_in_the_traffic() {
        let server = MockServer::start().await;
        Mock::given(method("GET"))
            .respond_with(ResponseTemplate::new(502))
            .up_to_n_times(2)
            .mount(&server)
            .await;
        Mock::given(method("GET"))
            .respond_with(ResponseTemplate::new(200).set_body_json(serde_json::json!([])))
            .mount(&server)
            .await;
        let options = Options {
            read_retry: RetryPolicy {
                base_delay: Duration::from_millis(10),
                ..RetryPolicy::reads()
            },
            ..Options::default()
        };
        let repo = Repository::parse("octo/lab").unwrap();
        let gh = GitHub::with_options(&server.uri(), &"ghs_x".into(), repo, options).unwrap();
        assert!(gh.recent_releases().await.unwrap().is_empty());
        assert_eq!(
            gh.traffic(),
            Traffic {
                requests: 3,
                waited: Duration::from_millis(30)
            }
        );
    }

    #[test]
    fn a_token_that_cannot_be_a_header_is_refused_before_any_request() {
        let repo = Repository::parse("octo/lab").unwrap();
        let made = GitHub::new("https://api.github.com", &"ghs_a\nb".into(), repo);
        assert_eq!(
            made.err().map(|e| e.problem),
            Some(Problem::TokenNotAHeader)
        );
    }

    #[test]
    fn options_given_replace_only_the_defaults_given() {
        let default = Options::default();
        assert_eq!(Options::given(None, None), default);
        let second = Duration::from_secs(1);
        let given = Options::given(Some(second * 5), Some(second / 10));
        assert_eq!(given.timeout, second * 5);
        assert_eq!(given.read_retry.base_delay, second / 10);
        assert_eq!(
            (given.read_retry.max_attempts, given.read_retry.max_delay),
            (
                default.read_retry.max_attempts,
                default.read_retry.max_delay
            )
        );
    }
}
