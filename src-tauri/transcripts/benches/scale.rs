//! Scale benchmark: the session list and full-text search over 1,000,000
//! stored events, against a 10,000-event baseline.
//!
//! `cargo bench -p gatehouse-transcripts --bench scale` builds (once, then
//! reuses) two databases in `target/bench-data/`: 10 sessions × 1,000
//! events and 1,000 sessions × 1,000 events, with a realistic mix (prompts,
//! assistant text, tool calls with inputs, decisions, results, usage) over
//! a 20,000-word vocabulary. It prints the median of 7 runs of each
//! operation on both, and the ratio (list, search, and the session
//! browser's facets and per-session stats). `GATEHOUSE_BENCH_SCALE_EVENTS`
//! overrides the big size.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::{Path, PathBuf};
use std::time::Instant;

use gatehouse_protocol::event::{ContentBlock, Event, EventBody};
use gatehouse_protocol::permission::{DecisionReason, PermissionBehavior, PermissionMode};
use gatehouse_protocol::session::{ListSessionsArgs, SearchSessionsArgs, SessionSort};
use gatehouse_store::{EventRecord, NewSession, Store};
use serde_json::json;

const EVENTS_PER_SESSION: usize = 1_000;
const RUNS: usize = 7;

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"),
        PathBuf::from,
    )
}

/// A small deterministic generator (xorshift), so databases are alike.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// A word: Zipf-like (low ranks far more frequent), so some words are
    /// common and most are rare, as in real text.
    fn word(&mut self) -> String {
        let r = self.next() % 20_000;
        let rank = (r * r) / 20_000;
        format!("w{rank}")
    }
    fn text(&mut self, words: usize) -> String {
        (0..words)
            .map(|_| self.word())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

fn session_events(id: &str, rng: &mut Rng, t0: u64) -> Vec<EventRecord> {
    let mut out = Vec::with_capacity(EVENTS_PER_SESSION);
    let mut n = 0u64;
    let mut push = |out: &mut Vec<EventRecord>, body| {
        n += 1;
        out.push(EventRecord {
            event: Event {
                session_id: id.into(),
                ts_ms: t0 + n * 500,
                body,
            },
            raw: None,
        });
    };
    push(
        &mut out,
        EventBody::UserPrompt {
            text: format!("please {}", rng.text(12)),
        },
    );
    let mut call = 0;
    while out.len() + 6 <= EVENTS_PER_SESSION {
        call += 1;
        let tool_use_id = format!("toolu_{call}");
        push(
            &mut out,
            EventBody::AssistantMessage {
                turn: call,
                message_id: None,
                content: vec![json!({"type": "text", "text": rng.text(30)})],
                stop_reason: "tool_use".into(),
            },
        );
        push(
            &mut out,
            EventBody::ToolQueued {
                tool_use_id: tool_use_id.clone(),
                name: ["Read", "Grep", "Bash", "Edit"][call as usize % 4].into(),
                input: json!({"command": rng.text(6), "file_path": format!("/src/{}.rs", rng.word())}),
                read_only: false,
            },
        );
        let decision = match rng.next() % 50 {
            0 => PermissionBehavior::Deny,
            1 => PermissionBehavior::Ask,
            _ => PermissionBehavior::Allow,
        };
        push(
            &mut out,
            EventBody::PermissionDecided {
                tool_use_id: tool_use_id.clone(),
                decision,
                reason: DecisionReason::Mode {
                    mode: PermissionMode::Default,
                },
                trace: vec![],
            },
        );
        push(
            &mut out,
            EventBody::ToolCompleted {
                tool_use_id,
                status: if rng.next().is_multiple_of(40) {
                    gatehouse_protocol::event::ToolCallStatus::Error
                } else {
                    gatehouse_protocol::event::ToolCallStatus::Ok
                },
                is_error: rng.next().is_multiple_of(40),
                content: vec![ContentBlock::Text { text: rng.text(60) }],
                duration_ms: 12,
                persisted_path: None,
            },
        );
        push(
            &mut out,
            EventBody::Usage {
                turn: call,
                input_tokens: 1000,
                output_tokens: 200,
                cache_creation_input_tokens: 0,
                cache_read_input_tokens: 500,
            },
        );
    }
    out
}

/// Opens (building once) a database of `total` events.
fn database(total: usize) -> (PathBuf, f64) {
    let dir = target_dir()
        .join("bench-data")
        .join(format!("scale-{total}"));
    let marker = dir.join("complete");
    if marker.exists() {
        return (dir, 0.0);
    }
    let _ = std::fs::remove_dir_all(&dir);
    let start = Instant::now();
    let mut store = Store::open(&dir).unwrap();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let sessions = total / EVENTS_PER_SESSION;
    for s in 0..sessions {
        let id = format!("bench-{s:06}");
        store
            .create_session(&NewSession {
                id: id.clone(),
                project_path: format!("/projects/p{}", s % 20),
                provider: "replay".into(),
                model: ["opus", "sonnet", "haiku"][s % 3].into(),
                mode: "default".into(),
            })
            .unwrap();
        let events = session_events(&id, &mut rng, 1_700_000_000_000 + s as u64 * 3_600_000);
        store.append_batch(&id, &events, None).unwrap();
    }
    drop(store);
    std::fs::write(&marker, b"").unwrap();
    (dir, start.elapsed().as_secs_f64())
}

fn median_ms(mut f: impl FnMut() -> usize) -> (f64, usize) {
    let mut times = Vec::new();
    let mut n = 0;
    for _ in 0..RUNS {
        let start = Instant::now();
        n = f();
        times.push(start.elapsed().as_secs_f64() * 1000.0);
    }
    times.sort_by(f64::total_cmp);
    (times[RUNS / 2], n)
}

type Op = (&'static str, Box<dyn Fn(&Store) -> usize>);

fn ops() -> Vec<Op> {
    let list = |args: ListSessionsArgs| -> Box<dyn Fn(&Store) -> usize> {
        Box::new(move |s: &Store| s.query_sessions(&args).unwrap().len())
    };
    let search = |args: SearchSessionsArgs| -> Box<dyn Fn(&Store) -> usize> {
        Box::new(move |s: &Store| s.search(&args).unwrap().len())
    };
    vec![
        (
            "list: newest 100",
            list(ListSessionsArgs {
                limit: Some(100),
                ..Default::default()
            }),
        ),
        ("list: all sessions", list(ListSessionsArgs::default())),
        (
            "list: errors, by tokens",
            list(ListSessionsArgs {
                had_errors: Some(true),
                sort: Some(SessionSort::Tokens),
                limit: Some(100),
                ..Default::default()
            }),
        ),
        (
            "list: project + model",
            list(ListSessionsArgs {
                project_path: Some("/projects/p7".into()),
                model: Some("sonnet".into()),
                ..Default::default()
            }),
        ),
        (
            "search: rare word",
            search(SearchSessionsArgs {
                query: "w19990".into(),
                limit: Some(50),
                ..Default::default()
            }),
        ),
        (
            "search: mid word",
            search(SearchSessionsArgs {
                query: "w2000".into(),
                limit: Some(50),
                ..Default::default()
            }),
        ),
        (
            "search: common word",
            search(SearchSessionsArgs {
                query: "w3".into(),
                limit: Some(50),
                ..Default::default()
            }),
        ),
        (
            "search: two words AND",
            search(SearchSessionsArgs {
                query: "w500 w9000".into(),
                limit: Some(50),
                ..Default::default()
            }),
        ),
        (
            "search: one session",
            search(SearchSessionsArgs {
                query: "w10".into(),
                limit: Some(50),
                session_id: Some("bench-000005".into()),
                ..Default::default()
            }),
        ),
        // The session browser's filter choices and its stats panel.
        (
            "browser: facets",
            Box::new(|s: &Store| {
                let f = s.session_facets().unwrap();
                f.projects.len() + f.models.len()
            }),
        ),
        (
            "browser: stats of 1 session",
            Box::new(|s: &Store| s.session_stats("bench-000005").unwrap().tools.len()),
        ),
    ]
}

fn main() {
    let big: usize = std::env::var("GATEHOUSE_BENCH_SCALE_EVENTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    let small = 10_000;
    let (small_dir, small_build) = database(small);
    let (big_dir, big_build) = database(big);
    if big_build > 0.0 {
        println!(
            "built {big} events in {big_build:.1} s ({:.0} events/s); {small} in {small_build:.1} s",
            big as f64 / big_build
        );
    }
    let (open_small, _) = median_ms(|| {
        drop(Store::open(&small_dir).unwrap());
        0
    });
    let (open_big, _) = median_ms(|| {
        drop(Store::open(&big_dir).unwrap());
        0
    });
    let small_store = Store::open(&small_dir).unwrap();
    let big_store = Store::open(&big_dir).unwrap();
    let usage = big_store.storage_usage().unwrap();
    println!(
        "database: {} events in {} sessions, {:.1} MB",
        usage.events,
        usage.sessions,
        usage.database_bytes as f64 / 1e6
    );
    println!(
        "{:<26} {:>12} {:>12} {:>8}   (median of {RUNS} runs, ms; rows returned)",
        "operation",
        format!("{}k events", small / 1000),
        format!("{}k events", big / 1000),
        "ratio"
    );
    println!(
        "{:<26} {:>12.2} {:>12.2} {:>7.1}×",
        "open store",
        open_small,
        open_big,
        open_big / open_small
    );
    for (name, op) in ops() {
        let (a, na) = median_ms(|| op(&small_store));
        let (b, nb) = median_ms(|| op(&big_store));
        println!(
            "{name:<26} {:>7.2} ({na:>3}) {:>7.2} ({nb:>3}) {:>7.1}×",
            a,
            b,
            b / a
        );
    }
}
