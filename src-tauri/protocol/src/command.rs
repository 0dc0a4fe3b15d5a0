//! Commands: what a front end may ask the backend to do.
//!
//! Each command has one argument struct and one result type. The list below
//! is the single source of truth: the Tauri shell registers a handler per
//! entry, and the generated TypeScript has a `Commands` map from command name
//! to `{ args, result }` that the UI's typed client is written against.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::browser::{
    ClaudeDiscovery, DeleteSessionsArgs, ExportResult, ExportSessionArgs, ImportClaudeArgs,
    ImportFileResult, RetentionResult, SessionFacets, SessionStats, SetRetentionArgs, StorageInfo,
    VacuumResult,
};
use crate::claude_code::{
    AnswerClaudeCodeAskArgs, ClaudeCodeGuard, ClaudeCodeGuardArgs, SetClaudeCodeGuardArgs,
};
use crate::hooks::{
    HookSaveOutcome, HookTestResult, HooksProjectArgs, HooksView, SaveHookEditArgs, TestHookArgs,
};
use crate::interaction::AnswerInteractionArgs;
use crate::mcp::{
    McpPanel, McpProjectArgs, McpSaveServerArgs, McpServerProbe, McpServerRefArgs,
    McpSetDisabledArgs,
};
use crate::mcp_auth::{McpServerArgs, McpSignInResult, McpSignOutResult};
use crate::onboarding::{
    AppSettings, ConnectionTest, DatabaseReset, RelocateProjectArgs, RemoveProjectArgs,
    SaveAppSettingsArgs, StartupState, TestConnectionArgs,
};
use crate::permission::PermissionDecision;
use crate::project::{AppInfo, Project};
use crate::rules::{
    CheckRuleEditsArgs, ReplayRuleEditsArgs, RuleProblem, RuleValidation, RulesProjectArgs,
    RulesReplayReport, RulesView, SaveRuleEditsArgs, SaveRulesOutcome, TestRuleCallArgs,
    UndoRulesSaveArgs, ValidateRuleArgs,
};
use crate::sandbox::{SandboxState, SandboxStateArgs};
use crate::session::{
    AnswerPermissionArgs, ApiKeyStatus, ListSessionsArgs, OpenedTaskOutput, ProviderArgs,
    ResumeSessionArgs, SearchHit, SearchSessionsArgs, SendPromptArgs, SessionArgs,
    SessionEventsBeforeArgs, SessionHandle, SessionSummary, SetApiKeyArgs, SetModeArgs,
    StartSessionArgs, StopTaskArgs, StoppedTask, StoredEvents,
};
use crate::skills::{SkillsProjectArgs, SkillsView};
use crate::web::{SaveWebSearchArgs, WebSearchSettings};

/// The error every command returns on failure: a message that says what went
/// wrong and where, ready to show to the user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct CommandError {
    /// Human-readable explanation, including the path or value at fault.
    pub message: String,
}

impl CommandError {
    /// Wraps any displayable error, keeping its whole context chain.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }
}

impl std::fmt::Display for CommandError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CommandError {}

/// Arguments of a command that takes none.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct NoArgs {}

/// Arguments of `add_project`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct AddProjectArgs {
    /// The folder to add; it must exist. Stored canonicalised.
    pub path: String,
}

/// Arguments of `open_project`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct OpenProjectArgs {
    /// The project's row id.
    pub id: i64,
}

/// Arguments of `set_project_trust`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SetProjectTrustArgs {
    /// The project's row id.
    pub id: i64,
    /// True to trust it (its settings' allow rules apply), false to withdraw.
    pub trusted: bool,
}

/// Arguments of `smoke_report`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SmokeReportArgs {
    /// Whether the UI loaded and completed its round trip.
    pub ok: bool,
    /// What the UI saw, printed by the backend before it exits.
    pub detail: String,
}

/// Declares the command table once; generates the name list and the
/// TypeScript `Commands` map.
macro_rules! commands {
    ($( $(#[doc = $doc:literal])* $name:ident ( $args:ty ) -> $ret:ty ; )*) => {
        /// The name of every command, in declaration order.
        pub const COMMAND_NAMES: &[&str] = &[$(stringify!($name)),*];

        /// Visits every argument and result type so the generator declares them.
        pub(crate) fn visit_command_types(v: &mut impl ts_rs::TypeVisitor) {
            $( v.visit::<$args>(); v.visit::<$ret>(); )*
        }

        /// The TypeScript `Commands` interface: name → `{ args, result }`.
        pub(crate) fn commands_interface(cfg: &ts_rs::Config) -> String {
            let mut out = String::from(
                "/** Every backend command: its argument object and its result. */\nexport interface Commands {\n",
            );
            $(
                let doc = [$($doc),*].join("\n").trim().to_owned();
                if !doc.is_empty() {
                    out.push_str(&format!("  /** {doc} */\n"));
                }
                out.push_str(&format!(
                    "  {}: {{ args: {}; result: {} }};\n",
                    stringify!($name),
                    <$args as ts_rs::TS>::name(cfg),
                    <$ret as ts_rs::TS>::name(cfg),
                ));
            )*
            out.push_str("}\n");
            out
        }
    };
}

commands! {
    /// Version, data directory and launch mode of the backend.
    app_info(NoArgs) -> AppInfo;
    /// Every known project, most recently opened first.
    list_projects(NoArgs) -> Vec<Project>;
    /// Adds a folder as a project (or returns the existing one) and marks it opened.
    add_project(AddProjectArgs) -> Project;
    /// Marks a known project as opened now and returns it.
    open_project(OpenProjectArgs) -> Project;
    /// Trusts a project (its settings' allow rules apply from the next
    /// session on) or withdraws trust; remembered in SQLite.
    set_project_trust(SetProjectTrustArgs) -> Project;
    /// Asks the user for a folder with the native dialog; `null` when cancelled.
    pick_folder(NoArgs) -> Option<String>;
    /// The UI's answer to a smoke launch; the backend prints it and exits.
    smoke_report(SmokeReportArgs) -> ();
    /// Opens a new session in a project; its events arrive on `EVENT_CHANNEL`.
    start_session(StartSessionArgs) -> SessionHandle;
    /// Reopens a stored session with its history and session rules.
    resume_session(ResumeSessionArgs) -> SessionHandle;
    /// Sends a prompt; returns at once, the exchange streams as events.
    send_prompt(SendPromptArgs) -> ();
    /// Interrupts the running exchange (in-flight request and tools).
    interrupt(SessionArgs) -> ();
    /// Changes the session's permission mode.
    set_mode(SetModeArgs) -> ();
    /// Answers a pending `permission_requested`.
    answer_permission(AnswerPermissionArgs) -> ();
    /// Stops a background task of an open session (a background agent, a
    /// Bash `run_in_background`) and waits for it to end.
    stop_task(StopTaskArgs) -> StoppedTask;
    /// Opens a background task's whole output file with the OS opener
    /// (`xdg-open`, `open`); says which file.
    open_task_output(StopTaskArgs) -> OpenedTaskOutput;
    /// Answers a pending `interaction_requested` (a question, a plan).
    answer_interaction(AnswerInteractionArgs) -> ();
    /// Closes a session: stops its tasks and servers; its events stay stored.
    close_session(SessionArgs) -> ();
    /// Stored sessions, newest first.
    list_sessions(ListSessionsArgs) -> Vec<SessionSummary>;
    /// Every stored event of a session, oldest first, and the positions of
    /// those this build cannot read.
    session_events(SessionArgs) -> StoredEvents;
    /// The first `count` stored events of a session, oldest first: what a
    /// resumed handle's `earlier_events` left out.
    session_events_before(SessionEventsBeforeArgs) -> StoredEvents;
    /// The events of a stored session after a position: a reader's new
    /// events once `STORED_SESSIONS_CHANNEL` names the session.
    session_events_after(crate::browser::SessionEventsAfterArgs) -> StoredEvents;
    /// Stores a provider's API key in the OS keychain.
    set_api_key(SetApiKeyArgs) -> ApiKeyStatus;
    /// Removes a provider's API key from the OS keychain.
    delete_api_key(ProviderArgs) -> ApiKeyStatus;
    /// Where a provider's API key would come from (never the key itself).
    api_key_status(ProviderArgs) -> ApiKeyStatus;
    /// The Web search settings: the provider, SearXNG's URL, Brave Search's
    /// key status and whether WebSearch is available (and why not).
    web_search_settings(NoArgs) -> WebSearchSettings;
    /// Saves the search provider (and SearXNG's URL) into
    /// `~/.gatehouse/settings.json`, other keys kept; Brave Search's key
    /// goes through `set_api_key` (`brave-search`) to the keychain only.
    save_web_search_settings(SaveWebSearchArgs) -> WebSearchSettings;
    /// Settings → Sandbox: whether bubblewrap runs here (probed once and
    /// cached; `recheck` runs it again) and why not with the fix, its
    /// version, and the `sandbox` settings in force with their files.
    sandbox_state(SandboxStateArgs) -> SandboxState;
    // ---- The session browser (issue 11). ----
    /// Stored sessions of every project with `args`' filters and sort
    /// (`list_sessions` keeps its plain newest-first list).
    browse_sessions(ListSessionsArgs) -> Vec<SessionSummary>;
    /// The projects and models of stored sessions, for the list's filters.
    session_facets(NoArgs) -> SessionFacets;
    /// One stored session's summary (an error names a session not stored).
    session_summary(SessionArgs) -> SessionSummary;
    /// Full-text search over stored sessions; each hit names the event to
    /// open (`seq`) and a snippet with the matches in `[` `]`.
    search_sessions(SearchSessionsArgs) -> Vec<SearchHit>;
    /// Calls and time per tool, decisions, tokens and latency per turn.
    session_stats(SessionArgs) -> SessionStats;
    /// Claude Code transcripts under `~/.claude/projects` (or
    /// `$GATEHOUSE_CLAUDE_HOME/.claude/projects`), with what is imported.
    discover_claude_transcripts(NoArgs) -> ClaudeDiscovery;
    /// Imports transcripts (all when `paths` is absent); `import_progress`
    /// events report each batch; one result per file.
    import_claude_transcripts(ImportClaudeArgs) -> Vec<ImportFileResult>;
    /// Writes a session as JSONL or HTML; `null` when the save dialog was
    /// cancelled.
    export_session(ExportSessionArgs) -> Option<ExportResult>;
    /// Deletes sessions with their sub-agents and files; returns the ids
    /// deleted.
    delete_sessions(DeleteSessionsArgs) -> Vec<String>;
    /// Database size, files beside it and the retention setting.
    storage_info(NoArgs) -> StorageInfo;
    /// Sets the retention period (and optionally applies it now).
    set_retention(SetRetentionArgs) -> RetentionResult;
    /// Compacts the database in short steps (open sessions keep writing
    /// between them); returns the usage afterwards and how it went. A
    /// database of an earlier version is rewritten whole only when no
    /// session is open (see `FullRewrite`).
    vacuum_database(NoArgs) -> VacuumResult;
    /// Signs in to an OAuth MCP server of a project: opens the browser at
    /// its authorization page and waits (up to 5 minutes) for the redirect;
    /// the tokens go only to the OS keychain. Servers of open sessions that
    /// were waiting for the sign-in connect again.
    mcp_sign_in(McpServerArgs) -> McpSignInResult;
    /// Signs out of an OAuth MCP server: deletes its tokens and client
    /// credentials from the OS keychain.
    mcp_sign_out(McpServerArgs) -> McpSignOutResult;
    /// Every configured MCP server of a project, from every source (not connected).
    mcp_servers(McpProjectArgs) -> McpPanel;
    /// Connects every enabled, approved server of a project (as
    /// `gatehouse-cli mcp list` does) and reports state, tools and stderr; then stops them.
    mcp_probe(McpProjectArgs) -> Vec<McpServerProbe>;
    /// Adds or replaces a server in `~/.gatehouse/mcp.json` or the project's
    /// `.mcp.json`; secret values go to the OS keychain only.
    mcp_save_server(McpSaveServerArgs) -> McpPanel;
    /// Removes a server (and its keychain secrets) from an editable file.
    mcp_remove_server(McpServerRefArgs) -> McpPanel;
    /// Turns a server off or on in an editable file.
    mcp_set_server_disabled(McpSetDisabledArgs) -> McpPanel;
    /// Approves a project server in its current form.
    mcp_approve_server(McpServerRefArgs) -> McpPanel;
    /// Every rule of a project by source, with counts, trust and problems.
    rules_view(RulesProjectArgs) -> RulesView;
    /// Lint problems (errors and warnings) of the rules with unsaved edits.
    check_rule_edits(CheckRuleEditsArgs) -> Vec<RuleProblem>;
    /// Parses a rule as typed: the parser's error with its span, a path
    /// preview or Bash examples.
    validate_rule(ValidateRuleArgs) -> RuleValidation;
    /// Decides a call with the rules plus unsaved edits, with the full trace.
    test_rule_call(TestRuleCallArgs) -> PermissionDecision;
    /// Re-decides stored calls with the edited rules; progress on
    /// `RULES_REPLAY_PROGRESS_CHANNEL`.
    replay_rule_edits(ReplayRuleEditsArgs) -> RulesReplayReport;
    /// Writes the edits (settings files atomically, session rules to
    /// SQLite), or reports files changed on disk since they were loaded.
    save_rule_edits(SaveRuleEditsArgs) -> SaveRulesOutcome;
    /// Restores what the last save of the project replaced.
    undo_rules_save(UndoRulesSaveArgs) -> SaveRulesOutcome;
    /// Every settings-file hook of a project by source and event, with
    /// which run, why the others do not, and malformed entries.
    hooks_view(HooksProjectArgs) -> HooksView;
    /// Adds, replaces, removes or switches one hook in a settings file
    /// (validated, other keys kept); open sessions read their hooks again.
    save_hook_edit(SaveHookEditArgs) -> HookSaveOutcome;
    /// Runs a command hook once with a sample call and shows its stdin,
    /// output, exit code, duration and the resulting decision.
    test_hook(TestHookArgs) -> HookTestResult;
    /// A project's skills (user, and project ones with whether they load),
    /// each with its last use, and the skill folders that could not be read.
    skills_view(SkillsProjectArgs) -> SkillsView;
    // ---- First run and the app's settings (issue 23). ----
    /// The app's settings, the keychain's state and the project to reopen
    /// (or the one whose folder is gone): what the window shows at start.
    startup_state(NoArgs) -> StartupState;
    /// Saves the app's settings (`<data dir>/settings.json`, atomically).
    save_app_settings(SaveAppSettingsArgs) -> AppSettings;
    /// Tries a provider for real (Anthropic's or the server's `/v1/models`)
    /// and names the failure: no key, bad key, no network, wrong URL.
    test_provider_connection(TestConnectionArgs) -> ConnectionTest;
    /// Writes the sample project (for the offline demo) into the data
    /// directory and adds it; the only folder the demo plays in.
    create_sample_project(NoArgs) -> Project;
    /// Opens the data directory in the OS file manager.
    open_data_dir(NoArgs) -> ();
    /// Sets a database that could not be opened aside (renamed with a
    /// timestamp, never deleted); the app then restarts on a fresh one.
    reset_database(NoArgs) -> DatabaseReset;
    /// Forgets a project (its folder and stored sessions are untouched).
    remove_project(RemoveProjectArgs) -> ();
    /// Replaces a project whose folder is gone by its new folder.
    relocate_project(RelocateProjectArgs) -> Project;
    /// No project is to be reopened at the next start (the user closed
    /// the project's view); opening one records it again.
    forget_last_project(NoArgs) -> ();
    // ---- Guarding Claude Code (issue 25). ----
    /// Answers a Claude Code ask shown on `CLAUDE_CODE_ASK_CHANNEL` (or
    /// dismisses it: Claude Code then asks in its terminal).
    answer_claude_code_ask(AnswerClaudeCodeAskArgs) -> ();
    /// Settings → Claude Code: where the guard's entries are, the last
    /// call, and the `gatehouse-cli` the switch installs.
    claude_code_guard(ClaudeCodeGuardArgs) -> ClaudeCodeGuard;
    /// The switch: installs (or removes) the guard's entries in the user's
    /// or a project's Claude Code settings file, every other key kept.
    set_claude_code_guard(SetClaudeCodeGuardArgs) -> ClaudeCodeGuard;
}
