//! [`ToolRuntime`]: one session's tool runtime, and the entry points the
//! agent loop calls.
//!
//! * [`ToolRuntime::streaming_executor`]: feed tool_use blocks one at a time
//!   while the model streams; results come back in the original order.
//! * [`ToolRuntime::run_tools`]: the same for a complete assistant message.
//! * [`ToolRuntime::run_one`]: one call through the full pipeline, without
//!   the scheduler (tools that call tools, benchmarks).

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use gatehouse_protocol::event::{ContentBlock, EventBody, RejectionStage, ToolCallStatus};
use gatehouse_protocol::permission::PermissionMode;
use serde::Deserialize;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::ask::AskHandler;
use crate::budget::ResultBudget;
use crate::config::RuntimeConfig;
use crate::context::ToolUseContext;
use crate::deferral::{ToolBlock, ToolSearchMode, ToolSearchView};
use crate::events::{Emitter, EventSink, NullSink};
use crate::executor::{ExecutionOutcome, StreamingToolExecutor};
use crate::hooks::Hooks;
use crate::permission::PermissionResolver;
use crate::pipeline::CallTokens;
use crate::registry::ToolPool;
use crate::tool::NewMessage;

/// One `tool_use` block as the model produced it. Fields may be missing or
/// wrong; the runtime answers every block with a result either way.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
pub struct ToolUseBlock {
    /// The model's id for the call; empty when the block had none.
    #[serde(default)]
    pub id: String,
    /// The tool name as written; empty when the block had none.
    #[serde(default)]
    pub name: String,
    /// The input as written (should be a JSON object).
    #[serde(default)]
    pub input: Value,
}

impl ToolUseBlock {
    /// A block from its parts.
    pub fn new(id: impl Into<String>, name: impl Into<String>, input: Value) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            input,
        }
    }

    /// Reads a raw `{"type":"tool_use","id":…,"name":…,"input":…}` content
    /// block, tolerating missing or mistyped fields (they become empty and
    /// the call is then refused with an explanation, never a panic).
    pub fn from_json(block: &Value) -> Self {
        let text = |key: &str| {
            block
                .get(key)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        Self {
            id: text("id"),
            name: text("name"),
            input: block.get("input").cloned().unwrap_or(Value::Null),
        }
    }
}

/// How a call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CallStatus {
    /// It ran and succeeded.
    Succeeded,
    /// It ran and failed (or panicked).
    Failed,
    /// It was refused before running; nothing ran.
    Rejected(RejectionStage),
    /// The permission decision (or the user) refused it.
    Denied,
    /// The user interrupted it (running, or before it started).
    Interrupted,
    /// It was cancelled for another reason: a failed sibling, or the tool
    /// reported a cancellation nobody asked for.
    Cancelled,
    /// It ran past its time limit and was stopped.
    TimedOut,
}

impl CallStatus {
    /// The status `tool_completed` reports.
    pub fn event_status(self) -> ToolCallStatus {
        match self {
            Self::Succeeded => ToolCallStatus::Ok,
            Self::Failed | Self::Rejected(_) => ToolCallStatus::Error,
            Self::Denied => ToolCallStatus::Denied,
            Self::Interrupted => ToolCallStatus::Interrupted,
            Self::Cancelled => ToolCallStatus::Cancelled,
            Self::TimedOut => ToolCallStatus::TimedOut,
        }
    }

    /// Whether the call ran and failed on its own (a timeout included):
    /// what aborts a Bash call's siblings.
    pub fn is_failure(self) -> bool {
        matches!(self, Self::Failed | Self::TimedOut)
    }
}

/// The result of one tool_use, as the agent loop sends it back.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCallResult {
    /// The id of the tool_result block (the tool_use's id; a synthesised
    /// unique id for a block without one or with a duplicate id).
    pub tool_use_id: String,
    /// The tool name as the model wrote it.
    pub tool_name: String,
    /// The tool_result content.
    pub content: Vec<ContentBlock>,
    /// Whether the tool_result is an error.
    pub is_error: bool,
    /// How the call ended.
    pub status: CallStatus,
    /// Where the full result was written when it exceeded the budget.
    pub persisted_path: Option<PathBuf>,
    /// Messages to append after the tool_result (hook context, tool
    /// attachments).
    pub new_messages: Vec<NewMessage>,
    /// Wall time from start to completion (0 if it never started).
    pub duration_ms: u64,
    /// Set when a PostToolUse hook asked to stop the turn, with its reason.
    pub prevent_continuation: Option<String>,
}

impl ToolCallResult {
    /// The text of all text blocks, joined with newlines (tests, logs).
    pub fn text(&self) -> String {
        self.content
            .iter()
            .filter_map(|b| match b {
                ContentBlock::Text { text } => Some(text.as_str()),
                ContentBlock::Image { .. } | ContentBlock::ToolReference { .. } => None,
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// One session's tool runtime: the pool, the permission engine, hooks, the
/// ask handler, the event sink and the result budget.
pub struct ToolRuntime {
    /// The pool now; replaced (never edited) when tools change mid-session.
    pool: RwLock<Arc<ToolPool>>,
    /// Asked before each model request whether the pool changed.
    pool_refresh: Option<Arc<dyn PoolRefresh>>,
    pub(crate) resolver: Arc<dyn PermissionResolver>,
    /// Replaced whole when the settings files change (see [`ToolRuntime::set_hooks`]).
    hooks: RwLock<Arc<Hooks>>,
    pub(crate) ask: Option<Arc<dyn AskHandler>>,
    pub(crate) emitter: Emitter,
    pub(crate) budget: ResultBudget,
    pub(crate) config: RuntimeConfig,
    pub(crate) max_concurrency: usize,
    /// "Allow for this session" answers: tool name + subject. Shared with
    /// the session's sub-agents ([`ToolRuntime::child`]): they are part of
    /// the session the user answered for.
    pub(crate) session_grants: Arc<Mutex<HashSet<String>>>,
    /// Told when a context modifier changes the permission mode (plan mode),
    /// so the permission engine, which keeps its own copy, follows.
    pub(crate) mode_listener: Option<ModeListener>,
    /// When deferral is on (resolved once, at build).
    tool_search: ToolSearchMode,
    /// Deferred tools ToolSearch loaded in this session, in load order
    /// (see [`ToolRuntime::mark_loaded`]).
    loaded: Mutex<Vec<String>>,
}

/// Tools that can change while a session runs (MCP servers' tool lists).
/// [`ToolRuntime::refresh_pool`] asks it before each model request, so the
/// model and the pipeline see the same, current pool.
pub trait PoolRefresh: Send + Sync {
    /// The pool to use from now on, or `None` when nothing changed since
    /// `current` was made.
    fn refresh(&self, current: &ToolPool, resolver: &dyn PermissionResolver) -> Option<ToolPool>;
}

/// A callback told the new permission mode when a context modifier changed
/// it; see [`ToolRuntimeBuilder::on_mode_change`].
pub type ModeListener = Arc<dyn Fn(PermissionMode) + Send + Sync>;

impl std::fmt::Debug for ToolRuntime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolRuntime")
            .field("session_id", &self.emitter.session_id())
            .field("pool", &self.pool())
            .field("hooks", &self.hooks())
            .field("max_concurrency", &self.max_concurrency)
            .finish_non_exhaustive()
    }
}

/// Builds a [`ToolRuntime`].
pub struct ToolRuntimeBuilder {
    pool: Arc<ToolPool>,
    resolver: Arc<dyn PermissionResolver>,
    session_id: String,
    session_dir: PathBuf,
    sink: Arc<dyn EventSink>,
    hooks: Hooks,
    ask: Option<Arc<dyn AskHandler>>,
    config: RuntimeConfig,
    mode_listener: Option<ModeListener>,
    pool_refresh: Option<Arc<dyn PoolRefresh>>,
}

impl ToolRuntimeBuilder {
    /// Where the pool's changing tools come from (see [`PoolRefresh`]);
    /// without one the pool is fixed for the session.
    pub fn pool_refresh(mut self, refresh: Arc<dyn PoolRefresh>) -> Self {
        self.pool_refresh = Some(refresh);
        self
    }

    /// Called with the new mode whenever an applied context modifier changes
    /// the permission mode (e.g. a tool entering plan mode). The context is
    /// informational for tools; the permission engine decides with its own
    /// copy of the mode, so a session connects the two here.
    pub fn on_mode_change(mut self, listener: ModeListener) -> Self {
        self.mode_listener = Some(listener);
        self
    }

    /// The session id stamped on events (default: empty).
    pub fn session_id(mut self, id: impl Into<String>) -> Self {
        self.session_id = id.into();
        self
    }

    /// Where events go (default: discarded).
    pub fn event_sink(mut self, sink: Arc<dyn EventSink>) -> Self {
        self.sink = sink;
        self
    }

    /// The session's hooks.
    pub fn hooks(mut self, hooks: Hooks) -> Self {
        self.hooks = hooks;
        self
    }

    /// Who answers permission prompts (without one, every ask is denied).
    pub fn ask_handler(mut self, handler: Arc<dyn AskHandler>) -> Self {
        self.ask = Some(handler);
        self
    }

    /// Runtime settings.
    pub fn config(mut self, config: RuntimeConfig) -> Self {
        self.config = config;
        self
    }

    /// The runtime. The concurrency limit is resolved now (env var,
    /// setting, default) and stays fixed for the session.
    pub fn build(self) -> Arc<ToolRuntime> {
        Arc::new(ToolRuntime {
            max_concurrency: self.config.max_concurrency(),
            tool_search: self.config.tool_search_mode(),
            loaded: Mutex::new(Vec::new()),
            pool: RwLock::new(self.pool),
            pool_refresh: self.pool_refresh,
            resolver: self.resolver,
            hooks: RwLock::new(Arc::new(self.hooks)),
            ask: self.ask,
            emitter: Emitter::new(self.session_id, self.sink),
            budget: ResultBudget::new(&self.session_dir),
            config: self.config,
            session_grants: Arc::new(Mutex::new(HashSet::new())),
            mode_listener: self.mode_listener,
        })
    }
}

impl ToolRuntime {
    /// The session's hooks now (calls started later see a replacement;
    /// a call keeps the set it started with).
    pub fn hooks(&self) -> Arc<Hooks> {
        match self.hooks.read() {
            Ok(h) => Arc::clone(&h),
            Err(p) => Arc::clone(&p.into_inner()),
        }
    }

    /// Replaces the session's hooks (its settings files changed).
    pub fn set_hooks(&self, hooks: Hooks) {
        let mut slot = match self.hooks.write() {
            Ok(h) => h,
            Err(p) => p.into_inner(),
        };
        *slot = Arc::new(hooks);
    }

    /// Starts building a runtime over `pool`, deciding permissions with
    /// `resolver` and spilling large results under `session_dir`.
    pub fn builder(
        pool: Arc<ToolPool>,
        resolver: Arc<dyn PermissionResolver>,
        session_dir: impl Into<PathBuf>,
    ) -> ToolRuntimeBuilder {
        ToolRuntimeBuilder {
            pool,
            resolver,
            session_id: String::new(),
            session_dir: session_dir.into(),
            sink: Arc::new(NullSink),
            hooks: Hooks::default(),
            ask: None,
            config: RuntimeConfig::default(),
            mode_listener: None,
            pool_refresh: None,
        }
    }

    /// The session's tool pool now (a snapshot: a refresh replaces it).
    pub fn pool(&self) -> Arc<ToolPool> {
        Arc::clone(&self.pool.read().unwrap_or_else(|p| p.into_inner()))
    }

    /// Asks the [`PoolRefresh`] (if any) whether tools changed and, if so,
    /// makes its pool the current one. The agent calls it before each model
    /// request; calls already dispatched keep the tool they looked up.
    pub fn refresh_pool(&self) {
        let Some(refresh) = &self.pool_refresh else {
            return;
        };
        let current = self.pool();
        if let Some(next) = refresh.refresh(&current, self.resolver.as_ref()) {
            *self.pool.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(next);
        }
    }

    /// When deferral is on for this session.
    pub fn tool_search_mode(&self) -> ToolSearchMode {
        self.tool_search
    }

    /// Records deferred tools as loaded (ToolSearch returned references to
    /// them; a resumed session's history did). Returns whether the set
    /// grew. Order is load order: the definitions are appended in it.
    pub fn mark_loaded<'a>(&self, names: impl IntoIterator<Item = &'a str>) -> bool {
        let mut loaded = self.loaded.lock().unwrap_or_else(PoisonError::into_inner);
        let before = loaded.len();
        for name in names {
            if !loaded.iter().any(|n| n == name) {
                loaded.push(name.to_owned());
            }
        }
        loaded.len() > before
    }

    /// The deferred tools loaded so far, in load order.
    pub fn loaded_tools(&self) -> Vec<String> {
        self.loaded
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The tool block of the next model request (see [`ToolBlock`]).
    pub fn tool_block(&self) -> ToolBlock {
        let pool = self.pool();
        let active = pool.tool_search_active(self.tool_search);
        pool.tool_block(active, &self.loaded_tools())
    }

    /// What ToolSearch searches, for the calls of the next message.
    pub fn tool_search_view(&self) -> ToolSearchView {
        let pool = self.pool();
        ToolSearchView {
            active: pool.tool_search_active(self.tool_search),
            pool,
            loaded: self.loaded_tools().into(),
        }
    }

    /// Whether a call to the tool at `index` of `pool` must be refused
    /// because it is deferred and not loaded.
    pub(crate) fn is_unloaded_deferred(&self, pool: &ToolPool, index: usize) -> bool {
        if !pool.is_deferred(index) || !pool.tool_search_active(self.tool_search) {
            return false;
        }
        let Some(tool) = pool.get(index) else {
            return false;
        };
        !self
            .loaded
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .any(|n| n == tool.name())
    }

    /// The effective concurrency limit.
    pub fn max_concurrency(&self) -> usize {
        self.max_concurrency
    }

    /// The emitter events go through (the agent loop may emit its own).
    pub fn emitter(&self) -> &Emitter {
        &self.emitter
    }

    /// An executor for one assistant message. Blocks may be added while
    /// the model is still streaming; each call starts as soon as the
    /// scheduling rules allow. `interrupt` is the user's interrupt for the
    /// turn. Must be called within a Tokio runtime (the executor is a
    /// task).
    pub fn streaming_executor(
        self: &Arc<Self>,
        ctx: ToolUseContext,
        interrupt: CancellationToken,
    ) -> StreamingToolExecutor {
        let mut ctx = ctx;
        ctx.extensions.insert(self.tool_search_view());
        StreamingToolExecutor::start(Arc::clone(self), ctx, interrupt)
    }

    /// Runs every tool_use of a complete assistant message and returns the
    /// results in the original order, with the context as modified by the
    /// message's non-concurrency-safe calls.
    pub async fn run_tools(
        self: &Arc<Self>,
        blocks: Vec<ToolUseBlock>,
        ctx: ToolUseContext,
        interrupt: CancellationToken,
    ) -> ExecutionOutcome {
        let mut exec = self.streaming_executor(ctx, interrupt);
        for block in blocks {
            exec.add_tool(block);
        }
        exec.collect().await
    }

    /// One call through the full pipeline without the scheduler, with its
    /// `tool_queued` … `tool_completed` events. A context modifier the call
    /// returns is applied to `ctx`.
    pub async fn run_one(
        &self,
        block: ToolUseBlock,
        ctx: &mut ToolUseContext,
        interrupt: &CancellationToken,
    ) -> ToolCallResult {
        let prepared = self.prepare(block, &mut HashSet::new(), &mut 0);
        let tokens = CallTokens::new(interrupt.clone(), CancellationToken::new());
        let started = std::time::Instant::now();
        let outcome = match prepared.rejection.clone() {
            // Malformed blocks never start (as in the executor).
            Some(rejection) if prepared.is_malformed() => self.reject(&prepared, rejection),
            _ => {
                self.emit_started(&prepared, 0, false);
                let mut call_ctx = ctx.clone();
                call_ctx.extensions.insert(self.tool_search_view());
                self.run_pipeline(&prepared, Arc::new(call_ctx), &tokens)
                    .await
            }
        };
        let (result, modifier) = self.complete(&prepared, outcome, started.elapsed());
        if let Some(m) = modifier {
            let safe = prepared.safe;
            self.emitter.emit(EventBody::ContextModified {
                tool_use_id: result.tool_use_id.clone(),
                description: m.description().to_owned(),
                applied: !safe,
            });
            if !safe {
                m.apply(ctx);
            }
        }
        result
    }

    /// The runtime of a sub-agent of this session (issue 19): its own
    /// `pool` (a restricted set, see `ToolPool::for_agent`), session id,
    /// event sink and spill folder, and everything that decides calls the
    /// same as here: the permission resolver, the hooks, the ask handler,
    /// the settings and the "allow for this session" answers. No mode
    /// listener (a sub-agent's mode changes stay its own) and no pool
    /// refresh (the pool is fixed for the sub-agent's run); its hooks are
    /// the parent's as they are when it starts.
    pub fn child(
        &self,
        pool: Arc<ToolPool>,
        session_id: impl Into<String>,
        session_dir: impl Into<PathBuf>,
        sink: Arc<dyn EventSink>,
    ) -> Arc<ToolRuntime> {
        self.child_with_resolver(
            pool,
            session_id,
            session_dir,
            sink,
            Arc::clone(&self.resolver),
        )
    }

    /// [`Self::child`] deciding through `resolver`, which wraps this
    /// runtime's own ([`Self::resolver`]): a definition's permission mode
    /// (`SubagentModeResolver`), a worktree's re-rooted paths.
    pub fn child_with_resolver(
        &self,
        pool: Arc<ToolPool>,
        session_id: impl Into<String>,
        session_dir: impl Into<PathBuf>,
        sink: Arc<dyn EventSink>,
        resolver: Arc<dyn PermissionResolver>,
    ) -> Arc<ToolRuntime> {
        let session_dir = session_dir.into();
        Arc::new(ToolRuntime {
            max_concurrency: self.max_concurrency,
            tool_search: self.tool_search,
            loaded: Mutex::new(Vec::new()),
            pool: RwLock::new(pool),
            pool_refresh: None,
            resolver,
            hooks: RwLock::new(self.hooks()),
            ask: self.ask.clone(),
            emitter: Emitter::new(session_id.into(), sink),
            budget: ResultBudget::new(&session_dir),
            config: self.config.clone(),
            session_grants: Arc::clone(&self.session_grants),
            mode_listener: None,
        })
    }

    /// The permission resolver calls are decided with.
    pub fn resolver(&self) -> &Arc<dyn PermissionResolver> {
        &self.resolver
    }

    /// Records an "allow for this session" answer.
    pub(crate) fn grant_for_session(&self, key: String) {
        self.session_grants
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key);
    }

    /// Whether an "allow for this session" answer covers `key`.
    pub(crate) fn has_session_grant(&self, key: &str) -> bool {
        self.session_grants
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .contains(key)
    }
}
