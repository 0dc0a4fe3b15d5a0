//! A remote MCP tool as a Gatehouse [`Tool`] named `mcp__<server>__<tool>`.
//!
//! The input schema is the server's (the pipeline validates every input
//! against it before anything is sent). The permission check is passthrough:
//! the engine decides on rules such as `mcp__srv` or `mcp__srv__tool`.
//! Annotations are hints a server could lie about, so they count only for
//! servers the user marked trusted: a trusted read-only tool is read-only
//! and concurrency-safe (and so runs without a prompt by default); any other
//! tool is treated as a possibly destructive, open-world writer.

use std::sync::Arc;

use async_trait::async_trait;
use gatehouse_core::tool::{CallContext, ToolData};
use gatehouse_core::{InterruptBehavior, Tool, ToolError, ToolResult, ToolUseContext};
use gatehouse_protocol::event::ContentBlock;
use serde::Serialize;
use serde_json::Value;

use crate::result::{call_result_blocks, is_error};
use crate::server::{CallError, McpServer, RemoteTool};

/// What an MCP call returns: the mapped content blocks.
#[derive(Debug, Clone, Serialize)]
pub struct McpOutput {
    /// The tool_result content.
    pub content: Vec<ContentBlock>,
}

/// One remote tool of one server.
pub struct McpTool {
    server: Arc<McpServer>,
    remote: RemoteTool,
    trusted: bool,
}

impl std::fmt::Debug for McpTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpTool")
            .field("name", &self.remote.qualified_name)
            .field("trusted", &self.trusted)
            .finish_non_exhaustive()
    }
}

impl McpTool {
    /// Wraps `remote` of `server`.
    pub fn new(server: Arc<McpServer>, remote: RemoteTool) -> Self {
        let trusted = server.config().trusted;
        Self {
            server,
            remote,
            trusted,
        }
    }

    /// The server's name for the tool.
    pub fn remote_name(&self) -> &str {
        &self.remote.name
    }

    fn trusted_read_only(&self) -> bool {
        self.trusted && self.remote.read_only_hint
    }
}

/// Text of the text blocks, for error messages.
pub(crate) fn blocks_text(blocks: &[ContentBlock]) -> String {
    blocks
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text { text } => Some(text.as_str()),
            ContentBlock::Image { .. } | ContentBlock::ToolReference { .. } => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A call error as a tool error (cancellation stays cancellation, a
/// timeout is reported as one).
pub(crate) fn tool_error(e: CallError) -> ToolError {
    match e {
        CallError::Cancelled => ToolError::Cancelled,
        e @ CallError::Timeout { .. } => ToolError::TimedOut(e.to_string()),
        other => ToolError::failed(other.to_string()),
    }
}

#[async_trait]
impl Tool for McpTool {
    // The pool name, not the server's name for the tool (that is `remote_name`).
    #[allow(clippy::misnamed_getters)]
    fn name(&self) -> &str {
        &self.remote.qualified_name
    }

    fn description(&self) -> &str {
        &self.remote.description
    }

    fn input_schema(&self) -> &Value {
        &self.remote.input_schema
    }

    fn is_mcp(&self) -> bool {
        true
    }

    fn should_defer(&self) -> bool {
        // SPEC §9: MCP tools are listed by name until ToolSearch loads them.
        true
    }

    fn always_load(&self) -> bool {
        self.remote.always_load
    }

    fn search_hint(&self) -> Option<&str> {
        self.remote.search_hint.as_deref()
    }

    fn is_concurrency_safe(&self, _input: &Value) -> bool {
        self.trusted_read_only()
    }

    fn is_read_only(&self, _input: &Value) -> bool {
        self.trusted_read_only()
    }

    fn is_destructive(&self, _input: &Value) -> bool {
        // Untrusted hints are ignored: fail closed.
        !self.trusted_read_only() && (!self.trusted || self.remote.destructive_hint)
    }

    fn is_open_world(&self, _input: &Value) -> bool {
        !self.trusted || self.remote.open_world_hint
    }

    fn interrupt_behavior(&self) -> InterruptBehavior {
        // MCP has `notifications/cancelled`: the server is told to stop.
        InterruptBehavior::Cancel
    }

    async fn validate_input(&self, input: &Value, _ctx: &ToolUseContext) -> Result<(), ToolError> {
        if input.is_object() {
            Ok(())
        } else {
            Err(ToolError::invalid(
                "MCP tool arguments must be a JSON object",
            ))
        }
    }

    async fn call(&self, input: Value, cx: CallContext<'_>) -> Result<ToolResult, ToolError> {
        let result = self
            .server
            .call_tool(&self.remote.name, input, Some(cx.progress), cx.cancel)
            .await
            .map_err(tool_error)?;
        let content = call_result_blocks(&result);
        if is_error(&result) {
            let text = blocks_text(&content);
            return Err(ToolError::failed(if text.is_empty() {
                format!("the MCP tool `{}` reported an error", self.remote.name)
            } else {
                text
            }));
        }
        Ok(ToolResult::from_data(McpOutput { content }))
    }

    fn map_result(&self, data: &dyn ToolData, _tool_use_id: &str) -> Vec<ContentBlock> {
        match data.as_any().downcast_ref::<McpOutput>() {
            Some(out) if !out.content.is_empty() => out.content.clone(),
            Some(_) => vec![ContentBlock::Text {
                text: "(the tool returned no content)".into(),
            }],
            None => gatehouse_core::tool::default_map_result(&data.to_json()),
        }
    }
}
