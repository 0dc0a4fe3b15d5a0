//! Skills in a hosted session (issue 21 item 5): the session's `Skill`
//! tool over the user's skills and, when the project is trusted, the
//! project's; problems in skill folders become start-up warnings
//! (file:line: cause).

use std::path::Path;
use std::sync::Arc;

use gatehouse_agent::skill::{SkillDirs, SkillTool, Skills};
use gatehouse_permissions::PermissionEngine;

/// The skills of `project` (only when `trusted`) and `home`, read on a
/// blocking thread; what could not be used is added to `warnings`. `None`
/// when there is no usable skill (the tool would only cost request bytes).
pub async fn start_skill_tool(
    project: &Path,
    trusted: bool,
    home: &Path,
    engine: &Arc<PermissionEngine>,
    warnings: &mut Vec<String>,
) -> Option<Arc<SkillTool>> {
    let dirs = SkillDirs {
        project: project.to_path_buf(),
        project_trusted: trusted,
        home: home.to_path_buf(),
    };
    let skills = match tokio::task::spawn_blocking(move || Skills::load(&dirs)).await {
        Ok(skills) => skills,
        Err(e) => {
            warnings.push(format!("skills were not read ({e}); the session has none"));
            return None;
        }
    };
    warnings.extend(
        skills
            .malformed
            .iter()
            .map(|e| format!("skill not loaded: {e}")),
    );
    (!skills.is_empty()).then(|| Arc::new(SkillTool::new(Arc::new(skills), Arc::clone(engine))))
}
