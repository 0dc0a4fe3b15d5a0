//! The guard's small state files in the data directory:
//! `claude-code-guard.json`, the settings files Gatehouse installed its
//! entries in (written durably, by `guard`), and
//! `claude-code-last-call.json`, the last hook call (event, time, Claude
//! Code version), which every hook call replaces. Not in SQLite: no
//! migration is needed to write them. The last call is replaced atomically
//! but not fsynced (it is on the hook's hot path; a power loss can lose it,
//! and losing it loses only what `status` shows).

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// File name of the state file in the data directory.
pub const STATE_FILE: &str = "claude-code-guard.json";

/// File name of the last hook call in the data directory.
pub const LAST_CALL_FILE: &str = "claude-code-last-call.json";

/// The largest last-call file read.
const MAX_LAST_CALL_BYTES: u64 = 16 * 1024;

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
    /// The last call, as builds before [`LAST_CALL_FILE`] stored it (read
    /// when that file is missing; no longer written).
    #[serde(default, skip_serializing_if = "Option::is_none")]
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

/// Replaces the last call in `data_dir` (temp file and rename: readers see
/// the old or the new one, never half of one; not fsynced, see the module
/// documentation).
pub fn write_last_call(data_dir: &Path, call: &LastCall) -> std::io::Result<()> {
    let text = serde_json::to_vec(call).map_err(std::io::Error::other)?;
    let path = data_dir.join(LAST_CALL_FILE);
    // One temp file per process: parallel hook calls never share one.
    let tmp = data_dir.join(format!("{LAST_CALL_FILE}.{}.tmp", std::process::id()));
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, &path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

/// The last call in `data_dir`, else the one an older build kept in the
/// state file; a missing or unreadable file reads as none.
pub fn read_last_call(data_dir: &Path, state: &GuardState) -> Option<LastCall> {
    let mut text = String::new();
    std::fs::File::open(data_dir.join(LAST_CALL_FILE))
        .and_then(|f| f.take(MAX_LAST_CALL_BYTES).read_to_string(&mut text))
        .ok()
        .and_then(|_| serde_json::from_str(&text).ok())
        .or_else(|| state.last_call.clone())
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
