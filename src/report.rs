//! Stage 7, the Actions runtime's files: `$GITHUB_OUTPUT` (step outputs) and
//! `$GITHUB_STEP_SUMMARY` (the job summary). Outputs use the multi-line heredoc form
//! `name<<DELIM\nvalue\nDELIM` (GitHub's "Workflow commands for GitHub Actions").

pub use crate::support::log::{Log, defuse_commands, escape_data, escape_property};
pub use crate::support::secrets::secret_forms;
use anyhow::{Context, Result, bail};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Formats step outputs for `$GITHUB_OUTPUT` in the heredoc form, one block per output.
///
/// `delimiter` must be unpredictable (see [`random_delimiter`]); a value that contains it,
/// or a name that is not a plain identifier, is refused so no extra output can be forged.
pub fn format_outputs(outputs: &[(&str, String)], delimiter: &str) -> Result<String> {
    let mut text = String::new();
    for (name, value) in outputs {
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            bail!("refusing to write output {name:?}: names are letters, digits, '-' and '_'");
        }
        if value.contains(delimiter) {
            bail!("refusing to write output {name}: its value contains the heredoc delimiter");
        }
        text.push_str(&format!("{name}<<{delimiter}\n{value}\n{delimiter}\n"));
    }
    Ok(text)
}

/// A fresh heredoc delimiter: `ghadelimiter_` and 32 random hex digits.
pub fn random_delimiter() -> String {
    let bytes: [u8; 16] = rand::random();
    format!("ghadelimiter_{}", hex::encode(bytes))
}

/// The runner's file commands: `$GITHUB_OUTPUT` and `$GITHUB_STEP_SUMMARY`, each optional.
#[derive(Debug, Clone, Default)]
pub struct FileCommands {
    /// `$GITHUB_OUTPUT`: where step outputs are appended.
    pub output: Option<PathBuf>,
    /// `$GITHUB_STEP_SUMMARY`: where the job summary Markdown is appended (1 MiB per step).
    pub summary: Option<PathBuf>,
}

impl FileCommands {
    /// Reads `GITHUB_OUTPUT` and `GITHUB_STEP_SUMMARY`; empty values count as unset.
    pub fn from_env() -> Self {
        let path = |k: &str| {
            std::env::var_os(k)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        Self {
            output: path("GITHUB_OUTPUT"),
            summary: path("GITHUB_STEP_SUMMARY"),
        }
    }

    /// Appends the outputs to `$GITHUB_OUTPUT`; returns whether the file is set.
    pub fn write_outputs(&self, outputs: &[(&str, String)]) -> Result<bool> {
        let Some(path) = &self.output else {
            return Ok(false);
        };
        let text = format_outputs(outputs, &random_delimiter())?;
        append(path, &text).context("cannot write step outputs to $GITHUB_OUTPUT")?;
        Ok(true)
    }

    /// Appends Markdown to `$GITHUB_STEP_SUMMARY`; returns whether the file is set.
    /// Text beyond GitHub's 1 MiB limit per step is cut with a note.
    pub fn write_summary(&self, markdown: &str) -> Result<bool> {
        let Some(path) = &self.summary else {
            return Ok(false);
        };
        let text =
            crate::support::text::truncate_body(markdown, SUMMARY_LIMIT_BYTES, "the job log");
        append(path, &text).context("cannot write the job summary to $GITHUB_STEP_SUMMARY")?;
        Ok(true)
    }
}

/// GitHub's limit on one step's summary: 1 MiB.
pub const SUMMARY_LIMIT_BYTES: usize = 1024 * 1024;

fn append(path: &Path, text: &str) -> Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .with_context(|| format!("cannot open {}", path.display()))?;
    file.write_all(text.as_bytes())
        .with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_use_the_heredoc_form() {
        let text = format_outputs(&[("tier", "security".into())], "EOF_x").unwrap();
        assert_eq!(text, "tier<<EOF_x\nsecurity\nEOF_x\n");
    }

    #[test]
    fn a_value_holding_the_delimiter_is_refused() {
        let err = format_outputs(&[("x", "a\nEOF_x\nforged<<y".into())], "EOF_x").unwrap_err();
        assert!(err.to_string().contains("delimiter"), "{err}");
    }

    #[test]
    fn delimiters_differ_between_calls() {
        assert_ne!(random_delimiter(), random_delimiter());
    }
}
