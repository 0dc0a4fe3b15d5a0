//! Issue 19's start-up figure: the time from the parent's `Agent`
//! tool_use (its `tool_queued` event, emitted as the call is parsed from
//! the model's reply) to the sub-agent's first model request (its
//! `model_request_started`), with the replay provider.
//!
//! Run: `cargo bench -p gatehouse-agent --bench subagent_start` (prints the
//! median, p10 and p90 of `RUNS` runs; there is no goal in the issue, so it
//! only reports). What lies between the two events is everything a real
//! session does to start a sub-agent: the pipeline's input validation and
//! permission decision for `Agent(Explore)` (the engine from `load_engine`
//! over settings files on disk), the executor, the Agent tool resolving the
//! definition, building the sub-agent's restricted pool and runtime, and
//! its loop assembling the first request. Each run is a fresh session
//! (engine, pool, runtime) built before the clock starts; events go to an
//! in-memory sink that stamps each one with `Instant::now()`.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

#[path = "../tests/support/parent.rs"]
mod parent;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use gatehouse_agent::provider::Provider;
use gatehouse_agent::provider::replay::{ReplayProvider, Script};
use gatehouse_agent::subagent::{DEFAULT_SUBAGENT_MAX_TURNS, SubagentProviders, SubagentSpawn};
use gatehouse_agent::{Agent, AgentConfig};
use gatehouse_core::ToolUseContext;
use gatehouse_core::events::EventSink;
use gatehouse_protocol::event::{Event, EventBody, SessionStatus};
use parent::{ParentSetup, parent_session};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

const RUNS: usize = 201;
const PARENT: &str = "s-bench";

/// Every event with the instant it arrived.
#[derive(Default)]
struct StampSink(Mutex<Vec<(Instant, Event)>>);

impl EventSink for StampSink {
    fn emit(&self, event: Event) {
        let now = Instant::now();
        self.0.lock().unwrap().push((now, event));
    }
}

/// The sub-agent's replay turns.
struct OneScript(Value);

impl SubagentProviders for OneScript {
    fn provider(&self, _spawn: &SubagentSpawn) -> Result<Arc<dyn Provider>, String> {
        Ok(Arc::new(ReplayProvider::new(
            Script::parse(&self.0.to_string()).map_err(|e| e.to_string())?,
        )))
    }
}

fn config() -> AgentConfig {
    let mut c = AgentConfig::new("parent-model");
    c.idle_timeout = Duration::from_secs(60);
    c
}

/// One session: a parent that starts one Explore agent, which answers at
/// once. Returns the time between the two events.
async fn one_run() -> Duration {
    let root = tempfile::tempdir().unwrap();
    let project = root.path().canonicalize().unwrap();
    std::fs::write(project.join("README.md"), "hello\n").unwrap();
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    std::fs::write(
        project.join(".claude/settings.json"),
        json!({"permissions": {"allow": ["Agent(Explore)"], "deny": ["Bash(rm:*)"]}}).to_string(),
    )
    .unwrap();
    let session_dir = tempfile::tempdir().unwrap();
    let sink = Arc::new(StampSink::default());
    let sub_script = json!({"turns": [{"content": [{"type": "text", "text": "Found it."}]}]});
    let parent = parent_session(ParentSetup {
        session_id: PARENT,
        project: &project,
        session_dir: session_dir.path(),
        sink: sink.clone(),
        extra_tools: Vec::new(),
        providers: Arc::new(OneScript(sub_script)),
        config: config(),
        max_turns: DEFAULT_SUBAGENT_MAX_TURNS,
        worktrees: None,
    });
    let parent_script = json!({"turns": [
        {"content": [{"type": "tool_use", "id": "toolu_a", "name": "Agent", "input": {
            "description": "find the greeting", "prompt": "find the greeting",
            "subagent_type": "Explore"}}]},
        {"content": [{"type": "text", "text": "Done."}]}
    ]});
    let provider = Arc::new(ReplayProvider::new(
        Script::parse(&parent_script.to_string()).unwrap(),
    ));
    let mut agent = Agent::new(
        provider,
        Arc::clone(&parent.runtime),
        config(),
        ToolUseContext {
            session_id: PARENT.into(),
            cwd: project.clone(),
            ..ToolUseContext::default()
        },
    );
    let out = agent.run_prompt("survey", &CancellationToken::new()).await;
    assert_eq!(out.status, SessionStatus::Completed, "{out:?}");
    parent.tasks.shutdown().await;

    let events = sink.0.lock().unwrap();
    let queued = events
        .iter()
        .find_map(|(t, e)| match &e.body {
            EventBody::ToolQueued { name, .. } if e.session_id == PARENT && name == "Agent" => {
                Some(*t)
            }
            _ => None,
        })
        .expect("the parent queued its Agent call");
    let first_request = events
        .iter()
        .find_map(|(t, e)| match &e.body {
            EventBody::ModelRequestStarted { .. } if e.session_id != PARENT => Some(*t),
            _ => None,
        })
        .expect("the sub-agent sent a model request");
    first_request - queued
}

fn percentile(sorted: &[Duration], p: usize) -> Duration {
    sorted[(sorted.len() - 1) * p / 100]
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    // Warm-up: first-touch costs (page faults, lazily built regexes).
    for _ in 0..5 {
        rt.block_on(one_run());
    }
    let mut times: Vec<Duration> = (0..RUNS).map(|_| rt.block_on(one_run())).collect();
    times.sort();
    let micros = |d: Duration| d.as_secs_f64() * 1e6;
    println!(
        "subagent_start: Agent tool_use → sub-agent's first model request, {RUNS} runs: \
         median {:.1} µs (p10 {:.1} µs, p90 {:.1} µs)",
        micros(percentile(&times, 50)),
        micros(percentile(&times, 10)),
        micros(percentile(&times, 90)),
    );
}
