//! The Actions runtime's files: `$GITHUB_OUTPUT` (step outputs) and
//! `$GITHUB_STEP_SUMMARY` (the job summary). Outputs use the multi-line heredoc form
//! `name<<DELIM\nvalue\nDELIM` (GitHub's "Workflow commands for GitHub Actions").

use crate::render::messages::{self, NotAFile};
use anyhow::{Context, Result, bail};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Formats step outputs for `$GITHUB_OUTPUT` in the heredoc form, one block per output.
///
/// `delimiter` must be unpredictable (see [`random_delimiter`]); a value that contains it,
/// or a name that is not a plain identifier, is refused so no extra output can be forged.
pub(crate) fn format_outputs(outputs: &[(&str, String)], delimiter: &str) -> Result<String> {
    let mut text = String::new();
    for (name, value) in outputs {
        let plain = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
        if name.is_empty() || !name.chars().all(plain) {
            bail!(messages::output_refused(name, false));
        }
        if value.contains(delimiter) {
            bail!(messages::output_refused(name, true));
        }
        text.push_str(&format!("{name}<<{delimiter}\n{value}\n{delimiter}\n"));
    }
    Ok(text)
}

/// A fresh heredoc delimiter: `ghadelimiter_` and 32 random hex digits.
pub(crate) fn random_delimiter() -> String {
    let bytes: [u8; 16] = rand::random();
    format!("ghadelimiter_{}", hex::encode(bytes))
}

/// The runner's file commands: `$GITHUB_OUTPUT` and `$GITHUB_STEP_SUMMARY`, each optional.
#[derive(Debug, Clone, Default)]
pub(crate) struct FileCommands {
    /// `$GITHUB_OUTPUT`: where step outputs are appended.
    pub(crate) output: Option<PathBuf>,
    /// `$GITHUB_STEP_SUMMARY`: where the job summary Markdown is appended (1 MiB per step).
    pub(crate) summary: Option<PathBuf>,
}

impl FileCommands {
    /// Reads `GITHUB_OUTPUT` and `GITHUB_STEP_SUMMARY`; empty values count as unset.
    pub(crate) fn from_env() -> Self {
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
    ///
    /// # Errors
    /// An output refused by [`format_outputs`] or a file that cannot be written, with
    /// [`RunnerFile::Outputs`] as the outermost context ([`failed_write`] finds it).
    pub(crate) fn write_outputs(&self, outputs: &[(&str, String)]) -> Result<bool> {
        let Some(path) = &self.output else {
            return Ok(false);
        };
        format_outputs(outputs, &random_delimiter())
            .and_then(|text| append(path, "GITHUB_OUTPUT", &text))
            .context(RunnerFile::Outputs)?;
        Ok(true)
    }

    /// Appends Markdown to `$GITHUB_STEP_SUMMARY`; returns whether the file is set.
    /// Text beyond GitHub's 1 MiB limit per step is cut with a note.
    ///
    /// # Errors
    /// A file that cannot be written, with [`RunnerFile::Summary`] as the outermost context
    /// ([`failed_write`] finds it).
    pub(crate) fn write_summary(&self, markdown: &str) -> Result<bool> {
        let Some(path) = &self.summary else {
            return Ok(false);
        };
        // GitHub's limit counts bytes, the cut counts characters: reserving each character's
        // bytes beyond its first keeps the cut text within the limit in bytes.
        let multibyte = markdown.len() - markdown.chars().count();
        let text = crate::render::truncate_body_reserving(
            markdown,
            SUMMARY_LIMIT_BYTES,
            multibyte,
            "the job log",
        );
        append(path, "GITHUB_STEP_SUMMARY", &text).context(RunnerFile::Summary)?;
        Ok(true)
    }
}

/// One of the runner's files, as the context of the error of a write to it
/// ([`FileCommands::write_outputs`], [`FileCommands::write_summary`]): a failed run's report
/// reads it back with [`failed_write`] so it does not try that file again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RunnerFile {
    /// `$GITHUB_OUTPUT`, the step outputs.
    Outputs,
    /// `$GITHUB_STEP_SUMMARY`, the job summary.
    Summary,
}

impl std::fmt::Display for RunnerFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(messages::runner_file_failed(*self == Self::Outputs))
    }
}

/// The runner file whose write `err` is, when it is one: the outermost context of an error
/// [`FileCommands::write_outputs`] or [`FileCommands::write_summary`] returned, as returned
/// (anyhow finds a context type through further contexts, not inside another error's
/// source).
pub(crate) fn failed_write(err: &anyhow::Error) -> Option<RunnerFile> {
    err.downcast_ref::<RunnerFile>().copied()
}

/// GitHub's limit on one step's summary: 1 MiB.
pub(crate) const SUMMARY_LIMIT_BYTES: usize = 1024 * 1024;

/// Appends `text` to `path`, the file `variable` names, creating it when absent.
///
/// Only a regular file or a character device (`/dev/null`; `/dev/full` fails the write) is
/// written: anything else is refused, naming `variable`, what the path is and what to do. A
/// FIFO nobody reads would block the run forever (opening it for writing waits for a
/// reader), so the path is looked at before it is opened, and opened with `O_NONBLOCK`:
/// should a FIFO take its place in between, the open fails at once (`ENXIO`) or, with a
/// reader, the opened file is looked at again and refused.
fn append(path: &Path, variable: &str, text: &str) -> Result<()> {
    use std::os::unix::fs::OpenOptionsExt as _;
    let unusable = |doing| messages::runner_file_unusable(doing, path, variable, None);
    if let Ok(meta) = std::fs::metadata(path) {
        writable(path, variable, meta.file_type())?;
    }
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .with_context(|| unusable("open"))?;
    let meta = file.metadata().with_context(|| unusable("open"))?;
    writable(path, variable, meta.file_type())?;
    file.write_all(text.as_bytes())
        .with_context(|| unusable("write"))
}

/// `Ok` for a regular file or a character device; else the refusal of `path`, named by
/// `variable`, as `kind` says what it is.
fn writable(path: &Path, variable: &str, kind: std::fs::FileType) -> Result<()> {
    use std::os::unix::fs::FileTypeExt as _;
    if kind.is_file() || kind.is_char_device() {
        return Ok(());
    }
    let not = match kind {
        k if k.is_dir() => NotAFile::Directory,
        k if k.is_fifo() => NotAFile::Fifo,
        k if k.is_socket() => NotAFile::Socket,
        k if k.is_block_device() => NotAFile::BlockDevice,
        _ => NotAFile::Other,
    };
    bail!(messages::runner_file_unusable(
        "write",
        path,
        variable,
        Some(not)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file that cannot be written says which variable names it and what to do; a
    /// directory is refused before it is opened.
    #[test]
    fn an_unwritable_runner_file_names_its_variable_and_what_to_do() {
        let dir = tempfile::tempdir().unwrap();
        let said = [Path::new("/dev/full"), dir.path()]
            .map(|path| {
                crate::render::error_words(&append(path, "GITHUB_OUTPUT", "x").unwrap_err(), true)
                    .to_string()
            })
            .join("\n")
            .replace(&dir.path().display().to_string(), "[dir]");
        insta::assert_snapshot!(said);
    }

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

    /// A failed write names its file as the outermost context, so a failed run's report
    /// knows not to try that file again; the other file is still written.
    #[test]
    fn a_failed_write_names_its_file_and_the_other_is_still_written() {
        let dir = tempfile::tempdir().unwrap();
        let summary = dir.path().join("summary");
        let files = FileCommands {
            // A directory: opening it to append fails.
            output: Some(dir.path().to_path_buf()),
            summary: Some(summary.clone()),
        };
        let err = files
            .write_outputs(&[("tier", "routine".into())])
            .unwrap_err();
        assert_eq!(failed_write(&err), Some(RunnerFile::Outputs));
        assert_eq!(
            failed_write(&err.context("more context")),
            Some(RunnerFile::Outputs)
        );
        assert!(files.write_summary("### failed\n").unwrap());
        assert_eq!(std::fs::read_to_string(&summary).unwrap(), "### failed\n");
        assert_eq!(failed_write(&anyhow::anyhow!("no write")), None);

        let files = FileCommands {
            output: None,
            summary: Some(dir.path().to_path_buf()),
        };
        let err = files.write_summary("x").unwrap_err();
        assert_eq!(failed_write(&err), Some(RunnerFile::Summary));
    }

    /// GitHub's 1 MiB limit on a step's summary is in bytes: a summary of two-byte
    /// characters over it is cut to fit in bytes, one within it is written whole.
    #[test]
    fn a_summary_is_cut_to_the_limit_in_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let summary = dir.path().join("summary");
        let files = FileCommands {
            output: None,
            summary: Some(summary.clone()),
        };
        let fits = "é".repeat(SUMMARY_LIMIT_BYTES / 2);
        let over = "é".repeat(SUMMARY_LIMIT_BYTES / 2 + 1);
        for (markdown, whole) in [(&fits, true), (&over, false)] {
            std::fs::write(&summary, "").unwrap();
            files.write_summary(markdown).unwrap();
            let written = std::fs::read_to_string(&summary).unwrap();
            assert!(
                written.len() <= SUMMARY_LIMIT_BYTES,
                "{} bytes",
                written.len()
            );
            assert_eq!(written == *markdown, whole);
            assert_eq!(written.contains("This text was cut"), !whole);
        }
    }

    #[test]
    fn delimiters_differ_between_calls() {
        assert_ne!(random_delimiter(), random_delimiter());
    }
}
