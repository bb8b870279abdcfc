//! The template context: every name a release note or tracking issue template can use,
//! documented here and nowhere else (docs/templates.md lists the same names;
//! `announce --dry-run --print-context` prints them for a run as JSON).
//!
//! The built-in templates (`templates/*.md.j2`) and a team's own ones
//! (`release-note-template`, `tracking-issue-template`) get the same [`TemplateContext`].
//! Untrusted text (pull-request titles and labels, the tier reason that quotes them) is in
//! it already neutralised ([`crate::sanitize`]); the tool's hidden marker lines are not in
//! it at all: they are added after rendering.

use super::window_words::{human, human_at_most, servers_words};
use super::{Facts, RunbookSettings, culler_text, image_repository, short_digest};
use crate::support::sanitize;
use crate::support::time::{rfc3339_seconds, utc_minute, utc_minute_up};
use crate::tier::{PullRequest, Tier, TierDecision};
use crate::window::Window;
use serde::Serialize;
use time::OffsetDateTime;

/// What a template renders from. Field names are the template's variable names; the parts
/// marked flattened put their fields at the top level (`tier`, not `tier.tier`), so a
/// template sees one flat set of names.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct TemplateContext {
    /// The image reference as given, e.g. `ghcr.io/org/lab:latest` or `oci:build/lab`.
    pub(crate) image: String,
    /// The image repository: the reference without tag or digest, e.g. `ghcr.io/org/lab`.
    pub(crate) image_repository: String,
    /// The digest announced, `sha256:` and 64 hex digits.
    pub(crate) digest: String,
    /// `sha256:` and the first 12 hex digits of the digest.
    pub(crate) digest_short: String,
    /// The commit the release targets, 40 hex digits; empty when unknown.
    pub(crate) sha: String,
    /// Its first 12 hex digits; empty when unknown.
    pub(crate) sha_short: String,
    /// The tier and how it was decided (flattened).
    #[serde(flatten)]
    pub(crate) tier: TierView,
    /// The convergence window, in words and dated.
    pub(crate) window: WindowView,
    /// The window in one line, e.g. `idle sessions within 1h 10m; active sessions: until restart`.
    pub(crate) window_summary: String,
    /// The window as the built-in templates state it: a Markdown list and the culler
    /// settings (`templates/window.md.j2`).
    pub(crate) window_text: String,
    /// The idle culler settings in words, e.g. `timeout 1h, every 10m, max age none`.
    pub(crate) culler: String,
    /// When new servers may start on an older image (the pull policy is not `Always` and
    /// the image not pinned by digest), the built-in note's sentence saying so (Markdown);
    /// `none` when new servers start on the new image at once.
    pub(crate) pull_warning: Option<String>,
    /// The release time the window's deadlines count from, RFC 3339 UTC
    /// (`2026-11-30T12:00:00Z`); a re-run keeps the first run's time.
    pub(crate) released_at: String,
    /// The same time as `2026-11-30 12:00 UTC`.
    pub(crate) released_at_text: String,
    /// The release note's web address; `none` outside a repository.
    pub(crate) release_url: Option<String>,
    /// The workflow run's web address; `none` outside GitHub Actions.
    pub(crate) run_url: Option<String>,
    /// Where the runbook points (flattened): `hub_url` (`hub-url`, e.g.
    /// `https://hub.example.org`), `namespace`, `helm_release` (`helm-release`) and
    /// `warning_period`, how long users are warned before break-glass, e.g. `15 minutes`.
    #[serde(flatten)]
    pub(crate) hub: RunbookSettings,
    /// The digests of the image index's platform manifests, `sha256:<64 hex>` each (empty for
    /// a single-platform image): a pod whose imageID names one runs the new image too.
    pub(crate) platforms: Vec<String>,
    /// The break-glass runbook as the built-in tracking issue has it: an introduction, then
    /// the steps as a Markdown task list (`templates/runbook.md.j2`).
    pub(crate) runbook: String,
    /// The same runbook's steps, in order.
    pub(crate) runbook_steps: Vec<RunbookStep>,
}

/// The tier decision as a template sees it: untrusted text already neutralised.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct TierView {
    /// The tier: `routine` or `security`.
    pub(crate) tier: String,
    /// Whether the tier is `security`.
    pub(crate) security: bool,
    /// How the tier was decided: `labels` (pull-request labels), `input` (the `tier` input)
    /// or `default` (the `unlabeled-tier` policy).
    pub(crate) tier_source: String,
    /// One sentence saying how the tier was decided (neutralised Markdown, at most 300
    /// characters), e.g. `security: label "security" on #42`.
    pub(crate) tier_reason: String,
    /// The pull requests behind the release, oldest first (may be empty).
    pub(crate) pull_requests: Vec<PullRequestView>,
}

/// A pull request as a template sees it: every field from GitHub neutralised.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct PullRequestView {
    /// The pull request's number.
    pub(crate) number: u64,
    /// Its title, neutralised Markdown (mentions, references, links and HTML defused), at
    /// most [`sanitize::DEFAULT_MAX_CHARS`] characters.
    pub(crate) title: String,
    /// Its web address; empty when it is not a plain http(s) URL.
    pub(crate) url: String,
    /// Its labels, neutralised, joined by `, ` (at most [`super::MAX_LABELS_SHOWN`], then
    /// `and N more`).
    pub(crate) labels: String,
    /// The same labels as a list.
    pub(crate) label_list: Vec<String>,
}

/// The convergence window as a template sees it. Durations in words (`1h 10m`), deadlines
/// as `2026-11-30 13:10 UTC`, rounded up to the minute when not whole (never earlier than
/// the bound, [`utc_minute_up`]); a bound that does not exist is `none`.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct WindowView {
    /// Whether the idle culler runs; without it no session updates passively.
    pub(crate) culling_enabled: bool,
    /// Whether the maximum server age stops every session no later than the idle timeout.
    pub(crate) max_age_first: bool,
    /// The usual bounds: `idle`, `active`, `idle_seconds`, `active_seconds`, `idle_by`,
    /// `active_by` (names of the window itself).
    #[serde(flatten)]
    pub(crate) bounds: BoundsView,
    /// The worst case for the hub's size (`hub-size`), when given.
    pub(crate) worst: Option<WorstView>,
}

/// The worst case as the templates state it: durations rounded up to the minute
/// ([`human_at_most`]), deadlines rounded up to the minute, so neither reads earlier than
/// it is.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct WorstView {
    /// The hub's size in words, e.g. `100 servers`.
    pub(crate) servers: String,
    /// The slow-stop timeout in words, e.g. `10s`.
    pub(crate) slow_stop: String,
    /// The bounds at worst: the same names as the window's usual ones.
    #[serde(flatten)]
    pub(crate) bounds: BoundsView,
}

/// One set of bounds of the window (the usual one, or the worst case): how long after
/// the release, and by when, sessions have been stopped. Its names sit directly in
/// `window` and in `window.worst`.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct BoundsView {
    /// Within how long of their last activity idle sessions have been stopped.
    pub(crate) idle: Option<String>,
    /// Within how long of the release even active sessions have been stopped (needs a
    /// maximum server age).
    pub(crate) active: Option<String>,
    /// The idle bound in seconds.
    pub(crate) idle_seconds: Option<u64>,
    /// The active bound in seconds.
    pub(crate) active_seconds: Option<u64>,
    /// By when sessions idle since the release have been stopped.
    pub(crate) idle_by: Option<String>,
    /// By when every session running at the release has been stopped.
    pub(crate) active_by: Option<String>,
}

/// One step of the break-glass runbook.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub(crate) struct RunbookStep {
    /// Its bold lead, e.g. `Decide` or `List stale servers`.
    pub(crate) title: String,
    /// The whole step as Markdown without its `- [ ] ` box: the lead, the text, the
    /// indented commands.
    pub(crate) text: String,
}

impl TemplateContext {
    /// The context every release note and tracking issue template renders from: the
    /// facts, and the window and runbook blocks as the built-in templates state them.
    ///
    /// # Errors
    /// Only on a built-in template error.
    pub(crate) fn new(facts: &Facts) -> anyhow::Result<Self> {
        let pull = facts.pull.as_ref();
        let window_text = super::window_block(&facts.culler, &facts.window, Some(facts.now), pull)?;
        let runbook =
            super::runbook_section(&facts.runbook, facts.digest.as_str(), &facts.platforms)?;
        Ok(Self {
            image: facts.image.clone(),
            image_repository: image_repository(&facts.image),
            digest: facts.digest.to_string(),
            digest_short: short_digest(&facts.digest),
            sha: facts.sha.clone(),
            sha_short: facts.sha.chars().take(12).collect(),
            tier: TierView::of(&facts.tier),
            window: window_view(&facts.window, Some(facts.now)),
            window_summary: facts.window.summary(),
            window_text,
            culler: culler_text(&facts.culler),
            pull_warning: facts.pull.as_ref().map(super::pull_warning),
            released_at: rfc3339_seconds(facts.now),
            released_at_text: utc_minute(facts.now),
            release_url: facts.release_url.clone(),
            run_url: facts.run_url.clone(),
            hub: facts.runbook.clone(),
            platforms: facts.platforms.iter().map(ToString::to_string).collect(),
            runbook_steps: runbook_steps(&runbook),
            runbook,
        })
    }
}

impl TierView {
    /// The tier decision as templates (and the job summary) see it.
    pub(super) fn of(decision: &TierDecision) -> Self {
        Self {
            tier: decision.tier().to_string(),
            security: decision.tier() == Tier::Security,
            tier_source: decision.source().to_string(),
            tier_reason: sanitize::markdown_inline(&decision.reason.to_string(), 300),
            pull_requests: decision.pull_requests.iter().map(pr_view).collect(),
        }
    }
}

/// The window as templates see it; deadlines only with a clock (`now`).
pub(super) fn window_view(window: &Window, now: Option<OffsetDateTime>) -> WindowView {
    // Every deadline, the usual bound's as the worst case's, is a "never later than": it is
    // rounded up to the minute, so it never reads earlier than it is (a release at 20:36:24
    // with a 1h 10m bound reads `21:47 UTC`, not 21:46).
    let by = |secs: Option<u64>| -> Option<String> {
        let now = now?;
        let secs = i64::try_from(secs?).ok()?;
        let at = now.checked_add(time::Duration::seconds(secs))?;
        Some(utc_minute_up(at))
    };
    // The worst case's durations read "at most", rounded up to whole minutes.
    let bounds = |idle: Option<u64>, active: Option<u64>, worst: bool| {
        let words = if worst { human_at_most } else { human };
        BoundsView {
            idle: idle.map(words),
            active: active.map(words),
            idle_seconds: idle,
            active_seconds: active,
            idle_by: by(idle),
            active_by: by(active),
        }
    };
    WindowView {
        culling_enabled: window.culling_enabled,
        max_age_first: window.max_age_first(),
        bounds: bounds(window.idle_secs, window.active_secs, false),
        worst: window.worst.map(|w| WorstView {
            servers: servers_words(w.scale.servers),
            slow_stop: human(w.scale.slow_stop_timeout_secs),
            bounds: bounds(w.idle_secs, w.active_secs, true),
        }),
    }
}

/// A pull request as the bodies show it: every untrusted field neutralised.
fn pr_view(pr: &PullRequest) -> PullRequestView {
    let mut labels: Vec<String> = pr
        .labels
        .iter()
        .take(super::MAX_LABELS_SHOWN)
        .map(|l| sanitize::markdown_inline(l, super::LABEL_MAX_CHARS))
        .collect();
    if pr.labels.len() > super::MAX_LABELS_SHOWN {
        labels.push(format!(
            "and {} more",
            pr.labels.len() - super::MAX_LABELS_SHOWN
        ));
    }
    PullRequestView {
        number: pr.number,
        title: sanitize::markdown_inline(&pr.title, sanitize::DEFAULT_MAX_CHARS),
        url: sanitize::link_url(&pr.url).unwrap_or("").to_string(),
        labels: labels.join(", "),
        label_list: labels,
    }
}

/// The steps of a rendered runbook: its `- [ ] ` items, each with the lines under it
/// (`templates/runbook.md.j2` ends with its task list; trailing blank lines dropped).
fn runbook_steps(runbook: &str) -> Vec<RunbookStep> {
    let step = |item: &str| {
        let lead = item
            .strip_prefix("**")
            .and_then(|rest| rest.split_once("**"));
        let title = lead.map_or("", |(lead, _)| lead);
        RunbookStep {
            title: title.trim_end_matches(['.', ':']).to_string(),
            text: item.trim_end().to_string(),
        }
    };
    runbook.split("\n- [ ] ").skip(1).map(step).collect()
}
