//! SendMessage: a follow-up prompt to a background agent (issue 19 item 4).

use std::sync::Arc;

use async_trait::async_trait;
use gatehouse_core::ToolError;
use gatehouse_core::names;
use gatehouse_core::tool::{CallContext, ToolResult};
use gatehouse_core::typed::TypedTool;
use gatehouse_protocol::event::ContentBlock;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{MessageDelivery, TaskError, TaskManager};

/// SendMessage's input.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SendMessageInput {
    /// The background agent's task id (as the Agent tool returned it,
    /// `agent_<n>`).
    pub to: String,
    /// The message: a follow-up instruction or question for the agent.
    pub message: String,
}

/// SendMessage's output.
#[derive(Debug, Clone, Serialize)]
pub struct SendMessageOutput {
    /// The agent's task id.
    pub task_id: String,
    /// `queued` (it was running) or `resumed` (it had ended and runs again).
    pub delivery: &'static str,
    /// What happened, for the model.
    pub message: String,
}

/// SendMessage: delivers a message to a background agent.
#[derive(Debug)]
pub struct SendMessageTool {
    tasks: Arc<TaskManager>,
}

impl SendMessageTool {
    /// A SendMessage over `tasks`.
    pub fn new(tasks: Arc<TaskManager>) -> Self {
        Self { tasks }
    }
}

#[async_trait]
impl TypedTool for SendMessageTool {
    type Input = SendMessageInput;
    type Output = SendMessageOutput;

    fn name(&self) -> &str {
        names::SEND_MESSAGE
    }

    fn description(&self) -> &str {
        "Sends a follow-up message to a background agent (started with the Agent tool and run_in_background) by its task id. \
         A running agent reads it before its next model request; an agent that has finished starts again with it and keeps its conversation. \
         Its reply arrives like its first one: read it with TaskOutput, or wait for the task notification."
    }

    fn search_hint(&self) -> Option<&str> {
        Some("message follow-up background agent")
    }

    async fn check_permissions(
        &self,
        _input: &SendMessageInput,
        _ctx: &gatehouse_core::ToolUseContext,
    ) -> gatehouse_core::permission::ToolPermissionVerdict {
        // Like starting an agent: a message runs nothing by itself; each
        // call the agent makes is decided on its own.
        gatehouse_core::permission::ToolPermissionVerdict::Allow {
            reason: "a message to a background agent runs nothing by itself; each of its calls is decided on its own".into(),
        }
    }

    async fn call(
        &self,
        input: SendMessageInput,
        _cx: CallContext<'_>,
    ) -> Result<ToolResult<SendMessageOutput>, ToolError> {
        let delivery = self
            .tasks
            .send_message(&input.to, &input.message)
            .map_err(|e| match e {
                TaskError::Unknown { .. } | TaskError::NoMessages(_) => {
                    ToolError::invalid(e.to_string())
                }
                other => ToolError::failed(other.to_string()),
            })?;
        let (word, message) = match delivery {
            MessageDelivery::Queued => (
                "queued",
                format!(
                    "Message sent to {}; it reads it before its next model request.",
                    input.to
                ),
            ),
            MessageDelivery::Resumed => (
                "resumed",
                format!(
                    "Agent {} had finished; it runs again with this message.",
                    input.to
                ),
            ),
        };
        Ok(ToolResult::new(SendMessageOutput {
            task_id: input.to,
            delivery: word,
            message,
        }))
    }

    fn map_result(&self, output: &SendMessageOutput, _tool_use_id: &str) -> Vec<ContentBlock> {
        vec![ContentBlock::Text {
            text: output.message.clone(),
        }]
    }
}
