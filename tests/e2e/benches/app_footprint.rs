//! The app's start-up time and memory footprint (issue 23 item 6), on the
//! release build, median of 5 runs (a warm-up run of each kind first, not
//! counted):
//!
//! * **start-up**: from spawning the app (a fresh data directory) to its
//!   first smoke round trip — the home screen rendered and the UI's first
//!   call answered by the backend (`GATEHOUSE_SMOKE=stay`: the app prints
//!   `gatehouse smoke: ok` and keeps running);
//! * **idle**: 10 s later, the proportional set size (PSS, from
//!   `/proc/<pid>/smaps_rollup`) of the app and each process it started
//!   (WebKit's web and network processes), summed: shared pages are split
//!   between the processes that map them, so the sum is what the app costs;
//! * **10,000-call session**: the same, with a stored session of 10,000
//!   tool calls resumed in the window (through WebDriver, as the `ui`
//!   benchmark opens it) and left idle 10 s.
//!
//! Targets: start-up ≤ 0.4 s, idle ≤ 150 MB. Run through
//! `cargo xtask bench app`, which builds the release app and provides the
//! display.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, ExitCode, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::Context;
use gatehouse_e2e::setup;

#[path = "common/seed.rs"]
mod seed;

use seed::{launch_on_copy, load_average, median, seed};

/// Measured runs of each kind.
const RUNS: usize = 5;
/// How long the app idles before its memory is read.
const IDLE: Duration = Duration::from_secs(10);
/// Tool calls in the large session.
const CALLS: usize = 10_000;
/// Start-up target, seconds.
const TARGET_START_S: f64 = 0.4;
/// Idle memory target, MB.
const TARGET_IDLE_MB: f64 = 150.0;
/// How long the first round trip may take before a run fails.
const START_TIMEOUT: Duration = Duration::from_secs(60);

/// PSS in MB per process kind (`app`, `web`, `network`, `other`).
type Footprint = BTreeMap<&'static str, f64>;

/// Every process in `/proc` with its parent.
fn processes() -> Vec<(u32, u32)> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // `pid (comm) state ppid …`; comm may hold spaces and parentheses.
            let rest = &stat[stat.rfind(')')? + 2..];
            let ppid = rest.split_whitespace().nth(1)?.parse().ok()?;
            Some((pid, ppid))
        })
        .collect()
}

/// `root` and every process below it.
fn tree(root: u32) -> Vec<u32> {
    let all = processes();
    let mut found = vec![root];
    let mut i = 0;
    while i < found.len() {
        let parent = found[i];
        found.extend(all.iter().filter(|(_, pp)| *pp == parent).map(|(p, _)| *p));
        i += 1;
    }
    found
}

/// The process's PSS in kB (`Pss:` of `smaps_rollup`).
fn pss_kb(pid: u32) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix("Pss:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// PSS of the app `pid` and its descendants, per kind.
fn footprint(pid: u32) -> Footprint {
    let mut out = Footprint::new();
    for p in tree(pid) {
        let comm = std::fs::read_to_string(format!("/proc/{p}/comm")).unwrap_or_default();
        let kind = if p == pid {
            "app"
        } else if comm.starts_with("WebKitWebProces") {
            "web"
        } else if comm.starts_with("WebKitNetworkPr") {
            "network"
        } else {
            "other"
        };
        *out.entry(kind).or_default() += pss_kb(p).unwrap_or(0) as f64 / 1024.0;
    }
    out
}

/// One launch to the home screen: seconds to the first round trip, and the
/// footprint after [`IDLE`].
fn home_once(app: &Path, home: &Path) -> anyhow::Result<(f64, Footprint)> {
    let data = tempfile::tempdir()?;
    let started = Instant::now();
    let mut child = Command::new(app)
        .env("GATEHOUSE_SMOKE", "stay")
        .env("GATEHOUSE_DATA_DIR", data.path())
        .env("HOME", home)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .with_context(|| format!("starting {}", app.display()))?;
    let stdout = child.stdout.take().context("no stdout")?;
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if line.starts_with("gatehouse smoke:") {
                let _ = tx.send((Instant::now(), line));
            }
        }
    });
    let result = match rx.recv_timeout(START_TIMEOUT) {
        Ok((at, line)) if line.starts_with("gatehouse smoke: ok") => {
            let seconds = at.duration_since(started).as_secs_f64();
            std::thread::sleep(IDLE);
            Ok((seconds, footprint(child.id())))
        }
        Ok((_, line)) => Err(anyhow::anyhow!("the app reported: {line}")),
        Err(_) => Err(anyhow::anyhow!("no smoke report within {START_TIMEOUT:?}")),
    };
    let _ = child.kill();
    let _ = child.wait();
    result
}

/// The pid of the app process whose data directory is `data` (launched by
/// WebDriver, so not our child).
fn app_pid(app: &Path, data: &Path) -> anyhow::Result<u32> {
    let exe = std::fs::canonicalize(app)?;
    let marker = format!("GATEHOUSE_DATA_DIR={}", data.display());
    processes()
        .into_iter()
        .map(|(pid, _)| pid)
        .find(|pid| {
            std::fs::read_link(format!("/proc/{pid}/exe")).is_ok_and(|e| e == exe)
                && std::fs::read(format!("/proc/{pid}/environ"))
                    .is_ok_and(|env| env.split(|b| *b == 0).any(|kv| kv == marker.as_bytes()))
        })
        .with_context(|| format!("no running {} with {marker}", exe.display()))
}

/// One launch with the large session resumed: its footprint after [`IDLE`].
async fn session_once(
    app: &Path,
    driver: &Path,
    seeded: &Path,
    home: &Path,
    session: &str,
    last_call: &str,
) -> anyhow::Result<Footprint> {
    let run = tempfile::tempdir()?;
    let window = launch_on_copy(app, driver, seeded, run.path(), home).await?;
    window
        .click(&format!(
            "[data-testid=session-item-resume][data-session-id={session}]"
        ))
        .await?;
    window
        .wait_for(&format!(
            "[data-testid=tool-call][data-tool-use-id=\"{last_call}\"]"
        ))
        .await?;
    tokio::time::sleep(IDLE).await;
    let result = app_pid(app, run.path()).map(footprint);
    window.quit().await?;
    result
}

fn total(f: &Footprint) -> f64 {
    f.values().sum()
}

/// The median of each kind's figure over `runs`, and of the totals.
fn median_footprint(runs: &[Footprint]) -> (Footprint, f64) {
    let mut out = Footprint::new();
    for kind in ["app", "web", "network", "other"] {
        let mut v: Vec<f64> = runs.iter().map(|f| *f.get(kind).unwrap_or(&0.0)).collect();
        out.insert(kind, median(&mut v));
    }
    let mut totals: Vec<f64> = runs.iter().map(total).collect();
    (out, median(&mut totals))
}

fn row(what: &str, start: Option<f64>, f: &Footprint, total: f64) -> String {
    let start = start.map_or_else(|| "–".to_owned(), |s| format!("{s:.2} s"));
    format!(
        "{what:<34} {start:>9} {:>7.0} {:>7.0} {:>8.0} {:>6.0} {total:>7.0}",
        f["app"], f["web"], f["network"], f["other"]
    )
}

async fn bench() -> anyhow::Result<bool> {
    let Some((app, driver)) = setup() else {
        return Ok(true);
    };
    let root = tempfile::tempdir()?;
    let home = root.path().join("home");
    std::fs::create_dir_all(&home)?;
    let seeded = root.path().join("data");
    let project = root.path().join("project");
    std::fs::create_dir_all(project.join("src"))?;
    let t = Instant::now();
    let (session, last_call) = seed(&seeded, &project, CALLS)?;
    println!(
        "seeded {session}: {CALLS} tool calls in {:.1} s; machine load before: {}",
        t.elapsed().as_secs_f64(),
        load_average()
    );

    let mut starts = Vec::new();
    let mut idles = Vec::new();
    for run in 0..=RUNS {
        let (s, f) = home_once(&app, &home)?;
        let label = if run == 0 {
            "warm-up (not counted)".to_owned()
        } else {
            format!("run {run}/{RUNS}")
        };
        println!(
            "home    {label}: start {s:.3} s, idle {:.0} MB {f:.0?}",
            total(&f)
        );
        if run > 0 {
            starts.push(s);
            idles.push(f);
        }
    }
    let mut sessions = Vec::new();
    for run in 0..=RUNS {
        let f = session_once(&app, &driver, &seeded, &home, &session, &last_call).await?;
        let label = if run == 0 {
            "warm-up (not counted)".to_owned()
        } else {
            format!("run {run}/{RUNS}")
        };
        println!("session {label}: {:.0} MB {f:.0?}", total(&f));
        if run > 0 {
            sessions.push(f);
        }
    }
    println!("machine load after: {}", load_average());

    let start = median(&mut starts);
    let (idle, idle_total) = median_footprint(&idles);
    let (open, open_total) = median_footprint(&sessions);
    println!(
        "\napp start-up and memory of {}, median of {RUNS} (PSS in MB)",
        app.display()
    );
    println!(
        "{:<34} {:>9} {:>7} {:>7} {:>8} {:>6} {:>7}",
        "", "start-up", "app", "web", "network", "other", "total"
    );
    println!(
        "{}",
        row("home screen, idle 10 s", Some(start), &idle, idle_total)
    );
    println!(
        "{}",
        row("10,000-call session, idle 10 s", None, &open, open_total)
    );
    println!(
        "targets: start-up ≤ {TARGET_START_S} s ({}), idle ≤ {TARGET_IDLE_MB} MB ({})",
        if start <= TARGET_START_S {
            "met"
        } else {
            "MISSED"
        },
        if idle_total <= TARGET_IDLE_MB {
            "met"
        } else {
            "MISSED"
        },
    );
    Ok(start <= TARGET_START_S && idle_total <= TARGET_IDLE_MB)
}

#[tokio::main]
async fn main() -> ExitCode {
    match bench().await {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => {
            eprintln!("app_footprint: a figure misses its target");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("app_footprint: {e:#}");
            ExitCode::FAILURE
        }
    }
}
