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
    // MCP (issue 8): project MCP servers (`.mcp.json`) the user approved.
    // A row approves one server of one project with one configuration: the
    // fingerprint hashes what the server runs or connects to (command, args,
    // url, env and header *names*, never their values), so an edited
    // `.mcp.json` needs a new approval. No secrets are stored here.
    "CREATE TABLE mcp_approved_servers (
        project_path   TEXT NOT NULL,
        server         TEXT NOT NULL,
        fingerprint    TEXT NOT NULL,
        approved_at_ms INTEGER NOT NULL,
        PRIMARY KEY (project_path, server)
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
