//! OAuth sign-in and sign-out of a project's HTTP MCP servers, for
//! `gatehouse-cli mcp login|logout` and the app's `mcp_sign_in` /
//! `mcp_sign_out`: find the server in the project's configuration, run
//! `gatehouse_mcp::auth` with the OS keychain (the same store as the API
//! keys). The flow itself, and where tokens live, is in `gatehouse_mcp::auth`.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use gatehouse_agent::keychain::Keychain;
use gatehouse_mcp::auth::{self, SignedIn};
use gatehouse_mcp::config::{self, ConfigLayout};
use gatehouse_mcp::secrets::SecretLookup;
use gatehouse_mcp::{McpConfig, ServerConfig};

use crate::mcp::KeychainSecrets;

// For front ends without a direct gatehouse-mcp dependency (the app).
pub use gatehouse_mcp::auth::{DEFAULT_SIGN_IN_TIMEOUT, Opener, system_opener};

/// The outcome of a sign-out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedOut {
    /// The server's name.
    pub server: String,
    /// The server's URL.
    pub url: String,
    /// Whether tokens were stored (and are now deleted).
    pub signed_out: bool,
}

/// The OS keychain as a secret store for OAuth tokens.
pub fn keychain() -> Result<Arc<dyn SecretLookup>, String> {
    let store = Keychain::open()
        .require()
        .map_err(|e| format!("no keychain to keep MCP sign-in tokens in: {e}"))?;
    Ok(Arc::new(KeychainSecrets(Keychain::Os(store))))
}

/// [`keychain`], opened on a blocking thread (it talks to D-Bus or the
/// kernel), for the async sign-in and sign-out.
async fn open_keychain() -> Result<Arc<dyn SecretLookup>, String> {
    tokio::task::spawn_blocking(keychain)
        .await
        .map_err(|e| format!("the keychain task failed: {e}"))?
}

/// The MCP configuration of `project` (with `home`'s user files).
pub fn load_config(project: &Path, home: &Path) -> McpConfig {
    config::load(&ConfigLayout {
        project: project.to_path_buf(),
        home: home.to_path_buf(),
    })
}

/// [`load_config`] on a blocking thread, for the async sign-in and sign-out.
async fn load_config_off_runtime(project: &Path, home: &Path) -> McpConfig {
    config::load_off_runtime(&ConfigLayout {
        project: project.to_path_buf(),
        home: home.to_path_buf(),
    })
    .await
}

/// The server called `name` in `cfg`, when it signs in with OAuth.
pub fn oauth_server<'a>(
    cfg: &'a McpConfig,
    project: &Path,
    name: &str,
) -> Result<&'a ServerConfig, String> {
    let server = cfg.servers.iter().find(|s| s.name == name).ok_or_else(|| {
        format!(
            "no MCP server named `{name}` is configured for {} (its .mcp.json, ~/.claude.json, ~/.gatehouse/mcp.json)",
            project.display()
        )
    })?;
    if auth::oauth_url(server).is_none() {
        return Err(format!(
            "MCP server `{name}` ({}) does not sign in with OAuth: only HTTP servers without an Authorization header do",
            server.file.display()
        ));
    }
    Ok(server)
}

/// Signs in to server `name` of `project`: `opener` gets the authorize
/// URL; the browser's redirect must come back within `timeout`.
pub async fn sign_in(
    project: &Path,
    home: &Path,
    name: &str,
    opener: &Opener,
    timeout: Duration,
) -> Result<SignedIn, String> {
    let cfg = load_config_off_runtime(project, home).await;
    let server = oauth_server(&cfg, project, name)?;
    let secrets = open_keychain().await?;
    auth::sign_in(server, secrets, opener, timeout)
        .await
        .map_err(|e| e.to_string())
}

/// Deletes the stored sign-in of server `name` of `project`.
pub async fn sign_out(project: &Path, home: &Path, name: &str) -> Result<SignedOut, String> {
    let cfg = load_config_off_runtime(project, home).await;
    let server = oauth_server(&cfg, project, name)?;
    let url = auth::oauth_url(server).unwrap_or_default().to_owned();
    let secrets = open_keychain().await?;
    let signed_out = auth::sign_out(server, secrets).await?;
    Ok(SignedOut {
        server: name.to_owned(),
        url,
        signed_out,
    })
}
