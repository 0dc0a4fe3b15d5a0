//! The session's Bash sandbox (issue 24 items 3 and 4): unavailable is one
//! typed event and nothing runs unconfined under auto-allow; a `sandbox`
//! key edited on disk reaches the open session's next Bash call; Settings'
//! state comes from a real bwrap run. Real parts: SQLite and settings files
//! in scratch folders, the real engine, Bash and bubblewrap (without it
//! these tests fail saying what to install), the replay provider as model.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use gatehouse_agent::provider::replay::{ReplayProvider, Script};
use gatehouse_core::events::MemorySink;
use gatehouse_protocol::event::{Event, EventBody};
use gatehouse_protocol::permission::PermissionBehavior;
use gatehouse_protocol::progress::{BashSandboxUse, ToolProgressData};
use gatehouse_protocol::sandbox::{
    SandboxFix, SandboxUnavailable, SandboxUnavailableReason, SessionSandboxState,
};
use gatehouse_session::host::AskPolicy;
use gatehouse_session::sandbox_state::{SandboxProject, sandbox_state};
use gatehouse_session::{HostConfig, SessionHost, StartSpec};
use serde_json::json;

mod common;
use common::{text, tool};

struct Fixture {
    _dir: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
    data: PathBuf,
    sink: Arc<MemorySink>,
    host: SessionHost,
}

impl Fixture {
    /// A host whose sandbox looks for bwrap on `path` (`None`: `$PATH`).
    /// Folders outside `/tmp`, which is private inside the sandbox.
    fn new(path: Option<&Path>) -> Self {
        let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
        let base = dir.path().canonicalize().unwrap();
        let (home, project, data) = (base.join("home"), base.join("project"), base.join("data"));
        for d in [&home, &project, &data] {
            std::fs::create_dir_all(d.join(".claude")).unwrap();
        }
        let sink = Arc::new(MemorySink::new());
        let mut config = HostConfig::new(data.clone());
        config.home = home.clone();
        if let Some(path) = path {
            config.sandbox_path = Some(path.as_os_str().to_owned());
        }
        let host =
            SessionHost::new(config, sink.clone(), tokio::runtime::Handle::current()).unwrap();
        Self {
            _dir: dir,
            home,
            project,
            data,
            sink,
            host,
        }
    }

    /// A session whose model runs `commands[i]` (as call `c{i}`) at its
    /// i-th prompt; `DenyAll` answers every ask.
    async fn start(
        &self,
        commands: &[&str],
        trusted: bool,
    ) -> (String, Vec<String>, Option<SandboxUnavailable>) {
        let mut turns = Vec::new();
        for (i, command) in commands.iter().enumerate() {
            turns.push(tool(
                &format!("c{i}"),
                "Bash",
                json!({ "command": command }),
            ));
            turns.push(text("done"));
        }
        let script = Script::parse(&json!({ "turns": turns }).to_string())
            .unwrap()
            .with_project_dir(&self.project);
        let started = self
            .host
            .start(StartSpec {
                project: self.project.clone(),
                provider: Arc::new(ReplayProvider::new(script)),
                model: "replay".into(),
                mode: None,
                trust_project: trusted,
                ask: AskPolicy::DenyAll,
                resume: None,
                settings_files: Vec::new(),
                mcp_startup_timeout: None,
            })
            .await
            .unwrap();
        (
            started.handle.session_id,
            started.warnings,
            started.sandbox_unavailable,
        )
    }

    /// Waits (watchdog 30 s) until an event matching `pick` arrives.
    async fn wait_for<T>(&self, what: &str, pick: impl Fn(&Event) -> Option<T>) -> T {
        let found = async {
            loop {
                if let Some(t) = self.sink.events().iter().find_map(&pick) {
                    return t;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        };
        tokio::time::timeout(Duration::from_secs(30), found)
            .await
            .unwrap_or_else(|_| panic!("no {what} within 30 s"))
    }

    /// Runs prompt `i` to its end: the call's decision, and how its Bash
    /// said it related to the sandbox (`None` when it did not start).
    async fn run(
        &self,
        session: &str,
        i: usize,
    ) -> (PermissionBehavior, Option<Option<BashSandboxUse>>) {
        let ticket = self.host.send_prompt(session, "go").unwrap();
        tokio::time::timeout(Duration::from_secs(60), ticket.wait())
            .await
            .unwrap()
            .unwrap();
        let id = format!("c{i}");
        let decision = self
            .wait_for("permission_decided", |e| match &e.body {
                EventBody::PermissionDecided {
                    tool_use_id,
                    decision,
                    ..
                } if *tool_use_id == id => Some(*decision),
                _ => None,
            })
            .await;
        let use_ = self.sink.events().into_iter().find_map(|e| match e.body {
            EventBody::ToolProgress {
                tool_use_id,
                data: ToolProgressData::BashStarted { sandbox, .. },
            } if tool_use_id == id => Some(sandbox),
            _ => None,
        });
        (decision, use_)
    }

    fn unavailable_events(&self) -> Vec<SandboxUnavailable> {
        self.sink
            .events()
            .into_iter()
            .filter_map(|e| match e.body {
                EventBody::SandboxUnavailable { unavailable } => Some(unavailable),
                _ => None,
            })
            .collect()
    }
}

fn auto_allow_settings(home: &Path) {
    std::fs::write(
        home.join(".claude/settings.json"),
        r#"{"sandbox": {"enabled": true, "autoAllowBashIfSandboxed": true}}"#,
    )
    .unwrap();
}

/// Writing a file asks in default mode; with a sandbox that runs,
/// auto-allow lets it through (the control). Without bwrap the session
/// says so once, in typed fields, and the same command is asked (here:
/// denied) — it never runs unconfined as if it were confined.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unavailable_is_one_typed_event_and_nothing_runs_unconfined_under_auto_allow() {
    let empty = tempfile::tempdir().unwrap();
    let f = Fixture::new(Some(empty.path()));
    auto_allow_settings(&f.home);
    let (session, warnings, unavailable) = f.start(&["touch made-here"], true).await;
    assert_eq!(
        unavailable.map(|u| u.reason),
        Some(SandboxUnavailableReason::BwrapMissing),
        "for gatehouse-cli's stderr"
    );
    assert!(
        !warnings.iter().any(|w| w.contains("sandbox unavailable")),
        "the notice is an event, not a sentence: {warnings:?}"
    );
    let (decision, started) = f.run(&session, 0).await;
    assert_eq!(
        decision,
        PermissionBehavior::Deny,
        "it was asked, and denied"
    );
    assert_eq!(started, None, "it never started");
    assert!(!f.project.join("made-here").exists());
    let events = f.unavailable_events();
    assert_eq!(events.len(), 1, "{events:?}");
    let read: Vec<_> = f
        .sink
        .events()
        .into_iter()
        .filter_map(|e| match e.body {
            EventBody::SandboxSettingsRead {
                state, reloaded, ..
            } => Some((state, reloaded)),
            _ => None,
        })
        .collect();
    assert_eq!(read, [(SessionSandboxState::Unavailable, false)]);
    assert_eq!(events[0].reason, SandboxUnavailableReason::BwrapMissing);
    assert_eq!(
        events[0].fix,
        Some(SandboxFix::InstallPackage {
            package: "bubblewrap".into()
        })
    );
    f.host.finish().await;

    // The control: with bwrap the same command runs unasked, sandboxed.
    let f = Fixture::new(None);
    auto_allow_settings(&f.home);
    let (session, _, unavailable) = f.start(&["touch made-here"], true).await;
    assert_eq!(unavailable, None);
    let (decision, started) = f.run(&session, 0).await;
    assert!(
        f.unavailable_events().is_empty(),
        "this test needs bubblewrap (apt-get install bubblewrap): {:?}",
        f.unavailable_events()
    );
    assert_eq!(decision, PermissionBehavior::Allow);
    assert!(
        matches!(started, Some(Some(BashSandboxUse::Sandboxed { .. }))),
        "{started:?}"
    );
    assert!(f.project.join("made-here").exists());
    f.host.finish().await;
}

/// `sandbox.enabled` written into the project's settings while the session
/// is open takes effect for its next Bash call; a Claude Code network key
/// Gatehouse does not implement is named with its file and line.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sandbox_key_edited_on_disk_reaches_the_next_bash_call() {
    let f = Fixture::new(None);
    let (session, _, _) = f.start(&["ls", "ls", "ls"], false).await;
    let (decision, started) = f.run(&session, 0).await;
    assert_eq!(decision, PermissionBehavior::Allow);
    assert_eq!(started, Some(None), "the sandbox is off at first");
    assert!(
        !f.sink
            .events()
            .iter()
            .any(|e| matches!(e.body, EventBody::SandboxSettingsRead { .. })),
        "off and without problems, nothing to say at start"
    );

    let file = f.project.join(".claude/settings.json");
    std::fs::write(
        &file,
        "{\"sandbox\": {\"enabled\": true,\n  \"network\": {\"allowUnixSockets\": [\"/run/docker.sock\"]}}}",
    )
    .unwrap();
    let problems = f
        .wait_for("sandbox_settings_read (on)", |e| match &e.body {
            EventBody::SandboxSettingsRead {
                state: SessionSandboxState::On,
                problems,
                reloaded: true,
            } => Some(problems.clone()),
            _ => None,
        })
        .await;
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].file, file.display().to_string());
    assert_eq!((problems[0].line, problems[0].column), (2, 35));
    assert!(
        problems[0]
            .message
            .contains("`sandbox.network.allowUnixSockets` is not supported"),
        "{problems:?}"
    );
    let (_, started) = f.run(&session, 1).await;
    match started {
        Some(Some(BashSandboxUse::Sandboxed { network, .. })) => {
            assert_eq!(network, gatehouse_protocol::progress::SandboxNetwork::Off);
        }
        other => panic!("expected a sandboxed call, got {other:?}"),
    }

    // Turned off again (a trusted file could; this untrusted one simply
    // stops turning it on): the next call runs plainly.
    std::fs::write(&file, r#"{"sandbox": {}}"#).unwrap();
    f.wait_for("sandbox_settings_read (off)", |e| match &e.body {
        EventBody::SandboxSettingsRead {
            state: SessionSandboxState::Off,
            reloaded: true,
            ..
        } => Some(()),
        _ => None,
    })
    .await;
    let (_, started) = f.run(&session, 2).await;
    assert_eq!(started, Some(None));
    f.host.finish().await;
}

/// Settings → Sandbox from a real bwrap run: available, its version, and
/// each setting with the file it came from; without bwrap, why and the fix.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn settings_state_probes_bwrap_and_names_each_settings_file() {
    let f = Fixture::new(None);
    let user = f.home.join(".claude/settings.json");
    std::fs::write(
        &user,
        r#"{"sandbox": {"enabled": true, "excludedCommands": ["docker"], "network": {"httpProxyPort": 8080}}}"#,
    )
    .unwrap();
    let local = f.project.join(".claude/settings.local.json");
    std::fs::write(
        &local,
        r#"{"sandbox": {"autoAllowBashIfSandboxed": true, "filesystem": {"denyRead": ["secrets"], "allowWrite": ["no-such-dir"]}}}"#,
    )
    .unwrap();
    let project = SandboxProject {
        path: f.project.clone(),
        trusted: true,
    };
    let path = std::env::var_os("PATH");
    let state = sandbox_state(&f.home, &f.data, Some(project), path.as_deref(), true).await;
    assert_eq!(
        state.unavailable, None,
        "this test needs bubblewrap (apt-get install bubblewrap)"
    );
    assert!(
        state
            .bwrap_version
            .as_deref()
            .is_some_and(|v| v.starts_with("bubblewrap ")),
        "{state:?}"
    );
    let s = &state.settings;
    assert!(s.enabled.value);
    assert_eq!(s.enabled.file.as_deref(), Some(user.to_str().unwrap()));
    assert!(s.auto_allow.value);
    assert_eq!(s.auto_allow.file.as_deref(), Some(local.to_str().unwrap()));
    assert_eq!(s.excluded_commands.len(), 1);
    assert_eq!(s.excluded_commands[0].value, "docker");
    assert_eq!(s.excluded_commands[0].file, user.display().to_string());
    assert_eq!(
        s.deny_read[0].value,
        f.project.join("secrets").display().to_string()
    );
    assert_eq!(state.problems.len(), 2, "{:?}", state.problems);
    assert_eq!(state.problems[0].file, user.display().to_string());
    assert!(
        state.problems[0]
            .message
            .contains("sandbox.network.httpProxyPort")
    );
    // A writable root that does not exist, named with its file.
    assert_eq!(state.problems[1].file, local.display().to_string());
    assert!(
        state.problems[1].message.contains("no-such-dir"),
        "{:?}",
        state.problems
    );
    assert_eq!(
        state.settings.allow_write[0].file,
        local.display().to_string()
    );

    // Untrusted, the project's auto-allow does not count.
    let project = SandboxProject {
        path: f.project.clone(),
        trusted: false,
    };
    let state = sandbox_state(&f.home, &f.data, Some(project), path.as_deref(), false).await;
    assert_eq!(
        (
            state.settings.auto_allow.value,
            state.settings.auto_allow.file
        ),
        (false, None)
    );

    let empty = tempfile::tempdir().unwrap();
    let state = sandbox_state(
        &f.home,
        &f.data,
        None,
        Some(empty.path().as_os_str()),
        false,
    )
    .await;
    let why = state.unavailable.unwrap();
    assert_eq!(why.reason, SandboxUnavailableReason::BwrapMissing);
    assert!(matches!(why.fix, Some(SandboxFix::InstallPackage { .. })));
    assert_eq!(state.bwrap, None);
}
