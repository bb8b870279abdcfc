//! The release note: created once (the POST is the lock, see [`super`]), or its body
//! updated, and nothing else.

use super::once::{self, Made};
use super::{Change, Found, Plan, find};
use crate::render::{self, publish as words};
use crate::support::github::GitHub;
use crate::support::github::models::{NewRelease, Release, ReleasePatch};
use crate::tier::Tier;
use anyhow::{Context, Result};

/// Creates the release for `found`'s digest with `body` (already within GitHub's limit); a
/// line in `notes` when it was found after a POST whose outcome was unknown.
/// No listing follows a successful POST. After a refusal as `already_exists`, or a failure
/// whose outcome is unknown, the releases are listed again ([`once`]): found after a
/// refusal ([`Made::FoundAfterConflict`]), the release is not this run's but another run's,
/// made just now, or an earlier run's that the first listing lagged behind (ours for the
/// digest, the lowest id if several). A release's tag is unique: a second POST after a first
/// that took effect is refused, so [`Made::PostedAfterUnknownOutcome`] needs no re-read.
///
/// # Errors
/// A refused or failed POST (with the permission or input to fix), a failed look-up, or the
/// tag taken meanwhile by a release that is not ours.
pub(super) async fn create(
    gh: &GitHub,
    found: &Found,
    plan: &Plan,
    body: &str,
    notes: &mut Vec<String>,
) -> Result<(Release, Made)> {
    let target = &found.target;
    let new = NewRelease {
        body: body.to_string(),
        ..plan.release.clone()
    };
    once::create(
        words::Object::ReleaseNote,
        notes,
        async || gh.create_release(&new).await,
        async || {
            let releases = gh.list_releases().await?;
            find::check_tag(&releases, &target.digest, &target.tag)?;
            Ok(find::our_releases(&releases, &target.digest, &target.tag)
                .first()
                .map(|r| (*r).clone()))
        },
    )
    .await
}

/// Makes the existing release `ours` carry `body` (already within GitHub's limit and sealed
/// with its hash) and the title `name` ([`render::release_title`]: it names the tier, so a
/// re-run with another tier renames it): nothing when it does; else the body, the title or
/// both are replaced and nothing else is sent, so draft, pre-release and latest state stay
/// as they are. After a PATCH with an unknown outcome, the release is read again and patched
/// once more only if it still differs.
///
/// Never overwrites what a human wrote: the body is replaced only while it still hashes to
/// the value its hidden second line records ([`render::release_edited`]). A note edited since
/// (or one written before hashes were recorded, which cannot be told apart) is left as it
/// is, with a warning. The title is replaced only while it is one codeq-rollout wrote (the
/// title of either tier for this digest).
///
/// # Errors
/// A failed call.
pub(super) async fn update(
    gh: &GitHub,
    found: &Found,
    ours: &Release,
    body: &str,
    name: &str,
    notes: &mut Vec<String>,
    warnings: &mut Vec<String>,
) -> Result<(String, Change)> {
    let current = ours.body.as_deref().unwrap_or("");
    let body_same = current == body || render::same_release_text(current, body);
    let rename = ours.name.as_deref().is_some_and(|current| {
        current != name
            && [Tier::Routine, Tier::Security]
                .iter()
                .any(|tier| render::release_title(&found.target.digest, *tier) == current)
    });
    let edited = !body_same && render::release_edited(current) != Some(false);
    if edited {
        let hashed = render::release_edited(current).is_some();
        warnings.push(words::release_edited(
            &ours.tag_name,
            &ours.html_url,
            hashed,
        ));
    }
    let patch = ReleasePatch {
        body: (!body_same && !edited).then_some(body),
        name: rename.then_some(name),
    };
    if patch.body.is_none() && patch.name.is_none() {
        return Ok((ours.html_url.clone(), Change::Unchanged));
    }
    let updated = update_release(gh, found, ours, &patch).await?;
    let (body, title) = (patch.body.is_some(), patch.name.is_some());
    notes.push(words::release_updated(&ours.tag_name, body, title));
    Ok((updated, Change::Updated))
}

async fn update_release(
    gh: &GitHub,
    found: &Found,
    ours: &Release,
    patch: &ReleasePatch<'_>,
) -> Result<String> {
    let err = match gh.update_release(ours.id, patch).await {
        Ok(updated) => return Ok(updated.html_url),
        Err(err) if err.outcome_unknown() => err,
        Err(err) => return Err(err.into()),
    };
    let tag = &ours.tag_name;
    let again =
        (gh.list_releases().await).with_context(|| words::release_not_updated(tag, &err, true))?;
    let applied = |r: &Release| {
        patch.body.is_none_or(|b| r.body.as_deref() == Some(b))
            && patch.name.is_none_or(|n| r.name.as_deref() == Some(n))
    };
    match find::our_releases(&again, &found.target.digest, &found.target.tag).first() {
        Some(r) if applied(r) => Ok(r.html_url.clone()),
        _ => Ok((gh.update_release(ours.id, patch).await)
            .with_context(|| words::release_not_updated(tag, &err, false))?
            .html_url),
    }
}
