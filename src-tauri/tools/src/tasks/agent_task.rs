//! Agent tasks: a sub-agent started with `run_in_background` runs as a task
//! of the session's [`TaskManager`] beside its Bash tasks (one id space, the
//! same events with `kind: agent`).
//!
//! The manager knows nothing of agent loops (`gatehouse-agent` depends on
//! this crate, not the reverse): [`TaskManager::start_agent`] registers the
//! task and hands the caller's driver an [`AgentTaskControl`], through which
//! the driver writes the agent's transcript lines to the task's output file,
//! takes follow-up messages (SendMessage) and reports each end. Messages:
//! while the agent runs they queue and its loop takes them before its next
//! model request ([`AgentTaskControl::take_messages`]); a message to an agent
//! that completed or failed starts it again under the same id (a new
//! `task_started`); a stopped agent takes none.

use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use gatehouse_core::events::Emitter;
use gatehouse_protocol::event::{EventBody, TaskKind, TaskStatus};
use tokio::sync::{Notify, watch};
use tokio_util::sync::CancellationToken;

use super::{Task, TaskError, TaskInfo, TaskManager, TaskState, lock, record_end};
use crate::bash::output::{CappedFile, MAX_FILE_BYTES};

/// The most bytes of an agent's final answer a notice carries (the output
/// file has it all).
pub const NOTICE_RESULT_BYTES: usize = 8 * 1024;
/// The most messages that may wait for one agent.
pub const MAX_QUEUED_MESSAGES: usize = 64;
/// The largest message SendMessage delivers, in bytes.
pub const MAX_MESSAGE_BYTES: usize = 100 * 1024;

/// What an agent task runs: its session and type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentTaskSpec {
    /// The sub-agent's own session (its transcript).
    pub agent_session_id: String,
    /// Its type.
    pub subagent_type: String,
    /// The call's short description.
    pub description: String,
}

/// The agent part of a task (see the module docs).
#[derive(Debug)]
pub(super) struct AgentSlot {
    pub(super) spec: AgentTaskSpec,
    inbox: Mutex<Inbox>,
    wake: Notify,
    log: Mutex<CappedFile>,
}

#[derive(Debug, Default)]
struct Inbox {
    queue: VecDeque<String>,
    /// The last final answer, for the notice.
    result: Option<String>,
}

/// How [`TaskManager::send_message`] delivered a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MessageDelivery {
    /// The agent is running: it reads the message before its next model
    /// request.
    Queued,
    /// The agent had ended: the message starts it again.
    Resumed,
}

impl TaskManager {
    /// Registers a background agent and runs `driver` with its control on
    /// the current Tokio runtime; returns at once. `tool_use_id` is the
    /// Agent call that starts it.
    pub fn start_agent<F, Fut>(
        &self,
        spec: AgentTaskSpec,
        tool_use_id: Option<String>,
        driver: F,
    ) -> Result<TaskInfo, TaskError>
    where
        F: FnOnce(AgentTaskControl) -> Fut,
        Fut: std::future::Future<Output = ()> + Send + 'static,
    {
        if self.closed.load(Ordering::SeqCst) {
            return Err(TaskError::Closed);
        }
        let runtime = tokio::runtime::Handle::try_current().map_err(|e| TaskError::Start {
            context: "no async runtime".into(),
            source: std::io::Error::other(e),
        })?;
        let (n, id, output_path, file) = self.claim_id("agent")?;
        let command = format!("{}: {}", spec.subagent_type, spec.description);
        let (state, _) = watch::channel(TaskState {
            status: TaskStatus::Running,
            exit_code: None,
            message: None,
        });
        let slot = Arc::new(AgentSlot {
            spec: spec.clone(),
            inbox: Mutex::new(Inbox::default()),
            wake: Notify::new(),
            log: Mutex::new(CappedFile::from_file(
                output_path.clone(),
                file,
                MAX_FILE_BYTES,
            )),
        });
        let task = Arc::new(Task {
            id: id.clone(),
            kind: TaskKind::Agent,
            command: command.clone(),
            description: Some(spec.description.clone()),
            output_path: output_path.clone(),
            pgid: None,
            agent: Some(Arc::clone(&slot)),
            state,
            stop: CancellationToken::new(),
            stop_reason: Mutex::new(None),
            read_offset: tokio::sync::Mutex::new(0),
            ends: std::sync::atomic::AtomicU64::new(0),
            ends_reported: std::sync::atomic::AtomicU64::new(0),
        });
        lock(&self.tasks).insert(n, Arc::clone(&task));
        emit_started(&self.emitter, &task, tool_use_id.clone());
        let control = AgentTaskControl {
            task: Arc::clone(&task),
            slot,
            emitter: self.emitter.clone(),
            notices: Arc::clone(&self.notices),
            closing: self.closing.clone(),
        };
        self.drivers.spawn_on(driver(control), &runtime);
        Ok(task.info())
    }

    /// Sends `text` to the agent task `id`: queued for its next model
    /// request when it runs, or starting it again when it completed or
    /// failed. Errors name the cause: an unknown id (with the known ones),
    /// a process task, a stopped agent, a full queue, the session closing.
    pub fn send_message(&self, id: &str, text: &str) -> Result<MessageDelivery, TaskError> {
        let task = self.find(id)?;
        let Some(agent) = &task.agent else {
            return Err(TaskError::NoMessages(format!(
                "task {id} is a background command ({}), not an agent; SendMessage only reaches agents started with run_in_background",
                task.command
            )));
        };
        if text.trim().is_empty() {
            return Err(TaskError::NoMessages(
                "the message is empty: say what the agent should do".into(),
            ));
        }
        if text.len() > MAX_MESSAGE_BYTES {
            return Err(TaskError::NoMessages(format!(
                "the message is {} bytes; at most {MAX_MESSAGE_BYTES} are delivered",
                text.len()
            )));
        }
        if self.closed.load(Ordering::SeqCst) {
            return Err(TaskError::Closed);
        }
        // The inbox lock orders this against the driver's end
        // (`AgentTaskControl::end`): a message is either taken by the
        // running loop or resumes the agent, never lost between the two.
        let mut inbox = lock(&agent.inbox);
        let state = task.state.borrow().clone();
        let delivery = match state.status {
            TaskStatus::Stopped => {
                return Err(TaskError::NoMessages(format!(
                    "agent task {id} was stopped ({}); it takes no more messages — start a new agent",
                    state.message.as_deref().unwrap_or("stopped")
                )));
            }
            _ if task.stop.is_cancelled() => {
                return Err(TaskError::NoMessages(format!(
                    "agent task {id} is stopping; it takes no more messages"
                )));
            }
            _ if inbox.queue.len() >= MAX_QUEUED_MESSAGES => {
                return Err(TaskError::NoMessages(format!(
                    "agent task {id} already has {MAX_QUEUED_MESSAGES} messages waiting; wait for it to read them"
                )));
            }
            TaskStatus::Running => MessageDelivery::Queued,
            TaskStatus::Completed | TaskStatus::Failed => {
                task.state.send_replace(TaskState {
                    status: TaskStatus::Running,
                    exit_code: None,
                    message: None,
                });
                emit_started(&self.emitter, &task, None);
                MessageDelivery::Resumed
            }
        };
        inbox.queue.push_back(text.to_owned());
        drop(inbox);
        agent.wake.notify_one();
        Ok(delivery)
    }

    /// What the session's model should be told at its next turn: one
    /// notice per task end since the last call, except ends a TaskOutput
    /// read already reported. Each is a `<task-notification>` block.
    pub fn take_notices(&self) -> Vec<String> {
        let pending = std::mem::take(&mut *lock(&self.notices));
        let mut out = Vec::new();
        for (id, end) in pending {
            let Ok(task) = self.find(&id) else { continue };
            if task.ends_reported.load(Ordering::SeqCst) >= end {
                continue;
            }
            out.push(notice(&task));
        }
        out
    }
}

fn emit_started(emitter: &Emitter, task: &Task, tool_use_id: Option<String>) {
    let spec = task.agent.as_ref().map(|a| &a.spec);
    emitter.emit(EventBody::TaskStarted {
        task_id: task.id.clone(),
        kind: task.kind,
        tool_use_id,
        command: task.command.clone(),
        agent_session_id: spec.map(|s| s.agent_session_id.clone()),
        subagent_type: spec.map(|s| s.subagent_type.clone()),
        description: task.description.clone(),
        output_path: task.output_path.display().to_string(),
    });
}

fn status_word(status: TaskStatus) -> &'static str {
    match status {
        TaskStatus::Running => "is running",
        TaskStatus::Completed => "completed",
        TaskStatus::Failed => "failed",
        TaskStatus::Stopped => "was stopped",
    }
}

/// The notice of a task's (latest) end.
fn notice(task: &Task) -> String {
    let state = task.state.borrow().clone();
    let what = match &task.agent {
        Some(a) => format!("agent {} ({})", a.spec.subagent_type, a.spec.description),
        None => format!("command `{}`", task.command),
    };
    let mut text = format!(
        "<task-notification>\nBackground task {} ({what}) {}",
        task.id,
        status_word(state.status)
    );
    if let Some(m) = &state.message {
        text.push_str(&format!(": {m}"));
    }
    text.push('.');
    if let Some(agent) = &task.agent
        && let Some(result) = &lock(&agent.inbox).result
    {
        text.push_str("\nIts final answer:\n");
        text.push_str(truncate(result, NOTICE_RESULT_BYTES));
        if result.len() > NOTICE_RESULT_BYTES {
            text.push_str("\n[…cut; TaskOutput has the whole transcript]");
        }
    }
    text.push_str(&format!(
        "\nRead its output with TaskOutput (task_id \"{}\"); the whole output is in {}.\n</task-notification>",
        task.id,
        task.output_path.display()
    ));
    text
}

/// The longest prefix of `s` of at most `max` bytes ending on a char
/// boundary.
fn truncate(s: &str, max: usize) -> &str {
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// What an agent task's driver uses (see the module docs). Dropping it
/// while the task still runs ends the task as failed, so no task is left
/// running without a driver.
#[derive(Debug)]
pub struct AgentTaskControl {
    task: Arc<Task>,
    slot: Arc<AgentSlot>,
    emitter: Emitter,
    notices: Arc<Mutex<Vec<(String, u64)>>>,
    closing: CancellationToken,
}

/// What [`AgentTaskControl::end`] decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AfterEnd {
    /// A message arrived after the loop's last model request: run it now
    /// (the task never stopped running).
    Continue(String),
    /// The task ended; wait for a message with
    /// [`AgentTaskControl::wait_message`].
    Ended,
}

impl AgentTaskControl {
    fn slot(&self) -> &AgentSlot {
        &self.slot
    }

    /// The task's id.
    pub fn task_id(&self) -> &str {
        &self.task.id
    }

    /// Why the task was asked to stop, once it was.
    pub fn stop_reason(&self) -> Option<String> {
        lock(&self.task.stop_reason).clone()
    }

    /// Fires when the task must stop (TaskStop, the session closing): the
    /// agent loop's interrupt.
    pub fn stop_token(&self) -> CancellationToken {
        self.task.stop.clone()
    }

    /// Appends `line` (a newline is added) to the task's output, which
    /// TaskOutput reads.
    pub fn log(&self, line: &str) {
        let mut log = lock(&self.slot().log);
        log.write(line.as_bytes());
        log.write(b"\n");
    }

    /// A writer of lines to the task's output (see [`Self::log`]) that can
    /// be handed to whoever watches the agent's events.
    pub fn logger(&self) -> impl Fn(&str) + Send + Sync + 'static {
        let slot = Arc::clone(&self.slot);
        move |line| {
            let mut log = lock(&slot.log);
            log.write(line.as_bytes());
            log.write(b"\n");
        }
    }

    /// The messages waiting for the running agent (its loop calls this
    /// before each model request).
    pub fn take_messages(&self) -> Vec<String> {
        lock(&self.slot().inbox).queue.drain(..).collect()
    }

    /// A source of [`Self::take_messages`] that can be handed to the loop,
    /// each message framed so the agent knows who sent it; each is also
    /// written to the task's output.
    pub fn message_source(&self) -> impl Fn() -> Vec<String> + Send + Sync + 'static {
        let slot = Arc::clone(&self.slot);
        move || {
            let taken: Vec<String> = lock(&slot.inbox).queue.drain(..).collect();
            let mut log = lock(&slot.log);
            taken
                .into_iter()
                .map(|m| {
                    log.write(format!("[message] {m}\n").as_bytes());
                    format!("A message from the agent that started you (SendMessage):\n{m}")
                })
                .collect()
        }
    }

    /// Reports the end of one run: `status` (not `Running`), a message for
    /// people, the final answer. If a message is already waiting, the task
    /// goes on with it instead and nothing is reported.
    pub fn end(&self, status: TaskStatus, message: String, result: Option<String>) -> AfterEnd {
        let slot = self.slot();
        let mut inbox = lock(&slot.inbox);
        if status != TaskStatus::Stopped
            && !self.task.stop.is_cancelled()
            && let Some(next) = inbox.queue.pop_front()
        {
            return AfterEnd::Continue(next);
        }
        if result.is_some() {
            inbox.result = result;
        }
        record_end(&self.task, &self.notices);
        self.task.state.send_replace(TaskState {
            status,
            exit_code: None,
            message: Some(message.clone()),
        });
        drop(inbox);
        self.emitter.emit(EventBody::TaskCompleted {
            task_id: self.task.id.clone(),
            kind: TaskKind::Agent,
            status,
            exit_code: None,
            output_path: self.task.output_path.display().to_string(),
            message,
        });
        AfterEnd::Ended
    }

    /// After an end: waits for a message ([`TaskManager::send_message`]
    /// already marked the task running again). `None` when the task was
    /// stopped or the session is closing: the driver returns.
    pub async fn wait_message(&self) -> Option<String> {
        let slot = self.slot();
        loop {
            let woken = slot.wake.notified();
            if let Some(m) = lock(&slot.inbox).queue.pop_front() {
                return Some(m);
            }
            if self.task.stop.is_cancelled() || self.closing.is_cancelled() {
                return None;
            }
            tokio::select! {
                () = woken => {}
                () = self.task.stop.cancelled() => {}
                () = self.closing.cancelled() => {}
            }
        }
    }
}

impl Drop for AgentTaskControl {
    fn drop(&mut self) {
        if self.task.is_running() {
            let (status, message) = if self.task.stop.is_cancelled() {
                let reason = lock(&self.task.stop_reason)
                    .clone()
                    .unwrap_or_else(|| "stopped".into());
                (TaskStatus::Stopped, format!("stopped because {reason}"))
            } else {
                (
                    TaskStatus::Failed,
                    "the agent's driver ended without reporting how the agent ended".to_owned(),
                )
            };
            // A message queued now has nobody to read it; it is dropped
            // with the task's end (the end reports that).
            lock(&self.slot().inbox).queue.clear();
            let _ = self.end(status, message, None);
        }
    }
}
