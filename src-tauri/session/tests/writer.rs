//! The session event writer against a real SQLite file: batches, the
//! bounded queue (progress coalesced under pressure, everything else kept,
//! producers paced when full) and flush tickets completed after commit.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};

use gatehouse_core::events::EventSink;
use gatehouse_protocol::event::Event;
use gatehouse_session::writer::{EventWriter, PROGRESS_SOFT_LIMIT, QUEUE_CAPACITY};
use gatehouse_store::{NewSession, Store};
use serde_json::{Value, json};

/// Events from JSON lines, as stored sessions hold them.
fn ev(session: &str, body: Value) -> Event {
    let mut v = body;
    v["session_id"] = json!(session);
    v["ts_ms"] = json!(1_700_000_000_000u64);
    serde_json::from_value(v).unwrap()
}

fn progress(session: &str, call: &str, n: usize) -> Event {
    ev(
        session,
        json!({"type": "tool_progress", "tool_use_id": call, "data": {"kind": "other", "data": {"n": n}}}),
    )
}

fn prompt(session: &str, text: &str) -> Event {
    ev(session, json!({"type": "user_prompt", "text": text}))
}

fn kind(e: &Event) -> String {
    serde_json::to_value(e).unwrap()["type"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn store_with(dir: &std::path::Path, sessions: &[&str]) -> Store {
    let store = Store::open(dir).unwrap();
    for id in sessions {
        store
            .create_session(&NewSession {
                id: (*id).into(),
                project_path: "/p".into(),
                provider: "replay".into(),
                model: "m".into(),
                mode: "default".into(),
            })
            .unwrap();
    }
    store
}

/// The front end: records what it is handed; while closed, the writer
/// blocks in `emit` (a slow window), and says when it got there.
struct Gate {
    open: Mutex<bool>,
    opened: Condvar,
    entered: Mutex<Option<mpsc::Sender<()>>>,
    seen: Mutex<Vec<Event>>,
}

impl Gate {
    fn new(open: bool) -> (Arc<Self>, mpsc::Receiver<()>) {
        let (tx, rx) = mpsc::channel();
        (
            Arc::new(Self {
                open: Mutex::new(open),
                opened: Condvar::new(),
                entered: Mutex::new(Some(tx)),
                seen: Mutex::new(Vec::new()),
            }),
            rx,
        )
    }
    fn open(&self) {
        *self.open.lock().unwrap() = true;
        self.opened.notify_all();
    }
    fn seen(&self) -> Vec<Event> {
        self.seen.lock().unwrap().clone()
    }
}

impl EventSink for Gate {
    fn emit(&self, event: Event) {
        if let Some(tx) = self.entered.lock().unwrap().as_ref() {
            let _ = tx.send(());
        }
        let mut open = self.open.lock().unwrap();
        while !*open {
            open = self.opened.wait(open).unwrap();
        }
        drop(open);
        self.seen.lock().unwrap().push(event);
    }
}

/// Every forwarded event is already in the database (read on another
/// connection at the moment it is forwarded), in emission order.
struct CheckStored {
    reader: Mutex<Store>,
    seen: Mutex<Vec<(Event, i64)>>,
}

impl EventSink for CheckStored {
    fn emit(&self, event: Event) {
        let reader = self.reader.lock().unwrap();
        let stored = reader
            .session(&event.session_id)
            .unwrap()
            .unwrap()
            .event_count;
        self.seen.lock().unwrap().push((event, stored));
    }
}

#[test]
fn every_forwarded_event_is_already_stored_and_order_is_kept_across_sessions() {
    let data = tempfile::tempdir().unwrap();
    let store = store_with(data.path(), &["a", "b"]);
    let check = Arc::new(CheckStored {
        reader: Mutex::new(Store::open(data.path()).unwrap()),
        seen: Mutex::new(Vec::new()),
    });
    let mut writer = EventWriter::start(store, check.clone());
    let sink = writer.sink();
    let mut emitted = Vec::new();
    for i in 0..2_000 {
        let session = if i % 3 == 0 { "b" } else { "a" };
        let e = prompt(session, &format!("prompt {i}"));
        emitted.push(e.clone());
        sink.emit(e);
    }
    assert_eq!(writer.finish(), 0);
    let seen = check.seen.lock().unwrap().clone();
    let forwarded: Vec<Event> = seen.iter().map(|(e, _)| e.clone()).collect();
    assert_eq!(forwarded, emitted, "forwarded in emission order");
    // The n-th event of a session was forwarded when at least n were stored.
    let mut per_session = std::collections::HashMap::new();
    for (e, stored) in &seen {
        let n = per_session.entry(e.session_id.clone()).or_insert(0i64);
        *n += 1;
        assert!(
            *stored >= *n,
            "{} forwarded before it was stored",
            e.session_id
        );
    }
    let reader = Store::open(data.path()).unwrap();
    let (a, _) = reader.session_events("a").unwrap();
    let (b, _) = reader.session_events("b").unwrap();
    assert_eq!(a.len() + b.len(), 2_000);
    let want_a: Vec<&Event> = emitted.iter().filter(|e| e.session_id == "a").collect();
    assert_eq!(a.iter().collect::<Vec<_>>(), want_a);
    assert!(
        !reader
            .search_sessions("\"prompt 1999\"", 5)
            .unwrap()
            .is_empty()
    );
}

#[test]
fn a_progress_flood_is_coalesced_per_call_with_the_last_kept_and_nothing_else_lost() {
    let data = tempfile::tempdir().unwrap();
    let store = store_with(data.path(), &["s"]);
    let (gate, entered) = Gate::new(false);
    let mut writer = EventWriter::start(store, gate.clone());
    let sink = writer.sink();
    // The writer takes the first event and is held by the front end.
    sink.emit(prompt("s", "start"));
    entered.recv().unwrap();
    let flood = 100_000;
    for n in 0..flood {
        sink.emit(progress("s", "t1", n));
        if n == flood / 2 {
            // Events that are not progress are never coalesced away.
            sink.emit(prompt("s", "in the middle"));
        }
    }
    sink.emit(prompt("s", "end"));
    // Bounded: the soft limit of progress, per run between other events.
    assert!(
        writer.queued() <= 2 * PROGRESS_SOFT_LIMIT + 2,
        "{}",
        writer.queued()
    );
    gate.open();
    assert_eq!(writer.finish(), 0);
    let seen = gate.seen();
    let reader = Store::open(data.path()).unwrap();
    let (stored, _) = reader.session_events("s").unwrap();
    assert_eq!(stored, seen, "what the front end saw is what was stored");
    let prompts: Vec<Value> = stored
        .iter()
        .filter(|e| kind(e) == "user_prompt")
        .map(|e| serde_json::to_value(e).unwrap()["text"].clone())
        .collect();
    assert_eq!(
        prompts,
        vec![json!("start"), json!("in the middle"), json!("end")]
    );
    let ns: Vec<u64> = stored
        .iter()
        .filter(|e| kind(e) == "tool_progress")
        .map(|e| {
            serde_json::to_value(e).unwrap()["data"]["data"]["n"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert!(
        ns.windows(2).all(|w| w[0] < w[1]),
        "progress stays in order"
    );
    assert_eq!(
        *ns.last().unwrap(),
        flood as u64 - 1,
        "the last progress is kept"
    );
    // The one just before the middle prompt survives too (last of its run).
    assert!(ns.contains(&(flood as u64 / 2)));
    assert!(ns.len() <= 2 * PROGRESS_SOFT_LIMIT, "{}", ns.len());
    assert_eq!(writer.coalesced(), flood as u64 - ns.len() as u64);
}

/// Progress said once (how a Bash command ended, what the sandbox refused)
/// is never replaced by the flood around it, nor replaces a flood's event.
/// Before: the next output chunk took the `exited` event's place.
#[test]
fn one_shot_progress_survives_a_progress_flood() {
    let data = tempfile::tempdir().unwrap();
    let store = store_with(data.path(), &["s"]);
    let (gate, entered) = Gate::new(false);
    let mut writer = EventWriter::start(store, gate.clone());
    let sink = writer.sink();
    sink.emit(prompt("s", "start"));
    entered.recv().unwrap();
    let once = |data: Value| {
        ev(
            "s",
            json!({"type": "tool_progress", "tool_use_id": "t1", "data": data}),
        )
    };
    for n in 0..2 * PROGRESS_SOFT_LIMIT {
        sink.emit(progress("s", "t1", n));
    }
    sink.emit(once(
        json!({"kind": "blocked", "denials": [], "omitted": 3}),
    ));
    sink.emit(once(
        json!({"kind": "exited", "exit_code": 2, "signal": null}),
    ));
    for n in 0..PROGRESS_SOFT_LIMIT {
        sink.emit(progress("s", "t1", 10_000 + n));
    }
    gate.open();
    assert_eq!(writer.finish(), 0);
    let reader = Store::open(data.path()).unwrap();
    let (stored, _) = reader.session_events("s").unwrap();
    let kinds: Vec<String> = stored
        .iter()
        .filter(|e| kind(e) == "tool_progress")
        .map(|e| {
            serde_json::to_value(e).unwrap()["data"]["kind"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    let at = |k: &str| kinds.iter().position(|x| x == k);
    let (blocked, exited) = (at("blocked").unwrap(), at("exited").unwrap());
    assert_eq!(exited, blocked + 1, "in order, neither replaced");
    assert!(writer.coalesced() > 0, "the flood itself was coalesced");
}

#[test]
fn a_full_queue_paces_producers_and_loses_nothing() {
    let data = tempfile::tempdir().unwrap();
    let store = store_with(data.path(), &["s"]);
    let (gate, entered) = Gate::new(false);
    let mut writer = EventWriter::start(store, gate.clone());
    let sink = writer.sink();
    sink.emit(prompt("s", "first"));
    entered.recv().unwrap();
    let total = QUEUE_CAPACITY + 10;
    let (done_tx, done_rx) = mpsc::channel();
    let producer = std::thread::spawn({
        let sink = sink.clone();
        move || {
            for i in 0..total {
                sink.emit(prompt("s", &format!("p{i}")));
                done_tx.send(i).unwrap();
            }
        }
    });
    // The producer gets exactly QUEUE_CAPACITY events in, then waits.
    for want in 0..QUEUE_CAPACITY {
        assert_eq!(done_rx.recv().unwrap(), want);
    }
    assert_eq!(writer.queued(), QUEUE_CAPACITY);
    gate.open();
    producer.join().unwrap();
    assert_eq!(writer.finish(), 0);
    let reader = Store::open(data.path()).unwrap();
    assert_eq!(
        reader.session("s").unwrap().unwrap().event_count,
        i64::try_from(total + 1).unwrap()
    );
}

#[tokio::test]
async fn a_flush_ticket_completes_after_the_commit_and_fails_for_an_unstorable_event() {
    let data = tempfile::tempdir().unwrap();
    let store = store_with(data.path(), &["s"]);
    let (gate, entered) = Gate::new(true);
    let mut writer = EventWriter::start(store, gate.clone());
    let sink = writer.sink();
    let reader = Store::open(data.path()).unwrap();
    for i in 0..50 {
        sink.emit(prompt("s", &format!("before {i}")));
    }
    let ticket = sink.emit_durable(prompt("s", "decided"));
    ticket.wait().await.unwrap();
    // Stored, with everything emitted before it.
    assert!(reader.session("s").unwrap().unwrap().event_count >= 51);
    let last = reader
        .last_event_of_type("s", "user_prompt")
        .unwrap()
        .unwrap();
    assert!(reader.session_events("s").unwrap().0.contains(&last));
    // An event of a session that does not exist cannot be stored; the
    // others of its batch still are.
    sink.emit(prompt("s", "neighbour"));
    let bad = sink.emit_durable(prompt("missing", "x"));
    let err = bad.wait().await.unwrap_err();
    assert!(err.to_string().contains("missing"), "{err}");
    drop(entered);
    assert_eq!(writer.finish(), 1);
    let (events, _) = reader.session_events("s").unwrap();
    assert_eq!(events.len(), 52);
    // After finish, a durable emit fails at once instead of hanging.
    let late = sink.emit_durable(prompt("s", "late"));
    assert!(late.wait().await.is_err());
}
