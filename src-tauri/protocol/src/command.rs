//! Commands: what a front end may ask the backend to do.
//!
//! Each command has one argument struct and one result type. The list below
//! is the single source of truth: the Tauri shell registers a handler per
//! entry, and the generated TypeScript has a `Commands` map from command name
//! to `{ args, result }` that the UI's typed client is written against.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::event::Event;
use crate::project::{AppInfo, Project};
use crate::session::{
    AnswerPermissionArgs, ApiKeyStatus, ListSessionsArgs, ProviderArgs, ResumeSessionArgs,
    SendPromptArgs, SessionArgs, SessionEventsBeforeArgs, SessionHandle, SessionSummary,
    SetApiKeyArgs, SetModeArgs, StartSessionArgs,
};

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
    /// Closes a session: stops its tasks and servers; its events stay stored.
    close_session(SessionArgs) -> ();
    /// Stored sessions, newest first.
    list_sessions(ListSessionsArgs) -> Vec<SessionSummary>;
    /// Every stored event of a session, oldest first.
    session_events(SessionArgs) -> Vec<Event>;
    /// The first `count` stored events of a session, oldest first: what a
    /// resumed handle's `earlier_events` left out.
    session_events_before(SessionEventsBeforeArgs) -> Vec<Event>;
    /// Stores a provider's API key in the OS keychain.
    set_api_key(SetApiKeyArgs) -> ApiKeyStatus;
    /// Removes a provider's API key from the OS keychain.
    delete_api_key(ProviderArgs) -> ApiKeyStatus;
    /// Where a provider's API key would come from (never the key itself).
    api_key_status(ProviderArgs) -> ApiKeyStatus;
}
