//! "Always allow": adding a rule to the settings file the user picked,
//! keeping every other key and the file's formatting (the rule is inserted
//! as text, nothing is re-serialised), and writing atomically (a temporary
//! file in the same directory, then a rename).

use std::path::{Path, PathBuf};

use gatehouse_core::bounded_read::{ReadTextError, read_text};

use crate::rule::{RuleKind, parse_rule};
use crate::settings::{MAX_SETTINGS_FILE_BYTES, locate, parse_settings};

/// Why a rule could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteBackError {
    /// The rule does not parse.
    #[error("invalid rule: {0}")]
    InvalidRule(#[from] crate::rule::RuleParseError),
    /// The file is not valid settings; it is left untouched.
    #[error("{0}; the file was not changed")]
    Malformed(crate::settings::SettingsError),
    /// Reading or writing failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The failure.
        source: std::io::Error,
    },
    /// The edit did not produce the expected settings (a bug): nothing
    /// was written.
    #[error("internal error editing {0}: the result did not contain the rule; nothing was written")]
    Verification(PathBuf),
}

/// What happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteOutcome {
    /// The rule was added.
    Added,
    /// The list already had the rule; the file is unchanged.
    AlreadyPresent,
}

/// Adds `rule` to `permissions.<kind>` of the settings file at `path`,
/// creating the file (and its directory) if needed.
pub fn add_rule(path: &Path, kind: RuleKind, rule: &str) -> Result<WriteOutcome, WriteBackError> {
    parse_rule(rule)?;
    let io = |source| WriteBackError::Io {
        path: path.to_path_buf(),
        source,
    };
    let literal = serde_json::to_string(rule).map_err(|e| io(std::io::Error::other(e)))?;
    let key = kind.key();
    let read = match read_text(path, MAX_SETTINGS_FILE_BYTES) {
        Ok(Some(text)) => Ok(text),
        Ok(None) => Err(std::io::Error::from(std::io::ErrorKind::NotFound)),
        Err(ReadTextError::Io(e)) => Err(e),
        Err(other) => Err(std::io::Error::other(other.to_string())),
    };
    let new_text = match read {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).map_err(io)?;
            }
            format!(
                "{{\n  \"permissions\": {{\n    \"{key}\": [\n      {literal}\n    ]\n  }}\n}}\n"
            )
        }
        Err(e) => return Err(io(e)),
        Ok(text) => {
            let parsed = parse_settings(path, &text).map_err(WriteBackError::Malformed)?;
            if parsed
                .rules
                .iter()
                .any(|r| r.kind == kind && r.rule.text == rule)
            {
                return Ok(WriteOutcome::AlreadyPresent);
            }
            insert(&text, key, &literal)
                .ok_or_else(|| WriteBackError::Verification(path.to_path_buf()))?
        }
    };
    // Verify before writing: the new text must parse and hold the rule.
    let check = parse_settings(path, &new_text)
        .map_err(|_| WriteBackError::Verification(path.to_path_buf()))?;
    if !check
        .rules
        .iter()
        .any(|r| r.kind == kind && r.rule.text == rule)
    {
        return Err(WriteBackError::Verification(path.to_path_buf()));
    }
    write_atomically(path, &new_text).map_err(io)?;
    Ok(WriteOutcome::Added)
}

/// The indentation of the line `offset` is on.
pub fn indent_at(text: &str, offset: usize) -> &str {
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[line_start..];
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

/// Inserts `"<key>": <value>` as the first member of the object at
/// `[start, end)`, matching its layout.
pub fn insert_member(text: &str, start: usize, end: usize, member: &str) -> Option<String> {
    let open = start + 1;
    let inner = text.get(open..end.checked_sub(1)?)?;
    let first = inner.find(|c: char| !c.is_whitespace());
    let mut out = String::with_capacity(text.len() + member.len() + 8);
    out.push_str(&text[..open]);
    match first {
        None => {
            out.push_str(member);
            out.push_str(&text[open..]);
        }
        Some(i) => {
            let at = open + i;
            let leading = &text[open..at];
            if leading.contains('\n') {
                out.push_str(leading);
                out.push_str(member);
                out.push(',');
                out.push_str(&leading[leading.rfind('\n')?..]);
            } else {
                out.push_str(member);
                out.push_str(", ");
            }
            out.push_str(&text[at..]);
        }
    }
    Some(out)
}

/// Removes the member whose value spans `[value_start, value_end)` (key,
/// colon, value and one separating comma) from its object, keeping the
/// layout of the members around it: the inverse of [`insert_member`].
/// `None` when the text around the value is not a `"key": value` member.
pub fn remove_member(text: &str, value_start: usize, value_end: usize) -> Option<String> {
    let before = text.get(..value_start)?.trim_end();
    let before = before.strip_suffix(':')?.trim_end();
    let before = before.strip_suffix('"')?;
    // Keys Gatehouse removes are plain words; an escaped quote inside a
    // key is not one of them.
    let key_start = before.rfind('"')?;
    remove_item(text, key_start, value_end)
}

/// Removes the array element spanning `[start, end)` and one separating
/// comma, keeping the layout of the elements around it: the inverse of
/// [`append_element`].
pub fn remove_element(text: &str, start: usize, end: usize) -> Option<String> {
    remove_item(text, start, end)
}

/// Removes `[start, end)` (a member or an element) with one comma.
fn remove_item(text: &str, start: usize, end: usize) -> Option<String> {
    let after = text.get(end..)?;
    let next = after.find(|c: char| !c.is_whitespace())?;
    if after[next..].starts_with(',') {
        // Not the last: the next item moves to where this one began.
        let rest = &after[next + 1..];
        let token = rest.find(|c: char| !c.is_whitespace())?;
        let resume = end + next + 1 + token;
        return Some(format!("{}{}", text.get(..start)?, &text[resume..]));
    }
    let lead = text.get(..start)?.trim_end();
    if let Some(comma) = lead.strip_suffix(',') {
        return Some(format!("{}{}", comma, &text[end..]));
    }
    // The only item: keep the brackets and what follows it.
    (lead.ends_with('{') || lead.ends_with('[')).then(|| format!("{}{}", lead, &text[end..]))
}

/// Appends `literal` as the last element of the array at `list_path`,
/// matching its layout (one element per line, or all on one line).
pub fn append_element(text: &str, list_path: &[&str], literal: &str) -> Option<String> {
    let spans = locate::scan_depth(text, list_path.len() + 1);
    let list = spans.get(list_path)?;
    let item = |i: usize| {
        let mut path: Vec<String> = list_path.iter().map(|p| (*p).to_owned()).collect();
        path.push(i.to_string());
        let path: Vec<&str> = path.iter().map(String::as_str).collect();
        spans.get(&path).cloned()
    };
    let mut last = None;
    let mut i = 0usize;
    while let Some(found) = item(i) {
        last = Some(found);
        i += 1;
    }
    let mut out = String::with_capacity(text.len() + literal.len() + 8);
    match last {
        None => {
            // `[]` or `[ ]`: right after `[`.
            out.push_str(&text[..list.start + 1]);
            out.push_str(literal);
            out.push_str(&text[list.start + 1..]);
        }
        Some(last) => {
            let before_first = &text[list.start + 1..item(0)?.start];
            out.push_str(&text[..last.end]);
            out.push(',');
            if before_first.contains('\n') {
                out.push('\n');
                out.push_str(indent_at(text, last.start));
            } else {
                out.push(' ');
            }
            out.push_str(literal);
            out.push_str(&text[last.end..]);
        }
    }
    Some(out)
}

fn insert(text: &str, key: &str, literal: &str) -> Option<String> {
    let spans = locate::scan(text);
    if spans.get(&["permissions", key]).is_some() {
        return append_element(text, &["permissions", key], literal);
    }
    if let Some(perms) = spans.get(&["permissions"]) {
        return insert_member(
            text,
            perms.start,
            perms.end,
            &format!("\"{key}\": [{literal}]"),
        );
    }
    let root = spans.get(&[])?;
    insert_member(
        text,
        root.start,
        root.end,
        &format!("\"permissions\": {{\"{key}\": [{literal}]}}"),
    )
}

/// Writes `text` to the settings file at `path` atomically with the one
/// shared implementation ([`gatehouse_core::atomic_write`]): a symlinked
/// file is written at its target, a read-only file is refused, the file's
/// permissions are kept.
pub fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    use gatehouse_core::atomic_write::{AtomicWriteError, write_atomic};
    write_atomic(path, text.as_bytes(), false).map_err(|e| match e {
        AtomicWriteError::ReadOnly(_) => std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            "the settings file is read-only; make it writable to add rules to it",
        ),
        e => e.into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip(before: &str, kind: RuleKind, rule: &str) -> String {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        std::fs::write(&path, before).unwrap();
        assert_eq!(add_rule(&path, kind, rule).unwrap(), WriteOutcome::Added);
        std::fs::read_to_string(&path).unwrap()
    }

    #[test]
    fn appends_to_multiline_list_keeping_layout() {
        let before = "{\n  \"model\": \"x\",\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(ls)\"\n    ]\n  },\n  \"zeta\": 1\n}\n";
        let after = roundtrip(before, RuleKind::Allow, "Bash(npm test)");
        assert_eq!(
            after,
            "{\n  \"model\": \"x\",\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(ls)\",\n      \"Bash(npm test)\"\n    ]\n  },\n  \"zeta\": 1\n}\n"
        );
    }

    #[test]
    fn inline_list_empty_list_missing_list_missing_permissions() {
        assert_eq!(
            roundtrip(r#"{"permissions": {"allow": ["A"]}}"#, RuleKind::Allow, "B"),
            r#"{"permissions": {"allow": ["A", "B"]}}"#
        );
        assert_eq!(
            roundtrip(r#"{"permissions": {"allow": []}}"#, RuleKind::Allow, "B"),
            r#"{"permissions": {"allow": ["B"]}}"#
        );
        assert_eq!(
            roundtrip(r#"{"permissions": {"deny": ["A"]}}"#, RuleKind::Allow, "B"),
            r#"{"permissions": {"allow": ["B"], "deny": ["A"]}}"#
        );
        assert_eq!(
            roundtrip("{\n  \"env\": {}\n}\n", RuleKind::Ask, "B"),
            "{\n  \"permissions\": {\"ask\": [\"B\"]},\n  \"env\": {}\n}\n"
        );
        assert_eq!(
            roundtrip("{}", RuleKind::Allow, "B"),
            r#"{"permissions": {"allow": ["B"]}}"#
        );
    }

    #[test]
    fn escapes_creates_and_refuses_malformed() {
        let after = roundtrip(
            r#"{"permissions": {"allow": []}}"#,
            RuleKind::Allow,
            r#"Bash(echo "hi\there")"#,
        );
        assert!(after.contains(r#""Bash(echo \"hi\\there\")""#), "{after}");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("new/.claude/settings.json");
        add_rule(&path, RuleKind::Allow, "Read(src/**)").unwrap();
        assert_eq!(
            add_rule(&path, RuleKind::Allow, "Read(src/**)").unwrap(),
            WriteOutcome::AlreadyPresent
        );
        let bad = dir.path().join("bad.json");
        std::fs::write(&bad, "{oops").unwrap();
        assert!(matches!(
            add_rule(&bad, RuleKind::Allow, "Bash"),
            Err(WriteBackError::Malformed(_))
        ));
        assert_eq!(std::fs::read_to_string(&bad).unwrap(), "{oops");
        assert!(matches!(
            add_rule(&path, RuleKind::Allow, "Bash("),
            Err(WriteBackError::InvalidRule(_))
        ));
    }

    #[cfg(unix)]
    #[test]
    fn a_symlinked_settings_file_is_written_through_the_link() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("dotfiles/claude-settings.json");
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::write(&target, r#"{"permissions": {"allow": []}}"#).unwrap();
        let link = dir.path().join("home/.claude/settings.json");
        std::fs::create_dir_all(link.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(&target, &link).unwrap();
        add_rule(&link, RuleKind::Allow, "Bash(make)").unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink(),
            "the link was replaced by a file"
        );
        assert!(
            std::fs::read_to_string(&target)
                .unwrap()
                .contains("Bash(make)")
        );
    }

    #[test]
    fn a_read_only_settings_file_is_not_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        let before = r#"{"permissions": {"allow": []}}"#;
        std::fs::write(&path, before).unwrap();
        let mut perms = std::fs::metadata(&path).unwrap().permissions();
        perms.set_readonly(true);
        std::fs::set_permissions(&path, perms).unwrap();
        let err = add_rule(&path, RuleKind::Allow, "Bash(make)").unwrap_err();
        assert!(err.to_string().contains("read-only"), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), before);
    }

    fn without(text: &str, key: &str) -> String {
        let spans = locate::scan(text);
        let span = spans.get(&[key]).unwrap();
        remove_member(text, span.start, span.end).unwrap()
    }

    #[test]
    fn remove_member_undoes_insert_member_in_every_layout() {
        let first = "{\n  \"hooks\": {\"a\": 1},\n  \"model\": \"x\"\n}\n";
        assert_eq!(without(first, "hooks"), "{\n  \"model\": \"x\"\n}\n");
        let last = "{\n  \"model\": \"x\",\n  \"hooks\": {}\n}\n";
        assert_eq!(without(last, "hooks"), "{\n  \"model\": \"x\"\n}\n");
        let middle = r#"{"a": 1, "hooks": [1, 2], "b": 2}"#;
        assert_eq!(without(middle, "hooks"), r#"{"a": 1, "b": 2}"#);
        let only = "{\n  \"hooks\": {}\n}\n";
        assert_eq!(without(only, "hooks"), "{\n}\n");
        let spans = locate::scan(first);
        let span = spans.get(&["hooks"]).unwrap();
        let back = insert_member(
            &without(first, "hooks"),
            0,
            without(first, "hooks").trim_end().len(),
            &first[first.find('"').unwrap()..span.end],
        )
        .unwrap();
        assert_eq!(back, first);
    }
}
