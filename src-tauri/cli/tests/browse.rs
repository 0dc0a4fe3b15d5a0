//! `gatehouse-cli sessions` for the session browser as a real process:
//! importing Claude Code transcripts, listing with filters, searching,
//! exporting and re-importing, deleting, retention, usage and vacuum.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn cli(data_dir: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_gatehouse-cli"));
    cmd.env("GATEHOUSE_DATA_DIR", data_dir);
    cmd
}

fn ok(out: Output) -> Vec<Value> {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../transcripts/tests/fixtures")
        .join(name)
}

/// A home with three real transcripts in one project.
fn claude_home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join(".claude/projects/-home-user-project");
    std::fs::create_dir_all(&project).unwrap();
    for (name, to) in [
        ("basic.jsonl", "basic.jsonl"),
        ("permission-denied-1.jsonl", "denied.jsonl"),
        ("permission-needs-approval-1.jsonl", "approval.jsonl"),
    ] {
        std::fs::copy(fixture(name), project.join(to)).unwrap();
    }
    home
}

#[test]
fn claude_transcripts_import_list_filter_and_search() {
    let data = tempfile::tempdir().unwrap();
    let home = claude_home();
    let found = ok(cli(data.path())
        .args(["sessions", "import-claude", "--dry-run", "--home"])
        .arg(home.path())
        .output()
        .unwrap());
    assert_eq!(found.len(), 3);
    assert!(found.iter().all(|f| f["imported_bytes"].is_null()));

    // Import one by id, then the rest.
    let one = ok(cli(data.path())
        .args(["sessions", "import-claude", "--home"])
        .arg(home.path())
        .arg("cc-denied")
        .output()
        .unwrap());
    assert_eq!(one.len(), 1);
    assert_eq!(one[0]["outcome"], "imported");
    let out = cli(data.path())
        .args(["sessions", "import-claude", "--progress", "--home"])
        .arg(home.path())
        .output()
        .unwrap();
    let progress = String::from_utf8_lossy(&out.stderr).into_owned();
    let all = ok(out);
    let outcomes: Vec<&str> = all.iter().map(|r| r["outcome"].as_str().unwrap()).collect();
    assert_eq!(outcomes, ["imported", "imported", "unchanged"]);
    let last: Value = serde_json::from_str(progress.lines().last().unwrap()).unwrap();
    assert_eq!(
        last["progress"]["bytes_done"],
        last["progress"]["bytes_total"]
    );
    assert_eq!(last["progress"]["files_done"], 3);

    let list = ok(cli(data.path())
        .args(["sessions", "list", "--sort", "tool-calls"])
        .output()
        .unwrap());
    assert_eq!(list.len(), 3);
    assert_eq!(list[0]["id"], "cc-basic");
    assert_eq!(list[0]["tool_calls"], 8);
    assert_eq!(list[0]["origin"], "claude_code");
    for key in [
        "duration_ms",
        "asks",
        "denials",
        "errors",
        "input_tokens",
        "output_tokens",
    ] {
        assert!(list[0][key].is_i64(), "{key} in {}", list[0]);
    }
    let denied = ok(cli(data.path())
        .args([
            "sessions",
            "list",
            "--had-denials",
            "--sort",
            "started",
            "--ascending",
        ])
        .output()
        .unwrap());
    let ids: Vec<&str> = denied.iter().map(|s| s["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["cc-denied", "cc-approval"]);
    let none = ok(cli(data.path())
        .args(["sessions", "list", "--since", "2027-01-01"])
        .output()
        .unwrap());
    assert!(none.is_empty());
    let day = ok(cli(data.path())
        .args([
            "sessions",
            "list",
            "--since",
            "2026-11-30",
            "--until",
            "2026-12-01",
            "--model",
            "claude-opus-5-5",
            "--origin",
            "claude-code",
        ])
        .output()
        .unwrap());
    assert_eq!(day.len(), 3);
    let bad = cli(data.path())
        .args(["sessions", "list", "--since", "last tuesday"])
        .output()
        .unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--since"));

    let hits = ok(cli(data.path())
        .args(["sessions", "search", "--literal", "30 total occurrences"])
        .output()
        .unwrap());
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0]["session_id"], "cc-basic");
    assert_eq!(hits[0]["tool_name"], "Grep");
    assert!(hits[0]["seq"].as_i64().unwrap() > 1);
    assert!(
        hits[0]["snippet"]
            .as_str()
            .unwrap()
            .contains("[occurrences]")
    );

    // Not FTS5 syntax: searched as the words, saying so on stderr, with no
    // SQLite error text (issue 16 item 11).
    for query in ["rm(", "TODO-4917"] {
        let out = cli(data.path())
            .args(["sessions", "search", query])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{query}: {stderr}");
        assert!(stderr.contains("not FTS5 query syntax"), "{stderr}");
        assert!(
            !stderr.contains("SQL logic error") && !stderr.contains("no such column"),
            "{stderr}"
        );
    }
    let hits = ok(cli(data.path())
        .args(["sessions", "search", "total-occurrences"])
        .output()
        .unwrap());
    assert!(!hits.is_empty(), "the words are searched");

    let summary = ok(cli(data.path())
        .args(["sessions", "show", "--summary", "cc-approval"])
        .output()
        .unwrap());
    assert_eq!(
        (summary[0]["asks"].as_i64(), summary[0]["denials"].as_i64()),
        (Some(1), Some(1))
    );
}

#[test]
fn sessions_export_reimport_delete_retention_usage_and_vacuum() {
    let data = tempfile::tempdir().unwrap();
    let home = claude_home();
    ok(cli(data.path())
        .args(["sessions", "import-claude", "--home"])
        .arg(home.path())
        .output()
        .unwrap());

    let shown = cli(data.path())
        .args(["sessions", "show", "cc-basic"])
        .output()
        .unwrap();
    let export = data.path().join("basic.jsonl");
    ok(cli(data.path())
        .args(["sessions", "export", "cc-basic", "--output"])
        .arg(&export)
        .output()
        .unwrap());
    assert_eq!(
        std::fs::read(&export).unwrap(),
        shown.stdout,
        "the JSONL export is what show prints"
    );
    let imported = ok(cli(data.path())
        .args(["sessions", "import", "--as", "basic-copy"])
        .arg(&export)
        .output()
        .unwrap());
    assert_eq!(imported[0]["session_id"], "basic-copy");
    let copy = ok(cli(data.path())
        .args(["sessions", "show", "--summary", "basic-copy"])
        .output()
        .unwrap());
    assert_eq!(copy[0]["tool_calls"], 8);
    assert_eq!(copy[0]["origin"], "gatehouse");

    let page = cli(data.path())
        .args(["sessions", "export", "cc-basic", "--format", "html"])
        .output()
        .unwrap();
    let page = String::from_utf8(page.stdout).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>") && page.contains("hello mock"));

    let usage = ok(cli(data.path())
        .args(["sessions", "usage"])
        .output()
        .unwrap());
    assert_eq!(usage[0]["sessions"], 4);
    assert!(usage[0]["database_bytes"].as_u64().unwrap() > 0);

    let deleted = ok(cli(data.path())
        .args(["sessions", "delete", "basic-copy", "cc-denied"])
        .output()
        .unwrap());
    assert_eq!(
        deleted[0]["deleted"],
        serde_json::json!(["basic-copy", "cc-denied"])
    );
    let missing = cli(data.path())
        .args(["sessions", "delete", "basic-copy"])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&missing.stderr).contains("no stored session with id basic-copy")
    );

    let retention = ok(cli(data.path())
        .args(["sessions", "retention", "--days", "30", "--apply"])
        .output()
        .unwrap());
    assert_eq!(retention[0]["retention_days"], 30);
    // The imported sessions are from 2026-11-30, within 30 days of "now"
    // only if the clock says so; either way the setting is remembered.
    let shown = ok(cli(data.path())
        .args(["sessions", "retention"])
        .output()
        .unwrap());
    assert_eq!(shown[0]["retention_days"], 30);
    let off = ok(cli(data.path())
        .args(["sessions", "retention", "--off"])
        .output()
        .unwrap());
    assert!(off[0]["retention_days"].is_null());

    let vacuum = ok(cli(data.path())
        .args(["sessions", "vacuum"])
        .output()
        .unwrap());
    assert_eq!(vacuum[0]["after"]["reclaimable_bytes"], 0);
    assert_eq!(vacuum[0]["after"]["wal_bytes"], 0);
    assert_eq!(
        vacuum[0]["compaction"]["full_rewrite"]["status"],
        "not_needed"
    );
    assert_eq!(vacuum[0]["compaction"]["wal_truncated"], true);
}

#[test]
fn sessions_help_documents_the_new_subcommands_and_flags() {
    let data = tempfile::tempdir().unwrap();
    let help = |args: &[&str]| {
        let out = cli(data.path()).args(args).output().unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let sessions = help(&["sessions", "--help"]);
    for sub in [
        "list",
        "show",
        "script",
        "search",
        "import-claude",
        "export",
        "import",
        "delete",
        "retention",
        "usage",
        "vacuum",
    ] {
        assert!(sessions.contains(sub), "{sub} missing from\n{sessions}");
    }
    let import = help(&["sessions", "import-claude", "--help"]);
    for flag in ["--home", "--dry-run", "--progress"] {
        assert!(import.contains(flag), "{flag} missing from\n{import}");
    }
    let list = help(&["sessions", "list", "--help"]);
    for flag in [
        "--sort",
        "--since",
        "--until",
        "--model",
        "--had-denials",
        "--had-errors",
        "--origin",
    ] {
        assert!(list.contains(flag), "{flag} missing from\n{list}");
    }
}

#[test]
fn imported_claude_sessions_cannot_be_resumed() {
    let data = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let home = claude_home();
    ok(cli(data.path())
        .args(["sessions", "import-claude", "--home"])
        .arg(home.path())
        .output()
        .unwrap());
    let before = ok(cli(data.path())
        .args(["sessions", "show", "--summary", "cc-basic"])
        .output()
        .unwrap());
    let script = data.path().join("s.json");
    std::fs::write(
        &script,
        r#"{"turns": [{"content": [{"type": "text", "text": "hi"}]}]}"#,
    )
    .unwrap();
    let out = cli(data.path())
        .args([
            "run",
            "--provider",
            "replay",
            "--prompt",
            "go on",
            "--resume",
            "cc-basic",
            "--project",
        ])
        .arg(project.path())
        .arg("--script")
        .arg(&script)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("imported from Claude Code and cannot be resumed"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary = ok(cli(data.path())
        .args(["sessions", "show", "--summary", "cc-basic"])
        .output()
        .unwrap());
    assert_eq!(
        summary[0]["event_count"], before[0]["event_count"],
        "nothing was appended"
    );
}
