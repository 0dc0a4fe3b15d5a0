//! Compaction in steps (issue 16 item 1): a session's writer on another
//! connection commits between the steps of a compaction instead of waiting
//! for a whole-file `VACUUM`, and a database of an earlier version gets its
//! one full rewrite only when no session is open. Real SQLite files.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::ops::ControlFlow;
use std::sync::mpsc;

use gatehouse_protocol::browser::FullRewrite;
use gatehouse_protocol::event::{ContentBlock, Event, EventBody, ToolCallStatus};
use gatehouse_store::{CompactionPhase, DATABASE_FILE, NewSession, Store};

fn new_session(id: &str) -> NewSession {
    NewSession {
        id: id.into(),
        project_path: "/p".into(),
        provider: "replay".into(),
        model: "m".into(),
        mode: "default".into(),
    }
}

fn completed(session: &str, ts_ms: u64, text: &str) -> Event {
    Event {
        session_id: session.into(),
        ts_ms,
        body: EventBody::ToolCompleted {
            tool_use_id: format!("t{ts_ms}"),
            status: ToolCallStatus::Ok,
            is_error: false,
            content: vec![ContentBlock::Text { text: text.into() }],
            duration_ms: 1,
            persisted_path: None,
        },
    }
}

/// A store with one session `s0` left and ~20 MB of deleted sessions'
/// pages on the free list.
fn store_with_free_pages(dir: &std::path::Path) -> Store {
    let mut store = Store::open(dir).unwrap();
    for i in 0..40 {
        let id = format!("s{i}");
        store.create_session(&new_session(&id)).unwrap();
        for n in 0..20 {
            let big = format!("call {n} of {id}: {}", "lorem ipsum ".repeat(2000));
            store.append_event(&completed(&id, n, &big)).unwrap();
        }
    }
    for i in 1..40 {
        store.delete_session(&format!("s{i}")).unwrap();
    }
    store
}

fn auto_vacuum(dir: &std::path::Path) -> i64 {
    let conn = rusqlite::Connection::open(dir.join(DATABASE_FILE)).unwrap();
    conn.query_row("PRAGMA auto_vacuum", [], |r| r.get(0))
        .unwrap()
}

/// The writer of a session: its own connection, appending one event and
/// reporting the free pages it saw right after its commit.
fn spawn_writer(
    dir: std::path::PathBuf,
) -> (mpsc::Sender<u64>, mpsc::Receiver<Result<u64, String>>) {
    let (go_tx, go_rx) = mpsc::channel::<u64>();
    let (done_tx, done_rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut store = Store::open(&dir).unwrap();
        while let Ok(ts) = go_rx.recv() {
            let result = store
                .append_event(&completed("s0", ts, "written mid-compaction"))
                .map_err(|e| e.to_string())
                .and_then(|_| {
                    store
                        .storage_usage()
                        .map(|u| u.reclaimable_bytes)
                        .map_err(|e| e.to_string())
                });
            if done_tx.send(result).is_err() {
                break;
            }
        }
    });
    (go_tx, done_rx)
}

#[test]
fn new_databases_compact_in_steps() {
    let data = tempfile::tempdir().unwrap();
    drop(Store::open(data.path()).unwrap());
    assert_eq!(auto_vacuum(data.path()), 2, "auto_vacuum = INCREMENTAL");
}

#[test]
fn a_session_writer_commits_between_compaction_steps() {
    let data = tempfile::tempdir().unwrap();
    let mut store = store_with_free_pages(data.path());
    let before = store.storage_usage().unwrap();
    assert!(before.reclaimable_bytes > 16 << 20, "{before:?}");
    let (go, done) = spawn_writer(data.path().to_path_buf());

    // At the first step that gave back free pages, the session's writer
    // appends an event on its own connection (its busy timeout is the
    // store's usual one: it would fail if compaction held the write lock
    // between steps) and the compaction waits for its commit.
    let mut seen: Option<u64> = None;
    // Free bytes when compaction started giving pages back (merging the
    // search index frees pages too).
    let mut free_at_start = before.reclaimable_bytes;
    let mut steps_after_write = 0;
    let compaction = store
        .vacuum_with(0, |step| {
            if seen.is_some() {
                steps_after_write += 1;
            } else if step.phase == CompactionPhase::FreePages {
                go.send(1_000).unwrap();
                seen = Some(done.recv().unwrap().expect("the writer commits"));
            } else {
                free_at_start = step.free_bytes_left;
            }
            ControlFlow::Continue(())
        })
        .unwrap();
    let seen = seen.expect("compaction reported a step giving back free pages");
    // The commit landed while compaction was partway: some free pages
    // were already given back, not all, and compaction went on after it.
    assert!(
        seen > 0 && seen < free_at_start,
        "the writer committed with {seen} of {free_at_start} bytes still free"
    );
    assert!(
        steps_after_write > 0,
        "compaction continued after the write"
    );
    assert_eq!(compaction.full_rewrite, FullRewrite::NotNeeded);
    assert!(!compaction.cancelled);

    let after = store.storage_usage().unwrap();
    assert_eq!(after.reclaimable_bytes, 0, "{after:?}");
    assert_eq!(after.events, 21, "the writer's event is stored");
    assert!(after.database_bytes * 5 < before.database_bytes + before.wal_bytes);
    assert_eq!(after.wal_bytes, 0, "the WAL is truncated when nobody waits");
    assert!(compaction.wal_truncated);
    assert!(compaction.freed_bytes >= before.reclaimable_bytes);
    assert_eq!(store.integrity_problems().unwrap(), Vec::<String>::new());
}

#[test]
fn compaction_stops_when_asked_and_keeps_what_it_did() {
    let data = tempfile::tempdir().unwrap();
    let mut store = store_with_free_pages(data.path());
    let mut free_at_start = 0;
    let compaction = store
        .vacuum_with(0, |step| {
            if step.phase == CompactionPhase::FreePages {
                ControlFlow::Break(())
            } else {
                free_at_start = step.free_bytes_left;
                ControlFlow::Continue(())
            }
        })
        .unwrap();
    assert!(compaction.cancelled);
    let after = store.storage_usage().unwrap();
    assert!(
        after.reclaimable_bytes > 0 && after.reclaimable_bytes < free_at_start,
        "{free_at_start} → {after:?}"
    );
    assert_eq!(store.integrity_problems().unwrap(), Vec::<String>::new());
}

#[test]
fn an_old_database_is_rewritten_whole_only_when_no_session_is_open() {
    let data = tempfile::tempdir().unwrap();
    let mut store = store_with_free_pages(data.path());
    // A database as earlier versions created it: auto_vacuum NONE.
    {
        let conn = rusqlite::Connection::open(data.path().join(DATABASE_FILE)).unwrap();
        conn.execute_batch("PRAGMA auto_vacuum = NONE; VACUUM;")
            .unwrap();
    }
    assert_eq!(auto_vacuum(data.path()), 0);
    // Pages freed after that rewrite.
    store.create_session(&new_session("s1")).unwrap();
    for n in 0..200 {
        let big = format!("call {n}: {}", "lorem ipsum ".repeat(2000));
        store.append_event(&completed("s1", n, &big)).unwrap();
    }
    store.delete_session("s1").unwrap();
    let before = store.storage_usage().unwrap();
    assert!(before.reclaimable_bytes > 1 << 20, "{before:?}");
    assert!(!store.full_rewrite_pending().unwrap());

    // With sessions open: no whole-file rewrite (a writer still gets in
    // between steps), and the result says why and when it happens.
    let (go, done) = spawn_writer(data.path().to_path_buf());
    let mut wrote = false;
    let compaction = store
        .vacuum_with(2, |_| {
            if !wrote {
                wrote = true;
                go.send(2_000).unwrap();
                done.recv().unwrap().expect("the writer commits");
            }
            ControlFlow::Continue(())
        })
        .unwrap();
    assert!(wrote, "compaction reported its steps");
    assert_eq!(
        compaction.full_rewrite,
        FullRewrite::WaitingForOpenSessions { open_sessions: 2 }
    );
    assert_eq!(auto_vacuum(data.path()), 0, "not rewritten");
    assert!(
        store.full_rewrite_pending().unwrap(),
        "remembered for start-up"
    );
    assert!(store.storage_usage().unwrap().reclaimable_bytes > 0);

    // With none open: rewritten whole, switched to compaction in steps.
    let compaction = store.vacuum(0).unwrap();
    assert_eq!(compaction.full_rewrite, FullRewrite::Done);
    assert_eq!(auto_vacuum(data.path()), 2);
    assert!(!store.full_rewrite_pending().unwrap());
    let after = store.storage_usage().unwrap();
    assert_eq!(after.reclaimable_bytes, 0);
    assert_eq!(after.events, 21);
    assert_eq!(
        store.vacuum(3).unwrap().full_rewrite,
        FullRewrite::NotNeeded
    );
    assert_eq!(store.integrity_problems().unwrap(), Vec::<String>::new());
}
