//! Bash through the real bubblewrap sandbox (issue 24), with the real
//! permission engine: what runs confined, what runs outside, what
//! `autoAllowBashIfSandboxed` lets through, and the symlink-then-Edit
//! pattern. Without bwrap these tests fail, saying what to install.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use gatehouse_core::events::MemorySink;
use gatehouse_core::{CallStatus, Tool, ToolCallResult, ToolPool, ToolRuntime, ToolUseBlock};
use gatehouse_core::{ToolUseContext, events::Emitter};
use gatehouse_permissions::sandbox::BashSandboxRules;
use gatehouse_permissions::sources::{SettingsLayout, load};
use gatehouse_permissions::{EngineContext, PermissionEngine};
use gatehouse_protocol::event::EventBody;
use gatehouse_protocol::permission::{PermissionBehavior, PermissionMode};
use gatehouse_sandbox::{Sandbox, SandboxConfig, SandboxPolicy, find_bwrap};
use gatehouse_tools::bash::sandboxed::{BashSandbox, SandboxLauncher, SharedSandbox};
use gatehouse_tools::bash::{BashConfig, shell_tools};
use gatehouse_tools::tasks::TaskManager;
use gatehouse_tools::{FileStateCache, file_tools};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// The real engine, and a switch that turns the session's sandbox off
/// right after the next decision: the settings reload that lands between
/// a call's decision and its start.
struct ReloadAfterDecision {
    engine: Arc<PermissionEngine>,
    shared: SharedSandbox,
    armed: std::sync::atomic::AtomicBool,
}

impl gatehouse_core::permission::PermissionResolver for ReloadAfterDecision {
    fn is_blanket_denied(&self, tool_name: &str) -> bool {
        self.engine.is_blanket_denied(tool_name)
    }

    fn decide(
        &self,
        query: &gatehouse_core::permission::PermissionQuery<'_>,
    ) -> gatehouse_protocol::permission::PermissionDecision {
        let decision = self.engine.decide(query);
        if self.armed.swap(false, std::sync::atomic::Ordering::SeqCst) {
            // As the session does it: the engine's auto-allow first.
            self.engine.set_bash_sandbox(None);
            self.shared.replace(BashSandbox::Off);
        }
        decision
    }
}

struct Env {
    _dir: tempfile::TempDir,
    resolver: Arc<ReloadAfterDecision>,
    project: PathBuf,
    outside: PathBuf,
    rt: Arc<ToolRuntime>,
    sink: Arc<MemorySink>,
    ctx: ToolUseContext,
}

/// A session over a project outside `/tmp` (private in the sandbox) whose
/// Bash runs sandboxed as `sandbox_config` says, deciding with the real
/// engine in `mode` with `deny` rules; nobody answers asks (an ask is a
/// denial).
fn env(sandbox_config: SandboxConfig, deny: &[&str], mode: PermissionMode) -> Env {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let base = dir.path().canonicalize().unwrap();
    let (project, outside, home) = (
        base.join("project"),
        base.join("outside"),
        base.join("home"),
    );
    for d in [&project, &outside, &home] {
        std::fs::create_dir_all(d).unwrap();
    }
    let bwrap = find_bwrap(std::env::var_os("PATH").as_deref())
        .unwrap_or_else(|e| panic!("this test needs bubblewrap: {e}"));
    let sandbox = Sandbox::new(bwrap, SandboxPolicy::new(&home, None)).unwrap();
    let config = Arc::new(sandbox_config);
    let mut layout = SettingsLayout::new(&project, &home);
    layout.flag_rules = deny
        .iter()
        .map(|r| (gatehouse_permissions::rule::RuleKind::Deny, (*r).to_owned()))
        .collect();
    let engine = Arc::new(PermissionEngine::new(
        EngineContext {
            cwd: project.clone(),
            home: home.clone(),
            additional_dirs: Vec::new(),
            mode,
        },
        load(&layout),
    ));
    let excluded = Arc::clone(&config);
    engine.set_bash_sandbox(Some(BashSandboxRules {
        auto_allow: config.auto_allow,
        is_excluded: Arc::new(move |c| excluded.is_excluded(c)),
    }));
    let sink = Arc::new(MemorySink::new());
    let session = base.join("session");
    let tasks = TaskManager::new(session.join("tasks"), Emitter::new("s", sink.clone()));
    let mut bash = BashConfig::new(session.join("bash"));
    bash.sandbox = SharedSandbox::new(BashSandbox::On {
        launcher: Arc::new(SandboxLauncher::new(sandbox)),
        config,
    });
    let resolver = Arc::new(ReloadAfterDecision {
        engine,
        shared: bash.sandbox.clone(),
        armed: std::sync::atomic::AtomicBool::new(false),
    });
    let tools: Vec<Arc<dyn Tool>> = shell_tools(tasks, bash)
        .into_iter()
        .chain(file_tools(FileStateCache::new()))
        .collect();
    let rt = ToolRuntime::builder(Arc::new(ToolPool::new(tools)), resolver.clone(), &session)
        .session_id("s")
        .event_sink(sink.clone())
        .build();
    let ctx = ToolUseContext {
        session_id: "s".into(),
        cwd: project.clone(),
        ..ToolUseContext::default()
    };
    Env {
        _dir: dir,
        resolver,
        project,
        outside,
        rt,
        sink,
        ctx,
    }
}

impl Env {
    async fn run(&mut self, id: &str, tool: &str, input: Value) -> ToolCallResult {
        self.rt
            .run_one(
                ToolUseBlock::new(id, tool, input),
                &mut self.ctx,
                &CancellationToken::new(),
            )
            .await
    }

    async fn bash(&mut self, id: &str, command: &str) -> ToolCallResult {
        self.run(id, "Bash", json!({ "command": command })).await
    }

    /// The `started` progress payload of one Bash call, as on the wire.
    fn started(&self, id: &str) -> Value {
        self.sink
            .events()
            .into_iter()
            .find_map(|e| match e.body {
                EventBody::ToolProgress { tool_use_id, data } if tool_use_id == id => {
                    Some(serde_json::to_value(data).unwrap())
                }
                _ => None,
            })
            .unwrap()
    }

    /// The progress payload of `kind` of one Bash call, as on the wire.
    fn progress(&self, id: &str, kind: &str) -> Option<Value> {
        self.sink.events().into_iter().find_map(|e| match e.body {
            EventBody::ToolProgress { tool_use_id, data } if tool_use_id == id => {
                let v = serde_json::to_value(data).unwrap();
                (v["kind"] == kind).then_some(v)
            }
            _ => None,
        })
    }

    /// The `permission_decided` of one call: behaviour and trace layers.
    fn decision(&self, id: &str) -> (PermissionBehavior, Vec<String>) {
        self.sink
            .events()
            .into_iter()
            .find_map(|e| match e.body {
                EventBody::PermissionDecided {
                    tool_use_id,
                    decision,
                    trace,
                    ..
                } if tool_use_id == id => Some((
                    decision,
                    trace
                        .iter()
                        .map(|s| format!("{}:{:?}", s.layer, s.outcome))
                        .collect(),
                )),
                _ => None,
            })
            .unwrap()
    }
}

/// `script` run from a file, so the engine's shell analysis sees only a
/// write of the file and an unknown command (which the sandbox
/// auto-allows): what the script does is up to the sandbox alone.
fn hidden(script: &str) -> String {
    format!("cat > s.sh <<'EOF'\n{script}\nEOF\nbash s.sh")
}

fn auto_allow() -> SandboxConfig {
    SandboxConfig {
        enabled: true,
        auto_allow: true,
        excluded_commands: vec!["touch".into()],
        ..SandboxConfig::default()
    }
}

#[tokio::test]
async fn sandboxed_bash_writes_inside_and_keeps_its_working_directory() {
    let mut e = env(auto_allow(), &[], PermissionMode::BypassPermissions);
    let r = e.bash("t1", "mkdir sub && cd sub && echo hi > f").await;
    assert_eq!(r.status, CallStatus::Succeeded, "{}", r.text());
    assert_eq!(
        std::fs::read_to_string(e.project.join("sub/f")).unwrap(),
        "hi\n"
    );
    // The cwd trailer lives in the host's /tmp, bound into the sandbox.
    let r = e.bash("t2", "pwd").await;
    assert_eq!(r.text(), e.project.join("sub").display().to_string());
    // The UI is told, in typed fields, that it ran sandboxed and how.
    let started = e.started("t1");
    assert_eq!(started["sandbox"]["state"], "sandboxed", "{started}");
    assert_eq!(started["sandbox"]["network"], "off", "{started}");
    assert_eq!(
        started["sandbox"]["writable_roots"],
        json!([e.project.display().to_string()])
    );
    let r = e.bash("t3", "touch x").await;
    assert_eq!(r.status, CallStatus::Succeeded, "{}", r.text());
    assert_eq!(e.started("t3")["sandbox"]["state"], "excluded");
}

#[tokio::test]
async fn a_background_command_runs_in_the_sandbox() {
    let mut e = env(auto_allow(), &[], PermissionMode::BypassPermissions);
    let target = e.outside.join("bg");
    let command = format!(
        "echo inside > bg.txt; echo x > {} 2>/dev/null; echo done > done.txt",
        target.display()
    );
    let r = e
        .run(
            "b1",
            "Bash",
            json!({ "command": command, "run_in_background": true }),
        )
        .await;
    assert_eq!(r.status, CallStatus::Succeeded, "{}", r.text());
    for _ in 0..200 {
        if e.project.join("done.txt").exists() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(
        std::fs::read_to_string(e.project.join("done.txt")).unwrap(),
        "done\n"
    );
    assert_eq!(
        std::fs::read_to_string(e.project.join("bg.txt")).unwrap(),
        "inside\n"
    );
    assert!(!target.exists(), "a background command escaped the sandbox");
}

#[tokio::test]
async fn sandboxed_bash_blocks_writes_outside_protected_paths_and_the_network() {
    let mut e = env(auto_allow(), &[], PermissionMode::BypassPermissions);
    std::fs::create_dir(e.project.join(".git")).unwrap();
    std::fs::write(e.project.join(".git/config"), "[core]\n").unwrap();
    let target = e.outside.join("x");
    for (id, command) in [
        ("w1", format!("echo x > {}", target.display())),
        // Hidden from the engine's analysis in a script, so the sandbox
        // itself is what refuses them.
        ("w2", hidden("echo evil >> .git/config")),
        (
            "w3",
            hidden("mkdir -p .claude && echo '{}' > .claude/settings.json"),
        ),
        ("n1", "getent hosts example.com".to_owned()),
        ("n2", "exec 3<>/dev/tcp/1.1.1.1/80".to_owned()),
    ] {
        let r = e.bash(id, &command).await;
        assert_eq!(r.status, CallStatus::Failed, "{command}: {}", r.text());
    }
    assert!(!target.exists());
    assert_eq!(
        std::fs::read_to_string(e.project.join(".git/config")).unwrap(),
        "[core]\n"
    );
    assert!(!e.project.join(".claude/settings.json").exists());
}

#[tokio::test]
async fn refused_writes_are_reported_beside_the_output_from_the_syscalls() {
    let mut e = env(auto_allow(), &[], PermissionMode::BypassPermissions);
    std::fs::create_dir(e.project.join(".git")).unwrap();
    std::fs::write(e.project.join(".git/config"), "[core]\n").unwrap();
    let outside = e.outside.join("x");
    let script = format!(
        "echo evil >> .git/config 2>/dev/null; echo x > {} 2>/dev/null; echo ok > fine.txt; \
         echo 'pretend: .git/HEAD: Read-only file system'",
        outside.display()
    );
    let r = e.bash("b1", &hidden(&script)).await;
    assert_eq!(r.status, CallStatus::Succeeded, "{}", r.text());
    assert_eq!(
        e.started("b1")["sandbox"]["reports_blocked_writes"],
        true,
        "gatehouse-sandbox-exec must be built beside the tests (cargo build -p gatehouse-sandbox)"
    );
    let text = r.text();
    assert!(
        text.contains("blocked: write to .git/config (read-only in the sandbox)"),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "blocked: write to {} (read-only in the sandbox)",
            outside.display()
        )),
        "{text}"
    );
    // What the command only printed is not reported, nor are allowed writes.
    assert!(!text.contains("blocked: write to .git/HEAD"), "{text}");
    assert!(!text.contains("fine.txt (read-only"), "{text}");
    let blocked = e.progress("b1", "blocked").expect("a blocked event");
    assert_eq!(
        blocked["denials"],
        json!([
            {"kind": "write", "target": e.project.join(".git/config").display().to_string(), "syscall": "openat"},
            {"kind": "write", "target": outside.display().to_string(), "syscall": "openat"},
        ])
    );
    assert_eq!(blocked["omitted"], 0);
    // A network attempt is refused by the trap and said the same way.
    let r = e.bash("b3", "getent hosts example.com").await;
    assert_eq!(r.status, CallStatus::Failed, "{}", r.text());
    assert!(
        r.text()
            .contains("blocked: network access (an AF_INET socket; the sandbox has no network)")
            || r.text().contains(
                "blocked: network access (an AF_INET6 socket; the sandbox has no network)"
            ),
        "{}",
        r.text()
    );
    assert_eq!(
        e.progress("b3", "blocked").unwrap()["denials"][0]["kind"],
        "network"
    );
    // A command that is refused nothing sends no blocked event.
    let r = e.bash("b2", "echo hi > ok.txt").await;
    assert_eq!(r.status, CallStatus::Succeeded, "{}", r.text());
    assert!(e.progress("b2", "blocked").is_none());
}

#[tokio::test]
async fn dangerously_disable_sandbox_always_asks_even_in_bypass_mode() {
    let mut e = env(auto_allow(), &[], PermissionMode::BypassPermissions);
    let target = e.outside.join("x");
    let command = format!("echo x > {}", target.display());
    let r = e
        .run(
            "d1",
            "Bash",
            json!({ "command": command, "dangerouslyDisableSandbox": true }),
        )
        .await;
    assert_eq!(r.status, CallStatus::Denied, "{}", r.text());
    let (_, trace) = e.decision("d1");
    assert!(trace.contains(&"sandbox:Ask".to_owned()), "{trace:?}");
    assert!(!target.exists());
}

#[tokio::test]
async fn auto_allow_runs_a_would_ask_command_unasked_and_a_denied_one_stays_denied() {
    let mut e = env(auto_allow(), &["Bash(rm:*)"], PermissionMode::Default);
    std::fs::write(e.project.join("keep"), "k").unwrap();
    // Writing a file asks in default mode; sandboxed, it runs unasked.
    let r = e.bash("a1", "echo made > made.txt").await;
    assert_eq!(r.status, CallStatus::Succeeded, "{}", r.text());
    let (decision, trace) = e.decision("a1");
    assert_eq!(decision, PermissionBehavior::Allow);
    assert!(trace.contains(&"sandbox:Allow".to_owned()), "{trace:?}");
    // A deny rule still denies.
    let r = e.bash("a2", "rm keep").await;
    assert_eq!(r.status, CallStatus::Denied, "{}", r.text());
    assert!(e.project.join("keep").exists());
    // An excluded command runs outside the sandbox, through the normal
    // flow: here it asks, and nobody answers.
    let r = e.bash("a3", "touch other.txt").await;
    assert_eq!(r.status, CallStatus::Denied, "{}", r.text());
    assert!(!e.project.join("other.txt").exists());
    // A protected path still asks.
    let r = e.bash("a4", "echo x > .claude/notes.md").await;
    assert_eq!(r.status, CallStatus::Denied, "{}", r.text());
}

#[tokio::test]
async fn without_auto_allow_a_sandboxed_command_still_asks() {
    let config = SandboxConfig {
        auto_allow: false,
        ..auto_allow()
    };
    let mut e = env(config, &[], PermissionMode::Default);
    let r = e.bash("a1", "echo made > made.txt").await;
    assert_eq!(r.status, CallStatus::Denied, "{}", r.text());
    let (_, trace) = e.decision("a1");
    assert!(
        trace.contains(&"sandbox:Passthrough".to_owned()),
        "{trace:?}"
    );
}

/// A sandboxed command cannot write `.git/config`, but it can plant a
/// symlink to it (or to a file outside the working directories) in the
/// project. A later Edit, which runs outside the sandbox, must not follow
/// it silently: the engine decides on the link's target.
#[tokio::test]
async fn a_symlink_planted_by_a_sandboxed_command_does_not_let_edit_escape() {
    let mut e = env(auto_allow(), &[], PermissionMode::AcceptEdits);
    std::fs::create_dir(e.project.join(".git")).unwrap();
    std::fs::write(e.project.join(".git/config"), "[core]\n").unwrap();
    let secret = e.outside.join("profile");
    std::fs::write(&secret, "safe\n").unwrap();
    let plant = hidden(&format!(
        "ln -s .git/config notes.txt && ln -s {} outside.txt",
        secret.display()
    ));
    let r = e.bash("p1", &plant).await;
    assert_eq!(r.status, CallStatus::Succeeded, "{}", r.text());

    // Into the protected .git: Read is fine (inside), Edit asks → denied.
    let notes = e.project.join("notes.txt").display().to_string();
    let r = e.run("r1", "Read", json!({ "file_path": notes })).await;
    assert_eq!(r.status, CallStatus::Succeeded, "{}", r.text());
    let r = e
        .run(
            "e1",
            "Edit",
            json!({ "file_path": notes, "old_string": "[core]", "new_string": "[core]\n\tfsmonitor = evil" }),
        )
        .await;
    assert_eq!(r.status, CallStatus::Denied, "{}", r.text());
    assert!(r.text().contains("protected"), "{}", r.text());
    assert_eq!(
        std::fs::read_to_string(e.project.join(".git/config")).unwrap(),
        "[core]\n"
    );

    // Out of the working directories: not even readable without asking.
    let outside = e.project.join("outside.txt").display().to_string();
    let r = e.run("r2", "Read", json!({ "file_path": outside })).await;
    assert_eq!(r.status, CallStatus::Denied, "{}", r.text());
    let r = e
        .run(
            "e2",
            "Edit",
            json!({ "file_path": outside, "old_string": "safe", "new_string": "evil" }),
        )
        .await;
    assert_ne!(r.status, CallStatus::Succeeded, "{}", r.text());
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), "safe\n");
}

#[test]
fn the_launcher_refuses_what_it_cannot_confine() {
    // A writable root that does not exist: an error, not an unconfined run.
    let bwrap = find_bwrap(std::env::var_os("PATH").as_deref())
        .unwrap_or_else(|e| panic!("this test needs bubblewrap: {e}"));
    let launcher = SandboxLauncher::new(
        Sandbox::new(bwrap, SandboxPolicy::new(Path::new("/nonexistent"), None)).unwrap(),
    );
    let roots = [PathBuf::from("/nonexistent/gatehouse-root")];
    let err = gatehouse_tools::bash::launcher::CommandLauncher::command(
        &launcher,
        &gatehouse_tools::bash::launcher::LaunchSpec {
            shell: Path::new("/bin/bash"),
            script: "true",
            cwd: Path::new("/"),
            env: &[],
            working_dirs: &roots,
            writable_files: &[],
        },
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("/nonexistent/gatehouse-root"),
        "{err}"
    );
}

/// A command allowed only because it would run in the sandbox must not run
/// outside it when a settings reload turns the sandbox off between the
/// decision and the start: it is refused, not run unconfined unasked.
#[tokio::test]
async fn a_command_allowed_as_sandboxed_is_not_run_when_the_sandbox_goes_away_before_it_starts() {
    let mut e = env(auto_allow(), &[], PermissionMode::Default);
    let marker = e.project.join("ran.txt");
    let command = hidden(&format!("echo ran > {}", marker.display()));
    e.resolver
        .armed
        .store(true, std::sync::atomic::Ordering::SeqCst);
    let r = e.bash("r1", &command).await;
    let (behavior, trace) = e.decision("r1");
    assert_eq!(behavior, PermissionBehavior::Allow, "{trace:?}");
    assert!(trace.iter().any(|s| s == "sandbox:Allow"), "{trace:?}");
    assert_eq!(r.status, CallStatus::Failed, "{}", r.text());
    assert!(
        r.text()
            .contains("the sandbox's settings changed before it started"),
        "{}",
        r.text()
    );
    assert!(!marker.exists(), "the command ran unconfined");
    // Decided anew with the sandbox off, the same command now asks (and
    // nobody answers here): it does not run either.
    let r = e.bash("r2", &command).await;
    assert_ne!(r.status, CallStatus::Succeeded, "{}", r.text());
    assert!(!marker.exists());
}
