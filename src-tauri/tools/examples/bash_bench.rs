//! Throughput benchmark for the Bash tool (issue 6, item 8).
//!
//! Runs `yes | head -c 200000000` through the full tool pipeline and the
//! same command in a plain `bash -c` whose output is read and discarded,
//! and reports the wall-time ratio, the process's peak memory growth during
//! the tool run, and the rate of `tool_progress` events.
//!
//! `cargo run -p gatehouse-tools --example bash_bench [--release] [-- BYTES]`
//! Exits with status 1 when a target is missed (ratio ≤ 1.5, growth ≤ 64 MiB).

use std::io::Read;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use gatehouse_core::events::{Emitter, EventSink, NullSink};
use gatehouse_core::permission::{PermissionQuery, PermissionResolver};
use gatehouse_core::{ToolPool, ToolRuntime, ToolUseBlock, ToolUseContext};
use gatehouse_protocol::event::{Event, EventBody};
use gatehouse_protocol::permission::{DecisionReason, PermissionBehavior, PermissionDecision};
use gatehouse_tools::bash::{BashConfig, shell_tools};
use gatehouse_tools::tasks::TaskManager;
use tokio_util::sync::CancellationToken;

/// Runs of each side; the best is reported.
const RUNS: usize = 5;

/// Counts `tool_progress` events carrying output.
#[derive(Default)]
struct Counter {
    progress: AtomicU64,
}

impl EventSink for Counter {
    fn emit(&self, event: Event) {
        if let EventBody::ToolProgress {
            data: gatehouse_protocol::progress::ToolProgressData::BashOutput { .. },
            ..
        } = &event.body
        {
            self.progress.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Allows everything.
struct AllowAll;

impl PermissionResolver for AllowAll {
    fn is_blanket_denied(&self, _tool_name: &str) -> bool {
        false
    }
    fn decide(&self, _query: &PermissionQuery<'_>) -> PermissionDecision {
        PermissionDecision {
            decision: PermissionBehavior::Allow,
            reason: DecisionReason::Default {
                message: "benchmark".into(),
            },
            trace: Vec::new(),
        }
    }
}

/// A `/proc/self/status` field in KiB.
fn status_kib(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

fn plain(command: &str) -> std::io::Result<(f64, u64)> {
    let started = Instant::now();
    let mut child = std::process::Command::new("bash")
        .arg("-c")
        .arg(command)
        .stdout(std::process::Stdio::piped())
        .spawn()?;
    let mut total = 0_u64;
    if let Some(mut out) = child.stdout.take() {
        let mut buf = vec![0_u8; 64 * 1024];
        loop {
            let n = out.read(&mut buf)?;
            if n == 0 {
                break;
            }
            total += n as u64;
        }
    }
    child.wait()?;
    Ok((started.elapsed().as_secs_f64(), total))
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let bytes: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(200_000_000);
    let command = format!("yes | head -c {bytes}");
    let dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("no temp dir: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let counter = Arc::new(Counter::default());
    let tasks = TaskManager::new(
        dir.path().join("tasks"),
        Emitter::new("b", Arc::new(NullSink)),
    );
    let tools = shell_tools(tasks, BashConfig::new(dir.path().join("bash")));
    let rt = ToolRuntime::builder(
        Arc::new(ToolPool::new(tools)),
        Arc::new(AllowAll),
        dir.path(),
    )
    .session_id("bench")
    .event_sink(counter.clone())
    .build();
    let mut ctx = ToolUseContext {
        cwd: dir.path().to_path_buf(),
        session_id: "bench".into(),
        ..ToolUseContext::default()
    };

    // Interleaved runs, best of each: the machine may be shared and busy.
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    let rss_before = status_kib("VmRSS:");
    let mut plain_s = f64::MAX;
    let mut plain_bytes = 0;
    let mut tool_s = f64::MAX;
    let mut events = 0;
    let mut on_disk = 0;
    let mut status = None;
    for run in 0..RUNS {
        match plain(&command) {
            Ok((s, b)) => {
                plain_s = plain_s.min(s);
                plain_bytes = b;
            }
            Err(e) => {
                eprintln!("plain bash failed: {e}");
                return std::process::ExitCode::FAILURE;
            }
        }
        let id = format!("bench-{run}");
        let before = counter.progress.load(Ordering::Relaxed);
        let started = Instant::now();
        let result = rt
            .run_one(
                ToolUseBlock::new(
                    id.as_str(),
                    "Bash",
                    serde_json::json!({ "command": command, "timeout": 600_000 }),
                ),
                &mut ctx,
                &CancellationToken::new(),
            )
            .await;
        let took = started.elapsed().as_secs_f64();
        if took < tool_s {
            tool_s = took;
            events = counter.progress.load(Ordering::Relaxed) - before;
        }
        status = Some(result.status);
        on_disk = std::fs::metadata(dir.path().join(format!("bash/{id}.log")))
            .map(|m| m.len())
            .unwrap_or(0);
        let _ = std::fs::remove_file(dir.path().join(format!("bash/{id}.log")));
    }
    let peak = status_kib("VmHWM:");
    let growth_mib = peak.saturating_sub(rss_before) as f64 / 1024.0;
    let ratio = tool_s / plain_s.max(1e-9);

    println!("bytes: plain {plain_bytes}, tool {on_disk} (on disk), status {status:?}");
    println!("best of {RUNS}:");
    println!("plain bash -c: {plain_s:.3} s");
    println!("through Bash:  {tool_s:.3} s");
    println!("wall ratio:    {ratio:.2} (target <= 1.5)");
    println!("peak RSS growth: {growth_mib:.1} MiB (target <= 64)");
    println!(
        "output progress events: {events} ({:.1}/s; one per 50 ms tick plus the final flush)",
        events as f64 / tool_s.max(1e-9)
    );
    if ratio <= 1.5 && growth_mib <= 64.0 && on_disk == bytes {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::FAILURE
    }
}
