//! Claude Code's hook matcher, matched against the tool name (or, for
//! session events, the event's own subject such as `startup`).
//!
//! Absent, `""` and `*` match everything; a word of letters, digits and
//! `_` is an exact name (`Bas` matches nothing); `A|B` of such words is a
//! list of exact names; anything else is an unanchored regular expression
//! (`as.` matches `Bash`, `mcp__.*` every MCP tool).

use regex::Regex;

/// A compiled matcher.
#[derive(Debug, Clone)]
pub enum Matcher {
    /// Every name.
    All,
    /// One of these names exactly.
    Exact(Vec<String>),
    /// An unanchored regular expression.
    Regex(Regex),
}

fn is_word(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

impl Matcher {
    /// Compiles a matcher as written; the error names what does not compile.
    pub fn compile(matcher: Option<&str>) -> Result<Self, String> {
        let Some(m) = matcher else {
            return Ok(Self::All);
        };
        let m = m.trim();
        if m.is_empty() || m == "*" {
            return Ok(Self::All);
        }
        if m.split('|').all(is_word) {
            return Ok(Self::Exact(m.split('|').map(str::to_owned).collect()));
        }
        // Matchers are small; the size limit keeps a hostile one bounded.
        regex::RegexBuilder::new(m)
            .size_limit(1 << 20)
            .build()
            .map(Self::Regex)
            .map_err(|e| format!("the matcher `{m}` is not a valid regular expression: {e}"))
    }

    /// Whether `name` matches.
    pub fn matches(&self, name: &str) -> bool {
        match self {
            Self::All => true,
            Self::Exact(names) => names.iter().any(|n| n == name),
            Self::Regex(r) => r.is_match(name),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_code_matcher_semantics() {
        let m = |s: Option<&str>| Matcher::compile(s).unwrap();
        for all in [None, Some(""), Some("*")] {
            assert!(m(all).matches("Bash"));
            assert!(m(all).matches("mcp__x__y"));
        }
        assert!(m(Some("Bash")).matches("Bash"));
        assert!(!m(Some("Bas")).matches("Bash"));
        assert!(!m(Some("Bash")).matches("BashOutput"));
        assert!(m(Some("Edit|Write")).matches("Write"));
        assert!(!m(Some("Edit|Write")).matches("MultiEdit"));
        assert!(m(Some("as.")).matches("Bash"));
        assert!(m(Some("mcp__.*")).matches("mcp__memory__read"));
        assert!(!m(Some("mcp__.*")).matches("Read"));
        assert!(m(Some("Notebook.*")).matches("NotebookEdit"));
        assert!(Matcher::compile(Some("Edit(")).is_err());
    }
}
