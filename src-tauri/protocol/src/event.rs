//! Events: what the runtime reports while it works.
//!
//! Every event carries the session it belongs to and a millisecond timestamp,
//! and serialises to one flat JSON object with a snake_case `type` field, so a
//! stream of them is JSON lines that the UI, the transcript store and
//! `gatehouse-cli` all consume unchanged.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::permission::{DecisionReason, PermissionBehavior, RuleSource, TraceStep};

/// One event of one session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct Event {
    /// The session the event belongs to.
    pub session_id: String,
    /// When it happened, in milliseconds since the Unix epoch.
    #[ts(type = "number")]
    pub ts_ms: u64,
    /// What happened.
    #[serde(flatten)]
    #[ts(flatten)]
    pub body: EventBody,
}

/// What happened; the variant name is the event's `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EventBody {
    /// A tool_use block finished streaming and was queued.
    ToolQueued {
        /// The model's id for the call.
        tool_use_id: String,
        /// The tool name as the model wrote it.
        name: String,
        /// The input as the model wrote it.
        input: serde_json::Value,
        /// Whether the call changes nothing (the tool's `is_read_only` for
        /// this input; for an MCP tool, its trusted `readOnlyHint`). False
        /// when the tool is unknown or the input invalid, and in events of
        /// builds before it existed. Front ends group reads by it.
        #[serde(default)]
        read_only: bool,
    },
    /// A call began executing.
    ToolStarted {
        /// The call.
        tool_use_id: String,
        /// Index of the batch (within the assistant message) it runs in.
        batch: u32,
        /// Whether it runs beside other calls (a concurrency-safe batch).
        concurrent: bool,
    },
    /// The permission decision for a call.
    PermissionDecided {
        /// The call.
        tool_use_id: String,
        /// The verdict.
        decision: PermissionBehavior,
        /// What settled it.
        reason: DecisionReason,
        /// Every layer consulted.
        trace: Vec<TraceStep>,
    },
    /// The engine asks the user about a call; the call waits until a front
    /// end answers with `answer_permission` (or the session is interrupted).
    /// The user's answer follows as `permission_answered`, then the call's
    /// settled `permission_decided` (reason `user_answer`).
    PermissionRequested {
        /// The call.
        tool_use_id: String,
        /// The tool's canonical name.
        tool_name: String,
        /// The input the user is asked to judge.
        input: serde_json::Value,
        /// Why the engine asks.
        reason: DecisionReason,
        /// Every layer consulted.
        trace: Vec<TraceStep>,
        /// Rules that "allow for this session" / "always allow" would add —
        /// one per sub-command for a compound shell command.
        suggestions: Vec<String>,
        /// The same rules for the user's own settings file (read in every
        /// project): paths relative to the project made absolute (`//…`).
        /// Absent in events stored before it existed.
        #[serde(default)]
        #[ts(optional, as = "Option<Vec<String>>")]
        user_suggestions: Vec<String>,
        /// The change an Edit/Write/NotebookEdit would make, when the tool
        /// can preview it.
        preview: Option<crate::diff::FileDiff>,
        /// The sub-agent whose call this is (the prompt is the session's,
        /// the call is in the sub-agent's session); absent for the
        /// session's own calls and in events stored before it existed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        agent: Option<crate::progress::SubagentRef>,
        /// For WebFetch: the host the URL reaches (WHATWG-parsed, lowercased,
        /// punycode), which a domain rule would name; absent otherwise.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        web_host: Option<String>,
    },
    /// A permission prompt was answered (by the user, `--ask`, or an
    /// interrupt, which denies).
    PermissionAnswered {
        /// The call.
        tool_use_id: String,
        /// The answer.
        answer: crate::session::PermissionAnswer,
    },
    /// A call that needs the user's answer (AskUserQuestion, ExitPlanMode)
    /// waits for it: shown as the question or the plan, not as a plain
    /// permission prompt. Answered with `answer_interaction`; the reply
    /// follows as `interaction_answered`, then the call's
    /// `permission_decided` (reason `user_answer`).
    InteractionRequested {
        /// The call.
        tool_use_id: String,
        /// The tool's canonical name.
        tool_name: String,
        /// What the user is asked.
        interaction: crate::interaction::Interaction,
    },
    /// The reply to an `interaction_requested` (the user, `--answer` /
    /// `--ask` in headless runs, or an interrupt: `unanswered`).
    InteractionAnswered {
        /// The call.
        tool_use_id: String,
        /// The reply.
        reply: crate::interaction::InteractionReply,
    },
    /// Rules were added to the session ("allow for this session"); they are
    /// stored and restored when the session is resumed.
    SessionRulesAdded {
        /// The rule texts, e.g. `Bash(npm test)`.
        rules: Vec<String>,
    },
    /// The session's permission mode changed (the user, or plan mode).
    ModeChanged {
        /// The new mode.
        mode: crate::permission::PermissionMode,
    },
    /// The session read its settings files again (one of them changed on
    /// disk, or the app's rule editor saved). When
    /// `applied` is false the new settings would have lost restrictions (a
    /// malformed file, an unparseable deny rule) and the previous rules stay
    /// in force until the files are fixed.
    SettingsReloaded {
        /// Whether the settings just read are now in force.
        applied: bool,
        /// What made the session read them.
        trigger: SettingsReloadTrigger,
        /// Problems found in the files (also when applied).
        problems: Vec<SettingsProblem>,
    },
    /// The session's MCP servers follow a change of their configuration
    /// (the app's MCP panel saved, removed, disabled or approved a server):
    /// which started, stopped, or restarted with a new configuration. The
    /// session's tools follow at its next model request; each server's
    /// state (connected, failed…) comes as its own `mcp_server_state`.
    McpServersChanged {
        /// Servers that run now and did not before (added, enabled,
        /// approved), sorted.
        started: Vec<String>,
        /// Servers that ran and do not any more (removed, disabled), sorted;
        /// their tools are gone from the session.
        stopped: Vec<String>,
        /// Servers whose configuration changed, started again, sorted.
        restarted: Vec<String>,
    },
    /// Progress streamed by a running call (output bytes, a file diff, MCP
    /// progress…).
    ToolProgress {
        /// The call.
        tool_use_id: String,
        /// What it reported, tagged by `kind`.
        data: crate::progress::ToolProgressData,
    },
    /// A call ended — ran, failed validation, was refused or was cancelled.
    /// Every `tool_queued` is closed by exactly one of these.
    ToolCompleted {
        /// The call.
        tool_use_id: String,
        /// How the call ended. Front ends read this, never the text.
        status: ToolCallStatus,
        /// Whether the result is an error (as the model is told; true for
        /// every status but `ok`).
        is_error: bool,
        /// The tool_result content sent to the model.
        content: Vec<ContentBlock>,
        /// Wall time from start to completion.
        #[ts(type = "number")]
        duration_ms: u64,
        /// Where the full result was written when it exceeded the budget.
        persisted_path: Option<String>,
    },
    /// A call was refused before any permission check because its tool_use
    /// block or its input was invalid; nothing ran. A `tool_completed` with
    /// the error sent to the model follows.
    ToolInputRejected {
        /// The call.
        tool_use_id: String,
        /// The stage that refused it.
        stage: RejectionStage,
        /// What was wrong, as sent to the model.
        message: String,
    },
    /// A hook ran for a call (PreToolUse before the permission decision,
    /// PostToolUse / PostToolUseFailure after the call).
    HookRan {
        /// The call.
        tool_use_id: String,
        /// Which hook event it ran for.
        hook_event: HookEventName,
        /// The hook's name (or command, for command hooks).
        hook: String,
        /// The permission decision it returned, if any (PreToolUse only).
        decision: Option<PermissionBehavior>,
        /// Whether it blocked the call (or, after the call, the turn).
        blocked: bool,
        /// Whether it rewrote the call's input.
        input_updated: bool,
        /// Its reason, block message or additional context, if any.
        message: Option<String>,
        /// Set when the hook itself failed; such a failure never blocks.
        error: Option<String>,
        /// What ran, from which settings file, how long it took and what it
        /// printed (hooks from settings files; `null` for in-process hooks
        /// and in events of builds before it existed).
        #[serde(default)]
        #[ts(optional = nullable)]
        run: Option<HookRun>,
    },
    /// The session read the `hooks` of its settings files (at start, and
    /// again when the files changed and the hooks with them): how many run,
    /// which were read but do not run and why (an untrusted project's, a
    /// managed policy's `allowManagedHooksOnly`, an unknown event), and the
    /// malformed entries with file, line and column (never run).
    HooksLoaded {
        /// Handlers that run.
        active: u32,
        /// Handlers read but not run, with why.
        not_run: Vec<HookNotRun>,
        /// Malformed entries and unknown event names.
        problems: Vec<SettingsProblem>,
        /// `None` at start; what made the session read them again otherwise.
        trigger: Option<SettingsReloadTrigger>,
    },
    /// Built-in tools left out of the session's pool because something they
    /// need is not configured (WebSearch without a search provider), with
    /// the reason; sent at start when any is, so the UI can say why.
    ToolsUnavailable {
        /// The tools and why.
        tools: Vec<crate::web::UnavailableTool>,
    },
    /// The session's Bash sandbox is enabled but cannot run here (issue 24
    /// item 4): sent once, at start or when a settings change enables it.
    /// Commands run unconfined and ask as usual.
    SandboxUnavailable {
        /// Why, the details and how to fix it.
        unavailable: crate::sandbox::SandboxUnavailable,
    },
    /// The session's `sandbox` settings were read: at start (when the
    /// sandbox is enabled or its keys have problems) and whenever a
    /// settings file's `sandbox` key changed, after which the session's
    /// sandbox follows it from the next Bash call on (issue 24 item 3).
    SandboxSettingsRead {
        /// The sandbox now.
        state: crate::sandbox::SessionSandboxState,
        /// Problems in the `sandbox` keys read (wrong shapes, keys
        /// Gatehouse does not support, writable roots that do not exist),
        /// with file, line and column.
        problems: Vec<SettingsProblem>,
        /// False at start, true after a settings change.
        reloaded: bool,
    },
    /// A call returned a context modifier (e.g. "the working directory is now
    /// X"). It is applied between batches, and only for calls that are not
    /// concurrency-safe; otherwise it is reported here and ignored.
    ContextModified {
        /// The call that returned it.
        tool_use_id: String,
        /// What the modifier does.
        description: String,
        /// Whether it was applied.
        applied: bool,
    },
    /// A background task started: a Bash call with `run_in_background`
    /// (kind `process`) or an Agent call with `run_in_background` (kind
    /// `agent`; an agent that finished and is sent a message with
    /// SendMessage starts again under the same id). Each `task_started` is
    /// closed by exactly one `task_completed`.
    TaskStarted {
        /// The task's id, as TaskOutput, TaskStop and SendMessage take it
        /// (`bash_<n>` or `agent_<n>`, one numbering per session).
        task_id: String,
        /// What the task runs (`process` in events of builds before agents
        /// ran as tasks; always written now).
        #[serde(default)]
        #[ts(optional, as = "Option<TaskKind>")]
        kind: TaskKind,
        /// The Bash or Agent call that started it.
        tool_use_id: Option<String>,
        /// The command line (an agent: its type and task description).
        command: String,
        /// An agent task's own session (its transcript); `null` for processes.
        #[serde(default)]
        #[ts(optional = nullable)]
        agent_session_id: Option<String>,
        /// An agent task's type (`general-purpose`, `Explore`, …).
        #[serde(default)]
        #[ts(optional = nullable)]
        subagent_type: Option<String>,
        /// The model's description of the command, if it gave one.
        description: Option<String>,
        /// Where the task's whole output is being written.
        output_path: String,
    },
    /// A background task ended: it finished on its own, was stopped by
    /// TaskStop, or was stopped because the session closed.
    TaskCompleted {
        /// The task.
        task_id: String,
        /// What the task ran (as in its `task_started`).
        #[serde(default)]
        #[ts(optional, as = "Option<TaskKind>")]
        kind: TaskKind,
        /// How it ended.
        status: TaskStatus,
        /// Its exit code, when it exited rather than being killed.
        exit_code: Option<i32>,
        /// Where its whole output is.
        output_path: String,
        /// What happened, for people ("exited with code 0", "stopped when
        /// the session closed: SIGTERM, then SIGKILL after 3 s").
        message: String,
    },
    /// New output of a running background process task, for the tasks
    /// panel (ANSI escapes kept). Bounded and throttled by the task
    /// manager (`gatehouse_tools::tasks::OUTPUT_EVERY_TICKS`,
    /// `OUTPUT_MAX_BYTES`): at most four events a second per task, each
    /// carrying at most 4 KiB of the newest bytes;
    /// older bytes it leaves out are counted in `skipped_bytes` (the whole
    /// output is in the task's file). A task that prints nothing emits none.
    TaskOutput {
        /// The task.
        task_id: String,
        /// The new text (UTF-8; a character split across events is held
        /// back for the next one).
        text: String,
        /// Bytes produced since the previous event that this one does not carry.
        skipped_bytes: u64,
        /// Bytes the task has produced in all so far.
        total_bytes: u64,
    },
    /// An MCP server changed state (connecting, connected, failed,
    /// needs-auth, disabled, awaiting approval), or its tool list changed
    /// while connected. Never carries secrets (env values, headers, tokens).
    McpServerState {
        /// The server's name as configured.
        server: String,
        /// Its state now.
        state: McpServerStatus,
        /// What happened, for people (the error, what to do next).
        message: Option<String>,
        /// Its tools' qualified names (`mcp__<server>__<tool>`), sorted;
        /// empty unless connected.
        tools: Vec<String>,
    },
    // ---- Session-level events (the agent loop, issue 7). ----
    /// A session began: the model and project it runs against.
    SessionStarted {
        /// The provider (`anthropic`, `openai`, `replay`).
        provider: String,
        /// The model name sent to the provider.
        model: String,
        /// The project folder the tools work in.
        project: String,
        /// Whether the session continues an earlier one (its history was
        /// reloaded from the store).
        resumed: bool,
    },
    /// The user sent a prompt; a new exchange with the model begins.
    UserPrompt {
        /// The prompt text.
        text: String,
    },
    /// Text the loop added to the conversation on its own, not typed by
    /// the user: a background task's end (`<task-notification>`), a
    /// message sent to a background agent (SendMessage), a Stop hook's
    /// feedback. It goes into the next model request's user message; stored
    /// so a resumed session's history has it too.
    ContextAdded {
        /// Where the text came from.
        source: ContextSource,
        /// The text exactly as the model reads it.
        text: String,
    },
    /// The tool block of the model requests changed (issue 21): at the
    /// first request, when ToolSearch loaded deferred tools, when the pool
    /// changed. Shown in the session header.
    ToolBlockChanged {
        /// Whether deferral is on: deferred tools are listed by name and
        /// loaded with ToolSearch.
        tool_search: bool,
        /// Tools whose full definitions the model has: the ones never
        /// deferred and the deferred ones loaded so far.
        loaded: u32,
        /// Deferred tools not loaded yet (listed by name only).
        deferred: u32,
        /// Bytes of the tool block: the full definitions sent (JSON) plus,
        /// with deferral, the list of deferred tools' names.
        #[ts(type = "number")]
        bytes: u64,
    },
    /// A model request is being sent (one per turn).
    ModelRequestStarted {
        /// The turn number within the session, from 1.
        turn: u32,
        /// How many messages of history the request carries.
        messages: u32,
    },
    /// A model request failed with a retryable error (429, 5xx,
    /// `overloaded_error`, a dropped connection before any output) and is
    /// sent again after a delay.
    ModelRequestRetried {
        /// The turn.
        turn: u32,
        /// Which retry this is, from 1.
        attempt: u32,
        /// How long the loop waits before retrying.
        #[ts(type = "number")]
        delay_ms: u64,
        /// What went wrong.
        error: String,
    },
    /// A piece of assistant text as it streams.
    AssistantTextDelta {
        /// The turn.
        turn: u32,
        /// The content block index within the assistant message.
        index: u32,
        /// The new text.
        text: String,
    },
    /// A piece of the model's extended thinking as it streams.
    AssistantThinkingDelta {
        /// The turn.
        turn: u32,
        /// The content block index within the assistant message.
        index: u32,
        /// The new thinking text.
        thinking: String,
    },
    /// The complete assistant message of a turn, exactly as it enters the
    /// history (Anthropic content blocks: text, thinking, tool_use).
    AssistantMessage {
        /// The turn.
        turn: u32,
        /// The provider's message id, if it gave one.
        message_id: Option<String>,
        /// The content blocks.
        content: Vec<serde_json::Value>,
        /// Why the model stopped (`end_turn`, `tool_use`, `max_tokens`, …).
        stop_reason: String,
    },
    /// The user message of tool_result blocks sent back to the model, one per
    /// tool_use of the turn, in the original order.
    ToolResultsReturned {
        /// The turn whose tool calls these answer.
        turn: u32,
        /// The content blocks (tool_result, then any follow-up text).
        content: Vec<serde_json::Value>,
    },
    /// Token usage reported by the provider for one turn.
    Usage {
        /// The turn.
        turn: u32,
        /// Input tokens not read from or written to the cache.
        #[ts(type = "number")]
        input_tokens: u64,
        /// Output tokens.
        #[ts(type = "number")]
        output_tokens: u64,
        /// Input tokens written to the prompt cache.
        #[ts(type = "number")]
        cache_creation_input_tokens: u64,
        /// Input tokens read from the prompt cache.
        #[ts(type = "number")]
        cache_read_input_tokens: u64,
    },
    /// A turn ended: the model's reply was complete and its tool calls (if
    /// any) have all been answered.
    TurnCompleted {
        /// The turn.
        turn: u32,
        /// Why the model stopped.
        stop_reason: String,
        /// How many tool calls the turn made.
        tool_calls: u32,
        /// Wall time of the turn (request, stream and tools).
        #[ts(type = "number")]
        duration_ms: u64,
    },
    /// Something went wrong in the session (not in a tool call): a provider
    /// error, a malformed stream, a timeout, the turn limit. The transcript
    /// up to here is kept.
    SessionError {
        /// What kind of failure.
        kind: SessionErrorKind,
        /// What happened, for people.
        message: String,
        /// Whether the session can continue with another prompt.
        recoverable: bool,
    },
    /// An entry of an imported transcript that Gatehouse has no event for
    /// (Claude Code's `attachment`, `queue-operation`, `api-request`, …,
    /// and entry types newer than the importer), kept verbatim so nothing
    /// is lost. Viewers may hide it.
    ImportedEntry {
        /// The transcript format, e.g. `claude_code`.
        source: String,
        /// The entry's own type name (`"unknown"` when it had none).
        entry_type: String,
        /// The line of the source file it came from (from 1).
        #[ts(type = "number")]
        line: u64,
        /// The entry exactly as read.
        raw: serde_json::Value,
    },
    /// Progress of an import of Claude Code transcripts started from the
    /// session browser, emitted after every batch and never stored. Its
    /// `session_id` is the session the file being read imports into.
    ImportProgress {
        /// Files and bytes done so far.
        progress: crate::transcript::ImportProgress,
    },
    /// The session (or the current prompt's exchange) ended.
    SessionCompleted {
        /// How it ended.
        status: SessionStatus,
        /// Model requests made.
        turns: u32,
    },
    /// The session was closed: nothing runs in it until it is resumed.
    /// Its time before this event counts towards its duration; the gap to
    /// this event does not.
    SessionEnded {
        /// Why it ended.
        reason: SessionEndReason,
    },
}

/// Where the text of a `context_added` came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ContextSource {
    /// A background task (Bash or agent) ended and the model was not yet
    /// told (a `<task-notification>` block).
    TaskNotification,
    /// The agent that started this background agent sent it a message
    /// (SendMessage) while it ran.
    AgentMessage,
    /// A Stop hook refused the end of the exchange and said why.
    StopHookFeedback,
}

/// Why a session ended (`session_ended`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum SessionEndReason {
    /// Its window or `gatehouse-cli run` closed it.
    Closed,
    /// The process running it stopped without closing it (the app was
    /// quit or killed); found and recorded at the next start-up.
    AppClosed,
}

/// What kind of failure a `session_error` reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum SessionErrorKind {
    /// The API key was refused (401/403) or is missing.
    Authentication,
    /// The provider refused the request as invalid (400, 404, 413, 422).
    InvalidRequest,
    /// Rate limited or overloaded after every retry.
    Overloaded,
    /// The provider failed (5xx) after every retry.
    Server,
    /// The connection failed or dropped.
    Network,
    /// The provider stopped answering in time.
    Timeout,
    /// The stream could not be understood (malformed SSE or JSON, an
    /// unexpected event order, a reply over the size limit).
    MalformedStream,
    /// The model stopped for a reason Gatehouse does not know.
    UnknownStopReason,
    /// The per-session turn limit was reached.
    TurnLimit,
    /// The reply hit `max_tokens` before it was complete.
    MaxTokens,
    /// The replay script has no turn left or is invalid.
    Script,
    /// Storing the session failed.
    Storage,
    /// A UserPromptSubmit hook blocked the prompt (it was not sent).
    HookBlocked,
}

/// How a session (or one prompt's exchange) ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum SessionStatus {
    /// The model finished without asking for more tools.
    Completed,
    /// The user interrupted.
    Interrupted,
    /// The per-session turn limit stopped it.
    TurnLimit,
    /// An error stopped it (see the preceding `session_error`).
    Failed,
}

/// How a tool call ended (`tool_completed`'s `status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ToolCallStatus {
    /// It ran and succeeded.
    Ok,
    /// It ran and failed, or was refused before running because its
    /// block or input was invalid (a `tool_input_rejected` precedes it).
    Error,
    /// The permission decision, a hook or the user refused it; nothing ran.
    Denied,
    /// The user interrupted it (while it ran, or before it started).
    Interrupted,
    /// It was stopped for another reason than the user: a parallel call
    /// failed, or the tool reported that it was cancelled.
    Cancelled,
    /// It ran past its time limit and was stopped (Bash's `timeout`, an
    /// MCP server's call timeout).
    TimedOut,
}

impl ToolCallStatus {
    /// Whether the model is told the result is an error.
    pub fn is_error(self) -> bool {
        self != Self::Ok
    }
}

/// The pipeline stage that refused a call before it could run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum RejectionStage {
    /// The tool_use block itself was malformed: no id, a duplicate id, an
    /// input that is not a JSON object, or an input over the size limit.
    Malformed,
    /// No tool of that name or alias is in the pool.
    Lookup,
    /// The input does not match the tool's JSON Schema.
    Schema,
    /// The tool's own semantic checks (`validate_input`) failed.
    ValidateInput,
}

/// The hook events Gatehouse runs hooks for (Claude Code's names).
/// `hook_ran` events of the session-level ones (prompt, stop, session
/// start/end, notification) have an empty `tool_use_id`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
pub enum HookEventName {
    /// Before the permission decision.
    PreToolUse,
    /// After a call that succeeded.
    PostToolUse,
    /// After a call that failed.
    PostToolUseFailure,
    /// Before a permission prompt is shown (a hook may answer it).
    PermissionRequest,
    /// A prompt was submitted, before the model sees it.
    UserPromptSubmit,
    /// A session opened.
    SessionStart,
    /// A session closed.
    SessionEnd,
    /// The model finished answering (a hook may ask it to go on).
    Stop,
    /// Gatehouse is waiting for the user (a permission prompt).
    Notification,
}

/// A hook from a settings file that is listed but not run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct HookNotRun {
    /// The event name as written (`PreToolUse`, or one Gatehouse does not fire).
    pub event: String,
    /// The command or URL.
    pub command: String,
    /// The settings file.
    pub file: String,
    /// Where the handler starts (line, from 1).
    pub line: u32,
    /// Column (characters, from 1).
    pub column: u32,
    /// Why it does not run.
    pub why: String,
    /// Why it does not run, typed (`None` in events of earlier builds).
    #[serde(default)]
    #[ts(optional = nullable)]
    pub reason: Option<HookNotRunReason>,
}

/// Why a hook that was read does not run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum HookNotRunReason {
    /// The managed policy sets `disableAllHooks`.
    PolicyDisablesAll,
    /// The managed policy sets `allowManagedHooksOnly` (and this hook is not the policy's).
    ManagedHooksOnly,
    /// A non-policy settings file sets `disableAllHooks`.
    DisabledBySettings,
    /// A project or local hook of a project that is not trusted.
    Untrusted,
    /// The handler is switched off (`"disabled": true`).
    Disabled,
    /// Its event is one Gatehouse does not fire.
    UnknownEvent,
}

/// The kind of a settings-file hook handler.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum HookHandlerKind {
    /// A process (`sh -c command`, or `args` without a shell).
    Command,
    /// An HTTP POST of the same JSON.
    Http,
}

/// One run of a hook from a settings file, for `hook_ran`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct HookRun {
    /// Command or HTTP.
    pub handler: HookHandlerKind,
    /// The command as written (or the `args` joined by spaces), or the URL.
    pub command: String,
    /// The entry's matcher as written (`None`: absent, matches all).
    pub matcher: Option<String>,
    /// The settings source the hook is from.
    pub source: Option<RuleSource>,
    /// The settings file.
    pub file: Option<String>,
    /// Wall time of the run.
    #[ts(type = "number")]
    pub duration_ms: u64,
    /// The exit code (command) or HTTP status (http); `None` when it was
    /// killed by a signal, timed out or could not start.
    pub exit_code: Option<i32>,
    /// The signal that ended the process, if one did.
    pub signal: Option<i32>,
    /// It did not answer within its timeout (its process group was killed;
    /// the call went on as if there were no hook).
    pub timed_out: bool,
    /// The first KB of its stdout (or response body).
    pub stdout: String,
    /// The first KB of its stderr.
    pub stderr: String,
    /// Output was longer than what is kept here, or over the 1 MiB cap.
    pub output_truncated: bool,
}

/// A block of tool_result content, in the Anthropic Messages API's shape.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock {
    /// Plain text.
    Text {
        /// The text.
        text: String,
    },
    /// An image, base64-encoded.
    Image {
        /// The image data and type.
        source: ImageSource,
    },
    /// A deferred tool that ToolSearch loaded (issue 21): the Messages
    /// API expands it into the tool's full definition; other providers get
    /// the tool's schema appended to their tool list instead.
    ToolReference {
        /// The tool's name (`mcp__github__create_issue`).
        tool_name: String,
    },
}

/// Base64 image data as the Messages API expects it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ImageSource {
    /// Always `base64`.
    #[serde(rename = "type")]
    pub kind: String,
    /// e.g. `image/png`.
    pub media_type: String,
    /// Base64 data.
    pub data: String,
}

/// What a background task runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum TaskKind {
    /// A shell command (Bash `run_in_background`) in its own process group.
    #[default]
    Process,
    /// A sub-agent (Agent `run_in_background`): its own loop and session.
    Agent,
}

/// The state of a background task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// Still running.
    Running,
    /// Exited with code 0.
    Completed,
    /// Exited with another code, or was killed by a signal it did not
    /// receive from Gatehouse.
    Failed,
    /// Stopped by Gatehouse (TaskStop, or the session closing).
    Stopped,
}

/// The connection state of an MCP server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum McpServerStatus {
    /// Starting the process or opening the connection, or reconnecting.
    Connecting,
    /// Initialised; its tools are available.
    Connected,
    /// Could not start or connect, or crashed too often; see the message.
    Failed,
    /// The server refused our credentials (HTTP 401/403): sign in again or
    /// fix the token.
    NeedsAuth,
    /// Turned off in the configuration.
    Disabled,
    /// A project server (`.mcp.json`) the user has not approved yet.
    AwaitingApproval,
}

/// What made a session read its settings files again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum SettingsReloadTrigger {
    /// A settings file changed on disk (seen by the session's watcher).
    FileChanged,
    /// The rule editor saved (or undid) rules.
    RulesSaved,
    /// The rule editor's Hooks view saved a hook edit.
    HooksSaved,
}

/// One problem in a settings file, where it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SettingsProblem {
    /// The file.
    pub file: String,
    /// Its line (from 1).
    pub line: u32,
    /// Its column (characters, from 1).
    pub column: u32,
    /// What is wrong.
    pub message: String,
    /// True when the problem may hide deny or ask rules (such settings are
    /// not put in force by a reload).
    pub loses_restrictions: bool,
}
