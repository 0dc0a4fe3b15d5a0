//! Deferred tools (SPEC §9, issue 21): which tools the model first sees by
//! name only, when deferral is on, and the tool block a model request
//! carries.
//!
//! * [`is_deferred_tool`]: the seeds' `isDeferredTool`, rule for rule.
//! * [`ToolSearchMode`]: `ENABLE_TOOL_SEARCH` (Claude Code's variable) beats
//!   the setting, which defaults to `auto`: on when the deferred tools'
//!   schemas would take more than 10 % of a 200k-token context window.
//! * [`ToolBlock`]: what a provider sends — the definitions sent from the
//!   start (cached bytes, identical on every request), the deferred tools
//!   and, in load order, the definitions ToolSearch loaded. A provider that
//!   cannot defer appends the loaded ones after the first block, so the
//!   bytes already sent never change (prompt caching).

use std::fmt::Write as _;
use std::sync::Arc;

use crate::names;
use crate::registry::{ToolPool, is_truthy};
use crate::tool::Tool;

/// Claude Code's environment variable: `true` / `false`, `auto`, or
/// `auto:N` (N % of the context window). It beats the setting.
pub const TOOL_SEARCH_ENV: &str = "ENABLE_TOOL_SEARCH";
/// The context window the `auto` threshold is a share of, in tokens.
pub const CONTEXT_WINDOW_TOKENS: u64 = 200_000;
/// The `auto` threshold when none is given, in percent of the window.
pub const DEFAULT_THRESHOLD_PERCENT: u8 = 10;
/// Characters of schema JSON per token, for the estimate.
pub const CHARS_PER_TOKEN: f64 = 2.5;

/// When deferral is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolSearchMode {
    /// On when the deferred tools' schemas exceed `percent` % of the
    /// context window.
    Auto {
        /// The share of the context window, 1–100.
        percent: u8,
    },
    /// Always on (when any tool is deferred).
    On,
    /// Never: every schema is sent.
    Off,
}

impl Default for ToolSearchMode {
    fn default() -> Self {
        Self::Auto {
            percent: DEFAULT_THRESHOLD_PERCENT,
        }
    }
}

impl ToolSearchMode {
    /// Parses `true`/`false` (and the other truthy/falsy spellings),
    /// `auto`, `auto:N`; `None` for anything else.
    pub fn parse(value: &str) -> Option<Self> {
        let v = value.trim().to_ascii_lowercase();
        if v == "auto" {
            return Some(Self::default());
        }
        if let Some(n) = v.strip_prefix("auto:") {
            return n
                .trim()
                .parse::<u8>()
                .ok()
                .filter(|p| (1..=100).contains(p))
                .map(|percent| Self::Auto { percent });
        }
        if is_truthy(&v) {
            return Some(Self::On);
        }
        matches!(v.as_str(), "0" | "false" | "no" | "off").then_some(Self::Off)
    }

    /// The mode in force: the env var if it parses, else the setting,
    /// else `auto` at 10 %.
    pub fn resolve(env: Option<&str>, setting: Option<Self>) -> Self {
        env.and_then(Self::parse).or(setting).unwrap_or_default()
    }

    /// Whether deferral is on for deferred tools whose schemas take
    /// `deferred_schema_chars` characters (0 deferred tools: never).
    pub fn is_active(self, deferred_tools: usize, deferred_schema_chars: usize) -> bool {
        if deferred_tools == 0 {
            return false;
        }
        match self {
            Self::On => true,
            Self::Off => false,
            Self::Auto { percent } => {
                // Precision is irrelevant at these magnitudes.
                #[allow(clippy::cast_precision_loss)]
                let tokens = deferred_schema_chars as f64 / CHARS_PER_TOKEN;
                #[allow(clippy::cast_precision_loss)]
                let limit = (CONTEXT_WINDOW_TOKENS * u64::from(percent)) as f64 / 100.0;
                tokens > limit
            }
        }
    }
}

/// The seeds' `isDeferredTool`: `always_load` opts out; MCP tools are
/// deferred; ToolSearch never is (it loads the others); otherwise the
/// tool's own `should_defer`.
pub fn is_deferred_tool(tool: &dyn Tool) -> bool {
    if tool.always_load() {
        return false;
    }
    if tool.is_mcp() {
        return true;
    }
    if tool.name() == names::TOOL_SEARCH {
        return false;
    }
    tool.should_defer()
}

/// What ToolSearch searches: the session's pool as the current model
/// request has it. The runtime puts one into the context of every call.
#[derive(Debug, Clone)]
pub struct ToolSearchView {
    /// The pool.
    pub pool: Arc<ToolPool>,
    /// Whether deferral is on for it.
    pub active: bool,
    /// The deferred tools loaded so far, in load order.
    pub loaded: Arc<[String]>,
}

/// One deferred tool's definition as sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolDefinition {
    /// The tool name.
    pub name: Arc<str>,
    /// `{"name":…,"description":…,"input_schema":…}`, serialised once per
    /// pool.
    pub json: Arc<str>,
}

/// The tools of one model request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolBlock {
    /// Whether deferral is on.
    pub tool_search: bool,
    /// The definitions sent from the first request on, as a JSON array:
    /// with deferral, the tools never deferred (ToolSearch among them);
    /// without, every tool but ToolSearch. The same bytes on every request.
    pub base_json: Arc<str>,
    /// The elements of `base_json`, one definition each (the same bytes).
    pub base: Arc<[Arc<str>]>,
    /// With deferral, every deferred tool in pool order (the Messages API
    /// gets them with `defer_loading: true`); empty otherwise.
    pub deferred: Arc<[ToolDefinition]>,
    /// With deferral, the deferred tools loaded so far, in load order.
    pub loaded: Vec<ToolDefinition>,
    /// With deferral, the `<available-deferred-tools>` list for the system
    /// prompt; empty otherwise.
    pub listing: Arc<str>,
}

impl ToolBlock {
    /// A block of `base_json` alone (no deferral), for callers that have
    /// only the text (tests, recorded requests): its elements are split
    /// out by parsing it.
    pub fn plain(base_json: Arc<str>) -> Self {
        let base: Vec<Arc<str>> = serde_json::from_str::<Vec<serde_json::Value>>(&base_json)
            .unwrap_or_default()
            .iter()
            .map(|v| Arc::from(v.to_string()))
            .collect();
        Self::from_parts(base_json, base.into())
    }

    /// A block of the given first block alone (no deferral).
    pub fn from_parts(base_json: Arc<str>, base: Arc<[Arc<str>]>) -> Self {
        Self {
            tool_search: false,
            base,
            base_json,
            deferred: Arc::from(Vec::new()),
            loaded: Vec::new(),
            listing: Arc::from(""),
        }
    }

    /// The base definitions with the loaded ones appended after them: the
    /// base's bytes are a prefix (less its closing `]`) of the result.
    pub fn appended_json(&self) -> String {
        append_definitions(&self.base_json, self.loaded.iter().map(|d| &*d.json))
    }

    /// How many deferred tools are not loaded yet.
    pub fn unloaded(&self) -> usize {
        self.deferred.len().saturating_sub(self.loaded.len())
    }

    /// The number of tools whose full definitions the model has.
    pub fn loaded_count(&self) -> usize {
        self.base.len() + self.loaded.len()
    }

    /// Every full definition, in the order sent: the first block, then the
    /// loaded deferred tools.
    pub fn definitions(&self) -> impl Iterator<Item = &str> {
        self.base
            .iter()
            .map(|d| &**d)
            .chain(self.loaded.iter().map(|d| &*d.json))
    }
}

/// `array` (a JSON array's text) with `items` (JSON values' texts)
/// appended, without re-serialising anything.
pub fn append_definitions<'a>(array: &str, items: impl IntoIterator<Item = &'a str>) -> String {
    let trimmed = array.trim_end();
    let head = trimmed.strip_suffix(']').unwrap_or("[");
    let mut out = String::with_capacity(array.len());
    out.push_str(head);
    let mut empty = head.trim_end().ends_with('[');
    for item in items {
        if !empty {
            out.push(',');
        }
        out.push_str(item);
        empty = false;
    }
    out.push(']');
    out
}

/// The longest hint of a deferred tool in the listing, in characters.
pub const HINT_MAX_CHARS: usize = 60;

/// The one-line hint of a tool in the listing: its `search_hint` (3–10
/// words), cut at [`HINT_MAX_CHARS`]; none for a tool without one (MCP
/// tools): a description's first line for each of 300 tools made the list
/// a third of the first request (`cargo xtask bench toolsearch`: 7.9× smaller
/// with 40-character description hints, 11.5× with names only), and
/// ToolSearch searches the descriptions anyway.
pub fn one_line_hint(tool: &dyn Tool) -> String {
    let source = tool.search_hint().unwrap_or_default();
    let line = source
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    if line.chars().count() <= HINT_MAX_CHARS {
        return line.to_owned();
    }
    let mut cut: String = line.chars().take(HINT_MAX_CHARS - 1).collect();
    cut.push('…');
    cut
}

/// The deferred tools as the model first sees them: one `name — hint`
/// line each, sorted by name, inside `<available-deferred-tools>`.
pub fn deferred_listing<'a>(tools: impl IntoIterator<Item = &'a dyn Tool>) -> String {
    let mut lines: Vec<(String, String)> = tools
        .into_iter()
        .map(|t| (t.name().to_owned(), one_line_hint(t)))
        .collect();
    lines.sort();
    let mut out = String::from(
        "The tools below are deferred: only their names are known. Load a tool's full definition \
         with ToolSearch (query \"select:<name>\", or keywords) before calling it.\n\
         <available-deferred-tools>\n",
    );
    for (name, hint) in lines {
        if hint.is_empty() {
            let _ = writeln!(out, "{name}");
        } else {
            let _ = writeln!(out, "{name} — {hint}");
        }
    }
    out.push_str("</available-deferred-tools>");
    out
}

/// The error a call to a deferred tool that was not loaded gets (the
/// model has only its name, so its input was guessed).
pub fn not_loaded_message(name: &str) -> String {
    format!(
        "{name} is a deferred tool and its definition has not been loaded, so it was not called: \
         without its schema in your prompt the input can only be guessed. Load the tool first: \
         call ToolSearch with query \"select:{name}\", then call {name} again."
    )
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_env_var_beats_the_setting_and_auto_is_the_default() {
        assert_eq!(
            ToolSearchMode::resolve(None, None),
            ToolSearchMode::default()
        );
        assert_eq!(
            ToolSearchMode::resolve(None, Some(ToolSearchMode::Off)),
            ToolSearchMode::Off
        );
        assert_eq!(
            ToolSearchMode::resolve(Some("true"), Some(ToolSearchMode::Off)),
            ToolSearchMode::On
        );
        assert_eq!(
            ToolSearchMode::resolve(Some("false"), Some(ToolSearchMode::On)),
            ToolSearchMode::Off
        );
        assert_eq!(
            ToolSearchMode::resolve(Some("auto:25"), None),
            ToolSearchMode::Auto { percent: 25 }
        );
        // Unparseable values are ignored rather than guessed.
        assert_eq!(
            ToolSearchMode::resolve(Some("sometimes"), Some(ToolSearchMode::On)),
            ToolSearchMode::On
        );
        assert_eq!(ToolSearchMode::parse("auto:0"), None);
    }

    #[test]
    fn auto_turns_on_above_ten_percent_of_the_window() {
        let auto = ToolSearchMode::default();
        // 10 % of 200k tokens at 2.5 characters a token: 50,000 characters.
        assert!(!auto.is_active(3, 50_000));
        assert!(auto.is_active(3, 50_001));
        assert!(!auto.is_active(0, 1_000_000));
        assert!(ToolSearchMode::On.is_active(1, 10));
        assert!(!ToolSearchMode::Off.is_active(1, 10_000_000));
    }

    #[test]
    fn appending_keeps_the_base_as_a_prefix() {
        let base = r#"[{"name":"A"},{"name":"B"}]"#;
        let out = append_definitions(base, [r#"{"name":"C"}"#]);
        assert_eq!(out, r#"[{"name":"A"},{"name":"B"},{"name":"C"}]"#);
        assert!(out.starts_with(&base[..base.len() - 1]));
        assert_eq!(append_definitions("[]", [r#"{"x":1}"#]), r#"[{"x":1}]"#);
        assert_eq!(append_definitions("[]", []), "[]");
        let block = ToolBlock::plain(out.into());
        assert_eq!(block.loaded_count(), 3);
    }
}
