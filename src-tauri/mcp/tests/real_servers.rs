//! gatehouse-mcp against real MCP servers nobody here wrote
//! (`@modelcontextprotocol/server-everything`, `server-filesystem`, a server
//! written with the Python SDK), through the full tool pipeline.

mod common;

use std::sync::Arc;
use std::time::Duration;

use gatehouse_core::registry::{GateContext, Registry};
use gatehouse_core::runtime::CallStatus;
use gatehouse_core::testing::{TestResolver, call, runtime};
use gatehouse_core::{Tool, ToolUseContext};
use gatehouse_mcp::config::McpConfig;
use gatehouse_mcp::{McpManager, ServerConfig};
use gatehouse_protocol::event::{ContentBlock, EventBody, McpServerStatus};
use serde_json::json;
use tokio_util::sync::CancellationToken;

fn manager(servers: Vec<ServerConfig>, options: &gatehouse_mcp::ServerOptions) -> McpManager {
    McpManager::start(
        &McpConfig {
            servers,
            errors: Vec::new(),
        },
        options,
        &|_| true,
    )
}

fn pool_tools(m: &McpManager) -> Vec<Arc<dyn Tool>> {
    let resolver = TestResolver::allow_all();
    let mut registry = Registry::new(GateContext::default());
    for t in m.resource_tools() {
        registry.register(t, gatehouse_core::registry::Gate::Always);
    }
    registry
        .assemble_pool(&resolver, m.tools())
        .tools()
        .cloned()
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_everything_over_stdio_tools_progress_and_resources() {
    let dir = require_servers!("server_everything_over_stdio_tools_progress_and_resources");
    let (options, sink) = common::plain_options();
    let m = manager(vec![common::everything(&dir)], &options);
    m.settled(Duration::from_secs(30)).await;
    let report = m.report();
    assert_eq!(report[0].state, McpServerStatus::Connected, "{report:?}");
    assert!(
        report[0]
            .tools
            .contains(&"mcp__everything__echo".to_owned()),
        "{report:?}"
    );
    // A connected event listing the tools was emitted.
    assert!(sink.events().iter().any(|e| matches!(&e.body,
        EventBody::McpServerState { server, state: McpServerStatus::Connected, tools, .. }
            if server == "everything" && tools.contains(&"mcp__everything__get-sum".to_owned()))));

    let tmp = tempfile::tempdir().unwrap();
    let tools = pool_tools(&m);
    let names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
    // Built-ins first (sorted), then MCP tools sorted by name.
    assert_eq!(&names[..2], ["ListMcpResources", "ReadMcpResource"]);
    let mut sorted = names[2..].to_vec();
    sorted.sort_unstable();
    assert_eq!(names[2..], sorted[..]);
    let (rt, events) = runtime(
        tools,
        Arc::new(TestResolver::allow_all()),
        Default::default(),
        tmp.path(),
    );
    let mut ctx = ToolUseContext::default();
    let cancel = CancellationToken::new();

    let r = rt
        .run_one(
            call(
                "t1",
                "mcp__everything__echo",
                json!({"message": "hi there"}),
            ),
            &mut ctx,
            &cancel,
        )
        .await;
    assert_eq!(r.status, CallStatus::Succeeded, "{r:?}");
    assert!(r.text().contains("hi there"), "{r:?}");

    // The server's JSON Schema is enforced before anything is sent.
    let r = rt
        .run_one(
            call(
                "t2",
                "mcp__everything__get-sum",
                json!({"a": "one", "b": 2}),
            ),
            &mut ctx,
            &cancel,
        )
        .await;
    assert!(matches!(r.status, CallStatus::Rejected(_)), "{r:?}");

    // Progress notifications become tool_progress events of the call.
    let r = rt
        .run_one(
            call(
                "t3",
                "mcp__everything__trigger-long-running-operation",
                json!({"duration": 0.3, "steps": 3}),
            ),
            &mut ctx,
            &cancel,
        )
        .await;
    assert_eq!(r.status, CallStatus::Succeeded, "{r:?}");
    let progress: Vec<_> = events
        .events()
        .into_iter()
        .filter_map(|e| match e.body {
            EventBody::ToolProgress { tool_use_id, data } if tool_use_id == "t3" => {
                Some(serde_json::to_value(data).unwrap())
            }
            _ => None,
        })
        .collect();
    // rmcp delivers notifications on their own tasks, so the last one can
    // race the response (and is then dropped: the call is over). At least
    // two of the three steps arrive, each once, with the total.
    assert!(
        (2..=3).contains(&progress.len()),
        "expected 2-3 progress events, got {progress:?}"
    );
    let mut steps: Vec<u64> = progress
        .iter()
        .map(|p| {
            assert_eq!(p["kind"], "mcp_progress", "{progress:?}");
            // The key the payload had before it had `kind` is still written.
            assert_eq!(p["type"], "mcp_progress", "{progress:?}");
            assert_eq!(p["total"], 3.0, "{progress:?}");
            p["progress"].as_f64().unwrap() as u64
        })
        .collect();
    steps.sort_unstable();
    steps.dedup();
    assert_eq!(steps.len(), progress.len(), "a step twice: {progress:?}");
    assert!(steps.iter().all(|s| (1..=3).contains(s)), "{progress:?}");

    // Images come back as image blocks.
    let r = rt
        .run_one(
            call("t4", "mcp__everything__get-tiny-image", json!({})),
            &mut ctx,
            &cancel,
        )
        .await;
    assert!(
        r.content.iter().any(
            |b| matches!(b, ContentBlock::Image { source } if source.media_type == "image/png")
        ),
        "{r:?}"
    );

    // Structured content and resource links map to text.
    let r = rt
        .run_one(
            call(
                "t5",
                "mcp__everything__get-resource-links",
                json!({"count": 2}),
            ),
            &mut ctx,
            &cancel,
        )
        .await;
    assert!(r.text().contains("Resource link:"), "{r:?}");

    // Resources.
    let r = rt
        .run_one(call("t6", "ListMcpResources", json!({})), &mut ctx, &cancel)
        .await;
    assert_eq!(r.status, CallStatus::Succeeded, "{r:?}");
    let listed: serde_json::Value = serde_json::from_str(&r.text()).unwrap();
    let first = &listed["resources"][0];
    assert_eq!(first["server"], "everything", "{listed}");
    let uri = first["uri"].as_str().unwrap().to_owned();
    let r = rt
        .run_one(
            call(
                "t7",
                "ReadMcpResource",
                json!({"server": "everything", "uri": uri}),
            ),
            &mut ctx,
            &cancel,
        )
        .await;
    assert_eq!(r.status, CallStatus::Succeeded, "{r:?}");
    assert!(!r.content.is_empty());
    let r = rt
        .run_one(
            call(
                "t8",
                "ReadMcpResource",
                json!({"server": "nope", "uri": "x"}),
            ),
            &mut ctx,
            &cancel,
        )
        .await;
    assert!(
        r.is_error && r.text().contains("no MCP server named `nope`"),
        "{r:?}"
    );
    m.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn annotations_count_only_for_trusted_servers() {
    let dir = require_servers!("annotations_count_only_for_trusted_servers");
    let root = tempfile::tempdir().unwrap();
    let (options, _sink) = common::plain_options();
    let untrusted = common::filesystem(&dir, root.path());
    let mut trusted = common::filesystem(&dir, root.path());
    trusted.name = "trustedfiles".into();
    trusted.trusted = true;
    let m = manager(vec![untrusted, trusted], &options);
    m.settled(Duration::from_secs(30)).await;
    let tools = m.tools();
    let find = |n: &str| {
        tools
            .iter()
            .find(|t| t.name() == n)
            .unwrap_or_else(|| panic!("{n} missing: {:?}", m.report()))
    };
    let input = json!({});
    let read = find("mcp__trustedfiles__read_text_file");
    assert!(
        read.is_read_only(&input)
            && read.is_concurrency_safe(&input)
            && !read.is_destructive(&input)
    );
    let write = find("mcp__trustedfiles__write_file");
    assert!(!write.is_read_only(&input) && write.is_destructive(&input));
    // The same read tool from an untrusted server is treated as a writer.
    let read = find("mcp__files__read_text_file");
    assert!(
        !read.is_read_only(&input)
            && !read.is_concurrency_safe(&input)
            && read.is_destructive(&input)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_server_over_stdio_and_streamable_http() {
    let dir = require_servers!("python_sdk_server_over_stdio_and_streamable_http");
    let port = common::free_port();
    let _http = common::start_python_http(&dir, port, None);
    let (options, _sink) = common::plain_options();
    let stdio = common::stdio(
        "pystdio",
        &common::python(&dir),
        &[&common::script("py_server.py"), "stdio"],
    );
    let http = common::http("pyhttp", &format!("http://127.0.0.1:{port}/mcp"));
    let m = manager(vec![stdio, http], &options);
    m.settled(Duration::from_secs(30)).await;
    let tmp = tempfile::tempdir().unwrap();
    let (rt, _events) = runtime(
        pool_tools(&m),
        Arc::new(TestResolver::allow_all()),
        Default::default(),
        tmp.path(),
    );
    let mut ctx = ToolUseContext::default();
    let cancel = CancellationToken::new();
    for server in ["pystdio", "pyhttp"] {
        let r = rt
            .run_one(
                call(
                    server,
                    &format!("mcp__{server}__add"),
                    json!({"a": 2, "b": 3}),
                ),
                &mut ctx,
                &cancel,
            )
            .await;
        assert_eq!(
            r.status,
            CallStatus::Succeeded,
            "{server}: {r:?} {:?}",
            m.report()
        );
        assert!(r.text().contains('5'), "{r:?}");
        let r = rt
            .run_one(
                call(
                    "r",
                    "ReadMcpResource",
                    json!({"server": server, "uri": "note://greeting"}),
                ),
                &mut ctx,
                &cancel,
            )
            .await;
        assert!(r.text().contains("hello from python"), "{r:?}");
    }
}
