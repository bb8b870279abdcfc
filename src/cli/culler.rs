//! The culler options into culler settings: z2jh's defaults, the values files, the options.

use super::inputs::given;
use super::{CullerArgs, UsageError, inputs, usage};
use crate::support::log::Log;
use crate::values::{self, ValuesPath};
use crate::window::{
    Configured, LAST_DATE, Origin, fits_calendar, human, parse_duration_secs, parse_hub_size,
    parse_slow_stop_timeout,
};
use anyhow::Result;
use std::path::PathBuf;
use time::OffsetDateTime;

/// The input (and option) naming the values files, which every values-file error names.
const VALUES: &str = "jupyterhub-values";

/// Refuses culler settings whose deadlines do not fit a date: counted from the run's clock
/// `now` (`now_given`: from `--now`), the longest bound of `configured`'s window (the worst
/// case for `--hub-size` included) must end on or before [`LAST_DATE`]
/// ([`crate::window::fits_calendar`]). Otherwise the release note and `status` could not
/// state the deadline, and a missing deadline reads as "culling disabled". Every deadline
/// a command states is at most that far from a time no later than `now` (the release, a
/// server's start or last activity), so this one check covers them; `status` checks again
/// at the hub's size it reads ([`crate::status::run`]).
///
/// # Errors
/// [`UsageError`] naming `hub-size` when the cull pass at the hub's size is longer than the
/// usual bound (no clock would fit it), else `now` when it was given (a clock near year 9999
/// is the likely mistake), else `cull-max-age` or `cull-timeout`; stating the clock, the
/// bound and the settings with their origins.
pub(super) fn deadlines_fit(
    configured: &Configured,
    now: OffsetDateTime,
    now_given: bool,
) -> Result<(), UsageError> {
    let window = configured.window();
    let Some(longest) = window.longest_secs() else {
        return Ok(());
    };
    if fits_calendar(now, longest) {
        return Ok(());
    }
    let usual = [window.idle_secs, window.active_secs]
        .into_iter()
        .flatten()
        .max()
        .unwrap_or(0);
    // The usual bound is at most about 20 years (every duration at most
    // MAX_DURATION_SECS): past the calendar only from a clock near its end. A cull pass of
    // the hub's size can be longer than any clock allows.
    let pass_dominates = window
        .worst
        .is_some_and(|w| w.pass_secs.saturating_add(w.carry_secs) > usual);
    let (input, fix) = if pass_dominates {
        (
            "hub-size",
            "give the most servers the hub runs at once (hub-size) and its slow-stop timeout (slow-stop-timeout) as they are",
        )
    } else if now_given {
        (
            "now",
            "leave now out for the system clock (or give the run's real time), or give the idle culler settings the hub really uses",
        )
    } else if window.active_secs.is_some() {
        (
            "cull-max-age",
            "give the idle culler settings the hub really uses",
        )
    } else {
        (
            "cull-timeout",
            "give the idle culler settings the hub really uses",
        )
    };
    let clock = match now_given {
        true => "now (--now)",
        false => "this run's clock",
    };
    let scale = window.worst.map_or(String::new(), |w| {
        format!(
            "; hub size {}, slow-stop timeout {}",
            crate::window::servers_words(w.scale.servers),
            human(w.scale.slow_stop_timeout_secs)
        )
    });
    Err(UsageError::new(
        input,
        format!(
            "{clock} {} plus the convergence window of these settings, up to {}, ends after {LAST_DATE}, the last date a deadline can be written for: {fix} ({}{scale})",
            crate::status::classify::rfc3339(now),
            crate::window::human_at_most(longest),
            configured.origins_line(),
        ),
    ))
}

impl CullerArgs {
    /// The culler settings these options give, with where each came from: z2jh's defaults,
    /// overridden by the values files in order ([`crate::values`]), overridden by the
    /// `--cull-*` options; and the hub's scale: `--hub-size` when given, the slow-stop
    /// timeout from `--slow-stop-timeout`, else the values files
    /// ([`crate::values::slow_stop_timeout`]), else JupyterHub's 10 s. Logs a warning when
    /// values files were given but none sets `cull`.
    ///
    /// # Errors
    /// [`UsageError`] naming the input for a malformed duration or boolean option (quoting
    /// the value), a hub size or slow-stop timeout that is 0, negative or not a number, a bad
    /// `values-path`, or `timeout` or `every` of 0 from an option while culling is enabled;
    /// [`UsageError`] naming `jupyterhub-values` for every values-file error: a file that
    /// cannot be read (also one whose name holds a comma: the input takes one path per
    /// line), is not YAML or sets a malformed or out-of-range culler value, or a 0 from a
    /// values file while culling is enabled, each naming the file and key path.
    pub fn settings(&self, log: &Log) -> Result<Configured> {
        let mut c = Configured::default();
        let parsed = self.values_files(log)?;
        values::apply(&mut c, &parsed).map_err(usage(VALUES))?;
        values::apply_image(&mut c.image, &parsed);
        self.apply_cull_options(&mut c)?;
        self.apply_scale(&mut c, &parsed)?;
        c.validate().map_err(|e| match e.origin {
            Origin::Option { name } => UsageError::new(name, e.message).into(),
            Origin::File { .. } => UsageError::new(VALUES, e.message).into(),
            Origin::Default => anyhow::Error::new(e),
        })?;
        Ok(c)
    }

    /// The values files (`jupyterhub-values`, one path per line) read at `values-path`;
    /// warns through `log` when files were given but none sets `cull`.
    ///
    /// # Errors
    /// [`UsageError`] for a bad `values-path`, a missing file whose name holds a comma, and
    /// the errors of [`values::load`] (naming `jupyterhub-values`).
    fn values_files(&self, log: &Log) -> Result<Vec<values::FileCull>> {
        let path = ValuesPath::parse(self.values_path.as_deref()).map_err(usage("values-path"))?;
        let files: Vec<PathBuf> = self
            .jupyterhub_values
            .iter()
            .map(|f| f.trim())
            .filter(|f| !f.is_empty())
            .map(PathBuf::from)
            .collect();
        if let Some(listed) = files
            .iter()
            .find(|f| f.to_string_lossy().contains(',') && !f.exists())
        {
            return Err(UsageError::new(
                VALUES,
                format!(
                    "jupyterhub-values (--jupyterhub-values): there is no file {}: the input takes one path per line, not a comma-separated list; write `jupyterhub-values: |` with each file on its own line below it (on the command line, repeat --jupyterhub-values)",
                    listed.display()
                ),
            )
            .into());
        }
        let parsed = values::load(&files, &path).map_err(usage(VALUES))?;
        if !files.is_empty() && parsed.iter().all(|f| f.cull_path.is_none()) {
            let place = match &path {
                ValuesPath::Auto => "`cull` or `jupyterhub.cull`".to_string(),
                ValuesPath::Under(keys) if keys.is_empty() => "`cull`".to_string(),
                ValuesPath::Under(keys) => format!("`{}.cull`", keys.join(".")),
            };
            log.warning(
                "Culler settings",
                &format!(
                    "no values file sets {place}: using z2jh's defaults; check jupyterhub-values and values-path"
                ),
            );
        }
        Ok(parsed)
    }

    /// The `--cull-*` options over what the values files set.
    ///
    /// # Errors
    /// [`UsageError`] naming the option for a malformed duration or boolean (quoting it).
    fn apply_cull_options(&self, c: &mut Configured) -> Result<(), UsageError> {
        let option = |name: &str| Origin::Option { name: name.into() };
        let dur = |value: &Option<String>, name: &str| -> Result<Option<u64>, UsageError> {
            value
                .as_deref()
                .filter(|v| !v.trim().is_empty())
                .map(|v| {
                    parse_duration_secs(v)
                        .map_err(|e| UsageError::new(name, format!("{name} (--{name}): {e}")))
                })
                .transpose()
        };
        if let Some(v) = dur(&self.cull.cull_timeout, "cull-timeout")? {
            c.settings.timeout_secs = v;
            c.origins.timeout = option("cull-timeout");
        }
        if let Some(v) = dur(&self.cull.cull_every, "cull-every")? {
            c.settings.every_secs = v;
            c.origins.every = option("cull-every");
        }
        if let Some(v) = dur(&self.cull.cull_max_age, "cull-max-age")? {
            c.settings.max_age_secs = v;
            c.origins.max_age = option("cull-max-age");
        }
        if let Some(v) = self
            .cull
            .cull_enabled
            .as_deref()
            .filter(|v| !v.trim().is_empty())
        {
            c.settings.enabled = inputs::boolean(v).ok_or_else(|| {
                UsageError::new(
                    "cull-enabled",
                    format!(
                        "cull-enabled (--cull-enabled) {:?} is not a boolean: write {}",
                        v.trim(),
                        inputs::BOOLEAN_WORDS
                    ),
                )
            })?;
            c.origins.enabled = option("cull-enabled");
        }
        Ok(())
    }

    /// The hub's scale: the slow-stop timeout from `--slow-stop-timeout`, else the values
    /// files, else JupyterHub's 10 s; `--hub-size` when given.
    ///
    /// # Errors
    /// [`UsageError`] naming the option for a value that is 0, negative or not a number.
    fn apply_scale(
        &self,
        c: &mut Configured,
        parsed: &[values::FileCull],
    ) -> Result<(), UsageError> {
        (c.scale.slow_stop_timeout_secs, c.scale.slow_stop_origin) =
            values::slow_stop_timeout(parsed);
        if let Some(v) = given(&self.slow_stop_timeout) {
            c.scale.slow_stop_timeout_secs =
                parse_slow_stop_timeout("slow-stop-timeout (--slow-stop-timeout)", v)
                    .map_err(|e| UsageError::new("slow-stop-timeout", e.message))?;
            c.scale.slow_stop_origin = Origin::Option {
                name: "slow-stop-timeout".into(),
            };
        }
        if let Some(v) = given(&self.hub_size) {
            c.scale.servers = Some(
                parse_hub_size("hub-size (--hub-size)", v)
                    .map_err(|e| UsageError::new("hub-size", e.message))?,
            );
        }
        Ok(())
    }
}

/// Settings whose deadlines fall past 9999-12-31 ([`deadlines_fit`]): a clock near the end of
/// the calendar with 10-year culler values; a hub so large that one cull pass does not fit.
/// Both commands' usage-error tables take them.
#[cfg(test)]
pub(crate) const PAST_THE_CALENDAR: [&[&str]; 2] = [
    &[
        "--now",
        "9999-06-01T00:00:00Z",
        "--cull-timeout",
        "87600h",
        "--cull-max-age",
        "87600h",
    ],
    &[
        "--now",
        "2026-12-01T12:00:00Z",
        "--hub-size",
        "1000000",
        "--slow-stop-timeout",
        "87600h",
    ],
];

#[cfg(test)]
mod tests {
    use crate::cli::{Cli, Command};
    use crate::support::log::Log;
    use crate::window::Origin;
    use assert_matches::assert_matches;
    use clap::Parser;

    /// The `window` request for `args` (after `window`), or the error's input and text.
    fn window(args: &[&str]) -> Result<crate::window::Configured, (String, String)> {
        let cli = Cli::try_parse_from(["codeq-rollout", "window"].iter().chain(args))
            .map_err(|e| ("clap".to_string(), e.to_string()))?;
        let Command::Window(args) = cli.command else {
            unreachable!()
        };
        args.culler
            .settings(&Log::new(false, false))
            .map_err(crate::cli::usage::input_and_message)
    }

    #[test]
    fn the_hubs_scale_comes_from_the_options_then_the_values_files() {
        let c = window(&[]).unwrap();
        assert_eq!(c.scale, crate::window::ScaleConfig::default());
        assert_eq!(c.window().worst, None);
        let c = window(&["--hub-size", " 100 ", "--slow-stop-timeout", "30s"]).unwrap();
        assert_eq!(c.scale.servers, Some(100));
        assert_eq!(c.scale.slow_stop_timeout_secs, 30);
        assert_eq!(
            c.scale.slow_stop_origin,
            Origin::Option {
                name: "slow-stop-timeout".into()
            }
        );
        assert_eq!(c.window().latest_idle_secs(), Some(4200 + 3000));
        // Blank inputs count as unset, as the runner passes them.
        let c = window(&["--hub-size", " ", "--slow-stop-timeout", ""]).unwrap();
        assert_eq!(c.scale, crate::window::ScaleConfig::default());
        // From a values file, unless the option says otherwise.
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("hub.yaml");
        std::fs::write(
            &file,
            "hub:\n  config:\n    JupyterHub:\n      tornado_settings:\n        slow_stop_timeout: 20\n",
        )
        .unwrap();
        let path = file.to_str().unwrap();
        let c = window(&["--jupyterhub-values", path]).unwrap();
        assert_eq!(c.scale.slow_stop_timeout_secs, 20);
        assert_matches!(c.scale.slow_stop_origin, Origin::File { .. });
        let c = window(&["--jupyterhub-values", path, "--slow-stop-timeout", "5"]).unwrap();
        assert_eq!(c.scale.slow_stop_timeout_secs, 5);
    }

    #[test]
    fn a_bad_hub_size_or_slow_stop_timeout_is_a_usage_error_naming_it() {
        let cases: &[&[&str]] = &[
            &["--hub-size", "0"],
            &["--hub-size", "-5"],
            &["--hub-size", "many"],
            &["--hub-size", "2.5"],
            &["--slow-stop-timeout", "0"],
            &["--slow-stop-timeout", "-10"],
            &["--slow-stop-timeout", "-0"],
            &["--slow-stop-timeout", "soon"],
        ];
        let table: Vec<String> = cases
            .iter()
            .map(|args| {
                let (input, message) = window(args).expect_err("an error");
                format!("{}\n  {input}: {message}", args.join(" "))
            })
            .collect();
        insta::assert_snapshot!(table.join("\n"));
    }
}
