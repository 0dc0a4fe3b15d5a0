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

/// Which settings file of Claude Code holds the guard's entries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum GuardScope {
    /// `~/.claude/settings.json`: every project.
    User,
    /// `<project>/.claude/settings.local.json`: this project, this user
    /// only (Claude Code keeps the file out of git, so the machine's path
    /// of `gatehouse-cli` is never committed).
    Project,
}

/// What a guard or unguard did to the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum GuardChange {
    /// The entries were written (or removed).
    Changed,
    /// The file already was as asked; it was not written.
    Unchanged,
}

/// Gatehouse's entries found in one settings file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct InstalledEntries {
    /// The settings file.
    pub file: String,
    /// The events that have an entry, in the guard's event order.
    pub events: Vec<String>,
    /// The commands as written (one per entry).
    pub commands: Vec<String>,
    /// Whose file it is: the user's (every project) or one project's.
    pub scope: GuardScope,
    /// The project of a project file (`None` for the user's file).
    pub project: Option<String>,
}

/// The last hook call Gatehouse answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct LastCall {
    /// The hook event (`PreToolUse`…).
    pub event: String,
    /// When, in milliseconds since the Unix epoch.
    #[ts(type = "number")]
    pub at_ms: i64,
    /// Claude Code's version, read from its transcript (`version` of its
    /// entries); `None` when the transcript did not say.
    pub claude_code_version: Option<String>,
    /// Claude Code's session id.
    pub session_id: Option<String>,
}

/// Where the guard's entries are, and the last call they made
/// (`gatehouse-cli claude-code status`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct GuardStatus {
    /// Files that hold Gatehouse's entries (user file, the project's local
    /// file, and every file `guard` installed into), with their events.
    pub installed: Vec<InstalledEntries>,
    /// Files that could not be read (malformed, unreadable): `file:line:col: cause`.
    pub problems: Vec<String>,
    /// The last hook call Gatehouse answered.
    pub last_call: Option<LastCall>,
}

/// What `guard` (or `guard --off`) did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct GuardOutcome {
    /// The settings file.
    pub file: String,
    /// The scope asked for.
    pub scope: GuardScope,
    /// Whether the entries are now installed there.
    pub installed: bool,
    /// Whether the file was written.
    pub change: GuardChange,
    /// A note for the user (e.g. the state file could not be updated).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub note: Option<String>,
}

/// Settings → Claude Code: the guard's status and what the switch installs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ClaudeCodeGuard {
    /// Where the entries are and the last call.
    pub status: GuardStatus,
    /// The user's settings file ("every project").
    pub user_file: String,
    /// Whether the user's file holds an entry for every guarded event.
    pub user_guarded: bool,
    /// The `gatehouse-cli` the entries run (installed beside the app).
    pub cli: Option<String>,
    /// Why the switch cannot install entries (no `gatehouse-cli` beside
    /// the app); `None` when it can.
    pub cli_problem: Option<String>,
}

/// Arguments of `claude_code_guard`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ClaudeCodeGuardArgs {
    /// A project whose local settings file is also looked at.
    pub project: Option<String>,
}

/// Arguments of `set_claude_code_guard`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SetClaudeCodeGuardArgs {
    /// Whose settings file.
    pub scope: GuardScope,
    /// The project, for [`GuardScope::Project`].
    pub project: Option<String>,
    /// Install (`true`) or remove (`false`) the entries.
    pub on: bool,
}
