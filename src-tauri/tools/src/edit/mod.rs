//! `Edit`: exact string replacement in a file.
//!
//! Rules (SPEC §7, issue 5 item 3):
//! * `old_string` must occur exactly once unless `replace_all`; zero or
//!   several matches are refused with the line numbers of the matches;
//! * identical `old_string` and `new_string` are refused;
//! * when `old_string` is not found verbatim, typographic quotes are
//!   folded ([`quotes`]) and `new_string` is written in the file's style;
//! * the file's encoding (UTF-8 ± BOM, UTF-16LE) and line endings (LF,
//!   CRLF) are kept; the model works in `\n` text;
//! * files over 1 GiB are refused; `.ipynb` files go to NotebookEdit;
//! * stale-write protection: the file must have been read in this session
//!   and be unchanged since (mtime, and content when known);
//! * the write is atomic, the cache is updated after it (a second edit
//!   needs no re-read), and the result carries a structured diff.
//!
//! An empty `old_string` creates a file that does not exist (or fills an
//! empty one).

pub mod quotes;

use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;
use gatehouse_core::permission::PermissionSubject;
use gatehouse_core::tool::CallContext;
use gatehouse_core::{ToolError, ToolResult, ToolUseContext, TypedTool};
use gatehouse_protocol::diff::{DiffLineKind, FileDiff};
use gatehouse_protocol::event::ContentBlock;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::change;
use crate::encoding::{self, Encoding, LineEnding};
use crate::file_state::FileStateCache;
use crate::paths;
use crate::read::backfill_path;

/// The `Edit` tool.
#[derive(Debug, Clone)]
pub struct EditTool {
    state: Arc<FileStateCache>,
}

impl EditTool {
    /// An Edit tool checking against and recording into `state`.
    pub fn new(state: Arc<FileStateCache>) -> Self {
        Self { state }
    }
}

/// The input of `Edit`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditInput {
    /// The absolute path of the file to change.
    pub file_path: String,
    /// The exact text to replace (must occur exactly once unless
    /// `replace_all`).
    pub old_string: String,
    /// The text to put in its place (must differ from `old_string`).
    pub new_string: String,
    /// Replace every occurrence of `old_string` (default false).
    #[serde(default)]
    pub replace_all: bool,
}

/// What `Edit` returns.
#[derive(Debug, Clone, Serialize)]
pub struct EditOutput {
    /// The canonical path changed.
    pub file_path: String,
    /// How many occurrences were replaced.
    pub replacements: usize,
    /// Whether the match needed typographic-quote folding.
    pub quotes_normalized: bool,
    /// The file's encoding, kept.
    pub encoding: Encoding,
    /// The file's line endings, kept.
    pub line_ending: LineEnding,
    /// The change, for the UI.
    pub diff: FileDiff,
}

impl change::Changed for EditOutput {
    fn diff(&self) -> &FileDiff {
        &self.diff
    }
}

/// Why a replacement could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplaceError {
    /// `old_string` does not occur.
    #[error(
        "old_string was not found in {path}. Check whitespace and indentation, or Read the file again."
    )]
    NotFound {
        /// The file.
        path: String,
    },
    /// `old_string` occurs more than once and `replace_all` is off.
    #[error(
        "old_string occurs {count} times in {path} (at lines {lines}). Add surrounding context to make it unique, or set replace_all to replace every occurrence."
    )]
    Ambiguous {
        /// The file.
        path: String,
        /// Number of matches.
        count: usize,
        /// Their line numbers, comma-separated.
        lines: String,
    },
}

/// The result of a replacement in text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replaced {
    /// The new text.
    pub text: String,
    /// Occurrences replaced.
    pub count: usize,
    /// Whether quotes were folded to find them.
    pub quotes_normalized: bool,
}

fn line_of(text: &str, byte: usize) -> usize {
    text.as_bytes()[..byte]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// Replaces `old` by `new` in `text` (see the module docs for the rules).
pub fn replace(
    path: &Path,
    text: &str,
    old: &str,
    new: &str,
    replace_all: bool,
) -> Result<Replaced, ReplaceError> {
    let mut ranges: Vec<std::ops::Range<usize>> = text
        .match_indices(old)
        .map(|(i, m)| i..i + m.len())
        .collect();
    let mut quotes_normalized = false;
    if ranges.is_empty() {
        ranges = quotes::find_folded(text, old);
        quotes_normalized = !ranges.is_empty();
    }
    if ranges.is_empty() {
        return Err(ReplaceError::NotFound {
            path: path.display().to_string(),
        });
    }
    if ranges.len() > 1 && !replace_all {
        const SHOWN: usize = 20;
        let mut lines = ranges
            .iter()
            .take(SHOWN)
            .map(|r| line_of(text, r.start).to_string())
            .collect::<Vec<_>>()
            .join(", ");
        if ranges.len() > SHOWN {
            let _ = write!(lines, ", … ({} more)", ranges.len() - SHOWN);
        }
        return Err(ReplaceError::Ambiguous {
            path: path.display().to_string(),
            count: ranges.len(),
            lines,
        });
    }
    let mut out = String::with_capacity(text.len() + new.len());
    let mut last = 0;
    for r in &ranges {
        out.push_str(&text[last..r.start]);
        if quotes_normalized {
            out.push_str(&quotes::preserve_style(&text[r.clone()], new));
        } else {
            out.push_str(new);
        }
        last = r.end;
    }
    out.push_str(&text[last..]);
    Ok(Replaced {
        text: out,
        count: ranges.len(),
        quotes_normalized,
    })
}

const DESCRIPTION: &str = "Performs an exact string replacement in a file. `file_path` must be absolute. \
You must Read the file in this session before editing it, and it must not have changed since; \
otherwise the edit is refused and you must Read it again. `old_string` must match the file exactly \
(indentation included; do not include the line-number prefix Read shows) and occur exactly once, \
unless `replace_all` is set to replace every occurrence. `new_string` must differ from `old_string`. \
The file's encoding and line endings are kept. An empty `old_string` creates a new file. Use \
NotebookEdit for .ipynb files.";

fn is_notebook(path: &str) -> bool {
    Path::new(path)
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("ipynb"))
}

#[async_trait]
impl TypedTool for EditTool {
    type Input = EditInput;
    type Output = EditOutput;

    fn name(&self) -> &str {
        "Edit"
    }
    fn description(&self) -> &str {
        DESCRIPTION
    }
    fn search_hint(&self) -> Option<&str> {
        Some("modify file contents in place")
    }
    async fn validate_input(
        &self,
        input: &EditInput,
        ctx: &ToolUseContext,
    ) -> Result<(), ToolError> {
        paths::require_absolute("file_path", &input.file_path)?;
        // Everything that would make the edit fail is found now, before
        // hooks and the permission prompt (SPEC §3 stage 4): nobody is
        // asked about an edit that cannot work.
        change::validate(&self.state, ctx, "edit", input.clone(), |state, input| {
            plan_edit(state, input).map(drop)
        })
        .await
    }
    fn permission_subject(
        &self,
        input: &EditInput,
        _ctx: &ToolUseContext,
    ) -> Option<PermissionSubject> {
        change::write_subject(&input.file_path)
    }
    fn backfill_observable_input(&self, input: &mut serde_json::Value) {
        backfill_path(input, "file_path");
    }
    async fn call(
        &self,
        input: EditInput,
        cx: CallContext<'_>,
    ) -> Result<ToolResult<EditOutput>, ToolError> {
        change::run(&self.state, &cx, "edit", input, edit).await
    }
    fn map_result(&self, output: &EditOutput, _tool_use_id: &str) -> Vec<ContentBlock> {
        let mut text = format!(
            "The file {} has been updated ({} replacement{}; +{} −{} lines).",
            output.file_path,
            output.replacements,
            if output.replacements == 1 { "" } else { "s" },
            output.diff.additions,
            output.diff.deletions
        );
        let snippet = new_side_snippet(&output.diff, 40);
        if !snippet.is_empty() {
            text.push_str(" The edited region now reads (cat -n):\n");
            text.push_str(&snippet);
        }
        vec![ContentBlock::Text { text }]
    }
}

/// The new-file side of the diff's hunks, numbered like Read, at most
/// `max_lines` lines.
fn new_side_snippet(diff: &FileDiff, max_lines: usize) -> String {
    let mut out = String::new();
    let mut n = 0;
    for hunk in &diff.hunks {
        if n > 0 {
            out.push_str("     …\n");
        }
        for line in &hunk.lines {
            if line.kind == DiffLineKind::Removed {
                continue;
            }
            if n == max_lines {
                out.push_str("     …\n");
                return out;
            }
            if let Some(number) = line.new_line {
                let _ = writeln!(out, "{number:>6}\t{}", line.text);
                n += 1;
            }
        }
    }
    out
}

/// An edit worked out against the file as it is now, not yet written.
#[derive(Debug)]
pub struct PlannedEdit {
    path: std::path::PathBuf,
    /// The file's text before the edit; `None` when the edit creates it.
    old_text: Option<String>,
    new_text: String,
    bytes: Vec<u8>,
    replacements: usize,
    quotes_normalized: bool,
    encoding: Encoding,
    line_ending: LineEnding,
}

/// Works the edit out (blocking): load, check freshness, find and replace
/// `old_string`, encode. Every refusal the edit can meet before writing is
/// found here: the file was not read or changed since, `old_string` is
/// missing or not unique, the file cannot be decoded. Used by
/// `validate_input` (so such a call never reaches the permission prompt)
/// and again by the call itself, against the file as it is then.
pub fn plan_edit(state: &FileStateCache, input: &EditInput) -> Result<PlannedEdit, ToolError> {
    if input.old_string == input.new_string {
        return Err(ToolError::invalid(
            "old_string and new_string are identical: there is nothing to change",
        ));
    }
    if is_notebook(&input.file_path) {
        return Err(ToolError::invalid(format!(
            "{} is a Jupyter notebook; use the NotebookEdit tool to change its cells",
            input.file_path
        )));
    }
    let path = paths::resolve("file_path", &input.file_path)?;
    let Some(current) = change::load_fresh(state, &path, false)? else {
        if !input.old_string.is_empty() {
            return Err(ToolError::failed(format!(
                "{} does not exist (if it was read earlier, it has since been deleted). To create it, use an empty old_string or the Write tool.",
                path.display()
            )));
        }
        let bytes = encoding::encode(&input.new_string, Encoding::Utf8, LineEnding::Lf);
        return Ok(PlannedEdit {
            path,
            old_text: None,
            new_text: input.new_string.clone(),
            bytes,
            replacements: 1,
            quotes_normalized: false,
            encoding: Encoding::Utf8,
            line_ending: LineEnding::Lf,
        });
    };
    let file = encoding::decode(&current.bytes)
        .map_err(|e| ToolError::failed(format!("cannot edit {}: {e}", path.display())))?;
    let new_input = input.new_string.replace("\r\n", "\n");
    let replaced = if input.old_string.is_empty() {
        if !file.text.is_empty() {
            return Err(ToolError::failed(format!(
                "old_string is empty but {} is not: give the text to replace, or use Write to replace the whole file",
                path.display()
            )));
        }
        Replaced {
            text: new_input,
            count: 1,
            quotes_normalized: false,
        }
    } else {
        let old = input.old_string.replace("\r\n", "\n");
        replace(&path, &file.text, &old, &new_input, input.replace_all)
            .map_err(|e| ToolError::failed(e.to_string()))?
    };
    if replaced.text == file.text {
        return Err(ToolError::failed(format!(
            "the edit would leave {} unchanged",
            path.display()
        )));
    }
    let bytes = encoding::encode(&replaced.text, file.encoding, file.line_ending);
    Ok(PlannedEdit {
        path,
        old_text: Some(file.text),
        new_text: replaced.text,
        bytes,
        replacements: replaced.count,
        quotes_normalized: replaced.quotes_normalized,
        encoding: file.encoding,
        line_ending: file.line_ending,
    })
}

/// Does the edit (blocking): [`plan_edit`] against the file as it is now,
/// then the atomic write.
pub fn edit(state: &FileStateCache, input: &EditInput) -> Result<EditOutput, ToolError> {
    let planned = plan_edit(state, input)?;
    let diff = change::commit(
        state,
        &planned.path,
        planned.old_text.as_deref(),
        &planned.new_text,
        &planned.bytes,
    )?;
    Ok(EditOutput {
        file_path: planned.path.display().to_string(),
        replacements: planned.replacements,
        quotes_normalized: planned.quotes_normalized,
        encoding: planned.encoding,
        line_ending: planned.line_ending,
        diff,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unique_ambiguous_and_missing() {
        let p = Path::new("/f");
        let text = "a\nfoo\nb\nfoo\n";
        let e = replace(p, text, "foo", "bar", false).unwrap_err();
        assert_eq!(
            e,
            ReplaceError::Ambiguous {
                path: "/f".into(),
                count: 2,
                lines: "2, 4".into()
            }
        );
        assert!(e.to_string().contains("at lines 2, 4"));
        let all = replace(p, text, "foo", "bar", true).unwrap();
        assert_eq!((all.text.as_str(), all.count), ("a\nbar\nb\nbar\n", 2));
        let one = replace(p, text, "a\nfoo", "x", false).unwrap();
        assert_eq!(one.text, "x\nb\nfoo\n");
        assert!(matches!(
            replace(p, text, "zzz", "y", false),
            Err(ReplaceError::NotFound { .. })
        ));
    }

    #[test]
    fn curly_quotes_are_matched_and_kept() {
        let text = "msg = “Hello, world” // it’s fine\n";
        let r = replace(
            Path::new("/f"),
            text,
            "\"Hello, world\"",
            "\"Goodbye\"",
            false,
        )
        .unwrap();
        assert!(r.quotes_normalized);
        assert_eq!(r.text, "msg = “Goodbye” // it’s fine\n");
    }
}
