//! The rule editor's Hooks view: every settings-file hook of a project by
//! source and event, edits of one handler at a time (Claude Code's layout
//! kept, every other key preserved), and a test run of a handler with a
//! sample call.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::event::{HookEventName, HookHandlerKind, HookNotRunReason, SettingsProblem};
use crate::permission::{PermissionBehavior, RuleSource};
use crate::project::Project;

/// Arguments of `hooks_view`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct HooksProjectArgs {
    /// The project's row id.
    pub project_id: i64,
}

/// Every hook of a project's settings files, by source.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct HooksView {
    /// The project.
    pub project: Project,
    /// Whether the project is trusted (project and local hooks run only then).
    pub trusted: bool,
    /// Every settings file, highest precedence first (missing ones too:
    /// hooks can be added to them).
    pub files: Vec<HookFileView>,
    /// Malformed hook entries and unknown event names, with file, line and
    /// column (malformed entries are never run and not listed in `files`).
    pub problems: Vec<SettingsProblem>,
    /// The events Gatehouse fires, for the add form.
    pub events: Vec<HookEventName>,
}

/// One settings file and its hooks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct HookFileView {
    /// Its path.
    pub path: String,
    /// Its source.
    pub source: RuleSource,
    /// Whether it exists.
    pub exists: bool,
    /// Whether the editor may change it.
    pub editable: bool,
    /// Why it may not be changed (managed policy, not JSON, read-only, …).
    pub lock_reason: Option<String>,
    /// What the file held when read, to detect a change on disk before a
    /// save; empty when the file did not exist.
    pub fingerprint: String,
    /// Its hooks in file order (by event name, then group, then index).
    pub hooks: Vec<HookEntryView>,
}

/// One handler of one matcher group.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct HookEntryView {
    /// The event name as written.
    pub event: String,
    /// `hooks.<event>[group]`.
    pub group: u32,
    /// Index in the group's `hooks` list.
    pub index: u32,
    /// The group's matcher as written (`None`: absent, matches all).
    pub matcher: Option<String>,
    /// Command or HTTP.
    pub handler: HookHandlerKind,
    /// The command (exec form joined by spaces) or the URL.
    pub command: String,
    /// The `if` filter, if any.
    pub if_rule: Option<String>,
    /// Its timeout in seconds.
    pub timeout_secs: f64,
    /// `false`: switched off (`"disabled": true`).
    pub enabled: bool,
    /// Whether sessions of this project run it.
    pub runs: bool,
    /// Why it does not run, when it does not.
    pub not_run: Option<HookNotRunReason>,
    /// The handler object as written in the file (for editing).
    pub definition: serde_json::Value,
    /// Where the handler starts (line, from 1).
    pub line: u32,
    /// Column (characters, from 1).
    pub column: u32,
}

/// One change to a file's hooks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum HookEditRequest {
    /// Adds a handler under `event` with `matcher` (joining a group with
    /// the same matcher, else a new group).
    Add {
        /// The event name.
        event: String,
        /// The matcher (`None`: all).
        matcher: Option<String>,
        /// The handler object, as Claude Code writes it.
        handler: serde_json::Value,
    },
    /// Replaces handler `index` of group `group` of `event`; when `event`
    /// or `matcher` changed, the handler moves (removed, then added under
    /// `new_event` and `matcher`).
    Replace {
        /// The event it is under now.
        event: String,
        /// Its group.
        group: u32,
        /// Its index in the group.
        index: u32,
        /// The event it should be under.
        new_event: String,
        /// The matcher it should have.
        matcher: Option<String>,
        /// The new handler object.
        handler: serde_json::Value,
    },
    /// Removes a handler (and its group when it was the last).
    Remove {
        /// The event.
        event: String,
        /// The group.
        group: u32,
        /// The index in the group.
        index: u32,
    },
    /// Switches a handler on or off.
    SetEnabled {
        /// The event.
        event: String,
        /// The group.
        group: u32,
        /// The index in the group.
        index: u32,
        /// On or off.
        enabled: bool,
    },
}

/// Arguments of `save_hook_edit`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct SaveHookEditArgs {
    /// The project.
    pub project_id: i64,
    /// The settings file (one of the view's `files`).
    pub file: String,
    /// The file's `fingerprint` when the view was read.
    pub fingerprint: String,
    /// The change.
    pub edit: HookEditRequest,
    /// Write even when the file changed on disk since it was read.
    pub overwrite: bool,
}

/// The outcome of `save_hook_edit`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum HookSaveOutcome {
    /// Written; open sessions of the project read their hooks again.
    Saved {
        /// The view after the save.
        view: HooksView,
    },
    /// Nothing was written: the file changed on disk since it was read.
    Conflict {
        /// The file.
        file: String,
        /// The view as the files are now.
        view: HooksView,
    },
}

/// Arguments of `test_hook`: a handler (as it would be written) and a
/// sample call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct TestHookArgs {
    /// The project (the hook runs in its directory).
    pub project_id: i64,
    /// The event the hook is for.
    pub event: HookEventName,
    /// The handler object.
    pub handler: serde_json::Value,
    /// The sample call's tool.
    pub tool_name: String,
    /// The sample call's input.
    pub tool_input: serde_json::Value,
}

/// What a test run of a hook showed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct HookTestResult {
    /// The JSON the hook got on stdin, pretty-printed.
    pub stdin: String,
    /// Its stdout (capped at 1 MiB).
    pub stdout: String,
    /// Its stderr (capped at 1 MiB).
    pub stderr: String,
    /// Its exit code (`None`: a signal, a timeout or no start).
    pub exit_code: Option<i32>,
    /// The signal that ended it.
    pub signal: Option<i32>,
    /// It did not answer within its timeout.
    pub timed_out: bool,
    /// Wall time.
    #[ts(type = "number")]
    pub duration_ms: u64,
    /// The resulting decision: what its answer means for the call.
    pub outcome: HookTestOutcome,
}

/// How a hook's answer reads, typed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct HookTestOutcome {
    /// allow / ask / deny, if it decided.
    pub decision: Option<PermissionBehavior>,
    /// It blocks the call (exit 2, or `decision: "block"`).
    pub blocked: bool,
    /// Its reason, block message or stop reason.
    pub message: Option<String>,
    /// `additionalContext` (or plain text taken as context).
    pub additional_context: Option<String>,
    /// `updatedInput`, if it rewrote the call.
    pub updated_input: Option<serde_json::Value>,
    /// `systemMessage`.
    pub system_message: Option<String>,
    /// A non-blocking error (bad JSON, a failing exit, a timeout, no start).
    pub error: Option<String>,
}
