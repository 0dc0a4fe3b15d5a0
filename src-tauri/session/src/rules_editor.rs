//! The rule editor's back end for the app: a project's rules by source
//! (files through `gatehouse_permissions::editor`, session rules and
//! 30-day decision counts from the store), lint of unsaved edits, the
//! tester, replay over stored calls with progress, save (settings files
//! atomically, session rules in SQLite) with conflict detection, and undo
//! of the last save. The Tauri handlers only map onto these functions.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use gatehouse_permissions::editor::{
    self, EditError, FileWrite, bash_examples, edited_texts, path_preview, plan_save,
    read_rule_file, undo_writes, validate_rule_text, write_files,
};
use gatehouse_permissions::lint::{LintReport, Severity, lint, lint_with_edits};
use gatehouse_permissions::replay::{EditReplayReport, ReplayCall, ReplayRules, replay_edit_calls};
use gatehouse_permissions::rule::{BUILT_IN_TOOLS, parse_rule};
use gatehouse_permissions::sources::{SettingsLayout, load, os_managed_policy_paths};
use gatehouse_protocol::permission::{PermissionDecision, RuleSource};
use gatehouse_protocol::project::Project;
use gatehouse_protocol::rules::{
    ReplayChangedCall, ReplayScope, RuleEdits, RuleFileView, RuleList, RuleProblem, RuleValidation,
    RuleView, RulesReplayReport, RulesView, SaveRulesOutcome, SessionRulesView, TestRuleCallArgs,
};
use gatehouse_store::{CallFilter, RuleDecisionCount, Store, StoreError, StoredCall};

/// Why a rule-editor request failed.
#[derive(Debug, thiserror::Error)]
pub enum RulesEditorError {
    /// A settings file could not be edited, read or written.
    #[error(transparent)]
    Edit(#[from] EditError),
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The request itself is wrong (a session of another project, a
    /// session rule that does not parse, …).
    #[error("{0}")]
    Invalid(String),
}

/// The decision counts shown cover this many days.
const COUNT_DAYS: i64 = 30;

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// The settings files of `project` as a session there reads them (managed
/// policy included; trust as stored).
pub fn project_layout(project: &Project, home: &Path) -> SettingsLayout {
    let mut layout = SettingsLayout::new(&project.path, home).with_os_managed_policy();
    layout.project_trusted = project.trusted_at_ms.is_some();
    layout
}

fn list_of(key: &str) -> Option<RuleList> {
    match key {
        "allow" => Some(RuleList::Allow),
        "ask" => Some(RuleList::Ask),
        "deny" => Some(RuleList::Deny),
        _ => None,
    }
}

fn source_key(source: RuleSource) -> String {
    serde_json::to_value(source)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

fn problems_of(report: LintReport) -> Vec<RuleProblem> {
    report
        .problems
        .into_iter()
        .map(|p| RuleProblem {
            severity: match p.severity {
                Severity::Error => "error".into(),
                Severity::Warning => "warning".into(),
            },
            code: p.code.into(),
            file: p.file.display().to_string(),
            line: p.line,
            column: p.column,
            list: p.list.and_then(list_of),
            rule: p.rule,
            message: p.message,
        })
        .collect()
}

/// Where the rules of one view come from: a settings file, or a session.
#[derive(Clone, Copy)]
enum Origin<'a> {
    File(RuleSource, &'a str),
    Session(&'a str),
}

impl Origin<'_> {
    /// Whether a stored decision's rule came from here (file paths compared
    /// without the rule's position, which the store already dropped).
    fn decided(&self, count: &RuleDecisionCount) -> bool {
        match *self {
            Origin::File(source, path) => {
                count.source == source_key(source) && count.file.as_deref() == Some(path)
            }
            Origin::Session(id) => {
                count.source == source_key(RuleSource::Session)
                    && count.session_id.as_deref() == Some(id)
            }
        }
    }
}

/// The rules of one list with their 30-day counts: the stored decisions
/// each rule made (by its text, from this file or session).
fn rule_views(
    lists: [(RuleList, &[String]); 3],
    counts: &[RuleDecisionCount],
    origin: Origin<'_>,
) -> Vec<RuleView> {
    let mut out = Vec::new();
    for (list, rules) in lists {
        for text in rules {
            let decided_30d = counts
                .iter()
                .filter(|c| c.rule == *text && origin.decided(c))
                .map(|c| c.total)
                .sum();
            out.push(RuleView {
                list,
                text: text.clone(),
                decided_30d,
            });
        }
    }
    out
}

/// Every rule of `project` by source, with 30-day counts, trust, merged
/// mode defaults, additional directories and lint problems. The tool names
/// for completion are the built-in tools, then the MCP tools of the
/// project's stored calls and `live_mcp_tool_names` (the tools its open
/// sessions' servers have now, deferred ones included:
/// [`crate::host::SessionHost::live_mcp_tool_names`]), sorted.
pub fn rules_view(
    store: &Store,
    project: &Project,
    home: &Path,
    can_undo: bool,
    live_mcp_tool_names: &[String],
) -> Result<RulesView, RulesEditorError> {
    let layout = project_layout(project, home);
    let counts = store.rule_decision_counts(
        now_ms() - COUNT_DAYS * 86_400_000,
        Some(project.path.as_str()),
    )?;
    let files = layout
        .files()
        .iter()
        .map(|file| {
            let state = read_rule_file(file);
            let path = file.path.display().to_string();
            RuleFileView {
                rules: rule_views(
                    [
                        (RuleList::Allow, state.lists.allow.as_slice()),
                        (RuleList::Ask, state.lists.ask.as_slice()),
                        (RuleList::Deny, state.lists.deny.as_slice()),
                    ],
                    &counts,
                    Origin::File(file.source, &path),
                ),
                path,
                source: file.source,
                exists: state.text.is_some() || file.path.exists(),
                editable: state.lock_reason.is_none(),
                lock_reason: state.lock_reason,
                fingerprint: state.fingerprint,
                additional_directories: state.lists.additional_directories,
                default_mode: state.default_mode,
            }
        })
        .collect();
    let mut sessions = Vec::new();
    for (session_id, title) in store.sessions_with_rules(&project.path)? {
        let mut by_list: [(RuleList, Vec<String>); 3] = [
            (RuleList::Allow, Vec::new()),
            (RuleList::Ask, Vec::new()),
            (RuleList::Deny, Vec::new()),
        ];
        for row in store.session_rules(&session_id)? {
            if let Some(slot) = by_list
                .iter_mut()
                .find(|(l, _)| list_of(&row.kind) == Some(*l))
            {
                slot.1.push(row.rule);
            }
        }
        let [(_, allow), (_, ask), (_, deny)] = &by_list;
        sessions.push(SessionRulesView {
            rules: rule_views(
                [
                    (RuleList::Allow, allow.as_slice()),
                    (RuleList::Ask, ask.as_slice()),
                    (RuleList::Deny, deny.as_slice()),
                ],
                &counts,
                Origin::Session(&session_id),
            ),
            session_id,
            title,
        });
    }
    let merged = load(&layout);
    let mut tool_names: Vec<String> = BUILT_IN_TOOLS.iter().map(|s| (*s).to_owned()).collect();
    let mut mcp_names = store.stored_mcp_tool_names(Some(&project.path))?;
    mcp_names.extend(live_mcp_tool_names.iter().cloned());
    mcp_names.sort();
    mcp_names.dedup();
    tool_names.extend(mcp_names);
    Ok(RulesView {
        project: project.clone(),
        trusted: layout.project_trusted,
        files,
        sessions,
        default_mode: merged.default_mode,
        bypass_disabled: merged.bypass_disabled,
        managed_rules_only: merged.managed_rules_only,
        additional_directories: merged
            .additional_directories
            .iter()
            .map(|d| d.display().to_string())
            .collect(),
        tool_names,
        problems: problems_of(lint(&layout)),
        can_undo,
    })
}

/// Lint problems of the project's rules with `edits` in place.
pub fn check_edits(
    project: &Project,
    home: &Path,
    edits: &RuleEdits,
) -> Result<Vec<RuleProblem>, RulesEditorError> {
    let layout = project_layout(project, home);
    let texts = edited_texts(&layout, &edits.files)?;
    Ok(problems_of(lint_with_edits(&layout, &texts)))
}

/// A rule as typed: its syntax error with the span, or a path preview over
/// the project's files, or Bash examples.
pub fn validate_rule(project_dir: &Path, text: &str) -> RuleValidation {
    let (mut validation, rule) = validate_rule_text(text);
    if let Some(rule) = rule {
        validation.path_preview = path_preview(project_dir, &rule);
        validation.bash_examples = bash_examples(project_dir, &rule);
    }
    validation
}

/// Decides the tester's call with the project's rules plus unsaved edits.
pub fn test_call(
    project: &Project,
    home: &Path,
    args: &TestRuleCallArgs,
) -> Result<PermissionDecision, RulesEditorError> {
    let layout = project_layout(project, home);
    let texts = edited_texts(&layout, &args.edits.files)?;
    Ok(editor::decide_with_edits(
        &layout,
        &texts,
        &[],
        &args.tool,
        &args.input,
        args.mode,
    ))
}

/// The engine's view of a stored call.
pub fn replay_view(call: &StoredCall) -> ReplayCall<'_> {
    ReplayCall {
        project_dir: Path::new(&call.project_path),
        mode: call.mode,
        tool_name: &call.tool_name,
        input: &call.input,
        session_rules: &call.session_rules,
        original: call.decision,
    }
}

/// Progress is reported every this many calls.
const PROGRESS_EVERY: u64 = 2_000;

/// Re-decides the stored calls in `scope` with the project's saved rules
/// and with those plus `edits`: the report counts what the edit changes
/// (saved → edited) and, apart, what changed since the calls were recorded
/// (recorded → saved). Reports `progress(done, total)` as calls are read.
pub fn replay(
    store: &Store,
    project: &Project,
    home: &Path,
    edits: &RuleEdits,
    scope: &ReplayScope,
    limit: usize,
    mut progress: impl FnMut(u64, u64),
) -> Result<RulesReplayReport, RulesEditorError> {
    let layout = project_layout(project, home);
    let texts = edited_texts(&layout, &edits.files)?;
    let trusted_projects: Vec<PathBuf> = store
        .list_projects()?
        .into_iter()
        .filter(|p| p.trusted_at_ms.is_some())
        .map(|p| PathBuf::from(p.path))
        .collect();
    let (managed_file, managed_dropin_dir) = os_managed_policy_paths();
    let saved = ReplayRules {
        home_dir: home.to_path_buf(),
        managed_file: Some(managed_file),
        managed_dropin_dir: Some(managed_dropin_dir),
        settings_files: Vec::new(),
        edits: HashMap::new(),
        trusted_projects,
    };
    let edited = ReplayRules {
        edits: texts,
        ..saved.clone()
    };
    let project_path = Some(project.path.clone());
    let filter = match scope {
        ReplayScope::All => CallFilter::default(),
        ReplayScope::Project => CallFilter {
            project_path,
            ..CallFilter::default()
        },
        ReplayScope::DateRange { since_ms, until_ms } => CallFilter {
            project_path,
            session_id: None,
            since_ms: *since_ms,
            until_ms: *until_ms,
        },
        ReplayScope::Session { session_id } => CallFilter {
            session_id: Some(session_id.clone()),
            ..CallFilter::default()
        },
    };
    let total = store.count_stored_calls(&filter)?;
    progress(0, total);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
    let mut unreadable = 0;
    let EditReplayReport {
        edit: report,
        since_recorded,
    }: EditReplayReport<StoredCall> =
        replay_edit_calls(&saved, &edited, limit, threads, replay_view, |push| {
            let mut done = 0u64;
            let scan = store.for_each_stored_call(&filter, |call| {
                push(call);
                done += 1;
                if done.is_multiple_of(PROGRESS_EVERY) {
                    progress(done, total.max(done));
                }
            })?;
            unreadable = scan.unreadable;
            progress(scan.calls, total.max(scan.calls));
            Ok::<(), StoreError>(())
        })?;
    Ok(RulesReplayReport {
        total: report.total,
        unchanged: report.unchanged,
        changes: report.changes,
        since_recorded,
        changed_calls: report
            .changed_calls
            .into_iter()
            .map(|c| ReplayChangedCall {
                session_id: c.call.session_id,
                seq: c.call.seq,
                ts_ms: c.call.ts_ms,
                project_path: c.call.project_path,
                mode: c.call.mode,
                tool_name: c.call.tool_name,
                input: c.call.input,
                from: c.from,
                to: c.to,
                recorded: c.call.decision,
                new_reason: c.new_reason,
            })
            .collect(),
        changed_calls_truncated: report.changed_calls_truncated,
        settings_errors: report
            .settings_errors
            .iter()
            .map(ToString::to_string)
            .collect(),
        unreadable_events: unreadable,
    })
}

/// Session rules as (kind, rule) rows.
type SessionRuleRows = Vec<(String, String)>;

/// What one save changed, to undo it.
#[derive(Debug, Clone)]
struct SavedChange {
    files: Vec<FileWrite>,
    /// (session, its rules before the save).
    sessions: Vec<(String, SessionRuleRows)>,
}

/// The last save of each project, for undo.
#[derive(Debug, Default)]
pub struct RuleSaves {
    last: Mutex<HashMap<i64, SavedChange>>,
}

fn stored_rows(store: &Store, session_id: &str) -> Result<SessionRuleRows, RulesEditorError> {
    Ok(store
        .session_rules(session_id)?
        .into_iter()
        .map(|r| (r.kind, r.rule))
        .collect())
}

impl RuleSaves {
    fn last(&self) -> std::sync::MutexGuard<'_, HashMap<i64, SavedChange>> {
        self.last.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether the last save of project `project_id` can be undone.
    pub fn can_undo(&self, project_id: i64) -> bool {
        self.last().contains_key(&project_id)
    }

    /// Saves `edits`: settings files atomically (each file's current text
    /// with only its rule lists replaced), session rules in SQLite. When a
    /// file changed on disk since the editor loaded it, nothing is written
    /// and the files are returned as a conflict, unless `overwrite`.
    pub fn save(
        &self,
        store: &mut Store,
        project: &Project,
        home: &Path,
        edits: &RuleEdits,
        overwrite: bool,
    ) -> Result<SaveRulesOutcome, RulesEditorError> {
        let layout = project_layout(project, home);
        let plan = plan_save(&layout, &edits.files)?;
        if !plan.conflicts.is_empty() && !overwrite {
            return Ok(SaveRulesOutcome::Conflict {
                files: plan
                    .conflicts
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect(),
            });
        }
        let mut session_rows = Vec::new();
        for edit in &edits.sessions {
            let summary = store.session(&edit.session_id)?.ok_or_else(|| {
                RulesEditorError::Invalid(format!("no stored session {}", edit.session_id))
            })?;
            if summary.project_path != project.path {
                return Err(RulesEditorError::Invalid(format!(
                    "session {} belongs to {}, not to {}",
                    edit.session_id, summary.project_path, project.path
                )));
            }
            let mut rows = Vec::new();
            for (kind, rules) in [
                ("allow", &edit.allow),
                ("ask", &edit.ask),
                ("deny", &edit.deny),
            ] {
                for rule in rules {
                    parse_rule(rule).map_err(|e| {
                        RulesEditorError::Invalid(format!(
                            "session {}: the {kind} rule `{rule}` is invalid: {} (at character {})",
                            edit.session_id, e.message, e.column
                        ))
                    })?;
                    rows.push((kind.to_owned(), rule.clone()));
                }
            }
            session_rows.push((edit.session_id.clone(), rows));
        }
        let mut before_sessions = Vec::new();
        for (session_id, _) in &session_rows {
            before_sessions.push((session_id.clone(), stored_rows(store, session_id)?));
        }
        write_files(&plan.writes)?;
        for (session_id, rows) in &session_rows {
            store.replace_session_rules(session_id, rows)?;
        }
        self.last().insert(
            project.id,
            SavedChange {
                files: plan.writes.clone(),
                sessions: before_sessions,
            },
        );
        Ok(SaveRulesOutcome::Saved {
            files: plan
                .writes
                .iter()
                .map(|w| w.path.display().to_string())
                .collect(),
            sessions: session_rows.into_iter().map(|(id, _)| id).collect(),
        })
    }

    /// Restores what the last save of `project_id` replaced. Files changed
    /// on disk since that save are a conflict (nothing restored) unless
    /// `overwrite`.
    pub fn undo(
        &self,
        store: &mut Store,
        project_id: i64,
        overwrite: bool,
    ) -> Result<SaveRulesOutcome, RulesEditorError> {
        let Some(change) = self.last().get(&project_id).cloned() else {
            return Err(RulesEditorError::Invalid(
                "nothing to undo: no rules were saved in this project since the app started".into(),
            ));
        };
        let conflicts = undo_writes(&change.files, overwrite)?;
        if !conflicts.is_empty() {
            return Ok(SaveRulesOutcome::Conflict {
                files: conflicts.iter().map(|p| p.display().to_string()).collect(),
            });
        }
        for (session_id, rows) in &change.sessions {
            store.replace_session_rules(session_id, rows)?;
        }
        self.last().remove(&project_id);
        Ok(SaveRulesOutcome::Saved {
            files: change
                .files
                .iter()
                .map(|w| w.path.display().to_string())
                .collect(),
            sessions: change.sessions.into_iter().map(|(id, _)| id).collect(),
        })
    }
}
