//! An open session's Bash sandbox (issue 24 items 3 and 4): started from
//! the session's settings files, reported in typed events, and rebuilt when
//! a `sandbox` key changes so the next Bash call follows it.
//!
//! * Start: `sandbox_settings_read` (the state and the problems in the
//!   `sandbox` keys, when it is on or there are any); when the sandbox is
//!   enabled but cannot run, one `sandbox_unavailable` event (typed reason, detail, fix); commands then
//!   run unconfined through the normal permission flow — the engine is
//!   told about a sandbox only when one runs, so nothing is auto-allowed.
//! * Reload: every settings reload of the session ([`crate::live_settings`])
//!   reads the `sandbox` keys again; when they changed, the sandbox is
//!   rebuilt (bwrap probed again), put in force for the calls that start
//!   from then on, and reported as `sandbox_settings_read` (with
//!   `sandbox_unavailable` when it became unavailable or why changed).
//!   The engine's auto-allow is withdrawn before a sandbox is taken away
//!   and given only after the new one is in place.

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::Arc;

use gatehouse_agent::EngineSetup;
use gatehouse_agent::sandbox::{SandboxRead, engine_rules, read_sandbox_settings};
use gatehouse_core::events::Emitter;
use gatehouse_permissions::PermissionEngine;
use gatehouse_protocol::event::{EventBody, SettingsProblem};
use gatehouse_protocol::sandbox::{SandboxUnavailable, SessionSandboxState};
use gatehouse_tools::bash::sandboxed::{BashSandbox, SharedSandbox};

/// Where a session's sandbox is built: its files, folders and `PATH`.
#[derive(Debug, Clone)]
pub(crate) struct SandboxPlace {
    /// The session's settings files.
    pub setup: EngineSetup,
    /// Gatehouse's data directory (hidden inside the sandbox).
    pub data_dir: PathBuf,
    /// Where bwrap is looked for.
    pub path_var: Option<OsString>,
}

/// What was last read and put in force.
struct Last {
    read: SandboxRead,
    unavailable: Option<SandboxUnavailable>,
}

/// One open session's sandbox; see the module docs.
pub(crate) struct SessionSandbox {
    place: SandboxPlace,
    engine: Arc<PermissionEngine>,
    shared: SharedSandbox,
    emitter: Emitter,
    last: tokio::sync::Mutex<Last>,
}

impl std::fmt::Debug for SessionSandbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionSandbox")
            .field("place", &self.place)
            .finish_non_exhaustive()
    }
}

/// The state a [`BashSandbox`] reports.
fn state_of(sandbox: &BashSandbox) -> SessionSandboxState {
    match sandbox {
        BashSandbox::Off => SessionSandboxState::Off,
        BashSandbox::On { .. } => SessionSandboxState::On,
        BashSandbox::Unavailable(_) => SessionSandboxState::Unavailable,
    }
}

/// Reads the `sandbox` keys of `place`'s files on a blocking thread;
/// `None` when that thread failed (a panic: nothing was read).
async fn read(place: &SandboxPlace) -> Option<SandboxRead> {
    let setup = place.setup.clone();
    tokio::task::spawn_blocking(move || read_sandbox_settings(&setup))
        .await
        .ok()
}

/// Builds the sandbox `read` says (probing bwrap); the problems found.
async fn build(place: &SandboxPlace, read: &SandboxRead) -> (BashSandbox, Vec<SettingsProblem>) {
    let mut problems = read.problems.clone();
    let sandbox = gatehouse_agent::sandbox::start_bash_sandbox(
        read,
        &place.setup.home,
        Some(&place.data_dir),
        &place.setup.project,
        place.path_var.as_deref(),
        &mut problems,
    )
    .await;
    (sandbox, problems)
}

impl SessionSandbox {
    /// Starts the session's sandbox: problems become `warnings`; when it is
    /// enabled but cannot run, `sandbox_unavailable` is emitted (once).
    pub(crate) async fn start(
        place: SandboxPlace,
        engine: Arc<PermissionEngine>,
        emitter: Emitter,
        warnings: &mut Vec<String>,
    ) -> Arc<Self> {
        // Nothing read (a panic while reading): as without settings, off.
        let first = read(&place).await.unwrap_or_default();
        let (sandbox, problems) = build(&place, &first).await;
        // Printed by the CLI; the UI reads the event below.
        warnings.extend(problems.iter().map(gatehouse_agent::sandbox::problem_text));
        let state = state_of(&sandbox);
        let unavailable = match &sandbox {
            BashSandbox::Unavailable(why) => Some(why.typed().clone()),
            _ => None,
        };
        let me = Arc::new(Self {
            place,
            engine,
            shared: SharedSandbox::default(),
            emitter,
            last: tokio::sync::Mutex::new(Last {
                read: first,
                unavailable: unavailable.clone(),
            }),
        });
        me.put_in_force(sandbox);
        if state != SessionSandboxState::Off || !problems.is_empty() {
            me.emitter.emit(EventBody::SandboxSettingsRead {
                state,
                problems,
                reloaded: false,
            });
        }
        if let Some(u) = unavailable {
            me.emitter
                .emit(EventBody::SandboxUnavailable { unavailable: u });
        }
        me
    }

    /// Why the sandbox cannot run, when it is enabled and cannot.
    pub(crate) async fn unavailable(&self) -> Option<SandboxUnavailable> {
        self.last.lock().await.unavailable.clone()
    }

    /// The handle Bash reads the sandbox from.
    pub(crate) fn shared(&self) -> SharedSandbox {
        self.shared.clone()
    }

    /// Reads the `sandbox` keys again; when they changed, rebuilds the
    /// sandbox, puts it in force and reports it. Returns whether it did.
    pub(crate) async fn reload(&self) -> bool {
        let mut last = self.last.lock().await;
        // Nothing read (a panic while reading): the sandbox in force stays.
        let Some(fresh) = read(&self.place).await else {
            return false;
        };
        if fresh == last.read {
            return false;
        }
        let (sandbox, problems) = build(&self.place, &fresh).await;
        let state = state_of(&sandbox);
        let unavailable = match &sandbox {
            BashSandbox::Unavailable(why) => Some(why.typed().clone()),
            _ => None,
        };
        self.put_in_force(sandbox);
        last.read = fresh;
        self.emitter.emit(EventBody::SandboxSettingsRead {
            state,
            problems,
            reloaded: true,
        });
        // Said once per cause: again only when it became unavailable or
        // the reason changed.
        if let Some(u) = unavailable
            .clone()
            .filter(|u| last.unavailable.as_ref() != Some(u))
        {
            self.emitter
                .emit(EventBody::SandboxUnavailable { unavailable: u });
        }
        last.unavailable = unavailable;
        true
    }

    /// Puts `sandbox` in force for Bash and the engine, never leaving the
    /// engine auto-allowing while Bash runs without a sandbox.
    fn put_in_force(&self, sandbox: BashSandbox) {
        match &sandbox {
            BashSandbox::On { config, .. } => {
                let rules = engine_rules(config);
                self.shared.replace(sandbox);
                self.engine.set_bash_sandbox(Some(rules));
            }
            BashSandbox::Off | BashSandbox::Unavailable(_) => {
                self.engine.set_bash_sandbox(None);
                self.shared.replace(sandbox);
            }
        }
    }
}
