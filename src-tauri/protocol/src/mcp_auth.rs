//! OAuth sign-in / sign-out of HTTP MCP servers (issue 8 item 5): the
//! arguments and results of `mcp_sign_in` and `mcp_sign_out`. No token,
//! secret or authorization code ever crosses to the front end.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Arguments of `mcp_sign_in` and `mcp_sign_out`: which server of which
/// project (the server as the project's MCP configuration names it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct McpServerArgs {
    /// The project folder whose configuration names the server.
    pub project: String,
    /// The server's name.
    pub server: String,
}

/// Result of `mcp_sign_in`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct McpSignInResult {
    /// The server's name.
    pub server: String,
    /// The server's URL.
    pub url: String,
    /// The authorization server that issued the tokens.
    pub issuer: Option<String>,
    /// The scopes granted.
    pub scopes: Vec<String>,
    /// Open sessions' copies of the server that were waiting for a sign-in
    /// and now connect again.
    pub reconnected: u32,
}

/// Result of `mcp_sign_out`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct McpSignOutResult {
    /// The server's name.
    pub server: String,
    /// The server's URL.
    pub url: String,
    /// Whether a sign-in was stored (and is now deleted from the keychain).
    pub signed_out: bool,
}
