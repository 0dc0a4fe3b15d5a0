//! `tool_completed`'s `status` and `tool_queued`'s `read_only` (issue 16,
//! item 7): set where the result is produced, so front ends never read the
//! result text to learn how a call ended.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use gatehouse_core::events::MemorySink;
use gatehouse_core::hooks::Hooks;
use gatehouse_core::testing::{
    Probe, TestResolver, TestTool, call, decision, default_reason, runtime,
};
use gatehouse_core::{CallStatus, ToolUseContext};
use gatehouse_protocol::event::{EventBody, ToolCallStatus};
use gatehouse_protocol::permission::PermissionBehavior;
use serde_json::json;
use tokio_util::sync::CancellationToken;

/// The status of every `tool_completed`, by call.
fn statuses(sink: &MemorySink) -> HashMap<String, ToolCallStatus> {
    sink.events()
        .into_iter()
        .filter_map(|e| match e.body {
            EventBody::ToolCompleted {
                tool_use_id,
                status,
                is_error,
                ..
            } => {
                assert_eq!(is_error, status.is_error(), "{tool_use_id}");
                Some((tool_use_id, status))
            }
            _ => None,
        })
        .collect()
}

/// `read_only` of every `tool_queued`, by call.
fn read_only(sink: &MemorySink) -> HashMap<String, bool> {
    sink.events()
        .into_iter()
        .filter_map(|e| match e.body {
            EventBody::ToolQueued {
                tool_use_id,
                read_only,
                ..
            } => Some((tool_use_id, read_only)),
            _ => None,
        })
        .collect()
}

/// Waits until `cond` holds (the state the test needs), giving up after
/// 20 s so a broken build fails instead of hanging.
async fn wait_for(what: &str, cond: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !cond() {
        assert!(Instant::now() < deadline, "never happened: {what}");
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

#[tokio::test]
async fn each_way_a_single_call_ends_has_its_status() {
    let dir = tempfile::tempdir().unwrap();
    let (rt, sink) = runtime(
        vec![
            TestTool::safe("Read").arc(),
            TestTool::new("Edit").arc(),
            TestTool::new("Write").arc(),
        ],
        Arc::new(TestResolver::allow_all().tool(
            "Write",
            decision(PermissionBehavior::Deny, default_reason()),
        )),
        Hooks::default(),
        dir.path(),
    );
    let cases = [
        ("ok", "Read", json!({})),
        // The text of a successful result says nothing about its status.
        (
            "ok_text",
            "Edit",
            json!({"output": "Cancelled: Interrupted by the user"}),
        ),
        ("failed", "Edit", json!({"fail": "Cancelled: no"})),
        ("timeout", "Edit", json!({"time_out": "ran past 5 s"})),
        ("schema", "Edit", json!({"no_such_field": 1})),
        ("lookup", "Nope", json!({})),
        ("denied", "Write", json!({})),
    ];
    for (id, name, input) in cases {
        let r = rt
            .run_one(
                call(id, name, input),
                &mut ToolUseContext::default(),
                &CancellationToken::new(),
            )
            .await;
        assert_eq!(statuses(&sink)[id], r.status.event_status(), "{id}");
    }
    let got = statuses(&sink);
    let want = [
        ("ok", ToolCallStatus::Ok),
        ("ok_text", ToolCallStatus::Ok),
        ("failed", ToolCallStatus::Error),
        ("timeout", ToolCallStatus::TimedOut),
        ("schema", ToolCallStatus::Error),
        ("lookup", ToolCallStatus::Error),
        ("denied", ToolCallStatus::Denied),
    ];
    for (id, status) in want {
        assert_eq!(got[id], status, "{id}");
    }
    // Read-only comes from the tool, and only for a call that can run.
    let ro = read_only(&sink);
    assert!(ro["ok"]);
    assert!(!ro["failed"]);
    assert!(!ro["lookup"]);
}

#[tokio::test]
async fn a_failed_sibling_cancels_and_a_user_interrupt_interrupts() {
    let dir = tempfile::tempdir().unwrap();
    let probe = Probe::new();
    let (rt, sink) = runtime(
        vec![
            TestTool::safe("Read")
                .cancel_on_interrupt()
                .with_probe(&probe)
                .arc(),
            TestTool::safe("Bash")
                .aborting_siblings()
                .with_probe(&probe)
                .arc(),
            TestTool::new("Edit").with_probe(&probe).arc(),
        ],
        Arc::new(TestResolver::allow_all()),
        Hooks::default(),
        dir.path(),
    );

    // A Bash-like call times out: like a failure, it stops its siblings,
    // which end `cancelled` (not `interrupted`: nobody interrupted).
    let out = rt
        .run_tools(
            vec![
                call("long", "Read", json!({"sleep_ms": 30_000})),
                call(
                    "bash",
                    "Bash",
                    json!({"wait_for_peers": 2, "time_out": "too slow"}),
                ),
                call("after", "Edit", json!({})),
            ],
            ToolUseContext::default(),
            CancellationToken::new(),
        )
        .await;
    let got: Vec<CallStatus> = out.results.iter().map(|r| r.status).collect();
    assert_eq!(
        got,
        [
            CallStatus::Cancelled,
            CallStatus::TimedOut,
            CallStatus::Cancelled
        ]
    );
    let events = statuses(&sink);
    assert_eq!(events["long"], ToolCallStatus::Cancelled);
    assert_eq!(events["bash"], ToolCallStatus::TimedOut);
    assert_eq!(events["after"], ToolCallStatus::Cancelled);

    // The user interrupts: the running call and the one not started yet
    // are `interrupted`.
    let interrupt = CancellationToken::new();
    let mut exec = rt.streaming_executor(ToolUseContext::default(), interrupt.clone());
    exec.add_tool(call("running", "Read", json!({"sleep_ms": 30_000})));
    exec.add_tool(call("waiting", "Edit", json!({})));
    wait_for("the Read running", || probe.in_flight() == 1).await;
    interrupt.cancel();
    let out = exec.collect().await;
    let got: Vec<CallStatus> = out.results.iter().map(|r| r.status).collect();
    assert_eq!(got, [CallStatus::Interrupted, CallStatus::Interrupted]);
    let events = statuses(&sink);
    assert_eq!(events["running"], ToolCallStatus::Interrupted);
    assert_eq!(events["waiting"], ToolCallStatus::Interrupted);
}
