//! The container contract. The runtime image is built offline as release.yml builds it
//! (`scripts/build-image`: the release binary, the shared libraries it needs and the CA
//! bundle on `scratch`, with buildah), pushed to a real registry, and a copy of action.yml
//! is pinned to its digest by `scripts/pin-image`. The pinned image is then run the way the
//! Actions runner runs a Docker action (`docker run --workdir /github/workspace` with the
//! workspace, the file-command directory, the event file and the home directory mounted,
//! `INPUT_*` for every input with a value, `GITHUB_*`, the image's entrypoint and the `args`
//! of action.yml), against the real registry and the fake GitHub.
//!
//! What this needs, and why:
//! - **root**: buildah (vfs storage driver, chroot isolation; no daemon) mounts and chroots.
//!   CI runs scripts/test.sh as root for this (`sudo`), as this machine does.
//! - **buildah, skopeo, docker-registry**: scripts/test.sh installs them (Debian packages).
//! - **the release binary**: the image holds the binary users get, so the first container
//!   test runs `cargo build --release --locked` (a no-op when it is fresh: scripts/test.sh
//!   builds it before the tests, once per CI run).
//!
//! The image is built once per test run, into `target/container-test/image` (an OCI layout,
//! build output like `target/release`). Every test has its own buildah storage in a temp dir;
//! its containers and images are removed and the directory deleted when the test ends, also
//! when it fails (drop guards), and the registries it starts are stopped.

use crate::common::*;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;
use tempfile::TempDir;

/// The repository the tests push the image to, in the test registry.
const REPOSITORY: &str = "codeq-rollout";
/// The tag of the built image, in its OCI layout and in the test registry.
const TAG: &str = "v0-test";
/// The bound for the compressed image, per architecture (bytes a job pulls), as
/// [`IMAGE_PAGE`] states it (issue 23: the Kubernetes client must not cost the Action its
/// start time).
const SIZE_GOAL: u64 = 5_000_000;
/// The page that states the image's sizes and the binary's glibc floor.
const IMAGE_PAGE: &str = "docs/container-image.md";
/// What the runner passes for `${{ github.token }}`.
const TOKEN_EXPRESSION: &str = "${{ github.token }}";

// ---------------------------------------------------------------------------------------------
// scripts/pin-image

/// `sha256:` and 64 lowercase hex digits.
fn good_digest(c: char) -> String {
    format!("sha256:{}", c.to_string().repeat(64))
}

/// Runs `scripts/pin-image ARGS` in `dir`.
fn pin_image(dir: &Path, args: &[&str]) -> Output {
    Command::new(repo_root().join("scripts/pin-image"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run scripts/pin-image (python3)")
}

/// `dir` holds `files` entries: pin-image left no temp file behind.
fn assert_no_temp_file(dir: &Path, files: usize) {
    assert_eq!(
        std::fs::read_dir(dir).unwrap().count(),
        files,
        "no temp file left behind"
    );
}

/// A temp dir holding a copy of the repository's action.yml.
fn action_copy() -> (TempDir, PathBuf, String) {
    let dir = tempfile::tempdir().unwrap();
    let original = std::fs::read_to_string(repo_root().join("action.yml")).unwrap();
    let path = dir.path().join("action.yml");
    std::fs::write(&path, &original).unwrap();
    (dir, path, original)
}

#[test]
fn pin_image_rewrites_only_the_runs_image_line() {
    let (dir, path, original) = action_copy();
    assert!(
        original.contains("\n  image: Dockerfile\n"),
        "main's action.yml builds the Dockerfile"
    );
    let digest = good_digest('a');
    let out = pin_image(dir.path(), &[&digest]);
    assert!(out.status.success(), "{out:?}");
    let pinned = std::fs::read_to_string(&path).unwrap();
    let expected = original.replace(
        "\n  image: Dockerfile\n",
        &format!("\n  image: docker://ghcr.io/octo-org/codeq-rollout@{digest}\n"),
    );
    assert_eq!(pinned, expected);

    // Again with another digest and repository: the pin moves, nothing else does.
    let digest = good_digest('0');
    let out = pin_image(
        dir.path(),
        &[&digest, "--repository", "127.0.0.1:5000/codeq-rollout"],
    );
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        original.replace(
            "\n  image: Dockerfile\n",
            &format!("\n  image: docker://127.0.0.1:5000/codeq-rollout@{digest}\n"),
        )
    );
}

#[test]
fn pin_image_refuses_anything_but_a_sha256_digest_and_leaves_the_file_alone() {
    let (dir, path, original) = action_copy();
    let hex = "a".repeat(64);
    let bad_digests = [
        String::new(),
        hex.clone(),
        format!("sha256:{}", hex.to_uppercase()),
        format!("sha256:{}", &hex[..63]),
        format!("sha256:{hex}a"),
        format!("sha512:{hex}{hex}"),
        format!("sha256:{}g", &hex[..63]),
        format!("sha256:{hex}\n"),
        format!(" sha256:{hex}"),
        format!("sha256:{hex}\n  args: [evil]"),
        format!("sha256:{hex} # comment"),
        format!("ghcr.io/octo-org/codeq-rollout@sha256:{hex}"),
        "latest".to_string(),
    ];
    for digest in &bad_digests {
        let out = pin_image(dir.path(), &[digest]);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{digest:?} was not refused: {out:?}"
        );
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("refusing digest"),
            "{digest:?}: {out:?}"
        );
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            original,
            "{digest:?}"
        );
    }
    let good = good_digest('b');
    for repository in [
        "ghcr.io/octo-org/codeq-rollout:v1",
        "ghcr.io/octo-org/codeq-rollout@sha256:00",
        "docker://ghcr.io/octo-org/codeq-rollout",
        "GHCR.io/Octo-Org/codeq-rollout",
        "ghcr.io/octo-org/codeq rollout",
        "",
    ] {
        let out = pin_image(dir.path(), &[&good, "--repository", repository]);
        assert_eq!(out.status.code(), Some(2), "{repository:?}: {out:?}");
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            original,
            "{repository:?}"
        );
    }
    // A file without exactly one `image:` under `runs:` is refused, and stays as it was.
    for broken in [
        original.replace("\n  image: Dockerfile\n", "\n"),
        original.replace(
            "\n  image: Dockerfile\n",
            "\n  image: Dockerfile\n  image: Dockerfile\n",
        ),
        original.replace("\nruns:\n", "\nrun:\n"),
    ] {
        std::fs::write(&path, &broken).unwrap();
        let out = pin_image(dir.path(), &[&good]);
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), broken);
    }
    assert_no_temp_file(dir.path(), 1);
}

/// The action.yml of these cases: `runs:` with `IMAGE` standing for the `image:` line(s).
fn runs_block(image: &str) -> String {
    format!("name: x\ndescription: y\nruns:\n  using: docker\n{image}  args:\n    - announce\n")
}

#[test]
fn pin_image_skips_comments_and_keeps_the_rest_of_the_runs_block() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("action.yml");
    let digest = good_digest('c');
    let reference = format!("docker://ghcr.io/octo-org/codeq-rollout@{digest}");
    for (before, after) in [
        // A comment after `runs:`, a comment at column 0 inside the block, a comment after
        // the value: the block is still found, and only the `image:` line changes.
        (
            "name: x\nruns: # the container\n  using: docker\n# built on main\n  image: Dockerfile # main\n  args:\n    - announce\n",
            format!(
                "name: x\nruns: # the container\n  using: docker\n# built on main\n  image: {reference}\n  args:\n    - announce\n"
            ),
        ),
        // CRLF line ends stay CRLF.
        (
            "name: x\r\nruns:\r\n  using: docker\r\n  image: Dockerfile\r\n",
            format!("name: x\r\nruns:\r\n  using: docker\r\n  image: {reference}\r\n"),
        ),
    ] {
        std::fs::write(&path, before).unwrap();
        let out = pin_image(dir.path(), &[&digest]);
        assert!(out.status.success(), "{before:?}: {out:?}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), after);
    }
}

#[test]
fn pin_image_refuses_values_it_cannot_rewrite_safely_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("action.yml");
    let digest = good_digest('d');
    let why = "a multi-line, block, quoted, anchored or tagged value is not rewritten";
    let cases = [
        (
            runs_block("  image: >-\n    Dockerfile\n"),
            format!(
                "line 5: `image:` must have a plain one-line value on the same line (found '>-': {why})"
            ),
        ),
        (
            runs_block("  image: |\n    Dockerfile\n"),
            format!(
                "line 5: `image:` must have a plain one-line value on the same line (found '|': {why})"
            ),
        ),
        (
            runs_block("  image:\n    Dockerfile\n"),
            format!(
                "line 5: `image:` must have a plain one-line value on the same line (found nothing: {why})"
            ),
        ),
        (
            runs_block("  image: Docker\n    file\n"),
            "line 6: `image:` continues on the next line; give it a one-line value".to_string(),
        ),
        (
            runs_block("  image: &img Dockerfile\n"),
            format!(
                "line 5: `image:` must have a plain one-line value on the same line (found '&img Dockerfile': {why})"
            ),
        ),
        (
            runs_block("  image: \"Dockerfile\"\n"),
            format!(
                "line 5: `image:` must have a plain one-line value on the same line (found '\"Dockerfile\"': {why})"
            ),
        ),
        (
            runs_block("  image: !!str Dockerfile\n"),
            format!(
                "line 5: `image:` must have a plain one-line value on the same line (found '!!str Dockerfile': {why})"
            ),
        ),
    ];
    for (broken, message) in &cases {
        std::fs::write(&path, broken).unwrap();
        let out = pin_image(dir.path(), &[&digest]);
        assert_eq!(out.status.code(), Some(1), "{broken:?}: {out:?}");
        assert_eq!(
            String::from_utf8(out.stderr).unwrap(),
            format!("pin-image: action.yml: {message}; nothing changed\n"),
            "{broken:?}"
        );
        assert!(out.stdout.is_empty());
        assert_eq!(&std::fs::read_to_string(&path).unwrap(), broken);
    }
    assert_no_temp_file(dir.path(), 1);
}

#[test]
fn pin_image_refuses_files_it_must_not_or_cannot_write_without_a_traceback() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("action.yml");
    let digest = good_digest('e');
    let good = runs_block("  image: Dockerfile\n");
    let run = |args: &[&str]| {
        let out = pin_image(dir.path(), args);
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        assert!(out.stdout.is_empty(), "{out:?}");
        String::from_utf8(out.stderr).unwrap()
    };

    // Not UTF-8.
    let latin1 = b"name: x\nruns:\n  using: docker\n  image: D\xf6ckerfile\n";
    std::fs::write(&path, latin1).unwrap();
    assert_eq!(
        run(&[&digest]),
        "pin-image: cannot read action.yml: not UTF-8 (at byte offset 40); nothing changed\n"
    );
    assert_eq!(std::fs::read(&path).unwrap(), latin1);

    // Read-only: refused even by root, who could write it.
    std::fs::write(&path, &good).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
    assert_eq!(
        run(&[&digest]),
        "pin-image: refusing action.yml: it is read-only (mode 444); make it writable first\n"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), good);
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();

    // A directory it cannot write the replacement into.
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o555)).unwrap();
    let stderr = run(&[&digest]);
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(
        stderr,
        format!(
            "pin-image: cannot write to {} (mode 555): the file is replaced by a rename there; nothing changed\n",
            dir.path().canonicalize().unwrap().display()
        )
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), good);

    // A symbolic link: refused, the link and its target left alone.
    let link = dir.path().join("link.yml");
    std::os::unix::fs::symlink("action.yml", &link).unwrap();
    assert_eq!(
        run(&[&digest, "--file", "link.yml"]),
        format!(
            "pin-image: refusing link.yml: it is a symbolic link; give the file itself (--file {})\n",
            path.canonicalize().unwrap().display()
        )
    );
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), good);

    // A file that is not there.
    assert_eq!(
        run(&[&digest, "--file", "missing.yml"]),
        "pin-image: cannot read missing.yml: No such file or directory\n"
    );
    assert_no_temp_file(dir.path(), 2);
}

#[test]
fn image_rootfs_refuses_a_dir_that_is_a_file_or_not_empty_and_leaves_it_alone() {
    let dir = tempfile::tempdir().unwrap();
    let binary = std::env::current_exe().unwrap();
    let file = dir.path().join("rootfs");
    std::fs::write(&file, "a file").unwrap();
    let full = dir.path().join("full");
    std::fs::create_dir(&full).unwrap();
    std::fs::write(full.join("x"), "").unwrap();
    for (root, message) in [
        (&file, "exists and is not a directory; give a new directory"),
        (&full, "is not empty; give a new directory"),
    ] {
        let out = Command::new(repo_root().join("scripts/image-rootfs"))
            .arg(&binary)
            .arg(root)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        assert_eq!(
            String::from_utf8(out.stderr).unwrap(),
            format!("image-rootfs: {} {message}\n", root.display())
        );
    }
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "a file");
    assert_eq!(std::fs::read_dir(&full).unwrap().count(), 1);
}

// ---------------------------------------------------------------------------------------------
// The image, built once per test run.

/// The runtime image as an OCI layout, and what the tests read from it.
struct Image {
    /// `oci:` layout directory holding the image under [`TAG`].
    layout: PathBuf,
    /// The release binary it was built from.
    binary: PathBuf,
    /// The image manifest.
    manifest: Value,
    /// The image configuration.
    config: Value,
    /// Paths of the regular files in its layers (no leading `/`).
    files: BTreeSet<String>,
}

impl Image {
    /// The entrypoint the image's configuration names.
    fn entrypoint(&self) -> Vec<String> {
        serde_json::from_value(self.config["config"]["Entrypoint"].clone())
            .expect("the image has an entrypoint")
    }

    /// The digest of its image manifest.
    fn manifest_digest(&self) -> String {
        use sha2::Digest as _;
        let index: Value =
            serde_json::from_slice(&std::fs::read(self.layout.join("index.json")).unwrap())
                .unwrap();
        let digest = index["manifests"][0]["digest"]
            .as_str()
            .unwrap()
            .to_string();
        let bytes = std::fs::read(
            self.layout
                .join("blobs/sha256")
                .join(&digest["sha256:".len()..]),
        )
        .unwrap();
        assert_eq!(
            digest,
            format!("sha256:{}", hex::encode(sha2::Sha256::digest(&bytes)))
        );
        digest
    }

    /// The bytes a pull moves: manifest, configuration and compressed layers.
    fn compressed_size(&self) -> u64 {
        let manifest = serde_json::to_vec(&self.manifest).unwrap().len() as u64;
        let blobs: u64 = std::iter::once(&self.manifest["config"])
            .chain(self.manifest["layers"].as_array().unwrap())
            .map(|d| d["size"].as_u64().unwrap())
            .sum();
        manifest + blobs
    }
}

/// The image, built on first use (see the module doc).
fn image() -> &'static Image {
    static IMAGE: OnceLock<Image> = OnceLock::new();
    IMAGE.get_or_init(|| {
        let binary = release_binary();
        let dir = target_dir().join("container-test");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let layout = dir.join("image");
        build_image(&binary, &layout);
        read_layout(&layout, &binary)
    })
}

/// `target/` (or wherever cargo builds: the test binary's grandparent).
fn target_dir() -> PathBuf {
    binary()
        .parent()
        .and_then(Path::parent)
        .expect("the binary lives in target/<profile>/")
        .to_path_buf()
}

/// Checks what the container tests need, then builds the release binary (a no-op when fresh).
fn release_binary() -> PathBuf {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let uid = status
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|ids| ids.split_whitespace().nth(1).map(str::to_string));
    assert_eq!(
        uid.as_deref(),
        Some("0"),
        "the container tests run buildah (vfs storage, chroot isolation), which needs root: \
         run the tests as root (CI runs scripts/test.sh with sudo)"
    );
    for (tool, package) in [("buildah", "buildah"), ("skopeo", "skopeo")] {
        let found = Command::new(tool).arg("--version").output();
        assert!(
            found.is_ok_and(|o| o.status.success()),
            "{tool} is missing: apt-get install {package} (scripts/test.sh does)"
        );
    }
    // Without the variables cargo sets for a test process: build scripts that watch one
    // (ring's watches CARGO_MANIFEST_DIR) would make this build differ from the one
    // scripts/test.sh ran, and rebuild the whole release profile twice per run.
    let mut cargo = Command::new(env!("CARGO"));
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy();
        if name.starts_with("CARGO_PKG_")
            || name.starts_with("CARGO_BIN_EXE_")
            || [
                "CARGO_MANIFEST_DIR",
                "CARGO_MANIFEST_PATH",
                "CARGO_CRATE_NAME",
                "CARGO_PRIMARY_PACKAGE",
                "CARGO_TARGET_TMPDIR",
            ]
            .contains(&name.as_ref())
        {
            cargo.env_remove(name.as_ref());
        }
    }
    let out = cargo
        .args([
            "build",
            "--release",
            "--locked",
            "--quiet",
            "--bin",
            "codeq-rollout",
        ])
        .current_dir(repo_root())
        .output()
        .expect("run cargo build --release");
    assert!(
        out.status.success(),
        "cargo build --release --locked failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let binary = target_dir().join("release/codeq-rollout");
    assert!(binary.is_file(), "{} is missing", binary.display());
    binary
}

/// `scripts/build-image BINARY oci:LAYOUT:TAG` in a storage of its own.
fn build_image(binary: &Path, layout: &Path) {
    let buildah = Buildah::new();
    let out = buildah
        .command(repo_root().join("scripts/build-image"))
        .arg(binary)
        .arg(format!("oci:{}:{TAG}", layout.display()))
        .output()
        .expect("run scripts/build-image");
    assert!(
        out.status.success(),
        "scripts/build-image failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        buildah.names("containers").is_empty(),
        "scripts/build-image left its working container behind"
    );
}

fn read_layout(layout: &Path, binary: &Path) -> Image {
    let blob = |digest: &str| {
        layout
            .join("blobs/sha256")
            .join(digest.strip_prefix("sha256:").expect("a sha256 digest"))
    };
    let json = |path: PathBuf| -> Value {
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap()
    };
    let index = json(layout.join("index.json"));
    let manifests = index["manifests"].as_array().unwrap();
    assert_eq!(manifests.len(), 1, "{index}");
    let manifest = json(blob(manifests[0]["digest"].as_str().unwrap()));
    let config = json(blob(manifest["config"]["digest"].as_str().unwrap()));
    let mut files = BTreeSet::new();
    for layer in manifest["layers"].as_array().unwrap() {
        assert_eq!(
            layer["mediaType"],
            json!("application/vnd.oci.image.layer.v1.tar+gzip"),
            "layers are compressed"
        );
        let out = Command::new("tar")
            .arg("-tvzf")
            .arg(blob(layer["digest"].as_str().unwrap()))
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        for line in String::from_utf8(out.stdout).unwrap().lines() {
            // `-rwxr-xr-x 0/0 5874120 1970-01-01 00:00 usr/local/bin/codeq-rollout`
            let fields: Vec<&str> = line.split_whitespace().collect();
            assert_eq!(fields[1], "0/0", "owned by root: {line}");
            if fields[0].starts_with('-') {
                files.insert(fields[5..].join(" ").trim_start_matches("./").to_string());
            }
        }
    }
    Image {
        layout: layout.to_path_buf(),
        binary: binary.to_path_buf(),
        manifest,
        config,
        files,
    }
}

// ---------------------------------------------------------------------------------------------
// buildah, with a storage of its own.

/// A buildah storage root in a temp dir (vfs driver). On drop its containers and images are
/// removed and the directory deleted.
struct Buildah {
    dir: TempDir,
}

impl Buildah {
    fn new() -> Self {
        let dir = tempfile::Builder::new()
            .prefix("codeq-buildah-")
            .tempdir()
            .unwrap();
        std::fs::create_dir(dir.path().join("tmp")).unwrap();
        std::fs::write(
            dir.path().join("storage.conf"),
            format!(
                "[storage]\ndriver = \"vfs\"\ngraphroot = \"{0}/root\"\nrunroot = \"{0}/run\"\n",
                dir.path().display()
            ),
        )
        .unwrap();
        Self { dir }
    }

    /// A command (buildah, or a script that calls it) using this storage.
    fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut cmd = Command::new(program);
        cmd.env(
            "CONTAINERS_STORAGE_CONF",
            self.dir.path().join("storage.conf"),
        )
        .env("BUILDAH_ISOLATION", "chroot")
        .env("TMPDIR", self.dir.path().join("tmp"));
        cmd
    }

    /// Runs buildah with `args`; panics with its output unless it succeeds.
    fn buildah(&self, args: &[&str]) -> String {
        let out = self.command("buildah").args(args).output().unwrap();
        assert!(
            out.status.success(),
            "buildah {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    /// Names or IDs of the containers or images (`kind`) in this storage.
    fn names(&self, kind: &str) -> Vec<String> {
        self.buildah(&[kind, "--quiet"])
            .lines()
            .map(str::to_string)
            .collect()
    }

    /// A working container from `reference` (pulled from the insecure test registry).
    fn from(&self, reference: &str) -> WorkingContainer<'_> {
        let name = self.buildah(&[
            "from",
            "--quiet",
            "--tls-verify=false",
            "--pull",
            &format!("docker://{reference}"),
        ]);
        WorkingContainer {
            buildah: self,
            name: name.trim().to_string(),
        }
    }
}

impl Drop for Buildah {
    fn drop(&mut self) {
        for args in [&["rm", "--all"][..], &["rmi", "--all", "--force"][..]] {
            let _ = self.command("buildah").args(args).output();
        }
    }
}

/// A buildah working container, removed on drop.
struct WorkingContainer<'a> {
    buildah: &'a Buildah,
    name: String,
}

impl Drop for WorkingContainer<'_> {
    fn drop(&mut self) {
        let _ = self
            .buildah
            .command("buildah")
            .args(["rm", &self.name])
            .output();
    }
}

// ---------------------------------------------------------------------------------------------
// The registry and the pinned action.yml.

/// Pushes the image to `registry` as release.yml does: the image by digest, then an image
/// index naming it (for this machine's platform), tagged `codeq-rollout:TAG`. Returns the
/// index digest, the digest a release pins.
fn push(registry: &Registry, buildah: &Buildah, image: &Image) -> String {
    let repository = registry.reference(REPOSITORY);
    let manifest = image.manifest_digest();
    let out = Command::new("skopeo")
        .args([
            "copy",
            "--quiet",
            "--dest-tls-verify=false",
            "--preserve-digests",
        ])
        .arg(format!("oci:{}:{TAG}", image.layout.display()))
        .arg(format!("docker://{repository}@{manifest}"))
        .output()
        .unwrap();
    assert!(out.status.success(), "skopeo copy: {out:?}");

    let digest_file = buildah.dir.path().join("index-digest");
    let index = "localhost/codeq-rollout-index".to_string();
    buildah.buildah(&["manifest", "create", &index]);
    buildah.buildah(&[
        "manifest",
        "add",
        "--tls-verify=false",
        &index,
        &format!("docker://{repository}@{manifest}"),
    ]);
    buildah.buildah(&[
        "manifest",
        "push",
        "--tls-verify=false",
        "--format",
        "oci",
        "--digestfile",
        &digest_file.display().to_string(),
        &index,
        &format!("docker://{repository}:{TAG}"),
    ]);
    let digest = std::fs::read_to_string(&digest_file).unwrap();
    assert_eq!(
        registry.raw_manifest_digest(&format!("{REPOSITORY}:{TAG}"), &[]),
        digest,
        "the registry serves the index that was pushed"
    );
    assert_ne!(digest, manifest, "the tag names the index, not the image");
    digest
}

/// action.yml as the runner reads it: inputs with their defaults, `runs`.
struct Action {
    /// `(name, default)` of every input.
    inputs: Vec<(String, Option<String>)>,
    /// `runs.image`.
    image: String,
    /// `runs.args`.
    args: Vec<String>,
}

/// A copy of action.yml pinned by `scripts/pin-image` to `digest` in `registry`.
/// The image in a fresh registry, and a copy of action.yml pinned to its digest.
struct Pushed {
    registry: Registry,
    buildah: Buildah,
    digest: String,
    action: Action,
}

/// Pushes `image` to a fresh registry with buildah's tools and pins a copy of action.yml to
/// the digest it got there.
fn pushed_and_pinned(image: &Image) -> Pushed {
    let registry = Registry::start();
    let buildah = Buildah::new();
    let digest = push(&registry, &buildah, image);
    let action = pinned_action(&registry, &digest);
    Pushed {
        registry,
        buildah,
        digest,
        action,
    }
}

fn pinned_action(registry: &Registry, digest: &str) -> Action {
    let (dir, path, _) = action_copy();
    let repository = format!("{}/{REPOSITORY}", registry.addr);
    let out = pin_image(dir.path(), &[digest, "--repository", &repository]);
    assert!(out.status.success(), "{out:?}");
    let yaml: Value = serde_saphyr::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let inputs: Vec<(String, Option<String>)> = yaml["inputs"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(name, input)| {
            let default = match &input["default"] {
                Value::Null => None,
                Value::String(s) => Some(s.clone()),
                other => Some(other.to_string()),
            };
            (name.clone(), default)
        })
        .collect();
    let args: Vec<String> = serde_json::from_value(yaml["runs"]["args"].clone()).unwrap();
    let args = args.iter().map(|a| evaluated(a, &inputs)).collect();
    Action {
        inputs,
        image: yaml["runs"]["image"].as_str().unwrap().to_string(),
        args,
    }
}

/// `arg` as the runner passes it: a `${{ inputs.NAME }}` expression becomes the input's
/// value. The steps here never set the input in `with:`, so that is its default.
fn evaluated(arg: &str, inputs: &[(String, Option<String>)]) -> String {
    let Some(name) = arg
        .strip_prefix("${{")
        .and_then(|rest| rest.strip_suffix("}}"))
        .and_then(|expr| expr.trim().strip_prefix("inputs."))
    else {
        return arg.to_string();
    };
    inputs
        .iter()
        .find(|(input, _)| input == name)
        .and_then(|(_, default)| default.clone())
        .unwrap_or_default()
}

// ---------------------------------------------------------------------------------------------
// One job step, run by the runner's rules on the host or in the container.

/// What a step is given: the event, the `with:` inputs, the fake GitHub's API base.
struct Step {
    event_name: &'static str,
    payload: Value,
    with: BTreeMap<String, String>,
    api_url: String,
    /// Files in the checked-out workspace (path relative to it, content).
    workspace_files: Vec<(&'static str, &'static str)>,
}

/// The runner's directories for one step, in a temp dir.
struct RunnerDirs {
    dir: TempDir,
}

impl RunnerDirs {
    fn new(step: &Step) -> Self {
        let dir = tempfile::tempdir().unwrap();
        for sub in ["workspace", "file_commands", "workflow", "home"] {
            std::fs::create_dir(dir.path().join(sub)).unwrap();
        }
        std::fs::write(
            dir.path().join("workflow/event.json"),
            serde_json::to_vec(&step.payload).unwrap(),
        )
        .unwrap();
        for (path, content) in &step.workspace_files {
            let full = dir.path().join("workspace").join(path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(full, content).unwrap();
        }
        Self { dir }
    }

    /// The host path of a runner directory (`workspace`, `file_commands`, ...).
    fn host(&self, sub: &str) -> PathBuf {
        self.dir.path().join(sub)
    }

    /// The environment the runner gives the step, with the runner directories at `root`
    /// (`/github` in the container, the temp dir on the host).
    fn env(&self, step: &Step, action: &Action, root: &str) -> BTreeMap<String, String> {
        let mut env = BTreeMap::new();
        // Every input with a value: `with:`, else the default (expressions evaluated).
        for (name, default) in &action.inputs {
            let value = step.with.get(name).cloned().or_else(|| {
                default
                    .as_deref()
                    .map(|d| d.replace(TOKEN_EXPRESSION, TOKEN))
            });
            if let Some(value) = value {
                env.insert(format!("INPUT_{}", name.to_uppercase()), value);
            }
        }
        for unknown in step.with.keys() {
            assert!(
                action.inputs.iter().any(|(n, _)| n == unknown),
                "no input {unknown}"
            );
        }
        for (k, v) in [
            ("CI", "true"),
            ("HOME", &format!("{root}/home")),
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_ACTOR", "octocat"),
            ("GITHUB_REPOSITORY", &format!("{OWNER}/{REPO}")),
            ("GITHUB_SHA", SHA),
            ("GITHUB_REF", "refs/heads/main"),
            ("GITHUB_EVENT_NAME", step.event_name),
            ("GITHUB_EVENT_PATH", &format!("{root}/workflow/event.json")),
            ("GITHUB_WORKSPACE", &format!("{root}/workspace")),
            ("GITHUB_API_URL", &step.api_url),
            ("GITHUB_SERVER_URL", SERVER_URL),
            ("GITHUB_RUN_ID", "4242"),
            ("GITHUB_RUN_ATTEMPT", "1"),
            (
                "GITHUB_OUTPUT",
                &format!("{root}/file_commands/set_output_1"),
            ),
            (
                "GITHUB_STEP_SUMMARY",
                &format!("{root}/file_commands/step_summary_1"),
            ),
            ("RUNNER_OS", "Linux"),
            ("RUNNER_ARCH", "X64"),
        ] {
            env.insert(k.to_string(), v.to_string());
        }
        env
    }

    fn ran(&self, out: Output) -> Outcome {
        let read = |name: &str| {
            std::fs::read_to_string(self.host("file_commands").join(name)).unwrap_or_default()
        };
        let outputs_raw = read("set_output_1");
        Outcome {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            outputs: parse_outputs(&outputs_raw),
            outputs_raw,
            summary: read("step_summary_1"),
        }
    }
}

/// The test clock, appended to action.yml's `args` on the host and in the container alike, so
/// that the two runs' release notes match to the byte (the only argument the runner would
/// not pass).
fn clock_args() -> [&'static str; 2] {
    ["--now", NOW]
}

/// `docker run --workdir /github/workspace -v ...:/github/... -e ... IMAGE ARGS`, as the
/// runner starts a Docker action, done with `buildah run --isolation chroot` on a working
/// container of the pinned image (buildah runs a command, not the entrypoint: the test reads
/// the entrypoint from the image and prepends it, as docker does).
async fn run_in_container(
    buildah: &Buildah,
    image: &Image,
    action: &Action,
    step: &Step,
) -> Outcome {
    let reference = action
        .image
        .strip_prefix("docker://")
        .expect("action.yml is pinned to a docker:// image");
    let container = buildah.from(reference);
    let dirs = RunnerDirs::new(step);
    let env = dirs.env(step, action, "/github");
    let mut cmd = buildah.command("buildah");
    cmd.args([
        "run",
        "--isolation",
        "chroot",
        "--workingdir",
        "/github/workspace",
    ]);
    for sub in ["workspace", "file_commands", "workflow", "home"] {
        cmd.arg("-v")
            .arg(format!("{}:/github/{sub}", dirs.host(sub).display()));
    }
    for (k, v) in &env {
        cmd.arg("--env").arg(format!("{k}={v}"));
    }
    cmd.arg(&container.name)
        .arg("--")
        .args(image.entrypoint())
        .args(&action.args)
        .args(clock_args());
    let out = tokio::task::spawn_blocking(move || cmd.output().expect("buildah run"))
        .await
        .unwrap();
    drop(container);
    let mut ran = dirs.ran(out);
    // buildah reports a non-zero exit on stderr after the program's own lines.
    ran.stderr = ran
        .stderr
        .lines()
        .filter(|l| {
            !l.starts_with("subprocess exited with status ")
                && !l.starts_with("Error: exit status ")
        })
        .map(|l| format!("{l}\n"))
        .collect();
    ran
}

/// The same step with the host's release binary, in the runner's layout on the host.
async fn run_on_host(image: &Image, action: &Action, step: &Step) -> Outcome {
    let dirs = RunnerDirs::new(step);
    let env = dirs.env(step, action, &dirs.dir.path().display().to_string());
    let mut cmd = Command::new(&image.binary);
    cmd.args(&action.args)
        .args(clock_args())
        .env_clear()
        .envs(&env)
        .current_dir(dirs.host("workspace"));
    let out = tokio::task::spawn_blocking(move || cmd.output().expect("run the binary"))
        .await
        .unwrap();
    dirs.ran(out)
}

/// Hub values in the workspace, read through the relative path the input gives: the step's
/// working directory must be the workspace.
const VALUES: (&str, &str) = (
    "deploy/values.yaml",
    "jupyterhub:\n  cull:\n    timeout: 1800\n    every: 300\n    maxAge: 28800\n",
);

fn announce_step(registry: &Registry, api_url: &str, with: &[(&str, &str)]) -> Step {
    let mut inputs: BTreeMap<String, String> = [
        ("image", registry.reference(&format!("{REPOSITORY}:{TAG}"))),
        ("insecure-registry", registry.addr.clone()),
        ("jupyterhub-values", VALUES.0.to_string()),
        ("tracking-assignees", "alice".to_string()),
        // A security release needs a hub-url that is not the placeholder (issue 32).
        ("hub-url", crate::common::HUB_URL.to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    for (k, v) in with {
        inputs.insert(k.to_string(), v.to_string());
    }
    Step {
        event_name: "pull_request",
        payload: pull_request_merged(&["security"]),
        with: inputs,
        api_url: api_url.to_string(),
        workspace_files: vec![VALUES],
    }
}

/// The files the dynamic loader resolves for `binary` (`ldd`), as paths without the leading
/// `/`: the loader itself included, the kernel's vDSO not (it has no file).
fn loader_resolves(binary: &Path) -> BTreeSet<String> {
    let ldd = Command::new("ldd").arg(binary).output().unwrap();
    String::from_utf8(ldd.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| {
            let l = l.trim();
            let path = l.split_once(" => ").map_or(l, |(_, p)| p);
            path.strip_prefix('/')
                .map(|p| p.split(" (").next().unwrap().to_string())
        })
        .collect()
}

/// `usr/local/bin/codeq-rollout` as the image's one layer holds it.
fn packed_binary(image: &Image) -> Vec<u8> {
    let layer = image.manifest["layers"][0]["digest"].as_str().unwrap();
    let packed = Command::new("tar")
        .arg("-xzOf")
        .arg(
            image
                .layout
                .join("blobs/sha256")
                .join(&layer["sha256:".len()..]),
        )
        .arg("usr/local/bin/codeq-rollout")
        .output()
        .unwrap();
    packed.stdout
}

/// Asserts that the image's entrypoint, labels and working directory are the Dockerfile's
/// (so main's image, `image: Dockerfile`, and a release's agree), that it runs as root (the
/// runner needs it, see the Dockerfile) on linux, and that its manifest has no (empty)
/// annotations.
fn config_is_the_dockerfiles(image: &Image) {
    let dockerfile = std::fs::read_to_string(repo_root().join("Dockerfile")).unwrap();
    let entrypoint = dockerfile
        .lines()
        .find_map(|l| l.strip_prefix("ENTRYPOINT "))
        .expect("the Dockerfile has an ENTRYPOINT");
    assert_eq!(
        image.entrypoint(),
        serde_json::from_str::<Vec<String>>(entrypoint).unwrap()
    );
    // The same labels as the Dockerfile's last stage, so main's image and a release's have
    // the same config, not only the same files; and no (empty) manifest annotations.
    let labels: BTreeMap<&str, &str> = dockerfile
        .lines()
        .filter_map(|l| l.strip_prefix("LABEL "))
        .map(|l| l.split_once('=').expect("LABEL key=value"))
        .collect();
    assert_eq!(labels.len(), 3, "{labels:?}");
    assert_eq!(image.config["config"]["Labels"], json!(labels));
    assert_eq!(
        image.manifest.get("annotations"),
        None,
        "{}",
        image.manifest
    );
    assert_eq!(image.config["config"]["WorkingDir"], json!("/"));
    assert!(dockerfile.lines().any(|l| l == "WORKDIR /"));
    let user = image.config["config"]["User"].as_str().unwrap_or_default();
    assert!(user.is_empty() || user == "0", "runs as root, not {user:?}");
    assert_eq!(image.config["os"], json!("linux"));
}

/// The newest glibc symbol version `binary` references (`GLIBC_2.36`), read as release.yml
/// reads it for the release note (`readelf -V`).
fn glibc_floor(binary: &Path) -> String {
    let versions = Command::new("readelf")
        .args(["-V", "--wide"])
        .arg(binary)
        .output()
        .unwrap();
    assert!(versions.status.success(), "{versions:?}");
    let newest = String::from_utf8(versions.stdout)
        .unwrap()
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
        .filter_map(|w| w.strip_prefix("GLIBC_"))
        .filter_map(|v| {
            v.split('.')
                .map(|n| n.parse::<u32>().ok())
                .collect::<Option<Vec<u32>>>()
        })
        .max()
        .expect("the binary references glibc symbol versions");
    format!(
        "GLIBC_{}",
        newest
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(".")
    )
}

// ---------------------------------------------------------------------------------------------
// The contract.

#[test]
fn the_image_is_the_release_binary_its_libraries_and_the_ca_bundle_on_scratch() {
    let image = image();
    assert_eq!(
        image.manifest["layers"].as_array().unwrap().len(),
        1,
        "one layer, no base"
    );
    let fixed = [
        "usr/local/bin/codeq-rollout",
        "etc/ssl/certs/ca-certificates.crt",
        "etc/nsswitch.conf",
    ];
    let libraries: BTreeSet<&String> = image
        .files
        .iter()
        .filter(|f| !fixed.contains(&f.as_str()))
        .collect();
    for file in fixed {
        assert!(
            image.files.contains(file),
            "{file} is missing: {:?}",
            image.files
        );
    }
    for lib in &libraries {
        let name = lib.rsplit('/').next().unwrap();
        assert!(
            (lib.starts_with("lib") || lib.starts_with("usr/lib")) && name.contains(".so"),
            "{lib} is neither the binary, the CA bundle nor a shared library"
        );
    }
    for needed in ["libc.so.6", "ld-linux"] {
        assert!(
            libraries.iter().any(|l| l.contains(needed)),
            "{needed} is missing: {libraries:?}"
        );
    }
    // Exactly the libraries the dynamic loader resolves for the binary (the loader itself
    // included, the kernel's vDSO not: it has no file).
    let resolved = loader_resolves(&image.binary);
    assert_eq!(
        libraries.into_iter().cloned().collect::<BTreeSet<_>>(),
        resolved
    );
    // The binary is the release binary, byte for byte.
    let packed = packed_binary(image);
    assert!(
        packed == std::fs::read(&image.binary).unwrap(),
        "the image's binary is not {}",
        image.binary.display()
    );

    // The entrypoint is the Dockerfile's, so main (image: Dockerfile) and releases agree;
    // no USER (the runner needs root, see the Dockerfile).
    config_is_the_dockerfiles(image);

    let size = image.compressed_size();
    eprintln!(
        "image {} for {}: {size} bytes compressed ({:.2} MiB)",
        image.manifest["layers"][0]["digest"],
        image.config["architecture"],
        size as f64 / 1_048_576.0
    );
    assert!(
        size <= SIZE_GOAL,
        "{size} bytes compressed, over the 5 MB bound"
    );

    // docs/container-image.md's glibc floor for this build: the newest glibc symbol version
    // the binary references, read as release.yml reads it for the release note (readelf -V).
    let floor = glibc_floor(&image.binary);
    let page = std::fs::read_to_string(repo_root().join(IMAGE_PAGE)).unwrap();
    assert!(
        page.contains(&format!("references `{floor}` at most")),
        "{IMAGE_PAGE} must state this build's glibc floor, {floor}"
    );
    // And the binary's size, within 10 % (toolchains and dependencies move it a little).
    let binary_mib = std::fs::metadata(&image.binary).unwrap().len() as f64 / 1_048_576.0;
    let stated: f64 = regex::Regex::new(r"binary (\d+\.\d+) MiB")
        .unwrap()
        .captures(&page)
        .unwrap_or_else(|| panic!("{IMAGE_PAGE} states no `binary N.N MiB`"))[1]
        .parse()
        .unwrap();
    assert!(
        (stated - binary_mib).abs() <= binary_mib / 10.0,
        "{IMAGE_PAGE} says the binary is {stated} MiB; it is {binary_mib:.2} MiB: update it"
    );

    // Reproducible: the same binary gives the same image, to the byte.
    let again = tempfile::tempdir_in(image.layout.parent().unwrap()).unwrap();
    build_image(&image.binary, &again.path().join("image"));
    let rebuilt = read_layout(&again.path().join("image"), &image.binary);
    assert_eq!(
        rebuilt.manifest, image.manifest,
        "a rebuild gives another image"
    );
}

#[tokio::test]
async fn the_pinned_image_announces_itself_as_the_runner_runs_it_and_as_the_host_binary_does() {
    let image = image();
    let Pushed {
        registry,
        buildah,
        digest,
        action,
    } = pushed_and_pinned(image);
    assert_eq!(
        action.image,
        format!("docker://{}/{REPOSITORY}@{digest}", registry.addr)
    );
    assert_eq!(action.args, ["announce"]);

    // The image announces itself: the tag it was pushed under, checked against the digest
    // the pinned action.yml names.
    let in_github = FakeGitHub::start().await;
    let step = announce_step(
        &registry,
        &in_github.api_url(),
        &[("expected-digest", &digest)],
    );
    let in_container = run_in_container(&buildah, image, &action, &step).await;
    assert_eq!(in_container.code, 0, "{in_container:#?}");
    assert_outputs_hold(
        &in_container.outputs,
        &[
            ("digest", digest.as_str()),
            ("tier", "security"),
            ("tier-source", "labels"),
            ("changed", "true"),
            ("idle-window-seconds", "2100"),
            ("active-window-seconds", "29100"),
        ],
    );
    let short = &digest["sha256:".len()..][..12];
    assert_eq!(
        in_container.outputs["release-url"],
        format!("{SERVER_URL}/{OWNER}/{REPO}/releases/tag/{REPOSITORY}-{short}")
    );
    assert!(
        in_container.outputs["issue-url"]
            .starts_with(&format!("{SERVER_URL}/{OWNER}/{REPO}/issues/")),
        "{in_container:#?}"
    );
    let writes = in_github.writes().await;
    assert_eq!(
        writes.len(),
        2,
        "one release note, one tracking issue: {writes:#?}"
    );
    assert!(
        in_container.summary.contains(&digest),
        "{}",
        in_container.summary
    );

    // The token is masked before anything else is printed, and appears nowhere else.
    in_container.assert_secrets_masked_first(&[TOKEN]);

    // The host binary, same inputs, its own fake GitHub: the same outputs, summary, log and
    // requests, to the byte.
    let on_github = FakeGitHub::start().await;
    let step = announce_step(
        &registry,
        &on_github.api_url(),
        &[("expected-digest", &digest)],
    );
    let on_host = run_on_host(image, &action, &step).await;
    assert_eq!(on_host.code, 0, "{on_host:#?}");
    assert_eq!(in_container.outputs, on_host.outputs);
    assert_eq!(in_container.summary, on_host.summary);
    assert_eq!(in_container.stdout, on_host.stdout);
    assert_eq!(in_container.stderr, on_host.stderr);
    assert_eq!(writes, on_github.writes().await);

    assert_eq!(
        buildah.names("containers"),
        Vec::<String>::new(),
        "containers removed"
    );
}

#[tokio::test]
async fn the_container_exits_2_on_bad_input_and_1_on_failure_writing_nothing() {
    let image = image();
    let pushed = pushed_and_pinned(image);
    let other = good_digest('0');
    for (with, code) in [
        (("tier", "urgent"), 2),
        (("cull-timeout", "soon"), 2),
        (("expected-digest", other.as_str()), 1),
    ] {
        let github = FakeGitHub::start().await;
        let step = announce_step(&pushed.registry, &github.api_url(), &[with]);
        let in_container = run_in_container(&pushed.buildah, image, &pushed.action, &step).await;
        assert_eq!(in_container.code, code, "{with:?}: {in_container:#?}");
        assert!(
            in_container
                .stdout
                .lines()
                .any(|l| l.starts_with("::error")),
            "{with:?}: an error annotation: {in_container:#?}"
        );
        assert_eq!(github.writes().await, vec![], "{with:?} wrote to GitHub");
        if code == 2 {
            assert_eq!(
                github.requests().await.len(),
                0,
                "{with:?}: bad input, no request"
            );
        }
        let on_host = run_on_host(image, &pushed.action, &step).await;
        assert_eq!(
            (
                in_container.code,
                &in_container.stdout,
                &in_container.outputs
            ),
            (on_host.code, &on_host.stdout, &on_host.outputs),
            "{with:?}"
        );
    }
}
