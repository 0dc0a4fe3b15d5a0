//! The engine through the seam the pipeline uses (`PermissionResolver`),
//! session rules, hooks, and `check`.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::fs;
use std::path::{Path, PathBuf};

use gatehouse_core::permission::{
    PermissionQuery, PermissionResolver, PermissionSubject, ToolPermissionVerdict,
};
use gatehouse_permissions::hook::{HookVerdict, combine, strongest};
use gatehouse_permissions::rule::RuleKind;
use gatehouse_permissions::session::{self, MemorySessionRuleStore, SessionRuleStore};
use gatehouse_permissions::sources::{SettingsLayout, load};
use gatehouse_permissions::{CheckRequest, EngineContext, PermissionEngine, check};
use gatehouse_protocol::permission::{
    DecisionReason, NotAppliedWhy, PermissionBehavior, PermissionMode, RuleSource, TraceOutcome,
};
use serde_json::json;

struct Fixture {
    _tmp: tempfile::TempDir,
    project: PathBuf,
    home: PathBuf,
}

fn fixture(user_settings: serde_json::Value) -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(tmp.path()).unwrap();
    let project = root.join("project");
    let home = root.join("home");
    fs::create_dir_all(project.join("src")).unwrap();
    fs::create_dir_all(home.join(".claude")).unwrap();
    fs::write(
        home.join(".claude/settings.json"),
        serde_json::to_string_pretty(&user_settings).unwrap(),
    )
    .unwrap();
    Fixture {
        _tmp: tmp,
        project,
        home,
    }
}

fn engine(f: &Fixture, mode: PermissionMode) -> PermissionEngine {
    let settings = load(&SettingsLayout::new(&f.project, &f.home));
    PermissionEngine::new(
        EngineContext {
            cwd: f.project.clone(),
            home: f.home.clone(),
            additional_dirs: Vec::new(),
            mode,
        },
        settings,
    )
}

fn bash(
    engine: &PermissionEngine,
    command: &str,
) -> gatehouse_protocol::permission::PermissionDecision {
    let input = json!({ "command": command });
    let subject = PermissionSubject::Command(command.to_string());
    let verdict = ToolPermissionVerdict::Passthrough;
    engine.decide(&PermissionQuery {
        tool_name: "Bash",
        input: &input,
        subject: Some(&subject),
        is_read_only: false,
        is_destructive: false,
        requires_user_interaction: false,
        tool_verdict: &verdict,
    })
}

#[test]
fn resolver_seam_and_trace() {
    let f = fixture(
        json!({"permissions": {"allow": ["Bash(npm test)"], "deny": ["Bash(rm:*)", "mcp__evil", "WebSearch"]}}),
    );
    let e = engine(&f, PermissionMode::Default);
    let d = bash(&e, "npm test");
    assert_eq!(d.decision, PermissionBehavior::Allow);
    let layers: Vec<&str> = d.trace.iter().map(|s| s.layer.as_str()).collect();
    assert_eq!(
        layers,
        [
            "deny_rules",
            "ask_rules",
            "tool_check",
            "shell_analysis",
            "safety_checks",
            "mode",
            "allow_rules"
        ]
    );
    match &d.reason {
        DecisionReason::Rule { rule, source, file } => {
            assert_eq!(rule, "Bash(npm test)");
            assert_eq!(*source, RuleSource::User);
            assert!(
                file.as_deref().unwrap().ends_with("settings.json:4:7"),
                "{file:?}"
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(e.is_blanket_denied("mcp__evil__anything"));
    assert!(e.is_blanket_denied("WebSearch"));
    assert!(
        !e.is_blanket_denied("Bash"),
        "a pattern rule does not hide the tool"
    );
    assert!(!e.is_blanket_denied("mcp__evil2__x"));
}

#[test]
fn tool_verdicts() {
    let f = fixture(json!({"permissions": {"allow": ["mcp__srv__t"]}}));
    let e = engine(&f, PermissionMode::Default);
    let input = json!({});
    let decide = |verdict: ToolPermissionVerdict, read_only: bool| {
        e.decide(&PermissionQuery {
            tool_name: "mcp__srv__t",
            input: &input,
            subject: None,
            is_read_only: read_only,
            is_destructive: false,
            requires_user_interaction: false,
            tool_verdict: &verdict,
        })
    };
    let d = decide(
        ToolPermissionVerdict::Deny {
            reason: "no".into(),
        },
        false,
    );
    assert_eq!(d.decision, PermissionBehavior::Deny);
    assert!(matches!(d.reason, DecisionReason::ToolCheck { .. }));
    // A tool's ask is not overridden by an allow rule naming the tool.
    let d = decide(
        ToolPermissionVerdict::Ask {
            reason: "sure?".into(),
        },
        false,
    );
    assert_eq!(d.decision, PermissionBehavior::Ask);
    let d = decide(ToolPermissionVerdict::Passthrough, false);
    assert_eq!(d.decision, PermissionBehavior::Allow);
    // A read-only MCP tool (trusted annotations) runs in default mode.
    let f2 = fixture(json!({}));
    let e2 = engine(&f2, PermissionMode::Default);
    let verdict = ToolPermissionVerdict::Passthrough;
    let d = e2.decide(&PermissionQuery {
        tool_name: "mcp__srv__read",
        input: &input,
        subject: None,
        is_read_only: true,
        is_destructive: false,
        requires_user_interaction: false,
        tool_verdict: &verdict,
    });
    assert_eq!(d.decision, PermissionBehavior::Allow);
    assert!(matches!(d.reason, DecisionReason::Mode { .. }));
}

#[test]
fn mode_switch_and_session_rules_persist() {
    let f = fixture(json!({}));
    let store = MemorySessionRuleStore::default();
    let e = engine(&f, PermissionMode::Default);
    assert_eq!(bash(&e, "cargo build").decision, PermissionBehavior::Ask);
    session::grant(&e, &store, "s1", RuleKind::Allow, "Bash(cargo build:*)").unwrap();
    let d = bash(&e, "cargo build --release");
    assert_eq!(d.decision, PermissionBehavior::Allow);
    assert!(matches!(
        d.reason,
        DecisionReason::Rule {
            source: RuleSource::Session,
            ..
        }
    ));
    assert!(session::grant(&e, &store, "s1", RuleKind::Allow, "Bash(oops").is_err());
    assert_eq!(
        store.load("s1").unwrap().len(),
        1,
        "an invalid rule is not stored"
    );

    // Resume: a fresh engine restores the session's rules.
    let resumed = engine(&f, PermissionMode::Default);
    assert!(session::restore(&resumed, &store, "s1").unwrap().is_empty());
    assert_eq!(
        bash(&resumed, "cargo build").decision,
        PermissionBehavior::Allow
    );
    assert_eq!(resumed.session_rules().len(), 1);

    resumed.set_mode(PermissionMode::Plan);
    assert_eq!(
        bash(&resumed, "cargo build").decision,
        PermissionBehavior::Deny
    );
}

#[test]
fn session_allow_never_beats_deny() {
    let f = fixture(json!({"permissions": {"deny": ["Bash(rm:*)"]}}));
    let e = engine(&f, PermissionMode::Default);
    e.add_session_rule(RuleKind::Allow, "Bash(rm -rf build)")
        .unwrap();
    assert_eq!(bash(&e, "rm -rf build").decision, PermissionBehavior::Deny);
}

fn hook(decision: PermissionBehavior) -> HookVerdict {
    HookVerdict {
        hook: "guard.sh".into(),
        decision: Some(decision),
        message: None,
    }
}

#[test]
fn hook_allow_cannot_pass_deny_or_ask_rules() {
    let f = fixture(json!({"permissions": {"deny": ["Bash(rm:*)"], "ask": ["Bash(git push:*)"]}}));
    let e = engine(&f, PermissionMode::Default);
    let allow = hook(PermissionBehavior::Allow);
    assert_eq!(
        combine(bash(&e, "rm -rf x"), Some(&allow)).decision,
        PermissionBehavior::Deny
    );
    assert_eq!(
        combine(bash(&e, "git push"), Some(&allow)).decision,
        PermissionBehavior::Ask
    );
    // Safety checks and tool checks bind too.
    assert_eq!(
        combine(bash(&e, "echo x > .git/config"), Some(&allow)).decision,
        PermissionBehavior::Ask
    );
    assert_eq!(
        combine(bash(&e, "echo $(id)"), Some(&allow)).decision,
        PermissionBehavior::Ask
    );
    // With no rule in the way, the hook's allow applies.
    let d = combine(bash(&e, "cargo build"), Some(&allow));
    assert_eq!(d.decision, PermissionBehavior::Allow);
    assert!(matches!(d.reason, DecisionReason::Hook { .. }));
    assert_eq!(d.trace.last().unwrap().outcome, TraceOutcome::Allow);
    // updatedInput: the pipeline decides again on the rewritten input.
    let rewritten = bash(&e, "rm -rf /tmp/x");
    assert_eq!(
        combine(rewritten, Some(&allow)).decision,
        PermissionBehavior::Deny
    );
    // deny > ask > allow among hooks; a hook's deny always wins.
    let hooks = [
        hook(PermissionBehavior::Allow),
        hook(PermissionBehavior::Deny),
        hook(PermissionBehavior::Ask),
    ];
    let strongest = strongest(&hooks).unwrap();
    assert_eq!(
        combine(bash(&e, "ls"), Some(strongest)).decision,
        PermissionBehavior::Deny
    );
}

#[test]
fn check_reports_settings_errors_with_position() {
    let tmp = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(tmp.path()).unwrap();
    let project = root.join("p");
    fs::create_dir_all(project.join(".claude")).unwrap();
    fs::write(
        project.join(".claude/settings.json"),
        "{\n  \"permissions\": {\n    \"deny\": [\"Read(.env)\", \"Bash(rm\"]\n  }\n}\n",
    )
    .unwrap();
    let request = CheckRequest::new(
        &project,
        root.join("home"),
        "Bash",
        json!({"command": "ls"}),
    );
    let report = check(&request);
    assert_eq!(report.decision, PermissionBehavior::Ask);
    assert_eq!(report.settings_errors.len(), 1);
    let e = &report.settings_errors[0];
    assert_eq!(
        (e.line, e.column),
        (3, 28 + 8),
        "points at the end of `Bash(rm`"
    );
    assert!(e.cause.contains("Bash(rm"), "{}", e.cause);
    let json = serde_json::to_value(&report).unwrap();
    for key in ["decision", "reason", "trace", "mode", "settings_errors"] {
        assert!(json.get(key).is_some(), "{key} missing");
    }
    assert_eq!(json["decision"], "ask");
}

#[test]
fn untrusted_project_rules_are_listed_as_ignored() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("p");
    fs::create_dir_all(project.join(".claude")).unwrap();
    fs::write(
        project.join(".claude/settings.json"),
        r#"{"permissions": {"allow": ["Bash(curl:*)"]}}"#,
    )
    .unwrap();
    let mut request = CheckRequest::new(
        &project,
        tmp.path().join("h"),
        "Bash",
        json!({"command": "curl x"}),
    );
    let report = check(&request);
    assert_eq!(report.decision, PermissionBehavior::Ask);
    assert_eq!(report.ignored_rules.len(), 1);
    assert!(report.ignored_rules[0].contains("not trusted"));
    request.trust_project = true;
    assert_eq!(check(&request).decision, PermissionBehavior::Allow);
}

#[test]
fn an_untrusted_projects_allow_rule_that_would_match_is_named_in_the_trace() {
    let f = fixture(json!({}));
    fs::create_dir_all(f.project.join(".claude")).unwrap();
    let local = f.project.join(".claude/settings.local.json");
    fs::write(
        &local,
        r#"{"permissions": {"allow": ["Edit(./src/greeter.py)", "Bash(make test)"]}}"#,
    )
    .unwrap();
    let engine = engine(&f, PermissionMode::Default);
    let edit = json!({"file_path": f.project.join("src/greeter.py"), "old_string": "a", "new_string": "b"});
    for (tool, input, rule) in [
        ("Edit", edit, "Edit(./src/greeter.py)"),
        ("Bash", json!({"command": "make test"}), "Bash(make test)"),
    ] {
        let decision = engine.decide_input(tool, &input);
        assert_eq!(decision.decision, PermissionBehavior::Ask, "{tool}");
        let step = decision
            .trace
            .iter()
            .find(|s| s.not_applied.is_some())
            .unwrap_or_else(|| panic!("{tool}: no not-applied step in {:#?}", decision.trace));
        let not_applied = step.not_applied.as_ref().unwrap();
        assert_eq!(not_applied.rule, rule);
        assert_eq!(not_applied.source, RuleSource::Local);
        assert_eq!(not_applied.why, NotAppliedWhy::ProjectNotTrusted);
        assert!(
            not_applied
                .file
                .as_deref()
                .unwrap()
                .starts_with(&local.display().to_string())
        );
        assert_eq!(step.layer, "allow_rules");
        assert!(step.detail.contains("not applied"), "{}", step.detail);
        // It comes before the final ask, after the allow layer's own line.
        let at = decision.trace.iter().position(|s| s.not_applied.is_some());
        assert_eq!(decision.trace.last().unwrap().layer, "default");
        assert!(at.unwrap() < decision.trace.len() - 1);
    }
    // A call no ignored rule matches says nothing of them.
    let other = engine.decide_input("Bash", &json!({"command": "make clean"}));
    assert!(other.trace.iter().all(|s| s.not_applied.is_none()));
    // Trusted, the rule applies and no step is "not applied".
    let mut layout = SettingsLayout::new(&f.project, &f.home);
    layout.project_trusted = true;
    let trusted = PermissionEngine::new(
        EngineContext {
            cwd: f.project.clone(),
            home: f.home.clone(),
            additional_dirs: Vec::new(),
            mode: PermissionMode::Default,
        },
        load(&layout),
    );
    let allowed = trusted.decide_input("Bash", &json!({"command": "make test"}));
    assert_eq!(allowed.decision, PermissionBehavior::Allow);
    assert!(allowed.trace.iter().all(|s| s.not_applied.is_none()));
}

#[test]
fn is_read_only_for_concurrency() {
    use gatehouse_permissions::is_read_only;
    assert!(is_read_only("git status && git diff | head"));
    assert!(!is_read_only("git status && npm install"));
    assert!(!is_read_only("cat x > y"));
    assert!(!is_read_only("cd src"), "cd changes the shell's state");
    assert!(!is_read_only("FOO=1 ls"));
    assert!(!is_read_only(""));
    let _ = Path::new("/");
}

#[test]
fn reload_keeps_last_good_rules_and_watcher_reloads() {
    use gatehouse_permissions::watch::{SettingsWatcher, reload};
    use std::sync::Arc;
    use std::sync::mpsc;
    use std::time::Duration;

    let f = fixture(json!({"permissions": {"deny": ["Bash(rm:*)"]}}));
    let layout = SettingsLayout::new(&f.project, &f.home);
    let e = Arc::new(engine(&f, PermissionMode::Default));
    let settings_file = f.home.join(".claude/settings.json");

    // A broken edit: the last good rules stay, the error is reported.
    fs::write(&settings_file, "{\"permissions\": {\"deny\": [").unwrap();
    let report = reload(&e, &layout);
    assert!(!report.applied);
    assert_eq!(report.errors.len(), 1);
    assert_eq!(bash(&e, "rm x").decision, PermissionBehavior::Deny);
    assert_eq!(
        bash(&e, "ls").decision,
        PermissionBehavior::Allow,
        "still the good settings"
    );

    // The watcher applies a good edit.
    let (tx, rx) = mpsc::channel();
    let watcher = SettingsWatcher::start(layout, e.clone(), move |r| {
        let _ = tx.send(r);
    })
    .unwrap();
    fs::write(
        &settings_file,
        r#"{"permissions": {"allow": ["Bash(rm x)"]}}"#,
    )
    .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while bash(&e, "rm x").decision != PermissionBehavior::Allow {
        assert!(
            std::time::Instant::now() < deadline,
            "watcher did not reload"
        );
        let _ = rx.recv_timeout(Duration::from_millis(200));
    }
    watcher.stop();
}

#[test]
fn watcher_notices_a_settings_folder_created_later() {
    use gatehouse_permissions::watch::SettingsWatcher;
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    let f = fixture(json!({}));
    let layout = SettingsLayout::new(&f.project, &f.home);
    let e = Arc::new(engine(&f, PermissionMode::Default));
    let watcher = SettingsWatcher::start(layout, e.clone(), |_| {}).unwrap();
    // The project has no `.claude/` yet: create it, then the file.
    fs::create_dir_all(f.project.join(".claude")).unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    let file = f.project.join(".claude/settings.json");
    while bash(&e, "rm x").decision != PermissionBehavior::Deny {
        assert!(
            Instant::now() < deadline,
            "watcher did not pick up the new folder"
        );
        fs::write(&file, r#"{"permissions": {"deny": ["Bash(rm:*)"]}}"#).unwrap();
        std::thread::sleep(Duration::from_millis(100));
    }
    watcher.stop();
}

#[cfg(unix)]
#[test]
fn watcher_follows_a_symlinked_settings_file_to_its_target() {
    use gatehouse_permissions::watch::SettingsWatcher;
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    // ~/.claude/settings.json links into a dotfiles folder elsewhere; the
    // user edits the file there.
    let f = fixture(json!({}));
    let dotfiles = f.home.parent().unwrap().join("dotfiles");
    fs::create_dir_all(&dotfiles).unwrap();
    let target = dotfiles.join("claude.json");
    fs::write(&target, "{}").unwrap();
    let link = f.home.join(".claude/settings.json");
    fs::remove_file(&link).unwrap();
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let layout = SettingsLayout::new(&f.project, &f.home);
    let e = Arc::new(engine(&f, PermissionMode::Default));
    let watcher = SettingsWatcher::start(layout, e.clone(), |_| {}).unwrap();
    fs::write(&target, r#"{"permissions": {"deny": ["Bash(rm:*)"]}}"#).unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    while bash(&e, "rm x").decision != PermissionBehavior::Deny {
        assert!(
            Instant::now() < deadline,
            "an edit at the link's target was not noticed"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    watcher.stop();
}

#[test]
fn cwd_and_working_directories_change_at_run_time() {
    let f = fixture(json!({"permissions": {"deny": ["Edit(./main.rs)"]}}));
    let e = engine(&f, PermissionMode::AcceptEdits);
    let outside = f.project.parent().unwrap().join("outside");
    fs::create_dir_all(&outside).unwrap();
    let read =
        |e: &PermissionEngine, p: &Path| e.decide_input("Read", &json!({"file_path": p})).decision;
    let edit =
        |e: &PermissionEngine, p: &Path| e.decide_input("Edit", &json!({"file_path": p})).decision;
    assert_eq!(read(&e, &outside.join("a")), PermissionBehavior::Ask);
    e.add_working_directory(&outside);
    assert_eq!(read(&e, &outside.join("a")), PermissionBehavior::Allow);
    // A relative rule follows the cwd.
    assert_eq!(
        edit(&e, &f.project.join("src/main.rs")),
        PermissionBehavior::Allow
    );
    e.set_cwd(&f.project.join("src"));
    assert_eq!(
        edit(&e, &f.project.join("src/main.rs")),
        PermissionBehavior::Deny
    );
    assert_eq!(e.working_directories()[0], f.project.join("src"));
    assert_eq!(
        read(&e, &f.project.join("README.md")),
        PermissionBehavior::Ask
    );
}
