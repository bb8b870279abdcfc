//! Stage 4 (pure), the words users read: this file renders the release's Markdown bodies
//! (release note, tracking issue, update comment, job summary, the deployment doc's sections)
//! from [`Facts`] with the templates of `templates/`; its modules hold the other words.
//!
//! One set of templates feeds the release note, the tracking issue, the job summary and
//! the generated sections of `CODEQ_DEPLOYMENT.md`, so they cannot drift apart. Rendering
//! takes plain structs and an injected clock (`now`), and never performs I/O. Untrusted text
//! (PR titles, labels) is neutralised by [`crate::sanitize`] on the way in. The hidden lines
//! above each body are [`mod@marker`]'s; the one template environment is [`templates`]'.

pub(crate) mod context;
pub(crate) mod custom;
pub(crate) mod deployment;
pub(crate) mod docs;
mod help;
pub(crate) mod kube;
mod marker;
pub(crate) mod messages;
pub(crate) mod publish;
mod reading_words;
mod reasons;
pub(crate) mod status;
pub(crate) mod templates;
mod token_words;
pub(crate) mod usage;
pub(crate) mod usage_words;
pub(crate) mod values_words;
pub(crate) mod window_words;
pub(crate) mod words;

pub(crate) use context::TemplateContext;
pub(crate) use custom::{BodyKind, CustomTemplate, TemplateError};
pub use marker::{MarkerKind, image_repository, marker, seal_release};
pub(crate) use marker::{
    announced_at, evidence_fingerprint, marker_digest, marker_image, recorded_evidence,
    recorded_promise, release_edited, same_release_text,
};
pub(crate) use templates::table_cell;

use crate::digest::Digest;
use crate::support::sanitize;
use crate::tier::{PullRequest, Tier, TierDecision};
use crate::window::{
    Configured, CullSettings, Origins, PolicySource, PullPolicy, PullRisk, Window, compute,
};
use anyhow::Result;
use minijinja::context;
use serde::Serialize;
use time::OffsetDateTime;

/// GitHub's limit on a release body: 125,000 characters (longer ones get a 422).
pub const RELEASE_BODY_LIMIT: usize = 125_000;
/// GitHub's limit on an issue or comment body: 65,536 characters.
pub const ISSUE_BODY_LIMIT: usize = 65_536;

/// Where the break-glass runbook points: cluster and Hub.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RunbookSettings {
    /// The hub's base URL, e.g. `https://hub.example.org` (`--hub-url`).
    pub hub_url: String,
    /// Kubernetes namespace of the hub (`--namespace`, default `jhub`).
    pub namespace: String,
    /// Helm release name of the hub (`--helm-release`, default `jhub`): the `release` pod label.
    pub helm_release: String,
    /// How long to give users to save their work, e.g. `15 minutes`.
    pub warning_period: String,
}

impl RunbookSettings {
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
    /// The digests of the platform manifests of the image index `digest` (empty for a
    /// single-platform image; read only for a security release, whose runbook names them).
    pub platforms: Vec<Digest>,
    /// The run's clock: the release time that the window's deadlines count from.
    pub now: OffsetDateTime,
    /// The pull-policy preflight's finding, when new servers may start on an older image
    /// (`crate::window::ImageConfig::pull_risk`); `None` when they start on the new one.
    pub pull: Option<PullRisk>,
}

impl Facts {
    /// The facts of an example release of `tier` with `culler`: one labelled pull request
    /// (#42), the example digest, commit `c4295bd74fb0…`, the run's clock at 2026-11-30
    /// 12:00 UTC. Custom templates are checked against it ([`CustomTemplate::parse`]); the
    /// tests render it.
    pub fn example(tier: Tier, culler: CullSettings) -> Facts {
        let digest = "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
        let label = tier.to_string();
        let deciding = crate::tier::DecidingLabel {
            pull_request: 42,
            label: label.clone(),
        };
        let origin = crate::tier::LookupOrigin::PullRequest {
            number: 42,
            event: "pull_request".into(),
        };
        Facts {
            image: "ghcr.io/octo-org/lab:latest".into(),
            digest: Digest::parse(digest).expect("a valid digest"),
            tier: TierDecision {
                pull_requests: vec![PullRequest {
                    number: 42,
                    title: "Bump codeq to 1.4.2".into(),
                    url: "https://github.com/octo-org/lab-image/pull/42".into(),
                    labels: vec![label],
                }],
                reason: crate::tier::Reason::Label {
                    tier,
                    deciding,
                    origin,
                },
                warnings: vec![],
            },
            culler,
            culler_origins: Origins::default(),
            window: compute(&culler),
            sha: "c4295bd74fb0f4fda03689c3df3f2803b658fd85".into(),
            run_url: Some(
                "https://github.com/octo-org/lab-image/actions/runs/4242/attempts/1".into(),
            ),
            release_url: Some(
                "https://github.com/octo-org/lab-image/releases/tag/lab-9f86d081884c".into(),
            ),
            runbook: RunbookSettings::default(),
            platforms: vec![],
            now: time::macros::datetime!(2026-11-30 12:00 UTC),
            pull: None,
        }
    }
}

/// Renders the release note (body of the GitHub Release) from `custom` or the built-in
/// template, whole: publishing cuts it to [`RELEASE_BODY_LIMIT`] with a note pointing at
/// the run's log (`where_full`), which then holds this full text.
///
/// # Errors
/// A `TemplateError` of `custom` (exit code 2); else only on a built-in template error
/// (a bug: the built-in templates are tested).
pub fn release_note(facts: &Facts, custom: Option<&CustomTemplate>) -> Result<String> {
    render("release_note.md.j2", facts, MarkerKind::Release, custom)
}

/// Renders the tracking issue's body from `custom` or the built-in template, whole:
/// publishing cuts it to [`ISSUE_BODY_LIMIT`], as [`release_note`].
///
/// # Errors
/// A `TemplateError` of `custom`; else only on a built-in template error.
pub fn tracking_issue(facts: &Facts, custom: Option<&CustomTemplate>) -> Result<String> {
    let kind = MarkerKind::TrackingIssue;
    render("tracking_issue.md.j2", facts, kind, custom)
}

/// Renders the bot's one comment on an existing tracking issue, stating facts a later run
/// found different (the issue body itself is the responders' and is never edited). Capped
/// at [`ISSUE_BODY_LIMIT`].
///
/// # Errors
/// Only on a template error.
pub(crate) fn tracking_update(facts: &Facts) -> Result<String> {
    let kind = MarkerKind::UpdateComment;
    let body = render("tracking_update.md.j2", facts, kind, None)?;
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

/// The convergence-window section: the window as a Markdown list, with dated deadlines
/// when `now` is given, and the culler settings (`templates/window.md.j2`).
fn window_block(
    culler: &CullSettings,
    window: &Window,
    now: Option<OffsetDateTime>,
    pull: Option<&PullRisk>,
) -> Result<String> {
    let ctx = context! {
        window => context::window_view(window, now),
        culler => culler_text(culler),
        pull_warning => pull.map(pull_warning),
    };
    templates::render("window.md.j2", ctx)
}

/// The convergence-window section alone (for `CODEQ_DEPLOYMENT.md`), without dated deadlines.
///
/// # Errors
/// Only on a template error.
pub fn window_section(culler: &CullSettings, window: &Window) -> Result<String> {
    window_block(culler, window, None, None)
}

/// The break-glass runbook alone (for `CODEQ_DEPLOYMENT.md`), with `digest` as written
/// (a real digest in the tracking issue, a placeholder in the doc) and `platforms`, the
/// digests of the image index's platform manifests (empty for a single-platform image):
/// its `stale` selector counts a pod whose imageID names any of them as on the new image,
/// as `status` does (a node's runtime may report the platform manifest's digest).
///
/// # Errors
/// Only on a template error.
pub fn runbook_section(r: &RunbookSettings, digest: &str, platforms: &[Digest]) -> Result<String> {
    let platforms: Vec<&str> = platforms.iter().map(Digest::as_str).collect();
    let ctx = context! { digest, platforms, ..minijinja::Value::from_serialize(r) };
    templates::render("runbook.md.j2", ctx)
}

/// Cuts `body` to at most `limit` characters, ending with a line that says it was cut and
/// where the full text is (`where_full`, e.g. the workflow run's address). What the cut
/// leaves open is closed before that line ([`closers`]), so the line is shown as text.
pub(crate) fn truncate_body(body: &str, limit: usize, where_full: &str) -> String {
    truncate_body_reserving(body, limit, 0, where_full)
}

/// [`truncate_body`] leaving `reserve` characters free for text added after the cut (the
/// release note's hash, [`seal_release`]); the note still names `limit`.
pub(crate) fn truncate_body_reserving(
    body: &str,
    limit: usize,
    reserve: usize,
    where_full: &str,
) -> String {
    let limit_left = limit.saturating_sub(reserve);
    if body.chars().count() <= limit_left {
        return body.to_string();
    }
    let note = format!(
        "\n\n---\n*This text was cut at {limit} characters, GitHub's limit here. The full text is in {where_full}.*\n"
    );
    let room = limit_left.saturating_sub(note.chars().count());
    let mut keep = room;
    loop {
        let mut cut: String = body.chars().take(keep).collect();
        let close = closers(&cut); // ASCII: its length in bytes is in characters
        if keep + close.len() <= room {
            cut.push_str(&close);
            cut.push_str(&note);
            return cut;
        }
        // Earlier by the closers' length: `keep` shrinks on each pass, so the loop ends.
        keep = room.saturating_sub(close.len());
    }
}

/// What closes the Markdown `text` leaves open at its end, for text appended after a cut to
/// be shown: ` -->` for an HTML comment (`<!--` without a later `-->`; `<!-->` and `<!--->`
/// are whole comments), or a closing fence on its own line for a fenced code block. Empty
/// when nothing is open. Inside a fenced code block `<!--` is text; inside a comment a fence
/// is. Rules: CommonMark 0.31.2, 4.5 (a fence is 3 or more `` ` `` or `~` indented by at most
/// 3 spaces, a backtick fence's info string has no backtick; it closes with at least as many
/// of its character and nothing after them) and 6.6 (comments); a `<!--` in a code span is
/// taken as a comment.
fn closers(text: &str) -> String {
    let mut fence: Option<&str> = None;
    let mut comment = false;
    for line in text.split('\n') {
        if let Some(open) = fence {
            let closes = fence_run(line)
                .is_some_and(|(run, rest)| run.starts_with(open) && rest.trim().is_empty());
            if closes {
                fence = None;
            }
            continue;
        }
        let opens = |(run, info): &(&str, &str)| !(run.starts_with('`') && info.contains('`'));
        if let Some((run, _)) = fence_run(line).filter(opens).filter(|_| !comment) {
            fence = Some(run);
            continue;
        }
        let mut rest = line;
        while let Some(at) = rest.find(if comment { "-->" } else { "<!--" }) {
            rest = &rest[at + if comment { 3 } else { 2 }..];
            comment = !comment;
        }
    }
    match fence {
        Some(open) if text.ends_with('\n') => open.to_string(),
        Some(open) => format!("\n{open}"),
        None if comment => " -->".to_string(),
        None => String::new(),
    }
}

/// A line's opening run of 3 or more `` ` `` or `~` after at most 3 spaces, and the rest of
/// the line; `None` when the line is no fence (CommonMark 0.31.2, 4.5).
fn fence_run(line: &str) -> Option<(&str, &str)> {
    let body = line.trim_start_matches(' ');
    let mark = body.chars().next().filter(|c| matches!(c, '`' | '~'))?;
    let rest = body.trim_start_matches(mark);
    let run = &body[..body.len() - rest.len()];
    (line.len() - body.len() <= 3 && run.len() >= 3).then_some((run, rest))
}

pub(crate) mod failure;
pub(crate) use failure::{Failure, HubFault, Known, Stage, error_words, failure_summary};

/// The `::error` annotation's title of a run that panicked ([`panicked`]).
pub(crate) const PANICKED_TITLE: &str = "codeq-rollout failed";

/// The error of a run that panicked: a bug, whose message the log shows before the report.
pub(crate) fn panicked() -> words::Words {
    words::Words::new(
        "codeq-rollout stopped on an internal error (a bug; its message is in the job log)",
    )
    .help("re-run the job; if it happens again, report it with the job log")
}

/// Where the full text of a cut body is: the workflow run's log (or, outside Actions, the
/// tool's output), for the note [`truncate_body`] appends; `announce` prints the full text
/// of each body it cuts there.
pub(crate) fn where_full(facts: &Facts) -> String {
    match &facts.run_url {
        Some(url) => format!("the workflow run's log ({url})"),
        None => "the output of codeq-rollout".to_string(),
    }
}

/// The release note's words for `risk` (`templates/pull_warning.md.j2`: Markdown, one list
/// item's text, names neutralised): new servers may start on an older image, why, and what
/// operators set.
pub(crate) fn pull_warning(risk: &PullRisk) -> String {
    let origin = match &risk.source {
        PolicySource::Values(origin) => Some(sanitize::markdown_inline(&origin.to_string(), 300)),
        PolicySource::KubernetesDefault => None,
    };
    let image = risk.image.as_ref().map_or_else(
        || "the single-user image".to_string(),
        |i| sanitize::markdown_inline(&messages::pod_image(i), 300),
    );
    let ctx = context! {
        policy => risk.policy, origin, image,
        never => risk.policy == PullPolicy::Never,
    };
    let words =
        templates::render("pull_warning.md.j2", ctx).expect("the built-in template renders");
    words.trim_end().to_string()
}

/// The idle culler settings in words, e.g. `timeout 1h, every 10m, max age none`.
fn culler_text(c: &CullSettings) -> String {
    if !c.enabled {
        return "disabled (`cull.enabled: false`)".into();
    }
    c.to_string()
}

/// The most labels of one pull request a body lists; the rest are counted.
pub(crate) const MAX_LABELS_SHOWN: usize = 20;
/// The most characters of a label name GitHub takes: a longer one is refused with 422
/// "name is too long (maximum is 50 characters)" (GitHub's label validation, REST "Create an
/// issue" with `labels`). The cap on one untrusted label in a body, and on a tracking label
/// (`crate::publish::check_tracking_labels`, before anything is published).
pub(crate) const LABEL_MAX_CHARS: usize = 50;

/// Renders `template` (built in) or `custom` with the facts' [`TemplateContext`], under
/// the hidden header ([`marker::hidden_header`]).
fn render(
    template: &str,
    facts: &Facts,
    kind: MarkerKind,
    custom: Option<&CustomTemplate>,
) -> Result<String> {
    let ctx = TemplateContext::new(facts)?;
    let body = match custom {
        Some(custom) => custom.render(&ctx)?,
        None => templates::render(template, &ctx)?,
    };
    Ok(marker::hidden_header(kind, facts) + &body)
}

/// What happened to one object on GitHub (publish stage); its words are the summary's
/// and the log's.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Change {
    /// This run created it.
    Created,
    /// This run updated it (a release body, or the bot's update comment).
    Updated,
    /// It existed and matched: no write.
    #[default]
    Unchanged,
}

/// Its serde name, as the summary's: `created`, `updated`, `unchanged`.
impl std::fmt::Display for Change {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        crate::support::text::serde_name(self, f)
    }
}

/// The job summary (`templates/job_summary.md.j2`): a table (image, digest, tier and how it
/// was decided, window, culler settings with their origins, links), then the release note.
/// The links are `known`'s release note and tracking issue, with what happened to each
/// (none in a dry run, which publishes nothing; the addresses checked by the report, empty
/// when refused), and `superseded`: older tracking issues that got a "superseded" comment.
///
/// # Errors
/// Only on a template error.
pub fn job_summary(
    facts: &Facts,
    tag: &str,
    known: &Known,
    superseded: &[u64],
    note: &str,
) -> Result<String> {
    let configured = Configured {
        settings: facts.culler,
        origins: facts.culler_origins.clone(),
        ..Default::default()
    };
    let settings: Vec<_> = configured
        .rows()
        .into_iter()
        .map(|r| context! { key => r.key, value => r.value, origin => r.origin.to_string() })
        .collect();
    let link = |(url, change): &(String, Change)| context! { url, change };
    let links = known.release.as_ref().map(|release| {
        context! {
            release => link(release),
            issue => known.issue.as_ref().map(link),
            superseded,
        }
    });
    let ctx = context! {
        image => facts.image,
        digest => facts.digest.to_string(),
        window => facts.window.summary(),
        settings, tag, links, note,
        ..minijinja::Value::from_serialize(context::TierView::of(&facts.tier))
    };
    templates::render("job_summary.md.j2", ctx)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(tier: Tier, culler: CullSettings) -> Facts {
        Facts::example(tier, culler)
    }

    /// Each body of the example release, by snapshot: the release note of each tier and
    /// culler (z2jh's defaults, a maximum age, culling disabled), the tracking issue and the
    /// bot's update comment, and each at the hub's size (100 servers).
    #[test]
    fn the_bodies_of_each_release() {
        type Body = fn(&Facts) -> Result<String>;
        let (note, issue): (Body, Body) = (|f| release_note(f, None), |f| tracking_issue(f, None));
        let max_age = CullSettings {
            max_age_secs: 8 * 3600,
            ..Default::default()
        };
        let disabled = CullSettings {
            enabled: false,
            ..Default::default()
        };
        let (routine, security) = (
            facts(Tier::Routine, CullSettings::default()),
            facts(Tier::Security, CullSettings::default()),
        );
        let cases: [(&str, Facts, Body); 8] = [
            ("routine_release_note", routine.clone(), note),
            (
                "security_release_note_with_max_age",
                facts(Tier::Security, max_age),
                note,
            ),
            (
                "release_note_with_culling_disabled",
                facts(Tier::Routine, disabled),
                note,
            ),
            ("security_tracking_issue", security.clone(), issue),
            ("tracking_update_comment", security.clone(), tracking_update),
            (
                "routine_release_note_at_the_hubs_scale",
                at_scale(routine, 100),
                note,
            ),
            (
                "security_release_note_with_max_age_at_the_hubs_scale",
                at_scale(facts(Tier::Security, max_age), 100),
                note,
            ),
            (
                "security_tracking_issue_at_the_hubs_scale",
                at_scale(security, 100),
                issue,
            ),
        ];
        for (name, facts, body) in cases {
            insta::assert_snapshot!(name, body(&facts).unwrap());
        }
    }

    /// The pull-policy preflight found that new servers may start on an older image: the
    /// note says so instead of promising the new image at once, in its opening and its list.
    #[test]
    fn release_note_when_new_servers_may_start_on_an_older_image() {
        use crate::window::{ImageConfig, Origin};
        let key = "jupyterhub.singleuser.image.pullPolicy";
        let values = ImageConfig {
            pull_policy: Some((
                PullPolicy::IfNotPresent,
                Origin::file("deploy/values.yaml", key),
            )),
            ..Default::default()
        };
        let announced = crate::digest::PodReference::split("ghcr.io/octo-org/lab:latest");
        let mut f = facts(Tier::Routine, CullSettings::default());
        f.pull = values.pull_risk(Some(&announced));
        assert!(f.pull.is_some());
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

    /// Every deadline the window states is written, the worst case's from the latest clock
    /// whose deadlines fit the calendar too, and the usual bound's rounds up as the worst
    /// case's does.
    #[test]
    fn deadlines_are_written_up_to_the_calendars_last_second_rounded_up() {
        use time::macros::datetime;
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
    fn runbook_values_stay_one_shell_word_even_unvalidated() {
        let settings = RunbookSettings {
            namespace: "a b; rm -rf /".into(),
            helm_release: "it's".into(),
            hub_url: "https://hub.example.org".into(),
            ..Default::default()
        };
        let runbook = runbook_section(&settings, "sha256:x", &[]).unwrap();
        assert!(
            runbook.contains(
                "  NS='a b; rm -rf /' RELEASE='it'\\''s' HUB_URL=https://hub.example.org\n"
            ),
            "{runbook}"
        );
        assert!(
            runbook.contains("  DIGEST=sha256:x PLATFORMS=''\n"),
            "{runbook}"
        );
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
            tracking_update(&f).unwrap(),
        ] {
            assert!(!body.contains("| Commit |"), "{body}");
            assert!(body.contains("| Tier | **security**"), "{body}");
        }
    }

    #[test]
    fn a_security_dry_run_summary_says_no_tracking_issue_was_opened() {
        let f = facts(Tier::Security, CullSettings::default());
        let summary = job_summary(&f, "lab-9f86d081884c", &Known::default(), &[], "note").unwrap();
        assert!(
            summary.contains("| Release `lab-9f86d081884c` | dry run: nothing published |\n| Tracking issue | dry run: nothing opened |\n"),
            "{summary}"
        );
        let f = facts(Tier::Routine, CullSettings::default());
        let summary = job_summary(&f, "lab-9f86d081884c", &Known::default(), &[], "note").unwrap();
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

    /// A cut inside an HTML comment or a fenced code block closes it before the note, within
    /// the limit; the hidden first line is kept. Each row: text before a long tail that the
    /// cut lands in, and what closes it.
    #[test]
    fn a_cut_closes_what_it_leaves_open_before_its_note() {
        let first = marker(
            MarkerKind::Release,
            &facts(Tier::Routine, max_age_before_timeout()).digest,
        );
        let limit = 400;
        let note = truncate_body(&"x".repeat(limit + 1), limit, "the run");
        let note = note.trim_start_matches('x');
        for (opening, closer) in [
            ("", ""),
            ("<!-- hidden\n", " -->"),
            ("a <!-- b --> c <!-- d\n", " -->"),
            ("<!-- a\n-->\n", ""),
            ("<!-->\n<!--->\n", ""),
            ("```rust\n", "\n```"),
            ("   ~~~~\n```\n~~~\n", "\n~~~~"),
            ("```\n````\n", ""),
            ("```\n``` no\n", "\n```"),
            ("    ```\n", ""),
            ("``` a`b\n", ""),
            ("```\n<!--\n", "\n```"),
            ("<!--\n```\n", " -->"),
        ] {
            let body = format!("{first}\n{opening}{}", "line é of text\n".repeat(40));
            let cut = truncate_body(&body, limit, "the run");
            let kept = cut.chars().count();
            assert!(
                kept <= limit && kept + 4 >= limit,
                "{opening:?}: {kept}: {cut}"
            );
            assert!(cut.starts_with(&format!("{first}\n{opening}")), "{cut}");
            let text = cut.strip_suffix(note).unwrap();
            assert!(text.ends_with(closer), "{opening:?}: {text:?}");
            assert_eq!(closers(text), "", "{opening:?}: {text:?}");
        }
    }
}
