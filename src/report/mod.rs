//! The run report of `announce` and `status`: what a run has established, filled in by its
//! stages ([`RunReport`]), and what the Actions runner's files get from it: the step
//! outputs, declared once per command ([`RunReport::outputs`]), and the job summary. One path
//! reports a run that failed, was refused before it started, or panicked (a bug)
//! ([`RunReport::finish`], [`RunReport::refused`], its `Drop`): a job summary saying which
//! stage failed and what to do, and every output not written yet, with what the run had
//! established (empty otherwise).

mod files;

pub(crate) use files::{FileCommands, RunnerFile, failed_write};

use crate::publish::deployment::{DeploymentOutcome, Environment, OUTPUTS as DEPLOYMENT_OUTPUTS};
use crate::publish::{Change, Published, Unfinished};
pub(crate) use crate::render::Known;
use crate::render::messages::{ADDRESS_LEFT_OUT, RunWarning};
use crate::render::{self, Failure, Stage};
use crate::status::classify::Totals;
use crate::support::log::{HeldAnnotation, Log};
use crate::support::sanitize;
use crate::tier::TierDecision;
use crate::window::Window;
use anyhow::Result;

/// A command that reports to the Actions runner (`announce`, `status`), named as on the
/// command line (clap's kebab-case of the variant).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Pipeline {
    /// `announce`.
    Announce,
    /// `status`.
    Status,
}

impl Pipeline {
    /// The command named `name`, when it is one that reports; `None` for the others.
    pub(crate) fn named(name: &str) -> Option<Self> {
        <Self as clap::ValueEnum>::from_str(name, false).ok()
    }
}

/// The report of one run, filled in by its stages (see the module docs).
pub(crate) struct RunReport {
    /// The command; `None` for a command line naming none there is (no outputs known).
    pipeline: Option<Pipeline>,
    /// The stage the run reached.
    pub(crate) stage: Stage,
    /// What the run established.
    pub(crate) known: Known,
    /// Whether the deployment's outputs are declared (`environment`).
    deployments: bool,
    /// Whether the run started (a refused one establishes nothing, not even `changed`).
    started: bool,
    /// Whether everything was reported: a later error (`fail-on`) needs no failure report.
    pub(crate) completed: bool,
    files: FileCommands,
    /// Outputs written, or whose write was tried: never written twice.
    written: Vec<&'static str>,
    /// Whether the warning about an unset `$GITHUB_OUTPUT` was printed.
    warned: bool,
    /// Addresses GitHub answered that are not plain URLs ([`RunReport::check`]).
    left_out: Vec<String>,
    /// Annotations held back ([`RunReport::hold`]) until [`RunReport::release_held`].
    held: Vec<HeldAnnotation>,
    /// The run's log, for the failure report of a run that panics (its `Drop`); `None` for
    /// a refused run, reported at once.
    log: Option<Log>,
}

impl RunReport {
    /// The report of a run of `pipeline` that starts knowing `known`; `environment`: the
    /// deployment outputs are declared; `log`: the run's, which reports a panic too.
    pub(crate) fn new(
        pipeline: Pipeline,
        known: Known,
        environment: Option<&Environment>,
        log: Option<&Log>,
    ) -> Self {
        Self {
            pipeline: Some(pipeline),
            stage: match pipeline {
                Pipeline::Announce => Stage::Digest,
                Pipeline::Status => Stage::StatusRelease,
            },
            known,
            deployments: environment.is_some(),
            started: true,
            completed: false,
            files: FileCommands::from_env(),
            written: Vec::new(),
            warned: false,
            left_out: Vec::new(),
            held: Vec::new(),
            log: log.cloned(),
        }
    }

    /// The report of a run of `pipeline` refused before it started: nothing established;
    /// `None`, an unknown command, has no outputs. `environment`: one was named (valid or
    /// not), so the deployment's outputs are declared too.
    pub(crate) fn refused(pipeline: Option<Pipeline>, environment: bool) -> Self {
        let mut report = Self::new(Pipeline::Announce, Known::default(), None, None);
        (report.pipeline, report.deployments) = (pipeline, environment);
        (report.stage, report.started) = (Stage::Inputs, false);
        report
    }

    /// Holds `held` back until [`RunReport::release_held`] (or the failure report) prints it.
    pub(crate) fn hold(&mut self, held: &[HeldAnnotation]) {
        self.held = held.to_vec();
    }

    /// Prints the annotations held back, once.
    pub(crate) fn release_held(&mut self, log: &Log) {
        log.replay(&std::mem::take(&mut self.held));
    }

    /// The step outputs, declared here once per command in action.yml's order, each with
    /// what the run established (empty where it did not: never `converged=false` for a hub
    /// not measured); a run refused on its input ([`Stage::Inputs`]) writes every one empty.
    pub(crate) fn outputs(&self) -> Vec<(&'static str, String)> {
        let k = &self.known;
        let url = |object: &Option<(String, Change)>| text(object.as_ref().map(|(url, _)| url));
        let mut outputs = match self.pipeline {
            None => return Vec::new(),
            Some(Pipeline::Announce) => {
                let tier = k.tier.as_ref();
                let secs = |f: fn(&Window) -> Option<u64>| text(k.window.as_ref().and_then(f));
                // The tag names a release that exists, or the one a dry run would publish.
                let tag = k
                    .tag
                    .as_ref()
                    .filter(|_| k.release.is_some() || self.stage == Stage::Report);
                vec![
                    ("digest", text(k.digest.as_ref())),
                    ("tier", text(tier.map(TierDecision::tier))),
                    ("tier-source", text(tier.map(TierDecision::source))),
                    ("release-tag", text(tag)),
                    ("release-url", url(&k.release)),
                    ("issue-url", url(&k.issue)),
                    ("changed", text(self.started.then(|| self.changed()))),
                    ("convergence-window", text(k.window.map(|w| w.summary()))),
                    ("idle-window-seconds", secs(Window::latest_idle_secs)),
                    ("active-window-seconds", secs(Window::latest_active_secs)),
                    ("idle-window-usual-seconds", secs(|w| w.idle_secs)),
                    ("active-window-usual-seconds", secs(|w| w.active_secs)),
                ]
            }
            Some(Pipeline::Status) => {
                let t = k.totals.as_ref();
                let count = |f: fn(&Totals) -> u64| text(t.map(f));
                let by = t
                    .and_then(|t| t.converged_by)
                    .map(crate::support::time::rfc3339_seconds);
                vec![
                    ("running", count(|t| t.running)),
                    ("updated", count(|t| t.updated)),
                    ("stale", count(|t| t.stale)),
                    ("stale-active", count(|t| t.stale_active)),
                    ("converged", text(t.map(|t| t.converged))),
                    ("evidence", text(t.map(|t| t.evidence.name()))),
                    ("mismatch", count(|t| t.mismatch)),
                    ("orphans", count(|t| t.orphans)),
                    ("converged-by", text(by)),
                ]
            }
        };
        if self.deployments {
            let d = k.deployment.as_ref();
            let link = d.and_then(|d| sanitize::link_url(&d.url));
            outputs.extend([
                (DEPLOYMENT_OUTPUTS[0], text(d.map(|d| d.id))),
                (DEPLOYMENT_OUTPUTS[1], text(link)),
            ]);
        }
        if self.stage == Stage::Inputs {
            outputs.iter_mut().for_each(|(_, value)| value.clear());
        }
        outputs
    }

    /// Whether this run changed what is announced (`changed`).
    pub(crate) fn changed(&self) -> bool {
        let k = &self.known;
        k.wrote
            || [&k.release, &k.issue]
                .into_iter()
                .flatten()
                .any(|(_, change)| *change != Change::Unchanged)
    }

    /// Records what publishing did, or had done when it stopped (then returns its error).
    pub(crate) fn published(
        &mut self,
        outcome: Result<Published, Unfinished>,
    ) -> Result<Published> {
        let k = &mut self.known;
        let (p, wrote) = match &outcome {
            Ok(p) => (p, p.changed()),
            Err(unfinished) => (&unfinished.published, unfinished.published.wrote),
        };
        (k.release, k.issue) = (p.release.clone(), p.issue.clone());
        k.wrote |= wrote;
        outcome.map_err(|unfinished| unfinished.error)
    }

    /// The deployment stage of either command: what it did logged (`None`: a dry run that
    /// sent nothing), recorded, and its outputs written.
    ///
    /// # Errors
    /// The outputs' file cannot be written.
    pub(crate) fn deployed(
        &mut self,
        environment: &Environment,
        outcome: Option<DeploymentOutcome>,
        log: &Log,
    ) -> Result<()> {
        let environment = environment.as_str();
        match outcome {
            None => log.info(&render::deployment::dry_run(environment)),
            Some(outcome) => {
                for note in &outcome.notes {
                    log.info(&render::messages::published_note(note));
                }
                if let Some(d) = &outcome.deployment {
                    let change = outcome.change;
                    log.info(&render::deployment::logged(change, d.id, environment));
                }
                self.known.wrote |= outcome.wrote;
                self.known.deployment = outcome.deployment;
            }
        }
        self.write(log, |name| DEPLOYMENT_OUTPUTS.contains(&name))
    }

    /// Writes the outputs not written yet, but the deployment's ([`RunReport::deployed`]).
    ///
    /// # Errors
    /// The outputs' file cannot be written ([`RunnerFile::Outputs`]).
    pub(crate) fn write_outputs(&mut self, log: &Log) -> Result<()> {
        self.write(log, |name| !DEPLOYMENT_OUTPUTS.contains(&name))
    }

    /// Appends `markdown` to the job summary (secrets hidden); `false` when there is none.
    ///
    /// # Errors
    /// The summary's file cannot be written ([`RunnerFile::Summary`]).
    pub(crate) fn write_summary(&self, markdown: &str, log: &Log) -> Result<bool> {
        self.files.write_summary(&log.redact(markdown))
    }

    fn write(&mut self, log: &Log, which: impl Fn(&str) -> bool) -> Result<()> {
        self.check(log);
        let outputs: Vec<(&str, String)> = (self.outputs().into_iter())
            .filter(|(name, _)| which(name) && !self.written.contains(name))
            .map(|(name, value)| (name, log.redact(&value)))
            .collect();
        self.written.extend(outputs.iter().map(|(name, _)| *name));
        if !outputs.is_empty() {
            self.files.write_outputs(&outputs)?;
        }
        Ok(())
    }

    /// Warns once about an unset `$GITHUB_OUTPUT` inside Actions, and checks once each
    /// address GitHub answered, as the outputs and the job summary may show it: a plain
    /// `http(s)://` URL ([`sanitize::link_url`]), else left out with a warning.
    fn check(&mut self, log: &Log) {
        let unset = log.in_actions() && self.files.output.is_none() && self.pipeline.is_some();
        if !self.warned && unset {
            let names = self.outputs().into_iter().map(|(name, _)| name).take(3);
            log.warn(&RunWarning::OutputsNotWritten(&names.collect::<Vec<_>>()));
        }
        self.warned = true;
        let k = &mut self.known;
        for (url, _) in [&mut k.release, &mut k.issue].into_iter().flatten() {
            if !url.is_empty() && sanitize::link_url(url).is_none() {
                log.warn(&RunWarning::UrlRefused(url));
                self.left_out.push(std::mem::take(url));
            }
        }
    }

    /// Reports the run's `outcome`: when it failed (and was not reported whole,
    /// [`RunReport::completed`]), the held annotations, then the job summary saying which
    /// stage failed and what to do, and the outputs not written yet. Returns `outcome`.
    pub(crate) fn finish(mut self, outcome: Result<()>, log: &Log) -> Result<()> {
        if let Err(err) = &outcome
            && !self.completed
        {
            self.release_held(log);
            let input = bad_input(err).map(str::to_string);
            let error = render::error_words(err, log.in_actions()).to_string();
            self.fail(input, &error, failed_write(err), log);
        }
        outcome
    }

    /// The failure report: see [`RunReport::finish`]. `input`: the input at fault (the run
    /// was refused on it); `error`: as the `::error` annotation says it; `unwritten`: the
    /// runner file whose write failed, not tried again. Best effort: a file that cannot be
    /// written is warned about.
    pub(crate) fn fail(
        &mut self,
        input: Option<String>,
        error: &str,
        unwritten: Option<RunnerFile>,
        log: &Log,
    ) {
        // A bad input found late: the summary names the stage it was found at.
        let reached = self.stage;
        if input.is_some() {
            self.stage = Stage::Inputs;
        }
        self.completed = true;
        self.check(log);
        let mut error = log.redact(error);
        for url in &self.left_out {
            error = error.replace(url, ADDRESS_LEFT_OUT);
        }
        // Best effort, each file tried even when the other failed: the run fails with its own
        // error anyway, so what could not be written is only warned about.
        let outputs = self
            .write(log, |_| unwritten != Some(RunnerFile::Outputs))
            .err();
        let failure = Failure {
            stage: reached,
            error,
            input: input.map(|input| log.redact(&input)),
            known: std::mem::take(&mut self.known),
        };
        let summary = (unwritten != Some(RunnerFile::Summary)).then(|| {
            let summary = log.redact(&render::failure_summary(&failure));
            self.files.write_summary(&summary).err()
        });
        let summary = summary.flatten();
        if outputs.is_some() || summary.is_some() {
            let (outputs, summary) = (outputs.as_ref(), summary.as_ref());
            log.warn(&RunWarning::FailureNotReported { outputs, summary });
        }
    }
}

impl Drop for RunReport {
    /// The safety net of a run that panicked (a bug): the held annotations, the job summary,
    /// the outputs and the `::error` annotation a failed run gets ([`RunReport::finish`]),
    /// with what the run had established, once. The panic's message is on stderr (Rust's panic hook), and the
    /// process still exits 101.
    fn drop(&mut self) {
        if let Some(log) = self.log.take()
            && std::thread::panicking()
            && !self.completed
        {
            let error = render::panicked().to_string();
            self.release_held(&log);
            self.fail(None, &error, None, &log);
            log.error(render::PANICKED_TITLE, &error);
        }
    }
}

/// An output's value: what the run established, empty when it did not.
fn text(value: Option<impl ToString>) -> String {
    value.map(|v| v.to_string()).unwrap_or_default()
}

/// The input at fault when `err` is bad usage (exit 2): a usage error of the command line
/// anywhere in its chain, a team's template failing on a run's real facts (found at render
/// time, before anything is published), a runbook refused for a security release, or a
/// tier the labels decide in a dry run without a token or repository (`github-token`,
/// `repository`: the look-up needs both; the event decides whether there is a look-up, so
/// the command line cannot tell).
pub(crate) fn bad_input(err: &anyhow::Error) -> Option<&str> {
    // `NoClient` the failure, `Lacking` what its client lacks.
    use crate::tier::{LookupFailure::NoClient, NoClient as Lacking, NotKnown, Undecided};
    err.chain().find_map(|e| {
        e.downcast_ref::<render::usage::UsageError>()
            .map(|u| u.input.as_str())
            .or_else(|| e.downcast_ref::<render::TemplateError>().map(|t| t.input))
            .or_else(|| {
                let refused = e.downcast_ref::<render::messages::PlaceholderRunbook>();
                refused.map(|_| render::messages::PlaceholderRunbook::INPUT)
            })
            .or_else(|| match e.downcast_ref::<Undecided>()? {
                Undecided::LookUp { failure } | Undecided::Unreadable { failure } => {
                    let NotKnown::Failed(f) = failure else {
                        return None;
                    };
                    let NoClient { lacking, .. } = **f else {
                        return None;
                    };
                    Some(match lacking {
                        Lacking::Token => "github-token",
                        Lacking::Repository => "repository",
                    })
                }
                Undecided::Unlabeled { .. } => None,
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{BTreeMap, BTreeSet};
    use time::macros::datetime;

    /// The names of `pipeline`'s outputs, in action.yml's order; with `environment`, the
    /// deployment's too.
    fn names(pipeline: Pipeline, environment: bool) -> Vec<&'static str> {
        let outputs = RunReport::refused(Some(pipeline), environment).outputs();
        outputs.into_iter().map(|(name, _)| name).collect()
    }

    /// Each command's outputs, by name, as a measured `status` writes them and as every
    /// refused run does (all empty, even `changed` and `converged`); with `environment`, the
    /// deployment's too.
    #[test]
    fn every_output_is_declared_once_and_empty_until_established() {
        let totals = Some(Totals {
            running: 7,
            updated: 1,
            stale: 5,
            stale_idle: 4,
            stale_active: 1,
            converged_by: Some(datetime!(2026-11-30 13:08 UTC)),
            ..Totals::default()
        });
        let known = Known {
            totals,
            ..Known::default()
        };
        let measured = RunReport::new(Pipeline::Status, known, None, None);
        let deployed = RunReport::refused(Some(Pipeline::Announce), true);
        let refused = RunReport::refused(Some(Pipeline::Status), false);
        let table: Vec<String> = [measured, refused, deployed]
            .iter()
            .map(|r| {
                let outputs = r.outputs().into_iter().map(|(n, v)| format!("{n}={v}"));
                outputs.collect::<Vec<_>>().join(" ")
            })
            .collect();
        insta::assert_snapshot!(table.join("\n"), @r"
        running=7 updated=1 stale=5 stale-active=1 converged=false evidence=start-time mismatch=0 orphans=0 converged-by=2026-11-30T13:08:00Z
        running= updated= stale= stale-active= converged= evidence= mismatch= orphans= converged-by=
        digest= tier= tier-source= release-tag= release-url= issue-url= changed= convergence-window= idle-window-seconds= active-window-seconds= idle-window-usual-seconds= active-window-usual-seconds= deployment-id= deployment-url=
        ");
        // Both commands' outputs, the deployment's with them, are action.yml's.
        #[derive(serde::Deserialize)]
        struct ActionYml {
            outputs: BTreeMap<String, serde::de::IgnoredAny>,
        }
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/action.yml");
        let action: ActionYml =
            serde_saphyr::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let declared: BTreeSet<&str> = [Pipeline::Announce, Pipeline::Status]
            .into_iter()
            .flat_map(|p| names(p, true))
            .collect();
        assert_eq!(
            declared,
            action.outputs.keys().map(String::as_str).collect()
        );
        assert_eq!(Pipeline::named("status"), Some(Pipeline::Status));
        assert_eq!(Pipeline::named("window"), None);
        // An unknown command: no command's outputs are known.
        assert!(RunReport::refused(None, true).outputs().is_empty());
    }

    /// A run that panics (a bug) still reports as a failed run does: the job summary naming
    /// the stage it reached and what it had established, and every output.
    #[test]
    fn a_run_that_panics_still_reports_its_failure() {
        let dir = tempfile::tempdir().unwrap();
        let (output, summary) = (dir.path().join("output"), dir.path().join("summary"));
        let files = FileCommands {
            output: Some(output.clone()),
            summary: Some(summary.clone()),
        };
        let panicked = std::panic::catch_unwind(|| {
            let known = Known {
                image: "ghcr.io/o/lab:latest".into(),
                ..Known::default()
            };
            let log = Log::new(false, false);
            let mut run = RunReport::new(Pipeline::Announce, known, None, Some(&log));
            (run.files, run.stage) = (files, Stage::Tier);
            panic!("a bug");
        });
        assert!(panicked.is_err());
        let outputs = std::fs::read_to_string(&output).unwrap();
        let written: Vec<&str> = (outputs.lines())
            .filter_map(|line| Some(line.split_once("<<ghadelimiter_")?.0))
            .collect();
        assert_eq!(written, names(Pipeline::Announce, false));
        insta::assert_snapshot!(std::fs::read_to_string(&summary).unwrap());
    }
}
