//! A session read with its sub-agents (`family_events_*`), against a real
//! SQLite file: the events come in the order they were written, the parent's
//! tail and head split at the parent's turn, and a cycle in stored links
//! does not loop.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use gatehouse_protocol::event::{Event, EventBody};
use gatehouse_store::{NewSession, SessionProvenance, Store};

fn session(store: &Store, id: &str, parent: Option<&str>) {
    let new = NewSession {
        id: id.into(),
        project_path: "/p".into(),
        provider: "replay".into(),
        model: "m".into(),
        mode: "default".into(),
    };
    let provenance = SessionProvenance {
        parent_session_id: parent.map(str::to_owned),
        ..SessionProvenance::default()
    };
    store.create_session_with(&new, &provenance).unwrap();
}

fn prompt(session: &str, text: &str) -> Event {
    Event {
        session_id: session.into(),
        ts_ms: 1_700_000_000_000,
        body: EventBody::UserPrompt { text: text.into() },
    }
}

fn texts(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .map(|e| match &e.body {
            EventBody::UserPrompt { text } => format!("{}:{text}", e.session_id),
            other => format!("{other:?}"),
        })
        .collect()
}

#[test]
fn a_session_and_its_sub_agents_read_back_as_written_split_at_the_parents_turn() {
    let data = tempfile::tempdir().unwrap();
    let mut store = Store::open(data.path()).unwrap();
    session(&store, "p", None);
    session(&store, "p-agent-a", Some("p"));
    session(&store, "p-agent-a-agent-b", Some("p-agent-a"));
    session(&store, "other", None);
    // Written interleaved, as one writer does.
    for (s, t) in [
        ("p", "1"),
        ("p-agent-a", "a1"),
        ("other", "x"),
        ("p", "2"),
        ("p-agent-a-agent-b", "b1"),
        ("p-agent-a", "a2"),
        ("p", "3"),
        ("p-agent-a", "a3"),
    ] {
        store.append_event(&prompt(s, t)).unwrap();
    }
    // The whole family in the order written; another session is not in it.
    let (all, earlier) = store.family_events_tail("p", 100).unwrap();
    assert_eq!(earlier, 0);
    assert_eq!(
        texts(&all),
        [
            "p:1",
            "p-agent-a:a1",
            "p:2",
            "p-agent-a-agent-b:b1",
            "p-agent-a:a2",
            "p:3",
            "p-agent-a:a3"
        ]
    );
    // A tail of the parent's last event: it starts at the parent's "3"
    // (a user_prompt is a turn start) and takes what the sub-agents wrote
    // after it; the count is the parent's.
    let (tail, earlier) = store.family_events_tail("p", 1).unwrap();
    assert_eq!(texts(&tail), ["p:3", "p-agent-a:a3"]);
    assert_eq!(earlier, 2);
    // The head is the rest, so head + tail is everything.
    let head = store.family_events_head("p", earlier).unwrap();
    assert_eq!(head.unreadable, 0);
    assert_eq!([head.events, tail].concat(), all);
    // A parent's own reads are unchanged.
    assert_eq!(store.session_events("p").unwrap().0.len(), 3);
}

#[test]
fn a_cycle_in_stored_parent_links_ends() {
    let data = tempfile::tempdir().unwrap();
    let mut store = Store::open(data.path()).unwrap();
    session(&store, "a", Some("b"));
    session(&store, "b", Some("a"));
    store.append_event(&prompt("a", "1")).unwrap();
    store.append_event(&prompt("b", "2")).unwrap();
    let (all, _) = store.family_events_tail("a", 10).unwrap();
    assert_eq!(texts(&all), ["a:1", "b:2"]);
}
