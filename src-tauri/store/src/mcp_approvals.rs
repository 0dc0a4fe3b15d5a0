//! Approved project MCP servers: a project's `.mcp.json` may start programs
//! on the user's machine, so each of its servers needs the user's approval
//! before it first starts (SPEC §8). An approval covers one server name of
//! one project with one configuration fingerprint (computed by
//! `gatehouse-mcp`; it never includes secret values).

use rusqlite::params;

use crate::{Store, StoreError, now_ms};

/// One approved project server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpApproval {
    /// The project folder (as given by the caller, normally canonical).
    pub project_path: String,
    /// The server's name in `.mcp.json`.
    pub server: String,
    /// The configuration fingerprint the user approved.
    pub fingerprint: String,
    /// When, in milliseconds since the Unix epoch.
    pub approved_at_ms: i64,
}

impl Store {
    /// Records the user's approval of `server` of the project at
    /// `project_path` with configuration `fingerprint` (replacing an earlier
    /// approval of the same server).
    pub fn approve_mcp_server(
        &self,
        project_path: &str,
        server: &str,
        fingerprint: &str,
    ) -> Result<(), StoreError> {
        self.conn
            .execute(
                "INSERT INTO mcp_approved_servers (project_path, server, fingerprint, approved_at_ms)
                 VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (project_path, server) DO UPDATE
                 SET fingerprint = excluded.fingerprint, approved_at_ms = excluded.approved_at_ms",
                params![project_path, server, fingerprint, now_ms()],
            )
            .map(|_| ())
            .map_err(|e| self.sqlite_error(e))
    }

    /// Withdraws the approval of `server` of `project_path` (no-op when
    /// there is none).
    pub fn revoke_mcp_server(&self, project_path: &str, server: &str) -> Result<(), StoreError> {
        self.conn
            .execute(
                "DELETE FROM mcp_approved_servers WHERE project_path = ?1 AND server = ?2",
                params![project_path, server],
            )
            .map(|_| ())
            .map_err(|e| self.sqlite_error(e))
    }

    /// The approvals recorded for the project at `project_path`, by server
    /// name.
    pub fn mcp_approvals(&self, project_path: &str) -> Result<Vec<McpApproval>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT project_path, server, fingerprint, approved_at_ms
                 FROM mcp_approved_servers WHERE project_path = ?1 ORDER BY server",
            )
            .map_err(|e| self.sqlite_error(e))?;
        let rows = stmt
            .query_map([project_path], |row| {
                Ok(McpApproval {
                    project_path: row.get(0)?,
                    server: row.get(1)?,
                    fingerprint: row.get(2)?,
                    approved_at_ms: row.get(3)?,
                })
            })
            .map_err(|e| self.sqlite_error(e))?;
        rows.collect::<Result<_, _>>()
            .map_err(|e| self.sqlite_error(e))
    }

    /// Whether `server` of `project_path` is approved with exactly this
    /// `fingerprint` (an approval of an older configuration does not count).
    pub fn is_mcp_server_approved(
        &self,
        project_path: &str,
        server: &str,
        fingerprint: &str,
    ) -> Result<bool, StoreError> {
        Ok(self
            .mcp_approvals(project_path)?
            .iter()
            .any(|a| a.server == server && a.fingerprint == fingerprint))
    }
}
