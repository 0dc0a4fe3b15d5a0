//! `ReadMcpResource`: one resource of one MCP server.

use std::sync::Arc;

use async_trait::async_trait;
use gatehouse_core::names::READ_MCP_RESOURCE;
use gatehouse_core::tool::{CallContext, ToolData};
use gatehouse_core::{InterruptBehavior, Tool, ToolError, ToolResult};
use gatehouse_protocol::event::ContentBlock;
use serde_json::{Value, json};

use crate::manager::McpServers;
use crate::result::resource_contents_block;
use crate::tool::{McpOutput, tool_error};

/// Reads a resource by server and URI.
#[derive(Debug)]
pub struct ReadMcpResource {
    servers: Arc<McpServers>,
    schema: Value,
}

impl ReadMcpResource {
    /// The tool over `servers`.
    pub fn new(servers: Arc<McpServers>) -> Self {
        Self {
            servers,
            schema: json!({
                "type": "object",
                "properties": {
                    "server": {"type": "string", "description": "The MCP server's name"},
                    "uri": {"type": "string", "description": "The resource URI, as ListMcpResources gave it"}
                },
                "required": ["server", "uri"],
                "additionalProperties": false
            }),
        }
    }
}

#[async_trait]
impl Tool for ReadMcpResource {
    fn name(&self) -> &str {
        READ_MCP_RESOURCE
    }

    fn description(&self) -> &str {
        "Reads one resource of an MCP server by its URI (from ListMcpResources). Text comes back as \
         text, images as images; other binary content is described."
    }

    fn input_schema(&self) -> &Value {
        &self.schema
    }

    fn search_hint(&self) -> Option<&str> {
        Some("read MCP server resource by uri")
    }

    fn is_concurrency_safe(&self, _input: &Value) -> bool {
        true
    }

    fn is_read_only(&self, _input: &Value) -> bool {
        true
    }

    fn interrupt_behavior(&self) -> InterruptBehavior {
        InterruptBehavior::Cancel
    }

    async fn call(&self, input: Value, cx: CallContext<'_>) -> Result<ToolResult, ToolError> {
        let field = |k: &str| input.get(k).and_then(Value::as_str).unwrap_or_default();
        let (name, uri) = (field("server"), field("uri"));
        let server = self.servers.get(name).ok_or_else(|| {
            ToolError::invalid(format!(
                "no MCP server named `{name}`; configured: {}",
                self.servers.names().join(", ")
            ))
        })?;
        let result = server
            .read_resource(uri, cx.cancel)
            .await
            .map_err(tool_error)?;
        let content: Vec<ContentBlock> = result
            .get("contents")
            .and_then(Value::as_array)
            .map(|items| items.iter().map(resource_contents_block).collect())
            .unwrap_or_default();
        Ok(ToolResult::from_data(McpOutput { content }))
    }

    fn map_result(&self, data: &dyn ToolData, _tool_use_id: &str) -> Vec<ContentBlock> {
        match data.as_any().downcast_ref::<McpOutput>() {
            Some(out) if !out.content.is_empty() => out.content.clone(),
            _ => vec![ContentBlock::Text {
                text: "(the resource has no contents)".into(),
            }],
        }
    }
}
