//! Building the command that runs a shell inside bwrap (finding bwrap and
//! the availability probe are in [`crate::availability`]).
//!
//! The seccomp filter reaches bwrap through a pipe whose read end becomes
//! the child's fd [`FILTER_FD`] (`command-fds` does the `dup2` between fork
//! and exec, so no `unsafe` of ours); bwrap reads it whole before it starts
//! the command and the fd does not reach the command.

use std::ffi::OsStr;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use command_fds::{CommandFdExt, FdMapping};

use crate::availability::Bwrap;
use crate::blocked::RefusalWatch;
use crate::policy::Mounts;
use crate::proxy::{NetProxy, ProxyRules};
use crate::{NetworkPolicy, SandboxError, SandboxPolicy, bridge, seccomp};

/// The variables pointed at the bridge when domains are allowed (both
/// spellings: curl reads only the lower-case `http_proxy`).
pub const PROXY_VARS: &[&str] = &[
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "http_proxy",
    "https_proxy",
    "ALL_PROXY",
    "all_proxy",
];

/// The fd number bwrap reads the seccomp filter from.
pub const FILTER_FD: i32 = 3;

/// A sandbox ready to wrap commands: bwrap, the policy and its compiled
/// seccomp filter.
#[derive(Debug, Clone)]
pub struct Sandbox {
    bwrap: Bwrap,
    policy: SandboxPolicy,
    filter: Arc<[u8]>,
    /// The same without the socket rule, for commands under the trap,
    /// whose supervisor refuses (and reports) those sockets.
    filter_under_trap: Arc<[u8]>,
    /// The executable run as the network bridge (allowed domains only).
    bridge: Option<PathBuf>,
    /// `gatehouse-sandbox-exec`, which reports blocked writes
    /// ([`crate::helper`]); without it writes are still refused, silently.
    helper: Option<PathBuf>,
    /// The proxy's rules, built once.
    proxy_rules: Arc<ProxyRules>,
}

/// One command to wrap.
#[derive(Debug, Clone, Copy)]
pub struct Wrapped<'a> {
    /// The program run inside (the shell).
    pub program: &'a Path,
    /// Its arguments.
    pub args: &'a [&'a OsStr],
    /// Its working directory.
    pub cwd: &'a Path,
    /// Extra environment variables.
    pub env: &'a [(String, String)],
    /// This call's working directories: writable roots.
    pub working_dirs: &'a [PathBuf],
    /// Files outside the roots the command must be able to write.
    pub writable_files: &'a [PathBuf],
    /// This call's proxy ([`Sandbox::start_proxy`]); required when the
    /// policy allows domains.
    pub proxy: Option<&'a NetProxy>,
    /// This call's blocked-write watch ([`Sandbox::watch_refusals`]); its
    /// socket goes to the helper. `None`: writes are refused unreported.
    pub writes: Option<&'a RefusalWatch>,
}

impl Sandbox {
    /// Compiles the filter for `policy`.
    pub fn new(bwrap: Bwrap, policy: SandboxPolicy) -> Result<Self, SandboxError> {
        let filter = seccomp::filter_bytes(policy.network, seccomp::Sockets::Refused)?;
        let filter_under_trap =
            seccomp::filter_bytes(policy.network, seccomp::Sockets::LeftToTrap)?;
        let proxy_rules = Arc::new(ProxyRules {
            allowed: policy.allowed_domains.clone(),
            ..ProxyRules::default()
        });
        let helper = crate::helper::find();
        Ok(Self {
            bwrap,
            policy,
            filter: filter.into(),
            filter_under_trap: filter_under_trap.into(),
            // The small helper starts in ~1 ms; a Gatehouse binary that
            // carries the bridge (the app links WebKit) is the fallback.
            bridge: helper.clone().or_else(crate::bridge::program),
            helper,
            proxy_rules,
        })
    }

    /// Uses `program` as `gatehouse-sandbox-exec` (found beside the
    /// executable by default), for the blocked-write reports and the
    /// network bridge.
    pub fn with_helper(mut self, program: PathBuf) -> Self {
        self.bridge = Some(program.clone());
        self.helper = Some(program);
        self
    }

    /// The helper in use, if one was found.
    pub fn helper(&self) -> Option<&Path> {
        self.helper.as_deref()
    }

    /// A blocked-write watch for one call, when the helper is there to
    /// report (`None`: writes are still refused, just not reported).
    pub fn watch_refusals(&self) -> Result<Option<RefusalWatch>, SandboxError> {
        if self.helper.is_none() {
            return Ok(None);
        }
        RefusalWatch::start()
            .map(Some)
            .map_err(|e| SandboxError::Writes(e.to_string()))
    }

    /// Uses `program` as the network bridge (an executable whose `main`
    /// calls [`crate::bridge::run_if_requested`]); by default the current
    /// executable when it did.
    pub fn with_bridge(mut self, program: PathBuf) -> Self {
        self.bridge = Some(program);
        self
    }

    /// Replaces the proxy's rules (its resolver and limits; the allowed
    /// domains stay the policy's).
    pub fn with_proxy_rules(mut self, mut rules: ProxyRules) -> Self {
        rules.allowed = self.policy.allowed_domains.clone();
        self.proxy_rules = Arc::new(rules);
        self
    }

    /// A proxy for one call, when the policy allows domains (`None` with
    /// the network off). Must be called inside a tokio runtime; keep it
    /// until the command has ended.
    pub fn start_proxy(&self) -> Result<Option<NetProxy>, SandboxError> {
        match self.policy.network {
            NetworkPolicy::Off => Ok(None),
            NetworkPolicy::Proxy => NetProxy::start(Arc::clone(&self.proxy_rules))
                .map(Some)
                .map_err(|e| SandboxError::Proxy(e.to_string())),
        }
    }

    /// The policy.
    pub fn policy(&self) -> &SandboxPolicy {
        &self.policy
    }

    /// The bwrap executable.
    pub fn bwrap(&self) -> &Path {
        &self.bwrap.0
    }

    /// The mounts a command with these working directories gets.
    pub fn mounts(
        &self,
        working_dirs: &[PathBuf],
        writable_files: &[PathBuf],
    ) -> Result<Mounts, SandboxError> {
        Mounts::resolve(&self.policy, working_dirs, writable_files)
    }

    /// `bwrap … --seccomp 3 -- <program> <args>`, its filter on fd 3. The
    /// caller sets stdio and the process group.
    pub fn command(&self, w: &Wrapped<'_>) -> Result<tokio::process::Command, SandboxError> {
        let mounts = self.mounts(w.working_dirs, w.writable_files)?;
        let mut cmd = tokio::process::Command::new(&self.bwrap.0);
        cmd.args(mounts.bwrap_args(self.policy.network, w.cwd));
        // The trap goes first, so the bridge and the shell are both under it.
        let trap = match (&self.helper, w.writes) {
            (Some(helper), Some(watch)) => {
                cmd.arg("--bind")
                    .arg(watch.socket_path())
                    .arg(crate::blocked::SOCKET_IN_SANDBOX);
                vec![
                    helper.as_os_str().to_owned(),
                    crate::helper::EXEC_ARG.into(),
                    crate::blocked::SOCKET_IN_SANDBOX.into(),
                    crate::blocked::trap::network_arg(self.policy.network).into(),
                    "--".into(),
                ]
            }
            _ => Vec::new(),
        };
        let filter = if trap.is_empty() {
            &self.filter
        } else {
            &self.filter_under_trap
        };
        let fds = vec![FdMapping {
            parent_fd: filter_pipe(filter)?,
            child_fd: FILTER_FD,
        }];
        match self.policy.network {
            NetworkPolicy::Off => {
                cmd.arg("--seccomp")
                    .arg(FILTER_FD.to_string())
                    .arg("--")
                    .args(&trap)
                    .arg(w.program);
            }
            NetworkPolicy::Proxy => {
                let proxy = w.proxy.ok_or_else(|| {
                    SandboxError::Proxy("no proxy was started for this command".into())
                })?;
                let bridge = self.bridge.as_ref().ok_or_else(|| {
                    SandboxError::Proxy(
                        "this program cannot start the network bridge inside the sandbox".into(),
                    )
                })?;
                let url = format!("http://127.0.0.1:{}", bridge::BRIDGE_PORT);
                cmd.arg("--bind")
                    .arg(proxy.socket_path())
                    .arg(bridge::SOCKET_IN_SANDBOX)
                    .arg("--seccomp")
                    .arg(FILTER_FD.to_string())
                    .arg("--")
                    .args(&trap)
                    .arg(bridge)
                    .args(bridge::args(bridge::SOCKET_IN_SANDBOX, bridge::BRIDGE_PORT))
                    .arg(w.program);
                for var in PROXY_VARS {
                    cmd.env(var, &url);
                }
                // The sandbox's own loopback (a server the command starts)
                // is reached directly; a host's `NO_PROXY` would send other
                // names around the proxy, where there is no route.
                for var in ["NO_PROXY", "no_proxy"] {
                    cmd.env(var, "localhost,127.0.0.1,::1");
                }
            }
        }
        cmd.args(w.args)
            .current_dir(w.cwd)
            .envs(w.env.iter().map(|(k, v)| (k, v)));
        cmd.fd_mappings(fds)
            .map_err(|e| SandboxError::FilterFd(e.to_string()))?;
        Ok(cmd)
    }
}

/// A pipe holding `bytes`, its write end closed: the read end.
fn filter_pipe(bytes: &[u8]) -> Result<OwnedFd, SandboxError> {
    let (read, write) =
        rustix::pipe::pipe().map_err(|e| SandboxError::FilterFd(format!("pipe: {e}")))?;
    // The filter is far below a pipe's 64 KiB buffer, so this never blocks.
    let mut rest = bytes;
    while !rest.is_empty() {
        let n = rustix::io::write(&write, rest)
            .map_err(|e| SandboxError::FilterFd(format!("write: {e}")))?;
        rest = rest.get(n..).unwrap_or_default();
    }
    Ok(read)
}
