//! `cargo xtask run --smoke` (or `gatehouse --smoke`, as the package test
//! launches the installed app): launch, let the UI load and make a round
//! trip to the backend, then exit 0 — or exit non-zero saying what failed.

use std::time::Duration;

/// Set (to any value) by `cargo xtask run --smoke`.
pub const SMOKE_ENV: &str = "GATEHOUSE_SMOKE";

/// How long the UI has to report before the smoke run fails.
const SMOKE_TIMEOUT: Duration = Duration::from_secs(60);

/// Whether this launch is a smoke run: `--smoke` (`flag`, parsed with the
/// rest of the command line in launch.rs) or the variable.
pub(crate) fn requested(flag: bool) -> bool {
    flag || std::env::var_os(SMOKE_ENV).is_some()
}

/// `GATEHOUSE_SMOKE=stay`: report like a smoke run, then keep running
/// (`cargo xtask bench app` times the report, then measures memory).
fn stays() -> bool {
    std::env::var_os(SMOKE_ENV).is_some_and(|v| v == "stay")
}

/// Fails the smoke run if the UI never reports (blank page, script error,
/// broken IPC): without this a broken build would hang the caller. Not when
/// the run stays (its caller has its own timeout).
pub(crate) fn start_watchdog() {
    if stays() {
        return;
    }
    std::thread::spawn(|| {
        std::thread::sleep(SMOKE_TIMEOUT);
        eprintln!(
            "gatehouse smoke: FAILED — the UI did not load and report back within {} s \
             (check the UI build in ui/dist and the webview's console)",
            SMOKE_TIMEOUT.as_secs()
        );
        std::process::exit(3);
    });
}

/// The UI's report: print it and exit with its verdict.
pub(crate) fn finish(app: &tauri::AppHandle, ok: bool, detail: &str) {
    if ok {
        println!("gatehouse smoke: ok — {detail}");
        if !stays() {
            app.exit(0);
        }
    } else {
        eprintln!("gatehouse smoke: FAILED — {detail}");
        app.exit(4);
    }
}
