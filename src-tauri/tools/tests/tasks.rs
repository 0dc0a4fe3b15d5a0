//! Background tasks, TaskOutput and TaskStop with real processes.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod shell_support;

use gatehouse_core::CallStatus;
use gatehouse_protocol::event::{EventBody, TaskStatus};
use serde_json::json;
use shell_support::{Env, STUBBORN, env, printed_pids, survivors};

async fn start(env: &mut Env, id: &str, command: &str) -> String {
    let r = env
        .run(
            id,
            "Bash",
            json!({ "command": command, "run_in_background": true, "description": "a task" }),
        )
        .await;
    assert_eq!(r.status, CallStatus::Succeeded, "{}", r.text());
    let text = r.text();
    let id = text
        .split("task id ")
        .nth(1)
        .and_then(|rest| rest.split(|c: char| c == '.' || c.is_whitespace()).next())
        .unwrap()
        .to_owned();
    assert!(id.starts_with("bash_"), "{text}");
    id
}

/// A blocking TaskOutput read (call `t2`) of task `id`, which returns once
/// it ended: the result text.
async fn wait_end(env: &mut Env, id: &str) -> String {
    let r = env
        .run(
            "t2",
            "TaskOutput",
            json!({ "task_id": id, "timeout": 60_000 }),
        )
        .await;
    assert_eq!(r.status, CallStatus::Succeeded, "{}", r.text());
    r.text()
}

fn task_events(env: &Env) -> Vec<EventBody> {
    env.events()
        .into_iter()
        .map(|e| e.body)
        .filter(|b| {
            matches!(
                b,
                EventBody::TaskStarted { .. } | EventBody::TaskCompleted { .. }
            )
        })
        .collect()
}

#[tokio::test]
async fn a_background_command_returns_a_task_id_and_its_output_is_read_later() {
    let mut env = env();
    let id = start(
        &mut env,
        "t1",
        "echo one; printf '\\033[1mtwo\\033[0m\\n'; exit 0",
    )
    .await;
    let text = wait_end(&mut env, &id).await;
    assert!(text.contains("is completed"), "{text}");
    assert!(text.ends_with("one\ntwo\n"), "{text}");
    // Nothing new the second time.
    let r = env
        .run("t3", "TaskOutput", json!({ "task_id": id, "block": false }))
        .await;
    assert!(r.text().contains("No new output"), "{}", r.text());
    // The file has the raw bytes, ANSI included.
    let file = env.session_dir.join(format!("tasks/{id}.log"));
    assert_eq!(
        std::fs::read(file).unwrap(),
        b"one\n\x1b[1mtwo\x1b[0m\n".to_vec()
    );
    let events = task_events(&env);
    assert_eq!(events.len(), 2, "{events:?}");
    // On the wire: flat objects with snake_case types.
    let wire: Vec<serde_json::Value> = env
        .events()
        .into_iter()
        .filter(|e| {
            matches!(
                e.body,
                EventBody::TaskStarted { .. } | EventBody::TaskCompleted { .. }
            )
        })
        .map(|e| serde_json::to_value(e).unwrap())
        .collect();
    assert_eq!(wire[0]["type"], "task_started");
    assert_eq!(wire[0]["task_id"], id.as_str());
    assert_eq!(
        wire[0]["command"].as_str().unwrap().split(';').next(),
        Some("echo one")
    );
    assert_eq!(wire[1]["type"], "task_completed");
    assert_eq!(wire[1]["status"], "completed");
    assert_eq!(wire[1]["exit_code"], 0);
    assert!(
        wire[1]["output_path"]
            .as_str()
            .unwrap()
            .ends_with(&format!("{id}.log"))
    );
    assert!(
        matches!(&events[0], EventBody::TaskStarted { task_id, tool_use_id: Some(t), description: Some(_), .. } if *task_id == id && t == "t1")
    );
    assert!(
        matches!(&events[1], EventBody::TaskCompleted { task_id, status: TaskStatus::Completed, exit_code: Some(0), .. } if *task_id == id)
    );
}

#[tokio::test]
async fn task_output_filters_lines_and_reports_failure() {
    let mut env = env();
    let id = start(&mut env, "t1", "printf 'a1\\nb2\\na3\\n'; exit 5").await;
    let r = env
        .run(
            "t2",
            "TaskOutput",
            json!({ "task_id": id, "filter": "^a", "timeout": 60_000 }),
        )
        .await;
    let text = r.text();
    assert!(text.contains("is failed (exited with code 5)"), "{text}");
    assert!(text.ends_with("a1\na3\n"), "{text}");
    assert!(!text.contains("b2"), "{text}");
    let r = env
        .run("t3", "TaskOutput", json!({ "task_id": id, "filter": "(" }))
        .await;
    assert!(r.is_error);
    assert!(r.text().contains("regular expression"), "{}", r.text());
}

#[tokio::test]
async fn a_non_blocking_read_of_a_running_task_returns_at_once() {
    let mut env = env();
    let id = start(&mut env, "t1", "echo early; sleep 1000").await;
    // Wait for the first line without assuming how fast the machine is.
    let mut seen = String::new();
    for i in 0..200 {
        let r = env
            .run(
                &format!("r{i}"),
                "TaskOutput",
                json!({ "task_id": id, "block": false }),
            )
            .await;
        assert!(r.text().contains("is running"), "{}", r.text());
        seen.push_str(&r.text());
        if seen.contains("early") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(seen.contains("early"), "{seen}");
    // A blocking read that times out says so.
    let r = env
        .run("w", "TaskOutput", json!({ "task_id": id, "timeout": 100 }))
        .await;
    assert!(
        r.text().contains("still running when the wait timed out"),
        "{}",
        r.text()
    );
    let r = env.run("s", "TaskStop", json!({ "task_id": id })).await;
    assert_eq!(r.status, CallStatus::Succeeded, "{}", r.text());
}

#[tokio::test]
async fn task_stop_kills_the_whole_group_even_when_it_ignores_sigterm() {
    let mut env = env();
    let id = start(&mut env, "t1", STUBBORN).await;
    let path = env.session_dir.join(format!("tasks/{id}.log"));
    let mut text = String::new();
    for _ in 0..600 {
        text = std::fs::read_to_string(&path).unwrap_or_default();
        if text.contains("ready") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let pids = printed_pids(&text);
    assert_eq!(pids.len(), 4, "{text}");
    let r = env.run("t2", "TaskStop", json!({ "task_id": id })).await;
    assert_eq!(r.status, CallStatus::Succeeded, "{}", r.text());
    assert!(r.text().contains("SIGKILL"), "{}", r.text());
    assert_eq!(survivors(&pids).await, Vec::<i32>::new());
    let info = env.tasks.info(&id).unwrap();
    assert_eq!(info.state.status, TaskStatus::Stopped);
    // Stopping it again is refused with a reason.
    let r = env.run("t3", "TaskStop", json!({ "task_id": id })).await;
    assert!(r.is_error);
    assert!(r.text().contains("not running"), "{}", r.text());
}

#[tokio::test]
async fn unknown_task_ids_are_clear_errors() {
    let mut env = env();
    let r = env
        .run("t1", "TaskOutput", json!({ "task_id": "bash_99" }))
        .await;
    assert!(r.is_error);
    assert!(r.text().contains("no background tasks"), "{}", r.text());
    let _ = start(&mut env, "t2", "true").await;
    let r = env
        .run("t3", "TaskStop", json!({ "task_id": "nope" }))
        .await;
    assert!(r.is_error);
    assert!(r.text().contains("known tasks: bash_1"), "{}", r.text());
}

#[tokio::test]
async fn shutdown_stops_running_tasks_and_reports_them() {
    let mut env = env();
    let a = start(&mut env, "t1", "echo \"pid $$\"; sleep 1000").await;
    let b = start(
        &mut env,
        "t2",
        "echo \"pid $$\"; trap '' TERM; while :; do sleep 1; done",
    )
    .await;
    let done = start(&mut env, "t3", "true").await;
    let r = env
        .run(
            "w",
            "TaskOutput",
            json!({ "task_id": done, "timeout": 60_000 }),
        )
        .await;
    assert!(r.text().contains("completed"), "{}", r.text());
    let mut pids = Vec::new();
    for id in [&a, &b] {
        let path = env.session_dir.join(format!("tasks/{id}.log"));
        for _ in 0..600 {
            let found = printed_pids(&std::fs::read_to_string(&path).unwrap_or_default());
            if !found.is_empty() {
                pids.extend(found);
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    }
    assert_eq!(pids.len(), 2);
    let stopped = env.tasks.shutdown().await;
    let mut ids: Vec<_> = stopped.iter().map(|t| t.task_id.clone()).collect();
    ids.sort();
    assert_eq!(ids, vec![a.clone(), b.clone()]);
    for t in &stopped {
        assert_eq!(t.state.status, TaskStatus::Stopped);
        assert!(
            t.state
                .message
                .as_deref()
                .unwrap()
                .contains("the session closed"),
            "{:?}",
            t.state
        );
    }
    assert_eq!(survivors(&pids).await, Vec::<i32>::new());
    let completed = task_events(&env)
        .into_iter()
        .filter(|e| {
            matches!(
                e,
                EventBody::TaskCompleted {
                    status: TaskStatus::Stopped,
                    ..
                }
            )
        })
        .count();
    assert_eq!(completed, 2);
    // No task starts after shutdown.
    let r = env
        .run(
            "late",
            "Bash",
            json!({ "command": "true", "run_in_background": true }),
        )
        .await;
    assert!(r.is_error);
    assert!(r.text().contains("closing"), "{}", r.text());
}

#[tokio::test]
async fn dropping_the_manager_ends_running_tasks() {
    let mut env = env();
    let id = start(&mut env, "t1", "echo \"pid $$\"; sleep 1000").await;
    let path = env.session_dir.join(format!("tasks/{id}.log"));
    let mut pids = Vec::new();
    for _ in 0..600 {
        pids = printed_pids(&std::fs::read_to_string(&path).unwrap_or_default());
        if !pids.is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(pids.len(), 1);
    let Env { rt, tasks, .. } = env;
    drop(rt);
    drop(tasks);
    assert_eq!(survivors(&pids).await, Vec::<i32>::new());
}

#[tokio::test]
async fn a_running_task_streams_its_output_as_bounded_task_output_events_before_it_ends() {
    let mut env = env();
    let id = start(
        &mut env,
        "t1",
        "printf 'first\\n'; printf '\\033[32mgreen\\033[0m\\n'; exit 3",
    )
    .await;
    // A blocking TaskOutput returns once the task has ended.
    let ended = wait_end(&mut env, &id).await;
    assert!(ended.contains("is failed"), "{ended}");
    let bodies: Vec<EventBody> = env.events().into_iter().map(|e| e.body).collect();
    let end = bodies
        .iter()
        .position(|b| matches!(b, EventBody::TaskCompleted { .. }))
        .unwrap();
    let mut text = String::new();
    let mut last_total = 0;
    for (at, body) in bodies.iter().enumerate() {
        if let EventBody::TaskOutput {
            task_id,
            text: chunk,
            skipped_bytes,
            total_bytes,
        } = body
        {
            assert_eq!(task_id, &id);
            assert!(at < end, "output after the task's end");
            assert!(chunk.len() <= gatehouse_tools::tasks::OUTPUT_MAX_BYTES);
            assert_eq!(*skipped_bytes, 0);
            text.push_str(chunk);
            last_total = *total_bytes;
        }
    }
    // Every byte, ANSI kept, as in the file.
    assert_eq!(text, "first\n\x1b[32mgreen\x1b[0m\n");
    assert_eq!(last_total, text.len() as u64);
}

/// A resumed session gets a new task manager over the same session
/// directory. Its ids used to start at `bash_1` again, which truncated the
/// earlier `bash_1.log` and made the UI's row for that task show another
/// command.
#[tokio::test]
async fn a_resumed_sessions_tasks_do_not_reuse_the_ids_of_earlier_ones() {
    let mut env = env();
    let earlier = start(&mut env, "t1", "echo earlier").await;
    assert_eq!(earlier, "bash_1");
    assert!(wait_end(&mut env, &earlier).await.contains("is completed"));
    env.tasks.shutdown().await;

    let resumed = gatehouse_tools::tasks::TaskManager::new(
        env.session_dir.join("tasks"),
        gatehouse_core::events::Emitter::new("s", env.sink.clone()),
    );
    let mut cmd = tokio::process::Command::new("sh");
    cmd.args(["-c", "echo later"]);
    let later = resumed.start(cmd, "echo later", None, None).unwrap();
    assert_eq!(later.task_id, "bash_2");
    assert_eq!(
        std::fs::read_to_string(env.session_dir.join("tasks/bash_1.log")).unwrap(),
        "earlier\n"
    );
    let read = resumed
        .read(
            &later.task_id,
            true,
            std::time::Duration::from_secs(60),
            None,
        )
        .await
        .unwrap();
    assert_eq!(read.info.state.status, TaskStatus::Completed);
    assert_eq!(read.output, "later\n");
    resumed.shutdown().await;
}
