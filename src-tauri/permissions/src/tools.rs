//! What the engine knows about built-in tools when it has only a name and
//! an input (the CLI's `check`, replays): the permission subject and the
//! read-only flag, as the tools themselves would declare them (SPEC §1, §7).

use std::path::PathBuf;

use gatehouse_core::permission::{PermissionSubject, ToolPermissionVerdict};
use serde_json::Value;

use crate::rule::{EDIT_TOOLS, READ_TOOLS};

/// A built-in tool's declarations for one input.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolFacts {
    /// What rules match on.
    pub subject: Option<PermissionSubject>,
    /// `is_read_only(input)`.
    pub is_read_only: bool,
    /// `requires_user_interaction()`.
    pub requires_user_interaction: bool,
}

fn string_field(input: &Value, keys: &[&str]) -> Option<String> {
    keys.iter()
        .find_map(|k| input.get(k).and_then(Value::as_str))
        .map(str::to_string)
}

/// The declarations of built-in tool `tool` for `input`. Unknown tools
/// (MCP tools included) get no subject and are not read-only: the fail-
/// closed defaults of the tool contract.
pub fn builtin_facts(tool: &str, input: &Value) -> ToolFacts {
    facts(tool, input, true)
}

/// [`builtin_facts`] without Bash's `is_read_only` (which costs a second
/// parse): what the engine needs to decide, since it analyses the command
/// itself.
pub(crate) fn builtin_subject_facts(tool: &str, input: &Value) -> ToolFacts {
    facts(tool, input, false)
}

/// The verdict a built-in tool's own `check_permissions` gives where it is
/// not `Passthrough`, for deciding without the tool objects (`check`):
/// starting a sub-agent (Agent; its calls are decided one by one),
/// entering a worktree, leaving one without discarding changes. Kept in step
/// with those tools (the CLI's `check` tests compare with a session).
pub fn builtin_verdict(tool: &str, input: &Value) -> ToolPermissionVerdict {
    match tool {
        "Agent" | "Task" => ToolPermissionVerdict::Allow {
            reason: "starting a sub-agent runs nothing by itself; each of its calls is decided on its own".into(),
        },
        "SendMessage" => ToolPermissionVerdict::Allow {
            reason: "a message to a background agent runs nothing by itself; each of its calls is decided on its own".into(),
        },
        "EnterWorktree" => ToolPermissionVerdict::Allow {
            reason: "a worktree is a new folder and branch; the project's files are not changed".into(),
        },
        "ExitWorktree"
            if !(input.get("action").and_then(Value::as_str) == Some("remove")
                && input.get("discard_changes").and_then(Value::as_bool) == Some(true)) =>
        {
            ToolPermissionVerdict::Allow {
                reason: "keeping, or removing a worktree without uncommitted changes, loses nothing".into(),
            }
        }
        _ => ToolPermissionVerdict::Passthrough,
    }
}

fn facts(tool: &str, input: &Value, bash_read_only: bool) -> ToolFacts {
    let path = |keys: &[&str]| string_field(input, keys).map(PathBuf::from);
    match tool {
        "Bash" => {
            let command = string_field(input, &["command"]).unwrap_or_default();
            ToolFacts {
                is_read_only: bash_read_only && crate::shell::is_read_only(&command),
                subject: Some(PermissionSubject::Command(command)),
                requires_user_interaction: false,
            }
        }
        t if READ_TOOLS.contains(&t) => ToolFacts {
            subject: Some(PermissionSubject::ReadPath(glob_root(
                path(&["file_path", "path", "notebook_path"]).unwrap_or_else(|| PathBuf::from(".")),
                (t == "Glob")
                    .then(|| string_field(input, &["pattern"]))
                    .flatten(),
            ))),
            is_read_only: true,
            requires_user_interaction: false,
        },
        t if EDIT_TOOLS.contains(&t) => ToolFacts {
            subject: path(&["file_path", "notebook_path", "path"])
                .map(PermissionSubject::WritePath),
            is_read_only: false,
            requires_user_interaction: false,
        },
        "WebFetch" => ToolFacts {
            subject: Some(PermissionSubject::Url(
                string_field(input, &["url"]).unwrap_or_default(),
            )),
            is_read_only: true,
            requires_user_interaction: false,
        },
        "Agent" | "Task" => ToolFacts {
            subject: Some(PermissionSubject::AgentType(
                string_field(input, &["subagent_type"]).unwrap_or_else(|| "general-purpose".into()),
            )),
            is_read_only: false,
            requires_user_interaction: false,
        },
        "Skill" => ToolFacts {
            subject: Some(PermissionSubject::SkillName(
                string_field(input, &["skill"])
                    .map(|s| s.trim().to_owned())
                    .unwrap_or_default(),
            )),
            ..ToolFacts::default()
        },
        "WebSearch" | "TodoRead" | "TaskOutput" | "ToolSearch" | "ListMcpResources"
        | "ReadMcpResource" | "EnterPlanMode" => ToolFacts {
            is_read_only: true,
            ..ToolFacts::default()
        },
        "AskUserQuestion" | "ExitPlanMode" => ToolFacts {
            is_read_only: true,
            requires_user_interaction: true,
            ..ToolFacts::default()
        },
        _ => ToolFacts::default(),
    }
}

/// The directory a Glob really searches: its `path`, extended by the
/// literal directory part of a `pattern` that is absolute or climbs with
/// `..` (`../secrets/*` searches `../secrets`).
fn glob_root(path: PathBuf, pattern: Option<String>) -> PathBuf {
    let Some(pattern) = pattern else {
        return path;
    };
    let climbs = pattern.starts_with('/')
        || pattern.starts_with('~')
        || pattern.split('/').any(|c| c == "..");
    if !climbs {
        return path;
    }
    let cut = pattern.find(['*', '?', '[', '{']).unwrap_or(pattern.len());
    let literal = &pattern[..cut];
    let dir = &literal[..literal.rfind('/').map_or(0, |i| i + 1)];
    if dir.contains(['*', '?', '[', '{']) || pattern[dir.len()..].starts_with('.') {
        // `.*` may match `..`: search from the root to be safe.
        return PathBuf::from("/");
    }
    path.join(dir)
}
