//! Git worktrees against real repositories (issue 19 item 5): creation on a
//! new branch, the clear errors (not a repository, no commit, a taken
//! target, a bad name), removal refused with uncommitted changes, and
//! EnterWorktree / ExitWorktree moving a session's working directory.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use gatehouse_core::permission::{PermissionQuery, PermissionResolver};
use gatehouse_core::testing::TestResolver;
use gatehouse_core::typed::Typed;
use gatehouse_core::{CallStatus, ToolPool, ToolRuntime, ToolUseBlock, ToolUseContext};
use gatehouse_protocol::permission::PermissionDecision;
use gatehouse_tools::worktree::{
    EnterWorktreeTool, ExitWorktreeTool, WorktreeError, WorktreeManager,
};
use serde_json::json;
use tokio_util::sync::CancellationToken;

fn sh_git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A resolver that records the root aliases it is given.
#[derive(Default)]
struct Aliases(Mutex<Vec<(PathBuf, Option<PathBuf>)>>);

impl PermissionResolver for Aliases {
    fn is_blanket_denied(&self, _tool_name: &str) -> bool {
        false
    }

    fn decide(&self, query: &PermissionQuery<'_>) -> PermissionDecision {
        TestResolver::allow_all().decide(query)
    }

    fn add_root_alias(&self, alias: &Path, root: &Path) -> bool {
        self.0
            .lock()
            .unwrap()
            .push((alias.to_path_buf(), Some(root.to_path_buf())));
        true
    }

    fn remove_root_alias(&self, alias: &Path) {
        self.0.lock().unwrap().push((alias.to_path_buf(), None));
    }
}

struct Repo {
    _dir: tempfile::TempDir,
    root: PathBuf,
    base: PathBuf,
}

fn repo() -> Option<Repo> {
    gatehouse_test_support::require_tool("git", "Debian package git")?;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    std::fs::create_dir_all(root.join("src")).unwrap();
    let root = root.canonicalize().unwrap();
    sh_git(&root, &["init", "-q", "-b", "main"]);
    std::fs::write(root.join("src/lib.rs"), "pub fn a() {}\n").unwrap();
    sh_git(&root, &["add", "."]);
    sh_git(&root, &["commit", "-q", "-m", "first"]);
    let base = dir.path().join("data/worktrees");
    Some(Repo {
        _dir: dir,
        root,
        base,
    })
}

#[tokio::test]
async fn a_worktree_is_made_on_a_new_branch_and_removal_guards_uncommitted_work() {
    let Some(r) = repo() else { return };
    let aliases = Arc::new(Aliases::default());
    let m = WorktreeManager::new(&r.base, aliases.clone());
    // Asked from a subfolder: the worktree's cwd is the same subfolder.
    std::fs::write(r.root.join("dirty.txt"), "not committed\n").unwrap();
    let wt = m.create(&r.root.join("src"), "one").await.unwrap();
    assert!(
        wt.path.starts_with(r.base.canonicalize().unwrap()),
        "{wt:?}"
    );
    assert_eq!(wt.cwd, wt.path.join("src"));
    assert_eq!(wt.branch, "gatehouse/one");
    assert_eq!(wt.repo_root, r.root);
    assert_eq!(wt.uncommitted_in_origin, 1);
    assert!(wt.path.join("src/lib.rs").is_file());
    assert!(!wt.path.join("dirty.txt").exists(), "it starts at HEAD");
    let listed = sh_git(&r.root, &["worktree", "list", "--porcelain"]);
    assert!(listed.contains(&wt.path.display().to_string()), "{listed}");
    assert!(
        listed.contains("branch refs/heads/gatehouse/one"),
        "{listed}"
    );
    assert_eq!(
        aliases.0.lock().unwrap().as_slice(),
        [(wt.path.clone(), Some(r.root.clone()))]
    );
    assert_eq!(m.containing(&wt.cwd), Some(wt.clone()));
    // The project's `git status` does not see it (it is not inside).
    assert_eq!(
        sh_git(&r.root, &["status", "--porcelain"]),
        "?? dirty.txt\n"
    );

    // The same name again: the target is taken.
    let err = m.create(&r.root, "one").await.unwrap_err();
    assert!(matches!(err, WorktreeError::DirtyTarget(_)), "{err}");
    assert!(
        err.to_string()
            .contains("the branch gatehouse/one already exists"),
        "{err}"
    );

    // Uncommitted changes: removing refuses and names them.
    std::fs::write(wt.path.join("src/new.rs"), "// new\n").unwrap();
    let err = m.remove(&wt, false).await.unwrap_err();
    assert!(matches!(err, WorktreeError::Uncommitted { .. }), "{err}");
    assert!(err.to_string().contains("src/new.rs"), "{err}");
    assert!(err.to_string().contains("discard_changes: true"), "{err}");
    assert!(wt.path.is_dir());

    // Committed work survives a removal on its branch.
    sh_git(&wt.path, &["add", "."]);
    sh_git(&wt.path, &["commit", "-q", "-m", "agent work"]);
    let report = m.remove(&wt, false).await.unwrap();
    assert!(report.removed && !report.branch_deleted, "{report:?}");
    assert_eq!(report.commits, 1);
    assert!(!wt.path.exists());
    assert!(sh_git(&r.root, &["branch", "--list", "gatehouse/one"]).contains("gatehouse/one"));
    assert_eq!(m.containing(&wt.cwd), None);
    assert_eq!(
        aliases.0.lock().unwrap().last(),
        Some(&(wt.path.clone(), None))
    );

    // A worktree with nothing of its own goes with its branch; one with
    // uncommitted changes goes only when told to discard them.
    let two = m.create(&r.root, "two").await.unwrap();
    let report = m.remove(&two, false).await.unwrap();
    assert!(report.removed && report.branch_deleted, "{report:?}");
    let three = m.create(&r.root, "three").await.unwrap();
    std::fs::write(three.path.join("scratch"), "x").unwrap();
    let report = m.remove(&three, true).await.unwrap();
    assert!(report.removed && report.branch_deleted, "{report:?}");
    assert!(!three.path.exists());
}

#[tokio::test]
async fn bad_worktree_requests_get_clear_errors() {
    let Some(r) = repo() else { return };
    let m = WorktreeManager::new(&r.base, Arc::new(Aliases::default()));
    // Not a git repository.
    let plain = tempfile::tempdir().unwrap();
    let err = m.create(plain.path(), "x").await.unwrap_err();
    assert!(matches!(err, WorktreeError::NotARepo { .. }), "{err}");
    assert!(
        err.to_string().contains("is not inside a git repository"),
        "{err}"
    );
    // A repository without a commit.
    let empty = tempfile::tempdir().unwrap();
    sh_git(empty.path(), &["init", "-q"]);
    let err = m.create(empty.path(), "x").await.unwrap_err();
    assert!(matches!(err, WorktreeError::NoCommit(_)), "{err}");
    // A name that cannot be a branch.
    for bad in ["", "../up", "-x", "a b", "x.lock"] {
        let err = m.create(&r.root, bad).await.unwrap_err();
        assert!(
            matches!(err, WorktreeError::BadName { .. }),
            "{bad:?}: {err}"
        );
    }
    // A target folder someone else filled.
    let wt = m.create(&r.root, "taken").await.unwrap();
    let folder = wt.path.parent().unwrap().join("filled");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("file"), "x").unwrap();
    let err = m.create(&r.root, "filled").await.unwrap_err();
    assert!(
        err.to_string().contains("already exists and is not empty"),
        "{err}"
    );
}

#[tokio::test]
async fn enter_and_exit_worktree_move_the_working_directory() {
    let Some(r) = repo() else { return };
    let m = WorktreeManager::new(&r.base, Arc::new(Aliases::default()));
    let rt = ToolRuntime::builder(
        Arc::new(ToolPool::new(vec![
            Typed::arc(EnterWorktreeTool::new(Arc::clone(&m))),
            Typed::arc(ExitWorktreeTool::new(Arc::clone(&m))),
        ])),
        Arc::new(TestResolver::allow_all()),
        r.root.join(".session"),
    )
    .session_id("s")
    .build();
    let mut ctx = ToolUseContext {
        session_id: "s".into(),
        cwd: r.root.clone(),
        ..ToolUseContext::default()
    };
    let cancel = CancellationToken::new();
    let out = rt
        .run_one(
            ToolUseBlock::new("e1", "ExitWorktree", json!({"action": "keep"})),
            &mut ctx,
            &cancel,
        )
        .await;
    assert_eq!(out.status, CallStatus::Failed, "{}", out.text());
    assert!(
        out.text().contains("is not a worktree EnterWorktree made"),
        "{}",
        out.text()
    );

    let out = rt
        .run_one(
            ToolUseBlock::new("e2", "EnterWorktree", json!({"name": "feature"})),
            &mut ctx,
            &cancel,
        )
        .await;
    assert_eq!(out.status, CallStatus::Succeeded, "{}", out.text());
    let wt = m.containing(&ctx.cwd).expect("the cwd is the worktree");
    assert_eq!(ctx.cwd, wt.path);
    assert!(
        out.text().contains("on the new branch gatehouse/feature"),
        "{}",
        out.text()
    );

    let out = rt
        .run_one(
            ToolUseBlock::new("e3", "EnterWorktree", json!({})),
            &mut ctx,
            &cancel,
        )
        .await;
    assert!(
        out.text().contains("already works in the worktree"),
        "{}",
        out.text()
    );

    std::fs::write(wt.path.join("work.txt"), "w").unwrap();
    let out = rt
        .run_one(
            ToolUseBlock::new("e4", "ExitWorktree", json!({"action": "remove"})),
            &mut ctx,
            &cancel,
        )
        .await;
    assert_eq!(out.status, CallStatus::Failed, "{}", out.text());
    assert!(
        out.text().contains("uncommitted changes (work.txt)"),
        "{}",
        out.text()
    );
    assert_eq!(ctx.cwd, wt.path, "a refused exit stays");

    let out = rt
        .run_one(
            ToolUseBlock::new("e5", "ExitWorktree", json!({"action": "keep"})),
            &mut ctx,
            &cancel,
        )
        .await;
    assert_eq!(out.status, CallStatus::Succeeded, "{}", out.text());
    assert_eq!(ctx.cwd, r.root);
    assert!(wt.path.join("work.txt").is_file());
    assert!(out.text().contains("Kept the worktree"), "{}", out.text());
}
