//! The streaming executor (SPEC §4): tool_use blocks are added one at a
//! time while the model streams, each call starts as soon as the rules
//! allow, and results come back in the original order.
//!
//! A call may start when nothing is executing, or when it and everything
//! executing are concurrency-safe and fewer than the concurrency limit are
//! running. Calls start in arrival order: a call never overtakes an earlier
//! one that is still waiting, which makes the executor's batches exactly
//! those of [`crate::scheduler::partition`]. Context modifiers of unsafe
//! calls are applied when they complete, before the next call starts (that
//! is, between batches); those of safe calls are reported and ignored.
//!
//! Cancellation:
//! * sibling abort: when a call of a tool with `aborts_siblings_on_error`
//!   fails, every other unfinished call of the message is cancelled (not
//!   the turn: the user's token is untouched);
//! * user interrupt: queued calls never start; running calls still in
//!   their pre-call stages stop; running `Cancel` tools stop; running
//!   `Block` tools finish and keep their result.
//!
//! The executor is an actor task, so calls keep starting and finishing
//! while the agent loop is busy reading the model's stream.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use gatehouse_protocol::event::EventBody;
use tokio::sync::mpsc;
use tokio::task::{JoinHandle, JoinSet};
use tokio_util::sync::CancellationToken;

use crate::context::ToolUseContext;
use crate::pipeline::{CallTokens, Outcome, Prepared};
use crate::runtime::{CallStatus, ToolCallResult, ToolRuntime, ToolUseBlock};
use crate::scheduler::BatchTracker;

/// What the executor hands back at the end of a message.
#[derive(Debug)]
pub struct ExecutionOutcome {
    /// One result per tool_use block, in the original order.
    pub results: Vec<ToolCallResult>,
    /// The context after the message's (unsafe) context modifiers.
    pub context: ToolUseContext,
}

enum Command {
    Add(ToolUseBlock),
    Finish,
}

/// Runs the tool calls of one assistant message; see the module docs.
#[derive(Debug)]
pub struct StreamingToolExecutor {
    commands: mpsc::UnboundedSender<Command>,
    results: mpsc::UnboundedReceiver<ToolCallResult>,
    actor: JoinHandle<ToolUseContext>,
    initial: ToolUseContext,
}

impl StreamingToolExecutor {
    pub(crate) fn start(
        runtime: Arc<ToolRuntime>,
        ctx: ToolUseContext,
        interrupt: CancellationToken,
    ) -> Self {
        let (commands, rx) = mpsc::unbounded_channel();
        let (results_tx, results) = mpsc::unbounded_channel();
        let actor = Actor {
            max_concurrency: runtime.max_concurrency(),
            runtime,
            ctx: Arc::new(ctx.clone()),
            interrupt,
            calls: Vec::new(),
            next_start: 0,
            next_yield: 0,
            executing: 0,
            executing_unsafe: false,
            tracker: BatchTracker::default(),
            seen_ids: HashSet::new(),
            missing_ids: 0,
            tasks: JoinSet::new(),
            task_index: HashMap::new(),
            results_tx,
            interrupted: false,
            sibling_error: None,
        };
        Self {
            commands,
            results,
            actor: tokio::spawn(actor.run(rx)),
            initial: ctx,
        }
    }

    /// Queues one tool_use block; the call starts as soon as it may.
    /// Never blocks; malformed blocks are answered with an error result.
    ///
    /// Must not be called after [`Self::finish`]: the executor no longer
    /// listens, and such a block would get no result.
    pub fn add_tool(&mut self, block: ToolUseBlock) {
        // The actor only stops after `finish`, so this cannot fail before.
        let _ = self.commands.send(Command::Add(block));
    }

    /// Declares that the message is complete: no more blocks.
    pub fn finish(&mut self) {
        let _ = self.commands.send(Command::Finish);
    }

    /// The next result in the original order, waiting for it if needed;
    /// `None` once every block's result was returned after [`Self::finish`].
    pub async fn next_result(&mut self) -> Option<ToolCallResult> {
        self.results.recv().await
    }

    /// Finishes the message and waits for every result.
    pub async fn collect(mut self) -> ExecutionOutcome {
        self.finish();
        let mut results = Vec::new();
        while let Some(r) = self.results.recv().await {
            results.push(r);
        }
        // The actor only fails if it panicked; keep the turn going with the
        // context as it was.
        let context = self.actor.await.unwrap_or(self.initial);
        ExecutionOutcome { results, context }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    Queued,
    Executing,
    Completed,
    Yielded,
}

struct Tracked {
    prepared: Arc<Prepared>,
    status: Status,
    tokens: Option<CallTokens>,
    result: Option<ToolCallResult>,
}

struct Actor {
    runtime: Arc<ToolRuntime>,
    ctx: Arc<ToolUseContext>,
    interrupt: CancellationToken,
    max_concurrency: usize,
    calls: Vec<Tracked>,
    /// Every call before this index has left the queue.
    next_start: usize,
    /// Every result before this index has been sent.
    next_yield: usize,
    executing: usize,
    executing_unsafe: bool,
    tracker: BatchTracker,
    seen_ids: HashSet<String>,
    missing_ids: u32,
    tasks: JoinSet<(usize, Outcome, Duration)>,
    task_index: HashMap<tokio::task::Id, usize>,
    results_tx: mpsc::UnboundedSender<ToolCallResult>,
    interrupted: bool,
    sibling_error: Option<String>,
}

impl Actor {
    async fn run(mut self, mut commands: mpsc::UnboundedReceiver<Command>) -> ToolUseContext {
        let mut input_open = true;
        loop {
            if !input_open && self.next_yield == self.calls.len() && self.tasks.is_empty() {
                break;
            }
            tokio::select! {
                cmd = commands.recv(), if input_open => match cmd {
                    Some(Command::Add(block)) => self.add(block),
                    // A dropped executor handle also ends the input.
                    Some(Command::Finish) | None => input_open = false,
                },
                Some(joined) = self.tasks.join_next_with_id(), if !self.tasks.is_empty() => {
                    self.on_joined(joined);
                }
                () = self.interrupt.cancelled(), if !self.interrupted => self.on_interrupt(),
                else => break,
            }
            self.process_queue();
            self.flush();
        }
        Arc::unwrap_or_clone(self.ctx)
    }

    fn add(&mut self, block: ToolUseBlock) {
        let prepared = Arc::new(self.runtime.prepare(
            block,
            &mut self.seen_ids,
            &mut self.missing_ids,
        ));
        let index = self.calls.len();
        self.calls.push(Tracked {
            prepared: Arc::clone(&prepared),
            status: Status::Queued,
            tokens: None,
            result: None,
        });
        if prepared.is_malformed() {
            if let Some(r) = prepared.rejection.clone() {
                let outcome = self.runtime.reject(&prepared, r);
                self.finish_call(index, outcome, Duration::ZERO);
            }
        } else if self.interrupted {
            self.cancel_queued(index, CallStatus::Interrupted, not_started_interrupt());
        } else if let Some(reason) = self.sibling_error.clone() {
            self.cancel_queued(index, CallStatus::Cancelled, reason);
        }
    }

    fn process_queue(&mut self) {
        while self.next_start < self.calls.len() {
            let i = self.next_start;
            if self.calls[i].status != Status::Queued {
                self.next_start += 1;
                continue;
            }
            let safe = self.calls[i].prepared.safe;
            let may_start = self.executing == 0
                || (safe && !self.executing_unsafe && self.executing < self.max_concurrency);
            if !may_start {
                // Strict arrival order: nothing overtakes a waiting call.
                break;
            }
            self.start(i);
            self.next_start += 1;
        }
    }

    fn start(&mut self, i: usize) {
        let prepared = Arc::clone(&self.calls[i].prepared);
        let safe = prepared.safe;
        let batch = self.tracker.assign(safe);
        self.executing += 1;
        self.executing_unsafe |= !safe;
        self.runtime.emit_started(&prepared, batch, safe);
        let tokens = CallTokens::new(self.interrupt.clone(), CancellationToken::new());
        self.calls[i].status = Status::Executing;
        self.calls[i].tokens = Some(tokens.clone());
        let runtime = Arc::clone(&self.runtime);
        let ctx = Arc::clone(&self.ctx);
        let handle = self.tasks.spawn(async move {
            let started = Instant::now();
            let outcome = runtime.run_pipeline(&prepared, ctx, &tokens).await;
            (i, outcome, started.elapsed())
        });
        self.task_index.insert(handle.id(), i);
    }

    fn on_joined(
        &mut self,
        joined: Result<(tokio::task::Id, (usize, Outcome, Duration)), tokio::task::JoinError>,
    ) {
        let (id, i, outcome, elapsed) = match joined {
            Ok((id, (i, outcome, elapsed))) => (id, i, outcome, elapsed),
            Err(e) => {
                // Tool panics are caught in the pipeline; this is a panic in
                // a hook, the resolver or the ask handler. Fail the call.
                let Some(&i) = self.task_index.get(&e.id()) else {
                    return;
                };
                let outcome = Outcome::error(
                    CallStatus::Failed,
                    format!("Error: the call failed inside the runtime ({e})"),
                );
                (e.id(), i, outcome, Duration::ZERO)
            }
        };
        self.task_index.remove(&id);
        self.executing -= 1;
        if !self.calls[i].prepared.safe {
            self.executing_unsafe = false;
        }
        let failed = outcome.status.is_failure();
        self.finish_call(i, outcome, elapsed);
        let prepared = Arc::clone(&self.calls[i].prepared);
        if failed && prepared.aborts_siblings_on_error() && self.sibling_error.is_none() {
            self.abort_siblings(&prepared);
        }
    }

    /// Emits `tool_completed`, applies or ignores the context modifier,
    /// stores the result for in-order delivery.
    fn finish_call(&mut self, i: usize, outcome: Outcome, elapsed: Duration) {
        let prepared = Arc::clone(&self.calls[i].prepared);
        let (result, modifier) = self.runtime.complete(&prepared, outcome, elapsed);
        if let Some(modifier) = modifier {
            let applied = !prepared.safe;
            self.runtime.emitter().emit(EventBody::ContextModified {
                tool_use_id: prepared.id.clone(),
                description: modifier.description().to_owned(),
                applied,
            });
            if applied {
                let mode_before = self.ctx.permission_mode;
                modifier.apply(Arc::make_mut(&mut self.ctx));
                let mode_after = self.ctx.permission_mode;
                if mode_after != mode_before {
                    // The engine decides with its own copy of the mode: tell
                    // it before the next batch starts.
                    if let Some(listener) = &self.runtime.mode_listener {
                        listener(mode_after);
                    }
                }
            }
        }
        self.calls[i].status = Status::Completed;
        self.calls[i].result = Some(result);
    }

    fn cancel_queued(&mut self, i: usize, status: CallStatus, reason: String) {
        let outcome = ToolRuntime::cancelled(status, reason);
        self.finish_call(i, outcome, Duration::ZERO);
    }

    fn abort_siblings(&mut self, failed: &Prepared) {
        let reason = format!(
            "Cancelled: parallel tool call {} ({}) failed, so this call was stopped.",
            failed.id, failed.name
        );
        self.sibling_error = Some(reason.clone());
        for i in 0..self.calls.len() {
            match self.calls[i].status {
                Status::Executing => {
                    if let Some(tokens) = &self.calls[i].tokens {
                        tokens.cancel_with(reason.clone());
                    }
                }
                Status::Queued => self.cancel_queued(i, CallStatus::Cancelled, reason.clone()),
                Status::Completed | Status::Yielded => {}
            }
        }
    }

    fn on_interrupt(&mut self) {
        self.interrupted = true;
        for i in 0..self.calls.len() {
            if self.calls[i].status == Status::Queued {
                self.cancel_queued(i, CallStatus::Interrupted, not_started_interrupt());
            }
        }
    }

    fn flush(&mut self) {
        while let Some(call) = self.calls.get_mut(self.next_yield) {
            let Some(result) = call.result.take() else {
                break;
            };
            call.status = Status::Yielded;
            // A dropped receiver means nobody wants results any more; the
            // calls still finish and their events are still emitted.
            let _ = self.results_tx.send(result);
            self.next_yield += 1;
        }
    }
}

fn not_started_interrupt() -> String {
    "Not run: the user interrupted the turn before this call started.".into()
}
