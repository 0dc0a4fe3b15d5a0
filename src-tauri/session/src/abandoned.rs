//! Sessions a stopped process left open (issue 17, "states are true").
//!
//! A session is closed with `session_ended` when its window or
//! `gatehouse-cli run` closes it. When the process stops without closing
//! (the app was quit, killed or crashed), nothing records the end, and the
//! session would read "running" forever. So each host, as it starts,
//! closes every live session whose process is gone: with a
//! `session_ended` (reason `app_closed`) when it got a prompt, so review
//! shows the end, or by deleting it when it never did (there is nothing to
//! review). Sessions another live process holds (a `gatehouse-cli run`
//! beside the app) are left alone: each session records the id of the
//! process that opened it last.

use gatehouse_protocol::event::{Event, EventBody, SessionEndReason};
use gatehouse_store::Store;

/// What [`end_abandoned_sessions`] did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Swept {
    /// Sessions closed with `session_ended` (`app_closed`).
    pub ended: Vec<String>,
    /// Sessions without a prompt, deleted.
    pub deleted: Vec<String>,
}

/// Closes the sessions stopped processes left open (see the module docs);
/// `alive` tells whether a process id is running now. A session this
/// process opened is never alive here: a host sweeps before it opens any.
/// Failures are reported on stderr and leave the session as it was; they
/// never stop the host from starting.
pub fn end_abandoned_sessions(store: &mut Store, alive: impl Fn(u32) -> bool) -> Swept {
    let mut swept = Swept::default();
    let unended = match store.unended_sessions() {
        Ok(list) => list,
        Err(e) => {
            eprintln!("gatehouse: warning: sessions left open could not be listed: {e}");
            return swept;
        }
    };
    let own = std::process::id();
    for session in unended {
        if session.host_pid.is_some_and(|pid| pid != own && alive(pid)) {
            continue;
        }
        let done = if session.prompted {
            store
                .append_event(&Event {
                    session_id: session.id.clone(),
                    ts_ms: gatehouse_core::events::now_ms(),
                    body: EventBody::SessionEnded {
                        reason: SessionEndReason::AppClosed,
                    },
                })
                .map(|_| swept.ended.push(session.id.clone()))
        } else {
            store
                .delete_session(&session.id)
                .map(|ids| swept.deleted.extend(ids))
        };
        if let Err(e) = done {
            eprintln!(
                "gatehouse: warning: session {} was left open by a stopped process and could not be closed: {e}",
                session.id
            );
        }
    }
    swept
}

/// Whether process `pid` is running now. Linux reads `/proc`; other Unix
/// systems ask `kill -0`; elsewhere a process is taken as stopped (its
/// sessions are closed at the next start-up even if it still runs).
pub fn process_alive(pid: u32) -> bool {
    if cfg!(target_os = "linux") {
        std::path::Path::new(&format!("/proc/{pid}")).exists()
    } else if cfg!(unix) {
        std::process::Command::new("kill")
            .args(["-0", &pid.to_string()])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    } else {
        false
    }
}
