//! The conversation loop (SPEC §10).
//!
//! One [`Agent`] per session. [`Agent::run_prompt`] appends the user's prompt
//! and then repeats turns until the model stops asking for tools:
//!
//! 1. send the system prompt, the history and the tool pool;
//! 2. stream the reply, emitting text and thinking deltas, and hand each
//!    tool_use block to the streaming executor **the moment it completes**;
//! 3. collect the results (original order, matching ids) into one user
//!    message; continue while the model used tools.
//!
//! Retries (backoff and jitter, `retry-after`), the idle timeout, the reply
//! size limit, interrupts and the per-session turn limit live here, once for
//! every provider. Failures become a `session_error` event and a
//! [`SessionStatus::Failed`] outcome; the history stays valid, so the
//! session can take another prompt.

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;
use gatehouse_core::deferral::ToolBlock;
use gatehouse_core::events::Emitter;
use gatehouse_core::tool::MessageRole;
use gatehouse_core::{
    StreamingToolExecutor, ToolCallResult, ToolRuntime, ToolUseBlock, ToolUseContext,
};
use gatehouse_protocol::event::{
    ContentBlock, ContextSource, EventBody, RejectionStage, SessionErrorKind, SessionStatus,
};
use gatehouse_protocol::permission::PermissionMode;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::message::{
    Block, Message, Role, StopReason, Usage, push_user, referenced_in, referenced_tools,
};
use crate::provider::{ModelRequest, Provider, ProviderError, StreamEvent};
use crate::retry::RetryPolicy;

/// Settings of one session's loop.
#[derive(Debug, Clone)]
pub struct AgentConfig {
    /// The model name.
    pub model: String,
    /// The system prompt.
    pub system_prompt: String,
    /// The token limit of each reply.
    pub max_tokens: u32,
    /// Model requests allowed in the whole session.
    pub max_turns: u32,
    /// How long the provider may stay silent (before the response starts,
    /// or between two stream events) before the request is abandoned.
    pub idle_timeout: Duration,
    /// Retries of failed requests.
    pub retry: RetryPolicy,
    /// The largest reply accepted (text and thinking), in bytes.
    pub max_reply_bytes: usize,
}

impl AgentConfig {
    /// Defaults for `model`.
    pub fn new(model: impl Into<String>) -> Self {
        Self {
            model: model.into(),
            system_prompt: DEFAULT_SYSTEM_PROMPT.to_owned(),
            max_tokens: 16_384,
            max_turns: 100,
            idle_timeout: Duration::from_secs(120),
            retry: RetryPolicy::default(),
            max_reply_bytes: 4 * 1024 * 1024,
        }
    }
}

/// The system prompt when none is configured.
pub const DEFAULT_SYSTEM_PROMPT: &str = "You are a coding agent working in the user's project through the tools you are given. \
Use the tools to read, search and change files and to run commands; explain briefly what you do.";

/// How many times Stop hooks may send the model back to work in one
/// prompt (Claude Code relies on the hook reading `stop_hook_active`; a
/// hook that ignores it would loop forever, so Gatehouse also counts).
pub const MAX_STOP_CONTINUATIONS: u32 = 8;

/// How a prompt's exchange ended.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptOutcome {
    /// How it ended.
    pub status: SessionStatus,
    /// Model requests made in the session so far.
    pub turns: u32,
    /// The error that ended it, if any.
    pub error: Option<(SessionErrorKind, String)>,
}

/// One session's conversation loop.
pub struct Agent {
    provider: Arc<dyn Provider>,
    runtime: Arc<ToolRuntime>,
    config: AgentConfig,
    history: Vec<Message>,
    ctx: ToolUseContext,
    turns: u32,
    mode_source: Option<ModeSource>,
    notices: Option<NoticeSource>,
    /// The tool block last reported (`tool_block_changed`).
    reported_block: Option<EventBody>,
}

/// Where the loop takes what it must tell the model before each model
/// request: background tasks that ended (`<task-notification>`), messages
/// sent to a background agent (SendMessage). Each text goes into the user
/// message of that request, and is stored as a `context_added` event so a
/// resumed session's history has it too.
pub type NoticeSource = Arc<dyn Fn() -> Vec<Notice> + Send + Sync>;

/// One text for the model from a [`NoticeSource`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    /// Where it came from.
    pub source: ContextSource,
    /// The text as the model reads it.
    pub text: String,
}

impl Notice {
    /// `texts`, each from `source`.
    pub fn all(source: ContextSource, texts: Vec<String>) -> Vec<Self> {
        texts
            .into_iter()
            .map(|text| Self { source, text })
            .collect()
    }
}

/// Where the loop reads the session's current permission mode from before
/// each turn (the permission engine's copy, which the user changes).
pub type ModeSource = Arc<dyn Fn() -> PermissionMode + Send + Sync>;

impl std::fmt::Debug for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Agent")
            .field("provider", &self.provider.name())
            .field("config", &self.config)
            .field("messages", &self.history.len())
            .field("turns", &self.turns)
            .finish_non_exhaustive()
    }
}

/// What ended the stream of one turn.
enum StreamEnd {
    Stopped(StopReason),
    Failed(ProviderError),
    Interrupted,
}

/// Where the result of the n-th tool_use of a message comes from.
enum Slot {
    /// The executor's next result.
    Executor,
    /// Answered by the loop (a tool_use whose input was not valid JSON).
    Own {
        tool_use_id: String,
        message: String,
    },
}

/// The state of one turn while it streams.
struct TurnState {
    message_id: Option<String>,
    blocks: Vec<Block>,
    slots: Vec<Slot>,
    usage: Option<Usage>,
    reply_bytes: usize,
    /// Whether anything the model produced has been seen (no retry after).
    progressed: bool,
}

impl Agent {
    /// A session over `provider`, running tools with `runtime` in `ctx`.
    pub fn new(
        provider: Arc<dyn Provider>,
        runtime: Arc<ToolRuntime>,
        config: AgentConfig,
        ctx: ToolUseContext,
    ) -> Self {
        Self {
            provider,
            runtime,
            config,
            history: Vec::new(),
            ctx,
            turns: 0,
            mode_source: None,
            notices: None,
            reported_block: None,
        }
    }

    /// Keeps the tools' context in step with a mode that can change while
    /// the session runs (the user switching modes): `source` is read before
    /// every turn.
    pub fn with_mode_source(mut self, source: ModeSource) -> Self {
        self.mode_source = Some(source);
        self
    }

    /// Tells the model, before each model request, what `source` returns
    /// (see [`NoticeSource`]).
    pub fn with_notices(mut self, source: NoticeSource) -> Self {
        self.notices = Some(source);
        self
    }

    /// [`Self::with_notices`] for an agent already built.
    pub fn set_notices(&mut self, source: NoticeSource) {
        self.notices = Some(source);
    }

    /// Continues an earlier session from its history (see
    /// [`crate::resume::history_from_events`]) and its turn count.
    pub fn with_history(mut self, history: Vec<Message>, turns: u32) -> Self {
        self.runtime.mark_loaded(referenced_tools(&history));
        self.history = history;
        self.turns = turns;
        self
    }

    /// [`Self::with_history`] for an agent already running prompts (a
    /// resumed session whose history is read after it opened): also raises
    /// the turn limit by the turns already made, as a new session's would.
    pub fn continue_from(&mut self, history: Vec<Message>, turns: u32) {
        // Tools loaded before stay loaded (issue 21).
        self.runtime.mark_loaded(referenced_tools(&history));
        self.history = history;
        self.turns = turns;
        self.config.max_turns = self.config.max_turns.saturating_add(turns);
    }

    /// The conversation so far.
    pub fn history(&self) -> &[Message] {
        &self.history
    }

    /// Model requests made so far.
    pub fn turns(&self) -> u32 {
        self.turns
    }

    /// The context tools run in (after the context modifiers so far).
    pub fn context(&self) -> &ToolUseContext {
        &self.ctx
    }

    fn emitter(&self) -> &Emitter {
        self.runtime.emitter()
    }

    /// Sends `prompt` and runs turns until the model stops asking for tools,
    /// the user interrupts (`interrupt` fires: the request is dropped,
    /// queued calls never start, running calls stop per their interrupt
    /// behaviour), an error occurs or the turn limit is reached. Ends with a
    /// `session_completed` event. Never panics on bad provider output.
    pub async fn run_prompt(
        &mut self,
        prompt: &str,
        interrupt: &CancellationToken,
    ) -> PromptOutcome {
        self.emitter().emit(EventBody::UserPrompt {
            text: prompt.to_owned(),
        });
        let turn_hooks = self.runtime.hooks().turn.clone();
        let mut blocks = vec![Block::text(prompt)];
        if let Some(hooks) = &turn_hooks {
            let said = hooks.user_prompt_submit(prompt).await;
            if let Some(reason) = said.block {
                // Claude Code's behaviour: the prompt never reaches the
                // model or the history; the user is told why.
                let message = format!("UserPromptSubmit hook blocked the prompt: {reason}");
                self.error(SessionErrorKind::HookBlocked, &message, true);
                let _ = self
                    .emitter()
                    .emit_durable(EventBody::SessionCompleted {
                        status: SessionStatus::Failed,
                        turns: self.turns,
                    })
                    .await;
                return PromptOutcome {
                    status: SessionStatus::Failed,
                    turns: self.turns,
                    error: Some((SessionErrorKind::HookBlocked, message)),
                };
            }
            for context in said.context {
                blocks.push(Block::text(format!(
                    "<system-reminder>\nUserPromptSubmit hook additional context: {context}\n</system-reminder>"
                )));
            }
        }
        push_user(&mut self.history, blocks);
        let mut error = None;
        // Stop hooks that asked the model to go on, in this prompt: the
        // loop guard ends the exchange after MAX_STOP_CONTINUATIONS.
        let mut stop_continuations = 0u32;
        let status = loop {
            if interrupt.is_cancelled() {
                break SessionStatus::Interrupted;
            }
            if self.turns >= self.config.max_turns {
                let message = format!(
                    "the session reached its limit of {} model requests; send another prompt to raise it or start a new session",
                    self.config.max_turns
                );
                self.error(SessionErrorKind::TurnLimit, &message, true);
                error = Some((SessionErrorKind::TurnLimit, message));
                break SessionStatus::TurnLimit;
            }
            if let Some(source) = &self.notices {
                let notes = source();
                if !notes.is_empty() {
                    // After the prompt or the tool results: the same user
                    // message, so roles still alternate.
                    let blocks = notes
                        .into_iter()
                        .map(|note| self.add_context(note.source, note.text))
                        .collect();
                    push_user(&mut self.history, blocks);
                }
            }
            match self.turn(interrupt).await {
                Ok(true) => {}
                Ok(false) => {
                    let Some(hooks) = &turn_hooks else {
                        break SessionStatus::Completed;
                    };
                    if interrupt.is_cancelled() || stop_continuations >= MAX_STOP_CONTINUATIONS {
                        break SessionStatus::Completed;
                    }
                    match hooks.stop(stop_continuations > 0).await {
                        Some(reason) => {
                            stop_continuations += 1;
                            let block = self.add_context(
                                ContextSource::StopHookFeedback,
                                format!("Stop hook feedback:\n{reason}"),
                            );
                            push_user(&mut self.history, vec![block]);
                        }
                        None => break SessionStatus::Completed,
                    }
                }
                Err(None) => break SessionStatus::Interrupted,
                Err(Some((kind, message))) => {
                    error = Some((kind, message));
                    break SessionStatus::Failed;
                }
            }
        };
        if status == SessionStatus::TurnLimit {
            // A new prompt gets a fresh allowance.
            self.config.max_turns = self.turns.saturating_add(self.config.max_turns);
        }
        // Durable before the outcome is handed back: whoever acts on it
        // (a script, the next prompt) finds the whole turn stored. A storage
        // failure was already reported by the sink.
        let _ = self
            .emitter()
            .emit_durable(EventBody::SessionCompleted {
                status,
                turns: self.turns,
            })
            .await;
        PromptOutcome {
            status,
            turns: self.turns,
            error,
        }
    }

    /// Records text the loop adds for the model (a `context_added`) and
    /// returns it as a block of the next user message.
    fn add_context(&self, source: ContextSource, text: String) -> Block {
        self.emitter().emit(EventBody::ContextAdded {
            source,
            text: text.clone(),
        });
        Block::text(text)
    }

    /// Emits `tool_block_changed` when the tool block differs from the one
    /// reported last (the first request, tools loaded, the pool changed).
    fn report_tool_block(&mut self, tools: &ToolBlock) {
        let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        let bytes = tools.definitions().map(str::len).sum::<usize>() + tools.listing.len();
        let body = EventBody::ToolBlockChanged {
            tool_search: tools.tool_search,
            loaded: count(tools.loaded_count()),
            deferred: count(tools.unloaded()),
            bytes: u64::try_from(bytes).unwrap_or(u64::MAX),
        };
        if self.reported_block.as_ref() != Some(&body) {
            self.reported_block = Some(body.clone());
            self.emitter().emit(body);
        }
    }

    fn error(&self, kind: SessionErrorKind, message: &str, recoverable: bool) {
        self.emitter().emit(EventBody::SessionError {
            kind,
            message: message.to_owned(),
            recoverable,
        });
    }

    /// One model request and its tool calls. `Ok(true)`: continue;
    /// `Ok(false)`: the model is done; `Err(None)`: interrupted;
    /// `Err(Some(..))`: failed (already reported).
    async fn turn(
        &mut self,
        interrupt: &CancellationToken,
    ) -> Result<bool, Option<(SessionErrorKind, String)>> {
        self.turns += 1;
        let turn = self.turns;
        if let Some(source) = &self.mode_source {
            self.ctx.permission_mode = source();
        }
        // MCP servers may have changed their tool lists since the last
        // request: the model and the pipeline see the same, current pool.
        self.runtime.refresh_pool();
        let started = Instant::now();
        // Durable before the request is sent: this also commits everything
        // emitted before it (the prompt, the previous turn's reply, calls and
        // results), so a crash during the request loses none of them.
        let stored = self
            .emitter()
            .emit_durable(EventBody::ModelRequestStarted {
                turn,
                messages: u32::try_from(self.history.len()).unwrap_or(u32::MAX),
            })
            .await;
        if let Err(e) = stored {
            let message = format!("the session could not be recorded, so it stopped: {e}");
            self.error(SessionErrorKind::Storage, &message, false);
            return Err(Some((SessionErrorKind::Storage, message)));
        }
        let tools = self.runtime.tool_block();
        self.report_tool_block(&tools);
        let system = system_prompt_for(&self.config.system_prompt, &tools);
        let request = ModelRequest {
            model: self.config.model.clone(),
            system,
            messages: self.history.clone(),
            tools,
            max_tokens: self.config.max_tokens,
        };
        let mut exec = self
            .runtime
            .streaming_executor(self.ctx.clone(), interrupt.clone());
        let mut state = TurnState {
            message_id: None,
            blocks: Vec::new(),
            slots: Vec::new(),
            usage: None,
            reply_bytes: 0,
            progressed: false,
        };
        let end = self
            .stream_with_retries(turn, &request, &mut exec, &mut state, interrupt)
            .await;

        // Every call handed to the executor is answered, whatever happened.
        let outcome = exec.collect().await;
        self.ctx = outcome.context;
        let mut exec_results = outcome.results.into_iter();
        let results: Vec<ToolCallResult> = std::mem::take(&mut state.slots)
            .into_iter()
            .filter_map(|slot| match slot {
                Slot::Executor => exec_results.next(),
                Slot::Own {
                    tool_use_id,
                    message,
                } => Some(own_error_result(tool_use_id, message)),
            })
            .collect();

        let stop_text = match &end {
            StreamEnd::Stopped(r) => r.as_str().to_owned(),
            StreamEnd::Failed(_) => "error".to_owned(),
            StreamEnd::Interrupted => "interrupted".to_owned(),
        };
        if !state.blocks.is_empty() {
            self.emitter().emit(EventBody::AssistantMessage {
                turn,
                message_id: state.message_id.clone(),
                content: state.blocks.iter().map(Block::to_json).collect(),
                stop_reason: stop_text.clone(),
            });
            self.history.push(Message {
                role: Role::Assistant,
                content: std::mem::take(&mut state.blocks),
            });
        }
        let tool_calls = u32::try_from(results.len()).unwrap_or(u32::MAX);
        // The user may interrupt after the reply finished, while tools run.
        let interrupted = matches!(end, StreamEnd::Interrupted) || interrupt.is_cancelled();
        let mut stop_requested = None;
        if !results.is_empty() {
            let mut blocks = Vec::with_capacity(results.len());
            let mut extra = Vec::new();
            for r in &results {
                blocks.push(Block::ToolResult {
                    tool_use_id: r.tool_use_id.clone(),
                    content: r.content.clone(),
                    is_error: r.is_error,
                });
                for m in &r.new_messages {
                    for c in &m.content {
                        extra.push(match (m.role, c) {
                            (MessageRole::System, ContentBlock::Text { text }) => Block::text(
                                format!("<system-reminder>\n{text}\n</system-reminder>"),
                            ),
                            _ => Block::from_content(c),
                        });
                    }
                }
                if stop_requested.is_none() {
                    stop_requested.clone_from(&r.prevent_continuation);
                }
            }
            // ToolSearch's references: the next request has these tools.
            self.runtime.mark_loaded(referenced_in(&blocks));
            blocks.extend(extra);
            if interrupted {
                blocks.push(Block::text("[Request interrupted by user]"));
            }
            self.emitter().emit(EventBody::ToolResultsReturned {
                turn,
                content: blocks.iter().map(Block::to_json).collect(),
            });
            push_user(&mut self.history, blocks);
        }
        if let Some(u) = state.usage {
            self.emitter().emit(EventBody::Usage {
                turn,
                input_tokens: u.input_tokens,
                output_tokens: u.output_tokens,
                cache_creation_input_tokens: u.cache_creation_input_tokens,
                cache_read_input_tokens: u.cache_read_input_tokens,
            });
        }
        self.emitter().emit(EventBody::TurnCompleted {
            turn,
            stop_reason: stop_text,
            tool_calls,
            duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        });

        let fail = |this: &Self, kind, message: String| {
            this.error(kind, &message, true);
            Err(Some((kind, message)))
        };
        match end {
            StreamEnd::Interrupted => Err(None),
            StreamEnd::Stopped(_) if interrupted => Err(None),
            StreamEnd::Failed(e) => fail(self, e.kind, e.message),
            StreamEnd::Stopped(_) if stop_requested.is_some() => Ok(false),
            StreamEnd::Stopped(StopReason::Other(reason)) => fail(
                self,
                SessionErrorKind::UnknownStopReason,
                format!("the model stopped for an unknown reason {reason:?}; the reply was kept"),
            ),
            StreamEnd::Stopped(_) if tool_calls > 0 => Ok(true),
            StreamEnd::Stopped(StopReason::PauseTurn) => Ok(true),
            StreamEnd::Stopped(StopReason::MaxTokens) => fail(
                self,
                SessionErrorKind::MaxTokens,
                format!(
                    "the reply reached max_tokens ({}) before it was complete",
                    self.config.max_tokens
                ),
            ),
            StreamEnd::Stopped(StopReason::ToolUse) => fail(
                self,
                SessionErrorKind::MalformedStream,
                "the model stopped for tool_use but sent no tool_use block".into(),
            ),
            StreamEnd::Stopped(
                StopReason::EndTurn | StopReason::StopSequence | StopReason::Refusal,
            ) => Ok(false),
        }
    }

    /// Sends the request, retrying failures that happened before the model
    /// produced anything, and streams the reply into `state`.
    async fn stream_with_retries(
        &self,
        turn: u32,
        request: &ModelRequest,
        exec: &mut StreamingToolExecutor,
        state: &mut TurnState,
        interrupt: &CancellationToken,
    ) -> StreamEnd {
        let mut attempt = 0u32;
        loop {
            let err = match self.stream_once(request, exec, state, interrupt).await {
                StreamEnd::Failed(e) => e,
                other => return other,
            };
            if !err.retryable || state.progressed || attempt >= self.config.retry.max_retries {
                let mut err = err;
                if attempt > 0 {
                    err.message = format!("{} (after {attempt} retries)", err.message);
                }
                return StreamEnd::Failed(err);
            }
            attempt += 1;
            let delay = self.config.retry.delay(attempt, err.retry_after);
            self.emitter().emit(EventBody::ModelRequestRetried {
                turn,
                attempt,
                delay_ms: u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
                error: err.message.clone(),
            });
            tokio::select! {
                () = tokio::time::sleep(delay) => {}
                () = interrupt.cancelled() => return StreamEnd::Interrupted,
            }
        }
    }

    async fn stream_once(
        &self,
        request: &ModelRequest,
        exec: &mut StreamingToolExecutor,
        state: &mut TurnState,
        interrupt: &CancellationToken,
    ) -> StreamEnd {
        let idle = self.config.idle_timeout;
        let timeout_error = || {
            ProviderError::retryable(
                SessionErrorKind::Timeout,
                format!(
                    "{} sent nothing for {} s; the request was abandoned",
                    self.provider.name(),
                    idle.as_secs_f64()
                ),
            )
        };
        let mut stream = tokio::select! {
            () = interrupt.cancelled() => return StreamEnd::Interrupted,
            r = tokio::time::timeout(idle, self.provider.stream(request)) => match r {
                Err(_) => return StreamEnd::Failed(timeout_error()),
                Ok(Err(e)) => return StreamEnd::Failed(e),
                Ok(Ok(s)) => s,
            },
        };
        loop {
            let next = tokio::select! {
                () = interrupt.cancelled() => return StreamEnd::Interrupted,
                r = tokio::time::timeout(idle, stream.next()) => r,
            };
            let event = match next {
                Err(_) => return StreamEnd::Failed(timeout_error()),
                Ok(None) => {
                    return StreamEnd::Failed(ProviderError::malformed(format!(
                        "the {} stream ended before the reply was complete (truncated)",
                        self.provider.name()
                    )));
                }
                Ok(Some(Err(e))) => return StreamEnd::Failed(e),
                Ok(Some(Ok(event))) => event,
            };
            if let Some(end) = self.on_event(event, exec, state) {
                return end;
            }
        }
    }

    fn on_event(
        &self,
        event: StreamEvent,
        exec: &mut StreamingToolExecutor,
        state: &mut TurnState,
    ) -> Option<StreamEnd> {
        let turn = self.turns;
        match event {
            StreamEvent::MessageStart { id } => state.message_id = id,
            StreamEvent::TextDelta { index, text } => {
                state.progressed = true;
                state.reply_bytes += text.len();
                if let Some(end) = self.check_size(state) {
                    return Some(end);
                }
                self.emitter()
                    .emit(EventBody::AssistantTextDelta { turn, index, text });
            }
            StreamEvent::ThinkingDelta { index, thinking } => {
                state.progressed = true;
                state.reply_bytes += thinking.len();
                if let Some(end) = self.check_size(state) {
                    return Some(end);
                }
                self.emitter().emit(EventBody::AssistantThinkingDelta {
                    turn,
                    index,
                    thinking,
                });
            }
            StreamEvent::BlockComplete { block, .. } => {
                state.progressed = true;
                if let Block::ToolUse { id, name, input } = &block {
                    // The moment the block is complete: the call may start
                    // while the model is still streaming.
                    exec.add_tool(ToolUseBlock::new(id.clone(), name.clone(), input.clone()));
                    state.slots.push(Slot::Executor);
                }
                state.blocks.push(block);
            }
            StreamEvent::InvalidToolUse {
                id, name, error, ..
            } => {
                state.progressed = true;
                let message = format!(
                    "Error: the input of this {name} call was not valid JSON ({error}); nothing ran. Send the call again with a JSON object as input."
                );
                self.emitter().emit(EventBody::ToolQueued {
                    tool_use_id: id.clone(),
                    name: name.clone(),
                    input: Value::Null,
                    read_only: false,
                });
                self.emitter().emit(EventBody::ToolInputRejected {
                    tool_use_id: id.clone(),
                    stage: RejectionStage::Malformed,
                    message: message.clone(),
                });
                self.emitter().emit(EventBody::ToolCompleted {
                    tool_use_id: id.clone(),
                    status: gatehouse_protocol::event::ToolCallStatus::Error,
                    is_error: true,
                    content: vec![ContentBlock::Text {
                        text: message.clone(),
                    }],
                    duration_ms: 0,
                    persisted_path: None,
                });
                state.blocks.push(Block::ToolUse {
                    id: id.clone(),
                    name,
                    input: Value::Object(serde_json::Map::new()),
                });
                state.slots.push(Slot::Own {
                    tool_use_id: id,
                    message,
                });
            }
            StreamEvent::Usage(u) => state.usage = Some(u),
            StreamEvent::MessageStop { stop_reason } => {
                return Some(StreamEnd::Stopped(stop_reason));
            }
        }
        None
    }

    fn check_size(&self, state: &TurnState) -> Option<StreamEnd> {
        (state.reply_bytes > self.config.max_reply_bytes).then(|| {
            StreamEnd::Failed(ProviderError::fatal(
                SessionErrorKind::MalformedStream,
                format!(
                    "the reply exceeded the limit of {} bytes and was abandoned",
                    self.config.max_reply_bytes
                ),
            ))
        })
    }
}

/// The system prompt of a request with `tools`: with deferral, the
/// deferred tools' list follows the configured prompt (stable while the
/// pool is, so it stays in the prompt cache).
pub fn system_prompt_for(system_prompt: &str, tools: &ToolBlock) -> String {
    if tools.tool_search {
        format!("{system_prompt}\n\n{}", tools.listing)
    } else {
        system_prompt.to_owned()
    }
}

/// The error result of a tool_use the loop refused itself (its events were
/// emitted when the block arrived).
fn own_error_result(tool_use_id: String, message: String) -> ToolCallResult {
    ToolCallResult {
        tool_use_id,
        tool_name: String::new(),
        content: vec![ContentBlock::Text { text: message }],
        is_error: true,
        status: gatehouse_core::CallStatus::Rejected(RejectionStage::Malformed),
        persisted_path: None,
        new_messages: Vec::new(),
        duration_ms: 0,
        prevent_continuation: None,
    }
}
