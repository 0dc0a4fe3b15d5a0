//! Running child processes with their output shown and, where needed, read.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use anyhow::{Context, bail};

fn describe(cmd: &Command) -> String {
    let mut text = cmd.get_program().to_string_lossy().into_owned();
    for arg in cmd.get_args() {
        text.push(' ');
        text.push_str(&arg.to_string_lossy());
    }
    text
}

/// Runs `cmd` with inherited output; an error when it fails.
pub(crate) fn run_checked(cmd: &mut Command) -> anyhow::Result<()> {
    let status = cmd
        .status()
        .with_context(|| format!("starting `{}`", describe(cmd)))?;
    if !status.success() {
        bail!("`{}` failed ({status})", describe(cmd));
    }
    Ok(())
}

/// Whether `cmd` runs and exits 0 (output discarded).
pub(crate) fn succeeds(cmd: &mut Command) -> bool {
    cmd.stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Runs `cmd`, echoing its stdout and stderr as they come, and returns
/// whether it succeeded together with everything it printed.
pub(crate) fn run_captured(cmd: &mut Command) -> anyhow::Result<(bool, String)> {
    println!("$ {}", describe(cmd));
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("starting `{}`", describe(cmd)))?;
    let stderr = child.stderr.take().context("child has no stderr")?;
    let echo_err = std::thread::spawn(move || {
        let mut seen = String::new();
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            eprintln!("{line}");
            seen.push_str(&line);
            seen.push('\n');
        }
        seen
    });
    let mut seen = String::new();
    if let Some(stdout) = child.stdout.take() {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            println!("{line}");
            seen.push_str(&line);
            seen.push('\n');
        }
    }
    let status = child.wait().context("waiting for child")?;
    seen.push_str(&echo_err.join().unwrap_or_default());
    Ok((status.success(), seen))
}
