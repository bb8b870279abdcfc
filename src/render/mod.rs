//! Stage 4 (pure): the Markdown bodies, from minijinja templates in `templates/`.
//!
//! One set of templates feeds the release note, the tracking issue, the job summary and
//! the generated sections of `CODEQ_DEPLOYMENT.md`, so they cannot drift apart. Rendering
//! takes plain structs and an injected clock (`now`), and never performs I/O. Untrusted text
//! (PR titles, labels) is neutralised by [`crate::sanitize`] on the way in.

pub(crate) mod context;
pub(crate) mod custom;
pub(crate) mod deployment;
pub(crate) mod docs;
mod help;
pub(crate) mod messages;
pub(crate) mod publish;
mod reasons;
pub(crate) mod usage;
pub(crate) mod usage_words;
pub(crate) mod window_words;
pub(crate) mod words;

pub(crate) use context::TemplateContext;
pub(crate) use custom::{BodyKind, CustomTemplate, TemplateError};

use crate::digest::Digest;
use crate::support::sanitize;
use crate::tier::{PullRequest, Tier, TierDecision, TierSource};
use crate::window::{Configured, CullSettings, HubScale, Origins, Window, compute};
use anyhow::{Context, Result};
use minijinja::{Environment, UndefinedBehavior, context};
use serde::Serialize;
use time::OffsetDateTime;
use window_words::human;

/// GitHub's limit on a release body: 125,000 characters (longer ones get a 422).
pub const RELEASE_BODY_LIMIT: usize = 125_000;
/// GitHub's limit on an issue or comment body: 65,536 characters.
pub const ISSUE_BODY_LIMIT: usize = 65_536;

/// Marker kinds: the first line of every body codeq-rollout writes is
/// `<!-- codeq-rollout:KIND digest=sha256:<64 hex> -->`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkerKind {
    /// A release note.
    Release,
    /// A tracking issue.
    TrackingIssue,
    /// The bot's own comment on a tracking issue (updates for the responders).
    UpdateComment,
    /// The comment saying a newer digest supersedes a tracking issue.
    SupersededComment,
    /// `status`'s "Convergence status" comment on a tracking issue.
    ConvergenceComment,
}

impl MarkerKind {
    fn name(self) -> &'static str {
        match self {
            MarkerKind::Release => "release",
            MarkerKind::TrackingIssue => "tracking-issue",
            MarkerKind::UpdateComment => "update",
            MarkerKind::SupersededComment => "superseded",
            MarkerKind::ConvergenceComment => "convergence",
        }
    }
}

/// The hidden marker line for `kind` and `digest`.
pub fn marker(kind: MarkerKind, digest: &Digest) -> String {
    format!("<!-- codeq-rollout:{} digest={} -->", kind.name(), digest)
}

/// The tracking issue's marker line: [`marker`] plus `image=<repository>`, the image
/// repository announced ([`image_repository`]; spaces, `>` and `%` percent-encoded), so that
/// a new release supersedes only tracking issues of the same image.
pub(crate) fn tracking_marker(digest: &Digest, image: &str) -> String {
    let image = image
        .replace('%', "%25")
        .replace(' ', "%20")
        .replace('>', "%3E");
    format!(
        "<!-- codeq-rollout:{} digest={digest} image={image} -->",
        MarkerKind::TrackingIssue.name()
    )
}

/// The image repository of an image reference as the tool displays it: the reference without
/// its `@digest` and its `:tag` (a `:` after the last `/`), e.g. `ghcr.io/org/lab` for
/// `ghcr.io/org/lab:latest` and `oci:build/lab` for `oci:build/lab:latest`.
pub fn image_repository(image: &str) -> &str {
    let image = image.split_once('@').map_or(image, |(name, _)| name);
    let last_slash = image.rfind('/').map_or(0, |i| i + 1);
    match image[last_slash..].rfind(':') {
        Some(colon) => &image[..last_slash + colon],
        None => image,
    }
}

/// The image repository a tracking issue's marker names (see [`tracking_marker`]), if its
/// first line is our marker and it names one (markers written before 0.x name none).
pub(crate) fn marker_image(body: &str) -> Option<String> {
    marker_digest(MarkerKind::TrackingIssue, body)?;
    let first = body.lines().next()?.trim_end().strip_suffix(" -->")?;
    let (_, image) = first.split_once(" image=")?;
    Some(
        image
            .replace("%3E", ">")
            .replace("%20", " ")
            .replace("%25", "%"),
    )
}

/// The hidden second line of a release note: `<!-- codeq-rollout:announced-at RFC3339 -->`,
/// the time its convergence deadlines count from. A re-run renders with the same time, so an
/// unchanged release renders byte for byte the same and nothing is written. As sent, it also
/// records a hash of the body (`… body=<16 hex> -->`, see [`seal_release`]).
const ANNOUNCED_AT: &str = "announced-at";
/// The field of the release note's second line recording the hash of the body as sent.
const BODY_HASH: &str = " body=";

/// The hash of a release note as [`seal_release`] records it: the first 16 hex digits of the
/// SHA-256 of its lines but the second (the hidden header holding the hash), joined by `\n`
/// (so line endings and a final newline do not count).
fn body_hash(body: &str) -> String {
    use sha2::Digest as _;
    let lines: Vec<&str> = body
        .lines()
        .enumerate()
        .filter(|(i, _)| *i != 1)
        .map(|(_, l)| l)
        .collect();
    hex::encode(sha2::Sha256::digest(lines.join("\n").as_bytes()))[..16].to_string()
}

/// `body` (a release note) with the hash of its text recorded on its hidden second line,
/// replacing any hash recorded there already; unchanged when the second line is not the
/// announced-at line. Sent as the release body, so a later run can tell whether a human
/// edited the note since ([`release_edited`]).
pub fn seal_release(body: &str) -> String {
    let Some(value) = hidden_value(MarkerKind::Release, body, ANNOUNCED_AT) else {
        return body.to_string();
    };
    let at = value.split_once(BODY_HASH).map_or(value, |(at, _)| at);
    let hash = body_hash(body);
    let mut lines: Vec<String> = body.lines().map(String::from).collect();
    lines[1] = format!(
        "{}{BODY_HASH}{hash} -->",
        hidden_line(ANNOUNCED_AT, at).trim_end_matches(" -->")
    );
    let mut sealed = lines.join("\n");
    if body.ends_with('\n') {
        sealed.push('\n');
    }
    sealed
}

/// Whether two release notes say the same: equal but for their hidden second line (the
/// announce time and the recorded hash), so a note written before hashes were recorded is
/// not sent again only to record one.
pub(crate) fn same_release_text(a: &str, b: &str) -> bool {
    body_hash(a) == body_hash(b)
}

/// Whether a release note was edited since codeq-rollout sent it: `Some(false)` when its text
/// still hashes to the value its second line records, `Some(true)` when not, `None` when it
/// records no hash (not ours, or written before hashes were recorded).
pub(crate) fn release_edited(body: &str) -> Option<bool> {
    let value = hidden_value(MarkerKind::Release, body, ANNOUNCED_AT)?;
    let (_, recorded) = value.split_once(BODY_HASH)?;
    Some(recorded != body_hash(body))
}
/// The hidden second line of a tracking issue and of the bot's update comment:
/// `<!-- codeq-rollout:evidence <16 hex> -->`, a fingerprint of the facts the body states
/// (see [`evidence_fingerprint`]).
const EVIDENCE: &str = "evidence";

fn hidden_line(name: &str, value: &str) -> String {
    format!("<!-- codeq-rollout:{name} {value} -->")
}

/// The value of the hidden second line `name` of `body`, trusted only when the first line
/// is a marker of `kind`.
fn hidden_value<'a>(kind: MarkerKind, body: &'a str, name: &str) -> Option<&'a str> {
    marker_digest(kind, body)?;
    let second = body.lines().nth(1)?.trim_end();
    second
        .strip_prefix(&format!("<!-- codeq-rollout:{name} "))?
        .strip_suffix(" -->")
}

/// The announce time recorded in a release note written by codeq-rollout, if any, in UTC
/// ([`crate::support::time::parse_rfc3339`]: a time outside the years 0000 to 9999 in UTC,
/// as an edited note may hold, counts as none).
pub(crate) fn announced_at(body: &str) -> Option<OffsetDateTime> {
    let text = hidden_value(MarkerKind::Release, body, ANNOUNCED_AT)?;
    let text = text.split_once(BODY_HASH).map_or(text, |(at, _)| at);
    crate::support::time::parse_rfc3339(text).ok()
}

/// The evidence fingerprint recorded in a body of `kind` (a tracking issue or the bot's
/// update comment), if any.
pub(crate) fn recorded_evidence(kind: MarkerKind, body: &str) -> Option<&str> {
    hidden_value(kind, body, EVIDENCE)
}

/// The facts a tracking issue states that a later run may find different: image, tier and
/// how it was decided, pull requests, commit, culler settings. Not the clock, not the
/// workflow run (a re-run has a new attempt number).
#[derive(Serialize)]
struct Evidence<'a> {
    image: &'a str,
    tier: String,
    source: String,
    reason: String,
    pull_requests: &'a [crate::tier::PullRequest],
    sha: &'a str,
    culler: &'a CullSettings,
    /// Left out without a hub size, so fingerprints recorded before it existed still match.
    #[serde(skip_serializing_if = "Option::is_none")]
    scale: Option<HubScale>,
}

/// A fingerprint of the facts `facts` gives a tracking issue: the first 16 hex digits of
/// the SHA-256 of their JSON. Equal fingerprints mean a re-run has nothing new to say.
pub(crate) fn evidence_fingerprint(facts: &Facts) -> String {
    use sha2::Digest as _;
    let evidence = Evidence {
        image: &facts.image,
        tier: facts.tier.tier.to_string(),
        source: facts.tier.source.to_string(),
        reason: facts.tier.reason.to_string(),
        pull_requests: &facts.tier.pull_requests,
        sha: &facts.sha,
        culler: &facts.culler,
        scale: facts.window.worst.map(|w| w.scale),
    };
    let json = serde_json::to_vec(&evidence).expect("plain data serialises");
    hex::encode(sha2::Sha256::digest(&json))[..16].to_string()
}

/// The digest named by `body`'s marker of `kind`, if the body's **first line** is exactly
/// such a marker. Markers elsewhere in a body (say, copied from a PR title) are ignored:
/// only the place the tool writes them is trusted.
pub(crate) fn marker_digest(kind: MarkerKind, body: &str) -> Option<Digest> {
    let first = body.lines().next()?.trim_end();
    let rest = first.strip_prefix(&format!("<!-- codeq-rollout:{} digest=", kind.name()))?;
    let rest = rest.strip_suffix(" -->")?;
    // A tracking issue's marker may name the image too ([`tracking_marker`]).
    let digest = match kind {
        MarkerKind::TrackingIssue => rest.split_once(" image=").map_or(rest, |(d, _)| d),
        _ => rest,
    };
    Digest::parse(digest).ok()
}

/// Where the break-glass runbook points: cluster and Hub.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RunbookSettings {
    /// Kubernetes namespace of the hub (`--namespace`, default `jhub`).
    pub namespace: String,
    /// Helm release name of the hub (`--helm-release`, default `jhub`): the `release` pod label.
    pub helm_release: String,
    /// The hub's base URL, e.g. `https://hub.example.org` (`--hub-url`).
    pub hub_url: String,
    /// How long to give users to save their work, e.g. `15 minutes`.
    pub warning_period: String,
}

impl RunbookSettings {
    /// Whether `hub_url` is a placeholder: its host is a name reserved for documentation
    /// (RFC 2606: `example.com`, `example.net`, `example.org` and the names below them, and
    /// the `.example` top-level domain), as the default `https://hub.example.org` is. Such a
    /// runbook's commands and links reach no hub.
    pub(crate) fn hub_url_is_placeholder(&self) -> bool {
        let Some(host) = url::Url::parse(&self.hub_url).ok().and_then(|u| {
            u.host_str()
                .map(|h| h.trim_end_matches('.').to_ascii_lowercase())
        }) else {
            return false;
        };
        ["example.com", "example.net", "example.org"]
            .iter()
            .any(|reserved| host == *reserved || host.ends_with(&format!(".{reserved}")))
            || host == "example"
            || host.ends_with(".example")
    }

    /// Whether the namespace and the Helm release are both at their defaults (`jhub`).
    pub(crate) fn cluster_at_defaults(&self) -> bool {
        let default = Self::default();
        self.namespace == default.namespace && self.helm_release == default.helm_release
    }
}

impl Default for RunbookSettings {
    fn default() -> Self {
        Self {
            namespace: "jhub".into(),
            helm_release: "jhub".into(),
            hub_url: "https://hub.example.org".into(),
            warning_period: "15 minutes".into(),
        }
    }
}

/// Everything a release's bodies say, as plain data.
#[derive(Debug, Clone)]
pub struct Facts {
    /// The image reference as given, e.g. `ghcr.io/org/lab:latest`.
    pub image: String,
    /// The digest it resolved to.
    pub digest: Digest,
    /// The tier with its evidence (PR titles and labels are untrusted).
    pub tier: TierDecision,
    /// The culler settings the window was computed from.
    pub culler: CullSettings,
    /// Where each culler setting came from (default, values file, option), for the job
    /// summary.
    pub culler_origins: Origins,
    /// The convergence window.
    pub window: Window,
    /// The commit the release targets (40 hex).
    pub sha: String,
    /// The workflow run's web address, when running in Actions.
    pub run_url: Option<String>,
    /// The release note's web address, once known (the tracking issue links it).
    pub release_url: Option<String>,
    /// Cluster and Hub coordinates for the runbook.
    pub runbook: RunbookSettings,
    /// The run's clock: the release time that the window's deadlines count from.
    pub now: OffsetDateTime,
    /// The pull-policy preflight's finding, when new servers may start on an older image
    /// ([`crate::window::ImageConfig::pull_risk`]); `None` when they start on the new one.
    pub pull: Option<crate::window::PullRisk>,
}

/// Renders the release note (body of the GitHub Release) from `custom` or the built-in
/// template, whole: publishing cuts it to [`RELEASE_BODY_LIMIT`] with a note pointing at
/// the run's log ([`where_full`]), which then holds this full text.
///
/// # Errors
/// A [`TemplateError`] of `custom` (exit code 2); else only on a built-in template error
/// (a bug: the built-in templates are tested).
pub fn release_note(facts: &Facts, custom: Option<&CustomTemplate>) -> Result<String> {
    render("release_note.md.j2", facts, MarkerKind::Release, custom)
}

/// Renders the tracking issue's body from `custom` or the built-in template, whole:
/// publishing cuts it to [`ISSUE_BODY_LIMIT`], as [`release_note`].
///
/// # Errors
/// A [`TemplateError`] of `custom`; else only on a built-in template error.
pub fn tracking_issue(facts: &Facts, custom: Option<&CustomTemplate>) -> Result<String> {
    render(
        "tracking_issue.md.j2",
        facts,
        MarkerKind::TrackingIssue,
        custom,
    )
}

/// Renders the bot's one comment on an existing tracking issue, stating facts a later run
/// found different (the issue body itself is the responders' and is never edited). Capped
/// at [`ISSUE_BODY_LIMIT`].
///
/// # Errors
/// Only on a template error.
pub(crate) fn tracking_update(facts: &Facts) -> Result<String> {
    let body = render(
        "tracking_update.md.j2",
        facts,
        MarkerKind::UpdateComment,
        None,
    )?;
    Ok(truncate_body(&body, ISSUE_BODY_LIMIT, &where_full(facts)))
}

/// The tracking issue's title: `Security release sha256:<12 hex>: break-glass runbook`.
pub(crate) fn tracking_issue_title(digest: &Digest) -> String {
    format!(
        "Security release {}: break-glass runbook",
        short_digest(digest)
    )
}

/// The release's title, e.g. `codeq image 9f86d081884c (security)`.
pub(crate) fn release_title(digest: &Digest, tier: Tier) -> String {
    format!("codeq image {} ({tier})", digest.short())
}

/// `sha256:` and the first 12 hex digits.
pub(crate) fn short_digest(digest: &Digest) -> String {
    format!("sha256:{}", digest.short())
}

/// The convergence-window section alone (for `CODEQ_DEPLOYMENT.md`), without dated deadlines.
///
/// # Errors
/// Only on a template error.
pub fn window_section(culler: &CullSettings, window: &Window) -> Result<String> {
    let env = environment();
    let ctx = context! {
        window => context::window_view(window, None),
        culler => culler_text(culler),
        pull_warning => None::<String>,
    };
    env.get_template("window.md.j2")?
        .render(ctx)
        .context("rendering the window section")
}

/// The break-glass runbook alone (for `CODEQ_DEPLOYMENT.md`), with `digest` as written
/// (a real digest in the tracking issue, a placeholder in the doc).
///
/// # Errors
/// Only on a template error.
pub fn runbook_section(runbook: &RunbookSettings, digest: &str) -> Result<String> {
    let env = environment();
    let ctx = runbook_context(runbook, digest);
    env.get_template("runbook.md.j2")?
        .render(ctx)
        .context("rendering the runbook")
}

pub(crate) use crate::support::text::{truncate_body, truncate_body_reserving};

pub(crate) mod failure;
pub(crate) use failure::{Failure, HubFault, Stage, error_words, failure_summary};

/// Where the full text of a cut body is: the workflow run's log (or, outside Actions, the
/// tool's output), for the note [`truncate_body`] appends; `announce` prints the full text
/// of each body it cuts there.
pub(crate) fn where_full(facts: &Facts) -> String {
    match &facts.run_url {
        Some(url) => format!("the workflow run's log ({url})"),
        None => "the output of codeq-rollout".to_string(),
    }
}

/// The template environment, built once per process: the templates are parsed on first use
/// and kept.
fn environment() -> &'static Environment<'static> {
    static ENV: std::sync::OnceLock<Environment<'static>> = std::sync::OnceLock::new();
    ENV.get_or_init(build_environment)
}

fn build_environment() -> Environment<'static> {
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    // `{{ value|sh }}`: one bash word whatever the value (the inputs are validated before,
    // see `crate::support::url::hub_url` and `crate::support::kube_name`; this keeps the
    // runbook safe to paste if that ever slips).
    env.add_filter("sh", |value: String| shell_word(&value));
    env.set_keep_trailing_newline(true);
    for (name, source) in [
        (
            "release_note.md.j2",
            include_str!("../../templates/release_note.md.j2"),
        ),
        (
            "tracking_issue.md.j2",
            include_str!("../../templates/tracking_issue.md.j2"),
        ),
        (
            "tracking_update.md.j2",
            include_str!("../../templates/tracking_update.md.j2"),
        ),
        ("window.md.j2", include_str!("../../templates/window.md.j2")),
        (
            "runbook.md.j2",
            include_str!("../../templates/runbook.md.j2"),
        ),
    ] {
        env.add_template(name, source)
            .expect("built-in templates parse (checked by tests)");
    }
    env
}

/// Single-quotes `text` for bash unless it is made only of characters that need no quoting
/// (letters, digits and `@%+=:,./_-`), so valid inputs render as they are written.
fn shell_word(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "@%+=:,./_-".contains(c));
    if plain {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// `2026-11-30T14:05:09Z`: RFC 3339 in UTC, whole seconds (the deadlines are shown to the
/// minute, so dropping the fraction changes nothing rendered); never panics
/// ([`crate::support::time::rfc3339_seconds`]).
fn rfc3339_seconds(t: OffsetDateTime) -> String {
    crate::support::time::rfc3339_seconds(t)
}

/// `2026-11-30 14:05 UTC`: `t` in UTC, the seconds dropped. Never panics: a time whose UTC
/// is past the `time` crate's range (which no parse gives, `crate::support::time`) is
/// written in its own offset, e.g. `9999-12-31 23:59 -23:59`.
pub(crate) fn utc_minute(t: OffsetDateTime) -> String {
    let (t, zone) = match t.checked_to_offset(time::UtcOffset::UTC) {
        Some(utc) => (utc, "UTC".to_string()),
        None => {
            let (h, m, _) = t.offset().as_hms();
            let sign = if t.offset().is_negative() { '-' } else { '+' };
            (
                t,
                format!("{sign}{:02}:{:02}", h.unsigned_abs(), m.unsigned_abs()),
            )
        }
    };
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02} {zone}",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute()
    )
}

/// A "never later than" deadline to the minute, rounded UP, so it never reads earlier than
/// it is (07:12:48 reads `07:13 UTC`). On the calendar's last minute, whose next one cannot
/// be written, it is written to the second, rounded up: 9999-12-31T23:59:30.2Z reads
/// `9999-12-31 23:59:31 UTC` (every deadline stated is at or before 9999-12-31T23:59:59Z,
/// `crate::window::fits_calendar`; one past it would read as its whole second).
pub(crate) fn utc_minute_up(t: OffsetDateTime) -> String {
    let Some(t) = t.checked_to_offset(time::UtcOffset::UTC) else {
        return utc_minute(t);
    };
    if t.second() == 0 && t.nanosecond() == 0 {
        return utc_minute(t);
    }
    let whole = |t: OffsetDateTime, second: u8| {
        t.replace_nanosecond(0)
            .and_then(|t| t.replace_second(second))
            .unwrap_or(t)
    };
    if let Some(up) = whole(t, 0).checked_add(time::Duration::MINUTE) {
        return utc_minute(up);
    }
    let second = whole(t, t.second());
    let up = match t.nanosecond() {
        0 => second,
        _ => second.checked_add(time::Duration::SECOND).unwrap_or(second),
    };
    format!(
        "{}:{:02} UTC",
        utc_minute(up).trim_end_matches(" UTC"),
        up.second()
    )
}

/// The release note's words for `risk` (Markdown, one list item's text, names neutralised):
/// new servers may start on an older image, why, and what operators set.
pub(crate) fn pull_warning(risk: &crate::window::PullRisk) -> String {
    use crate::window::PullPolicy;
    let policy = messages::policy_name(risk.policy);
    let source = match &risk.source {
        crate::window::PolicySource::Values(origin) => {
            format!("set in {}", sanitize::markdown_inline(&origin.to_string(), 300))
        }
        crate::window::PolicySource::KubernetesDefault => {
            "Kubernetes' default for a tag other than `latest`: `singleuser.image.pullPolicy` is not set".into()
        }
    };
    let image = risk.image.as_ref().map_or_else(
        || "the single-user image".to_string(),
        |i| sanitize::markdown_inline(&messages::pod_image(i), 300),
    );
    let consequence = match risk.policy {
        PullPolicy::Never => {
            "nodes never pull it, so new servers start only from an image their node already has, and restarting does not pick this release up"
        }
        _ => {
            "a node that pulled it before starts new servers from its cached, older copy, so restarting may not pick this release up"
        }
    };
    format!(
        "**New servers may start on an older image**: the hub starts them with `imagePullPolicy: {policy}` ({source}) from {image}, which is not pinned by digest; {consequence} until operators set `singleuser.image.pullPolicy: Always`."
    )
}

fn culler_text(c: &CullSettings) -> String {
    if !c.enabled {
        return "disabled (`cull.enabled: false`)".into();
    }
    format!(
        "timeout {}, every {}, max age {}",
        human(c.timeout_secs),
        human(c.every_secs),
        if c.max_age_secs == 0 {
            "none".to_string()
        } else {
            human(c.max_age_secs)
        }
    )
}

fn runbook_context(r: &RunbookSettings, digest: &str) -> minijinja::Value {
    context! {
        namespace => r.namespace, helm_release => r.helm_release, hub_url => r.hub_url,
        warning_period => r.warning_period, digest => digest,
    }
}

/// The most labels of one pull request a body lists; the rest are counted.
pub(crate) const MAX_LABELS_SHOWN: usize = 20;
/// The cap on one untrusted label in a body, in characters.
pub(crate) const LABEL_MAX_CHARS: usize = 50;

/// The context every release note and tracking issue template renders from (see
/// [`TemplateContext`]): the facts, and the window and runbook blocks as the built-in
/// templates state them.
///
/// # Errors
/// Only on a built-in template error.
pub(crate) fn template_context(facts: &Facts) -> Result<TemplateContext> {
    let env = environment();
    let window_text = env
        .get_template("window.md.j2")?
        .render(context! {
            window => context::window_view(&facts.window, Some(facts.now)),
            culler => culler_text(&facts.culler),
            pull_warning => facts.pull.as_ref().map(pull_warning),
        })
        .context("rendering the window section")?;
    let runbook = runbook_section(&facts.runbook, facts.digest.as_str())?;
    Ok(TemplateContext::new(facts, window_text, runbook))
}

/// The hidden lines that open a body of `kind`: its marker, then the announce time
/// (release note) or the evidence fingerprint (tracking issue, update comment). Added by
/// the tool after rendering, so no template can drop or forge them.
fn hidden_header(kind: MarkerKind, facts: &Facts) -> String {
    let (first, second) = match kind {
        MarkerKind::TrackingIssue => (
            tracking_marker(&facts.digest, image_repository(&facts.image)),
            hidden_line(EVIDENCE, &evidence_fingerprint(facts)),
        ),
        MarkerKind::Release => (
            marker(kind, &facts.digest),
            hidden_line(ANNOUNCED_AT, &rfc3339_seconds(facts.now)),
        ),
        _ => (
            marker(kind, &facts.digest),
            hidden_line(EVIDENCE, &evidence_fingerprint(facts)),
        ),
    };
    format!("{first}\n{second}\n")
}

/// Renders `template` (built in) or `custom` with the facts' [`TemplateContext`], under
/// the hidden header.
fn render(
    template: &str,
    facts: &Facts,
    kind: MarkerKind,
    custom: Option<&CustomTemplate>,
) -> Result<String> {
    let ctx = template_context(facts)?;
    let body = match custom {
        Some(custom) => custom.render(&ctx)?,
        None => environment()
            .get_template(template)?
            .render(&ctx)
            .with_context(|| format!("rendering {template}"))?,
    };
    Ok(hidden_header(kind, facts) + &body)
}

/// What happened to one object on GitHub (publish stage); its words are the summary's
/// and the log's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Change {
    /// This run created it.
    Created,
    /// This run updated it (a release body, or the bot's update comment).
    Updated,
    /// It existed and matched: no write.
    Unchanged,
}

impl std::fmt::Display for Change {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Change::Created => "created",
            Change::Updated => "updated",
            Change::Unchanged => "unchanged",
        })
    }
}

/// Text made safe for one cell of a Markdown table: `|` escaped (GitHub's table extension
/// reads `\|` as a literal pipe, also inside links and code spans), line breaks and other
/// control characters replaced by spaces, so a cell stays one cell on one row.
pub(crate) fn table_cell(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>()
        .replace('|', "\\|")
}

/// The links the job summary shows, with what happened to each object. The addresses come
/// from GitHub's API: the caller passes only checked ones ([`sanitize::link_url`]), empty
/// otherwise.
#[derive(Debug, Clone)]
pub struct SummaryLinks {
    /// The release note's address and change.
    pub release: (String, Change),
    /// The tracking issue's address and change (security only).
    pub issue: Option<(String, Change)>,
    /// Older tracking issues that got a "superseded" comment.
    pub superseded: Vec<u64>,
}

/// The job summary: a table (image, digest, tier and how it was decided, window, links),
/// then the release note. `links` is `None` in a dry run.
///
/// # Errors
/// Only on a template error.
pub fn job_summary(
    facts: &Facts,
    tag: &str,
    links: Option<&SummaryLinks>,
    note: &str,
) -> Result<String> {
    let cell = table_cell;
    let mut out = String::from("### codeq-rollout\n\n| | |\n|---|---|\n");
    out.push_str(&format!("| Image | `{}` |\n", cell(&facts.image)));
    out.push_str(&format!("| Digest | `{}` |\n", facts.digest));
    out.push_str(&format!(
        "| Tier | **{}** ({}) |\n",
        facts.tier.tier,
        sanitize::markdown_inline(&facts.tier.reason.to_string(), 300)
    ));
    out.push_str(&format!(
        "| Convergence window | {} |\n",
        cell(&facts.window.summary())
    ));
    let configured = Configured {
        settings: facts.culler,
        origins: facts.culler_origins.clone(),
        ..Default::default()
    };
    let settings: Vec<String> = configured
        .rows()
        .iter()
        .map(|r| format!("`{}` {} ({})", r.key, r.value, cell(&r.origin.to_string())))
        .collect();
    out.push_str(&format!(
        "| Culler settings | {} |\n",
        settings.join("<br>")
    ));
    match links {
        Some(l) => {
            out.push_str(&format!(
                "| Release `{tag}` | {} ({}) |\n",
                cell(&l.release.0),
                l.release.1
            ));
            if let Some((url, change)) = &l.issue {
                out.push_str(&format!("| Tracking issue | {} ({change}) |\n", cell(url)));
            }
            if !l.superseded.is_empty() {
                let list: Vec<String> = l.superseded.iter().map(|n| format!("#{n}")).collect();
                out.push_str(&format!("| Superseded | {} |\n", list.join(", ")));
            }
        }
        None => {
            out.push_str(&format!(
                "| Release `{tag}` | dry run: nothing published |\n"
            ));
            if facts.tier.tier == Tier::Security {
                out.push_str("| Tracking issue | dry run: nothing opened |\n");
            }
        }
    }
    out.push_str("\n<details><summary>Release note</summary>\n\n");
    out.push_str(note);
    out.push_str("\n</details>\n");
    Ok(out)
}

/// The facts of an example release of `tier` with `culler`: one labelled pull request, the
/// example digest, the run's clock at 2026-11-30 12:00 UTC. Custom templates are checked
/// against it ([`custom::CustomTemplate::parse`]); the tests render it.
pub(crate) fn example_facts(tier: Tier, culler: CullSettings) -> Facts {
    let digest =
        Digest::parse("sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08")
            .expect("a valid digest");
    Facts {
        image: "ghcr.io/octo-org/lab:latest".into(),
        digest,
        tier: TierDecision {
            tier,
            source: TierSource::Labels,
            pull_requests: vec![PullRequest {
                number: 42,
                title: "Bump codeq to 1.4.2".into(),
                url: "https://github.com/octo-org/lab-image/pull/42".into(),
                labels: vec![tier.to_string()],
            }],
            deciding: None,
            reason: crate::tier::Reason::Label {
                tier,
                deciding: crate::tier::DecidingLabel {
                    pull_request: 42,
                    label: tier.to_string(),
                },
                origin: crate::tier::LookupOrigin::PullRequest {
                    number: 42,
                    event: "pull_request".into(),
                },
            },
            warnings: vec![],
        },
        culler,
        culler_origins: Default::default(),
        window: compute(&culler),
        sha: "c4295bd74fb0f4fda03689c3df3f2803b658fd85".into(),
        run_url: Some("https://github.com/octo-org/lab-image/actions/runs/4242/attempts/1".into()),
        release_url: Some(
            "https://github.com/octo-org/lab-image/releases/tag/lab-9f86d081884c".into(),
        ),
        runbook: RunbookSettings::default(),
        now: time::macros::datetime!(2026-11-30 12:00 UTC),
        pull: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(tier: Tier, culler: CullSettings) -> Facts {
        example_facts(tier, culler)
    }

    #[test]
    fn routine_release_note() {
        insta::assert_snapshot!(
            release_note(&facts(Tier::Routine, CullSettings::default()), None).unwrap()
        );
    }

    #[test]
    fn security_release_note_with_max_age() {
        let culler = CullSettings {
            max_age_secs: 8 * 3600,
            ..Default::default()
        };
        insta::assert_snapshot!(release_note(&facts(Tier::Security, culler), None).unwrap());
    }

    /// The pull-policy preflight found that new servers may start on an older image: the
    /// note says so instead of promising the new image at once, in its opening and its list.
    #[test]
    fn release_note_when_new_servers_may_start_on_an_older_image() {
        use crate::window::{Origin, PodImage, PodTag, PolicySource, PullPolicy, PullRisk};
        let mut f = facts(Tier::Routine, CullSettings::default());
        f.pull = Some(PullRisk {
            policy: PullPolicy::IfNotPresent,
            source: PolicySource::Values(Origin::file(
                "deploy/values.yaml",
                "jupyterhub.singleuser.image.pullPolicy",
            )),
            image: Some(PodImage {
                name: "ghcr.io/octo-org/lab".into(),
                tag: PodTag::Given("latest".into()),
                name_origin: None,
            }),
        });
        let note = release_note(&f, None).unwrap();
        for promise in [
            "on the new image at once",
            "start on it at once",
            "on the new image.",
        ] {
            assert!(!note.contains(promise), "{promise}: {note}");
        }
        insta::assert_snapshot!(note);
    }

    #[test]
    fn release_note_with_culling_disabled() {
        let culler = CullSettings {
            enabled: false,
            ..Default::default()
        };
        insta::assert_snapshot!(release_note(&facts(Tier::Routine, culler), None).unwrap());
    }

    #[test]
    fn security_tracking_issue() {
        insta::assert_snapshot!(
            super::tracking_issue(&facts(Tier::Security, CullSettings::default()), None).unwrap()
        );
    }

    /// An idle culler whose maximum server age (30m) comes before its idle timeout (2h).
    fn max_age_before_timeout() -> CullSettings {
        CullSettings {
            timeout_secs: 7200,
            every_secs: 600,
            max_age_secs: 1800,
            ..Default::default()
        }
    }

    /// `facts` with the worst case for a hub of `servers` servers (slow-stop timeout 10 s).
    fn at_scale(mut f: Facts, servers: u64) -> Facts {
        let config = Configured {
            settings: f.culler,
            scale: crate::window::ScaleConfig {
                servers: Some(servers),
                ..Default::default()
            },
            ..Default::default()
        };
        f.window = config.window();
        f
    }

    #[test]
    fn deadlines_round_up_to_the_minute_and_on_the_calendars_last_minute_to_the_second() {
        use time::macros::datetime;
        let rounded: Vec<String> = [
            datetime!(2026-11-30 07:12:48 UTC),
            datetime!(2026-11-30 07:12 UTC),
            datetime!(2026-11-30 09:12:48 +02:00),
            datetime!(9999-12-31 23:58:30 UTC),
            datetime!(9999-12-31 23:59 UTC),
            datetime!(9999-12-31 23:59:30.2 UTC),
            datetime!(9999-12-31 23:59:59 UTC),
            // Past the last second: no deadline stated is (`fits_calendar`); no panic.
            datetime!(9999-12-31 23:59:59.5 UTC),
            datetime!(9999-12-31 23:59:59 -23:59),
        ]
        .iter()
        .map(|t| format!("{t} -> {}", utc_minute_up(*t)))
        .collect();
        insta::assert_snapshot!(rounded.join("\n"), @r#"
2026-11-30 7:12:48.0 +00:00:00 -> 2026-11-30 07:13 UTC
2026-11-30 7:12:00.0 +00:00:00 -> 2026-11-30 07:12 UTC
2026-11-30 9:12:48.0 +02:00:00 -> 2026-11-30 07:13 UTC
9999-12-31 23:58:30.0 +00:00:00 -> 9999-12-31 23:59 UTC
9999-12-31 23:59:00.0 +00:00:00 -> 9999-12-31 23:59 UTC
9999-12-31 23:59:30.2 +00:00:00 -> 9999-12-31 23:59:31 UTC
9999-12-31 23:59:59.0 +00:00:00 -> 9999-12-31 23:59:59 UTC
9999-12-31 23:59:59.5 +00:00:00 -> 9999-12-31 23:59:59 UTC
9999-12-31 23:59:59.0 -23:59:00 -> 9999-12-31 23:59 -23:59
"#);
        // The worst case at the hub's scale from the latest clock whose deadlines fit: every
        // deadline is written, none dropped as if culling were disabled.
        let window = at_scale(facts(Tier::Routine, CullSettings::default()), 100).window;
        let longest = window.longest_secs().unwrap();
        let now = crate::support::time::LAST - time::Duration::seconds(longest as i64);
        assert!(crate::window::fits_calendar(now, longest));
        let view = context::window_view(&window, Some(now));
        let worst = view.worst.unwrap();
        assert_eq!(
            (view.bounds.idle_by, worst.bounds.idle_by),
            (
                Some("9999-12-31 23:44 UTC".to_string()),
                Some("9999-12-31 23:59:59 UTC".to_string())
            )
        );
        // The usual bound's deadline rounds up as the worst case's does: a release at
        // 20:36:24 with z2jh's defaults (1h 10m) is due by 21:46:24, which reads 21:47.
        let window = facts(Tier::Routine, CullSettings::default()).window;
        let view = context::window_view(&window, Some(datetime!(2026-11-30 20:36:24 UTC)));
        assert_eq!(
            (view.bounds.idle.as_deref(), view.bounds.idle_by.as_deref()),
            (Some("1h 10m"), Some("2026-11-30 21:47 UTC"))
        );
    }

    #[test]
    fn routine_release_note_at_the_hubs_scale() {
        let f = at_scale(facts(Tier::Routine, CullSettings::default()), 100);
        insta::assert_snapshot!(release_note(&f, None).unwrap());
    }

    #[test]
    fn security_release_note_with_max_age_at_the_hubs_scale() {
        let culler = CullSettings {
            max_age_secs: 8 * 3600,
            ..Default::default()
        };
        let f = at_scale(facts(Tier::Security, culler), 100);
        insta::assert_snapshot!(release_note(&f, None).unwrap());
    }

    #[test]
    fn security_tracking_issue_at_the_hubs_scale() {
        let f = at_scale(facts(Tier::Security, CullSettings::default()), 100);
        insta::assert_snapshot!(super::tracking_issue(&f, None).unwrap());
    }

    #[test]
    fn the_worst_case_with_max_age_first_and_its_evidence() {
        let plain = facts(Tier::Routine, max_age_before_timeout());
        let f = at_scale(plain.clone(), 1);
        let note = release_note(&f, None).unwrap();
        assert!(
            note.contains("within **40m** of it (by **2026-11-30 12:40 UTC**), and at the latest within **41m** (by **2026-11-30 12:41 UTC**) with 1 server reaching it in the same cull pass."),
            "{note}"
        );
        // A hub size is a fact the tracking issue states (without one the fingerprint is the
        // one recorded before hub sizes existed: the tracking issue snapshot's second line).
        assert_ne!(evidence_fingerprint(&plain), evidence_fingerprint(&f));
    }

    /// The window as the release note states it, with concrete times from the run's clock
    /// (12:00 UTC), over the table of issue 5.
    #[test]
    fn window_text_and_deadlines_table() {
        let s = |enabled, timeout_secs, every_secs, max_age_secs| CullSettings {
            enabled,
            timeout_secs,
            every_secs,
            max_age_secs,
        };
        let cases: [(CullSettings, &[&str], &[&str]); 5] = [
            (
                CullSettings::default(),
                &[
                    "within **1h 10m** of their last activity: sessions idle since the release have picked this up by **2026-11-30 13:10 UTC**",
                    "**Active sessions** are never updated passively",
                    "An open browser tab counts as activity",
                    "Idle culler: timeout 1h, every 10m, max age none.",
                ],
                &["maximum server age even if in use"],
            ),
            (
                s(true, 3600, 600, 8 * 3600),
                &[
                    "picked this up by **2026-11-30 13:10 UTC**",
                    "has been stopped within **8h 10m** of it (by **2026-11-30 20:10 UTC**)",
                ],
                &["never updated passively"],
            ),
            (
                s(false, 3600, 600, 8 * 3600),
                &[
                    "**Culling is disabled** on this hub: no session updates passively",
                    "Idle culler: disabled (`cull.enabled: false`).</sub>",
                ],
                &["picked this up", "open browser tab", "8h", "Each bound"],
            ),
            (
                s(true, 600, 600, 0),
                &[
                    "within **20m** of their last activity: sessions idle since the release have picked this up by **2026-11-30 12:20 UTC**",
                ],
                &[],
            ),
            (
                s(true, crate::window::MAX_DURATION_SECS, 600, 0),
                &[
                    "within **3650 days 10m** of their last activity: sessions idle since the release have picked this up by **2036-11-27 12:10 UTC**",
                ],
                &["none**"],
            ),
        ];
        for (culler, present, absent) in cases {
            let note = release_note(&facts(Tier::Routine, culler), None).unwrap();
            for p in present {
                assert!(note.contains(p), "{culler:?} lacks {p:?}:\n{note}");
            }
            for a in absent {
                assert!(!note.contains(a), "{culler:?} has {a:?}:\n{note}");
            }
            assert!(note.matches("An open browser tab").count() <= 1);
        }
    }

    #[test]
    fn markers_are_trusted_only_on_the_first_line() {
        let f = facts(Tier::Security, CullSettings::default());
        let body = release_note(&f, None).unwrap();
        assert_eq!(
            marker_digest(MarkerKind::Release, &body),
            Some(f.digest.clone())
        );
        assert_eq!(marker_digest(MarkerKind::TrackingIssue, &body), None);
        let forged = format!("Human text\n{}", marker(MarkerKind::Release, &f.digest));
        assert_eq!(marker_digest(MarkerKind::Release, &forged), None);
    }

    #[test]
    fn the_announce_time_and_the_evidence_are_recorded_on_the_second_line() {
        let f = facts(Tier::Security, CullSettings::default());
        let note = release_note(&f, None).unwrap();
        assert_eq!(announced_at(&note), Some(f.now));
        // An edited note: a time with an offset is taken in UTC; one that cannot be written
        // in UTC counts as none (the publication time is used), never met later.
        let recorded = rfc3339_seconds(f.now);
        let edited = |at: &str| note.replacen(&recorded, at, 1);
        assert_eq!(
            announced_at(&edited("2026-11-30T14:00:00+02:00")),
            Some(time::macros::datetime!(2026-11-30 12:00 UTC))
        );
        assert_eq!(announced_at(&edited("0000-01-01T00:00:00+23:59")), None);
        assert_eq!(announced_at(&edited("9999-12-31T23:59:59-23:59")), None);
        let issue = super::tracking_issue(&f, None).unwrap();
        let fingerprint = evidence_fingerprint(&f);
        assert_eq!(fingerprint.len(), 16);
        assert_eq!(
            recorded_evidence(MarkerKind::TrackingIssue, &issue),
            Some(fingerprint.as_str())
        );
        let update = super::tracking_update(&f).unwrap();
        assert_eq!(
            marker_digest(MarkerKind::UpdateComment, &update),
            Some(f.digest.clone())
        );
        assert_eq!(
            recorded_evidence(MarkerKind::UpdateComment, &update),
            Some(fingerprint.as_str())
        );
        // Not trusted without the marker above it.
        let bare: String = issue.lines().skip(1).collect::<Vec<_>>().join("\n");
        assert_eq!(recorded_evidence(MarkerKind::TrackingIssue, &bare), None);
    }

    #[test]
    fn evidence_ignores_the_clock_and_the_run_but_not_the_labels() {
        let f = facts(Tier::Security, CullSettings::default());
        let mut later = f.clone();
        later.now += time::Duration::hours(5);
        later.run_url =
            Some("https://github.com/octo-org/lab-image/actions/runs/4242/attempts/2".into());
        assert_eq!(evidence_fingerprint(&f), evidence_fingerprint(&later));
        let mut relabelled = f.clone();
        relabelled.tier.pull_requests[0].labels.push("cve".into());
        assert_ne!(evidence_fingerprint(&f), evidence_fingerprint(&relabelled));
    }

    #[test]
    fn tracking_update_comment() {
        insta::assert_snapshot!(
            super::tracking_update(&facts(Tier::Security, CullSettings::default())).unwrap()
        );
    }

    #[test]
    fn runbook_values_stay_one_shell_word_even_unvalidated() {
        let settings = RunbookSettings {
            namespace: "a b; rm -rf /".into(),
            helm_release: "it's".into(),
            hub_url: "https://hub.example.org".into(),
            ..Default::default()
        };
        let runbook = runbook_section(&settings, "sha256:x").unwrap();
        assert!(
            runbook.contains(
                "  NS='a b; rm -rf /' RELEASE='it'\\''s' HUB_URL=https://hub.example.org\n"
            ),
            "{runbook}"
        );
        assert!(runbook.contains("  DIGEST=sha256:x\n"), "{runbook}");
        assert_eq!(shell_word(""), "''");
        assert_eq!(shell_word("jhub"), "jhub");
    }

    #[test]
    fn no_commit_row_without_a_commit() {
        let mut f = facts(Tier::Security, CullSettings::default());
        assert!(
            release_note(&f, None)
                .unwrap()
                .contains("| Commit | `c4295bd74fb0` |")
        );
        f.sha = String::new();
        for body in [
            release_note(&f, None).unwrap(),
            super::tracking_update(&f).unwrap(),
        ] {
            assert!(!body.contains("| Commit |"), "{body}");
            assert!(body.contains("| Tier | **security**"), "{body}");
        }
    }

    #[test]
    fn a_security_dry_run_summary_says_no_tracking_issue_was_opened() {
        let f = facts(Tier::Security, CullSettings::default());
        let summary = job_summary(&f, "lab-9f86d081884c", None, "note").unwrap();
        assert!(
            summary.contains("| Release `lab-9f86d081884c` | dry run: nothing published |\n| Tracking issue | dry run: nothing opened |\n"),
            "{summary}"
        );
        let f = facts(Tier::Routine, CullSettings::default());
        let summary = job_summary(&f, "lab-9f86d081884c", None, "note").unwrap();
        assert!(!summary.contains("Tracking issue"), "{summary}");
    }

    #[test]
    fn a_max_age_shorter_than_the_timeout_is_one_bound_for_every_session() {
        let note = release_note(&facts(Tier::Routine, max_age_before_timeout()), None).unwrap();
        assert!(
            note.contains("- **Every session**, idle or active, is stopped at the maximum server age, which comes before the idle timeout: every session running at the release has been stopped within **40m** of it (by **2026-11-30 12:40 UTC**)."),
            "{note}"
        );
        for absent in ["2h 10m", "**Idle sessions**", "**Active sessions**"] {
            assert!(!note.contains(absent), "{absent}: {note}");
        }
    }

    #[test]
    fn oversize_bodies_are_cut_with_a_note() {
        let body = "x".repeat(200_000);
        let cut = truncate_body(&body, RELEASE_BODY_LIMIT, "the run");
        assert_eq!(cut.chars().count(), RELEASE_BODY_LIMIT);
        assert!(cut.ends_with("The full text is in the run.*\n"));
    }

    #[test]
    fn the_tracking_marker_names_the_image_repository_and_old_markers_still_parse() {
        assert_eq!(
            image_repository("ghcr.io/org/lab:latest"),
            "ghcr.io/org/lab"
        );
        assert_eq!(
            image_repository("localhost:5000/lab@sha256:ab"),
            "localhost:5000/lab"
        );
        assert_eq!(image_repository("localhost:5000/lab"), "localhost:5000/lab");
        assert_eq!(image_repository("oci:build/lab:latest"), "oci:build/lab");
        let d = facts(Tier::Security, CullSettings::default()).digest;
        let new = tracking_marker(&d, "oci:/tmp/a b>/lab");
        assert_eq!(
            marker_digest(MarkerKind::TrackingIssue, &new),
            Some(d.clone())
        );
        assert_eq!(marker_image(&new).as_deref(), Some("oci:/tmp/a b>/lab"));
        let old = marker(MarkerKind::TrackingIssue, &d);
        assert_eq!(marker_digest(MarkerKind::TrackingIssue, &old), Some(d));
        assert_eq!(marker_image(&old), None);
    }

    #[test]
    fn a_sealed_release_note_tells_a_human_edit_from_its_own_text() {
        let f = facts(Tier::Routine, CullSettings::default());
        let note = release_note(&f, None).unwrap();
        assert_eq!(release_edited(&note), None, "not sealed yet");
        let sealed = seal_release(&note);
        assert_eq!(
            sealed.chars().count() - note.chars().count(),
            BODY_HASH.len() + 16
        );
        assert_eq!(release_edited(&sealed), Some(false));
        assert_eq!(announced_at(&sealed), Some(f.now));
        assert_eq!(
            seal_release(&sealed),
            sealed,
            "sealing twice changes nothing"
        );
        assert!(same_release_text(&note, &sealed));
        let edited = format!("{sealed}\n### Known issue\nText.\n");
        assert_eq!(release_edited(&edited), Some(true));
        assert_eq!(release_edited(&seal_release(&edited)), Some(false));
    }
}
