//! Agent tasks in the session's task manager (issue 19 item 4): one id
//! space with Bash tasks, the same events with a typed kind, TaskOutput
//! reading the transcript, TaskStop interrupting, SendMessage queueing or
//! resuming, and the notices the parent gets at its next turn. The driver
//! here stands in for the agent loop (`gatehouse-agent` drives the real one;
//! see its `background_agents` test); the manager, the tools, the output
//! files and a real background Bash process are real.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod shell_support;

use std::sync::Arc;

use gatehouse_core::testing::TestResolver;
use gatehouse_core::typed::Typed;
use gatehouse_core::{CallStatus, ToolPool, ToolRuntime, ToolUseBlock};
use gatehouse_protocol::event::{EventBody, TaskKind, TaskStatus};
use gatehouse_tools::tasks::{AfterEnd, AgentTaskSpec, MessageDelivery, SendMessageTool};
use serde_json::json;
use shell_support::env;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

fn spec(description: &str) -> AgentTaskSpec {
    AgentTaskSpec {
        agent_session_id: format!("s-agent-{description}"),
        subagent_type: "general-purpose".into(),
        description: description.into(),
    }
}

/// A driver that answers each prompt with `answer: <prompt>` and reports
/// what it ran on `ran`; it runs until its task is stopped or closes.
fn echo_driver(
    ran: mpsc::UnboundedSender<String>,
) -> impl FnOnce(gatehouse_tools::tasks::AgentTaskControl) -> futures_like::Fut {
    move |control| {
        Box::pin(async move {
            let mut prompt = "first".to_owned();
            loop {
                control.log(&format!("[prompt] {prompt}"));
                // Messages queued while it runs are taken before its next
                // model request.
                for m in control.take_messages() {
                    control.log(&format!("[message] {m}"));
                }
                control.log(&format!("[assistant] answer: {prompt}"));
                let _ = ran.send(prompt.clone());
                match control.end(
                    TaskStatus::Completed,
                    "the agent answered".into(),
                    Some(format!("answer: {prompt}")),
                ) {
                    AfterEnd::Continue(next) => prompt = next,
                    AfterEnd::Ended => match control.wait_message().await {
                        Some(next) => prompt = next,
                        None => break,
                    },
                }
            }
        })
    }
}

mod futures_like {
    pub type Fut = std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>;
}

#[tokio::test]
async fn agent_tasks_share_the_id_space_and_events_and_take_messages() {
    let mut env = env();
    // A Bash task first: the agent's id continues the numbering.
    let r = env
        .run(
            "b1",
            "Bash",
            json!({"command": "echo hi", "run_in_background": true}),
        )
        .await;
    assert_eq!(r.status, CallStatus::Succeeded, "{}", r.text());
    let (tx, mut ran) = mpsc::unbounded_channel();
    let info = env
        .tasks
        .start_agent(spec("survey"), Some("a1".into()), echo_driver(tx))
        .unwrap();
    assert_eq!(info.task_id, "agent_2");
    assert_eq!(info.kind, TaskKind::Agent);
    assert_eq!(info.pgid, None);
    assert_eq!(ran.recv().await.unwrap(), "first");

    // TaskOutput reads the transcript so far and reports the end.
    let r = env
        .run(
            "o1",
            "TaskOutput",
            json!({"task_id": "agent_2", "timeout": 60_000}),
        )
        .await;
    assert_eq!(r.status, CallStatus::Succeeded, "{}", r.text());
    let text = r.text();
    assert!(
        text.contains("Task agent_2 is completed (the agent answered)"),
        "{text}"
    );
    assert!(text.contains("[assistant] answer: first"), "{text}");

    // A message to the finished agent starts it again under its id.
    assert_eq!(
        env.tasks.send_message("agent_2", "second").unwrap(),
        MessageDelivery::Resumed
    );
    assert_eq!(ran.recv().await.unwrap(), "second");
    let r = env
        .run(
            "o2",
            "TaskOutput",
            json!({"task_id": "agent_2", "timeout": 60_000}),
        )
        .await;
    let text = r.text();
    assert!(text.contains("[assistant] answer: second"), "{text}");
    assert!(!text.contains("answer: first"), "only new output: {text}");

    // Events: the Bash task is a process, the agent an agent that started
    // twice and completed twice, each start closed by one completion.
    let kinds: Vec<(String, TaskKind, &str)> = env
        .events()
        .into_iter()
        .filter_map(|e| match e.body {
            EventBody::TaskStarted { task_id, kind, .. } => Some((task_id, kind, "started")),
            EventBody::TaskCompleted { task_id, kind, .. } => Some((task_id, kind, "completed")),
            _ => None,
        })
        .filter(|(id, _, _)| id == "agent_2")
        .collect();
    assert_eq!(
        kinds,
        [
            ("agent_2".into(), TaskKind::Agent, "started"),
            ("agent_2".into(), TaskKind::Agent, "completed"),
            ("agent_2".into(), TaskKind::Agent, "started"),
            ("agent_2".into(), TaskKind::Agent, "completed"),
        ]
    );
    assert!(env.events().iter().any(|e| matches!(
        &e.body,
        EventBody::TaskStarted { task_id, kind: TaskKind::Process, agent_session_id: None, .. } if task_id == "bash_1"
    )));
    assert!(env.events().iter().any(|e| matches!(
        &e.body,
        EventBody::TaskStarted { task_id, agent_session_id: Some(s), subagent_type: Some(t), .. }
            if task_id == "agent_2" && s == "s-agent-survey" && t == "general-purpose"
    )));
    // Both agent ends were reported by TaskOutput: no notice repeats them;
    // the Bash task's end was never read, so it is announced.
    while env.tasks.info("bash_1").unwrap().state.status == TaskStatus::Running {
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    let notices = env.tasks.take_notices();
    assert_eq!(notices.len(), 1, "{notices:#?}");
    assert!(
        notices[0]
            .contains("Background task bash_1 (command `echo hi`) completed: exited with code 0."),
        "{}",
        notices[0]
    );
    assert!(
        env.tasks.take_notices().is_empty(),
        "each end is announced once"
    );
}

#[tokio::test]
async fn an_unread_agent_end_is_announced_with_its_answer() {
    let env = env();
    let (tx, mut ran) = mpsc::unbounded_channel();
    env.tasks
        .start_agent(spec("count"), None, echo_driver(tx))
        .unwrap();
    ran.recv().await.unwrap();
    // The end is recorded right after the driver reported it.
    let info = env.tasks.info("agent_1").unwrap();
    let mut rx = info.state.status;
    while rx == TaskStatus::Running {
        tokio::task::yield_now().await;
        rx = env.tasks.info("agent_1").unwrap().state.status;
    }
    let notices = env.tasks.take_notices();
    assert_eq!(notices.len(), 1);
    let n = &notices[0];
    assert!(n.starts_with("<task-notification>"), "{n}");
    assert!(
        n.contains(
            "Background task agent_1 (agent general-purpose (count)) completed: the agent answered."
        ),
        "{n}"
    );
    assert!(n.contains("Its final answer:\nanswer: first"), "{n}");
    assert!(n.contains("TaskOutput (task_id \"agent_1\")"), "{n}");
}

#[tokio::test]
async fn stopping_an_agent_interrupts_it_and_it_takes_no_more_messages() {
    let env = env();
    let (started_tx, mut started) = mpsc::unbounded_channel();
    env.tasks
        .start_agent(spec("slow"), None, move |control| async move {
            let stop = control.stop_token();
            let _ = started_tx.send(());
            // A run that only the stop ends.
            stop.cancelled().await;
            let reason = control.stop_reason().unwrap_or_default();
            let _ = control.end(
                TaskStatus::Stopped,
                format!("stopped because {reason}"),
                None,
            );
        })
        .unwrap();
    started.recv().await.unwrap();
    // While it runs, a message queues.
    assert_eq!(
        env.tasks.send_message("agent_1", "hurry").unwrap(),
        MessageDelivery::Queued
    );
    let after = env.tasks.stop("agent_1", "TaskStop asked").await.unwrap();
    assert_eq!(after.state.status, TaskStatus::Stopped);
    assert_eq!(
        after.state.message.as_deref(),
        Some("stopped because TaskStop asked")
    );
    let err = env
        .tasks
        .send_message("agent_1", "again")
        .unwrap_err()
        .to_string();
    assert!(err.contains("agent task agent_1 was stopped"), "{err}");
    assert!(err.contains("start a new agent"), "{err}");
}

#[tokio::test]
async fn sendmessage_errors_name_the_cause() {
    let mut env = env();
    let r = env
        .run(
            "b1",
            "Bash",
            json!({"command": "sleep 30", "run_in_background": true}),
        )
        .await;
    assert_eq!(r.status, CallStatus::Succeeded, "{}", r.text());
    // SendMessage through the pipeline, as the model calls it.
    let rt = ToolRuntime::builder(
        Arc::new(ToolPool::new(vec![Typed::arc(SendMessageTool::new(
            Arc::clone(&env.tasks),
        ))])),
        Arc::new(TestResolver::allow_all()),
        &env.session_dir,
    )
    .session_id("s")
    .build();
    let mut ctx = env.ctx.clone();
    let mut send = async |id: &str, input: serde_json::Value| {
        rt.run_one(
            ToolUseBlock::new(id, "SendMessage", input),
            &mut ctx,
            &CancellationToken::new(),
        )
        .await
    };
    let r = send("m1", json!({"to": "agent_9", "message": "hi"})).await;
    assert_eq!(r.status, CallStatus::Failed, "{}", r.text());
    assert!(
        r.text()
            .contains("no background task has the id \"agent_9\" (known tasks: bash_1)"),
        "{}",
        r.text()
    );
    let r = send("m2", json!({"to": "bash_1", "message": "hi"})).await;
    assert!(
        r.text()
            .contains("task bash_1 is a background command (sleep 30), not an agent"),
        "{}",
        r.text()
    );
    let (tx, mut ran) = mpsc::unbounded_channel();
    env.tasks
        .start_agent(spec("x"), None, echo_driver(tx))
        .unwrap();
    ran.recv().await.unwrap();
    let r = send("m3", json!({"to": "agent_2", "message": "  "})).await;
    assert!(r.text().contains("the message is empty"), "{}", r.text());
    let big = "x".repeat(gatehouse_tools::tasks::agent_task::MAX_MESSAGE_BYTES + 1);
    let r = send("m4", json!({"to": "agent_2", "message": big})).await;
    assert!(
        r.text().contains("at most 102400 are delivered"),
        "{}",
        r.text()
    );
    // Shutdown stops the Bash task and ends the idle agent's driver.
    let stopped = env.tasks.shutdown().await;
    assert_eq!(stopped.len(), 1, "{stopped:?}");
    let err = env
        .tasks
        .send_message("agent_2", "late")
        .unwrap_err()
        .to_string();
    assert!(err.contains("closing"), "{err}");
}
