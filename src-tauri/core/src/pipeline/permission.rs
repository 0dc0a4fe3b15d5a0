//! Stage 6: the permission decision, decided off the runtime, combined
//! with the PreToolUse hooks', and revalidated after a hook rewrote the
//! input.

use std::sync::Arc;

use futures::future::join_all;
use gatehouse_protocol::event::{EventBody, HookEventName, RejectionStage};
use gatehouse_protocol::permission::{
    DecisionReason, PermissionBehavior, PermissionDecision, PermissionMode, TraceOutcome, TraceStep,
};
use gatehouse_protocol::progress::SubagentRef;
use serde_json::Value;

use crate::ask::no_user_text;
use crate::context::ToolUseContext;
use crate::hooks::{PreToolUseInput, combine_pre_outcomes};
use crate::permission::{PermissionQuery, PermissionSubject};
use crate::runtime::{CallStatus, ToolRuntime};
use crate::tool::{NewMessage, Tool};

use super::decision::{describe_reason, plan_mode_refusal, resolve_hook_decision};
use super::hooks::pre_hook_event;
use super::{Approved, Outcome, Prepared, Rejection, json_type, refused_by_tool};

impl ToolRuntime {
    /// The [`Recheck`](crate::recheck::Recheck) of one call.
    pub(super) fn recheck(
        &self,
        tool: &Arc<dyn Tool>,
        id: &str,
        ctx: &ToolUseContext,
    ) -> crate::recheck::Recheck {
        crate::recheck::Recheck(Arc::new(crate::recheck::PipelineCheck {
            resolver: Arc::clone(&self.resolver),
            ask: self.ask.clone(),
            session_grants: Arc::clone(&self.session_grants),
            tool: Arc::clone(tool),
            tool_use_id: id.to_owned(),
            agent: ctx.extensions.get::<SubagentRef>().cloned(),
        }))
    }

    /// Stages 4–6: semantic validation, backfill, hooks, permission.
    pub(super) async fn pre_call(
        &self,
        p: &Prepared,
        tool: &Arc<dyn Tool>,
        ctx: &ToolUseContext,
    ) -> Result<Approved, Outcome> {
        // Stage 4.
        if let Err(e) = tool.validate_input(&p.input, ctx).await {
            return Err(self.reject(p, refused_by_tool(tool.as_ref(), &e)));
        }
        let mut observable = p.input.clone();
        tool.backfill_observable_input(&mut observable);
        let mut call_input = p.input.clone();

        // Stage 5.
        let hooks = self.hooks();
        let mut matching: Vec<_> = hooks
            .pre_tool_use
            .iter()
            .filter(|h| h.matches(tool.name()))
            .collect();
        let mut hook_decision = None;
        let mut messages = Vec::new();
        let hook_input = PreToolUseInput {
            session_id: self.emitter.session_id(),
            cwd: &ctx.cwd,
            permission_mode: ctx.permission_mode,
            tool_name: tool.name(),
            tool_input: &observable,
            tool_use_id: &p.id,
        };
        if !matching.is_empty() {
            let applies = join_all(matching.iter().map(|h| h.applies(&hook_input))).await;
            let mut keep = applies.into_iter();
            matching.retain(|_| keep.next().unwrap_or(false));
        }
        if !matching.is_empty() {
            let results = join_all(matching.iter().map(|h| h.run(&hook_input))).await;
            for (hook, result) in matching.iter().zip(&results) {
                self.emitter.emit(pre_hook_event(
                    &p.id,
                    HookEventName::PreToolUse,
                    hook.name(),
                    result,
                ));
            }
            let combined = combine_pre_outcomes(matching.iter().map(|h| h.name()).zip(&results));
            for context in combined.additional_context {
                messages.push(NewMessage::system_text(context));
            }
            if let Some((rewritten, hook)) = combined.updated_input {
                // A rewritten input is untrusted like the model's: validate
                // it again and let the rules see it.
                self.revalidate(p, tool.as_ref(), &rewritten, &hook, ctx)
                    .await?;
                observable = rewritten.clone();
                tool.backfill_observable_input(&mut observable);
                call_input = rewritten;
            }
            hook_decision = combined.decision;
        }

        // Stage 6.
        let verdict = tool.check_permissions(&call_input, ctx).await;
        let subject = tool.permission_subject(&call_input, ctx);
        let requires_ui = tool.requires_user_interaction();
        let engine = self
            .decide_off_runtime(
                tool,
                &call_input,
                &observable,
                subject.clone(),
                verdict,
                requires_ui,
            )
            .await;
        let hook_view = hook_decision
            .as_ref()
            .map(|(d, name, msg)| (*d, name.as_str(), msg.as_deref()));
        let mut decision = resolve_hook_decision(engine, hook_view, requires_ui);
        let (mut reply, mut nobody) = (None, false);
        if decision.decision == PermissionBehavior::Ask {
            let settled = self
                .ask_user(
                    p,
                    tool.as_ref(),
                    &observable,
                    subject.as_ref(),
                    requires_ui,
                    decision,
                    ctx,
                )
                .await;
            decision = settled.decision;
            reply = settled.reply;
            nobody = settled.nobody;
        }
        // Durable before the call runs (SPEC §11): a crash never leaves a
        // call that ran without its decision on record. Not stored: not run.
        let stored = self
            .emitter
            .emit_durable(EventBody::PermissionDecided {
                tool_use_id: p.id.clone(),
                decision: decision.decision,
                reason: decision.reason.clone(),
                trace: decision.trace.clone(),
            })
            .await;
        if let Err(e) = stored {
            return Err(Outcome::error(
                CallStatus::Failed,
                format!(
                    "Error: {} was not run: the permission decision could not be recorded ({e}).",
                    tool.name()
                ),
            ));
        }
        match decision.decision {
            PermissionBehavior::Allow => Ok(Approved {
                call_input,
                observable,
                messages,
                reply,
                decision,
            }),
            // `ask_user` always settles an ask; treat anything else as deny.
            PermissionBehavior::Deny | PermissionBehavior::Ask => {
                let text = match &decision.reason {
                    // A tool that needs the user, refused only because
                    // nobody can answer (dontAsk, headless, no handler):
                    // say so, so the model carries on without the answer.
                    DecisionReason::ToolCheck { .. }
                    | DecisionReason::Default { .. }
                    | DecisionReason::Mode { .. }
                        if requires_ui =>
                    {
                        let why = if nobody {
                            "nobody is connected to answer prompts".to_owned()
                        } else if ctx.permission_mode == PermissionMode::DontAsk {
                            "the session is in dontAsk mode, where every prompt is refused"
                                .to_owned()
                        } else {
                            describe_reason(&decision.reason)
                        };
                        no_user_text(tool.name(), &why)
                    }
                    DecisionReason::Mode {
                        mode: PermissionMode::Plan,
                    } => plan_mode_refusal(tool.name()),
                    DecisionReason::UserAnswer { answer } => {
                        format!(
                            "The user denied permission to use {} ({answer}).",
                            tool.name()
                        )
                    }
                    // Claude Code's wording, which models and scripts know.
                    DecisionReason::Hook { message, .. } => format!(
                        "PreToolUse:{} hook error: {}",
                        tool.name(),
                        message.as_deref().unwrap_or("blocked by a hook")
                    ),
                    other => format!(
                        "Permission to use {} was denied: {}.",
                        tool.name(),
                        describe_reason(other)
                    ),
                };
                let mut outcome = Outcome::error(CallStatus::Denied, text);
                outcome.new_messages = messages;
                Err(outcome)
            }
        }
    }

    /// Asks the permission engine, on the blocking pool: a decision is
    /// synchronous and usually takes microseconds, but a shell command with
    /// groupings or here-documents may hold its thread up to the parser's
    /// deadline, and the tool's `is_read_only` / `is_destructive` may
    /// analyse the input too. Neither may stall an async worker. The
    /// hand-off costs a few microseconds (see core/NOTES.md). A decision
    /// that cannot be made (the task panicked) fails closed to an ask.
    async fn decide_off_runtime(
        &self,
        tool: &Arc<dyn Tool>,
        call_input: &Value,
        observable: &Value,
        subject: Option<PermissionSubject>,
        verdict: crate::permission::ToolPermissionVerdict,
        requires_ui: bool,
    ) -> PermissionDecision {
        let resolver = Arc::clone(&self.resolver);
        let tool = Arc::clone(tool);
        let call_input = call_input.clone();
        let observable = observable.clone();
        let decided = tokio::task::spawn_blocking(move || {
            let query = PermissionQuery {
                tool_name: tool.name(),
                input: &observable,
                subject: subject.as_ref(),
                is_read_only: tool.is_read_only(&call_input),
                is_destructive: tool.is_destructive(&call_input),
                requires_user_interaction: requires_ui,
                tool_verdict: &verdict,
            };
            resolver.decide(&query)
        })
        .await;
        decided.unwrap_or_else(|e| PermissionDecision {
            decision: PermissionBehavior::Ask,
            reason: DecisionReason::SafetyCheck {
                message: format!("the permission engine failed on this call ({e}), so it asks"),
            },
            trace: vec![TraceStep::new(
                "engine",
                TraceOutcome::Ask,
                format!("the decision task failed: {e}"),
            )],
        })
    }

    async fn revalidate(
        &self,
        p: &Prepared,
        tool: &dyn Tool,
        rewritten: &Value,
        hook: &str,
        ctx: &ToolUseContext,
    ) -> Result<(), Outcome> {
        let schema_error = if rewritten.is_object() {
            let pool = self.pool();
            pool.lookup(tool.name())
                .and_then(|i| pool.validator(i))
                .and_then(|v| v.validate(tool.name(), rewritten).err())
                .map(|e| e.to_string())
        } else {
            Some(format!(
                "the input must be a JSON object, but it is {}",
                json_type(rewritten)
            ))
        };
        if let Some(e) = schema_error {
            return Err(self.reject(
                p,
                Rejection {
                    stage: RejectionStage::Schema,
                    message: format!("The input rewritten by hook {hook} is invalid:\n{e}"),
                },
            ));
        }
        if let Err(e) = tool.validate_input(rewritten, ctx).await {
            return Err(self.reject(
                p,
                Rejection {
                    stage: RejectionStage::ValidateInput,
                    message: format!(
                        "{} refused the input rewritten by hook {hook}: {e}",
                        tool.name()
                    ),
                },
            ));
        }
        Ok(())
    }
}
