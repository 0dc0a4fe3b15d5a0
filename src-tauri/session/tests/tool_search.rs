//! The ToolSearch mode from settings files (issue 21 item 1): Claude Code's
//! `env.ENABLE_TOOL_SEARCH` in a settings file turns deferral on or off for
//! a session; an untrusted project's file sets nothing; a value that does
//! not parse is a warning naming the file and line. An MCP tool marked
//! `_meta["anthropic/alwaysLoad"]` by its server is never deferred. A real
//! stdio MCP server (gatehouse-mcp's fault server, 12 tools, `stats` marked
//! always-load) gives the session its tools.

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
use common::text;

fn fault_server() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../mcp/tests/servers/fault_server.py")
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// The tool block of a one-prompt session with the fault server, given the
/// user's and the project's `env`: `(tool_search, loaded, deferred)` of the
/// first `tool_block_changed`, and the start's warnings.
async fn first_tool_block(
    user_env: Option<&str>,
    project_env: Option<&str>,
    trust_project: bool,
) -> ((bool, u32, u32), Vec<String>) {
    gatehouse_test_support::require_tool("python3", "Debian package python3")
        .expect("python3 runs the test MCP server");
    let data = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    write(
        &home.path().join(".claude.json"),
        &json!({"mcpServers": {"fault": {
            "command": "python3",
            "args": [fault_server().display().to_string()]
        }}})
        .to_string(),
    );
    if let Some(value) = user_env {
        write(
            &home.path().join(".claude/settings.json"),
            &format!("{{\n  \"env\": {{\n    \"ENABLE_TOOL_SEARCH\": {value}\n  }}\n}}\n"),
        );
    }
    if let Some(value) = project_env {
        write(
            &project.path().join(".claude/settings.json"),
            &format!("{{\"env\": {{\"ENABLE_TOOL_SEARCH\": {value}}}}}"),
        );
    }
    let sink = Arc::new(MemorySink::new());
    let mut config = HostConfig::new(data.path().to_path_buf());
    config.home = home.path().to_path_buf();
    let host = SessionHost::new(config, sink.clone(), tokio::runtime::Handle::current()).unwrap();
    let dir = project.path().canonicalize().unwrap();
    let script = Script::parse(&json!({"turns": [text("hello")]}).to_string())
        .unwrap()
        .with_project_dir(&dir);
    let started = host
        .start(StartSpec {
            project: dir.clone(),
            provider: Arc::new(ReplayProvider::new(script)),
            model: "replay".into(),
            mode: None,
            trust_project,
            ask: AskPolicy::DenyAll,
            resume: None,
            settings_files: Vec::new(),
            mcp_startup_timeout: Some(Duration::from_secs(30)),
        })
        .await
        .unwrap();
    // The server's tools are in the pool before the first request.
    let deadline = Instant::now() + Duration::from_secs(30);
    while !sink.events().iter().any(|e| {
        matches!(&e.body, EventBody::McpServerState { state: McpServerStatus::Connected, tools, .. }
            if tools.iter().any(|t| t == "mcp__fault__stats"))
    }) {
        assert!(
            Instant::now() < deadline,
            "the fault server did not connect"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // The rule editor completes the session's MCP tools, deferred or not.
    let live = host.live_mcp_tool_names(&dir);
    assert!(
        live.contains(&"mcp__fault__echo".to_owned())
            && live.contains(&"mcp__fault__stats".to_owned()),
        "{live:?}"
    );
    assert!(
        host.live_mcp_tool_names(home.path()).is_empty(),
        "another project"
    );
    let id = started.handle.session_id.clone();
    host.send_prompt(&id, "hi").unwrap().wait().await.unwrap();
    assert_eq!(host.finish().await, 0);
    let block = sink
        .events()
        .into_iter()
        .find_map(|e| match e.body {
            EventBody::ToolBlockChanged {
                tool_search,
                loaded,
                deferred,
                ..
            } => Some((tool_search, loaded, deferred)),
            _ => None,
        })
        .expect("the first request reports its tool block");
    (block, started.warnings)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_user_setting_turns_deferral_on_and_always_load_tools_stay_loaded() {
    let ((on, loaded, deferred), warnings) = first_tool_block(Some("\"true\""), None, false).await;
    assert!(on, "env.ENABLE_TOOL_SEARCH=true in ~/.claude/settings.json");
    // 12 fault tools: `stats` is marked always-load, the other 11 wait for
    // ToolSearch.
    assert_eq!(deferred, 11, "loaded {loaded}");
    assert!(warnings.is_empty(), "{warnings:?}");

    // Without the setting, 12 small schemas stay under the `auto` threshold.
    let ((on, _, deferred), _) = first_tool_block(None, None, false).await;
    assert!(!on && deferred == 0, "auto: every schema is sent");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_untrusted_project_cannot_set_the_mode_and_a_trusted_one_can() {
    let ((on, ..), _) = first_tool_block(None, Some("\"true\""), false).await;
    assert!(!on, "an untrusted clone's settings set nothing");
    let ((on, ..), _) = first_tool_block(None, Some("\"true\""), true).await;
    assert!(on, "once trusted, the project's env applies");
    // The project's file beats the user's.
    let ((on, ..), _) = first_tool_block(Some("\"true\""), Some("\"false\""), true).await;
    assert!(!on, "project false beats user true");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_value_that_does_not_parse_is_a_warning_naming_the_file_and_line() {
    let ((on, ..), warnings) = first_tool_block(Some("\"sometimes\""), None, false).await;
    assert!(!on, "ignored: the auto default applies");
    let warning = warnings
        .iter()
        .find(|w| w.contains("ENABLE_TOOL_SEARCH"))
        .unwrap_or_else(|| panic!("no warning: {warnings:?}"));
    assert!(
        warning.contains(".claude/settings.json:3:27") && warning.contains("\"sometimes\""),
        "{warning}"
    );
}
