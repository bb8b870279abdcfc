//! Kubernetes access as kubectl and JupyterHub users have it (issue 32, items 7-10 and 12):
//! `status` by digest from a kubeconfig file and the hub token in its usual variable, with
//! no secret on the command line (the real hub rig and the fake API server of
//! tests/it/kube.rs); credentials that cannot work refused as bad input (exit 2) before the
//! hub is read.

use crate::common::hub::{Hub, HubSettings, iso, unix_now};
use crate::common::kube::{FakeKube, TOKEN};
use crate::common::registry::{free_port, make_layout};
use crate::common::run_codeq;
use serde_json::Value;
use std::collections::BTreeMap;

const READER_TOKEN: &str = "kube-access-reader-0123456789abcdef";

const SLOW_CULLER: HubSettings = HubSettings {
    timeout: 600,
    every: 300,
    max_age: 0,
    slow_stop_timeout: 1,
};

/// A hub service holding `READER_TOKEN` with the scopes `status` needs.
fn reader_service() -> String {
    let scopes: Vec<String> = codeq_rollout::SCOPES
        .iter()
        .map(|s| format!("{s:?}"))
        .collect();
    format!(
        r#"c.JupyterHub.services.append({{"name": "reader", "api_token": "{READER_TOKEN}"}})
c.JupyterHub.load_roles.append({{"name": "reader", "services": ["reader"], "scopes": [{}]}})
"#,
        scopes.join(", ")
    )
}

/// A fresh user as README shows: the kubeconfig in `~/.kube/config`, the hub token in
/// `JUPYTERHUB_API_TOKEN`, `--kubernetes true`; the run says which namespace and context it
/// reads, and judges by digest.
#[tokio::test]
async fn status_by_digest_reads_the_kubeconfig_file_and_the_token_from_the_usual_variable() {
    let fake = FakeKube::start();
    let dir = tempfile::tempdir().unwrap();
    let index = make_layout(&dir.path().join("lab"), "latest", "kube-access");
    let hub = Hub::start_with(SLOW_CULLER, &reader_service()).await;
    let released_at = iso(unix_now());
    hub.set_kube(&fake.admin_url(), &[], &format!("ghcr.io/org/lab@{index}"));
    hub.start_servers(&["ada"]).await;
    let home = dir.path().join("home");
    std::fs::create_dir_all(home.join(".kube")).unwrap();
    std::fs::write(home.join(".kube/config"), fake.kubeconfig()).unwrap();
    let env = BTreeMap::from([
        ("HOME".to_string(), home.display().to_string()),
        ("JUPYTERHUB_API_TOKEN".to_string(), READER_TOKEN.to_string()),
    ]);
    let image = format!("oci:{}:latest", dir.path().join("lab").display());
    let base = hub.api.trim_end_matches("/hub/api");
    let args = [
        "status",
        "--hub-url",
        base,
        "--released-at",
        &released_at,
        "--image",
        &image,
        "--kubernetes",
        "true",
        "--json",
    ];
    let (code, stdout, stderr) = run_codeq(&args, &env);
    assert_eq!(code, 0, "{stderr}");
    let config = home.join(".kube/config");
    let info = format!(
        "Kubernetes: reading the pods of namespace jhub (the context's), release jhub, through the context \"hub\" of {}",
        config.display()
    );
    assert_eq!(stderr.lines().next(), Some(info.as_str()), "{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["totals"]["evidence"], "digest", "{report}");
    assert_eq!(report["servers"][0]["state"], "updated", "{report}");
    assert_eq!(
        fake.requests()[0]["authorization"],
        format!("Bearer {TOKEN}")
    );
    drop(hub);
}

/// Each kubeconfig that cannot work is refused as bad input (exit 2) naming the file or
/// the token file missing and what to do, before the hub is read (the hub's address answers
/// nothing: a run that read it would fail there, exit 1); a cluster read without checking
/// its certificate is a warning.
#[test]
fn credentials_that_cannot_work_are_refused_before_the_hub_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = |name: &str, user: &str, cluster: &str| {
        let path = dir.path().join(name);
        let config = format!(
            "apiVersion: v1\nkind: Config\nclusters: [{{name: hub, cluster: {{server: 'https://127.0.0.1:{}', {cluster}}}}}]\nusers: [{{name: ci, user: {{{user}}}}}]\ncontexts: [{{name: hub, context: {{cluster: hub, user: ci}}}}]\ncurrent-context: hub\n",
            free_port()
        );
        std::fs::write(&path, config).unwrap();
        path.display().to_string()
    };
    let basic = kubeconfig("basic", "username: admin, password: SECRET-pw", "");
    let none = kubeconfig("none", "", "");
    let unverified = kubeconfig(
        "unverified",
        "token: SECRET-token-0123",
        "insecure-skip-tls-verify: true",
    );
    // kube builds the TLS configuration only when it makes the client: refused before that.
    let not_pem = kubeconfig(
        "not-pem",
        "client-certificate-data: Q0VSVA==, client-key-data: S0VZ",
        "",
    );
    // kube drops a client identity it cannot load and would send no credentials at all.
    let no_key = kubeconfig("no-key", "client-certificate-data: Q0VSVA==", "");
    let not_base64 = kubeconfig(
        "not-base64",
        "client-certificate-data: Q0VSVA==, client-key-data: SECRETKEY_notb64!!",
        "",
    );
    // A token pasted with its scheme, as an Authorization header carries it.
    let bearer = kubeconfig("bearer", "token: 'Bearer SECRET-token-0123'", "");
    // Two files listed for --kubeconfig, as KUBECONFIG lists them.
    let listed = format!("{basic}:{none}");
    // The file's content given on the command line, with a context it lacks.
    let content = std::fs::read_to_string(&none)
        .unwrap()
        .replace("current-context: hub", "current-context: prod");
    let hub = format!("http://127.0.0.1:{}", free_port());
    let at = "2026-11-30T12:00:00Z";
    // The options, the variables, the exit code.
    type Case<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)], i32);
    let cases: [Case; 13] = [
        (&["--kubeconfig", &basic], &[], 2),
        (&["--kubeconfig", &no_key], &[], 2),
        (&["--kubeconfig", &not_base64], &[], 2),
        (&["--kubeconfig", &none], &[], 2),
        (&["--kubeconfig", &not_pem], &[], 2),
        (&["--kubeconfig", "/nowhere/config"], &[], 2),
        (&["--kubeconfig", &bearer], &[], 2),
        (&["--kubeconfig", &listed], &[], 2),
        (&["--kubeconfig", &content], &[], 2),
        (
            &["--kubernetes", "true"],
            &[("KUBECONFIG", "/nowhere/ci.yaml")],
            2,
        ),
        (
            &["--kubernetes", "true"],
            &[("KUBERNETES_SERVICE_HOST", "10.0.0.1")],
            2,
        ),
        (&["--kubeconfig", &unverified], &[], 1),
        (&["--kubeconfig", ""], &[], 2),
    ];
    let mut table = Vec::new();
    for (given, variables, exit) in cases {
        let mut args = vec!["status", "--hub-url", &hub, "--released-at", at];
        args.extend(["--image", "oci:examples/lab"]);
        args.extend(given);
        let mut env: BTreeMap<String, String> = (variables.iter())
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        env.insert("JUPYTERHUB_API_TOKEN".into(), READER_TOKEN.into());
        let (code, stdout, stderr) = run_codeq(&args, &env);
        assert_eq!(code, exit, "{given:?}\n{stdout}\n{stderr}");
        assert!(!stderr.contains("SECRET"), "{stderr}");
        let stderr = stderr.replace(&dir.path().display().to_string(), "DIR");
        let stderr = stderr.replace(&hub, "HUB");
        let variables: Vec<String> = variables.iter().map(|(k, v)| format!("{k}={v} ")).collect();
        let given = given
            .join(" ")
            .replace(&dir.path().display().to_string(), "DIR");
        // The run's own lines about Kubernetes (stdout), then stderr.
        let kube: String = (stdout.lines())
            .filter(|l| l.starts_with("Kubernetes:"))
            .map(|l| format!("{l}\n"))
            .collect();
        let kube = kube.replace(&dir.path().display().to_string(), "DIR");
        table.push(format!("{}{given}\n{kube}{stderr}", variables.concat()));
    }
    let table = table.join("\n");
    // The port of each kubeconfig's server differs from run to run.
    let table = regex::Regex::new(r"127\.0\.0\.1:\d+")
        .unwrap()
        .replace_all(&table, "127.0.0.1:PORT");
    insta::assert_snapshot!(table);
}

/// `--context` while Kubernetes is off selects nothing: a warning says so before the hub is
/// read (its address answers nothing here: exit 1 there), and no kubeconfig is read
/// (`KUBECONFIG` names none that exists, which a read would refuse with exit 2).
#[test]
fn a_context_with_kubernetes_off_is_warned_about() {
    let hub = format!("http://127.0.0.1:{}", free_port());
    let args = [
        "status",
        "--hub-url",
        &hub,
        "--released-at",
        "2026-11-30T12:00:00Z",
    ];
    let args: Vec<&str> = args.into_iter().chain(["--context", "prod"]).collect();
    let env = BTreeMap::from([
        ("JUPYTERHUB_API_TOKEN".to_string(), READER_TOKEN.to_string()),
        ("KUBECONFIG".to_string(), "/nowhere/config".to_string()),
    ]);
    let (code, _, stderr) = run_codeq(&args, &env);
    assert_eq!(code, 1, "{stderr}");
    let first = stderr.split("\nerror: ").next().unwrap();
    assert_eq!(
        first,
        "warning: context is set but Kubernetes is off: no kubeconfig is read and servers are judged by start time\nhelp: to judge by each pod's digest, pass --kubeconfig PATH or --kubernetes; else remove --context"
    );
}

/// `--kubeconfig <(…)` (bash's process substitution: a pipe at `/dev/fd/63`) is read, as
/// kubectl reads it: the run says which context of it it reads, then fails only at the hub
/// (its address answers nothing here: exit 1).
#[test]
fn a_kubeconfig_given_by_process_substitution_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config");
    let fake = FakeKube::start();
    std::fs::write(&path, fake.kubeconfig()).unwrap();
    let hub = format!("http://127.0.0.1:{}", free_port());
    let out = std::process::Command::new("bash")
        .args([
            "-c",
            r#"f=$1; shift; exec "$0" "$@" --kubeconfig <(cat "$f")"#,
        ])
        .arg(crate::common::binary())
        .arg(&path)
        .args([
            "status",
            "--hub-url",
            &hub,
            "--released-at",
            "2026-11-30T12:00:00Z",
        ])
        .args(["--image", "oci:examples/lab"])
        .current_dir(crate::common::repo_root())
        .env_clear()
        .env("JUPYTERHUB_API_TOKEN", READER_TOKEN)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    let both = format!("{}{}", text(&out.stdout), text(&out.stderr)).replace(&hub, "HUB");
    let both = regex::Regex::new(r"/dev/fd/\d+")
        .unwrap()
        .replace_all(&both, "/dev/fd/N");
    insta::assert_snapshot!(both, @r#"
    Kubernetes: reading the pods of namespace jhub (the context's), release jhub, through the context "hub" of /dev/fd/N
    oci:examples/lab:latest resolves to sha256:dd0db304db5f630383105edfe8b83acde57e620eec75ba323990f58dacb38c9a
    error: cannot reach the hub at HUB/hub/api/users?state=active&offset=0&limit=200 after 4 tries
    caused by: Connection refused (os error 111)
    help: check hub-url and that this runner can reach the hub
    "#);
    assert!(fake.requests().is_empty(), "no pod was read before the hub");
}
