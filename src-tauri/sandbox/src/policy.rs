//! What a sandboxed command may write, what it may not read, and the
//! bubblewrap arguments that say so.
//!
//! Mounts are applied shortest path first, so a deeper mount always wins:
//! a protected `.git` inside a writable root is read-only, a hidden
//! `~/.ssh` inside a writable home is hidden, and a writable worktree inside
//! the hidden data directory is still writable.

use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

use gatehouse_permissions::domain::DomainPattern;

use crate::SandboxError;

/// Names inside every writable root that stay read-only: what a command
/// could use to grant itself more (settings, hooks, MCP servers, editor
/// tasks) or to run code later outside the sandbox (git hooks and config).
pub const PROTECTED_NAMES: &[&str] = &[".git", ".claude", ".vscode", ".mcp.json", ".gatehouse"];

/// Protected directories created empty when missing, so a command cannot
/// create them (bwrap can only mount over something that exists). An empty
/// directory changes nothing for git or any reader of these folders.
pub const CREATED_WHEN_MISSING: &[&str] = &[".claude", ".vscode", ".gatehouse"];

/// Secrets under `$HOME` hidden from sandboxed commands: SSH, AWS, GnuPG
/// and gcloud credentials, and the desktop keychain's files.
pub const HOME_SECRETS: &[&str] = &[
    ".ssh",
    ".aws",
    ".gnupg",
    ".config/gcloud",
    ".local/share/keyrings",
];

/// What a sandboxed command may reach on the network.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NetworkPolicy {
    /// No network at all: a network namespace of its own (only a loopback
    /// device that is down) and no non-Unix sockets (seccomp).
    #[default]
    Off,
    /// Only through the filtering proxy (`sandbox.network.allowedDomains`):
    /// a network namespace of its own with loopback up, where the
    /// [`crate::bridge`] forwards a port to the proxy's Unix socket;
    /// Internet sockets are allowed (there is no route out of the
    /// namespace), other non-Unix sockets are not.
    Proxy,
}

impl NetworkPolicy {
    /// A short name for events and the UI.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Off => "off",
            Self::Proxy => "proxy",
        }
    }
}

/// What a sandboxed command may do, before the working directories of one
/// call are added.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SandboxPolicy {
    /// Directories writable besides the call's working directories
    /// (`sandbox.filesystem.allowWrite`). Must exist.
    pub writable_roots: Vec<PathBuf>,
    /// Paths hidden from the command: directories become empty, files
    /// read as empty. Missing ones are skipped.
    pub deny_read: Vec<PathBuf>,
    /// The network: [`NetworkPolicy::Proxy`] exactly when
    /// `allowed_domains` is not empty (see [`Self::allow_domains`]).
    pub network: NetworkPolicy,
    /// `sandbox.network.allowedDomains`: the hosts the proxy lets through.
    pub allowed_domains: Vec<DomainPattern>,
}

impl SandboxPolicy {
    /// The default policy for a user whose home is `home`: the
    /// [`HOME_SECRETS`] and Gatehouse's `data_dir` hidden, nothing writable
    /// beyond the working directories, no network.
    pub fn new(home: &Path, data_dir: Option<&Path>) -> Self {
        let mut deny_read: Vec<PathBuf> = HOME_SECRETS.iter().map(|s| home.join(s)).collect();
        deny_read.extend(data_dir.map(Path::to_path_buf));
        Self {
            writable_roots: Vec::new(),
            deny_read,
            network: NetworkPolicy::Off,
            allowed_domains: Vec::new(),
        }
    }

    /// Lets commands reach `domains` through the proxy; an empty list
    /// keeps (or turns) the network off.
    pub fn allow_domains(&mut self, domains: Vec<DomainPattern>) {
        self.network = if domains.is_empty() {
            NetworkPolicy::Off
        } else {
            NetworkPolicy::Proxy
        };
        self.allowed_domains = domains;
    }
}

/// One mount, in the order bwrap applies it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mount {
    /// Writable bind of a directory or file onto itself.
    Writable(PathBuf),
    /// Read-only bind onto itself.
    ReadOnly(PathBuf),
    /// An empty read-only tmpfs over a directory.
    HiddenDir(PathBuf),
    /// `/dev/null` over a file.
    HiddenFile(PathBuf),
}

impl Mount {
    fn path(&self) -> &Path {
        match self {
            Self::Writable(p) | Self::ReadOnly(p) | Self::HiddenDir(p) | Self::HiddenFile(p) => p,
        }
    }

    fn rank(&self) -> u8 {
        match self {
            Self::Writable(_) => 0,
            Self::HiddenDir(_) | Self::HiddenFile(_) => 1,
            Self::ReadOnly(_) => 2,
        }
    }
}

/// The mounts of one launch, resolved against the file system.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Mounts {
    /// Every mount, shortest path first.
    pub mounts: Vec<Mount>,
    /// The writable roots (canonical), for display.
    pub writable_roots: Vec<PathBuf>,
}

impl Mounts {
    /// Resolves `policy` plus the call's `working_dirs` (writable roots)
    /// and `writable_files` (files the wrapper must write, such as the
    /// working-directory trailer). A root that does not exist is an error;
    /// a protected name that is missing is created when it is a directory
    /// of [`CREATED_WHEN_MISSING`], else left alone.
    pub fn resolve(
        policy: &SandboxPolicy,
        working_dirs: &[PathBuf],
        writable_files: &[PathBuf],
    ) -> Result<Self, SandboxError> {
        let mut roots: Vec<PathBuf> = Vec::new();
        for root in working_dirs.iter().chain(&policy.writable_roots) {
            let canonical = root.canonicalize().map_err(|source| SandboxError::Root {
                path: root.clone(),
                source,
            })?;
            if !roots.contains(&canonical) {
                roots.push(canonical);
            }
        }
        let mut mounts: Vec<Mount> = roots.iter().cloned().map(Mount::Writable).collect();
        for file in writable_files {
            // The sandbox's own /dev has the devices (a bind of the host's
            // would be mounted `nodev`: /dev/null would refuse writes).
            if file.starts_with("/dev") {
                continue;
            }
            if let Ok(canonical) = file.canonicalize() {
                mounts.push(Mount::Writable(canonical));
            }
        }
        for root in &roots {
            for name in PROTECTED_NAMES {
                let path = root.join(name);
                if std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
                    // A mount lands on the link's target; the link itself
                    // stays replaceable, and a host program would follow
                    // the new one. Refuse rather than confine half-way.
                    return Err(SandboxError::SymlinkedProtected(path));
                }
            }
            for path in protected_paths(root) {
                // Outside every writable root it is read-only already.
                if roots.iter().any(|r| path.starts_with(r)) {
                    mounts.push(Mount::ReadOnly(path));
                }
            }
        }
        for denied in &policy.deny_read {
            let Ok(meta) = std::fs::metadata(denied) else {
                continue;
            };
            let Ok(canonical) = denied.canonicalize() else {
                continue;
            };
            mounts.push(if meta.is_dir() {
                Mount::HiddenDir(canonical)
            } else {
                Mount::HiddenFile(canonical)
            });
        }
        mounts.sort_by(|a, b| {
            depth(a.path())
                .cmp(&depth(b.path()))
                .then(a.rank().cmp(&b.rank()))
        });
        mounts.dedup();
        Ok(Self {
            mounts,
            writable_roots: roots,
        })
    }

    /// The bwrap arguments up to (not including) `--seccomp` and the
    /// command: namespaces, capabilities, the read-only root, `/dev`,
    /// `/proc`, a private `/tmp`, then every mount, then `--chdir cwd`.
    pub fn bwrap_args(&self, network: NetworkPolicy, cwd: &Path) -> Vec<OsString> {
        let mut args: Vec<OsString> = [
            "--die-with-parent",
            "--new-session",
            "--unshare-pid",
            "--unshare-ipc",
        ]
        .iter()
        .map(OsString::from)
        .collect();
        // Proxy too: its own namespace (bwrap brings its loopback up), the
        // proxy's socket being the only way out.
        match network {
            NetworkPolicy::Off | NetworkPolicy::Proxy => args.push("--unshare-net".into()),
        }
        // As root, bwrap keeps every capability unless told otherwise; with
        // CAP_SYS_ADMIN the command could remount the root read-write.
        for a in [
            "--cap-drop",
            "ALL",
            "--ro-bind",
            "/",
            "/",
            "--dev",
            "/dev",
            "--proc",
            "/proc",
            "--tmpfs",
            "/tmp",
        ] {
            args.push(a.into());
        }
        for mount in &self.mounts {
            match mount {
                Mount::Writable(p) => push3(&mut args, "--bind", p.as_os_str(), p.as_os_str()),
                Mount::ReadOnly(p) => push3(&mut args, "--ro-bind", p.as_os_str(), p.as_os_str()),
                Mount::HiddenDir(p) => {
                    args.push("--tmpfs".into());
                    args.push(p.into());
                    args.push("--remount-ro".into());
                    args.push(p.into());
                }
                Mount::HiddenFile(p) => {
                    push3(&mut args, "--ro-bind", "/dev/null".as_ref(), p.as_os_str())
                }
            }
        }
        args.push("--chdir".into());
        args.push(cwd.into());
        args
    }
}

fn push3(args: &mut Vec<OsString>, flag: &str, a: &std::ffi::OsStr, b: &std::ffi::OsStr) {
    args.push(flag.into());
    args.push(a.into());
    args.push(b.into());
}

fn depth(path: &Path) -> usize {
    path.components()
        .filter(|c| matches!(c, Component::Normal(_)))
        .count()
}

/// The protected paths of one writable root, canonical: each existing
/// [`PROTECTED_NAMES`] entry (a symlink resolved to its target), a `.git`
/// file's `gitdir:` target and that git directory's `commondir`.
pub fn protected_paths(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for name in PROTECTED_NAMES {
        let path = root.join(name);
        if std::fs::symlink_metadata(&path).is_err() && CREATED_WHEN_MISSING.contains(name) {
            // Best effort: a root we cannot write to is read-only anyway.
            let _ = std::fs::create_dir(&path);
        }
        let Ok(canonical) = path.canonicalize() else {
            continue;
        };
        if *name == ".git" && canonical.is_file() {
            out.extend(gitdir_targets(&canonical));
        }
        out.push(canonical);
    }
    out
}

/// A `.git` file's `gitdir:` target and its `commondir`, canonical.
fn gitdir_targets(git_file: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Some(base) = git_file.parent() else {
        return out;
    };
    let Some(gitdir) = read_small(git_file)
        .as_deref()
        .and_then(|t| t.lines().find_map(|l| l.strip_prefix("gitdir:")))
        .map(|p| base.join(p.trim()))
        .and_then(|p| p.canonicalize().ok())
    else {
        return out;
    };
    if let Some(common) = read_small(&gitdir.join("commondir"))
        .map(|t| gitdir.join(t.trim()))
        .and_then(|p| p.canonicalize().ok())
    {
        out.push(common);
    }
    out.push(gitdir);
    out
}

/// A small text file (at most 4 KiB read), or `None`.
fn read_small(path: &Path) -> Option<String> {
    use std::io::Read;
    let mut text = String::new();
    std::fs::File::open(path)
        .ok()?
        .take(4096)
        .read_to_string(&mut text)
        .ok()?;
    Some(text)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn deeper_mounts_come_later_and_protected_names_are_read_only() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join(".git")).unwrap();
        std::fs::write(root.join(".mcp.json"), "{}").unwrap();
        let secret = root.join("secret");
        std::fs::create_dir(&secret).unwrap();
        let policy = SandboxPolicy {
            deny_read: vec![secret.clone(), root.join("missing")],
            ..SandboxPolicy::default()
        };
        let m = Mounts::resolve(&policy, std::slice::from_ref(&root), &[]).unwrap();
        assert_eq!(m.mounts[0], Mount::Writable(root.clone()));
        for name in [".git", ".claude", ".vscode", ".gatehouse", ".mcp.json"] {
            assert!(
                m.mounts.contains(&Mount::ReadOnly(root.join(name))),
                "{name}: {:?}",
                m.mounts
            );
        }
        assert!(m.mounts.contains(&Mount::HiddenDir(secret)));
        assert_eq!(m.mounts.len(), 7, "{:?}", m.mounts);
        // The missing protected folders were created (empty) to be mounted.
        assert!(root.join(".claude").is_dir());
    }

    #[test]
    fn a_gitdir_file_protects_its_target_and_commondir() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let main_git = base.join("main/.git");
        let wt_git = main_git.join("worktrees/wt");
        std::fs::create_dir_all(&wt_git).unwrap();
        std::fs::write(wt_git.join("commondir"), "../..\n").unwrap();
        let wt = base.join("wt");
        std::fs::create_dir(&wt).unwrap();
        std::fs::write(wt.join(".git"), format!("gitdir: {}\n", wt_git.display())).unwrap();
        let paths = protected_paths(&wt);
        assert!(paths.contains(&wt_git), "{paths:?}");
        assert!(paths.contains(&main_git), "{paths:?}");
        assert!(paths.contains(&wt.join(".git")), "{paths:?}");
    }

    #[test]
    fn a_missing_root_is_an_error_naming_it() {
        let err = Mounts::resolve(
            &SandboxPolicy::default(),
            &[PathBuf::from("/nonexistent/gatehouse-root")],
            &[],
        )
        .unwrap_err();
        assert!(
            err.to_string().contains("/nonexistent/gatehouse-root"),
            "{err}"
        );
    }

    #[test]
    fn arguments_drop_capabilities_and_unshare_the_network() {
        let m = Mounts::default();
        let args: Vec<String> = m
            .bwrap_args(NetworkPolicy::Off, Path::new("/w"))
            .into_iter()
            .map(|a| a.into_string().unwrap())
            .collect();
        let joined = args.join(" ");
        for needle in [
            "--die-with-parent",
            "--new-session",
            "--unshare-pid",
            "--unshare-net",
            "--cap-drop ALL",
            "--ro-bind / /",
            "--tmpfs /tmp",
            "--chdir /w",
        ] {
            assert!(joined.contains(needle), "{needle} missing: {joined}");
        }
    }
}
