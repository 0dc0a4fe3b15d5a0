//! Typed tools: a Rust input struct instead of raw JSON.
//!
//! A built-in tool implements [`TypedTool`] with a `serde` + `schemars` input
//! struct; [`Typed`] turns it into a `dyn Tool` whose JSON Schema is derived
//! from that struct (so what the model sees and what the code parses can't
//! drift apart) and which parses the input before every typed method.

use std::sync::Arc;

use async_trait::async_trait;
use gatehouse_protocol::event::ContentBlock;
use gatehouse_protocol::interaction::Interaction;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::context::ToolUseContext;
use crate::error::ToolError;
use crate::permission::{PermissionSubject, ToolPermissionVerdict};
use crate::tool::{
    CallContext, DEFAULT_MAX_RESULT_SIZE_CHARS, InterruptBehavior, Tool, ToolData, ToolResult,
    default_map_result,
};

/// A tool with a typed input and output. Same members and fail-closed
/// defaults as [`Tool`], but behavioural methods receive the parsed input.
#[async_trait]
pub trait TypedTool: Send + Sync + 'static {
    /// The input struct; its derived JSON Schema is what the model sees.
    type Input: DeserializeOwned + JsonSchema + Send + Sync + 'static;
    /// The output handed to `map_result` (and, as JSON, to PostToolUse hooks).
    type Output: Serialize + Send + Sync + 'static;

    /// The unique API name.
    fn name(&self) -> &str;
    /// Older names that still resolve to this tool.
    fn aliases(&self) -> &[&str] {
        &[]
    }
    /// The description the model sees.
    fn description(&self) -> &str;
    /// 3–10 words for ToolSearch.
    fn search_hint(&self) -> Option<&str> {
        None
    }
    /// Listed by name only until ToolSearch loads it.
    fn should_defer(&self) -> bool {
        false
    }
    /// The gate (config flag, platform, environment).
    fn is_enabled(&self) -> bool {
        true
    }
    /// May this call run beside other safe calls? Defaults to no.
    fn is_concurrency_safe(&self, _input: &Self::Input) -> bool {
        false
    }
    /// Does this call change nothing? Defaults to no.
    fn is_read_only(&self, _input: &Self::Input) -> bool {
        false
    }
    /// Is this call irreversible?
    fn is_destructive(&self, _input: &Self::Input) -> bool {
        false
    }
    /// Does this call reach outside the machine?
    fn is_open_world(&self, _input: &Self::Input) -> bool {
        false
    }
    /// Must a person approve every call?
    fn requires_user_interaction(&self) -> bool {
        false
    }
    /// What a user interrupt does to a running call. Defaults to `Block`.
    fn interrupt_behavior(&self) -> InterruptBehavior {
        InterruptBehavior::Block
    }
    /// What a tool that requires user interaction asks the user (shown in
    /// place of a plain permission prompt). Defaults to none.
    fn interaction(&self, _input: &Self::Input) -> Option<Interaction> {
        None
    }
    /// Cancel sibling calls when a call of this tool fails.
    fn aborts_siblings_on_error(&self) -> bool {
        false
    }
    /// The result budget in characters.
    fn max_result_size_chars(&self) -> usize {
        DEFAULT_MAX_RESULT_SIZE_CHARS
    }
    /// Semantic checks a schema can't express.
    async fn validate_input(
        &self,
        _input: &Self::Input,
        _ctx: &ToolUseContext,
    ) -> Result<(), ToolError> {
        Ok(())
    }
    /// The tool's own permission verdict. Defaults to passthrough.
    async fn check_permissions(
        &self,
        _input: &Self::Input,
        _ctx: &ToolUseContext,
    ) -> ToolPermissionVerdict {
        ToolPermissionVerdict::Passthrough
    }
    /// What permission rules match on; `ctx` gives what the input leaves
    /// implicit (the working directory of a search without a `path`).
    fn permission_subject(
        &self,
        _input: &Self::Input,
        _ctx: &ToolUseContext,
    ) -> Option<PermissionSubject> {
        None
    }
    /// Adds derived fields to the observable copy of the input (JSON, since
    /// derived fields are by definition not part of the input struct).
    fn backfill_observable_input(&self, _input: &mut Value) {}
    /// Does the work.
    async fn call(
        &self,
        input: Self::Input,
        cx: CallContext<'_>,
    ) -> Result<ToolResult<Self::Output>, ToolError>;
    /// The tool_result content. Defaults to the output as text or JSON.
    fn map_result(&self, output: &Self::Output, _tool_use_id: &str) -> Vec<ContentBlock> {
        default_map_result(&serde_json::to_value(output).unwrap_or(Value::Null))
    }
}

/// The JSON Schema schemars derives for `I`, as sent to the model.
///
/// The top-level `$schema` and `title` keys are dropped: the model does not
/// need them and every byte of the tool list is paid on every request. The
/// validator assumes draft 2020-12, which is what schemars emits.
pub fn input_schema_for<I: JsonSchema>() -> Value {
    let mut value = schemars::schema_for!(I).to_value();
    if let Value::Object(map) = &mut value {
        map.remove("$schema");
        map.remove("title");
    }
    value
}

/// Adapts a [`TypedTool`] to [`Tool`].
pub struct Typed<T: TypedTool> {
    inner: T,
    schema: Value,
}

impl<T: TypedTool> Typed<T> {
    /// Wraps `inner`, deriving its schema once.
    pub fn new(inner: T) -> Self {
        Self {
            inner,
            schema: input_schema_for::<T::Input>(),
        }
    }

    /// Wraps `inner` as a shareable `dyn Tool`.
    pub fn arc(inner: T) -> Arc<dyn Tool> {
        Arc::new(Self::new(inner))
    }

    /// The wrapped tool.
    pub fn inner(&self) -> &T {
        &self.inner
    }

    /// Parses the input; `None` when it does not fit the input type (the
    /// fail-closed defaults then apply).
    fn parse(input: &Value) -> Option<T::Input> {
        T::Input::deserialize(input).ok()
    }

    fn parse_or_error(input: &Value) -> Result<T::Input, ToolError> {
        T::Input::deserialize(input)
            .map_err(|e| ToolError::invalid(format!("input does not match the expected type: {e}")))
    }
}

#[async_trait]
impl<T: TypedTool> Tool for Typed<T> {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn aliases(&self) -> &[&str] {
        self.inner.aliases()
    }
    fn description(&self) -> &str {
        self.inner.description()
    }
    fn input_schema(&self) -> &Value {
        &self.schema
    }
    fn search_hint(&self) -> Option<&str> {
        self.inner.search_hint()
    }
    fn should_defer(&self) -> bool {
        self.inner.should_defer()
    }
    fn is_enabled(&self) -> bool {
        self.inner.is_enabled()
    }
    fn is_concurrency_safe(&self, input: &Value) -> bool {
        Self::parse(input).is_some_and(|i| self.inner.is_concurrency_safe(&i))
    }
    fn is_read_only(&self, input: &Value) -> bool {
        Self::parse(input).is_some_and(|i| self.inner.is_read_only(&i))
    }
    fn is_destructive(&self, input: &Value) -> bool {
        // Unparseable input is treated as destructive: fail closed.
        Self::parse(input).is_none_or(|i| self.inner.is_destructive(&i))
    }
    fn is_open_world(&self, input: &Value) -> bool {
        Self::parse(input).is_none_or(|i| self.inner.is_open_world(&i))
    }
    fn requires_user_interaction(&self) -> bool {
        self.inner.requires_user_interaction()
    }
    fn interrupt_behavior(&self) -> InterruptBehavior {
        self.inner.interrupt_behavior()
    }
    fn interaction(&self, input: &Value) -> Option<Interaction> {
        Self::parse(input).and_then(|i| self.inner.interaction(&i))
    }
    fn aborts_siblings_on_error(&self) -> bool {
        self.inner.aborts_siblings_on_error()
    }
    fn max_result_size_chars(&self) -> usize {
        self.inner.max_result_size_chars()
    }
    async fn validate_input(&self, input: &Value, ctx: &ToolUseContext) -> Result<(), ToolError> {
        let parsed = Self::parse_or_error(input)?;
        self.inner.validate_input(&parsed, ctx).await
    }
    async fn check_permissions(
        &self,
        input: &Value,
        ctx: &ToolUseContext,
    ) -> ToolPermissionVerdict {
        match Self::parse(input) {
            Some(parsed) => self.inner.check_permissions(&parsed, ctx).await,
            None => ToolPermissionVerdict::Ask {
                reason: "the input could not be parsed".into(),
            },
        }
    }
    fn permission_subject(&self, input: &Value, ctx: &ToolUseContext) -> Option<PermissionSubject> {
        Self::parse(input).and_then(|i| self.inner.permission_subject(&i, ctx))
    }
    fn backfill_observable_input(&self, input: &mut Value) {
        self.inner.backfill_observable_input(input);
    }
    async fn call(&self, input: Value, cx: CallContext<'_>) -> Result<ToolResult, ToolError> {
        let parsed = Self::parse_or_error(&input)?;
        let result = self.inner.call(parsed, cx).await?;
        Ok(result.map_data(|d| Box::new(d) as Box<dyn ToolData>))
    }
    fn map_result(&self, data: &dyn ToolData, tool_use_id: &str) -> Vec<ContentBlock> {
        match data.as_any().downcast_ref::<T::Output>() {
            Some(output) => self.inner.map_result(output, tool_use_id),
            // Only this adapter produces this tool's data, so this cannot
            // happen; render the JSON rather than lose the result.
            None => default_map_result(&data.to_json()),
        }
    }
}
