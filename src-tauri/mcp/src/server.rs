//! One MCP server's connection: start (child process or HTTP), keep its
//! state and tool list, reconnect after a crash with backoff, and make
//! calls with timeouts, progress and cancellation.
//!
//! A supervisor task owns the rmcp service; callers use a clone of its
//! `Peer`. States go out as `mcp_server_state` events and through a watch
//! channel that calls wait on while a server (re)connects.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use futures::FutureExt as _;
use futures::future::FusedFuture as _;
use gatehouse_core::events::Emitter;
use gatehouse_core::tool::ProgressReporter;
use gatehouse_protocol::event::{EventBody, McpServerStatus};
use gatehouse_protocol::progress::ToolProgressData;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientCapabilities, ClientConfig, ClientRequest,
    Implementation, PaginatedRequestParams, ProgressNotificationParam, ReadResourceRequestParams,
    ServerResult,
};
use rmcp::service::{NotificationContext, Peer, PeerRequestOptions, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, RoleClient, ServiceError, ServiceExt};
use serde_json::Value;
use tokio::sync::{Notify, watch};
use tokio_util::sync::CancellationToken;

use crate::config::{ServerConfig, ServerTransport};
use crate::names::qualified_tool_name;
use crate::secrets::{SecretKind, SecretLookup, server_secret_account};
use crate::stderr::StderrLog;
use crate::throttle::{PROGRESS_INTERVAL, Throttle};
use crate::transport::{ProgressRoutes, Routed};

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

/// A running rmcp client session, its tool-list-changed signal and (for
/// stdio servers) its process.
enum Connected {
    Live(
        RunningService<RoleClient, Handler>,
        Arc<Notify>,
        Option<ChildGuard>,
    ),
}

/// A stdio server's process: its whole process group is killed when the
/// guard is dropped (crash handled, session ended, server stopped).
/// How long a failed handshake waits for the server's exit and the rest of
/// its stderr, to say how it ended.
const HANDSHAKE_AFTERMATH: Duration = Duration::from_millis(500);

struct ChildGuard(Box<dyn process_wrap::tokio::ChildWrapper>);

impl Drop for ChildGuard {
    fn drop(&mut self) {
        // `ProcessGroupChild::start_kill` signals the whole group.
        let _ = self.0.start_kill();
        let _ = self.0.try_wait();
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

    /// A `secretEnv` / `secretHeaders` value from the keychain; a missing
    /// value is `needs_auth` with what to do (never the value).
    fn keychain_value(
        &self,
        kind: SecretKind,
        name: &str,
    ) -> Result<String, (McpServerStatus, String)> {
        let what = match kind {
            SecretKind::Header => "header",
            SecretKind::Env => "env variable",
        };
        let Some(account) = server_secret_account(&self.config, kind, name) else {
            return Err((
                McpServerStatus::Failed,
                format!(
                    "{what} `{name}` is a keychain secret, which this configuration file cannot have"
                ),
            ));
        };
        match self.options.secrets.get(&account) {
            Ok(Some(value)) => Ok(value),
            Ok(None) => {
                let flag = match kind {
                    SecretKind::Header => "--header",
                    SecretKind::Env => "--env",
                };
                Err((
                    McpServerStatus::NeedsAuth,
                    format!(
                        "{what} `{name}` has no value in the keychain (account `{account}`): enter it in the MCP panel or run `gatehouse-cli mcp secret set --server {} {flag} {name}`, then reconnect",
                        self.config.name
                    ),
                ))
            }
            Err(e) => Err((
                McpServerStatus::NeedsAuth,
                format!("cannot read {what} `{name}` from the keychain: {e}"),
            )),
        }
    }

    /// Opens the transport and initialises the session.
    async fn connect(&self) -> Result<Connected, (McpServerStatus, String)> {
        let failed = |m: String| (McpServerStatus::Failed, m);
        let (handler, changes) = self.handler();
        let mut guard = None;
        let running = match &self.config.transport {
            ServerTransport::Stdio {
                command,
                args,
                env,
                secret_env,
            } => {
                let mut secret_values = Vec::with_capacity(secret_env.len());
                for name in secret_env {
                    secret_values.push((name, self.keychain_value(SecretKind::Env, name)?));
                }
                let mut cmd = tokio::process::Command::new(command);
                cmd.args(args)
                    .envs(env)
                    .envs(secret_values)
                    .current_dir(&self.options.cwd)
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped());
                let mut wrap = process_wrap::tokio::CommandWrap::from(cmd);
                // Its own process group, so that everything it starts dies
                // with it; killed when dropped (the session ends).
                #[cfg(unix)]
                wrap.wrap(process_wrap::tokio::ProcessGroup::leader());
                wrap.wrap(process_wrap::tokio::KillOnDrop);
                let mut child = wrap
                    .spawn()
                    .map_err(|e| failed(format!("cannot start `{command}`: {e}")))?;
                let (Some(stdin), Some(stdout)) = (child.stdin().take(), child.stdout().take())
                else {
                    return Err(failed(format!("`{command}`: no stdin/stdout pipes")));
                };
                let mut stderr_read = None;
                if let Some(stderr) = child.stderr().take() {
                    // Drained to EOF whatever it holds (see `stderr`).
                    let log = self.stderr.clone();
                    stderr_read = Some(tokio::spawn(async move { log.drain(stderr).await }));
                }
                guard = Some(ChildGuard(child));
                // rmcp's own child transport caps lines at 16 MiB and drops
                // longer ones silently (the call then times out); we accept
                // what HTTP accepts and let the result budget deal with it.
                let transport = AsyncRwTransport::new_client(stdout, stdin)
                    .with_max_line_length(MAX_MESSAGE_BYTES);
                match handler
                    .serve(Routed::new(transport, Arc::clone(&self.progress)))
                    .await
                {
                    Ok(running) => running,
                    Err(e) => {
                        // How it ended and what it said: wait (bounded) for
                        // the exit and for the rest of its stderr.
                        let exited = match guard.as_mut() {
                            Some(g) => tokio::time::timeout(HANDSHAKE_AFTERMATH, g.0.wait())
                                .await
                                .ok()
                                .and_then(Result::ok),
                            None => None,
                        };
                        if let Some(read) = stderr_read {
                            let _ = tokio::time::timeout(HANDSHAKE_AFTERMATH, read).await;
                        }
                        let why = crate::failure::HandshakeFailure::classify(&e, exited);
                        return Err(failed(why.message(command, &self.stderr.lines())));
                    }
                }
            }
            ServerTransport::Http {
                url,
                headers,
                secret_headers,
            } => {
                let mut map = HashMap::new();
                let mut add = |name: &str, value: &str| -> Result<(), (McpServerStatus, String)> {
                    let name = reqwest::header::HeaderName::from_bytes(name.as_bytes())
                        .map_err(|_| failed(format!("`{name}` is not a valid header name")))?;
                    let mut value =
                        reqwest::header::HeaderValue::from_str(value).map_err(|_| {
                            failed(format!(
                                "the value of header `{name}` is not a valid header value"
                            ))
                        })?;
                    value.set_sensitive(true);
                    map.insert(name, value);
                    Ok(())
                };
                for (name, value) in headers {
                    add(name, value)?;
                }
                for name in secret_headers {
                    let value = self.keychain_value(SecretKind::Header, name)?;
                    add(name, &value)?;
                }
                let config = StreamableHttpClientTransportConfig::with_uri(url.as_str())
                    .custom_headers(map)
                    .max_json_response_size(MAX_MESSAGE_BYTES);
                // OAuth servers: the stored tokens (if any) ride along and
                // are refreshed by rmcp's AuthClient (see `auth`).
                let oauth = crate::auth::oauth_url(&self.config).is_some();
                let (auth_client, keychain_problem) = if oauth {
                    match crate::auth::authorized_client(url, Arc::clone(&self.options.secrets))
                        .await
                    {
                        Ok(client) => (client, None),
                        Err(problem) => (None, Some(problem)),
                    }
                } else {
                    (None, None)
                };
                let had_tokens = auth_client.is_some();
                let served = match auth_client {
                    Some(client) => {
                        handler
                            .serve(Routed::new(
                                StreamableHttpClientTransport::with_client(client, config),
                                Arc::clone(&self.progress),
                            ))
                            .await
                    }
                    None => {
                        handler
                            .serve(Routed::new(
                                StreamableHttpClientTransport::from_config(config),
                                Arc::clone(&self.progress),
                            ))
                            .await
                    }
                };
                served.map_err(|e| {
                    if e.is_authorization_required() {
                        let message = if oauth {
                            crate::auth::needs_sign_in_message(
                                &self.config.name,
                                had_tokens,
                                keychain_problem.as_deref(),
                            )
                        } else {
                            format!(
                                "{} refused the credentials (HTTP 401/403): check the token or sign in again",
                                crate::failure::shown_url(url)
                            )
                        };
                        (McpServerStatus::NeedsAuth, message)
                    } else {
                        failed(crate::failure::without_url(
                            &format!("cannot connect to {url}: {e}"),
                            url,
                        ))
                    }
                })?
            }
        };
        Ok(Connected::Live(running, changes, guard))
    }

    /// The server's tools (every page), sorted by qualified name; at most
    /// [`MAX_TOOL_PAGES`] pages, [`MAX_TOOLS`] tools and
    /// [`MAX_LISTING_BYTES`] of JSON, within the startup timeout.
    async fn list_tools(&self, peer: &Peer<RoleClient>) -> Result<Vec<RemoteTool>, String> {
        let limit = self.config.startup_timeout;
        let tools = tokio::time::timeout(limit, list_all_tools(peer))
            .await
            .map_err(|_| format!("tools/list did not finish within {} s", limit.as_secs_f64()))??;
        let mut out: Vec<RemoteTool> = tools
            .iter()
            .map(|t| RemoteTool::from_model(&self.config.name, t))
            .collect();
        out.sort_by(|a, b| a.qualified_name.cmp(&b.qualified_name));
        Ok(out)
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

    /// The live peer, waiting up to the startup timeout while the server
    /// (re)connects.
    async fn peer(&self) -> Result<Peer<RoleClient>, CallError> {
        let deadline = tokio::time::Instant::now() + self.config.startup_timeout;
        let mut rx = self.state.subscribe();
        loop {
            let live = self
                .peer
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .clone();
            // A peer whose transport closed belongs to a crashed process the
            // supervisor has not noticed yet: wait for the restart.
            if let Some(peer) = live.filter(|p| !p.is_transport_closed()) {
                return Ok(peer);
            }
            let status = rx.borrow_and_update().status;
            let waiting = matches!(
                status,
                McpServerStatus::Connecting | McpServerStatus::Connected
            );
            if !waiting
                || tokio::time::timeout_at(deadline, rx.changed())
                    .await
                    .map_or(true, |r| r.is_err())
            {
                let s = self.state();
                return Err(CallError::Unavailable {
                    server: self.config.name.clone(),
                    state: format!("{:?}", s.status),
                    message: s.message.unwrap_or_else(|| "not connected".into()),
                });
            }
        }
    }

    fn map_error(&self, e: ServiceError) -> CallError {
        let server = self.config.name.clone();
        if e.is_authorization_required() {
            // The token expired or was revoked mid-session: say so in the
            // server's state (the UI offers to sign in again).
            let message = if crate::auth::oauth_url(&self.config).is_some() {
                crate::auth::needs_sign_in_message(&self.config.name, true, Some(&e.to_string()))
            } else {
                format!("the server refused the credentials during a call: {e}")
            };
            let tools = self.state().tools;
            self.state.send_replace(ServerState {
                status: McpServerStatus::NeedsAuth,
                message: Some(message.clone()),
                tools,
            });
            self.emit();
            return CallError::NeedsAuth { server, message };
        }
        match e {
            ServiceError::TransportClosed => CallError::Closed { server },
            ServiceError::Timeout { timeout } => CallError::Timeout { server, timeout },
            ServiceError::Cancelled { .. } => CallError::Cancelled,
            other => CallError::Protocol {
                server,
                message: other.to_string(),
            },
        }
    }

    /// Sends one request with the per-call timeout, routing its progress to
    /// `progress` and cancelling it (with `notifications/cancelled`) when
    /// `cancel` fires.
    async fn request(
        &self,
        request: ClientRequest,
        progress: Option<&ProgressReporter>,
        cancel: &CancellationToken,
    ) -> Result<ServerResult, CallError> {
        let peer = self.peer().await?;
        let timeout = self.config.call_timeout;
        let handle = peer
            .send_request_with_option(request, PeerRequestOptions::with_timeout(timeout))
            .await
            .map_err(|e| self.map_error(e))?;
        // Removed (and its held value sent) when this call ends, however
        // it ends — also when its future is dropped.
        let _route = progress.map(|p| {
            let reporter = p.clone();
            let throttle = Throttle::new(
                PROGRESS_INTERVAL,
                move |param: ProgressNotificationParam| {
                    reporter.report(progress_payload(param));
                },
            );
            ProgressRoute::new(&self.progress, handle.progress_token.clone(), throttle)
        });
        let id = handle.id.clone();
        let result = tokio::select! {
            r = handle.await_response() => r.map_err(|e| self.map_error(e)),
            () = cancel.cancelled() => {
                let _ = peer
                    .send_notification(
                        rmcp::model::CancelledNotification::new(
                            rmcp::model::CancelledNotificationParam::new(
                                Some(id),
                                Some("cancelled by the user".into()),
                            ),
                        )
                        .into(),
                    )
                    .await;
                Err(CallError::Cancelled)
            }
        };
        // Every progress notification sent before the response has been
        // routed by now (`Routed` sees the stream in order); dropping the
        // route sends the newest held one.
        result
    }

    /// Calls tool `name` with `arguments`; the raw result as JSON
    /// (`content`, `structuredContent`, `isError`).
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Value,
        progress: Option<&ProgressReporter>,
        cancel: &CancellationToken,
    ) -> Result<Value, CallError> {
        let mut params = CallToolRequestParams::new(name.to_owned());
        if let Value::Object(map) = arguments {
            params = params.with_arguments(map);
        }
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        match self.request(request, progress, cancel).await? {
            ServerResult::CallToolResult(r) => {
                serde_json::to_value(r).map_err(|e| CallError::Protocol {
                    server: self.config.name.clone(),
                    message: format!("unreadable tools/call result: {e}"),
                })
            }
            other => Err(CallError::Protocol {
                server: self.config.name.clone(),
                message: format!("unexpected answer to tools/call: {}", variant_name(&other)),
            }),
        }
    }

    /// `resources/list` (all pages), as JSON objects.
    pub async fn list_resources(&self) -> Result<Vec<Value>, CallError> {
        let peer = self.peer().await?;
        let timeout = self.config.call_timeout;
        let resources = tokio::time::timeout(timeout, peer.list_all_resources())
            .await
            .map_err(|_| CallError::Timeout {
                server: self.config.name.clone(),
                timeout,
            })?
            .map_err(|e| self.map_error(e))?;
        Ok(resources
            .iter()
            .filter_map(|r| serde_json::to_value(r).ok())
            .collect())
    }

    /// `resources/read` of `uri`, as JSON (`contents`).
    pub async fn read_resource(
        &self,
        uri: &str,
        cancel: &CancellationToken,
    ) -> Result<Value, CallError> {
        let peer = self.peer().await?;
        let timeout = self.config.call_timeout;
        let read = peer.read_resource(ReadResourceRequestParams::new(uri));
        let r = tokio::select! {
            r = tokio::time::timeout(timeout, read) => r,
            () = cancel.cancelled() => return Err(CallError::Cancelled),
        };
        let r = r
            .map_err(|_| CallError::Timeout {
                server: self.config.name.clone(),
                timeout,
            })?
            .map_err(|e| self.map_error(e))?;
        serde_json::to_value(r).map_err(|e| CallError::Protocol {
            server: self.config.name.clone(),
            message: format!("unreadable resources/read result: {e}"),
        })
    }

    /// Whether the server answered `initialize` with resource support.
    pub fn supports_resources(&self) -> bool {
        self.peer
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .and_then(Peer::peer_info)
            .is_some_and(|info| info.capabilities.resources.is_some())
    }
}

/// One call's entry in [`ProgressRoutes`]; dropping it removes the entry
/// and finishes the throttle (its held value goes out).
struct ProgressRoute<'a> {
    routes: &'a ProgressRoutes,
    token: rmcp::model::ProgressToken,
    throttle: Throttle<ProgressNotificationParam>,
}

impl<'a> ProgressRoute<'a> {
    fn new(
        routes: &'a ProgressRoutes,
        token: rmcp::model::ProgressToken,
        throttle: Throttle<ProgressNotificationParam>,
    ) -> Self {
        routes
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(token.clone(), throttle.clone());
        Self {
            routes,
            token,
            throttle,
        }
    }
}

impl Drop for ProgressRoute<'_> {
    fn drop(&mut self) {
        self.routes
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&self.token);
        self.throttle.finish();
    }
}

fn variant_name(result: &ServerResult) -> String {
    serde_json::to_value(result)
        .ok()
        .and_then(|v| {
            v.as_object()
                .map(|o| o.keys().cloned().collect::<Vec<_>>().join(","))
        })
        .unwrap_or_else(|| "?".into())
}

/// Every page of `tools/list`, within [`MAX_TOOL_PAGES`], [`MAX_TOOLS`] and
/// [`MAX_LISTING_BYTES`] (a server is outside input: it could hand out
/// cursors forever, or a million tools).
async fn list_all_tools(peer: &Peer<RoleClient>) -> Result<Vec<rmcp::model::Tool>, String> {
    let mut tools = Vec::new();
    let mut bytes = 0_usize;
    let mut cursor = None;
    for _ in 0..MAX_TOOL_PAGES {
        let params = cursor
            .take()
            .map(|c| PaginatedRequestParams::default().with_cursor(Some(c)));
        let page = peer
            .list_tools(params)
            .await
            .map_err(|e| format!("tools/list failed: {e}"))?;
        bytes += serde_json::to_string(&page.tools).map_or(0, |t| t.len());
        tools.extend(page.tools);
        if tools.len() > MAX_TOOLS {
            return Err(format!(
                "tools/list gave more than {MAX_TOOLS} tools, more than Gatehouse takes from one server"
            ));
        }
        if bytes > MAX_LISTING_BYTES {
            return Err(format!(
                "tools/list gave more than {} MiB of tool definitions, more than Gatehouse takes from one server",
                MAX_LISTING_BYTES / (1024 * 1024)
            ));
        }
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => return Ok(tools),
        }
    }
    Err(format!(
        "tools/list had more than {MAX_TOOL_PAGES} pages (the server keeps handing out cursors)"
    ))
}
