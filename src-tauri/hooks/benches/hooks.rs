//! `cargo xtask bench hooks` (issue 18): the latency one PreToolUse hook
//! adds to a tool call. 1,000 calls of a trivial tool through the whole
//! pipeline (real engine decision included) with no hooks, with one
//! command hook running `true`, and with one HTTP hook posting to a local
//! keep-alive server on 127.0.0.1 (its own thread and runtime, answering
//! `{}`). Prints the medians, the added latency and the ratio; exits 1
//! when a target is missed (≤ 3 ms added for the command hook, ≤ 0.1 ms
//! for the HTTP hook).

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use gatehouse_core::events::{Emitter, NullSink};
use gatehouse_core::testing::{TestResolver, TestTool};
use gatehouse_core::{ToolRuntime, ToolUseBlock, ToolUseContext};
use gatehouse_hooks::{HookContext, SessionHooks, load_hooks};
use gatehouse_permissions::sources::SettingsLayout;
use gatehouse_protocol::permission::PermissionMode;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_util::sync::CancellationToken;

const CALLS: usize = 1_000;
const WARMUP: usize = 50;

fn runtime_with(project: &Path, settings: Option<String>) -> Arc<ToolRuntime> {
    let claude = project.join(".claude");
    std::fs::create_dir_all(&claude).unwrap();
    let file = claude.join("settings.json");
    match &settings {
        Some(s) => std::fs::write(&file, s).unwrap(),
        None => {
            let _ = std::fs::remove_file(&file);
        }
    }
    let mut layout = SettingsLayout::new(project, project.join("home"));
    layout.project_trusted = true;
    let hooks = SessionHooks::new(
        HookContext {
            session_id: "bench".into(),
            project: project.to_path_buf(),
            home: project.join("home"),
            transcript: None,
            emitter: Emitter::new("bench", Arc::new(NullSink)),
            secrets: None,
            mode: Arc::new(|| PermissionMode::Default),
        },
        load_hooks(&layout),
    );
    let pool = Arc::new(gatehouse_core::ToolPool::new(vec![
        TestTool::new("Echo").arc(),
    ]));
    ToolRuntime::builder(
        pool,
        Arc::new(TestResolver::allow_all()),
        project.join("session"),
    )
    .hooks(hooks.runtime_hooks())
    .build()
}

async fn median_call(rt: &Arc<ToolRuntime>) -> Duration {
    let mut ctx = ToolUseContext::default();
    let token = CancellationToken::new();
    let mut times = Vec::with_capacity(CALLS);
    for i in 0..CALLS + WARMUP {
        let block = ToolUseBlock::new(format!("t{i}"), "Echo", serde_json::json!({}));
        let started = Instant::now();
        let r = rt.run_one(block, &mut ctx, &token).await;
        let took = started.elapsed();
        assert!(!r.is_error, "{}", r.text());
        if i >= WARMUP {
            times.push(took);
        }
    }
    times.sort();
    times[times.len() / 2]
}

/// A keep-alive HTTP/1.1 server answering every request with `{}`.
fn serve() -> String {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            tx.send(listener.local_addr().unwrap()).unwrap();
            loop {
                let (mut sock, _) = listener.accept().await.unwrap();
                sock.set_nodelay(true).unwrap();
                tokio::spawn(async move {
                    let mut buf = Vec::new();
                    let mut chunk = [0u8; 16 * 1024];
                    loop {
                        let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") else {
                            match sock.read(&mut chunk).await {
                                Ok(0) | Err(_) => return,
                                Ok(n) => buf.extend_from_slice(&chunk[..n]),
                            }
                            continue;
                        };
                        let head = String::from_utf8_lossy(&buf[..end]).to_lowercase();
                        let len: usize = head
                            .lines()
                            .find_map(|l| l.strip_prefix("content-length:"))
                            .map_or(0, |v| v.trim().parse().unwrap());
                        while buf.len() < end + 4 + len {
                            match sock.read(&mut chunk).await {
                                Ok(0) | Err(_) => return,
                                Ok(n) => buf.extend_from_slice(&chunk[..n]),
                            }
                        }
                        buf.drain(..end + 4 + len);
                        let resp = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}";
                        if sock.write_all(resp).await.is_err() {
                            return;
                        }
                    }
                });
            }
        });
    });
    format!("http://{}/hook", rx.recv().unwrap())
}

/// The floor: the same POST with the same client, outside any pipeline.
async fn median_raw_post(url: &str) -> Duration {
    let client = gatehouse_hooks::http::client().unwrap();
    let body =
        serde_json::json!({"hook_event_name": "PreToolUse", "tool_name": "Echo", "tool_input": {}})
            .to_string();
    let mut times = Vec::with_capacity(CALLS);
    for i in 0..CALLS + WARMUP {
        let started = Instant::now();
        let resp = client.post(url).body(body.clone()).send().await.unwrap();
        let _ = resp.bytes().await.unwrap();
        if i >= WARMUP {
            times.push(started.elapsed());
        }
    }
    times.sort();
    times[times.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn main() -> ExitCode {
    // `cargo bench` passes --bench; nothing to filter.
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().canonicalize().unwrap();
    let url = serve();
    let (none, command, http, raw) = rt.block_on(async {
        let none = median_call(&runtime_with(&project, None)).await;
        let command = median_call(&runtime_with(
            &project,
            Some(r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "true"}]}]}}"#.into()),
        ))
        .await;
        let http = median_call(&runtime_with(
            &project,
            Some(format!(
                r#"{{"hooks": {{"PreToolUse": [{{"hooks": [{{"type": "http", "url": "{url}"}}]}}]}}}}"#
            )),
        ))
        .await;
        let raw = median_raw_post(&url).await;
        (none, command, http, raw)
    });
    let added_cmd = command.saturating_sub(none);
    let added_http = http.saturating_sub(none);
    println!("median per call over {CALLS} calls (after {WARMUP} warm-up calls):");
    println!("  no hooks:                 {:>9.4} ms", ms(none));
    println!(
        "  command hook `true`:      {:>9.4} ms  (+{:.4} ms, {:.1}×; target ≤ 3 ms added)",
        ms(command),
        ms(added_cmd),
        command.as_secs_f64() / none.as_secs_f64()
    );
    println!(
        "  http hook, keep-alive:    {:>9.4} ms  (+{:.4} ms, {:.1}×; target ≤ 0.1 ms added)",
        ms(http),
        ms(added_http),
        http.as_secs_f64() / none.as_secs_f64()
    );
    println!(
        "  (floor: the same POST with reqwest alone, no pipeline: {:.4} ms; the hook adds {:.4} ms over it)",
        ms(raw),
        ms(added_http.saturating_sub(raw))
    );
    let ok = added_cmd <= Duration::from_millis(3) && added_http <= Duration::from_micros(100);
    if ok {
        ExitCode::SUCCESS
    } else {
        println!("a target was missed");
        ExitCode::FAILURE
    }
}
