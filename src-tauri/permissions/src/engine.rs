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
use std::sync::{Arc, RwLock};

use gatehouse_core::permission::{
    PermissionQuery, PermissionResolver, PermissionSubject, ToolPermissionVerdict,
};
use gatehouse_protocol::permission::{
    DecisionReason, NotAppliedRule, NotAppliedWhy, PermissionBehavior, PermissionDecision,
    PermissionMode, RuleSource, SANDBOX_LAYER, TraceOutcome, TraceStep,
};

use crate::domain::url_host;
use crate::index::{IndexedRule, RuleIndex};
use crate::paths::{PathForms, canonical, critical_deletion_reason, is_within, protected_reason};
use crate::rule::{
    EDIT_TOOLS, READ_TOOLS, RuleKind, RuleParseError, Specifier, ToolMatcher, parse_rule,
};
use crate::sandbox::{BashSandboxRules, Placement};
use crate::shell::readonly::{self, Classification};
use crate::shell::{self, ShellAnalysis, SimpleCommand, is_harmless_sink, resolve_word};
use crate::sources::{LoadedSettings, SourcedRule};

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

struct Decider<'a> {
    st: &'a State,
    /// The rules decided with: the state's, or for the "would an ignored
    /// rule have allowed it?" check, those plus the ignored allow rules.
    index: &'a RuleIndex,
    q: &'a PermissionQuery<'a>,
    mode: PermissionMode,
    trace: Vec<TraceStep>,
    /// Set once a sandboxed Bash call passed the deny/ask rules and the
    /// safety checks under `autoAllowBashIfSandboxed`: its asks become
    /// allows.
    sandbox_allows_asks: bool,
}

/// The outcome of checking one piece of a call for the allow phase.
enum PieceOutcome {
    /// Allowed by this rule.
    Rule(Arc<IndexedRule>),
    /// Allowed by the mode.
    Mode,
    /// Not allowed; the reason an ask will carry.
    Ask(DecisionReason),
}

impl<'a> Decider<'a> {
    fn new(st: &'a State, index: &'a RuleIndex, q: &'a PermissionQuery<'a>) -> Self {
        let mut trace = Vec::new();
        let mut mode = st.mode;
        if mode == PermissionMode::BypassPermissions && st.settings.bypass_disabled {
            trace.push(step(
                "mode",
                TraceOutcome::Passthrough,
                "bypassPermissions is disabled by settings; deciding as default",
            ));
            mode = PermissionMode::Default;
        }
        Decider {
            st,
            index,
            q,
            mode,
            trace,
            sandbox_allows_asks: false,
        }
    }

    fn run(mut self) -> PermissionDecision {
        let subject = self.subject();
        let (behavior, reason) = match &subject {
            Subject::Command(c) => self.decide_bash(c),
            _ => self.decide_generic(&subject),
        };
        self.finish(behavior, reason)
    }

    fn subject(&self) -> Subject {
        let subject = match self.q.subject {
            Some(s) => Some(s.clone()),
            None => crate::tools::builtin_subject_facts(self.q.tool_name, self.q.input).subject,
        };
        match subject {
            Some(PermissionSubject::Command(c)) => Subject::Command(c),
            Some(PermissionSubject::ReadPath(path)) => Subject::Path { path, write: false },
            Some(PermissionSubject::WritePath(path)) => Subject::Path { path, write: true },
            Some(PermissionSubject::Url(u)) => Subject::Url(u),
            Some(PermissionSubject::AgentType(t) | PermissionSubject::SkillName(t)) => {
                Subject::Named(t)
            }
            None => Subject::None,
        }
    }

    /// The common tail: user interaction, lost restrictions, dontAsk.
    fn finish(
        mut self,
        mut behavior: PermissionBehavior,
        mut reason: DecisionReason,
    ) -> PermissionDecision {
        if behavior == PermissionBehavior::Allow && self.q.requires_user_interaction {
            self.trace.push(step(
                "user_interaction",
                TraceOutcome::Ask,
                "this tool needs the user's answer and is never auto-approved",
            ));
            behavior = PermissionBehavior::Ask;
            reason = DecisionReason::ToolCheck {
                message: "the tool requires user interaction".into(),
            };
        }
        if behavior == PermissionBehavior::Allow && self.st.settings.restrictions_lost() {
            let errors: Vec<String> = self
                .st
                .settings
                .errors
                .iter()
                .filter(|e| e.loses_restrictions)
                .map(ToString::to_string)
                .collect();
            let message = format!(
                "settings could not be fully read, so deny or ask rules may be missing; nothing runs without asking until fixed: {}",
                errors.join("; ")
            );
            self.trace
                .push(step("settings", TraceOutcome::Ask, message.clone()));
            behavior = PermissionBehavior::Ask;
            reason = DecisionReason::SafetyCheck { message };
        }
        if behavior == PermissionBehavior::Ask && self.mode == PermissionMode::DontAsk {
            self.trace.push(step(
                "mode",
                TraceOutcome::Deny,
                "dontAsk mode turns every ask into a deny",
            ));
            behavior = PermissionBehavior::Deny;
        }
        PermissionDecision {
            decision: behavior,
            reason,
            trace: self.trace,
        }
    }

    fn tool(&self) -> &str {
        self.q.tool_name
    }

    /// Tool names whose rules of `kind` apply to a path call.
    fn path_rule_tools(&self, kind: RuleKind, write: bool) -> Vec<&'a str> {
        let tool = self.q.tool_name;
        let mut names: Vec<&str> = vec![tool];
        if write {
            names.push("Edit");
            if kind != RuleKind::Allow {
                // A Read deny (or ask) also blocks writing the same path.
                names.push("Read");
            }
        } else {
            names.push("Read");
            if kind == RuleKind::Allow {
                // Permission to edit a file includes reading it.
                names.push("Edit");
            }
        }
        names.sort_unstable();
        names.dedup();
        names
    }

    /// The first rule of `kind` matching a path. Deny and ask fire if any
    /// form (link or target) matches; allow needs every form to be matched
    /// (by the same or different rules).
    fn path_rule(
        &self,
        kind: RuleKind,
        forms: &PathForms,
        write: bool,
    ) -> Option<Arc<IndexedRule>> {
        let matching = |form: Option<&Path>| -> Option<Arc<IndexedRule>> {
            for tool in self.path_rule_tools(kind, write) {
                let Some(list) = self.index.list(kind, tool) else {
                    continue;
                };
                let hit = match form {
                    Some(f) => list.first_path_rule(f),
                    None => forms
                        .iter()
                        .filter_map(|f| list.first_path_rule(f))
                        .min_by_key(|r| r.order),
                };
                if let Some(r) = hit {
                    return Some(r.clone());
                }
            }
            None
        };
        if kind == RuleKind::Allow {
            let mut first = None;
            for form in forms.iter() {
                let r = matching(Some(form))?;
                first.get_or_insert(r);
            }
            first
        } else {
            matching(None)
        }
    }

    fn within_working_dirs(&self, forms: &PathForms) -> bool {
        forms
            .iter()
            .all(|f| self.st.working_dirs.iter().any(|d| is_within(f, d)))
    }

    fn generic_rule(&self, kind: RuleKind, subject: &Subject) -> Option<Arc<IndexedRule>> {
        let host = match subject {
            Subject::Url(u) => url_host(u),
            _ => None,
        };
        self.index
            .for_tool(kind, self.tool())
            .find(|r| match &r.rule.rule.specifier {
                Specifier::Any => true,
                Specifier::Domain(d) => host.as_deref().is_some_and(|h| d.matches_host(h)),
                Specifier::AgentType(t) | Specifier::SkillName(t) => {
                    matches!(subject, Subject::Named(a) if a == t)
                }
                // A specifier this tool has no subject for: deny and ask
                // rules fail closed, allow rules never match.
                Specifier::Literal(_) | Specifier::Command(_) | Specifier::Path(_) => {
                    kind != RuleKind::Allow && matches!(subject, Subject::None)
                }
            })
            .cloned()
    }

    fn rules_layer(&mut self, kind: RuleKind, hit: Option<Arc<IndexedRule>>) -> Option<Verdict> {
        let layer = format!("{}_rules", kind.key());
        match hit {
            Some(r) => {
                let outcome = if kind == RuleKind::Deny {
                    TraceOutcome::Deny
                } else {
                    TraceOutcome::Ask
                };
                self.trace.push(step(
                    &layer,
                    outcome,
                    format!("`{}` from {}", r.rule.rule.text, source_label(&r.rule)),
                ));
                let behavior = if kind == RuleKind::Deny {
                    PermissionBehavior::Deny
                } else {
                    PermissionBehavior::Ask
                };
                Some((behavior, rule_reason(&r.rule)))
            }
            None => {
                self.trace
                    .push(step(&layer, TraceOutcome::Passthrough, "no rule matches"));
                None
            }
        }
    }

    /// Step 3 for tools other than Bash: the tool's verdict. Returns a final
    /// verdict for deny, a soft ask reason, or whether the tool allowed.
    fn tool_verdict_layer(&mut self) -> (Option<Verdict>, Option<String>, bool) {
        match self.q.tool_verdict {
            ToolPermissionVerdict::Deny { reason } => {
                self.trace
                    .push(step("tool_check", TraceOutcome::Deny, reason.clone()));
                (
                    Some((
                        PermissionBehavior::Deny,
                        DecisionReason::ToolCheck {
                            message: reason.clone(),
                        },
                    )),
                    None,
                    false,
                )
            }
            ToolPermissionVerdict::Ask { reason } => {
                self.trace
                    .push(step("tool_check", TraceOutcome::Ask, reason.clone()));
                (None, Some(reason.clone()), false)
            }
            ToolPermissionVerdict::Allow { reason } => {
                self.trace
                    .push(step("tool_check", TraceOutcome::Allow, reason.clone()));
                (None, None, true)
            }
            ToolPermissionVerdict::Passthrough => {
                self.trace.push(step(
                    "tool_check",
                    TraceOutcome::Passthrough,
                    "no tool-specific verdict",
                ));
                (None, None, false)
            }
        }
    }

    fn mode_allows(&mut self, why: &str) -> Verdict {
        self.trace.push(step("mode", TraceOutcome::Allow, why));
        (
            PermissionBehavior::Allow,
            DecisionReason::Mode { mode: self.mode },
        )
    }

    /// A destructive MCP tool (a trusted server's `destructiveHint`, or
    /// any tool of an untrusted server, whose hints are not believed) asks
    /// in default, acceptEdits and dontAsk (where the ask is a denial)
    /// unless an allow rule names the tool exactly: a server-wide rule
    /// (`mcp__srv`, `mcp__srv__*`) was not written with this tool in mind.
    /// bypassPermissions is left to the mode, as in Claude Code: there MCP
    /// tools run unless a deny or ask rule or a safety check says otherwise
    /// (issue 16 item 11: otherwise every tool of an untrusted server asked,
    /// and headless bypass could use no MCP tool at all). Plan mode still
    /// refuses it (it is not read-only). Built-in tools that overwrite
    /// (Write, NotebookEdit) are file edits, which the modes and path rules
    /// already govern, so the layer leaves them alone.
    fn destructive_layer(&mut self, subject: &Subject, soft_ask: Option<&str>) -> Option<Verdict> {
        if !self.q.is_destructive || crate::index::mcp_server(self.tool()).is_none() {
            return None;
        }
        if matches!(
            self.mode,
            PermissionMode::Plan | PermissionMode::BypassPermissions
        ) {
            self.trace.push(step(
                "destructive",
                TraceOutcome::Passthrough,
                format!(
                    "{} is destructive; {:?} mode decides it",
                    self.tool(),
                    self.mode
                ),
            ));
            return None;
        }
        let tool = self.tool().to_string();
        let exact = self
            .index
            .for_tool(RuleKind::Allow, &tool)
            .filter(|r| r.rule.rule.tool == ToolMatcher::Exact(tool.clone()))
            .find(|r| self.allow_specifier_matches(r, subject))
            .cloned();
        if let Some(r) = exact.filter(|_| soft_ask.is_none()) {
            self.trace.push(step(
                "destructive",
                TraceOutcome::Allow,
                format!(
                    "{tool} is destructive; the allow rule `{}` from {} names it exactly",
                    r.rule.rule.text,
                    source_label(&r.rule)
                ),
            ));
            return Some((PermissionBehavior::Allow, rule_reason(&r.rule)));
        }
        let message = format!(
            "{tool} is destructive (its server marks it destructiveHint, or the server is not \
             trusted so its hints are not believed): it asks in {:?} mode (and every mode but \
             bypassPermissions and plan) unless an allow rule names `{tool}` exactly",
            self.mode
        );
        self.trace
            .push(step("destructive", TraceOutcome::Ask, message.clone()));
        Some((
            PermissionBehavior::Ask,
            DecisionReason::SafetyCheck { message },
        ))
    }

    /// Whether allow rule `r`'s specifier matches `subject` (as in
    /// [`generic_rule`](Self::generic_rule) for allow rules).
    fn allow_specifier_matches(&self, r: &IndexedRule, subject: &Subject) -> bool {
        match &r.rule.rule.specifier {
            Specifier::Any => true,
            Specifier::Domain(d) => match subject {
                Subject::Url(u) => url_host(u).is_some_and(|h| d.matches_host(&h)),
                _ => false,
            },
            Specifier::AgentType(t) | Specifier::SkillName(t) => {
                matches!(subject, Subject::Named(a) if a == t)
            }
            Specifier::Literal(_) | Specifier::Command(_) | Specifier::Path(_) => false,
        }
    }

    fn decide_generic(&mut self, subject: &Subject) -> Verdict {
        let path_forms = match subject {
            Subject::Path { path, .. } => Some(self.st.forms(path)),
            _ => None,
        };
        let write = matches!(subject, Subject::Path { write: true, .. });
        // 1, 2: deny and ask rules.
        for kind in [RuleKind::Deny, RuleKind::Ask] {
            let hit = match &path_forms {
                Some(forms) => self.path_rule(kind, forms, write),
                None => self.generic_rule(kind, subject),
            };
            if let Some(v) = self.rules_layer(kind, hit) {
                return v;
            }
        }
        // 3: the tool's own check.
        let (final_verdict, soft_ask, tool_allowed) = self.tool_verdict_layer();
        if let Some(v) = final_verdict {
            return v;
        }
        let mut soft_ask = soft_ask;
        if let Subject::Url(u) = subject
            && url_host(u).is_none()
        {
            soft_ask = Some(format!("`{u}` is not an http(s) URL with a host"));
        }
        // 4: safety checks.
        let protected = path_forms
            .as_ref()
            .filter(|_| write)
            .and_then(|forms| forms.iter().find_map(protected_reason));
        if let Some(decision) = self.safety_checks(protected) {
            return decision;
        }
        if let Some(decision) = self.destructive_layer(subject, soft_ask.as_deref()) {
            return decision;
        }
        // 5: the mode.
        let inside = path_forms
            .as_ref()
            .is_none_or(|f| self.within_working_dirs(f));
        let read_only = self.q.is_read_only && !write;
        match self.mode {
            PermissionMode::BypassPermissions => {
                return self.mode_allows(
                    "bypassPermissions allows everything not denied, asked or protected",
                );
            }
            PermissionMode::Plan if !read_only => {
                self.trace.push(step(
                    "mode",
                    TraceOutcome::Deny,
                    "plan mode runs read-only tools only until the plan is approved",
                ));
                return (
                    PermissionBehavior::Deny,
                    DecisionReason::Mode { mode: self.mode },
                );
            }
            PermissionMode::AcceptEdits if write && inside && soft_ask.is_none() => {
                return self
                    .mode_allows("acceptEdits allows file edits inside the working directories");
            }
            _ => {}
        }
        let open_world = matches!(subject, Subject::Url(_)) || self.tool() == "WebSearch";
        if read_only && inside && !open_world && soft_ask.is_none() {
            return self.mode_allows("reads inside the working directories run without asking");
        }
        self.trace.push(step(
            "mode",
            TraceOutcome::Passthrough,
            format!("{:?} mode does not decide this call", self.mode),
        ));
        // 6: allow rules.
        let hit = match &path_forms {
            Some(forms) => self.path_rule(RuleKind::Allow, forms, write),
            None => self.generic_rule(RuleKind::Allow, subject),
        };
        if let Some(r) = hit.filter(|_| soft_ask.is_none()) {
            self.trace.push(step(
                "allow_rules",
                TraceOutcome::Allow,
                format!("`{}` from {}", r.rule.rule.text, source_label(&r.rule)),
            ));
            return (PermissionBehavior::Allow, rule_reason(&r.rule));
        }
        self.trace.push(step(
            "allow_rules",
            TraceOutcome::Passthrough,
            "no allow rule matches",
        ));
        if tool_allowed && soft_ask.is_none() {
            return (
                PermissionBehavior::Allow,
                DecisionReason::ToolCheck {
                    message: "the tool's own check allowed the call".into(),
                },
            );
        }
        // 7: otherwise ask.
        if let Some(message) = soft_ask {
            self.trace
                .push(step("default", TraceOutcome::Ask, message.clone()));
            return (
                PermissionBehavior::Ask,
                DecisionReason::ToolCheck { message },
            );
        }
        if let (Some(forms), false) = (&path_forms, inside) {
            let path = forms.canonical.display().to_string();
            self.trace.push(step(
                "default",
                TraceOutcome::Ask,
                format!("`{path}` is outside the working directories"),
            ));
            return (
                PermissionBehavior::Ask,
                DecisionReason::WorkingDirectory { path },
            );
        }
        self.trace.push(step(
            "default",
            TraceOutcome::Ask,
            "nothing allowed the call",
        ));
        (
            PermissionBehavior::Ask,
            DecisionReason::Default {
                message: format!("no rule or mode allows {}", self.tool()),
            },
        )
    }

    // ----- Bash -------------------------------------------------------

    fn bash_rule(&self, kind: RuleKind, text: &str) -> Option<Arc<IndexedRule>> {
        let first = text.split(' ').next().unwrap_or("");
        self.index
            .for_command(kind, self.tool(), first)
            .find(|r| match &r.rule.rule.specifier {
                Specifier::Any => true,
                Specifier::Command(p) => p.matches(text),
                _ => kind != RuleKind::Allow,
            })
            .cloned()
    }

    /// Paths a sub-command reads or writes through its arguments, with
    /// whether each is a write; `None` entries are paths not known before
    /// running.
    fn argument_paths(&self, c: &SimpleCommand) -> Vec<(Option<PathForms>, String, bool)> {
        let core = c.core_words();
        let class = readonly::classify(core);
        let write = class == Classification::FileWrite;
        readonly::path_arguments(core)
            .into_iter()
            .map(|w| (self.word_forms(&w, c), w.text.clone(), write))
            .collect()
    }

    fn word_forms(&self, w: &shell::words::WordInfo, c: &SimpleCommand) -> Option<PathForms> {
        if !w.literal {
            return None;
        }
        let text = if w.has_glob {
            // The directory before the first component with a glob.
            let cut = w.text.find(['*', '?', '[', '{']).unwrap_or(w.text.len());
            let dir = &w.text[..cut];
            let dir = &dir[..dir.rfind('/').map_or(0, |i| i + 1)];
            let glob_part = &w.text[dir.len()..];
            if glob_part.starts_with(['.', '[', '{']) {
                return None; // may match `..`
            }
            if dir.is_empty() {
                ".".to_string()
            } else {
                dir.to_string()
            }
        } else {
            w.text.clone()
        };
        let word = shell::words::WordInfo { text, ..w.clone() };
        let path = resolve_word(&word, c.cwd.as_deref(), &self.st.home)?;
        Some(self.st.forms(&path))
    }

    fn decide_bash(&mut self, command: &str) -> Verdict {
        let analysis = shell::analyse(command, &self.st.cwd, &self.st.home);
        let whole = shell::pattern::normalise_spaces(command.trim());
        // File accesses: redirections and the path arguments of read-only
        // and file commands.
        let mut accesses: Vec<(Option<PathForms>, String, bool)> = analysis
            .accesses
            .iter()
            .map(|a| {
                (
                    a.path.as_ref().map(|p| self.st.forms(p)),
                    a.raw.clone(),
                    a.write,
                )
            })
            .collect();
        for c in &analysis.commands {
            let class = readonly::classify(c.core_words());
            if matches!(
                class,
                Classification::ReadOnly
                    | Classification::FileWrite
                    | Classification::ChangesDirectory
            ) {
                accesses.extend(self.argument_paths(c));
            }
        }
        // 1, 2: deny and ask rules, on every spelling of every sub-command
        // (also those hidden in substitutions) and on every known path.
        for kind in [RuleKind::Deny, RuleKind::Ask] {
            let mut hit = None;
            'search: for c in &analysis.commands {
                for text in c.rule_texts() {
                    if let Some(r) = self.bash_rule(kind, &text) {
                        hit = Some(r);
                        break 'search;
                    }
                }
            }
            if hit.is_none() {
                hit = self.bash_rule(kind, &whole);
            }
            if hit.is_none() {
                hit = accesses.iter().find_map(|(forms, _, write)| {
                    forms.as_ref().and_then(|f| self.path_rule(kind, f, *write))
                });
            }
            if let Some(v) = self.rules_layer(kind, hit) {
                return v;
            }
        }
        // The sandbox (issue 24): where the command runs.
        let auto_allow = match self.sandbox_layer(command) {
            Ok(auto_allow) => auto_allow,
            Err(v) => return v,
        };
        // 3: the tool's own check: the analysis and the tool's verdict.
        let (final_verdict, tool_soft, _) = self.tool_verdict_layer();
        if let Some(v) = final_verdict {
            return v;
        }
        let mut soft: Vec<String> = analysis.fail_closed.clone();
        soft.extend(tool_soft);
        for (forms, raw, write) in &accesses {
            if forms.is_none() && *write {
                soft.push(format!("cannot tell which file `{raw}` is before running"));
            }
        }
        if !analysis.opaque.is_empty() {
            // Some commands may be unseen: deny rules could not be checked,
            // so neither bypass mode nor any allow rule may run it.
            let message = analysis.opaque.join("; ");
            self.trace
                .push(step("shell_analysis", TraceOutcome::Ask, message.clone()));
            return (
                PermissionBehavior::Ask,
                DecisionReason::ToolCheck { message },
            );
        }
        if soft.is_empty() {
            self.trace.push(step(
                "shell_analysis",
                TraceOutcome::Passthrough,
                format!(
                    "{} sub-command(s): {}",
                    analysis.commands.len(),
                    list_commands(&analysis)
                ),
            ));
        } else {
            self.trace
                .push(step("shell_analysis", TraceOutcome::Ask, soft.join("; ")));
        }
        // 4: safety checks.
        let protected = self.bash_safety(&analysis, &accesses);
        if let Some(decision) = self.safety_checks(protected) {
            return decision;
        }
        self.sandbox_allows_asks = auto_allow;
        // 5: the mode.
        if self.mode == PermissionMode::BypassPermissions {
            return self
                .mode_allows("bypassPermissions allows everything not denied, asked or protected");
        }
        let writes_nothing = accesses
            .iter()
            .all(|(f, _, w)| !*w || f.as_ref().is_some_and(|f| is_harmless_sink(&f.lexical)));
        let all_read_only = analysis.commands.iter().all(|c| {
            matches!(
                readonly::classify(c.core_words()),
                Classification::ReadOnly | Classification::ChangesDirectory
            )
        });
        if self.mode == PermissionMode::Plan
            && !(all_read_only && writes_nothing && soft.is_empty())
        {
            self.trace.push(step(
                "mode",
                TraceOutcome::Deny,
                "plan mode runs read-only commands only until the plan is approved",
            ));
            return (
                PermissionBehavior::Deny,
                DecisionReason::Mode { mode: self.mode },
            );
        }
        // Commands the analysis cannot see through: only a rule naming the
        // whole tool, or the user, may allow them.
        if !soft.is_empty() {
            if let Some(reason) = analysis
                .commands
                .iter()
                .find_map(|c| match self.bash_piece(c) {
                    PieceOutcome::Ask(r @ DecisionReason::ToolCheck { .. })
                        if c.assignments.iter().any(|a| is_dangerous_env(&a.name)) =>
                    {
                        Some(r)
                    }
                    _ => None,
                })
            {
                return self.bash_ask(reason);
            }
            let blanket = self
                .index
                .for_tool(RuleKind::Allow, self.tool())
                .find(|r| r.rule.rule.specifier == Specifier::Any)
                .cloned();
            if let Some(r) = blanket {
                self.trace.push(step(
                    "allow_rules",
                    TraceOutcome::Allow,
                    format!("`{}` allows every command", r.rule.rule.text),
                ));
                return (PermissionBehavior::Allow, rule_reason(&r.rule));
            }
            let message = soft.join("; ");
            return self.bash_ask(DecisionReason::ToolCheck { message });
        }
        // 5, 6: every sub-command and every file access must be allowed, by
        // the mode (reads inside the working directories, acceptEdits file
        // commands) or by an allow rule.
        self.trace.push(step(
            "mode",
            TraceOutcome::Passthrough,
            format!(
                "{:?} mode: read-only commands inside the working directories run{}; everything else needs an allow rule",
                self.mode,
                if self.mode == PermissionMode::AcceptEdits {
                    ", and so do file commands and redirections there"
                } else {
                    ""
                }
            ),
        ));
        let mut first_rule: Option<Arc<IndexedRule>> = None;
        let mut by_mode = Vec::new();
        for c in &analysis.commands {
            match self.bash_piece(c) {
                PieceOutcome::Rule(r) => {
                    first_rule.get_or_insert(r);
                }
                PieceOutcome::Mode => by_mode.push(c.core_text()),
                PieceOutcome::Ask(reason) => return self.bash_ask(reason),
            }
        }
        for (forms, raw, write) in analysis.accesses.iter().map(|a| {
            (
                a.path.as_ref().map(|p| self.st.forms(p)),
                a.raw.clone(),
                a.write,
            )
        }) {
            let Some(forms) = forms else {
                return self.bash_ask(DecisionReason::ToolCheck {
                    message: format!("cannot tell which file `{raw}` is before running"),
                });
            };
            if write && is_harmless_sink(&forms.lexical) {
                continue;
            }
            let inside = self.within_working_dirs(&forms);
            let mode_ok = if write {
                inside && self.mode == PermissionMode::AcceptEdits
            } else {
                inside
            };
            if mode_ok {
                by_mode.push(format!("{} {raw}", if write { ">" } else { "<" }));
                continue;
            }
            match self.path_rule(RuleKind::Allow, &forms, write) {
                Some(r) => {
                    first_rule.get_or_insert(r);
                }
                None if !inside => {
                    return self.bash_ask(DecisionReason::WorkingDirectory {
                        path: forms.canonical.display().to_string(),
                    });
                }
                None => {
                    return self.bash_ask(DecisionReason::Default {
                        message: format!("writing `{raw}` needs permission"),
                    });
                }
            }
        }
        match first_rule {
            Some(r) => {
                self.trace.push(step(
                    "allow_rules",
                    TraceOutcome::Allow,
                    format!(
                        "`{}` from {}{}",
                        r.rule.rule.text,
                        source_label(&r.rule),
                        if by_mode.is_empty() {
                            String::new()
                        } else {
                            format!("; read-only or mode-allowed: {}", by_mode.join(", "))
                        }
                    ),
                ));
                (PermissionBehavior::Allow, rule_reason(&r.rule))
            }
            None => self.mode_allows(&format!(
                "read-only inside the working directories: {}",
                by_mode.join(", ")
            )),
        }
    }

    /// The `sandbox` step of a Bash call: `Err` with the final verdict for
    /// `dangerouslyDisableSandbox` (it always asks), else whether
    /// `autoAllowBashIfSandboxed` applies to it.
    fn sandbox_layer(&mut self, command: &str) -> Result<bool, Verdict> {
        let Some(rules) = self.st.bash_sandbox.clone() else {
            return Ok(false);
        };
        match rules.placement(command, self.q.input) {
            Placement::DisabledByCall => {
                let message =
                    "the call asks to run outside the sandbox (dangerouslyDisableSandbox), which always asks"
                        .to_owned();
                self.trace
                    .push(step(SANDBOX_LAYER, TraceOutcome::Ask, message.clone()));
                Err((
                    PermissionBehavior::Ask,
                    DecisionReason::ToolCheck { message },
                ))
            }
            Placement::Excluded => {
                self.trace.push(step(
                    SANDBOX_LAYER,
                    TraceOutcome::Passthrough,
                    "one of sandbox.excludedCommands: runs outside the sandbox, decided as usual",
                ));
                Ok(false)
            }
            Placement::Sandboxed => {
                self.trace.push(step(
                    SANDBOX_LAYER,
                    TraceOutcome::Passthrough,
                    if rules.auto_allow {
                        "runs in the sandbox; autoAllowBashIfSandboxed: it runs without asking unless a rule or safety check asks"
                    } else {
                        "runs in the sandbox"
                    },
                ));
                Ok(rules.auto_allow)
            }
        }
    }

    fn bash_ask(&mut self, reason: DecisionReason) -> Verdict {
        if self.sandbox_allows_asks {
            let message =
                "runs in the sandbox and would only have asked (autoAllowBashIfSandboxed)";
            self.trace
                .push(step(SANDBOX_LAYER, TraceOutcome::Allow, message));
            return (
                PermissionBehavior::Allow,
                DecisionReason::ToolCheck {
                    message: message.into(),
                },
            );
        }
        let detail = match &reason {
            DecisionReason::WorkingDirectory { path } => {
                format!("`{path}` is outside the working directories")
            }
            DecisionReason::ToolCheck { message } | DecisionReason::Default { message } => {
                message.clone()
            }
            other => format!("{other:?}"),
        };
        self.trace.push(step(
            "allow_rules",
            TraceOutcome::Passthrough,
            detail.clone(),
        ));
        self.trace.push(step("default", TraceOutcome::Ask, detail));
        (PermissionBehavior::Ask, reason)
    }

    /// Is one sub-command allowed, and by what?
    fn bash_piece(&self, c: &SimpleCommand) -> PieceOutcome {
        if let Some(a) = c.assignments.iter().find(|a| is_dangerous_env(&a.name)) {
            return PieceOutcome::Ask(DecisionReason::ToolCheck {
                message: format!(
                    "`{}` sets `{}`, which changes what the command runs; no allow rule covers it",
                    c.display(),
                    a.name
                ),
            });
        }
        let text = c.core_text();
        if text.is_empty() {
            return PieceOutcome::Mode; // assignments only
        }
        // A rule copied from the command line keeps its quotes
        // (`Bash(python3 -c 'print(1)')`): it matches the command as written
        // as well as its unquoted words.
        let raw = c.core_raw_text();
        if let Some(r) = self.bash_rule(RuleKind::Allow, &text).or_else(|| {
            if raw == text {
                None
            } else {
                self.bash_rule(RuleKind::Allow, &raw)
            }
        }) {
            return PieceOutcome::Rule(r);
        }
        if c.via_xargs() {
            return PieceOutcome::Ask(DecisionReason::ToolCheck {
                message: format!("`xargs {text}` runs with arguments read from input"),
            });
        }
        let class = readonly::classify(c.core_words());
        let mode_class = match class {
            Classification::ReadOnly | Classification::ChangesDirectory => true,
            Classification::FileWrite => self.mode == PermissionMode::AcceptEdits,
            Classification::Other => false,
        };
        if !mode_class {
            return PieceOutcome::Ask(DecisionReason::Default {
                message: format!("no allow rule matches `{text}`"),
            });
        }
        if class == Classification::ChangesDirectory {
            let name = c.name().unwrap_or_default();
            if c.core_words()[1..].iter().any(|w| w.text == "-") {
                return PieceOutcome::Ask(DecisionReason::ToolCheck {
                    message: "`cd -` goes to the previous directory, which is not known here"
                        .into(),
                });
            }
            let has_target = c.core_words()[1..].iter().any(|w| !w.text.starts_with('-'));
            if name == "popd" || !has_target {
                // `cd` alone goes home; `popd` goes wherever the stack says.
                return PieceOutcome::Ask(DecisionReason::WorkingDirectory {
                    path: if name == "popd" {
                        "the directory stack".into()
                    } else {
                        self.st.home.display().to_string()
                    },
                });
            }
        }
        for (forms, raw, _) in self.argument_paths(c) {
            match forms {
                None => {
                    return PieceOutcome::Ask(DecisionReason::ToolCheck {
                        message: format!("cannot tell which path `{raw}` is before running"),
                    });
                }
                Some(f) if !self.within_working_dirs(&f) => {
                    return PieceOutcome::Ask(DecisionReason::WorkingDirectory {
                        path: f.canonical.display().to_string(),
                    });
                }
                Some(_) => {}
            }
        }
        PieceOutcome::Mode
    }

    /// Layer 4 of the trace: a protected path or critical deletion found
    /// (`protected`) asks in every mode; otherwise the layer passes.
    fn safety_checks(
        &mut self,
        protected: Option<String>,
    ) -> Option<(PermissionBehavior, DecisionReason)> {
        let Some(message) = protected else {
            self.trace.push(step(
                "safety_checks",
                TraceOutcome::Passthrough,
                "nothing protected touched",
            ));
            return None;
        };
        self.trace
            .push(step("safety_checks", TraceOutcome::Ask, message.clone()));
        Some((
            PermissionBehavior::Ask,
            DecisionReason::SafetyCheck { message },
        ))
    }

    /// Protected writes and critical deletions, which ask in every mode.
    fn bash_safety(
        &self,
        analysis: &ShellAnalysis,
        accesses: &[(Option<PathForms>, String, bool)],
    ) -> Option<String> {
        for (forms, _, write) in accesses {
            if let (Some(f), true) = (forms, *write)
                && !is_harmless_sink(&f.lexical)
                && let Some(m) = f.iter().find_map(protected_reason)
            {
                return Some(m);
            }
        }
        for c in &analysis.commands {
            let core = c.core_words();
            let Some(name) = c.name() else { continue };
            let name = name.rsplit('/').next().unwrap_or(name);
            let class = readonly::classify(core);
            // Any path-looking argument of a command that may write.
            if class == Classification::Other {
                for w in core.iter().skip(1) {
                    let t = w.text.as_str();
                    let looks_like_path =
                        t.contains('/') || t.starts_with('.') || t.starts_with('~');
                    if w.literal
                        && looks_like_path
                        && !t.starts_with('-')
                        && let Some(f) = self.word_forms(w, c)
                        && let Some(m) = f.iter().find_map(protected_reason)
                    {
                        return Some(m);
                    }
                }
            }
            let deletes = matches!(name, "rm" | "rmdir" | "unlink" | "shred")
                || (name == "find" && core.iter().any(|w| w.text == "-delete"));
            if deletes {
                for w in core.iter().skip(1) {
                    if w.text.starts_with('-') && w.text != "-" {
                        continue;
                    }
                    let Some(forms) = self.word_forms(w, c) else {
                        if name != "find" {
                            return Some(format!("cannot tell what `{}` deletes", w.text));
                        }
                        continue;
                    };
                    if let Some(m) = forms
                        .iter()
                        .find_map(|p| critical_deletion_reason(p, &self.st.cwd, &self.st.home))
                    {
                        return Some(m);
                    }
                    if w.has_glob {
                        // `rm -rf dir/*` empties `dir`: as critical as `rm -rf dir`.
                        if let Some(m) = forms.iter().find_map(|p| {
                            if p == self.st.cwd
                                || p.parent().is_none()
                                || p == self.st.home
                                || self.st.cwd.starts_with(p)
                            {
                                Some(format!(
                                    "deleting everything in `{}` is critical",
                                    p.display()
                                ))
                            } else {
                                None
                            }
                        }) {
                            return Some(m);
                        }
                    }
                }
            }
            if class == Classification::FileWrite || name == "tee" {
                // Covered above for FileWrite via accesses; `tee` writes its args.
                for w in core.iter().skip(1).filter(|w| !w.text.starts_with('-')) {
                    if let Some(f) = self.word_forms(w, c)
                        && let Some(m) = f.iter().find_map(protected_reason)
                    {
                        return Some(m);
                    }
                }
            }
        }
        None
    }
}

fn list_commands(analysis: &ShellAnalysis) -> String {
    let texts: Vec<String> = analysis
        .commands
        .iter()
        .take(20)
        .map(|c| format!("`{}`", shell::words::short(&c.display())))
        .collect();
    let more = analysis.commands.len().saturating_sub(20);
    if more > 0 {
        format!("{} and {more} more", texts.join(", "))
    } else {
        texts.join(", ")
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
