//! Sessions: creating them, their summaries, and listing them with filters.
//!
//! A session's counters (tool calls, asks, denials, errors, tokens, first
//! and last event time) are maintained by the append path in
//! [`crate::events`], so a list is one indexed query over `sessions` and
//! never scans events.

use gatehouse_protocol::browser::SessionFacets;
use gatehouse_protocol::session::{ListSessionsArgs, SessionOrigin, SessionSort};
use rusqlite::{OptionalExtension, params, params_from_iter, types::Value as SqlValue};

use crate::{Store, StoreError, now_ms};

pub use gatehouse_protocol::session::SessionSummary;

/// What a new session records about itself (never a secret).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewSession {
    /// Its id (also stamped on every event).
    pub id: String,
    /// The project folder.
    pub project_path: String,
    /// The provider name.
    pub provider: String,
    /// The model name.
    pub model: String,
    /// The permission mode it started in.
    pub mode: String,
}

/// Where a session came from, for sessions that were not recorded live:
/// imports of Claude Code transcripts and of Gatehouse JSONL exports.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionProvenance {
    /// Recorded by Gatehouse or imported from Claude Code.
    pub origin: SessionOrigin,
    /// When it started (the first entry's time); now when `None`.
    pub created_at_ms: Option<i64>,
    /// For a sub-agent transcript, the session that started it.
    pub parent_session_id: Option<String>,
    /// The file it was read from.
    pub source_path: Option<String>,
}

/// A live session with no end recorded (see [`Store::unended_sessions`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnendedSession {
    /// Its id.
    pub id: String,
    /// The process that opened it last (`None`: opened by an older build).
    pub host_pid: Option<u32>,
    /// Whether it ever got a prompt.
    pub prompted: bool,
}

/// How many sessions a list returns when the caller gives no limit.
const DEFAULT_LIST_LIMIT: u32 = 100;

/// The longest session id accepted from outside (imports).
const MAX_SESSION_ID_LEN: usize = 160;

/// Checks that a session id taken from a file is safe to use as a folder
/// name under `sessions/`: ASCII letters, digits, `-`, `_`, `.`, not
/// starting with `.`, at most 160 bytes.
pub fn validate_session_id(id: &str) -> Result<(), StoreError> {
    let ok = !id.is_empty()
        && id.len() <= MAX_SESSION_ID_LEN
        && !id.starts_with('.')
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    if ok {
        Ok(())
    } else {
        Err(StoreError::Invalid(format!(
            "session id {id:?} is not usable: it must be 1–{MAX_SESSION_ID_LEN} ASCII letters, \
             digits, '-', '_' or '.', not starting with '.'"
        )))
    }
}

pub(crate) const SUMMARY_COLUMNS: &str = "id, project_path, provider, model, mode, status, title, \
     created_at_ms, updated_at_ms, event_count, origin, first_event_ms, last_event_ms, tool_calls, \
     asks, denials, errors, input_tokens, output_tokens, parent_session_id, source_path, active_ms, \
     end_reason";

pub(crate) fn summary_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<SessionSummary> {
    let origin: String = row.get(10)?;
    let end_reason: Option<String> = row.get(22)?;
    Ok(SessionSummary {
        id: row.get(0)?,
        project_path: row.get(1)?,
        provider: row.get(2)?,
        model: row.get(3)?,
        mode: row.get(4)?,
        status: row.get(5)?,
        title: row.get(6)?,
        created_at_ms: row.get(7)?,
        updated_at_ms: row.get(8)?,
        event_count: row.get(9)?,
        // Unknown origins (a newer Gatehouse) read as Gatehouse rather than
        // failing the whole list.
        origin: SessionOrigin::parse(&origin).unwrap_or_default(),
        duration_ms: row.get(21)?,
        // A reason this build does not know (a newer Gatehouse) reads as
        // none rather than failing the whole list.
        end_reason: end_reason
            .and_then(|r| serde_json::from_value(serde_json::Value::String(r)).ok()),
        tool_calls: row.get(13)?,
        asks: row.get(14)?,
        denials: row.get(15)?,
        errors: row.get(16)?,
        input_tokens: row.get(17)?,
        output_tokens: row.get(18)?,
        parent_session_id: row.get(19)?,
        source_path: row.get(20)?,
    })
}

/// The SQL `ORDER BY` expression of a sort.
fn order_expression(sort: SessionSort) -> &'static str {
    match sort {
        SessionSort::Updated => "updated_at_ms",
        SessionSort::Started => "created_at_ms",
        SessionSort::Duration => "active_ms",
        SessionSort::ToolCalls => "tool_calls",
        SessionSort::Errors => "errors",
        SessionSort::Denials => "denials",
        SessionSort::Tokens => "(input_tokens + output_tokens)",
    }
}

impl Store {
    /// Records a new session (status `running`).
    pub fn create_session(&self, session: &NewSession) -> Result<(), StoreError> {
        self.create_session_with(session, &SessionProvenance::default())
    }

    /// Records a new session with its provenance (imports). Imported
    /// session ids must pass [`validate_session_id`]. A session read from a
    /// file (`source_path`) starts with status `imported` rather than
    /// `running`: nothing is running it.
    pub fn create_session_with(
        &self,
        session: &NewSession,
        provenance: &SessionProvenance,
    ) -> Result<(), StoreError> {
        if provenance.origin != SessionOrigin::Gatehouse || provenance.source_path.is_some() {
            validate_session_id(&session.id)?;
        }
        let now = now_ms();
        let created = provenance.created_at_ms.unwrap_or(now);
        self.conn
            .execute(
                "INSERT INTO sessions (id, project_path, provider, model, mode, created_at_ms,
                     updated_at_ms, origin, parent_session_id, source_path, status)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10,
                     CASE WHEN ?10 IS NULL THEN 'running' ELSE 'imported' END)",
                params![
                    session.id,
                    session.project_path,
                    session.provider,
                    session.model,
                    session.mode,
                    created,
                    if provenance.created_at_ms.is_some() {
                        created
                    } else {
                        now
                    },
                    provenance.origin.as_str(),
                    provenance.parent_session_id,
                    provenance.source_path,
                ],
            )
            .map_err(|e| match e {
                rusqlite::Error::SqliteFailure(f, _)
                    if f.code == rusqlite::ErrorCode::ConstraintViolation =>
                {
                    StoreError::Invalid(format!(
                        "a session with id {} is already stored",
                        session.id
                    ))
                }
                e => self.sqlite_error(e),
            })?;
        Ok(())
    }

    /// Sets the model name of a session whose model was not known when it
    /// was created (an import learns it from the first assistant message).
    pub fn set_session_model(&self, id: &str, model: &str) -> Result<(), StoreError> {
        self.conn
            .execute(
                "UPDATE sessions SET model = ?2 WHERE id = ?1",
                params![id, model],
            )
            .map_err(|e| self.sqlite_error(e))?;
        Ok(())
    }

    /// The session `id`, if stored.
    pub fn session(&self, id: &str) -> Result<Option<SessionSummary>, StoreError> {
        let sql = format!("SELECT {SUMMARY_COLUMNS} FROM sessions WHERE id = ?1");
        self.conn
            .query_row(&sql, params![id], summary_from_row)
            .optional()
            .map_err(|e| self.sqlite_error(e))
    }

    /// Sessions, most recently active first (of one project when given).
    pub fn list_sessions(
        &self,
        project_path: Option<&str>,
    ) -> Result<Vec<SessionSummary>, StoreError> {
        self.query_sessions(&ListSessionsArgs {
            project_path: project_path.map(str::to_owned),
            limit: Some(u32::MAX),
            ..ListSessionsArgs::default()
        })
    }

    /// Sessions matching `args`' filters, in its order, at most
    /// `args.limit` of them (100 when absent, as the protocol documents).
    pub fn query_sessions(
        &self,
        args: &ListSessionsArgs,
    ) -> Result<Vec<SessionSummary>, StoreError> {
        let mut clauses: Vec<&str> = Vec::new();
        let mut values: Vec<SqlValue> = Vec::new();
        let mut push = |clause: &'static str, value: Option<SqlValue>| {
            clauses.push(clause);
            if let Some(v) = value {
                values.push(v);
            }
        };
        if let Some(project) = &args.project_path {
            push("project_path = ?", Some(SqlValue::Text(project.clone())));
        }
        if let Some(since) = args.since_ms {
            push("created_at_ms >= ?", Some(SqlValue::Integer(since)));
        }
        if let Some(until) = args.until_ms {
            push("created_at_ms < ?", Some(SqlValue::Integer(until)));
        }
        if let Some(model) = &args.model {
            push("model = ?", Some(SqlValue::Text(model.clone())));
        }
        if let Some(origin) = args.origin {
            push("origin = ?", Some(SqlValue::Text(origin.as_str().into())));
        }
        match args.had_denials {
            Some(true) => push("denials > 0", None),
            Some(false) => push("denials = 0", None),
            None => {}
        }
        match args.had_errors {
            Some(true) => push("errors > 0", None),
            Some(false) => push("errors = 0", None),
            None => {}
        }
        let filter = if clauses.is_empty() {
            String::new()
        } else {
            format!("WHERE {}", clauses.join(" AND "))
        };
        let direction = if args.ascending.unwrap_or(false) {
            "ASC"
        } else {
            "DESC"
        };
        let order = order_expression(args.sort.unwrap_or_default());
        let limit = i64::from(args.limit.unwrap_or(DEFAULT_LIST_LIMIT));
        values.push(SqlValue::Integer(limit));
        let sql = format!(
            "SELECT {SUMMARY_COLUMNS} FROM sessions {filter}
             ORDER BY {order} {direction}, id {direction} LIMIT ?"
        );
        let mut stmt = self.conn.prepare(&sql).map_err(|e| self.sqlite_error(e))?;
        let rows = stmt
            .query_map(params_from_iter(values), summary_from_row)
            .map_err(|e| self.sqlite_error(e))?;
        rows.collect::<Result<_, _>>()
            .map_err(|e| self.sqlite_error(e))
    }

    /// Every project folder and model name of the stored sessions, sorted
    /// and without duplicates (empty model names left out): the choices of
    /// the session list's filters.
    pub fn session_facets(&self) -> Result<SessionFacets, StoreError> {
        let distinct = |sql: &str| -> Result<Vec<String>, StoreError> {
            let mut stmt = self.conn.prepare(sql).map_err(|e| self.sqlite_error(e))?;
            let rows = stmt
                .query_map([], |r| r.get(0))
                .map_err(|e| self.sqlite_error(e))?;
            rows.collect::<Result<_, _>>()
                .map_err(|e| self.sqlite_error(e))
        };
        Ok(SessionFacets {
            projects: distinct("SELECT DISTINCT project_path FROM sessions ORDER BY 1")?,
            models: distinct("SELECT DISTINCT model FROM sessions WHERE model <> '' ORDER BY 1")?,
        })
    }

    /// Marks live session `id` as opened by process `pid` (a start or a
    /// resume): no end reason until it is closed again, and a status of
    /// `ended` reads `running` while it is open.
    pub fn claim_session(&self, id: &str, pid: u32) -> Result<(), StoreError> {
        self.conn
            .execute(
                "UPDATE sessions SET host_pid = ?2, end_reason = NULL,
                     status = CASE WHEN status = 'ended' THEN 'running' ELSE status END
                 WHERE id = ?1",
                params![id, pid],
            )
            .map_err(|e| self.sqlite_error(e))?;
        Ok(())
    }

    /// Live sessions left without an end: opened by this build (a host
    /// process recorded) or still `running`, never closed since, not
    /// imported, and not a guarded Claude Code's (Claude Code runs those,
    /// not a Gatehouse process; their end is its SessionEnd). Oldest first.
    pub fn unended_sessions(&self) -> Result<Vec<UnendedSession>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT id, host_pid,
                        EXISTS (SELECT 1 FROM session_events e
                                WHERE e.session_id = sessions.id AND e.type = 'user_prompt')
                 FROM sessions
                 WHERE end_reason IS NULL AND source_path IS NULL AND origin != 'claude_code'
                   AND (host_pid IS NOT NULL OR status = 'running')
                 ORDER BY created_at_ms, id",
            )
            .map_err(|e| self.sqlite_error(e))?;
        let rows = stmt
            .query_map([], |r| {
                Ok(UnendedSession {
                    id: r.get(0)?,
                    host_pid: r
                        .get::<_, Option<i64>>(1)?
                        .and_then(|p| u32::try_from(p).ok()),
                    prompted: r.get(2)?,
                })
            })
            .map_err(|e| self.sqlite_error(e))?;
        rows.collect::<Result<_, _>>()
            .map_err(|e| self.sqlite_error(e))
    }

    /// Whether session `id` has a stored prompt.
    pub fn session_has_prompt(&self, id: &str) -> Result<bool, StoreError> {
        self.conn
            .query_row(
                "SELECT EXISTS (SELECT 1 FROM session_events
                                WHERE session_id = ?1 AND type = 'user_prompt')",
                params![id],
                |r| r.get(0),
            )
            .map_err(|e| self.sqlite_error(e))
    }

    /// SQLite's `data_version` of this connection: it changes when another
    /// connection (another process's too) commits. Cheap enough to poll:
    /// how the window notices sessions written by `gatehouse-cli` (a
    /// guarded Claude Code's hooks, `run`).
    pub fn data_version(&self) -> Result<i64, StoreError> {
        self.conn
            .query_row("PRAGMA data_version", [], |r| r.get(0))
            .map_err(|e| self.sqlite_error(e))
    }

    /// The sessions updated at or after `since_ms` (ms since the Unix
    /// epoch), with their `updated_at_ms`, latest first, at most `limit`.
    pub fn sessions_updated_since(
        &self,
        since_ms: i64,
        limit: u32,
    ) -> Result<Vec<(String, i64)>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT id, updated_at_ms FROM sessions WHERE updated_at_ms >= ?1
                 ORDER BY updated_at_ms DESC LIMIT ?2",
            )
            .map_err(|e| self.sqlite_error(e))?;
        let rows = stmt
            .query_map(params![since_ms, limit], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(|e| self.sqlite_error(e))?;
        rows.collect::<Result<_, _>>()
            .map_err(|e| self.sqlite_error(e))
    }

    /// Sub-agent sessions started by session `id` (imports), oldest first.
    pub fn child_sessions(&self, id: &str) -> Result<Vec<SessionSummary>, StoreError> {
        let sql = format!(
            "SELECT {SUMMARY_COLUMNS} FROM sessions WHERE parent_session_id = ?1
             ORDER BY created_at_ms, id"
        );
        let mut stmt = self.conn.prepare(&sql).map_err(|e| self.sqlite_error(e))?;
        let rows = stmt
            .query_map(params![id], summary_from_row)
            .map_err(|e| self.sqlite_error(e))?;
        rows.collect::<Result<_, _>>()
            .map_err(|e| self.sqlite_error(e))
    }
}
