//! The Bash sandbox as the permission engine sees it (issue 24): which
//! commands run confined, and whether `autoAllowBashIfSandboxed` lets a
//! confined command that would only ask run without asking.
//!
//! The engine learns this from the session ([`crate::PermissionEngine::set_bash_sandbox`])
//! only when the sandbox really runs: an enabled sandbox that is
//! unavailable leaves it unset, so nothing is auto-allowed unconfined.

use std::sync::Arc;

/// The session's sandbox, for Bash decisions.
#[derive(Clone)]
pub struct BashSandboxRules {
    /// `sandbox.autoAllowBashIfSandboxed`.
    pub auto_allow: bool,
    /// `sandbox.excludedCommands`: true when the command runs outside.
    pub is_excluded: Arc<dyn Fn(&str) -> bool + Send + Sync>,
}

impl std::fmt::Debug for BashSandboxRules {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BashSandboxRules")
            .field("auto_allow", &self.auto_allow)
            .finish_non_exhaustive()
    }
}

/// Where one Bash call runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// Inside the sandbox.
    Sandboxed,
    /// Outside: one of `sandbox.excludedCommands`.
    Excluded,
    /// Outside: the call set `dangerouslyDisableSandbox` (always asks).
    DisabledByCall,
}

impl BashSandboxRules {
    /// Where `command` with Bash input `input` runs.
    pub fn placement(&self, command: &str, input: &serde_json::Value) -> Placement {
        if input.get("dangerouslyDisableSandbox") == Some(&serde_json::Value::Bool(true)) {
            Placement::DisabledByCall
        } else if (self.is_excluded)(command) {
            Placement::Excluded
        } else {
            Placement::Sandboxed
        }
    }
}
