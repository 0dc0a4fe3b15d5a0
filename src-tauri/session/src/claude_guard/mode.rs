//! Claude Code's permission mode as an input of the guard's decisions.
//!
//! The hook input says which mode Claude Code is in, and Gatehouse decides
//! in it. Claude Code takes its starting mode from the project's own
//! `permissions.defaultMode` whether or not Gatehouse trusts the project, so
//! an untrusted repository could start every session in `acceptEdits` (or
//! `bypassPermissions`) and have Gatehouse allow what it would ask for. A
//! more permissive mode that the untrusted project's own settings name is
//! therefore not taken: the call is decided in `default`, and the trace says
//! why. (A user who chose that mode in such a project is asked; trusting the
//! project restores it.)

use std::path::Path;

use gatehouse_core::bounded_read::read_text;
use gatehouse_permissions::settings::{MAX_SETTINGS_FILE_BYTES, parse_settings};
use gatehouse_protocol::permission::{PermissionMode, TraceOutcome, TraceStep};

/// The mode Gatehouse decides a call in, from the mode Claude Code
/// reported, and the trace step saying why when it is not that one.
pub(super) fn decision_mode(
    reported: Option<PermissionMode>,
    project: &Path,
    trusted: bool,
) -> (Option<PermissionMode>, Option<TraceStep>) {
    let Some(mode) = reported else {
        return (None, None);
    };
    let widens = matches!(
        mode,
        PermissionMode::AcceptEdits | PermissionMode::BypassPermissions
    );
    if trusted || !widens || !project_default_modes(project).contains(&mode) {
        return (reported, None);
    }
    let step = TraceStep::new(
        "mode",
        TraceOutcome::Passthrough,
        format!(
            "Claude Code is in {mode:?}, which this project's own settings set as defaultMode; \
             the project is not trusted in Gatehouse, so the call is decided in Default"
        ),
    );
    (Some(PermissionMode::Default), Some(step))
}

/// The `permissions.defaultMode` of the project's own settings files
/// (shared and local); unreadable files name none.
fn project_default_modes(project: &Path) -> Vec<PermissionMode> {
    ["settings.json", "settings.local.json"]
        .iter()
        .filter_map(|name| {
            let path = project.join(".claude").join(name);
            let text = read_text(&path, MAX_SETTINGS_FILE_BYTES).ok()??;
            parse_settings(&path, &text).ok()?.default_mode
        })
        .collect()
}
