//! Finding bwrap, checking that it can build a sandbox here, and building
//! the command that runs a shell inside it.
//!
//! The seccomp filter reaches bwrap through a pipe whose read end becomes
//! the child's fd [`FILTER_FD`] (`command-fds` does the `dup2` between fork
//! and exec, so no `unsafe` of ours); bwrap reads it whole before it starts
//! the command and the fd does not reach the command.

use std::ffi::OsStr;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use command_fds::{CommandFdExt, FdMapping};

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
/// How long the availability probe may take.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(10);
/// Bytes of bwrap's stderr kept in a reason.
const STDERR_KEPT: usize = 2048;

/// Why the sandbox cannot run here, for the user: what is missing and how
/// to fix it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Unavailable(pub String);

/// A bwrap executable (absolute path, found once, so a later `PATH` change
/// cannot swap it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bwrap(pub PathBuf);

/// bwrap on `path` (a `PATH`-style list), or why not.
pub fn find_bwrap(path: Option<&OsStr>) -> Result<Bwrap, Unavailable> {
    path.into_iter()
        .flat_map(std::env::split_paths)
        .map(|dir| dir.join("bwrap"))
        .find(|candidate| candidate.is_file())
        .map(Bwrap)
        .ok_or_else(|| {
            Unavailable(
                "bwrap (bubblewrap) was not found on PATH; install it (Debian/Ubuntu: apt-get install bubblewrap, Fedora: dnf install bubblewrap)".into(),
            )
        })
}

/// A sandbox ready to wrap commands: bwrap, the policy and its compiled
/// seccomp filter.
#[derive(Debug, Clone)]
pub struct Sandbox {
    bwrap: Bwrap,
    policy: SandboxPolicy,
    filter: Arc<[u8]>,
    /// The executable run as the network bridge (allowed domains only).
    bridge: Option<PathBuf>,
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
}

impl Sandbox {
    /// Compiles the filter for `policy`.
    pub fn new(bwrap: Bwrap, policy: SandboxPolicy) -> Result<Self, SandboxError> {
        let filter = seccomp::filter_bytes(policy.network)?;
        let proxy_rules = Arc::new(ProxyRules {
            allowed: policy.allowed_domains.clone(),
            ..ProxyRules::default()
        });
        Ok(Self {
            bwrap,
            policy,
            filter: filter.into(),
            bridge: crate::bridge::program(),
            proxy_rules,
        })
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
        match self.policy.network {
            NetworkPolicy::Off => {
                cmd.arg("--seccomp")
                    .arg(FILTER_FD.to_string())
                    .arg("--")
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
        let fd = filter_pipe(&self.filter)?;
        cmd.fd_mappings(vec![FdMapping {
            parent_fd: fd,
            child_fd: FILTER_FD,
        }])
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

/// Checks that `sandbox` can run a command here: bwrap starts, creates its
/// namespaces, loads the filter and runs `/bin/sh -c :` in `dir`. The
/// reason names the cause and bwrap's stderr.
pub async fn probe(sandbox: &Sandbox, dir: &Path) -> Result<(), Unavailable> {
    let dirs = [dir.to_path_buf()];
    let args = [OsStr::new("-c"), OsStr::new(":")];
    // With allowed domains the probe starts the bridge too.
    let proxy = sandbox
        .start_proxy()
        .map_err(|e| Unavailable(e.to_string()))?;
    let mut cmd = sandbox
        .command(&Wrapped {
            program: Path::new("/bin/sh"),
            args: &args,
            cwd: dir,
            env: &[],
            working_dirs: &dirs,
            writable_files: &[],
            proxy: proxy.as_ref(),
        })
        .map_err(|e| Unavailable(e.to_string()))?;
    cmd.stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true);
    let child = cmd.spawn().map_err(|e| {
        Unavailable(format!(
            "bwrap ({}) could not be started: {e}",
            sandbox.bwrap().display()
        ))
    })?;
    drop(cmd);
    let out = match tokio::time::timeout(PROBE_TIMEOUT, child.wait_with_output()).await {
        Ok(Ok(out)) => out,
        Ok(Err(e)) => return Err(Unavailable(format!("bwrap did not finish: {e}"))),
        Err(_) => {
            return Err(Unavailable(format!(
                "bwrap did not finish within {} s",
                PROBE_TIMEOUT.as_secs()
            )));
        }
    };
    if out.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&out.stderr[..out.stderr.len().min(STDERR_KEPT)]);
    Err(Unavailable(format!(
        "bwrap could not create the sandbox ({}): {}; user namespaces may be disabled here (sysctl kernel.unprivileged_userns_clone=1, or kernel.apparmor_restrict_unprivileged_userns=0 on Ubuntu)",
        out.status,
        stderr.trim()
    )))
}
