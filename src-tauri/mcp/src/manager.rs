//! The MCP servers of one session: which start, their tools, and the two
//! resource tools; everything stops when the session ends.

use std::sync::Arc;
use std::time::Duration;

use gatehouse_core::Tool;
use gatehouse_protocol::event::McpServerStatus;
use serde::Serialize;

use crate::config::{ConfigScope, McpConfig, ServerConfig};
use crate::list_resources::ListMcpResources;
use crate::read_resource::ReadMcpResource;
use crate::server::{McpServer, ServerOptions};
use crate::tool::McpTool;

/// The servers of a session, sorted by name.
#[derive(Debug, Default)]
pub struct McpServers {
    servers: Vec<Arc<McpServer>>,
}

impl McpServers {
    /// The server called `name`.
    pub fn get(&self, name: &str) -> Option<Arc<McpServer>> {
        self.servers.iter().find(|s| s.name() == name).cloned()
    }

    /// Every server's name.
    pub fn names(&self) -> Vec<String> {
        self.servers.iter().map(|s| s.name().to_owned()).collect()
    }

    /// The servers connected now.
    pub fn connected(&self) -> Vec<Arc<McpServer>> {
        self.servers
            .iter()
            .filter(|s| s.state().status == McpServerStatus::Connected)
            .cloned()
            .collect()
    }

    /// Every server.
    pub fn all(&self) -> &[Arc<McpServer>] {
        &self.servers
    }
}

/// One server as `gatehouse-cli mcp list` prints it. No secret values.
#[derive(Debug, Clone, Serialize)]
pub struct ServerReport {
    /// Its name.
    pub name: String,
    /// Where it was configured.
    pub scope: ConfigScope,
    /// The file.
    pub file: String,
    /// `stdio` or `http`.
    pub transport: String,
    /// Whether its annotations are trusted.
    pub trusted: bool,
    /// Its state.
    pub state: McpServerStatus,
    /// What happened.
    pub message: Option<String>,
    /// Its tools' qualified names.
    pub tools: Vec<String>,
    /// The last lines of its stderr (stdio servers).
    pub stderr: Vec<String>,
}

/// The MCP side of a session.
#[derive(Debug)]
pub struct McpManager {
    servers: Arc<McpServers>,
}

impl McpManager {
    /// Starts every enabled server of `config` that may start: servers of
    /// the project's `.mcp.json` only when `approved` says so (they are
    /// listed as awaiting approval otherwise). Must be called in a Tokio
    /// runtime.
    pub fn start(
        config: &McpConfig,
        options: &ServerOptions,
        approved: &dyn Fn(&ServerConfig) -> bool,
    ) -> Self {
        let servers = config
            .servers
            .iter()
            .map(|c| {
                let c = c.clone();
                if c.disabled {
                    McpServer::idle(
                        c,
                        options.clone(),
                        McpServerStatus::Disabled,
                        Some("disabled in the configuration".into()),
                    )
                } else if c.scope.needs_approval() && !approved(&c) {
                    let message = format!(
                        "project server from {} awaiting approval: approve it in the app, or pass --trust-project",
                        c.file.display()
                    );
                    McpServer::idle(
                        c,
                        options.clone(),
                        McpServerStatus::AwaitingApproval,
                        Some(message),
                    )
                } else {
                    McpServer::start(c, options.clone())
                }
            })
            .collect();
        Self {
            servers: Arc::new(McpServers { servers }),
        }
    }

    /// The servers.
    pub fn servers(&self) -> &Arc<McpServers> {
        &self.servers
    }

    /// Waits until no server is connecting any more, or `limit` passed.
    pub async fn settled(&self, limit: Duration) {
        let deadline = tokio::time::Instant::now() + limit;
        for s in self.servers.all() {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            s.settled(left).await;
        }
    }

    /// Resolves when any server's tool list changes (it connected, crashed,
    /// or sent `notifications/tools/list_changed`): the session should then
    /// rebuild its pool from [`Self::tools`] before the next model request
    /// (the pool sorts MCP tools by name, so the order stays stable).
    pub async fn tools_changed(&self) {
        let mut receivers: Vec<_> = self.servers.all().iter().map(|s| s.subscribe()).collect();
        if receivers.is_empty() {
            return std::future::pending().await;
        }
        let before: Vec<_> = receivers
            .iter_mut()
            .map(|r| r.borrow_and_update().tools.clone())
            .collect();
        loop {
            let changes = receivers.iter_mut().map(|r| Box::pin(r.changed()));
            let (result, index, _) = futures::future::select_all(changes).await;
            if result.is_err() {
                return std::future::pending().await;
            }
            let now = receivers[index].borrow_and_update().tools.clone();
            if now != before[index] {
                return;
            }
        }
    }

    /// The remote tools of the connected servers, each as `mcp__<server>__<tool>`
    /// (the registry sorts them; see `gatehouse_core::Registry::assemble_pool`).
    pub fn tools(&self) -> Vec<Arc<dyn Tool>> {
        self.tools_by_server()
            .into_iter()
            .flat_map(|(_, tools)| tools)
            .collect()
    }

    /// [`Self::tools`] per connected server (by server name): a session
    /// refreshing its pool takes a server's list as complete only while it
    /// is connected, so a restarting server's tools are not dropped.
    pub fn tools_by_server(&self) -> Vec<(String, Vec<Arc<dyn Tool>>)> {
        self.servers
            .connected()
            .into_iter()
            .map(|server| {
                let tools = server
                    .state()
                    .tools
                    .iter()
                    .map(|t| {
                        Arc::new(McpTool::new(Arc::clone(&server), t.clone())) as Arc<dyn Tool>
                    })
                    .collect();
                (server.name().to_owned(), tools)
            })
            .collect()
    }

    /// `ListMcpResources` and `ReadMcpResource` (built-ins), when any server
    /// is configured.
    pub fn resource_tools(&self) -> Vec<Arc<dyn Tool>> {
        if self.servers.all().is_empty() {
            return Vec::new();
        }
        vec![
            Arc::new(ListMcpResources::new(Arc::clone(&self.servers))),
            Arc::new(ReadMcpResource::new(Arc::clone(&self.servers))),
        ]
    }

    /// Every server's state, for `mcp list` and the UI.
    pub fn report(&self) -> Vec<ServerReport> {
        self.servers
            .all()
            .iter()
            .map(|s| {
                let state = s.state();
                let c = s.config();
                ServerReport {
                    name: c.name.clone(),
                    scope: c.scope,
                    file: c.file.display().to_string(),
                    transport: c.transport_kind().into(),
                    trusted: c.trusted,
                    state: state.status,
                    message: state.message.clone(),
                    tools: state
                        .tools
                        .iter()
                        .map(|t| t.qualified_name.clone())
                        .collect(),
                    stderr: s.stderr_tail(),
                }
            })
            .collect()
    }

    /// Stops every server (child process groups are killed).
    pub fn shutdown(&self) {
        for s in self.servers.all() {
            s.shutdown();
        }
    }
}

impl Drop for McpManager {
    fn drop(&mut self) {
        self.shutdown();
    }
}
