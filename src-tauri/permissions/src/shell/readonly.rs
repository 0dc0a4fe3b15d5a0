//! The built-in read-only command set, with the flags that turn its
//! commands into writers (sed `w`/`e`, find `-exec`/`-delete`, rg `--pre`,
//! git `--output`, sort `-o`…), and the simple file commands acceptEdits
//! mode may run.

use super::words::WordInfo;

/// What a simple command does, as far as permissions care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Classification {
    /// Reads only (its path arguments still have to be inside the working
    /// directories to run without asking).
    ReadOnly,
    /// Changes the shell's directory (`cd`, `pushd`, `popd`).
    ChangesDirectory,
    /// A simple file command (`mkdir`, `touch`, `cp`, `mv`, `rm`, `rmdir`)
    /// whose path arguments are all writes.
    FileWrite,
    /// Anything else.
    Other,
}

/// Commands that only read, whatever their (non-listed) flags.
const PLAIN_READERS: &[&str] = &[
    "ls",
    "cat",
    "head",
    "tail",
    "wc",
    "stat",
    "du",
    "df",
    "diff",
    "cmp",
    "comm",
    "cut",
    "nl",
    "md5sum",
    "sha1sum",
    "sha256sum",
    "sha512sum",
    "shasum",
    "cksum",
    "od",
    "hexdump",
    "strings",
    "column",
    "fold",
    "expand",
    "paste",
    "grep",
    "egrep",
    "fgrep",
    "tac",
    "rev",
    "realpath",
    "readlink",
    "basename",
    "dirname",
    "tr",
    "less",
    "more",
];

/// Commands that read no files at all (their arguments are not paths).
const NO_PATH_COMMANDS: &[&str] = &[
    "echo", "printf", "pwd", "true", "false", "whoami", "id", "uname", "which", "type", "seq",
    "printenv", "test", "[", "basename", "dirname", "tr", "sleep", "date", "hostname", "env", "jq",
];

/// Commands whose first positional argument is a pattern or script, not a
/// path.
const PATTERN_FIRST: &[&str] = &["grep", "egrep", "fgrep", "rg", "sed", "jq"];

fn name_of(word: &WordInfo) -> &str {
    word.text.rsplit('/').next().unwrap_or(&word.text)
}

/// Classifies a command proper (wrappers already stripped).
pub fn classify(words: &[WordInfo]) -> Classification {
    let Some(first) = words.first() else {
        return Classification::ReadOnly;
    };
    if !first.literal || words.iter().any(|w| !w.fail_reasons.is_empty()) {
        return Classification::Other;
    }
    let name = name_of(first);
    let args = &words[1..];
    let texts: Vec<&str> = args.iter().map(|w| w.text.as_str()).collect();
    let has = |pred: &dyn Fn(&str) -> bool| texts.iter().any(|t| pred(t));
    let positional = texts.iter().filter(|t| !t.starts_with('-')).count();
    let read_only = match name {
        "cd" | "pushd" | "popd" => return Classification::ChangesDirectory,
        "mkdir" | "touch" | "cp" | "mv" | "rm" | "rmdir" => return Classification::FileWrite,
        n if PLAIN_READERS.contains(&n) => true,
        "echo" | "printf" | "pwd" | "true" | "false" | "whoami" | "id" | "uname" | "which"
        | "type" | "seq" | "printenv" | "test" | "[" | "sleep" | "jq" | "file" | "tree" => {
            match name {
                "file" => !has(&|t| t == "-C" || t.starts_with("--compile")),
                "tree" => !has(&|t| t.starts_with("-o") || t == "-R"),
                "printf" => !has(&|t| t == "-v"),
                _ => true,
            }
        }
        "env" => args.is_empty(),
        "hostname" => positional == 0,
        "date" => {
            !has(&|t| t.starts_with("-s") || t.starts_with("--set"))
                && texts
                    .iter()
                    .all(|t| t.starts_with('-') || t.starts_with('+'))
        }
        "uniq" => positional <= 1,
        "sort" => !has(&|t| {
            t.starts_with("-o") || t.starts_with("--output") || t.starts_with("--compress-program")
        }),
        "rg" => !has(&|t| t.starts_with("--pre") || t.starts_with("--hostname-bin")),
        "find" => !has(&|t| {
            matches!(
                t,
                "-exec"
                    | "-execdir"
                    | "-ok"
                    | "-okdir"
                    | "-delete"
                    | "-fprint"
                    | "-fprint0"
                    | "-fprintf"
                    | "-fls"
            )
        }),
        "sed" => sed_is_read_only(&texts),
        "git" => git_is_read_only(&texts),
        _ => false,
    };
    if read_only {
        Classification::ReadOnly
    } else {
        Classification::Other
    }
}

/// The arguments of a read-only or file command that name paths.
///
/// Conservative: every positional argument (and the value of a
/// `--flag=/abs` option) counts, except a leading pattern or script.
pub fn path_arguments(words: &[WordInfo]) -> Vec<WordInfo> {
    let Some(first) = words.first() else {
        return Vec::new();
    };
    let name = name_of(first);
    if NO_PATH_COMMANDS.contains(&name) || name == "git" {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut skipped_pattern = !PATTERN_FIRST.contains(&name);
    let explicit_pattern = words[1..].iter().any(|w| {
        matches!(
            w.text.as_str(),
            "-e" | "-f" | "--regexp" | "--file" | "--expression"
        )
    });
    if explicit_pattern {
        skipped_pattern = true;
    }
    let mut past_options = false;
    for w in &words[1..] {
        if name == "find"
            && !past_options
            && (w.text.starts_with('-') || w.text == "(" || w.text == "!")
        {
            // The roots come before the first expression.
            past_options = true;
        }
        if name == "find" && past_options {
            continue;
        }
        if let Some(value) = w
            .text
            .split_once('=')
            .map(|(_, v)| v)
            .filter(|_| w.text.starts_with('-'))
        {
            if value.starts_with('/') || value.starts_with('~') || value.starts_with("..") {
                out.push(WordInfo {
                    text: value.to_string(),
                    ..w.clone()
                });
            }
            continue;
        }
        if w.text.starts_with('-') && w.text != "-" {
            continue;
        }
        if !skipped_pattern {
            skipped_pattern = true;
            continue;
        }
        out.push(w.clone());
    }
    out
}

fn git_is_read_only(args: &[&str]) -> bool {
    // Global options before the sub-command: none that redirect git.
    let Some(sub_index) = args.iter().position(|a| !a.starts_with('-')) else {
        return args.iter().all(|a| matches!(*a, "--version" | "--help"));
    };
    if sub_index > 0 {
        return false; // `-C dir`, `-c key=val`, `--git-dir`…: not read-only
    }
    let sub = args[sub_index];
    let rest = &args[sub_index + 1..];
    let dangerous = rest.iter().any(|a| {
        a.starts_with("--output")
            || a.starts_with("--ext-diff")
            || a.starts_with("--exec")
            || a.starts_with("--upload-pack")
            || a.starts_with("--receive-pack")
            || a.starts_with("--open-files-in-pager")
            || a.starts_with("-O")
    });
    if dangerous {
        return false;
    }
    let positional = rest.iter().filter(|a| !a.starts_with('-')).count();
    match sub {
        "status" | "log" | "show" | "diff" | "rev-parse" | "ls-files" | "ls-tree" | "blame"
        | "describe" | "shortlog" | "cat-file" | "grep" | "merge-base" | "rev-list"
        | "name-rev" | "count-objects" | "for-each-ref" | "whatchanged" | "show-ref" | "help"
        | "version" => true,
        "branch" => {
            positional == 0
                && rest.iter().all(|a| {
                    matches!(
                        *a,
                        "-a" | "-r"
                            | "-v"
                            | "-vv"
                            | "--list"
                            | "-l"
                            | "--all"
                            | "--remotes"
                            | "--show-current"
                            | "--verbose"
                            | "--no-color"
                            | "--color"
                    )
                })
        }
        "tag" => rest.is_empty() || rest.iter().all(|a| matches!(*a, "-l" | "--list")),
        "remote" => rest.is_empty() || rest == ["-v"] || rest == ["--verbose"],
        "stash" => rest.first().is_some_and(|a| *a == "list" || *a == "show"),
        "reflog" => rest.is_empty() || rest.first() == Some(&"show"),
        "config" => rest
            .iter()
            .any(|a| matches!(*a, "--get" | "--get-all" | "--list" | "-l" | "--get-regexp")),
        _ => false,
    }
}

/// `sed` is read-only when it edits nothing in place and its scripts only
/// print, delete, quit or substitute without the `w`/`e` flags — and use no
/// `w`, `W`, `e`, `r`, `R` command.
fn sed_is_read_only(args: &[&str]) -> bool {
    let mut scripts = Vec::new();
    let mut i = 0;
    let mut script_given = false;
    while i < args.len() {
        let a = args[i];
        match a {
            "-n" | "--quiet" | "--silent" | "-E" | "-r" | "--regexp-extended" | "-z" | "-s"
            | "--posix" | "-u" | "--debug" => {}
            "-e" | "--expression" => {
                scripts.push(args.get(i + 1).copied().unwrap_or(""));
                script_given = true;
                i += 1;
            }
            _ if a.starts_with("--expression=") => {
                scripts.push(&a["--expression=".len()..]);
                script_given = true;
            }
            _ if a.starts_with("-e") && a.len() > 2 => {
                scripts.push(&a[2..]);
                script_given = true;
            }
            _ if a.starts_with('-') && a != "-" => {
                // -i, --in-place, -f script-file, -l, and anything unknown.
                if a.starts_with("-n")
                    && a[2..]
                        .chars()
                        .all(|c| matches!(c, 'E' | 'r' | 'z' | 's' | 'u'))
                {
                } else {
                    return false;
                }
            }
            _ => {
                if !script_given {
                    scripts.push(a);
                    script_given = true;
                }
            }
        }
        i += 1;
    }
    !scripts.is_empty() && scripts.iter().all(|s| sed_script_is_read_only(s))
}

/// Checks each `;`/newline-separated command of a sed script.
fn sed_script_is_read_only(script: &str) -> bool {
    let mut rest = script.trim();
    while !rest.is_empty() {
        // Addresses: numbers, `$`, `/regex/`, separated by `,`, optional `!`.
        let mut chars = rest.char_indices().peekable();
        let mut pos = rest.len();
        while let Some(&(i, c)) = chars.peek() {
            if c.is_ascii_digit()
                || c == '$'
                || c == ','
                || c == '!'
                || c == ' '
                || c == '~'
                || c == '+'
            {
                chars.next();
            } else if c == '/' {
                chars.next();
                let mut closed = false;
                let mut escaped = false;
                for (_, d) in chars.by_ref() {
                    if escaped {
                        escaped = false;
                    } else if d == '\\' {
                        escaped = true;
                    } else if d == '/' {
                        closed = true;
                        break;
                    }
                }
                if !closed {
                    return false;
                }
            } else {
                pos = i;
                break;
            }
        }
        rest = &rest[pos..];
        let Some(cmd) = rest.chars().next() else {
            return false;
        };
        match cmd {
            'p' | 'd' | 'q' | 'Q' | '=' | 'P' | 'D' | 'n' | 'N' | 'g' | 'G' | 'h' | 'H' | 'x'
            | 'l' | '{' | '}' => {
                rest = rest[1..].trim_start();
            }
            's' | 'y' => {
                let mut it = rest[1..].char_indices();
                let Some((_, delim)) = it.next() else {
                    return false;
                };
                if delim == '\\' || delim == '\n' {
                    return false;
                }
                let mut seen = 0;
                let mut escaped = false;
                let mut end = None;
                for (i, c) in it {
                    if escaped {
                        escaped = false;
                    } else if c == '\\' {
                        escaped = true;
                    } else if c == delim {
                        seen += 1;
                        if seen == 2 {
                            end = Some(1 + i + c.len_utf8());
                            break;
                        }
                    }
                }
                let Some(end) = end else {
                    return false;
                };
                rest = &rest[end..];
                // Flags: only g, p, i, I, digits (no `w file`, no `e`, no `m`…).
                let flags_end = rest
                    .find(|c: char| !(c.is_ascii_digit() || matches!(c, 'g' | 'p' | 'i' | 'I')))
                    .unwrap_or(rest.len());
                if cmd == 'y' && flags_end > 0 {
                    return false;
                }
                rest = rest[flags_end..].trim_start();
            }
            _ => return false,
        }
        if let Some(r) = rest.strip_prefix(';').or_else(|| rest.strip_prefix('\n')) {
            rest = r.trim_start();
        } else if !rest.is_empty() && !rest.starts_with('}') {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(cmd: &str) -> Vec<WordInfo> {
        cmd.split_whitespace()
            .map(|t| WordInfo {
                text: t.to_string(),
                literal: true,
                ..WordInfo::default()
            })
            .collect()
    }

    fn ro(cmd: &str) -> bool {
        classify(&words(cmd)) == Classification::ReadOnly
    }

    #[test]
    fn sed() {
        assert!(ro("sed -n 1,5p file"));
        assert!(ro("sed s/a/b/g file"));
        assert!(ro("sed -e s/a/b/ -e 3d"));
        assert!(!ro("sed -n 1wout file"));
        assert!(!ro("sed -n 1w"));
        assert!(!ro("sed e"));
        assert!(!ro("sed 1e"));
        assert!(!ro("sed s/a/b/w"));
        assert!(!ro("sed s/a/b/e"));
        assert!(!ro("sed -i s/a/b/ f"));
        assert!(!ro("sed --in-place s/a/b/ f"));
        assert!(!ro("sed -f script f"));
        assert!(!ro("sed 1r/etc/passwd"));
    }

    #[test]
    fn writers_hidden_in_readers() {
        assert!(ro("find . -name x"));
        assert!(!ro("find . -exec rm {} ;"));
        assert!(!ro("find . -delete"));
        assert!(!ro("find . -fprint out"));
        assert!(ro("rg foo"));
        assert!(!ro("rg --pre ./x foo"));
        assert!(!ro("rg --pre=./x foo"));
        assert!(ro("git log --oneline"));
        assert!(!ro("git log --output=x"));
        assert!(!ro("git diff --output x"));
        assert!(!ro("git -c core.pager=x log"));
        assert!(!ro("git -C /x status"));
        assert!(!ro("git branch new"));
        assert!(ro("git branch -a"));
        assert!(!ro("git push"));
        assert!(!ro("sort -o out x"));
        assert!(!ro("date -s 2020-01-01"));
        assert!(ro("date +%s"));
    }

    #[test]
    fn paths() {
        let w = words("grep -r foo /etc src");
        let p: Vec<String> = path_arguments(&w).into_iter().map(|w| w.text).collect();
        assert_eq!(p, vec!["/etc", "src"]);
        let w = words("find /etc -name x");
        let p: Vec<String> = path_arguments(&w).into_iter().map(|w| w.text).collect();
        assert_eq!(p, vec!["/etc"]);
    }
}
