//! `SessionHost::stop_task` (the app's `stop_task` command, the tasks and
//! sub-agents panels' Stop button): a real background process started by
//! Bash `run_in_background`, stopped through the session's task manager;
//! `task_output_file` (the tasks panel's "Open output") names only a task's
//! own file; `set_mode` refuses bypassPermissions when policy disables it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use gatehouse_agent::provider::replay::{ReplayProvider, Script};
use gatehouse_core::events::MemorySink;
use gatehouse_protocol::event::{EventBody, TaskStatus};
use gatehouse_protocol::permission::PermissionMode;
use gatehouse_protocol::session::SessionHandle;
use gatehouse_session::host::AskPolicy;
use gatehouse_session::{HostConfig, SessionHost, StartSpec};
use serde_json::json;

mod common;
use common::{text, tool};

/// A host on fresh folders (`home` prepared by `prepare_home`) with one
/// interactive replay session of `turns` open: the host, the event sink,
/// the session's handle and the folders (kept alive).
struct Opened {
    host: SessionHost,
    sink: Arc<MemorySink>,
    handle: SessionHandle,
    _dirs: [tempfile::TempDir; 3],
}

async fn open(turns: serde_json::Value, prepare_home: impl FnOnce(&Path)) -> Opened {
    let data = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    prepare_home(home.path());
    let dir = project.path().canonicalize().unwrap();
    let sink = Arc::new(MemorySink::new());
    let mut config = HostConfig::new(data.path().to_path_buf());
    config.home = home.path().to_path_buf();
    let host = SessionHost::new(config, sink.clone(), tokio::runtime::Handle::current()).unwrap();
    let script = Script::parse(&json!({ "turns": turns }).to_string())
        .unwrap()
        .with_project_dir(&dir);
    let handle = host
        .start(StartSpec {
            project: dir,
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
        .handle;
    Opened {
        host,
        sink,
        handle,
        _dirs: [data, home, project],
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stop_task_stops_a_running_background_task_and_names_unknown_ones() {
    let Opened {
        host,
        sink,
        handle,
        _dirs,
    } = open(
        json!([
            tool(
                "b1",
                "Bash",
                json!({"command": "sleep 60", "run_in_background": true})
            ),
            text("started"),
        ]),
        |_| {},
    )
    .await;
    let id = handle.session_id;
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

    // Its whole output file is the one to open; nothing else can be asked for.
    let file = host.task_output_file(&id, &task_id).unwrap();
    assert!(file.ends_with(format!("tasks/{task_id}.log")), "{file:?}");
    assert!(file.is_file());
    for bad in ["../../etc/passwd", "bash_1/../x", "bash_", ""] {
        let err = host.task_output_file(&id, bad).unwrap_err().to_string();
        assert!(err.contains("is not a background task id"), "{bad}: {err}");
    }
    let err = host
        .task_output_file(&id, "bash_99")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("bash_99") && err.contains("no output file"),
        "{err}"
    );

    let err = host.stop_task(&id, "nope").await.unwrap_err().to_string();
    assert!(err.contains("nope") && err.contains(&id), "{err}");
    let err = host
        .stop_task("no-such-session", &task_id)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("no open session"), "{err}");
    host.close(&id).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bypass_permissions_is_refused_when_policy_disables_it_and_the_handle_says_so() {
    let Opened {
        host,
        sink,
        handle,
        _dirs,
    } = open(json!([text("hi")]), |home| {
        std::fs::create_dir_all(home.join(".claude")).unwrap();
        std::fs::write(
            home.join(".claude/settings.json"),
            r#"{"permissions": {"disableBypassPermissionsMode": "disable"}}"#,
        )
        .unwrap();
    })
    .await;
    assert!(handle.bypass_disabled);
    let id = handle.session_id;
    let err = host
        .set_mode(&id, PermissionMode::BypassPermissions)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("disableBypassPermissionsMode") && err.contains("stays default"),
        "{err}"
    );
    assert_eq!(host.mode(&id).unwrap(), PermissionMode::Default);
    assert!(
        !sink
            .events()
            .iter()
            .any(|e| matches!(e.body, EventBody::ModeChanged { .. })),
        "no mode_changed for a refused mode"
    );
    // The other modes are still reachable.
    host.set_mode(&id, PermissionMode::DontAsk).unwrap();
    assert_eq!(host.mode(&id).unwrap(), PermissionMode::DontAsk);
    host.close(&id).await.unwrap();
}
