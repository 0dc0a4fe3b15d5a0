//! Sessions as a front end drives them: starting and resuming, prompts,
//! interrupts, permission answers and mode changes (issue 9), and the
//! summaries the session lists show (issue 11).
//!
//! The runtime reports what happens in a session through
//! [`crate::event::Event`]s, delivered to the desktop UI on
//! [`EVENT_CHANNEL`] and to `gatehouse-cli run` as JSON lines.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::event::Event;
use crate::permission::{PermissionMode, RuleSource};

/// The Tauri event name every runtime [`Event`] is emitted on.
pub const EVENT_CHANNEL: &str = "gatehouse://event";

/// Which model a session talks to. API keys are never part of this: they
/// come from the environment or the OS keychain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ProviderChoice {
    /// Plays a script offline (the demo, tests, re-running a session).
    Replay {
        /// Path of a script file; `None` plays the built-in demo script
        /// against the project.
        script: Option<String>,
    },
    /// The Anthropic Messages API.
    Anthropic {
        /// The model name, e.g. `claude-sonnet-4-5`.
        model: String,
        /// Overrides the API base URL (else settings or `ANTHROPIC_BASE_URL`).
        base_url: Option<String>,
    },
    /// An OpenAI-compatible chat-completions server (Ollama, vLLM, …).
    #[serde(rename = "openai")]
    OpenAi {
        /// The model name.
        model: String,
        /// The server's base URL, e.g. `http://127.0.0.1:11434/v1`.
        base_url: String,
    },
}

/// Arguments of `start_session`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct StartSessionArgs {
    /// The project (row id) the session works in.
    pub project_id: i64,
    /// The model to talk to.
    pub provider: ProviderChoice,
    /// The permission mode to start in.
    pub mode: PermissionMode,
}

/// Arguments of `resume_session`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ResumeSessionArgs {
    /// The stored session to continue.
    pub session_id: String,
    /// The model to continue with; `None` continues with the session's own
    /// provider and model where that needs nothing more (Anthropic), and is
    /// refused otherwise (a replay script or an OpenAI base URL is not
    /// stored).
    pub provider: Option<ProviderChoice>,
}

/// A session that is open in the backend.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct SessionHandle {
    /// Its id, stamped on every event it emits.
    pub session_id: String,
    /// The project folder.
    pub project_path: String,
    /// The current permission mode.
    pub mode: PermissionMode,
    /// The events stored so far (empty for a new session; the history for a
    /// resumed one), oldest first, with its sub-agents' events where they
    /// were written. For a long resumed session only its end: the last
    /// turns, from a turn boundary, so it opens on its last screen at once;
    /// the `earlier_events` before them come from `session_events_before`
    /// (with `subagents: true`).
    pub events: Vec<Event>,
    /// How many of the session's own stored events come before `events`
    /// (0: `events` is all).
    pub earlier_events: u32,
    /// The session rules in force ("allow for this session" answers).
    pub session_rules: Vec<String>,
    /// Where "always allow" can save rules, in the order offered, with
    /// each file's path ([`crate::permission::rule_files`]).
    pub rule_files: Vec<crate::permission::RuleFile>,
    /// Whether policy disables `bypassPermissions`
    /// (`permissions.disableBypassPermissionsMode: "disable"` in any
    /// settings file) as the session opened: `set_mode` then refuses it.
    #[serde(default)]
    #[ts(optional, as = "Option<bool>")]
    pub bypass_disabled: bool,
}

/// Arguments of `session_events_before`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SessionEventsBeforeArgs {
    /// The stored session.
    pub session_id: String,
    /// How many of its first events to return (a handle's `earlier_events`).
    pub count: u32,
    /// Also its sub-agents' events written before the first event left out,
    /// in the order written (what a resumed live session's handle holds).
    /// Absent: false.
    #[serde(default)]
    #[ts(optional)]
    pub subagents: Option<bool>,
}

/// Arguments of `send_prompt`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SendPromptArgs {
    /// The session.
    pub session_id: String,
    /// What the user typed.
    pub text: String,
}

/// Arguments of commands that name only a session (`interrupt`,
/// `close_session`, `session_events`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SessionArgs {
    /// The session.
    pub session_id: String,
}

/// Arguments of `set_mode`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SetModeArgs {
    /// The session.
    pub session_id: String,
    /// The new mode.
    pub mode: PermissionMode,
}

/// The user's answer to a permission prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PermissionAnswer {
    /// Run this call only.
    AllowOnce,
    /// Run this call and add the suggested rules for the rest of the
    /// session (stored in SQLite, restored on resume).
    AllowForSession,
    /// Run this call and write `rules` into the settings file of
    /// `destination` (`local`, `project` or `user`).
    AlwaysAllow {
        /// The rules to add, as edited by the user.
        rules: Vec<String>,
        /// Which settings file receives them.
        destination: RuleSource,
    },
    /// Refuse the call.
    Deny {
        /// Optional feedback passed to the model with the refusal.
        feedback: Option<String>,
    },
}

/// Arguments of `answer_permission`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct AnswerPermissionArgs {
    /// The session.
    pub session_id: String,
    /// The call whose prompt is answered.
    pub tool_use_id: String,
    /// The answer.
    pub answer: PermissionAnswer,
}

/// Arguments of `stop_task`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct StopTaskArgs {
    /// The session whose task it is (also the arguments of `open_task_output`).
    pub session_id: String,
    /// The task (`task_started`'s `task_id`).
    pub task_id: String,
}

/// What `open_task_output` opened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct OpenedTaskOutput {
    /// The task's whole output file.
    pub path: String,
}

/// What `stop_task` did: the task's state once it stopped (a task that had
/// already ended keeps its own status).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct StoppedTask {
    /// The task.
    pub task_id: String,
    /// What it ran: a process or a background agent.
    pub kind: crate::event::TaskKind,
    /// Its state now (`stopped`, or how it had ended before).
    pub status: crate::event::TaskStatus,
    /// How it ended, for people.
    pub message: Option<String>,
}

/// Arguments of `list_sessions`: which stored sessions, in what order.
///
/// Every filter is optional; fields added after the first release are
/// optional in TypeScript too, so older callers keep working.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ListSessionsArgs {
    /// Only sessions of this project folder; all when `None`.
    pub project_path: Option<String>,
    /// At most this many (default 100).
    pub limit: Option<u32>,
    /// The order (default: most recently active first).
    #[serde(default)]
    #[ts(optional)]
    pub sort: Option<SessionSort>,
    /// Oldest first instead of the sort's natural "biggest/newest first".
    #[serde(default)]
    #[ts(optional)]
    pub ascending: Option<bool>,
    /// Only sessions that started at or after this time (ms since the epoch).
    #[serde(default)]
    #[ts(optional)]
    pub since_ms: Option<i64>,
    /// Only sessions that started before this time (ms since the epoch).
    #[serde(default)]
    #[ts(optional)]
    pub until_ms: Option<i64>,
    /// Only sessions with this model name.
    #[serde(default)]
    #[ts(optional)]
    pub model: Option<String>,
    /// `true`: only sessions with at least one denied call; `false`: only
    /// sessions without.
    #[serde(default)]
    #[ts(optional)]
    pub had_denials: Option<bool>,
    /// `true`: only sessions with at least one error (failed call or
    /// session error); `false`: only sessions without.
    #[serde(default)]
    #[ts(optional)]
    pub had_errors: Option<bool>,
    /// Only sessions recorded by Gatehouse, or only imported ones.
    #[serde(default)]
    #[ts(optional)]
    pub origin: Option<SessionOrigin>,
}

/// How `list_sessions` orders sessions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum SessionSort {
    /// By the time its last event was stored.
    #[default]
    Updated,
    /// By the time it started.
    Started,
    /// By wall time from its first to its last event.
    Duration,
    /// By number of tool calls.
    ToolCalls,
    /// By number of errors.
    Errors,
    /// By number of denied calls.
    Denials,
    /// By tokens in plus out.
    Tokens,
}

/// Where a stored session came from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum SessionOrigin {
    /// Recorded by Gatehouse as it ran (or re-imported from a Gatehouse
    /// JSONL export).
    #[default]
    Gatehouse,
    /// Imported from a Claude Code transcript (`~/.claude/projects`).
    ClaudeCode,
}

impl SessionOrigin {
    /// The snake_case name stored in the database and printed as JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Gatehouse => "gatehouse",
            Self::ClaudeCode => "claude_code",
        }
    }

    /// Parses [`SessionOrigin::as_str`]'s output; `None` for anything else.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "gatehouse" => Some(Self::Gatehouse),
            "claude_code" => Some(Self::ClaudeCode),
            _ => None,
        }
    }
}

/// A stored session, for lists. The counters are maintained as events are
/// stored, so listing never scans events.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SessionSummary {
    /// Its id.
    pub id: String,
    /// The project folder.
    pub project_path: String,
    /// The provider name.
    pub provider: String,
    /// The model name.
    pub model: String,
    /// The permission mode it started in.
    pub mode: String,
    /// `running` (an exchange runs, or none has finished since it was
    /// opened), the status of its last `session_completed`, `ended` when it
    /// was closed before any exchange finished (see `end_reason`), or
    /// `imported` for an import that has none.
    pub status: String,
    /// Why it was last closed (`None`: open now, or imported without an
    /// end).
    pub end_reason: Option<crate::event::SessionEndReason>,
    /// The first prompt, shortened.
    pub title: Option<String>,
    /// When it was created (ms since the epoch; for an import, the time of
    /// the transcript's first entry).
    pub created_at_ms: i64,
    /// When its last event was stored (ms since the epoch).
    pub updated_at_ms: i64,
    /// How many events it has.
    pub event_count: i64,
    /// Recorded by Gatehouse or imported from Claude Code.
    pub origin: SessionOrigin,
    /// Active time in ms: the spans from each start or resume to the last
    /// event before the following close, summed (the gaps between visits
    /// do not count).
    pub duration_ms: i64,
    /// Tool calls made (`tool_queued` events).
    pub tool_calls: i64,
    /// Permission decisions that asked the user.
    pub asks: i64,
    /// Calls refused: by a rule or mode, or by the user's answer.
    pub denials: i64,
    /// Failed calls (not counting refusals) plus session errors.
    pub errors: i64,
    /// Input tokens reported by the provider, cache reads and writes included.
    pub input_tokens: i64,
    /// Output tokens reported by the provider.
    pub output_tokens: i64,
    /// For a sub-agent transcript, the session that started it.
    pub parent_session_id: Option<String>,
    /// For an import, the file it was read from.
    pub source_path: Option<String>,
}

/// Arguments of `search_sessions`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SearchSessionsArgs {
    /// The query: SQLite FTS5 syntax, or plain words when `literal`.
    pub query: String,
    /// At most this many matches (default 50).
    #[serde(default)]
    #[ts(optional)]
    pub limit: Option<u32>,
    /// Treat the query as plain words (each quoted), so `foo(` or `a-b`
    /// cannot be a syntax error.
    #[serde(default)]
    #[ts(optional)]
    pub literal: Option<bool>,
    /// Only matches in sessions of this project folder.
    #[serde(default)]
    #[ts(optional)]
    pub project_path: Option<String>,
    /// Only matches in this session (search inside one session).
    #[serde(default)]
    #[ts(optional)]
    pub session_id: Option<String>,
}

/// One full-text search match: where to jump to, and the text around it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SearchHit {
    /// The session.
    pub session_id: String,
    /// The matching event's position in the session (from 1): the place
    /// to jump to.
    pub seq: i64,
    /// The event's type.
    #[serde(rename = "type")]
    pub kind: String,
    /// The matching text with the matches in `[` `]`.
    pub snippet: String,
    /// The session's title (its first prompt, shortened).
    pub session_title: Option<String>,
    /// The session's project folder.
    pub project_path: String,
    /// The tool of the matching call, for tool events.
    pub tool_name: Option<String>,
}

/// How much disk the stored sessions take.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct StorageUsage {
    /// The database file, in bytes.
    pub database_bytes: u64,
    /// Its write-ahead log, in bytes (folded into the file at checkpoints).
    pub wal_bytes: u64,
    /// Unused pages inside the database file that `VACUUM` would return.
    pub reclaimable_bytes: u64,
    /// Files beside the database (`sessions/<id>/`: spilled tool results,
    /// Bash and task output), in bytes.
    pub session_files_bytes: u64,
    /// Stored sessions.
    pub sessions: u64,
    /// Stored events.
    pub events: u64,
}

/// Arguments of `set_api_key`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SetApiKeyArgs {
    /// `anthropic` or `openai`.
    pub provider: String,
    /// The key; stored in the OS keychain only, never echoed back.
    pub key: String,
}

/// Arguments of `api_key_status` and `delete_api_key`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ProviderArgs {
    /// `anthropic` or `openai`.
    pub provider: String,
}

/// Whether a provider has a key, and where it comes from (never the key).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ApiKeyStatus {
    /// The provider.
    pub provider: String,
    /// `keychain`, `env`, or `None` when no key is available.
    pub source: Option<String>,
}

/// A session's diagnostics: how the runtime under it stands. The shell
/// parser counts are process-wide (every session's permission engine parses
/// through the same single helper-thread slot).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SessionDiagnostics {
    /// The session.
    pub session_id: String,
    /// Shell-parser helper threads that ran past their deadline and still
    /// run (at most one: while it runs, no other such parse starts).
    pub parser_threads_abandoned_running: u32,
    /// Helper threads abandoned since the process started.
    pub parser_threads_abandoned_total: u64,
    /// Command lines not parsed because the helper thread was busy (each
    /// failed closed to an ask) since the process started.
    pub parser_refused_busy_total: u64,
    /// Whether the session's settings watcher runs (false: file changes do
    /// not reach the session; saves in the app still do).
    pub settings_watcher_running: bool,
    /// Settings reloads of this session so far.
    pub settings_reloads: u64,
    /// Of those, how many kept the previous rules (the new files would have
    /// lost restrictions).
    pub settings_reloads_kept_previous: u64,
}

/// A stored session's events as this build reads them: the reader says
/// when some could not be read, and maps a stored position (`seq`) to the
/// right event even then.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct StoredEvents {
    /// The events this build could read, oldest first.
    pub events: Vec<Event>,
    /// Positions (`seq`, from 1) of the events it could not read (written by
    /// a newer Gatehouse, or damaged), ascending; at most
    /// [`StoredEvents::MAX_LISTED_UNREADABLE`] are listed.
    #[ts(type = "number[]")]
    pub unreadable_seqs: Vec<u64>,
    /// How many events could not be read in all.
    #[ts(type = "number")]
    pub unreadable: u64,
}

impl StoredEvents {
    /// How many unreadable positions are listed, at most.
    pub const MAX_LISTED_UNREADABLE: usize = 10_000;
}
