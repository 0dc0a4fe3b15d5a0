//! Atomic file replacement: write a temp file beside the target, flush it to
//! disk, give it the target's permissions, then rename it over the target.
//!
//! Readers see either the old file or the new one, never a mix; if anything
//! fails (disk full, read-only file system, permission denied) the temp file
//! is removed and the original is untouched. A symlink target is written
//! through: callers pass the canonical path. Owner and group are kept when
//! the process may set them; hard links to the old file are not (a rename
//! replaces the directory entry).

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
            Self::Io { source, .. } => Some(source.kind()),
        }
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

/// Atomically replaces (or creates) `path` with `contents`. Parent
/// directories are created when `create_parents` is set. An existing file's
/// permissions are kept; a new file gets the default mode (0666 & !umask).
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
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .ok_or_else(|| AtomicWriteError::NoParent(path.to_path_buf()))?;
    if create_parents {
        fs::create_dir_all(parent).map_err(err("create the parent directories"))?;
    }
    let existing = match fs::metadata(path) {
        Ok(meta) => Some(meta),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(err("inspect the existing file")(e)),
    };
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
    fn a_missing_parent_without_create_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nope/x.txt");
        assert!(write_atomic(&path, b"x", false).is_err());
        assert!(!dir.path().join("nope").exists());
    }
}
