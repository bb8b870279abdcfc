//! The one bounded reader of files a user names: the deployment doc (`docs --file`), the
//! JupyterHub values files, the team's templates and the event payload (`GITHUB_EVENT_PATH`).
//!
//! Such a path may name anything: `/dev/zero` (endless), a FIFO (opening it for reading waits
//! for a writer, forever), a directory, a file far larger than any real one. Only a regular
//! file (symbolic links followed) is read, and at most `cap` bytes of it: the kind is checked
//! on the path's metadata *before* the file is opened, the file is opened without blocking
//! (`O_NONBLOCK`: should a FIFO take the path's place in between, opening it returns at once)
//! and checked again on what was opened, and the read stops one byte past `cap`
//! ([`std::io::Read::take`]), so memory stays bounded whatever the file does meanwhile.
//!
//! A file whose text is published (the team's templates) is read only from inside the
//! workspace: [`resolve_workspace`], then [`read_inside`]. The kubeconfig alone may also be
//! a pipe ([`read_piped`]), as kubectl reads `--kubeconfig <(…)`.

use std::io::{ErrorKind, Read};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Why a file was not read, as data. Its `Display` (the render layer's,
/// `crate::render::reading_words`) is a predicate for a message that names the file first
/// (`cannot read values.yaml: it is a directory`); the fix (what the user should do) is the
/// caller's, chosen by the variant.
#[derive(Debug)]
pub(crate) enum ReadError {
    /// Nothing at the path (or a symbolic link to nothing).
    NotFound,
    /// A directory.
    IsDirectory,
    /// Neither a regular file nor a directory: a FIFO, socket or device. Never opened for
    /// reading.
    NotRegular,
    /// The file (or a directory on its path) may not be read by this user.
    PermissionDenied,
    /// Longer than the cap, in bytes.
    TooLarge {
        /// The most bytes accepted.
        cap: u64,
        /// The file's length (from its metadata, or `cap + 1` when it grew while read).
        size: u64,
    },
    /// Not UTF-8 ([`read_text`] only).
    NotUtf8 {
        /// The offset of the first byte that is not UTF-8.
        valid_up_to: usize,
    },
    /// A pipe ([`read_piped`]) not read to its end within this long: nothing opened it for
    /// writing, or its writer did not close it.
    Waited(Duration),
    /// Any other I/O error, as the system gave it.
    Other(std::io::Error),
}

impl std::error::Error for ReadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ReadError::Other(e) => Some(e),
            _ => None,
        }
    }
}

impl ReadError {
    /// Test helper: every reason a file is not read, as its words' tests quote them (a 5 MB
    /// file over a 1 MiB cap, an I/O error of the system's); not a pipe's wait, which only the
    /// kubeconfig's reader has.
    #[cfg(test)]
    pub(crate) fn every() -> [ReadError; 7] {
        [
            ReadError::NotFound,
            ReadError::IsDirectory,
            ReadError::NotRegular,
            ReadError::PermissionDenied,
            ReadError::TooLarge {
                cap: 1 << 20,
                size: 5_000_000,
            },
            ReadError::NotUtf8 { valid_up_to: 12 },
            ReadError::Other(std::io::Error::other("Input/output error (os error 5)")),
        ]
    }
}

impl From<std::io::Error> for ReadError {
    fn from(e: std::io::Error) -> Self {
        match e.kind() {
            ErrorKind::NotFound => Self::NotFound,
            ErrorKind::PermissionDenied => Self::PermissionDenied,
            ErrorKind::IsADirectory => Self::IsDirectory,
            _ => Self::Other(e),
        }
    }
}

/// Refuses anything but a regular file, or (`piped`) a FIFO or character device too.
fn regular(kind: std::fs::FileType, piped: bool) -> Result<(), ReadError> {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_file() || piped && (kind.is_fifo() || kind.is_char_device()) {
        Ok(())
    } else if kind.is_dir() {
        Err(ReadError::IsDirectory)
    } else {
        Err(ReadError::NotRegular)
    }
}

/// The bytes of the regular file at `path` (symbolic links followed), at most `cap` of them.
///
/// # Errors
/// [`ReadError`]: nothing there, a directory, a FIFO, socket or device (never opened for
/// reading), no permission, longer than `cap` bytes, or another I/O error.
pub(crate) fn read_bytes(path: &Path, cap: u64) -> Result<Vec<u8>, ReadError> {
    read(path, cap, false)
}

/// [`read_bytes`], a FIFO or character device too (`/dev/fd/63`, the pipe of bash's process
/// substitution `<(…)`; kubectl reads a kubeconfig there): read until its writer closes it,
/// at most `cap` bytes. Opened and read as kubectl does: a FIFO waits for its writer
/// (`mkfifo p; sops -d cfg > p &` is not a race), and for its data until the writer closes it;
/// unlike kubectl, for at most `wait`, so a FIFO nothing writes cannot hold the run forever.
///
/// # Errors
/// Those of [`read_bytes`], a socket or directory refused; [`ReadError::Waited`] after `wait`
/// (the reading thread is left waiting: the run ends on the error).
pub(crate) fn read_piped(path: &Path, cap: u64, wait: Duration) -> Result<Vec<u8>, ReadError> {
    let (tx, rx) = std::sync::mpsc::channel();
    let path = path.to_path_buf();
    std::thread::spawn(move || tx.send(read(&path, cap, true)));
    rx.recv_timeout(wait)
        .unwrap_or(Err(ReadError::Waited(wait)))
}

/// [`read_bytes`] (`piped` false) or [`read_piped`].
fn read(path: &Path, cap: u64, piped: bool) -> Result<Vec<u8>, ReadError> {
    let metadata = std::fs::metadata(path)?;
    regular(metadata.file_type(), piped)?;
    let size = metadata.len();
    if size > cap {
        return Err(ReadError::TooLarge { cap, size });
    }
    // Anything but a pipe is opened without blocking: a path swapped for a FIFO meanwhile
    // cannot hang the run (and is refused just below).
    let blocking = if piped { 0 } else { libc::O_NONBLOCK };
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(blocking | libc::O_NOCTTY)
        .open(path)?;
    // Checked again on what was opened: the path may have changed in between.
    regular(file.metadata()?.file_type(), piped)?;
    let mut bytes = Vec::new();
    file.take(cap.saturating_add(1)).read_to_end(&mut bytes)?;
    let size = bytes.len() as u64;
    if size > cap {
        return Err(ReadError::TooLarge { cap, size });
    }
    Ok(bytes)
}

/// The text of the regular file at `path`: [`read_bytes`], then UTF-8.
///
/// # Errors
/// Those of [`read_bytes`], and [`ReadError::NotUtf8`].
pub(crate) fn read_text(path: &Path, cap: u64) -> Result<String, ReadError> {
    String::from_utf8(read_bytes(path, cap)?).map_err(|e| ReadError::NotUtf8 {
        valid_up_to: e.utf8_error().valid_up_to(),
    })
}

/// Why the workspace could not be resolved, as data (the words are the caller's).
#[derive(Debug)]
pub(crate) enum WorkspaceError {
    /// The working directory could not be read.
    WorkingDirectory(std::io::Error),
    /// `dir` has no real path (it does not exist, or may not be searched).
    Unresolved {
        /// The directory, as given.
        dir: PathBuf,
        /// Whether it came from `GITHUB_WORKSPACE` (else it is the working directory).
        from_env: bool,
        /// The system's error.
        source: std::io::Error,
    },
}

/// The workspace: `github_workspace` (the `GITHUB_WORKSPACE` variable, the repository
/// checkout in Actions) when set and not empty, else the working directory; its real path
/// (symbolic links resolved).
///
/// # Errors
/// [`WorkspaceError`]: the working directory cannot be read, or the directory has no real
/// path.
pub(crate) fn resolve_workspace(github_workspace: Option<&str>) -> Result<PathBuf, WorkspaceError> {
    let (dir, from_env) = match github_workspace.filter(|w| !w.is_empty()) {
        Some(dir) => (PathBuf::from(dir), true),
        None => (
            std::env::current_dir().map_err(WorkspaceError::WorkingDirectory)?,
            false,
        ),
    };
    dir.canonicalize()
        .map_err(|source| WorkspaceError::Unresolved {
            dir,
            from_env,
            source,
        })
}

/// Why a file inside the workspace was not read ([`read_inside`]), as data.
#[derive(Debug)]
pub(crate) enum InsideError {
    /// Its real path cannot be resolved (nothing there, or no permission on the way).
    Unresolved(std::io::Error),
    /// Its real path lies outside the workspace.
    Outside {
        /// The workspace (a real path).
        workspace: PathBuf,
        /// The file's real path.
        real: PathBuf,
    },
    /// [`read_bytes`] refused it.
    Read(ReadError),
}

/// The bytes of the file at `path` (relative to `workspace`, not to the working directory:
/// the two differ when `GITHUB_WORKSPACE` is set and the binary runs elsewhere; an absolute
/// path stays as it is), at most `cap` of them ([`read_bytes`]).
///
/// Only a file whose real path (symbolic links resolved) lies inside `workspace` (itself a
/// real path, [`resolve_workspace`]) is read: its text may be published, so a path like
/// `/etc/passwd`, `../x` or a link to `/proc/self/environ` must never be read.
///
/// # Errors
/// [`InsideError`]: no real path, outside `workspace`, or refused by [`read_bytes`].
pub(crate) fn read_inside(workspace: &Path, path: &Path, cap: u64) -> Result<Vec<u8>, InsideError> {
    let real = (workspace.join(path).canonicalize()).map_err(InsideError::Unresolved)?;
    if !real.starts_with(workspace) {
        let workspace = workspace.to_path_buf();
        return Err(InsideError::Outside { workspace, real });
    }
    read_bytes(&real, cap).map_err(InsideError::Read)
}

/// Makes a FIFO at `path` (with `mkfifo`), for tests of readers that must never open one.
#[cfg(test)]
pub(crate) fn make_fifo(path: &Path) {
    let made = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(made.success(), "mkfifo {}", path.display());
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;
    use std::time::Duration;

    /// [`read_text`] on a thread: a FIFO opened for reading would block it, so when it has
    /// not answered within 30 s the test opens the FIFO's other end (which lets the read
    /// return) and fails.
    fn read_bounded(path: PathBuf, cap: u64) -> Result<String, ReadError> {
        let (tx, rx) = std::sync::mpsc::channel();
        let target = path.clone();
        let reader = std::thread::spawn(move || tx.send(read_text(&target, cap)));
        match rx.recv_timeout(Duration::from_secs(30)) {
            Ok(result) => {
                reader.join().unwrap().unwrap();
                result
            }
            Err(_) => {
                let _ = std::fs::OpenOptions::new().write(true).open(&path);
                let _ = reader.join();
                panic!("reading {} did not return within 30 s", path.display());
            }
        }
    }

    #[test]
    fn only_a_regular_utf8_file_within_the_cap_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let file = |name: &str, bytes: &[u8]| {
            let p = dir.path().join(name);
            std::fs::write(&p, bytes).unwrap();
            p
        };
        let ok = file("ok.md", "héllo\n".as_bytes());
        let at_cap = file("at-cap.md", &[b'a'; 16]);
        let over = file("over.md", &[b'a'; 17]);
        let latin1 = file("latin1.md", b"caf\xe9");
        let fifo = dir.path().join("fifo.md");
        make_fifo(&fifo);
        let link = dir.path().join("link.md");
        std::os::unix::fs::symlink(&ok, &link).unwrap();
        let dangling = dir.path().join("dangling.md");
        std::os::unix::fs::symlink(dir.path().join("gone"), &dangling).unwrap();

        assert_eq!(read_bounded(ok, 16).unwrap(), "héllo\n");
        assert_eq!(read_bounded(at_cap, 16).unwrap(), "a".repeat(16));
        assert_eq!(read_bounded(link, 16).unwrap(), "héllo\n");
        // Each refused path, then the error it gives (its `Debug`: variant and data).
        let refused = [
            (over, "TooLarge { cap: 16, size: 17 }"),
            (dir.path().to_path_buf(), "IsDirectory"),
            (fifo, "NotRegular"),
            ("/dev/zero".into(), "NotRegular"),
            (dir.path().join("missing.md"), "NotFound"),
            (dangling, "NotFound"),
            (latin1, "NotUtf8 { valid_up_to: 3 }"),
        ];
        for (path, expected) in refused {
            let err = read_bounded(path.clone(), 16).unwrap_err();
            assert_eq!(format!("{err:?}"), expected, "{}", path.display());
        }
    }

    /// A pipe (the kubeconfig's `<(…)`, a FIFO) waits for its writer, is read until the writer
    /// closes it, and is bounded.
    #[test]
    fn a_pipe_is_read_until_its_writer_closes_it_within_the_cap() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        make_fifo(&fifo);
        // The reader starts first and waits for a writer (opening a FIFO for writing waits
        // for its reader in turn), then for the data until the writer closes it.
        let target = fifo.clone();
        let wait = Duration::from_secs(30);
        let reader = std::thread::spawn(move || read_piped(&target, 16, wait));
        let mut writer = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
        std::io::Write::write_all(&mut writer, b"kind: ").unwrap();
        std::io::Write::write_all(&mut writer, b"Config\n").unwrap();
        drop(writer);
        assert_eq!(reader.join().unwrap().unwrap(), b"kind: Config\n");
        let refused = [
            ("/dev/zero".into(), "TooLarge { cap: 16, size: 17 }"),
            (dir.path().to_path_buf(), "IsDirectory"),
        ];
        for (path, expected) in refused {
            let err = read_piped(&path, 16, wait).unwrap_err();
            assert_eq!(format!("{err:?}"), expected, "{}", path.display());
        }
        // Nothing opens it for writing: refused after the wait; then its reader is let go.
        let err = read_piped(&fifo, 16, Duration::from_millis(50)).unwrap_err();
        assert_eq!(format!("{err:?}"), "Waited(50ms)");
        let mut writer = std::fs::OpenOptions::new();
        let _ = writer
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&fifo);
    }

    #[test]
    fn only_a_file_whose_real_path_is_inside_the_workspace_is_read() {
        let outside = tempfile::tempdir().unwrap();
        let secret = outside.path().join("secret");
        std::fs::write(&secret, b"s").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let workspace = resolve_workspace(dir.path().to_str()).unwrap();
        std::fs::write(workspace.join("note.md"), b"note").unwrap();
        std::fs::create_dir(workspace.join("sub")).unwrap();
        std::os::unix::fs::symlink(&secret, workspace.join("link.md")).unwrap();
        let read = |path: &Path| read_inside(&workspace, path, 16);
        assert_eq!(read(Path::new("note.md")).unwrap(), b"note");
        assert_eq!(read(Path::new("sub/../note.md")).unwrap(), b"note");
        assert_eq!(read(&workspace.join("note.md")).unwrap(), b"note");
        let real_secret = secret.canonicalize().unwrap();
        for path in [Path::new("link.md"), &secret] {
            let err = read(path).unwrap_err();
            let InsideError::Outside { workspace: w, real } = err else {
                panic!("{}: {err:?}", path.display());
            };
            assert_eq!((w, real), (workspace.clone(), real_secret.clone()));
        }
        assert!(matches!(
            read(Path::new("gone.md")),
            Err(InsideError::Unresolved(_))
        ));
        assert!(matches!(
            read(Path::new("sub")),
            Err(InsideError::Read(ReadError::IsDirectory))
        ));
    }

    #[test]
    fn the_workspace_is_github_workspace_when_set_else_the_working_directory() {
        let cwd = std::env::current_dir().unwrap().canonicalize().unwrap();
        assert_eq!(resolve_workspace(None).unwrap(), cwd);
        assert_eq!(resolve_workspace(Some("")).unwrap(), cwd);
        let err = resolve_workspace(Some("/nonexistent/workspace")).unwrap_err();
        let WorkspaceError::Unresolved { dir, from_env, .. } = err else {
            panic!("{err:?}");
        };
        assert_eq!(
            (dir, from_env),
            (PathBuf::from("/nonexistent/workspace"), true)
        );
    }

    #[test]
    fn bytes_are_read_as_they_are() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("event.json");
        std::fs::write(&p, b"{\xff}").unwrap();
        assert_eq!(read_bytes(&p, 3).unwrap(), b"{\xff}");
        assert!(matches!(
            read_bytes(&p, 2),
            Err(ReadError::TooLarge { cap: 2, size: 3 })
        ));
    }

    #[test]
    fn io_errors_are_sorted_by_kind() {
        let kind = |k: ErrorKind| ReadError::from(std::io::Error::from(k));
        assert!(matches!(kind(ErrorKind::NotFound), ReadError::NotFound));
        assert!(matches!(
            kind(ErrorKind::PermissionDenied),
            ReadError::PermissionDenied
        ));
        assert!(matches!(
            kind(ErrorKind::IsADirectory),
            ReadError::IsDirectory
        ));
        assert!(matches!(kind(ErrorKind::Interrupted), ReadError::Other(_)));
    }
}
