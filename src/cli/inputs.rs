//! The values other stages embed or act on: the Kubernetes names and hub URL the runbook
//! pastes, GitHub's API URL and repository, the commit SHA, the tokens, the plain-HTTP
//! registries. Each rule is its owning module's and returns data; here it becomes the
//! [`UsageError`] naming the input (its words are [`crate::render::usage_words`]').

use super::UsageError;
use super::usage::{Problem, UrlKind};
pub(crate) use crate::context::CommitSha;
pub(crate) use crate::digest::host::Registries;
use crate::render::messages::RunWarning;
use crate::status::hub;
use crate::support::github::Repository;
pub(crate) use crate::support::kube_name::KubeName;
pub(crate) use crate::support::kube_name::NameKind;
use crate::support::log::Log;
use crate::support::secrets;
use crate::support::url;
use std::path::PathBuf;

/// `value` as a `kind` name ([`NameKind::name`]: trimmed, `--namespace` a
/// [`NameKind::Namespace`], `--helm-release` a [`NameKind::HelmRelease`]), else the
/// [`UsageError`] naming `input`.
pub(super) fn kube_name(input: &str, kind: NameKind, value: &str) -> Result<KubeName, UsageError> {
    kind.name(value)
        .map_err(|v| UsageError::of(input, v, Problem::NotAName(kind)))
}

/// `--hub-url` ([`url::hub_url`]), refused too when it is one of the hub's pages, its API
/// among them ([`hub::base_before_pages`]): `status` and the runbook (of `announce` and `docs`) share this.
pub(crate) fn hub_url(value: &str) -> Result<url::HttpUrl, UsageError> {
    let v = url::hub_url(value)
        .map_err(|e| UsageError::of("hub-url", e.shown, Problem::BadUrl(UrlKind::Hub, e.why)))?;
    match hub::base_before_pages(v.as_str()) {
        // Quoted as given (trimmed): its query, fragment or user name was refused above.
        Some(base) => Err(UsageError::of(
            "hub-url",
            value.trim(),
            Problem::HubPage { base },
        )),
        None => Ok(v),
    }
}

/// `--api-url` ([`url::api_base`]).
pub(crate) fn api_url(value: &str) -> Result<url::HttpUrl, UsageError> {
    url::base(value, url::api_base)
        .map_err(|e| UsageError::of("api-url", e.shown, Problem::BadUrl(UrlKind::Api, e.why)))
}

/// Warns ([`RunWarning::PlainHttp`]) when the token in input `token` goes to `url` (input
/// `input`) in the clear ([`url::sends_token_in_the_clear`]).
pub(crate) fn warn_if_plain_http(log: &Log, input: &str, url: &str, token: &str) {
    if url::sends_token_in_the_clear(url) {
        log.warn(&RunWarning::PlainHttp { input, url, token });
    }
}

/// `--repository` ([`Repository::input`]).
pub(crate) fn repository(value: &str) -> Result<Repository, UsageError> {
    Repository::input(value)
        .map_err(|e| UsageError::of("repository", e.shown, Problem::Repository(e.why)))
}

/// `--sha` ([`CommitSha::parse`]).
pub(super) fn commit_sha(text: &str) -> Result<CommitSha, UsageError> {
    CommitSha::parse(text).map_err(|_| UsageError::of("sha", text.trim(), Problem::NotACommit))
}

/// A file path an input gave, trimmed; never refused (but blank: [`super::value`]).
pub(super) fn path(text: &str) -> Result<PathBuf, UsageError> {
    Ok(PathBuf::from(text.trim()))
}

/// The paths an input gave one per line (`jupyterhub-values`), each as [`path`] reads one;
/// a blank line is left for the reader to skip, as a blank path is.
#[derive(Debug, Clone)]
pub(crate) struct Paths(pub(crate) Vec<PathBuf>);

/// [`Paths`] from `text`: LF or CRLF line ends; never refused.
pub(super) fn paths(text: &str) -> Result<Paths, UsageError> {
    text.lines().map(path).collect::<Result<_, _>>().map(Paths)
}

/// A secret input as a clap value parser ([`super::checked`]): a [`secrets::SecretString`]
/// from the start, so no `Debug` of the options shows it. Only text that is not UTF-8 is
/// refused, naming the input (by the value parser, before this runs).
pub(crate) fn secret_arg(text: &str) -> Result<secrets::SecretString, UsageError> {
    Ok(secrets::SecretString::from(text))
}

/// A secret input trimmed of the ASCII white space around it (a secret pasted with a line
/// break), refused when a control character is left inside: it would be sent as given (in a
/// header, or Basic credentials) and match no one's secret. The one rule of every secret
/// input: `registry-password`, and the tokens before their own ([`token`]); never quoted.
pub(crate) fn secret<'a>(input: &str, value: &'a str) -> Result<&'a str, UsageError> {
    let value = value.trim_ascii();
    let control = Problem::Token(secrets::TokenProblem::Characters { control: true });
    match value.chars().any(char::is_control) {
        true => Err(UsageError::new(input, control)),
        false => Ok(value),
    }
}

/// A token input, `hub-token` or `github-token`: a [`secret`], then [`secrets::token`]
/// (printable ASCII, at least [`secrets::MIN_CHARS`] characters); never quoted.
pub(crate) fn token<'a>(input: &str, value: &'a str) -> Result<&'a str, UsageError> {
    secrets::token(secret(input, value)?).map_err(|e| UsageError::new(input, Problem::Token(e)))
}

/// One `--insecure-registry` value ([`Registries::parse`]).
pub(super) fn insecure_value(text: &str) -> Result<Registries, UsageError> {
    Registries::parse(text).map_err(|e| UsageError::new("insecure-registry", Problem::Insecure(e)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::support::sanitize::{cap, is_invisible};
    use crate::support::text::Titled as _;
    use crate::support::url::sends_token_in_the_clear;

    /// Each of `bad` refused by `check` as a usage error naming `input`, never echoing a
    /// `SECRET` it holds: every case with its message, for one snapshot.
    fn refusals<T: std::fmt::Debug>(
        input: &str,
        bad: &[&str],
        check: impl Fn(&str) -> Result<T, UsageError>,
    ) -> String {
        let told: Vec<String> = bad
            .iter()
            .map(|bad| {
                let err = check(bad).unwrap_err();
                assert_eq!(err.input, input, "{bad:?}");
                assert!(!err.to_string().contains("SECRET"), "{bad:?}: {err}");
                format!("{bad:?}\n  {err}")
            })
            .collect();
        told.join("\n")
    }

    #[test]
    fn kubernetes_names_follow_dns_1123_and_helms_length() {
        let namespace = |v: &str| kube_name("namespace", NameKind::Namespace, v);
        let helm_release = |v: &str| kube_name("helm-release", NameKind::HelmRelease, v);
        for ok in ["jhub", "lab-prod", "a", "x1", &"a".repeat(63)] {
            assert_eq!(namespace(ok).unwrap().0, ok);
        }
        assert_eq!(namespace(" jhub ").unwrap().0, "jhub");
        for bad in [
            "",
            " ",
            "a b; rm -rf /",
            "Lab",
            "-lab",
            "lab-",
            "lab.prod",
            "lab_prod",
            "$(id)",
            &"a".repeat(64),
        ] {
            let err = namespace(bad).unwrap_err();
            assert_eq!(err.input, "namespace", "{bad:?}");
            assert!(err.to_string().contains("DNS-1123"), "{err}");
        }
        for ok in ["jhub", "hub.prod", &"a".repeat(53)] {
            assert_eq!(helm_release(ok).unwrap().0, ok);
        }
        for bad in ["", "Hub", "hub..prod", "hub;x", &"a".repeat(54)] {
            let err = helm_release(bad).unwrap_err();
            assert_eq!(err.input, "helm-release", "{bad:?}");
            assert!(err.to_string().contains("at most 53"), "{err}");
        }
    }

    #[test]
    fn hub_urls_are_plain_http_addresses() {
        for (given, kept) in [
            ("https://hub.example.org", "https://hub.example.org"),
            ("https://hub.example.org/", "https://hub.example.org"),
            (
                " http://10.0.0.5:8000/jupyter/ ",
                "http://10.0.0.5:8000/jupyter",
            ),
            ("http://[::1]:8000", "http://[::1]:8000"),
        ] {
            assert_eq!(hub_url(given).unwrap().as_str(), kept);
        }
        for (bad, says) in [
            ("", "is not a URL"),
            ("hub.example.org", "is not a URL"),
            ("ftp://hub.example.org", "http:// or https://"),
            ("https://hub`x`.org", "'`'"),
            ("https://hub.org/$(id)", "'$'"),
            ("https://hub.org/ x", "whitespace"),
            ("https://", "\"https://\" is not a URL"),
            ("https://hub.org/'x'", "has a quote (')"),
            ("https://hub.org/a\\b", "has \"\\\""),
            ("https://h.corp.org:0", "has port 0"),
            ("\"https://hub.org\"", "has a quote (\")"),
            ("https://hub.org/;rm", "';'"),
            ("https://hub.org/?a=1", "a query"),
            ("https://hub.org/#x", "a fragment"),
            ("https://user@hub.org", "a user name"),
            ("https://user:pw@hub.org/x", "a user name"),
            ("user:pw@hub.org", "a user name"),
            ("http:///path", "has no host"),
            ("https:///x", "has no host"),
            ("http:/path", "has no host"),
            ("http:path", "has no host"),
            ("https://hub.example.org/hub/api", "is a page of the hub"),
        ] {
            let err = hub_url(bad).unwrap_err();
            assert_eq!(err.input, "hub-url");
            assert!(err.to_string().contains(says), "{bad:?}: {err}");
            if bad.contains('@') {
                // The credentials are never echoed: the user info reads ***.
                assert!(!err.to_string().contains("user@"), "{bad:?}: {err}");
                assert!(!err.to_string().contains("user:pw"), "{bad:?}: {err}");
                assert!(err.to_string().contains("***@hub.org"), "{bad:?}: {err}");
            }
        }
    }

    /// A hub URL whose host is missing right after `://` (which the URL parser would read
    /// from the path), or that is one of the hub's pages (its API, `/hub/` or `/hub/home`
    /// copied from the browser, a user's `/user/NAME/lab`), is refused with what to write instead:
    /// `status` and the runbook take the same check, in the same words.
    #[test]
    fn a_hub_url_without_a_host_or_in_the_hubs_api_is_refused_saying_what_to_write() {
        let bad = [
            "http:///path",
            "https:///x",
            "http:/path",
            "https://hub.example.org/hub/api",
            "https://hub.example.org/hub/api/",
            "https://hub.example.org/hub/",
            "https://example.org/jupyter/hub/api/users",
            "https://hub.example.org/hub/home",
            "https://hub.example.org/hub/admin",
            "https://hub.example.org/user/alice/lab",
            "https://example.org/jupyter/user/alice/lab/tree/hub/x.ipynb",
        ];
        insta::assert_snapshot!(refusals("hub-url", &bad, hub_url));
        for fine in [
            "https://hub.example.org/hubs",
            "https://example.org/jupyter",
            "https://example.org/hubs/user",
        ] {
            assert_eq!(hub_url(fine).unwrap().as_str(), fine);
        }
        let err = hub_url("https://hub.example.org/hub/api").unwrap_err();
        assert_eq!(
            err.to_string(),
            hub_url("https://hub.example.org/hub/api")
                .unwrap_err()
                .to_string()
        );
    }

    #[test]
    fn api_urls_are_plain_http_addresses_and_credentials_are_never_echoed() {
        for (given, kept) in [
            ("https://api.github.com", "https://api.github.com"),
            (
                " https://github.example.com/api/v3/ ",
                "https://github.example.com/api/v3",
            ),
            ("http://127.0.0.1:8080", "http://127.0.0.1:8080"),
        ] {
            assert_eq!(api_url(given).unwrap().as_str(), kept);
        }
        let bad = [
            "ftp://x",
            "api.github.com",
            "file:///etc/passwd",
            "https://user:SECRET@api.github.com",
            "https://SECRET@api.github.com",
            "https://api.github.com/?access_token=SECRET",
            "https://api.github.com/#SECRET",
            "https://",
            "https:///",
            "https://api.github.com/ x",
            "https://api.github.com/\tx",
            "https://api.git\u{200b}hub.com",
            "https://SECRET@api.github.com/ x",
            "http:///path",
            "https:///x",
            "https:/api.github.com",
            "https:api.github.com",
            "https:\\\\api.github.com",
        ];
        insta::assert_snapshot!(refusals("api-url", &bad, api_url));
    }

    /// Plain HTTP is warned about only where the token leaves loopback, private networks
    /// and the cluster.
    #[test]
    fn a_token_in_the_clear_is_plain_http_to_a_public_host() {
        let clear = [
            "http://hub.example.org",
            "http://api.github.com",
            "http://8.8.8.8:8000",
            "http://[2001:db8::1]",
        ];
        let kept = [
            "https://hub.example.org",
            "http://127.0.0.1:8000",
            "http://localhost",
            "http://10.1.2.3",
            "http://192.168.0.5:8081",
            "http://[::1]:8000",
            "http://[fd00::1]",
            "http://proxy-public",
            "http://proxy-public.jhub.svc",
            "http://proxy-public.jhub.svc.cluster.local:80",
            "http://hub.corp.internal",
            "http://hub.local",
        ];
        for url in clear {
            assert!(sends_token_in_the_clear(url), "{url}");
        }
        for url in kept {
            assert!(!sends_token_in_the_clear(url), "{url}");
        }
        let warning = RunWarning::PlainHttp {
            input: "hub-url",
            url: "http://hub.example.org",
            token: "hub-token",
        };
        insta::assert_snapshot!(format!("{}: {warning}", warning.title()), @"
        Plain HTTP: hub-url http://hub.example.org is plain http:// to a host outside loopback, private networks and the cluster
        help: hub-token is sent unencrypted to it: use https://, or an address inside the cluster or a private network
        ");
    }

    #[test]
    fn repositories_follow_githubs_naming_rules() {
        let owner_39 = format!("{}/r", "a".repeat(39));
        let name_100 = format!("o/{}", "r".repeat(100));
        // Each given value, and the repository it names (the ends trimmed).
        for (given, named) in [
            ("octo-org/lab", "octo-org/lab"),
            (" o/r ", "o/r"),
            ("a-b-c/x.y_z-1", "a-b-c/x.y_z-1"),
            ("o/.github", "o/.github"),
            ("o/..x", "o/..x"),
            // An Enterprise Managed User's own repository: its login ends in `_SHORTCODE`.
            ("octocat_acme/lab", "octocat_acme/lab"),
            (&owner_39, &owner_39),
            (&name_100, &name_100),
        ] {
            assert_eq!(repository(given).unwrap().to_string(), *named, "{given:?}");
        }
        let owner_40 = format!("{}/r", "a".repeat(40));
        let name_101 = format!("o/{}", "r".repeat(101));
        let bad = [
            "noslash",
            "../x",
            "o/..",
            "o/.",
            "o/",
            "/r",
            "-o/r",
            "o-/r",
            "o--p/r",
            "o_/r",
            "o_p_q/r",
            "o.p/r",
            "o/r/x",
            "o/r x",
            "o/r\u{202e}",
            &owner_40,
            &name_101,
            "o/r.git",
            "o/r.GIT",
            "o/.git",
            "o/r.git.git",
            "o/.git.git",
        ];
        insta::assert_snapshot!(refusals("repository", &bad, repository));
    }

    #[test]
    fn a_query_or_fragment_in_the_hub_url_is_refused_without_echoing_it() {
        let err = hub_url("http://127.0.0.1:1/?token=SECRET").unwrap_err();
        assert_eq!(err.input, "hub-url");
        insta::assert_snapshot!(err.to_string(), @r#"
            hub-url (--hub-url) "http://127.0.0.1:1/?***" has a query ('?')
            help: the hub's address takes no query or fragment (a token goes in hub-token, never in the URL): write the address users open, e.g. https://hub.example.org
        "#);
        for bad in [
            "https://u:pw@hub.org/x?token=SECRET#SECRET",
            "https://hub.org/x#SECRET",
            "https://hub.org?a@SECRET",
            "https://hub.org/$x?SECRET",
        ] {
            let err = hub_url(bad).unwrap_err();
            assert!(
                !err.to_string().contains("SECRET") && !err.to_string().contains("pw"),
                "{bad:?}: {err}"
            );
        }
    }

    /// The entries of `values`, one per line, refused as [`insecure_value`] refuses one value.
    fn insecure_registries(values: &[String]) -> Result<Vec<String>, UsageError> {
        insecure_value(&values.join("\n")).map(|r| r.0)
    }

    /// The forms that work, as image references name a registry: names in any case, IPv4,
    /// a dot, a port (1 to 65535) or `localhost`, and entries separated by commas and line
    /// breaks (LF, CR, CRLF), blanks and spaces around them left out.
    #[test]
    fn insecure_registries_take_hosts_and_ports_between_commas_and_line_breaks() {
        let long = format!("{}.test:5000", "a".repeat(248));
        let given = [
            " localhost:5000, 127.0.0.1:5000 \nlocalhost\r\n".to_string(),
            "LOCALHOST:5000,,registry.example.edu".to_string(),
            // A lone CR is a line break too (the runner's .NET ReadLine ends a line at it).
            "a.test\rb.test\r\n\r\nr:1,r:65535".to_string(),
            // A host of 253 characters, DNS's most.
            long.clone(),
        ];
        assert_eq!(
            insecure_registries(&given).unwrap(),
            [
                "localhost:5000",
                "127.0.0.1:5000",
                "localhost",
                "LOCALHOST:5000",
                "registry.example.edu",
                "a.test",
                "b.test",
                "r:1",
                "r:65535",
                &long,
            ]
        );
        assert!(
            insecure_registries(&[" , \n\r\n\r".to_string()])
                .unwrap()
                .is_empty()
        );
    }

    /// What no image reference names as its registry, each refused with the HOST:PORT to
    /// write; the URL-looking ones with the HOST:PORT inside them.
    #[test]
    fn insecure_registries_are_hosts_and_ports_as_image_references_name_them() {
        let bad = [
            "http://localhost:5000",
            "https://registry.example.edu/",
            "http://a..b/",
            "\u{1b}[31m://localhost",
            "localhost:5000/path",
            "localhost:5000/",
            "localhost:5000?x",
            "localhost:99999",
            "localhost:0",
            "localhost:",
            "localhost:http",
            "localhost:05000",
            &format!("{}.test:5000", "a".repeat(249)),
            "registry",
            "a b",
            "a\tb",
            "::1",
            "[::1]:5000",
            "[1.2.3.4]",
            "::error::x",
            "%0A::error::x",
            "reg_istry:5000",
            "o'neil.test",
            "bücher.example:5000",
            "a%41:5000",
            "local\u{1b}[31mhost",
            "local\u{200b}host:5000",
            "\u{3164}:5000",
            ":5000",
            ".",
            "a..b",
            ".a",
            "-a.test",
            "a-.test",
            "localhost.",
            // A long entry is quoted cut (last: see below).
            &format!("http://{}_:5000", "a".repeat(100_002)),
        ];
        // Each after a good entry: the list is checked entry by entry.
        let check = |bad: &str| {
            let err = insecure_registries(&[format!("ok.test:1,{bad}")]);
            // No echo floods the log or carries a control or invisible character.
            let message = &err.as_ref().unwrap_err().to_string();
            assert!(message.chars().count() < 1_000, "{}", cap(message, 300));
            assert!(
                !message
                    .chars()
                    .any(|c| (c.is_control() && c != '\n') || is_invisible(c)),
                "{message:?}"
            );
            err
        };
        let table = refusals("insecure-registry", &bad, check);
        // The 100,002 characters of the last entry, as the table names it.
        let long = format!("{:?}", bad[bad.len() - 1]);
        let table = table.replace(&long, "\"http://aaa…_:5000\" (100,015 characters)");
        insta::assert_snapshot!(table);
        // Taken: the grammar's own (`127.1` is a name to it, and the client's URL reads it).
        for fine in ["127.1:5000", "1.2.3.4.5", "registry.123"] {
            assert!(insecure_registries(&[fine.to_string()]).is_ok(), "{fine}");
        }
    }

    #[test]
    fn an_insecure_registry_value_with_an_at_sign_is_refused_whole_and_never_echoed() {
        let leaks = [
            "user:s3cr/et@host",
            "http://user:s3cr/et@host",
            "user:pa,ss@host",
            "user:pa?ss@host",
            "user:pa#ss@host",
            "user:pa\nss@host",
            "user:pa\r\nss@host",
            "localhost:5000,ci:hunter2@localhost:5000",
            "ok.test:1\n http://ci:hunter2@localhost:5000/v2/ ",
            "hunter2@localhost",
            "localhost:5000/@hunter2",
            "user:SECRET@localhost:5000",
        ];
        for value in leaks {
            // As one value (the Action input) and as clap passes it, split at commas.
            let split: Vec<String> = value.split(',').map(String::from).collect();
            for given in [vec![value.to_string()], split] {
                let err = insecure_registries(&given).unwrap_err();
                assert_eq!(err.input, "insecure-registry");
                for part in [
                    "s3cr", "et@", "pa,", "pa?", "pa#", ":pa", "ss@", "hunter2", "user:", "ci:",
                    "SECRET",
                ] {
                    assert!(!err.to_string().contains(part), "{value:?}: {err}");
                }
            }
        }
        let err = insecure_registries(&["localhost:5000,ci:hunter2@localhost:5000".into()]);
        insta::assert_snapshot!(err.unwrap_err().to_string(), @r#"
            insecure-registry (--insecure-registry) entry 2 holds '@', as a user name or password does
            help: no part of the value is shown (entries are counted at commas and line breaks): list each registry without credentials, and give the registry's user name and password in registry-username and registry-password; each entry is HOST or HOST:PORT as the image reference names the registry (letters, digits, '-' and '.', at most 253, with a dot or a port unless it is localhost; port 1 to 65535, no leading zeros), e.g. localhost:5000
        "#);
    }
}
