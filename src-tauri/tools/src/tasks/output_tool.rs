//! TaskOutput: new output and status of a background task.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use gatehouse_core::ToolError;
use gatehouse_core::tool::{CallContext, InterruptBehavior, ToolResult};
use gatehouse_core::typed::TypedTool;
use gatehouse_protocol::event::{ContentBlock, TaskStatus};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{TaskError, TaskManager};

/// The tool's name.
pub const TASK_OUTPUT: &str = "TaskOutput";
/// How long a blocking read waits when the input gives no timeout, in ms.
pub const DEFAULT_WAIT_MS: u64 = 30_000;
/// The longest a blocking read may wait, in ms.
pub const MAX_WAIT_MS: u64 = 600_000;

/// TaskOutput's input.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskOutputInput {
    /// The id of the background task (as returned by Bash or Agent).
    pub task_id: String,
    /// Wait for the task to finish before reading (default true).
    #[serde(default)]
    pub block: Option<bool>,
    /// How long to wait when blocking, in milliseconds (default 30000, at
    /// most 600000).
    #[serde(default)]
    #[schemars(range(max = 600_000))]
    pub timeout: Option<u64>,
    /// Only return output lines matching this regular expression.
    #[serde(default)]
    pub filter: Option<String>,
}

/// TaskOutput's output.
#[derive(Debug, Clone, Serialize)]
pub struct TaskOutputOutput {
    /// The task.
    pub task_id: String,
    /// Its status after the read.
    pub status: TaskStatus,
    /// Its exit code, once it exited.
    pub exit_code: Option<i32>,
    /// How it ended, once it did.
    pub message: Option<String>,
    /// Output since the previous read.
    pub output: String,
    /// New bytes consumed (before filtering).
    pub new_bytes: u64,
    /// Bytes of the new output left out by the budget.
    pub elided_bytes: u64,
    /// Where the whole output is.
    pub output_path: String,
    /// Whether a blocking read stopped waiting while the task still ran.
    pub wait_timed_out: bool,
}

impl TaskOutputOutput {
    /// The text the model gets.
    pub fn text(&self) -> String {
        let status = match self.status {
            TaskStatus::Running => "running",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Stopped => "stopped",
        };
        let mut text = format!("Task {} is {status}", self.task_id);
        if let Some(m) = &self.message {
            text.push_str(&format!(" ({m})"));
        }
        text.push('.');
        if self.wait_timed_out {
            text.push_str(" It was still running when the wait timed out.");
        }
        if self.output.is_empty() {
            text.push_str(" No new output.");
        } else {
            text.push_str(" New output:\n");
            text.push_str(&self.output);
        }
        text
    }
}

/// TaskOutput: reads a background task's new output.
#[derive(Debug)]
pub struct TaskOutputTool {
    tasks: Arc<TaskManager>,
}

impl TaskOutputTool {
    /// A TaskOutput over `tasks`.
    pub fn new(tasks: Arc<TaskManager>) -> Self {
        Self { tasks }
    }
}

#[async_trait]
impl TypedTool for TaskOutputTool {
    type Input = TaskOutputInput;
    type Output = TaskOutputOutput;

    fn name(&self) -> &str {
        TASK_OUTPUT
    }

    fn description(&self) -> &str {
        "Returns the output a background task (a Bash command or an Agent run with run_in_background; an agent's output is its transcript so far) wrote since the last read, and its status. \
         By default waits for the task to finish (block, up to `timeout` ms); set block to false to read at once. \
         `filter` keeps only lines matching a regular expression."
    }

    fn search_hint(&self) -> Option<&str> {
        Some("read background shell task output")
    }

    fn is_concurrency_safe(&self, _input: &TaskOutputInput) -> bool {
        true
    }

    fn is_read_only(&self, _input: &TaskOutputInput) -> bool {
        true
    }

    fn interrupt_behavior(&self) -> InterruptBehavior {
        InterruptBehavior::Cancel
    }

    async fn call(
        &self,
        input: TaskOutputInput,
        cx: CallContext<'_>,
    ) -> Result<ToolResult<TaskOutputOutput>, ToolError> {
        let wait = Duration::from_millis(input.timeout.unwrap_or(DEFAULT_WAIT_MS).min(MAX_WAIT_MS));
        let read = tokio::select! {
            r = self.tasks.read(&input.task_id, input.block.unwrap_or(true), wait, input.filter.as_deref()) => r,
            () = cx.cancel.cancelled() => return Err(ToolError::Cancelled),
        };
        let read = read.map_err(|e| match e {
            TaskError::Unknown { .. } | TaskError::BadFilter(_) => {
                ToolError::invalid(e.to_string())
            }
            other => ToolError::failed(other.to_string()),
        })?;
        Ok(ToolResult::new(TaskOutputOutput {
            task_id: read.info.task_id,
            status: read.info.state.status,
            exit_code: read.info.state.exit_code,
            message: read.info.state.message,
            output: read.output,
            new_bytes: read.new_bytes,
            elided_bytes: read.elided_bytes,
            output_path: read.info.output_path.display().to_string(),
            wait_timed_out: read.wait_timed_out,
        }))
    }

    fn map_result(&self, output: &TaskOutputOutput, _tool_use_id: &str) -> Vec<ContentBlock> {
        vec![ContentBlock::Text {
            text: output.text(),
        }]
    }
}
