//! Skills in a headless session (issue 21 item 5), with real files, a real
//! git repository, real commands and every ask refused: a skill's
//! `allowed-tools` lets its commands run unasked until the turn ends (the
//! decision says which skill), never past a deny rule; an untrusted
//! project's skills are not loaded; a malformed SKILL.md is a warning with
//! its file and line; an unknown skill is an error naming the ones there
//! are.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use gatehouse_agent::provider::replay::{ReplayProvider, Script};
use gatehouse_core::events::MemorySink;
use gatehouse_protocol::event::{Event, EventBody};
use gatehouse_protocol::permission::{
    DecisionReason, PermissionBehavior, PermissionMode, RuleSource,
};
use gatehouse_session::host::AskPolicy;
use gatehouse_session::{HostConfig, SessionHost, StartSpec};
use serde_json::{Value, json};

mod common;
use common::{completed, text, tool};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

struct Fixture {
    _data: tempfile::TempDir,
    home: tempfile::TempDir,
    project: tempfile::TempDir,
    sink: Arc<MemorySink>,
    host: SessionHost,
}

impl Fixture {
    fn new() -> Self {
        let data = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        let git = |args: &[&str]| {
            let out = Command::new("git")
                .args(args)
                .current_dir(project.path())
                .output()
                .unwrap();
            assert!(out.status.success(), "git {args:?}: {out:?}");
        };
        git(&["init", "-q"]);
        write(&project.path().join("README.md"), "hello\n");
        write(&project.path().join("secret.txt"), "hunter2\n");
        // The user's skill: it may run `git add` while it runs.
        let skill = home.path().join(".claude/skills/git-report/SKILL.md");
        write(
            &skill,
            "---\nname: git-report\ndescription: Reports the state of the repository\nallowed-tools: Bash(git add:*), Read\n---\nStage the files with `git add` and report.\n",
        );
        write(
            &skill.with_file_name("reference.md"),
            "# What the columns mean\n",
        );
        write(
            &home.path().join(".claude/skills/plain/SKILL.md"),
            "---\ndescription: Only words, no tools\n---\nSay hello.\n",
        );
        // A malformed one: an allowed-tools entry that is not a rule.
        write(
            &home.path().join(".claude/skills/broken/SKILL.md"),
            "---\ndescription: Broken\nallowed-tools: Bash(git status\n---\nbody\n",
        );
        // A folder without SKILL.md.
        write(
            &home.path().join(".claude/skills/notes/todo.md"),
            "not a skill\n",
        );
        // The project's own skill: not loaded while the project is untrusted.
        write(
            &project.path().join(".claude/skills/self-grant/SKILL.md"),
            "---\ndescription: Grants everything\nallowed-tools: Bash\n---\nrun anything\n",
        );
        // The user allows loading skills and denies one git command.
        write(
            &home.path().join(".claude/settings.json"),
            &json!({"permissions": {"allow": ["Skill"], "deny": ["Bash(git add secret.txt)"]}})
                .to_string(),
        );
        let sink = Arc::new(MemorySink::new());
        let mut config = HostConfig::new(data.path().to_path_buf());
        config.home = home.path().to_path_buf();
        let host =
            SessionHost::new(config, sink.clone(), tokio::runtime::Handle::current()).unwrap();
        Self {
            _data: data,
            home,
            project,
            sink,
            host,
        }
    }

    fn dir(&self) -> PathBuf {
        self.project.path().canonicalize().unwrap()
    }

    async fn start(&self, turns: Value) -> (String, Vec<String>) {
        let script = Script::parse(&json!({ "turns": turns }).to_string())
            .unwrap()
            .with_project_dir(&self.dir());
        let started = self
            .host
            .start(StartSpec {
                project: self.dir(),
                provider: Arc::new(ReplayProvider::new(script)),
                model: "replay".into(),
                mode: Some(PermissionMode::Default),
                trust_project: false,
                ask: AskPolicy::DenyAll,
                resume: None,
                settings_files: Vec::new(),
                mcp_startup_timeout: None,
            })
            .await
            .unwrap();
        (started.handle.session_id, started.warnings)
    }

    async fn prompt(&self, id: &str, text: &str) {
        let ticket = self.host.send_prompt(id, text).unwrap();
        tokio::time::timeout(Duration::from_secs(60), ticket.wait())
            .await
            .expect("the exchange ends")
            .expect("the session stays open");
    }

    /// The files staged in the project's repository.
    fn staged(&self) -> Vec<String> {
        let out = Command::new("git")
            .args(["diff", "--cached", "--name-only"])
            .current_dir(self.project.path())
            .output()
            .unwrap();
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    fn decision(&self, id: &str) -> (PermissionBehavior, DecisionReason, String) {
        self.sink
            .events()
            .into_iter()
            .find_map(|e: Event| match e.body {
                EventBody::PermissionDecided {
                    tool_use_id,
                    decision,
                    reason,
                    trace,
                } if tool_use_id == id => Some((
                    decision,
                    reason,
                    trace
                        .iter()
                        .map(|s| s.detail.clone())
                        .collect::<Vec<_>>()
                        .join(" | "),
                )),
                _ => None,
            })
            .unwrap_or_else(|| panic!("no permission_decided for {id}"))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_skill_grants_its_tools_until_the_turn_ends_and_never_past_a_deny_rule() {
    let f = Fixture::new();
    let (id, warnings) = f
        .start(json!([
            // Turn 1: load the skill, then use what it grants.
            tool("s1", "Skill", json!({"skill": "git-report", "args": "short"})),
            {"content": [
                {"type": "tool_use", "id": "b1", "name": "Bash", "input": {"command": "git add README.md"}},
                {"type": "tool_use", "id": "b2", "name": "Bash", "input": {"command": "git add secret.txt"}},
                {"type": "tool_use", "id": "b3", "name": "Bash", "input": {"command": "git commit -m first"}}
            ]},
            text("README.md is staged."),
            // Turn 2: the skill's grant is over.
            tool("b4", "Bash", json!({"command": "git add secret.txt README.md"})),
            text("Asked again."),
        ]))
        .await;

    // What the session said about its skills when it started.
    let joined = warnings.join("\n");
    assert!(
        joined.contains("skills/broken/SKILL.md:3:")
            && joined.contains("`allowed-tools` entry `Bash(git status` is not a permission rule"),
        "{joined}"
    );
    assert!(
        joined.contains("skills/notes: the folder has no SKILL.md"),
        "{joined}"
    );

    f.prompt(&id, "report the repository").await;
    let events = f.sink.events();

    // The Skill call: its instructions, its folder's other files and grants.
    let (is_error, content) = completed(&events, "s1");
    assert!(!is_error, "{content}");
    let skill_dir = f.home.path().join(".claude/skills/git-report");
    for needle in [
        format!("Base directory for this skill: {}", skill_dir.display()),
        "Stage the files with `git add` and report.".to_owned(),
        "ARGUMENTS: short".to_owned(),
        format!("- {}", skill_dir.join("reference.md").display()),
        "Bash(git add:*), Read".to_owned(),
    ] {
        assert!(content.contains(&needle), "{needle:?} not in {content}");
    }
    assert!(
        !content.contains("SKILL.md\\n"),
        "SKILL.md itself is not listed: {content}"
    );

    // `git add` ran unasked, allowed by the skill (typed source, the skill
    // named in the trace).
    let (decision, reason, trace) = f.decision("b1");
    assert_eq!(decision, PermissionBehavior::Allow, "{trace}");
    match reason {
        DecisionReason::Rule { rule, source, file } => {
            assert_eq!(rule, "Bash(git add:*)");
            assert_eq!(source, RuleSource::Skill);
            assert!(file.unwrap().ends_with("git-report/SKILL.md"));
        }
        other => panic!("allowed for another reason: {other:?}"),
    }
    assert!(trace.contains("skill `git-report`"), "{trace}");
    let (is_error, content) = completed(&events, "b1");
    assert!(!is_error, "{content}");
    assert_eq!(f.staged(), ["README.md"]);

    // A deny rule still denies what the skill grants.
    let (decision, reason, _) = f.decision("b2");
    assert_eq!(decision, PermissionBehavior::Deny);
    assert!(
        matches!(
            &reason,
            DecisionReason::Rule {
                source: RuleSource::User,
                ..
            }
        ),
        "{reason:?}"
    );
    // What the skill does not grant asks (and is refused in this headless run).
    let (decision, _, _) = f.decision("b3");
    assert_ne!(decision, PermissionBehavior::Allow);

    // The next turn: the grant is over, so `git add` asks again (and is
    // refused here): nothing more is staged.
    f.prompt(&id, "again").await;
    let (decision, reason, _) = f.decision("b4");
    assert_ne!(decision, PermissionBehavior::Allow, "{reason:?}");
    assert_eq!(f.staged(), ["README.md"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_or_untrusted_skill_is_an_error_naming_the_skills_there_are() {
    let f = Fixture::new();
    let (id, _) = f
        .start(json!([
            tool("s1", "Skill", json!({"skill": "self-grant"})),
            tool("s2", "Skill", json!({"skill": "broken"})),
            tool("s3", "Skill", json!({"skill": "plain"})),
            text("done"),
        ]))
        .await;
    f.prompt(&id, "use the skills").await;
    let events = f.sink.events();
    // The untrusted project's skill is not there.
    let (is_error, content) = completed(&events, "s1");
    assert!(is_error, "{content}");
    assert!(
        content.contains("Unknown skill: self-grant")
            && content.contains("Available skills: git-report, plain"),
        "{content}"
    );
    // A malformed one says where it is broken.
    let (is_error, content) = completed(&events, "s2");
    assert!(is_error, "{content}");
    assert!(
        content.contains("skills/broken/SKILL.md:3:") && content.contains("could not be loaded"),
        "{content}"
    );
    // A skill without allowed-tools only loads words, unasked.
    let (is_error, content) = completed(&events, "s3");
    assert!(!is_error && content.contains("Say hello."), "{content}");
    assert!(!content.contains("run without asking"), "{content}");
}
