//! The function behind `gatehouse-cli check`: "what would happen if the
//! agent called this tool with this input here?"

use std::path::PathBuf;

use gatehouse_protocol::permission::{
    DecisionReason, PermissionBehavior, PermissionMode, TraceStep,
};
use serde_json::Value;

use crate::engine::{EngineContext, PermissionEngine};
use crate::rule::RuleKind;
use crate::session::SessionRule;
use crate::settings::SettingsError;
use crate::sources::{SettingsLayout, load};

/// Everything `gatehouse-cli check` takes.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CheckRequest {
    /// `--project DIR`: the project root, also the cwd unless `cwd` is set.
    pub project_dir: PathBuf,
    /// `--home DIR`: the home directory (user settings, `~`).
    pub home_dir: PathBuf,
    /// `--mode MODE`; `None` uses the settings' `defaultMode`, else default.
    pub mode: Option<PermissionMode>,
    /// `--settings FILE`…: extra settings files (the flag source).
    pub settings_files: Vec<PathBuf>,
    /// `--trust-project`: the project's allow rules apply.
    pub trust_project: bool,
    /// `--tool NAME`: any tool name, MCP tools included.
    pub tool_name: String,
    /// `--input JSON`: the tool input.
    pub input: Value,
    /// The managed policy file; the CLI passes the OS path.
    pub managed_file: Option<PathBuf>,
    /// The managed policy drop-in folder; the CLI passes the OS path.
    pub managed_dropin_dir: Option<PathBuf>,
    /// The cwd, when not the project root.
    pub cwd: Option<PathBuf>,
    /// `--add-dir DIR`…: extra working directories.
    pub additional_dirs: Vec<PathBuf>,
    /// Rules given as launch flags (`--allowedTools`, `--disallowedTools`).
    #[serde(default)]
    pub flag_rules: Vec<(RuleKind, String)>,
    /// Session rules in force (as restored from the store).
    #[serde(default)]
    pub session_rules: Vec<SessionRule>,
    /// The tool declares itself destructive (a trusted MCP server's
    /// `destructiveHint`, or any tool of an untrusted server); no input
    /// reveals it, so the caller says. False for built-in tools.
    #[serde(default)]
    pub destructive: bool,
}

impl CheckRequest {
    /// A request with no policy, no extra files, untrusted, default mode.
    pub fn new(
        project_dir: impl Into<PathBuf>,
        home_dir: impl Into<PathBuf>,
        tool_name: impl Into<String>,
        input: Value,
    ) -> Self {
        CheckRequest {
            project_dir: project_dir.into(),
            home_dir: home_dir.into(),
            mode: None,
            settings_files: Vec::new(),
            trust_project: false,
            tool_name: tool_name.into(),
            input,
            managed_file: None,
            managed_dropin_dir: None,
            cwd: None,
            additional_dirs: Vec::new(),
            flag_rules: Vec::new(),
            session_rules: Vec::new(),
            destructive: false,
        }
    }
}

/// What `gatehouse-cli check` prints (one JSON object).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct CheckReport {
    /// allow | ask | deny.
    pub decision: PermissionBehavior,
    /// What settled it.
    pub reason: DecisionReason,
    /// Every layer consulted.
    pub trace: Vec<TraceStep>,
    /// The mode the decision was made in.
    pub mode: PermissionMode,
    /// Problems in the settings files (file, line, column, cause).
    pub settings_errors: Vec<SettingsError>,
    /// Rules read but not applied, with why (`rule (file): why`).
    pub ignored_rules: Vec<String>,
}

/// Loads the settings of `request`, builds an engine and decides the call.
pub fn check(request: &CheckRequest) -> CheckReport {
    check_with_sandbox(request, None)
}

/// [`check`], with Bash commands running in a sandbox with `sandbox`'s
/// rules (pass it only when that sandbox really runs them): the trace gets
/// a `sandbox` step, and with `autoAllowBashIfSandboxed` a confined
/// command that would only ask is allowed by it.
pub fn check_with_sandbox(
    request: &CheckRequest,
    sandbox: Option<crate::sandbox::BashSandboxRules>,
) -> CheckReport {
    let layout = SettingsLayout {
        project_dir: request.project_dir.clone(),
        home_dir: request.home_dir.clone(),
        managed_file: request.managed_file.clone(),
        managed_dropin_dir: request.managed_dropin_dir.clone(),
        flag_files: request.settings_files.clone(),
        flag_rules: request.flag_rules.clone(),
        project_trusted: request.trust_project,
    };
    let mut settings = load(&layout);
    for rule in &request.session_rules {
        if let Err(e) = crate::rule::parse_rule(&rule.rule) {
            settings.errors.push(SettingsError {
                file: PathBuf::from("<session>"),
                line: 1,
                column: e.column,
                cause: format!("invalid session rule `{}`: {}", rule.rule, e.message),
                loses_restrictions: rule.kind != RuleKind::Allow,
            });
        }
    }
    let mode = request
        .mode
        .or(settings.default_mode)
        .unwrap_or(PermissionMode::Default);
    let ignored_rules = settings
        .ignored
        .iter()
        .map(|i| {
            let file = i
                .rule
                .file
                .as_ref()
                .map(|f| format!(" ({}:{}:{})", f.display(), i.rule.line, i.rule.column))
                .unwrap_or_default();
            format!("{}{file}: {}", i.rule.rule.text, i.why)
        })
        .collect();
    let settings_errors = settings.errors.clone();
    let engine = PermissionEngine::new(
        EngineContext {
            cwd: request
                .cwd
                .clone()
                .unwrap_or_else(|| request.project_dir.clone()),
            home: request.home_dir.clone(),
            additional_dirs: request.additional_dirs.clone(),
            mode,
        },
        settings,
    );
    for rule in &request.session_rules {
        // Validated above; a rule that failed is reported, never applied.
        let _ = engine.add_session_rule(rule.kind, &rule.rule);
    }
    engine.set_bash_sandbox(sandbox);
    let decision =
        engine.decide_input_declared(&request.tool_name, &request.input, request.destructive);
    CheckReport {
        decision: decision.decision,
        reason: decision.reason,
        trace: decision.trace,
        mode,
        settings_errors,
        ignored_rules,
    }
}
