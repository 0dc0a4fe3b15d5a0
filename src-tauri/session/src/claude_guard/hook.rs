//! One call of Claude Code's hooks to `gatehouse-cli claude-code hook
//! <event>`: the JSON on stdin read (missing fields tolerated), the call
//! decided by Gatehouse's engine with the project's settings files (the
//! ones Claude Code reads), shell analysis and protected paths, the answer
//! in Claude Code's hook output shape, and the call recorded as events of
//! a live Gatehouse session with Claude Code's session id (origin
//! `claude_code`, as imported transcripts are).
//!
//! Never fails the user's Claude Code session: input that is not the
//! expected JSON, an unknown event or a store that cannot be written gives
//! no decision (Claude Code then decides as if there were no hook), and
//! the problems are returned for the log.
//!
//! A call Gatehouse would ask about goes to the running window, from
//! PreToolUse or from PermissionRequest ([`super::permission_request`]);
//! who decided each call, including the user in Claude Code's terminal, is
//! read from the events that follow ([`super::ledger`]).
//!
//! Claude Code's own sandbox settings are an input too ([`super::sandbox`]):
//! a command it confines and auto-allows is left to it (no decision).
//!
//! Claude Code hook fields read: `session_id`, `transcript_path`, `cwd`,
//! `hook_event_name`, `permission_mode`, `tool_name`, `tool_input`,
//! `tool_use_id`, `tool_response`, `duration_ms`, and PostToolUseFailure's
//! `error` and `is_interrupt`; the environment's `CLAUDE_PROJECT_DIR`
//! (the caller passes it). Fields written: `hookSpecificOutput` with
//! `hookEventName`, `permissionDecision`, `permissionDecisionReason`.

use std::path::{Path, PathBuf};

use gatehouse_permissions::session::SessionRule;
use gatehouse_permissions::sources::os_managed_policy_paths;
use gatehouse_permissions::{CheckReport, CheckRequest, check_with_sandbox};
use gatehouse_protocol::event::{ContentBlock, Event, EventBody, ToolCallStatus};
use gatehouse_protocol::permission::{PermissionBehavior, PermissionMode, TraceOutcome, TraceStep};
use gatehouse_protocol::session::SessionOrigin;
use gatehouse_store::{NewSession, SessionProvenance, Store, validate_session_id};
use serde::Deserialize;
use serde_json::{Value, json};

use super::ledger::LAYER_HOOK;
use super::merge::Writer;
use super::mode::decision_mode;
use super::permission_request::{Via, answer_in_window, ask_of};
use super::sandbox::{
    ClaudeCodeSandbox, LAYER_CLAUDE_CODE_SANDBOX, claude_code_sandbox, left_to_claude_code,
};
use super::state::{LastCall, claude_code_version, write_last_call};

/// The most stdin a hook call reads (a Write's whole file is in it).
pub const MAX_HOOK_INPUT_BYTES: u64 = 8 * 1024 * 1024;

/// The WAL size over which a hook call checkpoints and truncates it.
const MAX_HOOK_WAL_BYTES: u64 = 1024 * 1024;

/// The most of a tool's response kept in the recorded event.
const MAX_RECORDED_RESPONSE_BYTES: usize = 16 * 1024;

/// The most of the trace put in the reason Claude Code shows the model.
const MAX_TRACE_SUMMARY_BYTES: usize = 1000;

/// The provider name of live Claude Code sessions, as imports write it.
pub const CLAUDE_CODE_PROVIDER: &str = "claude_code";

/// Milliseconds since the Unix epoch.
fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// Where a hook call runs.
#[derive(Debug, Clone)]
pub struct HookEnv {
    /// Gatehouse's data directory (store, state file).
    pub data_dir: PathBuf,
    /// The home directory (user settings, `~`).
    pub home: PathBuf,
    /// `CLAUDE_PROJECT_DIR` as Claude Code set it for the hook.
    pub claude_project_dir: Option<PathBuf>,
    /// The hook process's own working directory (Claude Code starts hooks
    /// in the project), used when the input has no `cwd`.
    pub process_cwd: PathBuf,
    /// How long a PermissionRequest waits for the window's answer before
    /// Claude Code asks in its terminal.
    pub ask_timeout: std::time::Duration,
    /// The hook's `PATH` (Claude Code's), where Claude Code's sandbox finds
    /// the programs it needs.
    pub path: Option<std::ffi::OsString>,
}

/// The hook's answer: what to print on stdout (nothing: no decision), and
/// the problems met (already written to the log).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HookReply {
    /// The JSON to print, when there is a decision.
    pub stdout: Option<Value>,
    /// What went wrong (never shown to Claude Code).
    pub problems: Vec<String>,
}

/// Claude Code's hook input; every field optional (older and newer
/// versions differ).
#[derive(Debug, Default, Deserialize)]
pub(super) struct HookInput {
    pub(super) session_id: Option<String>,
    pub(super) transcript_path: Option<String>,
    pub(super) cwd: Option<String>,
    pub(super) hook_event_name: Option<String>,
    pub(super) permission_mode: Option<String>,
    pub(super) tool_name: Option<String>,
    pub(super) tool_input: Option<Value>,
    pub(super) tool_use_id: Option<String>,
    pub(super) tool_response: Option<Value>,
    /// PostToolUseFailure: what went wrong (a string in 2.1.x).
    pub(super) error: Option<Value>,
    /// PostToolUseFailure: the user interrupted the call (a boolean; any
    /// other value reads as not interrupted rather than failing the input).
    pub(super) is_interrupt: Option<Value>,
    /// PostToolUse(Failure): how long the tool ran, in milliseconds (a
    /// number, possibly fractional).
    pub(super) duration_ms: Option<Value>,
}

/// Answers one hook call of `event` with stdin `input`; the problems met
/// are written to the log as well as returned.
pub fn handle(event: &str, input: &[u8], env: &HookEnv) -> HookReply {
    let mut reply = HookReply::default();
    let call = read_input(event, input, &mut reply);
    if let Some(call) = &call {
        match event {
            "PreToolUse" => pre_tool_use(call, env, &mut reply),
            "PostToolUse" => post_tool_use(call, env, &mut reply, false),
            "PostToolUseFailure" => post_tool_use(call, env, &mut reply, true),
            "PermissionRequest" => super::permission_request::handle(call, env, &mut reply),
            "SessionEnd" => session_end(call, env, &mut reply),
            other => reply.problems.push(format!(
                "unknown hook event {other:?}; Gatehouse answers {}",
                super::GUARD_EVENTS.join(", ")
            )),
        }
    }
    // Recorded even for input that could not be read: Claude Code called.
    let call = call.unwrap_or_default();
    let last = LastCall {
        event: event.to_owned(),
        at_ms: now_ms(),
        claude_code_version: call
            .transcript_path
            .as_deref()
            .and_then(|p| claude_code_version(Path::new(p))),
        session_id: call.session_id.clone(),
    };
    if let Err(e) = write_last_call(&env.data_dir, &last) {
        reply
            .problems
            .push(format!("recording the last call in the guard's state: {e}"));
    }
    for problem in &reply.problems {
        tracing::warn!(target: "claude_code_hook", "{problem}");
    }
    reply
}

/// The hook input, or `None` (with the problem) when it is not Claude
/// Code's hook JSON for `event`.
fn read_input(event: &str, input: &[u8], reply: &mut HookReply) -> Option<HookInput> {
    let call: HookInput = match serde_json::from_slice(input) {
        Ok(call) => call,
        Err(e) => {
            reply.problems.push(format!(
                "{event} hook: stdin is not Claude Code's hook JSON ({e}); no decision given"
            ));
            return None;
        }
    };
    if let Some(named) = call.hook_event_name.as_deref()
        && named != event
    {
        reply.problems.push(format!(
            "the hook entry is for {event} but Claude Code sent {named}; no decision given"
        ));
        return None;
    }
    Some(call)
}

/// The project a call belongs to: `CLAUDE_PROJECT_DIR`, else the call's
/// `cwd`, else the process's; canonical when it exists.
pub(super) fn project_dir(call: &HookInput, env: &HookEnv) -> PathBuf {
    let dir = env
        .claude_project_dir
        .clone()
        .or_else(|| call.cwd.as_ref().map(PathBuf::from))
        .unwrap_or_else(|| env.process_cwd.clone());
    std::fs::canonicalize(&dir).unwrap_or(dir)
}

pub(super) fn mode_of(call: &HookInput, reply: &mut HookReply) -> Option<PermissionMode> {
    let name = call.permission_mode.as_deref()?;
    match serde_json::from_value(json!(name)) {
        Ok(mode) => Some(mode),
        Err(_) => {
            reply.problems.push(format!(
                "unknown permission_mode {name:?}; the settings' defaultMode is used"
            ));
            None
        }
    }
}

fn pre_tool_use(call: &HookInput, env: &HookEnv, reply: &mut HookReply) {
    let (Some(tool_name), Some(tool_input)) = (&call.tool_name, &call.tool_input) else {
        reply.problems.push(
            "PreToolUse hook: the input has no tool_name or tool_input; no decision given".into(),
        );
        return;
    };
    let (project, report, mut store) = decide(call, env, tool_name, tool_input, reply, true);
    // Gatehouse asks: the running window is where the user answers. Claude
    // Code in print mode or the SDK turns a hook's "ask" straight into a
    // denial (no PermissionRequest follows), and in the terminal the ask
    // would only come back to the window through PermissionRequest.
    if report.decision == PermissionBehavior::Ask {
        let ask = ask_of(call, &project, tool_name, tool_input, &report);
        if let Ok((behavior, message)) = answer_in_window(
            call,
            env,
            &project,
            &ask,
            &mut store,
            reply,
            Via::PreToolUse,
        ) {
            reply.stdout = Some(answered_output(behavior, message));
            return;
        }
        // No window, or no answer in time: Claude Code asks as usual.
    }
    reply.stdout = Some(pre_tool_use_output(&report));
    if let Some(mut store) = store
        && let Err(e) = record_pre(&mut store, call, &project, tool_name, tool_input, &report)
    {
        reply.problems.push(format!("recording the call: {e}"));
    }
}

/// Claude Code's PreToolUse answer for what the user answered in the
/// window. Claude Code still applies its own deny rules after an allow.
fn answered_output(behavior: PermissionBehavior, message: Option<String>) -> Value {
    let (decision, reason) = match behavior {
        PermissionBehavior::Allow => ("allow", "Gatehouse: the user allowed this call".to_owned()),
        _ => (
            "deny",
            message.unwrap_or_else(|| "Gatehouse: the user denied this call".to_owned()),
        ),
    };
    json!({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": decision,
            "permissionDecisionReason": reason,
        }
    })
}

/// Gatehouse's decision for a call: the project's settings files (its
/// allow rules only when the project is trusted in Gatehouse), the rules
/// granted "for this session" in Gatehouse, Claude Code's mode, and —
/// when `claude_code_sandboxes` (before the call runs; a PermissionRequest
/// means the sandbox did not settle it) — Claude Code's own sandbox. Returns the
/// project, the report and the store (when it opens).
pub(super) fn decide(
    call: &HookInput,
    env: &HookEnv,
    tool_name: &str,
    tool_input: &Value,
    reply: &mut HookReply,
    claude_code_sandboxes: bool,
) -> (PathBuf, CheckReport, Option<Store>) {
    let project = project_dir(call, env);
    let store = open_store(env, reply);
    let trusted = store.as_ref().is_some_and(|s| {
        s.project_by_path(&project.display().to_string())
            .ok()
            .flatten()
            .is_some_and(|p| p.trusted_at_ms.is_some())
    });
    let (mode, mode_step) = decision_mode(mode_of(call, reply), &project, trusted);
    let session_rules = match (&store, &call.session_id) {
        (Some(store), Some(id)) => store
            .session_rules(id)
            .unwrap_or_default()
            .into_iter()
            .filter_map(|r| {
                let kind = serde_json::from_value(json!(r.kind)).ok()?;
                Some(SessionRule { kind, rule: r.rule })
            })
            .collect(),
        _ => Vec::new(),
    };
    let (managed_file, managed_dropin_dir) = os_managed_policy_paths();
    // Claude Code confines only Bash.
    let sandbox = if claude_code_sandboxes && tool_name == "Bash" {
        claude_code_sandbox(
            &project,
            &env.home,
            trusted,
            env.path.as_deref(),
            &mut reply.problems,
        )
    } else {
        ClaudeCodeSandbox::Off
    };
    let mut request = CheckRequest::new(&project, &env.home, tool_name, tool_input.clone());
    request.mode = mode;
    request.trust_project = trusted;
    request.cwd = call.cwd.as_ref().map(PathBuf::from);
    request.managed_file = Some(managed_file);
    request.managed_dropin_dir = Some(managed_dropin_dir);
    request.session_rules = session_rules;
    let mut report = check_with_sandbox(&request, sandbox.rules());
    if let Some(step) = mode_step {
        report.trace.insert(0, step);
    }
    sandbox.explain(&mut report.trace);
    for e in &report.settings_errors {
        reply.problems.push(format!("settings: {e}"));
    }
    (project, report, store)
}

/// Claude Code's PreToolUse answer for Gatehouse's decision. An allow is
/// only an allow of Gatehouse's: Claude Code still applies its own deny
/// and ask rules after a hook's allow, so it never widens them.
pub fn pre_tool_use_output(report: &CheckReport) -> Value {
    if left_to_claude_code(report) {
        // No decision: Claude Code's sandbox decides (see `sandbox`).
        return json!({"hookSpecificOutput": {"hookEventName": "PreToolUse"}});
    }
    let decision = match report.decision {
        PermissionBehavior::Allow => "allow",
        PermissionBehavior::Ask => "ask",
        PermissionBehavior::Deny => "deny",
    };
    let reason = format!(
        "Gatehouse: {} ({}). Trace: {}",
        gatehouse_core::pipeline::describe_reason(&report.reason),
        decision,
        trace_summary(&report.trace)
    );
    json!({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": decision,
            "permissionDecisionReason": reason,
        }
    })
}

/// The layers that had an opinion, `layer: outcome (detail)`, bounded.
fn trace_summary(trace: &[TraceStep]) -> String {
    let mut out = String::new();
    for step in trace
        .iter()
        .filter(|s| !matches!(s.outcome, TraceOutcome::Skipped | TraceOutcome::Passthrough))
    {
        let outcome = serde_json::to_value(step.outcome)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        let part = if step.detail.is_empty() {
            format!("{}: {outcome}", step.layer)
        } else {
            format!("{}: {outcome} ({})", step.layer, step.detail)
        };
        if !out.is_empty() {
            out.push_str("; ");
        }
        out.push_str(&part);
    }
    truncate(&mut out, MAX_TRACE_SUMMARY_BYTES);
    if out.is_empty() {
        out.push_str("no layer decided");
    }
    out
}

pub(super) fn truncate(text: &mut String, max: usize) {
    if text.len() > max {
        let mut end = max;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push('…');
    }
}

pub(super) fn open_store(env: &HookEnv, reply: &mut HookReply) -> Option<Store> {
    // The hook process writes a few events and exits: the checkpoint SQLite
    // runs as the last connection closes (two fsyncs, most of the call's
    // time) is skipped, and the WAL is checkpointed and truncated instead
    // once it is over MAX_HOOK_WAL_BYTES (every new hook process recovers
    // all of it; left alone it grows without bound).
    match Store::open_without_close_checkpoint(&env.data_dir) {
        Ok(store) => {
            if let Err(e) = store.truncate_wal_over(MAX_HOOK_WAL_BYTES) {
                reply
                    .problems
                    .push(format!("checkpointing Gatehouse's store: {e}"));
            }
            Some(store)
        }
        Err(e) => {
            reply.problems.push(format!(
                "opening Gatehouse's store: {e}; the call is not recorded"
            ));
            None
        }
    }
}

/// The Gatehouse session of Claude Code's session `call.session_id`,
/// created (origin `claude_code`, running) on its first call.
pub(super) fn ensure_session(
    store: &mut Store,
    call: &HookInput,
    project: &Path,
) -> Result<String, String> {
    let id = call
        .session_id
        .clone()
        .ok_or_else(|| "the input has no session_id".to_owned())?;
    validate_session_id(&id).map_err(|e| e.to_string())?;
    if store.session(&id).map_err(|e| e.to_string())?.is_some() {
        follow_transcript(store, call, &id, false)?;
        return Ok(id);
    }
    let project = project.display().to_string();
    let mode = call
        .permission_mode
        .clone()
        .unwrap_or_else(|| "default".into());
    let created = store.create_session_with(
        &NewSession {
            id: id.clone(),
            project_path: project.clone(),
            provider: CLAUDE_CODE_PROVIDER.into(),
            model: String::new(),
            mode,
        },
        &SessionProvenance {
            origin: SessionOrigin::ClaudeCode,
            ..SessionProvenance::default()
        },
    );
    match created {
        Ok(()) => {}
        // Claude Code runs hooks of parallel calls at once: another hook
        // process created it first.
        Err(_) if store.session(&id).ok().flatten().is_some() => return Ok(id),
        Err(e) => return Err(e.to_string()),
    }
    append(
        store,
        &id,
        EventBody::SessionStarted {
            provider: CLAUDE_CODE_PROVIDER.into(),
            model: String::new(),
            project,
            resumed: false,
        },
    )?;
    follow_transcript(store, call, &id, true)?;
    Ok(id)
}

/// Records the session's transcript (`transcript_path`) for the tail to
/// follow from its start ([`super::tail`]), unless it is recorded already
/// (`created`: the session is new, so it cannot be; otherwise one read).
/// A new session first reads what the transcript holds so far, so the
/// prompt that led to its first call comes before the call.
fn follow_transcript(
    store: &mut Store,
    call: &HookInput,
    session: &str,
    created: bool,
) -> Result<(), String> {
    // Only the session's own transcript is followed (Claude Code names it
    // `<session_id>.jsonl`): the path comes from the hook's input, and any
    // other file's lines have no business in this session.
    let Some(path) = call
        .transcript_path
        .as_deref()
        .map(Path::new)
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .filter(|p| p.file_stem().is_some_and(|stem| *stem == *session))
    else {
        return Ok(());
    };
    // Not there yet: a later call records it.
    let Some(key) = super::tail::source_key(path) else {
        return Ok(());
    };
    if !created
        && store
            .import_record(&key)
            .map_err(|e| e.to_string())?
            .is_some()
    {
        return Ok(());
    }
    store
        .add_import_source(&key, session, "")
        .map_err(|e| e.to_string())?;
    if created {
        for problem in super::tail::catch_up(store, &key, session) {
            tracing::warn!(target: "claude_code_hook", "{problem}");
        }
    }
    Ok(())
}

pub(super) fn append(store: &mut Store, session_id: &str, body: EventBody) -> Result<(), String> {
    store
        .append_event(&Event {
            session_id: session_id.to_owned(),
            ts_ms: u64::try_from(now_ms()).unwrap_or(0),
            body,
        })
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// The call's id: Claude Code's `tool_use_id`, else one made up so the
/// call is still recorded.
pub(super) fn tool_use_id(call: &HookInput) -> String {
    call.tool_use_id
        .clone()
        .unwrap_or_else(|| format!("claude-code-{}", now_ms()))
}

fn record_pre(
    store: &mut Store,
    call: &HookInput,
    project: &Path,
    tool_name: &str,
    tool_input: &Value,
    report: &CheckReport,
) -> Result<(), String> {
    let session = ensure_session(store, call, project)?;
    let id = tool_use_id(call);
    let mut trace = report.trace.clone();
    trace.push(if left_to_claude_code(report) {
        TraceStep::new(
            LAYER_CLAUDE_CODE_SANDBOX,
            TraceOutcome::Passthrough,
            "left to Claude Code: its sandbox runs the command without asking \
             (autoAllowBashIfSandboxed), and Claude Code asks itself if the sandbox cannot start",
        )
    } else {
        TraceStep::new(
            LAYER_HOOK,
            match report.decision {
                PermissionBehavior::Allow => TraceOutcome::Allow,
                PermissionBehavior::Ask => TraceOutcome::Ask,
                PermissionBehavior::Deny => TraceOutcome::Deny,
            },
            "Gatehouse answered Claude Code's PreToolUse hook",
        )
    });
    let mut bodies = vec![
        EventBody::ToolQueued {
            tool_use_id: id.clone(),
            name: tool_name.to_owned(),
            input: tool_input.clone(),
            read_only: false,
        },
        EventBody::PermissionDecided {
            tool_use_id: id.clone(),
            decision: report.decision,
            reason: report.reason.clone(),
            trace,
        },
    ];
    if report.decision == PermissionBehavior::Deny {
        bodies.push(denied(
            id,
            gatehouse_core::pipeline::describe_reason(&report.reason),
        ));
    }
    // One transaction for the call's events.
    append_all(store, &session, bodies)
}

/// Appends `bodies` to `session` in order, in one transaction, leaving
/// out what the session holds of their calls already (the transcript's
/// tail may have been first: [`super::merge`]).
pub(super) fn append_all(
    store: &mut Store,
    session_id: &str,
    bodies: Vec<EventBody>,
) -> Result<(), String> {
    let ts_ms = u64::try_from(now_ms()).unwrap_or(0);
    super::merge::append_merged(
        store,
        session_id,
        Writer::Hook,
        super::merge::records(session_id, ts_ms, bodies),
        None,
    )
    .map(|_| ())
    .map_err(|e| e.to_string())
}

/// The `tool_completed` of a refused call: status `denied` and the refusal
/// Claude Code passes on to the model.
pub(super) fn denied(tool_use_id: String, text: String) -> EventBody {
    EventBody::ToolCompleted {
        tool_use_id,
        status: ToolCallStatus::Denied,
        is_error: true,
        content: vec![ContentBlock::Text { text }],
        duration_ms: 0,
        persisted_path: None,
    }
}

/// The text of a tool's response as recorded: Bash's stdout and stderr,
/// a string as it is, anything else as JSON; bounded.
fn response_text(response: Option<&Value>) -> String {
    let mut text = match response {
        None => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(v) if v.get("stdout").is_some() => {
            let part = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
            let (out, err) = (part("stdout"), part("stderr"));
            if err.is_empty() {
                out
            } else {
                format!("{out}\n{err}")
            }
        }
        Some(v) => v.to_string(),
    };
    truncate(&mut text, MAX_RECORDED_RESPONSE_BYTES);
    text
}

/// PostToolUse (`failed`: PostToolUseFailure): the call ran; its result
/// is recorded, after the terminal's allow when Claude Code asked there.
fn post_tool_use(call: &HookInput, env: &HookEnv, reply: &mut HookReply, failed: bool) {
    let project = project_dir(call, env);
    let Some(mut store) = open_store(env, reply) else {
        return;
    };
    if let Err(e) = record_post(&mut store, call, &project, failed) {
        reply
            .problems
            .push(format!("recording the call's result: {e}"));
    }
}

fn record_post(
    store: &mut Store,
    call: &HookInput,
    project: &Path,
    failed: bool,
) -> Result<(), String> {
    let session = ensure_session(store, call, project)?;
    let id = tool_use_id(call);
    let (status, text) = if failed {
        let status = if call.is_interrupt.as_ref().and_then(Value::as_bool) == Some(true) {
            ToolCallStatus::Interrupted
        } else {
            ToolCallStatus::Error
        };
        (status, response_text(call.error.as_ref()))
    } else {
        (
            ToolCallStatus::Ok,
            response_text(call.tool_response.as_ref()),
        )
    };
    // Queued unless it is already (guarded mid-call, or its PreToolUse was
    // not recorded): the call is still recorded whole. An ask left to
    // Claude Code's terminal is settled as allowed there first (merge).
    append_all(
        store,
        &session,
        vec![
            EventBody::ToolQueued {
                tool_use_id: id.clone(),
                name: call.tool_name.clone().unwrap_or_default(),
                input: call.tool_input.clone().unwrap_or(Value::Null),
                read_only: false,
            },
            EventBody::ToolCompleted {
                tool_use_id: id,
                status,
                is_error: failed,
                content: vec![ContentBlock::Text { text }],
                duration_ms: duration_ms(call.duration_ms.as_ref()),
                persisted_path: None,
            },
        ],
    )
}

/// Claude Code's `duration_ms` as whole milliseconds (0 when absent or not
/// a non-negative number).
// The value is finite and non-negative; `as` saturates at u64::MAX.
#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
fn duration_ms(value: Option<&Value>) -> u64 {
    value
        .and_then(Value::as_f64)
        .filter(|ms| ms.is_finite() && *ms >= 0.0)
        .map_or(0, |ms| ms.round() as u64)
}

/// SessionEnd: the recorded session ends (asks left open were declined
/// in Claude Code's terminal).
fn session_end(call: &HookInput, env: &HookEnv, reply: &mut HookReply) {
    let Some(mut store) = open_store(env, reply) else {
        return;
    };
    if let Err(e) = super::ledger::end_session(&mut store, call) {
        reply
            .problems
            .push(format!("recording the end of the session: {e}"));
    }
}
