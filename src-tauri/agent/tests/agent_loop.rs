//! The conversation loop against scripted providers and core's test tools.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use futures::StreamExt;
use gatehouse_agent::provider::replay::{ReplayProvider, Script};
use gatehouse_agent::provider::{EventStream, ModelRequest, Provider, ProviderError, StreamEvent};
use gatehouse_agent::retry::RetryPolicy;
use gatehouse_agent::{Agent, AgentConfig, Block, Role, StopReason};
use gatehouse_core::events::MemorySink;
use gatehouse_core::testing::{Probe, TestResolver, TestTool};
use gatehouse_core::{Tool, ToolPool, ToolRuntime, ToolUseContext};
use gatehouse_protocol::event::{Event, EventBody, SessionErrorKind, SessionStatus};
use serde_json::json;
use tokio_util::sync::CancellationToken;

struct Harness {
    sink: Arc<MemorySink>,
    runtime: Arc<ToolRuntime>,
    _dir: tempfile::TempDir,
}

fn harness(tools: Vec<Arc<dyn Tool>>) -> Harness {
    let dir = tempfile::tempdir().unwrap();
    let sink = Arc::new(MemorySink::new());
    let runtime = ToolRuntime::builder(
        Arc::new(ToolPool::new(tools)),
        Arc::new(TestResolver::allow_all()),
        dir.path(),
    )
    .session_id("s-test")
    .event_sink(sink.clone())
    .build();
    Harness {
        sink,
        runtime,
        _dir: dir,
    }
}

fn config() -> AgentConfig {
    let mut c = AgentConfig::new("test-model");
    c.retry = RetryPolicy {
        max_retries: 3,
        base_delay: Duration::from_millis(5),
        max_delay: Duration::from_millis(20),
    };
    c.idle_timeout = Duration::from_secs(5);
    c
}

fn agent(h: &Harness, provider: Arc<dyn Provider>, config: AgentConfig) -> Agent {
    Agent::new(
        provider,
        h.runtime.clone(),
        config,
        ToolUseContext::default(),
    )
}

fn types(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .map(|e| {
            serde_json::to_value(e).unwrap()["type"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

fn replay(script: serde_json::Value) -> Arc<dyn Provider> {
    Arc::new(ReplayProvider::new(
        Script::parse(&script.to_string()).unwrap(),
    ))
}

#[tokio::test]
async fn a_replayed_session_runs_tools_and_returns_results_in_order() {
    let probe = Probe::new();
    let h = harness(vec![
        TestTool::safe("Read").with_probe(&probe).arc(),
        TestTool::safe("Grep").with_probe(&probe).arc(),
    ]);
    let provider = replay(json!({"turns": [
        {"content": [
            {"type": "text", "text": "Reading two files."},
            {"type": "tool_use", "name": "Read", "input": {"sleep_ms": 50}},
            {"type": "tool_use", "id": "g1", "name": "Grep", "input": {}},
            {"type": "tool_use", "name": "Read", "input": {"output": "third"}}
        ], "usage": {"input_tokens": 10, "output_tokens": 5}},
        {"content": [{"type": "text", "text": "All done."}]}
    ]}));
    let mut agent = agent(&h, provider, config());
    let out = agent
        .run_prompt("look around", &CancellationToken::new())
        .await;
    assert_eq!(out.status, SessionStatus::Completed);
    assert_eq!(out.turns, 2);
    assert_eq!(probe.calls(), 3);

    let history = agent.history();
    assert_eq!(history.len(), 4);
    assert_eq!(history[1].role, Role::Assistant);
    let ids: Vec<_> = history[1].tool_use_ids();
    assert_eq!(ids, ["toolu_replay_1_2", "g1", "toolu_replay_1_4"]);
    let results: Vec<(String, String)> = history[2]
        .content
        .iter()
        .map(|b| match b {
            Block::ToolResult {
                tool_use_id,
                content,
                ..
            } => (
                tool_use_id.clone(),
                serde_json::to_value(content).unwrap()[0]["text"]
                    .as_str()
                    .unwrap()
                    .to_owned(),
            ),
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    assert_eq!(
        results,
        [
            ("toolu_replay_1_2".into(), "ok:toolu_replay_1_2".into()),
            ("g1".into(), "ok:g1".into()),
            ("toolu_replay_1_4".into(), "third".into()),
        ]
    );

    let events = h.sink.events();
    let t = types(&events);
    assert_eq!(t.first().map(String::as_str), Some("user_prompt"));
    assert_eq!(t.last().map(String::as_str), Some("session_completed"));
    for needed in [
        "model_request_started",
        "assistant_text_delta",
        "assistant_message",
        "tool_queued",
        "tool_started",
        "tool_completed",
        "tool_results_returned",
        "usage",
        "turn_completed",
    ] {
        assert!(t.iter().any(|x| x == needed), "missing {needed} in {t:?}");
    }
    assert_eq!(t.iter().filter(|x| *x == "turn_completed").count(), 2);
    // The tool results message is emitted after every tool completed.
    let last_completed = t.iter().rposition(|x| x == "tool_completed").unwrap();
    let returned = t.iter().position(|x| x == "tool_results_returned").unwrap();
    assert!(last_completed < returned);
}

/// A provider whose reply is fed by the test through a channel.
struct ChannelProvider {
    rx: Mutex<Option<tokio::sync::mpsc::UnboundedReceiver<Result<StreamEvent, ProviderError>>>>,
}

#[async_trait]
impl Provider for ChannelProvider {
    fn name(&self) -> &str {
        "channel"
    }
    async fn stream(&self, _request: &ModelRequest) -> Result<EventStream, ProviderError> {
        let rx = self.rx.lock().unwrap().take().expect("one request only");
        Ok(tokio_stream_from(rx))
    }
}

fn tokio_stream_from(
    rx: tokio::sync::mpsc::UnboundedReceiver<Result<StreamEvent, ProviderError>>,
) -> EventStream {
    futures::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|x| (x, rx)) }).boxed()
}

#[tokio::test]
async fn a_tool_runs_while_its_message_is_still_streaming() {
    let probe = Probe::new();
    let h = harness(vec![TestTool::safe("Read").with_probe(&probe).arc()]);
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let provider = Arc::new(ChannelProvider {
        rx: Mutex::new(Some(rx)),
    });
    let mut config = config();
    config.max_turns = 1;
    let mut agent = agent(&h, provider, config);
    let feeder = tokio::spawn({
        let probe = probe.clone();
        async move {
            tx.send(Ok(StreamEvent::MessageStart { id: None })).unwrap();
            tx.send(Ok(StreamEvent::BlockComplete {
                index: 0,
                block: Block::ToolUse {
                    id: "early".into(),
                    name: "Read".into(),
                    input: json!({}),
                },
            }))
            .unwrap();
            // The message is not finished: the tool must run anyway.
            let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
            while probe.finished().is_empty() {
                assert!(
                    tokio::time::Instant::now() < deadline,
                    "the tool never ran mid-stream"
                );
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
            tx.send(Ok(StreamEvent::TextDelta {
                index: 1,
                text: "more".into(),
            }))
            .unwrap();
            tx.send(Ok(StreamEvent::MessageStop {
                stop_reason: StopReason::ToolUse,
            }))
            .unwrap();
        }
    });
    let out = agent.run_prompt("go", &CancellationToken::new()).await;
    feeder.await.unwrap();
    // One turn allowed: the second request hits the limit.
    assert_eq!(out.status, SessionStatus::TurnLimit);
    assert_eq!(probe.finished(), ["early"]);
    let events = h.sink.events();
    let started = events
        .iter()
        .position(|e| matches!(e.body, EventBody::ToolStarted { .. }))
        .unwrap();
    let delta = events
        .iter()
        .position(
            |e| matches!(&e.body, EventBody::AssistantTextDelta { text, .. } if text == "more"),
        )
        .unwrap();
    assert!(started < delta, "tool_started must precede the later delta");
}

#[tokio::test]
async fn invalid_input_and_unknown_tools_get_error_results_and_the_session_goes_on() {
    let h = harness(vec![TestTool::safe("Read").arc()]);
    let provider = replay(json!({"turns": [
        {"content": [
            {"type": "tool_use", "id": "a", "name": "Read", "input": "not an object"},
            {"type": "tool_use", "id": "b", "name": "Nope", "input": {}},
            {"type": "tool_use", "id": "c", "name": "Read", "input": {}}
        ]},
        {"content": [{"type": "text", "text": "ok"}]}
    ]}));
    let mut agent = agent(&h, provider, config());
    let out = agent.run_prompt("x", &CancellationToken::new()).await;
    assert_eq!(out.status, SessionStatus::Completed);
    let results = &agent.history()[2].content;
    let summary: Vec<(String, bool)> = results
        .iter()
        .map(|b| match b {
            Block::ToolResult {
                tool_use_id,
                is_error,
                ..
            } => (tool_use_id.clone(), *is_error),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        summary,
        [("a".into(), true), ("b".into(), true), ("c".into(), false)]
    );
    // The invalid block is in the history with an object input (the API
    // refuses anything else).
    assert!(matches!(
        &agent.history()[1].content[0],
        Block::ToolUse { input, .. } if input.is_object()
    ));
    let events = h.sink.events();
    let queued = events
        .iter()
        .filter(|e| matches!(e.body, EventBody::ToolQueued { .. }))
        .count();
    let completed = events
        .iter()
        .filter(|e| matches!(e.body, EventBody::ToolCompleted { .. }))
        .count();
    assert_eq!((queued, completed), (3, 3));
}

#[tokio::test]
async fn the_turn_limit_stops_a_model_that_never_stops() {
    let h = harness(vec![TestTool::safe("Read").arc()]);
    let turn = json!({"content": [{"type": "tool_use", "name": "Read", "input": {}}]});
    let provider = replay(json!({"turns": [turn, turn, turn, turn]}));
    let mut config = config();
    config.max_turns = 2;
    let mut agent = agent(&h, provider, config);
    let out = agent.run_prompt("loop", &CancellationToken::new()).await;
    assert_eq!(out.status, SessionStatus::TurnLimit);
    assert_eq!(out.turns, 2);
    assert!(h.sink.events().iter().any(|e| matches!(
        e.body,
        EventBody::SessionError {
            kind: SessionErrorKind::TurnLimit,
            recoverable: true,
            ..
        }
    )));
    // The next prompt gets a fresh allowance.
    let out = agent.run_prompt("again", &CancellationToken::new()).await;
    assert_eq!(out.status, SessionStatus::TurnLimit);
    assert_eq!(out.turns, 4);
}

#[tokio::test]
async fn an_interrupt_cancels_running_tools_and_keeps_the_history_valid() {
    let probe = Probe::new();
    let h = harness(vec![
        TestTool::new("Slow")
            .with_probe(&probe)
            .cancel_on_interrupt()
            .arc(),
    ]);
    let provider = replay(json!({"turns": [
        {"content": [
            {"type": "tool_use", "id": "s1", "name": "Slow", "input": {"sleep_ms": 30000}},
            {"type": "tool_use", "id": "s2", "name": "Slow", "input": {}}
        ]}
    ]}));
    let mut agent = agent(&h, provider, config());
    let interrupt = CancellationToken::new();
    let trigger = tokio::spawn({
        let interrupt = interrupt.clone();
        let probe = probe.clone();
        async move {
            while probe.in_flight() == 0 {
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
            interrupt.cancel();
        }
    });
    let out = agent.run_prompt("go", &interrupt).await;
    trigger.await.unwrap();
    assert_eq!(out.status, SessionStatus::Interrupted);
    // The 30 s call was stopped, not waited for: it never reached its end.
    assert_eq!(probe.started(), ["s1"]);
    assert!(probe.finished().is_empty(), "{:?}", probe.finished());
    assert_eq!(probe.calls(), 1, "the queued call must never start");
    let last = agent.history().last().unwrap();
    assert_eq!(last.role, Role::User);
    let ids: Vec<_> = last
        .content
        .iter()
        .filter_map(|b| match b {
            Block::ToolResult { tool_use_id, .. } => Some(tool_use_id.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(ids, ["s1", "s2"]);
    assert!(
        last.content
            .iter()
            .any(|b| matches!(b, Block::Text { text } if text.contains("interrupted")))
    );
}

/// One canned request outcome: the stream's items, or a request error.
type CannedReply = Result<Vec<Result<StreamEvent, ProviderError>>, ProviderError>;

/// A provider that plays a queue of canned outcomes, one per request.
struct Canned {
    replies: Mutex<VecDeque<CannedReply>>,
    hang: bool,
    requests: Mutex<u32>,
}

impl Canned {
    fn new(replies: Vec<CannedReply>) -> Arc<Self> {
        Arc::new(Self {
            replies: Mutex::new(replies.into()),
            hang: false,
            requests: Mutex::new(0),
        })
    }
}

#[async_trait]
impl Provider for Canned {
    fn name(&self) -> &str {
        "canned"
    }
    async fn stream(&self, _request: &ModelRequest) -> Result<EventStream, ProviderError> {
        *self.requests.lock().unwrap() += 1;
        if self.hang {
            futures::future::pending::<()>().await;
        }
        let next = self.replies.lock().unwrap().pop_front();
        match next {
            Some(Ok(events)) => Ok(futures::stream::iter(events).boxed()),
            Some(Err(e)) => Err(e),
            None => Err(ProviderError::fatal(
                SessionErrorKind::Script,
                "no more replies",
            )),
        }
    }
}

fn text_reply(text: &str, stop: StopReason) -> Vec<Result<StreamEvent, ProviderError>> {
    vec![
        Ok(StreamEvent::MessageStart {
            id: Some("m".into()),
        }),
        Ok(StreamEvent::TextDelta {
            index: 0,
            text: text.into(),
        }),
        Ok(StreamEvent::BlockComplete {
            index: 0,
            block: Block::text(text),
        }),
        Ok(StreamEvent::MessageStop { stop_reason: stop }),
    ]
}

#[tokio::test]
async fn retryable_failures_before_any_output_are_retried_and_fatal_ones_are_not() {
    let h = harness(vec![]);
    let overloaded = ProviderError {
        retry_after: Some(Duration::from_millis(1)),
        ..ProviderError::retryable(SessionErrorKind::Overloaded, "overloaded")
    };
    let provider = Canned::new(vec![
        Err(overloaded.clone()),
        // A stream that ends without message_stop, before any output.
        Ok(vec![Ok(StreamEvent::MessageStart { id: None })]),
        Ok(text_reply("hello", StopReason::EndTurn)),
        Err(ProviderError::fatal(
            SessionErrorKind::Authentication,
            "HTTP 401: bad key",
        )),
    ]);
    let mut agent = agent(&h, provider.clone(), config());
    let out = agent.run_prompt("hi", &CancellationToken::new()).await;
    assert_eq!(out.status, SessionStatus::Completed);
    assert_eq!(*provider.requests.lock().unwrap(), 3);
    let retries: Vec<u32> = h
        .sink
        .events()
        .iter()
        .filter_map(|e| match e.body {
            EventBody::ModelRequestRetried { attempt, .. } => Some(attempt),
            _ => None,
        })
        .collect();
    assert_eq!(retries, [1, 2]);

    let out = agent.run_prompt("again", &CancellationToken::new()).await;
    assert_eq!(out.status, SessionStatus::Failed);
    assert_eq!(*provider.requests.lock().unwrap(), 4);
    assert_eq!(out.error.unwrap().0, SessionErrorKind::Authentication);
}

#[tokio::test]
async fn failures_after_output_are_not_retried_and_the_partial_reply_is_kept() {
    let h = harness(vec![]);
    let mut reply = text_reply("partial", StopReason::EndTurn);
    reply.truncate(3);
    reply.push(Err(ProviderError::retryable(
        SessionErrorKind::Network,
        "dropped",
    )));
    let provider = Canned::new(vec![Ok(reply), Ok(text_reply("fine", StopReason::EndTurn))]);
    let mut agent = agent(&h, provider.clone(), config());
    let out = agent.run_prompt("hi", &CancellationToken::new()).await;
    assert_eq!(out.status, SessionStatus::Failed);
    assert_eq!(*provider.requests.lock().unwrap(), 1);
    assert_eq!(agent.history().len(), 2, "the partial text is kept");
    // Recoverable: the next prompt works.
    let out = agent.run_prompt("again", &CancellationToken::new()).await;
    assert_eq!(out.status, SessionStatus::Completed);
}

#[tokio::test]
async fn stop_reasons_max_tokens_unknown_and_oversized_replies_are_explained() {
    let h = harness(vec![]);
    let provider = Canned::new(vec![
        Ok(text_reply("cut", StopReason::MaxTokens)),
        Ok(text_reply("odd", StopReason::Other("sleepy".into()))),
        Ok(text_reply(&"x".repeat(2000), StopReason::EndTurn)),
    ]);
    let mut config = config();
    config.max_reply_bytes = 1000;
    let mut agent = agent(&h, provider, config);
    let tok = CancellationToken::new();
    let kinds: Vec<_> = [
        agent.run_prompt("a", &tok).await,
        agent.run_prompt("b", &tok).await,
        agent.run_prompt("c", &tok).await,
    ]
    .into_iter()
    .map(|o| {
        assert_eq!(o.status, SessionStatus::Failed);
        o.error.unwrap()
    })
    .collect();
    assert_eq!(kinds[0].0, SessionErrorKind::MaxTokens);
    assert_eq!(kinds[1].0, SessionErrorKind::UnknownStopReason);
    assert!(kinds[1].1.contains("sleepy"), "{}", kinds[1].1);
    assert_eq!(kinds[2].0, SessionErrorKind::MalformedStream);
    assert!(kinds[2].1.contains("1000 bytes"), "{}", kinds[2].1);
}

#[tokio::test]
async fn a_hanging_provider_times_out_with_a_clear_error() {
    let h = harness(vec![]);
    let provider = Arc::new(Canned {
        replies: Mutex::new(VecDeque::new()),
        hang: true,
        requests: Mutex::new(0),
    });
    let mut config = config();
    config.idle_timeout = Duration::from_millis(50);
    config.retry.max_retries = 1;
    let mut agent = agent(&h, provider.clone(), config);
    let out = agent.run_prompt("hi", &CancellationToken::new()).await;
    assert_eq!(out.status, SessionStatus::Failed);
    let (kind, message) = out.error.unwrap();
    assert_eq!(kind, SessionErrorKind::Timeout);
    assert!(message.contains("sent nothing"), "{message}");
    assert_eq!(*provider.requests.lock().unwrap(), 2);
}

#[tokio::test]
async fn the_history_rebuilt_from_events_equals_the_live_history() {
    let h = harness(vec![
        TestTool::safe("Read").arc(),
        TestTool::new("Edit").arc(),
    ]);
    let provider = replay(json!({"turns": [
        {"content": [
            {"type": "thinking", "thinking": "plan"},
            {"type": "text", "text": "Reading."},
            {"type": "tool_use", "name": "Read", "input": {}},
            {"type": "tool_use", "name": "Edit", "input": {"fail": "disk full"}},
            {"type": "tool_use", "name": "Nope", "input": {}}
        ]},
        {"content": [{"type": "text", "text": "Done."}]},
        {"content": [{"type": "text", "text": "Second answer."}]}
    ]}));
    let mut agent = agent(&h, provider, config());
    let tok = CancellationToken::new();
    agent.run_prompt("first", &tok).await;
    agent.run_prompt("second", &tok).await;
    let (rebuilt, turns) = gatehouse_agent::resume::history_from_events(&h.sink.events());
    assert_eq!(rebuilt, agent.history());
    assert_eq!(turns, agent.turns());
    assert_eq!(turns, 3);
}

#[tokio::test]
async fn a_recorded_session_replays_to_the_same_transcript() {
    let script = json!({"turns": [
        {"content": [
            {"type": "text", "text": "Reading."},
            {"type": "tool_use", "id": "r1", "name": "Read", "input": {"output": "x"}}
        ]},
        {"content": [{"type": "text", "text": "Done."}], "stop_reason": "end_turn"}
    ]});
    let h1 = harness(vec![TestTool::safe("Read").arc()]);
    let mut first = agent(&h1, replay(script), config());
    first.run_prompt("go", &CancellationToken::new()).await;
    let recorded = Script::from_events(&h1.sink.events());
    // The script survives its JSON form.
    let recorded = Script::parse(&recorded.to_json().to_string()).unwrap();
    let h2 = harness(vec![TestTool::safe("Read").arc()]);
    let mut second = agent(&h2, Arc::new(ReplayProvider::new(recorded)), config());
    let out = second.run_prompt("go", &CancellationToken::new()).await;
    assert_eq!(out.status, SessionStatus::Completed);
    assert_eq!(second.history(), first.history());
}
