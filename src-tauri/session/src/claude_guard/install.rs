//! "Guard Claude Code": Gatehouse's hook entries written into, found in and
//! removed from one Claude Code settings file with the settings write-back
//! (`gatehouse_permissions::writeback`: entries inserted and removed as
//! text, so every other byte stays, including the user's own hooks; the
//! result verified before an atomic write).
//!
//! An entry is Gatehouse's when it is a command handler whose program is
//! `gatehouse-cli` (any folder) and whose arguments are `claude-code hook
//! <event>`: that is what `--off` removes, and nothing else.

use std::path::{Path, PathBuf};

use gatehouse_core::bounded_read::{ReadTextError, read_text};
use gatehouse_permissions::editor::{FileWrite, MAX_EDITABLE_BYTES, write_files};
use gatehouse_permissions::settings::locate::{scan, scan_depth};
use gatehouse_permissions::writeback::{
    append_element, indent_at, insert_member, remove_element, remove_member,
};
use serde_json::{Value, json};

use super::GuardError;

pub use gatehouse_hooks::guard_entry::{CLI_NAME, GUARD_EVENTS, guard_event_of};
pub use gatehouse_protocol::claude_code::{GuardChange, GuardScope, InstalledEntries};

/// Seconds Claude Code gives each entry before going on without it.
/// PreToolUse and PermissionRequest may wait for the user in the window,
/// so they get longer (the hook itself gives up earlier and lets Claude
/// Code ask as usual).
fn timeout_secs(event: &str) -> u64 {
    if matches!(event, "PreToolUse" | "PermissionRequest") {
        600
    } else {
        30
    }
}

/// The settings file of `scope`.
pub fn settings_file(scope: &GuardScope, home: &Path, project: &Path) -> PathBuf {
    match scope {
        GuardScope::User => home.join(".claude").join("settings.json"),
        GuardScope::Project => project.join(".claude").join("settings.local.json"),
    }
}

/// The command line of an entry for `event`, running `cli`.
pub fn hook_command(cli: &Path, event: &str) -> String {
    format!(
        "{} claude-code hook {event}",
        shell_quote(&cli.display().to_string())
    )
}

/// Quotes `word` for `sh -c` when it has anything but plain path characters.
fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '_' | '-' | '+' | ','));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// `(event, group, index, command)` of every Gatehouse entry in `hooks`.
fn our_entries(hooks: &Value) -> Vec<(String, usize, usize, String)> {
    let mut out = Vec::new();
    let Some(events) = hooks.as_object() else {
        return out;
    };
    for (event, groups) in events {
        for (g, group) in groups.as_array().into_iter().flatten().enumerate() {
            let handlers = group.get("hooks").and_then(Value::as_array);
            for (i, handler) in handlers.into_iter().flatten().enumerate() {
                let command = handler.get("command").and_then(Value::as_str);
                let is_command = handler.get("type").and_then(Value::as_str) == Some("command");
                if let Some(command) = command.filter(|_| is_command)
                    && guard_event_of(command) == Some(event.as_str())
                {
                    out.push((event.clone(), g, i, command.to_owned()));
                }
            }
        }
    }
    out
}

/// Reads a settings file: `None` when it does not exist (or is blank);
/// refused when too large or not a JSON object, naming the file and the
/// line:column of the problem.
fn read_settings(path: &Path) -> Result<Option<(String, Value)>, GuardError> {
    let io = |source| GuardError::Io {
        path: path.to_path_buf(),
        source,
    };
    let text = match read_text(path, MAX_EDITABLE_BYTES) {
        Ok(None) => return Ok(None),
        Ok(Some(text)) => text,
        Err(ReadTextError::Io(e)) => return Err(io(e)),
        Err(ReadTextError::TooLarge { .. }) => {
            return Err(GuardError::Malformed {
                file: path.to_path_buf(),
                line: 1,
                column: 1,
                cause: format!("larger than {MAX_EDITABLE_BYTES} bytes; not a settings file"),
            });
        }
        Err(e) => {
            return Err(GuardError::Malformed {
                file: path.to_path_buf(),
                line: 1,
                column: 1,
                cause: format!("the file {e}; not a settings file"),
            });
        }
    };
    if text.trim().is_empty() {
        return Ok(None);
    }
    let value: Value = serde_json::from_str(&text).map_err(|e| GuardError::Malformed {
        file: path.to_path_buf(),
        line: e.line(),
        column: e.column(),
        cause: format!("not valid JSON: {e}"),
    })?;
    if !value.is_object() {
        return Err(GuardError::Malformed {
            file: path.to_path_buf(),
            line: 1,
            column: 1,
            cause: "settings must be a JSON object".into(),
        });
    }
    if let Some(hooks) = value.get("hooks")
        && !hooks.is_object()
    {
        let position = scan(&text).position(&["hooks"]);
        return Err(GuardError::Malformed {
            file: path.to_path_buf(),
            line: position.map_or(1, |p| p.line),
            column: position.map_or(1, |p| p.column),
            cause: "`hooks` is not an object; fix it by hand first".into(),
        });
    }
    Ok(Some((text, value)))
}

/// Whose file `path` is: the user's (`home`'s) or a project's local file
/// (`<project>/.claude/settings.local.json`, the project returned).
pub fn scope_of(path: &Path, home: &Path) -> (GuardScope, Option<PathBuf>) {
    let same = |a: &Path, b: &Path| {
        a == b
            || matches!((std::fs::canonicalize(a), std::fs::canonicalize(b)), (Ok(x), Ok(y)) if x == y)
    };
    if same(path, &settings_file(&GuardScope::User, home, Path::new(""))) {
        return (GuardScope::User, None);
    }
    let project = path
        .parent()
        .filter(|dir| dir.file_name().is_some_and(|n| n == ".claude"))
        .and_then(Path::parent)
        .map(Path::to_path_buf);
    (GuardScope::Project, project)
}

/// Gatehouse's entries in the settings file at `path` (none when the file
/// does not exist), with whose file it is (`home` tells the user's); a
/// malformed file is an error naming its position.
pub fn installed_in(path: &Path, home: &Path) -> Result<InstalledEntries, GuardError> {
    let entries = match read_settings(path)? {
        Some((_, value)) => our_entries(value.get("hooks").unwrap_or(&Value::Null)),
        None => Vec::new(),
    };
    let events = GUARD_EVENTS
        .iter()
        .filter(|e| entries.iter().any(|(ev, ..)| ev == *e))
        .map(|e| (*e).to_owned())
        .collect();
    let (scope, project) = scope_of(path, home);
    Ok(InstalledEntries {
        file: path.display().to_string(),
        events,
        commands: entries.into_iter().map(|(.., c)| c).collect(),
        scope,
        project: project.map(|p| p.display().to_string()),
    })
}

fn edit_error(path: &Path) -> impl Fn(String) -> GuardError + '_ {
    move |message| GuardError::Edit {
        file: path.to_path_buf(),
        message,
    }
}

/// `hooks` without Gatehouse's entries, and without the groups, events and
/// `hooks` itself that only they filled: what must stay equal across a
/// guard or an unguard.
fn strip_ours(settings: &Value) -> Value {
    let mut settings = settings.clone();
    let Some(root) = settings.as_object_mut() else {
        return settings;
    };
    let Some(Value::Object(events)) = root.get_mut("hooks") else {
        return settings;
    };
    for (event, groups) in events.iter_mut() {
        if let Some(groups) = groups.as_array_mut() {
            groups.retain_mut(|group| {
                let Some(handlers) = group.get_mut("hooks").and_then(Value::as_array_mut) else {
                    return true;
                };
                let before = handlers.len();
                handlers.retain(|h| {
                    h.get("command")
                        .and_then(Value::as_str)
                        .and_then(guard_event_of)
                        != Some(event.as_str())
                });
                !(handlers.is_empty() && before > 0)
            });
        }
    }
    events.retain(|_, groups| groups.as_array().is_none_or(|g| !g.is_empty()));
    if events.is_empty() {
        root.remove("hooks");
    }
    settings
}

fn parse(path: &Path, text: &str) -> Result<Value, GuardError> {
    serde_json::from_str(text)
        .map_err(|e| edit_error(path)(format!("the edit did not produce valid JSON ({e})")))
}

/// The text with Gatehouse's entries removed as text (every other byte
/// kept): a handler, its group when it held only Gatehouse's, the event
/// and `hooks` when they are left empty.
fn without_ours(path: &Path, text: &str) -> Result<String, GuardError> {
    let mut text = text.to_owned();
    // Each round removes one entry; a file holds a handful.
    for _ in 0..1000 {
        let value = parse(path, &text)?;
        let hooks = value.get("hooks").cloned().unwrap_or(Value::Null);
        let Some((event, group, index, _)) = our_entries(&hooks).into_iter().next() else {
            return Ok(text);
        };
        let spans = scan_depth(&text, 6);
        let (g, i) = (group.to_string(), index.to_string());
        let handlers = hooks[&event][group]["hooks"].as_array().map_or(0, Vec::len);
        let events = hooks.as_object().map_or(0, |m| m.len());
        let groups = hooks[&event].as_array().map_or(0, Vec::len);
        let (target, member): (Vec<&str>, bool) = if handlers > 1 {
            (vec!["hooks", &event, &g, "hooks", &i], false)
        } else if groups > 1 {
            (vec!["hooks", &event, &g], false)
        } else if events > 1 {
            (vec!["hooks", &event], true)
        } else {
            (vec!["hooks"], true)
        };
        let span = spans
            .get(&target)
            .ok_or_else(|| edit_error(path)(format!("cannot find `{}`", target.join("."))))?;
        let next = if member {
            remove_member(&text, span.start, span.end)
        } else {
            remove_element(&text, span.start, span.end)
        };
        text = next.ok_or_else(|| {
            edit_error(path)(format!(
                "cannot remove `{}` from the text",
                target.join(".")
            ))
        })?;
    }
    Err(edit_error(path)(
        "too many Gatehouse entries to remove".into(),
    ))
}

/// One group of ours, on one line: `{"matcher": "*", "hooks": [{…}]}`.
fn group_literal(cli: &Path, event: &str) -> String {
    let command = serde_json::Value::String(hook_command(cli, event)).to_string();
    format!(
        r#"{{"matcher": "*", "hooks": [{{"type": "command", "command": {command}, "timeout": {}}}]}}"#,
        timeout_secs(event)
    )
}

/// The text with a group of ours added to `event` (after the groups
/// already there), as text.
fn with_group(path: &Path, text: &str, cli: &Path, event: &str) -> Result<String, GuardError> {
    let spans = scan_depth(text, 2);
    let group = group_literal(cli, event);
    let added = if spans.get(&["hooks", event]).is_some() {
        append_element(text, &["hooks", event], &group)
    } else if let Some(hooks) = spans.get(&["hooks"]) {
        insert_member(
            text,
            hooks.start,
            hooks.end,
            &format!("\"{event}\": [{group}]"),
        )
    } else {
        let root = spans
            .get(&[])
            .ok_or_else(|| edit_error(path)("cannot find the settings object".into()))?;
        // Members on their own lines are indented like the first one.
        let inner = &text[root.start + 1..];
        let indent = match inner.find(|c: char| !c.is_whitespace()) {
            Some(i) if inner[..i].contains('\n') => indent_at(text, root.start + 1 + i).to_owned(),
            _ => "  ".to_owned(),
        };
        insert_member(
            text,
            root.start,
            root.end,
            &format!("\"hooks\": {{\n{indent}{indent}\"{event}\": [{group}]\n{indent}}}"),
        )
    };
    added.ok_or_else(|| edit_error(path)(format!("cannot add the {event} entry to the text")))
}

/// Installs Gatehouse's entries (one per [`GUARD_EVENTS`] event, running
/// `cli`) in the settings file at `path`, creating it when needed. Older
/// Gatehouse entries (another `gatehouse-cli` path) are replaced; every
/// other key, hook and the layout are kept. A malformed file is refused
/// untouched.
pub fn guard_file(path: &Path, cli: &Path) -> Result<GuardChange, GuardError> {
    let current = read_settings(path)?;
    let wanted: Vec<String> = GUARD_EVENTS.iter().map(|e| hook_command(cli, e)).collect();
    if let Some((_, value)) = &current {
        let found = our_entries(value.get("hooks").unwrap_or(&Value::Null));
        let hooks = value.get("hooks").unwrap_or(&Value::Null);
        // An older install with other timeouts is rewritten.
        let timeout_of = |event: &str, g: usize, i: usize| {
            hooks
                .pointer(&format!("/{event}/{g}/hooks/{i}/timeout"))
                .and_then(Value::as_u64)
        };
        let exact = found.len() == GUARD_EVENTS.len()
            && GUARD_EVENTS.iter().zip(&wanted).all(|(event, command)| {
                found.iter().any(|(e, g, i, c)| {
                    e == event && c == command && timeout_of(e, *g, *i) == Some(timeout_secs(e))
                })
            });
        if exact {
            return Ok(GuardChange::Unchanged);
        }
    }
    let before_value = current
        .as_ref()
        .map_or_else(|| json!({}), |(_, v)| v.clone());
    let text = match &current {
        Some((text, _)) => {
            let mut text = without_ours(path, text)?;
            for event in GUARD_EVENTS {
                text = with_group(path, &text, cli, event)?;
            }
            text
        }
        None => {
            let events: Vec<String> = GUARD_EVENTS
                .iter()
                .map(|e| format!("    \"{e}\": [{}]", group_literal(cli, e)))
                .collect();
            format!("{{\n  \"hooks\": {{\n{}\n  }}\n}}\n", events.join(",\n"))
        }
    };
    // Verify before writing: everything but Gatehouse's entries is as it
    // was, and they are exactly the wanted ones.
    let after_value = parse(path, &text)?;
    let found = our_entries(after_value.get("hooks").unwrap_or(&Value::Null));
    let exact = found.len() == GUARD_EVENTS.len()
        && GUARD_EVENTS
            .iter()
            .zip(&wanted)
            .all(|(event, command)| found.iter().any(|(e, .., c)| e == event && c == command));
    if !exact || strip_ours(&after_value) != strip_ours(&before_value) {
        return Err(edit_error(path)(
            "the edit could not be verified; nothing was written".into(),
        ));
    }
    let after = text;
    write_files(&[FileWrite {
        path: path.to_path_buf(),
        before: current.map(|(t, _)| t),
        after,
    }])
    .map_err(|e| GuardError::Write(e.to_string()))?;
    Ok(GuardChange::Changed)
}

/// Removes exactly Gatehouse's entries from the settings file at `path`
/// (and `hooks` when they were all it held); unchanged when there are
/// none or the file does not exist. A malformed file is refused untouched.
pub fn unguard_file(path: &Path) -> Result<GuardChange, GuardError> {
    let Some((text, value)) = read_settings(path)? else {
        return Ok(GuardChange::Unchanged);
    };
    let after = without_ours(path, &text)?;
    if after == text {
        return Ok(GuardChange::Unchanged);
    }
    let after_value = parse(path, &after)?;
    if !our_entries(after_value.get("hooks").unwrap_or(&Value::Null)).is_empty()
        || strip_ours(&after_value) != strip_ours(&value)
    {
        return Err(edit_error(path)(
            "the edit could not be verified; nothing was written".into(),
        ));
    }
    write_files(&[FileWrite {
        path: path.to_path_buf(),
        before: Some(text),
        after,
    }])
    .map_err(|e| GuardError::Write(e.to_string()))?;
    Ok(GuardChange::Changed)
}
