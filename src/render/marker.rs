//! The marker protocol: the hidden lines that open every body codeq-rollout writes, by which a
//! later run finds its release note, tracking issue and comments again and tells what changed.
//!
//! The first line is the marker, `<!-- codeq-rollout:KIND digest=sha256:<64 hex> -->` (a
//! tracking issue's also names the image repository); the second records the release note's
//! announce time, the settings its convergence window was computed from (`promise=`) and the
//! hash of its text as sent (`announced-at`), or the fingerprint of
//! the facts a tracking issue or the bot's update comment states (`evidence`). Both lines are
//! added after rendering ([`hidden_header`]), so no template can drop or forge them, and they
//! are trusted only in that place: a marker copied into a body's text (say, from a pull
//! request's title) is ignored.

use super::Facts;
use crate::digest::{Digest, PodReference};
use crate::support::time::{parse_rfc3339, rfc3339_seconds};
use crate::window::{
    CullSettings, HubScale, MAX_DURATION_SECS, MAX_HUB_SERVERS, Promise, PromiseRecord,
};
use percent_encoding::{AsciiSet, CONTROLS, percent_decode_str, utf8_percent_encode};
use serde::Serialize;
use time::OffsetDateTime;

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
    /// Its name in the marker line, e.g. `tracking-issue`, `update`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            MarkerKind::Release => "release",
            MarkerKind::TrackingIssue => "tracking-issue",
            MarkerKind::UpdateComment => "update",
            MarkerKind::SupersededComment => "superseded",
            MarkerKind::ConvergenceComment => "convergence",
        }
    }
}

/// The hidden second line of a release note: `<!-- codeq-rollout:announced-at RFC3339
/// promise=… -->`, the time its convergence deadlines count from and the settings they were
/// computed from ([`promise_field`]). A re-run renders with the same time, so an unchanged
/// release renders byte for byte the same and nothing is written. As sent, it also records a
/// hash of the body (`… body=<16 hex> -->`, see [`seal_release`]).
const ANNOUNCED_AT: &str = "announced-at";
/// The field of the release note's second line recording the settings its window was
/// computed from ([`promise_field`]).
const PROMISE: &str = " promise=";
/// The version of the promise field's shape: `v1:` opens it. A later shape gets `v2:`, which
/// this version refuses (taken as no record) rather than misreads.
const PROMISE_VERSION: &str = "v1:";
/// The longest promise field taken, in bytes (the longest `v1` field is about 110).
const PROMISE_MAX_BYTES: usize = 160;
/// The longest number the promise field takes, in digits (10 years of seconds has 9).
const PROMISE_NUMBER_MAX_DIGITS: usize = 10;
/// The field of the release note's second line recording the hash of the body as sent.
const BODY_HASH: &str = " body=";
/// The hidden second line of a tracking issue and of the bot's update comment:
/// `<!-- codeq-rollout:evidence <16 hex> -->`, a fingerprint of the facts the body states
/// (see [`evidence_fingerprint`]).
const EVIDENCE: &str = "evidence";
/// The characters a tracking marker's image repository has percent-encoded: `%` itself,
/// those that would end the field (a space) or the comment (`>`), and (as `percent-encoding`
/// always does) control characters and non-ASCII ones.
const IMAGE_ESCAPES: &AsciiSet = &CONTROLS.add(b'%').add(b' ').add(b'>');

/// `<!-- codeq-rollout:NAME VALUE -->`.
fn hidden_line(name: &str, value: &str) -> String {
    format!("<!-- codeq-rollout:{name} {value} -->")
}

/// The value of `line` when it is the hidden line `name` ([`hidden_line`]).
fn hidden_value<'a>(line: &'a str, name: &str) -> Option<&'a str> {
    line.trim_end()
        .strip_prefix("<!-- codeq-rollout:")?
        .strip_prefix(name)?
        .strip_prefix(' ')?
        .strip_suffix(" -->")
}

/// The hidden marker line for `kind` and `digest`.
pub fn marker(kind: MarkerKind, digest: &Digest) -> String {
    hidden_line(kind.name(), &format!("digest={digest}"))
}

/// The tracking issue's marker line: [`marker`] plus `image=<repository>`, the image
/// repository announced ([`image_repository`]; spaces, `>` and `%` percent-encoded), so that
/// a new release supersedes only tracking issues of the same image.
pub(crate) fn tracking_marker(digest: &Digest, image: &str) -> String {
    let image = utf8_percent_encode(image, IMAGE_ESCAPES);
    format!(
        "{} image={image} -->",
        marker(MarkerKind::TrackingIssue, digest).trim_end_matches(" -->")
    )
}

/// The image repository of an image reference as the tool displays it: the reference without
/// its `@digest` and its `:tag` (a `:` after the last `/`), e.g. `ghcr.io/org/lab` for
/// `ghcr.io/org/lab:latest` and `oci:build/lab` for `oci:build/lab:latest`: the name of
/// `PodReference::split`, the one splitter of references.
pub fn image_repository(image: &str) -> String {
    PodReference::split(image).name
}

/// The digest named by `body`'s marker of `kind`, and for a tracking issue the image field
/// as written, if the body's **first line** is exactly such a marker.
fn first_line(kind: MarkerKind, body: &str) -> Option<(Digest, Option<&str>)> {
    let value = hidden_value(body.lines().next()?, kind.name())?.strip_prefix("digest=")?;
    let (digest, image) = match (kind, value.split_once(" image=")) {
        (MarkerKind::TrackingIssue, Some((digest, image))) => (digest, Some(image)),
        _ => (value, None),
    };
    Some((Digest::parse(digest).ok()?, image))
}

/// The digest named by `body`'s marker of `kind`, if the body's **first line** is exactly
/// such a marker. Markers elsewhere in a body (say, copied from a PR title) are ignored:
/// only the place the tool writes them is trusted.
pub(crate) fn marker_digest(kind: MarkerKind, body: &str) -> Option<Digest> {
    first_line(kind, body).map(|(digest, _)| digest)
}

/// The image repository a tracking issue's marker names (see [`tracking_marker`]), if its
/// first line is our marker and it names one (markers written before 0.x name none).
pub(crate) fn marker_image(body: &str) -> Option<String> {
    let (_, image) = first_line(MarkerKind::TrackingIssue, body)?;
    Some(percent_decode_str(image?).decode_utf8_lossy().into_owned())
}

/// The value of the hidden second line `name` of `body`, trusted only when the first line
/// is a marker of `kind`.
fn second_line<'a>(kind: MarkerKind, body: &'a str, name: &str) -> Option<&'a str> {
    first_line(kind, body)?;
    hidden_value(body.lines().nth(1)?, name)
}

/// A release note's second line as written: `AT[ promise=…][ body=HASH]`.
struct Announced<'a> {
    /// The announce time, as written.
    at: &'a str,
    /// The promise field's value, as written, if any.
    promise: Option<&'a str>,
    /// The body hash, if any.
    hash: Option<&'a str>,
}

/// A release note's second line, if the note is ours ([`Announced`]).
fn announced(body: &str) -> Option<Announced<'_>> {
    let value = second_line(MarkerKind::Release, body, ANNOUNCED_AT)?;
    let (rest, hash) = match value.split_once(BODY_HASH) {
        Some((rest, hash)) => (rest, Some(hash)),
        None => (value, None),
    };
    let (at, promise) = match rest.split_once(PROMISE) {
        Some((at, promise)) => (at, Some(promise)),
        None => (rest, None),
    };
    Some(Announced { at, promise, hash })
}

/// The promise field for `promise`:
/// `v1:enabled=on,timeout=S,every=S,max-age=S[,hub-size=N,slow-stop=S]`, durations in whole
/// seconds (z2jh `cull.enabled`, `cull.timeout`, `cull.every`, `cull.maxAge`), then, when the
/// note stated the worst case for the hub's size, that size and the hub's slow-stop timeout.
pub(crate) fn promise_field(promise: &Promise) -> String {
    let c = &promise.culler;
    let enabled = if c.enabled { "on" } else { "off" };
    let mut field = format!(
        "{PROMISE_VERSION}enabled={enabled},timeout={},every={},max-age={}",
        c.timeout_secs, c.every_secs, c.max_age_secs
    );
    if let Some(scale) = promise.scale {
        let (n, slow) = (scale.servers, scale.slow_stop_timeout_secs);
        field.push_str(&format!(",hub-size={n},slow-stop={slow}"));
    }
    field
}

/// A whole number of the promise field: ASCII digits, no sign, no leading zero, at most
/// [`PROMISE_NUMBER_MAX_DIGITS`].
fn promise_number(text: &str) -> Option<u64> {
    let plain = !text.is_empty()
        && text.len() <= PROMISE_NUMBER_MAX_DIGITS
        && text.bytes().all(|b| b.is_ascii_digit())
        && (text == "0" || !text.starts_with('0'));
    plain.then(|| text.parse().ok()).flatten()
}

/// The promise a field of [`promise_field`]'s shape records; `None` for anything else: too
/// long, another version, a key missing, out of order or repeated, a value that is not a
/// plain number, or settings `announce` refuses (a duration over [`MAX_DURATION_SECS`];
/// with culling on, a timeout or interval of 0; a hub size outside 1 to [`MAX_HUB_SERVERS`]
/// or a slow-stop timeout of 0; a hub size with culling off, where no worst case is stated).
fn parse_promise(field: &str) -> Option<Promise> {
    if field.len() > PROMISE_MAX_BYTES {
        return None;
    }
    let keys = [
        "enabled",
        "timeout",
        "every",
        "max-age",
        "hub-size",
        "slow-stop",
    ];
    let items: Vec<&str> = field.strip_prefix(PROMISE_VERSION)?.split(',').collect();
    if items.len() != 4 && items.len() != 6 {
        return None;
    }
    let values = (items.iter().zip(keys))
        .map(|(item, key)| item.strip_prefix(key)?.strip_prefix('='))
        .collect::<Option<Vec<&str>>>()?;
    let enabled = match values[0] {
        "on" => true,
        "off" => false,
        _ => return None,
    };
    let duration = |value| promise_number(value).filter(|s| *s <= MAX_DURATION_SECS);
    let culler = CullSettings {
        enabled,
        timeout_secs: duration(values[1])?,
        every_secs: duration(values[2])?,
        max_age_secs: duration(values[3])?,
    };
    let scale = match values[..] {
        [_, _, _, _, servers, slow_stop] => Some(HubScale {
            servers: promise_number(servers).filter(|n| (1..=MAX_HUB_SERVERS).contains(n))?,
            slow_stop_timeout_secs: duration(slow_stop).filter(|s| *s > 0)?,
        }),
        _ => None,
    };
    let sound = !enabled || (culler.timeout_secs > 0 && culler.every_secs > 0);
    (sound && (enabled || scale.is_none())).then_some(Promise { culler, scale })
}

/// The first 16 hex digits of the SHA-256 of `bytes`: the hashes the hidden lines record.
fn hash16(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    hex::encode(sha2::Sha256::digest(bytes))[..16].to_string()
}

/// The hash of a release note as [`seal_release`] records it: [`hash16`] of its lines but
/// the second (the hidden header holding the hash), joined by `\n` (so line endings and a
/// final newline do not count).
fn body_hash(body: &str) -> String {
    let lines: Vec<&str> = body
        .lines()
        .enumerate()
        .filter(|(i, _)| *i != 1)
        .map(|(_, l)| l)
        .collect();
    hash16(lines.join("\n").as_bytes())
}

/// `body` (a release note) with the hash of its text recorded on its hidden second line,
/// replacing any hash recorded there already; unchanged when the second line is not the
/// announced-at line. Sent as the release body, so a later run can tell whether a human
/// edited the note since (`release_edited`).
pub fn seal_release(body: &str) -> String {
    let Some(Announced { at, promise, .. }) = announced(body) else {
        return body.to_string();
    };
    let promise = promise.map(|p| format!("{PROMISE}{p}")).unwrap_or_default();
    let hash = body_hash(body);
    let second = hidden_line(ANNOUNCED_AT, &format!("{at}{promise}{BODY_HASH}{hash}"));
    let mut lines: Vec<&str> = body.lines().collect();
    lines[1] = &second;
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
    Some(announced(body)?.hash? != body_hash(body))
}

/// The announce time recorded in a release note written by codeq-rollout, if any, in UTC
/// ([`parse_rfc3339`]: a time outside the years 0000 to 9999 in UTC, as an edited note may
/// hold, counts as none).
pub(crate) fn announced_at(body: &str) -> Option<OffsetDateTime> {
    parse_rfc3339(announced(body)?.at).ok()
}

/// What a release note written by codeq-rollout records of the settings its convergence
/// window was computed from ([`promise_field`]); `None` when the body is not such a note.
/// Strict ([`parse_promise`]): a record edited into anything but its shape is refused.
pub(crate) fn recorded_promise(body: &str) -> Option<PromiseRecord> {
    Some(match announced(body)?.promise {
        None => PromiseRecord::Absent,
        Some(field) => parse_promise(field).map_or(PromiseRecord::Refused, PromiseRecord::Recorded),
    })
}

/// The evidence fingerprint recorded in a body of `kind` (a tracking issue or the bot's
/// update comment), if any.
pub(crate) fn recorded_evidence(kind: MarkerKind, body: &str) -> Option<&str> {
    second_line(kind, body, EVIDENCE)
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

/// A fingerprint of the facts `facts` gives a tracking issue: [`hash16`] of their JSON.
/// Equal fingerprints mean a re-run has nothing new to say.
pub(crate) fn evidence_fingerprint(facts: &Facts) -> String {
    let evidence = Evidence {
        image: &facts.image,
        tier: facts.tier.tier().to_string(),
        source: facts.tier.source().to_string(),
        reason: facts.tier.reason.to_string(),
        pull_requests: &facts.tier.pull_requests,
        sha: &facts.sha,
        culler: &facts.culler,
        scale: facts.window.worst.map(|w| w.scale),
    };
    hash16(&serde_json::to_vec(&evidence).expect("plain data serialises"))
}

/// The hidden lines that open a body of `kind`: its marker, then the announce time
/// (release note) or the evidence fingerprint (tracking issue, update comment). Added by
/// the tool after rendering, so no template can drop or forge them.
pub(super) fn hidden_header(kind: MarkerKind, facts: &Facts) -> String {
    let first = match kind {
        MarkerKind::TrackingIssue => {
            tracking_marker(&facts.digest, &image_repository(&facts.image))
        }
        _ => marker(kind, &facts.digest),
    };
    let second = match kind {
        MarkerKind::Release => {
            let promise = Promise {
                culler: facts.culler,
                scale: facts.window.worst.map(|w| w.scale),
            };
            let (at, field) = (rfc3339_seconds(facts.now), promise_field(&promise));
            hidden_line(ANNOUNCED_AT, &format!("{at}{PROMISE}{field}"))
        }
        _ => hidden_line(EVIDENCE, &evidence_fingerprint(facts)),
    };
    format!("{first}\n{second}\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::{release_note, tracking_issue, tracking_update};
    use crate::tier::Tier;

    fn facts(tier: Tier) -> Facts {
        Facts::example(tier, CullSettings::default())
    }

    #[test]
    fn markers_are_trusted_only_on_the_first_line() {
        let f = facts(Tier::Security);
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
        let f = facts(Tier::Security);
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
        let issue = tracking_issue(&f, None).unwrap();
        let fingerprint = evidence_fingerprint(&f);
        assert_eq!(fingerprint.len(), 16);
        assert_eq!(
            recorded_evidence(MarkerKind::TrackingIssue, &issue),
            Some(fingerprint.as_str())
        );
        let update = tracking_update(&f).unwrap();
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
        let f = facts(Tier::Security);
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
    fn the_tracking_marker_names_the_image_repository_and_old_markers_still_parse() {
        for (image, repository) in [
            ("ghcr.io/org/lab:latest", "ghcr.io/org/lab"),
            ("localhost:5000/lab@sha256:ab", "localhost:5000/lab"),
            ("localhost:5000/lab", "localhost:5000/lab"),
            ("oci:build/lab:latest", "oci:build/lab"),
        ] {
            assert_eq!(image_repository(image), repository);
        }
        let d = facts(Tier::Security).digest;
        let new = tracking_marker(&d, "oci:/tmp/a%20b >/lab");
        assert_eq!(
            new,
            format!(
                "<!-- codeq-rollout:tracking-issue digest={d} image=oci:/tmp/a%2520b%20%3E/lab -->"
            )
        );
        assert_eq!(
            marker_digest(MarkerKind::TrackingIssue, &new),
            Some(d.clone())
        );
        assert_eq!(marker_image(&new).as_deref(), Some("oci:/tmp/a%20b >/lab"));
        let old = marker(MarkerKind::TrackingIssue, &d);
        assert_eq!(marker_digest(MarkerKind::TrackingIssue, &old), Some(d));
        assert_eq!(marker_image(&old), None);
    }

    /// The release note's second line, as `announce` sends it.
    fn second_line_of(note: &str) -> &str {
        note.lines().nth(1).unwrap()
    }

    #[test]
    fn the_release_note_records_the_settings_its_window_was_computed_from() {
        let f = facts(Tier::Routine);
        let sealed = seal_release(&release_note(&f, None).unwrap());
        let (at, hash) = (rfc3339_seconds(f.now), body_hash(&sealed));
        assert_eq!(
            second_line_of(&sealed),
            format!(
                "<!-- codeq-rollout:announced-at {at} promise=v1:enabled=on,timeout=3600,every=600,max-age=0 body={hash} -->"
            )
        );
        let promise = Promise {
            culler: f.culler,
            scale: None,
        };
        assert_eq!(
            recorded_promise(&sealed),
            Some(PromiseRecord::Recorded(promise))
        );
        assert_eq!(announced_at(&sealed), Some(f.now));
        assert_eq!(release_edited(&sealed), Some(false));
        // With the worst case for the hub's size stated: its scale too.
        let mut at_scale = f.clone();
        let scale = HubScale {
            servers: 300,
            slow_stop_timeout_secs: 10,
        };
        at_scale.window.worst = Some(crate::window::at_scale(&f.culler, &scale));
        let note = release_note(&at_scale, None).unwrap();
        assert!(
            second_line_of(&note).ends_with(",hub-size=300,slow-stop=10 -->"),
            "{note}"
        );
        let promise = Promise {
            scale: Some(scale),
            ..promise
        };
        assert_eq!(
            recorded_promise(&seal_release(&note)),
            Some(PromiseRecord::Recorded(promise))
        );
        // Not a release note: no record to speak of.
        assert_eq!(recorded_promise(&tracking_issue(&f, None).unwrap()), None);
    }

    #[test]
    fn a_rerun_keeps_the_note_byte_for_byte_and_other_settings_restate_the_promise() {
        let f = facts(Tier::Routine);
        let sealed = seal_release(&release_note(&f, None).unwrap());
        // The same release again, at another clock but the recorded announce time.
        let mut again = f.clone();
        again.run_url =
            Some("https://github.com/octo-org/lab-image/actions/runs/9/attempts/2".into());
        assert_eq!(seal_release(&release_note(&again, None).unwrap()), sealed);
        // A note written before the record says the same: not sent again only to add it.
        let older = sealed.replacen(
            " promise=v1:enabled=on,timeout=3600,every=600,max-age=0",
            "",
            1,
        );
        assert!(same_release_text(&older, &sealed));
        // Other settings change the window's text, so the note is sent again, with the new
        // promise recorded.
        let fast = CullSettings {
            timeout_secs: 60,
            every_secs: 60,
            ..f.culler
        };
        let mut other = Facts::example(Tier::Routine, fast);
        other.now = f.now;
        let restated = seal_release(&release_note(&other, None).unwrap());
        assert!(!same_release_text(&restated, &sealed));
        assert_matches::assert_matches!(
            recorded_promise(&restated),
            Some(PromiseRecord::Recorded(Promise { culler, .. })) if culler == fast
        );
    }

    #[test]
    fn a_note_written_before_the_record_or_with_a_record_edited_out_of_shape_has_none() {
        let f = facts(Tier::Routine);
        let sealed = seal_release(&release_note(&f, None).unwrap());
        let field = promise_field(&Promise {
            culler: f.culler,
            scale: None,
        });
        let with = |replacement: &str| sealed.replacen(&field, replacement, 1);
        // An older note: `announced-at AT body=HASH`.
        let older = sealed.replacen(&format!("{PROMISE}{field}"), "", 1);
        assert_eq!(recorded_promise(&older), Some(PromiseRecord::Absent));
        assert_eq!(announced_at(&older), Some(f.now));
        assert_eq!(release_edited(&older), Some(false));
        let long = format!(
            "v1:enabled=on,timeout=3600,every=600,max-age=0{}",
            " ".repeat(200)
        );
        for refused in [
            "",
            "v1:",
            "v2:enabled=on,timeout=3600,every=600,max-age=0",
            "V1:enabled=on,timeout=3600,every=600,max-age=0",
            "v1:enabled=yes,timeout=3600,every=600,max-age=0",
            "v1:enabled=on,timeout=3600,every=600",
            "v1:enabled=on,every=600,timeout=3600,max-age=0",
            "v1:enabled=on,timeout=3600,timeout=3600,every=600,max-age=0",
            "v1:enabled=on,timeout=3600,every=600,max-age=0,",
            "v1:enabled=on,timeout=3600,every=600,max-age=0,hub-size=300",
            "v1:enabled=on,timeout=3600,every=600,max-age=0,hub-size=300,slow-stop=10,x=1",
            "v1:enabled=on,timeout=+3600,every=600,max-age=0",
            "v1:enabled=on,timeout=03600,every=600,max-age=0",
            "v1:enabled=on,timeout=3600s,every=600,max-age=0",
            "v1:enabled=on,timeout=1h,every=600,max-age=0",
            "v1:enabled=on,timeout=99999999999999999999,every=600,max-age=0",
            "v1:enabled=on,timeout=315360001,every=600,max-age=0",
            "v1:enabled=on,timeout=0,every=600,max-age=0",
            "v1:enabled=on,timeout=3600,every=0,max-age=0",
            "v1:enabled=on,timeout=3600,every=600,max-age=0,hub-size=0,slow-stop=10",
            "v1:enabled=on,timeout=3600,every=600,max-age=0,hub-size=1000001,slow-stop=10",
            "v1:enabled=on,timeout=3600,every=600,max-age=0,hub-size=300,slow-stop=0",
            "v1:enabled=off,timeout=3600,every=600,max-age=0,hub-size=300,slow-stop=10",
            "v1:enabled=on, timeout=3600,every=600,max-age=0",
            "v1:enabled=on,timeout=٣٦٠٠,every=600,max-age=0",
            &long,
        ] {
            let edited = with(refused);
            assert_eq!(
                recorded_promise(&edited),
                Some(PromiseRecord::Refused),
                "{refused:?}"
            );
            // The announce time still counts; the edit is seen only as far as the body
            // hash sees it (the second line is not hashed).
            assert_eq!(announced_at(&edited), Some(f.now), "{refused:?}");
        }
        // Culling off records its settings as given, even zeros (nothing is then due).
        let off = with("v1:enabled=off,timeout=0,every=0,max-age=0");
        assert_matches::assert_matches!(
            recorded_promise(&off),
            Some(PromiseRecord::Recorded(Promise {
                culler: CullSettings { enabled: false, .. },
                scale: None
            }))
        );
    }

    proptest::proptest! {
        /// Any promise `announce` can state reads back as itself, and sealing keeps it.
        #[test]
        fn every_promise_round_trips(
            enabled: bool,
            timeout in 1..=MAX_DURATION_SECS,
            every in 1..=MAX_DURATION_SECS,
            max_age in 0..=MAX_DURATION_SECS,
            scale in proptest::option::of((1..=MAX_HUB_SERVERS, 1..=MAX_DURATION_SECS)),
        ) {
            let culler = CullSettings { enabled, timeout_secs: timeout, every_secs: every, max_age_secs: max_age };
            let scale = scale.filter(|_| enabled).map(|(servers, slow)| HubScale { servers, slow_stop_timeout_secs: slow });
            let promise = Promise { culler, scale };
            let field = promise_field(&promise);
            proptest::prop_assert!(field.len() <= PROMISE_MAX_BYTES);
            proptest::prop_assert_eq!(parse_promise(&field), Some(promise));
        }

        /// Whatever a human writes in the field, reading it never panics, and what it
        /// accepts is what it would write.
        #[test]
        fn any_field_text_is_refused_or_read_exactly(field in "\\PC{0,200}", tail in "(v1:enabled=(on|off),timeout=[0-9]{1,11},every=[0-9]{1,11},max-age=[0-9]{1,11}(,hub-size=[0-9]{1,8},slow-stop=[0-9]{1,4})?)?") {
            for text in [field.as_str(), tail.as_str()] {
                if let Some(promise) = parse_promise(text) {
                    proptest::prop_assert_eq!(promise_field(&promise), text);
                }
            }
        }
    }

    #[test]
    fn a_sealed_release_note_tells_a_human_edit_from_its_own_text() {
        let f = facts(Tier::Routine);
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
