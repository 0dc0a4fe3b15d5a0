//! Skills in a hosted session (issue 21 item 5): the session's `Skill`
//! tool over the user's skills and, when the project is trusted, the
//! project's; problems in skill folders become start-up warnings
//! (file:line: cause). [`skills_view`] is the window's Skills panel.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use gatehouse_agent::skill::{Skill, SkillDirs, SkillSource, SkillTool, Skills};
use gatehouse_permissions::PermissionEngine;
use gatehouse_protocol::project::Project;
use gatehouse_protocol::skills::{SkillOrigin, SkillProblem, SkillView, SkillsView};
use gatehouse_store::{SkillUse, Store, StoreError};

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

/// The Skills panel of `project`: every skill its sessions load (active),
/// then the ones they do not (a project skill while the project is not
/// trusted; a user skill a project skill of the same name replaces), each
/// with its stored uses in this project, and the folders that could not be
/// read (the project's too, trusted or not, so they can be fixed before
/// trusting it). Blocking: reads files and SQLite.
pub fn skills_view(
    store: &Store,
    project: &Project,
    home: &Path,
) -> Result<SkillsView, StoreError> {
    let trusted = project.trusted_at_ms.is_some();
    let dirs = |project_trusted| SkillDirs {
        project: PathBuf::from(&project.path),
        project_trusted,
        home: home.to_path_buf(),
    };
    let user_only = Skills::load(&dirs(false));
    let with_project = Skills::load(&dirs(true));
    let uses: HashMap<String, SkillUse> = store
        .skill_uses(&project.path)?
        .into_iter()
        .map(|u| (u.skill.clone(), u))
        .collect();
    let view = |skill: &Skill, active: bool| {
        let used = uses.get(&skill.name);
        SkillView {
            name: skill.name.clone(),
            description: skill.description.clone(),
            origin: match skill.source {
                SkillSource::User => SkillOrigin::User,
                SkillSource::Project => SkillOrigin::Project,
            },
            file: skill.file.display().to_string(),
            allowed_tools: skill.allowed_tools.clone(),
            model: skill.model.clone(),
            active,
            last_used_ms: used.map(|u| u.last_used_ms),
            uses: used.map_or(0, |u| u32::try_from(u.uses).unwrap_or(u32::MAX)),
        }
    };
    let (loaded, other) = if trusted {
        (&with_project, &user_only)
    } else {
        (&user_only, &with_project)
    };
    let mut skills: Vec<SkillView> = loaded.iter().map(|s| view(s, true)).collect();
    // What the other reading has that the sessions do not load.
    skills.extend(
        other
            .iter()
            .filter(|s| loaded.get(&s.name).is_none_or(|l| l.file != s.file))
            .map(|s| view(s, false)),
    );
    let problems = with_project
        .malformed
        .iter()
        .map(|e| SkillProblem {
            file: e.file.display().to_string(),
            line: u32::try_from(e.line).unwrap_or(u32::MAX),
            message: e.message.clone(),
        })
        .collect();
    Ok(SkillsView {
        trusted,
        skills,
        problems,
    })
}
