//! Runtime settings: the concurrency limit and the input limits.

/// The environment variable that overrides the concurrency limit.
pub const MAX_CONCURRENCY_ENV: &str = "GATEHOUSE_MAX_TOOL_USE_CONCURRENCY";
/// The concurrency limit when nothing overrides it.
pub const DEFAULT_MAX_CONCURRENCY: usize = 10;
/// The largest tool_use input accepted, in bytes of JSON.
pub const DEFAULT_MAX_INPUT_BYTES: usize = 1024 * 1024;

/// Settings of the tool runtime.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuntimeConfig {
    /// How many concurrency-safe calls may run at once (the setting; the
    /// env var overrides it, see [`resolve_max_concurrency`]).
    pub max_tool_use_concurrency: Option<usize>,
    /// Inputs larger than this (as JSON) are refused before anything runs.
    pub max_input_bytes: usize,
    /// When deferred tools are listed by name only (the setting;
    /// `ENABLE_TOOL_SEARCH` overrides it, see
    /// [`crate::deferral::ToolSearchMode::resolve`]).
    pub tool_search: Option<crate::deferral::ToolSearchMode>,
}

impl Default for RuntimeConfig {
    fn default() -> Self {
        Self {
            max_tool_use_concurrency: None,
            max_input_bytes: DEFAULT_MAX_INPUT_BYTES,
            tool_search: None,
        }
    }
}

impl RuntimeConfig {
    /// The ToolSearch mode in force, reading the environment now.
    pub fn tool_search_mode(&self) -> crate::deferral::ToolSearchMode {
        crate::deferral::ToolSearchMode::resolve(
            std::env::var(crate::deferral::TOOL_SEARCH_ENV)
                .ok()
                .as_deref(),
            self.tool_search,
        )
    }

    /// The effective concurrency limit, reading the environment now.
    pub fn max_concurrency(&self) -> usize {
        resolve_max_concurrency(
            std::env::var(MAX_CONCURRENCY_ENV).ok().as_deref(),
            self.max_tool_use_concurrency,
        )
    }
}

/// The concurrency limit: the env var if it holds a positive integer, else
/// the setting if positive, else 10. The env var wins because it is the
/// quick, per-launch override (as in Claude Code); invalid values are
/// ignored rather than turning the limit off.
pub fn resolve_max_concurrency(env: Option<&str>, setting: Option<usize>) -> usize {
    env.and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|n| *n > 0)
        .or(setting.filter(|n| *n > 0))
        .unwrap_or(DEFAULT_MAX_CONCURRENCY)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn env_beats_setting_beats_default_and_bad_values_are_ignored() {
        assert_eq!(resolve_max_concurrency(None, None), 10);
        assert_eq!(resolve_max_concurrency(None, Some(3)), 3);
        assert_eq!(resolve_max_concurrency(Some("7"), Some(3)), 7);
        assert_eq!(resolve_max_concurrency(Some(" 2 "), None), 2);
        assert_eq!(resolve_max_concurrency(Some("0"), Some(3)), 3);
        assert_eq!(resolve_max_concurrency(Some("lots"), None), 10);
        assert_eq!(resolve_max_concurrency(Some("-4"), Some(0)), 10);
    }
}
