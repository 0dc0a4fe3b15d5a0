//! Guarding Claude Code (issue 25): what a Claude Code hook process asks
//! the running Gatehouse window over its local socket when Claude Code is
//! about to prompt (`PermissionRequest`), and the answer it gets back (the
//! permission modal's own [`PermissionAnswer`]).

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::diff::FileDiff;
use crate::permission::{DecisionReason, RuleFile, TraceStep};
use crate::session::PermissionAnswer;

/// A Claude Code tool call waiting for the user, as the permission modal
/// shows it (origin Claude Code).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ClaudeCodeAsk {
    /// Claude Code's session id (also the Gatehouse session recording it).
    pub session_id: String,
    /// Claude Code's id of the call.
    pub tool_use_id: String,
    /// The tool.
    pub tool_name: String,
    /// Its input.
    pub input: serde_json::Value,
    /// The project (Claude Code's `CLAUDE_PROJECT_DIR`, else its cwd).
    pub project: String,
    /// Why Gatehouse's engine would ask.
    pub reason: DecisionReason,
    /// Every layer consulted.
    pub trace: Vec<TraceStep>,
    /// Rules "for this session" / "always" would add (Claude Code syntax).
    pub suggestions: Vec<String>,
    /// The change an Edit/Write would make.
    pub preview: Option<FileDiff>,
}

/// One line the hook process sends: the token of this app start and the ask.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BridgeRequest {
    /// The token the app wrote (owner-only) when it started.
    pub token: String,
    /// The ask.
    pub ask: ClaudeCodeAsk,
}

/// The one line the app answers with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BridgeReply {
    /// The user's answer.
    Answer(PermissionAnswer),
    /// No answer (a bad token, the window closed, the user dismissed it):
    /// Claude Code asks in its terminal.
    Unanswered(String),
}

/// The Tauri event name [`ClaudeCodeAskShown`]s are emitted on.
pub const CLAUDE_CODE_ASK_CHANNEL: &str = "gatehouse://claude-code-ask";

/// A Claude Code ask for the window's permission modal, with what it needs
/// to answer it: the id to answer with and where "always allow" can write.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ClaudeCodeAskShown {
    /// What `answer_claude_code_ask` names.
    pub request_id: String,
    /// The ask.
    pub ask: ClaudeCodeAsk,
    /// The settings files "always allow" can write to (Claude Code's own,
    /// in its syntax), the first the default.
    pub rule_files: Vec<RuleFile>,
}

/// The Tauri event name [`ClaudeCodeAskWithdrawn`]s are emitted on.
pub const CLAUDE_CODE_ASK_WITHDRAWN_CHANNEL: &str = "gatehouse://claude-code-ask-withdrawn";

/// Why a shown Claude Code ask stopped waiting without an answer from the
/// window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ClaudeCodeAskWithdrawnReason {
    /// The hook's connection closed (the hook gave up after its own
    /// timeout, or its process ended): Claude Code asks in its terminal.
    HookGone,
    /// The window's own wait ran out.
    TimedOut,
}

/// A Claude Code ask shown with [`ClaudeCodeAskShown`] that can no longer
/// be answered: the modal drops it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ClaudeCodeAskWithdrawn {
    /// The ask's `request_id`.
    pub request_id: String,
    /// Why.
    pub reason: ClaudeCodeAskWithdrawnReason,
}

/// Arguments of `answer_claude_code_ask`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct AnswerClaudeCodeAskArgs {
    /// The ask's `request_id`.
    pub request_id: String,
    /// The answer; `None` dismisses it (Claude Code asks in its terminal).
    pub answer: Option<PermissionAnswer>,
}
