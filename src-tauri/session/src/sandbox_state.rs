//! Settings → Sandbox (issue 24 item 4): whether bubblewrap can run here
//! and, when not, why and how to fix it; its version; and the `sandbox`
//! settings in force with the file each came from, plus the problems in
//! them (file, line, column).
//!
//! Availability is found by running bwrap once (the same probe a session
//! runs: namespaces, the seccomp filter, `/bin/sh -c :`), cached per bwrap
//! executable for the process until the user asks to check again.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use gatehouse_agent::EngineSetup;
use gatehouse_agent::sandbox::{SandboxRead, missing_roots, read_sandbox_settings};
use gatehouse_protocol::sandbox::{
    SandboxEffectiveSettings, SandboxEntry, SandboxFlag, SandboxState, SandboxUnavailable,
    SandboxUnavailableReason,
};
use gatehouse_sandbox::{Bwrap, Sandbox, SandboxPolicy, Unavailable, bwrap_version, find_bwrap};

/// The project whose files are read, and whether the user trusts it.
#[derive(Debug, Clone)]
pub struct SandboxProject {
    /// Its folder.
    pub path: PathBuf,
    /// Whether it is trusted (an untrusted project may only tighten).
    pub trusted: bool,
}

/// What one probe of a bwrap found: its version and whether it runs.
type Probed = (Option<String>, Result<(), SandboxUnavailable>);

fn cache() -> &'static Mutex<HashMap<PathBuf, Probed>> {
    static CACHE: OnceLock<Mutex<HashMap<PathBuf, Probed>>> = OnceLock::new();
    CACHE.get_or_init(Mutex::default)
}

/// Runs `bwrap` once with the default policy in a scratch folder (or takes
/// the cached answer, unless `recheck`).
async fn probe_cached(bwrap: &Bwrap, home: &Path, data_dir: &Path, recheck: bool) -> Probed {
    if !recheck {
        let cached = cache()
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&bwrap.0)
            .cloned();
        if let Some(hit) = cached {
            return hit;
        }
    }
    let version = bwrap_version(bwrap).await;
    let runs = match tempfile::tempdir() {
        Err(e) => Err(Unavailable::new(
            SandboxUnavailableReason::SetupFailed,
            format!("no scratch folder for the probe: {e}"),
        )),
        Ok(scratch) => {
            match Sandbox::new(bwrap.clone(), SandboxPolicy::new(home, Some(data_dir))) {
                Err(e) => Err(Unavailable::new(
                    SandboxUnavailableReason::SetupFailed,
                    e.to_string(),
                )),
                Ok(sandbox) => gatehouse_sandbox::probe(&sandbox, scratch.path()).await,
            }
        }
    };
    let probed = (version, runs.map_err(|u| u.typed().clone()));
    cache()
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(bwrap.0.clone(), probed.clone());
    probed
}

/// The sandbox's state for Settings: bwrap found on `path_var` and probed
/// (cached unless `recheck`), and the settings of the user, the managed
/// policy and `project` (when given) merged as a session would.
pub async fn sandbox_state(
    home: &Path,
    data_dir: &Path,
    project: Option<SandboxProject>,
    path_var: Option<&OsStr>,
    recheck: bool,
) -> SandboxState {
    let setup = EngineSetup {
        // Without a project, a folder that does not exist: no project
        // files are read (the user's and the managed policy's still are).
        project: project
            .as_ref()
            .map_or_else(|| data_dir.join(".no-project"), |p| p.path.clone()),
        home: home.to_path_buf(),
        mode: None,
        trust_project: project.as_ref().is_some_and(|p| p.trusted),
        settings_files: Vec::new(),
    };
    let (read, missing) = tokio::task::spawn_blocking(move || {
        let read = read_sandbox_settings(&setup);
        let missing = missing_roots(&read);
        (read, missing)
    })
    .await
    .unwrap_or_default();
    let (bwrap, bwrap_version, unavailable) = match find_bwrap(path_var) {
        Err(missing) => (None, None, Some(missing.typed().clone())),
        Ok(bwrap) => {
            let (version, runs) = probe_cached(&bwrap, home, data_dir, recheck).await;
            (Some(bwrap.0.display().to_string()), version, runs.err())
        }
    };
    SandboxState {
        unavailable,
        bwrap,
        bwrap_version,
        project: project.map(|p| p.path.display().to_string()),
        settings: effective(&read),
        problems: read.problems.into_iter().chain(missing).collect(),
    }
}

/// The merged settings with the file of each value.
fn effective(read: &SandboxRead) -> SandboxEffectiveSettings {
    let c = &read.config;
    let file = |i: usize| {
        read.file(i)
            .map(|f| f.display().to_string())
            .unwrap_or_default()
    };
    let flag = |value: bool, origin: Option<usize>| SandboxFlag {
        value,
        file: origin.map(file),
    };
    let entries = |values: Vec<String>, origins: &[usize]| -> Vec<SandboxEntry> {
        values
            .into_iter()
            .zip(origins)
            .map(|(value, &i)| SandboxEntry {
                value,
                file: file(i),
            })
            .collect()
    };
    let paths = |ps: &[PathBuf]| ps.iter().map(|p| p.display().to_string()).collect();
    SandboxEffectiveSettings {
        enabled: flag(c.enabled, c.origin.enabled),
        forced: c.forced,
        auto_allow: flag(c.auto_allow, c.origin.auto_allow),
        excluded_commands: entries(c.excluded_commands.clone(), &c.origin.excluded_commands),
        allow_write: entries(paths(&c.allow_write), &c.origin.allow_write),
        deny_read: entries(paths(&c.deny_read), &c.origin.deny_read),
        allowed_domains: entries(
            c.allowed_domains.iter().map(ToString::to_string).collect(),
            &c.origin.allowed_domains,
        ),
    }
}
