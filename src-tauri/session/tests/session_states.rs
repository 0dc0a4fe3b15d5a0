//! Issue 17, "states are true": closing records the end, a session that
//! never got a prompt is not kept, and a host closes at start-up what a
//! stopped process left open. Real SQLite files, the replay provider, and
//! a real child process for "another live process holds it".

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use gatehouse_agent::provider::replay::{ReplayProvider, Script};
use gatehouse_core::events::MemorySink;
use gatehouse_protocol::event::{EventBody, SessionEndReason};
use gatehouse_session::abandoned::{Swept, end_abandoned_sessions, process_alive};
use gatehouse_session::host::AskPolicy;
use gatehouse_session::{HostConfig, SessionHost, StartSpec};
use gatehouse_store::Store;
use serde_json::json;

mod common;
use common::text;

fn host(data: &Path, home: &Path) -> (SessionHost, Arc<MemorySink>) {
    let sink = Arc::new(MemorySink::new());
    let mut config = HostConfig::new(data.to_path_buf());
    config.home = home.to_path_buf();
    let host = SessionHost::new(config, sink.clone(), tokio::runtime::Handle::current()).unwrap();
    (host, sink)
}

fn spec(project: &Path, resume: Option<String>) -> StartSpec {
    let script = Script::parse(&json!({ "turns": [text("done")] }).to_string()).unwrap();
    StartSpec {
        project: project.to_path_buf(),
        provider: Arc::new(ReplayProvider::new(script)),
        model: "replay".into(),
        mode: None,
        trust_project: false,
        ask: AskPolicy::Interactive,
        resume,
        settings_files: Vec::new(),
        mcp_startup_timeout: None,
    }
}

fn end_reasons(store: &Store, id: &str) -> Vec<SessionEndReason> {
    store
        .session_events(id)
        .unwrap()
        .0
        .into_iter()
        .filter_map(|e| match e.body {
            EventBody::SessionEnded { reason } => Some(reason),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closing_records_the_end_and_drops_a_session_that_never_got_a_prompt() {
    let (data, home, project) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    let (host, _sink) = host(data.path(), home.path());
    let talked = host
        .start(spec(project.path(), None))
        .await
        .unwrap()
        .handle
        .session_id;
    let ticket = host.send_prompt(&talked, "hello").unwrap();
    tokio::time::timeout(Duration::from_secs(30), ticket.wait())
        .await
        .unwrap()
        .unwrap();
    let empty = host
        .start(spec(project.path(), None))
        .await
        .unwrap()
        .handle
        .session_id;
    host.close(&talked).await.unwrap();
    host.close(&empty).await.unwrap();

    let store = Store::open(data.path()).unwrap();
    let summary = store.session(&talked).unwrap().unwrap();
    assert_eq!(summary.status, "completed");
    assert_eq!(summary.end_reason, Some(SessionEndReason::Closed));
    assert_eq!(end_reasons(&store, &talked), [SessionEndReason::Closed]);
    assert_eq!(
        store.session(&empty).unwrap(),
        None,
        "a session without a prompt is not kept"
    );
    let listed: Vec<_> = store
        .list_sessions(None)
        .unwrap()
        .into_iter()
        .map(|s| s.id)
        .collect();
    assert_eq!(listed, [talked]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_host_closes_what_a_stopped_process_left_open() {
    let (data, home, project) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    let (talked, empty) = {
        // The first "app": a session with a prompt and an empty one, and
        // the process stops without closing either (the host is dropped).
        let (first, sink) = host(data.path(), home.path());
        let talked = first
            .start(spec(project.path(), None))
            .await
            .unwrap()
            .handle
            .session_id;
        let ticket = first.send_prompt(&talked, "hello").unwrap();
        tokio::time::timeout(Duration::from_secs(30), ticket.wait())
            .await
            .unwrap()
            .unwrap();
        let empty = first
            .start(spec(project.path(), None))
            .await
            .unwrap()
            .handle
            .session_id;
        // Wait until the writer has stored every event (it forwards after
        // storing): the exchange's session_completed.
        while !sink
            .events()
            .iter()
            .any(|e| matches!(e.body, EventBody::SessionCompleted { .. }))
        {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        std::mem::forget(first);
        (talked, empty)
    };
    let (second, _sink) = host(data.path(), home.path());
    {
        let store = second.store();
        let summary = store.session(&talked).unwrap().unwrap();
        assert_eq!(summary.end_reason, Some(SessionEndReason::AppClosed));
        assert_eq!(end_reasons(&store, &talked), [SessionEndReason::AppClosed]);
        assert_eq!(store.session(&empty).unwrap(), None);
    }
    // Resuming reopens it; closing records a normal close.
    let resumed = second
        .start(spec(project.path(), Some(talked.clone())))
        .await
        .unwrap();
    assert_eq!(
        second.store().session(&talked).unwrap().unwrap().end_reason,
        None
    );
    second.close(&resumed.handle.session_id).await.unwrap();
    assert_eq!(
        end_reasons(&second.store(), &talked),
        [SessionEndReason::AppClosed, SessionEndReason::Closed]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_another_live_process_holds_is_left_open() {
    let data = tempfile::tempdir().unwrap();
    let mut store = Store::open(data.path()).unwrap();
    store
        .create_session(&gatehouse_store::NewSession {
            id: "held".into(),
            project_path: "/p".into(),
            provider: "replay".into(),
            model: "m".into(),
            mode: "default".into(),
        })
        .unwrap();
    store
        .append_event(&gatehouse_protocol::event::Event {
            session_id: "held".into(),
            ts_ms: 1,
            body: EventBody::UserPrompt { text: "hi".into() },
        })
        .unwrap();
    // A real other process holds it.
    let mut other = std::process::Command::new("sleep")
        .arg("30")
        .spawn()
        .unwrap();
    store.claim_session("held", other.id()).unwrap();
    assert!(process_alive(other.id()));
    assert_eq!(
        end_abandoned_sessions(&mut store, process_alive),
        Swept::default()
    );
    assert_eq!(store.session("held").unwrap().unwrap().end_reason, None);

    other.kill().unwrap();
    other.wait().unwrap();
    assert!(!process_alive(other.id()));
    let swept = end_abandoned_sessions(&mut store, process_alive);
    assert_eq!(swept.ended, ["held"]);
    assert_eq!(
        store.session("held").unwrap().unwrap().end_reason,
        Some(SessionEndReason::AppClosed)
    );
}
