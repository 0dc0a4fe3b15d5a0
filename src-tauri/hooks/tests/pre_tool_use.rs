//! PreToolUse hooks from real settings files, run as real processes,
//! against the real engine and tools.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{Env, command, hooks_json};
use gatehouse_core::CallStatus;
use gatehouse_protocol::event::RejectionStage;
use gatehouse_protocol::permission::{PermissionBehavior, PermissionMode, RuleSource};
use serde_json::{Value, json};

#[tokio::test]
async fn exit_2_blocks_with_claude_codes_text_and_the_trace_names_the_hook() {
    let env = Env::new();
    env.script("guard.sh", "cat >/dev/null; echo 'no rm here' >&2; exit 2");
    env.project_settings(&hooks_json(
        "PreToolUse",
        Some("Bash"),
        command("./guard.sh"),
    ));
    let mut s = env.session();
    let r = s
        .call("t1", "Bash", json!({"command": "rm -rf build"}))
        .await;
    assert_eq!(r.status, CallStatus::Denied);
    assert_eq!(
        r.text(),
        "PreToolUse:Bash hook error: [./guard.sh]: no rm here"
    );
    let (decision, trace) = s.decision("t1");
    assert_eq!(decision, PermissionBehavior::Deny);
    assert!(
        trace.iter().any(|t| t.detail
            == "PreToolUse hook `./guard.sh` (project settings) denied: [./guard.sh]: no rm here"),
        "{trace:#?}"
    );
    let runs = s.hook_runs();
    assert_eq!(runs.len(), 1);
    let run = runs[0].run.clone().unwrap();
    assert_eq!(run.exit_code, Some(2));
    assert_eq!(run.source, Some(RuleSource::Project));
    assert_eq!(run.command, "./guard.sh");
    assert_eq!(run.matcher.as_deref(), Some("Bash"));
    assert!(run.file.unwrap().ends_with(".claude/settings.json"));
    assert_eq!(run.stderr, "no rm here\n");
    assert!(runs[0].blocked);
}

#[tokio::test]
async fn stdin_is_claude_codes_and_the_env_names_the_project() {
    let env = Env::new();
    env.script(
        "dump.sh",
        "cat > \"$CLAUDE_PROJECT_DIR/stdin.json\"; printf '%s|%s|%s' \"$CLAUDE_PROJECT_DIR\" \"$GATEHOUSE_PROJECT_DIR\" \"$PWD\" > env.txt",
    );
    env.project_settings(&hooks_json("PreToolUse", None, command("./dump.sh")));
    let mut s = env.session();
    let r = s.call("t1", "Glob", json!({"pattern": "*.sh"})).await;
    assert_eq!(r.status, CallStatus::Succeeded, "{}", r.text());
    let stdin: Value =
        serde_json::from_str(&std::fs::read_to_string(env.dir().join("stdin.json")).unwrap())
            .unwrap();
    let mut keys: Vec<_> = stdin.as_object().unwrap().keys().cloned().collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "cwd",
            "hook_event_name",
            "permission_mode",
            "session_id",
            "tool_input",
            "tool_name",
            "tool_use_id",
            "transcript_path"
        ]
    );
    assert_eq!(stdin["hook_event_name"], "PreToolUse");
    assert_eq!(stdin["tool_name"], "Glob");
    assert_eq!(stdin["tool_input"]["pattern"], "*.sh");
    assert_eq!(stdin["tool_use_id"], "t1");
    assert_eq!(stdin["permission_mode"], "default");
    assert_eq!(stdin["session_id"], "s");
    let dir = env.dir().display().to_string();
    assert_eq!(stdin["cwd"], dir.as_str());
    assert_eq!(
        std::fs::read_to_string(env.dir().join("env.txt")).unwrap(),
        format!("{dir}|{dir}|{dir}")
    );
}

#[tokio::test]
async fn exec_form_runs_without_a_shell() {
    let env = Env::new();
    env.project_settings(&hooks_json(
        "PreToolUse",
        None,
        json!({"type": "command", "args": ["/bin/sh", "-c", "echo '$HOME not expanded' >&2; exit 2", "x"]}),
    ));
    let mut s = env.session();
    let r = s.call("t1", "Glob", json!({"pattern": "*"})).await;
    assert_eq!(r.status, CallStatus::Denied);
    assert!(r.text().ends_with(": $HOME not expanded"), "{}", r.text());
}

fn json_hook(decision: &str) -> Value {
    command(&format!(
        "cat >/dev/null; echo '{{\"hookSpecificOutput\": {{\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"{decision}\", \"permissionDecisionReason\": \"hook says {decision}\"}}}}'"
    ))
}

#[tokio::test]
async fn a_hook_allow_never_beats_a_deny_rule() {
    let env = Env::new();
    let mut settings: Value =
        serde_json::from_str(&hooks_json("PreToolUse", Some("Bash"), json_hook("allow"))).unwrap();
    settings["permissions"] = json!({"deny": ["Bash(echo *)"]});
    env.project_settings(&settings.to_string());
    let mut s = env.session();
    let r = s.call("t1", "Bash", json!({"command": "echo hi"})).await;
    assert_eq!(r.status, CallStatus::Denied, "{}", r.text());
    let (_, trace) = s.decision("t1");
    assert!(
        trace
            .iter()
            .any(|t| t.detail.contains("allowed, which is ignored")),
        "{trace:#?}"
    );
}

#[tokio::test]
async fn a_hook_allow_never_beats_an_ask_rule() {
    let env = Env::new();
    let mut settings: Value =
        serde_json::from_str(&hooks_json("PreToolUse", Some("Bash"), json_hook("allow"))).unwrap();
    settings["permissions"] = json!({"ask": ["Bash(echo *)"]});
    env.project_settings(&settings.to_string());
    let mut s = env.session();
    let r = s.call("t1", "Bash", json!({"command": "echo hi"})).await;
    // The scripted user denies: the call was asked about.
    assert_eq!(s.ask.count(), 1);
    assert_eq!(r.status, CallStatus::Denied);
}

#[tokio::test]
async fn a_hook_allow_never_beats_a_protected_path_in_bypass_mode() {
    let mut env = Env::new();
    env.mode = PermissionMode::BypassPermissions;
    std::fs::create_dir_all(env.dir().join(".git")).unwrap();
    env.project_settings(&hooks_json("PreToolUse", Some("Write"), json_hook("allow")));
    let mut s = env.session();
    let path = env.dir().join(".git/info-hook");
    let r = s
        .call(
            "t1",
            "Write",
            json!({"file_path": path.display().to_string(), "content": "x"}),
        )
        .await;
    assert_eq!(s.ask.count(), 1, "a protected path asks even in bypass");
    assert_eq!(r.status, CallStatus::Denied);
    assert!(!path.exists());
}

#[tokio::test]
async fn a_hook_allow_lifts_the_default_ask() {
    let env = Env::new();
    env.project_settings(&hooks_json("PreToolUse", Some("Bash"), json_hook("allow")));
    let mut s = env.session();
    let r = s
        .call("t1", "Bash", json!({"command": "touch made-by-bash"}))
        .await;
    assert_eq!(s.ask.count(), 0);
    assert_eq!(r.status, CallStatus::Succeeded, "{}", r.text());
    assert!(env.dir().join("made-by-bash").exists());
}

#[tokio::test]
async fn updated_input_into_a_denied_command_is_denied() {
    let env = Env::new();
    let hook = command(
        "cat >/dev/null; echo '{\"hookSpecificOutput\": {\"permissionDecision\": \"allow\", \"updatedInput\": {\"command\": \"rm -rf important\"}}}'",
    );
    let mut settings: Value =
        serde_json::from_str(&hooks_json("PreToolUse", Some("Bash"), hook)).unwrap();
    settings["permissions"] = json!({"deny": ["Bash(rm *)"]});
    env.project_settings(&settings.to_string());
    std::fs::create_dir(env.dir().join("important")).unwrap();
    let mut s = env.session();
    let r = s.call("t1", "Bash", json!({"command": "ls"})).await;
    assert_eq!(r.status, CallStatus::Denied, "{}", r.text());
    assert!(env.dir().join("important").exists());
    assert!(s.hook_runs()[0].input_updated);
}

#[tokio::test]
async fn a_partial_updated_input_is_refused_by_the_schema() {
    let env = Env::new();
    // Claude Code replaces the whole input: `content` is then missing.
    let hook = command(
        "cat >/dev/null; echo '{\"hookSpecificOutput\": {\"updatedInput\": {\"file_path\": \"/tmp/x\"}}}'",
    );
    env.project_settings(&hooks_json("PreToolUse", Some("Write"), hook));
    let mut s = env.session();
    let target = env.dir().join("new.txt");
    let r = s
        .call(
            "t1",
            "Write",
            json!({"file_path": target.display().to_string(), "content": "hello"}),
        )
        .await;
    assert_eq!(
        r.status,
        CallStatus::Rejected(RejectionStage::Schema),
        "{}",
        r.text()
    );
    assert!(r.text().contains("rewritten by hook"), "{}", r.text());
    assert!(!target.exists());
}

#[tokio::test]
async fn parallel_handlers_run_together_and_deny_beats_ask_beats_allow() {
    let env = Env::new();
    // Each waits (bounded) for the other to have started: run one after
    // the other, the first would give up and say nothing.
    let wait_for = |mine: &str, other: &str, decision: &str| {
        command(&format!(
            "cat >/dev/null; touch {mine}; i=0; while [ ! -e {other} ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done; \
             [ -e {other} ] && echo '{{\"hookSpecificOutput\": {{\"permissionDecision\": \"{decision}\", \"permissionDecisionReason\": \"{mine}\"}}}}'"
        ))
    };
    let settings = json!({"hooks": {"PreToolUse": [
        {"matcher": "Glob", "hooks": [wait_for("a", "b", "allow"), wait_for("b", "a", "deny")]},
        {"matcher": "*", "hooks": [command("cat >/dev/null; echo '{\"hookSpecificOutput\": {\"permissionDecision\": \"ask\"}}'")]}
    ]}});
    env.project_settings(&settings.to_string());
    let mut s = env.session();
    let r = s.call("t1", "Glob", json!({"pattern": "*"})).await;
    let runs = s.hook_runs();
    assert_eq!(runs.len(), 3);
    let decisions: Vec<_> = runs.iter().map(|r| r.decision).collect();
    assert!(
        decisions.contains(&Some(PermissionBehavior::Allow)),
        "{runs:#?}"
    );
    assert!(
        decisions.contains(&Some(PermissionBehavior::Deny)),
        "{runs:#?}"
    );
    assert!(
        decisions.contains(&Some(PermissionBehavior::Ask)),
        "{runs:#?}"
    );
    assert_eq!(r.status, CallStatus::Denied);
    assert_eq!(r.text(), "PreToolUse:Glob hook error: b");
    assert_eq!(s.ask.count(), 0);
}

#[tokio::test]
async fn the_if_filter_uses_the_permission_rule_matcher() {
    let env = Env::new();
    let mut h = command("cat >/dev/null; echo ran >> ran.txt");
    h["if"] = json!("Bash(git *)");
    env.project_settings(&hooks_json("PreToolUse", Some("Bash"), h));
    let mut s = env.session();
    s.call("t1", "Bash", json!({"command": "ls"})).await;
    assert!(!env.dir().join("ran.txt").exists());
    s.call("t2", "Bash", json!({"command": "git status"})).await;
    assert_eq!(
        std::fs::read_to_string(env.dir().join("ran.txt")).unwrap(),
        "ran\n"
    );
    assert_eq!(s.hook_runs().len(), 1);
}

#[tokio::test]
async fn matchers_are_claude_codes() {
    let env = Env::new();
    let settings = json!({"hooks": {"PreToolUse": [
        {"matcher": "Bas", "hooks": [command("cat >/dev/null; echo exact >> m.txt")]},
        {"matcher": "G.ob", "hooks": [command("cat >/dev/null; echo regex >> m.txt")]},
        {"matcher": "Read|Glob", "hooks": [command("cat >/dev/null; echo list >> m.txt")]},
        {"matcher": "", "hooks": [command("cat >/dev/null; echo all >> m.txt")]}
    ]}});
    env.project_settings(&settings.to_string());
    let mut s = env.session();
    s.call("t1", "Glob", json!({"pattern": "*"})).await;
    let mut lines: Vec<String> = std::fs::read_to_string(env.dir().join("m.txt"))
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    lines.sort();
    assert_eq!(lines, ["all", "list", "regex"]);
}

/// An MCP-like tool that declares itself destructive (as an untrusted
/// server's tools, or a trusted one's `destructiveHint`), wrapping the
/// core test tool.
struct Destructive(std::sync::Arc<dyn gatehouse_core::Tool>);

#[async_trait::async_trait]
impl gatehouse_core::Tool for Destructive {
    fn name(&self) -> &str {
        "mcp__db__drop_table"
    }
    fn description(&self) -> &str {
        "drops a table"
    }
    fn input_schema(&self) -> &Value {
        self.0.input_schema()
    }
    fn is_destructive(&self, _input: &Value) -> bool {
        true
    }
    async fn call(
        &self,
        input: Value,
        cx: gatehouse_core::tool::CallContext<'_>,
    ) -> Result<gatehouse_core::ToolResult, gatehouse_core::ToolError> {
        self.0.call(input, cx).await
    }
}

#[tokio::test]
async fn a_hook_allow_never_turns_an_mcp_tools_destructive_ask_into_an_allow() {
    use gatehouse_core::testing::{ScriptedAsk, TestTool};
    let env = Env::new();
    env.project_settings(&hooks_json(
        "PreToolUse",
        Some("mcp__.*"),
        json_hook("allow"),
    ));
    let s = env.session();
    // The same engine and hooks, over a pool with the destructive tool.
    let tool: std::sync::Arc<dyn gatehouse_core::Tool> =
        std::sync::Arc::new(Destructive(TestTool::new("inner").arc()));
    let engine = std::sync::Arc::new(gatehouse_permissions::PermissionEngine::new(
        gatehouse_permissions::EngineContext {
            cwd: env.dir().to_path_buf(),
            home: env.home.path().to_path_buf(),
            additional_dirs: Vec::new(),
            mode: PermissionMode::Default,
        },
        gatehouse_permissions::sources::load(&env.layout()),
    ));
    let ask = ScriptedAsk::new(gatehouse_core::ask::AskAnswer::Deny { feedback: None });
    let rt = gatehouse_core::ToolRuntime::builder(
        std::sync::Arc::new(gatehouse_core::ToolPool::new(vec![tool])),
        engine,
        env.data.path().join("s2"),
    )
    .ask_handler(ask.clone())
    .hooks(s.hooks.runtime_hooks())
    .build();
    let r = rt
        .run_one(
            gatehouse_core::ToolUseBlock::new("t1", "mcp__db__drop_table", json!({})),
            &mut gatehouse_core::ToolUseContext::default(),
            &tokio_util::sync::CancellationToken::new(),
        )
        .await;
    assert_eq!(
        ask.count(),
        1,
        "the destructive call was asked about (a safety check the hook cannot lift)"
    );
    assert_eq!(r.status, CallStatus::Denied);
}
