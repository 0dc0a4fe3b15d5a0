//! `cargo xtask bench`: performance checks with targets.
//!
//! * `bash` — `yes | head -c 200000000` through the Bash tool vs a plain
//!   `bash -c` (wall-time ratio ≤ 1.5, peak memory growth ≤ 64 MiB,
//!   progress events per second reported); see
//!   `src-tauri/tools/examples/bash_bench.rs`.

use std::process::{Command, ExitCode};

/// Runs the benchmarks in release mode; fails when one misses its target.
pub(crate) fn bench() -> anyhow::Result<ExitCode> {
    let (ok, _) =
        crate::process::run_captured(Command::new(env!("CARGO")).current_dir(crate::root()).args(
            [
                "run",
                "--release",
                "-p",
                "gatehouse-tools",
                "--example",
                "bash_bench",
            ],
        ))?;
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        eprintln!("xtask bench: the Bash benchmark missed a target (see above)");
        ExitCode::FAILURE
    })
}
