//! Compaction in short steps (issue 16 item 1).
//!
//! A whole-file `VACUUM` holds the write lock for its whole run (8-14 s on
//! a 600 MB database), and every session's durable writes wait behind it:
//! a permission modal's answer took 5.8 s when its click fell inside one.
//! So databases are created with `auto_vacuum = INCREMENTAL` and compact
//! in steps, each its own short write transaction, between which session
//! writers commit:
//!
//! 1. the search index is merged `('merge', -N)` at a time (N pages
//!    written per step) until a step changes nothing, which leaves it as
//!    `'optimize'` would;
//! 2. free pages go back to the file system `incremental_vacuum(N)` at a
//!    time until the free list is empty;
//! 3. after each step a PASSIVE checkpoint folds the WAL into the file
//!    without waiting for anyone, and at the end a TRUNCATE checkpoint
//!    empties the WAL only if it can do so without waiting.
//!
//! A database created by an earlier version (`auto_vacuum = NONE`) can
//! only switch by one full `VACUUM`. That is done only when no session is
//! open (the caller says how many are); otherwise the index is merged in
//! steps, the result says the rewrite is waiting, and the store remembers
//! it so the app can run it at its next start-up.

use std::ops::ControlFlow;

use gatehouse_protocol::browser::{Compaction, FullRewrite};
use rusqlite::{OptionalExtension, TransactionBehavior, params};

use crate::{BUSY_TIMEOUT_MS, Store, StoreError};

/// Pages of search index written per merge step (FTS5 pages of ~4 KB: a
/// few MB, some tens of milliseconds).
const MERGE_PAGES: i64 = 512;

/// Free pages given back per step (4 MiB at the default page size).
const FREE_PAGES_PER_STEP: i64 = 1024;

/// Merge steps at most: a session that writes all the time adds new
/// segments, which a merge in progress takes in and restarts over; the
/// bound keeps such a compaction finite (the index is merged as far as it
/// got, and the next compaction goes on).
const MAX_MERGE_STEPS: u32 = 100_000;

/// The settings key remembering that a full rewrite was put off.
const PENDING_KEY: &str = "full_rewrite_pending";

/// SQLite's `auto_vacuum` value for INCREMENTAL.
const INCREMENTAL: i64 = 2;

/// What a compaction step did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompactionPhase {
    /// Merged part of the search index.
    SearchIndex,
    /// Gave free pages back to the file system.
    FreePages,
    /// Rewrote the whole file (the one `VACUUM` of an old database).
    FullRewrite,
}

/// Reported after each step of [`Store::vacuum_with`], with no transaction
/// open: other connections can write meanwhile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompactionStep {
    /// What the step did.
    pub phase: CompactionPhase,
    /// Steps done so far, this one included.
    pub steps: u32,
    /// Free pages still in the file, in bytes.
    pub free_bytes_left: u64,
}

impl Store {
    /// Compacts the database in steps (see the module documentation);
    /// `open_sessions` is how many sessions are open, which decides
    /// whether an old database may be rewritten whole now.
    pub fn vacuum(&mut self, open_sessions: u32) -> Result<Compaction, StoreError> {
        self.vacuum_with(open_sessions, |_| ControlFlow::Continue(()))
    }

    /// [`Store::vacuum`], calling `on_step` after each step;
    /// `ControlFlow::Break` stops there (what was done stays done, and
    /// the result says `cancelled`).
    pub fn vacuum_with(
        &mut self,
        open_sessions: u32,
        mut on_step: impl FnMut(&CompactionStep) -> ControlFlow<()>,
    ) -> Result<Compaction, StoreError> {
        let free_before = self.free_bytes()?;
        let mut steps = 0;
        let mut report = |store: &Self, phase, steps| -> Result<bool, StoreError> {
            store.checkpoint_passive()?;
            let step = CompactionStep {
                phase,
                steps,
                free_bytes_left: store.free_bytes()?,
            };
            Ok(on_step(&step).is_break())
        };
        let incremental = self.pragma_i64("auto_vacuum")? == INCREMENTAL;
        let full_rewrite = if incremental {
            FullRewrite::NotNeeded
        } else if open_sessions == 0 {
            self.rewrite_whole()?;
            steps += 1;
            let cancelled = report(self, CompactionPhase::FullRewrite, steps)?;
            return self.finish(steps, free_before, cancelled, FullRewrite::Done);
        } else {
            self.set_pending(true)?;
            FullRewrite::WaitingForOpenSessions { open_sessions }
        };

        for _ in 0..MAX_MERGE_STEPS {
            let changed = self.merge_step()?;
            steps += 1;
            if report(self, CompactionPhase::SearchIndex, steps)? {
                return self.finish(steps, free_before, true, full_rewrite);
            }
            if !changed {
                break;
            }
        }
        if incremental {
            while self.free_bytes()? > 0 {
                self.free_pages_step()?;
                steps += 1;
                if report(self, CompactionPhase::FreePages, steps)? {
                    return self.finish(steps, free_before, true, full_rewrite);
                }
            }
        }
        self.finish(steps, free_before, false, full_rewrite)
    }

    /// Whether a full rewrite was put off because sessions were open (the
    /// app runs it at start-up, before any session opens).
    pub fn full_rewrite_pending(&self) -> Result<bool, StoreError> {
        if self.pragma_i64("auto_vacuum")? == INCREMENTAL {
            return Ok(false);
        }
        self.conn
            .query_row(
                "SELECT 1 FROM settings WHERE key = ?1",
                params![PENDING_KEY],
                |_| Ok(()),
            )
            .optional()
            .map(|found| found.is_some())
            .map_err(|e| self.sqlite_error(e))
    }

    fn finish(
        &mut self,
        steps: u32,
        free_before: u64,
        cancelled: bool,
        full_rewrite: FullRewrite,
    ) -> Result<Compaction, StoreError> {
        let free_after = self.free_bytes()?;
        Ok(Compaction {
            steps,
            freed_bytes: free_before.saturating_sub(free_after),
            wal_truncated: self.truncate_wal_without_waiting()?,
            cancelled,
            full_rewrite,
        })
    }

    /// The one full `VACUUM` that switches an old database to
    /// `auto_vacuum = INCREMENTAL` (the pragma takes effect at a VACUUM).
    fn rewrite_whole(&mut self) -> Result<(), StoreError> {
        self.conn
            .execute_batch(
                "PRAGMA auto_vacuum = INCREMENTAL;
                 INSERT INTO session_search (session_search) VALUES ('optimize');
                 VACUUM;",
            )
            .map_err(|e| self.sqlite_error(e))?;
        self.set_pending(false)
    }

    /// One merge step of the search index in its own write transaction;
    /// whether it changed anything (FTS5: fewer than two changes means
    /// the merge is complete).
    fn merge_step(&mut self) -> Result<bool, StoreError> {
        let path = self.path.clone();
        let sqlite = |source| StoreError::Sqlite {
            path: path.clone(),
            source,
        };
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sqlite)?;
        let before = tx.total_changes();
        tx.execute(
            "INSERT INTO session_search (session_search, rank) VALUES ('merge', ?1)",
            params![-MERGE_PAGES],
        )
        .map_err(sqlite)?;
        let changes = tx.total_changes() - before;
        tx.commit().map_err(sqlite)?;
        Ok(changes >= 2)
    }

    /// Gives up to [`FREE_PAGES_PER_STEP`] free pages back in its own
    /// write transaction.
    fn free_pages_step(&mut self) -> Result<(), StoreError> {
        let path = self.path.clone();
        let sqlite = |source| StoreError::Sqlite {
            path: path.clone(),
            source,
        };
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sqlite)?;
        {
            // It gives back one page per step of the statement: run it to
            // the end (`execute_batch` steps it once, freeing one page).
            let mut stmt = tx
                .prepare(&format!("PRAGMA incremental_vacuum({FREE_PAGES_PER_STEP})"))
                .map_err(sqlite)?;
            let mut rows = stmt.query([]).map_err(sqlite)?;
            while rows.next().map_err(sqlite)?.is_some() {}
        }
        tx.commit().map_err(sqlite)
    }

    /// Folds what it can of the WAL into the file, waiting for nobody.
    fn checkpoint_passive(&self) -> Result<(), StoreError> {
        self.conn
            .query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))
            .map_err(|e| self.sqlite_error(e))
    }

    /// Empties the WAL if that needs no waiting: the busy timeout is off
    /// for the TRUNCATE checkpoint, which otherwise would wait for every
    /// reader and block new writers meanwhile. Whether it was emptied.
    fn truncate_wal_without_waiting(&self) -> Result<bool, StoreError> {
        let sqlite = |e| self.sqlite_error(e);
        self.conn
            .busy_timeout(std::time::Duration::ZERO)
            .map_err(sqlite)?;
        let busy = self
            .conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| {
                r.get::<_, i64>(0)
            });
        self.conn
            .busy_timeout(std::time::Duration::from_millis(BUSY_TIMEOUT_MS))
            .map_err(sqlite)?;
        match busy {
            Ok(busy) => Ok(busy == 0),
            Err(rusqlite::Error::SqliteFailure(e, _))
                if e.code == rusqlite::ErrorCode::DatabaseBusy =>
            {
                Ok(false)
            }
            Err(e) => Err(sqlite(e)),
        }
    }

    fn set_pending(&self, pending: bool) -> Result<(), StoreError> {
        let sql = if pending {
            "INSERT INTO settings (key, value) VALUES (?1, '1')
             ON CONFLICT (key) DO NOTHING"
        } else {
            "DELETE FROM settings WHERE key = ?1"
        };
        self.conn
            .execute(sql, params![PENDING_KEY])
            .map(|_| ())
            .map_err(|e| self.sqlite_error(e))
    }

    fn free_bytes(&self) -> Result<u64, StoreError> {
        let free = self.pragma_i64("freelist_count")?;
        let page = self.pragma_i64("page_size")?;
        Ok(u64::try_from(free.saturating_mul(page)).unwrap_or(0))
    }

    pub(crate) fn pragma_i64(&self, name: &str) -> Result<i64, StoreError> {
        self.conn
            .query_row(&format!("PRAGMA {name}"), [], |r| r.get(0))
            .map_err(|e| self.sqlite_error(e))
    }
}
