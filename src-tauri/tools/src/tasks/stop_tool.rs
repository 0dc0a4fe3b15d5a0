//! TaskStop: ends a background task and its whole process group.

use std::sync::Arc;

use async_trait::async_trait;
use gatehouse_core::ToolError;
use gatehouse_core::tool::{CallContext, ToolResult};
use gatehouse_core::typed::TypedTool;
use gatehouse_protocol::event::{ContentBlock, TaskStatus};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{TaskError, TaskManager};

/// The tool's name.
pub const TASK_STOP: &str = "TaskStop";

/// TaskStop's input.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskStopInput {
    /// The id of the background task to stop.
    pub task_id: String,
}

/// TaskStop's output.
#[derive(Debug, Clone, Serialize)]
pub struct TaskStopOutput {
    /// The task.
    pub task_id: String,
    /// Its status afterwards.
    pub status: TaskStatus,
    /// What happened.
    pub message: String,
}

/// TaskStop: stops a background task.
#[derive(Debug)]
pub struct TaskStopTool {
    tasks: Arc<TaskManager>,
}

impl TaskStopTool {
    /// A TaskStop over `tasks`.
    pub fn new(tasks: Arc<TaskManager>) -> Self {
        Self { tasks }
    }
}

#[async_trait]
impl TypedTool for TaskStopTool {
    type Input = TaskStopInput;
    type Output = TaskStopOutput;

    fn name(&self) -> &str {
        TASK_STOP
    }

    fn description(&self) -> &str {
        "Stops a background task started with run_in_background: a Bash command's whole process group gets SIGTERM, then SIGKILL after a grace period; a background agent's loop is interrupted."
    }

    fn search_hint(&self) -> Option<&str> {
        Some("stop kill background shell task")
    }

    async fn call(
        &self,
        input: TaskStopInput,
        _cx: CallContext<'_>,
    ) -> Result<ToolResult<TaskStopOutput>, ToolError> {
        let before = self.tasks.info(&input.task_id).map_err(|e| match e {
            TaskError::Unknown { .. } => ToolError::invalid(e.to_string()),
            other => ToolError::failed(other.to_string()),
        })?;
        if before.state.status != TaskStatus::Running {
            return Err(ToolError::invalid(format!(
                "task {} is not running ({})",
                input.task_id,
                before.state.message.as_deref().unwrap_or("it has ended")
            )));
        }
        let after = self
            .tasks
            .stop(&input.task_id, "TaskStop asked")
            .await
            .map_err(|e| ToolError::failed(e.to_string()))?;
        let message = match after.state.status {
            TaskStatus::Running => format!(
                "Task {} was asked to stop but is still running.",
                after.task_id
            ),
            _ => format!(
                "Task {} {}.",
                after.task_id,
                after.state.message.as_deref().unwrap_or("ended")
            ),
        };
        Ok(ToolResult::new(TaskStopOutput {
            task_id: after.task_id,
            status: after.state.status,
            message,
        }))
    }

    fn map_result(&self, output: &TaskStopOutput, _tool_use_id: &str) -> Vec<ContentBlock> {
        vec![ContentBlock::Text {
            text: output.message.clone(),
        }]
    }
}
