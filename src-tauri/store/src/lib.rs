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
pub use imports::{CallLookup, ImportRecord};
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
        // Connections opening a new file at the same moment (two hook
        // processes, the app and a hook) contend for the journal-mode switch
        // and the first migration, where SQLite answers "database is locked"
        // at once rather than waiting (a lock upgrade that could deadlock):
        // waited out here, as long as the busy timeout.
        let mut waited_ms = 0;
        loop {
            let step = store
                .configure()
                .and_then(|()| migrations::migrate(&mut store.conn, &store.path));
            match step {
                Err(StoreError::Sqlite { source, .. })
                    if is_busy(&source) && waited_ms < BUSY_TIMEOUT_MS =>
                {
                    std::thread::sleep(std::time::Duration::from_millis(10));
                    waited_ms += 10;
                }
                step => {
                    step?;
                    return Ok(store);
                }
            }
        }
    }

    /// Opens the database as [`Self::open`] does, for a short-lived process
    /// that writes a few events and exits (a Claude Code hook call): closing
    /// it does not checkpoint the WAL (two fsyncs, most of such a process's
    /// time). Its commits stay in the WAL for the next checkpoint; call
    /// [`Self::truncate_wal_over`] to keep the WAL small, since every new
    /// process that finds no other connection recovers the whole WAL and
    /// its automatic checkpoints never let it restart.
    pub fn open_without_close_checkpoint(dir: &Path) -> Result<Self, StoreError> {
        let store = Self::open(dir)?;
        store
            .conn
            .set_db_config(
                rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
                true,
            )
            .map_err(|source| store.sqlite_error(source))?;
        Ok(store)
    }

    /// When the WAL file is over `max_bytes`, checkpoints it into the
    /// database and truncates it, without waiting for other connections
    /// (a reader in the way leaves it for a later call). Returns whether
    /// the WAL is now empty.
    pub fn truncate_wal_over(&self, max_bytes: u64) -> Result<bool, StoreError> {
        let mut wal = self.path.clone().into_os_string();
        wal.push("-wal");
        let len = std::fs::metadata(&wal).map_or(0, |m| m.len());
        if len <= max_bytes {
            return Ok(false);
        }
        let sqlite = |source| self.sqlite_error(source);
        self.conn
            .busy_timeout(std::time::Duration::ZERO)
            .map_err(sqlite)?;
        // (busy, WAL frames, frames checkpointed): busy 1 is a reader or
        // writer in the way.
        let busy = self
            .conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |row| {
                row.get::<_, i64>(0)
            });
        self.conn
            .busy_timeout(std::time::Duration::from_millis(BUSY_TIMEOUT_MS))
            .map_err(sqlite)?;
        Ok(busy.map_err(sqlite)? == 0)
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

/// Whether `e` is SQLite's "busy" or "locked".
fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    )
}

/// Milliseconds since the Unix epoch, now.
pub(crate) fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}
