//! The hooks of one session: settings-file handlers behind the runtime's
//! hook seams (PreToolUse, PostToolUse, PostToolUseFailure,
//! PermissionRequest, Notification; UserPromptSubmit and Stop through
//! [`TurnHooks`]) and the session events the host fires (SessionStart,
//! SessionEnd). Every run is reported as a typed `hook_ran` event with
//! what ran, from which file, how long it took, its exit code and the
//! first KB of its output.
//!
//! A session with no hooks configured gets an empty
//! [`gatehouse_core::hooks::Hooks`]: the pipeline then does no hook work at
//! all (not even building the stdin JSON).

use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use async_trait::async_trait;
use futures::future::join_all;
use gatehouse_core::events::Emitter;
use gatehouse_core::hooks::{
    HookDecision, HookError, HookOutcome, Hooks, Notifier, PostHookOutcome, PostToolUseHook,
    PostToolUseInput, PreToolUseHook, PreToolUseInput, PromptHookOutcome, TurnHooks,
};
use gatehouse_permissions::rule::{RuleKind, parse_rule};
use gatehouse_permissions::sources::{LoadedSettings, SourcedRule};
use gatehouse_permissions::{EngineContext, PermissionEngine};
use gatehouse_protocol::event::{EventBody, HookEventName, HookRun};
use gatehouse_protocol::permission::{DecisionReason, PermissionBehavior, PermissionMode};
use serde_json::{Map, Value, json};

use crate::config::{Handler, HookSpec, LoadedHooks};
use crate::http::SecretSource;
use crate::protocol::{HookResponse, base_input, interpret, tool_response};
use crate::runner::{CommandSpec, RawRun, run_command};
use crate::transcript::TranscriptSink;

/// How much of stdout and stderr a `hook_ran` event keeps.
pub const EVENT_OUTPUT: usize = 1024;

/// What every hook of a session needs.
#[derive(Clone)]
pub struct HookContext {
    /// The session.
    pub session_id: String,
    /// The project folder: the hooks' cwd and `CLAUDE_PROJECT_DIR`.
    pub project: PathBuf,
    /// The home folder (`~` in `if` rules).
    pub home: PathBuf,
    /// The Claude Code-format transcript (`transcript_path`), if written.
    pub transcript: Option<Arc<TranscriptSink>>,
    /// Where `hook_ran` events of session-level hooks go.
    pub emitter: Emitter,
    /// Keychain values of HTTP hooks' `secretHeaders`.
    pub secrets: Option<SecretSource>,
    /// The session's permission mode now.
    pub mode: Arc<dyn Fn() -> PermissionMode + Send + Sync>,
}

impl std::fmt::Debug for HookContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HookContext")
            .field("session_id", &self.session_id)
            .field("project", &self.project)
            .finish_non_exhaustive()
    }
}

struct Shared {
    ctx: HookContext,
    client: OnceLock<Result<reqwest::Client, String>>,
}

impl Shared {
    fn transcript_path(&self) -> String {
        self.ctx
            .transcript
            .as_ref()
            .map(|t| t.path().display().to_string())
            .unwrap_or_default()
    }

    fn base(&self, event: HookEventName, mode: PermissionMode) -> Map<String, Value> {
        base_input(
            event,
            &self.ctx.session_id,
            &self.transcript_path(),
            &self.ctx.project,
            mode,
        )
    }
}

/// One handler from a settings file, runnable.
pub struct SettingsHook {
    spec: HookSpec,
    label: String,
    /// The `if` rule as the only deny rule of an engine of its own: the
    /// engine's own matcher decides whether a call matches it.
    if_engine: Option<Arc<PermissionEngine>>,
    shared: Arc<Shared>,
}

impl std::fmt::Debug for SettingsHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.label)
    }
}

fn excerpt(s: &str) -> (String, bool) {
    if s.len() <= EVENT_OUTPUT {
        return (s.to_owned(), false);
    }
    let mut end = EVENT_OUTPUT;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    (s[..end].to_owned(), true)
}

impl SettingsHook {
    fn new(spec: HookSpec, shared: Arc<Shared>) -> Self {
        let if_engine = spec.if_rule.as_deref().and_then(|text| {
            let rule = parse_rule(text).ok()?;
            let settings = LoadedSettings {
                rules: vec![SourcedRule {
                    rule,
                    kind: RuleKind::Deny,
                    source: spec.source,
                    file: Some(spec.file.clone()),
                    line: spec.position.line,
                    column: spec.position.column,
                    settings_root: Some(shared.ctx.project.clone()),
                }],
                ..LoadedSettings::default()
            };
            let ctx = EngineContext {
                cwd: shared.ctx.project.clone(),
                home: shared.ctx.home.clone(),
                additional_dirs: Vec::new(),
                mode: PermissionMode::Default,
            };
            Some(Arc::new(PermissionEngine::new(ctx, settings)))
        });
        Self {
            label: spec.label(),
            spec,
            if_engine,
            shared,
        }
    }

    /// The spec it runs.
    pub fn spec(&self) -> &HookSpec {
        &self.spec
    }

    /// Whether the `if` filter (if any) matches this call; analysed on the
    /// blocking pool (a shell command may take the parser's time).
    async fn if_matches(&self, tool_name: &str, input: &Value) -> bool {
        let Some(engine) = &self.if_engine else {
            return true;
        };
        let engine = Arc::clone(engine);
        let (tool, input) = (tool_name.to_owned(), input.clone());
        tokio::task::spawn_blocking(move || {
            let d = engine.decide_input(&tool, &input);
            d.decision == PermissionBehavior::Deny
                && matches!(d.reason, DecisionReason::Rule { .. })
        })
        .await
        // A failed analysis runs the hook: a guard is better run once too
        // often than skipped.
        .unwrap_or(true)
    }

    /// Runs the handler with `stdin` and reads its answer.
    pub async fn execute(&self, event: HookEventName, stdin: &Value) -> (HookResponse, HookRun) {
        if let Some(t) = &self.shared.ctx.transcript {
            t.sync().await;
        }
        let body = serde_json::to_vec(stdin).unwrap_or_default();
        let raw = match &self.spec.handler {
            Handler::Command { shell, exec } => {
                let spec = CommandSpec {
                    shell: shell.clone(),
                    exec: exec.clone(),
                    cwd: self.shared.ctx.project.clone(),
                    timeout: self.spec.timeout,
                };
                run_command(&spec, &body, &self.shared.ctx.project).await
            }
            Handler::Http {
                url,
                headers,
                secret_headers,
            } => {
                let client = self.shared.client.get_or_init(crate::http::client);
                match client {
                    Ok(c) => {
                        crate::http::post(
                            c,
                            url,
                            headers,
                            secret_headers,
                            self.shared.ctx.secrets.as_ref(),
                            body,
                            self.spec.timeout,
                        )
                        .await
                    }
                    Err(e) => RawRun {
                        spawn_error: Some(e.clone()),
                        ..RawRun::default()
                    },
                }
            }
        };
        let what = self.spec.handler.display();
        let mut response = interpret(event, &what, &raw, self.spec.timeout.as_secs_f64());
        if raw.dropped_bytes > 0 {
            let note = format!(
                "hook {what} printed more than 1 MiB: {} bytes were dropped",
                raw.dropped_bytes
            );
            response.error = Some(match response.error.take() {
                Some(e) => format!("{e}; {note}"),
                None => note,
            });
        }
        (response, self.report(&raw))
    }

    fn report(&self, raw: &RawRun) -> HookRun {
        let (stdout, t1) = excerpt(&raw.stdout);
        let (stderr, t2) = excerpt(&raw.stderr);
        HookRun {
            handler: self.spec.handler.kind(),
            command: self.spec.handler.display(),
            matcher: self.spec.matcher.clone(),
            source: Some(self.spec.source),
            file: Some(self.spec.file.display().to_string()),
            duration_ms: u64::try_from(raw.duration.as_millis()).unwrap_or(u64::MAX),
            exit_code: raw
                .http_status
                .map_or(raw.exit_code, |s| Some(i32::from(s))),
            signal: raw.signal,
            timed_out: raw.timed_out,
            stdout,
            stderr,
            output_truncated: t1 || t2 || raw.dropped_bytes > 0,
        }
    }

    fn tool_stdin(&self, event: HookEventName, input: &PreToolUseInput<'_>) -> Value {
        let mut m = self.shared.base(event, input.permission_mode);
        m.insert("cwd".into(), json!(input.cwd.display().to_string()));
        m.insert("tool_name".into(), json!(input.tool_name));
        m.insert("tool_input".into(), input.tool_input.clone());
        m.insert("tool_use_id".into(), json!(input.tool_use_id));
        if event == HookEventName::PermissionRequest {
            m.insert("permission_suggestions".into(), json!([]));
        }
        Value::Object(m)
    }
}

fn outcome_of(event: HookEventName, tool: &str, r: HookResponse, run: HookRun) -> HookOutcome {
    let text_error = r.error.clone();
    let block = r.block.or(r.stop);
    HookOutcome {
        decision: r.decision,
        reason: r.reason,
        updated_input: r.updated_input,
        block,
        additional_context: r
            .additional_context
            .map(|c| format!("{event:?}:{tool} hook additional context: {c}")),
        error: text_error,
        run: Some(run),
    }
}

#[async_trait]
impl PreToolUseHook for SettingsHook {
    fn name(&self) -> &str {
        &self.label
    }

    fn matches(&self, tool_name: &str) -> bool {
        self.spec.compiled.matches(tool_name)
    }

    async fn applies(&self, input: &PreToolUseInput<'_>) -> bool {
        self.if_matches(input.tool_name, input.tool_input).await
    }

    async fn run(&self, input: &PreToolUseInput<'_>) -> Result<HookOutcome, HookError> {
        let event = match &self.spec.event {
            crate::config::HookEvent::Known(e) => *e,
            crate::config::HookEvent::Unknown(_) => HookEventName::PreToolUse,
        };
        let stdin = self.tool_stdin(event, input);
        let (r, run) = self.execute(event, &stdin).await;
        Ok(outcome_of(event, input.tool_name, r, run))
    }
}

#[async_trait]
impl PostToolUseHook for SettingsHook {
    fn name(&self) -> &str {
        &self.label
    }

    fn matches(&self, tool_name: &str) -> bool {
        self.spec.compiled.matches(tool_name)
    }

    async fn applies(&self, input: &PostToolUseInput<'_>) -> bool {
        self.if_matches(input.tool_name, input.tool_input).await
    }

    async fn run(&self, input: &PostToolUseInput<'_>) -> Result<PostHookOutcome, HookError> {
        let event = if input.is_error {
            HookEventName::PostToolUseFailure
        } else {
            HookEventName::PostToolUse
        };
        let mut m = self.shared.base(event, (self.shared.ctx.mode)());
        m.insert("cwd".into(), json!(input.cwd.display().to_string()));
        m.insert("tool_name".into(), json!(input.tool_name));
        m.insert("tool_input".into(), input.tool_input.clone());
        m.insert("tool_use_id".into(), json!(input.tool_use_id));
        if input.is_error {
            let error = input
                .tool_response
                .as_str()
                .map_or_else(|| input.tool_response.to_string(), str::to_owned);
            m.insert("error".into(), json!(error));
            m.insert("is_interrupt".into(), json!(input.is_interrupt));
        } else {
            m.insert(
                "tool_response".into(),
                tool_response(input.tool_name, input.tool_response),
            );
        }
        m.insert("duration_ms".into(), json!(input.duration_ms));
        let (r, run) = self.execute(event, &Value::Object(m)).await;
        // Exit 2 and `decision: block` after a call: the tool already ran,
        // so their message reaches the model as a separate message after
        // the result; `continue: false` stops the turn.
        let tool = input.tool_name;
        let mut context = Vec::new();
        if let Some(b) = &r.block {
            context.push(format!("{event:?}:{tool} hook error: {b}"));
        }
        if let Some(c) = &r.additional_context {
            context.push(format!("{event:?}:{tool} hook additional context: {c}"));
        }
        Ok(PostHookOutcome {
            block: r.stop.clone(),
            additional_context: (!context.is_empty()).then(|| context.join("\n")),
            error: r.error,
            run: Some(run),
        })
    }
}

struct Built {
    loaded: LoadedHooks,
    hooks: Vec<Arc<SettingsHook>>,
}

impl Built {
    fn of(&self, event: HookEventName) -> impl Iterator<Item = &Arc<SettingsHook>> {
        self.hooks
            .iter()
            .filter(move |h| h.spec.event == crate::config::HookEvent::Known(event))
    }
}

/// See the module docs.
pub struct SessionHooks {
    /// Itself, for the notifier's own task.
    me: std::sync::Weak<SessionHooks>,
    shared: Arc<Shared>,
    built: RwLock<Arc<Built>>,
    /// SessionStart context waiting for the first prompt.
    pending_context: Mutex<Vec<String>>,
}

impl std::fmt::Debug for SessionHooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionHooks")
            .field("hooks", &self.built().hooks)
            .finish_non_exhaustive()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The decision of several responses: deny > ask > allow.
fn strongest(responses: &[(Arc<SettingsHook>, HookResponse)]) -> Option<HookDecision> {
    responses.iter().filter_map(|(_, r)| r.decision).max()
}

impl SessionHooks {
    /// The hooks of a session with context `ctx`.
    pub fn new(ctx: HookContext, loaded: LoadedHooks) -> Arc<Self> {
        let shared = Arc::new(Shared {
            ctx,
            client: OnceLock::new(),
        });
        let built = Self::build(&shared, loaded);
        Arc::new_cyclic(|me| Self {
            me: me.clone(),
            shared,
            built: RwLock::new(Arc::new(built)),
            pending_context: Mutex::new(Vec::new()),
        })
    }

    fn build(shared: &Arc<Shared>, loaded: LoadedHooks) -> Built {
        let hooks = loaded
            .active
            .iter()
            .cloned()
            .map(|spec| Arc::new(SettingsHook::new(spec, Arc::clone(shared))))
            .collect();
        Built { loaded, hooks }
    }

    fn built(&self) -> Arc<Built> {
        match self.built.read() {
            Ok(b) => Arc::clone(&b),
            Err(p) => Arc::clone(&p.into_inner()),
        }
    }

    /// Replaces the hooks (the settings files changed). Returns the
    /// runtime seams to install with `ToolRuntime::set_hooks`.
    pub fn replace(self: &Arc<Self>, loaded: LoadedHooks) -> Hooks {
        let built = Self::build(&self.shared, loaded);
        match self.built.write() {
            Ok(mut b) => *b = Arc::new(built),
            Err(p) => *p.into_inner() = Arc::new(built),
        }
        self.runtime_hooks()
    }

    /// What was loaded (active and ignored hooks, errors, warnings).
    pub fn loaded(&self) -> LoadedHooks {
        self.built().loaded.clone()
    }

    /// The runtime's hook seams for the hooks now configured; empty (so
    /// the pipeline does nothing) when none are.
    pub fn runtime_hooks(self: &Arc<Self>) -> Hooks {
        let built = self.built();
        if built.hooks.is_empty() {
            return Hooks::default();
        }
        let pre = |e| {
            built
                .of(e)
                .map(|h| Arc::clone(h) as Arc<dyn PreToolUseHook>)
                .collect::<Vec<_>>()
        };
        let post = |e| {
            built
                .of(e)
                .map(|h| Arc::clone(h) as Arc<dyn PostToolUseHook>)
                .collect::<Vec<_>>()
        };
        let any = |e| built.of(e).next().is_some();
        Hooks {
            pre_tool_use: pre(HookEventName::PreToolUse),
            post_tool_use: post(HookEventName::PostToolUse),
            post_tool_use_failure: post(HookEventName::PostToolUseFailure),
            permission_request: pre(HookEventName::PermissionRequest),
            notifier: any(HookEventName::Notification)
                .then(|| Arc::clone(self) as Arc<dyn Notifier>),
            turn: (any(HookEventName::UserPromptSubmit) || any(HookEventName::Stop))
                .then(|| Arc::clone(self) as Arc<dyn TurnHooks>),
        }
    }

    /// Runs the hooks of a session-level `event` whose matcher matches
    /// `subject` (SessionStart: `startup`/`resume`; Notification:
    /// `permission_prompt`; others match all), in parallel, each reported
    /// as `hook_ran` for `tool_use_id` (empty for session events).
    async fn run_event(
        &self,
        event: HookEventName,
        subject: Option<&str>,
        tool_use_id: &str,
        extra: Map<String, Value>,
    ) -> Vec<(Arc<SettingsHook>, HookResponse)> {
        let built = self.built();
        let matching: Vec<_> = built
            .of(event)
            .filter(|h| subject.is_none_or(|s| h.spec.compiled.matches(s)))
            .cloned()
            .collect();
        if matching.is_empty() {
            return Vec::new();
        }
        let mut m = self.shared.base(event, (self.shared.ctx.mode)());
        m.extend(extra);
        let stdin = Value::Object(m);
        let runs = join_all(matching.iter().map(|h| h.execute(event, &stdin))).await;
        let mut out = Vec::new();
        for (hook, (response, run)) in matching.into_iter().zip(runs) {
            self.shared.ctx.emitter.emit(EventBody::HookRan {
                tool_use_id: tool_use_id.to_owned(),
                hook_event: event,
                hook: hook.label.clone(),
                decision: response.decision.map(Into::into),
                blocked: response.block.is_some() || response.stop.is_some(),
                input_updated: false,
                message: response
                    .block
                    .clone()
                    .or_else(|| response.stop.clone())
                    .or_else(|| response.reason.clone())
                    .or_else(|| response.additional_context.clone())
                    .or_else(|| response.system_message.clone())
                    .or_else(|| response.text.clone()),
                error: response.error.clone(),
                run: Some(run),
            });
            out.push((hook, response));
        }
        out
    }

    /// SessionStart (`source`: `startup` or `resume`): its context waits
    /// for the first prompt.
    pub async fn session_start(&self, source: &str) {
        let mut extra = Map::new();
        extra.insert("source".into(), json!(source));
        let said = self
            .run_event(HookEventName::SessionStart, Some(source), "", extra)
            .await;
        let mut pending = lock(&self.pending_context);
        for (_, r) in said {
            if let Some(c) = r.additional_context {
                pending.push(format!("SessionStart hook additional context: {c}"));
            }
        }
    }

    /// SessionEnd (`reason`: `other`, `logout`, …); bounded by each hook's
    /// timeout.
    pub async fn session_end(&self, reason: &str) {
        let mut extra = Map::new();
        extra.insert("reason".into(), json!(reason));
        let _ = self
            .run_event(HookEventName::SessionEnd, Some(reason), "", extra)
            .await;
    }

    /// True when hooks of `event` are configured.
    pub fn has(&self, event: HookEventName) -> bool {
        self.built().of(event).next().is_some()
    }
}

#[async_trait]
impl TurnHooks for SessionHooks {
    async fn user_prompt_submit(&self, prompt: &str) -> PromptHookOutcome {
        let mut out = PromptHookOutcome::default();
        let mut extra = Map::new();
        extra.insert("prompt".into(), json!(prompt));
        let said = self
            .run_event(HookEventName::UserPromptSubmit, None, "", extra)
            .await;
        for (_, r) in &said {
            if out.block.is_none() {
                out.block = r.block.clone().or_else(|| r.stop.clone());
            }
            if let Some(c) = &r.additional_context {
                out.context.push(c.clone());
            }
        }
        if out.block.is_none() && strongest(&said) == Some(HookDecision::Deny) {
            out.block = Some("blocked by a UserPromptSubmit hook".into());
        }
        if out.block.is_none() {
            // SessionStart's context goes with the first prompt that is
            // sent, not with one a hook blocked.
            let mut pending = std::mem::take(&mut *lock(&self.pending_context));
            pending.append(&mut out.context);
            out.context = pending;
        }
        out
    }

    async fn stop(&self, stop_hook_active: bool) -> Option<String> {
        let mut extra = Map::new();
        extra.insert("stop_hook_active".into(), json!(stop_hook_active));
        let said = self.run_event(HookEventName::Stop, None, "", extra).await;
        // `continue: false` wins: the session stops whatever others said.
        if said.iter().any(|(_, r)| r.stop.is_some()) {
            return None;
        }
        let reasons: Vec<String> = said.into_iter().filter_map(|(_, r)| r.block).collect();
        (!reasons.is_empty()).then(|| reasons.join("\n"))
    }
}

impl Notifier for SessionHooks {
    fn notify(&self, tool_use_id: &str, message: String) {
        let Some(this) = self.self_arc() else {
            return;
        };
        let id = tool_use_id.to_owned();
        // Never awaited by the call: a notification hook must not hold the
        // permission prompt back.
        tokio::spawn(async move {
            let mut extra = Map::new();
            extra.insert("message".into(), json!(message));
            extra.insert("notification_type".into(), json!("permission_prompt"));
            let _ = this
                .run_event(
                    HookEventName::Notification,
                    Some("permission_prompt"),
                    &id,
                    extra,
                )
                .await;
        });
    }
}

impl SessionHooks {
    /// A strong reference to this set, for work on its own task.
    fn self_arc(&self) -> Option<Arc<Self>> {
        self.me.upgrade()
    }
}
