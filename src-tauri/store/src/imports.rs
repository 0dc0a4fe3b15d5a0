//! Where imports of transcript files stand (incremental re-import).

use rusqlite::{OptionalExtension, params};

use crate::events::{append_in_as, immediate};
use crate::{EventRecord, ImportCheckpoint, Store, StoreError, now_ms};

/// How far a source file has been imported, and into which session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportRecord {
    /// The source file (canonical path).
    pub path: String,
    /// The session its events went to.
    pub session_id: String,
    /// Bytes consumed (at a line boundary).
    pub byte_offset: u64,
    /// Lines consumed.
    pub line: u64,
    /// The importer's own state (JSON).
    pub state: String,
}

impl Store {
    /// The import record of `path`, if it was imported before.
    pub fn import_record(&self, path: &str) -> Result<Option<ImportRecord>, StoreError> {
        self.conn
            .query_row(
                "SELECT path, session_id, byte_offset, line, state FROM import_sources WHERE path = ?1",
                params![path],
                |r| {
                    Ok(ImportRecord {
                        path: r.get(0)?,
                        session_id: r.get(1)?,
                        byte_offset: u64::try_from(r.get::<_, i64>(2)?).unwrap_or(0),
                        line: u64::try_from(r.get::<_, i64>(3)?).unwrap_or(0),
                        state: r.get(4)?,
                    })
                },
            )
            .optional()
            .map_err(|e| self.sqlite_error(e))
    }
}

/// What a session already holds of each call, read inside the write
/// transaction of [`Store::append_checked`].
pub struct CallLookup<'t> {
    tx: &'t rusqlite::Transaction<'t>,
    path: &'t std::path::Path,
    session_id: &'t str,
}

impl CallLookup<'_> {
    /// The event types stored for call `tool_use_id` of the session, in
    /// order (`tool_queued`, `permission_decided`, …).
    pub fn call_event_types(&self, tool_use_id: &str) -> Result<Vec<String>, StoreError> {
        let sqlite = |source| StoreError::Sqlite {
            path: self.path.to_path_buf(),
            source,
        };
        let mut statement = self
            .tx
            .prepare_cached(
                "SELECT type FROM session_events
                 WHERE tool_use_id = ?1 AND session_id = ?2 ORDER BY seq",
            )
            .map_err(sqlite)?;
        let rows = statement
            .query_map(params![tool_use_id, self.session_id], |r| r.get(0))
            .map_err(sqlite)?;
        rows.collect::<Result<_, _>>().map_err(sqlite)
    }

    /// The byte offset recorded for import source `path`, if any.
    pub fn import_offset(&self, path: &str) -> Result<Option<u64>, StoreError> {
        self.tx
            .query_row(
                "SELECT byte_offset FROM import_sources WHERE path = ?1",
                params![path],
                |r| r.get::<_, i64>(0),
            )
            .optional()
            .map(|o| o.map(|n| u64::try_from(n).unwrap_or(0)))
            .map_err(|source| StoreError::Sqlite {
                path: self.path.to_path_buf(),
                source,
            })
    }
}

impl Store {
    /// Appends to session `session_id` the records `choose` returns after
    /// looking at what the session holds (`CallLookup`), with `checkpoint`
    /// when given, all in one write transaction: no other writer (another
    /// process's hook call, the transcript tailer) appends between the look
    /// and the append, so two writers of one call cannot both add what
    /// neither saw. `choose` returning `None` writes nothing, not even the
    /// checkpoint (another reader of the source was first). The session's
    /// counters are updated as for live events. Returns how many records
    /// were appended (`None`: nothing was written).
    pub fn append_checked<F>(
        &mut self,
        session_id: &str,
        checkpoint: Option<&ImportCheckpoint>,
        choose: F,
    ) -> Result<Option<usize>, StoreError>
    where
        F: FnOnce(&CallLookup<'_>) -> Result<Option<Vec<EventRecord>>, StoreError>,
    {
        let path = self.path.clone();
        let tx = immediate(&mut self.conn, &self.path)?;
        let Some(records) = choose(&CallLookup {
            tx: &tx,
            path: &path,
            session_id,
        })?
        else {
            return Ok(None);
        };
        if let Some(stray) = records.iter().find(|r| r.event.session_id != session_id) {
            return Err(StoreError::Invalid(format!(
                "an event of session {} was appended to session {session_id}",
                stray.event.session_id
            )));
        }
        if !records.is_empty() || checkpoint.is_some() {
            append_in_as(
                &tx,
                &path,
                session_id,
                records.iter().map(|r| (&r.event, r.raw.as_deref())),
                checkpoint,
                true,
            )?;
        }
        tx.commit()
            .map_err(|source| StoreError::Sqlite { path, source })?;
        Ok(Some(records.len()))
    }

    /// Records that source `path` feeds session `session_id`, read from its
    /// start with importer state `state`, unless a record of `path` exists
    /// already (then it is left as it is). Returns whether it was added.
    pub fn add_import_source(
        &self,
        path: &str,
        session_id: &str,
        state: &str,
    ) -> Result<bool, StoreError> {
        self.conn
            .execute(
                "INSERT INTO import_sources (path, session_id, byte_offset, line, state, updated_at_ms)
                 VALUES (?1, ?2, 0, 0, ?3, ?4) ON CONFLICT (path) DO NOTHING",
                params![path, session_id, state, now_ms()],
            )
            .map(|n| n > 0)
            .map_err(|e| self.sqlite_error(e))
    }

    /// The import records whose path starts with `prefix`, each with
    /// whether its session is still running, most recently updated session
    /// first, at most `limit`.
    pub fn import_records_with_prefix(
        &self,
        prefix: &str,
        limit: u32,
    ) -> Result<Vec<(ImportRecord, bool)>, StoreError> {
        let mut statement = self
            .conn
            .prepare_cached(
                "SELECT i.path, i.session_id, i.byte_offset, i.line, i.state, s.status = 'running'
                 FROM import_sources i JOIN sessions s ON s.id = i.session_id
                 WHERE substr(i.path, 1, length(?1)) = ?1
                 ORDER BY s.updated_at_ms DESC LIMIT ?2",
            )
            .map_err(|e| self.sqlite_error(e))?;
        let rows = statement
            .query_map(params![prefix, limit], |r| {
                Ok((
                    ImportRecord {
                        path: r.get(0)?,
                        session_id: r.get(1)?,
                        byte_offset: u64::try_from(r.get::<_, i64>(2)?).unwrap_or(0),
                        line: u64::try_from(r.get::<_, i64>(3)?).unwrap_or(0),
                        state: r.get(4)?,
                    },
                    r.get::<_, bool>(5)?,
                ))
            })
            .map_err(|e| self.sqlite_error(e))?;
        rows.collect::<Result<_, _>>()
            .map_err(|e| self.sqlite_error(e))
    }
}
