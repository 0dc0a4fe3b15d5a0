//! Rules reach open sessions (issue 16 item 8): a settings file edited on
//! disk while a session is open is watched and reloaded; a broken edit keeps
//! the last good rules and says so; the app's own saves reload at once.
//! Real parts: SQLite in a tempdir, real settings files, the real engine and
//! Bash tool, the replay provider as the model.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use gatehouse_agent::provider::replay::{ReplayProvider, Script};
use gatehouse_core::events::MemorySink;
use gatehouse_protocol::event::{Event, EventBody, SettingsReloadTrigger};
use gatehouse_protocol::permission::{DecisionReason, PermissionBehavior};
use gatehouse_session::host::AskPolicy;
use gatehouse_session::{HostConfig, SessionHost, StartSpec};
use gatehouse_store::Store;
use serde_json::json;

mod common;
use common::{text, tool};

struct Fixture {
    data: tempfile::TempDir,
    _home: tempfile::TempDir,
    project: tempfile::TempDir,
    sink: Arc<MemorySink>,
    host: SessionHost,
}

impl Fixture {
    fn new() -> Self {
        let data = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(project.path().join(".claude")).unwrap();
        let sink = Arc::new(MemorySink::new());
        let mut config = HostConfig::new(data.path().to_path_buf());
        config.home = home.path().to_path_buf();
        let host =
            SessionHost::new(config, sink.clone(), tokio::runtime::Handle::current()).unwrap();
        Self {
            data,
            _home: home,
            project,
            sink,
            host,
        }
    }

    fn dir(&self) -> PathBuf {
        self.project.path().canonicalize().unwrap()
    }

    fn settings_file(&self) -> PathBuf {
        self.dir().join(".claude/settings.json")
    }

    /// A session whose model runs `ls` once per prompt, `prompts` times.
    fn start(&self, prompts: usize) -> String {
        let mut turns = Vec::new();
        for i in 0..prompts {
            turns.push(tool(&format!("ls{i}"), "Bash", json!({"command": "ls"})));
            turns.push(text("done"));
        }
        let script = Script::parse(&json!({ "turns": turns }).to_string())
            .unwrap()
            .with_project_dir(&self.dir());
        self.host
            .start(StartSpec {
                project: self.dir(),
                provider: Arc::new(ReplayProvider::new(script)),
                model: "replay".into(),
                mode: None,
                trust_project: false,
                ask: AskPolicy::DenyAll,
                resume: None,
                settings_files: Vec::new(),
                mcp_startup_timeout: None,
            })
            .unwrap()
            .handle
            .session_id
    }

    /// Waits (watchdog 30 s) until an event matching `pred` arrives.
    async fn wait_for(&self, what: &str, pred: impl Fn(&Event) -> bool) -> Event {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(e) = self.sink.events().into_iter().find(|e| pred(e)) {
                return e;
            }
            assert!(Instant::now() < deadline, "no {what} within 30 s");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Sends a prompt and returns the decision of its `ls` call.
    async fn ls_decision(&self, session: &str, i: usize) -> (PermissionBehavior, DecisionReason) {
        let ticket = self.host.send_prompt(session, "go").unwrap();
        tokio::time::timeout(Duration::from_secs(30), ticket.wait())
            .await
            .unwrap()
            .unwrap();
        let id = format!("ls{i}");
        let e = self
            .wait_for(&format!("permission_decided of {id}"), |e| {
                matches!(&e.body, EventBody::PermissionDecided { tool_use_id, .. } if *tool_use_id == id)
            })
            .await;
        match e.body {
            EventBody::PermissionDecided {
                decision, reason, ..
            } => (decision, reason),
            _ => unreachable!(),
        }
    }

    fn reloads(&self) -> Vec<(bool, SettingsReloadTrigger, usize)> {
        self.sink
            .events()
            .into_iter()
            .filter_map(|e| match e.body {
                EventBody::SettingsReloaded {
                    applied,
                    trigger,
                    problems,
                } => Some((applied, trigger, problems.len())),
                _ => None,
            })
            .collect()
    }

    async fn wait_for_reloads(&self, n: usize) -> Vec<(bool, SettingsReloadTrigger, usize)> {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let r = self.reloads();
            if r.len() >= n {
                return r;
            }
            assert!(
                Instant::now() < deadline,
                "{n} settings_reloaded expected within 30 s, saw {r:?}"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deny_rule_written_on_disk_reaches_the_open_session_and_a_broken_file_keeps_it() {
    let f = Fixture::new();
    let session = f.start(3);
    // `ls` inside the project is read-only: allowed in default mode.
    let (decision, _) = f.ls_decision(&session, 0).await;
    assert_eq!(decision, PermissionBehavior::Allow);

    write(
        &f.settings_file(),
        r#"{"permissions": {"deny": ["Bash(ls:*)"]}}"#,
    );
    let reloads = f.wait_for_reloads(1).await;
    assert_eq!(reloads[0], (true, SettingsReloadTrigger::FileChanged, 0));
    let (decision, reason) = f.ls_decision(&session, 1).await;
    assert_eq!(decision, PermissionBehavior::Deny);
    assert!(
        matches!(&reason, DecisionReason::Rule { rule, .. } if rule == "Bash(ls:*)"),
        "{reason:?}"
    );

    // A broken edit: the session says so, and the deny rule stays.
    write(&f.settings_file(), r#"{"permissions": {"deny": ["#);
    let reloads = f.wait_for_reloads(2).await;
    let (applied, trigger, problems) = reloads[1];
    assert!(!applied, "{reloads:?}");
    assert_eq!(trigger, SettingsReloadTrigger::FileChanged);
    assert!(problems >= 1, "{reloads:?}");
    let (decision, _) = f.ls_decision(&session, 2).await;
    assert_eq!(
        decision,
        PermissionBehavior::Deny,
        "the last good rules stay"
    );

    let diagnostics = f.host.diagnostics(&session).unwrap();
    assert!(diagnostics.settings_watcher_running);
    assert_eq!(diagnostics.settings_reloads, 2);
    assert_eq!(diagnostics.settings_reloads_kept_previous, 1);
    f.host.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_save_in_the_app_reloads_open_sessions_at_once() {
    let f = Fixture::new();
    let session = f.start(2);
    let (decision, _) = f.ls_decision(&session, 0).await;
    assert_eq!(decision, PermissionBehavior::Allow);
    // Settings unchanged: nothing new to read, nothing reported.
    assert_eq!(f.host.reload_settings(SettingsReloadTrigger::RulesSaved), 0);

    // What the rule editor's save does: write, then tell the host (which
    // does not wait for the watcher).
    write(
        &f.settings_file(),
        r#"{"permissions": {"deny": ["Bash(ls:*)"]}}"#,
    );
    let changed = f.host.reload_settings(SettingsReloadTrigger::RulesSaved);
    // The watcher may have been quicker; either way the rule is in force
    // now, before the next prompt.
    assert!(changed <= 1);
    let reloads = f.wait_for_reloads(1).await;
    assert!(reloads[0].0, "{reloads:?}");
    let (decision, _) = f.ls_decision(&session, 1).await;
    assert_eq!(decision, PermissionBehavior::Deny);
    f.host.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_rules_saved_in_the_editor_reach_the_open_session() {
    let f = Fixture::new();
    let session = f.start(2);
    let (decision, _) = f.ls_decision(&session, 0).await;
    assert_eq!(decision, PermissionBehavior::Allow);
    // The rule editor replaces the session's stored rules (its own
    // connection), then tells the host.
    let mut store = Store::open(f.data.path()).unwrap();
    store
        .replace_session_rules(&session, &[("deny".into(), "Bash(ls:*)".into())])
        .unwrap();
    let problems = f.host.reload_session_rules(std::slice::from_ref(&session));
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(
        f.host.session_rules(&session).unwrap(),
        vec!["Bash(ls:*)".to_owned()]
    );
    let (decision, reason) = f.ls_decision(&session, 1).await;
    assert_eq!(decision, PermissionBehavior::Deny, "{reason:?}");
    f.host.finish().await;
}
