//! The shared steps of every file change (Write, Edit, NotebookEdit): load
//! the current file with its metadata, check it against the file-state
//! cache, write atomically, record the new state, and describe the change
//! as a structured diff.

use std::io;
use std::path::Path;
use std::sync::Arc;

use gatehouse_core::permission::PermissionSubject;
use gatehouse_core::tool::CallContext;
use gatehouse_core::{ToolError, ToolResult};
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

/// Loads the file at `path` like [`load`] and, when it exists, checks it
/// against the session's reads ([`FileStateCache::check_fresh`]; a full
/// read is needed when `require_full`): a file changed since it was read,
/// or never read, is refused with a message telling the model to read it.
pub fn load_fresh(
    state: &FileStateCache,
    path: &Path,
    require_full: bool,
) -> Result<Option<Current>, ToolError> {
    let current = load(path)?;
    if let Some(cur) = &current {
        state.check_fresh(path, &cur.meta, &cur.bytes, require_full)?;
    }
    Ok(current)
}

/// What permission rules match on for a change of `path` (as the model
/// wrote it): the canonical path written.
pub fn write_subject(path: &str) -> Option<PermissionSubject> {
    Some(PermissionSubject::WritePath(paths::subject_path(path)))
}

/// A change's output: it carries the diff shown to the user.
pub trait Changed: Send + 'static {
    /// The change as a structured diff.
    fn diff(&self) -> &FileDiff;
}

/// Runs a writer's blocking `change` of `input` off the async runtime,
/// against the call's file-state cache (`fallback` unless the context
/// attaches one), and streams the resulting diff to the UI as progress.
/// `what` names the task in the error when the blocking task itself fails.
pub async fn run<I, O>(
    fallback: &Arc<FileStateCache>,
    cx: &CallContext<'_>,
    what: &str,
    input: I,
    change: fn(&FileStateCache, &I) -> Result<O, ToolError>,
) -> Result<ToolResult<O>, ToolError>
where
    I: Send + 'static,
    O: Changed,
{
    let state = FileStateCache::for_call(fallback, cx.ctx);
    let output = tokio::task::spawn_blocking(move || change(&state, &input))
        .await
        .map_err(|e| ToolError::failed(format!("the {what} task failed: {e}")))??;
    crate::diff::report(cx.progress, output.diff());
    Ok(ToolResult::new(output))
}

/// Runs a writer's blocking precondition `check` of `input` (file read and
/// unchanged since, the edit applicable…) off the async runtime, against
/// the call's file-state cache: the body of `validate_input` for Write, Edit
/// and NotebookEdit. The call checks again against the file as it is then.
pub async fn validate<I, F>(
    fallback: &Arc<FileStateCache>,
    ctx: &gatehouse_core::ToolUseContext,
    what: &str,
    input: I,
    check: F,
) -> Result<(), ToolError>
where
    I: Send + 'static,
    F: FnOnce(&FileStateCache, &I) -> Result<(), ToolError> + Send + 'static,
{
    let state = FileStateCache::for_call(fallback, ctx);
    tokio::task::spawn_blocking(move || check(&state, &input))
        .await
        .map_err(|e| ToolError::failed(format!("the {what} check failed: {e}")))?
}

/// Maps an atomic-write failure to an error that says the original is
/// intact.
fn write_error(path: &Path, existed: bool, e: &AtomicWriteError) -> ToolError {
    let cause = match e.kind() {
        _ if matches!(e, AtomicWriteError::ReadOnly(_)) => {
            "the file is read-only; make it writable to change it".to_owned()
        }
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
