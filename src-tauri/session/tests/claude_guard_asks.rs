//! A guarded Claude Code's call that Gatehouse would ask about is asked in
//! the running window from PreToolUse (issue 25 item 2): Claude Code in
//! print mode or the SDK turns a hook's "ask" straight into a denial, so
//! the window must answer before the hook does. Real socket (the window's
//! side is `bridge::serve` with a handler standing in for the modal), real
//! settings files, real SQLite store.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use gatehouse_protocol::claude_code::ClaudeCodeAsk;
use gatehouse_protocol::event::EventBody;
use gatehouse_protocol::permission::{DecisionReason, PermissionBehavior};
use gatehouse_protocol::session::PermissionAnswer;
use gatehouse_session::claude_guard::bridge::{AskHandler, serve};
use gatehouse_session::claude_guard::hook::{HookEnv, HookReply, handle};
use gatehouse_session::claude_guard::{GUARD_EVENTS, GuardChange, GuardScope, guard};
use gatehouse_store::Store;
use serde_json::{Value, json};

mod common;

use common::Dirs;

fn dirs() -> Dirs {
    Dirs::new()
}

/// The window's side: every ask it gets is kept, and answered `answer`.
fn window(answer: PermissionAnswer) -> (AskHandler, Arc<Mutex<Vec<ClaudeCodeAsk>>>) {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let kept = Arc::clone(&asked);
    let handler: AskHandler = Arc::new(move |ask: ClaudeCodeAsk| {
        kept.lock().unwrap().push(ask);
        let answer = answer.clone();
        Box::pin(async move { Some(answer) })
    });
    (handler, asked)
}

/// Claude Code's PreToolUse hook for `tool`/`input`, run as the hook
/// process runs it (blocking, off the runtime).
async fn pre_tool_use(d: &Dirs, id: &str, tool: &str, input: Value) -> HookReply {
    let stdin = json!({
        "session_id": "cc-asks",
        "transcript_path": d.project.join("t.jsonl"),
        "cwd": d.project,
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": input,
        "tool_use_id": id,
    });
    let env = HookEnv {
        data_dir: d.data.clone(),
        home: d.home.clone(),
        claude_project_dir: Some(d.project.clone()),
        process_cwd: d.project.clone(),
        ask_timeout: Duration::from_secs(30),
        path: std::env::var_os("PATH"),
    };
    tokio::task::spawn_blocking(move || handle("PreToolUse", stdin.to_string().as_bytes(), &env))
        .await
        .unwrap()
}

fn output(reply: &HookReply) -> &Value {
    &reply.stdout.as_ref().expect("a decision")["hookSpecificOutput"]
}

fn edit(d: &Dirs) -> Value {
    json!({"file_path": d.project.join("README.md"), "old_string": "wrold", "new_string": "world"})
}

#[tokio::test]
async fn an_edit_gatehouse_would_ask_about_is_answered_in_the_window_from_pre_tool_use() {
    let d = dirs();
    std::fs::write(d.project.join("README.md"), "hello wrold\n").unwrap();
    let (handler, asked) = window(PermissionAnswer::AllowOnce);
    let _serving = serve(&d.data, handler).await.unwrap();

    let reply = pre_tool_use(&d, "toolu_edit", "Edit", edit(&d)).await;
    assert!(reply.problems.is_empty(), "{:?}", reply.problems);
    let out = output(&reply);
    assert_eq!(out["hookEventName"], "PreToolUse");
    assert_eq!(out["permissionDecision"], "allow", "{out}");

    let asks = asked.lock().unwrap().clone();
    assert_eq!(asks.len(), 1);
    assert_eq!(asks[0].tool_use_id, "toolu_edit");
    assert_eq!(asks[0].project, d.project.display().to_string());
    assert!(
        asks[0].preview.is_some(),
        "the modal gets the edit's diff preview"
    );

    // The ledger: answered by the user in Gatehouse, with Gatehouse's own
    // reason for asking before it.
    let store = Store::open(&d.data).unwrap();
    let (events, _) = store.session_events("cc-asks").unwrap();
    let bodies: Vec<&EventBody> = events.iter().map(|e| &e.body).collect();
    assert!(
        matches!(bodies[0], EventBody::SessionStarted { .. }),
        "{bodies:?}"
    );
    assert!(
        matches!(bodies[1], EventBody::ToolQueued { tool_use_id, .. } if tool_use_id == "toolu_edit")
    );
    assert!(matches!(
        bodies[2],
        EventBody::PermissionAnswered {
            answer: PermissionAnswer::AllowOnce,
            ..
        }
    ));
    let EventBody::PermissionDecided {
        decision,
        reason,
        trace,
        ..
    } = bodies[3]
    else {
        panic!("{bodies:?}")
    };
    assert_eq!(*decision, PermissionBehavior::Allow);
    assert!(
        matches!(reason, DecisionReason::UserAnswer { .. }),
        "{reason:?}"
    );
    let last = trace.last().unwrap();
    assert_eq!(last.layer, "claude_code_hook");
    assert!(last.detail.contains("PreToolUse"), "{last:?}");
    assert!(
        trace.iter().any(|s| s.layer == "default"),
        "why Gatehouse asked stays in the trace: {trace:?}"
    );
    assert_eq!(
        bodies.len(),
        4,
        "one decision, no 'ask' recorded: {bodies:?}"
    );
}

#[tokio::test]
async fn a_denial_in_the_window_reaches_claude_code_with_the_users_words() {
    let d = dirs();
    let (handler, _) = window(PermissionAnswer::Deny {
        feedback: Some("not in this branch".into()),
    });
    let _serving = serve(&d.data, handler).await.unwrap();

    let reply = pre_tool_use(&d, "toolu_no", "Edit", edit(&d)).await;
    let out = output(&reply);
    assert_eq!(out["permissionDecision"], "deny");
    assert_eq!(out["permissionDecisionReason"], "not in this branch");
    let store = Store::open(&d.data).unwrap();
    let (events, _) = store.session_events("cc-asks").unwrap();
    assert!(events.iter().any(|e| matches!(
        &e.body,
        EventBody::ToolCompleted { tool_use_id, .. } if tool_use_id == "toolu_no"
    )));
}

#[tokio::test]
async fn allowed_and_denied_calls_never_reach_the_window_and_without_one_gatehouse_answers_ask() {
    let d = dirs();
    std::fs::create_dir_all(d.project.join(".claude")).unwrap();
    std::fs::write(
        d.project.join(".claude/settings.json"),
        r#"{"permissions": {"deny": ["Bash(git push:*)"]}}"#,
    )
    .unwrap();
    {
        let (handler, asked) = window(PermissionAnswer::AllowOnce);
        let serving = serve(&d.data, handler).await.unwrap();
        let allow = pre_tool_use(&d, "toolu_ls", "Bash", json!({"command": "ls"})).await;
        assert_eq!(output(&allow)["permissionDecision"], "allow");
        let deny = pre_tool_use(
            &d,
            "toolu_push",
            "Bash",
            json!({"command": "git push origin main"}),
        )
        .await;
        assert_eq!(output(&deny)["permissionDecision"], "deny");
        assert!(asked.lock().unwrap().is_empty(), "the window was not asked");
        drop(serving);
    }
    // The window is gone: the same ask is Claude Code's to make.
    let reply = pre_tool_use(&d, "toolu_later", "Edit", edit(&d)).await;
    assert_eq!(output(&reply)["permissionDecision"], "ask");
}

#[test]
fn guard_rewrites_an_older_install_whose_pre_tool_use_entry_times_out_sooner() {
    let d = dirs();
    let cli = std::path::Path::new("/usr/bin/gatehouse-cli");
    guard(
        GuardScope::Project,
        &d.home,
        &d.project,
        cli,
        &d.data,
        false,
    )
    .unwrap();
    let file = d.project.join(".claude/settings.local.json");
    let mut settings: Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let timeout = settings
        .pointer_mut("/hooks/PreToolUse/0/hooks/0/timeout")
        .unwrap();
    assert_eq!(*timeout, json!(600), "PreToolUse may wait for the window");
    // As an older Gatehouse wrote it.
    *timeout = json!(30);
    std::fs::write(&file, settings.to_string()).unwrap();

    let again = guard(
        GuardScope::Project,
        &d.home,
        &d.project,
        cli,
        &d.data,
        false,
    )
    .unwrap();
    assert_eq!(again.change, GuardChange::Changed);
    let text = std::fs::read_to_string(&file).unwrap();
    let settings: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        settings.pointer("/hooks/PreToolUse/0/hooks/0/timeout"),
        Some(&json!(600))
    );
    assert_eq!(
        text.matches("/usr/bin/gatehouse-cli claude-code hook")
            .count(),
        GUARD_EVENTS.len()
    );
    let unchanged = guard(
        GuardScope::Project,
        &d.home,
        &d.project,
        cli,
        &d.data,
        false,
    )
    .unwrap();
    assert_eq!(unchanged.change, GuardChange::Unchanged);
}
