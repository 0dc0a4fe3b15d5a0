//! Permission rules in Claude Code's syntax: `Tool` or `Tool(specifier)`.
//!
//! A rule names a tool and, optionally, what about the call it matches on:
//! a shell pattern for Bash, a gitignore-style path for the file tools, a
//! domain for WebFetch, a sub-agent type for Agent. Parsing is strict: a rule
//! that cannot be understood is an error with its position, never a rule that
//! silently matches nothing (or everything).

use std::fmt;

use crate::domain::DomainPattern;
use crate::shell::pattern::CommandPattern;

/// The three lists a rule can appear in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RuleKind {
    /// `permissions.allow`: the call runs without asking.
    Allow,
    /// `permissions.ask`: the user is asked, in every mode.
    Ask,
    /// `permissions.deny`: the call is refused, in every mode.
    Deny,
}

impl RuleKind {
    /// The settings key of the list (`allow`, `ask`, `deny`).
    pub fn key(self) -> &'static str {
        match self {
            RuleKind::Allow => "allow",
            RuleKind::Ask => "ask",
            RuleKind::Deny => "deny",
        }
    }
}

/// Which tools the rule's tool name covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolMatcher {
    /// One tool by its exact name (`Bash`, `WebFetch`, `mcp__srv__tool`).
    Exact(String),
    /// Every tool of one MCP server (`mcp__srv` or `mcp__srv__*`).
    McpServer(String),
}

impl ToolMatcher {
    /// The key rules are indexed under: the tool name, or `mcp__srv` for a
    /// server-wide rule.
    pub fn index_key(&self) -> &str {
        match self {
            ToolMatcher::Exact(name) | ToolMatcher::McpServer(name) => name,
        }
    }
}

/// What a rule matches on besides the tool name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Specifier {
    /// No specifier (`Tool` or `Tool(*)`): every call of the tool.
    Any,
    /// A shell command pattern (Bash).
    Command(CommandPattern),
    /// A gitignore-style path pattern (Read, Edit and the other file tools),
    /// kept as written; it is resolved against a base directory when matched.
    Path(String),
    /// A `domain:` pattern (WebFetch).
    Domain(DomainPattern),
    /// A sub-agent type (Agent).
    AgentType(String),
    /// A skill's name (Skill): `Skill(name)`, or Claude Code's
    /// `Skill(name:*)` (the same skill with any arguments).
    SkillName(String),
    /// Any other tool's specifier, matched exactly against the subject.
    Literal(String),
}

/// One parsed rule, with the text it was parsed from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// The rule exactly as written in the settings file.
    pub text: String,
    /// The tool (or MCP server) it names.
    pub tool: ToolMatcher,
    /// What it matches on.
    pub specifier: Specifier,
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Why a rule could not be parsed, and where in the rule text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} (at character {column} of rule `{rule}`)")]
pub struct RuleParseError {
    /// The rule text.
    pub rule: String,
    /// 1-based character column inside the rule text.
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

/// Tools whose specifier is a read path (`Read(...)` rules apply to them).
pub const READ_TOOLS: &[&str] = &["Read", "Glob", "Grep", "LS", "NotebookRead"];
/// Tools whose specifier is a write path (`Edit(...)` rules apply to them).
pub const EDIT_TOOLS: &[&str] = &["Edit", "Write", "MultiEdit", "NotebookEdit"];

/// Old tool names that still resolve to the current name.
///
/// Built-in names are matched without regard to case, so a deny rule
/// written `bash(rm:*)` is not silently a rule for a tool that does not
/// exist.
pub fn canonical_tool_name(name: &str) -> &str {
    if name.eq_ignore_ascii_case("Task") {
        return "Agent";
    }
    BUILT_IN_TOOLS
        .iter()
        .find(|b| b.eq_ignore_ascii_case(name))
        .copied()
        .unwrap_or(name)
}

/// The built-in tools' names (rules naming them are case-insensitive).
pub const BUILT_IN_TOOLS: &[&str] = &[
    "Bash",
    "Read",
    "Edit",
    "Write",
    "MultiEdit",
    "NotebookEdit",
    "NotebookRead",
    "Glob",
    "Grep",
    "LS",
    "WebFetch",
    "WebSearch",
    "Agent",
    "TodoWrite",
    "TaskOutput",
    "TaskStop",
    "SendMessage",
    "AskUserQuestion",
    "EnterPlanMode",
    "ExitPlanMode",
    "ToolSearch",
    "ListMcpResources",
    "ReadMcpResource",
    "Skill",
    "EnterWorktree",
    "ExitWorktree",
    "PowerShell",
];

fn err(rule: &str, column: usize, message: impl Into<String>) -> RuleParseError {
    RuleParseError {
        rule: rule.to_string(),
        column,
        message: message.into(),
    }
}

/// True for a character allowed in a tool name.
fn is_tool_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// Parses one rule (`Tool`, `Tool(specifier)`, `mcp__srv`, `mcp__srv__*`…).
///
/// Inside the parentheses `\(`, `\)` and `\\` stand for `(`, `)` and `\`.
/// `Tool(*)` means the same as `Tool`. An empty specifier (`Tool()`), a
/// missing closing parenthesis, text after it, an invalid tool name, or a
/// specifier the tool cannot use (`WebFetch(example.com)` without `domain:`)
/// is an error.
pub fn parse_rule(text: &str) -> Result<Rule, RuleParseError> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(err(text, 1, "empty rule"));
    }
    let lead = text.len() - text.trim_start().len();
    let (name, body) = match trimmed.find('(') {
        None => (trimmed, None),
        Some(open) => {
            if !trimmed.ends_with(')') {
                return Err(err(
                    text,
                    lead + trimmed.chars().count() + 1,
                    "missing closing `)`",
                ));
            }
            let inner = &trimmed[open + 1..trimmed.len() - 1];
            (&trimmed[..open], Some((open, inner)))
        }
    };
    if name.is_empty() {
        return Err(err(text, lead + 1, "missing tool name before `(`"));
    }
    if let Some((i, c)) = name.char_indices().find(|&(_, c)| !is_tool_name_char(c)) {
        // `mcp__srv__*` is the one place a `*` may follow the name.
        let is_mcp_wildcard = c == '*' && i == name.len() - 1 && name.starts_with("mcp__");
        if !is_mcp_wildcard {
            return Err(err(
                text,
                lead + name[..i].chars().count() + 1,
                format!("invalid character `{c}` in tool name"),
            ));
        }
    }
    if !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return Err(err(text, lead + 1, "tool name must start with a letter"));
    }

    let tool = parse_tool_matcher(text, lead, name)?;

    let specifier = match body {
        None => Specifier::Any,
        Some((open, inner)) => {
            let column = lead + trimmed[..open].chars().count() + 2;
            let content = unescape(text, column, inner)?;
            if content.is_empty() {
                return Err(err(
                    text,
                    column,
                    "empty specifier `()`: write the tool name alone to match every call",
                ));
            }
            if content == "*" {
                Specifier::Any
            } else {
                if matches!(tool, ToolMatcher::McpServer(_)) {
                    return Err(err(text, column, "an MCP server rule takes no specifier"));
                }
                parse_specifier(text, column, tool.index_key(), content)?
            }
        }
    };
    Ok(Rule {
        text: text.to_string(),
        tool,
        specifier,
    })
}

fn parse_tool_matcher(text: &str, lead: usize, name: &str) -> Result<ToolMatcher, RuleParseError> {
    if let Some(rest) = name.strip_prefix("mcp__") {
        let (server, tool) = match rest.find("__") {
            Some(i) => (&rest[..i], Some(&rest[i + 2..])),
            None => (rest, None),
        };
        if server.is_empty() || server.contains('*') {
            return Err(err(text, lead + 6, "missing MCP server name after `mcp__`"));
        }
        return Ok(match tool {
            None | Some("*") => ToolMatcher::McpServer(format!("mcp__{server}")),
            Some("") => {
                return Err(err(
                    text,
                    lead + name.len(),
                    "missing MCP tool name after `__`",
                ));
            }
            Some(t) if t.contains('*') => {
                return Err(err(
                    text,
                    lead + 1,
                    "only `mcp__server__*` may use `*` in an MCP rule",
                ));
            }
            Some(_) => ToolMatcher::Exact(name.to_string()),
        });
    }
    Ok(ToolMatcher::Exact(canonical_tool_name(name).to_string()))
}

/// Removes the `\(`, `\)` and `\\` escapes of a specifier.
fn unescape(text: &str, column: usize, inner: &str) -> Result<String, RuleParseError> {
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars().enumerate();
    while let Some((i, c)) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some((_, n @ ('(' | ')' | '\\'))) => out.push(n),
                // Any other escape is kept as written: Bash patterns use `\*`.
                Some((_, n)) => {
                    out.push('\\');
                    out.push(n);
                }
                None => return Err(err(text, column + i, "dangling `\\` at end of specifier")),
            }
        } else {
            out.push(c);
        }
    }
    Ok(out)
}

fn parse_specifier(
    text: &str,
    column: usize,
    tool: &str,
    content: String,
) -> Result<Specifier, RuleParseError> {
    if tool == "Bash" || tool == "PowerShell" {
        return Ok(Specifier::Command(CommandPattern::parse(&content)));
    }
    if READ_TOOLS.contains(&tool) || EDIT_TOOLS.contains(&tool) {
        if content.contains('\0') {
            return Err(err(text, column, "NUL character in path pattern"));
        }
        crate::paths::validate_pattern(&content).map_err(|m| err(text, column, m))?;
        return Ok(Specifier::Path(content));
    }
    if tool == "WebFetch" {
        let Some(domain) = content.strip_prefix("domain:") else {
            return Err(err(
                text,
                column,
                "WebFetch rules take `domain:host` (e.g. `WebFetch(domain:example.com)`)",
            ));
        };
        return DomainPattern::parse(domain)
            .map(Specifier::Domain)
            .map_err(|m| err(text, column + 7, m));
    }
    if tool == "Agent" {
        return Ok(Specifier::AgentType(content));
    }
    if tool == "Skill" {
        let name = content.strip_suffix(":*").unwrap_or(&content).trim();
        if name.is_empty() || name.contains(['*', '(', ')']) {
            return Err(err(
                text,
                column,
                "Skill rules name one skill: `Skill(name)` or `Skill(name:*)`",
            ));
        }
        return Ok(Specifier::SkillName(name.to_owned()));
    }
    Ok(Specifier::Literal(content))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_and_star_are_the_same() {
        let a = parse_rule("Bash").unwrap();
        let b = parse_rule("Bash(*)").unwrap();
        assert_eq!(a.specifier, Specifier::Any);
        assert_eq!(b.specifier, Specifier::Any);
    }

    #[test]
    fn mcp_forms() {
        assert_eq!(
            parse_rule("mcp__srv").unwrap().tool,
            ToolMatcher::McpServer("mcp__srv".into())
        );
        assert_eq!(
            parse_rule("mcp__srv__*").unwrap().tool,
            ToolMatcher::McpServer("mcp__srv".into())
        );
        assert_eq!(
            parse_rule("mcp__srv__tool").unwrap().tool,
            ToolMatcher::Exact("mcp__srv__tool".into())
        );
        assert!(parse_rule("mcp__").is_err());
        assert!(parse_rule("mcp__srv__to*").is_err());
    }

    #[test]
    fn escapes_and_errors() {
        let r = parse_rule(r"Bash(echo \(hi\))").unwrap();
        assert_eq!(
            r.specifier,
            Specifier::Command(CommandPattern::parse("echo (hi)"))
        );
        let e = parse_rule("Bash(ls").unwrap_err();
        assert_eq!(e.column, 8);
        let e = parse_rule("Ba sh").unwrap_err();
        assert_eq!(e.column, 3);
        assert!(parse_rule("Bash()").is_err());
        assert!(parse_rule("WebFetch(example.com)").is_err());
        assert!(parse_rule("(ls)").is_err());
        assert!(parse_rule("").is_err());
    }

    #[test]
    fn built_in_names_ignore_case() {
        assert_eq!(
            parse_rule("bash(rm:*)").unwrap().tool,
            ToolMatcher::Exact("Bash".into())
        );
        assert_eq!(
            parse_rule("READ(.env)").unwrap().tool,
            ToolMatcher::Exact("Read".into())
        );
        assert_eq!(
            parse_rule("MyTool").unwrap().tool,
            ToolMatcher::Exact("MyTool".into())
        );
    }

    #[test]
    fn skill_rules_name_one_skill() {
        for text in ["Skill(pdf)", "Skill(pdf:*)", "skill( pdf )"] {
            let r = parse_rule(text).unwrap();
            assert_eq!(r.tool, ToolMatcher::Exact("Skill".into()), "{text}");
            assert_eq!(r.specifier, Specifier::SkillName("pdf".into()), "{text}");
        }
        assert_eq!(parse_rule("Skill(*)").unwrap().specifier, Specifier::Any);
        let e = parse_rule("Skill(p*)").unwrap_err();
        assert!(e.message.contains("name one skill"), "{e:?}");
        assert!(parse_rule("Skill(:*)").is_err());
    }

    #[test]
    fn task_is_agent() {
        let r = parse_rule("Task(Explore)").unwrap();
        assert_eq!(r.tool, ToolMatcher::Exact("Agent".into()));
        assert_eq!(r.specifier, Specifier::AgentType("Explore".into()));
    }
}
