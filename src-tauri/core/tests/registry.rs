//! The tool contract's defaults and the registry (SPEC §1–2).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::sync::Arc;

use async_trait::async_trait;
use gatehouse_core::names;
use gatehouse_core::permission::ToolPermissionVerdict;
use gatehouse_core::registry::{AgentToolSet, Gate, GateContext, Registry, ToolPool};
use gatehouse_core::testing::{TestResolver, TestTool};
use gatehouse_core::tool::{CallContext, DEFAULT_MAX_RESULT_SIZE_CHARS};
use gatehouse_core::{
    InterruptBehavior, Tool, ToolError, ToolResult, ToolUseContext, Typed, TypedTool,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

/// A tool that declares nothing but what it must.
struct Bare {
    schema: Value,
}

#[async_trait]
impl Tool for Bare {
    fn name(&self) -> &str {
        "Bare"
    }
    fn description(&self) -> &str {
        "declares nothing"
    }
    fn input_schema(&self) -> &Value {
        &self.schema
    }
    async fn call(&self, _input: Value, _cx: CallContext<'_>) -> Result<ToolResult, ToolError> {
        Ok(ToolResult::from_data("done"))
    }
}

#[derive(Deserialize, JsonSchema)]
struct ReadInput {
    /// Absolute path of the file.
    file_path: String,
    /// First line to read.
    #[allow(dead_code)]
    offset: Option<u32>,
}

struct BareTyped;

#[async_trait]
impl TypedTool for BareTyped {
    type Input = ReadInput;
    type Output = String;
    fn name(&self) -> &str {
        "BareTyped"
    }
    fn description(&self) -> &str {
        "typed, declares nothing"
    }
    async fn call(
        &self,
        input: ReadInput,
        _cx: CallContext<'_>,
    ) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new(input.file_path))
    }
}

#[tokio::test]
async fn undeclared_members_fail_closed() {
    let raw: Arc<dyn Tool> = Arc::new(Bare {
        schema: json!({"type": "object"}),
    });
    let typed = Typed::arc(BareTyped);
    let ctx = ToolUseContext::default();
    for (tool, input) in [(raw, json!({})), (typed, json!({"file_path": "/a"}))] {
        assert!(!tool.is_concurrency_safe(&input), "{}", tool.name());
        assert!(!tool.is_read_only(&input));
        assert!(!tool.is_destructive(&input));
        assert!(!tool.is_open_world(&input));
        assert!(!tool.requires_user_interaction());
        assert!(!tool.should_defer());
        assert!(!tool.aborts_siblings_on_error());
        assert!(tool.is_enabled());
        assert!(tool.search_hint().is_none());
        assert!(tool.aliases().is_empty());
        assert!(tool.permission_subject(&input, &ctx).is_none());
        assert_eq!(tool.interrupt_behavior(), InterruptBehavior::Block);
        assert_eq!(tool.max_result_size_chars(), DEFAULT_MAX_RESULT_SIZE_CHARS);
        assert_eq!(DEFAULT_MAX_RESULT_SIZE_CHARS, 100_000);
        assert_eq!(
            tool.check_permissions(&input, &ctx).await,
            ToolPermissionVerdict::Passthrough
        );
        assert!(tool.validate_input(&input, &ctx).await.is_ok());
    }
}

#[tokio::test]
async fn typed_tools_treat_unparseable_input_as_unsafe_and_destructive() {
    let mut tool = TestTool::safe("Read");
    tool.read_only = true;
    let tool = tool.arc();
    assert!(tool.is_concurrency_safe(&json!({})));
    let bad = json!({"sleep_ms": "soon"});
    assert!(!tool.is_concurrency_safe(&bad));
    assert!(!tool.is_read_only(&bad));
    assert!(tool.is_destructive(&bad));
    let verdict = tool
        .check_permissions(&bad, &ToolUseContext::default())
        .await;
    assert!(
        matches!(verdict, ToolPermissionVerdict::Ask { .. }),
        "{verdict:?}"
    );
}

#[test]
fn typed_schema_is_derived_by_schemars() {
    let tool = Typed::arc(BareTyped);
    let schema = tool.input_schema();
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["required"], json!(["file_path"]));
    assert_eq!(schema["properties"]["file_path"]["type"], "string");
    assert_eq!(
        schema["properties"]["file_path"]["description"],
        "Absolute path of the file."
    );
    assert!(schema.get("$schema").is_none());
}

fn names_of(tools: &[Arc<dyn Tool>]) -> Vec<String> {
    tools.iter().map(|t| t.name().to_owned()).collect()
}

fn registry(gates: GateContext) -> Registry {
    let mut r = Registry::new(gates);
    let mut disabled = TestTool::new("TodoWrite");
    disabled.enabled = false;
    r.register(TestTool::new("Write").arc(), Gate::Always)
        .register(TestTool::new("Bash").arc(), Gate::Always)
        .register(TestTool::safe("Read").arc(), Gate::Always)
        .register(TestTool::new("Edit").arc(), Gate::Always)
        .register(TestTool::safe("Grep").arc(), Gate::Always)
        .register(disabled.arc(), Gate::Always)
        .register(
            TestTool::new("PowerShell").arc(),
            Gate::Os("windows".into()),
        )
        .register(
            TestTool::new("EnterWorktree").arc(),
            Gate::Feature("worktree".into()),
        )
        .register(
            TestTool::new("Sleep").arc(),
            Gate::All(vec![
                Gate::Env("GATEHOUSE_PROACTIVE".into()),
                Gate::Os("linux".into()),
            ]),
        );
    r
}

fn linux() -> GateContext {
    GateContext {
        os: "linux".into(),
        ..GateContext::default()
    }
}

#[test]
fn gates_select_the_base_tools() {
    let base = names_of(&registry(linux()).all_base_tools());
    assert_eq!(base, ["Write", "Bash", "Read", "Edit", "Grep", "TodoWrite"]);

    let mut gates = GateContext {
        os: "windows".into(),
        ..GateContext::default()
    };
    gates.features.insert("worktree".into());
    let base = names_of(&registry(gates).all_base_tools());
    assert!(
        base.contains(&"PowerShell".into()) && base.contains(&"EnterWorktree".into()),
        "{base:?}"
    );

    let mut gates = linux();
    gates.env = HashMap::from([("GATEHOUSE_PROACTIVE".into(), "true".into())]);
    assert!(names_of(&registry(gates).all_base_tools()).contains(&"Sleep".into()));
}

#[test]
fn tools_drops_blanket_denied_and_disabled_and_simple_mode_keeps_three() {
    let resolver = TestResolver::allow_all().blanket_deny("Grep");
    let r = registry(linux());
    assert_eq!(
        names_of(&r.tools(&resolver)),
        ["Write", "Bash", "Read", "Edit"]
    );

    let mut gates = linux();
    gates.env = HashMap::from([("GATEHOUSE_SIMPLE".into(), "1".into())]);
    let simple = registry(gates);
    assert!(simple.simple_mode());
    assert_eq!(
        names_of(&simple.tools(&TestResolver::allow_all())),
        ["Bash", "Read", "Edit"]
    );
    let no_bash = TestResolver::allow_all().blanket_deny("Bash");
    assert_eq!(names_of(&simple.tools(&no_bash)), ["Read", "Edit"]);
}

#[test]
fn pool_is_builtins_by_name_then_mcp_by_name_builtin_wins() {
    let resolver = TestResolver::allow_all().blanket_deny("mcp__evil");
    let clash = TestTool::safe("Read");
    let clash_probe = Arc::clone(&clash.probe);
    let mcp = vec![
        TestTool::new("mcp__zeta__b").arc(),
        TestTool::new("mcp__evil__x").arc(),
        clash.arc(),
        TestTool::new("mcp__alpha__a").arc(),
    ];
    let pool = registry(linux()).assemble_pool(&resolver, mcp);
    assert_eq!(
        pool.names(),
        [
            "Bash",
            "Edit",
            "Grep",
            "Read",
            "Write",
            "mcp__alpha__a",
            "mcp__zeta__b"
        ]
    );
    // The built-in Read won: its probe is not the MCP one.
    let read = pool.find("Read").unwrap();
    assert!(read.is_concurrency_safe(&json!({})));
    assert_eq!(
        Arc::strong_count(&clash_probe),
        1,
        "the clashing MCP tool was dropped"
    );
}

#[test]
fn schemas_are_serialised_once_and_byte_identical() {
    let resolver = TestResolver::allow_all();
    let r = registry(linux());
    let a = r.assemble_pool(
        &resolver,
        vec![
            TestTool::new("mcp__b__t").arc(),
            TestTool::new("mcp__a__t").arc(),
        ],
    );
    let first = a.api_schemas_json();
    let second = a.api_schemas_json();
    assert!(Arc::ptr_eq(&first, &second), "cached, not re-serialised");
    // Another session whose MCP servers connected in the other order.
    let b = r.assemble_pool(
        &resolver,
        vec![
            TestTool::new("mcp__a__t").arc(),
            TestTool::new("mcp__b__t").arc(),
        ],
    );
    assert_eq!(first.as_bytes(), b.api_schemas_json().as_bytes());
    let parsed: Vec<Value> = serde_json::from_str(&first).unwrap();
    assert_eq!(parsed[0]["name"], "Bash");
    assert!(parsed[0]["input_schema"]["properties"]["sleep_ms"].is_object());
}

#[test]
fn lookup_by_name_then_alias() {
    let mut task = TestTool::new("Agent");
    task.aliases = &["Task"];
    let mut shadow = TestTool::new("Other");
    shadow.aliases = &["Agent", "Old"];
    let pool = ToolPool::new(vec![task.arc(), shadow.arc()]);
    assert_eq!(pool.find("Agent").unwrap().name(), "Agent");
    assert_eq!(pool.find("Task").unwrap().name(), "Agent");
    assert_eq!(pool.find("Old").unwrap().name(), "Other");
    assert!(pool.find("Nope").is_none());
    assert!(pool.find("agent").is_none(), "names are case-sensitive");
}

#[test]
fn sub_agent_tool_sets() {
    let all: Vec<Arc<dyn Tool>> = [
        names::AGENT,
        names::ASK_USER_QUESTION,
        names::BASH,
        names::ENTER_PLAN_MODE,
        names::EXIT_PLAN_MODE,
        names::READ,
        names::SEND_MESSAGE,
        names::TASK_OUTPUT,
        names::TASK_STOP,
        names::WEB_FETCH,
        "mcp__srv__tool",
    ]
    .iter()
    .map(|n| TestTool::new(n).arc())
    .collect();
    let pool = ToolPool::new(all);
    assert_eq!(
        pool.for_agent(AgentToolSet::Subagent).names(),
        ["Bash", "Read", "SendMessage", "WebFetch", "mcp__srv__tool"]
    );
    assert_eq!(
        pool.for_agent(AgentToolSet::Background).names(),
        ["Bash", "Read", "WebFetch", "mcp__srv__tool"]
    );
    assert_eq!(
        pool.for_agent(AgentToolSet::Coordinator).names(),
        ["Agent", "SendMessage", "TaskStop"]
    );
}

#[test]
fn a_refreshed_pool_keeps_positions_appends_new_tools_by_name_and_drops_removed_ones() {
    let resolver = TestResolver::allow_all().blanket_deny("mcp__evil");
    let pool = registry(linux()).assemble_pool(
        &resolver,
        vec![
            TestTool::new("mcp__srv__m").arc(),
            TestTool::new("mcp__srv__a").arc(),
            TestTool::new("mcp__other__z").arc(),
        ],
    );
    let before = pool.names().join(",");
    assert_eq!(
        before,
        "Bash,Edit,Grep,Read,Write,mcp__other__z,mcp__srv__a,mcp__srv__m"
    );
    // The server drops `a`, keeps `m` (with a new object) and adds two
    // tools; a denied server's tool never gets in.
    let replacement = TestTool::new("mcp__srv__m").arc();
    let removed = ["mcp__srv__a".to_owned()].into_iter().collect();
    let next = pool.refreshed(
        &resolver,
        &removed,
        vec![
            TestTool::new("mcp__srv__zz").arc(),
            Arc::clone(&replacement),
            TestTool::new("mcp__evil__x").arc(),
            TestTool::new("mcp__srv__b").arc(),
        ],
    );
    assert_eq!(
        next.names(),
        [
            "Bash",
            "Edit",
            "Grep",
            "Read",
            "Write",
            "mcp__other__z",
            "mcp__srv__m",
            "mcp__srv__b",
            "mcp__srv__zz"
        ]
    );
    assert!(
        Arc::ptr_eq(next.find("mcp__srv__m").unwrap(), &replacement),
        "a listed tool is replaced in place"
    );
    assert!(next.was_removed("mcp__srv__a"));
    assert!(next.find("mcp__srv__a").is_none());
    assert!(!next.was_removed("mcp__srv__m"));
    // The same refresh again changes nothing; a tool that comes back is no
    // longer "removed" and goes to the end.
    let again = next.refreshed(&resolver, &Default::default(), Vec::new());
    assert_eq!(again.names(), next.names());
    assert!(
        again.was_removed("mcp__srv__a"),
        "remembered across refreshes"
    );
    let back = again.refreshed(
        &resolver,
        &Default::default(),
        vec![TestTool::new("mcp__srv__a").arc()],
    );
    assert_eq!(back.names().last(), Some(&"mcp__srv__a"));
    assert!(!back.was_removed("mcp__srv__a"));
    // The original pool is untouched (calls in flight keep their tools).
    assert_eq!(pool.names().join(","), before);
}
