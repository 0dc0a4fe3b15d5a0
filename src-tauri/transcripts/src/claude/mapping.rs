//! Claude Code transcript entries → Gatehouse events.
//!
//! One entry (one JSON line) at a time, with a small state that survives
//! between incremental imports (it is saved in the import checkpoint):
//!
//! - `user` with text content → `user_prompt` (and `mode_changed` when its
//!   `permissionMode` differs from the last one seen);
//! - `assistant` lines are one content block each, several per message
//!   (same `message.id`): a `tool_use` block → `tool_queued` at once (as
//!   Gatehouse emits it when the block finishes streaming); all blocks are
//!   gathered and the message is written as one `assistant_message` plus a
//!   `usage` when the next message, the next prompt or the end of the file
//!   arrives;
//! - `user` with `tool_result` blocks → per result: `permission_decided`
//!   from `permissionDecision` (plus `permission_answered` deny when Claude
//!   Code's `toolDenialKind` says the approval was refused), the
//!   `toolUseResult` details as the `tool_progress` payloads Gatehouse's own
//!   tools stream (Edit/Write `structuredPatch` → `file_diff`, Bash
//!   stdout/stderr → `output`), then `tool_completed`;
//! - every other entry type (today `attachment`, `queue-operation`,
//!   `api-request`, `cost-state`, …; tomorrow anything) → `imported_entry`
//!   with the entry verbatim.
//!
//! Fields of `user`/`assistant` entries that no event carries are kept in
//! the event row's `raw` column.

use std::collections::BTreeMap;

use gatehouse_protocol::event::{ContentBlock, Event, EventBody, ImageSource, ToolCallStatus};
use gatehouse_protocol::permission::{
    DecisionReason, PermissionBehavior, PermissionMode, TraceOutcome, TraceStep,
};
use gatehouse_protocol::progress::{
    MAX_LISTED_SEARCH_ENTRIES, OutputStream, SearchUnit, ToolProgressData,
};
use gatehouse_protocol::session::PermissionAnswer;
use gatehouse_store::EventRecord;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::patch::file_diff;
use super::subagent_link;

/// The `source` of `imported_entry` events from Claude Code.
pub const SOURCE: &str = "claude_code";

/// An assistant message whose blocks are still arriving.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub(crate) struct PendingMessage {
    id: String,
    blocks: Vec<Value>,
    stop_reason: String,
    usage: Option<Value>,
    ts_ms: u64,
    /// Leftover fields of lines that produced no event of their own.
    raw_lines: Vec<Value>,
    /// Blocks already written by live flushes ([`Mapper::flush_partial`]);
    /// `blocks` holds only the ones not written yet.
    #[serde(default, skip_serializing_if = "is_zero")]
    written: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// A call whose result has not arrived yet.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub(crate) struct OpenCall {
    name: String,
    ts_ms: u64,
    /// A Task call's agent type (its result links to the sub-agent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    subagent_type: Option<String>,
}

/// What the mapper remembers between lines (and between imports).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub(crate) struct MapState {
    /// Assistant messages seen (Gatehouse's turn number).
    pub turn: u32,
    /// The last `permissionMode` seen.
    pub mode: Option<String>,
    /// The model of the first assistant message, once seen.
    pub model: Option<String>,
    /// The message being gathered.
    pub message: Option<PendingMessage>,
    /// Calls queued and not yet completed.
    pub open_calls: BTreeMap<String, OpenCall>,
    /// The time of the last entry that had one.
    pub last_ts_ms: u64,
    /// FNV-1a hash of the file's first bytes, to notice a replaced file.
    pub head_hash: Option<u64>,
    /// How many bytes `head_hash` covers.
    pub head_len: u64,
}

/// Parses an RFC 3339 timestamp into ms since the epoch.
pub(crate) fn parse_ts(text: &str) -> Option<u64> {
    let ts: jiff::Timestamp = text.parse().ok()?;
    u64::try_from(ts.as_millisecond()).ok()
}

fn str_field<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// Maps entries of one transcript to events of session `session_id`.
pub(crate) struct Mapper {
    session_id: String,
    /// Reading a transcript still being written: a message's blocks are
    /// written as they arrive ([`Mapper::flush_partial`]), and the text
    /// before a tool call before its `tool_queued`.
    live: bool,
    /// The state saved with each checkpoint.
    pub state: MapState,
}

impl Mapper {
    /// A mapper resuming from `state`.
    pub fn new(session_id: &str, state: MapState) -> Self {
        Self {
            session_id: session_id.to_owned(),
            live: false,
            state,
        }
    }

    /// A mapper of a transcript still being written, resuming from `state`.
    pub fn live(session_id: &str, state: MapState) -> Self {
        Self {
            live: true,
            ..Self::new(session_id, state)
        }
    }

    /// Writes the blocks of the message being gathered that are not
    /// written yet, as an `assistant_message` of the turn it will be, and
    /// keeps gathering it (live: the message may go on in lines not
    /// written yet; its `usage` comes with the last part).
    pub fn flush_partial(&mut self, out: &mut Vec<EventRecord>) {
        let turn = self.state.turn + 1;
        let Some(message) = self.state.message.as_mut() else {
            return;
        };
        if message.blocks.is_empty() {
            return;
        }
        let content = std::mem::take(&mut message.blocks);
        message.written += content.len();
        let body = EventBody::AssistantMessage {
            turn,
            message_id: Some(message.id.clone()),
            content,
            stop_reason: message.stop_reason.clone(),
        };
        let ts = message.ts_ms;
        out.push(self.event(ts, body));
    }

    fn event(&self, ts_ms: u64, body: EventBody) -> EventRecord {
        EventRecord {
            event: Event {
                session_id: self.session_id.clone(),
                ts_ms,
                body,
            },
            raw: None,
        }
    }

    /// Maps entry `entry` read from line `line`, appending its events to
    /// `out`.
    pub fn map_entry(&mut self, line: u64, mut entry: Value, out: &mut Vec<EventRecord>) {
        let ts = str_field(&entry, "timestamp")
            .and_then(parse_ts)
            .unwrap_or(self.state.last_ts_ms);
        self.state.last_ts_ms = self.state.last_ts_ms.max(ts);
        let kind = str_field(&entry, "type").unwrap_or("unknown").to_owned();
        let is_meta = entry.get("isMeta").and_then(Value::as_bool) == Some(true);
        // A new message or a new prompt ends the message being gathered;
        // write it first, so that this line's leftover fields go with this
        // line's own events.
        if self.ends_message(&kind, is_meta, &entry) {
            self.flush_message(out);
        }
        let first = out.len();
        let handled = match kind.as_str() {
            "assistant" => self.map_assistant(ts, &mut entry, out),
            "user" if !is_meta => self.map_user(ts, &mut entry, out),
            _ => false,
        };
        if !handled {
            out.push(self.event(
                ts,
                EventBody::ImportedEntry {
                    source: SOURCE.into(),
                    entry_type: kind,
                    line,
                    raw: entry,
                },
            ));
            return;
        }
        // `entry` now holds the fields no event carries.
        if let Some(message) = entry.get_mut("message").and_then(Value::as_object_mut) {
            message.remove("content");
        }
        match out.get_mut(first) {
            Some(record) => record.raw = Some(entry.to_string()),
            None => {
                if let Some(message) = &mut self.state.message {
                    message.raw_lines.push(entry);
                }
            }
        }
    }

    /// Whether entry `entry` (of type `kind`) begins a new message or a
    /// new prompt.
    fn ends_message(&self, kind: &str, is_meta: bool, entry: &Value) -> bool {
        let Some(pending) = &self.state.message else {
            return false;
        };
        match kind {
            "assistant" => {
                entry
                    .pointer("/message/content")
                    .is_some_and(Value::is_array)
                    && entry
                        .pointer("/message/id")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        != pending.id
            }
            "user" if !is_meta => match entry.pointer("/message/content") {
                Some(Value::String(_)) => true,
                Some(Value::Array(blocks)) => !blocks
                    .iter()
                    .any(|b| str_field(b, "type") == Some("tool_result")),
                _ => false,
            },
            _ => false,
        }
    }

    /// Writes the message being gathered, if any (at the end of a file, a
    /// new prompt or a new message).
    pub fn flush_message(&mut self, out: &mut Vec<EventRecord>) {
        let Some(message) = self.state.message.take() else {
            return;
        };
        self.state.turn += 1;
        let turn = self.state.turn;
        let raw =
            (!message.raw_lines.is_empty()).then(|| Value::Array(message.raw_lines).to_string());
        // A message whose blocks were all written by live flushes has only
        // its usage (and leftover fields) left.
        if message.written == 0 || !message.blocks.is_empty() {
            let mut record = self.event(
                message.ts_ms,
                EventBody::AssistantMessage {
                    turn,
                    message_id: Some(message.id.clone()),
                    content: message.blocks,
                    stop_reason: message.stop_reason,
                },
            );
            record.raw = raw;
            out.push(record);
        }
        if let Some(usage) = message.usage {
            let n = |k: &str| usage.get(k).and_then(Value::as_u64).unwrap_or(0);
            out.push(self.event(
                message.ts_ms,
                EventBody::Usage {
                    turn,
                    input_tokens: n("input_tokens"),
                    output_tokens: n("output_tokens"),
                    cache_creation_input_tokens: n("cache_creation_input_tokens"),
                    cache_read_input_tokens: n("cache_read_input_tokens"),
                },
            ));
        }
    }

    /// One block of an assistant message. Returns false when the entry is
    /// not shaped like one (it is then kept as an `imported_entry`).
    fn map_assistant(&mut self, ts: u64, entry: &mut Value, out: &mut Vec<EventRecord>) -> bool {
        let Some(message) = entry.get_mut("message") else {
            return false;
        };
        if !message.get("content").is_some_and(Value::is_array) {
            return false;
        }
        let Some(Value::Array(blocks)) = message.get_mut("content").map(Value::take) else {
            return false;
        };
        let id = str_field(message, "id").unwrap_or_default().to_owned();
        if self.state.model.is_none()
            && let Some(model) = str_field(message, "model")
        {
            self.state.model = Some(model.to_owned());
        }
        if self.state.message.as_ref().is_some_and(|m| m.id != id) || id.is_empty() {
            self.flush_message(out);
        }
        let pending = self.state.message.get_or_insert_with(|| PendingMessage {
            id: id.clone(),
            ts_ms: ts,
            ..PendingMessage::default()
        });
        if let Some(stop) = str_field(message, "stop_reason") {
            pending.stop_reason = stop.to_owned();
        }
        if let Some(usage) = message.get("usage") {
            pending.usage = Some(usage.clone());
        }
        let mut queued = Vec::new();
        for block in blocks {
            if str_field(&block, "type") == Some("tool_use") {
                let tool_use_id = str_field(&block, "id").unwrap_or_default().to_owned();
                let name = str_field(&block, "name").unwrap_or_default().to_owned();
                let input = block.get("input").cloned().unwrap_or_else(|| json!({}));
                queued.push((tool_use_id, name, input));
                if self.live {
                    // The text before a call reads before the call.
                    self.flush_partial(out);
                }
            }
            if let Some(pending) = self.state.message.as_mut() {
                pending.blocks.push(block);
            }
        }
        for (tool_use_id, name, input) in queued {
            self.state.open_calls.insert(
                tool_use_id.clone(),
                OpenCall {
                    name: name.clone(),
                    ts_ms: ts,
                    subagent_type: subagent_link::starts_subagent(&name)
                        .then(|| subagent_link::subagent_type(&input)),
                },
            );
            out.push(self.event(
                ts,
                EventBody::ToolQueued {
                    read_only: is_read_only_tool(&name),
                    tool_use_id,
                    name,
                    input,
                },
            ));
        }
        true
    }

    /// A prompt, or the results of tool calls.
    fn map_user(&mut self, ts: u64, entry: &mut Value, out: &mut Vec<EventRecord>) -> bool {
        let Some(content) = entry.pointer_mut("/message/content").map(Value::take) else {
            return false;
        };
        let blocks = match content {
            Value::String(text) => {
                self.prompt(ts, text, entry, out);
                return true;
            }
            Value::Array(blocks) => blocks,
            other => {
                // Put it back: the entry is kept whole.
                if let Some(slot) = entry.pointer_mut("/message/content") {
                    *slot = other;
                }
                return false;
            }
        };
        let has_results = blocks
            .iter()
            .any(|b| str_field(b, "type") == Some("tool_result"));
        if !has_results {
            let text = blocks
                .iter()
                .filter_map(|b| str_field(b, "text"))
                .collect::<Vec<_>>()
                .join("\n");
            self.prompt(ts, text, entry, out);
            return true;
        }
        let decision = entry.get("permissionDecision").cloned();
        let denial_kind = str_field(entry, "toolDenialKind").map(str::to_owned);
        let detail = entry.get("toolUseResult").cloned();
        let mut detail_mapped = false;
        let results: Vec<Value> = blocks
            .into_iter()
            .filter(|b| str_field(b, "type") == Some("tool_result"))
            .collect();
        let single = results.len() == 1;
        for block in results {
            let tool_use_id = str_field(&block, "tool_use_id")
                .unwrap_or_default()
                .to_owned();
            let call = self.state.open_calls.remove(&tool_use_id);
            let refused = decision.as_ref().is_some_and(|decision| {
                self.permission(ts, &tool_use_id, decision, denial_kind.as_deref(), out)
            });
            // `toolUseResult` describes the entry's (single) result.
            let mut interrupted = false;
            if single && let Some(detail) = &detail {
                detail_mapped = self.detail(ts, &tool_use_id, detail, out);
                interrupted = detail.get("interrupted").and_then(Value::as_bool) == Some(true);
                // A Task call's sub-agent (the rest of the detail stays raw).
                if let Some(data) = call
                    .as_ref()
                    .and_then(|c| c.subagent_type.as_deref())
                    .and_then(|ty| subagent_link::link(&self.session_id, ty, detail))
                {
                    out.push(self.event(
                        ts,
                        EventBody::ToolProgress {
                            tool_use_id: tool_use_id.clone(),
                            data,
                        },
                    ));
                }
            }
            let is_error = block.get("is_error").and_then(Value::as_bool) == Some(true);
            let content = result_content(block.get("content"));
            out.push(self.event(
                ts,
                EventBody::ToolCompleted {
                    tool_use_id,
                    status: result_status(is_error, refused, interrupted, &content),
                    is_error,
                    content,
                    duration_ms: call.map_or(0, |c| ts.saturating_sub(c.ts_ms)),
                    persisted_path: None,
                },
            ));
        }
        if detail_mapped && let Some(map) = entry.as_object_mut() {
            map.remove("toolUseResult");
        } else if let Some(file) = entry
            .pointer_mut("/toolUseResult/file")
            .and_then(Value::as_object_mut)
        {
            // Read's copy of the file text is what the tool_result already
            // holds (with line numbers): keep the rest, not a second copy.
            file.remove("content");
        }
        true
    }

    fn prompt(&mut self, ts: u64, text: String, entry: &Value, out: &mut Vec<EventRecord>) {
        self.flush_message(out);
        out.push(self.event(ts, EventBody::UserPrompt { text }));
        if let Some(mode) = str_field(entry, "permissionMode")
            && self.state.mode.as_deref() != Some(mode)
        {
            self.state.mode = Some(mode.to_owned());
            if let Ok(mode) = serde_json::from_value::<PermissionMode>(json!(mode)) {
                out.push(self.event(ts, EventBody::ModeChanged { mode }));
            }
        }
    }

    /// Maps `permissionDecision`; true when the call was refused (by the
    /// rules or by the user).
    fn permission(
        &self,
        ts: u64,
        tool_use_id: &str,
        decision: &Value,
        denial_kind: Option<&str>,
        out: &mut Vec<EventRecord>,
    ) -> bool {
        let verdict = str_field(decision, "decision").unwrap_or_default();
        let asked_and_refused = denial_kind == Some("user-rejected");
        let behavior = match verdict {
            "accept" | "allow" => PermissionBehavior::Allow,
            "reject" | "deny" if asked_and_refused => PermissionBehavior::Ask,
            "reject" | "deny" => PermissionBehavior::Deny,
            // "ask", and anything newer: the safe reading is that it asked.
            _ => PermissionBehavior::Ask,
        };
        let mode = self
            .state
            .mode
            .as_deref()
            .and_then(|m| serde_json::from_value::<PermissionMode>(json!(m)).ok());
        let reason = match (str_field(decision, "reasonType"), mode) {
            (Some("mode"), Some(mode)) => DecisionReason::Mode { mode },
            _ => {
                let parts: Vec<String> = ["source", "reasonType", "ruleSource", "reasonCode"]
                    .iter()
                    .filter_map(|k| str_field(decision, k).map(|v| format!("{k} {v}")))
                    .collect();
                DecisionReason::Default {
                    message: format!("Claude Code decided {verdict} ({})", parts.join(", ")),
                }
            }
        };
        let outcome = match behavior {
            PermissionBehavior::Allow => TraceOutcome::Allow,
            PermissionBehavior::Ask => TraceOutcome::Ask,
            PermissionBehavior::Deny => TraceOutcome::Deny,
        };
        out.push(self.event(
            ts,
            EventBody::PermissionDecided {
                tool_use_id: tool_use_id.to_owned(),
                decision: behavior,
                reason,
                trace: vec![TraceStep::new("claude_code", outcome, decision.to_string())],
            },
        ));
        if asked_and_refused {
            out.push(self.event(
                ts,
                EventBody::PermissionAnswered {
                    tool_use_id: tool_use_id.to_owned(),
                    answer: PermissionAnswer::Deny { feedback: None },
                },
            ));
        }
        asked_and_refused || behavior == PermissionBehavior::Deny
    }

    /// `toolUseResult` details as `tool_progress` events; true when it was
    /// fully represented (so it need not be kept raw).
    fn detail(
        &self,
        ts: u64,
        tool_use_id: &str,
        detail: &Value,
        out: &mut Vec<EventRecord>,
    ) -> bool {
        if let Some(diff) = file_diff(detail) {
            out.push(self.event(
                ts,
                EventBody::ToolProgress {
                    tool_use_id: tool_use_id.to_owned(),
                    data: ToolProgressData::file_diff(diff),
                },
            ));
            return false; // originalFile and friends stay raw
        }
        if let Some(data) = search_results(detail) {
            out.push(self.event(
                ts,
                EventBody::ToolProgress {
                    tool_use_id: tool_use_id.to_owned(),
                    data,
                },
            ));
            return false; // kept raw too: durationMs, the mode
        }
        let (Some(stdout), Some(stderr)) =
            (str_field(detail, "stdout"), str_field(detail, "stderr"))
        else {
            return false;
        };
        for (stream, text) in [
            (OutputStream::Stdout, stdout),
            (OutputStream::Stderr, stderr),
        ] {
            if !text.is_empty() {
                out.push(self.event(
                    ts,
                    EventBody::ToolProgress {
                        tool_use_id: tool_use_id.to_owned(),
                        data: ToolProgressData::BashOutput {
                            text: text.to_owned(),
                            skipped_bytes: 0,
                            total_bytes: text.len() as u64,
                            stream: Some(stream),
                        },
                    },
                ));
            }
        }
        if detail.get("interrupted").and_then(Value::as_bool) == Some(true) {
            out.push(self.event(
                ts,
                EventBody::ToolProgress {
                    tool_use_id: tool_use_id.to_owned(),
                    data: ToolProgressData::BashInterrupted {
                        message: "interrupted (Claude Code)".into(),
                        output_path: None,
                    },
                },
            ));
        }
        true
    }
}

/// Grep's or Glob's `toolUseResult` (`{mode?, numFiles, filenames,
/// content?, numMatches?, numLines?, truncated?}`) as the typed results
/// Gatehouse's own searches report, so that the call view counts and lists
/// them alike.
fn search_results(detail: &Value) -> Option<ToolProgressData> {
    let num_files = detail.get("numFiles")?.as_u64()?;
    let filenames: Vec<String> = detail
        .get("filenames")?
        .as_array()?
        .iter()
        .filter_map(|f| f.as_str().map(str::to_owned))
        .collect();
    let content_lines = || -> Vec<String> {
        str_field(detail, "content")
            .map(|c| c.lines().map(str::to_owned).collect())
            .unwrap_or_default()
    };
    let number = |key: &str| detail.get(key).and_then(Value::as_u64);
    let (unit, count, entries) = match detail.get("mode").and_then(Value::as_str) {
        Some("content") => {
            let lines = content_lines();
            let count = number("numLines").unwrap_or(lines.len() as u64);
            (SearchUnit::Lines, count, lines)
        }
        Some("count") => {
            let lines = content_lines();
            let count = number("numMatches").unwrap_or(lines.len() as u64);
            (SearchUnit::Lines, count, lines)
        }
        // files_with_matches, or Glob (no mode).
        _ => (SearchUnit::Files, num_files, filenames),
    };
    let listed = entries.len().min(MAX_LISTED_SEARCH_ENTRIES);
    Some(ToolProgressData::SearchResults {
        unit,
        count,
        more_entries: (entries.len() - listed) as u64,
        entries: entries.into_iter().take(listed).collect(),
        truncated: detail.get("truncated").and_then(Value::as_bool) == Some(true),
    })
}

/// Claude Code's built-in tools that change nothing, whatever their input
/// (an MCP tool's annotations are not in the transcript: not read-only).
fn is_read_only_tool(name: &str) -> bool {
    matches!(name, "Read" | "Grep" | "Glob" | "LS" | "NotebookRead")
}

/// The status of an imported result. Claude Code records refusals in
/// `permissionDecision` and interrupts in Bash's `toolUseResult`; without
/// them, the fixed texts it sends the model in their place say so.
fn result_status(
    is_error: bool,
    refused: bool,
    interrupted: bool,
    content: &[ContentBlock],
) -> ToolCallStatus {
    let text = content
        .iter()
        .find_map(|b| match b {
            ContentBlock::Text { text } => Some(text.as_str()),
            ContentBlock::Image { .. } | ContentBlock::ToolReference { .. } => None,
        })
        .unwrap_or("");
    if refused || text.starts_with(CLAUDE_CODE_REJECTED) {
        ToolCallStatus::Denied
    } else if interrupted || text.starts_with(CLAUDE_CODE_INTERRUPTED) {
        ToolCallStatus::Interrupted
    } else if is_error {
        ToolCallStatus::Error
    } else {
        ToolCallStatus::Ok
    }
}

/// The tool_result text Claude Code sends when the user rejects a call.
const CLAUDE_CODE_REJECTED: &str = "The user doesn't want to proceed with this tool use";
/// The tool_result text Claude Code sends for a call the user interrupted.
const CLAUDE_CODE_INTERRUPTED: &str = "[Request interrupted by user";

/// A tool_result's content as Gatehouse content blocks.
fn result_content(content: Option<&Value>) -> Vec<ContentBlock> {
    match content {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(text)) => vec![ContentBlock::Text { text: text.clone() }],
        Some(Value::Array(blocks)) => blocks
            .iter()
            .map(|b| match (str_field(b, "type"), b) {
                (Some("text"), _) => ContentBlock::Text {
                    text: str_field(b, "text").unwrap_or_default().to_owned(),
                },
                (Some("image"), _) => match b.get("source").and_then(|s| {
                    Some(ImageSource {
                        kind: str_field(s, "type")?.to_owned(),
                        media_type: str_field(s, "media_type")?.to_owned(),
                        data: str_field(s, "data")?.to_owned(),
                    })
                }) {
                    Some(source) => ContentBlock::Image { source },
                    None => ContentBlock::Text {
                        text: b.to_string(),
                    },
                },
                _ => ContentBlock::Text {
                    text: b.to_string(),
                },
            })
            .collect(),
        Some(other) => vec![ContentBlock::Text {
            text: other.to_string(),
        }],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imported_results_get_a_status_from_claude_codes_fields_and_fixed_texts() {
        let text = |t: &str| vec![ContentBlock::Text { text: t.into() }];
        let cases = [
            (false, false, false, text("fine"), ToolCallStatus::Ok),
            (true, false, false, text("boom"), ToolCallStatus::Error),
            (true, true, false, text("refused"), ToolCallStatus::Denied),
            (
                false,
                false,
                true,
                text("partial"),
                ToolCallStatus::Interrupted,
            ),
            (
                true,
                false,
                false,
                text(
                    "The user doesn't want to proceed with this tool use. The tool use was rejected",
                ),
                ToolCallStatus::Denied,
            ),
            (
                true,
                false,
                false,
                text("[Request interrupted by user for tool use]"),
                ToolCallStatus::Interrupted,
            ),
        ];
        for (is_error, refused, interrupted, content, want) in cases {
            assert_eq!(
                result_status(is_error, refused, interrupted, &content),
                want,
                "{content:?}"
            );
        }
    }

    #[test]
    fn timestamps_parse_to_milliseconds() {
        assert_eq!(parse_ts("1970-01-01T00:00:01.500Z"), Some(1500));
        assert_eq!(
            parse_ts("2026-11-30T09:15:11.872Z"),
            Some(1_796_030_111_872)
        );
        assert_eq!(parse_ts("yesterday"), None);
    }
}
