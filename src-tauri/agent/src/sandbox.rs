//! The session's Bash sandbox (issue 24): Claude Code's `sandbox` settings
//! read from every settings file of the session, merged by trust
//! (`gatehouse_sandbox::settings`), then bwrap found and probed once.
//!
//! The outcome is a [`BashSandbox`] for Bash and, when the sandbox is
//! enabled but cannot run, the typed reason the session reports once
//! (`sandbox_unavailable`; "sandbox unavailable: …, commands ask as usual").

use std::path::{Path, PathBuf};
use std::sync::Arc;

use gatehouse_core::bounded_read::read_text;
use gatehouse_permissions::sandbox::BashSandboxRules;
use gatehouse_permissions::settings::locate::scan;
use gatehouse_permissions::settings::{MAX_SETTINGS_FILE_BYTES, Position};
use gatehouse_protocol::event::SettingsProblem;
use gatehouse_protocol::permission::RuleSource;
use gatehouse_protocol::sandbox::{SandboxUnavailable, SandboxUnavailableReason};
use gatehouse_sandbox::{
    Sandbox, SandboxConfig, SandboxPolicy, SandboxSettings, SettingsLayer, Unavailable, find_bwrap,
    probe,
};
use gatehouse_tools::bash::sandboxed::{BashSandbox, SandboxLauncher};

use crate::pool::{EngineSetup, settings_layout};

/// Call first thing in a Gatehouse binary's `main`: when the process was
/// started as the sandbox's network bridge, runs it and returns its exit
/// code; otherwise lets this executable serve as the bridge for
/// `sandbox.network.allowedDomains` (see `gatehouse_sandbox::bridge`).
pub use gatehouse_sandbox::bridge::run_if_requested as run_network_bridge_if_requested;

/// The `sandbox` settings of a session's files, merged, with the file of
/// every layer and the problems found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SandboxRead {
    /// The merged configuration.
    pub config: SandboxConfig,
    /// The file of each merged layer (`config.origin` indexes it).
    pub files: Vec<PathBuf>,
    /// Keys of the wrong shape (that file's `sandbox` key is then left
    /// out) and keys Gatehouse does not support (ignored), each with file,
    /// line and column.
    pub problems: Vec<SettingsProblem>,
}

impl SandboxRead {
    /// The file `index` (an entry of `config.origin`) came from.
    pub fn file(&self, index: usize) -> Option<&Path> {
        self.files.get(index).map(PathBuf::as_path)
    }
}

/// Reads the `sandbox` key of every settings file of `setup` (blocking: a
/// few small files) and merges them by trust.
pub fn read_sandbox_settings(setup: &EngineSetup) -> SandboxRead {
    let mut layers = Vec::new();
    let mut files = Vec::new();
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
        let at =
            |setting: &str, message: String| setting_problem(&file.path, &text, setting, message);
        match SandboxSettings::from_document(&doc) {
            Ok(None) => {}
            Ok(Some(settings)) => {
                problems.extend(settings.unsupported.iter().map(|key| {
                    at(
                        key,
                        format!(
                            "`{key}` is not supported by Gatehouse and is ignored (the sandbox stays as tight as without it)"
                        ),
                    )
                }));
                layers.push((layer, settings));
                files.push(file.path.clone());
            }
            Err(e) => {
                problems.push(at(&e.setting, e.to_string()));
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
                    files.push(file.path.clone());
                }
            }
        }
    }
    SandboxRead {
        config: SandboxConfig::merge(&layers, &setup.project, &setup.home),
        files,
        problems,
    }
}

/// The merged `sandbox` settings of `setup`'s files, and the problems
/// found as `file:line:column: message` (see [`read_sandbox_settings`]).
pub fn load_sandbox_config(setup: &EngineSetup) -> (SandboxConfig, Vec<String>) {
    let read = read_sandbox_settings(setup);
    let problems = read.problems.iter().map(problem_text).collect();
    (read.config, problems)
}

/// A problem as one line: `file:line:column: message`.
pub fn problem_text(p: &SettingsProblem) -> String {
    format!("{}:{}:{}: {}", p.file, p.line, p.column, p.message)
}

/// A problem with `setting` (dotted) in `file`, placed where its value
/// starts in `text` (the nearest enclosing key found, else line 1).
fn setting_problem(file: &Path, text: &str, setting: &str, message: String) -> SettingsProblem {
    let spans = scan(text);
    let path: Vec<&str> = setting.split('.').collect();
    let position = (1..=path.len())
        .rev()
        .find_map(|n| path.get(..n).and_then(|p| spans.position(p)))
        .unwrap_or(Position { line: 1, column: 1 });
    SettingsProblem {
        file: file.display().to_string(),
        line: u32::try_from(position.line).unwrap_or(u32::MAX),
        column: u32::try_from(position.column).unwrap_or(u32::MAX),
        message,
        loses_restrictions: false,
    }
}

/// A problem with `setting` in `file`, read again to place it (for
/// problems found after reading: a writable root that does not exist).
fn problem_in(file: Option<&Path>, setting: &str, message: String) -> SettingsProblem {
    match file {
        Some(f) => setting_problem(f, &read_bounded(f).unwrap_or_default(), setting, message),
        None => SettingsProblem {
            file: String::new(),
            line: 1,
            column: 1,
            message,
            loses_restrictions: false,
        },
    }
}

fn layer(source: RuleSource, trusted: bool) -> SettingsLayer {
    match source {
        RuleSource::Policy => SettingsLayer::Managed,
        RuleSource::Project | RuleSource::Local if !trusted => SettingsLayer::Untrusted,
        _ => SettingsLayer::Trusted,
    }
}

/// A settings file's text; the permission engine's reader reports why one
/// could not be read.
fn read_bounded(path: &Path) -> Option<String> {
    read_text(path, MAX_SETTINGS_FILE_BYTES).ok().flatten()
}

/// A problem for each `sandbox.filesystem.allowWrite` root that is not an
/// existing folder (it stays read-only), with its file and line.
pub fn missing_roots(read: &SandboxRead) -> Vec<SettingsProblem> {
    let config = &read.config;
    config
        .allow_write
        .iter()
        .enumerate()
        .filter(|(_, root)| !root.is_dir())
        .map(|(i, root)| {
            let file = config.origin.allow_write.get(i).and_then(|&l| read.file(l));
            problem_in(
                file,
                "sandbox.filesystem.allowWrite",
                format!(
                    "`sandbox.filesystem.allowWrite`: {} is not an existing folder; it stays read-only",
                    root.display()
                ),
            )
        })
        .collect()
}

/// The session's sandbox from `read`: off, on (bwrap found, the policy
/// built and probed in `project`), or unavailable with the typed reason.
/// Bad `allowWrite` roots are added to `problems` and left out.
pub async fn start_bash_sandbox(
    read: &SandboxRead,
    home: &Path,
    data_dir: Option<&Path>,
    project: &Path,
    path_var: Option<&std::ffi::OsStr>,
    problems: &mut Vec<SettingsProblem>,
) -> BashSandbox {
    let config = &read.config;
    if !config.enabled {
        return BashSandbox::Off;
    }
    let bwrap = match find_bwrap(path_var) {
        Ok(b) => b,
        Err(e) => return BashSandbox::Unavailable(e),
    };
    let mut policy = SandboxPolicy::new(home, data_dir);
    problems.extend(missing_roots(read));
    policy
        .writable_roots
        .extend(config.allow_write.iter().filter(|r| r.is_dir()).cloned());
    policy.deny_read.extend(config.deny_read.iter().cloned());
    if !config.allowed_domains.is_empty() {
        if gatehouse_sandbox::bridge::program().is_some() {
            policy.allow_domains(config.allowed_domains.clone());
        } else {
            let file = config
                .origin
                .allowed_domains
                .first()
                .and_then(|&l| read.file(l));
            problems.push(problem_in(
                file,
                "sandbox.network.allowedDomains",
                "`sandbox.network.allowedDomains`: this program cannot start the sandbox's network bridge; the network stays off".into(),
            ));
        }
    }
    let sandbox = match Sandbox::new(bwrap, policy) {
        Ok(s) => s,
        Err(e) => {
            return BashSandbox::Unavailable(Unavailable::new(
                SandboxUnavailableReason::SetupFailed,
                e.to_string(),
            ));
        }
    };
    if let Err(e) = probe(&sandbox, project).await {
        return BashSandbox::Unavailable(e);
    }
    BashSandbox::On {
        launcher: Arc::new(SandboxLauncher::new(sandbox)),
        config: Arc::new(config.clone()),
    }
}

/// The sentence the CLI shows once when a session's sandbox cannot run
/// (the UI renders the typed `sandbox_unavailable` event instead).
pub fn unavailable_notice(why: &SandboxUnavailable) -> String {
    let why = Unavailable(why.clone());
    format!("sandbox unavailable: {why}; commands ask as usual")
}

/// What the permission engine needs of a running sandbox.
pub fn engine_rules(config: &Arc<SandboxConfig>) -> BashSandboxRules {
    let excluded = Arc::clone(config);
    BashSandboxRules {
        auto_allow: config.auto_allow,
        is_excluded: Arc::new(move |command| excluded.is_excluded(command)),
    }
}
