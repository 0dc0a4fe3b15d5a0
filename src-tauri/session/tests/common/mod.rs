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

/// Folders for a guarded Claude Code's hook calls: a home (Claude Code's
/// user settings), a project and Gatehouse's data directory, all
/// canonical (see [`Dirs::folder`] for more).
pub struct Dirs {
    _root: tempfile::TempDir,
    /// `HOME`.
    pub home: std::path::PathBuf,
    /// The project Claude Code runs in.
    pub project: std::path::PathBuf,
    /// Gatehouse's data directory.
    pub data: std::path::PathBuf,
}

impl Dirs {
    /// Fresh, empty folders.
    pub fn new() -> Self {
        let root = tempfile::tempdir().unwrap();
        let [home, project, data] = ["home", "project", "data"].map(|d| {
            let p = root.path().join(d);
            std::fs::create_dir_all(&p).unwrap();
            p.canonicalize().unwrap()
        });
        Dirs {
            _root: root,
            home,
            project,
            data,
        }
    }

    /// Another fresh folder `name` beside them.
    pub fn folder(&self, name: &str) -> std::path::PathBuf {
        let p = self._root.path().join(name);
        std::fs::create_dir_all(&p).unwrap();
        p.canonicalize().unwrap()
    }
}
