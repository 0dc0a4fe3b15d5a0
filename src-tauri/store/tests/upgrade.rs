//! Sessions stored by builds before issue 16 still open: their events are
//! upgraded as they are read (`tool_completed` without `status`, untyped
//! `tool_progress` data). The old rows are written literally into a real
//! SQLite file, as those builds wrote them.

#![allow(clippy::unwrap_used, clippy::expect_used)]
use gatehouse_protocol::event::{EventBody, ToolCallStatus};
use gatehouse_protocol::progress::ToolProgressData;
use gatehouse_store::{DATABASE_FILE, NewSession, Store};
use rusqlite::params;

/// Old rows: (type, tool_use_id, body JSON).
const OLD_ROWS: &[(&str, Option<&str>, &str)] = &[
    (
        "user_prompt",
        None,
        r#"{"session_id":"old","ts_ms":1000,"type":"user_prompt","text":"go"}"#,
    ),
    (
        "model_request_started",
        None,
        r#"{"session_id":"old","ts_ms":1001,"type":"model_request_started","turn":1,"messages":1}"#,
    ),
    // An Edit whose diff came as `{"type": "file_diff"}`, completed fine.
    (
        "tool_queued",
        Some("e"),
        r#"{"session_id":"old","ts_ms":1002,"type":"tool_queued","tool_use_id":"e","name":"Edit","input":{"file_path":"/p/a"}}"#,
    ),
    (
        "tool_progress",
        Some("e"),
        r#"{"session_id":"old","ts_ms":1003,"type":"tool_progress","tool_use_id":"e","data":{"type":"file_diff","diff":{"path":"/p/a","created":false,"hunks":[],"additions":1,"deletions":1}}}"#,
    ),
    (
        "tool_completed",
        Some("e"),
        r#"{"session_id":"old","ts_ms":1004,"type":"tool_completed","tool_use_id":"e","is_error":false,"content":[{"type":"text","text":"Cancelled: nothing, the file was updated"}],"duration_ms":2,"persisted_path":null}"#,
    ),
    // A Bash call denied by a rule.
    (
        "tool_queued",
        Some("d"),
        r#"{"session_id":"old","ts_ms":1005,"type":"tool_queued","tool_use_id":"d","name":"Bash","input":{"command":"rm -rf /"}}"#,
    ),
    (
        "permission_decided",
        Some("d"),
        r#"{"session_id":"old","ts_ms":1006,"type":"permission_decided","tool_use_id":"d","decision":"deny","reason":{"kind":"rule","rule":"Bash(rm:*)","source":"project","file":null},"trace":[]}"#,
    ),
    (
        "tool_completed",
        Some("d"),
        r#"{"session_id":"old","ts_ms":1007,"type":"tool_completed","tool_use_id":"d","is_error":true,"content":[{"type":"text","text":"Permission to use Bash was denied: rule Bash(rm:*)."}],"duration_ms":0,"persisted_path":null}"#,
    ),
    // A Bash call interrupted while it ran, its output streamed.
    (
        "tool_queued",
        Some("b"),
        r#"{"session_id":"old","ts_ms":1008,"type":"tool_queued","tool_use_id":"b","name":"Bash","input":{"command":"sleep 100"}}"#,
    ),
    (
        "tool_progress",
        Some("b"),
        r#"{"session_id":"old","ts_ms":1009,"type":"tool_progress","tool_use_id":"b","data":{"kind":"output","text":"tick\n","skipped_bytes":0,"total_bytes":5}}"#,
    ),
    (
        "tool_progress",
        Some("b"),
        r#"{"session_id":"old","ts_ms":1010,"type":"tool_progress","tool_use_id":"b","data":{"kind":"interrupted","message":"SIGTERM","output_path":"/s/b.log"}}"#,
    ),
    (
        "tool_completed",
        Some("b"),
        r#"{"session_id":"old","ts_ms":1011,"type":"tool_completed","tool_use_id":"b","is_error":true,"content":[{"type":"text","text":"Interrupted by the user: the call was stopped.\n\ntick"}],"duration_ms":9,"persisted_path":null}"#,
    ),
    // An MCP call with progress, timed out.
    (
        "tool_queued",
        Some("m"),
        r#"{"session_id":"old","ts_ms":1012,"type":"tool_queued","tool_use_id":"m","name":"mcp__build__run","input":{}}"#,
    ),
    (
        "tool_progress",
        Some("m"),
        r#"{"session_id":"old","ts_ms":1013,"type":"tool_progress","tool_use_id":"m","data":{"type":"mcp_progress","progress":1,"total":4,"message":"compiling"}}"#,
    ),
    (
        "tool_progress",
        Some("m"),
        r#"{"session_id":"old","ts_ms":1014,"type":"tool_progress","tool_use_id":"m","data":{"step":7}}"#,
    ),
    (
        "tool_completed",
        Some("m"),
        r#"{"session_id":"old","ts_ms":1015,"type":"tool_completed","tool_use_id":"m","is_error":true,"content":[{"type":"text","text":"Error: MCP server `build` did not answer within 60 s; the call was cancelled"}],"duration_ms":60000,"persisted_path":null}"#,
    ),
];

fn old_database() -> tempfile::TempDir {
    let data = tempfile::tempdir().unwrap();
    let store = Store::open(data.path()).unwrap();
    store
        .create_session(&NewSession {
            id: "old".into(),
            project_path: "/p".into(),
            provider: "replay".into(),
            model: "m".into(),
            mode: "default".into(),
        })
        .unwrap();
    drop(store);
    // Written as the old builds wrote them: verbatim JSON, never upgraded.
    let conn = rusqlite::Connection::open(data.path().join(DATABASE_FILE)).unwrap();
    for (seq, (kind, id, body)) in OLD_ROWS.iter().enumerate() {
        let v: serde_json::Value = serde_json::from_str(body).unwrap();
        conn.execute(
            "INSERT INTO session_events (session_id, seq, ts_ms, type, tool_use_id, tool_name, body, raw)
             VALUES ('old', ?1, ?2, ?3, ?4, NULL, ?5, NULL)",
            params![seq as i64 + 1, v["ts_ms"].as_i64(), kind, id, body],
        )
        .unwrap();
    }
    data
}

fn status_of(events: &[gatehouse_protocol::event::Event], id: &str) -> ToolCallStatus {
    events
        .iter()
        .find_map(|e| match &e.body {
            EventBody::ToolCompleted {
                tool_use_id,
                status,
                ..
            } if tool_use_id == id => Some(*status),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no tool_completed for {id}"))
}

#[test]
fn an_old_session_opens_with_statuses_and_typed_progress() {
    let data = old_database();
    let store = Store::open(data.path()).unwrap();
    let (events, skipped) = store.session_events("old").unwrap();
    assert_eq!(skipped, 0, "no old event is lost");
    assert_eq!(events.len(), OLD_ROWS.len());
    assert_eq!(status_of(&events, "e"), ToolCallStatus::Ok);
    assert_eq!(status_of(&events, "d"), ToolCallStatus::Denied);
    assert_eq!(status_of(&events, "b"), ToolCallStatus::Interrupted);
    assert_eq!(status_of(&events, "m"), ToolCallStatus::TimedOut);
    let progress: Vec<&ToolProgressData> = events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::ToolProgress { data, .. } => Some(data),
            _ => None,
        })
        .collect();
    assert!(
        matches!(progress[0], ToolProgressData::FileDiff { diff, .. } if diff.path == "/p/a"),
        "{progress:?}"
    );
    assert!(matches!(progress[1], ToolProgressData::BashOutput { text, .. } if text == "tick\n"));
    assert!(matches!(
        progress[2],
        ToolProgressData::BashInterrupted { .. }
    ));
    assert_eq!(
        *progress[3],
        ToolProgressData::mcp_progress(1.0, Some(4.0), Some("compiling".into()))
    );
    assert_eq!(
        *progress[4],
        ToolProgressData::Other {
            data: serde_json::json!({"step": 7})
        }
    );
    // Old `tool_queued` events read as not read-only.
    assert!(events.iter().all(|e| !matches!(
        e.body,
        EventBody::ToolQueued {
            read_only: true,
            ..
        }
    )));
}

#[test]
fn every_read_path_upgrades_old_events() {
    let data = old_database();
    let store = Store::open(data.path()).unwrap();
    // The tail a resumed session shows.
    let (tail, earlier) = store.session_events_tail("old", 3).unwrap();
    assert_eq!(
        earlier, 1,
        "the tail starts at the turn's start, after the prompt"
    );
    assert_eq!(status_of(&tail, "d"), ToolCallStatus::Denied);
    // The head, streaming (exports, stats) and single reads.
    let (head, skipped) = store.session_events_head("old", 100).unwrap();
    assert_eq!((head.len(), skipped), (OLD_ROWS.len(), 0));
    let mut streamed = Vec::new();
    let skipped = store
        .for_each_event("old", |e| {
            streamed.push(e);
            Ok(())
        })
        .unwrap();
    assert_eq!((streamed.len(), skipped), (OLD_ROWS.len(), 0));
    assert_eq!(status_of(&streamed, "b"), ToolCallStatus::Interrupted);
    let last = store
        .last_event_of_type("old", "tool_completed")
        .unwrap()
        .expect("the last tool_completed reads");
    assert!(matches!(
        last.body,
        EventBody::ToolCompleted {
            status: ToolCallStatus::TimedOut,
            ..
        }
    ));
    // Statistics count the refused call as a denial, not an error.
    let stats = store.session_stats("old").unwrap();
    let bash = stats.tools.iter().find(|t| t.name == "Bash").unwrap();
    assert_eq!((bash.calls, bash.denials), (2, 1));
}
