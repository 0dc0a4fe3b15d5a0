//! WebFetch's `prompt` applied by the small, fast model (issue 22), in a
//! headless session whose provider is a real Anthropic-shaped HTTP server
//! on 127.0.0.1 (the agent tests' scripted server) and whose page comes
//! from another one: the small model gets the page and the prompt under its
//! own model name, its answer is the result (citing the final URL, saying
//! which model summarised it); without a small model, or when it fails, the
//! page itself comes back with a note saying why.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../agent/tests/support/mod.rs"]
mod support;

use std::sync::Arc;
use std::time::Duration;

use gatehouse_agent::keys::ApiKey;
use gatehouse_agent::provider::Provider;
use gatehouse_agent::provider::anthropic::{AnthropicConfig, AnthropicProvider};
use gatehouse_core::events::MemorySink;
use gatehouse_protocol::permission::PermissionMode;
use gatehouse_session::host::AskPolicy;
use gatehouse_session::web_prompt::{SmallModel, SmallModelLimits};
use gatehouse_session::{HostConfig, SessionHost, StartSpec};
use gatehouse_tools::web::PagePrompter;
use serde_json::{Value, json};
use support::{Part, Reply, Server, serve, sse};

mod common;

const PAGE: &str = "<html><head><title>Capitals</title></head><body>\
<h1>Capitals of Europe</h1><p>The capital of France is Paris.</p>\
<p>The capital of Spain is Madrid.</p></body></html>";

/// An Anthropic streaming reply of text blocks.
fn text_reply(id: &str, text: &str) -> Reply {
    let mut body = sse(
        "message_start",
        &json!({"type": "message_start", "message": {"id": id, "usage": {"input_tokens": 10, "output_tokens": 1}}}),
    );
    body.extend(sse(
        "content_block_start",
        &json!({"index": 0, "content_block": {"type": "text", "text": ""}}),
    ));
    body.extend(sse(
        "content_block_delta",
        &json!({"index": 0, "delta": {"type": "text_delta", "text": text}}),
    ));
    body.extend(sse("content_block_stop", &json!({"index": 0})));
    body.extend(end("end_turn"));
    Reply::sse(vec![Part::Bytes(body)])
}

/// An Anthropic streaming reply calling WebFetch.
fn fetch_reply(id: &str, url: &str, prompt: &str) -> Reply {
    let mut body = sse(
        "message_start",
        &json!({"type": "message_start", "message": {"id": "msg_1", "usage": {"input_tokens": 10, "output_tokens": 1}}}),
    );
    body.extend(sse(
        "content_block_start",
        &json!({"index": 0, "content_block": {"type": "tool_use", "id": id, "name": "WebFetch", "input": {}}}),
    ));
    body.extend(sse(
        "content_block_delta",
        &json!({"index": 0, "delta": {"type": "input_json_delta", "partial_json": json!({"url": url, "prompt": prompt}).to_string()}}),
    ));
    body.extend(sse("content_block_stop", &json!({"index": 0})));
    body.extend(end("tool_use"));
    Reply::sse(vec![Part::Bytes(body)])
}

fn end(reason: &str) -> Vec<u8> {
    let mut out = sse(
        "message_delta",
        &json!({"delta": {"stop_reason": reason}, "usage": {"output_tokens": 5}}),
    );
    out.extend(sse("message_stop", &json!({})));
    out
}

fn provider(server: &Server) -> Arc<dyn Provider> {
    let mut config = AnthropicConfig::new(ApiKey::new("sk-ant-test-key").unwrap());
    config.base_url = server.url.clone();
    Arc::new(AnthropicProvider::new(config).unwrap())
}

async fn page_server() -> Server {
    serve(vec![Reply {
        status: 200,
        headers: vec![("content-type".into(), "text/html; charset=utf-8".into())],
        parts: vec![Part::Bytes(PAGE.as_bytes().to_vec())],
    }])
    .await
}

/// The text of a user message's blocks (string or block list).
fn text_of(message: &Value) -> String {
    match &message["content"] {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .map(|b| b["text"].as_str().unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// Runs one headless session whose model fetches `page` with `prompt`, the
/// provider answering with `replies`; returns the WebFetch result's content
/// (JSON text), whether it was an error, and the warnings.
async fn run(
    settings: Value,
    provider_server: &Server,
    page_url: &str,
) -> (bool, String, Vec<String>) {
    let data = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let claude = home.path().join(".claude");
    std::fs::create_dir_all(&claude).unwrap();
    std::fs::write(claude.join("settings.json"), settings.to_string()).unwrap();
    let sink = Arc::new(MemorySink::new());
    let mut config = HostConfig::new(data.path().to_path_buf());
    config.home = home.path().to_path_buf();
    // The developer's environment does not choose the model here.
    config.small_model_env = None;
    let host = SessionHost::new(config, sink.clone(), tokio::runtime::Handle::current()).unwrap();
    let started = host
        .start(StartSpec {
            project: project.path().canonicalize().unwrap(),
            provider: provider(provider_server),
            model: "claude-main-test".into(),
            mode: Some(PermissionMode::Default),
            trust_project: false,
            ask: AskPolicy::DenyAll,
            resume: None,
            settings_files: Vec::new(),
            mcp_startup_timeout: None,
        })
        .await
        .unwrap();
    let id = started.handle.session_id;
    let ticket = host
        .send_prompt(
            &id,
            &format!("What is the capital of France? See {page_url}"),
        )
        .unwrap();
    tokio::time::timeout(Duration::from_secs(60), ticket.wait())
        .await
        .expect("the exchange ends")
        .expect("the session stays open");
    let (is_error, content) = common::completed(&sink.events(), "fetch-1");
    host.close(&id).await.unwrap();
    (is_error, content, started.warnings)
}

fn allow_local(env: Value) -> Value {
    json!({"permissions": {"allow": ["WebFetch(domain:127.0.0.1)"]}, "env": env})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_small_model_answers_the_prompt_and_the_result_cites_the_page() {
    let page = page_server().await;
    let page_url = format!("{}/capitals", page.url);
    let prompt = "Which city is the capital of France?";
    let server = serve(vec![
        fetch_reply("fetch-1", &page_url, prompt),
        text_reply("msg_small", "The page says the capital of France is Paris."),
        text_reply("msg_2", "Paris."),
    ])
    .await;
    let (is_error, content, warnings) = run(
        allow_local(json!({"ANTHROPIC_SMALL_FAST_MODEL": "claude-small-test"})),
        &server,
        &page_url,
    )
    .await;
    assert!(!is_error, "{content}");
    assert!(warnings.is_empty(), "{warnings:?}");

    // Three requests: the turn, the small model, the turn again.
    let requests = server.requests.lock().unwrap().clone();
    assert_eq!(requests.len(), 3, "{requests:#?}");
    let small = &requests[1].body;
    assert_eq!(small["model"], "claude-small-test");
    assert!(
        small.get("tools").is_none(),
        "the small model gets no tools"
    );
    let messages = small["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 1);
    let sent = text_of(&messages[0]);
    assert!(sent.contains(prompt), "{sent}");
    assert!(sent.contains(&page_url), "{sent}");
    // The page as Markdown, not its HTML.
    assert!(sent.contains("# Capitals of Europe"), "{sent}");
    assert!(sent.contains("The capital of Spain is Madrid."), "{sent}");
    assert!(!sent.contains("<h1>"), "{sent}");
    // The main model keeps its own name.
    assert_eq!(requests[0].body["model"], "claude-main-test");
    assert_eq!(requests[2].body["model"], "claude-main-test");

    // The result: the small model's answer, the citation, the note.
    assert!(
        content.contains("The page says the capital of France is Paris."),
        "{content}"
    );
    assert!(
        content.contains(&format!("Source: {page_url}")),
        "{content}"
    );
    assert!(
        content.contains("claude-small-test's answer to the prompt"),
        "{content}"
    );
    assert!(
        !content.contains("Madrid"),
        "the page itself is not returned"
    );
    // What the main model got back is the same result.
    let back = serde_json::to_string(&requests[2].body["messages"]).unwrap();
    assert!(back.contains("capital of France is Paris"), "{back}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_small_model_gives_the_page_back_saying_why() {
    let page = page_server().await;
    let page_url = format!("{}/capitals", page.url);
    let server = serve(vec![
        fetch_reply("fetch-1", &page_url, "Capital of France?"),
        Reply::error(
            500,
            r#"{"type":"error","error":{"type":"api_error","message":"small model exploded"}}"#,
        ),
        text_reply("msg_2", "Paris."),
    ])
    .await;
    let (is_error, content, _) = run(
        allow_local(json!({"ANTHROPIC_SMALL_FAST_MODEL": "claude-small-test"})),
        &server,
        &page_url,
    )
    .await;
    assert!(!is_error, "the page is never lost: {content}");
    assert!(
        content.contains("The capital of Spain is Madrid."),
        "{content}"
    );
    assert!(
        content.contains("The small model claude-small-test could not apply the prompt"),
        "{content}"
    );
    assert!(content.contains("small model exploded"), "{content}");
    assert_eq!(server.requests.lock().unwrap().len(), 3, "no retries");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_small_model_the_page_is_returned_with_a_note() {
    let page = page_server().await;
    let page_url = format!("{}/capitals", page.url);
    let server = serve(vec![
        fetch_reply("fetch-1", &page_url, "Capital of France?"),
        text_reply("msg_2", "Paris."),
    ])
    .await;
    let (is_error, content, _) = run(allow_local(json!({})), &server, &page_url).await;
    assert!(!is_error, "{content}");
    assert!(
        content.contains("The capital of Spain is Madrid."),
        "{content}"
    );
    assert!(
        content.contains("No small model is configured"),
        "{content}"
    );
    assert_eq!(server.requests.lock().unwrap().len(), 2);
}

#[tokio::test]
async fn the_page_sent_is_capped_and_a_silent_model_times_out() {
    // A page longer than the cap: the model gets its start and is told.
    let server = serve(vec![
        text_reply("msg_small", "Short answer."),
        Reply::sse(vec![Part::Hang]),
    ])
    .await;
    let limits = SmallModelLimits {
        max_page_chars: 100,
        timeout: Duration::from_millis(500),
        ..SmallModelLimits::default()
    };
    let small = SmallModel::new(provider(&server), "claude-small-test".into(), limits);
    let page = format!("{}{}", "a".repeat(100), "b".repeat(400));
    let answer = small
        .apply("Summarise", "https://example.com/long", &page)
        .await
        .unwrap();
    assert_eq!(answer, "Short answer.");
    let request = server.requests.lock().unwrap()[0].body.clone();
    let sent = text_of(&request["messages"][0]);
    assert!(sent.contains(&"a".repeat(100)), "{sent}");
    assert!(!sent.contains(&"b".repeat(10)), "{sent}");
    assert!(
        sent.contains("The page is 500 characters long; only the first 100 are shown."),
        "{sent}"
    );
    assert_eq!(
        request["max_tokens"],
        SmallModelLimits::default().max_tokens
    );

    // A model that never answers: an error naming it, not a hang.
    let e = small
        .apply("Summarise", "https://example.com/long", "page")
        .await
        .unwrap_err();
    assert!(e.contains("claude-small-test did not answer within"), "{e}");
}
