//! The session browser's store side against real SQLite files: counters,
//! filters and sorts, search, deletion, retention, disk usage, imports.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use gatehouse_protocol::event::{ContentBlock, Event, EventBody, SessionErrorKind};
use gatehouse_protocol::permission::{DecisionReason, PermissionBehavior, PermissionMode};
use gatehouse_protocol::session::{
    ListSessionsArgs, PermissionAnswer, SearchSessionsArgs, SessionOrigin, SessionSort,
};
use gatehouse_store::{EventRecord, ImportCheckpoint, NewSession, SessionProvenance, Store};
use serde_json::json;

fn new_session(id: &str, project: &str, model: &str) -> NewSession {
    NewSession {
        id: id.into(),
        project_path: project.into(),
        provider: "replay".into(),
        model: model.into(),
        mode: "default".into(),
    }
}

fn ev(session: &str, ts_ms: u64, body: EventBody) -> Event {
    Event {
        session_id: session.into(),
        ts_ms,
        body,
    }
}

fn queued(id: &str, name: &str, input: serde_json::Value) -> EventBody {
    EventBody::ToolQueued {
        tool_use_id: id.into(),
        name: name.into(),
        input,
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

fn completed(id: &str, is_error: bool, text: &str) -> EventBody {
    EventBody::ToolCompleted {
        tool_use_id: id.into(),
        status: if is_error {
            gatehouse_protocol::event::ToolCallStatus::Error
        } else {
            gatehouse_protocol::event::ToolCallStatus::Ok
        },
        is_error,
        content: vec![ContentBlock::Text { text: text.into() }],
        duration_ms: 1,
        persisted_path: None,
    }
}

/// A session with one allowed call that failed, one call denied by a rule,
/// one call asked and denied by the user, a session error and usage.
fn record_eventful_session(store: &mut Store, id: &str, project: &str) {
    store
        .create_session(&new_session(id, project, "opus"))
        .unwrap();
    let t = 1_700_000_000_000;
    let bodies = vec![
        EventBody::UserPrompt {
            text: "tidy the capybara module".into(),
        },
        queued("a", "Bash", json!({"command": "cargo test"})),
        decided("a", PermissionBehavior::Allow),
        completed("a", true, "test failed: ocelot mismatch"),
        queued("b", "Bash", json!({"command": "rm -rf target"})),
        decided("b", PermissionBehavior::Deny),
        completed("b", true, "denied by rule"),
        queued("c", "Write", json!({"file_path": "/p/x"})),
        decided("c", PermissionBehavior::Ask),
        EventBody::PermissionAnswered {
            tool_use_id: "c".into(),
            answer: PermissionAnswer::Deny {
                feedback: Some("not the narwhal file".into()),
            },
        },
        completed("c", true, "the user refused"),
        EventBody::AssistantMessage {
            turn: 1,
            message_id: None,
            content: vec![
                json!({"type": "thinking", "thinking": "maybe the axolotl helper"}),
                json!({"type": "text", "text": "Done."}),
            ],
            stop_reason: "end_turn".into(),
        },
        EventBody::Usage {
            turn: 1,
            input_tokens: 100,
            output_tokens: 40,
            cache_creation_input_tokens: 5,
            cache_read_input_tokens: 7,
        },
        EventBody::SessionError {
            kind: SessionErrorKind::Network,
            message: "connection reset".into(),
            recoverable: true,
        },
    ];
    for (i, body) in bodies.into_iter().enumerate() {
        store
            .append_event(&ev(id, t + i as u64 * 1000, body))
            .unwrap();
    }
}

#[test]
fn summaries_count_calls_asks_denials_errors_tokens_and_duration_as_events_arrive() {
    let data = tempfile::tempdir().unwrap();
    let mut store = Store::open(data.path()).unwrap();
    record_eventful_session(&mut store, "s1", "/p");
    drop(store);
    let store = Store::open(data.path()).unwrap();
    let s = store.session("s1").unwrap().unwrap();
    assert_eq!(s.origin, SessionOrigin::Gatehouse);
    assert_eq!(s.tool_calls, 3);
    assert_eq!(s.asks, 1);
    assert_eq!(s.denials, 2, "one by rule, one by the user");
    assert_eq!(
        s.errors, 2,
        "the failed test and the session error; refusals are not errors"
    );
    assert_eq!((s.input_tokens, s.output_tokens), (112, 40));
    assert_eq!(s.duration_ms, 13_000);
    assert_eq!(s.event_count, 14);
    assert_eq!(s.title.as_deref(), Some("tidy the capybara module"));
}

#[test]
fn lists_filter_by_project_date_model_denials_errors_and_origin_and_sort() {
    let data = tempfile::tempdir().unwrap();
    let mut store = Store::open(data.path()).unwrap();
    record_eventful_session(&mut store, "busy", "/p");
    store
        .create_session(&new_session("quiet", "/q", "haiku"))
        .unwrap();
    store
        .append_event(&ev(
            "quiet",
            1,
            EventBody::UserPrompt {
                text: "hello".into(),
            },
        ))
        .unwrap();
    store
        .create_session_with(
            &new_session("cc-old", "/p", "sonnet"),
            &SessionProvenance {
                origin: SessionOrigin::ClaudeCode,
                created_at_ms: Some(1_000),
                parent_session_id: None,
                source_path: Some("/home/u/.claude/projects/p/old.jsonl".into()),
            },
        )
        .unwrap();

    let ids = |args: ListSessionsArgs| -> Vec<String> {
        store
            .query_sessions(&args)
            .unwrap()
            .into_iter()
            .map(|s| s.id)
            .collect()
    };
    assert_eq!(
        ids(ListSessionsArgs {
            project_path: Some("/p".into()),
            sort: Some(SessionSort::Started),
            ..Default::default()
        }),
        ["busy", "cc-old"]
    );
    assert_eq!(
        ids(ListSessionsArgs {
            had_denials: Some(true),
            ..Default::default()
        }),
        ["busy"]
    );
    assert_eq!(
        ids(ListSessionsArgs {
            had_errors: Some(false),
            sort: Some(SessionSort::Started),
            ascending: Some(true),
            ..Default::default()
        }),
        ["cc-old", "quiet"]
    );
    assert_eq!(
        ids(ListSessionsArgs {
            model: Some("haiku".into()),
            ..Default::default()
        }),
        ["quiet"]
    );
    assert_eq!(
        ids(ListSessionsArgs {
            origin: Some(SessionOrigin::ClaudeCode),
            ..Default::default()
        }),
        ["cc-old"]
    );
    assert_eq!(
        ids(ListSessionsArgs {
            since_ms: Some(500),
            until_ms: Some(2_000),
            ..Default::default()
        }),
        ["cc-old"]
    );
    assert_eq!(
        ids(ListSessionsArgs {
            sort: Some(SessionSort::ToolCalls),
            limit: Some(1),
            ..Default::default()
        }),
        ["busy"]
    );
    let imported = store.session("cc-old").unwrap().unwrap();
    assert_eq!(
        imported.source_path.as_deref(),
        Some("/home/u/.claude/projects/p/old.jsonl")
    );
    assert_eq!(imported.created_at_ms, 1_000);
}

#[test]
fn search_covers_thinking_feedback_and_results_with_filters_titles_and_tool_names() {
    let data = tempfile::tempdir().unwrap();
    let mut store = Store::open(data.path()).unwrap();
    record_eventful_session(&mut store, "s1", "/p");
    record_eventful_session(&mut store, "s2", "/q");

    let hits = store.search_sessions("axolotl", 10).unwrap();
    assert_eq!(hits.len(), 2, "{hits:?}");
    assert_eq!(hits[0].kind, "assistant_message");
    assert!(hits[0].snippet.contains("[axolotl]"), "{}", hits[0].snippet);

    let narwhal = store
        .search(&SearchSessionsArgs {
            query: "narwhal".into(),
            project_path: Some("/q".into()),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(narwhal.len(), 1);
    assert_eq!(
        (
            narwhal[0].session_id.as_str(),
            narwhal[0].seq,
            narwhal[0].kind.as_str()
        ),
        ("s2", 10, "permission_answered")
    );
    assert_eq!(narwhal[0].tool_name.as_deref(), Some("Write"));
    assert_eq!(
        narwhal[0].session_title.as_deref(),
        Some("tidy the capybara module")
    );

    let ocelot = store
        .search(&SearchSessionsArgs {
            query: "ocelot".into(),
            session_id: Some("s1".into()),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(ocelot.len(), 1);
    assert_eq!(
        (ocelot[0].seq, ocelot[0].kind.as_str()),
        (4, "tool_completed")
    );
    assert_eq!(ocelot[0].tool_name.as_deref(), Some("Bash"));

    // A query FTS5 cannot read is searched as the words (issue 16 item 11);
    // the literal mode always searches the words.
    let words = store
        .search_detailed(&SearchSessionsArgs {
            query: "cargo(".into(),
            session_id: Some("s1".into()),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(words.as_words.as_deref(), Some("\"cargo(\""));
    assert!(
        words.hits.iter().any(|h| h.kind == "tool_queued"),
        "{words:?}"
    );
    let literal = store
        .search(&SearchSessionsArgs {
            query: "\"cargo test\"".into(),
            literal: Some(true),
            session_id: Some("s1".into()),
            ..Default::default()
        })
        .unwrap();
    assert!(
        literal.iter().any(|h| h.kind == "tool_queued"),
        "{literal:?}"
    );
    assert!(store.search_sessions("   ", 10).is_err());
}

#[test]
fn deleting_a_session_removes_its_events_index_entries_children_and_files() {
    let data = tempfile::tempdir().unwrap();
    let mut store = Store::open(data.path()).unwrap();
    record_eventful_session(&mut store, "keep", "/p");
    record_eventful_session(&mut store, "gone", "/p");
    store
        .create_session_with(
            &new_session("gone-agent", "/p", "m"),
            &SessionProvenance {
                origin: SessionOrigin::ClaudeCode,
                parent_session_id: Some("gone".into()),
                ..Default::default()
            },
        )
        .unwrap();
    let dir = store.session_dir("gone").unwrap();
    std::fs::create_dir_all(dir.join("tool-results")).unwrap();
    std::fs::write(dir.join("tool-results").join("a.txt"), "big").unwrap();
    let keep_dir = store.session_dir("keep").unwrap();
    std::fs::create_dir_all(&keep_dir).unwrap();

    let deleted = store.delete_session("gone").unwrap();
    assert_eq!(deleted, ["gone", "gone-agent"]);
    assert!(!dir.exists());
    assert!(keep_dir.exists());
    assert!(store.session("gone").unwrap().is_none());
    assert!(store.session_events("gone").unwrap().0.is_empty());
    let hits = store.search_sessions("ocelot", 10).unwrap();
    assert_eq!(hits.len(), 1, "the index forgets the deleted session");
    assert_eq!(hits[0].session_id, "keep");
    assert!(store.delete_session("never").unwrap().is_empty());
    assert!(store.session_dir("../etc").is_err());
}

#[test]
fn retention_deletes_long_inactive_sessions_even_if_never_completed_and_is_remembered() {
    let data = tempfile::tempdir().unwrap();
    {
        let mut store = Store::open(data.path()).unwrap();
        assert_eq!(store.retention_days().unwrap(), None);
        assert!(store.apply_retention().unwrap().is_empty());
        store.set_retention_days(Some(30)).unwrap();
        assert!(store.set_retention_days(Some(0)).is_err());
        // An imported session from long ago (its activity time is its events').
        store
            .create_session_with(
                &new_session("ancient", "/p", "m"),
                &SessionProvenance {
                    origin: SessionOrigin::ClaudeCode,
                    created_at_ms: Some(1_000),
                    ..Default::default()
                },
            )
            .unwrap();
        store
            .append_batch(
                "ancient",
                &[EventRecord {
                    event: ev(
                        "ancient",
                        2_000,
                        EventBody::SessionCompleted {
                            status: gatehouse_protocol::event::SessionStatus::Completed,
                            turns: 1,
                        },
                    ),
                    raw: None,
                }],
                Some(&ImportCheckpoint {
                    path: "/x/ancient.jsonl".into(),
                    byte_offset: 10,
                    line: 1,
                    state: "{}".into(),
                }),
            )
            .unwrap();
        record_eventful_session(&mut store, "fresh", "/p");
        // A live session killed long ago never completed: still "running".
        store
            .create_session_with(
                &new_session("crashed", "/p", "m"),
                &SessionProvenance {
                    created_at_ms: Some(3_000),
                    ..Default::default()
                },
            )
            .unwrap();
    }
    let mut store = Store::open(data.path()).unwrap();
    assert_eq!(store.retention_days().unwrap(), Some(30));
    assert_eq!(store.session("crashed").unwrap().unwrap().status, "running");
    assert_eq!(store.apply_retention().unwrap(), ["ancient", "crashed"]);
    assert!(store.session("fresh").unwrap().is_some());
    assert!(
        store.import_record("/x/ancient.jsonl").unwrap().is_none(),
        "the import record goes with the session"
    );
    store.set_retention_days(None).unwrap();
    assert_eq!(store.retention_days().unwrap(), None);
}

#[test]
fn storage_usage_counts_database_and_files_and_vacuum_reclaims_space() {
    let data = tempfile::tempdir().unwrap();
    let mut store = Store::open(data.path()).unwrap();
    for i in 0..20 {
        let id = format!("s{i}");
        store.create_session(&new_session(&id, "/p", "m")).unwrap();
        let big = "lorem ipsum ".repeat(2000);
        for n in 0..10 {
            store
                .append_event(&ev(&id, n, completed("t", false, &big)))
                .unwrap();
        }
    }
    let dir = store.session_dir("s0").unwrap().join("tool-results");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("t.txt"), vec![b'x'; 4096]).unwrap();
    let before = store.storage_usage().unwrap();
    assert_eq!((before.sessions, before.events), (20, 200));
    assert_eq!(before.session_files_bytes, 4096);
    assert!(
        before.database_bytes + before.wal_bytes > 1_000_000,
        "{before:?}"
    );

    for i in 1..20 {
        store.delete_session(&format!("s{i}")).unwrap();
    }
    store.vacuum(0).unwrap();
    let after = store.storage_usage().unwrap();
    assert_eq!((after.sessions, after.events), (1, 10));
    assert_eq!(after.reclaimable_bytes, 0);
    assert_eq!(after.wal_bytes, 0, "the WAL is truncated");
    assert!(
        after.database_bytes * 5 < before.database_bytes + before.wal_bytes,
        "{before:?} → {after:?}"
    );
}

#[test]
fn batches_append_in_order_with_their_checkpoint_and_refuse_other_sessions_events() {
    let data = tempfile::tempdir().unwrap();
    let mut store = Store::open(data.path()).unwrap();
    store
        .create_session_with(
            &new_session("imp", "/p", ""),
            &SessionProvenance {
                origin: SessionOrigin::ClaudeCode,
                created_at_ms: Some(5_000),
                ..Default::default()
            },
        )
        .unwrap();
    let records: Vec<EventRecord> = (0..3)
        .map(|i| EventRecord {
            event: ev(
                "imp",
                5_000 + i * 10,
                queued(&format!("t{i}"), "Read", json!({"file_path": "/a"})),
            ),
            raw: Some(r#"{"uuid":"u"}"#.into()),
        })
        .collect();
    let cp = ImportCheckpoint {
        path: "/h/.claude/projects/p/imp.jsonl".into(),
        byte_offset: 1234,
        line: 3,
        state: r#"{"turn":1}"#.into(),
    };
    assert_eq!(store.append_batch("imp", &records, Some(&cp)).unwrap(), 3);
    store.set_session_model("imp", "opus").unwrap();
    let rec = store.import_record(&cp.path).unwrap().unwrap();
    assert_eq!(
        (
            rec.session_id.as_str(),
            rec.byte_offset,
            rec.line,
            rec.state.as_str()
        ),
        ("imp", 1234, 3, r#"{"turn":1}"#)
    );
    let s = store.session("imp").unwrap().unwrap();
    assert_eq!(
        (s.tool_calls, s.duration_ms, s.model.as_str()),
        (3, 20, "opus")
    );
    assert_eq!(
        s.updated_at_ms, 5_020,
        "imports are as recent as their events"
    );
    assert_eq!(
        store.queued_tool_name("imp", "t1").unwrap().as_deref(),
        Some("Read")
    );

    let stray = [EventRecord {
        event: ev("other", 1, EventBody::UserPrompt { text: "x".into() }),
        raw: None,
    }];
    assert!(store.append_batch("imp", &stray, None).is_err());
    let bad_id = store.create_session_with(
        &new_session("../../etc", "/p", "m"),
        &SessionProvenance {
            origin: SessionOrigin::ClaudeCode,
            ..Default::default()
        },
    );
    assert!(bad_id.is_err());
    let dup = store
        .create_session_with(
            &new_session("imp", "/p", "m"),
            &SessionProvenance {
                origin: SessionOrigin::ClaudeCode,
                ..Default::default()
            },
        )
        .unwrap_err();
    assert!(dup.to_string().contains("already stored"), "{dup}");
}

#[test]
fn lists_return_100_sessions_unless_asked_for_more() {
    let data = tempfile::tempdir().unwrap();
    let store = Store::open(data.path()).unwrap();
    for i in 0..101 {
        store
            .create_session(&new_session(&format!("s{i:03}"), "/p", "m"))
            .unwrap();
    }
    assert_eq!(
        store
            .query_sessions(&ListSessionsArgs::default())
            .unwrap()
            .len(),
        100
    );
    assert_eq!(store.list_sessions(None).unwrap().len(), 101);
    let all = ListSessionsArgs {
        limit: Some(1000),
        ..Default::default()
    };
    assert_eq!(store.query_sessions(&all).unwrap().len(), 101);
}
