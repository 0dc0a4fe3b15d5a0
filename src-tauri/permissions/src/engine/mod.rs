//! The permission engine: evaluation order and modes exactly as SPEC §5,
//! producing explained decisions.
//!
//! 1. deny rules (any match → deny, final, every mode);
//! 2. ask rules (→ ask, every mode, even bypass);
//! 3. the tool's own check (Bash: the shell analysis; a tool's verdict);
//! 4. safety checks (protected paths, critical deletions → ask, even bypass);
//!    a destructive MCP tool asks (except in bypassPermissions and plan)
//!    unless an allow rule names it exactly (the `destructive` layer);
//! 5. the mode;
//! 6. allow rules;
//! 7. otherwise ask.
//!
//! Afterwards: a call that requires user interaction is never allowed
//! without asking; when a settings error may have hidden deny or ask rules,
//! nothing is allowed without asking; in `dontAsk` mode every ask is a deny.

use std::path::{Path, PathBuf};
use std::sync::RwLock;

use gatehouse_core::permission::{PermissionQuery, PermissionResolver};
use gatehouse_protocol::permission::{
    DecisionReason, NotAppliedRule, NotAppliedWhy, PermissionBehavior, PermissionDecision,
    PermissionMode, RuleSource, TraceOutcome, TraceStep,
};

use crate::index::RuleIndex;
use crate::paths::{PathForms, canonical};
use crate::rule::{EDIT_TOOLS, READ_TOOLS, RuleKind, RuleParseError, parse_rule};
use crate::sandbox::BashSandboxRules;
use crate::sources::{LoadedSettings, SourcedRule};

mod decider;

use decider::Decider;

/// Where the engine runs: directories and the mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineContext {
    /// The current working directory.
    pub cwd: PathBuf,
    /// The home directory (`~`).
    pub home: PathBuf,
    /// Working directories besides the cwd (`--add-dir`, settings).
    pub additional_dirs: Vec<PathBuf>,
    /// The permission mode requested.
    pub mode: PermissionMode,
}

/// Environment variables that change what an allowed command does; a
/// command that sets one is never allowed by an allow rule.
pub fn is_dangerous_env(name: &str) -> bool {
    const EXACT: &[&str] = &[
        "PATH",
        "IFS",
        "ENV",
        "BASH_ENV",
        "PROMPT_COMMAND",
        "SHELLOPTS",
        "BASHOPTS",
        "PS4",
        "PYTHONPATH",
        "PYTHONSTARTUP",
        "PYTHONHOME",
        "NODE_OPTIONS",
        "NODE_PATH",
        "PERL5OPT",
        "PERL5LIB",
        "PERLLIB",
        "RUBYOPT",
        "RUBYLIB",
        "EDITOR",
        "VISUAL",
        "PAGER",
        "LESSOPEN",
        "LESSCLOSE",
        "HOME",
        "ZDOTDIR",
        "CDPATH",
        "JAVA_TOOL_OPTIONS",
        "CLASSPATH",
        "NPM_CONFIG_PREFIX",
    ];
    EXACT.contains(&name)
        || name.starts_with("LD_")
        || name.starts_with("DYLD_")
        || name.starts_with("GIT_")
        || name.starts_with("BASH_FUNC_")
}

/// The engine. Cheap to share (`Arc`); its state changes through `&self`
/// methods guarded by a lock, so the pipeline can hold it as a resolver.
#[derive(Debug)]
pub struct PermissionEngine {
    state: RwLock<State>,
}

#[derive(Debug)]
struct State {
    cwd: PathBuf,
    home: PathBuf,
    /// Working directories given at launch or added at run time.
    extra_dirs: Vec<PathBuf>,
    /// The cwd, the extra directories and the settings' additional
    /// directories, all canonical.
    working_dirs: Vec<PathBuf>,
    mode: PermissionMode,
    settings: LoadedSettings,
    session_rules: Vec<SourcedRule>,
    /// Allow rules of the skills running in this turn (their
    /// `allowed-tools`); each rule's `file` is the skill's SKILL.md.
    skill_rules: Vec<SourcedRule>,
    index: RuleIndex,
    /// The index with the allow rules the settings read but ignored (an
    /// untrusted project's, or non-policy ones under a policy-only policy)
    /// added; `None` when none were ignored. A call these would have allowed
    /// says so in its trace instead of "no allow rule matches".
    with_ignored_allows: Option<RuleIndex>,
    /// Folders decided as another (a git worktree of the project as the
    /// project): the alias's lexical and canonical forms, and the root.
    root_aliases: Vec<(PathForms, PathBuf)>,
    /// The session's Bash sandbox when it runs (issue 24).
    bash_sandbox: Option<BashSandboxRules>,
}

impl State {
    /// Both forms of `path` (relative to the cwd), with a path under a
    /// root alias moved to the same place under its root, so rules,
    /// working directories and protected paths apply as in the project.
    fn forms(&self, path: &Path) -> PathForms {
        let mut forms = PathForms::new(&self.cwd, path);
        for form in [&mut forms.lexical, &mut forms.canonical] {
            if let Some((alias, root)) = self.root_aliases.iter().find_map(|(a, root)| {
                a.iter()
                    .find(|alias| form.starts_with(alias))
                    .map(|alias| (alias.to_path_buf(), root))
            }) && let Ok(rest) = form.strip_prefix(&alias)
            {
                *form = root.join(rest);
            }
        }
        forms
    }

    fn rebuild_index(&mut self) {
        let mut dirs = vec![self.cwd.clone()];
        for d in self
            .extra_dirs
            .iter()
            .chain(self.settings.additional_directories.iter())
        {
            dirs.push(canonical(&self.cwd, d));
        }
        self.working_dirs = dirs;
        let managed_only = self.settings.managed_rules_only;
        self.index = RuleIndex::build(
            self.settings.rules.iter().chain(
                self.session_rules
                    .iter()
                    .chain(&self.skill_rules)
                    .filter(|r| !(managed_only && r.kind == RuleKind::Allow)),
            ),
            &self.cwd,
            &self.home,
        );
        let ignored: Vec<&SourcedRule> = self
            .settings
            .ignored
            .iter()
            .map(|i| &i.rule)
            .filter(|r| r.kind == RuleKind::Allow)
            .collect();
        self.with_ignored_allows = (!ignored.is_empty()).then(|| {
            RuleIndex::build(
                self.settings
                    .rules
                    .iter()
                    .chain(
                        self.session_rules
                            .iter()
                            .chain(&self.skill_rules)
                            .filter(|r| !(managed_only && r.kind == RuleKind::Allow)),
                    )
                    .chain(ignored),
                &self.cwd,
                &self.home,
            )
        });
    }
}

/// The trace step of an ignored allow rule that would have allowed the
/// call (decided again with the ignored rules in force), if one would.
fn not_applied_step(
    st: &State,
    with_ignored: &RuleIndex,
    query: &PermissionQuery<'_>,
) -> Option<TraceStep> {
    let what_if = Decider::new(st, with_ignored, query).run();
    let DecisionReason::Rule { rule, source, file } = what_if.reason else {
        return None;
    };
    if what_if.decision != PermissionBehavior::Allow {
        return None;
    }
    let ignored = st.settings.ignored.iter().find(|i| {
        i.rule.kind == RuleKind::Allow && i.rule.source == source && i.rule.rule.text == rule
    })?;
    // `sources::load` ignores an allow rule for one of two reasons, trust
    // first; only a trusted project's rules are ignored by policy.
    let why = if ignored.why.contains("not trusted") {
        NotAppliedWhy::ProjectNotTrusted
    } else {
        NotAppliedWhy::ManagedPolicyOnly
    };
    let where_ = ignored
        .rule
        .file
        .as_deref()
        .map_or_else(|| format!("{source:?}"), |f| format!("`{}`", f.display()));
    let because = match why {
        NotAppliedWhy::ProjectNotTrusted => "the project is not trusted",
        NotAppliedWhy::ManagedPolicyOnly => "managed policy lets only its own rules allow",
    };
    Some(TraceStep {
        not_applied: Some(NotAppliedRule {
            rule: rule.clone(),
            source,
            file,
            why,
        }),
        ..TraceStep::new(
            "allow_rules",
            TraceOutcome::Passthrough,
            format!("`{rule}` in {where_} would allow this call — not applied: {because}"),
        )
    })
}

/// One rule as a decision reason.
fn rule_reason(rule: &SourcedRule) -> DecisionReason {
    DecisionReason::Rule {
        rule: rule.rule.text.clone(),
        source: rule.source,
        file: rule.file.as_ref().map(|f| {
            if rule.line > 0 {
                format!("{}:{}:{}", f.display(), rule.line, rule.column)
            } else {
                f.display().to_string()
            }
        }),
    }
}

/// Where a rule came from, for trace lines: the source's name, or for a
/// skill's grant "skill `<name>`" (its folder, as Claude Code names skills).
fn source_label(rule: &SourcedRule) -> String {
    match (rule.source, &rule.file) {
        (RuleSource::Skill, Some(file)) => {
            let name = file.parent().and_then(Path::file_name).map_or_else(
                || file.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            );
            format!("skill `{name}` (its allowed-tools)")
        }
        (source, _) => format!("{source:?}"),
    }
}

fn step(layer: &str, outcome: TraceOutcome, detail: impl Into<String>) -> TraceStep {
    TraceStep::new(layer, outcome, detail)
}

/// A verdict of one layer: the behaviour and why.
type Verdict = (PermissionBehavior, DecisionReason);

/// What a call is about, normalised from the query.
#[derive(Debug, Clone)]
enum Subject {
    Command(String),
    Path {
        path: PathBuf,
        write: bool,
    },
    Url(String),
    /// What `Agent(type)` and `Skill(name)` rules match: a sub-agent type
    /// or a skill name (each rule applies to its own tool's calls only).
    Named(String),
    None,
}

impl PermissionEngine {
    /// An engine for `context` with the rules of `settings`.
    pub fn new(context: EngineContext, settings: LoadedSettings) -> Self {
        let cwd = canonical(Path::new("/"), &context.cwd);
        let home = canonical(Path::new("/"), &context.home);
        let extra_dirs = context
            .additional_dirs
            .iter()
            .map(|d| canonical(&cwd, d))
            .collect();
        let mut state = State {
            cwd,
            home,
            extra_dirs,
            working_dirs: Vec::new(),
            mode: context.mode,
            settings,
            session_rules: Vec::new(),
            skill_rules: Vec::new(),
            index: RuleIndex::default(),
            with_ignored_allows: None,
            root_aliases: Vec::new(),
            bash_sandbox: None,
        };
        state.rebuild_index();
        PermissionEngine {
            state: RwLock::new(state),
        }
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, State> {
        self.state.read().unwrap_or_else(|p| p.into_inner())
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, State> {
        self.state.write().unwrap_or_else(|p| p.into_inner())
    }

    /// The mode requested (before a policy's bypass restriction).
    pub fn mode(&self) -> PermissionMode {
        self.read().mode
    }

    /// Tells the engine that Bash commands run in the sandbox (set only
    /// when it really runs): the trace gets a `sandbox` step,
    /// `dangerouslyDisableSandbox` always asks, and with `auto_allow` a
    /// sandboxed command that would only ask runs without asking (deny and
    /// ask rules, protected paths and critical deletions still apply).
    pub fn set_bash_sandbox(&self, rules: Option<BashSandboxRules>) {
        self.write().bash_sandbox = rules;
    }

    /// Switches the mode (e.g. from the UI or EnterPlanMode).
    pub fn set_mode(&self, mode: PermissionMode) {
        self.write().mode = mode;
    }

    /// Changes the cwd (the Bash tool's persistent directory, a worktree).
    /// Relative path rules follow it; the old cwd stops being a working
    /// directory unless it is also an additional one.
    pub fn set_cwd(&self, cwd: &Path) {
        let mut st = self.write();
        st.cwd = canonical(Path::new("/"), cwd);
        st.rebuild_index();
    }

    /// Decides every path under `alias` as the same path under `root`: a
    /// git worktree of the project (issue 19 item 5) gets the project's
    /// rules (anchored at the project root), working directories, trust and
    /// protected paths. Replaces an earlier alias of the same folder.
    pub fn add_root_alias(&self, alias: &Path, root: &Path) {
        let mut st = self.write();
        let forms = PathForms::new(Path::new("/"), alias);
        let root = canonical(Path::new("/"), root);
        st.root_aliases.retain(|(a, _)| a != &forms);
        st.root_aliases.push((forms, root));
    }

    /// Ends [`Self::add_root_alias`] for `alias`.
    pub fn remove_root_alias(&self, alias: &Path) {
        let forms = PathForms::new(Path::new("/"), alias);
        self.write().root_aliases.retain(|(a, _)| a != &forms);
    }

    /// Adds a working directory (`/add-dir`).
    pub fn add_working_directory(&self, dir: &Path) {
        let mut st = self.write();
        let dir = canonical(&st.cwd, dir);
        st.extra_dirs.push(dir);
        st.rebuild_index();
    }

    /// The working directories (canonical): the cwd first.
    pub fn working_directories(&self) -> Vec<PathBuf> {
        self.read().working_dirs.clone()
    }

    /// The settings the engine decides with (errors included).
    pub fn settings_errors(&self) -> Vec<crate::settings::SettingsError> {
        self.read().settings.errors.clone()
    }

    /// The settings in force (a copy).
    pub fn settings(&self) -> LoadedSettings {
        self.read().settings.clone()
    }

    /// Replaces the settings (after a reload); session rules are kept.
    pub fn replace_settings(&self, settings: LoadedSettings) {
        let mut st = self.write();
        st.settings = settings;
        st.rebuild_index();
    }

    /// Adds a rule granted in the app for this session.
    pub fn add_session_rule(&self, kind: RuleKind, text: &str) -> Result<(), RuleParseError> {
        let rule = parse_rule(text)?;
        let mut st = self.write();
        st.session_rules.push(SourcedRule {
            rule,
            kind,
            source: RuleSource::Session,
            file: None,
            line: 0,
            column: 0,
            settings_root: None,
        });
        st.rebuild_index();
        Ok(())
    }

    /// Replaces the session rules (the rule editor saved a session's
    /// rules). Rules that do not parse are left out and returned.
    pub fn replace_session_rules(&self, rules: &[(RuleKind, String)]) -> Vec<RuleParseError> {
        let mut kept = Vec::new();
        let mut errors = Vec::new();
        for (kind, text) in rules {
            match parse_rule(text) {
                Ok(rule) => kept.push(SourcedRule {
                    rule,
                    kind: *kind,
                    source: RuleSource::Session,
                    file: None,
                    line: 0,
                    column: 0,
                    settings_root: None,
                }),
                Err(e) => errors.push(e),
            }
        }
        let mut st = self.write();
        st.session_rules = kept;
        st.rebuild_index();
        errors
    }

    /// Grants the tools a running skill lists in `allowed-tools` (its
    /// SKILL.md is `file`) as allow rules of source [`RuleSource::Skill`]
    /// until [`Self::end_skill_grants`]. They sit with the other allow
    /// rules: deny and ask rules, the tool's own check, safety checks and
    /// the mode all come first, so a skill never lifts any of them, and a
    /// policy that allows only managed rules ignores them. Entries that do
    /// not parse as rules are left out and returned.
    pub fn grant_skill_rules(&self, file: &Path, tools: &[String]) -> Vec<RuleParseError> {
        let mut errors = Vec::new();
        let mut st = self.write();
        for text in tools {
            match parse_rule(text) {
                Ok(rule) => st.skill_rules.push(SourcedRule {
                    rule,
                    kind: RuleKind::Allow,
                    source: RuleSource::Skill,
                    file: Some(file.to_path_buf()),
                    line: 0,
                    column: 0,
                    settings_root: None,
                }),
                Err(e) => errors.push(e),
            }
        }
        st.rebuild_index();
        errors
    }

    /// Ends every skill's grants (the turn that loaded them is over).
    pub fn end_skill_grants(&self) {
        let mut st = self.write();
        if !st.skill_rules.is_empty() {
            st.skill_rules.clear();
            st.rebuild_index();
        }
    }

    /// The session rules, as `(kind, text)`.
    pub fn session_rules(&self) -> Vec<(RuleKind, String)> {
        self.read()
            .session_rules
            .iter()
            .map(|r| (r.kind, r.rule.text.clone()))
            .collect()
    }

    /// Decides a call given by tool name and input, deriving the subject
    /// and read-only flag of built-in tools from the input (what the CLI's
    /// `check` does, where no tool objects exist).
    pub fn decide_input(&self, tool_name: &str, input: &serde_json::Value) -> PermissionDecision {
        self.decide_input_declared(tool_name, input, false)
    }

    /// [`decide_input`](Self::decide_input) for a tool that declares
    /// whether it is destructive (an MCP tool's `destructiveHint` from a
    /// trusted server, or any tool of an untrusted one), which no input
    /// reveals.
    pub fn decide_input_declared(
        &self,
        tool_name: &str,
        input: &serde_json::Value,
        is_destructive: bool,
    ) -> PermissionDecision {
        let facts = crate::tools::builtin_subject_facts(tool_name, input);
        let verdict = crate::tools::builtin_verdict(tool_name, input);
        let query = PermissionQuery {
            tool_name,
            input,
            subject: facts.subject.as_ref(),
            is_read_only: facts.is_read_only,
            is_destructive,
            requires_user_interaction: facts.requires_user_interaction,
            tool_verdict: &verdict,
        };
        self.decide(&query)
    }
}

impl PermissionResolver for PermissionEngine {
    fn is_blanket_denied(&self, tool_name: &str) -> bool {
        self.read().index.blanket_denies(tool_name)
    }

    fn decide(&self, query: &PermissionQuery<'_>) -> PermissionDecision {
        self.decide_with(query, None)
    }

    fn decide_in_subagent_mode(
        &self,
        query: &PermissionQuery<'_>,
        requested: PermissionMode,
    ) -> PermissionDecision {
        self.decide_with(query, Some(requested))
    }

    fn add_root_alias(&self, alias: &Path, root: &Path) -> bool {
        PermissionEngine::add_root_alias(self, alias, root);
        true
    }

    fn remove_root_alias(&self, alias: &Path) {
        PermissionEngine::remove_root_alias(self, alias);
    }
}

/// The mode a sub-agent decides in when its definition asks for
/// `requested` and its session is in `parent` (issue 19 item 4): never more
/// permissive than the session. A planning session's sub-agents plan;
/// `bypassPermissions` only when the session itself bypasses; `acceptEdits`
/// from `default` (the session could switch to it without any policy), not
/// from `dontAsk`; `default`, `plan` and `dontAsk` (no more permissive than
/// any other mode but plan's reads) always.
pub fn subagent_mode(requested: PermissionMode, parent: PermissionMode) -> PermissionMode {
    use PermissionMode::{AcceptEdits, BypassPermissions, Default, DontAsk, Plan};
    match (requested, parent) {
        (_, Plan) => Plan,
        (BypassPermissions, BypassPermissions) => BypassPermissions,
        (BypassPermissions, p) => p,
        (AcceptEdits, Default | AcceptEdits | BypassPermissions) => AcceptEdits,
        (AcceptEdits, p) => p,
        (m @ (Default | Plan | DontAsk), _) => m,
    }
}

impl PermissionEngine {
    /// Decides `query` in the session's mode, or as a sub-agent asking for
    /// `requested` (see [`subagent_mode`]; the trace says which mode and why).
    fn decide_with(
        &self,
        query: &PermissionQuery<'_>,
        requested: Option<PermissionMode>,
    ) -> PermissionDecision {
        let st = self.read();
        let mut decider = Decider::new(&st, &st.index, query);
        if let Some(requested) = requested {
            let mode = subagent_mode(requested, st.mode);
            let detail = if mode == requested {
                format!(
                    "the sub-agent's definition asks for {requested:?}; the session is in {:?}, so it decides in {mode:?}",
                    st.mode
                )
            } else {
                format!(
                    "the sub-agent's definition asks for {requested:?}, which is more permissive than the session's {:?} allows; it decides in {mode:?}",
                    st.mode
                )
            };
            decider
                .trace
                .push(step("mode", TraceOutcome::Passthrough, detail));
            // A policy's bypass restriction applies to sub-agents too.
            decider.mode =
                if mode == PermissionMode::BypassPermissions && st.settings.bypass_disabled {
                    PermissionMode::Default
                } else {
                    mode
                };
        }
        let mut decision = decider.run();
        if decision.decision != PermissionBehavior::Allow
            && let Some(with_ignored) = &st.with_ignored_allows
            && let Some(step) = not_applied_step(&st, with_ignored, query)
        {
            // Said before the final "ask", where the user looks for why.
            let at = decision
                .trace
                .iter()
                .rposition(|s| s.layer == "allow_rules")
                .map_or(decision.trace.len(), |i| i + 1);
            decision.trace.insert(at, step);
        }
        decision
    }
}

/// Tools whose path subject is read (`Read(...)` rules) or written.
pub fn is_read_tool(tool: &str) -> bool {
    READ_TOOLS.contains(&tool)
}

/// Tools that write the file they name (`Edit(...)` rules).
pub fn is_edit_tool(tool: &str) -> bool {
    EDIT_TOOLS.contains(&tool)
}
