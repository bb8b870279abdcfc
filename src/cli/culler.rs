//! The culler options into culler settings: z2jh's defaults, the values files, the options.

use super::usage::{CalendarFix, HubSizeProblem, Problem};
use super::{CullerArgs, UsageError, usage};
use crate::support::log::Log;
use crate::values::{self, ValuesPath};
use crate::window::{Configured, MAX_HUB_SERVERS, Origin};
use anyhow::Result;
use std::path::PathBuf;
use time::OffsetDateTime;

/// The input (and option) naming the values files, which every values-file error names.
const VALUES: &str = "jupyterhub-values";

/// Refuses culler settings whose deadlines do not fit a date: counted from the run's clock
/// `now` (`now_given`: from `--now`), the longest bound of `configured`'s window (the worst
/// case for `--hub-size` included) must end on or before [`crate::window::LAST_DATE`]
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
    let Some(past) = crate::window::past_the_calendar(configured, now, now_given) else {
        return Ok(());
    };
    let input = match past.fix {
        CalendarFix::HubScale => "hub-size",
        CalendarFix::Clock => "now",
        CalendarFix::Settings if configured.window().active_secs.is_some() => "cull-max-age",
        CalendarFix::Settings => "cull-timeout",
    };
    let problem = Problem::PastTheCalendar(Box::new(past));
    Err(UsageError::new(input, problem))
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
        self.apply_cull_options(&mut c);
        self.apply_scale(&mut c, &parsed);
        c.validate().map_err(|e| {
            let input = match &e.origin {
                Origin::Option { name } => name.clone(),
                Origin::File { .. } => VALUES.to_string(),
                Origin::Default => return anyhow::Error::new(e),
            };
            usage(&input)(e.into()).into()
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
        let path = self.values_path.clone().unwrap_or(ValuesPath::Auto);
        let files: Vec<PathBuf> = self
            .jupyterhub_values
            .iter()
            .filter(|f| !f.as_os_str().is_empty())
            .cloned()
            .collect();
        if let Some(listed) = files
            .iter()
            .find(|f| f.to_string_lossy().contains(',') && !f.exists())
        {
            let problem = Problem::ValuesListedWithComma(listed.clone());
            return Err(UsageError::new(VALUES, problem).into());
        }
        let parsed = values::load(&files, &path).map_err(usage(VALUES))?;
        if !files.is_empty() && parsed.iter().all(|f| f.cull_path.is_none()) {
            let keys = match &path {
                ValuesPath::Auto => None,
                ValuesPath::Under(keys) => Some(keys.as_slice()),
            };
            let (title, message) = crate::render::usage_words::no_cull_in_values(keys);
            log.warning(title, &message);
        }
        Ok(parsed)
    }

    /// The `--cull-*` options over what the values files set.
    fn apply_cull_options(&self, c: &mut Configured) {
        let option = |name: &str| Origin::Option { name: name.into() };
        if let Some(v) = self.cull.cull_timeout {
            c.settings.timeout_secs = v.secs();
            c.origins.timeout = option("cull-timeout");
        }
        if let Some(v) = self.cull.cull_every {
            c.settings.every_secs = v.secs();
            c.origins.every = option("cull-every");
        }
        if let Some(v) = self.cull.cull_max_age {
            c.settings.max_age_secs = v.secs();
            c.origins.max_age = option("cull-max-age");
        }
        if let Some(v) = self.cull.cull_enabled {
            c.settings.enabled = v;
            c.origins.enabled = option("cull-enabled");
        }
    }

    /// The hub's scale: the slow-stop timeout from `--slow-stop-timeout`, else the values
    /// files, else JupyterHub's 10 s; `--hub-size` when given.
    fn apply_scale(&self, c: &mut Configured, parsed: &[values::FileCull]) {
        (c.scale.slow_stop_timeout_secs, c.scale.slow_stop_origin) =
            values::slow_stop_timeout(parsed);
        if let Some(v) = self.slow_stop_timeout {
            c.scale.slow_stop_timeout_secs = v.secs();
            c.scale.slow_stop_origin = Origin::Option {
                name: "slow-stop-timeout".into(),
            };
        }
        if let Some(servers) = self.hub_size {
            c.scale.servers = Some(servers);
        }
    }
}

/// `--values-path`, the parent key of `cull` ([`ValuesPath::parse`]).
///
/// # Errors
/// [`UsageError`] naming `values-path`: an empty key, or a path ending in `cull`.
pub(super) fn values_path(text: &str) -> Result<ValuesPath, UsageError> {
    ValuesPath::parse(Some(text)).map_err(usage("values-path"))
}

/// `--hub-size`, the most single-user servers the hub runs at once: a whole number from 1 to
/// [`MAX_HUB_SERVERS`].
///
/// # Errors
/// [`UsageError`] naming `hub-size` for empty text, 0, a negative number, a fraction or
/// anything else that is not a whole number, or more than [`MAX_HUB_SERVERS`].
pub(super) fn hub_size(text: &str) -> Result<u64, UsageError> {
    let t = text.trim();
    let bad = |what| {
        Err(UsageError::of(
            "hub-size",
            t,
            Problem::HubSize(what, MAX_HUB_SERVERS),
        ))
    };
    if t.starts_with('-') {
        return bad(HubSizeProblem::Negative);
    }
    match t.parse::<u64>() {
        Ok(0) => bad(HubSizeProblem::Zero),
        Ok(n) if n > MAX_HUB_SERVERS => bad(HubSizeProblem::TooMany(n)),
        Ok(n) => Ok(n),
        Err(_) if t.is_empty() => bad(HubSizeProblem::Empty),
        Err(_) => bad(HubSizeProblem::NotWhole),
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
            .map_err(|e| crate::cli::usage::clap_input_and_message(&e))?;
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
        // A blank value on the command line is refused by the option's parser (a blank
        // Action input counts as unset: `without_blank_env` drops its variable).
        let (input, _) = window(&["--hub-size", " "]).unwrap_err();
        assert_eq!(input, "hub-size");
        let (input, _) = window(&["--slow-stop-timeout", ""]).unwrap_err();
        assert_eq!(input, "slow-stop-timeout");
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
