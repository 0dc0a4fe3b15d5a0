//! Gatehouse's Bash sandbox (issue 24): shell commands run inside
//! bubblewrap (`bwrap`) with the root file system read-only, only the
//! working directories writable (minus the protected paths inside them),
//! home-directory secrets hidden, a private `/tmp`, their own PID and
//! network namespaces, no capabilities, `NO_NEW_PRIVS` and a seccomp filter.
//! With `sandbox.network.allowedDomains`, the named hosts are reachable
//! through a filtering proxy on a Unix socket, nothing else.
//!
//! Kept apart from the tools (as Codex keeps its sandbox apart) so it has no
//! Tauri or tool dependency (of the permission engine it uses only WebFetch's
//! domain matcher, so hosts are decided one way) and can be read on its own:
//!
//! | module | what |
//! |---|---|
//! | [`policy`] | what is writable, read-only and hidden; the bwrap arguments |
//! | [`seccomp`] | the seccomp filter (sockets, ptrace, keyrings) as BPF bytes |
//! | [`availability`] | finding bwrap, the availability probe, why not and the fix |
//! | [`launch`] | building the command |
//! | [`settings`] | Claude Code's `sandbox` settings, read and merged |
//! | [`proxy`] | the filtering HTTP/HTTPS proxy for `allowedDomains` (host side) |
//! | [`bridge`] | the loopback-to-socket bridge started inside the sandbox |
//! | [`blocked`] | blocked writes read from the syscalls (seccomp user notifications) |
//! | [`helper`] | the `gatehouse-sandbox-exec` binary bwrap starts before the shell |
//!
//! What the sandbox does not protect against is written down in the
//! README ("What the sandbox does not protect against") and NOTES.md.

pub mod availability;
pub mod blocked;
pub mod bridge;
pub mod helper;
pub mod launch;
pub mod policy;
pub mod proxy;
pub mod seccomp;
pub mod settings;

pub use availability::{Bwrap, Unavailable, bwrap_version, find_bwrap, probe};
pub use launch::Sandbox;
pub use policy::{NetworkPolicy, SandboxPolicy};
pub use proxy::{NetProxy, ProxyConnection, ProxyLimits, ProxyRules};
pub use settings::{SandboxConfig, SandboxSettings, SettingsLayer, SettingsShapeError};

/// Why a sandboxed command could not be built.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// A writable root (a working directory or `sandbox.filesystem.allowWrite`)
    /// does not exist or cannot be resolved.
    #[error("the writable root {path} cannot be used: {source}")]
    Root {
        /// The root as given.
        path: std::path::PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A protected name (`.git`, `.claude`, …) in a writable root is a
    /// symlink, which a mount cannot keep from being replaced.
    #[error(
        "{0} is a symlink: the sandbox can keep what it points to read-only but not the link itself, so it refuses to run commands here (replace the link with the folder itself, or add the command to sandbox.excludedCommands)"
    )]
    SymlinkedProtected(std::path::PathBuf),
    /// The seccomp filter could not be compiled for this machine.
    #[error("the seccomp filter cannot be built: {0}")]
    Seccomp(String),
    /// The network proxy for allowed domains cannot serve this command.
    #[error("the network proxy (sandbox.network.allowedDomains) cannot be started: {0}")]
    Proxy(String),
    /// The blocked-write watch (a socket pair and its thread) cannot be set up.
    #[error("the sandbox's blocked-write watch cannot be set up: {0}")]
    Writes(String),
    /// Passing the filter to bwrap failed (pipe, write, fd mapping).
    #[error("the seccomp filter cannot be handed to bwrap: {0}")]
    FilterFd(String),
}
