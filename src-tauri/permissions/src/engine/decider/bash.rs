//! Bash's layers of a decision: the shell analysis of SPEC §5 step 3
//! (each simple command decided on its own), the sandbox, and the safety
//! checks on the paths a command names.

use std::sync::Arc;

use gatehouse_protocol::permission::{
    DecisionReason, PermissionBehavior, PermissionMode, SANDBOX_LAYER, TraceOutcome,
};

use super::{Decider, PieceOutcome};
use crate::engine::{Verdict, is_dangerous_env, rule_reason, source_label, step};
use crate::index::IndexedRule;
use crate::paths::{PathForms, critical_deletion_reason, protected_reason};
use crate::rule::{RuleKind, Specifier};
use crate::sandbox::Placement;
use crate::shell::readonly::{self, Classification};
use crate::shell::{self, ShellAnalysis, SimpleCommand, is_harmless_sink, resolve_word};

impl Decider<'_> {
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

    pub(super) fn decide_bash(&mut self, command: &str) -> Verdict {
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
    pub(super) fn safety_checks(
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
