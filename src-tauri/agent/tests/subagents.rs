//! The Agent tool with the replay provider (issue 19 item 7): a parent
//! session starts sub-agents, each a full loop with its own replay turns.
//! Real parts: the session's built-in tools (`session_pool`), the
//! permission engine from settings files on disk (`load_engine`), the
//! pipeline and the streaming executor, real files in a temporary project.
//! The one stand-in: `AskUserQuestion` is a core test tool, because
//! Gatehouse has no AskUserQuestion yet; it is here to prove no sub-agent
//! gets it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/parent.rs"]
mod parent;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use gatehouse_agent::provider::replay::{ReplayProvider, Script};
use gatehouse_agent::provider::{EventStream, ModelRequest, Provider, ProviderError};
use gatehouse_agent::subagent::{DEFAULT_SUBAGENT_MAX_TURNS, SubagentProviders, SubagentSpawn};
use gatehouse_agent::{Agent, AgentConfig};
use gatehouse_core::events::{EventSink, MemorySink};
use gatehouse_core::testing::{Probe, TestTool};
use gatehouse_core::{ToolRuntime, ToolUseContext};
use gatehouse_protocol::event::{Event, EventBody, SessionStatus, ToolCallStatus};
use gatehouse_protocol::progress::{SubagentPhase, ToolProgressData};
use parent::{ParentSetup, parent_session};
use serde_json::{Value, json};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

const PARENT: &str = "s-parent";

/// Keeps every event and wakes waiters on each one.
#[derive(Default)]
struct WatchSink {
    events: MemorySink,
    notify: Notify,
}

impl WatchSink {
    fn events(&self) -> Vec<Event> {
        self.events.events()
    }

    async fn wait_for(&self, what: impl Fn(&[Event]) -> bool) {
        loop {
            let notified = self.notify.notified();
            if what(&self.events()) {
                return;
            }
            notified.await;
        }
    }
}

impl EventSink for WatchSink {
    fn emit(&self, event: Event) {
        self.events.emit(event);
        self.notify.notify_waiters();
    }
}

/// A replay provider that also keeps the tool names of every request.
struct Recording {
    inner: ReplayProvider,
    tools_seen: Mutex<Vec<Vec<String>>>,
}

#[async_trait]
impl Provider for Recording {
    fn name(&self) -> &str {
        "replay"
    }

    async fn stream(&self, request: &ModelRequest) -> Result<EventStream, ProviderError> {
        let tools: Vec<Value> = serde_json::from_str(&request.tools_json()).unwrap();
        self.tools_seen.lock().unwrap().push(
            tools
                .iter()
                .map(|t| t["name"].as_str().unwrap().to_owned())
                .collect(),
        );
        self.inner.stream(request).await
    }
}

fn recording(script: Value, project: &Path) -> Arc<Recording> {
    Arc::new(Recording {
        inner: ReplayProvider::new(
            Script::parse(&script.to_string())
                .unwrap()
                .with_project_dir(project),
        ),
        tools_seen: Mutex::new(Vec::new()),
    })
}

/// Each sub-agent's replay turns, chosen by the call's description.
struct ByDescription(HashMap<String, Arc<Recording>>);

impl SubagentProviders for ByDescription {
    fn provider(&self, spawn: &SubagentSpawn) -> Result<Arc<dyn Provider>, String> {
        self.0
            .get(&spawn.description)
            .map(|p| Arc::clone(p) as Arc<dyn Provider>)
            .ok_or_else(|| format!("no replay script for {:?}", spawn.description))
    }
}

struct Fixture {
    _dirs: (tempfile::TempDir, tempfile::TempDir, tempfile::TempDir),
    project: PathBuf,
    sink: Arc<WatchSink>,
    runtime: Arc<ToolRuntime>,
    ask_probe: Arc<Probe>,
}

fn config(idle: Duration) -> AgentConfig {
    let mut c = AgentConfig::new("parent-model");
    c.idle_timeout = idle;
    c
}

/// A project folder with a readme, a source file and deny rules.
fn new_project() -> (tempfile::TempDir, PathBuf) {
    let root = tempfile::tempdir().unwrap();
    let project = root.path().canonicalize().unwrap();
    std::fs::write(project.join("README.md"), "hello from the readme\n").unwrap();
    std::fs::create_dir_all(project.join("src")).unwrap();
    std::fs::write(project.join("src/main.rs"), "fn main() {}\n").unwrap();
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    std::fs::write(
        project.join(".claude/settings.json"),
        json!({"permissions": {"deny": ["Bash(rm:*)", "Agent(Plan)"]}}).to_string(),
    )
    .unwrap();
    (root, project)
}

fn fixture(
    (root, project): (tempfile::TempDir, PathBuf),
    subagents: HashMap<String, Arc<Recording>>,
    idle: Duration,
) -> Fixture {
    let session_dir = tempfile::tempdir().unwrap();
    let sink = Arc::new(WatchSink::default());
    let ask_probe = Probe::new();
    let parent = parent_session(ParentSetup {
        session_id: PARENT,
        project: &project,
        session_dir: session_dir.path(),
        sink: sink.clone(),
        extra_tools: vec![
            TestTool::safe("AskUserQuestion")
                .with_probe(&ask_probe)
                .arc(),
        ],
        providers: Arc::new(ByDescription(subagents)),
        config: config(idle),
        max_turns: DEFAULT_SUBAGENT_MAX_TURNS,
        worktrees: None,
    });
    Fixture {
        _dirs: (root, parent.home, session_dir),
        project,
        sink,
        runtime: parent.runtime,
        ask_probe,
    }
}

fn parent_agent(f: &Fixture, script: Value, idle: Duration) -> Agent {
    let provider = recording(script, &f.project);
    Agent::new(
        provider,
        Arc::clone(&f.runtime),
        config(idle),
        ToolUseContext {
            session_id: PARENT.into(),
            cwd: f.project.clone(),
            ..ToolUseContext::default()
        },
    )
}

fn agent_call(id: &str, kind: &str, description: &str) -> Value {
    json!({"type": "tool_use", "id": id, "name": "Agent", "input": {
        "description": description, "prompt": format!("please {description}"), "subagent_type": kind}})
}

fn kind(e: &Event) -> String {
    serde_json::to_value(e).unwrap()["type"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn child(id: &str) -> String {
    format!("{PARENT}-agent-{id}")
}

/// The parent's `tool_completed` of `id`: status and text.
fn completed(events: &[Event], id: &str) -> (ToolCallStatus, String) {
    events
        .iter()
        .find_map(|e| match &e.body {
            EventBody::ToolCompleted {
                tool_use_id,
                status,
                content,
                ..
            } if e.session_id == PARENT && tool_use_id == id => {
                Some((*status, serde_json::to_string(content).unwrap()))
            }
            _ => None,
        })
        .unwrap_or_else(|| panic!("no tool_completed for {id}"))
}

fn position(events: &[Event], session: &str, what: &str) -> usize {
    events
        .iter()
        .position(|e| e.session_id == session && kind(e) == what)
        .unwrap_or_else(|| panic!("no {what} in {session}"))
}

fn three_agents_script() -> Value {
    json!({"turns": [
        {"content": [
            {"type": "text", "text": "Splitting the work."},
            agent_call("a", "Explore", "find the greeting"),
            agent_call("b", "Explore", "find the sources"),
            agent_call("c", "general-purpose", "clean the build")
        ]},
        {"content": [{"type": "text", "text": "All three reported."}]}
    ]})
}

#[tokio::test(start_paused = true)]
async fn two_explore_agents_run_concurrently_then_the_general_purpose_one_alone() {
    let (root, project) = new_project();
    let a = recording(
        json!({"turns": [
            {"delay_ms": 10, "content": [{"type": "tool_use", "name": "Grep", "input": {"pattern": "hello", "path": "${PROJECT_DIR}"}}]},
            {"content": [{"type": "text", "text": "The greeting is in README.md."}], "usage": {"input_tokens": 5, "output_tokens": 7}}
        ]}),
        &project,
    );
    let b = recording(
        json!({"turns": [
            {"delay_ms": 10, "content": [{"type": "tool_use", "name": "Glob", "input": {"pattern": "**/*.rs", "path": "${PROJECT_DIR}"}}]},
            {"content": [{"type": "text", "text": "The sources are src/main.rs."}]}
        ]}),
        &project,
    );
    let c = recording(
        json!({"turns": [
            {"content": [
                {"type": "tool_use", "name": "Bash", "input": {"command": "rm -rf build"}},
                {"type": "tool_use", "name": "AskUserQuestion", "input": {}}
            ]},
            {"content": [{"type": "text", "text": "I could not clean the build."}]}
        ]}),
        Path::new("/"),
    );
    let subagents: HashMap<String, Arc<Recording>> = [
        ("find the greeting".to_owned(), Arc::clone(&a)),
        ("find the sources".to_owned(), Arc::clone(&b)),
        ("clean the build".to_owned(), Arc::clone(&c)),
    ]
    .into();
    let f = fixture((root, project), subagents, Duration::from_secs(120));
    let mut parent = parent_agent(&f, three_agents_script(), Duration::from_secs(120));
    let out = parent.run_prompt("survey", &CancellationToken::new()).await;
    assert_eq!(out.status, SessionStatus::Completed, "{out:?}");
    let events = f.sink.events();

    // The timeline of the sub-agents, as the report shows it.
    let timeline: Vec<String> = events
        .iter()
        .filter(|e| e.session_id != PARENT)
        .map(|e| {
            format!(
                "{} {}",
                e.session_id.trim_start_matches("s-parent-agent-"),
                kind(e)
            )
        })
        .collect();
    eprintln!("timeline:\n{}", timeline.join("\n"));

    let (a_id, b_id, c_id) = (child("a"), child("b"), child("c"));
    // Concurrency: both Explore agents sent their first request before
    // either finished (one at a time, A would end before B starts).
    let a_first = position(&events, &a_id, "model_request_started");
    let b_first = position(&events, &b_id, "model_request_started");
    let a_end = position(&events, &a_id, "session_completed");
    let b_end = position(&events, &b_id, "session_completed");
    assert!(a_first < b_end && b_first < a_end, "{timeline:#?}");
    // The general-purpose agent is not concurrency-safe: it starts alone,
    // after both.
    let c_start = position(&events, &c_id, "user_prompt");
    assert!(c_start > a_end && c_start > b_end, "{timeline:#?}");

    // Tool sets: Explore has only read-only tools; no sub-agent has
    // AskUserQuestion, Agent, TaskOutput or TaskStop (SendMessage is not
    // among the seeds' tools no sub-agent may use: a foreground agent may
    // message the session's background agents).
    let a_tools = a.tools_seen.lock().unwrap()[0].clone();
    assert_eq!(a_tools, ["Glob", "Grep", "Read", "WebFetch"]);
    let c_tools = c.tools_seen.lock().unwrap()[0].clone();
    assert_eq!(
        c_tools,
        [
            "Bash",
            "Edit",
            "Glob",
            "Grep",
            "NotebookEdit",
            "Read",
            "SendMessage",
            "TodoWrite",
            "WebFetch",
            "Write"
        ]
    );
    assert_eq!(f.ask_probe.calls(), 0);

    // The answers are the results; the denied Bash call inside C reaches
    // the parent in C's result.
    let (status, text) = completed(&events, "a");
    assert_eq!(status, ToolCallStatus::Ok);
    assert!(text.contains("The greeting is in README.md."), "{text}");
    assert!(text.contains("1 tool calls, 7 output tokens"), "{text}");
    let (status, text) = completed(&events, "b");
    assert_eq!(status, ToolCallStatus::Ok);
    assert!(text.contains("src/main.rs"), "{text}");
    let (status, text) = completed(&events, "c");
    assert_eq!(status, ToolCallStatus::Ok);
    assert!(text.contains("I could not clean the build."), "{text}");
    assert!(text.contains("Calls the sub-agent was refused:"), "{text}");
    assert!(text.contains("- Bash: "), "{text}");
    assert!(text.contains("Bash(rm:*)"), "{text}");

    // Each sub-agent's events are its own session, named by the parent's
    // progress events on the Agent call.
    let links: Vec<(String, String, SubagentPhase)> = events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::ToolProgress {
                tool_use_id,
                data:
                    ToolProgressData::Subagent {
                        agent_session_id,
                        phase,
                        ..
                    },
            } if e.session_id == PARENT => {
                Some((tool_use_id.clone(), agent_session_id.clone(), *phase))
            }
            _ => None,
        })
        .collect();
    for id in ["a", "b", "c"] {
        let phases: Vec<SubagentPhase> = links
            .iter()
            .filter(|(t, s, _)| t == id && *s == child(id))
            .map(|(_, _, p)| *p)
            .collect();
        assert_eq!(
            phases.first(),
            Some(&SubagentPhase::Started),
            "{id}: {phases:?}"
        );
        assert_eq!(
            phases.last(),
            Some(&SubagentPhase::Completed),
            "{id}: {phases:?}"
        );
    }
    assert!(events.iter().any(|e| e.session_id == a_id
        && matches!(
            &e.body,
            EventBody::ToolCompleted {
                status: ToolCallStatus::Ok,
                ..
            }
        )));
}

#[tokio::test]
async fn the_parents_interrupt_stops_all_three() {
    // Replies that would take ten minutes: only the interrupt ends them.
    let slow = |text: &str| {
        recording(
            json!({"turns": [{"delay_ms": 600_000, "content": [{"type": "text", "text": text}]}]}),
            Path::new("/"),
        )
    };
    let subagents: HashMap<String, Arc<Recording>> = [
        ("find the greeting".to_owned(), slow("a")),
        ("find the sources".to_owned(), slow("b")),
        ("clean the build".to_owned(), slow("c")),
    ]
    .into();
    let f = fixture(new_project(), subagents, Duration::from_secs(3600));
    let mut parent = parent_agent(&f, three_agents_script(), Duration::from_secs(3600));
    let interrupt = CancellationToken::new();
    let run = {
        let interrupt = interrupt.clone();
        tokio::spawn(async move {
            let out = parent.run_prompt("survey", &interrupt).await;
            (out, parent)
        })
    };
    let (a_id, b_id) = (child("a"), child("b"));
    f.sink
        .wait_for(|events| {
            [&a_id, &b_id].iter().all(|id| {
                events
                    .iter()
                    .any(|e| e.session_id == **id && kind(e) == "model_request_started")
            })
        })
        .await;
    interrupt.cancel();
    let (out, _parent) = run.await.unwrap();
    assert_eq!(out.status, SessionStatus::Interrupted);
    let events = f.sink.events();
    for id in [&a_id, &b_id] {
        assert!(
            events.iter().any(|e| e.session_id == *id
                && matches!(
                    e.body,
                    EventBody::SessionCompleted {
                        status: SessionStatus::Interrupted,
                        ..
                    }
                )),
            "{id} did not end interrupted"
        );
    }
    // The general-purpose agent was queued behind them and never started.
    assert!(!events.iter().any(|e| e.session_id == child("c")));
    for id in ["a", "b", "c"] {
        let (status, text) = completed(&events, id);
        assert_eq!(status, ToolCallStatus::Interrupted, "{id}: {text}");
    }
}

#[tokio::test]
async fn bad_agent_calls_get_clear_error_results_and_the_parent_continues() {
    let broken = recording(json!({"turns": []}), Path::new("/"));
    let subagents: HashMap<String, Arc<Recording>> = [("fail at once".to_owned(), broken)].into();
    let f = fixture(new_project(), subagents, Duration::from_secs(120));
    let script = json!({"turns": [
        {"content": [
            agent_call("u", "Nope", "use a missing type"),
            agent_call("p", "Plan", "plan something"),
            agent_call("x", "general-purpose", "fail at once")
        ]},
        {"content": [{"type": "text", "text": "Carrying on."}]}
    ]});
    let mut parent = parent_agent(&f, script, Duration::from_secs(120));
    let out = parent.run_prompt("go", &CancellationToken::new()).await;
    assert_eq!(out.status, SessionStatus::Completed, "{out:?}");
    assert_eq!(out.turns, 2);
    let events = f.sink.events();

    let (status, text) = completed(&events, "u");
    assert_eq!(status, ToolCallStatus::Error);
    assert!(
        text.contains(
            "Agent type 'Nope' not found. Available agents: Explore, Plan, general-purpose"
        ),
        "{text}"
    );
    // `Agent(Plan)` is denied by the project's rule.
    let (status, text) = completed(&events, "p");
    assert_eq!(status, ToolCallStatus::Denied, "{text}");
    assert!(!events.iter().any(|e| e.session_id == child("p")));
    // A sub-agent whose provider fails is an error result naming the cause.
    let (status, text) = completed(&events, "x");
    assert_eq!(status, ToolCallStatus::Error);
    assert!(
        text.contains("sub-agent 'general-purpose' (fail at once) failed"),
        "{text}"
    );
    assert!(text.contains("no reply left"), "{text}");
}
