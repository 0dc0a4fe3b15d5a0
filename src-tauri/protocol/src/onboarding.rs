//! First run and the app's own settings (issue 23): the provider chosen at
//! first run, the start form's defaults, the last project, connection tests
//! of a provider, and what went wrong at start-up (a damaged database, a
//! keychain that cannot be reached, a project folder that is gone).

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::permission::PermissionMode;
use crate::project::Project;

/// The model provider new sessions start with, chosen at first run or in
/// Settings. Keys are never here: they live in the OS keychain or the
/// environment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ProviderSetting {
    /// The Anthropic Messages API.
    Anthropic {
        /// Another API address than Anthropic's (a proxy); `None`: the
        /// default (or `ANTHROPIC_BASE_URL`).
        base_url: Option<String>,
    },
    /// An OpenAI-compatible chat-completions server (Ollama, vLLM, …).
    #[serde(rename = "openai")]
    OpenAi {
        /// The server's base URL, e.g. `http://127.0.0.1:11434/v1`.
        base_url: String,
    },
    /// The offline demo: a replay script that plays only in the sample
    /// project.
    Demo,
}

/// The model each provider starts with when the start form names none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct DefaultModels {
    /// Anthropic's model, e.g. `claude-sonnet-4-5`.
    pub anthropic: String,
    /// The OpenAI-compatible server's model; empty until one is chosen.
    pub openai: String,
}

/// The app's own settings, kept in `<data dir>/settings.json` beside the
/// database whose projects they name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct AppSettings {
    /// First run is over (finished or skipped): it is not shown again.
    pub onboarding_done: bool,
    /// The provider new sessions start with; `None` until one is chosen.
    pub provider: Option<ProviderSetting>,
    /// The model per provider.
    pub default_models: DefaultModels,
    /// The permission mode new sessions start in.
    pub default_mode: PermissionMode,
    /// The folder of the project open when the app last closed a session
    /// view, reopened at start.
    pub last_project: Option<String>,
}

/// How a project folder remembered from last time stands now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LastProject {
    /// No project to reopen (none yet, or the last one was closed).
    None,
    /// The project, reopened (marked opened now).
    Reopened {
        /// The project.
        project: Project,
    },
    /// The folder no longer exists (moved, deleted, an unmounted drive).
    Missing {
        /// The project as stored.
        project: Project,
    },
}

/// Everything the window needs to decide what to show at start.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct StartupState {
    /// The settings (defaults when the file is absent or unreadable).
    pub settings: AppSettings,
    /// Why `settings.json` could not be read (it was set aside, renamed
    /// with a timestamp, so the app can save again), if it could not.
    pub settings_error: Option<String>,
    /// Why the OS keychain cannot be used (locked, no Secret Service), if
    /// it cannot: keys then come from the environment only.
    pub keychain_unavailable: Option<String>,
    /// The project to open, or the one whose folder is gone; always
    /// `None` when onboarding is not done or the database is unusable.
    pub last_project: LastProject,
    /// Where the sample project is (or would be) created.
    pub sample_project_path: String,
}

/// Arguments of `save_app_settings`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SaveAppSettingsArgs {
    /// The settings to keep.
    pub settings: AppSettings,
}

/// Arguments of `test_provider_connection`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct TestConnectionArgs {
    /// The provider to try (its key from the environment or the keychain).
    pub provider: ProviderSetting,
}

/// Why a connection test failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ConnectionFailure {
    /// No key is stored or set for a provider that needs one.
    NoKey,
    /// The server refused the key (401 or 403).
    BadKey,
    /// The server could not be reached (refused, DNS, TLS, timeout).
    NoNetwork,
    /// Something answered, but not the expected API (404, or not its JSON).
    WrongUrl,
    /// The address is not an http(s) URL.
    InvalidUrl,
    /// Another error status (rate limits, server errors).
    Other,
}

/// The outcome of `test_provider_connection`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ConnectionTest {
    /// `None` when the provider answered as expected.
    pub failure: Option<ConnectionFailure>,
    /// What happened, naming the address (never the key).
    pub message: String,
    /// The models the server lists (OpenAI-compatible servers; Anthropic's
    /// `/v1/models`), when it answered.
    pub models: Vec<String>,
}

/// The outcome of `reset_database`: where the damaged file went.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct DatabaseReset {
    /// The files set aside (the database and its `-wal` / `-shm`), renamed
    /// with a timestamp in the data directory.
    pub kept_as: Vec<String>,
}

/// Arguments of `remove_project`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RemoveProjectArgs {
    /// The project's row id. Its stored sessions are kept.
    pub id: i64,
}

/// Arguments of `relocate_project`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RelocateProjectArgs {
    /// The project whose folder is gone.
    pub id: i64,
    /// Its new folder.
    pub path: String,
}
