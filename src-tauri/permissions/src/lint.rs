//! Checking every settings file of a project: errors (what the engine
//! reports and fails closed on) with file, line and column, and warnings for
//! rules that can never fire — shadowed by a deny or ask rule, duplicated,
//! naming no known tool, or dropped by a managed policy. The body of
//! `gatehouse-cli rules lint` and the rule editor's warnings.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use gatehouse_protocol::permission::RuleSource;
use serde::Serialize;

use crate::index::mcp_server;
use crate::rule::{BUILT_IN_TOOLS, RuleKind, Specifier, ToolMatcher};
use crate::sources::{SettingsLayout, SourcedRule, load_with_edits};

/// How bad a problem is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// The file or a rule cannot be used (the engine reports it, and fails
    /// closed when deny or ask rules may be lost).
    Error,
    /// The rule is valid but can never make a difference.
    Warning,
}

/// One problem, with where it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LintProblem {
    /// Error or warning.
    pub severity: Severity,
    /// What kind of problem: `settings_error`, `shadowed_by_deny`,
    /// `shadowed_by_ask`, `duplicate`, `unknown_tool`, `not_applied`.
    pub code: &'static str,
    /// The file (`<command line>` for flag rules).
    pub file: PathBuf,
    /// 1-based line.
    pub line: usize,
    /// 1-based column (characters).
    pub column: usize,
    /// The rule's list (`allow`, `ask`, `deny`), when about a rule.
    pub list: Option<&'static str>,
    /// The rule as written, when about a rule.
    pub rule: Option<String>,
    /// What is wrong, in words.
    pub message: String,
    /// True when the problem may hide deny or ask rules (the engine then
    /// asks before every call until it is fixed).
    pub loses_restrictions: bool,
}

/// One settings file looked at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LintFile {
    /// Its path.
    pub path: PathBuf,
    /// Its source (`policy`, `flag`, `local`, `project`, `user`).
    pub source: RuleSource,
    /// Whether it exists (a missing file is not a problem).
    pub exists: bool,
}

/// Everything [`lint`] found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LintReport {
    /// Every settings file of the layout, highest precedence first.
    pub files: Vec<LintFile>,
    /// Every problem: errors first, then warnings, each in file order.
    pub problems: Vec<LintProblem>,
    /// How many problems are errors.
    pub errors: usize,
    /// How many problems are warnings.
    pub warnings: usize,
}

/// Checks every settings file of `layout`. The project is linted as if
/// trusted, so its allow rules are checked too.
pub fn lint(layout: &SettingsLayout) -> LintReport {
    lint_with_edits(layout, &HashMap::new())
}

/// Like [`lint`], with unsaved edits read in place of the files they name
/// (the rule editor's warnings as the user types).
pub fn lint_with_edits(layout: &SettingsLayout, edits: &HashMap<PathBuf, String>) -> LintReport {
    let mut layout = layout.clone();
    layout.project_trusted = true;
    let files = layout
        .files()
        .into_iter()
        .map(|f| LintFile {
            exists: f.path.exists() || edits.contains_key(&f.path),
            path: f.path,
            source: f.source,
        })
        .collect();
    let settings = load_with_edits(&layout, edits);
    let mut problems: Vec<LintProblem> = settings
        .errors
        .iter()
        .map(|e| LintProblem {
            severity: Severity::Error,
            code: "settings_error",
            file: e.file.clone(),
            line: e.line,
            column: e.column,
            list: None,
            rule: None,
            message: e.cause.clone(),
            loses_restrictions: e.loses_restrictions,
        })
        .collect();
    let warn = |rule: &SourcedRule, code: &'static str, message: String| LintProblem {
        severity: Severity::Warning,
        code,
        file: rule
            .file
            .clone()
            .unwrap_or_else(|| PathBuf::from("<command line>")),
        line: rule.line,
        column: rule.column,
        list: Some(rule.kind.key()),
        rule: Some(rule.rule.text.clone()),
        message,
        loses_restrictions: false,
    };
    for ignored in &settings.ignored {
        problems.push(warn(
            &ignored.rule,
            "not_applied",
            format!("never applies: {}", ignored.why),
        ));
    }
    let rules = &settings.rules;
    for (i, rule) in rules.iter().enumerate() {
        if let ToolMatcher::Exact(name) = &rule.rule.tool
            && !name.starts_with("mcp__")
            && !BUILT_IN_TOOLS.contains(&name.as_str())
        {
            problems.push(warn(
                rule,
                "unknown_tool",
                format!(
                    "no built-in tool is named `{name}`: the rule fires only for a tool of \
                     exactly that name (MCP tools are `mcp__server__tool`)"
                ),
            ));
        }
        if let Some(first) = rules[..i]
            .iter()
            .find(|o| o.kind == rule.kind && same_matches(o, rule))
        {
            problems.push(warn(
                rule,
                "duplicate",
                format!(
                    "duplicate of `{}` in {} ({})",
                    first.rule.text,
                    first.kind.key(),
                    place(first)
                ),
            ));
            continue;
        }
        let stronger: &[RuleKind] = match rule.kind {
            RuleKind::Allow => &[RuleKind::Deny, RuleKind::Ask],
            RuleKind::Ask => &[RuleKind::Deny],
            RuleKind::Deny => &[],
        };
        for kind in stronger {
            if let Some(winner) = rules.iter().find(|o| o.kind == *kind && covers(o, rule)) {
                let (code, what) = if *kind == RuleKind::Deny {
                    ("shadowed_by_deny", "denied")
                } else {
                    ("shadowed_by_ask", "asked")
                };
                problems.push(warn(
                    rule,
                    code,
                    format!(
                        "can never fire: every call it matches is {what} by `{}` ({}), which \
                         is checked first",
                        winner.rule.text,
                        place(winner)
                    ),
                ));
                break;
            }
        }
    }
    problems.sort_by_key(|p| p.severity != Severity::Error);
    let errors = problems
        .iter()
        .filter(|p| p.severity == Severity::Error)
        .count();
    LintReport {
        files,
        warnings: problems.len() - errors,
        errors,
        problems,
    }
}

fn place(rule: &SourcedRule) -> String {
    match &rule.file {
        Some(f) => format!("{}:{}:{}", f.display(), rule.line, rule.column),
        None => "command line".to_string(),
    }
}

/// Whether two rules match exactly the same calls (same tool, same
/// specifier, and for path rules the same base directory).
fn same_matches(a: &SourcedRule, b: &SourcedRule) -> bool {
    a.rule.tool == b.rule.tool
        && a.rule.specifier == b.rule.specifier
        && (!matches!(a.rule.specifier, Specifier::Path(_)) || a.settings_root == b.settings_root)
}

/// Whether `general` matches every call `specific` matches. Conservative:
/// `false` when unsure (a missed warning, never a wrong one).
fn covers(general: &SourcedRule, specific: &SourcedRule) -> bool {
    let tool_covered = match (&general.rule.tool, &specific.rule.tool) {
        (a, b) if a == b => true,
        (ToolMatcher::McpServer(server), ToolMatcher::Exact(tool)) => {
            mcp_server(tool) == Some(server.as_str())
        }
        _ => false,
    };
    if !tool_covered {
        return false;
    }
    match (&general.rule.specifier, &specific.rule.specifier) {
        (Specifier::Any, _) => true,
        (_, Specifier::Any) => false,
        (Specifier::Command(pattern), Specifier::Command(_)) => {
            command_covers(pattern, &specific.rule.text)
        }
        _ => same_matches(general, specific),
    }
}

/// Whether a Bash pattern matches every command the star-free rule
/// `specific_text` (`Bash(npm test)`, `Bash(npm run:*)`) matches.
fn command_covers(pattern: &crate::shell::pattern::CommandPattern, specific_text: &str) -> bool {
    let Some(inner) = specific_text
        .split_once('(')
        .and_then(|(_, rest)| rest.strip_suffix(')'))
    else {
        return false;
    };
    let inner = inner.replace("\\(", "(").replace("\\)", ")");
    let (body, prefix) = match inner
        .strip_suffix(":*")
        .or_else(|| inner.strip_suffix(" *"))
    {
        Some(body) => (body, true),
        None => (inner.as_str(), false),
    };
    if body.contains('*') || body.contains('\\') {
        return false;
    }
    // A prefix rule matches `body` and `body <anything>`: the pattern must
    // match the bare command and one with an argument no pattern names.
    pattern.matches(body) && (!prefix || pattern.matches(&format!("{body} \u{1}unlikely-arg")))
}

/// Convenience for callers with only a project and home directory.
pub fn lint_project(project_dir: &Path, home_dir: &Path) -> LintReport {
    lint(&SettingsLayout::new(project_dir, home_dir))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lint_texts(project: &str, user: &str) -> LintReport {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("p");
        let h = tmp.path().join("h");
        std::fs::create_dir_all(p.join(".claude")).unwrap();
        std::fs::create_dir_all(h.join(".claude")).unwrap();
        std::fs::write(p.join(".claude/settings.json"), project).unwrap();
        std::fs::write(h.join(".claude/settings.json"), user).unwrap();
        lint_project(&p, &h)
    }

    fn codes(report: &LintReport) -> Vec<(&'static str, String)> {
        report
            .problems
            .iter()
            .map(|p| (p.code, p.rule.clone().unwrap_or_default()))
            .collect()
    }

    #[test]
    fn shadowed_duplicate_and_unknown_rules_are_warnings() {
        let report = lint_texts(
            r#"{"permissions": {
                "allow": ["Bash(rm -rf build)", "Bash(npm run:*)", "Read", "Frob(x)", "mcp__gh__issues"],
                "deny": ["Bash(rm:*)", "mcp__gh"]
            }}"#,
            r#"{"permissions": {"allow": ["Bash(npm run:*)"], "ask": ["Read"]}}"#,
        );
        assert_eq!(report.errors, 0);
        let got = codes(&report);
        assert!(
            got.contains(&("shadowed_by_deny", "Bash(rm -rf build)".into())),
            "{got:?}"
        );
        assert!(
            got.contains(&("shadowed_by_deny", "mcp__gh__issues".into())),
            "{got:?}"
        );
        assert!(got.contains(&("shadowed_by_ask", "Read".into())), "{got:?}");
        assert!(
            got.contains(&("duplicate", "Bash(npm run:*)".into())),
            "{got:?}"
        );
        assert!(got.contains(&("unknown_tool", "Frob(x)".into())), "{got:?}");
        // `npm run` is not covered by `rm:*`.
        assert_eq!(
            got.iter()
                .filter(|(c, r)| *c == "shadowed_by_deny" && r == "Bash(npm run:*)")
                .count(),
            0
        );
        let dup = report
            .problems
            .iter()
            .find(|p| p.code == "duplicate")
            .unwrap();
        assert!(dup.file.ends_with("h/.claude/settings.json"), "{dup:?}");
        assert_eq!((dup.line, dup.column), (1, 28));
    }

    #[test]
    fn a_prefix_deny_does_not_cover_a_wider_allow() {
        let report = lint_texts(
            r#"{"permissions": {"allow": ["Bash(git:*)", "Bash(git push --force)"], "deny": ["Bash(git push:*)"]}}"#,
            "{}",
        );
        let got = codes(&report);
        assert!(
            got.contains(&("shadowed_by_deny", "Bash(git push --force)".into())),
            "{got:?}"
        );
        assert!(
            !got.contains(&("shadowed_by_deny", "Bash(git:*)".into())),
            "{got:?}"
        );
    }

    #[test]
    fn errors_carry_file_line_and_column() {
        let report = lint_texts(
            "{\n  \"permissions\": {\"deny\": [\"Bash(rm\"]}\n}",
            "{ nope",
        );
        assert_eq!(report.errors, 2, "{:?}", report.problems);
        assert!(
            report.problems[..2]
                .iter()
                .all(|p| p.severity == Severity::Error)
        );
        let rule_error = report
            .problems
            .iter()
            .find(|p| p.file.ends_with("p/.claude/settings.json"))
            .unwrap();
        assert_eq!(rule_error.line, 2);
        assert!(rule_error.loses_restrictions);
    }
}
