//! MCP tools under the real permission engine (gatehouse-permissions): the
//! tools' own check is passthrough, rules name `mcp__server` or
//! `mcp__server__tool`, and only trusted read-only tools run unprompted
//! (outside bypassPermissions, which runs MCP tools unless a rule objects).

mod common;

use std::time::Duration;

use gatehouse_core::permission::{PermissionQuery, PermissionResolver, ToolPermissionVerdict};
use gatehouse_core::registry::{GateContext, Registry};
use gatehouse_mcp::McpManager;
use gatehouse_mcp::config::McpConfig;
use gatehouse_permissions::sources::{SettingsLayout, load};
use gatehouse_permissions::{EngineContext, PermissionEngine};
use gatehouse_protocol::permission::{PermissionBehavior, PermissionMode};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rules_and_trust_decide_mcp_calls() {
    let dir = require_servers!("rules_and_trust_decide_mcp_calls");
    let project = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join(".claude")).unwrap();
    std::fs::write(
        home.path().join(".claude/settings.json"),
        json!({"permissions": {
            "deny": ["mcp__denied"],
            "allow": ["mcp__files__write_file"]
        }})
        .to_string(),
    )
    .unwrap();
    let settings = load(&SettingsLayout::new(project.path(), home.path()));
    let engine = PermissionEngine::new(
        EngineContext {
            cwd: project.path().into(),
            home: home.path().into(),
            additional_dirs: Vec::new(),
            mode: PermissionMode::Default,
        },
        settings,
    );
    let mut trusted = common::filesystem(&dir, project.path());
    trusted.name = "trusted".into();
    trusted.trusted = true;
    let mut denied = common::filesystem(&dir, project.path());
    denied.name = "denied".into();
    let (options, _) = common::plain_options();
    let m = McpManager::start(
        &McpConfig {
            servers: vec![common::filesystem(&dir, project.path()), trusted, denied],
            errors: Vec::new(),
        },
        &options,
        &|_| true,
    );
    m.settled(Duration::from_secs(30)).await;
    let pool = Registry::new(GateContext::default()).assemble_pool(&engine, m.tools());
    // A deny rule naming the server removes all its tools from the pool.
    assert!(pool.names().iter().all(|n| !n.starts_with("mcp__denied__")));
    assert!(pool.find("mcp__files__read_text_file").is_some());

    let decide = |name: &str| {
        let tool = pool.find(name).unwrap_or_else(|| panic!("{name}"));
        let input = json!({"path": project.path().join("a.txt")});
        let verdict = ToolPermissionVerdict::Passthrough;
        let d = engine.decide(&PermissionQuery {
            tool_name: tool.name(),
            input: &input,
            subject: None,
            is_read_only: tool.is_read_only(&input),
            is_destructive: tool.is_destructive(&input),
            requires_user_interaction: tool.requires_user_interaction(),
            tool_verdict: &verdict,
        });
        d.decision
    };
    // Trusted read-only: no prompt. The same tool untrusted: ask.
    assert_eq!(
        decide("mcp__trusted__read_text_file"),
        PermissionBehavior::Allow
    );
    assert_eq!(
        decide("mcp__files__read_text_file"),
        PermissionBehavior::Ask
    );
    // Destructive: ask, unless a rule allows.
    assert_eq!(decide("mcp__trusted__write_file"), PermissionBehavior::Ask);
    assert_eq!(decide("mcp__files__write_file"), PermissionBehavior::Allow);
    // acceptEdits does not lift a trusted destructiveHint (issue 8 item 3):
    // only the exact allow rule does.
    engine.set_mode(PermissionMode::AcceptEdits);
    assert_eq!(decide("mcp__trusted__write_file"), PermissionBehavior::Ask);
    assert_eq!(decide("mcp__files__write_file"), PermissionBehavior::Allow);
    // bypassPermissions runs MCP tools, destructive and untrusted ones too,
    // unless a rule says otherwise (issue 16 item 11, as Claude Code).
    engine.set_mode(PermissionMode::BypassPermissions);
    assert_eq!(
        decide("mcp__trusted__write_file"),
        PermissionBehavior::Allow
    );
    assert_eq!(
        decide("mcp__files__read_text_file"),
        PermissionBehavior::Allow
    );
    assert_eq!(
        decide("mcp__trusted__read_text_file"),
        PermissionBehavior::Allow
    );
    assert_eq!(decide("mcp__files__write_file"), PermissionBehavior::Allow);
}

/// Issue 16 item 11: in bypassPermissions every tool of an untrusted server
/// asked (its hints are not believed, so it counts as destructive), which
/// a headless session turns into a refusal. Now bypass runs MCP tools
/// unless a deny or ask rule says otherwise; default mode still asks.
/// Needs only python3 (the fault server).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bypass_runs_untrusted_mcp_tools_unless_a_rule_says_otherwise() {
    let project = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join(".claude")).unwrap();
    std::fs::write(
        home.path().join(".claude/settings.json"),
        json!({"permissions": {
            "deny": ["mcp__fault__crash"],
            "ask": ["mcp__fault__hang"]
        }})
        .to_string(),
    )
    .unwrap();
    let settings = load(&SettingsLayout::new(project.path(), home.path()));
    let engine = PermissionEngine::new(
        EngineContext {
            cwd: project.path().into(),
            home: home.path().into(),
            additional_dirs: Vec::new(),
            mode: PermissionMode::BypassPermissions,
        },
        settings,
    );
    let (options, _) = common::plain_options();
    let m = McpManager::start(
        &McpConfig {
            servers: vec![common::fault(&[])],
            errors: Vec::new(),
        },
        &options,
        &|_| true,
    );
    m.settled(Duration::from_secs(30)).await;
    let pool = Registry::new(GateContext::default()).assemble_pool(&engine, m.tools());
    let decide = |name: &str| {
        let tool = pool
            .find(name)
            .unwrap_or_else(|| panic!("{name} in the pool"));
        let input = json!({"text": "x"});
        let verdict = ToolPermissionVerdict::Passthrough;
        engine
            .decide(&PermissionQuery {
                tool_name: tool.name(),
                input: &input,
                subject: None,
                is_read_only: tool.is_read_only(&input),
                is_destructive: tool.is_destructive(&input),
                requires_user_interaction: tool.requires_user_interaction(),
                tool_verdict: &verdict,
            })
            .decision
    };
    // Untrusted: declared destructive, yet bypass runs it.
    assert!(
        pool.find("mcp__fault__echo")
            .unwrap()
            .is_destructive(&json!({}))
    );
    assert_eq!(decide("mcp__fault__echo"), PermissionBehavior::Allow);
    assert_eq!(decide("mcp__fault__hang"), PermissionBehavior::Ask);
    assert!(
        pool.find("mcp__fault__crash").is_none(),
        "a deny rule naming the tool takes it out of the pool"
    );
    // The other modes keep "destructive asks".
    engine.set_mode(PermissionMode::Default);
    assert_eq!(decide("mcp__fault__echo"), PermissionBehavior::Ask);
    engine.set_mode(PermissionMode::AcceptEdits);
    assert_eq!(decide("mcp__fault__echo"), PermissionBehavior::Ask);
}
