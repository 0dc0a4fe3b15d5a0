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
    /// resumed one), oldest first.
    pub events: Vec<Event>,
    /// The session rules in force ("allow for this session" answers).
    pub session_rules: Vec<String>,
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

/// Arguments of `list_sessions`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ListSessionsArgs {
    /// Only sessions of this project folder; all when `None`.
    pub project_path: Option<String>,
    /// At most this many, newest first (default 100).
    pub limit: Option<u32>,
}

/// A stored session, for lists.
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
    /// `running`, or the status of its last `session_completed`.
    pub status: String,
    /// The first prompt, shortened.
    pub title: Option<String>,
    /// When it was created (ms since the epoch).
    pub created_at_ms: i64,
    /// When its last event was stored (ms since the epoch).
    pub updated_at_ms: i64,
    /// How many events it has.
    pub event_count: i64,
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
