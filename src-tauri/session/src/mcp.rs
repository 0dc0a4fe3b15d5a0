//! MCP servers of a session: which of the configured servers may start
//! (project servers need trust or a stored approval), with secret headers
//! looked up in the OS keychain. Shared by the host and `gatehouse-cli mcp`.

use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use gatehouse_agent::keychain::OsKeyStore;
use gatehouse_agent::keys::KeyStore;
use gatehouse_core::events::Emitter;
use gatehouse_mcp::config::ServerTransport;
use gatehouse_mcp::secrets::{NoSecrets, SecretLookup};
use gatehouse_mcp::{McpConfig, McpManager, ServerConfig, ServerOptions};
use gatehouse_store::Store;

/// The OS keychain as MCP's secret lookup (the same store as the API keys).
pub(crate) struct KeychainSecrets(pub(crate) OsKeyStore);

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
    // Secret headers and OAuth tokens (HTTP servers without an
    // Authorization header) come from the keychain.
    let needs_keychain = cfg.servers.iter().any(|s| {
        matches!(&s.transport, ServerTransport::Http { secret_headers, .. } if !secret_headers.is_empty())
            || gatehouse_mcp::auth::oauth_url(s).is_some()
    });
    let mut warning = None;
    let secrets: Arc<dyn SecretLookup> = if needs_keychain {
        match OsKeyStore::open() {
            Ok(store) => Arc::new(KeychainSecrets(store)),
            Err(e) => {
                warning = Some(format!(
                    "no keychain for MCP secret headers and OAuth tokens: {e}"
                ));
                Arc::new(NoSecrets)
            }
        }
    } else {
        Arc::new(NoSecrets)
    };
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
    (manager, warning)
}
