//! TodoWrite: the agent's todo list, replaced whole by each call and shown
//! in the UI's todo panel (a `todos_updated` progress payload).
//!
//! Read-only here although the seeds say otherwise: it changes nothing on
//! disk or elsewhere outside the session, and a writer would be refused in
//! plan mode, where a list of the planned work is most useful; it is still
//! not concurrency-safe, so two lists of one message never race.

use async_trait::async_trait;
use gatehouse_core::ToolError;
use gatehouse_core::context::ToolUseContext;
use gatehouse_core::names::TODO_WRITE;
use gatehouse_core::tool::{CallContext, ToolResult};
use gatehouse_core::typed::TypedTool;
use gatehouse_protocol::event::ContentBlock;
use gatehouse_protocol::interaction::{TodoItem, TodoStatus};
use gatehouse_protocol::progress::ToolProgressData;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// At most this many items: a list is for people to read.
pub const MAX_TODOS: usize = 100;
/// At most this many characters per text.
const MAX_TEXT_CHARS: usize = 1_000;

/// The model's text for a successful call (Claude Code's).
pub const TODOS_MODIFIED: &str = "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable";

/// The state of one item, as the model writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatusInput {
    /// Not started.
    Pending,
    /// Being worked on (at most one item).
    InProgress,
    /// Done.
    Completed,
}

/// One item, as the model writes it.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TodoInput {
    /// What is to be done, in the imperative ("Run the tests").
    pub content: String,
    /// The same in the present continuous, shown while it is in progress
    /// ("Running the tests").
    #[serde(rename = "activeForm")]
    pub active_form: String,
    /// pending, in_progress (at most one item at a time) or completed.
    pub status: TodoStatusInput,
}

/// TodoWrite's input.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TodoWriteInput {
    /// The whole updated todo list (it replaces the previous one).
    pub todos: Vec<TodoInput>,
}

/// TodoWrite's output.
#[derive(Debug, Clone, Serialize)]
pub struct TodoWriteOutput {
    /// The new list.
    pub todos: Vec<TodoItem>,
}

/// TodoWrite.
#[derive(Debug, Clone, Copy, Default)]
pub struct TodoWriteTool;

impl TodoWriteInput {
    /// The list as the protocol carries it.
    pub fn to_items(&self) -> Vec<TodoItem> {
        self.todos
            .iter()
            .map(|t| TodoItem {
                content: t.content.trim().to_owned(),
                active_form: t.active_form.trim().to_owned(),
                status: match t.status {
                    TodoStatusInput::Pending => TodoStatus::Pending,
                    TodoStatusInput::InProgress => TodoStatus::InProgress,
                    TodoStatusInput::Completed => TodoStatus::Completed,
                },
            })
            .collect()
    }
}

/// Checks a list; every message names the field (`todos[2].status`).
pub fn validate_todos(input: &TodoWriteInput) -> Result<(), String> {
    if input.todos.len() > MAX_TODOS {
        return Err(format!(
            "todos: {} items is too many (at most {MAX_TODOS})",
            input.todos.len()
        ));
    }
    let mut in_progress: Option<usize> = None;
    for (i, t) in input.todos.iter().enumerate() {
        text(&t.content, &format!("todos[{i}].content"))?;
        text(&t.active_form, &format!("todos[{i}].activeForm"))?;
        if t.status == TodoStatusInput::InProgress {
            if let Some(first) = in_progress {
                return Err(format!(
                    "todos[{i}].status: todos[{first}] is already in_progress; at most one item \
                     may be in_progress at a time (mark the others pending or completed)"
                ));
            }
            in_progress = Some(i);
        }
    }
    Ok(())
}

fn text(value: &str, field: &str) -> Result<(), String> {
    if value.trim().is_empty() {
        return Err(format!("{field}: must not be empty"));
    }
    let chars = value.chars().count();
    if chars > MAX_TEXT_CHARS {
        return Err(format!(
            "{field}: {chars} characters is too long (at most {MAX_TEXT_CHARS})"
        ));
    }
    Ok(())
}

#[async_trait]
impl TypedTool for TodoWriteTool {
    type Input = TodoWriteInput;
    type Output = TodoWriteOutput;

    fn name(&self) -> &str {
        TODO_WRITE
    }

    fn description(&self) -> &str {
        "Creates and updates your todo list for the current session; the user sees it as a panel. \
         Send the whole list each time (it replaces the previous one). Each item has content \
         (imperative: \"Run the tests\"), activeForm (\"Running the tests\") and status pending, \
         in_progress or completed; keep exactly one item in_progress while you work, and mark \
         items completed as soon as they are done. Use it for multi-step tasks."
    }

    fn search_hint(&self) -> Option<&str> {
        Some("manage the session todo checklist")
    }

    fn is_read_only(&self, _input: &TodoWriteInput) -> bool {
        true
    }

    async fn validate_input(
        &self,
        input: &TodoWriteInput,
        _ctx: &ToolUseContext,
    ) -> Result<(), ToolError> {
        validate_todos(input).map_err(ToolError::invalid)
    }

    async fn call(
        &self,
        input: TodoWriteInput,
        cx: CallContext<'_>,
    ) -> Result<ToolResult<TodoWriteOutput>, ToolError> {
        let todos = input.to_items();
        cx.progress.report(ToolProgressData::TodosUpdated {
            todos: todos.clone(),
        });
        Ok(ToolResult::new(TodoWriteOutput { todos }))
    }

    fn map_result(&self, _output: &TodoWriteOutput, _tool_use_id: &str) -> Vec<ContentBlock> {
        vec![ContentBlock::Text {
            text: TODOS_MODIFIED.to_owned(),
        }]
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn list(statuses: &[&str]) -> TodoWriteInput {
        let todos: Vec<_> = statuses
            .iter()
            .enumerate()
            .map(|(i, s)| serde_json::json!({"content": format!("Step {i}"), "activeForm": format!("Doing step {i}"), "status": s}))
            .collect();
        serde_json::from_value(serde_json::json!({ "todos": todos })).unwrap()
    }

    #[test]
    fn one_item_in_progress_is_fine_two_are_not() {
        assert_eq!(
            validate_todos(&list(&["completed", "in_progress", "pending"])),
            Ok(())
        );
        assert_eq!(validate_todos(&list(&[])), Ok(()));
        let e = validate_todos(&list(&["in_progress", "pending", "in_progress"])).unwrap_err();
        assert!(
            e.starts_with("todos[2].status: todos[0] is already in_progress"),
            "{e}"
        );
    }

    #[test]
    fn empty_texts_name_the_field() {
        let mut l = list(&["pending", "pending"]);
        l.todos[1].active_form = " ".into();
        assert_eq!(
            validate_todos(&l).unwrap_err(),
            "todos[1].activeForm: must not be empty"
        );
    }
}
