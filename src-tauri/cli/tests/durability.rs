//! SPEC §11 / issue 16 item 6: SIGKILL at random points of a 500-call Bash
//! session (random event counts read from its JSON-lines stdout, from a
//! seeded generator, not timers), 20 times. After each: the database passes
//! its integrity check, every printed line is stored, every call that ran
//! (its command's side effect exists) has its `permission_decided` stored,
//! and at most the one call in flight lacks its `tool_completed`.
//!
//! The figures (events lost per kill, the run time of the whole session)
//! are printed; run with `--nocapture` to see them.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use gatehouse_store::Store;
use serde_json::{Value, json};

const CALLS: usize = 500;
const PER_TURN: usize = 10;
const KILLS: usize = 20;

/// xorshift64*: a fixed seed gives the same kill points on every run.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n
    }
}

/// 50 turns of 10 Bash calls; call `c-N` appends `N` to `ran.log` (the
/// proof that it ran), then the model stops.
fn script(dir: &Path) -> std::path::PathBuf {
    let mut turns: Vec<Value> = (0..CALLS / PER_TURN)
        .map(|t| {
            let calls: Vec<Value> = (0..PER_TURN)
                .map(|i| {
                    let n = t * PER_TURN + i;
                    json!({"type": "tool_use", "id": format!("c-{n}"), "name": "Bash",
                           "input": {"command": format!("echo {n} >> ran.log")}})
                })
                .collect();
            json!({ "content": calls })
        })
        .collect();
    turns.push(json!({"content": [{"type": "text", "text": "All done."}]}));
    let path = dir.join("calls.json");
    std::fs::write(&path, json!({ "turns": turns }).to_string()).unwrap();
    path
}

fn start(data: &Path, project: &Path, script: &Path) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_gatehouse-cli"))
        .env("GATEHOUSE_DATA_DIR", data)
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .args(["run", "--provider", "replay", "--mode", "bypassPermissions"])
        .arg("--project")
        .arg(project)
        .arg("--script")
        .arg(script)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// What one killed session left behind.
#[derive(Debug, Default)]
struct Census {
    ran: usize,
    ran_without_decision: usize,
    ran_without_completion: usize,
    started_undecided: usize,
}

fn census(data: &Path, project: &Path, printed: &[Value]) -> Census {
    let store = Store::open(data).unwrap();
    let problems = store.integrity_problems().unwrap();
    assert!(problems.is_empty(), "integrity check: {problems:?}");
    let sessions = store.list_sessions(None).unwrap();
    assert_eq!(sessions.len(), 1);
    let (events, skipped) = store.session_events(&sessions[0].id).unwrap();
    assert_eq!(skipped, 0);
    let stored: Vec<Value> = events
        .iter()
        .map(|e| serde_json::to_value(e).unwrap())
        .collect();
    assert!(stored.len() >= printed.len());
    assert_eq!(
        &stored[..printed.len()],
        printed,
        "a printed line was not stored"
    );

    let mut kinds: HashMap<String, HashSet<String>> = HashMap::new();
    for e in &stored {
        if let Some(id) = e["tool_use_id"].as_str() {
            kinds
                .entry(id.to_owned())
                .or_default()
                .insert(e["type"].as_str().unwrap().to_owned());
        }
    }
    let has = |id: &str, kind: &str| kinds.get(id).is_some_and(|k| k.contains(kind));
    let log = std::fs::read_to_string(project.join("ran.log")).unwrap_or_default();
    let mut c = Census::default();
    // A line cut by the kill still proves the call ran.
    for n in log.split_whitespace() {
        let id = format!("c-{n}");
        c.ran += 1;
        if !has(&id, "permission_decided") {
            c.ran_without_decision += 1;
        }
        if !has(&id, "tool_completed") {
            c.ran_without_completion += 1;
        }
    }
    c.started_undecided = kinds
        .iter()
        .filter(|(_, k)| k.contains("tool_started") && !k.contains("permission_decided"))
        .count();
    c
}

#[test]
fn sigkill_at_random_points_of_a_500_call_session_never_loses_a_decision() {
    let scratch = tempfile::tempdir().unwrap();
    let script = script(scratch.path());

    // The whole session once: its length in events, and its run time.
    let data = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let mut child = start(data.path(), project.path(), &script);
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    assert!(child.wait().unwrap().success());
    let elapsed = started.elapsed();
    let total = out.lines().count();
    let full = census(data.path(), project.path(), &[]);
    assert_eq!(full.ran, CALLS);
    assert_eq!(full.ran_without_completion, 0);
    eprintln!(
        "durability: a {CALLS}-call session: {total} events in {:.2} s ({:.0} events/s)",
        elapsed.as_secs_f64(),
        total as f64 / elapsed.as_secs_f64()
    );

    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut lost = Vec::new();
    for run in 0..KILLS {
        let data = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        let kill_at = 1 + rng.below(total as u64 - 1) as usize;
        let mut child = start(data.path(), project.path(), &script);
        let mut reader = BufReader::new(child.stdout.take().unwrap());
        let mut printed = Vec::new();
        while printed.len() < kill_at {
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap() == 0 {
                break; // a shorter run than the first (fewer progress events)
            }
            printed.push(serde_json::from_str::<Value>(&line).unwrap());
        }
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        // Lines printed before the kill that the test had not read yet.
        let mut rest = String::new();
        let _ = reader.read_to_string(&mut rest);
        printed.extend(
            rest.lines()
                .filter_map(|l| serde_json::from_str::<Value>(l).ok()),
        );

        let c = census(data.path(), project.path(), &printed);
        eprintln!(
            "durability: kill {run:2} after {kill_at:4} events: {} calls ran, {} without \
             tool_completed, {} without permission_decided; {} started but not yet decided",
            c.ran, c.ran_without_completion, c.ran_without_decision, c.started_undecided
        );
        assert_eq!(
            c.ran_without_decision, 0,
            "a call ran without its decision stored: {c:?}"
        );
        // Calls run one after another, and the next one starts only after
        // the decision (and so everything before it) is committed.
        assert!(c.ran_without_completion <= 1, "{c:?}");
        lost.push(c.ran_without_completion);
    }
    eprintln!(
        "durability: tool_completed missing for calls that ran, per kill: {lost:?} (total {})",
        lost.iter().sum::<usize>()
    );
}
