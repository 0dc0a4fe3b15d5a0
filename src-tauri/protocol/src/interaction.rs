//! The tools that put the user in the loop (issue 20): AskUserQuestion's
//! questions and answers, ExitPlanMode's plan approval, TodoWrite's list.
//!
//! A call of AskUserQuestion or ExitPlanMode is never auto-approved; its
//! permission ask is shown as the question (`interaction_requested`) rather
//! than as a plain permission prompt, and the reply (`interaction_answered`,
//! sent with the `answer_interaction` command or scripted by
//! `gatehouse-cli run --answer` / `--ask`) reaches the tool, which turns it
//! into the tool_result the model reads.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::permission::PermissionMode;

/// One option of a question.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct QuestionOption {
    /// What the user picks (1–5 words).
    pub label: String,
    /// What picking it means.
    pub description: String,
}

/// One question of an AskUserQuestion call (Claude Code's input shape).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Question {
    /// The full question.
    pub question: String,
    /// A short label (a chip, at most 12 characters), unique in the call;
    /// scripted answers name it (`--answer 'Header=Option'`).
    pub header: String,
    /// The 2–4 choices; the user may also type an "Other" answer.
    pub options: Vec<QuestionOption>,
    /// Whether several options may be picked.
    #[serde(rename = "multiSelect")]
    #[ts(rename = "multiSelect")]
    pub multi_select: bool,
}

/// What the user is asked in place of a plain permission prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Interaction {
    /// AskUserQuestion: questions with options.
    Questions {
        /// The questions, in order.
        questions: Vec<Question>,
    },
    /// ExitPlanMode: the plan (Markdown) to approve.
    PlanApproval {
        /// The plan.
        plan: String,
    },
}

/// The user's answer to one question.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct QuestionAnswer {
    /// The question's header.
    pub header: String,
    /// The labels picked (one unless the question is `multiSelect`).
    pub selected: Vec<String>,
    /// The "Other" free-text answer, if the user typed one.
    #[serde(default)]
    pub other: Option<String>,
}

/// The user's reply to an [`Interaction`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum InteractionReply {
    /// The questions' answers, one per question.
    Answers {
        /// In the order of the questions.
        answers: Vec<QuestionAnswer>,
    },
    /// Nobody answered: no user to ask (headless without `--answer`), or
    /// the user dismissed the dialog.
    Unanswered {
        /// Why, for the model ("a headless run without --answer").
        reason: String,
    },
    /// The plan is approved; the session continues in `mode` (`default`
    /// or `acceptEdits`).
    PlanApproved {
        /// The mode after plan mode.
        mode: PermissionMode,
    },
    /// The plan is not approved: stay in plan mode, with the user's
    /// feedback for the model.
    KeepPlanning {
        /// What the user wants changed.
        feedback: Option<String>,
    },
}

/// Arguments of `answer_interaction`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct AnswerInteractionArgs {
    /// The session.
    pub session_id: String,
    /// The call whose question is answered.
    pub tool_use_id: String,
    /// The reply.
    pub reply: InteractionReply,
}

/// The state of one todo item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    /// Not started.
    Pending,
    /// Being worked on (at most one item at a time).
    InProgress,
    /// Done.
    Completed,
}

/// One item of the agent's todo list (TodoWrite).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct TodoItem {
    /// What is to be done, imperative ("Run the tests").
    pub content: String,
    /// The same while it is being done ("Running the tests").
    #[serde(rename = "activeForm")]
    #[ts(rename = "activeForm")]
    pub active_form: String,
    /// Its state.
    pub status: TodoStatus,
}
