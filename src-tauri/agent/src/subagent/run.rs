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
use gatehouse_core::permission::{PermissionResolver, SubagentModeResolver};
use gatehouse_core::registry::AgentToolSet;
use gatehouse_core::tool::ProgressReporter;
use gatehouse_core::{ToolPool, ToolRuntime, ToolUseContext};
use gatehouse_protocol::event::{
    ContentBlock, ContextSource, Event, EventBody, SessionStatus, ToolCallStatus,
};
use gatehouse_protocol::progress::{SubagentPhase, SubagentRef, ToolProgressData};
use tokio_util::sync::CancellationToken;

use gatehouse_tools::tasks::TaskManager;
use gatehouse_tools::worktree::WorktreeManager;

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
    /// The session's background tasks, where `run_in_background` agents
    /// run (`None`: the Agent tool refuses background runs).
    pub tasks: Option<Arc<TaskManager>>,
    /// Where `isolation: "worktree"` agents get their worktree (`None`: the
    /// Agent tool refuses isolation).
    pub worktrees: Option<Arc<WorktreeManager>>,
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
    let mut prepared = prepare_subagent(
        env,
        parent,
        def,
        &spawn,
        parent_ctx,
        AgentToolSet::Subagent,
        Watchers {
            progress: Some(progress.clone()),
            log: None,
        },
    )
    .await?;
    let outcome = prepared.agent.run_prompt(&spawn.prompt, interrupt).await;
    Ok(prepared.report(&outcome))
}

/// Who watches a sub-agent's events besides its sink: the Agent call's
/// progress (foreground) and a transcript log (background task output).
pub(crate) struct Watchers {
    pub progress: Option<ProgressReporter>,
    pub log: Option<TranscriptLog>,
}

/// Where a background agent's transcript lines go (its task output).
pub(crate) type TranscriptLog = Arc<dyn Fn(&str) + Send + Sync>;

/// A sub-agent ready to take prompts.
pub(crate) struct Prepared {
    pub agent: Agent,
    observer: Arc<Observer>,
    agent_session_id: String,
}

impl Prepared {
    /// The report of its latest prompt (`outcome`); also tells the
    /// watchers it ended.
    pub fn report(&self, outcome: &crate::agent::PromptOutcome) -> SubagentReport {
        let answer = last_answer(self.agent.history());
        self.observer
            .report(SubagentPhase::Completed, None, Some(outcome.status));
        let state = self.observer.snapshot();
        SubagentReport {
            agent_session_id: self.agent_session_id.clone(),
            status: outcome.status,
            answer,
            error: outcome.error.clone().map(|(_, m)| m),
            turns: outcome.turns,
            tool_calls: state.tool_calls,
            denied: state.denied,
            output_tokens: state.output_tokens,
        }
    }
}

/// The text of the last assistant message.
fn last_answer(history: &[crate::message::Message]) -> String {
    history
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
        .unwrap_or_default()
        .trim()
        .to_owned()
}

/// Builds a sub-agent: its pool (`set`, then the definition), provider,
/// recorded session, runtime and loop. Nothing runs yet.
pub(crate) async fn prepare_subagent(
    env: &SubagentEnv,
    parent: &ToolRuntime,
    def: &AgentDefinition,
    spawn: &SubagentSpawn,
    parent_ctx: &ToolUseContext,
    set: AgentToolSet,
    watchers: Watchers,
) -> Result<Prepared, String> {
    let pool = subagent_pool(&parent.pool(), set, def);
    if pool.is_empty() {
        return Err(format!(
            "agent type '{}' ({}) has no tool it may use in this session",
            def.name,
            def.location()
        ));
    }
    let provider = env.providers.provider(spawn)?;
    let inner = env.recorder.open(spawn).await.map_err(|e| {
        format!("the sub-agent's session could not be recorded, so it was not started: {e}")
    })?;
    let observer = Arc::new(Observer {
        inner,
        agent_session_id: spawn.agent_session_id.clone(),
        subagent_type: spawn.subagent_type.clone(),
        progress: watchers.progress,
        log: watchers.log,
        state: Mutex::new(ObservedState::default()),
    });
    observer.report(SubagentPhase::Started, None, None);
    // A definition's permission mode is applied by the session's resolver,
    // never beyond what the session's own mode allows.
    let resolver: Arc<dyn PermissionResolver> = match def.permission_mode {
        Some(requested) => Arc::new(SubagentModeResolver {
            inner: Arc::clone(parent.resolver()),
            requested,
        }),
        None => Arc::clone(parent.resolver()),
    };
    let runtime = parent.child_with_resolver(
        Arc::new(pool),
        spawn.agent_session_id.clone(),
        env.session_dir.join(&spawn.agent_session_id),
        Arc::clone(&observer) as Arc<dyn EventSink>,
        resolver,
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
        cwd: spawn.cwd.clone(),
        permission_mode: def.permission_mode.map_or(parent_ctx.permission_mode, |m| {
            gatehouse_permissions::subagent_mode(m, parent_ctx.permission_mode)
        }),
        ..parent_ctx.clone()
    };
    // Its calls' permission prompts name it (they are the parent's prompts).
    ctx.extensions.insert(SubagentRef {
        agent_session_id: spawn.agent_session_id.clone(),
        tool_use_id: spawn.tool_use_id.clone(),
        subagent_type: spawn.subagent_type.clone(),
        description: spawn.description.clone(),
    });
    Ok(Prepared {
        agent: Agent::new(provider, runtime, config, ctx),
        observer,
        agent_session_id: spawn.agent_session_id.clone(),
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
    progress: Option<ProgressReporter>,
    log: Option<TranscriptLog>,
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
        let Some(progress) = &self.progress else {
            return;
        };
        let s = self.snapshot();
        progress.report(ToolProgressData::Subagent {
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
        if let Some(log) = &self.log
            && let Some(line) = transcript_line(event)
        {
            log(&line);
        }
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
                            ContentBlock::Image { .. } | ContentBlock::ToolReference { .. } => None,
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

/// The most characters of one transcript line (a tool input, a reply).
const MAX_LINE_CHARS: usize = 2_000;

/// A background agent's event as one line of its task output (what
/// TaskOutput shows of its progress); `None` for events not shown.
fn transcript_line(event: &Event) -> Option<String> {
    let line = match &event.body {
        EventBody::UserPrompt { text } => format!("[prompt] {text}"),
        // A message is already in the log, as `[message]`, from the inbox.
        EventBody::ContextAdded {
            source: ContextSource::AgentMessage,
            ..
        } => return None,
        EventBody::ContextAdded { text, .. } => format!("[context] {text}"),
        EventBody::ModelRequestStarted { turn, .. } => format!("[turn {turn}] model request"),
        EventBody::AssistantMessage { content, .. } => {
            let text: Vec<&str> = content
                .iter()
                .filter(|b| b["type"] == "text")
                .filter_map(|b| b["text"].as_str())
                .collect();
            if text.is_empty() {
                return None;
            }
            format!("[assistant] {}", text.join(""))
        }
        EventBody::ToolQueued { name, input, .. } => format!("[tool] {name} {input}"),
        EventBody::ToolCompleted {
            status, content, ..
        } => {
            let text: Vec<&str> = content
                .iter()
                .filter_map(|b| match b {
                    ContentBlock::Text { text } => Some(text.as_str()),
                    ContentBlock::Image { .. } | ContentBlock::ToolReference { .. } => None,
                })
                .collect();
            format!("[result {}] {}", status_text(*status), text.join(" "))
        }
        EventBody::SessionError { message, .. } => format!("[error] {message}"),
        EventBody::SessionCompleted { status, turns } => {
            format!("[ended] {status:?} after {turns} model requests")
        }
        _ => return None,
    };
    Some(if line.chars().count() > MAX_LINE_CHARS {
        let cut: String = line.chars().take(MAX_LINE_CHARS).collect();
        format!("{cut}…")
    } else {
        line
    })
}

fn status_text(status: ToolCallStatus) -> String {
    serde_json::to_value(status)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}
