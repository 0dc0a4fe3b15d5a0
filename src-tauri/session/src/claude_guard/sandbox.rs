//! Claude Code's own Bash sandbox as an input of the guard's decisions
//! (issue 25 item 2).
//!
//! Claude Code confines Bash commands when its settings say
//! `sandbox.enabled` — the same `sandbox` keys Gatehouse's sessions read,
//! so they are read and merged by trust the same way
//! ([`gatehouse_agent::sandbox::load_sandbox_config`]). On Linux it needs
//! bubblewrap and socat; without them Claude Code 2.1.332 says "Sandbox
//! disabled … Commands will run WITHOUT sandboxing" and asks as usual.
//!
//! With the sandbox on, Gatehouse's engine gets its rules: a call with
//! `dangerouslyDisableSandbox` asks, `excludedCommands` are decided as
//! usual, and with `autoAllowBashIfSandboxed` a confined command that would
//! only ask is allowed by the sandbox step. Gatehouse then gives *no*
//! decision rather than an allow ([`left_to_claude_code`]): it cannot see
//! whether Claude Code's sandbox really starts, and Claude Code only
//! auto-allows when it does (otherwise it asks, and the ask comes to the
//! window through PermissionRequest). Answering "ask" instead would force a
//! prompt for every such command and undo the sandbox's point.
//!
//! That leaves the call to Claude Code's picture of its sandbox, so it is
//! done only where Gatehouse's picture is the same: Claude Code applies a
//! project's own `sandbox` keys whether or not Gatehouse trusts the
//! project, and an untrusted repository whose settings turn the sandbox off
//! (or widen it) would otherwise have its commands left to a sandbox that
//! is not there. Such a call is decided as usual.

use std::ffi::OsStr;
use std::path::Path;
use std::sync::Arc;

use gatehouse_agent::pool::EngineSetup;
use gatehouse_agent::sandbox::{engine_rules, load_sandbox_config, read_sandbox_settings};
use gatehouse_permissions::CheckReport;
use gatehouse_permissions::sandbox::BashSandboxRules;
use gatehouse_protocol::permission::{PermissionBehavior, TraceOutcome, TraceStep};
use gatehouse_sandbox::settings::SandboxConfig;

/// The trace layer saying what Claude Code's sandbox does to a call.
pub const LAYER_CLAUDE_CODE_SANDBOX: &str = "claude_code_sandbox";

/// The programs Claude Code's sandbox needs on Linux.
const NEEDED: [&str; 2] = ["bwrap", "socat"];

/// Claude Code's Bash sandbox for one call, as far as Gatehouse can tell.
#[derive(Debug)]
pub(super) enum ClaudeCodeSandbox {
    /// Its settings leave it off.
    Off,
    /// On in its settings, but programs it needs are missing: Claude Code
    /// runs commands unconfined.
    CannotRun {
        /// The programs not found on the hook's `PATH`.
        missing: Vec<&'static str>,
    },
    /// On: Bash commands run confined by these rules.
    On(BashSandboxRules),
    /// The project is not trusted in Gatehouse, and its own settings change
    /// the sandbox Claude Code runs (off, or wider): Gatehouse does not know
    /// what confines the command, so the sandbox is not counted on.
    SetByUntrustedProject,
}

impl ClaudeCodeSandbox {
    /// The rules Gatehouse's engine decides with.
    pub(super) fn rules(&self) -> Option<BashSandboxRules> {
        match self {
            ClaudeCodeSandbox::On(rules) => Some(rules.clone()),
            _ => None,
        }
    }

    /// Adds what the trace should say about a sandbox that cannot run.
    pub(super) fn explain(&self, trace: &mut Vec<TraceStep>) {
        let detail = match self {
            ClaudeCodeSandbox::CannotRun { missing } => format!(
                "Claude Code's sandbox is enabled but cannot run here ({} not found on PATH): \
                 Claude Code runs the command unconfined, so it is decided as usual",
                missing.join(", ")
            ),
            ClaudeCodeSandbox::SetByUntrustedProject => {
                "this project's own settings change Claude Code's sandbox (turn it off or widen \
                 it), and the project is not trusted in Gatehouse: the sandbox is not counted \
                 on, so the command is decided as usual"
                    .to_owned()
            }
            ClaudeCodeSandbox::Off | ClaudeCodeSandbox::On(_) => return,
        };
        trace.push(TraceStep::new(
            LAYER_CLAUDE_CODE_SANDBOX,
            TraceOutcome::Passthrough,
            detail,
        ));
    }
}

/// Claude Code's sandbox for a Bash call in `project` (its settings files,
/// the project's only when trusted in Gatehouse, as its rules), looking for
/// the programs it needs on `path`. Settings of the wrong shape go to
/// `problems` (a file that turns the sandbox on keeps it on).
pub(super) fn claude_code_sandbox(
    project: &Path,
    home: &Path,
    trusted: bool,
    path: Option<&OsStr>,
    problems: &mut Vec<String>,
) -> ClaudeCodeSandbox {
    let setup = EngineSetup {
        project: project.to_path_buf(),
        home: home.to_path_buf(),
        mode: None,
        trust_project: trusted,
        settings_files: Vec::new(),
    };
    let (config, errors) = load_sandbox_config(&setup);
    problems.extend(errors.into_iter().map(|e| format!("sandbox settings: {e}")));
    if !trusted {
        // What Claude Code merges: every file, the project's included.
        let as_claude_code = read_sandbox_settings(&EngineSetup {
            trust_project: true,
            ..setup
        });
        // A key Gatehouse does not model (`allowAllUnixSockets`,
        // `allowUnsandboxedCommands`, …) or one of a shape it drops is still
        // applied by Claude Code: the project's files may not have any.
        let project_dir = project.join(".claude");
        let project_problem = as_claude_code
            .problems
            .iter()
            .any(|p| Path::new(&p.file).starts_with(&project_dir));
        if project_problem || !same_sandbox(&config, &as_claude_code.config) {
            return ClaudeCodeSandbox::SetByUntrustedProject;
        }
    }
    if !config.enabled {
        return ClaudeCodeSandbox::Off;
    }
    let missing: Vec<&'static str> = NEEDED
        .into_iter()
        .filter(|program| !on_path(program, path))
        .collect();
    if !missing.is_empty() {
        return ClaudeCodeSandbox::CannotRun { missing };
    }
    ClaudeCodeSandbox::On(engine_rules(&Arc::new(config)))
}

/// Whether two merged configurations confine alike (where each value came
/// from aside).
fn same_sandbox(a: &SandboxConfig, b: &SandboxConfig) -> bool {
    a.enabled == b.enabled
        && a.auto_allow == b.auto_allow
        && a.excluded_commands == b.excluded_commands
        && a.allow_write == b.allow_write
        && a.deny_read == b.deny_read
        && a.allowed_domains == b.allowed_domains
}

/// Whether `program` is a file in one of `path`'s folders.
fn on_path(program: &str, path: Option<&OsStr>) -> bool {
    path.into_iter()
        .flat_map(std::env::split_paths)
        .any(|dir| dir.join(program).is_file())
}

/// Whether Gatehouse's allow came only from Claude Code's sandbox
/// auto-allowing a confined command that would have asked: Gatehouse then
/// leaves the call to Claude Code (no decision).
pub fn left_to_claude_code(report: &CheckReport) -> bool {
    report.decision == PermissionBehavior::Allow
        && report
            .trace
            .iter()
            .any(|s| s.layer == "sandbox" && s.outcome == TraceOutcome::Allow)
}
