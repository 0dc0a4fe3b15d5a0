//! Handler of the Skills panel's command: maps its arguments onto
//! `gatehouse_session::skills::skills_view` (files and SQLite, read on a
//! blocking thread).

use gatehouse_protocol::command::CommandError;
use gatehouse_protocol::skills::{SkillsProjectArgs, SkillsView};
use gatehouse_session::skills;
use tauri::State;

use crate::AppState;
use crate::commands::{CommandResult, error, home, with_store};

#[tauri::command]
pub(crate) async fn skills_view(
    state: State<'_, AppState>,
    args: SkillsProjectArgs,
) -> CommandResult<SkillsView> {
    let home = home(&state);
    with_store(&state, move |store| {
        let id = args.project_id;
        let project = store
            .project(id)
            .map_err(error)?
            .ok_or_else(|| CommandError::new(format!("no project with id {id}")))?;
        skills::skills_view(store, &project, &home).map_err(error)
    })
    .await
}
