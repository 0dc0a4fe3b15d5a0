//! Git worktrees (issue 19 item 5): `EnterWorktree` / `ExitWorktree` and
//! the Agent tool's `isolation: "worktree"`.
//!
//! A worktree is made with the real `git worktree add -b <branch>` from the
//! repository's HEAD, in `<data dir>/worktrees/<repo>-<hash>/<name>` — not
//! in the project's `.claude/worktrees/` as Claude Code does, because a
//! folder inside the project shows up as untracked in its `git status`, in
//! its Grep/Glob results and under the protected `.claude/` folder (every
//! write there asks). The permission engine decides paths in the worktree
//! as the same paths in the repository ([`PermissionResolver::add_root_alias`]),
//! so the project's rules, working directories, trust and `.claude/`
//! settings carry over. Removing refuses while the worktree has uncommitted
//! changes unless told to discard them; its branch is deleted only when it
//! has no commits of its own.
//!
//! | module | what |
//! |---|---|
//! | [`git`] | running git, bounded |
//! | [`tools`] | EnterWorktree, ExitWorktree |

pub mod git;
pub mod tools;

pub use tools::{EnterWorktreeTool, ExitWorktreeTool};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use gatehouse_core::permission::PermissionResolver;

use self::git::{GitError, git};

/// Why a worktree could not be made or removed.
#[derive(Debug, thiserror::Error)]
pub enum WorktreeError {
    /// The folder is not inside a git repository.
    #[error("{path} is not inside a git repository, so no worktree can be made there ({detail})")]
    NotARepo {
        /// The folder.
        path: PathBuf,
        /// What git said.
        detail: String,
    },
    /// The repository has no commit to start the worktree from.
    #[error("the repository {0} has no commit yet; commit once before asking for a worktree")]
    NoCommit(PathBuf),
    /// The name cannot be a folder and branch name.
    #[error("the worktree name {name:?} is not usable: {why}")]
    BadName {
        /// The name asked for.
        name: String,
        /// What is wrong.
        why: String,
    },
    /// The target folder or branch is already taken.
    #[error("the worktree target is not clean: {0}")]
    DirtyTarget(String),
    /// The worktree has changes that removing it would lose.
    #[error(
        "the worktree {path} has uncommitted changes ({}); commit them, keep the worktree, or remove it with discard_changes: true",
        files.join(", ")
    )]
    Uncommitted {
        /// The worktree.
        path: PathBuf,
        /// The changed files (at most ten, then "…").
        files: Vec<String>,
    },
    /// A git command failed.
    #[error(transparent)]
    Git(#[from] GitError),
    /// A file operation failed.
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

/// One worktree made by a [`WorktreeManager`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Worktree {
    /// Its folder (canonical).
    pub path: PathBuf,
    /// The new branch it is on.
    pub branch: String,
    /// The repository's main folder (canonical).
    pub repo_root: PathBuf,
    /// The commit it started from.
    pub base_commit: String,
    /// The folder to work in: the same place in the worktree as the folder
    /// it was asked from in the repository.
    pub cwd: PathBuf,
    /// The folder it was asked from (where ExitWorktree returns).
    pub origin_cwd: PathBuf,
    /// Uncommitted changes in the repository that the worktree does not
    /// have (it starts at HEAD).
    pub uncommitted_in_origin: usize,
}

/// What removing or keeping a worktree did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExitReport {
    /// The worktree.
    pub worktree: Worktree,
    /// Whether its folder was removed.
    pub removed: bool,
    /// Whether its branch was deleted (only without commits of its own).
    pub branch_deleted: bool,
    /// Commits on its branch since it started.
    pub commits: u32,
}

/// The worktrees of one session.
pub struct WorktreeManager {
    base: PathBuf,
    resolver: Arc<dyn PermissionResolver>,
    active: Mutex<BTreeMap<PathBuf, Worktree>>,
}

impl std::fmt::Debug for WorktreeManager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WorktreeManager")
            .field("base", &self.base)
            .finish_non_exhaustive()
    }
}

/// The longest worktree name.
pub const MAX_NAME: usize = 64;

/// Checks a worktree name: it becomes a folder and `gatehouse/<name>`.
pub fn check_name(name: &str) -> Result<(), WorktreeError> {
    let bad = |why: &str| {
        Err(WorktreeError::BadName {
            name: name.to_owned(),
            why: why.to_owned(),
        })
    };
    if name.is_empty() || name.len() > MAX_NAME {
        return bad(&format!("it must have 1 to {MAX_NAME} characters"));
    }
    if name.starts_with(['.', '-']) || name.ends_with(".lock") || name.contains("..") {
        return bad("it may not start with '.' or '-', contain '..' or end with '.lock'");
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    {
        return bad("only letters, digits, '-', '_' and '.' are allowed");
    }
    Ok(())
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl WorktreeManager {
    /// Worktrees under `base` (normally `<data dir>/worktrees`), decided by
    /// `resolver` as the repository's folders.
    pub fn new(base: impl Into<PathBuf>, resolver: Arc<dyn PermissionResolver>) -> Arc<Self> {
        Arc::new(Self {
            base: base.into(),
            resolver,
            active: Mutex::new(BTreeMap::new()),
        })
    }

    /// Where worktrees are made.
    pub fn base(&self) -> &Path {
        &self.base
    }

    /// The worktree made here that contains `cwd`, if any.
    pub fn containing(&self, cwd: &Path) -> Option<Worktree> {
        let cwd = cwd.canonicalize().unwrap_or_else(|_| cwd.to_path_buf());
        lock(&self.active)
            .values()
            .find(|w| cwd.starts_with(&w.path))
            .cloned()
    }

    /// Makes a worktree named `name` of the repository containing `from`,
    /// on the new branch `gatehouse/<name>` at HEAD.
    pub async fn create(&self, from: &Path, name: &str) -> Result<Worktree, WorktreeError> {
        check_name(name)?;
        let from = from.canonicalize().map_err(|source| WorktreeError::Io {
            context: format!("the folder {}", from.display()),
            source,
        })?;
        let top = git(&from, &["rev-parse", "--show-toplevel"])
            .await
            .map_err(|e| match e {
                GitError::Failed { stderr, .. } => WorktreeError::NotARepo {
                    path: from.clone(),
                    detail: stderr,
                },
                other => WorktreeError::Git(other),
            })?;
        let repo_root =
            PathBuf::from(top.trim())
                .canonicalize()
                .map_err(|source| WorktreeError::Io {
                    context: format!("the repository folder {}", top.trim()),
                    source,
                })?;
        let base_commit = match git(&repo_root, &["rev-parse", "--verify", "HEAD^{commit}"]).await {
            Ok(c) => c.trim().to_owned(),
            Err(GitError::Failed { .. }) => return Err(WorktreeError::NoCommit(repo_root)),
            Err(e) => return Err(e.into()),
        };
        let branch = format!("gatehouse/{name}");
        if git(
            &repo_root,
            &[
                "rev-parse",
                "--verify",
                "--quiet",
                format!("refs/heads/{branch}").as_str(),
            ],
        )
        .await
        .is_ok()
        {
            return Err(WorktreeError::DirtyTarget(format!(
                "the branch {branch} already exists in {}; choose another name",
                repo_root.display()
            )));
        }
        let folder = self.base.join(repo_key(&repo_root)).join(name);
        if std::fs::read_dir(&folder).is_ok_and(|mut d| d.next().is_some()) {
            return Err(WorktreeError::DirtyTarget(format!(
                "the folder {} already exists and is not empty; choose another name or remove it",
                folder.display()
            )));
        }
        if let Some(parent) = folder.parent() {
            std::fs::create_dir_all(parent).map_err(|source| WorktreeError::Io {
                context: format!("creating {}", parent.display()),
                source,
            })?;
        }
        let folder_text = folder.display().to_string();
        git(
            &repo_root,
            &[
                "worktree",
                "add",
                "-b",
                branch.as_str(),
                folder_text.as_str(),
                base_commit.as_str(),
            ],
        )
        .await?;
        let path = folder.canonicalize().map_err(|source| WorktreeError::Io {
            context: format!("the new worktree {}", folder.display()),
            source,
        })?;
        let relative = from.strip_prefix(&repo_root).unwrap_or(Path::new(""));
        let uncommitted_in_origin = git(&repo_root, &["status", "--porcelain"])
            .await
            .map(|s| s.lines().count())
            .unwrap_or(0);
        let wt = Worktree {
            cwd: path.join(relative),
            path: path.clone(),
            branch,
            repo_root: repo_root.clone(),
            base_commit,
            origin_cwd: from,
            uncommitted_in_origin,
        };
        self.resolver.add_root_alias(&path, &repo_root);
        lock(&self.active).insert(path, wt.clone());
        Ok(wt)
    }

    /// The uncommitted changes in `worktree` (`git status --porcelain`
    /// lines).
    pub async fn changes(&self, worktree: &Worktree) -> Result<Vec<String>, WorktreeError> {
        Ok(git(&worktree.path, &["status", "--porcelain"])
            .await?
            .lines()
            .map(|l| l.get(3..).unwrap_or(l).to_owned())
            .collect())
    }

    /// Commits on the worktree's branch since it started.
    pub async fn commits(&self, worktree: &Worktree) -> Result<u32, WorktreeError> {
        let range = format!("{}..HEAD", worktree.base_commit);
        Ok(
            git(&worktree.path, &["rev-list", "--count", range.as_str()])
                .await?
                .trim()
                .parse()
                .unwrap_or(0),
        )
    }

    /// Leaves `worktree` in place (its folder and branch stay; its paths
    /// are still decided as the repository's).
    pub async fn keep(&self, worktree: &Worktree) -> Result<ExitReport, WorktreeError> {
        let commits = self.commits(worktree).await?;
        Ok(ExitReport {
            worktree: worktree.clone(),
            removed: false,
            branch_deleted: false,
            commits,
        })
    }

    /// Removes `worktree` (`git worktree remove`); refuses while it has
    /// uncommitted changes unless `discard_changes`. Its branch is deleted
    /// when it has no commits of its own, else kept (nothing committed is
    /// lost).
    pub async fn remove(
        &self,
        worktree: &Worktree,
        discard_changes: bool,
    ) -> Result<ExitReport, WorktreeError> {
        let changes = self.changes(worktree).await?;
        if !changes.is_empty() && !discard_changes {
            let mut files: Vec<String> = changes.iter().take(10).cloned().collect();
            if changes.len() > 10 {
                files.push(format!("… {} more", changes.len() - 10));
            }
            return Err(WorktreeError::Uncommitted {
                path: worktree.path.clone(),
                files,
            });
        }
        let commits = self.commits(worktree).await?;
        let path = worktree.path.display().to_string();
        let mut args = vec!["worktree", "remove"];
        if discard_changes {
            args.push("--force");
        }
        args.push(path.as_str());
        git(&worktree.repo_root, &args).await?;
        let branch_deleted = commits == 0
            && git(
                &worktree.repo_root,
                &["branch", "-D", worktree.branch.as_str()],
            )
            .await
            .is_ok();
        self.resolver.remove_root_alias(&worktree.path);
        lock(&self.active).remove(&worktree.path);
        Ok(ExitReport {
            worktree: worktree.clone(),
            removed: true,
            branch_deleted,
            commits,
        })
    }
}

/// `<repo folder name>-<hash of its path>`: one folder per repository.
fn repo_key(root: &Path) -> String {
    let name: String = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "repo".into())
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(40)
        .collect();
    let hash = gatehouse_core::stable_hash::fnv1a(root.display().to_string().as_bytes());
    format!("{name}-{:08x}", hash & 0xffff_ffff)
}
