//! The seam between the Bash tool and the permission engine's shell analysis
//! (SPEC §5).
//!
//! Bash does not parse shell itself. Whether a command changes nothing (and
//! may therefore run beside other safe calls) and what the tool's own
//! permission verdict is are both answered by a [`CommandClassifier`]; the
//! permission engine (`gatehouse-permissions`) provides the real one. Until
//! it is plugged in, [`FailClosedClassifier`] applies: no command is
//! read-only, and the tool has no opinion on permissions.

use gatehouse_core::permission::ToolPermissionVerdict;

/// Classifies shell command lines for the Bash tool.
pub trait CommandClassifier: Send + Sync + std::fmt::Debug {
    /// True only when every part of `command` is known to change nothing
    /// (no writes, no redirections to files, no substitutions). Decides
    /// `is_read_only` and `is_concurrency_safe` of the Bash call.
    fn is_read_only(&self, command: &str) -> bool;

    /// The Bash tool's own permission verdict for `command` (evaluation
    /// step 3): e.g. ask for command substitution, deny for an unparseable
    /// line.
    fn check(&self, command: &str) -> ToolPermissionVerdict;
}

/// The fail-closed classifier: nothing is read-only (every Bash call runs
/// alone), and the verdict is always passthrough (the general engine and
/// the user decide).
#[derive(Debug, Default, Clone, Copy)]
pub struct FailClosedClassifier;

impl CommandClassifier for FailClosedClassifier {
    fn is_read_only(&self, _command: &str) -> bool {
        false
    }

    fn check(&self, _command: &str) -> ToolPermissionVerdict {
        ToolPermissionVerdict::Passthrough
    }
}
