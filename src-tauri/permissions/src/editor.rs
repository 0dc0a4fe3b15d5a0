//! The rule editor's file side: reading each settings file's rule lists,
//! rewriting only those lists in a file's text (every other key and the
//! layout kept), detecting a file changed on disk since it was loaded,
//! writing atomically, validating a rule as typed (with a path preview or
//! Bash examples decided by the real matcher) and deciding a call with
//! unsaved edits.
//!
//! The editor sends whole lists per file ([`RuleFileEdit`]); the text of a
//! file with the edits applied is what the engine, the linter and a replay
//! read in place of the file ([`crate::sources::load_with_edits`]) and what
//! a save writes.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

use gatehouse_core::bounded_read::{ReadTextError, read_text};
use gatehouse_protocol::permission::{
    DecisionReason, PermissionDecision, PermissionMode, RuleSource,
};
use gatehouse_protocol::rules::{
    BashExamples, PathPreview, RuleFileEdit, RuleSyntaxError, RuleValidation,
};
use serde_json::{Value, json};

use crate::engine::{EngineContext, PermissionEngine};
use crate::rule::{EDIT_TOOLS, Rule, RuleKind, Specifier, ToolMatcher, parse_rule};
use crate::settings::{locate, parse_settings};
use crate::sources::{LoadedSettings, SettingsFileRef, SettingsLayout, SourcedRule};
use crate::writeback::{indent_at, insert_member, write_atomically};

/// Settings files larger than this are shown but not edited (a settings
/// file is a few kilobytes; a huge one is not something to rewrite from a
/// form).
pub const MAX_EDITABLE_BYTES: u64 = 1 << 20;

/// The keys of `permissions` the editor rewrites.
const LIST_KEYS: [&str; 4] = ["allow", "ask", "deny", "additionalDirectories"];

/// Why an edit could not be applied or written.
#[derive(Debug, thiserror::Error)]
pub enum EditError {
    /// The edit names a file that is not one of the project's editable
    /// settings files (or is managed policy).
    #[error("{0}: not an editable settings file of this project")]
    NotEditable(PathBuf),
    /// The file cannot be edited as it is (malformed, too large, …).
    #[error("{path}: {why}")]
    Locked {
        /// The file.
        path: PathBuf,
        /// Why.
        why: String,
    },
    /// A rule in the edit does not parse.
    #[error("{path}: the {list} rule `{rule}` is invalid: {message} (at character {column})")]
    InvalidRule {
        /// The file.
        path: PathBuf,
        /// The list.
        list: &'static str,
        /// The rule.
        rule: String,
        /// The parser's message.
        message: String,
        /// 1-based character column.
        column: usize,
    },
    /// Reading or writing failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The failure.
        source: std::io::Error,
    },
    /// The rewritten text did not hold exactly the requested lists and
    /// every other key (a bug): nothing was written.
    #[error(
        "internal error rewriting {0}: the result did not keep the file's other keys or lacked a rule; nothing was written"
    )]
    Verification(PathBuf),
}

/// A file's text as a fingerprint, to notice it changed on disk since it
/// was loaded (empty for a file that does not exist).
pub fn fingerprint(text: Option<&str>) -> String {
    match text {
        None => String::new(),
        Some(text) => {
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            text.hash(&mut hasher);
            format!("{:016x}-{}", hasher.finish(), text.len())
        }
    }
}

/// The rule lists of one settings file as written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RuleLists {
    /// `permissions.allow`.
    pub allow: Vec<String>,
    /// `permissions.ask`.
    pub ask: Vec<String>,
    /// `permissions.deny`.
    pub deny: Vec<String>,
    /// `permissions.additionalDirectories`.
    pub additional_directories: Vec<String>,
}

impl RuleLists {
    fn by_key(&self, key: &str) -> &[String] {
        match key {
            "allow" => &self.allow,
            "ask" => &self.ask,
            "deny" => &self.deny,
            _ => &self.additional_directories,
        }
    }

    /// The lists of an edit.
    pub fn of_edit(edit: &RuleFileEdit) -> Self {
        RuleLists {
            allow: edit.allow.clone(),
            ask: edit.ask.clone(),
            deny: edit.deny.clone(),
            additional_directories: edit.additional_directories.clone(),
        }
    }
}

/// One settings file as the editor sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleFileState {
    /// The file and its source.
    pub file: SettingsFileRef,
    /// Its text, when it exists and could be read.
    pub text: Option<String>,
    /// Why the editor may not change it, if it may not.
    pub lock_reason: Option<String>,
    /// [`fingerprint`] of the text.
    pub fingerprint: String,
    /// Its lists (empty when it cannot be read).
    pub lists: RuleLists,
    /// `permissions.defaultMode`, if set and valid.
    pub default_mode: Option<PermissionMode>,
}

/// Reads the raw lists of `text`; an error says which entry is not a string.
fn read_lists(text: &str) -> Result<RuleLists, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| format!("invalid JSON: {e}"))?;
    let mut lists = RuleLists::default();
    let Some(perms) = value.get("permissions") else {
        return Ok(lists);
    };
    if !perms.is_object() {
        return Err("`permissions` is not an object".into());
    }
    for key in LIST_KEYS {
        let Some(list) = perms.get(key) else { continue };
        let Some(items) = list.as_array() else {
            return Err(format!("`permissions.{key}` is not a list"));
        };
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            match item.as_str() {
                Some(s) => out.push(s.to_string()),
                None => {
                    return Err(format!(
                        "`permissions.{key}[{i}]` is not a string; edit the file by hand"
                    ));
                }
            }
        }
        match key {
            "allow" => lists.allow = out,
            "ask" => lists.ask = out,
            "deny" => lists.deny = out,
            _ => lists.additional_directories = out,
        }
    }
    Ok(lists)
}

/// Reads one settings file for the editor. Managed policy, read-only,
/// over-large, unreadable and malformed files are shown locked with the
/// reason.
pub fn read_rule_file(file: &SettingsFileRef) -> RuleFileState {
    let mut state = RuleFileState {
        file: file.clone(),
        text: None,
        lock_reason: None,
        fingerprint: String::new(),
        lists: RuleLists::default(),
        default_mode: None,
    };
    let lock = |state: &mut RuleFileState, why: String| {
        if state.lock_reason.is_none() {
            state.lock_reason = Some(why);
        }
    };
    if file.source == RuleSource::Policy {
        lock(
            &mut state,
            "managed policy: set by your organisation; Gatehouse never changes it".into(),
        );
    }
    let text = match read_text(&file.path, MAX_EDITABLE_BYTES) {
        Ok(Some(text)) => text,
        Ok(None) => return state,
        Err(ReadTextError::TooLarge { size, .. }) => {
            lock(
                &mut state,
                format!(
                    "the file is {size} bytes; the editor changes settings files up to {MAX_EDITABLE_BYTES} bytes"
                ),
            );
            return state;
        }
        Err(e) => {
            lock(&mut state, format!("the file {e}"));
            return state;
        }
    };
    if std::fs::metadata(&file.path).is_ok_and(|meta| meta.permissions().readonly()) {
        lock(
            &mut state,
            "the file is read-only; make it writable to edit its rules".into(),
        );
    }
    state.fingerprint = fingerprint(Some(&text));
    match parse_settings(&file.path, &text) {
        Err(e) => lock(
            &mut state,
            format!("malformed ({e}); fix it by hand, then reload"),
        ),
        Ok(parsed) => {
            state.default_mode = parsed.default_mode;
            if let Some(e) = parsed.errors.iter().find(|e| e.cause.contains("duplicate")) {
                lock(&mut state, format!("{e}; fix it by hand, then reload"));
            }
        }
    }
    match read_lists(&text) {
        Ok(lists) => state.lists = lists,
        Err(why) => lock(&mut state, why),
    }
    state.text = Some(text);
    state
}

/// `values` as a JSON array laid out below a key indented by `indent`.
fn format_array(values: &[String], indent: &str) -> String {
    if values.is_empty() {
        return "[]".into();
    }
    let items: Vec<String> = values
        .iter()
        .map(|v| format!("{indent}  {}", json!(v)))
        .collect();
    format!("[\n{}\n{indent}]", items.join(",\n"))
}

/// Sets `permissions.<key>` in `text` to `values`, keeping the rest.
fn set_list(text: &str, key: &str, values: &[String]) -> Option<String> {
    let spans = locate::scan(text);
    if let Some(span) = spans.get(&["permissions", key]) {
        let indent = indent_at(text, span.start);
        return Some(format!(
            "{}{}{}",
            &text[..span.start],
            format_array(values, indent),
            &text[span.end..]
        ));
    }
    if values.is_empty() {
        return Some(text.to_string());
    }
    let literal = Value::from(values.to_vec()).to_string();
    if let Some(perms) = spans.get(&["permissions"]) {
        return insert_member(
            text,
            perms.start,
            perms.end,
            &format!("\"{key}\": {literal}"),
        );
    }
    let root = spans.get(&[])?;
    insert_member(
        text,
        root.start,
        root.end,
        &format!("\"permissions\": {{\"{key}\": {literal}}}"),
    )
}

/// The text of a new settings file holding `lists`.
fn new_file_text(lists: &RuleLists) -> String {
    let mut perms = serde_json::Map::new();
    for key in LIST_KEYS {
        let values = lists.by_key(key);
        if !values.is_empty() {
            perms.insert(key.into(), Value::from(values.to_vec()));
        }
    }
    let text = serde_json::to_string_pretty(&json!({ "permissions": perms }))
        .unwrap_or_else(|_| "{}".into());
    format!("{text}\n")
}

/// Every value of `v` except the editor's lists.
fn without_lists(mut v: Value) -> Value {
    if let Some(perms) = v.get_mut("permissions").and_then(Value::as_object_mut) {
        for key in LIST_KEYS {
            perms.remove(key);
        }
        if perms.is_empty()
            && let Some(root) = v.as_object_mut()
        {
            root.remove("permissions");
        }
    }
    v
}

/// The text of the settings file at `path` (now `current`, `None` when it
/// does not exist) with its lists replaced by `lists`. Every rule must
/// parse; the result is checked to hold exactly `lists` and every other
/// key of `current`.
pub fn apply_lists(
    path: &Path,
    current: Option<&str>,
    lists: &RuleLists,
) -> Result<String, EditError> {
    for (list, values) in [
        ("allow", &lists.allow),
        ("ask", &lists.ask),
        ("deny", &lists.deny),
    ] {
        for rule in values {
            if let Err(e) = parse_rule(rule) {
                return Err(EditError::InvalidRule {
                    path: path.to_path_buf(),
                    list,
                    rule: rule.clone(),
                    message: e.message,
                    column: e.column,
                });
            }
        }
    }
    let new_text = match current {
        Some(text) if !text.trim().is_empty() => {
            if let Err(e) = parse_settings(path, text) {
                return Err(EditError::Locked {
                    path: path.to_path_buf(),
                    why: format!("malformed ({e}); fix it by hand, then reload"),
                });
            }
            let mut out = text.to_string();
            for key in LIST_KEYS {
                out = set_list(&out, key, lists.by_key(key))
                    .ok_or_else(|| EditError::Verification(path.to_path_buf()))?;
            }
            out
        }
        _ => new_file_text(lists),
    };
    // Verify: the lists are exactly those asked for, and nothing else moved.
    let verified = read_lists(&new_text).ok().as_ref() == Some(lists)
        && parse_settings(path, &new_text).is_ok()
        && match current.filter(|t| !t.trim().is_empty()) {
            None => true,
            Some(before) => {
                let before: Option<Value> = serde_json::from_str(before).ok();
                let after: Option<Value> = serde_json::from_str(&new_text).ok();
                before.map(without_lists) == after.map(without_lists)
            }
        };
    if !verified {
        return Err(EditError::Verification(path.to_path_buf()));
    }
    Ok(new_text)
}

/// The editable settings file `path` names in `layout`, if it is one.
fn editable_file(layout: &SettingsLayout, path: &Path) -> Option<SettingsFileRef> {
    layout
        .files()
        .into_iter()
        .find(|f| f.path == path && f.source != RuleSource::Policy)
}

fn read_current(path: &Path) -> Result<Option<String>, EditError> {
    read_text(path, MAX_EDITABLE_BYTES).map_err(|e| EditError::Io {
        path: path.to_path_buf(),
        source: match e {
            ReadTextError::Io(source) => source,
            other => std::io::Error::other(other.to_string()),
        },
    })
}

/// The texts to read in place of the edited files (for the engine, the
/// linter and replays): each file as on disk now with its lists replaced.
pub fn edited_texts(
    layout: &SettingsLayout,
    edits: &[RuleFileEdit],
) -> Result<HashMap<PathBuf, String>, EditError> {
    let mut out = HashMap::new();
    for edit in edits {
        let path = PathBuf::from(&edit.path);
        editable_file(layout, &path).ok_or_else(|| EditError::NotEditable(path.clone()))?;
        let current = read_current(&path)?;
        let text = apply_lists(&path, current.as_deref(), &RuleLists::of_edit(edit))?;
        out.insert(path, text);
    }
    Ok(out)
}

/// One planned write: the file, what it holds now and what it will hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileWrite {
    /// The file.
    pub path: PathBuf,
    /// Its text now (`None`: it does not exist).
    pub before: Option<String>,
    /// The text to write.
    pub after: String,
}

/// What saving edits would write, or which files changed on disk since
/// they were loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SavePlan {
    /// The writes.
    pub writes: Vec<FileWrite>,
    /// Files whose text is no longer what the editor loaded.
    pub conflicts: Vec<PathBuf>,
}

/// Plans saving `edits`: each file's current text with its lists replaced
/// (so a file changed on disk keeps its other changes even when the user
/// overwrites), and the files that changed since they were loaded.
pub fn plan_save(layout: &SettingsLayout, edits: &[RuleFileEdit]) -> Result<SavePlan, EditError> {
    let mut plan = SavePlan {
        writes: Vec::new(),
        conflicts: Vec::new(),
    };
    for edit in edits {
        let path = PathBuf::from(&edit.path);
        let file =
            editable_file(layout, &path).ok_or_else(|| EditError::NotEditable(path.clone()))?;
        let state = read_rule_file(&file);
        if let Some(why) = &state.lock_reason {
            return Err(EditError::Locked {
                path,
                why: why.clone(),
            });
        }
        if state.fingerprint != edit.base_fingerprint {
            plan.conflicts.push(path.clone());
        }
        let after = apply_lists(&path, state.text.as_deref(), &RuleLists::of_edit(edit))?;
        if state.text.as_deref() != Some(after.as_str()) {
            plan.writes.push(FileWrite {
                path,
                before: state.text,
                after,
            });
        }
    }
    Ok(plan)
}

/// Performs `writes` (each atomically; a file's folder is created when
/// needed). Stops at the first failure, naming the file; files written
/// before it stay written (the caller offers undo for those).
pub fn write_files(writes: &[FileWrite]) -> Result<(), EditError> {
    for write in writes {
        let io = |source| EditError::Io {
            path: write.path.clone(),
            source,
        };
        if let Some(dir) = write.path.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        write_atomically(&write.path, &write.after).map_err(io)?;
    }
    Ok(())
}

/// Undoes `writes`: restores each file's `before` (removing files the save
/// created). Files whose text is no longer what was written are returned
/// as conflicts and nothing is touched, unless `overwrite`.
pub fn undo_writes(writes: &[FileWrite], overwrite: bool) -> Result<Vec<PathBuf>, EditError> {
    let mut conflicts = Vec::new();
    for write in writes {
        if read_current(&write.path)?.as_deref() != Some(write.after.as_str()) {
            conflicts.push(write.path.clone());
        }
    }
    if !conflicts.is_empty() && !overwrite {
        return Ok(conflicts);
    }
    for write in writes {
        match &write.before {
            Some(text) => write_atomically(&write.path, text),
            None => match std::fs::remove_file(&write.path) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
                other => other,
            },
        }
        .map_err(|source| EditError::Io {
            path: write.path.clone(),
            source,
        })?;
    }
    Ok(Vec::new())
}

/// Decides a call with the settings of `layout` plus unsaved `edits`
/// (texts from [`edited_texts`]) in `mode`, with the full trace.
pub fn decide_with_edits(
    layout: &SettingsLayout,
    edits: &HashMap<PathBuf, String>,
    session_rules: &[(RuleKind, String)],
    tool: &str,
    input: &Value,
    mode: PermissionMode,
) -> PermissionDecision {
    let settings = crate::sources::load_with_edits(layout, edits);
    let engine = PermissionEngine::new(
        EngineContext {
            cwd: layout.project_dir.clone(),
            home: layout.home_dir.clone(),
            additional_dirs: Vec::new(),
            mode,
        },
        settings,
    );
    for (kind, rule) in session_rules {
        // A session rule that does not parse is left out of the test (the
        // editor shows its error); leaving out a deny would make the test
        // laxer than a session, so such a deny makes the test ask.
        if engine.add_session_rule(*kind, rule).is_err() && *kind != RuleKind::Allow {
            return PermissionDecision {
                decision: gatehouse_protocol::permission::PermissionBehavior::Ask,
                reason: DecisionReason::Default {
                    message: format!("the session {} rule `{rule}` does not parse", kind.key()),
                },
                trace: Vec::new(),
            };
        }
    }
    engine.decide_input(tool, input)
}

/// Parses a rule as typed: the parser's error with the span to highlight,
/// or the tool it names.
pub fn validate_rule_text(text: &str) -> (RuleValidation, Option<Rule>) {
    match parse_rule(text) {
        Err(e) => {
            let chars = text.chars().count();
            // An error past the end (a missing `)`) marks the last
            // character, so there is always something to highlight.
            let start = e.column.saturating_sub(1).min(chars.saturating_sub(1));
            let end = (start + 1).min(chars);
            (
                RuleValidation {
                    error: Some(RuleSyntaxError {
                        message: e.message,
                        column: e.column,
                        start,
                        end,
                    }),
                    tool: None,
                    path_preview: None,
                    bash_examples: None,
                },
                None,
            )
        }
        Ok(rule) => {
            let tool = match &rule.tool {
                ToolMatcher::Exact(name) | ToolMatcher::McpServer(name) => name.clone(),
            };
            (
                RuleValidation {
                    error: None,
                    tool: Some(tool),
                    path_preview: None,
                    bash_examples: None,
                },
                Some(rule),
            )
        }
    }
}

/// An engine holding `rule` alone, as a deny rule: whether a call matches
/// it is whether the decision names it.
fn single_rule_engine(project_dir: &Path, rule: &Rule) -> PermissionEngine {
    let mut settings = LoadedSettings::default();
    settings.rules.push(SourcedRule {
        rule: rule.clone(),
        kind: RuleKind::Deny,
        source: RuleSource::Project,
        file: None,
        line: 0,
        column: 0,
        settings_root: Some(project_dir.to_path_buf()),
    });
    PermissionEngine::new(
        EngineContext {
            cwd: project_dir.to_path_buf(),
            home: crate::sources::home_dir(),
            additional_dirs: Vec::new(),
            mode: PermissionMode::Default,
        },
        settings,
    )
}

fn matches_rule(decision: &PermissionDecision, rule: &Rule) -> bool {
    matches!(&decision.reason, DecisionReason::Rule { rule: r, .. } if *r == rule.text)
}

/// Files walked at most for a path preview.
const PREVIEW_MAX_FILES: usize = 5_000;
/// Matches listed at most.
const PREVIEW_MAX_MATCHES: usize = 50;

/// For a path rule (`Read(...)`, `Edit(...)`): the project's files the
/// pattern matches, decided by the engine itself. Skips `.git`,
/// `node_modules` and `target`; stops after [`PREVIEW_MAX_FILES`] files.
pub fn path_preview(project_dir: &Path, rule: &Rule) -> Option<PathPreview> {
    let Specifier::Path(_) = &rule.specifier else {
        return None;
    };
    let ToolMatcher::Exact(tool) = &rule.tool else {
        return None;
    };
    let probe_tool = if EDIT_TOOLS.contains(&tool.as_str()) {
        "Edit"
    } else {
        "Read"
    };
    let engine = single_rule_engine(project_dir, rule);
    let mut preview = PathPreview {
        matches: Vec::new(),
        scanned: 0,
        truncated: false,
    };
    let mut stack = vec![project_dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
        entries.sort_by_key(|e| std::cmp::Reverse(e.file_name()));
        for entry in entries {
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                let name = entry.file_name();
                if !matches!(name.to_str(), Some(".git" | "node_modules" | "target")) {
                    stack.push(path);
                }
                continue;
            }
            if preview.scanned >= PREVIEW_MAX_FILES {
                preview.truncated = true;
                return Some(preview);
            }
            preview.scanned += 1;
            let input = json!({
                "file_path": path.to_string_lossy(),
                "old_string": "a",
                "new_string": "b",
            });
            if matches_rule(&engine.decide_input(probe_tool, &input), rule) {
                if preview.matches.len() >= PREVIEW_MAX_MATCHES {
                    preview.truncated = true;
                    return Some(preview);
                }
                let shown = path.strip_prefix(project_dir).unwrap_or(&path);
                preview.matches.push(shown.to_string_lossy().into_owned());
            }
        }
    }
    Some(preview)
}

/// For a Bash rule: example commands built from its pattern, sorted by
/// whether the real matcher matches them.
pub fn bash_examples(project_dir: &Path, rule: &Rule) -> Option<BashExamples> {
    let (ToolMatcher::Exact(tool), Specifier::Command(_)) = (&rule.tool, &rule.specifier) else {
        return None;
    };
    if tool != "Bash" {
        return None;
    }
    let inner = rule
        .text
        .find('(')
        .and_then(|open| rule.text.rfind(')').map(|close| (open, close)))
        .and_then(|(open, close)| rule.text.get(open + 1..close))
        .unwrap_or("");
    let base = inner
        .trim_end_matches(":*")
        .trim_end_matches('*')
        .replace('*', "x")
        .trim()
        .to_string();
    let first_word = base.split_whitespace().next().unwrap_or("").to_string();
    let mut candidates = vec![
        base.clone(),
        format!("{base} --help"),
        format!("{base} src/main.rs"),
        format!("{base}x"),
        first_word.clone(),
        format!("{first_word}x"),
        format!("echo done && {base}"),
        format!("sudo {base}"),
        "echo hello".to_string(),
    ];
    candidates.retain(|c| !c.trim().is_empty());
    let mut seen = std::collections::HashSet::new();
    candidates.retain(|c| seen.insert(c.clone()));
    let engine = single_rule_engine(project_dir, rule);
    let mut examples = BashExamples {
        matching: Vec::new(),
        not_matching: Vec::new(),
    };
    for command in candidates {
        let decision = engine.decide_input("Bash", &json!({ "command": command }));
        let list = if matches_rule(&decision, rule) {
            &mut examples.matching
        } else {
            &mut examples.not_matching
        };
        if list.len() < 4 {
            list.push(command);
        }
    }
    Some(examples)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lists(allow: &[&str], deny: &[&str]) -> RuleLists {
        RuleLists {
            allow: allow.iter().map(|s| s.to_string()).collect(),
            deny: deny.iter().map(|s| s.to_string()).collect(),
            ..RuleLists::default()
        }
    }

    #[test]
    fn rewriting_lists_keeps_every_other_key_and_the_layout() {
        let before = "{\n  \"model\": \"opus\",\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(ls)\"\n    ],\n    \"defaultMode\": \"plan\"\n  },\n  \"hooks\": {\"PreToolUse\": []}\n}\n";
        let after = apply_lists(
            Path::new("/p/.claude/settings.json"),
            Some(before),
            &lists(&["Bash(ls)", "Read"], &["Bash(rm:*)"]),
        )
        .unwrap();
        assert!(after.starts_with("{\n  \"model\": \"opus\",\n"), "{after}");
        assert!(after.contains("\"hooks\": {\"PreToolUse\": []}"), "{after}");
        assert!(
            after.contains("\"allow\": [\n      \"Bash(ls)\",\n      \"Read\"\n    ]"),
            "{after}"
        );
        let v: Value = serde_json::from_str(&after).unwrap();
        assert_eq!(v["permissions"]["deny"], json!(["Bash(rm:*)"]));
        assert_eq!(v["permissions"]["defaultMode"], json!("plan"));
    }

    #[test]
    fn removing_every_rule_leaves_empty_lists_and_new_files_are_created() {
        let before = r#"{"permissions": {"deny": ["Bash(rm:*)"]}, "x": 1}"#;
        let after = apply_lists(Path::new("/s.json"), Some(before), &RuleLists::default()).unwrap();
        let v: Value = serde_json::from_str(&after).unwrap();
        assert_eq!(v["permissions"]["deny"], json!([]));
        assert_eq!(v["x"], json!(1));
        let created = apply_lists(Path::new("/s.json"), None, &lists(&[], &["WebFetch"])).unwrap();
        let v: Value = serde_json::from_str(&created).unwrap();
        assert_eq!(v, json!({"permissions": {"deny": ["WebFetch"]}}));
    }

    #[test]
    fn invalid_rules_and_malformed_files_are_refused_with_the_place() {
        let err = apply_lists(Path::new("/s.json"), None, &lists(&[], &["Bash(rm"])).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("deny rule `Bash(rm`"), "{text}");
        let err = apply_lists(
            Path::new("/s.json"),
            Some("{\"permissions\": "),
            &lists(&["Read"], &[]),
        )
        .unwrap_err();
        assert!(err.to_string().contains("malformed"), "{err}");
    }

    #[test]
    fn every_syntax_error_has_a_span_inside_the_text() {
        for bad in [
            "",
            "Bash(",
            "Bash()",
            "Bash(ls) x",
            "Ba sh",
            "WebFetch(example.com)",
            "(x)",
        ] {
            let (v, rule) = validate_rule_text(bad);
            let e = v
                .error
                .unwrap_or_else(|| panic!("{bad:?} should not parse"));
            assert!(rule.is_none());
            assert!(
                e.start <= e.end && e.end <= bad.chars().count(),
                "{bad:?}: {e:?}"
            );
            assert!(!e.message.is_empty());
        }
        let (v, _) = validate_rule_text("bash(npm test:*)");
        assert_eq!(v.tool.as_deref(), Some("Bash"));
    }

    #[test]
    fn bash_examples_are_sorted_by_the_real_matcher() {
        let rule = parse_rule("Bash(npm test:*)").unwrap();
        let ex = bash_examples(Path::new("/tmp"), &rule).unwrap();
        assert!(ex.matching.contains(&"npm test".to_string()), "{ex:?}");
        assert!(
            ex.matching.contains(&"npm test --help".to_string()),
            "{ex:?}"
        );
        assert!(ex.not_matching.contains(&"npm testx".to_string()), "{ex:?}");
        assert!(ex.not_matching.contains(&"npm".to_string()), "{ex:?}");
    }

    #[test]
    fn path_previews_list_the_project_files_a_pattern_matches() {
        let tmp = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(tmp.path()).unwrap();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join(".env"), "A=1").unwrap();
        std::fs::write(root.join("src/.env"), "A=1").unwrap();
        std::fs::write(root.join("src/main.rs"), "").unwrap();
        let rule = parse_rule("Read(.env)").unwrap();
        let mut p = path_preview(&root, &rule).unwrap();
        p.matches.sort();
        assert_eq!(p.matches, vec![".env".to_string(), "src/.env".to_string()]);
        assert_eq!(p.scanned, 3);
        assert!(bash_examples(&root, &rule).is_none());
    }

    #[test]
    fn saves_detect_files_changed_on_disk_and_undo_restores() {
        let tmp = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(tmp.path()).unwrap();
        let project = root.join("p");
        let home = root.join("h");
        std::fs::create_dir_all(project.join(".claude")).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        let path = project.join(".claude/settings.json");
        std::fs::write(
            &path,
            r#"{"model": "x", "permissions": {"allow": ["Read"]}}"#,
        )
        .unwrap();
        let layout = SettingsLayout::new(&project, &home);
        let loaded = read_rule_file(&editable_file(&layout, &path).unwrap());
        let edit = RuleFileEdit {
            path: path.to_string_lossy().into(),
            base_fingerprint: loaded.fingerprint.clone(),
            allow: vec!["Read".into()],
            ask: vec![],
            deny: vec!["Bash(rm:*)".into()],
            additional_directories: vec![],
        };
        // Changed on disk since loaded: a conflict, computed from the new text.
        std::fs::write(
            &path,
            r#"{"model": "y", "permissions": {"allow": ["Read"]}}"#,
        )
        .unwrap();
        let plan = plan_save(&layout, std::slice::from_ref(&edit)).unwrap();
        assert_eq!(plan.conflicts, vec![path.clone()]);
        assert!(plan.writes[0].after.contains("\"model\": \"y\""));
        write_files(&plan.writes).unwrap();
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(v["permissions"]["deny"], json!(["Bash(rm:*)"]));
        assert_eq!(v["model"], json!("y"));
        // Undo refuses when the file changed again, unless told to overwrite.
        std::fs::write(&path, r#"{"model": "z"}"#).unwrap();
        assert_eq!(
            undo_writes(&plan.writes, false).unwrap(),
            vec![path.clone()]
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), r#"{"model": "z"}"#);
        undo_writes(&plan.writes, true).unwrap();
        assert!(
            std::fs::read_to_string(&path)
                .unwrap()
                .contains("\"model\": \"y\"")
        );
        // Policy files and foreign paths are never edited.
        let mut foreign = edit.clone();
        foreign.path = root.join("elsewhere.json").to_string_lossy().into();
        assert!(matches!(
            plan_save(&layout, &[foreign]),
            Err(EditError::NotEditable(_))
        ));
    }

    #[test]
    fn read_only_huge_and_malformed_files_are_locked_with_the_reason() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let file = |name: &str, text: &str| {
            let path = dir.join(name);
            std::fs::write(&path, text).unwrap();
            read_rule_file(&SettingsFileRef::new(RuleSource::Project, path, None))
        };
        let bad = file("bad.json", "{\"permissions\": {");
        assert!(bad.lock_reason.unwrap().contains("malformed"));
        let huge = file("huge.json", &" ".repeat(MAX_EDITABLE_BYTES as usize + 1));
        assert!(huge.lock_reason.unwrap().contains("bytes"));
        let odd = file("odd.json", r#"{"permissions": {"allow": [1]}}"#);
        assert!(odd.lock_reason.unwrap().contains("not a string"));
        let ro = dir.join("ro.json");
        std::fs::write(&ro, "{}").unwrap();
        let mut perms = std::fs::metadata(&ro).unwrap().permissions();
        perms.set_readonly(true);
        std::fs::set_permissions(&ro, perms).unwrap();
        let state = read_rule_file(&SettingsFileRef::new(RuleSource::User, ro, None));
        assert!(state.lock_reason.unwrap().contains("read-only"));
        let policy = read_rule_file(&SettingsFileRef::new(
            RuleSource::Policy,
            dir.join("none.json"),
            None,
        ));
        assert!(policy.lock_reason.unwrap().contains("managed policy"));
    }

    #[test]
    fn a_symlinked_settings_file_is_written_at_its_target() {
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("dotfiles.json");
        std::fs::write(&target, r#"{"theme": "dark"}"#).unwrap();
        let link = tmp.path().join("settings.json");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let state = read_rule_file(&SettingsFileRef::new(RuleSource::User, link.clone(), None));
        assert!(state.lock_reason.is_none());
        let after = apply_lists(&link, state.text.as_deref(), &lists(&[], &["WebFetch"])).unwrap();
        write_files(&[FileWrite {
            path: link.clone(),
            before: state.text,
            after,
        }])
        .unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&target).unwrap()).unwrap();
        assert_eq!(
            v,
            json!({"theme": "dark", "permissions": {"deny": ["WebFetch"]}})
        );
    }
}
