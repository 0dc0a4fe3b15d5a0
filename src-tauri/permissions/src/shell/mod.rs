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

mod hazards;
mod parse;
pub mod pattern;
pub mod readonly;
mod walker;
pub mod words;
mod wrappers;

use std::path::{Path, PathBuf};

use crate::paths::lexical_absolute;
use parse::Wait;
pub(crate) use parse::guarded;
pub use parse::{PARSE_DEADLINE, ParseSlot, ParserThreads, parser_threads};
use walker::analyse_with;
use words::WordInfo;

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

    /// The command proper as written, quotes kept (`python3 -c 'print(1)'`):
    /// the spelling of a rule copied from the command line, which allow
    /// rules are matched against as well as [`core_text`](Self::core_text).
    pub fn core_raw_text(&self) -> String {
        join_raw(self.core_words())
    }

    /// Every spelling deny and ask rules are tried against: with and
    /// without assignments, with and without wrappers, unquoted and as
    /// written.
    pub fn rule_texts(&self) -> Vec<String> {
        let mut texts = vec![self.core_text(), join(&self.words)];
        for raw in [self.core_raw_text(), join_raw(&self.words)] {
            if !texts.contains(&raw) {
                texts.push(raw);
            }
        }
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

fn join_raw(words: &[WordInfo]) -> String {
    let texts: Vec<&str> = words.iter().map(|w| w.raw.as_str()).collect();
    pattern::normalise_spaces(&texts.join(" "))
        .trim()
        .to_string()
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
    use brush_parser::ParserOptions;

    use super::hazards::{count_groupings, has_unusual_heredoc_delimiter};
    use super::parse::ParseOutcome;
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
