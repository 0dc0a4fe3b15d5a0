//! Skills as Claude Code writes them (issue 21 item 5):
//! `<dir>/.claude/skills/<name>/SKILL.md`, Markdown with YAML front matter
//! (`name`, `description`, `allowed-tools`, optional `model`), in the
//! project (read only when it is trusted) and in the home directory.
//!
//! Only names and descriptions reach the model up front (the Skill tool's
//! description); the body is read when the model calls `Skill`. A folder
//! that cannot be used as a skill (no SKILL.md, front matter that does not
//! parse, no description, a rule in `allowed-tools` that does not parse) is
//! kept in [`Skills::malformed`] with file, line and cause, never dropped
//! silently. Precedence by name: project over user (as agent definitions).

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use gatehouse_core::bounded_read::read_text;

use crate::subagent::frontmatter::{self, FmValue};

/// Where a skill came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkillSource {
    /// `~/.claude/skills/<name>/SKILL.md`.
    User,
    /// `<project>/.claude/skills/<name>/SKILL.md`.
    Project,
}

impl SkillSource {
    /// "user" or "project", for messages and the UI.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Project => "project",
        }
    }
}

/// One skill, as read from its SKILL.md (the body is read again when the
/// skill is used, so an edit made meanwhile is what the model gets).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    /// The name the model calls it by: the front matter's `name`, else the
    /// folder's name.
    pub name: String,
    /// When to use it (shown to the model).
    pub description: String,
    /// The rules `allowed-tools` grants while it runs (`Read`,
    /// `Bash(git status:*)`, …), as written.
    pub allowed_tools: Vec<String>,
    /// The model it asks for, if any (informational: the session's model
    /// runs it).
    pub model: Option<String>,
    /// Its SKILL.md (absolute).
    pub file: PathBuf,
    /// Where it came from.
    pub source: SkillSource,
}

impl Skill {
    /// The skill's folder.
    pub fn dir(&self) -> &Path {
        self.file.parent().unwrap_or(&self.file)
    }
}

/// A skill folder that could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillError {
    /// The SKILL.md (or the folder, when it has none).
    pub file: PathBuf,
    /// The 1-based line (0: the whole file).
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for SkillError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.file.display(), self.message)
        } else {
            write!(f, "{}:{}: {}", self.file.display(), self.line, self.message)
        }
    }
}

/// Where [`Skills::load`] looks.
#[derive(Debug, Clone)]
pub struct SkillDirs {
    /// The project root (`.claude/skills` under it).
    pub project: PathBuf,
    /// Whether the project is trusted (its skills load only then: a cloned
    /// repository must not grant itself tools through `allowed-tools`).
    pub project_trusted: bool,
    /// The home directory (`.claude/skills` under it).
    pub home: PathBuf,
}

/// The largest SKILL.md read (bytes).
pub const MAX_SKILL_BYTES: u64 = 256 * 1024;
/// The most skill folders read per directory.
pub const MAX_SKILL_DIRS: usize = 200;

/// The skills of a session, sorted by name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Skills {
    by_name: BTreeMap<String, Skill>,
    /// Folders that could not be used, with their errors.
    pub malformed: Vec<SkillError>,
}

impl Skills {
    /// The user's skills, then the project's (when trusted); a project
    /// skill replaces a user skill of the same name. Blocking file I/O:
    /// call from `spawn_blocking`.
    pub fn load(dirs: &SkillDirs) -> Self {
        let mut skills = Self::default();
        skills.load_dir(&dirs.home.join(".claude/skills"), SkillSource::User);
        if dirs.project_trusted {
            skills.load_dir(&dirs.project.join(".claude/skills"), SkillSource::Project);
        }
        skills
    }

    fn load_dir(&mut self, dir: &Path, source: SkillSource) {
        let Ok(read) = std::fs::read_dir(dir) else {
            // No such folder: no skills there.
            return;
        };
        let mut folders: Vec<PathBuf> = read
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        folders.sort();
        if folders.len() > MAX_SKILL_DIRS {
            self.malformed.push(SkillError {
                file: dir.to_path_buf(),
                line: 0,
                message: format!(
                    "{} skill folders; only the first {MAX_SKILL_DIRS} (by name) were read",
                    folders.len()
                ),
            });
            folders.truncate(MAX_SKILL_DIRS);
        }
        for folder in folders {
            let file = folder.join("SKILL.md");
            if !file.is_file() {
                self.malformed.push(SkillError {
                    file: folder,
                    line: 0,
                    message: "the folder has no SKILL.md, so it is not a skill".into(),
                });
                continue;
            }
            match read_skill(&file, source) {
                Ok(skill) => {
                    self.by_name.insert(skill.name.clone(), skill);
                }
                Err(e) => self.malformed.push(e),
            }
        }
    }

    /// The skill called `name`.
    pub fn get(&self, name: &str) -> Option<&Skill> {
        self.by_name.get(name)
    }

    /// The skills, sorted by name (stable: the list is part of the Skill
    /// tool's description, so of every request).
    pub fn iter(&self) -> impl Iterator<Item = &Skill> {
        self.by_name.values()
    }

    /// Whether there is no usable skill.
    pub fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }
}

/// Reads one SKILL.md. Errors carry file and line.
pub fn read_skill(file: &Path, source: SkillSource) -> Result<Skill, SkillError> {
    let err = |line: usize, message: String| SkillError {
        file: file.to_path_buf(),
        line,
        message,
    };
    let (entries, _body) = read_parts(file).map_err(|(line, m)| err(line, m))?;
    let folder_name = file
        .parent()
        .and_then(Path::file_name)
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut skill = Skill {
        name: folder_name,
        description: String::new(),
        allowed_tools: Vec::new(),
        model: None,
        file: file.to_path_buf(),
        source,
    };
    for e in &entries {
        let scalar = || match &e.value {
            FmValue::Scalar(s) => Ok(s.trim().to_owned()),
            _ => Err(err(e.line, format!("`{}` must be a single value", e.key))),
        };
        match e.key.as_str() {
            "name" => {
                let name = scalar()?;
                if !name.is_empty() {
                    skill.name = name;
                }
            }
            "description" => skill.description = scalar()?,
            "model" => skill.model = Some(scalar()?).filter(|m| !m.is_empty() && m != "inherit"),
            "allowed-tools" => {
                skill.allowed_tools = match &e.value {
                    FmValue::Scalar(s) => split_tool_list(s),
                    FmValue::List(l) => l.iter().map(|t| t.trim().to_owned()).collect(),
                    FmValue::Nested => {
                        return Err(err(
                            e.line,
                            "`allowed-tools` must be a list of tools".into(),
                        ));
                    }
                };
                for tool in &skill.allowed_tools {
                    gatehouse_permissions::rule::parse_rule(tool).map_err(|p| {
                        err(
                            e.line,
                            format!("`allowed-tools` entry `{tool}` is not a permission rule: {p}"),
                        )
                    })?;
                }
            }
            // Other keys Claude Code knows (license, version, …) are kept
            // in the file and not needed here.
            _ => {}
        }
    }
    if skill.description.is_empty() {
        return Err(err(
            1,
            "the front matter has no `description`; the model needs one to know when to use the skill"
                .into(),
        ));
    }
    if skill.name.is_empty() || skill.name.chars().any(char::is_whitespace) {
        return Err(err(
            1,
            format!("the skill's name {:?} must be one word", skill.name),
        ));
    }
    Ok(skill)
}

/// The front matter entries and body of a SKILL.md, bounded in size.
pub(crate) fn read_parts(
    file: &Path,
) -> Result<(Vec<frontmatter::FmEntry>, String), (usize, String)> {
    let text = match read_text(file, MAX_SKILL_BYTES) {
        Ok(Some(text)) => text,
        Ok(None) => return Err((0, "could not be read: it is not there".into())),
        Err(e) => return Err((0, e.to_string())),
    };
    let (entries, body, _) = frontmatter::split(&text).map_err(|e| (e.line, e.message))?;
    Ok((entries, body))
}

/// `Read, Grep, Bash(git diff:*, --stat)` → the entries, split on commas
/// outside parentheses (a rule's specifier may hold commas).
fn split_tool_list(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0_usize;
    let mut current = String::new();
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                out.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    out.push(current);
    out.into_iter()
        .map(|t| t.trim().to_owned())
        .filter(|t| !t.is_empty())
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_list_splits_on_commas_outside_parentheses() {
        assert_eq!(
            split_tool_list("Read, Grep ,Bash(git diff:*, --stat), Bash(ls *)"),
            ["Read", "Grep", "Bash(git diff:*, --stat)", "Bash(ls *)"]
        );
        assert!(split_tool_list(" , ").is_empty());
    }
}
