//! Where settings come from and how they combine: managed policy (file and
//! drop-in folder), launch flags, local project, project, user.
//!
//! Lists merge across sources. Deny anywhere is final (the engine checks all
//! deny rules first, whatever their source). A managed policy may restrict
//! allow rules to policy only (`allowManagedPermissionRulesOnly`) and may
//! disable bypass mode. A project that is not trusted contributes only its
//! deny and ask rules: a cloned repository cannot grant itself permissions.
//! A settings file that cannot be read or parsed is reported with file,
//! line, column and cause, and makes the engine fail closed.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use gatehouse_core::bounded_read::read_text;
use gatehouse_protocol::permission::{PermissionMode, RuleSource};

use crate::rule::{Rule, RuleKind, parse_rule};
use crate::settings::{MAX_SETTINGS_FILE_BYTES, ParsedSettings, SettingsError, parse_settings};

/// The OS-wide managed policy file and drop-in folder, as Claude Code
/// places them on this platform.
pub fn os_managed_policy_paths() -> (PathBuf, PathBuf) {
    let base = if cfg!(target_os = "macos") {
        PathBuf::from("/Library/Application Support/ClaudeCode")
    } else if cfg!(windows) {
        PathBuf::from(r"C:\Program Files\ClaudeCode")
    } else {
        PathBuf::from("/etc/claude-code")
    };
    (
        base.join("managed-settings.json"),
        base.join("managed-settings.d"),
    )
}

/// Which files to read. Every location is explicit so tests are hermetic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingsLayout {
    /// The project root (`.claude/settings.json` lives below it).
    pub project_dir: PathBuf,
    /// The home directory (`.claude/settings.json` of the user).
    pub home_dir: PathBuf,
    /// The managed policy file, if any is to be read.
    pub managed_file: Option<PathBuf>,
    /// The managed policy drop-in folder (`*.json`, read in name order).
    pub managed_dropin_dir: Option<PathBuf>,
    /// Settings files given on the command line (`--settings FILE`).
    pub flag_files: Vec<PathBuf>,
    /// Rules given on the command line (`--allowedTools`, …).
    pub flag_rules: Vec<(RuleKind, String)>,
    /// True once the user trusts the project: only then do its allow
    /// rules, additional directories and default mode apply.
    pub project_trusted: bool,
}

impl SettingsLayout {
    /// A layout reading the project and user settings only (no policy).
    pub fn new(project_dir: impl Into<PathBuf>, home_dir: impl Into<PathBuf>) -> Self {
        SettingsLayout {
            project_dir: project_dir.into(),
            home_dir: home_dir.into(),
            managed_file: None,
            managed_dropin_dir: None,
            flag_files: Vec::new(),
            flag_rules: Vec::new(),
            project_trusted: false,
        }
    }

    /// The same layout, also reading the OS-wide managed policy.
    pub fn with_os_managed_policy(mut self) -> Self {
        let (file, dir) = os_managed_policy_paths();
        self.managed_file = Some(file);
        self.managed_dropin_dir = Some(dir);
        self
    }

    /// Every settings file, highest precedence first, with its source and
    /// the directory `/`-anchored path rules in it are relative to.
    pub fn files(&self) -> Vec<SettingsFileRef> {
        let mut out = Vec::new();
        if let Some(f) = &self.managed_file {
            out.push(SettingsFileRef::new(RuleSource::Policy, f.clone(), None));
        }
        if let Some(dir) = &self.managed_dropin_dir {
            let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
                .into_iter()
                .flatten()
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "json"))
                .collect();
            entries.sort();
            for f in entries {
                out.push(SettingsFileRef::new(RuleSource::Policy, f, None));
            }
        }
        for f in &self.flag_files {
            out.push(SettingsFileRef::new(RuleSource::Flag, f.clone(), None));
        }
        // Local, project, user: the layout is defined once, by the source.
        for source in RuleSource::WRITABLE {
            let root = if source == RuleSource::User {
                &self.home_dir
            } else {
                &self.project_dir
            };
            if let Some(path) = source.settings_file(&self.project_dir, &self.home_dir) {
                out.push(SettingsFileRef::new(source, path, Some(root.clone())));
            }
        }
        out
    }
}

/// One settings file to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingsFileRef {
    /// Its source.
    pub source: RuleSource,
    /// Its path.
    pub path: PathBuf,
    /// What `/p` path patterns in it are relative to (`None`: the cwd).
    pub settings_root: Option<PathBuf>,
}

impl SettingsFileRef {
    /// A file of `source` at `path`, `/`-patterns relative to `settings_root`.
    pub fn new(source: RuleSource, path: PathBuf, settings_root: Option<PathBuf>) -> Self {
        SettingsFileRef {
            source,
            path,
            settings_root,
        }
    }
}

/// A rule with everything needed to explain it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourcedRule {
    /// The rule.
    pub rule: Rule,
    /// Its list.
    pub kind: RuleKind,
    /// Its source.
    pub source: RuleSource,
    /// The file it was read from (none for flags and session rules).
    pub file: Option<PathBuf>,
    /// Line and column in that file.
    pub line: usize,
    /// Column (characters, 1-based).
    pub column: usize,
    /// What `/p` path patterns are relative to.
    pub settings_root: Option<PathBuf>,
}

/// An `env` variable with the file it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourcedEnv {
    /// The variable's name.
    pub name: String,
    /// Its value.
    pub value: String,
    /// The source of the file that set it.
    pub source: RuleSource,
    /// The file.
    pub file: PathBuf,
    /// Where its value starts.
    pub line: usize,
    /// Column (characters, 1-based).
    pub column: usize,
}

impl SourcedEnv {
    /// `file:line:column`, for messages about the value.
    pub fn location(&self) -> String {
        format!("{}:{}:{}", self.file.display(), self.line, self.column)
    }
}

/// A rule that was read but does not apply, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IgnoredRule {
    /// The rule.
    pub rule: SourcedRule,
    /// Why it does not apply.
    pub why: String,
}

/// Every source read and merged.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadedSettings {
    /// Rules that apply, highest-precedence source first.
    pub rules: Vec<SourcedRule>,
    /// Rules read but not applied (untrusted project, policy-only).
    pub ignored: Vec<IgnoredRule>,
    /// Every problem found, in every file.
    pub errors: Vec<SettingsError>,
    /// Additional working directories, resolved to absolute paths.
    pub additional_directories: Vec<PathBuf>,
    /// The default mode of the highest-precedence source that sets one.
    pub default_mode: Option<PermissionMode>,
    /// True when any source disables bypass mode.
    pub bypass_disabled: bool,
    /// True when the managed policy restricts rules to policy only.
    pub managed_rules_only: bool,
    /// The files that were read (existing ones), for watching.
    pub files_read: Vec<PathBuf>,
    /// `env` variables of trusted sources, highest-precedence source first
    /// (an untrusted project sets nothing: a clone must not configure the
    /// session before the user trusts it).
    pub env: Vec<SourcedEnv>,
}

impl LoadedSettings {
    /// True when an error may have hidden deny or ask rules: the engine
    /// then allows nothing without asking.
    pub fn restrictions_lost(&self) -> bool {
        self.errors.iter().any(|e| e.loses_restrictions)
    }

    /// The value of `env.<name>` that applies: the highest-precedence
    /// trusted source that sets it.
    pub fn env_var(&self, name: &str) -> Option<&SourcedEnv> {
        self.env.iter().find(|v| v.name == name)
    }
}

/// Reads and merges every source of `layout`.
pub fn load(layout: &SettingsLayout) -> LoadedSettings {
    load_with_edits(layout, &HashMap::new())
}

/// Like [`load`], but a file named in `edits` is read as the text given
/// there instead of from disk (unsaved edits in the rule editor; a file
/// that does not exist yet may be given too).
pub fn load_with_edits(
    layout: &SettingsLayout,
    edits: &HashMap<PathBuf, String>,
) -> LoadedSettings {
    let mut out = LoadedSettings::default();
    let mut parsed: Vec<(SettingsFileRef, ParsedSettings)> = Vec::new();
    for file in layout.files() {
        let read = match edits.get(&file.path) {
            Some(text) => Ok(Some(text.clone())),
            None => read_text(&file.path, MAX_SETTINGS_FILE_BYTES),
        };
        let text = match read {
            Ok(Some(t)) => t,
            Ok(None) => continue,
            Err(e) => {
                out.errors.push(SettingsError {
                    file: file.path.clone(),
                    line: 1,
                    column: 1,
                    cause: format!("the settings file {e}"),
                    loses_restrictions: true,
                });
                continue;
            }
        };
        out.files_read.push(file.path.clone());
        match parse_settings(&file.path, &text) {
            Ok(p) => {
                out.errors.extend(p.errors.iter().cloned());
                parsed.push((file, p));
            }
            Err(e) => out.errors.push(e),
        }
    }
    out.managed_rules_only = parsed
        .iter()
        .any(|(f, p)| f.source == RuleSource::Policy && p.managed_rules_only);

    let mut push = |out: &mut LoadedSettings, rule: SourcedRule, trusted: bool| {
        let why = if rule.kind == RuleKind::Allow && !trusted {
            Some("the project is not trusted: its allow rules do not apply".to_string())
        } else if rule.kind == RuleKind::Allow
            && out.managed_rules_only
            && rule.source != RuleSource::Policy
        {
            Some("managed policy allows only policy rules to allow".to_string())
        } else {
            None
        };
        match why {
            Some(why) => out.ignored.push(IgnoredRule { rule, why }),
            None => out.rules.push(rule),
        }
    };

    for (file, p) in &parsed {
        let is_project = matches!(file.source, RuleSource::Project | RuleSource::Local);
        let trusted = !is_project || layout.project_trusted;
        for entry in &p.rules {
            let rule = SourcedRule {
                rule: entry.rule.clone(),
                kind: entry.kind,
                source: file.source,
                file: Some(file.path.clone()),
                line: entry.position.line,
                column: entry.position.column,
                settings_root: file.settings_root.clone(),
            };
            push(&mut out, rule, trusted);
        }
        if trusted {
            let base = file
                .settings_root
                .clone()
                .unwrap_or_else(|| layout.project_dir.clone());
            for d in &p.additional_directories {
                let path = if let Some(rest) = d.strip_prefix("~/") {
                    layout.home_dir.join(rest)
                } else {
                    base.join(d)
                };
                out.additional_directories.push(path);
            }
            if out.default_mode.is_none() {
                out.default_mode = p.default_mode;
            }
            out.env.extend(p.env.iter().map(|e| SourcedEnv {
                name: e.name.clone(),
                value: e.value.clone(),
                source: file.source,
                file: file.path.clone(),
                line: e.position.line,
                column: e.position.column,
            }));
        }
        out.bypass_disabled |= p.disable_bypass;
    }
    push_flag_rules(layout, &mut out, &mut push);
    // Highest precedence first (the sort is stable: file order is kept).
    out.rules.sort_by_key(|r| r.source);
    out.env.sort_by_key(|v| v.source);
    out
}

fn push_flag_rules(
    layout: &SettingsLayout,
    out: &mut LoadedSettings,
    push: &mut impl FnMut(&mut LoadedSettings, SourcedRule, bool),
) {
    for (kind, text) in &layout.flag_rules {
        match parse_rule(text) {
            Ok(rule) => push(
                out,
                SourcedRule {
                    rule,
                    kind: *kind,
                    source: RuleSource::Flag,
                    file: None,
                    line: 0,
                    column: 0,
                    settings_root: None,
                },
                true,
            ),
            Err(e) => out.errors.push(SettingsError {
                file: PathBuf::from("<command line>"),
                line: 1,
                column: e.column,
                cause: format!("invalid {} rule `{text}`: {}", kind.key(), e.message),
                loses_restrictions: *kind != RuleKind::Allow,
            }),
        }
    }
}

/// The file a rule's `file` field names, for display.
pub fn display_file(path: Option<&Path>) -> Option<String> {
    path.map(|p| p.display().to_string())
}

/// The user's home folder (`$HOME`; `/` when unset), where
/// `~/.claude/settings.json`, `~/.claude.json` and `~/.gatehouse` live.
pub fn home_dir() -> PathBuf {
    std::env::var_os("HOME").map_or_else(|| PathBuf::from("/"), PathBuf::from)
}
