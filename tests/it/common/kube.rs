//! The fake Kubernetes API server (tests/kube/fake_apiserver.py) as the tests drive it: started
//! on free loopback ports with its own CA, stopped by its PID when dropped (also when a test
//! fails). [`FakeKube::kubeconfig`] is the ServiceAccount-token kubeconfig docs/status-kubernetes.md
//! shows, pointing at it.

use super::registry::repo_root;
use super::{start_script, until_started};
use serde_json::{Value, json};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The token the fake accepts.
pub const TOKEN: &str = "fake-kube-token-0123456789";

/// A running fake API server.
pub struct FakeKube {
    child: Child,
    /// Its working directory (certificates, ports).
    pub dir: tempfile::TempDir,
    /// The TLS API port.
    pub api: u16,
    /// The plain-HTTP admin port (tests and the hub rig).
    pub admin: u16,
}

impl Drop for FakeKube {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl FakeKube {
    /// Starts the fake and waits (bounded, 60 s) until it listens.
    pub fn start() -> FakeKube {
        let dir = tempfile::tempdir().unwrap();
        let args = [
            "--dir".as_ref(),
            dir.path().as_os_str(),
            "--token".as_ref(),
            TOKEN.as_ref(),
        ];
        let child = start_script("fake_apiserver.py", &args, dir.path());
        let mut fake = FakeKube {
            child,
            dir,
            api: 0,
            admin: 0,
        };
        let within = Duration::from_secs(60);
        let (child, dir) = (&mut fake.child, fake.dir.path());
        let ports: Value = until_started("the fake API server", child, dir, within, |d| {
            let text = std::fs::read_to_string(d.join("ports.json")).ok()?;
            serde_json::from_str(&text).ok()
        });
        let port = |name: &str| u16::try_from(ports[name].as_u64().unwrap()).unwrap();
        (fake.api, fake.admin) = (port("api"), port("admin"));
        fake
    }

    /// The admin base URL.
    pub fn admin_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.admin)
    }

    /// One admin request (HTTP/1.1 over loopback, `Connection: close`), its JSON answer.
    fn send(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        use std::io::{Read, Write};
        let body = body.map(|b| b.to_string()).unwrap_or_default();
        let mut stream = std::net::TcpStream::connect(("127.0.0.1", self.admin)).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
        write!(
            stream,
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        let (head, json) = answer.split_once("\r\n\r\n").expect("an HTTP answer");
        assert!(
            head.starts_with("HTTP/1.0 200") || head.starts_with("HTTP/1.1 200"),
            "{head}"
        );
        serde_json::from_str(json).unwrap()
    }

    /// Adds or replaces pods (see the fake's documentation for the spec keys).
    pub fn add_pods(&self, specs: &[Value]) {
        self.send("POST", "/pods", Some(json!(specs)));
    }

    /// Sets a fault (`unauthorized`, `forbidden`, `expire-continue`), or clears it.
    pub fn fault(&self, mode: Option<&str>) {
        self.send("POST", "/fault", Some(json!({"mode": mode})));
    }

    /// The API requests received so far.
    pub fn requests(&self) -> Vec<Value> {
        self.send("GET", "/requests", None)
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    /// The CA certificate file.
    pub fn ca(&self) -> std::path::PathBuf {
        self.dir.path().join("ca.pem")
    }

    /// A ServiceAccount-token kubeconfig for the fake (server, CA data, token), or with
    /// `server` another address (unreachable tests).
    pub fn kubeconfig_at(&self, server: &str, token: &str) -> String {
        let ca = std::fs::read(self.ca()).unwrap();
        super::controlplane::kubeconfig_for(server, &ca, "codeq-rollout-status", token, "jhub")
    }

    /// The kubeconfig for the fake with its token.
    pub fn kubeconfig(&self) -> String {
        self.kubeconfig_at(&format!("https://127.0.0.1:{}", self.api), TOKEN)
    }
}
