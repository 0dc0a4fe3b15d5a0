//! Structured diffs of file changes (Write, Edit, NotebookEdit results), as
//! the UI renders them: hunks of context, removed and added lines, each with
//! its line numbers in the old and the new file.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// What a file-changing call did to one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct FileDiff {
    /// The file's absolute (canonical) path.
    pub path: String,
    /// Whether the file was created (it did not exist before).
    pub created: bool,
    /// The changed regions, in file order, with up to three lines of
    /// context around each change.
    pub hunks: Vec<DiffHunk>,
    /// Lines added in total.
    pub additions: u32,
    /// Lines removed in total.
    pub deletions: u32,
}

/// One changed region, like a unified diff's `@@ -a,b +c,d @@` hunk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct DiffHunk {
    /// First line of the hunk in the old file (1-based; 0 when the old
    /// side is empty).
    pub old_start: u32,
    /// Number of old-file lines in the hunk.
    pub old_lines: u32,
    /// First line of the hunk in the new file (1-based; 0 when the new
    /// side is empty).
    pub new_start: u32,
    /// Number of new-file lines in the hunk.
    pub new_lines: u32,
    /// The lines, in order.
    pub lines: Vec<DiffLine>,
}

/// One line of a hunk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct DiffLine {
    /// Context, removed or added.
    pub kind: DiffLineKind,
    /// Its line number in the old file (absent for added lines).
    pub old_line: Option<u32>,
    /// Its line number in the new file (absent for removed lines).
    pub new_line: Option<u32>,
    /// The text, without its line terminator.
    pub text: String,
}

/// The role of a line in a hunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum DiffLineKind {
    /// Unchanged, shown for orientation.
    Context,
    /// Present only in the old file.
    Removed,
    /// Present only in the new file.
    Added,
}
