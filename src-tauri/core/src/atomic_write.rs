//! Atomic file replacement, the one implementation every crate uses (the
//! file tools, settings write-back and the rule editor, the MCP config
//! editor, session exports): write a temp file beside the target, flush it
//! to disk, give it the target's permissions, then rename it over the
//! target.
//!
//! Readers see either the old file or the new one, never a mix; if anything
//! fails (disk full, read-only file system, permission denied) the temp file
//! is removed and the original is untouched.
//!
//! * A symlink is written at its target, so the link stays a link (dotfile
//!   managers link `~/.claude/settings.json`); renaming over it would cut
//!   it off from its source.
//! * An existing file's permissions are kept, and its owner and group when
//!   the process may set them; a new file gets the default mode
//!   (0666 & !umask), never the temp file's 0600.
//! * A read-only file is refused: it was made so on purpose, and a rename
//!   would replace it regardless (only the folder's permissions count).
//! * Hard links to the old file are not kept (a rename replaces the
//!   directory entry).

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// Why an atomic write failed, with the path and the step.
#[derive(Debug, thiserror::Error)]
pub enum AtomicWriteError {
    /// The target has no parent directory (it is `/`).
    #[error("{0} has no parent directory")]
    NoParent(PathBuf),
    /// The existing file is read-only.
    #[error("{0} is read-only; make it writable to change it")]
    ReadOnly(PathBuf),
    /// A step failed.
    #[error("cannot {step} for {path}: {source}")]
    Io {
        /// What was being done.
        step: &'static str,
        /// The target file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
}

impl AtomicWriteError {
    /// The underlying I/O error kind, if any.
    pub fn kind(&self) -> Option<io::ErrorKind> {
        match self {
            Self::NoParent(_) => None,
            Self::ReadOnly(_) => Some(io::ErrorKind::PermissionDenied),
            Self::Io { source, .. } => Some(source.kind()),
        }
    }
}

impl From<AtomicWriteError> for io::Error {
    fn from(e: AtomicWriteError) -> Self {
        io::Error::new(e.kind().unwrap_or(io::ErrorKind::Other), e.to_string())
    }
}

/// Removes the temp file unless disarmed.
struct TempGuard {
    path: PathBuf,
    armed: bool,
}

impl Drop for TempGuard {
    fn drop(&mut self) {
        if self.armed {
            let _ = fs::remove_file(&self.path);
        }
    }
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

fn temp_name(target: &Path) -> std::ffi::OsString {
    let base = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!(
        ".{base}.gatehouse-{}-{}-{nanos:08x}.tmp",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
    .into()
}

/// Atomically replaces (or creates) `path` with `contents` (see the module
/// documentation for links, permissions and read-only files). Parent
/// directories are created when `create_parents` is set.
pub fn write_atomic(
    path: &Path,
    contents: &[u8],
    create_parents: bool,
) -> Result<(), AtomicWriteError> {
    write_atomic_with(path, create_parents, |file| file.write_all(contents))
}

/// Like [`write_atomic`], but the content is produced by `fill`, which
/// writes into the temp file (tests use it to simulate a full disk).
pub fn write_atomic_with(
    path: &Path,
    create_parents: bool,
    fill: impl FnOnce(&mut File) -> io::Result<()>,
) -> Result<(), AtomicWriteError> {
    let err = |step: &'static str| {
        let path = path.to_path_buf();
        move |source: io::Error| AtomicWriteError::Io { step, path, source }
    };
    let is_link = fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    let target;
    let path = if is_link {
        target = fs::canonicalize(path).map_err(err("resolve the symlink's target"))?;
        target.as_path()
    } else {
        path
    };
    let err = |step: &'static str| {
        let path = path.to_path_buf();
        move |source: io::Error| AtomicWriteError::Io { step, path, source }
    };
    let parent = match path.parent() {
        // A bare file name: the current directory.
        Some(p) if p.as_os_str().is_empty() => Path::new("."),
        Some(p) => p,
        None => return Err(AtomicWriteError::NoParent(path.to_path_buf())),
    };
    if create_parents {
        fs::create_dir_all(parent).map_err(err("create the parent directories"))?;
    }
    let existing = match fs::metadata(path) {
        Ok(meta) => Some(meta),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(err("inspect the existing file")(e)),
    };
    if existing
        .as_ref()
        .is_some_and(|m| m.permissions().readonly())
    {
        return Err(AtomicWriteError::ReadOnly(path.to_path_buf()));
    }
    let temp_path = parent.join(temp_name(path));
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temp_path)
        .map_err(err("create a temporary file"))?;
    let mut guard = TempGuard {
        path: temp_path,
        armed: true,
    };
    fill(&mut file).map_err(err("write the temporary file"))?;
    file.flush().map_err(err("write the temporary file"))?;
    if let Some(meta) = &existing {
        use std::os::unix::fs::MetadataExt;
        // Owner first (best effort: only root or the owner may do it),
        // since a chown may clear set-id bits the mode then restores.
        let _ = std::os::unix::fs::fchown(&file, Some(meta.uid()), Some(meta.gid()));
        file.set_permissions(meta.permissions())
            .map_err(err("copy the file's permissions"))?;
    }
    file.sync_all()
        .map_err(err("flush the temporary file to disk"))?;
    drop(file);
    fs::rename(&guard.path, path).map_err(err("replace the file"))?;
    guard.armed = false;
    // Make the rename itself durable; failure here does not undo the write.
    if let Ok(dir) = File::open(parent) {
        let _ = dir.sync_all();
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn entries(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn replaces_keeping_permissions_and_creates_parents() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("script.sh");
        fs::write(&path, "old").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o751)).unwrap();
        write_atomic(&path, b"new", false).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(
            fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o751
        );
        assert_eq!(entries(dir.path()), ["script.sh"]);

        let deep = dir.path().join("a/b/c.txt");
        write_atomic(&deep, b"x", true).unwrap();
        assert_eq!(fs::read_to_string(&deep).unwrap(), "x");
    }

    #[test]
    fn a_failed_write_leaves_the_original_and_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keep.txt");
        fs::write(&path, "precious").unwrap();
        let result = write_atomic_with(&path, false, |f| {
            f.write_all(b"half")?;
            Err(io::Error::new(
                io::ErrorKind::StorageFull,
                "No space left on device",
            ))
        });
        let e = result.unwrap_err();
        assert_eq!(e.kind(), Some(io::ErrorKind::StorageFull));
        assert!(e.to_string().contains("keep.txt"), "{e}");
        assert_eq!(fs::read_to_string(&path).unwrap(), "precious");
        assert_eq!(entries(dir.path()), ["keep.txt"]);
    }

    #[test]
    fn a_symlink_is_written_at_its_target_keeping_the_link_and_its_mode() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("dotfiles/settings.json");
        fs::create_dir_all(target.parent().unwrap()).unwrap();
        fs::write(&target, "old").unwrap();
        fs::set_permissions(&target, fs::Permissions::from_mode(0o640)).unwrap();
        let link = dir.path().join("home/.claude/settings.json");
        fs::create_dir_all(link.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(&target, &link).unwrap();
        write_atomic(&link, b"new", false).unwrap();
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink(),
            "the link was replaced by a file"
        );
        assert_eq!(fs::read_to_string(&target).unwrap(), "new");
        assert_eq!(
            fs::metadata(&target).unwrap().permissions().mode() & 0o777,
            0o640
        );
        assert_eq!(entries(link.parent().unwrap()), ["settings.json"]);
        assert_eq!(entries(target.parent().unwrap()), ["settings.json"]);
    }

    #[test]
    fn a_new_file_gets_the_default_mode_not_the_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("new.json");
        write_atomic(&path, b"{}", false).unwrap();
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        // 0666 & !umask: readable by the group and others under any usual
        // umask (022, 002); a temp file's 0600 would not be.
        assert_eq!(mode & 0o044, 0o044, "{mode:o}");
    }

    #[test]
    fn a_read_only_file_is_refused_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("locked.json");
        fs::write(&path, "before").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o444)).unwrap();
        let e = write_atomic(&path, b"after", false).unwrap_err();
        assert!(matches!(e, AtomicWriteError::ReadOnly(_)), "{e}");
        assert_eq!(e.kind(), Some(io::ErrorKind::PermissionDenied));
        assert!(e.to_string().contains("locked.json is read-only"), "{e}");
        assert_eq!(fs::read_to_string(&path).unwrap(), "before");
        assert_eq!(entries(dir.path()), ["locked.json"]);
    }

    #[test]
    fn a_missing_parent_without_create_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nope/x.txt");
        assert!(write_atomic(&path, b"x", false).is_err());
        assert!(!dir.path().join("nope").exists());
    }
}
