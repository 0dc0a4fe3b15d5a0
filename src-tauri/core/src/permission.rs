//! The seam between the dispatch pipeline and the permission engine.
//!
//! The pipeline owns *when* a permission check happens (after validation and
//! PreToolUse hooks, before the call) and enforces the hook invariant; the
//! engine (`gatehouse-permissions`) owns *what* the answer is. The engine
//! implements [`PermissionResolver`]; tests use small resolvers of their own.

use std::path::PathBuf;

use gatehouse_protocol::permission::PermissionDecision;

/// What rules about a call match on, as declared by the tool's
/// `permission_subject` (SPEC §1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PermissionSubject {
    /// A shell command line (Bash).
    Command(String),
    /// A file-system path the call reads (Read, Glob, Grep: the search root).
    ReadPath(PathBuf),
    /// A file-system path the call writes (Edit, Write, NotebookEdit).
    WritePath(PathBuf),
    /// A URL the call fetches (WebFetch); rules match on its domain.
    Url(String),
    /// A sub-agent type (Agent).
    AgentType(String),
    /// A skill's name (Skill): `Skill(name)` rules match it.
    SkillName(String),
}

/// A tool's own verdict from `check_permissions` (evaluation step 3).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ToolPermissionVerdict {
    /// The tool has no opinion; the general engine decides.
    #[default]
    Passthrough,
    /// The tool says the call is safe (e.g. a read-only shell command).
    Allow {
        /// Why, for the decision trace.
        reason: String,
    },
    /// The tool wants the user asked (e.g. command substitution in Bash).
    Ask {
        /// Why, shown to the user.
        reason: String,
    },
    /// The tool refuses the call.
    Deny {
        /// Why, shown to the model and the user.
        reason: String,
    },
}

/// Everything the engine needs to decide one call.
#[derive(Debug, Clone, Copy)]
pub struct PermissionQuery<'a> {
    /// The tool's canonical name (`Bash`, `Read`, `mcp__srv__tool`).
    pub tool_name: &'a str,
    /// The observable (backfilled) input: what hooks and rules see.
    pub input: &'a serde_json::Value,
    /// What rules match on, if the tool declares a subject.
    pub subject: Option<&'a PermissionSubject>,
    /// `is_read_only(input)` of the tool.
    pub is_read_only: bool,
    /// `is_destructive(input)` of the tool.
    pub is_destructive: bool,
    /// `requires_user_interaction()`: such a call can never be auto-approved.
    pub requires_user_interaction: bool,
    /// The tool's own `check_permissions` verdict.
    pub tool_verdict: &'a ToolPermissionVerdict,
}

/// The permission engine as the pipeline and the registry see it.
pub trait PermissionResolver: Send + Sync {
    /// True when a deny rule names the whole tool (`Bash`) or its MCP server
    /// (`mcp__srv`): such tools are left out of the pool entirely.
    fn is_blanket_denied(&self, tool_name: &str) -> bool;

    /// Decides one call, with its reason and the trace of every layer.
    ///
    /// The decision is made on rules, the tool's verdict, safety checks and
    /// the mode only; PreToolUse hook results are combined with it by the
    /// pipeline, which guarantees that a hook's allow never overrides a
    /// decision whose reason is a rule, a safety check, a tool check or a
    /// working-directory check.
    fn decide(&self, query: &PermissionQuery<'_>) -> PermissionDecision;

    /// Decides a call of a sub-agent whose definition asks for the mode
    /// `requested` (issue 19: `permissionMode`). The resolver applies it
    /// only as far as the session's own policy allows (never more
    /// permissive); the default ignores it and decides as the session.
    fn decide_in_subagent_mode(
        &self,
        query: &PermissionQuery<'_>,
        requested: gatehouse_protocol::permission::PermissionMode,
    ) -> PermissionDecision {
        let _ = requested;
        self.decide(query)
    }

    /// Decides paths under `alias` as the same paths under `root` (a git
    /// worktree of the project: the project's rules, working directories
    /// and trust carry over). False when this resolver cannot, in which
    /// case worktree paths are decided as any folder outside the project.
    fn add_root_alias(&self, alias: &std::path::Path, root: &std::path::Path) -> bool {
        let _ = (alias, root);
        false
    }

    /// Ends [`Self::add_root_alias`] for `alias`.
    fn remove_root_alias(&self, alias: &std::path::Path) {
        let _ = alias;
    }
}

/// The resolver of a sub-agent whose definition names a permission mode:
/// every decision goes to [`PermissionResolver::decide_in_subagent_mode`]
/// of the session's resolver.
pub struct SubagentModeResolver {
    /// The session's resolver.
    pub inner: std::sync::Arc<dyn PermissionResolver>,
    /// The mode the definition asks for.
    pub requested: gatehouse_protocol::permission::PermissionMode,
}

impl PermissionResolver for SubagentModeResolver {
    fn is_blanket_denied(&self, tool_name: &str) -> bool {
        self.inner.is_blanket_denied(tool_name)
    }

    fn decide(&self, query: &PermissionQuery<'_>) -> PermissionDecision {
        self.inner.decide_in_subagent_mode(query, self.requested)
    }

    fn add_root_alias(&self, alias: &std::path::Path, root: &std::path::Path) -> bool {
        self.inner.add_root_alias(alias, root)
    }

    fn remove_root_alias(&self, alias: &std::path::Path) {
        self.inner.remove_root_alias(alias);
    }
}
