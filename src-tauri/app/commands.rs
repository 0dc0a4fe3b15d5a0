//! One handler per command in `gatehouse_protocol::command`. Each takes its
//! argument struct as `args` and returns the declared result or a
//! [`CommandError`] whose message is shown to the user.

use std::path::PathBuf;
use std::sync::MutexGuard;

use gatehouse_protocol::command::{
    AddProjectArgs, CommandError, NoArgs, OpenProjectArgs, SmokeReportArgs,
};
use gatehouse_protocol::project::{AppInfo, Project};
use gatehouse_store::Store;
use tauri::State;
use tauri_plugin_dialog::DialogExt;

use crate::{AppState, TEST_PICK_FOLDER_ENV};

pub(crate) type CommandResult<T> = Result<T, CommandError>;

pub(crate) fn store<'a>(state: &'a State<'_, AppState>) -> CommandResult<MutexGuard<'a, Store>> {
    let store = state
        .store
        .as_ref()
        .map_err(|e| CommandError::new(e.clone()))?;
    // A poisoned lock only means another handler panicked mid-call; SQLite
    // transactions keep the data consistent, so carry on.
    Ok(store
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner()))
}

/// A database connection of the request's own, for work that reads or
/// writes much (a whole session's events or statistics, an export, an
/// import, a rule replay): SQLite in WAL mode serves it beside the shared
/// connection, so the rest of the UI is not held up meanwhile.
pub(crate) fn own_store(state: &State<'_, AppState>) -> CommandResult<Store> {
    // Fails like the shared store when the database could not be opened.
    state
        .store
        .as_ref()
        .map_err(|e| CommandError::new(e.clone()))?;
    Store::open(&PathBuf::from(&state.info.data_dir)).map_err(error)
}

/// The home folder the session host reads settings and MCP servers from
/// (`$HOME` when sessions cannot run).
pub(crate) fn home(state: &State<'_, AppState>) -> PathBuf {
    match &state.host {
        Ok(host) => host.home().to_path_buf(),
        Err(_) => gatehouse_session::mcp_panel::home_dir(),
    }
}

pub(crate) fn error(err: impl std::fmt::Display) -> CommandError {
    CommandError::new(err.to_string())
}

#[tauri::command(async)]
pub(crate) fn app_info(state: State<'_, AppState>, args: NoArgs) -> AppInfo {
    let NoArgs {} = args;
    state.info.clone()
}

#[tauri::command(async)]
pub(crate) fn list_projects(
    state: State<'_, AppState>,
    args: NoArgs,
) -> CommandResult<Vec<Project>> {
    let NoArgs {} = args;
    store(&state)?.list_projects().map_err(error)
}

#[tauri::command(async)]
pub(crate) fn add_project(
    state: State<'_, AppState>,
    args: AddProjectArgs,
) -> CommandResult<Project> {
    store(&state)?
        .add_project(&PathBuf::from(args.path))
        .map_err(error)
}

#[tauri::command(async)]
pub(crate) fn open_project(
    state: State<'_, AppState>,
    args: OpenProjectArgs,
) -> CommandResult<Project> {
    store(&state)?.open_project(args.id).map_err(error)
}

#[tauri::command(async)]
pub(crate) fn pick_folder(app: tauri::AppHandle, args: NoArgs) -> CommandResult<Option<String>> {
    let NoArgs {} = args;
    if let Some(path) = std::env::var_os(TEST_PICK_FOLDER_ENV) {
        return Ok(Some(path.to_string_lossy().into_owned()));
    }
    // `async` commands run off the main thread, so blocking here is fine.
    let Some(picked) = app
        .dialog()
        .file()
        .set_title("Open folder")
        .blocking_pick_folder()
    else {
        return Ok(None);
    };
    let path = picked.into_path().map_err(error)?;
    Ok(Some(path.display().to_string()))
}

#[tauri::command(async)]
pub(crate) fn smoke_report(app: tauri::AppHandle, args: SmokeReportArgs) {
    crate::smoke::finish(&app, args.ok, &args.detail);
}
