//! The MCP panel's runtime against real files, a real SQLite store and a
//! real stdio MCP server (gatehouse-mcp's standard-library Python fault
//! server). The keychain is an in-memory store (the OS keychain is covered
//! by gatehouse-cli's `mcp secret` tests).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use gatehouse_mcp::config::ConfigLayout;
use gatehouse_mcp::secrets::MemorySecrets;
use gatehouse_protocol::event::McpServerStatus;
use gatehouse_protocol::mcp::{
    McpApproval, McpScope, McpServerDraft, McpTransportDraft, McpValueDraft,
};
use gatehouse_session::mcp_panel;
use gatehouse_store::Store;

fn fault_server() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../mcp/tests/servers/fault_server.py")
        .canonicalize()
        .unwrap()
        .display()
        .to_string()
}

struct Fixture {
    data: tempfile::TempDir,
    home: tempfile::TempDir,
    project: tempfile::TempDir,
    store: Store,
}

impl Fixture {
    fn new() -> Self {
        let data = tempfile::tempdir().unwrap();
        let store = Store::open(data.path()).unwrap();
        Self {
            data,
            home: tempfile::tempdir().unwrap(),
            project: tempfile::tempdir().unwrap(),
            store,
        }
    }
    fn layout(&self) -> ConfigLayout {
        mcp_panel::layout(self.project.path(), self.home.path()).unwrap()
    }
}

fn draft(name: &str, command: &str, env: Vec<McpValueDraft>) -> McpServerDraft {
    McpServerDraft {
        name: name.into(),
        transport: McpTransportDraft::Stdio {
            command: command.into(),
            args: vec![fault_server()],
            env,
        },
        disabled: false,
        trusted: false,
    }
}

const SECRET: &str = "sk-panel-0a9f-do-not-leak";

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[tokio::test]
async fn add_probe_break_and_remove_a_gatehouse_server() {
    let f = Fixture::new();
    let layout = f.layout();
    let secrets = Arc::new(Mutex::new(MemorySecrets::default()));
    let added = draft(
        "fault",
        "python3",
        vec![McpValueDraft {
            name: "API_TOKEN".into(),
            value: SECRET.into(),
            secret: true,
            stored: false,
        }],
    );
    let panel = mcp_panel::save_server(
        &layout,
        McpScope::Gatehouse,
        None,
        &added,
        &f.store,
        secrets.as_ref(),
    )
    .unwrap();
    assert_eq!(panel.servers.len(), 1);
    let entry = &panel.servers[0];
    assert_eq!(entry.scope, McpScope::Gatehouse);
    assert_eq!(entry.approval, McpApproval::NotNeeded);
    assert_eq!(entry.summary, format!("python3 {}", fault_server()));
    assert!(
        entry.file.ends_with(".gatehouse/mcp.json"),
        "{}",
        entry.file
    );

    let probes = mcp_panel::probe(
        &layout,
        &mcp_panel::approved(&layout, &f.store),
        secrets.clone(),
        Duration::from_secs(20),
    )
    .await;
    assert_eq!(probes.len(), 1);
    let p = &probes[0];
    assert_eq!(p.state, McpServerStatus::Connected, "{:?}", p.message);
    let echo = p
        .tools
        .iter()
        .find(|t| t.qualified_name == "mcp__fault__echo")
        .unwrap();
    // No annotations: MCP's defaults (destructive, open world).
    assert!(!echo.read_only && echo.destructive && echo.open_world);
    assert_eq!(echo.description, "fault tool echo");
    assert!(
        p.stderr.iter().any(|l| l == "fault server starting"),
        "{:?}",
        p.stderr
    );

    // Break its command: failed, with the reason.
    let mut broken = panel.servers[0].draft.clone().unwrap();
    let McpTransportDraft::Stdio { command, .. } = &mut broken.transport else {
        panic!()
    };
    *command = "/nonexistent/mcp-server".into();
    mcp_panel::save_server(
        &layout,
        McpScope::Gatehouse,
        Some("fault"),
        &broken,
        &f.store,
        secrets.as_ref(),
    )
    .unwrap();
    let probes = mcp_panel::probe(
        &layout,
        &mcp_panel::approved(&layout, &f.store),
        secrets.clone(),
        Duration::from_secs(20),
    )
    .await;
    assert_eq!(probes[0].state, McpServerStatus::Failed);
    let message = probes[0].message.clone().unwrap();
    assert!(
        message.contains("cannot start `/nonexistent/mcp-server`"),
        "{message}"
    );

    // Disabled: listed, not started.
    let panel = mcp_panel::set_server_disabled(
        &layout,
        McpScope::Gatehouse,
        "fault",
        true,
        &f.store,
        secrets.as_ref(),
    )
    .unwrap();
    assert!(panel.servers[0].disabled);
    let probes = mcp_panel::probe(
        &layout,
        &mcp_panel::approved(&layout, &f.store),
        secrets.clone(),
        Duration::from_secs(5),
    )
    .await;
    assert_eq!(probes[0].state, McpServerStatus::Disabled);

    // The secret never reached a file: SQLite, the config, anything.
    let mut haystack = Vec::new();
    for dir in [f.data.path(), f.home.path(), f.project.path()] {
        for file in walk(dir) {
            haystack.extend(std::fs::read(file).unwrap());
        }
    }
    haystack.extend(serde_json::to_vec(&panel).unwrap());
    haystack.extend(serde_json::to_vec(&probes).unwrap());
    let needle = SECRET.as_bytes();
    assert!(
        !haystack.windows(needle.len()).any(|w| w == needle),
        "the secret env value leaked"
    );

    let panel = mcp_panel::remove_server(
        &layout,
        McpScope::Gatehouse,
        "fault",
        &f.store,
        secrets.as_ref(),
    )
    .unwrap();
    assert!(panel.servers.is_empty());
    assert!(secrets.lock().unwrap().0.is_empty());
}

#[tokio::test]
async fn a_project_server_waits_for_approval_and_a_change_asks_again() {
    let f = Fixture::new();
    let layout = f.layout();
    let secrets = Arc::new(Mutex::new(MemorySecrets::default()));
    let panel = mcp_panel::save_server(
        &layout,
        McpScope::Project,
        None,
        &draft("proj", "python3", vec![]),
        &f.store,
        secrets.as_ref(),
    )
    .unwrap();
    assert_eq!(panel.servers[0].approval, McpApproval::Pending);
    let probes = mcp_panel::probe(
        &layout,
        &mcp_panel::approved(&layout, &f.store),
        secrets.clone(),
        Duration::from_secs(5),
    )
    .await;
    assert_eq!(probes[0].state, McpServerStatus::AwaitingApproval);

    let panel = mcp_panel::approve_server(&layout, "proj", &f.store, secrets.as_ref()).unwrap();
    assert_eq!(panel.servers[0].approval, McpApproval::Approved);
    let probes = mcp_panel::probe(
        &layout,
        &mcp_panel::approved(&layout, &f.store),
        secrets.clone(),
        Duration::from_secs(20),
    )
    .await;
    assert_eq!(
        probes[0].state,
        McpServerStatus::Connected,
        "{:?}",
        probes[0].message
    );

    // Another command is another server: approval again.
    let panel = mcp_panel::save_server(
        &layout,
        McpScope::Project,
        Some("proj"),
        &draft("proj", "python3.99", vec![]),
        &f.store,
        secrets.as_ref(),
    )
    .unwrap();
    assert_eq!(panel.servers[0].approval, McpApproval::Pending);

    let err = mcp_panel::approve_server(&layout, "nope", &f.store, secrets.as_ref()).unwrap_err();
    assert!(err.contains("no project server named `nope`"), "{err}");
}

#[test]
fn problems_and_read_only_sources_are_listed() {
    let f = Fixture::new();
    std::fs::write(
        f.home.path().join(".claude.json"),
        r#"{"mcpServers": {"mine": {"command": "node", "args": ["s.js"]}}}"#,
    )
    .unwrap();
    std::fs::write(
        f.project.path().join(".mcp.json"),
        r#"{"mcpServers": {"web": {"url": "https://h/mcp"}}}"#,
    )
    .unwrap();
    let secrets = MemorySecrets::default();
    let panel = mcp_panel::panel(&f.layout(), &f.store, &secrets);
    assert_eq!(panel.servers.len(), 1);
    assert_eq!(panel.servers[0].scope, McpScope::User);
    assert_eq!(panel.servers[0].summary, "node s.js");
    assert!(panel.servers[0].draft.is_none());
    assert_eq!(panel.problems.len(), 1);
    assert_eq!(panel.problems[0].server.as_deref(), Some("web"));
    assert!(panel.problems[0].message.contains("no `type`"));
    let err = mcp_panel::remove_server(
        &f.layout(),
        McpScope::User,
        "mine",
        &f.store,
        &Mutex::new(secrets),
    )
    .unwrap_err();
    assert!(err.contains("belong to Claude Code"), "{err}");
}

/// The app's handlers await the probe: it connects the servers as it is
/// awaited and reads the keychain on a blocking thread, so it runs on any
/// runtime — here a current-thread one, where the blocking probe refused
/// ("cannot check MCP servers from a single-threaded runtime") — and holds
/// none of its threads meanwhile (a timer on the same thread keeps ticking).
#[tokio::test]
async fn the_keychain_probe_is_awaited_on_a_single_threaded_runtime_without_blocking_it() {
    let f = Fixture::new();
    let layout = f.layout();
    let secrets = Mutex::new(MemorySecrets::default());
    mcp_panel::save_server(
        &layout,
        McpScope::Gatehouse,
        None,
        &draft("fault", "python3", vec![]),
        &f.store,
        &secrets,
    )
    .unwrap();
    let approved = mcp_panel::approved(&layout, &f.store);
    let ticks = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
    let ticker = tokio::spawn({
        let ticks = std::sync::Arc::clone(&ticks);
        async move {
            loop {
                tokio::time::sleep(Duration::from_millis(1)).await;
                ticks.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            }
        }
    });
    let probes = mcp_panel::probe_with_keychain(&layout, &approved, Duration::from_secs(20)).await;
    ticker.abort();
    assert_eq!(
        probes[0].state,
        McpServerStatus::Connected,
        "{:?}",
        probes[0].message
    );
    assert!(
        ticks.load(std::sync::atomic::Ordering::SeqCst) > 0,
        "the runtime's only thread was held while the servers connected"
    );
}
