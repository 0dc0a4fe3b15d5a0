//! Running child processes with their output shown and, where needed, read.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

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

/// How long to wait for output after the child exits: a grandchild left
/// running (a stray WebDriver, say) can hold the pipes open forever.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(20);

/// Echoes each line of `stream` (to stdout or stderr) and appends it to `seen`.
fn echo<R: std::io::Read + Send + 'static>(
    stream: R,
    to_stderr: bool,
    seen: Arc<Mutex<String>>,
) -> mpsc::Receiver<()> {
    let (done, finished) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stream).lines().map_while(Result::ok) {
            if to_stderr {
                eprintln!("{line}");
            } else {
                println!("{line}");
            }
            let mut seen = seen.lock().unwrap_or_else(|p| p.into_inner());
            seen.push_str(&line);
            seen.push('\n');
        }
        let _ = done.send(());
    });
    finished
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
    let seen = Arc::new(Mutex::new(String::new()));
    let stdout = child.stdout.take().context("child has no stdout")?;
    let stderr = child.stderr.take().context("child has no stderr")?;
    let readers = [
        echo(stdout, false, Arc::clone(&seen)),
        echo(stderr, true, Arc::clone(&seen)),
    ];
    let status = child.wait().context("waiting for child")?;
    for reader in readers {
        if reader.recv_timeout(DRAIN_TIMEOUT).is_err() {
            eprintln!(
                "xtask: `{}` exited but a process it started still holds its output open; \
                 going on without waiting for it",
                describe(cmd)
            );
            break;
        }
    }
    let seen = seen.lock().unwrap_or_else(|p| p.into_inner()).clone();
    Ok((status.success(), seen))
}
