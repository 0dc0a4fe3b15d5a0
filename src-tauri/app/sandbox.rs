//! Handler of Settings → Sandbox: maps onto
//! `gatehouse_session::sandbox_state`, which holds the logic (the cached
//! bwrap probe, the settings merged with their files).

use std::path::PathBuf;

use gatehouse_protocol::command::CommandError;
use gatehouse_protocol::sandbox::{SandboxState, SandboxStateArgs};
use gatehouse_session::sandbox_state::{SandboxProject, sandbox_state as state_of};
use tauri::State;

use crate::AppState;
use crate::commands::{CommandResult, error, home, with_store};

#[tauri::command]
pub(crate) async fn sandbox_state(
    state: State<'_, AppState>,
    args: SandboxStateArgs,
) -> CommandResult<SandboxState> {
    let project = match args.project_id {
        None => None,
        Some(id) => Some(
            with_store(&state, move |store| {
                store
                    .project(id)
                    .map_err(error)?
                    .ok_or_else(|| CommandError::new(format!("no project with id {id}")))
            })
            .await?,
        ),
    };
    let project = project.map(|p| SandboxProject {
        path: PathBuf::from(&p.path),
        trusted: p.trusted_at_ms.is_some(),
    });
    let home = home(&state);
    let data_dir = PathBuf::from(&state.info.data_dir);
    let path = std::env::var_os("PATH");
    Ok(state_of(&home, &data_dir, project, path.as_deref(), args.recheck).await)
}
