//! Helpers shared by the session host's tests: replay-script turns and
//! reading a call's result from the events.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use gatehouse_protocol::event::{Event, EventBody};
use serde_json::{Value, json};

/// A replay turn that calls one tool.
pub fn tool(id: &str, name: &str, input: Value) -> Value {
    json!({"content": [{"type": "tool_use", "id": id, "name": name, "input": input}]})
}

/// A replay turn that answers with text.
pub fn text(t: &str) -> Value {
    json!({"content": [{"type": "text", "text": t}]})
}

/// Whether `id` completed with an error, and its content as JSON.
pub fn completed(events: &[Event], id: &str) -> (bool, String) {
    events
        .iter()
        .find_map(|e| match &e.body {
            EventBody::ToolCompleted {
                tool_use_id,
                is_error,
                content,
                ..
            } if tool_use_id == id => Some((*is_error, serde_json::to_string(content).unwrap())),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no tool_completed for {id}"))
}
