//! The dispatch pipeline (SPEC §3): what happens to every call, in order.
//!
//! 1. extract — `ToolRuntime::prepare`: a malformed block (no id,
//!    duplicate id, non-object or oversized input) is refused here;
//! 2. look up the tool, by name then alias;
//! 3. validate the input against the tool's JSON Schema;
//! 4. `validate_input`, then build the observable (backfilled) copy;
//! 5. PreToolUse hooks, in parallel; a rewritten input goes through 3–4
//!    again;
//! 6. the permission decision: the engine decides, the hook outcome is
//!    combined with it ([`resolve_hook_decision`]: a hook's allow lifts only
//!    a default/mode ask), an `ask` goes to the
//!    [`AskHandler`](crate::ask::AskHandler)
//!    (no handler: deny);
//! 7. the call, with progress and cancellation;
//! 8. PostToolUse or PostToolUseFailure hooks;
//! 9. `map_result`, then the result budget.
//!
//! Stages 2–3 run when the block is queued (the scheduler needs to know
//! whether the call is concurrency-safe, and unparseable input is not),
//! but their failures are reported when the call is scheduled, in order.
//! Every stage reports a typed event; every call ends with exactly one
//! `tool_completed`, emitted by `ToolRuntime::complete`.
//!
//! Stages 1–4, 7 and 9 are here; the permission decision is in
//! `permission`, the ask in `ask`, how decisions combine and are worded in
//! `decision`, and the hooks in `hooks`.

use std::collections::HashSet;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use futures::FutureExt as _;
use gatehouse_protocol::event::{ContentBlock, EventBody, HookEventName, RejectionStage};
use gatehouse_protocol::interaction::InteractionReply;
use gatehouse_protocol::permission::PermissionDecision;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::ask::UserReply;
use crate::context::{ContextModifier, ToolUseContext};
use crate::error::ToolError;
use crate::registry::ToolPool;
use crate::runtime::{CallStatus, ToolCallResult, ToolRuntime, ToolUseBlock};
use crate::tool::{CallContext, InterruptBehavior, NewMessage, ProgressReporter, Tool};

mod ask;
mod decision;
mod hooks;
mod permission;

pub use decision::{describe_reason, plan_mode_refusal, resolve_hook_decision};
use hooks::millis;

/// Why a call was refused before running.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    /// The stage that refused it.
    pub stage: RejectionStage,
    /// The message the model gets (names the bad field or precondition).
    pub message: String,
}

/// A queued call: the block, with stages 1–3 done.
pub(crate) struct Prepared {
    /// The unique id used for events and the tool_result.
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) input: Value,
    pub(crate) tool: Option<Arc<dyn Tool>>,
    /// Set when an early stage refused the call.
    pub(crate) rejection: Option<Rejection>,
    /// Whether the call may run beside other safe calls. False for any
    /// call that was refused or whose input does not parse.
    pub(crate) safe: bool,
}

impl Prepared {
    /// Malformed blocks never reach the scheduler: they complete at once
    /// and take no part in batching. Lookup and schema failures do go
    /// through it, as unsafe calls (SPEC §4).
    pub(crate) fn is_malformed(&self) -> bool {
        matches!(&self.rejection, Some(r) if r.stage == RejectionStage::Malformed)
    }

    pub(crate) fn aborts_siblings_on_error(&self) -> bool {
        self.tool
            .as_ref()
            .is_some_and(|t| t.aborts_siblings_on_error())
    }
}

/// The cancellation a call listens to.
#[derive(Debug, Clone)]
pub(crate) struct CallTokens {
    /// The user's interrupt for the turn.
    pub(crate) interrupt: CancellationToken,
    /// Fired by the executor when a sibling failed (or the turn ended);
    /// `reason` says why.
    pub(crate) sibling: CancellationToken,
    pub(crate) reason: Arc<OnceLock<String>>,
}

impl CallTokens {
    pub(crate) fn new(interrupt: CancellationToken, sibling: CancellationToken) -> Self {
        Self {
            interrupt,
            sibling,
            reason: Arc::new(OnceLock::new()),
        }
    }

    /// Cancels the call, recording why (the first reason wins).
    pub(crate) fn cancel_with(&self, reason: String) {
        let _ = self.reason.set(reason);
        self.sibling.cancel();
    }

    /// How a call stopped by these tokens ended: the user's interrupt, or
    /// a cancellation for another reason (a failed sibling, or the tool
    /// reporting one nobody asked for).
    fn status(&self) -> CallStatus {
        if !self.sibling.is_cancelled() && self.interrupt.is_cancelled() {
            CallStatus::Interrupted
        } else {
            CallStatus::Cancelled
        }
    }

    fn why(&self) -> String {
        if self.sibling.is_cancelled() {
            self.reason
                .get()
                .cloned()
                .unwrap_or_else(|| "Cancelled: a parallel tool call failed.".into())
        } else if self.interrupt.is_cancelled() {
            "Interrupted by the user: the call was stopped.".into()
        } else {
            "Cancelled: the tool reported that it was cancelled.".into()
        }
    }
}

/// How a call ended, before the events and the result are produced.
pub(crate) struct Outcome {
    pub(crate) content: Vec<ContentBlock>,
    pub(crate) is_error: bool,
    pub(crate) status: CallStatus,
    pub(crate) persisted_path: Option<std::path::PathBuf>,
    pub(crate) new_messages: Vec<NewMessage>,
    pub(crate) modifier: Option<ContextModifier>,
    pub(crate) prevent_continuation: Option<String>,
}

impl Outcome {
    pub(crate) fn error(status: CallStatus, message: impl Into<String>) -> Self {
        Self {
            content: vec![ContentBlock::Text {
                text: message.into(),
            }],
            is_error: true,
            status,
            persisted_path: None,
            new_messages: Vec::new(),
            modifier: None,
            prevent_continuation: None,
        }
    }
}

/// A call that passed stages 4–6.
struct Approved {
    call_input: Value,
    observable: Value,
    messages: Vec<NewMessage>,
    /// The user's reply to the call's interaction (AskUserQuestion,
    /// ExitPlanMode), handed to the call through its context.
    reply: Option<InteractionReply>,
    /// The decision that let it run, handed to the call through its
    /// context ([`CallPermission`]).
    decision: PermissionDecision,
}

/// The permission decision that let a call run, attached to its context
/// (`ToolUseContext::extensions`) by the pipeline, for a tool whose running
/// depends on why it was allowed: Bash allowed because it runs in the
/// sandbox (`autoAllowBashIfSandboxed`) must not run outside it if the
/// sandbox went away between the decision and the start.
#[derive(Debug, Clone, PartialEq)]
pub struct CallPermission(pub PermissionDecision);

/// How an ask was settled.
struct Settled {
    decision: PermissionDecision,
    reply: Option<InteractionReply>,
    /// Nobody could be asked (no ask handler).
    nobody: bool,
}

/// The JSON size of `value` in bytes, counted until it exceeds `limit`
/// (so a huge input costs at most `limit` work to reject).
fn json_size_exceeds(value: &Value, limit: usize) -> bool {
    fn walk(v: &Value, budget: &mut usize) -> bool {
        let cost = match v {
            Value::Null | Value::Bool(_) | Value::Number(_) => 8,
            Value::String(s) => s.len() + 2,
            Value::Array(items) => {
                if items.len() > *budget {
                    return true;
                }
                *budget -= items.len();
                return items.iter().any(|i| walk(i, budget));
            }
            Value::Object(map) => {
                for (k, item) in map {
                    if k.len() + 4 > *budget {
                        return true;
                    }
                    *budget -= k.len() + 4;
                    if walk(item, budget) {
                        return true;
                    }
                }
                return false;
            }
        };
        if cost > *budget {
            return true;
        }
        *budget -= cost;
        false
    }
    let mut budget = limit;
    walk(value, &mut budget)
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The refusal of a call to a tool the pool does not have (stage 2).
fn unknown_tool(pool: &ToolPool, name: &str) -> Rejection {
    // Naming the real tools helps a model that guessed a name; a pool of
    // hundreds of MCP tools is cut short.
    let names = pool.names();
    let mut list = names
        .iter()
        .take(40)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > 40 {
        list.push_str(&format!(" and {} more", names.len() - 40));
    }
    let message = if pool.was_removed(name) {
        format!(
            "Tool {name} is no longer available: its MCP server removed it from \
             its tool list during this session. Available tools: {list}."
        )
    } else {
        format!("No such tool available: {name}. Available tools: {list}.")
    };
    Rejection {
        stage: RejectionStage::Lookup,
        message,
    }
}

/// The refusal of an input the tool's `validate_input` rejected (stage 4).
fn refused_by_tool(tool: &dyn Tool, error: &ToolError) -> Rejection {
    Rejection {
        stage: RejectionStage::ValidateInput,
        message: format!("{} refused the input: {error}", tool.name()),
    }
}

/// Resolves when `token` fires, if `enabled`; never otherwise.
/// How long a cancelled call may take to stop and report (Bash sends
/// SIGTERM, waits its grace period, then SIGKILL).
const CANCEL_GRACE: std::time::Duration = std::time::Duration::from_secs(10);

async fn cancelled_if(enabled: bool, token: &CancellationToken) {
    if enabled {
        token.cancelled().await;
    } else {
        std::future::pending::<()>().await;
    }
}

impl ToolRuntime {
    /// Stage 1–3 for one block: gives it a unique id, refuses malformed
    /// blocks, looks the tool up, validates the schema and decides whether
    /// the call is concurrency-safe. Emits `tool_queued`.
    pub(crate) fn prepare(
        &self,
        block: ToolUseBlock,
        seen_ids: &mut HashSet<String>,
        missing_ids: &mut u32,
    ) -> Prepared {
        let ToolUseBlock { id, name, input } = block;
        let mut rejection = None;
        let malformed = |message: String| {
            Some(Rejection {
                stage: RejectionStage::Malformed,
                message,
            })
        };
        let id = if id.is_empty() {
            *missing_ids += 1;
            rejection = malformed(format!(
                "The tool_use block for {name:?} has no id; the call was not run."
            ));
            let mut synthetic = format!("gatehouse_missing_id_{missing_ids}");
            while seen_ids.contains(&synthetic) {
                synthetic.push('_');
            }
            synthetic
        } else if seen_ids.contains(&id) {
            rejection = malformed(format!(
                "Duplicate tool_use id {id:?} in one message; only the first call with this id was run."
            ));
            let mut n = 2;
            while seen_ids.contains(&format!("{id}__dup{n}")) {
                n += 1;
            }
            format!("{id}__dup{n}")
        } else {
            id
        };
        seen_ids.insert(id.clone());

        let limit = self.config.max_input_bytes;
        let oversized = json_size_exceeds(&input, limit);
        if rejection.is_none() {
            if name.is_empty() {
                rejection =
                    malformed("The tool_use block has no tool name; the call was not run.".into());
            } else if !input.is_object() {
                rejection = malformed(format!(
                    "The input of {name} must be a JSON object, but it is {}; the call was not run.",
                    json_type(&input)
                ));
            } else if oversized {
                rejection = malformed(format!(
                    "The input of {name} is larger than {limit} bytes; the call was not run."
                ));
            }
        }
        // A huge input is not copied into the event stream.
        let event_input = if oversized {
            serde_json::json!({ "_omitted": format!("input larger than {limit} bytes") })
        } else {
            input.clone()
        };
        let mut tool = None;
        let pool = self.pool();
        if rejection.is_none() {
            match pool.lookup(&name) {
                None => rejection = Some(unknown_tool(&pool, &name)),
                Some(index) if self.is_unloaded_deferred(&pool, index) => {
                    let real = pool.get(index).map_or(name.as_str(), |t| t.name());
                    rejection = Some(Rejection {
                        stage: RejectionStage::Lookup,
                        message: crate::deferral::not_loaded_message(real),
                    });
                }
                Some(index) => {
                    if let Some(Err(e)) = pool.validator(index).map(|v| v.validate(&name, &input)) {
                        rejection = Some(Rejection {
                            stage: RejectionStage::Schema,
                            message: e.to_string(),
                        });
                    }
                    tool = pool.get(index).cloned();
                }
            }
        }
        let safe =
            rejection.is_none() && tool.as_ref().is_some_and(|t| t.is_concurrency_safe(&input));
        // Emitted once the tool is known, so the event can say whether the
        // call is read-only (front ends group reads by it); nothing else is
        // emitted in between.
        self.emitter.emit(EventBody::ToolQueued {
            tool_use_id: id.clone(),
            name: name.clone(),
            input: event_input,
            read_only: rejection.is_none() && tool.as_ref().is_some_and(|t| t.is_read_only(&input)),
        });
        Prepared {
            id,
            name,
            input,
            tool,
            rejection,
            safe,
        }
    }

    pub(crate) fn emit_started(&self, p: &Prepared, batch: u32, concurrent: bool) {
        self.emitter.emit(EventBody::ToolStarted {
            tool_use_id: p.id.clone(),
            batch,
            concurrent,
        });
    }

    /// Reports a refusal before anything ran.
    pub(crate) fn reject(&self, p: &Prepared, rejection: Rejection) -> Outcome {
        self.emitter.emit(EventBody::ToolInputRejected {
            tool_use_id: p.id.clone(),
            stage: rejection.stage,
            message: rejection.message.clone(),
        });
        Outcome::error(CallStatus::Rejected(rejection.stage), rejection.message)
    }

    /// Emits `tool_completed` and builds the result; returns the context
    /// modifier for the scheduler to apply or ignore.
    pub(crate) fn complete(
        &self,
        p: &Prepared,
        outcome: Outcome,
        elapsed: Duration,
    ) -> (ToolCallResult, Option<ContextModifier>) {
        let duration_ms = u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX);
        self.emitter.emit(EventBody::ToolCompleted {
            tool_use_id: p.id.clone(),
            status: outcome.status.event_status(),
            is_error: outcome.is_error,
            content: outcome.content.clone(),
            duration_ms,
            persisted_path: outcome
                .persisted_path
                .as_ref()
                .map(|p| p.display().to_string()),
        });
        let result = ToolCallResult {
            tool_use_id: p.id.clone(),
            tool_name: p.name.clone(),
            content: outcome.content,
            is_error: outcome.is_error,
            status: outcome.status,
            persisted_path: outcome.persisted_path,
            new_messages: outcome.new_messages,
            duration_ms,
            prevent_continuation: outcome.prevent_continuation,
        };
        (result, outcome.modifier)
    }

    /// A result for a call that was cancelled (`status`: interrupted or
    /// cancelled) before or while running.
    pub(crate) fn cancelled(status: CallStatus, reason: String) -> Outcome {
        Outcome::error(status, reason)
    }

    /// A result for a call stopped by `tokens`, with their reason.
    fn stopped(tokens: &CallTokens) -> Outcome {
        Self::cancelled(tokens.status(), tokens.why())
    }

    /// A cancelled call that reported what it had done before it stopped.
    fn stopped_with_output(tokens: &CallTokens, output: &str) -> Outcome {
        Outcome::error(tokens.status(), format!("{}\n\n{output}", tokens.why()))
    }

    /// Stages 4–9 for a call that passed stages 1–3.
    pub(crate) async fn run_pipeline(
        &self,
        p: &Prepared,
        ctx: Arc<ToolUseContext>,
        tokens: &CallTokens,
    ) -> Outcome {
        if let Some(r) = &p.rejection {
            return self.reject(p, r.clone());
        }
        let Some(tool) = p.tool.clone() else {
            return self.reject(
                p,
                Rejection {
                    stage: RejectionStage::Lookup,
                    message: format!("No such tool available: {}", p.name),
                },
            );
        };

        // Stages 4–6 stop on any cancellation: nothing has run yet.
        let pre_call = self.pre_call(p, &tool, &ctx);
        let approved = tokio::select! {
            biased;
            () = tokens.interrupt.cancelled() => return Self::stopped(tokens),
            () = tokens.sibling.cancelled() => return Self::stopped(tokens),
            r = pre_call => r,
        };
        let mut approved = match approved {
            Ok(a) => a,
            Err(outcome) => return outcome,
        };
        // The user's reply and the decision reach this call only, through
        // its own copy of the context (cheap: the extensions are shared
        // pointers).
        let ctx = {
            let mut own = (*ctx).clone();
            if let Some(reply) = approved.reply.take() {
                own.extensions.insert(UserReply(reply));
            }
            own.extensions
                .insert(CallPermission(approved.decision.clone()));
            Arc::new(own)
        };
        // A call that reaches outside the machine may meet new subjects
        // (WebFetch's redirects): it gets the means to ask again.
        let ctx = if tool.is_open_world(&approved.call_input) {
            let mut own = (*ctx).clone();
            own.extensions.insert(self.recheck(&tool, &p.id, &ctx));
            Arc::new(own)
        } else {
            ctx
        };

        // Stage 7: the call. A `block` tool ignores the user's interrupt.
        let progress = ProgressReporter::new(p.id.as_str(), self.emitter.clone());
        let call_token = tokens.sibling.child_token();
        let cancel_on_interrupt = tool.interrupt_behavior() == InterruptBehavior::Cancel;
        let cx = CallContext {
            tool_use_id: &p.id,
            ctx: &ctx,
            progress: &progress,
            cancel: &call_token,
        };
        let call_started = std::time::Instant::now();
        let call = AssertUnwindSafe(tool.call(approved.call_input, cx)).catch_unwind();
        tokio::pin!(call);
        let ended = tokio::select! {
            biased;
            r = &mut call => Some(r),
            () = tokens.sibling.cancelled() => None,
            () = cancelled_if(cancel_on_interrupt, &tokens.interrupt) => None,
        };
        let mut messages = approved.messages;
        let result = match ended {
            None => {
                // Tell the call, then give it a moment to stop cleanly and
                // say what it had done (Bash: the output so far). A call
                // that does not answer in time is dropped.
                call_token.cancel();
                return match tokio::time::timeout(CANCEL_GRACE, &mut call).await {
                    Ok(Ok(Err(ToolError::CancelledWithOutput(output)))) => {
                        Self::stopped_with_output(tokens, &output)
                    }
                    _ => Self::stopped(tokens),
                };
            }
            Some(Err(panic)) => {
                let what = panic
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_owned())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "unknown panic".into());
                Err(ToolError::failed(format!("the tool crashed: {what}")))
            }
            Some(Ok(r)) => r,
        };

        match result {
            Ok(result) => {
                // Stage 8: PostToolUse.
                let stop = self
                    .run_post_hooks(
                        HookEventName::PostToolUse,
                        &self.hooks().post_tool_use,
                        p,
                        tool.name(),
                        &approved.observable,
                        || result.data.to_json(),
                        (false, millis(call_started.elapsed())),
                        &ctx,
                        &mut messages,
                    )
                    .await;
                // Stage 9: map, then budget.
                let content = tool.map_result(&*result.data, &p.id);
                let budgeted = self
                    .budget
                    .apply(&p.id, content, tool.max_result_size_chars())
                    .await;
                messages.extend(result.new_messages);
                Outcome {
                    content: budgeted.content,
                    is_error: false,
                    status: CallStatus::Succeeded,
                    persisted_path: budgeted.persisted_path,
                    new_messages: messages,
                    modifier: result.context_modifier,
                    prevent_continuation: stop,
                }
            }
            Err(ToolError::Cancelled) => Self::stopped(tokens),
            Err(ToolError::CancelledWithOutput(output)) => {
                Self::stopped_with_output(tokens, &output)
            }
            Err(error) => {
                let text = format!("Error: {error}");
                let stop = self
                    .run_post_hooks(
                        HookEventName::PostToolUseFailure,
                        &self.hooks().post_tool_use_failure,
                        p,
                        tool.name(),
                        &approved.observable,
                        || Value::String(error.to_string()),
                        (true, millis(call_started.elapsed())),
                        &ctx,
                        &mut messages,
                    )
                    .await;
                let status = if matches!(error, ToolError::TimedOut(_)) {
                    CallStatus::TimedOut
                } else {
                    CallStatus::Failed
                };
                let mut outcome = Outcome::error(status, text);
                outcome.new_messages = messages;
                outcome.prevent_continuation = stop;
                outcome
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn size_check_is_exact_enough_and_bounded() {
        assert!(!json_size_exceeds(&json!({"a": "x"}), 100));
        assert!(json_size_exceeds(&json!({"a": "x".repeat(200)}), 100));
        assert!(json_size_exceeds(&json!({"a": vec![0; 1000]}), 100));
        assert!(!json_size_exceeds(&json!({"a": vec![0; 10]}), 1000));
    }
}
