//! The seccomp filter bwrap installs before it runs the shell
//! (`--seccomp FD`): built with libseccomp (the same library as the refusal
//! trap's filter, [`crate::blocked::trap`]; one implementation) for this
//! machine's architecture and exported as the raw `struct sock_filter`
//! array bwrap reads. Syscalls of another architecture (32-bit `int 0x80`)
//! kill the process (libseccomp's bad-architecture action), so they cannot
//! go around it.
//!
//! Refused with `EPERM`: creating any socket that is not a Unix socket
//! (when the network is off; with allowed domains, Internet sockets are
//! allowed too, for the loopback bridge — unless the refusal trap refuses
//! and reports those itself, [`Sockets::LeftToTrap`]), `io_uring_setup`
//! (io_uring can open sockets without the `socket` syscall), `ptrace` and
//! `process_vm_readv/writev` (reading or steering other processes), and the
//! kernel keyring calls `keyctl`, `add_key`, `request_key` (the keyutils
//! keychain). Everything else is allowed: the file system and namespaces do
//! the rest. bwrap sets `NO_NEW_PRIVS` itself before loading a filter.

use std::io::{Read, Seek};

use libseccomp::{ScmpAction, ScmpArch, ScmpFilterContext, ScmpSyscall};

use crate::blocked::{allowed_families, refused_family_rules};
use crate::{NetworkPolicy, SandboxError};

const EPERM: i32 = 1;

/// The syscalls refused whatever the policy.
const ALWAYS_REFUSED: &[&str] = &[
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "keyctl",
    "add_key",
    "request_key",
    "io_uring_setup",
];

/// Who refuses the socket families `network` does not allow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sockets {
    /// This filter (`EPERM`, unreported).
    Refused,
    /// The refusal trap installed after it ([`crate::blocked`]), whose
    /// supervisor refuses them and reports each. A filter that refused them
    /// here would win over the trap's notification.
    LeftToTrap,
}

/// The BPF program for `network`, as the bytes bwrap's `--seccomp` reads.
pub fn filter_bytes(network: NetworkPolicy, sockets: Sockets) -> Result<Vec<u8>, SandboxError> {
    let err = |what: &str, e: libseccomp::error::SeccompError| {
        SandboxError::Seccomp(format!("{what}: {e}"))
    };
    let mut ctx = ScmpFilterContext::new(ScmpAction::Allow).map_err(|e| err("seccomp", e))?;
    ctx.set_act_badarch(ScmpAction::KillProcess)
        .map_err(|e| err("the bad-architecture action", e))?;
    let arch = ScmpArch::native();
    let refuse = ScmpAction::Errno(EPERM);
    for name in ALWAYS_REFUSED {
        let nr = ScmpSyscall::from_name_by_arch(name, arch).map_err(|e| err(name, e))?;
        ctx.add_rule(refuse, nr).map_err(|e| err(name, e))?;
    }
    if sockets == Sockets::Refused {
        let socket =
            ScmpSyscall::from_name_by_arch("socket", arch).map_err(|e| err("socket", e))?;
        for cmp in refused_family_rules(allowed_families(network)) {
            ctx.add_rule_conditional(refuse, socket, &[cmp])
                .map_err(|e| err("socket", e))?;
        }
    }
    // libseccomp 2.5 (Debian 12) exports to an fd only.
    let mut file = tempfile::tempfile()
        .map_err(|e| SandboxError::Seccomp(format!("a scratch file for the filter: {e}")))?;
    ctx.export_bpf(&file)
        .map_err(|e| err("exporting the filter", e))?;
    let mut bytes = Vec::new();
    file.rewind()
        .and_then(|()| file.read_to_end(&mut bytes))
        .map_err(|e| SandboxError::Seccomp(format!("reading the exported filter: {e}")))?;
    Ok(bytes)
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
