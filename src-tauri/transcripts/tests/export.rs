//! Exporting sessions as Gatehouse JSONL (and importing it back) and as a
//! self-contained HTML page, against real SQLite files.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use gatehouse_protocol::event::{Event, EventBody, ToolCallStatus};
use gatehouse_protocol::progress::ToolProgressData;
use gatehouse_store::{NewSession, Store};
use gatehouse_transcripts::{claude, html, jsonl};

fn store_with_fixture(data: &Path, name: &str) -> (Store, String, tempfile::TempDir) {
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join(".claude/projects/p");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(name),
        project.join(name),
    )
    .unwrap();
    let mut store = Store::open(data).unwrap();
    let found = claude::discover(home.path()).unwrap();
    let report = claude::import_transcripts(&mut store, &found, |_| {})
        .pop()
        .unwrap()
        .unwrap();
    (store, report.session_id, home)
}

#[test]
fn jsonl_exports_round_trip_through_import() {
    let data = tempfile::tempdir().unwrap();
    let (mut store, id, _home) = store_with_fixture(data.path(), "basic.jsonl");
    let before = store.session(&id).unwrap().unwrap();
    let (events_before, _) = store.session_events(&id).unwrap();

    let file = data.path().join("export.jsonl");
    let mut out = std::fs::File::create(&file).unwrap();
    let written = jsonl::export_jsonl(&store, &id, &mut out).unwrap();
    drop(out);
    assert_eq!(written, events_before.len() as u64);
    let text = std::fs::read_to_string(&file).unwrap();
    let first: Event = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(first, events_before[0], "each line is one event");

    // Importing under the same id is refused while the session exists.
    let err = jsonl::import_jsonl(&mut store, &file, None).unwrap_err();
    assert!(err.to_string().contains("already stored"), "{err}");

    // Under a new id: the same events and counters.
    let copy = jsonl::import_jsonl(&mut store, &file, Some("copy-1")).unwrap();
    assert_eq!((copy.events, copy.skipped_lines), (written, 0));
    let (events_copy, _) = store.session_events("copy-1").unwrap();
    assert_eq!(events_copy.len(), events_before.len());
    for (a, b) in events_before.iter().zip(&events_copy) {
        assert_eq!(a.body, b.body);
        assert_eq!(a.ts_ms, b.ts_ms);
        assert_eq!(b.session_id, "copy-1");
    }
    let after = store.session("copy-1").unwrap().unwrap();
    assert_eq!(
        (
            after.tool_calls,
            after.asks,
            after.denials,
            after.errors,
            after.input_tokens,
            after.output_tokens,
            after.duration_ms,
            after.created_at_ms,
            after.project_path.as_str(),
            after.model.as_str(),
            after.title.as_deref()
        ),
        (
            before.tool_calls,
            before.asks,
            before.denials,
            before.errors,
            before.input_tokens,
            before.output_tokens,
            before.duration_ms,
            before.created_at_ms,
            before.project_path.as_str(),
            before.model.as_str(),
            before.title.as_deref()
        )
    );

    // After deleting the original, it comes back under its own id.
    store.delete_session(&id).unwrap();
    let back = jsonl::import_jsonl(&mut store, &file, None).unwrap();
    assert_eq!(back.session_id, id);
    assert_eq!(store.session_events(&id).unwrap().0, events_before);
}

#[test]
fn jsonl_import_keeps_unknown_event_types_and_reports_bad_lines() {
    let data = tempfile::tempdir().unwrap();
    let mut store = Store::open(data.path()).unwrap();
    let file = data.path().join("in.jsonl");
    std::fs::write(
        &file,
        concat!(
            r#"{"session_id":"g1","ts_ms":10,"type":"session_started","provider":"replay","model":"m","project":"/p","resumed":false}"#, "\n",
            r#"{"session_id":"g1","ts_ms":11,"type":"user_prompt","text":"hello"}"#, "\n",
            "not json\n",
            r#"{"session_id":"other","ts_ms":12,"type":"user_prompt","text":"stray"}"#, "\n",
            r#"{"session_id":"g1","ts_ms":13,"type":"teleport_started","where":"mars"}"#, "\n",
        ),
    )
    .unwrap();
    let report = jsonl::import_jsonl(&mut store, &file, None).unwrap();
    assert_eq!((report.events, report.skipped_lines), (3, 2));
    assert_eq!(
        report.problems.iter().map(|p| p.line).collect::<Vec<_>>(),
        [3, 4]
    );
    assert!(report.problems[1].message.contains("other"));
    let (events, _) = store.session_events("g1").unwrap();
    assert!(matches!(
        &events[2].body,
        EventBody::ImportedEntry { source, entry_type, raw, .. }
            if source == "gatehouse" && entry_type == "teleport_started" && raw["where"] == "mars"
    ));
    let s = store.session("g1").unwrap().unwrap();
    assert_eq!((s.model.as_str(), s.project_path.as_str()), ("m", "/p"));

    let empty = data.path().join("empty.jsonl");
    std::fs::write(&empty, "\n").unwrap();
    assert!(jsonl::import_jsonl(&mut store, &empty, None).is_err());
    let bad_id = data.path().join("bad.jsonl");
    std::fs::write(
        &bad_id,
        r#"{"session_id":"../x","ts_ms":1,"type":"user_prompt","text":"x"}"#,
    )
    .unwrap();
    assert!(jsonl::import_jsonl(&mut store, &bad_id, None).is_err());
}

/// A JSONL export of a build before issue 16 (no `status`, progress tagged
/// by `type`) imports with its statuses derived and its progress typed,
/// instead of its calls turning into `imported_entry` rows.
#[test]
fn an_old_jsonl_export_imports_upgraded() {
    let data = tempfile::tempdir().unwrap();
    let mut store = Store::open(data.path()).unwrap();
    let file = data.path().join("old.jsonl");
    std::fs::write(
        &file,
        concat!(
            r#"{"session_id":"g2","ts_ms":10,"type":"session_started","provider":"replay","model":"m","project":"/p","resumed":false}"#, "\n",
            r#"{"session_id":"g2","ts_ms":11,"type":"tool_queued","tool_use_id":"w","name":"Write","input":{"file_path":"/p/a"}}"#, "\n",
            r#"{"session_id":"g2","ts_ms":12,"type":"tool_progress","tool_use_id":"w","data":{"type":"file_diff","diff":{"path":"/p/a","created":true,"hunks":[],"additions":1,"deletions":0}}}"#, "\n",
            r#"{"session_id":"g2","ts_ms":13,"type":"tool_completed","tool_use_id":"w","is_error":false,"content":[{"type":"text","text":"File created"}],"duration_ms":1,"persisted_path":null}"#, "\n",
            r#"{"session_id":"g2","ts_ms":14,"type":"tool_queued","tool_use_id":"x","name":"Bash","input":{"command":"ls"}}"#, "\n",
            r#"{"session_id":"g2","ts_ms":15,"type":"tool_completed","tool_use_id":"x","is_error":true,"content":[{"type":"text","text":"Cancelled: parallel tool call y (Bash) failed, so this call was stopped."}],"duration_ms":1,"persisted_path":null}"#, "\n",
        ),
    )
    .unwrap();
    let report = jsonl::import_jsonl(&mut store, &file, None).unwrap();
    assert_eq!((report.events, report.skipped_lines), (6, 0));
    let (events, skipped) = store.session_events("g2").unwrap();
    assert_eq!(skipped, 0);
    assert!(
        events
            .iter()
            .all(|e| !matches!(e.body, EventBody::ImportedEntry { .. })),
        "{events:?}"
    );
    assert!(matches!(
        &events[2].body,
        EventBody::ToolProgress {
            data: ToolProgressData::FileDiff { diff, .. },
            ..
        } if diff.created
    ));
    let statuses: Vec<ToolCallStatus> = events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::ToolCompleted { status, .. } => Some(*status),
            _ => None,
        })
        .collect();
    assert_eq!(statuses, [ToolCallStatus::Ok, ToolCallStatus::Cancelled]);
}

fn html_of(store: &Store, id: &str) -> String {
    let mut out = Vec::new();
    html::export_html(store, id, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn html_is_self_contained_and_shows_calls_diffs_and_decisions() {
    let data = tempfile::tempdir().unwrap();
    let (store, id, _home) = store_with_fixture(data.path(), "basic.jsonl");
    let page = html_of(&store, &id);
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(page.trim_end().ends_with("</html>"));
    for external in ["<script", "<link", "src=", "href=", "@import", "url("] {
        assert!(!page.contains(external), "{external} in the page");
    }
    assert!(page.contains("<style>"));
    assert!(page.contains("do it"), "the prompt");
    assert!(page.contains("Working on it."), "assistant text");
    assert_eq!(page.matches("<details class=\"call\"").count(), 8);
    assert!(page.contains(
        "<tr class=\"added\"><td class=\"n\"></td><td class=\"n\">1</td><td>+hello mock</td></tr>"
    ));
    assert!(page.contains("<tr class=\"removed\"><td class=\"n\">1</td><td class=\"n\"></td><td>-hello world</td></tr>"));
    assert!(page.contains("<span class=\"badge allow\">allow</span>"));
    assert!(page.contains("Found 30 total occurrences"));

    let data2 = tempfile::tempdir().unwrap();
    let (store, id, _home) = store_with_fixture(data2.path(), "permission-needs-approval-1.jsonl");
    let page = html_of(&store, &id);
    assert!(page.contains("<span class=\"badge ask\">ask</span>"));
    assert!(page.contains("answered: deny"));
}

#[test]
fn html_escapes_everything_from_the_session() {
    let data = tempfile::tempdir().unwrap();
    let mut store = Store::open(data.path()).unwrap();
    let id = "x";
    store
        .create_session(&NewSession {
            id: id.into(),
            project_path: "/p/<b>".into(),
            provider: "replay".into(),
            model: "m\"><script>".into(),
            mode: "default".into(),
        })
        .unwrap();
    let ev = |body| Event {
        session_id: id.into(),
        ts_ms: 1,
        body,
    };
    store
        .append_event(&ev(EventBody::UserPrompt {
            text: "<script>alert('p')</script> & <img src=x onerror=y>".into(),
        }))
        .unwrap();
    store
        .append_event(&ev(EventBody::ToolQueued {
            tool_use_id: "t\"<".into(),
            name: "<Bash>".into(),
            input: serde_json::json!({"command": "echo '<iframe>'"}),
            read_only: false,
        }))
        .unwrap();
    store
        .append_event(&ev(EventBody::ToolCompleted {
            tool_use_id: "t\"<".into(),
            status: gatehouse_protocol::event::ToolCallStatus::Ok,
            is_error: false,
            content: vec![gatehouse_protocol::event::ContentBlock::Text {
                text: "</pre><script>bad()</script>".into(),
            }],
            duration_ms: 1,
            persisted_path: None,
        }))
        .unwrap();
    let page = html_of(&store, id);
    for raw in [
        "<script",
        "<img",
        "<iframe",
        "/p/<b>",
        "<Bash>",
        "</pre><script",
    ] {
        assert!(!page.contains(raw), "{raw} unescaped in\n{page}");
    }
    assert!(page.contains("&lt;script&gt;alert(&#39;p&#39;)&lt;/script&gt; &amp; &lt;img src=x"));
    assert!(page.contains("id=\"call-t&quot;&lt;\""));
    assert!(!page.contains("src=x") || page.contains("&lt;img src=x"));
}
