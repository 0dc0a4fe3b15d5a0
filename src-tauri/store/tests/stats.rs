//! Per-session statistics (the session browser's plots) from events stored
//! in a real SQLite file, and the list filters' facets.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use gatehouse_protocol::event::{ContentBlock, Event, EventBody};
use gatehouse_protocol::permission::{DecisionReason, PermissionBehavior, PermissionMode};
use gatehouse_protocol::session::PermissionAnswer;
use gatehouse_store::{NewSession, SessionStatsBuilder, Store, StoreError};
use serde_json::json;

fn ev(ts_ms: u64, body: EventBody) -> Event {
    Event {
        session_id: "s1".into(),
        ts_ms,
        body,
    }
}

fn queued(id: &str, name: &str) -> EventBody {
    EventBody::ToolQueued {
        tool_use_id: id.into(),
        name: name.into(),
        input: json!({}),
        read_only: false,
    }
}

fn decided(id: &str, decision: PermissionBehavior) -> EventBody {
    EventBody::PermissionDecided {
        tool_use_id: id.into(),
        decision,
        reason: DecisionReason::Mode {
            mode: PermissionMode::Default,
        },
        trace: vec![],
    }
}

fn completed(id: &str, is_error: bool, duration_ms: u64) -> EventBody {
    EventBody::ToolCompleted {
        tool_use_id: id.into(),
        status: if is_error {
            gatehouse_protocol::event::ToolCallStatus::Error
        } else {
            gatehouse_protocol::event::ToolCallStatus::Ok
        },
        is_error,
        content: vec![ContentBlock::Text { text: "x".into() }],
        duration_ms,
        persisted_path: None,
    }
}

/// A live session: two turns; Read twice, Bash failed, Write asked and
/// refused by the user, Bash denied by a rule.
fn live_session() -> Vec<Event> {
    vec![
        ev(1_000, EventBody::UserPrompt { text: "go".into() }),
        ev(
            1_010,
            EventBody::ModelRequestStarted {
                turn: 1,
                messages: 1,
            },
        ),
        ev(
            1_250,
            EventBody::AssistantTextDelta {
                turn: 1,
                index: 0,
                text: "ok".into(),
            },
        ),
        ev(1_300, queued("r1", "Read")),
        ev(1_300, queued("r2", "Read")),
        ev(1_301, decided("r1", PermissionBehavior::Allow)),
        ev(1_301, decided("r2", PermissionBehavior::Allow)),
        ev(1_320, completed("r1", false, 20)),
        ev(1_340, completed("r2", false, 40)),
        ev(1_350, queued("b1", "Bash")),
        ev(1_351, decided("b1", PermissionBehavior::Allow)),
        ev(1_500, completed("b1", true, 150)),
        ev(
            1_600,
            EventBody::Usage {
                turn: 1,
                input_tokens: 100,
                output_tokens: 20,
                cache_creation_input_tokens: 5,
                cache_read_input_tokens: 7,
            },
        ),
        ev(
            1_700,
            EventBody::TurnCompleted {
                turn: 1,
                stop_reason: "tool_use".into(),
                tool_calls: 3,
                duration_ms: 690,
            },
        ),
        ev(
            2_000,
            EventBody::ModelRequestStarted {
                turn: 2,
                messages: 3,
            },
        ),
        ev(
            2_400,
            EventBody::AssistantThinkingDelta {
                turn: 2,
                index: 0,
                thinking: "hm".into(),
            },
        ),
        ev(2_500, queued("w1", "Write")),
        ev(2_501, decided("w1", PermissionBehavior::Ask)),
        ev(
            2_900,
            EventBody::PermissionAnswered {
                tool_use_id: "w1".into(),
                answer: PermissionAnswer::Deny { feedback: None },
            },
        ),
        ev(2_901, completed("w1", true, 0)),
        // A live ask: the answer, then the decision it settled.
        ev(2_910, queued("w2", "Write")),
        ev(
            2_920,
            EventBody::PermissionAnswered {
                tool_use_id: "w2".into(),
                answer: PermissionAnswer::AllowOnce,
            },
        ),
        ev(
            2_921,
            EventBody::PermissionDecided {
                tool_use_id: "w2".into(),
                decision: PermissionBehavior::Allow,
                reason: DecisionReason::UserAnswer {
                    answer: "allow once".into(),
                },
                trace: vec![],
            },
        ),
        ev(2_940, completed("w2", false, 19)),
        ev(2_950, queued("b2", "Bash")),
        ev(2_951, decided("b2", PermissionBehavior::Deny)),
        ev(2_952, completed("b2", true, 0)),
        ev(
            3_000,
            EventBody::Usage {
                turn: 2,
                input_tokens: 300,
                output_tokens: 30,
                cache_creation_input_tokens: 0,
                cache_read_input_tokens: 0,
            },
        ),
    ]
}

#[test]
fn live_session_stats_count_tools_decisions_and_turns() {
    let mut builder = SessionStatsBuilder::new("s1");
    for event in live_session() {
        builder.push(&event);
    }
    let stats = builder.finish();
    assert_eq!(stats.session_id, "s1");
    let names: Vec<_> = stats.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        ["Bash", "Read", "Write"],
        "most calls first, ties by name"
    );
    let bash = &stats.tools[0];
    assert_eq!((bash.calls, bash.errors, bash.denials), (2, 1, 1));
    assert_eq!((bash.total_ms, bash.max_ms), (150, 150));
    let read = &stats.tools[1];
    assert_eq!(
        (read.calls, read.total_ms, read.max_ms, read.errors),
        (2, 60, 40, 0)
    );
    let write = &stats.tools[2];
    assert_eq!(
        (write.denials, write.errors),
        (1, 0),
        "a user refusal is a denial"
    );

    let d = &stats.decisions;
    assert_eq!((d.allowed, d.asked, d.denied), (3, 2, 1));
    assert_eq!((d.user_allowed, d.user_denied, d.undecided), (1, 1, 0));

    assert_eq!(stats.turns.len(), 2);
    let t1 = &stats.turns[0];
    assert_eq!(t1.turn, 1);
    assert_eq!((t1.input_tokens, t1.output_tokens), (100, 20));
    assert_eq!((t1.cache_write_tokens, t1.cache_read_tokens), (5, 7));
    assert_eq!(
        t1.latency_ms,
        Some(240),
        "request at 1010, first text at 1250"
    );
    assert_eq!(t1.duration_ms, Some(690));
    assert_eq!(t1.tool_calls, 3);
    let t2 = &stats.turns[1];
    assert_eq!(t2.latency_ms, Some(400), "thinking counts as output");
    assert_eq!(t2.duration_ms, None, "no turn_completed");
    assert_eq!((t2.tool_calls, t2.input_tokens), (3, 300));
}

#[test]
fn imported_turns_take_latency_from_the_last_input() {
    let message = |turn| EventBody::AssistantMessage {
        turn,
        message_id: Some(format!("m{turn}")),
        content: vec![],
        stop_reason: "tool_use".into(),
    };
    // As the importer stores them: a message once complete, after its
    // calls were queued and had completed.
    let events = vec![
        ev(10_000, EventBody::UserPrompt { text: "hi".into() }),
        ev(13_000, queued("g", "Grep")),
        ev(13_000, queued("r", "Read")),
        ev(13_500, completed("g", false, 0)),
        ev(13_400, completed("r", false, 0)),
        ev(13_000, message(1)),
        ev(14_700, message(2)),
    ];
    let mut builder = SessionStatsBuilder::new("s1");
    for e in &events {
        builder.push(e);
    }
    let stats = builder.finish();
    let latencies: Vec<_> = stats.turns.iter().map(|t| t.latency_ms).collect();
    assert_eq!(latencies, [Some(3_000), Some(1_200)]);
    let turns: Vec<_> = stats.turns.iter().map(|t| (t.turn, t.tool_calls)).collect();
    assert_eq!(
        turns,
        [(1, 2), (2, 0)],
        "calls belong to the message after them"
    );
    assert_eq!(
        stats.decisions.undecided, 2,
        "imports may carry no decision"
    );
}

#[test]
fn stats_stream_from_a_real_database_and_unknown_sessions_fail_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    store
        .create_session(&NewSession {
            id: "s1".into(),
            project_path: "/p/one".into(),
            provider: "replay".into(),
            model: "opus".into(),
            mode: "default".into(),
        })
        .unwrap();
    for event in live_session() {
        store.append_event(&event).unwrap();
    }
    let stats = store.session_stats("s1").unwrap();
    assert_eq!(stats.tools.iter().map(|t| t.calls).sum::<u64>(), 6);
    assert_eq!(stats.turns.len(), 2);
    match store.session_stats("nope") {
        Err(StoreError::Invalid(message)) => assert!(message.contains("nope"), "{message}"),
        other => panic!("expected an error naming the session, got {other:?}"),
    }
}

#[test]
fn facets_list_projects_and_models_once_each() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    for (id, project, model) in [
        ("a", "/p/two", "opus"),
        ("b", "/p/one", "sonnet"),
        ("c", "/p/two", "opus"),
        ("d", "/p/one", ""),
    ] {
        store
            .create_session(&NewSession {
                id: id.into(),
                project_path: project.into(),
                provider: "replay".into(),
                model: model.into(),
                mode: "default".into(),
            })
            .unwrap();
    }
    let facets = store.session_facets().unwrap();
    assert_eq!(facets.projects, ["/p/one", "/p/two"]);
    assert_eq!(facets.models, ["opus", "sonnet"]);
}
