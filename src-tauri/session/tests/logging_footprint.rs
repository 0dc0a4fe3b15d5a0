//! What starting the log costs in memory: every Gatehouse process (the app,
//! each `gatehouse-cli claude-code hook` run) starts it. Its own test binary,
//! so nothing else in the process allocates while it is measured.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use gatehouse_session::logging;

/// The process's resident set in kB (`VmRSS` of `/proc/self/status`).
fn rss_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS in /proc/self/status")
}

#[test]
fn starting_the_log_takes_well_under_a_megabyte() {
    let data = tempfile::tempdir().unwrap();
    let before = rss_kb();
    let guard = logging::init(data.path(), "gatehouse-test").unwrap();
    let grown = rss_kb().saturating_sub(before);
    // tracing-appender's default queue (128,000 lines) preallocated and
    // touched 4 MB here; the bounded queue is QUEUED_LINES lines.
    assert!(
        grown < 1024,
        "the log's start grew the process by {grown} kB"
    );
    tracing::info!("still logs");
    drop(guard);
    let text: String = std::fs::read_dir(data.path().join("logs"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    assert!(text.contains("still logs"), "{text}");
}
