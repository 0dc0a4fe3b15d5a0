//! The permission decision never runs on an async worker (issue 16 item 5):
//! `PermissionResolver::decide` is synchronous and may block (a shell parse
//! up to its deadline), so the pipeline runs it on the blocking pool.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use gatehouse_core::hooks::Hooks;
use gatehouse_core::permission::{PermissionQuery, PermissionResolver};
use gatehouse_core::testing::{TestTool, call, decision, default_reason, runtime};
use gatehouse_core::{CallStatus, ToolUseContext};
use gatehouse_protocol::permission::{PermissionBehavior, PermissionDecision};
use serde_json::json;
use tokio_util::sync::CancellationToken;

/// A resolver whose decision blocks its thread until the test releases it
/// (standing for a slow shell parse). It gives up after a while so that a
/// pipeline deciding on the runtime's only thread ends the test with a
/// failure rather than a hang.
struct BlockingResolver {
    entered: Mutex<Option<tokio::sync::oneshot::Sender<()>>>,
    release: Mutex<std::sync::mpsc::Receiver<()>>,
    released: AtomicBool,
}

impl PermissionResolver for BlockingResolver {
    fn is_blanket_denied(&self, _tool_name: &str) -> bool {
        false
    }
    fn decide(&self, _query: &PermissionQuery<'_>) -> PermissionDecision {
        if let Some(entered) = self.entered.lock().unwrap().take() {
            let _ = entered.send(());
        }
        let released = self
            .release
            .lock()
            .unwrap()
            .recv_timeout(Duration::from_secs(10))
            .is_ok();
        self.released.store(released, Ordering::SeqCst);
        decision(PermissionBehavior::Allow, default_reason())
    }
}

// A current-thread runtime: if the decision ran on it, nothing else could.
#[tokio::test]
async fn a_blocking_decision_does_not_hold_the_async_runtime() {
    let (entered_tx, entered_rx) = tokio::sync::oneshot::channel();
    let (release_tx, release_rx) = std::sync::mpsc::channel();
    let resolver = std::sync::Arc::new(BlockingResolver {
        entered: Mutex::new(Some(entered_tx)),
        release: Mutex::new(release_rx),
        released: AtomicBool::new(false),
    });
    let dir = tempfile::tempdir().unwrap();
    let (rt, _sink) = runtime(
        vec![TestTool::new("T").arc()],
        resolver.clone(),
        Hooks::default(),
        dir.path(),
    );
    let running = tokio::spawn(async move {
        let mut ctx = ToolUseContext::default();
        rt.run_one(
            call("a", "T", json!({})),
            &mut ctx,
            &CancellationToken::new(),
        )
        .await
    });
    // While the decision blocks its thread, this task still runs and
    // releases it.
    entered_rx.await.unwrap();
    release_tx.send(()).unwrap();
    let result = running.await.unwrap();
    assert!(
        resolver.released.load(Ordering::SeqCst),
        "the decision blocked the async runtime: nothing else ran until it gave up"
    );
    assert_eq!(result.status, CallStatus::Succeeded, "{}", result.text());
}
