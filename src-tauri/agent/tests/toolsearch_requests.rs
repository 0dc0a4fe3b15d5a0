//! Deferred tools across providers (issue 21 items 3 and 4): the raw
//! bodies of three consecutive model requests, captured by a real HTTP
//! server on 127.0.0.1, for the Anthropic API's tool-search form, its
//! append fallback (configured, and switched to when the endpoint refuses
//! `defer_loading`) and an OpenAI-compatible endpoint; then a resumed
//! session's request.
//!
//! The session: 239 recorded real MCP tools (deferred: their schemas are
//! far over 10 % of the context window) and ToolSearch. Turn 1 loads
//! `mcp__github__create_issue` with `select:` and calls
//! `mcp__github__get_issue` unloaded (refused, telling the model to load
//! it); turn 2 calls the loaded tool; turn 3 answers.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::Arc;
use std::time::Duration;

use gatehouse_agent::keys::ApiKey;
use gatehouse_agent::provider::anthropic::{AnthropicConfig, AnthropicProvider, DeferredForm};
use gatehouse_agent::provider::openai::{OpenAiConfig, OpenAiProvider};
use gatehouse_agent::retry::RetryPolicy;
use gatehouse_agent::{Agent, AgentConfig, Provider};
use gatehouse_core::deferral::not_loaded_message;
use gatehouse_core::events::MemorySink;
use gatehouse_core::testing::{TestResolver, TestTool, recorded_mcp_tools};
use gatehouse_core::{Tool, ToolPool, ToolRuntime, ToolUseContext};
use gatehouse_protocol::event::{ContentBlock, EventBody, SessionStatus};
use serde_json::{Value, json};
use support::{Part, Reply, serve, sse};
use tokio_util::sync::CancellationToken;

const LOADED: &str = "mcp__github__create_issue";
const UNLOADED: &str = "mcp__github__get_issue";

fn tools() -> Vec<Arc<dyn Tool>> {
    let mut tools: Vec<Arc<dyn Tool>> = vec![
        TestTool::safe("Read").arc(),
        gatehouse_tools::tool_search::tool_search_tool(),
    ];
    let mut mcp = recorded_mcp_tools(1);
    mcp.sort_by(|a, b| a.name().cmp(b.name()));
    tools.extend(mcp);
    tools
}

fn runtime(sink: &Arc<MemorySink>, dir: &tempfile::TempDir) -> Arc<ToolRuntime> {
    ToolRuntime::builder(
        Arc::new(ToolPool::new(tools())),
        Arc::new(TestResolver::allow_all()),
        dir.path(),
    )
    .session_id("s")
    .event_sink(sink.clone())
    .build()
}

fn agent_config() -> AgentConfig {
    let mut ac = AgentConfig::new("model-test");
    ac.retry = RetryPolicy {
        max_retries: 0,
        base_delay: Duration::from_millis(5),
        max_delay: Duration::from_millis(5),
    };
    ac.idle_timeout = Duration::from_secs(10);
    ac
}

/// A tool call: (id, name, input).
type Call = (&'static str, &'static str, Value);

fn turn1() -> Vec<Call> {
    vec![
        (
            "t1",
            "ToolSearch",
            json!({"query": format!("select:{LOADED}")}),
        ),
        (
            "t2",
            UNLOADED,
            json!({"owner": "o", "repo": "r", "issue_number": 1}),
        ),
    ]
}

fn turn2() -> Vec<Call> {
    vec![(
        "t3",
        LOADED,
        json!({"owner": "o", "repo": "r", "title": "bug"}),
    )]
}

// ---- Anthropic SSE -------------------------------------------------------

fn anthropic_calls(id: &str, calls: &[Call]) -> Reply {
    let mut parts = vec![Part::Bytes(sse(
        "message_start",
        &json!({"type":"message_start","message":{"id":id,"usage":{"input_tokens":1,"output_tokens":1}}}),
    ))];
    for (i, (call_id, name, input)) in calls.iter().enumerate() {
        parts.push(Part::Bytes(sse(
            "content_block_start",
            &json!({"index":i,"content_block":{"type":"tool_use","id":call_id,"name":name,"input":{}}}),
        )));
        parts.push(Part::Bytes(sse(
            "content_block_delta",
            &json!({"index":i,"delta":{"type":"input_json_delta","partial_json":input.to_string()}}),
        )));
        parts.push(Part::Bytes(sse("content_block_stop", &json!({"index":i}))));
    }
    parts.push(Part::Bytes(sse(
        "message_delta",
        &json!({"delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":5}}),
    )));
    parts.push(Part::Bytes(sse("message_stop", &json!({}))));
    Reply::sse(parts)
}

fn anthropic_done(id: &str) -> Reply {
    Reply::sse(vec![
        Part::Bytes(sse(
            "message_start",
            &json!({"type":"message_start","message":{"id":id,"usage":{"input_tokens":1,"output_tokens":1}}}),
        )),
        Part::Bytes(sse(
            "content_block_start",
            &json!({"index":0,"content_block":{"type":"text","text":""}}),
        )),
        Part::Bytes(sse(
            "content_block_delta",
            &json!({"index":0,"delta":{"type":"text_delta","text":"Done."}}),
        )),
        Part::Bytes(sse("content_block_stop", &json!({"index":0}))),
        Part::Bytes(sse(
            "message_delta",
            &json!({"delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}),
        )),
        Part::Bytes(sse("message_stop", &json!({}))),
    ])
}

fn anthropic(url: &str, form: DeferredForm) -> Arc<AnthropicProvider> {
    let mut config = AnthropicConfig::new(ApiKey::new("sk-ant-test").unwrap());
    config.base_url = url.to_owned();
    config.deferred_form = form;
    Arc::new(AnthropicProvider::new(config).unwrap())
}

// ---- OpenAI SSE ----------------------------------------------------------

fn chunk(v: &Value) -> Part {
    Part::Bytes(format!("data: {v}\n\n").into_bytes())
}

fn openai_calls(id: &str, calls: &[Call]) -> Reply {
    let mut parts = Vec::new();
    for (i, (call_id, name, input)) in calls.iter().enumerate() {
        parts.push(chunk(&json!({"id":id,"choices":[{"index":0,"delta":{"tool_calls":[
            {"index":i,"id":call_id,"type":"function","function":{"name":name,"arguments":input.to_string()}}
        ]}}]})));
    }
    parts.push(chunk(
        &json!({"id":id,"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}),
    ));
    parts.push(Part::Bytes(b"data: [DONE]\n\n".to_vec()));
    Reply::sse(parts)
}

fn openai_done(id: &str) -> Reply {
    Reply::sse(vec![
        chunk(
            &json!({"id":id,"choices":[{"index":0,"delta":{"content":"Done."},"finish_reason":"stop"}]}),
        ),
        Part::Bytes(b"data: [DONE]\n\n".to_vec()),
    ])
}

// ---- the raw bodies ------------------------------------------------------

/// The bytes of the `tools` array of a raw body (`"tools":[…]`, found as a
/// key: a quote inside a JSON string is always escaped).
fn tools_bytes(raw: &[u8]) -> &[u8] {
    let text = std::str::from_utf8(raw).unwrap();
    let start = text.rfind(r#","tools":"#).expect("a tools key") + r#","tools":"#.len();
    let mut values =
        serde_json::Deserializer::from_str(&text[start..]).into_iter::<serde::de::IgnoredAny>();
    values.next().unwrap().unwrap();
    &raw[start..start + values.byte_offset()]
}

/// Everything before `"messages"` (model, limits, system, tools).
fn anthropic_prefix(raw: &[u8]) -> &[u8] {
    let text = std::str::from_utf8(raw).unwrap();
    &raw[..text.find(r#","messages":"#).unwrap()]
}

fn names_of(tools: &[u8]) -> Vec<String> {
    let v: Vec<Value> = serde_json::from_slice(tools).unwrap();
    v.iter()
        .map(|t| {
            t.get("function")
                .map_or(&t["name"], |f| &f["name"])
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

/// Runs the three-turn session over `provider`; returns the agent.
async fn run_session(provider: Arc<dyn Provider>) -> (Agent, Arc<MemorySink>, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let sink = Arc::new(MemorySink::new());
    let mut agent = Agent::new(
        provider,
        runtime(&sink, &dir),
        agent_config(),
        ToolUseContext::default(),
    );
    let out = agent
        .run_prompt("file a bug", &CancellationToken::new())
        .await;
    assert_eq!(out.status, SessionStatus::Completed, "{:?}", out.error);
    (agent, sink, dir)
}

/// A new session (fresh runtime) continuing `agent`'s history over
/// `provider`, sent one prompt (as a resumed session is).
async fn resume(provider: Arc<dyn Provider>, agent: &Agent) {
    let dir = tempfile::tempdir().unwrap();
    let sink = Arc::new(MemorySink::new());
    let mut resumed = Agent::new(
        provider,
        runtime(&sink, &dir),
        agent_config(),
        ToolUseContext::default(),
    )
    .with_history(agent.history().to_vec(), agent.turns());
    let out = resumed.run_prompt("again", &CancellationToken::new()).await;
    assert_eq!(out.status, SessionStatus::Completed, "{:?}", out.error);
    // The loaded tool ran without being loaded again.
    assert!(sink.events().iter().any(|e| matches!(
        &e.body,
        EventBody::ToolCompleted { tool_use_id, is_error: false, .. } if tool_use_id == "t3"
    )));
}

/// What every form shares: the unloaded call was refused with the
/// seeds' advice, the loaded one ran, `tool_block_changed` reported the
/// load.
fn assert_session(sink: &MemorySink) {
    let events = sink.events();
    let completed = |id: &str| {
        events
            .iter()
            .find_map(|e| match &e.body {
                EventBody::ToolCompleted {
                    tool_use_id,
                    content,
                    is_error,
                    ..
                } if tool_use_id == id => Some((*is_error, content.clone())),
                _ => None,
            })
            .unwrap()
    };
    let (err, content) = completed("t2");
    assert!(err);
    assert_eq!(
        content,
        [ContentBlock::Text {
            text: not_loaded_message(UNLOADED)
        }]
    );
    assert_eq!(
        completed("t1").1,
        [ContentBlock::ToolReference {
            tool_name: LOADED.into()
        }]
    );
    let (err, content) = completed("t3");
    assert!(!err, "{content:?}");
    let blocks: Vec<(u32, u32)> = events
        .iter()
        .filter_map(|e| match e.body {
            EventBody::ToolBlockChanged {
                tool_search: true,
                loaded,
                deferred,
                ..
            } => Some((loaded, deferred)),
            _ => None,
        })
        .collect();
    // Read + ToolSearch, 239 deferred; then one loaded.
    assert_eq!(blocks, [(2, 239), (3, 238)]);
}

#[tokio::test]
async fn anthropic_tool_search_form_sends_the_same_bytes_three_times() {
    let server = serve(vec![
        anthropic_calls("m1", &turn1()),
        anthropic_calls("m2", &turn2()),
        anthropic_done("m3"),
    ])
    .await;
    let (_agent, sink, _dir) = run_session(anthropic(&server.url, DeferredForm::Native)).await;
    assert_session(&sink);
    let requests = server.requests.lock().unwrap().clone();
    assert_eq!(requests.len(), 3);
    let first = anthropic_prefix(&requests[0].raw);
    for r in &requests[1..] {
        assert!(
            anthropic_prefix(&r.raw) == first,
            "the model, system and tools bytes changed between requests"
        );
    }
    let tools = &requests[0].body["tools"];
    let all = tools.as_array().unwrap();
    assert_eq!(all.len(), 2 + 239);
    assert_eq!(all[0]["name"], "Read");
    assert_eq!(all[1]["name"], "ToolSearch");
    // The breakpoint stays on the last tool sent in full.
    assert_eq!(all[1]["cache_control"]["type"], "ephemeral");
    assert!(all[1].get("defer_loading").is_none());
    assert!(all[2..].iter().all(|t| t["defer_loading"] == true));
    // The reference goes back as a tool_reference block for the API.
    let result = &requests[1].body["messages"][2]["content"][0];
    assert_eq!(result["type"], "tool_result");
    assert_eq!(
        result["content"],
        json!([{"type": "tool_reference", "tool_name": LOADED}])
    );
    let system = requests[0].body["system"][0]["text"].as_str().unwrap();
    assert!(system.contains("<available-deferred-tools>"), "{system}");
    assert!(
        system.contains("\nmcp__github__create_issue\nmcp__github__create_or_update_file\n"),
        "{system}"
    );
}

/// The bodies of the append form: the first block, then it with the
/// loaded tool appended (its bytes a prefix), then the same again.
fn assert_appended(raws: &[&[u8]]) {
    let t1 = tools_bytes(raws[0]);
    let t2 = tools_bytes(raws[1]);
    let t3 = tools_bytes(raws[2]);
    assert!(
        t2.starts_with(&t1[..t1.len() - 1]),
        "the tools sent first are not a byte-identical prefix of the second request's"
    );
    assert_eq!(t2, t3, "the second and third requests' tools differ");
    let n1 = names_of(t1);
    let n2 = names_of(t2);
    assert_eq!(n1, ["Read", "ToolSearch"]);
    assert_eq!(n2, ["Read", "ToolSearch", LOADED]);
}

#[tokio::test]
async fn anthropic_append_form_appends_the_loaded_tool_after_the_same_bytes() {
    let server = serve(vec![
        anthropic_calls("m1", &turn1()),
        anthropic_calls("m2", &turn2()),
        anthropic_done("m3"),
    ])
    .await;
    let (agent, sink, _dir) = run_session(anthropic(&server.url, DeferredForm::Append)).await;
    assert_session(&sink);
    let requests = server.requests.lock().unwrap().clone();
    let raws: Vec<&[u8]> = requests.iter().map(|r| r.raw.as_slice()).collect();
    assert_appended(&raws);
    // No defer_loading, and the reference reaches the model as text.
    assert!(!String::from_utf8_lossy(&requests[0].raw).contains("defer_loading"));
    let result = &requests[1].body["messages"][2]["content"][0]["content"][0];
    assert_eq!(result["type"], "text");
    assert!(result["text"].as_str().unwrap().contains(LOADED));

    // Resumed: a new agent over the stored history has the tool loaded
    // (its definition sent, the call allowed).
    let resumed_server = serve(vec![anthropic_calls("m4", &turn2()), anthropic_done("m5")]).await;
    resume(anthropic(&resumed_server.url, DeferredForm::Append), &agent).await;
    let after = resumed_server.requests.lock().unwrap().clone();
    assert_eq!(
        tools_bytes(&after[0].raw),
        tools_bytes(&requests[2].raw),
        "the resumed session's tools differ from the ones sent before"
    );
}

#[tokio::test]
async fn an_endpoint_without_tool_search_gets_the_append_form() {
    let server = serve(vec![
        Reply::error(
            400,
            r#"{"type":"error","error":{"type":"invalid_request_error","message":"tools.2: Extra inputs are not permitted (defer_loading)"}}"#,
        ),
        anthropic_calls("m1", &turn1()),
        anthropic_calls("m2", &turn2()),
        anthropic_done("m3"),
    ])
    .await;
    let provider = anthropic(&server.url, DeferredForm::Native);
    let (_agent, sink, _dir) = run_session(provider.clone()).await;
    assert_session(&sink);
    assert_eq!(provider.deferred_form(), DeferredForm::Append);
    let requests = server.requests.lock().unwrap().clone();
    assert_eq!(requests.len(), 4);
    assert!(String::from_utf8_lossy(&requests[0].raw).contains("defer_loading"));
    let raws: Vec<&[u8]> = requests[1..].iter().map(|r| r.raw.as_slice()).collect();
    assert_appended(&raws);
}

#[tokio::test]
async fn openai_compatible_requests_append_the_loaded_tool_after_the_same_bytes() {
    let server = serve(vec![
        openai_calls("c1", &turn1()),
        openai_calls("c2", &turn2()),
        openai_done("c3"),
    ])
    .await;
    let provider = Arc::new(
        OpenAiProvider::new(OpenAiConfig::new(format!("{}/v1", server.url), None)).unwrap(),
    );
    let (agent, sink, _dir) = run_session(provider).await;
    assert_session(&sink);
    let requests = server.requests.lock().unwrap().clone();
    let raws: Vec<&[u8]> = requests.iter().map(|r| r.raw.as_slice()).collect();
    assert_appended(&raws);
    let messages = requests[1].body["messages"].as_array().unwrap();
    assert!(
        messages[0]["content"]
            .as_str()
            .unwrap()
            .contains("<available-deferred-tools>")
    );
    let tool_msg = messages.iter().find(|m| m["tool_call_id"] == "t1").unwrap();
    assert!(
        tool_msg["content"].as_str().unwrap().contains(LOADED),
        "{tool_msg}"
    );
    let tools: Vec<Value> = serde_json::from_slice(tools_bytes(&requests[1].raw)).unwrap();
    assert_eq!(tools[2]["type"], "function");
    assert_eq!(tools[2]["function"]["parameters"]["required"][0], "owner");

    // Resumed: the same tools, the loaded one included.
    let resumed_server = serve(vec![openai_calls("c4", &turn2()), openai_done("c5")]).await;
    let provider = Arc::new(
        OpenAiProvider::new(OpenAiConfig::new(
            format!("{}/v1", resumed_server.url),
            None,
        ))
        .unwrap(),
    );
    resume(provider, &agent).await;
    let after = resumed_server.requests.lock().unwrap().clone();
    assert_eq!(tools_bytes(&after[0].raw), tools_bytes(&requests[2].raw));
}
