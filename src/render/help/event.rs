//! The words of [`EventError`]: what is wrong with the event payload, and where; for a
//! payload without the object its event always carries, where it came from.

use crate::event::EventError;
use crate::event::MAX_COMMITS;
use crate::event::MAX_LABELS;
use std::fmt;

impl fmt::Display for EventError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const WHAT: &str = "the event payload is not a valid GitHub event";
        match self {
            EventError::NotAnObject => write!(f, "{WHAT}: it is not a JSON object"),
            EventError::Invalid { field: None, cause } => write!(f, "{WHAT}: {cause}"),
            EventError::Invalid {
                field: Some(field),
                cause,
            } => write!(f, "{WHAT}: field {field}: {cause}"),
            EventError::TooManyLabels { count } => write!(
                f,
                "{WHAT}: pull_request.labels has {count} entries, and GitHub allows at most {MAX_LABELS}"
            ),
            EventError::TooManyCommits { count } => write!(
                f,
                "{WHAT}: commits has {count} entries, and GitHub sends at most {MAX_COMMITS}"
            ),
            EventError::NoPullRequest { event_name } => write!(
                f,
                "the {event_name} event payload has no pull_request object: it is not a payload GitHub sends for this event ({})",
                help(self).unwrap_or_default()
            ),
        }
    }
}

/// What to do, chosen by variant: only a payload that lacks what its event always carries
/// points somewhere (the file the runner named); `None` when the message is all there is.
fn help(e: &EventError) -> Option<&'static str> {
    match e {
        EventError::NoPullRequest { .. } => Some("check GITHUB_EVENT_PATH"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_event_error_in_words() {
        let lines: Vec<String> = [
            EventError::NotAnObject,
            EventError::Invalid {
                field: Some("pull_request.number".into()),
                cause: "invalid type: string \"7\", expected u64 at line 1 column 30".into(),
            },
            EventError::Invalid {
                field: None,
                cause: "EOF while parsing an object at line 1 column 11".into(),
            },
            EventError::TooManyLabels { count: 101 },
            EventError::TooManyCommits { count: 2049 },
            EventError::NoPullRequest {
                event_name: "pull_request_target".into(),
            },
        ]
        .iter()
        .map(ToString::to_string)
        .collect();
        insta::assert_snapshot!(lines.join("\n"), @r#"
        the event payload is not a valid GitHub event: it is not a JSON object
        the event payload is not a valid GitHub event: field pull_request.number: invalid type: string "7", expected u64 at line 1 column 30
        the event payload is not a valid GitHub event: EOF while parsing an object at line 1 column 11
        the event payload is not a valid GitHub event: pull_request.labels has 101 entries, and GitHub allows at most 100
        the event payload is not a valid GitHub event: commits has 2049 entries, and GitHub sends at most 2048
        the pull_request_target event payload has no pull_request object: it is not a payload GitHub sends for this event (check GITHUB_EVENT_PATH)
        "#);
    }
}
