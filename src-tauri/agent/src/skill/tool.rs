//! The `Skill` tool: the model loads a skill's instructions when it needs
//! them. Its description lists only each skill's name and description
//! (sorted, so the tool block stays byte-identical between requests); the
//! call returns the SKILL.md body, the skill's folder and its other files
//! (the model reads those with Read), and grants the skill's
//! `allowed-tools` until the end of the turn through the permission engine
//! ([`PermissionEngine::grant_skill_rules`]), where they rank as allow
//! rules: deny and ask rules, safety checks and the mode still decide first.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use gatehouse_core::permission::PermissionSubject;
use gatehouse_core::tool::{CallContext, ToolData, default_map_result};
use gatehouse_core::{Tool, ToolError, ToolResult, ToolUseContext, names};
use gatehouse_permissions::PermissionEngine;
use gatehouse_protocol::event::ContentBlock;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::definition::{Skill, Skills, read_parts};

/// The most other files of a skill's folder listed in its result.
pub const MAX_LISTED_FILES: usize = 100;
/// How deep below the skill's folder files are listed.
const MAX_LIST_DEPTH: usize = 4;

/// The Skill tool's input (Claude Code's).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct SkillInput {
    skill: String,
    #[serde(default)]
    args: Option<String>,
}

/// What a Skill call returns (PostToolUse hooks see it as JSON).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkillOutput {
    /// The skill's name.
    pub name: String,
    /// `user` or `project`.
    pub source: &'static str,
    /// Its folder.
    pub dir: String,
    /// Its instructions (the SKILL.md body).
    pub body: String,
    /// The call's `args`, if any.
    pub args: Option<String>,
    /// The other files of its folder (absolute), at most
    /// [`MAX_LISTED_FILES`].
    pub files: Vec<String>,
    /// Whether the folder had more files than were listed.
    pub files_truncated: bool,
    /// The rules granted until the end of the turn.
    pub granted: Vec<String>,
}

impl SkillOutput {
    /// The tool_result text.
    pub fn text(&self) -> String {
        let mut text = format!(
            "Base directory for this skill: {}\n\n{}",
            self.dir,
            self.body.trim()
        );
        if let Some(args) = self.args.as_deref().filter(|a| !a.trim().is_empty()) {
            text.push_str(&format!("\n\nARGUMENTS: {args}"));
        }
        if !self.files.is_empty() {
            text.push_str(
                "\n\nOther files in this skill's folder (read them with Read when the instructions need them):",
            );
            for f in &self.files {
                text.push_str(&format!("\n- {f}"));
            }
            if self.files_truncated {
                text.push_str(&format!("\n(only the first {MAX_LISTED_FILES} are listed)"));
            }
        }
        if !self.granted.is_empty() {
            text.push_str(&format!(
                "\n\nUntil the end of this turn these run without asking (deny and ask rules still apply): {}",
                self.granted.join(", ")
            ));
        }
        text
    }
}

/// The session's Skill tool.
pub struct SkillTool {
    skills: Arc<Skills>,
    engine: Arc<PermissionEngine>,
    description: String,
    schema: Value,
}

impl std::fmt::Debug for SkillTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SkillTool")
            .field("skills", &self.skills.iter().count())
            .finish_non_exhaustive()
    }
}

impl SkillTool {
    /// The tool for `skills`, granting through `engine`.
    pub fn new(skills: Arc<Skills>, engine: Arc<PermissionEngine>) -> Self {
        let description = describe(&skills);
        Self {
            skills,
            engine,
            description,
            schema: json!({
                "type": "object",
                "properties": {
                    "skill": {"type": "string", "description": "The skill's name, as listed in this tool's description"},
                    "args": {"type": "string", "description": "Optional arguments for the skill"}
                },
                "required": ["skill"],
                "additionalProperties": false
            }),
        }
    }

    /// The skills it offers.
    pub fn skills(&self) -> &Skills {
        &self.skills
    }

    fn parse(input: &Value) -> Option<SkillInput> {
        serde_json::from_value(input.clone()).ok()
    }

    fn find(&self, name: &str) -> Result<&Skill, ToolError> {
        let name = name.trim().trim_start_matches('/');
        self.skills.get(name).ok_or_else(|| {
            let known: Vec<&str> = self.skills.iter().map(|s| s.name.as_str()).collect();
            let why = self
                .skills
                .malformed
                .iter()
                .find(|e| e.file.to_string_lossy().contains(&format!("/{name}/")))
                .map(|e| {
                    format!(
                        " It is defined in {e} and could not be loaded; fix the file to use it."
                    )
                })
                .unwrap_or_default();
            ToolError::invalid(format!(
                "Unknown skill: {name}.{why} Available skills: {}",
                if known.is_empty() {
                    "none".to_owned()
                } else {
                    known.join(", ")
                }
            ))
        })
    }
}

/// The description the model sees: what the tool does, then one line per
/// skill, sorted by name.
fn describe(skills: &Skills) -> String {
    let mut text = String::from(
        "Loads a skill: instructions (and files) for a particular kind of task, which you then \
         follow. Use it when the user's request matches a skill's description below; call it \
         before doing the task yourself. The result holds the skill's instructions and lists its \
         other files.\n\nAvailable skills:",
    );
    if skills.is_empty() {
        text.push_str("\n(none)");
    }
    for s in skills.iter() {
        text.push_str(&format!("\n- {}: {}", s.name, s.description));
    }
    text
}

/// The files under `dir` other than its SKILL.md, sorted, bounded in
/// count and depth; hidden files and folders are skipped.
fn list_files(dir: &Path) -> (Vec<PathBuf>, bool) {
    let mut found = Vec::new();
    let mut truncated = false;
    let mut stack = vec![(dir.to_path_buf(), 0_usize)];
    while let Some((folder, depth)) = stack.pop() {
        let Ok(read) = std::fs::read_dir(&folder) else {
            continue;
        };
        let mut entries: Vec<_> = read.filter_map(Result::ok).collect();
        entries.sort_by_key(std::fs::DirEntry::file_name);
        for e in entries {
            let path = e.path();
            if e.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            match e.file_type() {
                Ok(t) if t.is_dir() && depth + 1 < MAX_LIST_DEPTH => stack.push((path, depth + 1)),
                Ok(t) if t.is_file() && !(depth == 0 && e.file_name() == "SKILL.md") => {
                    if found.len() == MAX_LISTED_FILES {
                        truncated = true;
                    } else {
                        found.push(path);
                    }
                }
                _ => {}
            }
        }
    }
    found.sort();
    (found, truncated)
}

#[async_trait]
impl Tool for SkillTool {
    fn name(&self) -> &str {
        names::SKILL
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn input_schema(&self) -> &Value {
        &self.schema
    }

    fn search_hint(&self) -> Option<&str> {
        Some("load a skill's instructions for a kind of task")
    }

    /// Reading instructions changes nothing; a skill that grants tools is
    /// not counted as read-only, so loading it asks (in default mode) like
    /// any call that widens what runs unasked.
    fn is_read_only(&self, input: &Value) -> bool {
        Self::parse(input)
            .and_then(|i| self.skills.get(i.skill.trim()).cloned())
            .is_some_and(|s| s.allowed_tools.is_empty())
    }

    /// `Skill(name)` rules match the skill's name.
    fn permission_subject(
        &self,
        input: &Value,
        _ctx: &ToolUseContext,
    ) -> Option<PermissionSubject> {
        Self::parse(input).map(|i| PermissionSubject::SkillName(i.skill.trim().to_owned()))
    }

    async fn validate_input(&self, input: &Value, _ctx: &ToolUseContext) -> Result<(), ToolError> {
        let i = Self::parse(input).ok_or_else(|| {
            ToolError::invalid(
                "the input is not a Skill call: it needs `skill` (a name) and optionally `args`",
            )
        })?;
        if i.skill.trim().is_empty() {
            return Err(ToolError::invalid(
                "`skill` is empty: name one of the available skills",
            ));
        }
        self.find(&i.skill).map(|_| ())
    }

    async fn call(&self, input: Value, _cx: CallContext<'_>) -> Result<ToolResult, ToolError> {
        let i: SkillInput = serde_json::from_value(input)
            .map_err(|e| ToolError::invalid(format!("the input is not a Skill call: {e}")))?;
        let skill = self.find(&i.skill)?.clone();
        // The body is read now: an edit made since the session started is
        // what the model gets. File work goes to a blocking thread.
        let file = skill.file.clone();
        let (read, (files, files_truncated)) = tokio::task::spawn_blocking(move || {
            let dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
            (read_parts(&file), list_files(&dir))
        })
        .await
        .map_err(|e| ToolError::failed(format!("reading the skill failed: {e}")))?;
        let (_, body) = read.map_err(|(line, m)| {
            ToolError::failed(format!("{}:{line}: {m}", skill.file.display()))
        })?;
        let errors = self
            .engine
            .grant_skill_rules(&skill.file, &skill.allowed_tools);
        if let Some(e) = errors.first() {
            // Checked when the skill was loaded; the file changed since.
            return Err(ToolError::failed(format!(
                "{}: an `allowed-tools` entry is not a permission rule: {e}",
                skill.file.display()
            )));
        }
        Ok(ToolResult::from_data(SkillOutput {
            name: skill.name.clone(),
            source: skill.source.as_str(),
            dir: skill.dir().display().to_string(),
            body,
            args: i.args,
            files: files.iter().map(|f| f.display().to_string()).collect(),
            files_truncated,
            granted: skill.allowed_tools.clone(),
        }))
    }

    fn map_result(&self, data: &dyn ToolData, _tool_use_id: &str) -> Vec<ContentBlock> {
        match data.as_any().downcast_ref::<SkillOutput>() {
            Some(out) => vec![ContentBlock::Text { text: out.text() }],
            None => default_map_result(&data.to_json()),
        }
    }
}
