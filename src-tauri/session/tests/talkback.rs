//! Issue 20 in an interactive session (real SQLite, real tools, real
//! project folder, the replay provider as the model): a question waits for
//! `answer_interaction`, a reply that does not fit is refused with the field
//! named, a plan approved with acceptEdits lets a Write run unasked, a plan
//! sent back keeps the session in plan mode with the feedback for the model.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use gatehouse_agent::provider::replay::{ReplayProvider, Script};
use gatehouse_core::events::MemorySink;
use gatehouse_protocol::event::{Event, EventBody};
use gatehouse_protocol::interaction::{InteractionReply, QuestionAnswer};
use gatehouse_protocol::permission::PermissionMode;
use gatehouse_session::host::AskPolicy;
use gatehouse_session::{HostConfig, PromptTicket, SessionHost, StartSpec};
use gatehouse_store::Store;
use serde_json::{Value, json};

mod common;
use common::{completed, text, tool};

struct Fixture {
    data: tempfile::TempDir,
    _home: tempfile::TempDir,
    project: tempfile::TempDir,
    sink: Arc<MemorySink>,
    host: SessionHost,
}

impl Fixture {
    fn new() -> Self {
        let data = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        let sink = Arc::new(MemorySink::new());
        let mut config = HostConfig::new(data.path().to_path_buf());
        config.home = home.path().to_path_buf();
        let host =
            SessionHost::new(config, sink.clone(), tokio::runtime::Handle::current()).unwrap();
        Self {
            data,
            _home: home,
            project,
            sink,
            host,
        }
    }

    fn dir(&self) -> PathBuf {
        self.project.path().canonicalize().unwrap()
    }

    async fn start(&self, turns: Value, mode: PermissionMode) -> String {
        let script = Script::parse(&json!({ "turns": turns }).to_string())
            .unwrap()
            .with_project_dir(&self.dir());
        self.host
            .start(StartSpec {
                project: self.dir(),
                provider: Arc::new(ReplayProvider::new(script)),
                model: "replay".into(),
                mode: Some(mode),
                trust_project: false,
                ask: AskPolicy::Interactive,
                resume: None,
                settings_files: Vec::new(),
                mcp_startup_timeout: None,
            })
            .await
            .unwrap()
            .handle
            .session_id
    }

    /// Waits (event order; the deadline only stops a hang) for an event.
    async fn wait_for(&self, what: &str, pred: impl Fn(&EventBody) -> bool) -> Event {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(e) = self.sink.events().into_iter().find(|e| pred(&e.body)) {
                return e;
            }
            assert!(Instant::now() < deadline, "no {what} within 30 s");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    async fn wait_for_interaction(&self, id: &str) -> Event {
        self.wait_for(&format!("interaction_requested for {id}"), |b| {
            matches!(b, EventBody::InteractionRequested { tool_use_id, .. } if tool_use_id == id)
        })
        .await
    }

    async fn done(&self, ticket: PromptTicket) {
        tokio::time::timeout(Duration::from_secs(30), ticket.wait())
            .await
            .expect("the exchange ends")
            .expect("the session stays open");
        self.wait_for("session_completed", |b| {
            matches!(b, EventBody::SessionCompleted { .. })
        })
        .await;
    }

    fn count(&self, pred: impl Fn(&EventBody) -> bool) -> usize {
        self.sink.events().iter().filter(|e| pred(&e.body)).count()
    }
}

fn questions() -> Value {
    json!({"questions": [
        {"question": "Which library?", "header": "Library", "multiSelect": false,
         "options": [{"label": "React", "description": "components"},
                     {"label": "Vue", "description": "templates"}]}
    ]})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_question_waits_for_the_user_and_a_reply_that_does_not_fit_is_refused() {
    let f = Fixture::new();
    let id = f
        .start(
            json!([tool("q1", "AskUserQuestion", questions()), text("ok")]),
            // Even bypassPermissions does not answer for the user.
            PermissionMode::BypassPermissions,
        )
        .await;
    let ticket = f.host.send_prompt(&id, "ask me").unwrap();
    f.wait_for_interaction("q1").await;
    assert_eq!(
        f.count(|b| matches!(b, EventBody::PermissionRequested { .. })),
        0,
        "the question is the prompt"
    );
    let wrong = InteractionReply::Answers {
        answers: vec![QuestionAnswer {
            header: "Library".into(),
            selected: vec!["Angular".into()],
            other: None,
        }],
    };
    let err = f.host.answer_interaction(&id, "q1", wrong).unwrap_err();
    assert!(
        err.to_string()
            .contains("answers[0].selected: \"Angular\" is not an option of \"Library\""),
        "{err}"
    );
    let plan_reply = InteractionReply::PlanApproved {
        mode: PermissionMode::Default,
    };
    assert!(f.host.answer_interaction(&id, "q1", plan_reply).is_err());
    f.host
        .answer_interaction(
            &id,
            "q1",
            InteractionReply::Answers {
                answers: vec![QuestionAnswer {
                    header: "Library".into(),
                    selected: vec!["React".into()],
                    other: None,
                }],
            },
        )
        .unwrap();
    f.done(ticket).await;
    let (is_error, content) = completed(&f.sink.events(), "q1");
    assert!(!is_error);
    assert!(
        content.contains(
            r#"User has answered your questions: \"Which library?\"=\"React\". You can now continue with the user's answers in mind."#
        ),
        "{content}"
    );
    // Answered once; a late answer finds nothing waiting.
    assert!(
        f.host
            .answer_interaction(
                &id,
                "q1",
                InteractionReply::Unanswered { reason: "x".into() }
            )
            .is_err()
    );
    // The reply is stored with the session.
    f.host.close(&id).await.unwrap();
    let store = Store::open(f.data.path()).unwrap();
    let (events, _) = store.session_events(&id).unwrap();
    assert!(events.iter().any(|e| matches!(
        &e.body,
        EventBody::InteractionAnswered { reply: InteractionReply::Answers { answers }, .. }
            if answers[0].selected == ["React"]
    )));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_plan_approved_with_accept_edits_lets_a_write_run_unasked() {
    let f = Fixture::new();
    let write = json!({"file_path": "${PROJECT_DIR}/new.txt", "content": "hi\n"});
    let id = f
        .start(
            json!([
                tool("w0", "Write", write.clone()),
                tool(
                    "exit",
                    "ExitPlanMode",
                    json!({"plan": "# Plan\n\n- write new.txt"})
                ),
                tool("w1", "Write", write),
                text("written"),
            ]),
            PermissionMode::Plan,
        )
        .await;
    let ticket = f.host.send_prompt(&id, "plan and write").unwrap();
    let asked = f.wait_for_interaction("exit").await;
    let EventBody::InteractionRequested { interaction, .. } = &asked.body else {
        unreachable!()
    };
    assert_eq!(
        serde_json::to_value(interaction).unwrap(),
        json!({"kind": "plan_approval", "plan": "# Plan\n\n- write new.txt"})
    );
    let (w0_error, w0) = completed(&f.sink.events(), "w0");
    assert!(
        w0_error && w0.contains("the session is in plan mode"),
        "{w0}"
    );
    let bypass = InteractionReply::PlanApproved {
        mode: PermissionMode::BypassPermissions,
    };
    let err = f.host.answer_interaction(&id, "exit", bypass).unwrap_err();
    assert!(err.to_string().contains("reply.mode"), "{err}");
    f.host
        .answer_interaction(
            &id,
            "exit",
            InteractionReply::PlanApproved {
                mode: PermissionMode::AcceptEdits,
            },
        )
        .unwrap();
    f.done(ticket).await;
    let (w1_error, w1) = completed(&f.sink.events(), "w1");
    assert!(!w1_error, "{w1}");
    assert_eq!(
        std::fs::read_to_string(f.dir().join("new.txt")).unwrap(),
        "hi\n"
    );
    assert_eq!(
        f.count(|b| matches!(b, EventBody::PermissionRequested { .. })),
        0,
        "acceptEdits ran the Write without asking"
    );
    let modes: Vec<PermissionMode> = f
        .sink
        .events()
        .iter()
        .filter_map(|e| match e.body {
            EventBody::ModeChanged { mode } => Some(mode),
            _ => None,
        })
        .collect();
    assert_eq!(modes, [PermissionMode::AcceptEdits]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_plan_sent_back_keeps_planning_with_the_feedback() {
    let f = Fixture::new();
    let id = f
        .start(
            json!([
                tool("enter", "EnterPlanMode", json!({})),
                tool("exit", "ExitPlanMode", json!({"plan": "# Plan"})),
                tool(
                    "w1",
                    "Write",
                    json!({"file_path": "${PROJECT_DIR}/x.txt", "content": "x"})
                ),
                text("ok"),
            ]),
            PermissionMode::Default,
        )
        .await;
    let ticket = f.host.send_prompt(&id, "plan").unwrap();
    f.wait_for_interaction("exit").await;
    f.host
        .answer_interaction(
            &id,
            "exit",
            InteractionReply::KeepPlanning {
                feedback: Some("Add tests first".into()),
            },
        )
        .unwrap();
    f.done(ticket).await;
    let (_, exit) = completed(&f.sink.events(), "exit");
    assert!(
        exit.contains("wants you to keep planning")
            && exit.contains("The user said:\\nAdd tests first"),
        "{exit}"
    );
    let (w1_error, _) = completed(&f.sink.events(), "w1");
    assert!(w1_error, "still in plan mode");
    assert!(!f.dir().join("x.txt").exists());
}
