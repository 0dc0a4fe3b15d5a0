//! The YAML front matter of Claude Code's agent files, read as the flat
//! subset those files use: `key: value` (plain, `"double"` or `'single'`
//! quoted), flow lists (`[a, b]`), block lists (`key:` then `- item` lines),
//! block scalars (`|` / `>`), `#` comments. Every value keeps the line it
//! came from, so a problem is reported as file and line.
//!
//! Why not a YAML crate: none is in the workspace (serde_yaml is
//! unmaintained), the files are flat, and errors must carry the line of the
//! offending key, which a hand parser of ~150 lines gives directly. Nested
//! mappings (Claude Code's `hooks:` key) are skipped whole, with their lines.

/// One front matter value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FmValue {
    /// A scalar (quotes removed).
    Scalar(String),
    /// A list (flow or block).
    List(Vec<String>),
    /// A nested mapping or anything else this subset does not read.
    Nested,
}

/// One `key: value` entry and the 1-based line of its key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FmEntry {
    /// The key.
    pub key: String,
    /// The value.
    pub value: FmValue,
    /// The line of the key in the file.
    pub line: usize,
}

/// A parse error at a 1-based line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FmError {
    /// The line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// Splits `text` into its front matter entries and the body after the
/// closing `---` (and the body's first line number).
pub fn split(text: &str) -> Result<(Vec<FmEntry>, String, usize), FmError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let lines: Vec<&str> = text.lines().collect();
    if lines.first().map(|l| l.trim_end()) != Some("---") {
        return Err(FmError {
            line: 1,
            message: "the file does not start with a `---` front matter block".into(),
        });
    }
    let Some(close) = lines
        .iter()
        .skip(1)
        .position(|l| l.trim_end() == "---")
        .map(|i| i + 1)
    else {
        return Err(FmError {
            line: lines.len().max(1),
            message: "the front matter is not closed by a `---` line".into(),
        });
    };
    let entries = parse_entries(&lines[1..close], 2)?;
    let body = lines[close + 1..].join("\n");
    Ok((entries, body.trim().to_owned(), close + 2))
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

fn is_blank_or_comment(line: &str) -> bool {
    let t = line.trim();
    t.is_empty() || t.starts_with('#')
}

/// `lines` are the front matter lines; `first_line` the file line of the first.
fn parse_entries(lines: &[&str], first_line: usize) -> Result<Vec<FmEntry>, FmError> {
    let mut entries = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let raw = lines[i];
        let line_no = first_line + i;
        i += 1;
        if is_blank_or_comment(raw) {
            continue;
        }
        if indent_of(raw) > 0 {
            return Err(FmError {
                line: line_no,
                message: format!("unexpected indented line `{}`", raw.trim()),
            });
        }
        let Some((key, rest)) = raw.split_once(':') else {
            return Err(FmError {
                line: line_no,
                message: format!("expected `key: value`, found `{}`", raw.trim()),
            });
        };
        let key = key.trim().to_owned();
        if key.is_empty() || key.contains(char::is_whitespace) {
            return Err(FmError {
                line: line_no,
                message: format!("`{key}` is not a valid key"),
            });
        }
        let rest = strip_comment(rest.trim());
        // The indented lines that belong to this key.
        let start = i;
        while i < lines.len() && (lines[i].trim().is_empty() || indent_of(lines[i]) > 0) {
            i += 1;
        }
        let block: Vec<&str> = lines[start..i].to_vec();
        let value = if rest.is_empty() {
            block_value(&block, start + first_line)?
        } else if rest == "|" || rest == ">" || rest == "|-" || rest == ">-" {
            let parts: Vec<&str> = block.iter().map(|l| l.trim()).collect();
            let sep = if rest.starts_with('|') { "\n" } else { " " };
            FmValue::Scalar(parts.join(sep).trim().to_owned())
        } else if let Some(inner) = rest.strip_prefix('[') {
            let Some(inner) = inner.strip_suffix(']') else {
                return Err(FmError {
                    line: line_no,
                    message: format!("the list of `{key}` is not closed by `]`"),
                });
            };
            FmValue::List(
                inner
                    .split(',')
                    .map(|s| unquote(s.trim(), line_no))
                    .collect::<Result<Vec<_>, _>>()?
                    .into_iter()
                    .filter(|s| !s.is_empty())
                    .collect(),
            )
        } else {
            if block.iter().any(|l| !l.trim().is_empty()) {
                return Err(FmError {
                    line: start + first_line,
                    message: format!("`{key}` has a value on its line and indented lines after it"),
                });
            }
            FmValue::Scalar(unquote(rest, line_no)?)
        };
        entries.push(FmEntry {
            key,
            value,
            line: line_no,
        });
    }
    Ok(entries)
}

/// The value of a key whose line ends at the colon: a block list, a nested
/// mapping (skipped), or nothing.
fn block_value(block: &[&str], first_line: usize) -> Result<FmValue, FmError> {
    let items: Vec<(usize, &str)> = block
        .iter()
        .enumerate()
        .filter(|(_, l)| !is_blank_or_comment(l))
        .map(|(n, l)| (n + first_line, l.trim()))
        .collect();
    if items.is_empty() {
        return Ok(FmValue::Scalar(String::new()));
    }
    if items.iter().all(|(_, l)| l.starts_with("- ") || *l == "-") {
        return Ok(FmValue::List(
            items
                .iter()
                .map(|(n, l)| unquote(strip_comment(l[1..].trim()), *n))
                .collect::<Result<Vec<_>, _>>()?,
        ));
    }
    Ok(FmValue::Nested)
}

/// `value # comment` → `value` (not inside quotes).
fn strip_comment(s: &str) -> &str {
    if s.starts_with('"') || s.starts_with('\'') {
        return s;
    }
    match s.find(" #") {
        Some(i) => s[..i].trim_end(),
        None => s,
    }
}

fn unquote(s: &str, line: usize) -> Result<String, FmError> {
    for q in ['"', '\''] {
        if let Some(inner) = s.strip_prefix(q) {
            let Some(inner) = inner.strip_suffix(q) else {
                return Err(FmError {
                    line,
                    message: format!("the quoted value {s} is not closed"),
                });
            };
            return Ok(if q == '"' {
                inner
                    .replace("\\n", "\n")
                    .replace("\\\"", "\"")
                    .replace("\\\\", "\\")
            } else {
                inner.replace("''", "'")
            });
        }
    }
    Ok(s.to_owned())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn reads_scalars_lists_and_block_scalars_with_lines() {
        let text = "---\nname: reviewer\ndescription: \"Reviews: code\"\ntools: [Read, 'Grep']\ndisallowedTools:\n  - Bash\n  - Write # no\nnotes: >\n  one\n  two\nhooks:\n  PreToolUse:\n    x: y\n---\nYou review.\n";
        let (entries, body, body_line) = split(text).unwrap();
        let get = |k: &str| entries.iter().find(|e| e.key == k).unwrap();
        assert_eq!(get("name").value, FmValue::Scalar("reviewer".into()));
        assert_eq!(
            get("description").value,
            FmValue::Scalar("Reviews: code".into())
        );
        assert_eq!(
            get("tools").value,
            FmValue::List(vec!["Read".into(), "Grep".into()])
        );
        assert_eq!(get("tools").line, 4);
        assert_eq!(
            get("disallowedTools").value,
            FmValue::List(vec!["Bash".into(), "Write".into()])
        );
        assert_eq!(get("notes").value, FmValue::Scalar("one two".into()));
        assert_eq!(get("hooks").value, FmValue::Nested);
        assert_eq!(body, "You review.");
        assert_eq!(body_line, 15);
    }

    #[test]
    fn errors_name_the_line() {
        let e = split("---\nname: x\ndescription \"no colon\"\n---\n").unwrap_err();
        assert_eq!(e.line, 3);
        let e = split("---\nname: x\ntools: [Read\n---\n").unwrap_err();
        assert_eq!(e.line, 3);
        assert!(e.message.contains("not closed"), "{}", e.message);
        let e = split("name: x\n").unwrap_err();
        assert_eq!(e.line, 1);
        let e = split("---\nname: x\n").unwrap_err();
        assert!(e.message.contains("not closed"), "{}", e.message);
    }
}
