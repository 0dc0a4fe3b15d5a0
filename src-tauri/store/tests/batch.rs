//! Live events appended in batches (one transaction per batch, several
//! sessions), and search queries FTS5 cannot read, against real SQLite files.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use gatehouse_protocol::event::Event;
use gatehouse_protocol::session::SearchSessionsArgs;
use gatehouse_store::{NewSession, Store};
use serde_json::{Value, json};

fn ev(session: &str, body: Value) -> Event {
    let mut v = body;
    v["session_id"] = json!(session);
    v["ts_ms"] = json!(1_700_000_000_000u64);
    serde_json::from_value(v).unwrap()
}

fn open_with(dir: &std::path::Path, sessions: &[&str]) -> Store {
    let store = Store::open(dir).unwrap();
    for id in sessions {
        store
            .create_session(&NewSession {
                id: (*id).into(),
                project_path: "/p".into(),
                provider: "replay".into(),
                model: "m".into(),
                mode: "default".into(),
            })
            .unwrap();
    }
    store
}

fn call(session: &str, id: &str, command: &str, error: bool) -> Vec<Event> {
    vec![
        ev(
            session,
            json!({"type": "tool_queued", "tool_use_id": id, "name": "Bash",
                   "input": {"command": command}}),
        ),
        ev(
            session,
            json!({"type": "permission_decided", "tool_use_id": id, "decision": "allow",
                   "reason": {"kind": "mode", "mode": "bypassPermissions"}, "trace": []}),
        ),
        ev(
            session,
            json!({"type": "tool_completed", "tool_use_id": id, "is_error": error,
                   "status": if error { "error" } else { "ok" },
                   "content": [{"type": "text", "text": format!("ran {command}")}],
                   "duration_ms": 1}),
        ),
    ]
}

#[test]
fn a_batch_of_several_sessions_is_stored_in_order_with_counters_and_search() {
    let data = tempfile::tempdir().unwrap();
    let mut store = open_with(data.path(), &["a", "b"]);
    store
        .append_event(&ev("a", json!({"type": "user_prompt", "text": "first"})))
        .unwrap();
    let mut batch = vec![ev(
        "b",
        json!({"type": "user_prompt", "text": "tidy the wombat pen"}),
    )];
    batch.extend(call("a", "t1", "ls", false));
    batch.extend(call("b", "t2", "cat TODO-4917", true));
    batch.push(ev("a", json!({"type": "user_prompt", "text": "second"})));
    let refs: Vec<&Event> = batch.iter().collect();
    store.append_events(&refs).unwrap();

    let (a, _) = store.session_events("a").unwrap();
    let want_a: Vec<Event> =
        std::iter::once(ev("a", json!({"type": "user_prompt", "text": "first"})))
            .chain(batch.iter().filter(|e| e.session_id == "a").cloned())
            .collect();
    assert_eq!(
        a, want_a,
        "positions continue after the earlier event, in order"
    );
    let (b, _) = store.session_events("b").unwrap();
    assert_eq!(b.len(), 4);
    let sa = store.session("a").unwrap().unwrap();
    let sb = store.session("b").unwrap().unwrap();
    assert_eq!((sa.event_count, sa.tool_calls, sa.errors), (5, 1, 0));
    assert_eq!((sb.event_count, sb.tool_calls, sb.errors), (4, 1, 1));
    assert_eq!(sa.title.as_deref(), Some("first"));
    assert_eq!(sb.title.as_deref(), Some("tidy the wombat pen"));
    let hits = store.search_sessions("wombat", 10).unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!((hits[0].session_id.as_str(), hits[0].seq), ("b", 1));
}

#[test]
fn a_batch_with_an_event_of_an_unknown_session_stores_nothing() {
    let data = tempfile::tempdir().unwrap();
    let mut store = open_with(data.path(), &["a"]);
    let batch = [
        ev("a", json!({"type": "user_prompt", "text": "kept out"})),
        ev("nobody", json!({"type": "user_prompt", "text": "x"})),
    ];
    let refs: Vec<&Event> = batch.iter().collect();
    let err = store.append_events(&refs).unwrap_err();
    assert!(err.to_string().contains("nobody"), "{err}");
    assert_eq!(store.session("a").unwrap().unwrap().event_count, 0);
    assert!(store.session_events("a").unwrap().0.is_empty());
}

#[test]
fn a_query_that_is_not_fts5_syntax_is_searched_as_words_and_says_so() {
    let data = tempfile::tempdir().unwrap();
    let mut store = open_with(data.path(), &["a"]);
    let batch = call("a", "t1", "grep -n TODO-4917 src/main.rs", false);
    let refs: Vec<&Event> = batch.iter().collect();
    store.append_events(&refs).unwrap();
    for query in [
        "TODO-4917",
        "cargo(",
        "\"unterminated",
        "NEAR(",
        "a:b",
        "^-",
    ] {
        let args = SearchSessionsArgs {
            query: query.into(),
            ..Default::default()
        };
        let found = store
            .search_detailed(&args)
            .unwrap_or_else(|e| panic!("{query}: {e}"));
        assert!(
            found.as_words.is_some(),
            "{query} was not searched as words"
        );
        let shown = format!("{found:?}");
        assert!(
            !shown.contains("no such column") && !shown.contains("SQL logic error"),
            "{shown}"
        );
    }
    let hits = store
        .search_detailed(&SearchSessionsArgs {
            query: "TODO-4917".into(),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(hits.as_words.as_deref(), Some("\"TODO-4917\""));
    assert_eq!(hits.hits.len(), 2, "{:?}", hits.hits);
    // Valid FTS5 syntax is still FTS5 syntax.
    let valid = store
        .search_detailed(&SearchSessionsArgs {
            query: "grep AND src".into(),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(valid.as_words, None);
    assert!(!valid.hits.is_empty());
    // `search` (the app's command) gets the same fallback.
    assert_eq!(store.search_sessions("TODO-4917", 10).unwrap().len(), 2);
}

/// `append_checked`: the closure sees what is stored of a call and of a
/// source inside the write transaction; declining writes nothing, not even
/// the checkpoint; a source recorded once is not reset by a second record.
#[test]
fn a_checked_append_sees_the_call_and_the_source_and_may_write_nothing() {
    use gatehouse_store::{EventRecord, ImportCheckpoint};
    let dir = tempfile::tempdir().unwrap();
    let mut store = open_with(dir.path(), &["s"]);
    assert!(store.add_import_source("live:/t.jsonl", "s", "").unwrap());
    let record = |body: Value| EventRecord {
        event: ev("s", body),
        raw: None,
    };
    let queued = json!({"type": "tool_queued", "tool_use_id": "t1", "name": "Bash", "input": {}});
    let checkpoint = ImportCheckpoint {
        path: "live:/t.jsonl".into(),
        byte_offset: 40,
        line: 2,
        state: "{}".into(),
    };
    let n = store
        .append_checked("s", Some(&checkpoint), |lookup| {
            assert_eq!(lookup.import_offset("live:/t.jsonl")?, Some(0));
            assert!(lookup.call_event_types("t1")?.is_empty());
            Ok(Some(vec![record(queued.clone())]))
        })
        .unwrap();
    assert_eq!(n, Some(1));
    let later = ImportCheckpoint {
        byte_offset: 80,
        ..checkpoint
    };
    let declined = store
        .append_checked("s", Some(&later), |lookup| {
            assert_eq!(lookup.call_event_types("t1")?, ["tool_queued"]);
            assert_eq!(lookup.import_offset("live:/t.jsonl")?, Some(40));
            Ok(None)
        })
        .unwrap();
    assert_eq!(declined, None);
    assert_eq!(store.session_events("s").unwrap().0.len(), 1);
    assert_eq!(
        store
            .import_record("live:/t.jsonl")
            .unwrap()
            .unwrap()
            .byte_offset,
        40
    );
    // Recorded already: left as it is.
    assert!(!store.add_import_source("live:/t.jsonl", "s", "").unwrap());
    assert_eq!(
        store
            .import_record("live:/t.jsonl")
            .unwrap()
            .unwrap()
            .byte_offset,
        40
    );
    let listed = store.import_records_with_prefix("live:", 10).unwrap();
    assert_eq!(listed.len(), 1);
    assert!(listed[0].1, "the session is running");
    assert!(
        store
            .import_records_with_prefix("other:", 10)
            .unwrap()
            .is_empty()
    );
}
