//! Editing a settings file's `hooks` (other keys and layout kept, bad hooks
//! refused) and a test run of a command hook, on real files and processes.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use gatehouse_core::hooks::HookDecision;
use gatehouse_hooks::editor::{HookEdit, edit_file_text, test_command_hook};
use gatehouse_protocol::event::HookEventName;
use serde_json::{Value, json};

const FILE: &str = r#"{
  "permissions": {
    "allow": ["Read"]
  },
  "model": "opus",
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}
    ]
  }
}
"#;

fn parse(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

#[test]
fn add_disable_replace_remove_keep_every_other_key() {
    let p = Path::new("/p/.claude/settings.json");
    let added = edit_file_text(
        p,
        Some(FILE),
        &HookEdit::Add {
            event: "PostToolUse".into(),
            matcher: Some("Edit|Write".into()),
            handler: json!({"type": "command", "command": "fmt.sh"}),
        },
    )
    .unwrap();
    // The lines before `hooks` are byte for byte the same.
    assert!(added.starts_with("{\n  \"permissions\": {\n    \"allow\": [\"Read\"]\n  },\n  \"model\": \"opus\",\n  \"hooks\": {"));
    let v = parse(&added);
    assert_eq!(v["model"], "opus");
    assert_eq!(v["hooks"]["PostToolUse"][0]["matcher"], "Edit|Write");
    assert_eq!(
        v["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
        "./guard.sh"
    );

    let off = edit_file_text(
        p,
        Some(&added),
        &HookEdit::SetEnabled {
            event: "PreToolUse".into(),
            group: 0,
            index: 0,
            enabled: false,
        },
    )
    .unwrap();
    assert_eq!(
        parse(&off)["hooks"]["PreToolUse"][0]["hooks"][0]["disabled"],
        true
    );
    let on = edit_file_text(
        p,
        Some(&off),
        &HookEdit::SetEnabled {
            event: "PreToolUse".into(),
            group: 0,
            index: 0,
            enabled: true,
        },
    )
    .unwrap();
    assert!(
        parse(&on)["hooks"]["PreToolUse"][0]["hooks"][0]
            .get("disabled")
            .is_none()
    );

    let replaced = edit_file_text(
        p,
        Some(&on),
        &HookEdit::Replace {
            event: "PreToolUse".into(),
            group: 0,
            index: 0,
            handler: json!({"type": "command", "command": "./guard2.sh", "timeout": 5}),
        },
    )
    .unwrap();
    assert_eq!(
        parse(&replaced)["hooks"]["PreToolUse"][0]["hooks"][0]["timeout"],
        5
    );

    let removed = edit_file_text(
        p,
        Some(&replaced),
        &HookEdit::Remove {
            event: "PreToolUse".into(),
            group: 0,
            index: 0,
        },
    )
    .unwrap();
    let v = parse(&removed);
    assert!(
        v["hooks"].get("PreToolUse").is_none(),
        "an empty event is dropped"
    );
    assert_eq!(v["permissions"]["allow"][0], "Read");
}

#[test]
fn a_bad_hook_or_a_missing_one_is_refused_and_nothing_is_produced() {
    let p = Path::new("/p/.claude/settings.json");
    let bad = edit_file_text(
        p,
        Some(FILE),
        &HookEdit::Add {
            event: "PreToolUse".into(),
            matcher: Some("Edit(".into()),
            handler: json!({"type": "command", "command": "x"}),
        },
    )
    .unwrap_err();
    assert!(bad.contains("not a valid regular expression"), "{bad}");
    let bad = edit_file_text(
        p,
        Some(FILE),
        &HookEdit::Replace {
            event: "PreToolUse".into(),
            group: 0,
            index: 0,
            handler: json!({"type": "command", "timeout": "soon"}),
        },
    )
    .unwrap_err();
    assert!(bad.contains("timeout must be a number"), "{bad}");
    let missing = edit_file_text(
        p,
        Some(FILE),
        &HookEdit::Remove {
            event: "Stop".into(),
            group: 0,
            index: 0,
        },
    )
    .unwrap_err();
    assert!(
        missing.contains("there is no hook `hooks.Stop[0].hooks[0]`"),
        "{missing}"
    );
    let broken = edit_file_text(
        p,
        Some("{not json"),
        &HookEdit::Remove {
            event: "Stop".into(),
            group: 0,
            index: 0,
        },
    )
    .unwrap_err();
    assert!(broken.contains("not valid JSON"), "{broken}");
}

#[test]
fn a_new_file_and_a_file_without_hooks_get_them() {
    let p = Path::new("/p/.claude/settings.local.json");
    let add = HookEdit::Add {
        event: "Stop".into(),
        matcher: None,
        handler: json!({"type": "command", "command": "notify-send done"}),
    };
    let fresh = edit_file_text(p, None, &add).unwrap();
    assert_eq!(
        parse(&fresh)["hooks"]["Stop"][0]["hooks"][0]["command"],
        "notify-send done"
    );
    let other = edit_file_text(p, Some("{\n  \"model\": \"opus\"\n}\n"), &add).unwrap();
    let v = parse(&other);
    assert_eq!(v["model"], "opus");
    assert_eq!(
        v["hooks"]["Stop"][0]["hooks"][0]["command"],
        "notify-send done"
    );
}

/// A malformed entry the file already had (it is never run, and the
/// editor does not list it) does not block editing the other hooks; a new
/// malformed one still refuses the edit.
#[test]
fn an_entry_already_malformed_does_not_block_other_edits() {
    let p = Path::new("/p/.claude/settings.json");
    let text = r#"{"hooks": {"Stop": [{"hooks": [{"type": "command"}]}]}}"#;
    let added = edit_file_text(
        p,
        Some(text),
        &HookEdit::Add {
            event: "PreToolUse".into(),
            matcher: Some("Bash".into()),
            handler: json!({"type": "command", "command": "./guard.sh"}),
        },
    )
    .unwrap();
    let v = parse(&added);
    assert_eq!(
        v["hooks"]["Stop"],
        json!([{"hooks": [{"type": "command"}]}])
    );
    assert_eq!(
        v["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
        "./guard.sh"
    );
    let bad = edit_file_text(
        p,
        Some(text),
        &HookEdit::Add {
            event: "PreToolUse".into(),
            matcher: None,
            handler: json!({"type": "http"}),
        },
    )
    .unwrap_err();
    assert!(bad.contains("without a `url`"), "{bad}");
}

#[tokio::test]
async fn the_test_button_runs_the_hook_and_shows_what_it_got_and_said() {
    let project = tempfile::tempdir().unwrap();
    let run = test_command_hook(
        &json!({"type": "command", "command": "cat > seen.json; echo '{\"hookSpecificOutput\": {\"permissionDecision\": \"deny\", \"permissionDecisionReason\": \"no\"}}'"}),
        HookEventName::PreToolUse,
        "Bash",
        &json!({"command": "rm -rf /"}),
        project.path(),
    )
    .await
    .unwrap();
    assert_eq!(run.exit_code, Some(0));
    assert_eq!(run.response.decision, Some(HookDecision::Deny));
    assert_eq!(run.stdin["tool_input"]["command"], "rm -rf /");
    let seen: Value =
        serde_json::from_str(&std::fs::read_to_string(project.path().join("seen.json")).unwrap())
            .unwrap();
    assert_eq!(seen, run.stdin);
}
