//! The file side of a hooks editor (the rule editor's Hooks view): edits
//! to one settings file's `hooks` in Claude Code's layout, every other key
//! and the file's layout kept, validated before anything is written, and a
//! test run of one handler with a sample input.
//!
//! An edit names a handler by event, group and index (as `hook_ran` and
//! [`HookSpec`](crate::config::HookSpec) do). The new `hooks` value is
//! spliced into the text where the old one was (or inserted as the first
//! key), then the result is read back: it must parse with no hook errors
//! and equal the old file in every other key.

use std::path::Path;
use std::time::Duration;

use gatehouse_permissions::settings::locate::scan;
use gatehouse_permissions::writeback::{indent_at, insert_member};
use gatehouse_protocol::event::HookEventName;
use gatehouse_protocol::permission::{PermissionMode, RuleSource};
use serde_json::{Map, Value, json};

use crate::config::{HookEvent, parse_hooks};
use crate::protocol::{HookResponse, base_input, interpret};
use crate::runner::{CommandSpec, run_command};

/// One change to a file's hooks.
#[derive(Debug, Clone, PartialEq)]
pub enum HookEdit {
    /// Adds `handler` to the group of `event` with this `matcher` (a new
    /// group when there is none).
    Add {
        /// The event name.
        event: String,
        /// The matcher (`None`: all).
        matcher: Option<String>,
        /// The handler object, as Claude Code writes it.
        handler: Value,
    },
    /// Replaces handler `index` of group `group` of `event`.
    Replace {
        /// The event name.
        event: String,
        /// The group.
        group: usize,
        /// The handler's index in the group.
        index: usize,
        /// The new handler object.
        handler: Value,
    },
    /// Removes a handler (and its group when it was the last).
    Remove {
        /// The event name.
        event: String,
        /// The group.
        group: usize,
        /// The handler's index in the group.
        index: usize,
    },
    /// Turns a handler off or on (`"disabled": true`, a Gatehouse key that
    /// Claude Code ignores; the handler stays in the file).
    SetEnabled {
        /// The event name.
        event: String,
        /// The group.
        group: usize,
        /// The handler's index in the group.
        index: usize,
        /// On or off.
        enabled: bool,
    },
}

fn handler_mut<'a>(
    hooks: &'a mut Map<String, Value>,
    event: &str,
    group: usize,
    index: usize,
) -> Result<&'a mut Value, String> {
    hooks
        .get_mut(event)
        .and_then(Value::as_array_mut)
        .and_then(|g| g.get_mut(group))
        .and_then(|g| g.get_mut("hooks"))
        .and_then(Value::as_array_mut)
        .and_then(|h| h.get_mut(index))
        .ok_or_else(|| {
            format!("there is no hook `hooks.{event}[{group}].hooks[{index}]` in the file")
        })
}

/// `hooks` with `edit` applied.
pub fn apply_edit(hooks: &Value, edit: &HookEdit) -> Result<Value, String> {
    let mut hooks = match hooks {
        Value::Null => Map::new(),
        Value::Object(m) => m.clone(),
        _ => return Err("`hooks` is not an object; fix it by hand first".into()),
    };
    match edit {
        HookEdit::Add {
            event,
            matcher,
            handler,
        } => {
            let groups = hooks
                .entry(event.clone())
                .or_insert_with(|| Value::Array(Vec::new()))
                .as_array_mut()
                .ok_or_else(|| format!("`hooks.{event}` is not a list; fix it by hand first"))?;
            let same = groups.iter_mut().find(|g| {
                g.get("matcher").and_then(Value::as_str) == matcher.as_deref()
                    && g.get("hooks").is_some_and(Value::is_array)
            });
            match same
                .and_then(|g| g.get_mut("hooks"))
                .and_then(Value::as_array_mut)
            {
                Some(list) => list.push(handler.clone()),
                None => {
                    let mut group = json!({"hooks": [handler]});
                    if let Some(m) = matcher {
                        group["matcher"] = Value::String(m.clone());
                    }
                    groups.push(group);
                }
            }
        }
        HookEdit::Replace {
            event,
            group,
            index,
            handler,
        } => *handler_mut(&mut hooks, event, *group, *index)? = handler.clone(),
        HookEdit::Remove {
            event,
            group,
            index,
        } => {
            handler_mut(&mut hooks, event, *group, *index)?;
            let groups = hooks
                .get_mut(event)
                .and_then(Value::as_array_mut)
                .ok_or_else(|| format!("`hooks.{event}` is not a list"))?;
            let empty = match groups[*group]
                .get_mut("hooks")
                .and_then(Value::as_array_mut)
            {
                Some(list) => {
                    list.remove(*index);
                    list.is_empty()
                }
                None => false,
            };
            if empty {
                groups.remove(*group);
            }
            if groups.is_empty() {
                hooks.remove(event);
            }
        }
        HookEdit::SetEnabled {
            event,
            group,
            index,
            enabled,
        } => {
            let h = handler_mut(&mut hooks, event, *group, *index)?;
            let obj = h
                .as_object_mut()
                .ok_or_else(|| "the hook is not an object".to_owned())?;
            if *enabled {
                obj.remove("disabled");
            } else {
                obj.insert("disabled".into(), Value::Bool(true));
            }
        }
    }
    Ok(Value::Object(hooks))
}

/// Pretty JSON of `v`, every line after the first indented by `indent`.
fn pretty_at(v: &Value, indent: &str) -> String {
    let text = serde_json::to_string_pretty(v).unwrap_or_else(|_| v.to_string());
    text.lines()
        .enumerate()
        .map(|(i, l)| {
            if i == 0 {
                l.to_owned()
            } else {
                format!("{indent}{l}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn without_hooks(v: &Value) -> Value {
    let mut v = v.clone();
    if let Some(o) = v.as_object_mut() {
        o.remove("hooks");
    }
    v
}

/// The text of the settings file at `path` (now `current`; `None`: it does
/// not exist) with `edit` applied to its `hooks`. Refused with a message
/// when the result would hold a malformed hook the file did not already
/// have, or when the file is not JSON; every other key is checked to be
/// unchanged.
pub fn edit_file_text(
    path: &Path,
    current: Option<&str>,
    edit: &HookEdit,
) -> Result<String, String> {
    let current = current.filter(|t| !t.trim().is_empty());
    let before: Value = match current {
        Some(t) => serde_json::from_str(t).map_err(|e| {
            format!(
                "{}: not valid JSON ({e}); fix it by hand first",
                path.display()
            )
        })?,
        None => json!({}),
    };
    if !before.is_object() {
        return Err(format!(
            "{}: settings must be a JSON object",
            path.display()
        ));
    }
    let hooks = apply_edit(before.get("hooks").unwrap_or(&Value::Null), edit)?;
    let text = match current {
        None => format!("{}\n", pretty_at(&json!({"hooks": hooks}), "")),
        Some(t) => {
            let spans = scan(t);
            match spans.get(&["hooks"]) {
                Some(span) => {
                    let indent = indent_at(t, span.start).to_owned();
                    format!(
                        "{}{}{}",
                        &t[..span.start],
                        pretty_at(&hooks, &indent),
                        &t[span.end..]
                    )
                }
                None => {
                    let root = spans.get(&[]).ok_or_else(|| {
                        format!("{}: cannot find the settings object", path.display())
                    })?;
                    let member = format!("\"hooks\": {}", pretty_at(&hooks, "  "));
                    insert_member(t, root.start, root.end, &member)
                        .ok_or_else(|| format!("{}: cannot insert `hooks`", path.display()))?
                }
            }
        }
    };
    let after: Value = serde_json::from_str(&text).map_err(|e| {
        format!(
            "{}: the edit did not produce valid JSON ({e})",
            path.display()
        )
    })?;
    if without_hooks(&after) != without_hooks(&before) || after.get("hooks") != Some(&hooks) {
        return Err(format!(
            "{}: the edit could not be verified; nothing was written",
            path.display()
        ));
    }
    // Entries that were already malformed (fixed by hand, never run) do
    // not block an edit of another hook; any new one refuses it.
    let known: Vec<String> = current
        .map(|t| {
            parse_hooks(path, RuleSource::Project, t)
                .errors
                .into_iter()
                .map(|e| e.cause)
                .collect()
        })
        .unwrap_or_default();
    let parsed = parse_hooks(path, RuleSource::Project, &text);
    if let Some(e) = parsed.errors.iter().find(|e| !known.contains(&e.cause)) {
        return Err(format!("the hook is not valid: {e}"));
    }
    Ok(text)
}

/// What a test run of a handler showed.
#[derive(Debug, Clone, PartialEq)]
pub struct HookTestRun {
    /// The JSON the hook got on stdin.
    pub stdin: Value,
    /// Its stdout and stderr (capped at 1 MiB each).
    pub stdout: String,
    /// Its stderr.
    pub stderr: String,
    /// Its exit code.
    pub exit_code: Option<i32>,
    /// The signal that ended it.
    pub signal: Option<i32>,
    /// It did not finish in time.
    pub timed_out: bool,
    /// Wall time.
    pub duration: Duration,
    /// How its answer reads (decision, block, context, error).
    pub response: HookResponse,
}

/// Runs the command `handler` (a handler object as in the file) for a
/// PreToolUse-style call of `tool_name` with `tool_input` in `project`, as
/// the hook would run in a session (HTTP handlers are tested in a session
/// or with `check --run-hooks`).
pub async fn test_command_hook(
    handler: &Value,
    event: HookEventName,
    tool_name: &str,
    tool_input: &Value,
    project: &Path,
) -> Result<HookTestRun, String> {
    let text = json!({"hooks": {format!("{event:?}"): [{"hooks": [handler]}]}}).to_string();
    let parsed = parse_hooks(Path::new("<test>"), RuleSource::Project, &text);
    if let Some(e) = parsed.errors.first() {
        return Err(format!("the hook is not valid: {}", e.cause));
    }
    let spec = parsed
        .hooks
        .into_iter()
        .find(|h| h.event == HookEvent::Known(event))
        .ok_or_else(|| "no hook to test".to_owned())?;
    let crate::config::Handler::Command { shell, exec } = &spec.handler else {
        return Err("only command hooks are tested here".into());
    };
    let mut stdin = base_input(event, "test", "", project, PermissionMode::Default);
    stdin.insert("tool_name".into(), json!(tool_name));
    stdin.insert("tool_input".into(), tool_input.clone());
    stdin.insert("tool_use_id".into(), json!("test"));
    let stdin = Value::Object(stdin);
    let raw = run_command(
        &CommandSpec {
            shell: shell.clone(),
            exec: exec.clone(),
            cwd: project.to_path_buf(),
            timeout: spec.timeout,
        },
        stdin.to_string().as_bytes(),
        project,
    )
    .await;
    let response = interpret(
        event,
        &spec.handler.display(),
        &raw,
        spec.timeout.as_secs_f64(),
    );
    Ok(HookTestRun {
        stdin,
        stdout: raw.stdout,
        stderr: raw.stderr,
        exit_code: raw.exit_code,
        signal: raw.signal,
        timed_out: raw.timed_out,
        duration: raw.duration,
        response,
    })
}
