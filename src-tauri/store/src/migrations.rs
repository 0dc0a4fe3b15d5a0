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
    // Session rules (issue 4 item 6 / issue 9): "allow for this session"
    // answers, restored into the permission engine when a session resumes.
    // `kind` is the rule list (allow, ask, deny); rows are only appended.
    "CREATE TABLE session_rules (
        id             INTEGER PRIMARY KEY,
        session_id     TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        kind           TEXT NOT NULL CHECK (kind IN ('allow', 'ask', 'deny')),
        rule           TEXT NOT NULL,
        created_at_ms  INTEGER NOT NULL
    );
    CREATE INDEX session_rules_by_session ON session_rules (session_id, id);",
    // Project trust (issue 4 item 2): when the user trusted the project, so
    // its settings' allow rules apply; NULL = not trusted.
    "ALTER TABLE projects ADD COLUMN trusted_at_ms INTEGER;",
    // MCP (issue 8): project MCP servers (`.mcp.json`) the user approved.
    // A row approves one server of one project with one configuration: the
    // fingerprint is a SHA-256 of the whole entry as written, values included
    // (issue 16; before it, an FNV-1a of env and header *names* only), so
    // any edit of the entry needs a new approval. Secret values live in the
    // keychain (`secretEnv` / `secretHeaders` count by name); none are here.
    "CREATE TABLE mcp_approved_servers (
        project_path   TEXT NOT NULL,
        server         TEXT NOT NULL,
        fingerprint    TEXT NOT NULL,
        approved_at_ms INTEGER NOT NULL,
        PRIMARY KEY (project_path, server)
    );",
    // Session counters, corrected: a live ask (`permission_requested`) is
    // an ask, and a refusal the user answered counts once (its
    // `permission_answered`), not again for the settled `permission_decided`.
    "UPDATE sessions SET
        asks = (SELECT COUNT(*) FROM session_events e
                WHERE e.session_id = sessions.id
                  AND (e.type = 'permission_requested'
                    OR (e.type = 'permission_decided' AND json_extract(e.body, '$.decision') = 'ask'))),
        denials = (SELECT COUNT(*) FROM session_events e
                   WHERE e.session_id = sessions.id
                     AND ((e.type = 'permission_decided' AND json_extract(e.body, '$.decision') = 'deny'
                           AND json_extract(e.body, '$.reason.kind') IS NOT 'user_answer')
                       OR (e.type = 'permission_answered' AND json_extract(e.body, '$.answer.kind') = 'deny')))
     WHERE EXISTS (SELECT 1 FROM session_events e
                   WHERE e.session_id = sessions.id
                     AND e.type IN ('permission_requested', 'permission_decided'));",
    // Issue 17, "states are true" and "looking never changes anything":
    // `active_ms` is the session's active time (the gaps between its
    // events, except the gap before a `session_started` or a
    // `session_ended`: the time between visits); `end_reason` is the
    // reason of its last `session_ended` (NULL while open); `host_pid` is
    // the process that opened it last, so a start-up can tell a session
    // another live process runs from one a stopped process left open.
    "ALTER TABLE sessions ADD COLUMN active_ms INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE sessions ADD COLUMN end_reason TEXT;
    ALTER TABLE sessions ADD COLUMN host_pid INTEGER;
    UPDATE sessions SET active_ms = COALESCE((
        SELECT SUM(MAX(gap, 0)) FROM (
            SELECT CASE WHEN e.type IN ('session_started', 'session_ended') THEN 0
                        ELSE e.ts_ms - LAG(e.ts_ms, 1, e.ts_ms) OVER (ORDER BY e.seq) END AS gap
            FROM session_events e WHERE e.session_id = sessions.id)), 0);",
];

/// The schema version this build writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// Brings `conn` up to [`SCHEMA_VERSION`], refusing databases from the future.
pub(crate) fn migrate(conn: &mut Connection, path: &Path) -> Result<(), StoreError> {
    migrate_to(conn, path, SCHEMA_VERSION)
}

/// Brings `conn` up to version `target` (tests stop early to build old
/// databases), refusing databases from the future.
fn migrate_to(conn: &mut Connection, path: &Path, target: i64) -> Result<(), StoreError> {
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
    let pending = MIGRATIONS
        .iter()
        .enumerate()
        .skip(found as usize)
        .take(usize::try_from(target - found).unwrap_or(0));
    for (index, sql) in pending {
        let version = index as i64 + 1;
        // Under the write lock, the version read again: another connection
        // opening a new or old file at the same moment (two hook processes,
        // the app and a hook) may have made this step already.
        let tx = conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(sqlite)?;
        let now: i64 = tx
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .map_err(sqlite)?;
        if now >= version {
            continue;
        }
        tx.execute_batch(sql).map_err(sqlite)?;
        tx.pragma_update(None, "user_version", version)
            .map_err(sqlite)?;
        tx.commit().map_err(sqlite)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The session-browser migration fills the new counters of sessions
    /// recorded before it from their events.
    #[test]
    fn the_session_browser_migration_backfills_counters_from_events() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db.sqlite3");
        let mut conn = Connection::open(&path).unwrap();
        // Version 2: sessions and events, before the counters existed.
        migrate_to(&mut conn, &path, 2).unwrap();
        conn.execute_batch(
            r#"INSERT INTO sessions (id, project_path, provider, model, mode, created_at_ms, updated_at_ms, event_count)
               VALUES ('s', '/p', 'replay', 'm', 'default', 1, 1, 8);
               INSERT INTO session_events (session_id, seq, ts_ms, type, tool_use_id, tool_name, body) VALUES
               ('s', 1, 1000, 'user_prompt', NULL, NULL, '{"type":"user_prompt","text":"hi"}'),
               ('s', 2, 1100, 'tool_queued', 'a', 'Bash', '{"type":"tool_queued","tool_use_id":"a","name":"Bash","input":{}}'),
               ('s', 3, 1200, 'permission_decided', 'a', NULL, '{"type":"permission_decided","tool_use_id":"a","decision":"deny"}'),
               ('s', 4, 1300, 'tool_completed', 'a', NULL, '{"type":"tool_completed","tool_use_id":"a","is_error":true}'),
               ('s', 5, 1400, 'tool_queued', 'b', 'Read', '{"type":"tool_queued","tool_use_id":"b","name":"Read","input":{}}'),
               ('s', 6, 1500, 'permission_decided', 'b', NULL, '{"type":"permission_decided","tool_use_id":"b","decision":"ask"}'),
               ('s', 7, 1600, 'tool_completed', 'b', NULL, '{"type":"tool_completed","tool_use_id":"b","is_error":true}'),
               ('s', 8, 4000, 'usage', NULL, NULL, '{"type":"usage","input_tokens":10,"output_tokens":5,"cache_creation_input_tokens":1,"cache_read_input_tokens":2}');"#,
        )
        .unwrap();
        migrate(&mut conn, &path).unwrap();
        let row: (i64, i64, i64, i64, i64, i64, i64, String) = conn
            .query_row(
                "SELECT tool_calls, asks, denials, errors, input_tokens, output_tokens,
                        last_event_ms - first_event_ms, origin FROM sessions WHERE id = 's'",
                [],
                |r| {
                    Ok((
                        r.get(0)?,
                        r.get(1)?,
                        r.get(2)?,
                        r.get(3)?,
                        r.get(4)?,
                        r.get(5)?,
                        r.get(6)?,
                        r.get(7)?,
                    ))
                },
            )
            .unwrap();
        assert_eq!(row, (2, 1, 1, 1, 13, 5, 3000, "gatehouse".to_owned()));
    }

    /// Sessions counted before the correction (live asks missed, answered
    /// refusals counted twice) get their asks and denials recomputed.
    #[test]
    fn the_counter_correction_recounts_live_asks_and_answered_refusals() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db.sqlite3");
        let mut conn = Connection::open(&path).unwrap();
        let correction = MIGRATIONS
            .iter()
            .position(|m| m.contains("permission_requested"))
            .unwrap() as i64;
        migrate_to(&mut conn, &path, correction).unwrap();
        conn.execute_batch(
            r#"INSERT INTO sessions (id, project_path, provider, model, mode, created_at_ms, updated_at_ms, event_count, asks, denials)
               VALUES ('s', '/p', 'replay', 'm', 'default', 1, 1, 6, 0, 2);
               INSERT INTO session_events (session_id, seq, ts_ms, type, tool_use_id, tool_name, body) VALUES
               ('s', 1, 1000, 'tool_queued', 'a', 'Bash', '{"type":"tool_queued","tool_use_id":"a","name":"Bash","input":{}}'),
               ('s', 2, 1100, 'permission_requested', 'a', NULL, '{"type":"permission_requested","tool_use_id":"a"}'),
               ('s', 3, 1200, 'permission_answered', 'a', NULL, '{"type":"permission_answered","tool_use_id":"a","answer":{"kind":"deny","feedback":null}}'),
               ('s', 4, 1300, 'permission_decided', 'a', NULL, '{"type":"permission_decided","tool_use_id":"a","decision":"deny","reason":{"kind":"user_answer","answer":"deny"}}'),
               ('s', 5, 1400, 'tool_queued', 'b', 'Bash', '{"type":"tool_queued","tool_use_id":"b","name":"Bash","input":{}}'),
               ('s', 6, 1500, 'permission_decided', 'b', NULL, '{"type":"permission_decided","tool_use_id":"b","decision":"deny","reason":{"kind":"rule"}}');"#,
        )
        .unwrap();
        migrate(&mut conn, &path).unwrap();
        let counts: (i64, i64) = conn
            .query_row(
                "SELECT asks, denials FROM sessions WHERE id = 's'",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert_eq!(
            counts,
            (1, 2),
            "one live ask; a refusal by the user and one by a rule"
        );
    }
}
