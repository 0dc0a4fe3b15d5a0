//! The session's Bash sandbox (issue 24): Claude Code's `sandbox` settings
//! read from every settings file of the session, merged by trust
//! (`gatehouse_sandbox::settings`), then bwrap found and probed once.
//!
//! The outcome is a [`BashSandbox`] for Bash and, when the sandbox is
//! enabled but cannot run, a notice the session shows once ("sandbox
//! unavailable: …, commands ask as usual").

use std::path::Path;
use std::sync::Arc;

use gatehouse_permissions::sandbox::BashSandboxRules;
use gatehouse_protocol::permission::RuleSource;
use gatehouse_sandbox::{
    Sandbox, SandboxConfig, SandboxPolicy, SandboxSettings, SettingsLayer, find_bwrap, probe,
};
use gatehouse_tools::bash::sandboxed::{BashSandbox, SandboxLauncher};

use crate::pool::{EngineSetup, settings_layout};

/// Call first thing in a Gatehouse binary's `main`: when the process was
/// started as the sandbox's network bridge, runs it and returns its exit
/// code; otherwise lets this executable serve as the bridge for
/// `sandbox.network.allowedDomains` (see `gatehouse_sandbox::bridge`).
pub use gatehouse_sandbox::bridge::run_if_requested as run_network_bridge_if_requested;

/// The largest settings file read for its `sandbox` key.
const MAX_SETTINGS_BYTES: u64 = 4 * 1024 * 1024;

/// The merged `sandbox` settings of `setup`'s files, and the problems
/// found (a key of the wrong shape: the file and the setting; that file's
/// `sandbox` key is then left out).
pub fn load_sandbox_config(setup: &EngineSetup) -> (SandboxConfig, Vec<String>) {
    let mut layers = Vec::new();
    let mut problems = Vec::new();
    for file in settings_layout(setup).files() {
        let Some(text) = read_bounded(&file.path) else {
            continue;
        };
        // Invalid JSON is reported by the permission engine's loader.
        let Ok(doc) = serde_json::from_str::<serde_json::Value>(&text) else {
            continue;
        };
        let layer = layer(file.source, setup.trust_project);
        match SandboxSettings::from_document(&doc) {
            Ok(None) => {}
            Ok(Some(settings)) => layers.push((layer, settings)),
            Err(e) => {
                problems.push(format!("{}: {e}", file.path.display()));
                // A bad key never turns the sandbox off: when the file
                // turns it on, it stays on (with nothing else of the key,
                // so no network, no extra writable roots).
                if doc.pointer("/sandbox/enabled") == Some(&serde_json::Value::Bool(true)) {
                    layers.push((
                        layer,
                        SandboxSettings {
                            enabled: Some(true),
                            ..SandboxSettings::default()
                        },
                    ));
                }
            }
        }
    }
    (
        SandboxConfig::merge(&layers, &setup.project, &setup.home),
        problems,
    )
}

fn layer(source: RuleSource, trusted: bool) -> SettingsLayer {
    match source {
        RuleSource::Policy => SettingsLayer::Managed,
        RuleSource::Project | RuleSource::Local if !trusted => SettingsLayer::Untrusted,
        _ => SettingsLayer::Trusted,
    }
}

fn read_bounded(path: &Path) -> Option<String> {
    use std::io::Read;
    let mut text = String::new();
    std::fs::File::open(path)
        .ok()?
        .take(MAX_SETTINGS_BYTES)
        .read_to_string(&mut text)
        .ok()?;
    Some(text)
}

/// The session's sandbox from `config`: off, on (bwrap found, the policy
/// built and probed in `project`), or unavailable with the reason. Bad
/// `allowWrite` roots are added to `problems` and left out.
pub async fn start_bash_sandbox(
    config: SandboxConfig,
    home: &Path,
    data_dir: Option<&Path>,
    project: &Path,
    path_var: Option<&std::ffi::OsStr>,
    problems: &mut Vec<String>,
) -> BashSandbox {
    if !config.enabled {
        return BashSandbox::Off;
    }
    let unavailable = |reason: String| BashSandbox::Unavailable { reason };
    let bwrap = match find_bwrap(path_var) {
        Ok(b) => b,
        Err(e) => return unavailable(e.to_string()),
    };
    let mut policy = SandboxPolicy::new(home, data_dir);
    for root in &config.allow_write {
        if root.is_dir() {
            policy.writable_roots.push(root.clone());
        } else {
            problems.push(format!(
                "`sandbox.filesystem.allowWrite`: {} is not an existing folder; it stays read-only",
                root.display()
            ));
        }
    }
    policy.deny_read.extend(config.deny_read.iter().cloned());
    if !config.allowed_domains.is_empty() {
        if gatehouse_sandbox::bridge::program().is_some() {
            policy.allow_domains(config.allowed_domains.clone());
        } else {
            problems.push(
                "`sandbox.network.allowedDomains`: this program cannot start the sandbox's network bridge; the network stays off".into(),
            );
        }
    }
    let sandbox = match Sandbox::new(bwrap, policy) {
        Ok(s) => s,
        Err(e) => return unavailable(e.to_string()),
    };
    if let Err(e) = probe(&sandbox, project).await {
        return unavailable(e.to_string());
    }
    BashSandbox::On {
        launcher: Arc::new(SandboxLauncher::new(sandbox)),
        config: Arc::new(config),
    }
}

/// The sentence a session shows once when its sandbox cannot run.
pub fn unavailable_notice(reason: &str) -> String {
    format!("sandbox unavailable: {reason}; commands ask as usual")
}

/// What the permission engine needs of a running sandbox.
pub fn engine_rules(config: &Arc<SandboxConfig>) -> BashSandboxRules {
    let excluded = Arc::clone(config);
    BashSandboxRules {
        auto_allow: config.auto_allow,
        is_excluded: Arc::new(move |command| excluded.is_excluded(command)),
    }
}
