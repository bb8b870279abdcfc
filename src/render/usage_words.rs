//! The words of bad usage ([`UsageError`], the `Display` of which they are): a first line
//! saying what failed, naming the input ([`input_name`]) and quoting the value as given
//! where there is one, then the help (what to write instead), both from one `match` arm per
//! problem ([`words`]).

use super::help::set_input;
use super::token_words::{no_token_words, or_empty_secret, required_words, token_words};
use super::usage::{
    CalendarFix, DurationLimit, DurationProblem, EntryProblem, EnvironmentError, ImageProblem,
    NameKind, Problem, Refused, Rule, TemplateProblem, UrlKind, UrlProblem, UsageError,
};
use super::window_words::{human, human_at_most, servers_words};
use super::words::{WHAT_MAX_CHARS, Words, input_name};
use crate::support::duration::JOB_MAX_WORDS;
use crate::support::github::RepositoryError;
use crate::support::github::RepositoryProblem;
use crate::support::sanitize::{cap, is_invisible};
use crate::support::time::{TimeError, rfc3339_seconds as rfc3339};

super::words::words_display!(UsageError => words);

/// The most characters of a value a first line quotes ([`cap`]): half of a first line
/// ([`WHAT_MAX_CHARS`]), so the line stays about one, and a pasted file cannot flood the log.
const SHOWN_MAX_CHARS: usize = WHAT_MAX_CHARS / 2;
/// The words a boolean input takes.
const BOOLEAN_WORDS: &str = "true or false (yes/no, on/off and 1/0 are taken too)";
/// What every `insecure-registry` help ends with.
const INSECURE_RULE: &str = "each entry is HOST or HOST:PORT as the image reference names the registry (letters, digits, '-' and '.', at most 253, with a dot or a port unless it is localhost; port 1 to 65535, no leading zeros), e.g. localhost:5000";

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

/// [`Problem::Empty`]'s words: `named` (the input and its value as `given`) is empty, or a
/// list of separators only, and why that is refused on the command line.
fn empty_words(named: &str, input: &str, given: Option<&str>, in_actions: bool) -> Words {
    let what = match given.unwrap_or_default().trim().is_empty() {
        true => "is empty",
        false => "lists nothing",
    };
    say(
        format!("{named} {what}"),
        format!(
            "an empty value is usually a {} that is not set: set it, or give {} a value",
            match in_actions {
                true => "secret or variable",
                false => "shell variable",
            },
            match in_actions {
                true => format!("`{input}:`"),
                false => format!("--{input}"),
            }
        ),
    )
}

/// `what`, then `help`.
fn say(what: String, help: impl Into<String>) -> Words {
    Words::new(what).help(help)
}

/// `value` quoted, escaped ([`escaped`]) and capped at [`SHOWN_MAX_CHARS`].
fn quoted(value: &str) -> String {
    escaped(&cap(value, SHOWN_MAX_CHARS), "\"")
}

/// The words of a usage error: its input as [`input_name`] names it, its value as given (already safe to show: credentials and queries
/// `***`) [`quoted`], and the problem's first line and help from one arm (or a function of
/// the arm's data).
pub(crate) fn words(e: &UsageError) -> Words {
    let input = e.input.as_str();
    let name = input_name(input, e.variable.as_deref(), e.in_actions);
    let named = match &e.given {
        Some(v) => format!("{name} {}", quoted(v)),
        None => name.clone(),
    };
    match &*e.problem {
        Problem::Required(what) => required_words(e, &name, *what),
        Problem::NotUtf8 => Words::new(format!("{name} is not UTF-8 text")),
        Problem::Empty => empty_words(&named, input, e.given.as_deref(), e.in_actions),
        Problem::Duration(what, bounds) => duration_words(e, &named, what, bounds),
        Problem::NotOneOf(names) => say(
            format!("{named} is not {}", or_list(names)),
            format!(
                "write one of {} (in any case); {} says what each means",
                names.join(", "),
                match e.in_actions {
                    true => "the inputs table of docs/inputs-and-outputs.md",
                    false => "--help",
                }
            ),
        ),
        Problem::NotACommit => say(
            format!("{named} is not a commit SHA (40 hex digits)"),
            "write the commit's whole SHA, as `git rev-parse HEAD` prints it, or leave sha unset for $GITHUB_SHA",
        ),
        Problem::NotADigest => say(
            format!("{named} is not an image digest"),
            "write sha256: followed by 64 hex digits, the digest the build step reported",
        ),
        Problem::NotBoolean => say(
            format!("{named} is not a boolean"),
            format!("write {BOOLEAN_WORDS}"),
        ),
        Problem::NotAName(kind) => name_words(&named, *kind),
        Problem::BadUrl(kind, what) => url_words(&named, *kind, what),
        Problem::HubPage { base } => say(
            format!("{named} is a page of the hub (/hub/… or /user/…), not the hub's address"),
            format!(
                "give the address without /hub/ or /user/ and what follows, here {base} (codeq-rollout adds the paths it needs itself: status /hub/api/users, the runbook /hub/admin)"
            ),
        ),
        Problem::Repository(why) => repository_words(&named, why),
        Problem::Token(why) => token_words(input, &name, *why),
        Problem::Insecure(refused) => insecure_words(&name, refused),
        Problem::HubSize(max) => say(
            format!("{named} is not a whole number from 1 to {max}"),
            "give the most single-user servers the hub runs at once, e.g. 100",
        ),
        Problem::ValuesListedWithComma(file) => say(
            format!("{name}: there is no file {}", file.display()),
            format!(
                "the input takes one path per line, not a comma-separated list; write `{input}: |` with each file on its own line below it (on the command line, repeat --{input})"
            ),
        ),
        Problem::PastTheCalendar(past) => calendar_words(past, e.in_actions),
        Problem::Image(why) => image_words(e, &name, &named, why),
        Problem::Environment(why) => environment_words(&named, *why),
        Problem::Layout(why) => layout_words(&named, why),
        Problem::Template(what) => template_words(&named, input, what),
        Problem::LaterThanClock { at, now } => say(
            format!(
                "{name} {} is later than this run's clock ({})",
                rfc3339(*at),
                rfc3339(*now)
            ),
            "give the time the release went live, which has passed, e.g. the time announce recorded in the release note",
        ),
        Problem::Time(why) => time_words(&named, why),
        Problem::Rule(rule) => rule_said(*rule, e.in_actions),
        Problem::NoToken(why) => no_token_words(e, &name, *why),
        Problem::AlarmWithoutKubernetes(alarm, off) => kube_off(input, alarm, *off, e.in_actions),
        Problem::Placeholder => say(
            format!("{named} is a placeholder (a name reserved for examples)"),
            format!("set {name} to your hub's address"),
        ),
        Problem::Kube(k) => super::kube::words(k, e.in_actions),
        Problem::Settings(s) => super::window_words::settings_words(s, e.in_actions),
        Problem::Refused(refused) => super::error_words(refused, e.in_actions),
    }
}

/// `input` (`fail-on`) naming `alarm`, which needs the pods, while Kubernetes is off
/// ([`Problem::AlarmWithoutKubernetes`]; `turned_off`: by `kubernetes` given false), and how
/// to turn it on: `in_actions`, the inputs under `with:`; else the options.
fn kube_off(input: &str, alarm: &str, turned_off: bool, in_actions: bool) -> Words {
    let off = match turned_off {
        true => &format!("{} is false", input_name("kubernetes", None, in_actions)),
        false => "Kubernetes is off",
    };
    let what =
        format!("{input} lists {alarm}, which needs the pods read from Kubernetes, but {off}");
    let help = match (turned_off, in_actions) {
        (true, _) => {
            return say(
                what,
                "set kubernetes to true, with a kubeconfig unless this runs in the cluster, or drop mismatch and orphan from fail-on (overdue works without Kubernetes)",
            );
        }
        (false, true) => {
            "Kubernetes is off without a kubeconfig, or with an empty one: set `kubeconfig:` (a secret holding the file's content) or `kubernetes: true` under `with:`, or drop mismatch and orphan from fail-on (overdue works without Kubernetes)"
        }
        (false, false) => {
            "Kubernetes is off unless --kubeconfig or --kubernetes is given: pass --kubeconfig PATH, or --kubernetes to read KUBECONFIG or ~/.kube/config, or drop mismatch and orphan from --fail-on (overdue works without Kubernetes)"
        }
    };
    say(what, or_empty_secret(help.to_string(), in_actions))
}

/// A Kubernetes name refused ([`NameKind`]): the rule, what to write.
fn name_words(named: &str, kind: NameKind) -> Words {
    let max = kind.max_chars();
    match kind {
        NameKind::Namespace => say(
            format!("{named} is not a Kubernetes namespace name"),
            format!(
                "write the hub's namespace, at most {max} lower-case letters, digits and '-', starting and ending with a letter or digit (a DNS-1123 label), e.g. jhub"
            ),
        ),
        NameKind::HelmRelease => say(
            format!("{named} is not a Helm release name"),
            format!(
                "write the hub's release (`helm list -n NAMESPACE` shows it), at most {max} lower-case letters, digits, '-' and '.', each part starting and ending with a letter or digit, e.g. jhub"
            ),
        ),
    }
}

/// An `image` refused ([`ImageProblem`]) in `e`: `named` quotes the value given, `name` does
/// not (credentials are never shown).
fn image_words(e: &UsageError, name: &str, named: &str, why: &ImageProblem) -> Words {
    let (given, in_actions) = (e.given.as_deref(), e.in_actions);
    let write = "write REGISTRY/REPOSITORY:TAG, e.g. ghcr.io/org/lab:latest";
    match why {
        ImageProblem::NoDirectory => say(
            format!("{named} names no directory"),
            "write oci:DIR or oci:DIR:TAG, DIR being the directory the OCI image layout was copied to (skopeo copy ... oci:DIR:TAG)",
        ),
        ImageProblem::LayoutRef(tag) => say(
            format!("{named}: the tag is not an OCI reference name"),
            format!(
                "write oci:DIR:TAG, TAG being letters, digits and . _ - : @ + between them, components separated by / (not {}), e.g. oci:out:v1.0; the directory cannot hold a colon",
                quoted(tag)
            ),
        ),
        ImageProblem::LayoutDigest(dir) => say(
            format!("{named}: an oci: layout is read by tag, not pinned by @digest"),
            format!(
                "write oci:{}:TAG (skopeo's oci:DIR:TAG form), or oci:{0} when the layout holds one image; announce resolves the digest",
                cap(dir, SHOWN_MAX_CHARS)
            ),
        ),
        ImageProblem::Credentials => say(
            format!(
                "{name} has '@' with no digest after it, as credentials before the registry (USER:PASSWORD@HOST) have"
            ),
            format!(
                "give credentials as {} and {}, never in the image reference (not shown here: it may hold a password), and write the image as REGISTRY/REPOSITORY:TAG, e.g. ghcr.io/org/lab:latest",
                input_name("registry-username", None, in_actions),
                input_name("registry-password", None, in_actions)
            ),
        ),
        ImageProblem::UpperCase(lower) => say(
            format!("{named} has upper case in its repository"),
            format!(
                "repository names must be lower case (the OCI distribution spec's rule; registries such as ghcr.io store them so): write {lower}"
            ),
        ),
        ImageProblem::NotAReference(why) => {
            Words::new(format!("{named} is not a valid image reference"))
                .because(why)
                .help(write)
        }
        ImageProblem::UpperCaseHost => say(
            format!(
                "{named} has upper case in its first part, which is not a registry host without a `.` or `:`"
            ),
            format!("{write} (repository names are lower case)"),
        ),
        ImageProblem::Reference(problem) => {
            let (what, help) =
                super::help::reference_words(given.unwrap_or_default(), problem, in_actions);
            say(what, help)
        }
    }
}

/// An `environment` refused ([`EnvironmentError`]): the rule broken, what to write.
fn environment_words(named: &str, why: EnvironmentError) -> Words {
    let (what, help) = match why {
        EnvironmentError::Empty => return empty_words(named, "environment", None, false),
        EnvironmentError::TooLong => (
            "is longer than 255 characters",
            "give the environment's name as its settings page shows it (GitHub allows at most 255 characters), e.g. jupyterhub-prod",
        ),
        EnvironmentError::Control => (
            "holds a line break or another control character",
            "give one name on one line, as GitHub's environment names are, e.g. jupyterhub-prod",
        ),
        EnvironmentError::Invisible => (
            "holds an invisible character (a bidirectional control or a zero-width one)",
            "type the name (an invisible character makes a name read as another)",
        ),
    };
    say(format!("{named} {what}"), help)
}

/// An `oci:` layout that cannot be used: its words ([`super::help::layout_words`]) after the
/// input's name.
fn layout_words(named: &str, why: &super::usage::LayoutError) -> Words {
    let words = super::help::layout_words(why);
    Words {
        what: format!("{named}: {}", words.what),
        ..words
    }
}

/// A `repository` refused ([`RepositoryProblem`]): the rule broken, what to write.
pub(crate) fn repository_words(named: &str, why: &RepositoryProblem) -> Words {
    let write = "write OWNER/REPO as in the repository's address";
    let (what, help) = match why {
        RepositoryProblem::Rule(RepositoryError::Form) => (
            "is not of the form OWNER/REPO",
            format!("{write}, e.g. octo-org/lab"),
        ),
        RepositoryProblem::Rule(RepositoryError::Owner) => (
            "has an owner GitHub does not allow",
            format!(
                "an owner is {}; {write}, e.g. octo-org/lab",
                super::publish::LOGIN_RULE
            ),
        ),
        RepositoryProblem::Rule(RepositoryError::Name) => (
            "has a repository name GitHub does not allow",
            format!(
                "a name is at most 100 letters, digits, '-', '_' and '.', and not '.' or '..'; {write}, e.g. octo-org/lab"
            ),
        ),
        RepositoryProblem::GitSuffix { without } => (
            "ends in .git, which no GitHub repository's name does",
            format!(
                "GitHub removes it when a repository is created (a clone URL adds it): {write}, without .git, {}",
                without
                    .as_ref()
                    .map_or("e.g. octo-org/lab".into(), |n| format!("here {n}"))
            ),
        ),
    };
    say(format!("{named} {what}"), help)
}

/// An `insecure-registry` value refused ([`Refused`]): the entry holding `@` by its place
/// only, another quoted with what to write instead.
fn insecure_words(name: &str, refused: &Refused) -> Words {
    let (what, fix) = match refused {
        Refused::Credentials { entry } => (
            format!(
                "{} holds '@', as a user name or password does",
                entry.map_or_else(|| "an entry".to_string(), |n| format!("entry {n}"))
            ),
            "no part of the value is shown (entries are counted at commas and line breaks): list each registry without credentials, and give the registry's user name and password in registry-username and registry-password".to_string(),
        ),
        Refused::Entry { shown, why: EntryProblem::Around { authority } } => (
            format!("entry {} has a scheme, path, query or fragment", quoted(shown)),
            format!(
                "give {} alone (insecure-registry already means plain HTTP; the repository goes in the image reference)",
                authority.as_deref().map_or("the registry's HOST or HOST:PORT".into(), |a| cap(a, SHOWN_MAX_CHARS))
            ),
        ),
        Refused::Entry { shown, why: EntryProblem::NotARegistry } => (
            format!("entry {} is not a registry as image references name one", quoted(shown)),
            "separate entries with commas or line breaks".to_string(),
        ),
    };
    say(format!("{name} {what}"), format!("{fix}; {INSECURE_RULE}"))
}

/// A time refused ([`TimeError`]).
fn time_words(named: &str, why: &TimeError) -> Words {
    let range = "RFC 3339 writes the years 0000 to 9999";
    let (what, help) = match why {
        TimeError::Syntax(s) => (
            format!("is not an RFC 3339 time ({s})"),
            "it is a date, T, a time, then Z or an offset such as +01:00",
        ),
        TimeError::LongYear => ("has a year of more than four digits".to_string(), range),
        TimeError::UnixSeconds(t) => {
            let (secs, at) = (t.unix_timestamp(), rfc3339(*t));
            return say(
                format!("{named} looks like Unix seconds, not an RFC 3339 time"),
                format!("write that instant as RFC 3339 (date -u -d @{secs} +%FT%TZ): {at}"),
            );
        }
        TimeError::AfterLast => ("falls after 9999-12-31T23:59:59Z in UTC".to_string(), range),
        TimeError::BeforeFirst => (
            "falls before 0000-01-01T00:00:00Z in UTC".to_string(),
            range,
        ),
    };
    say(
        format!("{named} {what}"),
        format!("{help}: write e.g. 2026-11-30T12:00:00Z"),
    )
}

/// `a, b or c`.
fn or_list(names: &[String]) -> String {
    match names.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// A duration refused ([`DurationProblem`]) by `e`'s parser with `bounds`.
fn duration_words(
    e: &UsageError,
    named: &str,
    what: &DurationProblem,
    bounds: &super::usage::DurationBounds,
) -> Words {
    let name = input_name(&e.input, None, e.in_actions);
    let none = match bounds.limit {
        DurationLimit::MaxAge => "; 0 or none means no max age",
        DurationLimit::Culler | DurationLimit::Job => "",
    };
    let forms = format!(
        "write seconds ({}) or a duration such as 90s, 10m, 1h 30m{none}",
        bounds.example
    );
    let (max, why) = match bounds.limit {
        DurationLimit::Culler | DurationLimit::MaxAge => (
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
    let units = "write a unit after each number: s, m, h, d or w (sec, min, hours, days, weeks and ms work too)";
    match what {
        DurationProblem::Sign => say(
            format!(
                "{named} has a {} sign",
                match e.given.as_deref() {
                    Some(t) if t.starts_with('+') => "plus",
                    _ => "minus",
                }
            ),
            format!("durations take none: {forms}"),
        ),
        DurationProblem::TooLong => say(
            format!("{named} is longer than {max}"),
            format!("give at most {max}, {why}"),
        ),
        DurationProblem::BareDecimal => {
            let v = e.given.as_deref().unwrap_or_default();
            say(
                format!("{named} is not a duration"),
                format!(
                    "a number without a unit is whole seconds, so write {v}s for {v} seconds ({forms})"
                ),
            )
        }
        DurationProblem::Fraction => say(
            format!("{named} has a fraction codeq-rollout cannot read"),
            format!(
                "write it with whole numbers of smaller units, e.g. 1h 4s, or in seconds ({})",
                bounds.example
            ),
        ),
        DurationProblem::Calendar { unit, months } => {
            let (what, days) = match months {
                true => ("months", "30d"),
                false => ("years", "365d"),
            };
            say(
                format!(
                    "{named} is not a duration: unit {unit:?} means {what}, which have no fixed length"
                ),
                format!("write days, e.g. {days}, or minutes with m, e.g. 10m"),
            )
        }
        DurationProblem::NoUnit => say(
            format!("{named} is not a duration: a number has no unit"),
            format!("{units}, e.g. 1h30m; or {forms}"),
        ),
        DurationProblem::UnknownUnit(unit) => say(
            format!("{named} is not a duration: unknown unit {unit:?}"),
            format!("{units}; or {forms}"),
        ),
        DurationProblem::NotADuration(e) => say(format!("{named} is not a duration ({e})"), forms),
        DurationProblem::NotWholeSeconds => {
            say(format!("{named} is not a whole number of seconds"), forms)
        }
        DurationProblem::Zero => say(format!("{name} is 0"), at_least),
        DurationProblem::TooShort => say(format!("{named} is shorter than {min}"), at_least),
    }
}

/// A URL refused ([`UrlProblem`]): what it has, then why that is refused and what to write.
fn url_words(named: &str, kind: UrlKind, what: &UrlProblem) -> Words {
    let (address, token, write) = match kind {
        UrlKind::Hub => (
            "the hub's address",
            "hub-token",
            "write the address users open, e.g. https://hub.example.org",
        ),
        UrlKind::Api => (
            "the API's base URL",
            "github-token",
            "give GitHub's REST API base URL, e.g. https://api.github.com or https://github.example.com/api/v3",
        ),
    };
    let (has, why) = match what {
        UrlProblem::QueryOrFragment { query } => (
            format!(
                "has a {}",
                if *query {
                    "query ('?')"
                } else {
                    "fragment ('#')"
                }
            ),
            format!(
                "{address} takes no query or fragment (a token goes in {token}, never in the URL): "
            ),
        ),
        UrlProblem::Unpasteable(q @ ('"' | '\'')) => (
            format!("has a quote ({q})"),
            "a quote is kept as part of the value (YAML and the shell drop only the outer ones): remove it; ".into(),
        ),
        UrlProblem::Unpasteable(c) => {
            let c = match c {
                c if c.is_whitespace() => "whitespace".to_string(),
                '@' => "a user name ('@')".to_string(),
                // Debug would escape it (`'\\'`): quoted as typed.
                '\\' => format!("\"{c}\""),
                c => format!("{c:?}"),
            };
            (
                format!("has {c}"),
                "the runbook's shell commands and Markdown cannot carry it: ".into(),
            )
        }
        UrlProblem::Whitespace => (
            "has whitespace, a control character or an invisible one inside it".into(),
            "a URL is one word: ".into(),
        ),
        UrlProblem::NotAUrl(e) => (format!("is not a URL ({e})"), String::new()),
        UrlProblem::NotHttp => ("is not an http:// or https:// URL".into(), String::new()),
        UrlProblem::NoHost => (
            "has no host between :// and the next /".into(),
            "the host comes right after ://: ".into(),
        ),
        UrlProblem::PortZero => (
            "has port 0".into(),
            "port 0 is reserved and reaches no server: ".into(),
        ),
        UrlProblem::UserName => (
            "has a user name ('@')".into(),
            format!("a token goes in {token}, never in the URL: "),
        ),
    };
    say(format!("{named} {has}"), format!("{why}{write}"))
}

/// Deadlines past the calendar's last date ([`crate::window::LAST_DATE`]); `in_actions`:
/// the hub's scale is named as its inputs there, as its options on the command line.
fn calendar_words(past: &crate::window::PastTheCalendar, in_actions: bool) -> Words {
    let clock = match past.now_given {
        true => "now (--now)",
        false => "this run's clock",
    };
    let fix = match past.fix {
        CalendarFix::HubScale if in_actions => {
            "give the most servers the hub runs at once (`hub-size:`) and its slow-stop timeout (`slow-stop-timeout:`) as they are"
        }
        CalendarFix::HubScale => {
            "give the most servers the hub runs at once (--hub-size) and its slow-stop timeout (--slow-stop-timeout) as they are"
        }
        CalendarFix::Clock => {
            "leave now out for the system clock (or give the run's real time), or give the idle culler settings the hub really uses"
        }
        CalendarFix::Settings => "give the idle culler settings the hub really uses",
    };
    let window = past.configured.window();
    let scale = window.worst.map_or(String::new(), |w| {
        let (servers, slow) = (
            servers_words(w.scale.servers),
            human(w.scale.slow_stop_timeout_secs),
        );
        format!("; hub size {servers}, slow-stop timeout {slow}")
    });
    say(
        format!(
            "{clock} {} plus the convergence window ({}) ends after {}",
            rfc3339(past.now),
            human_at_most(window.longest_secs().unwrap_or_default()),
            crate::window::LAST_DATE,
        ),
        format!(
            "that is the last date a deadline can be written for: {fix} ({}{scale})",
            past.configured.origins_line()
        ),
    )
}

/// A team's template refused ([`TemplateProblem`]) by `input`, whose example file is
/// `.github/NAME.md.j2` (`release-note-template`: `.github/release-note.md.j2`).
fn template_words(named: &str, input: &str, what: &TemplateProblem) -> Words {
    let example = format!("e.g. .github/{}.md.j2", input.trim_end_matches("-template"));
    match what {
        TemplateProblem::Unreadable(e) => say(
            format!("{named}: cannot read it ({e})"),
            format!(
                "give a file path relative to the workspace (the repository checkout), {example}"
            ),
        ),
        TemplateProblem::OutsideWorkspace { workspace, real } => say(
            format!(
                "{named}: the file is outside the workspace {}",
                workspace.display()
            ),
            format!(
                "its real path is {}; the template must be a file of the repository, {example}",
                real.display()
            ),
        ),
        TemplateProblem::NotRegular => say(
            format!("{named}: not a regular file (a directory, FIFO, socket or device)"),
            "give the template file itself",
        ),
        TemplateProblem::TooLarge { size, limit } => say(
            format!("{named}: {size} bytes, over the template limit (64 KiB)"),
            format!("the limit is {limit} bytes: is it the right file?"),
        ),
    }
}

/// A broken rule between inputs ([`rule_words`]), an input it needs named where to set it
/// ([`set_input`]) or as [`input_name`] does.
fn rule_said(rule: Rule, in_actions: bool) -> Words {
    let (what, help) = rule_words(rule);
    let (image, name) = (set_input("image", in_actions), |i| {
        input_name(i, None, in_actions)
    });
    let what = match rule {
        Rule::PrintContextNeedsDryRun => {
            format!("{} needs {}", name("print-context"), name("dry-run"))
        }
        _ => what.to_string(),
    };
    let help = match rule {
        Rule::NoRelease => format!(
            "{image}, or {}: {help}",
            set_input("released-at", in_actions)
        ),
        Rule::KubernetesNeedsImage | Rule::EnvironmentNeedsImage | Rule::CommentNeedsImage => {
            format!("{image}: {help}")
        }
        Rule::UsernameWithoutPassword | Rule::PasswordWithoutUsername => {
            or_empty_secret(help.to_string(), in_actions)
        }
        Rule::NoRepository => format!("set {} {help}", name("repository")),
        Rule::NoCommit => format!("set {} {help}", name("sha")),
        _ => help.to_string(),
    };
    say(what, help)
}

/// A broken rule between inputs: the first line and the help.
fn rule_words(rule: Rule) -> (&'static str, &'static str) {
    match rule {
        // Its inputs named in [`rule_said`].
        Rule::PrintContextNeedsDryRun => (
            "print-context needs dry-run",
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
        // Only a runner like `act` leaves these unset in Actions; the help follows `set INPUT`.
        Rule::NoRepository => (
            "no repository (GITHUB_REPOSITORY is unset)",
            "to OWNER/REPO",
        ),
        Rule::NoCommit => (
            "no commit (GITHUB_SHA is unset)",
            "to the commit's whole SHA",
        ),
        Rule::KubernetesNeedsImage => (
            "Kubernetes is on (kubeconfig or kubernetes: true) but image is not set",
            "the pods' imageIDs are compared with its digest",
        ),
        Rule::NoRelease => (
            "neither image nor released-at is set: say which release to measure",
            "the release note announce wrote for the image's digest gives the time; released-at is an RFC 3339 time",
        ),
        Rule::EnvironmentNeedsImage => (
            "environment is set but image is not",
            "its digest finds the release note and the deployment",
        ),
        Rule::CommentNeedsImage => (
            "comment is set but image is not",
            "its digest finds the tracking issue",
        ),
        Rule::KubernetesOffWithKubeconfig => (
            "kubernetes is false but kubeconfig is given",
            "drop kubeconfig, or set kubernetes to true",
        ),
    }
}

/// The words of clap's refusal of an unknown subcommand, for the annotation: the Action's
/// `input` (`command`) and the value `given` (secrets hidden, capped; blank said empty, as
/// an input from a secret or variable that is not there is), clap's `suggested` commands,
/// the Action's commands and the command line's `others`.
pub(crate) fn unknown_command(
    input: &str,
    given: &str,
    suggested: &[String],
    action: &[&str],
    others: &[String],
) -> Words {
    let suggestion = match suggested {
        [] => String::new(),
        names => format!(" (did you mean {}?)", names.join(" or ")),
    };
    let help = format!(
        "set `{input}:` under `with:` to {} (the command line also takes {})",
        action.join(" or "),
        others.join(" or ")
    );
    match given.trim() {
        "" => say(format!("{input} is empty"), or_empty_secret(help, true)),
        _ => say(
            format!("{input} {given:?} is not a command the Action runs{suggestion}"),
            help,
        ),
    }
}

/// The log line of `status` not resolving `image` (released-at given, comment off).
pub(crate) fn image_not_resolved(image: &str) -> String {
    format!(
        "released-at is given and comment is off: the image {image} is not resolved (only the release note and the comment need its digest)"
    )
}

#[cfg(test)]
mod tests {
    use super::super::usage::{GitHubUse, TokenProblem};
    use super::*;

    #[test]
    fn a_refusal_gives_its_first_line_and_its_help_apart() {
        let boolean = words(&UsageError::of("dry-run", "maybe", Problem::NotBoolean));
        super::super::words::assert_shape(&boolean);
        assert_eq!(
            boolean.what,
            r#"dry-run (--dry-run) "maybe" is not a boolean"#
        );
        assert_eq!(boolean.help, Some(format!("write {BOOLEAN_WORDS}")));
        let bare = words(&UsageError::new("print-context", Problem::NotUtf8));
        assert_eq!(
            bare.to_string(),
            "print-context (--print-context) is not UTF-8 text"
        );
        let long = words(&UsageError::of(
            "hub-size",
            "9".repeat(500),
            Problem::HubSize(9),
        ));
        super::super::words::assert_shape(&long);
    }

    /// Every problem's words, with typical values: one first line of at most 120
    /// characters, then the help.
    #[test]
    fn every_problem_says_what_failed_then_what_to_write() {
        use super::super::usage::{DurationBounds, Required as R, Rule};
        use crate::digest::registry::errors::ReferenceProblem;
        use crate::support::duration::DurationProblem as D;
        use std::sync::Arc;
        let job = DurationBounds {
            min: std::time::Duration::from_secs(1),
            limit: DurationLimit::Job,
            example: "30",
        };
        let culler = DurationBounds {
            limit: DurationLimit::Culler,
            ..job
        };
        let max_age = DurationBounds {
            limit: DurationLimit::MaxAge,
            ..job
        };
        let time = |t| time::OffsetDateTime::from_unix_timestamp(t).unwrap();
        let past = crate::window::PastTheCalendar {
            now: time(253_402_300_000),
            now_given: true,
            configured: Default::default(),
            fix: CalendarFix::Clock,
        };
        let refused = || Arc::new(anyhow::anyhow!("is not a valid image reference"));
        let url = |p| Problem::BadUrl(UrlKind::Hub, p);
        let repo = |r| Problem::Repository(RepositoryProblem::Rule(r));
        let entry = |why| Refused::Entry {
            shown: "localhost:5000/x".into(),
            why,
        };
        let long_environment = "e".repeat(256);
        use crate::digest::layout::LayoutError;
        let layout = |e| Problem::Layout(Arc::new(e));
        let rules = [
            Rule::PrintContextNeedsDryRun,
            Rule::NoSecurityLabel,
            Rule::UsernameWithoutPassword,
            Rule::PasswordWithoutUsername,
            Rule::NoRepository,
            Rule::NoCommit,
            Rule::KubernetesNeedsImage,
            Rule::NoRelease,
            Rule::EnvironmentNeedsImage,
            Rule::CommentNeedsImage,
            Rule::KubernetesOffWithKubeconfig,
        ];
        #[rustfmt::skip]
        let mut cases: Vec<(&str, Option<&str>, Problem)> = vec![
            ("image", None, Problem::Required(R::Image)),
            ("hub-url", None, Problem::Required(R::HubUrl)),
            ("hub-token", None, Problem::Required(R::HubToken)),
            ("dry-run", None, Problem::NotUtf8),
            ("tracking-labels", Some(""), Problem::Empty),
            ("hub-timeout", Some("-5"), Problem::Duration(D::Sign, job)),
            ("cull-timeout", Some("+3600"), Problem::Duration(D::Sign, culler)),
            ("cull-max-age", Some("never"), Problem::Duration(D::NotADuration(humantime::parse_duration("never").unwrap_err()), max_age)),
            ("cull-timeout", Some("99999999999"), Problem::Duration(D::TooLong, culler)),
            ("hub-timeout", Some("1.5"), Problem::Duration(D::BareDecimal, job)),
            ("cull-max-age", Some("11years"), Problem::Duration(D::Calendar { unit: "years".into(), months: false, }, culler)),
            ("hub-timeout", Some("1h30"), Problem::Duration(D::NoUnit, job)),
            ("hub-timeout", Some("8 fortnights"), Problem::Duration(D::UnknownUnit("fortnights".into()), job)),
            ("cull-every", Some("1.5s"), Problem::Duration(D::NotWholeSeconds, culler)),
            ("hub-timeout", Some("0"), Problem::Duration(D::Zero, job)),
            ("hub-timeout", Some("500ms"), Problem::Duration(D::TooShort, job)),
            ("tier", Some("urgent"), Problem::NotOneOf(vec!["auto".into(), "routine".into(), "security".into()])),
            ("sha", Some("abc"), Problem::NotACommit),
            ("expected-digest", Some("sha256:12"), Problem::NotADigest),
            ("dry-run", Some("maybe"), Problem::NotBoolean),
            ("namespace", Some("Lab"), Problem::NotAName(NameKind::Namespace)),
            ("helm-release", Some("hub;x"), Problem::NotAName(NameKind::HelmRelease)),
            ("hub-url", Some("https://hub.org/?***"), url(UrlProblem::QueryOrFragment { query: true })),
            ("hub-url", Some("https://hub.org/$(id)"), url(UrlProblem::Unpasteable('$'))),
            ("hub-url", Some("https://hub.org/'x"), url(UrlProblem::Unpasteable('\''))),
            ("hub-url", Some("https://hub.org:0"), url(UrlProblem::PortZero)),
            ("hub-url", Some("https://hub.org/ x"), url(UrlProblem::Whitespace)),
            ("hub-url", Some("hub.org"), url(UrlProblem::NotAUrl(::url::ParseError::RelativeUrlWithoutBase))),
            ("hub-url", Some("ftp://hub.org"), url(UrlProblem::NotHttp)),
            ("hub-url", Some("http:///path"), url(UrlProblem::NoHost)),
            ("hub-url", Some("https://***@hub.org"), url(UrlProblem::UserName)),
            ("hub-url", Some("https://hub.org/hub/api"), Problem::HubPage { base: "https://hub.org".into() }),
            ("repository", Some("noslash"), repo(RepositoryError::Form)),
            ("repository", Some("-o/r"), repo(RepositoryError::Owner)),
            ("repository", Some("o/.."), repo(RepositoryError::Name)),
            ("repository", Some("o/r.git"), Problem::Repository(RepositoryProblem::GitSuffix { without: Some("o/r".into()) })),
            ("hub-token", None, Problem::Token(TokenProblem::Characters { control: true })),
            ("github-token", None, Problem::Token(TokenProblem::Characters { control: false })),
            ("hub-token", None, Problem::Token(TokenProblem::Short { chars: 3 })),
            ("github-token", None, Problem::Token(TokenProblem::Short { chars: 3 })),
            ("insecure-registry", None, Problem::Insecure(Refused::Credentials { entry: Some(2) })),
            ("insecure-registry", None, Problem::Insecure(entry(EntryProblem::Around { authority: Some("localhost:5000".into()) }))),
            ("insecure-registry", None, Problem::Insecure(entry(EntryProblem::NotARegistry))),
            ("hub-size", Some("0"), Problem::HubSize(1_000_000)),
            ("jupyterhub-values", None, Problem::ValuesListedWithComma("a.yaml,b.yaml".into())),
            ("now", None, Problem::PastTheCalendar(Box::new(past.clone()))),
            ("hub-size", None, Problem::PastTheCalendar(Box::new(crate::window::PastTheCalendar { now_given: false, fix: CalendarFix::HubScale, ..past }))),
            ("image", Some("oci:README.md"), layout(LayoutError::NotADirectory("README.md".into()))),
            ("image", Some("oci:lab"), layout(LayoutError::Missing("lab".into()))),
            ("release-note-template", Some("x.md.j2"), Problem::Template(TemplateProblem::Unreadable(Arc::new(std::io::Error::from(std::io::ErrorKind::NotFound))))),
            ("release-note-template", Some("/etc/passwd"), Problem::Template(TemplateProblem::OutsideWorkspace { workspace: "/w".into(), real: "/etc/passwd".into() })),
            ("release-note-template", Some("dir"), Problem::Template(TemplateProblem::NotRegular)),
            ("release-note-template", Some("big.md.j2"), Problem::Template(TemplateProblem::TooLarge { size: 70_000, limit: 65_536 })),
            ("released-at", None, Problem::LaterThanClock { at: time(1_800_000_001), now: time(1_800_000_000) }),
            ("now", Some("yesterday"), Problem::Time(TimeError::Syntax("the 'year' component could not be parsed".into()))),
            ("now", Some("10000-01-01T00:00:00Z"), Problem::Time(TimeError::LongYear)),
            ("released-at", Some("1764504000"), Problem::Time(TimeError::UnixSeconds(time(1_764_504_000)))),
            ("now", Some("9999-12-31T23:59:59-01:00"), Problem::Time(TimeError::AfterLast)),
            ("now", Some("0000-01-01T00:00:00+01:00"), Problem::Time(TimeError::BeforeFirst)),
            ("github-token", None, Problem::NoToken(None)),
            ("github-token", None, Problem::NoToken(Some(GitHubUse::Environment))),
            ("github-token", None, Problem::NoToken(Some(GitHubUse::Comment))),
            ("github-token", None, Problem::NoToken(Some(GitHubUse::ReleaseTime))),
            ("fail-on", None, Problem::AlarmWithoutKubernetes("mismatch".into(), false)),
            ("fail-on", None, Problem::AlarmWithoutKubernetes("orphan".into(), true)),
            ("hub-url", Some("https://hub.example.org"), Problem::Placeholder),
            ("image", Some("ghcr.io/Org/Lab"), Problem::Refused(refused())),
            ("image", Some("oci:"), Problem::Image(ImageProblem::NoDirectory)),
            ("image", Some("oci:dir:bad tag"), Problem::Image(ImageProblem::LayoutRef("bad tag".into()))),
            ("image", Some("oci:lab@sha256:ab"), Problem::Image(ImageProblem::LayoutDigest("lab".into()))),
            ("image", None, Problem::Image(ImageProblem::Credentials)),
            ("image", Some("ghcr.io/Org/Lab"), Problem::Image(ImageProblem::UpperCase("ghcr.io/org/lab".into()))),
            ("image", Some("a b"), Problem::Image(ImageProblem::NotAReference("invalid reference format".into()))),
            ("image", Some("A/a"), Problem::Image(ImageProblem::UpperCaseHost)),
            ("image", Some("r:99999/lab"), Problem::Image(ImageProblem::Reference(ReferenceProblem::Port { port: "99999".into() }))),
            ("environment", Some(""), Problem::Environment(EnvironmentError::Empty)),
            ("environment", Some(&long_environment), Problem::Environment(EnvironmentError::TooLong)),
            ("environment", Some("prod\nstaging"), Problem::Environment(EnvironmentError::Control)),
            ("environment", Some("prod\u{202e}"), Problem::Environment(EnvironmentError::Invisible)),
            ("image", Some("oci:empty"), layout(LayoutError::Index("empty".into(), crate::support::files::ReadError::NotFound))),
            ("image", Some("oci:lab:v9"), layout(LayoutError::NoSuchTag { dir: "lab".into(), tag: Some("v9".into()), tags: vec!["latest".into()], images: 1 })),
        ];
        cases.extend(rules.map(|r| ("image", None, Problem::Rule(r))));
        let shown: Vec<String> = cases
            .into_iter()
            .map(|(input, given, problem)| {
                let mut e = match given {
                    Some(given) => UsageError::of(input, given, problem),
                    None => UsageError::new(input, problem),
                };
                super::super::words::assert_shape(&words(&e));
                let command_line = e.to_string();
                // Words that name where to set the input: also as inside Actions.
                e.in_actions = true;
                match e.to_string() {
                    actions if actions != command_line => {
                        format!("{command_line}\n(in Actions) {actions}")
                    }
                    _ => command_line,
                }
            })
            .collect();
        insta::assert_snapshot!(shown.join("\n"));
    }

    #[test]
    fn a_quoted_value_shows_invisible_characters_escaped() {
        assert_eq!(escaped("a\u{3164}b\n", "\""), r#""a\u{3164}b\n""#);
        assert_eq!(escaped("o'neil", "'"), r"'o\'neil'");
    }
}
