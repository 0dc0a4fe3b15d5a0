//! The rule editor: every permission rule of a project by source, unsaved
//! edits, validation as typed, the tester, replay ("what would change") and
//! saving with conflict detection.
//!
//! The editor's unit of change is a [`RuleEdits`]: the complete rule lists
//! of each settings file (and session) the user changed. The backend turns
//! it into settings text (only `permissions.allow/ask/deny` and
//! `additionalDirectories` are rewritten; every other key and the file's
//! layout are kept) and decides, lints, replays or saves with that text in
//! place of the file on disk.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::permission::{DecisionReason, PermissionBehavior, PermissionMode, RuleSource};
use crate::project::Project;

/// The Tauri event name replay progress ([`RulesReplayProgress`]) is
/// emitted on.
pub const RULES_REPLAY_PROGRESS_CHANNEL: &str = "gatehouse://rules-replay-progress";

/// A rule list of a settings file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum RuleList {
    /// `permissions.allow`.
    Allow,
    /// `permissions.ask`.
    Ask,
    /// `permissions.deny`.
    Deny,
}

/// Arguments of `rules_view` and `undo_rules_save`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RulesProjectArgs {
    /// The project's row id.
    pub project_id: i64,
}

/// Every rule that applies in a project, by source.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct RulesView {
    /// The project.
    pub project: Project,
    /// Whether the project is trusted (its allow rules, additional
    /// directories and default mode apply only then).
    pub trusted: bool,
    /// Every settings file, highest precedence first (missing ones too:
    /// rules can be added to them).
    pub files: Vec<RuleFileView>,
    /// Sessions of the project with "for this session" rules, newest first.
    pub sessions: Vec<SessionRulesView>,
    /// The default mode the merged settings give, if any.
    pub default_mode: Option<PermissionMode>,
    /// True when some settings disable bypass mode.
    pub bypass_disabled: bool,
    /// True when the managed policy allows only policy rules to allow.
    pub managed_rules_only: bool,
    /// The additional working directories in force (resolved paths).
    pub additional_directories: Vec<String>,
    /// Tool names for completion (built-in tools, then MCP tools met in
    /// stored calls).
    pub tool_names: Vec<String>,
    /// Problems of the saved rules (errors and warnings, with places).
    pub problems: Vec<RuleProblem>,
    /// Whether the last save of this project can be undone.
    pub can_undo: bool,
}

/// One settings file and its rules.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct RuleFileView {
    /// Its path.
    pub path: String,
    /// Its source.
    pub source: RuleSource,
    /// Whether it exists.
    pub exists: bool,
    /// Whether the editor may change it.
    pub editable: bool,
    /// Why it may not be changed (managed policy, malformed, too large,
    /// read-only, …).
    pub lock_reason: Option<String>,
    /// What the file held when read, to detect a change on disk before a
    /// save; empty when the file did not exist.
    pub fingerprint: String,
    /// The rules, per list, in file order.
    pub rules: Vec<RuleView>,
    /// `permissions.additionalDirectories` as written.
    pub additional_directories: Vec<String>,
    /// `permissions.defaultMode`, if set.
    pub default_mode: Option<PermissionMode>,
}

/// One rule as written in a file or a session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RuleView {
    /// Its list.
    pub list: RuleList,
    /// The rule text.
    pub text: String,
    /// Stored calls it decided in the last 30 days.
    #[ts(type = "number")]
    pub decided_30d: u64,
}

/// The session rules of one stored session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SessionRulesView {
    /// The session's id.
    pub session_id: String,
    /// Its title (first prompt), if any.
    pub title: Option<String>,
    /// Its rules.
    pub rules: Vec<RuleView>,
}

/// A problem with a rule or a settings file (from the linter).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RuleProblem {
    /// `error` or `warning`.
    pub severity: String,
    /// `settings_error`, `shadowed_by_deny`, `shadowed_by_ask`,
    /// `duplicate`, `unknown_tool`, `not_applied`.
    pub code: String,
    /// The file (`<command line>` for flag rules).
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// The rule's list, when about a rule.
    pub list: Option<RuleList>,
    /// The rule text, when about a rule.
    pub rule: Option<String>,
    /// What is wrong.
    pub message: String,
}

/// The rule lists of one settings file after editing (the whole lists, not
/// a diff).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RuleFileEdit {
    /// The settings file.
    pub path: String,
    /// The [`RuleFileView::fingerprint`] it had when loaded (empty: it did
    /// not exist).
    pub base_fingerprint: String,
    /// `permissions.allow`.
    pub allow: Vec<String>,
    /// `permissions.ask`.
    pub ask: Vec<String>,
    /// `permissions.deny`.
    pub deny: Vec<String>,
    /// `permissions.additionalDirectories`.
    pub additional_directories: Vec<String>,
}

/// The rules of one session after editing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SessionRulesEdit {
    /// The session.
    pub session_id: String,
    /// Allow rules.
    pub allow: Vec<String>,
    /// Ask rules.
    pub ask: Vec<String>,
    /// Deny rules.
    pub deny: Vec<String>,
}

/// Unsaved edits: the files and sessions whose rules changed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RuleEdits {
    /// Changed settings files.
    pub files: Vec<RuleFileEdit>,
    /// Changed sessions.
    pub sessions: Vec<SessionRulesEdit>,
}

/// Arguments of `check_rule_edits`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct CheckRuleEditsArgs {
    /// The project.
    pub project_id: i64,
    /// The unsaved edits.
    pub edits: RuleEdits,
}

/// Arguments of `validate_rule`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ValidateRuleArgs {
    /// The project (path previews list its files).
    pub project_id: i64,
    /// The rule as typed.
    pub text: String,
}

/// A rule's syntax error, with the character span to highlight.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RuleSyntaxError {
    /// The parser's message.
    pub message: String,
    /// 1-based character column the parser reported.
    pub column: usize,
    /// 0-based character offset where the highlight starts.
    pub start: usize,
    /// 0-based character offset just past the highlight.
    pub end: usize,
}

/// What `validate_rule` found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RuleValidation {
    /// The syntax error, if the rule does not parse.
    pub error: Option<RuleSyntaxError>,
    /// The tool the rule names (canonical spelling), when it parses.
    pub tool: Option<String>,
    /// For path rules: project files the pattern matches.
    pub path_preview: Option<PathPreview>,
    /// For Bash rules: example commands that match and that do not.
    pub bash_examples: Option<BashExamples>,
}

/// Project files a path rule matches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct PathPreview {
    /// Matching files, relative to the project (at most 50).
    pub matches: Vec<String>,
    /// Files looked at.
    pub scanned: usize,
    /// True when the walk or the list stopped at its limit.
    pub truncated: bool,
}

/// Example commands for a Bash rule, decided by the real matcher.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct BashExamples {
    /// Commands the rule matches.
    pub matching: Vec<String>,
    /// Similar commands it does not match.
    pub not_matching: Vec<String>,
}

/// Arguments of `test_rule_call`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct TestRuleCallArgs {
    /// The project (its folder is the working directory).
    pub project_id: i64,
    /// The unsaved edits to decide with.
    pub edits: RuleEdits,
    /// The tool name.
    pub tool: String,
    /// The tool's input.
    pub input: serde_json::Value,
    /// The mode to decide in.
    pub mode: PermissionMode,
}

/// Which stored calls a replay re-decides.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ReplayScope {
    /// Every stored call of every project.
    All,
    /// The project's calls.
    Project,
    /// The project's calls in a time range (ms since the epoch).
    DateRange {
        /// From (inclusive).
        since_ms: Option<i64>,
        /// Until (exclusive).
        until_ms: Option<i64>,
    },
    /// One session's calls.
    Session {
        /// The session.
        session_id: String,
    },
}

/// Arguments of `replay_rule_edits`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ReplayRuleEditsArgs {
    /// The project whose edits are replayed.
    pub project_id: i64,
    /// The unsaved edits.
    pub edits: RuleEdits,
    /// Which calls.
    pub scope: ReplayScope,
    /// Chosen by the UI; progress events carry it.
    pub replay_id: String,
    /// At most this many changed calls are listed (default 1000).
    pub limit: Option<u32>,
}

/// Progress of a replay, emitted on [`RULES_REPLAY_PROGRESS_CHANNEL`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RulesReplayProgress {
    /// The replay's id.
    pub replay_id: String,
    /// Calls read so far.
    #[ts(type = "number")]
    pub done: u64,
    /// Calls in scope (counted before the replay starts).
    #[ts(type = "number")]
    pub total: u64,
}

/// How many calls went from one decision to another.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ChangeCount {
    /// The decision the calls got when they ran.
    pub from: PermissionBehavior,
    /// The decision the replayed rules give.
    pub to: PermissionBehavior,
    /// How many calls.
    #[ts(type = "number")]
    pub count: u64,
}

/// A stored call whose decision changes under the edited rules.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ReplayChangedCall {
    /// Its session.
    pub session_id: String,
    /// Its position in the session (the `tool_queued` event's sequence).
    #[ts(type = "number")]
    pub seq: i64,
    /// When it was decided (ms since the epoch).
    #[ts(type = "number")]
    pub ts_ms: i64,
    /// Its session's project folder.
    pub project_path: String,
    /// The mode it was decided in.
    pub mode: PermissionMode,
    /// The tool name.
    pub tool_name: String,
    /// The input.
    pub input: serde_json::Value,
    /// The decision the saved rules give it (before the edit).
    pub from: PermissionBehavior,
    /// The decision the edited rules give.
    pub to: PermissionBehavior,
    /// The decision it got when it ran (may differ from `from` when rules
    /// were saved or trust given since).
    pub recorded: PermissionBehavior,
    /// Why the edited rules decide so.
    pub new_reason: DecisionReason,
}

/// What a replay found: the effect of the unsaved edit (each call decided
/// with the saved rules, then with the edited ones) and, apart from it,
/// what changed since the calls were recorded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct RulesReplayReport {
    /// Calls re-decided.
    #[ts(type = "number")]
    pub total: u64,
    /// Calls the edit does not change.
    #[ts(type = "number")]
    pub unchanged: u64,
    /// Counts per change the edit makes (saved rules → edited rules), most
    /// first.
    pub changes: Vec<ChangeCount>,
    /// Not the edit: counts per difference between the decision recorded
    /// when a call ran and the saved rules' decision now (recorded →
    /// saved), most first.
    pub since_recorded: Vec<ChangeCount>,
    /// The calls the edit changes, in store order.
    pub changed_calls: Vec<ReplayChangedCall>,
    /// True when more calls changed than are listed.
    pub changed_calls_truncated: bool,
    /// Problems in the settings read (file:line:column: cause).
    pub settings_errors: Vec<String>,
    /// Stored events that could not be read.
    #[ts(type = "number")]
    pub unreadable_events: u64,
}

/// Arguments of `save_rule_edits`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SaveRuleEditsArgs {
    /// The project.
    pub project_id: i64,
    /// The edits to write.
    pub edits: RuleEdits,
    /// Write even over files changed on disk since they were loaded (the
    /// user chose to overwrite).
    pub overwrite: bool,
}

/// Arguments of `undo_rules_save`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct UndoRulesSaveArgs {
    /// The project.
    pub project_id: i64,
    /// Restore even files changed on disk since the save.
    pub overwrite: bool,
}

/// The outcome of a save or an undo.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SaveRulesOutcome {
    /// Everything was written.
    Saved {
        /// The settings files written.
        files: Vec<String>,
        /// The sessions whose rules were replaced.
        sessions: Vec<String>,
    },
    /// Nothing was written: these files changed on disk since they were
    /// loaded. The user chooses: reload, or save again with `overwrite`.
    Conflict {
        /// The files that changed.
        files: Vec<String>,
    },
}
