//! The tool contract (SPEC §1): what every tool, built-in or MCP, declares.
//!
//! Tools are used as `Arc<dyn Tool>`. Built-ins normally implement the typed
//! [`crate::typed::TypedTool`] instead and become a `dyn Tool` through
//! [`crate::typed::Typed`]; MCP tools implement [`Tool`] directly with the
//! server's raw JSON Schema.
//!
//! Every behavioural member has a default, and the defaults fail closed: a
//! tool that forgets to declare itself concurrency-safe runs alone, one that
//! forgets `is_read_only` is treated as a writer, one without
//! `check_permissions` is decided by the general engine, and every result is
//! subject to a finite budget.

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;
use gatehouse_protocol::event::{ContentBlock, EventBody};
use gatehouse_protocol::interaction::Interaction;
use gatehouse_protocol::progress::ToolProgressData;
use serde::Serialize;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::context::{ContextModifier, ToolUseContext};
use crate::error::ToolError;
use crate::events::Emitter;
use crate::permission::{PermissionSubject, ToolPermissionVerdict};

/// The result budget of a tool that does not declare one, in characters.
pub const DEFAULT_MAX_RESULT_SIZE_CHARS: usize = 100_000;

/// What happens to a running call when the user interrupts the turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum InterruptBehavior {
    /// Stop the call at once (its cancellation token fires).
    Cancel,
    /// Let the call finish; its result is kept. The safe default: a tool
    /// that has not thought about interruption is never torn down halfway.
    #[default]
    Block,
}

/// The output of a call, type-erased so the pipeline can carry any tool's
/// output to its `map_result` and to PostToolUse hooks (as JSON).
///
/// Implemented for every `Serialize + Send + Sync + 'static` type.
pub trait ToolData: Send + Sync + 'static {
    /// The output as JSON (the `tool_response` hooks receive).
    fn to_json(&self) -> Value;
    /// The output as `Any`, so the tool that produced it can downcast it.
    fn as_any(&self) -> &dyn Any;
}

impl<T: Serialize + Send + Sync + 'static> ToolData for T {
    fn to_json(&self) -> Value {
        serde_json::to_value(self)
            .unwrap_or_else(|e| Value::String(format!("<unserialisable output: {e}>")))
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// Who a [`NewMessage`] speaks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageRole {
    /// Shown to the model as user-side content (attachments, hook context).
    User,
    /// Runtime notes the model sees as system reminders.
    System,
}

/// A message a call adds to the conversation after its tool_result
/// (attachments, hook context, sub-agent transcripts).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NewMessage {
    /// Who it speaks for.
    pub role: MessageRole,
    /// Its content.
    pub content: Vec<ContentBlock>,
}

impl NewMessage {
    /// A system note with one text block.
    pub fn system_text(text: impl Into<String>) -> Self {
        Self {
            role: MessageRole::System,
            content: vec![ContentBlock::Text { text: text.into() }],
        }
    }
}

/// What a call returns: its data, optional follow-up messages and an
/// optional change to the context of later calls.
pub struct ToolResult<T = Box<dyn ToolData>> {
    /// The output, mapped to a tool_result by the tool's `map_result`.
    pub data: T,
    /// Messages appended after the tool_result.
    pub new_messages: Vec<NewMessage>,
    /// A context change, honoured only for non-concurrency-safe tools and
    /// only between batches.
    pub context_modifier: Option<ContextModifier>,
}

impl<T> fmt::Debug for ToolResult<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolResult")
            .field("new_messages", &self.new_messages)
            .field("context_modifier", &self.context_modifier)
            .finish_non_exhaustive()
    }
}

impl ToolResult {
    /// A type-erased result with just `data` (for tools implementing
    /// [`Tool`] directly, such as MCP tools).
    pub fn from_data(data: impl ToolData) -> Self {
        Self::new(Box::new(data))
    }
}

impl<T> ToolResult<T> {
    /// A result with just data.
    pub fn new(data: T) -> Self {
        Self {
            data,
            new_messages: Vec::new(),
            context_modifier: None,
        }
    }

    /// Adds a context modifier.
    pub fn with_context_modifier(mut self, modifier: ContextModifier) -> Self {
        self.context_modifier = Some(modifier);
        self
    }

    /// Adds a follow-up message.
    pub fn with_message(mut self, message: NewMessage) -> Self {
        self.new_messages.push(message);
        self
    }

    /// Changes the data, keeping messages and modifier.
    pub fn map_data<U>(self, f: impl FnOnce(T) -> U) -> ToolResult<U> {
        ToolResult {
            data: f(self.data),
            new_messages: self.new_messages,
            context_modifier: self.context_modifier,
        }
    }
}

/// Streams a running call's progress as `tool_progress` events.
#[derive(Debug, Clone)]
pub struct ProgressReporter {
    tool_use_id: Arc<str>,
    emitter: Emitter,
}

impl ProgressReporter {
    /// A reporter for one call.
    pub fn new(tool_use_id: impl Into<Arc<str>>, emitter: Emitter) -> Self {
        Self {
            tool_use_id: tool_use_id.into(),
            emitter,
        }
    }

    /// Reports one progress payload.
    pub fn report(&self, data: ToolProgressData) {
        self.emitter.emit(EventBody::ToolProgress {
            tool_use_id: self.tool_use_id.to_string(),
            data,
        });
    }
}

/// Everything a call receives besides its input.
#[derive(Debug, Clone, Copy)]
pub struct CallContext<'a> {
    /// The model's id for the call.
    pub tool_use_id: &'a str,
    /// The context snapshot the call runs in.
    pub ctx: &'a ToolUseContext,
    /// Where to stream progress.
    pub progress: &'a ProgressReporter,
    /// Fires when the call must stop (sibling failure, or a user interrupt
    /// for tools whose [`InterruptBehavior`] is `Cancel`). A call that ignores
    /// it is dropped at its next await point when cancelled.
    pub cancel: &'a CancellationToken,
}

/// One tool as the runtime sees it. See the module docs for the defaults.
#[async_trait]
pub trait Tool: Send + Sync + 'static {
    /// The unique API name (`Read`, `Edit`, `mcp__srv__tool`).
    fn name(&self) -> &str;

    /// Older names that still resolve to this tool.
    fn aliases(&self) -> &[&str] {
        &[]
    }

    /// The description the model sees.
    fn description(&self) -> &str;

    /// The JSON Schema of the input, as the model sees it.
    fn input_schema(&self) -> &Value;

    /// 3–10 words for ToolSearch.
    fn search_hint(&self) -> Option<&str> {
        None
    }

    /// Listed by name only until ToolSearch loads it.
    fn should_defer(&self) -> bool {
        false
    }

    /// Never deferred, even when it would be (an MCP tool marked so).
    fn always_load(&self) -> bool {
        false
    }

    /// Whether the tool comes from an MCP server.
    fn is_mcp(&self) -> bool {
        false
    }

    /// The gate: config flag, platform, environment.
    fn is_enabled(&self) -> bool {
        true
    }

    /// May this call run beside other safe calls? Defaults to no.
    fn is_concurrency_safe(&self, _input: &Value) -> bool {
        false
    }

    /// Does this call change nothing? Defaults to no.
    fn is_read_only(&self, _input: &Value) -> bool {
        false
    }

    /// Is this call irreversible (delete, overwrite, send)?
    fn is_destructive(&self, _input: &Value) -> bool {
        false
    }

    /// Does this call reach outside the machine?
    fn is_open_world(&self, _input: &Value) -> bool {
        false
    }

    /// Must a person approve every call (never auto-approved, not even by a
    /// hook's allow)?
    fn requires_user_interaction(&self) -> bool {
        false
    }

    /// What a user interrupt does to a running call. Defaults to `Block`.
    fn interrupt_behavior(&self) -> InterruptBehavior {
        InterruptBehavior::Block
    }

    /// What a tool that requires user interaction asks the user
    /// (AskUserQuestion's questions, ExitPlanMode's plan), shown in place of
    /// a plain permission prompt; the reply reaches `call` as
    /// [`crate::ask::UserReply`] in the context. Defaults to none.
    fn interaction(&self, _input: &Value) -> Option<Interaction> {
        None
    }

    /// When a call of this tool fails, cancel the other calls of the same
    /// assistant message (Bash: a failed command usually invalidates what
    /// its siblings are doing).
    fn aborts_siblings_on_error(&self) -> bool {
        false
    }

    /// Results longer than this (in characters) are written to disk and
    /// replaced by a preview and the path.
    fn max_result_size_chars(&self) -> usize {
        DEFAULT_MAX_RESULT_SIZE_CHARS
    }

    /// Semantic checks a schema can't express. Runs after schema validation;
    /// an error refuses the call before hooks and permissions.
    async fn validate_input(&self, _input: &Value, _ctx: &ToolUseContext) -> Result<(), ToolError> {
        Ok(())
    }

    /// The tool's own permission verdict. Defaults to passthrough (the
    /// general engine decides).
    async fn check_permissions(
        &self,
        _input: &Value,
        _ctx: &ToolUseContext,
    ) -> ToolPermissionVerdict {
        ToolPermissionVerdict::Passthrough
    }

    /// What permission rules match on for this call. `ctx` gives what the
    /// input leaves implicit, e.g. the working directory a search without a
    /// `path` runs in, so the engine checks the place the call really uses.
    fn permission_subject(
        &self,
        _input: &Value,
        _ctx: &ToolUseContext,
    ) -> Option<PermissionSubject> {
        None
    }

    /// Adds derived fields to the copy of the input that hooks, the UI and
    /// the permission engine see (e.g. an absolute path). `call` always gets
    /// the model's input (or a hook's rewrite), never this copy.
    fn backfill_observable_input(&self, _input: &mut Value) {}

    /// Does the work.
    async fn call(&self, input: Value, cx: CallContext<'_>) -> Result<ToolResult, ToolError>;

    /// The tool_result content for the model. The default renders strings
    /// as text and anything else as pretty-printed JSON.
    fn map_result(&self, data: &dyn ToolData, _tool_use_id: &str) -> Vec<ContentBlock> {
        default_map_result(&data.to_json())
    }
}

impl fmt::Debug for dyn Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tool")
            .field("name", &self.name())
            .finish_non_exhaustive()
    }
}

/// Renders JSON as tool_result content: a string as its text, anything
/// else as pretty-printed JSON.
pub fn default_map_result(value: &Value) -> Vec<ContentBlock> {
    let text = match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => serde_json::to_string_pretty(other).unwrap_or_else(|_| other.to_string()),
    };
    vec![ContentBlock::Text { text }]
}
