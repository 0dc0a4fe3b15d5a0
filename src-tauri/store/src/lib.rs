//! Gatehouse's storage: one SQLite file in the app's data directory (WAL,
//! versioned migrations), plus large tool results on disk beside it.
//!
//! Open it with [`Store::open`] on a directory from [`data_dir`]. A database
//! that is damaged or was written by a newer Gatehouse is refused with an
//! error that names the file; it is never overwritten or migrated blindly.

mod calls;
mod compaction;
mod error;
mod events;
mod family;
mod housekeeping;
mod imports;
mod instance;
mod mcp_approvals;
mod migrations;
mod projects;
mod search;
mod session_rules;
mod sessions;
mod set_aside;
mod stats;

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use rusqlite::Connection;

pub use calls::{CallFilter, CallScan, RuleDecisionCount, SkillUse, StoredCall};
pub use compaction::{CompactionPhase, CompactionStep};
pub use error::StoreError;
pub use events::{EventRecord, ImportCheckpoint};
pub use imports::ImportRecord;
pub use instance::{APP_LOCK_FILE, AppLock, AppLockError};
pub use mcp_approvals::McpApproval;
pub use migrations::SCHEMA_VERSION;
pub use search::{SearchHit, SearchResults, literal_query};
pub use session_rules::StoredSessionRule;
pub use sessions::{
    NewSession, SessionProvenance, SessionSummary, UnendedSession, validate_session_id,
};
pub use set_aside::{set_aside_database, set_aside_file};
pub use stats::SessionStatsBuilder;

/// Environment variable that overrides the platform data directory.
pub const DATA_DIR_ENV: &str = "GATEHOUSE_DATA_DIR";

/// File name of the database inside the data directory.
pub const DATABASE_FILE: &str = "gatehouse.sqlite3";

/// The data directory: `$GATEHOUSE_DATA_DIR` when set and non-empty, else the
/// platform's (`~/.local/share/gatehouse` on Linux).
pub fn data_dir() -> Result<PathBuf, StoreError> {
    if let Some(dir) = std::env::var_os(DATA_DIR_ENV).filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    directories::ProjectDirs::from("dev", "gatehouse", "gatehouse")
        .map(|dirs| dirs.data_dir().to_path_buf())
        .ok_or(StoreError::NoDataDir)
}

/// How long a connection waits for another's write lock (the app and the
/// CLI share the file; a compaction step or a batch takes milliseconds).
pub(crate) const BUSY_TIMEOUT_MS: u64 = 5000;

/// What `PRAGMA auto_vacuum` reads for INCREMENTAL.
const AUTO_VACUUM_INCREMENTAL: i64 = 2;

/// A connection to Gatehouse's database.
#[derive(Debug)]
pub struct Store {
    conn: Connection,
    path: PathBuf,
}

impl Store {
    /// Opens (creating when needed) the database in `dir` and brings its
    /// schema up to date.
    pub fn open(dir: &Path) -> Result<Self, StoreError> {
        std::fs::create_dir_all(dir).map_err(|source| StoreError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        let path = dir.join(DATABASE_FILE);
        let conn = Connection::open(&path).map_err(|source| StoreError::Sqlite {
            path: path.clone(),
            source,
        })?;
        let mut store = Self { conn, path };
        store.configure()?;
        migrations::migrate(&mut store.conn, &store.path)?;
        Ok(store)
    }

    /// Path of the database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn configure(&self) -> Result<(), StoreError> {
        // The busy timeout covers the app and the CLI sharing a file.
        // WAL lets the UI read while the runtime writes; `synchronous=NORMAL`
        // in WAL mode loses at most the last transactions on power loss,
        // never corrupts. It comes first: a pragma that commits (setting
        // `auto_vacuum` writes the header page) would otherwise commit under
        // the default FULL, fsyncing the WAL and its folder on every open —
        // the bulk of a Claude Code hook call's time.
        self.conn
            .execute_batch(&format!(
                "PRAGMA busy_timeout = {BUSY_TIMEOUT_MS};
                 PRAGMA synchronous = NORMAL;"
            ))
            .map_err(|source| self.sqlite_error(source))?;
        // `auto_vacuum` before the first table is created: it can only be
        // chosen then (on an existing database it is recorded for the next
        // VACUUM, which only `compaction.rs` runs). INCREMENTAL lets
        // compaction give free pages back in short steps instead of one
        // whole-file VACUUM holding the write lock (compaction.rs). Set only
        // when it is not already: setting it is a write transaction.
        let auto_vacuum: i64 = self
            .conn
            .query_row("PRAGMA auto_vacuum", [], |row| row.get(0))
            .map_err(|source| self.sqlite_error(source))?;
        if auto_vacuum != AUTO_VACUUM_INCREMENTAL {
            self.conn
                .execute_batch("PRAGMA auto_vacuum = INCREMENTAL;")
                .map_err(|source| self.sqlite_error(source))?;
        }
        self.conn
            .execute_batch(
                "PRAGMA journal_mode = WAL;
                 PRAGMA foreign_keys = ON;",
            )
            .map_err(|source| self.sqlite_error(source))
    }

    fn sqlite_error(&self, source: rusqlite::Error) -> StoreError {
        StoreError::Sqlite {
            path: self.path.clone(),
            source,
        }
    }
}

/// Milliseconds since the Unix epoch, now.
pub(crate) fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}
