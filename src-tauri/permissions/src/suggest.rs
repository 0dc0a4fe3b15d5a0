//! Rule suggestions for a permission prompt: the rules "allow for this
//! session" and "always allow" would add (SPEC §5, issue 9).
//!
//! Like Claude Code's, the suggestions are narrow enough to be safe and
//! broad enough to be worth remembering:
//!
//! * Bash: one rule per sub-command of a compound command (every
//!   sub-command must be allowed for the line to run). Sub-commands that
//!   are read-only, and `cd`, need no rule and are left out. Tools with
//!   sub-commands (`npm test`, `cargo build`, `git commit`…) get a prefix
//!   rule (`Bash(npm test:*)`); anything else gets its exact text. A
//!   command the analysis cannot see through gets no suggestion: no rule
//!   could allow it. A redirection into a file adds an Edit rule for it.
//! * Edit/Write/NotebookEdit: the file (`Edit(./src/main.rs)`).
//! * Read: the file's folder (`Read(./docs/**)`); Glob/Grep: the folder
//!   searched, which the rule then covers too (`Read(//opt/lib)`).
//! * WebFetch: the host (`WebFetch(domain:example.com)`).
//! * MCP tools: the tool (`mcp__srv__tool`).
//! * Anything else: the tool's name.
//!
//! Every suggestion parses as a rule and allows the call it was made for
//! (quotes, backslashes and stars of the command are kept and escaped, glob
//! characters of a path are escaped); one that would not parse is dropped.
//! Relative path rules mean a different file in every project, so a rule
//! for the user's own settings file is made absolute
//! ([`absolute_rules`]: `Edit(./a.md)` → `Edit(//work/proj/a.md)`).

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::paths::lexical_absolute;
use crate::rule::{EDIT_TOOLS, READ_TOOLS, parse_rule};
use crate::shell::readonly::{Classification, classify};
use crate::shell::{SimpleCommand, analyse, is_harmless_sink};

/// Programs whose second word names a sub-command, so a prefix rule over
/// the first two words means "this kind of command" (`npm test:*`).
const SUBCOMMAND_PROGRAMS: &[&str] = &[
    "npm",
    "pnpm",
    "yarn",
    "bun",
    "npx",
    "cargo",
    "git",
    "go",
    "docker",
    "podman",
    "kubectl",
    "helm",
    "pip",
    "pip3",
    "uv",
    "poetry",
    "make",
    "gh",
    "dotnet",
    "mvn",
    "gradle",
    "deno",
    "rustup",
    "terraform",
    "brew",
    "apt",
    "composer",
    "bundle",
    "mix",
    "just",
    "nix",
];

/// Sub-commands after which a third word is the real target
/// (`npm run build`, `cargo +nightly`, `uv run pytest`).
const RUNNER_SUBCOMMANDS: &[&str] = &["run", "exec", "x", "run-script", "dlx"];

/// The rules that would allow this call from now on, most specific first,
/// deduplicated. `cwd` is the session's working directory (paths inside it
/// are suggested relative to it). Empty when no rule could allow the call.
pub fn suggest_rules(tool_name: &str, input: &Value, cwd: &Path) -> Vec<String> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    suggest_rules_with_home(tool_name, input, cwd, home.as_deref())
}

/// [`suggest_rules`] with an explicit home directory (`~/` anchors), for
/// hermetic callers and tests.
pub fn suggest_rules_with_home(
    tool_name: &str,
    input: &Value,
    cwd: &Path,
    home: Option<&Path>,
) -> Vec<String> {
    let text = |key: &str| input.get(key).and_then(Value::as_str);
    let raw: Vec<String> = match tool_name {
        "Bash" => text("command").map_or_else(Vec::new, |c| bash_rules(c, cwd, home)),
        t if EDIT_TOOLS.contains(&t) => ["file_path", "notebook_path", "path"]
            .iter()
            .find_map(|k| text(k))
            .map(|p| vec![format!("Edit({})", path_pattern(Path::new(p), cwd, home))])
            .unwrap_or_default(),
        t if READ_TOOLS.contains(&t) => {
            // A file's folder, or the folder searched (Glob/Grep), which is
            // then the subject itself: `dir/**` would not cover it, `dir`
            // covers it and everything below, like a gitignore entry.
            let (folder, searched) =
                match (text("file_path").or(text("notebook_path")), text("path")) {
                    (Some(file), _) => (
                        Path::new(file)
                            .parent()
                            .map_or_else(|| cwd.to_path_buf(), Path::to_path_buf),
                        false,
                    ),
                    (None, Some(dir)) => (PathBuf::from(dir), true),
                    (None, None) => (cwd.to_path_buf(), true),
                };
            let pattern = path_pattern(&folder, cwd, home);
            let rule = if pattern == "." {
                "Read(./**)".to_owned()
            } else if searched {
                format!("Read({})", pattern.trim_end_matches('/'))
            } else {
                format!("Read({}/**)", pattern.trim_end_matches('/'))
            };
            vec![rule]
        }
        "WebFetch" => text("url")
            .and_then(crate::domain::url_host)
            .map(|host| vec![format!("WebFetch(domain:{host})")])
            .unwrap_or_default(),
        // "Always allow" loading this skill, not every skill.
        "Skill" => text("skill")
            .map(str::trim)
            .filter(|name| !name.is_empty())
            .map(|name| vec![format!("Skill({name})")])
            .unwrap_or_default(),
        other => vec![other.to_owned()],
    };
    let mut out: Vec<String> = Vec::new();
    for rule in raw {
        if parse_rule(&rule).is_ok() && !out.contains(&rule) {
            out.push(rule);
        }
    }
    out
}

/// One rule per sub-command that needs one.
fn bash_rules(command: &str, cwd: &Path, home: Option<&Path>) -> Vec<String> {
    let root = Path::new("/");
    let analysis = analyse(command, cwd, home.unwrap_or(root));
    if !analysis.is_transparent() || analysis.commands.is_empty() {
        return Vec::new();
    }
    let needing: Vec<&SimpleCommand> = analysis
        .commands
        .iter()
        .filter(|c| !c.hidden && c.name().is_some())
        .filter(|c| c.name() != Some("cd"))
        .filter(|c| {
            !(c.assignments.is_empty() && classify(c.core_words()) == Classification::ReadOnly)
        })
        .collect();
    let mut rules: Vec<String> = needing.into_iter().map(bash_rule).collect();
    // Redirections into files are writes, checked like Edit.
    for access in &analysis.accesses {
        if let Some(path) = access
            .path
            .as_deref()
            .filter(|p| access.write && !is_harmless_sink(p))
        {
            rules.push(format!("Edit({})", path_pattern(path, cwd, home)));
        }
    }
    rules
}

/// `Bash(prefix:*)` for a program with sub-commands, else the exact text.
fn bash_rule(command: &SimpleCommand) -> String {
    let words: Vec<&str> = command
        .core_words()
        .iter()
        .map(|w| w.text.as_str())
        .collect();
    // The command as written, quotes kept: the engine matches allow rules
    // against that spelling too, and it is what the user reads.
    let exact = escape_command(&command.core_raw_text());
    let Some((program, rest)) = words.split_first() else {
        return format!("Bash({exact})");
    };
    let program_name = program.rsplit('/').next().unwrap_or(program);
    let is_word = |w: &&&str| !w.starts_with('-') && !w.contains(['*', '?', '[', '(', ')']);
    if SUBCOMMAND_PROGRAMS.contains(&program_name)
        && let Some(sub) = rest.first().filter(is_word)
    {
        let mut prefix = vec![*program, *sub];
        if RUNNER_SUBCOMMANDS.contains(sub)
            && let Some(target) = rest.get(1).filter(is_word)
        {
            prefix.push(*target);
        }
        if prefix.len() < words.len() {
            return format!("Bash({}:*)", escape_command(&prefix.join(" ")));
        }
    }
    format!("Bash({exact})")
}

/// A path as a rule pattern: `./rel` inside `cwd`, `~/rel` inside the home
/// directory, `//abs` elsewhere (the anchors of Claude Code's path rules).
/// Glob characters in the path are escaped, so the rule names this path.
fn path_pattern(path: &Path, cwd: &Path, home: Option<&Path>) -> String {
    let absolute = lexical_absolute(cwd, path);
    if let Ok(rel) = absolute.strip_prefix(cwd) {
        let rel = rel.to_string_lossy();
        return if rel.is_empty() {
            ".".to_owned()
        } else {
            format!("./{}", escape_path(&rel))
        };
    }
    if let Some(home) = home
        && let Ok(rel) = absolute.strip_prefix(home)
    {
        return format!("~/{}", escape_path(&rel.to_string_lossy()));
    }
    format!("/{}", escape_path(&absolute.to_string_lossy()))
}

/// A command as a Bash rule specifier: `\` and `*` escaped (a rule's `\\`
/// is one backslash, and `\*` a literal star), so the rule matches this
/// exact text.
fn escape_command(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '*' => out.push_str("\\*"),
            other => out.push(other),
        }
    }
    out
}

/// A path as the literal part of a path rule: glob characters escaped for
/// the glob (`\[`), and each backslash doubled twice (once for the glob,
/// once for the rule's own `\\` escape).
fn escape_path(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '*' | '?' | '[' | ']' | '{' | '}' => {
                out.push('\\');
                out.push(c);
            }
            '\\' => out.push_str("\\\\\\\\"),
            other => out.push(other),
        }
    }
    out
}

/// The rules for the user's own settings file (`~/.claude/settings.json`,
/// read in every project): each path rule relative to `cwd` (`./…`, as
/// [`suggest_rules`] makes them) becomes absolute (`//…`), since there it
/// would name a different file in every project. Other rules are kept.
pub fn absolute_rules(rules: &[String], cwd: &Path) -> Vec<String> {
    rules
        .iter()
        .map(|rule| absolute_rule(rule, cwd).unwrap_or_else(|| rule.clone()))
        .collect()
}

fn absolute_rule(rule: &str, cwd: &Path) -> Option<String> {
    let parsed = parse_rule(rule).ok()?;
    let crate::rule::Specifier::Path(pattern) = &parsed.specifier else {
        return None;
    };
    let rest = if pattern == "." {
        ""
    } else {
        pattern.strip_prefix("./")?
    };
    let tool = &rule.trim()[..rule.trim().find('(')?];
    let base = escape_path(&cwd.to_string_lossy());
    let base = base.trim_end_matches('/');
    let absolute = if rest.is_empty() {
        format!("{tool}(/{base})")
    } else {
        format!("{tool}(/{base}/{})", escape_rule_text(rest))
    };
    parse_rule(&absolute).ok().map(|_| absolute)
}

/// Re-escapes a specifier's backslashes for a rule (`unescape` undid them).
fn escape_rule_text(text: &str) -> String {
    text.replace('\\', "\\\\")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn suggest(tool: &str, input: Value) -> Vec<String> {
        suggest_rules_with_home(
            tool,
            &input,
            Path::new("/work/proj"),
            Some(Path::new("/home/u")),
        )
    }

    #[test]
    fn a_skill_call_suggests_that_skill_only() {
        assert_eq!(suggest("Skill", json!({"skill": " pdf "})), ["Skill(pdf)"]);
        assert!(suggest("Skill", json!({"skill": ""})).is_empty());
    }

    #[test]
    fn a_compound_command_gets_one_rule_per_sub_command() {
        assert_eq!(
            suggest(
                "Bash",
                json!({"command": "npm test -- --watch=false && cargo build --release; ./deploy.sh prod"})
            ),
            [
                "Bash(npm test:*)",
                "Bash(cargo build:*)",
                "Bash(./deploy.sh prod)"
            ]
        );
    }

    #[test]
    fn runners_keep_their_target_and_bare_commands_stay_exact() {
        assert_eq!(
            suggest("Bash", json!({"command": "npm run build --silent"})),
            ["Bash(npm run build:*)"]
        );
        assert_eq!(
            suggest("Bash", json!({"command": "npm test"})),
            ["Bash(npm test)"]
        );
        assert_eq!(
            suggest("Bash", json!({"command": "rm -rf build"})),
            ["Bash(rm -rf build)"],
            "no prefix for programs without sub-commands: `rm:*` would be far too broad"
        );
        assert_eq!(
            suggest("Bash", json!({"command": "git -C x push"})),
            ["Bash(git -C x push)"],
            "a flag where the sub-command should be gets the exact text"
        );
    }

    #[test]
    fn read_only_parts_and_cd_need_no_rule_and_repeats_are_merged() {
        assert_eq!(
            suggest(
                "Bash",
                json!({"command": "cd sub && ls -la | grep x && make test && make test"})
            ),
            ["Bash(make test)"]
        );
    }

    #[test]
    fn redirections_into_files_need_edit_rules() {
        assert_eq!(
            suggest("Bash", json!({"command": "echo hi > out.txt 2>/dev/null"})),
            ["Edit(./out.txt)"]
        );
    }

    #[test]
    fn opaque_commands_get_no_suggestion() {
        assert!(suggest("Bash", json!({"command": "echo $(rm -rf /)"})).is_empty());
        assert!(suggest("Bash", json!({"command": "eval \"$X\""})).is_empty());
        assert!(suggest("Bash", json!({})).is_empty());
    }

    #[test]
    fn file_tools_get_path_rules_with_the_right_anchor() {
        assert_eq!(
            suggest("Edit", json!({"file_path": "/work/proj/src/main.rs"})),
            ["Edit(./src/main.rs)"]
        );
        assert_eq!(
            suggest("Write", json!({"file_path": "/home/u/notes.txt"})),
            ["Edit(~/notes.txt)"]
        );
        assert_eq!(
            suggest("Edit", json!({"file_path": "/etc/hosts"})),
            ["Edit(//etc/hosts)"]
        );
        assert_eq!(
            suggest("Read", json!({"file_path": "/work/proj/docs/a.md"})),
            ["Read(./docs/**)"]
        );
        assert_eq!(suggest("Grep", json!({"pattern": "x"})), ["Read(./**)"]);
        assert_eq!(
            suggest("Glob", json!({"pattern": "*.rs", "path": "/opt/lib"})),
            ["Read(//opt/lib)"]
        );
    }

    #[test]
    fn web_fetch_mcp_and_other_tools() {
        assert_eq!(
            suggest("WebFetch", json!({"url": "https://Docs.Example.com/a?b"})),
            ["WebFetch(domain:docs.example.com)"]
        );
        assert!(suggest("WebFetch", json!({"url": "not a url"})).is_empty());
        assert_eq!(
            suggest("mcp__github__create_issue", json!({})),
            ["mcp__github__create_issue"]
        );
        assert_eq!(suggest("TaskStop", json!({})), ["TaskStop"]);
    }

    /// An engine over `cwd` with the user settings of `home` (no project
    /// rules), in default mode.
    fn engine_for(cwd: &Path, home: &Path) -> crate::engine::PermissionEngine {
        use crate::{EngineContext, sources};
        let settings = sources::load(&sources::SettingsLayout::new(cwd, home));
        crate::engine::PermissionEngine::new(
            EngineContext {
                cwd: cwd.to_path_buf(),
                home: home.to_path_buf(),
                additional_dirs: Vec::new(),
                mode: gatehouse_protocol::permission::PermissionMode::Default,
            },
            settings,
        )
    }

    /// One call of every suggestion kind: compound commands, quoted
    /// arguments (single, double, escaped quotes), pipes, environment
    /// prefixes, stars and backslashes in arguments, redirections into
    /// files with spaces in their names, file tools on paths with spaces
    /// and glob characters, folders outside the project, web fetches, MCP
    /// and other tools.
    fn every_kind_of_call(cwd: &Path, home: &Path) -> Vec<(&'static str, Value)> {
        vec![
            ("Bash", json!({"command": "npm test -- --x && cargo build"})),
            (
                "Bash",
                json!({"command": r#"python3 -c 'from src.greeter import greet; print(greet("Ada"))'"#}),
            ),
            (
                "Bash",
                json!({"command": r#"python3 -c "print(\"quoted\")""#}),
            ),
            (
                "Bash",
                json!({"command": "cat a.txt | python3 -c 'import sys; print(sys.stdin.read())' | sort"}),
            ),
            (
                "Bash",
                json!({"command": "DEBUG=1 ./run.sh 'two words' \"x y\""}),
            ),
            ("Bash", json!({"command": "env LANG=C ./run.sh --fast"})),
            ("Bash", json!({"command": "./tool.sh 'a*b' \"c * d\""})),
            ("Bash", json!({"command": r"./tool.sh a\ b 'back\slash'"})),
            (
                "Bash",
                json!({"command": "git commit -m \"fix: a (b) * c\""}),
            ),
            ("Bash", json!({"command": "echo hi > out.txt"})),
            ("Bash", json!({"command": "echo hi >> \"my notes.txt\""})),
            (
                "Edit",
                json!({"file_path": cwd.join("src/a.rs"), "old_string": "a", "new_string": "b"}),
            ),
            (
                "Write",
                json!({"file_path": cwd.join("my docs/a b.md"), "content": "x"}),
            ),
            (
                "Write",
                json!({"file_path": cwd.join("odd/[draft] a*b?.md"), "content": "x"}),
            ),
            (
                "NotebookEdit",
                json!({"notebook_path": cwd.join("nb (copy).ipynb"), "new_source": "x"}),
            ),
            (
                "Write",
                json!({"file_path": home.join("notes.txt"), "content": "x"}),
            ),
            ("Read", json!({"file_path": home.join("some docs/a.md")})),
            ("Glob", json!({"pattern": "*.rs", "path": home.join("lib")})),
            (
                "WebFetch",
                json!({"url": "https://example.com/x", "prompt": "p"}),
            ),
            ("mcp__github__create_issue", json!({"title": "t"})),
            ("TodoWrite", json!({"todos": []})),
        ]
    }

    #[test]
    fn every_suggestion_allows_the_call_it_was_made_for() {
        use crate::rule::RuleKind;
        use gatehouse_protocol::permission::PermissionBehavior;
        let project = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let cwd = project.path().canonicalize().unwrap();
        let home = home.path().canonicalize().unwrap();
        for (tool, input) in every_kind_of_call(&cwd, &home) {
            let engine = engine_for(&cwd, &home);
            assert_ne!(
                engine.decide_input(tool, &input).decision,
                PermissionBehavior::Allow,
                "{tool} {input} must ask before the rules are added"
            );
            let rules = suggest_rules_with_home(tool, &input, &cwd, Some(&home));
            assert!(!rules.is_empty(), "{tool} {input}: no suggestion");
            for rule in &rules {
                engine.add_session_rule(RuleKind::Allow, rule).unwrap();
            }
            let decision = engine.decide_input(tool, &input);
            assert_eq!(
                decision.decision,
                PermissionBehavior::Allow,
                "{tool} {input}: the suggestions {rules:?} allow the call: {decision:?}"
            );
        }
    }

    #[test]
    fn quoted_arguments_keep_their_quotes_and_stars_are_escaped() {
        assert_eq!(
            suggest(
                "Bash",
                json!({"command": r#"python3 -c 'from src.greeter import greet; print(greet("Ada"))'"#})
            ),
            [r#"Bash(python3 -c 'from src.greeter import greet; print(greet("Ada"))')"#]
        );
        assert_eq!(
            suggest("Bash", json!({"command": "./tool.sh 'a*b'"})),
            [r"Bash(./tool.sh 'a\*b')"]
        );
        assert_eq!(
            suggest("Write", json!({"file_path": "/work/proj/odd/[x] a*.md"})),
            [r"Edit(./odd/\[x\] a\*.md)"]
        );
        // A star from the command is not a wildcard in its rule: the rule
        // allows that command, not every command of its shape.
        use crate::rule::RuleKind;
        use gatehouse_protocol::permission::PermissionBehavior;
        let tmp = tempfile::tempdir().unwrap();
        let cwd = tmp.path().canonicalize().unwrap();
        let starred = json!({"command": "./tool.sh 'a*b'"});
        let engine = engine_for(&cwd, &cwd);
        for rule in suggest_rules_with_home("Bash", &starred, &cwd, None) {
            engine.add_session_rule(RuleKind::Allow, &rule).unwrap();
        }
        assert_eq!(
            engine.decide_input("Bash", &starred).decision,
            PermissionBehavior::Allow
        );
        let other = json!({"command": "./tool.sh 'a; rm -rf x; b'"});
        assert_ne!(
            engine.decide_input("Bash", &other).decision,
            PermissionBehavior::Allow
        );
        let other = json!({"command": "./tool.sh aXYZb"});
        assert_ne!(
            engine.decide_input("Bash", &other).decision,
            PermissionBehavior::Allow
        );
    }

    #[test]
    fn rules_for_the_user_file_are_absolute_and_mean_this_project_only() {
        use crate::rule::RuleKind;
        use gatehouse_protocol::permission::PermissionBehavior;
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        let (cwd, other, home) = (root.join("proj"), root.join("other"), root.join("home"));
        for d in [&cwd, &other, &home] {
            std::fs::create_dir_all(d).unwrap();
        }
        assert_eq!(
            absolute_rules(
                &[
                    "Edit(./NOTES.md)".to_string(),
                    "Read(./**)".to_string(),
                    "Edit(~/x)".to_string(),
                    "Bash(npm test:*)".to_string(),
                ],
                Path::new("/work/proj")
            ),
            [
                "Edit(//work/proj/NOTES.md)",
                "Read(//work/proj/**)",
                "Edit(~/x)",
                "Bash(npm test:*)"
            ]
        );
        let user_file = home.join(".claude/settings.json");
        for (tool, input) in every_kind_of_call(&cwd, &home) {
            let rules = suggest_rules_with_home(tool, &input, &cwd, Some(&home));
            for rule in absolute_rules(&rules, &cwd) {
                assert!(
                    !(rule.starts_with("Edit(./") || rule.starts_with("Read(./")),
                    "{rule}: no path rule for the user file is relative"
                );
                crate::writeback::add_rule(&user_file, RuleKind::Allow, &rule).unwrap();
            }
        }
        // Every call of the project now runs, read from the user's file.
        for (tool, input) in every_kind_of_call(&cwd, &home) {
            let decision = engine_for(&cwd, &home).decide_input(tool, &input);
            assert_eq!(
                decision.decision,
                PermissionBehavior::Allow,
                "{tool} {input}: {decision:?}"
            );
        }
        // The same relative file in another project is not covered.
        let elsewhere =
            json!({"file_path": other.join("src/a.rs"), "old_string": "a", "new_string": "b"});
        assert_ne!(
            engine_for(&other, &home)
                .decide_input("Edit", &elsewhere)
                .decision,
            PermissionBehavior::Allow
        );
    }
}
