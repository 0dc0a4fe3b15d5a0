//! gatehouse-mcp against misbehaving servers: a crash mid-call (then a
//! reconnect), a hang (per-call timeout), malformed JSON, a 20 MB result
//! (through the result budget), a broken handshake, a server that never
//! starts (startup timeout), tools/list_changed, and bearer-header auth
//! whose secret must not leak into events.
//!
//! The fault server is standard-library Python: those tests need only
//! `python3` and always run (they fail, saying so, without it). Only the
//! bearer test needs the installed Python SDK (`GATEHOUSE_MCP_TEST_SERVERS`).

mod common;

use std::sync::Arc;
use std::time::Duration;

use gatehouse_core::ToolUseContext;
use gatehouse_core::runtime::CallStatus;
use gatehouse_core::testing::{TestResolver, call, runtime};
use gatehouse_mcp::config::{McpConfig, ServerTransport};
use gatehouse_mcp::secrets::{MemorySecrets, header_account};
use gatehouse_mcp::{McpManager, ServerConfig, ServerOptions};
use gatehouse_protocol::event::{EventBody, McpServerStatus};
use serde_json::json;
use tokio_util::sync::CancellationToken;

fn manager(servers: Vec<ServerConfig>, options: &ServerOptions) -> McpManager {
    McpManager::start(
        &McpConfig {
            servers,
            errors: Vec::new(),
        },
        options,
        &|_| true,
    )
}

fn fault(args: &[&str]) -> ServerConfig {
    common::fault(args)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crash_mid_call_fails_the_call_then_the_server_reconnects() {
    let (options, sink) = common::plain_options();
    let m = manager(vec![fault(&[])], &options);
    m.settled(Duration::from_secs(20)).await;
    let tmp = tempfile::tempdir().unwrap();
    let (rt, _) = runtime(
        m.tools(),
        Arc::new(TestResolver::allow_all()),
        Default::default(),
        tmp.path(),
    );
    let mut ctx = ToolUseContext::default();
    let cancel = CancellationToken::new();
    let r = rt
        .run_one(
            call("c1", "mcp__fault__crash", json!({})),
            &mut ctx,
            &cancel,
        )
        .await;
    assert_eq!(r.status, CallStatus::Failed, "{r:?}");
    assert!(r.text().contains("closed the connection"), "{r:?}");
    // The next call waits for the restart and succeeds.
    let r = rt
        .run_one(
            call("c2", "mcp__fault__echo", json!({"text": "back"})),
            &mut ctx,
            &cancel,
        )
        .await;
    assert_eq!(r.status, CallStatus::Succeeded, "{r:?}");
    assert_eq!(r.text(), "back");
    let states: Vec<McpServerStatus> = sink
        .events()
        .into_iter()
        .filter_map(|e| match e.body {
            EventBody::McpServerState { state, .. } => Some(state),
            _ => None,
        })
        .collect();
    use McpServerStatus::{Connected, Connecting};
    assert_eq!(
        states[..4],
        [Connecting, Connected, Connecting, Connected],
        "{states:?}"
    );
    // The stderr tail was captured.
    assert!(
        m.report()[0]
            .stderr
            .iter()
            .any(|l| l == "fault server starting"),
        "{:?}",
        m.report()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hangs_hit_the_call_timeout_and_interrupts_cancel() {
    let (options, _) = common::plain_options();
    let mut config = fault(&[]);
    config.call_timeout = Duration::from_millis(500);
    let m = manager(vec![config], &options);
    m.settled(Duration::from_secs(20)).await;
    let tmp = tempfile::tempdir().unwrap();
    let (rt, _) = runtime(
        m.tools(),
        Arc::new(TestResolver::allow_all()),
        Default::default(),
        tmp.path(),
    );
    let mut ctx = ToolUseContext::default();
    let r = rt
        .run_one(
            call("h1", "mcp__fault__hang", json!({})),
            &mut ctx,
            &CancellationToken::new(),
        )
        .await;
    // A timeout is reported as one (`tool_completed` status `timed_out`).
    assert_eq!(r.status, CallStatus::TimedOut, "{r:?}");
    assert!(r.text().contains("did not answer within 0.5 s"), "{r:?}");
    // A user interrupt stops a hanging call (MCP tools cancel).
    let interrupt = CancellationToken::new();
    let stop = interrupt.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        stop.cancel();
    });
    let mut config = fault(&[]);
    config.name = "fault2".into();
    let m2 = manager(vec![config], &options);
    m2.settled(Duration::from_secs(20)).await;
    let (rt2, _) = runtime(
        m2.tools(),
        Arc::new(TestResolver::allow_all()),
        Default::default(),
        tmp.path(),
    );
    let r = rt2
        .run_one(
            call("h2", "mcp__fault2__hang", json!({})),
            &mut ctx,
            &interrupt,
        )
        .await;
    assert_eq!(r.status, CallStatus::Interrupted, "{r:?}");
    // The server still works after both.
    let r = rt
        .run_one(
            call("h3", "mcp__fault__echo", json!({"text": "ok"})),
            &mut ctx,
            &CancellationToken::new(),
        )
        .await;
    assert_eq!(r.text(), "ok", "{r:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_json_big_results_and_list_changed() {
    let (options, sink) = common::plain_options();
    let m = manager(vec![fault(&[])], &options);
    m.settled(Duration::from_secs(20)).await;
    let tmp = tempfile::tempdir().unwrap();
    let (rt, _) = runtime(
        m.tools(),
        Arc::new(TestResolver::allow_all()),
        Default::default(),
        tmp.path(),
    );
    let mut ctx = ToolUseContext::default();
    let cancel = CancellationToken::new();
    // A garbage line does not take the call (or the process) down.
    let r = rt
        .run_one(
            call("m1", "mcp__fault__malformed", json!({})),
            &mut ctx,
            &cancel,
        )
        .await;
    assert!(
        r.status == CallStatus::Succeeded || r.status == CallStatus::Failed,
        "{r:?}"
    );
    let r = rt
        .run_one(
            call("m2", "mcp__fault__echo", json!({"text": "still here"})),
            &mut ctx,
            &cancel,
        )
        .await;
    assert_eq!(r.text(), "still here", "{r:?}");
    // 20 MB goes through the budget: spilled to disk, a preview for the model.
    let r = rt
        .run_one(call("m3", "mcp__fault__big", json!({})), &mut ctx, &cancel)
        .await;
    assert_eq!(r.status, CallStatus::Succeeded, "{r:?}");
    let path = r.persisted_path.clone().expect("spilled");
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 20 * 1024 * 1024);
    assert!(r.text().len() < 10_000);
    // tools/list_changed refreshes the server's tools.
    assert!(
        !m.report()[0]
            .tools
            .contains(&"mcp__fault__extra".to_owned())
    );
    // `tools_changed` (what a session waits on to rebuild its pool) fires.
    let (r, changed) = tokio::join!(
        rt.run_one(
            call("m4", "mcp__fault__add_tool", json!({})),
            &mut ctx,
            &cancel,
        ),
        tokio::time::timeout(Duration::from_secs(10), m.tools_changed()),
    );
    assert_eq!(r.text(), "added");
    changed.expect("tools_changed fired");
    let mut rx = m.servers().get("fault").unwrap().subscribe();
    tokio::time::timeout(
        Duration::from_secs(10),
        rx.wait_for(|s| {
            s.tools
                .iter()
                .any(|t| t.qualified_name == "mcp__fault__extra")
        }),
    )
    .await
    .expect("tool list refreshed")
    .unwrap();
    let names: Vec<String> = m.tools().iter().map(|t| t.name().to_owned()).collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted, "tools stay in a stable (sorted) order");
    assert!(sink.events().iter().any(|e| matches!(&e.body,
        EventBody::McpServerState { tools, message: Some(m), .. } if m == "tool list changed" && tools.contains(&"mcp__fault__extra".to_owned()))));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn broken_handshakes_missing_commands_and_slow_starts_fail_with_reasons() {
    let (options, _) = common::plain_options();
    let mut bad = fault(&["bad-handshake"]);
    // rmcp skips the garbage line and keeps waiting: the startup timeout
    // ends it.
    bad.startup_timeout = Duration::from_secs(2);
    let mut slow = common::stdio("slow", "sleep", &["30"]);
    slow.startup_timeout = Duration::from_millis(500);
    let missing = common::stdio("missing", "/nonexistent/mcp-server", &[]);
    let mut disabled = common::stdio("off", "true", &[]);
    disabled.disabled = true;
    let m = manager(vec![bad, slow, missing, disabled], &options);
    m.settled(Duration::from_secs(20)).await;
    let report = m.report();
    let by = |n: &str| report.iter().find(|r| r.name == n).unwrap().clone();
    assert_eq!(by("fault").state, McpServerStatus::Failed, "{report:?}");
    assert_eq!(by("slow").state, McpServerStatus::Failed);
    assert!(
        by("slow").message.unwrap().contains("within 0.5 s"),
        "{report:?}"
    );
    let missing = by("missing");
    assert_eq!(missing.state, McpServerStatus::Failed);
    assert!(
        missing
            .message
            .unwrap()
            .contains("cannot start `/nonexistent/mcp-server`")
    );
    assert_eq!(by("off").state, McpServerStatus::Disabled);
    assert!(m.tools().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bearer_headers_come_from_the_keychain_and_never_reach_events() {
    let dir = require_servers!("bearer_headers_come_from_the_keychain_and_never_reach_events");
    let secret = "tok-4f9d2c7e-very-secret";
    let port = common::free_port();
    let _server = common::start_python_http(&dir, port, Some(secret));
    let url = format!("http://127.0.0.1:{port}/mcp");
    let with_header = |name: &str| {
        let mut c = common::http(name, &url);
        c.transport = ServerTransport::Http {
            url: url.clone(),
            headers: Default::default(),
            secret_headers: vec!["Authorization".into()],
        };
        // Keychain references come only from Gatehouse's own list (or a
        // project file, with project-scoped accounts).
        c.scope = gatehouse_mcp::config::ConfigScope::Gatehouse;
        c
    };
    let mut secrets = MemorySecrets::default();
    secrets.0.insert(
        header_account("good", "Authorization"),
        format!("Bearer {secret}"),
    );
    secrets.0.insert(
        header_account("wrong", "Authorization"),
        "Bearer nope".into(),
    );
    let (options, sink) = common::options(Arc::new(secrets));
    let m = manager(
        vec![
            with_header("good"),
            with_header("wrong"),
            with_header("absent"),
        ],
        &options,
    );
    m.settled(Duration::from_secs(20)).await;
    let report = m.report();
    let by = |n: &str| report.iter().find(|r| r.name == n).unwrap().clone();
    assert_eq!(by("good").state, McpServerStatus::Connected, "{report:?}");
    assert_eq!(by("wrong").state, McpServerStatus::NeedsAuth, "{report:?}");
    assert_eq!(by("absent").state, McpServerStatus::NeedsAuth, "{report:?}");
    assert!(by("absent").message.unwrap().contains("keychain"));
    let tmp = tempfile::tempdir().unwrap();
    let (rt, events) = runtime(
        m.tools(),
        Arc::new(TestResolver::allow_all()),
        Default::default(),
        tmp.path(),
    );
    let r = rt
        .run_one(
            call("a1", "mcp__good__add", json!({"a": 1, "b": 1})),
            &mut ToolUseContext::default(),
            &CancellationToken::new(),
        )
        .await;
    assert_eq!(r.status, CallStatus::Succeeded, "{r:?}");
    // No event, no report, no debug output carries the secret.
    let mut everything = String::new();
    for e in sink.events().into_iter().chain(events.events()) {
        everything.push_str(&serde_json::to_string(&e).unwrap());
    }
    everything.push_str(&serde_json::to_string(&m.report()).unwrap());
    everything.push_str(&format!("{m:?}"));
    assert!(!everything.contains(secret), "the secret leaked");
    assert!(!everything.contains("4f9d2c7e"));
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stdio_servers_whole_process_group_dies_with_the_session() {
    let tmp = tempfile::tempdir().unwrap();
    let pid_file = tmp.path().join("grandchild.pid");
    // The server starts a grandchild (in its process group) and records its pid.
    let script = format!(
        "sleep 300 & echo $! > '{}'; exec python3 '{}'",
        pid_file.display(),
        common::script("fault_server.py")
    );
    let (options, _) = common::plain_options();
    let m = manager(
        vec![common::stdio("fault", "sh", &["-c", &script])],
        &options,
    );
    m.settled(Duration::from_secs(20)).await;
    assert_eq!(
        m.report()[0].state,
        McpServerStatus::Connected,
        "{:?}",
        m.report()
    );
    let pid: u32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let alive = |pid: u32| {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .is_ok_and(|stat| stat.split_whitespace().nth(2).is_none_or(|s| s != "Z"))
    };
    assert!(alive(pid));
    drop(m); // the session ends
    for _ in 0..100 {
        if !alive(pid) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the server's grandchild {pid} outlived the session");
}

/// A key in an HTTP server's URL (`?apiKey=${KEY}`, expanded from the
/// environment) stays out of its state message and the events, which are
/// stored and shown; the message still says which server could not be
/// reached. Before: "cannot connect to http://…/mcp?apiKey=<the key>: …".
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_in_an_http_servers_url_never_reaches_its_state() {
    let key = "k3y-9b1e77d0-in-the-url";
    // Nothing listens there: the connection is refused.
    let port = common::free_port();
    let url = format!("http://127.0.0.1:{port}/mcp?apiKey={key}");
    let (options, sink) = common::plain_options();
    let m = manager(vec![common::http("keyed", &url)], &options);
    m.settled(Duration::from_secs(20)).await;
    let report = m.report();
    assert_eq!(report[0].state, McpServerStatus::Failed, "{report:?}");
    let message = report[0].message.clone().unwrap_or_default();
    assert!(
        message.contains(&format!("http://127.0.0.1:{port}/mcp (its query")),
        "{message}"
    );
    assert!(!message.contains(key), "{message}");
    let events = serde_json::to_string(&sink.events()).unwrap();
    assert!(events.contains("keyed"), "{events}");
    assert!(!events.contains(key), "{events}");
}

/// A stdio server that prints the keychain value it was given and exits:
/// its stderr goes into the failure message, which is stored and shown,
/// so the value is replaced there. Before: "token tok-… is bad" in it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_keychain_value_a_failing_server_prints_stays_out_of_its_state() {
    let secret = "tok-51c0ffee-from-the-keychain";
    let mut config = common::stdio(
        "echoes",
        "sh",
        &["-c", "echo \"token $API_TOKEN is bad\" >&2; exit 3"],
    );
    config.scope = gatehouse_mcp::config::ConfigScope::Gatehouse;
    if let ServerTransport::Stdio { secret_env, .. } = &mut config.transport {
        secret_env.push("API_TOKEN".into());
    }
    let account = gatehouse_mcp::secrets::server_secret_account(
        &config,
        gatehouse_mcp::secrets::SecretKind::Env,
        "API_TOKEN",
    )
    .unwrap();
    let mut secrets = MemorySecrets::default();
    secrets.0.insert(account, secret.into());
    let (options, sink) = common::options(Arc::new(secrets));
    let m = manager(vec![config], &options);
    m.settled(Duration::from_secs(20)).await;
    let report = m.report();
    assert_eq!(report[0].state, McpServerStatus::Failed, "{report:?}");
    let message = report[0].message.clone().unwrap_or_default();
    assert!(
        message.contains("token [a keychain secret] is bad"),
        "{message}"
    );
    let events = serde_json::to_string(&sink.events()).unwrap();
    assert!(!events.contains(secret), "{events}");
}
