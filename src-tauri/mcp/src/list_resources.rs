//! `ListMcpResources`: the resources of the connected MCP servers.

use std::sync::Arc;

use async_trait::async_trait;
use gatehouse_core::names::LIST_MCP_RESOURCES;
use gatehouse_core::tool::CallContext;
use gatehouse_core::{InterruptBehavior, Tool, ToolError, ToolResult};
use serde_json::{Value, json};

use crate::manager::McpServers;
use crate::tool::tool_error;

/// Lists resources of every connected server, or of one.
#[derive(Debug)]
pub struct ListMcpResources {
    servers: Arc<McpServers>,
    schema: Value,
}

impl ListMcpResources {
    /// The tool over `servers`.
    pub fn new(servers: Arc<McpServers>) -> Self {
        Self {
            servers,
            schema: json!({
                "type": "object",
                "properties": {
                    "server": {"type": "string", "description": "Only this server's resources (default: every connected server)"}
                },
                "additionalProperties": false
            }),
        }
    }
}

#[async_trait]
impl Tool for ListMcpResources {
    fn name(&self) -> &str {
        LIST_MCP_RESOURCES
    }

    fn description(&self) -> &str {
        "Lists the resources (files, records, documents) offered by the connected MCP servers: \
         for each, its server, uri, name, mimeType and description. Read one with ReadMcpResource."
    }

    fn input_schema(&self) -> &Value {
        &self.schema
    }

    fn search_hint(&self) -> Option<&str> {
        Some("list MCP server resources files documents")
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

    async fn call(&self, input: Value, _cx: CallContext<'_>) -> Result<ToolResult, ToolError> {
        let only = input.get("server").and_then(Value::as_str);
        let targets: Vec<_> = match only {
            Some(name) => vec![self.servers.get(name).ok_or_else(|| {
                ToolError::invalid(format!(
                    "no MCP server named `{name}`; configured: {}",
                    self.servers.names().join(", ")
                ))
            })?],
            None => self.servers.connected(),
        };
        let mut out = Vec::new();
        let mut problems = Vec::new();
        for server in targets {
            if !server.supports_resources() && only.is_none() {
                continue;
            }
            match server.list_resources().await {
                Ok(resources) => out.extend(resources.into_iter().map(|mut r| {
                    if let Value::Object(m) = &mut r {
                        m.insert("server".into(), Value::String(server.name().to_owned()));
                    }
                    r
                })),
                Err(e) if only.is_some() => return Err(tool_error(e)),
                Err(e) => problems.push(e.to_string()),
            }
        }
        Ok(ToolResult::from_data(
            json!({"resources": out, "errors": problems}),
        ))
    }
}
