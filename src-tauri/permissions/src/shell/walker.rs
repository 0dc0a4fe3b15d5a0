//! The walk over a parsed command line that collects its simple commands,
//! their directories and file accesses, and every reason to fail closed.

use std::path::{Path, PathBuf};

use brush_parser::ParserOptions;
use brush_parser::ast::{
    self, Command, CommandPrefixOrSuffixItem, CompoundCommand, CompoundList, IoFileRedirectKind,
    IoFileRedirectTarget, IoRedirect,
};

use super::hazards::parser_hazard;
use super::parse::guarded;
use super::parse::{ParseOutcome, Wait, parse_with_deadline};
use super::words::{WordInfo, classify, short};
use super::{
    Assignment, FileAccess, MAX_COMMAND_LEN, MAX_DEPTH, MAX_SUBCOMMANDS, PARSE_DEADLINE,
    ShellAnalysis, SimpleCommand, launched_commands, resolve_word, words, wrappers,
};

/// Analyses `command` run in `cwd` (see [`super::analyse`]).
pub(super) fn analyse_with(command: &str, cwd: &Path, home: &Path, wait: Wait) -> ShellAnalysis {
    let mut walker = Walker {
        options: ParserOptions::default(),
        home: home.to_path_buf(),
        wait,
        out: ShellAnalysis::default(),
    };
    if command.len() > MAX_COMMAND_LEN {
        walker.opaque(format!(
            "the command is {} bytes long, over the {MAX_COMMAND_LEN}-byte analysis limit",
            command.len()
        ));
        return walker.out;
    }
    let mut cwd = Some(cwd.to_path_buf());
    walker.program(command, &mut cwd, 0, false);
    if walker.out.commands.len() > MAX_SUBCOMMANDS {
        walker.out.fail_closed.push(format!(
            "{} sub-commands, over the {MAX_SUBCOMMANDS} limit",
            walker.out.commands.len()
        ));
    }
    walker.out
}

struct Walker {
    options: ParserOptions,
    home: PathBuf,
    wait: Wait,
    out: ShellAnalysis,
}

impl Walker {
    fn fail(&mut self, reason: String) {
        if !self.out.fail_closed.contains(&reason) {
            self.out.fail_closed.push(reason);
        }
    }

    /// Fails closed because some commands may be unseen.
    fn opaque(&mut self, reason: String) {
        if !self.out.opaque.contains(&reason) {
            self.out.opaque.push(reason.clone());
        }
        self.fail(reason);
    }

    fn program(&mut self, text: &str, cwd: &mut Option<PathBuf>, depth: usize, hidden: bool) {
        if depth > MAX_DEPTH {
            self.opaque("substitutions nested too deeply to analyse".into());
            return;
        }
        if let Some(hazard) = parser_hazard(text) {
            self.opaque(hazard.into());
            return;
        }
        let options = &self.options;
        let parsed = parse_with_deadline(text, options, self.wait);
        match parsed {
            ParseOutcome::TimedOut => self.opaque(format!(
                "the shell parser took over {} ms on this command",
                PARSE_DEADLINE.as_millis()
            )),
            ParseOutcome::Busy => self.opaque(
                "another command line with groupings or here-documents is still being parsed \
                 past its deadline (one such parse at a time, so runaways cannot multiply); \
                 this one was not parsed"
                    .into(),
            ),
            ParseOutcome::NotWaited => {
                self.opaque("groupings or here-documents are not parsed for this check".into());
            }
            ParseOutcome::Panicked => self.opaque("the shell parser failed on this command".into()),
            ParseOutcome::Done(parsed) => match parsed {
                Ok(program) => {
                    for list in &program.complete_commands {
                        self.list(list, cwd, depth, hidden);
                    }
                }
                Err(e) => self.opaque(format!("cannot parse the command: {e}")),
            },
        }
    }

    fn list(&mut self, list: &CompoundList, cwd: &mut Option<PathBuf>, depth: usize, hidden: bool) {
        for item in &list.0 {
            let and_or = &item.0;
            self.pipeline(&and_or.first, cwd, depth, hidden);
            for next in &and_or.additional {
                let (ast::AndOr::And(p) | ast::AndOr::Or(p)) = next;
                self.pipeline(p, cwd, depth, hidden);
            }
        }
    }

    fn pipeline(
        &mut self,
        p: &ast::Pipeline,
        cwd: &mut Option<PathBuf>,
        depth: usize,
        hidden: bool,
    ) {
        if p.seq.len() == 1 {
            if let Some(c) = p.seq.first() {
                self.command(c, cwd, depth, hidden);
            }
        } else {
            // Each side of a pipe runs in its own subshell.
            for c in &p.seq {
                let mut own = cwd.clone();
                self.command(c, &mut own, depth, hidden);
            }
        }
    }

    fn scoped(
        &mut self,
        list: &CompoundList,
        cwd: &mut Option<PathBuf>,
        depth: usize,
        hidden: bool,
    ) {
        let mut own = cwd.clone();
        self.list(list, &mut own, depth, hidden);
        if own != *cwd {
            *cwd = None;
        }
    }

    fn backstop(&mut self, what: &str, text: &str) {
        if text.contains("$(") || text.contains('`') || text.contains("<(") || text.contains(">(") {
            self.opaque(format!("{what} contains a substitution: `{}`", short(text)));
        }
        if text.contains("IFS") {
            self.fail("uses `$IFS`".into());
        }
    }

    fn command(&mut self, c: &Command, cwd: &mut Option<PathBuf>, depth: usize, hidden: bool) {
        match c {
            Command::Simple(simple) => self.simple(simple, cwd, depth, hidden),
            Command::Compound(compound, redirects) => {
                self.compound(compound, cwd, depth, hidden);
                if let Some(list) = redirects {
                    for r in &list.0 {
                        self.redirect(r, cwd, depth);
                    }
                }
            }
            Command::Function(f) => {
                self.fail(format!("defines a shell function `{}`", f.fname.value));
                let mut own = cwd.clone();
                self.compound(&f.body.0, &mut own, depth, true);
            }
            Command::ExtendedTest(test, redirects) => {
                let text = test.to_string();
                self.backstop("a `[[ … ]]` test", &text);
                if ["-eq", "-ne", "-lt", "-le", "-gt", "-ge"]
                    .iter()
                    .any(|op| text.contains(op))
                {
                    self.fail(
                        "`[[ … ]]` compares numbers: its operands are evaluated as arithmetic, which may run commands".into(),
                    );
                }
                if let Some(list) = redirects {
                    for r in &list.0 {
                        self.redirect(r, cwd, depth);
                    }
                }
            }
        }
    }

    fn compound(
        &mut self,
        c: &CompoundCommand,
        cwd: &mut Option<PathBuf>,
        depth: usize,
        hidden: bool,
    ) {
        match c {
            CompoundCommand::BraceGroup(g) => self.list(&g.list, cwd, depth, hidden),
            CompoundCommand::Subshell(s) => {
                let mut own = cwd.clone();
                self.list(&s.list, &mut own, depth, hidden);
            }
            CompoundCommand::ForClause(f) => {
                for w in f.values.iter().flatten() {
                    self.word(&w.value, cwd, depth);
                }
                self.scoped(&f.body.list, cwd, depth, hidden);
            }
            CompoundCommand::WhileClause(w) | CompoundCommand::UntilClause(w) => {
                self.scoped(&w.0, cwd, depth, hidden);
                self.scoped(&w.1.list, cwd, depth, hidden);
            }
            CompoundCommand::IfClause(i) => {
                self.list(&i.condition, cwd, depth, hidden);
                self.scoped(&i.then, cwd, depth, hidden);
                for e in i.elses.iter().flatten() {
                    if let Some(cond) = &e.condition {
                        self.scoped(cond, cwd, depth, hidden);
                    }
                    self.scoped(&e.body, cwd, depth, hidden);
                }
            }
            CompoundCommand::CaseClause(case) => {
                self.word(&case.value.value, cwd, depth);
                for item in &case.cases {
                    for p in &item.patterns {
                        self.word(&p.value, cwd, depth);
                    }
                    if let Some(list) = &item.cmd {
                        self.scoped(list, cwd, depth, hidden);
                    }
                }
            }
            CompoundCommand::Arithmetic(a) => {
                let expr = &a.expr.value;
                // Only plain numbers and operators are analysed. Anything else
                // either evaluates variables (whose values may run commands) or
                // is not arithmetic, and bash then re-reads `((…))` as nested
                // subshells and runs it. (brush's arithmetic parser is not
                // called: it backtracks exponentially on some inputs.)
                let numeric = expr
                    .chars()
                    .all(|c| c.is_ascii_digit() || " \t+-*/%<>=!&|^~?:()".contains(c));
                if !numeric {
                    self.opaque(format!(
                        "`(({}))` is not plain arithmetic: bash may evaluate variables or run it as commands",
                        short(expr)
                    ));
                }
                self.backstop("an arithmetic command", expr);
            }
            CompoundCommand::ArithmeticForClause(f) => {
                self.backstop("an arithmetic `for`", &c.to_string());
                self.scoped(&f.body.list, cwd, depth, hidden);
            }
            CompoundCommand::Coprocess(_) => {
                self.opaque("starts a coprocess".into());
            }
        }
    }

    /// Classifies a word and follows its substitutions.
    fn word(&mut self, raw: &str, cwd: &Option<PathBuf>, depth: usize) -> WordInfo {
        let info = classify(raw, &self.options);
        for reason in &info.fail_reasons {
            if info.opaque {
                self.opaque(reason.clone());
            } else {
                self.fail(reason.clone());
            }
        }
        for sub in &info.substitutions {
            let mut own = cwd.clone();
            self.program(sub, &mut own, depth + 1, true);
        }
        info
    }

    fn resolve(&self, word: &WordInfo, cwd: &Option<PathBuf>) -> Option<PathBuf> {
        resolve_word(word, cwd.as_deref(), &self.home)
    }

    fn redirect(&mut self, r: &IoRedirect, cwd: &Option<PathBuf>, depth: usize) {
        match r {
            IoRedirect::File(_, kind, target) => {
                let write = match kind {
                    IoFileRedirectKind::Read | IoFileRedirectKind::DuplicateInput => false,
                    IoFileRedirectKind::Write
                    | IoFileRedirectKind::Append
                    | IoFileRedirectKind::ReadAndWrite
                    | IoFileRedirectKind::Clobber
                    | IoFileRedirectKind::DuplicateOutput => true,
                };
                match target {
                    IoFileRedirectTarget::Filename(w) => self.access(&w.value, write, cwd, depth),
                    IoFileRedirectTarget::Duplicate(w) => {
                        let v = w.value.trim_end_matches('-');
                        if !(v.is_empty() || v.chars().all(|c| c.is_ascii_digit())) {
                            self.access(&w.value, write, cwd, depth);
                        }
                    }
                    IoFileRedirectTarget::Fd(_) => {}
                    IoFileRedirectTarget::ProcessSubstitution(_, sub) => {
                        self.fail("process substitution runs a hidden command".into());
                        let mut own = cwd.clone();
                        self.list(&sub.list, &mut own, depth + 1, true);
                    }
                }
            }
            IoRedirect::HereDocument(_, doc) => {
                if doc.requires_expansion {
                    let options = &self.options;
                    match guarded(|| brush_parser::word::parse_heredoc(&doc.doc.value, options)) {
                        None => self.opaque("the shell parser failed on a here-document".into()),
                        Some(Ok(pieces)) => {
                            let mut info = WordInfo::default();
                            words::walk_pieces(&doc.doc.value, &pieces, &mut info);
                            for reason in &info.fail_reasons {
                                self.fail(format!("here-document: {reason}"));
                            }
                            for sub in &info.substitutions {
                                let mut own = cwd.clone();
                                self.program(sub, &mut own, depth + 1, true);
                            }
                        }
                        Some(Err(e)) => self.opaque(format!("cannot parse here-document: {e}")),
                    }
                }
            }
            IoRedirect::HereString(_, w) => {
                self.word(&w.value, cwd, depth);
            }
            IoRedirect::OutputAndError(w, _) => self.access(&w.value, true, cwd, depth),
        }
    }

    fn access(&mut self, raw: &str, write: bool, cwd: &Option<PathBuf>, depth: usize) {
        let info = self.word(raw, cwd, depth);
        let path = if info.literal && !info.has_glob {
            self.resolve(&info, cwd)
        } else {
            None
        };
        self.out.accesses.push(FileAccess {
            raw: info.text,
            path,
            write,
        });
    }

    fn simple(
        &mut self,
        sc: &ast::SimpleCommand,
        cwd: &mut Option<PathBuf>,
        depth: usize,
        hidden: bool,
    ) {
        let mut assignments = Vec::new();
        let mut raw_words: Vec<&str> = Vec::new();
        let mut redirects: Vec<&IoRedirect> = Vec::new();
        let items = sc
            .prefix
            .iter()
            .flat_map(|p| p.0.iter())
            .map(Some)
            .chain(std::iter::once(None))
            .chain(sc.suffix.iter().flat_map(|s| s.0.iter()).map(Some));
        for item in items {
            match item {
                None => {
                    if let Some(w) = &sc.word_or_name {
                        raw_words.push(&w.value);
                    }
                }
                Some(CommandPrefixOrSuffixItem::Word(w)) => raw_words.push(&w.value),
                Some(CommandPrefixOrSuffixItem::IoRedirect(r)) => redirects.push(r),
                Some(CommandPrefixOrSuffixItem::AssignmentWord(a, w)) => {
                    if raw_words.is_empty() {
                        let name = match &a.name {
                            ast::AssignmentName::VariableName(n) => n.clone(),
                            ast::AssignmentName::ArrayElementName(n, _) => n.clone(),
                        };
                        let value = match &a.value {
                            ast::AssignmentValue::Scalar(v) => self.word(&v.value, cwd, depth),
                            ast::AssignmentValue::Array(_) => {
                                self.backstop("an array assignment", &w.value);
                                WordInfo {
                                    text: w.value.clone(),
                                    raw: w.value.clone(),
                                    ..WordInfo::default()
                                }
                            }
                        };
                        assignments.push(Assignment { name, value });
                    } else {
                        // `cmd a=b`: an ordinary argument.
                        raw_words.push(&w.value);
                    }
                }
                Some(CommandPrefixOrSuffixItem::ProcessSubstitution(_, sub)) => {
                    self.fail("process substitution runs a hidden command".into());
                    let mut own = cwd.clone();
                    self.list(&sub.list, &mut own, depth + 1, true);
                }
            }
        }
        let words: Vec<WordInfo> = raw_words.iter().map(|w| self.word(w, cwd, depth)).collect();
        for r in redirects {
            self.redirect(r, cwd, depth);
        }
        let stripped = wrappers::strip(&words);
        assignments.extend(stripped.env_assignments);
        let command = SimpleCommand {
            assignments,
            words,
            core_start: stripped.core_start,
            cwd: cwd.clone(),
            hidden,
        };
        self.special_forms(&command, cwd, depth);
        let launched = launched_commands(command.core_words());
        let command_cwd = command.cwd.clone();
        self.out.commands.push(command);
        for words in launched {
            let stripped = wrappers::strip(&words);
            self.out.commands.push(SimpleCommand {
                assignments: stripped.env_assignments,
                words,
                core_start: stripped.core_start,
                cwd: command_cwd.clone(),
                hidden: true,
            });
        }
    }

    /// `eval`, `sh -c`, `cd`, and a non-literal command name.
    fn special_forms(&mut self, command: &SimpleCommand, cwd: &mut Option<PathBuf>, depth: usize) {
        let core = command.core_words();
        let Some(first) = core.first() else {
            return;
        };
        if !first.literal || first.has_glob {
            self.fail(format!(
                "the command name `{}` is only known at run time",
                first.text
            ));
            return;
        }
        let name = first.text.rsplit('/').next().unwrap_or(&first.text);
        match name {
            "eval" => {
                self.fail("`eval` runs a string as a command".into());
                let text: Vec<&str> = core[1..].iter().map(|w| w.text.as_str()).collect();
                let mut own = cwd.clone();
                self.program(&text.join(" "), &mut own, depth + 1, true);
            }
            "sh" | "bash" | "zsh" | "dash" | "ksh" | "mksh" | "fish" | "busybox" => {
                if let Some(i) = core.iter().position(|w| {
                    w.text == "-c"
                        || (w.text.starts_with('-')
                            && !w.text.starts_with("--")
                            && w.text.contains('c'))
                }) {
                    self.fail(format!("`{name} -c` runs a string as a command"));
                    if let Some(script) = core.get(i + 1) {
                        let mut own = cwd.clone();
                        self.program(&script.text.clone(), &mut own, depth + 1, true);
                    }
                }
            }
            "let" => {
                self.fail("`let` evaluates arithmetic, which may run commands".into());
            }
            "source" | "." => {
                self.fail(format!("`{name}` runs a script in this shell"));
            }
            "cd" | "pushd" => {
                let target = core
                    .iter()
                    .skip(1)
                    .find(|w| !w.text.starts_with('-') || w.text == "-");
                *cwd = match target {
                    None => Some(self.home.clone()),
                    Some(w) if w.literal && !w.has_glob && w.text != "-" => self.resolve(w, cwd),
                    Some(_) => None,
                };
            }
            "popd" => *cwd = None,
            _ => {}
        }
    }
}
