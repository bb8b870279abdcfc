//! A wiremock registry, for what a real `docker-registry` cannot be made to show (no digest
//! header, a lying header, 429 with Retry-After, 503 then success, a token endpoint that says
//! no, a hang). A test states its answers and nothing else:
//!
//! ```ignore
//! let fake = FakeRegistry::new().head_first(2, status(503)).head(digest_of(BODY)).start().await;
//! ```

use serde_json::json;
use std::time::Duration;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// The OCI image index the fakes serve (bytes as a registry stores them).
pub const BODY: &[u8] = b"{\n   \"schemaVersion\": 2,\n   \"mediaType\": \"application/vnd.oci.image.index.v1+json\",\n   \"manifests\": []\n}\n\n";
/// The media type of [`BODY`].
pub const INDEX: &str = "application/vnd.oci.image.index.v1+json";

/// One answer the fake gives: to which requests, how often, with what.
enum Answer {
    /// Requests with this method (and path, if given).
    Route {
        method: &'static str,
        path: Option<String>,
        times: Option<u64>,
        template: Box<ResponseTemplate>,
    },
    /// Every HEAD answers 401 with a Bearer challenge whose realm is the fake's own
    /// `/token` (not known before the fake starts).
    BearerChallengeHere,
}

/// The answers of a fake registry, before it starts.
#[derive(Default)]
pub struct FakeRegistry {
    answers: Vec<Answer>,
}

/// A started fake registry.
pub struct RunningFake {
    /// The wiremock server.
    pub server: MockServer,
    /// `127.0.0.1:PORT`.
    pub addr: String,
}

impl FakeRegistry {
    /// A fake with no answers yet (every request gets wiremock's 404).
    pub fn new() -> Self {
        Self::default()
    }

    fn route(
        mut self,
        method: &'static str,
        path: Option<String>,
        times: Option<u64>,
        template: ResponseTemplate,
    ) -> Self {
        self.answers.push(Answer::Route {
            method,
            path,
            times,
            template: Box::new(template),
        });
        self
    }

    /// Every HEAD (not answered by an earlier `head_first`) answers `template`.
    pub fn head(self, template: ResponseTemplate) -> Self {
        self.route("HEAD", None, None, template)
    }

    /// The first `n` HEADs answer `template`; later ones fall through to [`Self::head`].
    pub fn head_first(self, n: u64, template: ResponseTemplate) -> Self {
        self.route("HEAD", None, Some(n), template)
    }

    /// HEADs of `path` answer `template`.
    pub fn head_at(self, path: impl Into<String>, template: ResponseTemplate) -> Self {
        self.route("HEAD", Some(path.into()), None, template)
    }

    /// Every GET answers `template`.
    pub fn get(self, template: ResponseTemplate) -> Self {
        self.route("GET", None, None, template)
    }

    /// GETs of `path` answer `template` (e.g. the token endpoint `/token`).
    pub fn get_at(self, path: impl Into<String>, template: ResponseTemplate) -> Self {
        self.route("GET", Some(path.into()), None, template)
    }

    /// Every request fails with `status_code`, as a registry does: a HEAD's answer has no
    /// body, a GET's carries the registry's error (`code`, `message`).
    pub fn failing(self, status_code: u16, code: &str, message: &str) -> Self {
        self.head(status(status_code))
            .get(registry_error(status_code, code, message))
    }

    /// HEADs answer 401 with a Bearer challenge naming the fake's own `/token` as realm.
    pub fn bearer_challenge_here(mut self) -> Self {
        self.answers.push(Answer::BearerChallengeHere);
        self
    }

    /// Starts the fake with its answers mounted.
    pub async fn start(self) -> RunningFake {
        let server = MockServer::start().await;
        for answer in self.answers {
            let (method_name, route, times, template) = match answer {
                Answer::Route {
                    method,
                    path,
                    times,
                    template,
                } => (method, path, times, *template),
                Answer::BearerChallengeHere => (
                    "HEAD",
                    None,
                    None,
                    status(401).insert_header(
                        "WWW-Authenticate",
                        format!(r#"Bearer realm="{}/token",service="fake""#, server.uri()).as_str(),
                    ),
                ),
            };
            let mock = Mock::given(method(method_name));
            let mock = match route {
                Some(p) => mock.and(path(p)),
                None => mock,
            };
            let mock = mock.respond_with(template);
            let mock = match times {
                Some(n) => mock.up_to_n_times(n).with_priority(1),
                None => mock,
            };
            mock.mount(&server).await;
        }
        let addr = server.address().to_string();
        RunningFake { server, addr }
    }
}

impl RunningFake {
    /// `ADDR/org/lab:latest`, the image the scenarios resolve.
    pub fn image(&self) -> String {
        format!("{}/org/lab:latest", self.addr)
    }

    /// `(method, Accept)` of every request the fake got, in order.
    pub async fn seen(&self) -> Vec<(String, String)> {
        self.server
            .received_requests()
            .await
            .unwrap()
            .into_iter()
            .map(|r| (r.method.to_string(), super::header_of(&r, "accept")))
            .collect()
    }

    /// The methods of every request the fake got, in order.
    pub async fn methods(&self) -> Vec<String> {
        self.seen().await.into_iter().map(|(m, _)| m).collect()
    }
}

/// An answer with `code` and nothing else.
pub fn status(code: u16) -> ResponseTemplate {
    ResponseTemplate::new(code)
}

/// The digest of `bytes`, as a registry names it (`sha256:…`).
pub fn digest_of(bytes: &[u8]) -> String {
    codeq_rollout::Digest::of_bytes(bytes).to_string()
}

/// 200 with a `Docker-Content-Digest` header naming `digest` (a HEAD's answer).
pub fn with_digest(digest: &str) -> ResponseTemplate {
    status(200).insert_header("Docker-Content-Digest", digest)
}

/// 200 serving `bytes` as `content_type` (a GET's answer, without a digest header).
pub fn serving(bytes: impl AsRef<[u8]>, content_type: &str) -> ResponseTemplate {
    status(200).set_body_raw(bytes.as_ref().to_vec(), content_type)
}

/// `code` with a distribution-style error body (`{"errors":[{code, message}]}`).
pub fn registry_error(status_code: u16, code: &str, message: &str) -> ResponseTemplate {
    status(status_code).set_body_json(json!({"errors": [{"code": code, "message": message}]}))
}

/// 200 after `secs` seconds: a hang past any deadline the tests set.
pub fn hang(secs: u64) -> ResponseTemplate {
    status(200).set_delay(Duration::from_secs(secs))
}
