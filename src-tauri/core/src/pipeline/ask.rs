//! Stage 6's ask: the user is asked through the
//! [`AskHandler`](crate::ask::AskHandler), and interactions (questions,
//! plans) are answered.

use gatehouse_protocol::event::EventBody;
use gatehouse_protocol::interaction::{Interaction, InteractionReply};
use gatehouse_protocol::permission::{
    DecisionReason, PermissionBehavior, PermissionDecision, PermissionMode, TraceOutcome, TraceStep,
};
use gatehouse_protocol::progress::SubagentRef;
use serde_json::Value;

use crate::ask::{AskAnswer, AskRequest};
use crate::context::ToolUseContext;
use crate::permission::PermissionSubject;
use crate::runtime::ToolRuntime;
use crate::tool::Tool;

use super::decision::{describe_reason, is_liftable};
use super::{Prepared, Settled};

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

impl ToolRuntime {
    /// Settles an `ask`: a session grant, the ask handler, or (without a
    /// handler) a deny.
    #[allow(clippy::too_many_arguments)] // the call's parts, passed as borrowed
    pub(super) async fn ask_user(
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
}
