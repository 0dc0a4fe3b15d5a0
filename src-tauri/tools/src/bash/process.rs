//! Starting a shell command in its own process group, reading its merged
//! output, and ending the whole group.
//!
//! stdout and stderr share one pipe, so their bytes arrive interleaved in
//! the order the command wrote them. A dedicated thread reads the pipe and
//! hands chunks to the async side through a small bounded channel: a
//! command that prints faster than Gatehouse consumes is slowed down
//! instead of growing memory.
//!
//! Ending a command always targets its process group: SIGTERM first, then
//! SIGKILL to whatever is still alive after a grace period. Liveness is
//! judged per process (zombies don't count), so children that ignore
//! SIGTERM are killed too and nothing started by the command survives it.

use std::io::Read;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use rustix::process::{Pid, Signal, kill_process_group, test_kill_process_group};
use tokio::process::{Child, Command};
use tokio::sync::mpsc;

/// Bytes read from the pipe at a time (and the largest chunk delivered).
const CHUNK: usize = 1024 * 1024;
/// The pipe's kernel buffer we ask for (Linux; the default is 64 KiB):
/// bigger reads, fewer wake-ups for a fast writer.
const PIPE_SIZE: usize = 1024 * 1024;
/// Chunks buffered between the reader thread and the consumer (so at most
/// `CHANNEL_CHUNKS × CHUNK` bytes in flight).
const CHANNEL_CHUNKS: usize = 8;
/// How often group liveness is polled while waiting for it to end.
const POLL: Duration = Duration::from_millis(20);
/// How long to wait for the group to vanish after SIGKILL.
const AFTER_KILL: Duration = Duration::from_secs(5);

/// A started command: the shell process, its group and its output.
#[derive(Debug)]
pub struct Spawned {
    /// The shell process.
    pub child: Child,
    /// Its process group id (equal to the shell's pid).
    pub pgid: i32,
    /// Chunks of merged stdout+stderr; closed at end of output.
    pub output: mpsc::Receiver<Vec<u8>>,
}

/// Starts `cmd` with stdin closed, stdout and stderr on one pipe, in a new
/// process group.
pub fn spawn(mut cmd: Command) -> std::io::Result<Spawned> {
    let (reader, writer) = std::io::pipe()?;
    #[cfg(target_os = "linux")]
    {
        // Best effort: an unprivileged process may be capped lower
        // (/proc/sys/fs/pipe-max-size); the default size works too.
        let _ = rustix::pipe::fcntl_setpipe_size(&writer, PIPE_SIZE);
    }
    let writer2 = writer.try_clone()?;
    cmd.stdin(Stdio::null())
        .stdout(Stdio::from(writer))
        .stderr(Stdio::from(writer2))
        .process_group(0)
        .kill_on_drop(false);
    let child = cmd.spawn();
    // Our copies of the write end must close, or end of output never comes.
    drop(cmd);
    let child = child?;
    let pid = child
        .id()
        .and_then(|id| i32::try_from(id).ok())
        .ok_or_else(|| std::io::Error::other("the shell exited before its pid was known"))?;
    let (tx, rx) = mpsc::channel(CHANNEL_CHUNKS);
    std::thread::Builder::new()
        .name(format!("gatehouse-output-{pid}"))
        .spawn(move || pump(reader, &tx))?;
    Ok(Spawned {
        child,
        pgid: pid,
        output: rx,
    })
}

/// Reads the pipe until end of output, an error, or the consumer is gone.
fn pump(mut reader: std::io::PipeReader, tx: &mpsc::Sender<Vec<u8>>) {
    let mut buf = vec![0_u8; CHUNK];
    loop {
        match reader.read(&mut buf) {
            Ok(0) => return,
            Ok(n) => {
                if tx.blocking_send(buf[..n].to_vec()).is_err() {
                    return;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return,
        }
    }
}

/// How a process group ended when Gatehouse ended it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Termination {
    /// Nothing of the group was running any more.
    AlreadyGone,
    /// Everything exited after SIGTERM, within the grace period.
    Terminated,
    /// Something outlived the grace period and got SIGKILL.
    Killed,
}

impl Termination {
    /// A sentence for results and events.
    pub fn describe(self, grace: Duration) -> String {
        match self {
            Self::AlreadyGone => "its processes had already exited".into(),
            Self::Terminated => "the process group was sent SIGTERM and exited".into(),
            Self::Killed => format!(
                "the process group was sent SIGTERM, and SIGKILL after a {} ms grace period",
                grace.as_millis()
            ),
        }
    }
}

/// Ends every process of group `pgid`: SIGTERM, then SIGKILL to whatever is
/// still alive after `grace`. `child`, the group leader, is reaped on the
/// way when given.
pub async fn terminate_group(
    pgid: i32,
    mut child: Option<&mut Child>,
    grace: Duration,
) -> Termination {
    if !group_alive(pgid) {
        return Termination::AlreadyGone;
    }
    signal_group(pgid, Signal::TERM);
    if wait_gone(pgid, child.as_deref_mut(), grace).await {
        return Termination::Terminated;
    }
    signal_group(pgid, Signal::KILL);
    wait_gone(pgid, child, AFTER_KILL).await;
    Termination::Killed
}

/// Waits until the group is gone or `limit` passes; reaps `child` if it
/// exits meanwhile. True when the group is gone.
async fn wait_gone(pgid: i32, mut child: Option<&mut Child>, limit: Duration) -> bool {
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        if let Some(c) = child.as_deref_mut() {
            let _ = c.try_wait();
        }
        if !group_alive(pgid) {
            return true;
        }
        if tokio::time::Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(POLL).await;
    }
}

/// The synchronous version of [`terminate_group`] for drop paths: sends
/// SIGTERM now and leaves a thread behind to SIGKILL the group if anything
/// is still alive after `grace`.
pub fn terminate_group_in_background(pgid: i32, grace: Duration) {
    if !group_alive(pgid) {
        return;
    }
    signal_group(pgid, Signal::TERM);
    let spawned = std::thread::Builder::new()
        .name(format!("gatehouse-reaper-{pgid}"))
        .spawn(move || {
            let deadline = std::time::Instant::now() + grace;
            while std::time::Instant::now() < deadline {
                if !group_alive(pgid) {
                    return;
                }
                std::thread::sleep(POLL);
            }
            signal_group(pgid, Signal::KILL);
        });
    if spawned.is_err() {
        // No thread to wait with: kill at once rather than leak processes.
        signal_group(pgid, Signal::KILL);
    }
}

fn signal_group(pgid: i32, signal: Signal) {
    if let Some(pid) = Pid::from_raw(pgid) {
        // ESRCH (already gone) is the only expected error; nothing to do.
        let _ = kill_process_group(pid, signal);
    }
}

/// Whether any process of group `pgid` is alive (zombies don't count).
///
/// On Linux this reads `/proc`, because a zombie still "exists" for
/// `kill(2)` and an orphaned zombie may linger when PID 1 does not reap.
/// Elsewhere it falls back to `kill(-pgid, 0)`.
pub fn group_alive(pgid: i32) -> bool {
    let Some(pid) = Pid::from_raw(pgid) else {
        return false;
    };
    if test_kill_process_group(pid).is_err() {
        return false;
    }
    match std::fs::read_dir("/proc") {
        Ok(entries) => entries.flatten().any(|entry| {
            entry
                .file_name()
                .to_str()
                .and_then(|name| name.parse::<i32>().ok())
                .and_then(proc_state)
                .is_some_and(|(state, group)| group == pgid && state != 'Z' && state != 'X')
        }),
        Err(_) => true,
    }
}

/// Whether process `pid` is alive (not a zombie).
pub fn process_alive(pid: i32) -> bool {
    match proc_state(pid) {
        Some((state, _)) => state != 'Z' && state != 'X',
        None => false,
    }
}

/// (state, process group) of `pid` from `/proc/<pid>/stat`.
fn proc_state(pid: i32) -> Option<(char, i32)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may contain spaces and parentheses: fields start
    // after the last ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let _ppid = fields.next()?;
    let group = fields.next()?.parse().ok()?;
    Some((state, group))
}

/// The exit code of `status`, or the signal that ended it.
pub fn describe_exit(status: ExitStatus) -> (Option<i32>, Option<i32>) {
    use std::os::unix::process::ExitStatusExt;
    (status.code(), status.signal())
}

/// How often output is handed to [`OutputHandler::tick`] (20 per second).
pub const TICK: Duration = Duration::from_millis(50);
/// After the shell exits, how long to wait for processes it left holding
/// the output pipe before they are ended too.
const LEFTOVER_WAIT: Duration = Duration::from_millis(500);
/// After the group was ended, how long to keep draining output.
const DRAIN: Duration = Duration::from_secs(2);

/// Why Gatehouse stopped a command before it ended on its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StopCause {
    /// Its timeout passed.
    Timeout(Duration),
    /// The call was cancelled (user interrupt, failed sibling).
    Interrupted,
    /// Someone asked (TaskStop, session close), with who.
    Requested(String),
}

/// Receives a running command's output.
pub trait OutputHandler {
    /// New bytes, in order.
    fn output(&mut self, bytes: &[u8]);
    /// Called every [`TICK`] while the command runs, and once at the end.
    fn tick(&mut self) {}
}

/// How a driven command ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunEnd {
    /// The shell's exit code, if it exited.
    pub exit_code: Option<i32>,
    /// The signal that ended the shell, if one did.
    pub signal: Option<i32>,
    /// Set when Gatehouse stopped the command, with how.
    pub stopped: Option<(StopCause, Termination)>,
    /// Set when the shell exited but left processes behind in its group,
    /// which were then ended.
    pub leftovers: Option<Termination>,
}

/// Ends a process group when dropped, unless disarmed: the drop path of a
/// call future that is cancelled mid-flight.
#[derive(Debug)]
pub struct GroupGuard {
    pgid: i32,
    grace: Duration,
    armed: bool,
}

impl GroupGuard {
    /// Guards group `pgid`.
    pub fn new(pgid: i32, grace: Duration) -> Self {
        Self {
            pgid,
            grace,
            armed: true,
        }
    }

    /// The group is dealt with; dropping does nothing.
    pub fn disarm(mut self) {
        self.armed = false;
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if self.armed {
            terminate_group_in_background(self.pgid, self.grace);
        }
    }
}

async fn until(sleep: &mut Option<std::pin::Pin<Box<tokio::time::Sleep>>>) {
    match sleep {
        Some(s) => s.await,
        None => std::future::pending().await,
    }
}

/// Runs a spawned command to its end: feeds its output to `handler`, stops
/// it (the whole group, SIGTERM then SIGKILL after `grace`) when `stop`
/// resolves first, and ends anything it left behind. If the returned
/// future is dropped midway, the group is still ended.
pub async fn drive<S, H>(mut sp: Spawned, grace: Duration, stop: S, handler: &mut H) -> RunEnd
where
    S: std::future::Future<Output = StopCause>,
    H: OutputHandler,
{
    let guard = GroupGuard::new(sp.pgid, grace);
    tokio::pin!(stop);
    let mut ticker = tokio::time::interval(TICK);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut status: Option<ExitStatus> = None;
    let mut exited = false;
    let mut eof = false;
    let mut leftover_wait = None;
    let mut stop_cause = None;
    while !(exited && eof) {
        tokio::select! {
            chunk = sp.output.recv(), if !eof => match chunk {
                Some(bytes) => handler.output(&bytes),
                None => eof = true,
            },
            waited = sp.child.wait(), if !exited => {
                exited = true;
                status = waited.ok();
                if !eof {
                    leftover_wait = Some(Box::pin(tokio::time::sleep(LEFTOVER_WAIT)));
                }
            },
            _ = ticker.tick() => handler.tick(),
            () = until(&mut leftover_wait) => break,
            cause = &mut stop => {
                stop_cause = Some(cause);
                break;
            },
        }
    }
    let termination = terminate_group(sp.pgid, Some(&mut sp.child), grace).await;
    guard.disarm();
    // Whatever was written before the end is still in the pipe.
    let drain_deadline = tokio::time::Instant::now() + DRAIN;
    while !eof {
        match tokio::time::timeout_at(drain_deadline, sp.output.recv()).await {
            Ok(Some(bytes)) => handler.output(&bytes),
            Ok(None) | Err(_) => eof = true,
        }
    }
    if !exited {
        status = tokio::time::timeout(DRAIN, sp.child.wait())
            .await
            .ok()
            .and_then(Result::ok);
    }
    handler.tick();
    let (exit_code, signal) = status.map_or((None, None), describe_exit);
    let (stopped, leftovers) = match stop_cause {
        Some(cause) => (Some((cause, termination)), None),
        None if termination == Termination::AlreadyGone => (None, None),
        None => (None, Some(termination)),
    };
    RunEnd {
        exit_code,
        signal,
        stopped,
        leftovers,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Collect(Vec<u8>, usize);

    impl OutputHandler for Collect {
        fn output(&mut self, bytes: &[u8]) {
            self.0.extend_from_slice(bytes);
        }
        fn tick(&mut self) {
            self.1 += 1;
        }
    }

    fn shell(script: &str) -> Command {
        let mut cmd = Command::new("bash");
        cmd.arg("-c").arg(script);
        cmd
    }

    #[test]
    fn our_own_process_is_alive_and_parsed() {
        let me = i32::try_from(std::process::id()).unwrap();
        assert!(process_alive(me));
        let (state, _group) = proc_state(me).unwrap();
        assert_ne!(state, 'Z');
        assert!(!process_alive(i32::MAX));
        assert!(!group_alive(0), "pgid 0 is never a real group");
    }

    #[tokio::test]
    async fn a_command_runs_to_its_end_and_its_group_is_gone() {
        let sp = spawn(shell("echo out; echo err >&2; exit 7")).unwrap();
        let pgid = sp.pgid;
        let mut out = Collect::default();
        let end = drive(
            sp,
            Duration::from_millis(100),
            std::future::pending(),
            &mut out,
        )
        .await;
        assert_eq!(out.0, b"out\nerr\n");
        assert!(out.1 >= 1, "the final tick always comes");
        assert_eq!(end.exit_code, Some(7));
        assert_eq!(end.stopped, None);
        assert_eq!(end.leftovers, None);
        assert!(!group_alive(pgid));
    }

    #[tokio::test]
    async fn a_requested_stop_ends_the_group() {
        let sp = spawn(shell("echo go; sleep 1000")).unwrap();
        let pgid = sp.pgid;
        let mut out = Collect::default();
        let stop = async {
            tokio::time::sleep(Duration::from_millis(200)).await;
            StopCause::Requested("test".into())
        };
        let end = drive(sp, Duration::from_millis(100), stop, &mut out).await;
        assert_eq!(
            end.stopped,
            Some((StopCause::Requested("test".into()), Termination::Terminated))
        );
        assert_eq!(end.signal, Some(15));
        assert!(!group_alive(pgid));
    }
}
