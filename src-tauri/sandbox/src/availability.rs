//! Whether a sandbox can run here, and when not, why and how to fix it
//! (issue 24 item 4), as typed values ([`SandboxUnavailable`]) the session
//! and Settings pass to the UI unchanged.
//!
//! Availability is decided by running bwrap ([`probe`]), never guessed.
//! When it fails, the cause is read from real signals, not from bwrap's
//! English: the kernel settings that forbid unprivileged user namespaces
//! ([`userns_restriction`], read from `/proc/sys`) — then the fix is the
//! sysctl to set; otherwise bwrap's status and stderr are the detail.

use std::ffi::OsStr;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use gatehouse_protocol::sandbox::{SandboxFix, SandboxUnavailable, SandboxUnavailableReason};

use crate::Sandbox;
use crate::launch::Wrapped;

/// How long the availability probe may take.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(10);
/// Bytes of bwrap's stderr kept in a reason.
const STDERR_KEPT: usize = 2048;
/// Where the kernel's settings are read.
pub const PROC_SYS: &str = "/proc/sys";
/// The package that provides bwrap (Debian, Ubuntu, Fedora, Arch).
pub const PACKAGE: &str = "bubblewrap";

/// Why the sandbox cannot run here: the typed reason, details and fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct Unavailable(pub SandboxUnavailable);

impl Unavailable {
    /// An unavailability of `reason` with `detail` and no known fix.
    pub fn new(reason: SandboxUnavailableReason, detail: impl Into<String>) -> Self {
        Self(SandboxUnavailable {
            reason,
            detail: detail.into(),
            fix: None,
        })
    }

    /// The typed value.
    pub fn typed(&self) -> &SandboxUnavailable {
        &self.0
    }
}

/// For logs and the CLI: the detail, then the fix in words.
impl fmt::Display for Unavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.detail)?;
        match &self.0.fix {
            None => Ok(()),
            Some(SandboxFix::InstallPackage { package }) => write!(
                f,
                "; install the {package} package (Debian/Ubuntu: apt-get install {package}, Fedora: dnf install {package})"
            ),
            Some(SandboxFix::Sysctl {
                key,
                value,
                current,
            }) => write!(
                f,
                "; unprivileged user namespaces are disabled ({key} = {current}): run `sysctl -w {key}={value}` and add it to /etc/sysctl.d/ to keep it"
            ),
        }
    }
}

/// A bwrap executable (absolute path, found once, so a later `PATH` change
/// cannot swap it).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Bwrap(pub PathBuf);

/// bwrap on `path` (a `PATH`-style list), or why not.
pub fn find_bwrap(path: Option<&OsStr>) -> Result<Bwrap, Unavailable> {
    path.into_iter()
        .flat_map(std::env::split_paths)
        .map(|dir| dir.join("bwrap"))
        .find(|candidate| candidate.is_file())
        .map(Bwrap)
        .ok_or_else(|| {
            Unavailable(SandboxUnavailable {
                reason: SandboxUnavailableReason::BwrapMissing,
                detail: "bwrap (bubblewrap) was not found on PATH".into(),
                fix: Some(SandboxFix::InstallPackage {
                    package: PACKAGE.into(),
                }),
            })
        })
}

/// What `bwrap --version` prints (`bubblewrap 0.8.0`), or `None` when it
/// does not answer within [`PROBE_TIMEOUT`].
pub async fn bwrap_version(bwrap: &Bwrap) -> Option<String> {
    let out = tokio::process::Command::new(&bwrap.0)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(PROBE_TIMEOUT, out).await.ok()?.ok()?;
    let text = String::from_utf8_lossy(&out.stdout[..out.stdout.len().min(256)]);
    let line = text.lines().next()?.trim();
    (out.status.success() && !line.is_empty()).then(|| line.to_owned())
}

/// The kernel setting under `sysctl_root` (normally [`PROC_SYS`]) that
/// forbids unprivileged user namespaces, as the fix that allows them;
/// `None` when none of the known ones does (or they cannot be read).
///
/// Known: Debian's `kernel.unprivileged_userns_clone = 0`, Ubuntu 23.10+'s
/// AppArmor `kernel.apparmor_restrict_unprivileged_userns = 1`, and
/// `user.max_user_namespaces = 0`.
pub fn userns_restriction(sysctl_root: &Path) -> Option<SandboxFix> {
    const KNOWN: [(&str, &str, &str); 3] = [
        ("kernel.unprivileged_userns_clone", "0", "1"),
        ("kernel.apparmor_restrict_unprivileged_userns", "1", "0"),
        ("user.max_user_namespaces", "0", "15000"),
    ];
    KNOWN.into_iter().find_map(|(key, forbids, allows)| {
        let file = sysctl_root.join(key.replace('.', "/"));
        let current = std::fs::read_to_string(file).ok()?;
        (current.trim() == forbids).then(|| SandboxFix::Sysctl {
            key: key.into(),
            value: allows.into(),
            current: forbids.into(),
        })
    })
}

/// Why bwrap exited with `status` and `stderr`: user namespaces disabled
/// when a kernel setting under `sysctl_root` says so and the process is
/// unprivileged (root needs none), else bwrap's failure with its stderr.
pub fn classify_failure(
    status: &str,
    stderr: &[u8],
    sysctl_root: &Path,
    privileged: bool,
) -> Unavailable {
    let stderr = String::from_utf8_lossy(&stderr[..stderr.len().min(STDERR_KEPT)]);
    let detail = format!(
        "bwrap could not create the sandbox ({status}): {}",
        stderr.trim()
    );
    match userns_restriction(sysctl_root).filter(|_| !privileged) {
        Some(fix) => Unavailable(SandboxUnavailable {
            reason: SandboxUnavailableReason::UserNamespacesDisabled,
            detail,
            fix: Some(fix),
        }),
        None => Unavailable::new(SandboxUnavailableReason::BwrapFailed, detail),
    }
}

/// Checks that `sandbox` can run a command here: bwrap starts, creates its
/// namespaces, loads the filter and runs `/bin/sh -c :` in `dir`.
pub async fn probe(sandbox: &Sandbox, dir: &Path) -> Result<(), Unavailable> {
    use SandboxUnavailableReason::{BwrapNotStarted, SetupFailed};
    let dirs = [dir.to_path_buf()];
    let args = [OsStr::new("-c"), OsStr::new(":")];
    // With allowed domains the probe starts the bridge too.
    let proxy = sandbox
        .start_proxy()
        .map_err(|e| Unavailable::new(SetupFailed, e.to_string()))?;
    // And the blocked-write trap, when the helper is there.
    let writes = sandbox
        .watch_refusals()
        .map_err(|e| Unavailable::new(SetupFailed, e.to_string()))?;
    let mut cmd = sandbox
        .command(&Wrapped {
            program: Path::new("/bin/sh"),
            args: &args,
            cwd: dir,
            env: &[],
            working_dirs: &dirs,
            writable_files: &[],
            proxy: proxy.as_ref(),
            writes: writes.as_ref(),
        })
        .map_err(|e| Unavailable::new(SetupFailed, e.to_string()))?;
    cmd.stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true);
    let child = cmd.spawn().map_err(|e| {
        Unavailable::new(
            BwrapNotStarted,
            format!(
                "bwrap ({}) could not be started: {e}",
                sandbox.bwrap().display()
            ),
        )
    })?;
    drop(cmd);
    let out = match tokio::time::timeout(PROBE_TIMEOUT, child.wait_with_output()).await {
        Ok(Ok(out)) => out,
        Ok(Err(e)) => {
            return Err(Unavailable::new(
                BwrapNotStarted,
                format!("bwrap did not finish: {e}"),
            ));
        }
        Err(_) => {
            return Err(Unavailable::new(
                BwrapNotStarted,
                format!("bwrap did not finish within {} s", PROBE_TIMEOUT.as_secs()),
            ));
        }
    };
    if out.status.success() {
        return Ok(());
    }
    Err(classify_failure(
        &out.status.to_string(),
        &out.stderr,
        Path::new(PROC_SYS),
        rustix::process::geteuid().is_root(),
    ))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// A stand-in for `/proc/sys` (the kernel's own cannot be changed by a
    /// test): the files the kernel would show.
    fn sysctls(values: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (key, value) in values {
            let file = dir.path().join(key.replace('.', "/"));
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, format!("{value}\n")).unwrap();
        }
        dir
    }

    #[test]
    fn ubuntus_apparmor_restriction_is_named_with_its_fix() {
        let root = sysctls(&[
            ("kernel.apparmor_restrict_unprivileged_userns", "1"),
            ("user.max_user_namespaces", "63000"),
        ]);
        let u = classify_failure(
            "exit status: 1",
            b"bwrap: setting up uid map: Permission denied\n",
            root.path(),
            false,
        );
        assert_eq!(u.0.reason, SandboxUnavailableReason::UserNamespacesDisabled);
        assert_eq!(
            u.0.fix,
            Some(SandboxFix::Sysctl {
                key: "kernel.apparmor_restrict_unprivileged_userns".into(),
                value: "0".into(),
                current: "1".into(),
            })
        );
        assert!(u.0.detail.contains("setting up uid map"), "{u}");
        assert!(
            u.to_string()
                .contains("sysctl -w kernel.apparmor_restrict_unprivileged_userns=0"),
            "{u}"
        );
    }

    #[test]
    fn debians_switch_and_a_zero_namespace_limit_are_named() {
        let root = sysctls(&[("kernel.unprivileged_userns_clone", "0")]);
        let fix = userns_restriction(root.path()).unwrap();
        assert!(matches!(fix, SandboxFix::Sysctl { ref key, ref value, .. }
            if key == "kernel.unprivileged_userns_clone" && value == "1"));
        let root = sysctls(&[("user.max_user_namespaces", "0")]);
        assert!(matches!(userns_restriction(root.path()),
            Some(SandboxFix::Sysctl { ref key, .. }) if key == "user.max_user_namespaces"));
    }

    #[test]
    fn without_a_restricting_setting_it_is_bwraps_failure() {
        let root = sysctls(&[
            ("kernel.unprivileged_userns_clone", "1"),
            ("kernel.apparmor_restrict_unprivileged_userns", "0"),
        ]);
        let u = classify_failure("exit status: 1", b"bwrap: oops", root.path(), false);
        assert_eq!(u.0.reason, SandboxUnavailableReason::BwrapFailed);
        assert_eq!(u.0.fix, None);
        // Root needs no user namespaces: a restriction is not the cause.
        let root = sysctls(&[("kernel.apparmor_restrict_unprivileged_userns", "1")]);
        let u = classify_failure("exit status: 1", b"bwrap: oops", root.path(), true);
        assert_eq!(u.0.reason, SandboxUnavailableReason::BwrapFailed);
    }
}
