//! Stage 6's rules: how a hook's decision combines with the engine's, and
//! how decisions are put into words.

use gatehouse_protocol::permission::{
    DecisionReason, PermissionBehavior, PermissionDecision, TraceOutcome, TraceStep,
};

use crate::hooks::HookDecision;

/// Combines the engine's decision with the PreToolUse hooks' (stage 6).
///
/// * hook deny → deny;
/// * hook ask → ask, unless the engine denies;
/// * hook allow → allow only if the engine allows, or if the engine's ask
///   or deny rests on the default or the mode. A decision whose reason is a
///   rule, a safety check, the tool's own check or the working directory
///   stands: a hook can open the door but not pick the lock. A tool that
///   requires user interaction is never auto-approved, not even by a hook.
pub fn resolve_hook_decision(
    engine: PermissionDecision,
    hook: Option<(HookDecision, &str, Option<&str>)>,
    requires_user_interaction: bool,
) -> PermissionDecision {
    let Some((decision, hook_name, message)) = hook else {
        return engine;
    };
    let hook_reason = || DecisionReason::Hook {
        hook: hook_name.to_owned(),
        message: message.map(str::to_owned),
    };
    let mut trace = engine.trace.clone();
    let step =
        |outcome, detail: String| TraceStep::new(format!("hook:{hook_name}"), outcome, detail);
    match decision {
        HookDecision::Deny => {
            trace.push(step(
                TraceOutcome::Deny,
                format!(
                    "PreToolUse hook {hook_name} denied: {}",
                    message.unwrap_or("no reason given")
                ),
            ));
            PermissionDecision {
                decision: PermissionBehavior::Deny,
                reason: hook_reason(),
                trace,
            }
        }
        HookDecision::Ask => {
            if engine.decision == PermissionBehavior::Deny {
                trace.push(step(
                    TraceOutcome::Skipped,
                    "the engine's deny stands over a hook's ask".into(),
                ));
                return PermissionDecision { trace, ..engine };
            }
            trace.push(step(
                TraceOutcome::Ask,
                format!(
                    "PreToolUse hook {hook_name} asked: {}",
                    message.unwrap_or("no reason given")
                ),
            ));
            PermissionDecision {
                decision: PermissionBehavior::Ask,
                reason: hook_reason(),
                trace,
            }
        }
        HookDecision::Allow => {
            if engine.decision == PermissionBehavior::Allow {
                trace.push(step(
                    TraceOutcome::Allow,
                    format!(
                        "PreToolUse hook {hook_name} allowed: {}",
                        message.unwrap_or("no reason given")
                    ),
                ));
                return PermissionDecision { trace, ..engine };
            }
            let liftable = is_liftable(&engine.reason) && !requires_user_interaction;
            if liftable {
                trace.push(step(
                    TraceOutcome::Allow,
                    format!(
                        "PreToolUse hook {hook_name} allowed; it lifts the {} {}",
                        behavior_word(engine.decision),
                        reason_kind(&engine.reason)
                    ),
                ));
                PermissionDecision {
                    decision: PermissionBehavior::Allow,
                    reason: hook_reason(),
                    trace,
                }
            } else {
                let why = if requires_user_interaction {
                    "the tool requires user interaction".to_owned()
                } else {
                    format!(
                        "a hook's allow never overrides a {}",
                        reason_kind(&engine.reason)
                    )
                };
                trace.push(step(
                    TraceOutcome::Skipped,
                    format!("PreToolUse hook {hook_name} allowed, which is ignored: {why}"),
                ));
                PermissionDecision { trace, ..engine }
            }
        }
    }
}

/// Only the fallbacks may be lifted by a hook's allow or a session grant.
pub(super) fn is_liftable(reason: &DecisionReason) -> bool {
    matches!(
        reason,
        DecisionReason::Default { .. } | DecisionReason::Mode { .. }
    )
}

fn behavior_word(b: PermissionBehavior) -> &'static str {
    match b {
        PermissionBehavior::Allow => "allow",
        PermissionBehavior::Ask => "ask",
        PermissionBehavior::Deny => "deny",
    }
}

pub(super) fn reason_kind(reason: &DecisionReason) -> &'static str {
    match reason {
        DecisionReason::Rule { .. } => "rule",
        DecisionReason::Hook { .. } => "hook decision",
        DecisionReason::Mode { .. } => "mode decision",
        DecisionReason::SafetyCheck { .. } => "safety check",
        DecisionReason::WorkingDirectory { .. } => "working-directory check",
        DecisionReason::ToolCheck { .. } => "tool check",
        DecisionReason::UserAnswer { .. } => "user answer",
        DecisionReason::Default { .. } => "default decision",
    }
}

/// A sentence explaining a decision's reason, for the model.
pub fn describe_reason(reason: &DecisionReason) -> String {
    match reason {
        DecisionReason::Rule { rule, source, file } => match file {
            Some(f) => format!("rule {rule} ({source:?} settings, {f})"),
            None => format!("rule {rule} ({source:?})"),
        },
        DecisionReason::Hook { hook, message } => match message {
            Some(m) => format!("hook {hook}: {m}"),
            None => format!("hook {hook}"),
        },
        DecisionReason::Mode { mode } => format!("permission mode {mode:?}"),
        DecisionReason::SafetyCheck { message } => format!("safety check: {message}"),
        DecisionReason::WorkingDirectory { path } => {
            format!("{path} is outside the working directories")
        }
        DecisionReason::ToolCheck { message } => message.clone(),
        DecisionReason::UserAnswer { answer } => format!("the user answered {answer}"),
        DecisionReason::Default { message } => message.clone(),
    }
}

/// What the model reads when plan mode refused a call that changes
/// something: why, and the way out (ExitPlanMode).
pub fn plan_mode_refusal(tool: &str) -> String {
    format!(
        "{tool} was not run: the session is in plan mode, where only read-only tools run until \
         the user approves a plan. Keep exploring with read-only tools, then present your plan \
         with ExitPlanMode; once the user approves it, calls like this one can run."
    )
}
