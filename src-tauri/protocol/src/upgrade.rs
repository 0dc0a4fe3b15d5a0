//! Reading events stored by earlier builds: the read-time upgrade.
//!
//! Events are stored as their JSON line and never rewritten, so a database
//! or JSONL export written by an earlier build holds events in the shapes
//! of that build. They are upgraded here, once, as they are read, and
//! every reader of stored events (the store, hence the app, the CLI and the
//! exports) goes through [`EventUpgrader`]:
//!
//! * `tool_completed` without `status` (before issue 16): the status is
//!   derived from what the old event and the call's earlier events say —
//!   not an error → `ok`; refused by the permission decision or the user
//!   (`permission_decided` deny, `permission_answered` deny) → `denied`;
//!   Bash's `interrupted` progress, or the runtime's interrupt wording
//!   ("Interrupted by the user…", "Not run: the user interrupted…") →
//!   `interrupted`; its cancellation wording ("Cancelled:…") →
//!   `cancelled`; Bash's or an MCP server's timeout wording → `timed_out`;
//!   anything else → `error`. The wording is the one those builds wrote,
//!   which is fixed now that they are released; new events carry `status`
//!   and are never read this way.
//! * `tool_progress` whose payload fits no variant of
//!   [`ToolProgressData`]: the old `{"type": "file_diff" | "mcp_progress", …}`
//!   payloads (no `kind`) are read as their variants; anything else
//!   (free-form JSON, a newer build's kind) becomes
//!   [`ToolProgressData::Other`] with the payload kept whole.
//! * `tool_queued` without `read_only` reads as not read-only.
//!
//! Events in today's shape take the fast path: one typed parse.

use std::collections::HashSet;

use serde_json::Value;

use crate::event::{ContentBlock, Event, EventBody, ToolCallStatus};
use crate::permission::PermissionBehavior;
use crate::progress::ToolProgressData;
use crate::session::PermissionAnswer;

/// Reads the stored events of one session, in order, upgrading the shapes
/// of earlier builds. Keeps, per open call, what an old `tool_completed`
/// needs to derive its status (only until that call completes).
#[derive(Debug, Default)]
pub struct EventUpgrader {
    denied: HashSet<String>,
    interrupted: HashSet<String>,
    upgraded: u64,
}

impl EventUpgrader {
    /// A reader at the start of a session.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many events so far were in an earlier build's shape.
    pub fn upgraded(&self) -> u64 {
        self.upgraded
    }

    /// Reads one stored event (its JSON text). Fails, with the error of the
    /// typed parse, only when the event is not one this build can read even
    /// after the upgrade (a newer build's event type, or not an event).
    pub fn read(&mut self, json: &str) -> Result<Event, serde_json::Error> {
        match serde_json::from_str::<Event>(json) {
            Ok(event) => {
                self.observe(&event);
                Ok(event)
            }
            Err(error) => {
                let Ok(value) = serde_json::from_str::<Value>(json) else {
                    return Err(error);
                };
                self.read_old(value).ok_or(error)
            }
        }
    }

    /// Reads one event already parsed as JSON (a JSONL line), upgrading it
    /// as [`Self::read`] does.
    pub fn read_value(&mut self, value: Value) -> Result<Event, serde_json::Error> {
        match serde_json::from_value::<Event>(value.clone()) {
            Ok(event) => {
                self.observe(&event);
                Ok(event)
            }
            Err(error) => self.read_old(value).ok_or(error),
        }
    }

    /// The slow path: `value` did not parse as today's event.
    fn read_old(&mut self, mut value: Value) -> Option<Event> {
        if !self.upgrade(&mut value) {
            return None;
        }
        let event = serde_json::from_value::<Event>(value).ok()?;
        self.upgraded += 1;
        self.observe(&event);
        Some(event)
    }

    /// Rewrites an old shape in place; false when there was nothing to
    /// upgrade (the event is unreadable for another reason).
    fn upgrade(&self, value: &mut Value) -> bool {
        let Some(map) = value.as_object_mut() else {
            return false;
        };
        match map.get("type").and_then(Value::as_str) {
            Some("tool_completed") if !map.contains_key("status") => {
                let id = map.get("tool_use_id").and_then(Value::as_str).unwrap_or("");
                let is_error = map.get("is_error").and_then(Value::as_bool) == Some(true);
                let content: Vec<ContentBlock> = map
                    .get("content")
                    .cloned()
                    .and_then(|c| serde_json::from_value(c).ok())
                    .unwrap_or_default();
                let status = self.legacy_status(id, is_error, first_text(&content));
                let Ok(status) = serde_json::to_value(status) else {
                    return false;
                };
                map.insert("status".into(), status);
                true
            }
            Some("tool_progress") => {
                let data = map.remove("data").unwrap_or(Value::Null);
                let typed = legacy_progress(data);
                match serde_json::to_value(typed) {
                    Ok(v) => {
                        map.insert("data".into(), v);
                        true
                    }
                    Err(_) => false,
                }
            }
            _ => false,
        }
    }

    /// The status of an old `tool_completed` of call `id`.
    fn legacy_status(&self, id: &str, is_error: bool, text: &str) -> ToolCallStatus {
        if !is_error {
            ToolCallStatus::Ok
        } else if self.denied.contains(id) {
            ToolCallStatus::Denied
        } else if self.interrupted.contains(id)
            || text.starts_with("Interrupted by the user")
            || text.starts_with("Not run: the user interrupted")
        {
            ToolCallStatus::Interrupted
        } else if text.starts_with("Cancelled:") {
            ToolCallStatus::Cancelled
        } else if is_old_timeout(text) {
            ToolCallStatus::TimedOut
        } else {
            ToolCallStatus::Error
        }
    }

    /// Remembers what a later old `tool_completed` of the same call needs.
    fn observe(&mut self, event: &Event) {
        match &event.body {
            EventBody::PermissionDecided {
                tool_use_id,
                decision: PermissionBehavior::Deny,
                ..
            }
            | EventBody::PermissionAnswered {
                tool_use_id,
                answer: PermissionAnswer::Deny { .. },
            } => {
                self.denied.insert(tool_use_id.clone());
            }
            EventBody::ToolProgress {
                tool_use_id,
                data: ToolProgressData::BashInterrupted { .. },
            } => {
                self.interrupted.insert(tool_use_id.clone());
            }
            EventBody::ToolCompleted { tool_use_id, .. } => {
                self.denied.remove(tool_use_id);
                self.interrupted.remove(tool_use_id);
            }
            _ => {}
        }
    }
}

/// An old progress payload as a typed one.
fn legacy_progress(data: Value) -> ToolProgressData {
    if let Ok(typed) = serde_json::from_value::<ToolProgressData>(data.clone()) {
        return typed;
    }
    // Before `kind`, the file diff and MCP payloads were tagged by `type`.
    if let Some(tag @ ("file_diff" | "mcp_progress")) = data.get("type").and_then(Value::as_str)
        && data.get("kind").is_none()
    {
        let mut tagged = data.clone();
        if let Some(map) = tagged.as_object_mut() {
            map.insert("kind".into(), Value::String(tag.to_owned()));
        }
        if let Ok(typed) = serde_json::from_value::<ToolProgressData>(tagged) {
            return typed;
        }
    }
    ToolProgressData::Other { data }
}

fn first_text(content: &[ContentBlock]) -> &str {
    content
        .iter()
        .find_map(|b| match b {
            ContentBlock::Text { text } => Some(text.as_str()),
            ContentBlock::Image { .. } | ContentBlock::ToolReference { .. } => None,
        })
        .unwrap_or("")
}

/// Whether an old error text is one of the timeout messages earlier builds
/// wrote: Bash's "Command timed out after N ms: …" line (after the
/// output) or the MCP client's "MCP server `x` did not answer within N s".
fn is_old_timeout(text: &str) -> bool {
    let body = text.strip_prefix("Error: ").unwrap_or(text);
    (body.starts_with("MCP server `") && body.contains("` did not answer within "))
        || body
            .lines()
            .any(|l| l.starts_with("Command timed out after ") && l.contains(" ms: "))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn read_all(lines: &[Value]) -> Vec<Event> {
        let mut up = EventUpgrader::new();
        lines
            .iter()
            .map(|l| up.read(&l.to_string()).unwrap())
            .collect()
    }

    fn status_of(event: &Event) -> ToolCallStatus {
        match &event.body {
            EventBody::ToolCompleted { status, .. } => *status,
            other => panic!("not a tool_completed: {other:?}"),
        }
    }

    fn completed(id: &str, is_error: bool, text: &str) -> Value {
        json!({"session_id": "s", "ts_ms": 5, "type": "tool_completed", "tool_use_id": id,
               "is_error": is_error, "content": [{"type": "text", "text": text}],
               "duration_ms": 3, "persisted_path": null})
    }

    #[test]
    fn old_tool_completed_gets_its_status_from_the_old_fields() {
        let events = read_all(&[
            completed(
                "ok",
                false,
                "Cancelled: looks like a cancellation but is a result",
            ),
            completed("err", true, "Error: no such file"),
            completed(
                "int",
                true,
                "Interrupted by the user: the call was stopped.",
            ),
            completed(
                "notrun",
                true,
                "Not run: the user interrupted the turn before this call started.",
            ),
            completed(
                "sib",
                true,
                "Cancelled: parallel tool call a (Bash) failed, so this call was stopped.",
            ),
            completed(
                "bash-to",
                true,
                "Error: partial output\nCommand timed out after 100 ms: SIGTERM.",
            ),
            completed(
                "mcp-to",
                true,
                "Error: MCP server `s` did not answer within 5 s; the call was cancelled",
            ),
        ]);
        let statuses: Vec<_> = events.iter().map(status_of).collect();
        assert_eq!(
            statuses,
            [
                ToolCallStatus::Ok,
                ToolCallStatus::Error,
                ToolCallStatus::Interrupted,
                ToolCallStatus::Interrupted,
                ToolCallStatus::Cancelled,
                ToolCallStatus::TimedOut,
                ToolCallStatus::TimedOut,
            ]
        );
    }

    #[test]
    fn old_denials_and_bash_interrupts_are_read_from_the_calls_earlier_events() {
        let mut up = EventUpgrader::new();
        let lines = [
            json!({"session_id": "s", "ts_ms": 1, "type": "permission_decided", "tool_use_id": "d",
                   "decision": "deny", "reason": {"kind": "mode", "mode": "plan"}, "trace": []}),
            completed("d", true, "Permission denied: permission mode Plan"),
            json!({"session_id": "s", "ts_ms": 2, "type": "permission_answered", "tool_use_id": "u",
                   "answer": {"kind": "deny", "feedback": "no"}}),
            completed("u", true, "The user refused"),
            json!({"session_id": "s", "ts_ms": 3, "type": "tool_progress", "tool_use_id": "b",
                   "data": {"kind": "interrupted", "message": "SIGTERM", "output_path": "/o"}}),
            completed("b", true, "Error: stopped"),
            // Once completed, the call's id is forgotten.
            completed("d", true, "Error: again"),
        ];
        let statuses: Vec<_> = lines
            .iter()
            .filter_map(|l| {
                let e = up.read(&l.to_string()).unwrap();
                matches!(e.body, EventBody::ToolCompleted { .. }).then(|| status_of(&e))
            })
            .collect();
        assert_eq!(
            statuses,
            [
                ToolCallStatus::Denied,
                ToolCallStatus::Denied,
                ToolCallStatus::Interrupted,
                ToolCallStatus::Error
            ]
        );
        assert_eq!(up.upgraded(), 4);
    }

    #[test]
    fn old_progress_payloads_become_typed_or_other() {
        let progress = |data: Value| json!({"session_id": "s", "ts_ms": 1, "type": "tool_progress", "tool_use_id": "a", "data": data});
        let diff =
            json!({"path": "/p/a", "created": true, "hunks": [], "additions": 0, "deletions": 0});
        let events = read_all(&[
            progress(json!({"type": "file_diff", "diff": diff})),
            progress(
                json!({"type": "mcp_progress", "progress": 2, "total": 10, "message": "half"}),
            ),
            progress(json!({"kind": "output", "text": "x", "skipped_bytes": 0, "total_bytes": 1})),
            progress(
                json!({"kind": "started", "pid": 7, "cwd": "/p", "description": null, "output_path": "/o"}),
            ),
            progress(json!({"step": 3})),
            progress(json!({"kind": "from_the_future", "x": 1})),
        ]);
        let data: Vec<_> = events
            .into_iter()
            .map(|e| match e.body {
                EventBody::ToolProgress { data, .. } => data,
                other => panic!("{other:?}"),
            })
            .collect();
        assert!(matches!(&data[0], ToolProgressData::FileDiff { diff, .. } if diff.created));
        assert_eq!(
            data[1],
            ToolProgressData::mcp_progress(2.0, Some(10.0), Some("half".into()))
        );
        assert!(matches!(&data[2], ToolProgressData::BashOutput { text, .. } if text == "x"));
        assert!(matches!(
            &data[3],
            ToolProgressData::BashStarted { pid: Some(7), .. }
        ));
        assert_eq!(
            data[4],
            ToolProgressData::Other {
                data: json!({"step": 3})
            }
        );
        assert!(
            matches!(&data[5], ToolProgressData::Other { data } if data["kind"] == "from_the_future")
        );
    }

    #[test]
    fn old_tool_queued_reads_as_not_read_only_and_unknown_events_still_fail() {
        let mut up = EventUpgrader::new();
        let e = up
            .read(r#"{"session_id":"s","ts_ms":1,"type":"tool_queued","tool_use_id":"a","name":"Read","input":{}}"#)
            .unwrap();
        assert!(matches!(
            e.body,
            EventBody::ToolQueued {
                read_only: false,
                ..
            }
        ));
        assert!(
            up.read(r#"{"session_id":"s","ts_ms":1,"type":"from_the_future"}"#)
                .is_err()
        );
        assert!(up.read("not json").is_err());
    }

    #[test]
    fn todays_events_take_the_fast_path() {
        let mut up = EventUpgrader::new();
        let line = json!({"session_id": "s", "ts_ms": 5, "type": "tool_completed", "tool_use_id": "a",
               "status": "cancelled", "is_error": true, "content": [], "duration_ms": 3, "persisted_path": null});
        assert_eq!(
            status_of(&up.read(&line.to_string()).unwrap()),
            ToolCallStatus::Cancelled
        );
        assert_eq!(up.upgraded(), 0);
    }
}
