//! Everything a server sends is bounded (issue 16 item 4): 100 MB of stderr
//! without a newline, invalid UTF-8 on stderr, 10,000 `tools/list_changed`
//! a second, 1,000,000 progress notifications. For each: the peak memory
//! growth of this test process stays under 64 MiB, the server stays
//! responsive (a following call succeeds) and nothing else is lost (the
//! flooding call's own result arrives; the last progress and the last tool
//! list change are kept).
//!
//! Memory is the peak resident set (`VmHWM` of /proc/self/status, reset
//! through /proc/self/clear_refs before each test) minus the resident set
//! at the start; the tests run one at a time (a lock) so that one test's
//! memory is not another's. Linux only (procfs). The fault server is
//! standard-library Python: the system `python3` runs it.

#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use gatehouse_protocol::progress::ToolProgressData;
use std::sync::Arc;
use std::time::Duration;

use gatehouse_core::ToolUseContext;
use gatehouse_core::events::MemorySink;
use gatehouse_core::runtime::{CallStatus, ToolRuntime};
use gatehouse_core::testing::{TestResolver, call, runtime};
use gatehouse_mcp::config::McpConfig;
use gatehouse_mcp::{McpManager, ServerConfig};
use gatehouse_protocol::event::EventBody;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// The bound on memory growth.
const MAX_GROWTH_KIB: u64 = 64 * 1024;

/// One test at a time: memory figures are per process.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

fn status_kib(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status
        .lines()
        .find(|l| l.starts_with(field))
        .unwrap_or_else(|| panic!("no {field} in /proc/self/status"));
    line[field.len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .unwrap()
}

/// Peak memory since [`MemoryProbe::start`].
struct MemoryProbe {
    baseline_kib: u64,
}

impl MemoryProbe {
    fn start() -> Self {
        // "5" resets the peak resident set size (VmHWM) to the current one.
        std::fs::write("/proc/self/clear_refs", "5").expect("resetting VmHWM");
        Self {
            baseline_kib: status_kib("VmRSS:"),
        }
    }

    /// Asserts the peak growth is under the bound and returns it (KiB).
    fn check(&self, test: &str) -> u64 {
        let growth = status_kib("VmHWM:").saturating_sub(self.baseline_kib);
        // Reported in the test output (`--nocapture`) and in failures.
        println!("{test}: peak RSS growth {:.1} MiB", growth as f64 / 1024.0);
        assert!(
            growth < MAX_GROWTH_KIB,
            "{test}: memory grew by {growth} KiB (limit {MAX_GROWTH_KIB} KiB)"
        );
        growth
    }
}

struct Fixture {
    m: McpManager,
    rt: Arc<ToolRuntime>,
    events: Arc<MemorySink>,
    _tmp: tempfile::TempDir,
}

async fn connect(config: ServerConfig) -> Fixture {
    let (options, _) = common::plain_options();
    let m = McpManager::start(
        &McpConfig {
            servers: vec![config],
            errors: Vec::new(),
        },
        &options,
        &|_| true,
    );
    m.settled(Duration::from_secs(30)).await;
    assert_eq!(
        m.report()[0].state,
        gatehouse_protocol::event::McpServerStatus::Connected,
        "{:?}",
        m.report()
    );
    let tmp = tempfile::tempdir().unwrap();
    let (rt, events) = runtime(
        m.tools(),
        Arc::new(TestResolver::allow_all()),
        Default::default(),
        tmp.path(),
    );
    Fixture {
        m,
        rt,
        events,
        _tmp: tmp,
    }
}

fn flood_server() -> ServerConfig {
    let mut config = common::fault(&[]);
    // A guard against a hang, not a figure: the floods take seconds.
    config.call_timeout = Duration::from_secs(300);
    config
}

impl Fixture {
    async fn run(
        &self,
        id: &str,
        tool: &str,
        input: Value,
    ) -> gatehouse_core::runtime::ToolCallResult {
        self.rt
            .run_one(
                call(id, &format!("mcp__fault__{tool}"), input),
                &mut ToolUseContext::default(),
                &CancellationToken::new(),
            )
            .await
    }

    /// The server still answers.
    async fn responsive(&self) {
        let r = self
            .run("after", "echo", json!({"text": "still here"}))
            .await;
        assert_eq!(r.status, CallStatus::Succeeded, "{r:?}");
        assert_eq!(r.text(), "still here");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hundred_megabytes_of_stderr_without_a_newline_is_kept_to_its_tail() {
    let _one = ONE_AT_A_TIME.lock().await;
    let f = connect(flood_server()).await;
    let memory = MemoryProbe::start();
    let r = f
        .run("s1", "stderr_flood", json!({"count": 100 * 1024 * 1024}))
        .await;
    assert_eq!(r.status, CallStatus::Succeeded, "{r:?}");
    assert_eq!(r.text(), "flooded");
    f.responsive().await;
    memory.check("100 MB of stderr");
    // The tail is kept, cut, and the stderr line of the start is gone
    // (the ring holds the newest bytes only).
    let tail = f.m.report()[0].stderr.clone();
    assert_eq!(tail.len(), 1, "one (endless) line: {}", tail.len());
    assert!(tail[0].starts_with('…') && tail[0].contains("xxxx"));
    assert!(tail[0].chars().count() <= gatehouse_mcp::stderr::MAX_LINE_CHARS + 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_utf8_on_stderr_keeps_the_pipe_drained() {
    let _one = ONE_AT_A_TIME.lock().await;
    let f = connect(flood_server()).await;
    let memory = MemoryProbe::start();
    // 4 MB of invalid UTF-8: far more than a pipe holds (64 KiB), so a
    // reader that stopped at the first bad byte would leave the server
    // blocked on its write, and this call would never be answered.
    let r = f
        .run("b1", "stderr_binary", json!({"count": 4 * 1024 * 1024}))
        .await;
    assert_eq!(r.status, CallStatus::Succeeded, "{r:?}");
    assert_eq!(r.text(), "written");
    f.responsive().await;
    memory.check("invalid UTF-8 on stderr");
    let tail = f.m.report()[0].stderr.clone();
    assert_eq!(tail.last().map(String::as_str), Some("binary done"));
    assert!(
        tail.iter().any(|l| l.contains('\u{fffd}')),
        "invalid bytes are shown as U+FFFD"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_list_changed_a_second_are_coalesced() {
    let _one = ONE_AT_A_TIME.lock().await;
    let f = connect(flood_server()).await;
    let server = f.m.servers().get("fault").unwrap();
    let mut states = server.subscribe();
    let before = stats(&f).await;
    let memory = MemoryProbe::start();
    let started = tokio::time::Instant::now();
    let r = f
        .run("l1", "list_changed_flood", json!({"count": 10_000}))
        .await;
    assert_eq!(r.status, CallStatus::Succeeded, "{r:?}");
    assert_eq!(r.text(), "sent 10000");
    // The change made just before the last notifications is not lost in
    // the coalescing: the list with `flood_extra` arrives (a hang guard,
    // not a figure).
    tokio::time::timeout(
        Duration::from_secs(60),
        states.wait_for(|s| {
            s.tools
                .iter()
                .any(|t| t.qualified_name == "mcp__fault__flood_extra")
        }),
    )
    .await
    .expect("the last tool list change arrived")
    .unwrap();
    let elapsed = started.elapsed();
    f.responsive().await;
    memory.check("10,000 list_changed");
    // One refresh at a time, at most one per MIN_REFRESH_INTERVAL: a bound
    // that follows from the elapsed time (however slow the machine), far
    // below one listing per notification.
    let listings = stats(&f).await - before;
    let bound = (elapsed.as_secs_f64() / gatehouse_mcp::server::MIN_REFRESH_INTERVAL.as_secs_f64())
        .ceil() as u64
        + 2;
    println!(
        "10,000 list_changed in {:.2} s: {listings} tools/list requests (bound {bound})",
        elapsed.as_secs_f64()
    );
    assert!(
        listings <= bound,
        "{listings} listings for 10,000 notifications in {elapsed:?} (bound {bound})"
    );
    // The server's tools are in the state once, with the new one.
    let tools = f.m.report()[0].tools.clone();
    assert!(tools.contains(&"mcp__fault__flood_extra".to_owned()));
    assert!(!f.events.events().is_empty());
}

/// How many tools/list requests the fault server has answered.
async fn stats(f: &Fixture) -> u64 {
    let r = f.run("stats", "stats", json!({})).await;
    assert_eq!(r.status, CallStatus::Succeeded, "{r:?}");
    let v: Value = serde_json::from_str(&r.text()).unwrap();
    v["tools_list"].as_u64().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_million_progress_notifications_are_throttled_and_the_last_is_kept() {
    let _one = ONE_AT_A_TIME.lock().await;
    let f = connect(flood_server()).await;
    let memory = MemoryProbe::start();
    let started = tokio::time::Instant::now();
    let r = f
        .run("p1", "progress_flood", json!({"count": 1_000_000}))
        .await;
    let elapsed = started.elapsed();
    assert_eq!(r.status, CallStatus::Succeeded, "{r:?}");
    assert_eq!(r.text(), "done", "the call's result arrives");
    f.responsive().await;
    memory.check("1,000,000 progress notifications");
    let progress: Vec<f64> = f
        .events
        .events()
        .into_iter()
        .filter_map(|e| match e.body {
            EventBody::ToolProgress {
                tool_use_id,
                data: ToolProgressData::McpProgress { progress, .. },
            } if tool_use_id == "p1" => Some(progress),
            _ => None,
        })
        .collect();
    // At most 20 a second over the call (the bound follows from its
    // measured length), in order, and the last one is the server's last.
    let bound = (elapsed.as_secs_f64() * 20.0).ceil() as usize + 2;
    println!(
        "1,000,000 progress notifications in {:.2} s: {} progress events (bound {bound})",
        elapsed.as_secs_f64(),
        progress.len()
    );
    assert!(
        progress.len() <= bound,
        "{} progress events in {elapsed:?}",
        progress.len()
    );
    assert_eq!(progress.last().copied(), Some(1_000_000.0));
    assert!(progress.windows(2).all(|w| w[0] < w[1]), "in order");
}

/// A cloned repository chooses what its `.mcp.json` is: a file over the
/// limit, or a symlink to `/dev/zero` (git keeps symlinks), is reported
/// with its path and left unread; the user's own servers still load.
#[test]
fn a_project_mcp_json_that_is_huge_or_a_device_is_refused_unread() {
    use gatehouse_mcp::config::{ConfigLayout, MAX_CONFIG_FILE_BYTES, load_with_env};
    let project = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join(".claude.json"),
        json!({"mcpServers": {"mine": {"command": "my-server"}}}).to_string(),
    )
    .unwrap();
    let layout = ConfigLayout {
        project: project.path().into(),
        home: home.path().into(),
    };
    let file = layout.project_file();
    let check = |expected: String| {
        let cfg = load_with_env(&layout, &|_| None);
        let names: Vec<&str> = cfg.servers.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["mine"]);
        let errors: Vec<String> = cfg.errors.iter().map(ToString::to_string).collect();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].contains(&*file.to_string_lossy()), "{errors:?}");
        assert!(errors[0].contains(&expected), "{errors:?}");
    };

    // Valid JSON, only too large: before the limit it loaded cleanly.
    let padding = " ".repeat(usize::try_from(MAX_CONFIG_FILE_BYTES).unwrap());
    std::fs::write(&file, format!("{{{padding}}}")).unwrap();
    check(format!(
        "is {} bytes; the limit is {MAX_CONFIG_FILE_BYTES}",
        MAX_CONFIG_FILE_BYTES + 2
    ));

    std::fs::remove_file(&file).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &file).unwrap();
    check("is not a regular file (it is a character device)".into());
}
