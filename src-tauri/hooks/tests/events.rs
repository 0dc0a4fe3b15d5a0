//! PostToolUse (a real formatter), PostToolUseFailure, PermissionRequest,
//! Notification, UserPromptSubmit, Stop, SessionStart and the transcript,
//! through the real conversation loop with a scripted model.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;

use common::{Env, command, hooks_json};
use gatehouse_agent::provider::replay::{ReplayProvider, Script};
use gatehouse_agent::{Agent, AgentConfig, Message};
use gatehouse_core::CallStatus;
use gatehouse_core::ask::AskAnswer;
use gatehouse_protocol::event::{SessionErrorKind, SessionStatus};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

fn history_text(history: &[Message]) -> String {
    history
        .iter()
        .flat_map(|m| m.content.iter().map(|b| b.to_json().to_string()))
        .collect::<Vec<_>>()
        .join("\n")
}

fn scripted(s: &common::Session, script: Value) -> (Agent, Arc<ReplayProvider>) {
    let provider = Arc::new(ReplayProvider::new(
        Script::parse(&script.to_string()).unwrap(),
    ));
    let agent = Agent::new(
        provider.clone(),
        Arc::clone(&s.rt),
        AgentConfig::new("scripted"),
        s.ctx.clone(),
    );
    (agent, provider)
}

#[tokio::test]
async fn a_post_tool_use_formatter_hook_formats_what_write_wrote() {
    let env = Env::new();
    std::fs::create_dir(env.dir().join("src")).unwrap();
    let fmt = command(
        "python3 -c 'import json,subprocess,sys; d=json.load(sys.stdin); subprocess.run([\"rustfmt\", \"--edition\", \"2021\", d[\"tool_input\"][\"file_path\"]], check=True)'",
    );
    env.project_settings(&hooks_json("PostToolUse", Some("Edit|Write"), fmt));
    let mut s = env.session();
    let path = env.dir().join("src/lib.rs");
    let r = s
        .call(
            "t1",
            "Write",
            json!({"file_path": path.display().to_string(), "content": "fn  main( ){let x=1;}"}),
        )
        .await;
    // Writes ask in the default mode; the scripted user says no, so allow.
    assert!(matches!(r.status, CallStatus::Denied), "{}", r.text());
    let mut env = env;
    env.answer = AskAnswer::AllowOnce;
    let mut s = env.session();
    let r = s
        .call(
            "t2",
            "Write",
            json!({"file_path": path.display().to_string(), "content": "fn  main( ){let x=1;}"}),
        )
        .await;
    assert_eq!(r.status, CallStatus::Succeeded, "{}", r.text());
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "fn main() {\n    let x = 1;\n}\n"
    );
    let runs = s.hook_runs();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].event, "PostToolUse");
    assert_eq!(runs[0].run.as_ref().unwrap().exit_code, Some(0));
}

#[tokio::test]
async fn post_tool_use_stdin_exit_2_and_context_reach_the_model_after_the_result() {
    let env = Env::new();
    let settings = json!({"hooks": {
        "PostToolUse": [{"matcher": "Bash", "hooks": [
            command("cat > post.json; echo 'lint failed' >&2; exit 2"),
            command("cat >/dev/null; echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PostToolUse\", \"additionalContext\": \"remember the style guide\"}}'")
        ]}],
        "PostToolUseFailure": [{"hooks": [command("cat > failure.json")]}]
    }});
    env.project_settings(&settings.to_string());
    let mut env = env;
    env.answer = AskAnswer::AllowOnce;
    let mut s = env.session();
    let r = s
        .call("t1", "Bash", json!({"command": "echo out; echo err >&2"}))
        .await;
    assert_eq!(r.status, CallStatus::Succeeded);
    assert!(
        !r.text().contains("lint failed"),
        "not inside the tool_result"
    );
    let extra: Vec<String> = r
        .new_messages
        .iter()
        .flat_map(|m| m.content.iter())
        .map(|c| {
            serde_json::to_value(c).unwrap()["text"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert!(extra.contains(&"PostToolUse:Bash hook error: [cat > post.json; echo 'lint failed' >&2; exit 2]: lint failed".to_owned()), "{extra:#?}");
    assert!(
        extra.contains(
            &"PostToolUse:Bash hook additional context: remember the style guide".to_owned()
        ),
        "{extra:#?}"
    );
    let post: Value =
        serde_json::from_str(&std::fs::read_to_string(env.dir().join("post.json")).unwrap())
            .unwrap();
    assert_eq!(post["hook_event_name"], "PostToolUse");
    let response = &post["tool_response"];
    assert_eq!(response["interrupted"], false);
    assert_eq!(response["isImage"], false);
    assert_eq!(response["noOutputExpected"], false);
    assert!(response["stdout"].as_str().unwrap().contains("out"));
    assert!(post["duration_ms"].is_u64());
    assert!(
        !env.dir().join("failure.json").exists(),
        "a success fires only PostToolUse"
    );

    // A failing call fires only PostToolUseFailure.
    let r = s
        .call("t2", "Bash", json!({"command": "sleep 5", "timeout": 300}))
        .await;
    assert_eq!(r.status, CallStatus::TimedOut, "{}", r.text());
    let failure: Value =
        serde_json::from_str(&std::fs::read_to_string(env.dir().join("failure.json")).unwrap())
            .unwrap();
    assert_eq!(failure["hook_event_name"], "PostToolUseFailure");
    assert!(failure.get("tool_response").is_none());
    assert!(
        failure["error"].as_str().unwrap().contains("timed out"),
        "{failure}"
    );
    assert_eq!(failure["is_interrupt"], false);
    assert!(failure["duration_ms"].is_u64());
}

#[tokio::test]
async fn permission_request_hooks_answer_for_the_user_but_never_lift_an_ask_rule() {
    let env = Env::new();
    let settings = json!({
        "permissions": {"ask": ["Bash(git push *)"]},
        "hooks": {
            "PermissionRequest": [{"matcher": "Bash", "hooks": [command(
                "cat > req.json; echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PermissionRequest\", \"decision\": {\"behavior\": \"allow\"}}}'")]}],
            "Notification": [{"hooks": [command("cat > notified.json")]}]
        }
    });
    env.project_settings(&settings.to_string());
    let mut s = env.session();
    // A default ask: the hook allows on the user's behalf; nobody is asked.
    let r = s.call("t1", "Bash", json!({"command": "touch x"})).await;
    assert_eq!(r.status, CallStatus::Succeeded, "{}", r.text());
    assert_eq!(s.ask.count(), 0);
    let req: Value =
        serde_json::from_str(&std::fs::read_to_string(env.dir().join("req.json")).unwrap())
            .unwrap();
    assert_eq!(req["hook_event_name"], "PermissionRequest");
    assert_eq!(req["tool_input"]["command"], "touch x");
    // An ask rule: the hook's allow does not count; the user is asked.
    let r = s
        .call("t2", "Bash", json!({"command": "git push origin main"}))
        .await;
    assert_eq!(s.ask.count(), 1);
    assert_eq!(r.status, CallStatus::Denied);
    // ... and the Notification hook was told (on its own task).
    let path = env.dir().join("notified.json");
    let mut n = 0;
    while !path.exists() || std::fs::read_to_string(&path).unwrap().is_empty() {
        n += 1;
        assert!(n < 500, "the notification hook never ran");
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    let note: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(note["hook_event_name"], "Notification");
    assert_eq!(note["notification_type"], "permission_prompt");
}

#[tokio::test]
async fn a_permission_request_deny_refuses_without_asking() {
    let env = Env::new();
    env.project_settings(&hooks_json(
        "PermissionRequest",
        None,
        command("cat >/dev/null; echo '{\"hookSpecificOutput\": {\"decision\": {\"behavior\": \"deny\", \"message\": \"not at night\"}}}'"),
    ));
    let mut s = env.session();
    let r = s.call("t1", "Bash", json!({"command": "touch y"})).await;
    assert_eq!(r.status, CallStatus::Denied);
    assert_eq!(s.ask.count(), 0);
    assert!(r.text().contains("not at night"), "{}", r.text());
    assert!(!env.dir().join("y").exists());
}

#[tokio::test]
async fn user_prompt_submit_blocks_or_adds_context_and_session_start_context_comes_first() {
    let env = Env::new();
    env.script(
        "prompt.sh",
        "d=$(cat); case \"$d\" in *password*) echo 'no secrets in prompts' >&2; exit 2;; esac; echo 'the build is green'",
    );
    let settings = json!({"hooks": {
        "UserPromptSubmit": [{"hooks": [command("./prompt.sh")]}],
        "SessionStart": [{"matcher": "startup", "hooks": [command("cat >/dev/null; echo 'branch: main'")]}]
    }});
    env.project_settings(&settings.to_string());
    let s = env.session();
    s.hooks.session_start("startup").await;
    let (mut agent, provider) = scripted(
        &s,
        json!({"turns": [{"content": [{"type": "text", "text": "ok"}]}]}),
    );
    let out = agent
        .run_prompt("my password is hunter2", &CancellationToken::new())
        .await;
    assert_eq!(out.status, SessionStatus::Failed);
    let (kind, message) = out.error.unwrap();
    assert_eq!(kind, SessionErrorKind::HookBlocked);
    assert!(
        message.ends_with("[./prompt.sh]: no secrets in prompts"),
        "{message}"
    );
    assert_eq!(provider.played(), 0, "the model never saw it");
    assert!(agent.history().is_empty());

    let out = agent.run_prompt("hello", &CancellationToken::new()).await;
    assert_eq!(out.status, SessionStatus::Completed);
    let text = history_text(agent.history());
    assert!(
        text.contains("SessionStart hook additional context: branch: main"),
        "{text}"
    );
    assert!(
        text.contains("UserPromptSubmit hook additional context: the build is green"),
        "{text}"
    );
}

#[tokio::test]
async fn a_stop_hook_sends_the_model_back_once_and_the_loop_guard_holds() {
    let env = Env::new();
    env.script(
        "stop.sh",
        "d=$(cat); case \"$d\" in *'\"stop_hook_active\":true'*) exit 0;; esac; echo '{\"decision\": \"block\", \"reason\": \"run the tests first\"}'",
    );
    env.project_settings(&hooks_json("Stop", None, command("./stop.sh")));
    let s = env.session();
    let turns: Vec<Value> = (0..12)
        .map(|i| json!({"content": [{"type": "text", "text": format!("reply {i}")}]}))
        .collect();
    let (mut agent, provider) = scripted(&s, json!({"turns": turns}));
    let out = agent.run_prompt("fix it", &CancellationToken::new()).await;
    assert_eq!(out.status, SessionStatus::Completed);
    assert_eq!(provider.played(), 2);
    assert!(history_text(agent.history()).contains("Stop hook feedback:\\nrun the tests first"));

    // A hook that ignores stop_hook_active: the guard stops the loop.
    let env2 = Env::new();
    env2.project_settings(&hooks_json(
        "Stop",
        None,
        command("cat >/dev/null; echo 'keep going' >&2; exit 2"),
    ));
    let s2 = env2.session();
    let turns: Vec<Value> = (0..20)
        .map(|i| json!({"content": [{"type": "text", "text": format!("reply {i}")}]}))
        .collect();
    let (mut agent, provider) = scripted(&s2, json!({"turns": turns}));
    let out = agent.run_prompt("go", &CancellationToken::new()).await;
    assert_eq!(out.status, SessionStatus::Completed);
    assert_eq!(
        provider.played(),
        1 + gatehouse_agent::agent::MAX_STOP_CONTINUATIONS as usize
    );
}

#[tokio::test]
async fn a_logger_hook_reads_the_claude_code_transcript() {
    let env = Env::new();
    env.project_settings(&hooks_json(
        "Stop",
        None,
        command("python3 -c 'import json,shutil,sys; d=json.load(sys.stdin); shutil.copy(d[\"transcript_path\"], \"log.jsonl\")'"),
    ));
    let s = env.session_with(true);
    let (mut agent, _) = scripted(
        &s,
        json!({"turns": [
            {"content": [{"type": "text", "text": "Looking."}, {"type": "tool_use", "name": "Glob", "input": {"pattern": "*.md"}}]},
            {"content": [{"type": "text", "text": "No markdown here."}]}
        ]}),
    );
    let out = agent
        .run_prompt("any docs?", &CancellationToken::new())
        .await;
    assert_eq!(out.status, SessionStatus::Completed);
    let log = std::fs::read_to_string(env.dir().join("log.jsonl")).unwrap();
    let lines: Vec<Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let kinds: Vec<&str> = lines.iter().map(|l| l["type"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["user", "assistant", "user", "assistant"]);
    assert_eq!(lines[0]["message"]["content"], "any docs?");
    assert_eq!(lines[1]["message"]["content"][1]["type"], "tool_use");
    assert_eq!(lines[2]["message"]["content"][0]["type"], "tool_result");
    assert_eq!(
        lines[3]["message"]["content"][0]["text"],
        "No markdown here."
    );
    assert_eq!(lines[1]["parentUuid"], lines[0]["uuid"]);
    assert_eq!(lines[0]["sessionId"], "s");
}
