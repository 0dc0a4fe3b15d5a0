//! Import benchmark: Claude Code transcripts made by repeating the real
//! fixtures with fresh ids, imported into a fresh database.
//!
//! `cargo bench -p gatehouse-transcripts --bench import` prints, for a
//! baseline size (default 50 MB, median of 5 runs) and the full size
//! (default 500 MB, `GATEHOUSE_BENCH_IMPORT_MB`, median of
//! `GATEHOUSE_BENCH_IMPORT_RUNS` runs, default 1): throughput in MB/s and
//! peak resident memory during the import (VmHWM, reset before each run via
//! /proc/self/clear_refs), with the ratios full/baseline side by side.
//! Throughput is also given per CPU-second (user + system time), which a
//! busy machine does not distort as much as wall time. A
//! bounded-memory import has a peak-memory ratio near 1 although it reads
//! 10× more.
//!
//! Generated data lives in `target/bench-data/` (never in git) and is
//! reused between runs.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use gatehouse_store::Store;
use gatehouse_transcripts::claude;

const COPIES_PER_FILE: usize = 10;

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"),
        PathBuf::from,
    )
}

/// The fixtures: the full shared set when present, else the repo's copies.
fn fixtures() -> Vec<(String, String)> {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/fixtures/claude-code-transcripts");
    let dir = if shared.is_dir() {
        shared
    } else {
        eprintln!("note: ../shared is absent; repeating the repo's smaller fixtures");
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
    };
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "jsonl") {
            let text = std::fs::read_to_string(&path).unwrap();
            let session = text
                .split("\"sessionId\": \"")
                .nth(1)
                .and_then(|s| s.split('"').next())
                .unwrap_or("none")
                .to_owned();
            out.push((session, text));
        }
    }
    out.sort();
    out
}

/// Writes `mb` megabytes of transcripts under `home`, unless already there.
fn generate(home: &Path, mb: u64) -> Vec<claude::ClaudeTranscript> {
    let project = home.join(".claude/projects/-bench-project");
    let marker = home.join("complete");
    if !marker.exists() {
        let _ = std::fs::remove_dir_all(home);
        std::fs::create_dir_all(&project).unwrap();
        let fixtures = fixtures();
        let (mut written, mut copy, mut file_no) = (0u64, 0usize, 0usize);
        while written < mb * 1_000_000 {
            let session = format!("00000000-0000-4000-8000-{file_no:012}");
            let path = project.join(format!("{session}.jsonl"));
            let mut out = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
            for _ in 0..COPIES_PER_FILE {
                let (old_session, text) = &fixtures[copy % fixtures.len()];
                // Fresh ids: every tool, message, request and entry id
                // gets this copy's number.
                let fresh = text
                    .replace(old_session.as_str(), &session)
                    .replace("toolu_", &format!("toolu_c{copy}_"))
                    .replace("msg_mock_", &format!("msg_mock_c{copy}_"))
                    .replace("req_mock_", &format!("req_mock_c{copy}_"))
                    .replace("\"uuid\": \"", &format!("\"uuid\": \"c{copy}-"))
                    .replace("\"parentUuid\": \"", &format!("\"parentUuid\": \"c{copy}-"));
                out.write_all(fresh.as_bytes()).unwrap();
                written += fresh.len() as u64;
                copy += 1;
            }
            out.flush().unwrap();
            file_no += 1;
        }
        std::fs::write(&marker, b"").unwrap();
    }
    claude::discover(home).unwrap()
}

fn status_kb(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// CPU time (user + system) of this process so far, in seconds, from
/// /proc/self/stat (clock ticks of 1/100 s).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name (which is in parentheses).
    let rest = stat.rsplit(')').next().unwrap_or_default();
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) / 100.0
}

/// Imports `transcripts` into a fresh database; returns (wall seconds, CPU
/// seconds, peak RSS in MB during the import, events).
fn import_once(db: &Path, transcripts: &[claude::ClaudeTranscript]) -> (f64, f64, f64, u64) {
    let _ = std::fs::remove_dir_all(db);
    let mut store = Store::open(db).unwrap();
    // Reset the peak-RSS mark so VmHWM covers the import only.
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    let start = Instant::now();
    let cpu_start = cpu_seconds();
    let reports = claude::import_transcripts(&mut store, transcripts, |_| {});
    let secs = start.elapsed().as_secs_f64();
    let cpu = cpu_seconds() - cpu_start;
    let peak_mb = status_kb("VmHWM:") as f64 / 1024.0;
    let events = reports.into_iter().map(|r| r.unwrap().events).sum();
    (secs, cpu, peak_mb, events)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn measure(name: &str, mb: u64, runs: usize) -> (f64, f64) {
    let base = target_dir().join("bench-data");
    let home = base.join(format!("claude-home-{mb}mb"));
    let transcripts = generate(&home, mb);
    let bytes: u64 = transcripts.iter().map(|t| t.size_bytes).sum();
    let db = base.join(format!("import-db-{mb}mb"));
    let (mut speeds, mut cpu_speeds, mut peaks) = (Vec::new(), Vec::new(), Vec::new());
    let mut events = 0;
    for _ in 0..runs {
        let (secs, cpu, peak, n) = import_once(&db, &transcripts);
        speeds.push(bytes as f64 / 1e6 / secs);
        cpu_speeds.push(bytes as f64 / 1e6 / cpu.max(0.01));
        peaks.push(peak);
        events = n;
    }
    let db_mb = std::fs::metadata(db.join(gatehouse_store::DATABASE_FILE))
        .map_or(0.0, |m| m.len() as f64 / 1e6);
    let (speed, cpu_speed, peak) = (median(speeds), median(cpu_speeds), median(peaks));
    println!(
        "{name:>9}: {:>7.1} MB in {:>4} files, {events:>9} events, {runs} run(s): \
         median {speed:>6.1} MB/s wall ({cpu_speed:>6.1} MB per CPU-second), \
         peak RSS {peak:>6.1} MB, database {db_mb:>7.1} MB",
        bytes as f64 / 1e6,
        transcripts.len()
    );
    let _ = std::fs::remove_dir_all(&db);
    (speed, peak)
}

fn main() {
    let env = |k: &str, d: u64| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(d)
    };
    let full_mb = env("GATEHOUSE_BENCH_IMPORT_MB", 500);
    let full_runs = env("GATEHOUSE_BENCH_IMPORT_RUNS", 1) as usize;
    let base_mb = (full_mb / 10).max(1);
    let (base_speed, base_peak) = measure("baseline", base_mb, 5);
    let (speed, peak) = measure("full", full_mb, full_runs);
    println!(
        "ratios full/baseline: size {:.1}×, throughput {:.2}×, peak RSS {:.2}×",
        full_mb as f64 / base_mb as f64,
        speed / base_speed,
        peak / base_peak
    );
}
