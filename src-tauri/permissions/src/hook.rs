//! Combining a PreToolUse hook's verdict with the engine's decision, with
//! the invariant of SPEC §3: a hook's allow never overrides a deny or ask
//! that comes from a rule, a safety check, a tool check or a working-
//! directory check; a hook's deny always wins; several hooks combine as
//! deny > ask > allow.
//!
//! A hook that rewrites the input (`updatedInput`) does not get a verdict
//! here for the new input: the pipeline must call the engine again with the
//! rewritten input and combine the hook's verdict with *that* decision (see
//! the tests: a rewrite into a denied command is denied).

use gatehouse_protocol::permission::{
    DecisionReason, PermissionBehavior, PermissionDecision, TraceOutcome, TraceStep,
};

/// What one PreToolUse hook said about a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookVerdict {
    /// The hook's name or command, for the reason.
    pub hook: String,
    /// `permissionDecision`: allow, ask or deny; `None` when the hook gave
    /// no decision.
    pub decision: Option<PermissionBehavior>,
    /// `permissionDecisionReason`, if any.
    pub message: Option<String>,
}

/// Combines several hooks: deny > ask > allow; `None` when none decided.
pub fn strongest(hooks: &[HookVerdict]) -> Option<&HookVerdict> {
    let rank = |b: PermissionBehavior| match b {
        PermissionBehavior::Deny => 3,
        PermissionBehavior::Ask => 2,
        PermissionBehavior::Allow => 1,
    };
    hooks
        .iter()
        .filter(|h| h.decision.is_some())
        .max_by_key(|h| h.decision.map_or(0, rank))
}

/// True when a decision's reason is one a hook's allow may not override.
pub fn is_binding(reason: &DecisionReason) -> bool {
    matches!(
        reason,
        DecisionReason::Rule { .. }
            | DecisionReason::SafetyCheck { .. }
            | DecisionReason::ToolCheck { .. }
            | DecisionReason::WorkingDirectory { .. }
    )
}

/// The final decision given the engine's decision (for the input the call
/// will really run with) and the strongest hook verdict.
pub fn combine(engine: PermissionDecision, hook: Option<&HookVerdict>) -> PermissionDecision {
    let Some(hook) = hook else {
        return engine;
    };
    let Some(verdict) = hook.decision else {
        return engine;
    };
    let hook_reason = DecisionReason::Hook {
        hook: hook.hook.clone(),
        message: hook.message.clone(),
    };
    let mut trace = engine.trace.clone();
    let outcome = match verdict {
        PermissionBehavior::Allow => TraceOutcome::Allow,
        PermissionBehavior::Ask => TraceOutcome::Ask,
        PermissionBehavior::Deny => TraceOutcome::Deny,
    };
    trace.push(TraceStep::new(
        "hook",
        outcome,
        format!(
            "{} said {verdict:?}{}",
            hook.hook,
            hook.message
                .as_ref()
                .map(|m| format!(": {m}"))
                .unwrap_or_default()
        ),
    ));
    let (decision, reason) = match verdict {
        PermissionBehavior::Deny => (PermissionBehavior::Deny, hook_reason),
        PermissionBehavior::Ask => match engine.decision {
            PermissionBehavior::Deny => (engine.decision, engine.reason),
            _ => (PermissionBehavior::Ask, hook_reason),
        },
        PermissionBehavior::Allow => {
            if engine.decision != PermissionBehavior::Allow && is_binding(&engine.reason) {
                trace.push(TraceStep::new(
                    "hook",
                    TraceOutcome::Passthrough,
                    "a hook's allow does not override a rule, safety, tool or working-directory check",
                ));
                (engine.decision, engine.reason)
            } else if engine.decision == PermissionBehavior::Deny {
                // A mode's deny (plan, dontAsk) also stands.
                (engine.decision, engine.reason)
            } else {
                (PermissionBehavior::Allow, hook_reason)
            }
        }
    };
    PermissionDecision {
        decision,
        reason,
        trace,
    }
}
