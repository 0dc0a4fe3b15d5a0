//! A Claude Code transcript read while Claude Code is still writing it:
//! the tail of a guarded session (`gatehouse-session`'s
//! `claude_guard::tail`). The same mapping as an import, with two
//! differences: a message's blocks are written as their lines arrive (a
//! message goes on over many lines, with tool results in between), and
//! the mapper's state is the caller's to keep between reads.

use gatehouse_store::EventRecord;

use super::entry_of;
use super::mapping::{MapState, Mapper};
use crate::lines::Line;

/// Maps the new lines of one live transcript to events of one session.
pub struct LiveTranscript {
    mapper: Mapper,
}

impl LiveTranscript {
    /// Resumes mapping for session `session_id` from `state` (what
    /// [`LiveTranscript::state`] returned; empty or `{}` to start afresh).
    /// A state this build cannot read starts afresh, with the problem.
    pub fn resume(session_id: &str, state: &str) -> (Self, Option<String>) {
        let (state, problem) = match state.trim() {
            "" => (MapState::default(), None),
            text => match serde_json::from_str(text) {
                Ok(state) => (state, None),
                Err(e) => (
                    MapState::default(),
                    Some(format!(
                        "the saved tail state is unreadable ({e}); started afresh"
                    )),
                ),
            },
        };
        (
            Self {
                mapper: Mapper::live(session_id, state),
            },
            problem,
        )
    }

    /// The state to save with the offset, to resume from.
    pub fn state(&self) -> String {
        // MapState is plain data: serialising it cannot fail.
        serde_json::to_string(&self.mapper.state).unwrap_or_default()
    }

    /// The model of the session's first assistant message, once seen.
    pub fn model(&self) -> Option<&str> {
        self.mapper.state.model.as_deref()
    }

    /// Maps line number `line_no`, appending its events to `out`. Returns
    /// the problem when the line is not a transcript entry (it is skipped).
    pub fn map_line(
        &mut self,
        line_no: u64,
        line: Line,
        out: &mut Vec<EventRecord>,
    ) -> Option<String> {
        match entry_of(line) {
            Ok(Some(entry)) => {
                self.mapper.map_entry(line_no, entry, out);
                None
            }
            Ok(None) => None,
            Err(problem) => Some(problem),
        }
    }

    /// Writes what the message being gathered has so far (at the end of
    /// what is written of the file).
    pub fn flush(&mut self, out: &mut Vec<EventRecord>) {
        self.mapper.flush_partial(out);
    }
}

#[cfg(test)]
mod tests {
    use gatehouse_protocol::event::EventBody;
    use serde_json::{Value, json};

    use super::*;

    fn kinds(out: &[EventRecord]) -> Vec<String> {
        out.iter()
            .map(|r| match &r.event.body {
                EventBody::AssistantMessage { content, turn, .. } => {
                    format!("message {turn} x{}", content.len())
                }
                other => serde_json::to_value(other).unwrap()["type"]
                    .as_str()
                    .unwrap()
                    .to_owned(),
            })
            .collect()
    }

    #[test]
    fn live_mode_writes_a_message_as_it_arrives_and_its_usage_once() {
        let line = |block: Value| {
            json!({"type": "assistant", "timestamp": "2026-11-30T09:18:16.000Z",
                   "message": {"id": "msg_1", "content": [block], "usage": {"output_tokens": 5}}})
        };
        let text = line(json!({"type": "text", "text": "Looking."}));
        let call = line(json!({"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}));
        let next = json!({"type": "user", "message": {"content": "thanks"}});

        let mut live = Mapper::live("s", MapState::default());
        let mut out = Vec::new();
        live.map_entry(1, text.clone(), &mut out);
        live.map_entry(2, call.clone(), &mut out);
        live.flush_partial(&mut out);
        // The text before the call, then the call, then the call's block.
        assert_eq!(kinds(&out), ["message 1 x1", "tool_queued", "message 1 x1"]);
        live.flush_partial(&mut out);
        assert_eq!(out.len(), 3, "nothing new to write");
        live.map_entry(3, next.clone(), &mut out);
        assert_eq!(kinds(&out[3..]), ["usage", "user_prompt"]);

        // An import writes the message whole when it ends, as before.
        let mut import = Mapper::new("s", MapState::default());
        let mut out = Vec::new();
        for (n, entry) in [text, call, next].into_iter().enumerate() {
            import.map_entry(n as u64 + 1, entry, &mut out);
        }
        assert_eq!(
            kinds(&out),
            ["tool_queued", "message 1 x2", "usage", "user_prompt"]
        );
    }
}
