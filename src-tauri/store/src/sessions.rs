//! Sessions and their event streams.
//!
//! Every event is appended in its own transaction the moment it is handed
//! to [`Store::append_event`], so a killed process loses at most the event
//! being written (WAL: a committed transaction survives a crash of the
//! process). Events are stored verbatim as their JSON line, plus a few
//! extracted columns for review, search and rule replay.

use gatehouse_protocol::event::Event;
use rusqlite::{OptionalExtension, params};
use serde::Serialize;
use serde_json::Value;

use crate::{Store, StoreError, now_ms};

/// The longest text indexed for search per event, in bytes.
const MAX_INDEXED_TEXT: usize = 64 * 1024;

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

pub use gatehouse_protocol::session::SessionSummary;

/// One full-text search match.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SearchHit {
    /// The session.
    pub session_id: String,
    /// The event's position in the session (from 1).
    pub seq: i64,
    /// The event's type.
    #[serde(rename = "type")]
    pub kind: String,
    /// The matching text with the matches in `[` `]`.
    pub snippet: String,
}

const SUMMARY_COLUMNS: &str = "id, project_path, provider, model, mode, status, title, created_at_ms, updated_at_ms, event_count";

fn summary_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<SessionSummary> {
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
    })
}

/// The searchable text of an event (prompts, replies, tool inputs and
/// outputs, errors); empty for events with nothing worth searching.
fn searchable_text(kind: &str, v: &Value) -> String {
    let s = |k: &str| {
        v.get(k)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let blocks_text = |k: &str| {
        v.get(k)
            .and_then(Value::as_array)
            .map(|blocks| {
                blocks
                    .iter()
                    .filter_map(|b| match b.get("type").and_then(Value::as_str) {
                        Some("text") => b.get("text").and_then(Value::as_str).map(str::to_owned),
                        Some("tool_use") => Some(format!(
                            "{} {}",
                            b.get("name").and_then(Value::as_str).unwrap_or_default(),
                            b.get("input").map(Value::to_string).unwrap_or_default()
                        )),
                        _ => None,
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .unwrap_or_default()
    };
    let mut text = match kind {
        "user_prompt" => s("text"),
        "assistant_message" => blocks_text("content"),
        "tool_queued" => format!(
            "{} {}",
            s("name"),
            v.get("input").map(Value::to_string).unwrap_or_default()
        ),
        "tool_completed" => blocks_text("content"),
        "session_error" | "tool_input_rejected" => s("message"),
        _ => String::new(),
    };
    if text.len() > MAX_INDEXED_TEXT {
        let mut end = MAX_INDEXED_TEXT;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
    }
    text
}

impl Store {
    /// Records a new session (status `running`).
    pub fn create_session(&self, session: &NewSession) -> Result<(), StoreError> {
        let now = now_ms();
        self.conn
            .execute(
                "INSERT INTO sessions (id, project_path, provider, model, mode, created_at_ms, updated_at_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)",
                params![
                    session.id,
                    session.project_path,
                    session.provider,
                    session.model,
                    session.mode,
                    now
                ],
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
        let sql = format!(
            "SELECT {SUMMARY_COLUMNS} FROM sessions WHERE ?1 IS NULL OR project_path = ?1
             ORDER BY updated_at_ms DESC, id DESC"
        );
        let mut stmt = self.conn.prepare(&sql).map_err(|e| self.sqlite_error(e))?;
        let rows = stmt
            .query_map(params![project_path], summary_from_row)
            .map_err(|e| self.sqlite_error(e))?;
        rows.collect::<Result<_, _>>()
            .map_err(|e| self.sqlite_error(e))
    }

    /// Appends one event to its session (which must exist), in its own
    /// transaction, and returns its position (from 1).
    pub fn append_event(&mut self, event: &Event) -> Result<i64, StoreError> {
        let body = serde_json::to_value(event)
            .map_err(|e| StoreError::Invalid(format!("the event cannot be serialised: {e}")))?;
        let kind = body
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("unknown")
            .to_owned();
        let tool_use_id = body
            .get("tool_use_id")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let tool_name = (kind == "tool_queued")
            .then(|| body.get("name").and_then(Value::as_str).map(str::to_owned))
            .flatten();
        let text = searchable_text(&kind, &body);
        let title = (kind == "user_prompt").then(|| {
            let t: String = text.chars().take(80).collect();
            t
        });
        let status = (kind == "session_completed")
            .then(|| {
                body.get("status")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
            .flatten();
        let line = body.to_string();
        let ts = i64::try_from(event.ts_ms).unwrap_or(i64::MAX);
        let path = self.path.clone();
        let sqlite = |source| StoreError::Sqlite {
            path: path.clone(),
            source,
        };
        let tx = self.conn.transaction().map_err(sqlite)?;
        let updated = tx
            .execute(
                "UPDATE sessions SET updated_at_ms = ?2, event_count = event_count + 1,
                    title = COALESCE(title, ?3), status = COALESCE(?4, status)
                 WHERE id = ?1",
                params![event.session_id, now_ms(), title, status],
            )
            .map_err(sqlite)?;
        if updated == 0 {
            return Err(StoreError::Invalid(format!(
                "no session with id {}; create it before appending events",
                event.session_id
            )));
        }
        let seq: i64 = tx
            .query_row(
                "SELECT COALESCE(MAX(seq), 0) + 1 FROM session_events WHERE session_id = ?1",
                params![event.session_id],
                |r| r.get(0),
            )
            .map_err(sqlite)?;
        tx.execute(
            "INSERT INTO session_events (session_id, seq, ts_ms, type, tool_use_id, tool_name, body)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![event.session_id, seq, ts, kind, tool_use_id, tool_name, line],
        )
        .map_err(sqlite)?;
        let rowid = tx.last_insert_rowid();
        if !text.is_empty() {
            tx.execute(
                "INSERT INTO session_search (rowid, text) VALUES (?1, ?2)",
                params![rowid, text],
            )
            .map_err(sqlite)?;
        }
        tx.commit().map_err(sqlite)?;
        Ok(seq)
    }

    /// Every event of session `id`, in order. Events this build cannot read
    /// (written by a newer Gatehouse) are skipped; their count is returned.
    pub fn session_events(&self, id: &str) -> Result<(Vec<Event>, usize), StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT body FROM session_events WHERE session_id = ?1 ORDER BY seq")
            .map_err(|e| self.sqlite_error(e))?;
        let rows = stmt
            .query_map(params![id], |r| r.get::<_, String>(0))
            .map_err(|e| self.sqlite_error(e))?;
        let mut events = Vec::new();
        let mut skipped = 0;
        for row in rows {
            let body = row.map_err(|e| self.sqlite_error(e))?;
            match serde_json::from_str(&body) {
                Ok(e) => events.push(e),
                Err(_) => skipped += 1,
            }
        }
        Ok((events, skipped))
    }

    /// Full-text search over every session's prompts, replies, tool calls
    /// and results (FTS5 query syntax), best matches first.
    pub fn search_sessions(&self, query: &str, limit: u32) -> Result<Vec<SearchHit>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT e.session_id, e.seq, e.type, snippet(session_search, 0, '[', ']', '…', 12)
                 FROM session_search JOIN session_events e ON e.id = session_search.rowid
                 WHERE session_search MATCH ?1 ORDER BY rank LIMIT ?2",
            )
            .map_err(|e| self.sqlite_error(e))?;
        let rows = stmt
            .query_map(params![query, limit], |r| {
                Ok(SearchHit {
                    session_id: r.get(0)?,
                    seq: r.get(1)?,
                    kind: r.get(2)?,
                    snippet: r.get(3)?,
                })
            })
            .map_err(|e| self.sqlite_error(e))?;
        rows.collect::<Result<_, _>>()
            .map_err(|e| self.sqlite_error(e))
    }
}
