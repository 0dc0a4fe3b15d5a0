//! One settings file (Claude Code's `settings.json` format), parsed with the
//! position of every rule so errors name file, line and column.
//!
//! The keys read are `permissions.allow`, `permissions.ask`,
//! `permissions.deny`, `permissions.additionalDirectories`,
//! `permissions.defaultMode`, `permissions.disableBypassPermissionsMode`
//! (`"disable"`), `env` (the environment variables Claude Code sets for a
//! session; the session reads the few it honours, such as
//! `ENABLE_TOOL_SEARCH`) and, in managed policy,
//! `allowManagedPermissionRulesOnly`. Every other key is left alone.

use std::fmt;
use std::path::{Path, PathBuf};

use gatehouse_protocol::permission::PermissionMode;
use serde_json::Value;

use crate::rule::{Rule, RuleKind, parse_rule};

/// The largest Claude Code settings file read (4 MiB; real ones are a few
/// KiB). A project's file is the repository's to choose, so it is bounded
/// like everything else from outside: the rule engine, the hooks and the
/// sandbox all read the files with this limit.
pub const MAX_SETTINGS_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// A 1-based line and column (in characters) in a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct Position {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, counted in characters.
    pub column: usize,
}

/// A problem in a settings file, with where it is and what it is.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, thiserror::Error)]
pub struct SettingsError {
    /// The file.
    pub file: PathBuf,
    /// Where in the file.
    pub line: usize,
    /// Column (characters, 1-based).
    pub column: usize,
    /// What is wrong.
    pub cause: String,
    /// True when the problem may hide deny or ask rules: the engine then
    /// allows nothing without asking until it is fixed.
    pub loses_restrictions: bool,
}

impl fmt::Display for SettingsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file.display(),
            self.line,
            self.column,
            self.cause
        )
    }
}

/// One rule read from a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleEntry {
    /// Which list it is in.
    pub kind: RuleKind,
    /// The parsed rule.
    pub rule: Rule,
    /// Where its string starts.
    pub position: Position,
}

/// One `env` variable read from a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvEntry {
    /// The variable's name.
    pub name: String,
    /// Its value (numbers and booleans as Claude Code writes them, as text).
    pub value: String,
    /// Where its value starts.
    pub position: Position,
}

/// The permission-relevant content of one settings file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParsedSettings {
    /// Every rule that parsed.
    pub rules: Vec<RuleEntry>,
    /// Rules and keys that did not parse (never silently dropped).
    pub errors: Vec<SettingsError>,
    /// `permissions.additionalDirectories`, as written.
    pub additional_directories: Vec<String>,
    /// `permissions.defaultMode`.
    pub default_mode: Option<PermissionMode>,
    /// `permissions.disableBypassPermissionsMode == "disable"`.
    pub disable_bypass: bool,
    /// `allowManagedPermissionRulesOnly == true`.
    pub managed_rules_only: bool,
    /// `env`, in file order.
    pub env: Vec<EnvEntry>,
}

/// Parses the text of the settings file at `path`.
///
/// Invalid JSON, or a `permissions` key of the wrong shape, is an `Err`:
/// the file's rules cannot be known. A single bad rule or key is recorded in
/// [`ParsedSettings::errors`] and the rest of the file still applies.
pub fn parse_settings(path: &Path, text: &str) -> Result<ParsedSettings, SettingsError> {
    let file_error = |position: Position, cause: String| SettingsError {
        file: path.to_path_buf(),
        line: position.line,
        column: position.column,
        cause,
        loses_restrictions: true,
    };
    let value: Value = serde_json::from_str(text).map_err(|e| {
        file_error(
            Position {
                line: e.line().max(1),
                column: e.column().max(1),
            },
            format!("invalid JSON: {e}"),
        )
    })?;
    let spans = locate::scan(text);
    let root_pos = Position { line: 1, column: 1 };
    let Value::Object(root) = &value else {
        return Err(file_error(
            root_pos,
            "settings must be a JSON object".into(),
        ));
    };
    // serde_json keeps the last of duplicate keys: a `deny` list shadowed by
    // a second `deny` key would be lost silently. Refuse the file instead.
    if let Some(dup) = spans
        .duplicates(2)
        .into_iter()
        .find(|d| d.path.first().is_some_and(|k| k == "permissions") || d.path.len() == 1)
    {
        return Err(file_error(
            dup.position,
            format!(
                "duplicate key `{}`: only one of the values would apply",
                dup.path.join(".")
            ),
        ));
    }
    let mut out = ParsedSettings::default();
    if let Some(v) = root.get("allowManagedPermissionRulesOnly") {
        out.managed_rules_only = v.as_bool().unwrap_or(false);
    }
    if let Some(env) = root.get("env") {
        parse_env(env, &spans, &mut out, &file_error);
    }
    let Some(perms) = root.get("permissions") else {
        return Ok(out);
    };
    let perms_pos = spans.position(&["permissions"]).unwrap_or(root_pos);
    let Value::Object(perms) = perms else {
        return Err(file_error(
            perms_pos,
            "`permissions` must be an object".into(),
        ));
    };
    for kind in [RuleKind::Deny, RuleKind::Ask, RuleKind::Allow] {
        let key = kind.key();
        let Some(list) = perms.get(key) else {
            continue;
        };
        let list_pos = spans.position(&["permissions", key]).unwrap_or(perms_pos);
        let Value::Array(items) = list else {
            return Err(file_error(
                list_pos,
                format!("`permissions.{key}` must be an array of rule strings"),
            ));
        };
        for (i, item) in items.iter().enumerate() {
            let index = i.to_string();
            let pos = spans
                .position(&["permissions", key, &index])
                .unwrap_or(list_pos);
            let Value::String(text) = item else {
                out.errors.push(SettingsError {
                    loses_restrictions: kind != RuleKind::Allow,
                    ..file_error(
                        pos,
                        format!("`permissions.{key}[{i}]` is not a string: {item}"),
                    )
                });
                continue;
            };
            match parse_rule(text) {
                Ok(rule) => out.rules.push(RuleEntry {
                    kind,
                    rule,
                    position: pos,
                }),
                Err(e) => out.errors.push(SettingsError {
                    file: path.to_path_buf(),
                    line: pos.line,
                    // +1 for the opening quote of the JSON string.
                    column: pos.column + e.column,
                    cause: format!("invalid {key} rule `{text}`: {}", e.message),
                    loses_restrictions: kind != RuleKind::Allow,
                }),
            }
        }
    }
    if let Some(dirs) = perms.get("additionalDirectories") {
        let pos = spans
            .position(&["permissions", "additionalDirectories"])
            .unwrap_or(perms_pos);
        match dirs {
            Value::Array(items) if items.iter().all(Value::is_string) => {
                out.additional_directories = items
                    .iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect();
            }
            _ => out.errors.push(SettingsError {
                loses_restrictions: false,
                ..file_error(
                    pos,
                    "`permissions.additionalDirectories` must be an array of strings".into(),
                )
            }),
        }
    }
    if let Some(mode) = perms.get("defaultMode") {
        let pos = spans
            .position(&["permissions", "defaultMode"])
            .unwrap_or(perms_pos);
        match serde_json::from_value::<PermissionMode>(mode.clone()) {
            Ok(m) => out.default_mode = Some(m),
            Err(_) => out.errors.push(SettingsError {
                loses_restrictions: false,
                ..file_error(
                    pos,
                    format!(
                        "unknown `permissions.defaultMode` {mode} (expected default, acceptEdits, plan, bypassPermissions or dontAsk)"
                    ),
                )
            }),
        }
    }
    if let Some(v) = perms.get("disableBypassPermissionsMode") {
        out.disable_bypass = v.as_str() == Some("disable") || v.as_bool() == Some(true);
    }
    Ok(out)
}

/// Reads `env`: an object of variable names to strings (numbers and
/// booleans are taken as their text, as Claude Code's loader does). A value
/// of another shape is an error naming it; the other variables still apply.
/// None of these can hide a rule, so no error here loses restrictions.
fn parse_env(
    env: &Value,
    spans: &locate::Spans,
    out: &mut ParsedSettings,
    file_error: &dyn Fn(Position, String) -> SettingsError,
) {
    let env_pos = spans
        .position(&["env"])
        .unwrap_or(Position { line: 1, column: 1 });
    let Value::Object(vars) = env else {
        out.errors.push(SettingsError {
            loses_restrictions: false,
            ..file_error(
                env_pos,
                "`env` must be an object of variable names to strings".into(),
            )
        });
        return;
    };
    for (name, value) in vars {
        let position = spans.position(&["env", name]).unwrap_or(env_pos);
        let text = match value {
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            other => {
                out.errors.push(SettingsError {
                    loses_restrictions: false,
                    ..file_error(
                        position,
                        format!("`env.{name}` must be a string, not {other}"),
                    )
                });
                continue;
            }
        };
        out.env.push(EnvEntry {
            name: name.clone(),
            value: text,
            position,
        });
    }
}

/// A small JSON scanner that finds where values start, by key path. The
/// text has already been validated by serde_json; on anything unexpected
/// the scanner just stops (positions then fall back to the enclosing key).
/// Public for the other readers of settings files (gatehouse-hooks), so
/// every settings error is positioned the same way.
pub mod locate {
    use super::Position;

    /// Where one value is.
    #[derive(Debug, Clone)]
    pub struct Span {
        /// Its key path from the root (array indices as numbers).
        pub path: Vec<String>,
        /// Line and column of its first character.
        pub position: Position,
        /// Byte offset of its first character.
        pub start: usize,
        /// Byte offset just past its last character.
        pub end: usize,
    }

    /// Positions of values, keyed by their path from the root.
    #[derive(Default)]
    pub struct Spans {
        entries: Vec<Span>,
    }

    impl Spans {
        /// The value at `path`.
        pub fn get(&self, path: &[&str]) -> Option<&Span> {
            self.entries
                .iter()
                .find(|s| s.path.iter().map(String::as_str).eq(path.iter().copied()))
        }

        /// Values whose key path appeared before (a duplicate key: JSON
        /// parsers keep only one of them), up to `max_depth` levels deep.
        pub fn duplicates(&self, max_depth: usize) -> Vec<&Span> {
            let mut out = Vec::new();
            for (i, span) in self.entries.iter().enumerate() {
                if (1..=max_depth).contains(&span.path.len())
                    && self.entries[..i].iter().any(|e| e.path == span.path)
                {
                    out.push(span);
                }
            }
            out
        }

        /// Where the value at `path` starts.
        pub fn position(&self, path: &[&str]) -> Option<Position> {
            self.get(path).map(|s| s.position)
        }
    }

    struct Scanner<'a> {
        text: &'a str,
        bytes: &'a [u8],
        i: usize,
        line: usize,
        line_start: usize,
        max_depth: usize,
        out: Spans,
    }

    /// Scans `text`, recording the start of every value up to depth 4.
    pub fn scan(text: &str) -> Spans {
        scan_depth(text, 4)
    }

    /// Scans `text`, recording the start of every value up to `max_depth`
    /// keys deep (hooks sit at depth 6: `hooks.Event.0.hooks.0.command`).
    pub fn scan_depth(text: &str, max_depth: usize) -> Spans {
        let mut s = Scanner {
            max_depth,
            text,
            bytes: text.as_bytes(),
            i: 0,
            line: 1,
            line_start: 0,
            out: Spans::default(),
        };
        let mut path = Vec::new();
        let _ = s.value(&mut path);
        s.out
    }

    impl Scanner<'_> {
        fn position(&self) -> Position {
            let column = self
                .text
                .get(self.line_start..self.i)
                .map_or(1, |t| t.chars().count() + 1);
            Position {
                line: self.line,
                column,
            }
        }

        fn skip_ws(&mut self) {
            while let Some(&b) = self.bytes.get(self.i) {
                match b {
                    b'\n' => {
                        self.i += 1;
                        self.line += 1;
                        self.line_start = self.i;
                    }
                    b' ' | b'\t' | b'\r' => self.i += 1,
                    _ => break,
                }
            }
        }

        fn string(&mut self) -> Option<String> {
            let start = self.i;
            self.i += 1;
            let mut escaped = false;
            while let Some(&b) = self.bytes.get(self.i) {
                self.i += 1;
                if escaped {
                    escaped = false;
                } else if b == b'\\' {
                    escaped = true;
                } else if b == b'"' {
                    return serde_json::from_str(self.text.get(start..self.i)?).ok();
                }
            }
            None
        }

        fn value(&mut self, path: &mut Vec<String>) -> Option<()> {
            self.skip_ws();
            let slot = (path.len() <= self.max_depth).then(|| {
                let span = Span {
                    path: path.clone(),
                    position: self.position(),
                    start: self.i,
                    end: self.i,
                };
                self.out.entries.push(span);
                self.out.entries.len() - 1
            });
            let result = self.value_body(path);
            if let Some(i) = slot
                && let Some(span) = self.out.entries.get_mut(i)
            {
                span.end = self.i;
            }
            result
        }

        fn value_body(&mut self, path: &mut Vec<String>) -> Option<()> {
            match self.bytes.get(self.i)? {
                b'{' => {
                    self.i += 1;
                    loop {
                        self.skip_ws();
                        match self.bytes.get(self.i)? {
                            b'}' => {
                                self.i += 1;
                                return Some(());
                            }
                            b',' => self.i += 1,
                            b'"' => {
                                let key = self.string()?;
                                self.skip_ws();
                                if self.bytes.get(self.i) != Some(&b':') {
                                    return None;
                                }
                                self.i += 1;
                                path.push(key);
                                let r = self.value(path);
                                path.pop();
                                r?;
                            }
                            _ => return None,
                        }
                    }
                }
                b'[' => {
                    self.i += 1;
                    let mut index = 0usize;
                    loop {
                        self.skip_ws();
                        match self.bytes.get(self.i)? {
                            b']' => {
                                self.i += 1;
                                return Some(());
                            }
                            b',' => self.i += 1,
                            _ => {
                                path.push(index.to_string());
                                let r = self.value(path);
                                path.pop();
                                r?;
                                index += 1;
                            }
                        }
                    }
                }
                b'"' => self.string().map(|_| ()),
                _ => {
                    while let Some(&b) = self.bytes.get(self.i) {
                        if matches!(b, b',' | b'}' | b']' | b' ' | b'\n' | b'\r' | b'\t') {
                            break;
                        }
                        self.i += 1;
                    }
                    Some(())
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_of_rules_and_errors() {
        let text = "{\n  \"permissions\": {\n    \"allow\": [\"Bash(ls)\",\n      \"Bash(ls\"],\n    \"deny\": [\"Read(.env)\"]\n  }\n}\n";
        let s = parse_settings(Path::new("/x/settings.json"), text).unwrap();
        assert_eq!(s.rules.len(), 2);
        assert_eq!(s.errors.len(), 1);
        let e = &s.errors[0];
        assert_eq!((e.line, e.column), (4, 7 + 8));
        assert!(!e.loses_restrictions);
        let deny = s.rules.iter().find(|r| r.kind == RuleKind::Deny).unwrap();
        assert_eq!(
            deny.position,
            Position {
                line: 5,
                column: 14
            }
        );
    }

    #[test]
    fn malformed_json_names_line_and_column() {
        let text = "{\n  \"permissions\": {\n    \"deny\": [\"Bash(rm:*)\",]\n  }\n}\n";
        let e = parse_settings(Path::new("/x/s.json"), text).unwrap_err();
        assert_eq!(e.line, 3);
        assert!(e.loses_restrictions);
        assert!(e.to_string().starts_with("/x/s.json:3:"));
    }

    #[test]
    fn duplicate_keys_are_errors() {
        let text = "{\"permissions\": {\"deny\": [\"Bash(rm:*)\"],\n \"deny\": []}}";
        let e = parse_settings(Path::new("s"), text).unwrap_err();
        assert_eq!((e.line, e.column), (2, 10));
        assert!(
            e.cause.contains("duplicate key `permissions.deny`"),
            "{}",
            e.cause
        );
        assert!(parse_settings(Path::new("s"), r#"{"a": {"x": 1, "x": 2}}"#).is_ok());
    }

    #[test]
    fn wrong_shapes() {
        assert!(parse_settings(Path::new("s"), "[]").is_err());
        assert!(parse_settings(Path::new("s"), r#"{"permissions": []}"#).is_err());
        assert!(parse_settings(Path::new("s"), r#"{"permissions": {"deny": "Bash"}}"#).is_err());
        let s = parse_settings(Path::new("s"), r#"{"permissions": {"deny": [3]}}"#).unwrap();
        assert!(s.errors[0].loses_restrictions);
        let s = parse_settings(
            Path::new("s"),
            r#"{"permissions": {"defaultMode": "plan", "disableBypassPermissionsMode": "disable"}, "allowManagedPermissionRulesOnly": true}"#,
        )
        .unwrap();
        assert_eq!(s.default_mode, Some(PermissionMode::Plan));
        assert!(s.disable_bypass && s.managed_rules_only);
    }
}
