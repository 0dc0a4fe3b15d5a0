//! Test support: configurable tools, resolvers, hooks and ask handlers.
//!
//! Compiled for this crate's tests and, with the `test-support` feature,
//! for other crates' tests. Nothing here is used by the runtime itself.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use gatehouse_protocol::permission::{
    DecisionReason, PermissionBehavior, PermissionDecision, PermissionMode, RuleSource,
    TraceOutcome, TraceStep,
};
use gatehouse_protocol::progress::ToolProgressData;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::ask::{AskAnswer, AskHandler, AskRequest};
use crate::context::ContextModifier;
use crate::error::ToolError;
use crate::events::MemorySink;
use crate::hooks::{
    HookError, HookOutcome, Hooks, PostHookOutcome, PostToolUseHook, PostToolUseInput,
    PreToolUseHook, PreToolUseInput,
};
use crate::permission::{PermissionQuery, PermissionResolver, ToolPermissionVerdict};
use crate::registry::ToolPool;
use crate::runtime::{ToolRuntime, ToolUseBlock};
use crate::tool::{
    CallContext, DEFAULT_MAX_RESULT_SIZE_CHARS, InterruptBehavior, Tool, ToolResult,
};
use crate::typed::{Typed, TypedTool};

/// Counts what test tools do: calls, in-flight calls, order of starts.
#[derive(Debug, Default)]
pub struct Probe {
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
    calls: AtomicUsize,
    started: Mutex<Vec<String>>,
    finished: Mutex<Vec<String>>,
    inputs: Mutex<Vec<(String, Value)>>,
}

impl Probe {
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }
    pub fn max_in_flight(&self) -> usize {
        self.max_in_flight.load(Ordering::SeqCst)
    }
    pub fn in_flight(&self) -> usize {
        self.in_flight.load(Ordering::SeqCst)
    }
    pub fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }
    /// tool_use ids in the order their calls began.
    pub fn started(&self) -> Vec<String> {
        self.started.lock().unwrap().clone()
    }
    /// tool_use ids in the order their calls ended (not cancelled ones).
    pub fn finished(&self) -> Vec<String> {
        self.finished.lock().unwrap().clone()
    }
    /// (tool_use id, input) of every call, in call order.
    pub fn inputs(&self) -> Vec<(String, Value)> {
        self.inputs.lock().unwrap().clone()
    }
    fn enter(self: &Arc<Self>, id: &str, input: Value) -> InFlight {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.max_in_flight.fetch_max(now, Ordering::SeqCst);
        self.started.lock().unwrap().push(id.to_owned());
        self.inputs.lock().unwrap().push((id.to_owned(), input));
        InFlight(Arc::clone(self))
    }
}

struct InFlight(Arc<Probe>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

/// What a [`TestTool`] call does, all driven by its input.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct TestInput {
    /// Sleep this long before answering.
    #[serde(default)]
    pub sleep_ms: u64,
    /// Fail with this message.
    #[serde(default)]
    pub fail: Option<String>,
    /// Report a timeout with this message (`ToolError::TimedOut`).
    #[serde(default)]
    pub time_out: Option<String>,
    /// Answer this text (default: `ok:<tool_use_id>`).
    #[serde(default)]
    pub output: Option<String>,
    /// Answer `output` repeated this many times.
    #[serde(default)]
    pub repeat: Option<usize>,
    /// Return a context modifier setting the cwd to this.
    #[serde(default)]
    pub set_cwd: Option<String>,
    /// Return a context modifier setting the permission mode to this
    /// (as plan mode's tools do).
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub set_mode: Option<gatehouse_protocol::permission::PermissionMode>,
    /// Emit this many progress events (1 ms apart).
    #[serde(default)]
    pub progress: u32,
    /// Panic.
    #[serde(default)]
    pub panic: bool,
    /// Keep sleeping when cancelled (only dropping the future stops it).
    #[serde(default)]
    pub ignore_cancel: bool,
    /// Answer the working directory the call saw.
    #[serde(default)]
    pub echo_cwd: bool,
    /// Wait until this many calls of the probe have been in flight at once (a
    /// rendezvous: proves overlap without relying on sleeps). Gives up
    /// after 20 s, which then shows as a lower `max_in_flight`.
    #[serde(default)]
    pub wait_for_peers: usize,
    /// Wait until this many calls of the probe have finished.
    #[serde(default)]
    pub wait_for_finished: usize,
}

/// A configurable typed tool.
#[derive(Debug, Clone)]
pub struct TestTool {
    pub name: String,
    pub aliases: &'static [&'static str],
    pub safe: bool,
    pub read_only: bool,
    pub interrupt: InterruptBehavior,
    pub aborts_siblings: bool,
    pub requires_ui: bool,
    pub enabled: bool,
    pub max_result: usize,
    pub verdict: ToolPermissionVerdict,
    /// Add `"_observed": true` to the observable input.
    pub backfill: bool,
    pub probe: Arc<Probe>,
}

impl TestTool {
    /// An unsafe (default) tool called `name`.
    pub fn new(name: &str) -> Self {
        Self {
            name: name.to_owned(),
            aliases: &[],
            safe: false,
            read_only: false,
            interrupt: InterruptBehavior::Block,
            aborts_siblings: false,
            requires_ui: false,
            enabled: true,
            max_result: DEFAULT_MAX_RESULT_SIZE_CHARS,
            verdict: ToolPermissionVerdict::Passthrough,
            backfill: false,
            probe: Probe::new(),
        }
    }
    /// A concurrency-safe, read-only tool.
    pub fn safe(name: &str) -> Self {
        Self {
            safe: true,
            read_only: true,
            ..Self::new(name)
        }
    }
    pub fn with_probe(mut self, probe: &Arc<Probe>) -> Self {
        self.probe = Arc::clone(probe);
        self
    }
    pub fn cancel_on_interrupt(mut self) -> Self {
        self.interrupt = InterruptBehavior::Cancel;
        self
    }
    pub fn aborting_siblings(mut self) -> Self {
        self.aborts_siblings = true;
        self
    }
    pub fn arc(self) -> Arc<dyn Tool> {
        Typed::arc(self)
    }
}

#[async_trait]
impl TypedTool for TestTool {
    type Input = TestInput;
    type Output = String;

    fn name(&self) -> &str {
        &self.name
    }
    fn aliases(&self) -> &[&str] {
        self.aliases
    }
    fn description(&self) -> &str {
        "A test tool whose behaviour is driven by its input."
    }
    fn is_enabled(&self) -> bool {
        self.enabled
    }
    fn is_concurrency_safe(&self, _input: &TestInput) -> bool {
        self.safe
    }
    fn is_read_only(&self, _input: &TestInput) -> bool {
        self.read_only
    }
    fn requires_user_interaction(&self) -> bool {
        self.requires_ui
    }
    fn interrupt_behavior(&self) -> InterruptBehavior {
        self.interrupt
    }
    fn aborts_siblings_on_error(&self) -> bool {
        self.aborts_siblings
    }
    fn max_result_size_chars(&self) -> usize {
        self.max_result
    }
    fn backfill_observable_input(&self, input: &mut Value) {
        if let (true, Value::Object(map)) = (self.backfill, input) {
            map.insert("_observed".into(), Value::Bool(true));
        }
    }
    async fn check_permissions(
        &self,
        _input: &TestInput,
        _ctx: &crate::ToolUseContext,
    ) -> ToolPermissionVerdict {
        self.verdict.clone()
    }
    async fn call(
        &self,
        input: TestInput,
        cx: CallContext<'_>,
    ) -> Result<ToolResult<String>, ToolError> {
        let _guard = self
            .probe
            .enter(cx.tool_use_id, serde_json::to_value(&input).unwrap());
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        while (self.probe.max_in_flight() < input.wait_for_peers
            || self.probe.finished.lock().unwrap().len() < input.wait_for_finished)
            && std::time::Instant::now() < deadline
        {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        for i in 0..input.progress {
            cx.progress.report(ToolProgressData::Other {
                data: json!({ "step": i }),
            });
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        if input.sleep_ms > 0 {
            let sleep = tokio::time::sleep(Duration::from_millis(input.sleep_ms));
            if input.ignore_cancel {
                sleep.await;
            } else {
                tokio::select! {
                    () = sleep => {}
                    () = cx.cancel.cancelled() => return Err(ToolError::Cancelled),
                }
            }
        }
        assert!(!input.panic, "test tool asked to panic");
        self.probe
            .finished
            .lock()
            .unwrap()
            .push(cx.tool_use_id.to_owned());
        if let Some(message) = input.fail {
            return Err(ToolError::failed(message));
        }
        if let Some(message) = input.time_out {
            return Err(ToolError::TimedOut(message));
        }
        if input.echo_cwd {
            return Ok(ToolResult::new(cx.ctx.cwd.display().to_string()));
        }
        let base = input
            .output
            .unwrap_or_else(|| format!("ok:{}", cx.tool_use_id));
        let text = base.repeat(input.repeat.unwrap_or(1));
        let mut result = ToolResult::new(text);
        if let Some(cwd) = input.set_cwd {
            result = result.with_context_modifier(ContextModifier::new(
                format!("cwd is now {cwd}"),
                move |c| {
                    c.cwd = cwd.into();
                },
            ));
        }
        if let Some(mode) = input.set_mode {
            result = result.with_context_modifier(ContextModifier::new(
                format!("permission mode is now {mode:?}"),
                move |c| {
                    c.permission_mode = mode;
                },
            ));
        }
        Ok(result)
    }
}

/// A permission decision with one trace step.
pub fn decision(behavior: PermissionBehavior, reason: DecisionReason) -> PermissionDecision {
    PermissionDecision {
        decision: behavior,
        reason,
        trace: vec![TraceStep::new(
            "test",
            match behavior {
                PermissionBehavior::Allow => TraceOutcome::Allow,
                PermissionBehavior::Ask => TraceOutcome::Ask,
                PermissionBehavior::Deny => TraceOutcome::Deny,
            },
            "test resolver",
        )],
    }
}

/// A rule reason.
pub fn rule(rule: &str) -> DecisionReason {
    DecisionReason::Rule {
        rule: rule.into(),
        source: RuleSource::Project,
        file: None,
    }
}

/// The default reason.
pub fn default_reason() -> DecisionReason {
    DecisionReason::Default {
        message: "no rule matched".into(),
    }
}

/// A mode reason.
pub fn mode_reason() -> DecisionReason {
    DecisionReason::Mode {
        mode: PermissionMode::Default,
    }
}

/// A resolver with a default decision, per-tool overrides and blanket
/// denials; records the inputs it was asked about.
#[derive(Debug)]
pub struct TestResolver {
    pub default: PermissionDecision,
    pub per_tool: HashMap<String, PermissionDecision>,
    pub blanket_denied: HashSet<String>,
    pub queries: Mutex<Vec<(String, Value)>>,
}

impl TestResolver {
    pub fn allow_all() -> Self {
        Self::with_default(decision(PermissionBehavior::Allow, default_reason()))
    }
    pub fn with_default(default: PermissionDecision) -> Self {
        Self {
            default,
            per_tool: HashMap::new(),
            blanket_denied: HashSet::new(),
            queries: Mutex::new(Vec::new()),
        }
    }
    pub fn tool(mut self, name: &str, d: PermissionDecision) -> Self {
        self.per_tool.insert(name.into(), d);
        self
    }
    pub fn blanket_deny(mut self, name: &str) -> Self {
        self.blanket_denied.insert(name.into());
        self
    }
}

impl PermissionResolver for TestResolver {
    fn is_blanket_denied(&self, tool_name: &str) -> bool {
        self.blanket_denied.contains(tool_name)
            || self.blanket_denied.iter().any(|p| {
                p.starts_with("mcp__")
                    && !p[5..].contains("__")
                    && tool_name.starts_with(&format!("{p}__"))
            })
    }
    fn decide(&self, query: &PermissionQuery<'_>) -> PermissionDecision {
        self.queries
            .lock()
            .unwrap()
            .push((query.tool_name.to_owned(), query.input.clone()));
        if let ToolPermissionVerdict::Deny { reason } = query.tool_verdict {
            return decision(
                PermissionBehavior::Deny,
                DecisionReason::ToolCheck {
                    message: reason.clone(),
                },
            );
        }
        self.per_tool
            .get(query.tool_name)
            .cloned()
            .unwrap_or_else(|| self.default.clone())
    }
}

/// A PreToolUse hook with a fixed outcome.
#[derive(Debug)]
pub struct StaticPreHook {
    pub name: String,
    pub outcome: Result<HookOutcome, HookError>,
    pub seen: Mutex<Vec<Value>>,
}

impl StaticPreHook {
    pub fn new(name: &str, outcome: HookOutcome) -> Arc<Self> {
        Arc::new(Self {
            name: name.into(),
            outcome: Ok(outcome),
            seen: Mutex::new(Vec::new()),
        })
    }
}

#[async_trait]
impl PreToolUseHook for StaticPreHook {
    fn name(&self) -> &str {
        &self.name
    }
    async fn run(&self, input: &PreToolUseInput<'_>) -> Result<HookOutcome, HookError> {
        self.seen.lock().unwrap().push(input.tool_input.clone());
        self.outcome.clone()
    }
}

/// A post hook that records what it saw.
#[derive(Debug, Default)]
pub struct RecordingPostHook {
    pub name: String,
    pub outcome: PostHookOutcome,
    /// (tool_use_id, tool_response, is_error)
    pub seen: Mutex<Vec<(String, Value, bool)>>,
}

impl RecordingPostHook {
    pub fn new(name: &str) -> Arc<Self> {
        Arc::new(Self {
            name: name.into(),
            ..Self::default()
        })
    }
}

#[async_trait]
impl PostToolUseHook for RecordingPostHook {
    fn name(&self) -> &str {
        &self.name
    }
    async fn run(&self, input: &PostToolUseInput<'_>) -> Result<PostHookOutcome, HookError> {
        self.seen.lock().unwrap().push((
            input.tool_use_id.to_owned(),
            input.tool_response.clone(),
            input.is_error,
        ));
        Ok(self.outcome.clone())
    }
}

/// Answers every ask the same way and records the requests.
#[derive(Debug)]
pub struct ScriptedAsk {
    pub answer: AskAnswer,
    pub requests: Mutex<Vec<AskRequest>>,
}

impl ScriptedAsk {
    pub fn new(answer: AskAnswer) -> Arc<Self> {
        Arc::new(Self {
            answer,
            requests: Mutex::new(Vec::new()),
        })
    }
    pub fn count(&self) -> usize {
        self.requests.lock().unwrap().len()
    }
}

#[async_trait]
impl AskHandler for ScriptedAsk {
    async fn ask(&self, request: AskRequest) -> AskAnswer {
        self.requests.lock().unwrap().push(request);
        self.answer.clone()
    }
}

/// A runtime over `tools` (in this order), recording events in memory and
/// spilling results under `dir`.
pub fn runtime(
    tools: Vec<Arc<dyn Tool>>,
    resolver: Arc<dyn PermissionResolver>,
    hooks: Hooks,
    dir: &Path,
) -> (Arc<ToolRuntime>, Arc<MemorySink>) {
    let sink = Arc::new(MemorySink::new());
    let rt = ToolRuntime::builder(Arc::new(ToolPool::new(tools)), resolver, dir)
        .session_id("test-session")
        .event_sink(sink.clone())
        .hooks(hooks)
        .build();
    (rt, sink)
}

/// A tool_use block.
pub fn call(id: &str, name: &str, input: Value) -> ToolUseBlock {
    ToolUseBlock::new(id, name, input)
}

/// A tool with a given name, description and input schema that answers
/// every call with `called <name>` (stands for an MCP tool in tests of
/// deferral and ToolSearch: `mcp` makes it one).
#[derive(Debug, Clone)]
pub struct SchemaTool {
    pub name: String,
    pub description: String,
    pub schema: Value,
    pub mcp: bool,
    pub always_load: bool,
}

impl SchemaTool {
    /// An MCP-like tool (`is_mcp`, so deferred).
    pub fn mcp(name: &str, description: &str, schema: Value) -> Self {
        Self {
            name: name.to_owned(),
            description: description.to_owned(),
            schema,
            mcp: true,
            always_load: false,
        }
    }
    pub fn arc(self) -> Arc<dyn Tool> {
        Arc::new(self)
    }
}

#[async_trait]
impl Tool for SchemaTool {
    fn name(&self) -> &str {
        &self.name
    }
    fn description(&self) -> &str {
        &self.description
    }
    fn input_schema(&self) -> &Value {
        &self.schema
    }
    fn is_mcp(&self) -> bool {
        self.mcp
    }
    fn should_defer(&self) -> bool {
        self.mcp
    }
    fn always_load(&self) -> bool {
        self.always_load
    }
    fn is_concurrency_safe(&self, _input: &Value) -> bool {
        true
    }
    fn is_read_only(&self, _input: &Value) -> bool {
        true
    }
    async fn call(&self, _input: Value, _cx: CallContext<'_>) -> Result<ToolResult, ToolError> {
        Ok(ToolResult::from_data(format!("called {}", self.name)))
    }
}

/// The MCP tools of the recorded real servers' `tools/list`
/// (`src-tauri/tools/tests/toolsearch/mcp_tools.json`, see its README), as
/// `mcp__<server>__<tool>` tools, in file order. `copies` > 1 repeats the
/// lists under servers `<server>_2`, `<server>_3`, … (a user with two
/// accounts of one service), for pools larger than the recording.
pub fn recorded_mcp_tools(copies: usize) -> Vec<Arc<dyn Tool>> {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tools/tests/toolsearch/mcp_tools.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let servers: Vec<Value> = serde_json::from_str(&text).expect("the fixture is JSON");
    let mut out = Vec::new();
    for copy in 1..=copies.max(1) {
        for server in &servers {
            let name = server["server"].as_str().expect("server name");
            let name = if copy == 1 {
                name.to_owned()
            } else {
                format!("{name}_{copy}")
            };
            for tool in server["tools"].as_array().expect("tools") {
                out.push(
                    SchemaTool::mcp(
                        &format!("mcp__{name}__{}", tool["name"].as_str().expect("tool name")),
                        tool["description"].as_str().unwrap_or_default(),
                        tool.get("inputSchema")
                            .cloned()
                            .unwrap_or_else(|| json!({"type": "object"})),
                    )
                    .arc(),
                );
            }
        }
    }
    out
}
