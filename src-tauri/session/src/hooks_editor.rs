//! The Hooks view's back end (issue 18 item 5): every settings-file hook of
//! a project by source and event, which run and why the others do not,
//! one edit at a time written atomically through `gatehouse_hooks::editor`
//! (Claude Code's layout kept, other keys preserved, a file changed on disk
//! since it was read is a conflict), and a test run of a command hook with
//! a sample call. The Tauri handlers only map onto these functions; after a
//! save they tell open sessions (`SessionHost::reload_settings`), whose
//! hooks follow their files.

use std::path::{Path, PathBuf};

use gatehouse_core::bounded_read::{ReadTextError, read_text};
use gatehouse_hooks::config::{LoadedHooks, ParsedHooks, merge, parse_hooks};
use gatehouse_hooks::editor::{HookEdit, edit_file_text, test_command_hook};
use gatehouse_permissions::editor::{
    EditError, FileWrite, MAX_EDITABLE_BYTES, fingerprint, write_files,
};
use gatehouse_permissions::sources::SettingsFileRef;
use gatehouse_protocol::event::{HookEventName, SettingsProblem};
use gatehouse_protocol::hooks::{
    HookEditRequest, HookEntryView, HookFileView, HookSaveOutcome, HookTestOutcome, HookTestResult,
    HooksView, SaveHookEditArgs, TestHookArgs,
};
use gatehouse_protocol::permission::{PermissionBehavior, RuleSource};
use gatehouse_protocol::project::Project;
use serde_json::Value;

use crate::rules_editor::project_layout;

/// Why a Hooks-view request failed.
#[derive(Debug, thiserror::Error)]
pub enum HooksEditorError {
    /// The file could not be written.
    #[error(transparent)]
    Edit(#[from] EditError),
    /// The request cannot be done as asked (a file that is not the
    /// project's, a locked file, an edit that would make a hook invalid).
    #[error("{0}")]
    Invalid(String),
}

/// Every event Gatehouse fires, in the order the add form offers them.
pub const EVENTS: [HookEventName; 9] = [
    HookEventName::PreToolUse,
    HookEventName::PostToolUse,
    HookEventName::PostToolUseFailure,
    HookEventName::PermissionRequest,
    HookEventName::UserPromptSubmit,
    HookEventName::SessionStart,
    HookEventName::SessionEnd,
    HookEventName::Stop,
    HookEventName::Notification,
];

/// One settings file as the Hooks view reads it.
struct FileRead {
    file: SettingsFileRef,
    text: Option<String>,
    lock_reason: Option<String>,
}

fn read_file(file: &SettingsFileRef) -> FileRead {
    let mut out = FileRead {
        file: file.clone(),
        text: None,
        lock_reason: None,
    };
    let mut lock = |why: String| {
        if out.lock_reason.is_none() {
            out.lock_reason = Some(why);
        }
    };
    if file.source == RuleSource::Policy {
        lock("managed policy: set by your organisation; Gatehouse never changes it".into());
    }
    match read_text(&file.path, MAX_EDITABLE_BYTES) {
        Ok(None) => {}
        Ok(Some(text)) => {
            if std::fs::metadata(&file.path).is_ok_and(|meta| meta.permissions().readonly()) {
                lock("the file is read-only; make it writable to edit its hooks".into());
            }
            if !text.trim().is_empty()
                && let Err(e) = serde_json::from_str::<Value>(&text)
            {
                lock(format!("not valid JSON ({e}); fix it by hand, then reload"));
            }
            out.text = Some(text);
        }
        Err(ReadTextError::TooLarge { size, .. }) => lock(format!(
            "the file is {size} bytes; the editor changes settings files up to {MAX_EDITABLE_BYTES} bytes"
        )),
        Err(e) => lock(format!("the file {e}")),
    }
    out
}

fn problem(e: &gatehouse_permissions::settings::SettingsError) -> SettingsProblem {
    SettingsProblem {
        file: e.file.display().to_string(),
        line: u32::try_from(e.line).unwrap_or(u32::MAX),
        column: u32::try_from(e.column).unwrap_or(u32::MAX),
        message: e.cause.clone(),
        loses_restrictions: e.loses_restrictions,
    }
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The handler object at `hooks.<event>[group].hooks[index]` of `root`.
fn definition(root: &Value, event: &str, group: usize, index: usize) -> Value {
    root.get("hooks")
        .and_then(|h| h.get(event))
        .and_then(|g| g.get(group))
        .and_then(|g| g.get("hooks"))
        .and_then(|h| h.get(index))
        .cloned()
        .unwrap_or(Value::Null)
}

/// Every hook of `project`'s settings files by source, whether each runs
/// in its sessions (trust and managed policy applied as a session does),
/// and the malformed entries with file, line and column.
pub fn hooks_view(project: &Project, home: &Path) -> HooksView {
    let layout = project_layout(project, home);
    let reads: Vec<FileRead> = layout.files().iter().map(read_file).collect();
    let parsed: Vec<(RuleSource, ParsedHooks)> = reads
        .iter()
        .map(|r| {
            let hooks = r
                .text
                .as_deref()
                .map(|t| parse_hooks(&r.file.path, r.file.source, t))
                .unwrap_or_default();
            (r.file.source, hooks)
        })
        .collect();
    let merged: LoadedHooks = merge(layout.project_trusted, parsed);
    let files = reads
        .iter()
        .map(|r| {
            let root: Value = r
                .text
                .as_deref()
                .and_then(|t| serde_json::from_str(t).ok())
                .unwrap_or(Value::Null);
            let active = merged
                .active
                .iter()
                .filter(|h| h.file == r.file.path)
                .map(|h| (h, None));
            let ignored = merged
                .ignored
                .iter()
                .filter(|i| i.hook.file == r.file.path)
                .map(|i| (&i.hook, Some(i.reason)));
            let mut hooks: Vec<HookEntryView> = active
                .chain(ignored)
                .map(|(h, not_run)| HookEntryView {
                    event: h.event.name(),
                    group: to_u32(h.group),
                    index: to_u32(h.index),
                    matcher: h.matcher.clone(),
                    handler: h.handler.kind(),
                    command: h.handler.display(),
                    if_rule: h.if_rule.clone(),
                    timeout_secs: h.timeout.as_secs_f64(),
                    enabled: h.enabled,
                    runs: not_run.is_none(),
                    not_run,
                    definition: definition(&root, &h.event.name(), h.group, h.index),
                    line: to_u32(h.position.line),
                    column: to_u32(h.position.column),
                })
                .collect();
            hooks.sort_by(|a, b| (&a.event, a.group, a.index).cmp(&(&b.event, b.group, b.index)));
            HookFileView {
                path: r.file.path.display().to_string(),
                source: r.file.source,
                exists: r.text.is_some() || r.file.path.exists(),
                editable: r.lock_reason.is_none(),
                lock_reason: r.lock_reason.clone(),
                fingerprint: fingerprint(r.text.as_deref()),
                hooks,
            }
        })
        .collect();
    HooksView {
        project: project.clone(),
        trusted: layout.project_trusted,
        files,
        problems: merged
            .errors
            .iter()
            .chain(&merged.warnings)
            .map(problem)
            .collect(),
        events: EVENTS.to_vec(),
    }
}

fn index(n: u32) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// The group's matcher now, to tell a replace from a move.
fn current_matcher(text: Option<&str>, event: &str, group: usize) -> Option<String> {
    let root: Value = serde_json::from_str(text?).ok()?;
    root.get("hooks")?
        .get(event)?
        .get(group)?
        .get("matcher")?
        .as_str()
        .map(str::to_owned)
}

/// The editor's edits for one request: a replace under another event or
/// matcher is a remove and an add.
fn edits_of(request: &HookEditRequest, text: Option<&str>) -> Vec<HookEdit> {
    match request.clone() {
        HookEditRequest::Add {
            event,
            matcher,
            handler,
        } => vec![HookEdit::Add {
            event,
            matcher,
            handler,
        }],
        HookEditRequest::Replace {
            event,
            group,
            index: i,
            new_event,
            matcher,
            handler,
        } => {
            let (group, i) = (index(group), index(i));
            if new_event == event && current_matcher(text, &event, group) == matcher {
                vec![HookEdit::Replace {
                    event,
                    group,
                    index: i,
                    handler,
                }]
            } else {
                vec![
                    HookEdit::Remove {
                        event,
                        group,
                        index: i,
                    },
                    HookEdit::Add {
                        event: new_event,
                        matcher,
                        handler,
                    },
                ]
            }
        }
        HookEditRequest::Remove {
            event,
            group,
            index: i,
        } => vec![HookEdit::Remove {
            event,
            group: index(group),
            index: index(i),
        }],
        HookEditRequest::SetEnabled {
            event,
            group,
            index: i,
            enabled,
        } => vec![HookEdit::SetEnabled {
            event,
            group: index(group),
            index: index(i),
            enabled,
        }],
    }
}

/// Writes one hook edit to one of `project`'s settings files: refused with
/// a message when the file is not the project's or is locked, or when the
/// result would hold a malformed hook; a conflict (nothing written) when
/// the file changed since `args.fingerprint` was read, unless
/// `args.overwrite`. Every other key of the file and its layout are kept.
pub fn save_edit(
    project: &Project,
    home: &Path,
    args: &SaveHookEditArgs,
) -> Result<HookSaveOutcome, HooksEditorError> {
    let layout = project_layout(project, home);
    let file = layout
        .files()
        .into_iter()
        .find(|f| f.path.display().to_string() == args.file)
        .ok_or_else(|| {
            HooksEditorError::Invalid(format!(
                "{}: not a settings file of the project {}",
                args.file, project.path
            ))
        })?;
    let read = read_file(&file);
    if let Some(why) = &read.lock_reason {
        return Err(HooksEditorError::Invalid(format!(
            "{}: {why}",
            file.path.display()
        )));
    }
    if !args.overwrite && fingerprint(read.text.as_deref()) != args.fingerprint {
        return Ok(HookSaveOutcome::Conflict {
            file: args.file.clone(),
            view: hooks_view(project, home),
        });
    }
    let mut text = read.text.clone();
    for edit in edits_of(&args.edit, read.text.as_deref()) {
        let next = edit_file_text(&file.path, text.as_deref(), &edit)
            .map_err(|e| HooksEditorError::Invalid(format!("{}: {e}", file.path.display())))?;
        text = Some(next);
    }
    let after = text.unwrap_or_default();
    write_files(&[FileWrite {
        path: PathBuf::from(&file.path),
        before: read.text,
        after,
    }])?;
    Ok(HookSaveOutcome::Saved {
        view: hooks_view(project, home),
    })
}

/// Runs the command hook `args.handler` once in `project_dir` with the
/// sample call, as a session would (stdin JSON, process group, caps,
/// timeout), and reads its answer. HTTP hooks are refused with a message
/// (they are tested by a session or `gatehouse-cli check --run-hooks`).
pub async fn test_hook(
    project_dir: &Path,
    args: &TestHookArgs,
) -> Result<HookTestResult, HooksEditorError> {
    let run = test_command_hook(
        &args.handler,
        args.event,
        &args.tool_name,
        &args.tool_input,
        project_dir,
    )
    .await
    .map_err(HooksEditorError::Invalid)?;
    let r = run.response;
    Ok(HookTestResult {
        stdin: serde_json::to_string_pretty(&run.stdin).unwrap_or_else(|_| run.stdin.to_string()),
        stdout: run.stdout,
        stderr: run.stderr,
        exit_code: run.exit_code,
        signal: run.signal,
        timed_out: run.timed_out,
        duration_ms: u64::try_from(run.duration.as_millis()).unwrap_or(u64::MAX),
        outcome: HookTestOutcome {
            decision: r.decision.map(PermissionBehavior::from),
            blocked: r.block.is_some(),
            message: r.block.or(r.reason).or(r.stop),
            additional_context: r.additional_context,
            updated_input: r.updated_input,
            system_message: r.system_message,
            error: r.error,
        },
    })
}
