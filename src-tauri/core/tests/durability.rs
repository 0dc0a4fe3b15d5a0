//! SPEC §11 by construction: a call runs only once its `permission_decided`
//! is stored (the sink's flush ticket has completed), and not at all when it
//! could not be stored.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};

use gatehouse_core::events::{EventSink, NotStored, Stored, StoredSender};
use gatehouse_core::hooks::Hooks;
use gatehouse_core::registry::ToolPool;
use gatehouse_core::testing::{Probe, TestResolver, TestTool, call};
use gatehouse_core::{CallStatus, ToolRuntime, ToolUseContext};
use gatehouse_protocol::event::Event;
use serde_json::json;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

/// A storing sink whose commits the test performs by hand: durable events
/// wait until the test completes their tickets.
#[derive(Default)]
struct HandCommitSink {
    events: Mutex<Vec<Event>>,
    pending: Mutex<Vec<(String, StoredSender)>>,
    durable_emitted: Notify,
}

impl HandCommitSink {
    async fn next_pending(&self) -> (String, StoredSender) {
        loop {
            let notified = self.durable_emitted.notified();
            if let Some(p) = self.pending.lock().unwrap().pop() {
                return p;
            }
            notified.await;
        }
    }
    fn types(&self) -> Vec<String> {
        self.events
            .lock()
            .unwrap()
            .iter()
            .map(|e| {
                serde_json::to_value(&e.body).unwrap()["type"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect()
    }
}

impl EventSink for HandCommitSink {
    fn emit(&self, event: Event) {
        self.events.lock().unwrap().push(event);
    }
    fn emit_durable(&self, event: Event) -> Stored {
        let kind = serde_json::to_value(&event.body).unwrap()["type"]
            .as_str()
            .unwrap()
            .to_owned();
        self.events.lock().unwrap().push(event);
        let (sender, ticket) = Stored::pending();
        self.pending.lock().unwrap().push((kind, sender));
        self.durable_emitted.notify_one();
        ticket
    }
}

fn runtime_with(
    sink: Arc<HandCommitSink>,
    probe: &Arc<Probe>,
    dir: &std::path::Path,
) -> Arc<ToolRuntime> {
    let tool = TestTool::new("Act").with_probe(probe).arc();
    ToolRuntime::builder(
        Arc::new(ToolPool::new(vec![tool])),
        Arc::new(TestResolver::allow_all()),
        dir,
    )
    .session_id("s")
    .event_sink(sink)
    .hooks(Hooks::default())
    .build()
}

#[tokio::test]
async fn a_call_starts_only_after_its_permission_decision_is_stored() {
    let dir = tempfile::tempdir().unwrap();
    let sink = Arc::new(HandCommitSink::default());
    let probe = Probe::new();
    let rt = runtime_with(Arc::clone(&sink), &probe, dir.path());
    let run = tokio::spawn({
        let rt = Arc::clone(&rt);
        async move {
            rt.run_one(
                call("t1", "Act", json!({})),
                &mut ToolUseContext::default(),
                &CancellationToken::new(),
            )
            .await
        }
    });
    let (kind, ticket) = sink.next_pending().await;
    assert_eq!(kind, "permission_decided");
    // The pipeline is waiting on the ticket: the tool has not been entered.
    assert_eq!(
        probe.calls(),
        0,
        "the call ran before its decision was stored"
    );
    assert!(!sink.types().contains(&"tool_completed".to_owned()));
    ticket.complete(Ok(()));
    let result = run.await.unwrap();
    assert_eq!(result.status, CallStatus::Succeeded, "{result:?}");
    assert_eq!(probe.calls(), 1);
    let types = sink.types();
    let decided = types
        .iter()
        .position(|t| t == "permission_decided")
        .unwrap();
    let completed = types.iter().position(|t| t == "tool_completed").unwrap();
    assert!(decided < completed, "{types:?}");
}

#[tokio::test]
async fn a_call_whose_decision_cannot_be_stored_does_not_run() {
    let dir = tempfile::tempdir().unwrap();
    let sink = Arc::new(HandCommitSink::default());
    let probe = Probe::new();
    let rt = runtime_with(Arc::clone(&sink), &probe, dir.path());
    let run = tokio::spawn({
        let rt = Arc::clone(&rt);
        async move {
            rt.run_one(
                call("t1", "Act", json!({})),
                &mut ToolUseContext::default(),
                &CancellationToken::new(),
            )
            .await
        }
    });
    let (_, ticket) = sink.next_pending().await;
    ticket.complete(Err(NotStored("disk full".into())));
    let result = run.await.unwrap();
    assert_eq!(probe.calls(), 0, "the call ran without a stored decision");
    assert!(result.is_error);
    assert_eq!(result.status, CallStatus::Failed);
    let text = format!("{:?}", result.content);
    assert!(
        text.contains("could not be recorded") && text.contains("disk full"),
        "{text}"
    );
    // The call still ends with its tool_completed (the model gets the error).
    assert!(sink.types().contains(&"tool_completed".to_owned()));
}
