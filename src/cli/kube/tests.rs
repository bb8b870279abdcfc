use super::*;
use crate::status::kube::Origin;
use crate::status::kube::tests::{KUBECONFIG, kubeconfig};
use clap::Parser;

#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    kube: KubeArgs,
}

/// The request `args` give with `env` (and `log`), or the input refused and the words, worded
/// for the Action when `env` sets an input (as `crate::dispatch` marks a refusal there).
fn request(
    args: &[&str],
    env: &[(&str, &str)],
    log: &Log,
) -> Result<Option<KubeRequest>, (String, String)> {
    let cli = Cli::try_parse_from(std::iter::once("x").chain(args.iter().copied()))
        .map_err(|e| ("clap".to_string(), e.to_string()))?;
    let in_actions = env.iter().any(|(k, _)| k.starts_with("INPUT_"));
    let env = env
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    (cli.kube.request(log, &env)).map_err(|mut e| {
        e.in_actions = in_actions;
        (e.input.clone(), e.to_string())
    })
}

/// Kubernetes is off unless asked for (`kubernetes` takes the booleans every switch takes),
/// and each refusal names the input to change.
#[test]
fn kubernetes_is_off_unless_asked_for_and_each_refusal_names_its_input() {
    let log = Log::new(false, false);
    let off = |args: &[&str]| request(args, &[], &log).unwrap().is_none();
    assert!(off(&[]) && off(&["--kubernetes", "false"]) && off(&["--kubernetes", "off"]));
    // Overdue needs no pods.
    assert!(off(&["--fail-on", "overdue"]));
    let on = request(
        &["--kubernetes", "true", "--kubeconfig", KUBECONFIG],
        &[],
        &log,
    );
    assert_eq!(on.unwrap().unwrap().query.namespace, "hub-ns");
    let alone = request(&["--kubernetes", "--kubeconfig", KUBECONFIG], &[], &log);
    assert!(alone.unwrap().is_some(), "--kubernetes alone is true");
    let cluster = [("KUBERNETES_SERVICE_HOST", "10.0.0.1")];
    let table: Vec<String> = [
        (
            &["--kubernetes", "false", "--kubeconfig", KUBECONFIG][..],
            &[][..],
        ),
        (&["--fail-on", "overdue,orphan,mismatch"], &[]),
        (&["--kubernetes", "false", "--fail-on", "orphan"], &[]),
        (&["--fail-on", "mismatch", "--kubeconfig", "\n"], &[]),
        (&["--kubernetes", "yes"], &cluster),
        (&["--kubeconfig", KUBECONFIG, "--context", "prod"], &[]),
        (&["--kubeconfig", "/nowhere/config"], &[]),
        (&["--kubernetes", "maybe"], &[]),
    ]
    .iter()
    .map(|(args, env)| {
        let (input, words) = request(args, env, &log).expect_err("refused");
        let words = words.lines().next().unwrap_or_default().to_string();
        let args = args.join(" ").replace(KUBECONFIG, "KUBECONFIG");
        format!("{args}\n  {input}: {words}")
    })
    .collect();
    insta::assert_snapshot!(table.join("\n"));
}

/// On the command line a one-line value is a path, as for kubectl; the Action input (the
/// runner's `INPUT_KUBECONFIG`) is the file's content, and so is a value of several lines.
#[test]
fn the_command_line_gives_a_path_and_the_action_input_the_content() {
    let log = Log::new(false, false);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config");
    std::fs::write(
        &path,
        kubeconfig("sa-token-0123456789", "file-token-0123456789"),
    )
    .unwrap();
    let path = path.to_str().unwrap();
    let read = request(&["--kubeconfig", path], &[], &log)
        .unwrap()
        .unwrap();
    let Credentials::Kubeconfig { origin, .. } = &read.credentials else {
        panic!("{read:?}");
    };
    assert_eq!(*origin, Origin::Flag(path.into()));
    // The file's secrets are registered once it is read.
    assert_eq!(log.redact("file-token-0123456789"), "***");
    let from_input = request(&["--kubeconfig", path], &[("INPUT_KUBECONFIG", path)], &log);
    let (input, words) = from_input.expect_err("a path is no kubeconfig content");
    assert_eq!(input, "kubeconfig");
    let first = "the kubeconfig input holds a path, not the file's content: store the file's content in the secret";
    assert_eq!(words.lines().next(), Some(first));
    let content = request(&["--kubeconfig", KUBECONFIG], &[], &log)
        .unwrap()
        .unwrap();
    assert!(matches!(
        content.credentials,
        Credentials::Kubeconfig {
            origin: Origin::Input,
            ..
        }
    ));
}

#[test]
fn fail_on_lists_alarms_in_order_in_any_case_and_refuses_others() {
    let alarms =
        |list: &str| Cli::try_parse_from(["x", "--fail-on", list]).map(|c| c.kube.alarms());
    assert_eq!(
        alarms("mismatch,orphan").unwrap(),
        [Alarm::Mismatch, Alarm::Orphan]
    );
    // Newline-separated as other list inputs (an Action input's block scalar).
    assert_eq!(
        alarms("mismatch\n Overdue\r\norphan\n").unwrap(),
        [Alarm::Mismatch, Alarm::Overdue, Alarm::Orphan]
    );
    assert!(alarms("mismatch\nlate").is_err() && alarms("late").is_err());
    let bad = Cli::try_parse_from(["x", "--kubernetes", "true", "--namespace", "Bad_NS"]);
    assert!(bad.is_err(), "clap refuses a bad namespace");
}

/// A `--kubeconfig` value is content when it spans lines, or names no file and reads as YAML
/// or JSON (`kubectl config view --raw -o json | jq -c`): never echoed as a missing path.
#[test]
fn a_kubeconfig_value_is_content_when_it_reads_as_one() {
    let dir = tempfile::tempdir().unwrap();
    let odd = dir.path().join("a: b");
    std::fs::write(&odd, KUBECONFIG).unwrap();
    let cases = [
        ("~/.kube/config", false),
        ("/etc/kube/ci.yaml", false),
        (odd.to_str().unwrap(), false),
        ("{\"apiVersion\":\"v1\",\"users\":[]}", true),
        ("  {apiVersion: v1}  ", true),
        ("apiVersion: v1", true),
        (KUBECONFIG, true),
    ];
    for (value, content) in cases {
        assert_eq!(is_content(value), content, "{value:?}");
    }
}
