//! Blocked writes reported from the syscalls (issue 24 item 5): a real
//! bwrap sandbox with this crate's `gatehouse-sandbox-exec` trapping the
//! command's writes and the host's supervisor reading them. Without bwrap
//! the tests fail, saying what to install.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

mod common;

use common::{Scratch, merged_output};
use gatehouse_sandbox::Sandbox;
use gatehouse_sandbox::blocked::{RefusalKind, RefusalWatch, Refusals};
use gatehouse_sandbox::launch::Wrapped;

/// A scratch project with a `.git/config`, and the test's sandbox with
/// this crate's helper.
fn scratch() -> Scratch {
    let s = common::scratch();
    std::fs::create_dir_all(s.project.join(".git")).unwrap();
    std::fs::write(s.project.join(".git/config"), "[core]\n").unwrap();
    s
}

fn sandbox(home: &Path) -> Sandbox {
    common::sandbox(home).with_helper(PathBuf::from(env!("CARGO_BIN_EXE_gatehouse-sandbox-exec")))
}

/// Runs `script` in bash inside `s`'s project under `watch`: exit code and
/// output.
async fn run_watched(s: &Scratch, script: &str, watch: &RefusalWatch) -> (i32, String) {
    let args = [OsStr::new("-c"), OsStr::new(script)];
    let dirs = [s.project.clone()];
    let cmd = sandbox(&s.home)
        .command(&Wrapped {
            program: Path::new("/bin/bash"),
            args: &args,
            cwd: &s.project,
            env: &[],
            working_dirs: &dirs,
            writable_files: &[],
            proxy: None,
            writes: Some(watch),
        })
        .unwrap();
    merged_output(cmd).await
}

/// Runs `script` in bash inside the sandbox with a refusal watch, as
/// Bash does: exit code, output, and what the watch recorded.
async fn run(s: &Scratch, script: &str) -> (i32, String, Refusals) {
    let watch = sandbox(&s.home)
        .watch_refusals()
        .unwrap()
        .expect("the helper is set");
    let (code, out) = run_watched(s, script, &watch).await;
    (code, out, watch.blocked())
}

fn paths(b: &Refusals) -> Vec<&str> {
    b.list.iter().map(|w| w.target.as_str()).collect()
}

#[tokio::test]
async fn writes_the_sandbox_refuses_are_reported_with_their_paths_and_allowed_ones_are_not() {
    let s = scratch();
    let outside = s.outside.join("escape.txt");
    let script = format!(
        "echo x >> .git/config; \
         mkdir -p .claude && echo '{{}}' > .claude/settings.json; \
         echo x > {outside}; \
         echo fine > inside.txt; \
         echo fine > /tmp/scratch.txt; \
         echo quiet > /dev/null; \
         true",
        outside = outside.display()
    );
    let (code, out, blocked) = run(&s, &script).await;
    assert_eq!(code, 0, "{out}");
    let p = &s.project;
    assert_eq!(
        paths(&blocked),
        vec![
            p.join(".git/config").to_str().unwrap(),
            p.join(".claude/settings.json").to_str().unwrap(),
            outside.to_str().unwrap(),
        ],
        "{blocked:?}\n{out}"
    );
    assert!(
        blocked.list.iter().all(|w| w.syscall == "openat"),
        "{blocked:?}"
    );
    assert_eq!(blocked.omitted, 0);
    // The writes were refused; the allowed one happened.
    assert_eq!(
        std::fs::read_to_string(p.join(".git/config")).unwrap(),
        "[core]\n"
    );
    assert!(!outside.exists());
    assert_eq!(
        std::fs::read_to_string(p.join("inside.txt")).unwrap(),
        "fine\n"
    );
}

#[tokio::test]
async fn removing_renaming_and_creating_folders_are_reported_too() {
    let s = scratch();
    let script = "rm -f .git/config; mv .git/config moved; mkdir .git/hooks2; \
                  ln -s x .git/link; mkdir newdir; rmdir newdir; true";
    let (code, out, blocked) = run(&s, script).await;
    assert_eq!(code, 0, "{out}");
    let git = s.project.join(".git");
    let got: Vec<(&str, &str)> = blocked
        .list
        .iter()
        .map(|w| (w.target.as_str(), w.syscall))
        .collect();
    assert_eq!(
        got,
        vec![
            (git.join("config").to_str().unwrap(), "unlinkat"),
            (git.join("hooks2").to_str().unwrap(), "mkdir"),
            (git.join("link").to_str().unwrap(), "symlinkat"),
        ],
        "{out}"
    );
    // `mv` of an already-reported path is not listed twice.
    assert!(s.project.join(".git/config").exists());
}

#[tokio::test]
async fn a_command_that_only_prints_read_only_file_system_reports_nothing() {
    let s = scratch();
    let (code, out, blocked) = run(
        &s,
        "echo 'bash: .git/HEAD: Read-only file system' >&2; echo done > ok.txt",
    )
    .await;
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("Read-only file system"));
    assert_eq!(blocked, Refusals::default());
}

#[tokio::test]
async fn relative_paths_and_directory_fds_are_shown_absolute_inside_the_sandbox() {
    let s = scratch();
    std::fs::create_dir_all(s.project.join("sub")).unwrap();
    // `cd sub` then `../.git/config`: the shown path is folded.
    let (_, out, blocked) = run(&s, "cd sub && echo x > ../.git/config; true").await;
    assert_eq!(
        paths(&blocked),
        vec![s.project.join(".git/config").to_str().unwrap()],
        "{out}"
    );
}

#[tokio::test]
async fn without_the_supervisor_trapped_writes_fail_instead_of_going_through() {
    let s = scratch();
    // A supervisor that receives the listener and goes away at once.
    let orphan = RefusalWatch::start_unsupervised().unwrap();
    let (_, out) = run_watched(&s, "echo x > inside.txt; echo status=$?", &orphan).await;
    assert!(out.contains("status=1"), "{out}");
    assert!(!s.project.join("inside.txt").exists(), "{out}");
}

/// Under the trap, bwrap's own filter leaves sockets to it: the supervisor
/// refuses the families the policy does not allow (`EPERM`, as before) and
/// reports each, also when the register's high bits are set.
#[tokio::test]
async fn network_sockets_are_refused_and_reported_under_the_trap() {
    let s = scratch();
    assert!(common::which("python3"), "this test needs python3");
    let script = r#"python3 - <<'EOF'
import ctypes, errno, socket
libc = ctypes.CDLL(None, use_errno=True)
for fam in (socket.AF_INET, socket.AF_INET6, socket.AF_NETLINK):
    try:
        socket.socket(fam, socket.SOCK_DGRAM).close(); print(int(fam), "allowed")
    except PermissionError:
        print(int(fam), "refused")
socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).close(); print("unix allowed")
if hasattr(libc, "syscall") and ctypes.sizeof(ctypes.c_long) == 8:
    r = libc.syscall(ctypes.c_long(41), ctypes.c_long((1 << 32) | 2), ctypes.c_long(2), ctypes.c_long(0))
    print("high bits", "refused" if r == -1 and ctypes.get_errno() == errno.EPERM else "allowed")
EOF"#;
    let (code, out, blocked) = run(&s, script).await;
    assert_eq!(code, 0, "{out}");
    for line in ["2 refused", "10 refused", "16 refused", "unix allowed"] {
        assert!(out.lines().any(|l| l == line), "{line} missing: {out}");
    }
    if std::env::consts::ARCH == "x86_64" {
        assert!(out.lines().any(|l| l == "high bits refused"), "{out}");
    }
    let got: Vec<(RefusalKind, &str, &str)> = blocked
        .list
        .iter()
        .map(|w| (w.kind, w.target.as_str(), w.syscall))
        .collect();
    assert_eq!(
        got,
        vec![
            (RefusalKind::Network, "AF_INET", "socket"),
            (RefusalKind::Network, "AF_INET6", "socket"),
            (RefusalKind::Network, "AF_NETLINK", "socket"),
        ],
        "{out}"
    );
}

/// The helper's socket takes one connection, before the command starts:
/// the command finds nobody there to hand a listener of its own to.
#[tokio::test]
async fn the_command_cannot_reach_the_hosts_trap_socket() {
    let s = scratch();
    let (code, out, blocked) = run(
        &s,
        "python3 -c \"import socket; socket.socket(socket.AF_UNIX).connect('/tmp/.gatehouse-trap.sock')\" \
         2>&1 | tail -1",
    )
    .await;
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("ConnectionRefusedError"), "{out}");
    assert_eq!(blocked, Refusals::default());
}

/// The same network attempts as `bwrap.rs`'s `sandbox_blocks_the_network`,
/// under the trap (as Bash runs them): each fails, and each that tried an
/// Internet socket is reported as a refused network socket.
#[tokio::test]
async fn every_network_attempt_fails_under_the_trap_and_internet_sockets_are_reported() {
    let s = scratch();
    for script in common::network_scripts() {
        let (code, out, blocked) = run(&s, &script).await;
        assert_ne!(code, 0, "{script} succeeded: {out}");
        // `/dev/tcp` to loopback reaches the sandbox's own `lo` only
        // through an AF_INET socket, which is refused too.
        assert!(
            blocked
                .list
                .iter()
                .any(|r| r.kind == RefusalKind::Network && r.syscall == "socket"),
            "{script}: no refused socket reported: {blocked:?}\n{out}"
        );
    }
}
