//! One guarded Claude Code session has two writers: the hook calls
//! (`hook`, one process per call) and the tail of Claude Code's transcript
//! (`tail`, in the app). Both record the same tool calls, in either order
//! (Claude Code writes a `tool_use` line and runs PreToolUse close
//! together; a result reaches PostToolUse before its transcript line, but
//! not always the tail before the hook). This module is the one place that
//! decides what of a batch the session does not hold yet, keyed by the
//! call's `tool_use_id`, inside the store's write transaction
//! (`Store::append_checked`), so two writers of one call never both add
//! what neither saw:
//!
//! * a call is queued once and completed once, whoever is first;
//! * Claude Code's own decision from the transcript (`permissionDecision`)
//!   is kept only for a call no hook decided (the hook's decision and the
//!   ledger say more), or when Claude Code's own rule refused a call the
//!   hook let through (no hook runs after such a refusal);
//! * the transcript's detail of a result (a diff, Bash's output) is added
//!   once, also after the hook's completion (the hook's record lacks it);
//! * a completion of a call whose ask was left to Claude Code's terminal
//!   first records the terminal's answer ([`super::ledger`]): a result
//!   means the user allowed it there, a refusal that they declined.

use std::collections::HashMap;

use gatehouse_protocol::event::{Event, EventBody, ToolCallStatus};
use gatehouse_protocol::permission::{PermissionBehavior, TraceStep};
use gatehouse_protocol::session::PermissionAnswer;
use gatehouse_store::{CallLookup, EventRecord, ImportCheckpoint, Store, StoreError};

use super::ledger::{ask_open, terminal_answer};

/// Who writes a batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Writer {
    /// A hook call: Gatehouse's decisions, the ledger, results.
    Hook,
    /// The transcript tail: what Claude Code wrote down.
    Transcript,
}

/// The call an event belongs to.
fn call_of(body: &EventBody) -> Option<&str> {
    match body {
        EventBody::ToolQueued { tool_use_id, .. }
        | EventBody::ToolStarted { tool_use_id, .. }
        | EventBody::PermissionDecided { tool_use_id, .. }
        | EventBody::PermissionRequested { tool_use_id, .. }
        | EventBody::PermissionAnswered { tool_use_id, .. }
        | EventBody::ToolProgress { tool_use_id, .. }
        | EventBody::ToolCompleted { tool_use_id, .. } => Some(tool_use_id),
        _ => None,
    }
}

/// The `type` of an event, as the store records it.
fn type_of(body: &EventBody) -> String {
    serde_json::to_value(body)
        .ok()
        .and_then(|v| v.get("type").and_then(|t| t.as_str().map(str::to_owned)))
        .unwrap_or_default()
}

/// Whether `writer` adds `body` to a call whose events so far are `held`
/// (`stored`: those before this batch).
fn keep(writer: Writer, body: &EventBody, held: &[String], stored: &[String]) -> bool {
    let has = |t: &str| held.iter().any(|h| h == t);
    match body {
        EventBody::ToolQueued { .. } => !has("tool_queued"),
        EventBody::ToolCompleted { .. } => !has("tool_completed"),
        EventBody::PermissionDecided {
            decision, trace, ..
        } => {
            writer == Writer::Hook
                || !has("permission_decided")
                // Claude Code's own rule refused a call Gatehouse let
                // through (or left to it): no hook runs after that, so the
                // transcript is the only place the ledger learns it.
                || (*decision == PermissionBehavior::Deny
                    && !has("tool_completed")
                    && refused_by_claude_code_rule(trace))
        }
        EventBody::PermissionAnswered { .. } => {
            writer == Writer::Hook || !has("permission_decided")
        }
        // Several progress events of one result come in one batch; a
        // result's detail already stored is not added again.
        EventBody::ToolProgress { .. } => {
            writer == Writer::Hook || !stored.iter().any(|t| t == "tool_progress")
        }
        _ => true,
    }
}

/// Whether a decision mapped from the transcript is Claude Code refusing
/// the call by one of its own permission rules (`permissionDecision`
/// `reasonType` `rule`, kept whole in the `claude_code` trace step), not
/// by a hook's answer (Gatehouse's own deny is already in the ledger).
fn refused_by_claude_code_rule(trace: &[TraceStep]) -> bool {
    trace.iter().any(|step| {
        step.layer == "claude_code"
            && serde_json::from_str::<serde_json::Value>(&step.detail)
                .ok()
                .is_some_and(|d| d.get("reasonType").and_then(|t| t.as_str()) == Some("rule"))
    })
}

/// Appends `records` of session `session` in one write transaction,
/// leaving out what the session already holds of their calls (see the
/// module's rules), with `checkpoint` when given: `(checkpoint, from)`
/// writes nothing unless the source is still recorded at offset `from`
/// (the records were read from there; another reader of the transcript —
/// the first hook call's catch-up, the app's tail — may have been first).
/// Returns how many events were appended (`None`: nothing was written).
pub(super) fn append_merged(
    store: &mut Store,
    session: &str,
    writer: Writer,
    records: Vec<EventRecord>,
    checkpoint: Option<(&ImportCheckpoint, u64)>,
) -> Result<Option<usize>, StoreError> {
    store.append_checked(session, checkpoint.map(|c| c.0), |lookup: &CallLookup<'_>| {
        if let Some((checkpoint, from)) = checkpoint
            && lookup.import_offset(&checkpoint.path)? != Some(from)
        {
            return Ok(None);
        }
        let mut stored: HashMap<String, Vec<String>> = HashMap::new();
        let mut held: HashMap<String, Vec<String>> = HashMap::new();
        let mut kept = Vec::with_capacity(records.len());
        for record in records {
            let Some(id) = call_of(&record.event.body).map(str::to_owned) else {
                kept.push(record);
                continue;
            };
            if !stored.contains_key(&id) {
                let types = lookup.call_event_types(&id)?;
                held.insert(id.clone(), types.clone());
                stored.insert(id.clone(), types);
            }
            let (Some(before), Some(now)) = (stored.get(&id), held.get_mut(&id)) else {
                continue;
            };
            if !keep(writer, &record.event.body, now, before) {
                continue;
            }
            if let EventBody::ToolCompleted { status, .. } = &record.event.body
                && ask_open(now)
            {
                let (answer, detail) = if *status == ToolCallStatus::Denied {
                    (
                        PermissionAnswer::Deny { feedback: None },
                        "the transcript records the call refused after Claude Code asked in its terminal",
                    )
                } else {
                    (
                        PermissionAnswer::AllowOnce,
                        "the call ran after Claude Code asked in its terminal",
                    )
                };
                for body in terminal_answer(&id, answer, detail) {
                    now.push(type_of(&body));
                    kept.push(EventRecord {
                        event: Event {
                            session_id: session.to_owned(),
                            ts_ms: record.event.ts_ms,
                            body,
                        },
                        raw: None,
                    });
                }
            }
            now.push(type_of(&record.event.body));
            kept.push(record);
        }
        Ok(Some(kept))
    })
}

/// Live events of `session` as records (no raw source fields).
pub(super) fn records(session: &str, ts_ms: u64, bodies: Vec<EventBody>) -> Vec<EventRecord> {
    bodies
        .into_iter()
        .map(|body| EventRecord {
            event: Event {
                session_id: session.to_owned(),
                ts_ms,
                body,
            },
            raw: None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use gatehouse_protocol::event::ContentBlock;

    fn types(t: &[&str]) -> Vec<String> {
        t.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn a_call_is_queued_and_completed_once_whoever_writes_first() {
        let queued = EventBody::ToolQueued {
            tool_use_id: "t".into(),
            name: "Bash".into(),
            input: serde_json::json!({}),
            read_only: false,
        };
        let completed = EventBody::ToolCompleted {
            tool_use_id: "t".into(),
            status: ToolCallStatus::Ok,
            is_error: false,
            content: vec![ContentBlock::Text { text: "x".into() }],
            duration_ms: 0,
            persisted_path: None,
        };
        for writer in [Writer::Hook, Writer::Transcript] {
            assert!(keep(writer, &queued, &[], &[]));
            let q = types(&["tool_queued"]);
            assert!(!keep(writer, &queued, &q, &q));
            assert!(keep(writer, &completed, &q, &q));
            let done = types(&["tool_queued", "tool_completed"]);
            assert!(!keep(writer, &completed, &done, &done));
        }
        assert_eq!(type_of(&queued), "tool_queued");
    }
}
