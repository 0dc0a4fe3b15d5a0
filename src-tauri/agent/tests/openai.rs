//! The OpenAI-compatible client against a real HTTP server on 127.0.0.1.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::Arc;
use std::time::Duration;

use gatehouse_agent::keys::ApiKey;
use gatehouse_agent::provider::openai::{OpenAiConfig, OpenAiProvider};
use gatehouse_agent::retry::RetryPolicy;
use gatehouse_agent::{Agent, AgentConfig};
use gatehouse_core::events::MemorySink;
use gatehouse_core::testing::{Probe, TestResolver, TestTool};
use gatehouse_core::{Tool, ToolPool, ToolRuntime, ToolUseContext};
use gatehouse_protocol::event::{EventBody, SessionErrorKind, SessionStatus};
use serde_json::{Value, json};
use support::{Part, Reply, serve};
use tokio_util::sync::CancellationToken;

fn setup(url: &str, tools: Vec<Arc<dyn Tool>>) -> (Agent, Arc<MemorySink>, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let sink = Arc::new(MemorySink::new());
    let runtime = ToolRuntime::builder(
        Arc::new(ToolPool::new(tools)),
        Arc::new(TestResolver::allow_all()),
        dir.path(),
    )
    .event_sink(sink.clone())
    .build();
    let provider = Arc::new(
        OpenAiProvider::new(OpenAiConfig::new(
            format!("{url}/v1"),
            ApiKey::new("sk-local"),
        ))
        .unwrap(),
    );
    let mut ac = AgentConfig::new("qwen-test");
    ac.retry = RetryPolicy {
        max_retries: 2,
        base_delay: Duration::from_millis(5),
        max_delay: Duration::from_millis(20),
    };
    (
        Agent::new(provider, runtime, ac, ToolUseContext::default()),
        sink,
        dir,
    )
}

fn chunk(v: Value) -> Part {
    Part::Bytes(format!("data: {v}\n\n").into_bytes())
}

#[tokio::test]
async fn streamed_tool_calls_run_early_and_results_go_back_as_tool_messages() {
    let probe = Probe::new();
    let p2 = probe.clone();
    let server = serve(vec![
        Reply::sse(vec![
            chunk(json!({"id":"c1","choices":[{"index":0,"delta":{"role":"assistant","content":"Let me "}}]})),
            chunk(json!({"id":"c1","choices":[{"index":0,"delta":{"content":"look."}}]})),
            chunk(json!({"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"Read","arguments":"{\"out"}}]}}]})),
            chunk(json!({"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"put\":\"A\"}"}}]}}]})),
            chunk(json!({"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"Read","arguments":"{}"}}]}}]})),
            // Call 0 completed when call 1 started: it runs before the end.
            Part::Until(Arc::new(move || !p2.finished().is_empty())),
            chunk(json!({"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]})),
            chunk(json!({"id":"c1","choices":[],"usage":{"prompt_tokens":20,"completion_tokens":9}})),
            Part::Bytes(b"data: [DONE]\n\n".to_vec()),
        ]),
        Reply::sse(vec![
            chunk(json!({"id":"c2","choices":[{"index":0,"delta":{"content":"Done."},"finish_reason":"stop"}]})),
            Part::Bytes(b"data: [DONE]\n\n".to_vec()),
        ]),
    ])
    .await;
    let (mut agent, sink, _d) = setup(
        &server.url,
        vec![TestTool::safe("Read").with_probe(&probe).arc()],
    );
    let out = agent.run_prompt("go", &CancellationToken::new()).await;
    assert_eq!(out.status, SessionStatus::Completed, "{:?}", out.error);
    assert_eq!(probe.started(), ["call_a", "call_b"]);
    let requests = server.requests.lock().unwrap().clone();
    assert_eq!(
        requests[0].header("authorization").as_deref(),
        Some("Bearer sk-local")
    );
    assert!(requests[0].head.starts_with("POST /v1/chat/completions"));
    assert_eq!(requests[0].body["tools"][0]["function"]["name"], "Read");
    let msgs = requests[1].body["messages"].as_array().unwrap();
    assert_eq!(msgs[2]["role"], "assistant");
    assert_eq!(msgs[2]["content"], "Let me look.");
    assert_eq!(
        msgs[3],
        json!({"role":"tool","tool_call_id":"call_a","content":"A"})
    );
    assert_eq!(msgs[4]["tool_call_id"], "call_b");
    assert!(sink.events().iter().any(|e| matches!(
        e.body,
        EventBody::Usage {
            input_tokens: 20,
            output_tokens: 9,
            ..
        }
    )));
}

#[tokio::test]
async fn server_errors_are_retried_and_bad_chunks_are_reported() {
    let server = serve(vec![
        Reply::error(500, r#"{"error":{"message":"model loading"}}"#),
        Reply::sse(vec![chunk(
            json!({"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}),
        )]),
        Reply::sse(vec![
            chunk(json!({"choices":[{"index":0,"delta":{"content":"x"}}]})),
            Part::Bytes(b"data: {broken\n\n".to_vec()),
        ]),
    ])
    .await;
    let (mut agent, _sink, _d) = setup(&server.url, vec![]);
    let tok = CancellationToken::new();
    // The 500 is retried; the second reply has no [DONE] but a finish.
    let out = agent.run_prompt("a", &tok).await;
    assert_eq!(out.status, SessionStatus::Completed, "{:?}", out.error);
    let out = agent.run_prompt("b", &tok).await;
    let (kind, message) = out.error.unwrap();
    assert_eq!(kind, SessionErrorKind::MalformedStream);
    assert!(message.contains("not valid JSON"), "{message}");
}

#[tokio::test]
async fn calls_without_ids_get_ids_and_bad_arguments_get_error_results() {
    let probe = Probe::new();
    let server = serve(vec![
        Reply::sse(vec![
            chunk(json!({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"Read","arguments":"{}"}}]}}]})),
            chunk(json!({"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"name":"Read","arguments":"{\"output\": tru"}}]}}]})),
            chunk(json!({"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]})),
            Part::Bytes(b"data: [DONE]\n\n".to_vec()),
        ]),
        Reply::sse(vec![
            chunk(json!({"choices":[{"index":0,"delta":{"content":"cut"},"finish_reason":"length"}]})),
            Part::Bytes(b"data: [DONE]\n\n".to_vec()),
        ]),
    ])
    .await;
    let (mut agent, _sink, _d) = setup(
        &server.url,
        vec![TestTool::safe("Read").with_probe(&probe).arc()],
    );
    let out = agent.run_prompt("go", &CancellationToken::new()).await;
    assert_eq!(out.error.unwrap().0, SessionErrorKind::MaxTokens);
    assert_eq!(probe.started(), ["call_1"]);
    let requests = server.requests.lock().unwrap().clone();
    let msgs = requests[1].body["messages"].as_array().unwrap();
    assert_eq!(msgs[3]["tool_call_id"], "call_1");
    assert_eq!(msgs[4]["tool_call_id"], "call_2");
    assert!(
        msgs[4]["content"]
            .as_str()
            .unwrap()
            .contains("not valid JSON")
    );
}
