//! Asking the user (SPEC §3 stage 6): the seam the UI and the CLI answer.

use async_trait::async_trait;
use gatehouse_protocol::permission::PermissionDecision;
use serde_json::Value;

/// A permission prompt for one call.
#[derive(Debug, Clone)]
pub struct AskRequest {
    /// The call.
    pub tool_use_id: String,
    /// The tool's canonical name.
    pub tool_name: String,
    /// The observable input (what the user should judge).
    pub input: Value,
    /// The `ask` decision with its reason and trace ("why am I asked?").
    pub decision: PermissionDecision,
    /// The sub-agent whose call it is, when it is one's (from the call's
    /// context extensions): the prompt names it.
    pub agent: Option<gatehouse_protocol::progress::SubagentRef>,
}

/// The user's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AskAnswer {
    /// Run this call.
    AllowOnce,
    /// Run this call, and calls of the same tool on the same subject for
    /// the rest of the session (never lifting a rule or a safety check).
    AllowForSession,
    /// Refuse, optionally telling the model why.
    Deny {
        /// The user's feedback for the model.
        feedback: Option<String>,
    },
}

/// Whoever answers permission prompts (the desktop modal, a CLI prompt).
///
/// Without one, every `ask` fails closed: the call is denied with a reason
/// saying nobody could be asked.
#[async_trait]
pub trait AskHandler: Send + Sync {
    /// Asks and waits for the answer. The pipeline drops this future when
    /// the call is cancelled meanwhile.
    async fn ask(&self, request: AskRequest) -> AskAnswer;
}
