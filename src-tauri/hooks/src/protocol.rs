//! What a hook is sent (Claude Code's stdin JSON) and how its answer is
//! read (exit code, then stdout: JSON when it starts with `{`, else text).
//!
//! Exit 0: JSON fields `decision`/`reason` (legacy: `block` is a deny,
//! `approve` an allow), `continue`/`stopReason`, `suppressOutput`,
//! `systemMessage`, `hookSpecificOutput` with `permissionDecision`
//! (allow|deny|ask), `permissionDecisionReason`, `updatedInput`,
//! `additionalContext`, and for PermissionRequest `decision.behavior`.
//! Exit 2: a block, its stderr the message. Any other exit, a signal, a
//! timeout, a start failure or JSON of the wrong shape: a non-blocking
//! error, shown and stored, never deciding anything.

use gatehouse_core::hooks::HookDecision;
use gatehouse_protocol::event::HookEventName;
use gatehouse_protocol::permission::PermissionMode;
use serde_json::{Map, Value, json};

use crate::runner::RawRun;

/// Claude Code's name of a permission mode.
pub fn mode_name(mode: PermissionMode) -> String {
    serde_json::to_value(mode)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_else(|| "default".into())
}

/// The keys every event's stdin has.
pub fn base_input(
    event: HookEventName,
    session_id: &str,
    transcript_path: &str,
    cwd: &std::path::Path,
    mode: PermissionMode,
) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("session_id".into(), json!(session_id));
    m.insert("transcript_path".into(), json!(transcript_path));
    m.insert("cwd".into(), json!(cwd.display().to_string()));
    m.insert("permission_mode".into(), json!(mode_name(mode)));
    m.insert("hook_event_name".into(), json!(format!("{event:?}")));
    m
}

/// The `tool_response` Claude Code sends for a tool's output: for Bash
/// `{stdout, stderr, interrupted, isImage, noOutputExpected}` (Gatehouse's
/// Bash interleaves the two streams, so `stderr` is empty and `stdout`
/// has both); for other tools the output's JSON as it is.
pub fn tool_response(tool_name: &str, output: &Value) -> Value {
    if tool_name == "Bash"
        && let Some(text) = output.get("output").and_then(Value::as_str)
    {
        let interrupted = output.get("outcome").and_then(Value::as_str) == Some("interrupted");
        return json!({
            "stdout": text,
            "stderr": "",
            "interrupted": interrupted,
            "isImage": false,
            "noOutputExpected": false,
        });
    }
    output.clone()
}

/// A hook's answer, read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HookResponse {
    /// allow / ask / deny (`permissionDecision`, a legacy `decision`, or a
    /// PermissionRequest's `decision.behavior`).
    pub decision: Option<HookDecision>,
    /// Its reason.
    pub reason: Option<String>,
    /// Exit 2's stderr, or a JSON `decision: "block"`'s reason.
    pub block: Option<String>,
    /// `updatedInput`.
    pub updated_input: Option<Value>,
    /// `additionalContext` (or exit 0's plain text where the event takes
    /// text as context: UserPromptSubmit, SessionStart).
    pub additional_context: Option<String>,
    /// `continue: false`: stop, with `stopReason`.
    pub stop: Option<String>,
    /// `systemMessage`: shown to the user.
    pub system_message: Option<String>,
    /// `suppressOutput`.
    pub suppress_output: bool,
    /// Plain text on stdout (exit 0), shown only in the UI.
    pub text: Option<String>,
    /// A non-blocking error: what went wrong, naming what the hook printed.
    pub error: Option<String>,
}

fn first_line(s: &str) -> &str {
    let line = s.trim().lines().next().unwrap_or("");
    match line.char_indices().nth(300) {
        Some((i, _)) => &line[..i],
        None => line,
    }
}

/// Reads a finished run of a hook of `event` called `what` (for messages).
pub fn interpret(
    event: HookEventName,
    what: &str,
    run: &RawRun,
    timeout_secs: f64,
) -> HookResponse {
    if let Some(e) = &run.spawn_error {
        return HookResponse {
            error: Some(format!("hook {what}: {e}")),
            ..HookResponse::default()
        };
    }
    if run.timed_out {
        return HookResponse {
            error: Some(format!(
                "hook {what} did not answer within {timeout_secs} s: its processes were stopped and the call went on as if there were no hook"
            )),
            ..HookResponse::default()
        };
    }
    if let Some(status) = run.http_status
        && !(200..300).contains(&status)
    {
        return HookResponse {
            error: Some(format!(
                "hook {what} answered HTTP {status}{}",
                match first_line(&run.stderr) {
                    "" => String::new(),
                    l => format!(": {l}"),
                }
            )),
            ..HookResponse::default()
        };
    }
    match run.exit_code {
        Some(0) => parse_stdout(event, what, &run.stdout),
        Some(2) => {
            let stderr = run.stderr.trim();
            let message = if stderr.is_empty() {
                format!("[{what}]: blocked (exit 2, nothing on stderr)")
            } else {
                format!("[{what}]: {stderr}")
            };
            HookResponse {
                block: Some(message),
                ..HookResponse::default()
            }
        }
        Some(code) => HookResponse {
            error: Some(format!(
                "hook {what} failed with exit code {code}{}",
                match first_line(&run.stderr) {
                    "" => String::new(),
                    l => format!(": {l}"),
                }
            )),
            ..HookResponse::default()
        },
        None => HookResponse {
            error: Some(format!(
                "hook {what} was ended by signal {}",
                run.signal.map_or_else(|| "?".into(), |s| s.to_string())
            )),
            ..HookResponse::default()
        },
    }
}

fn decision_word(s: &str) -> Option<HookDecision> {
    match s {
        "allow" | "approve" => Some(HookDecision::Allow),
        "ask" => Some(HookDecision::Ask),
        "deny" | "block" => Some(HookDecision::Deny),
        _ => None,
    }
}

/// Reads exit 0's stdout.
pub fn parse_stdout(event: HookEventName, what: &str, stdout: &str) -> HookResponse {
    let trimmed = stdout.trim();
    if !trimmed.starts_with('{') {
        if trimmed.is_empty() {
            return HookResponse::default();
        }
        let as_context = matches!(
            event,
            HookEventName::UserPromptSubmit | HookEventName::SessionStart
        );
        return HookResponse {
            additional_context: as_context.then(|| trimmed.to_owned()),
            text: Some(trimmed.to_owned()),
            ..HookResponse::default()
        };
    }
    let value: Value = match serde_json::from_str(trimmed) {
        Ok(v) => v,
        Err(e) => {
            return HookResponse {
                error: Some(format!(
                    "hook {what} printed JSON that does not parse ({e}): {}",
                    first_line(trimmed)
                )),
                ..HookResponse::default()
            };
        }
    };
    match read_json(event, &value) {
        Ok(r) => r,
        Err(e) => HookResponse {
            error: Some(format!("hook {what} printed JSON of the wrong shape: {e}")),
            ..HookResponse::default()
        },
    }
}

fn opt_str(obj: &Map<String, Value>, key: &str) -> Result<Option<String>, String> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(format!("`{key}` must be a string, not {other}")),
    }
}

fn read_json(event: HookEventName, value: &Value) -> Result<HookResponse, String> {
    let Value::Object(obj) = value else {
        return Err("the output must be a JSON object".into());
    };
    let mut r = HookResponse::default();
    let reason = opt_str(obj, "reason")?;
    match opt_str(obj, "decision") {
        Ok(Some(d)) => match d.as_str() {
            "block" => {
                r.block = Some(reason.clone().unwrap_or_else(|| "blocked by a hook".into()));
            }
            "approve" if event == HookEventName::PreToolUse => {
                r.decision = Some(HookDecision::Allow);
                r.reason.clone_from(&reason);
            }
            "approve" | "undefined" => {}
            other => {
                return Err(format!(
                    "`decision` must be \"block\" or \"approve\", not {other:?}"
                ));
            }
        },
        Ok(None) => {}
        Err(_) if event == HookEventName::PermissionRequest => {}
        Err(e) => return Err(e),
    }
    match obj.get("continue") {
        None | Some(Value::Null) | Some(Value::Bool(true)) => {}
        Some(Value::Bool(false)) => {
            r.stop = Some(
                opt_str(obj, "stopReason")?.unwrap_or_else(|| "a hook stopped the session".into()),
            );
        }
        Some(other) => return Err(format!("`continue` must be a boolean, not {other}")),
    }
    r.system_message = opt_str(obj, "systemMessage")?;
    r.suppress_output = obj.get("suppressOutput").and_then(Value::as_bool) == Some(true);
    let Some(specific) = obj.get("hookSpecificOutput") else {
        return Ok(r);
    };
    let Value::Object(specific) = specific else {
        return Err("`hookSpecificOutput` must be an object".into());
    };
    if let Some(d) = opt_str(specific, "permissionDecision")? {
        r.decision = Some(decision_word(&d).ok_or_else(|| {
            format!("`hookSpecificOutput.permissionDecision` must be allow, deny or ask, not {d:?}")
        })?);
        r.reason = opt_str(specific, "permissionDecisionReason")?;
    }
    // PermissionRequest: {"decision": {"behavior": "allow"|"deny", "message", "updatedInput"}}.
    if let Some(Value::Object(d)) = specific.get("decision") {
        if let Some(b) = opt_str(d, "behavior")? {
            r.decision = Some(match b.as_str() {
                "allow" => HookDecision::Allow,
                "deny" => HookDecision::Deny,
                other => {
                    return Err(format!(
                        "`hookSpecificOutput.decision.behavior` must be allow or deny, not {other:?}"
                    ));
                }
            });
        }
        r.reason = opt_str(d, "message")?.or(r.reason);
        if let Some(u) = d.get("updatedInput") {
            r.updated_input = Some(u.clone());
        }
    }
    match specific.get("updatedInput") {
        None | Some(Value::Null) => {}
        Some(u) => r.updated_input = Some(u.clone()),
    }
    r.additional_context = opt_str(specific, "additionalContext")?;
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exit0(event: HookEventName, out: &str) -> HookResponse {
        interpret(
            event,
            "h",
            &RawRun {
                exit_code: Some(0),
                stdout: out.into(),
                ..RawRun::default()
            },
            60.0,
        )
    }

    #[test]
    fn json_and_text_and_exit_codes() {
        let r = exit0(
            HookEventName::PreToolUse,
            r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no"}}"#,
        );
        assert_eq!(r.decision, Some(HookDecision::Deny));
        assert_eq!(r.reason.as_deref(), Some("no"));
        let r = exit0(
            HookEventName::PreToolUse,
            r#"{"decision": "block", "reason": "legacy"}"#,
        );
        assert_eq!(r.block.as_deref(), Some("legacy"));
        let r = exit0(HookEventName::UserPromptSubmit, "some context\n");
        assert_eq!(r.additional_context.as_deref(), Some("some context"));
        let r = exit0(HookEventName::PreToolUse, "just text");
        assert_eq!(r.additional_context, None);
        assert_eq!(r.text.as_deref(), Some("just text"));
        let r = exit0(HookEventName::PreToolUse, "{not json");
        assert!(r.error.unwrap().contains("does not parse"));
        let r = exit0(
            HookEventName::PreToolUse,
            r#"{"hookSpecificOutput": {"permissionDecision": "maybe"}}"#,
        );
        assert!(r.error.unwrap().contains("allow, deny or ask"),);
        let r = exit0(
            HookEventName::Stop,
            r#"{"continue": false, "stopReason": "enough"}"#,
        );
        assert_eq!(r.stop.as_deref(), Some("enough"));
        let r = interpret(
            HookEventName::PreToolUse,
            "./g.sh",
            &RawRun {
                exit_code: Some(2),
                stderr: "nope\n".into(),
                ..RawRun::default()
            },
            60.0,
        );
        assert_eq!(r.block.as_deref(), Some("[./g.sh]: nope"));
        let r = interpret(
            HookEventName::PreToolUse,
            "h",
            &RawRun {
                exit_code: Some(1),
                stderr: "oops".into(),
                ..RawRun::default()
            },
            60.0,
        );
        assert_eq!(
            r.error.as_deref(),
            Some("hook h failed with exit code 1: oops")
        );
        assert_eq!(r.decision, None);
    }

    #[test]
    fn permission_request_decision_shape() {
        let r = exit0(
            HookEventName::PermissionRequest,
            r#"{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "not here"}}}"#,
        );
        assert_eq!(r.decision, Some(HookDecision::Deny));
        assert_eq!(r.reason.as_deref(), Some("not here"));
    }

    #[test]
    fn bash_tool_response_shape() {
        let v = tool_response("Bash", &json!({"output": "hi\n", "outcome": "exited"}));
        assert_eq!(
            v,
            json!({"stdout": "hi\n", "stderr": "", "interrupted": false, "isImage": false, "noOutputExpected": false})
        );
    }
}
