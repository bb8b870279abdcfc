//! The webhook event payload at `$GITHUB_EVENT_PATH`: the fields read, the limits GitHub
//! keeps to, and parsing it (pure: bytes in, struct out).
//!
//! Only the fields codeq-rollout reads are modelled; every field has a default
//! (`#[serde(default)]` on each struct) so that any event parses, and the event name
//! (`$GITHUB_EVENT_NAME`) says which fields matter.
//! Payload shapes: GitHub's "Webhook events and payloads" reference.

use serde::Deserialize;

use crate::support::github::models::PullRequest;
use crate::support::text::{Unreadable, unreadable};

/// The subset of an event payload that tier resolution reads.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default)]
pub struct EventPayload {
    /// `pull_request` events: what happened, e.g. `closed`, `opened`.
    pub(crate) action: Option<String>,
    /// `pull_request` events: the pull request, the same object the REST API returns.
    pub pull_request: Option<PullRequest>,
    /// `push` events: the full ref pushed, e.g. `refs/heads/main` or `refs/tags/v1`.
    #[serde(rename = "ref")]
    pub(crate) git_ref: Option<String>,
    /// `push` events: the pushed commit's SHA (all zeros when the push deleted the ref).
    pub(crate) after: Option<String>,
    /// `push` events: whether the push deleted the ref.
    pub(crate) deleted: bool,
    /// `push` events: the commits pushed, oldest first (GitHub lists at most 2048; the Events
    /// API's copy of a push lists at most 20).
    pub(crate) commits: Vec<PayloadCommit>,
    /// `push` events as the Events API gives them: how many commits the push carried, when
    /// `commits` may list fewer (absent from webhook payloads).
    pub(crate) size: Option<u64>,
    /// `push` events: the newest commit.
    pub(crate) head_commit: Option<PayloadCommit>,
    /// `workflow_run` events: the run that triggered this one.
    pub(crate) workflow_run: Option<PayloadHead>,
    /// `merge_group` events (merge queue): the group, and its temporary commit.
    pub(crate) merge_group: Option<PayloadHead>,
    /// Every repository event: the repository the event came from.
    pub(crate) repository: Option<PayloadRepository>,
}

/// A commit in a push payload.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default)]
pub(crate) struct PayloadCommit {
    /// The commit SHA (40 hex).
    pub(crate) id: String,
    /// The commit message (untrusted).
    pub(crate) message: String,
}

/// What a `workflow_run` or a `merge_group` payload is about: a workflow run, or a merge
/// queue's group, and the commit it built.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default)]
pub(crate) struct PayloadHead {
    /// The commit built (40 hex): the run's, or the group's temporary commit.
    pub(crate) head_sha: String,
    /// That commit, with its message.
    pub(crate) head_commit: Option<PayloadCommit>,
    /// `workflow_run`: the branch the run built, e.g. `main`.
    pub(crate) head_branch: Option<String>,
    /// `workflow_run`: the event that triggered the run, e.g. `push` or `schedule`.
    pub(crate) event: Option<String>,
    /// `merge_group`: the branch the group merges into, e.g. `refs/heads/main`.
    pub(crate) base_ref: Option<String>,
}

/// The repository an event came from.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default)]
pub(crate) struct PayloadRepository {
    /// `owner/repo`.
    pub(crate) full_name: String,
}

/// GitHub's cap on a webhook payload: 25 MB ("Webhook events and payloads", Payload cap).
/// A larger event file did not come from GitHub.
pub(crate) const MAX_PAYLOAD_BYTES: u64 = 25 * 1024 * 1024;
/// The most labels GitHub lets an issue or pull request carry: 100.
pub(crate) const MAX_LABELS: usize = 100;
/// The most commits a `push` payload lists: 2048 ("Webhook events and payloads", push).
pub(crate) const MAX_COMMITS: usize = 2048;

/// An event payload that is not one GitHub sends, as data: what is wrong, and where. Its
/// words are the render layer's (`Display`, `crate::render::help`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventError {
    /// The payload is not a JSON object (an array, a string, nothing).
    NotAnObject,
    /// Malformed JSON (cut off, text after the object) or a key twice at the top level:
    /// serde_json's words, with the line and column.
    Invalid(String),
    /// A field that is missing or holds another type or value than GitHub writes there.
    Shape(Unreadable),
    /// More labels on the pull request than GitHub allows ([`MAX_LABELS`]).
    TooManyLabels {
        /// The labels listed.
        count: usize,
    },
    /// More commits than a `push` payload lists ([`MAX_COMMITS`]).
    TooManyCommits {
        /// The commits listed.
        count: usize,
    },
    /// A `pull_request` or `pull_request_target` event without its pull request.
    NoPullRequest {
        /// The event's name (`$GITHUB_EVENT_NAME`).
        event_name: String,
    },
}

impl std::error::Error for EventError {}

/// Parses a payload and checks it against GitHub's own limits (`MAX_LABELS`,
/// `MAX_COMMITS`).
///
/// # Errors
/// Malformed JSON (with the line and column), a field of another type or a missing required
/// field (naming the field's path, e.g. `pull_request.labels[0].name`), or more labels or
/// commits than GitHub ever sends.
pub fn parse(bytes: &[u8]) -> Result<EventPayload, EventError> {
    // serde would also read a struct from a JSON array: an event is an object.
    if bytes.trim_ascii_start().first() != Some(&b'{') {
        return Err(EventError::NotAnObject);
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let payload: EventPayload =
        serde_path_to_error::deserialize(&mut de).map_err(|e| match e.inner().classify() {
            // At the top level (an object: see above), only a key given twice.
            serde_json::error::Category::Data if e.path().iter().next().is_some() => {
                EventError::Shape(unreadable(&e))
            }
            _ => EventError::Invalid(e.into_inner().to_string()),
        })?;
    de.end().map_err(|e| EventError::Invalid(e.to_string()))?;
    let labels = (payload.pull_request.as_ref()).map_or(0, |pr| pr.labels.len());
    match payload.commits.len() {
        _ if labels > MAX_LABELS => Err(EventError::TooManyLabels { count: labels }),
        count if count > MAX_COMMITS => Err(EventError::TooManyCommits { count }),
        _ => Ok(payload),
    }
}

impl EventPayload {
    /// Checks that the payload carries what event `event_name` (`$GITHUB_EVENT_NAME`) always
    /// carries: for `pull_request` and `pull_request_target`, the pull request.
    ///
    /// # Errors
    /// A `pull_request` event without its pull request, naming the event.
    pub fn check_event(&self, event_name: &str) -> Result<(), EventError> {
        if matches!(event_name, "pull_request" | "pull_request_target")
            && self.pull_request.is_none()
        {
            return Err(EventError::NoPullRequest {
                event_name: event_name.to_string(),
            });
        }
        Ok(())
    }

    /// The branch a `push` went to: `main` for `refs/heads/main`; `None` for a tag or a
    /// payload without `ref`.
    pub(crate) fn pushed_branch(&self) -> Option<&str> {
        self.git_ref.as_deref()?.strip_prefix("refs/heads/")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_push_payload_gives_its_branch_commits_and_message() {
        let p = parse(
            br#"{"ref": "refs/heads/main", "after": "abc", "deleted": false,
                 "commits": [{"id": "abc", "message": "Fix (#12)", "tree_id": "t"}],
                 "head_commit": {"id": "abc", "message": "Fix (#12)"}}"#,
        )
        .unwrap();
        assert_eq!(p.pushed_branch(), Some("main"));
        assert_eq!(p.commits[0].message, "Fix (#12)");
        assert_eq!(p.head_commit.unwrap().id, "abc");
    }

    #[test]
    fn a_merge_group_payload_gives_its_commit_and_base() {
        let p = parse(
            br#"{"action": "checks_requested", "repository": {"full_name": "org/lab"},
                 "merge_group": {"head_sha": "abc", "base_ref": "refs/heads/main",
                 "head_ref": "refs/heads/gh-readonly-queue/main/pr-2-def",
                 "head_commit": {"id": "abc", "message": "Fix (#2)"}}}"#,
        )
        .unwrap();
        let group = p.merge_group.unwrap();
        assert_eq!(
            (group.head_sha.as_str(), group.base_ref.as_deref()),
            ("abc", Some("refs/heads/main"))
        );
        assert_eq!(group.head_commit.unwrap().message, "Fix (#2)");
        assert_eq!(p.repository.unwrap().full_name, "org/lab");
    }

    #[test]
    fn a_tag_push_has_no_branch() {
        let p = parse(br#"{"ref": "refs/tags/v1"}"#).unwrap();
        assert_eq!(p.pushed_branch(), None);
    }

    #[test]
    fn a_workflow_run_payload_gives_its_commit_branch_and_event() {
        let p = parse(
            br#"{"workflow_run": {"head_sha": "abc", "head_branch": "main", "event": "push",
                 "head_commit": {"id": "abc", "message": "Fix (#3)"}, "pull_requests": []}}"#,
        )
        .unwrap();
        let run = p.workflow_run.unwrap();
        assert_eq!(
            (run.head_branch.as_deref(), run.event.as_deref()),
            (Some("main"), Some("push"))
        );
        assert_eq!(run.head_commit.unwrap().message, "Fix (#3)");
    }

    #[test]
    fn errors_name_the_field_and_not_serde_s_words() {
        let shape = |field: &str, missing| {
            Err(EventError::Shape(Unreadable {
                field: field.into(),
                missing,
            }))
        };
        let cases: [(&[u8], _); 5] = [
            (
                br#"{"pull_request": {"number": 1, "labels": [{"name": 5}]}}"#,
                shape("pull_request.labels[0].name", false),
            ),
            (
                br#"{"pull_request": {"title": "x"}}"#,
                shape("pull_request.number", true),
            ),
            (
                br#"{"after": "a", "after": "b"}"#,
                Err(EventError::Invalid(
                    "duplicate field `after` at line 1 column 22".into(),
                )),
            ),
            (
                b"{ truncated",
                Err(EventError::Invalid(
                    "key must be a string at line 1 column 3".into(),
                )),
            ),
            (
                b"{} x",
                Err(EventError::Invalid(
                    "trailing characters at line 1 column 4".into(),
                )),
            ),
        ];
        for (payload, expected) in cases {
            assert_eq!(parse(payload), expected);
        }
    }

    #[test]
    fn more_labels_than_github_allows_are_refused() {
        let labels: Vec<_> = (0..=MAX_LABELS)
            .map(|i| serde_json::json!({ "name": format!("l{i}") }))
            .collect();
        let payload = serde_json::json!({ "pull_request": { "number": 1, "labels": labels } });
        let err = parse(payload.to_string().as_bytes()).unwrap_err();
        assert!(err.to_string().contains("at most 100"), "{err}");
    }

    #[test]
    fn a_pull_request_event_needs_its_pull_request() {
        let payload = parse(b"{}").unwrap();
        assert!(payload.check_event("push").is_ok());
        let err = payload.check_event("pull_request").unwrap_err();
        assert!(err.to_string().contains("no pull_request object"), "{err}");
    }
}
