//! The culler options into culler settings: z2jh's defaults, the values files, the options.

use super::usage::{CalendarFix, Problem};
use super::{CullerArgs, InputDuration, UsageError, usage};
use crate::support::log::Log;
use crate::values::{self, Holds, SettingsError, ValuesError, ValuesPath};
use crate::window::{Configured, MAX_HUB_SERVERS, Overrides};
use anyhow::Result;
use time::OffsetDateTime;

/// The input (and option) naming the values files, which every values-file error names.
const VALUES: &str = "jupyterhub-values";

/// Refuses culler settings whose deadlines, counted from the run's clock `now` (`now_given`:
/// from `--now`), do not fit a date ([`crate::window::past_the_calendar`]): every command that
/// states a window (`announce`, `status`, `window`, `docs`) checks here, in
/// [`CullerArgs::settings`].
///
/// # Errors
/// [`UsageError`] naming the input to change: `hub-size` when the cull pass at the hub's
/// size is longer than the usual bound, else `now` when it was given, else `cull-max-age`
/// or `cull-timeout`; stating the clock, the bound and the settings with their origins.
fn deadlines_fit(
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
    /// the values files, the options ([`values::settings`]), whose deadlines fit a date from
    /// the run's clock (`now`, from `--now`; the system clock when `None`). Logs a warning
    /// when values files were given but none sets `cull`.
    ///
    /// # Errors
    /// [`UsageError`] for each [`SettingsError`] ([`refused`]): naming `jupyterhub-values` for
    /// a values-file error (each naming the file and key path), `values-path` for its own
    /// keys' (given, one none of the files has or that holds no mapping), the option for an
    /// option's `timeout` or `every` of 0 while culling is enabled; deadlines past the
    /// calendar ([`deadlines_fit`]). (The options' parsers refuse malformed values.)
    pub(crate) fn settings(&self, log: &Log, now: Option<OffsetDateTime>) -> Result<Configured> {
        let path = self.values_path.clone().unwrap_or_default();
        let refused = refused(self.values_path.is_some());
        let given = self.jupyterhub_values.iter().flat_map(|paths| &paths.0);
        let given: Vec<std::path::PathBuf> = given.cloned().collect();
        let files = values::read(&given, &path).map_err(&refused)?;
        if values::none_sets_cull(&files) {
            let (title, words) = crate::render::values_words::no_cull_in_values(path.under());
            log.warning(title, &words.to_string());
        }
        let options = Overrides {
            timeout_secs: self.cull.cull_timeout.map(InputDuration::secs),
            every_secs: self.cull.cull_every.map(InputDuration::secs),
            max_age_secs: self.cull.cull_max_age.map(InputDuration::secs),
            enabled: self.cull.cull_enabled,
            slow_stop_timeout_secs: self.slow_stop_timeout.map(InputDuration::secs),
            servers: self.hub_size,
        };
        let configured = values::settings(&files, &options).map_err(refused)?;
        let clock = now.unwrap_or_else(OffsetDateTime::now_utc);
        deadlines_fit(&configured, clock, now.is_some())?;
        Ok(configured)
    }
}

/// The [`UsageError`] for settings refused ([`SettingsError`]), naming the option for an
/// option's value, and `jupyterhub-values` for the values files, except for a key of the
/// values-path given (`path_given`) that none of them has or that holds no mapping: the files
/// are the hub's, deployed and working, so the path naming a key they do not hold as a
/// parent is what to change (the refusal's help says to check it).
fn refused(path_given: bool) -> impl Fn(SettingsError) -> anyhow::Error {
    move |e| match e {
        SettingsError::ListedWithComma(file) => {
            UsageError::new(VALUES, Problem::ValuesListedWithComma(file)).into()
        }
        SettingsError::File(
            e @ (ValuesError::ValuesPathNotFound(..)
            | ValuesError::NotMapping {
                holds: Holds::Parent,
                ..
            }),
        ) if path_given => usage("values-path")(e.into()).into(),
        SettingsError::File(ValuesError::Invalid(e)) => {
            UsageError::new(VALUES, Problem::Settings(e)).into()
        }
        SettingsError::File(e) => usage(VALUES)(e.into()).into(),
        SettingsError::Option(name, e) => UsageError::new(name, Problem::Settings(e)).into(),
    }
}

/// `--values-path`, the parent key of `cull` ([`ValuesPath::parse`]).
///
/// # Errors
/// [`UsageError`] naming `values-path`: an empty key, or a path ending in `cull`.
pub(super) fn values_path(text: &str) -> Result<ValuesPath, UsageError> {
    ValuesPath::parse(text).map_err(|e| usage("values-path")(e.into()))
}

/// `--hub-size`: the most single-user servers the hub runs at once, a whole number from 1 to
/// [`MAX_HUB_SERVERS`] (trimmed).
///
/// # Errors
/// [`UsageError`] naming `hub-size` and quoting the value, for anything else.
pub(super) fn hub_size(text: &str) -> Result<u64, UsageError> {
    let t = text.trim();
    match t.parse::<u64>() {
        Ok(n) if (1..=MAX_HUB_SERVERS).contains(&n) => Ok(n),
        _ => Err(UsageError::of(
            "hub-size",
            t,
            Problem::HubSize(MAX_HUB_SERVERS),
        )),
    }
}

#[cfg(test)]
/// Settings whose deadlines fall past 9999-12-31 ([`deadlines_fit`]): a clock near the end of
/// the calendar with 10-year culler values; a hub so large that one cull pass does not fit.
/// Both commands' usage-error tables take them.
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
            .settings(&Log::new(false, false), None)
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
