//! Background agents, SendMessage and worktree isolation with the replay
//! provider (issue 19 items 4, 5 and 7). Real parts: the session's built-in
//! tools (`session_pool`), the permission engine from settings files on
//! disk, the task manager, the pipeline, real files and real git
//! repositories in temporary folders.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/parent.rs"]
mod parent;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use gatehouse_agent::message::{Block, Role};
use gatehouse_agent::provider::replay::{ReplayProvider, Script};
use gatehouse_agent::provider::{EventStream, ModelRequest, Provider, ProviderError};
use gatehouse_agent::subagent::{SubagentProviders, SubagentSpawn};
use gatehouse_agent::{Agent, AgentConfig, Notice};
use gatehouse_core::events::{EventSink, MemorySink};
use gatehouse_core::{ToolRuntime, ToolUseContext};
use gatehouse_protocol::event::{
    ContextSource, Event, EventBody, SessionStatus, TaskKind, TaskStatus, ToolCallStatus,
};
use gatehouse_tools::tasks::TaskManager;
use parent::{ParentSetup, parent_session};
use serde_json::{Value, json};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

const PARENT: &str = "s-parent";
/// Every test's upper bound: a hang fails instead of blocking the suite.
const LIMIT: Duration = Duration::from_secs(60);

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
        tokio::time::timeout(LIMIT, async {
            loop {
                let notified = self.notify.notified();
                if what(&self.events()) {
                    return;
                }
                notified.await;
            }
        })
        .await
        .expect("the awaited events never came");
    }
}

impl EventSink for WatchSink {
    fn emit(&self, event: Event) {
        self.events.emit(event);
        self.notify.notify_waiters();
    }
}

/// A replay provider that keeps each request's tool names and the text of
/// its last user message, and may hold its first request until `gate`.
struct Recording {
    inner: ReplayProvider,
    tools_seen: Mutex<Vec<Vec<String>>>,
    last_user: Mutex<Vec<String>>,
    gate: Option<Gate>,
}

/// What the first request waits for.
type Gate =
    Arc<dyn Fn() -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>> + Send + Sync>;

#[async_trait]
impl Provider for Recording {
    fn name(&self) -> &str {
        "replay"
    }

    async fn stream(&self, request: &ModelRequest) -> Result<EventStream, ProviderError> {
        let first = {
            let mut seen = self.tools_seen.lock().unwrap();
            let tools: Vec<Value> = serde_json::from_str(&request.tools_json()).unwrap();
            seen.push(
                tools
                    .iter()
                    .map(|t| t["name"].as_str().unwrap().to_owned())
                    .collect(),
            );
            seen.len() == 1
        };
        let text = request
            .messages
            .iter()
            .rev()
            .find(|m| m.role == Role::User)
            .map(|m| {
                m.content
                    .iter()
                    .filter_map(|b| match b {
                        Block::Text { text } => Some(text.clone()),
                        _ => None,
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .unwrap_or_default();
        self.last_user.lock().unwrap().push(text);
        if first && let Some(gate) = &self.gate {
            gate().await;
        }
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
        last_user: Mutex::new(Vec::new()),
        gate: None,
    })
}

/// Each sub-agent's replay turns by the call's description; scripts in
/// `in_cwd` get `${PROJECT_DIR}` = the folder the agent starts in (its
/// worktree), known only when it starts.
struct ByDescription {
    ready: HashMap<String, Arc<Recording>>,
    in_cwd: HashMap<String, Value>,
}

impl SubagentProviders for ByDescription {
    fn provider(&self, spawn: &SubagentSpawn) -> Result<Arc<dyn Provider>, String> {
        if let Some(script) = self.in_cwd.get(&spawn.description) {
            return Ok(recording(script.clone(), &spawn.cwd));
        }
        self.ready
            .get(&spawn.description)
            .map(|p| Arc::clone(p) as Arc<dyn Provider>)
            .ok_or_else(|| format!("no replay script for {:?}", spawn.description))
    }
}

struct Fixture {
    _dirs: Vec<tempfile::TempDir>,
    project: PathBuf,
    sink: Arc<WatchSink>,
    runtime: Arc<ToolRuntime>,
    tasks: Arc<TaskManager>,
}

fn config() -> AgentConfig {
    let mut c = AgentConfig::new("parent-model");
    c.idle_timeout = Duration::from_secs(120);
    c
}

/// A project (a git repository with one commit when `git`), whose rules
/// allow writing its README and deny reading `secret/`.
fn new_project(git: bool) -> (tempfile::TempDir, PathBuf) {
    let root = tempfile::tempdir().unwrap();
    let project = root.path().join("project");
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    let project = project.canonicalize().unwrap();
    std::fs::write(project.join("README.md"), "hello from the readme\n").unwrap();
    std::fs::create_dir_all(project.join("secret")).unwrap();
    std::fs::write(project.join("secret/key"), "k\n").unwrap();
    std::fs::write(
        project.join(".claude/settings.json"),
        json!({"permissions": {"allow": ["Edit(/README.md)", "Write(/README.md)", "TaskStop"], "deny": ["Read(/secret/**)"]}}).to_string(),
    )
    .unwrap();
    if git {
        for args in [
            &["init", "-q", "-b", "main"][..],
            &["add", "."],
            &[
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@example.com",
                "commit",
                "-q",
                "-m",
                "first",
            ],
        ] {
            let out = std::process::Command::new("git")
                .arg("-C")
                .arg(&project)
                .args(args)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
    (root, project)
}

fn fixture(
    (root, project): (tempfile::TempDir, PathBuf),
    subagents: HashMap<String, Arc<Recording>>,
    max_turns: u32,
) -> Fixture {
    fixture_in_cwd((root, project), subagents, HashMap::new(), max_turns)
}

fn fixture_in_cwd(
    (root, project): (tempfile::TempDir, PathBuf),
    subagents: HashMap<String, Arc<Recording>>,
    in_cwd: HashMap<String, Value>,
    max_turns: u32,
) -> Fixture {
    let data = tempfile::tempdir().unwrap();
    let sink = Arc::new(WatchSink::default());
    let parent = parent_session(ParentSetup {
        session_id: PARENT,
        project: &project,
        session_dir: &data.path().join("session"),
        sink: sink.clone(),
        extra_tools: Vec::new(),
        providers: Arc::new(ByDescription {
            ready: subagents,
            in_cwd,
        }),
        config: config(),
        max_turns,
        worktrees: Some(data.path().join("worktrees")),
    });
    Fixture {
        _dirs: vec![root, parent.home, data],
        project,
        sink,
        runtime: parent.runtime,
        tasks: parent.tasks,
    }
}

fn parent_agent(f: &Fixture, provider: Arc<Recording>) -> Agent {
    let tasks = Arc::clone(&f.tasks);
    Agent::new(
        provider,
        Arc::clone(&f.runtime),
        config(),
        ToolUseContext {
            session_id: PARENT.into(),
            cwd: f.project.clone(),
            ..ToolUseContext::default()
        },
    )
    .with_notices(Arc::new(move || {
        Notice::all(ContextSource::TaskNotification, tasks.take_notices())
    }))
}

fn tool(id: &str, name: &str, input: Value) -> Value {
    json!({"type": "tool_use", "id": id, "name": name, "input": input})
}

fn text(t: &str) -> Value {
    json!({"content": [{"type": "text", "text": t}]})
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

fn task_completions(events: &[Event], id: &str) -> Vec<TaskStatus> {
    events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::TaskCompleted {
                task_id,
                status,
                kind: TaskKind::Agent,
                ..
            } if task_id == id => Some(*status),
            _ => None,
        })
        .collect()
}

/// The worktree path a result text names after `lead` (up to " (branch").
fn worktree_named(text: &str, lead: &str) -> PathBuf {
    text.split(lead)
        .nth(1)
        .and_then(|r| r.split(" (branch").next())
        .unwrap_or_else(|| panic!("no worktree after {lead:?} in {text}"))
        .into()
}

async fn run(parent: &mut Agent, prompt: &str) -> gatehouse_agent::PromptOutcome {
    tokio::time::timeout(LIMIT, parent.run_prompt(prompt, &CancellationToken::new()))
        .await
        .expect("the parent's prompt never ended")
}

#[tokio::test]
async fn a_background_agent_returns_at_once_and_taskoutput_and_sendmessage_reach_it() {
    let (root, project) = new_project(false);
    let mut survey = Arc::into_inner(recording(
        json!({"turns": [
            {"content": [{"type": "tool_use", "name": "Grep", "input": {"pattern": "hello", "path": "${PROJECT_DIR}"}}]},
            text("First report: the greeting is in README.md."),
            text("Second report: 1 file.")
        ]}),
        &project,
    ))
    .unwrap();
    // Its first request waits until the parent's Agent call has completed:
    // the call cannot have waited for the agent.
    let waiting: Arc<Mutex<Option<Arc<WatchSink>>>> = Arc::new(Mutex::new(None));
    let gate_slot = Arc::clone(&waiting);
    survey.gate = Some(Arc::new(move || {
        let sink = gate_slot.lock().unwrap().clone();
        Box::pin(async move {
            if let Some(sink) = sink {
                sink.wait_for(|ev| {
                    ev.iter().any(|e| {
                        e.session_id == PARENT
                            && matches!(&e.body, EventBody::ToolCompleted { tool_use_id, .. } if tool_use_id == "bg")
                    })
                })
                .await;
            }
        })
    }));
    let survey = Arc::new(survey);
    let f = fixture(
        (root, project),
        [("survey".to_owned(), Arc::clone(&survey))].into(),
        50,
    );
    *waiting.lock().unwrap() = Some(Arc::clone(&f.sink));
    let parent_script = recording(
        json!({"turns": [
            {"content": [tool("bg", "Agent", json!({"description": "survey", "prompt": "find the greeting", "subagent_type": "general-purpose", "run_in_background": true}))]},
            {"content": [tool("o1", "TaskOutput", json!({"task_id": "agent_1", "timeout": 60_000}))]},
            {"content": [tool("m1", "SendMessage", json!({"to": "agent_1", "message": "now count the files"}))]},
            {"content": [tool("o2", "TaskOutput", json!({"task_id": "agent_1", "timeout": 60_000}))]},
            {"content": [tool("m2", "SendMessage", json!({"to": "agent_7", "message": "hello?"}))]},
            text("Both reports are in.")
        ]}),
        &f.project,
    );
    let mut parent = parent_agent(&f, Arc::clone(&parent_script));
    let out = run(&mut parent, "survey in the background").await;
    assert_eq!(out.status, SessionStatus::Completed, "{out:?}");
    let events = f.sink.events();

    let (status, t) = completed(&events, "bg");
    assert_eq!(status, ToolCallStatus::Ok, "{t}");
    assert!(t.contains("in the background as task agent_1"), "{t}");
    assert!(t.contains("SendMessage (to \\\"agent_1\\\")"), "{t}");
    // The task events name the agent's session and type.
    let child = format!("{PARENT}-agent-bg");
    assert!(events.iter().any(|e| matches!(&e.body,
        EventBody::TaskStarted { task_id, kind: TaskKind::Agent, tool_use_id: Some(call), agent_session_id: Some(s), subagent_type: Some(ty), .. }
            if task_id == "agent_1" && call == "bg" && *s == child && ty == "general-purpose")));

    // TaskOutput reads its transcript; the first run has ended.
    let (status, t) = completed(&events, "o1");
    assert_eq!(status, ToolCallStatus::Ok, "{t}");
    assert!(t.contains("Task agent_1 is completed"), "{t}");
    assert!(t.contains("[tool] Grep"), "{t}");
    assert!(
        t.contains("[assistant] First report: the greeting is in README.md."),
        "{t}"
    );
    // SendMessage starts it again with the message; it keeps its history.
    let (status, t) = completed(&events, "m1");
    assert_eq!(status, ToolCallStatus::Ok, "{t}");
    assert!(t.contains("had finished; it runs again"), "{t}");
    let (_, t) = completed(&events, "o2");
    assert!(t.contains("[prompt] now count the files"), "{t}");
    assert!(t.contains("Second report: 1 file."), "{t}");
    assert!(!t.contains("First report"), "only new output: {t}");
    assert_eq!(
        task_completions(&events, "agent_1"),
        [TaskStatus::Completed, TaskStatus::Completed]
    );
    let asked = survey.last_user.lock().unwrap().clone();
    assert_eq!(
        asked.last().map(String::as_str),
        Some("now count the files")
    );
    // An unknown id: a clear error, and the parent went on.
    let (status, t) = completed(&events, "m2");
    assert_eq!(status, ToolCallStatus::Error);
    assert!(
        t.contains("no background task has the id \\\"agent_7\\\" (known tasks: agent_1)"),
        "{t}"
    );

    // The background set: no SendMessage, TaskOutput, TaskStop or Agent.
    let tools = survey.tools_seen.lock().unwrap()[0].clone();
    assert_eq!(
        tools,
        [
            "Bash",
            "Edit",
            "Glob",
            "Grep",
            "NotebookEdit",
            "Read",
            "TodoWrite",
            "WebFetch",
            "Write"
        ]
    );
    // Each end is announced at most once (an end the agent reached before
    // the parent's next request is announced there; one TaskOutput had
    // already reported is not).
    let told = parent_script
        .last_user
        .lock()
        .unwrap()
        .iter()
        .filter(|u| u.contains("<task-notification>"))
        .count();
    assert!(told <= 2, "{told}");
}

#[tokio::test]
async fn the_parent_hears_of_a_finished_background_agent_at_its_next_turn() {
    let (root, project) = new_project(false);
    let worker = recording(json!({"turns": [text("All 3 tests pass.")]}), &project);
    let f = fixture(
        (root, project),
        [("run the tests".to_owned(), Arc::clone(&worker))].into(),
        50,
    );
    let parent_script = recording(
        json!({"turns": [
            {"content": [tool("bg", "Agent", json!({"description": "run the tests", "prompt": "run them", "run_in_background": true}))]},
            text("Started it."),
            text("Noted: the tests pass.")
        ]}),
        &f.project,
    );
    let mut parent = parent_agent(&f, Arc::clone(&parent_script));
    assert_eq!(
        run(&mut parent, "test it").await.status,
        SessionStatus::Completed
    );
    f.sink
        .wait_for(|ev| !task_completions(ev, "agent_1").is_empty())
        .await;
    assert_eq!(
        run(&mut parent, "anything new?").await.status,
        SessionStatus::Completed
    );
    // The agent may end before the parent's second request or after its
    // first prompt: the next request after its end carries the notice,
    // exactly one request does.
    let asked = parent_script.last_user.lock().unwrap().clone();
    let told: Vec<&String> = asked
        .iter()
        .filter(|u| u.contains("<task-notification>"))
        .collect();
    assert_eq!(told.len(), 1, "{asked:#?}");
    assert!(told[0].contains("<task-notification>\nBackground task agent_1 (agent general-purpose (run the tests)) completed"), "{}", told[0]);
    assert!(
        told[0].contains("Its final answer:\nAll 3 tests pass."),
        "{}",
        told[0]
    );
    // Once.
    assert!(f.tasks.take_notices().is_empty());
    // Stored as it was sent, so a resumed parent's history has it too.
    let parent_events: Vec<Event> = f
        .sink
        .events()
        .into_iter()
        .filter(|e| e.session_id == PARENT)
        .collect();
    let added: Vec<&String> = parent_events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::ContextAdded {
                source: ContextSource::TaskNotification,
                text,
            } => Some(text),
            _ => None,
        })
        .collect();
    assert_eq!(added.len(), 1, "{added:#?}");
    assert!(told[0].contains(added[0].as_str()), "{}", added[0]);
    let (history, _) = gatehouse_agent::resume::history_from_events(&parent_events);
    let resumed: Vec<&Block> = history
        .iter()
        .filter(|m| m.role == Role::User)
        .flat_map(|m| m.content.iter())
        .filter(|b| matches!(b, Block::Text { text } if text == added[0]))
        .collect();
    assert_eq!(resumed.len(), 1, "{history:#?}");
}

#[tokio::test]
async fn taskstop_stops_a_background_agent_and_bad_input_is_a_clear_error() {
    let (root, project) = new_project(false);
    // A reply that would take ten minutes: only TaskStop ends it.
    let slow = recording(
        json!({"turns": [{"delay_ms": 600_000, "content": [{"type": "text", "text": "late"}]}]}),
        &project,
    );
    // A sub-agent that keeps calling tools: over its turn limit of 2.
    let looping = recording(
        json!({"turns": [
            {"content": [{"type": "tool_use", "name": "Read", "input": {"file_path": "${PROJECT_DIR}/README.md"}}]},
            {"content": [{"type": "tool_use", "name": "Read", "input": {"file_path": "${PROJECT_DIR}/README.md"}}]},
            text("never reached")
        ]}),
        &project,
    );
    let f = fixture(
        (root, project),
        [
            ("wait forever".to_owned(), Arc::clone(&slow)),
            ("loop".to_owned(), Arc::clone(&looping)),
        ]
        .into(),
        2,
    );
    let parent_script = recording(
        json!({"turns": [
            {"content": [tool("bg", "Agent", json!({"description": "wait forever", "prompt": "wait", "run_in_background": true}))]},
            {"content": [tool("s1", "TaskStop", json!({"task_id": "agent_1"}))]},
            {"content": [
                tool("m1", "SendMessage", json!({"to": "agent_1", "message": "are you there?"})),
                tool("nb", "Agent", json!({"description": "no script", "prompt": "x", "run_in_background": true})),
                tool("lp", "Agent", json!({"description": "loop", "prompt": "read forever"})),
                tool("wt", "Agent", json!({"description": "isolated", "prompt": "x", "isolation": "worktree"}))
            ]},
            text("Carrying on.")
        ]}),
        &f.project,
    );
    let mut parent = parent_agent(&f, Arc::clone(&parent_script));
    let out = run(&mut parent, "go").await;
    assert_eq!(out.status, SessionStatus::Completed, "{out:?}");
    let events = f.sink.events();

    let (status, t) = completed(&events, "s1");
    assert_eq!(status, ToolCallStatus::Ok, "{t}");
    assert!(
        t.contains("Task agent_1 stopped because TaskStop asked"),
        "{t}"
    );
    assert_eq!(task_completions(&events, "agent_1"), [TaskStatus::Stopped]);
    let (status, t) = completed(&events, "m1");
    assert_eq!(status, ToolCallStatus::Error);
    assert!(t.contains("agent task agent_1 was stopped"), "{t}");
    // A provider that cannot be had: nothing starts, the cause is named.
    let (status, t) = completed(&events, "nb");
    assert_eq!(status, ToolCallStatus::Error);
    assert!(
        t.contains(
            "background sub-agent 'general-purpose' (no script) was not started: no replay script"
        ),
        "{t}"
    );
    // Over the turn limit: an error result naming the limit.
    let (status, t) = completed(&events, "lp");
    assert_eq!(status, ToolCallStatus::Error);
    assert!(
        t.contains("sub-agent 'general-purpose' (loop) failed after 2 model requests"),
        "{t}"
    );
    assert!(t.contains("limit of 2 model requests"), "{t}");
    // Worktree isolation outside a git repository.
    let (status, t) = completed(&events, "wt");
    assert_eq!(status, ToolCallStatus::Error);
    assert!(t.contains("its worktree could not be made"), "{t}");
    assert!(t.contains("is not inside a git repository"), "{t}");
}

#[tokio::test]
async fn an_isolated_agent_works_in_its_own_worktree_under_the_projects_rules() {
    if gatehouse_test_support::require_tool("git", "Debian package git").is_none() {
        return;
    }
    let (root, project) = new_project(true);
    // `${PROJECT_DIR}` is the agent's worktree here.
    let writer = json!({"turns": [
        {"content": [{"type": "tool_use", "name": "Read", "input": {"file_path": "${PROJECT_DIR}/README.md"}}]},
        {"content": [{"type": "tool_use", "name": "Write", "input": {"file_path": "${PROJECT_DIR}/README.md", "content": "changed\n"}}]},
        {"content": [{"type": "tool_use", "name": "Read", "input": {"file_path": "${PROJECT_DIR}/secret/key"}}]},
        text("Changed the readme.")
    ]});
    let idle = json!({"turns": [text("Nothing to do.")]});
    let f = fixture_in_cwd(
        (root, project.clone()),
        HashMap::new(),
        [
            ("change it".to_owned(), writer),
            ("look only".to_owned(), idle),
        ]
        .into(),
        50,
    );
    let parent_script = recording(
        json!({"turns": [
            {"content": [tool("w1", "Agent", json!({"description": "change it", "prompt": "edit the readme", "isolation": "worktree"}))]},
            {"content": [tool("w2", "Agent", json!({"description": "look only", "prompt": "look", "isolation": "worktree"}))]},
            text("Done.")
        ]}),
        &f.project,
    );
    let mut parent = parent_agent(&f, parent_script);
    assert_eq!(
        run(&mut parent, "go").await.status,
        SessionStatus::Completed
    );
    let events = f.sink.events();
    let (status, t) = completed(&events, "w1");
    assert_eq!(status, ToolCallStatus::Ok, "{t}");
    assert!(t.contains("Changed the readme."), "{t}");
    assert!(t.contains("was kept: it has the agent's changes"), "{t}");
    // The project's rules applied in the worktree, anchored at the
    // project root: `Edit(/README.md)` allowed the write there (a headless
    // parent denies every ask), `Read(/secret/**)` denied the read.
    assert!(t.contains("Calls the sub-agent was refused:"), "{t}");
    assert!(t.contains("- Read: "), "{t}");
    assert!(t.contains("Read(/secret/**)"), "{t}");
    assert!(!t.contains("- Write: "), "{t}");
    // The project is untouched; the worktree has the change, on its branch.
    assert_eq!(
        std::fs::read_to_string(project.join("README.md")).unwrap(),
        "hello from the readme\n"
    );
    let kept = worktree_named(&t, "Its worktree ");
    assert!(!kept.starts_with(&project), "{}", kept.display());
    assert_eq!(
        std::fs::read_to_string(kept.join("README.md")).unwrap(),
        "changed\n"
    );
    let (status, t) = completed(&events, "w2");
    assert_eq!(status, ToolCallStatus::Ok, "{t}");
    assert!(t.contains("had no changes and was removed"), "{t}");
}

/// A background agent's worktree outlives its call (a message may start it
/// again there) and goes when the task is over, if the agent left it
/// unchanged: here when the session's tasks shut down.
#[tokio::test]
async fn an_unchanged_background_worktree_is_removed_when_the_task_is_over() {
    if gatehouse_test_support::require_tool("git", "Debian package git").is_none() {
        return;
    }
    let (root, project) = new_project(true);
    let idle = json!({"turns": [text("Nothing to change.")]});
    let f = fixture_in_cwd(
        (root, project.clone()),
        HashMap::new(),
        [("look only".to_owned(), idle)].into(),
        50,
    );
    let parent_script = recording(
        json!({"turns": [
            {"content": [tool("bw", "Agent", json!({"description": "look only", "prompt": "look", "isolation": "worktree", "run_in_background": true}))]},
            text("Started.")
        ]}),
        &f.project,
    );
    let mut parent = parent_agent(&f, parent_script);
    assert_eq!(
        run(&mut parent, "go").await.status,
        SessionStatus::Completed
    );
    let events = f.sink.events();
    let (status, t) = completed(&events, "bw");
    assert_eq!(status, ToolCallStatus::Ok, "{t}");
    assert!(t.contains("It works in the worktree "), "{t}");
    let path = worktree_named(&t, "It works in the worktree ");
    f.sink
        .wait_for(|ev| !task_completions(ev, "agent_1").is_empty())
        .await;
    // It answered and waits for a message: the worktree stays.
    assert!(path.is_dir(), "{}", path.display());
    f.tasks.shutdown().await;
    assert!(!path.exists(), "{} is still there", path.display());
    let log = std::fs::read_to_string(f.tasks.info("agent_1").unwrap().output_path).unwrap();
    assert!(log.contains("[worktree] Its worktree "), "{log}");
    assert!(log.contains("had no changes and was removed"), "{log}");
}
