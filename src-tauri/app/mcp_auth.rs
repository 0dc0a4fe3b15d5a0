//! Handlers of `mcp_sign_in` / `mcp_sign_out`: OAuth sign-in to a project's
//! HTTP MCP servers. The flow and the keychain storage live in
//! `gatehouse_session::mcp_auth` and `gatehouse_mcp::auth`; this maps the
//! arguments, opens the OS browser and reconnects open sessions' servers.

use std::path::PathBuf;
use std::time::Duration;

use gatehouse_protocol::command::CommandError;
use gatehouse_protocol::mcp_auth::{McpServerArgs, McpSignInResult, McpSignOutResult};
use gatehouse_session::mcp_auth::{self, DEFAULT_SIGN_IN_TIMEOUT, system_opener};
use tauri::State;

use crate::AppState;
use crate::commands::{CommandResult, home};

// Blocks a command thread until the browser's redirect arrives (or the
// timeout); the tokens never leave the runtime crates.
#[tauri::command(async)]
pub(crate) fn mcp_sign_in(
    state: State<'_, AppState>,
    args: McpServerArgs,
) -> CommandResult<McpSignInResult> {
    let project = PathBuf::from(&args.project);
    let home = home(&state);
    let opener = system_opener();
    let timeout: Duration = DEFAULT_SIGN_IN_TIMEOUT;
    let done = state
        .runtime
        .block_on(mcp_auth::sign_in(
            &project,
            &home,
            &args.server,
            &opener,
            timeout,
        ))
        .map_err(CommandError::new)?;
    let reconnected = match &state.host {
        Ok(host) => host.reconnect_mcp_server(&project, &args.server),
        Err(_) => 0,
    };
    Ok(McpSignInResult {
        server: done.server,
        url: done.url,
        issuer: done.issuer,
        scopes: done.scopes,
        reconnected: u32::try_from(reconnected).unwrap_or(u32::MAX),
    })
}

#[tauri::command(async)]
pub(crate) fn mcp_sign_out(
    state: State<'_, AppState>,
    args: McpServerArgs,
) -> CommandResult<McpSignOutResult> {
    let project = PathBuf::from(&args.project);
    let home = home(&state);
    let done = state
        .runtime
        .block_on(mcp_auth::sign_out(&project, &home, &args.server))
        .map_err(CommandError::new)?;
    Ok(McpSignOutResult {
        server: done.server,
        url: done.url,
        signed_out: done.signed_out,
    })
}
