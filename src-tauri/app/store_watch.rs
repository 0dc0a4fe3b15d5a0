//! The session browser's live sessions: a thread of its own polls
//! `gatehouse_session::store_watch` and emits `StoredSessionsChanged` on
//! `STORED_SESSIONS_CHANNEL` when another process (a guarded Claude Code's
//! hook, `gatehouse-cli run`) or the app itself wrote sessions.

use std::path::PathBuf;
use std::time::Duration;

use gatehouse_protocol::browser::{STORED_SESSIONS_CHANNEL, StoredSessionsChanged};
use gatehouse_session::store_watch::StoreWatch;
use tauri::{AppHandle, Emitter as _};

/// How often the watcher looks: `PRAGMA data_version` is a read of the
/// shared-memory index, so this costs next to nothing.
const POLL: Duration = Duration::from_millis(500);

/// Starts the watcher for the database in `data_dir`, on its own thread
/// (it blocks on SQLite and sleeps; never on the async workers).
pub(crate) fn start(app: AppHandle, data_dir: PathBuf) {
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
