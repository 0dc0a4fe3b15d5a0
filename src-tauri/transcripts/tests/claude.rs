//! Importing real Claude Code 2.1.332 transcripts (copies in
//! `tests/fixtures/`, and the full set from `../shared` when present) into
//! real SQLite files.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use gatehouse_protocol::event::{ContentBlock, Event, EventBody, ToolCallStatus};
use gatehouse_protocol::permission::PermissionBehavior;
use gatehouse_protocol::progress::ToolProgressData;
use gatehouse_protocol::session::{PermissionAnswer, SessionOrigin};
use gatehouse_store::Store;
use gatehouse_transcripts::claude::{self, ClaudeTranscript, ImportFileReport, ImportOutcome};
use serde_json::Value;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// A fake home with `files` as sessions of project `-home-user-project`.
fn home_with(files: &[(&str, &[u8])]) -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join(".claude/projects/-home-user-project");
    std::fs::create_dir_all(&project).unwrap();
    for (name, content) in files {
        std::fs::write(project.join(name), content).unwrap();
    }
    home
}

fn import_all(store: &mut Store, home: &Path) -> Vec<ImportFileReport> {
    let found = claude::discover(home).unwrap();
    claude::import_transcripts(store, &found, |_| {})
        .into_iter()
        .map(Result::unwrap)
        .collect()
}

fn events(store: &Store, id: &str) -> Vec<Event> {
    let (events, skipped) = store.session_events(id).unwrap();
    assert_eq!(skipped, 0);
    events
}

#[test]
fn a_transcript_maps_to_prompts_messages_calls_decisions_diffs_and_output() {
    let basic = std::fs::read(fixture("basic.jsonl")).unwrap();
    let home = home_with(&[("32a0fdb2-50b6-4f19-8eab-36dc180e601b.jsonl", &basic)]);
    let data = tempfile::tempdir().unwrap();
    let mut store = Store::open(data.path()).unwrap();
    let reports = import_all(&mut store, home.path());
    assert_eq!(reports.len(), 1);
    let report = &reports[0];
    let id = "cc-32a0fdb2-50b6-4f19-8eab-36dc180e601b";
    assert_eq!(report.session_id, id);
    assert_eq!(report.outcome, ImportOutcome::Imported);
    assert_eq!(report.skipped_lines, 0, "{:?}", report.problems);
    assert_eq!(
        report.lines,
        basic.iter().filter(|&&b| b == b'\n').count() as u64
    );

    let summary = store.session(id).unwrap().unwrap();
    assert_eq!(summary.origin, SessionOrigin::ClaudeCode);
    assert_eq!(summary.project_path, "/home/user/project");
    assert_eq!(summary.model, "claude-opus-5-5");
    assert_eq!(summary.provider, "claude_code");
    assert_eq!(summary.title.as_deref(), Some("do it"));
    assert_eq!(summary.status, "imported");
    assert_eq!(summary.tool_calls, 8);
    assert_eq!((summary.asks, summary.denials, summary.errors), (0, 0, 0));
    // Two model messages, each counted once although written as many lines.
    assert_eq!((summary.input_tokens, summary.output_tokens), (200, 100));
    assert!(summary.duration_ms > 0);
    assert_eq!(summary.created_at_ms, 1_796_030_111_872);

    let events = events(&store, id);
    assert!(matches!(
        &events[0].body,
        EventBody::SessionStarted { provider, model, project, .. }
            if provider == "claude_code" && model == "claude-opus-5-5" && project == "/home/user/project"
    ));
    let messages: Vec<&Event> = events
        .iter()
        .filter(|e| matches!(e.body, EventBody::AssistantMessage { .. }))
        .collect();
    assert_eq!(messages.len(), 2, "one event per message, not per line");
    let EventBody::AssistantMessage {
        content,
        stop_reason,
        message_id,
        turn,
    } = &messages[0].body
    else {
        unreachable!()
    };
    assert_eq!(content.len(), 9, "text + 8 tool_use blocks gathered");
    assert_eq!(content[0]["text"], "Working on it.");
    assert_eq!(
        (stop_reason.as_str(), message_id.as_deref(), *turn),
        ("tool_use", Some("msg_mock_a547f6e6cc254893"), 1)
    );

    let queued: Vec<(&str, &str)> = events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::ToolQueued {
                tool_use_id, name, ..
            } => Some((tool_use_id.as_str(), name.as_str())),
            _ => None,
        })
        .collect();
    assert_eq!(queued.len(), 8);
    for (tool_use_id, name) in &queued {
        // Rule replay reads the tool name from the tool_queued row.
        assert_eq!(
            store.queued_tool_name(id, tool_use_id).unwrap().as_deref(),
            Some(*name)
        );
        let completed = events
            .iter()
            .filter(|e| matches!(&e.body, EventBody::ToolCompleted { tool_use_id: t, .. } if t == tool_use_id))
            .count();
        assert_eq!(completed, 1, "{tool_use_id} is closed exactly once");
        let ok = events.iter().any(|e| {
            matches!(&e.body, EventBody::ToolCompleted { tool_use_id: t, status: ToolCallStatus::Ok, .. } if t == tool_use_id)
        });
        assert!(ok, "{tool_use_id} completed ok");
        let decided = events.iter().any(|e| {
            matches!(&e.body, EventBody::PermissionDecided { tool_use_id: t, decision: PermissionBehavior::Allow, .. } if t == tool_use_id)
        });
        assert!(decided, "{tool_use_id} has its decision");
    }

    let diff = events
        .iter()
        .find_map(|e| match &e.body {
            EventBody::ToolProgress {
                data: ToolProgressData::FileDiff { diff, .. },
                ..
            } => Some(serde_json::to_value(diff).unwrap()),
            _ => None,
        })
        .expect("the Edit's structuredPatch becomes a file_diff");
    assert_eq!(diff["path"], "/home/user/project/edit_me.txt");
    assert_eq!(
        (diff["additions"].as_u64(), diff["deletions"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(diff["hunks"][0]["lines"][1]["text"], "hello mock");
    assert_eq!(diff["hunks"][0]["lines"][1]["new_line"], 1);

    let bash_output = events.iter().find_map(|e| match &e.body {
        EventBody::ToolProgress {
            data: data @ ToolProgressData::BashOutput { .. },
            ..
        } => Some(serde_json::to_value(data).unwrap()),
        _ => None,
    });
    let bash_output = bash_output.expect("Bash stdout becomes output progress");
    assert_eq!(
        (bash_output["stream"].as_str(), bash_output["text"].as_str()),
        (Some("stdout"), Some("hi"))
    );

    // Claude Code's Grep result is counted and listed as Gatehouse's own.
    let search = events.iter().find_map(|e| match &e.body {
        EventBody::ToolProgress {
            data: data @ ToolProgressData::SearchResults { .. },
            ..
        } => Some(serde_json::to_value(data).unwrap()),
        _ => None,
    });
    let search = search.expect("Grep's toolUseResult becomes search_results");
    assert_eq!(search["unit"], "lines");
    assert_eq!(search["count"], 30);
    assert_eq!(search["entries"][0], "file00.txt:6");
    assert_eq!(search["entries"].as_array().unwrap().len(), 5);

    let grep_result = events.iter().any(|e| {
        matches!(&e.body, EventBody::ToolCompleted { content, .. }
            if matches!(content.first(), Some(ContentBlock::Text { text }) if text.contains("Found 30 total occurrences")))
    });
    assert!(grep_result);
    let hits = store
        .search_sessions("\"30 total occurrences\"", 5)
        .unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].kind, "tool_completed");
    assert_eq!(hits[0].tool_name.as_deref(), Some("Grep"));

    // Fields no event carries are kept raw beside the event; Read's copy
    // of the file text is not kept twice.
    let read_done = events
        .iter()
        .position(|e| matches!(&e.body, EventBody::ToolCompleted { content, .. }
            if matches!(content.first(), Some(ContentBlock::Text { text }) if text.contains("hello world"))))
        .unwrap();
    // The raw fields sit on the first event made from the line: the
    // decision just before the completion.
    assert!(matches!(
        events[read_done - 1].body,
        EventBody::PermissionDecided { .. }
    ));
    assert_eq!(store.event_raw(id, read_done as i64 + 1).unwrap(), None);
    let raw: Value =
        serde_json::from_str(&store.event_raw(id, read_done as i64).unwrap().unwrap()).unwrap();
    assert_eq!(
        raw["toolUseResult"]["file"]["filePath"],
        "/home/user/project/edit_me.txt"
    );
    assert!(
        raw["toolUseResult"]["file"].get("content").is_none(),
        "{raw}"
    );
    assert!(raw["uuid"].is_string() && raw["message"].get("content").is_none());
    let message_seq = events
        .iter()
        .position(|e| matches!(e.body, EventBody::AssistantMessage { .. }))
        .unwrap();
    let raw: Value = serde_json::from_str(
        &store
            .event_raw(id, message_seq as i64 + 1)
            .unwrap()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        raw[0]["requestId"], "req_mock_1829d87b193c",
        "text-only lines keep theirs on the message: {raw}"
    );

    // Entries Gatehouse has no event for are kept verbatim.
    let kept: Vec<(&str, &Value)> = events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::ImportedEntry {
                entry_type, raw, ..
            } => Some((entry_type.as_str(), raw)),
            _ => None,
        })
        .collect();
    assert!(
        kept.iter()
            .any(|(t, raw)| *t == "cost-state" && raw["totalCostUSD"].is_number())
    );
    assert!(kept.iter().any(|(t, _)| *t == "attachment"));
}

fn completed_statuses(events: &[Event]) -> Vec<ToolCallStatus> {
    events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::ToolCompleted { status, .. } => Some(*status),
            _ => None,
        })
        .collect()
}

#[test]
fn refusals_by_rule_and_refused_approvals_count_as_denials_and_asks() {
    let denied = std::fs::read(fixture("permission-denied-1.jsonl")).unwrap();
    let approval = std::fs::read(fixture("permission-needs-approval-1.jsonl")).unwrap();
    let home = home_with(&[("denied.jsonl", &denied), ("approval.jsonl", &approval)]);
    let data = tempfile::tempdir().unwrap();
    let mut store = Store::open(data.path()).unwrap();
    import_all(&mut store, home.path());

    let s = store.session("cc-denied").unwrap().unwrap();
    assert_eq!((s.tool_calls, s.asks, s.denials, s.errors), (1, 0, 1, 0));
    let ev = events(&store, "cc-denied");
    let reason = ev.iter().find_map(|e| match &e.body {
        EventBody::PermissionDecided {
            decision,
            reason,
            trace,
            ..
        } => Some((*decision, reason.clone(), trace.clone())),
        _ => None,
    });
    let (decision, reason, trace) = reason.unwrap();
    assert_eq!(decision, PermissionBehavior::Deny);
    assert_eq!(completed_statuses(&ev), [ToolCallStatus::Denied]);
    let reason = serde_json::to_string(&reason).unwrap();
    assert!(reason.contains("projectSettings"), "{reason}");
    assert_eq!(trace[0].layer, "claude_code");

    let s = store.session("cc-approval").unwrap().unwrap();
    assert_eq!((s.tool_calls, s.asks, s.denials, s.errors), (1, 1, 1, 0));
    let ev = events(&store, "cc-approval");
    assert_eq!(completed_statuses(&ev), [ToolCallStatus::Denied]);
    assert!(ev.iter().any(|e| matches!(
        &e.body,
        EventBody::PermissionAnswered {
            answer: PermissionAnswer::Deny { .. },
            ..
        }
    )));
    assert!(
        ev.iter()
            .any(|e| matches!(&e.body, EventBody::ModeChanged { .. }))
    );
}

#[test]
fn tool_results_arriving_mid_message_keep_one_message_and_close_every_call() {
    let streamed = std::fs::read(fixture("streamed-blocks.jsonl")).unwrap();
    let home = home_with(&[("s.jsonl", &streamed)]);
    let data = tempfile::tempdir().unwrap();
    let mut store = Store::open(data.path()).unwrap();
    import_all(&mut store, home.path());
    let ev = events(&store, "cc-s");
    let kinds: Vec<&str> = ev
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::ToolQueued { .. } => Some("queued"),
            EventBody::ToolCompleted { .. } => Some("completed"),
            EventBody::AssistantMessage { .. } => Some("message"),
            _ => None,
        })
        .collect();
    // Calls complete before their message is whole, as in a live session.
    assert_eq!(
        kinds,
        [
            "queued",
            "completed",
            "queued",
            "completed",
            "queued",
            "completed",
            "queued",
            "completed",
            "message",
            "message"
        ]
    );
}

#[test]
fn malformed_lines_are_reported_with_their_number_and_skipped_and_unknown_types_kept() {
    let basic = std::fs::read_to_string(fixture("basic.jsonl")).unwrap();
    let mut lines: Vec<String> = basic.lines().map(str::to_owned).collect();
    lines.insert(4, "{\"type\": \"user\", \"message\": ".into());
    lines.insert(6, "[1, 2, 3]".into());
    lines.insert(
        8,
        r#"{"type":"hologram-sync","timestamp":"2026-11-30T09:15:11.950Z","beam":{"x":1}}"#.into(),
    );
    let text = lines.join("\n") + "\n";
    let home = home_with(&[("m.jsonl", text.as_bytes())]);
    let data = tempfile::tempdir().unwrap();
    let mut store = Store::open(data.path()).unwrap();
    let reports = import_all(&mut store, home.path());
    let r = &reports[0];
    assert_eq!(r.skipped_lines, 2);
    assert_eq!(
        r.problems.iter().map(|p| p.line).collect::<Vec<_>>(),
        [5, 7]
    );
    assert!(
        r.problems[0].message.contains("not valid JSON"),
        "{:?}",
        r.problems
    );
    assert!(r.problems[0].path.ends_with("m.jsonl"));
    let ev = events(&store, "cc-m");
    let kept = ev.iter().find_map(|e| match &e.body {
        EventBody::ImportedEntry {
            entry_type,
            raw,
            line,
            ..
        } if entry_type == "hologram-sync" => Some((raw.clone(), *line)),
        _ => None,
    });
    let (raw, line) = kept.unwrap();
    assert_eq!((raw["beam"]["x"].as_u64(), line), (Some(1), 9));
    assert_eq!(store.session("cc-m").unwrap().unwrap().tool_calls, 8);
}

#[test]
fn reimporting_reads_only_new_lines_and_a_replaced_file_is_imported_afresh() {
    let basic = std::fs::read_to_string(fixture("basic.jsonl")).unwrap();
    let all: Vec<&str> = basic.lines().collect();
    // Cut in the middle of the first assistant message's tool_use lines.
    let cut = 20;
    let first: String = all[..cut].iter().map(|l| format!("{l}\n")).collect();
    let home = home_with(&[("inc.jsonl", first.as_bytes())]);
    let path = home
        .path()
        .join(".claude/projects/-home-user-project/inc.jsonl");
    let data = tempfile::tempdir().unwrap();
    let mut store = Store::open(data.path()).unwrap();
    let r1 = import_all(&mut store, home.path());
    assert_eq!(
        (r1[0].outcome, r1[0].lines),
        (ImportOutcome::Imported, cut as u64)
    );

    let rest: String = all[cut..].iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, format!("{first}{rest}")).unwrap();
    let r2 = import_all(&mut store, home.path());
    assert_eq!(r2[0].outcome, ImportOutcome::Updated);
    assert_eq!(
        r2[0].lines,
        (all.len() - cut) as u64,
        "only the new lines are read"
    );

    let r3 = import_all(&mut store, home.path());
    assert_eq!((r3[0].outcome, r3[0].lines), (ImportOutcome::Unchanged, 0));

    let s = store.session("cc-inc").unwrap().unwrap();
    assert_eq!(s.tool_calls, 8, "no call imported twice");
    let ev = events(&store, "cc-inc");
    let completed = ev
        .iter()
        .filter(|e| matches!(e.body, EventBody::ToolCompleted { .. }))
        .count();
    assert_eq!(completed, 8);
    // The first message was cut by the end of the file: its blocks are
    // written in two parts with the same message id.
    let parts: Vec<usize> = ev
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::AssistantMessage {
                message_id: Some(m),
                content,
                ..
            } if m == "msg_mock_a547f6e6cc254893" => Some(content.len()),
            _ => None,
        })
        .collect();
    assert_eq!(parts.iter().sum::<usize>(), 9, "{parts:?}");

    // Replaced by a different, shorter transcript: imported afresh.
    let denied = std::fs::read(fixture("permission-denied-1.jsonl")).unwrap();
    std::fs::write(&path, &denied).unwrap();
    let r4 = import_all(&mut store, home.path());
    assert_eq!(r4[0].outcome, ImportOutcome::Reimported);
    let s = store.session("cc-inc").unwrap().unwrap();
    assert_eq!((s.tool_calls, s.denials), (1, 1));
}

#[test]
fn sub_agent_transcripts_are_discovered_and_linked_to_their_session() {
    let basic = std::fs::read(fixture("basic.jsonl")).unwrap();
    let denied = std::fs::read(fixture("permission-denied-1.jsonl")).unwrap();
    let home = home_with(&[("main.jsonl", &basic)]);
    let agents = home
        .path()
        .join(".claude/projects/-home-user-project/main/subagents");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::write(agents.join("agent-a1.jsonl"), &denied).unwrap();
    std::fs::write(agents.join("notes.txt"), "not a transcript").unwrap();

    let found = claude::discover(home.path()).unwrap();
    let ids: Vec<(&str, Option<&str>)> = found
        .iter()
        .map(|t: &ClaudeTranscript| (t.session_id.as_str(), t.parent_session_id.as_deref()))
        .collect();
    assert_eq!(
        ids,
        [("cc-main", None), ("cc-main-agent-a1", Some("cc-main"))]
    );
    assert_eq!(found[0].project_dir, "-home-user-project");

    let data = tempfile::tempdir().unwrap();
    let mut store = Store::open(data.path()).unwrap();
    let mut seen = Vec::new();
    let reports = claude::import_transcripts(&mut store, &found, |p| {
        seen.push((p.bytes_done, p.bytes_total, p.files_done));
    });
    assert!(reports.iter().all(Result::is_ok));
    let total = (basic.len() + denied.len()) as u64;
    assert_eq!(seen.last(), Some(&(total, total, 2)));
    assert!(
        seen.windows(2).all(|w| w[0].0 <= w[1].0),
        "progress only grows"
    );
    let children = store.child_sessions("cc-main").unwrap();
    assert_eq!(children.len(), 1);
    assert_eq!(children[0].id, "cc-main-agent-a1");
    // Deleting the session deletes its sub-agents.
    assert_eq!(store.delete_session("cc-main").unwrap().len(), 2);
    // A missing folder lists nothing.
    assert!(
        claude::discover(&home.path().join("nobody"))
            .unwrap()
            .is_empty()
    );
}

/// A Task call's result names its agent (`toolUseResult.agentId`): the
/// imported call links to the imported sub-agent session, as Gatehouse's own
/// Agent calls do. (The fixture is written in Claude Code 2.1's shapes; the
/// shared fixtures hold no sub-agent.)
#[test]
fn an_imported_task_call_links_to_its_sub_agents_session() {
    let parent = std::fs::read(fixture("task-with-subagent.jsonl")).unwrap();
    let agent = std::fs::read(fixture("task-with-subagent.agent-a9f3c2e1.jsonl")).unwrap();
    let home = home_with(&[("main.jsonl", &parent)]);
    let agents = home
        .path()
        .join(".claude/projects/-home-user-project/main/subagents");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::write(agents.join("agent-a9f3c2e1.jsonl"), &agent).unwrap();
    let data = tempfile::tempdir().unwrap();
    let mut store = Store::open(data.path()).unwrap();
    import_all(&mut store, home.path());

    let linked: Vec<(String, String, u32)> = events(&store, "cc-main")
        .into_iter()
        .filter_map(|e| match e.body {
            EventBody::ToolProgress {
                tool_use_id,
                data:
                    ToolProgressData::Subagent {
                        agent_session_id,
                        subagent_type,
                        tool_calls,
                        ..
                    },
            } => {
                assert_eq!(tool_use_id, "toolu_task_1");
                Some((agent_session_id, subagent_type, tool_calls))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        linked,
        [("cc-main-agent-a9f3c2e1".to_owned(), "Explore".to_owned(), 2)]
    );
    // The session it names is the imported sub-agent transcript.
    let child = store.session("cc-main-agent-a9f3c2e1").unwrap().unwrap();
    assert_eq!(child.parent_session_id.as_deref(), Some("cc-main"));
    assert!(events(&store, &child.id).iter().any(|e| matches!(
        &e.body,
        EventBody::UserPrompt { text } if text == "Where is the greeting defined?"
    )));
}

/// The full set of real transcripts, when `../shared` is present.
#[test]
fn every_shared_fixture_imports_without_problems() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/fixtures/claude-code-transcripts");
    if !dir.is_dir() {
        // A clone without `../shared` (a newcomer's) must pass `cargo xtask
        // test`: counted as a skip, never a failure; CI has the fixtures.
        // The project's own fixtures (tests/fixtures) run either way.
        gatehouse_test_support::not_applicable(format!(
            "the shared fixtures {} are absent (a clone without ../shared)",
            dir.display()
        ));
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join(".claude/projects/p");
    std::fs::create_dir_all(&project).unwrap();
    let mut expected = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "jsonl") {
            let text = std::fs::read_to_string(&path).unwrap();
            let calls = text.matches("\"type\": \"tool_use\"").count()
                + text.matches("\"type\":\"tool_use\"").count();
            let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
            expected.push((format!("cc-{stem}"), calls as i64));
            std::fs::copy(&path, project.join(path.file_name().unwrap())).unwrap();
        }
    }
    let data = tempfile::tempdir().unwrap();
    let mut store = Store::open(data.path()).unwrap();
    for report in import_all(&mut store, home.path()) {
        assert_eq!(report.skipped_lines, 0, "{:?}", report.problems);
    }
    for (id, calls) in expected {
        let s = store.session(&id).unwrap().unwrap();
        assert_eq!(s.tool_calls, calls, "{id}");
        let ev = events(&store, &id);
        let completed = ev
            .iter()
            .filter(|e| matches!(e.body, EventBody::ToolCompleted { .. }))
            .count();
        assert_eq!(completed as i64, calls, "{id}: every call is closed");
    }
}
