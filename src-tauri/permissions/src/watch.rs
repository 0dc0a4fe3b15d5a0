//! Reloading settings when their files change (with `notify`). A reload
//! that fails (a file became malformed) keeps the last good rules in force
//! and reports the error; a later good edit applies normally.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use notify::{RecommendedWatcher, RecursiveMode, Watcher};

use crate::engine::PermissionEngine;
use crate::settings::SettingsError;
use crate::sources::{LoadedSettings, SettingsLayout, load};

/// The result of one reload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReloadReport {
    /// True when the new settings are now in force.
    pub applied: bool,
    /// Problems found in the files (also when not applied).
    pub errors: Vec<SettingsError>,
}

/// Reloads `layout` into `engine`. When the new settings lost restrictions
/// (a malformed file, an unparseable deny rule) and the current ones did
/// not, the current ones stay in force.
pub fn reload(engine: &PermissionEngine, layout: &SettingsLayout) -> ReloadReport {
    apply(engine, load(layout))
}

/// Puts `fresh` (settings just read) in force in `engine`, unless they lost
/// restrictions the current ones have: see [`reload`].
pub fn apply(engine: &PermissionEngine, fresh: LoadedSettings) -> ReloadReport {
    let errors = fresh.errors.clone();
    let current_good = !engine
        .settings_errors()
        .iter()
        .any(|e| e.loses_restrictions);
    if fresh.restrictions_lost() && current_good {
        return ReloadReport {
            applied: false,
            errors,
        };
    }
    engine.replace_settings(fresh);
    ReloadReport {
        applied: true,
        errors,
    }
}

/// Watches every settings file of a layout and reloads on change.
///
/// notify reports one edit as several events (an atomic save is a create,
/// a write and a rename): they are coalesced, and the reload runs once the
/// folder has been quiet for [`SETTLE`], on the watcher's own thread.
pub struct SettingsWatcher {
    watcher: Arc<Mutex<RecommendedWatcher>>,
}

/// How long the settings folders must be quiet before a reload.
pub const SETTLE: Duration = Duration::from_millis(50);
/// A reload happens at the latest this long after the first event of a
/// burst, even if events keep coming.
const MAX_SETTLE: Duration = Duration::from_secs(1);

impl std::fmt::Debug for SettingsWatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SettingsWatcher").finish_non_exhaustive()
    }
}

/// The directories to watch: those holding settings files (or the closest
/// existing ancestor, so a `.claude` folder created later is noticed).
fn watch_dirs(layout: &SettingsLayout) -> BTreeSet<PathBuf> {
    let mut dirs = BTreeSet::new();
    let mut files: Vec<PathBuf> = layout.files().into_iter().map(|f| f.path).collect();
    if let Some(d) = &layout.managed_dropin_dir {
        files.push(d.join("x.json"));
    }
    // A symlinked settings file (dotfile managers link
    // ~/.claude/settings.json) is edited at its target: watch that folder too.
    let targets: Vec<PathBuf> = files
        .iter()
        .filter(|f| std::fs::symlink_metadata(f).is_ok_and(|m| m.file_type().is_symlink()))
        .filter_map(|f| std::fs::canonicalize(f).ok())
        .collect();
    files.extend(targets);
    for f in files {
        let mut dir = f.parent().map(PathBuf::from);
        while let Some(d) = dir {
            if d.is_dir() {
                dirs.insert(d);
                break;
            }
            dir = d.parent().map(PathBuf::from);
        }
    }
    dirs
}

impl SettingsWatcher {
    /// Starts watching; every settled change reloads `engine` (see
    /// [`reload`]) and then calls `on_reload` (from the watcher's thread).
    pub fn start(
        layout: SettingsLayout,
        engine: Arc<PermissionEngine>,
        on_reload: impl Fn(ReloadReport) + Send + 'static,
    ) -> notify::Result<Self> {
        let reload_layout = layout.clone();
        Self::on_change(layout, move || on_reload(reload(&engine, &reload_layout)))
    }

    /// Starts watching; `changed` is called (from the watcher's thread)
    /// once per settled burst of changes to the layout's folders. The
    /// caller reloads.
    pub fn on_change(
        layout: SettingsLayout,
        changed: impl Fn() + Send + 'static,
    ) -> notify::Result<Self> {
        // One pending signal is enough: a burst collapses into it.
        let (signal, signals) = std::sync::mpsc::sync_channel::<()>(1);
        let handler = move |event: notify::Result<notify::Event>| {
            let Ok(event) = event else {
                return;
            };
            if event.kind.is_access() {
                return;
            }
            let _ = signal.try_send(());
        };
        let watcher = Arc::new(Mutex::new(notify::recommended_watcher(handler)?));
        let mut seen = BTreeSet::new();
        {
            let mut w = watcher.lock().unwrap_or_else(|p| p.into_inner());
            for d in watch_dirs(&layout) {
                w.watch(&d, RecursiveMode::NonRecursive)?;
                seen.insert(d);
            }
        }
        // The worker holds the watcher weakly: dropping the SettingsWatcher
        // drops notify's handler and with it the signal, ending the worker.
        let weak = Arc::downgrade(&watcher);
        std::thread::Builder::new()
            .name("settings-watch".into())
            .spawn(move || {
                while signals.recv().is_ok() {
                    let burst = std::time::Instant::now();
                    while burst.elapsed() < MAX_SETTLE {
                        match signals.recv_timeout(SETTLE) {
                            Ok(()) => {}
                            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => break,
                            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => return,
                        }
                    }
                    // Pick up directories created since (e.g. `.claude/`).
                    // notify's `watch` waits on the thread running its
                    // handler, so this is done here, not in the handler.
                    let Some(w) = weak.upgrade() else {
                        return;
                    };
                    {
                        let mut w = w.lock().unwrap_or_else(|p| p.into_inner());
                        for d in watch_dirs(&layout) {
                            if !seen.contains(&d)
                                && w.watch(&d, RecursiveMode::NonRecursive).is_ok()
                            {
                                seen.insert(d);
                            }
                        }
                    }
                    drop(w);
                    changed();
                }
            })
            .map_err(|e| {
                notify::Error::generic(&format!("cannot start the watcher thread: {e}"))
            })?;
        Ok(SettingsWatcher { watcher })
    }

    /// Stops watching (also done on drop).
    pub fn stop(self) {
        drop(self.watcher);
    }
}
