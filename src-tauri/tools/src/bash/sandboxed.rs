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
use std::sync::{Arc, RwLock};

use gatehouse_protocol::progress::{BashSandboxUse, SandboxConnection, SandboxNetwork};
use gatehouse_sandbox::launch::Wrapped;
use gatehouse_sandbox::{NetProxy, NetworkPolicy, Sandbox, SandboxConfig, Unavailable};

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

    /// The command for `spec` and, when the policy allows domains, the
    /// call's network proxy, which must be kept until the command has
    /// ended (dropping it closes every connection). Inside a tokio
    /// runtime.
    pub fn launch(
        &self,
        spec: &LaunchSpec<'_>,
    ) -> std::io::Result<(tokio::process::Command, Option<NetProxy>)> {
        let proxy = self.sandbox.start_proxy().map_err(std::io::Error::other)?;
        let cmd = self.wrap(spec, proxy.as_ref())?;
        Ok((cmd, proxy))
    }

    fn wrap(
        &self,
        spec: &LaunchSpec<'_>,
        proxy: Option<&NetProxy>,
    ) -> std::io::Result<tokio::process::Command> {
        let args = [OsStr::new("-c"), OsStr::new(spec.script)];
        self.sandbox
            .command(&Wrapped {
                program: spec.shell,
                args: &args,
                cwd: spec.cwd,
                env: spec.env,
                working_dirs: spec.working_dirs,
                writable_files: spec.writable_files,
                proxy,
            })
            .map_err(std::io::Error::other)
    }
}

/// Through the trait there is nowhere to keep a proxy: with allowed
/// domains this fails (nothing runs); use [`SandboxLauncher::launch`].
impl CommandLauncher for SandboxLauncher {
    fn command(&self, spec: &LaunchSpec<'_>) -> std::io::Result<tokio::process::Command> {
        self.wrap(spec, None)
    }
}

/// The proxy's record of a call's connections, for its result.
pub fn connections(proxy: &NetProxy) -> Vec<SandboxConnection> {
    proxy
        .connections()
        .into_iter()
        .map(|c| SandboxConnection {
            host: c.host,
            port: c.port,
            allowed: c.allowed,
            bytes_up: c.bytes_up,
            bytes_down: c.bytes_down,
            error: c.error,
        })
        .collect()
}

/// "blocked: connect to host:port" for each connection the proxy refused,
/// read from its record (never from the command's output).
pub fn blocked_notes(connections: &[SandboxConnection]) -> Vec<String> {
    connections
        .iter()
        .filter(|c| !c.allowed)
        .map(|c| {
            format!(
                "blocked: connect to {}:{} (not in sandbox.network.allowedDomains)",
                c.host, c.port
            )
        })
        .collect()
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
    Unavailable(Unavailable),
}

/// The session's [`BashSandbox`], replaced when its settings change
/// (issue 24 item 3); Bash reads it once per call.
#[derive(Debug, Clone, Default)]
pub struct SharedSandbox(Arc<RwLock<BashSandbox>>);

impl SharedSandbox {
    /// Shares `sandbox`.
    pub fn new(sandbox: BashSandbox) -> Self {
        Self(Arc::new(RwLock::new(sandbox)))
    }

    /// The sandbox now (cheap: its parts are shared).
    pub fn current(&self) -> BashSandbox {
        // A poisoned lock only means a panic elsewhere; the value is whole.
        self.0.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Puts `sandbox` in force for the calls that start from now on.
    pub fn replace(&self, sandbox: BashSandbox) {
        *self.0.write().unwrap_or_else(|p| p.into_inner()) = sandbox;
    }
}

impl From<BashSandbox> for SharedSandbox {
    fn from(sandbox: BashSandbox) -> Self {
        Self::new(sandbox)
    }
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
            Self::Unavailable(why) => Some(BashSandboxUse::Unavailable {
                reason: why.to_string(),
                why: Some(why.typed().clone()),
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
                    NetworkPolicy::Proxy => SandboxNetwork::Proxy,
                },
                allowed_domains: match launcher.sandbox().policy().network {
                    NetworkPolicy::Off => None,
                    NetworkPolicy::Proxy => Some(
                        launcher
                            .sandbox()
                            .policy()
                            .allowed_domains
                            .iter()
                            .map(ToString::to_string)
                            .collect(),
                    ),
                },
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unavailable_sandbox_tells_each_call_why_in_typed_fields() {
        let empty = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let Err(missing) = gatehouse_sandbox::find_bwrap(Some(empty.path().as_os_str())) else {
            panic!("an empty PATH has no bwrap");
        };
        let use_ = BashSandbox::Unavailable(missing).usage("ls", false, &[]);
        let Some(BashSandboxUse::Unavailable { reason, why }) = use_ else {
            panic!("expected unavailable, got {use_:?}");
        };
        assert!(reason.contains("bubblewrap"), "{reason}");
        assert_eq!(
            why.map(|w| w.reason),
            Some(gatehouse_protocol::sandbox::SandboxUnavailableReason::BwrapMissing)
        );
    }

    #[test]
    fn only_refused_connections_are_blocked_notes() {
        let c = |host: &str, allowed: bool| SandboxConnection {
            host: host.into(),
            port: 443,
            allowed,
            bytes_up: 0,
            bytes_down: 0,
            error: None,
        };
        assert_eq!(
            blocked_notes(&[c("docs.rs", true), c("evil.test", false)]),
            ["blocked: connect to evil.test:443 (not in sandbox.network.allowedDomains)"]
        );
    }
}
