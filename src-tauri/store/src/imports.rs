//! Where imports of transcript files stand (incremental re-import).

use rusqlite::{OptionalExtension, params};

use crate::{Store, StoreError};

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
