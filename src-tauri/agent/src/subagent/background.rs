//! Background agents (issue 19 item 4): an Agent call with
//! `run_in_background` starts the sub-agent as a task of the session's
//! [`TaskManager`] and returns at once with the task id.
//!
//! The agent gets the background tool set (`AgentToolSet::Background`, the
//! seeds' allow-list), runs until it answers, and its task ends; its
//! transcript lines are the task's output (TaskOutput), TaskStop interrupts
//! it, and SendMessage queues a message it reads before its next model
//! request, or starts it again (same conversation, same id) when it had
//! ended. The parent's interrupt does not reach it (it belongs to no call);
//! the parent hears of each end at its next turn (a `<task-notification>`).
//! Its provider and session are set up before the call returns, so a
//! provider or store failure is the call's own error.

use std::sync::{Arc, OnceLock};

use gatehouse_core::registry::AgentToolSet;
use gatehouse_core::{ToolRuntime, ToolUseContext};
use gatehouse_protocol::event::{ContextSource, SessionStatus, TaskStatus};
use gatehouse_tools::tasks::{AfterEnd, AgentTaskSpec, TaskInfo};

use gatehouse_tools::worktree::{Worktree, WorktreeManager};

use super::definition::AgentDefinition;
use super::run::{SubagentEnv, SubagentSpawn, TranscriptLog, Watchers, prepare_subagent};
use super::tool::finish_worktree;

/// Writes one line of a background agent's transcript to its task log.
type LineWriter = Box<dyn Fn(&str) + Send + Sync>;

/// Starts `spawn` in the background; returns its task.
pub(crate) async fn start_background(
    env: &SubagentEnv,
    parent: &ToolRuntime,
    def: &AgentDefinition,
    spawn: SubagentSpawn,
    parent_ctx: &ToolUseContext,
    worktree: Option<(Arc<WorktreeManager>, Worktree)>,
) -> Result<TaskInfo, String> {
    let tasks = env.tasks.as_ref().ok_or_else(|| {
        "this session has no task manager, so agents cannot run in the background here; start it in the foreground".to_owned()
    })?;
    // The task (and so its log) exists only once the agent is ready; lines
    // go through this cell, set before the agent's first event.
    let cell: Arc<OnceLock<LineWriter>> = Arc::new(OnceLock::new());
    let log: TranscriptLog = {
        let cell = Arc::clone(&cell);
        Arc::new(move |line: &str| {
            if let Some(write) = cell.get() {
                write(line);
            }
        })
    };
    let mut prepared = prepare_subagent(
        env,
        parent,
        def,
        &spawn,
        parent_ctx,
        AgentToolSet::Background,
        Watchers {
            progress: None,
            log: Some(log),
        },
    )
    .await?;
    let task_spec = AgentTaskSpec {
        agent_session_id: spawn.agent_session_id.clone(),
        subagent_type: spawn.subagent_type.clone(),
        description: spawn.description.clone(),
    };
    let first = spawn.prompt.clone();
    tasks
        .start_agent(
            task_spec,
            Some(spawn.tool_use_id.clone()),
            move |control| async move {
                let _ = cell.set(Box::new(control.logger()));
                let messages = control.message_source();
                prepared.agent.set_notices(Arc::new(move || {
                    crate::agent::Notice::all(ContextSource::AgentMessage, messages())
                }));
                let stop = control.stop_token();
                let mut prompt = first;
                loop {
                    let outcome = prepared.agent.run_prompt(&prompt, &stop).await;
                    let report = prepared.report(&outcome);
                    let counts = format!(
                        "{} model requests, {} tool calls",
                        report.turns, report.tool_calls
                    );
                    let (status, message) = match report.status {
                        SessionStatus::Completed => (
                            TaskStatus::Completed,
                            format!("the agent answered ({counts})"),
                        ),
                        SessionStatus::Interrupted => (
                            TaskStatus::Stopped,
                            format!(
                                "stopped because {} ({counts})",
                                control
                                    .stop_reason()
                                    .unwrap_or_else(|| "it was interrupted".into())
                            ),
                        ),
                        other => (
                            TaskStatus::Failed,
                            format!(
                                "the agent failed ({counts}): {}",
                                report
                                    .error
                                    .clone()
                                    .unwrap_or_else(|| format!("it ended as {other:?}"))
                            ),
                        ),
                    };
                    if !report.answer.is_empty() {
                        control.log(&format!("[answer] {}", report.answer));
                    }
                    let result = (!report.answer.is_empty()).then(|| report.answer.clone());
                    match control.end(status, message, result) {
                        AfterEnd::Continue(next) => prompt = next,
                        AfterEnd::Ended => match control.wait_message().await {
                            Some(next) => prompt = next,
                            None => break,
                        },
                    }
                }
                // Stopped, or the session is closing: no message can start
                // it again, so an unchanged worktree goes now.
                if let Some((manager, w)) = worktree {
                    let note = finish_worktree(&manager, &w).await;
                    control.log(&format!("[worktree] {}", note.text().trim_start()));
                }
            },
        )
        .map_err(|e| e.to_string())
}
