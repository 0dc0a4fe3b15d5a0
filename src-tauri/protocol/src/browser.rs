//! The session browser (issue 11): the commands' arguments and results for
//! reviewing stored sessions — lists with filters (reusing
//! [`crate::session::ListSessionsArgs`]), full-text search (reusing
//! [`crate::session::SearchSessionsArgs`]), per-session statistics,
//! importing Claude Code transcripts with progress, exports and
//! housekeeping.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::session::StorageUsage;
use crate::transcript::{ClaudeTranscript, ImportFileReport};

/// The values the session list's filters can take: every project folder
/// and every model of the stored sessions, sorted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SessionFacets {
    /// Project folders of stored sessions.
    pub projects: Vec<String>,
    /// Model names of stored sessions (empty names left out).
    pub models: Vec<String>,
}

/// Calls and time of one tool within a session.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ToolStats {
    /// The tool name as the model wrote it.
    pub name: String,
    /// Calls made (`tool_queued`).
    pub calls: u64,
    /// Calls that ended with an error (refusals not counted).
    pub errors: u64,
    /// Calls refused (by a rule, a mode or the user).
    pub denials: u64,
    /// Wall time of the completed calls, summed (ms).
    pub total_ms: u64,
    /// The longest completed call (ms).
    pub max_ms: u64,
}

/// How a session's permission decisions went.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct DecisionBreakdown {
    /// Allowed by a rule, a mode or a hook without asking.
    pub allowed: u64,
    /// Asked the user (each ask is also counted in its answer below).
    pub asked: u64,
    /// Refused by a rule, a mode or a hook without asking.
    pub denied: u64,
    /// Asks the user allowed (once, for the session, or always).
    pub user_allowed: u64,
    /// Asks the user refused (an interrupt refuses too).
    pub user_denied: u64,
    /// Calls with no recorded decision (imports that carry none, calls
    /// rejected before the permission check).
    pub undecided: u64,
}

/// Tokens and time of one turn (one model request).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct TurnStats {
    /// The turn number within the session, from 1.
    pub turn: u32,
    /// Input tokens not read from or written to the cache.
    pub input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// Input tokens read from the prompt cache.
    pub cache_read_tokens: u64,
    /// Input tokens written to the prompt cache.
    pub cache_write_tokens: u64,
    /// Time from the request to the model's first output (text, thinking
    /// or the whole message), when the events show both.
    pub latency_ms: Option<u64>,
    /// Wall time of the whole turn (request, stream and tools), when known.
    pub duration_ms: Option<u64>,
    /// Tool calls the turn made.
    pub tool_calls: u64,
}

/// Statistics of one stored session, computed from its events.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SessionStats {
    /// The session.
    pub session_id: String,
    /// Per tool, most calls first (ties by name).
    pub tools: Vec<ToolStats>,
    /// Permission decisions.
    pub decisions: DecisionBreakdown,
    /// Per turn, in order.
    pub turns: Vec<TurnStats>,
}

/// A Claude Code transcript as the import panel lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct DiscoveredTranscript {
    /// The file and the session it imports into.
    #[serde(flatten)]
    #[ts(flatten)]
    pub transcript: ClaudeTranscript,
    /// Bytes of it imported already (`None`: never imported). Equal to
    /// its size when nothing new is there.
    pub imported_bytes: Option<u64>,
}

/// What `discover_claude_transcripts` found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ClaudeDiscovery {
    /// The folder searched (`<home>/.claude/projects`).
    pub root: String,
    /// The transcripts, sessions first then sub-agents.
    pub transcripts: Vec<DiscoveredTranscript>,
}

/// Arguments of `import_claude_transcripts`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ImportClaudeArgs {
    /// The files to import (paths from `discover_claude_transcripts`);
    /// `None` imports every transcript found.
    #[serde(default)]
    #[ts(optional)]
    pub paths: Option<Vec<String>>,
}

/// The result of importing one file: its report, or why it failed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ImportFileResult {
    /// The file.
    pub path: String,
    /// What was imported (with the skipped lines and their line numbers).
    pub report: Option<ImportFileReport>,
    /// Why the file could not be imported at all (I/O, a clashing id).
    pub error: Option<String>,
}

/// Arguments of `export_session`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ExportSessionArgs {
    /// The session.
    pub session_id: String,
    /// The file format.
    pub format: ExportFormat,
    /// Where to write; `None` asks the user with the save dialog.
    #[serde(default)]
    #[ts(optional)]
    pub path: Option<String>,
}

/// The formats a session can be exported in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ExportFormat {
    /// Gatehouse JSONL: one event per line, re-importable.
    Jsonl,
    /// One self-contained HTML page that renders offline.
    Html,
}

impl ExportFormat {
    /// The file extension (without the dot).
    pub fn extension(self) -> &'static str {
        match self {
            Self::Jsonl => "jsonl",
            Self::Html => "html",
        }
    }
}

/// A finished export.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ExportResult {
    /// The file written.
    pub path: String,
    /// Its size in bytes.
    #[ts(type = "number")]
    pub bytes: u64,
}

/// Arguments of `delete_sessions`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct DeleteSessionsArgs {
    /// The sessions to delete (their sub-agent sessions go with them).
    pub session_ids: Vec<String>,
}

/// Disk use and the retention setting, for the housekeeping panel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct StorageInfo {
    /// The database file and the files beside it.
    pub usage: StorageUsage,
    /// Sessions idle longer than this many days are deleted (`None`:
    /// kept forever).
    pub retention_days: Option<u32>,
}

/// Arguments of `set_retention`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SetRetentionArgs {
    /// Days to keep sessions after their last activity; `None` keeps them
    /// forever. 0 is refused.
    pub days: Option<u32>,
    /// Also delete now the sessions the new setting expires.
    #[serde(default)]
    #[ts(optional)]
    pub apply: Option<bool>,
}

/// The result of `set_retention`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RetentionResult {
    /// The setting now stored.
    pub retention_days: Option<u32>,
    /// Sessions deleted by applying it.
    pub deleted: Vec<String>,
}

/// What `vacuum_database` returns: the usage afterwards (the fields of
/// [`StorageUsage`], as before) and how the database was compacted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct VacuumResult {
    /// The database file and the files beside it, after compacting.
    #[serde(flatten)]
    #[ts(flatten)]
    pub usage: StorageUsage,
    /// How it was compacted.
    pub compaction: Compaction,
}

/// How a compaction went (`vacuum_database`, `gatehouse-cli sessions
/// vacuum`).
///
/// A database compacts in short steps, each its own write transaction, so
/// open sessions keep writing between them; a database created by an
/// earlier version needs one full rewrite first (see [`FullRewrite`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Compaction {
    /// The steps taken (search index merges, batches of free pages
    /// returned to the file system, or the one full rewrite).
    pub steps: u32,
    /// Bytes of free pages given back to the file system.
    pub freed_bytes: u64,
    /// Whether the write-ahead log was folded into the database and
    /// emptied; `false` when a session was reading or writing at that
    /// moment (it is folded in later, as sessions write).
    pub wal_truncated: bool,
    /// Whether it stopped early because it was asked to; what was done
    /// until then stays done.
    pub cancelled: bool,
    /// The one full rewrite a database of an earlier version needs.
    pub full_rewrite: FullRewrite,
}

/// The one full rewrite (`VACUUM`) that switches a database created by an
/// earlier version of Gatehouse to compaction in steps.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum FullRewrite {
    /// Not needed: the database already compacts in steps.
    NotNeeded,
    /// Done by this compaction: the database was rewritten whole and from
    /// now on compacts in steps.
    Done,
    /// Still needed, and put off because sessions are open: rewriting the
    /// whole file holds every write for its whole run (seconds for a large
    /// database), which would stall them. It runs when the database is
    /// compacted with no session open, or at the app's next start-up.
    /// Meanwhile the search index was compacted and no free space was
    /// given back.
    WaitingForOpenSessions {
        /// Sessions open at the time.
        open_sessions: u32,
    },
}

/// The Tauri event name [`StoredSessionsChanged`] is emitted on.
pub const STORED_SESSIONS_CHANNEL: &str = "gatehouse://stored-sessions-changed";

/// Sessions another process (or the app itself) wrote to since the last
/// such event: a guarded Claude Code's hooks and `gatehouse-cli run` write
/// the database from their own processes, and the session browser shows
/// their sessions growing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct StoredSessionsChanged {
    /// The sessions updated, latest first.
    pub session_ids: Vec<String>,
}

/// Arguments of `session_events_after`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SessionEventsAfterArgs {
    /// The stored session.
    pub session_id: String,
    /// The events stored after this position (`seq`, from 1) are returned:
    /// a reader passes how many it has read.
    #[ts(type = "number")]
    pub after_seq: u64,
}
