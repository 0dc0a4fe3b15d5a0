//! One app process per data directory.
//!
//! SQLite lets the CLI and the app share the database (WAL, busy timeout),
//! but two app windows on one data directory would each resume, compact and
//! write the same sessions. The app takes [`AppLock`] before it opens the
//! database and holds it until it exits; a second app process finds it held
//! and says which process has it. The lock is an advisory `flock` on a file
//! beside the database, so the kernel drops it when the holder dies: a crash
//! never leaves a stale lock behind.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read as _, Seek as _, SeekFrom, Write as _};
use std::path::{Path, PathBuf};

use crate::StoreError;

/// File name of the lock inside the data directory.
pub const APP_LOCK_FILE: &str = "gatehouse.lock";

/// Held by the one app process using a data directory; released on drop
/// (or when the process ends, however it ends).
#[derive(Debug)]
pub struct AppLock {
    // Holding the open file holds the lock.
    _file: File,
    path: PathBuf,
}

/// Why [`AppLock::acquire`] did not get the lock.
#[derive(Debug, thiserror::Error)]
pub enum AppLockError {
    /// Another process holds it.
    #[error(
        "another Gatehouse window{holder} is already using the data directory {data_dir}; \
         switch to it, or quit it first (two windows would write the same database)",
        holder = holder_text(*.pid)
    )]
    Held {
        /// The data directory in use.
        data_dir: PathBuf,
        /// The holder's process id, as it wrote it (absent if it had not yet).
        pid: Option<u32>,
    },
    /// The lock file could not be created or locked.
    #[error(transparent)]
    Store(#[from] StoreError),
}

fn holder_text(pid: Option<u32>) -> String {
    pid.map(|p| format!(" (process {p})")).unwrap_or_default()
}

impl AppLock {
    /// Takes the lock of `data_dir` (created when missing) without waiting,
    /// and records this process's id in it for the next one's message.
    pub fn acquire(data_dir: &Path) -> Result<Self, AppLockError> {
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| StoreError::Io { path, source }
        };
        std::fs::create_dir_all(data_dir).map_err(io(data_dir))?;
        let path = data_dir.join(APP_LOCK_FILE);
        // Not truncated on open: the holder's pid stays readable until we
        // have the lock ourselves.
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io(&path))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut text = String::new();
                // The pid is a courtesy for the message: unreadable is fine.
                let pid = file
                    .read_to_string(&mut text)
                    .ok()
                    .and_then(|_| text.trim().parse().ok());
                return Err(AppLockError::Held {
                    data_dir: data_dir.to_path_buf(),
                    pid,
                });
            }
            Err(TryLockError::Error(source)) => return Err(io(&path)(source).into()),
        }
        file.set_len(0).map_err(io(&path))?;
        file.seek(SeekFrom::Start(0)).map_err(io(&path))?;
        writeln!(file, "{}", std::process::id()).map_err(io(&path))?;
        Ok(Self { _file: file, path })
    }

    /// The lock file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_on_the_same_directory_is_refused_with_the_holders_pid() {
        let dir = tempfile::tempdir().unwrap();
        let first = AppLock::acquire(dir.path()).unwrap();
        let err = AppLock::acquire(dir.path()).unwrap_err();
        match &err {
            AppLockError::Held { data_dir, pid } => {
                assert_eq!(data_dir, dir.path());
                assert_eq!(*pid, Some(std::process::id()));
            }
            other => panic!("expected Held, got {other:?}"),
        }
        let text = err.to_string();
        assert!(
            text.contains(&format!("(process {})", std::process::id())),
            "{text}"
        );
        assert!(text.contains(&dir.path().display().to_string()), "{text}");
        drop(first);
        // Released on drop: the next app gets it.
        AppLock::acquire(dir.path()).unwrap();
    }

    #[test]
    fn different_directories_do_not_share_a_lock() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        let _a = AppLock::acquire(a.path()).unwrap();
        let lock_b = AppLock::acquire(b.path()).unwrap();
        assert_eq!(lock_b.path(), b.path().join(APP_LOCK_FILE));
    }

    #[test]
    fn a_missing_data_directory_is_created() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("new/data");
        AppLock::acquire(&dir).unwrap();
        assert!(dir.join(APP_LOCK_FILE).is_file());
    }
}
