//! Errors of imports and exports. Every variant names the file at fault.

use std::path::PathBuf;

use gatehouse_store::StoreError;

/// What stopped an import or export. Problems with single lines of a
/// transcript are not errors: they are reported and skipped.
#[derive(Debug, thiserror::Error)]
pub enum TranscriptError {
    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The store refused or failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The input cannot be imported as a whole (no session id, mixed
    /// sessions, an id that is already stored, …).
    #[error("{path}: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong and what to do.
        message: String,
    },
}

impl TranscriptError {
    pub(crate) fn io(path: &std::path::Path, source: std::io::Error) -> Self {
        Self::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}
