//! A reader that goes away (`gatehouse-cli … | head -1`) ends every
//! subcommand that prints lines quietly: exit 0, no panic, no backtrace
//! (issue 16 item 11). Each command prints far more than a pipe holds
//! (64 KiB), so it is still writing when the reader closes.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

use gatehouse_protocol::event::Event;
use gatehouse_store::{NewSession, Store};
use serde_json::{Value, json};

fn cli(data_dir: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_gatehouse-cli"));
    cmd.env("GATEHOUSE_DATA_DIR", data_dir)
        .env("RUST_BACKTRACE", "1")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY");
    cmd
}

fn ev(session: &str, body: Value) -> Event {
    let mut v = body;
    v["session_id"] = json!(session);
    v["ts_ms"] = json!(1_700_000_000_000u64);
    serde_json::from_value(v).unwrap()
}

/// 300 sessions and 300 projects; session `big` has 3,000 events, each a
/// prompt and a reply mentioning "needle".
fn fixture(data: &Path, projects: &Path) {
    let mut store = Store::open(data).unwrap();
    for i in 0..300 {
        let dir = projects.join(format!("project-{i:04}-with-a-fairly-long-folder-name"));
        std::fs::create_dir_all(&dir).unwrap();
        store.add_project(&dir).unwrap();
        store
            .create_session(&NewSession {
                id: format!("s{i:04}"),
                project_path: dir.to_string_lossy().into_owned(),
                provider: "replay".into(),
                model: "a-model-name".into(),
                mode: "default".into(),
            })
            .unwrap();
    }
    store
        .create_session(&NewSession {
            id: "big".into(),
            project_path: "/p".into(),
            provider: "replay".into(),
            model: "m".into(),
            mode: "default".into(),
        })
        .unwrap();
    let filler = "lorem ipsum dolor sit amet ".repeat(8);
    let mut events = Vec::new();
    for turn in 1..=1_500u32 {
        events.push(ev(
            "big",
            json!({"type": "user_prompt", "text": format!("needle {turn} {filler}")}),
        ));
        events.push(ev(
            "big",
            json!({"type": "assistant_message", "turn": turn, "message_id": null,
                   "content": [{"type": "text", "text": format!("needle reply {turn} {filler}")}],
                   "stop_reason": "end_turn"}),
        ));
    }
    let refs: Vec<&Event> = events.iter().collect();
    store.append_events(&refs).unwrap();
}

/// Runs `args`, reads one line, closes the pipe, and checks the exit.
fn read_one_line_then_close(data: &Path, args: &[&str]) {
    let mut child = cli(data)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    reader.read_line(&mut first).unwrap();
    assert!(!first.is_empty(), "{args:?} printed nothing");
    drop(reader);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("panicked")
            && !stderr.contains("Broken pipe")
            && !stderr.contains("backtrace"),
        "{args:?}: {stderr}"
    );
    assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
}

#[test]
fn every_subcommand_that_prints_lines_ends_quietly_when_its_reader_goes_away() {
    let data = tempfile::tempdir().unwrap();
    let projects = tempfile::tempdir().unwrap();
    fixture(data.path(), projects.path());
    for args in [
        &["projects", "list"][..],
        &["sessions", "list"],
        &["sessions", "show", "big"],
        &["sessions", "search", "needle", "--limit", "5000"],
        &["sessions", "export", "big"],
        &["sessions", "export", "big", "--format", "html"],
        &["sessions", "script", "big"],
    ] {
        read_one_line_then_close(data.path(), args);
    }
}

#[test]
fn a_run_whose_reader_goes_away_still_completes_and_stores_the_session() {
    let data = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    // About 250 KB of events (60 turns; the turn limit is 100): far more
    // than the pipe holds.
    let text = "x".repeat(2_000);
    let mut turns: Vec<Value> = (0..60)
        .map(|_| {
            json!({"content": [{"type": "text", "text": text},
                               {"type": "tool_use", "name": "Missing", "input": {}}]})
        })
        .collect();
    turns.push(json!({"content": [{"type": "text", "text": "done"}]}));
    let script = data.path().join("long.json");
    std::fs::write(&script, json!({ "turns": turns }).to_string()).unwrap();
    read_one_line_then_close(
        data.path(),
        &[
            "run",
            "--provider",
            "replay",
            "--project",
            project.path().to_str().unwrap(),
            "--script",
            script.to_str().unwrap(),
        ],
    );
    let store = Store::open(data.path()).unwrap();
    let sessions = store.list_sessions(None).unwrap();
    assert_eq!(sessions.len(), 1);
    assert_eq!(sessions[0].status, "completed");
}
