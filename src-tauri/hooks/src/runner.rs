//! Running a command hook: a real process in its own process group, the
//! hook JSON on stdin, stdout and stderr read concurrently and capped, a
//! timeout that ends the whole group (SIGTERM, then SIGKILL about 0.5 s
//! later, as Claude Code does).
//!
//! The process runs in the project directory with `CLAUDE_PROJECT_DIR` and
//! `GATEHOUSE_PROJECT_DIR` set, and without the model providers' API keys
//! or any variable that looks like a secret (see [`is_secret_env`]). All
//! of it is async tokio process I/O: no runtime worker is held while a
//! hook runs.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, kill_process_group};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};

/// The most of stdout (and of stderr) kept; the rest is read and dropped.
pub const OUTPUT_CAP: usize = 1024 * 1024;

/// How long after SIGTERM the group gets SIGKILL.
pub const KILL_GRACE: Duration = Duration::from_millis(500);

/// What to run.
#[derive(Debug, Clone)]
pub struct CommandSpec {
    /// `sh -c <shell>`, or
    pub shell: Option<String>,
    /// the program and its arguments (no shell).
    pub exec: Option<Vec<String>>,
    /// The working directory (the project).
    pub cwd: PathBuf,
    /// The timeout.
    pub timeout: Duration,
}

/// How a run ended.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RawRun {
    /// The exit code, when the process exited.
    pub exit_code: Option<i32>,
    /// The signal that ended it, if one did.
    pub signal: Option<i32>,
    /// It did not finish in time; its group was ended.
    pub timed_out: bool,
    /// It could not be started (the message says why).
    pub spawn_error: Option<String>,
    /// Stdout, up to [`OUTPUT_CAP`] (lossy UTF-8).
    pub stdout: String,
    /// Stderr, up to [`OUTPUT_CAP`].
    pub stderr: String,
    /// Bytes of stdout and stderr read past the cap and dropped.
    pub dropped_bytes: u64,
    /// Wall time.
    pub duration: Duration,
    /// The HTTP status, for an HTTP hook (its `exit_code` is then 0 for a
    /// 2xx status, the status otherwise).
    pub http_status: Option<u16>,
}

/// Environment variables never passed to a hook: the providers' keys and
/// anything named like a credential. A hook that needs a secret reads it
/// itself; Gatehouse does not hand out its own.
pub fn is_secret_env(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    upper.starts_with("ANTHROPIC_")
        || upper.starts_with("OPENAI_")
        || upper.contains("API_KEY")
        || upper.contains("APIKEY")
        || upper.contains("TOKEN")
        || upper.contains("SECRET")
        || upper.contains("PASSWORD")
        || upper.contains("CREDENTIAL")
}

/// Reads `reader` to its end, keeping at most [`OUTPUT_CAP`] bytes and
/// counting the rest.
async fn read_capped(mut reader: impl AsyncRead + Unpin) -> (Vec<u8>, u64) {
    let mut kept = Vec::new();
    let mut dropped = 0u64;
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match reader.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                let room = OUTPUT_CAP.saturating_sub(kept.len());
                let take = n.min(room);
                kept.extend_from_slice(&buf[..take]);
                dropped += (n - take) as u64;
            }
        }
    }
    (kept, dropped)
}

fn signal_group(pgid: Option<u32>, signal: Signal) {
    if let Some(pid) = pgid
        .and_then(|p| i32::try_from(p).ok())
        .and_then(Pid::from_raw)
    {
        // ESRCH (already gone) is the only expected error.
        let _ = kill_process_group(pid, signal);
    }
}

/// Runs `spec` with `stdin` as its input and `project` in its env.
pub async fn run_command(spec: &CommandSpec, stdin: &[u8], project: &Path) -> RawRun {
    let started = Instant::now();
    let mut cmd = match (&spec.shell, &spec.exec) {
        (Some(shell), _) => {
            let mut c = tokio::process::Command::new("sh");
            c.arg("-c").arg(shell);
            c
        }
        (None, Some(argv)) if !argv.is_empty() => {
            let mut c = tokio::process::Command::new(&argv[0]);
            c.args(&argv[1..]);
            c
        }
        _ => {
            return RawRun {
                spawn_error: Some("the hook has no command".into()),
                ..RawRun::default()
            };
        }
    };
    for (name, _) in std::env::vars_os() {
        if name.to_str().is_none_or(is_secret_env) {
            cmd.env_remove(&name);
        }
    }
    cmd.current_dir(&spec.cwd)
        .env("CLAUDE_PROJECT_DIR", project)
        .env("GATEHOUSE_PROJECT_DIR", project)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            let what = spec
                .shell
                .clone()
                .or_else(|| spec.exec.as_ref().and_then(|a| a.first().cloned()))
                .unwrap_or_default();
            return RawRun {
                spawn_error: Some(format!("could not start `{what}`: {e}")),
                duration: started.elapsed(),
                ..RawRun::default()
            };
        }
    };
    let pgid = child.id();
    let input = stdin.to_vec();
    let mut child_stdin = child.stdin.take();
    // A hook that does not read its stdin must not block us: the write
    // runs beside the reads and a broken pipe is ignored.
    let writer = async move {
        if let Some(w) = child_stdin.as_mut() {
            let _ = w.write_all(&input).await;
            let _ = w.shutdown().await;
        }
        drop(child_stdin);
    };
    let out = child.stdout.take();
    let err = child.stderr.take();
    let read_out = async move {
        match out {
            Some(o) => read_capped(o).await,
            None => (Vec::new(), 0),
        }
    };
    let read_err = async move {
        match err {
            Some(e) => read_capped(e).await,
            None => (Vec::new(), 0),
        }
    };
    let work = async {
        let ((), (o, od), (e, ed), status) = tokio::join!(writer, read_out, read_err, child.wait());
        (o, od, e, ed, status)
    };
    let finished = tokio::time::timeout(spec.timeout, work).await;
    let mut run = RawRun::default();
    match finished {
        Ok((o, od, e, ed, status)) => {
            run.stdout = String::from_utf8_lossy(&o).into_owned();
            run.stderr = String::from_utf8_lossy(&e).into_owned();
            run.dropped_bytes = od + ed;
            match status {
                Ok(status) => {
                    use std::os::unix::process::ExitStatusExt;
                    run.exit_code = status.code();
                    run.signal = status.signal();
                }
                Err(e) => run.spawn_error = Some(format!("waiting for the hook failed: {e}")),
            }
        }
        Err(_) => {
            run.timed_out = true;
            signal_group(pgid, Signal::TERM);
            let term_sent = Instant::now();
            if tokio::time::timeout(KILL_GRACE, child.wait())
                .await
                .is_err()
            {
                signal_group(pgid, Signal::KILL);
                let _ = child.wait().await;
            } else {
                // The leader went on TERM; the rest of its group gets the
                // same grace, on a thread of its own (not a runtime task: a
                // runtime that is busy or shutting down must not let a
                // process that ignores TERM live on), so the call goes on now.
                let rest = KILL_GRACE.saturating_sub(term_sent.elapsed());
                let reaper = std::thread::Builder::new()
                    .name("gatehouse-hook-reaper".into())
                    .spawn(move || {
                        std::thread::sleep(rest);
                        signal_group(pgid, Signal::KILL);
                    });
                if reaper.is_err() {
                    // No thread to wait with: kill at once rather than leak.
                    signal_group(pgid, Signal::KILL);
                }
            }
        }
    }
    run.duration = started.elapsed();
    run
}
