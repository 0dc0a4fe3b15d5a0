//! Structured diffs for the UI: hunks with line numbers, computed with the
//! `similar` crate (Myers' algorithm, line granularity, 3 lines of context).
//! The shape is `gatehouse_protocol::diff::FileDiff`.

use std::path::Path;
use std::time::Duration;

use gatehouse_protocol::diff::{DiffHunk, DiffLine, DiffLineKind, FileDiff};
use similar::{ChangeTag, TextDiff};

/// Lines of context around each change.
pub const CONTEXT_LINES: usize = 3;

/// Past this, `similar` gives up on a minimal diff and returns a correct
/// but coarser one (huge rewrites must not stall a call).
const DIFF_DEADLINE: Duration = Duration::from_secs(2);

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The structured diff from `old` to `new` (both `\n`-terminated text) of
/// the file at `path`; `created` when the file did not exist before.
pub fn file_diff(path: &Path, old: &str, new: &str, created: bool) -> FileDiff {
    let diff = TextDiff::configure()
        .timeout(DIFF_DEADLINE)
        .diff_lines(old, new);
    let mut hunks = Vec::new();
    let (mut additions, mut deletions) = (0_u32, 0_u32);
    for group in diff.grouped_ops(CONTEXT_LINES) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        let old_range = first.old_range().start..last.old_range().end;
        let new_range = first.new_range().start..last.new_range().end;
        let mut lines = Vec::new();
        for op in &group {
            for change in diff.iter_changes(op) {
                let kind = match change.tag() {
                    ChangeTag::Equal => DiffLineKind::Context,
                    ChangeTag::Delete => {
                        deletions += 1;
                        DiffLineKind::Removed
                    }
                    ChangeTag::Insert => {
                        additions += 1;
                        DiffLineKind::Added
                    }
                };
                let text = change.value();
                let text = text.strip_suffix('\n').unwrap_or(text);
                lines.push(DiffLine {
                    kind,
                    old_line: change.old_index().map(|i| to_u32(i + 1)),
                    new_line: change.new_index().map(|i| to_u32(i + 1)),
                    text: text.to_owned(),
                });
            }
        }
        let start = |range: &std::ops::Range<usize>| {
            if range.is_empty() {
                to_u32(range.start)
            } else {
                to_u32(range.start + 1)
            }
        };
        hunks.push(DiffHunk {
            old_start: start(&old_range),
            old_lines: to_u32(old_range.len()),
            new_start: start(&new_range),
            new_lines: to_u32(new_range.len()),
            lines,
        });
    }
    FileDiff {
        path: path.display().to_string(),
        created,
        hunks,
        additions,
        deletions,
    }
}

/// Streams a diff to the UI as a `tool_progress` event of kind `file_diff`.
pub fn report(progress: &gatehouse_core::tool::ProgressReporter, diff: &FileDiff) {
    progress.report(gatehouse_protocol::progress::ToolProgressData::file_diff(
        diff.clone(),
    ));
}

/// Renders a diff as unified-diff text (`@@ -a,b +c,d @@`, ` `/`-`/`+`).
pub fn unified(diff: &FileDiff) -> String {
    let mut out = String::new();
    for hunk in &diff.hunks {
        out.push_str(&format!(
            "@@ -{},{} +{},{} @@\n",
            hunk.old_start, hunk.old_lines, hunk.new_start, hunk.new_lines
        ));
        for line in &hunk.lines {
            out.push(match line.kind {
                DiffLineKind::Context => ' ',
                DiffLineKind::Removed => '-',
                DiffLineKind::Added => '+',
            });
            out.push_str(&line.text);
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hunks_carry_line_numbers() {
        let old: String = (1..=20).map(|i| format!("line {i}\n")).collect();
        let new = old.replace("line 10\n", "line ten\nline 10.5\n");
        let d = file_diff(Path::new("/x"), &old, &new, false);
        assert_eq!((d.additions, d.deletions), (2, 1));
        assert_eq!(d.hunks.len(), 1);
        let h = &d.hunks[0];
        assert_eq!(
            (h.old_start, h.old_lines, h.new_start, h.new_lines),
            (7, 7, 7, 8)
        );
        let removed = h
            .lines
            .iter()
            .find(|l| l.kind == DiffLineKind::Removed)
            .unwrap();
        assert_eq!((removed.old_line, removed.new_line), (Some(10), None));
        assert_eq!(removed.text, "line 10");
        let added: Vec<_> = h
            .lines
            .iter()
            .filter(|l| l.kind == DiffLineKind::Added)
            .collect();
        assert_eq!(added[1].new_line, Some(11));
        assert!(unified(&d).starts_with("@@ -7,7 +7,8 @@\n line 7\n"));
    }

    #[test]
    fn a_new_file_is_one_hunk_of_additions() {
        let d = file_diff(Path::new("/n"), "", "a\nb\n", true);
        assert!(d.created);
        assert_eq!(d.hunks[0].old_start, 0);
        assert_eq!((d.hunks[0].new_start, d.hunks[0].new_lines), (1, 2));
        assert_eq!(d.additions, 2);
    }
}
