//! Housekeeping: deleting sessions with their files, retention, disk
//! usage (compaction: `compaction.rs`).

use std::path::{Path, PathBuf};

use gatehouse_protocol::session::StorageUsage;
use rusqlite::{OptionalExtension, params};

use crate::sessions::validate_session_id;
use crate::{Store, StoreError, now_ms};

/// The settings key of the retention period.
const RETENTION_KEY: &str = "retention_days";

/// Milliseconds in a day.
const DAY_MS: i64 = 24 * 60 * 60 * 1000;

/// Total size of the regular files under `dir` (0 when it does not exist).
fn tree_size(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|entry| match entry.file_type() {
            Ok(t) if t.is_dir() => tree_size(&entry.path()),
            Ok(t) if t.is_file() => entry.metadata().map_or(0, |m| m.len()),
            _ => 0,
        })
        .sum()
}

impl Store {
    /// The folder holding a session's files (spilled tool results, Bash and
    /// task output): `<data dir>/sessions/<id>/`.
    pub fn session_dir(&self, id: &str) -> Result<PathBuf, StoreError> {
        validate_session_id(id)?;
        Ok(self.sessions_root().join(id))
    }

    fn sessions_root(&self) -> PathBuf {
        self.path
            .parent()
            .map_or_else(|| PathBuf::from("sessions"), |dir| dir.join("sessions"))
    }

    /// Deletes session `id`, its events, its search index entries, its
    /// import record, its sub-agent sessions, and its folder of files.
    /// Returns the ids deleted (empty when it was not stored).
    pub fn delete_session(&mut self, id: &str) -> Result<Vec<String>, StoreError> {
        let mut ids = vec![id.to_owned()];
        let mut next = 0;
        while next < ids.len() {
            let children = self.child_sessions(&ids[next])?;
            ids.extend(children.into_iter().map(|c| c.id));
            next += 1;
        }
        let path = self.path.clone();
        let sqlite = |source| StoreError::Sqlite {
            path: path.clone(),
            source,
        };
        // IMMEDIATE: the write lock is taken at BEGIN, where SQLite waits
        // out the busy timeout for another writer (the session's event
        // writer may still be committing); a deferred transaction could
        // get SQLITE_BUSY at once when its lock is upgraded.
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(sqlite)?;
        let mut deleted = Vec::new();
        for id in &ids {
            tx.execute(
                "DELETE FROM session_search WHERE rowid IN
                 (SELECT id FROM session_events WHERE session_id = ?1)",
                params![id],
            )
            .map_err(sqlite)?;
            if tx
                .execute("DELETE FROM sessions WHERE id = ?1", params![id])
                .map_err(sqlite)?
                > 0
            {
                deleted.push(id.clone());
            }
        }
        tx.commit().map_err(sqlite)?;
        for id in &deleted {
            // Ids that could escape `sessions/` never had a folder there.
            let Ok(dir) = self.session_dir(id) else {
                continue;
            };
            match std::fs::remove_dir_all(&dir) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(source) => return Err(StoreError::Io { path: dir, source }),
            }
        }
        Ok(deleted)
    }

    /// Deletes every session last active before `cutoff_ms` (ms since the
    /// epoch), with its sub-agent sessions; returns the ids deleted.
    ///
    /// Status is not consulted: a session killed mid-run stays `running`
    /// forever, and one untouched for the whole retention period is not
    /// running in any useful sense.
    pub fn delete_sessions_before(&mut self, cutoff_ms: i64) -> Result<Vec<String>, StoreError> {
        let ids: Vec<String> = {
            let mut stmt = self
                .conn
                .prepare(
                    "SELECT id FROM sessions WHERE updated_at_ms < ?1
                     AND parent_session_id IS NULL ORDER BY updated_at_ms",
                )
                .map_err(|e| self.sqlite_error(e))?;
            let rows = stmt
                .query_map(params![cutoff_ms], |r| r.get(0))
                .map_err(|e| self.sqlite_error(e))?;
            rows.collect::<Result<_, _>>()
                .map_err(|e| self.sqlite_error(e))?
        };
        let mut deleted = Vec::new();
        for id in ids {
            deleted.extend(self.delete_session(&id)?);
        }
        Ok(deleted)
    }

    /// The retention period in days (`None`: keep sessions forever).
    pub fn retention_days(&self) -> Result<Option<u32>, StoreError> {
        let value: Option<String> = self
            .conn
            .query_row(
                "SELECT value FROM settings WHERE key = ?1",
                params![RETENTION_KEY],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.sqlite_error(e))?;
        value
            .map(|v| {
                v.parse().map_err(|_| {
                    StoreError::Invalid(format!(
                        "the stored retention setting {v:?} in {} is not a number of days",
                        self.path.display()
                    ))
                })
            })
            .transpose()
    }

    /// Sets (or with `None` clears) the retention period in days; 0 is
    /// refused (it would delete everything at once).
    pub fn set_retention_days(&self, days: Option<u32>) -> Result<(), StoreError> {
        match days {
            Some(0) => Err(StoreError::Invalid(
                "a retention of 0 days would delete every session; use at least 1".into(),
            )),
            Some(days) => self
                .conn
                .execute(
                    "INSERT INTO settings (key, value) VALUES (?1, ?2)
                     ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    params![RETENTION_KEY, days.to_string()],
                )
                .map(|_| ())
                .map_err(|e| self.sqlite_error(e)),
            None => self
                .conn
                .execute(
                    "DELETE FROM settings WHERE key = ?1",
                    params![RETENTION_KEY],
                )
                .map(|_| ())
                .map_err(|e| self.sqlite_error(e)),
        }
    }

    /// Applies the retention setting: deletes sessions last active more
    /// than that many days ago. Returns the ids deleted (none when no
    /// retention is set).
    pub fn apply_retention(&mut self) -> Result<Vec<String>, StoreError> {
        match self.retention_days()? {
            Some(days) => self.delete_sessions_before(now_ms() - i64::from(days) * DAY_MS),
            None => Ok(Vec::new()),
        }
    }

    /// How much disk the sessions take.
    pub fn storage_usage(&self) -> Result<StorageUsage, StoreError> {
        let pragma = |name: &str| -> Result<u64, StoreError> {
            self.conn
                .query_row(&format!("PRAGMA {name}"), [], |r| r.get::<_, i64>(0))
                .map(|n| u64::try_from(n).unwrap_or(0))
                .map_err(|e| self.sqlite_error(e))
        };
        let count = |sql: &str| -> Result<u64, StoreError> {
            self.conn
                .query_row(sql, [], |r| r.get::<_, i64>(0))
                .map(|n| u64::try_from(n).unwrap_or(0))
                .map_err(|e| self.sqlite_error(e))
        };
        let page_size = pragma("page_size")?;
        let file_len = |p: &Path| std::fs::metadata(p).map_or(0, |m| m.len());
        let mut wal = self.path.clone().into_os_string();
        wal.push("-wal");
        Ok(StorageUsage {
            database_bytes: file_len(&self.path),
            wal_bytes: file_len(Path::new(&wal)),
            reclaimable_bytes: pragma("freelist_count")? * page_size,
            session_files_bytes: tree_size(&self.sessions_root()),
            sessions: count("SELECT COUNT(*) FROM sessions")?,
            events: count("SELECT COUNT(*) FROM session_events")?,
        })
    }

    /// SQLite's `PRAGMA integrity_check` plus the search index's own check:
    /// the problems found, none when the database is sound (after a crash,
    /// in diagnostics and tests).
    pub fn integrity_problems(&self) -> Result<Vec<String>, StoreError> {
        let mut stmt = self
            .conn
            .prepare("PRAGMA integrity_check")
            .map_err(|e| self.sqlite_error(e))?;
        let mut problems: Vec<String> = stmt
            .query_map([], |r| r.get::<_, String>(0))
            .map_err(|e| self.sqlite_error(e))?
            .collect::<Result<_, _>>()
            .map_err(|e| self.sqlite_error(e))?;
        problems.retain(|p| p != "ok");
        if let Err(e) = self.conn.execute(
            "INSERT INTO session_search (session_search) VALUES ('integrity-check')",
            [],
        ) {
            problems.push(format!("search index: {e}"));
        }
        Ok(problems)
    }
}
