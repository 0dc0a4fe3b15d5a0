//! Questions and plan approvals a person answers (issue 20): a call of
//! AskUserQuestion or ExitPlanMode waits (the pipeline has emitted
//! `interaction_requested`) until a front end replies with
//! `answer_interaction`; the reply is checked against what was asked
//! (every question answered with its own options; a plan approved into
//! `default` or `acceptEdits`) and goes to the tool, which turns it into
//! the tool_result. The pipeline reports the reply as
//! `interaction_answered` (`unanswered` when an interrupt withdrew it).

use std::collections::HashMap;
use std::sync::Mutex;

use gatehouse_core::ask::{AskAnswer, AskRequest};
use gatehouse_protocol::interaction::{Interaction, InteractionReply};
use gatehouse_protocol::permission::PermissionMode;
use gatehouse_tools::talkback::ask_user_question::check_answers;
use tokio::sync::oneshot;

struct Waiting {
    interaction: Interaction,
    reply: oneshot::Sender<InteractionReply>,
}

/// The interactions of one session waiting for a reply.
#[derive(Default)]
pub struct PendingInteractions {
    waiting: Mutex<HashMap<String, Waiting>>,
}

impl std::fmt::Debug for PendingInteractions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PendingInteractions")
            .field("waiting", &self.pending_ids())
            .finish()
    }
}

/// Checks a reply against what was asked; the message names the field.
pub fn check_reply(interaction: &Interaction, reply: &InteractionReply) -> Result<(), String> {
    match (interaction, reply) {
        (_, InteractionReply::Unanswered { .. }) => Ok(()),
        (Interaction::Questions { questions }, InteractionReply::Answers { answers }) => {
            check_answers(questions, answers)
        }
        (Interaction::Questions { .. }, other) => Err(format!(
            "reply: a question is answered with `answers` or `unanswered`, not {}",
            kind(other)
        )),
        (Interaction::PlanApproval { .. }, InteractionReply::PlanApproved { mode }) => {
            if matches!(mode, PermissionMode::Default | PermissionMode::AcceptEdits) {
                Ok(())
            } else {
                Err(format!(
                    "reply.mode: a plan is approved into default or acceptEdits mode, not {mode:?}"
                ))
            }
        }
        (Interaction::PlanApproval { .. }, InteractionReply::KeepPlanning { .. }) => Ok(()),
        (Interaction::PlanApproval { .. }, other) => Err(format!(
            "reply: a plan is answered with `plan_approved`, `keep_planning` or `unanswered`, not {}",
            kind(other)
        )),
    }
}

fn kind(reply: &InteractionReply) -> &'static str {
    match reply {
        InteractionReply::Answers { .. } => "`answers`",
        InteractionReply::Unanswered { .. } => "`unanswered`",
        InteractionReply::PlanApproved { .. } => "`plan_approved`",
        InteractionReply::KeepPlanning { .. } => "`keep_planning`",
    }
}

impl PendingInteractions {
    fn waiting(&self) -> std::sync::MutexGuard<'_, HashMap<String, Waiting>> {
        self.waiting.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The calls waiting for a reply.
    pub fn pending_ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = self.waiting().keys().cloned().collect();
        ids.sort();
        ids
    }

    /// Delivers a reply for call `tool_use_id`. Fails, leaving the question
    /// open, when nothing waits for that call or the reply does not fit.
    pub fn answer(
        &self,
        session_id: &str,
        tool_use_id: &str,
        reply: InteractionReply,
    ) -> Result<(), String> {
        let mut waiting = self.waiting();
        let Some(entry) = waiting.get(tool_use_id) else {
            return Err(format!(
                "no question or plan is waiting for call {tool_use_id} in session {session_id}"
            ));
        };
        check_reply(&entry.interaction, &reply)?;
        let entry = waiting
            .remove(tool_use_id)
            .ok_or_else(|| format!("call {tool_use_id} stopped waiting"))?;
        entry.reply.send(reply).map_err(|_| {
            format!("call {tool_use_id} stopped waiting for an answer (it was interrupted)")
        })
    }

    /// Shows `interaction` and waits for the reply.
    pub async fn ask(&self, request: AskRequest, interaction: Interaction) -> AskAnswer {
        let (tx, rx) = oneshot::channel();
        self.waiting().insert(
            request.tool_use_id.clone(),
            Waiting {
                interaction: interaction.clone(),
                reply: tx,
            },
        );
        let _withdraw = Withdraw {
            pending: self,
            tool_use_id: request.tool_use_id,
        };
        let reply = rx.await.unwrap_or_else(|_| InteractionReply::Unanswered {
            reason: "the question was closed without an answer".into(),
        });
        AskAnswer::Reply(reply)
    }
}

/// Forgets a question whose call stopped waiting (answered, or dropped by
/// an interrupt), so a late answer is refused.
struct Withdraw<'a> {
    pending: &'a PendingInteractions,
    tool_use_id: String,
}

impl Drop for Withdraw<'_> {
    fn drop(&mut self) {
        self.pending.waiting().remove(&self.tool_use_id);
    }
}
