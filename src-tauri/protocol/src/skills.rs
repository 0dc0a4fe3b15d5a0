//! The Skills panel (issue 21 item 5): a project's skills as its sessions
//! see them — where each comes from, what it grants, when it was last used
//! — and the skill folders that could not be read.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Arguments of `skills_view`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SkillsProjectArgs {
    /// The project's row id.
    pub project_id: i64,
}

/// Where a skill's SKILL.md lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum SkillOrigin {
    /// `~/.claude/skills/<name>/SKILL.md`.
    User,
    /// `<project>/.claude/skills/<name>/SKILL.md`.
    Project,
}

/// One skill.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SkillView {
    /// The name the model calls it by.
    pub name: String,
    /// When to use it (what the model reads).
    pub description: String,
    /// Where it comes from.
    pub origin: SkillOrigin,
    /// Its SKILL.md (absolute path).
    pub file: String,
    /// The rules its `allowed-tools` grants while it runs, as written.
    pub allowed_tools: Vec<String>,
    /// The model its front matter asks for, if any.
    pub model: Option<String>,
    /// Whether the project's sessions load it: a project skill loads only
    /// once the project is trusted; a user skill a project skill of the
    /// same name replaces does not.
    pub active: bool,
    /// The latest stored Skill call of it in this project (ms since the
    /// Unix epoch); `None` when never used.
    #[ts(type = "number | null")]
    pub last_used_ms: Option<i64>,
    /// How many stored Skill calls in this project named it.
    pub uses: u32,
}

/// A skill folder that could not be used, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SkillProblem {
    /// The SKILL.md (or the folder, when it has none).
    pub file: String,
    /// The 1-based line (0: the whole file).
    pub line: u32,
    /// What is wrong.
    pub message: String,
}

/// A project's skills.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SkillsView {
    /// Whether the project is trusted (its skills load only then).
    pub trusted: bool,
    /// Every skill found, active ones first, each group by name.
    pub skills: Vec<SkillView>,
    /// Skill folders that could not be used.
    pub problems: Vec<SkillProblem>,
}
