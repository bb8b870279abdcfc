//! The words of [`EventError`]: what is wrong with the event payload, and where; for a
//! payload without the object its event always carries, where it came from.

use crate::event::EventError;
use crate::event::MAX_COMMITS;
use crate::event::MAX_LABELS;
use crate::render::words::Words;

crate::render::words::words_display!(EventError => words);

/// What is wrong with the event payload, and where; for a payload without the object its
/// event always carries, where it came from (the file the runner named).
fn words(e: &EventError) -> Words {
    let what = "the event payload is not a valid GitHub event";
    let invalid = |why: String| super::detailed(what.to_string(), &why, None);
    match e {
        EventError::NotAnObject => invalid("it is not a JSON object".into()),
        EventError::Invalid { field: None, cause } => invalid(cause.clone()),
        EventError::Invalid {
            field: Some(field),
            cause,
        } => invalid(format!("field {field}: {cause}")),
        EventError::TooManyLabels { count } => invalid(format!(
            "pull_request.labels has {count} entries, and GitHub allows at most {MAX_LABELS}"
        )),
        EventError::TooManyCommits { count } => invalid(format!(
            "commits has {count} entries, and GitHub sends at most {MAX_COMMITS}"
        )),
        EventError::NoPullRequest { event_name } => Words::new(format!(
            "the {event_name} event payload has no pull_request object"
        ))
        .help("it is not a payload GitHub sends for this event: check GITHUB_EVENT_PATH"),
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
        .map(|e| {
            crate::render::words::assert_shape(&words(e));
            e.to_string()
        })
        .collect();
        insta::assert_snapshot!(lines.join("\n"), @r#"
        the event payload is not a valid GitHub event: it is not a JSON object
        the event payload is not a valid GitHub event
        help: field pull_request.number: invalid type: string "7", expected u64 at line 1 column 30
        the event payload is not a valid GitHub event: EOF while parsing an object at line 1 column 11
        the event payload is not a valid GitHub event: pull_request.labels has 101 entries, and GitHub allows at most 100
        the event payload is not a valid GitHub event: commits has 2049 entries, and GitHub sends at most 2048
        the pull_request_target event payload has no pull_request object
        help: it is not a payload GitHub sends for this event: check GITHUB_EVENT_PATH
        "#);
    }
}
