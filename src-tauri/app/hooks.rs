//! Handlers of the Hooks view's commands: each maps its arguments onto
//! `gatehouse_session::hooks_editor`, which holds the logic. Files are read
//! and written on blocking threads; a test run is a task of the session
//! runtime (its process is awaited with async I/O). After a save, open
//! sessions read their settings again, and their hooks with them.

use std::path::PathBuf;
use std::sync::Arc;

use gatehouse_protocol::command::CommandError;
use gatehouse_protocol::event::SettingsReloadTrigger;
use gatehouse_protocol::hooks::{
    HookSaveOutcome, HookTestResult, HooksProjectArgs, HooksView, SaveHookEditArgs, TestHookArgs,
};
use gatehouse_protocol::project::Project;
use gatehouse_session::hooks_editor;
use tauri::State;

use crate::AppState;
use crate::commands::{CommandResult, blocking, error, home, with_store};

/// The project's row, read on a blocking thread.
async fn project(state: &State<'_, AppState>, id: i64) -> CommandResult<Project> {
    with_store(state, move |store| {
        store
            .project(id)
            .map_err(error)?
            .ok_or_else(|| CommandError::new(format!("no project with id {id}")))
    })
    .await
}

#[tauri::command]
pub(crate) async fn hooks_view(
    state: State<'_, AppState>,
    args: HooksProjectArgs,
) -> CommandResult<HooksView> {
    let project = project(&state, args.project_id).await?;
    let home = home(&state);
    blocking(move || Ok::<_, String>(hooks_editor::hooks_view(&project, &home))).await
}

#[tauri::command]
pub(crate) async fn save_hook_edit(
    state: State<'_, AppState>,
    args: SaveHookEditArgs,
) -> CommandResult<HookSaveOutcome> {
    let project = project(&state, args.project_id).await?;
    let home = home(&state);
    let outcome = blocking(move || hooks_editor::save_edit(&project, &home, &args)).await?;
    if let (HookSaveOutcome::Saved { .. }, Ok(host)) = (&outcome, &state.host) {
        let host = Arc::clone(host);
        // Reading the settings files again blocks; the save itself already
        // succeeded whatever happens here.
        if let Err(e) = blocking(move || {
            host.reload_settings(SettingsReloadTrigger::HooksSaved);
            Ok::<_, String>(())
        })
        .await
        {
            eprintln!(
                "gatehouse: telling open sessions about saved hooks: {}",
                e.message
            );
        }
    }
    Ok(outcome)
}

#[tauri::command]
pub(crate) async fn test_hook(
    state: State<'_, AppState>,
    args: TestHookArgs,
) -> CommandResult<HookTestResult> {
    let project = project(&state, args.project_id).await?;
    let dir = PathBuf::from(&project.path);
    state
        .runtime
        .spawn(async move { hooks_editor::test_hook(&dir, &args).await })
        .await
        .map_err(|e| CommandError::new(format!("the hook test run failed: {e}")))?
        .map_err(error)
}
