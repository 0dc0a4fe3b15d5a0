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
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use gatehouse_protocol::progress::{
    BashSandboxUse, SandboxConnection, SandboxDenial, SandboxDenialKind, SandboxNetwork,
};
use gatehouse_sandbox::blocked::{RefusalKind, RefusalWatch, Refusals};
use gatehouse_sandbox::launch::Wrapped;
use gatehouse_sandbox::{NetProxy, NetworkPolicy, Sandbox, SandboxConfig, Unavailable};

use gatehouse_core::ToolUseContext;
use gatehouse_core::pipeline::CallPermission;
use gatehouse_protocol::permission::{SANDBOX_LAYER, TraceOutcome};

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

    /// The command for `spec` and what the call keeps until it has ended
    /// ([`SandboxCall`]: dropping its proxy closes every connection).
    /// Inside a tokio runtime.
    pub fn launch(
        &self,
        spec: &LaunchSpec<'_>,
    ) -> std::io::Result<(tokio::process::Command, SandboxCall)> {
        let call = SandboxCall {
            proxy: self.sandbox.start_proxy().map_err(std::io::Error::other)?,
            refusals: self
                .sandbox
                .watch_refusals()
                .map_err(std::io::Error::other)?,
            network: Some(self.sandbox.policy().network),
        };
        let cmd = self.wrap(spec, call.proxy.as_ref(), call.refusals.as_ref())?;
        Ok((cmd, call))
    }

    fn wrap(
        &self,
        spec: &LaunchSpec<'_>,
        proxy: Option<&NetProxy>,
        writes: Option<&RefusalWatch>,
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
                writes,
            })
            .map_err(std::io::Error::other)
    }
}

/// Through the trait there is nowhere to keep a proxy: with allowed
/// domains this fails (nothing runs); use [`SandboxLauncher::launch`].
impl CommandLauncher for SandboxLauncher {
    fn command(&self, spec: &LaunchSpec<'_>) -> std::io::Result<tokio::process::Command> {
        self.wrap(spec, None, None)
    }
}

/// What one sandboxed call keeps until it has ended: its network proxy
/// (allowed domains only) and its refusal watch (when
/// `gatehouse-sandbox-exec` is installed).
#[derive(Debug, Default)]
pub struct SandboxCall {
    /// The call's proxy.
    pub proxy: Option<NetProxy>,
    /// The call's refusal watch (writes and sockets).
    pub refusals: Option<RefusalWatch>,
    /// The call's network policy (`None`: it ran outside the sandbox).
    pub network: Option<NetworkPolicy>,
}

/// What the sandbox refused, as the protocol carries it, and how many more
/// were not listed.
pub fn denials(refused: Refusals) -> (Vec<SandboxDenial>, u32) {
    let denials = refused
        .list
        .into_iter()
        .map(|r| SandboxDenial {
            kind: match r.kind {
                RefusalKind::Write => SandboxDenialKind::Write,
                RefusalKind::Network => SandboxDenialKind::Network,
            },
            target: r.target,
            syscall: r.syscall.to_owned(),
        })
        .collect();
    (denials, refused.omitted)
}

/// "blocked: write to .git/config" for each refused write (paths under
/// `cwd` shown relative to it) and "blocked: network access (an AF_INET
/// socket; …)" for each refused socket family, read from the syscalls
/// (never from the command's output).
pub fn denial_notes(
    denials: &[SandboxDenial],
    omitted: u32,
    cwd: &Path,
    network: NetworkPolicy,
) -> Vec<String> {
    let mut notes: Vec<String> = denials
        .iter()
        .map(|d| match d.kind {
            SandboxDenialKind::Write => {
                let path = Path::new(&d.target);
                let shown = path
                    .strip_prefix(cwd)
                    .ok()
                    .filter(|rel| !rel.as_os_str().is_empty())
                    .unwrap_or(path);
                format!(
                    "blocked: write to {} (read-only in the sandbox)",
                    shown.display()
                )
            }
            SandboxDenialKind::Network => match network {
                NetworkPolicy::Off => format!(
                    "blocked: network access (an {} socket; the sandbox has no network)",
                    d.target
                ),
                NetworkPolicy::Proxy => format!(
                    "blocked: network access (an {} socket; only the hosts of sandbox.network.allowedDomains are reachable, through the proxy)",
                    d.target
                ),
            },
        })
        .collect();
    if omitted > 0 {
        notes.push(format!("blocked: {omitted} more (not listed)"));
    }
    notes
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

/// Whether the call's permission rested on the sandbox: its decision (put
/// in the context by the pipeline) has an `allow` step of the sandbox's
/// layer, `autoAllowBashIfSandboxed` turning an ask into an allow.
pub fn allowed_because_sandboxed(ctx: &ToolUseContext) -> bool {
    ctx.extensions
        .get::<CallPermission>()
        .is_some_and(|CallPermission(decision)| {
            decision
                .trace
                .iter()
                .any(|s| s.layer == SANDBOX_LAYER && s.outcome == TraceOutcome::Allow)
        })
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
                reports_blocked_writes: launcher.sandbox().helper().is_some(),
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
