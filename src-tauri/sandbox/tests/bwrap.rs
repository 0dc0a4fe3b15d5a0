//! The sandbox with the real bwrap, in the style of Codex's
//! `sandbox_blocks_*` tests: every test runs a real shell inside a real
//! bubblewrap sandbox and checks what the host sees afterwards. Without
//! bwrap they fail, saying what to install (CI installs it).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

mod common;

use common::{merged_output, sandbox, scratch, which};
use gatehouse_sandbox::launch::Wrapped;
use gatehouse_sandbox::{Sandbox, SandboxPolicy, find_bwrap, probe};

/// The command running `script` with bash inside the sandbox (cwd and
/// only root: `project`).
fn command(
    sandbox: &Sandbox,
    project: &Path,
    script: &str,
) -> Result<tokio::process::Command, gatehouse_sandbox::SandboxError> {
    let args = [OsStr::new("-c"), OsStr::new(script)];
    let dirs = [project.to_path_buf()];
    sandbox.command(&Wrapped {
        program: Path::new("/bin/bash"),
        args: &args,
        cwd: project,
        env: &[],
        working_dirs: &dirs,
        writable_files: &[],
        proxy: None,
        writes: None,
    })
}

/// Runs `script` (see [`command`]): exit code and merged output.
async fn run(sandbox: &Sandbox, project: &Path, script: &str) -> (i32, String) {
    merged_output(command(sandbox, project, script).unwrap()).await
}

#[tokio::test]
async fn the_probe_passes_where_bwrap_works() {
    let s = scratch();
    probe(&sandbox(&s.home), &s.project).await.unwrap();
    let version =
        gatehouse_sandbox::bwrap_version(&find_bwrap(std::env::var_os("PATH").as_deref()).unwrap())
            .await
            .unwrap();
    assert!(version.starts_with("bubblewrap "), "{version}");
}

/// A bwrap that fails as a broken install would (a real executable that
/// exits 1 with a message): the probe reports bwrap's failure, its status
/// and stderr, and no sysctl fix (none is restricting here, and this may
/// run as root).
#[tokio::test]
async fn a_failing_bwrap_is_reported_with_its_stderr() {
    use std::os::unix::fs::PermissionsExt;
    let s = scratch();
    let fake = s.outside.join("bwrap");
    std::fs::write(
        &fake,
        "#!/bin/sh\necho 'bwrap: broken on purpose' >&2\nexit 1\n",
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let bwrap = find_bwrap(Some(s.outside.as_os_str())).unwrap();
    let sandbox = Sandbox::new(bwrap, SandboxPolicy::new(&s.home, None)).unwrap();
    let err = probe(&sandbox, &s.project).await.unwrap_err();
    let typed = err.typed();
    assert!(
        matches!(
            typed.reason,
            gatehouse_protocol::sandbox::SandboxUnavailableReason::BwrapFailed
                | gatehouse_protocol::sandbox::SandboxUnavailableReason::UserNamespacesDisabled
        ),
        "{typed:?}"
    );
    assert!(typed.detail.contains("broken on purpose"), "{typed:?}");
    assert!(typed.detail.contains("exit status: 1"), "{typed:?}");
}

#[tokio::test]
async fn sandbox_allows_writes_inside_the_working_directory() {
    let s = scratch();
    let (code, out) = run(
        &sandbox(&s.home),
        &s.project,
        "echo hi > made.txt && cat made.txt",
    )
    .await;
    assert_eq!((code, out.trim()), (0, "hi"));
    assert_eq!(
        std::fs::read_to_string(s.project.join("made.txt")).unwrap(),
        "hi\n"
    );
}

/// Bash's background commands write their cwd trailer to /dev/null: the
/// sandbox's /dev must stay usable (a bind of the host's is `nodev`).
#[tokio::test]
async fn dev_null_stays_writable_when_listed_as_a_writable_file() {
    let s = scratch();
    let args = [
        OsStr::new("-c"),
        OsStr::new("echo x > /dev/null && echo ok"),
    ];
    let dirs = [s.project.clone()];
    let files = [PathBuf::from("/dev/null")];
    let mut cmd = sandbox(&s.home)
        .command(&Wrapped {
            program: Path::new("/bin/bash"),
            args: &args,
            cwd: &s.project,
            env: &[],
            working_dirs: &dirs,
            proxy: None,
            writes: None,
            writable_files: &files,
        })
        .unwrap();
    let out = cmd
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "ok\n",
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[tokio::test]
async fn sandbox_blocks_writes_outside_the_working_directories() {
    let s = scratch();
    let target = s.outside.join("escaped.txt");
    let script = format!("echo x > '{}'", target.display());
    let (code, out) = run(&sandbox(&s.home), &s.project, &script).await;
    assert_ne!(code, 0, "{out}");
    assert!(out.contains("Read-only file system"), "{out}");
    assert!(!target.exists());
}

#[tokio::test]
async fn sandbox_blocks_writes_to_protected_paths() {
    let s = scratch();
    let git = s.project.join(".git");
    std::fs::create_dir(&git).unwrap();
    std::fs::write(git.join("config"), "[core]\n").unwrap();
    // A missing `.mcp.json` cannot be mounted over (see NOTES.md); an
    // existing one stays as it is.
    std::fs::write(s.project.join(".mcp.json"), "{}").unwrap();
    let sb = sandbox(&s.home);
    for script in [
        "echo '[core] fsmonitor = evil' >> .git/config",
        "mkdir -p .claude && echo '{}' > .claude/settings.json",
        "echo '{}' > .mcp.json",
        "mkdir .gatehouse/x",
        "rm -rf .git",
    ] {
        let (code, out) = run(&sb, &s.project, script).await;
        assert_ne!(code, 0, "{script} succeeded: {out}");
    }
    assert_eq!(
        std::fs::read_to_string(git.join("config")).unwrap(),
        "[core]\n"
    );
    assert!(!s.project.join(".claude/settings.json").exists());
    assert_eq!(
        std::fs::read_to_string(s.project.join(".mcp.json")).unwrap(),
        "{}"
    );
}

#[tokio::test]
async fn sandbox_blocks_writes_through_a_git_symlink() {
    let s = scratch();
    // `.git` replaced by a symlink to a git directory inside the root: the
    // link itself could be swapped by the command, so nothing is run.
    let real = s.project.join("realgit");
    std::fs::create_dir(&real).unwrap();
    std::fs::write(real.join("config"), "[core]\n").unwrap();
    std::os::unix::fs::symlink("realgit", s.project.join(".git")).unwrap();
    let err = command(&sandbox(&s.home), &s.project, "echo evil >> .git/config").unwrap_err();
    assert!(err.to_string().contains(".git is a symlink"), "{err}");
    assert_eq!(
        std::fs::read_to_string(real.join("config")).unwrap(),
        "[core]\n"
    );
}

#[tokio::test]
async fn sandbox_blocks_reading_home_secrets() {
    let s = scratch();
    let ssh = s.home.join(".ssh");
    std::fs::create_dir(&ssh).unwrap();
    std::fs::write(ssh.join("id_ed25519"), "PRIVATE KEY").unwrap();
    let script = format!(
        "cat '{}'/.ssh/id_ed25519; ls -A '{}'/.ssh",
        s.home.display(),
        s.home.display()
    );
    let (_, out) = run(&sandbox(&s.home), &s.project, &script).await;
    assert!(!out.contains("PRIVATE KEY"), "{out}");
    assert!(out.contains("No such file"), "{out}");
}

#[tokio::test]
async fn sandbox_blocks_the_network() {
    let s = scratch();
    let sb = sandbox(&s.home);
    let scripts = common::network_scripts();
    for script in &scripts {
        let (code, out) = run(&sb, &s.project, script).await;
        assert_ne!(code, 0, "{script} succeeded: {out}");
    }
}

/// The seccomp filter itself (not only the empty network namespace):
/// creating an internet socket is refused with EPERM, a Unix socket works.
#[tokio::test]
async fn sandbox_refuses_internet_sockets_ptrace_and_keyrings() {
    let s = scratch();
    assert!(which("python3"), "this test needs python3");
    let script = r#"python3 - <<'EOF'
import ctypes, errno, os, socket
libc = ctypes.CDLL(None, use_errno=True)
def refused(name, *args):
    r = libc.syscall(*args)
    print(name, "refused" if r == -1 and ctypes.get_errno() == errno.EPERM else "allowed")
for fam in (socket.AF_INET, socket.AF_INET6, socket.AF_NETLINK):
    try:
        socket.socket(fam, socket.SOCK_DGRAM).close(); print(fam, "allowed")
    except PermissionError:
        print(int(fam), "refused")
socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).close(); print("unix allowed")
refused("ptrace", 101, 0, os.getppid(), 0, 0)
refused("keyctl", 250, 0, -3, 0, 0)
refused("add_key", 248, b"user", b"k", b"v", 1, -3)
EOF"#;
    let (code, out) = run(&sandbox(&s.home), &s.project, script).await;
    assert_eq!(code, 0, "{out}");
    if std::env::consts::ARCH == "x86_64" {
        for line in [
            "2 refused",
            "10 refused",
            "16 refused",
            "unix allowed",
            "ptrace refused",
            "keyctl refused",
            "add_key refused",
        ] {
            assert!(out.lines().any(|l| l == line), "{line} missing: {out}");
        }
    }
}

/// The filter is handed over through a memfd that lives as long as the
/// process: a command built by a sandbox that is gone still gets it (and
/// `NO_NEW_PRIVS`), never whatever file reused the fd number.
#[tokio::test]
async fn a_command_outliving_its_sandbox_still_runs_under_the_filter() {
    let s = scratch();
    let cmd = command(
        &sandbox(&s.home),
        &s.project,
        "grep -E '^(Seccomp|NoNewPrivs):' /proc/self/status",
    );
    // The sandbox was a temporary: dropped before the command runs.
    let (code, out) = merged_output(cmd.unwrap()).await;
    assert_eq!(code, 0, "{out}");
    assert!(out.lines().any(|l| l == "Seccomp:\t2"), "no filter: {out}");
    assert!(out.lines().any(|l| l == "NoNewPrivs:\t1"), "{out}");
}

#[tokio::test]
async fn sandbox_kills_background_processes_with_the_call() {
    let s = scratch();
    let marker = format!("gatehouse-bg-{}", std::process::id());
    let script = format!("(exec -a {marker} sleep 300) & disown; echo started");
    let (code, out) = run(&sandbox(&s.home), &s.project, &script).await;
    assert_eq!((code, out.trim()), (0, "started"));
    // The PID namespace ends with its first process, and every process in
    // it with it; allow the kernel a moment to reap.
    for _ in 0..100 {
        if !process_named(&marker) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    panic!("{marker} outlived the sandboxed call");
}

#[test]
fn without_bwrap_on_path_the_reason_says_what_to_install() {
    let empty = tempfile::tempdir().unwrap();
    let err = find_bwrap(Some(empty.path().as_os_str())).unwrap_err();
    assert!(
        err.to_string().contains("apt-get install bubblewrap"),
        "{err}"
    );
    assert_eq!(
        err.typed().reason,
        gatehouse_protocol::sandbox::SandboxUnavailableReason::BwrapMissing
    );
    assert_eq!(
        err.typed().fix,
        Some(gatehouse_protocol::sandbox::SandboxFix::InstallPackage {
            package: "bubblewrap".into()
        })
    );
}

fn process_named(name: &str) -> bool {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(Result::ok)
        .any(|e| {
            std::fs::read(e.path().join("cmdline"))
                .map(|c| c.split(|b| *b == 0).any(|a| a == name.as_bytes()))
                .unwrap_or(false)
        })
}
