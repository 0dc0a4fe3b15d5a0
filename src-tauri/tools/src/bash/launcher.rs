//! How a shell process is built: the user's shell, and the sandbox seam.
//!
//! Every Bash command and background task is started from a
//! [`LaunchSpec`] by a [`CommandLauncher`]. The default, [`PlainLauncher`],
//! runs `<shell> -c <script>` directly; [`super::sandboxed::SandboxLauncher`]
//! runs it inside bubblewrap. A sandboxing launcher implements the same trait: it receives the same spec —
//! including the working directories the command may write to — and
//! returns a command that wraps the shell (e.g. `bwrap --ro-bind / / --bind
//! <root> <root> … -- <shell> -c <script>`). Whatever the launcher
//! returns, the caller then closes stdin, captures stdout and stderr and
//! puts the process in its own process group, so a launcher cannot weaken
//! those guarantees.

use std::path::{Path, PathBuf};

/// Everything needed to start one shell command.
#[derive(Debug, Clone)]
pub struct LaunchSpec<'a> {
    /// The shell executable.
    pub shell: &'a Path,
    /// The script the shell runs (`-c`).
    pub script: &'a str,
    /// The working directory.
    pub cwd: &'a Path,
    /// Extra environment variables.
    pub env: &'a [(String, String)],
    /// The working directories (for a sandbox: the writable roots).
    pub working_dirs: &'a [PathBuf],
    /// Files outside them the wrapper writes (the working-directory
    /// trailer), which a sandbox must leave writable.
    pub writable_files: &'a [PathBuf],
}

/// Builds the process for a [`LaunchSpec`]. Implement this to sandbox
/// shell commands.
pub trait CommandLauncher: Send + Sync + std::fmt::Debug {
    /// The command to spawn. Must not set stdio or the process group (the
    /// caller does). An error (a sandbox that cannot confine this call)
    /// fails the call; nothing runs.
    fn command(&self, spec: &LaunchSpec<'_>) -> std::io::Result<tokio::process::Command>;
}

/// Runs the shell directly, unsandboxed.
#[derive(Debug, Default, Clone, Copy)]
pub struct PlainLauncher;

impl CommandLauncher for PlainLauncher {
    fn command(&self, spec: &LaunchSpec<'_>) -> std::io::Result<tokio::process::Command> {
        let mut cmd = tokio::process::Command::new(spec.shell);
        cmd.arg("-c").arg(spec.script).current_dir(spec.cwd);
        cmd.envs(spec.env.iter().map(|(k, v)| (k, v)));
        Ok(cmd)
    }
}

/// The shell to run commands in: `$SHELL` when it is bash or zsh, otherwise
/// bash (found on `PATH`, else `/bin/bash`).
pub fn user_shell() -> PathBuf {
    if let Some(shell) = std::env::var_os("SHELL").map(PathBuf::from) {
        let name = shell.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if matches!(name, "bash" | "zsh") && shell.is_absolute() && shell.is_file() {
            return shell;
        }
    }
    find_on_path("bash").unwrap_or_else(|| PathBuf::from("/bin/bash"))
}

fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn the_user_shell_is_bash_or_zsh() {
        let shell = user_shell();
        let name = shell.file_name().unwrap().to_str().unwrap();
        assert!(matches!(name, "bash" | "zsh"), "{shell:?}");
    }
}
