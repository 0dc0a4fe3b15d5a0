//! Appending events, and reading them back.
//!
//! Live events are appended by the session writer in batches
//! ([`Store::append_events`]: whatever is queued, of any sessions, in one
//! transaction); events that matter for review are committed before the
//! step that follows them is taken (the writer's flush tickets), so a killed
//! process loses at most the batch being written, never a decision a call
//! ran under (WAL: a committed transaction survives a crash of the process).
//! [`Store::append_event`] appends one event in its own transaction.
//! Imports append in batches ([`Store::append_batch`]), each batch one
//! transaction together with the import's checkpoint, so an interrupted
//! import resumes exactly after the last committed batch.
//!
//! Events are read back through `gatehouse_protocol::upgrade::EventUpgrader`,
//! which upgrades the shapes of events stored by earlier builds (an old
//! `tool_completed` without `status`, free-form `tool_progress` data).
//!
//! Events are stored verbatim as their JSON line, plus a few extracted
//! columns for review, search and rule replay, and the session's counters
//! are updated in the same transaction.

use gatehouse_protocol::event::Event;
use gatehouse_protocol::session::StoredEvents;
use gatehouse_protocol::upgrade::EventUpgrader;
use rusqlite::{Transaction, params};
use serde_json::Value;

use crate::{Store, StoreError, now_ms};

/// The longest text indexed for search per event, in bytes.
const MAX_INDEXED_TEXT: usize = 64 * 1024;

/// One event to append, with the raw fields of the source entry it came
/// from (imports) that the event does not carry.
#[derive(Debug, Clone, PartialEq)]
pub struct EventRecord {
    /// The event.
    pub event: Event,
    /// Leftover fields of the imported entry, as JSON; `None` for live events.
    pub raw: Option<String>,
}

/// How far an import has read one source file; committed with the batch
/// of events read up to there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportCheckpoint {
    /// The source file (canonical path).
    pub path: String,
    /// Bytes consumed (always at a line boundary).
    pub byte_offset: u64,
    /// Lines consumed.
    pub line: u64,
    /// The importer's own state to resume with (JSON).
    pub state: String,
}

/// How one batch changes a session's counters.
#[derive(Debug, Default)]
struct CounterDelta {
    events: i64,
    tool_calls: i64,
    asks: i64,
    denials: i64,
    errors: i64,
    input_tokens: i64,
    output_tokens: i64,
    first_ts: Option<i64>,
    last_ts: Option<i64>,
    title: Option<String>,
    status: Option<String>,
    /// A `session_ended` came after the last status change of the batch:
    /// a status still `running` becomes `ended`.
    ended_if_running: bool,
    /// The batch opened (`Some(None)`) or closed (`Some(Some(reason))`)
    /// the session last.
    end_reason: Option<Option<String>>,
    /// Active time the batch adds (ms): see [`active_gap`].
    active_ms: i64,
    /// The time of the event before the next one (the session's last
    /// event time when the batch starts).
    prev_ts: Option<i64>,
    /// Whether any event is activity, which moves "last active" (opening
    /// and closing a session, and its MCP servers' states, are not).
    activity: bool,
    /// Live events (not an import): a prompt makes the session `running`.
    live: bool,
}

/// The active time an event of type `kind` at `ts` adds after the event
/// at `prev`: the gap between them, except before a `session_started` or
/// a `session_ended`, whose gaps are the time between visits (or between
/// the last event and closing the window), not time spent in the session.
fn active_gap(kind: &str, prev: Option<i64>, ts: i64) -> i64 {
    match (kind, prev) {
        ("session_started" | "session_ended", _) | (_, None) => 0,
        (_, Some(prev)) => ts.saturating_sub(prev).max(0),
    }
}

fn u64_field(v: &Value, key: &str) -> i64 {
    v.get(key)
        .and_then(Value::as_u64)
        .map_or(0, |n| i64::try_from(n).unwrap_or(i64::MAX))
}

/// Truncates to at most `max` bytes at a character boundary.
fn truncate_at_char(text: &mut String, max: usize) {
    if text.len() > max {
        let mut end = max;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
    }
}

/// The searchable text of an event (prompts, replies and thinking, tool
/// inputs and outputs, errors, task commands, hook messages, deny
/// feedback); empty for events with nothing worth searching.
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
                        Some("thinking") => {
                            b.get("thinking").and_then(Value::as_str).map(str::to_owned)
                        }
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
        "user_prompt" | "context_added" => s("text"),
        "assistant_message" => blocks_text("content"),
        "tool_queued" => format!(
            "{} {}",
            s("name"),
            v.get("input").map(Value::to_string).unwrap_or_default()
        ),
        "tool_completed" => blocks_text("content"),
        "session_error" | "tool_input_rejected" => s("message"),
        "task_started" => format!("{} {}", s("command"), s("description")),
        "hook_ran" => s("message"),
        "permission_answered" => v
            .pointer("/answer/feedback")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        _ => String::new(),
    };
    truncate_at_char(&mut text, MAX_INDEXED_TEXT);
    text
}

/// Inserts one event at position `seq` and adds its effect to `delta`.
fn insert_event(
    tx: &Transaction<'_>,
    seq: i64,
    event: &Event,
    raw: Option<&str>,
    delta: &mut CounterDelta,
) -> Result<(), rusqlite::Error> {
    let body = serde_json::to_value(event).map_err(|e| {
        rusqlite::Error::ToSqlConversionFailure(Box::new(std::io::Error::other(format!(
            "the event cannot be serialised: {e}"
        ))))
    })?;
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
    let ts = i64::try_from(event.ts_ms).unwrap_or(i64::MAX);

    delta.events += 1;
    delta.first_ts = Some(delta.first_ts.map_or(ts, |t| t.min(ts)));
    delta.last_ts = Some(delta.last_ts.map_or(ts, |t| t.max(ts)));
    delta.active_ms = delta
        .active_ms
        .saturating_add(active_gap(&kind, delta.prev_ts, ts));
    delta.prev_ts = Some(delta.prev_ts.map_or(ts, |t| t.max(ts)));
    if !matches!(
        kind.as_str(),
        "session_started" | "session_ended" | "mcp_server_state"
    ) {
        delta.activity = true;
    }
    match kind.as_str() {
        "user_prompt" => {
            if delta.title.is_none() {
                delta.title = Some(text.chars().take(80).collect());
            }
            if delta.live {
                delta.status = Some("running".to_owned());
                delta.ended_if_running = false;
            }
        }
        "session_completed" => {
            if let Some(status) = body.get("status").and_then(Value::as_str) {
                delta.status = Some(status.to_owned());
                delta.ended_if_running = false;
            }
        }
        "session_started" => delta.end_reason = Some(None),
        "session_ended" => {
            let reason = body
                .get("reason")
                .and_then(Value::as_str)
                .map(str::to_owned);
            delta.end_reason = Some(reason);
            if delta.status.as_deref() == Some("running") {
                delta.status = Some("ended".to_owned());
            } else if delta.status.is_none() {
                delta.ended_if_running = true;
            }
        }
        "tool_queued" => delta.tool_calls += 1,
        // A live ask is `permission_requested`, then `permission_answered`,
        // then the settled `permission_decided` (reason `user_answer`); an
        // imported one is `permission_decided: ask` (+ `permission_answered`
        // when refused). Each call counts once as an ask and once as a
        // denial, whichever shape it has.
        "permission_requested" => delta.asks += 1,
        "permission_decided" => match body.get("decision").and_then(Value::as_str) {
            Some("ask") => delta.asks += 1,
            Some("deny") if !settled_by_user(&body) => delta.denials += 1,
            _ => {}
        },
        "permission_answered"
            if body.pointer("/answer/kind").and_then(Value::as_str) == Some("deny") =>
        {
            delta.denials += 1;
        }
        "tool_completed" if body.get("is_error") == Some(&Value::Bool(true)) => {
            // A refused call also completes with an error; it is counted
            // as a denial, not as an error.
            let denied: bool = tx
                .prepare_cached(
                    "SELECT EXISTS (SELECT 1 FROM session_events
                 WHERE tool_use_id = ?1 AND session_id = ?2
                   AND ((type = 'permission_decided' AND json_extract(body, '$.decision') = 'deny')
                     OR (type = 'permission_answered'
                         AND json_extract(body, '$.answer.kind') = 'deny')))",
                )?
                .query_row(params![tool_use_id, event.session_id], |r| r.get(0))?;
            if !denied {
                delta.errors += 1;
            }
        }
        "session_error" => delta.errors += 1,
        "usage" => {
            delta.input_tokens += u64_field(&body, "input_tokens")
                + u64_field(&body, "cache_creation_input_tokens")
                + u64_field(&body, "cache_read_input_tokens");
            delta.output_tokens += u64_field(&body, "output_tokens");
        }
        _ => {}
    }

    // Cached statements: an import appends millions of rows, and parsing
    // the SQL each time was a visible share of its time.
    tx.prepare_cached(
        "INSERT INTO session_events (session_id, seq, ts_ms, type, tool_use_id, tool_name, body, raw)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?
    .execute(params![
            event.session_id,
            seq,
            ts,
            kind,
            tool_use_id,
            tool_name,
            body.to_string(),
            raw
        ],
    )?;
    let rowid = tx.last_insert_rowid();
    if !text.is_empty() {
        tx.prepare_cached("INSERT INTO session_search (rowid, text) VALUES (?1, ?2)")?
            .execute(params![rowid, text])?;
    }
    Ok(())
}

impl Store {
    /// Appends one event to its session (which must exist), in its own
    /// transaction, and returns its position (from 1).
    pub fn append_event(&mut self, event: &Event) -> Result<i64, StoreError> {
        let record = EventRecord {
            event: event.clone(),
            raw: None,
        };
        self.append_batch(&event.session_id, std::slice::from_ref(&record), None)
    }

    /// Appends `records` to session `session_id` (every record must belong
    /// to it) in one transaction, together with `checkpoint` when given
    /// (imports), and returns the position of the last one (or the
    /// session's last position when `records` is empty).
    ///
    /// Imported sessions (`checkpoint` given) take their "last active" time
    /// from their events rather than from the clock.
    pub fn append_batch(
        &mut self,
        session_id: &str,
        records: &[EventRecord],
        checkpoint: Option<&ImportCheckpoint>,
    ) -> Result<i64, StoreError> {
        if let Some(stray) = records.iter().find(|r| r.event.session_id != session_id) {
            return Err(StoreError::Invalid(format!(
                "an event of session {} was appended to session {session_id}",
                stray.event.session_id
            )));
        }
        let path = self.path.clone();
        let sqlite = |source| StoreError::Sqlite {
            path: path.clone(),
            source,
        };
        let tx = immediate(&mut self.conn, &self.path)?;
        let seq = append_in(
            &tx,
            &path,
            session_id,
            records.iter().map(|r| (&r.event, r.raw.as_deref())),
            checkpoint,
        )?;
        tx.commit().map_err(sqlite)?;
        Ok(seq)
    }

    /// Appends live events, of one or several sessions (each must exist),
    /// in one transaction, in order: each session's events get the next
    /// positions and its counters are updated as [`Self::append_event`]
    /// does. All or nothing: on an error nothing of the batch is stored
    /// (the caller may retry event by event to isolate the bad one).
    pub fn append_events(&mut self, events: &[&Event]) -> Result<(), StoreError> {
        let path = self.path.clone();
        let sqlite = |source| StoreError::Sqlite {
            path: path.clone(),
            source,
        };
        let tx = immediate(&mut self.conn, &self.path)?;
        // Runs of consecutive events of one session share one counter
        // update; the order across sessions is kept.
        let mut start = 0;
        while start < events.len() {
            let session_id = &events[start].session_id;
            let end = events[start..]
                .iter()
                .position(|e| &e.session_id != session_id)
                .map_or(events.len(), |n| start + n);
            let run = events[start..end].iter().map(|event| (*event, None));
            append_in(&tx, &path, session_id, run, None)?;
            start = end;
        }
        tx.commit().map_err(sqlite)
    }

    /// Every event of session `id`, in order. Events this build cannot read
    /// (written by a newer Gatehouse) are skipped; their count is returned.
    pub fn session_events(&self, id: &str) -> Result<(Vec<Event>, usize), StoreError> {
        let mut events = Vec::new();
        let skipped = self.for_each_event(id, |event| {
            events.push(event);
            Ok(())
        })?;
        Ok((events, skipped))
    }

    /// The first `count` events of session `id`, in order (the part of a
    /// long session a resumed handle left out). Unreadable events are
    /// skipped and counted, as in [`Self::session_events`].
    pub fn session_events_head(
        &self,
        id: &str,
        count: u32,
    ) -> Result<(Vec<Event>, usize), StoreError> {
        let read = self.stored_events(id, Some(count))?;
        Ok((
            read.events,
            usize::try_from(read.unreadable).unwrap_or(usize::MAX),
        ))
    }

    /// The events of session `id` (the first `limit` positions when given),
    /// with the positions of those this build cannot read: what a reader
    /// needs to say so and to find a stored position's event.
    pub fn stored_events(&self, id: &str, limit: Option<u32>) -> Result<StoredEvents, StoreError> {
        self.stored_events_from(id, 0, limit)
    }

    /// The events of session `id` stored after position `after_seq`, as
    /// [`Self::stored_events`] reads them: what a reader showing a session
    /// that is still being written (a guarded Claude Code's, a CLI run's)
    /// appends.
    pub fn stored_events_after(
        &self,
        id: &str,
        after_seq: u64,
    ) -> Result<StoredEvents, StoreError> {
        self.stored_events_from(id, after_seq, None)
    }

    fn stored_events_from(
        &self,
        id: &str,
        after_seq: u64,
        limit: Option<u32>,
    ) -> Result<StoredEvents, StoreError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT seq, body FROM session_events WHERE session_id = ?1 AND seq > ?2
                 ORDER BY seq LIMIT ?3",
            )
            .map_err(|e| self.sqlite_error(e))?;
        let limit = limit.map_or(-1, i64::from);
        let after = i64::try_from(after_seq).unwrap_or(i64::MAX);
        let mut rows = stmt
            .query(params![id, after, limit])
            .map_err(|e| self.sqlite_error(e))?;
        let mut read = StoredEvents {
            events: Vec::new(),
            unreadable_seqs: Vec::new(),
            unreadable: 0,
        };
        let mut upgrader = EventUpgrader::new();
        while let Some(row) = rows.next().map_err(|e| self.sqlite_error(e))? {
            let seq: i64 = row.get(0).map_err(|e| self.sqlite_error(e))?;
            let body: String = row.get(1).map_err(|e| self.sqlite_error(e))?;
            match upgrader.read(&body) {
                Ok(event) => read.events.push(event),
                Err(_) => {
                    read.unreadable += 1;
                    if read.unreadable_seqs.len() < StoredEvents::MAX_LISTED_UNREADABLE {
                        read.unreadable_seqs.push(u64::try_from(seq).unwrap_or(0));
                    }
                }
            }
        }
        Ok(read)
    }

    /// The end of session `id` as a resumed session's handle shows it: its
    /// last `keep` events or more, starting at the `user_prompt` or
    /// `model_request_started` at or before them, so no turn (and none of
    /// its calls) is cut in two; all of it when it has at most `keep`. Also
    /// returns how many events come before (see [`Self::session_events_head`]).
    /// Reads only that end, whatever the session's length.
    pub fn session_events_tail(
        &self,
        id: &str,
        keep: u32,
    ) -> Result<(Vec<Event>, u32), StoreError> {
        let sqlite = |e| self.sqlite_error(e);
        let (start, earlier) = self.tail_start(id, keep)?;
        let mut stmt = self
            .conn
            .prepare(
                "SELECT body FROM session_events WHERE session_id = ?1 AND seq >= ?2 ORDER BY seq",
            )
            .map_err(sqlite)?;
        let mut rows = stmt.query(params![id, start]).map_err(sqlite)?;
        let mut events = Vec::new();
        // The tail starts at a turn's start, so each call's events are all
        // in it (what an old `tool_completed` needs for its status).
        let mut upgrader = EventUpgrader::new();
        while let Some(row) = rows.next().map_err(sqlite)? {
            let body: String = row.get(0).map_err(sqlite)?;
            // Unreadable (newer) events are skipped, as everywhere.
            if let Ok(event) = upgrader.read(&body) {
                events.push(event);
            }
        }
        Ok((events, earlier))
    }

    /// Where [`Self::session_events_tail`] starts: the position (`seq`) of
    /// its first event and how many events come before it.
    pub(crate) fn tail_start(&self, id: &str, keep: u32) -> Result<(i64, u32), StoreError> {
        use rusqlite::OptionalExtension;
        let sqlite = |e| self.sqlite_error(e);
        let last: i64 = self
            .conn
            .query_row(
                "SELECT COALESCE(MAX(seq), 0) FROM session_events WHERE session_id = ?1",
                params![id],
                |r| r.get(0),
            )
            .map_err(sqlite)?;
        let from = last - i64::from(keep) + 1;
        let start: i64 = if from <= 1 {
            1
        } else {
            self.conn
                .query_row(
                    "SELECT MAX(seq) FROM session_events WHERE session_id = ?1 AND seq <= ?2
                     AND type IN ('user_prompt', 'model_request_started')",
                    params![id, from],
                    |r| r.get::<_, Option<i64>>(0),
                )
                .optional()
                .map_err(sqlite)?
                .flatten()
                .unwrap_or(1)
        };
        let earlier: i64 = self
            .conn
            .query_row(
                "SELECT COUNT(*) FROM session_events WHERE session_id = ?1 AND seq < ?2",
                params![id, start],
                |r| r.get(0),
            )
            .map_err(sqlite)?;
        Ok((start, u32::try_from(earlier).unwrap_or(u32::MAX)))
    }

    /// The last event of type `kind` (`mode_changed`, …) of session `id`.
    pub fn last_event_of_type(&self, id: &str, kind: &str) -> Result<Option<Event>, StoreError> {
        use rusqlite::OptionalExtension;
        let body: Option<String> = self
            .conn
            .query_row(
                "SELECT body FROM session_events WHERE session_id = ?1 AND type = ?2
                 ORDER BY seq DESC LIMIT 1",
                params![id, kind],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.sqlite_error(e))?;
        Ok(body.and_then(|b| EventUpgrader::new().read(&b).ok()))
    }

    /// Streams the events of session `id` in order to `visit` without
    /// holding them all in memory (exports of big sessions). Returns how
    /// many stored events this build could not read and skipped.
    pub fn for_each_event(
        &self,
        id: &str,
        mut visit: impl FnMut(Event) -> Result<(), StoreError>,
    ) -> Result<usize, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT body FROM session_events WHERE session_id = ?1 ORDER BY seq")
            .map_err(|e| self.sqlite_error(e))?;
        let mut rows = stmt.query(params![id]).map_err(|e| self.sqlite_error(e))?;
        let mut skipped = 0;
        let mut upgrader = EventUpgrader::new();
        while let Some(row) = rows.next().map_err(|e| self.sqlite_error(e))? {
            let body: String = row.get(0).map_err(|e| self.sqlite_error(e))?;
            match upgrader.read(&body) {
                Ok(event) => visit(event)?,
                Err(_) => skipped += 1,
            }
        }
        Ok(skipped)
    }

    /// The leftover raw fields of the imported entry that event `seq` of
    /// session `session_id` came from (JSON), if it has any.
    pub fn event_raw(&self, session_id: &str, seq: i64) -> Result<Option<String>, StoreError> {
        use rusqlite::OptionalExtension;
        self.conn
            .query_row(
                "SELECT raw FROM session_events WHERE session_id = ?1 AND seq = ?2",
                params![session_id, seq],
                |r| r.get::<_, Option<String>>(0),
            )
            .optional()
            .map(Option::flatten)
            .map_err(|e| self.sqlite_error(e))
    }

    /// The tool name of call `tool_use_id` in session `session_id`, from
    /// its `tool_queued` event.
    pub fn queued_tool_name(
        &self,
        session_id: &str,
        tool_use_id: &str,
    ) -> Result<Option<String>, StoreError> {
        use rusqlite::OptionalExtension;
        self.conn
            .query_row(
                "SELECT tool_name FROM session_events
                 WHERE tool_use_id = ?1 AND session_id = ?2 AND type = 'tool_queued' LIMIT 1",
                params![tool_use_id, session_id],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.sqlite_error(e))
    }

    /// The calls of session `session_id` whose ask is still open: a
    /// `permission_requested` with no `permission_answered` or
    /// `tool_completed` after it, oldest first.
    pub fn unanswered_asks(&self, session_id: &str) -> Result<Vec<String>, StoreError> {
        let mut statement = self
            .conn
            .prepare_cached(
                "SELECT tool_use_id FROM session_events
                 WHERE session_id = ?1 AND tool_use_id IS NOT NULL
                 GROUP BY tool_use_id
                 HAVING max(type = 'permission_requested')
                    AND NOT max(type IN ('permission_answered', 'tool_completed'))
                 ORDER BY min(seq)",
            )
            .map_err(|e| self.sqlite_error(e))?;
        let rows = statement
            .query_map(params![session_id], |r| r.get(0))
            .map_err(|e| self.sqlite_error(e))?;
        rows.collect::<Result<_, _>>()
            .map_err(|e| self.sqlite_error(e))
    }
}

/// Whether a `permission_decided` body records the user's answer to an ask
/// (already counted by its `permission_answered`).
fn settled_by_user(body: &Value) -> bool {
    body.pointer("/reason/kind").and_then(Value::as_str) == Some("user_answer")
}

/// Appends `records` of session `session_id` inside `tx` (see
/// [`Store::append_batch`]) and returns the position of the last one.
/// Starts a write transaction that takes the write lock (waiting up to the
/// busy timeout) before its first read. A deferred transaction that reads and
/// then writes fails at once with SQLITE_BUSY, without waiting, when another
/// connection (an import, a VACUUM) wrote in between: the session's writer
/// lost 122 of 176 events that way during an import + replay + VACUUM (e2e
/// tests/responsive.rs).
pub(crate) fn immediate<'c>(
    conn: &'c mut rusqlite::Connection,
    path: &std::path::Path,
) -> Result<Transaction<'c>, StoreError> {
    conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        .map_err(|source| StoreError::Sqlite {
            path: path.to_path_buf(),
            source,
        })
}

pub(crate) fn append_in<'a>(
    tx: &Transaction<'_>,
    path: &std::path::Path,
    session_id: &str,
    records: impl IntoIterator<Item = (&'a Event, Option<&'a str>)>,
    checkpoint: Option<&ImportCheckpoint>,
) -> Result<i64, StoreError> {
    append_in_as(
        tx,
        path,
        session_id,
        records,
        checkpoint,
        checkpoint.is_none(),
    )
}

/// [`append_in`] with the session's counters updated as for a live
/// session (`live`: "last active" is now) or an import (from the events).
pub(crate) fn append_in_as<'a>(
    tx: &Transaction<'_>,
    path: &std::path::Path,
    session_id: &str,
    records: impl IntoIterator<Item = (&'a Event, Option<&'a str>)>,
    checkpoint: Option<&ImportCheckpoint>,
    live: bool,
) -> Result<i64, StoreError> {
    let sqlite = |source| StoreError::Sqlite {
        path: path.to_path_buf(),
        source,
    };
    let last: Option<(i64, Option<i64>)> = tx
        .query_row(
            "SELECT (SELECT COALESCE(MAX(seq), 0) FROM session_events WHERE session_id = ?1),
                    last_event_ms
                 FROM sessions WHERE id = ?1",
            params![session_id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .map_err(|e| match e {
            rusqlite::Error::QueryReturnedNoRows => StoreError::Invalid(format!(
                "no session with id {session_id}; create it before appending events"
            )),
            e => sqlite(e),
        })
        .map(Some)?;
    let (mut seq, last_ts) = last.unwrap_or((0, None));
    let imported = !live;
    let mut delta = CounterDelta {
        prev_ts: last_ts,
        live,
        ..CounterDelta::default()
    };
    for (event, raw) in records {
        seq += 1;
        insert_event(tx, seq, event, raw, &mut delta).map_err(sqlite)?;
    }
    tx.execute(
        "UPDATE sessions SET
                updated_at_ms = CASE WHEN ?13 THEN MAX(updated_at_ms, COALESCE(?11, updated_at_ms))
                                     WHEN ?15 THEN ?2 ELSE updated_at_ms END,
                event_count = event_count + ?3,
                title = COALESCE(title, ?4),
                status = CASE WHEN ?5 IS NOT NULL THEN ?5
                              WHEN ?16 AND status = 'running' THEN 'ended'
                              ELSE status END,
                end_reason = CASE WHEN ?17 THEN ?18 ELSE end_reason END,
                active_ms = active_ms + ?19,
                tool_calls = tool_calls + ?6,
                asks = asks + ?7,
                denials = denials + ?8,
                errors = errors + ?9,
                first_event_ms = COALESCE(MIN(first_event_ms, ?10), first_event_ms, ?10),
                last_event_ms = COALESCE(MAX(last_event_ms, ?11), last_event_ms, ?11),
                input_tokens = input_tokens + ?12,
                output_tokens = output_tokens + ?14
             WHERE id = ?1",
        params![
            session_id,
            now_ms(),
            delta.events,
            delta.title,
            delta.status,
            delta.tool_calls,
            delta.asks,
            delta.denials,
            delta.errors,
            delta.first_ts,
            delta.last_ts,
            delta.input_tokens,
            imported,
            delta.output_tokens,
            delta.activity,
            delta.ended_if_running,
            delta.end_reason.is_some(),
            delta.end_reason.flatten(),
            delta.active_ms,
        ],
    )
    .map_err(sqlite)?;
    if let Some(cp) = checkpoint {
        tx.execute(
            "INSERT INTO import_sources (path, session_id, byte_offset, line, state, updated_at_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                 ON CONFLICT (path) DO UPDATE SET session_id = excluded.session_id,
                    byte_offset = excluded.byte_offset, line = excluded.line,
                    state = excluded.state, updated_at_ms = excluded.updated_at_ms",
            params![
                cp.path,
                session_id,
                i64::try_from(cp.byte_offset).unwrap_or(i64::MAX),
                i64::try_from(cp.line).unwrap_or(i64::MAX),
                cp.state,
                now_ms()
            ],
        )
        .map_err(sqlite)?;
    }
    Ok(seq)
}
