//! Session rules: "allow for this session" answers, kept so a resumed
//! session has them again. Rows are appended as
//! grants come, replaced only by the rule editor, and go with their session.

use rusqlite::params;

use crate::{Store, StoreError, now_ms};

/// One stored session rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredSessionRule {
    /// The rule list: `allow`, `ask` or `deny`.
    pub kind: String,
    /// The rule text, e.g. `Bash(npm test:*)`.
    pub rule: String,
    /// When it was granted (ms since the epoch).
    pub created_at_ms: i64,
}

impl Store {
    /// Appends a rule to session `session_id`. The session must exist and
    /// `kind` must be `allow`, `ask` or `deny`.
    pub fn add_session_rule(
        &self,
        session_id: &str,
        kind: &str,
        rule: &str,
    ) -> Result<(), StoreError> {
        if !matches!(kind, "allow" | "ask" | "deny") {
            return Err(StoreError::Invalid(format!(
                "session rule {rule:?} of session {session_id}: unknown kind {kind:?} (allow, ask or deny)"
            )));
        }
        self.conn
            .execute(
                "INSERT INTO session_rules (session_id, kind, rule, created_at_ms) VALUES (?1, ?2, ?3, ?4)",
                params![session_id, kind, rule, now_ms()],
            )
            .map_err(|e| self.sqlite_error(e))?;
        Ok(())
    }

    /// Replaces every rule of session `session_id` with `rules` (kind,
    /// rule) in one transaction: the rule editor's save and undo. Each kind
    /// must be `allow`, `ask` or `deny`; on any error nothing changes.
    pub fn replace_session_rules(
        &mut self,
        session_id: &str,
        rules: &[(String, String)],
    ) -> Result<(), StoreError> {
        if let Some((kind, rule)) = rules
            .iter()
            .find(|(kind, _)| !matches!(kind.as_str(), "allow" | "ask" | "deny"))
        {
            return Err(StoreError::Invalid(format!(
                "session rule {rule:?} of session {session_id}: unknown kind {kind:?} (allow, ask or deny)"
            )));
        }
        let now = now_ms();
        let path = self.path.clone();
        let error = |source| StoreError::Sqlite {
            path: path.clone(),
            source,
        };
        let tx = self.conn.transaction().map_err(error)?;
        tx.execute(
            "DELETE FROM session_rules WHERE session_id = ?1",
            params![session_id],
        )
        .map_err(error)?;
        for (kind, rule) in rules {
            tx.execute(
                "INSERT INTO session_rules (session_id, kind, rule, created_at_ms) VALUES (?1, ?2, ?3, ?4)",
                params![session_id, kind, rule, now],
            )
            .map_err(error)?;
        }
        tx.commit().map_err(error)
    }

    /// Sessions of project `project_path` that have session rules, newest
    /// first: (id, title).
    pub fn sessions_with_rules(
        &self,
        project_path: &str,
    ) -> Result<Vec<(String, Option<String>)>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT s.id, s.title FROM sessions s
                 WHERE s.project_path = ?1
                   AND EXISTS (SELECT 1 FROM session_rules r WHERE r.session_id = s.id)
                 ORDER BY s.updated_at_ms DESC LIMIT 200",
            )
            .map_err(|e| self.sqlite_error(e))?;
        let rows = stmt
            .query_map(params![project_path], |row| Ok((row.get(0)?, row.get(1)?)))
            .map_err(|e| self.sqlite_error(e))?;
        rows.collect::<Result<_, _>>()
            .map_err(|e| self.sqlite_error(e))
    }

    /// The rules of session `session_id`, in the order they were granted.
    pub fn session_rules(&self, session_id: &str) -> Result<Vec<StoredSessionRule>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT kind, rule, created_at_ms FROM session_rules WHERE session_id = ?1 ORDER BY id",
            )
            .map_err(|e| self.sqlite_error(e))?;
        let rows = stmt
            .query_map(params![session_id], |row| {
                Ok(StoredSessionRule {
                    kind: row.get(0)?,
                    rule: row.get(1)?,
                    created_at_ms: row.get(2)?,
                })
            })
            .map_err(|e| self.sqlite_error(e))?;
        rows.collect::<Result<_, _>>()
            .map_err(|e| self.sqlite_error(e))
    }
}
