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

use std::collections::HashSet;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use futures::FutureExt as _;
use futures::future::join_all;
use gatehouse_protocol::event::{ContentBlock, EventBody, HookEventName, RejectionStage};
use gatehouse_protocol::interaction::{Interaction, InteractionReply};
use gatehouse_protocol::permission::{
    DecisionReason, PermissionBehavior, PermissionDecision, PermissionMode, TraceOutcome, TraceStep,
};
use gatehouse_protocol::progress::SubagentRef;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::ask::{AskAnswer, AskRequest, UserReply, no_user_text};
use crate::context::{ContextModifier, ToolUseContext};
use crate::error::ToolError;
use crate::hooks::{
    HookDecision, PostToolUseHook, PostToolUseInput, PreToolUseInput, combine_pre_outcomes,
};
use crate::permission::{PermissionQuery, PermissionSubject};
use crate::registry::ToolPool;
use crate::runtime::{CallStatus, ToolCallResult, ToolRuntime, ToolUseBlock};
use crate::tool::{CallContext, InterruptBehavior, NewMessage, ProgressReporter, Tool};

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
fn is_liftable(reason: &DecisionReason) -> bool {
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

fn reason_kind(reason: &DecisionReason) -> &'static str {
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

/// A handler's answer to an interaction as a reply, for handlers that
/// answer it like a permission prompt: a plan allowed is approved into
/// `default` mode, one denied goes on being planned (with the feedback);
/// questions allowed or denied without answers are unanswered.
fn as_reply(interaction: &Interaction, answer: AskAnswer) -> InteractionReply {
    match (interaction, answer) {
        (_, AskAnswer::Reply(reply)) => reply,
        (Interaction::PlanApproval { .. }, AskAnswer::AllowOnce | AskAnswer::AllowForSession) => {
            InteractionReply::PlanApproved {
                mode: PermissionMode::Default,
            }
        }
        (Interaction::PlanApproval { .. }, AskAnswer::Deny { feedback }) => {
            InteractionReply::KeepPlanning { feedback }
        }
        (Interaction::Questions { .. }, AskAnswer::AllowOnce | AskAnswer::AllowForSession) => {
            InteractionReply::Unanswered {
                reason: "the prompt was allowed without answers".into(),
            }
        }
        (Interaction::Questions { .. }, AskAnswer::Deny { feedback }) => {
            InteractionReply::Unanswered {
                reason: feedback.unwrap_or_else(|| "the user declined to answer".into()),
            }
        }
    }
}

/// Emits the `interaction_answered` that closes an `interaction_requested`:
/// the reply, or `unanswered` when the wait is dropped (an interrupt).
struct InteractionShown<'a> {
    emitter: &'a crate::events::Emitter,
    tool_use_id: &'a str,
    reply: Option<InteractionReply>,
}

impl<'a> InteractionShown<'a> {
    fn new(emitter: &'a crate::events::Emitter, tool_use_id: &'a str) -> Self {
        Self {
            emitter,
            tool_use_id,
            reply: None,
        }
    }

    fn answered(&mut self, reply: InteractionReply) {
        self.reply = Some(reply);
    }
}

impl Drop for InteractionShown<'_> {
    fn drop(&mut self) {
        let reply = self
            .reply
            .take()
            .unwrap_or_else(|| InteractionReply::Unanswered {
                reason: "the session was interrupted before the user answered".into(),
            });
        self.emitter.emit(EventBody::InteractionAnswered {
            tool_use_id: self.tool_use_id.to_owned(),
            reply,
        });
    }
}

/// The decision reason's `answer` for an interaction reply.
fn describe_reply(reply: &InteractionReply) -> String {
    match reply {
        InteractionReply::Answers { answers } => format!("answered {} question(s)", answers.len()),
        InteractionReply::Unanswered { reason } => format!("no answer ({reason})"),
        InteractionReply::PlanApproved { mode } => format!("approved the plan ({mode:?} mode)"),
        InteractionReply::KeepPlanning { .. } => "keep planning".into(),
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

    /// The [`Recheck`](crate::recheck::Recheck) of one call.
    fn recheck(
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
    async fn pre_call(
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

    /// Settles an `ask`: a session grant, the ask handler, or (without a
    /// handler) a deny.
    #[allow(clippy::too_many_arguments)] // the call's parts, passed as borrowed
    async fn ask_user(
        &self,
        p: &Prepared,
        tool: &dyn Tool,
        observable: &Value,
        subject: Option<&PermissionSubject>,
        requires_ui: bool,
        asked: PermissionDecision,
        ctx: &ToolUseContext,
    ) -> Settled {
        let grant_key = format!("{}\u{1f}{subject:?}", tool.name());
        let liftable = is_liftable(&asked.reason) && !requires_ui;
        let mut trace = asked.trace.clone();
        let settle = |decision, answer: String, detail: String, mut trace: Vec<TraceStep>| {
            trace.push(TraceStep::new(
                "ask",
                match decision {
                    PermissionBehavior::Allow => TraceOutcome::Allow,
                    PermissionBehavior::Ask => TraceOutcome::Ask,
                    PermissionBehavior::Deny => TraceOutcome::Deny,
                },
                detail,
            ));
            Settled {
                decision: PermissionDecision {
                    decision,
                    reason: DecisionReason::UserAnswer { answer },
                    trace,
                },
                reply: None,
                nobody: false,
            }
        };
        if liftable && self.has_session_grant(&grant_key) {
            return settle(
                PermissionBehavior::Allow,
                "allow for this session".into(),
                "covered by an earlier \"allow for this session\" answer".into(),
                trace,
            );
        }
        if let Some(settled) = self
            .permission_request_hooks(p, tool, observable, requires_ui, &asked, ctx)
            .await
        {
            return Settled {
                decision: settled,
                reply: None,
                nobody: false,
            };
        }
        let Some(handler) = &self.ask else {
            trace.push(TraceStep::new(
                "ask",
                TraceOutcome::Deny,
                "no ask handler is connected",
            ));
            return Settled {
                decision: PermissionDecision {
                    decision: PermissionBehavior::Deny,
                    reason: DecisionReason::Default {
                        message: format!(
                            "permission is required ({}) but nobody can be asked, so the call is refused",
                            describe_reason(&asked.reason)
                        ),
                    },
                    trace,
                },
                reply: None,
                nobody: true,
            };
        };
        if let Some(notifier) = &self.hooks().notifier {
            notifier.notify(
                &p.id,
                format!("Gatehouse needs your permission to use {}", tool.name()),
            );
        }
        let interaction = tool.interaction(observable);
        let request = AskRequest {
            tool_use_id: p.id.clone(),
            tool_name: tool.name().to_owned(),
            input: observable.clone(),
            decision: asked,
            agent: ctx.extensions.get::<SubagentRef>().cloned(),
            interaction: interaction.clone(),
        };
        let answer = match interaction {
            Some(interaction) => {
                // Shown and answered as events whoever answers (the window,
                // `--answer`), so the stored session has question and reply.
                let mut shown = InteractionShown::new(&self.emitter, &p.id);
                self.emitter.emit(EventBody::InteractionRequested {
                    tool_use_id: p.id.clone(),
                    tool_name: tool.name().to_owned(),
                    interaction: interaction.clone(),
                });
                let reply = as_reply(&interaction, handler.ask(request).await);
                shown.answered(reply.clone());
                AskAnswer::Reply(reply)
            }
            None => handler.ask(request).await,
        };
        match answer {
            AskAnswer::AllowOnce => settle(
                PermissionBehavior::Allow,
                "allow once".into(),
                "the user allowed this call".into(),
                trace,
            ),
            AskAnswer::AllowForSession => {
                if liftable {
                    self.grant_for_session(grant_key);
                }
                settle(
                    PermissionBehavior::Allow,
                    "allow for this session".into(),
                    if liftable {
                        "the user allowed this call and similar ones for the session".into()
                    } else {
                        "the user allowed this call; a rule or check asked, so later calls will ask again".into()
                    },
                    trace,
                )
            }
            AskAnswer::Deny { feedback } => {
                let answer = match &feedback {
                    Some(f) => format!("deny, with feedback: {f}"),
                    None => "deny".into(),
                };
                settle(
                    PermissionBehavior::Deny,
                    answer,
                    "the user refused this call".into(),
                    trace,
                )
            }
            AskAnswer::Reply(reply) => {
                let mut settled = settle(
                    PermissionBehavior::Allow,
                    describe_reply(&reply),
                    "the user replied; the tool reads the reply".into(),
                    trace,
                );
                settled.reply = Some(reply);
                settled
            }
        }
    }

    /// Stage 8: runs the matching post hooks in parallel, adds their
    /// context to `messages`, and returns a stop reason if one blocked.
    /// `failed` is (whether the call failed, how long it ran).
    #[allow(clippy::too_many_arguments)]
    async fn run_post_hooks(
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
    async fn permission_request_hooks(
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
fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// The `hook_ran` event of a PreToolUse or PermissionRequest hook.
fn pre_hook_event(
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
