//! The sandbox behind the launcher seam (issue 24): [`SandboxLauncher`]
//! wraps the shell in bubblewrap (`gatehouse-sandbox`), and [`BashSandbox`]
//! says, per session, whether Bash uses it.
//!
//! A command runs in the sandbox when the session's sandbox is on, the
//! command is not one of `sandbox.excludedCommands` and the call did not
//! set `dangerouslyDisableSandbox` (which always asks). When the sandbox
//! is enabled but cannot run here, commands run as before, through the
//! normal permission flow: nothing is auto-allowed as if it were confined.

use std::ffi::OsStr;
use std::path::PathBuf;
use std::sync::Arc;

use gatehouse_protocol::progress::{BashSandboxUse, SandboxNetwork};
use gatehouse_sandbox::launch::Wrapped;
use gatehouse_sandbox::{NetworkPolicy, Sandbox, SandboxConfig};

use super::launcher::{CommandLauncher, LaunchSpec};

/// Runs the shell inside bubblewrap.
#[derive(Debug, Clone)]
pub struct SandboxLauncher {
    sandbox: Sandbox,
}

impl SandboxLauncher {
    /// A launcher for `sandbox`.
    pub fn new(sandbox: Sandbox) -> Self {
        Self { sandbox }
    }

    /// The sandbox.
    pub fn sandbox(&self) -> &Sandbox {
        &self.sandbox
    }
}

impl CommandLauncher for SandboxLauncher {
    fn command(&self, spec: &LaunchSpec<'_>) -> std::io::Result<tokio::process::Command> {
        let args = [OsStr::new("-c"), OsStr::new(spec.script)];
        self.sandbox
            .command(&Wrapped {
                program: spec.shell,
                args: &args,
                cwd: spec.cwd,
                env: spec.env,
                working_dirs: spec.working_dirs,
                writable_files: spec.writable_files,
            })
            .map_err(std::io::Error::other)
    }
}

/// How a session's Bash relates to the sandbox.
#[derive(Debug, Clone, Default)]
pub enum BashSandbox {
    /// `sandbox.enabled` is not set: every command runs as before.
    #[default]
    Off,
    /// Commands run in the sandbox (except excluded ones and calls that
    /// set `dangerouslyDisableSandbox`).
    On {
        /// The launcher.
        launcher: Arc<SandboxLauncher>,
        /// The merged settings.
        config: Arc<SandboxConfig>,
    },
    /// Enabled, but it cannot run here: commands run unconfined and ask
    /// as usual (the session said so once).
    Unavailable {
        /// Why, and how to fix it.
        reason: String,
    },
}

impl BashSandbox {
    /// The launcher `command` would run under, when the sandbox applies to
    /// it; `None` runs it with the plain launcher.
    pub fn launcher_for(
        &self,
        command: &str,
        disable_requested: bool,
    ) -> Option<&Arc<SandboxLauncher>> {
        match self {
            Self::On { launcher, config } if !disable_requested && !config.is_excluded(command) => {
                Some(launcher)
            }
            _ => None,
        }
    }

    /// Whether the sandbox is on (so `dangerouslyDisableSandbox` matters).
    pub fn is_on(&self) -> bool {
        matches!(self, Self::On { .. })
    }

    /// What the UI is told about one call (`None`: the sandbox is off).
    pub fn usage(
        &self,
        command: &str,
        disable_requested: bool,
        working_dirs: &[PathBuf],
    ) -> Option<BashSandboxUse> {
        match self {
            Self::Off => None,
            Self::Unavailable { reason } => Some(BashSandboxUse::Unavailable {
                reason: reason.clone(),
            }),
            Self::On { .. } if disable_requested => Some(BashSandboxUse::DisabledByCall),
            Self::On { config, .. } if config.is_excluded(command) => {
                Some(BashSandboxUse::Excluded)
            }
            Self::On { launcher, .. } => Some(BashSandboxUse::Sandboxed {
                writable_roots: working_dirs
                    .iter()
                    .chain(&launcher.sandbox().policy().writable_roots)
                    .map(|p| p.canonicalize().unwrap_or_else(|_| p.clone()))
                    .map(|p| p.display().to_string())
                    .collect(),
                network: match launcher.sandbox().policy().network {
                    NetworkPolicy::Off => SandboxNetwork::Off,
                },
            }),
        }
    }
}
