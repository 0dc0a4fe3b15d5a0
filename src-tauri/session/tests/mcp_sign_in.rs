//! What the app's `mcp_sign_in` / `mcp_sign_out` do, without Tauri: an
//! open session's OAuth MCP server waits in needs_auth; the sign-in (the
//! real flow against gatehouse-mcp's Python-SDK OAuth server, tokens in the
//! OS keychain) reconnects it; sign-out deletes the tokens.
//!
//! Needs `GATEHOUSE_MCP_TEST_SERVERS` and a D-Bus session with a Secret
//! Service (`cargo xtask test` runs the tests under `dbus-run-session` with
//! gnome-keyring); otherwise a counted skip (a failure under
//! `GATEHOUSE_REQUIRE_ALL=1`, which `cargo xtask test` sets).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use gatehouse_agent::provider::replay::{ReplayProvider, Script};
use gatehouse_core::events::{EventSink, MemorySink};
use gatehouse_protocol::event::Event;
use gatehouse_protocol::event::{EventBody, McpServerStatus};
use gatehouse_session::host::AskPolicy;
use gatehouse_session::mcp_auth;
use gatehouse_session::{HostConfig, SessionHost, StartSpec};
use serde_json::json;

/// A GET with a raw HTTP/1.1 request; the `Location` header of the answer.
fn get_location(url: &str) -> Option<String> {
    let rest = url.strip_prefix("http://").unwrap();
    let (authority, path) = rest.split_at(rest.find('/').unwrap());
    let mut stream = std::net::TcpStream::connect(authority).unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    let _ = stream.read_to_string(&mut response);
    response
        .lines()
        .find(|l| l.to_ascii_lowercase().starts_with("location:"))
        .map(|l| l[9..].trim().to_owned())
}

/// The host's events, with a signal per event so a test waits for the state
/// it needs instead of for time. CI once saw `Connecting` where the test
/// expected `NeedsAuth`: `start` returns once the server has settled, but
/// its state events reach the sink only after the writer thread stored
/// them, so under load the sink may still hold only `connecting` (see
/// `mcp_states.rs`; the state machine publishes in order).
struct WatchedSink {
    events: MemorySink,
    seen: tokio::sync::watch::Sender<usize>,
}

impl WatchedSink {
    fn new() -> Self {
        Self {
            events: MemorySink::new(),
            seen: tokio::sync::watch::channel(0).0,
        }
    }

    /// Waits until `server`'s latest state is `want` (the guard only ends a
    /// hang; it is no figure).
    async fn wait_for_state(&self, server: &str, want: McpServerStatus) {
        let mut rx = self.seen.subscribe();
        let reached = tokio::time::timeout(
            Duration::from_secs(120),
            rx.wait_for(|_| state_of(&self.events, server).last() == Some(&want)),
        )
        .await;
        assert!(
            reached.is_ok(),
            "`{server}` never reached {want:?}: {:?}",
            state_of(&self.events, server)
        );
    }
}

impl EventSink for WatchedSink {
    fn emit(&self, event: Event) {
        self.events.emit(event);
        self.seen.send_modify(|n| *n += 1);
    }
}

fn state_of(sink: &MemorySink, server: &str) -> Vec<McpServerStatus> {
    sink.events()
        .into_iter()
        .filter_map(|e| match e.body {
            EventBody::McpServerState {
                server: s, state, ..
            } if s == server => Some(state),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sign_in_reconnects_the_waiting_server_of_an_open_session_and_sign_out_forgets() {
    let Some(servers) = gatehouse_test_support::require_env(
        "GATEHOUSE_MCP_TEST_SERVERS",
        "`cargo xtask test` sets it",
    ) else {
        return;
    };
    if gatehouse_test_support::require_env(
        "DBUS_SESSION_BUS_ADDRESS",
        "run under dbus-run-session with gnome-keyring",
    )
    .is_none()
    {
        return;
    }
    let servers = PathBuf::from(servers);
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let record = tempfile::NamedTempFile::new().unwrap();
    let mut server = std::process::Command::new(servers.join("venv/bin/python"))
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../mcp/tests/servers/oauth_server.py"))
        .arg(port.to_string())
        .arg(record.path())
        .spawn()
        .unwrap();
    // Readiness, not a figure: a cold import of the SDK takes seconds.
    let listening = std::time::Instant::now() + Duration::from_secs(120);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            std::time::Instant::now() < listening,
            "the OAuth test server did not listen on port {port}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let data = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let project_dir = project.path().canonicalize().unwrap();
    std::fs::write(
        project_dir.join(".mcp.json"),
        json!({"mcpServers": {"web": {"type": "http", "url": format!("http://127.0.0.1:{port}/mcp")}}})
            .to_string(),
    )
    .unwrap();
    let sink = Arc::new(WatchedSink::new());
    let mut config = HostConfig::new(data.path().to_path_buf());
    config.home = home.path().to_path_buf();
    let host = SessionHost::new(config, sink.clone(), tokio::runtime::Handle::current()).unwrap();
    let script = Script::parse(&json!({"turns": []}).to_string()).unwrap();
    let started = host
        .start(StartSpec {
            project: project_dir.clone(),
            provider: Arc::new(ReplayProvider::new(script)),
            model: "replay".into(),
            mode: None,
            trust_project: true,
            ask: AskPolicy::Interactive,
            resume: None,
            settings_files: Vec::new(),
            mcp_startup_timeout: Some(Duration::from_secs(20)),
        })
        .await
        .unwrap();
    sink.wait_for_state("web", McpServerStatus::NeedsAuth).await;

    // The app's opener is the OS browser; here a client follows the URL.
    let opener: gatehouse_mcp::auth::Opener = Arc::new(|url: &str| {
        let url = url.to_owned();
        std::thread::spawn(move || {
            let redirect = get_location(&url).expect("the authorize endpoint redirects");
            get_location(&redirect);
        });
        Ok(())
    });
    let done = mcp_auth::sign_in(
        &project_dir,
        home.path(),
        "web",
        &opener,
        Duration::from_secs(30),
    )
    .await
    .unwrap();
    assert_eq!(done.server, "web");
    assert_eq!(host.reconnect_mcp_server(&project_dir, "web"), 1);
    sink.wait_for_state("web", McpServerStatus::Connected).await;
    // Connected servers are left alone.
    assert_eq!(host.reconnect_mcp_server(&project_dir, "web"), 0);

    let out = mcp_auth::sign_out(&project_dir, home.path(), "web")
        .await
        .unwrap();
    assert!(out.signed_out);
    assert!(
        !mcp_auth::sign_out(&project_dir, home.path(), "web")
            .await
            .unwrap()
            .signed_out
    );
    // Unknown servers are named in the error.
    let err = mcp_auth::sign_out(&project_dir, home.path(), "nope")
        .await
        .unwrap_err();
    assert!(err.contains("no MCP server named `nope`"), "{err}");

    host.close(&started.handle.session_id).await.unwrap();
    let _ = server.kill();
    let _ = server.wait();
}
