//! Shell command analysis with a real bash parser (`brush-parser`).
//!
//! [`analyse`] turns a command line into every simple command it would run
//! (across `&&`, `||`, `;`, `|`, `|&`, `&`, newlines, subshells, loops and
//! the insides of substitutions), each with its leading assignments, its
//! wrappers (`timeout`, `nice`, flag-less `xargs`…) told apart from the
//! command proper, and the directory it runs in (`cd` is followed). File
//! redirections are collected as file accesses. Anything the analysis cannot
//! see through — command or process substitution, `eval`, `sh -c`, `$IFS`,
//! complex expansions, unparseable or over-long input — is recorded as a
//! reason to fail closed: such a command is never allowed by a rule or a
//! mode, only by the user (or by bypass mode).

mod parse;
pub mod pattern;
pub mod readonly;
pub mod words;
mod wrappers;

use std::path::{Path, PathBuf};

use brush_parser::ParserOptions;
use brush_parser::ast::{
    self, Command, CommandPrefixOrSuffixItem, CompoundCommand, CompoundList, IoFileRedirectKind,
    IoFileRedirectTarget, IoRedirect,
};

use crate::paths::lexical_absolute;
pub(crate) use parse::guarded;
pub use parse::{PARSE_DEADLINE, ParseSlot, ParserThreads, parser_threads};
use parse::{ParseOutcome, Wait, parse_with_deadline};
use words::{WordInfo, classify, short};

/// Inputs longer than this many bytes are not analysed: they fail closed.
pub const MAX_COMMAND_LEN: usize = 10_000;
/// Commands with more sub-commands than this fail closed (they are still
/// all checked against deny rules).
pub const MAX_SUBCOMMANDS: usize = 1_000;
/// How deep substitutions inside substitutions are followed.
const MAX_DEPTH: usize = 4;

/// A leading `NAME=value` of a simple command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assignment {
    /// The variable name.
    pub name: String,
    /// The value, unquoted when literal.
    pub value: WordInfo,
}

/// One simple command the shell would run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimpleCommand {
    /// Leading assignments (`FOO=1 cmd`), also those given through `env`.
    pub assignments: Vec<Assignment>,
    /// Every word, wrappers included.
    pub words: Vec<WordInfo>,
    /// Index of the first word of the command proper, after wrappers.
    pub core_start: usize,
    /// The directory it runs in, when known (after any `cd` before it).
    pub cwd: Option<PathBuf>,
    /// True when it runs inside a command or process substitution, `eval`
    /// or `sh -c`: it is checked against deny and ask rules only.
    pub hidden: bool,
}

impl SimpleCommand {
    /// The command proper: words after wrappers and assignments.
    pub fn core_words(&self) -> &[WordInfo] {
        self.words.get(self.core_start..).unwrap_or(&[])
    }

    /// The command name (first core word), if any.
    pub fn name(&self) -> Option<&str> {
        self.core_words().first().map(|w| w.text.as_str())
    }

    /// The command proper as rules see it: core words joined by one space.
    pub fn core_text(&self) -> String {
        join(self.core_words())
    }

    /// Every spelling deny and ask rules are tried against: with and
    /// without assignments, with and without wrappers.
    pub fn rule_texts(&self) -> Vec<String> {
        let mut texts = vec![self.core_text(), join(&self.words)];
        if !self.assignments.is_empty() {
            let assigns: Vec<String> = self
                .assignments
                .iter()
                .map(|a| format!("{}={}", a.name, a.value.text))
                .collect();
            let prefix = assigns.join(" ");
            texts.push(format!("{prefix} {}", join(&self.words)));
            texts.push(format!("{prefix} {}", self.core_text()));
        }
        // `/bin/rm` is `rm` to a deny rule.
        if let Some(name) = self.name()
            && let Some((_, base)) = name.rsplit_once('/')
            && !base.is_empty()
        {
            let rest: Vec<&str> = self.core_words()[1..]
                .iter()
                .map(|w| w.text.as_str())
                .collect();
            texts.push(
                pattern::normalise_spaces(&format!("{base} {}", rest.join(" ")))
                    .trim()
                    .to_string(),
            );
        }
        texts.dedup();
        texts
    }

    /// True when a wrapper feeds it arguments read from input (`xargs`):
    /// its real arguments are unknown.
    pub fn via_xargs(&self) -> bool {
        self.words[..self.core_start.min(self.words.len())]
            .iter()
            .any(|w| w.text == "xargs")
    }

    /// The command as written, for messages.
    pub fn display(&self) -> String {
        let mut parts: Vec<String> = self
            .assignments
            .iter()
            .map(|a| format!("{}={}", a.name, a.value.text))
            .collect();
        parts.extend(self.words.iter().map(|w| w.text.clone()));
        parts.join(" ")
    }
}

fn join(words: &[WordInfo]) -> String {
    let texts: Vec<&str> = words.iter().map(|w| w.text.as_str()).collect();
    pattern::normalise_spaces(&texts.join(" "))
        .trim()
        .to_string()
}

/// A file the command line reads or writes through a redirection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileAccess {
    /// The target as written.
    pub raw: String,
    /// The absolute path (lexical), or `None` when it is not known before
    /// running (an expansion, or a relative path after an unknown `cd`).
    pub path: Option<PathBuf>,
    /// True for `>`, `>>`, `>|`, `<>`, `&>`; false for `<`.
    pub write: bool,
}

/// Everything [`analyse`] found in one command line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShellAnalysis {
    /// Every simple command, in source order.
    pub commands: Vec<SimpleCommand>,
    /// Every redirection to or from a file.
    pub accesses: Vec<FileAccess>,
    /// Why the command line must fail closed, if it must.
    pub fail_closed: Vec<String>,
    /// The subset of `fail_closed` where the analysis could not see every
    /// command (unparseable, over-long, a parser hazard or timeout): deny
    /// rules could not be checked, so not even bypass mode may run it.
    pub opaque: Vec<String>,
}

impl ShellAnalysis {
    /// True when no construct forces an ask.
    pub fn is_transparent(&self) -> bool {
        self.fail_closed.is_empty()
    }
}

/// Analyses a command line run in `cwd` (`~` expands to `home`). Blocking:
/// a command line with groupings or here-documents may take up to
/// [`PARSE_DEADLINE`] (call it off the async workers).
pub fn analyse(command: &str, cwd: &Path, home: &Path) -> ShellAnalysis {
    analyse_with(command, cwd, home, Wait::UpToDeadline)
}

fn analyse_with(command: &str, cwd: &Path, home: &Path, wait: Wait) -> ShellAnalysis {
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

/// True when the whole command line changes nothing: it is transparent,
/// every sub-command is in the read-only set with no writer flag, and it
/// writes no file (other than `/dev/null`). Decides Bash's concurrency
/// safety, which the scheduler asks on an async worker, so it never waits
/// for a helper-thread parse: a command line with groupings or
/// here-documents is not read-only here (it runs alone; the permission
/// decision analyses it in full).
pub fn is_read_only(command: &str) -> bool {
    let root = Path::new("/");
    let analysis = analyse_with(command, root, root, Wait::Never);
    analysis.is_transparent()
        && !analysis.commands.is_empty()
        && analysis
            .accesses
            .iter()
            .all(|a| !a.write || a.path.as_deref().is_some_and(is_harmless_sink))
        && analysis.commands.iter().all(|c| {
            c.assignments.is_empty()
                && readonly::classify(c.core_words()) == readonly::Classification::ReadOnly
        })
}

/// `/dev/null` and friends: writing there changes nothing.
pub fn is_harmless_sink(path: &Path) -> bool {
    matches!(
        path.to_str(),
        Some("/dev/null" | "/dev/stdout" | "/dev/stderr")
    )
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

/// Inputs brush-parser 0.4 mishandles (found by fuzzing), refused before
/// parsing: the reason to fail closed, or `None`.
fn parser_hazard(text: &str) -> Option<&'static str> {
    if has_unusual_heredoc_delimiter(text) {
        // Unbounded allocation or an endless loop in the tokenizer.
        return Some("a here-document delimiter that is not a plain word");
    }
    if has_heredoc(text) && ["$(", "`", "<(", ">("].iter().any(|m| text.contains(m)) {
        // A here-document inside a substitution sends the tokenizer into
        // endless allocation for inputs no pattern describes.
        return Some("a here-document together with a substitution");
    }
    let (parens, cases) = count_groupings(text);
    if parens > MAX_GROUPING_PARENS || cases > MAX_CASE_CLAUSES {
        // Unbalanced groupings make brush-parser 0.4 backtrack exponentially
        // (24 `(` take seconds, each one more doubles it).
        return Some("too many nested groupings to analyse");
    }
    if has_oversized_fd_number(text) {
        // `99999999999>x`, `~99999999999`: the parser unwraps an
        // overflowing integer.
        return Some("a file-descriptor or directory-stack number too large to be real");
    }
    None
}

/// More bare `(` than this (outside quotes, not `$(`, `<(`, `>(`) fail
/// closed before parsing.
const MAX_GROUPING_PARENS: usize = 10;
/// More `case` keywords than this fail closed before parsing.
const MAX_CASE_CLAUSES: usize = 8;

/// Counts, outside single quotes and escapes, the `(` that open subshells
/// or `((` (not those of `$(`, `<(`, `>(`, `$((`), and outside all quotes
/// the `case` keywords.
fn count_groupings(text: &str) -> (usize, usize) {
    let bytes = text.as_bytes();
    let (mut parens, mut cases) = (0, 0);
    let (mut single, mut double) = (false, false);
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'\\' if !single => i += 1,
            b'\'' if !double => single = !single,
            b'"' if !single => double = !double,
            // Double quotes do not make `(` inert: `"$( ((( )"` is code.
            b'(' if !single => {
                let prev = i.checked_sub(1).map(|j| bytes[j]);
                let prev2 = i.checked_sub(2).map(|j| bytes[j]);
                let substitution = matches!(prev, Some(b'$' | b'<' | b'>'))
                    || (prev == Some(b'(') && prev2 == Some(b'$'));
                if !substitution {
                    parens += 1;
                }
            }
            b'c' if !single && !double && bytes[i..].starts_with(b"case") => {
                let before = i.checked_sub(1).map(|j| bytes[j]);
                let after = bytes.get(i + 4).copied();
                let boundary =
                    |c: Option<u8>| c.is_none_or(|c| !(c.is_ascii_alphanumeric() || c == b'_'));
                if boundary(before) && boundary(after) {
                    cases += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    (parens, cases)
}

/// True when a run of 10 or more digits is directly followed by `<` or `>`
/// (a file-descriptor number), or follows `~`, `~+` or `~-` (a directory
/// stack index): numbers the parser unwraps into machine integers.
fn has_oversized_fd_number(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut run = 0usize;
    for (i, &b) in bytes.iter().enumerate() {
        if b.is_ascii_digit() {
            run += 1;
            continue;
        }
        if run >= 10 {
            let start = i - run;
            let before = start.checked_sub(1).map(|j| bytes[j]);
            let before2 = start.checked_sub(2).map(|j| bytes[j]);
            let tilde = before == Some(b'~')
                || (matches!(before, Some(b'+' | b'-')) && before2 == Some(b'~'));
            if tilde || b == b'<' || b == b'>' {
                return true;
            }
        }
        run = 0;
    }
    if run >= 10 {
        let start = bytes.len() - run;
        let before = start.checked_sub(1).map(|j| bytes[j]);
        let before2 = start.checked_sub(2).map(|j| bytes[j]);
        return before == Some(b'~')
            || (matches!(before, Some(b'+' | b'-')) && before2 == Some(b'~'));
    }
    false
}

/// True when `text` has a `<<` that is not a `<<<` here-string.
fn has_heredoc(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i + 1 < bytes.len() {
        if bytes[i] == b'<' && bytes[i + 1] == b'<' {
            if bytes.get(i + 2) == Some(&b'<') {
                i += 3;
                continue;
            }
            return true;
        }
        i += 1;
    }
    false
}

/// True when `text` has a `<<` here-document whose delimiter is not a plain
/// word: `EOF`, `'EOF'`, `"EOF"` or `\EOF` (letters, digits, `_`, `.`,
/// `-`). Anything else (`<<''`, `<< <<r`, `<<$[`, `<<` at the end) makes
/// brush-parser 0.4 exhaust memory or loop forever, and no agent needs it.
fn has_unusual_heredoc_delimiter(text: &str) -> bool {
    let bytes = text.as_bytes();
    let plain = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-');
    let ends_word = |b: Option<&u8>| b.is_none_or(|b| b" \t\r\n;&|<>()".contains(b));
    let mut i = 0;
    while i + 1 < bytes.len() {
        if !(bytes[i] == b'<' && bytes[i + 1] == b'<') {
            i += 1;
            continue;
        }
        let mut j = i + 2;
        if bytes.get(j) == Some(&b'<') {
            i = j + 1; // `<<<`: a here-string
            continue;
        }
        if bytes.get(j) == Some(&b'-') {
            j += 1;
        }
        while matches!(bytes.get(j), Some(b' ' | b'\t')) {
            j += 1;
        }
        if bytes.get(j) == Some(&b'\\') {
            j += 1;
        }
        let quote = match bytes.get(j) {
            Some(&q @ (b'\'' | b'"')) => {
                j += 1;
                Some(q)
            }
            _ => None,
        };
        let start = j;
        while bytes.get(j).is_some_and(|&b| plain(b)) {
            j += 1;
        }
        if j == start {
            return true;
        }
        if let Some(q) = quote {
            if bytes.get(j) != Some(&q) {
                return true;
            }
            j += 1;
        }
        if !ends_word(bytes.get(j)) {
            return true;
        }
        i = j;
    }
    false
}

/// Commands another command launches with its own arguments: `find
/// -exec CMD … ;`, `sudo CMD`, `doas CMD`, `xargs [options] CMD`, `watch
/// CMD`. They are checked like any sub-command (deny rules included).
fn launched_commands(core: &[WordInfo]) -> Vec<Vec<WordInfo>> {
    let Some(first) = core.first() else {
        return Vec::new();
    };
    let name = first.text.rsplit('/').next().unwrap_or(&first.text);
    let after_options = |takes_value: &[&str]| -> Vec<WordInfo> {
        let mut i = 1;
        while let Some(w) = core.get(i) {
            let t = w.text.as_str();
            if t == "--" {
                i += 1;
                break;
            }
            if !t.starts_with('-') || t == "-" {
                // `sudo VAR=value cmd`
                if name != "xargs" && name != "watch" && t.contains('=') && !t.starts_with('=') {
                    i += 1;
                    continue;
                }
                break;
            }
            i += if takes_value.contains(&t) { 2 } else { 1 };
        }
        core.get(i..).map(<[WordInfo]>::to_vec).unwrap_or_default()
    };
    let launched = match name {
        "sudo" | "doas" => {
            after_options(&["-u", "-g", "-C", "-h", "-p", "-U", "-r", "-t", "-D", "-R"])
        }
        "xargs" => after_options(&["-I", "-L", "-n", "-P", "-d", "-E", "-s", "-a", "-e"]),
        "watch" => after_options(&["-n", "--interval", "-d"]),
        "find" => {
            let mut out = Vec::new();
            let mut i = 0;
            while i < core.len() {
                if matches!(
                    core[i].text.as_str(),
                    "-exec" | "-execdir" | "-ok" | "-okdir"
                ) {
                    let start = i + 1;
                    let mut end = start;
                    while end < core.len() && !matches!(core[end].text.as_str(), ";" | "+") {
                        end += 1;
                    }
                    if start < end {
                        out.push(core[start..end].to_vec());
                    }
                    i = end;
                }
                i += 1;
            }
            return out;
        }
        _ => Vec::new(),
    };
    if launched.is_empty() {
        Vec::new()
    } else {
        vec![launched]
    }
}

/// The absolute path a literal word names, relative to `cwd` (`~` is the
/// home directory); `None` when it is relative and `cwd` is unknown.
pub fn resolve_word(word: &WordInfo, cwd: Option<&Path>, home: &Path) -> Option<PathBuf> {
    let text = word.text.as_str();
    if text == "~" {
        return Some(home.to_path_buf());
    }
    if let Some(rest) = text.strip_prefix("~/") {
        return Some(lexical_absolute(home, Path::new(rest)));
    }
    let path = Path::new(text);
    if path.is_absolute() {
        return Some(lexical_absolute(Path::new("/"), path));
    }
    cwd.map(|c| lexical_absolute(c, path))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a(cmd: &str) -> ShellAnalysis {
        analyse(cmd, Path::new("/w/p"), Path::new("/h"))
    }

    fn cores(cmd: &str) -> Vec<String> {
        a(cmd).commands.iter().map(|c| c.core_text()).collect()
    }

    #[test]
    fn splits_on_every_separator() {
        for sep in ["&&", "||", ";", "|", "|&", "&", "\n"] {
            let cmd = format!("ls {sep} rm -rf x");
            assert_eq!(cores(&cmd), vec!["ls", "rm -rf x"], "separator {sep:?}");
        }
    }

    #[test]
    fn strips_wrappers_and_assignments() {
        assert_eq!(cores("FOO=1 rm x"), vec!["rm x"]);
        assert_eq!(cores("timeout 5 rm x"), vec!["rm x"]);
        assert_eq!(
            cores("timeout -s KILL 5 nice -n 3 nohup rm x"),
            vec!["rm x"]
        );
        assert_eq!(cores("xargs rm"), vec!["rm"]);
        assert_eq!(
            cores("xargs -0 rm"),
            vec!["xargs -0 rm", "rm"],
            "launched, not stripped"
        );
        assert_eq!(cores("time rm x"), vec!["rm x"]);
        assert_eq!(cores("env A=1 rm x"), vec!["rm x"]);
        let analysis = a("env LD_PRELOAD=x git status");
        assert_eq!(analysis.commands[0].assignments[0].name, "LD_PRELOAD");
    }

    #[test]
    fn substitutions_fail_closed_and_are_followed() {
        for cmd in [
            "echo $(rm x)",
            "echo `rm x`",
            "cat <(rm x)",
            "echo \"$(rm x)\"",
            "eval 'rm x'",
            "sh -c 'rm x'",
            "bash -lc 'rm x'",
        ] {
            let analysis = a(cmd);
            assert!(!analysis.is_transparent(), "{cmd}");
            assert!(
                analysis.commands.iter().any(|c| c.core_text() == "rm x"),
                "{cmd}: {:?}",
                analysis.commands
            );
        }
        assert!(!a("echo $IFS").is_transparent());
        assert!(!a("cat${IFS}/etc/passwd").is_transparent());
        assert!(!a("echo 'unterminated").is_transparent());
        assert!(!a("$CMD x").is_transparent());
        assert!(a("echo $HOME").is_transparent());
    }

    #[test]
    fn comments_quotes_and_continuations() {
        assert_eq!(cores("echo '#' && rm x"), vec!["echo #", "rm x"]);
        assert_eq!(cores("r\"m\" -rf x"), vec!["rm -rf x"]);
        assert_eq!(cores("rm \\\n -rf x"), vec!["rm -rf x"]);
        assert_eq!(cores("ls\t\t-la"), vec!["ls -la"]);
    }

    #[test]
    fn redirects_and_cd() {
        let analysis = a("cd .git && echo x > config");
        assert_eq!(
            analysis.accesses[0].path.as_deref(),
            Some(Path::new("/w/p/.git/config"))
        );
        let analysis = a("echo x >> ~/.bashrc 2>/dev/null");
        let paths: Vec<_> = analysis.accesses.iter().map(|x| x.path.clone()).collect();
        assert!(paths.contains(&Some(PathBuf::from("/h/.bashrc"))));
        let analysis = a("cd $X && echo x > config");
        assert_eq!(analysis.accesses[0].path, None);
        let analysis = a("(cd /tmp) ; echo x > y");
        assert_eq!(
            analysis.accesses[0].path.as_deref(),
            Some(Path::new("/w/p/y"))
        );
        let analysis = a("cat <<EOF\n$(rm x)\nEOF\n");
        assert!(!analysis.is_transparent());
    }

    #[test]
    fn unusual_heredoc_delimiters_fail_closed_without_parsing() {
        for cmd in [
            "cat <<'' ",
            "cat <<\"\" ",
            "cat <<-'' ",
            "cat << '' ",
            "cat <<''<V $(",
            "$(c << <<r ",
            "cat <<",
            "cat << ;",
            "$(cat <<$[  ",
            "cat <<'EOF",
            "cat <<E$X",
        ] {
            assert!(has_unusual_heredoc_delimiter(cmd), "{cmd}");
            assert!(!a(cmd).is_transparent(), "{cmd}");
        }
        for cmd in [
            "cat <<EOF\nx\nEOF\n",
            "cat <<'EOF'\nx\nEOF\n",
            "cat <<< ''",
            "echo a<<b",
            "cat <<-\"END\"\n\tx\nEND\n",
            "cat <<\\EOF\nx\nEOF\n",
            "python3 - <<PY_2.x\nprint(1)\nPY_2.x\n",
            "echo $((1 << 2))",
        ] {
            assert!(!has_unusual_heredoc_delimiter(cmd), "{cmd}");
        }
    }

    #[test]
    fn exponential_parser_inputs_fail_closed_fast() {
        let start = std::time::Instant::now();
        for cmd in [
            "(".repeat(40),
            "( ".repeat(40),
            "case x in x) ".repeat(30),
            format!("l rmx&{}>>&$ rm sh&", "(".repeat(30)),
        ] {
            assert!(!a(&cmd).is_transparent(), "{cmd}");
        }
        assert!(start.elapsed() < std::time::Duration::from_secs(2));
        // Parentheses in single quotes, escapes and substitutions do not
        // count; in double quotes they do (`"$( ((x)) )"` is code).
        assert_eq!(
            count_groupings(r#"grep -E '(a)(b)(c)' \( $(ls) <(ls) $((1))"#),
            (0, 0)
        );
        assert_eq!(count_groupings(r#"echo "$( ((x)) )""#), (2, 0));
        assert_eq!(count_groupings("(ls) && (cd x; case y in esac)"), (2, 1));
    }

    #[test]
    #[cfg(not(feature = "fuzzing"))]
    fn a_runaway_parse_is_abandoned_counted_and_keeps_others_out() {
        use std::sync::mpsc;
        // A slot of this test's own: the process's slot stays free for the
        // other tests.
        static SLOT: ParseSlot = ParseSlot::new();
        assert!(parse::needs_deadline(&"(".repeat(26)));
        assert!(parse::needs_deadline("cat <<EOF\nx\nEOF"));
        assert!(!parse::needs_deadline(
            "git status && cargo test -- --nocapture | tail"
        ));
        // A "parser" that runs until the test lets it go stands for one
        // that backtracks for minutes.
        let (release, held) = mpsc::channel::<()>();
        let outcome = parse::on_helper_thread(&SLOT, move || {
            let _ = held.recv();
            None
        });
        assert!(matches!(outcome, Some(ParseOutcome::TimedOut)));
        assert_eq!(
            SLOT.threads(),
            ParserThreads {
                abandoned_running: 1,
                abandoned_total: 1,
                refused_busy_total: 0
            }
        );
        // While it runs on, a second command that needs the helper thread
        // is not parsed at all: it fails closed at once.
        let heredoc = "cat <<EOF\nx\nEOF";
        let opts = ParserOptions::default();
        assert!(matches!(
            parse::parse_in(&SLOT, heredoc, &opts, Wait::UpToDeadline),
            ParseOutcome::Busy
        ));
        assert_eq!(SLOT.threads().refused_busy_total, 1);
        // Plain command lines are still parsed, in place.
        assert!(matches!(
            parse::parse_in(&SLOT, "ls -la", &opts, Wait::UpToDeadline),
            ParseOutcome::Done(Ok(_))
        ));
        // A caller that may not wait never starts a helper thread.
        assert!(matches!(
            parse::parse_in(&SLOT, heredoc, &opts, Wait::Never),
            ParseOutcome::NotWaited
        ));
        // When the runaway returns, it counts itself out and frees the slot.
        release.send(()).unwrap();
        while SLOT.threads().abandoned_running != 0 {
            std::thread::yield_now();
        }
        // (The slot is freed right after the count; wait for that state.)
        let parsed = loop {
            match parse::parse_in(&SLOT, heredoc, &opts, Wait::UpToDeadline) {
                ParseOutcome::Busy => std::thread::yield_now(),
                other => break other,
            }
        };
        assert!(matches!(parsed, ParseOutcome::Done(Ok(_))));
        assert_eq!(SLOT.threads().abandoned_total, 1);
    }

    #[test]
    #[cfg(not(feature = "fuzzing"))]
    fn is_read_only_never_waits_for_a_helper_thread_parse() {
        // A here-document needs the helper thread: the read-only check
        // (asked by the scheduler on an async worker) does not parse it and
        // says "not read-only"; the full analysis still parses it.
        let heredoc = "cat <<EOF\nhello\nEOF";
        assert!(!is_read_only(heredoc));
        assert!(a(heredoc).is_transparent(), "{:?}", a(heredoc));
        assert!(is_read_only("cat x | grep y"));
    }

    #[test]
    fn many_subcommands_are_all_kept() {
        let cmd = vec!["true"; 60].join(" && ") + " && rm x";
        assert_eq!(a(&cmd).commands.len(), 61);
    }

    #[test]
    fn read_only() {
        assert!(is_read_only("ls -la && cat x | grep y"));
        assert!(is_read_only("git status"));
        assert!(!is_read_only("ls > out"));
        assert!(is_read_only("ls 2>/dev/null"));
        assert!(!is_read_only("sed -n '1w out' x"));
        assert!(!is_read_only("find . -delete"));
        assert!(!is_read_only("echo $(ls)"));
        assert!(!is_read_only("rm x"));
    }
}
