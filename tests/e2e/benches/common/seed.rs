//! What the window benchmarks share: stored sessions of a given number of
//! tool calls, seeded through the store as the session host writes them,
//! and small helpers for their figures. Included by `open_session` and
//! `app_footprint` (`#[path]`; benches cannot share a module otherwise).

#![allow(dead_code, clippy::expect_used)]

use std::path::Path;

use anyhow::Context;
use gatehouse_e2e::App;
use gatehouse_protocol::event::Event;
use gatehouse_store::{EventRecord, NewSession, Store};
use serde_json::Value;

/// The captured session the seeded ones are made of.
const DEMO: &str = include_str!("../../../../ui/src/session/fixtures/demo.jsonl");
/// The project folder the capture ran in, replaced by the bench's own.
const CAPTURED_PROJECT: &str = "/tmp/uikit-proj";

/// One turn of the capture: its events, `model_request_started` to
/// `turn_completed`, and how many tool calls it makes.
struct TurnTemplate {
    events: Vec<Value>,
    calls: usize,
    /// The capture's turn number.
    turn: u64,
}

fn demo_events() -> Vec<Value> {
    DEMO.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("demo.jsonl is JSON lines"))
        .collect()
}

/// The capture's turns, split at `model_request_started`.
fn turns(events: &[Value]) -> Vec<TurnTemplate> {
    let mut turns: Vec<TurnTemplate> = Vec::new();
    for e in events {
        let kind = e["type"].as_str().unwrap_or_default();
        if kind == "model_request_started" {
            turns.push(TurnTemplate {
                events: Vec::new(),
                calls: 0,
                turn: e["turn"].as_u64().unwrap_or_default(),
            });
        }
        let Some(current) = turns.last_mut() else {
            continue;
        };
        if kind == "session_completed" {
            continue;
        }
        if kind == "tool_queued" {
            current.calls += 1;
        }
        current.events.push(e.clone());
    }
    turns
}

/// Replaces every string equal to a key of `ids` (tool_use ids, message ids)
/// and every `turn` number in `value`.
fn rewrite(value: &mut Value, ids: &[(String, String)], turn: u64, project: &str) {
    match value {
        Value::String(s) => {
            if let Some((_, new)) = ids.iter().find(|(old, _)| old == s) {
                *s = new.clone();
            } else if s.contains(CAPTURED_PROJECT) {
                *s = s.replace(CAPTURED_PROJECT, project);
            }
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|v| rewrite(v, ids, turn, project)),
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                if key == "turn" && v.is_u64() {
                    *v = Value::from(turn);
                } else {
                    rewrite(v, ids, turn, project);
                }
            }
        }
        _ => {}
    }
}

/// The events of a session of exactly `calls` tool calls, and the id of its
/// last call. Turns cycle Glob+Read, Edit, Bash, Grep+Read (6 calls), so a
/// size of 6k+4 ends on the Bash call, shown as a row of its own.
pub fn session_events(session_id: &str, project: &str, calls: usize) -> (Vec<Event>, String) {
    let demo = demo_events();
    let templates = turns(&demo);
    let tool_turns: Vec<&TurnTemplate> = [1, 3, 4, 2]
        .iter()
        .map(|n| {
            templates
                .iter()
                .find(|t| t.turn == *n)
                .expect("the demo has 4 tool turns")
        })
        .collect();
    let final_turn = templates.last().expect("the demo ends with a reply");
    let mut out: Vec<Value> = Vec::new();
    let head = demo
        .iter()
        .take_while(|e| e["type"] != "model_request_started");
    for e in head {
        let mut e = e.clone();
        if e["type"] == "session_started" {
            e["provider"] = "anthropic".into();
            e["model"] = "claude-sonnet-4-5".into();
        }
        rewrite(&mut e, &[], 0, project);
        out.push(e);
    }
    let mut made = 0;
    let mut turn = 0u64;
    let mut last_call = String::new();
    while made < calls {
        let template = tool_turns[(turn as usize) % tool_turns.len()];
        turn += 1;
        let ids: Vec<(String, String)> = template
            .events
            .iter()
            .filter_map(|e| e["tool_use_id"].as_str().map(str::to_owned))
            .chain(
                template
                    .events
                    .iter()
                    .filter_map(|e| e["message_id"].as_str().map(str::to_owned)),
            )
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .map(|old| {
                let new = format!("{old}_t{turn}");
                (old, new)
            })
            .collect();
        for e in &template.events {
            let mut e = e.clone();
            rewrite(&mut e, &ids, turn, project);
            if e["type"] == "tool_queued" {
                made += 1;
                last_call = e["tool_use_id"].as_str().unwrap_or_default().to_owned();
            }
            out.push(e);
        }
    }
    assert_eq!(
        made, calls,
        "the turn cycle cannot make exactly {calls} calls"
    );
    turn += 1;
    for e in &final_turn.events {
        let mut e = e.clone();
        rewrite(&mut e, &[], turn, project);
        out.push(e);
    }
    out.push(
        serde_json::json!({"type": "session_completed", "status": "completed", "turns": turn}),
    );
    let start_ms = 1_760_000_000_000u64;
    let events = out
        .into_iter()
        .enumerate()
        .map(|(i, mut e)| {
            e["session_id"] = session_id.into();
            e["ts_ms"] = Value::from(start_ms + i as u64 * 25);
            serde_json::from_value(e).expect("a rewritten demo event is still an event")
        })
        .collect();
    (events, last_call)
}

/// A stored session in `data`: its id and its last call's id.
pub fn seed(data: &Path, project: &Path, calls: usize) -> anyhow::Result<(String, String)> {
    let mut store = Store::open(data)?;
    let id = format!("ses_bench_{calls:05}");
    let project_text = project.display().to_string();
    store.create_session(&NewSession {
        id: id.clone(),
        project_path: project_text.clone(),
        provider: "anthropic".into(),
        model: "claude-sonnet-4-5".into(),
        mode: "default".into(),
    })?;
    let (events, last) = session_events(&id, &project_text, calls);
    let records: Vec<EventRecord> = events
        .into_iter()
        .map(|event| EventRecord { event, raw: None })
        .collect();
    for chunk in records.chunks(5_000) {
        store.append_batch(&id, chunk, None)?;
    }
    Ok((id, last))
}

pub fn copy_dir(from: &Path, to: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target)
                .with_context(|| format!("copying {}", entry.path().display()))?;
        }
    }
    Ok(())
}

/// The load averages, to judge the figures by (a shared machine).
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

/// The median of `values` (sorted in place).
pub fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}

/// Launches the app on a copy of the `seeded` data directory made in `run`,
/// ready to resume a stored session offline.
pub async fn launch_on_copy(
    app: &Path,
    driver: &Path,
    seeded: &Path,
    run: &Path,
    home: &Path,
) -> anyhow::Result<App> {
    copy_dir(seeded, run)?;
    let home_text = home.display().to_string();
    App::launch(
        app,
        driver,
        run,
        &[
            // Resuming an Anthropic session builds its provider (no request
            // is sent: no prompt is typed); a dead local URL keeps it offline.
            ("ANTHROPIC_API_KEY", "bench-key-never-sent"),
            ("ANTHROPIC_BASE_URL", "http://127.0.0.1:9"),
            // No user-level MCP servers or settings of whoever runs it.
            ("HOME", &home_text),
        ],
    )
    .await
}
