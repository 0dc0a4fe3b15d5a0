//! A parent session that can start sub-agents, built the way the session
//! host builds one: the engine from settings files on disk
//! (`load_engine`, default mode, the project trusted, an empty home), the
//! session's built-in tools (`session_pool`) plus the Agent tool and any
//! extra tools, a runtime whose asks are denied, and the Agent tool
//! attached to it. Shared by the sub-agent tests and the start-up bench.

#![allow(clippy::unwrap_used, clippy::expect_used, dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use gatehouse_agent::subagent::{
    AgentDefinitions, AgentTool, SameSink, SubagentEnv, SubagentProviders,
};
use gatehouse_agent::{AgentConfig, EngineSetup, StaticAsk, load_engine, session_pool};
use gatehouse_core::events::{Emitter, EventSink};
use gatehouse_core::permission::PermissionResolver;
use gatehouse_core::{Tool, ToolRuntime};
use gatehouse_protocol::permission::PermissionMode;
use gatehouse_tools::tasks::TaskManager;
use gatehouse_tools::worktree::WorktreeManager;

/// What [`parent_session`] builds from.
pub struct ParentSetup<'a> {
    /// The parent's session id.
    pub session_id: &'a str,
    /// The project (its `.claude/settings.json` holds the test's rules).
    pub project: &'a Path,
    /// The session's directory (tasks, spills, `agents/`).
    pub session_dir: &'a Path,
    /// Where every session's events go (the parent's and its agents').
    pub sink: Arc<dyn EventSink>,
    /// Built-ins besides the session's own and the Agent tool.
    pub extra_tools: Vec<Arc<dyn Tool>>,
    /// The sub-agents' providers.
    pub providers: Arc<dyn SubagentProviders>,
    /// The parent's loop settings, which sub-agents inherit.
    pub config: AgentConfig,
    /// Model requests one sub-agent may make.
    pub max_turns: u32,
    /// Where `isolation: "worktree"` agents get worktrees (`None`: refused).
    pub worktrees: Option<PathBuf>,
}

/// A parent session's runtime and task manager, and the empty home its
/// engine read (kept alive with it).
pub struct ParentSession {
    pub runtime: Arc<ToolRuntime>,
    pub tasks: Arc<TaskManager>,
    pub home: tempfile::TempDir,
}

/// Builds the parent session of `setup`.
pub fn parent_session(setup: ParentSetup<'_>) -> ParentSession {
    let home = tempfile::tempdir().unwrap();
    let (engine, errors) = load_engine(&EngineSetup {
        project: setup.project.to_path_buf(),
        home: home.path().to_path_buf(),
        mode: Some(PermissionMode::Default),
        trust_project: true,
        settings_files: Vec::new(),
    });
    assert!(errors.is_empty(), "{errors:?}");
    let resolver = Arc::new(engine);
    let agent_tool = Arc::new(AgentTool::new(Arc::new(AgentDefinitions::builtin())));
    let mut builtins = vec![Arc::clone(&agent_tool) as Arc<dyn Tool>];
    builtins.extend(setup.extra_tools);
    let tools = session_pool(
        setup.session_dir,
        Emitter::new(setup.session_id, Arc::clone(&setup.sink)),
        resolver.as_ref(),
        builtins,
        Vec::new(),
    );
    let runtime =
        ToolRuntime::builder(Arc::clone(&tools.pool), resolver.clone(), setup.session_dir)
            .session_id(setup.session_id)
            .event_sink(Arc::clone(&setup.sink))
            .ask_handler(Arc::new(StaticAsk::deny()))
            .build();
    let worktrees = setup
        .worktrees
        .map(|dir| WorktreeManager::new(dir, resolver as Arc<dyn PermissionResolver>));
    assert!(agent_tool.attach(SubagentEnv {
        parent: Arc::downgrade(&runtime),
        providers: setup.providers,
        recorder: Arc::new(SameSink(setup.sink)),
        config: setup.config,
        max_turns: setup.max_turns,
        session_dir: setup.session_dir.join("agents"),
        tasks: Some(Arc::clone(&tools.tasks)),
        worktrees,
    }));
    ParentSession {
        runtime,
        tasks: tools.tasks,
        home,
    }
}
