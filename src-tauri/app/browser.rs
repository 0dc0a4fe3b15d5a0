//! Handlers of the session browser's commands (issue 11). Each maps onto
//! the store (`gatehouse-store`: lists, search, stats, housekeeping) or the
//! transcripts crate (`gatehouse-transcripts`: imports, exports), which hold
//! all the logic.

use std::path::PathBuf;

use gatehouse_protocol::browser::{
    ClaudeDiscovery, DeleteSessionsArgs, ExportResult, ExportSessionArgs, ImportClaudeArgs,
    ImportFileResult, RetentionResult, SessionFacets, SessionStats, SetRetentionArgs, StorageInfo,
};
use gatehouse_protocol::command::NoArgs;
use gatehouse_protocol::event::{Event, EventBody};
use gatehouse_protocol::session::{
    EVENT_CHANNEL, ListSessionsArgs, SearchHit, SearchSessionsArgs, SessionArgs, SessionSummary,
    StorageUsage,
};
use gatehouse_transcripts::browser::{
    claude_home, discover_with_status, export_to_file, import_selected,
};
use tauri::{Emitter as _, State};
use tauri_plugin_dialog::DialogExt;

use crate::AppState;
use crate::commands::{CommandResult, error, own_store, store};

/// Environment variable that makes `export_session` write to
/// `<this folder>/<session id>.<ext>` instead of opening the native save
/// dialog, which WebDriver cannot drive (e2e tests only).
pub const TEST_SAVE_DIR_ENV: &str = "GATEHOUSE_TEST_SAVE_DIR";

#[tauri::command(async)]
pub(crate) fn browse_sessions(
    state: State<'_, AppState>,
    args: ListSessionsArgs,
) -> CommandResult<Vec<SessionSummary>> {
    store(&state)?.query_sessions(&args).map_err(error)
}

#[tauri::command(async)]
pub(crate) fn session_facets(
    state: State<'_, AppState>,
    args: NoArgs,
) -> CommandResult<SessionFacets> {
    let NoArgs {} = args;
    store(&state)?.session_facets().map_err(error)
}

#[tauri::command(async)]
pub(crate) fn session_summary(
    state: State<'_, AppState>,
    args: SessionArgs,
) -> CommandResult<SessionSummary> {
    store(&state)?
        .session(&args.session_id)
        .map_err(error)?
        .ok_or_else(|| error(format!("no stored session with id {}", args.session_id)))
}

#[tauri::command(async)]
pub(crate) fn search_sessions(
    state: State<'_, AppState>,
    args: SearchSessionsArgs,
) -> CommandResult<Vec<SearchHit>> {
    store(&state)?.search(&args).map_err(error)
}

#[tauri::command(async)]
pub(crate) fn session_stats(
    state: State<'_, AppState>,
    args: SessionArgs,
) -> CommandResult<SessionStats> {
    own_store(&state)?
        .session_stats(&args.session_id)
        .map_err(error)
}

#[tauri::command(async)]
pub(crate) fn discover_claude_transcripts(
    state: State<'_, AppState>,
    args: NoArgs,
) -> CommandResult<ClaudeDiscovery> {
    let NoArgs {} = args;
    let home = claude_home().map_err(error)?;
    discover_with_status(&*store(&state)?, &home).map_err(error)
}

#[tauri::command(async)]
pub(crate) fn import_claude_transcripts(
    app: tauri::AppHandle,
    state: State<'_, AppState>,
    args: ImportClaudeArgs,
) -> CommandResult<Vec<ImportFileResult>> {
    let home = claude_home().map_err(error)?;
    let mut import_store = own_store(&state)?;
    import_selected(
        &mut import_store,
        &home,
        args.paths.as_deref(),
        |transcript, progress| {
            let event = Event {
                session_id: transcript.session_id.clone(),
                ts_ms: now_ms(),
                body: EventBody::ImportProgress {
                    progress: progress.clone(),
                },
            };
            if let Err(e) = app.emit(EVENT_CHANNEL, &event) {
                eprintln!("gatehouse: import progress could not reach the window: {e}");
            }
        },
    )
    .map_err(error)
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

#[tauri::command(async)]
pub(crate) fn export_session(
    app: tauri::AppHandle,
    state: State<'_, AppState>,
    args: ExportSessionArgs,
) -> CommandResult<Option<ExportResult>> {
    let extension = args.format.extension();
    let path = match (args.path, std::env::var_os(TEST_SAVE_DIR_ENV)) {
        (Some(path), _) => PathBuf::from(path),
        (None, Some(dir)) => PathBuf::from(dir).join(format!("{}.{extension}", args.session_id)),
        (None, None) => {
            // `async` commands run off the main thread, so blocking here is fine.
            let Some(picked) = app
                .dialog()
                .file()
                .set_title("Export session")
                .set_file_name(format!("{}.{extension}", args.session_id))
                .add_filter(extension.to_uppercase(), &[extension])
                .blocking_save_file()
            else {
                return Ok(None);
            };
            picked.into_path().map_err(error)?
        }
    };
    export_to_file(&own_store(&state)?, &args.session_id, args.format, &path)
        .map(Some)
        .map_err(error)
}

#[tauri::command(async)]
pub(crate) fn delete_sessions(
    state: State<'_, AppState>,
    args: DeleteSessionsArgs,
) -> CommandResult<Vec<String>> {
    let mut store = store(&state)?;
    let mut deleted = Vec::new();
    for id in &args.session_ids {
        deleted.extend(store.delete_session(id).map_err(error)?);
    }
    Ok(deleted)
}

#[tauri::command(async)]
pub(crate) fn storage_info(state: State<'_, AppState>, args: NoArgs) -> CommandResult<StorageInfo> {
    let NoArgs {} = args;
    let store = store(&state)?;
    Ok(StorageInfo {
        usage: store.storage_usage().map_err(error)?,
        retention_days: store.retention_days().map_err(error)?,
    })
}

#[tauri::command(async)]
pub(crate) fn set_retention(
    state: State<'_, AppState>,
    args: SetRetentionArgs,
) -> CommandResult<RetentionResult> {
    let mut store = store(&state)?;
    store.set_retention_days(args.days).map_err(error)?;
    let deleted = if args.apply.unwrap_or(false) {
        store.apply_retention().map_err(error)?
    } else {
        Vec::new()
    };
    Ok(RetentionResult {
        retention_days: store.retention_days().map_err(error)?,
        deleted,
    })
}

#[tauri::command(async)]
pub(crate) fn vacuum_database(
    state: State<'_, AppState>,
    args: NoArgs,
) -> CommandResult<StorageUsage> {
    let NoArgs {} = args;
    let store = store(&state)?;
    store.vacuum().map_err(error)?;
    store.storage_usage().map_err(error)
}
