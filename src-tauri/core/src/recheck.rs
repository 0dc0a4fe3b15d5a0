//! Asking the permission question again while a call runs.
//!
//! Some calls meet a new subject only after they start: WebFetch follows a
//! redirect to another host one hop at a time, and each new host is a new
//! permission question (SPEC §5 domain rules, issue 22). The pipeline gives
//! such calls (tools that declare `is_open_world`) a [`Recheck`] in their
//! context's extensions; the tool asks it about the new subject and gets
//! the engine's decision, settled the way the call's own was: a deny stays
//! a deny, an ask goes to the session's [`AskHandler`] (the same
//! `permission_requested` / `permission_answered` events the UI already
//! answers, for the same call), and an earlier "allow for this session"
//! answer covers it. PermissionRequest hooks are not consulted for a
//! re-check; PreToolUse hooks saw the call itself.
//!
//! A tool that finds no [`Recheck`] (it runs outside a pipeline) must fail
//! closed: refuse the new subject.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};

use async_trait::async_trait;
use gatehouse_protocol::permission::{
    DecisionReason, PermissionBehavior, PermissionDecision, PermissionMode, TraceOutcome, TraceStep,
};
use gatehouse_protocol::progress::SubagentRef;
use serde_json::Value;

use crate::ask::{AskAnswer, AskHandler, AskRequest};
use crate::permission::{PermissionQuery, PermissionResolver, PermissionSubject};
use crate::tool::Tool;

/// Decides a new subject of a running call.
#[async_trait]
pub trait SubjectCheck: Send + Sync {
    /// The decision settled like the call's own: the engine, then for an
    /// `ask` the user (or a refusal when nobody can answer); never `Ask`.
    /// `input` is the call's input rewritten for the subject (WebFetch: the
    /// hop's `url`), which is what the engine and a prompt show.
    async fn check(&self, input: &Value, subject: PermissionSubject) -> PermissionDecision;

    /// The allow rule that permits `subject` by itself, if one does: the
    /// engine decides as in the default mode, so no mode, hook or user
    /// answer counts (what an exception needing "an explicit allow rule"
    /// asks). Never asks.
    async fn allowing_rule(&self, input: &Value, subject: PermissionSubject) -> Option<String>;
}

/// The [`SubjectCheck`] of one call, as its context carries it.
#[derive(Clone)]
pub struct Recheck(pub Arc<dyn SubjectCheck>);

impl std::fmt::Debug for Recheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Recheck")
    }
}

/// The rule text of `decision` when it is an allow by a rule (not a mode,
/// a hook or a user answer): what an exception that needs "an explicit
/// allow rule" checks.
pub fn allowing_rule(decision: &PermissionDecision) -> Option<&str> {
    match (&decision.decision, &decision.reason) {
        (PermissionBehavior::Allow, DecisionReason::Rule { rule, .. }) => Some(rule),
        _ => None,
    }
}

/// The pipeline's [`SubjectCheck`]: the session's resolver, ask handler and
/// session grants, for one call of `tool`.
pub(crate) struct PipelineCheck {
    pub(crate) resolver: Arc<dyn PermissionResolver>,
    pub(crate) ask: Option<Arc<dyn AskHandler>>,
    pub(crate) session_grants: Arc<Mutex<HashSet<String>>>,
    pub(crate) tool: Arc<dyn Tool>,
    pub(crate) tool_use_id: String,
    pub(crate) agent: Option<SubagentRef>,
}

impl PipelineCheck {
    fn grant_key(&self, subject: &PermissionSubject) -> String {
        // The same key the pipeline's own asks use.
        format!("{}\u{1f}{subject:?}", self.tool.name())
    }

    fn settled(
        mut trace: Vec<TraceStep>,
        behavior: PermissionBehavior,
        answer: &str,
        detail: &str,
    ) -> PermissionDecision {
        let outcome = match behavior {
            PermissionBehavior::Allow => TraceOutcome::Allow,
            _ => TraceOutcome::Deny,
        };
        trace.push(TraceStep::new("ask", outcome, detail));
        PermissionDecision {
            decision: behavior,
            reason: DecisionReason::UserAnswer {
                answer: answer.into(),
            },
            trace,
        }
    }
}

impl PipelineCheck {
    /// The engine's decision, in the session's mode or in `mode`; off the
    /// runtime as the pipeline's own (see `decide_off_runtime`). A failed
    /// task fails closed to a deny.
    async fn decide(
        &self,
        input: &Value,
        subject: PermissionSubject,
        mode: Option<PermissionMode>,
    ) -> PermissionDecision {
        let resolver = Arc::clone(&self.resolver);
        let tool = Arc::clone(&self.tool);
        let input = input.clone();
        tokio::task::spawn_blocking(move || {
            let verdict = crate::permission::ToolPermissionVerdict::Passthrough;
            let query = PermissionQuery {
                tool_name: tool.name(),
                input: &input,
                subject: Some(&subject),
                is_read_only: tool.is_read_only(&input),
                is_destructive: tool.is_destructive(&input),
                requires_user_interaction: false,
                tool_verdict: &verdict,
            };
            match mode {
                Some(mode) => resolver.decide_in_subagent_mode(&query, mode),
                None => resolver.decide(&query),
            }
        })
        .await
        .unwrap_or_else(|e| PermissionDecision {
            decision: PermissionBehavior::Deny,
            reason: DecisionReason::SafetyCheck {
                message: format!("the permission engine failed on this re-check ({e})"),
            },
            trace: Vec::new(),
        })
    }
}

#[async_trait]
impl SubjectCheck for PipelineCheck {
    async fn allowing_rule(&self, input: &Value, subject: PermissionSubject) -> Option<String> {
        let decision = self
            .decide(input, subject, Some(PermissionMode::Default))
            .await;
        allowing_rule(&decision).map(str::to_owned)
    }

    async fn check(&self, input: &Value, subject: PermissionSubject) -> PermissionDecision {
        let decision = self.decide(input, subject.clone(), None).await;
        if decision.decision != PermissionBehavior::Ask {
            return decision;
        }
        let key = self.grant_key(&subject);
        let granted = self
            .session_grants
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .contains(&key);
        let trace = decision.trace.clone();
        if granted {
            return Self::settled(
                trace,
                PermissionBehavior::Allow,
                "allow for this session",
                "covered by an earlier \"allow for this session\" answer",
            );
        }
        let Some(handler) = &self.ask else {
            return Self::settled(
                trace,
                PermissionBehavior::Deny,
                "nobody could be asked",
                "no ask handler is connected",
            );
        };
        let answer = handler
            .ask(AskRequest {
                tool_use_id: self.tool_use_id.clone(),
                tool_name: self.tool.name().to_owned(),
                input: input.clone(),
                decision,
                agent: self.agent.clone(),
                interaction: None,
            })
            .await;
        match answer {
            AskAnswer::AllowOnce | AskAnswer::Reply(_) => Self::settled(
                trace,
                PermissionBehavior::Allow,
                "allow once",
                "the user allowed this step of the call",
            ),
            AskAnswer::AllowForSession => {
                self.session_grants
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .insert(key);
                Self::settled(
                    trace,
                    PermissionBehavior::Allow,
                    "allow for this session",
                    "the user allowed this step and similar ones for the session",
                )
            }
            AskAnswer::Deny { feedback } => {
                let answer = match feedback {
                    Some(f) => format!("deny, with feedback: {f}"),
                    None => "deny".into(),
                };
                Self::settled(
                    trace,
                    PermissionBehavior::Deny,
                    &answer,
                    "the user refused this step of the call",
                )
            }
        }
    }
}
