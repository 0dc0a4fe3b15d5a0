//! Handlers of the session commands: each maps its arguments onto the
//! session host (`gatehouse-session`), which holds all the logic, and the
//! host's events reach the window on `EVENT_CHANNEL`.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use gatehouse_core::events::EventSink;
use gatehouse_protocol::browser::SessionEventsAfterArgs;
use gatehouse_protocol::command::{CommandError, SetProjectTrustArgs};
use gatehouse_protocol::event::Event;
use gatehouse_protocol::interaction::AnswerInteractionArgs;
use gatehouse_protocol::project::Project;
use gatehouse_protocol::session::{
    AnswerPermissionArgs, ApiKeyStatus, EVENT_CHANNEL, ListSessionsArgs, OpenedTaskOutput,
    ProviderArgs, ProviderChoice, ResumeSessionArgs, SendPromptArgs, SessionArgs, SessionHandle,
    SessionSummary, SetApiKeyArgs, SetModeArgs, StartSessionArgs, StopTaskArgs, StoppedTask,
    StoredEvents,
};
use gatehouse_session::host::AskPolicy;
use gatehouse_session::keys::{delete_key, find_key, key_status, keychain, set_key};
use gatehouse_session::provider::build_provider;
use gatehouse_session::{SessionHost, StartSpec};
use tauri::{Emitter as _, State};

use crate::AppState;
use crate::commands::{CommandResult, blocking, error, with_own_store, with_store};

/// Hands every stored event to the window. The app handle exists only once
/// Tauri has started, after the host was created.
#[derive(Default)]
pub(crate) struct WindowSink {
    pub(crate) app: OnceLock<tauri::AppHandle>,
}

impl EventSink for WindowSink {
    fn emit(&self, event: Event) {
        if let Some(app) = self.app.get()
            && let Err(e) = app.emit(EVENT_CHANNEL, &event)
        {
            eprintln!("gatehouse: an event could not reach the window: {e}");
        }
    }
}

fn host<'a>(state: &'a State<'_, AppState>) -> CommandResult<&'a Arc<SessionHost>> {
    state
        .host
        .as_ref()
        .map_err(|e| CommandError::new(format!("sessions are unavailable: {e}")))
}

/// Opens a session on the session runtime: the provider's key is read from
/// the keychain on a blocking thread, and the host's start (SQLite on its
/// own blocking threads, MCP servers connecting) is awaited, not waited for.
async fn start(
    state: &State<'_, AppState>,
    project: Project,
    provider: ProviderChoice,
    mode: Option<gatehouse_protocol::permission::PermissionMode>,
    resume: Option<String>,
) -> CommandResult<SessionHandle> {
    let host = Arc::clone(host(state)?);
    let folder = PathBuf::from(&project.path);
    let data_dir = PathBuf::from(&state.info.data_dir);
    let (provider, model) = blocking({
        let folder = folder.clone();
        move || build_provider(&provider, &folder, &data_dir, &find_key)
    })
    .await?;
    let spec = StartSpec {
        project: folder,
        provider,
        model,
        mode,
        trust_project: project.trusted_at_ms.is_some(),
        ask: AskPolicy::Interactive,
        resume,
        settings_files: Vec::new(),
        // The project's MCP servers (project ones only when trusted or
        // approved); a slow server does not hold the session up longer.
        mcp_startup_timeout: Some(std::time::Duration::from_secs(30)),
    };
    let started = state
        .runtime
        .spawn(async move { host.start(spec).await })
        .await
        .map_err(error)?
        .map_err(error)?;
    for warning in &started.warnings {
        eprintln!("gatehouse: warning: {warning}");
    }
    Ok(started.handle)
}

#[tauri::command]
pub(crate) async fn start_session(
    state: State<'_, AppState>,
    args: StartSessionArgs,
) -> CommandResult<SessionHandle> {
    let id = args.project_id;
    let project = with_store(&state, move |store| {
        store
            .project(id)
            .map_err(error)?
            .ok_or_else(|| CommandError::new(format!("no project with id {id}")))
    })
    .await?;
    start(&state, project, args.provider, Some(args.mode), None).await
}

#[tauri::command]
pub(crate) async fn resume_session(
    state: State<'_, AppState>,
    args: ResumeSessionArgs,
) -> CommandResult<SessionHandle> {
    let session_id = args.session_id.clone();
    let (summary, project) = with_store(&state, move |store| {
        let summary = store
            .session(&session_id)
            .map_err(error)?
            .ok_or_else(|| CommandError::new(format!("no stored session with id {session_id}")))?;
        let project = match store
            .project_by_path(&summary.project_path)
            .map_err(error)?
        {
            Some(p) => p,
            // A session started by the CLI in a folder the app never opened.
            None => store
                .add_project(Path::new(&summary.project_path))
                .map_err(error)?,
        };
        CommandResult::Ok((summary, project))
    })
    .await?;
    let provider = match (&args.provider, summary.provider.as_str()) {
        (Some(choice), _) => choice.clone(),
        (None, "anthropic") => ProviderChoice::Anthropic {
            model: summary.model.clone(),
            base_url: None,
        },
        (None, other) => {
            return Err(CommandError::new(format!(
                "session {} used the {other} provider, whose script or server is not stored; pick a provider to continue it with",
                summary.id
            )));
        }
    };
    start(&state, project, provider, None, Some(summary.id)).await
}

// Prompts, interrupts, mode changes and answers only hand a message to the
// session's tasks (and an event to the writer thread): nothing here waits.
#[tauri::command]
pub(crate) async fn send_prompt(
    state: State<'_, AppState>,
    args: SendPromptArgs,
) -> CommandResult<()> {
    // The exchange streams as events; nobody waits for the ticket here.
    host(&state)?
        .send_prompt(&args.session_id, &args.text)
        .map(drop)
        .map_err(error)
}

#[tauri::command]
pub(crate) async fn interrupt(state: State<'_, AppState>, args: SessionArgs) -> CommandResult<()> {
    host(&state)?.interrupt(&args.session_id).map_err(error)
}

#[tauri::command]
pub(crate) async fn set_mode(state: State<'_, AppState>, args: SetModeArgs) -> CommandResult<()> {
    host(&state)?
        .set_mode(&args.session_id, args.mode)
        .map_err(error)
}

#[tauri::command]
pub(crate) async fn answer_permission(
    state: State<'_, AppState>,
    args: AnswerPermissionArgs,
) -> CommandResult<()> {
    host(&state)?
        .answer_permission(&args.session_id, &args.tool_use_id, args.answer)
        .map_err(error)
}

/// Stops a background task; the wait for it to end runs on the session
/// runtime (up to the task manager's grace period), never on Tauri's workers.
#[tauri::command]
pub(crate) async fn stop_task(
    state: State<'_, AppState>,
    args: StopTaskArgs,
) -> CommandResult<StoppedTask> {
    let host = Arc::clone(host(&state)?);
    state
        .runtime
        .spawn(async move { host.stop_task(&args.session_id, &args.task_id).await })
        .await
        .map_err(error)?
        .map_err(error)
}

/// With this set (end-to-end tests only), `open_task_output` appends the
/// file's path as a line to the file it names instead of starting the OS
/// opener, which a test cannot see.
pub const TEST_OPENED_FILES_ENV: &str = "GATEHOUSE_TEST_OPENED_FILES";

/// Opens `text` (a file or folder) with the OS opener, or records it in
/// [`TEST_OPENED_FILES_ENV`]'s file when that is set.
pub(crate) async fn open_with_os(text: String) -> CommandResult<()> {
    if let Some(log) = std::env::var_os(TEST_OPENED_FILES_ENV) {
        let line = format!("{text}\n");
        blocking(move || {
            use std::io::Write as _;
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&log)
                .and_then(|mut f| f.write_all(line.as_bytes()))
                .map_err(|e| {
                    format!(
                        "recording the opened file in {}: {e}",
                        Path::new(&log).display()
                    )
                })
        })
        .await
    } else {
        blocking(move || gatehouse_session::mcp_auth::system_opener()(&text)).await
    }
}

/// Opens a background task's whole output file with the OS opener (the
/// host says which file: only a task's own can be opened).
#[tauri::command]
pub(crate) async fn open_task_output(
    state: State<'_, AppState>,
    args: StopTaskArgs,
) -> CommandResult<OpenedTaskOutput> {
    let path = host(&state)?
        .task_output_file(&args.session_id, &args.task_id)
        .map_err(error)?;
    let text = path.display().to_string();
    open_with_os(text.clone()).await?;
    Ok(OpenedTaskOutput { path: text })
}

#[tauri::command]
pub(crate) async fn answer_interaction(
    state: State<'_, AppState>,
    args: AnswerInteractionArgs,
) -> CommandResult<()> {
    host(&state)?
        .answer_interaction(&args.session_id, &args.tool_use_id, args.reply)
        .map_err(error)
}

#[tauri::command]
pub(crate) async fn close_session(
    state: State<'_, AppState>,
    args: SessionArgs,
) -> CommandResult<()> {
    let host = Arc::clone(host(&state)?);
    let stopped = state
        .runtime
        .spawn(async move { host.close(&args.session_id).await })
        .await
        .map_err(error)?
        .map_err(error)?;
    for task in stopped {
        eprintln!(
            "gatehouse: stopped background task {} as its session closed",
            task.task_id
        );
    }
    Ok(())
}

#[tauri::command]
pub(crate) async fn list_sessions(
    state: State<'_, AppState>,
    args: ListSessionsArgs,
) -> CommandResult<Vec<SessionSummary>> {
    with_store(&state, move |store| {
        let mut list = store
            .list_sessions(args.project_path.as_deref())
            .map_err(error)?;
        list.truncate(args.limit.unwrap_or(100) as usize);
        CommandResult::Ok(list)
    })
    .await
}

#[tauri::command]
pub(crate) async fn session_events(
    state: State<'_, AppState>,
    args: SessionArgs,
) -> CommandResult<StoredEvents> {
    with_own_store(&state, move |store| {
        store.stored_events(&args.session_id, None)
    })
    .await
}

#[tauri::command]
pub(crate) async fn session_events_after(
    state: State<'_, AppState>,
    args: SessionEventsAfterArgs,
) -> CommandResult<StoredEvents> {
    // A session's few new events: the shared connection serves them.
    with_store(&state, move |store| {
        store.stored_events_after(&args.session_id, args.after_seq)
    })
    .await
}

#[tauri::command]
pub(crate) async fn set_project_trust(
    state: State<'_, AppState>,
    args: SetProjectTrustArgs,
) -> CommandResult<Project> {
    with_store(&state, move |store| {
        store.set_project_trust(args.id, args.trusted)
    })
    .await
}

// The key goes from the argument to the keychain only: it is never logged,
// emitted or returned (the status says where a key is, not what it is).
// The keychain is opened and used on one blocking thread: it talks to D-Bus
// or the kernel, and the keyutils store answers only the thread that opened it.
#[tauri::command]
pub(crate) async fn set_api_key(args: SetApiKeyArgs) -> CommandResult<ApiKeyStatus> {
    blocking(move || set_key(&args.provider, &args.key, &keychain())).await
}

#[tauri::command]
pub(crate) async fn delete_api_key(args: ProviderArgs) -> CommandResult<ApiKeyStatus> {
    blocking(move || delete_key(&args.provider, &keychain())).await
}

#[tauri::command]
pub(crate) async fn api_key_status(args: ProviderArgs) -> CommandResult<ApiKeyStatus> {
    blocking(move || key_status(&args.provider, &keychain())).await
}
