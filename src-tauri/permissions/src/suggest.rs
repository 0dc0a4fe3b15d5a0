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
//! * Read/Glob/Grep: the folder (`Read(./docs/**)`).
//! * WebFetch: the host (`WebFetch(domain:example.com)`).
//! * MCP tools: the tool (`mcp__srv__tool`).
//! * Anything else: the tool's name.
//!
//! Every suggestion parses as a rule; one that would not is dropped.

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
            let folder = match (text("file_path").or(text("notebook_path")), text("path")) {
                (Some(file), _) => Path::new(file)
                    .parent()
                    .map_or_else(|| cwd.to_path_buf(), Path::to_path_buf),
                (None, Some(dir)) => PathBuf::from(dir),
                (None, None) => cwd.to_path_buf(),
            };
            let pattern = path_pattern(&folder, cwd, home);
            let rule = if pattern == "." {
                "Read(./**)".to_owned()
            } else {
                format!("Read({}/**)", pattern.trim_end_matches('/'))
            };
            vec![rule]
        }
        "WebFetch" => text("url")
            .and_then(crate::domain::url_host)
            .map(|host| vec![format!("WebFetch(domain:{host})")])
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
    let exact = command.core_text();
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
            return format!("Bash({}:*)", prefix.join(" "));
        }
    }
    format!("Bash({exact})")
}

/// A path as a rule pattern: `./rel` inside `cwd`, `~/rel` inside the home
/// directory, `//abs` elsewhere (the anchors of Claude Code's path rules).
fn path_pattern(path: &Path, cwd: &Path, home: Option<&Path>) -> String {
    let absolute = lexical_absolute(cwd, path);
    if let Ok(rel) = absolute.strip_prefix(cwd) {
        let rel = rel.to_string_lossy();
        return if rel.is_empty() {
            ".".to_owned()
        } else {
            format!("./{rel}")
        };
    }
    if let Some(home) = home
        && let Ok(rel) = absolute.strip_prefix(home)
    {
        return format!("~/{}", rel.to_string_lossy());
    }
    format!("/{}", absolute.to_string_lossy())
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
            ["Read(//opt/lib/**)"]
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

    #[test]
    fn every_suggestion_allows_the_call_it_was_made_for() {
        use crate::engine::PermissionEngine;
        use crate::rule::RuleKind;
        use crate::{EngineContext, sources};
        use gatehouse_protocol::permission::{PermissionBehavior, PermissionMode};
        let project = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let cwd = project.path().canonicalize().unwrap();
        let settings = sources::load(&sources::SettingsLayout {
            project_dir: cwd.clone(),
            home_dir: home.path().to_path_buf(),
            managed_file: None,
            managed_dropin_dir: None,
            flag_files: Vec::new(),
            flag_rules: Vec::new(),
            project_trusted: false,
        });
        let engine = PermissionEngine::new(
            EngineContext {
                cwd: cwd.clone(),
                home: home.path().to_path_buf(),
                additional_dirs: Vec::new(),
                mode: PermissionMode::Default,
            },
            settings,
        );
        let calls = [
            ("Bash", json!({"command": "npm test -- --x && cargo build"})),
            ("Bash", json!({"command": "echo hi > out.txt"})),
            (
                "Edit",
                json!({"file_path": cwd.join("src/a.rs"), "old_string": "a", "new_string": "b"}),
            ),
            (
                "WebFetch",
                json!({"url": "https://example.com/x", "prompt": "p"}),
            ),
        ];
        for (tool, input) in calls {
            assert_ne!(
                engine.decide_input(tool, &input).decision,
                PermissionBehavior::Allow,
                "{tool} must ask before the rules are added"
            );
            for rule in suggest_rules(tool, &input, &cwd) {
                engine.add_session_rule(RuleKind::Allow, &rule).unwrap();
            }
            assert_eq!(
                engine.decide_input(tool, &input).decision,
                PermissionBehavior::Allow,
                "{tool}: the suggestions allow the call"
            );
        }
    }
}
