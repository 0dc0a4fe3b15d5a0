//! Handlers of the rule editor's commands: each maps its arguments onto
//! `gatehouse_session::rules_editor`, which holds the logic; replay
//! progress reaches the window on `RULES_REPLAY_PROGRESS_CHANNEL`.

use std::path::Path;

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
use tauri::{Emitter as _, State};

use crate::AppState;
use crate::commands::{CommandResult, error, home, own_store, store};

/// The rule editor's state: the last save of each project, for undo.
#[derive(Default)]
pub(crate) struct RulesState {
    saves: RuleSaves,
}

fn project(state: &State<'_, AppState>, id: i64) -> CommandResult<Project> {
    store(state)?
        .project(id)
        .map_err(error)?
        .ok_or_else(|| CommandError::new(format!("no project with id {id}")))
}

#[tauri::command(async)]
pub(crate) fn rules_view(
    state: State<'_, AppState>,
    rules: State<'_, RulesState>,
    args: RulesProjectArgs,
) -> CommandResult<RulesView> {
    let project = project(&state, args.project_id)?;
    let can_undo = rules.saves.can_undo(project.id);
    let store = store(&state)?;
    rules_editor::rules_view(&store, &project, &home(&state), can_undo).map_err(error)
}

#[tauri::command(async)]
pub(crate) fn check_rule_edits(
    state: State<'_, AppState>,
    args: CheckRuleEditsArgs,
) -> CommandResult<Vec<RuleProblem>> {
    let project = project(&state, args.project_id)?;
    rules_editor::check_edits(&project, &home(&state), &args.edits).map_err(error)
}

#[tauri::command(async)]
pub(crate) fn validate_rule(
    state: State<'_, AppState>,
    args: ValidateRuleArgs,
) -> CommandResult<RuleValidation> {
    let project = project(&state, args.project_id)?;
    Ok(rules_editor::validate_rule(
        Path::new(&project.path),
        &args.text,
    ))
}

#[tauri::command(async)]
pub(crate) fn test_rule_call(
    state: State<'_, AppState>,
    args: TestRuleCallArgs,
) -> CommandResult<PermissionDecision> {
    let project = project(&state, args.project_id)?;
    rules_editor::test_call(&project, &home(&state), &args).map_err(error)
}

#[tauri::command(async)]
pub(crate) fn replay_rule_edits(
    app: tauri::AppHandle,
    state: State<'_, AppState>,
    args: ReplayRuleEditsArgs,
) -> CommandResult<RulesReplayReport> {
    let project = project(&state, args.project_id)?;
    let replay_store = own_store(&state)?;
    let limit = args.limit.map_or(1000, |l| l as usize);
    rules_editor::replay(
        &replay_store,
        &project,
        &home(&state),
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
}

#[tauri::command(async)]
pub(crate) fn save_rule_edits(
    state: State<'_, AppState>,
    rules: State<'_, RulesState>,
    args: SaveRuleEditsArgs,
) -> CommandResult<SaveRulesOutcome> {
    let project = project(&state, args.project_id)?;
    let mut store = store(&state)?;
    let outcome = rules
        .saves
        .save(
            &mut store,
            &project,
            &home(&state),
            &args.edits,
            args.overwrite,
        )
        .map_err(error)?;
    drop(store);
    tell_open_sessions(&state, &outcome);
    Ok(outcome)
}

/// A save (or an undo) takes effect in the open sessions at once: they read
/// their settings files again, and sessions whose rules were replaced take
/// the stored ones (the file watcher would notice the files too, later).
fn tell_open_sessions(state: &State<'_, AppState>, outcome: &SaveRulesOutcome) {
    let (Ok(host), SaveRulesOutcome::Saved { sessions, .. }) = (&state.host, outcome) else {
        return;
    };
    host.reload_settings(SettingsReloadTrigger::RulesSaved);
    for problem in host.reload_session_rules(sessions) {
        eprintln!("gatehouse: {problem}");
    }
}

#[tauri::command(async)]
pub(crate) fn undo_rules_save(
    state: State<'_, AppState>,
    rules: State<'_, RulesState>,
    args: UndoRulesSaveArgs,
) -> CommandResult<SaveRulesOutcome> {
    let mut store = store(&state)?;
    let outcome = rules
        .saves
        .undo(&mut store, args.project_id, args.overwrite)
        .map_err(error)?;
    drop(store);
    tell_open_sessions(&state, &outcome);
    Ok(outcome)
}
