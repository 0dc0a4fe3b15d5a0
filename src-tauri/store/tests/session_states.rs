//! Issue 17: a session's duration is its active time, opening and closing
//! it are not activity, and its end is recorded (real SQLite files).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use gatehouse_protocol::event::{Event, EventBody, SessionEndReason, SessionStatus};
use gatehouse_protocol::session::{ListSessionsArgs, SessionSort};
use gatehouse_store::{NewSession, Store, UnendedSession};

fn new_session(id: &str) -> NewSession {
    NewSession {
        id: id.into(),
        project_path: "/p".into(),
        provider: "replay".into(),
        model: "m".into(),
        mode: "default".into(),
    }
}

fn at(session: &str, ts_ms: u64, body: EventBody) -> Event {
    Event {
        session_id: session.into(),
        ts_ms,
        body,
    }
}

fn started(resumed: bool) -> EventBody {
    EventBody::SessionStarted {
        provider: "replay".into(),
        model: "m".into(),
        project: "/p".into(),
        resumed,
    }
}

fn prompt() -> EventBody {
    EventBody::UserPrompt {
        text: "do it".into(),
    }
}

fn completed() -> EventBody {
    EventBody::SessionCompleted {
        status: SessionStatus::Completed,
        turns: 1,
    }
}

fn ended(reason: SessionEndReason) -> EventBody {
    EventBody::SessionEnded { reason }
}

/// A visit of 9.1 s, a resume 8 minutes later that only looks (start and
/// close), and a second visit of 2 s: the duration is 11.1 s, not the
/// 8 min 13 s from the first event to the last.
#[test]
fn duration_is_the_active_time_of_each_visit_not_the_gap_between_visits() {
    let data = tempfile::tempdir().unwrap();
    let mut store = Store::open(data.path()).unwrap();
    store.create_session(&new_session("s")).unwrap();
    let t0 = 1_700_000_000_000;
    for event in [
        at("s", t0, started(false)),
        at("s", t0 + 1_000, prompt()),
        at("s", t0 + 9_100, completed()),
        // Closed a minute later (the window stayed open, idle).
        at("s", t0 + 69_100, ended(SessionEndReason::Closed)),
        // Resumed 8 minutes later, looked at, closed.
        at("s", t0 + 480_000, started(true)),
        at("s", t0 + 485_000, ended(SessionEndReason::Closed)),
        // Resumed again, one 2 s exchange.
        at("s", t0 + 490_000, started(true)),
        at("s", t0 + 491_000, prompt()),
        at("s", t0 + 493_000, completed()),
    ] {
        store.append_event(&event).unwrap();
    }
    let summary = store.session("s").unwrap().unwrap();
    assert_eq!(summary.duration_ms, 1_000 + 8_100 + 1_000 + 2_000);

    // The duration sort uses the same active time.
    store.create_session(&new_session("long")).unwrap();
    store.append_event(&at("long", t0, prompt())).unwrap();
    store
        .append_event(&at("long", t0 + 20_000, completed()))
        .unwrap();
    let by_duration = store
        .query_sessions(&ListSessionsArgs {
            sort: Some(SessionSort::Duration),
            ..ListSessionsArgs::default()
        })
        .unwrap();
    let ids: Vec<_> = by_duration.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["long", "s"]);
}

/// Opening and closing a session (and nothing else) leaves its "last
/// active" time where it was.
#[test]
fn opening_and_closing_is_not_activity() {
    let data = tempfile::tempdir().unwrap();
    let mut store = Store::open(data.path()).unwrap();
    store.create_session(&new_session("s")).unwrap();
    let t0 = 1_700_000_000_000;
    store.append_event(&at("s", t0, prompt())).unwrap();
    store.append_event(&at("s", t0 + 10, completed())).unwrap();
    let before = store.session("s").unwrap().unwrap().updated_at_ms;
    std::thread::sleep(std::time::Duration::from_millis(5));
    store
        .append_event(&at("s", t0 + 50, started(true)))
        .unwrap();
    store
        .append_event(&at("s", t0 + 60, ended(SessionEndReason::Closed)))
        .unwrap();
    assert_eq!(store.session("s").unwrap().unwrap().updated_at_ms, before);
}

/// The status says what is true: a prompt makes a live session running
/// again, a close before the exchange finished ends it, and the end's
/// reason is kept until it is opened again.
#[test]
fn states_follow_prompts_exchanges_and_ends() {
    let data = tempfile::tempdir().unwrap();
    let mut store = Store::open(data.path()).unwrap();
    store.create_session(&new_session("s")).unwrap();
    let t0 = 1_700_000_000_000;
    let status = |store: &Store| {
        let s = store.session("s").unwrap().unwrap();
        (s.status, s.end_reason)
    };
    store.claim_session("s", 42).unwrap();
    store.append_event(&at("s", t0, started(false))).unwrap();
    assert_eq!(status(&store), ("running".into(), None));
    store.append_event(&at("s", t0 + 1, prompt())).unwrap();
    store.append_event(&at("s", t0 + 2, completed())).unwrap();
    store
        .append_event(&at("s", t0 + 3, ended(SessionEndReason::Closed)))
        .unwrap();
    assert_eq!(
        status(&store),
        ("completed".into(), Some(SessionEndReason::Closed))
    );
    assert!(store.unended_sessions().unwrap().is_empty());

    // Resumed, a prompt, and the process stops mid-exchange.
    store.claim_session("s", 43).unwrap();
    store.append_event(&at("s", t0 + 4, started(true))).unwrap();
    assert_eq!(status(&store), ("completed".into(), None));
    store.append_event(&at("s", t0 + 5, prompt())).unwrap();
    assert_eq!(status(&store), ("running".into(), None));
    assert_eq!(
        store.unended_sessions().unwrap(),
        [UnendedSession {
            id: "s".into(),
            host_pid: Some(43),
            prompted: true
        }]
    );
    store
        .append_event(&at("s", t0 + 6, ended(SessionEndReason::AppClosed)))
        .unwrap();
    assert_eq!(
        status(&store),
        ("ended".into(), Some(SessionEndReason::AppClosed))
    );
    // Opened again: running while open, no end reason.
    store.claim_session("s", 44).unwrap();
    assert_eq!(status(&store), ("running".into(), None));
}
