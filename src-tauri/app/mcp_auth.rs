//! Handlers of `mcp_sign_in` / `mcp_sign_out`: OAuth sign-in to a project's
//! HTTP MCP servers. The flow and the keychain storage live in
//! `gatehouse_session::mcp_auth` and `gatehouse_mcp::auth`; this maps the
//! arguments, opens the OS browser and reconnects open sessions' servers.
//!
//! The handlers are async and the flow runs on the session runtime as a
//! task: waiting for the browser's redirect holds no thread (it used to be
//! `Runtime::block_on` inside a handler already on a Tokio worker, which
//! panicked, so the window's promise never settled).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use gatehouse_protocol::command::CommandError;
use gatehouse_protocol::mcp_auth::{McpServerArgs, McpSignInResult, McpSignOutResult};
use gatehouse_session::SessionHost;
use gatehouse_session::mcp_auth::{self, DEFAULT_SIGN_IN_TIMEOUT, Opener, system_opener};
use tauri::State;

use crate::AppState;
use crate::commands::{CommandResult, error, home};

/// Environment variable that replaces the OS browser of `mcp_sign_in` with
/// an HTTP client that follows the authorize URL's redirect to the loopback
/// callback, as a browser whose user approves would (e2e tests only; it
/// follows `http://` URLs on 127.0.0.1/localhost only).
pub const TEST_FOLLOW_SIGN_IN_ENV: &str = "GATEHOUSE_TEST_FOLLOW_SIGN_IN";

/// The opener of a sign-in: the OS browser, or the test client.
fn opener() -> Opener {
    if std::env::var_os(TEST_FOLLOW_SIGN_IN_ENV).is_some() {
        return crate::test_browser::opener();
    }
    system_opener()
}

/// `mcp_sign_in` without Tauri: the sign-in of server `server` of
/// `project` runs on `runtime` (the session runtime) and this awaits it;
/// then `host`'s open sessions of the project reconnect the server.
pub(crate) async fn sign_in(
    runtime: &tokio::runtime::Handle,
    host: Option<Arc<SessionHost>>,
    home: PathBuf,
    args: McpServerArgs,
    opener: Opener,
    timeout: Duration,
) -> CommandResult<McpSignInResult> {
    let project = PathBuf::from(&args.project);
    let flow = {
        let project = project.clone();
        async move { mcp_auth::sign_in(&project, &home, &args.server, &opener, timeout).await }
    };
    // The tokens never leave the runtime crates.
    let done = runtime
        .spawn(flow)
        .await
        .map_err(error)?
        .map_err(CommandError::new)?;
    let reconnected = match host {
        Some(host) => host.reconnect_mcp_server(&project, &done.server),
        None => 0,
    };
    Ok(McpSignInResult {
        server: done.server,
        url: done.url,
        issuer: done.issuer,
        scopes: done.scopes,
        reconnected: u32::try_from(reconnected).unwrap_or(u32::MAX),
    })
}

#[tauri::command]
pub(crate) async fn mcp_sign_in(
    state: State<'_, AppState>,
    args: McpServerArgs,
) -> CommandResult<McpSignInResult> {
    sign_in(
        state.runtime.handle(),
        state.host.as_ref().ok().cloned(),
        home(&state),
        args,
        opener(),
        DEFAULT_SIGN_IN_TIMEOUT,
    )
    .await
}

#[tauri::command]
pub(crate) async fn mcp_sign_out(
    state: State<'_, AppState>,
    args: McpServerArgs,
) -> CommandResult<McpSignOutResult> {
    let project = PathBuf::from(&args.project);
    let home = home(&state);
    let done = state
        .runtime
        .spawn(async move { mcp_auth::sign_out(&project, &home, &args.server).await })
        .await
        .map_err(error)?
        .map_err(CommandError::new)?;
    Ok(McpSignOutResult {
        server: done.server,
        url: done.url,
        signed_out: done.signed_out,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    /// Tauri runs an async handler's future on a worker of its own
    /// multi-threaded runtime; the session runtime is another one. The
    /// sign-in must settle there (here: fail at once, naming the server
    /// that is not configured) rather than panic with "Cannot start a
    /// runtime from within a runtime", as the blocking handler did.
    #[test]
    fn a_sign_in_from_a_handler_on_a_tokio_worker_settles_instead_of_panicking() {
        let sessions = tokio::runtime::Runtime::new().unwrap();
        let handlers = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let project = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let args = McpServerArgs {
            project: project.path().display().to_string(),
            server: "web".into(),
        };
        let runtime = sessions.handle().clone();
        let home_path = home.path().to_path_buf();
        let opener: Opener = Arc::new(|_url: &str| Ok(()));
        let settled = handlers.block_on(async move {
            tokio::spawn(async move {
                sign_in(
                    &runtime,
                    None,
                    home_path,
                    args,
                    opener,
                    Duration::from_secs(5),
                )
                .await
            })
            .await
        });
        let result = settled.expect("the handler's task did not panic");
        let err = result.expect_err("no server `web` is configured");
        assert!(
            err.message.contains("no MCP server named `web`"),
            "{}",
            err.message
        );
    }
}
