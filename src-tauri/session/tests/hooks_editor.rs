//! The Hooks view's back end (issue 18 item 5) on real settings files,
//! real hook processes and a real open session: the view by source with
//! trust and malformed entries, edits that keep every other key, a
//! conflict when the file changed, test runs, and a save that reaches an
//! open session's next call.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use gatehouse_agent::provider::replay::{ReplayProvider, Script};
use gatehouse_core::events::MemorySink;
use gatehouse_protocol::event::{
    EventBody, HookEventName, HookHandlerKind, HookNotRunReason, SettingsReloadTrigger,
};
use gatehouse_protocol::hooks::{
    HookEditRequest, HookSaveOutcome, HooksView, SaveHookEditArgs, TestHookArgs,
};
use gatehouse_protocol::permission::{PermissionBehavior, RuleSource};
use gatehouse_protocol::project::Project;
use gatehouse_session::hooks_editor::{HooksEditorError, hooks_view, save_edit, test_hook};
use gatehouse_session::host::AskPolicy;
use gatehouse_session::{HostConfig, SessionHost, StartSpec};
use gatehouse_store::Store;
use serde_json::{Value, json};

mod common;
use common::{completed, text, tool};

struct Fixture {
    data: tempfile::TempDir,
    _tmp: tempfile::TempDir,
    home: PathBuf,
    dir: PathBuf,
}

impl Fixture {
    fn new() -> Self {
        let data = tempfile::tempdir().unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        let home = root.join("home");
        let dir = root.join("proj");
        std::fs::create_dir_all(home.join(".claude")).unwrap();
        std::fs::create_dir_all(dir.join(".claude")).unwrap();
        Self {
            data,
            _tmp: tmp,
            home,
            dir,
        }
    }

    fn project_file(&self) -> PathBuf {
        self.dir.join(".claude/settings.json")
    }

    fn project(&self, trusted: bool) -> Project {
        let store = Store::open(self.data.path()).unwrap();
        let p = store.add_project(&self.dir).unwrap();
        store.set_project_trust(p.id, trusted).unwrap()
    }
}

const PROJECT: &str = r#"{
  "model": "opus",
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh", "timeout": 5}]}
    ],
    "PostToolUse": [
      {"hooks": [{"type": "command"}]}
    ]
  }
}
"#;

fn file_of(view: &HooksView, source: RuleSource) -> &gatehouse_protocol::hooks::HookFileView {
    view.files.iter().find(|f| f.source == source).unwrap()
}

#[test]
fn the_view_lists_hooks_by_source_with_trust_and_malformed_entries_by_place() {
    let fx = Fixture::new();
    std::fs::write(fx.project_file(), PROJECT).unwrap();
    std::fs::write(
        fx.home.join(".claude/settings.json"),
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "http", "url": "http://127.0.0.1:9/stop"}]}],
  "PreCompact": [{"hooks": [{"type": "command", "command": "true"}]}]}}"#,
    )
    .unwrap();

    let view = hooks_view(&fx.project(false), &fx.home);
    assert!(!view.trusted);
    assert_eq!(view.events.len(), 9);
    let project = file_of(&view, RuleSource::Project);
    assert!(project.editable && project.exists);
    assert_eq!(project.hooks.len(), 1, "{:?}", project.hooks);
    let guard = &project.hooks[0];
    assert_eq!(
        (
            guard.event.as_str(),
            guard.matcher.as_deref(),
            guard.command.as_str()
        ),
        ("PreToolUse", Some("Bash"), "./guard.sh")
    );
    assert_eq!((guard.line, guard.timeout_secs), (5, 5.0));
    assert!(!guard.runs);
    assert_eq!(guard.not_run, Some(HookNotRunReason::Untrusted));
    assert_eq!(
        guard.definition,
        json!({"type": "command", "command": "./guard.sh", "timeout": 5})
    );
    // The command hook without a command is a problem with its place, not a row.
    let bad = view
        .problems
        .iter()
        .find(|p| p.message.contains("without a command"))
        .expect("the malformed entry");
    assert_eq!(bad.file, fx.project_file().display().to_string());
    assert_eq!(bad.line, 8);
    assert!(bad.column > 1);
    // The user's hooks: the http one runs, the unknown event is listed.
    let user = file_of(&view, RuleSource::User);
    let by_event = |e: &str| user.hooks.iter().find(|h| h.event == e).unwrap();
    assert!(by_event("Stop").runs);
    assert_eq!(by_event("Stop").handler, HookHandlerKind::Http);
    assert_eq!(
        by_event("PreCompact").not_run,
        Some(HookNotRunReason::UnknownEvent)
    );
    assert!(
        view.problems
            .iter()
            .any(|p| p.message.contains("PreCompact"))
    );

    let trusted = hooks_view(&fx.project(true), &fx.home);
    assert!(file_of(&trusted, RuleSource::Project).hooks[0].runs);
}

fn save(
    fx: &Fixture,
    project: &Project,
    fingerprint: &str,
    edit: HookEditRequest,
) -> HookSaveOutcome {
    save_edit(
        project,
        &fx.home,
        &SaveHookEditArgs {
            project_id: project.id,
            file: fx.project_file().display().to_string(),
            fingerprint: fingerprint.into(),
            edit,
            overwrite: false,
        },
    )
    .unwrap()
}

fn saved(outcome: HookSaveOutcome) -> HooksView {
    match outcome {
        HookSaveOutcome::Saved { view } => view,
        HookSaveOutcome::Conflict { file, .. } => panic!("conflict on {file}"),
    }
}

fn on_disk(fx: &Fixture) -> Value {
    serde_json::from_str(&std::fs::read_to_string(fx.project_file()).unwrap()).unwrap()
}

#[test]
fn edits_keep_every_other_key_and_a_file_changed_on_disk_is_a_conflict() {
    let fx = Fixture::new();
    let start = "{\n  \"model\": \"opus\",\n  \"permissions\": {\"deny\": [\"WebFetch\"]}\n}\n";
    std::fs::write(fx.project_file(), start).unwrap();
    let project = fx.project(true);
    let view = hooks_view(&project, &fx.home);
    let print = file_of(&view, RuleSource::Project).fingerprint.clone();

    let view = saved(save(
        &fx,
        &project,
        &print,
        HookEditRequest::Add {
            event: "PreToolUse".into(),
            matcher: Some("Bash".into()),
            handler: json!({"type": "command", "command": "./guard.sh"}),
        },
    ));
    let text = std::fs::read_to_string(fx.project_file()).unwrap();
    // `hooks` goes in as the first key; the file's own lines follow unchanged.
    assert!(text.starts_with("{\n  \"hooks\": {"), "{text}");
    assert!(
        text.ends_with(
            "  \"model\": \"opus\",\n  \"permissions\": {\"deny\": [\"WebFetch\"]}\n}\n"
        ),
        "{text}"
    );
    let file = file_of(&view, RuleSource::Project);
    assert_eq!(file.hooks.len(), 1);
    assert!(file.hooks[0].runs);

    // Moved to another matcher: removed from its group and added anew.
    let view = saved(save(
        &fx,
        &project,
        &file.fingerprint,
        HookEditRequest::Replace {
            event: "PreToolUse".into(),
            group: 0,
            index: 0,
            new_event: "PreToolUse".into(),
            matcher: Some("Edit|Write".into()),
            handler: json!({"type": "command", "command": "./fmt.sh", "timeout": 10}),
        },
    ));
    let v = on_disk(&fx);
    assert_eq!(
        v["hooks"]["PreToolUse"],
        json!([{"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "./fmt.sh", "timeout": 10}]}])
    );
    assert_eq!(v["permissions"], json!({"deny": ["WebFetch"]}));
    let print = file_of(&view, RuleSource::Project).fingerprint.clone();

    let view = saved(save(
        &fx,
        &project,
        &print,
        HookEditRequest::SetEnabled {
            event: "PreToolUse".into(),
            group: 0,
            index: 0,
            enabled: false,
        },
    ));
    let hook = &file_of(&view, RuleSource::Project).hooks[0];
    assert_eq!(hook.not_run, Some(HookNotRunReason::Disabled));
    assert!(!hook.enabled);

    // Someone edits the file by hand: the stale fingerprint writes nothing.
    let by_hand = std::fs::read_to_string(fx.project_file())
        .unwrap()
        .replace("opus", "sonnet");
    std::fs::write(fx.project_file(), &by_hand).unwrap();
    let stale = file_of(&view, RuleSource::Project).fingerprint.clone();
    let remove = HookEditRequest::Remove {
        event: "PreToolUse".into(),
        group: 0,
        index: 0,
    };
    match save(&fx, &project, &stale, remove.clone()) {
        HookSaveOutcome::Conflict { file, view } => {
            assert_eq!(file, fx.project_file().display().to_string());
            assert_ne!(file_of(&view, RuleSource::Project).fingerprint, stale);
        }
        HookSaveOutcome::Saved { .. } => panic!("saved over a file changed on disk"),
    }
    assert_eq!(std::fs::read_to_string(fx.project_file()).unwrap(), by_hand);

    let fresh = file_of(&hooks_view(&project, &fx.home), RuleSource::Project)
        .fingerprint
        .clone();
    let view = saved(save(&fx, &project, &fresh, remove));
    assert!(file_of(&view, RuleSource::Project).hooks.is_empty());
    let v = on_disk(&fx);
    assert_eq!(v["model"], "sonnet");
    assert!(
        v.get("hooks")
            .is_none_or(|h| h.as_object().is_some_and(|o| o.is_empty())),
        "{v}"
    );
}

#[test]
fn an_invalid_hook_or_a_file_outside_the_project_is_refused_with_where() {
    let fx = Fixture::new();
    std::fs::write(fx.project_file(), "{\"model\": \"opus\"}\n").unwrap();
    let project = fx.project(true);
    let print = file_of(&hooks_view(&project, &fx.home), RuleSource::Project)
        .fingerprint
        .clone();
    let err = save_edit(
        &project,
        &fx.home,
        &SaveHookEditArgs {
            project_id: project.id,
            file: fx.project_file().display().to_string(),
            fingerprint: print.clone(),
            edit: HookEditRequest::Add {
                event: "PreToolUse".into(),
                matcher: Some("(".into()),
                handler: json!({"type": "command", "command": "true"}),
            },
            overwrite: false,
        },
    )
    .unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, HooksEditorError::Invalid(_)));
    assert!(
        msg.contains("settings.json") && msg.contains("matcher"),
        "{msg}"
    );
    assert_eq!(
        std::fs::read_to_string(fx.project_file()).unwrap(),
        "{\"model\": \"opus\"}\n"
    );

    let err = save_edit(
        &project,
        &fx.home,
        &SaveHookEditArgs {
            project_id: project.id,
            file: "/etc/elsewhere.json".into(),
            fingerprint: String::new(),
            edit: HookEditRequest::Remove {
                event: "Stop".into(),
                group: 0,
                index: 0,
            },
            overwrite: false,
        },
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .contains("/etc/elsewhere.json: not a settings file"),
        "{err}"
    );
}

fn test_args(project: &Project, handler: Value) -> TestHookArgs {
    TestHookArgs {
        project_id: project.id,
        event: HookEventName::PreToolUse,
        handler,
        tool_name: "Bash".into(),
        tool_input: json!({"command": "rm -rf build"}),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_test_run_shows_stdin_output_exit_code_and_the_decision() {
    let fx = Fixture::new();
    let project = fx.project(true);
    let script = fx.dir.join("guard.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\ninput=$(cat)\necho \"$input\" > seen.json\necho checking >&2\nprintf '%s' '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"deny\", \"permissionDecisionReason\": \"no rm here\"}}'\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();

    let run = test_hook(
        &fx.dir,
        &test_args(
            &project,
            json!({"type": "command", "command": "./guard.sh"}),
        ),
    )
    .await
    .unwrap();
    assert_eq!(run.exit_code, Some(0));
    assert_eq!(run.stderr, "checking\n");
    assert_eq!(run.outcome.decision, Some(PermissionBehavior::Deny));
    assert_eq!(run.outcome.message.as_deref(), Some("no rm here"));
    assert!(run.outcome.error.is_none());
    let stdin: Value = serde_json::from_str(&run.stdin).unwrap();
    assert_eq!(stdin["tool_input"]["command"], "rm -rf build");
    assert_eq!(stdin["hook_event_name"], "PreToolUse");
    // The script ran in the project and read that very stdin.
    let seen: Value =
        serde_json::from_str(&std::fs::read_to_string(fx.dir.join("seen.json")).unwrap()).unwrap();
    assert_eq!(seen, stdin);

    let blocked = test_hook(
        &fx.dir,
        &test_args(
            &project,
            json!({"type": "command", "command": "echo 'not today' >&2; exit 2"}),
        ),
    )
    .await
    .unwrap();
    assert_eq!(blocked.exit_code, Some(2));
    assert!(blocked.outcome.blocked);
    // Claude Code's wording of an exit 2: the command, then its stderr.
    assert_eq!(
        blocked.outcome.message.as_deref(),
        Some("[echo 'not today' >&2; exit 2]: not today")
    );

    let garbage = test_hook(
        &fx.dir,
        &test_args(
            &project,
            json!({"type": "command", "command": "echo '{nope'"}),
        ),
    )
    .await
    .unwrap();
    assert!(garbage.outcome.error.is_some());
    assert_eq!(garbage.outcome.decision, None);

    let http = test_hook(
        &fx.dir,
        &test_args(
            &project,
            json!({"type": "http", "url": "http://127.0.0.1:9/"}),
        ),
    )
    .await
    .unwrap_err();
    assert!(http.to_string().contains("command hooks"), "{http}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_saved_hook_runs_on_the_open_sessions_next_call() {
    let fx = Fixture::new();
    std::fs::write(fx.project_file(), "{\"model\": \"opus\"}\n").unwrap();
    let mut config = HostConfig::new(fx.data.path().to_path_buf());
    config.home = fx.home.clone();
    let host = SessionHost::new(
        config,
        Arc::new(MemorySink::new()),
        tokio::runtime::Handle::current(),
    )
    .unwrap();
    let turns = vec![
        tool("b0", "Bash", json!({"command": "ls"})),
        text("done"),
        tool("b1", "Bash", json!({"command": "ls"})),
        text("done"),
    ];
    let script = Script::parse(&json!({ "turns": turns }).to_string()).unwrap();
    let started = host
        .start(StartSpec {
            project: fx.dir.clone(),
            provider: Arc::new(ReplayProvider::new(script)),
            model: "replay".into(),
            mode: None,
            trust_project: true,
            ask: AskPolicy::DenyAll,
            resume: None,
            settings_files: Vec::new(),
            mcp_startup_timeout: None,
        })
        .await
        .unwrap();
    let id = started.handle.session_id;
    let prompt = |host: &SessionHost| {
        let ticket = host.send_prompt(&id, "go").unwrap();
        async move {
            tokio::time::timeout(Duration::from_secs(60), ticket.wait())
                .await
                .unwrap()
                .unwrap();
        }
    };
    prompt(&host).await;

    let project = fx.project(true);
    let print = file_of(&hooks_view(&project, &fx.home), RuleSource::Project)
        .fingerprint
        .clone();
    let handler = json!({"type": "command", "command": "cat >/dev/null; echo 'blocked by the editor' >&2; exit 2"});
    saved(save(
        &fx,
        &project,
        &print,
        HookEditRequest::Add {
            event: "PreToolUse".into(),
            matcher: Some("Bash".into()),
            handler,
        },
    ));
    // What the app's save handler does after a save.
    host.reload_settings(SettingsReloadTrigger::HooksSaved);
    prompt(&host).await;

    let events = Store::open(fx.data.path())
        .unwrap()
        .session_events(&id)
        .unwrap()
        .0;
    assert!(!completed(&events, "b0").0);
    let (is_error, content) = completed(&events, "b1");
    assert!(is_error);
    assert!(content.contains("blocked by the editor"), "{content}");
    assert!(events.iter().any(|e| matches!(
        e.body,
        EventBody::HooksLoaded {
            active: 1,
            trigger: Some(SettingsReloadTrigger::HooksSaved),
            ..
        }
    )));
    host.close(&id).await.unwrap();
}
