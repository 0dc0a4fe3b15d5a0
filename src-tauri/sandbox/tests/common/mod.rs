//! What the sandbox's integration tests share.
#![allow(dead_code, clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use gatehouse_sandbox::{Sandbox, SandboxPolicy, find_bwrap};

/// A scratch folder on the host file system (not under `/tmp`, which is
/// private inside the sandbox, so a write there would prove nothing).
pub struct Scratch {
    _dir: tempfile::TempDir,
    pub home: PathBuf,
    pub project: PathBuf,
    pub outside: PathBuf,
}

pub fn scratch() -> Scratch {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let base = dir.path().canonicalize().unwrap();
    let (home, project, outside) = (
        base.join("home"),
        base.join("project"),
        base.join("outside"),
    );
    for d in [&home, &project, &outside] {
        std::fs::create_dir_all(d).unwrap();
    }
    Scratch {
        _dir: dir,
        home,
        project,
        outside,
    }
}

/// A sandbox with the default policy for `home`; without bwrap the test
/// fails, saying what to install.
pub fn sandbox(home: &Path) -> Sandbox {
    let bwrap = find_bwrap(std::env::var_os("PATH").as_deref())
        .unwrap_or_else(|e| panic!("this test needs bubblewrap: {e}"));
    Sandbox::new(bwrap, SandboxPolicy::new(home, None)).unwrap()
}

/// Runs `cmd` with stdin closed: its exit code (-1 for a signal) and
/// stdout followed by stderr.
pub async fn merged_output(mut cmd: tokio::process::Command) -> (i32, String) {
    cmd.stdin(std::process::Stdio::null());
    let out = cmd.output().await.unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), text)
}

/// Whether `tool` is on `PATH`.
pub fn which(tool: &str) -> bool {
    std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .any(|d| d.join(tool).is_file())
}

/// The network attempts issue 24 item 6 names, each of which must fail
/// inside the sandbox: `getent`, bash's `/dev/tcp`, curl, wget, ping, nc
/// and ssh. A missing program fails the test, saying what to install
/// (`cargo xtask test` installs them).
pub fn network_scripts() -> Vec<String> {
    for (tool, package) in [
        ("curl", "curl"),
        ("wget", "wget"),
        ("ping", "iputils-ping"),
        ("nc", "netcat-openbsd"),
        ("ssh", "openssh-client"),
    ] {
        assert!(
            which(tool),
            "this test needs `{tool}`: apt-get install {package} (cargo xtask test installs it)"
        );
    }
    [
        "getent hosts example.com",
        "exec 3<>/dev/tcp/1.1.1.1/80",
        "exec 3<>/dev/tcp/127.0.0.1/22",
        "curl -sS --max-time 5 http://1.1.1.1/",
        "wget -q -t 1 -T 5 -O- http://1.1.1.1/",
        "ping -c 1 -W 2 1.1.1.1",
        "nc -z -w 3 1.1.1.1 80",
        "ssh -o BatchMode=yes -o ConnectTimeout=5 git@1.1.1.1",
    ]
    .map(String::from)
    .to_vec()
}
