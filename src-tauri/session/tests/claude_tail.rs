//! A guarded Claude Code session growing live from its transcript (issue 25
//! item 3): real hook calls (the entry point `gatehouse-cli claude-code
//! hook` runs), a real JSONL file written line by line as Claude Code
//! writes it, a real SQLite store and real `notify` watching. Every wait is
//! for a state of the store (or a pass of the tail), bounded generously;
//! nothing sleeps and then asserts.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use gatehouse_protocol::event::{ContentBlock, EventBody};
use gatehouse_protocol::progress::ToolProgressData;
use gatehouse_session::claude_guard::hook::{HookEnv, handle};
use gatehouse_session::claude_guard::tail::{TailConfig, TailHandle, spawn};
use gatehouse_store::Store;
use serde_json::{Value, json};

const SESSION: &str = "5c3cf5c8-afb9-4b0d-8096-d4aa5dcad10d";

struct Dirs {
    _root: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
    data: PathBuf,
    transcript: PathBuf,
}

fn dirs() -> Dirs {
    let root = tempfile::tempdir().unwrap();
    let home = root.path().join("home");
    let project = root.path().join("project");
    let data = root.path().join("data");
    let folder = home.join(".claude/projects/-project");
    for d in [&home, &project, &data, &folder] {
        std::fs::create_dir_all(d).unwrap();
    }
    let transcript = folder
        .canonicalize()
        .unwrap()
        .join(format!("{SESSION}.jsonl"));
    std::fs::write(&transcript, "").unwrap();
    Dirs {
        home: home.canonicalize().unwrap(),
        project: project.canonicalize().unwrap(),
        data,
        transcript,
        _root: root,
    }
}

fn env(d: &Dirs) -> HookEnv {
    HookEnv {
        data_dir: d.data.clone(),
        home: d.home.clone(),
        claude_project_dir: Some(d.project.clone()),
        process_cwd: d.project.clone(),
        ask_timeout: Duration::from_secs(5),
        path: std::env::var_os("PATH"),
    }
}

/// One hook call as Claude Code 2.1.x makes it (that the hook reports no
/// problem is checked).
fn hook(d: &Dirs, event: &str, tool_use_id: &str, extra: &Value) {
    let problems = hook_problems(d, event, tool_use_id, extra);
    assert!(problems.is_empty(), "{event}: {problems:?}");
}

/// One hook call; the problems it reports.
fn hook_problems(d: &Dirs, event: &str, tool_use_id: &str, extra: &Value) -> Vec<String> {
    let mut input = json!({
        "session_id": SESSION,
        "transcript_path": d.transcript,
        "cwd": d.project,
        "permission_mode": "default",
        "hook_event_name": event,
        "tool_name": "Bash",
        "tool_input": {"command": "ls", "description": "List files"},
        "tool_use_id": tool_use_id,
    });
    for (k, v) in extra.as_object().unwrap() {
        input[k] = v.clone();
    }
    handle(event, input.to_string().as_bytes(), &env(d)).problems
}

fn post(d: &Dirs, tool_use_id: &str, stdout: &str) {
    hook(
        d,
        "PostToolUse",
        tool_use_id,
        &json!({"tool_response": {"stdout": stdout, "stderr": "", "interrupted": false}}),
    );
}

// Transcript lines shaped as Claude Code 2.1.332 writes them (trimmed of
// fields the mapping does not read).
fn common(uuid: &str, ts: &str) -> Value {
    json!({"parentUuid": null, "isSidechain": false, "uuid": uuid, "timestamp": ts,
           "userType": "external", "entrypoint": "cli", "cwd": "/home/user/project",
           "sessionId": SESSION, "version": "2.1.332", "gitBranch": "main"})
}

fn prompt(uuid: &str, ts: &str, text: &str) -> String {
    let mut v = common(uuid, ts);
    v["type"] = json!("user");
    v["message"] = json!({"role": "user", "content": text});
    v.to_string()
}

fn assistant(uuid: &str, ts: &str, message_id: &str, block: Value) -> String {
    let mut v = common(uuid, ts);
    v["type"] = json!("assistant");
    v["requestId"] = json!("req_1");
    v["message"] = json!({"id": message_id, "type": "message", "role": "assistant",
        "model": "claude-opus-5-5", "content": [block], "stop_reason": null,
        "usage": {"input_tokens": 100, "cache_creation_input_tokens": 0,
                  "cache_read_input_tokens": 0, "output_tokens": 50}});
    v.to_string()
}

fn text(t: &str) -> Value {
    json!({"type": "text", "text": t})
}

fn tool_use(id: &str) -> Value {
    json!({"type": "tool_use", "id": id, "name": "Bash",
           "input": {"command": "ls", "description": "List files"}})
}

fn tool_result(uuid: &str, ts: &str, id: &str, stdout: &str) -> String {
    let mut v = common(uuid, ts);
    v["type"] = json!("user");
    v["message"] = json!({"role": "user", "content": [
        {"tool_use_id": id, "type": "tool_result", "content": stdout, "is_error": false}]});
    v["toolUseResult"] =
        json!({"stdout": stdout, "stderr": "", "interrupted": false, "isImage": false});
    v["permissionDecision"] =
        json!({"decision": "accept", "source": "config", "reasonType": "mode"});
    v.to_string()
}

/// Appends `bytes` to the transcript, as Claude Code does (one write;
/// the first creates it).
fn write(d: &Dirs, bytes: &str) {
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&d.transcript)
        .unwrap();
    f.write_all(bytes.as_bytes()).unwrap();
}

fn line(d: &Dirs, l: &str) {
    write(d, &format!("{l}\n"));
}

fn events(d: &Dirs) -> Vec<EventBody> {
    let store = Store::open(&d.data).unwrap();
    store
        .session_events(SESSION)
        .unwrap()
        .0
        .into_iter()
        .map(|e| e.body)
        .collect()
}

/// Polls `probe` until it holds (30 s at most, then fails naming `what`).
fn wait_for(what: &str, mut probe: impl FnMut() -> bool) {
    for _ in 0..3000 {
        if probe() {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("timed out waiting for {what}");
}

fn wait_events(d: &Dirs, what: &str, probe: impl Fn(&[EventBody]) -> bool) {
    let mut last = Vec::new();
    for _ in 0..3000 {
        last = events(d);
        if probe(&last) {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("timed out waiting for {what}; the session holds {last:#?}");
}

/// Waits until a pass of `tail` that began after now has ended.
fn another_pass(tail: &TailHandle) {
    let (begun, _) = tail.passes();
    tail.wake();
    wait_for("a pass of the tail", || tail.passes().1 > begun);
}

/// The session as a reader sees it: prompts, assistant text, calls queued
/// and completed, in order.
fn story(events: &[EventBody]) -> Vec<String> {
    events
        .iter()
        .flat_map(|e| match e {
            EventBody::UserPrompt { text } => vec![format!("prompt: {text}")],
            EventBody::AssistantMessage { content, .. } => content
                .iter()
                .filter_map(|b| b["text"].as_str().map(|t| format!("text: {t}")))
                .collect(),
            EventBody::ToolQueued { tool_use_id, .. } => vec![format!("queued {tool_use_id}")],
            EventBody::ToolCompleted { tool_use_id, .. } => {
                vec![format!("completed {tool_use_id}")]
            }
            _ => vec![],
        })
        .collect()
}

fn count(events: &[EventBody], f: impl Fn(&EventBody) -> bool) -> usize {
    events.iter().filter(|e| f(e)).count()
}

fn has_progress(events: &[EventBody], id: &str) -> bool {
    events.iter().any(|e| {
        matches!(e, EventBody::ToolProgress { tool_use_id, data: ToolProgressData::BashOutput { .. } }
                 if tool_use_id == id)
    })
}

fn watching(d: &Dirs) -> TailConfig {
    TailConfig {
        // Only notify (or an explicit wake) makes it read: a change that
        // shows was seen through the watch.
        poll: Duration::from_secs(3600),
        watch: true,
        ..TailConfig::new(d.data.clone())
    }
}

#[test]
fn a_guarded_session_grows_from_its_transcript_with_each_call_once_in_order() {
    let d = dirs();
    // Claude Code writes the prompt, the text and the call, then runs the
    // PreToolUse hook: the session's first hook call reads them first.
    line(
        &d,
        &prompt("u1", "2026-11-30T09:18:15.000Z", "list the files"),
    );
    line(
        &d,
        &assistant(
            "u2",
            "2026-11-30T09:18:16.000Z",
            "msg_1",
            text("I'll look."),
        ),
    );
    line(
        &d,
        &assistant(
            "u3",
            "2026-11-30T09:18:16.500Z",
            "msg_1",
            tool_use("toolu_A"),
        ),
    );
    hook(&d, "PreToolUse", "toolu_A", &json!({}));
    assert_eq!(
        story(&events(&d)),
        [
            "prompt: list the files",
            "text: I'll look.",
            "queued toolu_A"
        ],
        "the first call comes after the prompt and text that led to it"
    );

    let tail = spawn(watching(&d)).unwrap();
    another_pass(&tail);

    // The hook reports the result before Claude Code writes it down.
    post(&d, "toolu_A", "a.txt");
    line(
        &d,
        &tool_result("u4", "2026-11-30T09:18:17.000Z", "toolu_A", "a.txt"),
    );
    wait_events(&d, "toolu_A's output from the transcript", |e| {
        has_progress(e, "toolu_A")
    });

    // A call seen in the transcript first, then by its hooks.
    line(
        &d,
        &assistant(
            "u5",
            "2026-11-30T09:18:17.500Z",
            "msg_1",
            tool_use("toolu_B"),
        ),
    );
    wait_events(&d, "toolu_B queued from the transcript", |e| {
        story(e).contains(&"queued toolu_B".to_owned())
    });
    hook(&d, "PreToolUse", "toolu_B", &json!({}));
    post(&d, "toolu_B", "b.txt");
    line(
        &d,
        &tool_result("u6", "2026-11-30T09:18:18.000Z", "toolu_B", "b.txt"),
    );
    wait_events(&d, "toolu_B's output", |e| has_progress(e, "toolu_B"));

    // A line still being written is not read until its newline.
    let done = assistant("u7", "2026-11-30T09:18:19.000Z", "msg_2", text("Done."));
    let (head, rest) = done.split_at(done.len() / 2);
    write(&d, head);
    another_pass(&tail);
    assert!(
        !story(&events(&d)).contains(&"text: Done.".to_owned()),
        "half a line was imported"
    );
    // Whole JSON, but its newline not written yet: still not read.
    write(&d, rest);
    another_pass(&tail);
    assert!(
        !story(&events(&d)).contains(&"text: Done.".to_owned()),
        "a line without its newline was imported"
    );
    write(&d, "\n");
    wait_events(&d, "the completed line", |e| {
        story(e).contains(&"text: Done.".to_owned())
    });

    // A malformed line is a problem (file:line) and the next one imports.
    write(&d, "{\"type\": \"user\", \"message\": \n");
    line(&d, &prompt("u8", "2026-11-30T09:18:30.000Z", "thanks"));
    wait_events(&d, "the prompt after the malformed line", |e| {
        story(e).contains(&"prompt: thanks".to_owned())
    });
    // The pass's problems are handed over after its commit.
    wait_for("the malformed line's problem", || {
        tail.problems().iter().any(|p| {
            p.path == d.transcript && p.line == Some(8) && p.message.contains("not valid JSON")
        })
    });
    let problems = tail.problems();
    assert!(
        problems.iter().any(|p| p
            .to_string()
            .starts_with(&format!("{}:8: ", d.transcript.display()))),
        "{problems:?}"
    );

    let all = events(&d);
    assert_eq!(
        story(&all),
        [
            "prompt: list the files",
            "text: I'll look.",
            "queued toolu_A",
            "completed toolu_A",
            "queued toolu_B",
            "completed toolu_B",
            "text: Done.",
            "prompt: thanks",
        ]
    );
    // Gatehouse decided each call once; Claude Code's own "accept" in the
    // transcript is not a second decision.
    for id in ["toolu_A", "toolu_B"] {
        assert_eq!(
            count(
                &all,
                |e| matches!(e, EventBody::PermissionDecided { tool_use_id, .. } if tool_use_id == id)
            ),
            1,
            "{id}"
        );
    }
    // The hook's record of the result is the one kept.
    let completed_a = all.iter().find_map(|e| match e {
        EventBody::ToolCompleted {
            tool_use_id,
            content,
            ..
        } if tool_use_id == "toolu_A" => Some(content.clone()),
        _ => None,
    });
    assert_eq!(
        completed_a,
        Some(vec![ContentBlock::Text {
            text: "a.txt".into()
        }])
    );
    // One usage per message (msg_1's blocks came in three lines, with
    // results between them, and were written as they came).
    assert_eq!(count(&all, |e| matches!(e, EventBody::Usage { .. })), 2);
    let store = Store::open(&d.data).unwrap();
    assert_eq!(
        store.session(SESSION).unwrap().unwrap().model,
        "claude-opus-5-5"
    );

    // An app restart resumes where the last one stopped: nothing again.
    drop(tail);
    let tail = spawn(watching(&d)).unwrap();
    another_pass(&tail);
    assert_eq!(events(&d), all, "a restart added events again");
    line(
        &d,
        &assistant(
            "u9",
            "2026-11-30T09:18:31.000Z",
            "msg_3",
            text("You're welcome."),
        ),
    );
    wait_events(&d, "a line after the restart", |e| {
        story(e).contains(&"text: You're welcome.".to_owned())
    });
    assert_eq!(
        story(&events(&d)).len(),
        story(&all).len() + 1,
        "{:#?}",
        story(&events(&d))
    );
}

#[test]
fn without_notify_the_poll_follows_the_transcript() {
    let d = dirs();
    hook(&d, "PreToolUse", "toolu_A", &json!({}));
    let tail = spawn(TailConfig {
        poll: Duration::from_millis(20),
        watch: false,
        ..TailConfig::new(d.data.clone())
    })
    .unwrap();
    line(
        &d,
        &tool_result("u1", "2026-11-30T09:18:17.000Z", "toolu_A", "a.txt"),
    );
    wait_events(&d, "the result from the transcript", |e| {
        story(e) == ["queued toolu_A", "completed toolu_A"]
    });
    assert!(tail.problems().is_empty(), "{:?}", tail.problems());
}

#[test]
fn an_ask_left_to_the_terminal_and_refused_there_is_settled_from_the_transcript() {
    let d = dirs();
    hook(&d, "PreToolUse", "toolu_A", &json!({}));
    // The window is not running: PermissionRequest leaves the ask to
    // Claude Code's terminal, where the user declines it (no hook runs).
    let problems = hook_problems(&d, "PermissionRequest", "toolu_A", &json!({}));
    assert!(
        problems.len() == 1 && problems[0].contains("Claude Code asks in its terminal"),
        "{problems:?}"
    );
    let tail = spawn(watching(&d)).unwrap();
    another_pass(&tail);
    let mut refused: Value = serde_json::from_str(&tool_result(
        "u1",
        "2026-11-30T09:18:17.000Z",
        "toolu_A",
        "The user doesn't want to proceed with this tool use. The tool use was rejected.",
    ))
    .unwrap();
    refused["message"]["content"][0]["is_error"] = json!(true);
    refused["toolUseResult"] = json!("User rejected tool use");
    refused["toolDenialKind"] = json!("user-rejected");
    refused["permissionDecision"] = json!({"decision": "reject", "source": "user"});
    line(&d, &refused.to_string());
    wait_events(&d, "the refusal", |e| {
        story(e).contains(&"completed toolu_A".to_owned())
    });
    let all = events(&d);
    let types: Vec<String> = all
        .iter()
        .map(|e| {
            serde_json::to_value(e).unwrap()["type"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(
        types[types.len() - 3..],
        [
            "permission_answered",
            "permission_decided",
            "tool_completed"
        ],
        "{all:#?}"
    );
    assert!(
        matches!(all.last(), Some(EventBody::ToolCompleted { status, .. })
            if *status == gatehouse_protocol::event::ToolCallStatus::Denied)
    );
    assert!(tail.problems().is_empty(), "{:?}", tail.problems());
}

#[test]
fn only_the_sessions_own_transcript_is_followed() {
    let d = dirs();
    let line = format!("{}\n", prompt("u1", "2026-11-30T09:18:15.000Z", "secret"));
    // Not a transcript; another session's transcript.
    let notes = d.project.join(format!("{SESSION}.txt"));
    let other = d.transcript.with_file_name("another-session.jsonl");
    for (i, path) in [notes, other].iter().enumerate() {
        std::fs::write(path, &line).unwrap();
        hook(
            &d,
            "PreToolUse",
            &format!("toolu_{i}"),
            &json!({"transcript_path": path}),
        );
    }
    // The first call reads a followed transcript at once: nothing was read.
    assert_eq!(story(&events(&d)), ["queued toolu_0", "queued toolu_1"]);
    let store = Store::open(&d.data).unwrap();
    assert!(
        store
            .import_records_with_prefix("claude-code-live:", 10)
            .unwrap()
            .is_empty()
    );
}

/// A real Claude Code 2.1.332 transcript (streamed blocks: one message's
/// text and four Bash calls over nine lines, results in between), in the
/// repository beside the importer's tests.
fn streamed_blocks() -> Vec<Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../transcripts/tests/fixtures/streamed-blocks.jsonl");
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn a_real_transcript_and_its_hooks_racing_the_tail_record_each_call_once() {
    let d = dirs();
    let entries = streamed_blocks();
    assert_eq!(entries[0]["sessionId"], SESSION, "the fixture's session");
    let tail = spawn(watching(&d)).unwrap();
    let mut calls = Vec::new();
    // Claude Code's order: a call's line, then its PreToolUse; its
    // PostToolUse, then its result's line. Nothing waits for the tail, so
    // the hooks and the tail race for every call.
    for (n, entry) in entries.iter().enumerate() {
        let block = &entry["message"]["content"][0];
        if block["type"] == "tool_result" {
            let id = block["tool_use_id"].as_str().unwrap();
            hook(
                &d,
                "PostToolUse",
                id,
                &json!({"tool_response": entry["toolUseResult"]}),
            );
        }
        line(&d, &entry.to_string());
        if block["type"] == "tool_use" {
            let id = block["id"].as_str().unwrap();
            calls.push(id.to_owned());
            hook(&d, "PreToolUse", id, &json!({"tool_input": block["input"]}));
        }
        if n == 0 {
            // The session exists from the first call on; the tail learns
            // of it when woken (the app wakes it on every commit).
            tail.wake();
        }
        tail.wake();
    }
    assert_eq!(calls.len(), 4);
    let size = std::fs::metadata(&d.transcript).unwrap().len();
    wait_for("the tail to reach the end of the transcript", || {
        Store::open(&d.data)
            .unwrap()
            .import_records_with_prefix("claude-code-live:", 10)
            .unwrap()
            .first()
            .is_some_and(|(r, _)| r.byte_offset == size)
    });
    let all = events(&d);
    for id in &calls {
        let of = |kind: &str| {
            count(&all, |e| {
                let v = serde_json::to_value(e).unwrap();
                v["type"] == kind && v["tool_use_id"] == id.as_str()
            })
        };
        assert_eq!(
            (
                of("tool_queued"),
                of("permission_decided"),
                of("tool_completed")
            ),
            (1, 1, 1),
            "{id}: {all:#?}"
        );
        assert!(has_progress(&all, id), "{id}'s output");
    }
    let story = story(&all);
    let first_call = story.iter().position(|s| s.starts_with("queued")).unwrap();
    assert_eq!(
        story[..first_call],
        ["prompt: do it", "text: Working on it."],
        "{story:#?}"
    );
    assert_eq!(story.last().unwrap(), "text: All done.", "{story:#?}");
    assert!(tail.problems().is_empty(), "{:?}", tail.problems());
}

/// The app's start closes sessions a stopped Gatehouse process left open,
/// and deletes those without a prompt; a guarded Claude Code session is
/// no such session (Claude Code, not Gatehouse, runs it; its end is
/// SessionEnd), with or without a prompt from its transcript.
#[test]
fn a_guarded_session_survives_the_app_starting() {
    let d = dirs();
    hook(&d, "PreToolUse", "toolu_A", &json!({}));
    let other = "9a1e4b7c-0d2f-4e8a-b3c6-5f7e8d9a0b1c";
    let transcript = d.transcript.with_file_name(format!("{other}.jsonl"));
    std::fs::write(
        &transcript,
        format!("{}\n", prompt("u1", "2026-11-30T09:18:15.000Z", "hello")),
    )
    .unwrap();
    hook(
        &d,
        "PreToolUse",
        "toolu_B",
        &json!({"session_id": other, "transcript_path": transcript}),
    );
    let mut store = Store::open(&d.data).unwrap();
    let swept = gatehouse_session::abandoned::end_abandoned_sessions(&mut store, |_| false);
    assert_eq!(swept, gatehouse_session::abandoned::Swept::default());
    for id in [SESSION, other] {
        let summary = store.session(id).unwrap().unwrap();
        assert_eq!(summary.end_reason, None, "{id}");
    }
}

/// A line over the cap is not held in memory: it is a problem (file:line)
/// and skipped, and the line after it imports (in a later pass: a pass
/// reads at most 8 MiB of a transcript).
#[test]
fn an_over_long_line_is_a_problem_and_the_next_line_imports() {
    let d = dirs();
    hook(&d, "PreToolUse", "toolu_A", &json!({}));
    let tail = spawn(watching(&d)).unwrap();
    another_pass(&tail);
    let cap = gatehouse_session::claude_guard::tail::MAX_LINE_BYTES;
    let mut huge = String::with_capacity(cap + 64);
    huge.push_str("{\"type\": \"user\", \"message\": {\"content\": \"");
    huge.push_str(&"x".repeat(cap));
    huge.push_str("\"}}");
    line(&d, &huge);
    drop(huge);
    line(&d, &prompt("u2", "2026-11-30T09:18:30.000Z", "after"));
    wait_events(&d, "the prompt after the long line", |e| {
        story(e).contains(&"prompt: after".to_owned())
    });
    wait_for("the long line's problem", || {
        tail.problems().iter().any(|p| {
            p.path == d.transcript
                && p.line == Some(1)
                && p.message.contains(&format!("over the {cap} byte limit"))
        })
    });
    assert_eq!(story(&events(&d)), ["queued toolu_A", "prompt: after"]);
}

/// A transcript that does not exist yet at the session's first call is
/// recorded by a later call, once, and followed from its start.
#[test]
fn a_transcript_written_after_the_first_call_is_followed_from_a_later_call() {
    let d = dirs();
    std::fs::remove_file(&d.transcript).unwrap();
    hook(&d, "PreToolUse", "toolu_A", &json!({}));
    let store = Store::open(&d.data).unwrap();
    assert!(
        store
            .import_records_with_prefix("claude-code-live:", 10)
            .unwrap()
            .is_empty()
    );
    line(&d, &prompt("u1", "2026-11-30T09:18:15.000Z", "hello"));
    post(&d, "toolu_A", "a.txt");
    let tail = spawn(TailConfig {
        poll: Duration::from_millis(20),
        watch: false,
        ..TailConfig::new(d.data.clone())
    })
    .unwrap();
    wait_events(&d, "the prompt", |e| {
        story(e).contains(&"prompt: hello".to_owned())
    });
    let records = store
        .import_records_with_prefix("claude-code-live:", 10)
        .unwrap();
    assert_eq!(records.len(), 1, "{records:?}");
    assert!(tail.problems().is_empty(), "{:?}", tail.problems());
}

/// Claude Code's own deny rule refuses a call Gatehouse allowed: no hook
/// runs after the refusal, so the ledger learns it from the transcript
/// (`permissionDecision` with `reasonType` `rule`, as Claude Code 2.1.332
/// writes it) — the call ends denied, decided last by Claude Code's rule.
#[test]
fn a_call_claude_codes_own_rule_refused_after_gatehouse_allowed_it_is_recorded_denied() {
    let d = dirs();
    hook(&d, "PreToolUse", "toolu_R", &json!({}));
    let tail = spawn(watching(&d)).unwrap();
    another_pass(&tail);
    let mut refused: Value = serde_json::from_str(&tool_result(
        "u1",
        "2026-11-30T09:18:17.000Z",
        "toolu_R",
        "Permission to use Bash with command ls has been denied.",
    ))
    .unwrap();
    refused["message"]["content"][0]["is_error"] = json!(true);
    refused["toolUseResult"] =
        json!("Error: Permission to use Bash with command ls has been denied.");
    refused["permissionDecision"] = json!({"decision": "reject", "source": "user_reject",
        "reasonType": "rule", "ruleSource": "userSettings", "reasonCode": "rule:userSettings"});
    line(&d, &refused.to_string());
    wait_events(&d, "the refusal", |e| {
        story(e).contains(&"completed toolu_R".to_owned())
    });
    let all = events(&d);
    let decisions: Vec<(gatehouse_protocol::permission::PermissionBehavior, String)> = all
        .iter()
        .filter_map(|e| match e {
            EventBody::PermissionDecided {
                tool_use_id,
                decision,
                trace,
                ..
            } if tool_use_id == "toolu_R" => Some((*decision, trace.last().unwrap().layer.clone())),
            _ => None,
        })
        .collect();
    use gatehouse_protocol::permission::PermissionBehavior::{Allow, Deny};
    assert_eq!(
        decisions,
        [
            (Allow, "claude_code_hook".to_owned()),
            (Deny, "claude_code".to_owned())
        ],
        "{all:#?}"
    );
    assert!(
        matches!(all.last(), Some(EventBody::ToolCompleted { status, .. })
            if *status == gatehouse_protocol::event::ToolCallStatus::Denied),
        "{all:#?}"
    );
    assert_eq!(
        count(&all, |e| matches!(e, EventBody::ToolCompleted { .. })),
        1
    );

    // A refusal by Gatehouse's own hook is in the ledger once already.
    std::fs::create_dir_all(d.project.join(".claude")).unwrap();
    std::fs::write(
        d.project.join(".claude/settings.json"),
        r#"{"permissions": {"deny": ["Bash(git push:*)"]}}"#,
    )
    .unwrap();
    hook(
        &d,
        "PreToolUse",
        "toolu_H",
        &json!({"tool_input": {"command": "git push"}}),
    );
    let mut by_hook: Value = serde_json::from_str(&tool_result(
        "u2",
        "2026-11-30T09:18:18.000Z",
        "toolu_H",
        "PreToolUse:Bash hook error: Gatehouse: …",
    ))
    .unwrap();
    by_hook["message"]["content"][0]["is_error"] = json!(true);
    by_hook["permissionDecision"] = json!({"decision": "reject", "source": "hook",
        "reasonType": "hook", "reasonCode": "hook:PreToolUse"});
    line(&d, &by_hook.to_string());
    another_pass(&tail);
    let all = events(&d);
    assert_eq!(
        count(
            &all,
            |e| matches!(e, EventBody::PermissionDecided { tool_use_id, .. } if tool_use_id == "toolu_H")
        ),
        1,
        "{all:#?}"
    );
}

/// The session browser's import of Claude Code transcripts leaves a file a
/// guarded session follows live alone: the session is not stored twice
/// (once live under Claude Code's id, once imported as `cc-<id>`).
#[test]
fn importing_a_followed_transcript_does_not_store_the_session_twice() {
    use gatehouse_protocol::transcript::ImportOutcome;
    use gatehouse_transcripts::claude::{discover, import_transcripts};

    let d = dirs();
    line(
        &d,
        &prompt("u0", "2026-11-30T09:18:15.000Z", "list the files"),
    );
    hook(&d, "PreToolUse", "toolu_I", &json!({}));
    let mut store = Store::open(&d.data).unwrap();
    let found = discover(&d.home).unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    let reports = import_transcripts(&mut store, &found, |_| {});
    let report = reports[0].as_ref().unwrap();
    assert_eq!(report.outcome, ImportOutcome::FollowedLive);
    assert_eq!(report.session_id, SESSION);
    let ids: Vec<String> = store
        .list_sessions(None)
        .unwrap()
        .into_iter()
        .map(|s| s.id)
        .collect();
    assert_eq!(ids, [SESSION.to_owned()], "one session, the live one");
}
