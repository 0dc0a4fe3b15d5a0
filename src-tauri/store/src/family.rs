//! A session read together with its sub-agents (issue 19): each sub-agent
//! is a session of its own whose `parent_session_id` names the session that
//! started it, and a live window shows them nested in the parent. Reading
//! them as one stream in the order they were written (the events' row ids:
//! one writer appends every session's events) puts each sub-agent's events
//! where they happened, so a resumed session's nested transcripts, asks and
//! progress fold exactly as they did live.
//!
//! Positions (`seq`) and counts here are the parent's own: a resumed
//! handle's tail starts at one of the parent's turns, and its
//! `earlier_events` counts the parent's events before it; the sub-agents'
//! events written meanwhile come along with whichever part they fall in.

use gatehouse_protocol::event::Event;
use gatehouse_protocol::session::StoredEvents;
use gatehouse_protocol::upgrade::EventUpgrader;
use rusqlite::{OptionalExtension, params};

use crate::{Store, StoreError};

/// The session `?1` and every session below it (UNION: a cycle in stored
/// links ends the recursion).
const FAMILY: &str = "WITH RECURSIVE family(id) AS (
        SELECT ?1
        UNION
        SELECT s.id FROM sessions s JOIN family f ON s.parent_session_id = f.id
    )";

impl Store {
    /// [`Store::session_events_tail`] of session `id` with its sub-agents'
    /// (and theirs') events from the tail's start on, in the order they were
    /// written; the count is the parent's events before the tail.
    pub fn family_events_tail(&self, id: &str, keep: u32) -> Result<(Vec<Event>, u32), StoreError> {
        let (start, earlier) = self.tail_start(id, keep)?;
        let from = self.row_of(id, start)?.unwrap_or(0);
        let read = self.family_rows(id, from, i64::MAX)?;
        Ok((read.events, earlier))
    }

    /// The part of session `id` and its sub-agents that comes before the
    /// parent's event number `count + 1` (what [`Self::family_events_tail`]
    /// left out when it said `count`). `unreadable_seqs` lists the parent's
    /// own unreadable positions; `unreadable` counts everyone's.
    pub fn family_events_head(&self, id: &str, count: u32) -> Result<StoredEvents, StoreError> {
        let until = self.row_of(id, i64::from(count) + 1)?.unwrap_or(i64::MAX);
        self.family_rows(id, 0, until)
    }

    /// The row id of session `id`'s event at position `seq`.
    fn row_of(&self, id: &str, seq: i64) -> Result<Option<i64>, StoreError> {
        self.conn
            .query_row(
                "SELECT id FROM session_events WHERE session_id = ?1 AND seq = ?2",
                params![id, seq],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.sqlite_error(e))
    }

    /// The events of `id`'s family with row ids in `from..until`, in order.
    fn family_rows(&self, id: &str, from: i64, until: i64) -> Result<StoredEvents, StoreError> {
        let sqlite = |e| self.sqlite_error(e);
        let sql = format!(
            "{FAMILY} SELECT session_id, seq, body FROM session_events
             WHERE session_id IN (SELECT id FROM family) AND id >= ?2 AND id < ?3
             ORDER BY id"
        );
        let mut stmt = self.conn.prepare(&sql).map_err(sqlite)?;
        let mut rows = stmt.query(params![id, from, until]).map_err(sqlite)?;
        let mut read = StoredEvents {
            events: Vec::new(),
            unreadable_seqs: Vec::new(),
            unreadable: 0,
        };
        // One reader for all: what it remembers is keyed by call ids,
        // which no two sessions share.
        let mut upgrader = EventUpgrader::new();
        while let Some(row) = rows.next().map_err(sqlite)? {
            let session: String = row.get(0).map_err(sqlite)?;
            let seq: i64 = row.get(1).map_err(sqlite)?;
            let body: String = row.get(2).map_err(sqlite)?;
            match upgrader.read(&body) {
                Ok(event) => read.events.push(event),
                Err(_) => {
                    read.unreadable += 1;
                    if session == id
                        && read.unreadable_seqs.len() < StoredEvents::MAX_LISTED_UNREADABLE
                    {
                        read.unreadable_seqs.push(u64::try_from(seq).unwrap_or(0));
                    }
                }
            }
        }
        Ok(read)
    }
}
