//! The host half: one thread per sandboxed call receives the listener,
//! then answers every trapped syscall, recording the ones a read-only mount
//! will refuse.

use std::collections::HashSet;
use std::ffi::OsString;
use std::fs::File;
use std::io::IoSliceMut;
use std::io::Write as _;
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::os::unix::ffi::OsStringExt;
use std::os::unix::fs::FileExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use libseccomp::{
    ScmpArch, ScmpNotifReq, ScmpNotifResp, ScmpNotifRespFlags, ScmpSyscall, notify_id_valid,
};
use rustix::event::{PollFd, PollFlags, Timespec, poll};
use rustix::fs::{FileType, Mode, OFlags, ResolveFlags, StatVfsMountFlags, fstatvfs, openat2};
use rustix::net::{RecvAncillaryBuffer, RecvAncillaryMessage, RecvFlags, recvmsg};

use super::{
    Follows, MAX_DENIALS, Refusal, RefusalKind, TRAPPED, Trapped, allowed_families, asks_to_write,
    family_name,
};
use crate::NetworkPolicy;
use gatehouse_permissions::paths::lexical_absolute;

/// The answer to a refused socket, as bwrap's own filter gives it.
const EPERM: i32 = 1;
/// `AT_FDCWD` as the kernel passes it in a 64-bit register.
const AT_FDCWD: i32 = -100;
/// Longest path read from a process (the kernel's `PATH_MAX`).
const PATH_MAX: usize = 4096;

/// What a call's sandbox refused (writes, sockets), as recorded so far.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Refusals {
    /// In the order refused, each target once, at most [`MAX_DENIALS`].
    pub list: Vec<Refusal>,
    /// Further refusals not kept.
    pub omitted: u32,
}

#[derive(Debug, Default)]
struct Record {
    blocked: Refusals,
    seen: HashSet<String>,
}

impl Record {
    fn add(&mut self, refusal: Refusal) {
        if self.seen.contains(&refusal.target) {
            return;
        }
        if self.blocked.list.len() >= MAX_DENIALS {
            self.blocked.omitted = self.blocked.omitted.saturating_add(1);
            return;
        }
        self.seen.insert(refusal.target.clone());
        self.blocked.list.push(refusal);
    }
}

/// Watches what one sandboxed call is refused. Create it before the
/// command, bind [`RefusalWatch::socket_path`] into the sandbox at
/// [`super::SOCKET_IN_SANDBOX`], and read [`RefusalWatch::blocked`] once
/// the command has ended: every trapped syscall is recorded before it is
/// answered, so by then the record is complete.
///
/// The helper reaches the host through a socket *path*, not an inherited
/// fd: the sandboxed command is spawned without a `pre_exec` step (which
/// would make the standard library `fork` the whole app), and a socket
/// cannot be reopened through `/proc/<pid>/fd`. The helper connects before
/// it starts the command and the host takes that one connection and closes
/// the socket, so the command itself finds nobody there.
#[derive(Debug)]
pub struct RefusalWatch {
    /// The owner-only folder holding the socket (removed on drop).
    dir: tempfile::TempDir,
    record: Arc<Mutex<Record>>,
    /// Tells the thread to stop waiting for the helper (the watch was
    /// dropped, e.g. the command never started).
    dropped: Arc<AtomicBool>,
}

/// How often the thread checks, while it waits for the helper, whether the
/// watch is still wanted.
const WAIT_TICK_MS: i64 = 200;

impl RefusalWatch {
    /// The socket and the supervising thread, which ends when the
    /// command's processes are all gone (or the watch is dropped before
    /// the helper connected).
    pub fn start(network: NetworkPolicy) -> std::io::Result<Self> {
        let allowed = allowed_families(network);
        Self::start_with(move |listener, record| supervise(listener, record, allowed))
    }

    /// A watch whose supervisor takes the listener and closes it at once,
    /// to test that trapped calls then fail rather than go through.
    #[doc(hidden)]
    pub fn start_unsupervised() -> std::io::Result<Self> {
        Self::start_with(|listener, _| drop(listener))
    }

    fn start_with(
        supervisor: impl FnOnce(OwnedFd, &Mutex<Record>) + Send + 'static,
    ) -> std::io::Result<Self> {
        let dir = tempfile::Builder::new()
            .prefix("gatehouse-trap-")
            .tempdir()?;
        let socket = UnixListener::bind(dir.path().join(SOCKET_NAME))?;
        socket.set_nonblocking(true)?;
        let record = Arc::new(Mutex::new(Record::default()));
        let dropped = Arc::new(AtomicBool::new(false));
        let (shared, stop) = (Arc::clone(&record), Arc::clone(&dropped));
        std::thread::Builder::new()
            .name("sandbox-refusals".into())
            .spawn(move || {
                if let Some((listener, mut conn)) = receive_listener(&socket, &stop) {
                    // Closed before the helper may start the command, which
                    // then finds nobody at the socket.
                    drop(socket);
                    if conn.write_all(ACK).is_ok() {
                        drop(conn);
                        supervisor(listener, &shared);
                    }
                }
            })?;
        Ok(Self {
            dir,
            record,
            dropped,
        })
    }

    /// The socket the helper connects to, on the host.
    pub fn socket_path(&self) -> PathBuf {
        self.dir.path().join(SOCKET_NAME)
    }

    /// What was refused so far.
    pub fn blocked(&self) -> Refusals {
        self.record
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .blocked
            .clone()
    }
}

impl Drop for RefusalWatch {
    fn drop(&mut self) {
        self.dropped.store(true, Ordering::Relaxed);
    }
}

/// The socket's file name in the watch's folder.
const SOCKET_NAME: &str = "trap.sock";

/// What the host answers once it holds the listener and has closed the
/// socket; the helper starts the command only then.
const ACK: &[u8] = b"K";

fn supervise(listener: OwnedFd, record: &Mutex<Record>, allowed: &[u64]) {
    let table = Table::native();
    loop {
        let mut fds = [PollFd::new(&listener, PollFlags::IN)];
        if poll(&mut fds, None).is_err() {
            return;
        }
        let revents = fds[0].revents();
        if revents.intersects(PollFlags::HUP | PollFlags::ERR | PollFlags::NVAL)
            && !revents.contains(PollFlags::IN)
        {
            // Every process under the filter is gone.
            return;
        }
        let fd = listener.as_raw_fd();
        let Ok(req) = ScmpNotifReq::receive(fd) else {
            // The process died between the poll and the read.
            continue;
        };
        if req.data.syscall.as_raw_syscall() == table.socket {
            let family = req.data.args[0] & 0xffff_ffff;
            if allowed.contains(&family) {
                // High bits set in the register: the kernel reads the low
                // 32, an allowed family.
                let _ =
                    ScmpNotifResp::new_continue(req.id, ScmpNotifRespFlags::empty()).respond(fd);
                continue;
            }
            // This supervisor is what refuses the families the policy
            // does not allow.
            record
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .add(Refusal {
                    kind: RefusalKind::Network,
                    target: family_name(family),
                    syscall: "socket",
                });
            let _ =
                ScmpNotifResp::new_error(req.id, -EPERM, ScmpNotifRespFlags::empty()).respond(fd);
            continue;
        }
        if let Some(blocked) = table.check(fd, &req) {
            record
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .add(blocked);
        }
        // The kernel runs the call; a read-only mount refuses it. A reply
        // to a process that died meanwhile fails harmlessly.
        let _ = ScmpNotifResp::new_continue(req.id, ScmpNotifRespFlags::empty()).respond(fd);
    }
}

/// Waits for the helper's one connection (until the watch is dropped)
/// and reads the listener it sends.
fn receive_listener(socket: &UnixListener, dropped: &AtomicBool) -> Option<(OwnedFd, UnixStream)> {
    let tick = Timespec {
        tv_sec: 0,
        tv_nsec: WAIT_TICK_MS * 1_000_000,
    };
    let conn = loop {
        if dropped.load(Ordering::Relaxed) {
            return None;
        }
        let mut fds = [PollFd::new(socket, PollFlags::IN)];
        match poll(&mut fds, Some(&tick)) {
            Ok(0) | Err(rustix::io::Errno::INTR) => continue,
            Ok(_) => {}
            Err(_) => return None,
        }
        match socket.accept() {
            Ok((conn, _)) => break conn,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    };
    // Blocking from here: the helper sends at once after connecting.
    conn.set_nonblocking(false).ok()?;
    let mut byte = [0u8; 1];
    let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(1))];
    let mut cmsg = RecvAncillaryBuffer::new(&mut space);
    let mut iov = [IoSliceMut::new(&mut byte)];
    recvmsg(conn.as_fd(), &mut iov, &mut cmsg, RecvFlags::CMSG_CLOEXEC).ok()?;
    let listener = cmsg.drain().find_map(|m| match m {
        RecvAncillaryMessage::ScmRights(mut fds) => fds.next(),
        _ => None,
    })?;
    Some((listener, conn))
}

/// The trapped syscalls by number, for this architecture.
struct Table {
    writes: Vec<(i32, &'static Trapped)>,
    /// `socket` (trapped only for the families the policy refuses).
    socket: i32,
}

impl Table {
    fn native() -> Self {
        let arch = ScmpArch::native();
        Self {
            writes: TRAPPED
                .iter()
                .filter_map(|t| {
                    let nr = ScmpSyscall::from_name_by_arch(t.name, arch).ok()?;
                    Some((nr.as_raw_syscall(), t))
                })
                .collect(),
            socket: ScmpSyscall::from_name_by_arch("socket", arch)
                .map_or(i32::MIN, ScmpSyscall::as_raw_syscall),
        }
    }

    /// The write the trapped call `req` is about to make, if a read-only
    /// mount will refuse it.
    fn check(&self, fd: i32, req: &ScmpNotifReq) -> Option<Refusal> {
        let nr = req.data.syscall.as_raw_syscall();
        let (_, trapped) = self.writes.iter().find(|(n, _)| *n == nr)?;
        let pid = req.pid;
        let args = req.data.args;
        let mem = File::open(format!("/proc/{pid}/mem")).ok()?;
        if let Some(how) = trapped.open_how {
            let mut flags = [0u8; 8];
            mem.read_exact_at(&mut flags, args[how]).ok()?;
            if !asks_to_write(u64::from_ne_bytes(flags)) {
                return None;
            }
        }
        let paths: Vec<(OsString, i32)> = trapped
            .paths
            .iter()
            .map(|p| {
                let path = read_c_string(&mem, args[p.path])?;
                // The dirfd is an `int`: the low 32 bits of the register.
                #[allow(clippy::cast_possible_truncation)]
                let dirfd = p.dirfd.map_or(AT_FDCWD, |d| args[d] as u32 as i32);
                Some((path, dirfd))
            })
            .collect::<Option<_>>()?;
        // The memory read is only trusted if the call is still the one
        // trapped (the process may have died, its pid reused).
        notify_id_valid(fd, req.id).ok()?;
        paths.into_iter().find_map(|(path, dirfd)| {
            let path = resolve(pid, dirfd, &path)?;
            read_only(pid, &path, trapped.follows).then(|| Refusal {
                kind: RefusalKind::Write,
                target: path.display().to_string(),
                syscall: trapped.name,
            })
        })
    }
}

/// A NUL-terminated string at `addr`, read page by page (a string near the
/// end of a mapping must not make the read run into an unmapped page).
fn read_c_string(mem: &File, addr: u64) -> Option<OsString> {
    const PAGE: u64 = 4096;
    let mut out = Vec::new();
    let mut at = addr;
    while out.len() < PATH_MAX {
        let room = usize::try_from(PAGE - at % PAGE).ok()?;
        let mut buf = vec![0u8; room];
        let n = mem.read_at(&mut buf, at).ok()?;
        let chunk = buf.get(..n)?;
        if let Some(end) = chunk.iter().position(|&b| b == 0) {
            out.extend_from_slice(chunk.get(..end)?);
            return Some(OsString::from_vec(out));
        }
        if n == 0 {
            return None;
        }
        out.extend_from_slice(chunk);
        at = at.checked_add(n as u64)?;
    }
    None
}

/// The path absolute inside the sandbox, `.`/`..` folded: relative ones
/// joined to the process's working directory or to the directory fd.
fn resolve(pid: u32, dirfd: i32, path: &OsString) -> Option<PathBuf> {
    let path = Path::new(path);
    let base = if path.is_absolute() {
        PathBuf::from("/")
    } else if dirfd == AT_FDCWD {
        std::fs::read_link(format!("/proc/{pid}/cwd")).ok()?
    } else {
        std::fs::read_link(format!("/proc/{pid}/fd/{dirfd}")).ok()?
    };
    // `.`/`..` folded lexically, as the permission engine does (the
    // kernel follows symlinks before `..`; a write through a symlinked
    // folder followed by `..` can be shown wrongly, and the mount decides).
    Some(lexical_absolute(&base, path))
}

/// Whether a write to `path` (absolute inside the sandbox of `pid`) lands
/// on a read-only mount: the object itself when it exists (and, for calls
/// on the name, is not a symlink), else its folder. Resolved from the
/// sandbox's root with `RESOLVE_IN_ROOT`, so its absolute symlinks point
/// where they do inside.
fn read_only(pid: u32, path: &Path, follows: Follows) -> bool {
    let Ok(root) = rustix::fs::open(
        format!("/proc/{pid}/root"),
        OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    ) else {
        return false;
    };
    let open_in_root = |p: &Path, extra: OFlags| {
        openat2(
            &root,
            p,
            OFlags::PATH | OFlags::CLOEXEC | extra,
            Mode::empty(),
            ResolveFlags::IN_ROOT | ResolveFlags::NO_MAGICLINKS,
        )
    };
    let nofollow = match follows {
        Follows::Target => OFlags::empty(),
        Follows::Name | Follows::NewName => OFlags::NOFOLLOW,
    };
    let object = open_in_root(path, nofollow).ok();
    if follows == Follows::NewName && object.is_some() {
        return false;
    }
    let object = object.filter(|fd| {
        rustix::fs::fstat(fd).is_ok_and(|st| !FileType::from_raw_mode(st.st_mode).is_symlink())
    });
    let fd = match object {
        Some(fd) => fd,
        None => match path.parent().map(|p| open_in_root(p, OFlags::DIRECTORY)) {
            Some(Ok(fd)) => fd,
            _ => return false,
        },
    };
    fstatvfs(&fd).is_ok_and(|s| s.f_flag.contains(StatVfsMountFlags::RDONLY))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_kept_once_and_the_rest_counted() {
        let mut r = Record::default();
        let w = |p: &str| Refusal {
            kind: RefusalKind::Write,
            target: p.into(),
            syscall: "openat",
        };
        r.add(w("/a"));
        r.add(w("/a"));
        for i in 0..MAX_DENIALS + 5 {
            r.add(w(&format!("/f{i}")));
        }
        assert_eq!(r.blocked.list.len(), MAX_DENIALS);
        assert_eq!(r.blocked.list[0].target, "/a");
        assert_eq!(r.blocked.omitted, 6);
    }
}
