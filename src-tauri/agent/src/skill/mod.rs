//! Skills (issue 21 item 5): `SKILL.md` folders and the `Skill` tool.
//!
//! | module | what |
//! |---|---|
//! | [`definition`] | reading `.claude/skills/<name>/SKILL.md` (project when trusted, user) |
//! | [`tool`] | the `Skill` tool: its description, the loaded instructions, the grants |

pub mod definition;
pub mod tool;

pub use definition::{Skill, SkillDirs, SkillError, SkillSource, Skills};
pub use tool::{SkillOutput, SkillTool};
