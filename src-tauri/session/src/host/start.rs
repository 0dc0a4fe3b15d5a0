//! Opening a session: [`SessionHost::start`] builds its engine, tools,
//! hooks, MCP servers and agent, and [`run_prompts`] drives the agent.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use gatehouse_agent::resume::history_from_events;
use gatehouse_agent::{
    Agent, AgentConfig, EngineSetup, StaticAsk, load_engine, session_pool_sandboxed,
};
use gatehouse_core::ask::AskHandler;
use gatehouse_core::events::{Emitter, EventSink};
use gatehouse_core::{ToolRuntime, ToolUseContext};
use gatehouse_mcp::McpManager;
use gatehouse_permissions::PermissionEngine;
use gatehouse_permissions::session::{SessionRuleStore, restore};
use gatehouse_protocol::event::{EventBody, SessionErrorKind};
use gatehouse_protocol::session::SessionHandle;
use gatehouse_store::{NewSession, Store};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::ask::{InteractiveAsk, SessionPermissions};
use crate::live_settings::LiveSettings;
use crate::rules::SqliteSessionRuleStore;

use super::{
    AskPolicy, HANDLE_TAIL_EVENTS, HostError, OpenSession, PromptJob, SessionHost, StartSpec,
    Started, check_resumable, last_mode, lock, mode_text, new_session_id,
};

impl SessionHost {
    /// Opens a session (new, or resumed from the store) and emits
    /// `session_started`. It waits for prompts. Database and keychain work
    /// runs on blocking threads and the MCP servers connect as this future
    /// is awaited, so it never blocks the runtime it runs on (of any flavour).
    pub async fn start(&self, spec: StartSpec) -> Result<Started, HostError> {
        let project = spec
            .project
            .canonicalize()
            .map_err(|e| HostError::Project {
                path: spec.project.clone(),
                reason: e.to_string(),
            })?;
        if !project.is_dir() {
            return Err(HostError::Project {
                path: project,
                reason: "not a folder".into(),
            });
        }
        let project_text = project.to_string_lossy().into_owned();
        // A resumed session: only its end is read now (the handle's tail);
        // the agent reads the whole history on its own task, before the
        // first prompt, so a long session opens as fast as a short one.
        let (session_id, events, earlier_events, mode) = match &spec.resume {
            Some(id) => {
                let (id, requested) = (id.clone(), spec.mode);
                self.on_store(move |store| {
                    let Some(summary) = store.session(&id)? else {
                        return Err(HostError::NotStored(id));
                    };
                    check_resumable(&summary)?;
                    let tail_len = u32::try_from(HANDLE_TAIL_EVENTS).unwrap_or(u32::MAX);
                    // With its sub-agents' events where they happened, so
                    // its nested transcripts show as they did live.
                    let (events, earlier) = store.family_events_tail(&id, tail_len)?;
                    let last_change = store.last_event_of_type(&id, "mode_changed")?;
                    let mode =
                        requested.or_else(|| last_mode(last_change.as_slice(), &summary.mode));
                    Ok((id, events, earlier, mode))
                })
                .await?
            }
            None => {
                let id = new_session_id();
                let new = NewSession {
                    id: id.clone(),
                    project_path: project_text.clone(),
                    provider: spec.provider.name().to_owned(),
                    model: spec.model.clone(),
                    mode: mode_text(spec.mode.unwrap_or_default()),
                };
                self.on_store(move |store| Ok(store.create_session(&new)?))
                    .await?;
                (id, Vec::new(), 0, spec.mode)
            }
        };
        if lock(&self.sessions).contains_key(&session_id) {
            return Err(HostError::Other(format!(
                "session {session_id} is already open"
            )));
        }
        // This process holds it now (a start-up elsewhere leaves it open).
        let claimed = session_id.clone();
        self.on_store(move |store| Ok(store.claim_session(&claimed, std::process::id())?))
            .await?;
        let setup = EngineSetup {
            project: project.clone(),
            home: self.config.home.clone(),
            mode,
            trust_project: spec.trust_project,
            settings_files: spec.settings_files.clone(),
        };
        let (engine, settings_errors) = {
            let setup = setup.clone();
            off_runtime("reading the settings files", move || load_engine(&setup)).await?
        };
        let mut warnings: Vec<String> = settings_errors.iter().map(ToString::to_string).collect();
        let engine = Arc::new(engine);
        let rules: Arc<dyn SessionRuleStore> =
            Arc::new(SqliteSessionRuleStore::new(Arc::clone(&self.store)));
        if spec.resume.is_some() {
            // The stored session rules are read on a blocking thread.
            let (engine, rules, id) = (Arc::clone(&engine), Arc::clone(&rules), session_id.clone());
            let restored =
                tokio::task::spawn_blocking(move || restore(&engine, rules.as_ref(), &id)).await;
            match restored {
                Ok(Ok(errors)) => warnings.extend(
                    errors
                        .into_iter()
                        .map(|e| format!("a stored session rule no longer parses: {e}")),
                ),
                Ok(Err(e)) => warnings.push(format!("session rules were not restored: {e}")),
                Err(e) => warnings.push(format!("session rules were not restored: {e}")),
            }
        }

        let session_dir = self.config.data_dir.join("sessions").join(&session_id);
        let sink: Arc<dyn EventSink> = Arc::new(lock(&self.writer).sink());
        // Hooks from the same settings files as the rules; with any, the
        // sink also keeps the Claude Code-format transcript they read.
        let layout = gatehouse_agent::settings_layout(&setup);
        let hook_setup =
            crate::hooks::prepare(&layout, sink, &session_dir, &project, &mut warnings).await;
        let sink = Arc::clone(&hook_setup.sink);
        let emitter = Emitter::new(session_id.clone(), Arc::clone(&sink));
        let session_hooks = crate::hooks::build(
            hook_setup,
            &session_id,
            &project,
            &self.config.home,
            emitter.clone(),
            &engine,
        );
        // session_started comes first, then the MCP servers' states.
        emitter.emit(EventBody::SessionStarted {
            provider: spec.provider.name().to_owned(),
            model: spec.model.clone(),
            project: project_text.clone(),
            resumed: spec.resume.is_some(),
        });
        // From now on, a change to a settings file reaches the session.
        let settings = LiveSettings::start(
            Arc::clone(&engine),
            layout.clone(),
            emitter.clone(),
            &mut warnings,
        );
        let mcp = match spec.mcp_startup_timeout {
            Some(limit) => {
                self.start_mcp(&project, spec.trust_project, &emitter, limit, &mut warnings)
                    .await
            }
            None => None,
        };
        let mcp = mcp.map(Arc::new);
        // The MCP tools follow their servers' lists (see McpToolRefresh).
        let (resource_tools, mcp_tools, mcp_refresh) = match &mcp {
            Some(m) => {
                let (refresh, tools) = crate::mcp::McpToolRefresh::new(Arc::clone(m));
                (m.resource_tools(), tools, Some(Arc::new(refresh)))
            }
            None => (Vec::new(), Vec::new(), None),
        };
        // Sub-agents (issue 19): the Agent tool among the built-ins.
        let agent_tool = crate::subagents::start_agent_tool(
            &project,
            spec.trust_project,
            &self.config.home,
            &mcp_tools,
            &mut warnings,
        )
        .await;
        // Worktrees (EnterWorktree, `isolation: "worktree"`) live in the data
        // directory; the engine decides their paths as the project's.
        let worktrees = crate::subagents::worktree_manager(
            self.config.data_dir.join("worktrees"),
            Arc::clone(&engine) as Arc<dyn gatehouse_core::permission::PermissionResolver>,
        );
        // WebSearch needs a search provider; without one its gate leaves it
        // out and the UI is told why (`tools_unavailable`).
        let (web_search, web_search_missing) = {
            let home = self.config.home.clone();
            off_runtime("reading the search provider's key", move || {
                crate::web_search::web_search_tool(&home)
            })
            .await?
        };
        // Skills (issue 21 item 5): the Skill tool when there is a skill.
        let skill_tool = crate::skills::start_skill_tool(
            &project,
            spec.trust_project,
            &self.config.home,
            &engine,
            &mut warnings,
        )
        .await;
        // The settings files as the engine read them (not read again here).
        let loaded_settings = engine.settings();
        // WebFetch's prompt goes to a small model when one is configured.
        let web_fetch = crate::web_prompt::web_fetch_tool(
            &self.config.home,
            &loaded_settings,
            &spec.provider,
            self.config.small_model_env.clone(),
            &mut warnings,
        );
        let resource_tools = resource_tools
            .into_iter()
            .chain([
                Arc::clone(&agent_tool) as Arc<dyn gatehouse_core::Tool>,
                web_search,
            ])
            .chain(web_fetch)
            .chain(crate::subagents::worktree_tools(&worktrees))
            .chain(skill_tool.map(|t| t as Arc<dyn gatehouse_core::Tool>))
            .collect();
        // The Bash sandbox (issue 24): off unless `sandbox.enabled`; when
        // enabled but unable to run, the session says so once (a typed
        // `sandbox_unavailable`) and commands ask as usual. It follows its
        // settings files like the rules do.
        let session_sandbox = crate::sandbox::SessionSandbox::start(
            crate::sandbox::SandboxPlace {
                setup: setup.clone(),
                data_dir: self.config.data_dir.clone(),
                path_var: self.config.sandbox_path.clone(),
            },
            Arc::clone(&engine),
            emitter.clone(),
            &mut warnings,
        )
        .await;
        {
            let (sandbox, runtime) = (Arc::clone(&session_sandbox), self.runtime.clone());
            settings.on_reload(Box::new(move |_| {
                let sandbox = Arc::clone(&sandbox);
                // Rebuilding probes bwrap: not on the watcher's thread.
                runtime.spawn(async move {
                    sandbox.reload().await;
                });
            }));
        }
        let bash_sandbox = session_sandbox.shared();
        let tools = session_pool_sandboxed(
            &session_dir,
            emitter.clone(),
            engine.as_ref(),
            resource_tools,
            mcp_tools,
            bash_sandbox,
        );
        if let Some(missing) = web_search_missing {
            emitter.emit(EventBody::ToolsUnavailable {
                tools: vec![missing],
            });
        }
        let interactive = (spec.ask == AskPolicy::Interactive).then(|| {
            Arc::new(InteractiveAsk::new(
                emitter.clone(),
                SessionPermissions {
                    engine: Arc::clone(&engine),
                    rules: Arc::clone(&rules),
                    session_id: session_id.clone(),
                    setup: setup.clone(),
                    store: Some(Arc::clone(&self.store)),
                },
            ))
        });
        let ask: Arc<dyn AskHandler> = match spec.ask {
            AskPolicy::Interactive => match &interactive {
                Some(a) => Arc::clone(a) as Arc<dyn AskHandler>,
                None => Arc::new(StaticAsk::deny()),
            },
            AskPolicy::AllowAll => {
                Arc::new(StaticAsk::allow().with_answers(self.config.answers.clone()))
            }
            AskPolicy::DenyAll => {
                Arc::new(StaticAsk::deny().with_answers(self.config.answers.clone()))
            }
        };
        // A context modifier that changes the mode (plan mode) must reach
        // the engine, which decides with its own copy.
        let mode_engine = Arc::clone(&engine);
        let mode_emitter = emitter.clone();
        let agents_dir = session_dir.join("agents");
        let mut rt = ToolRuntime::builder(Arc::clone(&tools.pool), engine.clone(), session_dir)
            .session_id(session_id.clone())
            .event_sink(Arc::clone(&sink))
            .ask_handler(ask)
            .hooks(session_hooks.runtime_hooks())
            .config(gatehouse_core::config::RuntimeConfig {
                tool_search: crate::tool_search::mode_from_settings(
                    &loaded_settings,
                    self.config.tool_search,
                    &mut warnings,
                ),
                ..gatehouse_core::config::RuntimeConfig::default()
            })
            .on_mode_change(Arc::new(move |mode| {
                mode_engine.set_mode(mode);
                mode_emitter.emit(EventBody::ModeChanged { mode });
            }));
        if let Some(refresh) = mcp_refresh {
            rt = rt.pool_refresh(refresh);
        }
        let rt = rt.build();
        if let Some(event) = crate::hooks::loaded_event(&session_hooks.loaded(), None) {
            emitter.emit(event);
        }
        {
            // Hooks follow their settings files like the rules do; a change
            // to them is reported as `hooks_loaded`.
            let (rt, hooks, layout) = (Arc::clone(&rt), Arc::clone(&session_hooks), layout);
            let hook_emitter = emitter.clone();
            let last = Mutex::new(crate::hooks::fingerprint(&session_hooks.loaded()));
            settings.on_reload(Box::new(move |trigger| {
                let fresh = gatehouse_hooks::load_hooks(&layout);
                let print = crate::hooks::fingerprint(&fresh);
                if *lock(&last) == print {
                    return;
                }
                *lock(&last) = print;
                let event = crate::hooks::loaded_event(&fresh, Some(trigger));
                rt.set_hooks(hooks.replace(fresh));
                if let Some(event) = event {
                    hook_emitter.emit(event);
                }
            }));
        }
        // SessionStart runs on its own task; the first prompt waits for it
        // (its context goes with that prompt).
        let session_start = {
            let hooks = Arc::clone(&session_hooks);
            let source = if spec.resume.is_some() {
                "resume"
            } else {
                "startup"
            };
            self.runtime
                .spawn(async move { hooks.session_start(source).await })
        };
        let mut config = AgentConfig::new(spec.model.clone());
        config.max_turns = self.config.max_turns;
        config.idle_timeout = self.config.idle_timeout.max(Duration::from_secs(1));
        let ctx = ToolUseContext {
            session_id: session_id.clone(),
            cwd: project.clone(),
            permission_mode: engine.mode(),
            ..ToolUseContext::default()
        };
        agent_tool.attach(crate::subagents::env(
            &rt,
            &spec.provider,
            &config,
            agents_dir,
            crate::subagents::StoreRecorder {
                store: Arc::clone(&self.store),
                sink: Arc::clone(&sink),
                project_path: project_text.clone(),
                provider: spec.provider.name().to_owned(),
                mode: mode_text(engine.mode()),
            },
            Arc::clone(&tools.tasks),
            worktrees,
        ));
        let source_engine = Arc::clone(&engine);
        let notice_tasks = Arc::clone(&tools.tasks);
        let agent = Agent::new(spec.provider, rt, config, ctx)
            .with_mode_source(Arc::new(move || source_engine.mode()))
            // Background tasks that ended are announced at the next turn.
            .with_notices(Arc::new(move || {
                gatehouse_agent::Notice::all(
                    gatehouse_protocol::event::ContextSource::TaskNotification,
                    notice_tasks.take_notices(),
                )
            }));
        let history = spec.resume.as_ref().map(|id| HistorySource {
            store: Arc::clone(&self.store),
            session_id: id.clone(),
            emitter: emitter.clone(),
        });

        let (tx, rx) = mpsc::unbounded_channel::<PromptJob>();
        let current = Arc::new(Mutex::new(Vec::new()));
        let actor = self.runtime.spawn(run_prompts(
            agent,
            history,
            session_start,
            rx,
            Arc::clone(&current),
            Arc::clone(&engine),
        ));
        let session_rules = engine
            .session_rules()
            .into_iter()
            .map(|(_, rule)| rule)
            .collect();
        let open = Arc::new(OpenSession {
            id: session_id.clone(),
            project: project.clone(),
            engine: Arc::clone(&engine),
            tasks: tools.tasks,
            emitter,
            ask: interactive,
            prompts: Mutex::new(Some(tx)),
            current,
            actor: Mutex::new(Some(actor)),
            mcp,
            trust_project: spec.trust_project,
            settings,
            hooks: session_hooks,
        });
        lock(&self.sessions).insert(session_id.clone(), open);
        Ok(Started {
            handle: SessionHandle {
                session_id,
                project_path: project_text,
                mode: engine.mode(),
                events,
                earlier_events,
                session_rules,
                rule_files: gatehouse_protocol::permission::rule_files(&project, &self.config.home),
                bypass_disabled: engine.settings().bypass_disabled,
            },
            warnings,
            sandbox_unavailable: session_sandbox.unavailable().await,
        })
    }

    /// Starts the project's MCP servers for a session (project servers only
    /// when trusted or approved); problems become `warnings`. `None` when no
    /// server is configured. The servers connect as this is awaited (at most
    /// `limit`); approvals and keychain values are read on blocking threads.
    async fn start_mcp(
        &self,
        project: &Path,
        trust_project: bool,
        emitter: &Emitter,
        limit: Duration,
        warnings: &mut Vec<String>,
    ) -> Option<McpManager> {
        let layout = gatehouse_mcp::ConfigLayout {
            project: project.to_path_buf(),
            home: self.config.home.clone(),
        };
        let cfg = gatehouse_mcp::config::load_off_runtime(&layout).await;
        warnings.extend(cfg.errors.iter().map(|e| format!("MCP configuration: {e}")));
        // A session without servers still gets a manager: servers added in
        // the MCP panel later start in it (`apply_mcp_config`).
        let approved = {
            let (cfg, project) = (cfg.clone(), project.to_path_buf());
            self.on_store(move |store| Ok(crate::mcp::approved_servers(&cfg, &project, store)))
                .await
                .unwrap_or_else(|e| {
                    // Fail closed: no project server counts as approved.
                    warnings.push(format!("MCP approvals could not be read: {e}"));
                    std::collections::HashSet::new()
                })
        };
        let (manager, warning) = crate::mcp::start_servers(
            &cfg,
            project,
            &approved,
            trust_project,
            emitter.clone(),
            limit,
        )
        .await;
        warnings.extend(warning);
        Some(manager)
    }
}

/// Where a resumed session's agent reads its history from.
struct HistorySource {
    store: Arc<Mutex<Store>>,
    session_id: String,
    /// Reports a history that cannot be read.
    emitter: Emitter,
}

/// The session's agent: one exchange at a time, in the order sent. A
/// resumed session first reads its whole history (prompts sent meanwhile
/// wait in the queue); if it cannot, the session takes no prompts.
async fn run_prompts(
    mut agent: Agent,
    history: Option<HistorySource>,
    session_start: tokio::task::JoinHandle<()>,
    mut prompts: mpsc::UnboundedReceiver<PromptJob>,
    current: Arc<Mutex<Vec<(u64, CancellationToken)>>>,
    engine: Arc<PermissionEngine>,
) {
    if let Some(source) = history {
        let (store, id) = (source.store, source.session_id.clone());
        let read = tokio::task::spawn_blocking(move || lock(&store).session_events(&id)).await;
        match read {
            Ok(Ok((events, _skipped))) => {
                let (messages, turns) = history_from_events(&events);
                agent.continue_from(messages, turns);
            }
            failed => {
                let why = match failed {
                    Ok(Err(e)) => e.to_string(),
                    Err(e) => e.to_string(),
                    Ok(Ok(_)) => String::new(),
                };
                source.emitter.emit(EventBody::SessionError {
                    kind: SessionErrorKind::Storage,
                    message: format!(
                        "the history of session {} could not be read, so it cannot continue: {why}",
                        source.session_id
                    ),
                    recoverable: false,
                });
                return;
            }
        }
    }
    // A SessionStart hook that failed is in its hook_ran event already.
    let _ = session_start.await;
    while let Some((text, number, token, done)) = prompts.recv().await {
        let outcome = agent.run_prompt(&text, &token).await;
        // The turn is over: so is every skill it loaded, with its grants.
        engine.end_skill_grants();
        lock(&current).retain(|(n, _)| *n != number);
        // Nobody waiting for the outcome is fine (the app does not wait).
        let _ = done.send(outcome);
    }
}

/// Runs file-system or keychain work (settings files, `~/.claude.json`, a
/// key) on a blocking thread: the runtime's workers also serve the window's
/// commands and every open session, and a locked keyring can wait for the
/// user.
async fn off_runtime<T: Send + 'static>(
    what: &'static str,
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, HostError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| HostError::Other(format!("{what} failed: {e}")))
}
