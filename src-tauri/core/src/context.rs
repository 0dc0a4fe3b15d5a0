//! The execution context every call sees, and the modifiers that change it.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use gatehouse_protocol::permission::PermissionMode;

/// What a call runs in: the session, the working directories, the mode, and
/// whatever later subsystems attach (file-state cache, task registry, …) as
/// typed [`Extensions`].
///
/// The scheduler hands each call a snapshot; a non-concurrency-safe call can
/// change it for the calls after it through a [`ContextModifier`].
#[derive(Debug, Clone, Default)]
pub struct ToolUseContext {
    /// The session the calls belong to.
    pub session_id: String,
    /// The current working directory.
    pub cwd: PathBuf,
    /// Further directories the agent may work in.
    pub additional_dirs: Vec<PathBuf>,
    /// The permission mode in force (informational for tools; the permission
    /// engine keeps its own copy).
    pub permission_mode: PermissionMode,
    /// Set when the calls come from a sub-agent rather than the main thread.
    pub agent_id: Option<String>,
    /// Typed state attached by other subsystems.
    pub extensions: Extensions,
}

/// A type map of shared values (one per type), cheap to clone.
#[derive(Clone, Default)]
pub struct Extensions {
    map: HashMap<TypeId, Arc<dyn Any + Send + Sync>>,
}

impl fmt::Debug for Extensions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Extensions")
            .field("len", &self.map.len())
            .finish()
    }
}

impl Extensions {
    /// Attaches `value`, replacing any earlier value of the same type.
    pub fn insert<T: Any + Send + Sync>(&mut self, value: T) {
        self.map.insert(TypeId::of::<T>(), Arc::new(value));
    }

    /// The value of type `T`, if one is attached.
    pub fn get<T: Any + Send + Sync>(&self) -> Option<&T> {
        self.map
            .get(&TypeId::of::<T>())
            .and_then(|v| v.downcast_ref::<T>())
    }
}

/// A change to the [`ToolUseContext`] returned by a call ("the working
/// directory is now X", "mode is now plan").
///
/// Honoured only for tools that are not concurrency-safe, and applied only
/// between batches: calls running side by side must not change each other's
/// world mid-flight.
pub struct ContextModifier {
    description: String,
    apply: Box<dyn FnOnce(&mut ToolUseContext) + Send + Sync>,
}

impl fmt::Debug for ContextModifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ContextModifier")
            .field("description", &self.description)
            .finish_non_exhaustive()
    }
}

impl ContextModifier {
    /// A modifier described by `description` (shown in the `context_modified`
    /// event) that runs `apply`.
    pub fn new(
        description: impl Into<String>,
        apply: impl FnOnce(&mut ToolUseContext) + Send + Sync + 'static,
    ) -> Self {
        Self {
            description: description.into(),
            apply: Box::new(apply),
        }
    }

    /// What the modifier does.
    pub fn description(&self) -> &str {
        &self.description
    }

    /// Applies the modifier.
    pub fn apply(self, ctx: &mut ToolUseContext) {
        (self.apply)(ctx);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn extensions_are_typed_and_replaceable() {
        let mut ext = Extensions::default();
        assert!(ext.get::<u32>().is_none());
        ext.insert(7_u32);
        ext.insert(String::from("x"));
        ext.insert(9_u32);
        assert_eq!(ext.get::<u32>(), Some(&9));
        assert_eq!(ext.get::<String>().map(String::as_str), Some("x"));
    }

    #[test]
    fn modifier_applies_its_change() {
        let mut ctx = ToolUseContext::default();
        let m = ContextModifier::new("cwd is now /tmp/x", |c| c.cwd = "/tmp/x".into());
        assert_eq!(m.description(), "cwd is now /tmp/x");
        m.apply(&mut ctx);
        assert_eq!(ctx.cwd, PathBuf::from("/tmp/x"));
    }
}
