//! Handlers of the MCP panel's commands: each maps its arguments onto
//! `gatehouse_session::mcp_panel` (where the logic and its tests live).
//! Secret values in a saved draft go from the argument to the keychain
//! only: never logged, emitted or returned. Files, the database and the
//! keychain are used on a blocking thread (the keychain opened on the
//! thread that uses it); a probe's servers connect on the session runtime.

use std::path::Path;
use std::time::Duration;

use gatehouse_protocol::mcp::{
    McpPanel, McpProjectArgs, McpSaveServerArgs, McpServerProbe, McpServerRefArgs,
    McpSetDisabledArgs,
};
use gatehouse_session::mcp_panel::{self, ConfigLayout};
use tauri::State;

use crate::AppState;
use crate::commands::{CommandResult, error, home, with_store};

/// How long a probe waits for servers to connect.
const PROBE_LIMIT: Duration = Duration::from_secs(20);

/// After an edit: open sessions start, stop or restart their servers to
/// match (`SessionHost::apply_mcp_config`, on the session runtime). The
/// edit itself succeeded whatever happens here; a session that cannot
/// follow says so in its own events.
async fn apply_to_open_sessions(state: &State<'_, AppState>) {
    let Ok(host) = &state.host else {
        return;
    };
    let host = std::sync::Arc::clone(host);
    let _ = state
        .runtime
        .spawn(async move { host.apply_mcp_config().await })
        .await;
}

fn layout(state: &State<'_, AppState>, project_path: &str) -> CommandResult<ConfigLayout> {
    mcp_panel::layout(Path::new(project_path), &home(state)).map_err(error)
}

#[tauri::command]
pub(crate) async fn mcp_servers(
    state: State<'_, AppState>,
    args: McpProjectArgs,
) -> CommandResult<McpPanel> {
    let layout = layout(&state, &args.project_path)?;
    with_store(&state, move |store| {
        CommandResult::Ok(mcp_panel::panel(
            &layout,
            store,
            mcp_panel::keychain().as_ref(),
        ))
    })
    .await
}

#[tauri::command]
pub(crate) async fn mcp_probe(
    state: State<'_, AppState>,
    args: McpProjectArgs,
) -> CommandResult<Vec<McpServerProbe>> {
    let layout = layout(&state, &args.project_path)?;
    // The store is not held while servers connect.
    let approved = {
        let layout = layout.clone();
        with_store(&state, move |store| {
            CommandResult::Ok(mcp_panel::approved(&layout, store))
        })
        .await?
    };
    state
        .runtime
        .spawn(async move { mcp_panel::probe_with_keychain(&layout, &approved, PROBE_LIMIT).await })
        .await
        .map_err(error)
}

#[tauri::command]
pub(crate) async fn mcp_save_server(
    state: State<'_, AppState>,
    args: McpSaveServerArgs,
) -> CommandResult<McpPanel> {
    let layout = layout(&state, &args.project_path)?;
    let panel = with_store(&state, move |store| {
        mcp_panel::save_server(
            &layout,
            args.scope,
            args.original_name.as_deref(),
            &args.draft,
            store,
            mcp_panel::keychain().as_ref(),
        )
    })
    .await?;
    apply_to_open_sessions(&state).await;
    Ok(panel)
}

#[tauri::command]
pub(crate) async fn mcp_remove_server(
    state: State<'_, AppState>,
    args: McpServerRefArgs,
) -> CommandResult<McpPanel> {
    let layout = layout(&state, &args.project_path)?;
    let panel = with_store(&state, move |store| {
        mcp_panel::remove_server(
            &layout,
            args.scope,
            &args.name,
            store,
            mcp_panel::keychain().as_ref(),
        )
    })
    .await?;
    apply_to_open_sessions(&state).await;
    Ok(panel)
}

#[tauri::command]
pub(crate) async fn mcp_set_server_disabled(
    state: State<'_, AppState>,
    args: McpSetDisabledArgs,
) -> CommandResult<McpPanel> {
    let layout = layout(&state, &args.project_path)?;
    let panel = with_store(&state, move |store| {
        mcp_panel::set_server_disabled(
            &layout,
            args.scope,
            &args.name,
            args.disabled,
            store,
            mcp_panel::keychain().as_ref(),
        )
    })
    .await?;
    apply_to_open_sessions(&state).await;
    Ok(panel)
}

#[tauri::command]
pub(crate) async fn mcp_approve_server(
    state: State<'_, AppState>,
    args: McpServerRefArgs,
) -> CommandResult<McpPanel> {
    let layout = layout(&state, &args.project_path)?;
    let panel = with_store(&state, move |store| {
        mcp_panel::approve_server(&layout, &args.name, store, mcp_panel::keychain().as_ref())
    })
    .await?;
    apply_to_open_sessions(&state).await;
    Ok(panel)
}
