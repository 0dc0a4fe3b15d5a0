//! What running a permission decision on the blocking pool costs (issue 16
//! item 5): the same decisions made in place and through
//! `tokio::task::spawn_blocking` (as the pipeline now does), one after the
//! other, on a two-worker runtime. Prints the mean per decision.
//!
//! `cargo run -p gatehouse-session --example decide_handoff [-- N]`

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::sync::Arc;
use std::time::Instant;

use gatehouse_permissions::sources::{SettingsLayout, load};
use gatehouse_permissions::{EngineContext, PermissionEngine};
use gatehouse_protocol::permission::PermissionMode;
use serde_json::{Value, json};

fn main() {
    let n: u32 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(20_000);
    let project = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(project.path().join(".claude")).unwrap();
    std::fs::create_dir_all(project.path().join("src")).unwrap();
    std::fs::write(
        project.path().join(".claude/settings.json"),
        r#"{"permissions": {"allow": ["Bash(git status)", "Bash(npm test:*)"], "deny": ["Bash(rm:*)", "Read(./.env)"]}}"#,
    )
    .unwrap();
    let mut layout = SettingsLayout::new(project.path(), home.path());
    layout.project_trusted = true;
    let engine = Arc::new(PermissionEngine::new(
        EngineContext {
            cwd: project.path().to_path_buf(),
            home: home.path().to_path_buf(),
            additional_dirs: Vec::new(),
            mode: PermissionMode::Default,
        },
        load(&layout),
    ));
    let main_rs = project.path().join("src/main.rs").display().to_string();
    let calls: Vec<(&str, Value)> = vec![
        (
            "Bash",
            json!({"command": "git status && npm test -- --watch=false"}),
        ),
        (
            "Bash",
            json!({"command": "cat src/main.rs | grep fn && ls src"}),
        ),
        ("Read", json!({"file_path": main_rs})),
    ];
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    for (tool, input) in &calls {
        // Warm both paths.
        for _ in 0..200 {
            engine.decide_input(tool, input);
        }
        let start = Instant::now();
        for _ in 0..n {
            std::hint::black_box(engine.decide_input(tool, input));
        }
        let in_place = start.elapsed() / n;
        let handed_off = runtime.block_on(async {
            for _ in 0..200 {
                let (e, t, i) = (Arc::clone(&engine), tool.to_string(), input.clone());
                tokio::task::spawn_blocking(move || e.decide_input(&t, &i))
                    .await
                    .unwrap();
            }
            let start = Instant::now();
            for _ in 0..n {
                let (e, t, i) = (Arc::clone(&engine), tool.to_string(), input.clone());
                std::hint::black_box(
                    tokio::task::spawn_blocking(move || e.decide_input(&t, &i))
                        .await
                        .unwrap(),
                );
            }
            start.elapsed() / n
        });
        println!(
            "{tool} {input}: in place {in_place:?}, through spawn_blocking {handed_off:?} (+{:?})",
            handed_off.saturating_sub(in_place)
        );
    }
}
