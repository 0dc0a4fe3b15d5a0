//! Replay of 100,000 stored calls (issue #10: target under 5 s): read from
//! a real SQLite store with `for_each_stored_call` and re-decided with an
//! edited rule set, exactly as `gatehouse-cli rules replay` does (one
//! reading thread, deciding threads as many as the cores, at most 8), and
//! with one deciding thread; also the store scan alone, to show where the
//! time goes.
//!
//! The store is filled once per run (1,000 sessions of 100 calls: Bash
//! commands allowed by a rule, read-only pipelines with paths, writes that
//! ask, Read, Edit, WebFetch and an MCP tool), outside the measurement.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::collections::HashMap;
use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use gatehouse_permissions::replay::{ReplayCall, ReplayRules, replay_calls};
use gatehouse_protocol::event::{Event, EventBody};
use gatehouse_protocol::permission::{DecisionReason, PermissionBehavior};
use gatehouse_store::{CallFilter, NewSession, Store, StoredCall};
use serde_json::{Value, json};

const SESSIONS: usize = 1_000;
const CALLS_PER_SESSION: usize = 100;

/// Call `c` of session `s`: half are the same in every session (`npm
/// test`, `git status`, reading main.rs, one MCP tool), half unique (paths,
/// URLs and commands naming the session and call), so remembered decisions
/// help only as much as they would over real history.
fn call_input(project: &Path, s: usize, c: usize) -> (&'static str, Value) {
    let p = project.display();
    match c % 8 {
        0 => ("Bash", json!({"command": "npm test -- --watch=false"})),
        1 => ("Bash", json!({"command": "git status && git diff --stat"})),
        2 => (
            "Bash",
            json!({"command": format!("cat src/main.rs | grep fn{s}_{c} && ls src")}),
        ),
        3 => (
            "Bash",
            json!({"command": format!("mkdir -p build/out{s}_{c}")}),
        ),
        4 => ("Read", json!({"file_path": format!("{p}/src/main.rs")})),
        5 => (
            "Edit",
            json!({"file_path": format!("{p}/src/lib{s}_{c}.rs"), "old_string": "a", "new_string": "b"}),
        ),
        6 => (
            "WebFetch",
            json!({"url": format!("https://docs.rs/crate{s}_{c}"), "prompt": "x"}),
        ),
        _ => ("mcp__github__list_issues", json!({"repo": "a/b"})),
    }
}

/// A store with SESSIONS × CALLS_PER_SESSION decided calls.
fn fill_store(data: &Path, project: &Path) -> Store {
    let mut store = Store::open(data).unwrap();
    let reason = DecisionReason::Default {
        message: "bench".into(),
    };
    for s in 0..SESSIONS {
        let id = format!("s{s:05}");
        store
            .create_session(&NewSession {
                id: id.clone(),
                project_path: project.display().to_string(),
                provider: "replay".into(),
                model: "m".into(),
                mode: "default".into(),
            })
            .unwrap();
        for c in 0..CALLS_PER_SESSION {
            let (tool, input) = call_input(project, s, c);
            let tool_use_id = format!("t{c}");
            for body in [
                EventBody::ToolQueued {
                    tool_use_id: tool_use_id.clone(),
                    name: tool.into(),
                    input,
                    read_only: false,
                },
                EventBody::PermissionDecided {
                    tool_use_id,
                    decision: if c % 8 < 3 || c % 8 == 4 {
                        PermissionBehavior::Allow
                    } else {
                        PermissionBehavior::Ask
                    },
                    reason: reason.clone(),
                    trace: Vec::new(),
                },
            ] {
                store
                    .append_event(&Event {
                        session_id: id.clone(),
                        ts_ms: 1_700_000_000_000,
                        body,
                    })
                    .unwrap();
            }
        }
    }
    store
}

fn rules(project: &Path, home: &Path) -> ReplayRules {
    // The edited project settings: a few rules of each kind, one new deny.
    let edited = json!({"permissions": {
        "allow": ["Bash(npm test:*)", "Bash(git diff:*)", "WebFetch(domain:docs.rs)",
                  "mcp__github", "Edit(src/**)"],
        "ask": ["Bash(git push:*)"],
        "deny": ["Bash(mkdir:*)", "Read(.env)", "Bash(rm -rf:*)"]
    }});
    ReplayRules {
        home_dir: home.to_path_buf(),
        edits: HashMap::from([(project.join(".claude/settings.json"), edited.to_string())]),
        trusted_projects: vec![project.to_path_buf()],
        ..ReplayRules::default()
    }
}

fn view(call: &StoredCall) -> ReplayCall<'_> {
    ReplayCall {
        project_dir: Path::new(&call.project_path),
        mode: call.mode,
        tool_name: &call.tool_name,
        input: &call.input,
        session_rules: &call.session_rules,
        original: call.decision,
    }
}

/// What `gatehouse-cli rules replay` does: read on this thread, decide on
/// `threads` others.
fn replay_all(store: &Store, rules: &ReplayRules, threads: usize) -> u64 {
    let report = replay_calls(rules, 1000, threads, view, |push| {
        store
            .for_each_stored_call(&CallFilter::default(), push)
            .map(|_| ())
    })
    .unwrap();
    assert!(report.settings_errors.is_empty());
    report.total
}

fn replay(c: &mut Criterion) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let (data, project, home) = (root.join("data"), root.join("project"), root.join("home"));
    std::fs::create_dir_all(project.join("src")).unwrap();
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(project.join("src/main.rs"), "fn main() {}").unwrap();
    let started = std::time::Instant::now();
    let store = fill_store(&data, &project);
    eprintln!(
        "replay bench: stored {} calls in {:.1} s",
        SESSIONS * CALLS_PER_SESSION,
        started.elapsed().as_secs_f64()
    );
    let rules = rules(&project, &home);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
    assert_eq!(
        replay_all(&store, &rules, threads),
        (SESSIONS * CALLS_PER_SESSION) as u64
    );

    let mut group = c.benchmark_group("replay_100k");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(40));
    group.bench_function("store_scan_only", |b| {
        b.iter(|| {
            let mut n = 0u64;
            store
                .for_each_stored_call(&CallFilter::default(), |call| {
                    n += black_box(call.input.is_object()) as u64;
                })
                .unwrap();
            n
        });
    });
    group.bench_function("scan_and_redecide_1_thread", |b| {
        b.iter(|| black_box(replay_all(&store, &rules, 1)));
    });
    group.bench_function(format!("scan_and_redecide_{threads}_threads"), |b| {
        b.iter(|| black_box(replay_all(&store, &rules, threads)));
    });
    group.finish();

    // Wall time depends on what else the machine runs; CPU time (user +
    // system, all threads) is what the replay itself costs.
    for threads in [1, threads] {
        let mut runs: Vec<(f64, f64)> = (0..5)
            .map(|_| {
                let (cpu, wall) = (cpu_seconds(), std::time::Instant::now());
                black_box(replay_all(&store, &rules, threads));
                (wall.elapsed().as_secs_f64(), cpu_seconds() - cpu)
            })
            .collect();
        runs.sort_by(|a, b| a.0.total_cmp(&b.0));
        let (wall, cpu) = runs[2];
        eprintln!(
            "replay bench: {threads} deciding thread(s), median of 5 runs: {wall:.2} s wall, \
             {cpu:.2} s CPU"
        );
    }
}

/// User + system CPU seconds of this process so far (Linux `/proc`, in
/// USER_HZ = 100 ticks per second; 0 elsewhere).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the `(comm)`: utime and stime are the 12th and 13th.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) / 100.0
}

criterion_group!(benches, replay);
criterion_main!(benches);
