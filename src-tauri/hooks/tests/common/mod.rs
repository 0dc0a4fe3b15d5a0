//! A session's tool runtime with the real engine, the real built-in tools
//! and hooks from real settings files in a temporary project and home.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use gatehouse_agent::builtin_pool;
use gatehouse_core::ask::AskAnswer;
use gatehouse_core::events::{Emitter, EventSink, MemorySink};
use gatehouse_core::testing::ScriptedAsk;
use gatehouse_core::{ToolCallResult, ToolRuntime, ToolUseBlock, ToolUseContext};
use gatehouse_hooks::config::load_hooks;
use gatehouse_hooks::transcript::TranscriptSink;
use gatehouse_hooks::{HookContext, SessionHooks};
use gatehouse_permissions::sources::{SettingsLayout, load};
use gatehouse_permissions::{EngineContext, PermissionEngine};
use gatehouse_protocol::event::{Event, EventBody, HookRun};
use gatehouse_protocol::permission::{PermissionBehavior, PermissionMode, TraceStep};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

pub struct Env {
    pub project: tempfile::TempDir,
    pub home: tempfile::TempDir,
    pub managed: tempfile::TempDir,
    pub data: tempfile::TempDir,
    pub trusted: bool,
    pub mode: PermissionMode,
    pub answer: AskAnswer,
}

pub struct Session {
    pub rt: Arc<ToolRuntime>,
    pub sink: Arc<MemorySink>,
    pub hooks: Arc<SessionHooks>,
    pub ask: Arc<ScriptedAsk>,
    pub ctx: ToolUseContext,
    pub sink_dyn: Arc<dyn EventSink>,
}

impl Env {
    pub fn new() -> Self {
        let project = tempfile::tempdir().unwrap();
        // Canonical, as the session host makes it (tmp may be a symlink).
        let project_path = project.path().canonicalize().unwrap();
        assert_eq!(
            project_path,
            project.path().to_path_buf(),
            "tmp is canonical here"
        );
        Self {
            project,
            home: tempfile::tempdir().unwrap(),
            managed: tempfile::tempdir().unwrap(),
            data: tempfile::tempdir().unwrap(),
            trusted: true,
            mode: PermissionMode::Default,
            answer: AskAnswer::Deny { feedback: None },
        }
    }

    pub fn dir(&self) -> &Path {
        self.project.path()
    }

    /// Writes `.claude/settings.json` of the project.
    pub fn project_settings(&self, json: &str) -> PathBuf {
        let dir = self.dir().join(".claude");
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("settings.json");
        std::fs::write(&p, json).unwrap();
        p
    }

    pub fn user_settings(&self, json: &str) -> PathBuf {
        let dir = self.home.path().join(".claude");
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("settings.json");
        std::fs::write(&p, json).unwrap();
        p
    }

    pub fn managed_settings(&self, json: &str) -> PathBuf {
        let p = self.managed.path().join("managed-settings.json");
        std::fs::write(&p, json).unwrap();
        p
    }

    /// An executable script in the project.
    pub fn script(&self, name: &str, body: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let p = self.dir().join(name);
        std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p
    }

    pub fn layout(&self) -> SettingsLayout {
        SettingsLayout {
            project_dir: self.dir().to_path_buf(),
            home_dir: self.home.path().to_path_buf(),
            managed_file: Some(self.managed.path().join("managed-settings.json")),
            managed_dropin_dir: Some(self.managed.path().join("managed-settings.d")),
            flag_files: Vec::new(),
            flag_rules: Vec::new(),
            project_trusted: self.trusted,
        }
    }

    /// A session over the settings as they are now.
    pub fn session(&self) -> Session {
        self.session_with(false)
    }

    /// With `transcript`, the Claude Code-format transcript is written.
    pub fn session_with(&self, transcript: bool) -> Session {
        let layout = self.layout();
        let settings = load(&layout);
        assert!(settings.errors.is_empty(), "{:?}", settings.errors);
        let engine = Arc::new(PermissionEngine::new(
            EngineContext {
                cwd: self.dir().to_path_buf(),
                home: self.home.path().to_path_buf(),
                additional_dirs: Vec::new(),
                mode: self.mode,
            },
            settings,
        ));
        let sink = Arc::new(MemorySink::new());
        let mut sink_dyn: Arc<dyn EventSink> = sink.clone();
        let transcript = transcript.then(|| {
            let t = TranscriptSink::start(
                Arc::clone(&sink_dyn),
                &self.data.path().join("transcripts").join("s.jsonl"),
                self.dir(),
            )
            .unwrap();
            sink_dyn = t.clone();
            t
        });
        let emitter = Emitter::new("s", Arc::clone(&sink_dyn));
        let session_dir = self.data.path().join("session");
        let tools = builtin_pool(&session_dir, emitter.clone(), engine.as_ref());
        let mode_engine = Arc::clone(&engine);
        let hooks = SessionHooks::new(
            HookContext {
                session_id: "s".into(),
                project: self.dir().to_path_buf(),
                home: self.home.path().to_path_buf(),
                transcript,
                emitter,
                secrets: None,
                mode: Arc::new(move || mode_engine.mode()),
            },
            load_hooks(&layout),
        );
        let ask = ScriptedAsk::new(self.answer.clone());
        let rt = ToolRuntime::builder(Arc::clone(&tools.pool), engine.clone(), &session_dir)
            .session_id("s")
            .event_sink(Arc::clone(&sink_dyn))
            .ask_handler(ask.clone())
            .hooks(hooks.runtime_hooks())
            .build();
        let ctx = ToolUseContext {
            session_id: "s".into(),
            cwd: self.dir().to_path_buf(),
            permission_mode: self.mode,
            ..ToolUseContext::default()
        };
        Session {
            rt,
            sink,
            hooks,
            ask,
            ctx,
            sink_dyn,
        }
    }
}

impl Session {
    pub async fn call(&mut self, id: &str, tool: &str, input: Value) -> ToolCallResult {
        self.rt
            .run_one(
                ToolUseBlock::new(id, tool, input),
                &mut self.ctx,
                &CancellationToken::new(),
            )
            .await
    }

    pub fn events(&self) -> Vec<Event> {
        self.sink.events()
    }

    /// Every `hook_ran` as (hook, decision, blocked, message, error, run).
    pub fn hook_runs(&self) -> Vec<HookRan> {
        self.events()
            .into_iter()
            .filter_map(|e| match e.body {
                EventBody::HookRan {
                    tool_use_id,
                    hook_event,
                    hook,
                    decision,
                    blocked,
                    input_updated,
                    message,
                    error,
                    run,
                } => Some(HookRan {
                    tool_use_id,
                    event: format!("{hook_event:?}"),
                    hook,
                    decision,
                    blocked,
                    input_updated,
                    message,
                    error,
                    run,
                }),
                _ => None,
            })
            .collect()
    }

    /// The permission decision of call `id`.
    pub fn decision(&self, id: &str) -> (PermissionBehavior, Vec<TraceStep>) {
        self.events()
            .into_iter()
            .find_map(|e| match e.body {
                EventBody::PermissionDecided {
                    tool_use_id,
                    decision,
                    trace,
                    ..
                } if tool_use_id == id => Some((decision, trace)),
                _ => None,
            })
            .unwrap_or_else(|| panic!("no permission_decided for {id}"))
    }
}

#[derive(Debug, Clone)]
pub struct HookRan {
    pub tool_use_id: String,
    pub event: String,
    pub hook: String,
    pub decision: Option<PermissionBehavior>,
    pub blocked: bool,
    pub input_updated: bool,
    pub message: Option<String>,
    pub error: Option<String>,
    pub run: Option<HookRun>,
}

/// `{"hooks": {event: [{"matcher": m, "hooks": [handler]}]}}`.
pub fn hooks_json(event: &str, matcher: Option<&str>, handler: Value) -> String {
    let mut group = serde_json::json!({"hooks": [handler]});
    if let Some(m) = matcher {
        group["matcher"] = Value::String(m.into());
    }
    serde_json::json!({"hooks": {event: [group]}}).to_string()
}

pub fn command(cmd: &str) -> Value {
    serde_json::json!({"type": "command", "command": cmd})
}
