//! The rule editor's back end against real settings files and a real
//! SQLite store: the view, lint of unsaved edits, the tester, replay with
//! progress, save with conflict detection, and undo.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use gatehouse_permissions::sources::load;
use gatehouse_permissions::{EngineContext, PermissionEngine};
use gatehouse_protocol::event::{Event, EventBody};
use gatehouse_protocol::permission::{
    DecisionReason, PermissionBehavior, PermissionDecision, PermissionMode, RuleSource,
};
use gatehouse_protocol::project::Project;
use gatehouse_protocol::rules::{
    ChangeCount, ReplayScope, RuleEdits, RuleFileEdit, RuleList, SaveRulesOutcome,
    SessionRulesEdit, TestRuleCallArgs,
};
use gatehouse_session::rules_editor::{
    RuleSaves, check_edits, project_layout, replay, rules_view, test_call, validate_rule,
};
use gatehouse_store::{NewSession, Store};
use serde_json::{Value, json};

struct Fixture {
    _tmp: tempfile::TempDir,
    project: Project,
    home: PathBuf,
    settings: PathBuf,
    store: Store,
}

fn fixture() -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(tmp.path()).unwrap();
    let dir = root.join("proj");
    let home = root.join("home");
    std::fs::create_dir_all(dir.join(".claude")).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    let settings = dir.join(".claude/settings.json");
    std::fs::write(
        &settings,
        "{\n  \"model\": \"opus\",\n  \"permissions\": {\n    \"allow\": [\"Bash(npm test:*)\"]\n  }\n}\n",
    )
    .unwrap();
    let store = Store::open(&root.join("data")).unwrap();
    let project = store.add_project(&dir).unwrap();
    let project = store.set_project_trust(project.id, true).unwrap();
    Fixture {
        _tmp: tmp,
        project,
        home,
        settings,
        store,
    }
}

/// Stores a session with one `npm test` call per entry of `decisions`.
fn record(store: &mut Store, project: &Path, id: &str, tool: &str, input: Value) {
    store
        .create_session(&NewSession {
            id: id.into(),
            project_path: project.display().to_string(),
            provider: "replay".into(),
            model: "m".into(),
            mode: "default".into(),
        })
        .unwrap();
    for body in [
        EventBody::ToolQueued {
            tool_use_id: "t1".into(),
            name: tool.into(),
            input,
            read_only: false,
        },
        EventBody::PermissionDecided {
            tool_use_id: "t1".into(),
            decision: PermissionBehavior::Allow,
            reason: DecisionReason::Rule {
                rule: "Bash(npm test:*)".into(),
                source: RuleSource::Project,
                file: None,
            },
            trace: Vec::new(),
        },
    ] {
        store
            .append_event(&Event {
                session_id: id.into(),
                ts_ms: 1_700_000_000_000,
                body,
            })
            .unwrap();
    }
}

fn edit_with_deny(f: &Fixture, fingerprint: &str, deny: &[&str]) -> RuleEdits {
    RuleEdits {
        files: vec![RuleFileEdit {
            path: f.settings.display().to_string(),
            base_fingerprint: fingerprint.into(),
            allow: vec!["Bash(npm test:*)".into()],
            ask: vec![],
            deny: deny.iter().map(|s| s.to_string()).collect(),
            additional_directories: vec![],
        }],
        sessions: vec![],
    }
}

#[test]
fn view_lists_every_source_with_locks_trust_and_tool_names() {
    let f = fixture();
    let view = rules_view(&f.store, &f.project, &f.home, false, &[]).unwrap();
    assert!(view.trusted);
    let project_file = view
        .files
        .iter()
        .find(|file| file.source == RuleSource::Project)
        .unwrap();
    assert!(project_file.editable && project_file.exists);
    assert_eq!(project_file.rules[0].text, "Bash(npm test:*)");
    assert_eq!(project_file.rules[0].list, RuleList::Allow);
    let policy = view
        .files
        .iter()
        .find(|file| file.source == RuleSource::Policy)
        .unwrap();
    assert!(!policy.editable);
    assert!(
        policy
            .lock_reason
            .as_ref()
            .unwrap()
            .contains("managed policy")
    );
    assert!(view.tool_names.contains(&"Bash".to_string()));
    assert!(view.sessions.is_empty());

    // The open sessions' MCP tools (deferred ones too) are completed after
    // the built-in tools, sorted, each once.
    let live = [
        "mcp__docs__search".to_owned(),
        "mcp__docs__fetch".to_owned(),
        "mcp__docs__search".to_owned(),
    ];
    let view = rules_view(&f.store, &f.project, &f.home, false, &live).unwrap();
    let mcp: Vec<&str> = view
        .tool_names
        .iter()
        .map(String::as_str)
        .filter(|n| n.starts_with("mcp__"))
        .collect();
    assert_eq!(mcp, ["mcp__docs__fetch", "mcp__docs__search"]);
    assert_eq!(view.tool_names[0], "Bash", "built-in tools first");
}

#[test]
fn unsaved_edits_drive_the_tester_lint_and_replay_and_save_keeps_other_keys() {
    let mut f = fixture();
    let dir = PathBuf::from(&f.project.path);
    record(
        &mut f.store,
        &dir,
        "s1",
        "Bash",
        json!({"command": "npm test --watch"}),
    );
    record(&mut f.store, &dir, "s2", "FrobTool", json!({"x": 1}));
    let view = rules_view(&f.store, &f.project, &f.home, false, &[]).unwrap();
    let fingerprint = view
        .files
        .iter()
        .find(|file| file.source == RuleSource::Project)
        .unwrap()
        .fingerprint
        .clone();
    let edits = edit_with_deny(&f, &fingerprint, &["Bash(npm test:*)"]);

    // Tester: the unsaved deny rule decides, and the trace names it.
    let decision = test_call(
        &f.project,
        &f.home,
        &TestRuleCallArgs {
            project_id: f.project.id,
            edits: edits.clone(),
            tool: "Bash".into(),
            input: json!({"command": "npm test"}),
            mode: PermissionMode::Default,
        },
    )
    .unwrap();
    assert_eq!(decision.decision, PermissionBehavior::Deny);
    assert!(
        decision
            .trace
            .iter()
            .any(|s| s.detail.contains("Bash(npm test:*)")),
        "{decision:?}"
    );

    // Lint: the allow is now shadowed by the deny.
    let problems = check_edits(&f.project, &f.home, &edits).unwrap();
    assert!(
        problems.iter().any(|p| p.code == "shadowed_by_deny"),
        "{problems:?}"
    );

    // Replay: the stored npm test call flips allow → deny; the call of a
    // tool that no longer exists is replayed too (it asks), with progress.
    let mut progress = Vec::new();
    let report = replay(
        &f.store,
        &f.project,
        &f.home,
        &edits,
        &ReplayScope::Project,
        100,
        |done, total| progress.push((done, total)),
    )
    .unwrap();
    assert_eq!(report.total, 2);
    let npm = report
        .changed_calls
        .iter()
        .find(|c| c.session_id == "s1")
        .unwrap();
    assert_eq!(
        (npm.recorded, npm.from, npm.to),
        (
            PermissionBehavior::Allow,
            PermissionBehavior::Allow,
            PermissionBehavior::Deny
        )
    );
    // FrobTool asks under the saved rules as under the edited ones: not a
    // change the edit makes, but one since it was recorded (allowed then).
    assert!(
        report
            .changed_calls
            .iter()
            .all(|c| c.tool_name != "FrobTool")
    );
    assert_eq!(
        report.since_recorded,
        [ChangeCount {
            from: PermissionBehavior::Allow,
            to: PermissionBehavior::Ask,
            count: 1
        }]
    );
    assert_eq!(progress.first(), Some(&(0, 2)));
    assert_eq!(progress.last(), Some(&(2, 2)));

    // Save: the rule is on disk with the other keys; undo restores.
    let saves = RuleSaves::default();
    let saved = saves
        .save(&mut f.store, &f.project, &f.home, &edits, false)
        .unwrap();
    assert!(matches!(saved, SaveRulesOutcome::Saved { .. }), "{saved:?}");
    let on_disk: Value =
        serde_json::from_str(&std::fs::read_to_string(&f.settings).unwrap()).unwrap();
    assert_eq!(on_disk["model"], json!("opus"));
    assert_eq!(on_disk["permissions"]["deny"], json!(["Bash(npm test:*)"]));
    assert!(saves.can_undo(f.project.id));

    // A second save from the same (now stale) fingerprint is a conflict.
    let stale = edit_with_deny(&f, &fingerprint, &["Bash(rm:*)"]);
    let outcome = saves
        .save(&mut f.store, &f.project, &f.home, &stale, false)
        .unwrap();
    assert_eq!(
        outcome,
        SaveRulesOutcome::Conflict {
            files: vec![f.settings.display().to_string()]
        }
    );
    assert!(
        std::fs::read_to_string(&f.settings)
            .unwrap()
            .contains("npm test")
    );

    saves.undo(&mut f.store, f.project.id, false).unwrap();
    let restored: Value =
        serde_json::from_str(&std::fs::read_to_string(&f.settings).unwrap()).unwrap();
    assert!(restored["permissions"].get("deny").is_none(), "{restored}");
    assert!(!saves.can_undo(f.project.id));
}

#[test]
fn session_rules_are_saved_to_sqlite_and_checked() {
    let mut f = fixture();
    let dir = PathBuf::from(&f.project.path);
    record(&mut f.store, &dir, "s1", "Bash", json!({"command": "ls"}));
    f.store.add_session_rule("s1", "allow", "Bash(ls)").unwrap();
    let view = rules_view(&f.store, &f.project, &f.home, false, &[]).unwrap();
    assert_eq!(view.sessions.len(), 1);
    assert_eq!(view.sessions[0].rules[0].text, "Bash(ls)");
    let saves = RuleSaves::default();
    let edits = RuleEdits {
        files: vec![],
        sessions: vec![SessionRulesEdit {
            session_id: "s1".into(),
            allow: vec![],
            ask: vec![],
            deny: vec!["Bash(rm:*)".into()],
        }],
    };
    saves
        .save(&mut f.store, &f.project, &f.home, &edits, false)
        .unwrap();
    let rows = f.store.session_rules("s1").unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(
        (rows[0].kind.as_str(), rows[0].rule.as_str()),
        ("deny", "Bash(rm:*)")
    );
    let mut bad = edits.clone();
    bad.sessions[0].deny = vec!["Bash(rm".into()];
    let err = saves
        .save(&mut f.store, &f.project, &f.home, &bad, false)
        .unwrap_err();
    assert!(err.to_string().contains("Bash(rm"), "{err}");
    saves.undo(&mut f.store, f.project.id, false).unwrap();
    assert_eq!(f.store.session_rules("s1").unwrap()[0].rule, "Bash(ls)");
}

#[test]
fn validation_reports_the_parsers_error_span_and_previews() {
    let f = fixture();
    let dir = PathBuf::from(&f.project.path);
    let bad = validate_rule(&dir, "Bash(rm -rf");
    let error = bad.error.unwrap();
    assert!(error.start < error.end);
    assert!(!error.message.is_empty());
    let path = validate_rule(&dir, "Read(.claude/**)");
    assert_eq!(
        path.path_preview.unwrap().matches,
        vec![".claude/settings.json".to_string()]
    );
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

/// Stores session `id` with one call per `(tool_use_id, command, decision)`,
/// queued and decided a minute ago.
fn session_with_calls(
    store: &mut Store,
    project: &Path,
    id: &str,
    calls: &[(&str, &str, PermissionDecision)],
) {
    store
        .create_session(&NewSession {
            id: id.into(),
            project_path: project.display().to_string(),
            provider: "replay".into(),
            model: "m".into(),
            mode: "default".into(),
        })
        .unwrap();
    for (tool_use_id, command, decision) in calls {
        for body in [
            EventBody::ToolQueued {
                tool_use_id: (*tool_use_id).into(),
                name: "Bash".into(),
                input: json!({ "command": command }),
                read_only: false,
            },
            EventBody::PermissionDecided {
                tool_use_id: (*tool_use_id).into(),
                decision: decision.decision,
                reason: decision.reason.clone(),
                trace: decision.trace.clone(),
            },
        ] {
            store
                .append_event(&Event {
                    session_id: id.into(),
                    ts_ms: now_ms() - 60_000,
                    body,
                })
                .unwrap();
        }
    }
}

/// The project's engine as a session there decides (its saved settings).
fn engine_of(f: &Fixture) -> PermissionEngine {
    PermissionEngine::new(
        EngineContext {
            cwd: PathBuf::from(&f.project.path),
            home: f.home.clone(),
            additional_dirs: Vec::new(),
            mode: PermissionMode::Default,
        },
        load(&project_layout(&f.project, &f.home)),
    )
}

/// Issue 17 item 5: every rule showed "0 in 30 d", even one that had just
/// allowed a call: a decision names its rule's file with the rule's line
/// and column, and the view compared that with the bare path.
#[test]
fn a_rule_that_decided_calls_shows_their_count() {
    let mut f = fixture();
    let dir = PathBuf::from(&f.project.path);
    let engine = engine_of(&f);
    let allowed = engine.decide_input("Bash", &json!({"command": "npm test --watch"}));
    assert!(
        matches!(&allowed.reason, DecisionReason::Rule { file: Some(file), .. } if file.contains(":4:")),
        "the engine names the rule's position: {:?}",
        allowed.reason
    );
    session_with_calls(
        &mut f.store,
        &dir,
        "s1",
        &[
            ("t1", "npm test --watch", allowed.clone()),
            ("t2", "npm test", allowed.clone()),
        ],
    );
    // Session rules count per session: s2's rule decided one call, s3's
    // same rule none.
    let session_rule = DecisionReason::Rule {
        rule: "Bash(make build)".into(),
        source: RuleSource::Session,
        file: None,
    };
    let by_session_rule = PermissionDecision {
        decision: PermissionBehavior::Allow,
        reason: session_rule,
        trace: Vec::new(),
    };
    session_with_calls(
        &mut f.store,
        &dir,
        "s2",
        &[("t1", "make build", by_session_rule)],
    );
    session_with_calls(&mut f.store, &dir, "s3", &[]);
    for id in ["s2", "s3"] {
        f.store
            .add_session_rule(id, "allow", "Bash(make build)")
            .unwrap();
    }
    let view = rules_view(&f.store, &f.project, &f.home, false, &[]).unwrap();
    let project_file = view
        .files
        .iter()
        .find(|file| file.source == RuleSource::Project)
        .unwrap();
    assert_eq!(project_file.rules[0].text, "Bash(npm test:*)");
    assert_eq!(project_file.rules[0].decided_30d, 2, "{project_file:?}");
    let count_of = |session: &str| {
        view.sessions
            .iter()
            .find(|s| s.session_id == session)
            .unwrap()
            .rules[0]
            .decided_30d
    };
    assert_eq!((count_of("s2"), count_of("s3")), (1, 0));
}

/// Issue 17 item 5: adding one deny rule reported "ask → allow: 3" — calls
/// asked when they ran and allowed by a rule saved since, not by the edit.
/// Replay compares the edited rules with the saved ones, and reports what
/// changed since the calls were recorded apart.
#[test]
fn replay_reports_the_edits_effect_against_the_saved_rules() {
    let mut f = fixture();
    let dir = PathBuf::from(&f.project.path);
    // Recorded before `Bash(npm test:*)` was saved: they asked.
    let asked = PermissionDecision {
        decision: PermissionBehavior::Ask,
        reason: DecisionReason::Default {
            message: "no rule or mode allows Bash".into(),
        },
        trace: Vec::new(),
    };
    session_with_calls(
        &mut f.store,
        &dir,
        "s1",
        &[
            ("t1", "npm test", asked.clone()),
            ("t2", "npm test --watch", asked.clone()),
            ("t3", "npm test -- a", asked.clone()),
            ("t4", "rm -rf build", asked.clone()),
        ],
    );
    let view = rules_view(&f.store, &f.project, &f.home, false, &[]).unwrap();
    let fingerprint = view
        .files
        .iter()
        .find(|file| file.source == RuleSource::Project)
        .unwrap()
        .fingerprint
        .clone();
    let edits = edit_with_deny(&f, &fingerprint, &["Bash(rm:*)"]);
    let report = replay(
        &f.store,
        &f.project,
        &f.home,
        &edits,
        &ReplayScope::Project,
        100,
        |_, _| {},
    )
    .unwrap();
    assert_eq!(report.total, 4);
    assert_eq!(
        report.changes,
        [ChangeCount {
            from: PermissionBehavior::Ask,
            to: PermissionBehavior::Deny,
            count: 1
        }],
        "only the rm call changes with the edit"
    );
    assert_eq!(report.unchanged, 3);
    assert_eq!(report.changed_calls.len(), 1);
    assert_eq!(report.changed_calls[0].seq, 7);
    assert_eq!(
        report.since_recorded,
        [ChangeCount {
            from: PermissionBehavior::Ask,
            to: PermissionBehavior::Allow,
            count: 3
        }],
        "the saved allow rule, apart from the edit"
    );

    // No edit at all: nothing changes, and the drift is still reported.
    let unedited = edit_with_deny(&f, &fingerprint, &[]);
    let report = replay(
        &f.store,
        &f.project,
        &f.home,
        &unedited,
        &ReplayScope::Project,
        100,
        |_, _| {},
    )
    .unwrap();
    assert!(report.changes.is_empty(), "{:?}", report.changes);
    assert_eq!(report.since_recorded[0].count, 3);
}
