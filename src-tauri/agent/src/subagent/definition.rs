//! Agent definitions (issue 19 item 3): the built-in types and Claude Code's
//! Markdown files with YAML front matter, `.claude/agents/*.md` in the
//! project (only when the project is trusted) and `~/.claude/agents/*.md`.
//!
//! Precedence by name: project over user over built-in (as Claude Code).
//! A file that cannot be read as a definition is kept in
//! [`AgentDefinitions::malformed`] with its file, line and cause, never
//! dropped silently; asking for its type then says why it is unavailable.
//! Tool names a definition lists that the session does not have are kept in
//! [`AgentDefinitions::warnings`] (file and line); a `tools` list naming no
//! valid tool at all makes the definition malformed.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use gatehouse_core::bounded_read::read_text;
use gatehouse_core::names;
use gatehouse_protocol::permission::PermissionMode;

use super::frontmatter::{self, FmValue};

/// Where a definition came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DefinitionSource {
    /// Built into Gatehouse.
    BuiltIn,
    /// `~/.claude/agents/<file>.md`.
    User(PathBuf),
    /// `<project>/.claude/agents/<file>.md`.
    Project(PathBuf),
}

/// The `isolation` a definition asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Isolation {
    /// Run in a fresh git worktree.
    Worktree,
}

/// One agent type.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentDefinition {
    /// The `subagent_type` that selects it.
    pub name: String,
    /// When to use it (shown to the model).
    pub description: String,
    /// The tools it may use (names as written); `None`: every tool of its
    /// set. Narrows, never widens, the tool set.
    pub tools: Option<Vec<String>>,
    /// Tools taken out of its set.
    pub disallowed_tools: Vec<String>,
    /// The model (`None` or `inherit`: the parent's).
    pub model: Option<String>,
    /// The permission mode it asks for.
    pub permission_mode: Option<PermissionMode>,
    /// The isolation it asks for.
    pub isolation: Option<Isolation>,
    /// The system prompt (the file's body).
    pub system_prompt: String,
    /// Where it came from.
    pub source: DefinitionSource,
    /// The line of the `tools` key (for messages about it), 0 if none.
    pub tools_line: usize,
}

impl AgentDefinition {
    /// Whether every tool it can have only reads: such agents may run side
    /// by side (issue 19: "read-only agents such as Explore").
    pub fn is_read_only(&self) -> bool {
        self.tools.as_ref().is_some_and(|tools| {
            !tools.is_empty()
                && tools
                    .iter()
                    .all(|t| READ_ONLY_TOOLS.contains(&tool_base_name(t)))
        })
    }

    /// Whether a tool of this name is left to the agent by its `tools` and
    /// `disallowedTools` (the tool set is applied separately).
    pub fn allows_tool(&self, name: &str) -> bool {
        if self
            .disallowed_tools
            .iter()
            .any(|t| tool_base_name(t) == name)
        {
            return false;
        }
        match &self.tools {
            None => true,
            Some(list) => list
                .iter()
                .any(|t| t == "*" || tool_base_name(t) == name || mcp_server_matches(t, name)),
        }
    }

    /// `file:line` of the definition (or `built-in`).
    pub fn location(&self) -> String {
        match &self.source {
            DefinitionSource::BuiltIn => "built-in".into(),
            DefinitionSource::User(p) | DefinitionSource::Project(p) => p.display().to_string(),
        }
    }
}

/// `mcp__srv` in a tools list allows every tool of that server.
fn mcp_server_matches(entry: &str, name: &str) -> bool {
    entry.starts_with(names::MCP_PREFIX)
        && name
            .strip_prefix(entry)
            .is_some_and(|rest| rest.starts_with("__"))
}

/// `Bash(git *)` → `Bash`.
fn tool_base_name(entry: &str) -> &str {
    entry.split('(').next().unwrap_or(entry).trim()
}

/// Tools that change nothing: what a read-only agent may have.
pub const READ_ONLY_TOOLS: &[&str] = &[
    names::READ,
    names::GLOB,
    names::GREP,
    names::WEB_FETCH,
    names::WEB_SEARCH,
    names::LIST_MCP_RESOURCES,
    names::READ_MCP_RESOURCE,
    names::TOOL_SEARCH,
];

/// A definition file that could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DefinitionError {
    /// The file.
    pub file: PathBuf,
    /// The 1-based line (0: the whole file).
    pub line: usize,
    /// The name it declares, when that much was read.
    pub name: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for DefinitionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file.display(), self.line, self.message)
    }
}

/// The agent types of a session.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AgentDefinitions {
    by_name: BTreeMap<String, AgentDefinition>,
    /// Files that could not be used, with their errors.
    pub malformed: Vec<DefinitionError>,
    /// Problems in usable definitions (unknown tool names).
    pub warnings: Vec<DefinitionError>,
}

/// Where [`AgentDefinitions::load`] looks.
#[derive(Debug, Clone)]
pub struct DefinitionDirs {
    /// The project root (`.claude/agents` under it).
    pub project: PathBuf,
    /// Whether the project is trusted (its definitions load only then).
    pub project_trusted: bool,
    /// The home directory (`.claude/agents` under it).
    pub home: PathBuf,
}

/// The largest definition file read (bytes): a definition is a prompt, and
/// a huge file is a mistake, not something to load into every request.
pub const MAX_DEFINITION_BYTES: u64 = 256 * 1024;
/// The most definition files read per directory.
pub const MAX_DEFINITION_FILES: usize = 200;

impl AgentDefinitions {
    /// Only the built-in types.
    pub fn builtin() -> Self {
        let mut defs = Self::default();
        for d in builtin_definitions() {
            defs.by_name.insert(d.name.clone(), d);
        }
        defs
    }

    /// The built-ins, then the user's files, then the project's (when
    /// trusted); later ones replace earlier ones of the same name.
    /// `known_tools` are the names the session has, for warnings about
    /// names it does not. Blocking file I/O: call from `spawn_blocking` or
    /// before the runtime starts.
    pub fn load(dirs: &DefinitionDirs, known_tools: &[&str]) -> Self {
        let mut defs = Self::builtin();
        defs.load_dir(&dirs.home.join(".claude/agents"), known_tools, false);
        if dirs.project_trusted {
            defs.load_dir(&dirs.project.join(".claude/agents"), known_tools, true);
        }
        defs
    }

    fn load_dir(&mut self, dir: &Path, known_tools: &[&str], project: bool) {
        let Ok(read) = std::fs::read_dir(dir) else {
            // No such folder: nothing defined there.
            return;
        };
        let mut files: Vec<PathBuf> = read
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "md"))
            .collect();
        files.sort();
        if files.len() > MAX_DEFINITION_FILES {
            self.malformed.push(DefinitionError {
                file: dir.to_path_buf(),
                line: 0,
                name: None,
                message: format!(
                    "{} definition files; only the first {MAX_DEFINITION_FILES} (by name) were read",
                    files.len()
                ),
            });
            files.truncate(MAX_DEFINITION_FILES);
        }
        for file in files {
            let source = if project {
                DefinitionSource::Project(file.clone())
            } else {
                DefinitionSource::User(file.clone())
            };
            match read_definition(&file, source, known_tools) {
                Ok((def, warnings)) => {
                    self.warnings.extend(warnings);
                    self.by_name.insert(def.name.clone(), def);
                }
                Err(e) => self.malformed.push(e),
            }
        }
    }

    /// The definition called `name`.
    pub fn get(&self, name: &str) -> Option<&AgentDefinition> {
        self.by_name.get(name)
    }

    /// The definitions, sorted by name (stable: the list is part of the
    /// Agent tool's description, so of every request).
    pub fn iter(&self) -> impl Iterator<Item = &AgentDefinition> {
        self.by_name.values()
    }

    /// The names, sorted.
    pub fn names(&self) -> Vec<&str> {
        self.by_name.keys().map(String::as_str).collect()
    }

    /// Why `name` is not available: a malformed file declaring it, or the
    /// list of the types there are.
    pub fn unknown_type_message(&self, name: &str) -> String {
        if let Some(e) = self
            .malformed
            .iter()
            .find(|e| e.name.as_deref() == Some(name))
        {
            return format!(
                "Agent type '{name}' is defined in {e} and could not be loaded; fix the file to use it."
            );
        }
        format!(
            "Agent type '{name}' not found. Available agents: {}",
            self.names().join(", ")
        )
    }
}

/// Reads one file. Errors carry file and line.
pub fn read_definition(
    file: &Path,
    source: DefinitionSource,
    known_tools: &[&str],
) -> Result<(AgentDefinition, Vec<DefinitionError>), DefinitionError> {
    let err = |line: usize, name: Option<String>, message: String| DefinitionError {
        file: file.to_path_buf(),
        line,
        name,
        message,
    };
    let text = match read_text(file, MAX_DEFINITION_BYTES) {
        Ok(Some(text)) => text,
        Ok(None) => return Err(err(0, None, "could not be read: it is not there".into())),
        Err(e) => return Err(err(0, None, e.to_string())),
    };
    let (entries, body, _) = frontmatter::split(&text).map_err(|e| err(e.line, None, e.message))?;
    let name = entries.iter().find_map(|e| match (&e.key[..], &e.value) {
        ("name", FmValue::Scalar(s)) if !s.is_empty() => Some(s.clone()),
        _ => None,
    });
    let mut def = AgentDefinition {
        name: String::new(),
        description: String::new(),
        tools: None,
        disallowed_tools: Vec::new(),
        model: None,
        permission_mode: None,
        isolation: None,
        system_prompt: body,
        source,
        tools_line: 0,
    };
    let mut tool_lines = Vec::new();
    for e in &entries {
        let fail = |m: String| err(e.line, name.clone(), m);
        let scalar = || match &e.value {
            FmValue::Scalar(s) => Ok(s.clone()),
            _ => Err(fail(format!("`{}` must be a single value", e.key))),
        };
        // `tools: Read, Grep` (Claude Code's usual form) or a YAML list.
        let list = || match &e.value {
            FmValue::Scalar(s) => Ok(s
                .split(',')
                .map(|t| t.trim().to_owned())
                .filter(|t| !t.is_empty())
                .collect::<Vec<_>>()),
            FmValue::List(l) => Ok(l.clone()),
            FmValue::Nested => Err(fail(format!("`{}` must be a list of tool names", e.key))),
        };
        match e.key.as_str() {
            "name" => {
                let n = scalar()?;
                if n.is_empty() || n.len() > 64 || !n.chars().all(valid_name_char) {
                    return Err(fail(format!(
                        "`name` {n:?} must be 1-64 letters, digits, `-`, `_`, `.` or `:`"
                    )));
                }
                def.name = n;
            }
            "description" => def.description = scalar()?,
            "tools" => {
                def.tools = Some(list()?);
                def.tools_line = e.line;
                tool_lines.push(e.line);
            }
            "disallowedTools" => {
                def.disallowed_tools = list()?;
                tool_lines.push(e.line);
            }
            "model" => {
                let m = scalar()?;
                def.model = (!m.is_empty() && m != "inherit").then_some(m);
            }
            "permissionMode" => {
                let m = scalar()?;
                def.permission_mode = Some(
                    serde_json::from_value(serde_json::Value::String(m.clone())).map_err(|_| {
                        fail(format!(
                            "`permissionMode` {m:?} is not one of default, acceptEdits, plan, bypassPermissions, dontAsk"
                        ))
                    })?,
                );
            }
            "isolation" => {
                let m = scalar()?;
                def.isolation = match m.as_str() {
                    "worktree" => Some(Isolation::Worktree),
                    "" => None,
                    other => {
                        return Err(fail(format!(
                            "`isolation` {other:?} is not supported (only `worktree`)"
                        )));
                    }
                };
            }
            // Claude Code keys Gatehouse does not use yet; read, not errors.
            _ => {}
        }
    }
    if def.name.is_empty() {
        return Err(err(1, None, "the front matter has no `name`".into()));
    }
    if def.description.is_empty() {
        return Err(err(
            1,
            Some(def.name.clone()),
            "the front matter has no `description` (the model needs it to choose the agent)".into(),
        ));
    }
    let mut warnings = Vec::new();
    let mut unknown = |line: usize, t: &str| {
        warnings.push(err(
            line,
            Some(def.name.clone()),
            format!("unknown tool name `{t}` (not a tool of this session); ignored"),
        ));
    };
    let is_known = |t: &str| {
        let base = tool_base_name(t);
        t == "*"
            || known_tools.contains(&base)
            || (base.starts_with(names::MCP_PREFIX)
                && known_tools.iter().any(|k| mcp_server_matches(base, k)))
    };
    if let Some(tools) = &def.tools {
        for t in tools.iter().filter(|t| !is_known(t)) {
            unknown(tool_lines.first().copied().unwrap_or(0), t);
        }
        if !tools.iter().any(|t| is_known(t)) {
            return Err(err(
                def.tools_line,
                Some(def.name.clone()),
                format!(
                    "`tools` names no tool of this session ({}); the agent could do nothing",
                    if tools.is_empty() {
                        "the list is empty".to_owned()
                    } else {
                        tools.join(", ")
                    }
                ),
            ));
        }
    }
    let dis_line = entries
        .iter()
        .find(|e| e.key == "disallowedTools")
        .map_or(0, |e| e.line);
    for t in def.disallowed_tools.iter().filter(|t| !is_known(t)) {
        unknown(dis_line, t);
    }
    Ok((def, warnings))
}

fn valid_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':')
}

/// `general-purpose`, `Explore` (read-only) and `Plan` (read-only).
pub fn builtin_definitions() -> Vec<AgentDefinition> {
    let read_only: Vec<String> = READ_ONLY_TOOLS.iter().map(|t| (*t).to_owned()).collect();
    let def =
        |name: &str, description: &str, tools: Option<Vec<String>>, prompt: &str| AgentDefinition {
            name: name.into(),
            description: description.into(),
            tools,
            disallowed_tools: Vec::new(),
            model: None,
            permission_mode: None,
            isolation: None,
            system_prompt: prompt.into(),
            source: DefinitionSource::BuiltIn,
            tools_line: 0,
        };
    vec![
        def(
            "general-purpose",
            "General-purpose agent for researching complex questions, searching for code, and executing multi-step tasks. Use it when a search may take several rounds.",
            None,
            "You are a sub-agent of a coding agent. Do the task you are given with the tools you have, completely, then reply with a concise report of what you found or did: that reply is all the caller sees.",
        ),
        def(
            "Explore",
            "Fast read-only agent for exploring a codebase: finding files by pattern, searching code for keywords, answering questions about how the code works. It cannot change anything.",
            Some(read_only.clone()),
            "You are a read-only exploration sub-agent. Search and read the code to answer the question you are given; you cannot change files or run commands. Reply with what you found, citing paths and lines: that reply is all the caller sees.",
        ),
        def(
            "Plan",
            "Read-only software architect agent for designing an implementation plan: it reads the code and returns a step-by-step plan, the files to change and the trade-offs.",
            Some(read_only),
            "You are a read-only planning sub-agent. Read the code you need, then reply with a step-by-step implementation plan naming the files to change and the risks. You cannot change files: the plan is your whole answer.",
        ),
    ]
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn builtins_are_sorted_and_explore_is_read_only() {
        let defs = AgentDefinitions::builtin();
        assert_eq!(defs.names(), ["Explore", "Plan", "general-purpose"]);
        assert!(defs.get("Explore").unwrap().is_read_only());
        assert!(defs.get("Plan").unwrap().is_read_only());
        assert!(!defs.get("general-purpose").unwrap().is_read_only());
        let explore = defs.get("Explore").unwrap();
        assert!(explore.allows_tool("Grep"));
        assert!(!explore.allows_tool("Bash"));
        assert!(!explore.allows_tool("Edit"));
    }

    #[test]
    fn tools_and_disallowed_narrow() {
        let mut d = builtin_definitions().remove(0);
        d.tools = Some(vec!["Read".into(), "Bash(git *)".into(), "mcp__gh".into()]);
        d.disallowed_tools = vec!["Read".into()];
        assert!(!d.allows_tool("Read"));
        assert!(d.allows_tool("Bash"));
        assert!(d.allows_tool("mcp__gh__issue"));
        assert!(!d.allows_tool("mcp__ghx__issue"));
        assert!(!d.allows_tool("Edit"));
        assert!(!d.is_read_only());
    }
}
