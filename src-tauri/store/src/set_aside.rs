//! A damaged or too-new database set aside so the app can start with a
//! fresh one: the file (and its `-wal` / `-shm` companions) is renamed with
//! a timestamp in the same folder, never deleted, so it can still be sent
//! in a bug report or opened by a newer Gatehouse.

use std::path::{Path, PathBuf};

use crate::{DATABASE_FILE, StoreError, now_ms};

/// The companions SQLite keeps beside a database in WAL mode.
const COMPANIONS: &[&str] = &["-wal", "-shm"];

/// Renames `path` to `<name>.damaged-<unix ms>` (a further `-N` when that
/// name is taken) in its folder and returns the new path; `None` when there
/// was no such file. Nothing is ever overwritten.
pub fn set_aside_file(path: &Path) -> Result<Option<PathBuf>, StoreError> {
    set_aside_with_stamp(path, now_ms())
}

fn set_aside_with_stamp(path: &Path, stamp: i64) -> Result<Option<PathBuf>, StoreError> {
    if std::fs::symlink_metadata(path).is_err() {
        return Ok(None);
    }
    let name = path
        .file_name()
        .ok_or_else(|| StoreError::Invalid(format!("{}: not a file name", path.display())))?
        .to_string_lossy()
        .into_owned();
    for n in 0..100u32 {
        let suffix = if n == 0 {
            String::new()
        } else {
            format!("-{n}")
        };
        let target = path.with_file_name(format!("{name}.damaged-{stamp}{suffix}"));
        if std::fs::symlink_metadata(&target).is_ok() {
            continue;
        }
        std::fs::rename(path, &target).map_err(|source| StoreError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        return Ok(Some(target));
    }
    Err(StoreError::Invalid(format!(
        "{}: 100 set-aside copies named for this moment exist already; nothing was renamed",
        path.display()
    )))
}

/// Sets the database of data directory `dir` aside with its companions,
/// all with the same timestamp; returns the new paths (empty when there was
/// no database). The next [`crate::Store::open`] creates a fresh one.
///
/// Call it only while no connection to the file is open in this process
/// (the app's store failed to open; otherwise close it first).
pub fn set_aside_database(dir: &Path) -> Result<Vec<PathBuf>, StoreError> {
    let stamp = now_ms();
    let database = dir.join(DATABASE_FILE);
    let mut kept = Vec::new();
    // The main file first: a failure then leaves the companions with it.
    if let Some(moved) = set_aside_with_stamp(&database, stamp)? {
        kept.push(moved);
    }
    for companion in COMPANIONS {
        let path = dir.join(format!("{DATABASE_FILE}{companion}"));
        if let Some(moved) = set_aside_with_stamp(&path, stamp)? {
            kept.push(moved);
        }
    }
    Ok(kept)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_taken_name_gets_a_counter_and_nothing_is_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("x.sqlite3");
        std::fs::write(&file, "first").unwrap();
        let a = set_aside_with_stamp(&file, 7).unwrap().unwrap();
        std::fs::write(&file, "second").unwrap();
        let b = set_aside_with_stamp(&file, 7).unwrap().unwrap();
        assert_eq!(a.file_name().unwrap(), "x.sqlite3.damaged-7");
        assert_eq!(b.file_name().unwrap(), "x.sqlite3.damaged-7-1");
        assert_eq!(std::fs::read_to_string(a).unwrap(), "first");
        assert_eq!(std::fs::read_to_string(b).unwrap(), "second");
        assert_eq!(set_aside_with_stamp(&file, 7).unwrap(), None);
    }
}
