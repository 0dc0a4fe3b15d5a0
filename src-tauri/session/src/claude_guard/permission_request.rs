//! Claude Code's `PermissionRequest` hook (it is about to prompt): the call
//! goes to the running Gatehouse window over the local socket
//! ([`super::bridge`]) with Gatehouse's reason, trace, suggested rules and
//! the diff an Edit/Write would make; the user's answer goes back as
//! `hookSpecificOutput.decision.behavior` allow/deny. "For this session"
//! stores the rules as Gatehouse session rules of Claude Code's session
//! (the PreToolUse hook applies them); "always" writes them, in Claude
//! Code's syntax, to the settings file picked (Claude Code reads it too).
//! No window, a stale socket or no answer in time: no decision, Claude
//! Code asks in its terminal (recorded as `permission_requested`, settled
//! by what follows: [`super::ledger`]).

use gatehouse_permissions::rule::RuleKind;
use gatehouse_permissions::suggest::suggest_rules;
use gatehouse_permissions::writeback::add_rule;
use gatehouse_protocol::claude_code::ClaudeCodeAsk;
use gatehouse_protocol::event::EventBody;
use gatehouse_protocol::permission::{
    DecisionReason, PermissionBehavior, RuleSource, TraceOutcome, TraceStep,
};
use gatehouse_protocol::session::PermissionAnswer;
use gatehouse_store::Store;
use serde_json::json;

use super::bridge::ask_window;
use super::hook::{
    HookEnv, HookInput, HookReply, append_all, decide, denied, ensure_session, tool_use_id,
};
use super::ledger::record_terminal_ask;

/// Answers a PermissionRequest from the window, or leaves it to Claude
/// Code's terminal prompt.
pub(super) fn handle(call: &HookInput, env: &HookEnv, reply: &mut HookReply) {
    let (Some(tool_name), Some(tool_input)) = (&call.tool_name, &call.tool_input) else {
        reply.problems.push(
            "PermissionRequest hook: the input has no tool_name or tool_input; Claude Code asks in its terminal"
                .into(),
        );
        return;
    };
    // Claude Code is about to prompt: its sandbox did not settle the call.
    let (project, report, mut store) = decide(call, env, tool_name, tool_input, reply, false);
    let ask = ask_of(call, &project, tool_name, tool_input, &report);
    match answer_in_window(
        call,
        env,
        &project,
        &ask,
        &mut store,
        reply,
        Via::PermissionRequest,
    ) {
        Ok((behavior, message)) => {
            let mut decision = json!({"behavior": if behavior == PermissionBehavior::Allow { "allow" } else { "deny" }});
            if let Some(message) = &message {
                decision["message"] = json!(message);
            }
            reply.stdout = Some(json!({
                "hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": decision}
            }));
        }
        Err(why) => {
            reply.problems.push(format!(
                "PermissionRequest: {why}; Claude Code asks in its terminal"
            ));
            // The ledger: the call now waits for the user in the terminal
            // (settled by its PostToolUse, or at SessionEnd).
            if let Some(store) = store.as_mut()
                && let Err(e) = record_terminal_ask(store, call, &project, &ask, &why)
            {
                reply.problems.push(format!("recording the ask: {e}"));
            }
        }
    }
}

/// Which of Claude Code's hooks brought the ask to the window.
#[derive(Debug, Clone, Copy)]
pub(super) enum Via {
    /// PreToolUse: Gatehouse's engine asks (Claude Code in print mode or
    /// the SDK never prompts after a hook's "ask", so the window is the
    /// only place to answer it).
    PreToolUse,
    /// PermissionRequest: Claude Code is about to prompt.
    PermissionRequest,
}

impl Via {
    fn trace_detail(self) -> &'static str {
        match self {
            Via::PreToolUse => "the user answered Claude Code's PreToolUse hook in Gatehouse",
            Via::PermissionRequest => {
                "the user answered Claude Code's PermissionRequest in Gatehouse"
            }
        }
    }
}

/// The ask the window shows for a call Gatehouse decided `report` on.
pub(super) fn ask_of(
    call: &HookInput,
    project: &std::path::Path,
    tool_name: &str,
    tool_input: &serde_json::Value,
    report: &gatehouse_permissions::CheckReport,
) -> ClaudeCodeAsk {
    let cwd = call
        .cwd
        .as_ref()
        .map_or_else(|| project.to_path_buf(), std::path::PathBuf::from);
    ClaudeCodeAsk {
        session_id: call.session_id.clone().unwrap_or_default(),
        tool_use_id: tool_use_id(call),
        tool_name: tool_name.to_owned(),
        input: tool_input.clone(),
        project: project.display().to_string(),
        reason: report.reason.clone(),
        trace: report.trace.clone(),
        suggestions: suggest_rules(tool_name, tool_input, &cwd),
        preview: crate::preview::preview(tool_name, tool_input),
    }
}

/// Asks the running window and waits for the user (at most the hook's
/// ask timeout); grants what the answer grants and records it in the
/// ledger. Returns allow/deny and the message for Claude Code, or why
/// there is no answer (no window, a stale socket, a timeout), with
/// nothing recorded.
pub(super) fn answer_in_window(
    call: &HookInput,
    env: &HookEnv,
    project: &std::path::Path,
    ask: &ClaudeCodeAsk,
    store: &mut Option<Store>,
    reply: &mut HookReply,
    via: Via,
) -> Result<(PermissionBehavior, Option<String>), String> {
    let answer = ask_window(&env.data_dir, ask, env.ask_timeout)?;
    // "For this session" stores rules on the session: it must exist first
    // (the ask can come before any recorded call).
    if let Some(store) = store.as_mut()
        && let Err(e) = ensure_session(store, call, project)
    {
        reply.problems.push(format!("recording the session: {e}"));
    }
    let (behavior, message, errors) = apply(&answer, ask, env, store.as_ref(), project);
    reply.problems.extend(errors);
    let answered = Answered {
        answer,
        behavior,
        message,
    };
    if let Some(store) = store.as_mut()
        && let Err(e) = record(store, call, project, ask, &answered, via)
    {
        reply.problems.push(format!("recording the answer: {e}"));
    }
    Ok((answered.behavior, answered.message))
}

/// The user's answer and what it means for Claude Code.
struct Answered {
    answer: PermissionAnswer,
    behavior: PermissionBehavior,
    message: Option<String>,
}

/// What the answer means for Claude Code, after granting what it grants.
fn apply(
    answer: &PermissionAnswer,
    ask: &ClaudeCodeAsk,
    env: &HookEnv,
    store: Option<&Store>,
    project: &std::path::Path,
) -> (PermissionBehavior, Option<String>, Vec<String>) {
    let mut errors = Vec::new();
    match answer {
        PermissionAnswer::AllowOnce => {}
        PermissionAnswer::AllowForSession => match store {
            Some(store) => {
                for rule in &ask.suggestions {
                    if let Err(e) = store.add_session_rule(&ask.session_id, "allow", rule) {
                        errors.push(format!("session rule {rule:?} was not added: {e}"));
                    }
                }
            }
            None => errors.push("no store: \"for this session\" allowed this call only".into()),
        },
        PermissionAnswer::AlwaysAllow { rules, destination } => {
            match destination.settings_file(project, &env.home) {
                Some(file) if !matches!(destination, RuleSource::Session) => {
                    for rule in rules {
                        if let Err(e) = add_rule(&file, RuleKind::Allow, rule) {
                            errors.push(format!(
                                "rule {rule:?} was not written to {}: {e}",
                                file.display()
                            ));
                        }
                    }
                    // A rule saved into the project's own files is the
                    // user trusting it, as in a Gatehouse session.
                    if matches!(destination, RuleSource::Local | RuleSource::Project)
                        && let Some(store) = store
                        && let Err(e) = store
                            .add_project(project)
                            .and_then(|p| store.set_project_trust(p.id, true))
                    {
                        errors.push(format!("the project was not recorded as trusted: {e}"));
                    }
                }
                _ => errors.push(format!(
                    "rules cannot be written to the {destination:?} source; this call only is allowed"
                )),
            }
        }
        PermissionAnswer::Deny { feedback } => {
            let message = feedback
                .clone()
                .filter(|f| !f.trim().is_empty())
                .unwrap_or_else(|| "The user denied this in Gatehouse.".into());
            return (PermissionBehavior::Deny, Some(message), errors);
        }
    }
    (PermissionBehavior::Allow, None, errors)
}

/// How an answer reads in the ledger.
fn answer_text(answer: &PermissionAnswer) -> String {
    match answer {
        PermissionAnswer::AllowOnce => "allow once (in Gatehouse)".into(),
        PermissionAnswer::AllowForSession => "allow for this session (in Gatehouse)".into(),
        PermissionAnswer::AlwaysAllow { destination, .. } => {
            format!("always allow, saved to {destination:?} settings (in Gatehouse)")
        }
        PermissionAnswer::Deny { feedback } => match feedback {
            Some(f) => format!("deny (in Gatehouse): {f}"),
            None => "deny (in Gatehouse)".into(),
        },
    }
}

fn record(
    store: &mut Store,
    call: &HookInput,
    project: &std::path::Path,
    ask: &ClaudeCodeAsk,
    answered: &Answered,
    via: Via,
) -> Result<(), String> {
    let Answered {
        answer,
        behavior,
        message,
    } = answered;
    let behavior = *behavior;
    let session = ensure_session(store, call, project)?;
    let id = ask.tool_use_id.clone();
    let outcome = if behavior == PermissionBehavior::Allow {
        TraceOutcome::Allow
    } else {
        TraceOutcome::Deny
    };
    let mut bodies = vec![
        // Unless queued already: the call is still recorded whole.
        EventBody::ToolQueued {
            tool_use_id: id.clone(),
            name: ask.tool_name.clone(),
            input: ask.input.clone(),
            read_only: false,
        },
        EventBody::PermissionAnswered {
            tool_use_id: id.clone(),
            answer: answer.clone(),
        },
        EventBody::PermissionDecided {
            tool_use_id: id.clone(),
            decision: behavior,
            reason: DecisionReason::UserAnswer {
                answer: answer_text(answer),
            },
            // Why Gatehouse asked, then who answered.
            trace: ask
                .trace
                .iter()
                .cloned()
                .chain([TraceStep::new(
                    super::ledger::LAYER_HOOK,
                    outcome,
                    via.trace_detail(),
                )])
                .collect(),
        },
    ];
    if behavior == PermissionBehavior::Deny {
        bodies.push(denied(id, message.clone().unwrap_or_default()));
    }
    append_all(store, &session, bodies)?;
    Ok(())
}
