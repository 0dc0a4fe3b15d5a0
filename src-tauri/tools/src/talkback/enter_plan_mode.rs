//! EnterPlanMode: switches the session to plan mode (read-only tools only)
//! through a context modifier; see the module docs of [`super`] for why it
//! is not concurrency-safe.

use async_trait::async_trait;
use gatehouse_core::ToolError;
use gatehouse_core::context::{ContextModifier, ToolUseContext};
use gatehouse_core::names::ENTER_PLAN_MODE;
use gatehouse_core::tool::{CallContext, ToolResult};
use gatehouse_core::typed::TypedTool;
use gatehouse_protocol::event::ContentBlock;
use gatehouse_protocol::permission::PermissionMode;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The model's text after the switch (Claude Code's).
pub const ENTERED_PLAN_MODE: &str = "Entered plan mode.\n\nIn plan mode, you should:\n1. Explore codebase\n2. Design approach\n3. Use ExitPlanMode when ready";

/// EnterPlanMode takes no input.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EnterPlanModeInput {}

/// EnterPlanMode's output.
#[derive(Debug, Clone, Serialize)]
pub struct EnterPlanModeOutput {
    /// The mode before.
    pub previous_mode: PermissionMode,
}

/// EnterPlanMode.
#[derive(Debug, Clone, Copy, Default)]
pub struct EnterPlanModeTool;

#[async_trait]
impl TypedTool for EnterPlanModeTool {
    type Input = EnterPlanModeInput;
    type Output = EnterPlanModeOutput;

    fn name(&self) -> &str {
        ENTER_PLAN_MODE
    }

    fn description(&self) -> &str {
        "Switches the session to plan mode for a complex task: only read-only tools run (no edits, \
         no commands that change anything) while you explore the code and design an approach. \
         When the plan is ready, present it with ExitPlanMode for the user's approval."
    }

    fn search_hint(&self) -> Option<&str> {
        Some("enter plan-only mode for complex tasks")
    }

    fn is_read_only(&self, _input: &EnterPlanModeInput) -> bool {
        true
    }

    async fn validate_input(
        &self,
        _input: &EnterPlanModeInput,
        ctx: &ToolUseContext,
    ) -> Result<(), ToolError> {
        if ctx.agent_id.is_some() {
            return Err(ToolError::invalid(
                "EnterPlanMode cannot be used by a sub-agent: plan mode belongs to the main session",
            ));
        }
        if ctx.permission_mode == PermissionMode::Plan {
            return Err(ToolError::invalid(
                "the session is already in plan mode; present your plan with ExitPlanMode when it is ready",
            ));
        }
        Ok(())
    }

    async fn call(
        &self,
        _input: EnterPlanModeInput,
        cx: CallContext<'_>,
    ) -> Result<ToolResult<EnterPlanModeOutput>, ToolError> {
        let previous_mode = cx.ctx.permission_mode;
        Ok(
            ToolResult::new(EnterPlanModeOutput { previous_mode }).with_context_modifier(
                ContextModifier::new("mode is now plan", |ctx| {
                    ctx.permission_mode = PermissionMode::Plan;
                }),
            ),
        )
    }

    fn map_result(&self, _output: &EnterPlanModeOutput, _tool_use_id: &str) -> Vec<ContentBlock> {
        vec![ContentBlock::Text {
            text: ENTERED_PLAN_MODE.to_owned(),
        }]
    }
}
