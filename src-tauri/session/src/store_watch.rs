//! Noticing sessions written by other processes: a guarded Claude Code's
//! hooks and `gatehouse-cli run` write the database from processes of their
//! own, and the window's session browser shows those sessions growing.
//! SQLite's `data_version` tells, on this watcher's own connection, that
//! another connection committed; only then are the sessions updated since
//! the last look read.

use std::path::Path;

use gatehouse_store::{Store, StoreError};

/// At most this many sessions are named per change (the browser refreshes
/// its list anyway; a reader only cares about its own session).
const MAX_NAMED: u32 = 100;

/// A connection of its own that reports which sessions were updated since
/// it last looked.
pub struct StoreWatch {
    store: Store,
    version: i64,
    since_ms: i64,
}

impl StoreWatch {
    /// Opens its own connection to the database in `data_dir`; changes
    /// committed from now on are reported.
    pub fn open(data_dir: &Path) -> Result<Self, StoreError> {
        let store = Store::open(data_dir)?;
        let version = store.data_version()?;
        let since_ms = now_ms();
        Ok(Self {
            store,
            version,
            since_ms,
        })
    }

    /// The sessions updated since the last call (latest first), or `None`
    /// when nothing was committed meanwhile. A session updated in the same
    /// millisecond as the last one reported may be named again.
    pub fn poll(&mut self) -> Result<Option<Vec<String>>, StoreError> {
        let version = self.store.data_version()?;
        if version == self.version {
            return Ok(None);
        }
        self.version = version;
        let changed = self
            .store
            .sessions_updated_since(self.since_ms, MAX_NAMED)?;
        if let Some(latest) = changed.iter().map(|(_, at)| *at).max() {
            self.since_ms = latest;
        }
        Ok((!changed.is_empty()).then(|| changed.into_iter().map(|(id, _)| id).collect()))
    }
}

fn now_ms() -> i64 {
    i64::try_from(gatehouse_core::events::now_ms()).unwrap_or(i64::MAX)
}
