//! The words of [`EventError`]: what is wrong with the event payload, and where; for a
//! payload without the object its event always carries, where it came from.

use crate::context::ContextError;
use crate::event::EventError;
use crate::event::MAX_COMMITS;
use crate::event::MAX_LABELS;
use crate::render::words::{Words, unreadable_words};
use crate::support::files::ReadError;
use crate::support::github::RepositoryProblem;

crate::render::words::words_display!(EventError => words, ContextError => context_words);

/// What in the environment GitHub Actions sets up is not usable: the variable and its value;
/// then what to set.
fn context_words(e: &ContextError) -> Words {
    const EVENT_FILE: &str = "GITHUB_EVENT_PATH must name the event file the runner wrote";
    match e {
        ContextError::Repository(value, why) => crate::render::usage_words::repository_words(
            &format!("repository (GITHUB_REPOSITORY) {value:?}"),
            &RepositoryProblem::Rule(*why),
        ),
        ContextError::Sha(sha) => Words::new(format!(
            "GITHUB_SHA {sha:?} is not a commit SHA (40 hex digits)"
        ))
        .help("set --sha or input sha to the commit's whole SHA, as `git rev-parse HEAD` prints it"),
        ContextError::Event(path, ReadError::TooLarge { cap, size }) => Words::new(format!(
            "the event payload at {path} is {size} bytes, more than GitHub's 25 MB cap on payloads ({cap} bytes)"
        ))
        .help(format!("it is not a GitHub event: {EVENT_FILE}")),
        ContextError::Event(path, why) => {
            Words::new(format!("cannot read the event payload at {path}: {why}")).help(EVENT_FILE)
        }
    }
}

/// What is wrong with the event payload, and where; for a payload without the object its
/// event always carries, where it came from (the file the runner named).
fn words(e: &EventError) -> Words {
    const NOT_SENT: &str =
        "it is not a payload GitHub sends for this event: check GITHUB_EVENT_PATH";
    let what = "the event payload is not a valid GitHub event";
    let invalid = |why: String| super::detailed(what.to_string(), &why, Some(NOT_SENT.into()));
    match e {
        EventError::NotAnObject => invalid("it is not a JSON object".into()),
        EventError::Invalid(cause) => invalid(cause.clone()),
        EventError::Shape(shape) => {
            Words::new(unreadable_words("the event payload's ", shape, "GitHub")).help(NOT_SENT)
        }
        EventError::TooManyLabels { count } => invalid(format!(
            "pull_request.labels has {count} entries, and GitHub allows at most {MAX_LABELS}"
        )),
        EventError::TooManyCommits { count } => invalid(format!(
            "commits has {count} entries, and GitHub sends at most {MAX_COMMITS}"
        )),
        EventError::NoPullRequest { event_name } => Words::new(format!(
            "the {event_name} event payload has no pull_request object"
        ))
        .help(NOT_SENT),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::support::text::Unreadable;

    /// Every problem with the variables GitHub Actions sets (the event payload's file is
    /// also covered by `context`'s own test).
    #[test]
    fn every_context_error_in_words() {
        let errors = [
            ContextError::Repository(
                "-o/r".into(),
                crate::support::github::RepositoryError::Owner,
            ),
            ContextError::Sha("xyz".into()),
            ContextError::Event("/dev/zero".into(), ReadError::NotRegular),
            ContextError::Event(
                "big.json".into(),
                ReadError::TooLarge {
                    cap: 26_214_400,
                    size: 26_214_401,
                },
            ),
        ];
        insta::assert_snapshot!(crate::render::words::shaped(errors.iter().map(context_words)), @r#"
        repository (GITHUB_REPOSITORY) "-o/r" has an owner GitHub does not allow
        help: an owner is at most 39 letters, digits and single hyphens, not at the start or end (Enterprise Managed Users: then `_` and the enterprise's short code); write OWNER/REPO as in the repository's address, e.g. octo-org/lab

        GITHUB_SHA "xyz" is not a commit SHA (40 hex digits)
        help: set --sha or input sha to the commit's whole SHA, as `git rev-parse HEAD` prints it

        cannot read the event payload at /dev/zero: it is not a regular file (a FIFO, socket or device)
        help: GITHUB_EVENT_PATH must name the event file the runner wrote

        the event payload at big.json is 26214401 bytes, more than GitHub's 25 MB cap on payloads (26214400 bytes)
        help: it is not a GitHub event: GITHUB_EVENT_PATH must name the event file the runner wrote
        "#);
    }

    #[test]
    fn every_event_error_in_words() {
        let lines: Vec<String> = [
            EventError::NotAnObject,
            EventError::Shape(Unreadable {
                field: "pull_request.number".into(),
                missing: false,
            }),
            EventError::Shape(Unreadable {
                field: "pull_request.labels[0].name".into(),
                missing: true,
            }),
            EventError::Invalid("EOF while parsing an object at line 1 column 11".into()),
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
        help: it is not a payload GitHub sends for this event: check GITHUB_EVENT_PATH
        the event payload's pull_request.number holds another type or value than GitHub writes there
        help: it is not a payload GitHub sends for this event: check GITHUB_EVENT_PATH
        the event payload's pull_request.labels[0].name is missing
        help: it is not a payload GitHub sends for this event: check GITHUB_EVENT_PATH
        the event payload is not a valid GitHub event: EOF while parsing an object at line 1 column 11
        help: it is not a payload GitHub sends for this event: check GITHUB_EVENT_PATH
        the event payload is not a valid GitHub event: pull_request.labels has 101 entries, and GitHub allows at most 100
        help: it is not a payload GitHub sends for this event: check GITHUB_EVENT_PATH
        the event payload is not a valid GitHub event: commits has 2049 entries, and GitHub sends at most 2048
        help: it is not a payload GitHub sends for this event: check GITHUB_EVENT_PATH
        the pull_request_target event payload has no pull_request object
        help: it is not a payload GitHub sends for this event: check GITHUB_EVENT_PATH
        "#);
    }
}
