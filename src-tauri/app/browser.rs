//! Handlers of the session browser's commands (issue 11). Each maps onto
//! the store (`gatehouse-store`: lists, search, stats, housekeeping) or the
//! transcripts crate (`gatehouse-transcripts`: imports, exports), which hold
//! all the logic.

use std::path::PathBuf;

use gatehouse_protocol::browser::{
    ClaudeDiscovery, DeleteSessionsArgs, ExportResult, ExportSessionArgs, ImportClaudeArgs,
    ImportFileResult, RetentionResult, SessionFacets, SessionStats, SetRetentionArgs, StorageInfo,
    VacuumResult,
};
use gatehouse_protocol::command::NoArgs;
use gatehouse_protocol::event::{Event, EventBody};
use gatehouse_protocol::session::{
    EVENT_CHANNEL, ListSessionsArgs, SearchHit, SearchSessionsArgs, SessionArgs, SessionSummary,
};
use gatehouse_transcripts::browser::{
    claude_home, discover_with_status, export_to_file, import_selected,
};
use tauri::{Emitter as _, State};
use tauri_plugin_dialog::DialogExt;

use crate::AppState;
use crate::commands::{CommandResult, error, with_own_store, with_store};

/// Environment variable that makes `export_session` write to
/// `<this folder>/<session id>.<ext>` instead of opening the native save
/// dialog, which WebDriver cannot drive (e2e tests only).
pub const TEST_SAVE_DIR_ENV: &str = "GATEHOUSE_TEST_SAVE_DIR";

#[tauri::command]
pub(crate) async fn browse_sessions(
    state: State<'_, AppState>,
    args: ListSessionsArgs,
) -> CommandResult<Vec<SessionSummary>> {
    with_store(&state, move |store| store.query_sessions(&args)).await
}

#[tauri::command]
pub(crate) async fn session_facets(
    state: State<'_, AppState>,
    args: NoArgs,
) -> CommandResult<SessionFacets> {
    let NoArgs {} = args;
    with_store(&state, |store| store.session_facets()).await
}

#[tauri::command]
pub(crate) async fn session_summary(
    state: State<'_, AppState>,
    args: SessionArgs,
) -> CommandResult<SessionSummary> {
    with_store(&state, move |store| {
        store
            .session(&args.session_id)
            .map_err(error)?
            .ok_or_else(|| error(format!("no stored session with id {}", args.session_id)))
    })
    .await
}

#[tauri::command]
pub(crate) async fn search_sessions(
    state: State<'_, AppState>,
    args: SearchSessionsArgs,
) -> CommandResult<Vec<SearchHit>> {
    with_store(&state, move |store| store.search(&args)).await
}

#[tauri::command]
pub(crate) async fn session_stats(
    state: State<'_, AppState>,
    args: SessionArgs,
) -> CommandResult<SessionStats> {
    with_own_store(&state, move |store| store.session_stats(&args.session_id)).await
}

#[tauri::command]
pub(crate) async fn discover_claude_transcripts(
    state: State<'_, AppState>,
    args: NoArgs,
) -> CommandResult<ClaudeDiscovery> {
    let NoArgs {} = args;
    with_store(&state, |store| {
        let home = claude_home().map_err(error)?;
        discover_with_status(store, &home).map_err(error)
    })
    .await
}

#[tauri::command]
pub(crate) async fn import_claude_transcripts(
    app: tauri::AppHandle,
    state: State<'_, AppState>,
    args: ImportClaudeArgs,
) -> CommandResult<Vec<ImportFileResult>> {
    with_own_store(&state, move |import_store| {
        let home = claude_home().map_err(error)?;
        import_selected(
            import_store,
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
    })
    .await
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

#[tauri::command]
pub(crate) async fn export_session(
    app: tauri::AppHandle,
    state: State<'_, AppState>,
    args: ExportSessionArgs,
) -> CommandResult<Option<ExportResult>> {
    let extension = args.format.extension();
    let path = match (args.path, std::env::var_os(TEST_SAVE_DIR_ENV)) {
        (Some(path), _) => PathBuf::from(path),
        (None, Some(dir)) => PathBuf::from(dir).join(format!("{}.{extension}", args.session_id)),
        (None, None) => {
            // The dialog answers through its callback; this task waits
            // without holding a worker thread.
            let (tx, rx) = tokio::sync::oneshot::channel();
            app.dialog()
                .file()
                .set_title("Export session")
                .set_file_name(format!("{}.{extension}", args.session_id))
                .add_filter(extension.to_uppercase(), &[extension])
                .save_file(move |picked| {
                    // The receiver is gone only when the command was dropped.
                    let _ = tx.send(picked);
                });
            let picked = rx
                .await
                .map_err(|_| error("the save dialog closed without an answer"))?;
            let Some(picked) = picked else {
                return Ok(None);
            };
            picked.into_path().map_err(error)?
        }
    };
    let (session_id, format) = (args.session_id, args.format);
    with_own_store(&state, move |store| {
        export_to_file(store, &session_id, format, &path).map(Some)
    })
    .await
}

// Deleting, retention and VACUUM can take seconds on a large database: they
// use a connection of their own, so the shared one (and every handler that
// lists, searches or opens) is not held meanwhile.
#[tauri::command]
pub(crate) async fn delete_sessions(
    state: State<'_, AppState>,
    args: DeleteSessionsArgs,
) -> CommandResult<Vec<String>> {
    with_own_store(&state, move |store| {
        let mut deleted = Vec::new();
        for id in &args.session_ids {
            deleted.extend(store.delete_session(id).map_err(error)?);
        }
        CommandResult::Ok(deleted)
    })
    .await
}

#[tauri::command]
pub(crate) async fn storage_info(
    state: State<'_, AppState>,
    args: NoArgs,
) -> CommandResult<StorageInfo> {
    let NoArgs {} = args;
    with_store(&state, |store| {
        CommandResult::Ok(StorageInfo {
            usage: store.storage_usage().map_err(error)?,
            retention_days: store.retention_days().map_err(error)?,
        })
    })
    .await
}

#[tauri::command]
pub(crate) async fn set_retention(
    state: State<'_, AppState>,
    args: SetRetentionArgs,
) -> CommandResult<RetentionResult> {
    with_own_store(&state, move |store| {
        store.set_retention_days(args.days).map_err(error)?;
        let deleted = if args.apply.unwrap_or(false) {
            store.apply_retention().map_err(error)?
        } else {
            Vec::new()
        };
        CommandResult::Ok(RetentionResult {
            retention_days: store.retention_days().map_err(error)?,
            deleted,
        })
    })
    .await
}

#[tauri::command]
pub(crate) async fn vacuum_database(
    state: State<'_, AppState>,
    args: NoArgs,
) -> CommandResult<VacuumResult> {
    let NoArgs {} = args;
    // The host knows which sessions are open: with any, an old database's
    // one whole-file rewrite (which would hold their writes for seconds)
    // waits, and the result says so.
    let open_sessions = state.host.as_ref().map_or(0, |host| {
        u32::try_from(host.open_sessions().len()).unwrap_or(u32::MAX)
    });
    with_own_store(&state, move |store| {
        let compaction = store.vacuum(open_sessions).map_err(error)?;
        CommandResult::Ok(VacuumResult {
            usage: store.storage_usage().map_err(error)?,
            compaction,
        })
    })
    .await
}
