//! The MCP servers of one session: which start, their tools, and the two
//! resource tools; everything stops when the session ends.

use std::sync::{Arc, RwLock};
use std::time::Duration;

use gatehouse_core::Tool;
use gatehouse_protocol::event::McpServerStatus;
use serde::Serialize;

use crate::config::{ConfigScope, McpConfig, ServerConfig};
use crate::list_resources::ListMcpResources;
use crate::read_resource::ReadMcpResource;
use crate::secrets::SecretLookup;
use crate::server::{McpServer, ServerOptions};
use crate::tool::McpTool;

/// The servers of a session, in the configuration's order. The set changes
/// when the configuration does ([`McpManager::apply`]).
#[derive(Debug, Default)]
pub struct McpServers {
    servers: RwLock<Vec<Arc<McpServer>>>,
}

impl McpServers {
    fn read(&self) -> std::sync::RwLockReadGuard<'_, Vec<Arc<McpServer>>> {
        // A poisoned lock only means a panic elsewhere; the list is whole.
        self.servers.read().unwrap_or_else(|p| p.into_inner())
    }

    /// The server called `name`.
    pub fn get(&self, name: &str) -> Option<Arc<McpServer>> {
        self.read().iter().find(|s| s.name() == name).cloned()
    }

    /// Every server's name.
    pub fn names(&self) -> Vec<String> {
        self.read().iter().map(|s| s.name().to_owned()).collect()
    }

    /// The servers connected now.
    pub fn connected(&self) -> Vec<Arc<McpServer>> {
        self.read()
            .iter()
            .filter(|s| s.state().status == McpServerStatus::Connected)
            .cloned()
            .collect()
    }

    /// Every server, now.
    pub fn all(&self) -> Vec<Arc<McpServer>> {
        self.read().clone()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.read().is_empty()
    }
}

/// What [`McpManager::apply`] changed, by server name (sorted).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct McpChanges {
    /// Servers that run now and did not before (added, enabled, approved).
    pub started: Vec<String>,
    /// Servers that ran and do not any more (removed, disabled).
    pub stopped: Vec<String>,
    /// Servers whose configuration changed: stopped and started again.
    pub restarted: Vec<String>,
}

impl McpChanges {
    /// Whether nothing changed.
    pub fn is_empty(&self) -> bool {
        self.started.is_empty() && self.stopped.is_empty() && self.restarted.is_empty()
    }
}

/// What a configured server should be: running, or listed idle with its
/// state and message.
fn wanted(
    c: &ServerConfig,
    approved: &dyn Fn(&ServerConfig) -> bool,
) -> Option<(McpServerStatus, String)> {
    if c.disabled {
        Some((
            McpServerStatus::Disabled,
            "disabled in the configuration".into(),
        ))
    } else if c.scope.needs_approval() && !approved(c) {
        Some((
            McpServerStatus::AwaitingApproval,
            format!(
                "project server from {} awaiting approval: approve it in the app, or pass --trust-project",
                c.file.display()
            ),
        ))
    } else {
        None
    }
}

fn server_for(
    c: &ServerConfig,
    options: &ServerOptions,
    approved: &dyn Fn(&ServerConfig) -> bool,
) -> Arc<McpServer> {
    match wanted(c, approved) {
        Some((status, message)) => {
            McpServer::idle(c.clone(), options.clone(), status, Some(message))
        }
        None => McpServer::start(c.clone(), options.clone()),
    }
}

/// The state of a server listed idle (disabled, awaiting approval); `None`
/// for one that was started (whatever its connection's state).
fn idle_state(server: &McpServer) -> Option<McpServerStatus> {
    let status = server.state().status;
    matches!(
        status,
        McpServerStatus::Disabled | McpServerStatus::AwaitingApproval
    )
    .then_some(status)
}

/// Whether `server` was started (not listed idle).
fn runs(server: &McpServer) -> bool {
    idle_state(server).is_none()
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
    /// What servers started later ([`Self::apply`]) are given.
    options: ServerOptions,
}

/// The last state of a server `apply` replaced (its configuration, its
/// approval or its switch changed).
pub const STOPPED_CHANGED: &str = "stopped: its configuration changed";
/// The last state of a server `apply` found no longer configured.
pub const STOPPED_REMOVED: &str = "stopped: removed from the MCP configuration";

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
            .map(|c| server_for(c, options, approved))
            .collect();
        Self {
            servers: Arc::new(McpServers {
                servers: RwLock::new(servers),
            }),
            options: options.clone(),
        }
    }

    /// Brings the servers in line with `config` (it changed: the MCP panel
    /// saved, removed, disabled or approved a server): a server that is new,
    /// or whose configuration or wanted state (running, disabled, awaiting
    /// approval) changed, replaces the old one, which is shut down; one no
    /// longer configured is shut down and dropped; the rest keep running
    /// untouched. New servers connect in the background (a failure is their
    /// own `failed` state); `secrets`, when given, is what they look their
    /// secrets up in from now on. Must be called in a Tokio runtime.
    pub fn apply(
        &self,
        config: &McpConfig,
        secrets: Option<Arc<dyn SecretLookup>>,
        approved: &dyn Fn(&ServerConfig) -> bool,
    ) -> McpChanges {
        let mut options = self.options.clone();
        if let Some(secrets) = secrets {
            options.secrets = secrets;
        }
        let mut changes = McpChanges::default();
        let mut list = self
            .servers
            .servers
            .write()
            .unwrap_or_else(|p| p.into_inner());
        let mut next = Vec::with_capacity(config.servers.len());
        for c in &config.servers {
            let old = list
                .iter()
                .position(|s| s.name() == c.name)
                .map(|i| list.remove(i));
            let want = wanted(c, approved).map(|(status, _)| status);
            let will_run = want.is_none();
            match old {
                Some(old) if old.config() == c && idle_state(&old) == want => {
                    next.push(old);
                    continue;
                }
                Some(old) => {
                    let ran = runs(&old);
                    old.shutdown_because(STOPPED_CHANGED);
                    match (ran, will_run) {
                        (true, true) => changes.restarted.push(c.name.clone()),
                        (false, true) => changes.started.push(c.name.clone()),
                        (true, false) => changes.stopped.push(c.name.clone()),
                        (false, false) => {}
                    }
                }
                None if will_run => changes.started.push(c.name.clone()),
                None => {}
            }
            next.push(server_for(c, &options, approved));
        }
        // What is left is no longer configured.
        for gone in list.drain(..) {
            if runs(&gone) {
                changes.stopped.push(gone.name().to_owned());
            }
            gone.shutdown_because(STOPPED_REMOVED);
        }
        *list = next;
        drop(list);
        changes.started.sort();
        changes.stopped.sort();
        changes.restarted.sort();
        changes
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
        // The set of servers may change meanwhile ([`Self::apply`]); the
        // session rebuilds its pool from the servers there are at its next
        // model request either way.
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
        if self.servers.is_empty() {
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
