//! The scheduler and the streaming executor (SPEC §4), observed through
//! counters, event order and results, never through timing alone.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use gatehouse_core::config::RuntimeConfig;
use gatehouse_core::events::MemorySink;
use gatehouse_core::hooks::Hooks;
use gatehouse_core::registry::ToolPool;
use gatehouse_core::scheduler::{Batch, partition_calls};
use gatehouse_core::testing::{Probe, TestResolver, TestTool, call, runtime};
use gatehouse_core::{CallStatus, ToolRuntime, ToolUseContext};
use gatehouse_protocol::event::{Event, EventBody};
use serde_json::json;
use tokio_util::sync::CancellationToken;

fn started(events: &[Event]) -> Vec<(String, u32, bool)> {
    events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::ToolStarted {
                tool_use_id,
                batch,
                concurrent,
            } => Some((tool_use_id.clone(), *batch, *concurrent)),
            _ => None,
        })
        .collect()
}

/// Waits (generously) until `cond` holds; fails the test otherwise.
async fn eventually(what: &str, cond: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !cond() {
        assert!(Instant::now() < deadline, "timed out waiting for: {what}");
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

fn five_tools(probe: &Arc<Probe>) -> Vec<Arc<dyn gatehouse_core::Tool>> {
    vec![
        TestTool::safe("Read").with_probe(probe).arc(),
        TestTool::safe("Glob").with_probe(probe).arc(),
        TestTool::new("Edit").with_probe(probe).arc(),
        TestTool::safe("Grep").with_probe(probe).arc(),
        TestTool::new("Write").with_probe(probe).arc(),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn read_glob_edit_grep_write_partitions_into_four_batches() {
    let dir = tempfile::tempdir().unwrap();
    let probe = Probe::new();
    let blocks: Vec<_> = ["Read", "Glob", "Edit", "Grep", "Write"]
        .iter()
        .enumerate()
        .map(|(i, n)| {
            // Read and Glob wait for each other: they can only finish if
            // they run side by side.
            let input = if i < 2 {
                json!({"wait_for_peers": 2})
            } else {
                json!({})
            };
            call(&format!("t{i}"), n, input)
        })
        .collect();

    let pool = ToolPool::new(five_tools(&probe));
    assert_eq!(
        partition_calls(&pool, &blocks),
        vec![
            Batch {
                concurrency_safe: true,
                calls: vec![0, 1]
            },
            Batch {
                concurrency_safe: false,
                calls: vec![2]
            },
            Batch {
                concurrency_safe: true,
                calls: vec![3]
            },
            Batch {
                concurrency_safe: false,
                calls: vec![4]
            },
        ]
    );

    // The executor runs exactly those batches.
    let (rt, sink) = runtime(
        five_tools(&probe),
        Arc::new(TestResolver::allow_all()),
        Hooks::default(),
        dir.path(),
    );
    let out = rt
        .run_tools(blocks, ToolUseContext::default(), CancellationToken::new())
        .await;
    assert!(
        out.results
            .iter()
            .all(|r| r.status == CallStatus::Succeeded)
    );
    let mut s = started(&sink.events());
    s.sort();
    assert_eq!(
        s,
        vec![
            ("t0".into(), 0, true),
            ("t1".into(), 0, true),
            ("t2".into(), 1, false),
            ("t3".into(), 2, true),
            ("t4".into(), 3, false),
        ]
    );
    // Read and Glob overlapped; nothing overlapped Edit or Write.
    assert_eq!(probe.max_in_flight(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn safe_calls_overlap_and_unsafe_calls_run_alone() {
    let dir = tempfile::tempdir().unwrap();
    let safe_probe = Probe::new();
    let unsafe_probe = Probe::new();
    let tools = vec![
        TestTool::safe("Read").with_probe(&safe_probe).arc(),
        TestTool::new("Edit").with_probe(&unsafe_probe).arc(),
    ];
    let (rt, _) = runtime(
        tools,
        Arc::new(TestResolver::allow_all()),
        Hooks::default(),
        dir.path(),
    );
    let reads = (0..5).map(|i| call(&format!("r{i}"), "Read", json!({"wait_for_peers": 5})));
    let edits = (0..5).map(|i| call(&format!("e{i}"), "Edit", json!({"sleep_ms": 5})));
    let out = rt
        .run_tools(
            reads.chain(edits).collect(),
            ToolUseContext::default(),
            CancellationToken::new(),
        )
        .await;
    assert_eq!(out.results.len(), 10);
    // All five reads were in flight at once (each waited for the others).
    assert_eq!(safe_probe.max_in_flight(), 5);
    assert_eq!(unsafe_probe.max_in_flight(), 1);
    assert_eq!(unsafe_probe.started(), ["e0", "e1", "e2", "e3", "e4"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn results_come_back_in_the_original_order() {
    let dir = tempfile::tempdir().unwrap();
    let probe = Probe::new();
    let (rt, _) = runtime(
        vec![TestTool::safe("Read").with_probe(&probe).arc()],
        Arc::new(TestResolver::allow_all()),
        Hooks::default(),
        dir.path(),
    );
    let blocks = vec![
        // Finishing order forced to fast, mid, slow.
        call("slow", "Read", json!({"wait_for_finished": 2})),
        call("fast", "Read", json!({})),
        call("mid", "Read", json!({"wait_for_finished": 1})),
    ];
    let out = rt
        .run_tools(blocks, ToolUseContext::default(), CancellationToken::new())
        .await;
    let ids: Vec<&str> = out.results.iter().map(|r| r.tool_use_id.as_str()).collect();
    assert_eq!(ids, ["slow", "fast", "mid"]);
    assert_eq!(out.results[1].text(), "ok:fast");
    // They really finished out of order.
    assert_eq!(probe.finished(), ["fast", "mid", "slow"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_limit_is_never_exceeded_under_a_thousand_calls() {
    let dir = tempfile::tempdir().unwrap();
    let probe = Probe::new();
    let sink = Arc::new(MemorySink::new());
    let pool = Arc::new(ToolPool::new(vec![
        TestTool::safe("Read").with_probe(&probe).arc(),
    ]));
    let rt = ToolRuntime::builder(pool, Arc::new(TestResolver::allow_all()), dir.path())
        .event_sink(sink.clone())
        .config(RuntimeConfig {
            max_tool_use_concurrency: Some(7),
            ..RuntimeConfig::default()
        })
        .build();
    // The env var would override the setting; this test owns neither.
    let limit = rt.max_concurrency();
    assert!(limit >= 1);
    let blocks = (0..1000)
        .map(|i| call(&format!("c{i}"), "Read", json!({"sleep_ms": 1})))
        .collect();
    let out = rt
        .run_tools(blocks, ToolUseContext::default(), CancellationToken::new())
        .await;
    assert_eq!(out.results.len(), 1000);
    for (i, r) in out.results.iter().enumerate() {
        assert_eq!(r.tool_use_id, format!("c{i}"));
        assert_eq!(r.status, CallStatus::Succeeded);
    }
    assert_eq!(probe.calls(), 1000);
    assert!(
        probe.max_in_flight() <= limit,
        "{} > {limit}",
        probe.max_in_flight()
    );
    assert!(probe.max_in_flight() > 1, "calls never overlapped");
    // Exactly one tool_completed per tool_queued.
    let events = sink.events();
    let count = |pred: fn(&EventBody) -> bool| events.iter().filter(|e| pred(&e.body)).count();
    assert_eq!(count(|b| matches!(b, EventBody::ToolQueued { .. })), 1000);
    assert_eq!(
        count(|b| matches!(b, EventBody::ToolCompleted { .. })),
        1000
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn streaming_starts_calls_before_the_message_is_complete() {
    let dir = tempfile::tempdir().unwrap();
    let probe = Probe::new();
    let (rt, _) = runtime(
        vec![
            TestTool::safe("Read").with_probe(&probe).arc(),
            TestTool::new("Edit").with_probe(&probe).arc(),
        ],
        Arc::new(TestResolver::allow_all()),
        Hooks::default(),
        dir.path(),
    );
    let mut exec = rt.streaming_executor(ToolUseContext::default(), CancellationToken::new());
    exec.add_tool(call("a", "Read", json!({"sleep_ms": 50})));
    // The first call runs while the "model" is still streaming.
    eventually("a started", || probe.started().len() == 1).await;
    let first = exec.next_result().await.unwrap();
    assert_eq!(first.tool_use_id, "a");
    exec.add_tool(call("b", "Edit", json!({})));
    exec.add_tool(call("c", "Read", json!({})));
    eventually("b and c ran", || probe.calls() == 3).await;
    exec.finish();
    assert_eq!(exec.next_result().await.unwrap().tool_use_id, "b");
    assert_eq!(exec.next_result().await.unwrap().tool_use_id, "c");
    assert!(exec.next_result().await.is_none());
    assert_eq!(probe.started(), ["a", "b", "c"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_failing_sibling_aborting_tool_cancels_its_siblings_not_the_turn() {
    let dir = tempfile::tempdir().unwrap();
    let probe = Probe::new();
    let (rt, sink) = runtime(
        vec![
            TestTool::safe("Read").with_probe(&probe).arc(),
            // Bash-like: safe for this input, and aborts siblings on error.
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
    let interrupt = CancellationToken::new();
    let out = rt
        .run_tools(
            vec![
                call("long", "Read", json!({"sleep_ms": 30_000})),
                call("bash", "Bash", json!({"sleep_ms": 20, "fail": "exit 1"})),
                call("after", "Edit", json!({})),
            ],
            ToolUseContext::default(),
            interrupt.clone(),
        )
        .await;
    let statuses: Vec<CallStatus> = out.results.iter().map(|r| r.status).collect();
    assert_eq!(
        statuses,
        [
            CallStatus::Cancelled,
            CallStatus::Failed,
            CallStatus::Cancelled
        ]
    );
    assert!(
        out.results[0]
            .text()
            .contains("parallel tool call bash (Bash) failed"),
        "{}",
        out.results[0].text()
    );
    assert!(out.results[2].text().contains("parallel tool call bash"));
    // The queued Edit never ran; the long Read was stopped, not waited for.
    let mut ran = probe.started();
    ran.sort();
    assert_eq!(ran, ["bash", "long"]);
    assert!(
        !probe.finished().contains(&"long".to_owned()),
        "the 30 s Read ran to its end: {:?}",
        probe.finished()
    );
    assert!(
        !interrupt.is_cancelled(),
        "sibling abort is not a user interrupt"
    );
    let completed = sink
        .events()
        .iter()
        .filter(|e| matches!(e.body, EventBody::ToolCompleted { .. }))
        .count();
    assert_eq!(completed, 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_failure_without_the_flag_cancels_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (rt, _) = runtime(
        vec![TestTool::safe("Read").arc()],
        Arc::new(TestResolver::allow_all()),
        Hooks::default(),
        dir.path(),
    );
    let out = rt
        .run_tools(
            vec![
                call("a", "Read", json!({"sleep_ms": 100})),
                call("b", "Read", json!({"fail": "nope"})),
            ],
            ToolUseContext::default(),
            CancellationToken::new(),
        )
        .await;
    assert_eq!(out.results[0].status, CallStatus::Succeeded);
    assert_eq!(out.results[1].status, CallStatus::Failed);
    assert_eq!(out.results[1].text(), "Error: nope");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn interrupt_cancels_cancel_tools_lets_block_tools_finish_and_skips_queued_calls() {
    let dir = tempfile::tempdir().unwrap();
    let probe = Probe::new();
    let (rt, _) = runtime(
        vec![
            TestTool::safe("Grep")
                .cancel_on_interrupt()
                .with_probe(&probe)
                .arc(),
            TestTool::safe("Read").with_probe(&probe).arc(),
            TestTool::new("Edit").with_probe(&probe).arc(),
        ],
        Arc::new(TestResolver::allow_all()),
        Hooks::default(),
        dir.path(),
    );
    let interrupt = CancellationToken::new();
    let mut exec = rt.streaming_executor(ToolUseContext::default(), interrupt.clone());
    exec.add_tool(call("cancel-me", "Grep", json!({"sleep_ms": 30_000})));
    exec.add_tool(call(
        "block-me",
        "Read",
        json!({"sleep_ms": 1500, "output": "finished"}),
    ));
    exec.add_tool(call("queued", "Edit", json!({})));
    eventually("both safe calls running", || probe.in_flight() == 2).await;
    interrupt.cancel();
    let out = exec.collect().await;
    let statuses: Vec<CallStatus> = out.results.iter().map(|r| r.status).collect();
    assert_eq!(
        statuses,
        [
            CallStatus::Interrupted,
            CallStatus::Succeeded,
            CallStatus::Interrupted
        ]
    );
    assert!(out.results[0].text().contains("Interrupted by the user"));
    assert_eq!(out.results[1].text(), "finished");
    assert!(out.results[2].text().contains("Not run"));
    assert_eq!(probe.finished(), ["block-me"]);
    assert_eq!(probe.calls(), 2, "the queued Edit never started");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn context_modifiers_apply_between_batches_and_only_for_unsafe_tools() {
    let dir = tempfile::tempdir().unwrap();
    let (rt, sink) = runtime(
        vec![TestTool::safe("Read").arc(), TestTool::new("Cd").arc()],
        Arc::new(TestResolver::allow_all()),
        Hooks::default(),
        dir.path(),
    );
    let ctx = ToolUseContext {
        cwd: "/start".into(),
        ..ToolUseContext::default()
    };
    let out = rt
        .run_tools(
            vec![
                call("safe-cd", "Read", json!({"set_cwd": "/ignored"})),
                call("see-1", "Read", json!({"echo_cwd": true})),
                call("cd", "Cd", json!({"set_cwd": "/next"})),
                call("see-2", "Read", json!({"echo_cwd": true})),
            ],
            ctx,
            CancellationToken::new(),
        )
        .await;
    assert_eq!(out.results[1].text(), "/start");
    assert_eq!(out.results[3].text(), "/next");
    assert_eq!(out.context.cwd, std::path::PathBuf::from("/next"));
    let modified: Vec<(String, bool)> = sink
        .events()
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::ContextModified {
                tool_use_id,
                applied,
                ..
            } => Some((tool_use_id.clone(), *applied)),
            _ => None,
        })
        .collect();
    assert_eq!(modified, [("safe-cd".into(), false), ("cd".into(), true)]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_mode_changing_modifier_reaches_the_mode_listener_before_the_next_batch() {
    use gatehouse_protocol::permission::PermissionMode;
    let dir = tempfile::tempdir().unwrap();
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen_by_listener = Arc::clone(&seen);
    let rt = ToolRuntime::builder(
        Arc::new(ToolPool::new(vec![
            TestTool::safe("Read").arc(),
            TestTool::new("EnterPlan").arc(),
        ])),
        Arc::new(TestResolver::allow_all()),
        dir.path(),
    )
    .on_mode_change(Arc::new(move |mode| {
        seen_by_listener.lock().unwrap().push(mode);
    }))
    .build();
    let out = rt
        .run_tools(
            vec![
                // A safe call's modifier is ignored, so it changes nothing.
                call("safe", "Read", json!({"set_mode": "acceptEdits"})),
                call("plan", "EnterPlan", json!({"set_mode": "plan"})),
                call("same", "EnterPlan", json!({"set_mode": "plan"})),
            ],
            ToolUseContext::default(),
            CancellationToken::new(),
        )
        .await;
    assert_eq!(out.context.permission_mode, PermissionMode::Plan);
    // Told once: the second modifier left the mode as it was.
    assert_eq!(*seen.lock().unwrap(), [PermissionMode::Plan]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn malformed_blocks_get_error_results_and_the_others_still_run() {
    let dir = tempfile::tempdir().unwrap();
    let probe = Probe::new();
    let (rt, sink) = runtime(
        vec![TestTool::safe("Read").with_probe(&probe).arc()],
        Arc::new(TestResolver::allow_all()),
        Hooks::default(),
        dir.path(),
    );
    let huge = "x".repeat(2 * 1024 * 1024);
    let blocks = vec![
        call("ok-1", "Read", json!({})),
        call("", "Read", json!({})),
        call("ok-1", "Read", json!({})),
        call("arr", "Read", json!([1, 2])),
        call("huge", "Read", json!({"output": huge})),
        call("ghost", "NoSuchTool", json!({})),
        call("noname", "", json!({})),
        gatehouse_core::ToolUseBlock::from_json(&json!({"type": "tool_use", "name": 42})),
        call("ok-2", "Read", json!({})),
    ];
    let out = rt
        .run_tools(blocks, ToolUseContext::default(), CancellationToken::new())
        .await;
    assert_eq!(out.results.len(), 9);
    let ok: Vec<bool> = out.results.iter().map(|r| !r.is_error).collect();
    assert_eq!(
        ok,
        [true, false, false, false, false, false, false, false, true]
    );
    assert_eq!(probe.started(), ["ok-1", "ok-2"]);
    assert!(out.results[1].text().contains("has no id"));
    assert!(out.results[2].text().contains("Duplicate tool_use id"));
    assert_eq!(out.results[2].tool_use_id, "ok-1__dup2");
    assert!(
        out.results[3]
            .text()
            .contains("must be a JSON object, but it is an array")
    );
    assert!(out.results[4].text().contains("larger than"));
    assert!(
        out.results[5]
            .text()
            .contains("No such tool available: NoSuchTool")
    );
    assert!(out.results[6].text().contains("no tool name"));
    // Every id is unique and has exactly one queued and one completed event.
    let events = sink.events();
    let mut ids: Vec<&str> = out.results.iter().map(|r| r.tool_use_id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 9);
    for id in ids {
        let queued = events
            .iter()
            .filter(|e| matches!(&e.body, EventBody::ToolQueued { tool_use_id, .. } if tool_use_id == id))
            .count();
        let completed = events
            .iter()
            .filter(|e| matches!(&e.body, EventBody::ToolCompleted { tool_use_id, .. } if tool_use_id == id))
            .count();
        assert_eq!((queued, completed), (1, 1), "{id}");
    }
    // The huge input is not copied into the event stream.
    let biggest = events
        .iter()
        .map(|e| serde_json::to_string(e).unwrap().len())
        .max()
        .unwrap();
    assert!(biggest < 100_000, "{biggest}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_panicking_tool_fails_its_call_only() {
    let dir = tempfile::tempdir().unwrap();
    let (rt, _) = runtime(
        vec![TestTool::safe("Read").arc()],
        Arc::new(TestResolver::allow_all()),
        Hooks::default(),
        dir.path(),
    );
    let out = rt
        .run_tools(
            vec![
                call("boom", "Read", json!({"panic": true})),
                call("fine", "Read", json!({})),
            ],
            ToolUseContext::default(),
            CancellationToken::new(),
        )
        .await;
    assert_eq!(out.results[0].status, CallStatus::Failed);
    assert!(
        out.results[0].text().contains("the tool crashed"),
        "{}",
        out.results[0].text()
    );
    assert_eq!(out.results[1].status, CallStatus::Succeeded);
}
