//! A real OCI registry for tests: Debian's `docker-registry` (CNCF distribution 2.8),
//! started on a free loopback port with its storage in a temp dir, stopped on drop.
//! Images are written as OCI layouts by `scripts/make-example-layout.py` and pushed with
//! `skopeo copy --all --preserve-digests`, as users push real multi-arch images.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;
use tempfile::TempDir;

/// A running registry.
pub struct Registry {
    child: Child,
    /// `127.0.0.1:PORT`.
    pub addr: String,
    /// Holds the config and storage; removed on drop.
    pub dir: TempDir,
    /// The registry's log lines so far (stderr), one per request among them.
    log: Arc<Mutex<Vec<String>>>,
}

/// A free loopback port (the OS picks it; the listener is closed before returning).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind a loopback port")
        .local_addr()
        .unwrap()
        .port()
}

impl Registry {
    /// Starts a registry without authentication.
    pub fn start() -> Self {
        Self::start_with("")
    }

    /// Starts a registry whose config has `extra` (YAML at the top level, e.g. an `auth:`
    /// block) appended. `{dir}` in `extra` is replaced by the registry's temp dir.
    pub fn start_with(extra: &str) -> Self {
        Self::start_with_files(extra, &[])
    }

    /// As [`Registry::start_with`], writing `files` (`(name, content)`) into the registry's
    /// temp dir first (e.g. an htpasswd file named in `extra` as `{dir}/htpasswd`).
    pub fn start_with_files(extra: &str, files: &[(&str, &[u8])]) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        for (name, content) in files {
            std::fs::write(dir.path().join(name), content).unwrap();
        }
        let port = free_port();
        let addr = format!("127.0.0.1:{port}");
        let config = format!(
            "version: 0.1\nlog:\n  level: info\n  accesslog:\n    disabled: true\nstorage:\n  filesystem:\n    rootdirectory: {root}\n  delete:\n    enabled: true\nhttp:\n  addr: {addr}\n{extra}\n",
            root = dir.path().join("data").display(),
            extra = extra.replace("{dir}", &dir.path().display().to_string()),
        );
        let config_path = dir.path().join("config.yml");
        std::fs::write(&config_path, config).unwrap();
        let mut cmd = Command::new("docker-registry");
        // Also killed if the test process dies before this is dropped.
        super::controlplane::die_with_parent(&mut cmd);
        let mut child = cmd
            .arg("serve")
            .arg(&config_path)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect(
                "start docker-registry (apt-get install docker-registry; scripts/test.sh does it)",
            );
        // Wait, bounded, for the registry to say it listens.
        let stderr = child.stderr.take().unwrap();
        let (tx, rx) = mpsc::channel();
        let log = Arc::new(Mutex::new(Vec::new()));
        let lines = Arc::clone(&log);
        std::thread::spawn(move || {
            let mut tx = Some(tx);
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if line.contains("listening on") {
                    if let Some(tx) = tx.take() {
                        let _ = tx.send(());
                    }
                }
                lines.lock().unwrap().push(line);
            }
        });
        if rx.recv_timeout(Duration::from_secs(20)).is_err() {
            let _ = child.kill();
            panic!("docker-registry did not start listening on {addr} within 20 s");
        }
        Self {
            child,
            addr,
            dir,
            log,
        }
    }

    /// The requests the registry served so far, as `METHOD URI` (from its "response
    /// completed" and auth-challenge log lines), in order. The registry logs a request after
    /// writing its answer, from the request's own goroutine, so the line of a request whose
    /// answer a client already read can still come after a later request's line. Two marker
    /// requests are therefore sent one after the other, each waited for (bounded): by the
    /// time the second is logged, a request that completed before this call has had the
    /// first marker's whole round trip to be logged too, and the answer holds every line
    /// before the second marker.
    pub fn served(&self) -> Vec<String> {
        let _ = self.log_marker();
        let (lines, at) = self.log_marker();
        lines[..at]
            .iter()
            .filter(|l| {
                // A served request, or one refused with an auth challenge (logged without
                // "response completed").
                l.contains("msg=\"response completed")
                    || l.contains("msg=\"error authorizing context")
            })
            .filter(|l| !l.contains("served-marker="))
            .filter_map(|l| {
                let field = |name: &str| {
                    let rest = l.split(&format!(" {name}=")).nth(1)?;
                    let value = match rest.strip_prefix('"') {
                        Some(quoted) => quoted.split('"').next()?,
                        None => rest.split(' ').next()?,
                    };
                    Some(value.to_string())
                };
                Some(format!(
                    "{} {}",
                    field("http.request.method")?,
                    field("http.request.uri")?
                ))
            })
            .collect()
    }

    /// Sends one marker request and waits (bounded, 10 s) until the registry logs it: the
    /// log then, and the marker line's index in it.
    fn log_marker(&self) -> (Vec<String>, usize) {
        use std::io::{Read, Write};
        let marker = format!("/v2/?served-marker={}", free_port());
        let mut stream = std::net::TcpStream::connect(&self.addr).expect("connect to registry");
        write!(
            stream,
            "GET {marker} HTTP/1.0\r\nHost: {}\r\n\r\n",
            self.addr
        )
        .unwrap();
        let _ = stream.read_to_end(&mut Vec::new());
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        loop {
            let lines = self.log.lock().unwrap().clone();
            if let Some(at) = lines.iter().position(|l| l.contains(&marker)) {
                return (lines, at);
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the registry did not log the marker request within 10 s"
            );
            std::thread::yield_now();
        }
    }

    /// Starts a registry with htpasswd Basic auth for one user (`htpasswd -Bbn`, bcrypt,
    /// the only hash distribution accepts).
    pub fn start_htpasswd(user: &str, password: &str) -> Self {
        let mut cmd = Command::new("htpasswd");
        cmd.args(["-Bbn", user, password]);
        let line = run(cmd, "htpasswd -Bbn (apt-get install apache2-utils)");
        Self::start_with_files(
            "auth:\n  htpasswd:\n    realm: codeq-test\n    path: {dir}/htpasswd\n",
            &[("htpasswd", &line)],
        )
    }

    /// Starts a registry with token auth trusting `tokens` (its realm, service, issuer and
    /// certificate).
    pub fn start_token(tokens: &TokenServer) -> Self {
        Self::start_with(&format!(
            "auth:\n  token:\n    realm: {}\n    service: {SERVICE}\n    issuer: {ISSUER}\n    rootcertbundle: {}\n",
            tokens.realm(),
            tokens.cert_path().display()
        ))
    }

    /// Starts a registry serving HTTPS with the certificate in `tls` (its CA is not one the
    /// runner trusts).
    pub fn start_tls(tls: &TlsFiles) -> Self {
        Self::start_with(&format!(
            "  tls:\n    certificate: {}\n    key: {}\n",
            tls.cert.display(),
            tls.key.display()
        ))
    }

    /// `127.0.0.1:PORT/REPO:TAG`.
    pub fn reference(&self, repo_tag: &str) -> String {
        format!("{}/{repo_tag}", self.addr)
    }

    /// Pushes the OCI layout at `layout` (tag `tag`) to `repo_tag` with skopeo, preserving
    /// digests. `dest_creds` is `user:password` for an authenticated registry.
    pub fn push_layout(&self, layout: &Path, tag: &str, repo_tag: &str, extra: &[&str]) {
        let mut cmd = Command::new("skopeo");
        cmd.args(["copy", "--quiet", "--all", "--dest-tls-verify=false"])
            .args(extra);
        cmd.arg(format!("oci:{}:{tag}", layout.display()))
            .arg(format!("docker://{}", self.reference(repo_tag)));
        run(cmd, "skopeo copy");
    }

    /// Writes a multi-arch OCI layout of image `variant` and pushes it to `org/lab:latest`
    /// (as `user:password` when `creds` is given); returns its index digest.
    pub fn push_image(&self, variant: &str, creds: Option<&str>) -> String {
        let layout = tempfile::tempdir().unwrap();
        let digest = make_layout(layout.path(), "latest", variant);
        let mut extra = vec!["--preserve-digests"];
        if let Some(creds) = creds {
            extra.extend(["--dest-creds", creds]);
        }
        self.push_layout(layout.path(), "latest", "org/lab:latest", &extra);
        digest
    }

    /// The sha256 of the raw top-level manifest, as `skopeo inspect --raw` returns it: an
    /// independent check of the digest codeq-rollout resolves.
    pub fn raw_manifest_digest(&self, repo_tag: &str, extra: &[&str]) -> String {
        use sha2::Digest as _;
        let mut cmd = Command::new("skopeo");
        cmd.args(["inspect", "--raw", "--tls-verify=false"])
            .args(extra);
        cmd.arg(format!("docker://{}", self.reference(repo_tag)));
        let raw = run(cmd, "skopeo inspect --raw");
        format!("sha256:{}", hex::encode(sha2::Sha256::digest(&raw)))
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Writes a tiny multi-arch OCI layout into `dir` with tag `tag`; `variant` changes the
/// content (and so the digest). Returns the index digest.
pub fn make_layout(dir: &Path, tag: &str, variant: &str) -> String {
    let mut cmd = Command::new("python3");
    cmd.arg(repo_root().join("scripts/make-example-layout.py"))
        .arg(dir)
        .arg(tag)
        .arg(variant);
    String::from_utf8(run(cmd, "make-example-layout.py"))
        .unwrap()
        .trim()
        .to_string()
}

/// The crate's root directory.
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn run(mut cmd: Command, what: &str) -> Vec<u8> {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot start: {e}"));
    assert!(
        out.status.success(),
        "{what} failed: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// The `service` the token registry names and the token server puts in `aud`.
pub const SERVICE: &str = "codeq-test-registry";
/// The token server's `iss`.
pub const ISSUER: &str = "codeq-test-issuer";

/// A small token server (distribution's token auth spec) on wiremock: answers
/// `GET /token?scope=repository:NAME:ACTIONS&service=...` with an RS256 JWT whose header
/// carries the signing certificate (`x5c`) and whose claims grant `access`, signed by a key
/// and self-signed certificate generated for the test with the `openssl` CLI. The registry
/// trusts that certificate (`rootcertbundle`). Users in `users` get pull and push;
/// anonymous requests get pull only when `anonymous_pull`; a wrong password gets 401.
pub struct TokenServer {
    /// The wiremock server (its request log counts token requests).
    pub server: wiremock::MockServer,
    dir: TempDir,
}

impl TokenServer {
    /// Starts a token server for `users` (`(name, password)`).
    pub async fn start(users: &[(&str, &str)], anonymous_pull: bool) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let key = dir.path().join("key.pem");
        let cert = dir.path().join("cert.pem");
        let mut cmd = Command::new("openssl");
        cmd.args([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
        ])
        .args(["-subj", "/CN=codeq-test-token-issuer", "-keyout"])
        .arg(&key)
        .arg("-out")
        .arg(&cert);
        run(cmd, "openssl req -x509");
        let mut cmd = Command::new("openssl");
        cmd.args(["rsa", "-traditional", "-outform", "DER", "-in"])
            .arg(&key);
        let key_der = run(cmd, "openssl rsa -outform DER");
        // x5c holds the standard base64 of the DER certificate: the PEM body, unwrapped.
        let cert_b64: String = std::fs::read_to_string(&cert)
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with("-----"))
            .collect();
        let issuer = Issuer {
            key: jsonwebtoken::EncodingKey::from_rsa_der(&key_der),
            cert_b64,
            users: users
                .iter()
                .map(|(u, p)| (u.to_string(), p.to_string()))
                .collect(),
            anonymous_pull,
        };
        let server = wiremock::MockServer::start().await;
        wiremock::Mock::given(wiremock::matchers::method("GET"))
            .and(wiremock::matchers::path("/token"))
            .respond_with(issuer)
            .mount(&server)
            .await;
        Self { server, dir }
    }

    /// The realm URL, `http://127.0.0.1:PORT/token`.
    pub fn realm(&self) -> String {
        format!("{}/token", self.server.uri())
    }

    /// The PEM certificate the registry trusts.
    pub fn cert_path(&self) -> PathBuf {
        self.dir.path().join("cert.pem")
    }

    /// Token requests sent by codeq-rollout (its user agent), as
    /// `(query, Authorization header or "")`.
    pub async fn requests_from_codeq(&self) -> Vec<(String, String)> {
        self.server
            .received_requests()
            .await
            .unwrap_or_default()
            .into_iter()
            .filter(is_codeq)
            .map(|r| {
                let auth = super::header_of(&r, "authorization");
                (r.url.query().unwrap_or_default().to_string(), auth)
            })
            .collect()
    }
}

fn is_codeq(req: &wiremock::Request) -> bool {
    super::header_of(req, "user-agent").starts_with("codeq-rollout/")
}

struct Issuer {
    key: jsonwebtoken::EncodingKey,
    cert_b64: String,
    users: Vec<(String, String)>,
    anonymous_pull: bool,
}

impl wiremock::Respond for Issuer {
    fn respond(&self, request: &wiremock::Request) -> wiremock::ResponseTemplate {
        use base64::Engine as _;
        let basic = request
            .headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Basic "))
            .and_then(|b| base64::engine::general_purpose::STANDARD.decode(b).ok())
            .and_then(|b| String::from_utf8(b).ok());
        let (subject, allowed): (String, &[&str]) = match basic {
            Some(pair) => {
                let (user, password) = pair.split_once(':').unwrap_or((&pair, ""));
                if !self.users.iter().any(|(u, p)| u == user && p == password) {
                    return wiremock::ResponseTemplate::new(401).set_body_json(
                        serde_json::json!({"details": "incorrect username or password"}),
                    );
                }
                (user.to_string(), &["pull", "push"])
            }
            None if self.anonymous_pull => (String::new(), &["pull"]),
            None => (String::new(), &[]),
        };
        let access: Vec<serde_json::Value> = request
            .url
            .query_pairs()
            .filter(|(k, _)| k == "scope")
            .filter_map(|(_, scope)| {
                let mut parts = scope.splitn(3, ':');
                let (kind, name, actions) = (parts.next()?, parts.next()?, parts.next()?);
                let granted: Vec<&str> =
                    actions.split(',').filter(|a| allowed.contains(a)).collect();
                Some(serde_json::json!({"type": kind, "name": name, "actions": granted}))
            })
            .collect();
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs();
        let claims = serde_json::json!({
            "iss": ISSUER, "sub": subject, "aud": SERVICE,
            "exp": now + 300, "nbf": now - 10, "iat": now,
            "jti": format!("{now}-{}", access.len()),
            "access": access,
        });
        let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::RS256);
        header.x5c = Some(vec![self.cert_b64.clone()]);
        let token = jsonwebtoken::encode(&header, &claims, &self.key).expect("sign the token");
        wiremock::ResponseTemplate::new(200).set_body_json(serde_json::json!({
            "token": token, "access_token": token, "expires_in": 300,
        }))
    }
}

/// One request a [`CountingProxy`] forwarded.
#[derive(Debug, Clone)]
pub struct Seen {
    /// `HEAD`, `GET`...
    pub method: String,
    /// Path and query.
    pub path: String,
    /// The `Authorization` scheme sent (`Basic`, `Bearer`), or "" for none.
    pub auth: String,
    /// The registry's status.
    pub status: u16,
}

/// A reverse proxy in front of a real registry that records each request before answering,
/// so a test can count, exactly, what codeq-rollout sent (`requests()` is complete as soon
/// as the client has its answers). Pushes and skopeo go to the registry directly.
pub struct CountingProxy {
    /// `127.0.0.1:PORT`, to use in image references.
    pub addr: String,
    seen: std::sync::Arc<std::sync::Mutex<Vec<Seen>>>,
    task: tokio::task::JoinHandle<()>,
}

impl CountingProxy {
    /// Starts a proxy forwarding to `upstream` (`HOST:PORT`, plain HTTP).
    pub async fn start(upstream: &str) -> Self {
        use hyper_util::rt::TokioIo;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        // reqwest is built without a TLS provider (oci-client's `rustls-tls-no-provider`):
        // install ring's, or building the client panics when no earlier test installed it.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        let upstream = upstream.to_string();
        let log = std::sync::Arc::clone(&seen);
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let (client, upstream, log) = (
                    client.clone(),
                    upstream.clone(),
                    std::sync::Arc::clone(&log),
                );
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(move |req| {
                        forward(
                            req,
                            client.clone(),
                            upstream.clone(),
                            std::sync::Arc::clone(&log),
                        )
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        Self { addr, seen, task }
    }

    /// Everything forwarded so far.
    pub fn requests(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    /// `(method, auth scheme, status)` of each request, for compact assertions.
    pub fn summary(&self) -> Vec<(String, String, u16)> {
        self.requests()
            .into_iter()
            .map(|s| (s.method, s.auth, s.status))
            .collect()
    }

    /// Forgets what was recorded.
    pub fn clear(&self) {
        self.seen.lock().unwrap().clear();
    }
}

impl Drop for CountingProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn forward(
    req: hyper::Request<hyper::body::Incoming>,
    client: reqwest::Client,
    upstream: String,
    log: std::sync::Arc<std::sync::Mutex<Vec<Seen>>>,
) -> Result<hyper::Response<http_body_util::Full<bytes::Bytes>>, std::convert::Infallible> {
    use http_body_util::BodyExt as _;
    let method = req.method().clone();
    let path = req
        .uri()
        .path_and_query()
        .map(std::string::ToString::to_string)
        .unwrap_or_default();
    let auth = req
        .headers()
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split_whitespace().next())
        .unwrap_or_default()
        .to_string();
    let mut request = client.request(method.clone(), format!("http://{upstream}{path}"));
    for (name, value) in req.headers() {
        if name != http::header::HOST {
            request = request.header(name, value);
        }
    }
    let body = req.into_body().collect().await.unwrap().to_bytes();
    let answer = request
        .body(body)
        .send()
        .await
        .expect("upstream registry answers");
    let status = answer.status();
    let headers = answer.headers().clone();
    let body = answer.bytes().await.unwrap_or_default();
    log.lock().unwrap().push(Seen {
        method: method.to_string(),
        path,
        auth,
        status: status.as_u16(),
    });
    let mut response = hyper::Response::new(http_body_util::Full::new(body));
    *response.status_mut() = status;
    for (name, value) in &headers {
        if name != http::header::TRANSFER_ENCODING && name != http::header::CONNECTION {
            response.headers_mut().append(name, value.clone());
        }
    }
    Ok(response)
}

/// The manifest shapes users push.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Shape {
    /// OCI image index over two OCI manifests (`docker buildx` multi-arch default).
    OciIndex,
    /// Docker manifest list over two Docker v2 manifests.
    DockerList,
    /// One OCI image manifest.
    OciManifest,
    /// One Docker v2 manifest.
    DockerManifest,
}

impl Shape {
    /// All four.
    pub const ALL: [Shape; 4] = [
        Shape::OciIndex,
        Shape::DockerList,
        Shape::OciManifest,
        Shape::DockerManifest,
    ];

    /// The tag the shape is pushed under.
    pub fn tag(self) -> &'static str {
        match self {
            Shape::OciIndex => "index",
            Shape::DockerList => "list",
            Shape::OciManifest => "oci",
            Shape::DockerManifest => "docker",
        }
    }

    /// The top-level manifest's media type.
    pub fn media_type(self) -> &'static str {
        match self {
            Shape::OciIndex => "application/vnd.oci.image.index.v1+json",
            Shape::DockerList => "application/vnd.docker.distribution.manifest.list.v2+json",
            Shape::OciManifest => "application/vnd.oci.image.manifest.v1+json",
            Shape::DockerManifest => "application/vnd.docker.distribution.manifest.v2+json",
        }
    }
}

/// The Docker (`docker`) or the OCI media types: the single-platform manifest's shape, the
/// list's (index's) shape, the config's and the layer's media type.
fn flavour(docker: bool) -> (Shape, Shape, &'static str, &'static str) {
    if docker {
        (
            Shape::DockerManifest,
            Shape::DockerList,
            "application/vnd.docker.container.image.v1+json",
            "application/vnd.docker.image.rootfs.diff.tar.gzip",
        )
    } else {
        (
            Shape::OciManifest,
            Shape::OciIndex,
            "application/vnd.oci.image.config.v1+json",
            "application/vnd.oci.image.layer.v1.tar+gzip",
        )
    }
}

/// Pushes every [`Shape`] to `addr`/`repo` (tags from [`Shape::tag`]) with oci-client's
/// `push_blob` and `push_manifest_raw`, so the exact manifest bytes are known; returns the
/// sha256 of each top-level manifest's bytes.
pub async fn push_shapes(
    addr: &str,
    repo: &str,
    credentials: Option<(&str, &str)>,
) -> std::collections::BTreeMap<Shape, String> {
    use oci_client::{
        Client, Reference, RegistryOperation, client::ClientConfig, client::ClientProtocol,
        secrets::RegistryAuth,
    };
    let client = Client::new(ClientConfig {
        protocol: ClientProtocol::HttpsExcept(vec![addr.to_string()]),
        ..Default::default()
    });
    let auth = match credentials {
        Some((u, p)) => RegistryAuth::Basic(u.into(), p.into()),
        None => RegistryAuth::Anonymous,
    };
    let at = |target: &str| -> Reference {
        let sep = if target.starts_with("sha256:") {
            "@"
        } else {
            ":"
        };
        format!("{addr}/{repo}{sep}{target}").parse().unwrap()
    };
    client
        .auth(&at("latest"), &auth, RegistryOperation::Push)
        .await
        .expect("auth for push");
    let sha = |bytes: &[u8]| {
        use sha2::Digest as _;
        format!("sha256:{}", hex::encode(sha2::Sha256::digest(bytes)))
    };
    let put_blob = async |data: Vec<u8>| -> (String, usize) {
        let digest = sha(&data);
        let size = data.len();
        client
            .push_blob(&at("latest"), data, &digest)
            .await
            .expect("push blob");
        (digest, size)
    };
    let put_manifest = async |target: &str, body: &[u8], media_type: &str| {
        client
            .push_manifest_raw(
                &at(target),
                body.to_vec(),
                http::HeaderValue::from_str(media_type).unwrap(),
            )
            .await
            .expect("push manifest");
    };
    let mut out = std::collections::BTreeMap::new();
    for docker in [false, true] {
        let (single, shape, config_type, layer_type) = flavour(docker);
        let (manifest_type, list_type) = (single.media_type(), shape.media_type());
        let mut children = Vec::new();
        for arch in ["amd64", "arm64"] {
            let (layer, layer_size) =
                put_blob(format!("codeq layer {arch} docker={docker}").into_bytes()).await;
            let config = serde_json::json!({
                "architecture": arch, "os": "linux",
                "rootfs": {"type": "layers", "diff_ids": [layer]},
            });
            let (config, config_size) = put_blob(serde_json::to_vec(&config).unwrap()).await;
            let manifest = serde_json::json!({
                "schemaVersion": 2, "mediaType": manifest_type,
                "config": {"mediaType": config_type, "digest": config, "size": config_size},
                "layers": [{"mediaType": layer_type, "digest": layer, "size": layer_size}],
            });
            // Pretty-printed with a trailing newline: the digest is of these exact bytes.
            let body = format!("{}\n", serde_json::to_string_pretty(&manifest).unwrap());
            let digest = sha(body.as_bytes());
            put_manifest(&digest, body.as_bytes(), manifest_type).await;
            if arch == "amd64" {
                put_manifest(single.tag(), body.as_bytes(), manifest_type).await;
                out.insert(single, digest.clone());
            }
            children.push(serde_json::json!({
                "mediaType": manifest_type, "digest": digest, "size": body.len(),
                "platform": {"architecture": arch, "os": "linux"},
            }));
        }
        let list = serde_json::json!({
            "schemaVersion": 2, "mediaType": list_type, "manifests": children,
        });
        let body = format!("{}\n", serde_json::to_string_pretty(&list).unwrap());
        put_manifest(shape.tag(), body.as_bytes(), list_type).await;
        out.insert(shape, sha(body.as_bytes()));
    }
    out
}

/// A clock for resolutions whose waits are recorded instead of slept: `elapsed` is real time
/// plus the waits asked for, so the deadline logic sees the time it would have taken.
#[derive(Debug, Default)]
pub struct VirtualTimer {
    start: Option<std::time::Instant>,
    waits: std::sync::Mutex<Vec<Duration>>,
}

impl VirtualTimer {
    /// A clock started now.
    pub fn start() -> std::sync::Arc<Self> {
        std::sync::Arc::new(Self {
            start: Some(std::time::Instant::now()),
            waits: Default::default(),
        })
    }

    /// The waits asked for, in order.
    pub fn waits(&self) -> Vec<Duration> {
        self.waits.lock().unwrap().clone()
    }
}

impl codeq_rollout::Timer for VirtualTimer {
    fn elapsed(&self) -> Duration {
        let real = self.start.map(|s| s.elapsed()).unwrap_or_default();
        self.waits
            .lock()
            .unwrap()
            .iter()
            .fold(real, |sum, wait| sum.saturating_add(*wait))
    }
    fn wait(
        &self,
        delay: Duration,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send + '_>> {
        self.waits.lock().unwrap().push(delay);
        Box::pin(std::future::ready(()))
    }
}

/// A private CA and a server certificate it signed for `IP:127.0.0.1` only, made with the
/// `openssl` CLI: a registry reached as `127.0.0.1` presents a valid certificate from a CA
/// nobody trusts; reached as `localhost`, one that does not name the host.
pub struct TlsFiles {
    /// The CA certificate (PEM), for `SSL_CERT_FILE`.
    pub ca: PathBuf,
    /// The server certificate (PEM).
    pub cert: PathBuf,
    /// The server key (PEM).
    pub key: PathBuf,
    _dir: TempDir,
}

impl TlsFiles {
    /// Generates the CA and the server certificate.
    pub fn generate() -> Self {
        let dir = tempfile::tempdir().unwrap();
        certificates(dir.path(), "subjectAltName=IP:127.0.0.1\n");
        Self {
            ca: dir.path().join("ca.crt"),
            cert: dir.path().join("server.crt"),
            key: dir.path().join("server.key"),
            _dir: dir,
        }
    }
}

/// `openssl ARGS` in `dir`.
pub fn openssl(dir: &Path, args: &[&str]) {
    let mut cmd = Command::new("openssl");
    cmd.args(args).current_dir(dir);
    run(cmd, &format!("openssl {args:?}"));
}

/// In `dir`, made with the `openssl` CLI: a private CA (`ca.crt`, `ca.key`) and a server
/// key (`server.key`) and certificate it signed (`server.crt`) with the extensions
/// `server_ext` (an `openssl x509 -extfile`).
pub fn certificates(dir: &Path, server_ext: &str) {
    std::fs::write(dir.join("server.ext"), server_ext).unwrap();
    for command in [
        "req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=codeq-test-private-ca -keyout ca.key -out ca.crt -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign",
        "req -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 -keyout server.key -out server.csr",
        "x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 -extfile server.ext -out server.crt",
    ] {
        openssl(dir, &command.split(' ').collect::<Vec<_>>());
    }
}

/// A registry double on a raw socket for what wiremock cannot send: a manifest body without
/// an end. HEAD answers 200 without `Docker-Content-Digest` (so the client falls back to a
/// GET); GET answers 200 with a chunked body written until the client hangs up. `sent()` is
/// how many body bytes were written before it did.
pub struct EndlessManifest {
    /// `127.0.0.1:PORT`.
    pub addr: String,
    sent: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

impl EndlessManifest {
    /// Starts the double.
    pub async fn start() -> Self {
        use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let sent = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counter = std::sync::Arc::clone(&sent);
        let task = tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                let counter = std::sync::Arc::clone(&counter);
                tokio::spawn(async move {
                    loop {
                        // One request head per loop (the client sends no bodies).
                        let mut head = Vec::new();
                        let mut byte = [0u8; 1];
                        while !head.ends_with(b"\r\n\r\n") {
                            match stream.read(&mut byte).await {
                                Ok(1) => head.push(byte[0]),
                                _ => return,
                            }
                        }
                        if head.starts_with(b"HEAD ") {
                            let answer = "HTTP/1.1 200 OK\r\nContent-Type: application/vnd.oci.image.index.v1+json\r\nContent-Length: 100\r\n\r\n";
                            if stream.write_all(answer.as_bytes()).await.is_err() {
                                return;
                            }
                            continue;
                        }
                        let answer = "HTTP/1.1 200 OK\r\nContent-Type: application/vnd.oci.image.index.v1+json\r\nTransfer-Encoding: chunked\r\n\r\n";
                        if stream.write_all(answer.as_bytes()).await.is_err() {
                            return;
                        }
                        let chunk = vec![b' '; 64 * 1024];
                        let frame = [
                            format!("{:x}\r\n", chunk.len()).into_bytes(),
                            chunk,
                            b"\r\n".to_vec(),
                        ]
                        .concat();
                        while stream.write_all(&frame).await.is_ok() {
                            counter.fetch_add(64 * 1024, std::sync::atomic::Ordering::SeqCst);
                        }
                        return;
                    }
                });
            }
        });
        Self { addr, sent, task }
    }

    /// Body bytes written so far.
    pub fn sent(&self) -> usize {
        self.sent.load(std::sync::atomic::Ordering::SeqCst)
    }
}

impl Drop for EndlessManifest {
    fn drop(&mut self) {
        self.task.abort();
    }
}
