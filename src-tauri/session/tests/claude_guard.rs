//! Guarding Claude Code (issue 25): Gatehouse's hook entries written into
//! and removed from real settings files (every other byte kept), malformed
//! files refused with their position, status, and hook calls decided and
//! recorded in a real SQLite store.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use gatehouse_protocol::event::EventBody;
use gatehouse_protocol::permission::PermissionBehavior;
use gatehouse_protocol::session::SessionOrigin;
use gatehouse_session::claude_guard::hook::{HookEnv, handle};
use gatehouse_session::claude_guard::install::{guard_event_of, hook_command};
use gatehouse_session::claude_guard::{
    GUARD_EVENTS, GuardChange, GuardError, GuardOutcome, GuardScope, guard, status,
};
use gatehouse_store::Store;
use serde_json::{Value, json};

const CLI: &str = "/opt/gate house/bin/gatehouse-cli";

struct Dirs {
    _root: tempfile::TempDir,
    home: std::path::PathBuf,
    project: std::path::PathBuf,
    data: std::path::PathBuf,
}

fn dirs() -> Dirs {
    let root = tempfile::tempdir().unwrap();
    let home = root.path().join("home");
    let project = root.path().join("project");
    let data = root.path().join("data");
    for d in [&home, &project, &data] {
        std::fs::create_dir_all(d).unwrap();
    }
    Dirs {
        home: home.canonicalize().unwrap(),
        project: project.canonicalize().unwrap(),
        data,
        _root: root,
    }
}

/// `guard` of the project scope of `d`.
fn project_guard(d: &Dirs, cli: &Path, off: bool) -> Result<GuardOutcome, GuardError> {
    guard(GuardScope::Project, &d.home, &d.project, cli, &d.data, off)
}

fn local_settings(d: &Dirs) -> std::path::PathBuf {
    d.project.join(".claude/settings.local.json")
}

const USERS_FILE: &str = r#"{
    "model": "opus",
    "hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "./fmt.sh"}]}
        ]
    },
    "permissions": {
        "deny": ["Bash(git push:*)"]
    }
}
"#;

#[test]
fn guard_adds_the_entries_keeps_everything_else_and_off_restores_the_file_byte_for_byte() {
    let d = dirs();
    let file = local_settings(&d);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, USERS_FILE).unwrap();
    let cli = Path::new(CLI);

    let on = project_guard(&d, cli, false).unwrap();
    assert_eq!(on.change, GuardChange::Changed);
    let text = std::fs::read_to_string(&file).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["model"], "opus");
    assert_eq!(v["permissions"], json!({"deny": ["Bash(git push:*)"]}));
    // The user's own hook is still the first PreToolUse group.
    assert_eq!(
        v["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
        "./fmt.sh"
    );
    for event in GUARD_EVENTS {
        let groups = v["hooks"][event].as_array().unwrap();
        let ours: Vec<&Value> = groups
            .iter()
            .flat_map(|g| g["hooks"].as_array().unwrap())
            .filter(|h| h["command"].as_str().and_then(guard_event_of) == Some(event))
            .collect();
        assert_eq!(ours.len(), 1, "{event}: {text}");
        assert_eq!(ours[0]["type"], "command");
        assert_eq!(
            ours[0]["command"],
            format!("'{CLI}' claude-code hook {event}"),
            "a path with a space is quoted for sh -c"
        );
    }
    // The untouched part of the file keeps its layout (4-space indent).
    assert!(
        text.contains("    \"permissions\": {\n        \"deny\": [\"Bash(git push:*)\"]\n    }"),
        "{text}"
    );

    let again = project_guard(&d, cli, false).unwrap();
    assert_eq!(again.change, GuardChange::Unchanged);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text);

    let off = project_guard(&d, cli, true).unwrap();
    assert_eq!(off.change, GuardChange::Changed);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), USERS_FILE);
    let off_again = project_guard(&d, cli, true).unwrap();
    assert_eq!(off_again.change, GuardChange::Unchanged);
}

#[test]
fn a_file_without_hooks_gets_them_and_loses_the_key_again_with_off() {
    let d = dirs();
    let file = d.home.join(".claude/settings.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let before = "{\n  \"theme\": \"dark\"\n}\n";
    std::fs::write(&file, before).unwrap();
    guard(
        GuardScope::User,
        &d.home,
        Path::new(""),
        Path::new("/usr/bin/gatehouse-cli"),
        &d.data,
        false,
    )
    .unwrap();
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(
        v["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
        "/usr/bin/gatehouse-cli claude-code hook PreToolUse"
    );
    assert_eq!(v["hooks"]["PreToolUse"][0]["matcher"], "*");
    guard(
        GuardScope::User,
        &d.home,
        Path::new(""),
        Path::new("/x"),
        &d.data,
        true,
    )
    .unwrap();
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before);
}

#[test]
fn a_moved_gatehouse_cli_is_replaced_not_added_twice() {
    let d = dirs();
    project_guard(&d, Path::new("/old/gatehouse-cli"), false).unwrap();
    project_guard(&d, Path::new("/new/gatehouse-cli"), false).unwrap();
    let text = std::fs::read_to_string(local_settings(&d)).unwrap();
    assert!(!text.contains("/old/"), "{text}");
    assert_eq!(
        text.matches("/new/gatehouse-cli claude-code hook").count(),
        GUARD_EVENTS.len()
    );
}

#[test]
fn a_malformed_settings_file_is_refused_naming_file_line_and_column_and_left_alone() {
    let d = dirs();
    let file = local_settings(&d);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let broken = "{\n  \"model\": \"x\",\n  oops\n}\n";
    std::fs::write(&file, broken).unwrap();
    let err = project_guard(&d, Path::new(CLI), false).unwrap_err();
    assert!(
        matches!(
            err,
            GuardError::Malformed {
                line: 3,
                column: 3,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .starts_with(&format!("{}:3:3: not valid JSON", file.display())),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), broken);

    std::fs::write(&file, "{\"hooks\": [1]}").unwrap();
    let err = project_guard(&d, Path::new(CLI), true).unwrap_err();
    assert!(
        err.to_string().contains(":1:11: `hooks` is not an object"),
        "{err}"
    );
}

#[test]
fn only_gatehouse_cli_running_claude_code_hook_counts_as_ours() {
    assert_eq!(
        guard_event_of(&hook_command(Path::new(CLI), "PreToolUse")),
        Some("PreToolUse")
    );
    assert_eq!(
        guard_event_of("gatehouse-cli claude-code hook PostToolUse"),
        Some("PostToolUse")
    );
    assert_eq!(
        guard_event_of("my-gatehouse-cli claude-code hook PreToolUse"),
        None
    );
    assert_eq!(guard_event_of("gatehouse-cli claude-code hook Stop"), None);
    assert_eq!(guard_event_of("./fmt.sh"), None);
}

#[test]
fn status_lists_where_the_entries_are_and_names_unreadable_files() {
    let d = dirs();
    let empty = status(&d.home, Some(&d.project), &d.data);
    assert!(empty.installed.is_empty() && empty.last_call.is_none());
    guard(
        GuardScope::User,
        &d.home,
        Path::new(""),
        Path::new(CLI),
        &d.data,
        false,
    )
    .unwrap();
    let other = d.project.join("elsewhere");
    std::fs::create_dir_all(&other).unwrap();
    guard(
        GuardScope::Project,
        &d.home,
        &other,
        Path::new(CLI),
        &d.data,
        false,
    )
    .unwrap();
    let s = status(&d.home, Some(&d.project), &d.data);
    let files: Vec<&str> = s.installed.iter().map(|i| i.file.as_str()).collect();
    assert_eq!(
        files,
        [
            d.home.join(".claude/settings.json").display().to_string(),
            other
                .join(".claude/settings.local.json")
                .display()
                .to_string()
        ]
    );
    assert_eq!(
        s.installed[0].events,
        [
            "PreToolUse",
            "PermissionRequest",
            "PostToolUse",
            "PostToolUseFailure",
            "SessionEnd"
        ]
    );
    std::fs::write(other.join(".claude/settings.local.json"), "{,}").unwrap();
    let s = status(&d.home, Some(&d.project), &d.data);
    assert_eq!(s.installed.len(), 1);
    assert!(
        s.problems[0].contains("settings.local.json:1:2"),
        "{:?}",
        s.problems
    );
}

fn env(d: &Dirs) -> HookEnv {
    HookEnv {
        data_dir: d.data.clone(),
        home: d.home.clone(),
        claude_project_dir: Some(d.project.clone()),
        process_cwd: d.project.clone(),
        ask_timeout: std::time::Duration::from_secs(5),
        path: std::env::var_os("PATH"),
    }
}

fn pre(d: &Dirs, id: &str, tool: &str, input: Value) -> Value {
    pre_in_mode(d, id, tool, input, "default")
}

fn pre_in_mode(d: &Dirs, id: &str, tool: &str, input: Value, mode: &str) -> Value {
    let stdin = json!({
        "session_id": "cc-session-1",
        "transcript_path": d.project.join("t.jsonl"),
        "cwd": d.project,
        "permission_mode": mode,
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": input,
        "tool_use_id": id,
    });
    let reply = handle("PreToolUse", stdin.to_string().as_bytes(), &env(d));
    assert!(reply.problems.is_empty(), "{:?}", reply.problems);
    reply.stdout.unwrap()
}

/// The project's settings deny `git push`.
fn deny_git_push(d: &Dirs) {
    std::fs::create_dir_all(d.project.join(".claude")).unwrap();
    std::fs::write(
        d.project.join(".claude/settings.json"),
        r#"{"permissions": {"deny": ["Bash(git push:*)"]}}"#,
    )
    .unwrap();
}

#[test]
fn pre_tool_use_denies_by_rule_asks_for_protected_paths_allows_reads_and_records_each() {
    let d = dirs();
    deny_git_push(&d);
    std::fs::write(
        d.project.join("t.jsonl"),
        "{\"type\":\"user\",\"version\":\"2.1.332\"}\n{\"type\":\"last-prompt\"}\n",
    )
    .unwrap();

    let deny = pre(
        &d,
        "toolu_1",
        "Bash",
        json!({"command": "git push origin main"}),
    );
    let out = &deny["hookSpecificOutput"];
    assert_eq!(out["hookEventName"], "PreToolUse");
    assert_eq!(out["permissionDecision"], "deny");
    let reason = out["permissionDecisionReason"].as_str().unwrap();
    assert!(
        reason.contains("Bash(git push:*)") && reason.contains("deny_rules"),
        "{reason}"
    );

    let ask = pre(
        &d,
        "toolu_2",
        "Write",
        json!({"file_path": d.project.join(".git/config"), "content": "x"}),
    );
    assert_eq!(ask["hookSpecificOutput"]["permissionDecision"], "ask");

    let allow = pre(&d, "toolu_3", "Bash", json!({"command": "ls -la"}));
    assert_eq!(allow["hookSpecificOutput"]["permissionDecision"], "allow");

    let post = json!({
        "session_id": "cc-session-1", "cwd": d.project, "hook_event_name": "PostToolUse",
        "tool_name": "Bash", "tool_input": {"command": "ls -la"}, "tool_use_id": "toolu_3",
        "tool_response": {"stdout": "a.txt", "stderr": "", "interrupted": false},
    });
    let reply = handle("PostToolUse", post.to_string().as_bytes(), &env(&d));
    assert!(
        reply.stdout.is_none() && reply.problems.is_empty(),
        "{reply:?}"
    );

    let store = Store::open(&d.data).unwrap();
    let summary = store.session("cc-session-1").unwrap().unwrap();
    assert_eq!(summary.origin, SessionOrigin::ClaudeCode);
    assert_eq!(summary.provider, "claude_code");
    assert_eq!(summary.project_path, d.project.display().to_string());
    let (events, _) = store.session_events("cc-session-1").unwrap();
    let decided: Vec<(String, PermissionBehavior)> = events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::PermissionDecided {
                tool_use_id,
                decision,
                trace,
                ..
            } => {
                assert_eq!(trace.last().unwrap().layer, "claude_code_hook");
                Some((tool_use_id.clone(), *decision))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        decided,
        [
            ("toolu_1".to_owned(), PermissionBehavior::Deny),
            ("toolu_2".to_owned(), PermissionBehavior::Ask),
            ("toolu_3".to_owned(), PermissionBehavior::Allow),
        ]
    );
    let completed: Vec<&str> = events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::ToolCompleted { tool_use_id, .. } => Some(tool_use_id.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        completed,
        ["toolu_1", "toolu_3"],
        "the denied call and the one that ran"
    );
    let queued = events
        .iter()
        .filter(|e| matches!(e.body, EventBody::ToolQueued { .. }))
        .count();
    assert_eq!(queued, 3, "PostToolUse does not queue a call twice");

    let s = status(&d.home, Some(&d.project), &d.data);
    let last = s.last_call.unwrap();
    assert_eq!(last.event, "PostToolUse");
    assert_eq!(last.session_id.as_deref(), Some("cc-session-1"));
    let pre_version = {
        // PostToolUse had no transcript_path; the PreToolUse before did.
        let reply = handle(
            "PreToolUse",
            json!({"session_id": "cc-session-1", "transcript_path": d.project.join("t.jsonl"),
                   "tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "toolu_4"})
            .to_string()
            .as_bytes(),
            &env(&d),
        );
        assert!(reply.stdout.is_some());
        status(&d.home, None, &d.data)
            .last_call
            .unwrap()
            .claude_code_version
    };
    assert_eq!(pre_version.as_deref(), Some("2.1.332"));
}

#[test]
fn an_untrusted_projects_allow_rule_does_not_allow_but_its_deny_rule_denies() {
    let d = dirs();
    std::fs::create_dir_all(d.project.join(".claude")).unwrap();
    std::fs::write(
        d.project.join(".claude/settings.json"),
        r#"{"permissions": {"allow": ["Bash(make:*)"]}}"#,
    )
    .unwrap();
    let out = pre(&d, "toolu_1", "Bash", json!({"command": "make deploy"}));
    assert_eq!(out["hookSpecificOutput"]["permissionDecision"], "ask");
    let store = Store::open(&d.data).unwrap();
    let project = store.add_project(&d.project).unwrap();
    store.set_project_trust(project.id, true).unwrap();
    drop(store);
    let out = pre(&d, "toolu_2", "Bash", json!({"command": "make deploy"}));
    assert_eq!(out["hookSpecificOutput"]["permissionDecision"], "allow");
}

#[test]
fn bad_or_partial_input_gives_no_decision_and_says_why() {
    let d = dirs();
    for (event, input, why) in [
        ("PreToolUse", "not json", "not Claude Code's hook JSON"),
        ("PreToolUse", "", "not Claude Code's hook JSON"),
        (
            "PreToolUse",
            r#"{"session_id": "s"}"#,
            "no tool_name or tool_input",
        ),
        (
            "PreToolUse",
            r#"{"hook_event_name": "PostToolUse"}"#,
            "Claude Code sent PostToolUse",
        ),
        ("Stop", "{}", "unknown hook event"),
    ] {
        let reply = handle(event, input.as_bytes(), &env(&d));
        assert_eq!(reply.stdout, None, "{input}");
        assert!(
            reply.problems.iter().any(|p| p.contains(why)),
            "{input}: {:?}",
            reply.problems
        );
    }
    // A session id that is no usable id: decided all the same, not stored.
    let reply = handle(
        "PreToolUse",
        json!({"session_id": "../x", "tool_name": "Bash", "tool_input": {"command": "ls"}})
            .to_string()
            .as_bytes(),
        &env(&d),
    );
    assert_eq!(
        reply.stdout.unwrap()["hookSpecificOutput"]["permissionDecision"],
        "allow"
    );
    assert!(
        reply
            .problems
            .iter()
            .any(|p| p.contains("recording the call")),
        "{:?}",
        reply.problems
    );
}

#[test]
fn gatehouse_sessions_never_run_the_guard_entries_and_say_so() {
    let d = dirs();
    project_guard(&d, Path::new(CLI), false).unwrap();
    let file = local_settings(&d);
    let text = std::fs::read_to_string(&file).unwrap();
    let parsed = gatehouse_hooks::parse_hooks(
        &file,
        gatehouse_protocol::permission::RuleSource::Local,
        &text,
    );
    assert!(parsed.hooks.is_empty(), "{:?}", parsed.hooks);
    assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
    assert_eq!(parsed.warnings.len(), GUARD_EVENTS.len());
    assert!(
        parsed.warnings[0]
            .cause
            .contains("Gatehouse's own Claude Code guard entry")
    );
}

/// Claude Code 2.1.332's own PreToolUse stdin (captured by
/// cli/tests/claude_code_real.rs, home paths rewritten): newer fields
/// (`effort`, `prompt_id`) are ignored, the call is decided and recorded.
#[test]
fn claude_code_2_1_332s_real_pre_tool_use_input_is_decided_and_recorded() {
    let d = dirs();
    deny_git_push(&d);
    let real = include_str!("data/claude_code_2.1.332_pre_tool_use.json")
        .replace("/home/user/project", &d.project.display().to_string());
    let reply = handle("PreToolUse", real.as_bytes(), &env(&d));
    assert!(reply.problems.is_empty(), "{:?}", reply.problems);
    let out = reply.stdout.unwrap();
    assert_eq!(out["hookSpecificOutput"]["permissionDecision"], "deny");
    let store = Store::open(&d.data).unwrap();
    let session = store
        .session("11851208-2f57-4568-83bf-f4a869596bc3")
        .unwrap()
        .unwrap();
    assert_eq!(session.origin, SessionOrigin::ClaudeCode);
    assert_eq!(session.mode, "default");
}

/// Claude Code starts in the project's own `defaultMode` whether or not
/// Gatehouse trusts the project: an untrusted repository naming
/// `acceptEdits` must not have Gatehouse allow its edits. Before: allowed.
#[test]
fn a_permissive_mode_an_untrusted_project_sets_for_itself_is_not_decided_in() {
    let d = dirs();
    let write = |id: &str| {
        pre_in_mode(
            &d,
            id,
            "Write",
            json!({"file_path": d.project.join("notes.txt"), "content": "hi"}),
            "acceptEdits",
        )["hookSpecificOutput"]
            .clone()
    };
    // The user chose acceptEdits (the project names no mode): it applies.
    assert_eq!(write("toolu_1")["permissionDecision"], "allow");

    std::fs::create_dir_all(d.project.join(".claude")).unwrap();
    std::fs::write(
        d.project.join(".claude/settings.json"),
        r#"{"permissions": {"defaultMode": "acceptEdits"}}"#,
    )
    .unwrap();
    let out = write("toolu_2");
    assert_eq!(out["permissionDecision"], "ask", "{out}");

    // Trusted in Gatehouse: its mode is the user's again.
    let store = Store::open(&d.data).unwrap();
    let project = store.add_project(&d.project).unwrap();
    store.set_project_trust(project.id, true).unwrap();
    drop(store);
    assert_eq!(write("toolu_3")["permissionDecision"], "allow");
}
