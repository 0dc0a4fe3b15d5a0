//! The decision ledger of a guarded Claude Code session: who decided each
//! call, as events of its Gatehouse session. The trace layer of the
//! settling `permission_decided` says who it was:
//!
//! * a Gatehouse rule or analysis: the engine's own layers, then
//!   [`LAYER_HOOK`] (Gatehouse answered PreToolUse; a hook's decision is
//!   reason `hook`);
//! * the user in Gatehouse: reason `user_answer`, layer [`LAYER_HOOK`]
//!   (the window answered Claude Code's PermissionRequest);
//! * the user in Claude Code's terminal: layer [`LAYER_TERMINAL`]. Claude
//!   Code does not tell hooks what its prompt was answered, so it is read
//!   from what follows: an ask the window did not answer is recorded as
//!   `permission_requested`; a PostToolUse or PostToolUseFailure of that
//!   call means the user allowed it there; an ask still open when the
//!   session ends (SessionEnd) was declined there (Claude Code runs no
//!   hook for a declined call).

use gatehouse_protocol::claude_code::ClaudeCodeAsk;
use gatehouse_protocol::event::{EventBody, SessionEndReason};
use gatehouse_protocol::permission::{DecisionReason, PermissionBehavior, TraceOutcome, TraceStep};
use gatehouse_protocol::session::PermissionAnswer;
use gatehouse_store::Store;

use super::hook::{HookInput, append, append_all, denied, ensure_session};

/// The trace layer of what Gatehouse answered in Claude Code's hooks.
pub const LAYER_HOOK: &str = "claude_code_hook";

/// The trace layer of what the user answered in Claude Code's terminal.
pub const LAYER_TERMINAL: &str = "claude_code_terminal";

/// Records an ask the window did not answer (`why`): Claude Code asks in
/// its terminal, and the call waits there.
pub(super) fn record_terminal_ask(
    store: &mut Store,
    call: &HookInput,
    project: &std::path::Path,
    ask: &ClaudeCodeAsk,
    why: &str,
) -> Result<(), String> {
    let session = ensure_session(store, call, project)?;
    let mut trace = ask.trace.clone();
    trace.push(TraceStep::new(
        LAYER_TERMINAL,
        TraceOutcome::Ask,
        format!("Gatehouse did not answer ({why}); Claude Code asks in its terminal"),
    ));
    let bodies = vec![
        // Unless queued already (guarded mid-call, or the transcript's
        // tail was first): the call is still recorded whole.
        EventBody::ToolQueued {
            tool_use_id: ask.tool_use_id.clone(),
            name: ask.tool_name.clone(),
            input: ask.input.clone(),
            read_only: false,
        },
        EventBody::PermissionRequested {
            tool_use_id: ask.tool_use_id.clone(),
            tool_name: ask.tool_name.clone(),
            input: ask.input.clone(),
            reason: ask.reason.clone(),
            trace,
            suggestions: ask.suggestions.clone(),
            user_suggestions: Vec::new(),
            preview: ask.preview.clone(),
            agent: None,
            web_host: None,
        },
    ];
    append_all(store, &session, bodies)
}

/// Whether the call's events (types, in order) end in an open ask: a
/// `permission_requested` with no answer or result after it.
pub(super) fn ask_open(types: &[String]) -> bool {
    let Some(asked) = types.iter().rposition(|t| t == "permission_requested") else {
        return false;
    };
    !types[asked..]
        .iter()
        .any(|t| t == "permission_answered" || t == "tool_completed")
}

/// The events of `answer` given to call `id` in Claude Code's terminal
/// (`detail`: how Gatehouse knows): the answer, then the settled decision.
pub(super) fn terminal_answer(id: &str, answer: PermissionAnswer, detail: &str) -> [EventBody; 2] {
    let (decision, outcome, text) = match answer {
        PermissionAnswer::Deny { .. } => (
            PermissionBehavior::Deny,
            TraceOutcome::Deny,
            "denied in Claude Code's terminal",
        ),
        _ => (
            PermissionBehavior::Allow,
            TraceOutcome::Allow,
            "allowed in Claude Code's terminal",
        ),
    };
    [
        EventBody::PermissionAnswered {
            tool_use_id: id.to_owned(),
            answer,
        },
        EventBody::PermissionDecided {
            tool_use_id: id.to_owned(),
            decision,
            reason: DecisionReason::UserAnswer {
                answer: text.to_owned(),
            },
            trace: vec![TraceStep::new(LAYER_TERMINAL, outcome, detail)],
        },
    ]
}

/// Claude Code's SessionEnd: asks still open were declined in its terminal
/// (a declined call runs no hook), and the recorded session ends. A
/// session Gatehouse never recorded is left alone.
pub(super) fn end_session(store: &mut Store, call: &HookInput) -> Result<(), String> {
    let Some(session) = call.session_id.clone() else {
        return Err("the input has no session_id".into());
    };
    if store
        .session(&session)
        .map_err(|e| e.to_string())?
        .is_none()
    {
        return Ok(());
    }
    for id in store.unanswered_asks(&session).map_err(|e| e.to_string())? {
        let [answered, decided] = terminal_answer(
            &id,
            PermissionAnswer::Deny { feedback: None },
            "no result came before the session ended: the user declined it in Claude Code's terminal",
        );
        append_all(
            store,
            &session,
            vec![
                answered,
                decided,
                denied(id, "Denied in Claude Code's terminal.".into()),
            ],
        )?;
    }
    append(
        store,
        &session,
        EventBody::SessionEnded {
            reason: SessionEndReason::Closed,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::ask_open;

    fn types(t: &[&str]) -> Vec<String> {
        t.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn an_ask_is_open_until_answered_or_completed() {
        assert!(!ask_open(&types(&["tool_queued", "permission_decided"])));
        assert!(ask_open(&types(&[
            "tool_queued",
            "permission_decided",
            "permission_requested"
        ])));
        assert!(!ask_open(&types(&[
            "permission_requested",
            "permission_answered"
        ])));
        assert!(!ask_open(&types(&[
            "permission_requested",
            "tool_completed"
        ])));
    }
}
