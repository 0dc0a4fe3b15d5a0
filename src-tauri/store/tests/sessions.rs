//! Sessions and events against real SQLite files.

use gatehouse_protocol::event::{ContentBlock, Event, EventBody, SessionStatus};
use gatehouse_store::{NewSession, Store, StoreError};
use serde_json::json;

fn new_session(id: &str) -> NewSession {
    NewSession {
        id: id.into(),
        project_path: "/p".into(),
        provider: "replay".into(),
        model: "m".into(),
        mode: "default".into(),
    }
}

fn ev(session: &str, body: EventBody) -> Event {
    Event {
        session_id: session.into(),
        ts_ms: 1_700_000_000_000,
        body,
    }
}

#[test]
fn events_are_appended_in_order_survive_reopening_and_are_searchable() {
    let data = tempfile::tempdir().unwrap();
    {
        let mut store = Store::open(data.path()).unwrap();
        store.create_session(&new_session("s1")).unwrap();
        let events = [
            EventBody::UserPrompt {
                text: "find the flaky parser test".into(),
            },
            EventBody::ToolQueued {
                tool_use_id: "t1".into(),
                name: "Grep".into(),
                input: json!({"pattern": "zanzibar"}),
                read_only: false,
            },
            EventBody::ToolCompleted {
                tool_use_id: "t1".into(),
                status: gatehouse_protocol::event::ToolCallStatus::Ok,
                is_error: false,
                content: vec![ContentBlock::Text {
                    text: "src/quokka.rs:3: fn main".into(),
                }],
                duration_ms: 3,
                persisted_path: None,
            },
            EventBody::SessionCompleted {
                status: SessionStatus::Completed,
                turns: 1,
            },
        ];
        for (i, body) in events.into_iter().enumerate() {
            let seq = store.append_event(&ev("s1", body)).unwrap();
            assert_eq!(seq, i as i64 + 1);
        }
    }
    let store = Store::open(data.path()).unwrap();
    let (events, skipped) = store.session_events("s1").unwrap();
    assert_eq!(skipped, 0);
    assert_eq!(events.len(), 4);
    assert!(matches!(&events[1].body, EventBody::ToolQueued { name, .. } if name == "Grep"));
    // The first events only (what a resumed handle's tail leaves out).
    let (head, _) = store.session_events_head("s1", 2).unwrap();
    assert_eq!(head, events[..2]);
    assert_eq!(store.session_events_head("s1", 99).unwrap().0, events);
    assert!(store.session_events_head("s1", 0).unwrap().0.is_empty());
    let s = store.session("s1").unwrap().unwrap();
    assert_eq!(s.status, "completed");
    assert_eq!(s.event_count, 4);
    assert_eq!(s.title.as_deref(), Some("find the flaky parser test"));
    assert_eq!(store.list_sessions(Some("/p")).unwrap().len(), 1);
    assert!(store.list_sessions(Some("/q")).unwrap().is_empty());

    let hits = store.search_sessions("zanzibar", 10).unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!((hits[0].seq, hits[0].kind.as_str()), (2, "tool_queued"));
    assert!(
        hits[0].snippet.contains("[zanzibar]"),
        "{}",
        hits[0].snippet
    );
    let hits = store.search_sessions("quokka", 10).unwrap();
    assert_eq!(hits[0].kind, "tool_completed");
    assert_eq!(store.search_sessions("flaky parser", 10).unwrap()[0].seq, 1);
}

#[test]
fn events_of_unknown_sessions_are_refused_and_events_cannot_be_rewritten() {
    let data = tempfile::tempdir().unwrap();
    let mut store = Store::open(data.path()).unwrap();
    let err = store
        .append_event(&ev("nope", EventBody::UserPrompt { text: "x".into() }))
        .unwrap_err();
    assert!(
        matches!(err, StoreError::Invalid(ref m) if m.contains("nope")),
        "{err}"
    );
    store.create_session(&new_session("s")).unwrap();
    store
        .append_event(&ev("s", EventBody::UserPrompt { text: "x".into() }))
        .unwrap();
    drop(store);
    let conn = rusqlite::Connection::open(data.path().join("gatehouse.sqlite3")).unwrap();
    let err = conn
        .execute("UPDATE session_events SET body = '{}'", [])
        .unwrap_err();
    assert!(err.to_string().contains("append-only"), "{err}");
}

#[test]
fn a_long_sessions_tail_starts_at_a_turn_boundary_and_counts_what_comes_before() {
    let data = tempfile::tempdir().unwrap();
    let mut store = Store::open(data.path()).unwrap();
    store.create_session(&new_session("long")).unwrap();
    let mut bodies = vec![EventBody::UserPrompt { text: "go".into() }];
    for n in 1..=400u32 {
        bodies.push(EventBody::ModelRequestStarted {
            turn: n,
            messages: 1,
        });
        bodies.push(EventBody::ToolQueued {
            tool_use_id: format!("t{n}"),
            name: "Read".into(),
            input: json!({}),
            read_only: false,
        });
        bodies.push(EventBody::ToolCompleted {
            tool_use_id: format!("t{n}"),
            status: gatehouse_protocol::event::ToolCallStatus::Ok,
            is_error: false,
            content: Vec::new(),
            duration_ms: 1,
            persisted_path: None,
        });
    }
    let records: Vec<gatehouse_store::EventRecord> = bodies
        .into_iter()
        .map(|body| gatehouse_store::EventRecord {
            event: ev("long", body),
            raw: None,
        })
        .collect();
    store.append_batch("long", &records, None).unwrap();
    let (all, _) = store.session_events("long").unwrap();
    let (tail, earlier) = store.session_events_tail("long", 100).unwrap();
    assert!(
        matches!(tail[0].body, EventBody::ModelRequestStarted { .. }),
        "a turn starts the tail"
    );
    assert!(tail.len() >= 100 && tail.len() < 103, "{}", tail.len());
    assert_eq!(earlier as usize + tail.len(), all.len());
    assert_eq!(tail[..], all[earlier as usize..]);
    // The head and the tail make the whole session.
    let (head, _) = store.session_events_head("long", earlier).unwrap();
    assert_eq!([head, tail].concat(), all);
    // A short session is handed over whole.
    let (whole, none) = store.session_events_tail("long", 5_000).unwrap();
    assert_eq!((whole.len(), none), (all.len(), 0));
    assert!(
        store
            .last_event_of_type("long", "mode_changed")
            .unwrap()
            .is_none()
    );
    assert!(matches!(
        store.last_event_of_type("long", "tool_queued").unwrap().map(|e| e.body),
        Some(EventBody::ToolQueued { tool_use_id, .. }) if tool_use_id == "t400"
    ));
}

/// Issue 17, bad input: a stored session with an event this build cannot
/// read (a newer Gatehouse wrote it) is read without it, and the reader
/// learns where it was — so it can say so, and a search hit's position
/// still finds its own event.
#[test]
fn events_this_build_cannot_read_are_skipped_and_their_positions_reported() {
    let data = tempfile::tempdir().unwrap();
    let mut store = Store::open(data.path()).unwrap();
    store.create_session(&new_session("s")).unwrap();
    store
        .append_event(&ev("s", EventBody::UserPrompt { text: "one".into() }))
        .unwrap();
    drop(store);
    // Position 2: an event type from the future, written as a newer build
    // would (the store's own API cannot write one).
    let conn = rusqlite::Connection::open(data.path().join("gatehouse.sqlite3")).unwrap();
    conn.execute(
        "INSERT INTO session_events (session_id, seq, ts_ms, type, body)
         VALUES ('s', 2, 2, 'from_the_future', '{\"session_id\":\"s\",\"ts_ms\":2,\"type\":\"from_the_future\"}')",
        [],
    )
    .unwrap();
    drop(conn);
    let mut store = Store::open(data.path()).unwrap();
    store
        .append_event(&ev(
            "s",
            EventBody::UserPrompt {
                text: "three".into(),
            },
        ))
        .unwrap();

    let read = store.stored_events("s", None).unwrap();
    assert_eq!(read.events.len(), 2);
    assert_eq!(read.unreadable_seqs, [2]);
    assert_eq!(read.unreadable, 1);
    let head = store.stored_events("s", Some(2)).unwrap();
    assert_eq!(head.events.len(), 1);
    assert_eq!(head.unreadable_seqs, [2]);
}
