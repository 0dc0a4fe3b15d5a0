//! Shared helpers for the shell tool tests.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use gatehouse_core::events::{Emitter, EventSink, MemorySink};
use gatehouse_core::testing::TestResolver;
use gatehouse_core::{ToolCallResult, ToolPool, ToolRuntime, ToolUseBlock, ToolUseContext};
use gatehouse_protocol::event::{Event, EventBody};
use gatehouse_tools::bash::process::process_alive;
use gatehouse_tools::bash::{BashConfig, shell_tools};
use gatehouse_tools::tasks::TaskManager;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

pub const GRACE: Duration = Duration::from_millis(300);

pub struct Env {
    pub dir: tempfile::TempDir,
    pub project: PathBuf,
    pub session_dir: PathBuf,
    pub rt: Arc<ToolRuntime>,
    pub sink: Arc<MemorySink>,
    pub tasks: Arc<TaskManager>,
    pub ctx: ToolUseContext,
}

pub fn env() -> Env {
    env_with(|_| {}, None)
}

/// An environment whose config `tweak` may change; `sink` replaces the
/// memory sink as the runtime's event sink (events still reach the memory
/// sink only if `sink` forwards them).
pub fn env_with(tweak: impl FnOnce(&mut BashConfig), sink: Option<Arc<dyn EventSink>>) -> Env {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir(&project).unwrap();
    let project = project.canonicalize().unwrap();
    let session_dir = dir.path().join("session");
    let memory = Arc::new(MemorySink::new());
    let events: Arc<dyn EventSink> = sink.unwrap_or_else(|| memory.clone());
    let tasks = TaskManager::with_grace(
        session_dir.join("tasks"),
        Emitter::new("s", events.clone()),
        GRACE,
    );
    let mut config = BashConfig::new(session_dir.join("bash"));
    config.grace = GRACE;
    tweak(&mut config);
    let tools = shell_tools(Arc::clone(&tasks), config);
    let rt = ToolRuntime::builder(
        Arc::new(ToolPool::new(tools)),
        Arc::new(TestResolver::allow_all()),
        &session_dir,
    )
    .session_id("s")
    .event_sink(events)
    .build();
    let ctx = ToolUseContext {
        session_id: "s".into(),
        cwd: project.clone(),
        ..ToolUseContext::default()
    };
    Env {
        dir,
        project,
        session_dir,
        rt,
        sink: memory,
        tasks,
        ctx,
    }
}

impl Env {
    pub async fn run(&mut self, id: &str, tool: &str, input: Value) -> ToolCallResult {
        let interrupt = CancellationToken::new();
        self.rt
            .run_one(
                ToolUseBlock::new(id, tool, input),
                &mut self.ctx,
                &interrupt,
            )
            .await
    }

    pub async fn bash(&mut self, id: &str, command: &str) -> ToolCallResult {
        self.run(id, "Bash", serde_json::json!({ "command": command }))
            .await
    }

    pub fn events(&self) -> Vec<Event> {
        self.sink.events()
    }

    /// The `tool_progress` payloads of one call, as the JSON they are on the
    /// wire (the tests check the keys front ends and CLI readers rely on).
    pub fn progress(&self, id: &str) -> Vec<Value> {
        progress_of(&self.events(), id)
    }

    /// The live output the UI got for one call, concatenated.
    pub fn live_text(&self, id: &str) -> String {
        self.progress(id)
            .iter()
            .filter(|p| p["kind"] == "output")
            .map(|p| p["text"].as_str().unwrap().to_owned())
            .collect()
    }
}

pub fn progress_of(events: &[Event], id: &str) -> Vec<Value> {
    events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::ToolProgress { tool_use_id, data } if tool_use_id == id => {
                Some(serde_json::to_value(data).unwrap())
            }
            _ => None,
        })
        .collect()
}

/// Pids printed by a command as `pid <n>` lines.
pub fn printed_pids(text: &str) -> Vec<i32> {
    text.lines()
        .filter_map(|l| l.trim().trim_start_matches("Error: ").strip_prefix("pid "))
        .map(|n| n.trim().parse().unwrap())
        .collect()
}

/// Waits (generously) until none of `pids` is alive; returns the living.
pub async fn survivors(pids: &[i32]) -> Vec<i32> {
    for _ in 0..300 {
        if pids.iter().all(|p| !process_alive(*p)) {
            return Vec::new();
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    pids.iter().copied().filter(|p| process_alive(*p)).collect()
}

/// A command whose shell and three children ignore SIGTERM; prints the
/// children's pids, then `ready`, then waits forever.
pub const STUBBORN: &str = "trap '' TERM; for i in 1 2 3; do (trap '' TERM; while :; do sleep 1; done) & echo \"pid $!\"; done; echo \"pid $$\"; echo ready; while :; do sleep 1; done";
