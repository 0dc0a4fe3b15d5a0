//! Asking the user (SPEC §3 stage 6): the seam the UI and the CLI answer.

use async_trait::async_trait;
use gatehouse_protocol::interaction::{Interaction, InteractionReply};
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
    /// For a tool that needs the user's answer (AskUserQuestion,
    /// ExitPlanMode): what to show instead of a plain permission prompt.
    /// Answer it with [`AskAnswer::Reply`].
    pub interaction: Option<Interaction>,
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
    /// The user's reply to the request's `interaction`: the call runs and
    /// the tool reads the reply ([`UserReply`]) to build its result.
    Reply(InteractionReply),
}

/// The user's reply to a call's interaction, attached to that call's
/// context (`ToolUseContext::extensions`) by the pipeline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserReply(pub InteractionReply);

/// What the model reads when a tool needs the user's answer and nobody
/// can answer (`dontAsk` mode, a headless run, no ask handler). The same
/// words for every such tool, so models learn one sentence.
pub fn no_user_text(tool: &str, why: &str) -> String {
    format!(
        "{tool} needs an answer from the user, but there is no user to ask in this session \
         ({why}), so nobody answered. Continue without the answer: decide what you can on your \
         own and say what you assumed."
    )
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
