//! WebSearch against Brave-shaped and SearXNG-shaped JSON APIs served on
//! 127.0.0.1 (real HTTP; the shapes are those of the public APIs'
//! documentation), through the real pipeline.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod web_support;

use std::sync::Arc;

use gatehouse_core::registry::{Gate, GateContext, Registry};
use gatehouse_core::runtime::{CallStatus, ToolCallResult};
use gatehouse_core::testing::call;
use gatehouse_core::{Tool, ToolRuntime, ToolUseContext, Typed};
use gatehouse_protocol::permission::PermissionMode;
use gatehouse_tools::web::search::{BraveSearch, Searxng, search_client};
use gatehouse_tools::web::{SearchProvider, WebSearchTool};
use serde_json::json;
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use web_support::{Server, engine, respond, runtime};

const BRAVE_ANSWER: &str = r#"{
  "type": "search",
  "query": {"original": "rust async"},
  "web": {"type": "search", "results": [
    {"title": "Asynchronous Programming in Rust", "url": "https://rust-lang.github.io/async-book/",
     "description": "The async book.", "age": "2 days ago"},
    {"title": "Tokio", "url": "https://tokio.rs/", "description": "An asynchronous runtime."},
    {"title": "async in docs.rs", "url": "https://docs.rs/async-trait", "description": "async-trait"}
  ]}
}"#;

const SEARXNG_ANSWER: &str = r#"{
  "query": "rust async", "number_of_results": 0,
  "results": [
    {"url": "https://tokio.rs/tokio/tutorial", "title": "Tutorial | Tokio", "content": "Tokio tutorial.", "engine": "duckduckgo", "score": 1.0},
    {"url": "https://www.reddit.com/r/rust/x", "title": "r/rust", "content": "a thread", "engine": "bing"},
    {"url": "https://docs.rs/tokio", "title": "tokio - Rust", "content": "docs", "engine": "google"}
  ],
  "answers": [], "suggestions": [], "unresponsive_engines": []
}"#;

fn client() -> reqwest::Client {
    search_client(Duration::from_secs(10)).unwrap()
}

async fn search(rt: &Arc<ToolRuntime>, input: serde_json::Value) -> ToolCallResult {
    rt.run_one(
        call("search-1", "WebSearch", input),
        &mut ToolUseContext::default(),
        &CancellationToken::new(),
    )
    .await
}

fn search_runtime(provider: Arc<dyn SearchProvider>, dir: &std::path::Path) -> Arc<ToolRuntime> {
    let tool = Typed::arc(WebSearchTool::new(Some(provider)));
    // An allow rule for the tool: searching asks otherwise (it reaches out).
    let rules = engine(dir, &["WebSearch"], &[], PermissionMode::Default);
    runtime(tool, rules, None, dir).0
}

#[tokio::test]
async fn brave_results_are_links_and_the_key_is_sent_as_its_header() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(|req, stream| async move {
        assert!(req.path.starts_with("/res/v1/web/search?"), "{}", req.path);
        assert!(req.path.contains("q=rust+async"), "{}", req.path);
        assert_eq!(req.header("x-subscription-token"), Some("secret-key"));
        respond(
            stream,
            "200 OK",
            &[("Content-Type", "application/json")],
            BRAVE_ANSWER.as_bytes(),
        )
        .await;
    })
    .await;
    let brave = BraveSearch::new(&server.url("/"), "secret-key".into(), client()).unwrap();
    assert!(
        !format!("{brave:?}").contains("secret-key"),
        "the key is never printed"
    );
    let rt = search_runtime(Arc::new(brave), dir.path());
    let result = search(&rt, json!({"query": "rust async"})).await;
    let text = result.text();
    assert_eq!(result.status, CallStatus::Succeeded, "{text}");
    assert!(text.contains("(Brave Search)"), "{text}");
    assert!(
        text.contains(
            "1. [Asynchronous Programming in Rust](https://rust-lang.github.io/async-book/)"
        ),
        "{text}"
    );
    assert!(text.contains("   An asynchronous runtime."), "{text}");
}

#[tokio::test]
async fn searxng_results_are_filtered_by_allowed_and_blocked_domains() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(|req, stream| async move {
        assert!(req.path.starts_with("/searx/search?"), "{}", req.path);
        assert!(req.path.contains("format=json"), "{}", req.path);
        respond(
            stream,
            "200 OK",
            &[("Content-Type", "application/json")],
            SEARXNG_ANSWER.as_bytes(),
        )
        .await;
    })
    .await;
    let searx: Arc<dyn SearchProvider> =
        Arc::new(Searxng::new(&server.url("/searx"), client()).unwrap());
    let rt = search_runtime(searx, dir.path());
    let all = search(&rt, json!({"query": "rust async"})).await.text();
    assert!(
        all.contains("[Tutorial | Tokio](https://tokio.rs/tokio/tutorial)"),
        "{all}"
    );
    assert!(all.contains("(SearXNG)"), "{all}");

    let allowed = search(
        &rt,
        json!({"query": "rust async", "allowed_domains": ["tokio.rs", "docs.rs"]}),
    )
    .await
    .text();
    assert!(
        allowed.contains("tokio.rs/tokio/tutorial") && allowed.contains("docs.rs/tokio"),
        "{allowed}"
    );
    assert!(!allowed.contains("reddit"), "{allowed}");
    assert!(allowed.contains("1 results were dropped"), "{allowed}");

    let blocked = search(
        &rt,
        json!({"query": "rust async", "blocked_domains": ["reddit.com"]}),
    )
    .await
    .text();
    assert!(
        !blocked.contains("reddit"),
        "www.reddit.com is a sub-domain of reddit.com: {blocked}"
    );
    assert!(blocked.contains("docs.rs/tokio"), "{blocked}");
}

#[tokio::test]
async fn api_errors_name_the_provider_and_the_cause() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(|req, stream| async move {
        let status = match req.path.split('?').next().unwrap() {
            "/401/res/v1/web/search" => "401 Unauthorized",
            "/429/res/v1/web/search" => "429 Too Many Requests",
            "/500/res/v1/web/search" => "500 Internal Server Error",
            _ => {
                respond(
                    stream,
                    "200 OK",
                    &[("Content-Type", "application/json")],
                    b"<html>not json",
                )
                .await;
                return;
            }
        };
        respond(
            stream,
            status,
            &[("Content-Type", "application/json")],
            br#"{"error": "x"}"#,
        )
        .await;
    })
    .await;
    for (base, expected) in [
        ("/401/", "401 Unauthorized (the API key was refused"),
        ("/429/", "429 Too Many Requests (rate limited"),
        (
            "/500/",
            "500 Internal Server Error (the search service failed)",
        ),
        ("/garbage/", "is not the JSON expected"),
    ] {
        let brave = BraveSearch::new(&server.url(base), "k".into(), client()).unwrap();
        let rt = search_runtime(Arc::new(brave), dir.path());
        let result = search(&rt, json!({"query": "anything"})).await;
        assert_eq!(result.status, CallStatus::Failed, "{base}");
        let text = result.text();
        assert!(text.contains("Brave Search"), "{base}: {text}");
        assert!(text.contains(expected), "{base}: {text}");
    }
    // Nobody listening: a connection error, named.
    let searx = Searxng::new("http://127.0.0.1:9/", client()).unwrap();
    let rt = search_runtime(Arc::new(searx), dir.path());
    let text = search(&rt, json!({"query": "anything"})).await.text();
    assert!(text.contains("SearXNG could not be reached"), "{text}");
}

#[tokio::test]
async fn without_a_provider_the_tool_is_gated_out_of_the_pool() {
    let rules = engine(
        tempfile::tempdir().unwrap().path(),
        &[],
        &[],
        PermissionMode::Default,
    );
    let mut registry = Registry::new(GateContext::from_process(Vec::new()));
    let off: Arc<dyn Tool> = Typed::arc(WebSearchTool::new(None));
    assert!(!off.is_enabled());
    registry.register(off, Gate::Always);
    let pool = registry.assemble_pool(rules.as_ref(), Vec::new());
    assert!(
        pool.lookup("WebSearch").is_none(),
        "a disabled tool is not in the pool"
    );

    let searx: Arc<dyn SearchProvider> =
        Arc::new(Searxng::new("http://127.0.0.1:9/", client()).unwrap());
    let mut registry = Registry::new(GateContext::from_process(Vec::new()));
    registry.register(Typed::arc(WebSearchTool::new(Some(searx))), Gate::Always);
    let pool = registry.assemble_pool(rules.as_ref(), Vec::new());
    assert!(pool.lookup("WebSearch").is_some());
}

#[tokio::test]
async fn a_bad_query_or_domain_is_refused_before_searching() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(|_, stream| async move {
        respond(
            stream,
            "200 OK",
            &[("Content-Type", "application/json")],
            b"{}",
        )
        .await;
    })
    .await;
    let searx: Arc<dyn SearchProvider> =
        Arc::new(Searxng::new(&server.url("/"), client()).unwrap());
    let rt = search_runtime(searx, dir.path());
    let short = search(&rt, json!({"query": "x"})).await;
    assert!(
        matches!(short.status, CallStatus::Rejected(_)),
        "{:?}",
        short.status
    );
    let bad = search(
        &rt,
        json!({"query": "rust", "allowed_domains": ["not a domain"]}),
    )
    .await;
    assert!(
        bad.text().contains("`not a domain` in `allowed_domains`"),
        "{}",
        bad.text()
    );
    assert!(server.seen().is_empty(), "nothing was searched");
}
