//! Reloading settings when their files change (with `notify`). A reload
//! that fails (a file became malformed) keeps the last good rules in force
//! and reports the error; a later good edit applies normally.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use notify::{RecommendedWatcher, RecursiveMode, Watcher};

use crate::engine::PermissionEngine;
use crate::settings::SettingsError;
use crate::sources::{SettingsLayout, load};

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
    let fresh = load(layout);
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
pub struct SettingsWatcher {
    watcher: Arc<Mutex<RecommendedWatcher>>,
}

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
    /// Starts watching; `on_reload` is called after every reload (from the
    /// watcher's thread).
    pub fn start(
        layout: SettingsLayout,
        engine: Arc<PermissionEngine>,
        on_reload: impl Fn(ReloadReport) + Send + 'static,
    ) -> notify::Result<Self> {
        let watched = Arc::new(Mutex::new(BTreeSet::<PathBuf>::new()));
        let slot: Arc<Mutex<Option<Arc<Mutex<RecommendedWatcher>>>>> = Arc::new(Mutex::new(None));
        let handler_slot = slot.clone();
        let handler_watched = watched.clone();
        let handler_layout = layout.clone();
        let handler = move |event: notify::Result<notify::Event>| {
            let Ok(event) = event else {
                return;
            };
            if event.kind.is_access() {
                return;
            }
            let report = reload(&engine, &handler_layout);
            // Pick up directories created since (e.g. `.claude/`). notify's
            // `watch` waits on the thread running this handler, so the new
            // watches are added from another thread.
            let slot = handler_slot.clone();
            let seen = handler_watched.clone();
            let layout = handler_layout.clone();
            std::thread::spawn(move || {
                let watcher = slot.lock().unwrap_or_else(|p| p.into_inner()).clone();
                let Some(w) = watcher else {
                    return;
                };
                let mut w = w.lock().unwrap_or_else(|p| p.into_inner());
                let mut seen = seen.lock().unwrap_or_else(|p| p.into_inner());
                for d in watch_dirs(&layout) {
                    if !seen.contains(&d) && w.watch(&d, RecursiveMode::NonRecursive).is_ok() {
                        seen.insert(d);
                    }
                }
            });
            on_reload(report);
        };
        let watcher = Arc::new(Mutex::new(notify::recommended_watcher(handler)?));
        {
            let mut w = watcher.lock().unwrap_or_else(|p| p.into_inner());
            let mut seen = watched.lock().unwrap_or_else(|p| p.into_inner());
            for d in watch_dirs(&layout) {
                w.watch(&d, RecursiveMode::NonRecursive)?;
                seen.insert(d);
            }
        }
        *slot.lock().unwrap_or_else(|p| p.into_inner()) = Some(watcher.clone());
        Ok(SettingsWatcher { watcher })
    }

    /// Stops watching (also done on drop).
    pub fn stop(self) {
        drop(self.watcher);
    }
}
