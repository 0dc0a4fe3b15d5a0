//! Running one sub-agent: its session, its runtime, its loop, its answer.
//!
//! A sub-agent is a full [`Agent`] loop of its own over a [`ToolRuntime`]
//! made by [`ToolRuntime::child`] from the parent's: the same permission
//! resolver, hooks, ask handler and session grants, a restricted pool, its
//! own session id and event sink. Its events are its transcript (a session
//! whose parent is the caller's, see [`SubagentRecorder`]); the parent sees
//! `tool_progress` of kind `subagent` on the Agent call, naming that session.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError, Weak};

use async_trait::async_trait;
use gatehouse_core::events::{EventSink, Stored};
use gatehouse_core::registry::AgentToolSet;
use gatehouse_core::tool::ProgressReporter;
use gatehouse_core::{ToolPool, ToolRuntime, ToolUseContext};
use gatehouse_protocol::event::{ContentBlock, Event, EventBody, SessionStatus, ToolCallStatus};
use gatehouse_protocol::progress::{SubagentPhase, SubagentRef, ToolProgressData};
use tokio_util::sync::CancellationToken;

use super::definition::AgentDefinition;
use crate::agent::{Agent, AgentConfig};
use crate::message::{Block, Role};
use crate::provider::Provider;

/// What is being started, for the [`SubagentProviders`] and the
/// [`SubagentRecorder`].
#[derive(Debug, Clone)]
pub struct SubagentSpawn {
    /// The parent's session.
    pub parent_session_id: String,
    /// The sub-agent's session (`<parent>-agent-<tool_use_id>`).
    pub agent_session_id: String,
    /// The Agent call that starts it.
    pub tool_use_id: String,
    /// Its type.
    pub subagent_type: String,
    /// The call's 3-5 word description.
    pub description: String,
    /// The model it runs with.
    pub model: String,
    /// The working directory it starts in.
    pub cwd: PathBuf,
    /// The task it is given (its first prompt).
    pub prompt: String,
}

/// Where a sub-agent's model replies come from.
pub trait SubagentProviders: Send + Sync {
    /// The provider for `spawn` (an error is the Agent call's result).
    fn provider(&self, spawn: &SubagentSpawn) -> Result<Arc<dyn Provider>, String>;
}

/// Every sub-agent uses the parent's provider (with its own model name).
pub struct SameProvider(pub Arc<dyn Provider>);

impl SubagentProviders for SameProvider {
    fn provider(&self, _spawn: &SubagentSpawn) -> Result<Arc<dyn Provider>, String> {
        Ok(Arc::clone(&self.0))
    }
}

/// Where a sub-agent's events go: opens its session (recording its parent)
/// and returns the sink for its events, which carry its session id.
#[async_trait]
pub trait SubagentRecorder: Send + Sync {
    /// Opens the session of `spawn`; an error is the Agent call's result.
    async fn open(&self, spawn: &SubagentSpawn) -> Result<Arc<dyn EventSink>, String>;
}

/// Sub-agent events go to the parent's sink, stamped with their own session
/// id (tests, the CLI's JSON lines).
pub struct SameSink(pub Arc<dyn EventSink>);

#[async_trait]
impl SubagentRecorder for SameSink {
    async fn open(&self, _spawn: &SubagentSpawn) -> Result<Arc<dyn EventSink>, String> {
        Ok(Arc::clone(&self.0))
    }
}

/// What the Agent tool needs from the session it belongs to; attached after
/// the session's runtime is built (the tool is part of that runtime's pool).
pub struct SubagentEnv {
    /// The parent's runtime (weak: the runtime's pool holds the tool).
    pub parent: Weak<ToolRuntime>,
    /// Providers for sub-agents.
    pub providers: Arc<dyn SubagentProviders>,
    /// Where sub-agent sessions are recorded.
    pub recorder: Arc<dyn SubagentRecorder>,
    /// The parent's loop settings (model, limits); a sub-agent gets these
    /// with its own system prompt, model and [`Self::max_turns`].
    pub config: AgentConfig,
    /// Model requests one sub-agent may make.
    pub max_turns: u32,
    /// Where sub-agents spill large results (`<dir>/<agent session id>`).
    pub session_dir: PathBuf,
}

/// The default turn limit of one sub-agent.
pub const DEFAULT_SUBAGENT_MAX_TURNS: u32 = 50;

/// How a sub-agent ended, for the Agent tool's result.
#[derive(Debug, Clone, PartialEq)]
pub struct SubagentReport {
    /// Its session.
    pub agent_session_id: String,
    /// How it ended.
    pub status: SessionStatus,
    /// Its final reply (the text of its last assistant message).
    pub answer: String,
    /// The error that ended it, if any.
    pub error: Option<String>,
    /// Model requests made.
    pub turns: u32,
    /// Calls started.
    pub tool_calls: u32,
    /// Calls refused by the permission decision or the user: tool name and
    /// the message the sub-agent got.
    pub denied: Vec<(String, String)>,
    /// Output tokens used.
    pub output_tokens: u64,
}

/// The pool of a sub-agent: the parent's pool restricted to `set`, then to
/// what `def` allows.
pub fn subagent_pool(parent: &ToolPool, set: AgentToolSet, def: &AgentDefinition) -> ToolPool {
    let restricted = parent.for_agent(set);
    ToolPool::new(
        restricted
            .tools()
            .filter(|t| def.allows_tool(t.name()))
            .cloned()
            .collect(),
    )
}

/// Runs one sub-agent to its end. `interrupt` is the Agent call's token
/// (the parent's interrupt reaches it).
pub(crate) async fn run_subagent(
    env: &SubagentEnv,
    parent: &ToolRuntime,
    def: &AgentDefinition,
    spawn: SubagentSpawn,
    parent_ctx: &ToolUseContext,
    progress: &ProgressReporter,
    interrupt: &CancellationToken,
) -> Result<SubagentReport, String> {
    let pool = subagent_pool(&parent.pool(), AgentToolSet::Subagent, def);
    if pool.is_empty() {
        return Err(format!(
            "agent type '{}' ({}) has no tool it may use in this session",
            def.name,
            def.location()
        ));
    }
    let provider = env.providers.provider(&spawn)?;
    let inner = env.recorder.open(&spawn).await.map_err(|e| {
        format!("the sub-agent's session could not be recorded, so it was not started: {e}")
    })?;
    let observer = Arc::new(Observer {
        inner,
        agent_session_id: spawn.agent_session_id.clone(),
        subagent_type: spawn.subagent_type.clone(),
        progress: progress.clone(),
        state: Mutex::new(ObservedState::default()),
    });
    observer.report(SubagentPhase::Started, None, None);
    let runtime = parent.child(
        Arc::new(pool),
        spawn.agent_session_id.clone(),
        env.session_dir.join(&spawn.agent_session_id),
        Arc::clone(&observer) as Arc<dyn EventSink>,
    );
    let mut config = env.config.clone();
    config.model.clone_from(&spawn.model);
    config.max_turns = env.max_turns;
    config.system_prompt = format!(
        "{}\n\nYou are the sub-agent '{}' of another agent; its request follows. Work in {}.",
        def.system_prompt,
        def.name,
        spawn.cwd.display()
    );
    let mut ctx = ToolUseContext {
        session_id: spawn.agent_session_id.clone(),
        agent_id: Some(spawn.agent_session_id.clone()),
        permission_mode: def.permission_mode.unwrap_or(parent_ctx.permission_mode),
        ..parent_ctx.clone()
    };
    // Its calls' permission prompts name it (they are the parent's prompts).
    ctx.extensions.insert(SubagentRef {
        agent_session_id: spawn.agent_session_id.clone(),
        tool_use_id: spawn.tool_use_id.clone(),
        subagent_type: spawn.subagent_type.clone(),
        description: spawn.description.clone(),
    });
    let mut agent = Agent::new(provider, runtime, config, ctx);
    let outcome = agent.run_prompt(&spawn.prompt, interrupt).await;
    let answer = agent
        .history()
        .iter()
        .rev()
        .find(|m| m.role == Role::Assistant)
        .map(|m| {
            m.content
                .iter()
                .filter_map(|b| match b {
                    Block::Text { text } => Some(text.as_str()),
                    _ => None,
                })
                .collect::<Vec<_>>()
                .join("")
        })
        .unwrap_or_default();
    observer.report(SubagentPhase::Completed, None, Some(outcome.status));
    let state = observer.snapshot();
    Ok(SubagentReport {
        agent_session_id: spawn.agent_session_id,
        status: outcome.status,
        answer: answer.trim().to_owned(),
        error: outcome.error.map(|(_, m)| m),
        turns: outcome.turns,
        tool_calls: state.tool_calls,
        denied: state.denied,
        output_tokens: state.output_tokens,
    })
}

#[derive(Debug, Default, Clone)]
struct ObservedState {
    names: HashMap<String, String>,
    tool_calls: u32,
    turns: u32,
    output_tokens: u64,
    denied: Vec<(String, String)>,
}

/// Forwards a sub-agent's events to its sink and keeps what the parent is
/// told: calls so far, denials, tokens, as `tool_progress` on the Agent call.
struct Observer {
    inner: Arc<dyn EventSink>,
    agent_session_id: String,
    subagent_type: String,
    progress: ProgressReporter,
    state: Mutex<ObservedState>,
}

impl Observer {
    fn snapshot(&self) -> ObservedState {
        self.state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn report(
        &self,
        phase: SubagentPhase,
        current_tool: Option<String>,
        status: Option<SessionStatus>,
    ) {
        let s = self.snapshot();
        self.progress.report(ToolProgressData::Subagent {
            agent_session_id: self.agent_session_id.clone(),
            subagent_type: self.subagent_type.clone(),
            phase,
            current_tool,
            tool_calls: s.tool_calls,
            turns: s.turns,
            output_tokens: s.output_tokens,
            status,
        });
    }

    fn observe(&self, event: &Event) {
        let mut started = None;
        {
            let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
            match &event.body {
                EventBody::ToolQueued {
                    tool_use_id, name, ..
                } => {
                    s.names.insert(tool_use_id.clone(), name.clone());
                }
                EventBody::ToolStarted { tool_use_id, .. } => {
                    s.tool_calls += 1;
                    started = s.names.get(tool_use_id).cloned();
                }
                EventBody::ModelRequestStarted { turn, .. } => s.turns = *turn,
                EventBody::Usage { output_tokens, .. } => s.output_tokens += *output_tokens,
                EventBody::ToolCompleted {
                    tool_use_id,
                    status: ToolCallStatus::Denied,
                    content,
                    ..
                } => {
                    let name = s.names.get(tool_use_id).cloned().unwrap_or_default();
                    let text = content
                        .iter()
                        .filter_map(|b| match b {
                            ContentBlock::Text { text } => Some(text.as_str()),
                            ContentBlock::Image { .. } => None,
                        })
                        .collect::<Vec<_>>()
                        .join(" ");
                    // Refused by the permission decision or by the user.
                    s.denied.push((name, text));
                }
                _ => {}
            }
        }
        if let Some(tool) = started {
            self.report(SubagentPhase::Running, Some(tool), None);
        }
    }
}

impl EventSink for Observer {
    fn emit(&self, event: Event) {
        self.observe(&event);
        self.inner.emit(event);
    }

    fn emit_durable(&self, event: Event) -> Stored {
        self.observe(&event);
        self.inner.emit_durable(event)
    }
}
