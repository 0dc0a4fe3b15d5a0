//! ExitPlanMode: presents the plan (Markdown) for the user's approval.
//! Approved: the session leaves plan mode for `default` or `acceptEdits`
//! (a context modifier, so the next batch already runs in it). Not
//! approved: it stays in plan mode and the user's feedback goes back to
//! the model.

use async_trait::async_trait;
use gatehouse_core::ToolError;
use gatehouse_core::ask::UserReply;
use gatehouse_core::context::{ContextModifier, ToolUseContext};
use gatehouse_core::names::EXIT_PLAN_MODE;
use gatehouse_core::tool::{CallContext, ToolResult};
use gatehouse_core::typed::TypedTool;
use gatehouse_protocol::event::ContentBlock;
use gatehouse_protocol::interaction::{Interaction, InteractionReply};
use gatehouse_protocol::permission::PermissionMode;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The longest plan accepted, in characters.
const MAX_PLAN_CHARS: usize = 100_000;

/// The model's text when the plan is approved (Claude Code's first
/// sentence, then the mode the session continues in).
pub const PLAN_APPROVED: &str = "User has approved your plan. You can now start coding. Start with updating your todo list if applicable";

/// ExitPlanMode's input.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExitPlanModeInput {
    /// The plan you came up with, in Markdown, concise: what you will change
    /// and in which order.
    pub plan: String,
}

/// What became of the plan.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum ExitPlanModeOutput {
    /// Approved; the session continues in `mode`.
    Approved {
        /// The plan.
        plan: String,
        /// The mode after plan mode.
        mode: PermissionMode,
    },
    /// Not approved: keep planning.
    KeepPlanning {
        /// The plan.
        plan: String,
        /// The user's feedback.
        feedback: Option<String>,
    },
    /// Nobody could approve it.
    Unanswered {
        /// Why.
        reason: String,
    },
}

/// ExitPlanMode.
#[derive(Debug, Clone, Copy, Default)]
pub struct ExitPlanModeTool;

#[async_trait]
impl TypedTool for ExitPlanModeTool {
    type Input = ExitPlanModeInput;
    type Output = ExitPlanModeOutput;

    fn name(&self) -> &str {
        EXIT_PLAN_MODE
    }

    fn description(&self) -> &str {
        "Use in plan mode when your plan is ready: presents the plan (Markdown) to the user, who \
         approves it (the session leaves plan mode and your edits can run) or asks you to keep \
         planning with feedback. Only for planning the implementation of a task that changes code, \
         not for research."
    }

    fn search_hint(&self) -> Option<&str> {
        Some("present plan for approval and leave plan mode")
    }

    fn is_read_only(&self, _input: &ExitPlanModeInput) -> bool {
        true
    }

    fn requires_user_interaction(&self) -> bool {
        true
    }

    fn interaction(&self, input: &ExitPlanModeInput) -> Option<Interaction> {
        Some(Interaction::PlanApproval {
            plan: input.plan.clone(),
        })
    }

    async fn validate_input(
        &self,
        input: &ExitPlanModeInput,
        ctx: &ToolUseContext,
    ) -> Result<(), ToolError> {
        if ctx.permission_mode != PermissionMode::Plan {
            return Err(ToolError::invalid(format!(
                "the session is not in plan mode (it is in {} mode), so there is no plan to \
                 approve; call EnterPlanMode first, or carry on",
                mode_name(ctx.permission_mode)
            )));
        }
        if input.plan.trim().is_empty() {
            return Err(ToolError::invalid("plan: must not be empty"));
        }
        let chars = input.plan.chars().count();
        if chars > MAX_PLAN_CHARS {
            return Err(ToolError::invalid(format!(
                "plan: {chars} characters is too long (at most {MAX_PLAN_CHARS})"
            )));
        }
        Ok(())
    }

    async fn call(
        &self,
        input: ExitPlanModeInput,
        cx: CallContext<'_>,
    ) -> Result<ToolResult<ExitPlanModeOutput>, ToolError> {
        let plan = input.plan;
        let reply = cx.ctx.extensions.get::<UserReply>().map(|r| &r.0);
        let mode = match reply {
            Some(InteractionReply::PlanApproved { mode }) => *mode,
            // Allowed by a handler that knows no plans (`--ask allow`).
            None => PermissionMode::Default,
            Some(InteractionReply::KeepPlanning { feedback }) => {
                return Ok(ToolResult::new(ExitPlanModeOutput::KeepPlanning {
                    plan,
                    feedback: feedback.clone().filter(|f| !f.trim().is_empty()),
                }));
            }
            Some(InteractionReply::Unanswered { reason }) => {
                return Ok(ToolResult::new(ExitPlanModeOutput::Unanswered {
                    reason: reason.clone(),
                }));
            }
            Some(other) => {
                return Err(ToolError::failed(format!(
                    "the reply to the plan was not an approval ({other:?})"
                )));
            }
        };
        if !matches!(mode, PermissionMode::Default | PermissionMode::AcceptEdits) {
            return Err(ToolError::failed(format!(
                "a plan is approved into default or acceptEdits mode, not {}",
                mode_name(mode)
            )));
        }
        Ok(
            ToolResult::new(ExitPlanModeOutput::Approved { plan, mode }).with_context_modifier(
                ContextModifier::new(format!("mode is now {}", mode_name(mode)), move |ctx| {
                    ctx.permission_mode = mode
                }),
            ),
        )
    }

    fn map_result(&self, output: &ExitPlanModeOutput, _tool_use_id: &str) -> Vec<ContentBlock> {
        vec![ContentBlock::Text {
            text: result_text(output),
        }]
    }
}

/// The tool_result text for each outcome.
pub fn result_text(output: &ExitPlanModeOutput) -> String {
    match output {
        ExitPlanModeOutput::Approved { mode, .. } => {
            let edits = if *mode == PermissionMode::AcceptEdits {
                "file edits inside the working directories run without asking"
            } else {
                "edits and commands ask the user as usual"
            };
            format!(
                "{PLAN_APPROVED}\n\nThe session has left plan mode and is now in {} mode: {edits}.",
                mode_name(*mode)
            )
        }
        ExitPlanModeOutput::KeepPlanning { feedback, .. } => {
            let said = match feedback {
                Some(f) => format!(" The user said:\n{f}"),
                None => String::new(),
            };
            format!(
                "The user did not approve the plan and wants you to keep planning. The session is \
                 still in plan mode: only read-only tools run. Revise the plan and present it again \
                 with ExitPlanMode.{said}"
            )
        }
        ExitPlanModeOutput::Unanswered { reason } => format!(
            "Nobody approved the plan ({reason}). The session is still in plan mode: only \
             read-only tools run."
        ),
    }
}

/// A mode as spelled in settings files.
fn mode_name(mode: PermissionMode) -> &'static str {
    match mode {
        PermissionMode::Default => "default",
        PermissionMode::AcceptEdits => "acceptEdits",
        PermissionMode::Plan => "plan",
        PermissionMode::BypassPermissions => "bypassPermissions",
        PermissionMode::DontAsk => "dontAsk",
    }
}
