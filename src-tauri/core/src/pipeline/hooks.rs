//! Stages 5 and 8: PreToolUse, PermissionRequest and PostToolUse hooks, and
//! their `hook_ran` events.

use std::sync::Arc;
use std::time::Duration;

use futures::future::join_all;
use gatehouse_protocol::event::{EventBody, HookEventName};
use gatehouse_protocol::permission::{
    DecisionReason, PermissionBehavior, PermissionDecision, TraceOutcome, TraceStep,
};
use serde_json::Value;

use crate::context::ToolUseContext;
use crate::hooks::{
    HookDecision, PostToolUseHook, PostToolUseInput, PreToolUseInput, combine_pre_outcomes,
};
use crate::runtime::ToolRuntime;
use crate::tool::{NewMessage, Tool};

use super::Prepared;
use super::decision::{is_liftable, reason_kind};

impl ToolRuntime {
    /// Stage 8: runs the matching post hooks in parallel, adds their
    /// context to `messages`, and returns a stop reason if one blocked.
    /// `failed` is (whether the call failed, how long it ran).
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn run_post_hooks(
        &self,
        event: HookEventName,
        hooks: &[Arc<dyn PostToolUseHook>],
        p: &Prepared,
        tool_name: &str,
        observable: &Value,
        response: impl FnOnce() -> Value,
        (is_error, duration_ms): (bool, u64),
        ctx: &ToolUseContext,
        messages: &mut Vec<NewMessage>,
    ) -> Option<String> {
        let mut matching: Vec<_> = hooks.iter().filter(|h| h.matches(tool_name)).collect();
        if matching.is_empty() {
            return None;
        }
        // Serialising the output is only worth it when someone listens.
        let response = response();
        let input = PostToolUseInput {
            session_id: self.emitter.session_id(),
            cwd: &ctx.cwd,
            tool_name,
            tool_input: observable,
            tool_use_id: &p.id,
            tool_response: &response,
            is_error,
            duration_ms,
            is_interrupt: false,
        };
        let applies = join_all(matching.iter().map(|h| h.applies(&input))).await;
        let mut keep = applies.into_iter();
        matching.retain(|_| keep.next().unwrap_or(false));
        let results = join_all(matching.iter().map(|h| h.run(&input))).await;
        let mut stop = None;
        for (hook, result) in matching.iter().zip(results) {
            let (blocked, message, error, run) = match result {
                Ok(o) => {
                    if let Some(c) = &o.additional_context {
                        messages.push(NewMessage::system_text(c.clone()));
                    }
                    if stop.is_none() {
                        stop.clone_from(&o.block);
                    }
                    (
                        o.block.is_some(),
                        o.block.or(o.additional_context),
                        o.error,
                        o.run,
                    )
                }
                Err(e) => (false, None, Some(e.to_string()), None),
            };
            self.emitter.emit(EventBody::HookRan {
                tool_use_id: p.id.clone(),
                hook_event: event,
                hook: hook.name().to_owned(),
                decision: None,
                blocked,
                input_updated: false,
                message,
                error,
                run,
            });
        }
        stop
    }

    /// PermissionRequest hooks (before a prompt is shown): returns the
    /// decision that settles the ask, if a hook settled it. A deny settles
    /// any ask; an allow only one that rests on the default or the mode
    /// (never a rule's or a safety check's ask) and never for a tool that
    /// needs the user.
    pub(super) async fn permission_request_hooks(
        &self,
        p: &Prepared,
        tool: &dyn Tool,
        observable: &Value,
        requires_ui: bool,
        asked: &PermissionDecision,
        ctx: &ToolUseContext,
    ) -> Option<PermissionDecision> {
        let hooks = self.hooks();
        let mut matching: Vec<_> = hooks
            .permission_request
            .iter()
            .filter(|h| h.matches(tool.name()))
            .collect();
        if matching.is_empty() {
            return None;
        }
        let input = PreToolUseInput {
            session_id: self.emitter.session_id(),
            cwd: &ctx.cwd,
            permission_mode: ctx.permission_mode,
            tool_name: tool.name(),
            tool_input: observable,
            tool_use_id: &p.id,
        };
        let applies = join_all(matching.iter().map(|h| h.applies(&input))).await;
        let mut keep = applies.into_iter();
        matching.retain(|_| keep.next().unwrap_or(false));
        if matching.is_empty() {
            return None;
        }
        let results = join_all(matching.iter().map(|h| h.run(&input))).await;
        for (hook, result) in matching.iter().zip(&results) {
            self.emitter.emit(pre_hook_event(
                &p.id,
                HookEventName::PermissionRequest,
                hook.name(),
                result,
            ));
        }
        let combined = combine_pre_outcomes(matching.iter().map(|h| h.name()).zip(&results));
        let (decision, hook, why) = combined.decision?;
        let mut trace = asked.trace.clone();
        let why_text = why.clone().unwrap_or_else(|| "no reason given".into());
        let settled = |behavior, outcome, detail: String, mut trace: Vec<TraceStep>| {
            trace.push(TraceStep::new(format!("hook:{hook}"), outcome, detail));
            PermissionDecision {
                decision: behavior,
                reason: DecisionReason::Hook {
                    hook: hook.clone(),
                    message: why.clone(),
                },
                trace,
            }
        };
        match decision {
            HookDecision::Deny => Some(settled(
                PermissionBehavior::Deny,
                TraceOutcome::Deny,
                format!("PermissionRequest hook {hook} denied: {why_text}"),
                trace,
            )),
            HookDecision::Allow if is_liftable(&asked.reason) && !requires_ui => Some(settled(
                PermissionBehavior::Allow,
                TraceOutcome::Allow,
                format!("PermissionRequest hook {hook} allowed: {why_text}"),
                trace,
            )),
            HookDecision::Allow => {
                trace.push(TraceStep::new(
                    format!("hook:{hook}"),
                    TraceOutcome::Skipped,
                    format!(
                        "PermissionRequest hook {hook} allowed, which is ignored: a hook never answers for the user when a {} asks",
                        if requires_ui { "tool that needs the user" } else { reason_kind(&asked.reason) }
                    ),
                ));
                None
            }
            HookDecision::Ask => None,
        }
    }
}

/// Milliseconds, saturating.
pub(super) fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// The `hook_ran` event of a PreToolUse or PermissionRequest hook.
pub(super) fn pre_hook_event(
    id: &str,
    event: HookEventName,
    name: &str,
    result: &Result<crate::hooks::HookOutcome, crate::hooks::HookError>,
) -> EventBody {
    match result {
        Ok(o) => EventBody::HookRan {
            tool_use_id: id.to_owned(),
            hook_event: event,
            hook: name.to_owned(),
            decision: o.effective_decision().map(Into::into),
            blocked: o.block.is_some(),
            input_updated: o.updated_input.is_some(),
            message: o
                .block
                .clone()
                .or_else(|| o.reason.clone())
                .or_else(|| o.additional_context.clone()),
            error: o.error.clone(),
            run: o.run.clone(),
        },
        Err(e) => EventBody::HookRan {
            tool_use_id: id.to_owned(),
            hook_event: event,
            hook: name.to_owned(),
            decision: None,
            blocked: false,
            input_updated: false,
            message: None,
            error: Some(e.to_string()),
            run: None,
        },
    }
}
