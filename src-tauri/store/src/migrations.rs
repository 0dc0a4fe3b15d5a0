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
