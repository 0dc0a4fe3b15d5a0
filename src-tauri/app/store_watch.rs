//! The session browser's live sessions: a thread of its own polls
//! `gatehouse_session::store_watch` and emits `StoredSessionsChanged` on
//! `STORED_SESSIONS_CHANNEL` when another process (a guarded Claude Code's
//! hook, `gatehouse-cli run`) or the app itself wrote sessions. Guarded
//! Claude Code sessions also grow from their transcripts: the tail
//! (`gatehouse_session::claude_guard::tail`, a thread of its own, managed
//! as [`ClaudeCodeTail`] so it lives as long as the app) is woken when the
//! database changed, since a hook may have recorded a new session.

use std::path::PathBuf;
use std::time::Duration;

use gatehouse_protocol::browser::{STORED_SESSIONS_CHANNEL, StoredSessionsChanged};
use gatehouse_session::claude_guard::tail::{self, TailConfig, TailHandle, TailWaker};
use gatehouse_session::store_watch::StoreWatch;
use tauri::{AppHandle, Emitter as _, Manager as _};

/// The running tail of guarded Claude Code sessions' transcripts (stops
/// when the app's state is dropped).
pub(crate) struct ClaudeCodeTail {
    /// Held, not read: dropping it stops the tail.
    _handle: Option<TailHandle>,
}

/// How often the watcher looks: `PRAGMA data_version` is a read of the
/// shared-memory index, so this costs next to nothing.
const POLL: Duration = Duration::from_millis(500);

/// Starts the watcher for the database in `data_dir`, and the tail of
/// guarded sessions' transcripts, each on its own thread (they block on
/// SQLite and files and sleep; never on the async workers).
pub(crate) fn start(app: AppHandle, data_dir: PathBuf) {
    let tail = match tail::spawn(TailConfig::new(data_dir.clone())) {
        Ok(handle) => Some(handle),
        Err(e) => {
            eprintln!(
                "gatehouse: guarded Claude Code sessions will not follow their transcripts: {e}"
            );
            None
        }
    };
    let waker: Option<TailWaker> = tail.as_ref().map(TailHandle::waker);
    app.manage(ClaudeCodeTail { _handle: tail });
    let spawned = std::thread::Builder::new()
        .name("gatehouse-store-watch".to_owned())
        .spawn(move || {
            let mut watch = match StoreWatch::open(&data_dir) {
                Ok(watch) => watch,
                Err(e) => {
                    eprintln!(
                        "gatehouse: sessions written by other processes will not show live: {e}"
                    );
                    return;
                }
            };
            loop {
                std::thread::sleep(POLL);
                match watch.poll() {
                    Ok(None) => {}
                    Ok(Some(session_ids)) => {
                        if let Some(waker) = &waker {
                            waker.wake();
                        }
                        let changed = StoredSessionsChanged { session_ids };
                        if app.emit(STORED_SESSIONS_CHANNEL, &changed).is_err() {
                            // The window is gone: the app is ending.
                            return;
                        }
                    }
                    Err(e) => eprintln!("gatehouse: watching the database: {e}"),
                }
            }
        });
    if let Err(e) = spawned {
        eprintln!("gatehouse: sessions written by other processes will not show live: {e}");
    }
}
