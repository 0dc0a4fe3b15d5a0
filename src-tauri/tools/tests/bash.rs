//! The Bash tool with real processes, through the runtime's full pipeline.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod shell_support;

use std::sync::Arc;

use gatehouse_core::events::{EventSink, MemorySink};
use gatehouse_core::permission::ToolPermissionVerdict;
use gatehouse_core::{CallStatus, ToolUseBlock};
use gatehouse_protocol::event::{Event, EventBody, RejectionStage, ToolCallStatus};
use gatehouse_protocol::progress::ToolProgressData;
use gatehouse_tools::bash::classifier::CommandClassifier;
use serde_json::json;
use shell_support::{STUBBORN, env, env_with, printed_pids, progress_of, survivors};
use tokio_util::sync::CancellationToken;

#[tokio::test]
async fn runs_a_command_and_interleaves_stdout_and_stderr() {
    let mut env = env();
    let r = env.bash("t1", "echo out1; echo err1 >&2; echo out2").await;
    assert_eq!(r.status, CallStatus::Succeeded, "{}", r.text());
    assert_eq!(r.text(), "out1\nerr1\nout2");
    assert!(!r.is_error);
}

#[tokio::test]
async fn a_failing_command_is_an_error_with_its_output_and_exit_code() {
    let mut env = env();
    let r = env.bash("t1", "echo partial; exit 3").await;
    assert_eq!(r.status, CallStatus::Failed);
    assert!(r.is_error);
    let text = r.text();
    assert!(text.contains("partial"), "{text}");
    assert!(text.contains("Exit code 3"), "{text}");
    // Typed, for front ends: they never read the text.
    let progress = env.progress("t1");
    let exited = progress.last().unwrap();
    assert_eq!(exited["kind"], "exited");
    assert_eq!(exited["exit_code"], 3);
    assert_eq!(exited["signal"], serde_json::Value::Null);

    // Output that looks like the note changes nothing.
    let r = env.bash("t2", "echo 'Exit code 7'; kill -9 $$").await;
    assert_eq!(r.status, CallStatus::Failed);
    let progress = env.progress("t2");
    let exited = progress.last().unwrap();
    assert_eq!(exited["kind"], "exited");
    assert_eq!(exited["exit_code"], serde_json::Value::Null);
    assert_eq!(exited["signal"], 9);
}

#[tokio::test]
async fn stdin_is_closed_and_the_command_has_its_own_process_group() {
    let mut env = env();
    // `cat` with a closed stdin ends at once instead of hanging.
    let r = env.bash("t1", "cat; echo done").await;
    assert_eq!(r.text(), "done");
    let r = env
        .bash("t2", "echo $$; cut -d')' -f2 /proc/$$/stat | cut -d' ' -f4")
        .await;
    let text = r.text();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{}", r.text());
    assert_eq!(lines[0], lines[1], "the shell leads its own process group");
    let started = env.progress("t2");
    assert_eq!(started[0]["kind"], "started");
    assert_eq!(started[0]["pid"].to_string(), lines[0]);
}

#[tokio::test]
async fn cd_persists_inside_the_working_directories_and_resets_outside() {
    let mut env = env();
    let project = env.project.clone();
    let r = env.bash("t1", "mkdir -p sub/deeper && cd sub").await;
    assert_eq!(r.status, CallStatus::Succeeded, "{}", r.text());
    let r = env.bash("t2", "pwd -P").await;
    assert_eq!(r.text(), project.join("sub").display().to_string());
    let r = env.bash("t3", "cd deeper; exit 4").await;
    assert_eq!(r.status, CallStatus::Failed);
    let r = env.bash("t4", "pwd -P").await;
    assert_eq!(
        r.text(),
        project.join("sub/deeper").display().to_string(),
        "a cd carries over even when the command fails"
    );
    let r = env.bash("t5", "cd /").await;
    assert!(
        r.text().contains("outside the working directories"),
        "{}",
        r.text()
    );
    let r = env.bash("t6", "pwd -P").await;
    assert_eq!(r.text(), project.display().to_string());
    // The session's own cwd (what containment is measured against) is
    // untouched.
    assert_eq!(env.ctx.cwd, project);
    // A sub-agent has a shell of its own.
    let r = env.bash("t7", "cd sub").await;
    assert_eq!(r.status, CallStatus::Succeeded);
    env.ctx.agent_id = Some("agent-1".into());
    let r = env.bash("t8", "pwd -P").await;
    assert_eq!(r.text(), project.display().to_string());
    env.ctx.agent_id = None;
    let r = env.bash("t9", "pwd -P").await;
    assert_eq!(r.text(), project.join("sub").display().to_string());
}

#[tokio::test]
async fn output_streams_live_with_ansi_kept_for_the_ui_and_stripped_for_the_model() {
    let mut env = env();
    let r = env.bash("t1", r"printf '\033[31mred\033[0m plain\n'").await;
    assert_eq!(r.text(), "red plain");
    assert_eq!(env.live_text("t1"), "\u{1b}[31mred\u{1b}[0m plain\n");
}

// Real time: with paused time the runtime, idle while it waits on the
// child's pipes, jumps its clock to the command's timeout. The bound is
// derived from the measured run (one event per 50 ms tick), so load only
// loosens it.
#[tokio::test]
async fn live_output_is_coalesced() {
    let mut env = env();
    let started = tokio::time::Instant::now();
    let r = env
        .bash("t1", "for i in $(seq 1 20000); do echo line $i; done")
        .await;
    let elapsed = started.elapsed();
    assert_eq!(r.status, CallStatus::Succeeded);
    let events = env
        .progress("t1")
        .into_iter()
        .filter(|p| p["kind"] == "output")
        .count();
    // At most one event per 50 ms tick, plus the final flushes.
    let bound = (elapsed.as_secs_f64() * 20.0).ceil() as usize + 3;
    assert!(events <= bound, "{events} events in {elapsed:?}");
    assert!(events < 20_000);
    // Every byte either reached the UI or is counted as skipped, and the
    // end of the stream always arrives.
    let outputs: Vec<_> = env
        .progress("t1")
        .into_iter()
        .filter(|p| p["kind"] == "output")
        .collect();
    let delivered: u64 = outputs
        .iter()
        .map(|p| p["text"].as_str().unwrap().len() as u64 + p["skipped_bytes"].as_u64().unwrap())
        .sum();
    let total = outputs.last().unwrap()["total_bytes"].as_u64().unwrap();
    assert_eq!(delivered, total);
    let whole = std::fs::read(env.session_dir.join("bash/t1.log")).unwrap();
    assert_eq!(total, whole.len() as u64);
    assert!(env.live_text("t1").ends_with("line 20000\n"));
}

#[tokio::test]
async fn large_output_keeps_head_and_tail_and_the_whole_on_disk() {
    let mut env = env_with(
        |c| {
            c.head_bytes = 1_000;
            c.tail_bytes = 500;
        },
        None,
    );
    let r = env.bash("big", "seq 1 200000").await;
    assert_eq!(r.status, CallStatus::Succeeded);
    let text = r.text();
    assert!(text.starts_with("1\n2\n3\n"), "{}", &text[..50]);
    assert!(text.ends_with("199999\n200000"), "{text}");
    assert!(text.contains("bytes of output elided"), "{text}");
    let path = env.session_dir.join("bash/big.log");
    assert!(text.contains(&path.display().to_string()), "{text}");
    let whole = std::fs::read_to_string(&path).unwrap();
    assert_eq!(whole.lines().count(), 200_000);
    assert!(text.len() < 3_000, "{}", text.len());
}

#[tokio::test]
async fn a_timeout_stops_the_group_and_returns_the_output_so_far() {
    let mut env = env();
    let r = env
        .run(
            "t1",
            "Bash",
            json!({ "command": "echo started; sleep 60", "timeout": 3_000 }),
        )
        .await;
    assert_eq!(r.status, CallStatus::TimedOut);
    // The UI reads the timeout from the event, not from the text.
    let status = env.events().iter().find_map(|e| match &e.body {
        EventBody::ToolCompleted { status, .. } => Some(*status),
        _ => None,
    });
    assert_eq!(status, Some(ToolCallStatus::TimedOut));
    let text = r.text();
    assert!(text.contains("started"), "{text}");
    assert!(text.contains("timed out after 3000 ms"), "{text}");
    // `sleep` dies on SIGTERM; on a loaded machine the group may outlast the
    // grace period and get SIGKILL too. Either way the result says so.
    assert!(text.contains("SIGTERM"), "{text}");
}

#[tokio::test]
async fn children_that_ignore_sigterm_are_killed_on_timeout() {
    let mut env = env();
    let r = env
        .run(
            "t1",
            "Bash",
            json!({ "command": STUBBORN, "timeout": 8_000 }),
        )
        .await;
    let text = r.text();
    assert_eq!(r.status, CallStatus::TimedOut, "{text}");
    let pids = printed_pids(&text);
    assert!(text.contains("ready"), "the machine is too slow: {text}");
    assert_eq!(pids.len(), 4, "{text}");
    assert!(text.contains("SIGKILL"), "{text}");
    assert_eq!(survivors(&pids).await, Vec::<i32>::new());
}

/// A sink that fires a token when a call's live output contains a word.
struct Trigger {
    inner: Arc<MemorySink>,
    word: &'static str,
    token: CancellationToken,
}

impl EventSink for Trigger {
    fn emit(&self, event: Event) {
        if let EventBody::ToolProgress {
            data: ToolProgressData::BashOutput { text, .. },
            ..
        } = &event.body
            && text.contains(self.word)
        {
            self.token.cancel();
        }
        self.inner.emit(event);
    }
}

#[tokio::test]
async fn a_user_interrupt_kills_the_whole_group_and_leaves_no_orphans() {
    let memory = Arc::new(MemorySink::new());
    let token = CancellationToken::new();
    let trigger = Arc::new(Trigger {
        inner: memory.clone(),
        word: "ready",
        token: token.clone(),
    });
    let mut env = env_with(|_| {}, Some(trigger));
    let r = env
        .rt
        .run_one(
            ToolUseBlock::new("t1", "Bash", json!({ "command": STUBBORN })),
            &mut env.ctx,
            &token,
        )
        .await;
    assert_eq!(r.status, CallStatus::Interrupted, "{}", r.text());
    // The model learns why the call stopped and gets the output so far.
    let text = r.text();
    assert!(text.starts_with("Interrupted by the user"), "{text}");
    assert!(text.contains("ready"), "{text}");
    assert!(text.contains("SIGKILL"), "{text}");
    let events = memory.events();
    let live: String = progress_of(&events, "t1")
        .iter()
        .filter_map(|p| p["text"].as_str().map(str::to_owned))
        .collect();
    let pids = printed_pids(&live);
    assert_eq!(pids.len(), 4, "{live}");
    let last = progress_of(&events, "t1").pop().unwrap();
    assert_eq!(last["kind"], "interrupted", "{last}");
    assert_eq!(survivors(&pids).await, Vec::<i32>::new());
}

#[tokio::test]
async fn processes_left_behind_by_the_shell_are_stopped() {
    let mut env = env();
    let r = env.bash("t1", "sleep 1000 & echo \"pid $!\"").await;
    assert_eq!(r.status, CallStatus::Succeeded, "{}", r.text());
    assert!(r.text().contains("left processes running"), "{}", r.text());
    let pids = printed_pids(&r.text());
    assert_eq!(pids.len(), 1);
    assert_eq!(survivors(&pids).await, Vec::<i32>::new());
}

#[tokio::test]
async fn bad_input_is_refused_before_anything_runs() {
    let mut env = env();
    for (id, input) in [
        ("empty", json!({ "command": "  \n" })),
        ("nul", json!({ "command": "echo a\u{0}b" })),
        ("huge", json!({ "command": "x".repeat(200_000) })),
    ] {
        let r = env.run(id, "Bash", input).await;
        assert_eq!(
            r.status,
            CallStatus::Rejected(RejectionStage::ValidateInput),
            "{id}: {}",
            r.text()
        );
    }
    let r = env
        .run(
            "slow",
            "Bash",
            json!({ "command": "true", "timeout": 600_001 }),
        )
        .await;
    assert!(matches!(r.status, CallStatus::Rejected(_)), "{}", r.text());
    let r = env
        .run("nul", "Bash", json!({ "command": "echo a\u{0}b" }))
        .await;
    assert!(r.text().contains("NUL"), "{}", r.text());
}

#[tokio::test]
async fn invalid_utf8_and_a_single_50_mb_line_are_handled() {
    let mut env = env();
    let r = env.bash("t1", r"printf 'a\377\376b\n'").await;
    assert_eq!(r.text(), "a\u{fffd}\u{fffd}b");
    let r = env
        .bash("t2", "head -c 50000000 /dev/zero | tr '\\0' 'a'")
        .await;
    assert_eq!(r.status, CallStatus::Succeeded, "{}", &r.text()[..200]);
    assert!(r.text().len() < 40_000, "{}", r.text().len());
    assert!(r.text().contains("49970000 bytes of output elided"));
    let file = env.session_dir.join("bash/t2.log");
    assert_eq!(std::fs::metadata(file).unwrap().len(), 50_000_000);
}

#[tokio::test]
async fn a_command_that_closes_its_output_but_keeps_running_times_out() {
    let mut env = env();
    let r = env
        .run(
            "t1",
            "Bash",
            json!({ "command": "echo bye; exec >&- 2>&-; sleep 60", "timeout": 3_000 }),
        )
        .await;
    assert_eq!(r.status, CallStatus::TimedOut);
    assert!(r.text().contains("bye"), "{}", r.text());
    assert!(r.text().contains("timed out"), "{}", r.text());
}

#[tokio::test]
async fn a_missing_shell_is_a_clear_error() {
    let mut env = env_with(|c| c.shell = Some("/nonexistent/bin/bash".into()), None);
    let r = env.bash("t1", "echo hi").await;
    assert_eq!(r.status, CallStatus::Failed);
    assert!(r.text().contains("/nonexistent/bin/bash"), "{}", r.text());
    assert!(r.text().contains("does not exist"), "{}", r.text());
}

/// Calls everything read-only and denies commands containing "rm".
#[derive(Debug)]
struct Permissive;

impl CommandClassifier for Permissive {
    fn is_read_only(&self, _command: &str) -> bool {
        true
    }
    fn check(&self, command: &str) -> ToolPermissionVerdict {
        if command.contains("rm") {
            ToolPermissionVerdict::Deny {
                reason: "no rm".into(),
            }
        } else {
            ToolPermissionVerdict::Passthrough
        }
    }
}

#[tokio::test]
async fn the_classifier_decides_concurrency_and_the_verdict_and_defaults_fail_closed() {
    let env = env();
    let bash = Arc::clone(env.rt.pool().find("Bash").unwrap());
    let input = json!({ "command": "ls" });
    assert!(!bash.is_read_only(&input));
    assert!(!bash.is_concurrency_safe(&input));
    assert!(bash.aborts_siblings_on_error());
    assert_eq!(
        bash.interrupt_behavior(),
        gatehouse_core::InterruptBehavior::Cancel
    );
    assert_eq!(
        bash.permission_subject(&input, &gatehouse_core::ToolUseContext::default()),
        Some(gatehouse_core::permission::PermissionSubject::Command(
            "ls".into()
        ))
    );

    let mut env = env_with(|c| c.classifier = Arc::new(Permissive), None);
    let bash = Arc::clone(env.rt.pool().find("Bash").unwrap());
    assert!(bash.is_read_only(&input));
    assert!(bash.is_concurrency_safe(&input));
    let r = env.bash("t1", "rm -rf nothing").await;
    assert_eq!(r.status, CallStatus::Denied, "{}", r.text());
}

#[tokio::test]
async fn a_failing_bash_call_aborts_its_running_siblings() {
    let env = env_with(|c| c.classifier = Arc::new(Permissive), None);
    let blocks = vec![
        ToolUseBlock::new(
            "slow",
            "Bash",
            json!({ "command": "echo \"pid $$\"; sleep 1000" }),
        ),
        ToolUseBlock::new("fail", "Bash", json!({ "command": "sleep 0.5; exit 1" })),
    ];
    let outcome = env
        .rt
        .run_tools(blocks, env.ctx.clone(), CancellationToken::new())
        .await;
    let results = outcome.results;
    assert_eq!(results[1].status, CallStatus::Failed);
    assert_eq!(
        results[0].status,
        CallStatus::Cancelled,
        "{}",
        results[0].text()
    );
    assert!(results[0].text().contains("fail"), "{}", results[0].text());
    let live: String = progress_of(&env.events(), "slow")
        .iter()
        .filter_map(|p| p["text"].as_str().map(str::to_owned))
        .collect();
    let pids = printed_pids(&live);
    assert_eq!(survivors(&pids).await, Vec::<i32>::new());
}

#[tokio::test]
async fn cd_into_an_additional_directory_carries_over_but_a_symlink_out_does_not() {
    let mut env = env();
    let extra = env.dir.path().join("extra");
    std::fs::create_dir(&extra).unwrap();
    let extra = extra.canonicalize().unwrap();
    env.ctx.additional_dirs.push(extra.clone());
    let r = env.bash("t1", &format!("cd '{}'", extra.display())).await;
    assert_eq!(r.status, CallStatus::Succeeded, "{}", r.text());
    let r = env.bash("t2", "pwd -P").await;
    assert_eq!(r.text(), extra.display().to_string());
    // A link inside the project pointing outside is judged by its target.
    let project = env.project.clone();
    std::os::unix::fs::symlink("/", project.join("root-link")).unwrap();
    let r = env
        .bash("t3", &format!("cd '{}/root-link'", project.display()))
        .await;
    assert!(
        r.text().contains("outside the working directories"),
        "{}",
        r.text()
    );
    let r = env.bash("t4", "pwd -P").await;
    assert_eq!(r.text(), project.display().to_string());
}

/// A launcher that runs the shell under `env`, as a sandbox wrapper would,
/// and records the specs it saw.
#[derive(Debug, Default)]
struct Wrapping {
    seen: std::sync::Mutex<Vec<(String, usize)>>,
}

impl gatehouse_tools::bash::launcher::CommandLauncher for Wrapping {
    fn command(
        &self,
        spec: &gatehouse_tools::bash::launcher::LaunchSpec<'_>,
    ) -> std::io::Result<tokio::process::Command> {
        self.seen
            .lock()
            .unwrap()
            .push((spec.cwd.display().to_string(), spec.working_dirs.len()));
        let mut cmd = tokio::process::Command::new("env");
        cmd.arg("SANDBOXED=yes")
            .arg(spec.shell)
            .arg("-c")
            .arg(spec.script)
            .current_dir(spec.cwd)
            .envs(spec.env.iter().map(|(k, v)| (k, v)));
        Ok(cmd)
    }
}

#[tokio::test]
async fn the_launcher_seam_wraps_the_shell_and_keeps_the_guarantees() {
    let launcher = Arc::new(Wrapping::default());
    let seam = launcher.clone();
    let mut env = env_with(move |c| c.launcher = seam, None);
    let r = env
        .bash(
            "t1",
            "echo $SANDBOXED; cat; cut -d')' -f2 /proc/$$/stat | cut -d' ' -f4",
        )
        .await;
    assert_eq!(r.status, CallStatus::Succeeded, "{}", r.text());
    let text = r.text();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "yes");
    // Still its own process group: `env` execs the shell, which leads it.
    let pid = env.progress("t1")[0]["pid"].to_string();
    assert_eq!(lines[1], pid);
    let seen = launcher.seen.lock().unwrap().clone();
    assert_eq!(seen, vec![(env.project.display().to_string(), 1)]);
}
