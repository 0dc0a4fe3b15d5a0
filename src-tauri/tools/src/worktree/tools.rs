//! EnterWorktree / ExitWorktree: move the session into a fresh git worktree
//! of its project and back (a context modifier changes the working
//! directory of every later call).

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use async_trait::async_trait;
use gatehouse_core::permission::ToolPermissionVerdict;
use gatehouse_core::tool::{CallContext, ToolResult};
use gatehouse_core::typed::TypedTool;
use gatehouse_core::{ContextModifier, ToolError, ToolUseContext, names};
use gatehouse_protocol::event::ContentBlock;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{ExitReport, Worktree, WorktreeError, WorktreeManager};

/// A default name for a worktree: `<prefix>-<pid>-<n>`, unique per process.
pub fn default_name(prefix: &str) -> String {
    static NEXT: AtomicU32 = AtomicU32::new(1);
    format!(
        "{prefix}-{:x}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

fn tool_error(e: WorktreeError) -> ToolError {
    match e {
        WorktreeError::Git(_) | WorktreeError::Io { .. } => ToolError::failed(e.to_string()),
        other => ToolError::invalid(other.to_string()),
    }
}

/// EnterWorktree's input.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EnterWorktreeInput {
    /// A name for the worktree (its folder and the branch
    /// `gatehouse/<name>`); letters, digits, '-', '_', '.'. Default: a new
    /// unique name.
    #[serde(default)]
    pub name: Option<String>,
}

/// EnterWorktree's and ExitWorktree's output.
#[derive(Debug, Clone, Serialize)]
pub struct WorktreeOutput {
    /// The worktree folder.
    pub path: String,
    /// Its branch.
    pub branch: String,
    /// The working directory from now on.
    pub cwd: String,
    /// ExitWorktree: whether the folder was removed.
    pub removed: Option<bool>,
    /// ExitWorktree: whether the branch was deleted.
    pub branch_deleted: Option<bool>,
    /// ExitWorktree: commits made on the branch.
    pub commits: Option<u32>,
    /// What happened, for the model.
    pub message: String,
}

/// EnterWorktree: creates a git worktree and works in it.
#[derive(Debug)]
pub struct EnterWorktreeTool {
    worktrees: Arc<WorktreeManager>,
}

impl EnterWorktreeTool {
    /// An EnterWorktree over `worktrees`.
    pub fn new(worktrees: Arc<WorktreeManager>) -> Self {
        Self { worktrees }
    }
}

/// The sentence describing a new worktree.
pub fn entered_message(wt: &Worktree) -> String {
    let mut m = format!(
        "Created the git worktree {} on the new branch {} (from {}); the working directory is now {}. \
         Its files are decided by the project's permission rules as the project's own.",
        wt.path.display(),
        wt.branch,
        &wt.base_commit[..wt.base_commit.len().min(12)],
        wt.cwd.display()
    );
    if wt.uncommitted_in_origin > 0 {
        m.push_str(&format!(
            " Note: {} uncommitted change(s) in {} are not in the worktree (it starts at the last commit).",
            wt.uncommitted_in_origin,
            wt.repo_root.display()
        ));
    }
    m
}

#[async_trait]
impl TypedTool for EnterWorktreeTool {
    type Input = EnterWorktreeInput;
    type Output = WorktreeOutput;

    fn name(&self) -> &str {
        names::ENTER_WORKTREE
    }

    fn description(&self) -> &str {
        "Creates a fresh git worktree of the project (a new branch from the last commit, in its own folder) and moves this session into it: \
         later calls work there, isolated from the project's own working tree. Leave it with ExitWorktree (keep or remove)."
    }

    fn search_hint(&self) -> Option<&str> {
        Some("git worktree isolate branch")
    }

    async fn check_permissions(
        &self,
        _input: &EnterWorktreeInput,
        _ctx: &ToolUseContext,
    ) -> ToolPermissionVerdict {
        ToolPermissionVerdict::Allow {
            reason: "a worktree is a new folder and branch; the project's files are not changed"
                .into(),
        }
    }

    async fn call(
        &self,
        input: EnterWorktreeInput,
        cx: CallContext<'_>,
    ) -> Result<ToolResult<WorktreeOutput>, ToolError> {
        if let Some(wt) = self.worktrees.containing(&cx.ctx.cwd) {
            return Err(ToolError::invalid(format!(
                "this session already works in the worktree {} (branch {}); call ExitWorktree first",
                wt.path.display(),
                wt.branch
            )));
        }
        let name = input.name.unwrap_or_else(|| default_name("session"));
        let wt = tokio::select! {
            r = self.worktrees.create(&cx.ctx.cwd, &name) => r.map_err(tool_error)?,
            () = cx.cancel.cancelled() => return Err(ToolError::Cancelled),
        };
        let message = entered_message(&wt);
        let cwd = wt.cwd.clone();
        Ok(ToolResult::new(WorktreeOutput {
            path: wt.path.display().to_string(),
            branch: wt.branch.clone(),
            cwd: cwd.display().to_string(),
            removed: None,
            branch_deleted: None,
            commits: None,
            message,
        })
        .with_context_modifier(ContextModifier::new(
            format!(
                "the working directory is now the worktree {}",
                cwd.display()
            ),
            move |ctx| ctx.cwd = cwd,
        )))
    }

    fn map_result(&self, output: &WorktreeOutput, _tool_use_id: &str) -> Vec<ContentBlock> {
        vec![ContentBlock::Text {
            text: output.message.clone(),
        }]
    }
}

/// What ExitWorktree does with the worktree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ExitAction {
    /// Leave the folder and branch for later.
    Keep,
    /// Delete the folder (and the branch when it has no commits).
    Remove,
}

/// ExitWorktree's input.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExitWorktreeInput {
    /// `keep` the worktree or `remove` it.
    pub action: ExitAction,
    /// With `remove`: delete it even though it has uncommitted changes
    /// (they are lost). Default false: removing refuses then.
    #[serde(default)]
    pub discard_changes: bool,
}

/// ExitWorktree: leaves the worktree EnterWorktree made.
#[derive(Debug)]
pub struct ExitWorktreeTool {
    worktrees: Arc<WorktreeManager>,
}

impl ExitWorktreeTool {
    /// An ExitWorktree over `worktrees`.
    pub fn new(worktrees: Arc<WorktreeManager>) -> Self {
        Self { worktrees }
    }
}

/// The sentence describing an exit.
pub fn exit_message(r: &ExitReport) -> String {
    let wt = &r.worktree;
    if r.removed {
        format!(
            "Removed the worktree {}; {}.",
            wt.path.display(),
            if r.branch_deleted {
                format!("its branch {} had no commits and was deleted", wt.branch)
            } else {
                format!("its branch {} keeps its {} commit(s)", wt.branch, r.commits)
            }
        )
    } else {
        format!(
            "Kept the worktree {} on branch {} ({} commit(s) since it started).",
            wt.path.display(),
            wt.branch,
            r.commits
        )
    }
}

#[async_trait]
impl TypedTool for ExitWorktreeTool {
    type Input = ExitWorktreeInput;
    type Output = WorktreeOutput;

    fn name(&self) -> &str {
        names::EXIT_WORKTREE
    }

    fn description(&self) -> &str {
        "Leaves the git worktree EnterWorktree created and returns to the project folder. `action`: keep (folder and branch stay) or remove \
         (refused while it has uncommitted changes, unless discard_changes is true; the branch is deleted only when it has no commits)."
    }

    fn search_hint(&self) -> Option<&str> {
        Some("leave remove git worktree")
    }

    fn is_destructive(&self, input: &ExitWorktreeInput) -> bool {
        input.action == ExitAction::Remove && input.discard_changes
    }

    async fn check_permissions(
        &self,
        input: &ExitWorktreeInput,
        _ctx: &ToolUseContext,
    ) -> ToolPermissionVerdict {
        if input.action == ExitAction::Remove && input.discard_changes {
            // Losing uncommitted work is decided like any other write.
            ToolPermissionVerdict::Passthrough
        } else {
            ToolPermissionVerdict::Allow {
                reason:
                    "keeping, or removing a worktree without uncommitted changes, loses nothing"
                        .into(),
            }
        }
    }

    async fn call(
        &self,
        input: ExitWorktreeInput,
        cx: CallContext<'_>,
    ) -> Result<ToolResult<WorktreeOutput>, ToolError> {
        let Some(wt) = self.worktrees.containing(&cx.ctx.cwd) else {
            return Err(ToolError::invalid(format!(
                "the working directory {} is not a worktree EnterWorktree made in this session; nothing to exit",
                cx.ctx.cwd.display()
            )));
        };
        let report = match input.action {
            ExitAction::Keep => self.worktrees.keep(&wt).await,
            ExitAction::Remove => self.worktrees.remove(&wt, input.discard_changes).await,
        }
        .map_err(tool_error)?;
        let back = wt.origin_cwd.clone();
        Ok(ToolResult::new(WorktreeOutput {
            path: wt.path.display().to_string(),
            branch: wt.branch.clone(),
            cwd: back.display().to_string(),
            removed: Some(report.removed),
            branch_deleted: Some(report.branch_deleted),
            commits: Some(report.commits),
            message: format!(
                "{} The working directory is {} again.",
                exit_message(&report),
                back.display()
            ),
        })
        .with_context_modifier(ContextModifier::new(
            format!("the working directory is {} again", back.display()),
            move |ctx| ctx.cwd = back,
        )))
    }

    fn map_result(&self, output: &WorktreeOutput, _tool_use_id: &str) -> Vec<ContentBlock> {
        vec![ContentBlock::Text {
            text: output.message.clone(),
        }]
    }
}
