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

/// `gatehouse-cli ARGS` as Claude Code starts a hook: in the project, its
/// stdin and stdout piped.
fn command(e: &Env, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_gatehouse-cli"));
    command
        .env("GATEHOUSE_DATA_DIR", &e.data)
        .env("HOME", &e.home)
        .env("CLAUDE_PROJECT_DIR", &e.project)
        .current_dir(&e.project)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

fn cli(e: &Env, args: &[&str], stdin: &[u8]) -> Output {
    let mut child = command(e, args).spawn().unwrap();
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
    // Whose file it is (added for Settings → Claude Code; additive).
    assert_eq!(status["installed"][0]["scope"], "project");
    assert_eq!(
        status["installed"][0]["project"],
        e.project.display().to_string()
    );
    assert_eq!(
        status["installed"][0]["events"],
        json!([
            "PreToolUse",
            "PermissionRequest",
            "PostToolUse",
            "PostToolUseFailure",
            "SessionEnd"
        ])
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

mod permission_request {
    //! PermissionRequest: the real hook process asks a real socket served
    //! by the session host's bridge (what the app runs), and Claude Code
    //! gets the answer in its output shape.

    use std::sync::{Arc, Mutex};

    use gatehouse_protocol::claude_code::ClaudeCodeAsk;
    use gatehouse_protocol::permission::RuleSource;
    use gatehouse_protocol::session::PermissionAnswer;
    use gatehouse_session::claude_guard::bridge::{AskHandler, serve};

    use super::*;

    fn request(e: &Env, session: &str, id: &str) -> Vec<u8> {
        json!({
            "session_id": session,
            "transcript_path": e.project.join("t.jsonl"),
            "cwd": e.project,
            "permission_mode": "default",
            "hook_event_name": "PermissionRequest",
            "tool_name": "Edit",
            "tool_input": {"file_path": e.project.join("notes.txt"), "old_string": "one", "new_string": "two"},
            "tool_use_id": id,
        })
        .to_string()
        .into_bytes()
    }

    /// A window that answers every ask with `answer` and keeps what it was
    /// shown.
    fn window(answer: PermissionAnswer) -> (AskHandler, Arc<Mutex<Vec<ClaudeCodeAsk>>>) {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let kept = Arc::clone(&seen);
        let handler: AskHandler = Arc::new(move |ask| {
            kept.lock().unwrap().push(ask);
            let answer = answer.clone();
            Box::pin(async move { Some(answer) })
        });
        (handler, seen)
    }

    async fn hook(e: &Env, args: &'static [&'static str], stdin: Vec<u8>) -> Output {
        let (data, home, project) = (e.data.clone(), e.home.clone(), e.project.clone());
        tokio::task::spawn_blocking(move || {
            let e = Env {
                _root: tempfile::tempdir().unwrap(),
                home,
                project,
                data,
            };
            cli(&e, args, &stdin)
        })
        .await
        .unwrap()
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn allow_once_from_the_window_goes_back_to_claude_code_with_the_diff_shown() {
        let e = env();
        std::fs::write(e.project.join("notes.txt"), "one\n").unwrap();
        let (handler, seen) = window(PermissionAnswer::AllowOnce);
        let _bridge = serve(&e.data, handler).await.unwrap();
        let out = hook(
            &e,
            &["claude-code", "hook", "PermissionRequest"],
            request(&e, "sess-pr-1", "toolu_pr_1"),
        )
        .await;
        let answer = json_out(&out);
        assert_eq!(
            answer,
            json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}})
        );
        let asked = seen.lock().unwrap().clone();
        assert_eq!(asked.len(), 1);
        assert_eq!(asked[0].session_id, "sess-pr-1");
        assert_eq!(asked[0].tool_use_id, "toolu_pr_1");
        let preview = serde_json::to_string(&asked[0].preview).unwrap();
        assert!(
            preview.contains("two"),
            "the modal shows the diff: {preview}"
        );
        assert!(!asked[0].suggestions.is_empty());

        let shown = hook(&e, &["sessions", "show", "sess-pr-1"], Vec::new()).await;
        let text = String::from_utf8_lossy(&shown.stdout).to_string();
        assert!(text.contains("\"type\":\"permission_answered\""), "{text}");
        assert!(text.contains("allow once (in Gatehouse)"), "{text}");
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn deny_with_feedback_reaches_claude_code_as_the_message() {
        let e = env();
        let (handler, _) = window(PermissionAnswer::Deny {
            feedback: Some("edit the copy in docs/ instead".into()),
        });
        let _bridge = serve(&e.data, handler).await.unwrap();
        let out = hook(
            &e,
            &["claude-code", "hook", "PermissionRequest"],
            request(&e, "sess-pr-2", "toolu_pr_2"),
        )
        .await;
        assert_eq!(
            json_out(&out)["hookSpecificOutput"]["decision"],
            json!({"behavior": "deny", "message": "edit the copy in docs/ instead"})
        );
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn always_allow_writes_the_rule_claude_code_reads_and_the_next_call_is_allowed() {
        let e = env();
        // `//` starts an absolute path in Claude Code's rule syntax.
        let rule = format!("Edit(/{}/notes.txt)", e.project.display());
        let (handler, asked) = window(PermissionAnswer::AlwaysAllow {
            rules: vec![rule.clone()],
            destination: RuleSource::Local,
        });
        let pre = |id: &str| {
            json!({"session_id": "sess-pr-3", "cwd": e.project, "permission_mode": "default",
                   "hook_event_name": "PreToolUse", "tool_name": "Edit",
                   "tool_input": {"file_path": e.project.join("notes.txt"), "old_string": "one", "new_string": "two"},
                   "tool_use_id": id})
            .to_string()
            .into_bytes()
        };
        // No window yet: Claude Code is told to ask (and prompts).
        let before = json_out(&hook(&e, &["claude-code", "hook", "PreToolUse"], pre("t1")).await);
        assert_eq!(before["hookSpecificOutput"]["permissionDecision"], "ask");
        let _bridge = serve(&e.data, handler).await.unwrap();
        let out = hook(
            &e,
            &["claude-code", "hook", "PermissionRequest"],
            request(&e, "sess-pr-3", "t1"),
        )
        .await;
        assert_eq!(
            json_out(&out)["hookSpecificOutput"]["decision"]["behavior"],
            "allow"
        );
        let local = std::fs::read_to_string(settings(&e.project)).unwrap();
        assert!(local.contains(&rule), "{local}");
        let after = json_out(&hook(&e, &["claude-code", "hook", "PreToolUse"], pre("t2")).await);
        assert_eq!(
            after["hookSpecificOutput"]["permissionDecision"], "allow",
            "the project is trusted now and its rule applies: {after}"
        );
        assert_eq!(
            asked.lock().unwrap().len(),
            1,
            "the rule allowed the second call without asking the window"
        );
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn allow_for_this_session_is_a_session_rule_the_next_pre_tool_use_applies() {
        let e = env();
        let (handler, asked) = window(PermissionAnswer::AllowForSession);
        let _bridge = serve(&e.data, handler).await.unwrap();
        // The first thing Gatehouse hears of this session is the ask.
        let out = hook(
            &e,
            &["claude-code", "hook", "PermissionRequest"],
            request(&e, "sess-pr-5", "t1"),
        )
        .await;
        assert_eq!(
            json_out(&out)["hookSpecificOutput"]["decision"]["behavior"],
            "allow"
        );
        let pre = |session: &str| {
            json!({"session_id": session, "cwd": e.project, "permission_mode": "default",
                   "hook_event_name": "PreToolUse", "tool_name": "Edit",
                   "tool_input": {"file_path": e.project.join("notes.txt"), "old_string": "one", "new_string": "two"},
                   "tool_use_id": "t2"})
            .to_string()
            .into_bytes()
        };
        let same =
            json_out(&hook(&e, &["claude-code", "hook", "PreToolUse"], pre("sess-pr-5")).await);
        assert_eq!(
            same["hookSpecificOutput"]["permissionDecision"], "allow",
            "{same}"
        );
        assert_eq!(
            asked.lock().unwrap().len(),
            1,
            "the session rule allowed it unasked"
        );
        // Another Claude Code session does not get the rule: the window is
        // asked again (and its answer, here "for this session", allows it).
        let other =
            json_out(&hook(&e, &["claude-code", "hook", "PreToolUse"], pre("sess-pr-6")).await);
        assert_eq!(other["hookSpecificOutput"]["permissionDecision"], "allow");
        let asks = asked.lock().unwrap().clone();
        assert_eq!(asks.len(), 2, "another Claude Code session does not get it");
        assert_eq!(asks[1].session_id, "sess-pr-6");
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn no_window_means_no_decision_and_claude_code_asks_in_its_terminal() {
        let e = env();
        let out = hook(
            &e,
            &["claude-code", "hook", "PermissionRequest"],
            request(&e, "sess-pr-4", "toolu_pr_4"),
        )
        .await;
        assert_eq!(out.status.code(), Some(0));
        assert!(out.stdout.is_empty());
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn a_killed_hook_process_withdraws_its_ask_from_the_window() {
        use gatehouse_protocol::claude_code::{
            ClaudeCodeAskWithdrawn, ClaudeCodeAskWithdrawnReason,
        };
        use gatehouse_session::claude_guard::window::PendingAsks;

        let e = env();
        let asks = Arc::new(PendingAsks::default());
        let (tx, mut seen) = tokio::sync::mpsc::unbounded_channel();
        let on_withdraw = tx.clone();
        let handler = asks.handler(
            move |id, _| tx.send(Ok(id)).unwrap(),
            move |w| on_withdraw.send(Err(w)).unwrap(),
            std::time::Duration::from_secs(3600),
        );
        let _bridge = serve(&e.data, handler).await.unwrap();
        let mut child = command(&e, &["claude-code", "hook", "PermissionRequest"])
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(&request(&e, "sess-pr-7", "toolu_pr_7"))
            .unwrap();
        let id = seen.recv().await.unwrap().expect("shown first");
        // Claude Code gave up on the hook (or the user pressed Ctrl-C).
        child.kill().unwrap();
        child.wait().unwrap();
        assert_eq!(
            seen.recv().await.unwrap(),
            Err(ClaudeCodeAskWithdrawn {
                request_id: id,
                reason: ClaudeCodeAskWithdrawnReason::HookGone,
            })
        );
        assert!(asks.pending_ids().is_empty());
    }
}

mod ledger {
    //! The decision ledger (who decided each call), from the real hook
    //! process fed the JSON Claude Code 2.1.332 sends, read back with
    //! `gatehouse-cli sessions show`.

    use super::*;

    const SESSION: &str = "5d1e0c44-ledger-test";

    fn call(e: &Env, event: &str, id: &str, extra: Value) -> Vec<u8> {
        let mut input = json!({
            "session_id": SESSION,
            "transcript_path": e.project.join("t.jsonl"),
            "cwd": e.project,
            "permission_mode": "default",
            "hook_event_name": event,
            "tool_name": "Edit",
            "tool_input": {"file_path": e.project.join("notes.txt"), "old_string": "one", "new_string": "two"},
            "tool_use_id": id,
        });
        for (k, v) in extra.as_object().unwrap() {
            input[k] = v.clone();
        }
        input.to_string().into_bytes()
    }

    /// Runs the hook for `event`; no window runs, so nothing is printed
    /// for anything but PreToolUse.
    fn hook(e: &Env, event: &str, id: &str, extra: Value) -> Output {
        let out = cli(
            e,
            &["claude-code", "hook", event],
            &call(e, event, id, extra),
        );
        assert_eq!(out.status.code(), Some(0));
        out
    }

    /// The events of call `id`: `(type, decision or status, last trace
    /// stage)`.
    fn rows(e: &Env, id: &str) -> Vec<(String, String, String)> {
        let shown = cli(e, &["sessions", "show", SESSION], b"");
        assert_eq!(shown.status.code(), Some(0));
        String::from_utf8_lossy(&shown.stdout)
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .filter(|ev| ev["tool_use_id"] == id)
            .map(|ev| {
                let verdict = ev
                    .get("decision")
                    .or_else(|| ev.get("status"))
                    .or_else(|| ev["answer"].get("kind"))
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned();
                let stage = ev["trace"]
                    .as_array()
                    .and_then(|t| t.last())
                    .and_then(|s| s["stage"].as_str())
                    .unwrap_or("")
                    .to_owned();
                (ev["type"].as_str().unwrap().to_owned(), verdict, stage)
            })
            .collect()
    }

    fn row(kind: &str, verdict: &str, stage: &str) -> (String, String, String) {
        (kind.into(), verdict.into(), stage.into())
    }

    fn session_status(e: &Env) -> Value {
        let list = cli(e, &["sessions", "list"], b"");
        let line = String::from_utf8_lossy(&list.stdout)
            .lines()
            .next()
            .unwrap()
            .to_owned();
        serde_json::from_str::<Value>(&line).unwrap()["status"].clone()
    }

    #[test]
    fn an_ask_left_to_the_terminal_then_run_is_recorded_as_allowed_in_the_terminal() {
        let e = env();
        let pre = json_out(&hook(&e, "PreToolUse", "toolu_t1", json!({})));
        assert_eq!(pre["hookSpecificOutput"]["permissionDecision"], "ask");
        // No window: no decision, Claude Code prompts in its terminal.
        assert!(
            hook(&e, "PermissionRequest", "toolu_t1", json!({}))
                .stdout
                .is_empty()
        );
        assert!(
            hook(
                &e,
                "PostToolUse",
                "toolu_t1",
                json!({"tool_response": {"filePath": "notes.txt"}, "duration_ms": 12.6})
            )
            .stdout
            .is_empty()
        );
        assert_eq!(
            rows(&e, "toolu_t1"),
            [
                row("tool_queued", "", ""),
                row("permission_decided", "ask", "claude_code_hook"),
                row("permission_requested", "", "claude_code_terminal"),
                row("permission_answered", "allow_once", ""),
                row("permission_decided", "allow", "claude_code_terminal"),
                row("tool_completed", "ok", ""),
            ]
        );
        assert_eq!(session_status(&e), "running");
    }

    #[test]
    fn a_failed_call_is_recorded_and_an_ask_never_run_is_denied_in_the_terminal_at_session_end() {
        let e = env();
        // toolu_f1: allowed in the terminal, then failed.
        hook(&e, "PermissionRequest", "toolu_f1", json!({}));
        hook(
            &e,
            "PostToolUseFailure",
            "toolu_f1",
            json!({"error": "String to replace not found in file.", "is_interrupt": false}),
        );
        // toolu_f2: a Read Gatehouse allowed, interrupted by the user
        // while it ran.
        let read =
            json!({"tool_name": "Read", "tool_input": {"file_path": e.project.join("notes.txt")}});
        let pre = json_out(&hook(&e, "PreToolUse", "toolu_f2", read.clone()));
        assert_eq!(pre["hookSpecificOutput"]["permissionDecision"], "allow");
        let mut failed = read;
        failed["error"] = json!("Interrupted");
        failed["is_interrupt"] = json!(true);
        hook(&e, "PostToolUseFailure", "toolu_f2", failed);
        // toolu_f3: asked in the terminal, and nothing ever ran.
        hook(&e, "PermissionRequest", "toolu_f3", json!({}));
        assert_eq!(session_status(&e), "running");
        let end = cli(
            &e,
            &["claude-code", "hook", "SessionEnd"],
            json!({"session_id": SESSION, "transcript_path": e.project.join("t.jsonl"),
                   "cwd": e.project, "hook_event_name": "SessionEnd", "reason": "prompt_input_exit"})
            .to_string()
            .as_bytes(),
        );
        assert_eq!(end.status.code(), Some(0));
        assert!(end.stdout.is_empty());

        assert_eq!(
            rows(&e, "toolu_f1"),
            [
                row("tool_queued", "", ""),
                row("permission_requested", "", "claude_code_terminal"),
                row("permission_answered", "allow_once", ""),
                row("permission_decided", "allow", "claude_code_terminal"),
                row("tool_completed", "error", ""),
            ]
        );
        assert_eq!(
            rows(&e, "toolu_f2"),
            [
                row("tool_queued", "", ""),
                row("permission_decided", "allow", "claude_code_hook"),
                row("tool_completed", "interrupted", ""),
            ]
        );
        assert_eq!(
            rows(&e, "toolu_f3"),
            [
                row("tool_queued", "", ""),
                row("permission_requested", "", "claude_code_terminal"),
                row("permission_answered", "deny", ""),
                row("permission_decided", "deny", "claude_code_terminal"),
                row("tool_completed", "denied", ""),
            ]
        );
        assert_eq!(session_status(&e), "ended");
    }

    #[test]
    fn session_end_of_a_session_never_recorded_records_nothing() {
        let e = env();
        let end = cli(
            &e,
            &["claude-code", "hook", "SessionEnd"],
            json!({"session_id": "never-seen", "hook_event_name": "SessionEnd", "reason": "other"})
                .to_string()
                .as_bytes(),
        );
        assert_eq!(end.status.code(), Some(0));
        let list = cli(&e, &["sessions", "list"], b"");
        assert!(
            list.stdout.is_empty(),
            "{}",
            String::from_utf8_lossy(&list.stdout)
        );
    }
}

#[test]
fn every_hook_call_is_in_the_ledger_and_the_wal_does_not_pile_up() {
    let e = env();
    let wal = e.data.join("gatehouse.sqlite3-wal");
    let transcript = e.project.join("t.jsonl");
    let (mut truncated, mut previous) = (false, 0);
    for n in 0..30 {
        let id = format!("toolu_w{n}");
        let out = cli(
            &e,
            &["claude-code", "hook", "PreToolUse"],
            &pre_tool_use("git status --short", &id, &transcript),
        );
        assert!(!json_out(&out)["hookSpecificOutput"].is_null());
        // The process has exited without checkpointing (its commits are in
        // the WAL), but the WAL stays bounded: over 1 MiB, the next call
        // checkpoints and truncates it (left alone, every process recovers
        // all of it and it grows without bound).
        let len = std::fs::metadata(&wal).map_or(0, |m| m.len());
        assert!(len < 2 * 1024 * 1024, "call {n}: the WAL is {len} bytes");
        truncated |= len < previous;
        previous = len;
    }
    assert!(truncated, "the WAL was never truncated");
    let shown = cli(&e, &["sessions", "show", "0b7c2a9e-cli-test"], b"");
    assert_eq!(shown.status.code(), Some(0));
    let queued: Vec<String> = String::from_utf8_lossy(&shown.stdout)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|ev| ev["type"] == "tool_queued")
        .map(|ev| ev["tool_use_id"].as_str().unwrap().to_owned())
        .collect();
    let expected: Vec<String> = (0..30).map(|n| format!("toolu_w{n}")).collect();
    assert_eq!(queued, expected, "every call is in the ledger, in order");
}
