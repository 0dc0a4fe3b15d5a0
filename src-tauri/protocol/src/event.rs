//! Events: what the runtime reports while it works.
//!
//! Every event carries the session it belongs to and a millisecond timestamp,
//! and serialises to one flat JSON object with a snake_case `type` field, so a
//! stream of them is JSON lines that the UI, the transcript store and
//! `gatehouse-cli` all consume unchanged.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::permission::{DecisionReason, PermissionBehavior, TraceStep};

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
    /// Progress streamed by a running call (output bytes, MCP progress…).
    ToolProgress {
        /// The call.
        tool_use_id: String,
        /// Tool-specific progress payload.
        data: serde_json::Value,
    },
    /// A call ended — ran, failed validation, was refused or was cancelled.
    /// Every `tool_queued` is closed by exactly one of these.
    ToolCompleted {
        /// The call.
        tool_use_id: String,
        /// Whether the result is an error.
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
    /// A background task started (a Bash call with `run_in_background`).
    /// Closed by exactly one `task_completed`.
    TaskStarted {
        /// The task's id, as TaskOutput and TaskStop take it.
        task_id: String,
        /// The Bash call that started it.
        tool_use_id: Option<String>,
        /// The command line.
        command: String,
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
pub enum HookEventName {
    /// Before the permission decision.
    PreToolUse,
    /// After a call that succeeded.
    PostToolUse,
    /// After a call that failed.
    PostToolUseFailure,
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
