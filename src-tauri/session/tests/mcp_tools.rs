//! A session's MCP tools follow their server's `notifications/tools/list_changed`
//! (issue 8 item 2): a real stdio server (gatehouse-mcp's fault server,
//! standard-library Python) adds a tool and removes one mid-session; the
//! session's next model request offers the new tool, the pool keeps the
//! order the model has seen (new tools appended), and a call to the removed
//! tool is refused with a message that says it was removed.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use gatehouse_agent::provider::replay::{ReplayProvider, Script};
use gatehouse_core::events::MemorySink;
use gatehouse_protocol::event::{EventBody, McpServerStatus};
use gatehouse_session::host::AskPolicy;
use gatehouse_session::{HostConfig, SessionHost, StartSpec};
use serde_json::json;

mod common;
use common::{completed, text, tool};

fn fault_server() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../mcp/tests/servers/fault_server.py")
}

fn has_python() -> bool {
    gatehouse_test_support::require_tool("python3", "Debian package python3").is_some()
}

/// Waits until the fault server's latest state event lists exactly the
/// tools that `pred` accepts.
async fn wait_for_tools(sink: &MemorySink, what: &str, pred: impl Fn(&[String]) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let latest = sink.events().into_iter().rev().find_map(|e| match e.body {
            EventBody::McpServerState {
                state: McpServerStatus::Connected,
                tools,
                ..
            } => Some(tools),
            _ => None,
        });
        if latest.as_deref().is_some_and(&pred) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{what}: the server's tools are {latest:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Sends a prompt and waits for its exchange, and for its events to reach
/// the sink (they are stored first, on the writer thread).
async fn exchange(host: &SessionHost, sink: &MemorySink, id: &str, text: &str) {
    let before = completions(sink);
    let outcome = host.send_prompt(id, text).unwrap().wait().await.unwrap();
    assert_eq!(
        outcome.status,
        gatehouse_protocol::event::SessionStatus::Completed,
        "{text}"
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    while completions(sink) == before {
        assert!(Instant::now() < deadline, "{text}: no session_completed");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn completions(sink: &MemorySink) -> usize {
    sink.events()
        .iter()
        .filter(|e| matches!(e.body, EventBody::SessionCompleted { .. }))
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn list_changed_adds_and_removes_tools_mid_session() {
    if !has_python() {
        return;
    }
    let data = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    // A user-level server (no approval needed), as in `~/.claude.json`.
    std::fs::write(
        home.path().join(".claude.json"),
        json!({"mcpServers": {"fault": {
            "command": "python3",
            "args": [fault_server().display().to_string()]
        }}})
        .to_string(),
    )
    .unwrap();
    let sink = Arc::new(MemorySink::new());
    let mut config = HostConfig::new(data.path().to_path_buf());
    config.home = home.path().to_path_buf();
    let host = SessionHost::new(config, sink.clone(), tokio::runtime::Handle::current()).unwrap();
    let dir = project.path().canonicalize().unwrap();
    let script = Script::parse(
        &json!({"turns": [
            // First prompt: the server adds `extra`.
            tool("a1", "mcp__fault__add_tool", json!({})),
            text("added"),
            // Second: `extra` is offered and runs; then `echo` goes away.
            tool("e1", "mcp__fault__extra", json!({"text": "from extra"})),
            tool("r1", "mcp__fault__remove_tool", json!({"text": "echo"})),
            text("removed"),
            // Third: the removed tool is refused, saying why.
            tool("x1", "mcp__fault__echo", json!({"text": "gone?"})),
            text("done"),
        ]})
        .to_string(),
    )
    .unwrap()
    .with_project_dir(&dir);
    let started = host
        .start(StartSpec {
            project: dir.clone(),
            provider: Arc::new(ReplayProvider::new(script)),
            model: "replay".into(),
            mode: None,
            trust_project: false,
            ask: AskPolicy::AllowAll,
            resume: None,
            settings_files: Vec::new(),
            mcp_startup_timeout: Some(Duration::from_secs(30)),
        })
        .await
        .unwrap();
    let id = started.handle.session_id;
    wait_for_tools(&sink, "the server connected", |t| {
        t.contains(&"mcp__fault__echo".to_owned())
    })
    .await;

    exchange(&host, &sink, &id, "add").await;
    wait_for_tools(&sink, "extra listed", |t| {
        t.contains(&"mcp__fault__extra".to_owned())
    })
    .await;

    exchange(&host, &sink, &id, "use and remove").await;
    let events = sink.events();
    let (error, content) = completed(&events, "e1");
    assert!(!error, "the added tool runs: {content}");
    assert!(content.contains("from extra"), "{content}");
    wait_for_tools(&sink, "echo gone", |t| {
        !t.contains(&"mcp__fault__echo".to_owned())
    })
    .await;

    exchange(&host, &sink, &id, "call the removed one").await;
    assert_eq!(host.finish().await, 0);
    let events = sink.events();
    let (error, content) = completed(&events, "x1");
    assert!(error, "a removed tool is refused: {content}");
    assert!(
        content.contains("no longer available") && content.contains("removed"),
        "the refusal says the tool was removed: {content}"
    );
    assert!(
        events.iter().any(|e| matches!(
            &e.body,
            EventBody::ToolInputRejected { tool_use_id, .. } if tool_use_id == "x1"
        )),
        "refused at lookup, before anything ran"
    );
}

/// `SessionHost::start` is async: the servers connect as it is awaited, on
/// whatever runtime awaits it. The blocking start waited in place with
/// `block_in_place`, so on a single-threaded runtime it started no server
/// at all ("MCP servers were not started: … single-threaded runtime").
#[tokio::test]
async fn a_session_started_on_a_single_threaded_runtime_connects_its_mcp_servers() {
    if !has_python() {
        eprintln!(
            "SKIPPED a_session_started_on_a_single_threaded_runtime_connects_its_mcp_servers: no python3"
        );
        return;
    }
    let data = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join(".claude.json"),
        json!({"mcpServers": {"fault": {
            "command": "python3",
            "args": [fault_server().display().to_string()]
        }}})
        .to_string(),
    )
    .unwrap();
    let sink = Arc::new(MemorySink::new());
    let mut config = HostConfig::new(data.path().to_path_buf());
    config.home = home.path().to_path_buf();
    let host = SessionHost::new(config, sink.clone(), tokio::runtime::Handle::current()).unwrap();
    let dir = project.path().canonicalize().unwrap();
    let script = Script::parse(
        &json!({"turns": [
            tool("e1", "mcp__fault__echo", json!({"text": "on one thread"})),
            text("done"),
        ]})
        .to_string(),
    )
    .unwrap()
    .with_project_dir(&dir);
    let started = host
        .start(StartSpec {
            project: dir.clone(),
            provider: Arc::new(ReplayProvider::new(script)),
            model: "replay".into(),
            mode: None,
            trust_project: false,
            ask: AskPolicy::AllowAll,
            resume: None,
            settings_files: Vec::new(),
            mcp_startup_timeout: Some(Duration::from_secs(30)),
        })
        .await
        .unwrap();
    assert!(started.warnings.is_empty(), "{:?}", started.warnings);
    let id = started.handle.session_id;
    wait_for_tools(&sink, "the server connected", |t| {
        t.contains(&"mcp__fault__echo".to_owned())
    })
    .await;
    exchange(&host, &sink, &id, "echo").await;
    let (is_error, echoed) = completed(&sink.events(), "e1");
    assert!(!is_error && echoed.contains("on one thread"), "{echoed}");
    host.close(&id).await.unwrap();
    host.finish().await;
}
