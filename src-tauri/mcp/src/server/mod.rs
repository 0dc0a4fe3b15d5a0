//! One MCP server's connection: start (child process or HTTP), keep its
//! state and tool list, reconnect after a crash with backoff, and make
//! calls with timeouts, progress and cancellation.
//!
//! A supervisor task owns the rmcp service; callers use a clone of its
//! `Peer`. States go out as `mcp_server_state` events and through a watch
//! channel that calls wait on while a server (re)connects.
//!
//! Connecting (process or HTTP, handshake, keychain, tool list) is in
//! `connect`; calls and resources in `requests`.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use futures::FutureExt as _;
use futures::future::FusedFuture as _;
use gatehouse_core::events::Emitter;
use gatehouse_protocol::event::{EventBody, McpServerStatus};
use gatehouse_protocol::progress::ToolProgressData;
use rmcp::model::{ClientCapabilities, ClientConfig, Implementation, ProgressNotificationParam};
use rmcp::service::{NotificationContext, Peer};
use rmcp::{ClientHandler, RoleClient};
use serde_json::Value;
use tokio::sync::{Notify, watch};
use tokio_util::sync::CancellationToken;

use crate::config::{ServerConfig, ServerTransport};
use crate::names::qualified_tool_name;
use crate::secrets::SecretLookup;
use crate::stderr::StderrLog;
use crate::transport::ProgressRoutes;

mod connect;
mod requests;

use connect::Connected;

/// Reconnect attempts after a crash before the server is marked failed.
pub const MAX_RECONNECTS: u32 = 5;
/// The first reconnect delay; doubled per attempt.
pub const FIRST_BACKOFF: Duration = Duration::from_millis(250);
/// A connection that lived this long resets the reconnect count.
const STABLE_AFTER: Duration = Duration::from_secs(60);
/// The largest message accepted from a server (one stdio line, one HTTP
/// JSON body).
const MAX_MESSAGE_BYTES: usize = 64 * 1024 * 1024;
/// The most pages one tools/list listing may take (a server that keeps
/// handing out cursors is cut off).
pub const MAX_TOOL_PAGES: usize = 100;
/// The most tools one server may list.
pub const MAX_TOOLS: usize = 1_000;
/// The most JSON one listing may add up to (the tools' names, descriptions
/// and schemas), over all its pages.
pub const MAX_LISTING_BYTES: usize = 16 * 1024 * 1024;
/// The shortest time between the starts of two tool-list refreshes after
/// `notifications/tools/list_changed` (notifications in between are
/// coalesced into the next refresh).
pub const MIN_REFRESH_INTERVAL: Duration = Duration::from_millis(200);

/// A tool as the server declared it.
#[derive(Debug, Clone, PartialEq)]
pub struct RemoteTool {
    /// The server's name for it.
    pub name: String,
    /// The pool name (`mcp__<server>__<tool>`).
    pub qualified_name: String,
    /// Its description.
    pub description: String,
    /// Its input JSON Schema.
    pub input_schema: Value,
    /// `annotations.readOnlyHint`.
    pub read_only_hint: bool,
    /// `annotations.destructiveHint` (the MCP default is true).
    pub destructive_hint: bool,
    /// `annotations.openWorldHint` (the MCP default is true).
    pub open_world_hint: bool,
    /// `_meta["anthropic/alwaysLoad"] == true`: the server asks for the
    /// tool's full definition to be sent from the first request on, never
    /// deferred behind ToolSearch (Claude Code's key).
    pub always_load: bool,
    /// `_meta["anthropic/searchHint"]`: words ToolSearch's keyword scoring
    /// matches beside the name and description (Claude Code's key).
    pub search_hint: Option<String>,
}

/// The `_meta` key with which a server marks a tool never deferred.
pub const ALWAYS_LOAD_META: &str = "anthropic/alwaysLoad";
/// The `_meta` key with which a server gives a tool a search hint.
pub const SEARCH_HINT_META: &str = "anthropic/searchHint";

impl RemoteTool {
    fn from_model(server: &str, tool: &rmcp::model::Tool) -> Self {
        let hints = tool.annotations.as_ref();
        let meta = |key: &str| tool.meta.as_ref().and_then(|m| m.0.get(key));
        Self {
            name: tool.name.to_string(),
            qualified_name: qualified_tool_name(server, &tool.name),
            description: tool.description.as_deref().unwrap_or_default().to_owned(),
            input_schema: Value::Object((*tool.input_schema).clone()),
            read_only_hint: hints.and_then(|a| a.read_only_hint).unwrap_or(false),
            destructive_hint: hints.and_then(|a| a.destructive_hint).unwrap_or(true),
            open_world_hint: hints.and_then(|a| a.open_world_hint).unwrap_or(true),
            always_load: meta(ALWAYS_LOAD_META).and_then(Value::as_bool) == Some(true),
            search_hint: meta(SEARCH_HINT_META)
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|h| !h.is_empty())
                .map(str::to_owned),
        }
    }
}

/// A server's state, as events and `mcp list` report it.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerState {
    /// The state.
    pub status: McpServerStatus,
    /// What happened, for people.
    pub message: Option<String>,
    /// Its tools while connected, sorted by qualified name.
    pub tools: Arc<Vec<RemoteTool>>,
}

impl ServerState {
    fn new(status: McpServerStatus, message: Option<String>) -> Self {
        Self {
            status,
            message,
            tools: Arc::new(Vec::new()),
        }
    }
}

/// Why a call failed.
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    /// The server is not connected and did not connect in time.
    #[error("MCP server `{server}` is not available ({state}): {message}")]
    Unavailable {
        /// The server.
        server: String,
        /// Its state.
        state: String,
        /// Why.
        message: String,
    },
    /// The call timed out.
    #[error("MCP server `{server}` did not answer within {} s; the call was cancelled", timeout.as_secs_f64())]
    Timeout {
        /// The server.
        server: String,
        /// The limit.
        timeout: Duration,
    },
    /// The connection closed during the call (the server crashed).
    #[error(
        "MCP server `{server}` closed the connection during the call (it may have crashed); it is being restarted"
    )]
    Closed {
        /// The server.
        server: String,
    },
    /// The server rejected our credentials.
    #[error("MCP server `{server}` needs authentication: {message}")]
    NeedsAuth {
        /// The server.
        server: String,
        /// Details.
        message: String,
    },
    /// The call was cancelled by the user or a sibling.
    #[error("cancelled")]
    Cancelled,
    /// Any other protocol error (JSON-RPC error, unexpected response).
    #[error("MCP server `{server}`: {message}")]
    Protocol {
        /// The server.
        server: String,
        /// Details.
        message: String,
    },
}

/// The rmcp client handler: reports tool-list changes to the supervisor.
/// (Progress notifications never reach it: [`Routed`] takes them out of the
/// stream first.)
struct Handler {
    info: ClientConfig,
    /// Signalled per `notifications/tools/list_changed`; a `Notify` keeps
    /// one permit however many arrive, so a flood is one refresh.
    list_changed: Arc<Notify>,
}

impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        self.info.clone()
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.list_changed.notify_one();
    }
}

/// The payload of one `tool_progress` event of an MCP call.
fn progress_payload(p: ProgressNotificationParam) -> ToolProgressData {
    ToolProgressData::mcp_progress(p.progress, p.total, p.message)
}

/// Options shared by every server of a session.
#[derive(Clone)]
pub struct ServerOptions {
    /// The working directory of stdio servers (the project).
    pub cwd: PathBuf,
    /// Where secret header values come from.
    pub secrets: Arc<dyn SecretLookup>,
    /// Where state events go.
    pub emitter: Emitter,
}

impl std::fmt::Debug for ServerOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerOptions")
            .field("cwd", &self.cwd)
            .finish_non_exhaustive()
    }
}

/// One configured server and its live connection.
pub struct McpServer {
    config: ServerConfig,
    options: ServerOptions,
    state: watch::Sender<ServerState>,
    peer: Mutex<Option<Peer<RoleClient>>>,
    progress: ProgressRoutes,
    stderr: StderrLog,
    shutdown: CancellationToken,
    /// Whether a supervisor task runs (see [`McpServer::reconnect`]).
    supervising: std::sync::atomic::AtomicBool,
    /// Asks a live connection to start over (see [`McpServer::reconnect`]).
    restart: tokio::sync::Notify,
    /// Why it was stopped, when not because its session ended (see
    /// [`McpServer::shutdown_because`]).
    stop_reason: Mutex<Option<&'static str>>,
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("config", &self.config)
            .field("state", &self.state.borrow().status)
            .finish_non_exhaustive()
    }
}

impl McpServer {
    /// A server in state `status` that is not started (disabled, awaiting
    /// approval).
    pub fn idle(
        config: ServerConfig,
        options: ServerOptions,
        status: McpServerStatus,
        message: Option<String>,
    ) -> Arc<Self> {
        let server = Arc::new(Self::new_inner(config, options, status, message));
        server.emit();
        server
    }

    /// Starts connecting `config` in the background.
    pub fn start(config: ServerConfig, options: ServerOptions) -> Arc<Self> {
        let server = Arc::new(Self::new_inner(
            config,
            options,
            McpServerStatus::Connecting,
            None,
        ));
        server.emit();
        server.spawn_supervisor();
        server
    }

    fn spawn_supervisor(self: &Arc<Self>) {
        use std::sync::atomic::Ordering;
        self.supervising.store(true, Ordering::SeqCst);
        let supervisor = Arc::clone(self);
        // The supervisor clears `supervising` itself, before it publishes
        // the state it ends in: cleared after, a `reconnect` in between
        // (the user's click right after `needs_auth` appears) saw a
        // supervisor "between attempts" and did nothing.
        tokio::spawn(async move { supervisor.supervise().await });
    }

    /// Connects again a server in `needs_auth` (after a sign-in) or
    /// `failed`; returns whether it started over. A server whose connection
    /// is still up (a 401 during a call put it in `needs_auth`) gets a new
    /// connection. Servers that are connecting, connected, disabled,
    /// awaiting approval or stopped with the session are left alone. Must
    /// be called in a Tokio runtime.
    pub fn reconnect(self: &Arc<Self>) -> bool {
        use std::sync::atomic::Ordering;
        let status = self.state().status;
        if self.shutdown.is_cancelled()
            || !matches!(status, McpServerStatus::NeedsAuth | McpServerStatus::Failed)
        {
            return false;
        }
        if self.supervising.load(Ordering::SeqCst) {
            if self
                .peer
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .is_none()
            {
                // Between attempts: the supervisor is already retrying.
                return false;
            }
            self.set_state(
                McpServerStatus::Connecting,
                Some("connecting again".into()),
                Vec::new(),
            );
            self.restart.notify_one();
            return true;
        }
        self.set_state(
            McpServerStatus::Connecting,
            Some("connecting again".into()),
            Vec::new(),
        );
        self.spawn_supervisor();
        true
    }

    fn new_inner(
        config: ServerConfig,
        options: ServerOptions,
        status: McpServerStatus,
        message: Option<String>,
    ) -> Self {
        Self {
            config,
            options,
            state: watch::channel(ServerState::new(status, message)).0,
            peer: Mutex::new(None),
            progress: Arc::default(),
            stderr: StderrLog::default(),
            shutdown: CancellationToken::new(),
            supervising: std::sync::atomic::AtomicBool::new(false),
            restart: tokio::sync::Notify::new(),
            stop_reason: Mutex::new(None),
        }
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.config.name
    }

    /// Its configuration.
    pub fn config(&self) -> &ServerConfig {
        &self.config
    }

    /// Its state now.
    pub fn state(&self) -> ServerState {
        self.state.borrow().clone()
    }

    /// A receiver of its state changes.
    pub fn subscribe(&self) -> watch::Receiver<ServerState> {
        self.state.subscribe()
    }

    /// The last lines its process wrote to stderr (stdio servers).
    pub fn stderr_tail(&self) -> Vec<String> {
        self.stderr.lines()
    }

    /// Waits until the server has left `connecting` (or `limit` passed) and
    /// returns its state.
    pub async fn settled(&self, limit: Duration) -> ServerState {
        let mut rx = self.state.subscribe();
        let _ = tokio::time::timeout(
            limit,
            rx.wait_for(|s| s.status != McpServerStatus::Connecting),
        )
        .await;
        self.state()
    }

    /// Stops the server: its process (group) is killed, its connection closed.
    pub fn shutdown(&self) {
        self.shutdown.cancel();
    }

    /// Stops it for `reason` (its configuration changed, it was removed),
    /// which its last state says instead of "stopped with the session".
    pub fn shutdown_because(&self, reason: &'static str) {
        *self
            .stop_reason
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(reason);
        self.shutdown.cancel();
    }

    fn set_state(&self, status: McpServerStatus, message: Option<String>, tools: Vec<RemoteTool>) {
        // Every state message, whatever error it quotes, is stored and
        // shown: an HTTP server's URL appears in it without its query.
        let message = match (&self.config.transport, message) {
            (ServerTransport::Http { url, .. }, Some(m)) => {
                Some(crate::failure::without_url(&m, url))
            }
            (_, m) => m,
        };
        let state = ServerState {
            status,
            message,
            tools: Arc::new(tools),
        };
        // The event first: whoever sees the new state through the watch
        // channel also finds its event (the faults test relied on luck).
        self.emit_state(&state);
        self.state.send_replace(state);
    }

    fn emit(&self) {
        self.emit_state(&self.state());
    }

    fn emit_state(&self, s: &ServerState) {
        self.options.emitter.emit(EventBody::McpServerState {
            server: self.config.name.clone(),
            state: s.status,
            message: s.message.clone(),
            tools: s.tools.iter().map(|t| t.qualified_name.clone()).collect(),
        });
    }

    fn handler(&self) -> (Handler, Arc<Notify>) {
        let changed = Arc::new(Notify::new());
        let info = ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("gatehouse", env!("CARGO_PKG_VERSION")),
        );
        (
            Handler {
                info,
                list_changed: Arc::clone(&changed),
            },
            changed,
        )
    }

    /// Connects, watches the connection, reconnects after crashes.
    async fn supervise(self: Arc<Self>) {
        let mut reconnects = 0_u32;
        loop {
            let limit = self.config.startup_timeout;
            let attempt = async {
                let Connected::Live(running, changes, guard) = self.connect().await?;
                let tools = self
                    .list_tools(running.peer())
                    .await
                    .map_err(|m| (McpServerStatus::Failed, m))?;
                Ok::<_, (McpServerStatus, String)>((running, changes, guard, tools))
            };
            let outcome = tokio::select! {
                () = self.shutdown.cancelled() => return self.stopped(),
                r = tokio::time::timeout(limit, attempt) => r,
            };
            let (running, changes, _child, tools) = match outcome {
                Ok(Ok(ok)) => ok,
                Ok(Err((status, message))) => {
                    if status == McpServerStatus::Failed
                        && reconnects > 0
                        && reconnects < MAX_RECONNECTS
                    {
                        // A restart after a crash failed: keep trying.
                        reconnects += 1;
                        if !self.backoff(reconnects, &message).await {
                            return self.stopped();
                        }
                        continue;
                    }
                    return self.settle(status, message);
                }
                Err(_) => {
                    let message = format!(
                        "did not start and list its tools within {} s",
                        limit.as_secs_f64()
                    );
                    return self.settle(McpServerStatus::Failed, message);
                }
            };
            let connected_at = Instant::now();
            let peer = running.peer().clone();
            *self.peer.lock().unwrap_or_else(PoisonError::into_inner) = Some(peer.clone());
            self.set_state(McpServerStatus::Connected, None, tools);
            let ct = running.cancellation_token();
            let waiting = running.waiting();
            tokio::pin!(waiting);
            // At most one tool-list refresh at a time, started no sooner
            // than MIN_REFRESH_INTERVAL after the previous one; the
            // notifications that arrive meanwhile are one permit of
            // `changes`, so they make one more refresh, not one each.
            let refresh = futures::future::Fuse::terminated();
            tokio::pin!(refresh);
            let mut next_refresh = tokio::time::Instant::now();
            let crashed = loop {
                tokio::select! {
                    quit = &mut waiting => break format!("{quit:?}"),
                    () = self.restart.notified() => {
                        // `reconnect` after a sign-in: a new connection
                        // with the new credentials, not counted as a crash.
                        ct.cancel();
                        let _ = tokio::time::timeout(Duration::from_secs(5), &mut waiting).await;
                        break String::new();
                    }
                    () = self.shutdown.cancelled() => {
                        ct.cancel();
                        let _ = tokio::time::timeout(Duration::from_secs(5), &mut waiting).await;
                        return self.stopped();
                    }
                    () = changes.notified(), if refresh.is_terminated() => {
                        let start = next_refresh.max(tokio::time::Instant::now());
                        next_refresh = start + MIN_REFRESH_INTERVAL;
                        let (this, peer) = (&*self, &peer);
                        refresh.set(
                            async move {
                                tokio::time::sleep_until(start).await;
                                this.list_tools(peer).await
                            }
                            .fuse(),
                        );
                    }
                    listed = &mut refresh => self.refreshed(listed),
                }
            };
            *self.peer.lock().unwrap_or_else(PoisonError::into_inner) = None;
            if crashed.is_empty() {
                self.set_state(
                    McpServerStatus::Connecting,
                    Some("connecting again".into()),
                    Vec::new(),
                );
                continue;
            }
            if connected_at.elapsed() >= STABLE_AFTER {
                reconnects = 0;
            }
            reconnects += 1;
            let message = format!("the connection closed ({crashed})");
            if reconnects > MAX_RECONNECTS {
                return self.settle(
                    McpServerStatus::Failed,
                    format!("{message}; gave up after {MAX_RECONNECTS} restarts"),
                );
            }
            if !self.backoff(reconnects, &message).await {
                return self.stopped();
            }
        }
    }

    /// Takes the outcome of a refresh after `notifications/tools/list_changed`:
    /// a changed list is a state event (the pool sorts by name, so the order
    /// stays stable); an unchanged one is not. A failed refresh (an error,
    /// too many tools or pages, too slow) keeps the previous tools and says
    /// so in the state's message.
    fn refreshed(&self, listed: Result<Vec<RemoteTool>, String>) {
        let now = self.state();
        match listed {
            Ok(tools) if *now.tools == tools => {}
            Ok(tools) => self.set_state(
                McpServerStatus::Connected,
                Some("tool list changed".into()),
                tools,
            ),
            Err(m) => {
                tracing::warn!(server = %self.config.name, "{m}");
                let message = format!(
                    "the server said its tools changed, but listing them failed: {m}; the previous {} tools are kept",
                    now.tools.len()
                );
                let tools = now.tools.as_ref().clone();
                self.set_state(now.status, Some(message), tools);
            }
        }
    }

    /// Waits before reconnect attempt `n`; false when shut down meanwhile.
    async fn backoff(&self, n: u32, why: &str) -> bool {
        let delay = FIRST_BACKOFF * 2_u32.saturating_pow(n.saturating_sub(1).min(6));
        self.set_state(
            McpServerStatus::Connecting,
            Some(format!(
                "{why}; reconnecting in {} ms (attempt {n} of {MAX_RECONNECTS})",
                delay.as_millis()
            )),
            Vec::new(),
        );
        tokio::select! {
            () = self.shutdown.cancelled() => false,
            () = tokio::time::sleep(delay) => true,
        }
    }

    /// The supervisor ends in `status`: no longer supervising, then the
    /// state published (in that order; see `spawn_supervisor`).
    fn settle(&self, status: McpServerStatus, message: String) {
        self.supervising
            .store(false, std::sync::atomic::Ordering::SeqCst);
        self.set_state(status, Some(message), Vec::new());
    }

    fn stopped(&self) {
        self.supervising
            .store(false, std::sync::atomic::Ordering::SeqCst);
        *self.peer.lock().unwrap_or_else(PoisonError::into_inner) = None;
        let reason = self
            .stop_reason
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .unwrap_or("stopped with the session");
        self.set_state(McpServerStatus::Disabled, Some(reason.into()), Vec::new());
    }
}
