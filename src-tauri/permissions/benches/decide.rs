//! Decision time for one Bash call with 10 rules and with 10,000 rules.
//! Rules are indexed by tool and by first command word, so the ratio should
//! stay well under 2.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::fs;
use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use gatehouse_permissions::sources::{SettingsLayout, load};
use gatehouse_permissions::{EngineContext, PermissionEngine};
use gatehouse_protocol::permission::PermissionMode;
use serde_json::json;

/// An engine whose user settings hold `n` rules: Bash rules on distinct
/// commands, path rules and MCP rules, plus the two the call needs.
fn engine_with_rules(dir: &std::path::Path, n: usize) -> PermissionEngine {
    let project = dir.join("project");
    let home = dir.join("home");
    fs::create_dir_all(project.join("src")).unwrap();
    fs::write(project.join("src/main.rs"), "fn main() {}").unwrap();
    fs::create_dir_all(home.join(".claude")).unwrap();
    let mut allow = vec![
        "Bash(npm test:*)".to_string(),
        "Bash(git status)".to_string(),
    ];
    let mut deny = Vec::new();
    for i in 0..n.saturating_sub(2) {
        match i % 4 {
            0 => allow.push(format!("Bash(tool{i} --flag:*)")),
            1 => deny.push(format!("Bash(danger{i}:*)")),
            2 => deny.push(format!("Read(secret{i}/**)")),
            _ => allow.push(format!("mcp__server{i}__tool")),
        }
    }
    fs::write(
        home.join(".claude/settings.json"),
        serde_json::to_string(&json!({"permissions": {"allow": allow, "deny": deny}})).unwrap(),
    )
    .unwrap();
    let settings = load(&SettingsLayout::new(&project, &home));
    assert!(settings.errors.is_empty());
    PermissionEngine::new(
        EngineContext {
            cwd: project,
            home,
            additional_dirs: Vec::new(),
            mode: PermissionMode::Default,
        },
        settings,
    )
}

fn decide(c: &mut Criterion) {
    let calls = [
        (
            "bash_rule",
            "Bash",
            json!({"command": "git status && npm test -- --watch=false"}),
        ),
        (
            "bash_paths",
            "Bash",
            json!({"command": "cat src/main.rs | grep fn && ls src"}),
        ),
        ("read", "Read", json!({"file_path": "src/main.rs"})),
    ];
    let small = tempfile::tempdir().unwrap();
    let large = tempfile::tempdir().unwrap();
    let engines = [
        (10, engine_with_rules(small.path(), 10)),
        (10_000, engine_with_rules(large.path(), 10_000)),
    ];
    for (name, tool, input) in &calls {
        let mut group = c.benchmark_group(*name);
        for (n, engine) in &engines {
            let d = engine.decide_input(tool, input);
            assert_eq!(
                d.decision,
                gatehouse_protocol::permission::PermissionBehavior::Allow,
                "{name} with {n} rules: {d:?}"
            );
            group.bench_function(format!("{n}_rules"), |b| {
                b.iter(|| black_box(engine.decide_input(tool, black_box(input))))
            });
        }
        group.finish();
    }
}

criterion_group!(benches, decide);
criterion_main!(benches);
