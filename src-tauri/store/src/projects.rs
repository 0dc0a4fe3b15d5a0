//! Projects: folders the user has opened.

use std::path::Path;

use gatehouse_protocol::permission::RuleSource;
use gatehouse_protocol::project::Project;
use rusqlite::{OptionalExtension, Row, params};

use crate::{Store, StoreError, now_ms};

const COLUMNS: &str = "id, path, name, added_at_ms, last_opened_ms, trusted_at_ms";

fn project_from_row(row: &Row<'_>) -> rusqlite::Result<Project> {
    let path: String = row.get(1)?;
    // The project's own settings files, as the engine reads them.
    let has_project_settings = [RuleSource::Local, RuleSource::Project]
        .iter()
        .any(|source| {
            source
                .settings_file(Path::new(&path), Path::new(""))
                .is_some_and(|f| f.is_file())
        });
    Ok(Project {
        id: row.get(0)?,
        name: row.get(2)?,
        added_at_ms: row.get(3)?,
        last_opened_ms: row.get(4)?,
        trusted_at_ms: row.get(5)?,
        has_project_settings,
        path,
    })
}

impl Store {
    /// Every project, most recently opened first.
    pub fn list_projects(&self) -> Result<Vec<Project>, StoreError> {
        let sql = format!("SELECT {COLUMNS} FROM projects ORDER BY last_opened_ms DESC, id DESC");
        let mut stmt = self.conn.prepare(&sql).map_err(|e| self.sqlite_error(e))?;
        let rows = stmt
            .query_map([], project_from_row)
            .map_err(|e| self.sqlite_error(e))?;
        rows.collect::<Result<_, _>>()
            .map_err(|e| self.sqlite_error(e))
    }

    /// Adds `path` as a project, or returns the existing project for the same
    /// folder; either way it is marked as opened now.
    ///
    /// The path is canonicalised first, so `~/p`, `~/p/` and a symlink to it
    /// are one project.
    pub fn add_project(&self, path: &Path) -> Result<Project, StoreError> {
        let canonical = path.canonicalize().map_err(|source| StoreError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        if !canonical.is_dir() {
            return Err(StoreError::Invalid(format!(
                "{}: not a folder; a project must be a folder",
                canonical.display()
            )));
        }
        let path_text = canonical.to_str().ok_or_else(|| {
            StoreError::Invalid(format!(
                "{}: the path is not valid UTF-8",
                canonical.display()
            ))
        })?;
        let name = canonical.file_name().map_or_else(
            || path_text.to_owned(),
            |n| n.to_string_lossy().into_owned(),
        );
        let now = now_ms();
        let sql = format!(
            "INSERT INTO projects (path, name, added_at_ms, last_opened_ms) VALUES (?1, ?2, ?3, ?3)
             ON CONFLICT (path) DO UPDATE SET last_opened_ms = excluded.last_opened_ms
             RETURNING {COLUMNS}"
        );
        self.conn
            .query_row(&sql, params![path_text, name, now], project_from_row)
            .map_err(|e| self.sqlite_error(e))
    }

    /// Marks project `id` as opened now and returns it.
    pub fn open_project(&self, id: i64) -> Result<Project, StoreError> {
        let sql =
            format!("UPDATE projects SET last_opened_ms = ?2 WHERE id = ?1 RETURNING {COLUMNS}");
        self.conn
            .query_row(&sql, params![id, now_ms()], project_from_row)
            .optional()
            .map_err(|e| self.sqlite_error(e))?
            .ok_or_else(|| StoreError::Invalid(format!("no project with id {id}")))
    }

    /// Project `id`, if it exists.
    pub fn project(&self, id: i64) -> Result<Option<Project>, StoreError> {
        let sql = format!("SELECT {COLUMNS} FROM projects WHERE id = ?1");
        self.conn
            .query_row(&sql, params![id], project_from_row)
            .optional()
            .map_err(|e| self.sqlite_error(e))
    }

    /// The project of folder `path` (compared as stored: canonical), if known.
    pub fn project_by_path(&self, path: &str) -> Result<Option<Project>, StoreError> {
        let sql = format!("SELECT {COLUMNS} FROM projects WHERE path = ?1");
        self.conn
            .query_row(&sql, params![path], project_from_row)
            .optional()
            .map_err(|e| self.sqlite_error(e))
    }

    /// Trusts project `id` (now) or withdraws trust, and returns it.
    pub fn set_project_trust(&self, id: i64, trusted: bool) -> Result<Project, StoreError> {
        let trusted_at = trusted.then(now_ms);
        let sql =
            format!("UPDATE projects SET trusted_at_ms = ?2 WHERE id = ?1 RETURNING {COLUMNS}");
        self.conn
            .query_row(&sql, params![id, trusted_at], project_from_row)
            .optional()
            .map_err(|e| self.sqlite_error(e))?
            .ok_or_else(|| StoreError::Invalid(format!("no project with id {id}")))
    }

    /// Forgets project `id` (its stored sessions are kept: they name the
    /// folder, not the row). Returns whether it was known.
    pub fn remove_project(&self, id: i64) -> Result<bool, StoreError> {
        let removed = self
            .conn
            .execute("DELETE FROM projects WHERE id = ?1", params![id])
            .map_err(|e| self.sqlite_error(e))?;
        Ok(removed > 0)
    }
}
