//! Issue 17: a stdio server that fails its handshake is explained in the
//! user's terms (how it ended, its own stderr), never with rmcp's internal
//! type names. Real processes (`sh`); no MCP test servers needed.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use gatehouse_mcp::McpManager;
use gatehouse_mcp::config::McpConfig;
use gatehouse_protocol::event::McpServerStatus;

async fn failed_message(args: &[&str]) -> (String, Vec<String>) {
    let (options, _sink) = common::plain_options();
    let m = McpManager::start(
        &McpConfig {
            servers: vec![common::stdio("broken", "sh", args)],
            errors: Vec::new(),
        },
        &options,
        &|_| true,
    );
    m.settled(Duration::from_secs(20)).await;
    let report = m.report().remove(0);
    assert_eq!(report.state, McpServerStatus::Failed, "{report:?}");
    m.shutdown();
    (report.message.unwrap_or_default(), report.stderr)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_exits_is_named_with_its_status_and_its_stderr() {
    let (message, stderr) = failed_message(&[
        "-c",
        "echo 'fatal: no config file' >&2; echo 'see --help' >&2; exit 3",
    ])
    .await;
    assert!(
        message.starts_with("`sh` exited (exit status 3) before it answered as an MCP server."),
        "{message}"
    );
    assert!(
        message.ends_with("Its last error output: fatal: no config file | see --help"),
        "{message}"
    );
    assert!(!message.contains("rmcp"), "{message}");
    assert!(!message.contains("Transport"), "{message}");
    assert_eq!(stderr, ["fatal: no config file", "see --help"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_says_nothing_is_said_to_have_said_nothing() {
    let (message, _) = failed_message(&["-c", "exit 1"]).await;
    assert_eq!(
        message,
        "`sh` exited (exit status 1) before it answered as an MCP server. \
         It wrote nothing to its error output."
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_program_that_is_not_an_mcp_server_is_called_so() {
    let (message, _) = failed_message(&[
        "-c",
        "read line; echo '{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":42}'; sleep 5",
    ])
    .await;
    assert!(
        message.contains("answered with something that is not an MCP response"),
        "{message}"
    );
    assert!(!message.contains("rmcp"), "{message}");
}
