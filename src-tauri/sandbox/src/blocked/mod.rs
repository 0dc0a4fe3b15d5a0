//! Blocked writes, read from the syscalls themselves (issue 24 item 5).
//!
//! A sandboxed command that writes to `.git/config` gets `EROFS` from the
//! kernel and usually says "Read-only file system" — or nothing. Parsing its
//! output would be a guess, so the sandbox watches the syscalls instead,
//! with seccomp user notifications:
//!
//! 1. bwrap runs the helper binary ([`crate::helper`]) first. Inside the
//!    sandbox, after bwrap's own mounts, it installs a second seccomp filter
//!    ([`trap`]) that hands the write-intent syscalls listed in [`TRAPPED`]
//!    (and the socket families the policy refuses) to a supervisor, sends
//!    the filter's listener to the host over the call's socket (bound at
//!    [`SOCKET_IN_SANDBOX`]) and execs the shell.
//! 2. The host's [`RefusalWatch`] (one thread per call, [`supervisor`]) reads
//!    each trapped call's path from the process's memory, resolves it inside
//!    the sandbox (`openat2` with `RESOLVE_IN_ROOT` from `/proc/<pid>/root`)
//!    and asks the kernel whether the mount it lands on is read-only
//!    (`fstatvfs`'s `ST_RDONLY`, the flag that makes the write fail with
//!    `EROFS`); if so
//!    the call is recorded as blocked. Then the syscall continues and the
//!    read-only mount refuses it.
//!
//! The supervisor only reports: the mounts still enforce. A path swapped
//! between the read and the syscall can be misreported, never let through.
//! If the supervisor stops answering, the call's timeout ends the process
//! group; if the listener closes, trapped calls fail (`ENOSYS`), never
//! succeed.

pub mod supervisor;
pub mod trap;

pub use supervisor::{RefusalWatch, Refusals};

/// Where the call's [`RefusalWatch`] socket is bound inside the sandbox
/// (its `/tmp` is private, so nothing else is there).
pub const SOCKET_IN_SANDBOX: &str = "/tmp/.gatehouse-trap.sock";

/// At most this many blocked writes are kept per call (then only counted).
pub const MAX_DENIALS: usize = 256;

use libseccomp::{ScmpArgCompare, ScmpCompareOp};

/// What kind of thing was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefusalKind {
    /// A write to a path a read-only mount refused.
    Write,
    /// A socket of a family the sandbox does not allow (the network is
    /// off, or only the proxy is reachable).
    Network,
}

/// One thing the sandbox refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// What.
    pub kind: RefusalKind,
    /// A write: the path as the command named it, made absolute inside the
    /// sandbox (its working directory or the directory fd it was relative
    /// to). A socket: its address family (`AF_INET`, `AF_NETLINK`, …).
    pub target: String,
    /// The syscall (`openat`, `unlinkat`, `socket`, …).
    pub syscall: &'static str,
}

/// Socket families by number (`<linux/socket.h>`), for the reports; an
/// unknown one is shown by number.
pub fn family_name(family: u64) -> String {
    let name = match family {
        0 => "AF_UNSPEC",
        1 => "AF_UNIX",
        2 => "AF_INET",
        3 => "AF_AX25",
        4 => "AF_IPX",
        5 => "AF_APPLETALK",
        9 => "AF_X25",
        10 => "AF_INET6",
        16 => "AF_NETLINK",
        17 => "AF_PACKET",
        29 => "AF_CAN",
        31 => "AF_BLUETOOTH",
        38 => "AF_ALG",
        40 => "AF_VSOCK",
        44 => "AF_XDP",
        _ => return format!("address family {family}"),
    };
    name.to_owned()
}

/// The socket families a sandboxed command may create: Unix sockets, and
/// with the proxy Internet sockets too (the namespace has only `lo`, where
/// the bridge listens). The same list as bwrap's own filter
/// ([`crate::seccomp`]) uses when there is no trap.
pub fn allowed_families(network: crate::NetworkPolicy) -> &'static [u64] {
    match network {
        crate::NetworkPolicy::Off => &[1],
        crate::NetworkPolicy::Proxy => &[1, 2, 10],
    }
}

/// Which argument of a trapped syscall holds a path, and which its
/// directory fd (for the `*at` calls).
#[derive(Debug, Clone, Copy)]
pub struct PathArg {
    /// The directory fd argument, if the call has one.
    pub dirfd: Option<usize>,
    /// The path argument.
    pub path: usize,
}

/// What the call acts on, which decides where the mount is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Follows {
    /// `open`, `truncate`: what a final symlink points to (its folder when
    /// it does not exist yet).
    Target,
    /// `unlink`, `rmdir`, `rename`: the name itself, in its folder.
    Name,
    /// `mkdir`, `mknod`, `symlink`, `link`: a new name in its folder. When
    /// the name exists the kernel answers `EEXIST` before it looks at the
    /// mount, so that is not a blocked write.
    NewName,
}

/// A syscall the filter traps.
#[derive(Debug, Clone, Copy)]
pub struct Trapped {
    /// Its name (libseccomp resolves the number for this architecture;
    /// names an architecture lacks, like `open` on aarch64, are skipped).
    pub name: &'static str,
    /// The paths it writes.
    pub paths: &'static [PathArg],
    /// The `open` flags argument: trapped only when the flags ask to
    /// write (`O_WRONLY`, `O_RDWR`, `O_CREAT`, `O_TRUNC`).
    pub open_flags: Option<usize>,
    /// `openat2`: the flags are the first field of the `open_how` struct
    /// this argument points to (BPF cannot read it, so every `openat2` is
    /// trapped and the supervisor reads the flags).
    pub open_how: Option<usize>,
    /// Symlink semantics.
    pub follows: Follows,
}

const fn at(dirfd: usize, path: usize) -> PathArg {
    PathArg {
        dirfd: Some(dirfd),
        path,
    }
}

const fn plain(path: usize) -> PathArg {
    PathArg { dirfd: None, path }
}

const fn call(name: &'static str, paths: &'static [PathArg], follows: Follows) -> Trapped {
    Trapped {
        name,
        paths,
        open_flags: None,
        open_how: None,
        follows,
    }
}

/// The write-intent syscalls: creating, opening for writing, truncating,
/// removing, renaming and linking. Reads, `stat`s and everything else run
/// without a round trip.
pub const TRAPPED: &[Trapped] = &[
    Trapped {
        open_flags: Some(1),
        ..call("open", &[plain(0)], Follows::Target)
    },
    Trapped {
        open_flags: Some(2),
        ..call("openat", &[at(0, 1)], Follows::Target)
    },
    Trapped {
        open_how: Some(2),
        ..call("openat2", &[at(0, 1)], Follows::Target)
    },
    call("creat", &[plain(0)], Follows::Target),
    call("truncate", &[plain(0)], Follows::Target),
    call("mkdir", &[plain(0)], Follows::NewName),
    call("mkdirat", &[at(0, 1)], Follows::NewName),
    call("mknod", &[plain(0)], Follows::NewName),
    call("mknodat", &[at(0, 1)], Follows::NewName),
    call("unlink", &[plain(0)], Follows::Name),
    call("unlinkat", &[at(0, 1)], Follows::Name),
    call("rmdir", &[plain(0)], Follows::Name),
    call("rename", &[plain(0), plain(1)], Follows::Name),
    call("renameat", &[at(0, 1), at(2, 3)], Follows::Name),
    call("renameat2", &[at(0, 1), at(2, 3)], Follows::Name),
    call("link", &[plain(1)], Follows::NewName),
    call("linkat", &[at(2, 3)], Follows::NewName),
    call("symlink", &[plain(1)], Follows::NewName),
    call("symlinkat", &[at(1, 2)], Follows::NewName),
];

/// The `open` flags that ask to write.
pub const WRITE_FLAGS: [u64; 4] = [
    0o1,    // O_WRONLY
    0o2,    // O_RDWR
    0o100,  // O_CREAT
    0o1000, // O_TRUNC
];

/// Whether `flags` (an `open` flags value) asks to write.
pub fn asks_to_write(flags: u64) -> bool {
    WRITE_FLAGS.iter().any(|f| flags & f != 0)
}

/// One comparison per rule, any of which matches a `socket` call of a
/// family not in `allowed`: every
/// family below the largest allowed one that is not allowed (the family
/// is an `int`: its low 32 bits are compared, so high bits set in the
/// register cannot slip past), and anything above it as a 64-bit value
/// (which also traps a register whose high bits are set; the supervisor
/// lets such a call through when its low 32 bits are an allowed family).
/// A few rules instead of one per refused family keeps the filter — built
/// for every command — small.
pub fn refused_family_rules(allowed: &[u64]) -> Vec<ScmpArgCompare> {
    let top = allowed.iter().copied().max().unwrap_or(0);
    let mut rules: Vec<ScmpArgCompare> = (0..top)
        .filter(|f| !allowed.contains(f))
        .map(|f| ScmpArgCompare::new(0, ScmpCompareOp::MaskedEqual(0xffff_ffff), f))
        .collect();
    rules.push(ScmpArgCompare::new(0, ScmpCompareOp::Greater, top));
    rules
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_only_opens_are_not_writes() {
        assert!(!asks_to_write(0)); // O_RDONLY
        assert!(!asks_to_write(0o2000000 | 0o200000)); // O_CLOEXEC | O_DIRECTORY
        assert!(asks_to_write(0o1 | 0o100 | 0o1000)); // "w"
        assert!(asks_to_write(0o2)); // "r+"
        assert!(asks_to_write(0o2 | 0o100 | 0o2000)); // "a+"
    }

    #[test]
    fn every_trapped_path_argument_is_within_the_six_registers() {
        for t in TRAPPED {
            for p in t.paths {
                assert!(p.path < 6 && p.dirfd.is_none_or(|d| d < 6), "{}", t.name);
            }
        }
    }
}
