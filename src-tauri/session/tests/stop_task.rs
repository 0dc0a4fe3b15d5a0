//! `SessionHost::stop_task` (the app's `stop_task` command, the sub-agents
//! panel's Stop button): a real background process started by Bash
//! `run_in_background`, stopped through the session's task manager.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use gatehouse_agent::provider::replay::{ReplayProvider, Script};
use gatehouse_core::events::MemorySink;
use gatehouse_protocol::event::{EventBody, TaskStatus};
use gatehouse_protocol::permission::PermissionMode;
use gatehouse_session::host::AskPolicy;
use gatehouse_session::{HostConfig, SessionHost, StartSpec};
use serde_json::json;

mod common;
use common::{text, tool};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stop_task_stops_a_running_background_task_and_names_unknown_ones() {
    let data = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let dir = project.path().canonicalize().unwrap();
    let sink = Arc::new(MemorySink::new());
    let mut config = HostConfig::new(data.path().to_path_buf());
    config.home = home.path().to_path_buf();
    let host = SessionHost::new(config, sink.clone(), tokio::runtime::Handle::current()).unwrap();
    let script = Script::parse(
        &json!({"turns": [
            tool("b1", "Bash", json!({"command": "sleep 60", "run_in_background": true})),
            text("started"),
        ]})
        .to_string(),
    )
    .unwrap()
    .with_project_dir(&dir);
    let id = host
        .start(StartSpec {
            project: dir.clone(),
            provider: Arc::new(ReplayProvider::new(script)),
            model: "replay".into(),
            mode: None,
            trust_project: false,
            ask: AskPolicy::Interactive,
            resume: None,
            settings_files: Vec::new(),
            mcp_startup_timeout: None,
        })
        .await
        .unwrap()
        .handle
        .session_id;
    host.set_mode(&id, PermissionMode::BypassPermissions)
        .unwrap();
    tokio::time::timeout(
        Duration::from_secs(60),
        host.send_prompt(&id, "go").unwrap().wait(),
    )
    .await
    .unwrap()
    .unwrap();
    let task_id = sink
        .events()
        .iter()
        .find_map(|e| match &e.body {
            EventBody::TaskStarted { task_id, .. } => Some(task_id.clone()),
            _ => None,
        })
        .expect("a task_started event");

    let stopped = host.stop_task(&id, &task_id).await.unwrap();
    assert_eq!(stopped.task_id, task_id);
    assert_eq!(stopped.status, TaskStatus::Stopped, "{stopped:?}");
    // Stopping it again reports how it ended, changing nothing.
    let again = host.stop_task(&id, &task_id).await.unwrap();
    assert_eq!(again.status, TaskStatus::Stopped);

    let err = host.stop_task(&id, "nope").await.unwrap_err().to_string();
    assert!(err.contains("nope") && err.contains(&id), "{err}");
    let err = host
        .stop_task("no-such-session", &task_id)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("no open session"), "{err}");
    host.close(&id).await.unwrap();
}
