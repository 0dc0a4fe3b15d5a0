//! Opening a stored session in the real window (issue 9 item 6): the time
//! from the click on the session in the home screen's list to its last
//! screen being rendered, for a session of 100 tool calls and one of
//! 10,000 — target: the large one takes at most twice as long.
//!
//! "Last screen rendered" means, measured in the page itself: the
//! transcript exists, is scrolled to its end (`scrollTop + clientHeight`
//! within 2 px of `scrollHeight`), the last tool call's element
//! (`[data-testid=tool-call][data-tool-use-id=…]`) is in the DOM, and the
//! scroll position and height were the same on two consecutive animation
//! frames (the virtualiser has measured the rows it shows and stopped
//! moving). The start is `performance.now()` right before the script
//! clicks the session's button; the end is the first of those two frames.
//! WebDriver only reads the figure back, so its own latency is not counted.
//! A long session's handle carries only its last turns (the earlier events
//! are fetched after that screen is painted), so that fetch is not counted:
//! the user is looking at the last screen by then.
//!
//! Each run launches the app afresh on its own copy of the seeded data
//! directory (a resume appends events, so runs must not see each other's),
//! alternating the two sizes; a warm-up run of each comes first and is not
//! counted. The sessions are the captured demo session
//! (`ui/src/session/fixtures/demo.jsonl`: Glob, Read, Grep, Read, Edit with
//! its diff, Bash with its output, all with results) repeated turn by turn
//! with fresh ids, written through the store as the session host would.
//!
//! The same sizes are also opened in the session browser's read-only reader
//! (issue 11 item 7): the time from the click on the session's row in the
//! Sessions list to the reader showing the session's first screen (the
//! transcript with its first call or group rendered, events and stats
//! loaded, two stable frames). The reader starts at the top, so that is
//! its "last screen" to wait for.
//!
//! Run through `cargo xtask bench ui`, which builds the app, the UI and
//! tauri-driver and provides the display; otherwise it prints why and exits.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use gatehouse_e2e::setup;
use gatehouse_store::Store;
use serde_json::Value;

#[path = "common/seed.rs"]
mod seed;

use seed::{launch_on_copy, load_average, median, seed};

/// Measured runs of each size (a warm-up of each comes first);
/// `GATEHOUSE_UI_BENCH_RUNS` overrides it (a quick look while profiling).
const RUNS: usize = 7;
/// The sizes compared: the baseline first.
const SIZES: [usize; 2] = [100, 10_000];
/// The target: large / small.
const TARGET_RATIO: f64 = 2.0;
/// How long one open may take before the run counts as failed.
const OPEN_TIMEOUT: Duration = Duration::from_secs(180);

/// Clicks the session's button on the home screen from script and waits,
/// in the page, for the last screen; returns the milliseconds between.
const MEASURE: &str = r#"
const [button, lastCall] = arguments;
const state = { start: 0, done: null, frames: 0, screen: null };
window.__gatehouseBench = state;
let previous = null;
const check = (now) => {
  state.frames += 1;
  if (state.screen === null && document.querySelector("[data-testid=session-screen]")) state.screen = now - state.start;
  const transcript = document.querySelector("[data-testid=transcript]");
  const call = document.querySelector(`[data-testid=tool-call][data-tool-use-id="${lastCall}"]`);
  if (transcript && call && transcript.scrollTop + transcript.clientHeight >= transcript.scrollHeight - 2) {
    const shape = `${transcript.scrollTop}/${transcript.scrollHeight}`;
    if (previous !== null && previous.shape === shape) {
      state.done = previous.at;
      return;
    }
    if (previous === null || previous.shape !== shape) previous = { shape, at: now };
  } else {
    previous = null;
  }
  requestAnimationFrame(check);
};
state.start = performance.now();
requestAnimationFrame(check);
button.click();
"#;

/// Clicks the session's row in the Sessions list from script and waits, in
/// the page, until the reader shows its first screen (see the module docs).
const MEASURE_READER: &str = r#"
const [button] = arguments;
const state = { start: 0, done: null, frames: 0, screen: null };
window.__gatehouseBench = state;
let previous = null;
const check = (now) => {
  state.frames += 1;
  const reader = document.querySelector("[data-testid=stored-session]");
  if (state.screen === null && reader) state.screen = now - state.start;
  const transcript = reader && reader.querySelector("[data-testid=transcript]");
  const first = transcript && transcript.querySelector("[data-testid=tool-call], [data-testid=tool-group]");
  if (first && !reader.querySelector("[data-testid=reader-loading]")) {
    const shape = `${transcript.scrollTop}/${transcript.scrollHeight}`;
    if (previous !== null && previous.shape === shape) {
      state.done = previous.at;
      return;
    }
    previous = { shape, at: now };
  } else {
    previous = null;
  }
  requestAnimationFrame(check);
};
state.start = performance.now();
requestAnimationFrame(check);
button.click();
"#;

/// Where a stored session is opened.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Opening {
    /// Resumed from the home screen's list (the live session view).
    Resume,
    /// Read in the session browser's reader.
    Reader,
}

async fn open_once(
    app: &Path,
    driver: &Path,
    seeded: &Path,
    home: &Path,
    session: &str,
    last_call: &str,
    opening: Opening,
) -> anyhow::Result<f64> {
    let run = tempfile::tempdir()?;
    let window = launch_on_copy(app, driver, seeded, run.path(), home).await?;
    let (css, script, args) = match opening {
        Opening::Resume => (
            format!("[data-testid=session-item-resume][data-session-id={session}]"),
            MEASURE,
            vec![Value::from(last_call)],
        ),
        Opening::Reader => {
            window.click("[data-testid=open-sessions]").await?;
            (
                format!(
                    "[data-testid=session-row][data-session-id={session}] [data-testid=session-open]"
                ),
                MEASURE_READER,
                Vec::new(),
            )
        }
    };
    let button = window.wait_for(&css).await?;
    let mut script_args = vec![serde_json::to_value(&button)?];
    script_args.extend(args);
    window
        .client
        .execute(script, script_args)
        .await
        .context("clicking the stored session")?;
    let started = Instant::now();
    let ms = loop {
        let state = window
            .client
            .execute("return window.__gatehouseBench;", vec![])
            .await?;
        if let (Some(start), Some(done)) = (state["start"].as_f64(), state["done"].as_f64()) {
            // Where the time goes: until the session screen is mounted
            // (backend resume, events to the page, first fold), then until
            // the transcript settles at its end.
            println!(
                "  {session}: session screen mounted at {:.0} ms",
                state["screen"].as_f64().unwrap_or(f64::NAN)
            );
            break done - start;
        }
        if started.elapsed() > OPEN_TIMEOUT {
            let _ = window.screenshot(&format!("bench-timeout-{session}")).await;
            bail!(
                "{session} was not rendered within {OPEN_TIMEOUT:?} ({} frames checked)",
                state["frames"]
            );
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let label = match opening {
        Opening::Resume => "resume",
        Opening::Reader => "reader",
    };
    window
        .screenshot(&format!("bench-{label}-{session}"))
        .await?;
    window.quit().await?;
    Ok(ms)
}

async fn bench() -> anyhow::Result<bool> {
    let Some((app, driver)) = setup() else {
        return Ok(true);
    };
    let root = tempfile::tempdir()?;
    let seeded = root.path().join("data");
    let home = root.path().join("home");
    std::fs::create_dir_all(&home)?;
    let project = root.path().join("project");
    std::fs::create_dir_all(project.join("src"))?;
    println!(
        "machine load (1, 5, 15 min) before the runs: {}",
        load_average()
    );
    let mut sessions = Vec::new();
    for calls in SIZES {
        let t = Instant::now();
        let (id, last) = seed(&seeded, &project, calls)?;
        let events = Store::open(&seeded)?
            .session(&id)?
            .map_or(0, |s| s.event_count);
        println!(
            "seeded {id}: {calls} tool calls, {events} events in {:.1} s",
            t.elapsed().as_secs_f64()
        );
        sessions.push((calls, id, last));
    }
    let runs = std::env::var("GATEHOUSE_UI_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(RUNS)
        .max(1);
    let mut met = true;
    for (opening, what) in [
        (
            Opening::Resume,
            "resume from the home screen, click → last screen rendered",
        ),
        (
            Opening::Reader,
            "open in the session browser's reader, click → first screen rendered",
        ),
    ] {
        let mut figures: Vec<Vec<f64>> = vec![Vec::new(); SIZES.len()];
        for run in 0..=runs {
            for (i, (calls, id, last)) in sessions.iter().enumerate() {
                let ms = open_once(&app, &driver, &seeded, &home, id, last, opening).await?;
                if run == 0 {
                    println!("warm-up  {calls:>6} calls: {ms:>8.1} ms (not counted)");
                } else {
                    println!("run {run}/{runs} {calls:>6} calls: {ms:>8.1} ms");
                    figures[i].push(ms);
                }
            }
        }
        println!(
            "machine load (1, 5, 15 min) after the runs: {}",
            load_average()
        );
        let small = median(&mut figures[0]);
        let large = median(&mut figures[1]);
        let ratio = large / small;
        println!(
            "{what} (median of {runs}): {} calls {small:.1} ms · {} calls {large:.1} ms · \
             ratio {ratio:.2} (target ≤ {TARGET_RATIO})",
            SIZES[0], SIZES[1]
        );
        met &= ratio <= TARGET_RATIO;
    }
    Ok(met)
}

#[tokio::main]
async fn main() -> ExitCode {
    match bench().await {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => {
            eprintln!("open_session: the ratio misses its target");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("open_session: {e:#}");
            ExitCode::FAILURE
        }
    }
}
