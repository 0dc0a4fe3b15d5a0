//! Running git for worktrees: no prompts, no pager, C locale, a time limit
//! and bounded output (git's answers here are a line or a status list; a
//! status of a huge tree is cut rather than read whole).

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::io::AsyncReadExt;

/// The longest one git command may run.
pub const GIT_TIMEOUT: Duration = Duration::from_secs(120);
/// The most bytes of stdout (and of stderr) read from one git command.
pub const MAX_GIT_OUTPUT: u64 = 1024 * 1024;

/// A git command that did not succeed.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// git could not be started.
    #[error("could not run git ({0}); is git installed?")]
    Spawn(#[source] std::io::Error),
    /// It exited with an error.
    #[error("`git {args}` in {dir} failed: {stderr}")]
    Failed {
        /// The arguments.
        args: String,
        /// Where it ran.
        dir: PathBuf,
        /// What it said (trimmed).
        stderr: String,
    },
    /// It took longer than [`GIT_TIMEOUT`] (it was killed).
    #[error("`git {args}` in {dir} took longer than {}s and was stopped", GIT_TIMEOUT.as_secs())]
    Timeout {
        /// The arguments.
        args: String,
        /// Where it ran.
        dir: PathBuf,
    },
}

/// Runs `git <args>` in `dir`; its stdout on success.
pub async fn git(dir: &Path, args: &[&str]) -> Result<String, GitError> {
    let mut cmd = tokio::process::Command::new("git");
    cmd.arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_PAGER", "cat")
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let mut child = cmd.spawn().map_err(GitError::Spawn)?;
    let (Some(stdout), Some(stderr)) = (child.stdout.take(), child.stderr.take()) else {
        return Err(GitError::Spawn(std::io::Error::other(
            "git's output pipes were not opened",
        )));
    };
    let run = async {
        let mut out = Vec::new();
        let mut err = Vec::new();
        let (mut stdout, mut stderr) = (stdout.take(MAX_GIT_OUTPUT), stderr.take(MAX_GIT_OUTPUT));
        let (r1, r2) = tokio::join!(stdout.read_to_end(&mut out), stderr.read_to_end(&mut err));
        r1.and(r2).map_err(GitError::Spawn)?;
        let status = child.wait().await.map_err(GitError::Spawn)?;
        Ok::<_, GitError>((status, out, err))
    };
    let joined = args.join(" ");
    let (status, out, err) =
        tokio::time::timeout(GIT_TIMEOUT, run)
            .await
            .map_err(|_| GitError::Timeout {
                args: joined.clone(),
                dir: dir.to_path_buf(),
            })??;
    if status.success() {
        Ok(String::from_utf8_lossy(&out).into_owned())
    } else {
        let stderr = String::from_utf8_lossy(&err).trim().to_owned();
        Err(GitError::Failed {
            args: joined,
            dir: dir.to_path_buf(),
            stderr: if stderr.is_empty() {
                format!("exit status {status}")
            } else {
                stderr
            },
        })
    }
}
