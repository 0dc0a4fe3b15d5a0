//! The engine for sub-agents (issue 19): a definition's `permissionMode`
//! never more permissive than the session, and a git worktree's paths
//! decided as the project's (its rules anchored at the project root, its
//! working directories, its protected paths).

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::fs;
use std::path::{Path, PathBuf};

use gatehouse_core::permission::{
    PermissionQuery, PermissionResolver, PermissionSubject, ToolPermissionVerdict,
};
use gatehouse_permissions::sources::{SettingsLayout, load};
use gatehouse_permissions::{CheckRequest, EngineContext, PermissionEngine, check, subagent_mode};
use gatehouse_protocol::permission::{PermissionBehavior, PermissionDecision, PermissionMode};
use serde_json::json;

struct Fixture {
    _tmp: tempfile::TempDir,
    project: PathBuf,
    worktree: PathBuf,
    home: PathBuf,
}

fn fixture(project_settings: serde_json::Value) -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(tmp.path()).unwrap();
    let project = root.join("project");
    let worktree = root.join("data/worktrees/project-1/agent-1");
    let home = root.join("home");
    for d in [&project.join(".claude"), &worktree.join("src"), &home] {
        fs::create_dir_all(d).unwrap();
    }
    fs::write(
        project.join(".claude/settings.json"),
        serde_json::to_string(&project_settings).unwrap(),
    )
    .unwrap();
    Fixture {
        _tmp: tmp,
        project,
        worktree,
        home,
    }
}

fn engine(f: &Fixture, mode: PermissionMode) -> PermissionEngine {
    let mut layout = SettingsLayout::new(&f.project, &f.home);
    layout.project_trusted = true;
    PermissionEngine::new(
        EngineContext {
            cwd: f.project.clone(),
            home: f.home.clone(),
            additional_dirs: Vec::new(),
            mode,
        },
        load(&layout),
    )
}

fn write(resolver: &dyn PermissionResolver, path: &Path) -> PermissionDecision {
    let input = json!({ "file_path": path, "content": "x" });
    let subject = PermissionSubject::WritePath(path.to_path_buf());
    resolver.decide(&PermissionQuery {
        tool_name: "Write",
        input: &input,
        subject: Some(&subject),
        is_read_only: false,
        is_destructive: false,
        requires_user_interaction: false,
        tool_verdict: &ToolPermissionVerdict::Passthrough,
    })
}

#[test]
fn a_definitions_mode_is_never_more_permissive_than_the_session() {
    use PermissionMode::{AcceptEdits, BypassPermissions, Default, DontAsk, Plan};
    // Bypass only when the session bypasses.
    assert_eq!(
        subagent_mode(BypassPermissions, BypassPermissions),
        BypassPermissions
    );
    assert_eq!(subagent_mode(BypassPermissions, Default), Default);
    assert_eq!(subagent_mode(BypassPermissions, AcceptEdits), AcceptEdits);
    assert_eq!(subagent_mode(BypassPermissions, DontAsk), DontAsk);
    // A planning session's agents plan.
    for m in [Default, AcceptEdits, BypassPermissions, DontAsk, Plan] {
        assert_eq!(subagent_mode(m, Plan), Plan, "{m:?}");
    }
    assert_eq!(subagent_mode(AcceptEdits, Default), AcceptEdits);
    assert_eq!(subagent_mode(AcceptEdits, DontAsk), DontAsk);
    // Stricter modes always apply.
    assert_eq!(subagent_mode(Default, BypassPermissions), Default);
    assert_eq!(subagent_mode(Plan, AcceptEdits), Plan);
    assert_eq!(subagent_mode(DontAsk, Default), DontAsk);
}

#[test]
fn the_engine_decides_a_sub_agent_in_its_clamped_mode_and_says_so() {
    let f = fixture(json!({}));
    let e = engine(&f, PermissionMode::Default);
    let file = f.project.join("src/a.rs");
    let input = json!({ "file_path": file, "content": "x" });
    let subject = PermissionSubject::WritePath(file.clone());
    let query = PermissionQuery {
        tool_name: "Write",
        input: &input,
        subject: Some(&subject),
        is_read_only: false,
        is_destructive: false,
        requires_user_interaction: false,
        tool_verdict: &ToolPermissionVerdict::Passthrough,
    };
    assert_eq!(e.decide(&query).decision, PermissionBehavior::Ask);
    let d = e.decide_in_subagent_mode(&query, PermissionMode::AcceptEdits);
    assert_eq!(d.decision, PermissionBehavior::Allow, "{:#?}", d.trace);
    assert!(
        d.trace
            .iter()
            .any(|s| s.detail.contains("asks for AcceptEdits"))
    );
    // Bypass asked from a default session: decided as default.
    let d = e.decide_in_subagent_mode(&query, PermissionMode::BypassPermissions);
    assert_eq!(d.decision, PermissionBehavior::Ask);
    assert!(
        d.trace.iter().any(|s| s
            .detail
            .contains("more permissive than the session's Default allows")),
        "{:#?}",
        d.trace
    );
}

#[test]
fn worktree_paths_are_decided_as_the_projects() {
    let f = fixture(json!({"permissions": {
        "allow": ["Edit(/src/**)"],
        "deny": ["Edit(/src/generated/**)"]
    }}));
    let e = engine(&f, PermissionMode::Default);
    let in_wt = f.worktree.join("src/a.rs");
    // Before the alias: a folder outside the project, asked about.
    assert_eq!(write(&e, &in_wt).decision, PermissionBehavior::Ask);
    e.add_root_alias(&f.worktree, &f.project);
    assert_eq!(write(&e, &in_wt).decision, PermissionBehavior::Allow);
    assert_eq!(
        write(&e, &f.worktree.join("src/generated/x.rs")).decision,
        PermissionBehavior::Deny
    );
    // The worktree's `.git` and `.claude` are protected as the project's.
    let d = write(&e, &f.worktree.join(".claude/settings.json"));
    assert_ne!(d.decision, PermissionBehavior::Allow, "{d:?}");
    // Through the resolver seam too, and undone.
    let r: &dyn PermissionResolver = &e;
    assert!(r.add_root_alias(&f.worktree, &f.project));
    r.remove_root_alias(&f.worktree);
    assert_eq!(write(&e, &in_wt).decision, PermissionBehavior::Ask);
}

#[test]
fn check_knows_the_agent_tool() {
    let f = fixture(
        json!({"permissions": {"deny": ["Agent(Plan)"], "ask": ["Agent(general-purpose)"]}}),
    );
    let decide = |t: &str| {
        let mut r = CheckRequest::new(
            f.project.clone(),
            f.home.clone(),
            "Agent",
            json!({"subagent_type": t, "description": "d", "prompt": "p"}),
        );
        r.trust_project = true;
        check(&r).decision
    };
    // As in a session: starting an agent is allowed unless a rule says
    // otherwise (its calls are decided one by one).
    assert_eq!(decide("Explore"), PermissionBehavior::Allow);
    assert_eq!(decide("Plan"), PermissionBehavior::Deny);
    assert_eq!(decide("general-purpose"), PermissionBehavior::Ask);
}
