//! Glob and Grep without a `path` search the session's working directory,
//! so that is what the permission engine must check: a search of a denied
//! folder is refused whether the model names the folder or not. Real parts:
//! the session's tools (`builtin_pool`), the engine from settings files on
//! disk (`load_engine`), the runtime's pipeline.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::Arc;

use gatehouse_agent::{EngineSetup, StaticAsk, builtin_pool, load_engine};
use gatehouse_core::events::{Emitter, EventSink, NullSink};
use gatehouse_core::runtime::CallStatus;
use gatehouse_core::testing::call;
use gatehouse_core::{ToolRuntime, ToolUseContext};
use gatehouse_protocol::permission::PermissionMode;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// A project with a `secret/` folder holding a password, and a home dir.
struct Fixture {
    _dirs: (tempfile::TempDir, tempfile::TempDir),
    project: std::path::PathBuf,
    home: std::path::PathBuf,
}

fn fixture() -> Fixture {
    let root = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let project = root.path().canonicalize().unwrap().join("project");
    std::fs::create_dir_all(project.join("secret")).unwrap();
    std::fs::write(project.join("secret/password.txt"), "hunter2\n").unwrap();
    std::fs::write(project.join("readme.txt"), "nothing to see\n").unwrap();
    Fixture {
        project,
        home: home.path().canonicalize().unwrap(),
        _dirs: (root, home),
    }
}

fn write_settings(dir: &Path, settings: &Value) {
    std::fs::create_dir_all(dir.join(".claude")).unwrap();
    std::fs::write(
        dir.join(".claude/settings.json"),
        serde_json::to_string(settings).unwrap(),
    )
    .unwrap();
}

/// Runs Grep and Glob without a `path` in `cwd`, with the engine of
/// `fixture` (whose own cwd is the project), and returns their results.
async fn search_without_path(f: &Fixture, cwd: &Path) -> Vec<(CallStatus, String)> {
    let (engine, errors) = load_engine(&EngineSetup {
        project: f.project.clone(),
        home: f.home.clone(),
        mode: Some(PermissionMode::Default),
        trust_project: true,
        settings_files: Vec::new(),
    });
    assert!(errors.is_empty(), "{errors:?}");
    let resolver = Arc::new(engine);
    let session_dir = tempfile::tempdir().unwrap();
    let sink: Arc<dyn EventSink> = Arc::new(NullSink);
    let tools = builtin_pool(
        session_dir.path(),
        Emitter::new("s", Arc::clone(&sink)),
        resolver.as_ref(),
    );
    let rt = ToolRuntime::builder(tools.pool, resolver, session_dir.path())
        .event_sink(sink)
        .ask_handler(Arc::new(StaticAsk::deny()))
        .build();
    let mut ctx = ToolUseContext {
        cwd: cwd.to_path_buf(),
        ..ToolUseContext::default()
    };
    let mut out = Vec::new();
    for block in [
        call("g1", "Grep", json!({"pattern": "hunter"})),
        call("g2", "Glob", json!({"pattern": "**/*.txt"})),
    ] {
        let r = rt.run_one(block, &mut ctx, &CancellationToken::new()).await;
        out.push((r.status, r.text()));
    }
    out
}

#[tokio::test]
async fn a_search_without_path_in_a_denied_subfolder_is_refused() {
    let f = fixture();
    write_settings(
        &f.project,
        &json!({"permissions": {"deny": ["Read(./secret)", "Read(./secret/**)"]}}),
    );
    // The session moved into the denied folder (Bash `cd secret`); the
    // engine's own cwd is still the project.
    for (status, text) in search_without_path(&f, &f.project.join("secret")).await {
        assert_eq!(status, CallStatus::Denied, "{text}");
        assert!(
            !text.contains("hunter2") && !text.contains("password.txt"),
            "{text}"
        );
    }
    // The same searches from the project root are allowed (the rule is
    // about the folder, not the tools).
    for (status, text) in search_without_path(&f, &f.project).await {
        assert_eq!(status, CallStatus::Succeeded, "{text}");
    }
}

#[tokio::test]
async fn a_search_without_path_in_a_denied_project_is_refused_through_a_symlink() {
    let f = fixture();
    // The user denies reading the project folder, named canonically.
    let canonical = f.project.display().to_string();
    write_settings(
        &f.home,
        &json!({"permissions": {"deny": [
            format!("Read(/{canonical})"),
            format!("Read(/{canonical}/**)"),
        ]}}),
    );
    // The session's cwd reaches the project through a symlink and a `.`.
    let link = f.home.join("link-to-project");
    std::os::unix::fs::symlink(&f.project, &link).unwrap();
    for (status, text) in search_without_path(&f, &link.join(".")).await {
        assert_eq!(status, CallStatus::Denied, "{text}");
        assert!(
            !text.contains("hunter2") && !text.contains("readme.txt"),
            "{text}"
        );
    }
}
