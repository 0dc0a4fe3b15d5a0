//! Versioned schema migrations, tracked in SQLite's `user_version`.
//!
//! Migrations are append-only: never edit one that has shipped, add the next.
//! Each runs in its own transaction together with the version bump, so a
//! crash mid-migration leaves the previous version intact.

use std::path::Path;

use rusqlite::Connection;

use crate::StoreError;

/// The migrations, in order; migration `i` moves the schema to version `i + 1`.
const MIGRATIONS: &[&str] = &[
    // 1: projects.
    "CREATE TABLE projects (
        id             INTEGER PRIMARY KEY,
        path           TEXT NOT NULL UNIQUE,
        name           TEXT NOT NULL,
        added_at_ms    INTEGER NOT NULL,
        last_opened_ms INTEGER NOT NULL
    );
    CREATE INDEX projects_by_last_opened ON projects (last_opened_ms DESC);",
    // 2: sessions and their append-only event streams, with full-text search.
    // `session_events` holds every event exactly as emitted (`body` is the
    // event's JSON line); the extracted columns serve review (by turn),
    // rule replay (tool_queued + permission_decided by tool_use_id, by
    // tool_name) and search (`session_search`, FTS5 over the event's text,
    // rowid = session_events.id). Events are never updated.
    "CREATE TABLE sessions (
        id             TEXT PRIMARY KEY,
        project_path   TEXT NOT NULL,
        provider       TEXT NOT NULL,
        model          TEXT NOT NULL,
        mode           TEXT NOT NULL,
        status         TEXT NOT NULL DEFAULT 'running',
        title          TEXT,
        created_at_ms  INTEGER NOT NULL,
        updated_at_ms  INTEGER NOT NULL,
        event_count    INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX sessions_by_project ON sessions (project_path, updated_at_ms DESC);
    CREATE INDEX sessions_by_updated ON sessions (updated_at_ms DESC);
    CREATE TABLE session_events (
        id           INTEGER PRIMARY KEY,
        session_id   TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        seq          INTEGER NOT NULL,
        ts_ms        INTEGER NOT NULL,
        type         TEXT NOT NULL,
        tool_use_id  TEXT,
        tool_name    TEXT,
        body         TEXT NOT NULL,
        UNIQUE (session_id, seq)
    );
    CREATE INDEX session_events_by_type ON session_events (type, session_id);
    CREATE INDEX session_events_by_call ON session_events (tool_use_id) WHERE tool_use_id IS NOT NULL;
    CREATE INDEX session_events_by_tool ON session_events (tool_name) WHERE tool_name IS NOT NULL;
    CREATE TRIGGER session_events_append_only BEFORE UPDATE ON session_events
    BEGIN
        SELECT RAISE(ABORT, 'session events are append-only');
    END;
    CREATE VIRTUAL TABLE session_search USING fts5 (text, tokenize = 'unicode61');",
    // Session browser (issue 11): per-session counters kept up to date as
    // events are appended (so lists never scan events), where a session came
    // from (Claude Code imports), leftover raw fields of imported entries,
    // per-file import progress (incremental re-import) and settings
    // (retention). Existing sessions are backfilled from their events.
    "ALTER TABLE sessions ADD COLUMN origin TEXT NOT NULL DEFAULT 'gatehouse';
    ALTER TABLE sessions ADD COLUMN first_event_ms INTEGER;
    ALTER TABLE sessions ADD COLUMN last_event_ms INTEGER;
    ALTER TABLE sessions ADD COLUMN tool_calls INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE sessions ADD COLUMN asks INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE sessions ADD COLUMN denials INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE sessions ADD COLUMN errors INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE sessions ADD COLUMN input_tokens INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE sessions ADD COLUMN output_tokens INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE sessions ADD COLUMN parent_session_id TEXT;
    ALTER TABLE sessions ADD COLUMN source_path TEXT;
    ALTER TABLE session_events ADD COLUMN raw TEXT;
    CREATE INDEX sessions_by_created ON sessions (created_at_ms DESC);
    CREATE INDEX sessions_by_parent ON sessions (parent_session_id) WHERE parent_session_id IS NOT NULL;
    CREATE TEMP TABLE denied_calls AS
        SELECT DISTINCT session_id, tool_use_id FROM session_events
        WHERE (type = 'permission_decided' AND json_extract(body, '$.decision') = 'deny')
           OR (type = 'permission_answered' AND json_extract(body, '$.answer.kind') = 'deny');
    UPDATE sessions SET
        first_event_ms = (SELECT MIN(ts_ms) FROM session_events e WHERE e.session_id = sessions.id),
        last_event_ms = (SELECT MAX(ts_ms) FROM session_events e WHERE e.session_id = sessions.id),
        tool_calls = (SELECT COUNT(*) FROM session_events e
                      WHERE e.session_id = sessions.id AND e.type = 'tool_queued'),
        asks = (SELECT COUNT(*) FROM session_events e
                WHERE e.session_id = sessions.id AND e.type = 'permission_decided'
                  AND json_extract(e.body, '$.decision') = 'ask'),
        denials = (SELECT COUNT(*) FROM session_events e
                   WHERE e.session_id = sessions.id
                     AND ((e.type = 'permission_decided' AND json_extract(e.body, '$.decision') = 'deny')
                       OR (e.type = 'permission_answered' AND json_extract(e.body, '$.answer.kind') = 'deny'))),
        errors = (SELECT COUNT(*) FROM session_events e
                  WHERE e.session_id = sessions.id
                    AND ((e.type = 'tool_completed' AND json_extract(e.body, '$.is_error')
                          AND NOT EXISTS (SELECT 1 FROM denied_calls d
                                          WHERE d.session_id = e.session_id AND d.tool_use_id = e.tool_use_id))
                      OR e.type = 'session_error')),
        input_tokens = (SELECT COALESCE(SUM(json_extract(e.body, '$.input_tokens')
                                   + json_extract(e.body, '$.cache_creation_input_tokens')
                                   + json_extract(e.body, '$.cache_read_input_tokens')), 0)
                        FROM session_events e WHERE e.session_id = sessions.id AND e.type = 'usage'),
        output_tokens = (SELECT COALESCE(SUM(json_extract(e.body, '$.output_tokens')), 0)
                         FROM session_events e WHERE e.session_id = sessions.id AND e.type = 'usage');
    DROP TABLE denied_calls;
    CREATE TABLE import_sources (
        path           TEXT PRIMARY KEY,
        session_id     TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        byte_offset    INTEGER NOT NULL,
        line           INTEGER NOT NULL,
        state          TEXT NOT NULL,
        updated_at_ms  INTEGER NOT NULL
    );
    CREATE INDEX import_sources_by_session ON import_sources (session_id);
    CREATE TABLE settings (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );",
];

/// The schema version this build writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// Brings `conn` up to [`SCHEMA_VERSION`], refusing databases from the future.
pub(crate) fn migrate(conn: &mut Connection, path: &Path) -> Result<(), StoreError> {
    let sqlite = |source| StoreError::Sqlite {
        path: path.to_path_buf(),
        source,
    };
    // Reading user_version is the first real read of the file: a damaged or
    // non-SQLite file fails here with "file is not a database".
    let found: i64 = conn
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .map_err(sqlite)?;
    if found > SCHEMA_VERSION {
        return Err(StoreError::TooNew {
            path: path.to_path_buf(),
            found,
            supported: SCHEMA_VERSION,
        });
    }
    for (index, sql) in MIGRATIONS.iter().enumerate().skip(found as usize) {
        let version = index as i64 + 1;
        let tx = conn.transaction().map_err(sqlite)?;
        tx.execute_batch(sql).map_err(sqlite)?;
        tx.pragma_update(None, "user_version", version)
            .map_err(sqlite)?;
        tx.commit().map_err(sqlite)?;
    }
    Ok(())
}
