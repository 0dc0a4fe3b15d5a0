//! [`SessionHost`]: the sessions open in one process (the app's window, or
//! one `gatehouse-cli run`), each with its agent loop, permission engine,
//! tool pool and background tasks.
//!
//! Commands return at once; what happens in a session arrives as events,
//! stored in SQLite and then handed to the front end's sink (see
//! [`crate::writer`]). Each session's agent runs in its own task and takes
//! prompts in order; an interrupt cancels the running exchange (the
//! in-flight model request, queued calls, and running calls per their
//! interrupt behaviour).
//!
//! Opening a session and its agent loop are in `start`; the MCP servers
//! across sessions in `mcp`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use gatehouse_agent::PromptOutcome;
use gatehouse_agent::provider::Provider;
use gatehouse_core::events::{Emitter, EventSink};
use gatehouse_mcp::McpManager;
use gatehouse_permissions::PermissionEngine;
use gatehouse_protocol::event::{Event, EventBody, SessionEndReason, SettingsReloadTrigger};
use gatehouse_protocol::permission::PermissionMode;
use gatehouse_protocol::session::{
    PermissionAnswer, SessionDiagnostics, SessionHandle, SessionOrigin, SessionSummary, StoppedTask,
};
use gatehouse_store::Store;
use gatehouse_tools::tasks::{TaskInfo, TaskManager};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use crate::ask::InteractiveAsk;
use crate::live_settings::LiveSettings;
use crate::writer::EventWriter;

mod mcp;
mod start;

/// Why a host command failed; the message names the session, call or path.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    /// No open session has this id.
    #[error("no open session with id {0}; start or resume it first")]
    NotOpen(String),
    /// The store has no session with this id.
    #[error("no stored session with id {0}")]
    NotStored(String),
    /// The stored session was imported from another tool: its history is
    /// not one Gatehouse can send back to a model (no returned tool
    /// results, another tool set), so it is read-only.
    #[error(
        "session {0} was imported from Claude Code and cannot be resumed; Gatehouse resumes only sessions it recorded"
    )]
    Imported(String),
    /// The project folder is missing or not a folder.
    #[error("the project folder {path}: {reason}")]
    Project {
        /// The folder.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// The database failed.
    #[error(transparent)]
    Store(#[from] gatehouse_store::StoreError),
    /// Anything else, described.
    #[error("{0}")]
    Other(String),
}

/// Settings shared by every session of a host.
#[derive(Debug, Clone)]
pub struct HostConfig {
    /// The data directory: the database and `sessions/<id>/` (large tool
    /// results, Bash and task output).
    pub data_dir: PathBuf,
    /// The home directory (`~/.claude/settings.json`, `~/` in rules).
    pub home: PathBuf,
    /// Model requests allowed per prompt allowance (see [`AgentConfig`]).
    pub max_turns: u32,
    /// How long a provider may stay silent.
    pub idle_timeout: Duration,
    /// Scripted AskUserQuestion answers, `(header, option)`, for sessions
    /// whose prompts nobody answers (`AllowAll` / `DenyAll`:
    /// `gatehouse-cli run --answer 'Header=Option'`).
    pub answers: Vec<(String, String)>,
    /// When deferred tools are listed by name only (issue 21); `None`:
    /// `auto`. Claude Code's `ENABLE_TOOL_SEARCH`, in the environment or in
    /// a settings file's `env`, overrides it ([`crate::tool_search`]).
    pub tool_search: Option<gatehouse_core::deferral::ToolSearchMode>,
    /// The small, fast model the environment names for WebFetch's prompt
    /// (`ANTHROPIC_DEFAULT_HAIKU_MODEL` / `ANTHROPIC_SMALL_FAST_MODEL`,
    /// read by [`HostConfig::new`]); before the settings' (see
    /// [`crate::web_prompt`]).
    pub small_model_env: Option<String>,
    /// Where the Bash sandbox looks for `bwrap` (a `PATH`-style list; read
    /// from `$PATH` by [`HostConfig::new`]).
    pub sandbox_path: Option<std::ffi::OsString>,
}

impl HostConfig {
    /// Defaults for `data_dir`, with the home directory from `$HOME`.
    pub fn new(data_dir: PathBuf) -> Self {
        Self {
            data_dir,
            home: gatehouse_permissions::sources::home_dir(),
            max_turns: 100,
            idle_timeout: Duration::from_secs(120),
            answers: Vec::new(),
            tool_search: None,
            small_model_env: crate::web_prompt::small_model_from_env(&|name| {
                std::env::var(name).ok()
            }),
            sandbox_path: std::env::var_os("PATH"),
        }
    }
}

/// Who answers the permission prompts of a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AskPolicy {
    /// A person, through `permission_requested` / [`SessionHost::answer_permission`].
    Interactive,
    /// Every prompt is allowed once (`gatehouse-cli run --ask allow`).
    AllowAll,
    /// Every prompt is denied (`--ask deny`, the headless default).
    DenyAll,
}

/// What a session starts with.
pub struct StartSpec {
    /// The project folder the tools work in.
    pub project: PathBuf,
    /// The model provider.
    pub provider: Arc<dyn Provider>,
    /// The model name sent to it.
    pub model: String,
    /// The permission mode; `None`: a resumed session's last mode, else the
    /// settings' `defaultMode`, else `default`.
    pub mode: Option<PermissionMode>,
    /// Whether the project's settings' allow rules apply.
    pub trust_project: bool,
    /// Who answers permission prompts.
    pub ask: AskPolicy,
    /// A stored session to continue (its history and session rules).
    pub resume: Option<String>,
    /// Extra settings files (launch flags).
    pub settings_files: Vec<PathBuf>,
    /// Start the MCP servers configured for the project (`.mcp.json`,
    /// `~/.claude.json`, Gatehouse's own list), waiting at most this long
    /// for them to connect; `None` starts none.
    pub mcp_startup_timeout: Option<Duration>,
}

impl std::fmt::Debug for StartSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StartSpec")
            .field("project", &self.project)
            .field("provider", &self.provider.name())
            .field("model", &self.model)
            .field("mode", &self.mode)
            .field("trust_project", &self.trust_project)
            .field("ask", &self.ask)
            .field("resume", &self.resume)
            .finish_non_exhaustive()
    }
}

/// A session that was opened, and what the user should be told about it.
#[derive(Debug, Clone)]
pub struct Started {
    /// What the front end shows.
    pub handle: SessionHandle,
    /// Problems with settings files or stored session rules (file, line,
    /// column and cause); the engine already fails closed on them.
    pub warnings: Vec<String>,
    /// The session's Bash sandbox is enabled but cannot run here (also
    /// its `sandbox_unavailable` event), for front ends that print
    /// warnings rather than events (`gatehouse-cli run`'s stderr).
    pub sandbox_unavailable: Option<gatehouse_protocol::sandbox::SandboxUnavailable>,
}

/// Resolves when a prompt's exchange has ended.
#[derive(Debug)]
pub struct PromptTicket(oneshot::Receiver<PromptOutcome>);

impl PromptTicket {
    /// How the exchange ended; `None` when the session closed first.
    pub async fn wait(self) -> Option<PromptOutcome> {
        self.0.await.ok()
    }
}

type PromptJob = (
    String,
    u64,
    CancellationToken,
    oneshot::Sender<PromptOutcome>,
);

static NEXT_PROMPT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

struct OpenSession {
    id: String,
    project: PathBuf,
    engine: Arc<PermissionEngine>,
    tasks: Arc<TaskManager>,
    emitter: Emitter,
    ask: Option<Arc<InteractiveAsk>>,
    prompts: Mutex<Option<mpsc::UnboundedSender<PromptJob>>>,
    /// The interrupts of the exchange running now and of those queued
    /// behind it, oldest first (an interrupt stops them all).
    current: Arc<Mutex<Vec<(u64, CancellationToken)>>>,
    actor: Mutex<Option<tokio::task::JoinHandle<()>>>,
    /// The session's MCP servers (their process groups stop with it).
    mcp: Option<Arc<McpManager>>,
    /// Whether its project servers run without a stored approval.
    trust_project: bool,
    /// Its settings files, watched and reloaded into `engine`.
    settings: Arc<LiveSettings>,
    /// Its hooks (SessionEnd runs when it closes).
    hooks: Arc<gatehouse_hooks::SessionHooks>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A poisoned lock only means a panic elsewhere; the data is still whole.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The open sessions of one process; see the module docs.
pub struct SessionHost {
    config: HostConfig,
    runtime: tokio::runtime::Handle,
    store: Arc<Mutex<Store>>,
    writer: Mutex<EventWriter>,
    sessions: Mutex<HashMap<String, Arc<OpenSession>>>,
}

impl std::fmt::Debug for SessionHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionHost")
            .field("config", &self.config)
            .field("sessions", &lock(&self.sessions).keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

/// A new session id: time-ordered and unique per process.
pub fn new_session_id() -> String {
    static COUNTER: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!("ses_{nanos:x}_{:x}{n:x}", std::process::id())
}

fn mode_text(mode: PermissionMode) -> String {
    serde_json::to_value(mode)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// Refuses to resume a session Gatehouse did not record (an imported
/// transcript), whatever provider the caller picked.
pub fn check_resumable(summary: &SessionSummary) -> Result<(), HostError> {
    match summary.origin {
        SessionOrigin::Gatehouse => Ok(()),
        SessionOrigin::ClaudeCode => Err(HostError::Imported(summary.id.clone())),
    }
}

/// A resumed session's handle carries about this many of its last events
/// (back to a turn boundary); the UI renders them at once and fetches the
/// earlier ones afterwards, so a session of 10,000 calls opens on its last
/// screen about as fast as a short one.
pub const HANDLE_TAIL_EVENTS: usize = 1_000;

/// The mode a resumed session was last in: its last `mode_changed`, else
/// the mode it started in.
fn last_mode(events: &[Event], started: &str) -> Option<PermissionMode> {
    events
        .iter()
        .rev()
        .find_map(|e| match e.body {
            EventBody::ModeChanged { mode } => Some(mode),
            _ => None,
        })
        .or_else(|| serde_json::from_value(serde_json::Value::String(started.to_owned())).ok())
}

impl SessionHost {
    /// A host storing into the database in `config.data_dir` (two
    /// connections: one for the event writer, one for reads and session
    /// rules), handing each stored event to `forward`, running sessions on
    /// `runtime`.
    pub fn new(
        config: HostConfig,
        forward: Arc<dyn EventSink>,
        runtime: tokio::runtime::Handle,
    ) -> Result<Self, HostError> {
        let mut store = Store::open(&config.data_dir)?;
        // Before any session opens: whatever a stopped process left open
        // is closed now, so no session reads "running" forever.
        crate::abandoned::end_abandoned_sessions(&mut store, crate::abandoned::process_alive);
        let writer_store = Store::open(&config.data_dir)?;
        Ok(Self {
            writer: Mutex::new(EventWriter::start(writer_store, forward)),
            store: Arc::new(Mutex::new(store)),
            config,
            runtime,
            sessions: Mutex::new(HashMap::new()),
        })
    }

    /// The host's read connection (project lists, stored sessions).
    pub fn store(&self) -> std::sync::MutexGuard<'_, Store> {
        lock(&self.store)
    }

    /// Runs `work` with the host's read connection on a blocking thread, so
    /// SQLite (which may wait for another connection's write) never holds a
    /// runtime worker.
    async fn on_store<T: Send + 'static>(
        &self,
        work: impl FnOnce(&mut Store) -> Result<T, HostError> + Send + 'static,
    ) -> Result<T, HostError> {
        let store = Arc::clone(&self.store);
        tokio::task::spawn_blocking(move || work(&mut lock(&store)))
            .await
            .map_err(|e| {
                HostError::Other(format!("a storage task of the session host failed: {e}"))
            })?
    }

    fn open(&self, id: &str) -> Result<Arc<OpenSession>, HostError> {
        lock(&self.sessions)
            .get(id)
            .cloned()
            .ok_or_else(|| HostError::NotOpen(id.to_owned()))
    }

    /// Queues a prompt; the exchange runs after any earlier one and streams
    /// as events. The ticket resolves when it has ended.
    pub fn send_prompt(&self, session_id: &str, text: &str) -> Result<PromptTicket, HostError> {
        let open = self.open(session_id)?;
        let (done, ticket) = oneshot::channel();
        let token = CancellationToken::new();
        let number = NEXT_PROMPT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let prompts = lock(&open.prompts);
        // Registered before it is queued, so an interrupt right after this
        // returns is never missed.
        lock(&open.current).push((number, token.clone()));
        let sent = prompts
            .as_ref()
            .is_some_and(|tx| tx.send((text.to_owned(), number, token, done)).is_ok());
        if !sent {
            lock(&open.current).retain(|(n, _)| *n != number);
            return Err(HostError::Other(format!(
                "session {session_id} is closing and takes no more prompts"
            )));
        }
        Ok(PromptTicket(ticket))
    }

    /// Interrupts the running exchange, if any (a no-op when idle).
    pub fn interrupt(&self, session_id: &str) -> Result<(), HostError> {
        let open = self.open(session_id)?;
        for (_, token) in lock(&open.current).iter() {
            token.cancel();
        }
        Ok(())
    }

    /// Stops a background task of the session (a Bash command's process
    /// group, or a background agent's loop: its task manager's `stop`, as
    /// TaskStop does) and waits for it to end; a task that had already ended
    /// is reported as it ended. An unknown id is an error naming the
    /// session's tasks.
    pub async fn stop_task(
        &self,
        session_id: &str,
        task_id: &str,
    ) -> Result<StoppedTask, HostError> {
        let open = self.open(session_id)?;
        let info = open
            .tasks
            .stop(task_id, "the user stopped it")
            .await
            .map_err(|e| HostError::Other(format!("session {session_id}: {e}")))?;
        Ok(StoppedTask {
            task_id: info.task_id,
            kind: info.kind,
            status: info.state.status,
            message: info.state.message,
        })
    }

    /// The whole output file of a background task of an open session: the
    /// live task's, or for a task of an earlier run of a resumed session
    /// (no longer in the task manager) `sessions/<id>/tasks/<task id>.log`
    /// when it exists. The id must look like a task id (`bash_3`), so no
    /// other path can be asked for.
    pub fn task_output_file(&self, session_id: &str, task_id: &str) -> Result<PathBuf, HostError> {
        let open = self.open(session_id)?;
        if let Ok(info) = open.tasks.info(task_id) {
            return Ok(info.output_path);
        }
        let well_formed = task_id.split_once('_').is_some_and(|(kind, n)| {
            !kind.is_empty()
                && kind.bytes().all(|b| b.is_ascii_lowercase())
                && !n.is_empty()
                && n.bytes().all(|b| b.is_ascii_digit())
        });
        if !well_formed {
            return Err(HostError::Other(format!(
                "session {session_id}: {task_id:?} is not a background task id (like bash_1)"
            )));
        }
        let path = open.tasks.dir().join(format!("{task_id}.log"));
        if path.is_file() {
            Ok(path)
        } else {
            Err(HostError::Other(format!(
                "session {session_id}: task {task_id} has no output file at {}",
                path.display()
            )))
        }
    }

    /// Whether an exchange is running in the session.
    pub fn is_running(&self, session_id: &str) -> Result<bool, HostError> {
        Ok(!lock(&self.open(session_id)?.current).is_empty())
    }

    /// Changes the session's permission mode: the engine decides with it at
    /// once, the tools' context from the next turn; emits `mode_changed`.
    /// `bypassPermissions` is refused while policy disables it (the engine
    /// would decide as `default` anyway; the mode shown must not lie).
    pub fn set_mode(&self, session_id: &str, mode: PermissionMode) -> Result<(), HostError> {
        let open = self.open(session_id)?;
        if mode == PermissionMode::BypassPermissions && open.engine.settings().bypass_disabled {
            return Err(HostError::Other(format!(
                "session {session_id}: bypassPermissions is disabled by policy \
                 (permissions.disableBypassPermissionsMode is \"disable\" in a settings file); \
                 the mode stays {}",
                mode_text(open.engine.mode())
            )));
        }
        open.engine.set_mode(mode);
        open.emitter.emit(EventBody::ModeChanged { mode });
        Ok(())
    }

    /// The session's current permission mode.
    pub fn mode(&self, session_id: &str) -> Result<PermissionMode, HostError> {
        Ok(self.open(session_id)?.engine.mode())
    }

    /// The session rules in force.
    pub fn session_rules(&self, session_id: &str) -> Result<Vec<String>, HostError> {
        Ok(self
            .open(session_id)?
            .engine
            .session_rules()
            .into_iter()
            .map(|(_, rule)| rule)
            .collect())
    }

    /// Answers a pending `permission_requested`.
    pub fn answer_permission(
        &self,
        session_id: &str,
        tool_use_id: &str,
        answer: PermissionAnswer,
    ) -> Result<(), HostError> {
        let open = self.open(session_id)?;
        let ask = open.ask.as_ref().ok_or_else(|| {
            HostError::Other(format!(
                "session {session_id} answers its permission prompts itself (headless)"
            ))
        })?;
        ask.answer(tool_use_id, answer).map_err(HostError::Other)
    }

    /// Answers the question or plan a call of a session waits on
    /// (`interaction_requested`).
    pub fn answer_interaction(
        &self,
        session_id: &str,
        tool_use_id: &str,
        reply: gatehouse_protocol::interaction::InteractionReply,
    ) -> Result<(), HostError> {
        let open = self.open(session_id)?;
        let ask = open.ask.as_ref().ok_or_else(|| {
            HostError::Other(format!(
                "session {session_id} answers its questions itself (headless)"
            ))
        })?;
        ask.answer_interaction(tool_use_id, reply)
            .map_err(HostError::Other)
    }

    /// The calls of a session waiting for a permission answer.
    pub fn pending_permissions(&self, session_id: &str) -> Result<Vec<String>, HostError> {
        Ok(self
            .open(session_id)?
            .ask
            .as_ref()
            .map(|a| a.pending_ids())
            .unwrap_or_default())
    }

    /// The background tasks of an open session, oldest first.
    pub fn tasks(&self, session_id: &str) -> Result<Vec<TaskInfo>, HostError> {
        Ok(self.open(session_id)?.tasks.list())
    }

    /// The project folder of an open session.
    pub fn project(&self, session_id: &str) -> Result<PathBuf, HostError> {
        Ok(self.open(session_id)?.project.clone())
    }

    /// Closes a session: interrupts what runs, waits for the agent to stop,
    /// stops its background tasks (returned) and emits `session_ended`
    /// (closed). Its events stay stored, except for a session that never
    /// got a prompt: there is nothing to review, so it is deleted.
    pub async fn close(&self, session_id: &str) -> Result<Vec<TaskInfo>, HostError> {
        let open = lock(&self.sessions)
            .remove(session_id)
            .ok_or_else(|| HostError::NotOpen(session_id.to_owned()))?;
        close_open(&open).await;
        let tasks = open.tasks.shutdown().await;
        // Durable: the writer is FIFO, so once `session_ended` is stored so
        // is everything the session emitted before it.
        if let Err(e) = open
            .emitter
            .emit_durable(EventBody::SessionEnded {
                reason: SessionEndReason::Closed,
            })
            .await
        {
            tracing::warn!("closing session {session_id}: {}", e.0);
        }
        let store = Arc::clone(&self.store);
        let id = session_id.to_owned();
        tokio::task::spawn_blocking(move || {
            let mut store = lock(&store);
            if !store.session_has_prompt(&id)? {
                store.delete_session(&id)?;
            }
            Ok::<(), gatehouse_store::StoreError>(())
        })
        .await
        .map_err(|e| HostError::Other(format!("closing session {session_id}: {e}")))??;
        Ok(tasks)
    }

    /// Closes every session and waits until every event is stored and
    /// forwarded. Returns how many events could not be stored.
    pub async fn finish(&self) -> usize {
        let ids: Vec<String> = lock(&self.sessions).keys().cloned().collect();
        for id in ids {
            let _ = self.close(&id).await;
        }
        lock(&self.writer).finish()
    }

    /// The session's id as stored (for logs).
    pub fn open_sessions(&self) -> Vec<String> {
        let mut ids: Vec<String> = lock(&self.sessions)
            .values()
            .map(|s| s.id.clone())
            .collect();
        ids.sort();
        ids
    }

    /// The data directory.
    pub fn data_dir(&self) -> &Path {
        &self.config.data_dir
    }

    /// The home directory (user MCP configuration, `~/.claude`).
    pub fn home(&self) -> &Path {
        &self.config.home
    }

    /// Every open session reads its settings files again now (the app saved
    /// rules: the change takes effect without waiting for the
    /// file watcher). A session whose settings did not change reports
    /// nothing; the others emit `settings_reloaded`. Blocking (reads a few
    /// small files per session). Returns how many sessions read new settings.
    pub fn reload_settings(&self, trigger: SettingsReloadTrigger) -> usize {
        let open: Vec<Arc<OpenSession>> = lock(&self.sessions).values().cloned().collect();
        open.iter().filter(|s| s.settings.reload(trigger)).count()
    }

    /// The rule editor replaced the stored rules of `session_ids`: those
    /// that are open take them (from the store) at once. Returns problems
    /// (a stored rule that no longer parses), each naming its session.
    pub fn reload_session_rules(&self, session_ids: &[String]) -> Vec<String> {
        let mut problems = Vec::new();
        for id in session_ids {
            let Ok(open) = self.open(id) else {
                continue;
            };
            let rows = match self.store().session_rules(id) {
                Ok(rows) => rows,
                Err(e) => {
                    problems.push(format!("session {id}: its rules could not be read: {e}"));
                    continue;
                }
            };
            let rules: Vec<_> = rows
                .into_iter()
                .filter_map(|r| match crate::rules::kind_from_text(&r.kind) {
                    Some(kind) => Some((kind, r.rule)),
                    None => {
                        problems.push(format!(
                            "session {id}: stored rule {:?} has unknown kind {:?}",
                            r.rule, r.kind
                        ));
                        None
                    }
                })
                .collect();
            problems.extend(
                open.engine
                    .replace_session_rules(&rules)
                    .into_iter()
                    .map(|e| format!("session {id}: a session rule no longer parses: {e}")),
            );
        }
        problems
    }

    /// How the session and the runtime under it stand (typed, for a
    /// diagnostics view).
    pub fn diagnostics(&self, session_id: &str) -> Result<SessionDiagnostics, HostError> {
        let open = self.open(session_id)?;
        let parser = gatehouse_permissions::shell::parser_threads();
        let (reloads, kept) = open.settings.counts();
        Ok(SessionDiagnostics {
            session_id: open.id.clone(),
            parser_threads_abandoned_running: u32::try_from(parser.abandoned_running)
                .unwrap_or(u32::MAX),
            parser_threads_abandoned_total: parser.abandoned_total,
            parser_refused_busy_total: parser.refused_busy_total,
            settings_watcher_running: open.settings.is_watching(),
            settings_reloads: reloads,
            settings_reloads_kept_previous: kept,
        })
    }
}

async fn close_open(open: &OpenSession) {
    open.settings.stop();
    lock(&open.prompts).take();
    for (_, token) in lock(&open.current).iter() {
        token.cancel();
    }
    let actor = lock(&open.actor).take();
    if let Some(actor) = actor {
        let _ = actor.await;
    }
    // Bounded by each hook's own timeout.
    open.hooks.session_end("other").await;
    if let Some(mcp) = &open.mcp {
        mcp.shutdown();
    }
}
