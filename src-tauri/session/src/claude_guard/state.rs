//! The guard's small state file in the data directory
//! (`claude-code-guard.json`): the settings files Gatehouse installed its
//! entries in, and the last hook call (event, time, Claude Code version).
//! Not in SQLite: the hook process writes it on every call and needs no
//! migration to do so; losing it loses only what `status` shows.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// File name of the state file in the data directory.
pub const STATE_FILE: &str = "claude-code-guard.json";

/// The largest state file read (it holds a few paths).
const MAX_STATE_BYTES: u64 = 256 * 1024;

/// How much of a transcript's end is read to find Claude Code's version.
const VERSION_TAIL_BYTES: u64 = 64 * 1024;

pub use gatehouse_protocol::claude_code::LastCall;

/// What the state file holds.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GuardState {
    /// Settings files `guard` wrote entries into (removed by `guard --off`).
    #[serde(default)]
    pub installs: Vec<String>,
    /// The last call.
    #[serde(default)]
    pub last_call: Option<LastCall>,
}

/// The state file of the data directory `data_dir`.
pub fn state_path(data_dir: &Path) -> PathBuf {
    data_dir.join(STATE_FILE)
}

/// Reads the state; a missing, oversized or unreadable file reads as empty
/// (it only feeds `status`), with the problem returned for the log.
pub fn read_state(data_dir: &Path) -> (GuardState, Option<String>) {
    let path = state_path(data_dir);
    let read = std::fs::File::open(&path).and_then(|f| {
        let mut text = String::new();
        f.take(MAX_STATE_BYTES).read_to_string(&mut text)?;
        Ok(text)
    });
    match read {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (GuardState::default(), None),
        Err(e) => (
            GuardState::default(),
            Some(format!("{}: {e}", path.display())),
        ),
        Ok(text) => match serde_json::from_str(&text) {
            Ok(state) => (state, None),
            Err(e) => (
                GuardState::default(),
                Some(format!("{}: not the guard's state ({e})", path.display())),
            ),
        },
    }
}

/// Writes the state atomically (owner-only folder creation is the data
/// directory's own).
pub fn write_state(data_dir: &Path, state: &GuardState) -> std::io::Result<()> {
    let text = serde_json::to_string_pretty(state).map_err(std::io::Error::other)?;
    gatehouse_core::atomic_write::write_atomic(&state_path(data_dir), text.as_bytes(), true)
        .map_err(Into::into)
}

/// Applies `change` to the stored state and writes it back.
pub fn update_state(data_dir: &Path, change: impl FnOnce(&mut GuardState)) -> std::io::Result<()> {
    let (mut state, _) = read_state(data_dir);
    change(&mut state);
    write_state(data_dir, &state)
}

/// Claude Code's version as its transcript at `path` last recorded it (the
/// `version` of the last entry that has one, within the file's last
/// 64 KiB); `None` when there is none.
pub fn claude_code_version(path: &Path) -> Option<String> {
    let mut file = std::fs::File::open(path).ok()?;
    let len = file.metadata().ok()?.len();
    let start = len.saturating_sub(VERSION_TAIL_BYTES);
    file.seek(SeekFrom::Start(start)).ok()?;
    let mut bytes = Vec::new();
    file.take(VERSION_TAIL_BYTES).read_to_end(&mut bytes).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    text.lines().rev().find_map(|line| {
        let entry: serde_json::Value = serde_json::from_str(line).ok()?;
        let version = entry.get("version")?.as_str()?;
        // A version is short and plain; anything else is not one.
        (version.len() <= 40
            && version
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+')))
        .then(|| version.to_owned())
    })
}
