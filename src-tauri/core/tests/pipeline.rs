//! The dispatch pipeline (SPEC §3): stages, hooks and their invariant,
//! asks, the result budget, and the events every stage emits.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;
use gatehouse_core::ask::AskAnswer;
use gatehouse_core::hooks::{HookDecision, HookOutcome, Hooks, PostHookOutcome};
use gatehouse_core::pipeline::resolve_hook_decision;
use gatehouse_core::registry::ToolPool;
use gatehouse_core::testing::{
    Probe, RecordingPostHook, ScriptedAsk, StaticPreHook, TestResolver, TestTool, call, decision,
    default_reason, mode_reason, rule, runtime,
};
use gatehouse_core::tool::CallContext;
use gatehouse_core::{
    CallStatus, ToolError, ToolResult, ToolRuntime, ToolUseContext, Typed, TypedTool,
};
use gatehouse_protocol::event::{Event, EventBody, RejectionStage, ToolCallStatus};
use gatehouse_protocol::permission::{DecisionReason, PermissionBehavior};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tokio_util::sync::CancellationToken;

/// A Read-like typed tool: required absolute path, optional limit.
struct ReadLike {
    calls: Arc<AtomicUsize>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ReadLikeInput {
    /// Absolute path.
    file_path: String,
    /// Lines to read.
    #[allow(dead_code)]
    limit: Option<u32>,
}

#[async_trait]
impl TypedTool for ReadLike {
    type Input = ReadLikeInput;
    type Output = String;
    fn name(&self) -> &str {
        "Read"
    }
    fn description(&self) -> &str {
        "reads"
    }
    async fn validate_input(
        &self,
        input: &ReadLikeInput,
        _ctx: &ToolUseContext,
    ) -> Result<(), ToolError> {
        if input.file_path.starts_with('/') {
            Ok(())
        } else {
            Err(ToolError::invalid(format!(
                "file_path must be absolute, got {:?}",
                input.file_path
            )))
        }
    }
    async fn call(
        &self,
        input: ReadLikeInput,
        _cx: CallContext<'_>,
    ) -> Result<ToolResult<String>, ToolError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        Ok(ToolResult::new(format!("read {}", input.file_path)))
    }
}

fn bodies(events: &[Event]) -> Vec<&EventBody> {
    events.iter().map(|e| &e.body).collect()
}

/// The event's wire `type` (so new event kinds need no change here).
fn kind(body: &EventBody) -> String {
    let value = serde_json::to_value(body).unwrap();
    value["type"].as_str().unwrap().to_owned()
}

async fn run_one(
    rt: &Arc<ToolRuntime>,
    block: gatehouse_core::ToolUseBlock,
) -> gatehouse_core::ToolCallResult {
    rt.run_one(
        block,
        &mut ToolUseContext::default(),
        &CancellationToken::new(),
    )
    .await
}

#[tokio::test]
async fn schema_errors_name_each_field_and_the_expected_shape_and_nothing_runs() {
    let dir = tempfile::tempdir().unwrap();
    let calls = Arc::new(AtomicUsize::new(0));
    let tool = Typed::arc(ReadLike {
        calls: Arc::clone(&calls),
    });
    let (rt, sink) = runtime(
        vec![tool],
        Arc::new(TestResolver::allow_all()),
        Hooks::default(),
        dir.path(),
    );
    let r = run_one(&rt, call("t", "Read", json!({"limit": "ten", "colour": 1}))).await;
    assert_eq!(r.status, CallStatus::Rejected(RejectionStage::Schema));
    let text = r.text();
    assert!(
        text.contains("Read was called with invalid input"),
        "{text}"
    );
    assert!(
        text.contains("file_path: required field is missing"),
        "{text}"
    );
    assert!(
        text.contains("limit:") && text.contains("got string \"ten\""),
        "{text}"
    );
    assert!(text.contains("colour: unexpected field"), "{text}");
    assert!(
        text.contains("Expected input: {file_path: string, limit?: integer | null}"),
        "{text}"
    );
    assert_eq!(calls.load(Ordering::SeqCst), 0);
    let kinds: Vec<_> = bodies(&sink.events()).into_iter().map(kind).collect();
    assert_eq!(
        kinds,
        [
            "tool_queued",
            "tool_started",
            "tool_input_rejected",
            "tool_completed"
        ]
    );
}

#[tokio::test]
async fn validate_input_refuses_before_hooks_and_permissions() {
    let dir = tempfile::tempdir().unwrap();
    let calls = Arc::new(AtomicUsize::new(0));
    let hook = StaticPreHook::new("h", HookOutcome::default());
    let resolver = Arc::new(TestResolver::allow_all());
    let hooks = Hooks {
        pre_tool_use: vec![hook.clone()],
        ..Hooks::default()
    };
    let (rt, _) = runtime(
        vec![Typed::arc(ReadLike {
            calls: Arc::clone(&calls),
        })],
        resolver.clone(),
        hooks,
        dir.path(),
    );
    let r = run_one(&rt, call("t", "Read", json!({"file_path": "rel/a.txt"}))).await;
    assert_eq!(
        r.status,
        CallStatus::Rejected(RejectionStage::ValidateInput)
    );
    assert!(
        r.text().contains("file_path must be absolute"),
        "{}",
        r.text()
    );
    assert_eq!(calls.load(Ordering::SeqCst), 0);
    assert!(hook.seen.lock().unwrap().is_empty());
    assert!(resolver.queries.lock().unwrap().is_empty());

    let r = run_one(&rt, call("u", "Read", json!({"file_path": "/a.txt"}))).await;
    assert_eq!(r.text(), "read /a.txt");
}

#[tokio::test]
async fn a_single_call_emits_every_stage_in_order_with_session_and_time() {
    let dir = tempfile::tempdir().unwrap();
    let (rt, sink) = runtime(
        vec![TestTool::safe("Read").arc()],
        Arc::new(TestResolver::allow_all()),
        Hooks::default(),
        dir.path(),
    );
    let r = run_one(&rt, call("t1", "Read", json!({"progress": 3}))).await;
    assert_eq!(r.status, CallStatus::Succeeded);
    let events = sink.events();
    let kinds: Vec<_> = bodies(&events).into_iter().map(kind).collect();
    assert_eq!(
        kinds,
        [
            "tool_queued",
            "tool_started",
            "permission_decided",
            "tool_progress",
            "tool_progress",
            "tool_progress",
            "tool_completed"
        ]
    );
    for e in &events {
        assert_eq!(e.session_id, "test-session");
        assert!(e.ts_ms > 0);
    }
    let stamps: Vec<u64> = events.iter().map(|e| e.ts_ms).collect();
    assert!(stamps.windows(2).all(|w| w[0] <= w[1]), "{stamps:?}");
    match &events[6].body {
        EventBody::ToolCompleted {
            tool_use_id,
            status,
            is_error,
            persisted_path,
            ..
        } => {
            assert_eq!(tool_use_id, "t1");
            assert_eq!(*status, ToolCallStatus::Ok);
            assert!(!is_error);
            assert!(persisted_path.is_none());
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_hook_allow_lifts_only_default_and_mode_decisions() {
    let allow = Some((HookDecision::Allow, "h", Some("ok")));
    let cases = [
        (
            PermissionBehavior::Ask,
            default_reason(),
            PermissionBehavior::Allow,
        ),
        (
            PermissionBehavior::Ask,
            mode_reason(),
            PermissionBehavior::Allow,
        ),
        (
            PermissionBehavior::Deny,
            mode_reason(),
            PermissionBehavior::Allow,
        ),
        (
            PermissionBehavior::Ask,
            rule("Bash(git push:*)"),
            PermissionBehavior::Ask,
        ),
        (
            PermissionBehavior::Deny,
            rule("Bash(rm *)"),
            PermissionBehavior::Deny,
        ),
        (
            PermissionBehavior::Ask,
            DecisionReason::SafetyCheck {
                message: ".git/ is protected".into(),
            },
            PermissionBehavior::Ask,
        ),
        (
            PermissionBehavior::Ask,
            DecisionReason::ToolCheck {
                message: "command substitution".into(),
            },
            PermissionBehavior::Ask,
        ),
        (
            PermissionBehavior::Ask,
            DecisionReason::WorkingDirectory {
                path: "/etc".into(),
            },
            PermissionBehavior::Ask,
        ),
    ];
    for (engine, reason, expected) in cases {
        let got = resolve_hook_decision(decision(engine, reason.clone()), allow, false);
        assert_eq!(got.decision, expected, "{engine:?} {reason:?}");
        assert!(
            got.trace.iter().any(|s| s.layer == "hook:h"),
            "the hook is in the trace"
        );
        if expected != PermissionBehavior::Allow {
            assert_eq!(got.reason, reason, "the engine's reason stands");
        }
    }
    // Never for tools that require user interaction.
    let got = resolve_hook_decision(
        decision(PermissionBehavior::Ask, default_reason()),
        allow,
        true,
    );
    assert_eq!(got.decision, PermissionBehavior::Ask);
    // A hook's deny always wins; a hook's ask never weakens a deny.
    let deny = Some((HookDecision::Deny, "h", None));
    let got = resolve_hook_decision(
        decision(PermissionBehavior::Allow, rule("Read")),
        deny,
        false,
    );
    assert_eq!(got.decision, PermissionBehavior::Deny);
    let ask = Some((HookDecision::Ask, "h", None));
    let got = resolve_hook_decision(
        decision(PermissionBehavior::Allow, rule("Read")),
        ask,
        false,
    );
    assert_eq!(got.decision, PermissionBehavior::Ask);
    let got = resolve_hook_decision(decision(PermissionBehavior::Deny, rule("Read")), ask, false);
    assert_eq!(got.decision, PermissionBehavior::Deny);
}

#[tokio::test]
async fn a_hook_allow_does_not_bypass_an_ask_rule_end_to_end() {
    let dir = tempfile::tempdir().unwrap();
    let probe = Probe::new();
    let resolver = TestResolver::allow_all()
        .tool(
            "Bash",
            decision(PermissionBehavior::Ask, rule("Bash(git push:*)")),
        )
        .tool("Edit", decision(PermissionBehavior::Ask, default_reason()));
    let hooks = Hooks {
        pre_tool_use: vec![StaticPreHook::new(
            "approve-all",
            HookOutcome::decide(HookDecision::Allow, "looks fine"),
        )],
        ..Hooks::default()
    };
    let (rt, sink) = runtime(
        vec![
            TestTool::new("Bash").with_probe(&probe).arc(),
            TestTool::new("Edit").with_probe(&probe).arc(),
        ],
        Arc::new(resolver),
        hooks,
        dir.path(),
    );
    // No ask handler: the rule's ask fails closed.
    let bash = run_one(&rt, call("b", "Bash", json!({}))).await;
    assert_eq!(bash.status, CallStatus::Denied);
    assert!(
        bash.text().contains("nobody can be asked"),
        "{}",
        bash.text()
    );
    // The default ask is lifted by the hook.
    let edit = run_one(&rt, call("e", "Edit", json!({}))).await;
    assert_eq!(edit.status, CallStatus::Succeeded);
    assert_eq!(probe.started(), ["e"]);
    let decided: Vec<(String, PermissionBehavior)> = sink
        .events()
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::PermissionDecided {
                tool_use_id,
                decision,
                ..
            } => Some((tool_use_id.clone(), *decision)),
            _ => None,
        })
        .collect();
    assert_eq!(
        decided,
        [
            ("b".into(), PermissionBehavior::Deny),
            ("e".into(), PermissionBehavior::Allow)
        ]
    );
}

#[tokio::test]
async fn hook_deny_and_block_refuse_the_call() {
    let dir = tempfile::tempdir().unwrap();
    let probe = Probe::new();
    let blocker = StaticPreHook::new(
        "guard",
        HookOutcome {
            block: Some("not on Fridays".into()),
            ..HookOutcome::default()
        },
    );
    let hooks = Hooks {
        pre_tool_use: vec![
            StaticPreHook::new("ok", HookOutcome::decide(HookDecision::Allow, "fine")),
            blocker,
        ],
        ..Hooks::default()
    };
    let (rt, sink) = runtime(
        vec![TestTool::new("Edit").with_probe(&probe).arc()],
        Arc::new(TestResolver::allow_all()),
        hooks,
        dir.path(),
    );
    let r = run_one(&rt, call("t", "Edit", json!({}))).await;
    assert_eq!(r.status, CallStatus::Denied);
    assert!(
        r.text() == "PreToolUse:Edit hook error: not on Fridays",
        "{}",
        r.text()
    );
    assert_eq!(probe.calls(), 0);
    let hook_events = sink
        .events()
        .iter()
        .filter(|e| matches!(e.body, EventBody::HookRan { .. }))
        .count();
    assert_eq!(hook_events, 2);
}

#[tokio::test]
async fn a_rewritten_input_is_revalidated_and_rechecked_and_call_gets_it() {
    let dir = tempfile::tempdir().unwrap();
    let probe = Probe::new();
    let mut tool = TestTool::new("Edit").with_probe(&probe);
    tool.backfill = true;
    let resolver = Arc::new(TestResolver::allow_all());
    let rewrite = StaticPreHook::new(
        "rewrite",
        HookOutcome {
            updated_input: Some(json!({"output": "rewritten"})),
            additional_context: Some("note from hook".into()),
            ..HookOutcome::default()
        },
    );
    let hooks = Hooks {
        pre_tool_use: vec![rewrite.clone()],
        ..Hooks::default()
    };
    let (rt, _) = runtime(vec![tool.arc()], resolver.clone(), hooks, dir.path());
    let r = run_one(&rt, call("t", "Edit", json!({"output": "original"}))).await;
    assert_eq!(r.text(), "rewritten");
    // The hook saw the observable (backfilled) original…
    assert_eq!(
        rewrite.seen.lock().unwrap()[0],
        json!({"output": "original", "_observed": true})
    );
    // …the engine saw the rewritten input (backfilled)…
    assert_eq!(
        resolver.queries.lock().unwrap()[0].1,
        json!({"output": "rewritten", "_observed": true})
    );
    // …and the call got the rewritten input without the backfill.
    assert_eq!(probe.inputs()[0].1["output"], "rewritten");
    assert_eq!(r.new_messages.len(), 1);

    // An invalid rewrite is refused before anything runs.
    let bad = StaticPreHook::new(
        "bad-rewrite",
        HookOutcome {
            updated_input: Some(json!({"sleep_ms": "forever"})),
            ..HookOutcome::default()
        },
    );
    let probe2 = Probe::new();
    let (rt, _) = runtime(
        vec![TestTool::new("Edit").with_probe(&probe2).arc()],
        Arc::new(TestResolver::allow_all()),
        Hooks {
            pre_tool_use: vec![bad],
            ..Hooks::default()
        },
        dir.path(),
    );
    let r = run_one(&rt, call("t", "Edit", json!({}))).await;
    assert_eq!(r.status, CallStatus::Rejected(RejectionStage::Schema));
    assert!(
        r.text()
            .contains("rewritten by hook bad-rewrite is invalid"),
        "{}",
        r.text()
    );
    assert!(r.text().contains("sleep_ms"), "{}", r.text());
    assert_eq!(probe2.calls(), 0);
}

#[tokio::test]
async fn the_model_input_reaches_call_not_the_backfilled_copy() {
    let dir = tempfile::tempdir().unwrap();
    let probe = Probe::new();
    let mut tool = TestTool::new("Edit").with_probe(&probe);
    tool.backfill = true;
    let resolver = Arc::new(TestResolver::allow_all());
    let (rt, _) = runtime(
        vec![tool.arc()],
        resolver.clone(),
        Hooks::default(),
        dir.path(),
    );
    let r = run_one(&rt, call("t", "Edit", json!({"output": "x"}))).await;
    assert_eq!(r.status, CallStatus::Succeeded, "{}", r.text());
    assert_eq!(resolver.queries.lock().unwrap()[0].1["_observed"], true);
    assert!(probe.inputs()[0].1.get("_observed").is_none());
}

fn with_ask(
    dir: &std::path::Path,
    probe: &Arc<Probe>,
    resolver: TestResolver,
    ask: Arc<ScriptedAsk>,
) -> Arc<ToolRuntime> {
    let pool = Arc::new(ToolPool::new(vec![
        TestTool::new("Edit").with_probe(probe).arc(),
    ]));
    ToolRuntime::builder(pool, Arc::new(resolver), dir)
        .ask_handler(ask)
        .build()
}

#[tokio::test]
async fn asks_go_to_the_handler_and_its_answers_are_honoured() {
    let dir = tempfile::tempdir().unwrap();
    let ask_default =
        || TestResolver::with_default(decision(PermissionBehavior::Ask, default_reason()));

    let probe = Probe::new();
    let once = ScriptedAsk::new(AskAnswer::AllowOnce);
    let rt = with_ask(dir.path(), &probe, ask_default(), once.clone());
    assert_eq!(
        run_one(&rt, call("a", "Edit", json!({}))).await.status,
        CallStatus::Succeeded
    );
    assert_eq!(
        run_one(&rt, call("b", "Edit", json!({}))).await.status,
        CallStatus::Succeeded
    );
    assert_eq!(once.count(), 2, "allow once asks every time");
    let req = once.requests.lock().unwrap()[0].clone();
    assert_eq!(
        (req.tool_use_id.as_str(), req.tool_name.as_str()),
        ("a", "Edit")
    );
    assert_eq!(req.decision.decision, PermissionBehavior::Ask);

    let session = ScriptedAsk::new(AskAnswer::AllowForSession);
    let rt = with_ask(dir.path(), &probe, ask_default(), session.clone());
    assert_eq!(
        run_one(&rt, call("a", "Edit", json!({}))).await.status,
        CallStatus::Succeeded
    );
    assert_eq!(
        run_one(&rt, call("b", "Edit", json!({}))).await.status,
        CallStatus::Succeeded
    );
    assert_eq!(session.count(), 1, "allow for session covers later calls");

    // A session grant never lifts an ask rule.
    let rule_ask =
        TestResolver::with_default(decision(PermissionBehavior::Ask, rule("Edit(.env)")));
    let session = ScriptedAsk::new(AskAnswer::AllowForSession);
    let rt = with_ask(dir.path(), &probe, rule_ask, session.clone());
    run_one(&rt, call("a", "Edit", json!({}))).await;
    run_one(&rt, call("b", "Edit", json!({}))).await;
    assert_eq!(session.count(), 2);

    let deny = ScriptedAsk::new(AskAnswer::Deny {
        feedback: Some("use the other file".into()),
    });
    let probe = Probe::new();
    let rt = with_ask(dir.path(), &probe, ask_default(), deny);
    let r = run_one(&rt, call("a", "Edit", json!({}))).await;
    assert_eq!(r.status, CallStatus::Denied);
    assert!(r.text().contains("use the other file"), "{}", r.text());
    assert_eq!(probe.calls(), 0);
}

#[tokio::test]
async fn a_tool_deny_verdict_refuses_with_its_reason() {
    let dir = tempfile::tempdir().unwrap();
    let mut tool = TestTool::new("Bash");
    tool.verdict = gatehouse_core::permission::ToolPermissionVerdict::Deny {
        reason: "writes outside the project".into(),
    };
    let (rt, _) = runtime(
        vec![tool.arc()],
        Arc::new(TestResolver::allow_all()),
        Hooks::default(),
        dir.path(),
    );
    let r = run_one(&rt, call("t", "Bash", json!({}))).await;
    assert_eq!(r.status, CallStatus::Denied);
    assert_eq!(
        r.text(),
        "Permission to use Bash was denied: writes outside the project."
    );
}

#[tokio::test]
async fn oversized_results_are_spilled_to_the_session_dir() {
    let dir = tempfile::tempdir().unwrap();
    let mut tool = TestTool::safe("Read");
    tool.max_result = 1_000;
    let (rt, sink) = runtime(
        vec![tool.arc()],
        Arc::new(TestResolver::allow_all()),
        Hooks::default(),
        dir.path(),
    );
    let r = run_one(
        &rt,
        call(
            "toolu/../x",
            "Read",
            json!({"output": "abcdefghij", "repeat": 500}),
        ),
    )
    .await;
    let path = r.persisted_path.clone().expect("spilled");
    assert_eq!(path.parent().unwrap(), dir.path().join("tool-results"));
    let name = path.file_name().unwrap().to_str().unwrap();
    assert!(
        name.starts_with("toolu____x-") && name.ends_with(".txt"),
        "{name}"
    );
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "abcdefghij".repeat(500)
    );
    let text = r.text();
    assert!(text.contains(&path.display().to_string()), "{text}");
    assert!(text.contains("5000 characters, limit 1000"), "{text}");
    assert!(text.chars().count() < 1_400, "{}", text.chars().count());
    let persisted = sink.events().iter().find_map(|e| match &e.body {
        EventBody::ToolCompleted { persisted_path, .. } => persisted_path.clone(),
        _ => None,
    });
    assert_eq!(persisted, Some(path.display().to_string()));

    // At the limit: nothing spilled.
    let r = run_one(
        &rt,
        call(
            "small",
            "Read",
            json!({"output": "abcdefghij", "repeat": 100}),
        ),
    )
    .await;
    assert!(r.persisted_path.is_none());
    assert_eq!(r.text().len(), 1_000);
}

#[tokio::test]
async fn post_hooks_see_the_output_or_the_error() {
    let dir = tempfile::tempdir().unwrap();
    let ok_hook = Arc::new(RecordingPostHook {
        name: "audit".into(),
        outcome: PostHookOutcome {
            additional_context: Some("audited".into()),
            ..PostHookOutcome::default()
        },
        seen: Default::default(),
    });
    let fail_hook = RecordingPostHook::new("on-failure");
    let hooks = Hooks {
        post_tool_use: vec![ok_hook.clone()],
        post_tool_use_failure: vec![fail_hook.clone()],
        ..Hooks::default()
    };
    let (rt, _) = runtime(
        vec![TestTool::safe("Read").arc()],
        Arc::new(TestResolver::allow_all()),
        hooks,
        dir.path(),
    );
    let r = run_one(&rt, call("ok", "Read", json!({"output": "data"}))).await;
    assert_eq!(r.new_messages.len(), 1);
    run_one(&rt, call("bad", "Read", json!({"fail": "disk full"}))).await;
    assert_eq!(
        *ok_hook.seen.lock().unwrap(),
        [("ok".to_owned(), json!("data"), false)]
    );
    assert_eq!(
        *fail_hook.seen.lock().unwrap(),
        [("bad".to_owned(), json!("disk full"), true)]
    );
}

#[tokio::test]
async fn unknown_tools_get_an_error_result_naming_the_available_ones() {
    let dir = tempfile::tempdir().unwrap();
    let (rt, _) = runtime(
        vec![TestTool::safe("Read").arc()],
        Arc::new(TestResolver::allow_all()),
        Hooks::default(),
        dir.path(),
    );
    let r = run_one(&rt, call("t", "Raed", json!({}))).await;
    assert_eq!(r.status, CallStatus::Rejected(RejectionStage::Lookup));
    assert_eq!(
        r.text(),
        "No such tool available: Raed. Available tools: Read."
    );
}

/// A hook that only returns once `n` hooks are running at the same time.
struct BarrierHook {
    name: String,
    barrier: Arc<tokio::sync::Barrier>,
}

#[async_trait]
impl gatehouse_core::hooks::PreToolUseHook for BarrierHook {
    fn name(&self) -> &str {
        &self.name
    }
    async fn run(
        &self,
        _input: &gatehouse_core::hooks::PreToolUseInput<'_>,
    ) -> Result<HookOutcome, gatehouse_core::hooks::HookError> {
        self.barrier.wait().await;
        Ok(HookOutcome::default())
    }
}

#[tokio::test]
async fn pre_tool_use_hooks_run_in_parallel() {
    let dir = tempfile::tempdir().unwrap();
    let barrier = Arc::new(tokio::sync::Barrier::new(3));
    let hooks = Hooks {
        pre_tool_use: (0..3)
            .map(|i| {
                Arc::new(BarrierHook {
                    name: format!("h{i}"),
                    barrier: Arc::clone(&barrier),
                }) as Arc<dyn gatehouse_core::hooks::PreToolUseHook>
            })
            .collect(),
        ..Hooks::default()
    };
    let (rt, _) = runtime(
        vec![TestTool::safe("Read").arc()],
        Arc::new(TestResolver::allow_all()),
        hooks,
        dir.path(),
    );
    // Run one after the other, the first hook would wait forever.
    let r = tokio::time::timeout(
        std::time::Duration::from_secs(30),
        run_one(&rt, call("t", "Read", json!({}))),
    )
    .await
    .expect("hooks ran one after the other");
    assert_eq!(r.status, CallStatus::Succeeded);
}

/// Never answers.
struct SilentUser {
    asked: Arc<tokio::sync::Notify>,
}

#[async_trait]
impl gatehouse_core::ask::AskHandler for SilentUser {
    async fn ask(&self, _request: gatehouse_core::ask::AskRequest) -> AskAnswer {
        self.asked.notify_one();
        std::future::pending().await
    }
}

#[tokio::test]
async fn an_interrupt_cancels_a_call_waiting_for_an_answer() {
    let dir = tempfile::tempdir().unwrap();
    let probe = Probe::new();
    let asked = Arc::new(tokio::sync::Notify::new());
    let pool = Arc::new(ToolPool::new(vec![
        TestTool::new("Edit").with_probe(&probe).arc(),
    ]));
    let rt = ToolRuntime::builder(
        pool,
        Arc::new(TestResolver::with_default(decision(
            PermissionBehavior::Ask,
            default_reason(),
        ))),
        dir.path(),
    )
    .ask_handler(Arc::new(SilentUser {
        asked: Arc::clone(&asked),
    }))
    .build();
    let interrupt = CancellationToken::new();
    let mut exec = rt.streaming_executor(ToolUseContext::default(), interrupt.clone());
    exec.add_tool(call("t", "Edit", json!({})));
    asked.notified().await;
    interrupt.cancel();
    let out = exec.collect().await;
    assert_eq!(out.results[0].status, CallStatus::Interrupted);
    assert_eq!(probe.calls(), 0);
}

/// An MCP-style tool: a raw JSON Schema, no Rust input type.
struct RawSchemaTool {
    schema: serde_json::Value,
}

#[async_trait]
impl gatehouse_core::Tool for RawSchemaTool {
    fn name(&self) -> &str {
        "mcp__docs__search"
    }
    fn description(&self) -> &str {
        "search the docs"
    }
    fn input_schema(&self) -> &serde_json::Value {
        &self.schema
    }
    fn is_mcp(&self) -> bool {
        true
    }
    async fn call(
        &self,
        input: serde_json::Value,
        _cx: CallContext<'_>,
    ) -> Result<ToolResult, ToolError> {
        Ok(ToolResult::from_data(input))
    }
}

#[tokio::test]
async fn raw_schema_tools_are_validated_too() {
    let dir = tempfile::tempdir().unwrap();
    let tool = Arc::new(RawSchemaTool {
        schema: json!({
            "type": "object",
            "properties": {"query": {"type": "string"}, "max": {"type": "integer", "maximum": 50}},
            "required": ["query"]
        }),
    });
    let (rt, _) = runtime(
        vec![tool],
        Arc::new(TestResolver::allow_all()),
        Hooks::default(),
        dir.path(),
    );
    let r = run_one(&rt, call("t", "mcp__docs__search", json!({"max": 99}))).await;
    assert_eq!(r.status, CallStatus::Rejected(RejectionStage::Schema));
    assert!(
        r.text().contains("query: required field is missing"),
        "{}",
        r.text()
    );
    assert!(
        r.text().contains("max:") && r.text().contains("50"),
        "{}",
        r.text()
    );
    assert!(
        r.text()
            .contains("Expected input: {max?: integer, query: string}"),
        "{}",
        r.text()
    );
    let r = run_one(
        &rt,
        call("u", "mcp__docs__search", json!({"query": "hooks"})),
    )
    .await;
    assert_eq!(r.status, CallStatus::Succeeded);
    assert!(r.text().contains("\"query\": \"hooks\""), "{}", r.text());
}

#[tokio::test]
async fn an_alias_reaches_the_tool() {
    let dir = tempfile::tempdir().unwrap();
    let probe = Probe::new();
    let mut agent = TestTool::new("Agent").with_probe(&probe);
    agent.aliases = &["Task"];
    let (rt, _) = runtime(
        vec![agent.arc()],
        Arc::new(TestResolver::allow_all()),
        Hooks::default(),
        dir.path(),
    );
    let r = run_one(&rt, call("t", "Task", json!({"output": "spawned"}))).await;
    assert_eq!(r.status, CallStatus::Succeeded);
    assert_eq!(r.text(), "spawned");
    assert_eq!(
        r.tool_name, "Task",
        "the result keeps the name the model used"
    );
    assert_eq!(probe.calls(), 1);
}
