//! Why `mcp_sign_in.rs` once saw `Connecting` where it expected `NeedsAuth`
//! (issue 16 item 11): not a state published out of order. `start` returns
//! once every server has left `connecting` (`McpManager::settled`), but
//! the `mcp_server_state` events reach an `EventSink` only after the
//! session's writer thread stored them, so a sink read at once may still
//! hold only the earlier `connecting`. Here the sink holds every event back
//! until released: when `start` returns the server is already in
//! `needs_auth` (a reconnect, which only a server in `needs_auth` or
//! `failed` accepts, is taken) while the sink has seen nothing, and once
//! released it sees the states in the order the server went through them.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use gatehouse_agent::provider::replay::{ReplayProvider, Script};
use gatehouse_core::events::{EventSink, MemorySink};
use gatehouse_protocol::event::{Event, EventBody, McpServerStatus};
use gatehouse_session::host::AskPolicy;
use gatehouse_session::{HostConfig, SessionHost, StartSpec};
use serde_json::json;

/// Holds every event back until [`Gated::release`]; then records them and
/// signals each one.
struct Gated {
    open: Mutex<bool>,
    opened: Condvar,
    events: MemorySink,
    seen: tokio::sync::watch::Sender<usize>,
}

impl Gated {
    fn release(&self) {
        *self.open.lock().unwrap() = true;
        self.opened.notify_all();
    }

    fn states(&self, server: &str) -> Vec<McpServerStatus> {
        self.events
            .events()
            .into_iter()
            .filter_map(|e| match e.body {
                EventBody::McpServerState {
                    server: s, state, ..
                } if s == server => Some(state),
                _ => None,
            })
            .collect()
    }
}

impl EventSink for Gated {
    fn emit(&self, event: Event) {
        let mut open = self.open.lock().unwrap();
        while !*open {
            open = self.opened.wait(open).unwrap();
        }
        drop(open);
        self.events.emit(event);
        self.seen.send_modify(|n| *n += 1);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn start_returns_with_servers_settled_before_their_state_events_arrive() {
    let data = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let dir = project.path().canonicalize().unwrap();
    // A server whose secret env value is not in the keychain: `needs_auth`
    // before any process starts (no network, nothing to install).
    std::fs::create_dir_all(home.path().join(".gatehouse")).unwrap();
    std::fs::write(
        home.path().join(".gatehouse/mcp.json"),
        json!({"mcpServers": {"locked": {
            "command": "sh",
            "args": ["-c", "exit 1"],
            "secretEnv": ["GATEHOUSE_TEST_TOKEN"]
        }}})
        .to_string(),
    )
    .unwrap();
    let sink = Arc::new(Gated {
        open: Mutex::new(false),
        opened: Condvar::new(),
        events: MemorySink::new(),
        seen: tokio::sync::watch::channel(0).0,
    });
    let mut config = HostConfig::new(data.path().to_path_buf());
    config.home = home.path().to_path_buf();
    let host = SessionHost::new(config, sink.clone(), tokio::runtime::Handle::current()).unwrap();
    let started = host
        .start(StartSpec {
            project: dir.clone(),
            provider: Arc::new(ReplayProvider::new(
                Script::parse(&json!({"turns": []}).to_string()).unwrap(),
            )),
            model: "replay".into(),
            mode: None,
            trust_project: false,
            ask: AskPolicy::AllowAll,
            resume: None,
            settings_files: Vec::new(),
            mcp_startup_timeout: Some(Duration::from_secs(600)),
        })
        .await
        .unwrap();

    // The server has settled: it takes a reconnect, which a server still
    // connecting refuses; the sink has seen no event yet.
    assert!(sink.events.events().is_empty());
    assert_eq!(host.reconnect_mcp_server(Path::new(&dir), "locked"), 1);
    assert!(sink.states("locked").is_empty());

    sink.release();
    let mut rx = sink.seen.subscribe();
    let want = [
        McpServerStatus::Connecting,
        McpServerStatus::NeedsAuth,
        McpServerStatus::Connecting,
        McpServerStatus::NeedsAuth,
    ];
    // The guard only ends a hang; it is no figure.
    let reached = tokio::time::timeout(
        Duration::from_secs(120),
        rx.wait_for(|_| sink.states("locked").len() >= want.len()),
    )
    .await;
    assert!(reached.is_ok(), "{:?}", sink.states("locked"));
    assert_eq!(
        sink.states("locked"),
        want,
        "start, needs_auth, the reconnect"
    );
    host.close(&started.handle.session_id).await.unwrap();
}
