//! Hooks in an open session (issue 18): loaded from the project's real
//! settings file with the session's trust, run on calls, stored with the
//! session, reloaded when the file changes, SessionStart/SessionEnd fired.
//! Real parts: SQLite in a tempdir, real settings files and hook
//! processes, the real engine and Bash tool, the replay provider.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use gatehouse_agent::provider::replay::{ReplayProvider, Script};
use gatehouse_core::events::MemorySink;
use gatehouse_protocol::event::{EventBody, HookEventName, SettingsReloadTrigger};
use gatehouse_session::host::AskPolicy;
use gatehouse_session::{HostConfig, SessionHost, StartSpec};
use gatehouse_store::Store;
use serde_json::json;

mod common;
use common::{completed, text, tool};

struct Fixture {
    data: tempfile::TempDir,
    _home: tempfile::TempDir,
    project: tempfile::TempDir,
    host: SessionHost,
}

impl Fixture {
    fn new() -> Self {
        let data = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(project.path().join(".claude")).unwrap();
        let mut config = HostConfig::new(data.path().to_path_buf());
        config.home = home.path().to_path_buf();
        let host = SessionHost::new(
            config,
            Arc::new(MemorySink::new()),
            tokio::runtime::Handle::current(),
        )
        .unwrap();
        Self {
            data,
            _home: home,
            project,
            host,
        }
    }

    fn dir(&self) -> PathBuf {
        self.project.path().canonicalize().unwrap()
    }

    fn settings(&self, v: serde_json::Value) {
        std::fs::write(self.dir().join(".claude/settings.json"), v.to_string()).unwrap();
    }

    async fn start(&self, trust: bool, calls: usize) -> (String, Vec<String>) {
        let mut turns = Vec::new();
        for i in 0..calls {
            turns.push(tool(&format!("b{i}"), "Bash", json!({"command": "ls"})));
            turns.push(text("done"));
        }
        let script = Script::parse(&json!({ "turns": turns }).to_string()).unwrap();
        let started = self
            .host
            .start(StartSpec {
                project: self.dir(),
                provider: Arc::new(ReplayProvider::new(script)),
                model: "replay".into(),
                mode: None,
                trust_project: trust,
                ask: AskPolicy::DenyAll,
                resume: None,
                settings_files: Vec::new(),
                mcp_startup_timeout: None,
            })
            .await
            .unwrap();
        (started.handle.session_id, started.warnings)
    }

    async fn prompt(&self, id: &str) {
        let ticket = self.host.send_prompt(id, "go").unwrap();
        tokio::time::timeout(Duration::from_secs(60), ticket.wait())
            .await
            .unwrap()
            .unwrap();
    }

    fn stored(&self, id: &str) -> Vec<gatehouse_protocol::event::Event> {
        Store::open(self.data.path())
            .unwrap()
            .session_events(id)
            .unwrap()
            .0
    }
}

fn guard(fx: &Fixture) -> serde_json::Value {
    json!({"hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
            "command": "cat >/dev/null; echo 'Bash is off today' >&2; exit 2"}]}],
        "SessionStart": [{"hooks": [{"type": "command", "command": format!("cat > {}/start.json", fx.dir().display())}]}],
        "SessionEnd": [{"hooks": [{"type": "command", "command": format!("cat > {}/end.json", fx.dir().display())}]}]
    }})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trusted_projects_hook_denies_and_its_run_is_stored_with_the_session() {
    let fx = Fixture::new();
    fx.settings(guard(&fx));
    let (id, warnings) = fx.start(true, 2).await;
    assert!(warnings.is_empty(), "{warnings:?}");
    fx.prompt(&id).await;
    let events = fx.stored(&id);
    let (is_error, content) = completed(&events, "b0");
    assert!(is_error);
    assert!(
        content.contains("PreToolUse:Bash hook error: [cat >/dev/null; echo 'Bash is off today' >&2; exit 2]: Bash is off today"),
        "{content}"
    );
    let run = events
        .iter()
        .find_map(|e| match &e.body {
            EventBody::HookRan {
                hook_event: HookEventName::PreToolUse,
                run,
                ..
            } => run.clone(),
            _ => None,
        })
        .expect("a stored hook_ran");
    assert_eq!(run.exit_code, Some(2));
    assert_eq!(run.stderr, "Bash is off today\n");
    let start: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fx.dir().join("start.json")).unwrap())
            .unwrap();
    assert_eq!(start["source"], "startup");
    assert!(
        start["transcript_path"]
            .as_str()
            .unwrap()
            .ends_with("transcript.jsonl")
    );

    // The hook is removed on disk: the next call runs without it.
    fx.settings(json!({}));
    fx.host.reload_settings(SettingsReloadTrigger::RulesSaved);
    fx.prompt(&id).await;
    let events = fx.stored(&id);
    let (_, content) = completed(&events, "b1");
    assert!(!content.contains("hook error"), "{content}");
    let loaded: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::HooksLoaded {
                active, trigger, ..
            } => Some((*active, *trigger)),
            _ => None,
        })
        .collect();
    assert_eq!(
        loaded,
        [(3, None), (0, Some(SettingsReloadTrigger::RulesSaved))]
    );

    fx.host.close(&id).await.unwrap();
    // The reload removed the SessionEnd hook too, so it did not run.
    assert!(!fx.dir().join("end.json").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_untrusted_projects_hooks_are_listed_in_the_warnings_and_not_run() {
    let fx = Fixture::new();
    fx.settings(guard(&fx));
    let (id, warnings) = fx.start(false, 1).await;
    assert_eq!(warnings.len(), 3, "{warnings:?}");
    assert!(
        warnings
            .iter()
            .all(|w| w.contains("is not run: the project is not trusted")),
        "{warnings:?}"
    );
    fx.prompt(&id).await;
    let events = fx.stored(&id);
    assert!(
        !events
            .iter()
            .any(|e| matches!(e.body, EventBody::HookRan { .. }))
    );
    fx.host.close(&id).await.unwrap();
    assert!(!fx.dir().join("start.json").exists());
    assert!(!fx.dir().join("end.json").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_end_runs_when_the_session_closes() {
    let fx = Fixture::new();
    fx.settings(guard(&fx));
    let (id, _) = fx.start(true, 0).await;
    fx.host.close(&id).await.unwrap();
    let end: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fx.dir().join("end.json")).unwrap()).unwrap();
    assert_eq!(end["hook_event_name"], "SessionEnd");
    assert_eq!(end["reason"], "other");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_malformed_hook_is_a_stored_problem_with_its_position_and_the_rest_still_run() {
    let fx = Fixture::new();
    fx.settings(json!({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command"}]},
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "cat >/dev/null; exit 2"}]}
    ]}}));
    let (id, warnings) = fx.start(true, 1).await;
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("settings.json:1:"), "{warnings:?}");
    fx.prompt(&id).await;
    let events = fx.stored(&id);
    let problems = events
        .iter()
        .find_map(|e| match &e.body {
            EventBody::HooksLoaded {
                active, problems, ..
            } => Some((*active, problems.clone())),
            _ => None,
        })
        .unwrap();
    assert_eq!(problems.0, 1);
    assert_eq!(problems.1.len(), 1);
    assert!(
        problems.1[0]
            .message
            .contains("command hook without a command")
    );
    assert!(problems.1[0].file.ends_with(".claude/settings.json"));
    let (is_error, content) = completed(&events, "b0");
    assert!(
        is_error && content.contains("PreToolUse:Bash hook error"),
        "{content}"
    );
}
