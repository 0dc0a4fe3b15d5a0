//! Sessions written by another process show live (issue 25 item 3): the
//! watcher's own connection notices another connection's commits (SQLite's
//! `data_version`, real database files) and names the sessions written;
//! a reader then reads only the events stored after what it has.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use gatehouse_protocol::event::{Event, EventBody};
use gatehouse_session::store_watch::StoreWatch;
use gatehouse_store::{NewSession, Store};

fn prompt(session: &str, text: &str) -> Event {
    Event {
        session_id: session.into(),
        ts_ms: 1,
        body: EventBody::UserPrompt { text: text.into() },
    }
}

fn session(store: &Store, id: &str) {
    store
        .create_session(&NewSession {
            id: id.into(),
            project_path: "/p".into(),
            provider: "claude_code".into(),
            model: "m".into(),
            mode: "default".into(),
        })
        .unwrap();
}

#[test]
fn another_connections_commits_are_noticed_and_name_the_sessions_written() {
    let data = tempfile::tempdir().unwrap();
    // The "other process": a connection of its own, as the hook's is.
    let mut writer = Store::open(data.path()).unwrap();
    let mut watch = StoreWatch::open(data.path()).unwrap();
    assert_eq!(watch.poll().unwrap(), None, "nothing committed yet");

    session(&writer, "cc-1");
    writer.append_event(&prompt("cc-1", "one")).unwrap();
    assert_eq!(watch.poll().unwrap(), Some(vec!["cc-1".to_owned()]));
    assert_eq!(watch.poll().unwrap(), None, "reported once");

    session(&writer, "cc-2");
    writer.append_event(&prompt("cc-2", "two")).unwrap();
    let named = watch.poll().unwrap().unwrap();
    assert!(named.contains(&"cc-2".to_owned()), "{named:?}");

    // What a reader with the first event appends: only the second.
    writer.append_event(&prompt("cc-1", "three")).unwrap();
    let reader = Store::open(data.path()).unwrap();
    let after = reader.stored_events_after("cc-1", 1).unwrap();
    assert_eq!(after.unreadable, 0);
    let texts: Vec<_> = after
        .events
        .iter()
        .map(|e| match &e.body {
            EventBody::UserPrompt { text } => text.clone(),
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    assert_eq!(texts, ["three"]);
    assert!(
        reader
            .stored_events_after("cc-1", 2)
            .unwrap()
            .events
            .is_empty()
    );
}
