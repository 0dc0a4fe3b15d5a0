//! The tools that put the user in the loop (issue 20), one file per tool:
//!
//! | module | what |
//! |---|---|
//! | [`ask_user_question`] | `AskUserQuestion`: 1–4 questions with options, answered by the user |
//! | [`todo_write`] | `TodoWrite`: the agent's visible todo list |
//! | [`enter_plan_mode`] | `EnterPlanMode`: switch the session to plan mode |
//! | [`exit_plan_mode`] | `ExitPlanMode`: present the plan for the user's approval |
//!
//! AskUserQuestion and ExitPlanMode require user interaction: no mode,
//! rule or hook approves them. Their permission ask carries an
//! [`Interaction`](gatehouse_protocol::interaction::Interaction) (the
//! questions, the plan) that the front end shows instead of a plain
//! prompt, and the reply reaches the call as
//! [`UserReply`](gatehouse_core::ask::UserReply).
//!
//! The two plan-mode tools change the mode through a context modifier.
//! The seeds mark them concurrency-safe, but SPEC §1 honours a modifier
//! only for tools that are not, between batches; so here they are not
//! concurrency-safe: each runs alone, and the mode changes before the next
//! call starts (a sibling of the same message never runs under a mode
//! that changes halfway). They do no work, so running alone costs nothing.

use std::sync::Arc;

use gatehouse_core::Tool;
use gatehouse_core::typed::Typed;

pub mod ask_user_question;
pub mod enter_plan_mode;
pub mod exit_plan_mode;
pub mod todo_write;

pub use ask_user_question::AskUserQuestionTool;
pub use enter_plan_mode::EnterPlanModeTool;
pub use exit_plan_mode::ExitPlanModeTool;
pub use todo_write::TodoWriteTool;

/// The four tools, for the registry.
pub fn talkback_tools() -> Vec<Arc<dyn Tool>> {
    vec![
        Typed::arc(AskUserQuestionTool),
        Typed::arc(TodoWriteTool),
        Typed::arc(EnterPlanModeTool),
        Typed::arc(ExitPlanModeTool),
    ]
}
