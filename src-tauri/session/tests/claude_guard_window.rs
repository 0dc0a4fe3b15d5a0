//! What the window shows of a guarded Claude Code (issue 25). Settings →
//! Claude Code's "Guard Claude Code" switch (item 1): the entries written
//! into and removed from real settings files with the `gatehouse-cli` found
//! beside the app, the status, and the refusals (no `gatehouse-cli`, no
//! project, a malformed file). The rule editor (item 3): the calls the
//! hooks recorded count in a rule's 30-day decisions and are re-decided by
//! a replay of rule edits, like Gatehouse's own sessions'.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use gatehouse_protocol::claude_code::{GuardScope, SetClaudeCodeGuardArgs};
use gatehouse_protocol::permission::PermissionBehavior;
use gatehouse_protocol::rules::{ReplayScope, RuleEdits, RuleFileEdit, RuleList};
use gatehouse_session::claude_guard::hook::{HookEnv, handle};
use gatehouse_session::claude_guard::{GUARD_EVENTS, cli_beside, guard_view, set_guard};
use gatehouse_session::rules_editor::{replay, rules_view};
use gatehouse_store::Store;
use serde_json::json;

struct Dirs {
    _root: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
    data: PathBuf,
    /// The app's folder, with `gatehouse` and `gatehouse-cli` in it.
    bin: PathBuf,
}

fn dirs() -> Dirs {
    let root = tempfile::tempdir().unwrap();
    let base = root.path().canonicalize().unwrap();
    let d = Dirs {
        home: base.join("home"),
        project: base.join("project"),
        data: base.join("data"),
        bin: base.join("bin"),
        _root: root,
    };
    for dir in [&d.home, &d.project, &d.data, &d.bin] {
        std::fs::create_dir_all(dir).unwrap();
    }
    std::fs::write(d.bin.join("gatehouse"), "").unwrap();
    d
}

fn with_cli(d: &Dirs) -> Result<PathBuf, String> {
    std::fs::write(d.bin.join("gatehouse-cli"), "").unwrap();
    cli_beside(&d.bin.join("gatehouse"))
}

fn args(scope: GuardScope, project: Option<&Path>, on: bool) -> SetClaudeCodeGuardArgs {
    SetClaudeCodeGuardArgs {
        scope,
        project: project.map(|p| p.display().to_string()),
        on,
    }
}

const USERS_FILE: &str =
    "{\n  \"model\": \"opus\",\n  \"permissions\": {\"deny\": [\"Bash(git push:*)\"]}\n}\n";

#[test]
fn the_switch_guards_every_project_with_the_cli_beside_the_app_and_off_restores_the_file() {
    let d = dirs();
    let user_file = d.home.join(".claude/settings.json");
    std::fs::create_dir_all(user_file.parent().unwrap()).unwrap();
    std::fs::write(&user_file, USERS_FILE).unwrap();
    let cli = with_cli(&d);
    assert_eq!(cli.as_deref().unwrap(), d.bin.join("gatehouse-cli"));

    let before = guard_view(&d.home, None, &d.data, &cli);
    assert!(!before.user_guarded);
    assert!(before.status.installed.is_empty());
    assert_eq!(before.user_file, user_file.display().to_string());
    assert_eq!(before.cli_problem, None);

    let on = set_guard(&args(GuardScope::User, None, true), &d.home, &d.data, &cli).unwrap();
    assert!(on.user_guarded, "{on:?}");
    let [entries] = on.status.installed.as_slice() else {
        panic!("one file expected: {:?}", on.status.installed);
    };
    assert_eq!(entries.scope, GuardScope::User);
    assert_eq!(entries.project, None);
    assert_eq!(entries.events.len(), GUARD_EVENTS.len());
    let cli_path = d.bin.join("gatehouse-cli").display().to_string();
    assert!(
        entries.commands.iter().all(|c| c.starts_with(&cli_path)),
        "{:?}",
        entries.commands
    );
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&user_file).unwrap()).unwrap();
    assert_eq!(written["model"], "opus");
    assert_eq!(written["permissions"]["deny"][0], "Bash(git push:*)");

    let off = set_guard(&args(GuardScope::User, None, false), &d.home, &d.data, &cli).unwrap();
    assert!(!off.user_guarded);
    assert!(
        off.status.installed.is_empty(),
        "{:?}",
        off.status.installed
    );
    assert_eq!(std::fs::read_to_string(&user_file).unwrap(), USERS_FILE);
}

#[test]
fn without_gatehouse_cli_beside_the_app_the_switch_installs_nothing_and_says_what_to_do() {
    let d = dirs();
    let cli = cli_beside(&d.bin.join("gatehouse"));
    let problem = cli.clone().unwrap_err();
    assert!(
        problem.contains("gatehouse-cli was not found beside the app"),
        "{problem}"
    );
    assert!(
        problem.contains("cargo build -p gatehouse-cli"),
        "{problem}"
    );

    let view = guard_view(&d.home, None, &d.data, &cli);
    assert_eq!(view.cli, None);
    assert_eq!(view.cli_problem.as_deref(), Some(problem.as_str()));

    let refused = set_guard(&args(GuardScope::User, None, true), &d.home, &d.data, &cli);
    assert_eq!(refused.unwrap_err(), problem);
    assert!(!d.home.join(".claude").exists(), "nothing may be written");

    // Entries put there earlier (by another build) can still be removed.
    let installed = set_guard(
        &args(GuardScope::User, None, true),
        &d.home,
        &d.data,
        &with_cli(&d),
    )
    .unwrap();
    assert!(installed.user_guarded);
    let off = set_guard(&args(GuardScope::User, None, false), &d.home, &d.data, &cli).unwrap();
    assert!(!off.user_guarded);
}

#[test]
fn a_project_guard_is_listed_with_its_project_even_when_another_project_is_open() {
    let d = dirs();
    let cli = with_cli(&d);
    let no_folder = set_guard(
        &args(GuardScope::Project, None, true),
        &d.home,
        &d.data,
        &cli,
    );
    assert!(no_folder.unwrap_err().contains("project's folder"));

    let on = set_guard(
        &args(GuardScope::Project, Some(&d.project), true),
        &d.home,
        &d.data,
        &cli,
    )
    .unwrap();
    assert!(!on.user_guarded, "a project's guard is not every project's");
    let local = d.project.join(".claude/settings.local.json");
    assert!(local.is_file());

    // Listed from the guard's own state when no project is given.
    let view = guard_view(&d.home, None, &d.data, &cli);
    let [entries] = view.status.installed.as_slice() else {
        panic!("one file expected: {:?}", view.status.installed);
    };
    assert_eq!(entries.file, local.display().to_string());
    assert_eq!(entries.scope, GuardScope::Project);
    assert_eq!(entries.project, Some(d.project.display().to_string()));

    // Removing it by the project the view names.
    let off = set_guard(
        &args(GuardScope::Project, Some(&d.project), false),
        &d.home,
        &d.data,
        &cli,
    )
    .unwrap();
    assert!(
        off.status.installed.is_empty(),
        "{:?}",
        off.status.installed
    );
}

#[test]
fn a_malformed_user_file_is_refused_with_its_position_and_left_as_it_was() {
    let d = dirs();
    let user_file = d.home.join(".claude/settings.json");
    std::fs::create_dir_all(user_file.parent().unwrap()).unwrap();
    let broken = "{\n  \"model\": \"opus\",\n  \"hooks\": [\n";
    std::fs::write(&user_file, broken).unwrap();
    let cli = with_cli(&d);

    let err = set_guard(&args(GuardScope::User, None, true), &d.home, &d.data, &cli).unwrap_err();
    assert!(
        err.starts_with(&format!("{}:", user_file.display())),
        "{err}"
    );
    assert!(err.contains("the file was not changed"), "{err}");
    assert_eq!(std::fs::read_to_string(&user_file).unwrap(), broken);

    let view = guard_view(&d.home, None, &d.data, &cli);
    assert!(!view.user_guarded);
    assert_eq!(view.status.problems.len(), 1, "{:?}", view.status.problems);
}

/// Claude Code's PreToolUse hook for a Bash `command`, as the guard's
/// entry runs it.
fn pre_bash(d: &Dirs, id: &str, command: &str) -> String {
    let stdin = json!({
        "session_id": "cc-rules-1",
        "transcript_path": d.project.join("t.jsonl"),
        "cwd": d.project,
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": id,
    });
    let env = HookEnv {
        data_dir: d.data.clone(),
        home: d.home.clone(),
        claude_project_dir: Some(d.project.clone()),
        process_cwd: d.project.clone(),
        ask_timeout: std::time::Duration::from_secs(5),
        path: std::env::var_os("PATH"),
    };
    let reply = handle("PreToolUse", stdin.to_string().as_bytes(), &env);
    assert!(reply.problems.is_empty(), "{:?}", reply.problems);
    reply.stdout.unwrap()["hookSpecificOutput"]["permissionDecision"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[test]
fn calls_a_guarded_claude_code_made_count_for_their_rule_and_are_replayed() {
    let d = dirs();
    std::fs::create_dir_all(d.project.join(".claude")).unwrap();
    let settings = d.project.join(".claude/settings.json");
    std::fs::write(
        &settings,
        r#"{"permissions": {"deny": ["Bash(git push:*)"]}}"#,
    )
    .unwrap();
    assert_eq!(pre_bash(&d, "toolu_1", "git push origin main"), "deny");
    assert_eq!(pre_bash(&d, "toolu_2", "git push --force"), "deny");

    let store = Store::open(&d.data).unwrap();
    let project = store.add_project(&d.project).unwrap();

    // The rule's 30-day count holds both of Claude Code's calls.
    let view = rules_view(&store, &project, &d.home, false, &[]).unwrap();
    let file = view
        .files
        .iter()
        .find(|f| f.path == settings.display().to_string())
        .expect("the project's shared settings");
    let rule = file
        .rules
        .iter()
        .find(|r| r.list == RuleList::Deny && r.text == "Bash(git push:*)")
        .expect("the deny rule");
    assert_eq!(rule.decided_30d, 2, "{:?}", file.rules);

    // Removing the rule changes both recorded calls: the replay reads them.
    let edits = RuleEdits {
        files: vec![RuleFileEdit {
            path: file.path.clone(),
            base_fingerprint: file.fingerprint.clone(),
            allow: Vec::new(),
            ask: Vec::new(),
            deny: Vec::new(),
            additional_directories: Vec::new(),
        }],
        sessions: Vec::new(),
    };
    let report = replay(
        &store,
        &project,
        &d.home,
        &edits,
        &ReplayScope::Project,
        10,
        |_, _| {},
    )
    .unwrap();
    assert_eq!(report.total, 2, "{report:?}");
    let from_deny: u64 = report
        .changes
        .iter()
        .filter(|c| c.from == PermissionBehavior::Deny)
        .map(|c| c.count)
        .sum();
    assert_eq!(from_deny, 2, "{report:?}");
    assert!(
        report
            .changed_calls
            .iter()
            .all(|c| c.session_id == "cc-rules-1" && c.tool_name == "Bash"),
        "{:?}",
        report.changed_calls
    );
}
