//! The change an Edit or Write would make, shown in the permission prompt
//! before the user decides. Computed only when cheap: a file over
//! [`MAX_PREVIEW_BYTES`], unreadable or not UTF-8 gets no preview, and an
//! Edit whose `old_string` is not in the file gets none either (the tool
//! itself will refuse it).

use std::path::Path;

use gatehouse_protocol::diff::FileDiff;
use serde_json::Value;

/// Files larger than this get no preview.
pub const MAX_PREVIEW_BYTES: u64 = 1024 * 1024;

/// The diff `tool_name` with `input` would produce, if it is an Edit or a
/// Write and the preview is cheap.
pub fn preview(tool_name: &str, input: &Value) -> Option<FileDiff> {
    let text = |key: &str| input.get(key).and_then(Value::as_str);
    let path = Path::new(text("file_path")?);
    let current = read_small(path)?;
    match tool_name {
        "Edit" => {
            let old = text("old_string")?;
            let new = text("new_string")?;
            let current = current?;
            if old.is_empty() || !current.contains(old) {
                return None;
            }
            let replace_all = input
                .get("replace_all")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            let changed = if replace_all {
                current.replace(old, new)
            } else {
                current.replacen(old, new, 1)
            };
            Some(gatehouse_tools::diff::file_diff(
                path, &current, &changed, false,
            ))
        }
        "Write" => {
            let content = text("content")?;
            let created = current.is_none();
            let old = current.unwrap_or_default();
            Some(gatehouse_tools::diff::file_diff(
                path, &old, content, created,
            ))
        }
        _ => None,
    }
}

/// `Some(None)`: the file does not exist; `Some(Some(text))`: its text;
/// `None`: no cheap preview (too big, unreadable, not UTF-8).
fn read_small(path: &Path) -> Option<Option<String>> {
    gatehouse_core::bounded_read::read_text(path, MAX_PREVIEW_BYTES).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn edits_and_writes_are_previewed_and_missing_or_huge_files_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.txt");
        std::fs::write(&file, "one\ntwo\nthree\n").unwrap();
        let edit = preview(
            "Edit",
            &json!({"file_path": file, "old_string": "two", "new_string": "TWO"}),
        )
        .unwrap();
        assert!(!edit.hunks.is_empty());
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            "one\ntwo\nthree\n",
            "a preview changes nothing"
        );
        assert!(
            preview(
                "Edit",
                &json!({"file_path": file, "old_string": "absent", "new_string": "x"})
            )
            .is_none()
        );
        let created = preview(
            "Write",
            &json!({"file_path": dir.path().join("new.txt"), "content": "hi\n"}),
        )
        .unwrap();
        assert!(created.created);
        let big = dir.path().join("big.txt");
        std::fs::write(&big, "x".repeat(MAX_PREVIEW_BYTES as usize + 1)).unwrap();
        assert!(preview("Write", &json!({"file_path": big, "content": "y"})).is_none());
        assert!(preview("Bash", &json!({"command": "ls"})).is_none());
    }
}
