//! The seccomp filter bwrap installs before it runs the shell
//! (`--seccomp FD`): compiled with rust-vmm's `seccompiler`, serialised as
//! the raw `struct sock_filter` array bwrap reads.
//!
//! Refused with `EPERM`: creating any socket that is not a Unix socket
//! (when the network is off; with allowed domains, Internet sockets are
//! allowed too, for the loopback bridge — unless the blocked-write trap
//! refuses and reports those itself, [`Sockets::LeftToTrap`]), `io_uring_setup` (io_uring can open sockets
//! without the `socket` syscall), `ptrace` and `process_vm_readv/writev`
//! (reading or steering other processes), and the kernel keyring calls
//! `keyctl`, `add_key`, `request_key` (the keyutils keychain). Everything
//! else is allowed: the file system and namespaces do the rest.
//! bwrap sets `NO_NEW_PRIVS` itself before loading a filter.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

use crate::{NetworkPolicy, SandboxError};

const EPERM: u32 = 1;

/// Who refuses the socket families `network` does not allow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sockets {
    /// This filter (`EPERM`, unreported).
    Refused,
    /// The blocked-write trap installed after it ([`crate::blocked`]),
    /// whose supervisor refuses them and reports each. A filter that
    /// refused them here would win over the trap's notification.
    LeftToTrap,
}

/// The BPF program for `network`, as the bytes bwrap's `--seccomp` reads.
/// Errors on an architecture seccompiler cannot target (the sandbox is then
/// unavailable, never weaker).
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub fn filter_bytes(network: NetworkPolicy, sockets: Sockets) -> Result<Vec<u8>, SandboxError> {
    let arch = target_arch()?;
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    let always = [
        sys::PTRACE,
        sys::PROCESS_VM_READV,
        sys::PROCESS_VM_WRITEV,
        sys::KEYCTL,
        sys::ADD_KEY,
        sys::REQUEST_KEY,
    ];
    for nr in always {
        rules.insert(nr, Vec::new());
    }
    // The socket families a command may create: Unix only with the network
    // off; with the proxy also Internet sockets, which the namespace (only
    // `lo`) keeps on loopback, where the bridge listens.
    let families = crate::blocked::allowed_families(network);
    if sockets == Sockets::Refused {
        // One rule whose conditions all hold (the family is none of these)
        // refuses the call.
        let not_allowed = families
            .iter()
            .map(|f| SeccompCondition::new(0, SeccompCmpArgLen::Dword, SeccompCmpOp::Ne, *f))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| SandboxError::Seccomp(e.to_string()))?;
        let rule =
            SeccompRule::new(not_allowed).map_err(|e| SandboxError::Seccomp(e.to_string()))?;
        rules.insert(sys::SOCKET, vec![rule]);
    }
    rules.insert(sys::IO_URING_SETUP, Vec::new());
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(EPERM),
        arch,
    )
    .map_err(|e| SandboxError::Seccomp(e.to_string()))?;
    let program: BpfProgram = filter
        .try_into()
        .map_err(|e: seccompiler::BackendError| SandboxError::Seccomp(e.to_string()))?;
    let mut bytes = Vec::with_capacity(program.len() * 8);
    for insn in &program {
        bytes.extend_from_slice(&insn.code.to_ne_bytes());
        bytes.push(insn.jt);
        bytes.push(insn.jf);
        bytes.extend_from_slice(&insn.k.to_ne_bytes());
    }
    Ok(bytes)
}

/// Elsewhere there are no syscall numbers here, so no filter and no sandbox.
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
pub fn filter_bytes(_network: NetworkPolicy, _sockets: Sockets) -> Result<Vec<u8>, SandboxError> {
    Err(SandboxError::Seccomp(format!(
        "no seccomp filter for the {} architecture",
        std::env::consts::ARCH
    )))
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
fn target_arch() -> Result<TargetArch, SandboxError> {
    TargetArch::try_from(std::env::consts::ARCH).map_err(|_| {
        SandboxError::Seccomp(format!(
            "no seccomp filter for the {} architecture",
            std::env::consts::ARCH
        ))
    })
}

/// Syscall numbers (from the kernel's unistd tables; seccompiler takes
/// numbers, and `libc` is not a dependency of ours).
#[cfg(target_arch = "x86_64")]
mod sys {
    pub const SOCKET: i64 = 41;
    pub const PTRACE: i64 = 101;
    pub const ADD_KEY: i64 = 248;
    pub const REQUEST_KEY: i64 = 249;
    pub const KEYCTL: i64 = 250;
    pub const PROCESS_VM_READV: i64 = 310;
    pub const PROCESS_VM_WRITEV: i64 = 311;
    pub const IO_URING_SETUP: i64 = 425;
}

#[cfg(target_arch = "aarch64")]
mod sys {
    pub const SOCKET: i64 = 198;
    pub const PTRACE: i64 = 117;
    pub const ADD_KEY: i64 = 217;
    pub const REQUEST_KEY: i64 = 218;
    pub const KEYCTL: i64 = 219;
    pub const PROCESS_VM_READV: i64 = 270;
    pub const PROCESS_VM_WRITEV: i64 = 271;
    pub const IO_URING_SETUP: i64 = 425;
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_filter_is_whole_instructions() {
        for network in [NetworkPolicy::Off, NetworkPolicy::Proxy] {
            let full = filter_bytes(network, Sockets::Refused).unwrap();
            let trapped = filter_bytes(network, Sockets::LeftToTrap).unwrap();
            for bytes in [&full, &trapped] {
                assert!(!bytes.is_empty());
                assert_eq!(bytes.len() % 8, 0);
            }
            assert!(trapped.len() < full.len());
        }
    }
}
