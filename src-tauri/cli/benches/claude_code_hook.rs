//! `cargo xtask bench claude-code-hook` (issue 25): median wall time of
//! `gatehouse-cli claude-code hook <event>` as Claude Code runs it (a new
//! process, the hook JSON on stdin, a real data directory and store), for
//! a typical Bash call: PreToolUse with the window not running and running,
//! and PermissionRequest answered by a running window (its socket) and with
//! no window. Target: PreToolUse median ≤ 15 ms.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::Path;
use std::process::{Command, ExitCode, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use gatehouse_protocol::session::PermissionAnswer;
use gatehouse_session::claude_guard::bridge::{AskHandler, serve};
use serde_json::json;

const RUNS: usize = 101;
const TARGET_MS: f64 = 15.0;

fn run_once(data: &Path, home: &Path, project: &Path, event: &str, stdin: &[u8]) -> Duration {
    let start = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_gatehouse-cli"))
        .env("GATEHOUSE_DATA_DIR", data)
        .env("HOME", home)
        .env("CLAUDE_PROJECT_DIR", project)
        .current_dir(project)
        .args(["claude-code", "hook", event])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let out = child.wait_with_output().unwrap();
    let took = start.elapsed();
    assert!(out.status.success());
    took
}

fn median(data: &Path, home: &Path, project: &Path, event: &str, stdin: &[u8]) -> f64 {
    run_once(data, home, project, event, stdin);
    let mut times: Vec<Duration> = (0..RUNS)
        .map(|_| run_once(data, home, project, event, stdin))
        .collect();
    times.sort();
    times[RUNS / 2].as_secs_f64() * 1000.0
}

fn main() -> ExitCode {
    let root = tempfile::tempdir().unwrap();
    let (home, project, data) = (
        root.path().join("home"),
        root.path().join("project"),
        root.path().join("data"),
    );
    for d in [&home, &project, &data] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    std::fs::write(
        project.join(".claude/settings.json"),
        r#"{"permissions": {"allow": ["Bash(npm test:*)", "Bash(cargo build:*)"], "deny": ["Bash(git push:*)", "Read(./.env)"]}}"#,
    )
    .unwrap();
    let call = |event: &str| {
        json!({"session_id": "bench-session", "transcript_path": project.join("t.jsonl"),
               "cwd": project, "permission_mode": "default", "hook_event_name": event,
               "tool_name": "Bash", "tool_input": {"command": "git status --short", "description": "Status"},
               "tool_use_id": "toolu_bench"})
        .to_string()
        .into_bytes()
    };
    let pre = call("PreToolUse");
    let ask = call("PermissionRequest");
    let pre_off = median(&data, &home, &project, "PreToolUse", &pre);
    let ask_off = median(&data, &home, &project, "PermissionRequest", &ask);

    let runtime = tokio::runtime::Runtime::new().unwrap();
    let window: AskHandler = Arc::new(|_| Box::pin(async { Some(PermissionAnswer::AllowOnce) }));
    let bridge = runtime.block_on(serve(&data, window)).unwrap();
    let pre_on = median(&data, &home, &project, "PreToolUse", &pre);
    let ask_on = median(&data, &home, &project, "PermissionRequest", &ask);
    drop(bridge);

    println!(
        "claude-code hook, median of {RUNS} runs (a typical Bash call, `git status --short`):"
    );
    println!("  PreToolUse, window not running      {pre_off:7.2} ms (target ≤ {TARGET_MS} ms)");
    println!("  PreToolUse, window running          {pre_on:7.2} ms (target ≤ {TARGET_MS} ms)");
    println!("  PermissionRequest, no window        {ask_off:7.2} ms (no decision)");
    println!(
        "  PermissionRequest, window answers   {ask_on:7.2} ms (socket round trip, allow once)"
    );
    if pre_off > TARGET_MS || pre_on > TARGET_MS {
        eprintln!("claude-code hook: PreToolUse median over {TARGET_MS} ms");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
