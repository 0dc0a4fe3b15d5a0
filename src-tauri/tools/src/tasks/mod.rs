//! Background tasks: Bash commands and sub-agents started with
//! `run_in_background`.
//!
//! A [`TaskManager`] belongs to one session; its tasks share one id space
//! (`bash_<n>`, `agent_<n>`). A process task runs in its own process group;
//! an agent task is a sub-agent's loop driven through an
//! [`AgentTaskControl`] (see [`agent_task`]; the loop itself lives in
//! `gatehouse-agent`). Either way the whole output (an agent's: its
//! transcript as lines) goes to `<dir>/<task id>.log`, and its life is
//! reported as `task_started` / `task_completed` events with a typed
//! `kind`; a process task's output also goes out live as `task_output`
//! events (at most [`OUTPUT_MAX_BYTES`] each, one per
//! [`OUTPUT_EVERY_TICKS`] ticks). The model reads new output with [`TaskOutputTool`], ends a task
//! with [`TaskStopTool`] and sends an agent a follow-up with
//! [`SendMessageTool`]; a task that ended is announced to the session's
//! model at its next turn ([`TaskManager::take_notices`]) unless TaskOutput
//! already reported its end. [`TaskManager::shutdown`] stops whatever still
//! runs when the session closes and says what it stopped. Dropping the
//! manager without a shutdown still ends every running group (SIGTERM,
//! SIGKILL after the grace period).
//!
//! | module | what |
//! |---|---|
//! | [`output_tool`] | TaskOutput |
//! | [`stop_tool`] | TaskStop |
//! | [`send_tool`] | SendMessage |
//! | [`agent_task`] | agent tasks: start, messages, end |

pub mod agent_task;
pub mod output_tool;
pub mod send_tool;
pub mod stop_tool;

pub use agent_task::{AfterEnd, AgentTaskControl, AgentTaskSpec, MessageDelivery};
pub use output_tool::TaskOutputTool;
pub use send_tool::SendMessageTool;
pub use stop_tool::TaskStopTool;

use std::collections::BTreeMap;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use gatehouse_core::events::Emitter;
use gatehouse_protocol::event::{EventBody, TaskKind, TaskStatus};
use regex::Regex;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::bash::DEFAULT_GRACE;
use crate::bash::output::{CappedFile, MAX_FILE_BYTES, OutputRecorder, ProgressCoalescer};
use crate::bash::process::{self, OutputHandler, StopCause, Termination};

/// How much of a task's new output one read returns at most (head + tail
/// bytes; the middle is elided, the file has it all).
pub const READ_HEAD_BYTES: usize = 15_000;
/// See [`READ_HEAD_BYTES`].
pub const READ_TAIL_BYTES: usize = 15_000;
/// With a filter, the most bytes of one line that are kept and matched.
pub const MAX_FILTER_LINE: usize = 64 * 1024;
/// After asking a task to stop, how long to wait for it to be gone beyond
/// the grace period.
const STOP_SLACK: Duration = Duration::from_secs(10);

/// Why a task operation failed.
#[derive(Debug, thiserror::Error)]
pub enum TaskError {
    /// No task has this id.
    #[error("no background task has the id {id:?}{known}")]
    Unknown {
        /// The id asked for.
        id: String,
        /// The known ids, as a sentence suffix.
        known: String,
    },
    /// The session is closing; no new tasks start.
    #[error("the session is closing; no new background tasks can start")]
    Closed,
    /// Starting the process (or its output file) failed.
    #[error("could not start the background task: {context}: {source}")]
    Start {
        /// What was being done.
        context: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// Reading the output file failed.
    #[error("could not read the output of task {id} from {path}: {source}")]
    Read {
        /// The task.
        id: String,
        /// Its output file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The filter is not a valid regular expression.
    #[error("the filter is not a valid regular expression: {0}")]
    BadFilter(#[from] regex::Error),
    /// The task cannot take a message (not an agent, stopped, gone).
    #[error("{0}")]
    NoMessages(String),
}

/// A task's state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskState {
    /// Running, completed, failed or stopped.
    pub status: TaskStatus,
    /// The exit code once it exited.
    pub exit_code: Option<i32>,
    /// How it ended, once it did.
    pub message: Option<String>,
}

/// What is known about a task (a snapshot).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskInfo {
    /// The id TaskOutput, TaskStop and SendMessage take.
    pub task_id: String,
    /// A process or an agent.
    pub kind: TaskKind,
    /// The command line (an agent: its type and description).
    pub command: String,
    /// The model's description.
    pub description: Option<String>,
    /// The whole output.
    pub output_path: PathBuf,
    /// The process group id (processes only).
    pub pgid: Option<i32>,
    /// An agent task's session and type.
    pub agent: Option<AgentTaskSpec>,
    /// Its state.
    pub state: TaskState,
}

/// One read of a task's output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskRead {
    /// The task, as of the end of the read.
    pub info: TaskInfo,
    /// New output since the previous read (ANSI stripped, filtered, the
    /// middle elided when over budget).
    pub output: String,
    /// New bytes consumed by this read (before filtering).
    pub new_bytes: u64,
    /// Bytes left out of `output` by the budget.
    pub elided_bytes: u64,
    /// Whether a blocking read gave up waiting while the task still ran.
    pub wait_timed_out: bool,
}

#[derive(Debug)]
struct Task {
    id: String,
    kind: TaskKind,
    command: String,
    description: Option<String>,
    output_path: PathBuf,
    pgid: Option<i32>,
    agent: Option<Arc<agent_task::AgentSlot>>,
    state: watch::Sender<TaskState>,
    stop: CancellationToken,
    stop_reason: Mutex<Option<String>>,
    /// Where the next read starts; held across the read so that two
    /// reads never return the same bytes.
    read_offset: tokio::sync::Mutex<u64>,
    /// How many times the task ended, and how many of those ends a
    /// TaskOutput read reported (then no notice is needed for it).
    ends: AtomicU64,
    ends_reported: AtomicU64,
}

impl Task {
    fn info(&self) -> TaskInfo {
        TaskInfo {
            task_id: self.id.clone(),
            kind: self.kind,
            command: self.command.clone(),
            description: self.description.clone(),
            output_path: self.output_path.clone(),
            pgid: self.pgid,
            agent: self.agent.as_ref().map(|a| a.spec.clone()),
            state: self.state.borrow().clone(),
        }
    }

    fn is_running(&self) -> bool {
        self.state.borrow().status == TaskStatus::Running
    }

    fn request_stop(&self, reason: &str) {
        let mut slot = lock(&self.stop_reason);
        if slot.is_none() {
            *slot = Some(reason.to_owned());
        }
        drop(slot);
        self.stop.cancel();
    }

    /// Waits until the task is no longer running, at most `limit`. True
    /// when it ended.
    async fn wait_done(&self, limit: Duration) -> bool {
        let mut rx = self.state.subscribe();
        tokio::time::timeout(limit, rx.wait_for(|s| s.status != TaskStatus::Running))
            .await
            .is_ok_and(|r| r.is_ok())
    }
}

/// The background tasks of one session.
#[derive(Debug)]
pub struct TaskManager {
    dir: PathBuf,
    emitter: Emitter,
    grace: Duration,
    next_id: AtomicU64,
    closed: AtomicBool,
    /// Fires at shutdown: idle agents waiting for a message end.
    closing: CancellationToken,
    /// The agent tasks' drivers: shutdown waits for them to finish what
    /// they do after their last run (removing an unchanged worktree).
    drivers: TaskTracker,
    tasks: Mutex<BTreeMap<u64, Arc<Task>>>,
    /// Ends not yet announced to the model: task id and its end count.
    notices: Arc<Mutex<Vec<(String, u64)>>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl TaskManager {
    /// A manager writing task output under `dir` (normally `<session
    /// dir>/tasks`) and reporting task events through `emitter`.
    pub fn new(dir: impl Into<PathBuf>, emitter: Emitter) -> Arc<Self> {
        Self::with_grace(dir, emitter, DEFAULT_GRACE)
    }

    /// Like [`TaskManager::new`] with a grace period between SIGTERM and
    /// SIGKILL other than the default 3 s.
    pub fn with_grace(dir: impl Into<PathBuf>, emitter: Emitter, grace: Duration) -> Arc<Self> {
        Arc::new(Self {
            dir: dir.into(),
            emitter,
            grace,
            next_id: AtomicU64::new(1),
            closed: AtomicBool::new(false),
            closing: CancellationToken::new(),
            drivers: TaskTracker::new(),
            tasks: Mutex::new(BTreeMap::new()),
            notices: Arc::new(Mutex::new(Vec::new())),
        })
    }

    /// Where task output goes.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The next free id `<prefix>_<n>` and its newly created output file.
    ///
    /// A resumed session gets a new manager over the same `dir`, whose
    /// counter starts at 1 again: an id whose output file already exists
    /// belongs to an earlier run of the session, so it is skipped rather
    /// than reused (reusing it truncated that task's output and made the
    /// UI's row for it stand for a different command). The file is
    /// created with `create_new`, which makes the claim atomic.
    fn claim_id(&self, prefix: &str) -> Result<(u64, String, PathBuf, std::fs::File), TaskError> {
        std::fs::create_dir_all(&self.dir).map_err(|source| TaskError::Start {
            context: format!("creating {}", self.dir.display()),
            source,
        })?;
        loop {
            let n = self.next_id.fetch_add(1, Ordering::SeqCst);
            let id = format!("{prefix}_{n}");
            let output_path = self.dir.join(format!("{id}.log"));
            match std::fs::File::create_new(&output_path) {
                Ok(file) => return Ok((n, id, output_path, file)),
                // Bounded by the files in `dir`: each is skipped once.
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(source) => {
                    return Err(TaskError::Start {
                        context: format!("creating {}", output_path.display()),
                        source,
                    });
                }
            }
        }
    }

    /// Starts `cmd` (a shell built by the Bash tool's launcher) as a task
    /// and returns at once. Must be called within a Tokio runtime.
    pub fn start(
        &self,
        cmd: tokio::process::Command,
        command: &str,
        description: Option<String>,
        tool_use_id: Option<String>,
    ) -> Result<TaskInfo, TaskError> {
        self.start_keeping(cmd, command, description, tool_use_id, Box::new(()))
    }

    /// [`Self::start`], keeping `keep` (the sandbox's network proxy) alive
    /// until the task has ended.
    pub fn start_keeping(
        &self,
        cmd: tokio::process::Command,
        command: &str,
        description: Option<String>,
        tool_use_id: Option<String>,
        keep: Box<dyn std::any::Any + Send>,
    ) -> Result<TaskInfo, TaskError> {
        if self.closed.load(Ordering::SeqCst) {
            return Err(TaskError::Closed);
        }
        let runtime = tokio::runtime::Handle::try_current().map_err(|e| TaskError::Start {
            context: "no async runtime".into(),
            source: std::io::Error::other(e),
        })?;
        let (n, id, output_path, file) = self.claim_id("bash")?;
        let spawned = process::spawn(cmd).map_err(|source| TaskError::Start {
            context: "spawning the shell".into(),
            source,
        })?;
        let (state, _) = watch::channel(TaskState {
            status: TaskStatus::Running,
            exit_code: None,
            message: None,
        });
        let task = Arc::new(Task {
            id: id.clone(),
            kind: TaskKind::Process,
            command: command.to_owned(),
            description: description.clone(),
            output_path: output_path.clone(),
            pgid: Some(spawned.pgid),
            agent: None,
            state,
            stop: CancellationToken::new(),
            stop_reason: Mutex::new(None),
            read_offset: tokio::sync::Mutex::new(0),
            ends: AtomicU64::new(0),
            ends_reported: AtomicU64::new(0),
        });
        lock(&self.tasks).insert(n, Arc::clone(&task));
        self.emitter.emit(EventBody::TaskStarted {
            task_id: id,
            kind: TaskKind::Process,
            tool_use_id,
            command: command.to_owned(),
            agent_session_id: None,
            subagent_type: None,
            description,
            output_path: output_path.display().to_string(),
        });
        let info = task.info();
        let run = run_task(
            task,
            spawned,
            file,
            self.emitter.clone(),
            self.grace,
            Arc::clone(&self.notices),
        );
        runtime.spawn(async move {
            run.await;
            drop(keep);
        });
        Ok(info)
    }

    fn find(&self, id: &str) -> Result<Arc<Task>, TaskError> {
        let tasks = lock(&self.tasks);
        tasks.values().find(|t| t.id == id).cloned().ok_or_else(|| {
            let ids: Vec<&str> = tasks.values().map(|t| t.id.as_str()).collect();
            TaskError::Unknown {
                id: id.to_owned(),
                known: if ids.is_empty() {
                    " (there are no background tasks)".into()
                } else {
                    format!(" (known tasks: {})", ids.join(", "))
                },
            }
        })
    }

    /// Every task of the session, oldest first.
    pub fn list(&self) -> Vec<TaskInfo> {
        lock(&self.tasks).values().map(|t| t.info()).collect()
    }

    /// One task.
    pub fn info(&self, id: &str) -> Result<TaskInfo, TaskError> {
        self.find(id).map(|t| t.info())
    }

    /// Reads a task's output written since the previous read. With `block`,
    /// first waits (at most `wait`) for the task to end. With `filter`, only
    /// lines matching the regular expression are returned.
    pub async fn read(
        &self,
        id: &str,
        block: bool,
        wait: Duration,
        filter: Option<&str>,
    ) -> Result<TaskRead, TaskError> {
        let filter = filter.map(Regex::new).transpose()?;
        let task = self.find(id)?;
        let mut wait_timed_out = false;
        if block && task.is_running() {
            wait_timed_out = !task.wait_done(wait).await;
        }
        // Counted before the snapshot: an end this read reports needs no
        // notice (an end after the snapshot is not counted here).
        let ends = task.ends.load(Ordering::SeqCst);
        let info = task.info();
        if info.state.status != TaskStatus::Running {
            task.ends_reported.fetch_max(ends, Ordering::SeqCst);
        }
        let mut offset = task.read_offset.lock().await;
        let path = task.output_path.clone();
        let from = *offset;
        // A task may have written up to 1 GiB: read off the async threads.
        let read = tokio::task::spawn_blocking(move || read_since(&path, from, filter.as_ref()))
            .await
            .unwrap_or_else(|e| Err(std::io::Error::other(e)));
        let (recorder, consumed) = read.map_err(|source| TaskError::Read {
            id: task.id.clone(),
            path: task.output_path.clone(),
            source,
        })?;
        *offset += consumed;
        drop(offset);
        let rendered = recorder.render();
        Ok(TaskRead {
            info,
            output: rendered.text,
            new_bytes: consumed,
            elided_bytes: rendered.elided_bytes,
            wait_timed_out,
        })
    }

    /// Stops a task (its whole process group) and waits for it to end.
    /// Stopping a task that already ended changes nothing.
    pub async fn stop(&self, id: &str, reason: &str) -> Result<TaskInfo, TaskError> {
        let task = self.find(id)?;
        if task.is_running() {
            task.request_stop(reason);
            task.wait_done(self.grace + STOP_SLACK).await;
        }
        Ok(task.info())
    }

    /// Stops every running task (the session is closing) and reports the
    /// ones it stopped. No task can start afterwards.
    pub async fn shutdown(&self) -> Vec<TaskInfo> {
        self.closed.store(true, Ordering::SeqCst);
        self.closing.cancel();
        let running: Vec<Arc<Task>> = lock(&self.tasks)
            .values()
            .filter(|t| t.is_running())
            .cloned()
            .collect();
        for task in &running {
            task.request_stop("the session closed");
        }
        for task in &running {
            task.wait_done(self.grace + STOP_SLACK).await;
        }
        // Idle agents' drivers end at `closing`; what they do last is bounded.
        self.drivers.close();
        let _ = tokio::time::timeout(self.grace + STOP_SLACK, self.drivers.wait()).await;
        running.iter().map(|t| t.info()).collect()
    }
}

impl Drop for TaskManager {
    fn drop(&mut self) {
        self.closing.cancel();
        for task in lock(&self.tasks).values() {
            match task.pgid {
                Some(pgid) if task.is_running() => {
                    process::terminate_group_in_background(pgid, self.grace);
                }
                // An agent's loop stops at its token.
                _ => task.stop.cancel(),
            }
        }
    }
}

/// The most bytes one `task_output` event carries (the newest; the rest
/// is counted as skipped, the file has it all).
pub const OUTPUT_MAX_BYTES: usize = 4 * 1024;
/// A `task_output` event goes out at most every this many output ticks
/// ([`process::TICK`], 50 ms): at most four a second per task.
pub const OUTPUT_EVERY_TICKS: u32 = 5;

/// Writes a task's output to its file, and batches it into `task_output`
/// events for the tasks panel (bounded and throttled).
struct FileSink {
    file: CappedFile,
    task_id: String,
    emitter: Emitter,
    live: ProgressCoalescer,
    ticks: u32,
}

impl FileSink {
    fn emit(&mut self, all: bool) {
        if let Some(chunk) = self.live.take(all) {
            self.emitter.emit(EventBody::TaskOutput {
                task_id: self.task_id.clone(),
                text: chunk.text,
                skipped_bytes: chunk.skipped_bytes,
                total_bytes: chunk.total_bytes,
            });
        }
    }
}

impl OutputHandler for FileSink {
    fn output(&mut self, bytes: &[u8]) {
        self.file.write(bytes);
        self.live.push(bytes);
    }

    fn tick(&mut self) {
        self.ticks += 1;
        if self.ticks >= OUTPUT_EVERY_TICKS {
            self.ticks = 0;
            self.emit(false);
        }
    }
}

/// Drives one task to its end and reports it.
async fn run_task(
    task: Arc<Task>,
    spawned: process::Spawned,
    file: std::fs::File,
    emitter: Emitter,
    grace: Duration,
    notices: Arc<Mutex<Vec<(String, u64)>>>,
) {
    let mut sink = FileSink {
        file: CappedFile::from_file(task.output_path.clone(), file, MAX_FILE_BYTES),
        task_id: task.id.clone(),
        emitter: emitter.clone(),
        live: ProgressCoalescer::with_cap(OUTPUT_MAX_BYTES),
        ticks: 0,
    };
    let stop_token = task.stop.clone();
    let stop_task = Arc::clone(&task);
    let stop = async move {
        stop_token.cancelled().await;
        let reason = lock(&stop_task.stop_reason)
            .clone()
            .unwrap_or_else(|| "stopped".into());
        StopCause::Requested(reason)
    };
    let end = process::drive(spawned, grace, stop, &mut sink).await;
    // What is left goes out before the end (the panel's last lines).
    sink.emit(true);
    let (status, mut message) = match &end.stopped {
        Some((StopCause::Requested(reason), how)) => (
            TaskStatus::Stopped,
            format!("stopped because {reason}: {}", how.describe(grace)),
        ),
        Some((cause, how)) => (
            TaskStatus::Stopped,
            format!("stopped ({cause:?}): {}", how.describe(grace)),
        ),
        None => match (end.exit_code, end.signal) {
            (Some(0), _) => (TaskStatus::Completed, "exited with code 0".to_owned()),
            (Some(code), _) => (TaskStatus::Failed, format!("exited with code {code}")),
            (None, Some(sig)) => (TaskStatus::Failed, format!("killed by signal {sig}")),
            (None, None) => (
                TaskStatus::Failed,
                "ended with an unknown status".to_owned(),
            ),
        },
    };
    if let Some(how) = end.leftovers
        && how != Termination::AlreadyGone
    {
        message.push_str(&format!(
            "; processes it left running were stopped ({})",
            how.describe(grace)
        ));
    }
    if let Some(problem) = sink.file.problem() {
        message.push_str(&format!("; its output file is incomplete: {problem}"));
    }
    let state = TaskState {
        status,
        exit_code: end.exit_code,
        message: Some(message.clone()),
    };
    // Counted before the state changes, so a read that sees the end also
    // sees its count (and no notice repeats what it reported).
    record_end(&task, &notices);
    task.state.send_replace(state);
    emitter.emit(EventBody::TaskCompleted {
        task_id: task.id.clone(),
        kind: TaskKind::Process,
        status,
        exit_code: end.exit_code,
        output_path: task.output_path.display().to_string(),
        message,
    });
}

/// Counts an end of `task` and queues its notice.
fn record_end(task: &Task, notices: &Mutex<Vec<(String, u64)>>) {
    let n = task.ends.fetch_add(1, Ordering::SeqCst) + 1;
    lock(notices).push((task.id.clone(), n));
}

/// Reads `path` from `offset` to its current end into a head/tail
/// recorder, keeping only lines matching `filter` when one is given.
/// Returns the recorder and the bytes consumed.
fn read_since(
    path: &Path,
    offset: u64,
    filter: Option<&Regex>,
) -> std::io::Result<(OutputRecorder, u64)> {
    let mut recorder =
        OutputRecorder::in_memory(Some(path.to_path_buf()), READ_HEAD_BYTES, READ_TAIL_BYTES);
    let mut file = std::fs::File::open(path)?;
    let end = file.metadata()?.len();
    if end <= offset {
        return Ok((recorder, 0));
    }
    file.seek(SeekFrom::Start(offset))?;
    let mut reader = file.take(end - offset);
    let mut consumed = 0_u64;
    match filter {
        None => {
            let mut buf = vec![0_u8; 64 * 1024];
            loop {
                let n = reader.read(&mut buf)?;
                if n == 0 {
                    break;
                }
                consumed += n as u64;
                recorder.push(&buf[..n]);
            }
        }
        Some(re) => {
            // Lines are matched on at most their first MAX_FILTER_LINE
            // bytes, so a single 50 MB line costs no more memory than that.
            let mut line = Vec::new();
            let keep = |line: &[u8], recorder: &mut OutputRecorder| {
                let text = crate::bash::output::to_model_text(line);
                if re.is_match(text.trim_end_matches(['\n', '\r'])) {
                    recorder.push(line);
                }
            };
            let mut buf = vec![0_u8; 64 * 1024];
            loop {
                let n = reader.read(&mut buf)?;
                if n == 0 {
                    break;
                }
                consumed += n as u64;
                for piece in buf[..n].split_inclusive(|b| *b == b'\n') {
                    let room = MAX_FILTER_LINE.saturating_sub(line.len());
                    line.extend_from_slice(&piece[..piece.len().min(room)]);
                    if piece.ends_with(b"\n") {
                        keep(&line, &mut recorder);
                        line.clear();
                    }
                }
            }
            if !line.is_empty() {
                keep(&line, &mut recorder);
            }
        }
    }
    Ok((recorder, consumed))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn sink(events: &Arc<gatehouse_core::events::MemorySink>, dir: &Path) -> FileSink {
        let path = dir.join("t.log");
        let file = std::fs::File::create(&path).unwrap();
        FileSink {
            file: CappedFile::from_file(path, file, MAX_FILE_BYTES),
            task_id: "bash_1".into(),
            emitter: Emitter::new("s", events.clone()),
            live: ProgressCoalescer::with_cap(OUTPUT_MAX_BYTES),
            ticks: 0,
        }
    }

    fn outputs(events: &gatehouse_core::events::MemorySink) -> Vec<(String, u64, u64)> {
        events
            .take()
            .into_iter()
            .filter_map(|e| match e.body {
                EventBody::TaskOutput {
                    text,
                    skipped_bytes,
                    total_bytes,
                    ..
                } => Some((text, skipped_bytes, total_bytes)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn live_output_goes_out_once_per_five_ticks_with_only_the_newest_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let events = Arc::new(gatehouse_core::events::MemorySink::new());
        let mut sink = sink(&events, dir.path());
        // Ticks without output send nothing.
        for _ in 0..20 {
            sink.tick();
        }
        assert!(outputs(&events).is_empty());
        // Output between ticks: nothing until the fifth tick, then one
        // event with the newest OUTPUT_MAX_BYTES.
        for _ in 0..OUTPUT_EVERY_TICKS - 1 {
            sink.output(&[b'a'; 3000]);
            sink.tick();
        }
        assert!(outputs(&events).is_empty());
        sink.output(b"\x1b[31mred\x1b[0m\n");
        sink.tick();
        let sent = outputs(&events);
        assert_eq!(
            sent.len(),
            1,
            "{:?}",
            sent.iter().map(|s| (s.1, s.2)).collect::<Vec<_>>()
        );
        let (text, skipped, total) = &sent[0];
        assert_eq!(text.len(), OUTPUT_MAX_BYTES);
        assert!(text.ends_with("\x1b[31mred\x1b[0m\n"), "ANSI kept");
        let all = 3000 * u64::from(OUTPUT_EVERY_TICKS - 1) + 13;
        assert_eq!(*total, all);
        assert_eq!(*skipped + text.len() as u64, all);
        // The end sends the rest at once, a split character included.
        sink.output("é".as_bytes().split_at(1).0);
        sink.emit(true);
        let sent = outputs(&events);
        assert_eq!(sent.len(), 1);
        assert_eq!((sent[0].1, sent[0].2), (0, all + 1));
        // The file has every byte.
        assert_eq!(
            std::fs::metadata(dir.path().join("t.log")).unwrap().len(),
            all + 1
        );
    }

    #[test]
    fn filtered_reads_bound_long_lines_and_keep_partial_last_lines() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.log");
        let mut data = b"keep 1\nskip\n".to_vec();
        data.extend(std::iter::repeat_n(b'k', 3 * MAX_FILTER_LINE));
        data.extend_from_slice(b"\nkeep last");
        std::fs::write(&path, &data).unwrap();
        let re = Regex::new("^k").unwrap();
        let (rec, consumed) = read_since(&path, 0, Some(&re)).unwrap();
        assert_eq!(consumed, data.len() as u64);
        // "keep 1\n" + the long line cut to MAX_FILTER_LINE + "keep last".
        assert_eq!(rec.total(), (7 + MAX_FILTER_LINE + 9) as u64);
        let text = rec.render().text;
        assert!(text.starts_with("keep 1\nkkk"), "{}", &text[..20]);
        assert!(text.ends_with("keep last"), "{text:.40}");
        assert!(!text.contains("skip"));
        // From an offset, only what follows.
        let (rec, consumed) = read_since(&path, 7, None).unwrap();
        assert_eq!(consumed, data.len() as u64 - 7);
        assert!(rec.render().text.starts_with("skip\n"));
    }
}
