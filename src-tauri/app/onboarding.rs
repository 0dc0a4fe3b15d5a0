//! Handlers of first run and the app's settings (issue 23): each maps onto
//! `gatehouse_session::app_settings` / `connection` and the store, which
//! hold the rules.

use std::path::PathBuf;

use gatehouse_protocol::command::{CommandError, NoArgs};
use gatehouse_protocol::onboarding::{
    AppSettings, ConnectionTest, DatabaseReset, LastProject, ProviderSetting, RelocateProjectArgs,
    RemoveProjectArgs, SaveAppSettingsArgs, StartupState, TestConnectionArgs,
};
use gatehouse_protocol::project::Project;
use gatehouse_session::app_settings;
use gatehouse_session::keys::{find_key, keychain};
use tauri::State;

use crate::AppState;
use crate::commands::{CommandResult, blocking, error, with_store};

fn data_dir(state: &State<'_, AppState>) -> PathBuf {
    PathBuf::from(&state.info.data_dir)
}

/// Records the project to reopen at start (`None`: none). A failure is
/// reported on stderr only: the project opened all the same.
pub(crate) fn remember_last_project(data_dir: &std::path::Path, folder: Option<&str>) {
    if let Err(e) = app_settings::set_last_project(data_dir, folder) {
        eprintln!("gatehouse: the project to reopen could not be saved: {e}");
    }
}

#[tauri::command]
pub(crate) async fn startup_state(
    state: State<'_, AppState>,
    args: NoArgs,
) -> CommandResult<StartupState> {
    let NoArgs {} = args;
    let dir = data_dir(&state);
    let (settings, settings_error, keychain_unavailable) = blocking({
        let dir = dir.clone();
        move || {
            let (settings, settings_error) = app_settings::load(&dir);
            let keychain_unavailable = keychain().unavailable().map(str::to_owned);
            Ok::<_, String>((settings, settings_error, keychain_unavailable))
        }
    })
    .await?;
    let last_project = if state.store.is_ok() {
        let settings = settings.clone();
        with_store(&state, move |store| {
            app_settings::last_project(&settings, store)
        })
        .await?
    } else {
        LastProject::None
    };
    Ok(StartupState {
        settings,
        settings_error,
        keychain_unavailable,
        last_project,
        // Canonical, as project paths are stored, so the window can tell
        // the sample project by its path.
        sample_project_path: app_settings::sample_project_path(
            &dir.canonicalize().unwrap_or_else(|_| dir.clone()),
        )
        .display()
        .to_string(),
    })
}

#[tauri::command]
pub(crate) async fn save_app_settings(
    state: State<'_, AppState>,
    args: SaveAppSettingsArgs,
) -> CommandResult<AppSettings> {
    let dir = data_dir(&state);
    blocking(move || app_settings::save_choices(&dir, &args.settings)).await
}

#[tauri::command]
pub(crate) async fn test_provider_connection(
    state: State<'_, AppState>,
    args: TestConnectionArgs,
) -> CommandResult<ConnectionTest> {
    let account = match &args.provider {
        ProviderSetting::Anthropic { .. } => Some("anthropic"),
        ProviderSetting::OpenAi { .. } => Some("openai"),
        ProviderSetting::Demo => None,
    };
    // The keychain answers on a blocking thread.
    let key = match account {
        Some(account) => blocking(move || find_key(account)).await?,
        None => None,
    };
    state
        .runtime
        .spawn(async move {
            gatehouse_session::connection::test_connection(&args.provider, key).await
        })
        .await
        .map_err(error)
}

#[tauri::command]
pub(crate) async fn create_sample_project(
    state: State<'_, AppState>,
    args: NoArgs,
) -> CommandResult<Project> {
    let NoArgs {} = args;
    let dir = data_dir(&state);
    with_store(&state, move |store| {
        let folder = app_settings::create_sample_project(&dir)?;
        let project = store.add_project(&folder).map_err(|e| e.to_string())?;
        remember_last_project(&dir, Some(&project.path));
        Ok::<_, String>(project)
    })
    .await
}

#[tauri::command]
pub(crate) async fn open_data_dir(state: State<'_, AppState>, args: NoArgs) -> CommandResult<()> {
    let NoArgs {} = args;
    crate::sessions::open_with_os(state.info.data_dir.clone()).await
}

/// Sets the database that could not be opened aside, then restarts the app
/// on a fresh one. Refused while the database is open (it is not damaged).
#[tauri::command]
pub(crate) async fn reset_database(
    app: tauri::AppHandle,
    state: State<'_, AppState>,
    args: NoArgs,
) -> CommandResult<DatabaseReset> {
    let NoArgs {} = args;
    if state.store.is_ok() {
        return Err(CommandError::new(
            "the database opened normally; it is not set aside while in use",
        ));
    }
    let dir = data_dir(&state);
    let kept = blocking(move || gatehouse_store::set_aside_database(&dir)).await?;
    let kept_as = kept.iter().map(|p| p.display().to_string()).collect();
    eprintln!("gatehouse: the damaged database was kept as {kept_as:?}; restarting");
    // Restarting through the event loop lets this answer reach the window.
    app.request_restart();
    Ok(DatabaseReset { kept_as })
}

#[tauri::command]
pub(crate) async fn remove_project(
    state: State<'_, AppState>,
    args: RemoveProjectArgs,
) -> CommandResult<()> {
    let dir = data_dir(&state);
    with_store(&state, move |store| {
        let project = store.project(args.id).map_err(error)?;
        store.remove_project(args.id).map_err(error)?;
        forget_if_last(&dir, project.as_ref());
        Ok::<_, CommandError>(())
    })
    .await
}

#[tauri::command]
pub(crate) async fn relocate_project(
    state: State<'_, AppState>,
    args: RelocateProjectArgs,
) -> CommandResult<Project> {
    let dir = data_dir(&state);
    with_store(&state, move |store| {
        let old = store.project(args.id).map_err(error)?;
        // The new folder is a project of its own: trust is not carried over
        // (its settings may differ from what was trusted).
        let project = store
            .add_project(&PathBuf::from(&args.path))
            .map_err(error)?;
        if project.id != args.id {
            store.remove_project(args.id).map_err(error)?;
        }
        forget_if_last(&dir, old.as_ref());
        remember_last_project(&dir, Some(&project.path));
        Ok::<_, CommandError>(project)
    })
    .await
}

/// Forgets the project to reopen when it is `project`.
fn forget_if_last(dir: &std::path::Path, project: Option<&Project>) {
    let Some(project) = project else { return };
    if let Ok(settings) = app_settings::read(dir)
        && settings.last_project.as_deref() == Some(project.path.as_str())
    {
        remember_last_project(dir, None);
    }
}

#[tauri::command]
pub(crate) async fn forget_last_project(
    state: State<'_, AppState>,
    args: NoArgs,
) -> CommandResult<()> {
    let NoArgs {} = args;
    let dir = data_dir(&state);
    blocking(move || app_settings::set_last_project(&dir, None)).await
}
