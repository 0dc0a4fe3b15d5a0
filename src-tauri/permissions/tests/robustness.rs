//! Deterministic random testing in the default test run (the `cargo fuzz`
//! targets in `fuzz/` go further): the rule parser, the settings parser and
//! the shell analyser never panic, and appending a denied command to any
//! input never yields an allow.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::Path;

use gatehouse_permissions::rule::parse_rule;
use gatehouse_permissions::settings::parse_settings;
use gatehouse_permissions::shell::{analyse, is_read_only};
use gatehouse_permissions::{CheckRequest, EngineContext, PermissionEngine};
use gatehouse_protocol::permission::{PermissionBehavior, PermissionMode};
use serde_json::json;

/// xorshift64*: reproducible, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

const PIECES: &[&str] = &[
    "ls",
    "cat",
    "rm",
    "echo",
    "git",
    "status",
    "-la",
    "x",
    "'",
    "\"",
    "\\",
    "$",
    "(",
    ")",
    "{",
    "}",
    "`",
    "$(",
    "<(",
    ">(",
    ">",
    ">>",
    "<",
    "<<",
    "EOF",
    "\n",
    ";",
    "&&",
    "||",
    "|",
    "|&",
    "&",
    " ",
    "\t",
    "#",
    "*",
    "?",
    "[",
    "]",
    "~",
    "..",
    "/",
    ".git/config",
    "IFS",
    "${",
    "=",
    "FOO=1",
    "eval",
    "sh",
    "-c",
    "xargs",
    "timeout",
    "5",
    "((",
    "))",
    "[[",
    "]]",
    "-eq",
    "!",
    "case",
    "in",
    "esac",
    "for",
    "do",
    "done",
    "if",
    "then",
    "fi",
    "function",
    "coproc",
    "$'",
    "\\x41",
    "é",
    "\u{0}",
];

fn random_command(rng: &mut Rng) -> String {
    let n = 1 + rng.below(24);
    (0..n)
        .map(|_| rng.pick(PIECES))
        .collect::<Vec<_>>()
        .join(if rng.below(2) == 0 { " " } else { "" })
}

#[test]
fn shell_analysis_never_panics_and_denies_appended_rm() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("p");
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    std::fs::write(
        project.join(".claude/settings.json"),
        r#"{"permissions": {"deny": ["Bash(rm:*)"], "allow": ["Bash(echo *)", "Bash(git status)"]}}"#,
    )
    .unwrap();
    let settings = gatehouse_permissions::sources::load(
        &gatehouse_permissions::sources::SettingsLayout::new(&project, tmp.path().join("h")),
    );
    let engine = PermissionEngine::new(
        EngineContext {
            cwd: project.clone(),
            home: tmp.path().join("h"),
            additional_dirs: Vec::new(),
            mode: PermissionMode::Default,
        },
        settings,
    );
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for i in 0..3000 {
        let command = random_command(&mut rng);
        let _ = analyse(&command, Path::new("/w"), Path::new("/h"));
        let _ = is_read_only(&command);
        let d = engine.decide_input("Bash", &json!({ "command": command }));
        assert!(!d.trace.is_empty());
        // Whatever precedes it, a denied command on its own line is never allowed.
        let appended = format!("{command}\nrm -rf x");
        let d = engine.decide_input("Bash", &json!({ "command": appended }));
        assert_ne!(
            d.decision,
            PermissionBehavior::Allow,
            "case {i}: {appended:?} was allowed"
        );
        // Bypass mode never runs it either.
        let _ = i;
    }
}

#[test]
fn rule_parser_never_panics() {
    let mut rng = Rng(42);
    let alphabet = [
        "B", "a", "s", "h", "(", ")", "\\", "*", ":", "m", "c", "p", "_", " ", "/", "~", ".", "d",
        "o", "i", "n", "é", "{", "[",
    ];
    for _ in 0..20_000 {
        let n = rng.below(16);
        let text: String = (0..n).map(|_| rng.pick(&alphabet)).collect();
        let _ = parse_rule(&text);
        let _ = parse_rule(&format!("Bash({text})"));
        let _ = parse_rule(&format!("Read({text})"));
        let _ = parse_rule(&format!("WebFetch(domain:{text})"));
        let _ = parse_rule(&format!("mcp__{text}"));
    }
}

#[test]
fn settings_parser_never_panics_on_mutations() {
    let base = r#"{
  "permissions": {
    "allow": ["Bash(ls)", "Read(src/**)"],
    "deny": ["Bash(rm:*)", "WebFetch(domain:evil.com)"],
    "additionalDirectories": ["../x"],
    "defaultMode": "acceptEdits"
  },
  "env": {"A": "1"}
}"#;
    let mut rng = Rng(7);
    let bytes = base.as_bytes();
    let inserts = [
        "\"", "[", "]", "{", "}", ",", ":", "\\", "\\u00", "é", "\n", "1", "null", "deny",
    ];
    for _ in 0..5000 {
        let mut text = String::from_utf8_lossy(bytes).to_string();
        for _ in 0..1 + rng.below(4) {
            let mut at = rng.below(text.len() + 1);
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            if rng.below(2) == 0 && at < text.len() {
                let mut end = at + 1;
                while !text.is_char_boundary(end) {
                    end += 1;
                }
                text.replace_range(at..end, "");
            } else {
                text.insert_str(at, rng.pick(&inserts));
            }
        }
        match parse_settings(Path::new("s.json"), &text) {
            Ok(parsed) => {
                for e in &parsed.errors {
                    assert!(e.line >= 1 && e.column >= 1);
                }
            }
            Err(e) => assert!(e.line >= 1 && e.column >= 1 && e.loses_restrictions),
        }
    }
}

#[test]
fn check_accepts_any_tool_and_input() {
    let tmp = tempfile::tempdir().unwrap();
    for (tool, input) in [
        ("mcp__not_connected__tool", json!({"anything": [1, 2]})),
        ("Bash", json!({})),
        ("Bash", json!({"command": 42})),
        ("Read", json!({"file_path": null})),
        ("Edit", json!("not an object")),
        ("WebFetch", json!({"url": "http://[::1]:80/"})),
        ("", json!({})),
    ] {
        let report =
            gatehouse_permissions::check(&CheckRequest::new(tmp.path(), tmp.path(), tool, input));
        assert!(!report.trace.is_empty(), "{tool}");
    }
}

/// Inputs the fuzzers found; each once crashed or misled the analyser.
#[test]
fn fuzz_regressions() {
    let cases = [
        // brush-parser 0.4 exhausted memory on an empty here-document
        // delimiter followed by blanks at the end of input.
        "''''''f  I ino= ;  d*[[$z -eq 1 ]]  |\"'<<''''''<Vlchorm $(",
        "cat <<'' ",
        "cat <<\"\" ",
        "cat <<-'' ",
        // ... and loops forever on `<<` followed by another operator.
        "\"$(c&.\n <<<<<<<< <<r <<< <<<<<<<< <<r ",
        "$(c << <<r ",
        "ls\nr \u{4d1}\\& \n~WWWf[ ls 0&&\\\\$(cat <<$[  ",
        "cat << '' ",
        // brush-parser 0.4 unwraps an overflowing file-descriptor number.
        "ech<>o 66666666666>6666666666686978302\0\0\0\u{2}66\u{0}6\0\0\0\0\0\u{14}\nE=OF\n)",
        "echo 99999999999>x",
        // ... and a directory-stack index after `~`.
        "\nx\n>~222222&\n>~2222&\n>~22ll\n>~#22#22\n>~222\n>~77777777777777777777777222222&\n>~2222&",
        "cd ~+99999999999999999999",
        "cd ~-99999999999999999999",
        "(( 99999999999999999999999 ))",
        "echo $((99999999999999999999999))",
        // Exponential backtracking in brush-parser 0.4 (18 s before the
        // grouping limit).
        "l rmx&(((((((((((((((((((((((>>&$ rm sh& $$$$$!\0\0\0\0x&>>& \u{a3}r&m\u{a3}$- ",
        // ... also inside double quotes (`$"…$( ((((…`).
        "ch<<EOF\nx\no $(ch$\"$((((oA,[or f in, *; do(((((((\0\0\0\0(in, *; do(((((((\0\0\0\0(_9\nEOF\n",
        // Exponential inside a here-document inside `$(…)` (16 parentheses).
        "echo echo $(cat <<EOF\nxo echo((ch$((*(((((7 \u{4}(!a\t\0\0\0\0\0\0\0cat <<EOF\nxo echo((ch$((*(((((7 \u{4}(!a\t\0t\nEKF\necho $(<<E<\u{69a}\\[[ -E\nEOF\n)0",
        // brush-parser's word parser reads an unparseable `$(…)` as text.
        "echo $(cat <<EOF\nxo echo((ch\nEOF\n)",
        // Endless allocation: a here-document inside an unterminated `$(`.
        "RRRRRRl $(catFE\nO<<\t F&\t\t",
        "$(c\nO<<  F&\t\t",
        // brush's arithmetic parser backtracks exponentially.
        "fo<&h]]\u{7f}o r && ((ZZZZZ&Z^ZZZZZZZZ&Z^ZZZ[ZZZZZZZZZAZZZ&Z^ZZZ[ZZZZZ[ZZZZZZZZZAZZZ&Z^ZZZ[ZZZZZZZZZAs>)); $",
        // brush's word parser is slow on many unbalanced `${` in one word.
        "echo0$*(a c~xargs\0\0\0\0${f,h,c]\0EOI=M${fh,cM${f,,c]\0EOf\"F\0${fh,c]\0EO0000000I${fh,c$$$$\u{b}\0$$$s$$$]0000I${ c~xargs\0\0\0\0${f,h,c]\0EOI=M${fh,cM${f,,c]\0EOf\"F\0${fh,c]\0EfOI=M${h,c]\0EOI\na\nOI=nM$[{fh,cM$\0$f\"F\0${fh,c]\0EO0)",
        // A trailing backslash continues the line into what follows.
        "ec\\\\\\\\\\[\\\\FO\\",
    ];
    // The parser must not even panic (a panic is caught and fails closed,
    // but an app built with `panic = "abort"` would die).
    static PANICKED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(|info| {
        eprintln!("panic: {info}");
        PANICKED.store(true, std::sync::atomic::Ordering::SeqCst);
    }));
    // A watchdog, not a timing: a known hang (exponential backtracking,
    // endless allocation) would never finish, so the cases run on a thread
    // and the test fails if they have not finished after a generous minute.
    // How fast the analysis is belongs to the benchmarks.
    let (done, finished) = std::sync::mpsc::channel();
    let worker = std::thread::spawn(move || {
        for command in cases {
            let analysis = analyse(command, Path::new("/w"), Path::new("/h"));
            let appended = format!("{command}\n\nrm -rf x");
            let with_rm = analyse(&appended, Path::new("/w"), Path::new("/h"));
            assert!(
                !analysis.is_transparent() || !command.contains("$(cat"),
                "{command:?} hid a substitution"
            );
            assert!(
                !with_rm.is_transparent()
                    || with_rm
                        .commands
                        .iter()
                        .any(|c| c.core_text().starts_with("rm")),
                "{appended:?}"
            );
        }
        let _ = done.send(());
    });
    match finished.recv_timeout(std::time::Duration::from_secs(60)) {
        Ok(()) => worker.join().expect("the regression cases ran"),
        // The worker failed an assertion: report its panic.
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
            if let Err(panic) = worker.join() {
                std::panic::resume_unwind(panic);
            }
        }
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            panic!("the fuzz regressions did not finish within 60 s: a parser hang is back")
        }
    }
    std::panic::set_hook(previous);
    assert!(
        !PANICKED.load(std::sync::atomic::Ordering::SeqCst),
        "the parser panicked"
    );
}

/// A cloned repository chooses what `.claude/settings.json` is: a file far
/// larger than any settings file, or a symlink to `/dev/zero` (git keeps
/// symlinks), is refused with a message naming it, unread, and the engine
/// asks rather than allowing anything the file might have restricted.
#[test]
fn a_project_settings_file_that_is_huge_or_a_device_is_refused_unread() {
    use gatehouse_permissions::settings::MAX_SETTINGS_FILE_BYTES;
    use gatehouse_permissions::sources::{SettingsLayout, load};
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("repo");
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    let layout = SettingsLayout::new(&project, tmp.path().join("home"));

    // Valid JSON, only too large: read whole before, it parsed cleanly.
    let padding = " ".repeat(usize::try_from(MAX_SETTINGS_FILE_BYTES).unwrap());
    let huge = project.join(".claude/settings.json");
    std::fs::write(&huge, format!("{{{padding}}}")).unwrap();
    let loaded = load(&layout);
    let error = loaded
        .errors
        .iter()
        .find(|e| e.file == huge)
        .expect("the huge file is reported");
    assert_eq!(
        error.cause,
        format!(
            "the settings file is {} bytes; the limit is {MAX_SETTINGS_FILE_BYTES}",
            MAX_SETTINGS_FILE_BYTES + 2
        )
    );
    assert!(loaded.restrictions_lost());

    std::fs::remove_file(&huge).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &huge).unwrap();
    let loaded = load(&layout);
    let error = loaded.errors.iter().find(|e| e.file == huge).unwrap();
    assert_eq!(
        error.cause,
        "the settings file is not a regular file (it is a character device)"
    );
}
