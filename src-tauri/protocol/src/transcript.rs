//! Importing and exporting transcripts (issue 11): what an import of Claude
//! Code transcripts or of a Gatehouse JSONL export finds, reports and
//! streams as progress. `gatehouse-cli sessions import-claude` / `import`
//! print these as JSON; the session browser shows them.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// A Claude Code transcript found under `~/.claude/projects`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ClaudeTranscript {
    /// The file.
    pub path: String,
    /// The project folder's name under `projects/` (Claude Code's encoding
    /// of the project path).
    pub project_dir: String,
    /// The Gatehouse session id it imports into: `cc-<file stem>`, or
    /// `cc-<session>-<agent file stem>` for a sub-agent.
    pub session_id: String,
    /// For a sub-agent transcript, the session id of its parent.
    pub parent_session_id: Option<String>,
    /// Its size in bytes.
    pub size_bytes: u64,
}

/// A line of a transcript that could not be imported (it was skipped).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct LineProblem {
    /// The file.
    pub path: String,
    /// Its line number (from 1).
    pub line: u64,
    /// What was wrong.
    pub message: String,
}

/// What an import did with one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ImportOutcome {
    /// First import.
    Imported,
    /// New lines were added to an earlier import.
    Updated,
    /// Nothing new since the last import.
    Unchanged,
    /// The file was replaced (it shrank or its start changed): the old
    /// import was deleted and the file imported afresh.
    Reimported,
    /// Nothing imported: the file is a guarded Claude Code session's
    /// transcript, which the app follows live into that session (its
    /// `session_id`); importing it too would store the session twice.
    FollowedLive,
}

/// The result of importing one Claude Code transcript.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ImportFileReport {
    /// The file.
    pub path: String,
    /// The session it went into.
    pub session_id: String,
    /// What happened.
    pub outcome: ImportOutcome,
    /// Lines read this time.
    pub lines: u64,
    /// Events stored this time.
    pub events: u64,
    /// Lines skipped because they were malformed or too long (the first
    /// 100 are listed in `problems`).
    pub skipped_lines: u64,
    /// The skipped lines, with why.
    pub problems: Vec<LineProblem>,
}

/// Progress of an import, reported after every batch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ImportProgress {
    /// The file being read.
    pub path: String,
    /// Files finished so far.
    pub files_done: u64,
    /// Files to import.
    pub files_total: u64,
    /// Bytes read so far, over all files.
    pub bytes_done: u64,
    /// Bytes to read, over all files (their sizes when the import began).
    pub bytes_total: u64,
}

/// The result of importing a Gatehouse JSONL export.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct JsonlImportReport {
    /// The file.
    pub path: String,
    /// The session created.
    pub session_id: String,
    /// Events stored.
    pub events: u64,
    /// Lines skipped (listed in `problems`, the first 100).
    pub skipped_lines: u64,
    /// The skipped lines, with why.
    pub problems: Vec<LineProblem>,
}
