//! `gatehouse-cli claude-code` (issue 25) as Claude Code and users run it:
//! the real binary, real settings files, a real SQLite store, stdin piped
//! as Claude Code pipes it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

struct Env {
    _root: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
    data: PathBuf,
}

fn env() -> Env {
    let root = tempfile::tempdir().unwrap();
    let (home, project, data) = (
        root.path().join("home"),
        root.path().join("project"),
        root.path().join("data"),
    );
    for d in [&home, &project, &data] {
        std::fs::create_dir_all(d).unwrap();
    }
    Env {
        home: home.canonicalize().unwrap(),
        project: project.canonicalize().unwrap(),
        data,
        _root: root,
    }
}

fn cli(e: &Env, args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gatehouse-cli"))
        .env("GATEHOUSE_DATA_DIR", &e.data)
        .env("HOME", &e.home)
        .env("CLAUDE_PROJECT_DIR", &e.project)
        .current_dir(&e.project)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A hook that stops reading early closes the pipe; that is its right.
    let _ = child.stdin.take().unwrap().write_all(stdin);
    child.wait_with_output().unwrap()
}

fn json_out(out: &Output) -> Value {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn settings(p: &Path) -> PathBuf {
    p.join(".claude/settings.local.json")
}

#[test]
fn guard_status_and_off_through_the_binary() {
    let e = env();
    let on = json_out(&cli(&e, &["claude-code", "guard"], b""));
    assert_eq!(on["scope"], "project");
    assert_eq!(on["change"], "changed");
    assert_eq!(on["file"], settings(&e.project).display().to_string());
    let text = std::fs::read_to_string(settings(&e.project)).unwrap();
    let exe = std::fs::canonicalize(env!("CARGO_BIN_EXE_gatehouse-cli")).unwrap();
    assert!(
        text.contains(&format!("{} claude-code hook PreToolUse", exe.display())),
        "the entry runs this very binary: {text}"
    );

    let status = json_out(&cli(&e, &["claude-code", "status"], b""));
    assert_eq!(status["installed"][0]["file"], on["file"]);
    assert_eq!(
        status["installed"][0]["events"],
        json!(["PreToolUse", "PermissionRequest", "PostToolUse"])
    );
    assert_eq!(status["last_call"], Value::Null);

    let off = json_out(&cli(&e, &["claude-code", "guard", "--off"], b""));
    assert_eq!(off["installed"], false);
    assert_eq!(off["change"], "changed");
    let status = json_out(&cli(&e, &["claude-code", "status"], b""));
    assert_eq!(status["installed"], json!([]));
}

#[test]
fn guard_refuses_a_malformed_file_with_its_position_and_exit_1() {
    let e = env();
    std::fs::create_dir_all(e.home.join(".claude")).unwrap();
    let file = e.home.join(".claude/settings.json");
    std::fs::write(&file, "{\"a\": 1,,}").unwrap();
    let out = cli(&e, &["claude-code", "guard", "--user"], b"");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("{}:1:9: not valid JSON", file.display())),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "{\"a\": 1,,}");
}

fn pre_tool_use(command: &str, id: &str, transcript: &Path) -> Vec<u8> {
    json!({
        "session_id": "0b7c2a9e-cli-test",
        "transcript_path": transcript,
        "cwd": "/nonexistent/cwd/ignored/for/the/project",
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "push"},
        "tool_use_id": id,
    })
    .to_string()
    .into_bytes()
}

#[test]
fn the_hook_denies_git_push_with_gatehouses_reason_and_records_the_call() {
    let e = env();
    std::fs::create_dir_all(e.project.join(".claude")).unwrap();
    std::fs::write(
        e.project.join(".claude/settings.json"),
        r#"{"permissions": {"deny": ["Bash(git push:*)"]}}"#,
    )
    .unwrap();
    // A real Claude Code 2.1.332 transcript: status reads its version.
    let transcript =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../transcripts/tests/fixtures/basic.jsonl");
    let out = cli(
        &e,
        &["claude-code", "hook", "PreToolUse"],
        &pre_tool_use("git push origin main", "toolu_01", &transcript),
    );
    let answer = json_out(&out);
    let hso = &answer["hookSpecificOutput"];
    assert_eq!(hso["hookEventName"], "PreToolUse");
    assert_eq!(hso["permissionDecision"], "deny");
    assert!(
        hso["permissionDecisionReason"]
            .as_str()
            .unwrap()
            .starts_with("Gatehouse: rule Bash(git push:*)"),
        "{answer}"
    );

    let shown = cli(&e, &["sessions", "show", "0b7c2a9e-cli-test"], b"");
    assert_eq!(shown.status.code(), Some(0));
    let events: Vec<Value> = String::from_utf8_lossy(&shown.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "session_started",
            "tool_queued",
            "permission_decided",
            "tool_completed"
        ]
    );
    assert_eq!(events[2]["decision"], "deny");
    assert_eq!(events[3]["status"], "denied");

    let list = cli(&e, &["sessions", "list"], b"");
    let summary: Value = serde_json::from_slice(
        String::from_utf8_lossy(&list.stdout)
            .lines()
            .next()
            .unwrap()
            .as_bytes(),
    )
    .unwrap();
    assert_eq!(summary["origin"], "claude_code");
    assert_eq!(summary["project_path"], e.project.display().to_string());

    let status = json_out(&cli(&e, &["claude-code", "status"], b""));
    assert_eq!(status["last_call"]["event"], "PreToolUse");
    assert_eq!(status["last_call"]["claude_code_version"], "2.1.332");
    assert_eq!(status["last_call"]["session_id"], "0b7c2a9e-cli-test");
}

#[test]
fn bad_stdin_exits_0_with_no_decision_and_a_logged_error() {
    let e = env();
    let huge = vec![b'x'; 9 * 1024 * 1024];
    for stdin in [&b"{not json"[..], b"", &huge] {
        let out = cli(&e, &["claude-code", "hook", "PreToolUse"], stdin);
        assert_eq!(out.status.code(), Some(0));
        assert!(out.stdout.is_empty(), "no decision: {:?}", out.stdout);
    }
    let out = cli(&e, &["claude-code", "hook", "SessionStart"], b"{}");
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
    let logs = std::fs::read_dir(e.data.join("logs")).unwrap();
    let text: String = logs
        .map(|f| std::fs::read_to_string(f.unwrap().path()).unwrap())
        .collect();
    assert!(
        text.contains("stdin is not Claude Code's hook JSON"),
        "{text}"
    );
    assert!(
        text.contains("unknown hook event \"SessionStart\""),
        "{text}"
    );
}
