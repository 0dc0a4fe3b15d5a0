//! Claude Code's `_meta` keys on a server's tools (issue 21): a real stdio
//! server (the fault server) marks `stats` with `"anthropic/alwaysLoad":
//! true` and an `"anthropic/searchHint"`; the tool is then never deferred
//! and ToolSearch's scoring sees the hint. Its other tools carry neither.

mod common;

use std::time::Duration;

use gatehouse_core::deferral::is_deferred_tool;
use gatehouse_mcp::McpManager;
use gatehouse_mcp::config::McpConfig;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn always_load_and_search_hint_come_from_the_tools_meta() {
    let (options, _sink) = common::plain_options();
    let m = McpManager::start(
        &McpConfig {
            servers: vec![common::fault(&[])],
            errors: Vec::new(),
        },
        &options,
        &|_| true,
    );
    m.settled(Duration::from_secs(20)).await;
    let tools = m.tools();
    let find = |name: &str| {
        tools
            .iter()
            .find(|t| t.name() == name)
            .unwrap_or_else(|| panic!("{name} listed"))
    };
    let stats = find("mcp__fault__stats");
    assert!(stats.always_load());
    assert_eq!(stats.search_hint(), Some("request counters"));
    assert!(
        !is_deferred_tool(stats.as_ref()),
        "always-load is never deferred"
    );

    let echo = find("mcp__fault__echo");
    assert!(!echo.always_load());
    assert_eq!(echo.search_hint(), None);
    assert!(is_deferred_tool(echo.as_ref()), "MCP tools are deferred");
    m.shutdown();
}
