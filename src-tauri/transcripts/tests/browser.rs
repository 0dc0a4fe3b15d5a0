//! The session browser's transcript side against real files and SQLite:
//! the import panel's listing, importing a selection with progress and
//! per-file errors, and exports to a file.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use gatehouse_protocol::browser::ExportFormat;
use gatehouse_store::Store;
use gatehouse_transcripts::browser::{discover_with_status, export_to_file, import_selected};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// A fake home with two real transcripts, one with a malformed line.
fn home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join(".claude/projects/-home-user-project");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::copy(fixture("basic.jsonl"), project.join("basic.jsonl")).unwrap();
    let mut denied = std::fs::read(fixture("permission-denied-1.jsonl")).unwrap();
    denied.extend_from_slice(b"{not json\n");
    std::fs::write(project.join("denied.jsonl"), denied).unwrap();
    home
}

/// Imports everything under `home`; returns the basic transcript's session.
fn import_basic(store: &mut Store, home: &Path) -> String {
    let results = import_selected(store, home, None, |_, _| {}).unwrap();
    results
        .iter()
        .find(|r| r.path.ends_with("basic.jsonl"))
        .and_then(|r| r.report.as_ref())
        .unwrap()
        .session_id
        .clone()
}

#[test]
fn listing_shows_what_is_imported_and_a_selection_imports_with_progress() {
    let home = home();
    let data = tempfile::tempdir().unwrap();
    let mut store = Store::open(data.path()).unwrap();
    let before = discover_with_status(&store, home.path()).unwrap();
    assert!(before.root.ends_with(".claude/projects"), "{}", before.root);
    assert_eq!(before.transcripts.len(), 2);
    assert!(
        before
            .transcripts
            .iter()
            .all(|t| t.imported_bytes.is_none())
    );

    let denied = before
        .transcripts
        .iter()
        .find(|t| t.transcript.path.ends_with("denied.jsonl"))
        .unwrap()
        .transcript
        .clone();
    let mut seen = Vec::new();
    let results = import_selected(
        &mut store,
        home.path(),
        Some(&[denied.path.clone(), "/nowhere/x.jsonl".into()]),
        |t, p| seen.push((t.session_id.clone(), p.bytes_done, p.bytes_total)),
    )
    .unwrap();
    assert_eq!(results.len(), 2);
    let missing = results
        .iter()
        .find(|r| r.path == "/nowhere/x.jsonl")
        .unwrap();
    assert!(
        missing
            .error
            .as_deref()
            .unwrap()
            .contains("not a Claude Code transcript")
    );
    let imported = results.iter().find(|r| r.path == denied.path).unwrap();
    let report = imported.report.as_ref().unwrap();
    assert_eq!(report.skipped_lines, 1);
    let problem = &report.problems[0];
    assert!(
        problem.path.ends_with("denied.jsonl") && problem.line > 1,
        "{problem:?}"
    );
    assert!(!seen.is_empty(), "progress was reported");
    assert!(seen.iter().all(|(id, _, _)| *id == denied.session_id));
    let (_, done, total) = seen.last().unwrap();
    assert_eq!(done, total, "the last progress is complete");

    let after = discover_with_status(&store, home.path()).unwrap();
    let status: Vec<_> = after
        .transcripts
        .iter()
        .map(|t| {
            (
                t.transcript.path.ends_with("denied.jsonl"),
                t.imported_bytes,
            )
        })
        .collect();
    assert!(
        status.contains(&(true, Some(denied.size_bytes))),
        "{status:?}"
    );
    assert!(status.contains(&(false, None)), "{status:?}");

    let all = import_selected(&mut store, home.path(), None, |_, _| {}).unwrap();
    assert_eq!(all.len(), 2);
    assert!(all.iter().all(|r| r.error.is_none()));
}

#[test]
fn exports_write_valid_files_and_unknown_sessions_leave_nothing() {
    let home = home();
    let data = tempfile::tempdir().unwrap();
    let mut store = Store::open(data.path()).unwrap();
    let id = import_basic(&mut store, home.path());
    let out = tempfile::tempdir().unwrap();

    let jsonl = out.path().join("s.jsonl");
    let result = export_to_file(&store, &id, ExportFormat::Jsonl, &jsonl).unwrap();
    let text = std::fs::read_to_string(&jsonl).unwrap();
    assert_eq!(result.bytes, text.len() as u64);
    for line in text.lines() {
        let value: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(value["session_id"], id.as_str());
    }
    assert!(text.contains("\"tool_queued\""));

    let html = out.path().join("s.html");
    export_to_file(&store, &id, ExportFormat::Html, &html).unwrap();
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.starts_with("<!DOCTYPE html>") || page.starts_with("<!doctype html>"),
        "{}",
        &page[..40]
    );
    assert!(page.trim_end().ends_with("</html>"));

    let missing = out.path().join("none.jsonl");
    let err = export_to_file(&store, "nope", ExportFormat::Jsonl, &missing).unwrap_err();
    assert!(err.to_string().contains("nope"), "{err}");
    assert!(!missing.exists());
    assert_eq!(
        std::fs::read_dir(out.path()).unwrap().count(),
        2,
        "no partial file left"
    );
}

#[test]
fn an_imported_transcript_has_stats_per_tool_and_per_turn() {
    let home = home();
    let data = tempfile::tempdir().unwrap();
    let mut store = Store::open(data.path()).unwrap();
    let id = import_basic(&mut store, home.path());
    let stats = store.session_stats(&id).unwrap();
    let calls: Vec<_> = stats
        .tools
        .iter()
        .map(|t| (t.name.as_str(), t.calls))
        .collect();
    assert_eq!(calls, [("Read", 5), ("Bash", 1), ("Edit", 1), ("Grep", 1)]);
    assert_eq!(stats.decisions.allowed, 8, "{:?}", stats.decisions);
    assert!(stats.turns.iter().all(|t| t.turn >= 1), "{:?}", stats.turns);
    assert_eq!(stats.turns.iter().map(|t| t.tool_calls).sum::<u64>(), 8);
    assert!(stats.turns.iter().any(|t| t.output_tokens > 0));
}
