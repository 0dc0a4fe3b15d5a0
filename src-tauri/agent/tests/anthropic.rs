//! The Anthropic client against a real HTTP server on 127.0.0.1 streaming
//! scripted SSE.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::Arc;
use std::time::Duration;

use gatehouse_agent::keys::ApiKey;
use gatehouse_agent::provider::anthropic::{AnthropicConfig, AnthropicProvider};
use gatehouse_agent::retry::RetryPolicy;
use gatehouse_agent::{Agent, AgentConfig, Block};
use gatehouse_core::events::MemorySink;
use gatehouse_core::testing::{Probe, TestResolver, TestTool};
use gatehouse_core::{Tool, ToolPool, ToolRuntime, ToolUseContext};
use gatehouse_protocol::event::{EventBody, SessionErrorKind, SessionStatus};
use serde_json::json;
use support::{Part, Reply, serve, sse};
use tokio_util::sync::CancellationToken;

const KEY: &str = "sk-ant-test-secret-123";

fn setup(
    url: &str,
    tools: Vec<Arc<dyn Tool>>,
    retries: u32,
) -> (Agent, Arc<MemorySink>, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let sink = Arc::new(MemorySink::new());
    let runtime = ToolRuntime::builder(
        Arc::new(ToolPool::new(tools)),
        Arc::new(TestResolver::allow_all()),
        dir.path(),
    )
    .session_id("s")
    .event_sink(sink.clone())
    .build();
    let mut config = AnthropicConfig::new(ApiKey::new(KEY).unwrap());
    config.base_url = url.to_owned();
    let provider = Arc::new(AnthropicProvider::new(config).unwrap());
    let mut ac = AgentConfig::new("claude-test");
    ac.retry = RetryPolicy {
        max_retries: retries,
        base_delay: Duration::from_millis(5),
        max_delay: Duration::from_millis(50),
    };
    ac.idle_timeout = Duration::from_secs(5);
    let agent = Agent::new(provider, runtime, ac, ToolUseContext::default());
    (agent, sink, dir)
}

fn start(id: &str) -> Vec<u8> {
    sse(
        "message_start",
        &json!({"type":"message_start","message":{"id":id,"usage":{"input_tokens":12,"output_tokens":1,"cache_read_input_tokens":7}}}),
    )
}

fn text_block(index: u32, text: &str) -> Vec<u8> {
    let mut out = sse(
        "content_block_start",
        &json!({"index":index,"content_block":{"type":"text","text":""}}),
    );
    out.extend(sse(
        "content_block_delta",
        &json!({"index":index,"delta":{"type":"text_delta","text":text}}),
    ));
    out.extend(sse("content_block_stop", &json!({"index":index})));
    out
}

fn stop(reason: &str) -> Vec<u8> {
    let mut out = sse(
        "message_delta",
        &json!({"delta":{"stop_reason":reason},"usage":{"output_tokens":42}}),
    );
    out.extend(sse("message_stop", &json!({})));
    out
}

fn final_reply() -> Reply {
    Reply::sse(vec![
        Part::Bytes(start("msg_2")),
        Part::Bytes(text_block(0, "Done.")),
        Part::Bytes(stop("end_turn")),
    ])
}

#[tokio::test]
async fn tools_start_mid_stream_and_results_go_back_in_order() {
    let probe = Probe::new();
    // input_json_delta split into fragments, and the SSE bytes themselves
    // split mid-event across TCP chunks.
    let tool_start = sse(
        "content_block_start",
        &json!({"index":1,"content_block":{"type":"tool_use","id":"toolu_A","name":"Read","input":{}}}),
    );
    let d1 = sse(
        "content_block_delta",
        &json!({"index":1,"delta":{"type":"input_json_delta","partial_json":"{\"outp"}}),
    );
    let d2 = sse(
        "content_block_delta",
        &json!({"index":1,"delta":{"type":"input_json_delta","partial_json":"ut\": \"héllo\"}"}}),
    );
    let (d2a, d2b) = d2.split_at(30);
    let stop1 = sse("content_block_stop", &json!({"index":1}));
    let p2 = probe.clone();
    let server = serve(vec![
        Reply::sse(vec![
            Part::Bytes(start("msg_1")),
            Part::Bytes(b": keep-alive comment\n\nevent: ping\ndata: {}\n\n".to_vec()),
            Part::Bytes(text_block(0, "Let me read.")),
            Part::Bytes(tool_start),
            Part::Pause(Duration::from_millis(20)),
            Part::Bytes(d1),
            Part::Bytes(d2a.to_vec()),
            Part::Pause(Duration::from_millis(20)),
            Part::Bytes(d2b.to_vec()),
            Part::Bytes(stop1),
            // The message is not finished until the tool has run.
            Part::Until(Arc::new(move || !p2.finished().is_empty())),
            Part::Bytes(sse(
                "content_block_start",
                &json!({"index":2,"content_block":{"type":"tool_use","id":"toolu_B","name":"Read","input":{}}}),
            )),
            Part::Bytes(sse("content_block_stop", &json!({"index":2}))),
            Part::Bytes(stop("tool_use")),
        ]),
        final_reply(),
    ])
    .await;
    let (mut agent, sink, _d) = setup(
        &server.url,
        vec![TestTool::safe("Read").with_probe(&probe).arc()],
        0,
    );
    let out = agent.run_prompt("read it", &CancellationToken::new()).await;
    assert_eq!(out.status, SessionStatus::Completed, "{:?}", out.error);
    assert_eq!(probe.started(), ["toolu_A", "toolu_B"]);
    assert_eq!(probe.inputs()[0].1["output"], "héllo");

    let requests = server.requests.lock().unwrap().clone();
    assert_eq!(requests.len(), 2);
    let r0 = &requests[0];
    assert_eq!(r0.header("x-api-key").as_deref(), Some(KEY));
    assert_eq!(
        r0.header("anthropic-version").as_deref(),
        Some("2023-06-01")
    );
    assert_eq!(r0.body["model"], "claude-test");
    assert_eq!(r0.body["stream"], true);
    assert_eq!(r0.body["tools"][0]["name"], "Read");
    assert_eq!(r0.body["tools"][0]["cache_control"]["type"], "ephemeral");
    assert_eq!(r0.body["system"][0]["cache_control"]["type"], "ephemeral");
    // Second request: assistant message then one user message with both
    // results in order.
    let msgs = requests[1].body["messages"].as_array().unwrap().clone();
    assert_eq!(msgs.len(), 3);
    assert_eq!(msgs[1]["role"], "assistant");
    assert_eq!(msgs[1]["content"][1]["input"], json!({"output": "héllo"}));
    let ids: Vec<_> = msgs[2]["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["tool_use_id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(ids, ["toolu_A", "toolu_B"]);
    assert_eq!(msgs[2]["content"][0]["content"][0]["text"], "héllo");
    // The tool request went out identically (prompt caching).
    assert_eq!(requests[0].body["tools"], requests[1].body["tools"]);

    let events = sink.events();
    let usage = events
        .iter()
        .find_map(|e| match e.body {
            EventBody::Usage {
                input_tokens,
                output_tokens,
                cache_read_input_tokens,
                ..
            } => Some((input_tokens, output_tokens, cache_read_input_tokens)),
            _ => None,
        })
        .unwrap();
    assert_eq!(usage, (12, 42, 7));
    // No event or history ever carries the key.
    let all = serde_json::to_string(&events).unwrap();
    assert!(!all.contains(KEY));
}

#[tokio::test]
async fn rate_limits_and_overload_are_retried_honouring_retry_after() {
    let server = serve(vec![
        Reply::error(
            429,
            r#"{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}"#,
        )
        .header("retry-after", "0.05"),
        Reply::error(
            529,
            r#"{"type":"error","error":{"type":"overloaded_error","message":"busy"}}"#,
        ),
        Reply::sse(vec![
            Part::Bytes(start("m")),
            Part::Bytes(sse(
                "error",
                &json!({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}),
            )),
        ]),
        Reply::error(503, "upstream gone"),
        final_reply(),
    ])
    .await;
    let (mut agent, sink, _d) = setup(&server.url, vec![], 5);
    let out = agent.run_prompt("hi", &CancellationToken::new()).await;
    assert_eq!(out.status, SessionStatus::Completed, "{:?}", out.error);
    assert_eq!(server.requests.lock().unwrap().len(), 5);
    let retries: Vec<(u64, String)> = sink
        .events()
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::ModelRequestRetried {
                delay_ms, error, ..
            } => Some((*delay_ms, error.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(retries.len(), 4);
    assert_eq!(retries[0].0, 50, "retry-after is honoured");
    assert!(retries[0].1.contains("429") && retries[0].1.contains("slow down"));
    assert!(
        retries[2].1.contains("overloaded_error"),
        "{}",
        retries[2].1
    );
    let arrivals = server.arrivals.lock().unwrap().clone();
    assert!(arrivals[1] - arrivals[0] >= Duration::from_millis(45));
}

#[tokio::test]
async fn a_refused_key_is_a_clear_error_without_retries_or_the_key() {
    let server = serve(vec![Reply::error(
        401,
        r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#,
    )])
    .await;
    let (mut agent, sink, _d) = setup(&server.url, vec![], 5);
    let out = agent.run_prompt("hi", &CancellationToken::new()).await;
    assert_eq!(out.status, SessionStatus::Failed);
    let (kind, message) = out.error.unwrap();
    assert_eq!(kind, SessionErrorKind::Authentication);
    assert!(
        message.contains("401") && message.contains("invalid x-api-key"),
        "{message}"
    );
    assert!(!message.contains(KEY));
    assert_eq!(server.requests.lock().unwrap().len(), 1);
    assert!(sink.events().iter().any(|e| matches!(
        &e.body,
        EventBody::SessionError {
            kind: SessionErrorKind::Authentication,
            recoverable: true,
            ..
        }
    )));

    let server = serve(vec![Reply::error(
        400,
        r#"{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: too large"}}"#,
    )])
    .await;
    let (mut agent, _sink, _d) = setup(&server.url, vec![], 5);
    let (kind, message) = agent
        .run_prompt("hi", &CancellationToken::new())
        .await
        .error
        .unwrap();
    assert_eq!(kind, SessionErrorKind::InvalidRequest);
    assert!(message.contains("max_tokens: too large"), "{message}");
}

#[tokio::test]
async fn malformed_events_truncation_and_drops_are_errors_not_panics() {
    // Malformed JSON after output: not retried; the text so far is kept.
    let server = serve(vec![
        Reply::sse(vec![
            Part::Bytes(start("m")),
            Part::Bytes(text_block(0, "partial")),
            Part::Bytes(b"event: content_block_start\ndata: {not json\n\n".to_vec()),
        ]),
        // Dropped connection mid-reply.
        Reply::sse(vec![
            Part::Bytes(start("m")),
            Part::Bytes(sse(
                "content_block_start",
                &json!({"index":0,"content_block":{"type":"text","text":""}}),
            )),
            Part::Bytes(sse(
                "content_block_delta",
                &json!({"index":0,"delta":{"type":"text_delta","text":"half"}}),
            )),
            Part::Drop,
        ]),
        // Truncated: the body ends cleanly but without message_stop.
        Reply::sse(vec![Part::Bytes(start("m")), Part::Bytes(text_block(0, "cut"))]),
        // Invalid tool input JSON: an error result, and the session goes on.
        Reply::sse(vec![
            Part::Bytes(start("m")),
            Part::Bytes(sse(
                "content_block_start",
                &json!({"index":0,"content_block":{"type":"tool_use","id":"bad","name":"Read","input":{}}}),
            )),
            Part::Bytes(sse(
                "content_block_delta",
                &json!({"index":0,"delta":{"type":"input_json_delta","partial_json":"{\"a\": tru"}}),
            )),
            Part::Bytes(sse("content_block_stop", &json!({"index":0}))),
            Part::Bytes(stop("tool_use")),
        ]),
        final_reply(),
    ])
    .await;
    let probe = Probe::new();
    let (mut agent, _sink, _d) = setup(
        &server.url,
        vec![TestTool::safe("Read").with_probe(&probe).arc()],
        0,
    );
    let tok = CancellationToken::new();
    let o1 = agent.run_prompt("1", &tok).await;
    let (k1, m1) = o1.error.unwrap();
    assert_eq!(k1, SessionErrorKind::MalformedStream);
    assert!(m1.contains("not valid JSON"), "{m1}");
    assert!(
        matches!(&agent.history().last().unwrap().content[0], Block::Text { text } if text == "partial")
    );

    let (k2, m2) = agent.run_prompt("2", &tok).await.error.unwrap();
    assert_eq!(k2, SessionErrorKind::Network, "{m2}");

    let (k3, m3) = agent.run_prompt("3", &tok).await.error.unwrap();
    assert_eq!(k3, SessionErrorKind::MalformedStream);
    assert!(m3.contains("truncated"), "{m3}");

    let o4 = agent.run_prompt("4", &tok).await;
    assert_eq!(o4.status, SessionStatus::Completed, "{:?}", o4.error);
    assert_eq!(probe.calls(), 0, "a call with invalid input never runs");
    let requests = server.requests.lock().unwrap().clone();
    let last = requests.last().unwrap().body["messages"]
        .as_array()
        .unwrap()
        .clone();
    let results = &last[last.len() - 1]["content"];
    assert_eq!(results[0]["tool_use_id"], "bad");
    assert_eq!(results[0]["is_error"], true);
    assert!(
        results[0]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("not valid JSON")
    );
}

#[tokio::test]
async fn an_interrupt_cancels_the_in_flight_request() {
    let server = serve(vec![Reply::sse(vec![
        Part::Bytes(start("m")),
        Part::Bytes(sse(
            "content_block_start",
            &json!({"index":0,"content_block":{"type":"text","text":""}}),
        )),
        Part::Hang,
    ])])
    .await;
    let (mut agent, _sink, _d) = setup(&server.url, vec![], 0);
    let tok = CancellationToken::new();
    let t2 = tok.clone();
    let requests = server.requests.clone();
    // The interrupt comes once the request is in flight (the server has
    // it and will never finish its reply).
    tokio::spawn(async move {
        while requests.lock().unwrap().is_empty() {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        t2.cancel();
    });
    let out = agent.run_prompt("hi", &tok).await;
    // Not the idle timeout's error (5 s without data): the interrupt.
    assert_eq!(out.status, SessionStatus::Interrupted, "{:?}", out.error);
    assert!(out.error.is_none(), "{:?}", out.error);
    // And the request itself was dropped: the server sees the connection close.
    let closed = server.closed.clone();
    tokio::time::timeout(Duration::from_secs(30), async move {
        while *closed.lock().unwrap() == 0 {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    })
    .await
    .expect("the interrupted request's connection was never closed");
}

#[tokio::test]
async fn thinking_is_passed_through_with_its_signature() {
    let server = serve(vec![
        Reply::sse(vec![
            Part::Bytes(start("m")),
            Part::Bytes(sse(
                "content_block_start",
                &json!({"index":0,"content_block":{"type":"thinking","thinking":""}}),
            )),
            Part::Bytes(sse(
                "content_block_delta",
                &json!({"index":0,"delta":{"type":"thinking_delta","thinking":"Hmm, "}}),
            )),
            Part::Bytes(sse(
                "content_block_delta",
                &json!({"index":0,"delta":{"type":"thinking_delta","thinking":"let me see."}}),
            )),
            Part::Bytes(sse(
                "content_block_delta",
                &json!({"index":0,"delta":{"type":"signature_delta","signature":"sig=="}}),
            )),
            Part::Bytes(sse("content_block_stop", &json!({"index":0}))),
            Part::Bytes(sse(
                "content_block_start",
                &json!({"index":1,"content_block":{"type":"redacted_thinking","data":"opaque"}}),
            )),
            Part::Bytes(sse("content_block_stop", &json!({"index":1}))),
            Part::Bytes(text_block(2, "Answer.")),
            Part::Bytes(stop("end_turn")),
        ]),
        final_reply(),
    ])
    .await;
    let (mut agent, sink, _d) = setup(&server.url, vec![], 0);
    let tok = CancellationToken::new();
    assert_eq!(
        agent.run_prompt("think", &tok).await.status,
        SessionStatus::Completed
    );
    assert_eq!(
        agent.run_prompt("again", &tok).await.status,
        SessionStatus::Completed
    );
    let deltas: String = sink
        .events()
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::AssistantThinkingDelta { thinking, .. } => Some(thinking.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(deltas, "Hmm, let me see.");
    // The next request sends the thinking blocks back unchanged.
    let requests = server.requests.lock().unwrap().clone();
    let assistant = &requests[1].body["messages"][1]["content"];
    assert_eq!(
        assistant[0],
        json!({"type":"thinking","thinking":"Hmm, let me see.","signature":"sig=="})
    );
    assert_eq!(
        assistant[1],
        json!({"type":"redacted_thinking","data":"opaque"})
    );
    assert_eq!(assistant[2]["text"], "Answer.");
}

#[tokio::test]
async fn a_ten_megabyte_reply_and_a_stalled_stream_end_the_turn_with_clear_errors() {
    let mega = "x".repeat(1024 * 1024);
    let mut parts = vec![
        Part::Bytes(start("m")),
        Part::Bytes(sse(
            "content_block_start",
            &json!({"index":0,"content_block":{"type":"text","text":""}}),
        )),
    ];
    for _ in 0..10 {
        parts.push(Part::Bytes(sse(
            "content_block_delta",
            &json!({"index":0,"delta":{"type":"text_delta","text":mega}}),
        )));
    }
    parts.push(Part::Bytes(sse("content_block_stop", &json!({"index":0}))));
    parts.push(Part::Bytes(stop("end_turn")));
    let server = serve(vec![
        Reply::sse(parts),
        Reply::sse(vec![
            Part::Bytes(start("m")),
            Part::Bytes(text_block(0, "started")),
            Part::Hang,
        ]),
        final_reply(),
    ])
    .await;
    let (agent, _sink, _d) = setup(&server.url, vec![], 0);
    let mut agent = agent;
    let tok = CancellationToken::new();
    let (kind, message) = agent.run_prompt("big", &tok).await.error.unwrap();
    assert_eq!(kind, SessionErrorKind::MalformedStream);
    assert!(message.contains("exceeded the limit"), "{message}");
    // The partial 10 MB text never enters the history.
    assert!(serde_json::to_string(agent.history()).unwrap().len() < 100_000);

    // A stream that stalls mid-reply: the idle timeout ends the turn.
    let dir = tempfile::tempdir().unwrap();
    let runtime = ToolRuntime::builder(
        Arc::new(ToolPool::new(vec![])),
        Arc::new(TestResolver::allow_all()),
        dir.path(),
    )
    .build();
    let mut config = AnthropicConfig::new(ApiKey::new(KEY).unwrap());
    config.base_url = server.url.clone();
    let mut ac = AgentConfig::new("claude-test");
    ac.idle_timeout = Duration::from_millis(300);
    ac.retry = RetryPolicy::none();
    let mut stalled = Agent::new(
        Arc::new(AnthropicProvider::new(config).unwrap()),
        runtime,
        ac,
        ToolUseContext::default(),
    );
    let (kind, message) = stalled.run_prompt("stall", &tok).await.error.unwrap();
    assert_eq!(kind, SessionErrorKind::Timeout);
    assert!(message.contains("sent nothing"), "{message}");
    // Recoverable: the same session answers the next prompt.
    assert_eq!(
        stalled.run_prompt("again", &tok).await.status,
        SessionStatus::Completed
    );
}
