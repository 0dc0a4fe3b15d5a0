//! MCP panel edits reach open sessions (issue 16 item 8): with a session
//! open, a server added in the panel starts in it and its tools are offered
//! at the next model request; disabled, it stops and its tools are gone; a
//! project server approved in the panel starts; a server that cannot start
//! reports its failure without affecting the others; a server whose
//! configuration changed restarts and the session's calls reach the new one. Real stdio MCP servers
//! (gatehouse-mcp's standard-library Python fault server), real files, a
//! real SQLite store; the panel's keychain is an in-memory store (none of
//! these servers has secrets).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use gatehouse_agent::provider::replay::{ReplayProvider, Script};
use gatehouse_core::events::MemorySink;
use gatehouse_mcp::secrets::MemorySecrets;
use gatehouse_protocol::event::{EventBody, McpServerStatus};
use gatehouse_protocol::mcp::{McpScope, McpServerDraft, McpTransportDraft};
use gatehouse_session::host::AskPolicy;
use gatehouse_session::{HostConfig, SessionHost, StartSpec, mcp_panel};
use serde_json::json;

mod common;
use common::{completed, text, tool};

fn fault_server() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../mcp/tests/servers/fault_server.py")
        .canonicalize()
        .unwrap()
}

fn draft(name: &str, command: &str) -> McpServerDraft {
    McpServerDraft {
        name: name.into(),
        transport: McpTransportDraft::Stdio {
            command: command.into(),
            args: vec![fault_server().display().to_string()],
            env: Vec::new(),
        },
        disabled: false,
        trusted: false,
    }
}

/// Waits until server `server`'s latest state event is `want`.
async fn wait_for_state(sink: &MemorySink, server: &str, want: McpServerStatus) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let latest = sink.events().into_iter().rev().find_map(|e| match e.body {
            EventBody::McpServerState {
                server: s, state, ..
            } if s == server => Some(state),
            _ => None,
        });
        if latest == Some(want) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{server}: state {latest:?}, waiting for {want:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The `mcp_servers_changed` events so far: (started, stopped, restarted).
fn changes(sink: &MemorySink) -> Vec<(Vec<String>, Vec<String>, Vec<String>)> {
    sink.events()
        .into_iter()
        .filter_map(|e| match e.body {
            EventBody::McpServersChanged {
                started,
                stopped,
                restarted,
            } => Some((started, stopped, restarted)),
            _ => None,
        })
        .collect()
}

/// The `n`th `mcp_servers_changed` (from 0), once it reached the sink
/// (events are stored first, on the writer thread).
async fn nth_change(sink: &MemorySink, n: usize) -> (Vec<String>, Vec<String>, Vec<String>) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(change) = changes(sink).into_iter().nth(n) {
            return change;
        }
        assert!(Instant::now() < deadline, "no mcp_servers_changed #{n}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Sends a prompt and waits for its exchange and its events.
async fn exchange(host: &SessionHost, sink: &MemorySink, id: &str, text: &str) {
    let count = |sink: &MemorySink| {
        sink.events()
            .iter()
            .filter(|e| matches!(e.body, EventBody::SessionCompleted { .. }))
            .count()
    };
    let before = count(sink);
    let outcome = host.send_prompt(id, text).unwrap().wait().await.unwrap();
    assert_eq!(
        outcome.status,
        gatehouse_protocol::event::SessionStatus::Completed,
        "{text}"
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    while count(sink) == before {
        assert!(Instant::now() < deadline, "{text}: no session_completed");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn strings(names: &[&str]) -> Vec<String> {
    names.iter().map(|n| (*n).to_owned()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn panel_edits_start_and_stop_servers_of_an_open_session() {
    if gatehouse_test_support::require_tool("python3", "Debian package python3").is_none() {
        return;
    }
    let data = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let dir = project.path().canonicalize().unwrap();
    // A project server, awaiting approval when the session opens.
    std::fs::write(
        dir.join(".mcp.json"),
        json!({"mcpServers": {"proj": {
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
    let script = Script::parse(
        &json!({"turns": [
            // 1: the server added in the panel is offered.
            tool("a1", "mcp__fault__echo", json!({"text": "added in the panel"})),
            text("one"),
            // 2: disabled in the panel, it is gone.
            tool("d1", "mcp__fault__echo", json!({"text": "still there?"})),
            text("two"),
            // 3: the project server approved in the panel runs.
            tool("p1", "mcp__proj__echo", json!({"text": "approved"})),
            text("three"),
            // 4: a server that cannot start does not affect the others.
            tool("b1", "mcp__proj__echo", json!({"text": "unaffected"})),
            text("four"),
            // 5: enabled again, then changed: the call reaches the new server.
            tool("r0", "mcp__fault__echo", json!({"text": "enabled"})),
            text("five"),
            tool("r1", "mcp__fault__echo", json!({"text": "restarted"})),
            text("six"),
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
    wait_for_state(&sink, "proj", McpServerStatus::AwaitingApproval).await;

    let layout = mcp_panel::layout(&dir, home.path()).unwrap();
    let secrets = MemorySecrets::default();
    let store = gatehouse_store::Store::open(data.path()).unwrap();

    // 1. Added in the panel.
    mcp_panel::save_server(
        &layout,
        McpScope::Gatehouse,
        None,
        &draft("fault", "python3"),
        &store,
        &secrets,
    )
    .unwrap();
    let applied = host.apply_mcp_config().await;
    wait_for_state(&sink, "fault", McpServerStatus::Connected).await;
    exchange(&host, &sink, &id, "use the added server").await;
    let (error, content) = completed(&sink.events(), "a1");
    assert!(!error, "the added server's tool runs: {content}");
    assert!(content.contains("added in the panel"), "{content}");
    assert_eq!(applied, 1, "the open session changed");
    assert_eq!(
        nth_change(&sink, 0).await,
        (strings(&["fault"]), vec![], vec![])
    );

    // Applying the same configuration again changes nothing.
    assert_eq!(host.apply_mcp_config().await, 0);

    // 2. Disabled in the panel.
    mcp_panel::set_server_disabled(
        &layout,
        McpScope::Gatehouse,
        "fault",
        true,
        &store,
        &secrets,
    )
    .unwrap();
    assert_eq!(host.apply_mcp_config().await, 1);
    assert_eq!(
        nth_change(&sink, 1).await,
        (vec![], strings(&["fault"]), vec![])
    );
    wait_for_state(&sink, "fault", McpServerStatus::Disabled).await;
    // The replaced connection's last state says why it stopped: the
    // session is still open (it said "stopped with the session").
    let messages = |sink: &MemorySink| -> Vec<String> {
        sink.events()
            .into_iter()
            .filter_map(|e| match e.body {
                EventBody::McpServerState {
                    server, message, ..
                } if server == "fault" => message,
                _ => None,
            })
            .collect()
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    while !messages(&sink)
        .iter()
        .any(|m| m == gatehouse_mcp::manager::STOPPED_CHANGED)
    {
        assert!(
            Instant::now() < deadline,
            "no 'configuration changed' state: {:?}",
            messages(&sink)
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        !messages(&sink)
            .iter()
            .any(|m| m.contains("with the session")),
        "{:?}",
        messages(&sink)
    );
    exchange(&host, &sink, &id, "use the disabled server").await;
    let (error, content) = completed(&sink.events(), "d1");
    assert!(error, "a disabled server's tool is gone: {content}");
    assert!(content.contains("no longer available"), "{content}");

    // 3. The project server approved in the panel.
    mcp_panel::approve_server(&layout, "proj", &store, &secrets).unwrap();
    assert_eq!(host.apply_mcp_config().await, 1);
    assert_eq!(
        nth_change(&sink, 2).await,
        (strings(&["proj"]), vec![], vec![])
    );
    wait_for_state(&sink, "proj", McpServerStatus::Connected).await;
    exchange(&host, &sink, &id, "use the approved server").await;
    let (error, content) = completed(&sink.events(), "p1");
    assert!(!error, "the approved server's tool runs: {content}");

    // 4. A server that cannot start.
    mcp_panel::save_server(
        &layout,
        McpScope::Gatehouse,
        None,
        &draft("broken", "/nonexistent/mcp-server"),
        &store,
        &secrets,
    )
    .unwrap();
    assert_eq!(host.apply_mcp_config().await, 1);
    assert_eq!(
        nth_change(&sink, 3).await,
        (strings(&["broken"]), vec![], vec![])
    );
    wait_for_state(&sink, "broken", McpServerStatus::Failed).await;
    exchange(&host, &sink, &id, "the others still run").await;
    let (error, content) = completed(&sink.events(), "b1");
    assert!(!error, "the other server is unaffected: {content}");
    assert!(content.contains("unaffected"), "{content}");

    // 5. Enabled again, then its configuration changed: it restarts, and
    // the session's tool is the new server's (not the stopped one's).
    mcp_panel::set_server_disabled(
        &layout,
        McpScope::Gatehouse,
        "fault",
        false,
        &store,
        &secrets,
    )
    .unwrap();
    assert_eq!(host.apply_mcp_config().await, 1);
    assert_eq!(
        nth_change(&sink, 4).await,
        (strings(&["fault"]), vec![], vec![])
    );
    wait_for_state(&sink, "fault", McpServerStatus::Connected).await;
    exchange(&host, &sink, &id, "use the enabled server").await;
    let (error, content) = completed(&sink.events(), "r0");
    assert!(!error, "the enabled server's tool runs: {content}");
    let mut changed = draft("fault", "python3");
    if let McpTransportDraft::Stdio { env, .. } = &mut changed.transport {
        env.push(gatehouse_protocol::mcp::McpValueDraft {
            name: "GATEHOUSE_TEST_CHANGED".into(),
            value: "1".into(),
            secret: false,
            stored: false,
        });
    }
    mcp_panel::save_server(
        &layout,
        McpScope::Gatehouse,
        Some("fault"),
        &changed,
        &store,
        &secrets,
    )
    .unwrap();
    assert_eq!(host.apply_mcp_config().await, 1);
    // The new server's `connecting` was emitted before this event.
    assert_eq!(
        nth_change(&sink, 5).await,
        (vec![], vec![], strings(&["fault"]))
    );
    wait_for_state(&sink, "fault", McpServerStatus::Connected).await;
    exchange(&host, &sink, &id, "use the restarted server").await;
    let (error, content) = completed(&sink.events(), "r1");
    assert!(!error, "the call reaches the restarted server: {content}");
    assert!(content.contains("restarted"), "{content}");

    assert_eq!(host.finish().await, 0);
    assert_eq!(
        changes(&sink).len(),
        6,
        "one event per change, none for no change"
    );
}
