//! Building the command that runs a shell inside bwrap (finding bwrap and
//! the availability probe are in [`crate::availability`]).
//!
//! The seccomp filter reaches bwrap on fd [`FILTER_FD`]. It is written once
//! per process into a sealed memfd (nobody can change it afterwards) that
//! stays open until the process ends, so a command never outlives it;
//! each command is `/bin/sh -c 'exec "$@" 3<"$0"' /proc/<our pid>/fd/<memfd>
//! bwrap …`: the shell opens the memfd afresh (its own offset, so calls
//! never share one) on fd 3 and becomes bwrap, which reads it whole before
//! it starts the command (the fd does not reach the command).
//!
//! Why not map a pipe onto fd 3 between fork and exec (`pre_exec`, as
//! before): any `pre_exec` makes the standard library `fork` instead of
//! `posix_spawn` (`vfork`-like), and `fork` copies the caller's page
//! tables — measured at +6 ms for 50 MB resident, +12 ms for 100 MB and
//! +34 ms for 200 MB on the development machine (NOTES.md, "Cost"), which
//! is the app's situation. The shell costs one small `exec` (≈ 1 ms).
//! Clearing `FD_CLOEXEC` on a pipe instead would leak the filter's pipe to
//! any process spawned concurrently (another sandboxed command could read
//! part of it and leave bwrap a shorter, weaker program).

use std::ffi::OsStr;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rustix::fs::{MemfdFlags, SealFlags};

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

/// The shell that opens the filter on [`FILTER_FD`] and becomes bwrap.
const SHIM: &str = "/bin/sh";
/// Its script: `$0` is the filter's path, `$@` bwrap and its arguments. A
/// filter that cannot be opened stops the shell before bwrap runs.
const SHIM_SCRIPT: &str = "exec \"$@\" 3<\"$0\"";

/// A sandbox ready to wrap commands: bwrap, the policy and its compiled
/// seccomp filter.
#[derive(Debug, Clone)]
pub struct Sandbox {
    bwrap: Bwrap,
    policy: SandboxPolicy,
    filter: &'static FilterFile,
    /// The same without the socket rule, for commands under the trap,
    /// whose supervisor refuses (and reports) those sockets.
    filter_under_trap: &'static FilterFile,
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
            filter: FilterFile::for_bytes(&filter)?,
            filter_under_trap: FilterFile::for_bytes(&filter_under_trap)?,
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

    /// Runs commands without `gatehouse-sandbox-exec`, as where it is not
    /// installed: refused writes are not reported (they are still refused)
    /// and the network bridge falls back to this program. The sandbox
    /// bench uses it to show what the refusal trap costs.
    pub fn without_helper(mut self) -> Self {
        self.helper = None;
        self.bridge = crate::bridge::program();
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
        RefusalWatch::start(self.policy.network)
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
        // The trap goes first, so the bridge and the shell are both under
        // it; its socket is a path bound into the sandbox (no fd is passed:
        // the command is spawned, not forked, see the module docs).
        let trap: Vec<std::ffi::OsString> = match (&self.helper, w.writes) {
            (Some(helper), Some(_)) => vec![
                helper.as_os_str().to_owned(),
                crate::helper::EXEC_ARG.into(),
                crate::blocked::SOCKET_IN_SANDBOX.into(),
                crate::blocked::trap::network_arg(self.policy.network).into(),
                "--".into(),
            ],
            _ => Vec::new(),
        };
        let filter = if trap.is_empty() {
            self.filter
        } else {
            self.filter_under_trap
        };
        let mut cmd = tokio::process::Command::new(SHIM);
        cmd.arg("-c")
            .arg(SHIM_SCRIPT)
            .arg(&filter.path)
            .arg(&self.bwrap.0)
            .args(mounts.bwrap_args(self.policy.network, w.cwd));
        if let (Some(watch), false) = (w.writes, trap.is_empty()) {
            cmd.arg("--bind")
                .arg(watch.socket_path())
                .arg(crate::blocked::SOCKET_IN_SANDBOX);
        }
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
        Ok(cmd)
    }
}

/// A compiled filter in a sealed memfd (close-on-exec: it reaches no
/// child), and the path through which a child opens it afresh.
#[derive(Debug)]
struct FilterFile {
    bytes: Vec<u8>,
    /// Never closed: a command built from a sandbox that has been dropped
    /// since must not find the fd number reused by another file.
    _fd: OwnedFd,
    /// `/proc/<our pid>/fd/<fd>`.
    path: PathBuf,
}

/// Every filter this process has written (one per network policy).
static FILTERS: Mutex<Vec<&'static FilterFile>> = Mutex::new(Vec::new());

impl FilterFile {
    /// The memfd holding `bytes`, written on first use.
    fn for_bytes(bytes: &[u8]) -> Result<&'static Self, SandboxError> {
        // A poisoned lock only means a panic elsewhere; the list is whole.
        let mut filters = FILTERS.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(found) = filters.iter().find(|f| f.bytes == bytes) {
            return Ok(found);
        }
        let new: &'static Self = Box::leak(Box::new(Self::new(bytes)?));
        filters.push(new);
        Ok(new)
    }

    fn new(bytes: &[u8]) -> Result<Self, SandboxError> {
        let err = |what: &str, e: rustix::io::Errno| SandboxError::FilterFd(format!("{what}: {e}"));
        let fd = rustix::fs::memfd_create(
            "gatehouse-seccomp",
            MemfdFlags::CLOEXEC | MemfdFlags::ALLOW_SEALING,
        )
        .map_err(|e| err("memfd_create", e))?;
        let mut rest = bytes;
        while !rest.is_empty() {
            let n = rustix::io::write(&fd, rest).map_err(|e| err("write", e))?;
            rest = rest.get(n..).unwrap_or_default();
        }
        // Sealed: neither we nor anyone who opens it can change it now.
        rustix::fs::fcntl_add_seals(
            &fd,
            SealFlags::WRITE | SealFlags::SHRINK | SealFlags::GROW | SealFlags::SEAL,
        )
        .map_err(|e| err("seal", e))?;
        let path = PathBuf::from(format!(
            "/proc/{}/fd/{}",
            std::process::id(),
            fd.as_raw_fd()
        ));
        Ok(Self {
            bytes: bytes.to_vec(),
            _fd: fd,
            path,
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    /// Fail closed: when the filter cannot be opened, the shim stops
    /// before the program (bwrap) runs.
    #[test]
    fn the_shim_runs_nothing_when_the_filter_cannot_be_opened() {
        let out = std::process::Command::new(SHIM)
            .args([
                "-c",
                SHIM_SCRIPT,
                "/nonexistent/gatehouse-filter",
                "echo",
                "ran",
            ])
            .output()
            .unwrap();
        assert!(!out.status.success(), "{out:?}");
        assert!(out.stdout.is_empty(), "{out:?}");
        let ok = std::process::Command::new(SHIM)
            .args([
                "-c",
                SHIM_SCRIPT,
                "/dev/null",
                "sh",
                "-c",
                "head -c 0 <&3 && echo ran",
            ])
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&ok.stdout), "ran\n", "{ok:?}");
    }

    #[test]
    fn a_filter_is_written_once_sealed_and_read_afresh_through_its_path() {
        let bytes = b"gatehouse-test-filter-bytes!".to_vec();
        let a = FilterFile::for_bytes(&bytes).unwrap();
        let b = FilterFile::for_bytes(&bytes).unwrap();
        assert!(std::ptr::eq(a, b), "one memfd per filter");
        // Each open has its own offset: two reads both see the whole filter.
        assert_eq!(std::fs::read(&a.path).unwrap(), bytes);
        assert_eq!(std::fs::read(&a.path).unwrap(), bytes);
        // Sealed: nobody can rewrite it, even through a writable open.
        use std::io::Write;
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .open(&a.path)
            .unwrap();
        assert!(
            file.write_all(b"x").is_err(),
            "the sealed filter was written"
        );
        assert_eq!(std::fs::read(&a.path).unwrap(), bytes);
    }
}
