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
        let dir = tempfile::tempdir().expect("temp dir");
        let port = free_port();
        let addr = format!("127.0.0.1:{port}");
        let config = format!(
            "version: 0.1\nlog:\n  level: info\n  accesslog:\n    disabled: true\nstorage:\n  filesystem:\n    rootdirectory: {root}\n  delete:\n    enabled: true\nhttp:\n  addr: {addr}\n{extra}\n",
            root = dir.path().join("data").display(),
            extra = extra.replace("{dir}", &dir.path().display().to_string()),
        );
        let config_path = dir.path().join("config.yml");
        std::fs::write(&config_path, config).unwrap();
        let mut child = Command::new("docker-registry")
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
    /// completed" and auth-challenge log lines), in order. A marker request is sent and waited for (bounded)
    /// first, so every request that completed before this call is in the answer.
    pub fn served(&self) -> Vec<String> {
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
                return lines[..at]
                    .iter()
                    .filter(|l| {
                        // A served request, or one refused with an auth challenge (logged
                        // without "response completed").
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
                    .collect();
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the registry did not log the marker request within 10 s"
            );
            std::thread::yield_now();
        }
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
