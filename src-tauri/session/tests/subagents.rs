//! Sub-agents in a hosted session: the Agent tool is in every session's
//! pool, a sub-agent runs on the session's own provider (the replay script
//! plays the parent's and the sub-agent's turns in order), and its events
//! are stored in SQLite as a session whose parent is the caller's. Real
//! parts: SQLite files in a tempdir, the built-in tools on a real project
//! folder, the permission engine, the host's event writer.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use gatehouse_agent::provider::replay::{ReplayProvider, Script};
use gatehouse_core::events::MemorySink;
use gatehouse_protocol::event::{EventBody, SessionStatus, ToolCallStatus};
use gatehouse_protocol::progress::{SubagentPhase, SubagentRef, ToolProgressData};
use gatehouse_protocol::session::PermissionAnswer;
use gatehouse_session::host::AskPolicy;
use gatehouse_session::{HostConfig, SessionHost, StartSpec};
use gatehouse_store::Store;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sub_agent_is_stored_as_a_child_session_linked_from_the_agent_call() {
    let data = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let dir = project.path().canonicalize().unwrap();
    std::fs::write(dir.join("a.txt"), "alpha\n").unwrap();
    // A malformed definition in the user's folder is reported at start.
    std::fs::create_dir_all(home.path().join(".claude/agents")).unwrap();
    std::fs::write(
        home.path().join(".claude/agents/bad.md"),
        "---\nname: bad\n---\n",
    )
    .unwrap();
    let sink = Arc::new(MemorySink::new());
    let mut config = HostConfig::new(data.path().to_path_buf());
    config.home = home.path().to_path_buf();
    let host = SessionHost::new(config, sink.clone(), tokio::runtime::Handle::current()).unwrap();
    let script = Script::parse(
        &json!({"turns": [
            // The parent.
            {"content": [{"type": "tool_use", "id": "ag1", "name": "Agent", "input": {
                "description": "read a", "prompt": "What is in a.txt?", "subagent_type": "Explore"}}]},
            // The sub-agent.
            {"content": [{"type": "tool_use", "name": "Read", "input": {"file_path": "${PROJECT_DIR}/a.txt"}}]},
            {"content": [{"type": "text", "text": "a.txt says alpha."}]},
            // The parent again.
            {"content": [{"type": "text", "text": "Done."}]}
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
            ask: AskPolicy::DenyAll,
            resume: None,
            settings_files: Vec::new(),
            mcp_startup_timeout: None,
        })
        .await
        .unwrap();
    assert!(
        started
            .warnings
            .iter()
            .any(|w| w.contains("bad.md:1") && w.contains("no `description`")),
        "{:?}",
        started.warnings
    );
    let parent = started.handle.session_id;
    let outcome = tokio::time::timeout(
        Duration::from_secs(60),
        host.send_prompt(&parent, "look").unwrap().wait(),
    )
    .await
    .unwrap()
    .unwrap();
    assert_eq!(outcome.status, SessionStatus::Completed, "{outcome:?}");
    host.close(&parent).await.unwrap();

    let store = Store::open(data.path()).unwrap();
    let children = store.child_sessions(&parent).unwrap();
    assert_eq!(children.len(), 1, "{children:?}");
    let child = &children[0];
    assert_eq!(child.id, format!("{parent}-agent-ag1"));
    assert_eq!(child.parent_session_id.as_deref(), Some(parent.as_str()));
    let (events, _) = store.session_events(&child.id).unwrap();
    assert!(events.iter().any(|e| matches!(
        &e.body,
        EventBody::ToolCompleted {
            status: ToolCallStatus::Ok,
            ..
        }
    )));
    assert!(events.iter().any(|e| matches!(
        &e.body,
        EventBody::SessionCompleted {
            status: SessionStatus::Completed,
            ..
        }
    )));
    // The parent's Agent call names the child's session.
    let (parent_events, _) = store.session_events(&parent).unwrap();
    let linked: Vec<SubagentPhase> = parent_events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::ToolProgress {
                tool_use_id,
                data:
                    ToolProgressData::Subagent {
                        agent_session_id,
                        phase,
                        ..
                    },
            } if tool_use_id == "ag1" && *agent_session_id == child.id => Some(*phase),
            _ => None,
        })
        .collect();
    assert_eq!(linked.first(), Some(&SubagentPhase::Started), "{linked:?}");
    assert_eq!(linked.last(), Some(&SubagentPhase::Completed), "{linked:?}");
    let answer = parent_events
        .iter()
        .find_map(|e| match &e.body {
            EventBody::ToolCompleted {
                tool_use_id,
                content,
                ..
            } if tool_use_id == "ag1" => Some(serde_json::to_string(content).unwrap()),
            _ => None,
        })
        .unwrap();
    assert!(answer.contains("a.txt says alpha."), "{answer}");
    drop(store);

    // Resumed, the handle carries the sub-agent's events where they were
    // written: after the Agent call names it, before the call completes.
    let resumed = host
        .start(StartSpec {
            project: dir.clone(),
            provider: Arc::new(ReplayProvider::new(
                Script::parse(r#"{"turns": []}"#).unwrap(),
            )),
            model: "replay".into(),
            mode: None,
            trust_project: false,
            ask: AskPolicy::DenyAll,
            resume: Some(parent.clone()),
            settings_files: Vec::new(),
            mcp_startup_timeout: None,
        })
        .await
        .unwrap();
    let handle = &resumed.handle.events;
    let position =
        |f: &dyn Fn(&gatehouse_protocol::event::Event) -> bool| handle.iter().position(f).unwrap();
    let named = position(
        &|e| matches!(&e.body, EventBody::ToolProgress { tool_use_id, data: ToolProgressData::Subagent { .. } } if tool_use_id == "ag1"),
    );
    let child_first = position(&|e| e.session_id == child.id);
    let child_answer = position(&|e| {
        e.session_id == child.id && matches!(e.body, EventBody::AssistantMessage { turn: 2, .. })
    });
    let done = position(
        &|e| matches!(&e.body, EventBody::ToolCompleted { tool_use_id, .. } if tool_use_id == "ag1"),
    );
    assert!(
        named < child_first && child_first < child_answer && child_answer < done,
        "{named} {child_first} {child_answer} {done}"
    );
    assert_eq!(resumed.handle.earlier_events, 0);
    host.close(&parent).await.unwrap();
}

/// A sub-agent's call that asks reaches the session's permission prompt
/// (the modal's `permission_requested`, on the parent session) and the
/// user's answer there lets it run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ask_from_a_sub_agent_is_answered_in_the_sessions_prompt() {
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
            {"content": [{"type": "tool_use", "id": "ag1", "name": "Agent", "input": {
                "description": "write notes", "prompt": "Write notes.txt"}}]},
            {"content": [{"type": "tool_use", "id": "w1", "name": "Write", "input": {
                "file_path": "${PROJECT_DIR}/notes.txt", "content": "from the sub-agent\n"}}]},
            {"content": [{"type": "text", "text": "Wrote notes.txt."}]},
            {"content": [{"type": "text", "text": "Done."}]}
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
            ask: AskPolicy::Interactive,
            resume: None,
            settings_files: Vec::new(),
            mcp_startup_timeout: None,
        })
        .await
        .unwrap();
    let parent = started.handle.session_id;
    let ticket = host.send_prompt(&parent, "take notes").unwrap();
    // Wait for the prompt (a state, not a time: the deadline only turns a
    // hang into a failure).
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    loop {
        let asked = sink.events().iter().any(|e| {
            e.session_id == parent
                && matches!(&e.body, EventBody::PermissionRequested { tool_use_id, tool_name, .. }
                    if tool_use_id == "w1" && tool_name == "Write")
        });
        if asked {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "no ask for w1");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // The prompt names the sub-agent whose call it is.
    let agent = sink
        .events()
        .iter()
        .find_map(|e| match &e.body {
            EventBody::PermissionRequested {
                tool_use_id, agent, ..
            } if tool_use_id == "w1" => Some(agent.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(
        agent,
        Some(SubagentRef {
            agent_session_id: format!("{parent}-agent-ag1"),
            tool_use_id: "ag1".into(),
            subagent_type: "general-purpose".into(),
            description: "write notes".into(),
        })
    );
    host.answer_permission(&parent, "w1", PermissionAnswer::AllowOnce)
        .unwrap();
    let outcome = tokio::time::timeout(Duration::from_secs(60), ticket.wait())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(outcome.status, SessionStatus::Completed, "{outcome:?}");
    assert_eq!(
        std::fs::read_to_string(dir.join("notes.txt")).unwrap(),
        "from the sub-agent\n"
    );
    host.close(&parent).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stop_task_stops_a_background_agent_of_an_open_session() {
    let data = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let dir = project.path().canonicalize().unwrap();
    let sink = Arc::new(MemorySink::new());
    let mut config = HostConfig::new(data.path().to_path_buf());
    config.home = home.path().to_path_buf();
    let host = SessionHost::new(config, sink.clone(), tokio::runtime::Handle::current()).unwrap();
    // After the Agent call, the parent and the background agent each take
    // one of the two slow replies (in either order): only a stop ends them.
    let slow = json!({"delay_ms": 600_000, "content": [{"type": "text", "text": "late"}]});
    let script = Script::parse(
        &json!({"turns": [
            {"content": [{"type": "tool_use", "id": "bg", "name": "Agent", "input": {
                "description": "wait", "prompt": "wait", "run_in_background": true}}]},
            slow,
            slow
        ]})
        .to_string(),
    )
    .unwrap();
    let started = host
        .start(StartSpec {
            project: dir.clone(),
            provider: Arc::new(ReplayProvider::new(script)),
            model: "replay".into(),
            mode: None,
            trust_project: false,
            ask: AskPolicy::DenyAll,
            resume: None,
            settings_files: Vec::new(),
            mcp_startup_timeout: None,
        })
        .await
        .unwrap();
    let parent = started.handle.session_id;
    let ticket = host.send_prompt(&parent, "start it").unwrap();
    tokio::time::timeout(Duration::from_secs(60), async {
        while !host
            .tasks(&parent)
            .unwrap()
            .iter()
            .any(|t| t.task_id == "agent_1")
        {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .unwrap();
    let task = tokio::time::timeout(Duration::from_secs(60), host.stop_task(&parent, "agent_1"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(task.kind, gatehouse_protocol::event::TaskKind::Agent);
    assert_eq!(task.status, gatehouse_protocol::event::TaskStatus::Stopped);
    assert!(
        task.message
            .as_deref()
            .is_some_and(|m| m.contains("stopped because the user stopped it")),
        "{task:?}"
    );
    let err = host
        .stop_task(&parent, "agent_9")
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("no background task has the id \"agent_9\" (known tasks: agent_1)"),
        "{err}"
    );
    host.interrupt(&parent).unwrap();
    let _ = tokio::time::timeout(Duration::from_secs(60), ticket.wait())
        .await
        .unwrap();
    host.close(&parent).await.unwrap();
    let stored = Store::open(data.path()).unwrap();
    let (events, _) = stored.session_events(&parent).unwrap();
    assert!(events.iter().any(|e| matches!(
        &e.body,
        EventBody::TaskCompleted { task_id, kind: gatehouse_protocol::event::TaskKind::Agent, status: gatehouse_protocol::event::TaskStatus::Stopped, .. } if task_id == "agent_1"
    )));
}
