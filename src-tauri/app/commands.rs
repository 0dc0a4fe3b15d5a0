//! One handler per command in `gatehouse_protocol::command`. Each takes its
//! argument struct as `args` and returns the declared result or a
//! [`CommandError`] whose message is shown to the user.
//!
//! Every handler is an `async fn` running on Tauri's async runtime (two
//! worker threads on a two-core machine), so none blocks it: SQLite,
//! keychain and file work goes to a blocking thread through
//! [`with_store`], [`with_own_store`] or [`blocking`]; native dialogs answer
//! through a callback.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use gatehouse_protocol::command::{
    AddProjectArgs, CommandError, NoArgs, OpenProjectArgs, SmokeReportArgs,
};
use gatehouse_protocol::project::{AppInfo, Project};
use gatehouse_store::Store;
use tauri::State;
use tauri_plugin_dialog::DialogExt;

use crate::{AppState, TEST_PICK_FOLDER_ENV};

pub(crate) type CommandResult<T> = Result<T, CommandError>;

/// The shared database connection, to hand to a blocking thread.
fn shared_store(state: &State<'_, AppState>) -> CommandResult<Arc<Mutex<Store>>> {
    state
        .store
        .as_ref()
        .map(Arc::clone)
        .map_err(|e| CommandError::new(e.clone()))
}

/// Runs `work` on a blocking thread (never on the async workers) and maps
/// its error into the message the user sees.
pub(crate) async fn blocking<T, E, F>(work: F) -> CommandResult<T>
where
    T: Send + 'static,
    E: std::fmt::Display,
    F: FnOnce() -> Result<T, E> + Send + 'static,
{
    tauri::async_runtime::spawn_blocking(move || work().map_err(error))
        .await
        .map_err(|e| CommandError::new(format!("a background task of the app failed: {e}")))?
}

/// Runs `work` with the shared database connection, locked, on a blocking
/// thread: the one way handlers use the shared store.
pub(crate) async fn with_store<T, E, F>(state: &State<'_, AppState>, work: F) -> CommandResult<T>
where
    T: Send + 'static,
    E: std::fmt::Display,
    F: FnOnce(&mut Store) -> Result<T, E> + Send + 'static,
{
    let store = shared_store(state)?;
    blocking(move || {
        // A poisoned lock only means another handler panicked mid-call;
        // SQLite transactions keep the data consistent, so carry on.
        let mut store = store
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        work(&mut store)
    })
    .await
}

/// Runs `work` on a blocking thread with a database connection of the
/// request's own, for work that reads or writes much (a whole session's
/// events or statistics, an export, an import, a rule replay, housekeeping):
/// SQLite in WAL mode serves it beside the shared connection, so the rest
/// of the UI is not held up meanwhile.
pub(crate) async fn with_own_store<T, E, F>(
    state: &State<'_, AppState>,
    work: F,
) -> CommandResult<T>
where
    T: Send + 'static,
    E: std::fmt::Display,
    F: FnOnce(&mut Store) -> Result<T, E> + Send + 'static,
{
    // Fails like the shared store when the database could not be opened.
    shared_store(state)?;
    let data_dir = PathBuf::from(&state.info.data_dir);
    blocking(move || {
        let mut store = Store::open(&data_dir).map_err(error)?;
        work(&mut store).map_err(error)
    })
    .await
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

#[tauri::command]
pub(crate) async fn app_info(state: State<'_, AppState>, args: NoArgs) -> CommandResult<AppInfo> {
    let NoArgs {} = args;
    Ok(state.info.clone())
}

#[tauri::command]
pub(crate) async fn list_projects(
    state: State<'_, AppState>,
    args: NoArgs,
) -> CommandResult<Vec<Project>> {
    let NoArgs {} = args;
    with_store(&state, |store| store.list_projects()).await
}

#[tauri::command]
pub(crate) async fn add_project(
    state: State<'_, AppState>,
    args: AddProjectArgs,
) -> CommandResult<Project> {
    let dir = PathBuf::from(&state.info.data_dir);
    with_store(&state, move |store| {
        let project = store.add_project(&PathBuf::from(args.path))?;
        crate::onboarding::remember_last_project(&dir, Some(&project.path));
        Ok::<_, gatehouse_store::StoreError>(project)
    })
    .await
}

#[tauri::command]
pub(crate) async fn open_project(
    state: State<'_, AppState>,
    args: OpenProjectArgs,
) -> CommandResult<Project> {
    let dir = PathBuf::from(&state.info.data_dir);
    with_store(&state, move |store| {
        let project = store.open_project(args.id)?;
        crate::onboarding::remember_last_project(&dir, Some(&project.path));
        Ok::<_, gatehouse_store::StoreError>(project)
    })
    .await
}

#[tauri::command]
pub(crate) async fn pick_folder(
    app: tauri::AppHandle,
    args: NoArgs,
) -> CommandResult<Option<String>> {
    let NoArgs {} = args;
    if let Some(path) = std::env::var_os(TEST_PICK_FOLDER_ENV) {
        return Ok(Some(path.to_string_lossy().into_owned()));
    }
    // The dialog answers through its callback; this task waits without
    // holding a worker thread.
    let (tx, rx) = tokio::sync::oneshot::channel();
    app.dialog()
        .file()
        .set_title("Open folder")
        .pick_folder(move |picked| {
            // The receiver is gone only when the command was dropped.
            let _ = tx.send(picked);
        });
    let picked = rx
        .await
        .map_err(|_| CommandError::new("the folder dialog closed without an answer"))?;
    let Some(picked) = picked else {
        return Ok(None);
    };
    let path = picked.into_path().map_err(error)?;
    Ok(Some(path.display().to_string()))
}

#[tauri::command]
pub(crate) async fn smoke_report(app: tauri::AppHandle, args: SmokeReportArgs) {
    crate::smoke::finish(&app, args.ok, &args.detail);
}
