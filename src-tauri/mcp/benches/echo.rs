//! 1,000 `echo` calls of `@modelcontextprotocol/server-everything` (stdio)
//! through Gatehouse's full pipeline (lookup, schema validation, permission,
//! McpTool, result mapping, budget, events) versus 1,000 direct rmcp client
//! calls to the same kind of server, in the same run. Target: ratio ≤ 1.2.
//!
//! Needs the server installed: `GATEHOUSE_MCP_TEST_SERVERS` (set by
//! `cargo xtask test`) or `target/mcp-servers` (created by `cargo xtask
//! test`). Prints a skip message when neither exists.
//!
//! Each side runs 7 rounds of 1,000 sequential calls, alternating, and the
//! medians are compared.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use gatehouse_core::events::{Emitter, NullSink};
use gatehouse_core::registry::{GateContext, Registry};
use gatehouse_core::testing::{TestResolver, call};
use gatehouse_core::{ToolRuntime, ToolUseContext};
use gatehouse_mcp::config::{ConfigScope, McpConfig, ServerTransport};
use gatehouse_mcp::secrets::NoSecrets;
use gatehouse_mcp::{McpManager, ServerConfig, ServerOptions};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use serde_json::json;
use tokio_util::sync::CancellationToken;

const CALLS: usize = 1_000;
const ROUNDS: usize = 7;

fn server_js() -> Option<PathBuf> {
    let dir = std::env::var_os("GATEHOUSE_MCP_TEST_SERVERS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/mcp-servers")
        });
    let js = dir.join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    js.exists().then_some(js)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(v: &[Duration]) -> Vec<u128> {
    v.iter().map(Duration::as_millis).collect()
}

fn main() {
    let Some(js) = server_js() else {
        eprintln!(
            "SKIPPED echo bench: server-everything is not installed (run `cargo xtask test` once)"
        );
        return;
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let ratio = rt.block_on(async move {
        // Direct: a bare rmcp client over rmcp's own child-process transport.
        let mut cmd = tokio::process::Command::new("node");
        cmd.arg(&js).arg("stdio");
        let transport = rmcp::transport::TokioChildProcess::new(cmd).unwrap();
        let direct = ().serve(transport).await.unwrap();
        let args = json!({"message": "hello"}).as_object().cloned().unwrap();

        // Pipeline: the same server through gatehouse-mcp and the runtime.
        let config = ServerConfig {
            name: "everything".into(),
            scope: ConfigScope::User,
            file: PathBuf::from("bench"),
            transport: ServerTransport::Stdio {
                command: "node".into(),
                args: vec![js.display().to_string(), "stdio".into()],
                env: Default::default(),
                secret_env: Vec::new(),
            },
            disabled: false,
            trusted: true,
            startup_timeout: Duration::from_secs(30),
            call_timeout: Duration::from_secs(30),
            entry: json!({"command": "node"}),
        };
        let options = ServerOptions {
            cwd: std::env::temp_dir(),
            secrets: Arc::new(NoSecrets),
            emitter: Emitter::new("bench", Arc::new(NullSink)),
        };
        let m = McpManager::start(
            &McpConfig {
                servers: vec![config],
                errors: vec![],
            },
            &options,
            &|_| true,
        );
        m.settled(Duration::from_secs(30)).await;
        let resolver = Arc::new(TestResolver::allow_all());
        let pool =
            Registry::new(GateContext::default()).assemble_pool(resolver.as_ref(), m.tools());
        let dir = tempfile::tempdir().unwrap();
        let runtime = ToolRuntime::builder(Arc::new(pool), resolver, dir.path()).build();
        let cancel = CancellationToken::new();
        let mut ctx = ToolUseContext::default();
        let echo = |i: usize| {
            call(
                &format!("t{i}"),
                "mcp__everything__echo",
                json!({"message": "hello"}),
            )
        };

        // Warm-up.
        for i in 0..50 {
            direct
                .peer()
                .call_tool(CallToolRequestParams::new("echo").with_arguments(args.clone()))
                .await
                .unwrap();
            let r = runtime.run_one(echo(i), &mut ctx, &cancel).await;
            assert!(!r.is_error, "{r:?}");
        }
        let (mut d, mut p) = (Vec::new(), Vec::new());
        for _ in 0..ROUNDS {
            let t = Instant::now();
            for _ in 0..CALLS {
                direct
                    .peer()
                    .call_tool(CallToolRequestParams::new("echo").with_arguments(args.clone()))
                    .await
                    .unwrap();
            }
            d.push(t.elapsed());
            let t = Instant::now();
            for i in 0..CALLS {
                let r = runtime.run_one(echo(i), &mut ctx, &cancel).await;
                assert!(!r.is_error);
            }
            p.push(t.elapsed());
        }
        let (dm, pm) = (median(d.clone()), median(p.clone()));
        let ratio = pm.as_secs_f64() / dm.as_secs_f64();
        let per_call = |x: Duration| x.as_secs_f64() * 1e6 / CALLS as f64;
        println!("echo bench: {CALLS} calls x {ROUNDS} rounds, medians");
        println!(
            "  direct rmcp client : {:>8.1} ms ({:.1} µs/call), rounds (ms) {:?}",
            dm.as_secs_f64() * 1e3,
            per_call(dm),
            ms(&d)
        );
        println!(
            "  gatehouse pipeline : {:>8.1} ms ({:.1} µs/call), rounds (ms) {:?}",
            pm.as_secs_f64() * 1e3,
            per_call(pm),
            ms(&p)
        );
        println!(
            "  ratio pipeline/direct: {ratio:.3} (target <= 1.2): {}",
            if ratio <= 1.2 { "OK" } else { "MISSED" }
        );
        m.shutdown();
        ratio
    });
    drop(rt);
    if ratio > 1.2 {
        std::process::exit(1);
    }
}
