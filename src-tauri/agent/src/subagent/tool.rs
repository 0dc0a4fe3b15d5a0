//! The `Agent` tool (SPEC §7, issue 19 item 1): starts a sub-agent with a
//! restricted tool set and returns its final answer.
//!
//! Input as Claude Code's: `description`, `prompt`, `subagent_type`
//! (default `general-purpose`), optional `model`, `run_in_background`,
//! `isolation`. Scheduling: a call of a read-only type (Explore, Plan, or a
//! definition whose tools all only read) is concurrency-safe, so several in
//! one message run side by side; any other runs alone. Permission: rules on
//! `Agent(<type>)` decide who may be started (deny and ask rules come
//! before the tool's own verdict, which allows: starting an agent runs
//! nothing by itself, each of its calls is decided on its own).

use std::sync::{Arc, OnceLock};

use async_trait::async_trait;
use gatehouse_core::permission::{PermissionSubject, ToolPermissionVerdict};
use gatehouse_core::tool::{CallContext, ToolData, default_map_result};
use gatehouse_core::{InterruptBehavior, Tool, ToolError, ToolResult, ToolUseContext, names};
use gatehouse_protocol::event::{ContentBlock, SessionStatus};
use gatehouse_protocol::progress::{SubagentPhase, ToolProgressData};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::definition::AgentDefinitions;
use gatehouse_tools::worktree::{Worktree, WorktreeManager};

use super::background::start_background;
use super::run::{SubagentEnv, SubagentSpawn, run_subagent};

/// The type used when the call names none.
pub const DEFAULT_SUBAGENT_TYPE: &str = "general-purpose";

/// The Agent tool's input.
#[derive(Debug, Clone, Deserialize)]
struct AgentInput {
    description: String,
    prompt: String,
    #[serde(default)]
    subagent_type: Option<String>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    run_in_background: bool,
    #[serde(default)]
    isolation: Option<String>,
}

impl AgentInput {
    fn subagent_type(&self) -> &str {
        self.subagent_type
            .as_deref()
            .filter(|t| !t.is_empty())
            .unwrap_or(DEFAULT_SUBAGENT_TYPE)
    }
}

/// One call a sub-agent was refused.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeniedCall {
    /// The tool.
    pub tool: String,
    /// What the sub-agent was told.
    pub message: String,
}

/// The Agent tool's output (PostToolUse hooks see it as JSON).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AgentOutput {
    /// The sub-agent's session (its transcript).
    pub agent_session_id: String,
    /// Its type.
    pub subagent_type: String,
    /// How it ended.
    pub status: SessionStatus,
    /// Model requests it made.
    pub turns: u32,
    /// Calls it started.
    pub tool_calls: u32,
    /// Output tokens it used.
    pub output_tokens: u64,
    /// Calls it was refused.
    pub denied: Vec<DeniedCall>,
    /// Its final answer.
    pub answer: String,
    /// The worktree it ran in (`isolation: "worktree"`).
    pub worktree: Option<WorktreeNote>,
}

/// The worktree a sub-agent ran in, for its result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WorktreeNote {
    /// Its folder.
    pub path: String,
    /// Its branch.
    pub branch: String,
    /// Whether it was kept (it has changes or commits; a background agent's
    /// always is), else removed.
    pub kept: bool,
}

impl WorktreeNote {
    pub(crate) fn text(&self) -> String {
        if self.kept {
            format!(
                "\nIts worktree {} (branch {}) was kept: it has the agent's changes.",
                self.path, self.branch
            )
        } else {
            format!(
                "\nIts worktree {} had no changes and was removed.",
                self.path
            )
        }
    }
}

/// `agent-<call id>` as a worktree name.
fn worktree_name(tool_use_id: &str) -> String {
    let id: String = tool_use_id
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
        .take(48)
        .collect();
    if id.is_empty() {
        gatehouse_tools::worktree::tools::default_name("agent")
    } else {
        format!("agent-{id}")
    }
}

/// Removes `w` when the agent changed and committed nothing there, else
/// keeps it. A failure to look or remove keeps it (nothing is lost).
pub(crate) async fn finish_worktree(manager: &WorktreeManager, w: &Worktree) -> WorktreeNote {
    let clean = matches!(manager.changes(w).await, Ok(c) if c.is_empty())
        && matches!(manager.commits(w).await, Ok(0));
    let removed = clean && manager.remove(w, false).await.is_ok();
    WorktreeNote {
        path: w.path.display().to_string(),
        branch: w.branch.clone(),
        kept: !removed,
    }
}

impl AgentOutput {
    /// The tool_result text: the answer, then what the parent must know
    /// whatever the answer says (denied calls).
    pub fn text(&self) -> String {
        let mut out = if self.answer.is_empty() {
            "(the sub-agent finished without a reply)".to_owned()
        } else {
            self.answer.clone()
        };
        out.push_str(&format!(
            "\n\n[sub-agent {} ({}): {} model requests, {} tool calls, {} output tokens]",
            self.subagent_type,
            self.agent_session_id,
            self.turns,
            self.tool_calls,
            self.output_tokens
        ));
        if let Some(w) = &self.worktree {
            out.push_str(&w.text());
        }
        if !self.denied.is_empty() {
            out.push_str("\nCalls the sub-agent was refused:");
            for d in &self.denied {
                out.push_str(&format!("\n- {}: {}", d.tool, d.message));
            }
        }
        out
    }
}

/// The Agent tool's output for `run_in_background`: the task it started.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BackgroundAgentOutput {
    /// The task id (TaskOutput, TaskStop, SendMessage take it).
    pub task_id: String,
    /// The sub-agent's session (its transcript).
    pub agent_session_id: String,
    /// Its type.
    pub subagent_type: String,
    /// Where its transcript lines go.
    pub output_path: String,
    /// The worktree it runs in (removed when the task is over if unchanged).
    pub worktree: Option<WorktreeNote>,
}

impl BackgroundAgentOutput {
    /// The tool_result text.
    pub fn text(&self) -> String {
        format!(
            "Started the {} agent in the background as task {id}; it works on its own and you will be told when it finishes. \
             Read its progress with TaskOutput (task_id \"{id}\"), send it a follow-up with SendMessage (to \"{id}\"), stop it with TaskStop. \
             Its transcript is session {}.",
            self.subagent_type,
            self.agent_session_id,
            id = self.task_id,
        ) + &self
            .worktree
            .as_ref()
            .map(|w| {
                format!(
                    "\nIt works in the worktree {} (branch {}); when the task is over, the worktree is removed if the agent changed nothing there, and kept otherwise.",
                    w.path, w.branch
                )
            })
            .unwrap_or_default()
    }
}

/// The `Agent` tool of one session.
pub struct AgentTool {
    definitions: Arc<AgentDefinitions>,
    description: String,
    schema: Value,
    env: OnceLock<SubagentEnv>,
}

impl std::fmt::Debug for AgentTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentTool")
            .field("types", &self.definitions.names())
            .field("attached", &self.env.get().is_some())
            .finish()
    }
}

impl AgentTool {
    /// The tool for a session with these agent types. It can start agents
    /// once [`Self::attach`] gave it its session.
    pub fn new(definitions: Arc<AgentDefinitions>) -> Self {
        let description = describe(&definitions);
        Self {
            definitions,
            description,
            schema: input_schema(),
            env: OnceLock::new(),
        }
    }

    /// Connects the tool to its session (once; later calls are ignored and
    /// return `false`).
    pub fn attach(&self, env: SubagentEnv) -> bool {
        self.env.set(env).is_ok()
    }

    /// The agent types.
    pub fn definitions(&self) -> &AgentDefinitions {
        &self.definitions
    }

    fn parse(input: &Value) -> Option<AgentInput> {
        serde_json::from_value(input.clone()).ok()
    }
}

/// The tool description: what the tool does, then every type with its
/// description and tools, sorted by name (the description is part of every
/// model request; a stable order keeps the prompt cache).
fn describe(defs: &AgentDefinitions) -> String {
    let mut out = String::from(
        "Launch a sub-agent to handle a complex, multi-step task on its own. The sub-agent works with its own tools and returns one final report, which is this tool's result; it does not see this conversation, so the prompt must say everything it needs. Launch several agents in one message to run read-only ones side by side.\n\nAvailable agent types and the tools they have access to:",
    );
    for d in defs.iter() {
        let tools = match &d.tools {
            None => "all tools".to_owned(),
            Some(t) => t.join(", "),
        };
        out.push_str(&format!(
            "\n- {}: {} (Tools: {tools})",
            d.name, d.description
        ));
    }
    out
}

fn input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "description": {"type": "string", "description": "A short (3-5 word) description of the task"},
            "prompt": {"type": "string", "description": "The task for the agent to perform"},
            "subagent_type": {"type": "string", "description": "The type of agent to use (default general-purpose)"},
            "model": {"type": "string", "enum": ["sonnet", "opus", "haiku"], "description": "A model for this agent; default: the agent type's, else this session's"},
            "run_in_background": {"type": "boolean", "description": "Run the agent in the background"},
            "isolation": {"type": "string", "enum": ["worktree"], "description": "Run the agent in a fresh git worktree"}
        },
        "required": ["description", "prompt"],
        "additionalProperties": false
    })
}

/// The model ids Claude Code's aliases stand for.
pub fn resolve_model_alias(model: &str) -> &str {
    match model {
        "sonnet" => "claude-sonnet-4-5",
        "opus" => "claude-opus-4-5",
        "haiku" => "claude-haiku-4-5",
        other => other,
    }
}

#[async_trait]
impl Tool for AgentTool {
    fn name(&self) -> &str {
        names::AGENT
    }

    fn aliases(&self) -> &[&str] {
        // Claude Code's earlier name.
        &["Task"]
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn input_schema(&self) -> &Value {
        &self.schema
    }

    fn is_concurrency_safe(&self, input: &Value) -> bool {
        Self::parse(input).is_some_and(|i| {
            !i.run_in_background
                && i.isolation.is_none()
                && self
                    .definitions
                    .get(i.subagent_type())
                    .is_some_and(|d| d.is_read_only())
        })
    }

    fn interrupt_behavior(&self) -> InterruptBehavior {
        // The sub-agent's loop stops at the interrupt and reports.
        InterruptBehavior::Cancel
    }

    async fn validate_input(&self, input: &Value, _ctx: &ToolUseContext) -> Result<(), ToolError> {
        let i = Self::parse(input)
            .ok_or_else(|| ToolError::invalid("the input is not an Agent call"))?;
        if i.prompt.trim().is_empty() {
            return Err(ToolError::invalid(
                "`prompt` is empty: say what the agent should do",
            ));
        }
        let Some(def) = self.definitions.get(i.subagent_type()) else {
            return Err(ToolError::invalid(
                self.definitions.unknown_type_message(i.subagent_type()),
            ));
        };
        if let Some(other) = i.isolation.as_deref().filter(|v| *v != "worktree") {
            return Err(ToolError::invalid(format!(
                "isolation {other:?} is not known; the only isolation is \"worktree\""
            )));
        }
        if (i.isolation.is_some() || def.isolation.is_some())
            && self.env.get().is_some_and(|e| e.worktrees.is_none())
        {
            return Err(ToolError::invalid(format!(
                "worktree isolation (asked by {}) is not available in this session; nothing was started",
                if i.isolation.is_some() {
                    "the call".to_owned()
                } else {
                    format!("the definition {}", def.location())
                }
            )));
        }
        Ok(())
    }

    async fn check_permissions(
        &self,
        _input: &Value,
        _ctx: &ToolUseContext,
    ) -> ToolPermissionVerdict {
        ToolPermissionVerdict::Allow {
            reason: "starting a sub-agent runs nothing by itself; each of its calls is decided on its own".into(),
        }
    }

    fn permission_subject(
        &self,
        input: &Value,
        _ctx: &ToolUseContext,
    ) -> Option<PermissionSubject> {
        let t = Self::parse(input).map_or_else(
            || DEFAULT_SUBAGENT_TYPE.to_owned(),
            |i| i.subagent_type().to_owned(),
        );
        Some(PermissionSubject::AgentType(t))
    }

    async fn call(&self, input: Value, cx: CallContext<'_>) -> Result<ToolResult, ToolError> {
        let i: AgentInput = serde_json::from_value(input)
            .map_err(|e| ToolError::invalid(format!("the input is not an Agent call: {e}")))?;
        let def = self.definitions.get(i.subagent_type()).ok_or_else(|| {
            ToolError::invalid(self.definitions.unknown_type_message(i.subagent_type()))
        })?;
        let env = self.env.get().ok_or_else(|| {
            ToolError::failed(
                "the Agent tool is not connected to a session here; no sub-agent was started",
            )
        })?;
        let parent = env
            .parent
            .upgrade()
            .ok_or_else(|| ToolError::failed("the session has ended; no sub-agent was started"))?;
        let model = i.model.as_deref().or(def.model.as_deref()).map_or_else(
            || env.config.model.clone(),
            |m| resolve_model_alias(m).to_owned(),
        );
        let worktree = if i.isolation.is_some() || def.isolation.is_some() {
            let manager = env.worktrees.as_ref().ok_or_else(|| {
                ToolError::invalid(
                    "worktree isolation is not available in this session; nothing was started",
                )
            })?;
            let name = worktree_name(cx.tool_use_id);
            Some(manager.create(&cx.ctx.cwd, &name).await.map_err(|e| {
                ToolError::invalid(format!(
                    "sub-agent '{}' ({}) was not started: its worktree could not be made: {e}",
                    def.name, i.description
                ))
            })?)
        } else {
            None
        };
        let spawn = SubagentSpawn {
            parent_session_id: cx.ctx.session_id.clone(),
            agent_session_id: format!("{}-agent-{}", parent.emitter().session_id(), cx.tool_use_id),
            tool_use_id: cx.tool_use_id.to_owned(),
            subagent_type: def.name.clone(),
            description: i.description.clone(),
            model,
            cwd: worktree
                .as_ref()
                .map_or_else(|| cx.ctx.cwd.clone(), |w| w.cwd.clone()),
            prompt: i.prompt.clone(),
        };
        if i.run_in_background {
            let (agent_session_id, subagent_type) =
                (spawn.agent_session_id.clone(), spawn.subagent_type.clone());
            // Its worktree outlives the call: the agent may run again on a
            // message; it is removed (when unchanged) once the task is over.
            let cleanup = worktree
                .clone()
                .zip(env.worktrees.clone())
                .map(|(w, m)| (m, w));
            let info = start_background(env, &parent, def, spawn, cx.ctx, cleanup)
                .await
                .map_err(|e| {
                    ToolError::failed(format!(
                        "background sub-agent '{}' ({}) was not started: {e}",
                        def.name, i.description
                    ))
                })?;
            // The link from the parent's call to the agent's session (the
            // agent's own progress goes to its task output, since this
            // call ends now).
            cx.progress.report(ToolProgressData::Subagent {
                agent_session_id: agent_session_id.clone(),
                subagent_type: subagent_type.clone(),
                phase: SubagentPhase::Started,
                current_tool: None,
                tool_calls: 0,
                turns: 0,
                output_tokens: 0,
                status: None,
            });
            return Ok(ToolResult::from_data(BackgroundAgentOutput {
                task_id: info.task_id,
                agent_session_id,
                subagent_type,
                output_path: info.output_path.display().to_string(),
                worktree: worktree.map(|w| WorktreeNote {
                    path: w.path.display().to_string(),
                    branch: w.branch,
                    kept: true,
                }),
            }));
        }
        let ran = run_subagent(env, &parent, def, spawn, cx.ctx, cx.progress, cx.cancel).await;
        // A worktree the agent left unchanged goes; one with changes or
        // commits stays for the parent to look at (named in the result).
        let worktree_note = match (&worktree, env.worktrees.as_ref()) {
            (Some(w), Some(manager)) => Some(finish_worktree(manager, w).await),
            _ => None,
        };
        let report = ran.map_err(|e| {
            ToolError::failed(format!("sub-agent '{}' ({}): {e}", def.name, i.description))
        })?;
        let output = AgentOutput {
            agent_session_id: report.agent_session_id,
            subagent_type: def.name.clone(),
            status: report.status,
            turns: report.turns,
            tool_calls: report.tool_calls,
            output_tokens: report.output_tokens,
            denied: report
                .denied
                .into_iter()
                .map(|(tool, message)| DeniedCall { tool, message })
                .collect(),
            answer: report.answer,
            worktree: worktree_note,
        };
        match report.status {
            SessionStatus::Completed => Ok(ToolResult::from_data(output)),
            SessionStatus::Interrupted => Err(ToolError::CancelledWithOutput(format!(
                "sub-agent '{}' ({}) was stopped after {} model requests and {} tool calls; its transcript is session {}",
                def.name, i.description, output.turns, output.tool_calls, output.agent_session_id
            ))),
            _ => Err(ToolError::failed(format!(
                "sub-agent '{}' ({}) failed after {} model requests and {} tool calls: {}. Its transcript is session {}.",
                def.name,
                i.description,
                output.turns,
                output.tool_calls,
                report
                    .error
                    .unwrap_or_else(|| format!("it ended as {:?}", report.status)),
                output.agent_session_id
            ))),
        }
    }

    fn map_result(&self, data: &dyn ToolData, _tool_use_id: &str) -> Vec<ContentBlock> {
        if let Some(out) = data.as_any().downcast_ref::<AgentOutput>() {
            return vec![ContentBlock::Text { text: out.text() }];
        }
        if let Some(out) = data.as_any().downcast_ref::<BackgroundAgentOutput>() {
            return vec![ContentBlock::Text { text: out.text() }];
        }
        default_map_result(&data.to_json())
    }
}
