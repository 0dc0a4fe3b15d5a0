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
