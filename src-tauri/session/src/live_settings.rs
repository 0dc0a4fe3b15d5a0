//! Keeping an open session's permission engine in step with its settings
//! files (issue 16 item 8).
//!
//! Each open session watches the folders of its settings files
//! ([`SettingsWatcher`], coalescing an editor's burst of events) and reloads
//! on change; the host also reloads its open sessions at once after the app
//! itself saved rules ([`crate::SessionHost::reload_settings`]),
//! so a save takes effect without waiting for the watcher. A reload whose
//! files would lose restrictions (a malformed file, an unparseable deny
//! rule) keeps the previous rules in force ([`watch::apply`]). Every reload
//! that read something new reports a typed `settings_reloaded` event in the
//! session; reading the same settings again reports nothing, so the watcher
//! seeing the app's own save does not report it twice.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};

use gatehouse_core::events::Emitter;
use gatehouse_permissions::PermissionEngine;
use gatehouse_permissions::sources::{LoadedSettings, SettingsLayout, load};
use gatehouse_permissions::watch::{self, SettingsWatcher};
use gatehouse_protocol::event::{EventBody, SettingsProblem, SettingsReloadTrigger};

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A poisoned lock only means a panic elsewhere; the data is still whole.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Told on every reload with its trigger (see [`LiveSettings::on_reload`]).
pub(crate) type ReloadHook = Box<dyn Fn(SettingsReloadTrigger) + Send + Sync>;

/// One open session's settings: where they come from, what was last read,
/// and the watcher.
pub(crate) struct LiveSettings {
    engine: Arc<PermissionEngine>,
    layout: SettingsLayout,
    emitter: Emitter,
    /// The settings last read from the files (in force, or kept out).
    last_read: Mutex<LoadedSettings>,
    watcher: Mutex<Option<SettingsWatcher>>,
    reloads: AtomicU64,
    kept_previous: AtomicU64,
    /// Told on every reload, whatever the rules say (the session's hooks
    /// and its sandbox are read from the same files; see
    /// [`Self::on_reload`]).
    on_reload: Mutex<Vec<ReloadHook>>,
}

impl std::fmt::Debug for LiveSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveSettings")
            .field("layout", &self.layout)
            .field("watching", &self.is_watching())
            .finish_non_exhaustive()
    }
}

/// A settings error as the protocol carries it.
fn problem(e: &gatehouse_permissions::settings::SettingsError) -> SettingsProblem {
    SettingsProblem {
        file: e.file.display().to_string(),
        line: u32::try_from(e.line).unwrap_or(u32::MAX),
        column: u32::try_from(e.column).unwrap_or(u32::MAX),
        message: e.cause.clone(),
        loses_restrictions: e.loses_restrictions,
    }
}

impl LiveSettings {
    /// Starts watching `layout` for `engine` (whose settings were loaded
    /// from it). A watcher that cannot start is a warning for the session:
    /// file changes then do not reach it, saves in the app still do.
    pub(crate) fn start(
        engine: Arc<PermissionEngine>,
        layout: SettingsLayout,
        emitter: Emitter,
        warnings: &mut Vec<String>,
    ) -> Arc<Self> {
        let live = Arc::new(Self {
            last_read: Mutex::new(engine.settings()),
            engine,
            layout: layout.clone(),
            emitter,
            watcher: Mutex::new(None),
            reloads: AtomicU64::new(0),
            kept_previous: AtomicU64::new(0),
            on_reload: Mutex::new(Vec::new()),
        });
        // Weak: the watcher lives inside `live`, and must not keep it alive.
        let weak: Weak<Self> = Arc::downgrade(&live);
        match SettingsWatcher::on_change(layout, move || {
            if let Some(live) = weak.upgrade() {
                live.reload(SettingsReloadTrigger::FileChanged);
            }
        }) {
            Ok(w) => *lock(&live.watcher) = Some(w),
            Err(e) => warnings.push(format!(
                "settings files are not watched ({e}): rules edited outside the app reach this session only when it is opened again"
            )),
        }
        live
    }

    /// Reads the settings files again (blocking: a few small files) and,
    /// when they say something new, puts them in force (unless they would
    /// lose restrictions) and emits `settings_reloaded`. Returns whether
    /// anything new was read.
    pub(crate) fn reload(&self, trigger: SettingsReloadTrigger) -> bool {
        for hook in lock(&self.on_reload).iter() {
            hook(trigger);
        }
        let fresh = load(&self.layout);
        let mut last = lock(&self.last_read);
        if *last == fresh {
            return false;
        }
        *last = fresh.clone();
        let report = watch::apply(&self.engine, fresh);
        drop(last);
        self.reloads.fetch_add(1, Ordering::SeqCst);
        if !report.applied {
            self.kept_previous.fetch_add(1, Ordering::SeqCst);
        }
        self.emitter.emit(EventBody::SettingsReloaded {
            applied: report.applied,
            trigger,
            problems: report.errors.iter().map(problem).collect(),
        });
        true
    }

    /// Runs `f` on every reload, before the rules are compared (the hooks
    /// and the `sandbox` key of the same files may change while the rules
    /// do not). Each call adds one; they run in the order added.
    pub(crate) fn on_reload(&self, f: ReloadHook) {
        lock(&self.on_reload).push(f);
    }

    /// Whether the watcher runs.
    pub(crate) fn is_watching(&self) -> bool {
        lock(&self.watcher).is_some()
    }

    /// (reloads, of which kept the previous rules).
    pub(crate) fn counts(&self) -> (u64, u64) {
        (
            self.reloads.load(Ordering::SeqCst),
            self.kept_previous.load(Ordering::SeqCst),
        )
    }

    /// Stops watching (the session closes).
    pub(crate) fn stop(&self) {
        if let Some(w) = lock(&self.watcher).take() {
            w.stop();
        }
    }
}
