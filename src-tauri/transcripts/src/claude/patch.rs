//! Claude Code's `structuredPatch` (Edit, MultiEdit, Write of an existing
//! file) or a created file's `content` (Write), in a result's
//! `toolUseResult`, as a Gatehouse diff.

use gatehouse_protocol::diff::{DiffHunk, DiffLine, DiffLineKind, FileDiff};
use serde_json::Value;

fn str_field<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

fn u32_field(v: &Value, key: &str) -> u32 {
    v.get(key)
        .and_then(Value::as_u64)
        .map_or(0, |n| u32::try_from(n).unwrap_or(u32::MAX))
}

/// Claude Code's `structuredPatch` (Edit, MultiEdit, Write of an existing
/// file) or a created file's `content` (Write) as a Gatehouse diff.
pub(crate) fn file_diff(detail: &Value) -> Option<FileDiff> {
    let path = str_field(detail, "filePath")?.to_owned();
    let patch = detail.get("structuredPatch")?.as_array()?;
    let created = str_field(detail, "type") == Some("create");
    let mut hunks: Vec<DiffHunk> = patch
        .iter()
        .map(|h| {
            let (mut old, mut new) = (u32_field(h, "oldStart"), u32_field(h, "newStart"));
            let lines = h
                .get("lines")
                .and_then(Value::as_array)
                .map(|lines| {
                    lines
                        .iter()
                        .filter_map(Value::as_str)
                        .filter_map(|l| {
                            let (kind, text) = match l.chars().next() {
                                Some('+') => (DiffLineKind::Added, &l[1..]),
                                Some('-') => (DiffLineKind::Removed, &l[1..]),
                                Some(' ') => (DiffLineKind::Context, &l[1..]),
                                // "\ No newline at end of file" and the like.
                                Some('\\') => return None,
                                _ => (DiffLineKind::Context, l),
                            };
                            let (old_line, new_line) = match kind {
                                DiffLineKind::Added => (None, Some(new)),
                                DiffLineKind::Removed => (Some(old), None),
                                DiffLineKind::Context => (Some(old), Some(new)),
                            };
                            if old_line.is_some() {
                                old += 1;
                            }
                            if new_line.is_some() {
                                new += 1;
                            }
                            Some(DiffLine {
                                kind,
                                old_line,
                                new_line,
                                text: text.to_owned(),
                            })
                        })
                        .collect()
                })
                .unwrap_or_default();
            DiffHunk {
                old_start: u32_field(h, "oldStart"),
                old_lines: u32_field(h, "oldLines"),
                new_start: u32_field(h, "newStart"),
                new_lines: u32_field(h, "newLines"),
                lines,
            }
        })
        .collect();
    if created
        && hunks.is_empty()
        && let Some(content) = str_field(detail, "content")
    {
        let lines: Vec<DiffLine> = content
            .lines()
            .enumerate()
            .map(|(i, text)| DiffLine {
                kind: DiffLineKind::Added,
                old_line: None,
                new_line: Some(u32::try_from(i + 1).unwrap_or(u32::MAX)),
                text: text.to_owned(),
            })
            .collect();
        if !lines.is_empty() {
            hunks.push(DiffHunk {
                old_start: 0,
                old_lines: 0,
                new_start: 1,
                new_lines: u32::try_from(lines.len()).unwrap_or(u32::MAX),
                lines,
            });
        }
    }
    let count = |kind| {
        let n = hunks
            .iter()
            .flat_map(|h| &h.lines)
            .filter(|l| l.kind == kind)
            .count();
        u32::try_from(n).unwrap_or(u32::MAX)
    };
    Some(FileDiff {
        additions: count(DiffLineKind::Added),
        deletions: count(DiffLineKind::Removed),
        path,
        created,
        hunks,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn structured_patches_become_numbered_diffs() {
        let diff = file_diff(&json!({
            "filePath": "/p/a.txt",
            "structuredPatch": [{"oldStart": 3, "oldLines": 3, "newStart": 3, "newLines": 3,
                "lines": [" keep", "-old", "+new", " tail", "\\ No newline at end of file"]}]
        }))
        .unwrap();
        assert_eq!(
            (diff.additions, diff.deletions, diff.created),
            (1, 1, false)
        );
        let nums: Vec<_> = diff.hunks[0]
            .lines
            .iter()
            .map(|l| (l.kind, l.old_line, l.new_line, l.text.as_str()))
            .collect();
        assert_eq!(
            nums,
            [
                (DiffLineKind::Context, Some(3), Some(3), "keep"),
                (DiffLineKind::Removed, Some(4), None, "old"),
                (DiffLineKind::Added, None, Some(4), "new"),
                (DiffLineKind::Context, Some(5), Some(5), "tail"),
            ]
        );
        let created = file_diff(&json!({
            "type": "create", "filePath": "/p/n.txt", "content": "a\nb\n", "structuredPatch": []
        }))
        .unwrap();
        assert_eq!((created.additions, created.created), (2, true));
        assert!(file_diff(&json!({"stdout": "x"})).is_none());
    }
}
