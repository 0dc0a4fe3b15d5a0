//! `Skill(name)` rules (issue 21): a deny, ask or allow rule naming a skill
//! decides the Skill calls that load that skill and no other; Claude Code's
//! `Skill(name:*)` is the same skill with any arguments; a `Skill(x)` rule
//! never touches another tool's calls.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::fs;

use gatehouse_core::permission::{
    PermissionQuery, PermissionResolver, PermissionSubject, ToolPermissionVerdict,
};
use gatehouse_permissions::sources::{SettingsLayout, load};
use gatehouse_permissions::{EngineContext, PermissionEngine};
use gatehouse_protocol::permission::{DecisionReason, PermissionBehavior, PermissionMode};
use serde_json::json;

fn decide(engine: &PermissionEngine, tool: &str, subject: PermissionSubject) -> PermissionBehavior {
    let input = json!({"skill": "x"});
    let d = engine.decide(&PermissionQuery {
        tool_name: tool,
        input: &input,
        subject: Some(&subject),
        is_read_only: false,
        is_destructive: false,
        requires_user_interaction: false,
        tool_verdict: &ToolPermissionVerdict::Passthrough,
    });
    if d.decision != PermissionBehavior::Ask {
        assert!(
            matches!(&d.reason, DecisionReason::Rule { rule, .. } if rule.starts_with("Skill(")),
            "a Skill rule decided: {d:?}"
        );
    }
    d.decision
}

#[test]
fn skill_rules_decide_by_the_skills_name() {
    let tmp = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(tmp.path()).unwrap();
    let (project, home) = (root.join("p"), root.join("h"));
    fs::create_dir_all(project.join(".claude")).unwrap();
    fs::create_dir_all(&home).unwrap();
    fs::write(
        project.join(".claude/settings.json"),
        json!({"permissions": {
            "allow": ["Skill(report)", "Skill(review:*)"],
            "deny": ["Skill(deploy)"]
        }})
        .to_string(),
    )
    .unwrap();
    let mut layout = SettingsLayout::new(&project, &home);
    layout.project_trusted = true;
    let engine = PermissionEngine::new(
        EngineContext {
            cwd: project.clone(),
            home,
            additional_dirs: Vec::new(),
            mode: PermissionMode::Default,
        },
        load(&layout),
    );
    let skill = |name: &str| decide(&engine, "Skill", PermissionSubject::SkillName(name.into()));
    assert_eq!(skill("report"), PermissionBehavior::Allow);
    assert_eq!(
        skill("review"),
        PermissionBehavior::Allow,
        "name:* is the name"
    );
    assert_eq!(skill("deploy"), PermissionBehavior::Deny);
    assert_eq!(skill("reports"), PermissionBehavior::Ask, "no prefix match");
    // An agent type of the same name is not a skill.
    assert_eq!(
        decide(
            &engine,
            "Agent",
            PermissionSubject::AgentType("deploy".into())
        ),
        PermissionBehavior::Ask
    );
}
