//! Sub-agents in a hosted session (issue 19 item 6): the `Agent` tool of
//! every session, its agent types, and the recorder that stores each
//! sub-agent as a session of its own whose `parent_session_id` is the
//! session that started it (its events reach SQLite through the host's one
//! event writer, stamped with the sub-agent's session id).

use std::path::Path;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use gatehouse_agent::subagent::{
    AgentDefinitions, AgentTool, DEFAULT_SUBAGENT_MAX_TURNS, DefinitionDirs, SameProvider,
    SubagentEnv, SubagentRecorder, SubagentSpawn,
};
use gatehouse_agent::{AgentConfig, Provider};
use gatehouse_core::events::EventSink;
use gatehouse_core::typed::Typed;
use gatehouse_core::{Tool, ToolRuntime, names};
use gatehouse_store::{NewSession, SessionProvenance, Store};
use gatehouse_tools::tasks::TaskManager;
use gatehouse_tools::worktree::{EnterWorktreeTool, ExitWorktreeTool, WorktreeManager};

/// The built-in tool names a definition's `tools` may name.
const BUILTIN_NAMES: &[&str] = &[
    names::AGENT,
    names::ASK_USER_QUESTION,
    names::BASH,
    names::EDIT,
    names::ENTER_PLAN_MODE,
    names::ENTER_WORKTREE,
    names::EXIT_PLAN_MODE,
    names::EXIT_WORKTREE,
    names::GLOB,
    names::GREP,
    names::LIST_MCP_RESOURCES,
    names::NOTEBOOK_EDIT,
    names::POWERSHELL,
    names::READ,
    names::READ_MCP_RESOURCE,
    names::SEND_MESSAGE,
    names::SKILL,
    names::TASK_OUTPUT,
    names::TASK_STOP,
    names::TODO_WRITE,
    names::TOOL_SEARCH,
    names::WEB_FETCH,
    names::WEB_SEARCH,
    names::WRITE,
];

/// The session's Agent tool with the agent types of `project` (only when
/// trusted) and `home`, and the problems found in their files, as warnings
/// for the session's start (file:line: cause). Reads files: call it on a
/// blocking thread.
pub fn load_agent_tool(
    project: &Path,
    trusted: bool,
    home: &Path,
    mcp_tool_names: &[String],
) -> (Arc<AgentTool>, Vec<String>) {
    let mut known: Vec<&str> = BUILTIN_NAMES.to_vec();
    known.extend(mcp_tool_names.iter().map(String::as_str));
    let defs = AgentDefinitions::load(
        &DefinitionDirs {
            project: project.to_path_buf(),
            project_trusted: trusted,
            home: home.to_path_buf(),
        },
        &known,
    );
    let warnings = defs
        .malformed
        .iter()
        .map(|e| format!("agent definition not loaded: {e}"))
        .chain(
            defs.warnings
                .iter()
                .map(|e| format!("agent definition: {e}")),
        )
        .collect();
    (Arc::new(AgentTool::new(Arc::new(defs))), warnings)
}

/// [`load_agent_tool`] on a blocking thread; its problems go to `warnings`.
/// If the files cannot be read at all, the session still gets the built-in
/// types (and says so).
pub async fn start_agent_tool(
    project: &Path,
    trusted: bool,
    home: &Path,
    mcp_tools: &[Arc<dyn Tool>],
    warnings: &mut Vec<String>,
) -> Arc<AgentTool> {
    let names: Vec<String> = mcp_tools.iter().map(|t| t.name().to_owned()).collect();
    let (project, home) = (project.to_path_buf(), home.to_path_buf());
    match tokio::task::spawn_blocking(move || load_agent_tool(&project, trusted, &home, &names))
        .await
    {
        Ok((tool, found)) => {
            warnings.extend(found);
            tool
        }
        Err(e) => {
            warnings.push(format!(
                "agent definitions were not read ({e}); only the built-in agent types are available"
            ));
            Arc::new(AgentTool::new(Arc::new(AgentDefinitions::builtin())))
        }
    }
}

/// What the session's Agent tool needs: the session's runtime, its provider
/// (sub-agents use the same one, with their own model name), its loop
/// settings, where sub-agents spill results, the store recorder, and the
/// task manager background agents run in.
pub fn env(
    runtime: &Arc<ToolRuntime>,
    provider: &Arc<dyn Provider>,
    config: &AgentConfig,
    session_dir: std::path::PathBuf,
    recorder: StoreRecorder,
    tasks: Arc<TaskManager>,
    worktrees: Arc<WorktreeManager>,
) -> SubagentEnv {
    SubagentEnv {
        parent: Arc::downgrade(runtime),
        providers: Arc::new(SameProvider(Arc::clone(provider))),
        recorder: Arc::new(recorder),
        config: config.clone(),
        max_turns: DEFAULT_SUBAGENT_MAX_TURNS.min(config.max_turns),
        session_dir,
        tasks: Some(tasks),
        worktrees: Some(worktrees),
    }
}

/// The worktrees of a session: folders under `base` (normally `<data
/// dir>/worktrees`), their paths decided by `resolver` as the project's.
pub fn worktree_manager(
    base: std::path::PathBuf,
    resolver: Arc<dyn gatehouse_core::permission::PermissionResolver>,
) -> Arc<WorktreeManager> {
    WorktreeManager::new(base, resolver)
}

/// EnterWorktree and ExitWorktree over the session's worktrees.
pub fn worktree_tools(worktrees: &Arc<WorktreeManager>) -> [Arc<dyn Tool>; 2] {
    [
        Typed::arc(EnterWorktreeTool::new(Arc::clone(worktrees))),
        Typed::arc(ExitWorktreeTool::new(Arc::clone(worktrees))),
    ]
}

/// Stores each sub-agent as a child session, then hands its events to the
/// host's event writer.
pub struct StoreRecorder {
    /// The host's read/write connection (session rows).
    pub store: Arc<Mutex<Store>>,
    /// The host's event writer sink.
    pub sink: Arc<dyn EventSink>,
    /// The project folder, as stored.
    pub project_path: String,
    /// The provider name, as stored.
    pub provider: String,
    /// The parent's permission mode, as stored.
    pub mode: String,
}

#[async_trait]
impl SubagentRecorder for StoreRecorder {
    async fn open(&self, spawn: &SubagentSpawn) -> Result<Arc<dyn EventSink>, String> {
        let store = Arc::clone(&self.store);
        let new = NewSession {
            id: spawn.agent_session_id.clone(),
            project_path: self.project_path.clone(),
            provider: self.provider.clone(),
            model: spawn.model.clone(),
            mode: self.mode.clone(),
        };
        let provenance = SessionProvenance {
            parent_session_id: Some(spawn.parent_session_id.clone()),
            ..SessionProvenance::default()
        };
        tokio::task::spawn_blocking(move || {
            let store = store.lock().unwrap_or_else(|p| p.into_inner());
            store
                .create_session_with(&new, &provenance)
                .and_then(|()| store.claim_session(&new.id, std::process::id()))
        })
        .await
        .map_err(|e| format!("the storage task failed: {e}"))?
        .map_err(|e| e.to_string())?;
        Ok(Arc::clone(&self.sink))
    }
}
