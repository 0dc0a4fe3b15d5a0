//! In-process PreToolUse / PostToolUse hooks (SPEC §3 stage 5 and 8, §6).
//!
//! Command hooks from settings files come later and will implement these
//! same traits; the outcome type mirrors Claude Code's hook output
//! (`permissionDecision`, `updatedInput`, exit-2 block, `additionalContext`).
//! Several hooks for one call run in parallel and their outcomes combine
//! with deny > ask > allow. How a hook's decision combines with the
//! permission engine's (a hook's allow never lifts a rule) is the
//! pipeline's job; see [`crate::pipeline`].

use std::sync::Arc;

use async_trait::async_trait;
use gatehouse_protocol::event::HookRun;
use gatehouse_protocol::permission::{PermissionBehavior, PermissionMode};
use serde_json::Value;

/// A hook's permission decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HookDecision {
    /// Allow (lifts only the engine's default/mode ask, never a rule).
    Allow,
    /// Ask the user.
    Ask,
    /// Refuse the call.
    Deny,
}

impl From<HookDecision> for PermissionBehavior {
    fn from(d: HookDecision) -> Self {
        match d {
            HookDecision::Allow => Self::Allow,
            HookDecision::Ask => Self::Ask,
            HookDecision::Deny => Self::Deny,
        }
    }
}

/// What a PreToolUse hook returned. Every field is optional; the default
/// is "no opinion".
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HookOutcome {
    /// Allow, ask or deny.
    pub decision: Option<HookDecision>,
    /// Why (`permissionDecisionReason`).
    pub reason: Option<String>,
    /// A rewritten input (`updatedInput`); it is validated and checked
    /// against the rules again before use.
    pub updated_input: Option<Value>,
    /// Block the call with this message (a command hook's exit 2). Counts
    /// as a deny.
    pub block: Option<String>,
    /// Context for the model (`additionalContext`).
    pub additional_context: Option<String>,
    /// A non-blocking error (a hook that exited 1, timed out, printed JSON
    /// of the wrong shape): shown in the UI and the `hook_ran` event, and
    /// the call goes on as if the hook had said nothing.
    pub error: Option<String>,
    /// What ran and what it printed (settings-file hooks).
    pub run: Option<HookRun>,
}

impl HookOutcome {
    /// An outcome with just a decision and a reason.
    pub fn decide(decision: HookDecision, reason: impl Into<String>) -> Self {
        Self {
            decision: Some(decision),
            reason: Some(reason.into()),
            ..Self::default()
        }
    }

    /// The decision this outcome amounts to: a block is a deny.
    pub fn effective_decision(&self) -> Option<HookDecision> {
        if self.block.is_some() {
            Some(HookDecision::Deny)
        } else {
            self.decision
        }
    }
}

/// A hook failed to run. Never blocks the call (a non-blocking error in
/// Claude Code's terms); it is reported in the `hook_ran` event.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct HookError(pub String);

/// What a PreToolUse hook is told (Claude Code's stdin JSON, minus the
/// transcript path the agent loop will add).
#[derive(Debug, Clone, Copy)]
pub struct PreToolUseInput<'a> {
    /// The session.
    pub session_id: &'a str,
    /// The working directory.
    pub cwd: &'a std::path::Path,
    /// The permission mode in force.
    pub permission_mode: PermissionMode,
    /// The tool's canonical name.
    pub tool_name: &'a str,
    /// The observable (backfilled) input.
    pub tool_input: &'a Value,
    /// The call's id.
    pub tool_use_id: &'a str,
}

/// What a PostToolUse / PostToolUseFailure hook is told.
#[derive(Debug, Clone, Copy)]
pub struct PostToolUseInput<'a> {
    /// The session.
    pub session_id: &'a str,
    /// The working directory.
    pub cwd: &'a std::path::Path,
    /// The tool's canonical name.
    pub tool_name: &'a str,
    /// The observable input of the call that ran.
    pub tool_input: &'a Value,
    /// The call's id.
    pub tool_use_id: &'a str,
    /// The output as JSON on success, the error message on failure.
    pub tool_response: &'a Value,
    /// Whether the call failed (PostToolUseFailure).
    pub is_error: bool,
    /// How long the call ran.
    pub duration_ms: u64,
    /// Whether the failure was the user's interrupt.
    pub is_interrupt: bool,
}

/// What a PostToolUse hook returned.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PostHookOutcome {
    /// Stop the turn after this result, with this reason for the model.
    pub block: Option<String>,
    /// Context for the model, added after the result.
    pub additional_context: Option<String>,
    /// A non-blocking error (see [`HookOutcome::error`]).
    pub error: Option<String>,
    /// What ran and what it printed (settings-file hooks).
    pub run: Option<HookRun>,
}

/// A hook run before the permission decision.
#[async_trait]
pub trait PreToolUseHook: Send + Sync {
    /// A name for events and traces.
    fn name(&self) -> &str;
    /// Whether the hook runs for this tool (a settings `matcher`).
    fn matches(&self, _tool_name: &str) -> bool {
        true
    }
    /// Whether the hook runs for this call, beyond its matcher (a settings
    /// hook's `if` filter, which needs the input). Called off no runtime
    /// worker's critical path: implementations that analyse the input do
    /// it on the blocking pool.
    async fn applies(&self, _input: &PreToolUseInput<'_>) -> bool {
        true
    }
    /// Runs the hook.
    async fn run(&self, input: &PreToolUseInput<'_>) -> Result<HookOutcome, HookError>;
}

/// A hook run after a call (success or failure, depending on where it is
/// registered in [`Hooks`]).
#[async_trait]
pub trait PostToolUseHook: Send + Sync {
    /// A name for events.
    fn name(&self) -> &str;
    /// Whether the hook runs for this tool.
    fn matches(&self, _tool_name: &str) -> bool {
        true
    }
    /// Whether the hook runs for this call beyond its matcher (see
    /// [`PreToolUseHook::applies`]).
    async fn applies(&self, _input: &PostToolUseInput<'_>) -> bool {
        true
    }
    /// Runs the hook.
    async fn run(&self, input: &PostToolUseInput<'_>) -> Result<PostHookOutcome, HookError>;
}

/// Told when Gatehouse starts waiting for the user (Claude Code's
/// `Notification` event). It must return at once: implementations run
/// their hooks on their own tasks.
pub trait Notifier: Send + Sync {
    /// The session waits for the user about `tool_use_id`; `message` says why.
    fn notify(&self, tool_use_id: &str, message: String);
}

/// What the UserPromptSubmit hooks said about a prompt.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PromptHookOutcome {
    /// The prompt is blocked (not sent to the model), with this reason for
    /// the user.
    pub block: Option<String>,
    /// Context for the model, sent beside the prompt.
    pub context: Vec<String>,
}

/// Hooks of the conversation loop (UserPromptSubmit, Stop).
#[async_trait]
pub trait TurnHooks: Send + Sync {
    /// Runs before `prompt` reaches the model.
    async fn user_prompt_submit(&self, prompt: &str) -> PromptHookOutcome;
    /// Runs when the model has finished answering; `Some(reason)` asks the
    /// loop to go on with `reason` for the model. `stop_hook_active` is
    /// true when the model is already going on because of a Stop hook.
    async fn stop(&self, stop_hook_active: bool) -> Option<String>;
}

/// The hooks of a session.
#[derive(Clone, Default)]
pub struct Hooks {
    /// PreToolUse hooks.
    pub pre_tool_use: Vec<Arc<dyn PreToolUseHook>>,
    /// PostToolUse hooks (successful calls).
    pub post_tool_use: Vec<Arc<dyn PostToolUseHook>>,
    /// PostToolUseFailure hooks (failed calls).
    pub post_tool_use_failure: Vec<Arc<dyn PostToolUseHook>>,
    /// PermissionRequest hooks: run before a permission prompt is shown;
    /// an allow settles an ask that rests on the default or the mode, a
    /// deny settles any ask (never lifting a rule's ask).
    pub permission_request: Vec<Arc<dyn PreToolUseHook>>,
    /// Told when the session starts waiting for the user.
    pub notifier: Option<Arc<dyn Notifier>>,
    /// UserPromptSubmit and Stop, run by the conversation loop.
    pub turn: Option<Arc<dyn TurnHooks>>,
}

impl Hooks {
    /// True when no hook of any event is configured.
    pub fn is_empty(&self) -> bool {
        self.pre_tool_use.is_empty()
            && self.post_tool_use.is_empty()
            && self.post_tool_use_failure.is_empty()
            && self.permission_request.is_empty()
            && self.notifier.is_none()
            && self.turn.is_none()
    }
}

impl std::fmt::Debug for Hooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names = |v: &[Arc<dyn PostToolUseHook>]| {
            v.iter().map(|h| h.name().to_owned()).collect::<Vec<_>>()
        };
        f.debug_struct("Hooks")
            .field(
                "pre_tool_use",
                &self
                    .pre_tool_use
                    .iter()
                    .map(|h| h.name().to_owned())
                    .collect::<Vec<_>>(),
            )
            .field("post_tool_use", &names(&self.post_tool_use))
            .field("post_tool_use_failure", &names(&self.post_tool_use_failure))
            .field(
                "permission_request",
                &self
                    .permission_request
                    .iter()
                    .map(|h| h.name().to_owned())
                    .collect::<Vec<_>>(),
            )
            .field("notifier", &self.notifier.is_some())
            .field("turn", &self.turn.is_some())
            .finish()
    }
}

/// Several PreToolUse outcomes combined.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CombinedPreOutcome {
    /// The winning decision (deny > ask > allow), the hook that gave it and
    /// its reason or block message.
    pub decision: Option<(HookDecision, String, Option<String>)>,
    /// The rewritten input, and the hook that rewrote it. When several
    /// hooks rewrite, the last one in registration order wins (as if they
    /// ran one after the other).
    pub updated_input: Option<(Value, String)>,
    /// Every additional context, in registration order.
    pub additional_context: Vec<String>,
}

/// Combines outcomes given in registration order; failed hooks are skipped.
pub fn combine_pre_outcomes<'a>(
    outcomes: impl IntoIterator<Item = (&'a str, &'a Result<HookOutcome, HookError>)>,
) -> CombinedPreOutcome {
    let mut combined = CombinedPreOutcome::default();
    for (name, outcome) in outcomes {
        let Ok(outcome) = outcome else { continue };
        if let Some(d) = outcome.effective_decision() {
            let stronger = combined
                .decision
                .as_ref()
                .is_none_or(|(cur, _, _)| d > *cur);
            if stronger {
                let why = outcome.block.clone().or_else(|| outcome.reason.clone());
                combined.decision = Some((d, name.to_owned(), why));
            }
        }
        if let Some(input) = &outcome.updated_input {
            combined.updated_input = Some((input.clone(), name.to_owned()));
        }
        if let Some(ctx) = &outcome.additional_context {
            combined.additional_context.push(ctx.clone());
        }
    }
    combined
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn deny_beats_ask_beats_allow_and_block_is_deny() {
        let allow = Ok(HookOutcome::decide(HookDecision::Allow, "fine"));
        let ask = Ok(HookOutcome::decide(HookDecision::Ask, "hmm"));
        let block = Ok(HookOutcome {
            block: Some("no way".into()),
            ..HookOutcome::default()
        });
        let failed = Err(HookError("crashed".into()));

        let c = combine_pre_outcomes([("a", &allow), ("b", &ask)]);
        assert_eq!(
            c.decision,
            Some((HookDecision::Ask, "b".into(), Some("hmm".into())))
        );

        let c = combine_pre_outcomes([("a", &allow), ("x", &failed), ("c", &block), ("b", &ask)]);
        assert_eq!(
            c.decision,
            Some((HookDecision::Deny, "c".into(), Some("no way".into())))
        );

        let c = combine_pre_outcomes([("x", &failed)]);
        assert_eq!(c.decision, None);
    }

    #[test]
    fn last_rewrite_wins_and_contexts_accumulate() {
        let r1 = Ok(HookOutcome {
            updated_input: Some(json!({"v": 1})),
            additional_context: Some("one".into()),
            ..HookOutcome::default()
        });
        let r2 = Ok(HookOutcome {
            updated_input: Some(json!({"v": 2})),
            additional_context: Some("two".into()),
            ..HookOutcome::default()
        });
        let c = combine_pre_outcomes([("h1", &r1), ("h2", &r2)]);
        assert_eq!(c.updated_input, Some((json!({"v": 2}), "h2".into())));
        assert_eq!(
            c.additional_context,
            vec!["one".to_owned(), "two".to_owned()]
        );
        assert_eq!(c.decision, None);
    }
}
