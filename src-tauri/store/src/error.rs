//! Errors from the store. Every variant names the file or folder at fault.

use std::path::PathBuf;

/// What went wrong while opening or using the database.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// No platform data directory could be determined and none was given.
    #[error("cannot determine a data directory: set GATEHOUSE_DATA_DIR")]
    NoDataDir,
    /// A file-system operation failed.
    #[error("{path}: {source}")]
    Io {
        /// The path involved.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// SQLite reported an error (including "file is not a database").
    #[error("database {path}: {source}")]
    Sqlite {
        /// The database file.
        path: PathBuf,
        /// The underlying error.
        source: rusqlite::Error,
    },
    /// The database was written by a newer Gatehouse; we refuse to touch it.
    #[error(
        "database {path} has schema version {found}, newer than this Gatehouse understands \
         (up to {supported}); upgrade Gatehouse or point GATEHOUSE_DATA_DIR elsewhere — \
         the file was left untouched"
    )]
    TooNew {
        /// The database file.
        path: PathBuf,
        /// The version found in the file.
        found: i64,
        /// The newest version this build knows.
        supported: i64,
    },
    /// A request named something that does not exist or is invalid.
    #[error("{0}")]
    Invalid(String),
}
