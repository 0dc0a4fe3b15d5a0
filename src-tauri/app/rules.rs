//! Handlers of the rule editor's commands: each maps its arguments onto
//! `gatehouse_session::rules_editor`, which holds the logic; replay
//! progress reaches the window on `RULES_REPLAY_PROGRESS_CHANNEL`.

use std::path::Path;
use std::sync::Arc;

use gatehouse_protocol::command::CommandError;
use gatehouse_protocol::event::SettingsReloadTrigger;
use gatehouse_protocol::permission::PermissionDecision;
use gatehouse_protocol::project::Project;
use gatehouse_protocol::rules::{
    CheckRuleEditsArgs, RULES_REPLAY_PROGRESS_CHANNEL, ReplayRuleEditsArgs, RuleProblem,
    RuleValidation, RulesProjectArgs, RulesReplayProgress, RulesReplayReport, RulesView,
    SaveRuleEditsArgs, SaveRulesOutcome, TestRuleCallArgs, UndoRulesSaveArgs, ValidateRuleArgs,
};
use gatehouse_session::rules_editor::{self, RuleSaves};
use gatehouse_store::Store;
use tauri::{Emitter as _, State};

use crate::AppState;
use crate::commands::{CommandResult, blocking, error, home, with_own_store, with_store};

/// The rule editor's state: the last save of each project, for undo
/// (shared with the blocking threads that save).
#[derive(Default)]
pub(crate) struct RulesState {
    saves: Arc<RuleSaves>,
}

fn project(store: &Store, id: i64) -> CommandResult<Project> {
    store
        .project(id)
        .map_err(error)?
        .ok_or_else(|| CommandError::new(format!("no project with id {id}")))
}

#[tauri::command]
pub(crate) async fn rules_view(
    state: State<'_, AppState>,
    rules: State<'_, RulesState>,
    args: RulesProjectArgs,
) -> CommandResult<RulesView> {
    let saves = Arc::clone(&rules.saves);
    let home = home(&state);
    let host = state.host.as_ref().ok().map(Arc::clone);
    with_store(&state, move |store| {
        let project = project(store, args.project_id)?;
        let can_undo = saves.can_undo(project.id);
        // Deferred MCP tools are completed too: the open sessions know them.
        let live = host
            .map(|h| h.live_mcp_tool_names(Path::new(&project.path)))
            .unwrap_or_default();
        rules_editor::rules_view(store, &project, &home, can_undo, &live).map_err(error)
    })
    .await
}

#[tauri::command]
pub(crate) async fn check_rule_edits(
    state: State<'_, AppState>,
    args: CheckRuleEditsArgs,
) -> CommandResult<Vec<RuleProblem>> {
    let home = home(&state);
    with_store(&state, move |store| {
        let project = project(store, args.project_id)?;
        rules_editor::check_edits(&project, &home, &args.edits).map_err(error)
    })
    .await
}

#[tauri::command]
pub(crate) async fn validate_rule(
    state: State<'_, AppState>,
    args: ValidateRuleArgs,
) -> CommandResult<RuleValidation> {
    with_store(&state, move |store| {
        let project = project(store, args.project_id)?;
        CommandResult::Ok(rules_editor::validate_rule(
            Path::new(&project.path),
            &args.text,
        ))
    })
    .await
}

#[tauri::command]
pub(crate) async fn test_rule_call(
    state: State<'_, AppState>,
    args: TestRuleCallArgs,
) -> CommandResult<PermissionDecision> {
    let home = home(&state);
    with_store(&state, move |store| {
        let project = project(store, args.project_id)?;
        rules_editor::test_call(&project, &home, &args).map_err(error)
    })
    .await
}

#[tauri::command]
pub(crate) async fn replay_rule_edits(
    app: tauri::AppHandle,
    state: State<'_, AppState>,
    args: ReplayRuleEditsArgs,
) -> CommandResult<RulesReplayReport> {
    let home = home(&state);
    // The replay reads every stored call in scope: a connection of its own.
    with_own_store(&state, move |replay_store| {
        let project = project(replay_store, args.project_id)?;
        let limit = args.limit.map_or(1000, |l| l as usize);
        rules_editor::replay(
            replay_store,
            &project,
            &home,
            &args.edits,
            &args.scope,
            limit,
            |done, total| {
                let progress = RulesReplayProgress {
                    replay_id: args.replay_id.clone(),
                    done,
                    total,
                };
                if let Err(e) = app.emit(RULES_REPLAY_PROGRESS_CHANNEL, &progress) {
                    eprintln!("gatehouse: replay progress could not reach the window: {e}");
                }
            },
        )
        .map_err(error)
    })
    .await
}

#[tauri::command]
pub(crate) async fn save_rule_edits(
    state: State<'_, AppState>,
    rules: State<'_, RulesState>,
    args: SaveRuleEditsArgs,
) -> CommandResult<SaveRulesOutcome> {
    let saves = Arc::clone(&rules.saves);
    let home = home(&state);
    let outcome = with_store(&state, move |store| {
        let project = project(store, args.project_id)?;
        saves
            .save(store, &project, &home, &args.edits, args.overwrite)
            .map_err(error)
    })
    .await?;
    tell_open_sessions(&state, &outcome).await;
    Ok(outcome)
}

/// A save (or an undo) takes effect in the open sessions at once: they read
/// their settings files again, and sessions whose rules were replaced take
/// the stored ones (the file watcher would notice the files too, later).
async fn tell_open_sessions(state: &State<'_, AppState>, outcome: &SaveRulesOutcome) {
    let (Ok(host), SaveRulesOutcome::Saved { sessions, .. }) = (&state.host, outcome) else {
        return;
    };
    let (host, sessions) = (Arc::clone(host), sessions.clone());
    // Reading settings files and stored session rules blocks.
    let told = blocking(move || {
        host.reload_settings(SettingsReloadTrigger::RulesSaved);
        Ok::<_, String>(host.reload_session_rules(&sessions))
    })
    .await;
    match told {
        Ok(problems) => problems.iter().for_each(|p| eprintln!("gatehouse: {p}")),
        Err(e) => eprintln!(
            "gatehouse: telling open sessions about saved rules: {}",
            e.message
        ),
    }
}

#[tauri::command]
pub(crate) async fn undo_rules_save(
    state: State<'_, AppState>,
    rules: State<'_, RulesState>,
    args: UndoRulesSaveArgs,
) -> CommandResult<SaveRulesOutcome> {
    let saves = Arc::clone(&rules.saves);
    let outcome = with_store(&state, move |store| {
        saves.undo(store, args.project_id, args.overwrite)
    })
    .await?;
    tell_open_sessions(&state, &outcome).await;
    Ok(outcome)
}
