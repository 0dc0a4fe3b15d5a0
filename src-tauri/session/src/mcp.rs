//! MCP servers of a session: which of the configured servers may start
//! (project servers need trust or a stored approval), with secret headers
//! looked up in the OS keychain. Shared by the host and `gatehouse-cli mcp`.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use gatehouse_agent::keychain::Keychain;
use gatehouse_agent::keys::KeyStore;
use gatehouse_core::events::Emitter;
use gatehouse_core::permission::PermissionResolver;
use gatehouse_core::runtime::PoolRefresh;
use gatehouse_core::{Tool, ToolPool};
use gatehouse_mcp::config::ServerTransport;
use gatehouse_mcp::secrets::{
    MemorySecrets, NoSecrets, SecretKind, SecretLookup, server_secret_account,
};
use gatehouse_mcp::server::McpServer;
use gatehouse_mcp::{McpConfig, McpManager, ServerConfig, ServerOptions};
use gatehouse_protocol::event::McpServerStatus;
use gatehouse_store::Store;

/// The OS keychain as MCP's secret store (the same store as the API keys);
/// without one it finds nothing and refuses to store, saying why.
#[derive(Debug)]
pub struct KeychainSecrets(pub Keychain);

impl SecretLookup for KeychainSecrets {
    fn get(&self, account: &str) -> Result<Option<String>, String> {
        self.0.get(account)
    }

    // OAuth tokens are written at sign-in and refresh, deleted at sign-out.
    fn set(&self, account: &str, secret: &str) -> Result<(), String> {
        self.0.set(account, secret)
    }

    fn delete(&self, account: &str) -> Result<(), String> {
        self.0.delete(account)
    }
}

/// The project servers of `cfg` the user approved for `project` (stored
/// approvals of the server's current fingerprint; a changed `.mcp.json`
/// needs a new approval).
pub fn approved_servers(cfg: &McpConfig, project: &Path, store: &Store) -> HashSet<String> {
    let project_text = project.to_string_lossy();
    cfg.servers
        .iter()
        .filter(|s| s.scope.needs_approval())
        .filter(|s| {
            store
                .is_mcp_server_approved(&project_text, &s.name, &s.fingerprint())
                .unwrap_or(false)
        })
        .map(|s| s.name.clone())
        .collect()
}

/// Starts the servers of `cfg` for a session in `project`: project servers
/// only when `trust_project` or named in `approved`. Must run in a Tokio
/// runtime; waits up to `limit` for them to connect. Returns the manager
/// and a warning when the keychain (needed for secret headers) is missing.
pub async fn start_servers(
    cfg: &McpConfig,
    project: &Path,
    approved: &HashSet<String>,
    trust_project: bool,
    emitter: Emitter,
    limit: Duration,
) -> (McpManager, Option<String>) {
    let (secrets, warning) = session_secrets(cfg).await;
    let secrets = secrets.unwrap_or_else(|| Arc::new(NoSecrets));
    let manager = start_servers_with_secrets(
        cfg,
        project,
        approved,
        trust_project,
        emitter,
        limit,
        secrets,
    )
    .await;
    (manager, warning)
}

/// The secrets the servers of `cfg` need, read from the keychain now
/// (`None` when none needs any: secret headers, secret env values and OAuth
/// tokens of HTTP servers without an Authorization header), and a warning
/// when the keychain is missing or a value could not be read.
pub async fn session_secrets(cfg: &McpConfig) -> (Option<Arc<dyn SecretLookup>>, Option<String>) {
    let needs_keychain = cfg.servers.iter().any(|s| {
        gatehouse_mcp::auth::oauth_url(s).is_some()
            || match &s.transport {
                ServerTransport::Http { secret_headers, .. } => !secret_headers.is_empty(),
                ServerTransport::Stdio { secret_env, .. } => !secret_env.is_empty(),
            }
    });
    if !needs_keychain {
        return (None, None);
    }
    match read_keychain(cfg).await {
        Ok((keychain, values, problems)) => (
            Some(Arc::new(SessionSecrets {
                values: Mutex::new(values),
                keychain,
            })),
            (!problems.is_empty()).then(|| problems.join("; ")),
        ),
        Err(e) => (
            Some(Arc::new(NoSecrets)),
            Some(format!(
                "no keychain for MCP secret headers, env values and OAuth tokens: {e}"
            )),
        ),
    }
}

/// A session's MCP secrets: the values read up front by [`read_secrets`],
/// with OAuth token writes (refresh, sign-in) going to the keychain too, and
/// a value missing from the snapshot (tokens stored by a sign-in after the
/// session started) looked up in the keychain once.
struct SessionSecrets {
    values: Mutex<MemorySecrets>,
    keychain: KeychainSecrets,
}

impl SessionSecrets {
    fn values(&self) -> std::sync::MutexGuard<'_, MemorySecrets> {
        // The map stays consistent whatever a panicking holder did.
        self.values.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl SecretLookup for SessionSecrets {
    fn get(&self, account: &str) -> Result<Option<String>, String> {
        if let Some(value) = self.values().0.get(account) {
            return Ok(Some(value.clone()));
        }
        let found = self.keychain.get(account)?;
        if let Some(value) = &found {
            self.values().0.insert(account.to_owned(), value.clone());
        }
        Ok(found)
    }

    fn set(&self, account: &str, secret: &str) -> Result<(), String> {
        self.keychain.set(account, secret)?;
        self.values()
            .0
            .insert(account.to_owned(), secret.to_owned());
        Ok(())
    }

    fn delete(&self, account: &str) -> Result<(), String> {
        self.keychain.delete(account)?;
        self.values().0.remove(account);
        Ok(())
    }
}

/// Opens the OS keychain and reads every value the servers of `cfg` name
/// ([`read_secrets`]), both on one blocking thread: keychain calls block
/// (D-Bus, the kernel), and the keyutils store answers only the thread that
/// opened it. Returns the keychain, the values and the read errors; `Err`
/// when there is no keychain (the reason).
pub async fn read_keychain(
    cfg: &McpConfig,
) -> Result<(KeychainSecrets, MemorySecrets, Vec<String>), String> {
    let cfg = cfg.clone();
    tokio::task::spawn_blocking(move || {
        let keychain = KeychainSecrets(Keychain::Os(Keychain::open().require()?));
        let (values, problems) = read_secrets(&cfg, &keychain);
        Ok((keychain, values, problems))
    })
    .await
    .map_err(|e| format!("the keychain task failed: {e}"))?
}

/// Reads every keychain value the servers of `cfg` name, now, on this
/// thread. The kernel keyutils store answers only the thread that opened
/// it, while servers connect (and reconnect) on runtime worker threads; a
/// snapshot also means one keychain read per secret per session. Returns
/// the values found and the read errors (no secret bytes in them).
pub fn read_secrets(cfg: &McpConfig, keychain: &dyn SecretLookup) -> (MemorySecrets, Vec<String>) {
    let mut found = MemorySecrets::default();
    let mut problems = Vec::new();
    // `what` names the value in a read error (never the value itself).
    let mut read = |account: String, what: String, server: &str| match keychain.get(&account) {
        Ok(Some(value)) => {
            found.0.insert(account, value);
        }
        Ok(None) => {}
        Err(e) => problems.push(format!(
            "cannot read {what} of MCP server `{server}` from the keychain: {e}"
        )),
    };
    for server in &cfg.servers {
        if let Some(url) = gatehouse_mcp::auth::oauth_url(server) {
            let account = gatehouse_mcp::auth::oauth_account(url);
            read(account, "the OAuth sign-in".into(), &server.name);
        }
        let (kind, names) = match &server.transport {
            ServerTransport::Http { secret_headers, .. } => (SecretKind::Header, secret_headers),
            ServerTransport::Stdio { secret_env, .. } => (SecretKind::Env, secret_env),
        };
        for name in names {
            if let Some(account) = server_secret_account(server, kind, name) {
                read(account, format!("`{name}`"), &server.name);
            }
        }
    }
    (found, problems)
}

/// [`start_servers`] with the secret store given (the app's MCP panel
/// passes the keychain it already opened; tests pass a memory store).
pub async fn start_servers_with_secrets(
    cfg: &McpConfig,
    project: &Path,
    approved: &HashSet<String>,
    trust_project: bool,
    emitter: Emitter,
    limit: Duration,
    secrets: Arc<dyn SecretLookup>,
) -> McpManager {
    let may_start = |s: &ServerConfig| trust_project || approved.contains(&s.name);
    let manager = McpManager::start(
        cfg,
        &ServerOptions {
            cwd: project.to_path_buf(),
            secrets,
            emitter,
        },
        &may_start,
    );
    manager.settled(limit).await;
    manager
}

/// A session's MCP tools as their servers change them
/// (`notifications/tools/list_changed`, a reconnect, the configuration
/// applied anew: [`McpManager::apply`]): before each model request the
/// runtime asks it, and when a connected server's list differs from the one
/// last seen the pool is rebuilt keeping its order — tools keep their
/// positions, new ones are appended by name, dropped ones are taken out (a
/// call to one is told it was removed). A server that is not connected
/// right now (restarting, failed) keeps its tools in the pool: its calls
/// wait for the reconnect or fail with the server's error. A server that
/// was removed, disabled, or replaced by a new configuration loses the
/// tools of its old connection.
pub struct McpToolRefresh {
    manager: Arc<McpManager>,
    /// Per server: which server object it was (a replaced server is a new
    /// one) and the qualified tool names it listed when last seen connected.
    known: Mutex<HashMap<String, (usize, HashSet<String>)>>,
    /// The two resource tools, in the pool while any server is configured.
    resources: Mutex<HashSet<String>>,
}

impl std::fmt::Debug for McpToolRefresh {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpToolRefresh").finish_non_exhaustive()
    }
}

fn tool_names(tools: &[Arc<dyn Tool>]) -> HashSet<String> {
    tools.iter().map(|t| t.name().to_owned()).collect()
}

/// A connected server and its tools.
type ServerTools = (Arc<McpServer>, Vec<Arc<dyn Tool>>);

/// Identifies a server object (a server replaced by [`McpManager::apply`]
/// is a new object with the same name).
fn identity(server: &Arc<McpServer>) -> usize {
    Arc::as_ptr(server) as usize
}

impl McpToolRefresh {
    /// Follows `manager`'s servers; also returns their tools now, which the
    /// session's first pool is built from (with the manager's
    /// `resource_tools` among the built-ins).
    pub fn new(manager: Arc<McpManager>) -> (Self, Vec<Arc<dyn Tool>>) {
        let mut known = HashMap::new();
        let mut tools = Vec::new();
        for (server, list) in Self::listing(&manager) {
            known.insert(
                server.name().to_owned(),
                (identity(&server), tool_names(&list)),
            );
            tools.extend(list);
        }
        let resources = tool_names(&manager.resource_tools());
        (
            Self {
                manager,
                known: Mutex::new(known),
                resources: Mutex::new(resources),
            },
            tools,
        )
    }

    /// The connected servers with their tools.
    fn listing(manager: &McpManager) -> Vec<ServerTools> {
        let tools = manager.tools_by_server();
        manager
            .servers()
            .connected()
            .into_iter()
            .filter_map(|server| {
                let list = tools
                    .iter()
                    .find(|(name, _)| name == server.name())?
                    .1
                    .clone();
                Some((server, list))
            })
            .collect()
    }
}

impl PoolRefresh for McpToolRefresh {
    fn refresh(&self, current: &ToolPool, resolver: &dyn PermissionResolver) -> Option<ToolPool> {
        let mut known = self.known.lock().unwrap_or_else(|p| p.into_inner());
        let mut changed = false;
        let mut removed = HashSet::new();
        let mut incoming = Vec::new();
        // Servers gone, disabled or replaced: their old tools go.
        let servers = self.manager.servers().all();
        known.retain(|name, (id, old)| {
            let same = servers.iter().find(|s| s.name() == name).is_some_and(|s| {
                identity(s) == *id
                    && !matches!(
                        s.state().status,
                        McpServerStatus::Disabled | McpServerStatus::AwaitingApproval
                    )
            });
            if !same {
                removed.extend(old.drain());
                changed = true;
            }
            same
        });
        for (server, tools) in Self::listing(&self.manager) {
            let names = tool_names(&tools);
            match known.get(server.name()) {
                Some((_, old)) if *old == names => {}
                Some((_, old)) => {
                    removed.extend(old.difference(&names).cloned());
                    changed = true;
                }
                None => changed = true,
            }
            known.insert(server.name().to_owned(), (identity(&server), names));
            incoming.extend(tools);
        }
        // The resource tools come with the first server and go with the last.
        let resource_tools = self.manager.resource_tools();
        let names = tool_names(&resource_tools);
        let mut resources = self.resources.lock().unwrap_or_else(|p| p.into_inner());
        if *resources != names {
            removed.extend(resources.difference(&names).cloned());
            *resources = names;
            changed = true;
        }
        incoming.extend(resource_tools);
        // A name listed again (a replaced server's same tool) is not removed.
        for tool in &incoming {
            removed.remove(tool.name());
        }
        changed.then(|| current.refreshed(resolver, &removed, incoming))
    }
}
