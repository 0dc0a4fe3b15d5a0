//! The shared steps of every file change (Write, Edit, NotebookEdit): load
//! the current file with its metadata, check it against the file-state
//! cache, write atomically, record the new state, and describe the change
//! as a structured diff.

use std::io;
use std::path::Path;

use gatehouse_core::ToolError;
use gatehouse_protocol::diff::FileDiff;

use crate::atomic_write::{AtomicWriteError, write_atomic};
use crate::diff::file_diff;
use crate::file_state::FileStateCache;
use crate::paths;

/// Files larger than this are never edited (1 GiB).
pub const MAX_EDIT_BYTES: u64 = 1 << 30;

/// An existing file as loaded for a change.
#[derive(Debug)]
pub struct Current {
    /// Its metadata.
    pub meta: std::fs::Metadata,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

/// Loads the file at `path` if it exists: `None` when it does not, an
/// error naming the path when it is a directory, too large or unreadable.
pub fn load(path: &Path) -> Result<Option<Current>, ToolError> {
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(paths::io_error("read", path, e)),
    };
    if meta.is_dir() {
        return Err(ToolError::failed(format!(
            "{} is a directory, not a file",
            path.display()
        )));
    }
    if !meta.is_file() {
        return Err(ToolError::failed(format!(
            "{} is not a regular file (a device, socket or pipe)",
            path.display()
        )));
    }
    if meta.len() > MAX_EDIT_BYTES {
        return Err(ToolError::failed(format!(
            "{} is {} bytes; files over 1 GiB ({MAX_EDIT_BYTES} bytes) are not edited",
            path.display(),
            meta.len()
        )));
    }
    let bytes = std::fs::read(path).map_err(|e| match e.kind() {
        // Deleted between the metadata call and the read.
        io::ErrorKind::NotFound => ToolError::failed(format!(
            "{} was deleted while being changed; nothing was written",
            path.display()
        )),
        _ => paths::io_error("read", path, e),
    })?;
    Ok(Some(Current { meta, bytes }))
}

/// Maps an atomic-write failure to an error that says the original is
/// intact.
fn write_error(path: &Path, existed: bool, e: &AtomicWriteError) -> ToolError {
    let cause = match e.kind() {
        Some(io::ErrorKind::PermissionDenied) => "permission denied".to_owned(),
        Some(io::ErrorKind::ReadOnlyFilesystem) => "the file system is read-only".to_owned(),
        Some(io::ErrorKind::StorageFull) => "the disk is full".to_owned(),
        _ => e.to_string(),
    };
    let kept = if existed {
        "the original file is unchanged"
    } else {
        "no file was created"
    };
    ToolError::failed(format!("cannot write {}: {cause} ({kept})", path.display()))
}

/// Writes `bytes` to `path` atomically, records the result in `state` and
/// returns the diff from `old_text` (None: the file is new) to `new_text`.
pub fn commit(
    state: &FileStateCache,
    path: &Path,
    old_text: Option<&str>,
    new_text: &str,
    bytes: &[u8],
) -> Result<FileDiff, ToolError> {
    write_atomic(path, bytes, true).map_err(|e| write_error(path, old_text.is_some(), &e))?;
    match std::fs::metadata(path) {
        Ok(meta) => state.record_full(path, &meta, bytes),
        // Written but gone already: make the next change re-read it.
        Err(_) => state.remove(path),
    }
    Ok(file_diff(
        path,
        old_text.unwrap_or(""),
        new_text,
        old_text.is_none(),
    ))
}
