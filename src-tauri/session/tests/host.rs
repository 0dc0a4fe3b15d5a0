//! The session host with real parts: SQLite files in a tempdir, the real
//! built-in tools on a real project folder, the permission engine with real
//! settings files, and the replay provider as the model.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use gatehouse_agent::PromptOutcome;
use gatehouse_agent::provider::replay::{ReplayProvider, Script};
use gatehouse_core::events::MemorySink;
use gatehouse_protocol::event::{Event, EventBody, SessionStatus};
use gatehouse_protocol::permission::{PermissionMode, RuleSource};
use gatehouse_protocol::session::PermissionAnswer;
use gatehouse_protocol::session::SessionOrigin;
use gatehouse_session::host::AskPolicy;
use gatehouse_session::{HostConfig, PromptTicket, SessionHost, StartSpec};
use gatehouse_store::{NewSession, SessionProvenance, Store};
use serde_json::{Value, json};

mod common;
use common::{completed, text, tool};

struct Fixture {
    data: tempfile::TempDir,
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
        std::fs::write(project.path().join("a.txt"), "alpha\n").unwrap();
        let sink = Arc::new(MemorySink::new());
        let host = Self::host(data.path(), home.path(), &sink);
        Self {
            data,
            home,
            project,
            sink,
            host,
        }
    }

    fn host(data: &Path, home: &Path, sink: &Arc<MemorySink>) -> SessionHost {
        let mut config = HostConfig::new(data.to_path_buf());
        config.home = home.to_path_buf();
        SessionHost::new(config, sink.clone(), tokio::runtime::Handle::current()).unwrap()
    }

    fn dir(&self) -> PathBuf {
        self.project.path().canonicalize().unwrap()
    }

    fn spec(&self, turns: Value, resume: Option<String>) -> StartSpec {
        let script = Script::parse(&json!({ "turns": turns }).to_string())
            .unwrap()
            .with_project_dir(&self.dir());
        StartSpec {
            project: self.dir(),
            provider: Arc::new(ReplayProvider::new(script)),
            model: "replay".into(),
            mode: None,
            trust_project: false,
            ask: AskPolicy::Interactive,
            resume,
            settings_files: Vec::new(),
            mcp_startup_timeout: None,
        }
    }

    async fn start(&self, turns: Value) -> String {
        self.host
            .start(self.spec(turns, None))
            .await
            .unwrap()
            .handle
            .session_id
    }

    /// Waits until an event matching `pred` arrives and returns it.
    async fn wait_for(&self, what: &str, pred: impl Fn(&Event) -> bool) -> Event {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(e) = self.sink.events().into_iter().find(|e| pred(e)) {
                return e;
            }
            assert!(
                Instant::now() < deadline,
                "no {what} within 30 s; events: {:#?}",
                types(&self.sink.events())
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Waits for the exchange and for its events to reach the sink (they
    /// are stored first, on the writer thread).
    async fn done(&self, ticket: PromptTicket) -> PromptOutcome {
        let outcome = tokio::time::timeout(Duration::from_secs(30), ticket.wait())
            .await
            .unwrap_or_else(|_| {
                panic!("the exchange did not end: {:?}", types(&self.sink.events()))
            })
            .unwrap();
        self.wait_for("every exchange's session_completed", |_| {
            let events = self.sink.events();
            let count = |t: &str| types(&events).iter().filter(|x| *x == t).count();
            count("session_completed") == count("user_prompt")
        })
        .await;
        outcome
    }

    async fn wait_for_request(&self, id: &str) -> Event {
        self.wait_for(&format!("permission_requested for {id}"), |e| {
            matches!(&e.body, EventBody::PermissionRequested { tool_use_id, .. } if tool_use_id == id)
        })
        .await
    }

    fn count(&self, pred: impl Fn(&EventBody) -> bool) -> usize {
        self.sink.events().iter().filter(|e| pred(&e.body)).count()
    }
}

fn types(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .map(|e| {
            serde_json::to_value(e).unwrap()["type"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

fn requested(events: &[Event], id: &str) -> bool {
    events.iter().any(
        |e| matches!(&e.body, EventBody::PermissionRequested { tool_use_id, .. } if tool_use_id == id),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_edit_asks_with_a_diff_and_suggestions_and_runs_once_allowed() {
    let f = Fixture::new();
    let file = "${PROJECT_DIR}/a.txt";
    let id = f
        .start(json!([
            tool("r1", "Read", json!({"file_path": file})),
            tool(
                "e1",
                "Edit",
                json!({"file_path": file, "old_string": "alpha", "new_string": "beta"})
            ),
            text("done"),
        ]))
        .await;
    let ticket = f.host.send_prompt(&id, "edit it").unwrap();
    let request = f.wait_for_request("e1").await;
    let EventBody::PermissionRequested {
        tool_name,
        suggestions,
        preview,
        trace,
        ..
    } = &request.body
    else {
        unreachable!()
    };
    assert_eq!(tool_name, "Edit");
    assert_eq!(suggestions, &["Edit(./a.txt)"]);
    let preview = preview.as_ref().expect("an edit is previewed");
    assert_eq!((preview.additions, preview.deletions), (1, 1));
    assert!(!trace.is_empty(), "the prompt says why it asks");
    assert_eq!(
        std::fs::read_to_string(f.dir().join("a.txt")).unwrap(),
        "alpha\n",
        "nothing changes before the answer"
    );
    assert_eq!(f.host.pending_permissions(&id).unwrap(), ["e1"]);
    let err = f
        .host
        .answer_permission(&id, "nope", PermissionAnswer::AllowOnce)
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("no permission prompt is waiting for call nope")
    );
    f.host
        .answer_permission(&id, "e1", PermissionAnswer::AllowOnce)
        .unwrap();
    let outcome = f.done(ticket).await;
    assert_eq!(outcome.status, SessionStatus::Completed);
    assert_eq!(
        std::fs::read_to_string(f.dir().join("a.txt")).unwrap(),
        "beta\n"
    );
    let events = f.sink.events();
    assert!(!completed(&events, "e1").0);
    assert_eq!(
        f.count(|b| matches!(
            b,
            EventBody::PermissionAnswered {
                answer: PermissionAnswer::AllowOnce,
                ..
            }
        )),
        1
    );
    // Every event the front end saw is stored, in the same order; closing
    // (finish closes every session) ends it with `session_ended`.
    assert_eq!(f.host.finish().await, 0);
    let (stored, _) = Store::open(f.data.path())
        .unwrap()
        .session_events(&id)
        .unwrap();
    let seen: Vec<Event> = f
        .sink
        .events()
        .into_iter()
        .filter(|e| e.session_id == id)
        .collect();
    assert_eq!(stored, seen);
    assert_eq!(&stored[..events.len()], &events[..]);
    assert!(matches!(
        stored.last().map(|e| &e.body),
        Some(EventBody::SessionEnded {
            reason: gatehouse_protocol::event::SessionEndReason::Closed
        })
    ));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_deny_carries_the_users_feedback_to_the_model() {
    let f = Fixture::new();
    let id = f
        .start(json!([
            tool("b1", "Bash", json!({"command": "touch made-by-bash"})),
            text("ok"),
        ]))
        .await;
    let ticket = f.host.send_prompt(&id, "go").unwrap();
    f.wait_for_request("b1").await;
    f.host
        .answer_permission(
            &id,
            "b1",
            PermissionAnswer::Deny {
                feedback: Some("use the Write tool instead".into()),
            },
        )
        .unwrap();
    f.done(ticket).await;
    assert!(!f.dir().join("made-by-bash").exists());
    let events = f.sink.events();
    let (is_error, content) = completed(&events, "b1");
    assert!(is_error);
    assert!(content.contains("use the Write tool instead"), "{content}");
    // The next model request carries it: the tool_result returned to the model.
    let returned = events
        .iter()
        .find_map(|e| match &e.body {
            EventBody::ToolResultsReturned { content, .. } => Some(Value::Array(content.clone())),
            _ => None,
        })
        .unwrap();
    assert!(
        returned.to_string().contains("use the Write tool instead"),
        "{returned}"
    );
}

/// The session list's counters come from the events the pipeline really
/// emits for an answered ask (`permission_requested`, `permission_answered`,
/// then the settled `permission_decided`): one ask and one denial per
/// refused call, not zero asks and two denials.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_answered_ask_counts_once_as_an_ask_and_once_as_a_denial() {
    let f = Fixture::new();
    let id = f
        .start(json!([
            tool("b1", "Bash", json!({"command": "touch one"})),
            tool("b2", "Bash", json!({"command": "touch two"})),
            text("ok"),
        ]))
        .await;
    let ticket = f.host.send_prompt(&id, "go").unwrap();
    f.wait_for_request("b1").await;
    f.host
        .answer_permission(&id, "b1", PermissionAnswer::Deny { feedback: None })
        .unwrap();
    f.wait_for_request("b2").await;
    f.host
        .answer_permission(&id, "b2", PermissionAnswer::AllowOnce)
        .unwrap();
    f.done(ticket).await;
    let store = Store::open(f.data.path()).unwrap();
    let summary = store.session(&id).unwrap().unwrap();
    assert_eq!(summary.tool_calls, 2);
    assert_eq!(summary.asks, 2, "both calls were asked");
    assert_eq!(summary.denials, 1, "only b1 was refused");
    assert_eq!(summary.errors, 0, "a refusal is not an error");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn allow_for_session_adds_rules_that_survive_closing_and_resuming() {
    let f = Fixture::new();
    let call = json!({"command": "touch made.txt"});
    let id = f
        .start(json!([
            tool("b1", "Bash", call.clone()),
            tool("b2", "Bash", call.clone()),
            text("ok"),
        ]))
        .await;
    let ticket = f.host.send_prompt(&id, "go").unwrap();
    f.wait_for_request("b1").await;
    f.host
        .answer_permission(&id, "b1", PermissionAnswer::AllowForSession)
        .unwrap();
    f.done(ticket).await;
    let events = f.sink.events();
    assert!(
        !requested(&events, "b2"),
        "the second identical call ran without asking"
    );
    assert!(!completed(&events, "b2").0);
    let rules = f.host.session_rules(&id).unwrap();
    assert_eq!(rules, ["Bash(touch made.txt)"]);
    assert_eq!(
        f.count(|b| matches!(b, EventBody::SessionRulesAdded { .. })),
        1
    );
    f.host.close(&id).await.unwrap();
    assert!(
        f.host.send_prompt(&id, "x").is_err(),
        "a closed session takes no prompts"
    );

    // Resume (in a new host, as after a restart): the same call runs without an ask.
    let sink = Arc::new(MemorySink::new());
    let host = Fixture::host(f.data.path(), f.home.path(), &sink);
    let resumed = host
        .start(f.spec(
            json!([tool("b3", "Bash", call.clone()), text("ok again")]),
            Some(id.clone()),
        ))
        .await
        .unwrap();
    assert_eq!(resumed.handle.session_rules, ["Bash(touch made.txt)"]);
    assert!(
        !resumed.handle.events.is_empty(),
        "the history comes with the handle"
    );
    let outcome = host
        .send_prompt(&id, "again")
        .unwrap()
        .wait()
        .await
        .unwrap();
    assert_eq!(outcome.status, SessionStatus::Completed);
    assert_eq!(host.finish().await, 0, "finishing flushes every event");
    let events = sink.events();
    // The agent read the stored history before the resumed prompt: its
    // first request continues the turn count and carries the conversation.
    let first_request = events
        .iter()
        .find_map(|e| match e.body {
            EventBody::ModelRequestStarted { turn, messages } => Some((turn, messages)),
            _ => None,
        })
        .expect("the resumed prompt made a request");
    assert_eq!(first_request.0, 4, "three turns came before");
    assert!(first_request.1 > 1, "{first_request:?}");
    assert!(!requested(&events, "b3"));
    assert!(
        !completed(&events, "b3").0,
        "{:?}",
        completed(&events, "b3")
    );
}

#[tokio::test]
async fn the_handle_names_the_files_always_allow_can_write() {
    let f = Fixture::new();
    let started = f
        .host
        .start(f.spec(json!([text("hi")]), None))
        .await
        .unwrap();
    let files: Vec<(RuleSource, PathBuf)> = started
        .handle
        .rule_files
        .iter()
        .map(|r| (r.source, PathBuf::from(&r.path)))
        .collect();
    assert_eq!(
        files,
        [
            (
                RuleSource::Local,
                f.dir().join(".claude/settings.local.json")
            ),
            (RuleSource::Project, f.dir().join(".claude/settings.json")),
            (
                RuleSource::User,
                f.home.path().join(".claude/settings.json")
            ),
        ]
    );
}

#[tokio::test]
async fn an_imported_session_is_not_resumed_whatever_the_provider() {
    let f = Fixture::new();
    let store = Store::open(f.data.path()).unwrap();
    store
        .create_session_with(
            &NewSession {
                id: "cc-imported".into(),
                project_path: f.dir().to_string_lossy().into_owned(),
                provider: "claude_code".into(),
                model: "claude-x".into(),
                mode: "default".into(),
            },
            &SessionProvenance {
                origin: SessionOrigin::ClaudeCode,
                source_path: Some("/elsewhere/cc-imported.jsonl".into()),
                ..SessionProvenance::default()
            },
        )
        .unwrap();
    // The caller picked a provider (the app's resume with a provider
    // choice): the host itself refuses.
    let Err(e) = f
        .host
        .start(f.spec(json!([text("hi")]), Some("cc-imported".into())))
        .await
    else {
        panic!("an imported session must not be resumed");
    };
    assert!(
        e.to_string()
            .contains("cc-imported was imported from Claude Code and cannot be resumed"),
        "{e}"
    );
    assert!(f.host.send_prompt("cc-imported", "go on").is_err());
    assert_eq!(
        store.session("cc-imported").unwrap().unwrap().event_count,
        0,
        "nothing was appended"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn always_allow_writes_the_rule_into_the_chosen_settings_file() {
    let f = Fixture::new();
    let call = json!({"command": "touch t1"});
    let id = f
        .start(json!([tool("b1", "Bash", call.clone()), text("ok"),]))
        .await;
    let ticket = f.host.send_prompt(&id, "go").unwrap();
    f.wait_for_request("b1").await;
    let bad = f.host.answer_permission(
        &id,
        "b1",
        PermissionAnswer::AlwaysAllow {
            rules: vec!["Bash(touch t1)".into()],
            destination: RuleSource::Policy,
        },
    );
    assert!(
        bad.unwrap_err()
            .to_string()
            .contains("pick local, project or user")
    );
    f.host
        .answer_permission(
            &id,
            "b1",
            PermissionAnswer::AlwaysAllow {
                rules: vec!["Bash(touch t1)".into()],
                destination: RuleSource::User,
            },
        )
        .unwrap();
    f.done(ticket).await;
    assert!(f.dir().join("t1").exists());
    let written = std::fs::read_to_string(f.home.path().join(".claude/settings.json")).unwrap();
    let v: Value = serde_json::from_str(&written).unwrap();
    assert_eq!(v["permissions"]["allow"], json!(["Bash(touch t1)"]));
    // A new session of the project runs it without asking: the user's
    // settings apply whether or not the project is trusted.
    let id2 = f.start(json!([tool("b9", "Bash", call), text("ok")])).await;
    f.done(f.host.send_prompt(&id2, "go").unwrap()).await;
    assert!(!requested(&f.sink.events(), "b9"));
}

/// Issue 17 item 1: "always allow" into the project's local file, in an
/// untrusted project, kept asking — the project then asked to be trusted
/// because of the very file Gatehouse wrote, and its allow rules did not
/// apply. Saving the rule records the project as trusted.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn always_allow_into_the_local_file_keeps_working_in_the_next_session() {
    let f = Fixture::new();
    let file = "${PROJECT_DIR}/a.txt";
    let edit =
        |from: &str, to: &str| json!({"file_path": file, "old_string": from, "new_string": to});
    let id = f
        .start(json!([
            tool("r1", "Read", json!({"file_path": file})),
            tool("e1", "Edit", edit("alpha", "beta")),
            tool("e2", "Edit", edit("beta", "gamma")),
            text("done"),
        ]))
        .await;
    let ticket = f.host.send_prompt(&id, "edit it").unwrap();
    let request = f.wait_for_request("e1").await;
    let EventBody::PermissionRequested {
        suggestions,
        user_suggestions,
        ..
    } = &request.body
    else {
        unreachable!()
    };
    assert_eq!(suggestions, &["Edit(./a.txt)"]);
    assert_eq!(
        user_suggestions,
        &[format!("Edit(/{}/a.txt)", f.dir().display())],
        "for the user's file the rule is absolute"
    );
    f.host
        .answer_permission(
            &id,
            "e1",
            PermissionAnswer::AlwaysAllow {
                rules: suggestions.clone(),
                destination: RuleSource::Local,
            },
        )
        .unwrap();
    f.done(ticket).await;
    let events = f.sink.events();
    assert!(!requested(&events, "e2"), "the same session asks no more");
    assert!(
        !completed(&events, "e2").0,
        "{:?}",
        completed(&events, "e2")
    );
    let written = std::fs::read_to_string(f.dir().join(".claude/settings.local.json")).unwrap();
    let v: Value = serde_json::from_str(&written).unwrap();
    assert_eq!(v["permissions"]["allow"], json!(["Edit(./a.txt)"]));

    // Saving into the project's file recorded the project as trusted, so
    // the app does not ask "Trust this project?" because of that file.
    let project = f
        .host
        .store()
        .project_by_path(&f.dir().display().to_string())
        .unwrap()
        .expect("the project is recorded");
    assert!(project.has_project_settings);
    assert!(project.trusted_at_ms.is_some(), "{project:?}");

    // A new session of the project, started with the stored trust as the
    // app starts it: the same edit runs without asking.
    let mut spec = f.spec(
        json!([
            tool("r3", "Read", json!({"file_path": file})),
            tool("e3", "Edit", edit("gamma", "delta")),
            text("done"),
        ]),
        None,
    );
    spec.trust_project = project.trusted_at_ms.is_some();
    let id2 = f.host.start(spec).await.unwrap().handle.session_id;
    f.done(f.host.send_prompt(&id2, "again").unwrap()).await;
    let events = f.sink.events();
    assert!(!requested(&events, "e3"), "the next session asks no more");
    assert_eq!(
        std::fs::read_to_string(f.dir().join("a.txt")).unwrap(),
        "delta\n"
    );
}

/// A settings file that cannot be written: the user is told which and why,
/// the call still runs once, and nothing is trusted.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn always_allow_into_a_read_only_file_says_so_and_trusts_nothing() {
    let f = Fixture::new();
    let local = f.dir().join(".claude/settings.local.json");
    std::fs::create_dir(f.dir().join(".claude")).unwrap();
    std::fs::write(&local, "{}\n").unwrap();
    let mut perms = std::fs::metadata(&local).unwrap().permissions();
    perms.set_readonly(true);
    std::fs::set_permissions(&local, perms).unwrap();
    let id = f
        .start(json!([
            tool("b1", "Bash", json!({"command": "touch t1"})),
            text("ok")
        ]))
        .await;
    let ticket = f.host.send_prompt(&id, "go").unwrap();
    f.wait_for_request("b1").await;
    f.host
        .answer_permission(
            &id,
            "b1",
            PermissionAnswer::AlwaysAllow {
                rules: vec!["Bash(touch t1)".into()],
                destination: RuleSource::Local,
            },
        )
        .unwrap();
    f.done(ticket).await;
    let message = f
        .sink
        .events()
        .into_iter()
        .find_map(|e| match e.body {
            EventBody::SessionError { message, .. } => Some(message),
            _ => None,
        })
        .expect("the failed write is reported");
    assert!(
        message.contains("settings.local.json") && message.contains("read-only"),
        "{message}"
    );
    assert_eq!(std::fs::read_to_string(&local).unwrap(), "{}\n");
    assert!(f.dir().join("t1").exists(), "allowed once all the same");
    let project = f
        .host
        .store()
        .project_by_path(&f.dir().display().to_string())
        .unwrap();
    assert!(
        project.is_none_or(|p| p.trusted_at_ms.is_none()),
        "no rule was saved, so nothing is trusted"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn set_mode_changes_what_asks_and_is_reported() {
    let f = Fixture::new();
    let file = "${PROJECT_DIR}/new.txt";
    let id = f
        .start(json!([
            tool("w1", "Write", json!({"file_path": file, "content": "x"})),
            text("ok"),
        ]))
        .await;
    f.host.set_mode(&id, PermissionMode::AcceptEdits).unwrap();
    assert_eq!(f.host.mode(&id).unwrap(), PermissionMode::AcceptEdits);
    f.done(f.host.send_prompt(&id, "go").unwrap()).await;
    let events = f.sink.events();
    assert!(!requested(&events, "w1"), "acceptEdits lets the write run");
    assert!(f.dir().join("new.txt").exists());
    assert_eq!(
        f.count(|b| matches!(
            b,
            EventBody::ModeChanged {
                mode: PermissionMode::AcceptEdits
            }
        )),
        1
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_interrupt_stops_a_long_command_and_its_process() {
    let f = Fixture::new();
    let marker = f.dir().join("sleeper.pid");
    // A command that never ends by itself: only the interrupt ends the call
    // (else `done` fails, the exchange never ending).
    let command = format!("echo $$ > {}; sleep infinity", marker.display());
    let id = f
        .start(json!([
            tool("b1", "Bash", json!({"command": command})),
            text("never"),
        ]))
        .await;
    f.host
        .set_mode(&id, PermissionMode::BypassPermissions)
        .unwrap();
    let ticket = f.host.send_prompt(&id, "go").unwrap();
    f.wait_for(
        "the command to start",
        |e| matches!(&e.body, EventBody::ToolStarted { tool_use_id, .. } if tool_use_id == "b1"),
    )
    .await;
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::fs::read_to_string(&marker).map_or(true, |s| s.trim().is_empty()) {
        assert!(Instant::now() < deadline, "the command never wrote its pid");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let pid: i32 = std::fs::read_to_string(&marker)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(f.host.is_running(&id).unwrap());
    f.host.interrupt(&id).unwrap();
    let outcome = f.done(ticket).await;
    assert_eq!(outcome.status, SessionStatus::Interrupted);
    let (is_error, content) = completed(&f.sink.events(), "b1");
    assert!(is_error);
    assert!(content.to_lowercase().contains("interrupt"), "{content}");
    assert!(
        !Path::new(&format!("/proc/{pid}")).exists()
            || std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .is_ok_and(|s| s.contains(") Z ")),
        "the shell process {pid} is gone"
    );
    assert!(!f.host.is_running(&id).unwrap());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_interrupt_withdraws_a_waiting_prompt_as_denied() {
    let f = Fixture::new();
    let id = f
        .start(json!([
            tool("b1", "Bash", json!({"command": "touch x"})),
            text("never"),
        ]))
        .await;
    let ticket = f.host.send_prompt(&id, "go").unwrap();
    f.wait_for_request("b1").await;
    f.host.interrupt(&id).unwrap();
    assert_eq!(f.done(ticket).await.status, SessionStatus::Interrupted);
    assert!(f.host.pending_permissions(&id).unwrap().is_empty());
    assert_eq!(
        f.count(|b| matches!(
            b,
            EventBody::PermissionAnswered {
                answer: PermissionAnswer::Deny { .. },
                ..
            }
        )),
        1
    );
    assert!(!f.dir().join("x").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn project_allow_rules_apply_only_to_a_trusted_project() {
    let f = Fixture::new();
    std::fs::create_dir(f.dir().join(".claude")).unwrap();
    std::fs::write(
        f.dir().join(".claude/settings.json"),
        r#"{"permissions": {"allow": ["Bash(touch trusted-ok)"]}}"#,
    )
    .unwrap();
    let turns = json!([
        tool("b1", "Bash", json!({"command": "touch trusted-ok"})),
        text("ok"),
    ]);
    let mut spec = f.spec(turns.clone(), None);
    spec.ask = AskPolicy::DenyAll;
    let id = f.host.start(spec).await.unwrap().handle.session_id;
    f.done(f.host.send_prompt(&id, "go").unwrap()).await;
    assert!(
        !f.dir().join("trusted-ok").exists(),
        "untrusted: the allow rule is ignored"
    );

    let mut spec = f.spec(turns, None);
    spec.ask = AskPolicy::DenyAll;
    spec.trust_project = true;
    let id = f.host.start(spec).await.unwrap().handle.session_id;
    f.done(f.host.send_prompt(&id, "go").unwrap()).await;
    assert!(
        f.dir().join("trusted-ok").exists(),
        "trusted: the allow rule applies"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn closing_a_session_stops_its_background_tasks() {
    let f = Fixture::new();
    let id = f
        .start(json!([
            tool(
                "b1",
                "Bash",
                json!({"command": "sleep 60", "run_in_background": true})
            ),
            text("started"),
        ]))
        .await;
    f.host
        .set_mode(&id, PermissionMode::BypassPermissions)
        .unwrap();
    f.done(f.host.send_prompt(&id, "go").unwrap()).await;
    let stopped = f.host.close(&id).await.unwrap();
    assert_eq!(stopped.len(), 1, "{stopped:?}");
    assert_eq!(stopped[0].command, "sleep 60");
    assert!(f.host.open_sessions().is_empty());
    let err = f.host.interrupt(&id).unwrap_err();
    assert!(err.to_string().contains("no open session"), "{err}");
}
