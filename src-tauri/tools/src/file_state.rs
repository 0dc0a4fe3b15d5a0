//! The session's file-state cache: what the model has read, and when.
//!
//! Every successful Read records the file's canonical path, modification
//! time, content hash (for full reads) and whether the read was partial.
//! Write, Edit and NotebookEdit consult it before touching an existing file
//! (stale-write protection, SPEC §7): the file must have been read in this
//! session and be unchanged since — same mtime, or, when only the mtime
//! moved (a `touch`, a checkout that rewrote identical bytes), the same
//! content as the full read. After writing they record the new state, so a
//! second edit needs no re-read.
//!
//! One cache per session: the registry builds the file tools with
//! [`crate::file_tools()`]`(cache)`; a caller may also attach a different
//! cache to a call's context as [`SharedFileState`] (sub-agents with their
//! own view), which then takes precedence.

use std::collections::HashMap;
use std::hash::Hasher;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;

use gatehouse_core::{ToolError, ToolUseContext};

/// What was recorded about one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileState {
    /// Modification time when it was read (or last written by a tool).
    pub mtime: Option<SystemTime>,
    /// Size in bytes at that time.
    pub len: u64,
    /// Hash of the full content, when the whole file was read.
    pub content_hash: Option<u64>,
    /// Whether only part of the file was read (offset/limit, a line cap).
    pub partial: bool,
}

/// A session's record of read files, keyed by canonical path.
#[derive(Debug, Default)]
pub struct FileStateCache {
    entries: Mutex<HashMap<PathBuf, FileState>>,
}

/// A cache attached to a [`ToolUseContext`]'s extensions; takes precedence
/// over the cache the tools were built with.
#[derive(Debug, Clone)]
pub struct SharedFileState(pub Arc<FileStateCache>);

/// Why an existing file may not be written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StaleError {
    /// The file was never read in this session.
    #[error("{0} has not been read in this session. Read it first, then retry.")]
    NotRead(String),
    /// Only part of the file was read, and a full read is required.
    #[error("{0} was only partly read. Read the whole file first, then retry.")]
    PartialRead(String),
    /// The file changed on disk since it was read.
    #[error(
        "{0} has been modified since it was read (by the user, a linter or another tool). Read it again before changing it."
    )]
    Modified(String),
}

/// A fast, in-process content hash (the cache lives only as long as the
/// session's process, so it needs no stability across runs).
pub fn content_hash(bytes: &[u8]) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    hasher.write(bytes);
    hasher.finish()
}

impl FileStateCache {
    /// An empty cache.
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    /// The cache a call should use: the context's [`SharedFileState`] if
    /// attached, else `fallback`.
    pub fn for_call(fallback: &Arc<Self>, ctx: &ToolUseContext) -> Arc<Self> {
        ctx.extensions
            .get::<SharedFileState>()
            .map_or_else(|| Arc::clone(fallback), |s| Arc::clone(&s.0))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, FileState>> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Records a read (or a tool's own write) of `path`.
    pub fn record(&self, path: &Path, state: FileState) {
        self.lock().insert(path.to_path_buf(), state);
    }

    /// Records the full content of `path` as just read or written, taking
    /// the mtime from `meta`.
    pub fn record_full(&self, path: &Path, meta: &std::fs::Metadata, bytes: &[u8]) {
        self.record(
            path,
            FileState {
                mtime: meta.modified().ok(),
                len: meta.len(),
                content_hash: Some(content_hash(bytes)),
                partial: false,
            },
        );
    }

    /// What is recorded for `path`.
    pub fn get(&self, path: &Path) -> Option<FileState> {
        self.lock().get(path).cloned()
    }

    /// Forgets `path`.
    pub fn remove(&self, path: &Path) {
        self.lock().remove(path);
    }

    /// Number of files recorded.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether nothing is recorded.
    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    /// Checks that the existing file at `path`, whose current metadata is
    /// `meta` and content `current`, may be changed: it was read in this
    /// session (fully, when `require_full`) and is unchanged since.
    pub fn check_fresh(
        &self,
        path: &Path,
        meta: &std::fs::Metadata,
        current: &[u8],
        require_full: bool,
    ) -> Result<(), StaleError> {
        let shown = path.display().to_string();
        let Some(state) = self.get(path) else {
            return Err(StaleError::NotRead(shown));
        };
        if require_full && state.partial {
            return Err(StaleError::PartialRead(shown));
        }
        let same_mtime = state.mtime.is_some() && state.mtime == meta.modified().ok();
        if same_mtime && state.len == meta.len() {
            // Same mtime and size: unchanged unless rewritten within the
            // timestamp granularity; when we know the content, check it too.
            return match state.content_hash {
                Some(h) if h != content_hash(current) => Err(StaleError::Modified(shown)),
                _ => Ok(()),
            };
        }
        match state.content_hash {
            Some(h) if h == content_hash(current) => Ok(()),
            _ => Err(StaleError::Modified(shown)),
        }
    }
}

impl From<StaleError> for ToolError {
    fn from(e: StaleError) -> Self {
        ToolError::failed(e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unread_partial_modified_and_touched_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.txt");
        std::fs::write(&path, "one\n").unwrap();
        let cache = FileStateCache::new();
        let meta = std::fs::metadata(&path).unwrap();
        assert!(matches!(
            cache.check_fresh(&path, &meta, b"one\n", false),
            Err(StaleError::NotRead(_))
        ));
        cache.record_full(&path, &meta, b"one\n");
        assert!(cache.check_fresh(&path, &meta, b"one\n", true).is_ok());

        // Touched (mtime moved) but identical content: still fresh.
        let f = std::fs::File::options().write(true).open(&path).unwrap();
        f.set_modified(SystemTime::UNIX_EPOCH).unwrap();
        let touched = std::fs::metadata(&path).unwrap();
        assert!(cache.check_fresh(&path, &touched, b"one\n", true).is_ok());

        // Changed content: stale, whatever the mtime.
        std::fs::write(&path, "two\n").unwrap();
        let changed = std::fs::metadata(&path).unwrap();
        assert!(matches!(
            cache.check_fresh(&path, &changed, b"two\n", false),
            Err(StaleError::Modified(_))
        ));

        cache.record(
            &path,
            FileState {
                mtime: changed.modified().ok(),
                len: changed.len(),
                content_hash: None,
                partial: true,
            },
        );
        assert!(cache.check_fresh(&path, &changed, b"two\n", false).is_ok());
        assert!(matches!(
            cache.check_fresh(&path, &changed, b"two\n", true),
            Err(StaleError::PartialRead(_))
        ));
    }
}
