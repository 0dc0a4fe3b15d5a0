//! One decision: the layers of SPEC §5 in order, each leaving a step in
//! the trace. Bash's own layers (the shell analysis, the sandbox) are in
//! [`bash`].

use std::path::Path;
use std::sync::Arc;

use gatehouse_core::permission::{PermissionQuery, PermissionSubject, ToolPermissionVerdict};
use gatehouse_protocol::permission::{
    DecisionReason, PermissionBehavior, PermissionDecision, PermissionMode, TraceOutcome, TraceStep,
};

use super::{State, Subject, Verdict, rule_reason, source_label, step};
use crate::domain::url_host;
use crate::index::{IndexedRule, RuleIndex};
use crate::paths::{PathForms, is_within, protected_reason};
use crate::rule::{RuleKind, Specifier, ToolMatcher};

mod bash;

/// One query being decided, with the trace it leaves.
pub(super) struct Decider<'a> {
    st: &'a State,
    /// The rules decided with: the state's, or for the "would an ignored
    /// rule have allowed it?" check, those plus the ignored allow rules.
    index: &'a RuleIndex,
    q: &'a PermissionQuery<'a>,
    pub(super) mode: PermissionMode,
    pub(super) trace: Vec<TraceStep>,
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
    pub(super) fn new(st: &'a State, index: &'a RuleIndex, q: &'a PermissionQuery<'a>) -> Self {
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

    pub(super) fn run(mut self) -> PermissionDecision {
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
}
