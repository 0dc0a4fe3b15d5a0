//! Permission decisions as every front end sees them: the verdict, the reason
//! that settled it, and the trace of every layer consulted.
//!
//! The permission engine (`gatehouse-permissions`) produces these; the
//! pipeline (`gatehouse-core`) reports them in `permission_decided` events;
//! the UI renders them as "why was this allowed?".

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// The three outcomes of a permission check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum PermissionBehavior {
    /// The call runs.
    Allow,
    /// The user is asked (or, in `dontAsk` mode, it becomes a deny).
    Ask,
    /// The call is refused; the model gets a refusal result.
    Deny,
}

/// Permission modes, spelled as in Claude Code's settings files.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum PermissionMode {
    /// Reads run; everything else asks.
    #[default]
    Default,
    /// File edits and simple file commands inside the working directories run.
    AcceptEdits,
    /// Read-only tools only, until the plan is approved.
    Plan,
    /// Everything runs except deny rules, ask rules and safety checks.
    BypassPermissions,
    /// Every ask becomes a deny.
    DontAsk,
}

/// Where a permission rule came from, highest precedence first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum RuleSource {
    /// The OS-wide managed policy file or its drop-in folder.
    Policy,
    /// Command-line or launch flags.
    Flag,
    /// `.claude/settings.local.json` in the project.
    Local,
    /// `.claude/settings.json` in the project.
    Project,
    /// `~/.claude/settings.json`.
    User,
    /// Granted in the app for this session (stored in SQLite).
    Session,
    /// A skill's `allowed-tools`, granted while the skill runs (from its
    /// `Skill` call to the end of the turn); allow only, never stored.
    Skill,
}

impl RuleSource {
    /// The sources "always allow" can save rules to, in the order they are
    /// offered: this project only me, this project shared, all projects.
    pub const WRITABLE: [RuleSource; 3] =
        [RuleSource::Local, RuleSource::Project, RuleSource::User];

    /// The settings file of this source for `project` and `home`, in
    /// Claude Code's layout: the one definition of it (the engine reads
    /// these files, "always allow" writes them, the UI shows their paths
    /// from here). `None` for sources that are not one fixed file (policy,
    /// flags, session).
    pub fn settings_file(
        self,
        project: &std::path::Path,
        home: &std::path::Path,
    ) -> Option<std::path::PathBuf> {
        match self {
            RuleSource::Local => Some(project.join(".claude").join("settings.local.json")),
            RuleSource::Project => Some(project.join(".claude").join("settings.json")),
            RuleSource::User => Some(home.join(".claude").join("settings.json")),
            RuleSource::Policy | RuleSource::Flag | RuleSource::Session | RuleSource::Skill => None,
        }
    }
}

/// A settings file rules can be saved to ("always allow"), for the UI.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RuleFile {
    /// Which source it is.
    pub source: RuleSource,
    /// Its absolute path.
    pub path: String,
}

/// The files of [`RuleSource::WRITABLE`] for `project` and `home`.
pub fn rule_files(project: &std::path::Path, home: &std::path::Path) -> Vec<RuleFile> {
    RuleSource::WRITABLE
        .iter()
        .filter_map(|&source| {
            source.settings_file(project, home).map(|path| RuleFile {
                source,
                path: path.display().to_string(),
            })
        })
        .collect()
}

/// Why a decision came out the way it did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DecisionReason {
    /// A permission rule matched.
    Rule {
        /// The rule as written, e.g. `Bash(npm test:*)`.
        rule: String,
        /// Which source it came from.
        source: RuleSource,
        /// The settings file it was read from, when it came from a file.
        file: Option<String>,
    },
    /// A PreToolUse hook decided.
    Hook {
        /// The hook's name or command.
        hook: String,
        /// The reason the hook gave, if any.
        message: Option<String>,
    },
    /// The permission mode decided.
    Mode {
        /// The mode in force.
        mode: PermissionMode,
    },
    /// A built-in safety check (protected path, critical deletion, …) decided.
    SafetyCheck {
        /// What the check found.
        message: String,
    },
    /// The call touches a path outside the working directories.
    WorkingDirectory {
        /// The path at issue.
        path: String,
    },
    /// The tool's own `check_permissions` decided (e.g. Bash's analysis).
    ToolCheck {
        /// What the tool found.
        message: String,
    },
    /// The user answered an ask.
    UserAnswer {
        /// The answer, e.g. "allow once" or "deny: <feedback>".
        answer: String,
    },
    /// Nothing else decided; the default applies.
    Default {
        /// Explanation of the default.
        message: String,
    },
}

/// What one layer of the evaluation said.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum TraceOutcome {
    /// The layer allowed the call.
    Allow,
    /// The layer asked.
    Ask,
    /// The layer denied the call.
    Deny,
    /// The layer had no opinion and passed the call on.
    Passthrough,
    /// The layer was not consulted because an earlier one decided.
    Skipped,
}

/// Which stage of the evaluation a trace step comes from: what front ends
/// label in plain words (the `layer` name is internal and may carry a
/// hook's name).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum TraceStage {
    /// The deny rules (`deny_rules`).
    DenyRules,
    /// The ask rules (`ask_rules`).
    AskRules,
    /// The allow rules (`allow_rules`).
    AllowRules,
    /// The tool's own permission check (`tool_check`).
    ToolCheck,
    /// The analysis of a shell command (`shell_analysis`).
    ShellAnalysis,
    /// Protected paths (`safety_checks`).
    SafetyChecks,
    /// The permission mode (`mode`).
    Mode,
    /// Settings files that could not be read (`settings`).
    Settings,
    /// Destructive tools (`destructive`).
    Destructive,
    /// What applies when nothing else decided (`default`).
    Default,
    /// A PreToolUse hook (`hook`, `hook:<name>`).
    Hook,
    /// The user's answer to the ask (`ask`).
    UserAnswer,
    /// A decision recorded by Claude Code (imported, `claude_code`).
    Imported,
    /// What Gatehouse answered a guarded Claude Code's hook (by its rules,
    /// or the user in Gatehouse's window) (`claude_code_hook`).
    ClaudeCodeHook,
    /// The user in a guarded Claude Code's own terminal prompt
    /// (`claude_code_terminal`).
    ClaudeCodeTerminal,
    /// A layer this build does not know.
    Other,
}

impl TraceStage {
    /// The stage of a layer name (`deny_rules`, `hook:fmt`, …).
    pub fn of_layer(layer: &str) -> Self {
        match layer {
            "deny_rules" => Self::DenyRules,
            "ask_rules" => Self::AskRules,
            "allow_rules" => Self::AllowRules,
            "tool_check" => Self::ToolCheck,
            "shell_analysis" => Self::ShellAnalysis,
            "safety_checks" => Self::SafetyChecks,
            "mode" => Self::Mode,
            "settings" => Self::Settings,
            "destructive" => Self::Destructive,
            "default" => Self::Default,
            "ask" => Self::UserAnswer,
            "claude_code" => Self::Imported,
            "claude_code_hook" => Self::ClaudeCodeHook,
            "claude_code_terminal" => Self::ClaudeCodeTerminal,
            l if l == "hook" || l.starts_with("hook:") => Self::Hook,
            _ => Self::Other,
        }
    }
}

/// One line of a decision trace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct TraceStep {
    /// The layer consulted, e.g. `deny_rules`, `hook:fmt`, `mode`
    /// (internal; front ends label [`Self::stage`]).
    pub layer: String,
    /// The stage of that layer, typed (derived from `layer` for events
    /// stored before it existed).
    pub stage: TraceStage,
    /// What it said.
    pub outcome: TraceOutcome,
    /// Details: the rule that matched, the rules tried, the hook's message.
    pub detail: String,
    /// A rule that would have decided this layer but was not applied (an
    /// untrusted project's allow rule): the UI says "allowed by … — not
    /// applied: project not trusted" from these fields, not from `detail`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub not_applied: Option<NotAppliedRule>,
}

/// A rule read from a settings file that matched the call but does not
/// apply.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct NotAppliedRule {
    /// The rule as written, e.g. `Edit(./src/greeter.py)`.
    pub rule: String,
    /// Which source it came from.
    pub source: RuleSource,
    /// The settings file it was read from (`path:line:column`).
    pub file: Option<String>,
    /// Why it does not apply.
    pub why: NotAppliedWhy,
}

/// Why a matching rule was not applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum NotAppliedWhy {
    /// The project is not trusted: its settings' allow rules are ignored.
    ProjectNotTrusted,
    /// The managed policy lets only its own rules allow.
    ManagedPolicyOnly,
}

/// The layer of the Bash sandbox's step in a decision trace; an `allow`
/// step of this layer means the call was allowed *because* it runs in the
/// sandbox (`autoAllowBashIfSandboxed`), so it must not run outside it.
pub const SANDBOX_LAYER: &str = "sandbox";

impl TraceStep {
    /// A step of layer `layer` (its stage derived from the name).
    pub fn new(layer: impl Into<String>, outcome: TraceOutcome, detail: impl Into<String>) -> Self {
        let layer = layer.into();
        Self {
            stage: TraceStage::of_layer(&layer),
            layer,
            outcome,
            detail: detail.into(),
            not_applied: None,
        }
    }
}

/// A [`TraceStep`] as read: `stage` is missing from events stored before it
/// (a hand-written `Deserialize`, as ts-rs does not read `serde(from)`).
#[derive(Deserialize)]
struct TraceStepWire {
    layer: String,
    #[serde(default)]
    stage: Option<TraceStage>,
    outcome: TraceOutcome,
    detail: String,
    #[serde(default)]
    not_applied: Option<NotAppliedRule>,
}

impl<'de> Deserialize<'de> for TraceStep {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let w = TraceStepWire::deserialize(deserializer)?;
        Ok(Self {
            stage: w.stage.unwrap_or_else(|| TraceStage::of_layer(&w.layer)),
            layer: w.layer,
            outcome: w.outcome,
            detail: w.detail,
            not_applied: w.not_applied,
        })
    }
}

/// A complete, explained permission decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct PermissionDecision {
    /// The verdict.
    pub decision: PermissionBehavior,
    /// What settled it.
    pub reason: DecisionReason,
    /// Every layer consulted, in order.
    pub trace: Vec<TraceStep>,
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod trace_stage_tests {
    use super::*;

    /// Steps stored before `stage` existed get it from their layer; new
    /// ones carry it, so front ends label stages without internal names.
    #[test]
    fn a_trace_step_has_a_typed_stage_old_or_new() {
        let old: TraceStep = serde_json::from_str(
            r#"{"layer":"hook:fmt","outcome":"passthrough","detail":"said nothing"}"#,
        )
        .unwrap();
        assert_eq!(old.stage, TraceStage::Hook);
        let new = TraceStep::new("deny_rules", TraceOutcome::Passthrough, "no rule matches");
        let json = serde_json::to_value(&new).unwrap();
        assert_eq!(json["stage"], "deny_rules");
        assert_eq!(serde_json::from_value::<TraceStep>(json).unwrap(), new);
        assert_eq!(TraceStage::of_layer("ask"), TraceStage::UserAnswer);
        assert_eq!(
            TraceStage::of_layer("claude_code_terminal"),
            TraceStage::ClaudeCodeTerminal
        );
        assert_eq!(
            TraceStage::of_layer("claude_code_hook"),
            TraceStage::ClaudeCodeHook
        );
        assert_eq!(TraceStage::of_layer("something_new"), TraceStage::Other);
    }
}
