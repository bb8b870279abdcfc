//! The words of bad usage ([`super::usage::Problem`]): what failed, naming the input as
//! `NAME (--NAME)` and quoting the value as given where there is one, and, apart, the help
//! (what to write instead), chosen by variant.

use super::usage::{
    CalendarFix, DurationLimit, DurationProblem, EntryProblem, GitHubUse, HostNameProblem,
    HubSizeProblem, NameKind, PortProblem, Problem, Required, Rule, Said, TemplateProblem, UrlKind,
    UrlProblem,
};
use super::window_words::{human, human_at_most, servers_words};
use crate::support::duration::JOB_MAX_WORDS;
use crate::support::sanitize::is_invisible;
use crate::support::time::rfc3339_seconds as rfc3339;

/// A usage error in words: `message` (what failed, with what input), `help` (what to do;
/// empty when the message says it all), and the `joint` between them (`: ` or `; `).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Words {
    /// What failed, naming the input.
    pub(crate) message: String,
    /// What to write instead.
    pub(crate) help: String,
    joint: &'static str,
}

impl std::fmt::Display for Words {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.help.is_empty() {
            true => f.write_str(&self.message),
            false => write!(f, "{}{}{}", self.message, self.joint, self.help),
        }
    }
}

/// The words every `insecure-registry` refusal ends with.
const INSECURE_RULE: &str = "each entry is HOST or HOST:PORT (port 1 to 65535) as the image reference names the registry, e.g. localhost:5000";
/// What to write instead of a host that is not one.
const HOST_FIX: &str = "write a host name (labels of 1 to 63 letters, digits and '-', not starting or ending with '-', joined by single dots, at most 253 characters, no final dot), an IPv4 address (127.0.0.1) or a bracketed IPv6 address ([::1])";
/// What to write instead of a bad bracketed address.
const BRACKETS: &str =
    "write an IPv6 address in brackets, with any port after them, e.g. [::1] or [::1]:5000";
/// The words a boolean input takes.
pub(crate) const BOOLEAN_WORDS: &str = "true or false (also yes/no, on/off, 1/0)";
/// The least a duration help says it takes.
const DURATION_FORMS: &str = "or a duration such as 90s, 10m, 1h 30m";
/// What the templates' help says.
const TEMPLATE_EXAMPLE: &str = "e.g. .github/release-note.md.j2";
/// The two ways out of credentials in a registry list.
const REGISTRY_CREDENTIALS: &str = "list each registry without credentials, and give the registry's user name and password in registry-username and registry-password (--registry-username, --registry-password)";

/// `text` between `quote`s with Rust's string escapes (so control characters and most
/// invisible ones read `\u{..}`), and any invisible character those leave
/// ([`is_invisible`], e.g. a Hangul filler) escaped too: a quoted value shows what it holds
/// and cannot act on a terminal or the Actions log.
pub(crate) fn escaped(text: &str, quote: &str) -> String {
    let debug = format!("{text:?}");
    let inner = &debug[1..debug.len() - 1];
    let inner = if quote == "'" {
        inner.replace("\\\"", "\"").replace('\'', "\\'")
    } else {
        inner.to_string()
    };
    let inner: String = inner
        .chars()
        .map(|c| match is_invisible(c) {
            true => c.escape_unicode().to_string(),
            false => c.to_string(),
        })
        .collect();
    format!("{quote}{inner}{quote}")
}

/// The words of `problem` about `input` (its action.yml name, also the `--option`), whose
/// value as given (safe to show: credentials and queries already `***`) is `given`.
pub(crate) fn words(input: &str, given: Option<&str>, problem: &Problem) -> Words {
    let named = match given {
        Some(v) => format!("{input} (--{input}) {}", escaped(v, "\"")),
        None => format!("{input} (--{input})"),
    };
    let v = given.unwrap_or_default();
    let said = |message: String, help: String| Words {
        message,
        help,
        joint: ": ",
    };
    match problem {
        Problem::Required(what) => said(
            format!("the input `{input}` is required"),
            format!(
                "set `{input}:` under `with:` (or --{input}): {}",
                required_what(*what)
            ),
        ),
        Problem::NotUtf8 => said(format!("{input} (--{input}) is not UTF-8 text"), String::new()),
        Problem::Duration(what, bounds) => {
            let forms = format!("write seconds ({}) {DURATION_FORMS}", bounds.example);
            let (max, why) = match bounds.limit {
                DurationLimit::Culler => (
                    "3650 days (315360000 s)",
                    "the longest duration codeq-rollout takes",
                ),
                DurationLimit::Job => (
                    JOB_MAX_WORDS,
                    "the longest a job on a GitHub-hosted runner runs",
                ),
            };
            let min = humantime::format_duration(bounds.min);
            let at_least = format!("give {min} or more, e.g. {}", bounds.example);
            let (message, help, joint) = match what {
                DurationProblem::Empty => (format!("{input} (--{input}) is empty"), forms, ": "),
                DurationProblem::MinusSign => (
                    format!("{named} has a minus sign: durations take none"),
                    forms,
                    "; ",
                ),
                DurationProblem::Negative => (
                    format!("{named} is negative: durations take no minus sign"),
                    forms,
                    "; ",
                ),
                DurationProblem::TooLong => (
                    format!("{named} is longer than {max}, {why}"),
                    format!("give at most {max}"),
                    ": ",
                ),
                DurationProblem::BareDecimal => (
                    format!("{named} is not a duration"),
                    format!(
                        "a number without a unit is whole seconds, so write {v}s for {v} seconds ({forms})"
                    ),
                    ": ",
                ),
                DurationProblem::NotADuration(e) => {
                    (format!("{named} is not a duration ({e})"), forms, ": ")
                }
                DurationProblem::NotWholeSeconds => (
                    format!("{named} is not a whole number of seconds"),
                    forms,
                    ": ",
                ),
                DurationProblem::Zero => (format!("{input} (--{input}) is 0"), at_least, ": "),
                DurationProblem::TooShort => {
                    (format!("{named} is shorter than {min}"), at_least, ": ")
                }
            };
            Words {
                message,
                help,
                joint,
            }
        }
        Problem::NotOneOf(names) => {
            let listed = match names.split_last() {
                Some((last, [])) => last.clone(),
                Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
                None => String::new(),
            };
            said(format!("{named} is not {listed}"), String::new())
        }
        Problem::NotBoolean => said(
            format!("{named} is not a boolean"),
            format!("write {BOOLEAN_WORDS}"),
        ),
        Problem::NotAName { kind, max_chars } => match kind {
            NameKind::Namespace => said(
                format!("{named} is not a Kubernetes namespace name"),
                format!(
                    "write the hub's namespace, at most {max_chars} lower-case letters, digits and '-', starting and ending with a letter or digit (a DNS-1123 label), e.g. jhub"
                ),
            ),
            NameKind::HelmRelease => said(
                format!("{named} is not a Helm release name"),
                format!(
                    "write the hub's release (`helm list -n NAMESPACE` shows it), at most {max_chars} lower-case letters, digits, '-' and '.', each part starting and ending with a letter or digit, e.g. jhub"
                ),
            ),
        },
        Problem::BadUrl(kind, what) => said(
            format!("{named} {}", url_why(*kind, what)),
            match kind {
                UrlKind::Hub => "write the address users open, e.g. https://hub.example.org",
                UrlKind::Api => {
                    "give GitHub's REST API base URL, e.g. https://api.github.com or https://github.example.com/api/v3"
                }
            }
            .to_string(),
        ),
        Problem::InHubApi { base } => said(
            format!("{named} is in the hub's API (/hub/api…), not the hub's address"),
            format!(
                "give the address without /hub/api and what follows, here {base} (codeq-rollout adds the paths it needs itself: status /hub/api/users, the runbook /hub/admin)"
            ),
        ),
        Problem::Repository(why) => said(
            format!("{named} {why}"),
            "write OWNER/REPO as in the repository's address, e.g. octo-org/lab".to_string(),
        ),
        Problem::GitSuffix { without } => said(
            format!(
                "{named} ends in .git, which no GitHub repository's name does (GitHub removes it when a repository is created; a clone URL adds it)"
            ),
            format!(
                "write OWNER/REPO as in the repository's address, without .git, {}",
                without
                    .as_ref()
                    .map_or("e.g. octo-org/lab".to_string(), |name| format!("here {name}"))
            ),
        ),
        Problem::TokenCharacters { control } => said(
            format!(
                "{named} {}; a token is printable ASCII only (not shown here)",
                match control {
                    true => "holds a space, line break or other control character inside it",
                    false => {
                        "holds a character that is not printable ASCII, such as a zero-width space or no-break space left by a copy-paste"
                    }
                }
            ),
            "paste the token again, as one line with nothing around it".to_string(),
        ),
        Problem::SecretShort { chars, min } => said(
            format!(
                "{named} is too short ({chars} of at least {min} characters): no {what} is that short, and masked in the log it would hide those letters in every message and in the release note and issue published",
                what = match input {
                    "registry-password" => "registry password or token",
                    _ => "GitHub token",
                }
            ),
            "give the whole secret, as the registry or GitHub issued it (it is never printed)"
                .to_string(),
        ),
        Problem::HubTokenShort { chars, min } => said(
            format!(
                "{named} is too short for a hub API token ({chars} of at least {min} characters: JupyterHub refuses shorter ones, and the ones it makes have 32)"
            ),
            "give the whole token, e.g. from `jupyterhub token` or the hub's token page"
                .to_string(),
        ),
        Problem::InsecureCredentials { entry } => said(
            format!(
                "{input} (--{input}) {} holds '@', as a user name or password does (no part of the value is shown; entries are counted at commas and line breaks)",
                entry.map_or_else(|| "an entry".to_string(), |n| format!("entry {n}"))
            ),
            format!("{REGISTRY_CREDENTIALS}; {INSECURE_RULE}"),
        ),
        Problem::InsecureEntry(what) => {
            let (why, fix) = entry_words(what);
            said(
                format!("{input} (--{input}) entry {} {why}", escaped(v, "\"")),
                format!("{fix}; {INSECURE_RULE}"),
            )
        }
        Problem::HubSize(what, max) => {
            let quoted = escaped(v, "\"");
            let what = match what {
                HubSizeProblem::Negative => format!("negative ({quoted})"),
                HubSizeProblem::Zero => "0".to_string(),
                HubSizeProblem::TooMany(n) => format!("{n}, more than {max}"),
                HubSizeProblem::Empty => "empty".to_string(),
                HubSizeProblem::NotWhole => format!("{quoted}, not a whole number"),
            };
            said(
                format!("{input} (--{input}) is {what}"),
                format!(
                    "give the most single-user servers the hub runs at once, a whole number from 1 to {max}, e.g. 100"
                ),
            )
        }
        Problem::ValuesListedWithComma(file) => said(
            format!("{input} (--{input}): there is no file {}", file.display()),
            format!(
                "the input takes one path per line, not a comma-separated list; write `{input}: |` with each file on its own line below it (on the command line, repeat --{input})"
            ),
        ),
        Problem::PastTheCalendar(past) => {
            let clock = match past.now_given {
                true => "now (--now)",
                false => "this run's clock",
            };
            let fix = match past.fix {
                CalendarFix::HubScale => {
                    "give the most servers the hub runs at once (hub-size) and its slow-stop timeout (slow-stop-timeout) as they are"
                }
                CalendarFix::Clock => {
                    "leave now out for the system clock (or give the run's real time), or give the idle culler settings the hub really uses"
                }
                CalendarFix::Settings => "give the idle culler settings the hub really uses",
            };
            let scale = past.scale.map_or(String::new(), |s| {
                format!(
                    "; hub size {}, slow-stop timeout {}",
                    servers_words(s.servers),
                    human(s.slow_stop_timeout_secs)
                )
            });
            said(
                format!(
                    "{clock} {} plus the convergence window of these settings, up to {}, ends after {}, the last date a deadline can be written for",
                    rfc3339(past.now),
                    human_at_most(past.longest_secs),
                    crate::window::LAST_DATE,
                ),
                format!("{fix} ({}{scale})", past.configured.origins_line()),
            )
        }
        Problem::LayoutNotADirectory(dir) => said(
            format!("{named}: {} is not a directory", dir.display()),
            "write the directory the OCI image layout was copied to (skopeo copy ... oci:DIR:TAG), or a registry reference".to_string(),
        ),
        Problem::LayoutMissing(dir) => said(
            format!(
                "{named}: the OCI image layout directory {} does not exist",
                dir.display()
            ),
            "write the directory the layout was copied to (skopeo copy ... oci:DIR:TAG), relative to the working directory, or a registry reference".to_string(),
        ),
        Problem::Template(what) => {
            let (message, help) = match what {
                TemplateProblem::Unreadable(e) => (
                    format!("{named}: cannot read it ({e})"),
                    format!(
                        "give a file path relative to the workspace (the repository checkout), {TEMPLATE_EXAMPLE}"
                    ),
                ),
                TemplateProblem::OutsideWorkspace { workspace, real } => (
                    format!(
                        "{named}: the file is outside the workspace {} (its real path is {})",
                        workspace.display(),
                        real.display()
                    ),
                    format!("the template must be a file of the repository, {TEMPLATE_EXAMPLE}"),
                ),
                TemplateProblem::NotRegular => (
                    format!("{named}: not a regular file (a directory, FIFO, socket or device)"),
                    "give the template file itself".to_string(),
                ),
                TemplateProblem::TooLarge { size, limit } => (
                    format!(
                        "{named}: the template is {size} bytes, over the limit of {limit} bytes (64 KiB)"
                    ),
                    "is it the right file?".to_string(),
                ),
            };
            said(message, help)
        }
        Problem::LaterThanClock { at, now } => said(
            format!(
                "{input} (--{input}) {} is later than this run's clock ({})",
                rfc3339(*at),
                rfc3339(*now)
            ),
            "give the time the release went live, which has passed, e.g. the time announce recorded in the release note".to_string(),
        ),
        Problem::Time(e) => said(
            format!("{named} {e}"),
            "write e.g. 2026-11-30T12:00:00Z".to_string(),
        ),
        Problem::Rule(rule) => {
            let (message, help) = rule_words(*rule);
            said(message.to_string(), help.to_string())
        }
        Problem::NoToken(why) => {
            let set = "set github-token (default ${{ github.token }}) or --github-token";
            match why {
                None => said("no GitHub token".into(), format!("{set}, or use --dry-run")),
                Some(why) => said(
                    format!("no GitHub token: {}", github_use(*why)),
                    set.to_string(),
                ),
            }
        }
        Problem::AlarmWithoutKubernetes(alarm) => said(
            format!(
                "{input} lists {alarm} but Kubernetes is off (no kubeconfig, or an empty one: a misnamed secret, or a pull request from a fork, gets none), so that alarm could never fire"
            ),
            "set kubeconfig (a secret holding the file's content) or kubernetes: on, or drop mismatch and orphan from fail-on (overdue works without Kubernetes)".to_string(),
        ),
        Problem::Placeholder => said(
            format!("{input} is {v}, the placeholder"),
            format!("set {input} (--{input}) to your hub's address"),
        ),
        Problem::Refused(e, Said::Whole) => said(format!("{e:#}"), String::new()),
        Problem::Refused(e, Said::Named) => said(format!("{named} {e:#}"), String::new()),
        Problem::Refused(e, Said::Colon) => said(format!("{named}: {e:#}"), String::new()),
    }
}

/// What a required input is, for its error.
fn required_what(what: Required) -> &'static str {
    match what {
        Required::Image => "the image reference to announce, e.g. ghcr.io/org/lab:latest",
        Required::HubUrl => "the hub's address, e.g. https://hub.example.org",
        Required::HubToken => {
            "a hub API token with scopes list:users and read:servers (see README: the role to create)"
        }
    }
}

/// Why `status` reads GitHub.
fn github_use(why: GitHubUse) -> &'static str {
    match why {
        GitHubUse::Environment => {
            "with environment, status reads the release note and keeps the deployment's status"
        }
        GitHubUse::Comment => "with comment, status reads the release note and writes the comment",
        GitHubUse::ReleaseTime => {
            "with image and without released-at, status reads the release time from the release note"
        }
    }
}

/// A URL's problem, after the URL.
fn url_why(kind: UrlKind, what: &UrlProblem) -> String {
    let (address, token) = match kind {
        UrlKind::Hub => ("the hub's address", "hub-token"),
        UrlKind::Api => ("the API's base URL", "github-token"),
    };
    match what {
        UrlProblem::QueryOrFragment { query } => format!(
            "has {}: {address} takes no query or fragment (a token goes in {token}, never in the URL)",
            match query {
                true => "a query ('?')",
                false => "a fragment ('#')",
            }
        ),
        UrlProblem::Unpasteable(c) => {
            let what = match c {
                c if c.is_whitespace() => "whitespace".to_string(),
                '@' => "a user name ('@')".to_string(),
                c => format!("{c:?}"),
            };
            format!("has {what}, which the runbook's shell commands and Markdown cannot carry")
        }
        UrlProblem::Whitespace => {
            "has whitespace, a control character or an invisible one inside it (a URL is one word)"
                .to_string()
        }
        UrlProblem::NotAUrl(e) => format!("is not a URL ({e})"),
        UrlProblem::NotHttp => "is not an http:// or https:// URL".to_string(),
        UrlProblem::NoHost => {
            "has no host between :// and the next / (the host comes right after ://)".to_string()
        }
        UrlProblem::UserName => {
            format!("has a user name ('@'): a token goes in {token}, never in the URL")
        }
    }
}

/// An `insecure-registry` entry's problem and what to write instead.
fn entry_words(what: &EntryProblem) -> (String, String) {
    let give = |authority: &Option<String>, without: &str| match authority {
        Some(authority) => format!("give {authority}, without {without}"),
        None => format!("give the registry's HOST or HOST:PORT alone, without {without}"),
    };
    let pair = |why: &str, fix: &str| (why.to_string(), fix.to_string());
    match what {
        EntryProblem::Whitespace => pair(
            "has whitespace inside it",
            "separate entries with commas or line breaks",
        ),
        EntryProblem::Scheme { scheme, authority } => (
            scheme.as_ref().map_or("has a scheme ('://')".to_string(), |s| {
                format!("has a scheme ({s}://)")
            }),
            give(
                authority,
                "the scheme (insecure-registry already means plain HTTP)",
            ),
        ),
        EntryProblem::MoreThanHostAndPort { authority } => (
            "has more than a host and port (a path, query or fragment)".to_string(),
            give(
                authority,
                "the rest (the image's repository goes in the image reference)",
            ),
        ),
        EntryProblem::OpenBracket => pair("has '[' without ']'", BRACKETS),
        EntryProblem::AfterBracket => pair(
            "has more after the bracketed address than ':' and a port",
            BRACKETS,
        ),
        EntryProblem::UnbracketedIpv6 => pair("is an IPv6 address without brackets", BRACKETS),
        EntryProblem::ManyColons => pair("has more than one ':'", HOST_FIX),
        EntryProblem::NoHost => pair("has no host", HOST_FIX),
        EntryProblem::BracketsNotIpv6 => pair(
            "has brackets around something other than an IPv6 address",
            "write an IPv6 address in brackets (without a zone such as %eth0), e.g. [::1]:5000, or a host name or IPv4 address without them",
        ),
        EntryProblem::ShortIpv4(ip) => (
            format!("writes the IPv4 address {ip} in a short or non-decimal form"),
            format!("write {ip}, in this entry and in the image reference alike"),
        ),
        EntryProblem::NumberNotIpv4(e) => (
            format!("ends in a number, so it reads as an IPv4 address, but is not one ({e})"),
            "write an IPv4 address as four decimal numbers 0 to 255 (127.0.0.1), or a host name whose last label is not a number".to_string(),
        ),
        EntryProblem::HostName(what) => (host_name_why(*what), HOST_FIX.to_string()),
        EntryProblem::Port { host, problem } => (
            match problem {
                PortProblem::Missing => "has no port after ':'",
                PortProblem::NotDecimal => "has a port that is not a decimal number",
                PortProblem::Zero => "has port 0",
                PortProblem::LeadingZero => "has a port with a leading zero",
                PortProblem::TooHigh => "has a port above 65535",
            }
            .to_string(),
            format!(
                "give {host}:PORT with the port the registry listens on, 1 to 65535 without leading zeros, or {host} alone"
            ),
        ),
    }
}

/// Why a host is not a host name.
fn host_name_why(what: HostNameProblem) -> String {
    match what {
        HostNameProblem::Character(c) => format!(
            "has {}, which a host name cannot hold",
            escaped(&c.to_string(), "'")
        ),
        HostNameProblem::FinalDot => "ends with a dot".to_string(),
        HostNameProblem::TooLong { chars, max } => {
            format!("has a host of {chars} characters, over {max}")
        }
        HostNameProblem::EmptyLabel => {
            "has an empty label (a dot at the start, or two dots together)".to_string()
        }
        HostNameProblem::LongLabel { chars, max } => {
            format!("has a label of {chars} characters, over {max}")
        }
        HostNameProblem::HyphenAtEdge => "has a label starting or ending with '-'".to_string(),
    }
}

/// A broken rule between inputs: the message and the help.
fn rule_words(rule: Rule) -> (&'static str, &'static str) {
    match rule {
        Rule::PrintContextNeedsDryRun => (
            "print-context (--print-context) needs dry-run (--dry-run)",
            "it shows what a template would get, without publishing",
        ),
        Rule::NoSecurityLabel => (
            "security-labels is empty",
            "give at least one label (default security)",
        ),
        Rule::UsernameWithoutPassword => (
            "registry-username is set but registry-password is empty",
            "set both, or neither for anonymous access",
        ),
        Rule::PasswordWithoutUsername => (
            "registry-password is set but registry-username is empty",
            "set both, or neither for anonymous access",
        ),
        Rule::NoRepository => (
            "no repository",
            "set --repository OWNER/REPO (GITHUB_REPOSITORY outside Actions)",
        ),
        Rule::NoCommit => ("no commit", "set --sha (GITHUB_SHA outside Actions)"),
        Rule::KubernetesNeedsImage => (
            "Kubernetes is on (kubeconfig or kubernetes: on) but image is not set",
            "the pods' imageIDs are compared with the digest of image (--image)",
        ),
        Rule::NoRelease => (
            "say which release to measure",
            "set image (--image; the release note announce wrote for its digest gives the time) or released-at (--released-at, RFC 3339)",
        ),
        Rule::EnvironmentNeedsImage => (
            "environment needs image (--image)",
            "its digest finds the release note and the deployment",
        ),
        Rule::CommentNeedsImage => (
            "comment needs image (--image)",
            "its digest finds the tracking issue",
        ),
        Rule::KubernetesOffWithKubeconfig => (
            "kubernetes is off but kubeconfig is given",
            "drop kubeconfig, or set kubernetes to on",
        ),
    }
}

/// The words of clap's refusal of an unknown subcommand, for the annotation: the Action's
/// `input` (`command`) and the value `given` (secrets hidden, capped), clap's `suggested`
/// commands, the Action's commands and the command line's `others`.
pub(crate) fn unknown_command(
    input: &str,
    given: &str,
    suggested: &[String],
    action: &[&str],
    others: &[String],
) -> String {
    let suggestion = match suggested {
        [] => String::new(),
        names => format!(" (did you mean {}?)", names.join(" or ")),
    };
    format!(
        "{input} {given:?} is not a command of codeq-rollout{suggestion}: set the {input} input to {} (the command line also takes {})",
        action.join(" or "),
        others.join(" or ")
    )
}

/// The error of a workspace `dir` (from `GITHUB_WORKSPACE` or the working directory, `from`)
/// that cannot be resolved.
pub(crate) fn workspace_unresolved(dir: &std::path::Path, from: &str) -> String {
    format!(
        "the workspace templates are read from, {} ({from}), cannot be resolved: check out the repository first (actions/checkout), or set GITHUB_WORKSPACE to its directory",
        dir.display()
    )
}

/// The warning (title, message) when values files were given but none sets `cull` under
/// `keys` (`None`: at the top level or under `jupyterhub`).
pub(crate) fn no_cull_in_values(keys: Option<&[String]>) -> (&'static str, String) {
    let place = match keys {
        None => "`cull` or `jupyterhub.cull`".to_string(),
        Some([]) => "`cull`".to_string(),
        Some(keys) => format!("`{}.cull`", keys.join(".")),
    };
    (
        "Culler settings",
        format!(
            "no values file sets {place}: using z2jh's defaults; check jupyterhub-values and values-path"
        ),
    )
}

/// The log line of `status` not resolving `image` (released-at given, comment off).
pub(crate) fn image_not_resolved(image: &str) -> String {
    format!(
        "released-at is given and comment is off: the image {image} is not resolved (only the release note and the comment need its digest)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The message and the help are apart, and the text joins them as the variant says.
    #[test]
    fn a_refusal_keeps_its_message_and_its_help_apart() {
        let boolean = words("dry-run", Some("maybe"), &Problem::NotBoolean);
        assert_eq!(
            boolean.message,
            r#"dry-run (--dry-run) "maybe" is not a boolean"#
        );
        assert_eq!(boolean.help, format!("write {BOOLEAN_WORDS}"));
        assert_eq!(
            boolean.to_string(),
            format!("{}: {}", boolean.message, boolean.help)
        );
        let bare = words("print-context", None, &Problem::NotUtf8);
        assert!(bare.help.is_empty());
        assert_eq!(bare.to_string(), bare.message);
        let bounds = crate::render::usage::DurationBounds {
            min: std::time::Duration::ZERO,
            limit: DurationLimit::Job,
            example: "30",
        };
        let minus = words(
            "t",
            Some("-5"),
            &Problem::Duration(DurationProblem::Negative, bounds),
        );
        assert_eq!(
            minus.help,
            "write seconds (30) or a duration such as 90s, 10m, 1h 30m"
        );
        assert_eq!(
            minus.to_string(),
            format!("{}; {}", minus.message, minus.help)
        );
    }

    #[test]
    fn a_quoted_value_shows_invisible_characters_escaped() {
        assert_eq!(escaped("a\u{3164}b\n", "\""), r#""a\u{3164}b\n""#);
        assert_eq!(escaped("o'neil", "'"), r"'o\'neil'");
    }
}
