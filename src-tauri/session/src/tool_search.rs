//! The session's ToolSearch mode from its settings files (issue 21).
//!
//! Claude Code turns deferral on or off with `ENABLE_TOOL_SEARCH`, which a
//! user sets in the shell or, for good, in a settings file's `env`:
//!
//! ```json
//! {"env": {"ENABLE_TOOL_SEARCH": "auto:5"}}
//! ```
//!
//! The process environment still beats every file (it is read when the
//! runtime decides, [`gatehouse_core::config::RuntimeConfig::tool_search_mode`]);
//! a file beats the host's own default. A value that does not parse is a
//! warning naming the file and position, and the mode falls back as if the
//! key were absent — never to a surprising "on".

use gatehouse_core::deferral::{TOOL_SEARCH_ENV, ToolSearchMode};
use gatehouse_permissions::sources::LoadedSettings;

/// The mode `settings` set with `env.ENABLE_TOOL_SEARCH` (the
/// highest-precedence trusted file that sets it), else `fallback`. A value
/// that does not parse adds a warning and yields `fallback`.
pub fn mode_from_settings(
    settings: &LoadedSettings,
    fallback: Option<ToolSearchMode>,
    warnings: &mut Vec<String>,
) -> Option<ToolSearchMode> {
    let Some(var) = settings.env_var(TOOL_SEARCH_ENV) else {
        return fallback;
    };
    match ToolSearchMode::parse(&var.value) {
        Some(mode) => Some(mode),
        None => {
            warnings.push(format!(
                "{}: env.{TOOL_SEARCH_ENV} {:?} is not one of true, false, auto or auto:N \
                 (N a percentage 1-100); it is ignored",
                var.location(),
                var.value
            ));
            fallback
        }
    }
}
